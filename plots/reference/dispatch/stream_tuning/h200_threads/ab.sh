#!/bin/bash
# stream CTAs of about 16 slots a thread (n07) against 8 (b07, the committed tree), alternating; 07 gpu suite of n07
O=/tmp/ab; mkdir -p $O
nvidia-smi -L | tee $O/gpu.txt
GPU_TEST_STAGES=07_softmax timeout 120 .devrun/tgn > $O/suite.txt 2>&1; echo "suite rc=$?"; tail -1 $O/suite.txt
SH="8192x8192 4096x16384 2048x32768 1024x65536 32x128256 256x151936 4096x50257"
for dt in f32 bf16; do for sh in $SH; do for b in b07 n07; do echo -n "$b: "
  REDUCE_VERBOSE=1 .devrun/$b --variant dispatch --op softmax --dtype $dt --rows ${sh%x*} --cols ${sh#*x} --check-only 2>&1 | grep -E "dispatch:|FAIL" | sort -u; done; done; done > $O/plans.txt
run() { local sh=$1 dt=$2 op=$3 b=$4; timeout 60 .devrun/$b --variant dispatch --op $op --dtype $dt --rows ${sh%x*} --cols ${sh#*x} --iters 50 --warmup 5 2>&1 | awk '/^dispatch/{printf "%s/%s", $5,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2; do for sh in $SH; do for dt in f32 bf16; do for op in softmax logsoftmax; do
  if [ $rep = 1 ]; then echo "$rep $sh $dt $op old=$(run $sh $dt $op b07) new=$(run $sh $dt $op n07)"; else echo "$rep $sh $dt $op new=$(run $sh $dt $op n07) old=$(run $sh $dt $op b07)"; fi
done; done; done; done | tee $O/ab.txt
cp .devrun/ab.sh $O/; cd /tmp && tar czf $OUT/ab.tgz ab
