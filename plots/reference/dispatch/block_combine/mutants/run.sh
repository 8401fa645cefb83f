#!/bin/bash
# block_combine mutants: each drops one warp's state in one width of the second butterfly; the 07 gpu suite must fail each
cd "$(dirname "$0")/../../../../.."  # the repository root; the mutants are the .diff files applied to copies in .devrun/mut/
export CUNIT_PREFIX=$PWD/.deps/root/usr
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s); step() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
mkdir -p /tmp/x9
make -j16 ARCH=sm_90 build/test_gpu > /tmp/x9/build.log 2>&1 || { tail -30 /tmp/x9/build.log; exit 1; }
step built
NV="/usr/local/cuda/bin/nvcc -O3 -lineinfo -std=c++17 -gencode arch=compute_90,code=[sm_90,compute_90] -Icommon -Ibaselines -I07_softmax"
for m in m2 m4 m8 m16 m32; do cp .devrun/mut/$m.cu /tmp/x9/$m.cu; ( $NV -c -o /tmp/x9/$m.o /tmp/x9/$m.cu ) & done; wait
step compiled
OBJS=$(ls build/obj/0[1-6]*/*.o | grep -v _main); echo "$OBJS" | tr '\n' ' '; echo
for m in m2 m4 m8 m16 m32; do
  nvcc -gencode arch=compute_90,code=[sm_90,compute_90] -L/usr/local/cuda/lib64 -Xlinker -rpath=/usr/local/cuda/lib64 build/obj/gpu/test_gpu.o build/obj/gpu/registry.o $OBJS build/obj/07_softmax/softmax.o /tmp/x9/$m.o build/obj/baselines/baselines.o build/libcommon.a $CUNIT_PREFIX/lib/x86_64-linux-gnu/libcunit.a -o /tmp/x9/tg_$m -lcublas -lm -lpthread || exit 1
  GPU_TEST_STAGES=07_softmax timeout 120 /tmp/x9/tg_$m > /tmp/x9/suite_$m.txt 2>&1; echo "$m: suite rc=$? $(grep -E '^ +tests' /tmp/x9/suite_$m.txt | head -1)"
  grep -m3 -iE "FAIL|mismatch|err" /tmp/x9/suite_$m.txt | cut -c1-200
done
GPU_TEST_STAGES=07_softmax timeout 120 build/test_gpu > /tmp/x9/suite_committed.txt 2>&1; echo "committed: suite rc=$? $(grep -E '^ +tests' /tmp/x9/suite_committed.txt | head -1)"
step done
tar czf $OUT/x9.tgz --exclude='tg_*' --exclude='*.o' --exclude='*.cu' -C /tmp/x9 .
