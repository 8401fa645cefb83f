#!/bin/bash
# H200: float CTAs a row as rings (forced) across lengths, against the committed plan; 16-bit cluster at 256 x 151936 log
S=build/07_softmax
nvidia-smi -L; nvidia-smi --query-gpu=clocks.max.sm,clocks.max.mem --format=csv
run7() { timeout 60 env "$@" $S --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 100 --warmup 10 | awk '/^dispatch/{printf "%s/%s",$5,$8}'; }
echo "shape: default | RING=1 (median/%copy), rounds alternate"
for sh in "2048 32768 logsoftmax f32" "1536 40000 softmax f32" "1280 46000 logsoftmax f32" "4096 50257 softmax f32" "4096 50257 logsoftmax f32" "256 151936 logsoftmax f16"; do
  set -- $sh; R=$1 C=$2 OP=$3 DT=$4
  for rd in 1 2; do
    if [ $rd = 2 ]; then c=$(run7 REDUCE_STREAM_RING=1); a=$(run7); else a=$(run7); c=$(run7 REDUCE_STREAM_RING=1); fi
    echo "$R x $C $OP $DT r$rd: $a | $c"
  done
done
