#!/bin/sh
# SPDX-License-Identifier: MIT
# grade_batch.sh: grades submissions one after another on this GPU (INSTRUCTORS.md, Grading
# many submissions): each in a copy of the clean ASSIGNMENT that takes only the .cu and .cuh
# files of the graded stages; OUT/NAME/{results.json,grade.txt,files.txt}, OUT/summary.csv.
#
#   sh tools/grade_batch.sh [-s STAGES] [-1] [-k] [-n] ASSIGNMENT SUBMISSIONS OUT
#   -1 SUBMISSIONS is one submission; -k keep the work trees; -n prepare, grade nothing
# Exit codes: 0 every submission graded (whatever the scores); 1 some not; 2 usage; 3 no GPU.
set -u

usage() {
    echo "usage: sh tools/grade_batch.sh [-s STAGES] [-1] [-k] [-n] ASSIGNMENT SUBMISSIONS OUT" >&2
    exit 2
}

stages_arg="" one=0 keep=0 dry=0
while getopts s:1kn opt; do
    case $opt in
    s) stages_arg=$OPTARG ;;
    1) one=1 ;;
    k) keep=1 ;;
    n) dry=1 ;;
    *) usage ;;
    esac
done
shift $((OPTIND - 1))
[ $# -eq 3 ] || usage
assignment=$1 subs=$2 out=$3

if ! [ -f "$assignment/Makefile" ] || ! [ -f "$assignment/tools/thresholds.txt" ]; then
    echo "grade_batch.sh: $assignment is no assignment (no Makefile or tools/thresholds.txt)" >&2
    exit 2
fi
[ -d "$subs" ] || { echo "grade_batch.sh: no folder $subs" >&2; exit 2; }
assignment=$(cd "$assignment" && pwd -P)

if [ -n "$stages_arg" ]; then
    stages=$(printf '%s\n' "$stages_arg" | tr ',' ' ')
else
    stages=$(cd "$assignment" && for d in [0-9][0-9]_*/; do printf '%s ' "${d%/}"; done)
fi
for s in $stages; do
    [ -d "$assignment/$s" ] || { echo "grade_batch.sh: $assignment has no stage $s" >&2; exit 2; }
done
# shellcheck disable=SC2086 # split, so that the list has no empty entry
stages_csv=$(echo $stages | tr ' ' ,)

if [ $dry -eq 0 ] && ! nvidia-smi -L >/dev/null 2>&1; then
    echo "grade_batch.sh: no NVIDIA GPU on this machine (nvidia-smi -L lists none)" >&2
    exit 3
fi
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)

# map_file REL: the assignment path a submitted file REL replaces, or nothing
map_file() {
    base=${1##*/}
    for s in $stages; do
        case "/$1" in
        */"$s"/"$base") [ -f "$assignment/$s/$base" ] && { echo "$s/$base"; return; } ;;
        esac
    done
    found="" n=0
    for s in $stages; do
        [ -f "$assignment/$s/$base" ] && { found="$s/$base"; n=$((n + 1)); }
    done
    [ $n -eq 1 ] && echo "$found"
}

# grade_one NAME DIR: one submission
grade_one() {
    name=$1 dir=$2
    res=$out/$name
    work=$out/work/$name
    rm -rf "$res" "$work"
    mkdir -p "$res" "$out/work" || return 1
    cp -Rp "$assignment" "$work" || return 1
    rm -rf "$work/build/grade" "$work/results"
    : >"$res/files.txt"
    find "$dir" -type f \( -name '*.cu' -o -name '*.cuh' \) ! -path '*/__MACOSX/*' ! -name '._*' |
        LC_ALL=C sort >"$res/found.list"
    used=0
    while IFS= read -r f; do
        rel=${f#"$dir"/}
        target=$(map_file "$rel")
        if [ -n "$target" ]; then
            cp "$f" "$work/$target" || return 1
            echo "used     $rel -> $target" >>"$res/files.txt"
            used=$((used + 1))
        else
            echo "ignored  $rel (no such file in the stages graded: $stages_csv)" >>"$res/files.txt"
        fi
    done <"$res/found.list"
    rm -f "$res/found.list"
    [ $used -gt 0 ] || echo "no stage source used: the stubs are graded" >>"$res/files.txt"
    if [ $dry -eq 1 ]; then
        echo "$name: prepared $work ($used files used; see $res/files.txt)"
        return 0
    fi
    (cd "$work" && make -j"$jobs" grade STAGES="$stages_csv") >"$res/grade.txt" 2>&1
    if [ -f "$work/build/grade/results.json" ]; then
        cp "$work/build/grade/results.json" "$res/results.json"
        status=0
    else
        # Gradescope shows this rather than an error page; grade.txt says what went wrong
        msg="The grader did not finish, so nothing was graded: the course staff can see why."
        printf '{"score": 0, "output": "%s", "tests": []}\n' "$msg" >"$res/results.json"
        status=1
    fi
    score=$(sed -n 's/^  "score": \([0-9.]*\),$/\1/p' "$res/results.json")
    max=$(awk '$1 == "total" { split($NF, a, "/"); print a[2] }' "$res/grade.txt")
    echo "$name,${score:-0},${max:-}" >>"$out/summary.csv"
    echo "$name: ${score:-0} of ${max:-?} points ($res/results.json)"
    [ $keep -eq 1 ] || rm -rf "$work"
    return $status
}

mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd -P)
[ $dry -eq 1 ] || echo "submission,score,max_score" >"$out/summary.csv"
failed=0
if [ $one -eq 1 ]; then
    grade_one "$(basename "$(cd "$subs" && pwd -P)")" "$(cd "$subs" && pwd -P)" || failed=1
else
    for d in "$subs"/*/; do
        [ -d "$d" ] || continue
        d=${d%/}
        grade_one "$(basename "$d")" "$(cd "$d" && pwd -P)" || failed=1
    done
fi
[ $keep -eq 1 ] || [ $dry -eq 1 ] || rmdir "$out/work" 2>/dev/null
[ $dry -eq 1 ] || echo "grade_batch.sh: scores in $out/summary.csv"
exit $failed
