#!/bin/bash
# clusters of the flag path spread one CTA an SM (padding shared memory) against packed and flat
O=/tmp/e3; mkdir -p $O
for dt in f32 bf16; do REDUCE_FLAGS_CLUSTER_SMEM=120000 REDUCE_VERBOSE=1 .devrun/new07 --variant dispatch --op softmax --dtype $dt --rows 1 --cols 262144 --check-only 2>&1 | grep -E "resident|dispatch:|FAIL|result"; done | tee $O/plans.txt
run() { local sh=$1 dt=$2 op=$3; shift 3; timeout 60 env "$@" --variant dispatch --op $op --dtype $dt --rows ${sh%x*} --cols ${sh#*x} --iters 200 --warmup 20 2>&1 | awk '/^dispatch/{printf "%s/%s/%s", $5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2 3; do for sh in 1x262144 2x262144; do for dt in f32 bf16; do for op in softmax logsoftmax; do
  echo "$rep $sh $dt $op flat=$(run $sh $dt $op REDUCE_FLAGS_CLUSTER=0 .devrun/new07) spread=$(run $sh $dt $op REDUCE_FLAGS_CLUSTER_SMEM=120000 .devrun/new07) packed=$(run $sh $dt $op .devrun/new07) spread64k=$(run $sh $dt $op REDUCE_FLAGS_CLUSTER_SMEM=60000 .devrun/new07)"
done; done; done; done | tee $O/ab.txt
cp .devrun/e3.sh $O/; cd /tmp && tar czf $OUT/e3.tgz e3
