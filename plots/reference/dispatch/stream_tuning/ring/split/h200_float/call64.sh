#!/bin/bash
# H200: float CTAs a row as rings (4096 x 50257, 2048 x 32768): the split ask (default here) against
# REDUCE_STREAM_NBUF=1 (the ring asking after its writes), REDUCE_STREAM_RING=0 (a CTA launched a row) and 979ba47; 3 rounds
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/h64; mkdir -p $O; cp .devrun/call64.sh $O/; git log -1 --format='%h' > $O/commit.txt 2>/dev/null; nvidia-smi -L | tee $O/gpu.txt
N=build/07_softmax; D=.devrun/old/07_softmax_979ba47
run7() { S=$1; shift; timeout 60 env "$@" $S --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 50 --warmup 5 | awk '/^dispatch/{printf "%s/%s",$5,$8}'; }
{
echo "shape: default (split) | NBUF=1 | RING=0 | 979ba47   (median us/% of copy)"
for sh in "4096 50257 logsoftmax" "4096 50257 softmax" "2048 32768 logsoftmax" "2048 32768 softmax"; do set -- $sh; R=$1 C=$2 OP=$3 DT=f32
  line="$R x $C f32 $OP"
  for rd in 1 2 3; do
    if [ $rd = 2 ]; then d=$(run7 $D); c=$(run7 $N REDUCE_STREAM_RING=0); b=$(run7 $N REDUCE_STREAM_NBUF=1); a=$(run7 $N);
    else a=$(run7 $N); b=$(run7 $N REDUCE_STREAM_NBUF=1); c=$(run7 $N REDUCE_STREAM_RING=0); d=$(run7 $D); fi
    line="$line | r$rd $a $b $c $d"
  done; echo "$line"
done
} 2>&1 | tee $O/ab.txt
cd /tmp && tar czf $OUT/h64.tgz h64
