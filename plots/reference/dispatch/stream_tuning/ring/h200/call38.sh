#!/bin/bash
# the float ring rule from DRAM bytes per SM clock: plans and times against REDUCE_STREAM_RING=0, the 07 gpu suite
S=build/07_softmax
nvidia-smi -L; nvidia-smi --query-gpu=clocks.max.sm,clocks.max.mem --format=csv,noheader
run7() { timeout 60 env "$@" $S --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 100 --warmup 10 | awk '/^dispatch/{printf "%s/%s",$5,$8}'; }
plan() { env "$@" REDUCE_VERBOSE=1 timeout 60 $S --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --check-only 2>&1 | grep -E "dispatch:" | sed 's/.*): //'; }
for sh in "2048 32768 softmax f32" "2048 32768 logsoftmax f32" "4096 50257 logsoftmax f32" "1024 65536 softmax bf16"; do
  set -- $sh; R=$1 C=$2 OP=$3 DT=$4
  echo "$R x $C $OP $DT: $(plan)"
  [ "$MODE" = time ] || continue
  for rd in 1 2; do
    if [ $rd = 2 ]; then b=$(run7 REDUCE_STREAM_RING=0); a=$(run7); else a=$(run7); b=$(run7 REDUCE_STREAM_RING=0); fi
    echo "  r$rd: $a | $b"
  done
done
[ "$SUITE" = 1 ] && { ( time GPU_TEST_STAGES=07_softmax timeout 250 build/test_gpu ) > $OUT/suite07.txt 2>&1; echo "suite rc=$?"; grep -E "^gpu:|asserts" $OUT/suite07.txt; }
exit 0
