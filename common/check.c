/* SPDX-License-Identifier: MIT */
#include "check.h"
#include "parallel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Large references and checks run on every core: chunks of at least this
   many elements per thread. */
#define PAR_CHUNK ((size_t)1 << 18)
#define MAX_PARTS 64

static double sum_serial(const float *x, size_t n, double *abs_sum)
{
    /* double has 29 more mantissa bits than float: the reference error is
       far below any bound a float reduction is held to */
    double s = 0.0, a = 0.0;
    for (size_t i = 0; i < n; i++) {
        s += x[i];
        a += fabs((double)x[i]);
    }
    *abs_sum = a;
    return s;
}

typedef struct {
    const float *x;
    double part_sum[MAX_PARTS], part_abs[MAX_PARTS];
} ref_sum_ctx;

static void ref_sum_range(void *p, size_t begin, size_t end, int part)
{
    ref_sum_ctx *c = p;
    c->part_sum[part] = sum_serial(c->x + begin, end - begin, &c->part_abs[part]);
}

double ref_sum(const float *x, size_t n, double *abs_sum)
{
    ref_sum_ctx c;
    c.x = x;
    int parts = parallel_parts(n, PAR_CHUNK);
    parallel_for(n, PAR_CHUNK, ref_sum_range, &c);
    double s = 0.0, a = 0.0;
    for (int i = 0; i < parts; i++) { /* in index order: the same on every run */
        s += c.part_sum[i];
        a += c.part_abs[i];
    }
    if (abs_sum) *abs_sum = a;
    return s;
}

typedef struct {
    const float *x;
    size_t len;
    double *ref, *abs_sum;
} rows_ctx;

static void row_sums_range(void *p, size_t begin, size_t end, int part)
{
    (void)part;
    rows_ctx *c = p;
    for (size_t r = begin; r < end; r++) c->ref[r] = sum_serial(c->x + r * c->len, c->len, &c->abs_sum[r]);
}

void ref_row_sums(const float *x, size_t rows, size_t cols, double *ref, double *abs_sum)
{
    if (rows == 1) {
        ref[0] = ref_sum(x, cols, abs_sum);
        return;
    }
    rows_ctx c = {x, cols, ref, abs_sum};
    parallel_for(rows, PAR_CHUNK / cols + 1, row_sums_range, &c);
}

typedef struct {
    const float *x;
    size_t cols;
    int is_log;
    double *y;
} softmax_ctx;

static void softmax_range(void *p, size_t begin, size_t end, int part)
{
    (void)part;
    softmax_ctx *c = p;
    for (size_t r = begin; r < end; r++) ref_softmax_row(c->x + r * c->cols, c->cols, c->is_log, c->y + r * c->cols);
}

void ref_softmax_rows(const float *x, size_t rows, size_t cols, int is_log, double *y)
{
    softmax_ctx c = {x, cols, is_log, y};
    parallel_for(rows, PAR_CHUNK / cols + 1, softmax_range, &c);
}

void ref_softmax_row(const float *x, size_t cols, int is_log, double *y)
{
    double m = -INFINITY;
    for (size_t j = 0; j < cols; j++)
        if (x[j] > m) m = x[j];
    if (m == -INFINITY) { /* all -inf: 0/0, as PyTorch gives */
        for (size_t j = 0; j < cols; j++) y[j] = NAN;
        return;
    }
    double s = 0.0;
    for (size_t j = 0; j < cols; j++) s += exp((double)x[j] - m);
    if (is_log) {
        double ls = log(s);
        for (size_t j = 0; j < cols; j++) y[j] = ((double)x[j] - m) - ls;
    } else {
        for (size_t j = 0; j < cols; j++) y[j] = exp((double)x[j] - m) / s;
    }
}

static size_t ceil_log2(size_t n)
{
    size_t k = 0;
    while (((size_t)1 << k) < n) k++;
    return k;
}

size_t sum_chain_bound(size_t n, int sm_count)
{
    size_t warps = (size_t)(sm_count > 0 ? sm_count : 1) * 32;
    return 64 + (n + warps - 1) / warps;
}

size_t row_chain_bound(size_t cols) { return 64 + (cols + 31) / 32; }

double sum_error_bound(size_t k, size_t n, double abs_sum)
{
    return 2.0 * (double)(k + ceil_log2(n)) * U_F32 * abs_sum;
}

static check_result passed(void)
{
    check_result r = {1, 0, 0.0, 0.0, 0.0, 0.0, "value"};
    return r;
}

/* Records element i into r; returns 0 when it is out of bound. `!(err <= b)`
   is written so that a NaN error fails. */
static int judge(check_result *r, size_t i, double expected, double actual, double bound,
                 const char *what)
{
    double err = fabs(actual - expected);
    if (err > r->max_err && isfinite(expected)) r->max_err = err;
    if (!(err <= bound)) {
        if (r->ok) {
            r->ok = 0;
            r->index = i;
            r->expected = expected;
            r->actual = actual;
            r->bound = bound;
            r->what = what;
        }
        return 0;
    }
    return 1;
}

/* Merges per-chunk results in index order: the first failing chunk holds the
   first failing index; max_err is the largest of all. */
static check_result merge(const check_result *parts, int n)
{
    check_result r = parts[0];
    for (int i = 1; i < n; i++) {
        if (parts[i].max_err > r.max_err) r.max_err = parts[i].max_err;
        if (r.ok && !parts[i].ok) {
            double m = r.max_err;
            r = parts[i];
            r.max_err = m;
        }
    }
    return r;
}

typedef struct {
    const float *gpu;
    const double *ref, *abs_sum;
    size_t len, k;
    check_result part[MAX_PARTS];
} sums_check_ctx;

static void sums_check_range(void *p, size_t begin, size_t end, int part)
{
    sums_check_ctx *c = p;
    check_result r = passed();
    for (size_t i = begin; i < end; i++)
        judge(&r, i, c->ref[i], c->gpu[i], sum_error_bound(c->k, c->len, c->abs_sum[i]), "value");
    c->part[part] = r;
}

check_result check_sums_against(const float *gpu, const double *ref, const double *abs_sum,
                                size_t count, size_t len, size_t k)
{
    sums_check_ctx *c = malloc(sizeof *c);
    if (!c) {
        fprintf(stderr, "error: out of host memory for a check\n");
        exit(3);
    }
    c->gpu = gpu; c->ref = ref; c->abs_sum = abs_sum; c->len = len; c->k = k;
    int parts = parallel_parts(count, PAR_CHUNK);
    parallel_for(count, PAR_CHUNK, sums_check_range, c);
    check_result r = merge(c->part, parts);
    free(c);
    return r;
}

check_result check_sum(float gpu, const float *x, size_t n, size_t k)
{
    double abs_sum;
    double ref = ref_sum(x, n, &abs_sum);
    return check_sums_against(&gpu, &ref, &abs_sum, 1, n, k);
}

check_result check_rowsum(const float *gpu, const float *x, size_t rows, size_t cols, size_t k)
{
    check_result r = passed();
    for (size_t i = 0; i < rows; i++) {
        double abs_sum;
        double ref = ref_sum(x + i * cols, cols, &abs_sum);
        judge(&r, i, ref, gpu[i], sum_error_bound(k, cols, abs_sum), "value");
    }
    return r;
}

double softmax_row_sum_bound(size_t cols, dtype out)
{
    const double u_out = out == DT_F32 ? U_F32 : out == DT_F16 ? U_F16 : U_BF16;
    double b = 2.0 * u_out + 2.0 * (double)(row_chain_bound(cols) + ceil_log2(cols)) * U_F32;
    if (out == DT_F16) b += (double)cols * 0x1p-25;
    return b;
}

/* Relative (softmax) or scaled absolute (log-softmax) tolerance of one output type. */
static double softmax_rtol(dtype out)
{
    return out == DT_F32 ? 1e-5 : out == DT_F16 ? 1e-3 : 8e-3;
}

static check_result softmax_rows_check(const float *gpu, const double *ref, size_t r0, size_t r1, size_t cols,
                                       int is_log, dtype out)
{
    check_result r = passed();
    const double rtol = softmax_rtol(out);
    const double row_bound = softmax_row_sum_bound(cols, out);
    for (size_t i = r0; i < r1; i++) {
        const double *rr = ref + i * cols;
        const float *yr = gpu + i * cols;
        double row_sum = 0.0;
        for (size_t j = 0; j < cols; j++) {
            size_t at = i * cols + j;
            double e = rr[j], a = yr[j];
            if (isnan(e)) { /* documented: an all -inf row is NaN */
                if (!isnan(a)) judge(&r, at, e, a, 0.0, "value");
                continue;
            }
            if (isinf(e)) { /* log-softmax of a -inf entry: exactly -inf */
                if (a != e) judge(&r, at, e, a, 0.0, "value");
                continue;
            }
            double bound;
            if (is_log)
                bound = rtol * fmax(1.0, fabs(e));
            else
                bound = rtol * fabs(e) + (out == DT_F32 ? 1e-6 : 1e-7);
            judge(&r, at, e, a, bound, "value");
            row_sum += a;
        }
        if (!is_log && !isnan(rr[0]) && r.ok) {
            if (!(fabs(row_sum - 1.0) <= row_bound)) {
                r.ok = 0;
                r.index = i;
                r.expected = 1.0;
                r.actual = row_sum;
                r.bound = row_bound;
                r.what = "row sum";
            }
        }
    }
    return r;
}

typedef struct {
    const float *gpu;
    const double *ref;
    size_t cols;
    int is_log;
    dtype out;
    check_result part[MAX_PARTS];
} softmax_check_ctx;

static void softmax_check_range(void *p, size_t begin, size_t end, int part)
{
    softmax_check_ctx *c = p;
    c->part[part] = softmax_rows_check(c->gpu, c->ref, begin, end, c->cols, c->is_log, c->out);
}

check_result check_softmax_against(const float *gpu, const double *ref, size_t rows, size_t cols,
                                   int is_log, dtype out)
{
    softmax_check_ctx *c = malloc(sizeof *c);
    if (!c) {
        fprintf(stderr, "error: out of host memory for a check\n");
        exit(3);
    }
    c->gpu = gpu; c->ref = ref; c->cols = cols; c->is_log = is_log; c->out = out;
    size_t min_rows = PAR_CHUNK / cols + 1;
    int parts = parallel_parts(rows, min_rows);
    parallel_for(rows, min_rows, softmax_check_range, c);
    check_result r = merge(c->part, parts);
    free(c);
    return r;
}

check_result check_softmax(const float *gpu, const float *x, size_t rows, size_t cols,
                           int is_log, dtype out)
{
    double *ref = malloc(rows * cols * sizeof *ref);
    if (!ref) {
        fprintf(stderr, "error: out of host memory for a %zux%zu reference\n", rows, cols);
        exit(3);
    }
    ref_softmax_rows(x, rows, cols, is_log, ref);
    check_result r = check_softmax_against(gpu, ref, rows, cols, is_log, out);
    free(ref);
    return r;
}

check_result check_exact(const float *gpu, const double *expected, size_t count)
{
    check_result r = passed();
    for (size_t i = 0; i < count; i++)
        judge(&r, i, expected[i], gpu[i], 0.0, "value");
    return r;
}

check_result check_sum_exact(float gpu, const float *x, size_t n)
{
    double ref = ref_sum(x, n, NULL);
    return check_exact(&gpu, &ref, 1);
}

void format_check_failure(const check_result *r, char *buf, size_t len)
{
    if (r->ok) {
        snprintf(buf, len, "ok (max |err| %.3g)", r->max_err);
        return;
    }
    if (r->what && strcmp(r->what, "guard") == 0) {
        snprintf(buf, len, "wrote past the end of its output: the guard bytes after its last element "
                           "(index %zu) changed", r->index ? r->index - 1 : 0);
        return;
    }
    snprintf(buf, len, "first bad %s at index %zu: expected %.9g, got %.9g (|err| %.3g > bound %.3g)",
             r->what, r->index, r->expected, r->actual, fabs(r->actual - r->expected), r->bound);
}
