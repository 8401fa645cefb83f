#!/bin/bash
# H200: stream flags — plans over the few-row grid, same-run A/B (default vs REDUCE_STREAM_FLAGS=0) where the default takes them, 07 gpu suite
cd "$(dirname "$0")/.."
T0=$(date +%s); step() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
export CUNIT_PREFIX=$PWD/.deps/root/usr
export PATH=/usr/local/cuda/bin:$PATH
D=/tmp/h200; mkdir -p $D
nvidia-smi --query-gpu=name --format=csv,noheader | tee $D/gpu.txt
make -j16 ARCH=sm_90 build/test_gpu build/07_softmax > $D/build.log 2>&1 || { tail -30 $D/build.log; exit 1; }
step built
for r in 2 4 8 12 16 24 32 48 64 96; do for c in 65536 100000 128256 131072 151936 200000 262144; do for dt in f32 bf16; do
  REDUCE_VERBOSE=1 build/07_softmax --variant dispatch --op softmax --dtype $dt --rows $r --cols $c --check-only 2>&1 | grep -E "07_softmax/dispatch" | sort -u; done; done; done > $D/plans.txt
grep -c "stream, one launch" $D/plans.txt
step plans
GPU_TEST_STAGES=07_softmax timeout 200 build/test_gpu > $D/suite.txt 2>&1; echo "suite rc=$? $(grep -E '^ +tests' $D/suite.txt | head -1)"
step suite
Q="--iters 30 --warmup 5"
run() { local sf=$1 sh=$2 dt=$3 op=$4; REDUCE_STREAM_FLAGS=$sf timeout 60 build/07_softmax --variant dispatch --op $op --dtype $dt --rows ${sh%x*} --cols ${sh#*x} $Q 2>&1 | awk '/^dispatch/{printf "%s/%s/%s", $5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
SH=$(grep "stream, one launch" $D/plans.txt | sed -E 's/.*dispatch: ([0-9]+) x ([0-9]+) \(([24])-byte.*/\1x\2:\3/' | sort -u)
for rep in 1 2; do for x in $SH; do sh=${x%:*}; dt=$([ ${x#*:} = 4 ] && echo f32 || echo bf16)
  if [ $rep = 1 ]; then echo "$sh $dt softmax def=$(run '' $sh $dt softmax) off=$(run 0 $sh $dt softmax)"; else echo "$sh $dt softmax off=$(run 0 $sh $dt softmax) def=$(run '' $sh $dt softmax)"; fi
done; done | tee $D/ab_grid.txt
step grid
tar czf $OUT/h200.tgz -C /tmp h200
