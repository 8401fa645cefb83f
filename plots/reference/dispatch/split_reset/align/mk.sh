#!/bin/bash
# compile a variant of softmax_tuned.cu (07_softmax/NAME.cu) and link it into .devrun/v/NAME
n=$1
nvcc -O3 -lineinfo -std=c++17 -gencode arch=compute_90,code=[sm_90,compute_90] -Icommon -Ibaselines -c 07_softmax/$n.cu -o .devrun/v/$n.o || exit 1
if [ "$n" = mut_align ]; then
  nvcc -gencode arch=compute_90,code=[sm_90,compute_90] -L/usr/local/cuda/lib64 -Xlinker -rpath=/usr/local/cuda/lib64 build/obj/gpu/test_gpu.o build/obj/gpu/registry.o $(ls build/obj/0[1-6]*/*.o | grep -v _main) build/obj/07_softmax/softmax.o .devrun/v/$n.o build/obj/baselines/baselines.o build/libcommon.a $PWD/.deps/root/usr/lib/x86_64-linux-gnu/libcunit.a -o .devrun/v/tg_$n -lcublas -lm -lpthread
else
  nvcc -gencode arch=compute_90,code=[sm_90,compute_90] -L/usr/local/cuda/lib64 -Xlinker -rpath=/usr/local/cuda/lib64 build/obj/07_softmax/softmax.o .devrun/v/$n.o build/obj/07_softmax_main.o build/obj/baselines/baselines.o build/libcommon.a -o .devrun/v/$n -lcublas -lm -lpthread
fi
rm -f .devrun/v/$n.o
