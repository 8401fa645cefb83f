/* SPDX-License-Identifier: MIT */
/* check.h: double-precision CPU references and the pass/fail rules of
   DESIGN.md "Checking". Every check reports the first bad element. */
#ifndef CHECK_H
#define CHECK_H

#include <stddef.h>

#include "stage.h"

/* Unit roundoff of float: 2^-24. */
#define U_F32 5.9604644775390625e-8
/* Unit roundoff of half: 2^-11. */
#define U_F16 4.8828125e-4
/* Unit roundoff of bfloat16: 2^-8. */
#define U_BF16 3.90625e-3

typedef struct {
    int ok;
    size_t index;      /* first bad output element (a row index for row properties) */
    double expected;   /* reference value at index */
    double actual;     /* GPU value at index */
    double bound;      /* allowed |error| at index */
    double max_err;    /* largest |gpu - ref| over all finite references */
    const char *what;  /* "value", "row sum", or "guard" (bytes after the output changed) */
} check_result;

/* Reference sum in double of x[0..n); *abs_sum gets sum |x_i|. Cannot fail. */
double ref_sum(const float *x, size_t n, double *abs_sum);

/* Reference softmax (log_softmax if `is_log`) of one row in double into y.
   A row whose maximum is -inf gives NaN everywhere, as PyTorch does. */
void ref_softmax_row(const float *x, size_t cols, int is_log, double *y);

/* The same for every row of x[rows, cols], on all cores: row sums into
   ref[rows] and abs_sum[rows]; softmax (or log-softmax) into y[rows*cols]. */
void ref_row_sums(const float *x, size_t rows, size_t cols, double *ref, double *abs_sum);
void ref_softmax_rows(const float *x, size_t rows, size_t cols, int is_log, double *y);

/* k of DESIGN.md's bound: the longest chain of sequential adds in one thread
   that the checker allows. Full sums: 64 + n / (32 * sm_count), i.e. any
   variant that keeps at least one warp per SM busy. Row sums: each thread of
   a row adds at most 64 + cols / 32 elements (a warp or more per long row). */
size_t sum_chain_bound(size_t n, int sm_count);
size_t row_chain_bound(size_t cols);

/* The error bound 2 (k + ceil(log2 n)) u sum|x_i| with u = 2^-24. */
double sum_error_bound(size_t k, size_t n, double abs_sum);

/* Full sum: gpu against ref_sum(x) within sum_error_bound(k, n, .). */
check_result check_sum(float gpu, const float *x, size_t n, size_t k);

/* Row sums: gpu[r] against the double sum of row r, each within its bound. */
check_result check_rowsum(const float *gpu, const float *x, size_t rows, size_t cols, size_t k);

/* Softmax / log-softmax (is_log != 0) of x[rows, cols]; gpu holds the outputs
   widened to float, out the type they were written in. Per element:
   f32  softmax |y-ref| <= 1e-6 + 1e-5|ref|,  log-softmax <= 1e-5 max(1,|ref|);
   f16  softmax <= 1e-3|ref| + 1e-7,          log-softmax <= 1e-3 max(1,|ref|);
   bf16 softmax <= 8e-3|ref| + 1e-7,          log-softmax <= 8e-3 max(1,|ref|).
   NaN references need NaN, infinite ones the same infinity. Softmax rows
   must also sum to 1 within softmax_row_sum_bound(cols, out). */
check_result check_softmax(const float *gpu, const float *x, size_t rows, size_t cols,
                           int is_log, dtype out);

/* How far a softmax row written in `out` may sum from 1: each output rounded once
   (2 u_out, plus cols half subnormal half-steps of 2^-25 for f16, whose smallest outputs
   fall below half's normal range), and the float sum of the row's exponentials, whose
   longest chain of adds row_chain_bound(cols) + ceil(log2 cols) allows (twice, in u of
   float). At 1024 columns that is 1.0e-3 for f16 and 1.4e-5 for f32. */
double softmax_row_sum_bound(size_t cols, dtype out);

/* The same checks against references computed once (a shape's reference is
   shared by every variant checked at that shape). ref/abs_sum hold one value
   per output of a sum (count = 1) or row sum (count = rows); len is the
   number of elements each value sums. */
check_result check_sums_against(const float *gpu, const double *ref, const double *abs_sum,
                                size_t count, size_t len, size_t k);
/* ref holds rows*cols reference values of the op given by is_log. */
check_result check_softmax_against(const float *gpu, const double *ref, size_t rows, size_t cols,
                                   int is_log, dtype out);

/* Exact comparison (bit-for-bit value equality, NaN never equal) of count
   values: for the small-integer and one-hot patterns. */
check_result check_exact(const float *gpu, const double *expected, size_t count);

/* The exact pattern of the program's own sum check: x holds fill_signed_ints values, so
   the true sum is an integer that float holds exactly, whatever the order of the adds, and
   every element is nonzero: a dropped or doubled element changes the result. gpu must equal
   the double sum of x exactly. */
check_result check_sum_exact(float gpu, const float *x, size_t n);

/* Prints "first bad <what> at index I: expected E, got A (|err| X > bound B)"
   into buf. Cannot fail. */
void format_check_failure(const check_result *r, char *buf, size_t len);

#endif /* CHECK_H */
