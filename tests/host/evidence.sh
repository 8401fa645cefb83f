#!/bin/sh
# SPDX-License-Identifier: MIT
# evidence.sh: the parsers behind make profile, make sanitize and make sass, on samples: a SASS
# listing with one kernel per rule of sass_inflight.awk (and the real SASS of stages 04 and 05
# where cuobjdump and their builds are there), an Nsight Compute export in the shape ncu writes
# (profile_parse.awk), and sanitizer logs (sanitize_summary.awk). No GPU needed. Run by the host
# suite and by make evidence-selftest; prints one line per check; exit 0 when all pass.
set -u
tools=$(cd "$(dirname "$0")/../../tools" && pwd)
BUILD=${BUILD:-build}
# find_tool, pick_arch; CSV_HEADER and METRICS of profile.sh
# shellcheck source=tools/evidence_lib.sh
. "$tools/evidence_lib.sh"

# summarize TOOL PROGRAM SECONDS "LOG:RC ...": sanitize_summary.awk as sanitize.sh runs it
summarize() {
    awk -v tool="$1" -v prog="$2" -v secs="$3" -v pairs="$4" -f "$tools/sanitize_summary.awk"
}

sass_samples() {
    fails=0
    # one kernel per property of the rule; each figure differs from what it would be if
    # that property were missed
    got=$(sed 's/^[[:space:]]*|//' <<'EOF' | awk -f "$tools/sass_inflight.awk"
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
            b=$("$cuobj" -sass -arch "$arch" "$BUILD/$1" | awk -f "$tools/sass_inflight.awk" |
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

profile_samples() {
    t=$(mktemp -d) || exit 3
    printf '_Z8two_passPKfPfm 16\n_Z6finishPKfPfm 4\n_Z4rowsILi4EEvPKfPfmm 64\n' > "$t/inflight"
    printf '_Z4rowsILi8EEvPKfPfmm 128\n' >> "$t/inflight"
    {
        echo "# gpu: NVIDIA H200"
        echo "$CSV_HEADER"
        echo "NVIDIA H200,09_test,rows4,rowsum,f32,4096,512,0,1,1,1,1,1,0,ok"
    } > "$t/run.csv"
    # one export as ncu writes it: a line of the profiler first, the header, the units, one
    # row per kernel; the NVTX column holds quotes, a demangled name holds commas
    export_csv() { # renamed|real
        echo "==PROF== Connected to process 4242 (/work/build/09_test)"
        h='"ID","Process ID","Process Name","Host Name"'
        h="$h,\"thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg\""
        h="$h,\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\""
        for m in $(echo "$METRICS" | tr ',' ' '); do h="$h,\"$m\""; done
        echo "$h"
        u='"","","","","","","","","","","",""'
        u="$u,\"nsecond\",\"%\",\"%\",\"warp\",\"register/thread\",\"\",\"\",\"\",\"\",\"\""
        echo "$u,\"sector\",\"request\",\"block\",\"inst\""
        # values: time, dram%, occ%, warps/cycle, regs, lanes, bank ld, st, wavefronts ld, st,
        # sectors, requests, ctas, atomics
        row "$1" 0 09_test/two_pass/sum/f32 _Z8two_passPKfPfm "250,112" 91.5 97.3 62.3 32 31.9 \
            "1,000" 0 "50,000" "2,000" "8,388,608" "2,097,152" 1056 0
        row "$1" 1 09_test/two_pass/sum/f32 _Z6finishPKfPfm 3040 1.2 45 28.5 30 27.5 \
            0 0 120 8 33 33 1 0
        row "$1" 2 09_test/rows4/rowsum/f32 _Z4rowsILi4EEvPKfPfmm \
            12000.5 88 80 51.2 40 32 0 0 0 0 "131,072" "8,192" 512 n/a
    }
    row() { # renamed|real id range name values...
        _k=$3
        [ "$1" = real ] && _k=$4
        _l="\"$2\",\"4242\",\"09_test\",\"127.0.0.1\""
        _l="$_l,\"1  \"\"<default domain>:$3:none:none:none:none:none:none\"\"\",\"$_k\""
        _l="$_l,\"1\",\"13\",\"(256, 1, 1)\",\"(1056, 1, 1)\",\"0\",\"9.0\""
        shift 4
        for _v in "$@"; do _l="$_l,\"$_v\""; done
        echo "$_l"
    }
    export_csv renamed > "$t/renamed.csv"
    export_csv real > "$t/real.csv"
    got=$(awk -v stage=09_test -v metrics="$METRICS" -f "$tools/profile_parse.awk" \
              "$t/inflight" "$t/run.csv" \
              "$t/renamed.csv" "$t/real.csv")
    # two_pass: 250.112 + 3.040 us, the other counters of its first (longer) kernel; bank
    # 1000 / 52000; sectors 8388608 / 2097152; 62.3 warps x 32 x 16 B. rows4: the program's
    # shape 4096 x 512; no shared memory: 0; rows<4>: 51.2 x 32 x 64 B.
    want="NVIDIA H200,09_test,two_pass,sum,f32,1,268435456,253.15,91.5,97.3,32,31.90,0.019,4.00"
    want="$want,31898,1
NVIDIA H200,09_test,rows4,rowsum,f32,4096,512,12.00,88.0,80.0,40,32.00,0.000,16.00,104858,0"
    rc=0
    if [ "$got" = "$want" ]; then
        echo "ok   profile_parse.awk on a sample export (quotes, commas, thousands separators," \
             "two kernels in one range, n/a)"
    else
        printf 'FAIL profile_parse.awk on the sample:\n got:\n%s\n want:\n%s\n' "$got" "$want"
        rc=1
    fi
    # a renamed export without ranges (no --nvtx): no rows, and said so
    sed 's|09_test/[a-z_0-9]*/[a-z]*/f32|x|g' "$t/renamed.csv" > "$t/bare.csv"
    got=$(awk -v stage=09_test -v metrics="$METRICS" -f "$tools/profile_parse.awk" /dev/null \
              /dev/null "$t/bare.csv" "$t/bare.csv" 2>&1)
    case "$got" in
    "profile: 09_test: 3 kernel(s) outside a stage/variant/op/dtype range, left out")
        echo "ok   kernels without a range are reported and left out" ;;
    *) echo "FAIL kernels without a range: $got"; rc=1 ;;
    esac
    rm -rf "$t"
    return $rc
}

sanitize_samples() {
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
        memcheck 05_packed 3 "$t/clean.log:0 $t/clean.log:0"
    expect "racecheck 03_shuffle: FAILED: 1 hazard (" racecheck 03_shuffle 5 "$t/race.log:1"
    expect "initcheck 05_packed: FAILED: the program exited 1" \
        initcheck 05_packed 1 "$t/check.log:1"
    expect "synccheck 07_softmax: FAILED: the program exited 255" \
        synccheck 07_softmax 0 "$t/nodev.log:255"
    expect "memcheck test_gpu: 0 errors (1 run, 7 s)" memcheck test_gpu 7 "$t/clean.log:0"
    got=$(summarize racecheck 03_shuffle 5 "$t/race.log:1" | sed -n 2p)
    case "$got" in
    "    ========= Warning: Race reported"*)
        echo "ok   a failure quotes the first lines of the report" ;;
    *) echo "FAIL the report lines are missing: $got"; fails=1 ;;
    esac
    rm -rf "$t"
    return $fails
}

status=0
sass_samples || status=1
profile_samples || status=1
sanitize_samples || status=1
exit $status
