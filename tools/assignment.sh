#!/bin/sh
# SPDX-License-Identifier: MIT
# assignment.sh BUILD "STAGES": cuts an assignment (make assignment STAGES=a,b runs this).
#
# Writes BUILD/assignment/ and BUILD/assignment.tar.gz from the tracked files (git ls-files at
# a work tree's top, else every file but build/, results/ and hidden ones): the .cu, .cuh, .c, .h and
# .md files of each chosen stage pass through tools/cut_solutions.awk (every solution region
# stubbed; a bad marker stops everything), what tools/solution_only.txt lists is left out, every
# other file is copied. Nothing is replaced until every file has been processed.
# Exit codes: 0 done; 1 a file could not be read, copied or written; 2 usage or a bad marker.
set -u

if [ $# -ne 2 ]; then
    echo "usage: sh tools/assignment.sh BUILD \"STAGE ...\"" >&2
    exit 2
fi
build=$1
stages=$(printf '%s\n' "$2" | tr ',' ' ')
cut=tools/cut_solutions.awk
only=tools/solution_only.txt
dest=$build/assignment
tmp=$build/assignment.tmp
list=$build/assignment.files

for f in "$cut" "$only"; do
    [ -f "$f" ] || { echo "assignment.sh: no $f (run from the repository root)" >&2; exit 2; }
done
for s in $stages; do
    [ -d "$s" ] || { echo "assignment.sh: no stage folder '$s'" >&2; exit 2; }
done

fail() { rm -rf "$tmp" "$list"; exit "$1"; }
mkdir -p "$build" || exit 1 # a fresh clone has no build folder yet

# the file list
top=""
if command -v git >/dev/null 2>&1; then
    top=$(git rev-parse --show-toplevel 2>/dev/null) || top=""
fi
if [ -n "$top" ] && [ "$top" = "$(pwd -P)" ]; then
    git -c core.quotepath=off ls-files >"$list" || fail 1
    source_kind="git ls-files"
    untracked=$(git -c core.quotepath=off ls-files --others --exclude-standard | tr '\n' ' ')
    [ -n "$untracked" ] &&
        echo "make assignment: note: left out, not tracked by git: $untracked(git add to include)"
else
    find . -type f ! -path './build/*' ! -path './results/*' ! -path './.*' |
        sed 's|^\./||' | LC_ALL=C sort >"$list" || fail 1
    source_kind="every file but build/, results/ and hidden folders"
fi

# the patterns of solution-only files
patterns=$(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$only")

is_solution_only() {
    for p in $patterns; do
        # shellcheck disable=SC2254 # the pattern is meant as a pattern
        case $1 in $p) return 0 ;; esac
    done
    return 1
}

is_chosen() {
    for s in $stages; do [ "$1" = "$s" ] && return 0; done
    return 1
}

rm -rf "$tmp"
mkdir -p "$tmp" || fail 1
copied=0
left_out=""
stubbed=""
set -f # the patterns are matched by case, never expanded against the tree
while IFS= read -r f; do
    [ -f "$f" ] || continue # tracked but deleted in the working tree
    if is_solution_only "$f"; then
        left_out="$left_out $f"
        continue
    fi
    mkdir -p "$tmp/$(dirname "$f")" || fail 1
    stage=${f%%/*}
    kind=copy
    if [ "$stage" != "$f" ] && is_chosen "$stage"; then
        case $f in *.md) kind=cut md=1 ;; *.cu | *.cuh | *.c | *.h) kind=cut md=0 ;; esac
    fi
    if [ $kind = cut ]; then
        [ -r "$f" ] || fail 1
        last_eol=0
        [ -z "$(tail -c 1 "$f")" ] && last_eol=1 # the last byte is a newline (or there is none)
        n=$(awk -v name="$f" -v md="$md" -v last_eol=$last_eol -v out="$tmp/$f" -f "$cut" "$f") ||
            fail 2
        [ "$n" -gt 0 ] && stubbed="$stubbed $f($n)"
    else
        cp -p "$f" "$tmp/$f" || fail 1
    fi
    copied=$((copied + 1))
done <"$list"
set +f
rm -f "$list"

# a marker left in a chosen stage means a file kind the generator does not process
for s in $stages; do
    left=$(grep -rn -e 'BEGIN SOLUTION' -e 'END SOLUTION' "$tmp/$s" 2>/dev/null | head -n 1)
    if [ -n "$left" ]; then
        echo "${left#"$tmp"/}: a solution marker in a file that make assignment does not stub" >&2
        fail 2
    fi
done

if ! { rm -rf "$dest" && mv "$tmp" "$dest"; }; then fail 1; fi
(cd "$build" && tar -cf - assignment) | gzip -9n >"$build/assignment.tar.gz" || exit 1

echo "make assignment: $dest/ ($copied files, from $source_kind) and $build/assignment.tar.gz"
echo "  stages with stubs:  $stages"
for s in $stages; do
    case "$stubbed " in
    *" $s/"*) ;;
    *) echo "  note: $s has no solution regions: students receive it whole" ;;
    esac
done
echo "  regions stubbed:   ${stubbed# }"
echo "  left out:          ${left_out# }"
