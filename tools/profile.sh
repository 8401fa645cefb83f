#!/bin/sh
# SPDX-License-Identifier: MIT
# profile.sh: what the hardware counters say about every variant of the stages.
#
#   tools/profile.sh [STAGE...]            Nsight Compute over every variant of each stage
#                                          (default: every NN_* folder) -> a table and
#                                          results/profile.csv
#   tools/profile.sh --reparse [STAGE...]  the same from an earlier run's results/profile/
#   tools/profile.sh --need                exit 3 with one line when no GPU, ncu or cuobjdump
#
# One launch of each variant at its stage's default size under ncu --clock-control none, two
# exports of the report (maint/EVIDENCE_NOTES.md: how, and what each column is). A stage that
# spans several GPUs is left out: ncu replays each kernel alone, and NCCL's wait for peers.
# Environment: NCU_FLAGS (ncu's options), BUILD, RESULTS, ARCH, HAVE_GPU, CUDA_HOME.
# Exit: 0 done; 1 a stage failed (the others are still reported); 2 usage; 3 no GPU or tool.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tools/evidence_lib.sh
. "$here/evidence_lib.sh"
BUILD=${BUILD:-build}
RESULTS=${RESULTS:-results}
NCU_FLAGS=${NCU_FLAGS:-}
PDIR=$RESULTS/profile
# inflight_table STAGE: "mangled bytes" for every kernel of build/STAGE
inflight_table() {
    arch=$(pick_arch "$cuobj" "$BUILD/$1")
    [ -n "$arch" ] || { echo "profile: $BUILD/$1 holds no SASS: no bytes in flight" >&2; return; }
    "$cuobj" -sass -arch "$arch" "$BUILD/$1" | awk -f "$here/sass_inflight.awk"
}

# profile_stage STAGE: runs the stage under ncu and exports the report; 0 on success
profile_stage() {
    s=$1
    rm -f "$PDIR/$s".*
    inflight_table "$s" > "$PDIR/$s.inflight"
    echo "profile: $s under Nsight Compute ..."
    start=$(date +%s)
    # shellcheck disable=SC2086
    REDUCE_PROFILE=1 "$ncu" --clock-control none --profile-from-start off --nvtx \
        --metrics "$METRICS" -f -o "$PDIR/$s" $NCU_FLAGS \
        "$BUILD/$s" --iters 1 --warmup 0 --csv "$PDIR/$s.run.csv" > "$PDIR/$s.log" 2>&1
    rc=$?
    echo "profile: $s: exit $rc after $(( $(date +%s) - start )) s (log $PDIR/$s.log)"
    if grep -q 'Failed to find metric' "$PDIR/$s.log"; then
        echo "profile: $s: this ncu lacks a metric:" \
             "$(grep -m1 'Failed to find metric' "$PDIR/$s.log")" >&2
    fi
    if [ ! -f "$PDIR/$s.ncu-rep" ]; then
        echo "profile: $s: no report was written; the end of the log:" >&2
        tail -n 15 "$PDIR/$s.log" >&2
        return 1
    fi
    # the kernels named after their ranges, and by their mangled names (as in the SASS)
    for how in "renamed --print-nvtx-rename kernel" "real --print-kernel-base mangled"; do
        # shellcheck disable=SC2086
        set -- $how
        LC_ALL=C "$ncu" --import "$PDIR/$s.ncu-rep" --csv --page raw --print-units base "$2" "$3" \
            > "$PDIR/$s.$1.csv" 2>> "$PDIR/$s.export.err" && continue
        echo "profile: $s: ncu --import ... $2 $3 failed: $(head -n 3 "$PDIR/$s.export.err")" >&2
        return 1
    done
    if [ $rc -ne 0 ]; then
        echo "profile: $s: exit $rc (a failed check, or ncu could not profile a kernel);" \
             "the end of the log:" >&2
        grep -v '^==PROF==' "$PDIR/$s.log" | tail -n 8 >&2
        return 1
    fi
    return 0
}

# parse_stage STAGE: appends the stage's rows to $rows
parse_stage() {
    s=$1
    for f in renamed.csv real.csv; do
        [ -f "$PDIR/$s.$f" ] || { echo "profile: $s: $PDIR/$s.$f is missing" >&2; return 1; }
    done
    [ -f "$PDIR/$s.inflight" ] || : > "$PDIR/$s.inflight"
    run=$PDIR/$s.run.csv
    [ -f "$run" ] || run=/dev/null
    awk -v stage="$s" -v metrics="$METRICS" -f "$here/profile_parse.awk" \
        "$PDIR/$s.inflight" "$run" "$PDIR/$s.renamed.csv" "$PDIR/$s.real.csv" >> "$rows"
}

# print_table ROWS: the aligned table for people (ROWS: profile.csv rows and the shared flag)
print_table() {
    awk -F, '
        function show(v, spec) { return v == "" ? "?" : sprintf(spec, v) }
        !head++ {
            printf "%-16s %-24s %-10s %-5s %-13s %9s %6s %6s %5s %6s %6s %7s %7s\n", "stage",
                   "variant", "op", "dtype", "shape", "time_us", "dram%", "occ%", "regs", "lanes",
                   "bank", "sect/rq", "KB/SM"
        }
        {
            shape = $4 == "sum" ? "n=" $7 : $6 "x" $7
            bank = $16 == "0" ? "-" : show($13, "%.3f")
            kb = $15 == "" ? "?" : sprintf("%.1f", $15 / 1024)
            printf "%-16s %-24s %-10s %-5s %-13s %9s %6s %6s %5s %6s %6s %7s %7s\n", $2, $3,
                   $4, $5, shape, show($8, "%.1f"), show($9, "%.1f"), show($10, "%.1f"),
                   show($11, "%d"), show($12, "%.1f"), bank, show($14, "%.2f"), kb
        }' "$1"
    cat <<'EOF'
time_us: one profiled launch; dram%: of peak DRAM throughput; occ%: achieved occupancy; regs:
per thread; lanes: active per warp instruction, of 32; bank: conflict wavefronts per shared
wavefront (- no shared memory); sect/rq: global load sectors per request; KB/SM: bytes in
flight per SM (Little's law: achieved warps x 32 x SASS bytes per thread); ?: not measured.
EOF
}

# finish: profile.csv from the rows (each baseline once per shape), then the table
finish() {
    out=$RESULTS/profile.csv
    awk -F, '$2 != "baseline" || !seen[$3 FS $4 FS $5 FS $6 FS $7]++' "$rows" > "$rows.once"
    gpu=$(awk -F, 'NR == 1 {print $1}' "$rows.once")
    ver=""
    [ -n "$ncu" ] && ver=$("$ncu" --version 2>/dev/null | tail -n 1)
    [ -n "$ver" ] || ver=$(sed -n 's/^# ncu: //p' "$out" 2>/dev/null | head -n 1)
    {
        printf '# gpu: %s\n# ncu: %s\n# date: %s\n' "${gpu:-unknown}" "${ver:-unknown}" \
            "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "# how: tools/profile.sh; one launch of each variant at its stage's default size" \
             "under ncu --clock-control none; the columns: maint/EVIDENCE_NOTES.md"
        echo "$CSV_HEADER"
        cut -d, -f1-15 "$rows.once"
    } > "$out.tmp" && mv "$out.tmp" "$out"
    print_table "$rows.once"
    echo "wrote $out: $(wc -l < "$rows.once") variants"
}

# need: exits 3 with one line when no GPU, ncu or cuobjdump; sets ncu and cuobj
need() {
    have_gpu || { echo "profile: no GPU on this machine (nvidia-smi finds none)"; exit 3; }
    ncu=$(find_tool ncu) || { echo "profile: Nsight Compute (ncu) is not on PATH," \
        "in \$CUDA_HOME/bin or /opt/nvidia/nsight-compute"; exit 3; }
    cuobj=$(find_tool cuobjdump) || { echo "profile: cuobjdump (for bytes in flight) is not on" \
        "PATH or in \$CUDA_HOME/bin"; exit 3; }
}

mode=run
ncu=""
case ${1:-} in
--need) need; exit 0 ;;
--reparse) mode=reparse; shift ;;
-h|--help) sed -n '3,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
-*) echo "usage: tools/profile.sh [--reparse] [STAGE...] | --need" >&2; exit 2 ;;
esac
# shellcheck disable=SC2046,SC2012
[ $# -gt 0 ] || set -- $(ls -d [0-9][0-9]_*/ 2>/dev/null | tr -d /)
if [ $mode = run ]; then
    for s in "$@"; do
        [ -x "$BUILD/$s" ] || { echo "profile: $BUILD/$s is not built" >&2; exit 2; }
    done
    need
fi
mkdir -p "$PDIR" || exit 3
rows=$(mktemp) || exit 3
trap 'rm -f "$rows" "$rows.once"' EXIT
status=0 n=0
for s in "$@"; do
    if "$BUILD/$s" --list 2>/dev/null | awk '$2 == "allreduce" {f = 1} END {exit !f}'; then
        echo "profile: $s: left out (it spans several GPUs; ncu replays each kernel alone)"
        continue
    fi
    n=$((n + 1))
    if [ $mode = run ]; then profile_stage "$s" || status=1; fi
    parse_stage "$s" || status=1
done
if [ -s "$rows" ]; then finish
elif [ $n -gt 0 ]; then echo "profile: no rows: nothing was profiled" >&2; status=1; fi
[ $status -eq 0 ] || echo "profile: a stage FAILED (above); its rows may be missing or partial"
exit $status
