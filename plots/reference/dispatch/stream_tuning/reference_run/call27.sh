#!/bin/bash
# the sweep again (the reference run's first sweep had two disturbed points), same tree
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/sweep2; mkdir -p $O; cp .devrun/call27.sh .devrun/commit.txt $O/; nvidia-smi -L | tee $O/gpu.txt
make -n ARCH=sm_90 CUNIT_PREFIX=$PWD/.deps/root/usr all | grep -c "nvcc.*-c"
( time make ARCH=sm_90 CUNIT_PREFIX=$PWD/.deps/root/usr sweep ) > $O/sweep.log 2>&1; echo "make sweep rc=$?"; tail -3 $O/sweep.log
cp results/sweep.csv $O/
grep "grid_stride_unroll" results/sweep.csv | cut -d, -f7,9,10 | paste -sd' '
cd /tmp && tar czf $OUT/sweep2.tgz sweep2
