#!/bin/bash
# ncu source counters of the pipeline kernel at 64 x 32000 float (stall sampling by SASS line)
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/pipe9; mkdir -p $O; cp .devrun/call52.sh $O/; nvidia-smi -L | tee $O/gpu.txt
S=build/07_softmax
REDUCE_PIPE=1 timeout 200 ncu --clock-control none -k regex:softmax_pipe -c 1 --section SourceCounters --section WarpStateStats --page source --csv --print-source sass \
  $S --variant dispatch --op softmax --dtype f32 --rows 64 --cols 32000 --iters 1 --warmup 0 > $O/sass.csv 2>&1; echo "rc=$?"
head -12 $O/sass.csv | cut -c1-300
cd /tmp && tar czf $OUT/pipe9.tgz pipe9
