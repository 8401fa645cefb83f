#!/bin/bash
# trigger at the start (1) or after the state (2) against the memset (0), same run
O=/tmp/pdl3; mkdir -p $O; cp .devrun/call3.sh $O/; nvidia-smi -L | tee $O/gpu.txt
B=.devrun/07_softmax
run() { timeout 60 env "$@" --variant dispatch --op $OP --dtype $dt --rows ${sh%x*} --cols ${sh#*x} --iters 100 --warmup 10 2>&1 | awk '/^dispatch/{printf "%s/%s/%s", $5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
SH="24x200000:f32 32x200000:f32 48x100000:f32 64x100000:f32 64x200000:bf16 96x100000:bf16"
for rep in 1 2; do for x in $SH; do sh=${x%:*}; dt=${x#*:}; for OP in softmax logsoftmax; do
  if [ $rep = 2 ]; then echo "$rep $sh $dt $OP end=$(run $B) start=$(run REDUCE_SPLIT_PDL=1 $B) memset=$(run REDUCE_SPLIT_PDL=0 $B)"; else echo "$rep $sh $dt $OP memset=$(run REDUCE_SPLIT_PDL=0 $B) start=$(run REDUCE_SPLIT_PDL=1 $B) end=$(run $B)"; fi
done; done; done | tee $O/ab.txt
SH="1x262144:f32 8x131072:bf16 32x128256:f32"
for rep in 1 2; do for x in $SH; do sh=${x%:*}; dt=${x#*:}; OP=softmax
  echo "$rep noclusters $sh $dt $OP memset=$(run REDUCE_NO_CLUSTERS=1 REDUCE_FLAGS=0 REDUCE_SPLIT_PDL=0 $B) start=$(run REDUCE_NO_CLUSTERS=1 REDUCE_FLAGS=0 REDUCE_SPLIT_PDL=1 $B) end=$(run REDUCE_NO_CLUSTERS=1 REDUCE_FLAGS=0 $B) flags=$(run $B)"
done; done | tee -a $O/ab.txt
cd /tmp && tar czf $OUT/pdl3.tgz pdl3
