#!/bin/sh
# SPDX-License-Identifier: MIT
# sass.sh: the machine code of a stage, filtered to what its lesson is about.
#
#   tools/sass.sh [-v] STAGE...     e.g. tools/sass.sh 05_packed   (make sass STAGE=05_packed)
#   tools/sass.sh --need            exit 3 with one line when cuobjdump is missing
#
# For each kernel compiled from the stage's folder (the SASS of $ARCH, else of the installed
# GPU, else sm_90, else the newest in build/STAGE): static counts of the instructions the
# lessons are about (the legend below) and B_infl (tools/sass_inflight.awk); -v also prints the
# counted instructions. Exit: 0 done, 2 usage, 3 cuobjdump missing or a stage not built.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tools/evidence_lib.sh
. "$here/evidence_lib.sh"
BUILD=${BUILD:-build}

# one stage: the table of counts, then with -v the instructions
show_stage() {
    s=$1
    bin=$BUILD/$s
    if [ ! -x "$bin" ]; then echo "sass: $bin is not built; run make first" >&2; return 3; fi
    arch=$(pick_arch "$cuobj" "$bin")
    if [ -z "$arch" ]; then echo "sass: $bin holds no machine code (PTX only?)" >&2; return 3; fi
    tmp=$(mktemp -d) || return 3
    if ! "$cuobj" -sass -arch "$arch" "$bin" > "$tmp/sass" 2>"$tmp/err"; then
        echo "sass: cuobjdump -sass -arch $arch $bin failed: $(head -n1 "$tmp/err")" >&2
        rm -rf "$tmp"
        return 3
    fi
    awk -v counts=1 -v stage="$s" -v lines="$verbose" -f "$here/sass_inflight.awk" "$tmp/sass" \
        > "$tmp/filtered"
    awk -F'\t' '$1 == "K" {print $2}' "$tmp/filtered" > "$tmp/names"
    demangle < "$tmp/names" > "$tmp/demangled"
    paste "$tmp/names" "$tmp/demangled" > "$tmp/namemap"
    echo "$s: SASS for $arch ($bin), static instruction counts per kernel"
    awk -F'\t' -v verbose="$verbose" '
        FILENAME == ARGV[1] { pretty[$1] = $2; next }
        $1 == "L" { nl[$2]++; ltext[$2, nl[$2]] = sprintf("    %s  %s", $3, $4); next }
        $1 == "K" { order[++n] = $2; bytes[$2] = $3; for (k = 4; k <= NF; k++) cnt[$2, k - 3] = $k }
        END {
            printf "%5s %6s %6s %7s %5s %6s %4s %4s %4s %5s %6s %4s %6s  %s\n", "SHFL", "LDG.E",
                   "LDG.64", "LDG.128", "LDG<4", "LDGSTS", "LDS", "STS", "BAR", "ATOM", "@PFADD",
                   "BRA", "B_infl", "kernel"
            for (i = 1; i <= n; i++) {
                k = order[i]
                printf "%5d %6d %6d %7d %5d %6d %4d %4d %4d %5d %6d %4d %6s  %s\n", cnt[k, 1],
                       cnt[k, 2], cnt[k, 3], cnt[k, 4], cnt[k, 5], cnt[k, 6], cnt[k, 7],
                       cnt[k, 8], cnt[k, 9], cnt[k, 10], cnt[k, 11], cnt[k, 12],
                       bytes[k], (k in pretty) ? pretty[k] : k
            }
            if (n == 0) print "(no kernels compiled from this folder)"
            for (i = 1; verbose && i <= n; i++) {
                k = order[i]
                printf "\n%s\n", (k in pretty) ? pretty[k] : k
                for (j = 1; j <= nl[k]; j++) print ltext[k, j]
            }
        }' "$tmp/namemap" "$tmp/filtered"
    st=$?
    rm -rf "$tmp"
    return $st
}

legend() {
    cat <<'EOF'
SHFL shuffles; LDG.E, LDG.64, LDG.128 global loads of 4, 8, 16 bytes, LDG<4 narrower ones;
LDGSTS cp.async copies to shared memory; LDS, STS shared loads and stores; BAR barriers;
ATOM atomics and reductions to memory; @PFADD predicated FADD/FMNMX; BRA branches;
B_infl bytes of global loads one thread issues before it must wait (tools/sass_inflight.awk).
Counts are static: instructions in the binary, not executed ones.
EOF
}

need() {
    cuobj=$(find_tool cuobjdump) || {
        echo "sass: cuobjdump not found (PATH, \$CUDA_HOME/bin, /usr/local/cuda/bin); install the" \
             "CUDA toolkit's cuobjdump or put it on PATH"
        exit 3
    }
}

verbose=0
case ${1:-} in
--need) need; exit 0 ;;
-v) verbose=1; shift ;;
-h|--help) sed -n '3,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
esac
if [ $# -eq 0 ]; then
    echo "usage: tools/sass.sh [-v] STAGE... (e.g. 05_packed) | --need" >&2
    exit 2
fi
need
rc=0
for s in "$@"; do
    [ "$s" = "$1" ] || echo
    show_stage "$s" || rc=$?
done
echo
legend
exit $rc
