#!/bin/bash
# H200: row sums in one-lap chunks against the plan before, same run; 06 gpu suite
O=/tmp/row_lap_h200; mkdir -p $O; cp .devrun/call8.sh $O/; nvidia-smi -L | tee $O/gpu.txt
B=build/06_coop_groups
GPU_TEST_STAGES=06_coop_groups build/test_gpu > $O/suite.txt 2>&1; echo "suite rc=$?"; grep -E "Test:|gpu:" $O/suite.txt
SH="1x262144 8x131072 32x128256 64x32000 256x151936 16x65536 3x100003 100x8193 131x24577 132x24577 200x20000 263x16384 128x65536"
run() { timeout 60 env "$@" --variant dispatch --rows ${sh%x*} --cols ${sh#*x} --iters 200 --warmup 20 2>&1 | awk '/^dispatch/{printf "%s/%s/%s", $5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2; do for sh in $SH; do
  if [ $rep = 2 ]; then echo "$rep $sh new=$(run $B) before=$(run REDUCE_ROW_LAP=0 $B)"; else echo "$rep $sh before=$(run REDUCE_ROW_LAP=0 $B) new=$(run $B)"; fi
done; done | tee $O/ab.txt
cd /tmp && tar czf $OUT/row_lap_h200.tgz row_lap_h200
