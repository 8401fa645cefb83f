#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""torch_peer.py: time PyTorch on the stages' shapes, as a peer.

    python3 maint/torch_peer.py [--out results/peer.csv] [--iters 50] [--warmup 5]
                                [--set all|sweep|shapes] [--dtype f32,f16,bf16] [--list]

Optional: runs only where PyTorch with CUDA is installed (nothing else is needed). Times, at
every shape and dtype:

  torch_softmax      torch.softmax(x, dim=-1)          op softmax     f32, f16, bf16
  torch_log_softmax  torch.log_softmax(x, dim=-1)      op logsoftmax  f32, f16, bf16
  torch_sum          torch.sum(x, dim=-1)              op rowsum      f32 only
  torch_copy         dst.copy_(x), the ceiling         op softmax     f32, f16, bf16

on the softmax sweep (2^26 elements, rows = 2^26 / cols, cols 32 .. 65536, as softmax.csv)
and the real-world shapes (shapes.csv: 1x262144 8x131072 32x128256 64x32000 256x151936
4096x50257 16384x4096 131072x128 2048x1000). Appends rows in the results schema (stage
"peer") to --out; the '#' comment lines and the header are written only when the file is new.
ceiling_gbps is torch_copy's GB/s at the same shape and dtype, for every variant (for
torch_sum a read+write copy stands in for the read-only stream of the stage programs).
--list prints the plan (shape, dtype, variants) and needs no PyTorch.

Timing follows the stage programs (DESIGN.md, Timing): CUDA events around each repetition
after warm-up, median and minimum of --iters (>= 20) repetitions, and before every
repetition, outside the events, a read of three times the L2 size so that no repetition
finds its input in L2. Each result is first checked against float64 with the stage checks'
tolerances (DESIGN.md, Checking; common/check.c): softmax |y - ref| <= rtol |ref| + (1e-6
for f32, else 1e-7) and every row sums to 1 within the stage bound; log-softmax |y - ref|
<= rtol max(1, |ref|); rtol 1e-5 (f32), 1e-3 (f16), 8e-3 (bf16); row sums exact on small
integers and within 2 (k + ceil(log2 cols)) u sum|x| (k = 64 + cols/32) on non-negative
random floats. A variant that fails its check is not timed; its row says FAIL.

Exit status: 0 all checks passed, 1 a check failed, 2 usage error, 3 no PyTorch with CUDA,
out of device memory, or a CUDA error.
"""

import argparse
import datetime
import math
import os
import statistics
import sys

ELEMENTS = 1 << 26     # the softmax sweep's size (softmax.csv)
COLS = [32, 64, 128, 256, 512, 1000, 1024, 2048, 4096, 8192, 16384, 32768, 65536]
# real-world [rows, cols]: LLM logits (vocabularies of 32000 .. 262144), attention rows, classifiers
SHAPES = [(1, 262144), (8, 131072), (32, 128256), (64, 32000), (256, 151936), (4096, 50257),
          (16384, 4096), (131072, 128), (2048, 1000)]
DTYPES = ["f32", "f16", "bf16"]
HEADER = ("gpu,stage,variant,op,dtype,rows,cols,bytes,median_us,min_us,gbps,"
          "ceiling_gbps,pct_of_ceiling,max_err,check")
MIN_ITERS = 20         # DESIGN.md, Timing: at least 20 repetitions
SEED = 1234
FLUSH_FACTOR = 3       # DESIGN.md, Timing: read three times the L2 size between repetitions
FALLBACK_L2_BYTES = 128 << 20   # when torch does not report L2: above any current GPU's
# Spin the GPU this many cycles before each start event (about 0.5 ms at 2 GHz), so that the
# event, the op and the end event are queued before the GPU reaches them and the host's launch
# overhead is not timed.
SLEEP_CYCLES = 1_000_000
# unit roundoff of each output type (common/check.h)
U = {"f32": 2.0 ** -24, "f16": 2.0 ** -11, "bf16": 2.0 ** -8}
RTOL = {"f32": 1e-5, "f16": 1e-3, "bf16": 8e-3}
ESIZE = {"f32": 4, "f16": 2, "bf16": 2}

PROG = "torch_peer.py"


def note(msg):
    print(f"{PROG}: {msg}", file=sys.stderr)


def ceil_log2(n):
    """The least k with 2^k >= n."""
    return max(0, (n - 1).bit_length())


def row_chain_bound(cols):
    """k of the row-sum bound: the longest chain of adds a warp-per-row sum has (check.c)."""
    return 64 + (cols + 31) // 32


def softmax_row_sum_bound(cols, dname):
    """How far from 1 a softmax row of this output type may sum (check.c)."""
    b = 2.0 * U[dname] + 2.0 * (row_chain_bound(cols) + ceil_log2(cols)) * U["f32"]
    if dname == "f16":
        b += cols * 2.0 ** -25
    return b


def check_softmax(torch, y, ref, log, dname):
    """(ok, max abs error) of y against the float64 reference ref, as the stage check judges
    it: NaN where ref is NaN (a row of all -inf), exactly -inf where ref is -inf, else within
    the dtype's bound, and (softmax) every row summing to 1 within its bound."""
    rtol = RTOL[dname]
    y = y.double()
    err = (y - ref).abs()
    if log:
        bound = rtol * torch.clamp(ref.abs(), min=1.0)
    else:
        bound = rtol * ref.abs() + (1e-6 if dname == "f32" else 1e-7)
    nan_ref, inf_ref = torch.isnan(ref), torch.isinf(ref)
    good = torch.where(nan_ref, torch.isnan(y), torch.where(inf_ref, y == ref, err <= bound))
    finite = ~(nan_ref | inf_ref)
    max_err = float(torch.where(finite, err, torch.zeros_like(err)).max())
    ok = bool(good.all())
    if ok and not log:
        rows_ok = ~torch.isfinite(ref[:, 0]) | \
            ((y.sum(dim=-1) - 1.0).abs() <= softmax_row_sum_bound(ref.shape[1], dname))
        ok = bool(rows_ok.all())
    return ok, max_err


def check_rowsum(torch, fn, rows, cols, dev, gen):
    """(ok, max abs error) of fn's row sums: exact on small integers (every partial sum is an
    integer below 2^24, so any order of adds is exact and a dropped or doubled element shows),
    then within the stage bound on non-negative random floats."""
    gen.manual_seed(SEED + 7)
    xi = torch.randint(-8, 9, (rows, cols), device=dev, generator=gen).float()
    yi = fn(xi)
    refi = xi.double().sum(dim=-1)
    if not bool((yi.double() == refi).all()):
        return False, float((yi.double() - refi).abs().max())
    del xi, yi, refi
    xr = torch.rand(rows, cols, device=dev, generator=gen)
    y = fn(xr).double()
    xd = xr.double()
    ref = xd.sum(dim=-1)
    bound = 2.0 * (row_chain_bound(cols) + ceil_log2(cols)) * U["f32"] * xd.abs().sum(dim=-1)
    err = (y - ref).abs()
    return bool((err <= bound).all()), float(err.max())


def time_op(torch, fn, x, iters, warmup, flush):
    """(median us, min us) of fn(x) over iters repetitions timed with CUDA events after warmup
    repetitions; before each, outside the events, flush is read (3x L2) so that x is not in L2."""
    for _ in range(warmup):
        fn(x)
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    sleep = getattr(torch.cuda, "_sleep", None)
    sink = []
    for i in range(iters):
        sink.append(flush.sum())      # a read of every byte; the result stays on the GPU
        if sleep is not None:
            sleep(SLEEP_CYCLES)
        starts[i].record()
        fn(x)
        ends[i].record()
    torch.cuda.synchronize()
    del sink
    us = [s.elapsed_time(e) * 1000.0 for s, e in zip(starts, ends)]
    return statistics.median(us), min(us)


def theoretical_peak_gbps(props):
    """From the memory clock and bus width where this torch reports them, else None."""
    clock_khz = getattr(props, "memory_clock_rate", None)
    bus_bits = getattr(props, "memory_bus_width", None)
    if not clock_khz or not bus_bits:
        return None
    return 2.0 * clock_khz * 1e3 * bus_bits / 8 / 1e9   # double data rate


def open_output(path, torch, props, l2):
    """The file opened for appending; the comment lines and the header are written only when
    it is new (or empty)."""
    new = not os.path.exists(path) or os.path.getsize(path) == 0
    if not new:
        with open(path, encoding="utf-8") as f:
            first = next((l.strip() for l in f if l.strip() and not l.startswith("#")), None)
        if first is not None and first != HEADER:
            note(f"{path} has another header; appending rows in this schema anyway")
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    f = open(path, "a", encoding="utf-8")
    if new:
        f.write(f"# gpu: {props.name}\n")
        f.write(f"# cuda: runtime {torch.version.cuda} (PyTorch {torch.__version__})\n")
        f.write("# date: " + datetime.datetime.now(datetime.timezone.utc)
                .strftime("%Y-%m-%dT%H:%M:%SZ") + "\n")
        f.write(f"# sm_count: {props.multi_processor_count} l2_bytes: {l2} "
                f"compute_capability: {props.major}.{props.minor}\n")
        peak = theoretical_peak_gbps(props)
        if peak:
            f.write(f"# theoretical_peak_gbps: {peak:.1f} (from memory clock and bus width; "
                    "never the ceiling)\n")
        f.write(HEADER + "\n")
    return f


def plan(which, dtypes):
    """[(rows, cols, dname, [(variant, op)])] in the order they run."""
    shapes = []
    if which in ("all", "sweep"):
        shapes += [(ELEMENTS // c, c) for c in COLS]
    if which in ("all", "shapes"):
        shapes += SHAPES
    out = []
    for rows, cols in shapes:
        for d in dtypes:
            vs = [("torch_copy", "softmax"), ("torch_softmax", "softmax"),
                  ("torch_log_softmax", "logsoftmax")]
            if d == "f32":
                vs.append(("torch_sum", "rowsum"))
            out.append((rows, cols, d, vs))
    return out


def parse_args(argv):
    """The options, or None after a usage message."""
    ap = argparse.ArgumentParser(prog=PROG, description="Time torch.softmax, torch.log_softmax "
                                 "and torch.sum(dim=-1) on the stages' shapes and append peer "
                                 "rows to a CSV.")
    ap.add_argument("--out", default="results/peer.csv",
                    help="CSV to append to (default %(default)s)")
    ap.add_argument("--iters", type=int, default=50,
                    help=f"timed repetitions, >= {MIN_ITERS} (default %(default)s)")
    ap.add_argument("--warmup", type=int, default=5,
                    help="untimed repetitions first (default %(default)s)")
    ap.add_argument("--set", dest="which", choices=["all", "sweep", "shapes"], default="all",
                    help="the 2^26 sweep, the real-world shapes, or both (default %(default)s)")
    ap.add_argument("--dtype", default=",".join(DTYPES),
                    help="comma list of f32, f16, bf16 (default %(default)s)")
    ap.add_argument("--list", action="store_true",
                    help="print the plan and exit (needs no PyTorch)")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return None if e.code else "help"
    if args.iters < MIN_ITERS:
        note(f"--iters must be at least {MIN_ITERS}, got {args.iters}")
        return None
    if args.warmup < 0:
        note(f"--warmup must be at least 0, got {args.warmup}")
        return None
    dts = [d for d in args.dtype.split(",") if d]
    bad = [d for d in dts if d not in DTYPES]
    if bad or not dts:
        note(f"--dtype {args.dtype}: expected a comma list of {', '.join(DTYPES)}")
        return None
    args.dtypes = [d for d in DTYPES if d in dts]
    return args


def main(argv):
    args = parse_args(argv)
    if args == "help":
        return 0
    if args is None:
        return 2
    todo = plan(args.which, args.dtypes)
    if args.list:
        for rows, cols, d, vs in todo:
            print(f"{rows:>8} x {cols:<7} {d:<5} {' '.join(v for v, _ in vs)}")
        return 0

    try:
        import torch
    except ImportError:
        note("PyTorch is not installed; no peer rows written (pip install torch to compare)")
        return 3
    if not torch.cuda.is_available():
        note("PyTorch has no CUDA device here; no peer rows written")
        return 3

    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(dev)
    l2 = getattr(props, "L2_cache_size", 0) or FALLBACK_L2_BYTES
    tdt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
    gen = torch.Generator(device=dev)
    oom = getattr(torch.cuda, "OutOfMemoryError", MemoryError)
    failed = False
    out = open_output(args.out, torch, props, l2)
    gpu = props.name.replace(",", " ")
    print(f"{'variant':<18} {'op':<10} {'dtype':<5} {'rows':>8} {'cols':>7} {'median us':>10} "
          f"{'GB/s':>8} {'% copy':>7} check")
    try:
        flush = torch.zeros(FLUSH_FACTOR * l2 // 4, dtype=torch.float32, device=dev)
        for rows, cols, dname, variants in todo:
            gen.manual_seed(SEED)
            x = (torch.randn(rows, cols, device=dev, generator=gen) * 4).to(tdt[dname])
            esize = ESIZE[dname]
            ceiling = 0.0

            def emit(variant, op, nbytes, med, mn, max_err, ok):
                gbps = nbytes / (med * 1e3) if med else 0.0
                pct = 100.0 * gbps / ceiling if gbps and ceiling else 0.0
                out.write(f"{gpu},peer,{variant},{op},{dname},{rows},{cols},{nbytes},{med:.3f},"
                          f"{mn:.3f},{gbps:.2f},{ceiling:.2f},{pct:.2f},{max_err:.3g},"
                          f"{'ok' if ok else 'FAIL'}\n")
                out.flush()
                print(f"{variant:<18} {op:<10} {dname:<5} {rows:>8} {cols:>7} {med:>10.1f} "
                      f"{gbps:>8.0f} {pct:>7.1f} {'ok' if ok else 'FAIL'}")

            for variant, op in variants:
                if variant == "torch_copy":
                    dst = torch.empty_like(x)
                    fn = lambda t, dst=dst: dst.copy_(t)
                    ok, max_err = bool(torch.equal(fn(x), x)), 0.0
                    nbytes = 2 * rows * cols * esize
                elif variant == "torch_sum":
                    fn = lambda t: torch.sum(t, dim=-1)
                    ok, max_err = check_rowsum(torch, fn, rows, cols, dev, gen)
                    nbytes = rows * cols * esize + rows * esize
                else:
                    log = variant == "torch_log_softmax"
                    fn = (lambda t: torch.log_softmax(t, dim=-1)) if log else \
                        (lambda t: torch.softmax(t, dim=-1))
                    ref_fn = torch.log_softmax if log else torch.softmax
                    ref = ref_fn(x.double(), dim=-1)
                    ok, max_err = check_softmax(torch, fn(x), ref, log, dname)
                    del ref
                    nbytes = 2 * rows * cols * esize
                if not ok:
                    failed = True
                    note(f"{variant} {dname} {rows}x{cols}: check failed "
                         f"(max |err| {max_err:.3e}); not timed")
                    emit(variant, op, nbytes, 0.0, 0.0, max_err, False)
                    continue
                med, mn = time_op(torch, fn, x, args.iters, args.warmup, flush)
                if variant == "torch_copy":   # the ceiling of every row of this shape and dtype
                    ceiling = nbytes / (med * 1e3)
                    del dst
                emit(variant, op, nbytes, med, mn, max_err, True)
            del x
            torch.cuda.empty_cache()
    except oom:
        note("out of device memory; free the GPU or run where 16 GiB are free")
        return 3
    except RuntimeError as e:
        note(f"CUDA error: {str(e).splitlines()[0]}")
        return 3
    finally:
        out.close()
    print(f"{PROG}: rows appended to {args.out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
