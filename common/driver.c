/* SPDX-License-Identifier: MIT */
/* driver.c: the one program every stage runs (DESIGN.md "The program contract").
 *
 * For each shape: one seeded input and its double reference, computed once;
 * the ceiling (read stream or copy) and CUB measured at the same shape; then
 * every selected variant is checked (input uploaded afresh, output poisoned
 * with NaN, scratch zeroed) and, if it passed, timed with CUDA events, an L2
 * flush before every repetition so no repetition reads from cache.
 */
#include "stage.h"
#include "baselines.h"
#include "check.h"
#include "cli.h"
#include "common.h"
#include "data.h"
#include "device.h"
#include "report.h"
#include "timing.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes after every output that the check fills with GUARD_BYTE and reads back: a kernel
   that writes past the end of its output fails its check instead of going unnoticed.
   The output buffers are allocated 256 bytes longer than the largest output. */
#define GUARD_BYTES 64
#define GUARD_BYTE 0xA5

/* Default shapes: 2^28 floats (1 GiB) for full sums, far beyond any L2; a
   [65536, 1024] matrix (2^26 elements) for row operations. */
#define DEFAULT_SUM_N ((size_t)1 << 28)
#define DEFAULT_ROWS ((size_t)65536)
#define DEFAULT_COLS ((size_t)1024)

typedef enum { GROUP_SUM, GROUP_ROWSUM, GROUP_SOFTMAX } group_kind;

typedef struct {
    group_kind kind;
    size_t rows, cols;
    int is_default;      /* the size was not given: shrink it to fit */
} shape_t;

typedef struct {
    const stage_t *stage;
    const options_t *o;
    const char *prog;
    device_info dev;
    cudaStream_t s;
    int selected[256];   /* per variant of the stage: picked by --variant/--op/--dtype */
    int exit_code;
    /* the L2 flush run before every timed repetition */
    void *d_flush;
    size_t flush_bytes;
    uint32_t *d_flush_xor;
    /* buffers of the current shape */
    void *d_in, *d_out, *d_ws;
    uint32_t *d_xor;
    size_t ws_bytes;
} run_t;

static group_kind group_of(op_kind op)
{
    return op == OP_SUM ? GROUP_SUM : op == OP_ROWSUM ? GROUP_ROWSUM : GROUP_SOFTMAX;
}

/* The op that sizes a group's output buffer (softmax and log-softmax are alike). */
static op_kind group_op(group_kind g)
{
    return g == GROUP_SUM ? OP_SUM : g == GROUP_ROWSUM ? OP_ROWSUM : OP_SOFTMAX;
}

static size_t out_count(op_kind op, size_t rows, size_t cols)
{
    return op == OP_SUM ? 1 : op == OP_ROWSUM ? rows : rows * cols;
}

/* ------------------------------------------------------------------------- */
/* Device buffers of one shape                                               */

static size_t shape_ws_bytes(const run_t *r, const shape_t *sh)
{
    size_t ws = 0;
    for (size_t i = 0; i < r->stage->n_variants; i++) {
        const variant_t *v = &r->stage->variants[i];
        if (!r->selected[i] || group_of(v->op) != sh->kind || !v->supports(sh->rows, sh->cols)) continue;
        size_t b = v->workspace_bytes ? v->workspace_bytes(sh->rows, sh->cols) : 0;
        if (b > ws) ws = b;
    }
    for (size_t i = 0; i < stage_baselines.n_variants; i++) {
        const variant_t *v = &stage_baselines.variants[i];
        if (group_of(v->op) != sh->kind || !v->supports(sh->rows, sh->cols)) continue;
        size_t b = v->workspace_bytes(sh->rows, sh->cols);
        if (b > ws) ws = b;
    }
    return ws;
}

/* Device bytes a shape needs beyond the flush buffer (f32, the widest type). */
static size_t shape_device_bytes(const run_t *r, const shape_t *sh)
{
    size_t elems = sh->rows * sh->cols;
    return elems * 4 + 256 + out_count(group_op(sh->kind), sh->rows, sh->cols) * 4 + 256 +
           shape_ws_bytes(r, sh) + read_stream_blocks(elems * 4) * 4 + 256;
}

static void free_shape(run_t *r)
{
    cudaFree(r->d_in);
    cudaFree(r->d_out);
    cudaFree(r->d_ws);
    cudaFree(r->d_xor);
    r->d_in = r->d_out = r->d_ws = NULL;
    r->d_xor = NULL;
}

/* Host and device memory a shape's check needs, with 10% left for the context. */
static int shape_fits(const run_t *r, const shape_t *sh, size_t free_b)
{
    return shape_device_bytes(r, sh) <= free_b / 10 * 9;
}

/* ------------------------------------------------------------------------- */
/* One shape's inputs and references, computed once and shared by its variants */

/* One input of a shape: the values as floats, as each 2-byte type a variant reads, and the
   references of the outputs. */
typedef struct {
    const char *name;    /* "signed ints", "random", "two-hot": named in a failure */
    int exact;           /* 1: sums must match the reference exactly */
    float *x;            /* the input as the GPU sees it, widened to float */
    uint16_t *x16[3];    /* [DT_F16], [DT_BF16]: the same values in that type (softmax) */
    double *ref;         /* sums: per output; softmax: rows*cols */
    double *ref_log;     /* log-softmax reference (softmax shapes) */
    double *abs_sum;     /* sums: sum |x| per output */
} input_set;

/* The program's own check runs every variant on two inputs (DESIGN.md, Checking):
   sums      signed ints +-1..8 (exact: one dropped or doubled element changes the sum),
             then non-negative random floats (the rounding bound is relative to the sum);
   softmax   two zeros per row among -inf (every output exactly 0.5 or 0: an element left
             out of the sum, or counted twice, makes it 1 or 1/3), then random floats.
   The random input comes last, so it is the one on the device when the variant is timed. */
enum { SET_PATTERN, SET_RANDOM, N_SETS };

typedef struct {
    input_set set[N_SETS];
    float *h_out;        /* one output, widened */
    uint16_t *h_out16;   /* one 2-byte output, as read back */
} host_data;

static void host_free(host_data *h)
{
    for (int k = 0; k < N_SETS; k++) {
        input_set *in = &h->set[k];
        pinned_free(in->x);
        pinned_free(in->x16[DT_F16]);
        pinned_free(in->x16[DT_BF16]);
        free(in->ref); free(in->ref_log); free(in->abs_sum);
    }
    pinned_free(h->h_out); pinned_free(h->h_out16);
    memset(h, 0, sizeof *h);
}

static void set_prepare(input_set *in, const shape_t *sh, int kind, uint64_t seed, int need_soft, int need_log,
                        const int *has_dt)
{
    size_t elems = sh->rows * sh->cols;
    in->x = pinned_alloc(elems * sizeof *in->x);
    if (sh->kind == GROUP_SOFTMAX) {
        in->name = kind == SET_PATTERN ? "two-hot" : "random";
        if (kind == SET_PATTERN) {
            fill_two_hot(in->x, sh->rows, sh->cols, seed);
        } else {
            /* values float, half and bf16 all hold exactly, so every dtype shares one
               reference; [-5, 5) spans exp() from 4.5e-5 to 1 of the maximum */
            fill_uniform(in->x, elems, -5.0f, 5.0f, seed);
            round_to_all_types(in->x, elems);
        }
        for (int dt = DT_F16; dt <= DT_BF16; dt++) {
            if (!has_dt[dt]) continue;
            in->x16[dt] = pinned_alloc(elems * sizeof(uint16_t));
            floats_to_type(in->x, in->x16[dt], elems, (dtype)dt);
        }
        if (need_soft) {
            in->ref = xmalloc(elems * sizeof *in->ref);
            ref_softmax_rows(in->x, sh->rows, sh->cols, 0, in->ref);
        }
        if (need_log) {
            in->ref_log = xmalloc(elems * sizeof *in->ref_log);
            ref_softmax_rows(in->x, sh->rows, sh->cols, 1, in->ref_log);
        }
    } else {
        in->name = kind == SET_PATTERN ? "signed ints" : "random";
        in->exact = kind == SET_PATTERN;
        if (kind == SET_PATTERN) fill_signed_ints(in->x, elems, seed);
        else fill_uniform(in->x, elems, 0.0f, 1.0f, seed);
        size_t outs = sh->kind == GROUP_SUM ? 1 : sh->rows;
        size_t len = sh->kind == GROUP_SUM ? elems : sh->cols;
        in->ref = xmalloc(outs * sizeof *in->ref);
        in->abs_sum = xmalloc(outs * sizeof *in->abs_sum);
        ref_row_sums(in->x, outs, len, in->ref, in->abs_sum);
    }
}

static void host_prepare(const run_t *r, const shape_t *sh, host_data *h, int need_log, int need_soft,
                         const int *has_dt)
{
    size_t elems = sh->rows * sh->cols;
    uint64_t seed = r->o->seed * 0x100000001B3ULL ^ (sh->rows * 1000003u + sh->cols);
    /* --check-only needs both inputs; a timed run checks on both too */
    for (int k = 0; k < N_SETS; k++) set_prepare(&h->set[k], sh, k, seed + 7919u * (uint64_t)k, need_soft,
                                                 need_log, has_dt);
    size_t outs = out_count(group_op(sh->kind), sh->rows, sh->cols);
    (void)elems;
    h->h_out = pinned_alloc(outs * sizeof *h->h_out);
    h->h_out16 = pinned_alloc(outs * sizeof *h->h_out16);
}

/* ------------------------------------------------------------------------- */
/* Checking one variant                                                      */

static const void *set_bytes(const input_set *in, dtype dt)
{
    return dt == DT_F32 ? (const void *)in->x : (const void *)in->x16[dt];
}

static void upload_input(const run_t *r, const input_set *in, const shape_t *sh, dtype dt)
{
    size_t elems = sh->rows * sh->cols;
    /* on the program's stream: a non-blocking stream does not wait for the legacy one */
    CHECK_CUDA(cudaMemcpyAsync(r->d_in, set_bytes(in, dt), elems * dtype_bytes(dt), cudaMemcpyHostToDevice,
                               r->s));
}

/* What happened to a launch: ran, skipped (the GPU lacks a feature), or a
   CUDA error, which ends the program with exit 3. */
typedef enum { LAUNCH_OK, LAUNCH_SKIPPED } launch_outcome;

static launch_outcome handle_launch_error(run_t *r, const char *stage, const variant_t *v, cudaError_t e)
{
    if (e == cudaSuccess) return LAUNCH_OK;
    if (e == cudaErrorNotSupported || e == cudaErrorCooperativeLaunchTooLarge) {
        (void)cudaGetLastError(); /* not sticky: clear it and go on */
        if (r->o->variant) {
            fprintf(stderr, "error: variant %s cannot run on %s: %s (%s); choose another variant\n",
                    v->name, r->dev.name, cudaGetErrorString(e),
                    e == cudaErrorCooperativeLaunchTooLarge ? "cooperative grid too large"
                                                            : "a feature this GPU lacks");
            exit(EXIT_CUDA);
        }
        printf("%-24s skipped: %s on this GPU\n", v->name, cudaGetErrorString(e));
        return LAUNCH_SKIPPED;
    }
    fprintf(stderr, "error: %s/%s failed: CUDA %s (%s); a kernel fault leaves the GPU unusable: "
                    "find it with `make sanitize`\n",
            stage, v->name, cudaGetErrorName(e), cudaGetErrorString(e));
    exit(EXIT_CUDA);
}

/* Launches v once on one input and checks every output against that input's reference. */
static launch_outcome check_one(run_t *r, const char *stage, const variant_t *v, const shape_t *sh,
                                const input_set *in, host_data *h, check_result *res)
{
    size_t outs = out_count(v->op, sh->rows, sh->cols);
    size_t out_bytes = outs * dtype_bytes(v->out_type);
    upload_input(r, in, sh, v->in_type);
    /* Every fill runs on the program's stream, in order with the launch: the stream is
       non-blocking, so a plain cudaMemset (legacy stream) could land after the kernel started. */
    CHECK_CUDA(cudaMemsetAsync(r->d_out, 0xFF, out_bytes, r->s)); /* all-ones bits: NaN in every dtype */
    /* guard bytes right after the output: a write past its end changes them */
    CHECK_CUDA(cudaMemsetAsync((char *)r->d_out + out_bytes, GUARD_BYTE, GUARD_BYTES, r->s));
    if (r->ws_bytes) CHECK_CUDA(cudaMemsetAsync(r->d_ws, 0, r->ws_bytes, r->s));
    cudaError_t e = v->launch(r->d_in, r->d_out, sh->rows, sh->cols, r->d_ws, r->s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(r->s);
    if (handle_launch_error(r, stage, v, e) == LAUNCH_SKIPPED) return LAUNCH_SKIPPED;
    if (v->out_type == DT_F32) {
        CHECK_CUDA(cudaMemcpy(h->h_out, r->d_out, out_bytes, cudaMemcpyDeviceToHost));
    } else {
        CHECK_CUDA(cudaMemcpy(h->h_out16, r->d_out, out_bytes, cudaMemcpyDeviceToHost));
        type_to_floats(h->h_out16, h->h_out, outs, v->out_type);
    }
    unsigned char guard[GUARD_BYTES];
    CHECK_CUDA(cudaMemcpy(guard, (char *)r->d_out + out_bytes, GUARD_BYTES, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < GUARD_BYTES; i++) {
        if (guard[i] != GUARD_BYTE) {
            memset(res, 0, sizeof *res);
            res->index = outs; /* one past the last element */
            res->what = "guard";
            return LAUNCH_OK;
        }
    }
    if (v->op == OP_SUM || v->op == OP_ROWSUM) {
        size_t count = v->op == OP_SUM ? 1 : sh->rows;
        size_t k = v->op == OP_SUM ? sum_chain_bound(sh->cols, r->dev.sm_count) : row_chain_bound(sh->cols);
        *res = in->exact ? check_exact(h->h_out, in->ref, count)
                         : check_sums_against(h->h_out, in->ref, in->abs_sum, count, sh->cols, k);
    } else {
        *res = check_softmax_against(h->h_out, v->op == OP_LOGSOFTMAX ? in->ref_log : in->ref, sh->rows,
                                     sh->cols, v->op == OP_LOGSOFTMAX, v->out_type);
    }
    return LAUNCH_OK;
}

/* Checks v on every input of the shape, the random one last, and stops at the first that
   fails; *failed_set then names it. *res is that failure, or the random input's result. */
static launch_outcome check_variant(run_t *r, const char *stage, const variant_t *v, const shape_t *sh,
                                    host_data *h, check_result *res, const char **failed_set)
{
    *failed_set = NULL;
    for (int k = 0; k < N_SETS; k++) {
        if (check_one(r, stage, v, sh, &h->set[k], h, res) == LAUNCH_SKIPPED) return LAUNCH_SKIPPED;
        if (!res->ok) {
            *failed_set = h->set[k].name;
            break;
        }
    }
    return LAUNCH_OK;
}

/* ------------------------------------------------------------------------- */
/* Timing                                                                    */

typedef struct {
    const variant_t *v;
    const run_t *r;
    const shape_t *sh;
} launch_ctx;

static cudaError_t rep_variant(void *p, cudaStream_t s)
{
    launch_ctx *c = p;
    return c->v->launch(c->r->d_in, c->r->d_out, c->sh->rows, c->sh->cols, c->r->d_ws, s);
}

/* Reading 3x the L2 size with plain loads replaces every cached line, dirty
   output lines included, so the timed launch after it starts cold. */
static cudaError_t flush_l2(void *p, cudaStream_t s)
{
    run_t *r = p;
    return read_stream_launch(r->d_flush, r->flush_bytes, r->d_flush_xor, s);
}

/* The baselines a shape is measured against, in the same run: the read stream (the ceiling of
   reductions), the copy (the ceiling of softmax) and the write stream (with the read stream, the
   serialised floor of softmax, DESIGN.md "Results schema"). */
typedef enum { CEIL_READ, CEIL_WRITE, CEIL_COPY } ceiling_kind;
static const char *const ceiling_names[3] = {"read_stream", "write_stream", "copy"};

typedef struct {
    const run_t *r;
    size_t bytes;
    ceiling_kind kind;
} ceiling_ctx;

static cudaError_t rep_ceiling(void *p, cudaStream_t s)
{
    ceiling_ctx *c = p;
    if (c->kind == CEIL_COPY) return copy_launch(c->r->d_in, c->r->d_out, c->bytes, s);
    if (c->kind == CEIL_WRITE) return write_stream_launch(c->r->d_out, c->bytes, s);
    return read_stream_launch(c->r->d_in, c->bytes, c->r->d_xor, s);
}

/* Times fn; label names it for a profiler (stage/variant/op/dtype). Exits 3 on a CUDA error. */
static void time_or_die(run_t *r, rep_fn fn, void *ctx, const char *what, const char *label, timing_t *t)
{
    cudaError_t e = time_reps(fn, ctx, flush_l2, r, r->o->warmup, r->o->iters, r->s, label, t);
    if (e != cudaSuccess) {
        fprintf(stderr, "error: timing %s failed: CUDA %s (%s); find a kernel fault with `make sanitize`\n",
                what, cudaGetErrorName(e), cudaGetErrorString(e));
        exit(EXIT_CUDA);
    }
}

static void emit(run_t *r, result_row *row)
{
    table_row(stdout, row);
    if (r->o->csv && csv_append(r->o->csv, &r->dev, row) != 0) {
        fprintf(stderr, "error: --csv %s: cannot write: %s\n", r->o->csv, strerror(errno));
        exit(EXIT_USAGE);
    }
}

static void fill_row(result_row *row, const char *stage, const char *variant, op_kind op, dtype dt,
                     const shape_t *sh, size_t bytes)
{
    memset(row, 0, sizeof *row);
    snprintf(row->stage, sizeof row->stage, "%s", stage);
    snprintf(row->variant, sizeof row->variant, "%s", variant);
    row->op = op;
    row->dt = dt;
    row->rows = sh->rows;
    row->cols = sh->cols;
    row->bytes = bytes;
}

/* Runs one baseline once and checks what it moved against the input src: the XOR of every word
   read, every byte written (write_stream_word), or the copied bytes. Returns 1 when right. */
static int check_ceiling(run_t *r, ceiling_ctx *c, const unsigned char *src)
{
    CHECK_CUDA(rep_ceiling(c, r->s));
    CHECK_CUDA(cudaStreamSynchronize(r->s));
    size_t n = c->kind == CEIL_READ ? read_stream_blocks(c->bytes) * 4 : c->bytes;
    unsigned char *back = xmalloc(n ? n : 1);
    CHECK_CUDA(cudaMemcpy(back, c->kind == CEIL_READ ? (void *)r->d_xor : r->d_out, n,
                          cudaMemcpyDeviceToHost));
    int ok = 1;
    if (c->kind == CEIL_COPY) ok = memcmp(back, src, n) == 0;
    for (size_t k = 0; c->kind == CEIL_WRITE && k < n && ok; k++)
        ok = back[k] == (unsigned char)(write_stream_word(k / 4) >> (8 * (k % 4)));
    if (c->kind == CEIL_READ) {
        uint32_t x = 0, w;
        for (size_t i = 0; i < n / 4; i++) {
            memcpy(&w, back + 4 * i, 4);
            x ^= w;
        }
        for (size_t i = 0; i < c->bytes / 4; i++) {
            memcpy(&w, src + 4 * i, 4);
            x ^= w;
        }
        ok = x == 0; /* the blocks' XORs and the input's words cancel */
    }
    free(back);
    return ok;
}

/* Checks, times and records one baseline of one dtype at a shape; ceiling is the GB/s its
   percentage is of, 0 when it is the ceiling itself. Exits 3 when its check fails (the GPU or
   driver moved the wrong bytes). Returns its GB/s. */
static double time_ceiling(run_t *r, const shape_t *sh, dtype dt, op_kind op, ceiling_kind kind,
                           double ceiling, const unsigned char *src)
{
    size_t bytes = sh->rows * sh->cols * dtype_bytes(dt);
    ceiling_ctx c = {r, bytes, kind};
    int ok = check_ceiling(r, &c, src);
    timing_t t;
    char label[160];
    snprintf(label, sizeof label, "baseline/%s/%s/%s", ceiling_names[kind], op_name(op), dtype_name(dt));
    time_or_die(r, rep_ceiling, &c, ceiling_names[kind], label, &t);
    result_row row;
    fill_row(&row, "baseline", ceiling_names[kind], op, dt, sh, kind == CEIL_COPY ? 2 * bytes : bytes);
    row.median_us = t.median_us;
    row.min_us = t.min_us;
    row.gbps = gbps_of(row.bytes, t.median_us);
    row.ceiling_gbps = ceiling > 0 ? ceiling : row.gbps;
    row.pct_of_ceiling = 100.0 * row.gbps / row.ceiling_gbps;
    row.timed = 1;
    row.ok = ok;
    emit(r, &row);
    if (!ok) {
        fprintf(stderr, "error: the %s baseline moved the wrong bytes: the GPU or driver is faulty\n",
                ceiling_names[kind]);
        exit(EXIT_CUDA);
    }
    return row.gbps;
}

/* Measures the ceiling of one dtype at a shape: the read stream for reductions, the
   device-to-device copy for softmax. A softmax shape also gets the read and the write stream:
   a row is read whole before any of it is written, so where there are too few rows to overlap
   one row's reads with another's writes, read time + write time (the serialised floor) is
   what the kernel can reach, not the copy. Returns the ceiling's GB/s. */
static double measure_ceiling(run_t *r, const shape_t *sh, dtype dt, op_kind op, host_data *h)
{
    const input_set *in = &h->set[SET_RANDOM];
    upload_input(r, in, sh, dt);
    const unsigned char *src = set_bytes(in, dt);
    if (sh->kind != GROUP_SOFTMAX) return time_ceiling(r, sh, dt, op, CEIL_READ, 0, src);
    double copy = time_ceiling(r, sh, dt, op, CEIL_COPY, 0, src);
    time_ceiling(r, sh, dt, op, CEIL_READ, copy, src);
    time_ceiling(r, sh, dt, op, CEIL_WRITE, copy, src);
    return copy;
}

/* Checks and (unless --check-only, or the check failed) times one variant;
   prints and records its row. Returns its median in us, or 0 if not timed. */
static double run_variant(run_t *r, const char *stage, const variant_t *v, const shape_t *sh, host_data *h,
                          double ceiling, double cub_us)
{
    check_result res;
    const char *failed_set;
    if (check_variant(r, stage, v, sh, h, &res, &failed_set) == LAUNCH_SKIPPED) return 0.0;
    result_row row;
    fill_row(&row, stage, v->name, v->op, v->in_type, sh, op_bytes(v->op, v->in_type, v->out_type, sh->rows, sh->cols));
    row.ok = res.ok;
    row.max_err = res.max_err;
    if (res.ok && !r->o->check_only) {
        launch_ctx c = {v, r, sh};
        if (r->ws_bytes) CHECK_CUDA(cudaMemsetAsync(r->d_ws, 0, r->ws_bytes, r->s));
        timing_t t;
        char label[160];
        snprintf(label, sizeof label, "%s/%s/%s/%s", stage, v->name, op_name(v->op), dtype_name(v->in_type));
        time_or_die(r, rep_variant, &c, v->name, label, &t);
        row.timed = 1;
        row.median_us = t.median_us;
        row.min_us = t.min_us;
        row.gbps = gbps_of(row.bytes, t.median_us);
        row.ceiling_gbps = ceiling;
        row.pct_of_ceiling = ceiling > 0 ? 100.0 * row.gbps / ceiling : 0.0;
        row.vs_cub = cub_us > 0 ? cub_us / t.median_us : 0.0;
    }
    emit(r, &row);
    if (!res.ok) {
        char msg[256], shape[48];
        format_check_failure(&res, msg, sizeof msg);
        format_shape(v->op, sh->rows, sh->cols, shape, sizeof shape);
        printf("  FAIL %s/%s (%s %s, %s, %s input): %s; not timed\n", stage, v->name, op_name(v->op),
               dtype_name(v->in_type), shape, failed_set ? failed_set : "?", msg);
        r->exit_code = EXIT_CHECK_FAIL;
        return 0.0;
    }
    return row.timed ? row.median_us : 0.0;
}

/* ------------------------------------------------------------------------- */
/* One shape: reference, ceilings, CUB, variants                              */

static const variant_t *cub_for(op_kind op, dtype dt, const shape_t *sh)
{
    for (size_t i = 0; i < stage_baselines.n_variants; i++) {
        const variant_t *v = &stage_baselines.variants[i];
        if (v->op == op && v->in_type == dt && v->supports(sh->rows, sh->cols)) return v;
    }
    return NULL;
}

static void run_shape(run_t *r, const shape_t *sh)
{
    const stage_t *st = r->stage;
    int is_baseline_stage = st == &stage_baselines;
    size_t runnable = 0;
    int has_op[4] = {0}, has_dt[3] = {0};
    for (size_t i = 0; i < st->n_variants; i++) {
        const variant_t *v = &st->variants[i];
        if (!r->selected[i] || group_of(v->op) != sh->kind) continue;
        if (!v->supports(sh->rows, sh->cols)) {
            char shape[48];
            format_shape(v->op, sh->rows, sh->cols, shape, sizeof shape);
            if (r->o->variant) {
                fprintf(stderr, "error: --variant %s does not handle %s %s (see its limits with --list)\n",
                        v->name, op_name(v->op), shape);
                exit(EXIT_USAGE);
            }
            printf("%-24s %-10s %-5s %-16s skipped: shape outside this variant's limits\n", v->name,
                   op_name(v->op), dtype_name(v->in_type), shape);
            continue;
        }
        runnable++;
        has_op[v->op] = 1;
        has_dt[v->in_type] = 1;
    }
    if (runnable == 0) return;

    CHECK_CUDA(cudaMalloc(&r->d_in, sh->rows * sh->cols * 4 + 256));
    CHECK_CUDA(cudaMalloc(&r->d_out, out_count(group_op(sh->kind), sh->rows, sh->cols) * 4 + 256));
    r->ws_bytes = shape_ws_bytes(r, sh);
    CHECK_CUDA(cudaMalloc(&r->d_ws, r->ws_bytes ? r->ws_bytes : 1));
    CHECK_CUDA(cudaMalloc((void **)&r->d_xor, read_stream_blocks(sh->rows * sh->cols * 4) * 4 + 256));

    host_data h;
    memset(&h, 0, sizeof h);
    host_prepare(r, sh, &h, has_op[OP_LOGSOFTMAX], has_op[OP_SOFTMAX], has_dt);

    static const dtype dts[3] = {DT_F32, DT_F16, DT_BF16};
    static const op_kind ops[4] = {OP_SUM, OP_ROWSUM, OP_SOFTMAX, OP_LOGSOFTMAX};
    for (int d = 0; d < 3; d++) {
        if (!has_dt[dts[d]]) continue;
        double ceiling = 0.0;
        for (int k = 0; k < 4; k++) {
            op_kind op = ops[k];
            if (!has_op[op]) continue;
            int any = 0;
            for (size_t i = 0; i < st->n_variants; i++) {
                const variant_t *v = &st->variants[i];
                if (r->selected[i] && v->op == op && v->in_type == dts[d] && v->supports(sh->rows, sh->cols)) any = 1;
            }
            if (!any) continue;
            if (!r->o->check_only && ceiling == 0.0) ceiling = measure_ceiling(r, sh, dts[d], op, &h);
            double cub_us = 0.0;
            const variant_t *cub = cub_for(op, dts[d], sh);
            if (cub && !is_baseline_stage && !r->o->check_only)
                cub_us = run_variant(r, "baseline", cub, sh, &h, ceiling, 0.0);
            for (size_t i = 0; i < st->n_variants; i++) {
                const variant_t *v = &st->variants[i];
                if (!r->selected[i] || v->op != op || v->in_type != dts[d] || !v->supports(sh->rows, sh->cols))
                    continue;
                run_variant(r, st->dir, v, sh, &h, ceiling, cub_us);
            }
        }
    }
    host_free(&h);
    free_shape(r);
}

/* ------------------------------------------------------------------------- */
/* Selection, shapes, main                                                   */

static void list_variants(const stage_t *st)
{
    printf("%s: %s\n", st->dir, st->title);
    for (size_t i = 0; i < st->n_variants; i++) {
        const variant_t *v = &st->variants[i];
        char types[16];
        snprintf(types, sizeof types, "%s->%s", dtype_name(v->in_type), dtype_name(v->out_type));
        printf("  %-24s %-10s %-10s  %s\n", v->name, op_name(v->op), types, v->idea);
    }
}

static int pick_variants(run_t *r)
{
    const stage_t *st = r->stage;
    variant_key keys[ARRAY_LEN(r->selected)];
    char err[1024];
    if (st->n_variants > ARRAY_LEN(keys)) {
        fprintf(stderr, "error: %s has more than %zu variants\n", st->dir, ARRAY_LEN(keys));
        return EXIT_USAGE;
    }
    for (size_t i = 0; i < st->n_variants; i++)
        keys[i] = (variant_key){st->variants[i].name, st->variants[i].op, st->variants[i].in_type};
    int rc = select_variants(r->o, st->dir, keys, st->n_variants, r->selected, err, sizeof err);
    if (rc) fprintf(stderr, "error: %s\n", err);
    return rc;
}

int stage_main(const stage_t *stage, int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *prog = argc > 0 ? argv[0] : stage->dir;
    options_t o;
    char err[512];
    if (parse_options(argc, argv, &o, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        return EXIT_USAGE;
    }
    if (o.help) { print_usage(prog); return EXIT_ALL_OK; }
    if (o.list) { list_variants(stage); return EXIT_ALL_OK; }

    run_t r;
    memset(&r, 0, sizeof r);
    r.stage = stage;
    r.o = &o;
    r.prog = prog;
    int rc = pick_variants(&r);
    if (rc) return rc;

    /* which groups the selection covers */
    int want[3] = {0};
    for (size_t i = 0; i < stage->n_variants; i++)
        if (r.selected[i]) want[group_of(stage->variants[i].op)] = 1;

    shape_t shapes[2 * CLI_MAX_SIZES + 3];
    size_t n_shapes = 0;
    if (o.n_count) {
        if (!want[GROUP_SUM]) {
            fprintf(stderr, "error: -n sizes a full sum, but the selected variants of %s are row operations; "
                            "use --rows R --cols C\n", stage->dir);
            return EXIT_USAGE;
        }
        for (size_t i = 0; i < o.n_count; i++) shapes[n_shapes++] = (shape_t){GROUP_SUM, 1, o.n[i], 0};
    } else if (o.cols_count) {
        if (!want[GROUP_ROWSUM] && !want[GROUP_SOFTMAX]) {
            fprintf(stderr, "error: --rows/--cols size a matrix, but the selected variants of %s are full sums; "
                            "use -n N\n", stage->dir);
            return EXIT_USAGE;
        }
        for (size_t i = 0; i < o.cols_count; i++) {
            size_t rows = o.rows ? o.rows : CLI_DEFAULT_ELEMS / o.cols[i];
            if (rows == 0) rows = 1;
            for (int g = GROUP_ROWSUM; g <= GROUP_SOFTMAX; g++)
                if (want[g]) shapes[n_shapes++] = (shape_t){(group_kind)g, rows, o.cols[i], 0};
        }
    } else {
        if (want[GROUP_SUM]) shapes[n_shapes++] = (shape_t){GROUP_SUM, 1, DEFAULT_SUM_N, 1};
        for (int g = GROUP_ROWSUM; g <= GROUP_SOFTMAX; g++)
            if (want[g]) shapes[n_shapes++] = (shape_t){(group_kind)g, DEFAULT_ROWS, DEFAULT_COLS, 1};
    }

    /* a CSV that cannot be written is a usage error, found before any GPU work */
    if (o.csv) {
        FILE *f = fopen(o.csv, "a");
        if (!f) {
            fprintf(stderr, "error: --csv %s: cannot open for appending: %s\n", o.csv, strerror(errno));
            return EXIT_USAGE;
        }
        fclose(f);
    }

    if ((rc = device_open(&r.dev, err, sizeof err)) != 0) {
        fprintf(stderr, "error: %s\n", err);
        return rc;
    }
    CHECK_CUDA(cudaStreamCreateWithFlags(&r.s, cudaStreamNonBlocking));
    if (!o.check_only) {
        /* 3x L2 of plain reads evicts every line; at least 16 MiB */
        r.flush_bytes = r.dev.l2_bytes * 3;
        if (r.flush_bytes < ((size_t)16 << 20)) r.flush_bytes = (size_t)16 << 20;
        CHECK_CUDA(cudaMalloc(&r.d_flush, r.flush_bytes));
        CHECK_CUDA(cudaMemsetAsync(r.d_flush, 0, r.flush_bytes, r.s));
        CHECK_CUDA(cudaMalloc((void **)&r.d_flush_xor, read_stream_blocks(r.flush_bytes) * 4));
    }

    printf("%s: %s\nGPU: %s (sm_%d%d, %d SMs, %zu MiB L2, %.0f GB/s theoretical), CUDA runtime %d.%d\n",
           stage->dir, stage->title, r.dev.name, r.dev.cc_major, r.dev.cc_minor, r.dev.sm_count,
           r.dev.l2_bytes >> 20, r.dev.peak_gbps, r.dev.runtime_version / 1000,
           r.dev.runtime_version % 1000 / 10);

    /* every shape must fit in device memory: a default one is halved until it
       does; a given one that cannot is a usage error naming the flag */
    size_t free_b = device_free_bytes();
    for (size_t i = 0; i < n_shapes; i++) {
        shape_t *sh = &shapes[i];
        if (shape_fits(&r, sh, free_b)) continue;
        if (sh->is_default) {
            while (!shape_fits(&r, sh, free_b) && (sh->kind == GROUP_SUM ? sh->cols : sh->rows) > 1024) {
                if (sh->kind == GROUP_SUM) sh->cols /= 2;
                else sh->rows /= 2;
            }
            printf("note: default size reduced to %s=%zu to fit in %zu MiB of free device memory\n",
                   sh->kind == GROUP_SUM ? "n" : "rows", sh->kind == GROUP_SUM ? sh->cols : sh->rows,
                   free_b >> 20);
            continue;
        }
        char shape[64];
        if (sh->kind == GROUP_SUM) snprintf(shape, sizeof shape, "-n %zu", sh->cols);
        else snprintf(shape, sizeof shape, "--rows %zu --cols %zu", sh->rows, sh->cols);
        fprintf(stderr, "error: %s: needs %zu MiB of device memory, %zu MiB free on %s; choose a smaller size\n",
                shape, shape_device_bytes(&r, sh) >> 20, free_b >> 20, r.dev.name);
        return EXIT_USAGE;
    }

    table_header(stdout);
    for (size_t i = 0; i < n_shapes; i++) run_shape(&r, &shapes[i]);

    cudaFree(r.d_flush);
    cudaFree(r.d_flush_xor);
    cudaStreamDestroy(r.s);
    if (r.exit_code == EXIT_CHECK_FAIL) printf("result: a check FAILED (exit 1)\n");
    return r.exit_code;
}
