/* SPDX-License-Identifier: MIT */
/* grader: grades the working tree (the full repository or a generated assignment) on this GPU.
 *
 *   build/grader [--stages a,b] [--thresholds tools/thresholds.txt] [--build build]
 *                [--out build/grade] [--build-log FILE] [--timeout-suite S] [--timeout-check S]
 *                [--timeout-run S] [--sanitizers memcheck,racecheck,synccheck,initcheck|none]
 *                [--compute-sanitizer PATH] [--probe] [--no-gpu-probe]
 *
 * Per stage, four correctness tests, each all or nothing:
 *   gpu suite        GPU_TEST_STAGES=NN_name build/test_gpu
 *   program check    build/NN_name --check-only, and at the awkward sizes of `make check`
 *   standard run     build/NN_name --csv build/grade/NN_name.csv (checks, then times)
 *   sanitizers       compute-sanitizer (each tool of --sanitizers, --error-exitcode 1) over
 *                    build/NN_name --check-only at sizes where every loop of every kernel runs
 *                    more than once on this GPU (sanitizer_sizes), and memcheck over the gpu
 *                    suite's quick mode (misaligned pointers); each command under
 *                    --timeout-check
 * and one performance test per rule of tools/thresholds.txt, scored from that run's CSV
 * (pct_of_ceiling against the rule's threshold; zero when the stage is not correct, that is
 * when any correctness test failed).
 * Every child runs in its own process group under a time limit; a hang is a failed test
 * ("timed out after N s"), a crash a failed test with the end of its output; after a time-out
 * the sanitizer test of that stage is not run (a failure).
 * Prints a table and writes build/grade/results.json (Gradescope's format); the full output
 * of every child is kept in build/grade/logs/.
 * Exit codes: 0 grading completed, whatever the score; 1 results.json cannot be written;
 * 2 usage (a bad flag, a bad thresholds file, an unknown stage); 3 no GPU, or no
 * compute-sanitizer while the sanitizer test is on.
 * Built without main (-DCOURSE_LIB) for the host tests.
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

static const char *const known_ops[] = {"sum", "rowsum", "softmax", "logsoftmax", NULL};
static const char *const known_dtypes[] = {"f32", "f16", "bf16", NULL};

static int in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0) return 1;
    return 0;
}

/* "NN_name": two digits, an underscore, then letters, digits and underscores. */
static int is_stage_name(const char *s)
{
    if (!isdigit((unsigned char)s[0]) || !isdigit((unsigned char)s[1]) || s[2] != '_' || !s[3])
        return 0;
    for (s += 3; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_') return 0;
    return 1;
}

/* Parses a finite number in [lo, hi] from the whole of text. Returns 0, or -1. */
static int parse_number(const char *text, double lo, double hi, double *out)
{
    char *end;
    double x = strtod(text, &end);
    if (end == text || *end || !isfinite(x) || x < lo || x > hi) return -1;
    *out = x;
    return 0;
}

/* Copies a field into dst[cap]; -1 when it does not fit. */
static int copy_field(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap) return -1;
    memcpy(dst, src, n + 1);
    return 0;
}

#define MAX_FIELDS 8

int thresholds_parse(const char *text, const char *name, thresholds_t *t, char *err,
                     size_t err_len)
{
    memset(t, 0, sizeof *t);
    size_t cap_c = 0, cap_p = 0;
    int line_no = 0;
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        line_no++;
        char line[1024];
        if (n >= sizeof line) {
            snprintf(err, err_len, "%s:%d: line longer than %zu characters", name, line_no,
                     sizeof line - 1);
            goto fail;
        }
        memcpy(line, p, n);
        line[n] = '\0';
        p += n + (nl ? 1 : 0);
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *f[MAX_FIELDS + 1];
        int nf = 0;
        for (char *tok = strtok(line, " \t\r"); tok; tok = strtok(NULL, " \t\r")) {
            if (nf == MAX_FIELDS + 1) break;
            f[nf++] = tok;
        }
        if (nf == 0) continue;
        if (strcmp(f[0], "correctness") == 0) {
            if (nf != 5 && nf != 6) {
                snprintf(err, err_len, "%s:%d: correctness takes 4 fields (STAGE SUITE CHECK RUN) "
                         "or 5 (and SANITIZERS), not %d", name, line_no, nf - 1);
                goto fail;
            }
            correct_rule r = {.line = line_no};
            if (!is_stage_name(f[1]) || copy_field(r.stage, sizeof r.stage, f[1])) {
                snprintf(err, err_len, "%s:%d: '%s' is not a stage name (NN_name)", name, line_no,
                         f[1]);
                goto fail;
            }
            double *pts[4] = {&r.suite_points, &r.check_points, &r.run_points,
                              &r.sanitizer_points};
            for (int i = 0; i < nf - 2; i++)
                if (parse_number(f[2 + i], 0, 1e6, pts[i])) {
                    snprintf(err, err_len, "%s:%d: points '%s' are not a number >= 0", name,
                             line_no, f[2 + i]);
                    goto fail;
                }
            if (thresholds_correctness(t, r.stage)) {
                snprintf(err, err_len, "%s:%d: a second correctness rule for %s (the first is at "
                         "line %d)", name, line_no, r.stage,
                         thresholds_correctness(t, r.stage)->line);
                goto fail;
            }
            if (t->n_correct == cap_c) {
                cap_c = cap_c ? 2 * cap_c : 16;
                correct_rule *q = realloc(t->correct, cap_c * sizeof *q);
                if (!q) goto oom;
                t->correct = q;
            }
            t->correct[t->n_correct++] = r;
        } else if (strcmp(f[0], "performance") == 0) {
            if (nf != 7) {
                snprintf(err, err_len, "%s:%d: performance takes 6 fields (STAGE VARIANT OP DTYPE "
                         "PCT POINTS), not %d", name, line_no, nf - 1);
                goto fail;
            }
            perf_rule r = {.line = line_no};
            if (!is_stage_name(f[1]) || copy_field(r.stage, sizeof r.stage, f[1])) {
                snprintf(err, err_len, "%s:%d: '%s' is not a stage name (NN_name)", name, line_no,
                         f[1]);
                goto fail;
            }
            if (copy_field(r.variant, sizeof r.variant, f[2])) {
                snprintf(err, err_len, "%s:%d: variant name too long", name, line_no);
                goto fail;
            }
            if (!in_list(f[3], known_ops)) {
                snprintf(err, err_len, "%s:%d: op '%s' is not sum, rowsum, softmax or logsoftmax",
                         name, line_no, f[3]);
                goto fail;
            }
            if (!in_list(f[4], known_dtypes)) {
                snprintf(err, err_len, "%s:%d: dtype '%s' is not f32, f16 or bf16", name, line_no,
                         f[4]);
                goto fail;
            }
            strcpy(r.op, f[3]);
            strcpy(r.dtype, f[4]);
            if (parse_number(f[5], 1e-9, 100, &r.pct)) {
                snprintf(err, err_len, "%s:%d: percent of ceiling '%s' is not a number in (0, 100]",
                         name, line_no, f[5]);
                goto fail;
            }
            if (parse_number(f[6], 0, 1e6, &r.points)) {
                snprintf(err, err_len, "%s:%d: points '%s' are not a number >= 0", name, line_no,
                         f[6]);
                goto fail;
            }
            for (size_t i = 0; i < t->n_perf; i++) {
                const perf_rule *o = &t->perf[i];
                if (!strcmp(o->stage, r.stage) && !strcmp(o->variant, r.variant) &&
                    !strcmp(o->op, r.op) && !strcmp(o->dtype, r.dtype)) {
                    snprintf(err, err_len, "%s:%d: a second rule for %s %s %s %s (the first is at "
                             "line %d)", name, line_no, r.stage, r.variant, r.op, r.dtype, o->line);
                    goto fail;
                }
            }
            if (t->n_perf == cap_p) {
                cap_p = cap_p ? 2 * cap_p : 32;
                perf_rule *q = realloc(t->perf, cap_p * sizeof *q);
                if (!q) goto oom;
                t->perf = q;
            }
            t->perf[t->n_perf++] = r;
        } else {
            snprintf(err, err_len, "%s:%d: unknown rule '%s' (correctness or performance)", name,
                     line_no, f[0]);
            goto fail;
        }
    }
    return 0;
oom:
    snprintf(err, err_len, "%s: out of memory", name);
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

/* ---- scores ---------------------------------------------------------------- */

double round_points(double x) { return floor(x * 100.0 + 0.5) / 100.0; }

double perf_score(double points, double pct, double threshold_pct, int stage_correct)
{
    if (!stage_correct || !(pct >= 0) || !isfinite(pct) || !(threshold_pct > 0)) return 0;
    if (pct >= threshold_pct) return round_points(points);
    return round_points(points * pct / threshold_pct);
}

/* ---- the results CSV (read by the results tool's reader, tools/results_read.c) ---- */

int csv_find(const char *text, const char *stage, const char *variant, const char *op,
             const char *dtype, csv_hit *hit)
{
    res_file f;
    char err[256];
    if (res_read_text(text, "csv", &f, err, sizeof err) != 0) return -1;
    int found = 0;
    for (size_t i = 0; i < f.n && !found; i++) {
        const res_entry *e = &f.e[i];
        found = !strcmp(e->stage, stage) && !strcmp(e->variant, variant) &&
                !strcmp(op_name(e->op), op) && !strcmp(dtype_name(e->dt), dtype);
        if (found) *hit = (csv_hit){e->pct, e->gbps, e->ceiling, e->n_fail == 0};
    }
    free(f.e);
    return found;
}

int csv_count(const char *text, const char *stage, size_t *rows, size_t *failed)
{
    res_file f;
    char err[256];
    *rows = *failed = 0;
    if (res_read_text(text, "csv", &f, err, sizeof err) != 0) return -1;
    for (size_t i = 0; i < f.n; i++)
        if (strcmp(f.e[i].stage, stage) == 0) {
            *rows += f.e[i].n_ok + f.e[i].n_fail;
            *failed += f.e[i].n_fail;
        }
    free(f.e);
    return 0;
}

/* ---- JSON strings and output excerpts -------------------------------------- */

/* Length of the valid UTF-8 sequence at s[0..n), or 0 when it is not one (overlong forms,
   surrogates and code points above U+10FFFF are not). */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t k;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) k = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        k = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        k = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else return 0;
    if (n < k || s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < k; i++)
        if (s[i] < 0x80 || s[i] > 0xBF) return 0;
    return k;
}

char *json_string(const char *s, size_t len)
{
    /* the worst case is 6 output bytes per input byte, plus quotes and the NUL */
    if (len > ((size_t)-1 - 3) / 6) return NULL;
    char *out = malloc(6 * len + 3), *o = out;
    if (!out) return NULL;
    const unsigned char *u = (const unsigned char *)s;
    *o++ = '"';
    for (size_t i = 0; i < len;) {
        unsigned char c = u[i];
        if (c == '"' || c == '\\') { *o++ = '\\'; *o++ = (char)c; i++; }
        else if (c == '\n') { memcpy(o, "\\n", 2); o += 2; i++; }
        else if (c == '\r') { memcpy(o, "\\r", 2); o += 2; i++; }
        else if (c == '\t') { memcpy(o, "\\t", 2); o += 2; i++; }
        else if (c < 0x20 || c == 0x7F) { o += sprintf(o, "\\u%04x", c); i++; }
        else if (c < 0x80) { *o++ = (char)c; i++; }
        else {
            size_t k = utf8_seq(u + i, len - i);
            if (k) { memcpy(o, u + i, k); o += k; i += k; }
            else { memcpy(o, "\\ufffd", 6); o += 6; i++; }
        }
    }
    *o++ = '"';
    *o = '\0';
    return out;
}

static int names_failure(const char *line, size_t n)
{
    static const char *const keys[] = {"FAIL", "error", "Error", "timed out", "past the end",
                                       "Assertion", "had failures", "fatal", "mismatch", NULL};
    char buf[512];
    size_t m = n < sizeof buf - 1 ? n : sizeof buf - 1;
    memcpy(buf, line, m);
    buf[m] = '\0';
    for (int i = 0; keys[i]; i++)
        if (strstr(buf, keys[i])) return 1;
    return 0;
}

char *output_excerpt(const char *text, size_t len, size_t tail_lines, size_t max_bytes)
{
    size_t lines = 0;
    for (size_t i = 0; i < len; i++) lines += text[i] == '\n';
    if (len && text[len - 1] != '\n') lines++;
    size_t cap = len + 256;
    char *out = malloc(cap + 1), *o = out;
    if (!out) return NULL;
    if (lines <= 2 * tail_lines) {
        memcpy(o, text, len);
        o += len;
    } else {
        /* the lines naming a failure, then the tail */
        size_t shown = 0, line_no = 0, tail_from = lines - tail_lines;
        for (size_t i = 0; i < len && line_no < tail_from;) {
            const char *nl = memchr(text + i, '\n', len - i);
            size_t n = nl ? (size_t)(nl - (text + i)) + 1 : len - i;
            if (shown < 20 && names_failure(text + i, n)) {
                memcpy(o, text + i, n);
                o += n;
                shown++;
            }
            i += n;
            line_no++;
        }
        o += sprintf(o, "[... %zu lines in all; the last %zu follow ...]\n", lines, tail_lines);
        size_t i = 0;
        for (line_no = 0; line_no < tail_from; line_no++) {
            const char *nl = memchr(text + i, '\n', len - i);
            i = (size_t)(nl - text) + 1;
        }
        memcpy(o, text + i, len - i);
        o += len - i;
    }
    *o = '\0';
    size_t n = (size_t)(o - out);
    if (n > max_bytes && max_bytes > 64) {
        /* keep the end, where the verdict is; cut at a line start */
        const char *from = out + n - (max_bytes - 40);
        const char *nl = strchr(from, '\n');
        if (nl && nl + 1 < o) from = nl + 1;
        size_t keep = (size_t)(o - from);
        char head[] = "[... output cut ...]\n";
        memmove(out + strlen(head), from, keep + 1);
        memcpy(out, head, strlen(head));
    }
    return out;
}


/* ---- the sanitizer test ------------------------------------------------------ */

/* The number after key in line (a summary line), or -1 when key is not in it. */
static long summary_count(const char *line, size_t n, const char *key)
{
    char buf[512];
    size_t m = n < sizeof buf - 1 ? n : sizeof buf - 1;
    memcpy(buf, line, m);
    buf[m] = '\0';
    const char *k = strstr(buf, key);
    if (!k) return -1;
    char *end;
    long v = strtol(k + strlen(key), &end, 10);
    return end == k + strlen(key) || v < 0 ? -1 : v;
}

int sanitizer_findings(const char *text)
{
    long found = -1;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        /* racecheck may print both lines for the same findings: the larger count */
        long e = summary_count(p, n, "ERROR SUMMARY: ");
        long h = summary_count(p, n, "RACECHECK SUMMARY: ");
        if (e > found) found = e;
        if (h > found) found = h;
        p += n + (nl ? 1 : 0);
    }
    return found > 1000000 ? 1000000 : (int)found;
}

#define SAN_PREFIX "========="
#define SAN_LINE_MAX 160

/* Appends line[0..n) to out, cut to SAN_LINE_MAX characters, and a newline. */
static char *add_cut_line(char *o, const char *line, size_t n)
{
    if (n > SAN_LINE_MAX) {
        memcpy(o, line, SAN_LINE_MAX - 3);
        memcpy(o + SAN_LINE_MAX - 3, "...", 3);
        o += SAN_LINE_MAX;
    } else {
        memcpy(o, line, n);
        o += n;
    }
    *o++ = '\n';
    return o;
}

char *sanitizer_report(const char *text, size_t max_lines)
{
    char *out = malloc((max_lines + 2) * (SAN_LINE_MAX + 1) + 1), *o = out;
    if (!out) return NULL;
    const size_t plen = strlen(SAN_PREFIX);
    enum { BEFORE, IN, AFTER } state = BEFORE;
    size_t taken = 0;
    const char *summary = NULL;
    size_t summary_len = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        const char *line = p;
        p += n + (nl ? 1 : 0);
        if (n && line[n - 1] == '\r') n--;
        if (n < plen || strncmp(line, SAN_PREFIX, plen) != 0) {
            if (state == IN) state = AFTER; /* the program's own output ends a report */
            continue;
        }
        if (summary_count(line, n, "ERROR SUMMARY: ") >= 0 ||
            summary_count(line, n, "RACECHECK SUMMARY: ") >= 0) {
            if (!summary) { summary = line; summary_len = n; }
            if (state == IN) state = AFTER;
            continue;
        }
        size_t k = plen;
        while (k < n && line[k] == ' ') k++;
        int blank = k == n;
        int header = n - k >= 17 && strncmp(line + k, "COMPUTE-SANITIZER", 17) == 0;
        int backtrace = n - k >= 20 && strncmp(line + k, "Saved host backtrace", 20) == 0;
        if (state == BEFORE && !blank && !header && !backtrace) state = IN;
        else if (state == IN && (blank || backtrace || taken == max_lines)) state = AFTER;
        if (state == IN && taken < max_lines) {
            o = add_cut_line(o, line, n);
            taken++;
        }
    }
    if (summary && taken) o = add_cut_line(o, summary, summary_len);
    *o = '\0';
    return out;
}

int csv_sm_count(const char *text)
{
    for (const char *p = text; p && *p;) {
        int sms = 0;
        if (sscanf(p, "# sm_count: %d", &sms) == 1 && sms > 0) return sms;
        p = strchr(p, '\n');
        if (p) p++;
    }
    return 0;
}

void sanitizer_sizes(int sms, char *n_sum, size_t n_len, char *rows, size_t rows_len)
{
    if (sms <= 0 || sms > 100000) sms = 132;
    snprintf(n_sum, n_len, "1,33,1025,65537,%zu", (size_t)65536 * (size_t)sms + 7);
    snprintf(rows, rows_len, "%zu", (size_t)32 * (size_t)sms + 3);
}


#ifndef COURSE_LIB

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The sizes of `make check` (Makefile), per op: where tails, partial warps and partial
   blocks show up. The grader runs the same commands. */
#define CHECK_SUM_N        "1,2,31,33,1023,1025,65537,1000003"
#define CHECK_ROW_COLS     "1,3,33,1025,65537"
#define CHECK_SOFT_COLS    "1,3,33,1000,1025,20000,100000"
#define CHECK_SOFT_LONG    "262144,262147"
#define MAX_STAGES 64
#define EXCERPT_LINES 25
#define EXCERPT_BYTES 6000

typedef struct {
    const char *thresholds, *build, *out, *build_log;
    int t_suite, t_check, t_run;
    int probe_only, no_probe;
    unsigned tools;              /* the sanitizer test's tools: bit i = sanitizer_tools[i] */
    const char *sanitizer;       /* compute-sanitizer, as given or found */
    char stages[MAX_STAGES][GRADE_NAME_MAX];
    size_t n_stages;
} grade_opts;

typedef struct {
    char stage[GRADE_NAME_MAX];
    char label[160];
    double score, max;
    int passed;
    char *output;     /* malloc'd */
    char note[200];   /* one line for the table */
} test_rec;

typedef struct {
    test_rec *t;
    size_t n, cap;
} tests_t;

/* ---- small helpers --------------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "grade: out of memory\n");
        exit(1);
    }
    return p;
}

static char *xstrdup(const char *s)
{
    char *p = xmalloc(strlen(s) + 1);
    strcpy(p, s);
    return p;
}

/* A growing string for a test's output. */
typedef struct {
    char *p;
    size_t len, cap;
} str_t;

static void str_add(str_t *s, const char *text)
{
    size_t n = strlen(text);
    if (s->len + n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 1024;
        while (cap < s->len + n + 1) cap *= 2;
        char *p = realloc(s->p, cap);
        if (!p) {
            fprintf(stderr, "grade: out of memory\n");
            exit(1);
        }
        s->p = p;
        s->cap = cap;
    }
    memcpy(s->p + s->len, text, n + 1);
    s->len += n;
}

static void str_addf(str_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void str_addf(str_t *s, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    str_add(s, buf);
}

/* The whole file at path, NUL-terminated, or NULL when it cannot be read. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *p = xmalloc(cap);
    for (;;) {
        n += fread(p + n, 1, cap - n - 1, f);
        if (n < cap - 1) break;
        char *q = realloc(p, cap * 2);
        if (!q) break;
        p = q;
        cap *= 2;
    }
    fclose(f);
    p[n] = '\0';
    if (len) *len = n;
    return p;
}

/* mkdir -p. Returns 0, or -1 with errno set. */
static int make_dirs(const char *path)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *c = buf + 1;; c++) {
        if (*c == '/' || *c == '\0') {
            char keep = *c;
            *c = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
            *c = keep;
            if (!keep) break;
        }
    }
    return 0;
}

static void add_test(tests_t *ts, const char *stage, const char *label, double score, double max,
                     int passed, char *output, const char *note)
{
    if (ts->n == ts->cap) {
        ts->cap = ts->cap ? 2 * ts->cap : 32;
        test_rec *q = realloc(ts->t, ts->cap * sizeof *q);
        if (!q) {
            fprintf(stderr, "grade: out of memory\n");
            exit(1);
        }
        ts->t = q;
    }
    test_rec *t = &ts->t[ts->n++];
    memset(t, 0, sizeof *t);
    snprintf(t->stage, sizeof t->stage, "%s", stage);
    snprintf(t->label, sizeof t->label, "%s", label);
    t->score = round_points(score);
    t->max = round_points(max);
    t->passed = passed;
    t->output = output ? output : xstrdup("");
    snprintf(t->note, sizeof t->note, "%s", note);
    printf("grade: %-16s %-44s %s\n", stage, label, note);
    fflush(stdout);
}

/* ---- running a child under a time limit ------------------------------------ */

typedef struct {
    int status;      /* from waitpid, when reaped */
    int timed_out;   /* killed at the limit */
    int start_failed;
    double seconds;
} child_result;

/* Runs argv (PATH searched) in its own process group with stdin from /dev/null and stdout
   and stderr into log_path, env_name=env_value added to its environment when env_name is
   given. At timeout_s the whole group gets SIGTERM, then SIGKILL 3 s later. Only the
   group of this child is ever signalled, and only while its leader is unreaped. */
static child_result run_child(char *const argv[], const char *env_name, const char *env_value,
                              const char *log_path, int timeout_s)
{
    child_result r = {0};
    fflush(stdout);
    fflush(stderr);
    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0) {
        r.start_failed = 1;
        return r;
    }
    if (pid == 0) {
        setpgid(0, 0);
        int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) { dup2(fd, 1); dup2(fd, 2); close(fd); }
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0) { dup2(nul, 0); close(nul); }
        if (env_name) setenv(env_name, env_value, 1);
        execvp(argv[0], argv);
        fprintf(stderr, "grade: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid); /* also in the parent, so the group exists before any kill */
    siginfo_t info;
    int exited = 0;
    while (!exited) {
        memset(&info, 0, sizeof info);
        /* WNOWAIT: the child stays a zombie, so its group id cannot be reused under us */
        if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0 && errno != EINTR)
            break;
        if (info.si_pid == pid) { exited = 1; break; }
        if (now_s() - t0 >= timeout_s) {
            r.timed_out = 1;
            kill(-pid, SIGTERM);
            for (double t1 = now_s(); now_s() - t1 < 3.0;) {
                memset(&info, 0, sizeof info);
                if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
                    info.si_pid == pid)
                    break;
                sleep_ms(50);
            }
            kill(-pid, SIGKILL); /* the leader is alive or a zombie: the group is still ours */
            break;
        }
        sleep_ms(20);
    }
    while (waitpid(pid, &r.status, 0) < 0 && errno == EINTR) {}
    r.seconds = now_s() - t0;
    return r;
}

/* One line saying how a child ended; returns 1 when it exited 0. */
static int describe(const child_result *r, int timeout_s, char *msg, size_t n)
{
    if (r->start_failed) snprintf(msg, n, "could not be started (fork failed)");
    else if (r->timed_out) snprintf(msg, n, "timed out after %d s (killed)", timeout_s);
    else if (WIFSIGNALED(r->status))
        snprintf(msg, n, "crashed: killed by signal %d (%s)", WTERMSIG(r->status),
                 strsignal(WTERMSIG(r->status)));
    else if (WIFEXITED(r->status)) {
        int c = WEXITSTATUS(r->status);
        switch (c) {
        case 0: snprintf(msg, n, "passed"); return 1;
        case 1: snprintf(msg, n, "a check failed (exit 1)"); break;
        case 2: snprintf(msg, n, "usage error (exit 2)"); break;
        case 3: snprintf(msg, n, "CUDA error, crash or no GPU (exit 3)"); break;
        case 127: snprintf(msg, n, "could not be run (exit 127)"); break;
        default: snprintf(msg, n, "failed (exit %d)", c); break;
        }
    } else snprintf(msg, n, "ended in an unknown way");
    return 0;
}

static void add_command_line(str_t *s, const char *env, char *const argv[])
{
    str_add(s, "$ ");
    if (env) { str_add(s, env); str_add(s, " "); }
    for (int i = 0; argv[i]; i++) {
        str_add(s, argv[i]);
        str_add(s, argv[i + 1] ? " " : "\n");
    }
}

/* Appends the interesting part of the log at path to s. */
static void add_log_excerpt(str_t *s, const char *path)
{
    size_t len = 0;
    char *text = slurp(path, &len);
    if (!text) return;
    char *ex = output_excerpt(text, len, EXCERPT_LINES, EXCERPT_BYTES);
    if (ex) {
        str_add(s, ex);
        if (ex[0] && ex[strlen(ex) - 1] != '\n') str_add(s, "\n");
    }
    free(ex);
    free(text);
}

/* Runs one command as part of a test: appends the command, how it ended and, unless it
   passed, the end of its output to s. Returns 1 when it exited 0; sets *timed_out, adds the
   run time to *seconds and, on a failure, puts how it ended in why (when why is still empty). */
static int run_step(str_t *s, char *const argv[], const char *env_name, const char *env_value,
                    const char *log_path, int timeout_s, int *timed_out, double *seconds,
                    char *why, size_t why_len)
{
    char env[256] = "", msg[128];
    if (env_name) snprintf(env, sizeof env, "%s=%s", env_name, env_value);
    add_command_line(s, env_name ? env : NULL, argv);
    child_result r = run_child(argv, env_name, env_value, log_path, timeout_s);
    int ok = describe(&r, timeout_s, msg, sizeof msg);
    str_addf(s, "%s (%.1f s)\n", msg, r.seconds);
    if (!ok) add_log_excerpt(s, log_path);
    if (!ok && !why[0]) snprintf(why, why_len, "%s", msg);
    if (timed_out) *timed_out = r.timed_out;
    if (seconds) *seconds += r.seconds;
    return ok;
}

static void add_not_built(str_t *s, const grade_opts *o, const char *what)
{
    str_addf(s, "%s was not built: it did not compile or link", what);
    if (o->build_log) {
        str_addf(s, "; the end of %s follows\n", o->build_log);
        add_log_excerpt(s, o->build_log);
    } else {
        str_add(s, " (run make and read its errors)\n");
    }
}

/* 0 when the gpu suite's summary line ("gpu: P passed, F failed, S skipped", the last one in
   its log) says that no test passed or that some were skipped (no device); else 1, also when
   there is no such line. */
static int suite_ran_tests(const char *log)
{
    char *text = slurp(log, NULL);
    if (!text) return 1;
    unsigned passed = 1, skipped = 0;
    for (char *p = text; (p = strstr(p, "gpu: ")); p++) {
        unsigned a, c;
        if ((p == text || p[-1] == '\n') &&
            sscanf(p, "gpu: %u passed, %*u failed, %u skipped", &a, &c) == 2) {
            passed = a;
            skipped = c;
        }
    }
    free(text);
    return passed > 0 && skipped == 0;
}

/* ---- one stage ------------------------------------------------------------- */

/* Which ops the stage program lists (its --list, second column). */
static void list_ops(const grade_opts *o, const char *stage, int *sum, int *rowsum, int *softmax)
{
    char bin[512], log[512], msg[64];
    snprintf(bin, sizeof bin, "%s/%s", o->build, stage);
    snprintf(log, sizeof log, "%s/logs/%s_list.log", o->out, stage);
    char *argv[] = {bin, "--list", NULL};
    child_result r = run_child(argv, NULL, NULL, log, 60);
    *sum = *rowsum = *softmax = 0;
    if (!describe(&r, 60, msg, sizeof msg)) return;
    char *text = slurp(log, NULL);
    if (!text) return;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char name[128], op[64];
        if (strncmp(line, "  ", 2) != 0 || sscanf(line, "%127s %63s", name, op) != 2) continue;
        *sum |= strcmp(op, "sum") == 0;
        *rowsum |= strcmp(op, "rowsum") == 0;
        *softmax |= strcmp(op, "softmax") == 0 || strcmp(op, "logsoftmax") == 0;
    }
    free(text);
}

/* ---- the sanitizer test ---------------------------------------------------- */

/* The tools, in the order the test runs them; --sanitizers picks a subset. */
static const char *const sanitizer_tools[] = {"memcheck", "racecheck", "synccheck", "initcheck"};
#define N_SANITIZER_TOOLS 4
#define ALL_SANITIZER_TOOLS 0xFu

/* The columns of the sanitizer test's matrices (sanitizer_sizes gives the rows and n). */
#define SAN_ROW_COLS  "1,33,2051"
#define SAN_SOFT_COLS "1,33,1025"
#define SAN_REPORT_LINES 8

enum { HAS_SUM = 1, HAS_ROWSUM = 2, HAS_SOFTMAX = 4, HAS_LOGSOFTMAX = 8 };

/* The ops the stage program lists (its --list, second column), as HAS_* bits; 0 when it
   cannot be listed. */
static unsigned list_op_mask(const grade_opts *o, const char *stage)
{
    char bin[512], log[512], msg[64];
    snprintf(bin, sizeof bin, "%s/%s", o->build, stage);
    snprintf(log, sizeof log, "%s/logs/%s_list.log", o->out, stage);
    char *argv[] = {bin, "--list", NULL};
    child_result r = run_child(argv, NULL, NULL, log, 60);
    if (!describe(&r, 60, msg, sizeof msg)) return 0;
    char *text = slurp(log, NULL);
    if (!text) return 0;
    unsigned mask = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char name[128], op[64];
        if (strncmp(line, "  ", 2) != 0 || sscanf(line, "%127s %63s", name, op) != 2) continue;
        if (!strcmp(op, "sum")) mask |= HAS_SUM;
        else if (!strcmp(op, "rowsum")) mask |= HAS_ROWSUM;
        else if (!strcmp(op, "softmax")) mask |= HAS_SOFTMAX;
        else if (!strcmp(op, "logsoftmax")) mask |= HAS_LOGSOFTMAX;
    }
    free(text);
    return mask;
}

/* Runs one command under compute-sanitizer (argv: its arguments after the tool's options)
   as part of the sanitizer test: appends the command and how it ended to s and, on a finding,
   the tool's first report (else, on a failure, the end of the output). Returns 1 when the
   tool found nothing and the program passed; sets *timed_out, adds the run time to *seconds,
   and on a failure puts how it ended in why. */
static int run_sanitizer_step(str_t *s, const grade_opts *o, const char *tool, const char *env1,
                              const char *env2, char *const argv[], const char *log,
                              int *timed_out, double *seconds, char *why, size_t why_len)
{
    char *full[40];
    int k = 0;
    if (env1) {
        full[k++] = "env";
        full[k++] = (char *)env1;
        if (env2) full[k++] = (char *)env2;
    }
    full[k++] = (char *)o->sanitizer;
    full[k++] = "--tool";
    full[k++] = (char *)tool;
    full[k++] = "--error-exitcode";
    full[k++] = "1";
    full[k++] = "--print-limit"; /* printing thousands of reports costs minutes */
    full[k++] = "10";
    full[k++] = "--show-backtrace";
    full[k++] = "device";
    for (int i = 0; argv[i] && k < 39; i++) full[k++] = argv[i];
    full[k] = NULL;
    add_command_line(s, NULL, full);
    child_result r = run_child(full, NULL, NULL, log, o->t_check);
    char *text = slurp(log, NULL);
    int found = text ? sanitizer_findings(text) : -1;
    char how[128], msg[192];
    int ok = describe(&r, o->t_check, how, sizeof how);
    snprintf(msg, sizeof msg, "%s", how);
    if (r.timed_out) {
        ok = 0;
    } else if (found > 0) {
        ok = 0;
        snprintf(msg, sizeof msg, "%s found %d %s%s", tool, found,
                 !strcmp(tool, "racecheck") ? "hazard" : "error", found == 1 ? "" : "s");
    } else if (!ok) {
        snprintf(msg, sizeof msg, "the program failed under %s: %s", tool, how);
    } else if (found < 0) {
        ok = 0;
        snprintf(msg, sizeof msg, "%s wrote no summary: it did not finish", tool);
    }
    if (ok) str_addf(s, "%s: nothing found (%.1f s)\n", tool, r.seconds);
    else str_addf(s, "%s (%.1f s)\n", msg, r.seconds);
    if (!ok && text) {
        char *rep = found > 0 ? sanitizer_report(text, SAN_REPORT_LINES) : NULL;
        if (rep && rep[0]) str_add(s, rep);
        else add_log_excerpt(s, log);
        free(rep);
    }
    if (!ok && !why[0]) snprintf(why, why_len, "%s", msg);
    free(text);
    *timed_out = r.timed_out;
    *seconds += r.seconds;
    return ok;
}

/* The sanitizer test: every tool of o->tools over every variant of the stage with
   --check-only at the sizes of sanitizer_sizes (the GPU's SM count from the standard run's
   CSV), and memcheck over the gpu suite's quick mode (GPU_TEST_QUICK=1), which is where
   pointers that are not 16-byte aligned are passed. Stops at the first finding. Not run when
   an earlier test of the stage timed out. Returns 1 when it passed. */
static int sanitizer_test(const grade_opts *o, const correct_rule *cr, const char *stage,
                          const char *csv_text, int built, int suite_built, int hung,
                          tests_t *ts)
{
    str_t s = {0};
    int ok = 1, to = 0;
    double secs = 0;
    char why[200] = "", note[240], bin[512], suite[512], log[512];
    snprintf(bin, sizeof bin, "%s/%s", o->build, stage);
    snprintf(suite, sizeof suite, "%s/test_gpu", o->build);
    if (!built) {
        ok = 0;
        add_not_built(&s, o, bin);
        snprintf(why, sizeof why, "not built");
    } else if (hung) {
        ok = 0;
        str_add(&s, "not run: an earlier test of this stage timed out, and a kernel that does "
                    "not return would time out here too\n");
        snprintf(why, sizeof why, "not run (an earlier test timed out)");
    } else {
        int sms = csv_text ? csv_sm_count(csv_text) : 0;
        char n_sum[64], rows[32];
        sanitizer_sizes(sms, n_sum, sizeof n_sum, rows, sizeof rows);
        if (sms > 0)
            str_addf(&s, "compute-sanitizer on every variant, at sizes where every loop runs more "
                     "than once on this GPU's %d SMs\n", sms);
        else
            str_add(&s, "compute-sanitizer on every variant, at sizes where every loop runs more "
                        "than once on 132 SMs (the standard run named no SM count)\n");
        unsigned ops = list_op_mask(o, stage);
        char *runs[4][12];
        int n_runs = 0;
        if (ops & HAS_SUM) {
            char *r[] = {bin, "--check-only", "--op", "sum", "-n", n_sum, NULL};
            memcpy(runs[n_runs++], r, sizeof r);
        }
        if (ops & HAS_ROWSUM) {
            char *r[] = {bin, "--check-only", "--op", "rowsum", "--rows", rows, "--cols",
                         SAN_ROW_COLS, NULL};
            memcpy(runs[n_runs++], r, sizeof r);
        }
        if ((ops & (HAS_SOFTMAX | HAS_LOGSOFTMAX)) && !(ops & HAS_ROWSUM)) {
            /* one run covers softmax and log-softmax */
            char *r[] = {bin, "--check-only", "--rows", rows, "--cols", SAN_SOFT_COLS, NULL};
            memcpy(runs[n_runs++], r, sizeof r);
        } else {
            if (ops & HAS_SOFTMAX) {
                char *r[] = {bin, "--check-only", "--op", "softmax", "--rows", rows, "--cols",
                             SAN_SOFT_COLS, NULL};
                memcpy(runs[n_runs++], r, sizeof r);
            }
            if (ops & HAS_LOGSOFTMAX) {
                char *r[] = {bin, "--check-only", "--op", "logsoftmax", "--rows", rows, "--cols",
                             SAN_SOFT_COLS, NULL};
                memcpy(runs[n_runs++], r, sizeof r);
            }
        }
        if (n_runs == 0) {
            ok = 0;
            str_add(&s, "the program lists no variant of an op this test knows (sum, rowsum, "
                        "softmax, logsoftmax)\n");
            snprintf(why, sizeof why, "no variants listed");
        }
        char stages_env[GRADE_NAME_MAX + 32];
        snprintf(stages_env, sizeof stages_env, "GPU_TEST_STAGES=%s", stage);
        for (int t = 0; t < N_SANITIZER_TOOLS && ok; t++) {
            if (!(o->tools & (1u << t))) continue;
            const char *tool = sanitizer_tools[t];
            for (int i = 0; i < n_runs && ok; i++) {
                snprintf(log, sizeof log, "%s/logs/%s_%s_%d.log", o->out, stage, tool, i + 1);
                ok = run_sanitizer_step(&s, o, tool, NULL, NULL, runs[i], log, &to, &secs, why,
                                        sizeof why);
            }
            /* the program always allocates its own, aligned buffers: the gpu suite's quick mode
               passes pointers off 16-byte boundaries */
            if (ok && t == 0 && suite_built) {
                char *r[] = {suite, NULL};
                snprintf(log, sizeof log, "%s/logs/%s_%s_suite.log", o->out, stage, tool);
                ok = run_sanitizer_step(&s, o, tool, "GPU_TEST_QUICK=1", stages_env, r, log, &to,
                                        &secs, why, sizeof why);
            }
        }
        if (!ok && n_runs)
            str_add(&s, "(the sanitizer stops at its first finding; the runs after it were "
                        "not made)\n");
    }
    if (ok) snprintf(note, sizeof note, "passed (%.0f s)", secs);
    else snprintf(note, sizeof note, "FAILED: %s", why);
    add_test(ts, stage, "sanitizers", ok ? cr->sanitizer_points : 0, cr->sanitizer_points, ok,
             s.p, note);
    return ok;
}

static void grade_stage(const grade_opts *o, const thresholds_t *t, const char *stage, tests_t *ts)
{
    const correct_rule *cr = thresholds_correctness(t, stage);
    char bin[512], suite[512], log[512], csv[512], note[200];
    snprintf(bin, sizeof bin, "%s/%s", o->build, stage);
    snprintf(suite, sizeof suite, "%s/test_gpu", o->build);
    snprintf(csv, sizeof csv, "%s/%s.csv", o->out, stage);
    int built = access(bin, X_OK) == 0, suite_built = access(suite, X_OK) == 0;
    int correct = 1, hung = 0; /* hung: a test timed out */

    /* (a) the gpu suite, filtered to this stage */
    {
        str_t s = {0};
        int ok = 0, to = 0;
        double secs = 0;
        char why[160] = "";
        if (!suite_built) add_not_built(&s, o, suite);
        else {
            snprintf(log, sizeof log, "%s/logs/%s_suite.log", o->out, stage);
            char *argv[] = {suite, NULL};
            ok = run_step(&s, argv, "GPU_TEST_STAGES", stage, log, o->t_suite, &to, &secs,
                          why, sizeof why);
            if (ok && !suite_ran_tests(log)) {
                str_add(&s, "but it ran no test (its summary line says none passed or some were "
                            "skipped): not a pass\n");
                add_log_excerpt(&s, log);
                snprintf(why, sizeof why, "no test ran");
                ok = 0;
            }
        }
        if (ok) snprintf(note, sizeof note, "passed (%.0f s)", secs);
        else snprintf(note, sizeof note, "FAILED: %s", !suite_built ? "not built" : why);
        add_test(ts, stage, "gpu suite", ok ? cr->suite_points : 0, cr->suite_points, ok, s.p,
                 note);
        correct &= ok;
        hung |= to;
    }

    /* (b) the program's own check: default size, then the awkward sizes of make check */
    {
        str_t s = {0};
        int ok = 1, to = 0;
        double secs = 0;
        char why[160] = "";
        if (!built) {
            ok = 0;
            add_not_built(&s, o, bin);
        } else {
            int has_sum, has_rowsum, has_softmax;
            list_ops(o, stage, &has_sum, &has_rowsum, &has_softmax);
            char *cmds[5][12];
            int n = 0;
            char *c0[] = {bin, "--check-only", NULL};
            char *c1[] = {bin, "--check-only", "--op", "sum", "-n", CHECK_SUM_N, NULL};
            char *c2[] = {bin, "--check-only", "--op", "rowsum", "--rows", "7", "--cols",
                          CHECK_ROW_COLS, NULL};
            char *c3[] = {bin, "--check-only", "--rows", "37", "--cols", CHECK_SOFT_COLS, NULL};
            char *c4[] = {bin, "--check-only", "--rows", "1", "--cols", CHECK_SOFT_LONG, NULL};
            memcpy(cmds[n++], c0, sizeof c0);
            if (has_sum) memcpy(cmds[n++], c1, sizeof c1);
            if (has_rowsum) memcpy(cmds[n++], c2, sizeof c2);
            if (has_softmax) { memcpy(cmds[n++], c3, sizeof c3); memcpy(cmds[n++], c4, sizeof c4); }
            for (int i = 0; i < n; i++) {
                snprintf(log, sizeof log, "%s/logs/%s_check_%d.log", o->out, stage, i + 1);
                ok &= run_step(&s, cmds[i], NULL, NULL, log, o->t_check, &to, &secs, why,
                               sizeof why);
                if (to && i + 1 < n) {
                    str_add(&s, "(the remaining sizes were not run: this test has failed "
                                "already)\n");
                    break;
                }
            }
        }
        if (ok) snprintf(note, sizeof note, "passed (%.0f s)", secs);
        else snprintf(note, sizeof note, "FAILED: %s", !built ? "not built" : why);
        add_test(ts, stage, "program check, awkward sizes", ok ? cr->check_points : 0,
                 cr->check_points, ok, s.p, note);
        correct &= ok;
        hung |= to;
    }

    /* (c) the standard size, checked and timed; its CSV feeds the performance tests */
    char *csv_text = NULL;
    {
        str_t s = {0};
        int ok = 0, to = 0;
        double secs = 0;
        char why[160] = "";
        remove(csv);
        if (!built) add_not_built(&s, o, bin);
        else {
            snprintf(log, sizeof log, "%s/logs/%s_run.log", o->out, stage);
            char *argv[] = {bin, "--csv", csv, NULL};
            ok = run_step(&s, argv, NULL, NULL, log, o->t_run, &to, &secs, why, sizeof why);
            csv_text = slurp(csv, NULL);
            size_t rows = 0, failed = 0;
            if (ok && (!csv_text || csv_count(csv_text, stage, &rows, &failed) != 0 || rows == 0)) {
                str_addf(&s, "but %s holds no result row of %s\n", csv, stage);
                snprintf(why, sizeof why, "no result rows");
                ok = 0;
            } else if (ok && failed) {
                str_addf(&s, "but %zu of its %zu rows in %s have check FAIL\n", failed, rows, csv);
                snprintf(why, sizeof why, "%zu rows with check FAIL", failed);
                ok = 0;
            }
            if (!ok) str_addf(&s, "(full output: %s)\n", log);
        }
        if (ok) snprintf(note, sizeof note, "passed (%.0f s)", secs);
        else snprintf(note, sizeof note, "FAILED: %s", !built ? "not built" : why);
        add_test(ts, stage, "standard size, checked and timed", ok ? cr->run_points : 0,
                 cr->run_points, ok, s.p, note);
        correct &= ok;
        hung |= to;
    }

    /* (d) compute-sanitizer over every variant: a race or an uninitialised read that the checks
       cannot see fails the stage's correctness */
    if (o->tools)
        correct &= sanitizer_test(o, cr, stage, csv_text, built, suite_built, hung, ts);

    /* performance: each rule of this stage against the standard run's CSV */
    for (size_t i = 0; i < t->n_perf; i++) {
        const perf_rule *pr = &t->perf[i];
        if (strcmp(pr->stage, stage) != 0) continue;
        char label[160];
        snprintf(label, sizeof label, "performance %s %s %s", pr->variant, pr->op, pr->dtype);
        str_t s = {0};
        csv_hit hit = {0};
        int found = csv_text ? csv_find(csv_text, stage, pr->variant, pr->op, pr->dtype, &hit) : 0;
        double score = 0;
        if (found != 1) {
            str_addf(&s, "no row for %s %s %s %s in the standard run (%s)%s\n", stage, pr->variant,
                     pr->op, pr->dtype, csv, correct ? "; does tools/thresholds.txt name a variant "
                     "this stage does not have?" : ": the run failed");
            snprintf(note, sizeof note, "FAILED: not measured");
        } else {
            score = perf_score(pr->points, hit.pct_of_ceiling, pr->pct, correct);
            str_addf(&s, "%.1f%% of the measured ceiling (%.0f of %.0f GB/s); full marks at %.1f%% "
                     "(tools/thresholds.txt line %d)\n", hit.pct_of_ceiling, hit.gbps,
                     hit.ceiling_gbps, pr->pct, pr->line);
            if (!correct) {
                str_add(&s, "no points: the stage is not correct (see its correctness tests)\n");
                snprintf(note, sizeof note, "0: stage not correct (%.1f%% of ceiling)",
                         hit.pct_of_ceiling);
            } else {
                snprintf(note, sizeof note, "%s: %.1f%% of ceiling, full at %.1f%%",
                         hit.pct_of_ceiling >= pr->pct ? "passed" : "partial", hit.pct_of_ceiling,
                         pr->pct);
            }
        }
        int passed = found == 1 && correct && hit.pct_of_ceiling >= pr->pct;
        add_test(ts, stage, label, score, pr->points, passed, s.p, note);
    }
    free(csv_text);
}

/* ---- results.json and the table -------------------------------------------- */

static void put_json_string(FILE *f, const char *s)
{
    char *q = json_string(s, strlen(s));
    if (!q) {
        fprintf(stderr, "grade: out of memory\n");
        exit(1);
    }
    fputs(q, f);
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
    int ws = 5, wt = 4;
    for (size_t i = 0; i < ts->n; i++) {
        int a = (int)strlen(ts->t[i].stage), b = (int)strlen(ts->t[i].label);
        if (a > ws) ws = a;
        if (b > wt) wt = b;
    }
    printf("\n%-*s  %-*s  %13s  %s\n", ws, "stage", wt, "test", "score", "status");
    for (size_t i = 0; i < ts->n; i++) {
        const test_rec *t = &ts->t[i];
        char sc[32];
        snprintf(sc, sizeof sc, "%.2f/%.2f", t->score, t->max);
        printf("%-*s  %-*s  %13s  %s\n", ws, t->stage, wt, t->label, sc, t->note);
    }
    char sc[32];
    snprintf(sc, sizeof sc, "%.2f/%.2f", total, max);
    printf("%-*s  %-*s  %13s\n", ws, "total", wt, "", sc);
}

/* ---- main ------------------------------------------------------------------ */

static int cmp_names(const void *a, const void *b) { return strcmp(a, b); }

/* Every NN_name folder of the current directory, sorted. */
static void find_stages(grade_opts *o)
{
    DIR *d = opendir(".");
    struct dirent *e;
    if (!d) return;
    while ((e = readdir(d)) && o->n_stages < MAX_STAGES) {
        struct stat st;
        if (is_stage_name(e->d_name) && strlen(e->d_name) < GRADE_NAME_MAX &&
            stat(e->d_name, &st) == 0 && S_ISDIR(st.st_mode))
            strcpy(o->stages[o->n_stages++], e->d_name);
    }
    closedir(d);
    qsort(o->stages, o->n_stages, sizeof o->stages[0], cmp_names);
}

static int usage(const char *prog, const char *why)
{
    if (why) fprintf(stderr, "grade: %s\n", why);
    fprintf(stderr,
            "usage: %s [--stages a,b] [--thresholds FILE] [--build DIR] [--out DIR]\n"
            "       [--build-log FILE] [--timeout-suite S] [--timeout-check S] [--timeout-run S]\n"
            "       [--sanitizers memcheck,racecheck,synccheck,initcheck|none]\n"
            "       [--compute-sanitizer PATH] [--probe] [--no-gpu-probe]\n"
            "Run from the repository root (or a generated assignment's root).\n", prog);
    return 2;
}

static int parse_seconds(const char *s, int *out)
{
    double x;
    if (parse_number(s, 1, 86400, &x)) return -1;
    *out = (int)x;
    return 0;
}

/* Parses --sanitizers: "none", or a comma list of sanitizer_tools. Returns 0, or -1. */
static int parse_tools(const char *v, unsigned *tools)
{
    if (!strcmp(v, "none")) {
        *tools = 0;
        return 0;
    }
    char buf[256];
    if (snprintf(buf, sizeof buf, "%s", v) >= (int)sizeof buf) return -1;
    unsigned mask = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int found = 0;
        for (int t = 0; t < N_SANITIZER_TOOLS; t++)
            if (!strcmp(tok, sanitizer_tools[t])) { mask |= 1u << t; found = 1; }
        if (!found) return -1;
    }
    if (!mask) return -1;
    *tools = mask;
    return 0;
}

/* Finds compute-sanitizer when the sanitizer test runs: --compute-sanitizer, else the PATH,
   else /usr/local/cuda/bin. Returns 0, or 3 with one line on stderr when there is none. */
static int find_sanitizer(grade_opts *o)
{
    static char found[4096];
    if (!o->tools) return 0;
    if (o->sanitizer) {
        if (access(o->sanitizer, X_OK) == 0) return 0;
        fprintf(stderr, "grade: --compute-sanitizer %s: no such program\n", o->sanitizer);
        return 3;
    }
    const char *path = getenv("PATH");
    char dirs[4096];
    snprintf(dirs, sizeof dirs, "%s:/usr/local/cuda/bin", path ? path : "");
    for (char *d = strtok(dirs, ":"); d; d = strtok(NULL, ":")) {
        if (!*d) continue;
        snprintf(found, sizeof found, "%s/compute-sanitizer", d);
        if (access(found, X_OK) == 0) {
            o->sanitizer = found;
            return 0;
        }
    }
    fprintf(stderr, "grade: compute-sanitizer not found (PATH, /usr/local/cuda/bin): the sanitizer "
            "test needs it (it comes with the CUDA toolkit); name it with --compute-sanitizer "
            "PATH, or grade without that test: --sanitizers none\n");
    return 3;
}

/* Probes for a GPU with `nvidia-smi -L`. Returns 1 and the first GPU line (without its
   UUID) in name, or 0. */
static int probe_gpu(const grade_opts *o, char *name, size_t n)
{
    char log[512];
    snprintf(log, sizeof log, "%s/logs/nvidia-smi.log", o->out);
    char *argv[] = {"nvidia-smi", "-L", NULL};
    child_result r = run_child(argv, NULL, NULL, log, 60);
    char msg[64];
    if (!describe(&r, 60, msg, sizeof msg)) return 0;
    char *text = slurp(log, NULL);
    if (!text) return 0;
    char *gpu = strstr(text, "GPU ");
    int found = gpu != NULL;
    if (found) {
        char *end = strpbrk(gpu, "\n(");
        if (end) *end = '\0';
        size_t k = strlen(gpu);
        while (k && gpu[k - 1] == ' ') gpu[--k] = '\0';
        snprintf(name, n, "%s", gpu);
    }
    free(text);
    return found;
}

int main(int argc, char **argv)
{
    grade_opts o = {.thresholds = "tools/thresholds.txt", .build = "build", .out = "build/grade",
                    .t_suite = 180, .t_check = 90, .t_run = 180, .tools = ALL_SANITIZER_TOOLS};
    const char *stages_arg = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = 1;
        if (!strcmp(a, "--probe")) { o.probe_only = 1; takes = 0; }
        else if (!strcmp(a, "--no-gpu-probe")) { o.no_probe = 1; takes = 0; }
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(argv[0], NULL); return 0; }
        else if (!v) return usage(argv[0], "a flag is missing its value");
        else if (!strcmp(a, "--stages")) stages_arg = v;
        else if (!strcmp(a, "--thresholds")) o.thresholds = v;
        else if (!strcmp(a, "--build")) o.build = v;
        else if (!strcmp(a, "--out")) o.out = v;
        else if (!strcmp(a, "--build-log")) o.build_log = v;
        else if (!strcmp(a, "--compute-sanitizer")) o.sanitizer = v;
        else if (!strcmp(a, "--sanitizers")) {
            if (parse_tools(v, &o.tools)) {
                char why[300];
                snprintf(why, sizeof why, "--sanitizers takes a comma list of memcheck, racecheck, "
                         "synccheck and initcheck, or none; not '%s'", v);
                return usage(argv[0], why);
            }
        }
        else if (!strcmp(a, "--timeout-suite") || !strcmp(a, "--timeout-check") ||
                 !strcmp(a, "--timeout-run")) {
            int *t = a[10] == 's' ? &o.t_suite : a[10] == 'c' ? &o.t_check : &o.t_run;
            if (parse_seconds(v, t)) {
                char why[300];
                snprintf(why, sizeof why, "%s takes 1..86400 seconds, not '%s'", a, v);
                return usage(argv[0], why);
            }
        }
        else {
            char why[300];
            snprintf(why, sizeof why, "unknown flag '%s'", a);
            return usage(argv[0], why);
        }
        i += takes;
    }

    char logs[600];
    snprintf(logs, sizeof logs, "%s/logs", o.out);
    if (make_dirs(logs) != 0) {
        fprintf(stderr, "grade: cannot create %s: %s\n", logs, strerror(errno));
        return 1;
    }
    char gpu[256] = "(GPU not probed)";
    if (!o.no_probe && !probe_gpu(&o, gpu, sizeof gpu)) {
        fprintf(stderr, "grade: no NVIDIA GPU on this machine (nvidia-smi -L lists none); "
                "grading needs one\n");
        return 3;
    }
    if (o.probe_only) return find_sanitizer(&o);

    /* the thresholds, then the stages; every problem here is a usage error */
    char *text = slurp(o.thresholds, NULL);
    if (!text) {
        fprintf(stderr, "grade: cannot read %s: %s (run from the repository root)\n", o.thresholds,
                strerror(errno));
        return 2;
    }
    thresholds_t t;
    char err[512];
    int rc = thresholds_parse(text, o.thresholds, &t, err, sizeof err);
    free(text);
    if (rc != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    if (stages_arg && *stages_arg) {
        char *list = xstrdup(stages_arg);
        for (char *s = strtok(list, ", \t"); s; s = strtok(NULL, ", \t")) {
            struct stat st;
            if (!is_stage_name(s) || strlen(s) >= GRADE_NAME_MAX || stat(s, &st) != 0 ||
                !S_ISDIR(st.st_mode)) {
                fprintf(stderr, "grade: no stage folder '%s' here (run from the repository "
                        "root)\n", s);
                return 2;
            }
            if (o.n_stages == MAX_STAGES) return usage(argv[0], "too many stages");
            strcpy(o.stages[o.n_stages++], s);
        }
        free(list);
    } else {
        find_stages(&o);
    }
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

    double t0 = now_s();
    printf("grade: %zu stage%s on %s; logs in %s\n", o.n_stages, o.n_stages == 1 ? "" : "s", gpu,
           logs);
    tests_t ts = {0};
    for (size_t i = 0; i < o.n_stages; i++) grade_stage(&o, &t, o.stages[i], &ts);

    double total = 0, max = 0;
    for (size_t i = 0; i < ts.n; i++) {
        total += ts.t[i].score;
        max += ts.t[i].max;
    }
    total = round_points(total);
    max = round_points(max);
    double seconds = now_s() - t0;
    char summary[1024], results[600];
    snprintf(summary, sizeof summary, "Graded on %s in %.0f s: %.2f of %.2f points. Correctness: "
             "the gpu suite, the program's own check at awkward sizes, the standard size and "
             "compute-sanitizer (races, out-of-bounds and uninitialised reads, barriers). "
             "Performance: percent of the bandwidth ceiling measured in the same run, against "
             "the thresholds of tools/thresholds.txt (zero while a stage is not correct).",
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
