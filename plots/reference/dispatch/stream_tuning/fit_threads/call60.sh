#!/bin/bash
# stream CTAs' threads fitted to the CTAs an SM that shared memory allows (stream_fit_threads):
# register use; plans; old (e6b4f60) against new, 3 rounds alternating; 16-bit 16384 thread knobs; the 07 gpu suite
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/fit60; mkdir -p $O; cp .devrun/call60.sh .devrun/commit.txt $O/; nvidia-smi -L | tee $O/gpu.txt
N=build/07_softmax; D=.devrun/old/07_softmax_e6b4f60
cuobjdump -res-usage $N 2>/dev/null | grep -A1 softmax_stream | grep -o 'REG:[0-9]*' | sort | uniq -c > $O/regs.txt; cat $O/regs.txt
run7() { S=$1; shift; timeout 60 env "$@" $S --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 100 --warmup 10 | awk '/^dispatch/{printf "%s/%s",$5,$8}'; }
SH="4096 16384|2048 32768|4096 50257|256 151936|1024 65536|8192 8192"
{
IFS='|'; for sh in $SH; do IFS=' '; set -- $sh; for DT in f32 f16 bf16; do
  for S in $D $N; do echo "$(basename $S): $(REDUCE_VERBOSE=1 timeout 30 $S --variant dispatch --rows $1 --cols $2 --op softmax --dtype $DT --check-only 2>&1 | grep '07_softmax/dispatch')"; done
done; done; IFS=' '
} > $O/plans.txt 2>&1; cat $O/plans.txt
{
echo "shape: e6b4f60 | fitted threads  (median us/% of copy), 3 rounds alternating"
IFS='|'; for sh in $SH; do IFS=' '; set -- $sh; R=$1 C=$2
  for DT in f32 f16 bf16; do for OP in softmax logsoftmax; do
    line="$R x $C $DT $OP"
    for rd in 1 2 3; do
      if [ $rd = 2 ]; then b=$(run7 $N); a=$(run7 $D); else a=$(run7 $D); b=$(run7 $N); fi
      line="$line | r$rd $a  $b"
    done
    echo "$line"
  done; done
done; IFS=' '
echo "4096 x 16384 16-bit softmax, REDUCE_STREAM_THREADS (new build)"
for DT in f16 bf16; do R=4096 C=16384 OP=softmax
  for rd in 1 2; do echo "$DT r$rd def:$(run7 $N) T160:$(run7 $N REDUCE_STREAM_THREADS=160) T192:$(run7 $N REDUCE_STREAM_THREADS=192) T224:$(run7 $N REDUCE_STREAM_THREADS=224) T256:$(run7 $N REDUCE_STREAM_THREADS=256) T288:$(run7 $N REDUCE_STREAM_THREADS=288)"; done
done
} 2>&1 | tee $O/ab.txt
( time GPU_TEST_STAGES=07_softmax timeout 200 build/test_gpu ) > $O/suite07.txt 2>&1; echo "suite rc=$?"; grep -E "asserts|tests|real" $O/suite07.txt | head
cd /tmp && tar czf $OUT/fit60.tgz fit60
