# littles_law.gp: Little's law on the ladder: each full-sum variant's GB/s
# (run.csv) against the bytes it keeps in flight per SM (profile.csv, Nsight
# Compute). Bandwidth = bytes in flight / latency: a variant reaches the
# ceiling only once it keeps enough bytes in flight.
#
# Input (written by build/results from run.csv and profile.csv):
#   vars               np points, nlabel (n), ceil (read ceiling GB/s, -1 if absent),
#                      has_ceil, xlo, xhi (KB in flight), ymax; gpu, date, src
#   littles_law.dat    KB_in_flight_per_SM  GB/s  "stage/variant"  stage_number  label_y
#                      (label_y: the label's height, moved down where points crowd)

load vars
load gpdir.'/common.gp'

set title sprintf("Full-array float sum, n = %s: GB/s against bytes in flight per SM (Little's law)\n%s, %s (%s)", nlabel, gpu, date, src)
set xlabel 'bytes in flight per SM (KB, log scale; Nsight Compute)'
set ylabel 'GB/s (timed median)'
set logscale x 2
set xrange [xlo / 1.6 : xhi * 6]   # room on the right for the labels
set yrange [0:ymax]
set grid xtics ytics
set key below horizontal Left reverse samplen 4 width 2

# one colour per stage, as in the ladder
array BAR[10] = [0x0072b2, 0xa66200, 0x00785a, 0xb34700, 0xa0537f, 0x2f6f9f, 0x7a4a3f, 0x5b3a8c, 0x5d6b00, 0x006d75]
stage_rgb(stage) = BAR[int(stage - 1) % 10 + 1]

ref = ''
if (has_ceil) { ref = sprintf("%g with lines ls 102 title sprintf('ceiling: read-only stream  %%.0f GB/s', ceil), ", ceil) }
eval 'plot ' . ref . \
    "dir.'/littles_law.dat' using 1:2:(0):($5 - $2) with vectors nohead lc rgb '#999999' lw 1 notitle, " . \
    "'' using 1:2:(stage_rgb($4)) with points pt 7 ps 1.6 lc rgb variable notitle, " . \
    "'' using 1:5:3 with labels left offset 1,0 font ',9' notitle"
