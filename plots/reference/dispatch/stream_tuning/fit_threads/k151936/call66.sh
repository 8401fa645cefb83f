#!/bin/bash
# 256 x 151936: CTAs a row with the fitted threads (REDUCE_STREAM_K), 2 rounds; plans
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/k66; mkdir -p $O; cp .devrun/call66.sh .devrun/commit.txt $O/; nvidia-smi -L | tee $O/gpu.txt
N=build/07_softmax
run7() { timeout 60 env "$@" $N --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 100 --warmup 10 | awk '/^dispatch/{printf "%s/%s",$5,$8}'; }
R=256 C=151936
for DT in f16 f32; do for k in 4 5 6 8 10 12; do echo "K$k $DT: $(REDUCE_STREAM_K=$k REDUCE_VERBOSE=1 timeout 20 $N --variant dispatch --rows $R --cols $C --op softmax --dtype $DT --check-only 2>&1 | grep -o '[0-9]* CTA(s) a row, [0-9]* threads each')"; done; done > $O/plans.txt; cat $O/plans.txt
{
for DT in f16 bf16; do for OP in softmax logsoftmax; do for rd in 1 2; do
  echo "$DT $OP r$rd def:$(run7) K4:$(run7 REDUCE_STREAM_K=4) K5:$(run7 REDUCE_STREAM_K=5) K8:$(run7 REDUCE_STREAM_K=8)"
done; done; done
for OP in softmax logsoftmax; do for rd in 1 2; do
  echo "f32 $OP r$rd def:$(run7) K6:$(run7 REDUCE_STREAM_K=6) K10:$(run7 REDUCE_STREAM_K=10) K12:$(run7 REDUCE_STREAM_K=12)"
done; done
} 2>&1 | tee $O/k.txt
cd /tmp && tar czf $OUT/k66.tgz k66
