#!/bin/bash
# where clusters of one-lap chunks win over flagged ones (block count), and lap length at 65536+
set -u
B=build/06_coop_groups
O=$OUT/c2; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader > $O/gpu.txt
run() { local R=$1 C=$2; shift 2; timeout 60 env "$@" $B --variant dispatch --rows $R --cols $C --iters 200 --warmup 20 | awk '/^dispatch/{printf "%s/%s/%s",$5,$6,$8}'; }
for rep in 1 2 3; do
  for sh in 8x16384 16x16384 32x16384 24x20000 16x32768 20x32000 32x24577 64x32000 66x24577; do R=${sh%x*}; C=${sh#*x}
    if [ $rep = 2 ]; then ord="flags 1"; else ord="1 flags"; fi
    line="$rep $sh"; for m in $ord; do line="$line m$m=$(run $R $C REDUCE_ROW_LAP=$m)"; done
    echo "$line"
  done
done > $O/ab_cluster.txt 2>&1
for rep in 1 2 3; do
  for sh in 1x65536 4x65536 16x65536 32x65536 8x131072 16x131072; do R=${sh%x*}; C=${sh#*x}
    if [ $rep = 2 ]; then ord="2048 4096"; else ord="4096 2048"; fi
    line="$rep $sh"; for m in $ord; do line="$line l$m=$(run $R $C REDUCE_ROW_LAP=flags REDUCE_LAP_MIN=$m)"; done
    echo "$line"
  done
done > $O/ab_lapmin.txt 2>&1
cat $O/ab_cluster.txt $O/ab_lapmin.txt
