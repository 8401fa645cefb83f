#!/bin/bash
# ring: early part before the wait (RING=1) or after it (RING=2), against the committed plan (0) and the plain loop
S=build/07_softmax
run7() { timeout 60 env "$@" $S --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 100 --warmup 10 | awk '/^dispatch/{printf "%s/%s",$5,$8}'; }
for sh in "134 65537 bf16 softmax" "133 40001 f32 logsoftmax"; do set -- $sh
  for rg in 1 2; do
    REDUCE_STREAM_RING=$rg timeout 120 compute-sanitizer --tool racecheck $S --variant dispatch --rows $1 --cols $2 --dtype $3 --op $4 --check-only 2>&1 | grep -E "SUMMARY|FAIL" | sed "s/^/racecheck ring$rg $1x$2 $3 $4: /"
    REDUCE_STREAM_RING=$rg timeout 60 $S --variant dispatch --rows $1 --cols $2 --dtype $3 --op $4 --check-only 2>&1 | grep -E "^dispatch" | sed "s/^/ring$rg /"
  done
done
echo "shape op dtype: committed | ring1 | ring2 | loop1 (median/%copy), rounds alternate"
for sh in "1024 65536 softmax bf16" "1024 65536 softmax f16" "2048 32768 softmax f32" "4096 50257 softmax f32" "1024 65536 logsoftmax bf16"; do
  set -- $sh; R=$1 C=$2 OP=$3 DT=$4
  for rd in 1 2; do
    if [ $rd = 2 ]; then
      l=$(run7 REDUCE_STREAM_LOOP=1 REDUCE_STREAM_NBUF=1); c=$(run7 REDUCE_STREAM_RING=2); b=$(run7 REDUCE_STREAM_RING=1); a=$(run7 REDUCE_STREAM_RING=0)
    else
      a=$(run7 REDUCE_STREAM_RING=0); b=$(run7 REDUCE_STREAM_RING=1); c=$(run7 REDUCE_STREAM_RING=2); l=$(run7 REDUCE_STREAM_LOOP=1 REDUCE_STREAM_NBUF=1)
    fi
    echo "$R x $C $OP $DT r$rd: $a | $b | $c | $l"
  done
done
