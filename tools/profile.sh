#!/bin/sh
# SPDX-License-Identifier: MIT
# profile.sh: what the hardware counters say about every variant of the stages.
#
#   tools/profile.sh [STAGE...]         Nsight Compute over every variant of each stage (default:
#                                       every NN_* folder) -> a table and results/profile.csv
#   tools/profile.sh --reparse [STAGE...]  the same table and CSV from the exports kept in
#                                       results/profile/ by an earlier run (no GPU needed)
#   tools/profile.sh --need             exit 3 with one line when no GPU, ncu or cuobjdump
#   tools/profile.sh --selftest         checks the parser on a built-in sample export
#   tools/profile.sh --selftest RENAMED.csv [REAL.csv]   checks it on real exports (the one
#                                       with --print-nvtx-rename kernel, the one without)
#
# How: each stage program runs once under ncu at its default size (sums n = 2^28, row ops
# 65536 x 1024: every SM busy for many waves) with REDUCE_PROFILE=1 --iters 1 --warmup 0, so
# that exactly one timed launch of each variant (and of the baselines it is compared with)
# runs between cudaProfilerStart/Stop inside an NVTX range named stage/variant/op/dtype:
#   REDUCE_PROFILE=1 ncu --clock-control none --profile-from-start off --nvtx --metrics ...
#       -f -o results/profile/STAGE $NCU_FLAGS build/STAGE --iters 1 --warmup 0
# The clocks are never locked (--clock-control none): the GPU runs as it does for the timed
# runs. The report is exported twice as CSV (ncu --import --csv --page raw --print-units base),
# with --print-nvtx-rename kernel (kernels named by their range) and with
# --print-kernel-base mangled (the real names, to find each kernel's SASS); both are kept in
# results/profile/ with the report, the program's log and per-kernel rows (kernels.csv).
#
# Columns of results/profile.csv (a variant of several kernels: duration is their sum, the
# other counters are its longest kernel's):
#   duration_us               gpu__time_duration.sum (one replayed launch, caches flushed by
#                             ncu; quote the event-timed medians of make run for speed)
#   dram_pct_of_peak          dram__throughput.avg.pct_of_peak_sustained_elapsed
#   achieved_occupancy_pct    sm__warps_active.avg.pct_of_peak_sustained_active
#   registers_per_thread      launch__registers_per_thread
#   thread_inst_per_inst      smsp__average_thread_inst_executed_pred_on_per_inst_executed.ratio:
#                             lanes doing work per warp instruction, of 32 (predicated-off and
#                             inactive lanes excluded: shows a predicated tree's idle lanes)
#   shared_bank_conflicts_per_request  bank-conflict wavefronts per shared-memory wavefront:
#                             (l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum + _st.sum)
#                             / (l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum + _st.sum);
#                             0 conflict-free (about 0.02 measured), 0.5 two-way, 0.97 32-way;
#                             0 when the kernel makes no shared-memory access
#   global_ld_sectors_per_request  l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum /
#                             l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum: 4 for a warp's
#                             4-byte loads, 16 for 16-byte loads; 0 without global loads
#   bytes_in_flight_per_sm    Little's law, never derived from the measured bandwidth:
#                             sm__warps_active.avg.per_cycle_active (achieved warps per SM)
#                             x 32 lanes x B, where B is the bytes of global loads one thread
#                             issues before it must wait for the first of them, read from the
#                             kernel's SASS (cuobjdump -sass, the running GPU's section) by
#                             tools/sass_inflight.awk: within a basic block, the largest group
#                             of LDG (widths 4, 8, 16, 2, 1 bytes from the opcode) issued before
#                             an instruction reads one of their registers, or a BRA, BAR or
#                             EXIT. A bandwidth needs about latency x bandwidth bytes in flight.
# Also collected, kept in results/profile/kernels.csv: sm__ctas_launched.sum and
# smsp__sass_inst_executed_op_global_atom.sum.
#
# Environment: NCU_FLAGS (appended to ncu's options), BUILD (build), RESULTS (results),
# ARCH (the SASS section to read), HAVE_GPU (from make), CUDA_HOME. ncu and cuobjdump are
# looked for on PATH, then in $CUDA_HOME/bin, /usr/local/cuda/bin, /opt/nvidia/nsight-compute.
# Exit: 0 done; 1 a stage's run or export failed (the others are still reported); 2 usage;
# 3 no GPU, or ncu or cuobjdump missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tools/evidence_lib.sh
. "$here/evidence_lib.sh"
BUILD=${BUILD:-build}
RESULTS=${RESULTS:-results}
NCU_FLAGS=${NCU_FLAGS:-}
PDIR=$RESULTS/profile
CSV_HEADER=gpu,stage,variant,op,dtype,rows,cols,duration_us,dram_pct_of_peak,\
achieved_occupancy_pct,registers_per_thread,thread_inst_per_inst,\
shared_bank_conflicts_per_request,global_ld_sectors_per_request,bytes_in_flight_per_sm
METRICS=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,\
sm__warps_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.per_cycle_active,\
launch__registers_per_thread,smsp__average_thread_inst_executed_pred_on_per_inst_executed.ratio,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,\
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,\
sm__ctas_launched.sum,smsp__sass_inst_executed_op_global_atom.sum

# csv_comments GPU NCU_VERSION: the # lines of profile.csv
csv_comments() {
    cat <<EOF
# gpu: $1
# ncu: $2
# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)
# how: tools/profile.sh; one launch of each variant at its stage's default size under ncu
#   --clock-control none; several kernels of one variant: duration summed, other counters
#   of the longest kernel (definitions of every column: the header of tools/profile.sh)
# shared_bank_conflicts_per_request: bank-conflict wavefronts per shared-memory wavefront,
#   (l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld+st) /
#   (l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld+st); 0 when no shared-memory access
# global_ld_sectors_per_request: l1tex__t_sectors_pipe_lsu_mem_global_op_ld /
#   l1tex__t_requests_pipe_lsu_mem_global_op_ld
# bytes_in_flight_per_sm: sm__warps_active.avg.per_cycle_active x 32 lanes x bytes of
#   global loads one thread issues before it must wait for the first (from the kernel's SASS
#   by tools/sass_inflight.awk); not derived from the measured bandwidth
EOF
}

# inflight_table STAGE: "mangled<TAB>bytes<TAB>demangled" for every kernel of build/STAGE
inflight_table() {
    bin=$BUILD/$1
    arch=$(pick_arch "$cuobj" "$bin")
    if [ -z "$arch" ]; then
        echo "profile: $bin holds no SASS; bytes in flight left empty" >&2
        return 0
    fi
    tmp=$PDIR/$1.tmp
    "$cuobj" -sass -arch "$arch" "$bin" | awk -f "$here/sass_inflight.awk" | tr ' ' '\t' > "$tmp"
    cut -f1 "$tmp" | demangle | paste "$tmp" -
    rm -f "$tmp"
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
    # the real names mangled where this ncu can (they match the SASS exactly), else as it
    # prints them (matched by name and template arguments)
    for opt in "--print-nvtx-rename kernel" "--print-kernel-base mangled" ""; do
        how=real
        [ "$opt" = "--print-nvtx-rename kernel" ] && how=renamed
        [ -z "$opt" ] && [ -s "$PDIR/$s.real.csv" ] && break
        # shellcheck disable=SC2086
        LC_ALL=C "$ncu" --import "$PDIR/$s.ncu-rep" --csv --page raw --print-units base $opt \
            > "$PDIR/$s.$how.csv" 2>> "$PDIR/$s.export.err" && continue
        : > "$PDIR/$s.$how.csv"
        [ "$opt" = "--print-kernel-base mangled" ] && continue
        echo "profile: $s: ncu --import ... $opt failed: $(head -n 3 "$PDIR/$s.export.err")" >&2
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

# parse_stage STAGE: appends the stage's rows to $rows and its kernels to kernels.csv
parse_stage() {
    s=$1
    for f in renamed.csv real.csv; do
        [ -f "$PDIR/$s.$f" ] || { echo "profile: $s: $PDIR/$s.$f is missing" >&2; return 1; }
    done
    [ -f "$PDIR/$s.inflight" ] || : > "$PDIR/$s.inflight"
    run=$PDIR/$s.run.csv
    [ -f "$run" ] || run=/dev/null
    awk -v stage="$s" -v detail="$PDIR/kernels.csv" -f "$here/profile_parse.awk" \
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
        csv_comments "${gpu:-unknown}" "${ver:-unknown}"
        echo "$CSV_HEADER"
        cut -d, -f1-15 "$rows.once"
    } > "$out.tmp" && mv "$out.tmp" "$out"
    print_table "$rows.once"
    echo "wrote $out: $(wc -l < "$rows.once") variants; per kernel: $PDIR/kernels.csv"
}

# --selftest with no file: a small export in the shape ncu writes, parsed and compared
builtin_selftest() {
    t=$(mktemp -d) || exit 3
    sig='(float const*, float*, unsigned long'
    {
        printf '_Z8two_passPKfPfm\t16\ttwo_pass%s)\n' "$sig"
        printf '_Z6finishPKfPfm\t4\tfinish%s)\n' "$sig"
        printf '_Z4rowsILi4EEvPKfPfmm\t64\tvoid rows<4>%s, unsigned long)\n' "$sig"
        printf '_Z4rowsILi8EEvPKfPfmm\t128\tvoid rows<8>%s, unsigned long)\n' "$sig"
    } > "$t/inflight"
    {
        echo "# gpu: NVIDIA H200"
        echo "$CSV_HEADER"
        echo "NVIDIA H200,09_test,rows4,rowsum,f32,4096,512,0,1,1,1,1,1,0,ok"
    } > "$t/run.csv"
    # one export as ncu writes it: a line of the profiler first, the header, the units, one
    # row per kernel; the NVTX column holds quotes, a demangled name holds commas
    export_csv() { # renamed|real
        echo "==PROF== Connected to process 4242 (/work/build/09_test)"
        h='"ID","Process ID","Process Name","Host Name"'
        h="$h,\"thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg\""
        h="$h,\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\""
        for m in $(echo "$METRICS" | tr ',' ' '); do h="$h,\"$m\""; done
        echo "$h"
        u='"","","","","","","","","","","",""'
        u="$u,\"nsecond\",\"%\",\"%\",\"warp\",\"register/thread\",\"\",\"\",\"\",\"\",\"\""
        echo "$u,\"sector\",\"request\",\"block\",\"inst\""
        # values: time, dram%, occ%, warps/cycle, regs, lanes, bank ld, st, wavefronts ld, st,
        # sectors, requests, ctas, atomics
        row "$1" 0 09_test/two_pass/sum/f32 _Z8two_passPKfPfm "250,112" 91.5 97.3 62.3 32 31.9 \
            "1,000" 0 "50,000" "2,000" "8,388,608" "2,097,152" 1056 0
        row "$1" 1 09_test/two_pass/sum/f32 _Z6finishPKfPfm 3040 1.2 45 28.5 30 27.5 \
            0 0 120 8 33 33 1 0
        row "$1" 2 09_test/rows4/rowsum/f32 \
            "void rows<4>(const float *, float *, unsigned long, unsigned long)" \
            12000.5 88 80 51.2 40 32 0 0 0 0 "131,072" "8,192" 512 n/a
    }
    row() { # renamed|real id range name values...
        _k=$3
        [ "$1" = real ] && _k=$4
        _l="\"$2\",\"4242\",\"09_test\",\"127.0.0.1\""
        _l="$_l,\"1  \"\"<default domain>:$3:none:none:none:none:none:none\"\"\",\"$_k\""
        _l="$_l,\"1\",\"13\",\"(256, 1, 1)\",\"(1056, 1, 1)\",\"0\",\"9.0\""
        shift 4
        for _v in "$@"; do _l="$_l,\"$_v\""; done
        echo "$_l"
    }
    export_csv renamed > "$t/renamed.csv"
    export_csv real > "$t/real.csv"
    got=$(awk -v stage=09_test -f "$here/profile_parse.awk" "$t/inflight" "$t/run.csv" \
              "$t/renamed.csv" "$t/real.csv")
    # two_pass: 250.112 + 3.040 us, the other counters of its first (longer) kernel; bank
    # 1000 / 52000; sectors 8388608 / 2097152; 62.3 warps x 32 x 16 B. rows4: the program's
    # shape 4096 x 512; no shared memory: 0; the demangled name finds rows<4>: 51.2 x 32 x 64 B.
    want="NVIDIA H200,09_test,two_pass,sum,f32,1,268435456,253.15,91.5,97.3,32,31.90,0.019,4.00"
    want="$want,31898,1
NVIDIA H200,09_test,rows4,rowsum,f32,4096,512,12.00,88.0,80.0,40,32.00,0.000,16.00,104858,0"
    rc=0
    if [ "$got" = "$want" ]; then
        echo "ok   profile_parse.awk on a sample export (quotes, commas, thousands separators," \
             "two kernels in one range, n/a, a demangled name)"
    else
        printf 'FAIL profile_parse.awk on the sample:\n got:\n%s\n want:\n%s\n' "$got" "$want"
        rc=1
    fi
    if awk -v stage=selftest -v check=1 -f "$here/profile_parse.awk" /dev/null /dev/null \
           "$t/renamed.csv" "$t/real.csv" 2>/dev/null; then
        echo "ok   the check of real exports (--selftest FILE) accepts the sample"
    else
        echo "FAIL the check of real exports (--selftest FILE) rejects the sample"
        rc=1
    fi
    # a renamed export without ranges (no --nvtx) must be reported
    sed 's|09_test/[a-z_0-9]*/[a-z]*/f32|x|g' "$t/renamed.csv" > "$t/bare.csv"
    if awk -v stage=selftest -v check=1 -f "$here/profile_parse.awk" /dev/null /dev/null \
           "$t/bare.csv" "$t/bare.csv" 2>/dev/null; then
        echo "FAIL the check of real exports accepts kernels without a range"
        rc=1
    else
        echo "ok   the check of real exports reports kernels without a range"
    fi
    rm -rf "$t"
    return $rc
}

# --selftest RENAMED [REAL]: what the parser finds in real exports
file_selftest() {
    renamed=$1
    real=${2:-$1}
    for f in "$renamed" "$real"; do
        [ -f "$f" ] || { echo "profile --selftest: no file $f" >&2; exit 2; }
    done
    if awk -v stage=selftest -v check=1 -f "$here/profile_parse.awk" /dev/null /dev/null \
           "$renamed" "$real"; then
        echo "ok   the exports parse: every kernel has a range and every metric a column"
        return 0
    fi
    echo "FAIL the exports do not parse cleanly (see above)"
    return 1
}

# need: exits 3 with one line when no GPU, ncu or cuobjdump; sets ncu and cuobj
need() {
    have_gpu || {
        echo "profile: no GPU on this machine (nvidia-smi finds none): make profile needs one"
        exit 3
    }
    ncu=$(find_tool ncu) || {
        echo "profile: Nsight Compute (ncu) is not on PATH, in \$CUDA_HOME/bin or" \
             "/opt/nvidia/nsight-compute"
        exit 3
    }
    cuobj=$(find_tool cuobjdump) || {
        echo "profile: cuobjdump is not on PATH or in \$CUDA_HOME/bin (bytes in flight need it)"
        exit 3
    }
}

usage() {
    echo "usage: tools/profile.sh [--reparse] [STAGE...] | --need | --selftest [RENAMED [REAL]]" >&2
    exit 2
}

mode=run
ncu=""
case ${1:-} in
--need) need; exit 0 ;;
--selftest)
    shift
    if [ $# -eq 0 ]; then builtin_selftest; exit $?; fi
    [ $# -le 2 ] || usage
    file_selftest "$@"; exit $? ;;
--reparse) mode=reparse; shift ;;
-h|--help) sed -n '3,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
-*) usage ;;
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
echo "stage,range,kernel,duration_us,$(echo "$METRICS" | cut -d, -f2-),bytes_per_thread" \
    > "$PDIR/kernels.csv"
status=0
for s in "$@"; do
    if [ $mode = run ]; then profile_stage "$s" || status=1; fi
    parse_stage "$s" || status=1
done
if [ -s "$rows" ]; then finish; else echo "profile: no rows: nothing was profiled" >&2; status=1; fi
[ $status -eq 0 ] || echo "profile: a stage FAILED (above); its rows may be missing or partial"
exit $status
