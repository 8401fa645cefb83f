/* SPDX-License-Identifier: MIT */
/* The stage programs' exit codes and messages, run as a user would run them.
   Usage errors are found before the GPU is touched, so these run anywhere. */
#include <CUnit/CUnit.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "suites.h"

static char out_text[16384], err_text[16384];

/* Runs "build/<prog> <args>" and returns its exit code; its stdout and stderr
   land in out_text and err_text. -1 if it did not exit normally. */
static int run_prog(const char *prog, const char *args)
{
    const char *dir = getenv("BUILD_DIR") ? getenv("BUILD_DIR") : "build";
    /* files of this process alone: two test runs at once must not read each other's output */
    char cmd[1024], out_path[64], err_path[64];
    snprintf(out_path, sizeof out_path, "/tmp/reduce-prog-%ld.out", (long)getpid());
    snprintf(err_path, sizeof err_path, "/tmp/reduce-prog-%ld.err", (long)getpid());
    snprintf(cmd, sizeof cmd, "%s/%s %s >%s 2>%s", dir, prog, args, out_path, err_path);
    int st = system(cmd);
    FILE *f;
    out_text[0] = err_text[0] = '\0';
    if ((f = fopen(out_path, "r"))) { out_text[fread(out_text, 1, sizeof out_text - 1, f)] = '\0'; fclose(f); }
    if ((f = fopen(err_path, "r"))) { err_text[fread(err_text, 1, sizeof err_text - 1, f)] = '\0'; fclose(f); }
    remove(out_path);
    remove(err_path);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int lines_of(const char *s)
{
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

static int have_gpu(void)
{
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

static void test_a_bad_flag_exits_2_with_one_line_on_stderr(void)
{
    const char *bad[] = {"--bogus", "-n 0", "-n abc", "-n", "--iters 0", "--dtype f64", "--rows 5",
                         "-n 5 --cols 5", "-n 2^41", "--op max"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CU_ASSERT_EQUAL(run_prog("03_shuffle", bad[i]), 2);
        CU_ASSERT_EQUAL(lines_of(err_text), 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "error:"));
    }
}

static void test_an_unknown_variant_exits_2_and_lists_the_names(void)
{
    CU_ASSERT_EQUAL(run_prog("02_strided", "--variant nope"), 2);
    CU_ASSERT_EQUAL(lines_of(err_text), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "sequential"));
}

static void test_a_size_of_the_wrong_kind_exits_2(void)
{
    /* 01_naive has only full sums: a matrix shape is a usage error */
    CU_ASSERT_EQUAL(run_prog("01_naive", "--rows 4 --cols 4"), 2);
    CU_ASSERT_EQUAL(lines_of(err_text), 1);
}

static void test_list_and_help_need_no_gpu_and_exit_0(void)
{
    CU_ASSERT_EQUAL(run_prog("06_coop_groups", "--list"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "06_coop_groups"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "dispatch"));
    CU_ASSERT_EQUAL(run_prog("01_naive", "-h"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "exit codes"));
    CU_ASSERT_EQUAL(run_prog("baselines", "--list"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "cub_device_reduce"));
}

static void test_every_stage_lists_at_least_one_variant(void)
{
    const char *stages[] = {"01_naive", "02_strided", "03_shuffle", "04_block_reduce",
                            "05_packed", "06_coop_groups", "07_softmax"};
    for (size_t i = 0; i < sizeof stages / sizeof stages[0]; i++) {
        CU_ASSERT_EQUAL(run_prog(stages[i], "--list"), 0);
        CU_ASSERT(lines_of(out_text) >= 2);
        CU_ASSERT_PTR_NOT_NULL(strstr(out_text, stages[i]));
    }
}

static void test_without_a_gpu_a_run_exits_3_with_one_line(void)
{
    if (have_gpu()) {
        /* with a GPU the same command must succeed instead */
        CU_ASSERT_EQUAL(run_prog("03_shuffle", "-n 1000 --check-only --variant shuffle_down_tree"), 0);
        return;
    }
    CU_ASSERT_EQUAL(run_prog("03_shuffle", "-n 1000"), 3);
    CU_ASSERT_EQUAL(lines_of(err_text), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "no CUDA device"));
}

static void test_an_unwritable_csv_exits_2_before_any_gpu_work(void)
{
    CU_ASSERT_EQUAL(run_prog("01_naive", "-n 100 --csv /nonexistent-dir/out.csv"), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "--csv"));
}

static void test_a_size_beyond_device_memory_exits_2_naming_the_flag(void)
{
    /* 2^40 floats is 4 TiB: more than any GPU holds. Without a GPU the
       device error (exit 3) comes first. */
    int want = have_gpu() ? 2 : 3;
    CU_ASSERT_EQUAL(run_prog("05_packed", "-n 2^40 --check-only"), want);
    CU_ASSERT_EQUAL(lines_of(err_text), 1);
    if (want == 2) CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "-n"));
    CU_ASSERT_EQUAL(run_prog("07_softmax", "--rows 2^20 --cols 2^20 --check-only"), want);
    CU_ASSERT_EQUAL(lines_of(err_text), 1);
    if (want == 2) CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "--rows"));
}

static void test_a_named_variant_outside_its_limits_exits_2(void)
{
    /* warp_row holds a row in registers: at most 1024 columns. The shape is
       judged once a device is open; without one, the device error (3) comes first. */
    int want = have_gpu() ? 2 : 3;
    CU_ASSERT_EQUAL(run_prog("07_softmax", "--variant warp_row --rows 4 --cols 5000 --check-only"), want);
    CU_ASSERT_EQUAL(lines_of(err_text), 1);
    if (want == 2) CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "warp_row"));
}

CU_TestInfo program_tests[] = {
    {"a size beyond device memory exits 2 naming the flag", test_a_size_beyond_device_memory_exits_2_naming_the_flag},
    {"a named variant outside its limits exits 2", test_a_named_variant_outside_its_limits_exits_2},
    {"a bad flag exits 2 with one line on stderr", test_a_bad_flag_exits_2_with_one_line_on_stderr},
    {"an unknown variant exits 2 and lists the names", test_an_unknown_variant_exits_2_and_lists_the_names},
    {"a size of the wrong kind exits 2", test_a_size_of_the_wrong_kind_exits_2},
    {"--list and -h need no GPU and exit 0", test_list_and_help_need_no_gpu_and_exit_0},
    {"every stage lists at least one variant", test_every_stage_lists_at_least_one_variant},
    {"without a GPU a run exits 3 with one line", test_without_a_gpu_a_run_exits_3_with_one_line},
    {"an unwritable CSV exits 2 before any GPU work", test_an_unwritable_csv_exits_2_before_any_gpu_work},
    CU_TEST_INFO_NULL,
};
