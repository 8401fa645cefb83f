#!/bin/bash
# block_combine's one-warp branch: which shapes plan CTAs of 32 threads, and does the 07 gpu suite fail a mutant of that branch
cd "$(dirname "$0")/../../../../.."  # the repository root; the mutant is m1.diff applied to a copy in .devrun/mut/
export CUNIT_PREFIX=$PWD/.deps/root/usr
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p /tmp/x10
make -j16 ARCH=sm_90 build/test_gpu build/07_softmax > /tmp/x10/build.log 2>&1 || { tail -30 /tmp/x10/build.log; exit 1; }
for sh in 2x2048 4x2048 1x4096 2x1025; do REDUCE_VERBOSE=1 build/07_softmax --variant dispatch --op softmax --dtype f32 --rows ${sh%x*} --cols ${sh#*x} --check-only 2>&1 | grep -E "dispatch" | sort -u; done | tee /tmp/x10/plans.txt
NV="/usr/local/cuda/bin/nvcc -O3 -lineinfo -std=c++17 -gencode arch=compute_90,code=[sm_90,compute_90] -Icommon -Ibaselines -I07_softmax"
cp .devrun/mut/m1.cu /tmp/x10/m1.cu && $NV -c -o /tmp/x10/m1.o /tmp/x10/m1.cu || exit 1
OBJS=$(ls build/obj/0[1-6]*/*.o | grep -v _main)
nvcc -gencode arch=compute_90,code=[sm_90,compute_90] -L/usr/local/cuda/lib64 -Xlinker -rpath=/usr/local/cuda/lib64 build/obj/gpu/test_gpu.o build/obj/gpu/registry.o $OBJS build/obj/07_softmax/softmax.o /tmp/x10/m1.o build/obj/baselines/baselines.o build/libcommon.a $CUNIT_PREFIX/lib/x86_64-linux-gnu/libcunit.a -o /tmp/x10/tg_m1 -lcublas -lm -lpthread || exit 1
GPU_TEST_STAGES=07_softmax timeout 120 /tmp/x10/tg_m1 > /tmp/x10/suite_m1.txt 2>&1; echo "m1: suite rc=$? $(grep -E '^ +tests' /tmp/x10/suite_m1.txt | head -1)"
grep -m3 -E "FAIL|bad value" /tmp/x10/suite_m1.txt | cut -c1-220
tar czf $OUT/x10.tgz --exclude='tg_*' --exclude='*.o' --exclude='*.cu' -C /tmp/x10 .
