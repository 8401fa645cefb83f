# sweep.gp: full-sum GB/s against n for the key variants (the best of each
# stage at the largest n, and any variant that beats CUB by 10% somewhere),
# CUB and the read-only ceiling.
#
# Input (written by build/results from sweep.csv):
#   vars                 ns, T[i], LW[i] series; nr, RT[j], RS[j] references;
#                        xlo, xhi (n range); kmin, kmax (log2 of the powers of two
#                        inside it); umin, umax (time range); gpu, date, src
#   sweep_s<i>.dat       n  GB/s  median_us      (one file per series)
#   sweep_r<j>.dat       the same for reference j

load vars
load gpdir.'/common.gp'

set title sprintf("Full-array float sum: GB/s against n (key variants)\n%s, %s (%s)", gpu, date, src)
set xlabel 'n (elements, log scale)'
set ylabel 'GB/s'
set logscale x 2
set xrange [xlo / 1.15 : xhi * 1.15]
set xtics ()
set for [k=kmin + kmin % 2 : kmax : 2] xtics add (sprintf('2^%d', k) 2**k)
set yrange [0:*]

call gpdir.'/lines.gp' 'sweep' 2
