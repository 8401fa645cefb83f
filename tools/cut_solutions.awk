# SPDX-License-Identifier: MIT
# cut_solutions.awk: the solution regions of one file replaced by stubs (make assignment; the
# rules: INSTRUCTORS.md, Cutting an assignment). Every other byte is kept (CRLF, a last line
# without a newline: last_eol=0). Writes out and prints the number of regions; a bad marker:
# "PATH:LINE: message" on stderr, exit 2.
#
#   awk -v name=PATH -v md=0|1 -v last_eol=0|1 -v out=FILE -f tools/cut_solutions.awk PATH
BEGIN {
    CODE_STUB = "// TODO: implement this part (see README.md, Exercises)"
    MD_STUB = "*(left for you to work out)*"
}

function fail(line, msg) {
    print name ":" line ": " msg | "cat 1>&2"
    failed = 1
    exit 2
}

# Each line is written when the next one comes, so that the last can go without its newline.
function emit(text) {
    if (have) printf "%s\n", pending > out
    pending = text
    have = 1
}

function cr(s) { return s ~ /\r$/ ? "\r" : "" }
function bare(s) { sub(/\r$/, "", s); return s }

{
    b = index($0, "BEGIN SOLUTION") > 0
    e = index($0, "END SOLUTION") > 0
    if (b && e) fail(NR, "BEGIN SOLUTION and END SOLUTION on one line")
    if (!open) {
        if (e) fail(NR, "END SOLUTION without a BEGIN SOLUTION before it")
        if (b) { open = NR; begin = $0; hint = ""; next }
        emit($0)
        next
    }
    if (b) fail(NR, "nested BEGIN SOLUTION (the region opened at line " open " is still open)")
    if (NR == open + 1 && !e && index($0, "HINT:")) hint = bare($0)
    if (!e) next
    match(begin, /^[ \t]*/)
    indent = substr(begin, 1, RLENGTH)
    if (md && hint != "") emit(hint cr(begin))
    if (md) emit(indent MD_STUB cr($0))
    else emit((hint != "" ? hint : indent CODE_STUB) cr($0))
    open = 0
    regions++
}

END {
    if (failed) exit 2
    if (open) fail(open, "BEGIN SOLUTION without an END SOLUTION before the end of the file")
    printf "%s%s", pending, (have && last_eol ? "\n" : "") > out
    print regions + 0
}
