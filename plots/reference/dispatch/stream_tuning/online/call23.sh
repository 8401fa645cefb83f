#!/bin/bash
# e76b40e: 07 suite, a mutant of the online pass, A/B against the tree before (s7_three: three-a-SM rule, two passes), sanitizers on the changed paths
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/23_check; mkdir -p $O; cp .devrun/call23.sh .devrun/commit.txt .devrun/v/mut_rescale.diff $O/; nvidia-smi -L > $O/gpu.txt
S=build/07_softmax; OLD=.devrun/v/s7_three
GPU_TEST_STAGES=07_softmax timeout 200 build/test_gpu > $O/suite07.txt 2>&1; echo "suite07 rc=$?"; grep -E "^gpu:" $O/suite07.txt
GPU_TEST_STAGES=07_softmax timeout 200 .devrun/v/tg_rescale > $O/mut_rescale.txt 2>&1; echo "mutant rescale rc=$?"; grep -E "^gpu:|asserts" $O/mut_rescale.txt
for cfg in "200x32769 bf16 memcheck" "200x32769 bf16 racecheck" "200x32769 bf16 synccheck" "140x151937 f16 racecheck" "140x151937 f16 memcheck" "140x151937 f32 memcheck"; do set -- $cfg
  REDUCE_VERBOSE=1 timeout 150 compute-sanitizer --tool $3 --error-exitcode 9 $S --variant dispatch --rows ${1%x*} --cols ${1#*x} --dtype $2 --check-only > $O/san_$3_$1_$2.txt 2>&1; echo "$3 $1 $2 rc=$? $(grep -h 'dispatch:' $O/san_$3_$1_$2.txt | head -1 | cut -c1-120) | $(tail -1 $O/san_$3_$1_$2.txt)"; done | tee $O/sanitize_summary.txt
run7() { local bin=$1 R=$2 C=$3 op=$4 dt=$5; timeout 60 $bin --variant dispatch --rows $R --cols $C --op $op --dtype $dt --iters 100 --warmup 10 2>&1 | awk '/^dispatch/{printf "%s/%s/%s",$5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2; do for cfg in "2048x32768 bf16" "2048x32768 f16" "256x151936 f32" "256x151936 bf16" "1024x65536 f32"; do
  set -- $cfg; sh=$1; dt=$2; R=${sh%x*}; C=${sh#*x}
  if [ $rep = 2 ]; then line="$rep $sh $dt new:$(run7 $S $R $C softmax $dt) old:$(run7 $OLD $R $C softmax $dt)"; else line="$rep $sh $dt old:$(run7 $OLD $R $C softmax $dt) new:$(run7 $S $R $C softmax $dt)"; fi; echo "$line"; done; done | tee $O/ab.txt
cd /tmp && tar czf $OUT/23.tgz 23_check
