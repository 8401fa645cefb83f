# SPDX-License-Identifier: MIT
# sass_filter.awk: the instructions a reduction lesson is about, per kernel, from
# `cuobjdump -sass` text of one architecture (sass.sh). Keeps the kernels compiled from the
# folder named by -v stage (cuobjdump's "identifier" lines; all when there are none) and prints,
# tab-separated, one line per kernel (static counts, not executed ones):
#   K name shfl ldg_4 ldg_8 ldg_16 ldg_narrow ldgsts lds sts bar atom_red pred_fadd_fmnmx bra
# and, with -v lines=1, each counted instruction:   L name address instruction

function category(op, guarded) {
    if (op ~ /^SHFL/) return "shfl"
    if (op ~ /^LDGSTS/) return "ldgsts"
    if (op ~ /^LDG(\.|$)/) {
        if (op ~ /\.128(\.|$)/) return "ldg_16"
        if (op ~ /\.64(\.|$)/) return "ldg_8"
        if (op ~ /\.(U16|S16|U8|S8)(\.|$)/) return "ldg_narrow"
        return "ldg_4"
    }
    if (op ~ /^LDS(\.|$)/) return "lds"
    if (op ~ /^STS(\.|$)/) return "sts"
    if (op ~ /^BAR(\.|$)/) return "bar"
    if (op ~ /^(ATOMG?|ATOMS|REDG?|REDAS)(\.|$)/) return "atom_red"
    if (guarded && op ~ /^(FADD|FMNMX)(\.|$)/) return "pred_fadd_fmnmx"
    if (op ~ /^BRA(\.|$)/) return "bra"
    return ""
}

function flush(    k) {
    if (fname == "" || !keep) { fname = ""; return }
    printf "K\t%s", fname
    for (k = 1; k <= ncat; k++) printf "\t%d", count[cats[k]] + 0
    printf "\n"
    fname = ""
}

BEGIN {
    ncat = split("shfl ldg_4 ldg_8 ldg_16 ldg_narrow ldgsts lds sts bar atom_red " \
                 "pred_fadd_fmnmx bra", cats, " ")
    ident = ""
    any_ident = 0
}

/^[ \t]*Fatbin / { flush(); ident = ""; next }
/^[ \t]*identifier = / { ident = $3; any_ident = 1; next }
/^[ \t]*Function : / {
    flush()
    fname = $3
    keep = stage == "" || ident == "" || index("/" ident, "/" stage "/") > 0
    split("", count)
    next
}
fname != "" && /^[ \t]*\/\*[0-9a-fA-F]+\*\// {
    line = $0
    sub(/^[ \t]*\/\*/, "", line)
    a = line
    sub(/\*\/.*/, "", a)
    sub(/^[0-9a-fA-F]+\*\/[ \t]*/, "", line)
    semi = index(line, ";")
    if (semi) line = substr(line, 1, semi - 1)
    gsub(/^[ \t]+|[ \t]+$/, "", line)
    text = line
    guarded = sub(/^@!?U?P([0-6]|T)[ \t]+/, "", line)
    # @!PT never runs: the compiler's padding, not a lesson
    if (text ~ /^@!PT[ \t]/) next
    op = line
    sub(/[ \t].*/, "", op)
    c = category(op, guarded)
    if (c == "") next
    count[c]++
    if (lines && keep) printf "L\t%s\t%s\t%s\n", fname, a, text
    next
}
END { flush() }
