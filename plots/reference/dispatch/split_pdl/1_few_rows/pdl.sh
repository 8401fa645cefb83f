#!/bin/bash
# A/B: flags (default) vs two kernels (memset) vs two kernels as a dependent launch
B=.devrun/07_softmax
run() { env "$@" --variant dispatch --op $OP --dtype $DT --rows $R --cols $C --iters 200 --warmup 20 | awk '/^dispatch/{printf "%s/%s/%s ", $5,$6,$8}'; }
for shape in 1x262144 8x131072 16x131072 32x128256; do
  R=${shape%x*}; C=${shape#*x}
  for DT in f32 bf16; do for OP in softmax; do
    line="$shape $DT $OP"
    for rep in 1 2; do
      if [ $rep = 1 ]; then
        a=$(run $B); b=$(run REDUCE_NO_CLUSTERS=1 REDUCE_FLAGS=0 $B); c=$(run REDUCE_NO_CLUSTERS=1 REDUCE_FLAGS=0 REDUCE_SPLIT_PDL=1 $B); d=$(run REDUCE_FLAGS=0 REDUCE_SPLIT_PDL=1 $B)
      else
        d=$(run REDUCE_FLAGS=0 REDUCE_SPLIT_PDL=1 $B); c=$(run REDUCE_NO_CLUSTERS=1 REDUCE_FLAGS=0 REDUCE_SPLIT_PDL=1 $B); b=$(run REDUCE_NO_CLUSTERS=1 REDUCE_FLAGS=0 $B); a=$(run $B)
      fi
      line="$line | flags=$a two=$b pdl=$c pdl_cl=$d"
    done
    echo "$line"
  done; done
done
