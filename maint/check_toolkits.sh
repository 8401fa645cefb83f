#!/bin/sh
# SPDX-License-Identifier: MIT
# check_toolkits.sh [-a "sm_75 sm_86 ..."] [-j N] [CUDA_HOME ...]: compiles every stage's .cu and
# the baselines (object files only, with the Makefile's own rule and flags) once per CUDA toolkit
# and architecture, and prints one row per pair:
#
#   nvcc   cudart cub    arch    result files  spills
#   12.4   12.4   2.3.2  sm_75   ok     9      0
#   13.0   13.0   3.0.1  sm_90   FAIL   1/9    0     (the first error of each failing file follows)
#
# Toolkits: the CUDA_HOME folders named on the command line (each has bin/nvcc); without any, the
# nvcc on PATH, $CUDA_HOME and every /usr/local/cuda-* that has bin/nvcc.
# Architectures (-a): sm_75 sm_80 sm_86 sm_90, and sm_120 where the toolkit knows it (12.8 on).
# spills: kernels for which ptxas reported registers spilled to local memory (-Xptxas -warn-spills,
# in the Makefile's NVFLAGS); their names and sizes follow the table. Objects and logs go to
# build/toolkits/VERSION/ARCH/ (VERSION-rtX.Y where the runtime headers are of another version).
# No GPU is needed. About a minute per toolkit and architecture on 2 cores.
#
# A toolkit without root, from Python wheels (CUDA 13.x; the 12.x wheels hold ptxas only):
#   python3 -m venv ~/cuda13
#   ~/cuda13/bin/pip install nvidia-cuda-nvcc nvidia-cuda-cccl nvidia-cublas
#   sh maint/check_toolkits.sh ~/cuda13/lib/python3*/site-packages/nvidia/cu13
#
# Exit status: 0 every pair compiled, 1 a compile failed, 2 usage error, 3 no toolkit found.
set -u
cd "$(dirname "$0")/.." || exit 3

archs_default="sm_75 sm_80 sm_86 sm_90"
archs=""
jobs=$(nproc 2>/dev/null || echo 2)
usage() {
    echo "usage: sh maint/check_toolkits.sh [-a \"sm_75 sm_90\"] [-j N] [CUDA_HOME ...]" >&2
    exit 2
}
while getopts a:j:h opt; do
    case $opt in
    a) archs=$(echo "$OPTARG" | tr ',' ' ') ;;
    j) jobs=$OPTARG ;;
    *) usage ;;
    esac
done
shift $((OPTIND - 1))
for a in $archs; do
    case $a in sm_[0-9]*) ;; *) echo "check_toolkits.sh: -a $a: expected sm_XY" >&2; exit 2 ;; esac
done
case $jobs in
'' | *[!0-9]*) echo "check_toolkits.sh: -j $jobs: expected a number" >&2; exit 2 ;;
esac

# the toolkits: arguments, else whatever this machine has (one line each, duplicates dropped)
tk_list=$(mktemp)
trap 'rm -f "$tk_list"' EXIT INT TERM
if [ $# -gt 0 ]; then
    for t in "$@"; do
        if [ ! -x "$t/bin/nvcc" ]; then
            echo "check_toolkits.sh: $t has no bin/nvcc (give a CUDA_HOME folder)" >&2
            exit 2
        fi
        echo "$t" >> "$tk_list"
    done
else
    n=$(command -v nvcc 2>/dev/null) && echo "${n%/bin/nvcc}" >> "$tk_list"
    [ -n "${CUDA_HOME:-}" ] && [ -x "$CUDA_HOME/bin/nvcc" ] && echo "$CUDA_HOME" >> "$tk_list"
    for t in /usr/local/cuda-*; do
        [ -x "$t/bin/nvcc" ] && echo "$t" >> "$tk_list"
    done
fi
toolkits=""
for t in $(cat "$tk_list"); do
    r=$(cd "$t" && pwd -P)
    case " $toolkits " in *" $r "*) ;; *) toolkits="$toolkits $r" ;; esac
done
if [ -z "$toolkits" ]; then
    echo "check_toolkits.sh: no CUDA toolkit found (install one, or name its CUDA_HOME)" >&2
    exit 3
fi

# the objects: every .cu of every stage folder, and the baselines
srcs=$(ls [0-9][0-9]_*/*.cu baselines/*.cu)

version_of() { "$1/bin/nvcc" --version | sed -n 's/.*release \([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p'; }
# the runtime headers' and CUB's versions (they can differ from nvcc's in a hand-assembled toolkit)
cudart_of() {
    awk '$1 == "#define" && $2 == "CUDART_VERSION" {
        printf "%d.%d\n", $3 / 1000, $3 % 1000 / 10 }' "$1/include/cuda_runtime_api.h" 2>/dev/null
}
cub_of() {
    for f in "$1/include/cub/version.cuh" "$1/include/cccl/cub/version.cuh"; do
        [ -f "$f" ] && awk '$1 == "#define" && $2 == "CUB_VERSION" {
            printf "%d.%d.%d\n", $3 / 100000, $3 / 100 % 1000, $3 % 100; exit }' "$f" && return
    done
    echo "?"
}
# knows TOOLKIT ARCH: true when that nvcc can build the architecture
knows() { "$1/bin/nvcc" --list-gpu-code 2>/dev/null | grep -qx "$2"; }

row() { printf '%-6s %-6s %-6s %-7s %-6s %-6s %s\n' "$@"; }
row nvcc cudart cub arch result files spills
details=$(mktemp)
trap 'rm -f "$tk_list" "$details"' EXIT INT TERM
status=0
for t in $toolkits; do
    v=$(version_of "$t")
    [ -n "$v" ] || { echo "check_toolkits.sh: $t/bin/nvcc does not run" >&2; status=1; continue; }
    rt=$(cudart_of "$t")
    cub=$(cub_of "$t")
    label=$v
    [ "$rt" = "$v" ] || label=$v-rt$rt
    list=$archs
    if [ -z "$list" ]; then
        list=$archs_default
        knows "$t" sm_120 && list="$list sm_120"
    fi
    for a in $list; do
        if ! knows "$t" "$a"; then
            row "$v" "$rt" "$cub" "$a" skip - "this nvcc does not build $a"
            continue
        fi
        dir=build/toolkits/$label/$a
        rm -rf "$dir"
        mkdir -p "$dir/logs"
        # one make per object, so that each file's log and result stand alone
        objs=""
        for s in $srcs; do objs="$objs ${s%.cu}"; done
        echo "$objs" | tr ' ' '\n' | grep . |
            xargs -P "$jobs" -I{} sh -c 'o={}; l='"$dir"'/logs/$(echo $o | tr / _).log;
                make -s CUDA_HOME='"$t"' ARCH='"$a"' BUILD='"$dir"' '"$dir"'/obj/$o.o > $l 2>&1 ||
                    echo FAILED >> $l'
        total=0 failed=0
        for s in $srcs; do
            total=$((total + 1))
            l=$dir/logs/$(echo "${s%.cu}" | tr / _).log
            if grep -q '^FAILED$' "$l"; then
                failed=$((failed + 1))
                err=$(grep -m1 -E 'error|Error' "$l" || tail -n 2 "$l" | head -n 1)
                echo "$label $a $s: $err" >> "$details"
            fi
        done
        # ptxas: Registers are spilled to local memory in function 'NAME', N bytes spill stores, ...
        spills=$(cat "$dir"/logs/*.log | grep -c 'Registers are spilled')
        for s in $srcs; do
            sed -n "s/.*spilled to local memory in function '\([^']*\)', \(.*\)/\1 \2/p" \
                "$dir/logs/$(echo "${s%.cu}" | tr / _).log" |
                while read -r fn rest; do
                    name=$(echo "$fn" | c++filt 2>/dev/null || echo "$fn")
                    echo "$label $a $s spills: $name: $rest"
                done
        done >> "$details"
        if [ "$failed" -eq 0 ]; then
            row "$v" "$rt" "$cub" "$a" ok "$total" "$spills"
        else
            row "$v" "$rt" "$cub" "$a" FAIL "$failed/$total" "$spills"
            status=1
        fi
    done
done
if [ -s "$details" ]; then
    echo
    cat "$details"
fi
exit $status
