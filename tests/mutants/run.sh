#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh: the mutant suite, which proves the grader on mistakes students make (INSTRUCTORS.md).
#
#   sh tests/mutants/run.sh [MUTANT...]          (make mutants; GPU) cuts an assignment of the
#                  mutants' stages, grades every mutant as a submission with tools/grade_batch.sh,
#                  then the unchanged solutions, and prints a table: mutant, stage, the tests
#                  that caught it, its score, the verdict
#   sh tests/mutants/run.sh --check [--no-compile] [MUTANT...]   (make test-mutants; no GPU)
#                  every patch has its header, applies to its stage's solution without fuzz,
#                  and the patched .cu compiles with nvcc for one architecture (ARCH, sm_90)
#   sh tests/mutants/run.sh --report DIR         the table and verdict of a run kept in DIR
#
# A mutant is one patch file, tests/mutants/NN_stage/NAME.patch, against the solution files of
# its stage (.cu and .cuh files of the stage folder: what a student submits). Before the diff
# (which `diff -u` or `git diff` writes, paths a/NN_stage/file.cu and b/NN_stage/file.cu) it
# has a header of "Key: value" lines, a value going on over lines that start with spaces:
#   Mistake:      the mistake, as a student makes it (required)
#   Why:          which test should catch it, and why that one (required)
#   Expect:       tests that must be among those failing: suite (the gpu suite), check (the
#                 program check at awkward sizes), run (the standard size), sanitizers
#                 (optional; without it any correctness test will do)
#   Grade-flags:  flags for build/grader while this mutant is graded, e.g. short time limits
#                 for a kernel that never returns (optional)
# A MUTANT argument is NN_stage/NAME or NN_stage (all of its mutants); default: every one.
#
# A mutant is caught when its grading finished, at least one correctness test of its stage
# failed (every test named by Expect among them) and its performance tests scored nothing.
# The solutions must earn full marks. Mutants are graded MUTANT_JOBS at a time (default 4;
# their scores do not depend on timings), the solutions alone afterwards. GRADE_FLAGS applies
# to every grading, before a mutant's own Grade-flags. Everything is kept in BUILD/mutants/:
# list (one line a graded entry: NAME STAGE EXPECT GROUP), subs/, graded/GROUP/NAME/
# (results.json, grade.txt), table.txt.
# Exit codes: 0 every mutant caught and the solutions at full marks (with --check: every
# patch good); 1 otherwise; 2 usage; 3 no GPU (or no nvcc for --check).
set -u

BUILD=${BUILD:-build}
MUTANT_JOBS=${MUTANT_JOBS:-4}
ARCH=${ARCH:-sm_90}
here=tests/mutants
tests_known="suite check run sanitizers"

usage() {
    echo "usage: sh tests/mutants/run.sh [--check [--no-compile]] [MUTANT...] | --report DIR" >&2
    exit 2
}

if ! [ -f tools/grade_batch.sh ] || ! [ -d "$here" ]; then
    echo "run.sh: run from the repository root (no $here or tools/grade_batch.sh)" >&2
    exit 2
fi

# header KEY FILE: the value of KEY in the patch's header, continuation lines joined
header() {
    awk -v key="$1" '
        /^(--- |diff |Index: )/ { exit }
        $0 ~ "^" key ":" { v = $0; sub("^" key ":[ \t]*", "", v); on = 1; next }
        on && /^[ \t]+[^ \t]/ { x = $0; sub(/^[ \t]+/, "", x); v = v " " x; next }
        { on = 0 }
        END { print v }' "$2"
}

# patched_files FILE: the files a patch changes (its +++ b/ paths)
patched_files() {
    sed -n 's|^+++ b/\([^	 ]*\).*|\1|p' "$1"
}

# select MUTANT...: the patch files chosen, one per line, sorted
select_patches() {
    if [ $# -eq 0 ]; then
        find "$here" -name '*.patch' | LC_ALL=C sort
        return
    fi
    for m in "$@"; do
        m=${m%.patch}
        m=${m#"$here"/}
        if [ -f "$here/$m.patch" ]; then echo "$here/$m.patch"
        elif [ -d "$here/$m" ]; then find "$here/$m" -name '*.patch' | LC_ALL=C sort
        else echo "run.sh: no mutant $m (tests/mutants/NN_stage/NAME.patch)" >&2; return 1
        fi
    done
}

# apply_patch DIR FILE: applies the patch in DIR, exact context only (patch(1), else git apply)
apply_patch() {
    if command -v patch >/dev/null 2>&1; then
        patch -p1 -s -F 0 --no-backup-if-mismatch -d "$1" <"$2"
    else
        f=$(cd "$(dirname "$2")" && pwd -P)/$(basename "$2")
        (cd "$1" && git apply -p1 "$f")
    fi
}

stage_of() { p=${1#"$here"/}; echo "${p%%/*}"; }
name_of() { p=${1##*/}; echo "${p%.patch}"; }

# ---- the table --------------------------------------------------------------------------

# report DIR: reads DIR/list and DIR/graded/GROUP/NAME/results.json (the grader's own layout:
# one test a line, its output on the next), prints the table to stdout and DIR/table.txt;
# returns 0 when every mutant was caught and every solution stage earned full marks.
report() {
    dir=$1
    [ -f "$dir/list" ] || { echo "run.sh: no $dir/list" >&2; return 2; }
    : >"$dir/table.tmp"
    status=0
    while read -r name stage expect group; do
        json=$dir/graded/$group/$name/results.json
        line=$(awk -v stage="$stage" -v name="$name" -v expect="$expect" -v json="$json" '
            function short(label) {
                if (label == "gpu suite") return "suite"
                if (label ~ /^program check/) return "check"
                if (label ~ /^standard size/) return "run"
                if (label ~ /^sanitizers/) return "sanitizers"
                return label
            }
            BEGIN {
                while ((getline l < json) > 0) {
                    if (match(l, /"name": "[^"]*"/)) {
                        pending = ""
                        n = substr(l, RSTART + 9, RLENGTH - 10)
                        if (index(n, stage ": ") != 1) continue
                        label = substr(n, length(stage) + 3)
                        sc = l; sub(/.*"score": /, "", sc); sub(/,.*/, "", sc)
                        mx = l; sub(/.*"max_score": /, "", mx); sub(/,.*/, "", mx)
                        st = l; sub(/.*"status": "/, "", st); sub(/".*/, "", st)
                        tests++; score += sc; max += mx
                        if (label ~ /^performance /) perf += sc
                        else if (st != "passed") {
                            pending = short(label)
                            failed[pending] = 1
                            order[++nf] = pending
                        }
                    } else if (pending != "" && l ~ /"output": /) {
                        # how it failed: a time-out, the tool that found something
                        why = ""
                        if (match(l, /(memcheck|racecheck|synccheck|initcheck) found/))
                            why = substr(l, RSTART, RLENGTH - 6)
                        else if (l ~ /not run: an earlier test/) why = "not run"
                        else if (l ~ /timed out after/) why = "timed out"
                        else if (l ~ /was not built/) why = "not built"
                        note[pending] = why
                        pending = ""
                    }
                }
                caught = ""
                for (i = 1; i <= nf; i++)
                    caught = caught (i > 1 ? ", " : "") order[i] \
                             (note[order[i]] != "" ? " (" note[order[i]] ")" : "")
                if (caught == "") caught = "-"
                if (!tests) verdict = "NOT GRADED"
                else if (name == "solutions")
                    verdict = (nf == 0 && score >= max - 0.005) ? "full marks" : "NOT FULL MARKS"
                else if (nf == 0) verdict = "MISSED"
                else if (perf > 0) verdict = "MISSED (performance points)"
                else {
                    verdict = "caught"
                    k = expect == "-" ? 0 : split(expect, want, ",")
                    for (i = 1; i <= k; i++)
                        if (!(want[i] in failed)) verdict = "MISSED (expected " expect ")"
                }
                printf "%s\t%s\t%s\t%.2f/%.2f\t%s\n", name, stage, caught, score, max, verdict
            }')
        printf '%s\n' "$line" >>"$dir/table.tmp"
        case "$line" in
        *"	caught" | *"	full marks") ;;
        *) status=1 ;;
        esac
    done <"$dir/list"
    awk -F '\t' '
        { for (i = 1; i <= NF; i++) { cell[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } }
        END {
            split("mutant stage caught_by score verdict", h, " ")
            h[3] = "caught by"
            for (i = 1; i <= 5; i++) if (length(h[i]) > w[i]) w[i] = length(h[i])
            for (r = 0; r <= NR; r++) {
                line = ""
                for (i = 1; i <= 5; i++) {
                    v = r ? cell[r, i] : h[i]
                    line = line sprintf(i < 5 ? "%-" w[i] "s  " : "%s", v)
                }
                print line
            }
        }' "$dir/table.tmp" | tee "$dir/table.txt"
    rm -f "$dir/table.tmp"
    return $status
}

# ---- --check: headers, patches, compilation (no GPU) ------------------------------------

check() {
    compile=1
    if [ "${1:-}" = --no-compile ]; then compile=0; shift; fi
    patches=$(select_patches "$@") || exit 2
    [ -n "$patches" ] || { echo "run.sh: no mutants in $here" >&2; exit 1; }
    command -v patch >/dev/null 2>&1 || command -v git >/dev/null 2>&1 ||
        { echo "run.sh: --check needs patch(1) or git" >&2; exit 3; }
    if [ $compile -eq 1 ]; then
        nvcc=${NVCC:-$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)}
        [ -x "$nvcc" ] || { echo "run.sh: no nvcc (set NVCC, or --no-compile)" >&2; exit 3; }
    fi
    tmp=$(mktemp -d) || exit 1
    bad=0 n=0 stages=""
    for p in $patches; do
        stage=$(stage_of "$p") name=$(name_of "$p")
        n=$((n + 1))
        why=""
        [ -d "$stage" ] || why="no stage folder $stage"
        [ -z "$why" ] && [ -z "$(header Mistake "$p")" ] && why="no Mistake: line in its header"
        [ -z "$why" ] && [ -z "$(header Why "$p")" ] && why="no Why: line in its header"
        if [ -z "$why" ]; then
            for e in $(header Expect "$p"); do
                case " $tests_known " in
                *" $e "*) ;;
                *) why="Expect: '$e' is none of: $tests_known" ;;
                esac
            done
        fi
        files=$(patched_files "$p")
        [ -z "$why" ] && [ -z "$files" ] && why="no diff (no +++ b/ line)"
        if [ -z "$why" ]; then
            for f in $files; do
                case $f in
                "$stage"/*.cu | "$stage"/*.cuh) [ -f "$f" ] || why="$f: no such file" ;;
                *) why="$f: a mutant changes only its own stage's .cu and .cuh files" ;;
                esac
            done
        fi
        if [ -z "$why" ]; then
            rm -rf "$tmp/tree"
            if ! { mkdir -p "$tmp/tree" && cp -R "$stage" "$tmp/tree/"; }; then
                why="cannot copy $stage"
            fi
        fi
        if [ -z "$why" ] && ! apply_patch "$tmp/tree" "$p" >"$tmp/patch.log" 2>&1; then
            why="does not apply to the solution: $(head -n 3 "$tmp/patch.log" | tr '\n' ' ')"
        fi
        if [ -z "$why" ] && [ $compile -eq 1 ]; then
            for f in $files; do
                case $f in *.cu) ;; *) continue ;; esac
                # shellcheck disable=SC2086
                if ! "$nvcc" -std=c++17 -O3 -lineinfo -arch="$ARCH" -Icommon -Ibaselines \
                    -c "$tmp/tree/$f" -o "$tmp/mutant.o" >"$tmp/nvcc.log" 2>&1; then
                    why="$f does not compile: $(grep -m 2 -i error "$tmp/nvcc.log" | tr '\n' ' ')"
                    break
                fi
            done
        fi
        if [ -n "$why" ]; then
            echo "FAIL $stage/$name: $why"
            bad=$((bad + 1))
        else
            echo "ok   $stage/$name ($(echo "$files" | tr '\n' ' ' | sed 's/ $//')$(
                [ $compile -eq 1 ] && echo ": applies and compiles for $ARCH" ||
                    echo ": applies"))"
            case " $stages " in *" $stage "*) ;; *) stages="$stages $stage" ;; esac
        fi
    done
    rm -rf "$tmp"
    n_stages=$(echo "$stages" | wc -w | tr -d ' ')
    echo "run.sh --check: $((n - bad)) of $n mutants good, across $n_stages stages"
    [ $bad -eq 0 ]
}

# ---- the GPU run ------------------------------------------------------------------------

grade_all() {
    patches=$(select_patches "$@") || exit 2
    [ -n "$patches" ] || { echo "run.sh: no mutants in $here" >&2; exit 1; }
    nvidia-smi -L >/dev/null 2>&1 ||
        { echo "run.sh: no NVIDIA GPU on this machine (nvidia-smi -L lists none)" >&2; exit 3; }
    command -v patch >/dev/null 2>&1 || command -v git >/dev/null 2>&1 ||
        { echo "run.sh: needs patch(1) or git" >&2; exit 3; }
    t0=$(date +%s)
    w=$BUILD/mutants
    rm -rf "$w"
    mkdir -p "$w/subs" "$w/graded" "$w/groups" || exit 1
    w=$(cd "$w" && pwd -P)
    stages=""
    for p in $patches; do
        s=$(stage_of "$p")
        case " $stages " in *" $s "*) ;; *) stages="$stages $s" ;; esac
    done
    stages=${stages# }
    stages_csv=$(echo "$stages" | tr ' ' ',')
    jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)

    # the assignment, built once; objects of the files it keeps come from this tree's build
    echo "run.sh: cutting and building the assignment of $stages_csv (log: $w/assignment.log)"
    {
        make --no-print-directory BUILD="$BUILD" assignment STAGES="$stages_csv" &&
            if [ -d "$BUILD/obj" ]; then
                mkdir -p "$BUILD/assignment/build" && cp -Rp "$BUILD/obj" "$BUILD/assignment/build/"
            fi &&
            make --no-print-directory -C "$BUILD/assignment" -j"$jobs" BUILD=build all
    } >"$w/assignment.log" 2>&1 ||
        { echo "run.sh: the assignment did not build; see $w/assignment.log" >&2; exit 1; }
    assignment=$(cd "$BUILD/assignment" && pwd -P)

    # one submission a mutant: its stage's patched solution files
    : >"$w/list"
    for p in $patches; do
        s=$(stage_of "$p") n=$(name_of "$p")
        flags=$(header Grade-flags "$p")
        group=$s
        [ -n "$flags" ] && group=$s-$n # alone, with its own flags
        d=$w/subs/$group/$n
        for f in $(patched_files "$p"); do
            mkdir -p "$d/$(dirname "$f")" && cp -p "$f" "$d/$f" || exit 1
        done
        apply_patch "$d" "$p" ||
            { echo "run.sh: $p does not apply (make test-mutants)" >&2; exit 1; }
        expect=$(header Expect "$p" | awk '{ $1 = $1; gsub(/ /, ","); print }')
        echo "$n $s ${expect:--} $group" >>"$w/list"
        if [ ! -f "$w/groups/$group.sh" ]; then
            printf 'GRADE_FLAGS="%s" sh tools/grade_batch.sh -s %s %s %s %s >%s 2>&1\n' \
                "${GRADE_FLAGS:-} $flags" "$s" "$assignment" "$w/subs/$group" \
                "$w/graded/$group" "$w/graded/$group.log" >"$w/groups/$group.sh"
        fi
    done
    # the solutions: every graded stage's .cu and .cuh files, unchanged, as one submission
    d=$w/subs/solutions/solutions
    for s in $stages; do
        mkdir -p "$d/$s" || exit 1
        for f in "$s"/*.cu "$s"/*.cuh; do [ -f "$f" ] && cp -p "$f" "$d/$f"; done
        echo "solutions $s - solutions" >>"$w/list"
    done

    n_groups=$(find "$w/groups" -name '*.sh' | wc -l | tr -d ' ')
    echo "run.sh: grading $(grep -vc '^solutions ' "$w/list") mutants in $n_groups batches," \
         "$MUTANT_JOBS at a time (logs: $w/graded/*.log)"
    find "$w/groups" -name '*.sh' | LC_ALL=C sort | xargs -P "$MUTANT_JOBS" -n 1 sh
    t1=$(date +%s)
    echo "run.sh: the mutants took $((t1 - t0)) s; now the solutions, alone (timings count)"
    GRADE_FLAGS="${GRADE_FLAGS:-}" sh tools/grade_batch.sh -s "$stages_csv" "$assignment" \
        "$w/subs/solutions" "$w/graded/solutions" >"$w/graded/solutions.log" 2>&1
    t2=$(date +%s)
    echo
    report "$w"
    rc=$?
    caught=$(awk 'NR > 1 && $1 != "solutions" && $NF == "caught"' "$w/table.txt" | wc -l |
        tr -d ' ')
    total=$(grep -vc '^solutions ' "$w/list")
    full=$(awk 'NR > 1 && $1 == "solutions" && / full marks$/' "$w/table.txt" | wc -l | tr -d ' ')
    echo
    echo "run.sh: $caught of $total mutants caught; $full of" \
         "$(echo "$stages" | wc -w | tr -d ' ') solution stages at full marks;" \
         "$((t2 - t0)) s in all (the solutions $((t2 - t1)) s); table in $w/table.txt"
    return $rc
}

case ${1:-} in
--check) shift; check "$@"; exit $? ;;
--report) [ $# -eq 2 ] || usage; report "$2"; exit $? ;;
-h | --help) sed -n '3,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
-*) usage ;;
*) grade_all "$@"; exit $? ;;
esac
