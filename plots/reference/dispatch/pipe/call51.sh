#!/bin/bash
# pipeline path: barriers initialised by all threads; ablations as call51
O=/tmp/pipe8; mkdir -p $O; cp .devrun/call51.sh $O/; nvidia-smi -L | tee $O/gpu.txt
S=build/07_softmax
run7() { timeout 60 env "$@" $S --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 100 --warmup 10 | awk '/^dispatch/{printf "%s/%s",$5,$8}'; }
{
for sh in "32 128256 softmax f32" "64 32000 softmax f32" "8 131072 softmax f32" "64 32000 softmax bf16"; do
  set -- $sh; R=$1 C=$2 OP=$3 DT=$4
  echo "$R x $C $OP $DT: default | pipe | AB1 noexch | AB2 nowrite | AB3 noload"
  for rd in 1 2; do
    echo "  r$rd: $(run7) | $(run7 REDUCE_PIPE=1) | $(run7 REDUCE_PIPE=1 REDUCE_PIPE_AB=1) | $(run7 REDUCE_PIPE=1 REDUCE_PIPE_AB=2) | $(run7 REDUCE_PIPE=1 REDUCE_PIPE_AB=3)"
  done
done
} 2>&1 | tee $O/ab.txt
cd /tmp && tar czf $OUT/pipe8.tgz pipe8
