#!/bin/bash
# stream path: CTAs a row (REDUCE_STREAM_K) at 65536, 32768 and 151936 columns, now that clusters swap states by message
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/20_stream_k; mkdir -p $O; cp .devrun/call20.sh $O/; nvidia-smi -L > $O/gpu.txt
S=build/07_softmax
run7() { local R=$1 C=$2 dt=$3; shift 3; timeout 60 env "$@" $S --variant dispatch --rows $R --cols $C --op softmax --dtype $dt --iters 200 --warmup 20 2>&1 | awk '/^dispatch/{printf "%s/%s/%s",$5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2; do
 for cfg in "1024x65536 f16 1 2 3 4" "1024x65536 bf16 1 2 3 4" "1024x65536 f32 2 3 4 6" "2048x32768 f16 1 2 3" "2048x32768 bf16 1 2 3" "2048x32768 f32 1 2 3" "256x151936 bf16 6 8 12" "256x151936 f32 6 8 12"; do
  set -- $cfg; sh=$1; dt=$2; shift 2; ks="$*"; [ $rep = 2 ] && ks=$(echo $ks | tr ' ' '\n' | tac | tr '\n' ' ')
  line="$rep $sh $dt default:$(run7 ${sh%x*} ${sh#*x} $dt A=1)"
  for k in $ks; do line="$line K$k:$(run7 ${sh%x*} ${sh#*x} $dt REDUCE_STREAM_K=$k)"; done; echo "$line"
 done
done | tee $O/k.txt
for cfg in "1024x65536 bf16 2" "1024x65536 bf16 3" "2048x32768 bf16 2"; do set -- $cfg; REDUCE_VERBOSE=1 REDUCE_STREAM_K=$3 $S --variant dispatch --rows ${1%x*} --cols ${1#*x} --dtype $2 --op softmax --check-only 2>&1 | grep "dispatch:\|FAIL\|ok"; done > $O/plans.txt
cat $O/plans.txt
cd /tmp && tar czf $OUT/20.tgz 20_stream_k
