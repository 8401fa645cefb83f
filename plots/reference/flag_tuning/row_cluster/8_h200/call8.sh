#!/bin/bash
# H200: the cluster rule for one-lap row chunks, same-run A/B against flags; 06 gpu suite
O=/tmp/8_h200; mkdir -p $O; cp .devrun/call8.sh $O/; nvidia-smi -L | tee $O/gpu.txt
B=build/06_coop_groups
GPU_TEST_STAGES=06_coop_groups timeout 100 build/test_gpu > $O/suite06.txt 2>&1; echo "suite rc=$?"; grep -E "gpu:" $O/suite06.txt
run() { local R=$1 C=$2; shift 2; timeout 60 env "$@" $B --variant dispatch --rows $R --cols $C --iters 200 --warmup 20 2>&1 | awk '/^dispatch/{printf "%s/%s/%s",$5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2 3; do
  for sh in 64x32000 66x24577 40x32768 33x32768 32x24577 25x32768 16x32768 8x16384; do R=${sh%x*}; C=${sh#*x}
    if [ $rep = 2 ]; then ord="flags 1"; else ord="1 flags"; fi
    line="$rep $sh"; for m in $ord; do line="$line m$m=$(run $R $C REDUCE_ROW_LAP=$m)"; done
    echo "$line"
  done
done | tee $O/ab.txt
cd /tmp && tar czf $OUT/8_h200.tgz 8_h200
