#!/bin/bash
# stream kernel: max and sum of exp in one online pass (new) against two passes (s7_three)
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/22_online; mkdir -p $O; cp .devrun/call22.sh $O/; nvidia-smi -L > $O/gpu.txt
S=build/07_softmax; OLD=.devrun/v/s7_three
GPU_TEST_STAGES=07_softmax timeout 200 build/test_gpu > $O/suite07.txt 2>&1; echo "suite07 rc=$?"; grep -E "^gpu:" $O/suite07.txt
run7() { local bin=$1 R=$2 C=$3 op=$4 dt=$5; timeout 60 $bin --variant dispatch --rows $R --cols $C --op $op --dtype $dt --iters 100 --warmup 10 2>&1 | awk '/^dispatch/{printf "%s/%s/%s",$5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2; do for cfg in "1024x65536 bf16" "1024x65536 f16" "1024x65536 f32" "2048x32768 bf16" "2048x32768 f32" "4096x16384 bf16" "4096x16384 f32" "4096x50257 bf16" "4096x50257 f32" "256x151936 bf16" "256x151936 f32" "32x128256 f32"; do
  set -- $cfg; sh=$1; dt=$2; R=${sh%x*}; C=${sh#*x}
  if [ $rep = 2 ]; then line="$rep $sh $dt new:$(run7 $S $R $C softmax $dt) old:$(run7 $OLD $R $C softmax $dt)"; else line="$rep $sh $dt old:$(run7 $OLD $R $C softmax $dt) new:$(run7 $S $R $C softmax $dt)"; fi; echo "$line"; done; done | tee $O/ab.txt
cd /tmp && tar czf $OUT/22.tgz 22_online
