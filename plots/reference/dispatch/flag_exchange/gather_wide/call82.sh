#!/bin/bash
# ncu: 32 x 128256 bf16 and f16 log-softmax (16 CTAs a row that gather), the build of 5393688 against 3769f5b
export PATH=/usr/local/cuda/bin:$PATH
O=$OUT/k82; mkdir -p $O; nvidia-smi -L | tee $O/gpu.txt
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__grid_size,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio,smsp__average_warps_issue_stalled_drain_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_global_st.sum,sm__cycles_active.avg
for DT in bf16 f16; do for B in .devrun/07_softmax_old build/07_softmax; do
  echo "== $DT logsoftmax $B"
  REDUCE_VERBOSE=1 timeout 120 ncu --clock-control none -k regex:softmax_flags --launch-skip 2 --launch-count 1 --metrics $M $B --variant dispatch --rows 32 --cols 128256 --dtype $DT --op logsoftmax --iters 1 --warmup 0 2>&1 | grep -E "^ +[a-z_]+__|07_softmax/dispatch|No kernels|rror|softmax_flags"
done; done > $O/ncu_32x128256.txt 2>&1; cat $O/ncu_32x128256.txt
