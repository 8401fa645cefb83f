#!/bin/bash
# ablations of the stream kernel (first launch real, timed launches ablated): where a row's time goes
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/19_ablate; mkdir -p $O; cp .devrun/call19.sh .devrun/mkvar.py $O/; nvidia-smi -L > $O/gpu.txt
S=build/07_softmax
run7() { local bin=$1 R=$2 C=$3 dt=$4; shift 4; timeout 60 env "$@" $bin --variant dispatch --rows $R --cols $C --op softmax --dtype $dt --iters 200 --warmup 20 2>&1 | awk '/^dispatch/{printf "%s/%s/%s",$5,$6,$8} /rror/{printf "ERR"}'; }
for rep in 1 2; do
 for cfg in "32x128256 f32 A=1" "32x128256 f32 REDUCE_STREAM=1 REDUCE_STREAM_K=16" "32x128256 bf16 REDUCE_STREAM=1 REDUCE_STREAM_K=16" "256x151936 f32 A=1" "256x151936 bf16 A=1" "1024x65536 f32 A=1" "1024x65536 bf16 A=1"; do
  set -- $cfg; sh=$1; dt=$2; shift 2
  if [ $rep = 2 ]; then ord="bare noexch nowrite nopass nowexp nosumexp base"; else ord="base nosumexp nowexp nopass nowrite noexch bare"; fi
  line="$rep $sh $dt $*"
  for m in $ord; do if [ $m = base ]; then b=$S; else b=.devrun/v/s7_$m; fi; line="$line $m:$(run7 $b ${sh%x*} ${sh#*x} $dt "$@")"; done; echo "$line"
 done
done | tee $O/ab.txt
cd /tmp && tar czf $OUT/19.tgz 19_ablate
