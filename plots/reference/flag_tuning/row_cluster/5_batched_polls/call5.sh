#!/bin/bash
# flagged_sum: stale slots polled together (new) vs one after another (old binary); 06 suite first
O=$OUT/c5; mkdir -p $O; cp .devrun/call5.sh $O/
NEW=build/06_coop_groups; OLD=.devrun/v/06_old
GPU_TEST_STAGES=06_coop_groups timeout 200 build/test_gpu > $O/suite06.txt 2>&1; echo "suite rc=$?"; grep -E "gpu:" $O/suite06.txt
N=2^13,2^14,2^15,2^16,2^17,2^18,2^19,2^20,2^21,1000003
fs() { timeout 120 $1 --variant flag_sum -n $N --iters 200 --warmup 20 2>&1 | awk '/^flag_sum/{printf " %s:%s:%s:%s", substr($4,3), $5, $8, $9} /rror|FAIL/{printf "ERR"}'; echo; }
rs() { timeout 60 $1 --variant dispatch --rows ${2%x*} --cols ${2#*x} --iters 200 --warmup 20 2>&1 | awk '/^dispatch/{printf "%s/%s/%s",$5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2 3; do
  if [ $rep = 2 ]; then ord="NEW OLD"; else ord="OLD NEW"; fi
  for b in $ord; do echo "$rep $b flag_sum$(fs ${!b})"; done
  for sh in 1x262144 1x1048576 2x200000 3x100003 8x131072 16x65536 32x128256; do
    line="$rep $sh"; for b in $ord; do line="$line $b=$(rs ${!b} $sh)"; done; echo "$line"; done
done | tee $O/ab.txt
