#!/bin/bash
# stream path: three float CTAs a SM (new rule) against two (old binary); rows grouped two a cluster at 32 x 128256
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/21_three; mkdir -p $O; cp .devrun/call21.sh $O/; nvidia-smi -L > $O/gpu.txt
S=build/07_softmax; OLD=.devrun/v/s7_old
GPU_TEST_STAGES=07_softmax timeout 200 build/test_gpu > $O/suite07.txt 2>&1; echo "suite07 rc=$?"; grep -E "gpu:" $O/suite07.txt
for b in $OLD $S; do echo "== $b"; for sh in 256x151936 1024x65536 512x131072 300x200000 4096x50257 2048x32768 128x262144 64x524288; do for dt in f32 bf16; do REDUCE_VERBOSE=1 $b --variant dispatch --rows ${sh%x*} --cols ${sh#*x} --dtype $dt --op softmax --check-only 2>&1 | grep "dispatch:\|FAIL"; done; done; done > $O/plans.txt 2>&1
diff <(sed -n '/== .devrun/,/== build/p' $O/plans.txt | grep dispatch:) <(sed -n '/== build/,$p' $O/plans.txt | grep dispatch:)
run7() { local bin=$1 R=$2 C=$3 op=$4 dt=$5; shift 5; timeout 60 env "$@" $bin --variant dispatch --rows $R --cols $C --op $op --dtype $dt --iters 200 --warmup 20 2>&1 | awk '/^dispatch/{printf "%s/%s/%s",$5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2 3; do for sh in 256x151936 1024x65536 512x131072; do for op in softmax logsoftmax; do
  if [ $rep = 2 ]; then line="$rep $sh $op new:$(run7 $S ${sh%x*} ${sh#*x} $op f32 A=1) old:$(run7 $OLD ${sh%x*} ${sh#*x} $op f32 A=1)"; else line="$rep $sh $op old:$(run7 $OLD ${sh%x*} ${sh#*x} $op f32 A=1) new:$(run7 $S ${sh%x*} ${sh#*x} $op f32 A=1)"; fi; echo "$line"; done; done; done | tee $O/ab.txt
G="REDUCE_STREAM=1 REDUCE_STREAM_NBUF=2"
for rep in 1 2; do for sh in 32x128256 8x131072 64x65536; do for dt in f32 bf16; do
  R=${sh%x*}; line="$rep $sh $dt default:$(run7 $S $R ${sh#*x} softmax $dt A=1)"
  for cfg in "K16 G$((R/2))" "K16 G$((R/4))" "K8 G$((R/2))" "K12 G$((R/2))"; do set -- $cfg; k=${1#K}; gg=${2#G}; [ $gg -lt 1 ] && continue
    line="$line $1/$2:$(run7 $S $R ${sh#*x} softmax $dt $G REDUCE_STREAM_K=$k REDUCE_STREAM_GROUPS=$gg)"; done; echo "$line"; done; done; done | tee $O/groups.txt
REDUCE_VERBOSE=1 REDUCE_STREAM=1 REDUCE_STREAM_NBUF=2 REDUCE_STREAM_K=16 REDUCE_STREAM_GROUPS=16 $S --variant dispatch --rows 32 --cols 128256 --dtype f32 --op softmax --check-only 2>&1 | grep "dispatch" >> $O/groups.txt
cd /tmp && tar czf $OUT/21.tgz 21_three
