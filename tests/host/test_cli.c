/* SPDX-License-Identifier: MIT */
#include <CUnit/CUnit.h>
#include <string.h>

#include "cli.h"
#include "common.h"
#include "suites.h"

static options_t o;
static char err[512];

/* parse("prog", args..., NULL) */
static int parse(const char *a0, ...)
{
    const char *argv[32];
    int argc = 0;
    argv[argc++] = "prog";
    __builtin_va_list ap;
    __builtin_va_start(ap, a0);
    for (const char *a = a0; a && argc < 31; a = __builtin_va_arg(ap, const char *)) argv[argc++] = a;
    __builtin_va_end(ap);
    argv[argc] = NULL;
    return parse_options(argc, (char **)argv, &o, err, sizeof err);
}

static void test_defaults_select_all_variants_50_iterations_seed_1(void)
{
    CU_ASSERT_EQUAL(parse(NULL), 0);
    CU_ASSERT_PTR_NULL(o.variant);
    CU_ASSERT_EQUAL(o.iters, 50);
    CU_ASSERT_EQUAL(o.warmup, 5);
    CU_ASSERT_EQUAL(o.seed, 1);
    CU_ASSERT_EQUAL(o.n_count, 0);
    CU_ASSERT_EQUAL(o.cols_count, 0);
    CU_ASSERT_FALSE(o.check_only || o.list || o.help || o.have_op || o.have_dtype);
}

static void test_n_accepts_decimal_power_of_two_and_lists(void)
{
    CU_ASSERT_EQUAL(parse("-n", "1000003", NULL), 0);
    CU_ASSERT_EQUAL(o.n_count, 1);
    CU_ASSERT_EQUAL(o.n[0], 1000003);
    CU_ASSERT_EQUAL(parse("-n", "2^28", NULL), 0);
    CU_ASSERT_EQUAL(o.n[0], (size_t)1 << 28);
    CU_ASSERT_EQUAL(parse("-n", "1,2^10,33", NULL), 0);
    CU_ASSERT_EQUAL(o.n_count, 3);
    CU_ASSERT_EQUAL(o.n[1], 1024);
    CU_ASSERT_EQUAL(o.n[2], 33);
}

static void test_n_rejects_zero_negative_text_and_overflow(void)
{
    const char *bad[] = {"0", "-5", "abc", "12x", "", " 7", "2^", "2^63", "1.5",
                         "99999999999999999999999", "1e6"};
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        CU_ASSERT_EQUAL(parse("-n", bad[i], NULL), EXIT_USAGE);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "-n"));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "2^40")); /* the accepted range is named */
    }
}

static void test_sizes_above_2_pow_40_are_rejected(void)
{
    CU_ASSERT_EQUAL(parse("-n", "2^40", NULL), 0);
    CU_ASSERT_EQUAL(parse("-n", "2^41", NULL), EXIT_USAGE);
    CU_ASSERT_EQUAL(parse("-n", "1099511627777", NULL), EXIT_USAGE);
    CU_ASSERT_EQUAL(parse("--rows", "2^20", "--cols", "2^20", NULL), 0);
    CU_ASSERT_EQUAL(parse("--rows", "2^20", "--cols", "2^20,2^21", NULL), EXIT_USAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "2^40"));
}

static void test_a_missing_value_names_the_flag(void)
{
    const char *flags[] = {"-n", "--rows", "--cols", "--variant", "--op", "--dtype",
                           "--iters", "--warmup", "--seed", "--csv"};
    for (size_t i = 0; i < ARRAY_LEN(flags); i++) {
        CU_ASSERT_EQUAL(parse(flags[i], NULL), EXIT_USAGE);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, flags[i]));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "needs a value"));
    }
}

static void test_an_unknown_flag_is_a_usage_error(void)
{
    CU_ASSERT_EQUAL(parse("--frobnicate", NULL), EXIT_USAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "--frobnicate"));
    CU_ASSERT_EQUAL(parse("-x", NULL), EXIT_USAGE);
    CU_ASSERT_EQUAL(parse("stray", NULL), EXIT_USAGE);
    CU_ASSERT_PTR_NULL(strchr(err, '\n')); /* one line */
}

static void test_rows_need_cols_and_n_excludes_a_matrix(void)
{
    CU_ASSERT_EQUAL(parse("--rows", "8", NULL), EXIT_USAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "--cols"));
    CU_ASSERT_EQUAL(parse("-n", "8", "--cols", "8", NULL), EXIT_USAGE);
    CU_ASSERT_EQUAL(parse("--cols", "1000", NULL), 0);
    CU_ASSERT_EQUAL(o.rows, 0); /* rows follow from 2^26 / cols in the driver */
    CU_ASSERT_EQUAL(parse("--rows", "3", "--cols", "1,33", NULL), 0);
    CU_ASSERT_EQUAL(o.rows, 3);
    CU_ASSERT_EQUAL(o.cols_count, 2);
}

static void test_iters_and_warmup_ranges_are_enforced(void)
{
    CU_ASSERT_EQUAL(parse("--iters", "0", NULL), EXIT_USAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "1 .. 100000"));
    CU_ASSERT_EQUAL(parse("--iters", "100001", NULL), EXIT_USAGE);
    CU_ASSERT_EQUAL(parse("--iters", "3.5", NULL), EXIT_USAGE);
    CU_ASSERT_EQUAL(parse("--iters", "20", NULL), 0);
    CU_ASSERT_EQUAL(o.iters, 20);
    CU_ASSERT_EQUAL(parse("--warmup", "-1", NULL), EXIT_USAGE);
    CU_ASSERT_EQUAL(parse("--warmup", "0", NULL), 0);
    CU_ASSERT_EQUAL(o.warmup, 0);
}

static void test_op_and_dtype_accept_only_their_names(void)
{
    CU_ASSERT_EQUAL(parse("--op", "logsoftmax", "--dtype", "f16", NULL), 0);
    CU_ASSERT(o.have_op && o.op == OP_LOGSOFTMAX);
    CU_ASSERT(o.have_dtype && o.dt == DT_F16);
    CU_ASSERT_EQUAL(parse("--op", "max", NULL), EXIT_USAGE);
    CU_ASSERT_EQUAL(parse("--dtype", "bf16", NULL), 0);
    CU_ASSERT(o.have_dtype && o.dt == DT_BF16);
    CU_ASSERT_EQUAL(parse("--dtype", "f64", NULL), EXIT_USAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "f32, f16 or bf16"));
}

static void test_flag_equals_value_form_is_accepted(void)
{
    CU_ASSERT_EQUAL(parse("--iters=7", "--variant=sequential", "--cols=64", NULL), 0);
    CU_ASSERT_EQUAL(o.iters, 7);
    CU_ASSERT_STRING_EQUAL(o.variant, "sequential");
    CU_ASSERT_EQUAL(o.cols[0], 64);
    CU_ASSERT_EQUAL(parse("--list=1", NULL), EXIT_USAGE);
}

static void test_seed_takes_any_64_bit_value_and_nothing_else(void)
{
    CU_ASSERT_EQUAL(parse("--seed", "18446744073709551615", NULL), 0);
    CU_ASSERT_EQUAL(o.seed, UINT64_MAX);
    CU_ASSERT_EQUAL(parse("--seed", "0", NULL), 0);
    CU_ASSERT_EQUAL(o.seed, 0);
    CU_ASSERT_EQUAL(parse("--seed", "-1", NULL), EXIT_USAGE);
    CU_ASSERT_EQUAL(parse("--seed", "18446744073709551616", NULL), EXIT_USAGE);
}

static void test_size_lists_reject_empty_items(void)
{
    CU_ASSERT_EQUAL(parse("-n", "1,,2", NULL), EXIT_USAGE);
    CU_ASSERT_EQUAL(parse("-n", "1,", NULL), EXIT_USAGE);
    CU_ASSERT_EQUAL(parse("-n", ",1", NULL), EXIT_USAGE);
    CU_ASSERT_EQUAL(parse("--cols", ",", NULL), EXIT_USAGE);
}

static void test_variant_all_and_boolean_flags(void)
{
    CU_ASSERT_EQUAL(parse("--variant", "all", "--check-only", "--list", "-h", NULL), 0);
    CU_ASSERT_PTR_NULL(o.variant);
    CU_ASSERT(o.check_only && o.list && o.help);
    CU_ASSERT_EQUAL(parse("--variant", "", NULL), EXIT_USAGE);
    CU_ASSERT_EQUAL(parse("--csv", "", NULL), EXIT_USAGE);
}

static void test_parse_size_bounds(void)
{
    size_t v = 0;
    CU_ASSERT_EQUAL(parse_size("1", 10, &v), 0);
    CU_ASSERT_EQUAL(v, 1);
    CU_ASSERT_EQUAL(parse_size("10", 10, &v), 0);
    CU_ASSERT_EQUAL(parse_size("11", 10, &v), -1);
    CU_ASSERT_EQUAL(parse_size("2^3", 10, &v), 0);
    CU_ASSERT_EQUAL(v, 8);
    CU_ASSERT_EQUAL(parse_size("2^4", 10, &v), -1);
    CU_ASSERT_EQUAL(parse_size("+3", 10, &v), -1);
}

/* a stage that lists one name per dtype, as 07 does */
static const variant_key keys[] = {
    {"naive", OP_SOFTMAX, DT_F32}, {"naive", OP_LOGSOFTMAX, DT_F32}, {"warp", OP_SOFTMAX, DT_F32},
    {"warp", OP_SOFTMAX, DT_F16},  {"warp", OP_SOFTMAX, DT_BF16},
};
#define N_KEYS (sizeof keys / sizeof keys[0])

static void test_select_variants_by_name_op_and_dtype(void)
{
    int sel[N_KEYS];
    char msg[256];
    CU_ASSERT_EQUAL(parse(NULL), 0);
    CU_ASSERT_EQUAL(select_variants(&o, "07_x", keys, N_KEYS, sel, msg, sizeof msg), 0);
    for (size_t i = 0; i < N_KEYS; i++) CU_ASSERT_EQUAL(sel[i], 1);
    CU_ASSERT_EQUAL(parse("--variant", "warp", "--dtype", "f16", NULL), 0);
    CU_ASSERT_EQUAL(select_variants(&o, "07_x", keys, N_KEYS, sel, msg, sizeof msg), 0);
    for (size_t i = 0; i < N_KEYS; i++) CU_ASSERT_EQUAL(sel[i], i == 3);
    CU_ASSERT_EQUAL(parse("--op", "logsoftmax", NULL), 0);
    CU_ASSERT_EQUAL(select_variants(&o, "07_x", keys, N_KEYS, sel, msg, sizeof msg), 0);
    for (size_t i = 0; i < N_KEYS; i++) CU_ASSERT_EQUAL(sel[i], i == 1);
}

static void test_select_variants_errors_name_the_choices_once(void)
{
    int sel[N_KEYS];
    char msg[256];
    CU_ASSERT_EQUAL(parse("--variant", "wrap", NULL), 0);
    CU_ASSERT_EQUAL(select_variants(&o, "07_x", keys, N_KEYS, sel, msg, sizeof msg), EXIT_USAGE);
    CU_ASSERT_STRING_EQUAL(msg, "--variant wrap: no such variant in 07_x; choose one of: naive warp all");
    CU_ASSERT_EQUAL(parse("--variant", "naive", "--dtype", "bf16", NULL), 0);
    CU_ASSERT_EQUAL(select_variants(&o, "07_x", keys, N_KEYS, sel, msg, sizeof msg), EXIT_USAGE);
    CU_ASSERT_STRING_EQUAL(msg, "no variant of 07_x matches --op/--dtype; see --list");
    /* a short buffer truncates the list, never overruns */
    char tiny[24];
    CU_ASSERT_EQUAL(parse("--variant", "wrap", NULL), 0);
    CU_ASSERT_EQUAL(select_variants(&o, "07_x", keys, N_KEYS, sel, tiny, sizeof tiny), EXIT_USAGE);
    CU_ASSERT_EQUAL(strlen(tiny), sizeof tiny - 1);
}

CU_TestInfo cli_tests[] = {
    {"defaults select all variants, 50 iterations, seed 1", test_defaults_select_all_variants_50_iterations_seed_1},
    {"-n accepts decimal, 2^K and comma lists", test_n_accepts_decimal_power_of_two_and_lists},
    {"-n rejects zero, negatives, text and overflow, naming the range", test_n_rejects_zero_negative_text_and_overflow},
    {"sizes above 2^40 elements are rejected", test_sizes_above_2_pow_40_are_rejected},
    {"a missing value names the flag", test_a_missing_value_names_the_flag},
    {"an unknown flag is a one-line usage error", test_an_unknown_flag_is_a_usage_error},
    {"--rows needs --cols, and -n excludes a matrix", test_rows_need_cols_and_n_excludes_a_matrix},
    {"--iters and --warmup ranges are enforced", test_iters_and_warmup_ranges_are_enforced},
    {"--op and --dtype accept only their names", test_op_and_dtype_accept_only_their_names},
    {"--flag=value is accepted", test_flag_equals_value_form_is_accepted},
    {"--seed takes any 64-bit value and nothing else", test_seed_takes_any_64_bit_value_and_nothing_else},
    {"size lists reject empty items", test_size_lists_reject_empty_items},
    {"--variant all and the boolean flags", test_variant_all_and_boolean_flags},
    {"parse_size enforces its bounds", test_parse_size_bounds},
    {"select_variants picks by --variant, --op and --dtype", test_select_variants_by_name_op_and_dtype},
    {"select_variants errors name each choice once", test_select_variants_errors_name_the_choices_once},
    CU_TEST_INFO_NULL,
};
