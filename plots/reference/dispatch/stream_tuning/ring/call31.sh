#!/bin/bash
# ring plan (REDUCE_STREAM_RING=1) vs the committed plan: plans, checks, sanitizers, same-call A/B
S=build/07_softmax
O=$OUT
run7() { timeout 60 env "$@" $S --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 100 --warmup 10 | awk '/^dispatch/{printf "%s/%s/%s",$5,$6,$8}'; }
for sh in "1024 65536 bf16" "1024 65536 f16" "2048 32768 f32" "4096 50257 f32" "134 65537 bf16" "140 40001 f32"; do
  set -- $sh; REDUCE_STREAM_RING=1 REDUCE_VERBOSE=1 timeout 60 $S --variant dispatch --rows $1 --cols $2 --dtype $3 --op softmax --check-only 2>&1 | grep -E "dispatch:|FAIL|ok|rror" | head -3
done
for sh in "134 65537 bf16 softmax" "133 40001 f32 logsoftmax"; do set -- $sh
  for tool in memcheck racecheck synccheck; do
    REDUCE_STREAM_RING=1 timeout 120 compute-sanitizer --tool $tool $S --variant dispatch --rows $1 --cols $2 --dtype $3 --op $4 --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/$tool $1x$2 $3 $4: /"
  done
done
echo "shape op dtype: ring0 | ring1 (median/min/%copy), rounds alternate"
for sh in "1024 65536 softmax bf16" "1024 65536 logsoftmax f16" "1024 65536 softmax f16" "2048 32768 softmax f32" "2048 32768 logsoftmax f32" "4096 50257 softmax f32"; do
  set -- $sh; R=$1 C=$2 OP=$3 DT=$4
  line="$R x $C $OP $DT:"
  for rd in 1 2 3; do
    if [ $rd = 2 ]; then a=$(run7 REDUCE_STREAM_RING=1); b=$(run7 REDUCE_STREAM_RING=0); line="$line  $b | $a";
    else b=$(run7 REDUCE_STREAM_RING=0); a=$(run7 REDUCE_STREAM_RING=1); line="$line  $b | $a"; fi
  done
  echo "$line"
done
