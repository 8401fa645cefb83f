/* SPDX-License-Identifier: MIT */
/* The course kit: the solution cutter (tools/cut_solutions.awk), make assignment's script,
   and the grader's parts (tools/grade.c): thresholds, scores, CSV lookup, JSON, and the
   grader itself run against stand-in programs that pass, fail, crash and hang. */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "grade.h"
#include "suites.h"

/* ---- helpers --------------------------------------------------------------- */

static char err[512];

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc((size_t)n + 1);
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) { free(p); p = NULL; }
    fclose(f);
    if (p) { p[n] = '\0'; if (len) *len = (size_t)n; }
    return p;
}

static int write_text(const char *path, const char *text, int executable)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    fputs(text, f);
    fclose(f);
    return executable ? chmod(path, 0755) : 0;
}

/* Runs a shell command, its stdout and stderr into one file (named for this process, since
   several test runs may share /tmp); returns its exit code, the output in cmd_out. */
static char cmd_out[65536];
static int run_sh(const char *cmd)
{
    char full[4096], out[64];
    snprintf(out, sizeof out, "/tmp/reduce-assign-test.%ld.out", (long)getpid());
    snprintf(full, sizeof full, "( %s ) >%s 2>&1", cmd, out);
    int st = system(full);
    char *t = read_all(out, NULL);
    snprintf(cmd_out, sizeof cmd_out, "%s", t ? t : "");
    free(t);
    remove(out);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const char *build_dir(void)
{
    static char path[PATH_MAX + 256];
    char cwd[PATH_MAX];
    const char *b = getenv("BUILD_DIR") ? getenv("BUILD_DIR") : "build";
    if (b[0] == '/' || !getcwd(cwd, sizeof cwd)) snprintf(path, sizeof path, "%s", b);
    else snprintf(path, sizeof path, "%s/%s", cwd, b);
    return path;
}

/* ---- the cutter ----------------------------------------------------------------- */

/* Cuts the text in (a file named x.md when md, else x.cu) as make assignment does; returns
   the awk's exit code, and in cut_text the stubbed text (cmd_out: the region count or the
   message). */
static char cut_text[4096];
static int cut(const char *in, int md)
{
    char dir[] = "/tmp/reduce-cut-XXXXXX", cmd[PATH_MAX + 512], cwd[PATH_MAX];
    if (!mkdtemp(dir) || !getcwd(cwd, sizeof cwd)) return -1;
    const char *name = md ? "x.md" : "x.cu";
    snprintf(cmd, sizeof cmd, "%s/%s", dir, name);
    write_text(cmd, in, 0);
    snprintf(cmd, sizeof cmd,
             "cd %s && e=0; [ -z \"$(tail -c 1 %s)\" ] && e=1; awk -v name=%s -v md=%d "
             "-v last_eol=$e -v out=out -f '%s/tools/cut_solutions.awk' %s",
             dir, name, name, md, cwd, name);
    int rc = run_sh(cmd);
    snprintf(cmd, sizeof cmd, "%s/out", dir);
    char *t = read_all(cmd, NULL);
    snprintf(cut_text, sizeof cut_text, "%s", t && rc == 0 ? t : "");
    free(t);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "note: could not remove %s\n", dir);
    return rc;
}

static void test_the_cutter_stubs_every_region_and_keeps_every_other_byte(void)
{
    /* LF and CRLF lines, a hint right after BEGIN, a HINT further down (part of the solution),
       a region at the end of a file without a trailing newline, text around every region */
    CU_ASSERT_EQUAL(cut("int a;\n"
                        "    // BEGIN SOLUTION\n"
                        "    a = 1;\n"
                        "    // HINT: not right after BEGIN\n"
                        "    // END SOLUTION\n"
                        "  keep  \n"
                        "\t// BEGIN SOLUTION\r\n"
                        "\t// HINT: one __shfl_down_sync per halving\r\n"
                        "\tv += __shfl_down_sync(~0u, v, 16);\r\n"
                        "\t// END SOLUTION\r\n"
                        "mid\r\n"
                        "\n"
                        "  // BEGIN SOLUTION (the tail)\n"
                        "  tail();\n"
                        "  // END SOLUTION", 0), 0);
    CU_ASSERT_STRING_EQUAL(cmd_out, "3\n");
    CU_ASSERT_STRING_EQUAL(cut_text, "int a;\n"
                                     "    // TODO: implement this part (see README.md, Exercises)\n"
                                     "  keep  \n"
                                     "\t// HINT: one __shfl_down_sync per halving\r\n"
                                     "mid\r\n"
                                     "\n"
                                     "  // TODO: implement this part (see README.md, Exercises)");
    static const char *const whole[] = {"", "x", "x\n", "a\r\nb\r\n", "\n\n", "// solutions\n"};
    for (size_t i = 0; i < sizeof whole / sizeof *whole; i++) {
        CU_ASSERT_EQUAL(cut(whole[i], 0), 0);
        CU_ASSERT_STRING_EQUAL(cut_text, whole[i]);
    }
}

static void test_a_markdown_region_becomes_the_markdown_stub_after_its_hint(void)
{
    CU_ASSERT_EQUAL(cut("1. Why?\n"
                        "<!-- BEGIN SOLUTION -->\n"
                        "Because the warp diverges.\n"
                        "<!-- END SOLUTION -->\n"
                        "2. How much?\n"
                        "   <!-- BEGIN SOLUTION -->\n"
                        "   <!-- HINT: compare the two bars of the ladder plot -->\n"
                        "   About 2x.\n"
                        "   <!-- END SOLUTION -->\n", 1), 0);
    CU_ASSERT_STRING_EQUAL(cut_text, "1. Why?\n"
                                     "*(left for you to work out)*\n"
                                     "2. How much?\n"
                                     "   <!-- HINT: compare the two bars of the ladder plot -->\n"
                                     "   *(left for you to work out)*\n");
}

/* Expects the cutter to refuse in with one line "x.cu:LINE: ..." holding what. */
static void expect_rejected(const char *in, int line, const char *what)
{
    char prefix[32];
    CU_ASSERT_EQUAL(cut(in, 0), 2);
    snprintf(prefix, sizeof prefix, "x.cu:%d: ", line);
    CU_ASSERT_EQUAL(strncmp(cmd_out, prefix, strlen(prefix)), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(cmd_out, what));
    CU_ASSERT_EQUAL(strchr(cmd_out, '\n'), cmd_out + strlen(cmd_out) - 1);
}

static void test_nested_and_unbalanced_markers_are_rejected_with_their_line(void)
{
    expect_rejected("a\n// BEGIN SOLUTION\nb\n// BEGIN SOLUTION\n// END SOLUTION\n"
                    "// END SOLUTION\n", 4, "nested");
    expect_rejected("a\nb\n  // BEGIN SOLUTION\nc\n", 3, "without an END");
    expect_rejected("// BEGIN SOLUTION\n// END SOLUTION\n\n// END SOLUTION\n", 4,
                    "without a BEGIN");
    expect_rejected("x // BEGIN SOLUTION // END SOLUTION\n", 1, "one line");
}

/* ---- make assignment's script ---------------------------------------------- */

/* A small tree without git: two stages, answers, a guide for instructors, and the real
   script, cutter and solution-only list. */
static int make_tree(char *dir, size_t cap, const char *stage_one_cu)
{
    char path[1024], cmd[4096];
    snprintf(dir, cap, "/tmp/reduce-assign-XXXXXX");
    if (!mkdtemp(dir)) return -1;
    snprintf(cmd, sizeof cmd, "cd %s && mkdir -p 01_one 02_two tools && " /* no build/: a fresh clone */
             "cp '%s'/tools/assignment.sh '%s'/tools/cut_solutions.awk "
             "'%s'/tools/solution_only.txt tools/",
             dir, getcwd(path, sizeof path), path, path);
    if (run_sh(cmd) != 0) return -1;
    const char *files[][2] = {
        {"01_one/one.cu", stage_one_cu},
        {"01_one/README.md", "# 01\n<!-- BEGIN SOLUTION -->\nanswer\n<!-- END SOLUTION -->\n"},
        {"01_one/ANSWERS.md", "the answers\n"},
        {"02_two/two.cu", "x\n// BEGIN SOLUTION\ny\n// END SOLUTION\n"},
        {"02_two/ANSWERS.md", "more answers\n"},
        {"INSTRUCTORS.md", "for instructors\n"},
        {"README.md", "top\n"},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i][0]);
        if (write_text(path, files[i][1], 0)) return -1;
    }
    return 0;
}

static int exists(const char *dir, const char *rel)
{
    char path[1024];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    return stat(path, &st) == 0;
}

static void test_make_assignment_stubs_the_chosen_stages_and_leaves_out_the_answers(void)
{
    char dir[256], cmd[1024];
    const char *one = "a\n  // BEGIN SOLUTION\n  b\n  // END SOLUTION\nc";
    CU_ASSERT_FATAL(make_tree(dir, sizeof dir, one) == 0);
    snprintf(cmd, sizeof cmd, "cd %s && sh tools/assignment.sh build 01_one", dir);
    CU_ASSERT_EQUAL(run_sh(cmd), 0);
    char a[512];
    snprintf(a, sizeof a, "%s/build/assignment", dir);
    CU_ASSERT(exists(dir, "build/assignment.tar.gz"));
    CU_ASSERT(!exists(a, "INSTRUCTORS.md"));
    CU_ASSERT(!exists(a, "01_one/ANSWERS.md"));
    CU_ASSERT(!exists(a, "02_two/ANSWERS.md"));
    CU_ASSERT(exists(a, "README.md"));
    CU_ASSERT(exists(a, "tools/assignment.sh"));
    char p[600];
    snprintf(p, sizeof p, "%s/01_one/one.cu", a);
    char *t = read_all(p, NULL);
    CU_ASSERT_STRING_EQUAL(t ? t : "", "a\n  // TODO: implement this part (see README.md, Exercises)\nc");
    free(t);
    snprintf(p, sizeof p, "%s/01_one/README.md", a);
    t = read_all(p, NULL);
    CU_ASSERT_STRING_EQUAL(t ? t : "", "# 01\n*(left for you to work out)*\n");
    free(t);
    /* a stage not chosen is copied whole, markers and all */
    snprintf(p, sizeof p, "%s/02_two/two.cu", a);
    t = read_all(p, NULL);
    CU_ASSERT_STRING_EQUAL(t ? t : "", "x\n// BEGIN SOLUTION\ny\n// END SOLUTION\n");
    free(t);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    run_sh(cmd);
}

static void test_make_assignment_refuses_a_bad_marker_and_writes_nothing(void)
{
    char dir[256], cmd[1024];
    const char *one = "a\n// BEGIN SOLUTION\n// BEGIN SOLUTION\nb\n";
    CU_ASSERT_FATAL(make_tree(dir, sizeof dir, one) == 0);
    snprintf(cmd, sizeof cmd, "cd %s && sh tools/assignment.sh build 01_one,02_two", dir);
    CU_ASSERT_EQUAL(run_sh(cmd), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(cmd_out, "01_one/one.cu:3: nested"));
    CU_ASSERT(!exists(dir, "build/assignment"));
    CU_ASSERT(!exists(dir, "build/assignment.tmp"));
    CU_ASSERT(!exists(dir, "build/assignment.tar.gz"));
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    run_sh(cmd);
}

static void test_every_stage_is_cut_with_no_marker_left(void)
{
    /* the repository's own regions: an assignment of every stage, its stubbed files searched
       for a marker (tools/assignment.sh fails on one as well) */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "rm -rf '%s/cut-all' && mkdir -p '%s/cut-all' && "
             "sh tools/assignment.sh '%s/cut-all' \"$(ls -d [0-9][0-9]_*/ | tr -d / | "
             "tr '\\n' ' ')\" && ! grep -rl -e 'BEGIN SOLUTION' -e 'END SOLUTION' "
             "'%s'/cut-all/assignment/[0-9][0-9]_*",
             build_dir(), build_dir(), build_dir(), build_dir());
    int rc = run_sh(cmd);
    if (rc != 0) fprintf(stderr, "\n%s\n", cmd_out);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(cmd_out, "regions stubbed"));
    snprintf(cmd, sizeof cmd, "rm -rf '%s/cut-all'", build_dir());
    run_sh(cmd);
}

static void test_the_batch_script_takes_only_stage_sources_from_a_submission(void)
{
    char dir[] = "/tmp/reduce-batch-XXXXXX", cmd[4096], cwd[1024], p[1024];
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    CU_ASSERT_FATAL(getcwd(cwd, sizeof cwd) != NULL);
    /* a tiny assignment, and three submissions: in a tree, flat with macOS litter, unrelated */
    snprintf(cmd, sizeof cmd,
             "cd %s && mkdir -p a/tools a/common a/03_s a/05_p s/alice/repo/03_s s/bob/__MACOSX "
             "s/carol && : >a/Makefile && : >a/tools/thresholds.txt && echo stub >a/03_s/s.cu && "
             "echo stub >a/05_p/p.cu && echo check >a/common/check.c && "
             "echo alice >s/alice/repo/03_s/s.cu && echo bob >s/bob/s.cu && "
             "echo junk >s/bob/__MACOSX/._s.cu && echo bob >s/bob/p.cu && "
             "echo cheat >s/bob/check.c && echo carol >s/carol/other.cu", dir);
    CU_ASSERT_FATAL(run_sh(cmd) == 0);
    snprintf(cmd, sizeof cmd, "cd %s && sh '%s/tools/grade_batch.sh' -n -s 03_s a s o", dir, cwd);
    CU_ASSERT_EQUAL(run_sh(cmd), 0);
    const char *want[][2] = {
        {"o/work/alice/03_s/s.cu", "alice\n"},
        {"o/work/bob/03_s/s.cu", "bob\n"},
        {"o/work/bob/05_p/p.cu", "stub\n"},        /* a stage not graded stays as cut */
        {"o/work/bob/common/check.c", "check\n"},  /* never taken from a submission */
        {"o/work/carol/03_s/s.cu", "stub\n"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, want[i][0]);
        char *t = read_all(p, NULL);
        CU_ASSERT_STRING_EQUAL(t ? t : "(missing)", want[i][1]);
        free(t);
    }
    snprintf(p, sizeof p, "%s/o/bob/files.txt", dir);
    char *t = read_all(p, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "used     s.cu -> 03_s/s.cu"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "ignored  p.cu"));
    CU_ASSERT_PTR_NULL(strstr(t, "__MACOSX"));
    free(t);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    run_sh(cmd);
}

/* ---- the grader's parts ------------------------------------------------------ */

static void test_json_strings_escape_quotes_backslashes_and_control_characters(void)
{
    const char in[] = "say \"hi\"\\ path\\n\n\ttab\r\x01\x1f\x7f end";
    char *q = json_string(in, sizeof in - 1);
    CU_ASSERT_STRING_EQUAL(q, "\"say \\\"hi\\\"\\\\ path\\\\n\\n\\ttab\\r"
                              "\\u0001\\u001f\\u007f end\"");
    free(q);
    q = json_string("a\0b", 3);
    CU_ASSERT_STRING_EQUAL(q, "\"a\\u0000b\"");
    free(q);
    q = json_string("", 0);
    CU_ASSERT_STRING_EQUAL(q, "\"\"");
    free(q);
}

static void test_json_strings_keep_utf8_and_replace_invalid_bytes(void)
{
    const char good[] = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xef\xbf\xbd";
    char *q = json_string(good, sizeof good - 1);
    char want[64];
    snprintf(want, sizeof want, "\"%s\"", good);
    CU_ASSERT_STRING_EQUAL(q, want);
    free(q);
    /* a stray byte, a cut sequence, an overlong '/', a surrogate, beyond U+10FFFF */
    const char bad[] = "\xff|\xc3|\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80";
    q = json_string(bad, sizeof bad - 1);
    CU_ASSERT_STRING_EQUAL(q, "\"\\ufffd|\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|"
                              "\\ufffd\\ufffd\\ufffd\\ufffd\"");
    free(q);
}

static void test_the_thresholds_file_parses_and_covers_every_stage(void)
{
    char *text = read_all("tools/thresholds.txt", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    thresholds_t t;
    int r = thresholds_parse(text, "tools/thresholds.txt", &t, err, sizeof err);
    if (r) fprintf(stderr, "\n  %s\n", err);
    CU_ASSERT_EQUAL_FATAL(r, 0);
    free(text);
    DIR *root = opendir(".");
    struct dirent *e;
    while (root && (e = readdir(root))) {
        const char *s = e->d_name;
        if (s[0] >= '0' && s[0] <= '9' && s[1] >= '0' && s[1] <= '9' && s[2] == '_') {
            int perf = 0;
            for (size_t i = 0; i < t.n_perf; i++) perf += strcmp(t.perf[i].stage, s) == 0;
            CU_ASSERT_PTR_NOT_NULL(thresholds_correctness(&t, s));
            CU_ASSERT(perf >= 1);
        }
    }
    if (root) closedir(root);
    thresholds_free(&t);
}

static void test_every_performance_rule_names_a_variant_its_stage_lists(void)
{
    char *text = read_all("tools/thresholds.txt", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    thresholds_t t;
    CU_ASSERT_EQUAL_FATAL(thresholds_parse(text, "tools/thresholds.txt", &t, err, sizeof err), 0);
    free(text);
    for (size_t i = 0; i < t.n_perf; i++) {
        const perf_rule *r = &t.perf[i];
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "'%s/%s' --list", build_dir(), r->stage);
        CU_ASSERT_EQUAL(run_sh(cmd), 0);
        int found = 0;
        for (char *line = strtok(cmd_out, "\n"); line; line = strtok(NULL, "\n")) {
            char name[128], op[32], types[64];
            size_t k = strlen(r->dtype); /* types is "IN->OUT"; the CSV's dtype is IN */
            if (sscanf(line, " %127s %31s %63s", name, op, types) == 3 &&
                !strcmp(name, r->variant) && !strcmp(op, r->op) &&
                !strncmp(types, r->dtype, k) && types[k] == '-')
                found = 1;
        }
        if (!found)
            fprintf(stderr, "\n  tools/thresholds.txt:%d: %s lists no %s %s %s\n", r->line,
                    r->stage, r->variant, r->op, r->dtype);
        CU_ASSERT(found);
    }
    thresholds_free(&t);
}

static void test_a_bad_thresholds_line_is_reported_with_its_number(void)
{
    const char *head = "# comment\n\ncorrectness 01_naive 4 3 3\n";
    const char *bad[][2] = {
        {"bogus 01_naive 1\n", "unknown rule"},
        {"correctness 01_naive 4 3\n", "4 fields"},
        {"correctness naive 4 3 3\n", "stage name"},
        {"correctness 02_x 4 -1 3\n", "points"},
        {"correctness 01_naive 1 1 1\n", "second correctness rule"},
        {"performance 01_naive v sum f32 80\n", "6 fields"},
        {"performance 01_naive v max f32 80 5\n", "op 'max'"},
        {"performance 01_naive v sum f64 80 5\n", "dtype 'f64'"},
        {"performance 01_naive v sum f32 0 5\n", "(0, 100]"},
        {"performance 01_naive v sum f32 101 5\n", "(0, 100]"},
        {"performance 01_naive v sum f32 80% 5\n", "(0, 100]"},
        {"performance 01_naive v sum f32 80 five\n", "points"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[512];
        thresholds_t t;
        snprintf(text, sizeof text, "%s%s", head, bad[i][0]);
        CU_ASSERT_EQUAL(thresholds_parse(text, "th.txt", &t, err, sizeof err), -1);
        CU_ASSERT_EQUAL(strncmp(err, "th.txt:4: ", 10), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, bad[i][1]));
        CU_ASSERT_PTR_NULL(t.perf);
    }
    /* a rule given twice names the first one's line */
    thresholds_t t;
    const char twice[] = "performance 01_naive v sum f32 80 5\n\n"
                         "performance 01_naive v sum f32 70 5\n";
    CU_ASSERT_EQUAL(thresholds_parse(twice, "th.txt", &t, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "th.txt:3: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "line 1"));
    /* comments after fields and CRLF endings are fine */
    const char ok[] = "correctness 01_naive 4 3 3 # points\r\n"
                      "performance 01_naive v sum f32 8 2.5\r\n";
    CU_ASSERT_EQUAL_FATAL(thresholds_parse(ok, "th.txt", &t, err, sizeof err), 0);
    CU_ASSERT_EQUAL(t.n_correct, 1);
    CU_ASSERT_EQUAL(t.n_perf, 1);
    CU_ASSERT_DOUBLE_EQUAL(t.perf[0].points, 2.5, 1e-12);
    CU_ASSERT_EQUAL(t.perf[0].line, 2);
    thresholds_free(&t);
}

static void test_performance_scores_full_proportional_and_zero(void)
{
    CU_ASSERT_DOUBLE_EQUAL(perf_score(5, 90, 80, 1), 5, 1e-12);     /* above: full */
    CU_ASSERT_DOUBLE_EQUAL(perf_score(5, 80, 80, 1), 5, 1e-12);     /* at: full */
    CU_ASSERT_DOUBLE_EQUAL(perf_score(5, 40, 80, 1), 2.5, 1e-12);   /* half way: half */
    CU_ASSERT_DOUBLE_EQUAL(perf_score(2.5, 30, 90, 1), 0.83, 1e-12); /* rounded to 0.01 */
    CU_ASSERT_DOUBLE_EQUAL(perf_score(5, 0, 80, 1), 0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(perf_score(5, 99, 80, 0), 0, 1e-12);     /* not correct: nothing */
    CU_ASSERT_DOUBLE_EQUAL(perf_score(5, -1, 80, 1), 0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(perf_score(5, 0.0 / 0.0, 80, 1), 0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(round_points(0.125), 0.13, 1e-12);
}

static void test_the_grader_reads_its_csv_with_the_results_reader(void)
{
    const char csv[] =
        "# gpu: NVIDIA H200\n"
        "gpu,stage,variant,op,dtype,rows,cols,bytes,median_us,min_us,gbps,ceiling_gbps,"
        "pct_of_ceiling,max_err,check\n"
        "H200,baseline,read_stream,sum,f32,1,268435456,1,1,1,4555.31,4555.31,100.00,0,ok\n"
        "H200,03_shuffle,shuffle_down_tree,sum,f32,1,268435456,1,1,1,2449.68,4549.45,53.85,0,ok\r\n"
        "H200,03_shuffle,warp_per_row,rowsum,f32,65536,1024,1,1,1,4029.17,4248.47,94.84,0,FAIL\n";
    csv_hit h;
    CU_ASSERT_EQUAL(csv_find(csv, "03_shuffle", "shuffle_down_tree", "sum", "f32", &h), 1);
    CU_ASSERT_DOUBLE_EQUAL(h.pct_of_ceiling, 53.85, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(h.gbps, 2449.68, 1e-9);
    CU_ASSERT(h.check_ok);
    CU_ASSERT_EQUAL(csv_find(csv, "03_shuffle", "warp_per_row", "rowsum", "f32", &h), 1);
    CU_ASSERT(!h.check_ok);
    CU_ASSERT_EQUAL(csv_find(csv, "03_shuffle", "shuffle_down_tree", "sum", "f16", &h), 0);
    CU_ASSERT_EQUAL(csv_find("just text\n", "03_shuffle", "x", "sum", "f32", &h), -1);
    CU_ASSERT_EQUAL(csv_find(csv, "03_shuffle", NULL, NULL, NULL, &h), 0);
    CU_ASSERT_EQUAL(h.rows, 2);
    CU_ASSERT_EQUAL(h.failed, 1);
    char bad[1024];
    snprintf(bad, sizeof bad, "%sH200,03_shuffle,x,sum,f64,1,1,1,1,1,1,1,1,0,ok\n", csv);
    CU_ASSERT_EQUAL(csv_find(bad, "03_shuffle", NULL, NULL, NULL, &h), -1); /* the reader's */
}

static void test_an_output_excerpt_keeps_the_failures_and_the_tail(void)
{
    char text[8192] = "";
    for (int i = 1; i <= 200; i++) {
        char line[64];
        snprintf(line, sizeof line, i == 7 ? "line %d: check FAILED at index 3\n" : "line %d\n", i);
        strcat(text, line);
    }
    char *ex = output_excerpt(text, strlen(text), 5, 4000);
    CU_ASSERT_PTR_NOT_NULL(strstr(ex, "line 7: check FAILED"));
    CU_ASSERT_PTR_NOT_NULL(strstr(ex, "line 196\nline 197\nline 198\nline 199\nline 200\n"));
    CU_ASSERT_PTR_NULL(strstr(ex, "line 100\n"));
    free(ex);
    ex = output_excerpt("short\n", 6, 5, 4000);
    CU_ASSERT_STRING_EQUAL(ex, "short\n");
    free(ex);
    ex = output_excerpt(text, strlen(text), 100, 300);
    CU_ASSERT(strlen(ex) <= 300);
    CU_ASSERT_PTR_NOT_NULL(strstr(ex, "line 200\n"));
    free(ex);
}

static void test_a_correctness_rule_may_give_the_sanitizer_test_points(void)
{
    thresholds_t t;
    const char text[] = "correctness 01_naive 4 3 3 2.5\ncorrectness 02_strided 4 3 3\n";
    CU_ASSERT_EQUAL_FATAL(thresholds_parse(text, "th.txt", &t, err, sizeof err), 0);
    const correct_rule *a = thresholds_correctness(&t, "01_naive");
    const correct_rule *b = thresholds_correctness(&t, "02_strided");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_DOUBLE_EQUAL(a->sanitizer_points, 2.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(a->run_points, 3, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(b->sanitizer_points, 0, 1e-12); /* four fields: no points */
    thresholds_free(&t);
    const char *bad[][2] = {
        {"correctness 01_naive 4 3 3 -1\n", "points"},
        {"correctness 01_naive 4 3 3 x\n", "points"},
        {"correctness 01_naive 4 3 3 3 3\n", "not 6"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CU_ASSERT_EQUAL(thresholds_parse(bad[i][0], "th.txt", &t, err, sizeof err), -1);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "th.txt:1: "));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, bad[i][1]));
    }
}

static void test_the_sanitizer_summary_and_first_report_are_read(void)
{
    const char memcheck[] =
        "========= COMPUTE-SANITIZER\n"
        "02_strided: Strided and sequential addressing\n"
        "========= Invalid __global__ read of size 16 bytes\n"
        "=========     at reduce_packed_sum(const float *, float *, unsigned long)+0x1f0 in "
        "/home/student/course/05_packed/packed.cu:187 and this line goes on and on past what "
        "a student needs to read, long enough to be cut\n"
        "=========     by thread (3,0,0) in block (0,0,0)\n"
        "=========     Address 0x7f0000000004 is misaligned\n"
        "=========     Saved host backtrace up to driver entry point at kernel launch time\n"
        "=========         Host Frame: [0x2f6d0] in libcuda.so.1\n"
        "=========\n"
        "========= Invalid __global__ read of size 16 bytes\n"
        "=========     at reduce_packed_sum(const float *, float *, unsigned long)+0x1f0\n"
        "=========\n"
        "packed_sum sum f32 n=33 - - - - - FAIL (max |err| 2)\n"
        "========= ERROR SUMMARY: 2 errors\n";
    CU_ASSERT_EQUAL(sanitizer_findings(memcheck), 2);
    char *rep = sanitizer_report(memcheck, 8);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rep);
    CU_ASSERT_PTR_NOT_NULL(strstr(rep, "========= Invalid __global__ read of size 16 bytes\n"
                                       "=========     at reduce_packed_sum("));
    CU_ASSERT_PTR_NOT_NULL(strstr(rep, "is misaligned\n========= ERROR SUMMARY: 2 errors\n"));
    CU_ASSERT_PTR_NULL(strstr(rep, "Host Frame")); /* the host backtrace is noise */
    CU_ASSERT_PTR_NULL(strstr(rep, "COMPUTE-SANITIZER"));
    CU_ASSERT_PTR_NULL(strstr(rep, "+0x1f0\n=========\n")); /* only the first report */
    CU_ASSERT_PTR_NOT_NULL(strstr(rep, "...\n"));             /* the long line, cut */
    for (char *line = rep; *line;) {
        char *nl = strchr(line, '\n');
        CU_ASSERT((nl ? (size_t)(nl - line) : strlen(line)) <= 160);
        line = nl ? nl + 1 : line + strlen(line);
    }
    free(rep);
    rep = sanitizer_report(memcheck, 2); /* at most max_lines lines of the report */
    CU_ASSERT_PTR_NOT_NULL(
        strstr(rep, "read of size 16 bytes\n=========     at reduce_packed_sum("));
    CU_ASSERT_PTR_NULL(strstr(rep, "by thread"));
    free(rep);
    const char race[] = "========= COMPUTE-SANITIZER\n"
                        "========= Warning: Race reported between Write access at k()+0x10\n"
                        "=========     and Read access at k()+0x20 [4 hazards]\n"
                        "=========\n"
                        "========= RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 warning)\n";
    CU_ASSERT_EQUAL(sanitizer_findings(race), 1); /* a warning fails too */
    CU_ASSERT_EQUAL(sanitizer_findings("========= RACECHECK SUMMARY: 3 hazards displayed (3 "
                                       "errors, 0 warnings)\n========= ERROR SUMMARY: 3 errors\n"),
                    3); /* the same findings, counted once */
    rep = sanitizer_report(race, 8);
    CU_ASSERT_STRING_EQUAL(rep, "========= Warning: Race reported between Write access at "
                                "k()+0x10\n=========     and Read access at k()+0x20 [4 hazards]\n"
                                "========= RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 "
                                "warning)\n");
    free(rep);
    const char clean[] = "========= COMPUTE-SANITIZER\nv sum f32 n=1 ok\n"
                         "========= ERROR SUMMARY: 0 errors\n";
    CU_ASSERT_EQUAL(sanitizer_findings(clean), 0);
    rep = sanitizer_report(clean, 8);
    CU_ASSERT_STRING_EQUAL(rep, "");
    free(rep);
    /* killed or crashed before its summary: not a pass */
    CU_ASSERT_EQUAL(sanitizer_findings("========= COMPUTE-SANITIZER\nv sum f32 n=1 ok\n"), -1);
    CU_ASSERT_EQUAL(sanitizer_findings(""), -1);
}

static void test_the_sanitizer_sizes_make_every_loop_run_twice_on_any_gpu(void)
{
    char n_sum[64], rows[32];
    static const int sms[] = {1, 46, 108, 132, 148, 170, 188};
    for (size_t i = 0; i < sizeof sms / sizeof sms[0]; i++) {
        sanitizer_sizes(sms[i], n_sum, sizeof n_sum, rows, sizeof rows);
        const char *big = strrchr(n_sum, ',');
        CU_ASSERT_PTR_NOT_NULL_FATAL(big);
        size_t n = strtoull(big + 1, NULL, 10), r = strtoull(rows, NULL, 10);
        /* every thread of a full GPU (at most 2048 threads an SM) does two unrolled laps of
           four 16-byte packs, then a tail of 3 floats */
        CU_ASSERT(n >= 2 * 4 * 4 * (size_t)2048 * sms[i]);
        CU_ASSERT(n % 4 == 3);
        /* more rows than the GPU holds blocks of 64 threads: each loops over rows */
        CU_ASSERT(r > (size_t)32 * sms[i]);
        CU_ASSERT(!strncmp(n_sum, "1,33,1025,65537,", 16));
    }
    sanitizer_sizes(132, n_sum, sizeof n_sum, rows, sizeof rows);
    CU_ASSERT_STRING_EQUAL(n_sum, "1,33,1025,65537,8650759");
    CU_ASSERT_STRING_EQUAL(rows, "4227");
    char n0[64], r0[32];
    sanitizer_sizes(0, n0, sizeof n0, r0, sizeof r0); /* unknown: an H100's 132 */
    CU_ASSERT_STRING_EQUAL(n0, n_sum);
    CU_ASSERT_STRING_EQUAL(r0, rows);
    CU_ASSERT_EQUAL(csv_sm_count("# gpu: NVIDIA H100\n# cuda: 13.0\n"
                                 "# sm_count: 132 l2_bytes: 52428800 compute_capability: 9.0\n"
                                 "gpu,stage\n"), 132);
    CU_ASSERT_EQUAL(csv_sm_count("gpu,stage\nx,# sm_count: 5\n"), 0);
    CU_ASSERT_EQUAL(csv_sm_count(""), 0);
}

/* ---- the grader, run against stand-in programs ------------------------------ */

/* A minimal JSON validator: returns the position after one value, or NULL. */
static const char *json_ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') p++;
    return p;
}
static const char *json_value(const char *p, int depth);
static const char *json_str(const char *p)
{
    if (*p++ != '"') return NULL;
    for (; *p != '"'; p++) {
        if ((unsigned char)*p < 0x20) return NULL;
        if (*p == '\\') {
            p++;
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i]) return NULL;
                p += 4;
            } else if (!*p || !strchr("\"\\/bfnrt", *p)) return NULL;
        }
    }
    return p + 1;
}
static const char *json_value(const char *p, int depth)
{
    if (depth > 32) return NULL;
    p = json_ws(p);
    if (*p == '"') return json_str(p);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        p = json_ws(p + 1);
        if (*p == close) return p + 1;
        for (;;) {
            if (close == '}') {
                if (!(p = json_str(json_ws(p)))) return NULL;
                p = json_ws(p);
                if (*p++ != ':') return NULL;
            }
            if (!(p = json_value(p, depth + 1))) return NULL;
            p = json_ws(p);
            if (*p == close) return p + 1;
            if (*p++ != ',') return NULL;
        }
    }
    if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4)) return p + 4;
    if (!strncmp(p, "false", 5)) return p + 5;
    char *end;
    strtod(p, &end);
    return end == p ? NULL : end;
}

/* A stand-in for compute-sanitizer: runs the program after its options, logs each call
   ("TOOL QUICK PROGRAM ARGS", QUICK the value of GPU_TEST_QUICK) to sanitizer.calls in the
   current directory, and reports a race under racecheck for a program named *_race and an
   uninitialised read under initcheck for one named *_uninit; else a clean summary and the
   program's exit code, as the real tool does with --error-exitcode. */
static void write_fake_sanitizer(const char *path)
{
    write_text(path,
               "#!/bin/sh\n"
               "tool=memcheck\n"
               "while [ $# -gt 0 ]; do\n"
               "  case $1 in\n"
               "  --tool) tool=$2; shift 2 ;;\n"
               "  --error-exitcode|--print-limit|--show-backtrace) shift 2 ;;\n"
               "  *) break ;;\n"
               "  esac\n"
               "done\n"
               "echo \"$tool ${GPU_TEST_QUICK:--} $*\" >>sanitizer.calls\n"
               "echo '========= COMPUTE-SANITIZER'\n"
               "\"$@\"; rc=$?\n"
               "case $tool:$(basename \"$1\") in\n"
               "racecheck:*_race)\n"
               "  echo '========= Error: Race reported between Write access at "
               "rowsum(const float *)+0x2d0 in r.cu:81'\n"
               "  echo '=========     and Read access at rowsum(const float *)+0x350 in r.cu:86 "
               "[1024 hazards]'\n"
               "  echo '========='\n"
               "  echo '========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)'\n"
               "  exit 1 ;;\n"
               "initcheck:*_uninit)\n"
               "  echo '========= Uninitialized __global__ memory read of size 4 bytes'\n"
               "  echo '=========     at k(const float *)+0x70 in u.cu:40'\n"
               "  echo '=========     by thread (33,0,0) in block (0,0,0)'\n"
               "  echo '=========     Saved host backtrace up to driver entry point'\n"
               "  echo '=========         Host Frame: [0x1] in libcuda.so.1'\n"
               "  echo '========='\n"
               "  echo '========= ERROR SUMMARY: 1 error'\n"
               "  exit 1 ;;\n"
               "racecheck:*) echo '========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, "
               "0 warnings)' ;;\n"
               "*) echo '========= ERROR SUMMARY: 0 errors' ;;\n"
               "esac\n"
               "exit $rc\n",
               1);
}

/* 1 if pid is a live process; a zombie (killed, not yet reaped by its new parent) is not. */
static int process_running(int pid)
{
    if (kill(pid, 0) != 0) return 0;
    char path[64], stat[512];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return 1;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = '\0';
    const char *close = strrchr(stat, ')');
    return !(close && (close[2] == 'Z' || close[2] == 'X'));
}

static void test_the_grader_survives_a_hang_a_crash_and_a_wrong_result(void)
{
    char dir[] = "/tmp/reduce-grade-XXXXXX", path[1024], cmd[4096];
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof cmd, "cd %s && mkdir -p 01_good 02_hang 03_crash 04_wrong 05_skip build "
             "tools", dir);
    CU_ASSERT_FATAL(run_sh(cmd) == 0);
    /* the gpu suite: one program, behaving by GPU_TEST_STAGES */
    snprintf(path, sizeof path, "%s/build/test_gpu", dir);
    write_text(path,
               "#!/bin/sh\n"
               "case $GPU_TEST_STAGES in\n"
               "01_good) echo 'Run Summary: all passed'; exit 0 ;;\n"
               "02_hang) sleep 60 & echo $! >>hang.pids; wait; exit 0 ;;\n"
               "03_crash) echo 'about to fault'; kill -SEGV $$ ;;\n"
               "05_skip) echo 'gpu: 0 passed, 0 failed, 9 skipped'; exit 0 ;;\n"
               "04_wrong) i=0; while [ $i -lt 100 ]; do echo \"case $i ok\"; i=$((i+1)); done;\n"
               "   echo '04_wrong/v sum rows=1 cols=33: wrote past the end of its output'\n"
               "   exit 1 ;;\n"
               "esac\n", 1);
    /* the stage programs: --list, --check-only, --csv FILE */
    const char *program =
        "#!/bin/sh\n"
        "stage=$(basename \"$0\")\n"
        "case \"$*\" in *--list*) echo \"$stage: x\";\n"
        "  echo '  v                        sum        f32->f32  idea'; exit 0 ;; esac\n"
        "case $stage in\n"
        "02_hang) sleep 60 & echo $! >>hang.pids; wait ;;\n"
        "03_crash) echo 'caf\xc3\xa9 \"quoted\" \\\\ back'; printf 'bad byte \\377\\n'\n"
        "   kill -SEGV $$ ;;\n"
        "04_wrong) [ \"$1\" = --check-only ] &&\n"
        "   { echo 'v sum n=33: check FAILED at index 32: expected 33, got 32'; exit 1; } ;;\n"
        "esac\n"
        "if [ \"$1\" = --csv ]; then\n"
        "  { echo '# gpu: test'; echo 'gpu,stage,variant,op,dtype,rows,cols,bytes,median_us,min_us,"
        "gbps,ceiling_gbps,pct_of_ceiling,max_err,check';\n"
        "    echo \"t,baseline,read_stream,sum,f32,1,1,4,1,1,100,100,100.00,0,ok\";\n"
        "    echo \"t,$stage,v,sum,f32,1,1,4,1,1,45,100,45.00,0,ok\"; } >> \"$2\"\n"
        "fi\n"
        "exit 0\n";
    const char *stages[] = {"01_good", "02_hang", "03_crash", "04_wrong", "05_skip"};
    for (int i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "%s/build/%s", dir, stages[i]);
        write_text(path, program, 1);
    }
    snprintf(path, sizeof path, "%s/tools/thresholds.txt", dir);
    write_text(path,
               "correctness 01_good 4 3 3\ncorrectness 02_hang 4 3 3\n"
               "correctness 03_crash 4 3 3\ncorrectness 04_wrong 4 3 3\n"
               "correctness 05_skip 4 3 3\n"
               "performance 01_good v sum f32 90 4\n"       /* 45 of 90: half */
               "performance 01_good w sum f32 40 1\n"       /* not measured */
               "performance 02_hang v sum f32 40 4\n"
               "performance 04_wrong v sum f32 40 4\n", 0);
    snprintf(cmd, sizeof cmd,
             "cd %s && '%s/grader' --no-gpu-probe --timeout-suite 1 --timeout-check 1 "
             "--timeout-run 1 --compute-sanitizer %s/sanitizer",
             dir, build_dir(), dir);
    snprintf(path, sizeof path, "%s/sanitizer", dir);
    write_fake_sanitizer(path);
    CU_ASSERT_EQUAL(run_sh(cmd), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(cmd_out, "timed out"));
    snprintf(path, sizeof path, "%s/build/grade/results.json", dir);
    char *json = read_all(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(json);
    const char *end = json_value(json, 0);
    CU_ASSERT_PTR_NOT_NULL(end);
    if (end) CU_ASSERT_EQUAL(*json_ws(end), '\0');
    /* 01: 10 correctness + 2 of 4 + 0 of 1; 04: its standard run (3), no performance points
       since its check fails; 05: its check and run (6) but not a suite that skipped every
       test; the others: nothing */
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"score\": 21.00,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"name\": \"05_skip: gpu suite\", \"score\": 0.00, "));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"name\": \"01_good: gpu suite\", \"score\": 4.00, "
                                        "\"max_score\": 4.00, \"status\": \"passed\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"name\": \"01_good: performance v sum f32\", "
                                        "\"score\": 2.00"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"name\": \"02_hang: gpu suite\", \"score\": 0.00, "
                                        "\"max_score\": 4.00, \"status\": \"failed\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "timed out after 1 s"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "killed by signal 11"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "about to fault"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "caf\xc3\xa9 \\\"quoted\\\" \\\\ back"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "bad byte \\ufffd"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "wrote past the end of its output"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "check FAILED at index 32"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "the stage is not correct"));
    free(json);
    /* no hanging stand-in outlived its time limit, children included */
    snprintf(path, sizeof path, "%s/hang.pids", dir);
    FILE *f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL(f);
    int pid, hung = 0;
    while (f && fscanf(f, "%d", &pid) == 1) {
        hung++;
        CU_ASSERT(!process_running(pid));
    }
    if (f) fclose(f);
    CU_ASSERT_EQUAL(hung, 3); /* the suite, the first check, the standard run */
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    run_sh(cmd);
}

/* Three stand-in stages whose checks all pass: one clean, one with a race that only
   racecheck sees, one with an uninitialised read that only initcheck sees. */
static void make_sanitizer_tree(const char *dir)
{
    char path[1024], cmd[2048];
    snprintf(cmd, sizeof cmd, "cd %s && mkdir -p 01_clean 02_race 03_uninit build tools", dir);
    CU_ASSERT_FATAL(run_sh(cmd) == 0);
    snprintf(path, sizeof path, "%s/build/test_gpu", dir);
    write_text(path, "#!/bin/sh\necho 'gpu: 3 passed, 0 failed, 0 skipped in 0.1 s'\n", 1);
    const char *program =
        "#!/bin/sh\n"
        "stage=$(basename \"$0\")\n"
        "case \"$*\" in *--list*) echo \"$stage: x\"\n"
        "  echo '  v                        sum        f32->f32  idea'\n"
        "  echo '  r                        rowsum     f32->f32  idea'; exit 0 ;; esac\n"
        "if [ \"$1\" = --csv ]; then\n"
        "  { echo '# gpu: test'; echo '# sm_count: 100 l2_bytes: 1 compute_capability: 9.0'\n"
        "    echo 'gpu,stage,variant,op,dtype,rows,cols,bytes,median_us,min_us,gbps,"
        "ceiling_gbps,pct_of_ceiling,max_err,check'\n"
        "    echo \"t,$stage,v,sum,f32,1,1,4,1,1,95,100,95.00,0,ok\"; } >> \"$2\"\n"
        "fi\n"
        "exit 0\n";
    const char *stages[] = {"01_clean", "02_race", "03_uninit"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/build/%s", dir, stages[i]);
        write_text(path, program, 1);
    }
    snprintf(path, sizeof path, "%s/tools/thresholds.txt", dir);
    write_text(path,
               "correctness 01_clean 4 3 3 3\ncorrectness 02_race 4 3 3 3\n"
               "correctness 03_uninit 4 3 3 3\n"
               "performance 01_clean v sum f32 90 2\nperformance 02_race v sum f32 90 2\n", 0);
    snprintf(path, sizeof path, "%s/sanitizer", dir);
    write_fake_sanitizer(path);
}

static void test_the_sanitizer_test_fails_a_stage_on_a_race_the_checks_miss(void)
{
    char dir[] = "/tmp/reduce-grade-san-XXXXXX", path[1024], cmd[4096];
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    make_sanitizer_tree(dir);
    snprintf(cmd, sizeof cmd, "cd %s && '%s/grader' --no-gpu-probe --compute-sanitizer "
             "%s/sanitizer", dir, build_dir(), dir);
    CU_ASSERT_EQUAL(run_sh(cmd), 0);
    snprintf(path, sizeof path, "%s/build/grade/results.json", dir);
    char *json = read_all(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(json);
    const char *end = json_value(json, 0);
    CU_ASSERT_PTR_NOT_NULL(end);
    /* 01: 13 + 2; 02 and 03: the gpu suite, the check and the run (10 each), no
       performance points */
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"score\": 35.00,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"name\": \"01_clean: sanitizers\", \"score\": 3.00, "
                                        "\"max_score\": 3.00, \"status\": \"passed\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"name\": \"02_race: sanitizers\", \"score\": 0.00, "
                                        "\"max_score\": 3.00, \"status\": \"failed\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"name\": \"02_race: performance v sum f32\", "
                                        "\"score\": 0.00"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "racecheck found 1 hazard"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "Race reported between Write access"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "initcheck found 1 error"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "by thread (33,0,0)"));
    CU_ASSERT_PTR_NULL(strstr(json, "Host Frame"));
    free(json);
    /* the sizes come from the standard run's SM count (100); every tool runs with
       --error-exitcode 1; memcheck also runs the gpu suite's quick mode on the stage; a
       finding stops the test */
    snprintf(path, sizeof path, "%s/sanitizer.calls", dir);
    char *calls = read_all(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(calls);
    CU_ASSERT_PTR_NOT_NULL(strstr(calls, "memcheck - build/01_clean --check-only --op sum "
                                         "-n 1,33,1025,65537,6553607\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(calls, "racecheck - build/01_clean --check-only --op rowsum "
                                         "--rows 3203 --cols 1,33,2051\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(calls, "memcheck 1 build/test_gpu\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(calls, "synccheck - build/01_clean"));
    CU_ASSERT_PTR_NOT_NULL(strstr(calls, "initcheck - build/01_clean"));
    CU_ASSERT_PTR_NOT_NULL(strstr(calls, "racecheck - build/02_race --check-only --op sum"));
    CU_ASSERT_PTR_NULL(strstr(calls, "racecheck - build/02_race --check-only --op rowsum"));
    CU_ASSERT_PTR_NULL(strstr(calls, "synccheck - build/02_race"));
    free(calls);
    snprintf(path, sizeof path, "%s/build/grade/logs/02_race_racecheck_1.log", dir);
    CU_ASSERT_EQUAL(access(path, R_OK), 0); /* the tool's whole output is kept */

    /* --sanitizers picks the tools; none drops the test (and its points) */
    snprintf(cmd, sizeof cmd, "cd %s && rm -f sanitizer.calls && '%s/grader' --no-gpu-probe "
             "--stages 01_clean --sanitizers racecheck --compute-sanitizer %s/sanitizer && "
             "cat sanitizer.calls", dir, build_dir(), dir);
    CU_ASSERT_EQUAL(run_sh(cmd), 0);
    CU_ASSERT_PTR_NULL(strstr(cmd_out, "memcheck -"));
    CU_ASSERT_PTR_NOT_NULL(strstr(cmd_out, "racecheck - build/01_clean"));
    snprintf(cmd, sizeof cmd, "cd %s && '%s/grader' --no-gpu-probe --stages 02_race "
             "--sanitizers none --compute-sanitizer /nonexistent", dir, build_dir());
    CU_ASSERT_EQUAL(run_sh(cmd), 0);
    snprintf(path, sizeof path, "%s/build/grade/results.json", dir);
    json = read_all(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(json);
    CU_ASSERT_PTR_NULL(strstr(json, "sanitizers"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"score\": 12.00,")); /* 10 + the performance 2 */
    free(json);
    /* a bad tool name is a usage error; a missing compute-sanitizer says so (exit 3) */
    snprintf(cmd, sizeof cmd, "cd %s && '%s/grader' --no-gpu-probe --sanitizers memcheck,asan",
             dir, build_dir());
    CU_ASSERT_EQUAL(run_sh(cmd), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(cmd_out, "--sanitizers"));
    snprintf(cmd, sizeof cmd, "cd %s && '%s/grader' --no-gpu-probe --compute-sanitizer "
             "/nonexistent/compute-sanitizer", dir, build_dir());
    CU_ASSERT_EQUAL(run_sh(cmd), 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(cmd_out, "/nonexistent/compute-sanitizer"));
    snprintf(cmd, sizeof cmd, "cd %s && PATH=/nonexistent '%s/grader' --no-gpu-probe --probe",
             dir, build_dir());
    if (access("/usr/local/cuda/bin/compute-sanitizer", X_OK) != 0) {
        CU_ASSERT_EQUAL(run_sh(cmd), 3);
        CU_ASSERT_PTR_NOT_NULL(strstr(cmd_out, "--sanitizers none"));
        CU_ASSERT_EQUAL(strchr(cmd_out, '\n'), cmd_out + strlen(cmd_out) - 1); /* one line */
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    run_sh(cmd);
}

/* A stage that spans several GPUs: its program check runs the all-reduce sizes of make check,
   and the sanitizers run each hand-written all-reduce variant at small n, never nccl. */
static void test_the_grader_checks_an_all_reduce_and_never_sanitizes_nccl(void)
{
    char dir[] = "/tmp/reduce-grade-ar-XXXXXX", path[1024], cmd[4096];
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof cmd, "cd %s && mkdir -p 08_ar build tools", dir);
    CU_ASSERT_FATAL(run_sh(cmd) == 0);
    snprintf(path, sizeof path, "%s/build/test_gpu", dir);
    write_text(path, "#!/bin/sh\necho 'gpu: 3 passed, 0 failed, 0 skipped in 0.1 s'\n", 1);
    snprintf(path, sizeof path, "%s/build/08_ar", dir);
    write_text(path,
               "#!/bin/sh\n"
               "case \"$*\" in *--list*) echo '08_ar: x'\n"
               "  echo '  sharded_sum              sum        f32->f32  idea'\n"
               "  echo '  ring                     allreduce  f32->f32  idea'\n"
               "  echo '  nccl                     allreduce  f32->f32  idea'; exit 0 ;; esac\n"
               "if [ \"$1\" = --csv ]; then\n"
               "  { echo 'gpu,stage,variant,op,dtype,rows,cols,bytes,median_us,min_us,gbps,"
               "ceiling_gbps,pct_of_ceiling,max_err,check'\n"
               "    echo 't,08_ar,ring,allreduce,f32,2,64,4,1,1,80,100,80.00,0,ok'; } >> \"$2\"\n"
               "fi\n"
               "exit 0\n",
               1);
    snprintf(path, sizeof path, "%s/tools/thresholds.txt", dir);
    write_text(path, "correctness 08_ar 4 3 3 3\nperformance 08_ar ring allreduce f32 50 2\n", 0);
    snprintf(path, sizeof path, "%s/sanitizer", dir);
    write_fake_sanitizer(path);
    snprintf(cmd, sizeof cmd,
             "cd %s && '%s/grader' --no-gpu-probe --compute-sanitizer %s/sanitizer", dir,
             build_dir(), dir);
    CU_ASSERT_EQUAL(run_sh(cmd), 0);
    snprintf(path, sizeof path, "%s/build/grade/results.json", dir);
    char *json = read_all(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(json);
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "--check-only --op allreduce -n 1,2,31,33,1023,1025"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "--check-only --op allreduce --ranks 3 -n 1,2,31,33"));
    /* the standard size on 3 ranks too: on one GPU the timed run is a copy */
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "--check-only --op allreduce --ranks 3\\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"score\": 15.00,")); /* 13 + the ring's 2 */
    free(json);
    snprintf(path, sizeof path, "%s/sanitizer.calls", dir);
    char *calls = read_all(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(calls);
    /* on 3 ranks, which share the GPUs of a grader with fewer: the ring's steps on one GPU */
    CU_ASSERT_PTR_NOT_NULL(strstr(calls, "memcheck - build/08_ar --check-only --op allreduce "
                                         "--variant ring --ranks 3 -n 1,33,1025,65537\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(calls, "racecheck - build/08_ar --check-only --op allreduce "
                                         "--variant ring --ranks 3 -n 1,33,1025\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(calls, "--op sum -n 1,33,1025,65537,"));
    CU_ASSERT_PTR_NULL(strstr(calls, "nccl"));
    free(calls);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    run_sh(cmd);
}

/* The mutant suite lives in the full repository only (make assignment leaves it out). */
static int have_mutants(void)
{
    if (access("tests/mutants/run.sh", R_OK) == 0) return 1;
    printf("(no tests/mutants here: an assignment) ");
    return 0;
}

static void test_every_mutant_has_its_header_and_applies_to_the_solution(void)
{
    if (!have_mutants()) return;
    if (run_sh("command -v patch || command -v git") != 0) {
        printf("(neither patch(1) nor git here) ");
        return;
    }
    CU_ASSERT_EQUAL(run_sh("sh tests/mutants/run.sh --check --no-compile"), 0);
    const char *line = strstr(cmd_out, "run.sh --check: ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(line);
    unsigned good = 0, all = 0, stages = 0;
    CU_ASSERT_EQUAL(sscanf(line, "run.sh --check: %u of %u mutants good, across %u stages", &good,
                           &all, &stages), 3);
    CU_ASSERT(good == all && all >= 10); /* ten mistakes at least, across five stages */
    CU_ASSERT(stages >= 5);
    if (strstr(cmd_out, "FAIL ")) fprintf(stderr, "\n%s", cmd_out);
    /* a patch that no longer applies is refused */
    char path[256], cmd[512];
    snprintf(path, sizeof path, "tests/mutants/01_naive/zz-host-test-%ld.patch", (long)getpid());
    write_text(path, "Mistake: m\nWhy: w\n\n--- a/01_naive/naive.cu\n+++ b/01_naive/naive.cu\n"
                     "@@ -1,1 +1,1 @@\n-no such line\n+x\n", 0);
    snprintf(cmd, sizeof cmd, "sh tests/mutants/run.sh --check --no-compile "
             "01_naive/zz-host-test-%ld", (long)getpid());
    CU_ASSERT_EQUAL(run_sh(cmd), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(cmd_out, "does not apply to the solution"));
    remove(path);
}

static void test_the_mutant_table_names_what_caught_each_and_what_was_missed(void)
{
    if (!have_mutants()) return;
    char dir[] = "/tmp/reduce-mutants-XXXXXX", cmd[4096], path[1024];
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    make_sanitizer_tree(dir);
    snprintf(cmd, sizeof cmd, "cd %s && '%s/grader' --no-gpu-probe --compute-sanitizer "
             "%s/sanitizer", dir, build_dir(), dir);
    CU_ASSERT_EQUAL_FATAL(run_sh(cmd), 0);
    /* the grader's own results.json, as graded/GROUP/NAME/results.json of a run */
    snprintf(cmd, sizeof cmd,
             "cd %s && for n in race uninit clean solutions; do mkdir -p rep/graded/g/$n && "
             "cp build/grade/results.json rep/graded/g/$n/; done", dir);
    CU_ASSERT_EQUAL_FATAL(run_sh(cmd), 0);
    snprintf(path, sizeof path, "%s/rep/list", dir);
    write_text(path,
               "race 02_race sanitizers g\n"      /* caught where expected */
               "uninit 03_uninit suite g\n"       /* caught, but not by the test expected */
               "clean 01_clean - g\n"             /* nothing failed */
               "lost 01_clean - h\n"              /* never graded */
               "solutions 01_clean - g\n"         /* full marks */
               "solutions 02_race - g\n", 0);     /* a solution stage that lost points */
    snprintf(cmd, sizeof cmd, "sh tests/mutants/run.sh --report %s/rep", dir);
    CU_ASSERT_EQUAL(run_sh(cmd), 1);
    const char *want[] = {"race ", "sanitizers (racecheck)", "10.00/15.00", "caught\n",
                          "MISSED (expected suite)", "sanitizers (initcheck)", "MISSED\n",
                          "NOT GRADED\n", "full marks\n", "NOT FULL MARKS\n", "caught by"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        if (!strstr(cmd_out, want[i])) fprintf(stderr, "\n  no '%s' in:\n%s", want[i], cmd_out);
        CU_ASSERT_PTR_NOT_NULL(strstr(cmd_out, want[i]));
    }
    /* every mutant caught and the solutions at full marks: exit 0 */
    write_text(path, "race 02_race sanitizers g\nsolutions 01_clean - g\n", 0);
    CU_ASSERT_EQUAL(run_sh(cmd), 0);
    snprintf(path, sizeof path, "%s/rep/table.txt", dir);
    CU_ASSERT_EQUAL(access(path, R_OK), 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    run_sh(cmd);
}

static void test_the_grader_refuses_usage_errors_and_a_missing_gpu(void)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s/grader' --bogus", build_dir());
    CU_ASSERT_EQUAL(run_sh(cmd), 2);
    snprintf(cmd, sizeof cmd, "'%s/grader' --no-gpu-probe --stages 99_none "
             "--out /tmp/reduce-grade-usage.%ld", build_dir(), (long)getpid());
    CU_ASSERT_EQUAL(run_sh(cmd), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(cmd_out, "99_none"));
    if (run_sh("nvidia-smi -L") != 0) {
        snprintf(cmd, sizeof cmd, "'%s/grader' --out /tmp/reduce-grade-usage.%ld", build_dir(),
                 (long)getpid());
        CU_ASSERT_EQUAL(run_sh(cmd), 3);
        CU_ASSERT_PTR_NOT_NULL(strstr(cmd_out, "no NVIDIA GPU"));
        CU_ASSERT_EQUAL(strchr(cmd_out, '\n'), cmd_out + strlen(cmd_out) - 1); /* one line */
    }
    snprintf(cmd, sizeof cmd, "rm -rf /tmp/reduce-grade-usage.%ld", (long)getpid());
    run_sh(cmd);
}

CU_TestInfo assign_tests[] = {
    {"the cutter stubs every region and keeps every other byte",
     test_the_cutter_stubs_every_region_and_keeps_every_other_byte},
    {"a Markdown region becomes the Markdown stub after its hint",
     test_a_markdown_region_becomes_the_markdown_stub_after_its_hint},
    {"nested and unbalanced markers are rejected with their line",
     test_nested_and_unbalanced_markers_are_rejected_with_their_line},
    {"every stage is cut with no marker left", test_every_stage_is_cut_with_no_marker_left},
    {"make assignment stubs the chosen stages and leaves out the answers",
     test_make_assignment_stubs_the_chosen_stages_and_leaves_out_the_answers},
    {"make assignment refuses a bad marker and writes nothing",
     test_make_assignment_refuses_a_bad_marker_and_writes_nothing},
    {"the batch script takes only stage sources from a submission",
     test_the_batch_script_takes_only_stage_sources_from_a_submission},
    {"JSON strings escape quotes, backslashes and control characters",
     test_json_strings_escape_quotes_backslashes_and_control_characters},
    {"JSON strings keep UTF-8 and replace invalid bytes",
     test_json_strings_keep_utf8_and_replace_invalid_bytes},
    {"the thresholds file parses and covers every stage",
     test_the_thresholds_file_parses_and_covers_every_stage},
    {"every performance rule names a variant its stage lists",
     test_every_performance_rule_names_a_variant_its_stage_lists},
    {"a bad thresholds line is reported with its number",
     test_a_bad_thresholds_line_is_reported_with_its_number},
    {"performance scores: full, proportional and zero",
     test_performance_scores_full_proportional_and_zero},
    {"the grader reads its CSV with the results reader",
     test_the_grader_reads_its_csv_with_the_results_reader},
    {"an output excerpt keeps the failures and the tail",
     test_an_output_excerpt_keeps_the_failures_and_the_tail},
    {"the grader survives a hang, a crash and a wrong result",
     test_the_grader_survives_a_hang_a_crash_and_a_wrong_result},
    {"the grader refuses usage errors and a missing GPU",
     test_the_grader_refuses_usage_errors_and_a_missing_gpu},
    {"a correctness rule may give the sanitizer test points",
     test_a_correctness_rule_may_give_the_sanitizer_test_points},
    {"the sanitizer summary and first report are read",
     test_the_sanitizer_summary_and_first_report_are_read},
    {"the sanitizer sizes make every loop run twice on any GPU",
     test_the_sanitizer_sizes_make_every_loop_run_twice_on_any_gpu},
    {"the grader checks an all-reduce and never sanitizes nccl",
     test_the_grader_checks_an_all_reduce_and_never_sanitizes_nccl},
    {"the sanitizer test fails a stage on a race the checks miss",
     test_the_sanitizer_test_fails_a_stage_on_a_race_the_checks_miss},
    {"every mutant has its header and applies to the solution",
     test_every_mutant_has_its_header_and_applies_to_the_solution},
    {"the mutant table names what caught each and what was missed",
     test_the_mutant_table_names_what_caught_each_and_what_was_missed},
    CU_TEST_INFO_NULL,
};
