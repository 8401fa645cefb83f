/* SPDX-License-Identifier: MIT */
/* 06_coop_groups: the packed reductions of 05 written with cooperative groups, batched
 * row sums with a thread_block_tile per row, and two ways to finish a full sum in ONE launch.
 *
 *   cg_reduce          build/06_coop_groups --variant cg_reduce
 *   tile_per_row       build/06_coop_groups --variant tile_per_row --rows 2097152 --cols 32
 *   block_per_row_cg   build/06_coop_groups --variant block_per_row_cg --rows 1024 --cols 65536
 *   batched_rowsum     build/06_coop_groups --variant batched_rowsum --rows 4096 --cols 1000
 *   grid_sync          build/06_coop_groups --variant grid_sync
 *   single_pass        build/06_coop_groups --variant single_pass -n 1048576
 *
 * Loads are the same as in 05_packed: each span of floats is HEAD (0..3 floats before the
 * first 16-byte boundary, 4-byte loads), BODY (16-byte packs), TAIL (0..3 floats, 4-byte loads).
 * No -rdc is needed: since CUDA 11, grid.sync() works in whole-program compilation.
 */
#include <stdint.h>
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include "stage.h"

namespace cg = cooperative_groups;

/* ------------------------------------------------------------------------- */
/* Constants                                                                  */
/* ------------------------------------------------------------------------- */

#define WARP_SIZE 32            /* lanes per warp on every NVIDIA GPU so far */

/* 16 bytes is the widest load one thread can issue (LDG.E.128): 4 floats. */
#define PACK_BYTES 16
#define PACK (PACK_BYTES / (int)sizeof(float))

/* 256 threads = 8 warps: whole warps, and small enough that several blocks share an SM
   (how many is asked of the occupancy API at run time, never assumed). */
#define BLOCK 256

/* Independent 16-byte loads per thread per lap; 64 KB or more in flight per SM. */
#define UNROLL 4

/* At least 4 resident blocks = at most 64 registers a thread: room for ptxas to keep a
   whole lap of loads in flight (see 05_packed). */
#define MIN_BLOCKS 4

/* Rows a tile keeps side by side when rows are short (one pack per lane per row). */
#define ROWS_IN_FLIGHT 4

/* Rows per tile at once on the aligned path: no head or tail to hold, so 8 fit. */
#define ROWS_ALIGNED 8

/* A tile kernel with 4 rows in flight needs a few registers more than 05's hand-written
   shuffles (cg::reduce on a sub-warp tile also builds the tile's lane mask); within 64
   ptxas splits the 4 loads of a lap into 2 + 2. 3 resident blocks (up to 85 registers)
   keep all 4 in flight: 768 threads x 4 x 16 B = 48 KB per SM. */
#define MIN_BLOCKS_ROWS 3

/* Smallest tile: 4 lanes x 4 floats = 16 columns per load instruction. */
#define MIN_TILE 4

/* batched_rowsum thresholds (the same reasoning as 05_packed's dispatch). */
#define TILE_MAX_COLS 512
#define WARP_ROW_MAX_COLS 4096

/* Workspace of every variant here: a 128-byte header that holds single_pass's ticket
   counter (its own cache line), then the float partials. One layout for the whole stage,
   so partials of one variant never land on another's counter. */
#define WS_HEADER_BYTES 128

/* ------------------------------------------------------------------------- */
/* Packed loads, head / body / tail (as in 05_packed)                         */
/* ------------------------------------------------------------------------- */

template <typename T, int N>
struct alignas(sizeof(T) * N) Packed {
    T elem[N];
};

typedef Packed<float, PACK> pack_t;
static_assert(sizeof(pack_t) == PACK_BYTES && alignof(pack_t) == PACK_BYTES,
              "one pack must be exactly one 16-byte load");

static __device__ __forceinline__ float pack_sum(const pack_t &v)
{
    return (v.elem[0] + v.elem[1]) + (v.elem[2] + v.elem[3]);
}

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

/* Every span (the array, a row, a segment) is split on its own: a row starts 16-byte
   aligned only when d_in is and cols % 4 == 0. */
static __host__ __device__ __forceinline__ span_split split_span(const float *p, size_t len)
{
    const size_t past = (size_t)(((uintptr_t)p / sizeof(float)) % PACK);
    span_split sp;
    sp.head = min_size((PACK - past) % PACK, len);
    sp.packs = (len - sp.head) / PACK;
    sp.tail = len - sp.head - sp.packs * PACK;
    return sp;
}

/* Head and tail floats owned by thread `rank` of the WIDTH sharing a span, loaded before
   the body loop and added after it so their latency hides under the body's. */
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

/* Packs first, first + stride, ...: N_LOADS 16-byte loads in flight per full lap. */
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

/* One thread's share of a full sum over a grid of n_threads: its packs of the grid-stride
   walk, and a head or tail float for the first 3 threads of the grid. */
static __device__ __forceinline__ float thread_sum(const float *__restrict__ d_in, size_t n,
                                                   size_t tid, size_t n_threads)
{
    const span_split sp = split_span(d_in, n);
    const edge_vals<BLOCK> edges = edges_load<BLOCK>(d_in, sp, tid);
    const float body = packs_sum<UNROLL>(reinterpret_cast<const pack_t *>(d_in + sp.head),
                                         sp.packs, tid, n_threads);
    return body + edges_add(edges);
}

/* ------------------------------------------------------------------------- */
/* Block reduce with cooperative groups                                       */
/* ------------------------------------------------------------------------- */

/* The 05 block reduce, said in groups: tiled_partition<32> names the warps, cg::reduce
   is the shuffle butterfly (exact for floats: a fixed tree, so deterministic), and
   meta_group_rank() is the warp's index in the block. Result valid in thread 0. */
template <int THREADS>
static __device__ __forceinline__ float block_reduce_cg(const cg::thread_block &block, float v)
{
    static_assert(THREADS % WARP_SIZE == 0 && THREADS <= 1024, "whole warps, at most 1024 threads");
    constexpr int WARPS = THREADS / WARP_SIZE;
    __shared__ float warp_sums[WARPS];
    const cg::thread_block_tile<WARP_SIZE> warp = cg::tiled_partition<WARP_SIZE>(block);

    v = cg::reduce(warp, v, cg::plus<float>());
    block.sync();   /* a previous call (the last row) may still be reading warp_sums */
    if (warp.thread_rank() == 0)
        warp_sums[warp.meta_group_rank()] = v;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        v = warp.thread_rank() < WARPS ? warp_sums[warp.thread_rank()] : 0.0f;
        v = cg::reduce(warp, v, cg::plus<float>());
    }
    return v;
}

/* Sum of count partials in index order by one block; __ldcg reads them from L2, where
   other SMs' stores land, never from this SM's (incoherent) L1. Valid in thread 0. */
static __device__ __forceinline__ float partials_sum(const cg::thread_block &block,
                                                     const float *d_partials, unsigned count)
{
    float v = 0.0f;
    for (unsigned i = block.thread_rank(); i < count; i += BLOCK)
        v += __ldcg(d_partials + i);
    return block_reduce_cg<BLOCK>(block, v);
}

/* ------------------------------------------------------------------------- */
/* Kernels                                                                    */
/* ------------------------------------------------------------------------- */

/* Full sum, one partial per block (cg_reduce: launched twice). */
static __global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
reduce_packed_cg(const float *__restrict__ d_in, float *__restrict__ d_out, size_t n)
{
    const cg::thread_block block = cg::this_thread_block();
    const size_t tid = (size_t)blockIdx.x * BLOCK + block.thread_rank();
    float v = thread_sum(d_in, n, tid, (size_t)gridDim.x * BLOCK);
    v = block_reduce_cg<BLOCK>(block, v);
    if (block.thread_rank() == 0)
        d_out[blockIdx.x] = v;
}

/* Row sums, a thread_block_tile<G> per row (Lei Mao's batched reduce, one tile instead of
   one block per batch). ROWS > 1: each tile keeps ROWS short rows side by side, one pack
   of each per lap; ROWS == 1: one row, UNROLL packs in flight. The block walks tiles of
   (BLOCK/G) * ROWS consecutive rows with a block-uniform bound, so each tile is whole
   when it reaches cg::reduce. */
template <int G, int ROWS>
static __global__ void __launch_bounds__(BLOCK, ROWS > 1 ? MIN_BLOCKS_ROWS : MIN_BLOCKS)
rowsum_tiles(const float *__restrict__ d_in, float *__restrict__ d_out, size_t rows, size_t cols)
{
    const cg::thread_block block = cg::this_thread_block();
    const cg::thread_block_tile<G> tile = cg::tiled_partition<G>(block);
    constexpr int TILES = BLOCK / G;                   /* rows at once per block */
    constexpr size_t STEP = (size_t)TILES * ROWS;      /* rows per block per lap */
    const unsigned rank = tile.thread_rank();
    const unsigned which = tile.meta_group_rank();     /* this tile's index in the block */

    for (size_t base = blockIdx.x * STEP; base < rows; base += gridDim.x * STEP) {
        const pack_t *body[ROWS];
        size_t packs[ROWS];
        edge_vals<G> edges[ROWS];
        float acc[ROWS];
        size_t most = 0;
#pragma unroll
        for (int k = 0; k < ROWS; ++k) {
            const size_t row = base + (size_t)k * TILES + which;
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
            acc[k] = cg::reduce(tile, acc[k] + edges_add(edges[k]), cg::plus<float>());
        if (rank == 0) {
#pragma unroll
            for (int k = 0; k < ROWS; ++k) {
                const size_t row = base + (size_t)k * TILES + which;
                if (row < rows)
                    d_out[row] = acc[k];
            }
        }
    }
}

/* The same when every row is aligned (d_in on 16 bytes, cols % 4 == 0, cols <= 4G): a row is
   cols/4 whole packs, at most one per lane of its tile, so each lane issues one predicated
   16-byte load per row, ROWS_ALIGNED rows at once, and nothing else (as in 05_packed). */
template <int G>
static __global__ void __launch_bounds__(BLOCK, MIN_BLOCKS_ROWS)
rowsum_tiles_aligned(const float *__restrict__ d_in, float *__restrict__ d_out, size_t rows, size_t cols)
{
    const cg::thread_block block = cg::this_thread_block();
    const cg::thread_block_tile<G> tile = cg::tiled_partition<G>(block);
    constexpr int TILES = BLOCK / G;
    constexpr size_t STEP = (size_t)TILES * ROWS_ALIGNED;
    const unsigned rank = tile.thread_rank();
    const unsigned which = tile.meta_group_rank();
    const size_t packs = cols / PACK;
    const pack_t *in = reinterpret_cast<const pack_t *>(d_in);

    for (size_t base = blockIdx.x * STEP; base < rows; base += gridDim.x * STEP) {
        pack_t v[ROWS_ALIGNED];
#pragma unroll
        for (int k = 0; k < ROWS_ALIGNED; ++k) {
            const size_t row = base + (size_t)k * TILES + which;
            v[k] = row < rows && rank < packs ? in[row * packs + rank] : pack_t{};
        }
        float acc[ROWS_ALIGNED];
#pragma unroll
        for (int k = 0; k < ROWS_ALIGNED; ++k)
            acc[k] = cg::reduce(tile, pack_sum(v[k]), cg::plus<float>());
        if (rank == 0) {
#pragma unroll
            for (int k = 0; k < ROWS_ALIGNED; ++k) {
                const size_t row = base + (size_t)k * TILES + which;
                if (row < rows)
                    d_out[row] = acc[k];
            }
        }
    }
}

/* Row sums, a block per (row, segment); segments only when rows are few (see 05_packed).
   With segs > 1, d_out is a [rows, segs] scratch matrix summed by a second, tiny pass. */
static __global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
rowsum_block_cg(const float *__restrict__ d_in, float *__restrict__ d_out, size_t rows, size_t cols,
                size_t segs, size_t seg_len)
{
    const cg::thread_block block = cg::this_thread_block();
    const size_t items = rows * segs;
    for (size_t item = blockIdx.x; item < items; item += gridDim.x) {
        const size_t row = item / segs;
        const size_t start = (item - row * segs) * seg_len;
        const float *p = d_in + row * cols + start;
        const span_split sp = split_span(p, min_size(seg_len, cols - start));
        const edge_vals<BLOCK> edges = edges_load<BLOCK>(p, sp, block.thread_rank());
        float v = packs_sum<UNROLL>(reinterpret_cast<const pack_t *>(p + sp.head), sp.packs,
                                    block.thread_rank(), BLOCK);
        v = block_reduce_cg<BLOCK>(block, v + edges_add(edges));
        if (block.thread_rank() == 0)
            d_out[item] = v;
    }
}

/* Full sum in one cooperative launch: per-block partials, grid.sync(), block 0 adds them.
   Every block must be resident at once for grid.sync() to return; the launcher sizes the
   grid from the occupancy API and cudaLaunchCooperativeKernel refuses any larger grid. */
static __global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
reduce_grid_sync(const float *__restrict__ d_in, float *__restrict__ d_out, size_t n, float *d_partials)
{
    const cg::grid_group grid = cg::this_grid();
    const cg::thread_block block = cg::this_thread_block();
    const size_t tid = (size_t)blockIdx.x * BLOCK + block.thread_rank();
    float v = thread_sum(d_in, n, tid, (size_t)gridDim.x * BLOCK);
    v = block_reduce_cg<BLOCK>(block, v);
    if (block.thread_rank() == 0)
        d_partials[blockIdx.x] = v;
    grid.sync();    /* a barrier and a memory fence for the whole grid */
    if (blockIdx.x != 0)
        return;
    v = partials_sum(block, d_partials, gridDim.x);
    if (block.thread_rank() == 0)
        *d_out = v;
}

/* Full sum in one ordinary launch: every block stores its partial, fences, and takes a
   ticket; the block holding the last ticket knows all partials are out, adds them in
   index order (deterministic whichever block comes last) and puts the counter back to 0. */
static __global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
reduce_single_pass(const float *__restrict__ d_in, float *__restrict__ d_out, size_t n,
                   float *d_partials, unsigned *d_counter)
{
    const cg::thread_block block = cg::this_thread_block();
    __shared__ bool is_last;
    const size_t tid = (size_t)blockIdx.x * BLOCK + block.thread_rank();
    float v = thread_sum(d_in, n, tid, (size_t)gridDim.x * BLOCK);
    v = block_reduce_cg<BLOCK>(block, v);
    if (gridDim.x == 1) {   /* small n: one block, no partials, no atomics */
        if (block.thread_rank() == 0)
            *d_out = v;
        return;
    }
    if (block.thread_rank() == 0) {
        d_partials[blockIdx.x] = v;
        __threadfence();    /* the partial is visible device-wide before the ticket is */
        is_last = atomicAdd(d_counter, 1u) == gridDim.x - 1;
        if (is_last)
            __threadfence();    /* and the last block sees every partial after its ticket */
    }
    block.sync();
    if (!is_last)
        return;
    v = partials_sum(block, d_partials, gridDim.x);
    if (block.thread_rank() == 0) {
        *d_out = v;
        *d_counter = 0;     /* self-resetting: the next launch on the stream starts from 0 */
    }
}

/* ------------------------------------------------------------------------- */
/* Launch helpers                                                             */
/* ------------------------------------------------------------------------- */

typedef struct {
    int dev;        /* device the value was measured on; -1 before the first query */
    int blocks;     /* blocks of one kernel resident at once: occupancy x SMs */
} fill_cache;

/* Blocks of `kernel` (BLOCK threads, no dynamic shared memory) the GPU holds at once,
   asked once per device and kept: a launch pays no API round trips for it. At least 1;
   a failed query is left for the launch to report. */
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
    return (size_t)resident_blocks(&c, (const void *)reduce_packed_cg);
}

static size_t resident_grid_sync(void)
{
    static fill_cache c = {-1, 0};
    return (size_t)resident_blocks(&c, (const void *)reduce_grid_sync);
}

static size_t resident_single_pass(void)
{
    static fill_cache c = {-1, 0};
    return (size_t)resident_blocks(&c, (const void *)reduce_single_pass);
}

static size_t resident_block_rows(void)
{
    static fill_cache c = {-1, 0};
    return (size_t)resident_blocks(&c, (const void *)rowsum_block_cg);
}

/* Blocks for a full sum: no more than fit at once, no more than give each thread one full
   lap of UNROLL packs (BLOCK * UNROLL * 4 = 4096 floats a block), at least one. */
static size_t sum_grid(size_t n, size_t resident)
{
    const size_t need = ceil_div(n, (size_t)BLOCK * UNROLL * PACK);
    return need < resident ? need : resident;
}

static float *ws_partials(void *d_ws)
{
    return reinterpret_cast<float *>(static_cast<char *>(d_ws) + WS_HEADER_BYTES);
}

static unsigned *ws_counter(void *d_ws)
{
    return static_cast<unsigned *>(d_ws);
}

typedef struct {
    size_t segs;
    size_t seg_len;
} row_plan;

/* Cut rows into segments only when there are fewer rows than twice the SMs, into as many
   as fill the GPU once, none shorter than one block lap; a multiple of 4 floats each. */
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
    p.seg_len = ceil_div(ceil_div(cols, segs), PACK) * PACK;
    p.segs = ceil_div(cols, p.seg_len);
    return p;
}

/* Smallest power-of-two tile (4..32) whose lanes hold a row with one pack each (cols <= 4G). */
static int tile_width(size_t cols)
{
    int g = MIN_TILE;
    while (g < WARP_SIZE && (size_t)g * PACK < cols)
        g *= 2;
    return g;
}

/* ALIGNED picks rowsum_tiles_aligned, which always holds ROWS_ALIGNED rows per tile. */
template <int G, int ROWS, bool ALIGNED = false>
static cudaError_t launch_tiles(const float *d_in, float *d_out, size_t rows, size_t cols, cudaStream_t s)
{
    static fill_cache fill = {-1, 0};
    void (*kernel)(const float *, float *, size_t, size_t);
    if constexpr (ALIGNED)
        kernel = rowsum_tiles_aligned<G>;
    else
        kernel = rowsum_tiles<G, ROWS>;
    const size_t step = (size_t)(BLOCK / G) * (ALIGNED ? ROWS_ALIGNED : ROWS);
    const size_t grid = min_size(ceil_div(rows, step), (size_t)resident_blocks(&fill, (const void *)kernel));
    kernel<<<(unsigned)grid, BLOCK, 0, s>>>(d_in, d_out, rows, cols);
    return cudaGetLastError();
}

template <bool ALIGNED>
static cudaError_t launch_tiles_for(const float *d_in, float *d_out, size_t rows, size_t cols, cudaStream_t s)
{
    switch (tile_width(cols)) {
    case 4:  return launch_tiles<4, ROWS_IN_FLIGHT, ALIGNED>(d_in, d_out, rows, cols, s);
    case 8:  return launch_tiles<8, ROWS_IN_FLIGHT, ALIGNED>(d_in, d_out, rows, cols, s);
    case 16: return launch_tiles<16, ROWS_IN_FLIGHT, ALIGNED>(d_in, d_out, rows, cols, s);
    default: return launch_tiles<32, ROWS_IN_FLIGHT, ALIGNED>(d_in, d_out, rows, cols, s);
    }
}

/* The aligned kernel when every row is whole packs, at most one per lane (rows up to
   32 lanes x 4 floats); the general one otherwise. */
static cudaError_t launch_tile_rows(const float *d_in, float *d_out, size_t rows, size_t cols, cudaStream_t s)
{
    const bool aligned =
        (uintptr_t)d_in % PACK_BYTES == 0 && cols % PACK == 0 && cols <= (size_t)WARP_SIZE * PACK;
    return aligned ? launch_tiles_for<true>(d_in, d_out, rows, cols, s)
                   : launch_tiles_for<false>(d_in, d_out, rows, cols, s);
}

static cudaError_t launch_block_rows(const float *d_in, float *d_out, size_t rows, size_t cols,
                                     void *d_ws, cudaStream_t s)
{
    const row_plan p = plan_block_rows(rows, cols);
    float *dst = p.segs > 1 ? ws_partials(d_ws) : d_out;
    const size_t grid = min_size(rows * p.segs,
                                 resident_block_rows());
    rowsum_block_cg<<<(unsigned)grid, BLOCK, 0, s>>>(d_in, dst, rows, cols, p.segs, p.seg_len);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess || p.segs == 1)
        return err;
    /* Second pass: the [rows, segs] partials are a batched row sum of their own. */
    return launch_tile_rows(dst, d_out, rows, p.segs, s);
}

/* ------------------------------------------------------------------------- */
/* Launchers (one per variant)                                                */
/* ------------------------------------------------------------------------- */

/* Idea:  05's packed sum with the block reduce in groups: this_thread_block, tiled_partition<32>, cg::reduce.
   Fixes: hand-written shuffles and lane arithmetic; the group API states which threads take part.
   Cost:  the same two launches as 05 (partials, then one block); no speed is gained or lost.
   Run:   build/06_coop_groups --variant cg_reduce */
static cudaError_t run_cg_reduce(const void *d_in, void *d_out, size_t rows, size_t cols,
                                 void *d_ws, cudaStream_t s)
{
    (void)rows;
    const float *in = static_cast<const float *>(d_in);
    float *out = static_cast<float *>(d_out);
    float *partials = ws_partials(d_ws);
    const size_t grid = sum_grid(cols, resident_sum());
    if (grid == 1) {
        reduce_packed_cg<<<1, BLOCK, 0, s>>>(in, out, cols);
        return cudaGetLastError();
    }
    reduce_packed_cg<<<(unsigned)grid, BLOCK, 0, s>>>(in, partials, cols);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        return err;
    reduce_packed_cg<<<1, BLOCK, 0, s>>>(partials, out, grid);
    return cudaGetLastError();
}

/* Idea:  batched reduce: a thread_block_tile<G> (G = 4..32, cols <= 4G) per row, cg::reduce over the tile.
   Fixes: 05's sub-warp shuffles with a hand-picked width and mask; the tile carries both.
   Cost:  past 128 columns the tile stays a warp and walks the row 128 columns a lap.
   Run:   build/06_coop_groups --variant tile_per_row --rows 2097152 --cols 32 */
static cudaError_t run_tile_per_row(const void *d_in, void *d_out, size_t rows, size_t cols,
                                    void *d_ws, cudaStream_t s)
{
    (void)d_ws;
    return launch_tile_rows(static_cast<const float *>(d_in), static_cast<float *>(d_out), rows, cols, s);
}

/* Idea:  a block per row (segments when rows are few), packed loads, block reduce in groups.
   Fixes: a tile per row leaves the GPU idle when rows are few and long.
   Cost:  two block barriers per row: wasteful below a few thousand columns.
   Run:   build/06_coop_groups --variant block_per_row_cg --rows 1024 --cols 65536 */
static cudaError_t run_block_per_row_cg(const void *d_in, void *d_out, size_t rows, size_t cols,
                                        void *d_ws, cudaStream_t s)
{
    return launch_block_rows(static_cast<const float *>(d_in), static_cast<float *>(d_out),
                             rows, cols, d_ws, s);
}

/* Idea:  one entry for batched row sums: tiles up to 512 cols, a warp tile per row to 4096, a block beyond.
   Fixes: neither mapping alone holds up from 32 to 65536 columns.
   Cost:  thresholds chosen by reasoning (README), to be checked against the measured sweep.
   Run:   build/06_coop_groups --variant batched_rowsum --rows 4096 --cols 1000 */
static cudaError_t run_batched_rowsum(const void *d_in, void *d_out, size_t rows, size_t cols,
                                      void *d_ws, cudaStream_t s)
{
    const float *in = static_cast<const float *>(d_in);
    float *out = static_cast<float *>(d_out);
    if (cols <= TILE_MAX_COLS)
        return launch_tile_rows(in, out, rows, cols, s);
    if (cols <= WARP_ROW_MAX_COLS)
        return launch_tiles<WARP_SIZE, 1>(in, out, rows, cols, s);
    return launch_block_rows(in, out, rows, cols, d_ws, s);
}

/* Idea:  ONE cooperative launch: partials, grid.sync(), block 0 finishes (Lei Mao's full reduce).
   Fixes: the second launch of cg_reduce and the gap between the two.
   Cost:  grid capped at what is co-resident; grid.sync() itself costs a few microseconds.
   Run:   build/06_coop_groups --variant grid_sync */
static cudaError_t run_grid_sync(const void *d_in, void *d_out, size_t rows, size_t cols,
                                 void *d_ws, cudaStream_t s)
{
    (void)rows;
    const float *in = static_cast<const float *>(d_in);
    float *out = static_cast<float *>(d_out);
    float *partials = ws_partials(d_ws);
    size_t n = cols;
    const size_t grid = sum_grid(n, resident_grid_sync());
    void *args[] = {&in, &out, &n, &partials};
    static int coop_dev = -1, coop = 0;   /* asked once per device */
    int dev = 0;
    if (cudaGetDevice(&dev) == cudaSuccess && dev != coop_dev) {
        if (cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev) != cudaSuccess)
            coop = 0;
        coop_dev = dev;
    }
    if (!coop)
        return cudaErrorNotSupported;   /* grid.sync() needs a cooperative launch */
    const cudaError_t err = cudaLaunchCooperativeKernel(reduce_grid_sync, dim3((unsigned)grid), dim3(BLOCK),
                                                        args, 0, s);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();   /* clear the copy the runtime keeps; report this one */
        return err;
    }
    return cudaGetLastError();
}

/* Idea:  ONE ordinary launch; the last block to finish (atomic ticket) adds the partials in index order.
   Fixes: grid_sync's co-residency rule and barrier; cg_reduce's second launch.
   Cost:  a fence and an atomic per block; a workspace counter that must start at zero (reset by the kernel).
   Run:   build/06_coop_groups --variant single_pass -n 1048576 */
static cudaError_t run_single_pass(const void *d_in, void *d_out, size_t rows, size_t cols,
                                   void *d_ws, cudaStream_t s)
{
    (void)rows;
    const size_t grid = sum_grid(cols, resident_single_pass());
    reduce_single_pass<<<(unsigned)grid, BLOCK, 0, s>>>(static_cast<const float *>(d_in),
                                                       static_cast<float *>(d_out), cols,
                                                       ws_partials(d_ws), ws_counter(d_ws));
    return cudaGetLastError();
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

/* Any full-sum shape. A device without cooperative launch is not a shape limit: the
   launcher reports it as cudaErrorNotSupported, and the driver skips the variant (or, when
   it was asked for by name, stops with exit 3 and says so). */
static int supports_grid_sync(size_t rows, size_t cols) { return supports_sum(rows, cols); }

static size_t workspace_cg_reduce(size_t rows, size_t cols)
{
    (void)rows;
    (void)cols;
    return WS_HEADER_BYTES + resident_sum() * sizeof(float);
}

static size_t workspace_grid_sync(size_t rows, size_t cols)
{
    (void)rows;
    (void)cols;
    return WS_HEADER_BYTES + resident_grid_sync() * sizeof(float);
}

static size_t workspace_single_pass(size_t rows, size_t cols)
{
    (void)rows;
    (void)cols;
    return WS_HEADER_BYTES + resident_single_pass() * sizeof(float);
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
    return p.segs > 1 ? WS_HEADER_BYTES + rows * p.segs * sizeof(float) : 0;
}

static size_t workspace_batched(size_t rows, size_t cols)
{
    return cols > WARP_ROW_MAX_COLS ? workspace_block_rows(rows, cols) : 0;
}

/* ------------------------------------------------------------------------- */
/* Variant table and descriptor                                               */
/* ------------------------------------------------------------------------- */

static const variant_t variants[] = {
    {"cg_reduce", "packed grid-stride sum, block reduce via tiled_partition<32> + cg::reduce, 2 launches",
     OP_SUM, DT_F32, DT_F32, supports_sum, workspace_cg_reduce, run_cg_reduce},
    {"tile_per_row", "thread_block_tile<G> per row (G = 4..32, cols <= 4G), cg::reduce over the tile",
     OP_ROWSUM, DT_F32, DT_F32, supports_rows, workspace_none, run_tile_per_row},
    {"block_per_row_cg", "block per row (split when rows are few), packed loads, block reduce in groups",
     OP_ROWSUM, DT_F32, DT_F32, supports_rows, workspace_block_rows, run_block_per_row_cg},
    {"batched_rowsum", "tiles up to 512 cols, warp tile per row up to 4096, block per row beyond",
     OP_ROWSUM, DT_F32, DT_F32, supports_rows, workspace_batched, run_batched_rowsum},
    {"grid_sync", "one cooperative launch: partials, grid.sync(), block 0 finishes",
     OP_SUM, DT_F32, DT_F32, supports_grid_sync, workspace_grid_sync, run_grid_sync},
    {"single_pass", "one launch: partials, fence + atomic ticket, last block adds them in index order",
     OP_SUM, DT_F32, DT_F32, supports_sum, workspace_single_pass, run_single_pass},
};

extern "C" const stage_t stage_06_coop_groups = {
    "06_coop_groups", "Cooperative groups", variants, sizeof(variants) / sizeof(variants[0])};
