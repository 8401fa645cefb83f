# SPDX-License-Identifier: MIT
# profile_parse.awk: one stage's Nsight Compute exports -> rows of results/profile.csv (no
# header; a 16th field: whether the kernel used shared memory), in the order the variants ran.
#   awk -v stage=S -v metrics=LIST -f profile_parse.awk INFLIGHT RUN RENAMED REAL
# INFLIGHT: sass_inflight.awk's "mangled bytes"; RUN: the program's --csv (its shapes);
# RENAMED, REAL: the raw-page exports with kernels named after their NVTX ranges and by their
# mangled names; metrics: evidence_lib.sh's METRICS. A variant of several kernels: duration
# summed, other counters those of its longest kernel.

function parse_csv(line, f,    n, i, c, inq, field, len) {
    sub(/\r$/, "", line)
    n = 0
    field = ""
    inq = 0
    len = length(line)
    for (i = 1; i <= len; i++) {
        c = substr(line, i, 1)
        if (inq) {
            if (c == "\"") {
                if (substr(line, i + 1, 1) == "\"") { field = field "\""; i++ }
                else inq = 0
            } else field = field c
        } else if (c == "\"") inq = 1
        else if (c == ",") { f[++n] = field; field = "" }
        else field = field c
    }
    f[++n] = field
    return n
}

# a metric's text as a number string, or "" when it is missing or n/a
function clean_num(s) {
    gsub(/[ ,]/, "", s)
    return s ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ ? s : ""
}

function find_label(s) {
    if (match(s, LABEL_RE)) return substr(s, RSTART, RLENGTH)
    return ""
}

# bytes in flight per thread of a kernel (its mangled name); "" when unknown
function inflight_of(name) { return (name in inflight) ? inflight[name] : "" }

function fmt(v, spec) { return v == "" ? "" : sprintf(spec, v) }

BEGIN {
    LABEL_RE = "[A-Za-z0-9_]+/[A-Za-z0-9_]+/(sum|rowsum|softmax|logsoftmax)/(f32|f16|bf16)"
    nm = split(metrics, M, ",") # METRICS of evidence_lib.sh, -v metrics=...
    if (ARGC != 5) {
        print "usage: awk -f profile_parse.awk INFLIGHT RUN RENAMED REAL" > "/dev/stderr"
        exit 2
    }
    # each file is read here with getline: an empty one, or one named twice, is no problem
    read_inflight(ARGV[1])
    read_run(ARGV[2])
    read_export(ARGV[3], 3)
    read_export(ARGV[4], 4)
    exit report()
}

# 1: bytes in flight per kernel, by mangled name
function read_inflight(path,    line, a) {
    while ((getline line < path) > 0)
        if (split(line, a, " ") >= 2) inflight[a[1]] = a[2]
    close(path)
}

# 2: the program's CSV: the GPU's name and each variant's shape
function read_run(path,    line, f, n, key) {
    while ((getline line < path) > 0) {
        if (line ~ /^# gpu: /) {
            if (gpu == "") { gpu = line; sub(/^# gpu: /, "", gpu) }
            continue
        }
        if (line ~ /^#/ || line ~ /^gpu,stage,/) continue
        n = parse_csv(line, f)
        if (n < 7) continue
        if (gpu == "") gpu = f[1]
        key = f[2] "/" f[3] "/" f[4] "/" f[5]
        if (!(key in shape_rows)) { shape_rows[key] = f[6]; shape_cols[key] = f[7] }
    }
    close(path)
}

# 3 and 4: an export; 3 gives each kernel's range, 4 its real name and the metrics
function read_export(path, which,    line, f, n, i, hdr, units, col, idc, knc, id, lab, m, c,
                     u, v) {
    hdr = 0
    units = 0
    while ((getline line < path) > 0) {
        n = parse_csv(line, f)
        if (!hdr) {
            idc = 0
            knc = 0
            for (i = 1; i <= n; i++) {
                if (f[i] == "ID") idc = i
                if (f[i] == "Kernel Name") knc = i
            }
            if (idc && knc) {
                hdr = 1
                found_hdr[which] = 1
                for (i = 1; i <= n; i++) col[f[i]] = i
            }
            continue
        }
        id = f[idc]
        if (id !~ /^[0-9]+$/) {
            if (!units++) for (i = 1; i <= n; i++) unit_of[which, i] = f[i]
            continue
        }
        if (which == 3) {
            lab = find_label(f[knc])
            for (i = 1; lab == "" && i <= n; i++) lab = find_label(f[i])
            label3[id] = lab
            continue
        }
        if (!(id in seen4)) { ids[++nk] = id; seen4[id] = 1 }
        kname[id] = f[knc]
        lab = ""
        for (i = 1; lab == "" && i <= n; i++) if (i != knc) lab = find_label(f[i])
        label4[id] = lab
        for (m = 1; m <= nm; m++) {
            c = (M[m] in col) ? col[M[m]] : 0
            val[id, m] = c ? clean_num(f[c]) : ""
            if (m == 1 && c && val[id, m] != "") {
                u = unit_of[4, c]
                v = val[id, m] + 0
                if (u == "nsecond" || u == "ns" || u == "") v = v / 1000
                else if (u == "msecond" || u == "ms") v = v * 1000
                else if (u == "second" || u == "s") v = v * 1e6
                else if (u != "usecond" && u != "us") bad_unit = u
                dur[id] = v
            }
        }
    }
    close(path)
    if (which == 4 && hdr)
        for (m = 1; m <= nm; m++) if (!(M[m] in col)) missing = missing " " M[m]
}

function report(    problems, i, id, lab, p, rows, cols, bank, w, sect, b, bif, line, unnamed,
                  no_inflight, d, shared) {
    problems = !found_hdr[4]
    # group the kernels by their range, in the order they ran
    for (i = 1; i <= nk; i++) {
        id = ids[i]
        lab = (id in label3) && label3[id] != "" ? label3[id] : label4[id]
        if (lab == "") { unnamed++; continue }
        if (!(lab in nkern)) order[++nl] = lab
        nkern[lab]++
        if (id in dur) total[lab] += dur[id]
        d = (id in dur) ? dur[id] : -1
        if (!(lab in longest) || d > longest_us[lab]) { longest[lab] = id; longest_us[lab] = d }
    }
    if (missing != "") {
        printf("profile: %s: the export has no column for:%s\n", stage, missing) > "/dev/stderr"
        problems++
    }
    if (bad_unit != "") {
        printf("profile: %s: unknown unit '%s' for gpu__time_duration.sum\n", stage,
               bad_unit) > "/dev/stderr"
        problems++
    }
    if (unnamed) {
        printf("profile: %s: %d kernel(s) outside a stage/variant/op/dtype range, left out\n",
               stage, unnamed) > "/dev/stderr"
    }
    for (i = 1; i <= nl; i++) {
        lab = order[i]
        id = longest[lab]
        split(lab, p, "/")
        if (lab in shape_rows) { rows = shape_rows[lab]; cols = shape_cols[lab] }
        else if (p[3] == "sum") { rows = 1; cols = 268435456 }
        else { rows = 65536; cols = 1024 }
        bank = ""
        if (val[id, 7] != "" && val[id, 9] != "") {
            w = val[id, 9] + val[id, 10]
            bank = w > 0 ? (val[id, 7] + val[id, 8]) / w : 0
        }
        sect = ""
        if (val[id, 11] != "" && val[id, 12] != "")
            sect = val[id, 12] > 0 ? val[id, 11] / val[id, 12] : 0
        b = inflight_of(kname[id])
        if (b == "" && !((kname[id]) in told)) {
            told[kname[id]] = 1
            no_inflight = no_inflight " " kname[id]
        }
        bif = b != "" && val[id, 4] != "" ? val[id, 4] * 32 * b : ""
        # a 16th field, cut off for profile.csv, tells the table whether the kernel made
        # shared-memory accesses at all (1), none (0), or the counter is missing (empty)
        shared = val[id, 9] == "" ? "" : (val[id, 9] + val[id, 10] > 0)
        line = sprintf("%s,%s,%s,%s,%s,%s,%s,", (gpu == "" ? "unknown" : gpu), p[1], p[2], p[3],
                       p[4], rows, cols)
        line = line sprintf("%s,%s,%s,%s,%s,", ((lab in total) ? sprintf("%.2f", total[lab]) : ""),
                            fmt(val[id, 2], "%.1f"), fmt(val[id, 3], "%.1f"), fmt(val[id, 5], "%d"),
                            fmt(val[id, 6], "%.2f"))
        print line fmt(bank, "%.3f") "," fmt(sect, "%.2f") "," fmt(bif, "%.0f") "," shared
    }
    if (no_inflight != "")
        printf("profile: %s: no SASS found for (bytes in flight left empty):%s\n", stage,
               no_inflight) > "/dev/stderr"
    return problems ? 1 : 0
}
