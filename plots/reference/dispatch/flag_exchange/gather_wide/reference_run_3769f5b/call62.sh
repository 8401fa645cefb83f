#!/bin/bash
# the reference run of this tree (H100): make run, make sweep, torch peers; the whole gpu suite; sanitizers over 07
export PATH=/usr/local/cuda/bin:$PATH
export CUNIT_PREFIX=$PWD/.deps/root/usr
O=/tmp/ref; mkdir -p $O; cp .devrun/call62.sh .devrun/commit.txt $O/; nvidia-smi -L | tee $O/gpu.txt
make -j16 ARCH=sm_90 CUNIT_PREFIX=$CUNIT_PREFIX all > $O/build.txt 2>&1 || { tail -20 $O/build.txt; exit 1; }
grep -c nvcc $O/build.txt
( time make run ) > $O/run.log 2>&1; echo "make run rc=$?"; tail -3 $O/run.log
( time make sweep ) > $O/sweep.log 2>&1; echo "make sweep rc=$?"; tail -3 $O/sweep.log
timeout 150 python3 tools/torch_peer.py --out results/peer.csv > $O/peer.log 2>&1; echo "peer rc=$?"; tail -2 $O/peer.log
tar czf $OUT/results.tgz results
timeout 150 build/test_gpu > $O/suite.txt 2>&1; echo "suite rc=$?"; grep -E "^gpu:" $O/suite.txt
( time timeout 200 sh tools/sanitize.sh 07_softmax ) > $O/sanitize07.txt 2>&1; echo "sanitize rc=$?"; tail -8 $O/sanitize07.txt
cp results/sanitize.txt $O/sanitize_results.txt 2>/dev/null
cd /tmp && tar czf $OUT/ref.tgz ref
