#!/bin/bash
# XG: rows of up to 128 CTAs gather their states from C copies (REDUCE_FLAGS_XG=C), against the merging warps
export PATH=/usr/local/cuda/bin:$PATH
O=$OUT/k77; mkdir -p $O; nvidia-smi -L | tee $O/gpu.txt
N=build/07_softmax
{
for X in 1 8; do for sh in 1x262144 1x262147 8x131075 2x200003 3x262147 5x100003; do R=${sh%x*}; C=${sh#*x}
  for DT in f32 f16 bf16; do for OP in softmax logsoftmax; do
    echo "XG=$X $sh $DT $OP: $(REDUCE_FLAGS_XG=$X REDUCE_VERBOSE=1 timeout 60 $N --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --check-only 2>&1 | grep -o 'dispatch: .*\|FAIL.*\|ok (max.*\|rror.*' | tr '\n' ' ')"
  done; done
done; done
} > $O/checks.txt 2>&1; echo "checks ok: $(grep -c ' ok (max' $O/checks.txt) of $(wc -l < $O/checks.txt)"; grep -v " ok (max" $O/checks.txt | head
for X in 1 8; do echo "== memcheck XG=$X"; REDUCE_FLAGS_XG=$X timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $N --variant dispatch --rows 3 --cols 262147 --dtype bf16 --check-only 2>&1 | tail -2; echo "rc ${PIPESTATUS[0]}"; done > $O/san.txt 2>&1; cat $O/san.txt
run7() { timeout 60 env "$@" $N --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 200 --warmup 20 | awk '/^dispatch/{printf "%s/%s",$5,$8}'; }
{
for rd in 1 2 3; do
  for cfg in "1x262144 f32 softmax" "1x262144 f32 logsoftmax" "1x262144 f16 softmax" "1x262144 f16 logsoftmax" "1x262144 bf16 softmax" "1x262144 bf16 logsoftmax" "8x131072 f32 softmax" "8x131072 bf16 softmax" "4x131072 f32 softmax" "2x200000 f32 softmax"; do
    set -- $cfg; sh=$1; DT=$2; OP=$3; R=${sh%x*}; C=${sh#*x}
    case $rd in
      1) echo "$cfg r$rd def:$(run7) x1:$(run7 REDUCE_FLAGS_XG=1) x8:$(run7 REDUCE_FLAGS_XG=8) x16:$(run7 REDUCE_FLAGS_XG=16)";;
      2) echo "$cfg r$rd x16:$(run7 REDUCE_FLAGS_XG=16) x8:$(run7 REDUCE_FLAGS_XG=8) x1:$(run7 REDUCE_FLAGS_XG=1) def:$(run7)";;
      3) echo "$cfg r$rd x8:$(run7 REDUCE_FLAGS_XG=8) def:$(run7) x16:$(run7 REDUCE_FLAGS_XG=16) x1:$(run7 REDUCE_FLAGS_XG=1)";;
    esac
  done
done
} > $O/ab.txt 2>&1; cat $O/ab.txt
