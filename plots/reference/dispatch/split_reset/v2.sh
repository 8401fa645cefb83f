#!/bin/bash
# suite 06+07 with the harness that reads outputs after a scratch failure; the memset mutant;
# plans and same-run timings of the two-kernel shapes without (6929e39, .devrun/old07) and with the memset
export PATH=/usr/local/cuda/bin:$PATH
export CUNIT_PREFIX=$PWD/.deps/root/usr
O=/tmp/v2; mkdir -p $O
nvidia-smi -L | tee $O/gpu.txt
make -j16 ARCH=sm_90 CUNIT_PREFIX=$CUNIT_PREFIX build/test_gpu build/07_softmax >$O/build.txt 2>&1 || { tail -30 $O/build.txt; exit 1; }
GPU_TEST_STAGES="06_coop_groups 07_softmax" build/test_gpu > $O/suite.txt 2>&1; echo "suite rc=$?"; grep -E "Test:|gpu:" $O/suite.txt
sed 's/cudaMemsetAsync(d_ws, 0, rows \* (size_t)p.chunks \* sizeof(max_sum), s);/cudaSuccess;/' 07_softmax/softmax_tuned.cu > 07_softmax/mut_tuned.cu
diff 07_softmax/softmax_tuned.cu 07_softmax/mut_tuned.cu > $O/mutant.diff
nvcc -O3 -lineinfo -std=c++17 -gencode arch=compute_90,code=[sm_90,compute_90] -Icommon -Ibaselines -c 07_softmax/mut_tuned.cu -o /tmp/MUT.o >$O/mutbuild.txt 2>&1 || { tail $O/mutbuild.txt; exit 1; }
rm 07_softmax/mut_tuned.cu
nvcc -gencode arch=compute_90,code=[sm_90,compute_90] -L/usr/local/cuda/lib64 -Xlinker -rpath=/usr/local/cuda/lib64 build/obj/gpu/test_gpu.o build/obj/gpu/registry.o $(ls build/obj/0[1-6]*/*.o | grep -v _main) build/obj/07_softmax/softmax.o /tmp/MUT.o build/obj/baselines/baselines.o build/libcommon.a $CUNIT_PREFIX/lib/x86_64-linux-gnu/libcunit.a -o /tmp/tg -lcublas -lm -lpthread || exit 1
GPU_TEST_STAGES=07_softmax timeout 240 /tmp/tg > $O/mutant.txt 2>&1; echo "mutant rc=$?"
grep -A12 "scratch any later" $O/mutant.txt | cut -c1-200
SH="24x200000:f32 24x262144:f32 32x151936:f32 32x200000:f32 48x100000:f32 64x100000:f32 64x200000:bf16 96x100000:bf16"
for x in $SH; do sh=${x%:*}; dt=${x#*:}
  REDUCE_VERBOSE=1 build/07_softmax --variant dispatch --op softmax --dtype $dt --rows ${sh%x*} --cols ${sh#*x} --check-only 2>&1 | grep -E "07_softmax/dispatch|FAIL" | sort -u; done | tee $O/plans.txt
run() { local b=$1 sh=$2 dt=$3; timeout 60 $b --variant dispatch --op softmax --dtype $dt --rows ${sh%x*} --cols ${sh#*x} --iters 100 --warmup 10 2>&1 | awk '/^dispatch/{printf "%s/%s/%s", $5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2 3; do for x in $SH; do sh=${x%:*}; dt=${x#*:}
  if [ $rep = 2 ]; then echo "$rep $sh $dt new=$(run build/07_softmax $sh $dt) old=$(run .devrun/old07 $sh $dt)"; else echo "$rep $sh $dt old=$(run .devrun/old07 $sh $dt) new=$(run build/07_softmax $sh $dt)"; fi
done; done | tee $O/ab.txt
cp .devrun/v2.sh $O/
cd /tmp && tar czf $OUT/v2.tgz v2
