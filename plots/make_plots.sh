#!/bin/sh
# make_plots.sh RESULTS_DIR OUT_DIR: draw the README plots from the CSVs.
#
#   plots/make_plots.sh results plots/out
#
# Reads run.csv, sweep.csv, rows.csv, softmax.csv and peer.csv (any may be
# missing: its plot is skipped with a note) from RESULTS_DIR, cuts them with
# awk into one small data file per series in a temporary folder, and runs
# the gnuplot scripts beside this file on them. Writes, for each plot, a PNG
# (pngcairo where gnuplot has it, else png) and an SVG into OUT_DIR, and
# prints one line per image written.
#
#   ladder                  run.csv: full sum at the largest n, one bar per stage/variant
#   sweep                   sweep.csv: GB/s against n, best variant of each stage
#   latency                 sweep.csv: median time against n for n <= 2^20
#   rows                    rows.csv: row-sum GB/s against cols
#   softmax_f32, _f16       softmax.csv (+ peer.csv): softmax GB/s against cols
#   logsoftmax_f32, _f16    the same for log-softmax
#
# Only rows whose check is "ok" are drawn; skipped FAIL rows are counted on
# stderr. Exit status: 0 at least one plot drawn, 1 none drawn, 2 usage,
# 3 gnuplot missing.

prog=make_plots.sh

if [ $# -ne 2 ]; then
    echo "usage: $0 RESULTS_DIR OUT_DIR" >&2
    exit 2
fi
results=$1
out=$2

if [ ! -d "$results" ]; then
    echo "$prog: no results folder '$results' (run 'make run' or 'make sweep' first)" >&2
    exit 2
fi
if ! command -v gnuplot >/dev/null 2>&1; then
    echo "$prog: gnuplot not found; install it (Debian/Ubuntu: apt-get install gnuplot-nox)" >&2
    exit 3
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd) || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/make_plots.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# gnuplot single-quoted string contents: a quote is written twice
gpq() { printf '%s' "$1" | sed "s/'/''/g"; }

# ---------------------------------------------------------------------------
# awk library: CSV reading by header name, medians, and the writer of the
# per-series files and the gnuplot 'vars' file. Each plot's program below
# defines want() (which rows it reads), record() (what it keeps) and
# finish() (what it writes); finish() exits 4 when there is nothing to draw.
# ---------------------------------------------------------------------------
AWK_LIB='
function trim(s) { sub(/^[ \t\r]+/, "", s); sub(/[ \t\r]+$/, "", s); return s }
function warn(msg) { print prog ": " msg | "cat 1>&2" }
function base(path) { sub(/.*\//, "", path); return path }
function gq(s) { gsub(/\047/, "\047\047", s); return "\047" s "\047" }
function isnum(s) { return s ~ /^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$/ }
function log2(x) { return log(x) / log(2) }
function floor2(x,  k) { k = int(log2(x) + 1e-9); return k }
function ceil2(x,  k) { k = int(log2(x) - 1e-9); if (2 ^ k < x) k++; return k }
# "2^28" for powers of two, the number otherwise
function nlab(n,  k) { k = int(log2(n) + 0.5); return (2 ^ k == n) ? "2^" k : sprintf("%.0f", n) }
# median of a space-separated list of numbers
function median(list,   a, n, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) {
        t = a[i] + 0
        for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]
        a[j + 1] = t
    }
    if (n == 0) return ""
    return (n % 2) ? a[(n + 1) / 2] + 0 : (a[n / 2] + a[n / 2 + 1]) / 2
}

# add one measurement to series key at x
function add(key, x) {
    if (!(key in known)) { known[key] = ++nkeys; keyat[nkeys] = key }
    GB[key, x] = GB[key, x] " " G
    US[key, x] = US[key, x] " " U
    if (!(x in xseen)) { xseen[x] = 1; xs[++nx] = x }
}
function sort_xs(   i, j, t) {
    for (i = 2; i <= nx; i++) {
        t = xs[i]
        for (j = i - 1; j >= 1 && xs[j] + 0 > t + 0; j--) xs[j + 1] = xs[j]
        xs[j + 1] = t
    }
}
# the baseline series for variant v: its f32 rows where there are any,
# else the first dtype seen; "" if none
function pick_base(v,   i, k, first) {
    first = ""
    for (i = 1; i <= nkeys; i++) {
        k = keyat[i]
        split(k, p, SUBSEP)
        if (p[1] != "baseline" || p[2] != v) continue
        if (p[3] == "f32") return k
        if (first == "") first = k
    }
    return first
}
# write one data file per series, x within [lo, hi]; 1 if it had points
function write_series(key, file, lo, hi,   i, x, n, u) {
    n = 0
    for (i = 1; i <= nx; i++) {
        x = xs[i]
        if (x + 0 < lo || x + 0 > hi || !((key, x) in GB)) continue
        u = median(US[key, x])
        printf "%s %s %s\n", x, median(GB[key, x]), u > file
        n++
        if (umin == "" || u < umin) umin = u
        if (u > umax) umax = u
        if (x + 0 < xmin || xmin == "") xmin = x + 0
        if (x + 0 > xmax) xmax = x + 0
    }
    if (n) close(file)
    return n > 0
}
# Write pfx_s<i>.dat for the keys S[1..ns] (titles ST[], widths SW[]) and
# pfx_r<j>.dat for R[1..nr] (titles RTT[], styles RST[]) with x in [lo, hi],
# then pfx.vars with "extra" appended. Returns the number of series written.
function emit(pfx, lo, hi, extra,   i, m, r, f, v) {
    sort_xs()
    xmin = ""; xmax = 0; umin = ""; umax = 0
    f = dir "/" pfx
    m = 0
    for (i = 1; i <= ns; i++)
        if (write_series(S[i], f "_s" (m + 1) ".dat", lo, hi)) { m++; tt[m] = ST[i]; ww[m] = SW[i] }
    if (m == 0) return 0
    r = 0
    for (i = 1; i <= nr; i++)
        if (R[i] != "" && write_series(R[i], f "_r" (r + 1) ".dat", lo, hi)) { r++; rt[r] = RTT[i]; rs[r] = RST[i] }
    v = f ".vars"
    print header() > v
    printf "ns = %d\narray T[%d]\narray LW[%d]\n", m, m, m > v
    for (i = 1; i <= m; i++) printf "T[%d] = %s\nLW[%d] = %s\n", i, gq(tt[i]), i, ww[i] > v
    printf "nr = %d\narray RT[%d]\narray RS[%d]\n", r, (r ? r : 1), (r ? r : 1) > v
    for (i = 1; i <= r; i++) printf "RT[%d] = %s\nRS[%d] = %d\n", i, gq(rt[i]), i, rs[i] > v
    # x range of the data, the powers of two inside it (for tics), the time range
    printf "xlo = %s\nxhi = %s\nkmin = %d\nkmax = %d\numin = %s\numax = %s\n%s\n", \
        xmin, xmax, ceil2(xmin), floor2(xmax), umin, umax, extra > v
    close(v)
    return m
}
function header(   d) {
    d = date_c
    if (d ~ /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]/) d = substr(d, 1, 10)
    if (d == "") d = "date unknown"
    return "gpu = " gq(gpu_c != "" ? gpu_c : (gpu_r != "" ? gpu_r : "unknown GPU")) \
           "\ndate = " gq(d) "\nsrc = " gq(srcname)
}
# sort keys so stages come in ladder order (01_ before 02_), first seen first within a stage
function ladder_order(   i, j, t, a, b) {
    for (i = 1; i <= nkeys; i++) ord[i] = keyat[i]
    for (i = 2; i <= nkeys; i++) {
        t = ord[i]; split(t, a, SUBSEP)
        for (j = i - 1; j >= 1; j--) {
            split(ord[j], b, SUBSEP)
            if (b[1] <= a[1]) break
            ord[j + 1] = ord[j]
        }
        ord[j + 1] = t
    }
}
function label(k,   p) {
    split(k, p, SUBSEP)
    return p[1] "/" p[2] (p[3] != "f32" ? " (" p[3] ")" : "")
}
function is_ref(stage) { return stage == "baseline" || stage == "peer" }

BEGIN { FS = ","; nkeys = 0; nx = 0; srcname = "" }
FNR == 1 { file = FILENAME; hdr = 0; if (srcname == "") srcname = base(FILENAME) }
{ sub(/\r$/, "") }
/^[ \t]*#/ {
    line = $0; sub(/^[ \t]*#[ \t]*/, "", line)
    if (gpu_c == "" && line ~ /^gpu:/) { sub(/^gpu:[ \t]*/, "", line); gpu_c = line }
    else if (date_c == "" && line ~ /^date:/) { sub(/^date:[ \t]*/, "", line); date_c = line }
    next
}
/^[ \t]*$/ { next }
!hdr {
    hdr = NF
    for (i = 1; i <= NF; i++) C[trim($i)] = i
    nneed = split("gpu stage variant op dtype rows cols median_us gbps pct_of_ceiling check", need, " ")
    for (i = 1; i <= nneed; i++)
        if (!(need[i] in C)) { warn(base(file) ":" FNR ": header has no column " need[i]); bad = 1; exit 2 }
    next
}
NF != hdr { nbad[base(file)]++; next }
{
    SG = trim($C["stage"]); V = trim($C["variant"]); OP = trim($C["op"]); DT = trim($C["dtype"])
    RW = trim($C["rows"]) + 0; N = trim($C["cols"]) + 0
    if (!want()) next
    if (trim($C["check"]) != "ok") { nfail[base(file)]++; next }
    if (!isnum(trim($C["gbps"])) || !isnum(trim($C["median_us"]))) { nbad[base(file)]++; next }
    G = trim($C["gbps"]) + 0; U = trim($C["median_us"]) + 0; P = trim($C["pct_of_ceiling"]) + 0
    if (gpu_r == "") gpu_r = trim($C["gpu"])
    record()
}
END {
    if (bad) exit 2
    for (f in nfail) warn(what ": skipped " nfail[f] " FAIL row(s) of " f)
    for (f in nbad) warn(what ": skipped " nbad[f] " malformed row(s) of " f)
    finish()
}
'

# ---- ladder: run.csv, op sum at the largest n ------------------------------
AWK_LADDER='
function want() { return OP == "sum" }
function record() { nrec++; rs_[nrec] = SG; rv_[nrec] = V; rd_[nrec] = DT; rn_[nrec] = N; rg_[nrec] = G; rp_[nrec] = P }
function finish(   i, k, n, maxn, nb, top, f, cub, ceil, b) {
    maxn = 0
    for (i = 1; i <= nrec; i++) if (!is_ref(rs_[i]) && rn_[i] > maxn) maxn = rn_[i]
    if (maxn == 0) { warn(what ": no ok full-sum rows in " srcname "; skipped"); exit 4 }
    nb = 0; nst = 0; top = 0
    for (i = 1; i <= nrec; i++) {
        if (rn_[i] != maxn || rs_[i] == "peer") continue
        if (rs_[i] == "baseline") { bk = rv_[i] SUBSEP rd_[i]; BL[bk] = BL[bk] " " rg_[i]; continue }
        k = rs_[i] SUBSEP rv_[i] SUBSEP rd_[i]
        if (!(k in bar)) { bar[k] = ++nb; lab[nb] = label(k); stg[nb] = rs_[i] }
        if (!(rs_[i] in sidx)) sidx[rs_[i]] = ++nst
        bg[bar[k]] = bg[bar[k]] " " rg_[i]; bp[bar[k]] = bp[bar[k]] " " rp_[i]
    }
    f = dir "/ladder.dat"
    for (i = 1; i <= nb; i++) {
        b = median(bg[i]); if (b > top) top = b
        printf "%d %s %s %d \"%s\"\n", i, b, median(bp[i]), sidx[stg[i]], lab[i] > f
    }
    close(f)
    cub = base_median("cub_device_reduce"); ceil = base_median("read_stream")
    if (cub > top) top = cub
    if (ceil > top) top = ceil
    if (cub > 0) printf "%s 0.4\n%s %s\n", cub, cub, nb + 0.6 > (dir "/ladder_cub.dat")
    if (ceil > 0) printf "%s 0.4\n%s %s\n", ceil, ceil, nb + 0.6 > (dir "/ladder_ceil.dat")
    f = dir "/ladder.vars"
    print header() > f
    printf "nb = %d\nnlabel = %s\ncub = %s\nceil = %s\nhas_cub = %d\nhas_ceil = %d\nxmax = %s\n", \
        nb, gq(nlab(maxn)), cub + 0, ceil + 0, (cub > 0), (ceil > 0), top * 1.04 > f
    close(f)
}
function base_median(v) {
    if ((v SUBSEP "f32") in BL) return median(BL[v SUBSEP "f32"])
    for (k in BL) { split(k, p, SUBSEP); if (p[1] == v) return median(BL[k]) }
    return -1
}
'

# ---- sweep and latency: sweep.csv, op sum ----------------------------------
AWK_SWEEP='
function want() { return OP == "sum" }
function record() { add(SG SUBSEP V SUBSEP DT, N) }
function finish(   i, k, st, best, top, n, g, lastn, m1, m2) {
    ladder_order()
    # best variant of each stage: highest median GB/s at that stage s largest n
    for (i = 1; i <= nkeys; i++) {
        k = ord[i]; split(k, p, SUBSEP); st = p[1]
        if (is_ref(st)) continue
        for (n in xseen) if ((k, n) in GB && n + 0 > lastn[st] + 0) lastn[st] = n
    }
    ns = 0
    for (i = 1; i <= nkeys; i++) {
        k = ord[i]; split(k, p, SUBSEP); st = p[1]
        if (is_ref(st) || !((k, lastn[st]) in GB)) continue
        g = median(GB[k, lastn[st]])
        if (!(st in best)) { best[st] = ++ns; S[ns] = k; top[st] = g }
        else if (g > top[st]) { S[best[st]] = k; top[st] = g }
    }
    for (i = 1; i <= ns; i++) { ST[i] = label(S[i]); SW[i] = 2 }
    nr = 2
    R[1] = pick_base("cub_device_reduce"); RTT[1] = "CUB DeviceReduce::Sum"; RST[1] = 101
    R[2] = pick_base("read_stream");       RTT[2] = "ceiling: read-only stream"; RST[2] = 102
    m1 = emit("sweep", 0, 1e300, "")
    m2 = emit("latency", 0, 2 ^ 20, "")
    if (m1 == 0) { warn(what ": no ok full-sum rows of a stage in " srcname "; skipped"); exit 4 }
    if (m2 == 0) { warn("latency: no ok full-sum rows with n <= 2^20 in " srcname "; skipped"); system("rm -f \"" dir "/latency.vars\"") }
}
'

# ---- rows: rows.csv, op rowsum ---------------------------------------------
AWK_ROWS='
function want() { return OP == "rowsum" }
function record() { add(SG SUBSEP V SUBSEP DT, N); if (RW * N > elems) elems = RW * N }
function finish(   i, k, m) {
    ladder_order()
    ns = 0
    for (i = 1; i <= nkeys; i++) {
        k = ord[i]; split(k, p, SUBSEP)
        if (is_ref(p[1])) continue
        S[++ns] = k; ST[ns] = label(k); SW[ns] = (p[2] ~ /dispatch/) ? 3.5 : 2
    }
    nr = 2
    R[1] = pick_base("cub_segmented_reduce"); RTT[1] = "CUB DeviceSegmentedReduce::Sum"; RST[1] = 101
    R[2] = pick_base("read_stream");          RTT[2] = "ceiling: read-only stream"; RST[2] = 102
    if (emit("rows", 0, 1e300, "elements = " gq(nlab(elems))) == 0) {
        warn(what ": no ok row-sum rows of a stage in " srcname "; skipped"); exit 4
    }
}
'

# ---- softmax: softmax.csv + peer.csv, one op and one dtype -----------------
AWK_SOFTMAX='
function want() { return OP == op && DT == dt }
function record() {
    if (SG == "peer" && V != torch) return
    add(SG SUBSEP V SUBSEP DT, N)
    if (!is_ref(SG)) { if (RW * N > elems) elems = RW * N; if (!(SG in stages)) { stages[SG] = 1; nstages++ } }
}
function finish(   i, k, pfx, opname) {
    ladder_order()
    ns = 0
    for (i = 1; i <= nkeys; i++) {
        k = ord[i]; split(k, p, SUBSEP)
        if (is_ref(p[1])) continue
        S[++ns] = k; ST[ns] = (nstages == 1) ? p[2] : p[1] "/" p[2]
        SW[ns] = (p[2] ~ /dispatch/) ? 3.5 : 2
    }
    nr = 2
    R[1] = ""; R[2] = ""
    for (i = 1; i <= nkeys; i++) {
        k = keyat[i]; split(k, p, SUBSEP)
        if (p[1] == "baseline" && p[2] == "copy") R[1] = k
        if (p[1] == "peer" && p[2] == torch) R[2] = k
    }
    RTT[1] = "ceiling: device-to-device copy"; RST[1] = 102
    RTT[2] = "PyTorch " (op == "softmax" ? "torch.softmax" : "torch.log_softmax"); RST[2] = 103
    pfx = op "_" dt
    opname = (op == "softmax") ? "Softmax" : "Log-softmax"
    if (emit(pfx, 0, 1e300, "pfx = " gq(pfx) "\nopname = " gq(opname) "\ndtname = " gq(dt) \
             "\nelements = " gq(nlab(elems))) == 0) {
        warn(what ": no ok " op " " dt " rows of a stage in " srcname "; skipped"); exit 4
    }
}
'

drawn=0
tmpq=$(gpq "$tmp")
hereq=$(gpq "$here")

# draw SCRIPT IMAGE VARSFILE [W]: run plots/SCRIPT.gp once per format
draw() {
    for fmt in png svg; do
        img="$out/$2.$fmt"
        rm -f "$img"
        if gnuplot -e "fmt='$fmt'; dir='$tmpq'; gpdir='$hereq'; vars='$(gpq "$3")'; out='$(gpq "$img")'" \
                "$here/$1.gp" 2>"$tmp/gnuplot.err" && [ -s "$img" ]; then
            # gnuplot warnings (say, a series with no points) still matter
            if [ -s "$tmp/gnuplot.err" ]; then sed "s|^|$prog: $2.$fmt: |" "$tmp/gnuplot.err" >&2; fi
            echo "$img"
            drawn=$((drawn + 1))
        else
            echo "$prog: gnuplot failed on $2.$fmt:" >&2
            sed 's/^/    /' "$tmp/gnuplot.err" >&2
            rm -f "$img"
        fi
    done
}

# prep WHAT PROGRAM FILE...: cut the CSVs into $tmp; fails (status 4) when
# there is nothing to draw. The softmax cut also reads $op, $dt and $torch.
op= dt= torch=
prep() {
    what=$1 program=$2
    shift 2
    awk -v dir="$tmp" -v prog="$prog" -v what="$what" -v op="$op" -v dt="$dt" \
        -v torch="$torch" "$AWK_LIB$program" "$@"
}

missing() { echo "$prog: $1: no $results/$2; skipped"; }

if [ -f "$results/run.csv" ]; then
    prep ladder "$AWK_LADDER" "$results/run.csv" && draw ladder ladder "$tmp/ladder.vars"
else
    missing ladder run.csv >&2
fi

if [ -f "$results/sweep.csv" ]; then
    if prep sweep "$AWK_SWEEP" "$results/sweep.csv"; then
        draw sweep sweep "$tmp/sweep.vars"
        if [ -f "$tmp/latency.vars" ]; then draw latency latency "$tmp/latency.vars"; fi
    fi
else
    missing "sweep, latency" sweep.csv >&2
fi

if [ -f "$results/rows.csv" ]; then
    prep rows "$AWK_ROWS" "$results/rows.csv" && draw rows rows "$tmp/rows.vars"
else
    missing rows rows.csv >&2
fi

if [ -f "$results/softmax.csv" ]; then
    for op in softmax logsoftmax; do
        if [ "$op" = softmax ]; then torch=torch_softmax; else torch=torch_log_softmax; fi
        for dt in f32 f16; do
            if [ -f "$results/peer.csv" ]; then
                prep "${op}_$dt" "$AWK_SOFTMAX" "$results/softmax.csv" "$results/peer.csv"
            else
                prep "${op}_$dt" "$AWK_SOFTMAX" "$results/softmax.csv"
            fi && draw softmax "${op}_$dt" "$tmp/${op}_$dt.vars"
        done
    done
else
    missing softmax softmax.csv >&2
fi

if [ "$drawn" -eq 0 ]; then
    echo "$prog: no plot drawn from $results" >&2
    exit 1
fi
exit 0
