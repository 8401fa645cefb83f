# latency.gp: the small-n view of the sweep: median time against n for
# n <= 2^20, where launches and the final pass cost more than the bytes.
#
# Input: the same layout as sweep.gp, files latency_s<i>.dat / latency_r<j>.dat
# (columns n  GB/s  median_us), already cut to n <= 2^20.

load vars
load gpdir.'/common.gp'

set title sprintf("Full-array float sum, small n: median time against n (lower is better)\n%s, %s (%s)", gpu, date, src)
set xlabel 'n (elements, log scale)'
set ylabel 'median time (us, log scale)'
set logscale x 2
set logscale y 10
set xrange [xlo / 1.15 : xhi * 1.15]
set xtics ()
set for [k=kmin:kmax:1] xtics add (sprintf('2^%d', k) 2**k)
set yrange [umin / 1.25 : umax * 1.25]
set ytics ()
set for [e=-1:6] for [m in '1 1.5 2 3 5 7'] ytics add (sprintf('%g', m*10.0**e) m*10.0**e)
set grid xtics ytics

call gpdir.'/lines.gp' 'latency' 3
