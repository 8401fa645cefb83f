#!/bin/bash
# H200: the ring rule against REDUCE_STREAM_RING=0 (and forced on where the rule leaves it off)
S=build/07_softmax
nvidia-smi -L
run7() { timeout 60 env "$@" $S --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 100 --warmup 10 | awk '/^dispatch/{printf "%s/%s",$5,$8}'; }
plan() { env "$@" REDUCE_VERBOSE=1 timeout 60 $S --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --check-only 2>&1 | grep -E "dispatch:|^dispatch" | sed 's/.*): //;s/ (max.*//' | tr -s ' ' | tr '\n' ' '; }
echo "shape: default | RING=0 | RING=1 (median/%copy), rounds alternate"
for sh in "1024 65536 softmax bf16" "1024 65536 logsoftmax f16" "1024 65536 softmax f32" "512 131072 softmax bf16" "640 92000 softmax bf16" "2048 32768 softmax f32" "256 151936 softmax bf16"; do
  set -- $sh; R=$1 C=$2 OP=$3 DT=$4
  echo "$R x $C $OP $DT: default: $(plan) | off: $(plan REDUCE_STREAM_RING=0) | on: $(plan REDUCE_STREAM_RING=1)"
  for rd in 1 2; do
    if [ $rd = 2 ]; then c=$(run7 REDUCE_STREAM_RING=1); b=$(run7 REDUCE_STREAM_RING=0); a=$(run7); else a=$(run7); b=$(run7 REDUCE_STREAM_RING=0); c=$(run7 REDUCE_STREAM_RING=1); fi
    echo "  r$rd: $a | $b | $c"
  done
done
