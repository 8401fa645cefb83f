#!/bin/bash
# row-sum laps in a cluster vs flagged laps vs the plan before the laps; lap length knob
set -u
B=build/06_coop_groups
O=$OUT/c1; mkdir -p $O
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader > $O/gpu.txt
run() { local R=$1 C=$2; shift 2; timeout 60 env "$@" $B --variant dispatch --rows $R --cols $C --iters 200 --warmup 20 | awk '/^dispatch/{printf "%s/%s/%s",$5,$6,$8}'; }
# correctness first
for sh in 64x32000 64x32001 16x65536 66x24577 2x8193 1x262147 7x20001; do R=${sh%x*}; C=${sh#*x}
  for m in 1 flags 0; do
    printf "%s mode=%s " $sh $m; REDUCE_ROW_LAP=$m timeout 60 $B --variant dispatch --rows $R --cols $C --check-only >/dev/null 2>&1; echo rc=$?
  done
  printf "%s lapmin=2048 " $sh; REDUCE_LAP_MIN=2048 timeout 60 $B --variant dispatch --rows $R --cols $C --check-only >/dev/null 2>&1; echo rc=$?
done > $O/check.txt 2>&1
REDUCE_VERBOSE=1 $B --variant dispatch --rows 64 --cols 32000 --iters 5 --warmup 1 > $O/one_run.txt 2>&1
for rep in 1 2; do
  for sh in 64x32000 16x65536 66x24577 40x32768 48x20000 8x16384; do R=${sh%x*}; C=${sh#*x}
    if [ $rep = 1 ]; then ord="1 flags 0"; else ord="0 flags 1"; fi
    line="$rep $sh"; for m in $ord; do line="$line m$m=$(run $R $C REDUCE_ROW_LAP=$m)"; done
    line="$line c2048=$(run $R $C REDUCE_LAP_MIN=2048)"
    echo "$line"
  done
done > $O/ab_cluster.txt 2>&1
for rep in 1 2; do
  for sh in 1x262144 8x131072 3x100003 2x200000 1x131072 4x65536; do R=${sh%x*}; C=${sh#*x}
    if [ $rep = 1 ]; then ord="4096 2048 1024"; else ord="1024 2048 4096"; fi
    line="$rep $sh"; for m in $ord; do line="$line l$m=$(run $R $C REDUCE_LAP_MIN=$m)"; done
    echo "$line"
  done
done > $O/ab_lapmin.txt 2>&1
cat $O/gpu.txt $O/check.txt $O/ab_cluster.txt $O/ab_lapmin.txt
