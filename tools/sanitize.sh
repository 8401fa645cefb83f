#!/bin/sh
# SPDX-License-Identifier: MIT
# sanitize.sh: compute-sanitizer over every variant of the stages, every dtype, awkward sizes.
#
#   tools/sanitize.sh [--baselines] [STAGE...]   (default: every NN_* folder)
#                                   -> results/sanitize.txt
#   tools/sanitize.sh --need        exit 3 with one line when no GPU or no compute-sanitizer
#   tools/sanitize.sh --selftest    checks the summary of sanitizer logs on built-in samples
#
# Tools (SANITIZERS, default all four): memcheck --leak-check full, racecheck (shared-memory
# hazards), synccheck (barrier and __syncwarp misuse), initcheck (reads of uninitialised global
# memory); each with --error-exitcode 1, so a warning fails too. Each runs the stage programs
# with --check-only (every variant and dtype, an exact pattern and random data) at sizes
# chosen per op: sums -n 1,33,1025,65537,1000003; row sums --rows 7 --cols 1,33,260,1025,5000 and
# --rows 3 --cols 200003 (few long rows); softmax --rows 37 --cols 1,33,1025,5000,40000,
# --rows 1 --cols 262147 and --rows 8 --cols 131075 (the split paths; 8 x 131075 gathers its 36
# CTAs a row in registers, two states a lane), and the dispatch variant at
# --rows 300 --cols 16389,50257,60001 (the stream path: a CTA a row, a cluster looping over the
# rows; at 60001 the ring, 16-bit CTAs and float clusters of 2; float CTAs a row and float
# log-softmax rings write their outputs through the TMA), then at --cols 50257 with
# REDUCE_STREAM_LOOP=1 (CTAs looping: one buffer in float, two in 16-bit types) and with
# REDUCE_STREAM_RING=1 (a float CTA a row as a ring), at --cols 60001 with REDUCE_STREAM_NBUF=2 (the
# ring's split ask), at --rows 32 --cols 128257 and, with REDUCE_STREAM_FLAGS=1, --rows 8 --cols 131075
# (the split plan on the stream kernel in one launch); a run line may start with VAR=VALUE words,
# set for that run. racecheck costs about 11x a plain run: it drops the largest sum and checks
# softmax at 5 rows. memcheck also runs the gpu suite (build/test_gpu, GPU_TEST_QUICK=1,
# GPU_TEST_STAGES when narrowed); --baselines adds the baselines program.
# One line per tool and program ("memcheck 05_packed: 0 errors (34 variant checks in 3 runs,
# 9 s)", or FAILED with the first lines of the report) on stdout and in results/sanitize.txt;
# full logs in results/sanitize/. compute-sanitizer is looked for on PATH, in $CUDA_HOME/bin,
# /usr/local/cuda/bin and $CUDA_HOME/compute-sanitizer.
# Exit: 0 all clean; 1 a tool found something or a program failed; 2 usage; 3 no GPU or no
# compute-sanitizer.
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
    ops=$("$BUILD/$2" --list 2>/dev/null | awk 'NR > 1 {print $2}' | sort -u)
    has() { echo "$ops" | grep -qx "$1"; }
    rows_too=0
    has rowsum && rows_too=1
    if has sum; then
        if [ "$1" = racecheck ]; then echo "--op sum -n 1,33,1025,65537"
        else echo "--op sum -n 1,33,1025,65537,1000003"; fi
    fi
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
        # the stream path takes at least as many rows as SMs: a CTA a row, a cluster; then the
        # looping plan of a single CTA (one buffer in float, two in 16-bit at 50257 columns), and
        # the ring (60001: 16-bit CTAs a row and float clusters of 2; forced at float 50257)
        has_dispatch=$("$BUILD/$2" --list 2>/dev/null | awk '$1 == "dispatch"' | head -1)
        if [ -n "$has_dispatch" ]; then
            echo "$sel --variant dispatch --rows 300 --cols 16389,50257,60001"
            echo "REDUCE_STREAM_LOOP=1 $sel --variant dispatch --rows 300 --cols 50257"
            echo "REDUCE_STREAM_RING=1 $sel --variant dispatch --rows 300 --cols 50257"
            # the ring's split ask (its own kernel), forced at 60001 columns: 16-bit CTAs a row
            # and float clusters of 2 (the rule takes it for 16-bit clusters, and for CTAs a row
            # on fast DRAM)
            echo "REDUCE_STREAM_NBUF=2 $sel --variant dispatch --rows 300 --cols 60001"
            # the split plan on the stream kernel in one launch: the default where the register
            # flags do not fit (float at 32 x 128257 on an H100), then forced in every dtype
            echo "$sel --variant dispatch --rows 32 --cols 128257"
            echo "REDUCE_STREAM_FLAGS=1 $sel --variant dispatch --rows 8 --cols 131075"
        fi
    done
}

# summarize TOOL PROGRAM SECONDS LOG RC [LOG RC ...]: the one line (and, on failure, the first
# lines of the report, indented) for one tool over one program's runs
summarize() {
    tool=$1 prog=$2 secs=$3
    shift 3
    args=""
    while [ $# -ge 2 ]; do args="$args $1:$2"; shift 2; done
    # shellcheck disable=SC2086
    awk -v tool="$tool" -v prog="$prog" -v secs="$secs" -v pairs="$args" '
        BEGIN {
            n = split(pairs, pr, " ")
            for (i = 1; i <= n; i++) {
                c = match(pr[i], /:[0-9]+$/)
                log_path = substr(pr[i], 1, RSTART - 1)
                rc = substr(pr[i], RSTART + 1) + 0
                runs++
                got_summary = 0
                while ((getline line < log_path) > 0) {
                    if (line ~ /ERROR SUMMARY: [0-9]+ error/) {
                        got_summary = 1
                        x = line; sub(/.*ERROR SUMMARY: /, "", x); errors += x + 0
                    } else if (line ~ /RACECHECK SUMMARY: [0-9]+ hazard/) {
                        got_summary = 1
                        x = line; sub(/.*RACECHECK SUMMARY: /, "", x); hazards += x + 0
                    } else if (line ~ /^========= / && line !~ /COMPUTE-SANITIZER|SUMMARY:/) {
                        if (nrep < 6 && !(line in seen)) { seen[line] = 1; report[++nrep] = line }
                    } else if (line ~ / (ok|FAIL) \(max \|err\|/) {
                        checks++
                        if (line ~ / FAIL \(/ && nfail < 2) failed[++nfail] = line
                    } else if (line ~ /^  FAIL / && nfail < 4) failed[++nfail] = line
                    else if (line ~ /^error: / && nerr < 2) errs[++nerr] = line
                    else if (line ~ /^[ \t]*tests([ \t]+[0-9]+)([ \t]+[0-9]+)([ \t]+[0-9]+)/) {
                        split(line, tf, " ")
                        cunit = "CUnit: " tf[3] " tests run, " tf[5] " failed, "
                    }
                }
                close(log_path)
                if (rc != 0) { bad_rc = rc; bad_log = log_path }
                if (!got_summary) no_summary = log_path
            }
            found = errors + hazards
            what = found (hazards ? " hazard" : " error") (found == 1 ? "" : "s")
            ok = !bad_rc && found == 0 && no_summary == ""
            detail = checks " variant check" (checks == 1 ? "" : "s") " in " runs " run" \
                     (runs == 1 ? "" : "s") ", " secs " s"
            if (prog == "test_gpu") detail = cunit runs " run, " secs " s"
            if (ok) { printf "%s %s: 0 errors (%s)\n", tool, prog, detail; exit 0 }
            reason = found ? what : (bad_rc ? "the program exited " bad_rc : "no sanitizer summary")
            printf "%s %s: FAILED: %s (%s; log %s)\n", tool, prog, reason, detail,
                   bad_log != "" ? bad_log : no_summary
            for (i = 1; i <= nrep; i++) print "    " report[i]
            for (i = 1; i <= nfail; i++) print "    " failed[i]
            for (i = 1; i <= nerr; i++) print "    " errs[i]
            exit 1
        }'
}

# sanitize_one TOOL PROGRAM: every run of the tool over the program, then its summary line
sanitize_one() {
    tool=$1 prog=$2
    extra=""
    [ "$tool" = memcheck ] && extra="--leak-check full"
    start=$(date +%s)
    k=0
    pairs=""
    if [ "$prog" = test_gpu ]; then
        log=$LDIR/${tool}_test_gpu.log
        echo "\$ GPU_TEST_QUICK=1 GPU_TEST_STAGES='$gpu_stages' compute-sanitizer --tool $tool" \
             "$extra --error-exitcode 1 $BUILD/test_gpu" > "$log"
        # the baselines are tested only when every stage is: GPU_TEST_STAGES stays unset then
        if [ -n "$gpu_stages" ]; then export GPU_TEST_STAGES="$gpu_stages"; fi
        # shellcheck disable=SC2086
        GPU_TEST_QUICK=1 "$cs" --tool "$tool" $extra --error-exitcode 1 "$BUILD/test_gpu" \
            >> "$log" 2>&1 < /dev/null
        pairs="$log $?"
    else
        runs_for "$tool" "$prog" > "$LDIR/runs.tmp"
        while read -r run_args; do
            k=$((k + 1))
            log=$LDIR/${tool}_${prog}_$k.log
            # leading VAR=VALUE words: the environment of this run
            run_env=""
            while :; do
                case "$run_args" in *" "*) ;; *) break ;; esac
                tok=${run_args%% *}
                case "$tok" in
                    [A-Z]*=*) run_env="$run_env $tok"; run_args=${run_args#* } ;;
                    *) break ;;
                esac
            done
            echo "\$${run_env} compute-sanitizer --tool $tool $extra --error-exitcode 1" \
                 "$BUILD/$prog --check-only $run_args" > "$log"
            # shellcheck disable=SC2086
            env $run_env "$cs" --tool "$tool" $extra --error-exitcode 1 "$BUILD/$prog" \
                --check-only $run_args >> "$log" 2>&1 < /dev/null
            pairs="$pairs $log $?"
        done < "$LDIR/runs.tmp"
        rm -f "$LDIR/runs.tmp"
        [ -n "$pairs" ] || { echo "$tool $prog: nothing to run (no variants listed)"; return 0; }
    fi
    # shellcheck disable=SC2086
    summarize "$tool" "$prog" $(( $(date +%s) - start )) $pairs
}

need() {
    have_gpu || {
        echo "sanitize: no GPU on this machine (nvidia-smi finds none): make sanitize needs one"
        exit 3
    }
    cs=$(find_tool compute-sanitizer) ||
        { echo "sanitize: compute-sanitizer is not on PATH or in \$CUDA_HOME/bin"; exit 3; }
}

selftest() {
    t=$(mktemp -d) || exit 3
    fails=0
    cat > "$t/clean.log" <<'EOF'
========= COMPUTE-SANITIZER
05_packed: Packed 16-byte loads
packed_sum sum f32 n=1 - - - - - ok (max |err| 0)
packed_sum sum f32 n=33 - - - - - ok (max |err| 0)
========= ERROR SUMMARY: 0 errors
EOF
    cat > "$t/race.log" <<'EOF'
========= COMPUTE-SANITIZER
last_warp_volatile sum f32 n=1025 - - - - - ok (max |err| 0)
========= Warning: Race reported between Write access at reduce_last_warp+0x3f0 in shuffle.cu:88
=========     and Read access at reduce_last_warp+0x410 in shuffle.cu:88 [4 hazards]
=========
========= RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 warning)
EOF
    cat > "$t/check.log" <<'EOF'
========= COMPUTE-SANITIZER
packed_sum sum f32 n=1025 - - - - - FAIL (max |err| 2)
  FAIL 05_packed/packed_sum (sum f32, n=1025, exact input): index 0: expected 1025, got 1023
result: a check FAILED (exit 1)
========= ERROR SUMMARY: 0 errors
EOF
    cat > "$t/nodev.log" <<'EOF'
========= COMPUTE-SANITIZER
========= Error: Device not supported
EOF
    expect() { # WANT_PREFIX ARGS...
        want=$1
        shift
        got=$(summarize "$@")
        case "$got" in
        "$want"*) echo "ok   $want" ;;
        *) echo "FAIL want '$want...', got:"; echo "$got"; fails=1 ;;
        esac
    }
    expect "memcheck 05_packed: 0 errors (4 variant checks in 2 runs, 3 s)" \
        memcheck 05_packed 3 "$t/clean.log" 0 "$t/clean.log" 0
    expect "racecheck 03_shuffle: FAILED: 1 hazard (" racecheck 03_shuffle 5 "$t/race.log" 1
    expect "initcheck 05_packed: FAILED: the program exited 1" \
        initcheck 05_packed 1 "$t/check.log" 1
    expect "synccheck 07_softmax: FAILED: the program exited 255" \
        synccheck 07_softmax 0 "$t/nodev.log" 255
    expect "memcheck test_gpu: 0 errors (1 run, 7 s)" memcheck test_gpu 7 "$t/clean.log" 0
    got=$(summarize racecheck 03_shuffle 5 "$t/race.log" 1 | sed -n 2p)
    case "$got" in
    "    ========= Warning: Race reported"*)
        echo "ok   a failure quotes the first lines of the report" ;;
    *) echo "FAIL the report lines are missing: $got"; fails=1 ;;
    esac
    rm -rf "$t"
    return $fails
}

with_baselines=0
case ${1:-} in
--selftest) selftest; exit $? ;;
--need) need; exit 0 ;;
--baselines) with_baselines=1; shift ;;
-h|--help) sed -n '3,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
-*) echo "usage: tools/sanitize.sh [--baselines] [STAGE...] | --need | --selftest" >&2; exit 2 ;;
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
