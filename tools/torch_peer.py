#!/usr/bin/env python3
"""torch_peer.py: time PyTorch's softmax on the softmax shapes, as a peer.

    python3 tools/torch_peer.py [--out results/peer.csv] [--iters 50] [--warmup 5]

Optional: runs only where PyTorch with CUDA is installed. Times
torch.softmax(x, dim=-1) and torch.log_softmax(x, dim=-1) on 2^26 elements
for every cols that 07_softmax is swept over, in float32 and float16, and a
device-to-device copy (dst.copy_(src)) of the same bytes as the ceiling, all
in the same run. Appends rows in the results schema (stage "peer"; variants
torch_softmax, torch_log_softmax, torch_copy) to --out; the '#' comment lines
and the header are written only when the file is created.

Timing follows the stage programs: CUDA events around each repetition after
warm-up, median and minimum of --iters (>= 20) repetitions, inputs rotated
among enough buffers that no repetition reads data left in L2 by the last.
Each result is checked first against float64 PyTorch, with the tolerances
of the stage checks (DESIGN.md, Checking).

Exit status: 0 all checks passed, 1 a check failed (that row says FAIL and
is not timed), 2 usage error, 3 no PyTorch with CUDA, or out of memory.
"""

import argparse
import datetime
import math
import os
import statistics
import sys

ELEMENTS = 1 << 26     # the softmax sweep's size (softmax.csv): 256 MiB of float
COLS = [32, 64, 128, 256, 512, 1000, 1024, 2048, 4096, 8192, 16384, 32768, 65536]
HEADER = ("gpu,stage,variant,op,dtype,rows,cols,bytes,median_us,min_us,gbps,"
          "ceiling_gbps,pct_of_ceiling,max_err,check")
MIN_ITERS = 20         # DESIGN.md, Timing: at least 20 repetitions
SEED = 1234
# Spin the GPU this many cycles before each start event (about 0.5 ms at
# 2 GHz), so that the event, the op and the end event are queued before the
# GPU reaches them and the host's launch overhead is not timed.
SLEEP_CYCLES = 1_000_000
FALLBACK_L2_BYTES = 64 << 20   # when torch does not report L2: above any current GPU's

PROG = "torch_peer.py"


def note(msg):
    print(f"{PROG}: {msg}", file=sys.stderr)


def within_tolerance(torch, y, ref, log, half):
    """(ok, max abs error) of y against the float64 reference ref.
    float32 softmax: |y - ref| <= 1e-6 + 1e-5 |ref|; log-softmax: |y - ref|
    <= 1e-5 max(1, |ref|). Half outputs: rtol 1e-3 plus an absolute term,
    since a relative bound alone cannot hold near 0: for softmax one half
    subnormal step (2^-24; wide rows go below half's normal range), for
    log-softmax the float32 term above (a row dominated by one element has
    outputs near -1e-6, where log(sum) computed in float is off by ~1e-7)."""
    y = y.double()
    err = (y - ref).abs()
    both_nan = torch.isnan(y) & torch.isnan(ref)
    if log:
        bound = 1e-5 * torch.clamp(ref.abs(), min=1.0)
    else:
        bound = 1e-6 + 1e-5 * ref.abs()
    if half:
        bound = 1e-3 * ref.abs() + (bound if log else 2.0 ** -24)
    good = (err <= bound) | both_nan
    max_err = float(torch.where(both_nan, torch.zeros_like(err), err).max())
    return bool(good.all()), max_err


def time_op(torch, fn, inputs, iters, warmup):
    """(median us, min us) of fn(input) over iters repetitions, each on the
    next input buffer, timed with CUDA events after warmup repetitions."""
    k = len(inputs)
    for i in range(warmup):
        fn(inputs[i % k])
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    sleep = getattr(torch.cuda, "_sleep", None)
    for i in range(iters):
        x = inputs[(warmup + i) % k]
        if sleep is not None:
            sleep(SLEEP_CYCLES)
        starts[i].record()
        fn(x)
        ends[i].record()
    torch.cuda.synchronize()
    us = [s.elapsed_time(e) * 1000.0 for s, e in zip(starts, ends)]
    return statistics.median(us), min(us)


def theoretical_peak_gbps(props):
    """From the memory clock and bus width where this torch reports them."""
    clock_khz = getattr(props, "memory_clock_rate", None)
    bus_bits = getattr(props, "memory_bus_width", None)
    if not clock_khz or not bus_bits:
        return None
    return 2.0 * clock_khz * 1e3 * bus_bits / 8 / 1e9   # double data rate


def open_output(path, torch, props):
    """The file opened for appending; the comment lines and the header are
    written only when it is new (or empty)."""
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
        peak = theoretical_peak_gbps(props)
        if peak:
            f.write(f"# theoretical_peak_gbps: {peak:.1f}\n")
        f.write(HEADER + "\n")
    return f


def main(argv):
    ap = argparse.ArgumentParser(description="Time torch.softmax and torch.log_softmax "
                                 "on the softmax shapes and append peer rows to a CSV.")
    ap.add_argument("--out", default="results/peer.csv", help="CSV to append to (default %(default)s)")
    ap.add_argument("--iters", type=int, default=50, help=f"timed repetitions, >= {MIN_ITERS} (default %(default)s)")
    ap.add_argument("--warmup", type=int, default=5, help="untimed repetitions first (default %(default)s)")
    args = ap.parse_args(argv)
    if args.iters < MIN_ITERS:
        note(f"--iters must be at least {MIN_ITERS}, got {args.iters}")
        return 2
    if args.warmup < 0:
        note(f"--warmup must be at least 0, got {args.warmup}")
        return 2

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
    gen = torch.Generator(device=dev)
    ops = [("torch_softmax", "softmax", lambda x: torch.softmax(x, dim=-1), False),
           ("torch_log_softmax", "logsoftmax", lambda x: torch.log_softmax(x, dim=-1), True)]
    failed = False
    out = open_output(args.out, torch, props)
    print(f"{'variant':<18} {'dtype':<5} {'rows':>8} {'cols':>6} {'median us':>10} "
          f"{'GB/s':>8} {'% copy':>7} check")
    try:
        for dtype, dname in ((torch.float32, "f32"), (torch.float16, "f16")):
            esize = torch.tensor([], dtype=dtype).element_size()
            for cols in COLS:
                rows = ELEMENTS // cols
                in_bytes = rows * cols * esize
                # enough buffers that a buffer comes round again only after
                # 4x L2 of other inputs has streamed through
                nbuf = 1 if in_bytes >= 4 * l2 else math.ceil(4 * l2 / in_bytes) + 1
                inputs = []
                for b in range(nbuf):
                    gen.manual_seed(SEED + b)
                    inputs.append((torch.randn(rows, cols, device=dev, generator=gen) * 4).to(dtype))
                nbytes = 2 * rows * cols * esize   # one read, one write

                def row(variant, op, med, mn, ceiling, max_err, check):
                    gbps = nbytes / (med * 1e3) if med else None
                    pct = 100.0 * gbps / ceiling if gbps and ceiling else None
                    fmt = lambda v, f: "" if v is None else format(v, f)
                    out.write(",".join([props.name.replace(",", " "), "peer", variant, op, dname,
                                        str(rows), str(cols), str(nbytes), fmt(med, ".3f"),
                                        fmt(mn, ".3f"), fmt(gbps, ".1f"), fmt(ceiling, ".1f"),
                                        fmt(pct, ".1f"), fmt(max_err, ".3e"), check]) + "\n")
                    out.flush()
                    print(f"{variant:<18} {dname:<5} {rows:>8} {cols:>6} {fmt(med, '.1f'):>10} "
                          f"{fmt(gbps, '.0f'):>8} {fmt(pct, '.1f'):>7} {check}")
                    return gbps

                # the ceiling: a device-to-device copy of the same bytes
                dst = torch.empty_like(inputs[0])
                dst.copy_(inputs[0])
                copy_ok = torch.equal(dst, inputs[0])
                if copy_ok:
                    med, mn = time_op(torch, lambda x: dst.copy_(x), inputs, args.iters, args.warmup)
                    ceiling = nbytes / (med * 1e3)
                    row("torch_copy", "softmax", med, mn, ceiling, 0.0, "ok")
                else:
                    ceiling = None
                    failed = True
                    row("torch_copy", "softmax", None, None, None, None, "FAIL")
                del dst

                for variant, op, fn, log in ops:
                    ref_fn = torch.log_softmax if log else torch.softmax
                    ref = ref_fn(inputs[0].double(), dim=-1)
                    ok, max_err = within_tolerance(torch, fn(inputs[0]), ref, log, dtype == torch.float16)
                    del ref
                    if not ok:
                        failed = True
                        note(f"{variant} {dname} {rows}x{cols}: max error {max_err:.3e} is over the tolerance")
                        row(variant, op, None, None, ceiling, max_err, "FAIL")
                        continue
                    med, mn = time_op(torch, fn, inputs, args.iters, args.warmup)
                    row(variant, op, med, mn, ceiling, max_err, "ok")
                del inputs
                torch.cuda.empty_cache()
    except (torch.cuda.OutOfMemoryError if hasattr(torch.cuda, "OutOfMemoryError") else MemoryError):
        note("out of device memory; free the GPU or run where 4 GiB are free")
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
