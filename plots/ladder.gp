# ladder.gp: full-array sum at the standard size, one bar per stage/variant.
#
# Input (written by build/results from run.csv):
#   vars               nb bars, nlabel (n), gpu, date, src, cub, ceil (-1 if absent),
#                      has_cub, has_ceil, xmax
#   ladder.dat         index  GB/s  pct_of_ceiling  stage_number  "stage/variant"
#   ladder_cub.dat     two points: the CUB line;  ladder_ceil.dat: the ceiling line
# Bars run top to bottom in ladder order; each says its GB/s and its percent
# of the ceiling measured in the same run.

load vars
H = (120 + 26*nb > 560) ? 120 + 26*nb : 560
load gpdir.'/common.gp'

set title sprintf("Full-array float sum, n = %s: one bar per stage/variant, ladder order\n%s, %s (%s)", nlabel, gpu, date, src)
set xlabel 'GB/s  (bytes the sum must read / median time)'
set xrange [0:xmax]
set yrange [nb + 0.6 : 0.4]
set ytics nomirror scale 0
set grid xtics noytics
set border 1
set key below horizontal Left reverse samplen 4 width 2
set style fill solid 0.9 noborder

inside = 0.25 * xmax   # bars longer than this carry their label inside

# One colour per stage: the hues of common.gp, darkened so that white text
# on the bar stays readable (contrast about 4.5:1 or more).
array BAR[10] = [0x0072b2, 0xa66200, 0x00785a, 0xb34700, 0xa0537f, 0x2f6f9f, 0x7a4a3f, 0x5b3a8c, 0x5d6b00, 0x006d75]
bar_rgb(stage) = BAR[int(stage - 1) % 10 + 1]

# reference lines first, so that the bars are drawn over them
refs = ''
if (has_ceil) { refs = refs . sprintf("'%s/ladder_ceil.dat' using 1:2 with lines ls 102 title sprintf('ceiling: read-only stream  %%.0f GB/s', ceil), ", dir) }
if (has_cub)  { refs = refs . sprintf("'%s/ladder_cub.dat' using 1:2 with lines ls 101 title sprintf('CUB DeviceReduce::Sum  %%.0f GB/s', cub), ", dir) }

eval 'plot ' . refs . \
     "dir.'/ladder.dat' using ($2/2):1:($2/2):(0.36):(bar_rgb($4)):ytic(5) with boxxyerror lc rgb variable notitle, " . \
     "'' using ($2 >= inside ? $2 : NaN):1:(sprintf('%.0f GB/s  %.0f%% ', $2, $3)) with labels right textcolor rgb '#ffffff' notitle, " . \
     "'' using ($2 < inside ? $2 : NaN):1:(sprintf(' %.0f GB/s  %.0f%%', $2, $3)) with labels left textcolor rgb '#000000' notitle"
