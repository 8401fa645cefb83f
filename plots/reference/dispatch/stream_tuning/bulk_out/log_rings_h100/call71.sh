#!/bin/bash
# float log-softmax rings: outputs by the TMA (the rule) against REDUCE_STREAM_BULK_OUT=0, three rounds alternating
export PATH=/usr/local/cuda/bin:$PATH
O=$OUT/k71; mkdir -p $O; nvidia-smi -L | tee $O/gpu.txt
N=build/07_softmax
run7() { timeout 60 env "$@" $N --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 100 --warmup 10 | awk '/^dispatch/{printf "%s/%s",$5,$8}'; }
SH="1024x65536 300x60001 2048x58000 512x131072 600x100000 2048x32768 4096x50257"
{
for sh in $SH; do R=${sh%x*}; C=${sh#*x}
  for OP in softmax logsoftmax; do for DT in f32 bf16; do
    echo "$sh $DT $OP: $(REDUCE_VERBOSE=1 timeout 60 $N --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --check-only 2>&1 | grep -o 'dispatch: .*\|FAIL.*\|ok.*\|rror.*' | tr '\n' ' ')"
  done; done
done
} > $O/plans.txt 2>&1; grep -c " ok" $O/plans.txt; grep -v " ok" $O/plans.txt | head; grep "f32 logsoftmax" $O/plans.txt | grep -o '^[0-9x]*\|: stream.*each'
{
for rd in 1 2 3; do
  for sh in $SH; do R=${sh%x*}; C=${sh#*x}; DT=f32; OP=logsoftmax
      if [ $((rd % 2)) = 1 ]; then echo "$sh $DT $OP r$rd tma:$(run7) st:$(run7 REDUCE_STREAM_BULK_OUT=0)"
      else echo "$sh $DT $OP r$rd st:$(run7 REDUCE_STREAM_BULK_OUT=0) tma:$(run7)"; fi
  done
done
} 2>&1 | tee $O/ab.txt
