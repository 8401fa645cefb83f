/* SPDX-License-Identifier: MIT */
/* grader: grades the working tree (the full repository or a cut assignment) on this GPU
 * (INSTRUCTORS.md tells how and what each test does).
 *
 *   build/grader [--stages a,b] [--thresholds tools/thresholds.txt] [--build build]
 *                [--out build/grade] [--build-log FILE] [--timeout-suite S] [--timeout-check S]
 *                [--timeout-run S] [--sanitizers memcheck,racecheck,synccheck,initcheck|none]
 *                [--compute-sanitizer PATH] [--probe] [--no-gpu-probe]
 *
 * Per stage: the gpu suite, the program check, the standard run and the sanitizer test (all or
 * nothing), then the performance rules (nothing while the stage is not correct); a table and
 * OUT/results.json (Gradescope's format), every child's output in OUT/logs/.
 * Exit codes: 0 graded, whatever the score; 1 results.json cannot be written; 2 usage; 3 no
 * GPU, or no compute-sanitizer while the sanitizer test is on. -DCOURSE_LIB: no main (tests).
 */
#include "grade.h"
#include "cli.h"
#include "results.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the thresholds file ------------------------------------------------ */

/* the ops of the results schema, in the order of op_kind */
static const char *const known_ops[] = {"sum",        "rowsum",    "softmax",
                                        "logsoftmax", "allreduce", NULL};
static const char *const known_dtypes[] = {"f32", "f16", "bf16", NULL};

static int list_index(const char *s, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (strcmp(s, list[i]) == 0) return i;
    return -1;
}

/* "NN_name": two digits, an underscore, then letters, digits and underscores. */
static int is_stage_name(const char *s)
{
    if (!isdigit((unsigned char)s[0]) || !isdigit((unsigned char)s[1]) || s[2] != '_' || !s[3] ||
        strlen(s) >= GRADE_NAME_MAX)
        return 0;
    for (s += 3; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_') return 0;
    return 1;
}

/* A finite number in [lo, hi] from the whole of text: 0, or -1. */
static int parse_number(const char *text, double lo, double hi, double *out)
{
    char *end;
    double x = strtod(text, &end);
    if (end == text || *end || !isfinite(x) || x < lo || x > hi) return -1;
    *out = x;
    return 0;
}

#define BAD(...)                                          \
    do {                                                  \
        snprintf(err, err_len, "%s:%d: ", name, line_no); \
        size_t k_ = strlen(err);                          \
        snprintf(err + k_, err_len - k_, __VA_ARGS__);    \
        goto fail;                                        \
    } while (0)

int thresholds_parse(const char *text, const char *name, thresholds_t *t, char *err, size_t err_len)
{
    memset(t, 0, sizeof *t);
    int line_no = 0;
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        char line[1024], *f[8];
        int nf = 0;
        line_no++;
        if (n >= sizeof line) BAD("line longer than %zu characters", sizeof line - 1);
        snprintf(line, sizeof line, "%.*s", (int)n, p);
        p += n + (p[n] == '\n');
        line[strcspn(line, "#")] = '\0';
        for (char *tok = strtok(line, " \t\r"); tok && nf < 8; tok = strtok(NULL, " \t\r"))
            f[nf++] = tok;
        if (nf == 0) continue;
        int perf = strcmp(f[0], "performance") == 0;
        if (!perf && strcmp(f[0], "correctness") != 0)
            BAD("unknown rule '%s' (correctness or performance)", f[0]);
        if (perf && nf != 7)
            BAD("performance takes 6 fields (STAGE VARIANT OP DTYPE PCT POINTS), not %d", nf - 1);
        if (!perf && nf != 5 && nf != 6)
            BAD("correctness takes 4 fields (STAGE SUITE CHECK RUN) or 5 (and SANITIZERS), not %d",
                nf - 1);
        if (!is_stage_name(f[1])) BAD("'%s' is not a stage name (NN_name)", f[1]);
        if (!perf) {
            correct_rule r = {.line = line_no};
            double *pts[4] = {&r.suite_points, &r.check_points, &r.run_points, &r.sanitizer_points};
            for (int i = 2; i < nf; i++)
                if (parse_number(f[i], 0, 1e6, pts[i - 2]))
                    BAD("points '%s' are not a number >= 0", f[i]);
            const correct_rule *o = thresholds_correctness(t, f[1]);
            if (o) BAD("a second correctness rule for %s (the first is at line %d)", f[1], o->line);
            strcpy(r.stage, f[1]);
            t->correct = res_xrealloc(t->correct, (t->n_correct + 1) * sizeof *t->correct);
            t->correct[t->n_correct++] = r;
            continue;
        }
        perf_rule r = {.line = line_no};
        if (strlen(f[2]) >= sizeof r.variant) BAD("variant name too long");
        if (list_index(f[3], known_ops) < 0)
            BAD("op '%s' is not sum, rowsum, softmax, logsoftmax or allreduce", f[3]);
        if (list_index(f[4], known_dtypes) < 0) BAD("dtype '%s' is not f32, f16 or bf16", f[4]);
        if (parse_number(f[5], 1e-9, 100, &r.pct))
            BAD("percent of ceiling '%s' is not a number in (0, 100]", f[5]);
        if (parse_number(f[6], 0, 1e6, &r.points)) BAD("points '%s' are not a number >= 0", f[6]);
        strcpy(r.stage, f[1]);
        strcpy(r.variant, f[2]);
        strcpy(r.op, f[3]);
        strcpy(r.dtype, f[4]);
        for (size_t i = 0; i < t->n_perf; i++) {
            const perf_rule *o = &t->perf[i];
            if (!strcmp(o->stage, r.stage) && !strcmp(o->variant, r.variant) &&
                !strcmp(o->op, r.op) && !strcmp(o->dtype, r.dtype))
                BAD("a second rule for %s %s %s %s (the first is at line %d)", r.stage, r.variant,
                    r.op, r.dtype, o->line);
        }
        t->perf = res_xrealloc(t->perf, (t->n_perf + 1) * sizeof *t->perf);
        t->perf[t->n_perf++] = r;
    }
    return 0;
fail:
    thresholds_free(t);
    return -1;
}

void thresholds_free(thresholds_t *t)
{
    free(t->correct);
    free(t->perf);
    memset(t, 0, sizeof *t);
}

const correct_rule *thresholds_correctness(const thresholds_t *t, const char *stage)
{
    for (size_t i = 0; i < t->n_correct; i++)
        if (strcmp(t->correct[i].stage, stage) == 0) return &t->correct[i];
    return NULL;
}

/* ---- scores and the results CSV ------------------------------------------------ */

double round_points(double x) { return floor(x * 100.0 + 0.5) / 100.0; }

double perf_score(double points, double pct, double threshold_pct, int stage_correct)
{
    if (!stage_correct || !(pct >= 0) || !isfinite(pct) || !(threshold_pct > 0)) return 0;
    return round_points(pct >= threshold_pct ? points : points * pct / threshold_pct);
}

int csv_find(const char *text, const char *stage, const char *variant, const char *op,
             const char *dtype, csv_hit *hit)
{
    res_file f;
    char err[256];
    int found = 0;
    *hit = (csv_hit){0};
    if (res_read_text(text, "csv", &f, err, sizeof err) != 0) return -1;
    for (size_t i = 0; i < f.n; i++) {
        const res_entry *e = &f.e[i];
        if (strcmp(e->stage, stage)) continue;
        hit->rows += e->n_ok + e->n_fail;
        hit->failed += e->n_fail;
        if (!found && variant && !strcmp(e->variant, variant) && !strcmp(op_name(e->op), op) &&
            !strcmp(dtype_name(e->dt), dtype)) {
            found = 1;
            hit->pct_of_ceiling = e->pct;
            hit->gbps = e->gbps;
            hit->ceiling_gbps = e->ceiling;
            hit->check_ok = e->n_fail == 0;
        }
    }
    free(f.e);
    return found;
}

int csv_sm_count(const char *text)
{
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
        int sms = 0;
        if (sscanf(p, "# sm_count: %d", &sms) == 1 && sms > 0) return sms;
    }
    return 0;
}

/* ---- JSON strings and output excerpts -------------------------------------- */

/* Length of the valid UTF-8 sequence at s[0..n), or 0 when it is not one (overlong forms,
   surrogates and code points above U+10FFFF are not). */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xBF;
    size_t k = c >= 0xC2 && c <= 0xDF   ? 2
               : c >= 0xE0 && c <= 0xEF ? 3
               : c >= 0xF0 && c <= 0xF4 ? 4
                                        : 0;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
    if (k == 0 || n < k || s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < k; i++)
        if (s[i] < 0x80 || s[i] > 0xBF) return 0;
    return k;
}

char *json_string(const char *s, size_t len)
{
    if (len > ((size_t)-1 - 3) / 6) return NULL; /* 6 output bytes an input byte at most */
    char *out = malloc(6 * len + 3), *o = out;
    const unsigned char *u = (const unsigned char *)s;
    if (!out) return NULL;
    *o++ = '"';
    for (size_t i = 0, k; i < len; i += k) {
        unsigned char c = u[i];
        static const char from[] = "\"\\\n\r\t", to[] = "\"\\nrt";
        const char *esc = c ? strchr(from, c) : NULL;
        k = 1;
        if (esc)
            o += sprintf(o, "\\%c", to[esc - from]);
        else if (c < 0x20 || c == 0x7F)
            o += sprintf(o, "\\u%04x", c);
        else if (c < 0x80)
            *o++ = (char)c;
        else if ((k = utf8_seq(u + i, len - i)) > 0)
            o = (char *)memcpy(o, u + i, k) + k;
        else {
            o += sprintf(o, "\\ufffd");
            k = 1;
        }
    }
    *o++ = '"';
    *o = '\0';
    return out;
}

static int names_failure(const char *line, size_t n)
{
    static const char *const keys[] = {"FAIL",         "error",     "Error",        "timed out",
                                       "past the end", "Assertion", "had failures", "fatal",
                                       "mismatch",     NULL};
    char buf[512];
    snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf ? n : sizeof buf - 1), line);
    for (int i = 0; keys[i]; i++)
        if (strstr(buf, keys[i])) return 1;
    return 0;
}

char *output_excerpt(const char *text, size_t len, size_t tail_lines, size_t max_bytes)
{
    size_t lines = len && text[len - 1] != '\n';
    for (size_t i = 0; i < len; i++) lines += text[i] == '\n';
    char *out = malloc(len + 256 + 1), *o = out;
    if (!out) return NULL;
    size_t i = 0, shown = 0, line_no = 0, tail_from = lines - tail_lines;
    if (lines > 2 * tail_lines) { /* the lines naming a failure, then the tail */
        for (; i < len && line_no < tail_from; line_no++) {
            const char *nl = memchr(text + i, '\n', len - i);
            size_t n = nl ? (size_t)(nl - (text + i)) + 1 : len - i;
            if (shown < 20 && names_failure(text + i, n)) {
                o = (char *)memcpy(o, text + i, n) + n;
                shown++;
            }
            i += n;
        }
        o += sprintf(o, "[... %zu lines in all; the last %zu follow ...]\n", lines, tail_lines);
    }
    o = (char *)memcpy(o, text + i, len - i) + (len - i);
    *o = '\0';
    size_t n = (size_t)(o - out);
    if (n > max_bytes && max_bytes > 64) { /* keep the end, where the verdict is */
        const char *from = out + n - (max_bytes - 40), *nl = strchr(from, '\n');
        if (nl && nl + 1 < o) from = nl + 1;
        static const char head[] = "[... output cut ...]\n";
        memmove(out + sizeof head - 1, from, (size_t)(o - from) + 1);
        memcpy(out, head, sizeof head - 1);
    }
    return out;
}

/* ---- the sanitizer's output ------------------------------------------------------ */

/* The number after key in line[0..n), or -1 when key is not in it. */
static long summary_count(const char *line, size_t n, const char *key)
{
    char buf[512], *end;
    snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf ? n : sizeof buf - 1), line);
    const char *k = strstr(buf, key);
    if (!k) return -1;
    long v = strtol(k + strlen(key), &end, 10);
    return end == k + strlen(key) || v < 0 ? -1 : v;
}

static long is_summary(const char *line, size_t n)
{
    long e = summary_count(line, n, "ERROR SUMMARY: "),
         h = summary_count(line, n, "RACECHECK SUMMARY: ");
    return e > h ? e : h; /* racecheck may print both for the same findings */
}

int sanitizer_findings(const char *text)
{
    long found = -1;
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        long c = is_summary(p, n);
        if (c > found) found = c;
        p += n + (p[n] == '\n');
    }
    return found > 1000000 ? 1000000 : (int)found;
}

#define SAN_LINE_MAX 160

/* Appends line[0..n), cut to SAN_LINE_MAX characters, and a newline to o. */
static char *add_cut_line(char *o, const char *line, size_t n)
{
    if (n > SAN_LINE_MAX) return o + sprintf(o, "%.*s...\n", SAN_LINE_MAX - 3, line);
    return o + sprintf(o, "%.*s\n", (int)n, line);
}

char *sanitizer_report(const char *text, size_t max_lines)
{
    char *out = malloc((max_lines + 2) * (SAN_LINE_MAX + 1) + 1), *o = out;
    if (!out) return NULL;
    enum { BEFORE, IN, AFTER } state = BEFORE;
    size_t taken = 0, summary_len = 0;
    const char *summary = NULL;
    for (const char *p = text; *p;) {
        const char *line = p;
        size_t n = strcspn(p, "\n");
        p += n + (p[n] == '\n');
        if (n && line[n - 1] == '\r') n--;
        if (n < 9 || strncmp(line, "=========", 9) != 0) {
            if (state == IN) state = AFTER; /* the program's own output ends a report */
            continue;
        }
        if (is_summary(line, n) >= 0) {
            if (!summary) summary = line, summary_len = n;
            if (state == IN) state = AFTER;
            continue;
        }
        const char *r = line + 9 + strspn(line + 9, " ");
        size_t left = n - (size_t)(r - line);
        int blank = left == 0, header = left >= 17 && !strncmp(r, "COMPUTE-SANITIZER", 17);
        int backtrace = left >= 20 && !strncmp(r, "Saved host backtrace", 20);
        if (state == BEFORE && !blank && !header && !backtrace)
            state = IN;
        else if (state == IN && (blank || backtrace || taken == max_lines))
            state = AFTER;
        if (state == IN && taken < max_lines) {
            o = add_cut_line(o, line, n);
            taken++;
        }
    }
    if (summary && taken) o = add_cut_line(o, summary, summary_len);
    *o = '\0';
    return out;
}

void sanitizer_sizes(int sms, char *n_sum, size_t n_len, char *rows, size_t rows_len)
{
    if (sms <= 0 || sms > 100000) sms = 132;
    snprintf(n_sum, n_len, "1,33,1025,65537,%zu", (size_t)65536 * (size_t)sms + 7);
    snprintf(rows, rows_len, "%zu", (size_t)32 * (size_t)sms + 3);
}

#ifndef COURSE_LIB

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The sizes of `make check` (Makefile), per op: where tails, partial warps and partial blocks
   show up. */
#define CHECK_SUM_N     "1,2,31,33,1023,1025,65537,1000003"
#define CHECK_ROW_COLS  "1,3,33,1025,65537"
#define CHECK_SOFT_COLS "1,3,33,1000,1025,20000,100000"
#define CHECK_SOFT_LONG "262144,262147"
/* The sanitizer test's columns (sanitizer_sizes gives the rows and n) and all-reduce sizes */
#define SAN_ROW_COLS    "1,33,2051"
#define SAN_SOFT_COLS   "1,33,1025"
#define SAN_AR_N "1,33,1025,65537"
#define SAN_RACE_AR_N   "1,33,1025" /* racecheck: about 11 times a plain run */
#define MAX_STAGES      64
#define MAX_CMDS        12
#define MAX_ARGS        24

static const char *const sanitizer_tools[] = {"memcheck", "racecheck", "synccheck", "initcheck"};
#define N_SANITIZER_TOOLS 4

typedef struct {
    const char *thresholds, *build, *out, *build_log;
    int t_suite, t_check, t_run, probe_only, no_probe;
    unsigned tools;        /* the sanitizer test's tools: bit i = sanitizer_tools[i] */
    const char *sanitizer; /* compute-sanitizer, as given or found */
    char stages[MAX_STAGES][GRADE_NAME_MAX];
    size_t n_stages;
} grade_opts;

typedef struct {
    char stage[GRADE_NAME_MAX], label[160], note[200];
    double score, max;
    int passed;
    char *output; /* malloc'd */
} test_rec;

typedef struct {
    test_rec *t;
    size_t n;
} tests_t;

/* A test being run: its output so far, its seconds, why it failed (first reason), whether a
   command timed out. */
typedef struct {
    sbuf s;
    double secs;
    char why[200];
    int timed_out;
} test_run;

/* One command: its words, NULL-terminated. */
typedef struct {
    const char *a[MAX_ARGS];
} cmd_t;

/* Appends the command made of the words after n (NULL-terminated) to c[*n]. */
static void add_cmd(cmd_t *c, int *n, ...)
{
    va_list ap;
    va_start(ap, n);
    int k = 0;
    for (const char *w; k < MAX_ARGS - 1 && (w = va_arg(ap, const char *));) c[*n].a[k++] = w;
    c[(*n)++].a[k] = NULL;
    va_end(ap);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void add_test(tests_t *ts, const char *stage, const char *label, int passed, double score,
                     double max, sbuf *out, const char *note)
{
    ts->t = res_xrealloc(ts->t, (ts->n + 1) * sizeof *ts->t);
    test_rec *t = &ts->t[ts->n++];
    snprintf(t->stage, sizeof t->stage, "%s", stage);
    snprintf(t->label, sizeof t->label, "%s", label);
    snprintf(t->note, sizeof t->note, "%s", note);
    t->max = round_points(max);
    t->score = round_points(score);
    t->passed = passed;
    t->output = out->s ? out->s : strdup("");
    printf("grade: %-16s %-44s %s\n", stage, label, note);
    fflush(stdout);
}

/* Records a correctness test (all of its points, or none); returns ok. */
static int finish_test(tests_t *ts, const char *stage, const char *label, int ok, double points,
                       test_run *T)
{
    char note[240];
    if (ok)
        snprintf(note, sizeof note, "passed (%.0f s)", T->secs);
    else
        snprintf(note, sizeof note, "FAILED: %s", T->why);
    add_test(ts, stage, label, ok, ok ? points : 0, points, &T->s, note);
    return ok;
}

static void fail_why(test_run *T, const char *why)
{
    if (!T->why[0]) snprintf(T->why, sizeof T->why, "%s", why);
}

/* ---- running a child under a time limit ------------------------------------ */

typedef struct {
    int status, timed_out;
    double seconds;
} child_result;

/* Runs argv (PATH searched) under timeout(1), stdin from /dev/null, stdout and stderr into
   log_path: at timeout_s its whole process group gets SIGTERM, SIGKILL 3 s later. */
static child_result run_child(const char *const *argv, const char *log_path, int timeout_s)
{
    child_result r = {-1, 0, 0};
    char secs[16];
    const char *full[MAX_ARGS + 16] = {"timeout", "-k", "3", secs};
    snprintf(secs, sizeof secs, "%d", timeout_s);
    for (int i = 0; argv[i] && i < MAX_ARGS + 10; i++) full[4 + i] = argv[i];
    fflush(stdout);
    fflush(stderr);
    double t0 = now_s();
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644),
            nul = open("/dev/null", O_RDONLY);
        if (fd >= 0) dup2(fd, 1), dup2(fd, 2), close(fd);
        if (nul >= 0) dup2(nul, 0), close(nul);
        execvp(full[0], (char *const *)full);
        fprintf(stderr, "grade: cannot run timeout(1): %s\n", strerror(errno));
        _exit(127);
    }
    while (pid > 0 && waitpid(pid, &r.status, 0) < 0 && errno == EINTR) {}
    int c = pid > 0 && WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1;
    r.timed_out = c == 124 || c == 137; /* timeout(1): TERM, or KILL after it */
    r.seconds = now_s() - t0;
    return r;
}

/* One line saying how a child ended; returns 1 when it exited 0. */
static int describe(const child_result *r, int timeout_s, char *msg, size_t n)
{
    static const char *const code[] = {"passed", "a check failed (exit 1)", "usage error (exit 2)",
                                       "CUDA error, crash or no GPU (exit 3)"};
    int c = r->status != -1 && WIFEXITED(r->status) ? WEXITSTATUS(r->status) : -1;
    if (r->status == -1)
        snprintf(msg, n, "could not be started (fork failed)");
    else if (r->timed_out)
        snprintf(msg, n, "timed out after %d s (killed)", timeout_s);
    else if (WIFSIGNALED(r->status))
        snprintf(msg, n, "crashed: killed by signal %d (%s)", WTERMSIG(r->status),
                 strsignal(WTERMSIG(r->status)));
    else if (c >= 0 && c <= 3)
        snprintf(msg, n, "%s", code[c]);
    else
        snprintf(msg, n, c == 127 ? "could not be run (exit %d)" : "failed (exit %d)", c);
    return c == 0 && !r->timed_out;
}

/* Appends the part of the log at path worth reading to s. */
static void add_log_excerpt(sbuf *s, const char *path)
{
    char *text = res_read_all(path), *ex = text ? output_excerpt(text, strlen(text), 25, 6000) : 0;
    if (ex) sb_printf(s, "%s%s", ex, ex[0] && ex[strlen(ex) - 1] != '\n' ? "\n" : "");
    free(ex);
    free(text);
}

/* Appends "$ command" to the test's output, runs it and counts its time. */
static child_result run_cmd(test_run *T, const char *const *argv, const char *log, int timeout_s)
{
    sb_add(&T->s, "$");
    for (int i = 0; argv[i]; i++) sb_printf(&T->s, " %s", argv[i]);
    sb_add(&T->s, "\n");
    child_result r = run_child(argv, log, timeout_s);
    T->timed_out |= r.timed_out;
    T->secs += r.seconds;
    return r;
}

/* Runs one command of a test: appends it, how it ended and, unless it passed, the end of its
   output. Returns 1 when it exited 0. */
static int run_step(test_run *T, const char *const *argv, const char *log, int timeout_s)
{
    char msg[128];
    child_result r = run_cmd(T, argv, log, timeout_s);
    int ok = describe(&r, timeout_s, msg, sizeof msg);
    sb_printf(&T->s, "%s (%.1f s)\n", msg, r.seconds);
    if (!ok) add_log_excerpt(&T->s, log);
    if (!ok) fail_why(T, msg);
    return ok;
}

/* Says that what is missing was not built, with the end of the build log. */
static void not_built(test_run *T, const grade_opts *o, const char *what)
{
    sb_printf(&T->s, "%s was not built: it did not compile or link%s", what,
              o->build_log ? "; the end of the build log follows\n"
                           : " (run make and read its errors)\n");
    if (o->build_log) add_log_excerpt(&T->s, o->build_log);
    fail_why(T, "not built");
}

/* 0 when the gpu suite's last summary line ("gpu: P passed, F failed, S skipped") says that no
   test passed or that some were skipped (no device); else 1, also without such a line. */
static int suite_ran_tests(const char *log)
{
    char *text = res_read_all(log);
    unsigned passed = 1, skipped = 0, a, c;
    for (char *p = text; p && (p = strstr(p, "gpu: ")); p++)
        if ((p == text || p[-1] == '\n') &&
            sscanf(p, "gpu: %u passed, %*u failed, %u skipped", &a, &c) == 2) {
            passed = a;
            skipped = c;
        }
    free(text);
    return passed > 0 && skipped == 0;
}

/* The ops the stage program lists (its --list, second column) as bits 1 << op_kind, and the
   names of its all-reduce variants but nccl (NCCL never runs under a sanitizer: its kernels
   wait for the other GPUs'). 0 when it cannot be listed. */
static unsigned stage_ops(const grade_opts *o, const char *bin, const char *stage,
                          char ar[][GRADE_NAME_MAX], int *n_ar)
{
    char log[600], msg[64], name[GRADE_NAME_MAX], op[32];
    snprintf(log, sizeof log, "%s/logs/%s_list.log", o->out, stage);
    const char *argv[] = {bin, "--list", NULL};
    child_result r = run_child(argv, log, 60);
    char *text = describe(&r, 60, msg, sizeof msg) ? res_read_all(log) : NULL;
    unsigned mask = 0;
    *n_ar = 0;
    for (char *line = text ? strtok(text, "\n") : NULL; line; line = strtok(NULL, "\n")) {
        int k;
        if (strncmp(line, "  ", 2) || sscanf(line, "%63s %31s", name, op) != 2 ||
            (k = list_index(op, known_ops)) < 0)
            continue;
        mask |= 1u << k;
        if (k == OP_ALLREDUCE && strcmp(name, "nccl") && *n_ar < 8) strcpy(ar[(*n_ar)++], name);
    }
    free(text);
    return mask;
}

#define HAS(op) (ops & (1u << (op)))

/* ---- the sanitizer test ---------------------------------------------------- */

/* Runs one command under compute-sanitizer (after the variables of a leading `env`): appends
   the command and how it ended and, on a finding, the tool's first report (else, on a failure,
   the end of the output). Returns 1 when the tool found nothing and the program passed. */
static int run_sanitizer_step(test_run *T, const grade_opts *o, const char *tool, const cmd_t *cmd,
                              const char *log)
{
    const char *full[MAX_ARGS + 10],
        *opts[] = {o->sanitizer,       "--tool", tool, "--error-exitcode", "1",
                   "--print-limit",    "10", /* thousands cost minutes */
                   "--show-backtrace", "device"};
    int k = 0, i = 0;
    if (!strcmp(cmd->a[0], "env"))
        for (full[k++] = cmd->a[i++]; cmd->a[i] && strchr(cmd->a[i], '=');) full[k++] = cmd->a[i++];
    for (int j = 0; j < 9; j++) full[k++] = opts[j];
    while (cmd->a[i]) full[k++] = cmd->a[i++];
    full[k] = NULL;
    child_result r = run_cmd(T, full, log, o->t_check);
    char *text = res_read_all(log), how[128], msg[192];
    int found = text ? sanitizer_findings(text) : -1,
        ok = describe(&r, o->t_check, how, sizeof how);
    snprintf(msg, sizeof msg, "%s", how);
    if (found > 0 && !r.timed_out)
        snprintf(msg, sizeof msg, "%s found %d %s%s", tool, found,
                 !strcmp(tool, "racecheck") ? "hazard" : "error", found == 1 ? "" : "s");
    else if (!ok && !r.timed_out)
        snprintf(msg, sizeof msg, "the program failed under %s: %s", tool, how);
    else if (found < 0 && ok)
        snprintf(msg, sizeof msg, "%s wrote no summary: it did not finish", tool);
    ok = ok && found == 0;
    if (ok)
        sb_printf(&T->s, "%s: nothing found (%.1f s)\n", tool, r.seconds);
    else
        sb_printf(&T->s, "%s (%.1f s)\n", msg, r.seconds);
    char *rep = !ok && found > 0 ? sanitizer_report(text, 8) : NULL;
    if (rep && rep[0])
        sb_add(&T->s, rep);
    else if (!ok && text)
        add_log_excerpt(&T->s, log);
    if (!ok) fail_why(T, msg);
    free(rep);
    free(text);
    return ok;
}

/* The sanitizer test: every tool of o->tools over every variant of the stage with --check-only
   at the sizes of sanitizer_sizes (the SM count from the standard run's CSV; each hand-written
   all-reduce variant at small n), and memcheck over the gpu suite's quick mode, which passes
   pointers off 16-byte boundaries. Stops at the first finding; not run after a time-out. */
static int sanitizer_test(const grade_opts *o, const correct_rule *cr, const char *stage,
                          const char *bin, const char *suite, unsigned ops,
                          char ar[][GRADE_NAME_MAX], int n_ar, const char *csv_text, int hung,
                          tests_t *ts)
{
    test_run T = {0};
    int ok = 0, sms = csv_text ? csv_sm_count(csv_text) : 0;
    char log[600], n_sum[64], rows[32], env[GRADE_NAME_MAX + 32];
    sanitizer_sizes(sms, n_sum, sizeof n_sum, rows, sizeof rows);
    snprintf(env, sizeof env, "GPU_TEST_STAGES=%s", stage);
    if (access(bin, X_OK) != 0)
        not_built(&T, o, bin);
    else if (hung) {
        sb_add(&T.s, "not run: an earlier test of this stage timed out, and a kernel that does "
                     "not return would time out here too\n");
        fail_why(&T, "not run (an earlier test timed out)");
    } else if (!ops) {
        sb_add(&T.s, "the program lists no variant of an op this test knows\n");
        fail_why(&T, "no variants listed");
    } else {
        ok = 1;
        sb_printf(&T.s,
                  "compute-sanitizer on every variant, at sizes where every loop runs more "
                  "than once on %s %d SMs%s\n",
                  sms ? "this GPU's" : "", sms ? sms : 132,
                  sms ? "" : " (the standard run named no SM count)");
    }
    for (int t = 0; t < N_SANITIZER_TOOLS && ok; t++) {
        if (!(o->tools & (1u << t))) continue;
        cmd_t c[MAX_CMDS];
        int n = 0;
        if (HAS(OP_SUM)) add_cmd(c, &n, bin, "--check-only", "--op", "sum", "-n", n_sum, NULL);
        if (HAS(OP_ROWSUM))
            add_cmd(c, &n, bin, "--check-only", "--op", "rowsum", "--rows", rows, "--cols",
                    SAN_ROW_COLS, NULL);
        if ((HAS(OP_SOFTMAX) || HAS(OP_LOGSOFTMAX)) && !HAS(OP_ROWSUM)) /* one run: both ops */
            add_cmd(c, &n, bin, "--check-only", "--rows", rows, "--cols", SAN_SOFT_COLS, NULL);
        for (int op = OP_SOFTMAX; HAS(OP_ROWSUM) && op <= OP_LOGSOFTMAX; op++)
            if (HAS(op))
                add_cmd(c, &n, bin, "--check-only", "--op", known_ops[op], "--rows", rows, "--cols",
                        SAN_SOFT_COLS, NULL);
        for (int i = 0; i < n_ar && n < MAX_CMDS - 1; i++)
            add_cmd(c, &n, bin, "--check-only", "--op", "allreduce", "--variant", ar[i],
                    "--ranks", "3", "-n", t == 1 ? SAN_RACE_AR_N : SAN_AR_N, NULL);
        if (t == 0 && access(suite, X_OK) == 0)
            add_cmd(c, &n, "env", "GPU_TEST_QUICK=1", env, suite, NULL);
        for (int i = 0; i < n && ok; i++) {
            snprintf(log, sizeof log, "%s/logs/%s_%s_%d.log", o->out, stage, sanitizer_tools[t],
                     i + 1);
            ok = run_sanitizer_step(&T, o, sanitizer_tools[t], &c[i], log);
        }
        if (!ok)
            sb_add(&T.s, "(the sanitizer stops at its first finding; the runs after it "
                         "were not made)\n");
    }
    return finish_test(ts, stage, "sanitizers", ok, cr->sanitizer_points, &T);
}

/* ---- one stage ------------------------------------------------------------- */

static void grade_stage(const grade_opts *o, const thresholds_t *t, const char *stage, tests_t *ts)
{
    const correct_rule *cr = thresholds_correctness(t, stage);
    char bin[512], suite[512], log[600], csv[512], env[GRADE_NAME_MAX + 32];
    char ar[8][GRADE_NAME_MAX], note[200];
    snprintf(bin, sizeof bin, "%s/%s", o->build, stage);
    snprintf(suite, sizeof suite, "%s/test_gpu", o->build);
    snprintf(csv, sizeof csv, "%s/%s.csv", o->out, stage);
    snprintf(env, sizeof env, "GPU_TEST_STAGES=%s", stage);
    int built = access(bin, X_OK) == 0, n_ar = 0, correct = 1, hung = 0, ok, n = 0;
    unsigned ops = built ? stage_ops(o, bin, stage, ar, &n_ar) : 0;

    /* (a) the gpu suite, filtered to this stage */
    test_run A = {0};
    const char *suite_cmd[] = {"env", env, suite, NULL};
    snprintf(log, sizeof log, "%s/logs/%s_suite.log", o->out, stage);
    if (access(suite, X_OK) != 0)
        not_built(&A, o, suite), ok = 0;
    else if ((ok = run_step(&A, suite_cmd, log, o->t_suite)) && !suite_ran_tests(log)) {
        sb_add(&A.s, "but it ran no test (its summary line says none passed or some were "
                     "skipped): not a pass\n");
        add_log_excerpt(&A.s, log);
        fail_why(&A, "no test ran");
        ok = 0;
    }
    correct &= finish_test(ts, stage, "gpu suite", ok, cr->suite_points, &A);
    hung |= A.timed_out;

    /* (b) the program's own check: default size, then the awkward sizes of make check */
    test_run B = {0};
    cmd_t c[MAX_CMDS];
    add_cmd(c, &n, bin, "--check-only", NULL);
    if (HAS(OP_SUM)) add_cmd(c, &n, bin, "--check-only", "--op", "sum", "-n", CHECK_SUM_N, NULL);
    if (HAS(OP_ALLREDUCE)) { /* every GPU, then a team of 3 ranks (sharing GPUs if need be) */
        add_cmd(c, &n, bin, "--check-only", "--op", "allreduce", "-n", CHECK_SUM_N, NULL);
        add_cmd(c, &n, bin, "--check-only", "--op", "allreduce", "--ranks", "3", "-n",
                CHECK_SUM_N, NULL);
    }
    if (HAS(OP_ROWSUM))
        add_cmd(c, &n, bin, "--check-only", "--op", "rowsum", "--rows", "7", "--cols",
                CHECK_ROW_COLS, NULL);
    if (HAS(OP_SOFTMAX) || HAS(OP_LOGSOFTMAX)) {
        add_cmd(c, &n, bin, "--check-only", "--rows", "37", "--cols", CHECK_SOFT_COLS, NULL);
        add_cmd(c, &n, bin, "--check-only", "--rows", "1", "--cols", CHECK_SOFT_LONG, NULL);
    }
    if (!(ok = built)) not_built(&B, o, bin);
    for (int i = 0; built && i < n && !B.timed_out; i++) {
        snprintf(log, sizeof log, "%s/logs/%s_check_%d.log", o->out, stage, i + 1);
        ok &= run_step(&B, c[i].a, log, o->t_check);
        if (B.timed_out && i + 1 < n)
            sb_add(&B.s, "(the remaining sizes were not run: this test has failed already)\n");
    }
    correct &= finish_test(ts, stage, "program check, awkward sizes", ok, cr->check_points, &B);
    hung |= B.timed_out;

    /* (c) the standard size, checked and timed; its CSV feeds the performance tests */
    test_run C = {0};
    char *csv_text = NULL;
    csv_hit h;
    const char *run_cmd_[] = {bin, "--csv", csv, NULL};
    /* an all-reduce is checked at the standard size on 3 ranks first: on a grader with one GPU
       the timed run is a one-rank all-reduce, a copy that no student code makes */
    const char *team_cmd[] = {bin, "--check-only", "--op", "allreduce", "--ranks", "3", NULL};
    char team_log[600];
    snprintf(team_log, sizeof team_log, "%s/logs/%s_run_3_ranks.log", o->out, stage);
    snprintf(log, sizeof log, "%s/logs/%s_run.log", o->out, stage);
    remove(csv);
    if (!(ok = built))
        not_built(&C, o, bin);
    else if (HAS(OP_ALLREDUCE) && !run_step(&C, team_cmd, team_log, o->t_run))
        ok = 0; /* run_step said why */
    else if ((ok = run_step(&C, run_cmd_, log, o->t_run)) &&
             (!(csv_text = res_read_all(csv)) ||
              csv_find(csv_text, stage, NULL, NULL, NULL, &h) < 0 || h.rows == 0)) {
        sb_printf(&C.s, "but %s holds no result row of %s\n", csv, stage);
        fail_why(&C, "no result rows");
        ok = 0;
    } else if (ok && h.failed) {
        sb_printf(&C.s, "but %zu of its %zu rows in %s have check FAIL\n", h.failed, h.rows, csv);
        snprintf(C.why, sizeof C.why, "%zu rows with check FAIL", h.failed);
        ok = 0;
    }
    if (built && !ok) sb_printf(&C.s, "(full output: %s)\n", log);
    if (built && !csv_text) csv_text = res_read_all(csv);
    correct &= finish_test(ts, stage, "standard size, checked and timed", ok, cr->run_points, &C);
    hung |= C.timed_out;

    /* (d) compute-sanitizer over every variant: a race or an uninitialised read that the checks
       cannot see fails the stage's correctness */
    if (o->tools)
        correct &= sanitizer_test(o, cr, stage, bin, suite, ops, ar, n_ar, csv_text, hung, ts);

    for (size_t i = 0; i < t->n_perf; i++) { /* performance: each rule of this stage */
        const perf_rule *pr = &t->perf[i];
        if (strcmp(pr->stage, stage) != 0) continue;
        char label[160];
        snprintf(label, sizeof label, "performance %s %s %s", pr->variant, pr->op, pr->dtype);
        sbuf s = {0};
        csv_hit hit = {0};
        int found = csv_text ? csv_find(csv_text, stage, pr->variant, pr->op, pr->dtype, &hit) : 0;
        double pct = hit.pct_of_ceiling;
        if (found != 1) {
            sb_printf(&s, "no row for %s %s %s %s in the standard run (%s)%s\n", stage, pr->variant,
                      pr->op, pr->dtype, csv,
                      correct ? "; does tools/thresholds.txt name a variant this stage does not "
                                "have?"
                              : ": the run failed");
            snprintf(note, sizeof note, "FAILED: not measured");
        } else {
            sb_printf(&s,
                      "%.1f%% of the measured ceiling (%.0f of %.0f GB/s); full marks at %.1f%% "
                      "(tools/thresholds.txt line %d)\n%s",
                      pct, hit.gbps, hit.ceiling_gbps, pr->pct, pr->line,
                      correct ? ""
                              : "no points: the stage is not correct (see its correctness "
                                "tests)\n");
            if (!correct)
                snprintf(note, sizeof note, "0: stage not correct (%.1f%% of ceiling)", pct);
            else
                snprintf(note, sizeof note, "%s: %.1f%% of ceiling, full at %.1f%%",
                         pct >= pr->pct ? "passed" : "partial", pct, pr->pct);
        }
        add_test(ts, stage, label, found == 1 && correct && pct >= pr->pct,
                 found == 1 ? perf_score(pr->points, pct, pr->pct, correct) : 0, pr->points, &s,
                 note);
    }
    free(csv_text);
}

/* ---- results.json and the table -------------------------------------------- */

static void put_json_string(FILE *f, const char *s)
{
    char *q = json_string(s, strlen(s));
    fputs(q ? q : "\"(out of memory)\"", f);
    free(q);
}

/* Writes Gradescope's results.json through a temporary file. Returns 0, or -1. */
static int write_results(const char *path, const tests_t *ts, double total, double seconds,
                         const char *summary)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) return -1;
    FILE *f = fopen(tmp, "w");
    if (!f) return -1;
    fprintf(f, "{\n  \"score\": %.2f,\n  \"execution_time\": %.0f,\n  \"output\": ", total,
            seconds);
    put_json_string(f, summary);
    fprintf(f, ",\n  \"tests\": [");
    for (size_t i = 0; i < ts->n; i++) {
        const test_rec *t = &ts->t[i];
        char name[256];
        snprintf(name, sizeof name, "%s: %s", t->stage, t->label);
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        put_json_string(f, name);
        fprintf(f, ", \"score\": %.2f, \"max_score\": %.2f, \"status\": \"%s\",\n     \"output\": ",
                t->score, t->max, t->passed ? "passed" : "failed");
        put_json_string(f, t->output);
        fprintf(f, "}");
    }
    fprintf(f, "\n  ]\n}\n");
    int ok = !ferror(f);
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        remove(tmp);
        return -1;
    }
    return 0;
}

static void print_table(const tests_t *ts, double total, double max)
{
    char sc[32];
    printf("\n%-16s  %-44s  %13s  %s\n", "stage", "test", "score", "status");
    for (size_t i = 0; i < ts->n; i++) {
        snprintf(sc, sizeof sc, "%.2f/%.2f", ts->t[i].score, ts->t[i].max);
        printf("%-16s  %-44s  %13s  %s\n", ts->t[i].stage, ts->t[i].label, sc, ts->t[i].note);
    }
    snprintf(sc, sizeof sc, "%.2f/%.2f", total, max);
    printf("%-16s  %-44s  %13s\n", "total", "", sc);
}

/* ---- main ------------------------------------------------------------------ */

static int usage(const char *prog, const char *why, const char *arg)
{
    if (why) {
        fputs("grade: ", stderr);
        fprintf(stderr, why, arg);
        fputc('\n', stderr);
    }
    fprintf(stderr,
            "usage: %s [--stages a,b] [--thresholds FILE] [--build DIR] [--out DIR]\n"
            "       [--build-log FILE] [--timeout-suite S] [--timeout-check S] [--timeout-run S]\n"
            "       [--sanitizers memcheck,racecheck,synccheck,initcheck|none]\n"
            "       [--compute-sanitizer PATH] [--probe] [--no-gpu-probe]\n"
            "Run from the repository root (or a generated assignment's root).\n",
            prog);
    return 2;
}

/* --sanitizers: "none", or a comma list of sanitizer_tools. Returns 0, or -1. */
static int parse_tools(const char *v, unsigned *tools)
{
    char buf[256];
    *tools = 0;
    if (!strcmp(v, "none")) return 0;
    if (snprintf(buf, sizeof buf, "%s", v) >= (int)sizeof buf) return -1;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int t = 0;
        while (t < N_SANITIZER_TOOLS && strcmp(tok, sanitizer_tools[t])) t++;
        if (t == N_SANITIZER_TOOLS) return -1;
        *tools |= 1u << t;
    }
    return *tools ? 0 : -1;
}

/* The first line a shell command prints (cut at "(" and blanks) into out; 0 when none. */
static int first_line(const char *cmd, char *out, size_t n)
{
    FILE *p = popen(cmd, "r");
    int ok = p && fgets(out, (int)n, p) != NULL;
    if (p) pclose(p);
    out[ok ? strcspn(out, "\n(") : 0] = '\0';
    for (size_t k = strlen(out); k && out[k - 1] == ' ';) out[--k] = '\0';
    return ok && out[0];
}

/* compute-sanitizer when the sanitizer test runs: --compute-sanitizer, else the PATH, else
   /usr/local/cuda/bin. Returns 0, or 3 with one line on stderr when there is none. */
static int find_sanitizer(grade_opts *o)
{
    static char found[4096];
    if (!o->tools || (o->sanitizer && access(o->sanitizer, X_OK) == 0)) return 0;
    if (o->sanitizer) {
        fprintf(stderr, "grade: --compute-sanitizer %s: no such program\n", o->sanitizer);
        return 3;
    }
    if (first_line(
            "command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null",
            found, sizeof found))
        return (o->sanitizer = found), 0;
    fprintf(stderr, "grade: compute-sanitizer not found (PATH, /usr/local/cuda/bin): the "
                    "sanitizer test needs it (it comes with the CUDA toolkit); name it with "
                    "--compute-sanitizer PATH, or grade without that test: --sanitizers none\n");
    return 3;
}

int main(int argc, char **argv)
{
    grade_opts o = {.thresholds = "tools/thresholds.txt",
                    .build = "build",
                    .out = "build/grade",
                    .t_suite = 180,
                    .t_check = 90,
                    .t_run = 180,
                    .tools = 0xF};
    const char *stages_arg = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        double x;
        int *secs = !strcmp(a, "--timeout-suite")   ? &o.t_suite
                    : !strcmp(a, "--timeout-check") ? &o.t_check
                    : !strcmp(a, "--timeout-run")   ? &o.t_run
                                                    : NULL;
        if (!strcmp(a, "--probe") || !strcmp(a, "--no-gpu-probe")) {
            *(a[2] == 'p' ? &o.probe_only : &o.no_probe) = 1;
            continue;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) return usage(argv[0], NULL, NULL), 0;
        if (!v) return usage(argv[0], "%s is missing its value, or an unknown flag", a);
        const char *names[] = {"--stages",    "--thresholds",        "--build", "--out",
                               "--build-log", "--compute-sanitizer", NULL},
                   **dest[] = {&stages_arg, &o.thresholds, &o.build,
                               &o.out,      &o.build_log,  &o.sanitizer};
        int k = list_index(a, names);
        i++;
        if (k >= 0)
            *dest[k] = v;
        else if (!strcmp(a, "--sanitizers") && parse_tools(v, &o.tools))
            return usage(argv[0],
                         "--sanitizers takes a comma list of memcheck, racecheck, synccheck and "
                         "initcheck, or none; not '%s'",
                         v);
        else if (secs && parse_number(v, 1, 86400, &x))
            return usage(argv[0], "a time limit takes 1..86400 seconds, not '%s'", v);
        else if (secs)
            *secs = (int)x;
        else if (strcmp(a, "--sanitizers"))
            return usage(argv[0], "unknown flag '%s'", a);
    }

    char logs[600], gpu[256] = "(GPU not probed)";
    snprintf(logs, sizeof logs, "%s/logs", o.out);
    if (res_run("/bin/mkdir -p '%s'", logs) != 0) return 1;
    if (!o.no_probe && !first_line("nvidia-smi -L 2>/dev/null | grep '^GPU '", gpu, sizeof gpu)) {
        fprintf(stderr, "grade: no NVIDIA GPU on this machine (nvidia-smi -L lists none); "
                        "grading needs one\n");
        return 3;
    }
    if (o.probe_only) return find_sanitizer(&o);

    /* the thresholds, then the stages; every problem here is a usage error */
    char *text = res_read_all(o.thresholds), err[512];
    if (!text) {
        fprintf(stderr, "grade: cannot read %s: %s (run from the repository root)\n", o.thresholds,
                strerror(errno));
        return 2;
    }
    thresholds_t t;
    int rc = thresholds_parse(text, o.thresholds, &t, err, sizeof err);
    free(text);
    if (rc != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    glob_t g = {0};
    char *list = strdup(stages_arg ? stages_arg : "");
    for (char *s = strtok(list, ", \t"); s; s = strtok(NULL, ", \t")) {
        struct stat st;
        if (!is_stage_name(s) || stat(s, &st) != 0 || !S_ISDIR(st.st_mode))
            return usage(argv[0], "no stage folder '%s' here (run from the repository root)", s);
        if (o.n_stages == MAX_STAGES) return usage(argv[0], "too many stages%s", "");
        strcpy(o.stages[o.n_stages++], s);
    }
    free(list);
    if (o.n_stages == 0 && glob("[0-9][0-9]_*/", GLOB_MARK, NULL, &g) == 0) /* every stage */
        for (size_t i = 0; i < g.gl_pathc && o.n_stages < MAX_STAGES; i++) {
            g.gl_pathv[i][strlen(g.gl_pathv[i]) - 1] = '\0';
            if (is_stage_name(g.gl_pathv[i])) strcpy(o.stages[o.n_stages++], g.gl_pathv[i]);
        }
    globfree(&g);
    if (o.n_stages == 0) {
        fprintf(stderr, "grade: no stage folders (NN_name) here: run from the repository root\n");
        return 2;
    }
    for (size_t i = 0; i < o.n_stages; i++)
        if (!thresholds_correctness(&t, o.stages[i])) {
            fprintf(stderr, "%s: no correctness rule for %s: add one to grade it\n", o.thresholds,
                    o.stages[i]);
            return 2;
        }
    if ((rc = find_sanitizer(&o)) != 0) return rc;

    double t0 = now_s(), total = 0, max = 0;
    printf("grade: %zu stage%s on %s; logs in %s\n", o.n_stages, o.n_stages == 1 ? "" : "s", gpu,
           logs);
    tests_t ts = {0};
    for (size_t i = 0; i < o.n_stages; i++) grade_stage(&o, &t, o.stages[i], &ts);
    for (size_t i = 0; i < ts.n; i++) {
        total += ts.t[i].score;
        max += ts.t[i].max;
    }
    total = round_points(total);
    max = round_points(max);
    double seconds = now_s() - t0;
    char summary[1024], results[600];
    snprintf(summary, sizeof summary,
             "Graded on %s in %.0f s: %.2f of %.2f points. Correctness: the gpu suite, the "
             "program's own check at awkward sizes, the standard size and compute-sanitizer "
             "(races, out-of-bounds and uninitialised reads, barriers). Performance: percent of "
             "the bandwidth ceiling measured in the same run, against the thresholds of "
             "tools/thresholds.txt (zero while a stage is not correct).",
             gpu, seconds, total, max);
    print_table(&ts, total, max);
    snprintf(results, sizeof results, "%s/results.json", o.out);
    if (write_results(results, &ts, total, seconds, summary) != 0) {
        fprintf(stderr, "grade: cannot write %s: %s\n", results, strerror(errno));
        return 1;
    }
    printf("grade: wrote %s\n", results);
    for (size_t i = 0; i < ts.n; i++) free(ts.t[i].output);
    free(ts.t);
    thresholds_free(&t);
    return 0;
}

#endif /* COURSE_LIB */
