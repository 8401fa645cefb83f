#!/bin/bash
# the reference run of this tree (H100): make run, make sweep, torch peers; the whole gpu suite; float stream kernel SASS of this binary against s7_three
export PATH=/usr/local/cuda/bin:$PATH
export CUNIT_PREFIX=$PWD/.deps/root/usr
O=/tmp/ref; mkdir -p $O; cp .devrun/call24.sh .devrun/commit.txt $O/; nvidia-smi -L | tee $O/gpu.txt
make -j16 ARCH=sm_90 CUNIT_PREFIX=$CUNIT_PREFIX all > $O/build.txt 2>&1 || { tail -20 $O/build.txt; exit 1; }
grep -c nvcc $O/build.txt
( time make run ) > $O/run.log 2>&1; echo "make run rc=$?"; tail -3 $O/run.log
( time make sweep ) > $O/sweep.log 2>&1; echo "make sweep rc=$?"; tail -3 $O/sweep.log
timeout 150 python3 tools/torch_peer.py --out results/peer.csv > $O/peer.log 2>&1; echo "peer rc=$?"; tail -2 $O/peer.log
tar czf $OUT/results.tgz results
timeout 150 build/test_gpu > $O/suite.txt 2>&1; echo "suite rc=$?"; grep -E "^gpu:" $O/suite.txt
F=_Z14softmax_streamIfLb0ELi0EEvPKT_PS0_mmijiPy
for b in build/07_softmax .devrun/v/s7_three; do cuobjdump -sass -fun $F $b | grep -v "^\s*$" | sed 's@/\*[0-9a-f]*\*/@@g' > $O/sass_$(basename $b).txt; done
wc -l $O/sass_*.txt; diff $O/sass_07_softmax.txt $O/sass_s7_three.txt | head -5
cd /tmp && tar czf $OUT/ref.tgz ref
