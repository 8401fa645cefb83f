#!/bin/bash
# H200: the ring's split ask (nbuf 2) against the ask after the writes (REDUCE_STREAM_NBUF=1), same-call A/B
O=/tmp/split_h200; mkdir -p $O; cp .devrun/call43.sh $O/; nvidia-smi -L | tee $O/gpu.txt
S=build/07_softmax
run7() { timeout 60 env "$@" $S --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 100 --warmup 10 | awk '/^dispatch/{printf "%s/%s",$5,$8}'; }
plan() { env "$@" REDUCE_VERBOSE=1 timeout 60 $S --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --check-only 2>&1 | grep -E "dispatch:|^dispatch" | sed 's/.*): //;s/ (max.*//' | tr -s ' ' | tr '\n' ' '; }
{
echo "shape: split ask (nbuf 2) | ask after the writes (REDUCE_STREAM_NBUF=1)  (median/%copy)"
for sh in "1024 65536 softmax bf16" "1024 65536 logsoftmax f16" "1024 65536 softmax f32" "1024 65536 logsoftmax f32" "512 131072 softmax bf16" "512 131072 logsoftmax f16" "2048 60000 softmax f16" "2048 32768 softmax f32" "2048 32768 logsoftmax f32"; do
  set -- $sh; R=$1 C=$2 OP=$3 DT=$4
  echo "$R x $C $OP $DT: $(plan)"
  for rd in 1 2 3; do
    if [ $rd = 2 ]; then b=$(run7 REDUCE_STREAM_NBUF=1); a=$(run7); else a=$(run7); b=$(run7 REDUCE_STREAM_NBUF=1); fi
    echo "  r$rd: $a | $b"
  done
done
} 2>&1 | tee $O/ab.txt
cd /tmp && tar czf $OUT/split_h200.tgz split_h200
