#!/bin/bash
# row sums in one-lap chunks: suite, mutant, sanitizers, same-run A/B; then the whole reference run
export PATH=/usr/local/cuda/bin:$PATH
export CUNIT_PREFIX=$PWD/.deps/root/usr
O=/tmp/row_lap_final; mkdir -p $O; cp .devrun/call7.sh .devrun/v/mut_rowoff.diff $O/; nvidia-smi -L | tee $O/gpu.txt
make -j16 ARCH=sm_90 CUNIT_PREFIX=$CUNIT_PREFIX all > $O/build.txt 2>&1 || { tail -20 $O/build.txt; exit 1; }
grep -c nvcc $O/build.txt
B=build/06_coop_groups
build/test_gpu > $O/suite.txt 2>&1; echo "suite rc=$?"; grep -E "Test:|gpu:" $O/suite.txt
GPU_TEST_STAGES=06_coop_groups timeout 200 .devrun/v/tg_mut_rowoff > $O/mut_rowoff.txt 2>&1; echo "mutant rc=$?"; grep -E "gpu:|asserts" $O/mut_rowoff.txt
for t in memcheck racecheck synccheck; do for sh in 1x262147 131x24577 8x131075; do
  timeout 120 compute-sanitizer --tool $t --error-exitcode 9 $B --variant dispatch --rows ${sh%x*} --cols ${sh#*x} --check-only > $O/san_${t}_$sh.txt 2>&1; echo "$t $sh rc=$? $(tail -1 $O/san_${t}_$sh.txt)"; done; done
SH="1x262144 8x131072 32x128256 64x32000 256x151936 16x65536 3x100003 100x8193 131x24577 132x24577 200x20000 263x16384 128x65536"
run() { timeout 60 env "$@" --variant dispatch --rows ${sh%x*} --cols ${sh#*x} --iters 200 --warmup 20 2>&1 | awk '/^dispatch/{printf "%s/%s/%s", $5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2; do for sh in $SH; do
  if [ $rep = 2 ]; then echo "$rep $sh new=$(run $B) before=$(run REDUCE_ROW_LAP=0 $B)"; else echo "$rep $sh before=$(run REDUCE_ROW_LAP=0 $B) new=$(run $B)"; fi
done; done | tee $O/ab.txt
cd /tmp && tar czf $OUT/row_lap_final.tgz row_lap_final && cd - >/dev/null
( time make run ) > $O/run.log 2>&1; echo "make run rc=$?"; tail -3 $O/run.log
( time make sweep ) > $O/sweep.log 2>&1; echo "make sweep rc=$?"; tail -3 $O/sweep.log
timeout 150 python3 tools/torch_peer.py --out results/peer.csv > $O/peer.log 2>&1; echo "peer rc=$?"; tail -3 $O/peer.log
tar czf $OUT/results.tgz results
