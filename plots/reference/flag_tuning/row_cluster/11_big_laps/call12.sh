#!/bin/bash
# cluster rows of 512- and 1024-thread laps (up to 16 blocks) against flags, where a row has more
# than 16 laps of 256 threads; X_T256=1: clusters of 256-thread laps only (else flags)
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/11_big_laps; mkdir -p $O; cp .devrun/call12.sh $O/; nvidia-smi -L > $O/gpu.txt
B=build/06_coop_groups
GPU_TEST_STAGES=06_coop_groups timeout 100 build/test_gpu > $O/suite06.txt 2>&1; echo "suite rc=$?"; grep -E "gpu:" $O/suite06.txt
for t in memcheck racecheck synccheck; do for sh in 1x262147 8x131075; do
  timeout 60 compute-sanitizer --tool $t --error-exitcode 9 $B --variant dispatch --rows ${sh%x*} --cols ${sh#*x} --check-only > $O/san_${t}_$sh.txt 2>&1; echo "$t $sh rc=$? $(tail -1 $O/san_${t}_$sh.txt)"; done; done | tee $O/sanitize_summary.txt
run() { local R=$1 C=$2; shift 2; timeout 60 env "$@" $B --variant dispatch --rows $R --cols $C --iters 200 --warmup 20 2>&1 | awk '/^dispatch/{printf "%s/%s/%s",$5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2 3; do
  for sh in 1x262144 8x131072 32x128256 3x100003 2x200000 1x131072 16x131072 64x32000; do R=${sh%x*}; C=${sh#*x}
    if [ $rep = 2 ]; then ord="REDUCE_ROW_LAP=flags X_T256=1 A=auto"; else ord="A=auto X_T256=1 REDUCE_ROW_LAP=flags"; fi
    line="$rep $sh"; for m in $ord; do line="$line $m:$(run $R $C $m)"; done; echo "$line"
  done
done | tee $O/ab.txt
cd /tmp && tar czf $OUT/11.tgz 11_big_laps
