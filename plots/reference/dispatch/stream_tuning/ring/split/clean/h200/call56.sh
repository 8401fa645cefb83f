#!/bin/bash
# H200: the split ask as its own kernel (SPLIT): 979ba47 against this tree (rule, NBUF=1, NBUF=2); timings only
export PATH=/usr/local/cuda/bin:$PATH
export CUNIT_PREFIX=$PWD/.deps/root/usr
O=/tmp/split2_h200; mkdir -p $O; cp .devrun/call56.sh .devrun/mut_split.diff $O/; nvidia-smi -L | tee $O/gpu.txt
N=build/07_softmax; D=.devrun/old/07_softmax_979ba47
run7() { S=$1; shift; timeout 60 env "$@" $S --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 100 --warmup 10 | awk '/^dispatch/{printf "%s/%s",$5,$8}'; }
{
echo "shape: 979ba47 | this tree (rule) | REDUCE_STREAM_NBUF=1 | REDUCE_STREAM_NBUF=2  (median/%copy)"
for sh in "1024 65536 softmax f32" "1024 65536 logsoftmax f32" "1024 65536 softmax bf16" "1024 65536 logsoftmax f16" "512 131072 softmax bf16" "2048 60000 softmax f16" "2048 32768 softmax f32"; do
  set -- $sh; R=$1 C=$2 OP=$3 DT=$4
  echo "$R x $C $OP $DT"
  for rd in 1 2 3; do
    if [ $rd = 2 ]; then d=$(run7 $N REDUCE_STREAM_NBUF=2); c=$(run7 $N REDUCE_STREAM_NBUF=1); b=$(run7 $N); a=$(run7 $D); else a=$(run7 $D); b=$(run7 $N); c=$(run7 $N REDUCE_STREAM_NBUF=1); d=$(run7 $N REDUCE_STREAM_NBUF=2); fi
    echo "  r$rd: $a | $b | $c | $d"
  done
done
} 2>&1 | tee $O/ab.txt
cd /tmp && tar czf $OUT/split2_h200.tgz split2_h200
