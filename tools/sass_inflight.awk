# SPDX-License-Identifier: MIT
# sass_inflight.awk: the bytes of global loads one thread issues before it must wait, per
# kernel, from `cuobjdump -sass -arch sm_XY` text (maint/EVIDENCE_NOTES.md, Little's law):
#   cuobjdump -sass -arch sm_90 build/04_block_reduce | awk -f tools/sass_inflight.awk
# prints "mangled_name bytes_per_thread" a kernel. With -v counts=1 [-v stage=DIR] (sass.sh):
# for each kernel compiled from DIR (every kernel where the listing names no files), tab-
# separated "K name bytes" and the static counts of the categories of `cats`, and with
# -v lines=1 each counted instruction as "L name address instruction".
# Within a basic block, the loads (LDG, LDGSTS) issued one after another form a group until an
# instruction reads one of their registers, or a branch, barrier, EXIT, RET, CALL, DEPBAR or
# branch target; a group's bytes are its loads' widths summed, and the kernel's figure its
# largest group (a lower bound where the compiler pipelines loads).

BEGIN {
    ncat = split("shfl ldg_4 ldg_8 ldg_16 ldg_narrow ldgsts lds sts bar atom_red pred_fadd bra",
                 cats, " ")
    # opcodes whose register operands are all sources: stores, reductions, control flow,
    # barriers (comparisons, *SETP, write only predicates and are matched apart)
    NO_DEST = "^(ST|RED|BAR|BRA|BRX|JMP|JMX|CALL|RET|EXIT|WARPSYNC|BSSY|BSYNC|YIELD|MEMBAR|" \
              "FENCE|ERRBAR|CGAERRBAR|CCTL|NOP|DEPBAR|PLOP3|R2P|FCHK|BPT|SYNCS|LDGSTS|ARRIVES)"
}

# the lesson's category of an instruction ("" for none); guarded: it has a predicate
function category(op, guarded) {
    if (op ~ /^SHFL/) return "shfl"
    if (op ~ /^LDGSTS/) return "ldgsts"
    if (op ~ /^LDG(\.|$)/)
        return op ~ /\.128(\.|$)/ ? "ldg_16" : op ~ /\.64(\.|$)/ ? "ldg_8" : \
               op ~ /\.(U16|S16|U8|S8)(\.|$)/ ? "ldg_narrow" : "ldg_4"
    if (op ~ /^LDS(\.|$)/) return "lds"
    if (op ~ /^STS(\.|$)/) return "sts"
    if (op ~ /^BAR(\.|$)/) return "bar"
    if (op ~ /^(ATOMG?|ATOMS|REDG?|REDAS)(\.|$)/) return "atom_red"
    if (guarded && op ~ /^(FADD|FMNMX)(\.|$)/) return "pred_fadd"
    return op ~ /^BRA(\.|$)/ ? "bra" : ""
}

function norm_addr(a) {
    a = tolower(a)
    sub(/^0x/, "", a)
    sub(/^0+/, "", a)
    return a == "" ? "0" : a
}

# width in bytes of a global load from its opcode's modifiers
function ldg_bytes(op,    parts, k, n, w) {
    n = split(op, parts, ".")
    w = 4
    for (k = 2; k <= n; k++) {
        if (parts[k] == "128") w = 16
        else if (parts[k] == "64") w = 8
        else if (parts[k] == "U16" || parts[k] == "S16") w = 2
        else if (parts[k] == "U8" || parts[k] == "S8") w = 1
    }
    return w
}

function is_pred(s) {
    gsub(/^[ \t!]+|[ \t]+$/, "", s)
    return s ~ /^U?P([0-6]|T)$/
}

# Adds the registers that operand s reads to the set rd (as "R<n>" keys); wide is the
# number of registers a bare register here spans (2 for 64-bit operands, 4 for .128 data).
function add_reads(s, wide, rd,    rest, pre, tok, num, w, k) {
    rest = s
    while (match(rest, /R[0-9]+(\.64|\.128)?/)) {
        pre = RSTART > 1 ? substr(rest, RSTART - 1, 1) : ""
        tok = substr(rest, RSTART, RLENGTH)
        rest = substr(rest, RSTART + RLENGTH)
        if (pre ~ /[A-Za-z0-9_]/) continue      # UR6, SR_TID: not a register read
        num = tok
        sub(/^R/, "", num)
        sub(/\..*/, "", num)
        w = wide
        if (tok ~ /\.64$/) w = 2
        else if (tok ~ /\.128$/) w = 4
        for (k = 0; k < w; k++) rd["R" (num + k)] = 1
    }
}

# Ends the current group of loads: keeps it if it is the largest of the kernel.
function close_group() {
    if (g_bytes > best_bytes) best_bytes = g_bytes
    g_bytes = 0
    split("", pending)
}

function analyse(    i, k, nops, ops, op, allsrc, dest_k, rd, wide, r, hit, w, num, last, tgt) {
    if (fname == "") return
    split("", target)
    for (i = 1; i <= n; i++) {
        op = opc[i]
        if (op ~ /^(BRA|BRX|JMP|JMX|CALL|BSSY|BREAK|WARPSYNC|SSY|PBK|PCNT)/) {
            nops = split(args[i], ops, ",")
            last = ops[nops]
            gsub(/[ \t]/, "", last)
            if (last ~ /^0x[0-9a-fA-F]+$/) target[norm_addr(last)] = 1
        }
    }
    best_bytes = 0
    close_group()
    for (i = 1; i <= n; i++) {
        op = opc[i]
        if (norm_addr(addr[i]) in target) close_group()
        nops = args[i] == "" ? 0 : split(args[i], ops, ",")
        allsrc = op ~ /SETP/ || op ~ NO_DEST
        dest_k = 0
        if (!allsrc)
            for (k = 1; k <= nops; k++)
                if (!is_pred(ops[k])) { if (ops[k] !~ /\[/) dest_k = k; break }
        split("", rd)
        for (k = 1; k <= nops; k++) {
            if (k == dest_k) continue
            wide = 1
            if (op ~ /^(ST|RED|ATOM)/ && ops[k] !~ /\[/)
                wide = op ~ /\.128/ ? 4 : (op ~ /\.64/ ? 2 : 1)
            else if (op ~ /^IMAD\.WIDE/ && k == nops) wide = 2
            else if (op ~ /^D(ADD|MUL|FMA|SETP|MNMX)/) wide = 2
            else if (op ~ /^(F2F|F2I)/ && op ~ /\.F64/) wide = 2
            add_reads(ops[k], wide, rd)
        }
        hit = 0
        for (r in rd) if (r in pending) { hit = 1; break }
        if (hit) close_group()
        if (op ~ /^LDG(\.|$)/ || op ~ /^LDGSTS/) {
            w = ldg_bytes(op)
            g_bytes += w
            if (dest_k && ops[dest_k] ~ /R[0-9]+/) {
                num = ops[dest_k]
                sub(/^[^R]*R/, "", num)
                sub(/[^0-9].*$/, "", num)
                for (k = 0; k < (w > 4 ? w / 4 : 1); k++) pending["R" (num + k)] = 1
            }
        }
        if (op ~ /^(BRA|BRX|JMP|JMX|EXIT|RET|BAR|CALL|BPT|KILL|DEPBAR)/) close_group()
    }
    close_group()
    if (counts && keep) {
        printf "K\t%s\t%d", fname, best_bytes
        for (k = 1; k <= ncat; k++) printf "\t%d", count[cats[k]] + 0
        printf "\n"
    }
    if (!(fname in result)) order[++nfn] = fname
    if (!(fname in result) || best_bytes > result[fname]) result[fname] = best_bytes
    fname = ""
    n = 0
}

/^[ \t]*Function : / {
    analyse()
    fname = $3
    n = 0
    keep = stage == "" || ident == "" || index("/" ident, "/" stage "/") > 0
    split("", count)
    next
}
/^[ \t]*(Fatbin|arch = |code for )/ { analyse(); if ($1 == "Fatbin") ident = ""; next }
/^[ \t]*identifier = / { ident = $3; next }
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
    guarded = sub(/^@!?U?P([0-6]|T)[ \t]+/, "", line)     # the guard predicate
    if (line == "") next
    c = category(substr(line, 1, index(line " ", " ") - 1), guarded)
    if (counts && c != "" && text !~ /^@!PT[ \t]/) { # @!PT never runs: padding, not a lesson
        count[c]++
        if (lines && keep) printf "L\t%s\t%s\t%s\n", fname, a, text
    }
    sp = index(line, " ")
    n++
    addr[n] = a
    if (sp) { opc[n] = substr(line, 1, sp - 1); args[n] = substr(line, sp + 1) }
    else { opc[n] = line; args[n] = "" }
    next
}

END {
    analyse()
    for (i = 1; !counts && i <= nfn; i++) {
        print order[i], result[order[i]]
    }
}
