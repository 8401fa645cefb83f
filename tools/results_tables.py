#!/usr/bin/env python3
"""results_tables.py: write the measured tables into the READMEs.

    tools/results_tables.py [--results DIR] [--root DIR] [--write]

Reads the CSVs that the stage programs write (run.csv, sweep.csv, rows.csv,
softmax.csv, and peer.csv when tools/torch_peer.py has run) and rebuilds the
markdown between marker lines, so that no number in a README is typed by
hand:

    NN_name/README.md   <!-- results:begin --> ... <!-- results:end -->
        the stage's rows of run.csv with the matching baseline rows; for 05
        and 06 also a row-sum table from rows.csv; for 07 a softmax table
        from softmax.csv (and peer.csv)
    README.md           <!-- ladder:begin --> ... <!-- ladder:end -->
        every stage/variant's full sum at the largest n of run.csv
                        <!-- targets:begin --> ... <!-- targets:end -->
        the targets of the TARGETS table below against the data

Without --write it prints a diff of what would change and writes nothing.
Missing files or markers: a warning on stderr, that part is skipped, exit 0.
A malformed CSV: one line naming file:line on stderr, exit 1, nothing written.
Python 3 standard library only.
"""

import argparse
import csv
import difflib
import math
import os
import statistics
import sys

COLUMNS = ["gpu", "stage", "variant", "op", "dtype", "rows", "cols", "bytes",
           "median_us", "min_us", "gbps", "ceiling_gbps", "pct_of_ceiling",
           "max_err", "check"]
INT_COLUMNS = ["rows", "cols", "bytes"]
# measurements may be empty (or nan, or -) in a row whose check failed: a
# failing variant is not timed
FLOAT_COLUMNS = ["median_us", "min_us", "gbps", "ceiling_gbps",
                 "pct_of_ceiling", "max_err"]
OPS = ("sum", "rowsum", "softmax", "logsoftmax")
DTYPES = ("f32", "f16")
CHECKS = ("ok", "FAIL")
REFERENCE_STAGES = ("baseline", "peer")

# The library each op is compared with ('x CUB'); softmax has none.
CUB_FOR_OP = {"sum": "cub_device_reduce", "rowsum": "cub_segmented_reduce"}
TORCH_FOR_OP = {"softmax": "torch_softmax", "logsoftmax": "torch_log_softmax"}
SINGLE_PASS = "single_pass"         # the 06 variant that should beat CUB mid-size
ROWSUM_TABLE_STAGES = ("05", "06")  # stage prefixes that get a rows.csv table
SOFTMAX_STAGE = "07"

# The goals the targets table checks the data against. These are targets,
# not measurements; ratios are GB/s over GB/s (or time over time, where
# said), and percentages are of the ceiling measured in the same run.
# The targets of the issues that set them (README "Targets").
TARGETS = {
    "sum_vs_cub": 0.98,           # best full sum at the largest n: >= x CUB
    "sum_pct": 90.0,              # ... and >= % of the read-only ceiling
    "single_pass_vs_cub": 1.20,   # single_pass GB/s >= x CUB at n = 2^20..2^24
    "small_n_time_vs_cub": 1.00,  # best small-n variant time <= x CUB at n <= 2^16
    "rowsum_pct": 85.0,           # row-sum dispatch >= % of ceiling, cols 32..65536
    "softmax_f32_pct": 90.0,      # softmax f32 dispatch >= % of copy, cols 32..16384
    "softmax_f32_large_pct": 75.0,  # ... cols 16384..65536
    "softmax_f16_pct": 85.0,      # softmax f16 dispatch >= % of copy, cols 32..16384
    "vs_torch": 1.00,             # softmax dispatch GB/s >= x torch, every cols
}


class Malformed(Exception):
    """A CSV that does not follow the results schema; str() is file:line: why."""


def warn(msg):
    print("results_tables.py: " + msg, file=sys.stderr)


# --------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------

class Row:
    """One CSV row: the schema's columns as attributes, plus file and line."""
    __slots__ = COLUMNS + ["file", "line"]

    @property
    def key(self):
        return (self.stage, self.variant, self.op, self.dtype, self.rows, self.cols)

    @property
    def ok(self):
        return self.check == "ok"


class Results:
    """One CSV file: its comment metadata and its rows, in file order."""

    def __init__(self, path, meta, rows):
        self.path, self.meta, self.rows = path, meta, rows
        self.name = os.path.basename(path)

    @property
    def gpu(self):
        if self.meta.get("gpu"):
            return self.meta["gpu"]
        return self.rows[0].gpu if self.rows else "unknown GPU"

    @property
    def date(self):
        return self.meta.get("date") or "date unknown"


def parse_float(text, where, column):
    text = text.strip()
    if text.lower() in ("", "nan", "-", "none"):
        return None
    try:
        value = float(text)
    except ValueError:
        raise Malformed(f"{where}: column {column} is not a number: {text!r}")
    return None if math.isnan(value) else value


def load_csv(path):
    """Returns a Results for path, None if it does not exist; raises
    Malformed (file:line) if it does not follow the schema."""
    if not os.path.exists(path):
        return None
    meta, rows, header = {}, [], None
    with open(path, newline="", encoding="utf-8") as f:
        for lineno, text in enumerate(f, 1):
            where = f"{path}:{lineno}"
            stripped = text.strip()
            if not stripped:
                continue
            if stripped.startswith("#"):
                body = stripped[1:].strip()
                if ":" in body:
                    k, v = body.split(":", 1)
                    meta.setdefault(k.strip().lower(), v.strip())
                continue
            fields = [x.strip() for x in next(csv.reader([stripped]))]
            if header is None:
                missing = [c for c in COLUMNS if c not in fields]
                if missing:
                    raise Malformed(f"{where}: header lacks column(s) {', '.join(missing)}")
                header = fields
                continue
            if len(fields) != len(header):
                raise Malformed(f"{where}: {len(fields)} fields, the header has {len(header)}")
            values = dict(zip(header, fields))
            row = Row()
            row.file, row.line = path, lineno
            for c in COLUMNS:
                setattr(row, c, values[c])
            for c in INT_COLUMNS:
                try:
                    setattr(row, c, int(values[c]))
                except ValueError:
                    raise Malformed(f"{where}: column {c} is not an integer: {values[c]!r}")
            for c in FLOAT_COLUMNS:
                setattr(row, c, parse_float(values[c], where, c))
            if row.op not in OPS:
                raise Malformed(f"{where}: op {row.op!r} is not one of {', '.join(OPS)}")
            if row.dtype not in DTYPES:
                raise Malformed(f"{where}: dtype {row.dtype!r} is not one of {', '.join(DTYPES)}")
            if row.check not in CHECKS:
                raise Malformed(f"{where}: check {row.check!r} is not ok or FAIL")
            if not row.stage or not row.variant:
                raise Malformed(f"{where}: empty stage or variant")
            rows.append(row)
    if header is None:
        raise Malformed(f"{path}:1: no header row")
    return Results(path, meta, rows)


# --------------------------------------------------------------------------
# Aggregation: several rows may share a key (every stage program measures
# the baselines again in the same run); tables use their median.
# --------------------------------------------------------------------------

class Agg:
    """The median of the ok rows that share a key; check is FAIL if any failed."""

    def __init__(self, rows):
        self.rows = rows
        first = rows[0]
        self.stage, self.variant, self.op, self.dtype = first.stage, first.variant, first.op, first.dtype
        self.n_rows, self.cols = first.rows, first.cols
        good = [r for r in rows if r.ok]
        self.check = "ok" if len(good) == len(rows) else "FAIL"

        def med(attr):
            vals = [getattr(r, attr) for r in good if getattr(r, attr) is not None]
            return statistics.median(vals) if vals else None
        self.median_us, self.gbps, self.pct = med("median_us"), med("gbps"), med("pct_of_ceiling")

    @property
    def label(self):
        return f"{self.stage}/{self.variant}"


def aggregate(rows):
    """dict key -> Agg, in first-seen order."""
    groups = {}
    for r in rows:
        groups.setdefault(r.key, []).append(r)
    return {k: Agg(v) for k, v in groups.items()}


def find(aggs, stage, variant, op, dtype, n_rows, cols):
    return aggs.get((stage, variant, op, dtype, n_rows, cols))


def is_reference(stage):
    return stage in REFERENCE_STAGES


# --------------------------------------------------------------------------
# Formatting
# --------------------------------------------------------------------------

def pow2(n):
    """'2^28' for a power of two, else the number."""
    if n > 0 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return str(n)


def shape(op, n_rows, cols):
    return f"n = {pow2(cols)}" if op == "sum" else f"{n_rows} x {cols}"


def f_us(v):
    if v is None:
        return "-"
    return f"{v:.2f}" if v < 10 else f"{v:.1f}" if v < 1000 else f"{v:.0f}"


def f_gbps(v):
    return "-" if v is None else f"{v:.0f}"


def f_pct(v):
    return "-" if v is None else f"{v:.1f}"


def f_ratio(v):
    return "-" if v is None else f"{v:.2f}"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def table(header, rows, right=()):
    """A markdown table; columns whose index is in right are right-aligned."""
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---:" if i in right else "---" for i in range(len(header))) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def provenance(sources, results_label):
    """The line above each table: GPU and date from the CSV comments and the
    results dir the data came from."""
    sources = [s for s in sources if s is not None]
    pairs = {(s.gpu, s.date) for s in sources}
    files = ", ".join(s.name for s in sources)
    if len(pairs) == 1:
        gpu, date = pairs.pop()
        return f"Measured on **{gpu}**, {date}; data: `{results_label}` ({files})."
    groups = {}
    for s in sources:
        groups.setdefault((s.gpu, s.date), []).append(s.name)
    each = "; ".join(f"**{g}**, {d} ({', '.join(names)})" for (g, d), names in groups.items())
    return f"Measured on {each}; data: `{results_label}`."


# --------------------------------------------------------------------------
# Stage README tables
# --------------------------------------------------------------------------

def stage_table(stage, run, results_label):
    """The stage's rows of run.csv, each shape followed by its baselines."""
    aggs = aggregate(run.rows)
    mine = [a for a in aggs.values() if a.stage == stage]
    if not mine:
        return None
    shapes = []
    for a in mine:
        s = (a.op, a.dtype, a.n_rows, a.cols)
        if s not in shapes:
            shapes.append(s)
    body = []
    for (op, dtype, n_rows, cols) in shapes:
        cub_name = CUB_FOR_OP.get(op)
        cub = find(aggs, "baseline", cub_name, op, dtype, n_rows, cols) if cub_name else None
        group = [a for a in mine if (a.op, a.dtype, a.n_rows, a.cols) == (op, dtype, n_rows, cols)]
        group += [a for a in aggs.values() if a.stage == "baseline"
                  and (a.op, a.dtype, a.n_rows, a.cols) == (op, dtype, n_rows, cols)]
        for a in group:
            name = a.variant if a.stage == stage else f"baseline: {a.variant}"
            x_cub = f_ratio(ratio(a.gbps, cub.gbps)) if cub else "-"
            body.append([name, op, dtype, shape(op, n_rows, cols), f_us(a.median_us),
                         f_gbps(a.gbps), f_pct(a.pct), x_cub, a.check])
    return "\n\n".join([
        provenance([run], results_label),
        table(["variant", "op", "dtype", "shape", "median us", "GB/s", "% of ceiling",
               "x CUB", "check"], body, right=(4, 5, 6, 7))])


def rowsum_table(stage, rows_csv, results_label):
    """GB/s of each of the stage's row-sum variants per cols, with CUB's
    segmented reduce, and the best variant's % of ceiling and x CUB."""
    aggs = aggregate([r for r in rows_csv.rows if r.op == "rowsum"])
    mine = [a for a in aggs.values() if a.stage == stage]
    if not mine:
        return None
    parts = []
    for dtype in DTYPES:
        variants = []
        for a in mine:
            if a.dtype == dtype and a.variant not in variants:
                variants.append(a.variant)
        if not variants:
            continue
        shapes = sorted({(a.cols, a.n_rows) for a in mine if a.dtype == dtype})
        body = []
        for cols, n_rows in shapes:
            cells = [find(aggs, stage, v, "rowsum", dtype, n_rows, cols) for v in variants]
            cub = find(aggs, "baseline", "cub_segmented_reduce", "rowsum", dtype, n_rows, cols)
            timed = [c for c in cells if c is not None and c.gbps is not None]
            best = max(timed, key=lambda c: c.gbps) if timed else None
            body.append([str(cols), str(n_rows)]
                        + [f_gbps(c.gbps) if c else "-" for c in cells]
                        + [f_gbps(cub.gbps) if cub else "-",
                           f_pct(best.pct) if best else "-",
                           f_ratio(ratio(best.gbps, cub.gbps if cub else None)) if best else "-"])
        header = (["cols", "rows"] + [f"{v} GB/s" for v in variants]
                  + ["CUB segmented GB/s", "best % of ceiling", "best x CUB"])
        parts.append(f"Row sums ({dtype}) from rows.csv:")
        parts.append(table(header, body, right=tuple(range(len(header)))))
    if not parts:
        return None
    return "\n\n".join([provenance([rows_csv], results_label)] + parts)


def dispatch_variant(aggs, stage, op):
    """The stage's dispatcher for op: a variant named '...dispatch...'."""
    names = [a.variant for a in aggs.values() if a.stage == stage and a.op == op]
    for v in names:
        if "dispatch" in v:
            return v
    return None


def softmax_table(stage, softmax_csv, peer_csv, results_label):
    """Per cols: the dispatcher's GB/s and % of copy for f32 and f16, and
    x torch where peer.csv exists; one table per op."""
    aggs = aggregate(softmax_csv.rows + (peer_csv.rows if peer_csv else []))
    if peer_csv is not None and peer_csv.gpu != softmax_csv.gpu:
        warn(f"{peer_csv.name} was measured on {peer_csv.gpu}, {softmax_csv.name} on "
             f"{softmax_csv.gpu}: 'x torch' compares different GPUs")
    parts = []
    for op in ("softmax", "logsoftmax"):
        disp = dispatch_variant(aggs, stage, op)
        if disp is None:
            if any(a.stage == stage and a.op == op for a in aggs.values()):
                warn(f"{softmax_csv.name}: no {op} variant of {stage} named '*dispatch*'; "
                     f"its softmax table is skipped")
            continue
        cells = [a for a in aggs.values() if a.stage == stage and a.op == op and a.variant == disp]
        shapes = sorted({(a.cols, a.n_rows) for a in cells})
        dtypes = [d for d in DTYPES if any(a.dtype == d for a in cells)]
        have_torch = peer_csv is not None
        header = ["cols", "rows"]
        for d in dtypes:
            header += [f"{d} GB/s", f"{d} % of copy"] + ([f"{d} x torch"] if have_torch else [])
        body = []
        for cols, n_rows in shapes:
            line = [str(cols), str(n_rows)]
            for d in dtypes:
                a = find(aggs, stage, disp, op, d, n_rows, cols)
                line += [f_gbps(a.gbps) if a else "-", f_pct(a.pct) if a else "-"]
                if have_torch:
                    t = find(aggs, "peer", TORCH_FOR_OP[op], op, d, n_rows, cols)
                    line.append(f_ratio(ratio(a.gbps if a else None, t.gbps if t else None)))
            body.append(line)
        parts.append(f"{op} through `{disp}` (the dispatcher), GB/s counting one read and one write:")
        parts.append(table(header, body, right=tuple(range(len(header)))))
    if not parts:
        return None
    return "\n\n".join([provenance([softmax_csv, peer_csv], results_label)] + parts)


# --------------------------------------------------------------------------
# Top-level README: the ladder and the targets
# --------------------------------------------------------------------------

def full_sums(results):
    """(largest n of a stage's ok full sum, aggs of the op-sum rows)."""
    aggs = aggregate([r for r in results.rows if r.op == "sum"])
    ns = [a.cols for a in aggs.values() if not is_reference(a.stage) and a.gbps is not None]
    return (max(ns) if ns else None), aggs


def ladder_table(run, results_label):
    n, aggs = full_sums(run)
    if n is None:
        warn(f"{run.name}: no timed full-sum rows; the ladder table is skipped")
        return None
    cub = find(aggs, "baseline", "cub_device_reduce", "sum", "f32", 1, n)
    body = []
    for a in aggs.values():
        if a.cols != n or is_reference(a.stage):
            continue
        variant = a.variant if a.dtype == "f32" else f"{a.variant} ({a.dtype})"
        c = find(aggs, "baseline", "cub_device_reduce", "sum", a.dtype, 1, n)
        body.append([a.stage, variant, f_us(a.median_us), f_gbps(a.gbps), f_pct(a.pct),
                     f_ratio(ratio(a.gbps, c.gbps if c else None)), a.check])
    for name, what in (("cub_device_reduce", "CUB DeviceReduce::Sum"),
                       ("read_stream", "ceiling: read-only stream")):
        b = find(aggs, "baseline", name, "sum", "f32", 1, n)
        if b:
            body.append(["baseline", f"{name} ({what})", f_us(b.median_us), f_gbps(b.gbps),
                         f_pct(b.pct), f_ratio(ratio(b.gbps, cub.gbps if cub else None)), b.check])
    return "\n\n".join([
        provenance([run], results_label) + f" Full-array float sum, n = {pow2(n)}.",
        table(["stage", "variant", "median us", "GB/s", "% of ceiling", "x CUB", "check"],
              body, right=(2, 3, 4, 5))])


def target_row(what, goal, measured, met):
    return [what, goal, measured, "-" if met is None else ("yes" if met else "no")]


NO_DATA = "no data"


def targets_table(files, results_label):
    run, sweep, rows_csv, softmax_csv, peer = (files.get(k) for k in
                                               ("run", "sweep", "rows", "softmax", "peer"))
    body, used = [], []
    T = TARGETS

    # 1. the best full sum at the largest n, against CUB and the ceiling
    src = run or sweep
    if src is not None:
        n, aggs = full_sums(src)
        if n is not None:
            used.append(src)
            cands = [a for a in aggs.values() if a.cols == n and not is_reference(a.stage)
                     and a.dtype == "f32" and a.check == "ok" and a.gbps is not None]
            best = max(cands, key=lambda a: a.gbps) if cands else None
            cub = find(aggs, "baseline", "cub_device_reduce", "sum", "f32", 1, n)
            r = ratio(best.gbps, cub.gbps) if best and cub else None
            body.append(target_row(
                f"full sum, n = {pow2(n)}: best variant vs CUB", f">= {T['sum_vs_cub']:.2f}x",
                f"{r:.2f}x ({best.label})" if r is not None else NO_DATA,
                None if r is None else r >= T["sum_vs_cub"]))
            p = best.pct if best else None
            body.append(target_row(
                f"full sum, n = {pow2(n)}: best variant, % of ceiling", f">= {T['sum_pct']:.0f}%",
                f"{p:.1f}% ({best.label})" if p is not None else NO_DATA,
                None if p is None else p >= T["sum_pct"]))

    # 2. single_pass against CUB at mid sizes, and 3. latency at small n
    if sweep is not None:
        used.append(sweep)
        aggs = aggregate([r for r in sweep.rows if r.op == "sum" and r.dtype == "f32"])
        sp_stage = next((a.stage for a in aggs.values() if a.variant == SINGLE_PASS
                         and not is_reference(a.stage)), None)
        for k in range(20, 25):
            n = 1 << k
            cub = find(aggs, "baseline", "cub_device_reduce", "sum", "f32", 1, n)
            sp = find(aggs, sp_stage, SINGLE_PASS, "sum", "f32", 1, n) if sp_stage else None
            if sp is None and cub is None:
                continue
            r = ratio(sp.gbps if sp and sp.check == "ok" else None, cub.gbps if cub else None)
            # the read-only stream at the same n bounds what any one-launch sum can reach
            ceil_row = find(aggs, "baseline", "read_stream", "sum", "f32", 1, n)
            rc = ratio(ceil_row.gbps, cub.gbps) if ceil_row and cub else None
            limit = f" (read ceiling: {rc:.2f}x)" if rc is not None else ""
            body.append(target_row(
                f"{SINGLE_PASS} vs CUB, n = 2^{k}", f">= {T['single_pass_vs_cub']:.2f}x",
                f"{r:.2f}x{limit}" if r is not None else NO_DATA,
                None if r is None else r >= T["single_pass_vs_cub"]))

        small = sorted({a.cols for a in aggs.values() if a.cols <= 1 << 16})
        cub_at = {n: find(aggs, "baseline", "cub_device_reduce", "sum", "f32", 1, n) for n in small}
        small = [n for n in small if cub_at[n] is not None and cub_at[n].median_us]
        best = None   # (worst time ratio over the small n, n where it is worst, label)
        for label in {(a.stage, a.variant) for a in aggs.values() if not is_reference(a.stage)}:
            worst = None
            for n in small:
                a = find(aggs, label[0], label[1], "sum", "f32", 1, n)
                if a is None or a.check != "ok" or a.median_us is None:
                    worst = None
                    break
                r = a.median_us / cub_at[n].median_us
                if worst is None or r > worst[0]:
                    worst = (r, n)
            if worst and (best is None or worst[0] < best[0]):
                best = (worst[0], worst[1], f"{label[0]}/{label[1]}")
        if small:
            body.append(target_row(
                f"small n (n <= 2^16): best variant's time vs CUB, worst n",
                f"<= {T['small_n_time_vs_cub']:.2f}x",
                f"{best[0]:.2f}x at n = {pow2(best[1])} ({best[2]})" if best else NO_DATA,
                None if best is None else best[0] <= T["small_n_time_vs_cub"]))

    # 4. the row-sum dispatcher (or the best variant per cols) against the ceiling
    if rows_csv is not None:
        used.append(rows_csv)
        aggs = aggregate([r for r in rows_csv.rows if r.op == "rowsum" and r.dtype == "f32"])
        stages = sorted({a.stage for a in aggs.values()
                         if not is_reference(a.stage) and "dispatch" in a.variant})
        cols = sorted({a.cols for a in aggs.values() if 32 <= a.cols <= 65536})
        if stages:
            st = stages[-1]
            disp = next(a.variant for a in aggs.values() if a.stage == st and "dispatch" in a.variant)
            who = f"{st}/{disp}"
            pick = {c: [a for a in aggs.values() if a.stage == st and a.variant == disp and a.cols == c]
                    for c in cols}
        else:
            who = "best variant per cols"
            pick = {c: sorted([a for a in aggs.values() if not is_reference(a.stage) and a.cols == c
                               and a.gbps is not None], key=lambda a: -a.gbps)[:1] for c in cols}
        worst = min(((p[0].pct, c) for c, p in pick.items() if p and p[0].pct is not None
                     and p[0].check == "ok"), default=None)
        if cols:
            body.append(target_row(
                f"row sum ({who}): lowest % of ceiling, cols {cols[0]}..{cols[-1]}",
                f">= {T['rowsum_pct']:.0f}%",
                f"{worst[0]:.1f}% at cols = {worst[1]}" if worst else NO_DATA,
                None if worst is None else worst[0] >= T["rowsum_pct"]))

    # 5. the softmax dispatcher against the copy ceiling, and against torch
    if softmax_csv is not None:
        used.append(softmax_csv)
        aggs = aggregate(softmax_csv.rows + (peer.rows if peer else []))
        stage = next((a.stage for a in aggs.values() if a.stage.startswith(SOFTMAX_STAGE)), None)
        disp = dispatch_variant(aggs, stage, "softmax") if stage else None
        for dtype, lo, hi, key in (("f32", 32, 16384, "softmax_f32_pct"),
                                   ("f32", 16384, 65536, "softmax_f32_large_pct"),
                                   ("f16", 32, 16384, "softmax_f16_pct")):
            cells = [a for a in aggs.values() if disp and a.stage == stage and a.variant == disp
                     and a.op == "softmax" and a.dtype == dtype and lo <= a.cols <= hi]
            worst = min(((a.pct, a.cols) for a in cells if a.pct is not None and a.check == "ok"),
                        default=None)
            body.append(target_row(
                f"softmax {dtype} ({disp or 'dispatch'}): lowest % of copy, cols {lo}..{hi}",
                f">= {T[key]:.0f}%",
                f"{worst[0]:.1f}% at cols = {worst[1]}" if worst else NO_DATA,
                None if worst is None else worst[0] >= T[key]))
        if peer is not None:
            used.append(peer)
            for dtype in DTYPES:
                worst = None
                for a in aggs.values():
                    if not (disp and a.stage == stage and a.variant == disp and a.op == "softmax"
                            and a.dtype == dtype and a.check == "ok"):
                        continue
                    t = find(aggs, "peer", "torch_softmax", "softmax", dtype, a.n_rows, a.cols)
                    r = ratio(a.gbps, t.gbps if t and t.check == "ok" else None)
                    if r is not None and (worst is None or r < worst[0]):
                        worst = (r, a.cols)
                body.append(target_row(
                    f"softmax {dtype} ({disp or 'dispatch'}) vs torch.softmax: lowest, every cols",
                    f">= {T['vs_torch']:.2f}x",
                    f"{worst[0]:.2f}x at cols = {worst[1]}" if worst else NO_DATA,
                    None if worst is None else worst[0] >= T["vs_torch"]))
    if not body:
        warn("no CSVs for the targets table; it is skipped")
        return None
    return "\n\n".join([provenance(used, results_label),
                        table(["target", "goal", "measured", "met"], body)])


# --------------------------------------------------------------------------
# Markers
# --------------------------------------------------------------------------

def replace_between(text, name, content, path):
    """text with the lines between <!-- name:begin --> and <!-- name:end -->
    replaced by content; None (and a warning) if the markers are missing."""
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    lines = text.splitlines(keepends=True)
    b = next((i for i, l in enumerate(lines) if l.strip() == begin), None)
    e = next((i for i, l in enumerate(lines) if l.strip() == end), None)
    if b is None or e is None or e < b:
        warn(f"{path}: no '{begin}' ... '{end}' marker lines; skipped")
        return None
    block = ["\n", "<!-- generated by tools/results_tables.py: edit the data, not this text -->\n",
             "\n", content.rstrip("\n") + "\n", "\n"]
    return "".join(lines[:b + 1] + block + lines[e:])


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(
        description="Rebuild the README result tables from the CSVs between their marker lines.")
    ap.add_argument("--root", default=os.path.dirname(here),
                    help="repository root holding README.md and the stage folders (default: this repository)")
    ap.add_argument("--results", default=None,
                    help="folder with run.csv, sweep.csv, rows.csv, softmax.csv, peer.csv (default: ROOT/results)")
    ap.add_argument("--write", action="store_true",
                    help="write the READMEs (default: print a diff of what would change)")
    args = ap.parse_args(argv)

    root = os.path.abspath(args.root)
    results = os.path.abspath(args.results or os.path.join(root, "results"))
    rel = os.path.relpath(results, root)
    results_label = (rel if not rel.startswith("..") else results).rstrip("/") + "/"

    files = {}
    try:
        for key in ("run", "sweep", "rows", "softmax", "peer"):
            files[key] = load_csv(os.path.join(results, key + ".csv"))
    except Malformed as e:
        print(f"results_tables.py: {e}", file=sys.stderr)
        return 1
    for key in ("run", "sweep", "rows", "softmax"):
        if files[key] is None:
            warn(f"no {os.path.join(results_label, key + '.csv')}; the tables built from it are skipped")

    changes = {}   # path -> (old, new)

    def update(path, name, content):
        if content is None:
            return
        if path not in changes:
            if not os.path.exists(path):
                warn(f"no {os.path.relpath(path, root)}; skipped")
                return
            with open(path, encoding="utf-8") as f:
                text = f.read()
            changes[path] = (text, text)
        original, current = changes[path]
        new = replace_between(current, name, content, os.path.relpath(path, root))
        if new is not None:
            changes[path] = (original, new)

    stage_dirs = sorted(d for d in os.listdir(root)
                        if len(d) > 3 and d[:2].isdigit() and d[2] == "_"
                        and os.path.isdir(os.path.join(root, d)))
    for stage in stage_dirs:
        readme = os.path.join(root, stage, "README.md")
        parts = []
        if files["run"] is not None:
            t = stage_table(stage, files["run"], results_label)
            if t is None:
                warn(f"{files['run'].name} has no rows of {stage}; its table is skipped")
            else:
                parts.append(t)
        if stage[:2] in ROWSUM_TABLE_STAGES and files["rows"] is not None:
            t = rowsum_table(stage, files["rows"], results_label)
            if t:
                parts.append(t)
        if stage[:2] == SOFTMAX_STAGE and files["softmax"] is not None:
            t = softmax_table(stage, files["softmax"], files["peer"], results_label)
            if t:
                parts.append(t)
        if parts:
            update(readme, "results", "\n\n".join(parts))

    top = os.path.join(root, "README.md")
    if files["run"] is not None:
        update(top, "ladder", ladder_table(files["run"], results_label))
    update(top, "targets", targets_table(files, results_label))

    changed = [(p, o, n) for p, (o, n) in changes.items() if o != n]
    for path, old, new in changed:
        name = os.path.relpath(path, root)
        if args.write:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
            print(f"updated {name}")
        else:
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(keepends=True), new.splitlines(keepends=True),
                fromfile=f"a/{name}", tofile=f"b/{name}"))
    if not changed:
        print("results_tables.py: the READMEs are up to date")
    elif not args.write:
        print(f"results_tables.py: {len(changed)} file(s) would change; run with --write to write them")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
