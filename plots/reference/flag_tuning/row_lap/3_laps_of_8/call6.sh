#!/bin/bash
# row sums: laps of 4 packs, laps of 8 where 4 would not fit at once, and the plan before
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/row_lap8; mkdir -p $O; cp .devrun/call6.sh $O/; nvidia-smi -L | tee $O/gpu.txt
B=.devrun/06_coop_groups
GPU_TEST_STAGES=06_coop_groups .devrun/test_gpu > $O/suite.txt 2>&1; echo "suite rc=$?"; grep -E "gpu:" $O/suite.txt
REDUCE_ROW_LAP=4 GPU_TEST_STAGES=06_coop_groups .devrun/test_gpu > $O/suite4.txt 2>&1; echo "suite lap4 rc=$?"; grep -E "gpu:" $O/suite4.txt
for t in memcheck racecheck; do for sh in 200x20000 32x128256; do
  timeout 120 compute-sanitizer --tool $t --error-exitcode 9 $B --variant dispatch --rows ${sh%x*} --cols ${sh#*x} --check-only > $O/san_${t}_$sh.txt 2>&1; echo "$t $sh rc=$? $(tail -1 $O/san_${t}_$sh.txt)"; done; done
SH="1x262144 8x131072 32x128256 64x32000 256x151936 16x65536 100x8193 200x20000 150x30000 100x50000 263x8193 263x16384 64x100000 128x65536"
run() { timeout 60 env "$@" --variant dispatch --rows ${sh%x*} --cols ${sh#*x} --iters 200 --warmup 20 2>&1 | awk '/^dispatch/{printf "%s/%s/%s", $5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2; do for sh in $SH; do
  if [ $rep = 2 ]; then echo "$rep $sh new=$(run $B) lap4=$(run REDUCE_ROW_LAP=4 $B) before=$(run REDUCE_ROW_LAP=0 $B)"; else echo "$rep $sh before=$(run REDUCE_ROW_LAP=0 $B) lap4=$(run REDUCE_ROW_LAP=4 $B) new=$(run $B)"; fi
done; done | tee $O/ab.txt
cd /tmp && tar czf $OUT/row_lap8.tgz row_lap8
