#!/bin/bash
# ring (after the wait) forced on/off across row lengths; clusters of 2 as rings
S=build/07_softmax
run7() { timeout 60 env "$@" $S --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 100 --warmup 10 | awk '/^dispatch/{printf "%s/%s",$5,$8}'; }
plan() { env "$@" REDUCE_VERBOSE=1 timeout 60 $S --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --check-only 2>&1 | grep -E "dispatch:|^dispatch" | sed 's/ (max.*//' | tr -s ' ' | tr '\n' ' '; echo; }
echo "shape: default | ring off | ring on (median/%copy), two rounds"
for sh in "1024 65536 softmax bf16" "768 77000 softmax bf16" "640 92000 softmax bf16" "2048 60000 softmax f16" "2048 32768 softmax f32" "1536 40000 softmax f32" "1280 46000 logsoftmax f32"; do
  set -- $sh; R=$1 C=$2 OP=$3 DT=$4
  plan; plan REDUCE_STREAM_RING=1
  for rd in 1 2; do
    if [ $rd = 2 ]; then b=$(run7 REDUCE_STREAM_RING=1); c=$(run7 REDUCE_STREAM_RING=0); a=$(run7);
    else a=$(run7); c=$(run7 REDUCE_STREAM_RING=0); b=$(run7 REDUCE_STREAM_RING=1); fi
    echo "$R x $C $OP $DT r$rd: $a | $c | $b"
  done
done
echo "clusters: default | K=2 | K=2 ring"
for sh in "1024 65536 softmax f32" "1024 65536 logsoftmax f32" "512 131072 softmax bf16" "256 151936 softmax f32"; do
  set -- $sh; R=$1 C=$2 OP=$3 DT=$4
  plan; plan REDUCE_STREAM_K=2 REDUCE_STREAM_RING=1
  for rd in 1 2; do
    a=$(run7); b=$(run7 REDUCE_STREAM_K=2 REDUCE_STREAM_RING=0); c=$(run7 REDUCE_STREAM_K=2 REDUCE_STREAM_RING=1)
    echo "$R x $C $OP $DT r$rd: $a | $b | $c"
  done
done
REDUCE_STREAM_K=2 REDUCE_STREAM_RING=1 timeout 60 $S --variant dispatch --rows 67 --cols 65539 --dtype f32 --op softmax --check-only 2>&1 | grep "^dispatch"
REDUCE_STREAM_K=2 REDUCE_STREAM_RING=1 timeout 100 compute-sanitizer --tool racecheck $S --variant dispatch --rows 67 --cols 65539 --dtype f32 --op softmax --check-only 2>&1 | grep -E "SUMMARY|FAIL"
