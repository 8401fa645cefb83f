# rows.gp: row sums at a fixed element count, GB/s against the row length.
#
# Input (written by build/results from rows.csv):
#   vars               ns, T[i], LW[i]; nr, RT[j], RS[j]; xlo, xhi, kmin, kmax (cols range, log2);
#                      elements; gpu, date, src
#   rows_s<i>.dat      cols  GB/s  median_us;  rows_r<j>.dat likewise

load vars
load gpdir.'/common.gp'

set title sprintf("Row sums of %s elements: GB/s against row length\n%s, %s (%s)", elements, gpu, date, src)
set xlabel 'cols (row length, log scale; rows = elements / cols)'
set ylabel 'GB/s'
set logscale x 2
set xrange [xlo / 1.15 : xhi * 1.15]
set xtics ()
set for [k=kmin:kmax:1] xtics add (sprintf('%d', 2**k) 2**k)
set xtics rotate by -45
set yrange [0:*]

call gpdir.'/lines.gp' 'rows' 2
