#!/bin/bash
# row sums, one lap a block: suites, mutant, sanitizers, plans, same-run A/B against the plan before
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/row_lap; mkdir -p $O; cp .devrun/call5.sh .devrun/v/mut_rowoff.diff $O/; nvidia-smi -L | tee $O/gpu.txt
B=.devrun/06_coop_groups
.devrun/test_gpu > $O/suite.txt 2>&1; echo "suite rc=$?"; grep -E "Test:|gpu:" $O/suite.txt
GPU_TEST_STAGES=06_coop_groups timeout 200 .devrun/v/tg_mut_rowoff > $O/mut_rowoff.txt 2>&1; echo "mutant rc=$?"; grep -E "gpu:|asserts|FAIL" $O/mut_rowoff.txt | head -8
for t in memcheck racecheck synccheck; do for sh in 3x100003 8x131072 1x4194305 1x1048577; do
  timeout 120 compute-sanitizer --tool $t --error-exitcode 9 $B --variant dispatch --rows ${sh%x*} --cols ${sh#*x} --check-only > $O/san_${t}_$sh.txt 2>&1; echo "$t $sh rc=$? $(tail -1 $O/san_${t}_$sh.txt)"; done; done
SH="1x262144 8x131072 32x128256 64x32000 256x151936 2x200000 3x100003 16x65536 100x8193 200x20000 1x4194304"
for sh in $SH; do echo "$sh $($B --variant dispatch --rows ${sh%x*} --cols ${sh#*x} --check-only 2>&1 | grep -E '^dispatch' | awk '{print $NF}')"; done > $O/check.txt
run() { timeout 60 env "$@" --variant dispatch --rows ${sh%x*} --cols ${sh#*x} --iters 200 --warmup 20 2>&1 | awk '/^dispatch/{printf "%s/%s/%s", $5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2 3; do for sh in $SH; do
  if [ $rep = 2 ]; then echo "$rep $sh lap=$(run $B) before=$(run REDUCE_ROW_LAP=0 $B)"; else echo "$rep $sh before=$(run REDUCE_ROW_LAP=0 $B) lap=$(run $B)"; fi
done; done | tee $O/ab.txt
cd /tmp && tar czf $OUT/row_lap.tgz row_lap
