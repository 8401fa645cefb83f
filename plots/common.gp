# common.gp: terminal, size and line styles shared by every plot.
#
# Loaded by the other scripts after their vars file. The caller sets
#   fmt   'png' or 'svg'
#   out   the image file to write
#   W, H  size in pixels (optional; 1000 x 560 reads well at README width)
# Text is 'noenhanced' so that names such as 06_coop_groups keep their
# underscores instead of turning them into subscripts.

if (!exists("W")) W = 1000
if (!exists("H")) H = 560

if (fmt eq 'svg') {
    set terminal svg size W,H dynamic noenhanced font 'sans,12' background '#ffffff'
} else {
    if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
        set terminal pngcairo size W,H noenhanced font 'sans,11' background '#ffffff'
    } else {
        # libgd fallback: fewer fonts, no antialiasing, same layout
        set terminal png size W,H noenhanced background '#ffffff'
    }
}
set output out

# One colour and marker per series, in series order. The colours are the
# Okabe-Ito set (distinguishable with the common colour-vision deficiencies)
# extended with darker tones; yellow is left out because it vanishes on white.
set linetype 1  lc rgb '#0072b2' lw 2 pt 7  ps 1.0 dt 1
set linetype 2  lc rgb '#e69f00' lw 2 pt 5  ps 1.0 dt 1
set linetype 3  lc rgb '#009e73' lw 2 pt 9  ps 1.2 dt 1
set linetype 4  lc rgb '#d55e00' lw 2 pt 11 ps 1.2 dt 1
set linetype 5  lc rgb '#cc79a7' lw 2 pt 13 ps 1.2 dt 1
set linetype 6  lc rgb '#56b4e9' lw 2 pt 15 ps 1.2 dt 1
set linetype 7  lc rgb '#8c564b' lw 2 pt 1  ps 1.2 dt 1
set linetype 8  lc rgb '#6a3d9a' lw 2 pt 2  ps 1.2 dt 1
set linetype 9  lc rgb '#7a8a00' lw 2 pt 3  ps 1.2 dt 1
set linetype 10 lc rgb '#17838f' lw 2 pt 6  ps 1.0 dt 1
set linetype 11 lc rgb '#b2182b' lw 2 pt 4  ps 1.0 dt 1
set linetype 12 lc rgb '#1a1a66' lw 2 pt 8  ps 1.2 dt 1
set linetype cycle 12

# Reference series (what the stages are measured against), in black/grey:
# 101 a library (CUB), 102 the measured ceiling, 103 a peer (PyTorch),
# 104 a second library (cuBLAS).
set style line 101 lc rgb '#000000' lw 2   pt 4 ps 1.0 dt 2
set style line 102 lc rgb '#444444' lw 2   pt 0 ps 0   dt (10,4,2,4)
set style line 103 lc rgb '#000000' lw 2   pt 6 ps 1.0 dt 4
set style line 104 lc rgb '#555555' lw 2   pt 12 ps 1.2 dt 3

set border 3
set tics nomirror out
set grid back lc rgb '#dddddd' lw 1 dt 1
set key outside right top vertical Left reverse samplen 3 spacing 1.1 width 1
