#!/bin/sh
# SPDX-License-Identifier: MIT
# verify_exercises.sh [ID...]: does each exercise of maint/exercises/*.txt on a copy of the tree,
# the way a student would, and records what the GPU measured (for the stages' ANSWERS.md).
#
#   maint/verify_exercises.sh            every exercise
#   maint/verify_exercises.sh 02.1 05.2  only those
#
# maint/exercises/NN_name.txt (one file a stage) hold one block per exercise, blank-line separated:
#   exercise 02.1 strided_index with 1024 threads
#   edit 02_strided/strided.cu s/BLOCK_SIZE = 256/BLOCK_SIZE = 1024/
#   run build/02_strided --variant strided_index --iters 20
# `edit FILE SED` (any number) edits the copy; an edit that changes nothing is an error, so an
# exercise cannot silently measure the unedited code. `run CMD` (any number) runs in the copy
# after `make` has built what CMD's first word names (when it is build/...). Copies are built in parallel, then run one
# at a time, so that timings do not disturb each other. Output: results/exercises/ID.txt and a
# summary on stdout. Exit 0 when every exercise built and ran, 1 when one did not, 2 usage,
# 3 no GPU. Needs the GPU machine; solution-only (left out of assignments).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=$root/results/exercises
work=${TMPDIR:-/tmp}/verify_exercises.$$
list=$work/exercises.txt
jobs=${JOBS:-8}

# VERIFY_DRY=1: copy, edit and build only (no GPU needed): checks that every edit applies
dry=${VERIFY_DRY:-0}
[ "$dry" = 1 ] || nvidia-smi -L >/dev/null 2>&1 ||
    { echo "verify_exercises: no GPU (nvidia-smi -L failed): run it on the GPU machine"; exit 3; }
mkdir -p "$out" "$work" || exit 1
trap 'rm -rf "$work"' EXIT
for f in "$here"/exercises/*.txt; do
    [ -f "$f" ] || { echo "verify_exercises: no maint/exercises/*.txt" >&2; exit 2; }
    cat "$f"; echo
done > "$list"

# ids of the blocks to do
ids=$(awk '$1 == "exercise" {print $2}' "$list")
[ $# -gt 0 ] && ids=$*
for id in $ids; do
    grep -q "^exercise $id " "$list" || { echo "verify_exercises: no exercise $id in $list" >&2; exit 2; }
done

# block ID: the lines of one exercise
block() { awk -v id="$1" '$1 == "exercise" {on = ($2 == id)} on && NF' "$list"; }

prepare() { # ID: a copy of the tree, edited; prints nothing on success
    id=$1
    dir=$work/$id
    mkdir -p "$dir"
    # the tree and its build (objects keep their times, so make compiles only the edited files)
    (cd "$root" && tar cf - --exclude=./build/assignment --exclude=./build/mutants \
        --exclude=./build/grade --exclude=./results --exclude='./.*' . ) |
        (cd "$dir" && tar xf -) || return 1
    block "$id" | awk '$1 == "edit"' | while read -r _ file expr; do
        before=$(cksum < "$dir/$file") || exit 1
        sed -i "$expr" "$dir/$file" || exit 1
        [ "$(cksum < "$dir/$file")" != "$before" ] || { echo "edit changed nothing: $file $expr"; exit 1; }
    done
}

fails=0
for id in $ids; do
    msg=$(prepare "$id" 2>&1) || {
        echo "FAIL $id: $msg"; echo "$msg" > "$out/$id.txt"; fails=1; rm -rf "${work:?}/$id"; }
done
# builds in parallel: each copy is its own tree
printf '%s\n' $ids | xargs -P "$jobs" -I{} sh -c '
    dir='"$work"'/{}; [ -d "$dir" ] || exit 0
    targets=$(awk -v id={} '"'"'$1 == "exercise" {on = ($2 == id)} on && $1 == "run" && $2 ~ /^build\// {print $2}'"'"' '"$list"' | sort -u)
    make -C "$dir" -s -j4 '"${CUNIT_PREFIX:+CUNIT_PREFIX=$CUNIT_PREFIX}"' '"${ARCH:+ARCH=$ARCH}"' $targets > '"$work"'/{}.build 2>&1 ||
        echo "build failed" > '"$work"'/{}.failed'

for id in $ids; do
    dir=$work/$id
    [ -d "$dir" ] || continue
    {
        block "$id" | sed 's/^/# /'
        echo
        if [ -f "$work/$id.failed" ]; then
            echo "BUILD FAILED:"; tail -20 "$work/$id.build"
        else
            [ "$dry" = 1 ] && echo "(VERIFY_DRY=1: edited and built, not run)"
            [ "$dry" = 1 ] || block "$id" | awk '$1 == "run" {$1 = ""; print substr($0, 2)}' | while read -r cmd; do
                echo "\$ $cmd"
                (cd "$dir" && eval "timeout 300 $cmd") 2>&1
                echo "(exit $?)"
            done
        fi
    } > "$out/$id.txt"
    if [ -f "$work/$id.failed" ]; then echo "FAIL $id: build failed (see $out/$id.txt)"; fails=1
    else echo "ok   $id: $(head -1 "$out/$id.txt" | cut -c3-)"; fi
done
echo "verify_exercises: outputs in ${out#"$root"/}/"
exit $fails
