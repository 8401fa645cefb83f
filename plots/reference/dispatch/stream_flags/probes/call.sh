#!/bin/bash
# probes: 64x32000 clusters vs register flags vs stream flags (no clusters); 32x128256 16-bit register flags vs stream flags
cd "$(dirname "$0")/.."
T0=$(date +%s); step() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
export PATH=/usr/local/cuda/bin:$PATH
D=/tmp/y3; mkdir -p $D
make -j16 ARCH=sm_90 build/07_softmax > $D/build.log 2>&1 || { tail -30 $D/build.log; exit 1; }
step built
for e in "" "REDUCE_NO_CLUSTERS=1" "REDUCE_NO_CLUSTERS=1 REDUCE_STREAM_FLAGS=1"; do for dt in f32 bf16; do env $e REDUCE_VERBOSE=1 build/07_softmax --variant dispatch --op softmax --dtype $dt --rows 64 --cols 32000 --check-only 2>&1 | grep "07_softmax/dispatch" | sed "s/^/[$e] /"; done; done | tee $D/plans.txt
Q="--iters 30 --warmup 5"
run() { local sh=$1 dt=$2 op=$3; shift 3; env "$@" timeout 60 build/07_softmax --variant dispatch --op $op --dtype $dt --rows ${sh%x*} --cols ${sh#*x} $Q 2>&1 | awk '/^dispatch/{printf "%s/%s", $5,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2 3; do for dt in f32 f16 bf16; do for op in softmax logsoftmax; do
 echo "64x32000 $dt $op def=$(run 64x32000 $dt $op X=1) regflags=$(run 64x32000 $dt $op REDUCE_NO_CLUSTERS=1) streamflags=$(run 64x32000 $dt $op REDUCE_NO_CLUSTERS=1 REDUCE_STREAM_FLAGS=1)"
done; done; done | tee $D/k32000.txt
step k32000
for rep in 1 2 3; do for dt in f16 bf16; do for op in softmax logsoftmax; do
 if [ $rep = 2 ]; then echo "32x128256 $dt $op on=$(run 32x128256 $dt $op REDUCE_STREAM_FLAGS=1) def=$(run 32x128256 $dt $op X=1)"; else echo "32x128256 $dt $op def=$(run 32x128256 $dt $op X=1) on=$(run 32x128256 $dt $op REDUCE_STREAM_FLAGS=1)"; fi
done; done; done | tee $D/ab16.txt
step ab16
tar czf $OUT/y3.tgz -C /tmp y3
