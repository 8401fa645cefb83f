/* SPDX-License-Identifier: MIT */
/* The gpu suite's tests of 08_all_reduce (registered by test_gpu.c as its own suite): every
 * multi-GPU variant on teams of 1, 2, 3 and 4 ranks, and of 8 and all the local GPUs where the
 * machine has them, at sizes that divide by neither G nor 4 (n = 1 included); an exact integer
 * input, then random floats, launched twice in a row with the scratch zeroed once; every output
 * of every rank poisoned with NaN first and a guard after it; every team again as if no pair
 * had peer access (the ring's add-then-copy path); buffers off 16-byte boundaries; the ring
 * with its chunks cut into slices. A team of more ranks than the machine has GPUs
 * shares them (team_open), so that on one GPU the ring's every step is tested too; nccl, which
 * needs a GPU a rank, runs only on teams that have one.
 *
 *   GPU_TEST_STAGES   runs these only when it names 08_all_reduce (or is unset)
 *   GPU_TEST_QUICK=1  small sizes, teams of up to 3 ranks, and no nccl (the sanitizers run the
 *                     suite so: NCCL's kernels are not this repository's to sanitize)
 */
#include <CUnit/CUnit.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common.h"
#include "multi_gpu.h"

extern const team_stage team_08_all_reduce;

#define GUARD_BYTES 64
#define GUARD_BYTE  0xA5
#define SLACK       256 /* bytes past every buffer: the guard and any offset */

static unsigned reported;

#define FAIL_AR(...)                                                                           \
    do {                                                                                       \
        char m_[600];                                                                          \
        snprintf(m_, sizeof m_, __VA_ARGS__);                                                  \
        CU_assertImplementation(CU_FALSE, __LINE__, reported++ < 40 ? m_ : "further failures", \
                                __FILE__, "", CU_FALSE);                                       \
    } while (0)

static int quick(void) { return getenv("GPU_TEST_QUICK") != NULL; }

/* 1 when GPU_TEST_STAGES is unset or names 08_all_reduce; else says so. */
static int selected(void)
{
    const char *s = getenv("GPU_TEST_STAGES"), *dir = "08_all_reduce";
    if (!s || !*s) return 1;
    for (const char *p = s; (p = strstr(p, dir)) != NULL; p++) {
        char before = p == s ? ' ' : p[-1], after = p[strlen(dir)];
        if ((before == ' ' || before == ',') && (after == '\0' || after == ' ' || after == ','))
            return 1;
    }
    printf("(08_all_reduce not selected) ");
    return 0;
}

static int gpu_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) n = 0;
    return n < TEAM_MAX_GPUS ? n : TEAM_MAX_GPUS;
}

/* The team sizes (ranks) to test: 1 to 4 (3 in quick mode) whatever the GPUs, sharing them
   where there are fewer; then 8 and every GPU, those the machine has. */
static int team_sizes(int *out)
{
    static const int want[] = {1, 2, 3, 4, 8};
    int count = gpu_count(), k = 0;
    if (count == 0) return 0;
    for (size_t i = 0; i < ARRAY_LEN(want); i++)
        if (want[i] <= (quick() ? 3 : 4) || (!quick() && want[i] <= count)) out[k++] = want[i];
    if (!quick() && out[k - 1] < count) out[k++] = count;
    return k;
}

typedef struct {
    gpu_team t;
    float *d_in[TEAM_MAX_GPUS], *d_out[TEAM_MAX_GPUS];
    const float *in[TEAM_MAX_GPUS]; /* d_in + offset */
    float *out[TEAM_MAX_GPUS];      /* d_out + offset */
    void *d_ws[TEAM_MAX_GPUS];
    size_t in_len[TEAM_MAX_GPUS], out_len[TEAM_MAX_GPUS];
} fixture;

/* A team of `ranks` ranks, on as many GPUs as there are, up to one a rank */
static int open_team(fixture *f, int ranks)
{
    char err[512];
    memset(f, 0, sizeof *f);
    if (team_open(&f->t, 0, ranks, err, sizeof err) != 0) {
        FAIL_AR("team_open(ranks %d): %s", ranks, err);
        return -1;
    }
    cudaError_t e = team_08_all_reduce.open(&f->t);
    if (e != cudaSuccess) {
        FAIL_AR("opening 08_all_reduce with %d ranks: %s", ranks, cudaGetErrorString(e));
        team_close(&f->t);
        return -1;
    }
    return 0;
}

static void close_team(fixture *f)
{
    team_08_all_reduce.close();
    team_close(&f->t);
    cudaSetDevice(0);
}

static void free_buffers(fixture *f)
{
    for (int r = 0; r < f->t.count; r++) {
        cudaSetDevice(f->t.dev[r]);
        cudaFree(f->d_in[r]);
        cudaFree(f->d_out[r]);
        cudaFree(f->d_ws[r]);
        f->d_in[r] = f->d_out[r] = NULL;
        f->d_ws[r] = NULL;
    }
}

/* Buffers for v at n, each `offset` floats past a 256-byte boundary; scratch zeroed. */
static int alloc_buffers(fixture *f, const team_variant *v, size_t n, size_t offset)
{
    int g = f->t.count, ok = 1;
    for (int r = 0; r < g; r++) {
        int sum = v->op == OP_SUM;
        f->in_len[r] =
            sum ? part_begin((size_t)r + 1, (size_t)g, n) - part_begin((size_t)r, (size_t)g, n) : n;
        f->out_len[r] = sum ? 1 : n;
        size_t ws = v->workspace_bytes ? v->workspace_bytes(&f->t, r, n) : 0;
        cudaSetDevice(f->t.dev[r]);
        ok &= cudaMalloc((void **)&f->d_in[r], f->in_len[r] * 4 + SLACK) == cudaSuccess;
        ok &= cudaMalloc((void **)&f->d_out[r], f->out_len[r] * 4 + SLACK) == cudaSuccess;
        ok &= cudaMalloc(&f->d_ws[r], ws ? ws : 1) == cudaSuccess;
        if (ok) ok &= cudaMemset(f->d_ws[r], 0, ws ? ws : 1) == cudaSuccess;
        if (!ok) break;
        f->in[r] = f->d_in[r] + offset;
        f->out[r] = f->d_out[r] + offset;
    }
    cudaSetDevice(f->t.dev[0]);
    if (!ok) {
        FAIL_AR("cannot allocate %s's buffers at n=%zu for %d ranks", v->name, n, g);
        free_buffers(f);
    }
    return ok ? 0 : -1;
}

/* Uploads `set` for v (an all-reduce: every rank's team_fill; a sum: one array split by
   part_begin), poisons every output and its guard, launches v once and checks every rank.
   Returns 0 when every rank is right. */
static int launch_and_check(fixture *f, const team_variant *v, size_t n, int set, const char *what)
{
    const gpu_team *t = &f->t;
    int g = t->count, sum = v->op == OP_SUM, bad = 0;
    uint64_t seed = 4242 + n;
    int sms = 1;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, t->dev[0]);
    float *x = xmalloc(n * sizeof *x), *got = xmalloc((sum ? 1 : n) * sizeof *got);
    double *ref = calloc(sum ? 1 : n, sizeof *ref), abs_sum = 0;
    if (!ref) exit(EXIT_CUDA);
    if (sum) {
        team_fill(x, n, set, 0, seed);
        ref_row_sums(x, 1, n, ref, &abs_sum);
    }
    for (int r = 0; r < g; r++) {
        if (!sum) {
            team_fill(x, n, set, r, seed);
            team_accumulate(ref, x, n);
        }
        const float *src = sum ? x + part_begin((size_t)r, (size_t)g, n) : x;
        cudaSetDevice(t->dev[r]);
        cudaMemcpy((void *)f->in[r], src, f->in_len[r] * 4, cudaMemcpyHostToDevice);
        cudaMemset(f->out[r], 0xFF, f->out_len[r] * 4);
        cudaMemset(f->out[r] + f->out_len[r], GUARD_BYTE, GUARD_BYTES);
    }
    cudaError_t e = cudaSuccess;
    for (int r = 0; r < g;
         r++) { /* the fills ran on the legacy stream, which ours do not wait for */
        cudaSetDevice(t->dev[r]);
        if (e == cudaSuccess) e = cudaDeviceSynchronize();
    }
    if (e == cudaSuccess) e = v->launch(t, f->in, f->out, n, f->d_ws);
    if (e == cudaSuccess) e = team_sync(t);
    if (e != cudaSuccess) {
        const char *detail = team_08_all_reduce.last_error();
        FAIL_AR("08_all_reduce/%s n=%zu, %d ranks (%s): CUDA %s%s%s", v->name, n, g, what,
                cudaGetErrorString(e), *detail ? ": " : "", detail);
        bad = 1;
    }
    for (int r = 0; r < g && !bad; r++) {
        unsigned char guard[GUARD_BYTES];
        cudaSetDevice(t->dev[r]);
        cudaMemcpy(got, f->out[r], f->out_len[r] * 4, cudaMemcpyDeviceToHost);
        cudaMemcpy(guard, f->out[r] + f->out_len[r], GUARD_BYTES, cudaMemcpyDeviceToHost);
        check_result c;
        if (sum && set == TEAM_SET_INTS)
            c = check_exact(got, ref, 1);
        else if (sum)
            c = check_sums_against(got, ref, &abs_sum, 1, n, sum_chain_bound(n, sms) + (size_t)g);
        else
            c = team_check(got, ref, n, g, set);
        for (size_t i = 0; i < GUARD_BYTES && c.ok; i++)
            if (guard[i] != GUARD_BYTE) {
                c.ok = 0;
                c.what = "guard";
                c.index = f->out_len[r];
            }
        if (!c.ok) {
            char msg[256];
            format_check_failure(&c, msg, sizeof msg);
            FAIL_AR("08_all_reduce/%s n=%zu, %d ranks (%s, %s input): rank %d: %s", v->name, n, g,
                    what, team_set_name(set), r, msg);
            bad = 1;
        }
    }
    cudaSetDevice(t->dev[0]);
    free(x);
    free(got);
    free(ref);
    return bad ? -1 : 0;
}

static int skip_variant(const gpu_team *t, const team_variant *v)
{
    return (quick() && strcmp(v->name, "nccl") == 0) || (v->gpu_a_rank && team_shared(t));
}

/* Every variant of op at each size on each team: both inputs, one after the other on the same
   scratch (zeroed once: a ticket left set shows on the second), at `offset` floats. With
   no_peer, each team of 2 ranks or more runs a second time as if no pair had peer access, so
   that the ring's other path (add in place, then a copy) is tested on any machine. */
static void for_teams(op_kind op, const size_t *sizes, size_t n_sizes, size_t offset,
                      const char *what, int no_peer)
{
    int teams[8], n_teams = team_sizes(teams);
    size_t cases = 0;
    char label[96];
    for (int k = 0; k < n_teams; k++) {
        fixture f;
        if (open_team(&f, teams[k]) != 0) return;
        for (int pass = 0; pass < (no_peer && teams[k] > 1 ? 2 : 1); pass++) {
            snprintf(label, sizeof label, "%s%s", what, pass ? ", no peer access" : "");
            for (int a = 0; pass && a < f.t.count; a++)
                for (int b = 0; b < f.t.count; b++) f.t.peer[a][b] = a == b;
            for (size_t i = 0; i < team_08_all_reduce.n_variants; i++) {
                const team_variant *v = &team_08_all_reduce.variants[i];
                if (v->op != op || skip_variant(&f.t, v)) continue;
                for (size_t j = 0; j < n_sizes; j++) {
                    if (alloc_buffers(&f, v, sizes[j], offset) != 0) continue;
                    if (launch_and_check(&f, v, sizes[j], TEAM_SET_INTS, label) == 0)
                        launch_and_check(&f, v, sizes[j], TEAM_SET_RANDOM, label);
                    free_buffers(&f);
                    cases++;
                }
            }
        }
        close_team(&f);
    }
    if (quick()) printf("(nccl left out under GPU_TEST_QUICK) ");
    printf("(%zu cases on teams up to %d ranks, %d GPU%s) ", cases,
           n_teams ? teams[n_teams - 1] : 0, gpu_count(), gpu_count() == 1 ? "" : "s");
    CU_ASSERT(cases > 0);
}

static const size_t awkward[] = {1,      2, 3, 5, 7, 31, 33, 1023, 1025, 4099, 65537, (1 << 20) + 3,
                                 3000017};

static void test_every_all_reduce_variant_is_exact_on_every_gpu_at_awkward_sizes(void)
{
    if (!selected()) return;
    for_teams(OP_ALLREDUCE, awkward, quick() ? 11 : ARRAY_LEN(awkward), 0, "aligned", 1);
}

static void test_sharded_sum_is_exact_with_parts_of_every_length(void)
{
    if (!selected()) return;
    for_teams(OP_SUM, awkward, quick() ? 11 : ARRAY_LEN(awkward), 0, "aligned", 0);
}

static void test_every_variant_handles_buffers_off_16_byte_boundaries(void)
{
    static const size_t sizes[] = {1, 33, 1025, 65537};
    if (!selected()) return;
    for_teams(OP_ALLREDUCE, sizes, ARRAY_LEN(sizes), 1, "offset by 1 float", 0);
    for_teams(OP_SUM, sizes, ARRAY_LEN(sizes), 3, "offset by 3 floats", 0);
}

/* The ring cuts a chunk of at least 64 MiB into slices: 2^25 + 5 floats on 2 ranks (2 slices;
   on one GPU the two ranks share it). */
static void test_the_ring_is_right_when_its_chunks_are_cut_into_slices(void)
{
    if (!selected()) return;
    if (quick()) {
        printf("(not under GPU_TEST_QUICK) ");
        return;
    }
    const team_variant *ring = NULL;
    for (size_t i = 0; i < team_08_all_reduce.n_variants; i++)
        if (strcmp(team_08_all_reduce.variants[i].name, "ring") == 0)
            ring = &team_08_all_reduce.variants[i];
    fixture f;
    size_t n = ((size_t)1 << 25) + 5;
    if (!ring || open_team(&f, 2) != 0) return;
    if (alloc_buffers(&f, ring, n, 0) == 0) {
        if (launch_and_check(&f, ring, n, TEAM_SET_INTS, "2 slices") == 0)
            launch_and_check(&f, ring, n, TEAM_SET_RANDOM, "2 slices");
        free_buffers(&f);
    }
    close_team(&f);
}

CU_TestInfo allreduce_tests[] = {
    {"every all-reduce variant is exact on every rank at awkward sizes (teams of 1 .. 4 ranks and all GPUs, with and without peer access)",
     test_every_all_reduce_variant_is_exact_on_every_gpu_at_awkward_sizes},
    {"sharded_sum is exact with parts of every length, empty ones included",
     test_sharded_sum_is_exact_with_parts_of_every_length},
    {"every multi-GPU variant handles buffers off 16-byte boundaries",
     test_every_variant_handles_buffers_off_16_byte_boundaries},
    {"the ring is right when its chunks are cut into slices",
     test_the_ring_is_right_when_its_chunks_are_cut_into_slices},
    CU_TEST_INFO_NULL,
};
