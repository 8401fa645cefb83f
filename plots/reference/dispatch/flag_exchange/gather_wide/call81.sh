#!/bin/bash
# the build before the wide gather (5393688, .devrun/07_softmax_old) against 3769f5b at rows of at most 32 CTAs (both gather) and 64 (old: merging warps)
export PATH=/usr/local/cuda/bin:$PATH
O=$OUT/k81; mkdir -p $O; nvidia-smi -L | tee $O/gpu.txt
run7() { timeout 60 env $N --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 200 --warmup 20 | awk '/^dispatch/{printf "%s/%s",$5,$8}'; }
{
for rd in 1 2 3; do
  for cfg in "32x128256 f16 softmax" "32x128256 f16 logsoftmax" "32x128256 bf16 softmax" "32x128256 bf16 logsoftmax" "16x100000 bf16 softmax" "2x100003 f32 softmax" "8x131072 bf16 softmax"; do
    set -- $cfg; sh=$1; DT=$2; OP=$3; R=${sh%x*}; C=${sh#*x}
    if [ $((rd % 2)) = 1 ]; then echo "$cfg r$rd old:$(N=.devrun/07_softmax_old run7) new:$(N=build/07_softmax run7)"
    else echo "$cfg r$rd new:$(N=build/07_softmax run7) old:$(N=.devrun/07_softmax_old run7)"; fi
  done
done
} > $O/ab_old_new.txt 2>&1; cat $O/ab_old_new.txt
