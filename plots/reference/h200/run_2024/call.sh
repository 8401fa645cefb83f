#!/bin/bash
# the whole reference run of this tree on an H200: make run, make sweep, the PyTorch peer; the gpu suite if time is left
export PATH=/usr/local/cuda/bin:$PATH
export CUNIT_PREFIX=$PWD/.deps/root/usr
O=/tmp/h200; mkdir -p $O
nvidia-smi -L | tee $O/gpu.txt; cp .devrun/commit.txt $O/commit.txt
make -j16 ARCH=sm_90 CUNIT_PREFIX=$CUNIT_PREFIX all >$O/build.txt 2>&1 || { tail -30 $O/build.txt; exit 1; }
echo "built at $SECONDS s"
make ARCH=sm_90 CUNIT_PREFIX=$CUNIT_PREFIX run >$O/run.txt 2>&1; echo "run rc=$? at $SECONDS s"
make ARCH=sm_90 CUNIT_PREFIX=$CUNIT_PREFIX sweep >$O/sweep.txt 2>&1; echo "sweep rc=$? at $SECONDS s"
python3 tools/torch_peer.py --out results/peer.csv >$O/peer.txt 2>&1; echo "peer rc=$? at $SECONDS s"
cp results/*.csv $O/
grep -hE "FAIL|rror" $O/run.txt $O/sweep.txt $O/peer.txt | head
left=$((560 - SECONDS)); if [ $left -gt 40 ]; then timeout $left build/test_gpu > $O/suite.txt 2>&1; echo "suite rc=$? at $SECONDS s"; tail -2 $O/suite.txt; fi
cp .devrun/call9.sh $O/call.sh
cd /tmp && tar czf $OUT/h200.tgz h200
