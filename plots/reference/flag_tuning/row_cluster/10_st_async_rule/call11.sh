#!/bin/bash
# st.async cluster finish: 06 suite, mutants, sanitizers; where it wins over flags (X_RULE=1:
# clusters at any grid; X_CMAX=1: clusters of up to 16)
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/10_st_async_rule; mkdir -p $O; cp .devrun/call11.sh .devrun/v/mut_*.diff $O/; nvidia-smi -L > $O/gpu.txt
B=build/06_coop_groups
GPU_TEST_STAGES=06_coop_groups timeout 100 build/test_gpu > $O/suite06.txt 2>&1; echo "suite rc=$?"; grep -E "gpu:" $O/suite06.txt
for m in crowoff cslot1; do GPU_TEST_STAGES=06_coop_groups timeout 60 .devrun/v/tg_$m > $O/mut_$m.txt 2>&1; echo "mutant $m rc=$?"; grep -E "gpu:|asserts" $O/mut_$m.txt; done
for t in memcheck racecheck synccheck; do for sh in 64x32001 33x32768 66x16383; do
  timeout 60 compute-sanitizer --tool $t --error-exitcode 9 $B --variant dispatch --rows ${sh%x*} --cols ${sh#*x} --check-only > $O/san_${t}_$sh.txt 2>&1; echo "$t $sh rc=$? $(tail -1 $O/san_${t}_$sh.txt)"; done; done | tee $O/sanitize_summary.txt
for sh in 8x16384 2x8193 1x32768 16x65536 1x65536; do X_RULE=1 X_CMAX=1 timeout 60 $B --variant dispatch --rows ${sh%x*} --cols ${sh#*x} --check-only > /dev/null 2>&1; echo "$sh X_RULE X_CMAX rc=$?"; done | tee $O/check.txt
run() { local R=$1 C=$2; shift 2; timeout 60 env "$@" $B --variant dispatch --rows $R --cols $C --iters 200 --warmup 20 2>&1 | awk '/^dispatch/{printf "%s/%s/%s",$5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2 3; do
  for sh in 1x32768 2x8193 8x16384 16x16384 32x16384 16x32768 24x20000 25x32768 66x12287 64x32000; do R=${sh%x*}; C=${sh#*x}
    if [ $rep = 2 ]; then ord="REDUCE_ROW_LAP=flags X_RULE=1"; else ord="X_RULE=1 REDUCE_ROW_LAP=flags"; fi
    line="$rep $sh"; for m in $ord; do line="$line $m:$(run $R $C $m)"; done; echo "$line"
  done
done | tee $O/ab_rule.txt
for rep in 1 2 3; do
  for sh in 1x65536 4x65536 8x65536 16x65536 32x65536; do R=${sh%x*}; C=${sh#*x}
    if [ $rep = 2 ]; then ord="REDUCE_ROW_LAP=flags X_CMAX=1:X_RULE=1"; else ord="X_CMAX=1:X_RULE=1 REDUCE_ROW_LAP=flags"; fi
    line="$rep $sh"; for m in $ord; do line="$line $m=$(run $R $C ${m/:/ })"; done; echo "$line"
  done
done | tee $O/ab_c16.txt
cd /tmp && tar czf $OUT/10.tgz 10_st_async_rule
