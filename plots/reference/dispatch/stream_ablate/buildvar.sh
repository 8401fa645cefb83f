#!/bin/bash
# build .devrun/v/s7_NAME from .devrun/v/st_NAME.cu
n=$1
/usr/local/cuda/bin/nvcc -O3 -lineinfo -std=c++17 -gencode arch=compute_90,code=[sm_90,compute_90] -I07_softmax -Icommon -Ibaselines -c .devrun/v/st_$n.cu -o .devrun/v/st_$n.o && \
/usr/local/cuda/bin/nvcc -gencode arch=compute_90,code=[sm_90,compute_90] -L/usr/local/cuda/lib64 -Xlinker -rpath=/usr/local/cuda/lib64 build/obj/07_softmax/softmax.o .devrun/v/st_$n.o build/obj/07_softmax_main.o build/obj/baselines/baselines.o build/libcommon.a -o .devrun/v/s7_$n -lcublas -lm -lpthread && rm .devrun/v/st_$n.o && echo built $n
