#!/bin/bash
# EXPERIMENT: the cluster finish by st.async into rank 0 (X_ASYNC=1) vs cluster.sync vs flags
export PATH=/usr/local/cuda/bin:$PATH
O=$OUT/c10; mkdir -p $O; cp .devrun/call10.sh $O/; nvidia-smi -L > $O/gpu.txt
B=build/06_coop_groups
for sh in 64x32000 64x32001 33x32768 66x16383 66x24577; do
  X_ASYNC=1 timeout 60 $B --variant dispatch --rows ${sh%x*} --cols ${sh#*x} --check-only >/dev/null 2>&1; echo "$sh async rc=$?"; done | tee $O/check.txt
for t in memcheck racecheck synccheck; do X_ASYNC=1 timeout 60 compute-sanitizer --tool $t --error-exitcode 9 $B --variant dispatch --rows 64 --cols 32001 --check-only > $O/san_$t.txt 2>&1; echo "$t rc=$? $(tail -1 $O/san_$t.txt)"; done | tee -a $O/check.txt
run() { local R=$1 C=$2; shift 2; timeout 60 env "$@" $B --variant dispatch --rows $R --cols $C --iters 200 --warmup 20 2>&1 | awk '/^dispatch/{printf "%s/%s/%s",$5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2 3; do
  for sh in 64x32000 66x24577 40x32768 33x32768; do R=${sh%x*}; C=${sh#*x}
    if [ $rep = 2 ]; then ord="REDUCE_ROW_LAP=flags X_ASYNC=1 A=sync"; else ord="A=sync X_ASYNC=1 REDUCE_ROW_LAP=flags"; fi
    line="$rep $sh"; for m in $ord; do line="$line $m:$(run $R $C $m)"; done
    echo "$line"
  done
done | tee $O/ab.txt
