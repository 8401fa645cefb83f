#!/bin/bash
# the flag path in registers gathers rows of up to 64 CTAs (two states a lane) against the merging warps (REDUCE_FLAGS_GATHER_MAX=32)
export PATH=/usr/local/cuda/bin:$PATH
O=$OUT/k78; mkdir -p $O; nvidia-smi -L | tee $O/gpu.txt
N=build/07_softmax
{
for GM in 64 32; do for sh in 8x131075 8x131072 4x131072 4x540000 4x540001 2x200003 1x131075 16x100003 1x262147 5x100003 3x262147 2x100003; do R=${sh%x*}; C=${sh#*x}
  for DT in f32 f16 bf16; do for OP in softmax logsoftmax; do
    echo "GM=$GM $sh $DT $OP: $(REDUCE_FLAGS_GATHER_MAX=$GM REDUCE_VERBOSE=1 timeout 60 $N --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --check-only 2>&1 | grep -o 'dispatch: .*\|FAIL.*\|ok (max.*\|rror.*' | tr '\n' ' ')"
  done; done
done; done
} > $O/checks.txt 2>&1; echo "checks ok: $(grep -c ' ok (max' $O/checks.txt) of $(wc -l < $O/checks.txt)"; grep -v " ok (max" $O/checks.txt | head
grep "GM=64" $O/checks.txt | grep " f32 softmax\| bf16 softmax" | sed 's/(max.*//' 
for t in memcheck synccheck; do for a in "8 131075 bf16" "4 540001 f32"; do set -- $a
  echo "== $t $a"; timeout 200 compute-sanitizer --tool $t --error-exitcode 9 $N --variant dispatch --rows $1 --cols $2 --dtype $3 --check-only 2>&1 | tail -2; echo "rc ${PIPESTATUS[0]}"
done; done > $O/san.txt 2>&1; grep -c "rc 0" $O/san.txt
run7() { timeout 60 env "$@" $N --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 200 --warmup 20 | awk '/^dispatch/{printf "%s/%s",$5,$8}'; }
{
for rd in 1 2 3; do
  for cfg in "8x131072 f32 softmax" "8x131072 f32 logsoftmax" "8x131072 bf16 softmax" "8x131072 bf16 logsoftmax" "8x131072 f16 softmax" "4x131072 f32 softmax" "4x131072 bf16 softmax" "4x540000 f32 softmax" "2x200000 f32 softmax" "16x100000 bf16 softmax" "1x131072 f32 softmax" "1x262144 f32 softmax"; do
    set -- $cfg; sh=$1; DT=$2; OP=$3; R=${sh%x*}; C=${sh#*x}
    if [ $((rd % 2)) = 1 ]; then echo "$cfg r$rd merge:$(run7 REDUCE_FLAGS_GATHER_MAX=32) gather:$(run7)"
    else echo "$cfg r$rd gather:$(run7) merge:$(run7 REDUCE_FLAGS_GATHER_MAX=32)"; fi
  done
done
} > $O/ab.txt 2>&1; cat $O/ab.txt
