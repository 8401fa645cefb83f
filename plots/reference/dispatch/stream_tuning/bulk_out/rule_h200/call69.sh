#!/bin/bash
# float CTA a row: outputs by the TMA (the rule) against REDUCE_STREAM_BULK_OUT=0, three rounds alternating
export PATH=/usr/local/cuda/bin:$PATH
O=$OUT/k69; mkdir -p $O; nvidia-smi -L | tee $O/gpu.txt
N=build/07_softmax
run7() { timeout 60 env "$@" $N --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 100 --warmup 10 | awk '/^dispatch/{printf "%s/%s",$5,$8}'; }
SH="4096x16384 8192x12288 2048x32768 2048x40000 1500x46000 4096x50257"
{
for sh in $SH 140x16385 133x32769 300x60001 1024x65536; do R=${sh%x*}; C=${sh#*x}
  for DT in f32 bf16; do for OP in softmax logsoftmax; do
    echo "$sh $DT $OP: $(REDUCE_VERBOSE=1 timeout 60 $N --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --check-only 2>&1 | grep -o 'dispatch: .*\|FAIL.*\|ok.*\|rror.*' | tr '\n' ' ')"
  done; done
done
} > $O/plans.txt 2>&1; grep -c " ok" $O/plans.txt; grep -v " ok" $O/plans.txt | head; grep f32 $O/plans.txt | grep softmax: | grep -o '^[0-9x]* f32\|: stream.*each'
{
for rd in 1 2 3; do
  for sh in $SH; do R=${sh%x*}; C=${sh#*x}; DT=f32
    for OP in softmax logsoftmax; do
      if [ $((rd % 2)) = 1 ]; then echo "$sh $DT $OP r$rd tma:$(run7) st:$(run7 REDUCE_STREAM_BULK_OUT=0)"
      else echo "$sh $DT $OP r$rd st:$(run7 REDUCE_STREAM_BULK_OUT=0) tma:$(run7)"; fi
    done
  done
done
} 2>&1 | tee $O/ab.txt
