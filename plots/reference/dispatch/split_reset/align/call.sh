#!/bin/bash
# owed alignment mutant; plans of the listed shapes; 1-row and 16384-col knob/variant exploration
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/e1; mkdir -p $O
nvidia-smi -L | tee $O/gpu.txt
GPU_TEST_STAGES=07_softmax timeout 300 .devrun/v/tg_mut_align > $O/mut_align.txt 2>&1; echo "mutant rc=$?"
grep -nE "FAIL|fail|refus|Run Summary|asserts|tests " $O/mut_align.txt | head -30
for dt in f32 f16 bf16; do for sh in 1x262144 8x131072 32x128256 64x32000 256x151936 4096x50257 16384x4096 131072x128 2048x1000 4096x16384; do
  REDUCE_VERBOSE=1 .devrun/base07 --variant dispatch --op softmax --dtype $dt --rows ${sh%x*} --cols ${sh#*x} --check-only 2>&1 | grep -E "07_softmax/dispatch|FAIL|rror" | sort -u; done; done | tee $O/plans.txt
run() { local sh=$1 dt=$2 op=$3; shift 3; timeout 60 env "$@" --variant dispatch --op $op --dtype $dt --rows ${sh%x*} --cols ${sh#*x} --iters 200 --warmup 20 2>&1 | awk '/^dispatch/{printf "%s/%s/%s", $5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2 3; do for dt in f32 bf16 f16; do for op in softmax logsoftmax; do
  line="$rep 1x262144 $dt $op"
  for cfg in "base:.devrun/base07" "nosleep:.devrun/v/v_nosleep" "w4:.devrun/v/v_w4" "sf:REDUCE_STREAM_FLAGS=1 .devrun/base07" "sf32:REDUCE_STREAM_FLAGS=1 REDUCE_STREAM_FLAGS_K=32 .devrun/base07" "sf64:REDUCE_STREAM_FLAGS=1 REDUCE_STREAM_FLAGS_K=64 .devrun/base07"; do
    line="$line ${cfg%%:*}=$(run 1x262144 $dt $op ${cfg#*:})"; done; echo "$line"; done; done; done | tee $O/row1.txt
for rep in 1 2; do for dt in f32 bf16; do for op in softmax logsoftmax; do
  line="$rep 4096x16384 $dt $op"
  for cfg in "base:.devrun/base07" "t256:REDUCE_STREAM_THREADS=256 .devrun/base07" "t1024:REDUCE_STREAM_THREADS=1024 .devrun/base07" "nbuf2:REDUCE_STREAM_NBUF=2 .devrun/base07" "cta:REDUCE_STREAM=0 .devrun/base07" "loop:REDUCE_STREAM_LOOP=1 .devrun/base07"; do
    line="$line ${cfg%%:*}=$(run 4096x16384 $dt $op ${cfg#*:})"; done; echo "$line"; done; done; done | tee $O/c16384.txt
cp .devrun/e1.sh $O/
cd /tmp && tar czf $OUT/e1.tgz e1
