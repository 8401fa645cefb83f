/* SPDX-License-Identifier: MIT */
/* results_read.c: the results CSVs read once into the aggregate of results.h. */
#include "results.h"
#include "cli.h"
#include "report.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const res_file_names[F_COUNT] = {
    "run.csv", "sweep.csv", "rows.csv", "softmax.csv", "shapes.csv", "peer.csv",
};

/* ---- text ---------------------------------------------------------------- */

void *res_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return q;
}

static void sb_vprintf(sbuf *b, const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int k = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (k < 0) return;
    if (b->n + (size_t)k + 1 > b->cap) {
        b->cap = b->cap ? b->cap : 256;
        while (b->cap < b->n + (size_t)k + 1) b->cap *= 2;
        b->s = res_xrealloc(b->s, b->cap);
    }
    vsnprintf(b->s + b->n, (size_t)k + 1, fmt, ap);
    b->n += (size_t)k;
}

void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(b, fmt, ap);
    va_end(ap);
}

void sb_add(sbuf *b, const char *text) { sb_printf(b, "%s", text); }

void sb_free(sbuf *b)
{
    free(b->s);
    *b = (sbuf){0};
}

int res_run(const char *fmt, ...)
{
    sbuf b = {0};
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&b, fmt, ap);
    va_end(ap);
    fflush(stdout);
    int st = system(b.s);
    if (st != 0) fprintf(stderr, "failed: %s\n", b.s);
    sb_free(&b);
    return st;
}

char *res_temp_dir(char *buf, size_t len)
{
    const char *td = getenv("TMPDIR");
    snprintf(buf, len, "%s/results.XXXXXX", td && *td ? td : "/tmp");
    if (mkdtemp(buf)) return buf;
    fprintf(stderr, "results: cannot make a temporary folder (%s): %s\n", buf, strerror(errno));
    return NULL;
}

void res_pow2(size_t n, char *buf, size_t len)
{
    int k = 0;
    while (k < 63 && ((size_t)1 << k) < n) k++;
    if (n > 0 && ((size_t)1 << k) == n)
        snprintf(buf, len, "2^%d", k);
    else
        snprintf(buf, len, "%zu", n);
}

char *res_read_all(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    sbuf b = {0};
    char chunk[8192];
    size_t k;
    sb_add(&b, "");
    while ((k = fread(chunk, 1, sizeof chunk, fp)) > 0) sb_printf(&b, "%.*s", (int)k, chunk);
    int bad = ferror(fp);
    fclose(fp);
    if (bad) {
        sb_free(&b);
        errno = EIO;
    }
    return b.s;
}

/* ---- numbers and lookups -------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i])) v[m++] = v[i];
    if (m == 0) return NAN;
    qsort(v, m, sizeof *v, cmp_double);
    return (m % 2) ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
}

int res_is_ref(const char *stage)
{
    return strcmp(stage, "baseline") == 0 || strcmp(stage, "peer") == 0;
}

int res_has(const res_entry *e) { return e && e->n_ok > 0 && !isnan(e->gbps); }

const char *res_torch_variant(op_kind op)
{
    static const char *const name[] = {NULL, "torch_sum", "torch_softmax", "torch_log_softmax"};
    return op <= OP_LOGSOFTMAX ? name[op] : NULL;
}

size_t res_largest_sum_n(const res_file *f)
{
    size_t n = 0;
    for (size_t i = 0; i < f->n; i++)
        if (f->e[i].op == OP_SUM && !res_is_ref(f->e[i].stage) && res_has(&f->e[i]) &&
            f->e[i].cols > n)
            n = f->e[i].cols;
    return n;
}

const res_entry *res_find(const res_file *f, const char *gpu, const char *stage,
                          const char *variant, int op, dtype dt, size_t rows, size_t cols)
{
    for (size_t i = 0; i < f->n; i++) {
        const res_entry *e = &f->e[i];
        if ((rows == RES_ANY || e->rows == rows) && e->cols == cols && e->dt == dt &&
            (op < 0 || (int)e->op == op) && strcmp(e->variant, variant) == 0 &&
            strcmp(e->stage, stage) == 0 && (!gpu || strcmp(e->gpu, gpu) == 0))
            return e;
    }
    return NULL;
}

/* ---- reading one results CSV ----------------------------------------------- */

enum { NV = 4 }; /* the values kept per ok row: median_us, gbps, pct_of_ceiling, ceiling_gbps */

/* Splits line in place at commas into at most max fields; returns the count (max + 1 when
   there are more). */
static size_t split_commas(char *line, char **field, size_t max)
{
    size_t n = 0;
    for (char *p = line; n <= max;) {
        if (n < max) field[n] = p;
        n++;
        char *c = strchr(p, ',');
        if (!c) break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

/* The value of a "# key: value" comment line into out (first one wins). */
static void comment_value(const char *line, const char *key, char *out, size_t len)
{
    const char *p = line + strspn(line, "# \t");
    size_t k = strlen(key);
    if (out[0] || strncmp(p, key, k) != 0 || p[k] != ':') return;
    snprintf(out, len, "%s", p + k + 1 + strspn(p + k + 1, " \t"));
}

static void add_row(res_file *f, const char *gpu, const result_row *r)
{
    res_entry *e = NULL;
    for (size_t i = f->n; i-- > 0 && !e;) {
        res_entry *c = &f->e[i];
        if (c->rows == r->rows && c->cols == r->cols && c->op == r->op && c->dt == r->dt &&
            strcmp(c->variant, r->variant) == 0 && strcmp(c->stage, r->stage) == 0 &&
            strcmp(c->gpu, gpu) == 0)
            e = c;
    }
    if (!e) {
        if (f->n == f->cap) f->e = res_xrealloc(f->e, (f->cap = 2 * f->cap + 64) * sizeof *f->e);
        e = &f->e[f->n++];
        memset(e, 0, sizeof *e);
        snprintf(e->gpu, sizeof e->gpu, "%s", gpu);
        snprintf(e->stage, sizeof e->stage, "%s", r->stage);
        snprintf(e->variant, sizeof e->variant, "%s", r->variant);
        e->op = r->op;
        e->dt = r->dt;
        e->rows = r->rows;
        e->cols = r->cols;
    }
    if (!r->ok) {
        e->n_fail++;
        f->n_fail_rows++;
        return;
    }
    if (e->nv + NV > e->capv)
        e->v = res_xrealloc(e->v, (e->capv = 2 * e->capv + NV) * sizeof *e->v);
    double row_v[NV] = {r->median_us, r->gbps, r->pct_of_ceiling, r->ceiling_gbps};
    memcpy(e->v + e->nv, row_v, sizeof row_v);
    e->nv += NV;
    e->n_ok++;
}

/* Takes the medians of every entry and frees what reading needed. */
static void finish_file(res_file *f)
{
    for (size_t i = 0; i < f->n; i++) {
        res_entry *e = &f->e[i];
        double *col = res_xrealloc(NULL, (e->n_ok + 1) * sizeof *col);
        double *out[NV] = {&e->median_us, &e->gbps, &e->pct, &e->ceiling};
        for (size_t c = 0; c < NV; c++) {
            for (size_t k = 0; k < e->n_ok; k++) col[k] = e->v[NV * k + c];
            *out[c] = median(col, e->n_ok);
        }
        free(col);
        free(e->v);
        e->v = NULL;
        e->nv = e->capv = 0;
        e->x_cub = e->x_gemv = e->x_torch = e->pct_floor = NAN;
    }
}

int res_read_text(const char *text, const char *name, res_file *f, char *err, size_t err_len)
{
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", name);
    char first_gpu[64] = "", line[1100];
    size_t lineno = 0;
    int header = 0, rc = 0;
    for (const char *p = text; *p && rc == 0;) {
        size_t n = strcspn(p, "\n");
        lineno++;
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line - 1 ? n : sizeof line - 1), p);
        p += n + (p[n] == '\n');
        line[strcspn(line, "\r")] = '\0';
        const char *q = line + strspn(line, " \t");
        if (*q == '\0') continue;
        if (*q == '#') {
            comment_value(q, "gpu", f->gpu, sizeof f->gpu);
            comment_value(q, "date", f->date, sizeof f->date);
            continue;
        }
        if (strcmp(q, CSV_HEADER) == 0) { /* a file appended to after a copy may repeat it */
            header = 1;
            continue;
        }
        result_row r;
        char gpu[64];
        rc = -1;
        if (!header)
            snprintf(err, err_len, "%s:%zu: expected the header '%s'", name, lineno, CSV_HEADER);
        else if (n >= 1024) /* csv_parse_row's limit */
            snprintf(err, err_len, "%s:%zu: line longer than 1023 characters", name, lineno);
        else if (csv_parse_row(q, &r, gpu, sizeof gpu) != 0)
            snprintf(err, err_len,
                     "%s:%zu: not a row of the results schema (15 fields; op sum, rowsum, softmax, "
                     "logsoftmax or allreduce; dtype f32, f16 or bf16; numbers where numbers go; "
                     "check ok or FAIL)",
                     name, lineno);
        else {
            if (!first_gpu[0]) snprintf(first_gpu, sizeof first_gpu, "%s", gpu);
            add_row(f, gpu, &r);
            rc = 0;
        }
    }
    if (rc == 0 && lineno == 0) return 1; /* empty (a run that wrote nothing): as if missing */
    if (rc == 0 && !header) {
        snprintf(err, err_len, "%s:%zu: no header row", name, lineno);
        rc = -1;
    }
    finish_file(f);
    if (rc) {
        free(f->e);
        memset(f, 0, sizeof *f);
        return rc;
    }
    f->present = 1;
    if (!f->gpu[0]) snprintf(f->gpu, sizeof f->gpu, "%s", first_gpu[0] ? first_gpu : "unknown GPU");
    return 0;
}

/* The text of path in *text; 0, 1 when it does not exist, -1 (err) when it cannot be read. */
static int open_text(const char *path, char **text, char *err, size_t err_len)
{
    if ((*text = res_read_all(path))) return 0;
    if (errno == ENOENT) return 1;
    snprintf(err, err_len, "%s:0: cannot read: %s", path, strerror(errno));
    return -1;
}

int res_load_file(const char *path, res_file *f, char *err, size_t err_len)
{
    char *text = NULL;
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    memset(f, 0, sizeof *f);
    int rc = open_text(path, &text, err, err_len);
    if (rc == 0) rc = res_read_text(text, path, f, err, err_len);
    free(text);
    snprintf(f->name, sizeof f->name, "%s", base);
    return rc;
}

/* ---- profile.csv ------------------------------------------------------------ */

#define PROF_HEADER                                                      \
    "gpu,stage,variant,op,dtype,rows,cols,duration_us,dram_pct_of_peak," \
    "achieved_occupancy_pct,registers_per_thread,thread_inst_per_inst,"  \
    "shared_bank_conflicts_per_request,global_ld_sectors_per_request,bytes_in_flight_per_sm"

/* Reads profile.csv (DESIGN.md's header, in that order). Same returns as res_load_file. */
static int prof_load_file(const char *path, prof_file *p, char *err, size_t err_len)
{
    memset(p, 0, sizeof *p);
    char *text, *next, *f[16];
    int rc = open_text(path, &text, err, err_len), header = 0;
    if (rc) return rc;
    size_t lineno = 0;
    for (char *line = text; rc == 0 && *line; line = next) {
        next = line + strcspn(line, "\n");
        if (*next) *next++ = '\0';
        lineno++;
        line[strcspn(line, "\r")] = '\0';
        if (*line == '#') comment_value(line, "gpu", p->gpu, sizeof p->gpu);
        if (*line == '#' || !*line) continue;
        if (strcmp(line, PROF_HEADER) == 0) {
            header = 1;
            continue;
        }
        prof_entry e = {.rows = 0};
        char *end = NULL;
        int bad = !header || split_commas(line, f, 15) != 15;
        for (int m = 0; !bad && m < PM_COUNT; m++) { /* empty, "-" or n/a: not measured */
            e.m[m] = strtod(f[7 + m], &end);
            if (!*f[7 + m] || !strcmp(f[7 + m], "-") || !strcasecmp(f[7 + m], "n/a"))
                e.m[m] = NAN;
            else
                bad = *end != '\0';
        }
        if (!bad) {
            e.rows = strtoull(f[5], &end, 10);
            bad = *end || !*f[5] || !*f[1] || !*f[2];
            e.cols = strtoull(f[6], &end, 10);
            bad |= *end || !*f[6];
        }
        if (bad) {
            snprintf(err, err_len, "%s:%zu: %s", path, lineno,
                     header ? "not a row of 15 fields "
                              "(stage, variant, rows and cols given, metrics numbers, empty or n/a)"
                            : "expected the header '" PROF_HEADER "'");
            rc = -1;
            break;
        }
        snprintf(e.gpu, sizeof e.gpu, "%s", f[0]);
        snprintf(e.stage, sizeof e.stage, "%s", f[1]);
        snprintf(e.variant, sizeof e.variant, "%s", f[2]);
        snprintf(e.op, sizeof e.op, "%s", f[3]);
        snprintf(e.dt, sizeof e.dt, "%s", f[4]);
        if (p->n == p->cap) p->e = res_xrealloc(p->e, (p->cap = 2 * p->cap + 32) * sizeof *p->e);
        p->e[p->n++] = e;
    }
    free(text);
    if (rc || lineno == 0) { /* malformed, or empty: as if missing */
        free(p->e);
        memset(p, 0, sizeof *p);
        return rc ? rc : 1;
    }
    p->present = 1;
    if (!p->gpu[0]) snprintf(p->gpu, sizeof p->gpu, "%s", p->n ? p->e[0].gpu : "unknown GPU");
    return 0;
}

/* ---- the set ---------------------------------------------------------------- */

static double ratio(const res_entry *a, const res_entry *b)
{
    return (res_has(a) && res_has(b) && b->gbps > 0) ? a->gbps / b->gbps : NAN;
}

/* A baseline of the same gpu, dtype and shape as e in f: the first of the ops given that has it
   (the ceilings of a softmax shape are written under the first op the program measured). */
static const res_entry *base_of(const res_file *f, const res_entry *e, const char *variant, int op1,
                                int op2)
{
    const res_entry *b = res_find(f, e->gpu, "baseline", variant, op1, e->dt, e->rows, e->cols);
    return b ? b : res_find(f, e->gpu, "baseline", variant, op2, e->dt, e->rows, e->cols);
}

/* Fills x_cub, x_gemv, x_torch and pct_floor of every entry of s. */
static void link_set(res_set *s)
{
    const res_file *peer = &s->f[F_PEER];
    for (int k = 0; k < F_COUNT; k++) {
        res_file *f = &s->f[k];
        for (size_t i = 0; i < f->n; i++) {
            res_entry *e = &f->e[i];
            int op = (int)e->op, soft = e->op == OP_SOFTMAX || e->op == OP_LOGSOFTMAX;
            if (!soft)
                e->x_cub = ratio(
                    e, base_of(f, e, op == OP_SUM ? "cub_device_reduce" : "cub_segmented_reduce",
                               op, op));
            if (e->op == OP_ROWSUM) e->x_gemv = ratio(e, base_of(f, e, "cublas_gemv", op, op));
            const char *torch = res_torch_variant(e->op);
            if (torch) {
                const res_entry *t =
                    res_find(f, e->gpu, "peer", torch, op, e->dt, e->rows, e->cols);
                e->x_torch = ratio(
                    e, t ? t : res_find(peer, e->gpu, "peer", torch, op, e->dt, e->rows, e->cols));
            }
            const res_entry *r = soft ? base_of(f, e, "read_stream", OP_SOFTMAX, OP_LOGSOFTMAX) : 0;
            const res_entry *w =
                soft ? base_of(f, e, "write_stream", OP_SOFTMAX, OP_LOGSOFTMAX) : 0;
            if (res_has(e) && res_has(r) && res_has(w) && !res_is_ref(e->stage))
                e->pct_floor = 100 * (r->median_us + w->median_us) / e->median_us;
        }
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Stage 08's files of dir, allreduce*.csv, sorted by name; returns how many (at most max). */
static size_t ar_names(const char *dir, char **out, size_t max)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = 0, k;
    while (d && (e = readdir(d)) && n < max)
        if (!strncmp(e->d_name, "allreduce", 9) && (k = strlen(e->d_name)) >= 13 &&
            !strcmp(e->d_name + k - 4, ".csv"))
            out[n++] = strdup(e->d_name);
    if (d) closedir(d);
    qsort(out, n, sizeof *out, cmp_str);
    return n;
}

int res_load_set(const char *dir, res_set *s, char *err, size_t err_len)
{
    memset(s, 0, sizeof *s);
    snprintf(s->dir, sizeof s->dir, "%s", dir);
    char path[1024], *ar[RES_MAX_AR];
    size_t n_ar = ar_names(dir, ar, RES_MAX_AR);
    int rc = 0;
    for (int k = 0; k < F_COUNT && rc >= 0; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, res_file_names[k]);
        rc = res_load_file(path, &s->f[k], err, err_len);
        res_file *f = &s->f[k];
        size_t m = 0; /* 08's rows belong to its own files */
        for (size_t i = 0; i < f->n; i++)
            if (f->e[i].op != OP_ALLREDUCE && (f->e[i].op != OP_SUM || f->e[i].rows == 1))
                f->e[m++] = f->e[i];
        f->n = m;
    }
    for (size_t k = 0; k < n_ar; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, ar[k]);
        if (rc >= 0 && (rc = res_load_file(path, &s->ar[s->n_ar], err, err_len)) == 0) s->n_ar++;
        free(ar[k]);
    }
    snprintf(path, sizeof path, "%s/profile.csv", dir);
    if (rc < 0 || prof_load_file(path, &s->prof, err, err_len) < 0) {
        res_free(s);
        return -1;
    }
    snprintf(path, sizeof path, "%s/sanitize.txt", dir);
    s->sanitize = res_read_all(path);
    link_set(s);
    return 0;
}

void res_free(res_set *s)
{
    for (int k = 0; k < F_COUNT; k++) free(s->f[k].e);
    for (size_t k = 0; k < s->n_ar; k++) free(s->ar[k].e);
    free(s->prof.e);
    free(s->sanitize);
    memset(s, 0, sizeof *s);
}
