#!/bin/bash
# H200: the 06 and 07 gpu suites of this tree; plans of the two-kernel shapes; memset cost there (old07 vs this tree)
export PATH=/usr/local/cuda/bin:$PATH
export CUNIT_PREFIX=$PWD/.deps/root/usr
O=/tmp/h2; mkdir -p $O
nvidia-smi -L | tee $O/gpu.txt
make -j16 ARCH=sm_90 CUNIT_PREFIX=$CUNIT_PREFIX build/test_gpu build/07_softmax >$O/build.txt 2>&1 || { tail -30 $O/build.txt; exit 1; }
GPU_TEST_STAGES="06_coop_groups 07_softmax" build/test_gpu > $O/suite.txt 2>&1; echo "suite rc=$?"; grep -E "Test:|gpu:" $O/suite.txt | cut -c1-150
SH="24x200000:f32 24x262144:f32 32x151936:f32 32x200000:f32 48x100000:f32 64x100000:f32 64x200000:bf16 96x100000:bf16"
for x in $SH; do sh=${x%:*}; dt=${x#*:}
  REDUCE_VERBOSE=1 build/07_softmax --variant dispatch --op softmax --dtype $dt --rows ${sh%x*} --cols ${sh#*x} --check-only 2>&1 | grep -E "07_softmax/dispatch|FAIL" | sort -u; done | tee $O/plans.txt
run() { local b=$1 sh=$2 dt=$3; timeout 60 $b --variant dispatch --op softmax --dtype $dt --rows ${sh%x*} --cols ${sh#*x} --iters 100 --warmup 10 2>&1 | awk '/^dispatch/{printf "%s/%s/%s", $5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
SH2=$(grep "two kernels" $O/plans.txt | sed -E 's/.*dispatch: ([0-9]+) x ([0-9]+) \(([24])-byte.*/\1x\2:\3/' | sed 's/:4$/:f32/; s/:2$/:bf16/')
for rep in 1 2 3; do for x in $SH2; do sh=${x%:*}; dt=${x#*:}
  if [ $rep = 2 ]; then echo "$rep $sh $dt new=$(run build/07_softmax $sh $dt) old=$(run .devrun/old07 $sh $dt)"; else echo "$rep $sh $dt old=$(run .devrun/old07 $sh $dt) new=$(run build/07_softmax $sh $dt)"; fi
done; done | tee $O/ab.txt
cp .devrun/h2.sh $O/
cd /tmp && tar czf $OUT/h2.tgz h2
