#!/bin/bash
# compute-sanitizer on the final tree: 06 row dispatch each side of SMs / 2, one row, flag_sum
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/san_final; mkdir -p $O; cp .devrun/call11.sh $O/; nvidia-smi -L | tee $O/gpu.txt
B=build/06_coop_groups
for t in memcheck racecheck synccheck; do
  for sh in 1x262147 64x32001 66x24577 67x24577; do
    timeout 100 compute-sanitizer --tool $t --error-exitcode 9 $B --variant dispatch --rows ${sh%x*} --cols ${sh#*x} --check-only > $O/${t}_$sh.txt 2>&1; echo "$t $sh rc=$? $(tail -1 $O/${t}_$sh.txt)"; done
  timeout 100 compute-sanitizer --tool $t --error-exitcode 9 $B --variant flag_sum -n 1000003 --check-only > $O/${t}_flag_sum.txt 2>&1; echo "$t flag_sum 1000003 rc=$? $(tail -1 $O/${t}_flag_sum.txt)"
done | tee $O/summary.txt
cd /tmp && tar czf $OUT/san_final.tgz san_final
