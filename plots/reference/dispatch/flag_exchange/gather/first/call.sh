#!/bin/bash
# flag path: every CTA gathers its row's states itself (no merging warps) vs the committed mergers; A/B in one call
cd "$(dirname "$0")/.."
T0=$(date +%s); step() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
export CUNIT_PREFIX=$PWD/.deps/root/usr
export PATH=/usr/local/cuda/bin:$PATH
D=/tmp/y5; mkdir -p $D
nvidia-smi --query-gpu=name --format=csv,noheader
make -j16 ARCH=sm_90 build/07_softmax build/test_gpu > $D/build.log 2>&1 || { tail -30 $D/build.log; exit 1; }
NV="/usr/local/cuda/bin/nvcc -O3 -lineinfo -std=c++17 -gencode arch=compute_90,code=[sm_90,compute_90] -Icommon -Ibaselines -I07_softmax"
$NV -DGATHER_AT_ONCE=1 -c -o $D/a0.o .devrun/allpoll_softmax_tuned.cu &
$NV -DGATHER_AT_ONCE=1 "-DXSLEEP=__nanosleep(64)" -c -o $D/a64.o .devrun/allpoll_softmax_tuned.cu &
wait
for v in a0 a64; do $NV -o $D/07_$v build/obj/07_softmax/softmax.o $D/$v.o build/obj/07_softmax_main.o build/obj/baselines/baselines.o build/libcommon.a -lcublas -lm -lpthread || exit 1; done
OBJS=$(ls build/obj/0[1-6]*/*.o | grep -v _main)
nvcc -gencode arch=compute_90,code=[sm_90,compute_90] -L/usr/local/cuda/lib64 -Xlinker -rpath=/usr/local/cuda/lib64 build/obj/gpu/test_gpu.o build/obj/gpu/registry.o $OBJS build/obj/07_softmax/softmax.o $D/a64.o build/obj/baselines/baselines.o build/libcommon.a $CUNIT_PREFIX/lib/x86_64-linux-gnu/libcunit.a -o $D/tg_a64 -lcublas -lm -lpthread || exit 1
step built
REDUCE_FLAGS_ALL=1 GPU_TEST_STAGES=07_softmax timeout 200 $D/tg_a64 > $D/suite_a64.txt 2>&1; echo "a64 suite (all flags CTAs gather): rc=$? $(grep -E '^ +tests' $D/suite_a64.txt | head -1)"
grep -m3 "test_gpu.c" $D/suite_a64.txt | cut -c1-200
step suite
Q="--iters 30 --warmup 5"
run() { local bin=$1 sh=$2 dt=$3; REDUCE_FLAGS_ALL=1 timeout 60 $bin --variant dispatch --op softmax --dtype $dt --rows ${sh%x*} --cols ${sh#*x} $Q 2>&1 | awk '/^dispatch/{printf "%s/%s", $5,$8} /rror|FAIL/{printf "ERR"}'; }
B=build/07_softmax; A0=$D/07_a0; A64=$D/07_a64
for rep in 1 2 3; do for x in "1x262144 f32" "1x262144 bf16" "8x131072 f32" "8x131072 bf16" "4x131072 f32" "2x200000 f32" "32x128256 bf16"; do set -- $x
  case $rep in
    1) echo "$1 $2 base=$(run $B $1 $2) a0=$(run $A0 $1 $2) a64=$(run $A64 $1 $2)";;
    2) echo "$1 $2 a0=$(run $A0 $1 $2) a64=$(run $A64 $1 $2) base=$(run $B $1 $2)";;
    3) echo "$1 $2 a64=$(run $A64 $1 $2) base=$(run $B $1 $2) a0=$(run $A0 $1 $2)";;
  esac
done; done | tee $D/ab.txt
step ab
tar czf $OUT/y5.tgz --exclude='tg_*' --exclude='07_*' --exclude='*.o' -C /tmp y5
