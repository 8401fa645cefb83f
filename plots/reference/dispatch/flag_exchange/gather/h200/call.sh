#!/bin/bash
# H200: flag rows of <= 32 CTAs gather: plans, 07 suite, same-run A/B default vs REDUCE_FLAGS_GATHER=0
cd "$(dirname "$0")/.."
T0=$(date +%s); step() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
export CUNIT_PREFIX=$PWD/.deps/root/usr
export PATH=/usr/local/cuda/bin:$PATH
D=/tmp/gather_h200; mkdir -p $D
nvidia-smi --query-gpu=name --format=csv,noheader | tee $D/gpu.txt
make -j16 ARCH=sm_90 build/test_gpu build/07_softmax > $D/build.log 2>&1 || { tail -30 $D/build.log; exit 1; }
NV="/usr/local/cuda/bin/nvcc -O3 -lineinfo -std=c++17 -gencode arch=compute_90,code=[sm_90,compute_90] -Icommon -Ibaselines -I07_softmax"
OBJS=$(ls build/obj/0[1-6]*/*.o | grep -v _main)
step built
GPU_TEST_STAGES=07_softmax timeout 200 build/test_gpu > $D/suite.txt 2>&1; echo "suite rc=$? $(grep -E '^ +tests' $D/suite.txt | head -1)"
step suite
for r in 1 2 4 8 16 24 32 48 64; do for c in 32768 65536 100000 128256 151936 262144; do for dt in f32 bf16; do
  REDUCE_VERBOSE=1 build/07_softmax --variant dispatch --op softmax --dtype $dt --rows $r --cols $c --check-only 2>&1 | grep -E "07_softmax/dispatch" | sort -u; done; done; done > $D/plans.txt
grep "one launch" $D/plans.txt | awk '{for(i=1;i<=NF;i++) if($i=="CTA(s)") k=$(i-1); if (k<=32) print}' > $D/gather_plans.txt; wc -l < $D/gather_plans.txt
step plans
Q="--iters 30 --warmup 5"
run() { local g=$1 sh=$2 dt=$3 op=$4; REDUCE_FLAGS_GATHER=$g timeout 60 build/07_softmax --variant dispatch --op $op --dtype $dt --rows ${sh%x*} --cols ${sh#*x} $Q 2>&1 | awk '/^dispatch/{printf "%s/%s/%s", $5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
SH=$(sed -E 's/.*dispatch: ([0-9]+) x ([0-9]+) \(([24])-byte.*/\1x\2:\3/' $D/gather_plans.txt | sort -u)
for rep in 1 2; do for x in $SH; do sh=${x%:*}; dt=$([ ${x#*:} = 4 ] && echo f32 || echo bf16)
  if [ $rep = 1 ]; then echo "$sh $dt softmax def=$(run '' $sh $dt softmax) off=$(run 0 $sh $dt softmax)"; else echo "$sh $dt softmax off=$(run 0 $sh $dt softmax) def=$(run '' $sh $dt softmax)"; fi
done; done | tee $D/ab_grid.txt
step grid
for rep in 1 2; do for dt in f32 f16 bf16; do for op in softmax logsoftmax; do echo "32x128256 $dt $op def=$(run '' 32x128256 $dt $op) off=$(run 0 32x128256 $dt $op)"; done; done; done | tee $D/ab_32.txt
step ab32
tar czf $OUT/gather_h200.tgz --exclude='tg_*' --exclude='*.o' -C /tmp gather_h200
