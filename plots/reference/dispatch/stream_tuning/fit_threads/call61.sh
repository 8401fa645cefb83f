#!/bin/bash
# the fit for clusters only: plans; new default against REDUCE_STREAM_THREADS=416 (the old count) in the same build;
# f32 256 x 151936 and 16-bit 2048 x 32768 against e6b4f60; the 07 gpu suite
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/fit61; mkdir -p $O; cp .devrun/call61.sh .devrun/commit.txt $O/; nvidia-smi -L | tee $O/gpu.txt
N=build/07_softmax; D=.devrun/old/07_softmax_e6b4f60
run7() { S=$1; shift; timeout 60 env "$@" $S --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 100 --warmup 10 | awk '/^dispatch/{printf "%s/%s",$5,$8}'; }
for sh in "256 151936 f32" "256 151936 f16" "256 151936 bf16" "2048 32768 bf16" "4096 16384 f16"; do set -- $sh
  for S in $D $N; do echo "$(basename $S): $(REDUCE_VERBOSE=1 timeout 30 $S --variant dispatch --rows $1 --cols $2 --op softmax --dtype $3 --check-only 2>&1 | grep '07_softmax/dispatch')"; done
done > $O/plans.txt 2>&1; cat $O/plans.txt
{
echo "256 x 151936, this build: default (320 threads) | REDUCE_STREAM_THREADS=416 (median us/% of copy), 3 rounds alternating"
R=256 C=151936
for DT in f16 bf16; do for OP in softmax logsoftmax; do
  line="$DT $OP"
  for rd in 1 2 3; do
    if [ $rd = 2 ]; then b=$(run7 $N REDUCE_STREAM_THREADS=416); a=$(run7 $N); else a=$(run7 $N); b=$(run7 $N REDUCE_STREAM_THREADS=416); fi
    line="$line | r$rd $a  $b"
  done; echo "$line"
done; done
echo "e6b4f60 | this build (same plans)"
for sh in "256 151936 f32 softmax" "256 151936 f32 logsoftmax" "2048 32768 bf16 softmax" "2048 32768 f16 logsoftmax"; do set -- $sh; R=$1 C=$2 DT=$3 OP=$4
  line="$R x $C $DT $OP"
  for rd in 1 2 3; do
    if [ $rd = 2 ]; then b=$(run7 $N); a=$(run7 $D); else a=$(run7 $D); b=$(run7 $N); fi
    line="$line | r$rd $a  $b"
  done; echo "$line"
done
} 2>&1 | tee $O/ab.txt
(cd /tmp && tar czf $OUT/fit61.tgz fit61)
( time GPU_TEST_STAGES=07_softmax timeout 150 build/test_gpu ) > $O/suite07.txt 2>&1; echo "suite rc=$?"; grep -E "asserts|tests|real" $O/suite07.txt | head
cd /tmp && tar czf $OUT/fit61.tgz fit61
