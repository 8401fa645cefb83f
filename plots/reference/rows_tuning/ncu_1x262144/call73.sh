#!/bin/bash
# (1) the 07 gpu suite as committed (three cases forcing REDUCE_STREAM_BULK_OUT, not yet run as written)
# (2) ncu: float 4096 x 50257, softmax and log-softmax, stores by threads and by the TMA
# (3) waves at 65536 columns: rows 924/990/1024/1056 (whole and half waves of 132 SMs)
# (4) ncu: row-sum dispatch at 1 x 262144 against the read ceiling's kernel
export PATH=/usr/local/cuda/bin:$PATH
O=$OUT/k73; mkdir -p $O; nvidia-smi -L | tee $O/gpu.txt
N=build/07_softmax
GPU_TEST_STAGES=07_softmax timeout 300 build/test_gpu > $O/suite07.txt 2>&1; echo "suite rc $?" | tee -a $O/suite07.txt; tail -3 $O/suite07.txt
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_drain_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__sass_inst_executed_op_global_st.sum,sm__cycles_active.avg,lts__t_sectors_op_write.sum
for OP in softmax logsoftmax; do for B in 0 1; do
  echo "== $OP BULK_OUT=$B"
  REDUCE_STREAM_BULK_OUT=$B timeout 120 ncu --clock-control none -k regex:softmax_stream --launch-skip 2 --launch-count 1 --metrics $M $N --variant dispatch --rows 4096 --cols 50257 --dtype f32 --op $OP --iters 1 --warmup 0 2>&1 | grep -E "^ +[a-z_]+__|dispatch|No kernels|rror"
done; done > $O/ncu_50257.txt 2>&1
run7() { timeout 60 env "$@" $N --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 100 --warmup 10 | awk '/^dispatch/{printf "%s/%s",$5,$8}'; }
C=65536
{ for DT in f32 bf16; do OP=softmax; for R in 924 990 1024 1056; do echo "$R x $C $DT plan: $(REDUCE_VERBOSE=1 timeout 60 $N --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --check-only 2>&1 | grep -o 'dispatch: .*\|FAIL.*\|ok$' | tr '\n' ' ')"; done; done
for rd in 1 2 3; do for DT in f32 bf16; do for OP in softmax logsoftmax; do
  L="r$rd $DT $OP"; for R in 924 990 1024 1056; do L="$L $R:$(run7)"; done; echo "$L"
done; done; done; } > $O/waves65536.txt 2>&1
cat $O/waves65536.txt
timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,launch__grid_size,launch__block_size build/06_coop_groups --variant dispatch --rows 1 --cols 262144 --iters 3 --warmup 0 > $O/ncu_rowsum_1x262144.txt 2>&1
grep -E "^  [a-z_]+|gpu__time" $O/ncu_rowsum_1x262144.txt | head -40
