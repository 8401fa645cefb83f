#!/bin/bash
# H200: float rings (a CTA a row, looping) with outputs by the TMA forced (REDUCE_STREAM_BULK_OUT=1) against the default
export PATH=/usr/local/cuda/bin:$PATH
O=$OUT/k70; mkdir -p $O; nvidia-smi -L | tee $O/gpu.txt
N=build/07_softmax
run7() { timeout 60 env "$@" $N --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 100 --warmup 10 | awk '/^dispatch/{printf "%s/%s",$5,$8}'; }
{
for rd in 1 2; do
  for sh in 2048x32768 1500x46000 4096x50257 1024x65536; do R=${sh%x*}; C=${sh#*x}; DT=f32
    for OP in softmax logsoftmax; do
      if [ $((rd % 2)) = 1 ]; then echo "$sh $DT $OP r$rd def:$(run7) tma:$(run7 REDUCE_STREAM_BULK_OUT=1)"
      else echo "$sh $DT $OP r$rd tma:$(run7 REDUCE_STREAM_BULK_OUT=1) def:$(run7)"; fi
    done
  done
done
} 2>&1 | tee $O/ab.txt
