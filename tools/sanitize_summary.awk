# SPDX-License-Identifier: MIT
# sanitize_summary.awk: the line sanitize.sh prints for one tool over one program's runs (and,
# on a failure, the first lines of the report):
#   awk -v tool=T -v prog=P -v secs=S -v pairs=" LOG:RC ..." -f tools/sanitize_summary.awk
# Exit 0 clean, 1 a finding, a failed run or a log without a sanitizer summary.
BEGIN {
    n = split(pairs, pr, " ")
    for (i = 1; i <= n; i++) {
        c = match(pr[i], /:[0-9]+$/)
        log_path = substr(pr[i], 1, RSTART - 1)
        rc = substr(pr[i], RSTART + 1) + 0
        runs++
        got_summary = 0
        while ((getline line < log_path) > 0) {
            if (line ~ /ERROR SUMMARY: [0-9]+ error/) {
                got_summary = 1
                x = line; sub(/.*ERROR SUMMARY: /, "", x); errors += x + 0
            } else if (line ~ /RACECHECK SUMMARY: [0-9]+ hazard/) {
                got_summary = 1
                x = line; sub(/.*RACECHECK SUMMARY: /, "", x); hazards += x + 0
            } else if (line ~ /^========= / && line !~ /COMPUTE-SANITIZER|SUMMARY:/) {
                if (nrep < 6 && !(line in seen)) { seen[line] = 1; report[++nrep] = line }
            } else if (line ~ / (ok|FAIL) \(max \|err\|/) {
                checks++
                if (line ~ / FAIL \(/ && nfail < 2) failed[++nfail] = line
            } else if (line ~ /^  FAIL / && nfail < 4) failed[++nfail] = line
            else if (line ~ /^error: / && nerr < 2) errs[++nerr] = line
            else if (line ~ /^[ \t]*tests([ \t]+[0-9]+)([ \t]+[0-9]+)([ \t]+[0-9]+)/) {
                split(line, tf, " ")
                cunit = "CUnit: " tf[3] " tests run, " tf[5] " failed, "
            }
        }
        close(log_path)
        if (rc != 0) { bad_rc = rc; bad_log = log_path }
        if (!got_summary) no_summary = log_path
    }
    found = errors + hazards
    what = found (hazards ? " hazard" : " error") (found == 1 ? "" : "s")
    ok = !bad_rc && found == 0 && no_summary == ""
    detail = checks + 0 " variant check" (checks == 1 ? "" : "s") " in " runs " run" \
             (runs == 1 ? "" : "s") ", " secs " s"
    if (prog == "test_gpu") detail = cunit runs " run, " secs " s"
    if (ok) { printf "%s %s: 0 errors (%s)\n", tool, prog, detail; exit 0 }
    reason = found ? what : (bad_rc ? "the program exited " bad_rc : "no sanitizer summary")
    printf "%s %s: FAILED: %s (%s; log %s)\n", tool, prog, reason, detail,
           bad_log != "" ? bad_log : no_summary
    for (i = 1; i <= nrep; i++) print "    " report[i]
    for (i = 1; i <= nfail; i++) print "    " failed[i]
    for (i = 1; i <= nerr; i++) print "    " errs[i]
    exit 1
}
