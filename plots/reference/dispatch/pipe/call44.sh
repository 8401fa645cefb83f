#!/bin/bash
# pipeline path (REDUCE_PIPE=1, forced where it fits) against the default plans: checks, sanitizers, same-call A/B
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/pipe; mkdir -p $O; cp .devrun/call44.sh $O/; nvidia-smi -L | tee $O/gpu.txt
S=build/07_softmax
run7() { timeout 60 env "$@" $S --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 100 --warmup 10 | awk '/^dispatch/{printf "%s/%s",$5,$8}'; }
plan() { env "$@" REDUCE_VERBOSE=1 timeout 60 $S --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --check-only 2>&1 | grep -E "dispatch:|^dispatch" | sed 's/.*): //;s/ (max.*//' | tr -s ' ' | tr '\n' ' '; }
{
for sh in "32 128256 softmax f32" "32 128256 softmax bf16" "32 128257 logsoftmax f16" "8 131072 softmax f32" "8 131072 softmax bf16" "8 131075 logsoftmax f16" "64 32000 softmax f32" "64 32000 softmax bf16" "64 32001 logsoftmax f16" "4 131072 softmax f32" "2 200000 softmax bf16" "16 65536 softmax f32"; do
  set -- $sh; R=$1 C=$2 OP=$3 DT=$4
  echo "$R x $C $OP $DT: default: $(plan) | pipe: $(plan REDUCE_PIPE=1)"
  echo "  default | pipe lag1 t256 | lag2 t256 | lag1 t512 | lag0 t256"
  for rd in 1 2; do
    echo "  r$rd: $(run7) | $(run7 REDUCE_PIPE=1) | $(run7 REDUCE_PIPE=1 REDUCE_PIPE_LAG=2) | $(run7 REDUCE_PIPE=1 REDUCE_PIPE_THREADS=512) | $(run7 REDUCE_PIPE=1 REDUCE_PIPE_LAG=0)"
  done
done
} 2>&1 | tee $O/ab.txt
for t in memcheck racecheck synccheck initcheck; do
  REDUCE_PIPE=1 timeout 120 compute-sanitizer --tool $t --error-exitcode 1 $S --variant dispatch --rows 9 --cols 20003 --check-only 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|FAIL|rror" | head -3 | sed "s/^/$t 9x20003: /"
done 2>&1 | tee $O/sanitize.txt
cd /tmp && tar czf $OUT/pipe.tgz pipe
