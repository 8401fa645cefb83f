#!/bin/bash
# the ring asks for its next row's rest once the slots it lands in are written (nbuf 2, the rule)
# against after all the writes (REDUCE_STREAM_NBUF=1): same-call A/B; ncu of both at 1024 x 65536 bf16;
# the 07 gpu suite; tools/sanitize.sh 07_softmax
export PATH=/usr/local/cuda/bin:$PATH
export CUNIT_PREFIX=$PWD/.deps/root/usr
O=/tmp/split; mkdir -p $O; cp .devrun/call42.sh $O/; nvidia-smi -L | tee $O/gpu.txt
S=build/07_softmax
run7() { timeout 60 env "$@" $S --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 100 --warmup 10 | awk '/^dispatch/{printf "%s/%s",$5,$8}'; }
plan() { env "$@" REDUCE_VERBOSE=1 timeout 60 $S --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --check-only 2>&1 | grep -E "dispatch:|^dispatch" | sed 's/.*): //;s/ (max.*//' | tr -s ' ' | tr '\n' ' '; }
{
echo "shape: split ask (rule, nbuf 2) | ask after the writes (REDUCE_STREAM_NBUF=1)  (median/%copy)"
for sh in "1024 65536 softmax bf16" "1024 65536 logsoftmax bf16" "1024 65536 softmax f16" "1024 65536 logsoftmax f16" "1024 65536 softmax f32" "1024 65536 logsoftmax f32" "512 131072 softmax bf16" "2048 60000 softmax f16" "2048 80000 softmax bf16"; do
  set -- $sh; R=$1 C=$2 OP=$3 DT=$4
  echo "$R x $C $OP $DT: $(plan)"
  for rd in 1 2 3; do
    if [ $rd = 2 ]; then b=$(run7 REDUCE_STREAM_NBUF=1); a=$(run7); else a=$(run7); b=$(run7 REDUCE_STREAM_NBUF=1); fi
    echo "  r$rd: $a | $b"
  done
done
} 2>&1 | tee $O/ab.txt
for nb in 2 1; do
  REDUCE_STREAM_NBUF=$nb timeout 120 ncu --clock-control none -k regex:softmax_stream -c 1 --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis \
    --metrics dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,smsp__average_warp_latency_issue_stalled_barrier.ratio \
    $S --variant dispatch --op softmax --dtype bf16 --rows 1024 --cols 65536 --iters 1 --warmup 0 > $O/ncu_nbuf$nb.txt 2>&1; echo "ncu nbuf$nb rc=$?"
done
grep -H -E "Duration|DRAM Throughput|dram__|gpu__time|barrier" $O/ncu_nbuf*.txt | head -20
( time GPU_TEST_STAGES=07_softmax timeout 200 build/test_gpu ) > $O/suite07.txt 2>&1; echo "suite rc=$?"; grep -E "^gpu:|asserts|real" $O/suite07.txt | head
( time timeout 220 sh tools/sanitize.sh 07_softmax ) > $O/sanitize07.txt 2>&1; echo "sanitize rc=$?"; tail -7 $O/sanitize07.txt
cd /tmp && tar czf $OUT/split.tgz split
