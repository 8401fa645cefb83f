#!/bin/bash
# 06 gpu suite (7e391d2's test addition); SASS fences; 07 forced stream clusters (messages) at few rows
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/17_few_rows; mkdir -p $O; cp .devrun/call17.sh $O/; nvidia-smi -L > $O/gpu.txt
B=build/06_coop_groups; S=build/07_softmax
GPU_TEST_STAGES=06_coop_groups timeout 150 build/test_gpu > $O/suite06.txt 2>&1; echo "suite06 rc=$?"; grep -E "gpu:|asserts|suites" $O/suite06.txt | head
for bin in $B $S; do cuobjdump -sass $bin | awk '/Function :/{f=$3} /MEMBAR/{n[f]++; what[f]=what[f]" "$2} END{for (f in n) print n[f], f, what[f]}' ; done > $O/membar.txt 2>&1
grep -c . $O/membar.txt; cut -c1-200 $O/membar.txt | grep -i "stream\|lap_cluster\|softmax_cta" | head -20
for sh in 1x262144 8x131072 32x128256; do for dt in f32 bf16; do
  for m in A=1 REDUCE_STREAM=1 "REDUCE_STREAM=1 REDUCE_STREAM_K=8" "REDUCE_STREAM=1 REDUCE_STREAM_K=16"; do
   echo "== $sh $dt $m: $(env $m REDUCE_VERBOSE=1 $S --variant dispatch --rows ${sh%x*} --cols ${sh#*x} --check-only --op softmax --dtype $dt 2>&1 | grep -v '^#' | tr '\n' ' ' | cut -c1-300)"
  done; done; done > $O/plans.txt
cat $O/plans.txt | cut -c1-250
run7() { local R=$1 C=$2 op=$3 dt=$4; shift 4; timeout 60 env "$@" $S --variant dispatch --rows $R --cols $C --op $op --dtype $dt --iters 200 --warmup 20 2>&1 | awk '/^dispatch/{printf "%s/%s/%s",$5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2; do
 for sh in 1x262144 8x131072 32x128256 16x100000; do for dt in f32 bf16; do
  if [ $rep = 2 ]; then ord="S16 S8 S A"; else ord="A S S8 S16"; fi
  line="$rep $sh $dt"
  for m in $ord; do case $m in A) e="A=1";; S) e="REDUCE_STREAM=1";; S8) e="REDUCE_STREAM=1 REDUCE_STREAM_K=8";; S16) e="REDUCE_STREAM=1 REDUCE_STREAM_K=16";; esac
    line="$line $m:$(run7 ${sh%x*} ${sh#*x} softmax $dt $e)"; done; echo "$line"
 done; done
done | tee $O/ab.txt
cd /tmp && tar czf $OUT/17.tgz 17_few_rows
