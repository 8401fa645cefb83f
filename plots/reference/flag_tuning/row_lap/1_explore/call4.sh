#!/bin/bash
# row sums: sum_lap for rows (one lap a block, no loop) against sum_flagged; lap everywhere (2)
O=/tmp/rowlap; mkdir -p $O; cp .devrun/call4.sh $O/; nvidia-smi -L | tee $O/gpu.txt
B=.devrun/06_coop_groups
GPU_TEST_STAGES="06_coop_groups" .devrun/test_gpu > $O/suite.txt 2>&1; echo "suite rc=$?"; grep -E "gpu:" $O/suite.txt
REDUCE_ROW_LAP=2 GPU_TEST_STAGES="06_coop_groups" .devrun/test_gpu > $O/suite_lap2.txt 2>&1; echo "suite lap2 rc=$?"; grep -E "gpu:" $O/suite_lap2.txt
run() { timeout 60 env "$@" --variant dispatch --rows ${sh%x*} --cols ${sh#*x} --iters 200 --warmup 20 2>&1 | awk '/^dispatch/{printf "%s/%s/%s", $5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2 3; do for sh in 1x262144 8x131072 2x200000 3x100003 32x128256 64x32000 256x151936; do
  if [ $rep = 2 ]; then echo "$rep $sh lap2=$(run REDUCE_ROW_LAP=2 $B) lap=$(run $B) old=$(run REDUCE_ROW_LAP=0 $B)"; else echo "$rep $sh old=$(run REDUCE_ROW_LAP=0 $B) lap=$(run $B) lap2=$(run REDUCE_ROW_LAP=2 $B)"; fi
done; done | tee $O/ab.txt
for n in 262144 524288; do timeout 60 $B --variant flag_sum -n $n --iters 200 --warmup 20 | grep -E "flag_sum|read"; done | tee $O/flag_sum.txt
cd /tmp && tar czf $OUT/rowlap.tgz rowlap
