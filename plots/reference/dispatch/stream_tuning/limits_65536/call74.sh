#!/bin/bash
# ncu of the rings at 1024 x 65536 (the sweep's widest point): bf16 (a CTA a row) and f32 (clusters of 2), softmax
export PATH=/usr/local/cuda/bin:$PATH
O=$OUT/k74; mkdir -p $O; nvidia-smi -L | tee $O/gpu.txt
N=build/07_softmax
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,launch__block_size,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio,smsp__average_warps_issue_stalled_selected_per_issue_active.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__cycles_active.avg,sm__pipe_xu_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
for DT in bf16 f32; do for OP in softmax logsoftmax; do
  echo "== 1024x65536 $DT $OP"
  REDUCE_VERBOSE=1 timeout 120 ncu --clock-control none -k regex:softmax_stream --launch-skip 2 --launch-count 1 --metrics $M $N --variant dispatch --rows 1024 --cols 65536 --dtype $DT --op $OP --iters 1 --warmup 0 2>&1 | grep -E "^ +[a-z_]+__|dispatch|No kernels|rror"
done; done > $O/ncu_65536.txt 2>&1
cat $O/ncu_65536.txt
for DT in bf16 f32; do echo "$DT $(timeout 60 $N --variant dispatch --rows 1024 --cols 65536 --dtype $DT --op softmax --iters 100 --warmup 10 | grep -E '^(dispatch|\[copy)')"; done > $O/timed.txt; cat $O/timed.txt
