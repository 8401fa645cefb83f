#!/bin/bash
# ncu: the stream kernel at 1024 x 65536, bfloat16 (a CTA alone on its SM, one pass) and float (4 CTAs a row, three an SM)
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/30_ncu; mkdir -p $O; cp .devrun/call30.sh $O/; nvidia-smi -L > $O/gpu.txt; ncu --version | tail -1 > $O/ncu_version.txt
S=build/07_softmax
for dt in bf16 f32; do
  timeout 200 ncu --clock-control none -k regex:softmax_stream -c 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
    $S --variant dispatch --op softmax --dtype $dt --rows 1024 --cols 65536 --iters 1 --warmup 0 > $O/ncu_1024x65536_$dt.txt 2>&1; echo "$dt rc=$?"
done
grep -h -E "Duration|DRAM Throughput|Issue Slots Busy|Executed Ipc Active|Achieved Occupancy|Stall|Registers Per|Block Size|Dynamic Shared|Mem Pipes|Compute \(SM\)|Memory Throughput|XU|pipe" $O/ncu_*.txt | head -60
cd /tmp && tar czf $OUT/30.tgz 30_ncu
