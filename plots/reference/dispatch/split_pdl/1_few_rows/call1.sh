#!/bin/bash
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
for s in 1x262144 8x131072 32x128256; do R=${s%x*}; C=${s#*x}
  REDUCE_VERBOSE=1 REDUCE_NO_CLUSTERS=1 REDUCE_FLAGS=0 REDUCE_SPLIT_PDL=1 .devrun/07_softmax --variant dispatch --dtype bf16 --rows $R --cols $C --check-only 2>&1 | grep -i "dispatch" | head -3
done
bash .devrun/pdl.sh 2>&1 | tee $OUT/pdl_ab.txt
REDUCE_SPLIT_PDL=1 timeout 300 .devrun/test_gpu 2>&1 | tail -25 | tee $OUT/suite_pdl.txt
