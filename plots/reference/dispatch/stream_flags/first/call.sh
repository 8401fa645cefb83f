#!/bin/bash
# the split plan on the stream kernel in one launch (flags): plans, 07 gpu suite, a mutant, same-run matrix
cd "$(dirname "$0")/.."
T0=$(date +%s); step() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
export CUNIT_PREFIX=$PWD/.deps/root/usr
export PATH=/usr/local/cuda/bin:$PATH
D=/tmp/y1; mkdir -p $D
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
make -j16 ARCH=sm_90 build/test_gpu build/07_softmax > $D/build.log 2>&1 || { tail -30 $D/build.log; exit 1; }
step built
for sf in "" 1; do for sh in 1x262144 8x131072 32x128256 32x128257 64x32000 2x100003 3x262147; do for dt in f32 bf16; do
  REDUCE_STREAM_FLAGS=$sf REDUCE_VERBOSE=1 build/07_softmax --variant dispatch --op softmax --dtype $dt --rows ${sh%x*} --cols ${sh#*x} --check-only 2>&1 | grep -E "dispatch" | sort -u | sed "s/^/SF=$sf /"; done; done; done | tee $D/plans.txt
REDUCE_STREAM_FLAGS=1 REDUCE_STREAM_FLAGS_K=2 REDUCE_VERBOSE=1 build/07_softmax --variant dispatch --op softmax --dtype f32 --rows 2 --cols 100003 --check-only 2>&1 | grep dispatch | sort -u | tee -a $D/plans.txt
step plans
GPU_TEST_STAGES=07_softmax timeout 200 build/test_gpu > $D/suite.txt 2>&1; echo "suite rc=$? $(grep -E '^ +tests' $D/suite.txt | head -1)"
step suite
NV="/usr/local/cuda/bin/nvcc -O3 -lineinfo -std=c++17 -gencode arch=compute_90,code=[sm_90,compute_90] -Icommon -Ibaselines -I07_softmax"
$NV -c -o $D/sf1.o .devrun/mut/sf1.cu || exit 1
OBJS=$(ls build/obj/0[1-6]*/*.o | grep -v _main)
nvcc -gencode arch=compute_90,code=[sm_90,compute_90] -L/usr/local/cuda/lib64 -Xlinker -rpath=/usr/local/cuda/lib64 build/obj/gpu/test_gpu.o build/obj/gpu/registry.o $OBJS build/obj/07_softmax/softmax.o $D/sf1.o build/obj/baselines/baselines.o build/libcommon.a $CUNIT_PREFIX/lib/x86_64-linux-gnu/libcunit.a -o $D/tg_sf1 -lcublas -lm -lpthread || exit 1
GPU_TEST_STAGES=07_softmax timeout 200 $D/tg_sf1 > $D/suite_sf1.txt 2>&1; echo "sf1: suite rc=$? $(grep -E '^ +tests' $D/suite_sf1.txt | head -1)"
grep -m3 -E "FAIL|bad value" $D/suite_sf1.txt | cut -c1-220
step mutant
Q="--iters 30 --warmup 5"
run() { local sf=$1 sh=$2 dt=$3 op=$4; REDUCE_STREAM_FLAGS=$sf timeout 60 build/07_softmax --variant dispatch --op $op --dtype $dt --rows ${sh%x*} --cols ${sh#*x} $Q 2>&1 | awk '/^dispatch/{printf "%s/%s", $5,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2 3; do for x in "32x128256 f32 softmax" "32x128256 f32 logsoftmax" "32x128256 bf16 softmax" "32x128256 f16 logsoftmax" "1x262144 f32 softmax" "1x262144 bf16 softmax" "1x262144 f16 softmax" "8x131072 f32 softmax" "8x131072 bf16 softmax" "16x262144 f32 softmax" "64x32000 bf16 softmax"; do set -- $x
  case $((rep % 3)) in
    1) echo "$1 $2 $3 off=$(run 0 $1 $2 $3) def=$(run '' $1 $2 $3) on=$(run 1 $1 $2 $3)";;
    2) echo "$1 $2 $3 def=$(run '' $1 $2 $3) on=$(run 1 $1 $2 $3) off=$(run 0 $1 $2 $3)";;
    0) echo "$1 $2 $3 on=$(run 1 $1 $2 $3) off=$(run 0 $1 $2 $3) def=$(run '' $1 $2 $3)";;
  esac
done; done | tee $D/ab.txt
step ab
for K in 16 32 64; do for dt in f32 bf16; do echo "1x262144 $dt K=$K $(REDUCE_STREAM_FLAGS_K=$K run 1 1x262144 $dt softmax) off=$(run 0 1x262144 $dt softmax)"; done; done | tee $D/k1.txt
for K in 8 32; do for dt in f32 bf16; do echo "32x128256 $dt K=$K $(REDUCE_STREAM_FLAGS_K=$K run 1 32x128256 $dt softmax) def=$(run '' 32x128256 $dt softmax)"; done; done | tee -a $D/k1.txt
step k
tar czf $OUT/y1.tgz --exclude='tg_*' --exclude='*.o' -C /tmp y1
