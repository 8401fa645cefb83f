#!/bin/bash
# the ring rule: 07 gpu suite, a mutant, and the rule against REDUCE_STREAM_RING=0 at the shapes it changes
S=build/07_softmax
mkdir -p $OUT/ring
( time GPU_TEST_STAGES=07_softmax timeout 250 build/test_gpu ) > $OUT/ring/suite07.txt 2>&1; echo "suite rc=$?"; grep -E "^gpu:|asserts|Run Summary|real" $OUT/ring/suite07.txt | head
( GPU_TEST_STAGES=07_softmax timeout 200 .devrun/v/test_mut_ring ) > $OUT/ring/suite07_mutant.txt 2>&1; echo "mutant rc=$?"; grep -E "asserts" $OUT/ring/suite07_mutant.txt; grep -m3 "FAIL\|failed" $OUT/ring/suite07_mutant.txt | cut -c1-250
run7() { timeout 60 env "$@" $S --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 100 --warmup 10 | awk '/^dispatch/{printf "%s/%s",$5,$8}'; }
plan() { env "$@" REDUCE_VERBOSE=1 timeout 60 $S --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --check-only 2>&1 | grep -E "dispatch:" | sed 's/.*): //'; }
echo "shape: rule | RING=0 (median/%copy), rounds alternate" | tee $OUT/ring/ab.txt
for sh in "256 151936 softmax bf16" "256 151936 logsoftmax f16" "512 131072 softmax bf16" "1024 65536 softmax f32" "1024 65536 logsoftmax f32" "1024 65536 logsoftmax bf16" "1024 65536 softmax f16" "2048 32768 logsoftmax f32" "4096 50257 softmax f32" "256 151936 softmax f32"; do
  set -- $sh; R=$1 C=$2 OP=$3 DT=$4
  echo "$R x $C $OP $DT: rule: $(plan) | off: $(plan REDUCE_STREAM_RING=0)" | tee -a $OUT/ring/ab.txt
  for rd in 1 2; do
    if [ $rd = 2 ]; then b=$(run7 REDUCE_STREAM_RING=0); a=$(run7); else a=$(run7); b=$(run7 REDUCE_STREAM_RING=0); fi
    echo "  r$rd: $a | $b" | tee -a $OUT/ring/ab.txt
  done
done
nvidia-smi -L > $OUT/ring/gpu.txt
