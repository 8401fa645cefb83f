#!/bin/sh
# SPDX-License-Identifier: MIT
# sass.sh: the machine code of a stage, filtered to what its lesson is about.
#
#   tools/sass.sh [-v] STAGE...     e.g. tools/sass.sh 05_packed   (make sass STAGE=05_packed)
#   tools/sass.sh --need            exit 3 with one line when cuobjdump is missing
#   tools/sass.sh --selftest        checks sass_inflight.awk on a small listing (and, where
#                                   cuobjdump and build/ are there, on stages 04 and 05)
#
# For each kernel compiled from the stage's folder (cuobjdump -sass of build/STAGE, the
# section of $ARCH, else of the installed GPU, else sm_90, else the newest): static counts of
# SHFL; LDG by width (LDG.E 4 bytes, .64, .128, narrower); LDGSTS; LDS and STS; BAR;
# ATOM/RED; predicated FADD/FMNMX (a tree whose idle lanes are switched off, not branched
# around); BRA; and "B in flight": the bytes of global loads one thread issues before it
# must wait for the first of them (tools/sass_inflight.awk says how it is counted).
# -v also prints the counted instructions themselves under each kernel.
# cuobjdump is looked for on PATH, then in $CUDA_HOME/bin and /usr/local/cuda/bin.
# Exit: 0 done, 2 usage, 3 cuobjdump missing or a stage not built.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tools/evidence_lib.sh
. "$here/evidence_lib.sh"
BUILD=${BUILD:-build}

selftest() {
    fails=0
    # one kernel per property of the rule; each figure differs from what it would be if
    # that property were missed
    got=$(sed 's/^[[:space:]]*|//' <<'EOF' | awk -f "$here/sass_inflight.awk"
		|	Function : k_widths
		|        /*0000*/                   LDG.E R2, desc[UR6][R6.64] ;  /* 0x0 */
		|        /*0010*/                   LDG.E.64 R4, desc[UR6][R6.64] ;  /* 0x0 */
		|        /*0020*/               @P0 LDG.E.128 R8, desc[UR6][R6.64] ;  /* 0x0 */
		|        /*0030*/                   LDG.E.U16 R12, desc[UR6][R6.64] ;  /* 0x0 */
		|        /*0040*/                   LDG.E.S8 R13, desc[UR6][R6.64] ;  /* 0x0 */
		|        /*0050*/                   EXIT ;  /* 0x0 */
		|	Function : k_wide_source
		|        /*0000*/                   LDG.E R9, desc[UR6][R6.64] ;  /* 0x0 */
		|        /*0010*/                   IMAD.WIDE.U32 R10, R15, 0x400, R8 ;  /* 0x0 */
		|        /*0020*/                   LDG.E R11, desc[UR6][R10.64] ;  /* 0x0 */
		|        /*0030*/                   LDG.E R12, desc[UR6][R16.64] ;  /* 0x0 */
		|        /*0040*/                   EXIT ;  /* 0x0 */
		|	Function : k_store_data
		|        /*0000*/                   LDG.E R27, desc[UR6][R6.64] ;  /* 0x0 */
		|        /*0010*/                   LDG.E R30, desc[UR6][R6.64+0x4] ;  /* 0x0 */
		|        /*0020*/                   STG.E.64 desc[UR6][R2.64], R26 ;  /* 0x0 */
		|        /*0030*/                   LDG.E R31, desc[UR6][R6.64+0x8] ;  /* 0x0 */
		|        /*0040*/                   EXIT ;  /* 0x0 */
		|	Function : k_setp_reads
		|        /*0000*/                   LDG.E R6, desc[UR6][R2.64] ;  /* 0x0 */
		|        /*0010*/                   ISETP.GE.U32.AND P0, PT, R6, UR8, PT ;  /* 0x0 */
		|        /*0020*/                   LDG.E R7, desc[UR6][R2.64+0x4] ;  /* 0x0 */
		|        /*0030*/                   LDG.E R8, desc[UR6][R2.64+0x8] ;  /* 0x0 */
		|        /*0040*/                   EXIT ;  /* 0x0 */
		|	Function : k_uniform_regs
		|        /*0000*/                   LDG.E R6, desc[UR6][R2.64] ;  /* 0x0 */
		|        /*0010*/                   LDG.E R7, desc[UR6][R2.64+0x4] ;  /* 0x0 */
		|        /*0020*/                   IADD3 R9, R10, UR6, RZ ;  /* 0x0 */
		|        /*0030*/                   S2R R11, SR_TID.X ;  /* 0x0 */
		|        /*0040*/                   LDG.E R8, desc[UR6][R2.64+0x8] ;  /* 0x0 */
		|        /*0050*/                   FADD R0, R6, R7 ;  /* 0x0 */
		|        /*0060*/                   EXIT ;  /* 0x0 */
		|	Function : k_branch_target
		|        /*0000*/                   LDG.E R1, desc[UR6][R2.64] ;  /* 0x0 */
		|        /*0010*/                   LDG.E R4, desc[UR6][R2.64+0x4] ;  /* 0x0 */
		|        /*0020*/                   LDG.E R5, desc[UR6][R2.64+0x8] ;  /* 0x0 */
		|        /*0030*/                   LDG.E R6, desc[UR6][R2.64+0xc] ;  /* 0x0 */
		|        /*0040*/               @P0 BRA 0x20 ;  /* 0x0 */
		|        /*0050*/                   EXIT ;  /* 0x0 */
		|	Function : k_barrier
		|        /*0000*/                   LDG.E.128 R4, desc[UR6][R2.64] ;  /* 0x0 */
		|        /*0010*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;  /* 0x0 */
		|        /*0020*/                   LDG.E.128 R8, desc[UR6][R2.64+0x10] ;  /* 0x0 */
		|        /*0030*/                   EXIT ;  /* 0x0 */
		|	Function : k_pointer_chase
		|        /*0000*/                   LDG.E.64 R4, desc[UR6][R2.64] ;  /* 0x0 */
		|        /*0010*/                   LDG.E R6, desc[UR6][R4.64] ;  /* 0x0 */
		|        /*0020*/                   EXIT ;  /* 0x0 */
		|	Function : k_ldgsts
		|        /*0000*/               @!PT LDS RZ, [RZ] ;  /* 0x0 */
		|        /*0010*/               @P3 LDGSTS.E.BYPASS.128 [R0], desc[UR4][R10.64] ;  /* 0x0 */
		|        /*0020*/               @P1 LDGSTS.E.BYPASS.128 [R15], desc[UR4][R12.64] ;  /* 0x0 */
		|        /*0030*/                   LDGDEPBAR ;  /* 0x0 */
		|        /*0040*/                   DEPBAR.LE SB0, 0x0 ;  /* 0x0 */
		|        /*0050*/                   LDG.E R3, desc[UR4][R10.64] ;  /* 0x0 */
		|        /*0060*/                   LDG.E R6, desc[UR4][R12.64] ;  /* 0x0 */
		|        /*0070*/                   EXIT ;  /* 0x0 */
EOF
)
    # widths 4 + 8 + 16 + 2 + 1, the predicated load included; IMAD.WIDE's third source
    # R8 reads R8:R9; STG.E.64's data R26 reads R26:R27; ISETP reads R6 (it writes only
    # predicates); UR6 and SR_TID are no registers; the branch target 0x20 splits the block;
    # BAR ends a group; the second load's address is the first's data; DEPBAR waits for
    # LDGSTS.
    want='k_widths 31
k_wide_source 8
k_store_data 8
k_setp_reads 8
k_uniform_regs 12
k_branch_target 8
k_barrier 16
k_pointer_chase 8
k_ldgsts 32'
    if [ "$got" = "$want" ]; then echo "ok   sass_inflight.awk on the sample listing"
    else echo "FAIL sass_inflight.awk on the sample listing: got"; echo "$got"; fails=1; fi

    if cuobj=$(find_tool cuobjdump) && [ -x "$BUILD/04_block_reduce" ] &&
       [ -x "$BUILD/05_packed" ]; then
        for case in "04_block_reduce _Z18reduce_grid_stridePKfPfm 4" \
                    "04_block_reduce _Z25reduce_grid_stride_unrollPKfPfm 16" \
                    "05_packed _Z26rowsum_warp_per_row_packedPKfPfmm 160"; do
            # shellcheck disable=SC2086
            set -- $case
            arch=$(pick_arch "$cuobj" "$BUILD/$1")
            b=$("$cuobj" -sass -arch "$arch" "$BUILD/$1" | awk -f "$here/sass_inflight.awk" |
                awk -v k="$2" '$1 == k {print $2}')
            if [ "$b" = "$3" ]; then echo "ok   $1 $2: $b bytes in flight per thread ($arch)"
            elif [ -z "$b" ]; then echo "skip $1 $2: no such kernel in this build ($arch)"
            else echo "FAIL $1 $2: $b bytes in flight per thread, want $3 ($arch)"; fails=1; fi
        done
    else
        echo "skip the real listings: no cuobjdump (PATH, \$CUDA_HOME/bin) or no" \
             "$BUILD/04_block_reduce and 05_packed"
    fi
    return $fails
}

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
    awk -f "$here/sass_inflight.awk" "$tmp/sass" > "$tmp/inflight"
    awk -v stage="$s" -v lines="$verbose" -f "$here/sass_filter.awk" "$tmp/sass" > "$tmp/filtered"
    awk -F'\t' '$1 == "K" {print $2}' "$tmp/filtered" > "$tmp/names"
    demangle < "$tmp/names" > "$tmp/demangled"
    paste "$tmp/names" "$tmp/demangled" > "$tmp/namemap"
    echo "$s: SASS for $arch ($bin), static instruction counts per kernel"
    awk -F'\t' -v verbose="$verbose" '
        FILENAME == ARGV[1] { split($0, p, " "); inflight[p[1]] = p[2]; next }
        FILENAME == ARGV[2] { pretty[$1] = $2; next }
        $1 == "L" { nl[$2]++; ltext[$2, nl[$2]] = sprintf("    %s  %s", $3, $4); next }
        $1 == "K" { order[++n] = $2; for (k = 3; k <= NF; k++) cnt[$2, k - 2] = $k }
        END {
            printf "%5s %6s %6s %7s %5s %6s %4s %4s %4s %5s %6s %4s %6s  %s\n", "SHFL", "LDG.E",
                   "LDG.64", "LDG.128", "LDG<4", "LDGSTS", "LDS", "STS", "BAR", "ATOM", "@PFADD",
                   "BRA", "B_infl", "kernel"
            for (i = 1; i <= n; i++) {
                k = order[i]
                printf "%5d %6d %6d %7d %5d %6d %4d %4d %4d %5d %6d %4d %6s  %s\n", cnt[k, 1],
                       cnt[k, 2], cnt[k, 3], cnt[k, 4], cnt[k, 5], cnt[k, 6], cnt[k, 7],
                       cnt[k, 8], cnt[k, 9], cnt[k, 10], cnt[k, 11], cnt[k, 12],
                       (k in inflight) ? inflight[k] : "-", (k in pretty) ? pretty[k] : k
            }
            if (n == 0) print "(no kernels compiled from this folder)"
            for (i = 1; verbose && i <= n; i++) {
                k = order[i]
                printf "\n%s\n", (k in pretty) ? pretty[k] : k
                for (j = 1; j <= nl[k]; j++) print ltext[k, j]
            }
        }' "$tmp/inflight" "$tmp/namemap" "$tmp/filtered"
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
--selftest) selftest; exit $? ;;
--need) need; exit 0 ;;
-v) verbose=1; shift ;;
-h|--help) sed -n '3,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
esac
if [ $# -eq 0 ]; then
    echo "usage: tools/sass.sh [-v] STAGE... (e.g. 05_packed) | --need | --selftest" >&2
    exit 2
fi
need
rc=0
first=1
for s in "$@"; do
    [ $first -eq 1 ] || echo
    first=0
    show_stage "$s" || rc=$?
done
echo
legend
exit $rc
