# softmax.gp: softmax (or log-softmax) GB/s against row length for one dtype:
# each path, the dispatcher (thicker line), the copy ceiling and PyTorch.
#
# Input (written by build/results from softmax.csv and peer.csv):
#   vars               pfx (file prefix), opname, dtname; ns, T[i], LW[i];
#                      nr, RT[j], RS[j]; xlo, xhi, kmin, kmax; elements; gpu, date, src
#   <pfx>_s<i>.dat     cols  GB/s  median_us;  <pfx>_r<j>.dat likewise

load vars
load gpdir.'/common.gp'

set title sprintf("%s %s of %s elements: GB/s against row length (reads + writes)\n%s, %s (%s)", opname, dtname, elements, gpu, date, src)
set xlabel 'cols (row length, log scale; rows = elements / cols)'
set ylabel 'GB/s'
set logscale x 2
set xrange [xlo / 1.15 : xhi * 1.15]
set xtics ()
set for [k=kmin:kmax:1] xtics add (sprintf('%d', 2**k) 2**k)
set xtics rotate by -45
set yrange [0:*]

call gpdir.'/lines.gp' pfx 2
