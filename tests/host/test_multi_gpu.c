/* SPDX-License-Identifier: MIT */
/* The host logic of the multi-GPU program (08_all_reduce): how arrays are cut into parts, the
   --gpus flag, the bus bytes of an all-reduce, its checks (that they reject a rank left out or
   added twice, an unwritten element, a chunk from the wrong place), the allreduce op in the CSV,
   and the program's exit codes without a GPU. */
#include <CUnit/CUnit.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "common.h"
#include "multi_gpu.h"
#include "report.h"
#include "suites.h"

static void test_parts_cover_the_array_in_order_on_16_byte_boundaries(void)
{
    static const size_t big[] = {(size_t)1 << 20, ((size_t)1 << 20) + 3, 1000003,
                                 ((size_t)1 << 28) + 5, (size_t)1 << 40};
    int ok = 1;
    for (size_t parts = 1; parts <= 2 * TEAM_MAX_GPUS; parts++) {
        for (size_t i = 0; i < 300 + ARRAY_LEN(big); i++) {
            size_t n = i < 300 ? i : big[i - 300];
            ok &= part_begin(0, parts, n) == 0 && part_begin(parts, parts, n) == n;
            for (size_t k = 0; k < parts; k++) {
                size_t b = part_begin(k, parts, n), e = part_begin(k + 1, parts, n);
                ok &= b <= e && b % 4 == 0;
                /* balanced: each part within 4 floats of n / parts */
                ok &= e - b <= n / parts + 4 && e - b + 4 >= n / parts;
            }
        }
    }
    CU_ASSERT(ok);
    /* n = 1 on 2 GPUs: the first part is empty, the second holds the float */
    CU_ASSERT_EQUAL(part_begin(1, 2, 1), 0);
    CU_ASSERT_EQUAL(part_begin(2, 2, 1), 1);
    CU_ASSERT_EQUAL(part_begin(1, 3, 1000003), 333332);
}

static int ranks;

static int take(const char *line, int *gpus, int *argc_out, char **argv)
{
    static char buf[256];
    char err[256];
    snprintf(buf, sizeof buf, "%s", line);
    int argc = 0;
    argv[argc++] = "prog";
    for (char *tok = strtok(buf, " "); tok && argc < 15; tok = strtok(NULL, " "))
        argv[argc++] = tok;
    argv[argc] = NULL;
    int rc = take_team_flags(&argc, argv, gpus, &ranks, err, sizeof err);
    *argc_out = argc;
    return rc;
}

static void test_team_flags_are_taken_out_of_argv_and_validated(void)
{
    char *argv[16];
    int gpus = -1, argc = 0;
    CU_ASSERT_EQUAL(take("-n 5 --gpus 2 --check-only", &gpus, &argc, argv), 0);
    CU_ASSERT_EQUAL(gpus, 2);
    CU_ASSERT_EQUAL(ranks, 0);
    CU_ASSERT_EQUAL(argc, 4);
    CU_ASSERT_STRING_EQUAL(argv[1], "-n");
    CU_ASSERT_STRING_EQUAL(argv[3], "--check-only");
    CU_ASSERT_PTR_NULL(argv[4]);
    CU_ASSERT_EQUAL(take("--gpus=16", &gpus, &argc, argv), 0);
    CU_ASSERT_EQUAL(gpus, 16);
    CU_ASSERT_EQUAL(argc, 1);
    CU_ASSERT_EQUAL(take("--ranks 3 -n 5 --gpus=1", &gpus, &argc, argv), 0);
    CU_ASSERT_EQUAL(gpus, 1);
    CU_ASSERT_EQUAL(ranks, 3);
    CU_ASSERT_EQUAL(argc, 3);
    CU_ASSERT_STRING_EQUAL(argv[1], "-n");
    CU_ASSERT_EQUAL(take("--ranks=4", &gpus, &argc, argv), 0);
    CU_ASSERT_EQUAL(gpus, 0);
    CU_ASSERT_EQUAL(ranks, 4);
    CU_ASSERT_EQUAL(take("-n 5", &gpus, &argc, argv), 0);
    CU_ASSERT_EQUAL(gpus, 0);
    CU_ASSERT_EQUAL(ranks, 0);
    CU_ASSERT_EQUAL(argc, 3);
    /* --ranksx is no --ranks: left for parse_options to refuse */
    CU_ASSERT_EQUAL(take("--ranksx 2", &gpus, &argc, argv), 0);
    CU_ASSERT_EQUAL(argc, 3);
    const char *bad[] = {"--gpus 0", "--gpus 17", "--gpus x", "--gpus -1",  "--gpus",
                         "--gpus=", "--gpus 2x", "--ranks 0", "--ranks 17", "--ranks",
                         "--ranks=", "--ranks= 2"};
    for (size_t i = 0; i < ARRAY_LEN(bad); i++)
        CU_ASSERT_EQUAL(take(bad[i], &gpus, &argc, argv), EXIT_USAGE);
}

static void test_bus_bytes_follow_nccl_tests(void)
{
    CU_ASSERT_EQUAL(allreduce_bytes(1000, 1), 8000); /* a copy: read and written */
    CU_ASSERT_EQUAL(allreduce_bytes(1000, 2), 4000); /* 2(G-1)/G = 1 */
    CU_ASSERT_EQUAL(allreduce_bytes(1000, 4), 6000); /* 3/2 */
    CU_ASSERT_EQUAL(allreduce_bytes(1000, 8), 7000); /* 7/4 */
    CU_ASSERT_EQUAL(allreduce_bytes(1, 3), 5);       /* 16/3, rounded down */
}

/* The reference of G ranks' inputs of a set, and the output every rank must hold. */
static void expected(size_t n, int g, int set, double *ref, float *out)
{
    float *x = malloc(n * sizeof *x);
    memset(ref, 0, n * sizeof *ref);
    for (int r = 0; r < g; r++) {
        team_fill(x, n, set, r, 7);
        team_accumulate(ref, x, n);
    }
    for (size_t i = 0; i < n; i++) out[i] = (float)ref[i];
    free(x);
}

static void test_the_check_rejects_a_rank_left_out_or_added_twice_at_any_element(void)
{
    enum { N = 1001, G = 3 };
    double *ref = malloc(N * sizeof *ref);
    float *out = malloc(N * sizeof *out), *x = malloc(N * sizeof *x);
    expected(N, G, TEAM_SET_INTS, ref, out);
    CU_ASSERT(team_check(out, ref, N, G, TEAM_SET_INTS).ok);
    team_fill(x, N, TEAM_SET_INTS, 1, 7); /* rank 1's input */
    int every = 1;
    for (size_t i = 0; i < N; i += 97) {
        for (int twice = 0; twice < 2; twice++) {
            float keep = out[i];
            out[i] = twice ? out[i] + x[i] : out[i] - x[i];
            check_result c = team_check(out, ref, N, G, TEAM_SET_INTS);
            every &= !c.ok && c.index == i;
            out[i] = keep;
        }
    }
    CU_ASSERT(every);
    /* every input is nonzero: no element can hide a missing rank */
    int nonzero = 1;
    for (size_t i = 0; i < N; i++)
        nonzero &= x[i] != 0.0f && fabsf(x[i]) <= 8.0f && x[i] == floorf(x[i]);
    CU_ASSERT(nonzero);
    /* an element never written (the NaN poison) fails, the last one included */
    out[N - 1] = NAN;
    check_result c = team_check(out, ref, N, G, TEAM_SET_INTS);
    CU_ASSERT(!c.ok && c.index == N - 1);
    free(ref);
    free(out);
    free(x);
}

static void test_the_check_rejects_a_chunk_taken_from_the_wrong_place(void)
{
    enum { N = 4096, G = 4 };
    double *ref = malloc(N * sizeof *ref);
    float *out = malloc(N * sizeof *out);
    expected(N, G, TEAM_SET_INTS, ref, out);
    /* chunk 2 holds chunk 1's sums: a ring step that sent the wrong chunk */
    size_t b1 = part_begin(1, G, N), b2 = part_begin(2, G, N);
    memcpy(out + b2, out + b1, (b2 - b1) * sizeof *out);
    check_result c = team_check(out, ref, N, G, TEAM_SET_INTS);
    CU_ASSERT(!c.ok && c.index >= b2 && c.index < b2 + 8);
    free(ref);
    free(out);
}

static void test_the_random_check_allows_rounding_and_nothing_more(void)
{
    enum { N = 2000, G = 8 };
    double *ref = malloc(N * sizeof *ref);
    float *out = malloc(N * sizeof *out);
    expected(N, G, TEAM_SET_RANDOM, ref, out);
    CU_ASSERT(team_check(out, ref, N, G, TEAM_SET_RANDOM).ok);
    /* adds in another order: a few units in the last place */
    out[10] = nextafterf(nextafterf(out[10], INFINITY), INFINITY);
    CU_ASSERT(team_check(out, ref, N, G, TEAM_SET_RANDOM).ok);
    /* a missing contribution of a [0, 1) input is far past the bound */
    out[10] = (float)(ref[10] - 0.01);
    CU_ASSERT(!team_check(out, ref, N, G, TEAM_SET_RANDOM).ok);
    /* one GPU: the all-reduce is a copy, and must be exact */
    expected(N, 1, TEAM_SET_RANDOM, ref, out);
    out[5] = nextafterf(out[5], INFINITY);
    CU_ASSERT(!team_check(out, ref, N, 1, TEAM_SET_RANDOM).ok);
    free(ref);
    free(out);
}

static void test_the_allreduce_op_is_named_parsed_and_read_back_from_csv(void)
{
    CU_ASSERT_STRING_EQUAL(op_name(OP_ALLREDUCE), "allreduce");
    const char *argv[] = {"prog", "--op", "allreduce", NULL};
    options_t o;
    char err[256];
    CU_ASSERT_EQUAL(parse_options(3, (char **)argv, &o, err, sizeof err), 0);
    CU_ASSERT(o.have_op && o.op == OP_ALLREDUCE);
    result_row r, back;
    char gpu[64];
    memset(&r, 0, sizeof r);
    snprintf(r.stage, sizeof r.stage, "08_all_reduce");
    snprintf(r.variant, sizeof r.variant, "ring");
    r.op = OP_ALLREDUCE;
    r.rows = 2;
    r.cols = 1 << 26;
    r.bytes = allreduce_bytes(r.cols, 2);
    r.median_us = 700.0;
    r.gbps = 383.5;
    r.ok = 1;
    char line[512];
    FILE *f = tmpfile();
    csv_write_row(f, "NVIDIA H100 80GB HBM3", &r);
    rewind(f);
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, f));
    fclose(f);
    CU_ASSERT_PTR_NOT_NULL(strstr(line, ",ring,allreduce,f32,2,67108864,268435456,"));
    CU_ASSERT_EQUAL(csv_parse_row(line, &back, gpu, sizeof gpu), 0);
    CU_ASSERT_EQUAL(back.op, OP_ALLREDUCE);
    CU_ASSERT_EQUAL(back.rows, 2);
}

/* The program, run as a user runs it (BUILD_DIR, default build). */
static char out_text[8192], err_text[8192];

static int run_08(const char *args)
{
    const char *dir = getenv("BUILD_DIR") ? getenv("BUILD_DIR") : "build";
    char cmd[1024], o[64], e[64];
    snprintf(o, sizeof o, "/tmp/reduce-08-%ld.out", (long)getpid());
    snprintf(e, sizeof e, "/tmp/reduce-08-%ld.err", (long)getpid());
    snprintf(cmd, sizeof cmd, "%s/08_all_reduce %s >%s 2>%s", dir, args, o, e);
    int st = system(cmd);
    FILE *f;
    out_text[0] = err_text[0] = '\0';
    if ((f = fopen(o, "r"))) {
        out_text[fread(out_text, 1, sizeof out_text - 1, f)] = '\0';
        fclose(f);
    }
    if ((f = fopen(e, "r"))) {
        err_text[fread(err_text, 1, sizeof err_text - 1, f)] = '\0';
        fclose(f);
    }
    remove(o);
    remove(e);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int one_line(const char *s)
{
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n == 1;
}

static void test_the_all_reduce_program_keeps_the_exit_codes(void)
{
    int gpus = 0;
    if (cudaGetDeviceCount(&gpus) != cudaSuccess) gpus = 0;
    CU_ASSERT_EQUAL(run_08("--list"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "  ring "));
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "allreduce"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "  sharded_sum "));
    CU_ASSERT_EQUAL(run_08("-h"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "--gpus"));
    const char *bad[] = {
        "--gpus 0",     "--gpus two", "--rows 4 --cols 4", "--variant nope", "--dtype f16",
        "--op softmax", "-n 0"};
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        CU_ASSERT_EQUAL(run_08(bad[i]), 2);
        CU_ASSERT(one_line(err_text) && strstr(err_text, "error:"));
    }
    /* more GPUs than present: without a GPU the device error (3) comes first */
    CU_ASSERT_EQUAL(run_08("--gpus 16 -n 5 --check-only"), gpus >= 16 ? 0 : gpus > 0 ? 2 : 3);
    if (gpus > 0 && gpus < 16) CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "--gpus 16: only"));
    if (gpus == 0) CU_ASSERT(one_line(err_text) && strstr(err_text, "no CUDA device"));
}

CU_TestInfo multi_gpu_tests[] = {
    {"parts cover the array in order on 16-byte boundaries",
     test_parts_cover_the_array_in_order_on_16_byte_boundaries},
    {"--gpus and --ranks are taken out of argv and validated",
     test_team_flags_are_taken_out_of_argv_and_validated},
    {"bus bytes follow nccl-tests (2(G-1)/G; a copy on one GPU)", test_bus_bytes_follow_nccl_tests},
    {"the check rejects a rank left out or added twice at any element",
     test_the_check_rejects_a_rank_left_out_or_added_twice_at_any_element},
    {"the check rejects a chunk taken from the wrong place",
     test_the_check_rejects_a_chunk_taken_from_the_wrong_place},
    {"the random check allows rounding and nothing more",
     test_the_random_check_allows_rounding_and_nothing_more},
    {"the allreduce op is named, parsed and read back from CSV",
     test_the_allreduce_op_is_named_parsed_and_read_back_from_csv},
    {"the all-reduce program keeps the exit codes",
     test_the_all_reduce_program_keeps_the_exit_codes},
    CU_TEST_INFO_NULL,
};
