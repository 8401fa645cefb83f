#!/bin/bash
# cluster laps with blocks of 256, 512, 1024 threads (X_CT, EXPERIMENT) vs flags
O=$OUT/c6; mkdir -p $O; cp .devrun/call6.sh $O/
B=build/06_coop_groups
for sh in 64x32000 40x32768 66x24577 33x32768 64x32001; do for t in 256 512 1024; do
  X_CT=$t timeout 60 $B --variant dispatch --rows ${sh%x*} --cols ${sh#*x} --check-only > /dev/null 2>&1; echo "$sh X_CT=$t rc=$?"; done; done | tee $O/check.txt
run() { local R=$1 C=$2; shift 2; timeout 60 env "$@" $B --variant dispatch --rows $R --cols $C --iters 200 --warmup 20 2>&1 | awk '/^dispatch/{printf "%s/%s/%s",$5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2 3; do
  for sh in 64x32000 40x32768 66x24577 33x32768; do R=${sh%x*}; C=${sh#*x}
    if [ $rep = 2 ]; then ord="REDUCE_ROW_LAP=flags X_CT=1024 X_CT=512 X_CT=256"; else ord="X_CT=256 X_CT=512 X_CT=1024 REDUCE_ROW_LAP=flags"; fi
    line="$rep $sh"; for m in $ord; do line="$line $m:$(run $R $C $m)"; done
    echo "$line"
  done
done | tee $O/ab.txt
