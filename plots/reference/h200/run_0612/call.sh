#!/bin/bash
# the whole reference run of this tree on an H200: make run, make sweep, the PyTorch peer; stream plans; the gpu suite if time is left
export PATH=/usr/local/cuda/bin:$PATH
export CUNIT_PREFIX=$PWD/.deps/root/usr
O=/tmp/h200; mkdir -p $O
nvidia-smi -L | tee $O/gpu.txt; cp .devrun/commit.txt $O/commit.txt; cp .devrun/call65.sh $O/call.sh
make -j16 ARCH=sm_90 CUNIT_PREFIX=$CUNIT_PREFIX all >$O/build.txt 2>&1 || { tail -30 $O/build.txt; exit 1; }
echo "built at $SECONDS s"
make ARCH=sm_90 CUNIT_PREFIX=$CUNIT_PREFIX run >$O/run.txt 2>&1; echo "run rc=$? at $SECONDS s"
make ARCH=sm_90 CUNIT_PREFIX=$CUNIT_PREFIX sweep >$O/sweep.txt 2>&1; echo "sweep rc=$? at $SECONDS s"
timeout 150 python3 tools/torch_peer.py --out results/peer.csv >$O/peer.txt 2>&1; echo "peer rc=$? at $SECONDS s"
cp results/*.csv $O/
grep -hE "FAIL|rror" $O/run.txt $O/sweep.txt $O/peer.txt | head
for sh in "1 262144" "8 131072" "32 128256" "64 32000" "256 151936" "4096 50257" "4096 16384" "2048 32768" "1024 65536"; do set -- $sh
  for DT in f32 f16 bf16; do REDUCE_VERBOSE=1 timeout 20 build/07_softmax --variant dispatch --rows $1 --cols $2 --op softmax --dtype $DT --check-only 2>&1 | grep '07_softmax/dispatch'; done
done > $O/plans.txt 2>&1
left=$((570 - SECONDS)); if [ $left -gt 70 ]; then timeout $left build/test_gpu > $O/suite.txt 2>&1; echo "suite rc=$? at $SECONDS s"; tail -2 $O/suite.txt; fi
cd /tmp && tar czf $OUT/h200.tgz h200
