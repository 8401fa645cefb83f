#!/bin/bash
# final tree: the reference run first (make run, make sweep, torch peers), then the whole gpu
# suite, three mutants, sanitizers each side of the cluster rule
export PATH=/usr/local/cuda/bin:$PATH
export CUNIT_PREFIX=$PWD/.deps/root/usr
O=/tmp/7_final; mkdir -p $O; cp .devrun/call7.sh .devrun/v/mut_*.diff $O/; nvidia-smi -L | tee $O/gpu.txt
make -j16 ARCH=sm_90 CUNIT_PREFIX=$CUNIT_PREFIX all > $O/build.txt 2>&1 || { tail -20 $O/build.txt; exit 1; }
grep -c nvcc $O/build.txt
( time make run ) > $O/run.log 2>&1; echo "make run rc=$?"; tail -3 $O/run.log
( time make sweep ) > $O/sweep.log 2>&1; echo "make sweep rc=$?"; tail -3 $O/sweep.log
timeout 150 python3 tools/torch_peer.py --out results/peer.csv > $O/peer.log 2>&1; echo "peer rc=$?"; tail -3 $O/peer.log
tar czf $OUT/results.tgz results
B=build/06_coop_groups
timeout 150 build/test_gpu > $O/suite.txt 2>&1; echo "suite rc=$?"; grep -E "gpu:" $O/suite.txt
for m in crowoff cslot0 rowoff; do GPU_TEST_STAGES=06_coop_groups timeout 60 .devrun/v/tg_$m > $O/mut_$m.txt 2>&1; echo "mutant $m rc=$?"; grep -E "gpu:|asserts" $O/mut_$m.txt; done
for t in memcheck racecheck synccheck; do for sh in 33x32768 32x32765 66x16383 64x32001; do
  timeout 60 compute-sanitizer --tool $t --error-exitcode 9 $B --variant dispatch --rows ${sh%x*} --cols ${sh#*x} --check-only > $O/san_${t}_$sh.txt 2>&1; echo "$t $sh rc=$? $(tail -1 $O/san_${t}_$sh.txt)"; done; done | tee $O/sanitize_summary.txt
cd /tmp && tar czf $OUT/7_final.tgz 7_final
