#!/bin/bash
# stream path: threads of a CTA alone on its SM (REDUCE_STREAM_THREADS) at 1024 x 65536 16-bit, 2048 x 32768 and 4096 x 50257 float
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/26_threads; mkdir -p $O; cp .devrun/call26.sh $O/; nvidia-smi -L > $O/gpu.txt; cat $O/gpu.txt
S=build/07_softmax
run7() { local R=$1 C=$2 op=$3 dt=$4; shift 4; timeout 60 env "$@" $S --variant dispatch --rows $R --cols $C --op $op --dtype $dt --iters 100 --warmup 10 2>&1 | awk '/^dispatch/{printf "%s/%s/%s",$5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2; do for cfg in "1024x65536 softmax bf16" "1024x65536 logsoftmax bf16" "1024x65536 softmax f16" "2048x32768 softmax f32" "4096x50257 softmax f32" "2048x32768 softmax bf16"; do
  set -- $cfg; sh=$1; op=$2; dt=$3; R=${sh%x*}; C=${sh#*x}; ts="512 768 1024"; [ $rep = 2 ] && ts="1024 768 512"
  line="$rep $sh $op $dt default:$(run7 $R $C $op $dt A=1)"; for t in $ts; do line="$line T$t:$(run7 $R $C $op $dt REDUCE_STREAM_THREADS=$t)"; done; echo "$line"; done; done | tee $O/threads.txt
for t in 512 1024; do REDUCE_VERBOSE=1 REDUCE_STREAM_THREADS=$t $S --variant dispatch --rows 1024 --cols 65536 --dtype bf16 --op softmax --check-only 2>&1 | grep "dispatch"; done | tee $O/plans.txt
cd /tmp && tar czf $OUT/26.tgz 26_threads
