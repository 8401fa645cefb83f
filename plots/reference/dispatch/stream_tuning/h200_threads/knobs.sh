#!/bin/bash
# H200: the stream path's knobs at the 2^26 sweep's long rows (8192-65536 columns)
O=/tmp/h3; mkdir -p $O
nvidia-smi -L | tee $O/gpu.txt
for dt in f32 bf16; do for sh in 8192x8192 4096x16384 2048x32768 1024x65536; do
  REDUCE_VERBOSE=1 .devrun/b07 --variant dispatch --op softmax --dtype $dt --rows ${sh%x*} --cols ${sh#*x} --check-only 2>&1 | grep -E "dispatch:|FAIL" | sort -u; done; done | tee $O/plans.txt
run() { local sh=$1 dt=$2; shift 2; timeout 60 env "$@" --variant dispatch --op softmax --dtype $dt --rows ${sh%x*} --cols ${sh#*x} --iters 50 --warmup 5 2>&1 | awk '/^dispatch/{printf "%s/%s", $5,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2; do for sh in 8192x8192 4096x16384 2048x32768 1024x65536; do for dt in f32 bf16; do
  line="$rep $sh $dt"
  for cfg in "base:.devrun/b07" "cta:REDUCE_STREAM=0 .devrun/b07" "t256:REDUCE_STREAM_THREADS=256 .devrun/b07" "t1024:REDUCE_STREAM_THREADS=1024 .devrun/b07" "k2:REDUCE_STREAM_K=2 .devrun/b07" "k4:REDUCE_STREAM_K=4 .devrun/b07" "nbuf2:REDUCE_STREAM_NBUF=2 .devrun/b07"; do
    line="$line ${cfg%%:*}=$(run $sh $dt ${cfg#*:})"; done; echo "$line"; done; done; done | tee $O/knobs.txt
cp .devrun/h3.sh $O/; cd /tmp && tar czf $OUT/h3.tgz h3
