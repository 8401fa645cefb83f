/* SPDX-License-Identifier: MIT */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "data.h"
#include "suites.h"

static void test_reference_sum_and_abs_sum_of_hand_values(void)
{
    float x[] = {-1.0f, 2.0f, -3.0f, 0.5f};
    double a;
    CU_ASSERT_DOUBLE_EQUAL(ref_sum(x, 4, &a), -1.5, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(a, 6.5, 0.0);
}

static void test_reference_softmax_of_hand_values(void)
{
    float x[2] = {0.0f, (float)log(3.0)};
    double y[2], l[2];
    ref_softmax_row(x, 2, 0, y);
    ref_softmax_row(x, 2, 1, l);
    /* exp(0) : exp(ln 3) = 1 : 3 (x[1] is ln 3 rounded to float) */
    CU_ASSERT_DOUBLE_EQUAL(y[0], 0.25, 1e-7);
    CU_ASSERT_DOUBLE_EQUAL(y[1], 0.75, 1e-7);
    CU_ASSERT_DOUBLE_EQUAL(l[0], log(0.25), 1e-7);
    CU_ASSERT_DOUBLE_EQUAL(l[1], log(0.75), 1e-7);
}

static void test_reference_softmax_is_stable_at_large_magnitudes(void)
{
    float x[3] = {1e4f, 1e4f, -1e4f};
    double y[3];
    ref_softmax_row(x, 3, 0, y);
    CU_ASSERT_DOUBLE_EQUAL(y[0], 0.5, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(y[1], 0.5, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(y[2], 0.0, 1e-300);
}

static void test_reference_softmax_of_minus_inf(void)
{
    float x[3] = {-INFINITY, 0.0f, -INFINITY}, all[2] = {-INFINITY, -INFINITY};
    double y[3], l[3], n[2];
    ref_softmax_row(x, 3, 0, y);
    ref_softmax_row(x, 3, 1, l);
    CU_ASSERT_EQUAL(y[0], 0.0);
    CU_ASSERT_EQUAL(y[1], 1.0);
    CU_ASSERT(isinf(l[0]) && l[0] < 0);
    CU_ASSERT_EQUAL(l[1], 0.0);
    ref_softmax_row(all, 2, 0, n); /* documented: a row of all -inf is NaN */
    CU_ASSERT(isnan(n[0]) && isnan(n[1]));
}

static void test_sum_bound_follows_the_formula(void)
{
    /* 2 (k + ceil(log2 n)) u sum|x|: k = 10, n = 1000 -> log2 rounds up to 10 */
    CU_ASSERT_DOUBLE_EQUAL(sum_error_bound(10, 1000, 3.0), 2.0 * 20 * U_F32 * 3.0, 1e-20);
    CU_ASSERT_DOUBLE_EQUAL(sum_error_bound(0, 1, 1.0), 0.0, 0.0);
    CU_ASSERT_EQUAL(sum_chain_bound(132 * 32 * 100, 132), 164);
    CU_ASSERT_EQUAL(row_chain_bound(32), 65);
}

static void test_check_sum_catches_a_dropped_or_doubled_element(void)
{
    enum { N = 1000 };
    float x[N];
    for (int i = 0; i < N; i++) x[i] = 1.0f;
    size_t k = sum_chain_bound(N, 1);
    CU_ASSERT_TRUE(check_sum(1000.0f, x, N, k).ok);
    CU_ASSERT_FALSE(check_sum(999.0f, x, N, k).ok);  /* one dropped */
    CU_ASSERT_FALSE(check_sum(1001.0f, x, N, k).ok); /* one counted twice */
    CU_ASSERT_FALSE(check_sum(NAN, x, N, k).ok);     /* unwritten (poisoned) */
    CU_ASSERT_FALSE(check_sum(INFINITY, x, N, k).ok);
}

static void test_check_sum_accepts_float_rounding_of_random_data(void)
{
    enum { N = 1 << 16 };
    float *x = malloc(N * sizeof *x);
    for (int i = 0; i < N; i++) x[i] = (float)((i * 2654435761u) % 1000) / 997.0f - 0.5f;
    float seq = 0.0f; /* the worst chain: one thread, n - 1 sequential adds */
    for (int i = 0; i < N; i++) seq += x[i];
    CU_ASSERT_TRUE(check_sum(seq, x, N, N).ok);
    free(x);
}

static void test_check_rowsum_reports_the_first_bad_row(void)
{
    float x[3 * 4] = {1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3};
    float good[3] = {4, 8, 12}, bad[3] = {4, 8, 9};
    CU_ASSERT_TRUE(check_rowsum(good, x, 3, 4, row_chain_bound(4)).ok);
    check_result r = check_rowsum(bad, x, 3, 4, row_chain_bound(4));
    CU_ASSERT_FALSE(r.ok);
    CU_ASSERT_EQUAL(r.index, 2);
    CU_ASSERT_DOUBLE_EQUAL(r.expected, 12.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(r.actual, 9.0, 0.0);
}

static void test_check_softmax_tolerances_f32_and_f16(void)
{
    float x[4] = {0.0f, 1.0f, 2.0f, 3.0f};
    double ref[4];
    float y[4];
    ref_softmax_row(x, 4, 0, ref);
    for (int i = 0; i < 4; i++) y[i] = (float)ref[i];
    CU_ASSERT_TRUE(check_softmax(y, x, 1, 4, 0, DT_F32).ok);
    y[3] = (float)(ref[3] * (1 + 2e-5) + 2e-6); /* past 1e-6 + 1e-5 |ref| */
    CU_ASSERT_FALSE(check_softmax(y, x, 1, 4, 0, DT_F32).ok);
    CU_ASSERT_TRUE(check_softmax(y, x, 1, 4, 0, DT_F16).ok); /* half: rtol 1e-3 */
    y[3] = (float)(ref[3] * 1.002);
    CU_ASSERT_FALSE(check_softmax(y, x, 1, 4, 0, DT_F16).ok);
    /* log-softmax: 1e-5 max(1, |ref|) absolute */
    double l[4];
    ref_softmax_row(x, 4, 1, l);
    for (int i = 0; i < 4; i++) y[i] = (float)l[i];
    CU_ASSERT_TRUE(check_softmax(y, x, 1, 4, 1, DT_F32).ok);
    y[0] = (float)(l[0] + 1e-5 * fabs(l[0]) * 1.5);
    CU_ASSERT_FALSE(check_softmax(y, x, 1, 4, 1, DT_F32).ok);
}

static void test_check_softmax_rows_must_sum_to_one(void)
{
    enum { C = 100 };
    float x[C], y[C];
    double ref[C];
    for (int i = 0; i < C; i++) x[i] = 0.0f; /* every y = 0.01 */
    ref_softmax_row(x, C, 0, ref);
    /* each element high by 9e-7: inside 1e-6 + 1e-5 |ref|, but the row sums
       to 1 + 9e-5, outside C * 4u = 2.4e-5 */
    for (int i = 0; i < C; i++) y[i] = (float)(ref[i] + 9e-7);
    check_result r = check_softmax(y, x, 1, C, 0, DT_F32);
    CU_ASSERT_FALSE(r.ok);
    CU_ASSERT_STRING_EQUAL(r.what, "row sum");
}

static void test_check_softmax_special_values(void)
{
    float x[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
    float y[4] = {NAN, NAN, NAN, NAN};
    CU_ASSERT_TRUE(check_softmax(y, x, 1, 4, 0, DT_F32).ok); /* all -inf: NaN is right */
    y[2] = 0.25f;
    CU_ASSERT_FALSE(check_softmax(y, x, 1, 4, 0, DT_F32).ok);
    float x2[2] = {-INFINITY, 1.0f}, l[2] = {-INFINITY, 0.0f};
    CU_ASSERT_TRUE(check_softmax(l, x2, 1, 2, 1, DT_F32).ok);
    l[0] = -1e30f; /* must be exactly -inf */
    CU_ASSERT_FALSE(check_softmax(l, x2, 1, 2, 1, DT_F32).ok);
    float y2[2] = {0.0f, NAN}; /* an unwritten (poisoned) element fails */
    check_result r = check_softmax(y2, x2, 1, 2, 0, DT_F32);
    CU_ASSERT_FALSE(r.ok);
    CU_ASSERT_EQUAL(r.index, 1);
}

static void test_check_exact_detects_one_ulp(void)
{
    float g[2] = {3.0f, nextafterf(5.0f, 6.0f)};
    double e[2] = {3.0, 5.0};
    check_result r = check_exact(g, e, 2);
    CU_ASSERT_FALSE(r.ok);
    CU_ASSERT_EQUAL(r.index, 1);
    g[1] = 5.0f;
    CU_ASSERT_TRUE(check_exact(g, e, 2).ok);
}

static void test_failure_message_names_index_expected_and_actual(void)
{
    check_result r = {0, 17, 4.0, 3.0, 0.5, 1.0, "value"};
    char buf[256];
    format_check_failure(&r, buf, sizeof buf);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "index 17"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "expected 4"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "got 3"));
    CU_ASSERT_PTR_NULL(strchr(buf, '\n'));
}

static void test_a_parallel_check_reports_the_first_bad_row(void)
{
    size_t rows = (size_t)1 << 20, cols = 4;
    float *x = malloc(rows * cols * sizeof *x), *g = malloc(rows * sizeof *g);
    double *ref = malloc(rows * sizeof *ref), *abs_sum = malloc(rows * sizeof *abs_sum);
    for (size_t i = 0; i < rows * cols; i++) x[i] = (float)(i % 5);
    ref_row_sums(x, rows, cols, ref, abs_sum);
    for (size_t r = 0; r < rows; r++) g[r] = (float)ref[r];
    CU_ASSERT_TRUE(check_sums_against(g, ref, abs_sum, rows, cols, 8).ok);
    g[900001] += 1.0f; /* two bad rows in different threads' chunks */
    g[700003] -= 1.0f;
    check_result r = check_sums_against(g, ref, abs_sum, rows, cols, 8);
    CU_ASSERT_FALSE(r.ok);
    CU_ASSERT_EQUAL(r.index, 700003);
    CU_ASSERT_DOUBLE_EQUAL(r.max_err, 1.0, 0.0);
    free(x); free(g); free(ref); free(abs_sum);
}

/* The program's own check at the standard sizes, with values made here (DESIGN.md, Checking):
   a rounding bound alone is about 1e6 at n = 2^28 and lets a dropped element through, so the
   program also runs the signed-integer pattern, which must match exactly. */
static void test_the_program_sum_check_rejects_zero_a_dropped_and_a_doubled_element_at_2_28(void)
{
    const size_t n = (size_t)1 << 28;
    float *x = malloc(n * sizeof *x);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    fill_signed_ints(x, n, 12345);
    double ref = ref_sum(x, n, NULL);
    CU_ASSERT(ref != 0.0 && fabs(ref) < 16777216.0); /* an integer float holds exactly */
    CU_ASSERT_TRUE(check_sum_exact((float)ref, x, n).ok);
    CU_ASSERT_FALSE(check_sum_exact(0.0f, x, n).ok);                        /* nothing summed */
    CU_ASSERT_FALSE(check_sum_exact((float)(ref - x[0]), x, n).ok);         /* the first dropped */
    CU_ASSERT_FALSE(check_sum_exact((float)(ref - x[n / 2 + 1]), x, n).ok); /* one in the middle */
    CU_ASSERT_FALSE(check_sum_exact((float)(ref + x[n - 1]), x, n).ok);     /* the last twice */
    CU_ASSERT_FALSE(check_sum_exact(NAN, x, n).ok);                         /* never written */

    /* the random half of the check: non-negative floats, bound relative to the true sum */
    fill_uniform(x, n, 0.0f, 1.0f, 99);
    double abs_sum, r = ref_sum(x, n, &abs_sum);
    const size_t k = sum_chain_bound(n, 132);
    float good = (float)r, zero = 0.0f, dropped = (float)(r - x[7]);
    CU_ASSERT_TRUE(check_sums_against(&good, &r, &abs_sum, 1, n, k).ok);
    CU_ASSERT_FALSE(check_sums_against(&zero, &r, &abs_sum, 1, n, k).ok);
    /* ...which alone cannot see one dropped element at this size: why the exact pattern runs */
    CU_ASSERT_TRUE(check_sums_against(&dropped, &r, &abs_sum, 1, n, k).ok);
    free(x);
}

/* Row sums at the standard 65536 x 1024: one dropped or doubled element in one row fails. */
static void test_the_program_rowsum_check_rejects_a_dropped_element_in_one_row(void)
{
    const size_t rows = 65536, cols = 1024;
    float *x = malloc(rows * cols * sizeof *x), *gpu = malloc(rows * sizeof *gpu);
    double *ref = malloc(rows * sizeof *ref), *abs_sum = malloc(rows * sizeof *abs_sum);
    fill_signed_ints(x, rows * cols, 777);
    ref_row_sums(x, rows, cols, ref, abs_sum);
    for (size_t r = 0; r < rows; r++) gpu[r] = (float)ref[r];
    CU_ASSERT_TRUE(check_exact(gpu, ref, rows).ok);
    gpu[40000] -= x[40000 * cols + 1023]; /* the row's last element dropped */
    check_result res = check_exact(gpu, ref, rows);
    CU_ASSERT_FALSE(res.ok);
    CU_ASSERT_EQUAL(res.index, 40000);
    gpu[40000] = (float)ref[40000] + x[40000 * cols]; /* its first counted twice */
    CU_ASSERT_FALSE(check_exact(gpu, ref, rows).ok);
    free(x); free(gpu); free(ref); free(abs_sum);
}

/* Softmax at the standard 65536 x 1024, two-hot rows: every output is exactly 0.5 or 0, so an
   element left out of a row's sum (outputs 1), counted twice (1/3) or never written fails,
   in f32 and in half. */
static void test_the_program_softmax_check_rejects_a_dropped_or_doubled_element(void)
{
    const size_t rows = 65536, cols = 1024, n = rows * cols;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    double *ref = malloc(n * sizeof *ref);
    fill_two_hot(x, rows, cols, 4242);
    ref_softmax_rows(x, rows, cols, 0, ref);
    for (size_t i = 0; i < n; i++) y[i] = (float)ref[i];
    CU_ASSERT_TRUE(check_softmax_against(y, ref, rows, cols, 0, DT_F32).ok);
    CU_ASSERT_TRUE(check_softmax_against(y, ref, rows, cols, 0, DT_F16).ok);
    const size_t r = 31337;
    size_t hot[2], h = 0;
    for (size_t c = 0; c < cols && h < 2; c++)
        if (x[r * cols + c] == 0.0f) hot[h++] = c;
    CU_ASSERT_EQUAL_FATAL(h, 2);
    y[r * cols + hot[0]] = y[r * cols + hot[1]] = 1.0f; /* the other one left out of the sum */
    CU_ASSERT_FALSE(check_softmax_against(y, ref, rows, cols, 0, DT_F32).ok);
    CU_ASSERT_FALSE(check_softmax_against(y, ref, rows, cols, 0, DT_BF16).ok);
    y[r * cols + hot[0]] = y[r * cols + hot[1]] = 1.0f / 3.0f; /* one counted twice */
    CU_ASSERT_FALSE(check_softmax_against(y, ref, rows, cols, 0, DT_F16).ok);
    y[r * cols + hot[0]] = y[r * cols + hot[1]] = 0.5f;
    y[r * cols + hot[1]] = NAN; /* never written */
    CU_ASSERT_FALSE(check_softmax_against(y, ref, rows, cols, 0, DT_F32).ok);
    free(x); free(y); free(ref);
}

/* The half row-sum bound at 1024 columns was cols * 4u = 2.0, which no row can fail; now it is
   about 1e-3 (two half roundings and the float sum). */
static void test_softmax_row_sum_bounds_are_tight_at_1024_columns(void)
{
    CU_ASSERT(softmax_row_sum_bound(1024, DT_F16) < 1.1e-3);
    CU_ASSERT(softmax_row_sum_bound(1024, DT_F16) > 2 * U_F16);
    CU_ASSERT(softmax_row_sum_bound(1024, DT_F32) < 2e-5);
    CU_ASSERT(softmax_row_sum_bound(1024, DT_BF16) < 8.0e-3);
    float x[1024], y[1024];
    double ref[1024];
    for (int i = 0; i < 1024; i++) x[i] = 0.0f;
    ref_softmax_row(x, 1024, 0, ref);
    for (int i = 0; i < 1024; i++) y[i] = (float)(ref[i] * 1.0015); /* 1.5e-3 high: past rtol 1e-3 */
    CU_ASSERT_FALSE(check_softmax_against(y, ref, 1, 1024, 0, DT_F16).ok);
}

CU_TestInfo check_tests[] = {
    {"a parallel check reports the first bad row", test_a_parallel_check_reports_the_first_bad_row},
    {"reference sum and abs sum of hand values", test_reference_sum_and_abs_sum_of_hand_values},
    {"reference softmax of hand values", test_reference_softmax_of_hand_values},
    {"reference softmax is stable at large magnitudes", test_reference_softmax_is_stable_at_large_magnitudes},
    {"reference softmax of -inf entries and an all -inf row", test_reference_softmax_of_minus_inf},
    {"sum bound follows 2 (k + ceil log2 n) u sum|x|", test_sum_bound_follows_the_formula},
    {"check_sum catches a dropped or doubled element", test_check_sum_catches_a_dropped_or_doubled_element},
    {"check_sum accepts float rounding of a sequential sum", test_check_sum_accepts_float_rounding_of_random_data},
    {"check_rowsum reports the first bad row", test_check_rowsum_reports_the_first_bad_row},
    {"check_softmax tolerances for f32, f16 and log", test_check_softmax_tolerances_f32_and_f16},
    {"check_softmax rows must sum to one", test_check_softmax_rows_must_sum_to_one},
    {"check_softmax special values: NaN rows, -inf, poison", test_check_softmax_special_values},
    {"check_exact detects one ulp", test_check_exact_detects_one_ulp},
    {"failure message names index, expected and actual", test_failure_message_names_index_expected_and_actual},
    {"the program sum check rejects 0.0, a dropped and a doubled element at n = 2^28",
     test_the_program_sum_check_rejects_zero_a_dropped_and_a_doubled_element_at_2_28},
    {"the program row-sum check rejects a dropped element in one row at 65536 x 1024",
     test_the_program_rowsum_check_rejects_a_dropped_element_in_one_row},
    {"the program softmax check rejects a dropped or doubled element at 65536 x 1024",
     test_the_program_softmax_check_rejects_a_dropped_or_doubled_element},
    {"softmax row-sum bounds are tight at 1024 columns", test_softmax_row_sum_bounds_are_tight_at_1024_columns},
    CU_TEST_INFO_NULL,
};
