#!/bin/bash
# exploration (e6b4f60 build): verbose plans; 256 x 151936 looping groups and K; bf16 vs f16 at 16384; F2FP counts
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/x59; mkdir -p $O; cp .devrun/call59.sh .devrun/commit.txt $O/; nvidia-smi -L | tee $O/gpu.txt
S=build/07_softmax
run7() { timeout 60 env "$@" $S --variant dispatch --rows $R --cols $C --op $OP --dtype $DT --iters 100 --warmup 10 | awk '/^dispatch/{printf "%s/%s",$5,$8}'; }
{
for sh in "512 131072 bf16" "1024 65536 f32" "1024 65536 bf16" "256 151936 f32" "256 151936 bf16" "256 151936 f16" "4096 16384 bf16" "4096 16384 f16" "4096 16384 f32" "300 60001 f16" "300 60001 f32" "64 32000 f32" "64 32000 bf16" "32 128256 f32" "32 128256 bf16"; do
  set -- $sh; REDUCE_VERBOSE=1 timeout 30 $S --variant dispatch --rows $1 --cols $2 --op softmax --dtype $3 --check-only 2>&1 | grep -E 'plan|dispatch|07_softmax' | head -3
done
} > $O/plans.txt 2>&1; cat $O/plans.txt
{
echo "256 x 151936: default | GROUPS=g ... (median/%copy)"
for DT in f32 bf16; do R=256 C=151936 OP=softmax
  for rd in 1 2; do
    line="$DT r$rd default:$(run7)"
    for g in 32 40 43 46 64 86; do line="$line G$g:$(run7 REDUCE_STREAM_GROUPS=$g)"; done
    echo "$line"
  done
done
for DT in bf16 f16; do R=256 C=151936 OP=softmax
  for rd in 1 2; do
    echo "$DT r$rd default:$(run7) K3N2:$(run7 REDUCE_STREAM_K=3 REDUCE_STREAM_NBUF=2) K2ring:$(run7 REDUCE_STREAM_RING=1) K4N2:$(run7 REDUCE_STREAM_K=4 REDUCE_STREAM_NBUF=2) K3:$(run7 REDUCE_STREAM_K=3)"
  done
done
echo "4096 x 16384 (threads)"
for DT in bf16 f16 f32; do R=4096 C=16384
  for OP in softmax logsoftmax; do
  for rd in 1 2; do
    echo "$DT $OP r$rd default:$(run7) T128:$(run7 REDUCE_STREAM_THREADS=128) T256:$(run7 REDUCE_STREAM_THREADS=256) T512:$(run7 REDUCE_STREAM_THREADS=512) N2:$(run7 REDUCE_STREAM_NBUF=2) S0:$(run7 REDUCE_STREAM=0)"
  done; done
done
} 2>&1 | tee $O/explore.txt
cuobjdump -sass $S > $O/sass.txt 2>/dev/null
awk '/Function :/{f=$3} /F2FP|F2F\.|PRMT|SHF|IMAD.U32/{split($0,a," "); for(i=1;i<=NF;i++) if($i ~ /^(F2FP|F2F|PRMT)/){c[f" "$i]++}} END{for(k in c) print c[k], k}' $O/sass.txt | grep -i stream | sort -k2 | head -80 > $O/f2fp.txt; wc -l $O/f2fp.txt
gzip $O/sass.txt
cd /tmp && tar czf $OUT/x59.tgz x59
