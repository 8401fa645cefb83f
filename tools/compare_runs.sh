#!/bin/sh
# SPDX-License-Identifier: MIT
# compare_runs.sh A.csv B.csv [VARIANT]: the median time of each row of A (results schema,
# DESIGN.md) against the row of B with the same stage, variant, op, dtype and shape, as
#   op dtype shape A_us B_us B/A
# e.g. the dispatcher's plan against the split plan on this GPU:
#   build/07_softmax --variant dispatch --rows 32 --cols 128256 --csv a.csv
#   REDUCE_NO_CLUSTERS=1 build/07_softmax --variant dispatch --rows 32 --cols 128256 --csv b.csv
#   tools/compare_runs.sh a.csv b.csv dispatch
# Rows of stage "baseline" and rows that did not pass their check are left out.
# Exit: 0 done, 2 usage or a file that cannot be read.
[ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: compare_runs.sh A.csv B.csv [VARIANT]" >&2; exit 2; }
for f in "$1" "$2"; do [ -r "$f" ] || { echo "compare_runs: cannot read $f" >&2; exit 2; }; done
awk -F, -v want="${3:-}" '
    /^#/ || $1 == "gpu" || $2 == "baseline" || $15 != "ok" { next }
    want != "" && $3 != want { next }
    { key = $2 SUBSEP $3 SUBSEP $4 SUBSEP $5 SUBSEP $6 SUBSEP $7 }
    FNR == NR { a[key] = $9; next }
    key in a && !(key in seen) {
        seen[key] = 1
        printf "%-10s %-5s %7sx%-7s %10.2f %10.2f %6.2f\n", $4, $5, $6, $7, a[key], $9, $9 / a[key]
    }' "$1" "$2"
