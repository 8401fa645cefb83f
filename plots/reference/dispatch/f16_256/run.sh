#!/bin/bash
# why f16 softmax at 262144 x 256 is 4% slower than bf16 and f16 log-softmax (same warp-path instance)
cd "$(dirname "$0")/../../../.."  # the repository root
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s); step() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
mkdir -p /tmp/x7
make -j16 ARCH=sm_90 build/07_softmax > /tmp/x7/build.log 2>&1 || { tail -30 /tmp/x7/build.log; exit 1; }
step built
cuobjdump -sass -fun '_Z12softmax_warpI6__halfLb0ELi8ELi32ELi8ELi4EEvPKT_PS1_mi' build/07_softmax > /tmp/x7/sass_f16_sm.txt 2>&1
cuobjdump -sass -fun '_Z12softmax_warpI13__nv_bfloat16Lb0ELi8ELi32ELi8ELi4EEvPKT_PS1_mi' build/07_softmax > /tmp/x7/sass_bf16_sm.txt 2>&1
cuobjdump -sass -fun '_Z12softmax_warpI6__halfLb1ELi8ELi32ELi8ELi4EEvPKT_PS1_mi' build/07_softmax > /tmp/x7/sass_f16_log.txt 2>&1
for f in /tmp/x7/sass_*.txt; do echo "$f $(grep -cE '^\s+/\*[0-9a-f]+\*/' $f) instructions"; done
for rep in 1 2 3; do for dt in f16 bf16; do for op in softmax logsoftmax; do
  echo "$dt $op $(build/07_softmax --variant dispatch --op $op --dtype $dt --rows 262144 --cols 256 --iters 30 | awk '/^dispatch/{print $5, $8}')"
done; done; done | tee /tmp/x7/times.txt
step timed
M=gpu__time_duration.sum,smsp__inst_executed.sum,sm__inst_executed_pipe_alu.sum,sm__inst_executed_pipe_fma.sum,sm__inst_executed_pipe_xu.sum,sm__inst_executed_pipe_lsu.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio
for dt in f16 bf16; do for op in softmax logsoftmax; do
  timeout 120 ncu --clock-control none -k regex:softmax_warp -c 1 --metrics $M --csv --print-units base --page raw build/07_softmax --variant dispatch --op $op --dtype $dt --rows 262144 --cols 256 --iters 1 --warmup 0 > /tmp/x7/ncu_${dt}_$op.csv 2>/tmp/x7/ncu_${dt}_$op.err
done; done
step ncu
tar czf $OUT/x7.tgz -C /tmp x7
