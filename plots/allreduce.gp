# allreduce.gp: 08_all_reduce's bus bandwidth against n on G GPUs, one line per variant, the
# peer copy (every GPU to the next at once) as the ceiling.
#
# Input (written by build/results from each allreduce*.csv, one plot per GPU count G = rows):
#   vars                  ns, T[i], LW[i] series (gather_broadcast, ring, nccl); nr, RT[j], RS[j]
#                         references (the peer_copy baseline, line style 102); xlo, xhi (n range);
#                         kmin, kmax (log2 of the powers of two inside it); gpus (G); gpu, date, src
#   allreduce_s<i>.dat    n  busbw GB/s (the CSV's gbps)  median_us   (one file per series)
#   allreduce_r<j>.dat    the same for reference j
# busbw = algbw x 2(G-1)/G, algbw = 4n / time (nccl-tests): the bytes each GPU's link carries.

load vars
load gpdir.'/common.gp'

set title sprintf("All-reduce of n floats on %d GPUs: bus bandwidth against n\n%s, %s (%s)", \
                  gpus, gpu, date, src)
set xlabel 'n (floats on each GPU, log scale)'
set ylabel 'busbw GB/s'
set logscale x 2
set xrange [xlo / 1.15 : xhi * 1.15]
set xtics ()
set for [k=kmin + kmin % 2 : kmax : 2] xtics add (sprintf('2^%d', k) 2**k)
set yrange [0:*]

call gpdir.'/lines.gp' 'allreduce' 2
