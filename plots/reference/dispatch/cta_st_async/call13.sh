#!/bin/bash
# 06 final (st.async cluster rows of 256/512-thread laps): suites, mutants; 07 softmax_cta with
# st.async state exchange vs cluster.sync (REDUCE_X_SYNC=1): 07 suite, a mutant, sanitizers, A/B
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/12_softmax_cta; mkdir -p $O; cp .devrun/call13.sh .devrun/v/mut_*.diff $O/; nvidia-smi -L > $O/gpu.txt
B=build/06_coop_groups; S=build/07_softmax
timeout 200 build/test_gpu > $O/suite.txt 2>&1; echo "suite rc=$?"; grep -E "gpu:" $O/suite.txt
for m in crowoff cslot1 rowoff; do GPU_TEST_STAGES=06_coop_groups timeout 60 .devrun/v/tg_$m > $O/mut_$m.txt 2>&1; echo "mutant $m rc=$?"; grep -E "gpu:|asserts" $O/mut_$m.txt; done
GPU_TEST_STAGES=07_softmax timeout 200 .devrun/v/tg_s7slot0 > $O/mut_s7slot0.txt 2>&1; echo "mutant s7slot0 rc=$?"; grep -E "gpu:|asserts" $O/mut_s7slot0.txt
for t in memcheck racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $t --error-exitcode 9 $S --variant dispatch --rows 64 --cols 32001 --check-only > $O/san_${t}_07.txt 2>&1; echo "$t 07 64x32001 rc=$? $(tail -1 $O/san_${t}_07.txt)"
  for sh in 8x131072 16x65537; do timeout 60 compute-sanitizer --tool $t --error-exitcode 9 $B --variant dispatch --rows ${sh%x*} --cols ${sh#*x} --check-only > $O/san_${t}_06_$sh.txt 2>&1; echo "$t 06 $sh rc=$? $(tail -1 $O/san_${t}_06_$sh.txt)"; done
done | tee $O/sanitize_summary.txt
REDUCE_VERBOSE=1 $S --variant dispatch --rows 64 --cols 32000 --check-only --op softmax > $O/plans.txt 2>&1
for sh in 48x50257 100x20000 16x65536 8x131072 32x128256; do REDUCE_VERBOSE=1 $S --variant dispatch --rows ${sh%x*} --cols ${sh#*x} --check-only --op softmax --dtype f32 2>&1 | grep -i "plan\|dispatch:" ; done >> $O/plans.txt
run7() { local R=$1 C=$2 op=$3 dt=$4; shift 4; timeout 60 env "$@" $S --variant dispatch --rows $R --cols $C --op $op --dtype $dt --iters 200 --warmup 20 2>&1 | awk '/^dispatch/{printf "%s/%s/%s",$5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2 3; do
  for dt in f32 f16 bf16; do for op in softmax logsoftmax; do
    if [ $rep = 2 ]; then ord="REDUCE_X_SYNC=1 A=async"; else ord="A=async REDUCE_X_SYNC=1"; fi
    line="$rep 64x32000 $op $dt"; for m in $ord; do line="$line $m:$(run7 64 32000 $op $dt $m)"; done; echo "$line"
  done; done
done | tee $O/ab.txt
cd /tmp && tar czf $OUT/12.tgz 12_softmax_cta
