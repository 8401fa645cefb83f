# shapes.gp: real-world shapes (LLM logits, attention rows, classifiers), one
# group of bars per shape: the lesson's dispatch and its baselines and peer,
# each as a percent of the ceiling measured at the same shape; for softmax, a
# mark over each bar at the serialised floor (read-only + write-only stream).
#
# Input (written by build/results from shapes.csv and peer.csv):
#   vars               name (file prefix), ttl, ylab; ngroups shapes; ns series,
#                      T[i] titles, COL[i] colours (0xRRGGBB); ymax; marks (how
#                      many); gpu, date, src
#   <name>.dat         "RxC"  percent of series 1 .. ns  (NaN: not measured)
#   <name>_marks.dat   x_left  percent  width: one mark over a bar

load vars
W = 1100
load gpdir.'/common.gp'

set title sprintf("%s\n%s, %s (%s)", ttl, gpu, date, src)
set ylabel ylab
set xlabel marks ? 'shape (rows x cols); black marks: the serialised floor (read-only + write-only stream time) as % of copy' : 'shape (rows x cols)'
set yrange [0:ymax]
set xrange [-0.6 : ngroups - 0.4]
set ytics 10
set grid ytics noxtics
set border 3
set xtics nomirror scale 0
set key below horizontal Left reverse samplen 2 width 1 maxrows 2
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.95 noborder
set boxwidth 1

# the 100% line first, so that the bars stay in front of it
set arrow 1 from graph 0, first 100 to graph 1, first 100 nohead lc rgb '#444444' dt (10,4,2,4) lw 1.5 back

eval 'plot ' . \
    "for [i=1:ns] dir.'/'.name.'.dat' using (column(i+1)):xtic(1) lc rgb COL[i] title T[i], " . \
    "dir.'/'.name.'_marks.dat' using 1:2:3:(0) with vectors nohead lc rgb '#000000' lw 3 notitle"
