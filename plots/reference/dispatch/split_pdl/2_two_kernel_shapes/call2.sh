#!/bin/bash
# the two kernels as a dependent launch: suites, mutants, sanitizers, plans, same-run A/B
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/pdl; mkdir -p $O; cp .devrun/call2.sh .devrun/v/*.diff $O/
nvidia-smi -L | tee $O/gpu.txt
B=.devrun/07_softmax
GPU_TEST_STAGES="06_coop_groups 07_softmax" .devrun/test_gpu > $O/suite.txt 2>&1; echo "suite rc=$?"; grep -E "gpu:" $O/suite.txt
for m in mut_reset mut_wait; do GPU_TEST_STAGES=07_softmax timeout 240 .devrun/v/tg_$m > $O/$m.txt 2>&1; echo "$m rc=$?"; grep -E "gpu:|asserts" $O/$m.txt; done
SH="24x200000:f32 24x262144:f32 32x151936:f32 32x200000:f32 48x100000:f32 64x100000:f32 64x200000:bf16 96x100000:bf16"
for x in $SH; do sh=${x%:*}; dt=${x#*:}
  REDUCE_VERBOSE=1 $B --variant dispatch --dtype $dt --rows ${sh%x*} --cols ${sh#*x} --check-only 2>&1 | grep -E "07_softmax/dispatch|FAIL|ok" | sort -u; done | tee $O/plans.txt
for t in memcheck racecheck synccheck; do for dt in f32 bf16; do
  timeout 120 compute-sanitizer --tool $t --error-exitcode 9 $B --variant dispatch --dtype $dt --rows 64 --cols 100003 --check-only > $O/san_${t}_$dt.txt 2>&1; echo "$t $dt rc=$?"; tail -1 $O/san_${t}_$dt.txt; done; done
run() { timeout 60 env "$@" --variant dispatch --op $OP --dtype $dt --rows ${sh%x*} --cols ${sh#*x} --iters 100 --warmup 10 2>&1 | awk '/^dispatch/{printf "%s/%s/%s", $5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2 3; do for x in $SH; do sh=${x%:*}; dt=${x#*:}; for OP in softmax logsoftmax; do
  if [ $rep = 2 ]; then echo "$rep $sh $dt $OP pdl=$(run $B) memset=$(run REDUCE_SPLIT_PDL=0 $B)"; else echo "$rep $sh $dt $OP memset=$(run REDUCE_SPLIT_PDL=0 $B) pdl=$(run $B)"; fi
done; done; done | tee $O/ab.txt
cd /tmp && tar czf $OUT/pdl.tgz pdl
