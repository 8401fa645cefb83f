#!/bin/bash
# H200: this tree (clusters by message) against the tree before it (86f57bb: cluster.sync), one call
export PATH=/usr/local/cuda/bin:$PATH
O=/tmp/h200_msg; mkdir -p $O; cp .devrun/call16.sh .devrun/commit.txt $O/; nvidia-smi -L > $O/gpu.txt
timeout 120 build/test_gpu > $O/suite.txt 2>&1; echo "suite rc=$?"; grep -E "gpu:" $O/suite.txt
r6() { timeout 60 $1 --variant dispatch --rows ${2%x*} --cols ${2#*x} --iters 100 --warmup 10 2>&1 | awk '/^dispatch/{printf "%s/%s/%s",$5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
r7() { timeout 60 $1 --variant dispatch --rows ${2%x*} --cols ${2#*x} --op softmax --dtype $3 --iters 50 --warmup 5 2>&1 | awk '/^dispatch/{printf "%s/%s/%s",$5,$6,$8} /rror|FAIL/{printf "ERR"}'; }
for rep in 1 2; do
  if [ $rep = 2 ]; then o6="build/06_coop_groups .devrun/v/06_old"; o7="build/07_softmax .devrun/v/07_old"; else o6=".devrun/v/06_old build/06_coop_groups"; o7=".devrun/v/07_old build/07_softmax"; fi
  for sh in 1x262144 8x131072 32x128256 64x32000; do line="$rep rowsum $sh"; for b in $o6; do line="$line ${b##*/}=$(r6 $b $sh)"; done; echo "$line"; done
  for sh in 64x32000 48x50257 256x151936 1024x65536; do for dt in f32 bf16; do line="$rep softmax $sh $dt"; for b in $o7; do line="$line ${b##*/}=$(r7 $b $sh $dt)"; done; echo "$line"; done; done
done | tee $O/ab.txt
cd /tmp && tar czf $OUT/h200_msg.tgz h200_msg
