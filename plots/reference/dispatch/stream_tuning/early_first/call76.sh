#!/bin/bash
# a ring reduces its early part while its rest lands (REDUCE_STREAM_EARLY=1): checks, suite, sanitizers, A/B
export PATH=/usr/local/cuda/bin:$PATH
O=$OUT/k76; mkdir -p $O; nvidia-smi -L | tee $O/gpu.txt
N=build/07_softmax
cuobjdump -res-usage $N 2>&1 | grep -A1 softmax_stream | grep -o "SHARED:[0-9]*" | sort | uniq -c | tee $O/static_smem.txt
REDUCE_VERBOSE=1 timeout 60 $N --variant dispatch --rows 1024 --cols 65536 --dtype bf16 --check-only 2>&1 | grep "dispatch:" | tee $O/plan.txt | grep -q "a ring" || { echo "NO RING"; exit 1; }
{
for sh in 1024x65536 134x65537 265x100003 267x65537 132x115946 512x131072 2048x60000 300x60001 4096x50257 133x151937; do R=${sh%x*}; C=${sh#*x}
  for DT in f32 f16 bf16; do for OP in softmax logsoftmax; do
    echo "$sh $DT $OP: $(REDUCE_STREAM_EARLY=1 REDUCE_VERBOSE=1 timeout 60 $N --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --check-only 2>&1 | grep -o 'dispatch: .*\|FAIL.*\|ok (max.*\|rror.*' | tr '\n' ' ')"
  done; done
done
for sh in 269x32769 1024x65536 134x65537; do R=${sh%x*}; C=${sh#*x}; for NB in 1 2; do for DT in f32 bf16; do
    echo "$sh $DT RING=1 NBUF=$NB: $(REDUCE_STREAM_EARLY=1 REDUCE_STREAM_RING=1 REDUCE_STREAM_NBUF=$NB REDUCE_VERBOSE=1 timeout 60 $N --variant dispatch --rows $R --cols $C --op softmax --dtype $DT --check-only 2>&1 | grep -o 'dispatch: .*\|FAIL.*\|ok (max.*\|rror.*' | tr '\n' ' ')"
done; done; done
} > $O/checks.txt 2>&1; echo "checks ok: $(grep -c ' ok' $O/checks.txt) of $(wc -l < $O/checks.txt)"; grep -v " ok" $O/checks.txt | head
REDUCE_STREAM_EARLY=1 GPU_TEST_STAGES=07_softmax timeout 300 build/test_gpu > $O/suite07_early.txt 2>&1; echo "suite rc $?"; tail -2 $O/suite07_early.txt
for t in racecheck synccheck memcheck; do for a in "134 65537 bf16" "267 65537 f32"; do set -- $a
  echo "== $t $a"; REDUCE_STREAM_EARLY=1 timeout 200 compute-sanitizer --tool $t --error-exitcode 9 $N --variant dispatch --rows $1 --cols $2 --dtype $3 --op softmax --check-only 2>&1 | tail -2; echo "rc ${PIPESTATUS[0]}"
done; done > $O/san.txt 2>&1; grep -c "rc 0" $O/san.txt; grep -B3 "rc [^0]" $O/san.txt | head
run7() { timeout 60 env "$@" $N --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 100 --warmup 10 | awk '/^dispatch/{printf "%s/%s",$5,$8}'; }
{
for rd in 1 2 3; do
  for cfg in "1024x65536 f32 softmax" "1024x65536 f32 logsoftmax" "1024x65536 f16 softmax" "1024x65536 f16 logsoftmax" "1024x65536 bf16 softmax" "1024x65536 bf16 logsoftmax" "512x131072 bf16 softmax" "512x131072 bf16 logsoftmax" "2048x60000 f16 softmax" "2048x58000 f32 softmax" "2048x58000 f32 logsoftmax" "4096x50257 bf16 softmax"; do
    set -- $cfg; sh=$1; DT=$2; OP=$3; R=${sh%x*}; C=${sh#*x}
    if [ $((rd % 2)) = 1 ]; then echo "$cfg r$rd off:$(run7 REDUCE_STREAM_EARLY=0) early:$(run7 REDUCE_STREAM_EARLY=1)"
    else echo "$cfg r$rd early:$(run7 REDUCE_STREAM_EARLY=1) off:$(run7 REDUCE_STREAM_EARLY=0)"; fi
  done
done
} > $O/ab.txt 2>&1; cat $O/ab.txt
