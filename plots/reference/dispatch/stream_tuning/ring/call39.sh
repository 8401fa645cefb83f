#!/bin/bash
# ring follow-ups (H100): threads of a ring CTA (512 default, 768, 1024); float 256 x 151936 as clusters of 3 rings against the cut clusters of 8
S=build/07_softmax
run7() { timeout 60 env "$@" $S --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 100 --warmup 10 | awk '/^dispatch/{printf "%s/%s",$5,$8}'; }
echo "threads: default(512) | 768 | 1024 (median/%copy), rounds alternate"
for sh in "1024 65536 softmax bf16" "1024 65536 logsoftmax bf16" "1024 65536 logsoftmax f16" "1024 65536 logsoftmax f32"; do
  set -- $sh; R=$1 C=$2 OP=$3 DT=$4
  for rd in 1 2; do
    if [ $rd = 2 ]; then c=$(run7 REDUCE_STREAM_THREADS=1024); b=$(run7 REDUCE_STREAM_THREADS=768); a=$(run7);
    else a=$(run7); b=$(run7 REDUCE_STREAM_THREADS=768); c=$(run7 REDUCE_STREAM_THREADS=1024); fi
    echo "$R x $C $OP $DT r$rd: $a | $b | $c"
  done
done
echo "256 x 151936: default (K=8 float, K=6 16-bit) | K=3 ring | K=4 ring"
for sh in "256 151936 softmax f32" "256 151936 logsoftmax f32"; do
  set -- $sh; R=$1 C=$2 OP=$3 DT=$4
  for rd in 1 2; do
    a=$(run7); b=$(run7 REDUCE_STREAM_K=3 REDUCE_STREAM_RING=1); c=$(run7 REDUCE_STREAM_K=4 REDUCE_STREAM_RING=1)
    echo "$R x $C $OP $DT r$rd: $a | $b | $c"
  done
done
