#!/bin/bash
# flag path in clusters (REDUCE_FLAGS_CLUSTER=1, default) against without (=0): suite, plans, A/B
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/e2; mkdir -p $O
nvidia-smi -L | tee $O/gpu.txt
GPU_TEST_STAGES=07_softmax timeout 300 .devrun/tg_new > $O/suite.txt 2>&1; echo "suite rc=$?"; grep -E "Test:|gpu:" $O/suite.txt | grep -v passed | head; tail -3 $O/suite.txt
SH="1x262144 2x200000 4x262144 8x131072 8x100003 16x131072"
for dt in f32 bf16; do for sh in $SH; do for f in 0 1; do
  REDUCE_FLAGS_CLUSTER=$f REDUCE_VERBOSE=1 .devrun/new07 --variant dispatch --op logsoftmax --dtype $dt --rows ${sh%x*} --cols ${sh#*x} --check-only 2>&1 | grep -E "07_softmax/dispatch|FAIL|rror|result" | sort -u; done; done; done | tee $O/plans.txt
run() { local sh=$1 dt=$2 op=$3; shift 3; timeout 60 env "$@" --variant dispatch --op $op --dtype $dt --rows ${sh%x*} --cols ${sh#*x} --iters 200 --warmup 20 2>&1 | awk '/^dispatch/{printf "%s/%s/%s", $5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2 3; do for sh in $SH; do for dt in f32 bf16 f16; do for op in softmax logsoftmax; do
  if [ $rep = 2 ]; then echo "$rep $sh $dt $op cl=$(run $sh $dt $op REDUCE_FLAGS_CLUSTER=1 .devrun/new07) flat=$(run $sh $dt $op REDUCE_FLAGS_CLUSTER=0 .devrun/new07)"
  else echo "$rep $sh $dt $op flat=$(run $sh $dt $op REDUCE_FLAGS_CLUSTER=0 .devrun/new07) cl=$(run $sh $dt $op REDUCE_FLAGS_CLUSTER=1 .devrun/new07)"; fi
done; done; done; done | tee $O/ab.txt
cp .devrun/e2.sh $O/
cd /tmp && tar czf $OUT/e2.tgz e2
