/* SPDX-License-Identifier: MIT */
/* 05_packed: every thread moves 16 bytes per load instruction (a Packed<float, 4>),
 * for the full sum and for row sums, with misaligned heads and ragged tails done in scalar.
 *
 *   packed_sum             build/05_packed --variant packed_sum
 *   subwarp_per_row        build/05_packed --variant subwarp_per_row --rows 2097152 --cols 32
 *   warp_per_row_packed    build/05_packed --variant warp_per_row_packed --rows 65536 --cols 1024
 *   block_per_row_packed   build/05_packed --variant block_per_row_packed --rows 1024 --cols 65536
 *   dispatch               build/05_packed --variant dispatch --rows 4096 --cols 1000
 *
 * Every kernel splits its span of floats the same way: HEAD (the 0..3 floats before the
 * first 16-byte boundary), BODY (whole 16-byte packs), TAIL (the 0..3 floats left over).
 * The body is read with 16-byte loads, the head and tail with 4-byte loads.
 */
#include <stdint.h>
#include <cuda_runtime.h>
#include "stage.h"

/* ------------------------------------------------------------------------- */
/* Constants                                                                  */
/* ------------------------------------------------------------------------- */

#define WARP_SIZE 32            /* lanes per warp on every NVIDIA GPU so far */
#define FULL_MASK 0xffffffffu   /* all 32 lanes take part in the shuffle */

/* 16 bytes is the widest load one thread can issue (LDG.E.128): 4 floats. */
#define PACK_BYTES 16
#define PACK (PACK_BYTES / (int)sizeof(float))

/* 256 threads = 8 warps: whole warps, and small enough that several blocks share an SM
   (how many is asked of the occupancy API at run time, never assumed). */
#define BLOCK 256

/* Independent 16-byte loads each thread issues before it adds any of them. By Little's law
   an SM must keep (its share of the bandwidth) x (memory latency) bytes in flight; with
   4 x 16 B per thread and 1024 or more threads per SM that is 64 KB, several times what
   H100/H200 ask of one SM. */
#define UNROLL 4

/* __launch_bounds__(BLOCK, MIN_BLOCKS): at least 4 resident blocks, so at most 64 registers
   a thread. That leaves ptxas room to keep all loads of a lap in flight instead of reusing
   the first load's registers before the last one is issued; 4 x 256 threads x 4 loads x
   16 B = 64 KB in flight per SM is still ample. */
#define MIN_BLOCKS 4

/* Rows one group of lanes keeps side by side in the sub-warp kernel, so short rows also
   have several loads in flight per lane. Groups of 1 or 2 lanes hold up to 3 head and 3
   tail floats per row each (ceil(3/G) rounds), so they keep 2 rows to stay in 64 registers. */
#define ROWS_IN_FLIGHT 4
#define ROWS_IN_FLIGHT_NARROW 2

/* The aligned fast path has no head or tail registers to keep, so each group holds 8 rows:
   8 x 16 B in flight per lane from a handful of instructions. */
#define ROWS_IN_FLIGHT_ALIGNED 8

/* dispatch: a warp of 32 lanes x 4 floats covers 128 columns per load instruction. Up to
   512 columns (4 laps of a warp) a group with 4 rows at once has more loads in flight than
   one row has packs per lane; up to 4096 a warp per row (4 packs in flight) still finds
   enough rows to keep every SM busy; beyond that rows are few and long: a block per row. */
#define SUBWARP_MAX_COLS 512
#define WARP_ROW_MAX_COLS 4096

/* ------------------------------------------------------------------------- */
/* Packed<T, N>: N elements that one instruction moves                        */
/* ------------------------------------------------------------------------- */

/* The alignment is what lets the compiler emit one 16-byte load: a 16-byte access must
   start on a 16-byte boundary, and alignas promises that every Packed does. */
template <typename T, int N>
struct alignas(sizeof(T) * N) Packed {
    T elem[N];
};

typedef Packed<float, PACK> pack_t;
static_assert(sizeof(pack_t) == PACK_BYTES && alignof(pack_t) == PACK_BYTES,
              "one pack must be exactly one 16-byte load");

/* (a + b) + (c + d): two dependent adds instead of three, and no add of a zero. */
static __device__ __forceinline__ float pack_sum(const pack_t &v)
{
    static_assert(PACK == 4, "pack_sum is written out for the 4 floats of a pack");
    return (v.elem[0] + v.elem[1]) + (v.elem[2] + v.elem[3]);
}

/* ------------------------------------------------------------------------- */
/* Head / body / tail of a span of floats                                     */
/* ------------------------------------------------------------------------- */

static __host__ __device__ __forceinline__ size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

static __host__ __device__ __forceinline__ size_t ceil_div(size_t a, size_t b)
{
    return (a + b - 1) / b;
}

typedef struct {
    size_t head;    /* floats before the first 16-byte boundary (0..3) */
    size_t packs;   /* whole 16-byte packs after them */
    size_t tail;    /* floats after the last pack (0..3) */
} span_split;

/* p is 4-byte aligned (a float), so it sits 0..3 floats past a 16-byte boundary. A row
   r of a [rows, cols] matrix starts at d_in + r*cols, which is 16-byte aligned only when
   d_in is and cols % 4 == 0, so every row is split on its own. */
static __host__ __device__ __forceinline__ span_split split_span(const float *p, size_t len)
{
    const size_t past = (size_t)(((uintptr_t)p / sizeof(float)) % PACK);
    span_split sp;
    sp.head = min_size((PACK - past) % PACK, len);
    sp.packs = (len - sp.head) / PACK;
    sp.tail = len - sp.head - sp.packs * PACK;
    return sp;
}

/* Head and tail with 4-byte loads. rank is this thread's place among the WIDTH threads
   that share the span; each end holds at most 3 floats, so ceil(3 / WIDTH) rounds.
   Loading and adding are two steps: a kernel loads the edges before its body loop and
   adds them after it, so their latency hides under the body's loads instead of adding a
   round trip of its own. */
template <int WIDTH>
struct edge_vals {
    static constexpr int ROUNDS = (PACK - 1 + WIDTH - 1) / WIDTH;
    float v[2 * ROUNDS];
};

template <int WIDTH>
static __device__ __forceinline__ edge_vals<WIDTH> edges_load(const float *__restrict__ p,
                                                              span_split sp, size_t rank)
{
    const float *tail = p + sp.head + sp.packs * PACK;
    edge_vals<WIDTH> e;
#pragma unroll
    for (int r = 0; r < edge_vals<WIDTH>::ROUNDS; ++r) {
        const size_t i = rank + (size_t)r * WIDTH;
        e.v[2 * r] = i < sp.head ? p[i] : 0.0f;
        e.v[2 * r + 1] = i < sp.tail ? tail[i] : 0.0f;
    }
    return e;
}

template <int WIDTH>
static __device__ __forceinline__ float edges_add(const edge_vals<WIDTH> &e)
{
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < 2 * edge_vals<WIDTH>::ROUNDS; ++j)
        s += e.v[j];
    return s;
}

/* Packs first, first + stride, ... of the body. A full lap issues N_LOADS independent
   16-byte loads before the first add waits on one; the last partial lap goes one by one. */
template <int N_LOADS>
static __device__ __forceinline__ float packs_sum(const pack_t *__restrict__ body, size_t n_packs,
                                                  size_t first, size_t stride)
{
    float acc = 0.0f;
    size_t q = first;
    for (; q + (N_LOADS - 1) * stride < n_packs; q += N_LOADS * stride) {
        pack_t v[N_LOADS];
#pragma unroll
        for (int u = 0; u < N_LOADS; ++u)
            v[u] = body[q + u * stride];
#pragma unroll
        for (int u = 0; u < N_LOADS; ++u)
            acc += pack_sum(v[u]);
    }
    for (; q < n_packs; q += stride)
        acc += pack_sum(body[q]);
    return acc;
}

/* ------------------------------------------------------------------------- */
/* Warp, group and block reductions                                           */
/* ------------------------------------------------------------------------- */

/* Butterfly over the G lanes of one aligned group (lanes g*G .. g*G+G-1): xor with an
   offset below G never leaves the group, so after log2(G) steps every lane of the group
   holds the group's sum. The mask names the lanes that execute this call: the whole
   warp (every lane belongs to some group, and all arrive together), not the group.
   width = G cuts the warp into 32/G segments and takes lane numbers modulo G; with
   offsets below G it changes no result, it states the grouping. */
template <int G>
static __device__ __forceinline__ float group_reduce_sum(float v)
{
    static_assert(G >= 1 && G <= WARP_SIZE && (G & (G - 1)) == 0,
                  "a group is a power-of-two slice of one warp");
#pragma unroll
    for (int offset = G / 2; offset > 0; offset /= 2)
        v += __shfl_xor_sync(FULL_MASK, v, offset, G);
    return v;
}

/* Warp shuffle, one shared slot per warp, warp shuffle (as in 04_block_reduce).
   The result is valid in thread 0. */
template <int THREADS>
static __device__ __forceinline__ float block_reduce_sum(float v)
{
    static_assert(THREADS % WARP_SIZE == 0 && THREADS <= 1024, "whole warps, at most 1024 threads");
    constexpr int WARPS = THREADS / WARP_SIZE;
    __shared__ float warp_sums[WARPS];
    const int lane = threadIdx.x % WARP_SIZE;
    const int warp = threadIdx.x / WARP_SIZE;

    v = group_reduce_sum<WARP_SIZE>(v);
    __syncthreads();    /* a previous call (the last row) may still be reading warp_sums */
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < WARPS ? warp_sums[lane] : 0.0f;
        v = group_reduce_sum<WARP_SIZE>(v);
    }
    return v;
}

/* ------------------------------------------------------------------------- */
/* Kernels                                                                    */
/* ------------------------------------------------------------------------- */

/* Full sum, one partial per block: a grid-stride loop over 16-byte packs with UNROLL
   loads in flight per thread. The first 3 threads of the grid also take the head and
   the tail (a grid has at least BLOCK threads). Launched twice by run_packed_sum. */
static __global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
reduce_packed(const float *__restrict__ d_in, float *__restrict__ d_out, size_t n)
{
    const size_t tid = (size_t)blockIdx.x * BLOCK + threadIdx.x;
    const size_t n_threads = (size_t)gridDim.x * BLOCK;
    const span_split sp = split_span(d_in, n);
    const pack_t *body = reinterpret_cast<const pack_t *>(d_in + sp.head);

    const edge_vals<BLOCK> edges = edges_load<BLOCK>(d_in, sp, tid);
    float acc = packs_sum<UNROLL>(body, sp.packs, tid, n_threads);
    acc += edges_add(edges);
    acc = block_reduce_sum<BLOCK>(acc);
    if (threadIdx.x == 0)
        d_out[blockIdx.x] = acc;
}

/* Row sums with a group of G lanes per row (32/G rows per warp). ROWS > 1: each group
   keeps ROWS rows side by side and loads one pack of each per lap, so short rows (cols
   <= 4G: at most one pack per lane) still have ROWS loads in flight. ROWS == 1: one row
   per group, UNROLL packs of it in flight (G = 32 is the classic warp per row).
   The block walks tiles of (BLOCK/G) * ROWS consecutive rows with a bound that is the
   same for the whole block, so every lane of every warp reaches the full-mask shuffles. */
template <int G, int ROWS>
static __global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
rowsum_groups(const float *__restrict__ d_in, float *__restrict__ d_out, size_t rows, size_t cols)
{
    constexpr int GROUPS = BLOCK / G;                /* groups (rows at once) per block */
    constexpr size_t TILE = (size_t)GROUPS * ROWS;   /* rows per block per lap */
    const int rank = threadIdx.x % G;                /* lane within the group */
    const int group = threadIdx.x / G;

    for (size_t base = blockIdx.x * TILE; base < rows; base += gridDim.x * TILE) {
        const pack_t *body[ROWS];
        size_t packs[ROWS];
        edge_vals<G> edges[ROWS];
        float acc[ROWS];
        size_t most = 0;
#pragma unroll
        for (int k = 0; k < ROWS; ++k) {
            /* Instruction k of a warp reads 32/G neighbouring rows: one contiguous stretch. */
            const size_t row = base + (size_t)k * GROUPS + group;
            const bool live = row < rows;
            const float *p = d_in + (live ? row : 0) * cols;
            const span_split sp = split_span(p, live ? cols : 0);
            edges[k] = edges_load<G>(p, sp, rank);
            body[k] = reinterpret_cast<const pack_t *>(p + sp.head);
            packs[k] = sp.packs;
            most = packs[k] > most ? packs[k] : most;
        }
        if (ROWS == 1) {
            acc[0] = packs_sum<UNROLL>(body[0], packs[0], rank, G);
        } else {
#pragma unroll
            for (int k = 0; k < ROWS; ++k)
                acc[k] = 0.0f;
            for (size_t q = rank; q < most; q += G) {
                pack_t v[ROWS];
#pragma unroll
                for (int k = 0; k < ROWS; ++k)
                    v[k] = q < packs[k] ? body[k][q] : pack_t{};
#pragma unroll
                for (int k = 0; k < ROWS; ++k)
                    acc[k] += pack_sum(v[k]);
            }
        }
#pragma unroll
        for (int k = 0; k < ROWS; ++k)
            acc[k] = group_reduce_sum<G>(acc[k] + edges_add(edges[k]));
        if (rank == 0) {
#pragma unroll
            for (int k = 0; k < ROWS; ++k) {
                const size_t row = base + (size_t)k * GROUPS + group;
                if (row < rows)
                    d_out[row] = acc[k];
            }
        }
    }
}

/* The same when every row is aligned: d_in on a 16-byte boundary and cols % 4 == 0 put every
   row start on one, and a row holds cols/4 whole packs, at most one per lane (G is the smallest
   group with 4G >= cols). So a lane issues one predicated 16-byte load per row and nothing
   else: no head, no tail, no loop. The general kernel above spends more instructions on those
   per row than on the row itself when rows are 32 floats long. */
template <int G, int ROWS>
static __global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
rowsum_groups_aligned(const float *__restrict__ d_in, float *__restrict__ d_out, size_t rows, size_t cols)
{
    constexpr int GROUPS = BLOCK / G;
    constexpr size_t TILE = (size_t)GROUPS * ROWS;
    const int rank = threadIdx.x % G;
    const int group = threadIdx.x / G;
    const size_t packs = cols / PACK;
    const pack_t *in = reinterpret_cast<const pack_t *>(d_in);

    for (size_t base = blockIdx.x * TILE; base < rows; base += (size_t)gridDim.x * TILE) {
        pack_t v[ROWS];
#pragma unroll
        for (int k = 0; k < ROWS; ++k) {
            /* instruction k of a warp reads 32/G neighbouring rows: one contiguous stretch */
            const size_t row = base + (size_t)k * GROUPS + group;
            v[k] = row < rows && (size_t)rank < packs ? in[row * packs + rank] : pack_t{};
        }
        float acc[ROWS];
#pragma unroll
        for (int k = 0; k < ROWS; ++k)
            acc[k] = group_reduce_sum<G>(pack_sum(v[k]));
        if (rank == 0) {
#pragma unroll
            for (int k = 0; k < ROWS; ++k) {
                const size_t row = base + (size_t)k * GROUPS + group;
                if (row < rows)
                    d_out[row] = acc[k];
            }
        }
    }
}

/* Row sums with a block per (row, segment): packed loads, block reduce. A row is cut
   into `segs` segments of seg_len floats (a multiple of 4) only when rows are too few to
   fill the GPU; then d_out is a [rows, segs] scratch matrix that a second, tiny row-sum
   pass adds up in index order, so the result does not depend on block timing. */
static __global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
rowsum_block(const float *__restrict__ d_in, float *__restrict__ d_out, size_t rows, size_t cols,
             size_t segs, size_t seg_len)
{
    const size_t items = rows * segs;
    for (size_t item = blockIdx.x; item < items; item += gridDim.x) {
        const size_t row = item / segs;
        const size_t start = (item - row * segs) * seg_len;
        const float *p = d_in + row * cols + start;
        const span_split sp = split_span(p, min_size(seg_len, cols - start));
        const pack_t *body = reinterpret_cast<const pack_t *>(p + sp.head);

        const edge_vals<BLOCK> edges = edges_load<BLOCK>(p, sp, threadIdx.x);
        float acc = packs_sum<UNROLL>(body, sp.packs, threadIdx.x, BLOCK);
        acc = block_reduce_sum<BLOCK>(acc + edges_add(edges));
        if (threadIdx.x == 0)
            d_out[item] = acc;
    }
}

/* ------------------------------------------------------------------------- */
/* Launch helpers: how many blocks fit on the GPU at once                     */
/* ------------------------------------------------------------------------- */

typedef struct {
    int dev;        /* device the value was measured on; -1 before the first query */
    int blocks;     /* blocks of one kernel resident at once: occupancy x SMs */
} fill_cache;

/* Blocks of `kernel` (BLOCK threads, no dynamic shared memory) that the whole GPU holds
   at once. Queried once per device and kept, so a launch costs no extra API round trips.
   Returns at least 1; a failed query is left for the launch to report. */
static int resident_blocks(fill_cache *c, const void *kernel)
{
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess)
        return 1;
    if (c->dev != dev) {
        int sms = 0, per_sm = 0;
        if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, BLOCK, 0) != cudaSuccess ||
            sms < 1 || per_sm < 1)
            return 1;
        c->blocks = sms * per_sm;
        c->dev = dev;
    }
    return c->blocks;
}

/* SMs of the current device, asked once per device. */
static int sm_count(void)
{
    static int dev_seen = -1, sms = 1;
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess)
        return 1;
    if (dev != dev_seen) {
        int n = 0;
        if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || n < 1)
            return 1;
        sms = n;
        dev_seen = dev;
    }
    return sms;
}

static size_t resident_sum(void)
{
    static fill_cache c = {-1, 0};
    return (size_t)resident_blocks(&c, (const void *)reduce_packed);
}

static size_t resident_block_rows(void)
{
    static fill_cache c = {-1, 0};
    return (size_t)resident_blocks(&c, (const void *)rowsum_block);
}

/* Full sum: one block per SM slot, but no more blocks than give each thread one full lap
   of UNROLL packs (4096 floats per block), and at least one. */
static size_t sum_grid(size_t n)
{
    const size_t per_block = (size_t)BLOCK * UNROLL * PACK;
    const size_t most = resident_sum();
    const size_t need = ceil_div(n, per_block);
    return need < most ? need : most;
}

/* Block per row: split rows into segments only when there are fewer rows than twice the
   SMs, into as many as fill the GPU once, none shorter than one block lap. */
typedef struct {
    size_t segs;
    size_t seg_len;
} row_plan;

static row_plan plan_block_rows(size_t rows, size_t cols)
{
    row_plan p = {1, cols};
    if (rows >= 2 * (size_t)sm_count())
        return p;
    const size_t lap = (size_t)BLOCK * UNROLL * PACK;
    const size_t want = ceil_div(resident_block_rows(), rows);
    const size_t segs = min_size(want, ceil_div(cols, lap));
    if (segs <= 1)
        return p;
    /* A multiple of 4 floats keeps every segment on the row's own 16-byte phase. */
    p.seg_len = ceil_div(ceil_div(cols, segs), PACK) * PACK;
    p.segs = ceil_div(cols, p.seg_len);
    return p;
}

/* Smallest power-of-two group whose lanes hold a row with one pack each (cols <= 4G). */
static int group_width(size_t cols)
{
    int g = 1;
    while (g < WARP_SIZE && (size_t)g * PACK < cols)
        g *= 2;
    return g;
}

/* ------------------------------------------------------------------------- */
/* Launchers                                                                  */
/* ------------------------------------------------------------------------- */

/* Rows a group keeps side by side: 8 on the aligned path (nothing else to hold), 2 for groups
   of 1 or 2 lanes (their head and tail floats take registers), 4 otherwise. */
template <int G, bool ALIGNED>
static constexpr int rows_at_once()
{
    return ALIGNED ? ROWS_IN_FLIGHT_ALIGNED : G <= 2 ? ROWS_IN_FLIGHT_NARROW : ROWS_IN_FLIGHT;
}

template <int G, int ROWS, bool ALIGNED = false>
static cudaError_t launch_groups(const float *d_in, float *d_out, size_t rows, size_t cols, cudaStream_t s)
{
    static fill_cache fill = {-1, 0};
    void (*kernel)(const float *, float *, size_t, size_t);
    if constexpr (ALIGNED)
        kernel = rowsum_groups_aligned<G, ROWS>;
    else
        kernel = rowsum_groups<G, ROWS>;
    const size_t tile = (size_t)(BLOCK / G) * ROWS;
    const size_t grid = min_size(ceil_div(rows, tile), (size_t)resident_blocks(&fill, (const void *)kernel));
    kernel<<<(unsigned)grid, BLOCK, 0, s>>>(d_in, d_out, rows, cols);
    return cudaGetLastError();
}

template <bool ALIGNED>
static cudaError_t launch_groups_for(const float *d_in, float *d_out, size_t rows, size_t cols, cudaStream_t s)
{
    switch (group_width(cols)) {
    case 1:  return launch_groups<1, rows_at_once<1, ALIGNED>(), ALIGNED>(d_in, d_out, rows, cols, s);
    case 2:  return launch_groups<2, rows_at_once<2, ALIGNED>(), ALIGNED>(d_in, d_out, rows, cols, s);
    case 4:  return launch_groups<4, rows_at_once<4, ALIGNED>(), ALIGNED>(d_in, d_out, rows, cols, s);
    case 8:  return launch_groups<8, rows_at_once<8, ALIGNED>(), ALIGNED>(d_in, d_out, rows, cols, s);
    case 16: return launch_groups<16, rows_at_once<16, ALIGNED>(), ALIGNED>(d_in, d_out, rows, cols, s);
    default: return launch_groups<32, rows_at_once<32, ALIGNED>(), ALIGNED>(d_in, d_out, rows, cols, s);
    }
}

/* The aligned kernel when every row is whole packs, at most one per lane (rows up to
   32 lanes x 4 floats); the general one otherwise. */
static cudaError_t launch_subwarp(const float *d_in, float *d_out, size_t rows, size_t cols, cudaStream_t s)
{
    const bool aligned =
        (uintptr_t)d_in % PACK_BYTES == 0 && cols % PACK == 0 && cols <= (size_t)WARP_SIZE * PACK;
    return aligned ? launch_groups_for<true>(d_in, d_out, rows, cols, s)
                   : launch_groups_for<false>(d_in, d_out, rows, cols, s);
}

static cudaError_t launch_block_rows(const float *d_in, float *d_out, size_t rows, size_t cols,
                                     void *d_ws, cudaStream_t s)
{
    const row_plan p = plan_block_rows(rows, cols);
    float *dst = p.segs > 1 ? static_cast<float *>(d_ws) : d_out;
    const size_t items = rows * p.segs;
    const size_t grid = min_size(items, resident_block_rows());
    rowsum_block<<<(unsigned)grid, BLOCK, 0, s>>>(d_in, dst, rows, cols, p.segs, p.seg_len);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess || p.segs == 1)
        return err;
    /* Second pass: the [rows, segs] partials are a row sum of their own. */
    return launch_subwarp(dst, d_out, rows, p.segs, s);
}

/* Idea:  grid-stride 16-byte loads, 4 in flight per thread, scalar head/tail, grid from occupancy.
   Fixes: 04_block_reduce moves 4 bytes per load instruction; a pack moves 16, a quarter of the instructions.
   Cost:  two launches (partials, then one block on them): fixed overhead that shows below ~2^20 floats.
   Run:   build/05_packed --variant packed_sum */
static cudaError_t run_packed_sum(const void *d_in, void *d_out, size_t rows, size_t cols,
                                  void *d_ws, cudaStream_t s)
{
    (void)rows;
    const float *in = static_cast<const float *>(d_in);
    float *out = static_cast<float *>(d_out);
    float *partials = static_cast<float *>(d_ws);
    const size_t grid = sum_grid(cols);
    if (grid == 1) {
        reduce_packed<<<1, BLOCK, 0, s>>>(in, out, cols);
        return cudaGetLastError();
    }
    reduce_packed<<<(unsigned)grid, BLOCK, 0, s>>>(in, partials, cols);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        return err;
    /* The partials start the cudaMalloc'd workspace, so this pass is all body, no head. */
    reduce_packed<<<1, BLOCK, 0, s>>>(partials, out, grid);
    return cudaGetLastError();
}

/* Idea:  G = 1..32 lanes per row (smallest power of two with cols <= 4G), 4 rows per group at once.
   Fixes: a warp per short row leaves lanes idle; a 32-column row is now 8 lanes x 16 bytes.
   Cost:  past 128 columns G stays 32 and each row is one lap per 128 columns; long rows want more.
   Run:   build/05_packed --variant subwarp_per_row --rows 2097152 --cols 32 */
static cudaError_t run_subwarp_per_row(const void *d_in, void *d_out, size_t rows, size_t cols,
                                       void *d_ws, cudaStream_t s)
{
    (void)d_ws;
    return launch_subwarp(static_cast<const float *>(d_in), static_cast<float *>(d_out), rows, cols, s);
}

/* Idea:  one warp per row, 4 packs per lane in flight.
   Fixes: 04_block_reduce's warp per row reads 4 bytes per lane per instruction.
   Cost:  one warp per row: a few long rows leave most SMs idle; short rows idle most lanes.
   Run:   build/05_packed --variant warp_per_row_packed --rows 65536 --cols 1024 */
static cudaError_t run_warp_per_row(const void *d_in, void *d_out, size_t rows, size_t cols,
                                    void *d_ws, cudaStream_t s)
{
    (void)d_ws;
    return launch_groups<WARP_SIZE, 1>(static_cast<const float *>(d_in), static_cast<float *>(d_out),
                                       rows, cols, s);
}

/* Idea:  one block per row, packed loads; a few long rows are cut into segments + a tiny second pass.
   Fixes: 04_block_reduce's block per row reads 4 bytes per load and fills only `rows` blocks.
   Cost:  a block-wide reduction (two barriers) per row: too heavy for short rows.
   Run:   build/05_packed --variant block_per_row_packed --rows 1024 --cols 65536 */
static cudaError_t run_block_per_row(const void *d_in, void *d_out, size_t rows, size_t cols,
                                     void *d_ws, cudaStream_t s)
{
    return launch_block_rows(static_cast<const float *>(d_in), static_cast<float *>(d_out),
                             rows, cols, d_ws, s);
}

/* Idea:  pick the mapping from cols: sub-warp groups, warp per row, block per row (README table).
   Fixes: each mapping above is slow somewhere between 32 and 65536 columns.
   Cost:  three kernels and two thresholds to keep tuned.
   Run:   build/05_packed --variant dispatch --rows 4096 --cols 1000 */
static cudaError_t run_dispatch(const void *d_in, void *d_out, size_t rows, size_t cols,
                                void *d_ws, cudaStream_t s)
{
    if (cols <= SUBWARP_MAX_COLS)
        return run_subwarp_per_row(d_in, d_out, rows, cols, d_ws, s);
    if (cols <= WARP_ROW_MAX_COLS)
        return run_warp_per_row(d_in, d_out, rows, cols, d_ws, s);
    return run_block_per_row(d_in, d_out, rows, cols, d_ws, s);
}

/* ------------------------------------------------------------------------- */
/* supports / workspace                                                       */
/* ------------------------------------------------------------------------- */

static int supports_sum(size_t rows, size_t cols)
{
    return rows == 1 && cols >= 1;
}

static int supports_rows(size_t rows, size_t cols)
{
    return rows >= 1 && cols >= 1;
}

static size_t workspace_sum(size_t rows, size_t cols)
{
    (void)rows;
    (void)cols;
    /* one partial per block; the grid never exceeds what fits at once */
    return resident_sum() * sizeof(float);
}

static size_t workspace_none(size_t rows, size_t cols)
{
    (void)rows;
    (void)cols;
    return 0;
}

static size_t workspace_block_rows(size_t rows, size_t cols)
{
    const row_plan p = plan_block_rows(rows, cols);
    return p.segs > 1 ? rows * p.segs * sizeof(float) : 0;
}

static size_t workspace_dispatch(size_t rows, size_t cols)
{
    return cols > WARP_ROW_MAX_COLS ? workspace_block_rows(rows, cols) : 0;
}

/* ------------------------------------------------------------------------- */
/* Variant table and descriptor                                               */
/* ------------------------------------------------------------------------- */

static const variant_t variants[] = {
    {"packed_sum", "grid-stride 16-byte loads, 4 in flight, misaligned head/tail in scalar, 2 launches",
     OP_SUM, DT_F32, DT_F32, supports_sum, workspace_sum, run_packed_sum},
    {"subwarp_per_row", "G = 1..32 lanes per row (cols <= 4G), 16-byte loads, G-lane xor butterfly",
     OP_ROWSUM, DT_F32, DT_F32, supports_rows, workspace_none, run_subwarp_per_row},
    {"warp_per_row_packed", "one warp per row, 4 x 16-byte loads per lane in flight",
     OP_ROWSUM, DT_F32, DT_F32, supports_rows, workspace_none, run_warp_per_row},
    {"block_per_row_packed", "one block per row (rows split when few), 16-byte loads, block reduce",
     OP_ROWSUM, DT_F32, DT_F32, supports_rows, workspace_block_rows, run_block_per_row},
    {"dispatch", "sub-warp groups up to 512 cols, warp per row up to 4096, block per row beyond",
     OP_ROWSUM, DT_F32, DT_F32, supports_rows, workspace_dispatch, run_dispatch},
};

extern "C" const stage_t stage_05_packed = {
    "05_packed", "Packed 16-byte loads", variants, sizeof(variants) / sizeof(variants[0])};
