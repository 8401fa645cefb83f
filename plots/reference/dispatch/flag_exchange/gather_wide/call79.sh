#!/bin/bash
# the 07 gpu suite with rows of up to 64 CTAs gathering in registers, and a mutant that drops each lane's second state
export PATH=/usr/local/cuda/bin:$PATH
O=$OUT/k79; mkdir -p $O; nvidia-smi -L | tee $O/gpu.txt
GPU_TEST_STAGES=07_softmax timeout 300 build/test_gpu > $O/suite07.txt 2>&1; echo "suite rc $?" | tee -a $O/suite07.txt; tail -3 $O/suite07.txt
GPU_TEST_STAGES=07_softmax timeout 300 .devrun/test_gpu_mut > $O/suite07_mutant.txt 2>&1; echo "mutant rc $?" | tee -a $O/suite07_mutant.txt; grep -E "asserts|tests  " $O/suite07_mutant.txt; grep -m5 "FAIL\|fail" $O/suite07_mutant.txt
