#!/bin/sh
# SPDX-License-Identifier: MIT
# sanitize.sh: compute-sanitizer over every variant of the stages, every dtype, awkward sizes.
#
#   tools/sanitize.sh [--baselines] [STAGE...]   (default: every NN_* folder; --baselines adds
#                                   the baselines program) -> results/sanitize.txt
#   tools/sanitize.sh --need        exit 3 with one line when no GPU or no compute-sanitizer
#
# The tools of SANITIZERS (default all four), each with --error-exitcode 1, over the programs
# with --check-only at the sizes of runs_for (maint/EVIDENCE_NOTES.md); an all-reduce's variants
# but nccl (its kernels wait for the other GPUs); memcheck also over the gpu suite's quick mode.
# One line per tool and program on stdout and in results/sanitize.txt, logs in
# results/sanitize/. Exit: 0 clean; 1 a finding or a failed program; 2 usage; 3 no GPU or tool.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tools/evidence_lib.sh
. "$here/evidence_lib.sh"
BUILD=${BUILD:-build}
RESULTS=${RESULTS:-results}
SANITIZERS=${SANITIZERS:-memcheck,racecheck,synccheck,initcheck}
LDIR=$RESULTS/sanitize

# the runs of one tool over one program: one line each, the arguments after --check-only
runs_for() { # TOOL PROGRAM
    list=$("$BUILD/$2" --list 2>/dev/null)
    ops=$(echo "$list" | awk 'NR > 1 {print $2}' | sort -u)
    has() { echo "$ops" | grep -qx "$1"; }
    rows_too=0
    has rowsum && rows_too=1
    if has sum; then
        if [ "$1" = racecheck ]; then echo "--op sum -n 1,33,1025,65537"
        else echo "--op sum -n 1,33,1025,65537,1000003"; fi
    fi
    # an all-reduce: each variant but nccl, at sizes that are no multiple of the ranks or chunks,
    # on every GPU and on 3 ranks (which share GPUs where there are fewer: the ring's steps)
    for v in $(echo "$list" | awk '$2 == "allreduce" && $1 != "nccl" {print $1}'); do
        for team in "" "--ranks 3 "; do
            if [ "$1" = racecheck ]; then echo "--op allreduce --variant $v $team-n 1,33,1025"
            else echo "--op allreduce --variant $v $team-n 1,33,1025,65537"; fi
        done
    done
    if has rowsum; then
        echo "--op rowsum --rows 7 --cols 1,33,260,1025,5000"
        echo "--op rowsum --rows 3 --cols 200003"
    fi
    for op in softmax logsoftmax; do
        has $op || continue
        # without a row sum in the program, one run covers softmax and log-softmax
        sel="--op $op"
        if [ $rows_too -eq 0 ]; then
            [ $op = logsoftmax ] && has softmax && continue
            sel=""
        fi
        if [ "$1" = racecheck ]; then echo "$sel --rows 5 --cols 1,33,1025,5000,40000"
        else echo "$sel --rows 37 --cols 1,33,1025,5000,40000"; fi
        echo "$sel --rows 1 --cols 262147"
        echo "$sel --rows 8 --cols 131075"
        # many rows of long columns (the stream paths: at least as many rows as SMs), and a few
        # long rows (the split paths); every variant whose supports() takes the shape
        echo "$sel --rows 300 --cols 16389,50257,60001"
        echo "$sel --rows 32 --cols 128257"
    done
}

# sanitize_one TOOL PROGRAM: every run of the tool over the program, then its summary line
sanitize_one() {
    tool=$1 prog=$2
    extra=""
    [ "$tool" = memcheck ] && extra="--leak-check full"
    start=$(date +%s)
    k=0
    pairs=""
    # the gpu suite: quick mode, on the chosen stages (all of them and the baselines: unset)
    if [ "$prog" = test_gpu ]; then echo; else runs_for "$tool" "$prog"; fi > "$LDIR/runs.tmp"
    while read -r run_args; do
        k=$((k + 1))
        log=$LDIR/${tool}_${prog}_$k.log
        set -- "$cs"
        [ "$prog" = test_gpu ] && set -- env GPU_TEST_QUICK=1 \
            ${gpu_stages:+"GPU_TEST_STAGES=$gpu_stages"} "$cs"
        what="$BUILD/$prog --check-only $run_args"
        [ "$prog" = test_gpu ] && what=$BUILD/test_gpu
        echo "\$ $* --tool $tool $extra --error-exitcode 1 $what" > "$log"
        # shellcheck disable=SC2086
        "$@" --tool "$tool" $extra --error-exitcode 1 $what >> "$log" 2>&1 < /dev/null
        pairs="$pairs $log:$?"
    done < "$LDIR/runs.tmp"
    rm -f "$LDIR/runs.tmp"
    [ -n "$pairs" ] || { echo "$tool $prog: nothing to run (no variants listed)"; return 0; }
    awk -v tool="$tool" -v prog="$prog" -v secs=$(($(date +%s) - start)) -v pairs="$pairs" \
        -f "$here/sanitize_summary.awk"
}

need() {
    have_gpu || { echo "sanitize: no GPU on this machine (nvidia-smi finds none)"; exit 3; }
    cs=$(find_tool compute-sanitizer) ||
        { echo "sanitize: compute-sanitizer is not on PATH or in \$CUDA_HOME/bin"; exit 3; }
}

with_baselines=0
case ${1:-} in
--need) need; exit 0 ;;
--baselines) with_baselines=1; shift ;;
-h|--help) sed -n '3,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
-*) echo "usage: tools/sanitize.sh [--baselines] [STAGE...] | --need" >&2; exit 2 ;;
esac
# shellcheck disable=SC2012,SC2086
all=$(ls -d [0-9][0-9]_*/ 2>/dev/null | tr -d / | tr '\n' ' ')
# shellcheck disable=SC2086
[ $# -gt 0 ] || set -- $all
gpu_stages=""
sorted() { echo "$@" | tr ' ' '\n' | sort -u | tr '\n' ' '; }
# shellcheck disable=SC2086
[ "$(sorted "$@")" = "$(sorted $all)" ] || gpu_stages="$*"
progs="$*"
[ $with_baselines -eq 1 ] && progs="$progs baselines"
for p in $progs; do
    [ -x "$BUILD/$p" ] || { echo "sanitize: $BUILD/$p is not built" >&2; exit 2; }
done
for tool in $(echo "$SANITIZERS" | tr ',' ' '); do
    case $tool in memcheck|racecheck|synccheck|initcheck) ;;
    *) echo "sanitize: SANITIZERS: no tool '$tool' (memcheck racecheck synccheck initcheck)" >&2
       exit 2 ;;
    esac
done
need
mkdir -p "$LDIR" || exit 3
out=$RESULTS/sanitize.txt
{
    echo "# compute-sanitizer: $("$cs" --version 2>/dev/null | tail -n 1)"
    echo "# gpu: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# tools/sanitize.sh: every variant and dtype with --check-only at awkward sizes;" \
         "--error-exitcode 1; logs in $LDIR/"
} > "$out"
status=0
for tool in $(echo "$SANITIZERS" | tr ',' ' '); do
    for p in $progs; do
        sanitize_one "$tool" "$p" | tee -a "$out"
        grep -q "^$tool $p: FAILED" "$out" && status=1
    done
    if [ "$tool" = memcheck ] && [ -x "$BUILD/test_gpu" ]; then
        sanitize_one memcheck test_gpu | tee -a "$out"
        grep -q "^memcheck test_gpu: FAILED" "$out" && status=1
    fi
done
if [ $status -eq 0 ]; then echo "sanitize: all clean; summary in $out"
else echo "sanitize: FAILED (above); summary in $out, logs in $LDIR/"; fi
exit $status
