#!/bin/bash
# the stream path's outputs written in place and copied out by the TMA (REDUCE_STREAM_BULK_OUT=1)
export PATH=/usr/local/cuda/bin:$PATH
O=$OUT/k68; mkdir -p $O; nvidia-smi -L | tee $O/gpu.txt
N=build/07_softmax
run7() { timeout 60 env "$@" $N --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 100 --warmup 10 | awk '/^dispatch/{printf "%s/%s",$5,$8}'; }
{
for sh in 140x16385 133x16383 300x60001 133x151937 133x32769 32x128257 1024x65536 512x131072 256x151936; do R=${sh%x*}; C=${sh#*x}
  for DT in f32 f16 bf16; do for OP in softmax logsoftmax; do
    echo "$sh $DT $OP: $(REDUCE_STREAM_BULK_OUT=1 REDUCE_VERBOSE=1 timeout 60 $N --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --check-only 2>&1 | grep -o 'dispatch: .*\|FAIL.*\|ok.*\|rror.*' | tr '\n' ' ')"
  done; done
done
} > $O/checks.txt 2>&1; grep -c " ok" $O/checks.txt; grep -v " ok" $O/checks.txt | head
for t in memcheck racecheck synccheck; do echo "== $t"; REDUCE_STREAM_BULK_OUT=1 timeout 120 compute-sanitizer --tool $t --error-exitcode 9 $N --variant dispatch --rows 133 --cols 20003 --dtype bf16 --check-only 2>&1 | tail -4; echo "$t rc ${PIPESTATUS[0]}"; done > $O/san.txt; cat $O/san.txt
REDUCE_STREAM_BULK_OUT=1 GPU_TEST_STAGES=07_softmax timeout 200 build/test_gpu > $O/suite07.txt 2>&1; echo "suite rc $?"; tail -5 $O/suite07.txt
{
for rd in 1 2; do
  for sh in 4096x16384 2048x32768 4096x50257 256x151936 32x128256 1024x65536; do R=${sh%x*}; C=${sh#*x}
    for DT in f32 f16 bf16; do for OP in softmax logsoftmax; do
      if [ $((rd % 2)) = 1 ]; then echo "$sh $DT $OP r$rd def:$(run7) bulk:$(run7 REDUCE_STREAM_BULK_OUT=1)"
      else echo "$sh $DT $OP r$rd bulk:$(run7 REDUCE_STREAM_BULK_OUT=1) def:$(run7)"; fi
    done; done
  done
done
} 2>&1 | tee $O/ab.txt
