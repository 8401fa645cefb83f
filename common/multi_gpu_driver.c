/* SPDX-License-Identifier: MIT */
/* multi_gpu_driver.c: the program of a multi-GPU stage (08_all_reduce): one process, the first G
 * local GPUs, the program contract of DESIGN.md.
 *
 * For each size: the inputs of every rank uploaded (an exact integer set, then random floats),
 * every selected variant checked on each (every output of every rank poisoned with NaN first,
 * guard bytes after each output), then the ceiling measured and every variant that passed timed:
 * CUDA events on rank 0's stream around each repetition; every rank's stream waits for the start
 * (an event) and rank 0's stream waits for every rank's last work (an event each), so a
 * repetition ends when the slowest GPU is done. Before each repetition, outside the events, every
 * GPU reads 3x its L2.
 */
#include "baselines.h"
#include "check.h"
#include "cli.h"
#include "common.h"
#include "device.h"
#include "multi_gpu.h"
#include "report.h"
#include "timing.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD_BYTES 64 /* after every output: a write past its end changes them */
#define GUARD_BYTE  0xA5
#define SLACK \
    256 /* bytes allocated past every buffer: the guard, and libraries that read
                          whole 16-byte words past a short buffer's end stay inside it */
#define DEFAULT_SUM_N       ((size_t)1 << 28) /* the ladder's standard full sum */
#define DEFAULT_N_ALLREDUCE ((size_t)1 << 26) /* 256 MiB a GPU: far past every L2 */
#define PAIR_ITERS          10                /* repetitions of each pair of the peer table */

/* ------------------------------------------------------------------------------------------ */
/* The team                                                                                   */

int team_open(gpu_team *t, int gpus, int ranks, char *err, size_t err_len)
{
    memset(t, 0, sizeof *t);
    int count = 0, rc = device_count(&count, err, err_len);
    if (rc) return rc;
    cudaError_t e;
    if (gpus > count) {
        snprintf(err, err_len, "--gpus %d: only %d GPU%s present; choose 1 .. %d (--ranks %d "
                 "puts %d ranks on them)", gpus, count, count == 1 ? " is" : "s are",
                 count < TEAM_MAX_GPUS ? count : TEAM_MAX_GPUS, gpus, gpus);
        return EXIT_USAGE;
    }
    if (gpus && ranks && ranks < gpus) {
        snprintf(err, err_len, "--ranks %d --gpus %d: fewer ranks than GPUs; a rank a GPU at "
                 "least", ranks, gpus);
        return EXIT_USAGE;
    }
    const int most = count < TEAM_MAX_GPUS ? count : TEAM_MAX_GPUS;
    t->gpus = gpus ? gpus : ranks && ranks < most ? ranks : most;
    t->count = ranks ? ranks : t->gpus;
    for (int r = 0; r < t->count; r++) {
        t->dev[r] = r % t->gpus;
        if ((e = cudaSetDevice(t->dev[r])) != cudaSuccess || (e = cudaFree(0)) != cudaSuccess ||
            (e = cudaStreamCreateWithFlags(&t->stream[r], cudaStreamNonBlocking)) != cudaSuccess) {
            snprintf(err, err_len, "cannot open CUDA device %d: %s", t->dev[r],
                     cudaGetErrorString(e));
            team_close(t);
            return EXIT_CUDA;
        }
    }
    /* Peer access belongs to the process: once enabled it stays, and asking again is an error
       (cudaErrorPeerAccessAlreadyEnabled) that compute-sanitizer reports. Ask once a pair. */
    static unsigned char enabled[TEAM_MAX_GPUS][TEAM_MAX_GPUS];
    for (int a = 0; a < t->gpus; a++)
        for (int b = 0; b < t->gpus; b++) {
            int can = 0;
            if (a == b || enabled[a][b] || cudaDeviceCanAccessPeer(&can, a, b) != cudaSuccess ||
                !can)
                continue;
            cudaSetDevice(a);
            e = cudaDeviceEnablePeerAccess(b, 0);
            enabled[a][b] = e == cudaSuccess || e == cudaErrorPeerAccessAlreadyEnabled;
            if (e != cudaSuccess) (void)cudaGetLastError(); /* a refusal is an answer */
        }
    for (int a = 0; a < t->count; a++)
        for (int b = 0; b < t->count; b++)
            t->peer[a][b] = t->dev[a] == t->dev[b] || enabled[t->dev[a]][t->dev[b]];
    cudaSetDevice(t->dev[0]);
    return 0;
}

cudaError_t team_sync(const gpu_team *t)
{
    cudaError_t first = cudaSuccess;
    for (int r = 0; r < t->count; r++) {
        cudaError_t e = cudaSetDevice(t->dev[r]);
        if (e == cudaSuccess) e = cudaStreamSynchronize(t->stream[r]);
        if (first == cudaSuccess) first = e;
    }
    cudaSetDevice(t->dev[0]);
    return first;
}

void team_close(gpu_team *t)
{
    for (int r = 0; r < t->count; r++) {
        if (!t->stream[r]) continue;
        cudaSetDevice(t->dev[r]);
        cudaStreamDestroy(t->stream[r]);
        t->stream[r] = NULL;
    }
    if (t->count) cudaSetDevice(t->dev[0]);
}

/* ------------------------------------------------------------------------------------------ */
/* One run                                                                                    */

typedef enum { GROUP_SUM, GROUP_ALLREDUCE } group_kind;

typedef struct {
    group_kind kind;
    size_t n;
    int is_default; /* the size was not given: halved until it fits */
} shape_t;

typedef struct {
    const team_stage *st;
    const options_t *o;
    const char *prog;
    gpu_team t;
    device_info info[TEAM_MAX_GPUS];
    int selected[64];
    int left_out; /* variants the shared team left out (they need a GPU a rank) */
    int exit_code;
    cudaEvent_t fork, join[TEAM_MAX_GPUS]; /* fork on rank 0, join[r] on rank r */
    /* the L2 flush of every GPU */
    void *d_flush[TEAM_MAX_GPUS];
    uint32_t *d_flush_xor[TEAM_MAX_GPUS];
    size_t flush_bytes[TEAM_MAX_GPUS];
    /* the buffers of the current shape, rank by rank */
    float *d_in[TEAM_MAX_GPUS], *d_out[TEAM_MAX_GPUS];
    const float *in_view[TEAM_MAX_GPUS]; /* d_in as the launchers take it */
    void *d_ws[TEAM_MAX_GPUS];
    uint32_t *d_xor[TEAM_MAX_GPUS];
    size_t in_len[TEAM_MAX_GPUS], out_len[TEAM_MAX_GPUS], ws_bytes[TEAM_MAX_GPUS];
} team_run;

static void die_cuda(cudaError_t e, const char *what)
{
    fprintf(stderr,
            "error: %s: CUDA %s (%s); a kernel fault leaves the GPU unusable: find it with "
            "`make sanitize`\n",
            what, cudaGetErrorName(e), cudaGetErrorString(e));
    exit(EXIT_CUDA);
}

/* Every rank's stream waits for what rank 0's stream holds so far. */
static cudaError_t fork_all(team_run *r)
{
    const gpu_team *t = &r->t;
    cudaError_t e = cudaSetDevice(t->dev[0]);
    if (e == cudaSuccess) e = cudaEventRecord(r->fork, t->stream[0]);
    for (int q = 1; q < t->count && e == cudaSuccess; q++)
        e = cudaStreamWaitEvent(t->stream[q], r->fork, 0);
    return e;
}

/* Rank 0's stream waits for everything every rank's stream holds so far. */
static cudaError_t join_all(team_run *r)
{
    const gpu_team *t = &r->t;
    cudaError_t e = cudaSuccess;
    for (int q = 1; q < t->count && e == cudaSuccess; q++) {
        e = cudaSetDevice(t->dev[q]);
        if (e == cudaSuccess) e = cudaEventRecord(r->join[q], t->stream[q]);
        if (e == cudaSuccess) e = cudaStreamWaitEvent(t->stream[0], r->join[q], 0);
    }
    cudaError_t e2 = cudaSetDevice(t->dev[0]);
    return e != cudaSuccess ? e : e2;
}

/* Before every timed repetition: every GPU reads 3x its L2, then rank 0 waits for all of them. */
static cudaError_t flush_all(void *p, cudaStream_t s)
{
    (void)s;
    team_run *r = p;
    cudaError_t e = cudaSuccess;
    for (int q = 0; q < r->t.count && e == cudaSuccess; q++) {
        e = cudaSetDevice(r->t.dev[q]);
        if (e == cudaSuccess)
            e = read_stream_launch(r->d_flush[q], r->flush_bytes[q], r->d_flush_xor[q],
                                   r->t.stream[q]);
    }
    return e == cudaSuccess ? join_all(r) : e;
}

typedef struct {
    team_run *r;
    const team_variant *v; /* the variant timed; NULL for a ceiling */
    size_t n;
    int sum; /* ceiling: the read of a sum's parts, else the copy of an all-reduce */
} rep_ctx;

/* One repetition of a variant: forked from rank 0, joined back into it. */
static cudaError_t rep_variant(void *p, cudaStream_t s)
{
    (void)s;
    rep_ctx *c = p;
    team_run *r = c->r;
    cudaError_t e = fork_all(r);
    if (e == cudaSuccess) e = c->v->launch(&r->t, r->in_view, r->d_out, c->n, r->d_ws);
    cudaError_t e2 = join_all(r);
    return e != cudaSuccess ? e : e2;
}

/* The ceilings, forked and joined the same way:
   allreduce, G >= 2: every rank q copies its n floats into rank q + 1 at once (peer_copy);
   allreduce, G = 1:  a device-to-device copy (copy);
   sum:               every rank reads its part of the array (read_stream). */
static cudaError_t rep_ceiling(void *p, cudaStream_t s)
{
    (void)s;
    rep_ctx *c = p;
    team_run *r = c->r;
    const gpu_team *t = &r->t;
    cudaError_t e = fork_all(r);
    for (int q = 0; q < t->count && e == cudaSuccess; q++) {
        int next = (q + 1) % t->count;
        e = cudaSetDevice(t->dev[q]);
        if (e != cudaSuccess) break;
        if (c->sum)
            e = read_stream_launch(r->d_in[q], r->in_len[q] * sizeof(float), r->d_xor[q],
                                   t->stream[q]);
        else if (t->count == 1)
            e = cudaMemcpyAsync(r->d_out[0], r->d_in[0], c->n * sizeof(float),
                                cudaMemcpyDeviceToDevice, t->stream[0]);
        else
            e = cudaMemcpyPeerAsync(r->d_out[next], t->dev[next], r->d_in[q], t->dev[q],
                                    c->n * sizeof(float), t->stream[q]);
    }
    cudaError_t e2 = join_all(r);
    return e != cudaSuccess ? e : e2;
}

static void time_or_die(team_run *r, rep_fn fn, void *ctx, const char *what, const char *label,
                        timing_t *t)
{
    cudaSetDevice(r->t.dev[0]);
    cudaError_t e =
        time_reps(fn, ctx, flush_all, r, r->o->warmup, r->o->iters, r->t.stream[0], label, t);
    if (e != cudaSuccess) {
        char msg[200];
        snprintf(msg, sizeof msg, "timing %s failed", what);
        die_cuda(e, msg);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Rows: the table for people, the CSV for programs                                          */

static void table_header_team(void)
{
    printf("%-20s %-9s %5s %-14s %10s %10s %9s %9s %6s  %s\n", "variant", "op", "ranks", "shape",
           "median_us", "min_us", "GB/s", "busbw", "%ceil", "check");
}

/* For all-reduce rows GB/s is algbw (4n / time) and busbw the CSV's gbps; sums have no busbw. */
static void table_row_team(const result_row *row)
{
    char shape[48], name[96], busbw[16] = "-";
    format_shape(row->op, row->rows, row->cols, shape, sizeof shape);
    if (strcmp(row->stage, "baseline") == 0)
        snprintf(name, sizeof name, "[%s]", row->variant);
    else
        snprintf(name, sizeof name, "%s", row->variant);
    if (!row->timed) {
        printf("%-20s %-9s %5zu %-14s %10s %10s %9s %9s %6s  %s (max |err| %.3g)\n", name,
               op_name(row->op), row->rows, shape, "-", "-", "-", "-", "-", row->ok ? "ok" : "FAIL",
               row->max_err);
        return;
    }
    double gbps = row->gbps;
    if (row->op == OP_ALLREDUCE) {
        snprintf(busbw, sizeof busbw, "%.1f", row->gbps);
        gbps = gbps_of(row->cols * sizeof(float), row->median_us);
    }
    printf("%-20s %-9s %5zu %-14s %10.2f %10.2f %9.1f %9s %6.1f  %s\n", name, op_name(row->op),
           row->rows, shape, row->median_us, row->min_us, gbps, busbw, row->pct_of_ceiling,
           row->ok ? "ok" : "FAIL");
}

static void emit(team_run *r, result_row *row)
{
    table_row_team(row);
    if (r->o->csv && csv_append(r->o->csv, &r->info[0], row) != 0) {
        fprintf(stderr, "error: --csv %s: cannot write: %s\n", r->o->csv, strerror(errno));
        exit(EXIT_USAGE);
    }
}

static void fill_row(team_run *r, result_row *row, const char *stage, const char *variant,
                     op_kind op, size_t n, size_t bytes)
{
    memset(row, 0, sizeof *row);
    snprintf(row->stage, sizeof row->stage, "%s", stage);
    snprintf(row->variant, sizeof row->variant, "%s", variant);
    row->op = op;
    row->dt = DT_F32;
    row->rows = (size_t)r->t.count;
    row->cols = n;
    row->bytes = bytes;
}

static void set_timing(result_row *row, const timing_t *tm, double ceiling)
{
    row->timed = 1;
    row->median_us = tm->median_us;
    row->min_us = tm->min_us;
    row->gbps = gbps_of(row->bytes, tm->median_us);
    row->ceiling_gbps = ceiling > 0 ? ceiling : row->gbps;
    row->pct_of_ceiling = 100.0 * row->gbps / row->ceiling_gbps;
}

/* ------------------------------------------------------------------------------------------ */
/* Buffers of one shape                                                                       */

static size_t shape_ws(const team_run *r, const shape_t *sh, int q)
{
    size_t ws = 0;
    for (size_t i = 0; i < r->st->n_variants; i++) {
        const team_variant *v = &r->st->variants[i];
        if (!r->selected[i] || (v->op == OP_SUM) != (sh->kind == GROUP_SUM)) continue;
        size_t b = v->workspace_bytes ? v->workspace_bytes(&r->t, q, sh->n) : 0;
        if (b > ws) ws = b;
    }
    return ws;
}

/* The floats rank q holds in and out at a shape. */
static void shape_lens(const team_run *r, const shape_t *sh, int q, size_t *in, size_t *out)
{
    int g = r->t.count;
    if (sh->kind == GROUP_SUM) {
        *in = part_begin((size_t)q + 1, (size_t)g, sh->n) - part_begin((size_t)q, (size_t)g, sh->n);
        *out = 1;
    } else {
        *in = *out = sh->n;
    }
}

static size_t shape_device_bytes(const team_run *r, const shape_t *sh, int q)
{
    size_t in, out;
    shape_lens(r, sh, q, &in, &out);
    return (in + out) * sizeof(float) + 3 * SLACK + shape_ws(r, sh, q) +
           read_stream_blocks(in * 4) * 4;
}

/* 0 if every rank holds the shape with a tenth of its free memory to spare, else the first
   rank that cannot, plus one. */
static int shape_short(const team_run *r, const shape_t *sh, size_t *need, size_t *free_b)
{
    for (int q = 0; q < r->t.count; q++) {
        size_t f = 0, total = 0;
        cudaSetDevice(r->t.dev[q]);
        if (cudaMemGetInfo(&f, &total) != cudaSuccess) f = 0;
        *need = 0; /* every rank on q's GPU */
        for (int k = 0; k < r->t.count; k++)
            if (r->t.dev[k] == r->t.dev[q]) *need += shape_device_bytes(r, sh, k);
        *free_b = f;
        if (*need > f / 10 * 9) {
            cudaSetDevice(r->t.dev[0]);
            return q + 1;
        }
    }
    cudaSetDevice(r->t.dev[0]);
    return 0;
}

static void alloc_shape(team_run *r, const shape_t *sh)
{
    for (int q = 0; q < r->t.count; q++) {
        shape_lens(r, sh, q, &r->in_len[q], &r->out_len[q]);
        r->ws_bytes[q] = shape_ws(r, sh, q);
        CHECK_CUDA(cudaSetDevice(r->t.dev[q]));
        CHECK_CUDA(cudaMalloc((void **)&r->d_in[q], r->in_len[q] * sizeof(float) + SLACK));
        CHECK_CUDA(cudaMalloc((void **)&r->d_out[q], r->out_len[q] * sizeof(float) + SLACK));
        CHECK_CUDA(cudaMalloc(&r->d_ws[q], r->ws_bytes[q] ? r->ws_bytes[q] : 1));
        CHECK_CUDA(
            cudaMalloc((void **)&r->d_xor[q], read_stream_blocks(r->in_len[q] * 4) * 4 + SLACK));
        r->in_view[q] = r->d_in[q];
    }
    CHECK_CUDA(cudaSetDevice(r->t.dev[0]));
}

static void free_shape(team_run *r)
{
    for (int q = 0; q < r->t.count; q++) {
        cudaSetDevice(r->t.dev[q]);
        cudaFree(r->d_in[q]);
        cudaFree(r->d_out[q]);
        cudaFree(r->d_ws[q]);
        cudaFree(r->d_xor[q]);
        r->d_in[q] = r->d_out[q] = NULL;
        r->d_ws[q] = NULL;
        r->d_xor[q] = NULL;
        r->in_view[q] = NULL;
    }
    cudaSetDevice(r->t.dev[0]);
}

/* ------------------------------------------------------------------------------------------ */
/* Checking                                                                                   */

typedef struct {
    int failed;       /* 1: a check failed */
    int rank;         /* where */
    const char *set;  /* on which input */
    check_result res; /* the first failure, or the last result */
    double max_err;   /* over every rank and set */
} verdict;

static void launch_or_die(team_run *r, const team_variant *v, size_t n)
{
    rep_ctx c = {r, v, n, 0};
    cudaError_t e = rep_variant(&c, r->t.stream[0]);
    if (e == cudaSuccess) e = team_sync(&r->t);
    if (e != cudaSuccess) {
        char msg[200];
        const char *detail = r->st->last_error ? r->st->last_error() : "";
        snprintf(msg, sizeof msg, "%s/%s failed%s%s", r->st->dir, v->name, *detail ? ": " : "",
                 detail);
        die_cuda(e, msg);
    }
}

/* Poisons every rank's output (all-ones bytes: NaN) and the guard after it, launches v once,
   and checks every rank's output against ref (all-reduce: n values; sum: one). */
static void check_variant(team_run *r, const team_variant *v, size_t n, int set, const double *ref,
                          const double *abs_sum, size_t chain, float *h_out, verdict *vd)
{
    const gpu_team *t = &r->t;
    for (int q = 0; q < t->count; q++) {
        size_t out_bytes = r->out_len[q] * sizeof(float);
        CHECK_CUDA(cudaSetDevice(t->dev[q]));
        CHECK_CUDA(cudaMemsetAsync(r->d_out[q], 0xFF, out_bytes, t->stream[q]));
        CHECK_CUDA(cudaMemsetAsync((char *)r->d_out[q] + out_bytes, GUARD_BYTE, GUARD_BYTES,
                                   t->stream[q]));
    }
    CHECK_CUDA(team_sync(t));
    launch_or_die(r, v, n);
    for (int q = 0; q < t->count && !vd->failed; q++) {
        size_t out_bytes = r->out_len[q] * sizeof(float);
        unsigned char guard[GUARD_BYTES];
        CHECK_CUDA(cudaSetDevice(t->dev[q]));
        CHECK_CUDA(cudaMemcpy(h_out, r->d_out[q], out_bytes, cudaMemcpyDeviceToHost));
        CHECK_CUDA(cudaMemcpy(guard, (char *)r->d_out[q] + out_bytes, GUARD_BYTES,
                              cudaMemcpyDeviceToHost));
        check_result res;
        if (v->op == OP_SUM)
            res = set == TEAM_SET_INTS ? check_exact(h_out, ref, 1)
                                       : check_sums_against(h_out, ref, abs_sum, 1, n, chain);
        else
            res = team_check(h_out, ref, n, t->count, set);
        for (size_t i = 0; i < GUARD_BYTES && res.ok; i++) {
            if (guard[i] == GUARD_BYTE) continue;
            memset(&res, 0, sizeof res);
            res.index = r->out_len[q]; /* one past the last element */
            res.what = "guard";
        }
        if (res.max_err > vd->max_err) vd->max_err = res.max_err;
        vd->res = res;
        if (!res.ok) {
            vd->failed = 1;
            vd->rank = q;
            vd->set = team_set_name(set);
        }
    }
    CHECK_CUDA(cudaSetDevice(t->dev[0]));
}

static void report_failure(team_run *r, const team_variant *v, size_t n, const verdict *vd)
{
    char msg[256];
    format_check_failure(&vd->res, msg, sizeof msg);
    printf("  FAIL %s/%s (%s f32, n=%zu, %d GPU%s, %s input): GPU %d: %s; not timed\n", r->st->dir,
           v->name, op_name(v->op), n, r->t.count, r->t.count == 1 ? "" : "s", vd->set, vd->rank,
           msg);
    r->exit_code = EXIT_CHECK_FAIL;
}

/* ------------------------------------------------------------------------------------------ */
/* The peer copy between each pair of GPUs, one pair at a time                                */

typedef struct {
    team_run *r;
    int from, to;
    size_t bytes;
} pair_ctx;

static cudaError_t rep_pair(void *p, cudaStream_t s)
{
    pair_ctx *c = p;
    const gpu_team *t = &c->r->t;
    return cudaMemcpyPeerAsync(c->r->d_out[c->to], t->dev[c->to], c->r->d_in[c->from],
                               t->dev[c->from], c->bytes, s);
}

static void peer_table(team_run *r, size_t n)
{
    const gpu_team *t = &r->t;
    printf("peer copy GB/s, one pair at a time (cudaMemcpyPeerAsync of n = %zu floats; row: from, "
           "column: to):\n",
           n);
    printf("%8s", "");
    for (int b = 0; b < t->count; b++) printf("   GPU%-4d", b);
    printf("\n");
    for (int a = 0; a < t->count; a++) {
        printf("GPU%-5d", a);
        for (int b = 0; b < t->count; b++) {
            if (a == b) {
                printf("%10s", "-");
                continue;
            }
            pair_ctx c = {r, a, b, n * sizeof(float)};
            timing_t tm;
            CHECK_CUDA(
                cudaSetDevice(t->dev[b])); /* time_reps makes its events on the current GPU */
            cudaError_t e =
                time_reps(rep_pair, &c, NULL, NULL, 1, PAIR_ITERS, t->stream[b], NULL, &tm);
            if (e != cudaSuccess) die_cuda(e, "timing a peer copy failed");
            printf("%9.1f%s", gbps_of(n * sizeof(float), tm.median_us), t->peer[b][a] ? " " : "*");
        }
        printf("\n");
    }
    CHECK_CUDA(cudaSetDevice(t->dev[0]));
    printf("(* no peer access: the driver stages the copy through host memory)\n");
}

/* ------------------------------------------------------------------------------------------ */
/* One shape                                                                                  */

static int group_has(const team_run *r, group_kind g)
{
    for (size_t i = 0; i < r->st->n_variants; i++)
        if (r->selected[i] && (r->st->variants[i].op == OP_SUM) == (g == GROUP_SUM)) return 1;
    return 0;
}

/* Uploads the inputs of one set: all-reduce: every rank's team_fill, summed into ref; sum: one
   array x of n floats, split across the ranks by part_begin, its sum into ref[0]. */
static void upload_set(team_run *r, const shape_t *sh, int set, float *h_buf, double *ref,
                       double *abs_sum)
{
    const gpu_team *t = &r->t;
    uint64_t seed = r->o->seed ^ (uint64_t)sh->n * 1000003u;
    if (sh->kind == GROUP_ALLREDUCE) {
        memset(ref, 0, sh->n * sizeof *ref);
        for (int q = 0; q < t->count; q++) {
            team_fill(h_buf, sh->n, set, q, seed);
            team_accumulate(ref, h_buf, sh->n);
            CHECK_CUDA(cudaSetDevice(t->dev[q]));
            CHECK_CUDA(
                cudaMemcpy(r->d_in[q], h_buf, sh->n * sizeof(float), cudaMemcpyHostToDevice));
        }
    } else {
        team_fill(h_buf, sh->n, set, 0, seed);
        ref_row_sums(h_buf, 1, sh->n, ref, abs_sum);
        for (int q = 0; q < t->count; q++) {
            size_t b = part_begin((size_t)q, (size_t)t->count, sh->n);
            CHECK_CUDA(cudaSetDevice(t->dev[q]));
            CHECK_CUDA(cudaMemcpy(r->d_in[q], h_buf + b, r->in_len[q] * sizeof(float),
                                  cudaMemcpyHostToDevice));
        }
    }
    /* a copy from pageable memory (where pinned memory was refused) may still be in flight on the
       legacy stream, which the ranks' streams do not wait for */
    for (int q = 0; q < t->count; q++) {
        CHECK_CUDA(cudaSetDevice(t->dev[q]));
        CHECK_CUDA(cudaDeviceSynchronize());
    }
    CHECK_CUDA(cudaSetDevice(t->dev[0]));
}

/* Measures the ceiling at this shape once (its inputs are the random set) and checks that it
   moved the right bytes. Returns its GB/s (per GPU for copies; all GPUs together for reads). */
static double measure_ceiling(team_run *r, const shape_t *sh, float *h_buf, float *h_out)
{
    const gpu_team *t = &r->t;
    int sum = sh->kind == GROUP_SUM, g = t->count;
    rep_ctx c = {r, NULL, sh->n, sum};
    CHECK_CUDA(rep_ceiling(&c, t->stream[0]));
    CHECK_CUDA(team_sync(t));
    int ok = 1;
    uint64_t seed = r->o->seed ^ (uint64_t)sh->n * 1000003u;
    if (sum) {
        team_fill(h_buf, sh->n, TEAM_SET_RANDOM, 0, seed);
        for (int q = 0; q < g && ok; q++) {
            size_t nb = read_stream_blocks(r->in_len[q] * 4);
            uint32_t *blk = xmalloc(nb * sizeof *blk), got = 0, want = 0;
            CHECK_CUDA(cudaSetDevice(t->dev[q]));
            CHECK_CUDA(cudaMemcpy(blk, r->d_xor[q], nb * sizeof *blk, cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < nb; i++) got ^= blk[i];
            const float *part = h_buf + part_begin((size_t)q, (size_t)g, sh->n);
            for (size_t i = 0; i < r->in_len[q]; i++) {
                uint32_t w;
                memcpy(&w, part + i, 4);
                want ^= w;
            }
            ok = got == want;
            free(blk);
        }
    } else {
        for (int q = 0; q < g && ok; q++) { /* rank q holds what rank q - 1 sent */
            team_fill(h_buf, sh->n, TEAM_SET_RANDOM, g == 1 ? 0 : (q + g - 1) % g, seed);
            CHECK_CUDA(cudaSetDevice(t->dev[q]));
            CHECK_CUDA(
                cudaMemcpy(h_out, r->d_out[q], sh->n * sizeof(float), cudaMemcpyDeviceToHost));
            ok = memcmp(h_out, h_buf, sh->n * sizeof(float)) == 0;
        }
    }
    CHECK_CUDA(cudaSetDevice(t->dev[0]));
    const char *name = sum ? "read_stream" : g == 1 ? "copy" : "peer_copy";
    char label[128];
    snprintf(label, sizeof label, "baseline/%s/%s/f32", name, sum ? "sum" : "allreduce");
    timing_t tm;
    time_or_die(r, rep_ceiling, &c, name, label, &tm);
    result_row row;
    size_t bytes = sum      ? sh->n * sizeof(float)
                   : g == 1 ? 2 * sh->n * sizeof(float)
                            : sh->n * sizeof(float);
    fill_row(r, &row, "baseline", name, sum ? OP_SUM : OP_ALLREDUCE, sh->n, bytes);
    set_timing(&row, &tm, 0.0);
    row.ok = ok;
    emit(r, &row);
    if (!ok) {
        fprintf(stderr,
                "error: the %s ceiling moved the wrong bytes: the GPUs or the driver are faulty\n",
                name);
        exit(EXIT_CUDA);
    }
    return row.gbps;
}

static void run_shape(team_run *r, const shape_t *sh, int last_allreduce)
{
    const team_stage *st = r->st;
    const gpu_team *t = &r->t;
    int sum = sh->kind == GROUP_SUM;
    verdict vd[64];
    memset(vd, 0, sizeof vd);
    alloc_shape(r, sh);
    float *h_buf = pinned_alloc(sh->n * sizeof(float));
    float *h_out = pinned_alloc((sum ? 1 : sh->n) * sizeof(float));
    double *ref = xmalloc((sum ? 1 : sh->n) * sizeof *ref), abs_sum = 0.0;
    /* the longest chain of adds a sum may make: 06's bound for the largest part, plus G */
    size_t chain = sum_chain_bound(r->in_len[0] + 4, r->info[0].sm_count) + (size_t)t->count;

    /* every variant on the exact set, then on the random one (on the device when timing). Its
       scratch is zeroed before the first launch only: a launch must leave zeroed what it relies
       on (a ticket), and the second check sees whether it did. */
    for (int set = 0; set < TEAM_SETS; set++) {
        upload_set(r, sh, set, h_buf, ref, &abs_sum);
        for (size_t i = 0; i < st->n_variants; i++) {
            const team_variant *v = &st->variants[i];
            if (!r->selected[i] || (v->op == OP_SUM) != sum || vd[i].failed) continue;
            if (set == 0) /* on the rank's own stream: ours do not wait for the legacy one */
                for (int q = 0; q < t->count; q++) {
                    CHECK_CUDA(cudaSetDevice(t->dev[q]));
                    CHECK_CUDA(cudaMemsetAsync(r->d_ws[q], 0, r->ws_bytes[q] ? r->ws_bytes[q] : 1,
                                               t->stream[q]));
                }
            check_variant(r, v, sh->n, set, ref, &abs_sum, chain, h_out, &vd[i]);
        }
    }
    CHECK_CUDA(cudaSetDevice(t->dev[0]));

    double ceiling = 0.0;
    if (!r->o->check_only) ceiling = measure_ceiling(r, sh, h_buf, h_out);
    for (size_t i = 0; i < st->n_variants; i++) {
        const team_variant *v = &st->variants[i];
        if (!r->selected[i] || (v->op == OP_SUM) != sum) continue;
        result_row row;
        fill_row(r, &row, st->dir, v->name, v->op, sh->n,
                 sum ? op_bytes(OP_SUM, DT_F32, DT_F32, 1, sh->n)
                     : allreduce_bytes(sh->n, t->count));
        row.ok = !vd[i].failed;
        row.max_err = vd[i].max_err;
        if (row.ok && !r->o->check_only) {
            rep_ctx c = {r, v, sh->n, 0};
            char label[128];
            timing_t tm;
            snprintf(label, sizeof label, "%s/%s/%s/f32", st->dir, v->name, op_name(v->op));
            time_or_die(r, rep_variant, &c, v->name, label, &tm);
            set_timing(&row, &tm, ceiling);
        }
        emit(r, &row);
        if (vd[i].failed) report_failure(r, v, sh->n, &vd[i]);
    }
    if (last_allreduce && !sum && !r->o->check_only && t->count > 1 && !team_shared(t))
        peer_table(r, sh->n);
    pinned_free(h_buf);
    pinned_free(h_out);
    free(ref);
    free_shape(r);
}

/* ------------------------------------------------------------------------------------------ */
/* Selection, shapes, main                                                                    */

static void list_variants(const team_stage *st)
{
    printf("%s: %s\n", st->dir, st->title);
    for (size_t i = 0; i < st->n_variants; i++) {
        const team_variant *v = &st->variants[i];
        printf("  %-24s %-10s %-10s  %s\n", v->name, op_name(v->op), "f32->f32", v->idea);
    }
    if (st->missing) printf("note: %s\n", st->missing);
}

static void print_team_usage(const char *prog)
{
    print_usage(prog);
    printf("\n"
           "This program drives every local GPU from one process. Its sizes:\n"
           "  -n N            all-reduce: the floats each GPU holds (default 2^26);\n"
           "                  sum (sharded_sum): the whole array, split across the GPUs (default "
           "2^28)\n"
           "  --gpus G        use GPUs 0 .. G-1: 1 .. %d (default: every GPU, or as many as\n"
           "                  the ranks)\n"
           "  --ranks R       R ranks, rank r on GPU r mod G (default: one a GPU). More ranks\n"
           "                  than GPUs share them: every step of the algorithm runs and is\n"
           "                  checked, on one GPU too, but their copies never leave a GPU\n"
           "  --rows/--cols and --dtype f16/bf16 do not apply: every variant sums f32\n",
           TEAM_MAX_GPUS);
}

static int pick_variants(team_run *r)
{
    const team_stage *st = r->st;
    variant_key keys[ARRAY_LEN(r->selected)];
    char err[1024];
    if (st->n_variants > ARRAY_LEN(keys)) {
        fprintf(stderr, "error: %s has more than %zu variants\n", st->dir, ARRAY_LEN(keys));
        return EXIT_USAGE;
    }
    if (st->missing && r->o->variant && strcmp(r->o->variant, "nccl") == 0) {
        fprintf(stderr, "error: --variant nccl: %s\n", st->missing);
        return EXIT_USAGE;
    }
    for (size_t i = 0; i < st->n_variants; i++) /* every variant here sums f32 */
        keys[i] = (variant_key){st->variants[i].name, st->variants[i].op, DT_F32};
    int rc = select_variants(r->o, st->dir, keys, st->n_variants, r->selected, err, sizeof err);
    if (rc) fprintf(stderr, "error: %s\n", err);
    return rc;
}

static int open_run(team_run *r, int gpus, int ranks)
{
    char err[512];
    int rc = team_open(&r->t, gpus, ranks, err, sizeof err);
    if (rc) {
        fprintf(stderr, "error: %s\n", err);
        return rc;
    }
    if (team_shared(&r->t)) { /* a variant that needs a GPU a rank is left out, or refused */
        int left = 0;
        for (size_t i = 0; i < r->st->n_variants; i++) {
            if (!r->selected[i] || !r->st->variants[i].gpu_a_rank) continue;
            if (r->o->variant) {
                fprintf(stderr, "error: --variant %s needs a GPU a rank: %d ranks share %d GPU%s\n",
                        r->o->variant, r->t.count, r->t.gpus, r->t.gpus == 1 ? "" : "s");
                team_close(&r->t);
                return EXIT_USAGE;
            }
            r->selected[i] = 0;
            left++;
        }
        r->left_out = left;
    }
    for (int q = 0; q < r->t.count; q++) {
        if ((rc = device_open_id(&r->info[q], r->t.dev[q], err, sizeof err)) != 0) {
            fprintf(stderr, "error: %s\n", err);
            return rc;
        }
        CHECK_CUDA(cudaEventCreateWithFlags(&r->join[q], cudaEventDisableTiming));
        if (r->o->check_only) continue;
        /* 3x L2 of plain reads evicts every line; at least 16 MiB */
        r->flush_bytes[q] = r->info[q].l2_bytes * 3;
        if (r->flush_bytes[q] < ((size_t)16 << 20)) r->flush_bytes[q] = (size_t)16 << 20;
        CHECK_CUDA(cudaMalloc(&r->d_flush[q], r->flush_bytes[q]));
        CHECK_CUDA(cudaMemset(r->d_flush[q], 0, r->flush_bytes[q]));
        CHECK_CUDA(
            cudaMalloc((void **)&r->d_flush_xor[q], read_stream_blocks(r->flush_bytes[q]) * 4));
        CHECK_CUDA(cudaDeviceSynchronize()); /* the memset ran on the legacy stream */
    }
    CHECK_CUDA(cudaSetDevice(r->t.dev[0]));
    CHECK_CUDA(cudaEventCreateWithFlags(&r->fork, cudaEventDisableTiming));
    cudaError_t e = r->st->open ? r->st->open(&r->t) : cudaSuccess;
    if (e != cudaSuccess) die_cuda(e, "opening the stage's events");
    CHECK_CUDA(cudaSetDevice(r->t.dev[0]));
    return 0;
}

static void close_run(team_run *r)
{
    if (r->st->close) r->st->close();
    for (int q = 0; q < r->t.count; q++) {
        cudaSetDevice(r->t.dev[q]);
        cudaFree(r->d_flush[q]);
        cudaFree(r->d_flush_xor[q]);
        cudaEventDestroy(r->join[q]);
    }
    cudaSetDevice(r->t.dev[0]);
    cudaEventDestroy(r->fork);
    team_close(&r->t);
}

static void print_header(const team_run *r)
{
    const gpu_team *t = &r->t;
    const device_info *d = &r->info[0];
    int same = 1, all_peer = 1;
    for (int q = 1; q < t->count; q++) same &= strcmp(r->info[q].name, d->name) == 0;
    for (int a = 0; a < t->count; a++)
        for (int b = 0; b < t->count; b++) all_peer &= t->peer[a][b];
    printf("%s: %s\n", r->st->dir, r->st->title);
    if (team_shared(t))
        printf("ranks: %d on %d GPU%s (rank r on GPU r mod %d)\n", t->count, t->gpus,
               t->gpus == 1 ? "" : "s", t->gpus);
    printf(
        "GPUs: %d x %s (sm_%d%d, %d SMs, %zu MiB L2, %.0f GB/s theoretical)%s, CUDA runtime %d.%d",
        t->gpus, d->name, d->cc_major, d->cc_minor, d->sm_count, d->l2_bytes >> 20, d->peak_gbps,
        same ? "" : " and others (the CSV names GPU 0)", d->runtime_version / 1000,
        d->runtime_version % 1000 / 10);
    const char *lib = r->st->library ? r->st->library() : NULL;
    printf("%s%s\n", lib ? ", " : "", lib ? lib : "");
    if (r->st->missing) printf("note: %s\n", r->st->missing);
    if (t->count == 1) {
        printf("one GPU: an all-reduce of one buffer is a copy; it runs as one, against a "
               "device-to-device "
               "copy (GB/s counts its read and its write)\n");
    } else if (team_shared(t)) {
        printf("ranks share GPUs: what they send each other %s; the times show the steps, "
               "not the links\n", t->gpus == 1 ? "never leaves the GPU" : "partly stays on one");
        if (r->left_out) printf("note: left out, as they need a GPU a rank:");
        for (size_t i = 0; r->left_out && i < r->st->n_variants; i++)
            if (r->st->variants[i].gpu_a_rank) printf(" %s", r->st->variants[i].name);
        if (r->left_out) printf("\n");
    } else if (all_peer) {
        printf("peer access: every pair of GPUs; busbw = algbw x 2(G-1)/G, against the peer copy "
               "(every GPU to the next at once)\n");
    } else {
        printf("peer access: not between every pair; where it is missing the driver stages copies "
               "through "
               "host memory (slower) and the ring adds before it copies:");
        for (int a = 0; a < t->count; a++)
            for (int b = 0; b < t->count; b++)
                if (!t->peer[a][b]) printf(" %d->%d", a, b);
        printf("\n");
    }
}

int team_main(const team_stage *st, int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *prog = argc > 0 ? argv[0] : st->dir;
    char err[512];
    int gpus = 0, ranks = 0;
    if (take_team_flags(&argc, argv, &gpus, &ranks, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        return EXIT_USAGE;
    }
    options_t o;
    if (parse_options(argc, argv, &o, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        return EXIT_USAGE;
    }
    if (o.help) {
        print_team_usage(prog);
        return EXIT_ALL_OK;
    }
    if (o.list) {
        list_variants(st);
        return EXIT_ALL_OK;
    }
    if (o.rows || o.cols_count) {
        fprintf(stderr,
                "error: --rows/--cols: %s takes -n N (the floats each GPU holds, or the array "
                "sharded_sum splits)\n",
                st->dir);
        return EXIT_USAGE;
    }
    static team_run r; /* large: kept off the stack */
    memset(&r, 0, sizeof r);
    r.st = st;
    r.o = &o;
    r.prog = prog;
    int rc = pick_variants(&r);
    if (rc) return rc;

    shape_t shapes[2 * CLI_MAX_SIZES];
    size_t n_shapes = 0;
    for (int g = GROUP_SUM; g <= GROUP_ALLREDUCE; g++) {
        if (!group_has(&r, (group_kind)g)) continue;
        if (!o.n_count) {
            shapes[n_shapes++] =
                (shape_t){(group_kind)g, g == GROUP_SUM ? DEFAULT_SUM_N : DEFAULT_N_ALLREDUCE, 1};
            continue;
        }
        for (size_t i = 0; i < o.n_count; i++)
            shapes[n_shapes++] = (shape_t){(group_kind)g, o.n[i], 0};
    }
    if (o.csv) { /* a CSV that cannot be written is a usage error, found before any GPU work */
        FILE *f = fopen(o.csv, "a");
        if (!f) {
            fprintf(stderr, "error: --csv %s: cannot open for appending: %s\n", o.csv,
                    strerror(errno));
            return EXIT_USAGE;
        }
        fclose(f);
    }
    if ((rc = open_run(&r, gpus, ranks)) != 0) return rc;
    if (team_shared(&r.t) && o.csv) {
        fprintf(stderr, "error: --csv: %d ranks share %d GPU%s, so their times are of steps, not "
                "links; a CSV row would read as a run on %d GPUs (leave out --ranks or --csv)\n",
                r.t.count, r.t.gpus, r.t.gpus == 1 ? "" : "s", r.t.count);
        close_run(&r);
        return EXIT_USAGE;
    }
    print_header(&r);

    for (size_t i = 0; i < n_shapes; i++) { /* every shape must fit on every GPU */
        shape_t *sh = &shapes[i];
        size_t need = 0, free_b = 0;
        int short_rank = shape_short(&r, sh, &need, &free_b);
        if (!short_rank) continue;
        if (sh->is_default) {
            while (shape_short(&r, sh, &need, &free_b) && sh->n > 1024) sh->n /= 2;
            printf("note: default size reduced to n=%zu to fit in the free memory of every GPU\n",
                   sh->n);
            continue;
        }
        fprintf(stderr,
                "error: -n %zu: needs %zu MiB of device memory on GPU %d, %zu MiB free; choose a "
                "smaller "
                "size\n",
                sh->n, need >> 20, short_rank - 1, free_b >> 20);
        close_run(&r);
        return EXIT_USAGE;
    }
    size_t last_allreduce = n_shapes;
    for (size_t i = 0; i < n_shapes; i++)
        if (shapes[i].kind == GROUP_ALLREDUCE) last_allreduce = i;
    int header_for = -1;
    for (size_t i = 0; i < n_shapes; i++) {
        if ((int)shapes[i].kind != header_for) {
            header_for = (int)shapes[i].kind;
            table_header_team();
        }
        run_shape(&r, &shapes[i], i == last_allreduce);
    }
    close_run(&r);
    if (r.exit_code == EXIT_CHECK_FAIL) printf("result: a check FAILED (exit 1)\n");
    return r.exit_code;
}
