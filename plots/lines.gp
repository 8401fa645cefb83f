# lines.gp: the plot command shared by the line plots.
#
#   call gpdir.'/lines.gp' PREFIX YCOLUMN
#
# Draws <dir>/PREFIX_s<i>.dat for i = 1..ns (linetype i, width LW[i], title
# T[i]) and <dir>/PREFIX_r<j>.dat for j = 1..nr (line style RS[j], title
# RT[j]), column 1 against column YCOLUMN. The command is built as a string
# because gnuplot runs a 'plot for [j=1:0]' clause once instead of not at all.

lines_cmd = ''
do for [i=1:ns] {
    lines_cmd = lines_cmd . sprintf("'%s/%s_s%d.dat' using 1:%s with linespoints lt %d lw %g title T[%d], ", \
                                    dir, ARG1, i, ARG2, i, LW[i], i)
}
do for [j=1:nr] {
    lines_cmd = lines_cmd . sprintf("'%s/%s_r%d.dat' using 1:%s with linespoints ls %d title RT[%d], ", \
                                    dir, ARG1, j, ARG2, RS[j], j)
}
eval 'plot ' . lines_cmd[1:strlen(lines_cmd) - 2]
