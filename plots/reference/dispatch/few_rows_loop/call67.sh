#!/bin/bash
# few rows: looping clusters with two buffers (a row's writes during the next row's loads), knobs only
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/k67; mkdir -p $O; cp .devrun/call67.sh .devrun/commit.txt $O/; nvidia-smi -L | tee $O/gpu.txt
N=build/07_softmax
run7() { timeout 60 env "$@" $N --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 100 --warmup 10 | awk '/^dispatch/{printf "%s/%s",$5,$8}'; }
plan() { timeout 30 env REDUCE_VERBOSE=1 "$@" $N --variant dispatch --rows $R --cols $C --op softmax --dtype $DT --check-only 2>&1 | grep -o 'dispatch: .*\|FAIL.*\|ok.*' | tr '\n' ' '; echo; }
S="REDUCE_STREAM=1 REDUCE_STREAM_NBUF=2"
declare -A CF
CF[32x128256]="def|K8G16:$S REDUCE_STREAM_K=8 REDUCE_STREAM_GROUPS=16|K16G16:$S REDUCE_STREAM_K=16 REDUCE_STREAM_GROUPS=16|K16G8:$S REDUCE_STREAM_K=16 REDUCE_STREAM_GROUPS=8|K8G16n1:REDUCE_STREAM=1 REDUCE_STREAM_LOOP=1 REDUCE_STREAM_K=8 REDUCE_STREAM_GROUPS=16"
CF[8x131072]="def|K16G4:$S REDUCE_STREAM_K=16 REDUCE_STREAM_GROUPS=4|K8G4:$S REDUCE_STREAM_K=8 REDUCE_STREAM_GROUPS=4|K16G2:$S REDUCE_STREAM_K=16 REDUCE_STREAM_GROUPS=2"
CF[64x32000]="def|K4G32:$S REDUCE_STREAM_K=4 REDUCE_STREAM_GROUPS=32|K2G32:$S REDUCE_STREAM_K=2 REDUCE_STREAM_GROUPS=32|K8G32:$S REDUCE_STREAM_K=8 REDUCE_STREAM_GROUPS=32|K4G16:$S REDUCE_STREAM_K=4 REDUCE_STREAM_GROUPS=16"
for sh in 32x128256 8x131072 64x32000; do R=${sh%x*}; C=${sh#*x}
  IFS='|' read -ra L <<< "${CF[$sh]}"
  for DT in f32 bf16; do for e in "${L[@]}"; do n=${e%%:*}; kv=${e#*:}; [ "$n" = def ] && kv=""
    echo "$sh $DT $n: $(plan $kv)"; done; done
done > $O/plans.txt 2>&1; cat $O/plans.txt
{
for rd in 1 2; do for sh in 32x128256 8x131072 64x32000; do R=${sh%x*}; C=${sh#*x}
  IFS='|' read -ra L <<< "${CF[$sh]}"
  for DT in f32 bf16; do for OP in softmax; do
    line="$sh $DT $OP r$rd"
    for e in "${L[@]}"; do n=${e%%:*}; kv=${e#*:}; [ "$n" = def ] && kv=""; line="$line $n:$(run7 $kv)"; done
    echo "$line"
  done; done
done; done
} 2>&1 | tee $O/ab.txt
cd /tmp && tar czf $OUT/k67.tgz k67
