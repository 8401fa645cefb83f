#!/bin/bash
# 07: cluster states by message in softmax_cta and in the stream kernel's clusters (this tree)
# against the committed tree (.devrun/v/07_old: cluster.sync); suite, mutant, sanitizers, A/B
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/13_stream_st_async; mkdir -p $O; cp .devrun/call14.sh .devrun/v/mut_*.diff $O/; nvidia-smi -L > $O/gpu.txt
NEW=build/07_softmax; OLD=.devrun/v/07_old
GPU_TEST_STAGES=07_softmax timeout 200 build/test_gpu > $O/suite07.txt 2>&1; echo "suite07 rc=$?"; grep -E "gpu:" $O/suite07.txt
GPU_TEST_STAGES=07_softmax timeout 200 .devrun/v/tg_s7slot0 > $O/mut_s7slot0.txt 2>&1; echo "mutant s7slot0 rc=$?"; grep -E "gpu:|asserts" $O/mut_s7slot0.txt
for t in memcheck racecheck synccheck; do for sh in 64x32001 300x60001 256x151937; do
  timeout 100 compute-sanitizer --tool $t --error-exitcode 9 $NEW --variant dispatch --rows ${sh%x*} --cols ${sh#*x} --check-only --dtype bf16 > $O/san_${t}_$sh.txt 2>&1; echo "$t $sh rc=$? $(tail -1 $O/san_${t}_$sh.txt)"; done; done | tee $O/sanitize_summary.txt
for sh in 64x32001 256x151936 1024x65536 300x60001 48x50257; do REDUCE_VERBOSE=1 $NEW --variant dispatch --rows ${sh%x*} --cols ${sh#*x} --check-only --op softmax 2>&1 | grep "07_softmax/dispatch:\|FAIL"; done > $O/plans.txt
run7() { local B=$1 R=$2 C=$3 op=$4 dt=$5; timeout 60 $B --variant dispatch --rows $R --cols $C --op $op --dtype $dt --iters 100 --warmup 10 2>&1 | awk '/^dispatch/{printf "%s/%s/%s",$5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2; do
  for sh in 64x32000 64x32001 256x151936 1024x65536 48x50257; do for dt in f32 bf16; do for op in softmax logsoftmax; do
    if [ $rep = 2 ]; then ord="OLD NEW"; else ord="NEW OLD"; fi
    line="$rep $sh $op $dt"; for b in $ord; do line="$line $b=$(run7 ${!b} ${sh%x*} ${sh#*x} $op $dt)"; done; echo "$line"
  done; done; done
done | tee $O/ab.txt
cd /tmp && tar czf $OUT/13.tgz 13_stream_st_async
