#!/bin/bash
# the whole reference run of this tree on an H200: make run, make sweep, the PyTorch peer; stream plans; the gpu suite if time is left
export PATH=/usr/local/cuda/bin:$PATH
export CUNIT_PREFIX=$PWD/.deps/root/usr
O=/tmp/h200; mkdir -p $O
nvidia-smi -L | tee $O/gpu.txt; cp .devrun/commit.txt $O/commit.txt; cp .devrun/call80.sh $O/call.sh
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
N=build/07_softmax
run7() { timeout 60 env "$@" $N --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 200 --warmup 20 | awk '/^dispatch/{printf "%s/%s",$5,$8}'; }
{ for rd in 1 2 3; do for cfg in "8x131072 f32 softmax" "8x131072 f32 logsoftmax" "8x131072 bf16 softmax" "8x131072 bf16 logsoftmax" "4x131072 f32 softmax" "2x200000 f32 softmax"; do
    set -- $cfg; sh=$1; DT=$2; OP=$3; R=${sh%x*}; C=${sh#*x}
    if [ $((rd % 2)) = 1 ]; then echo "$cfg r$rd merge:$(run7 REDUCE_FLAGS_GATHER_MAX=32) gather:$(run7)"
    else echo "$cfg r$rd gather:$(run7) merge:$(run7 REDUCE_FLAGS_GATHER_MAX=32)"; fi
  done; done; } > $O/gather_ab.txt 2>&1; echo "gather ab at $SECONDS s"; cat $O/gather_ab.txt
left=$((570 - SECONDS)); if [ $left -gt 70 ]; then timeout $left build/test_gpu > $O/suite.txt 2>&1; echo "suite rc=$? at $SECONDS s"; tail -2 $O/suite.txt; fi
cd /tmp && tar czf $OUT/h200.tgz h200
