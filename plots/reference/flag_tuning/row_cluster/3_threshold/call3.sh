#!/bin/bash
# cluster laps, final rule: 06 gpu suite, two mutants, sanitizers on the cluster path, A/B
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/3_final; mkdir -p $O; cp .devrun/call3.sh .devrun/v/mut_*.diff $O/; nvidia-smi -L | tee $O/gpu.txt
B=build/06_coop_groups
GPU_TEST_STAGES=06_coop_groups timeout 200 build/test_gpu > $O/suite06.txt 2>&1; echo "suite rc=$?"; grep -E "gpu:|asserts" $O/suite06.txt
for m in crowoff cslot0; do GPU_TEST_STAGES=06_coop_groups timeout 100 .devrun/v/tg_$m > $O/mut_$m.txt 2>&1; echo "mutant $m rc=$?"; grep -E "gpu:|asserts" $O/mut_$m.txt; done
for t in memcheck racecheck synccheck; do
  for sh in 64x32001 25x32768 66x12287 24x32765; do
    timeout 100 compute-sanitizer --tool $t --error-exitcode 9 $B --variant dispatch --rows ${sh%x*} --cols ${sh#*x} --check-only > $O/${t}_$sh.txt 2>&1; echo "$t $sh rc=$? $(tail -1 $O/${t}_$sh.txt)"; done
done | tee $O/sanitize_summary.txt
run() { local R=$1 C=$2; shift 2; timeout 60 env "$@" $B --variant dispatch --rows $R --cols $C --iters 200 --warmup 20 2>&1 | awk '/^dispatch/{printf "%s/%s/%s",$5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2 3; do
  for sh in 64x32000 25x32768 24x32765 66x24577 66x12287 32x24577 1x262144 8x131072 32x128256; do R=${sh%x*}; C=${sh#*x}
    if [ $rep = 2 ]; then ord="flags 1"; else ord="1 flags"; fi
    line="$rep $sh"; for m in $ord; do line="$line m$m=$(run $R $C REDUCE_ROW_LAP=$m)"; done
    echo "$line"
  done
done | tee $O/ab.txt
cd /tmp && tar czf $OUT/3_final.tgz 3_final
