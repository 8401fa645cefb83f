#!/bin/bash
# ncu of the pipeline kernel at 64 x 32000 float (where its time per row goes)
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/pipe7; mkdir -p $O; cp .devrun/call50.sh $O/; nvidia-smi -L | tee $O/gpu.txt
S=build/07_softmax
REDUCE_PIPE=1 timeout 200 ncu --clock-control none -k regex:softmax_pipe -c 1 --section SpeedOfLight --section WarpStateStats --section SourceCounters --section LaunchStats --section Occupancy \
  $S --variant dispatch --op softmax --dtype f32 --rows 64 --cols 32000 --iters 1 --warmup 0 > $O/ncu.txt 2>&1; echo "rc=$?"
REDUCE_PIPE=1 timeout 200 ncu --clock-control none -k regex:softmax_pipe -c 1 --import-source no --page source --csv --print-source sass \
  $S --variant dispatch --op softmax --dtype f32 --rows 64 --cols 32000 --iters 1 --warmup 0 > $O/sass.csv 2>&1; echo "rc=$?"
grep -E "Duration|Stall|stall|Warp Cycles|Issued|Block Size|Grid Size|Registers|Dynamic Shared" $O/ncu.txt | head -40
cd /tmp && tar czf $OUT/pipe7.tgz pipe7
