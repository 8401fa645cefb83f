#!/bin/bash
# H200: the 07 suite; three float CTAs a SM (new) against two (s7_old = 7e391d2); the online 16-bit pass (new) against two passes (s7_three)
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/25_h200; mkdir -p $O; cp .devrun/call25.sh .devrun/commit.txt $O/; nvidia-smi -L > $O/gpu.txt; cat $O/gpu.txt
S=build/07_softmax
GPU_TEST_STAGES=07_softmax timeout 200 build/test_gpu > $O/suite07.txt 2>&1; echo "suite07 rc=$?"; grep -E "^gpu:" $O/suite07.txt
for b in .devrun/v/s7_old $S; do echo "== $b"; for sh in 256x151936 1024x65536 512x131072 2048x32768; do for dt in f32 bf16; do REDUCE_VERBOSE=1 $b --variant dispatch --rows ${sh%x*} --cols ${sh#*x} --dtype $dt --op softmax --check-only 2>&1 | grep "dispatch:\|FAIL"; done; done; done > $O/plans.txt 2>&1
run7() { local bin=$1 R=$2 C=$3 op=$4 dt=$5; timeout 60 $bin --variant dispatch --rows $R --cols $C --op $op --dtype $dt --iters 100 --warmup 10 2>&1 | awk '/^dispatch/{printf "%s/%s/%s",$5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2; do for cfg in "256x151936 softmax f32 s7_old" "256x151936 logsoftmax f32 s7_old" "512x131072 softmax f32 s7_old" "1024x65536 softmax f32 s7_old" "2048x32768 softmax bf16 s7_three" "2048x32768 softmax f16 s7_three" "1024x65536 softmax bf16 s7_three"; do
  set -- $cfg; sh=$1; op=$2; dt=$3; OLD=.devrun/v/$4; R=${sh%x*}; C=${sh#*x}
  if [ $rep = 2 ]; then line="$rep $sh $op $dt new:$(run7 $S $R $C $op $dt) $4:$(run7 $OLD $R $C $op $dt)"; else line="$rep $sh $op $dt $4:$(run7 $OLD $R $C $op $dt) new:$(run7 $S $R $C $op $dt)"; fi; echo "$line"; done; done | tee $O/ab.txt
cd /tmp && tar czf $OUT/25.tgz 25_h200
