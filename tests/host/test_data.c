/* SPDX-License-Identifier: MIT */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "suites.h"

static void test_uniform_is_seeded_and_in_range(void)
{
    enum { N = 100000 };
    float *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    fill_uniform(a, N, -1.0f, 1.0f, 42);
    fill_uniform(b, N, -1.0f, 1.0f, 42);
    CU_ASSERT_EQUAL(memcmp(a, b, N * sizeof *a), 0);
    double mean = 0;
    int in_range = 1;
    for (int i = 0; i < N; i++) {
        in_range &= a[i] >= -1.0f && a[i] < 1.0f;
        mean += a[i];
    }
    CU_ASSERT(in_range);
    CU_ASSERT(fabs(mean / N) < 0.02); /* uniform: mean 0, sd of the mean 0.0018 */
    fill_uniform(b, N, -1.0f, 1.0f, 43);
    CU_ASSERT_NOT_EQUAL(memcmp(a, b, N * sizeof *a), 0);
    free(a);
    free(b);
}

static void test_small_ints_are_integers_from_minus_8_to_8_all_seen(void)
{
    enum { N = 10000 };
    float x[N];
    int seen[17] = {0}, ok = 1;
    fill_small_ints(x, N, 7);
    for (int i = 0; i < N; i++) {
        ok &= x[i] == floorf(x[i]) && x[i] >= -8 && x[i] <= 8;
        if (ok) seen[(int)x[i] + 8] = 1;
    }
    CU_ASSERT(ok);
    for (int v = 0; v < 17; v++) CU_ASSERT(seen[v]);
}

static void test_one_hot_has_exactly_one_one(void)
{
    float x[100];
    memset(x, 0x7f, sizeof x);
    fill_one_hot(x, 100, 99);
    int ones = 0, zeros = 0;
    for (int i = 0; i < 100; i++) { ones += x[i] == 1.0f; zeros += x[i] == 0.0f; }
    CU_ASSERT_EQUAL(ones, 1);
    CU_ASSERT_EQUAL(zeros, 99);
    CU_ASSERT_EQUAL(x[99], 1.0f);
}

static void test_every_half_survives_a_round_trip_through_float(void)
{
    int bad = 0;
    for (unsigned h = 0; h < 65536; h++) {
        float f = half_to_float((uint16_t)h);
        uint16_t back = float_to_half(f);
        if (isnan(f)) bad += !isnan(half_to_float(back));
        else bad += back != h;
    }
    CU_ASSERT_EQUAL(bad, 0);
}

static void test_half_rounds_to_nearest_even_and_saturates_to_inf(void)
{
    CU_ASSERT_EQUAL(half_to_float(float_to_half(1.0f)), 1.0f);
    CU_ASSERT_EQUAL(float_to_half(1.0f + 1.0f / 2048), 0x3C00);          /* tie: down to even */
    CU_ASSERT_EQUAL(float_to_half(1.0f + 3.0f / 2048), 0x3C02);          /* tie: up to even */
    CU_ASSERT_EQUAL(float_to_half(1.0f + 1.5f / 2048), 0x3C01);          /* above the tie */
    CU_ASSERT_EQUAL(float_to_half(65504.0f), 0x7BFF);                    /* largest half */
    CU_ASSERT_EQUAL(float_to_half(65519.0f), 0x7BFF);
    CU_ASSERT_EQUAL(float_to_half(65520.0f), 0x7C00);                    /* rounds to inf */
    CU_ASSERT_EQUAL(float_to_half(-INFINITY), 0xFC00);
    CU_ASSERT_EQUAL(float_to_half(ldexpf(1.0f, -24)), 0x0001);           /* smallest subnormal */
    CU_ASSERT_EQUAL(float_to_half(ldexpf(1.0f, -25)), 0x0000);           /* tie to even: 0 */
    CU_ASSERT_EQUAL(float_to_half(ldexpf(3.0f, -25)), 0x0002);           /* tie to even: 2 */
    CU_ASSERT_EQUAL(half_to_float(0x0001), ldexpf(1.0f, -24));
    CU_ASSERT(isnan(half_to_float(float_to_half(NAN))));
    CU_ASSERT_EQUAL(half_to_float(0xC000), -2.0f);
}

static void test_round_to_half_keeps_what_a_half_holds(void)
{
    float x[3] = {0.1f, 1e-8f, 70000.0f};
    round_to_half(x, 3);
    CU_ASSERT_EQUAL(x[0], half_to_float(0x2E66)); /* 0.0999755859375 */
    CU_ASSERT_EQUAL(x[1], 0.0f);
    CU_ASSERT(isinf(x[2]));
}

static void test_a_parallel_fill_equals_the_serial_generator(void)
{
    size_t n = (size_t)1 << 21; /* several threads' worth */
    float *x = malloc(n * sizeof *x);
    fill_uniform(x, n, -1.0f, 1.0f, 9);
    uint64_t s = 9;
    int same = 1;
    for (size_t i = 0; i < n; i++)
        same &= x[i] == -1.0f + (float)(rng_next(&s) >> 40) * (2.0f / 16777216.0f);
    CU_ASSERT(same);
    free(x);
}

static void test_bulk_half_conversions_match_the_scalar_ones(void)
{
    size_t n = (size_t)1 << 21;
    float *f = malloc(n * sizeof *f), *back = malloc(n * sizeof *back);
    uint16_t *h = malloc(n * sizeof *h);
    fill_uniform(f, n, -70000.0f, 70000.0f, 3);
    floats_to_halves(f, h, n);
    halves_to_floats(h, back, n);
    int same = 1;
    for (size_t i = 0; i < n; i++) same &= h[i] == float_to_half(f[i]) && back[i] == half_to_float(h[i]);
    CU_ASSERT(same);
    free(f); free(back); free(h);
}

CU_TestInfo data_tests[] = {
    {"a parallel fill equals the serial generator", test_a_parallel_fill_equals_the_serial_generator},
    {"bulk half conversions match the scalar ones", test_bulk_half_conversions_match_the_scalar_ones},
    {"uniform inputs are seeded and in range", test_uniform_is_seeded_and_in_range},
    {"small ints are integers from -8 to 8, all seen", test_small_ints_are_integers_from_minus_8_to_8_all_seen},
    {"one-hot has exactly one 1.0", test_one_hot_has_exactly_one_one},
    {"every half survives a round trip through float", test_every_half_survives_a_round_trip_through_float},
    {"half rounds to nearest even and saturates to inf", test_half_rounds_to_nearest_even_and_saturates_to_inf},
    {"round_to_half keeps what a half holds", test_round_to_half_keeps_what_a_half_holds},
    CU_TEST_INFO_NULL,
};
