#!/bin/bash
# the final rule (laps up to SMs / 2 rows): whole gpu suite, both sides of the rule, H100
O=/tmp/row_lap_rule; mkdir -p $O; cp .devrun/call9.sh $O/; nvidia-smi -L | tee $O/gpu.txt
B=build/06_coop_groups
build/test_gpu > $O/suite.txt 2>&1; echo "suite rc=$?"; grep -E "Test:|gpu:" $O/suite.txt
run() { timeout 60 env "$@" --variant dispatch --rows ${sh%x*} --cols ${sh#*x} --iters 200 --warmup 20 2>&1 | awk '/^dispatch/{printf "%s/%s/%s", $5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2; do for sh in 64x32000 66x24577 67x24577 1x262144 32x128256; do
  if [ $rep = 2 ]; then echo "$rep $sh new=$(run $B) before=$(run REDUCE_ROW_LAP=0 $B)"; else echo "$rep $sh before=$(run REDUCE_ROW_LAP=0 $B) new=$(run $B)"; fi
done; done | tee $O/ab.txt
cd /tmp && tar czf $OUT/row_lap_rule.tgz row_lap_rule
