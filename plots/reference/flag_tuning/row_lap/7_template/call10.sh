#!/bin/bash
# sum_lap<false> (flag_sum, 40 registers again) and sum_lap<true> (rows): whole gpu suite, the
# row-offset mutant, the sweep of the reference run again, a row A/B
O=/tmp/row_lap_template; mkdir -p $O; cp .devrun/call10.sh .devrun/v/mut_rowoff.diff $O/; nvidia-smi -L | tee $O/gpu.txt
B=build/06_coop_groups
build/test_gpu > $O/suite.txt 2>&1; echo "suite rc=$?"; grep -E "gpu:" $O/suite.txt
GPU_TEST_STAGES=06_coop_groups timeout 100 .devrun/v/tg_mut_rowoff > $O/mut_rowoff.txt 2>&1; echo "mutant rc=$?"; grep -E "gpu:|asserts" $O/mut_rowoff.txt
( time make sweep ) > $O/sweep.log 2>&1; echo "make sweep rc=$?"; tail -3 $O/sweep.log
run() { timeout 60 env "$@" --variant dispatch --rows ${sh%x*} --cols ${sh#*x} --iters 200 --warmup 20 2>&1 | awk '/^dispatch/{printf "%s/%s/%s", $5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for sh in 1x262144 32x128256 64x32000; do echo "$sh before=$(run REDUCE_ROW_LAP=0 $B) new=$(run $B)"; done | tee $O/ab.txt
cp results/sweep.csv $O/; cd /tmp && tar czf $OUT/row_lap_template.tgz row_lap_template
