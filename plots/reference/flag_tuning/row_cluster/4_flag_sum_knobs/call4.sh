#!/bin/bash
# flag_sum: single-block limit, lap length, a striding grid, at 2^13..2^21 (EXPERIMENT knobs)
O=$OUT/c4; mkdir -p $O; cp .devrun/call4.sh $O/
B=build/06_coop_groups
N=2^13,2^14,2^15,2^16,2^17,2^18,2^19,2^20,2^21
run() { timeout 120 env "$@" $B --variant flag_sum -n $N --iters 200 --warmup 20 2>&1 | awk '/^flag_sum/{printf " %s:%s:%s", substr($4,3), $5, $9} /rror|FAIL/{printf "ERR"}'; echo; }
for rep in 1 2; do
  for k in "A=0" "X_ONE_BLOCK=16384" "X_ONE_BLOCK=8192" "X_LAP=2048" "X_GRID=132" "X_GRID=264"; do
    echo "$rep $k $(run $k)"; done
done | tee $O/knobs.txt
$B --variant flag_sum -n 2^19 --iters 20 > $O/sample_output.txt 2>&1
