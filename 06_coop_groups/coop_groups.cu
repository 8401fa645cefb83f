// SPDX-License-Identifier: MIT
// 06_coop_groups/coop_groups.cu: Cooperative groups
//
// Groups of threads as objects: a thread_block_tile<G> of G lanes sums a short row, the
// thread_block a long one, the grid_group finishes a full sum after grid.sync(), and a cluster
// of blocks (sm_90) shares its shared memory so that a few long rows, or a mid-size array, are
// summed by many SMs in one launch. The 16-byte packs and the head/body/tail split are 05's.
//
//   cg_reduce      05's packed_sum, block reduce written with groups      (two launches)
//   tile_per_row   a thread_block_tile<G> per row, G = 4..32 from cols     --rows 2097152 --cols 32
//   dispatch       row sums: tiles, a warp tile, blocks, or a cluster per row, from the shape
//   grid_sync      one cooperative launch: partials, grid.sync(), block 0 finishes
//   single_pass    one launch: the last block to finish (atomic ticket) adds the partials
//   cluster_sum    one launch: blocks combine in a cluster's shared memory, clusters by ticket
//   flag_sum       one launch: tickets at the start, the last block to start adds flagged partials
//
// Run one:  build/06_coop_groups --variant NAME [-n N | --rows R --cols C]
// No -rdc is needed: since CUDA 11, grid.sync() works in whole-program compilation.
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stage.h"

namespace cg = cooperative_groups;

// ------------------------------------------------------------------------------------------------
// Constants
// ------------------------------------------------------------------------------------------------

static constexpr int WARP_SIZE = 32;          // lanes per warp on every NVIDIA GPU
static constexpr int PACK_BYTES = 16;         // the widest load of one thread (LDG.E.128)
static constexpr int PACK = PACK_BYTES / 4;   // 4 floats a pack
static constexpr int BLOCK_SIZE = 256;        // 8 warps, as in 04 and 05
static constexpr int UNROLL = 4;              // 16-byte loads in flight per thread (05)
static constexpr int MIN_BLOCKS = 4;          // at most 64 registers: a lap's loads stay in flight
static constexpr int ROWS_AT_ONCE = 4;        // short rows a tile keeps side by side
static constexpr int ALIGNED_ROWS = 8;        // ... on the aligned path, which holds nothing else
static constexpr int MIN_TILE = 4;            // the narrowest tile: 4 lanes x 4 floats = 16 cols
static constexpr size_t TILE_MAX_COLS = 512;  // dispatch: tiles (4 rows each) up to 512 columns,
static constexpr size_t WARP_MAX_COLS = 4096; // a warp tile per row up to 4096, blocks beyond
static constexpr int BIG_BLOCK = 1024;        // cluster_sum: 1024 threads, 64 KB in flight a block
static constexpr int MAX_CLUSTER = 16;        // with the non-portable opt-in (H100, H200)
static constexpr size_t WS_HEADER = 128;      // workspace: a ticket counter on its own line
static constexpr size_t MAX_GRID_X = 2147483647u;

// ------------------------------------------------------------------------------------------------
// Device helpers: packs and the head/body/tail split (as in 05_packed)
// ------------------------------------------------------------------------------------------------

template <typename T, int N>
struct alignas(sizeof(T) * N) Packed {
    T elem[N];
};
typedef Packed<float, PACK> pack_t;

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

struct span_split {
    size_t head;  // floats before the first 16-byte boundary (0..3)
    size_t packs; // whole 16-byte packs after them
    size_t tail;  // floats after the last pack (0..3)
};

static __host__ __device__ __forceinline__ span_split split_span(const float *p, size_t len)
{
    const size_t past = (size_t)(((uintptr_t)p / sizeof(float)) % PACK);
    span_split sp;
    sp.head = min_size((PACK - past) % PACK, len);
    sp.packs = (len - sp.head) / PACK;
    sp.tail = len - sp.head - sp.packs * PACK;
    return sp;
}

// Packs first, first + stride, ... of a body: UNROLL 16-byte loads in flight per full lap.
static __device__ __forceinline__ float packs_sum(const pack_t *__restrict__ body, size_t n_packs,
                                                  size_t first, size_t stride)
{
    float acc = 0.0f;
    size_t q = first;
    for (; q + (UNROLL - 1) * stride < n_packs; q += UNROLL * stride) {
        pack_t v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) v[u] = body[q + u * stride];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) acc += pack_sum(v[u]);
    }
    // the last 0..3 packs of this thread: loaded together, not one round trip each
    pack_t v[UNROLL - 1];
#pragma unroll
    for (int u = 0; u < UNROLL - 1; ++u)
        v[u] = q + u * stride < n_packs ? body[q + u * stride] : pack_t{};
#pragma unroll
    for (int u = 0; u < UNROLL - 1; ++u) acc += pack_sum(v[u]);
    return acc;
}

// The head and tail floats (0..3 each) that thread `rank` of at least 4 threads owns.
static __device__ __forceinline__ float edges_sum(const float *__restrict__ p, const span_split &sp,
                                                  size_t rank)
{
    return (rank < sp.head ? p[rank] : 0.0f) +
           (rank < sp.tail ? p[sp.head + sp.packs * PACK + rank] : 0.0f);
}

// A span's sum as seen by thread `rank` of `width` (>= 4) threads.
static __device__ __forceinline__ float span_sum(const float *__restrict__ p, size_t len,
                                                 size_t rank, size_t width)
{
    const span_split sp = split_span(p, len);
    const float edges = edges_sum(p, sp, rank); // loaded first: its latency hides under the body's
    return packs_sum(reinterpret_cast<const pack_t *>(p + sp.head), sp.packs, rank, width) + edges;
}

// ------------------------------------------------------------------------------------------------
// Device helpers: reductions over groups
// ------------------------------------------------------------------------------------------------

// 04's BlockReduceSum said in groups: tiled_partition<32> names the warps, cg::reduce is the
// shuffle butterfly (a fixed tree: deterministic), meta_group_rank() the warp's index.
// Valid in thread 0. The leading sync lets a block call it again on the same slots.
static __device__ __forceinline__ float block_reduce_cg(const cg::thread_block &block, float v)
{
    __shared__ float warp_sums[WARP_SIZE];
    const cg::thread_block_tile<WARP_SIZE> warp = cg::tiled_partition<WARP_SIZE>(block);
    // BEGIN SOLUTION
    v = cg::reduce(warp, v, cg::plus<float>());
    // END SOLUTION
    block.sync();
    if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = v;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        v = warp.thread_rank() < warp.meta_group_size() ? warp_sums[warp.thread_rank()] : 0.0f;
        v = cg::reduce(warp, v, cg::plus<float>());
    }
    return v;
}

// Sum of count partials by one block, in index order; __ldcg reads them from L2, where the
// other SMs' stores landed, not from this SM's L1. Valid in thread 0.
static __device__ __forceinline__ float partials_sum(const cg::thread_block &block,
                                                     const float *d_partials, unsigned count)
{
    float v = 0.0f;
    for (unsigned i = block.thread_rank(); i < count; i += block.size())
        v += __ldcg(d_partials + i);
    return block_reduce_cg(block, v);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// The cluster's sum of each block's `mine` (valid in thread 0 of every block): rank 0's value
// first, then 1, ... the same order every time. Every thread of every block must call it.
// Ends with the cluster's barrier, so no block leaves while another still reads it.
static __device__ __forceinline__ float cluster_reduce(float mine)
{
    __shared__ float block_sum;
    cg::cluster_group cluster = cg::this_cluster();
    if (threadIdx.x == 0) block_sum = mine;
    cluster.sync(); // every block's sum is in its shared memory, visible to the cluster
    float total = 0.0f;
    if (threadIdx.x == 0)
        for (unsigned r = 0; r < cluster.num_blocks(); ++r)
            total += *cluster.map_shared_rank(&block_sum, r);
    cluster.sync(); // the reads are done: the blocks may leave
    return total;
}
#endif

// ------------------------------------------------------------------------------------------------
// Kernels
// ------------------------------------------------------------------------------------------------

// Idea:  05's packed_sum with its block reduce said in groups: this_thread_block,
//        tiled_partition<32>, cg::reduce.
// Fixes: hand-written shuffles, lane arithmetic and masks: the group states who takes part.
// Cost:  the same two launches as 05; nothing is gained or lost in speed.
// Run:   build/06_coop_groups --variant cg_reduce
static __global__ void __launch_bounds__(BLOCK_SIZE, MIN_BLOCKS)
    reduce_packed_cg(const float *__restrict__ d_in, float *__restrict__ d_out, size_t n)
{
    const cg::thread_block block = cg::this_thread_block();
    const float v = span_sum(d_in, n, blockIdx.x * (size_t)BLOCK_SIZE + block.thread_rank(),
                             (size_t)gridDim.x * BLOCK_SIZE);
    const float total = block_reduce_cg(block, v);
    if (block.thread_rank() == 0) d_out[blockIdx.x] = total;
}

// Idea:  batched reductions: a thread_block_tile<G> per row, G the narrowest tile whose lanes
//        hold the row at one pack each; ROWS rows per tile side by side (loads in flight).
// Fixes: a warp per short row (05) leaves lanes idle: a 32-column row is 8 lanes x 16 bytes.
// Cost:  past 128 columns the tile is a warp and walks the row 128 columns a lap.
// Run:   build/06_coop_groups --variant tile_per_row --rows 2097152 --cols 32
template <int G, int ROWS>
static __global__ void __launch_bounds__(BLOCK_SIZE, MIN_BLOCKS)
    rowsum_tiles(const float *__restrict__ d_in, float *__restrict__ d_out, size_t rows,
                 size_t cols)
{
    const cg::thread_block block = cg::this_thread_block();
    const cg::thread_block_tile<G> tile = cg::tiled_partition<G>(block);
    constexpr size_t TILES = BLOCK_SIZE / G; // tiles per block
    constexpr size_t STEP = TILES * ROWS;    // rows per block per lap
    const unsigned rank = tile.thread_rank();
    // the bound is the same for the whole block: every tile is whole at cg::reduce
    for (size_t base = blockIdx.x * STEP; base < rows; base += gridDim.x * STEP) {
        const pack_t *body[ROWS];
        size_t packs[ROWS], most = 0;
        float acc[ROWS];
#pragma unroll
        for (int k = 0; k < ROWS; ++k) {
            const size_t row = base + k * TILES + tile.meta_group_rank(); // neighbours: one stretch
            const float *p = d_in + (row < rows ? row : 0) * cols;
            const span_split sp = split_span(p, row < rows ? cols : 0);
            acc[k] = edges_sum(p, sp, rank);
            body[k] = reinterpret_cast<const pack_t *>(p + sp.head);
            packs[k] = sp.packs;
            most = packs[k] > most ? packs[k] : most;
        }
        if (ROWS == 1) {
            acc[0] += packs_sum(body[0], packs[0], rank, G); // a long row: UNROLL loads in flight
        } else {
            for (size_t q = rank; q < most; q += G) { // short rows: one load of each in flight
                pack_t v[ROWS];
#pragma unroll
                for (int k = 0; k < ROWS; ++k) v[k] = q < packs[k] ? body[k][q] : pack_t{};
#pragma unroll
                for (int k = 0; k < ROWS; ++k) acc[k] += pack_sum(v[k]);
            }
        }
#pragma unroll
        for (int k = 0; k < ROWS; ++k) {
            // BEGIN SOLUTION
            acc[k] = cg::reduce(tile, acc[k], cg::plus<float>());
            // END SOLUTION
            const size_t row = base + k * TILES + tile.meta_group_rank();
            if (rank == 0 && row < rows) d_out[row] = acc[k];
        }
    }
}

// The same when every row is whole packs, at most P per lane (d_in 16-byte aligned, cols a
// multiple of 4 and <= 4PG): P predicated 16-byte loads per row and lane, 8 / P rows at once (8
// loads a lane in flight), and no head, tail or loop, whose bookkeeping costs more instructions
// than a 32-column row itself. P = 2 and 4 (G = 32) take aligned rows of 129 to 512 columns,
// which the general kernel walks 128 columns a lap, one pack of each of 4 rows at a time.
template <int G, int P = 1>
static __global__ void __launch_bounds__(BLOCK_SIZE, MIN_BLOCKS)
    rowsum_tiles_aligned(const float *__restrict__ d_in, float *__restrict__ d_out, size_t rows,
                         size_t cols)
{
    const cg::thread_block block = cg::this_thread_block();
    const cg::thread_block_tile<G> tile = cg::tiled_partition<G>(block);
    constexpr int R = ALIGNED_ROWS / P; // rows at once: R x P packs a lane in flight
    constexpr size_t TILES = BLOCK_SIZE / G;
    constexpr size_t STEP = TILES * R;
    const unsigned rank = tile.thread_rank();
    const size_t packs = cols / PACK;
    const pack_t *in = reinterpret_cast<const pack_t *>(d_in);
    for (size_t base = blockIdx.x * STEP; base < rows; base += gridDim.x * STEP) {
        if constexpr (P == 1) { // one pack a lane: 8 rows, every load before any use
            pack_t v[R];
#pragma unroll
            for (int k = 0; k < R; ++k) {
                const size_t row = base + k * TILES + tile.meta_group_rank();
                v[k] = row < rows && rank < packs ? in[row * packs + rank] : pack_t{};
            }
#pragma unroll
            for (int k = 0; k < R; ++k) {
                const float total = cg::reduce(tile, pack_sum(v[k]), cg::plus<float>());
                const size_t row = base + k * TILES + tile.meta_group_rank();
                if (rank == 0 && row < rows) d_out[row] = total;
            }
        } else { // P packs a lane, 8 / P rows
            pack_t v[R][P];
#pragma unroll
            for (int k = 0; k < R; ++k) {
                const size_t row = base + k * TILES + tile.meta_group_rank();
#pragma unroll
                for (int j = 0; j < P; ++j) {
                    const size_t q = rank + (size_t)j * G;
                    v[k][j] = row < rows && q < packs ? in[row * packs + q] : pack_t{};
                }
            }
#pragma unroll
            for (int k = 0; k < R; ++k) {
                float acc = 0.0f;
#pragma unroll
                for (int j = 0; j < P; ++j) acc += pack_sum(v[k][j]);
                const float total = cg::reduce(tile, acc, cg::plus<float>());
                const size_t row = base + k * TILES + tile.meta_group_rank();
                if (rank == 0 && row < rows) d_out[row] = total;
            }
        }
    }
}

// Row sums with `chunks` blocks per row, blockIdx.x = row * chunks + chunk; each chunk a whole
// number of packs' worth of floats (keeps the row's 16-byte phase). chunks == 1: a block per row.
// With chunks > 1 the blocks of a row form a cluster (sm_90) and add up in its shared memory.
static __global__ void __launch_bounds__(BLOCK_SIZE, MIN_BLOCKS)
    rowsum_chunks(const float *__restrict__ d_in, float *__restrict__ d_out, size_t cols,
                  unsigned chunks, size_t chunk_len)
{
    const cg::thread_block block = cg::this_thread_block();
    const size_t row = blockIdx.x / chunks, chunk = blockIdx.x % chunks;
    const size_t start = chunk * chunk_len;
    const size_t len = start < cols ? min_size(chunk_len, cols - start) : 0;
    float v = span_sum(d_in + row * cols + start, len, block.thread_rank(), BLOCK_SIZE);
    v = block_reduce_cg(block, v);
    if (chunks == 1) {
        if (block.thread_rank() == 0) d_out[row] = v;
        return;
    }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    v = cluster_reduce(v);
    if (block.thread_rank() == 0 && chunk == 0) d_out[row] = v;
#endif
}

// Idea:  ONE cooperative launch: partials, grid.sync(), block 0 adds them (Lei Mao's reduce).
// Fixes: cg_reduce's second launch and the gap before it.
// Cost:  every block must be resident at once; grid.sync() itself costs a few microseconds.
// Run:   build/06_coop_groups --variant grid_sync
static __global__ void __launch_bounds__(BLOCK_SIZE, MIN_BLOCKS)
    reduce_grid_sync(const float *__restrict__ d_in, float *__restrict__ d_out, size_t n,
                     float *d_partials)
{
    const cg::grid_group grid = cg::this_grid();
    const cg::thread_block block = cg::this_thread_block();
    float v = span_sum(d_in, n, grid.thread_rank(), grid.size());
    v = block_reduce_cg(block, v);
    if (block.thread_rank() == 0) d_partials[blockIdx.x] = v;
    // BEGIN SOLUTION
    grid.sync(); // a barrier and a memory fence for the whole grid
    // END SOLUTION
    if (blockIdx.x != 0) return;
    v = partials_sum(block, d_partials, gridDim.x);
    if (block.thread_rank() == 0) *d_out = v;
}

// Idea:  ONE ordinary launch: each block stores its partial, fences, takes a ticket; the block
//        with the last ticket adds all partials in index order (deterministic) and resets it.
//        Small n (two laps of one block) is a single block of up to 1024 threads: no ticket.
// Fixes: grid_sync's co-residency rule and grid-wide barrier.
// Cost:  a fence and an atomic per block, and the last block's extra pass over the partials.
// Run:   build/06_coop_groups --variant single_pass -n 1048576
static __global__ void __launch_bounds__(BIG_BLOCK, 1)
    reduce_single_pass(const float *__restrict__ d_in, float *__restrict__ d_out, size_t n,
                       float *d_partials, unsigned *d_counter)
{
    const cg::thread_block block = cg::this_thread_block();
    __shared__ bool is_last;
    float v = span_sum(d_in, n, blockIdx.x * (size_t)blockDim.x + block.thread_rank(),
                       (size_t)gridDim.x * blockDim.x);
    v = block_reduce_cg(block, v);
    if (gridDim.x == 1) { // small n: one block, no partials, no atomics
        if (block.thread_rank() == 0) *d_out = v;
        return;
    }
    if (block.thread_rank() == 0) {
        d_partials[blockIdx.x] = v;
        // BEGIN SOLUTION
        __threadfence(); // the partial is visible device-wide before the ticket is
        is_last = atomicAdd(d_counter, 1u) == gridDim.x - 1;
        // END SOLUTION
        if (is_last) __threadfence(); // and the last block sees every partial after it
    }
    block.sync();
    if (!is_last) return;
    v = partials_sum(block, d_partials, gridDim.x);
    if (block.thread_rank() == 0) {
        *d_out = v;
        *d_counter = 0; // self-resetting: the next launch on the stream starts from 0
    }
}

// Idea:  single_pass with blocks grouped in clusters (sm_90): a cluster adds its blocks' sums
//        in distributed shared memory, and only one block per cluster takes a ticket. Small n
//        is one block and no ticket at all.
// Fixes: single_pass's per-block fence, atomic and long last pass, which at mid sizes cost as
//        much as the reading itself.
// Cost:  a cluster launch (sm_90); elsewhere it is single_pass with fewer, bigger blocks.
// Run:   build/06_coop_groups --variant cluster_sum -n 2^20
static __global__ void __launch_bounds__(BIG_BLOCK, 1)
    reduce_cluster(const float *__restrict__ d_in, float *__restrict__ d_out, size_t n,
                   float *d_partials, unsigned *d_counter, unsigned cluster_size)
{
    const cg::thread_block block = cg::this_thread_block();
    __shared__ bool is_last;
    float v = span_sum(d_in, n, blockIdx.x * (size_t)blockDim.x + block.thread_rank(),
                       (size_t)gridDim.x * blockDim.x);
    v = block_reduce_cg(block, v);
    unsigned group = blockIdx.x; // who takes a ticket: every block, or one per cluster
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (cluster_size > 1) {
        v = cluster_reduce(v);
        if (cg::this_cluster().block_rank() != 0) return;
        group = blockIdx.x / cluster_size;
    }
#endif
    const unsigned groups = gridDim.x / cluster_size;
    if (groups == 1) {
        if (block.thread_rank() == 0) *d_out = v;
        return;
    }
    if (block.thread_rank() == 0) {
        d_partials[group] = v;
        __threadfence();
        is_last = atomicAdd(d_counter, 1u) == groups - 1;
        if (is_last) __threadfence();
    }
    block.sync();
    if (!is_last) return;
    v = partials_sum(block, d_partials, groups);
    if (block.thread_rank() == 0) {
        *d_out = v;
        *d_counter = 0;
    }
}

// A partial with its ready flag in one 64-bit word: the high half is 1 once the low half holds
// the float's bits. One aligned 64-bit access is never torn, so the flag needs no fence of its
// own: whoever sees the flag sees the value. Relaxed, gpu-scope loads and stores go to L2 (not to
// a stale L1 line) and are seen by other SMs without a fence.
static constexpr unsigned long long SLOT_READY = 1ull << 32;
static constexpr unsigned FLAG_AT_ONCE = 8; // slots a thread loads at once when it adds them

static __device__ __forceinline__ unsigned long long slot_load(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
static __device__ __forceinline__ void slot_store(unsigned long long *p, unsigned long long v)
{
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

// Sum, in index order, of `count` flagged partials, as thread `rank` of `width` sees it: slot
// `mine_at` is the caller's own (value `mine`, never stored). Up to 8 slots a thread are loaded
// at once, then each is polled again until its flag is up, read, and put back to 0 for the next
// launch.
static __device__ __forceinline__ float flagged_sum(unsigned long long *slots, unsigned count,
                                                    unsigned mine_at, float mine, unsigned rank,
                                                    unsigned width)
{
    constexpr unsigned AT_ONCE = FLAG_AT_ONCE;
    float acc = 0.0f;
    for (unsigned base = rank; base < count; base += AT_ONCE * width) {
        unsigned long long s[AT_ONCE];
#pragma unroll
        for (unsigned k = 0; k < AT_ONCE; ++k) {
            const unsigned i = base + k * width;
            s[k] = i < count && i != mine_at ? slot_load(slots + i) : SLOT_READY;
        }
#pragma unroll
        for (unsigned k = 0; k < AT_ONCE; ++k) {
            const unsigned i = base + k * width;
            if (i >= count) break;
            if (i == mine_at) {
                acc += mine;
                continue;
            }
            while (!(s[k] & SLOT_READY)) s[k] = slot_load(slots + i);
            acc += __uint_as_float((unsigned)s[k]);
            slot_store(slots + i, 0ull);
        }
    }
    return acc;
}

// The end of a flagged sum, in every thread of the block: `v` (valid in thread 0) is this
// block's partial, chunk `chunk` of `chunks` of row `row`, `ticket` (valid in thread 0) the
// order it started in. Every block but the last to start publishes its partial and leaves; the
// last adds all of them in index order and writes the row's sum.
static __device__ __forceinline__ void flagged_finish(const cg::thread_block &block, float v,
                                                      unsigned ticket, size_t row, unsigned chunk,
                                                      unsigned chunks, unsigned long long *d_slots,
                                                      unsigned *d_tickets, float *d_out)
{
    unsigned long long *slots = d_slots + row * chunks;
    const cg::thread_block_tile<WARP_SIZE> warp = cg::tiled_partition<WARP_SIZE>(block);
    if (chunks <= WARP_SIZE * FLAG_AT_ONCE) {
        // up to 256 partials: warp 0 alone (thread 0 holds v and the ticket) publishes or adds
        // them, one load of each at once; no block barrier, no second block reduce
        if (warp.meta_group_rank() != 0) return;
        unsigned last = 0;
        if (warp.thread_rank() == 0) {
            last = ticket == chunks - 1;
            if (last)
                d_tickets[row] = 0; // every ticket is drawn: ready for the next launch
            else
                slot_store(slots + chunk, SLOT_READY | __float_as_uint(v));
        }
        if (!warp.shfl(last, 0)) return;
        v = flagged_sum(slots, chunks, chunk, warp.shfl(v, 0), warp.thread_rank(), WARP_SIZE);
        v = cg::reduce(warp, v, cg::plus<float>());
        if (warp.thread_rank() == 0) d_out[row] = v;
        return;
    }
    __shared__ bool is_last;
    __shared__ float own;
    if (block.thread_rank() == 0) {
        is_last = ticket == chunks - 1;
        own = v;
        if (is_last)
            d_tickets[row] = 0;
        else
            slot_store(slots + chunk, SLOT_READY | __float_as_uint(v));
    }
    block.sync();
    if (!is_last) return;
    v = flagged_sum(slots, chunks, chunk, own, block.thread_rank(), block.size());
    v = block_reduce_cg(block, v);
    if (block.thread_rank() == 0) d_out[row] = v;
}

// Idea:  single_pass with its ticket taken when a block STARTS, not when it ends: the block that
//        starts last (every other block is then already running) adds the partials, which the
//        others publish as flagged 64-bit words: no fence, no second atomic. Row r's blocks are
//        blockIdx.x = r * chunks + chunk, each a contiguous chunk of whole packs; a full sum is
//        one row (flag_sum), a few long rows are the row dispatch's rows too long for a cluster.
// Fixes: single_pass's fence and its last block's second read of the partials (each arrives
//        with its flag), and cluster_sum's limit of one cluster a row: any number of blocks, any
//        GPU. (Taking the ticket at the start measured no faster than at the end: exercise 5.)
// Cost:  the partials still cross L2 to the last block, which polls; it is the only block that
//        waits, and only for blocks already running, so it cannot wait forever.
// Run:   build/06_coop_groups --variant flag_sum -n 2^20
//        build/06_coop_groups --variant dispatch --rows 8 --cols 131072
static __global__ void __launch_bounds__(BLOCK_SIZE, MIN_BLOCKS)
    sum_flagged(const float *__restrict__ d_in, float *__restrict__ d_out, size_t cols,
                unsigned chunks, size_t chunk_len, unsigned long long *d_slots, unsigned *d_tickets)
{
    const cg::thread_block block = cg::this_thread_block();
    const size_t row = blockIdx.x / chunks;
    const unsigned chunk = blockIdx.x % chunks;
    unsigned ticket = 0;
    // at the start: the atomic's round trip overlaps this block's loads
    if (chunks > 1 && block.thread_rank() == 0) ticket = atomicAdd(d_tickets + row, 1u);
    const size_t start = chunk * chunk_len;
    const size_t len = start < cols ? min_size(chunk_len, cols - start) : 0;
    // chunk_len 0: the row's blocks stride over the whole row together (a full sum too large for
    // one lap a block: neighbouring blocks read neighbouring memory, as in single_pass)
    float v =
        chunk_len == 0
            ? span_sum(d_in + row * cols, cols, chunk * (size_t)BLOCK_SIZE + block.thread_rank(),
                       (size_t)chunks * BLOCK_SIZE)
            : span_sum(d_in + row * cols + start, len, block.thread_rank(), BLOCK_SIZE);
    v = block_reduce_cg(block, v);
    if (chunks == 1) {
        if (block.thread_rank() == 0) d_out[row] = v;
        return;
    }
    flagged_finish(block, v, ticket, row, chunk, chunks, d_slots, d_tickets, d_out);
}

// One lap's sum (at most LAP_LEN floats at p) as this thread of the block sees it: each of its
// packs loaded at once, predicated, no loop.
static __device__ __forceinline__ float lap_sum(const cg::thread_block &block,
                                                const float *__restrict__ p, size_t len)
{
    const span_split sp = split_span(p, len);
    const pack_t *body = reinterpret_cast<const pack_t *>(p + sp.head);
    pack_t x[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
        const size_t q = block.thread_rank() + (size_t)u * block.size();
        x[u] = q < sp.packs ? body[q] : pack_t{};
    }
    float v = edges_sum(p, sp, block.thread_rank());
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) v += pack_sum(x[u]);
    return v;
}

// sum_flagged where every block reads at most one lap (UNROLL packs a thread): no loop at all,
// each thread's packs are loaded at once, predicated; chunks >= 2 chunks of chunk_len floats a
// row. ROWS: row r's blocks are blockIdx.x = r * chunks + chunk (06's row dispatch); else one
// row, gridDim.x chunks (flag_sum), without the row's index arithmetic: 40 registers, 6 blocks
// an SM, where the row form takes 54 (4 blocks an SM).
template <bool ROWS>
static __global__ void __launch_bounds__(BLOCK_SIZE, MIN_BLOCKS)
    sum_lap(const float *__restrict__ d_in, float *__restrict__ d_out, size_t cols, unsigned chunks,
            unsigned chunk_len, unsigned long long *d_slots, unsigned *d_tickets)
{
    const cg::thread_block block = cg::this_thread_block();
    if (!ROWS) chunks = gridDim.x;
    const size_t row = ROWS ? blockIdx.x / chunks : 0;
    const unsigned chunk = ROWS ? blockIdx.x % chunks : blockIdx.x, rank = block.thread_rank();
    unsigned ticket = 0;
    if (rank == 0) ticket = atomicAdd(d_tickets + row, 1u);
    const size_t start = (size_t)chunk * chunk_len;
    float v = lap_sum(block, d_in + row * cols + start, min_size(chunk_len, cols - start));
    v = block_reduce_cg(block, v);
    flagged_finish(block, v, ticket, row, chunk, chunks, d_slots, d_tickets, d_out);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// PTX for the cluster finish below: this block's rank in its cluster and the cluster's size,
// a shared-memory address as a 32-bit shared-window offset, and that address in another block
// of the cluster (mapa: what cluster.map_shared_rank does, as a shared::cluster address).
static __device__ __forceinline__ unsigned cluster_rank()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
static __device__ __forceinline__ unsigned cluster_blocks()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
    return r;
}
static __device__ __forceinline__ unsigned smem_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}
static __device__ __forceinline__ unsigned remote_smem(unsigned local, unsigned rank)
{
    unsigned r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(local), "r"(rank));
    return r;
}
#endif

// Idea:  sum_lap's one-lap chunks of a row as one cluster (sm_90): each block sends its partial
//        straight into the first block's shared memory as one message (st.async: the value and
//        a count of bytes for that block's mbarrier), and only the first block waits, on its
//        own mbarrier, then adds the partials in rank order. No ticket, no flags, no workspace,
//        and no cluster-wide barrier after the reads.
// Fixes: the flagged finish's trip through L2 (a store, then the last block's polls), and the
//        cost of cluster.sync() there: every thread of every block fences GPU-wide and waits
//        (82-83% of the read ceiling at 64 x 32000 with it, 93-94% with the message, H100).
// Cost:  at most as many chunks a row as the largest cluster the GPU launches (16 on an H100),
//        whose blocks must fit one GPC together; one cluster barrier at the start (split:
//        arrive before the loads, wait after them) so that no message can reach the first
//        block before its mbarrier exists.
// Run:   build/06_coop_groups --variant dispatch --rows 64 --cols 32000
template <int THREADS>
static __global__ void __launch_bounds__(THREADS, MIN_BLOCKS * BLOCK_SIZE / THREADS)
    sum_lap_cluster(const float *__restrict__ d_in, float *__restrict__ d_out, size_t cols,
                    unsigned chunk_len)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const cg::thread_block block = cg::this_thread_block();
    __shared__ float partials[MAX_CLUSTER];
    __shared__ alignas(8) unsigned long long arrived; // the first block's mbarrier
    const unsigned rank = block.thread_rank(), chunk = cluster_rank(), chunks = cluster_blocks();
    if (chunk == 0 && rank == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&arrived)) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    // the first half of the start barrier; relaxed: it orders nothing but the mbarrier's init
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
    const size_t row = blockIdx.x / chunks, start = (size_t)chunk * chunk_len;
    float v = lap_sum(block, d_in + row * cols + start, min_size(chunk_len, cols - start));
    v = block_reduce_cg(block, v);
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory"); // the mbarrier exists
    if (rank != 0) return;
    if (chunk != 0) {
        // one message: 4 bytes into partials[chunk] of block 0, counted on its mbarrier
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::
                         "r"(remote_smem(smem_addr(&partials[chunk]), 0)),
                     "r"(__float_as_uint(v)), "r"(remote_smem(smem_addr(&arrived), 0))
                     : "memory");
        return;
    }
    // block 0: expect 4 bytes from each other block, then wait for the phase to complete
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(
                     smem_addr(&arrived)),
                 "r"(4 * (chunks - 1))
                 : "memory");
    unsigned done = 0;
    do {
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done)
                     : "r"(smem_addr(&arrived))
                     : "memory");
    } while (!done);
    for (unsigned c = 1; c < chunks; ++c) v += partials[c]; // rank order: the same every launch
    d_out[row] = v;
#endif
}

// ------------------------------------------------------------------------------------------------
// Launch helpers: what the GPU holds at once
// ------------------------------------------------------------------------------------------------

struct fill_cache {
    int dev = -1;   // the device the answer is for; -1 before the first query
    int blocks = 1; // blocks of one kernel resident at once: occupancy x SMs
};

// Blocks of `kernel` at `threads` threads that the whole GPU holds at once, asked once per
// device and kept (launches run in timing loops). At least 1; a failed query is left for the
// launch to report.
static int resident_blocks(fill_cache *c, const void *kernel, int threads)
{
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) return 1;
    if (c->dev != dev) {
        int sms = 0, per_sm = 0;
        if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0) !=
                cudaSuccess ||
            sms < 1 || per_sm < 1) {
            (void)cudaGetLastError();
            return 1;
        }
        c->blocks = sms * per_sm;
        c->dev = dev;
    }
    return c->blocks;
}

static int device_attr(cudaDeviceAttr attr)
{
    int dev = 0, v = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&v, attr, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return v;
}

// The largest cluster of `kernel` at `threads` threads the GPU launches, and how many such
// clusters fit at once: 16 with the non-portable opt-in where the GPU takes it, else 8; 1 (no
// clusters) before sm_90. Asked once per kernel, kept.
struct cluster_fit {
    int size = 1;
    int active = 0;
};

static cluster_fit largest_cluster(const void *kernel, int threads)
{
    static const void *cached_kernel[8];
    static cluster_fit cached[8];
    static int n_cached, cached_dev[8];
    int dev = 0;
    cluster_fit fit;
    // REDUCE_NO_CLUSTERS=1: plan as on a GPU without clusters (the gpu suite tests that path)
    const char *nc = getenv("REDUCE_NO_CLUSTERS");
    if ((nc && strcmp(nc, "1") == 0) || !device_attr(cudaDevAttrClusterLaunch) ||
        cudaGetDevice(&dev) != cudaSuccess)
        return fit;
    for (int i = 0; i < n_cached; i++)
        if (cached_kernel[i] == kernel && cached_dev[i] == dev) return cached[i];
    // the kernel as loaded must be sm_90 code: a build for older GPUs only (ARCH=sm_80) runs on
    // Hopper from compute_80 PTX, where the cluster code is compiled out
    cudaFuncAttributes fa;
    const bool sm90_code = cudaFuncGetAttributes(&fa, kernel) == cudaSuccess && fa.ptxVersion >= 90;
    (void)cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    for (int size = MAX_CLUSTER; size >= 2 && fit.size == 1 && sm90_code; size /= 2) {
        cudaLaunchConfig_t cfg = {};
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = size;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg.gridDim = dim3(size);
        cfg.blockDim = dim3(threads);
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        int n = 0;
        if (cudaOccupancyMaxActiveClusters(&n, kernel, &cfg) == cudaSuccess && n > 0) {
            fit.size = size;
            fit.active = n;
        }
    }
    (void)cudaGetLastError(); // a refused size is an answer, not an error to keep
    if (n_cached < 8) {
        cached_kernel[n_cached] = kernel;
        cached_dev[n_cached] = dev;
        cached[n_cached++] = fit;
    }
    return fit;
}

// Launches `kernel` with clusters of `cluster` blocks (1: an ordinary launch), through the C
// API (cudaLaunchKernelExC), which every CUDA 12 and 13 runtime has. The arguments are
// converted to the kernel's own parameter types first.
template <typename T>
struct same_type {
    using type = T;
};

template <typename... KARGS>
static cudaError_t launch_clustered(void (*kernel)(KARGS...), unsigned grid, unsigned threads,
                                    unsigned cluster, cudaStream_t s,
                                    typename same_type<KARGS>::type... args)
{
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(threads);
    cfg.stream = s;
    if (cluster > 1) {
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = cluster;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
    }
    void *params[] = {(void *)&args...};
    const cudaError_t err = cudaLaunchKernelExC(&cfg, (const void *)kernel, params);
    return err != cudaSuccess ? err : cudaGetLastError();
}

static float *ws_partials(void *d_ws)
{
    return reinterpret_cast<float *>(static_cast<char *>(d_ws) + WS_HEADER);
}
static unsigned *ws_counter(void *d_ws) { return static_cast<unsigned *>(d_ws); }

static int supports_sum(size_t rows, size_t cols) { return rows == 1 && cols >= 1; }
static int supports_rows(size_t rows, size_t cols)
{
    return rows >= 1 && cols >= 1 && rows <= MAX_GRID_X;
}
static size_t workspace_none(size_t rows, size_t cols)
{
    (void)rows;
    (void)cols;
    return 0;
}

// ------------------------------------------------------------------------------------------------
// Full sums
// ------------------------------------------------------------------------------------------------

// A grid-stride sum's blocks: no more than fit at once, no more than give each thread one full
// lap of UNROLL packs, at least one.
static size_t sum_grid(size_t n, size_t threads, size_t resident)
{
    const size_t need = ceil_div(n, threads * UNROLL * PACK);
    return need < resident ? need : resident;
}

static fill_cache g_fill_cg, g_fill_grid_sync, g_fill_single_pass;

static size_t resident_cg()
{
    return resident_blocks(&g_fill_cg, (const void *)reduce_packed_cg, BLOCK_SIZE);
}
static size_t resident_grid_sync()
{
    return resident_blocks(&g_fill_grid_sync, (const void *)reduce_grid_sync, BLOCK_SIZE);
}
static size_t resident_single_pass()
{
    return resident_blocks(&g_fill_single_pass, (const void *)reduce_single_pass, BLOCK_SIZE);
}

static size_t workspace_cg(size_t rows, size_t cols)
{
    (void)rows;
    (void)cols;
    return WS_HEADER + resident_cg() * 4;
}
static size_t workspace_grid_sync(size_t rows, size_t cols)
{
    (void)rows;
    (void)cols;
    return WS_HEADER + resident_grid_sync() * 4;
}
static size_t workspace_single_pass(size_t rows, size_t cols)
{
    (void)rows;
    (void)cols;
    return WS_HEADER + resident_single_pass() * 4;
}

static cudaError_t launch_cg_reduce(const void *d_in, void *d_out, size_t rows, size_t cols,
                                    void *d_workspace, cudaStream_t s)
{
    if (!supports_sum(rows, cols)) return cudaErrorInvalidValue;
    const size_t grid = sum_grid(cols, BLOCK_SIZE, resident_cg());
    float *out = static_cast<float *>(d_out), *partials = ws_partials(d_workspace);
    reduce_packed_cg<<<(unsigned)grid, BLOCK_SIZE, 0, s>>>((const float *)d_in,
                                                           grid == 1 ? out : partials, cols);
    if (grid == 1) return cudaGetLastError();
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return err;
    reduce_packed_cg<<<1, BLOCK_SIZE, 0, s>>>(partials, out,
                                              grid); // partials start aligned: no head
    return cudaGetLastError();
}

// A device without cooperative launch is not a shape limit: the launcher returns
// cudaErrorNotSupported and the program skips the variant, or stops with exit 3 when it was
// named.
static cudaError_t launch_grid_sync(const void *d_in, void *d_out, size_t rows, size_t cols,
                                    void *d_workspace, cudaStream_t s)
{
    if (!supports_sum(rows, cols)) return cudaErrorInvalidValue;
    if (!device_attr(cudaDevAttrCooperativeLaunch)) return cudaErrorNotSupported;
    const float *in = static_cast<const float *>(d_in);
    float *out = static_cast<float *>(d_out), *partials = ws_partials(d_workspace);
    size_t n = cols;
    const size_t grid = sum_grid(n, BLOCK_SIZE, resident_grid_sync());
    void *args[] = {&in, &out, &n, &partials};
    // the C API form, (const void *)kernel: it compiles on every CUDA 12 and 13 runtime
    const cudaError_t err = cudaLaunchCooperativeKernel(
        (const void *)reduce_grid_sync, dim3((unsigned)grid), dim3(BLOCK_SIZE), args, 0, s);
    if (err != cudaSuccess) {
        (void)cudaGetLastError(); // clear the copy the runtime keeps; report this one
        return err;
    }
    return cudaGetLastError();
}

// Up to two laps of a 1024-thread block, one block does the whole sum: a second block would
// cost a ticket and a last pass for less reading than they take (plots/reference/sweep.csv: one
// block is 1.24-1.43x CUB at 2^13 .. 2^15; exercise 06.3 times tickets instead). Its threads:
// one lap each, whole warps, 1024 at most.
static const size_t ONE_BLOCK_MAX_N = 2 * (size_t)BIG_BLOCK * UNROLL * PACK; // 32768 floats

static cudaError_t launch_single_pass(const void *d_in, void *d_out, size_t rows, size_t cols,
                                      void *d_workspace, cudaStream_t s)
{
    if (!supports_sum(rows, cols)) return cudaErrorInvalidValue;
    if (cols <= ONE_BLOCK_MAX_N) {
        size_t threads = ceil_div(ceil_div(cols, UNROLL * PACK), WARP_SIZE) * WARP_SIZE;
        if (threads > BIG_BLOCK) threads = BIG_BLOCK;
        reduce_single_pass<<<1, (unsigned)threads, 0, s>>>((const float *)d_in, (float *)d_out,
                                                           cols, ws_partials(d_workspace),
                                                           ws_counter(d_workspace));
        return cudaGetLastError();
    }
    const size_t grid = sum_grid(cols, BLOCK_SIZE, resident_single_pass());
    reduce_single_pass<<<(unsigned)grid, BLOCK_SIZE, 0, s>>>((const float *)d_in, (float *)d_out,
                                                             cols, ws_partials(d_workspace),
                                                             ws_counter(d_workspace));
    return cudaGetLastError();
}

// cluster_sum's plan, from n and the GPU: one block while a single block covers n in one lap
// (no cluster, no ticket); else clusters of the largest size the GPU launches, as many as the
// array needs (a lap each) up to what fits at once. Without clusters: single_pass's plan with
// blocks of 1024.
struct sum_plan {
    unsigned grid, threads, cluster;
};

static sum_plan plan_cluster_sum(size_t n)
{
    sum_plan p;
    const size_t lap = (size_t)BIG_BLOCK * UNROLL * PACK; // 16384 floats a block per lap
    if (n <= lap) {
        // threads for one pack each, whole warps, at least one warp
        const size_t threads = ceil_div(ceil_div(n, PACK), WARP_SIZE) * WARP_SIZE;
        p.grid = 1;
        p.threads = (unsigned)(threads < BIG_BLOCK ? threads : BIG_BLOCK);
        p.cluster = 1;
        return p;
    }
    p.threads = BIG_BLOCK;
    const cluster_fit fit = largest_cluster((const void *)reduce_cluster, BIG_BLOCK);
    if (fit.size > 1) {
        const size_t clusters = min_size(ceil_div(n, lap * fit.size), (size_t)fit.active);
        p.cluster = fit.size;
        p.grid = (unsigned)(clusters * fit.size);
        return p;
    }
    static fill_cache fill;
    p.cluster = 1;
    p.grid = (unsigned)sum_grid(n, BIG_BLOCK,
                                resident_blocks(&fill, (const void *)reduce_cluster, BIG_BLOCK));
    return p;
}

static size_t workspace_cluster_sum(size_t rows, size_t cols)
{
    (void)rows;
    const sum_plan p = plan_cluster_sum(cols);
    return WS_HEADER + (size_t)p.grid * 4;
}

static cudaError_t launch_cluster_sum(const void *d_in, void *d_out, size_t rows, size_t cols,
                                      void *d_workspace, cudaStream_t s)
{
    if (!supports_sum(rows, cols)) return cudaErrorInvalidValue;
    const sum_plan p = plan_cluster_sum(cols);
    return launch_clustered(reduce_cluster, p.grid, p.threads, p.cluster, s, (const float *)d_in,
                            (float *)d_out, cols, ws_partials(d_workspace), ws_counter(d_workspace),
                            p.cluster);
}

// flag_sum and the row dispatch's few-rows plan: the workspace holds one ticket a row (on their
// own 128-byte lines) and then one 64-bit slot a block.
static size_t flag_tickets_bytes(size_t rows) { return ceil_div(rows * 4, WS_HEADER) * WS_HEADER; }
static size_t flag_workspace(size_t rows, size_t chunks)
{
    return chunks > 1 ? flag_tickets_bytes(rows) + rows * chunks * 8 : 0;
}

// Cuts `cols` floats into `chunks` contiguous chunks of whole packs, no more than `most`, none
// shorter than `min_len` floats: fills chunks and chunk_len.
static void cut_chunks(size_t cols, size_t most, size_t min_len, unsigned *chunks,
                       size_t *chunk_len)
{
    size_t c = min_size(most, ceil_div(cols, min_len));
    if (c < 1) c = 1;
    *chunk_len = ceil_div(ceil_div(cols, c), PACK) * PACK;
    *chunks = (unsigned)ceil_div(cols, *chunk_len);
}

// flag_sum's plan: up to ONE_BLOCK_MAX_N floats, single_pass's one block (no ticket, no flags);
// then 256-thread blocks of one lap each (sum_lap, no loop) while the GPU holds them all at once;
// beyond that, as many blocks as it holds, striding over the array together (sum_flagged).
struct flag_plan {
    unsigned grid;
    size_t chunk_len;
    bool lap; // sum_lap, else sum_flagged
};

// One lap of a block: 256 threads x 4 packs x 4 floats = 4096 floats.
static constexpr size_t LAP_LEN = (size_t)BLOCK_SIZE * UNROLL * PACK;

static flag_plan plan_flag_sum(size_t n)
{
    flag_plan p = {1, n, true};
    if (n <= ONE_BLOCK_MAX_N) return p;
    static fill_cache fill_lap, fill_loop;
    const size_t lap_len = LAP_LEN;
    const size_t resident_lap =
        resident_blocks(&fill_lap, (const void *)sum_lap<false>, BLOCK_SIZE);
    if (ceil_div(n, lap_len) <= resident_lap) {
        cut_chunks(n, resident_lap, lap_len, &p.grid, &p.chunk_len);
        return p;
    }
    p.grid = (unsigned)resident_blocks(&fill_loop, (const void *)sum_flagged, BLOCK_SIZE);
    p.chunk_len = 0; // the blocks stride over the array together
    p.lap = false;
    return p;
}

static size_t workspace_flag_sum(size_t rows, size_t cols)
{
    (void)rows;
    return flag_workspace(1, plan_flag_sum(cols).grid);
}

static cudaError_t launch_flag_sum(const void *d_in, void *d_out, size_t rows, size_t cols,
                                   void *d_workspace, cudaStream_t s)
{
    if (!supports_sum(rows, cols)) return cudaErrorInvalidValue;
    const flag_plan p = plan_flag_sum(cols);
    if (p.grid == 1) return launch_single_pass(d_in, d_out, rows, cols, d_workspace, s);
    char *ws = static_cast<char *>(d_workspace);
    unsigned *tickets = reinterpret_cast<unsigned *>(ws);
    unsigned long long *slots = reinterpret_cast<unsigned long long *>(ws + flag_tickets_bytes(1));
    if (p.lap)
        sum_lap<false><<<p.grid, BLOCK_SIZE, 0, s>>>((const float *)d_in, (float *)d_out, cols,
                                                     p.grid, (unsigned)p.chunk_len, slots, tickets);
    else
        sum_flagged<<<p.grid, BLOCK_SIZE, 0, s>>>((const float *)d_in, (float *)d_out, cols, p.grid,
                                                  p.chunk_len, slots, tickets);
    return cudaGetLastError();
}

// ------------------------------------------------------------------------------------------------
// Row sums
// ------------------------------------------------------------------------------------------------

// The narrowest tile (4..32 lanes) whose lanes hold a row at one pack each.
static int tile_width(size_t cols)
{
    int g = MIN_TILE;
    while (g < WARP_SIZE && (size_t)g * PACK < cols) g *= 2;
    return g;
}

template <int G, int ROWS>
static cudaError_t launch_tiles(const float *d_in, float *d_out, size_t rows, size_t cols,
                                cudaStream_t s)
{
    static fill_cache fill;
    const size_t step = (size_t)(BLOCK_SIZE / G) * ROWS;
    const size_t grid =
        min_size(ceil_div(rows, step),
                 resident_blocks(&fill, (const void *)rowsum_tiles<G, ROWS>, BLOCK_SIZE));
    rowsum_tiles<G, ROWS><<<(unsigned)grid, BLOCK_SIZE, 0, s>>>(d_in, d_out, rows, cols);
    return cudaGetLastError();
}

// One block a step of rows, not the resident blocks looping over them: at 128, 256 and 512
// columns (2^26 floats, H100, medians of two runs) a block a step took 91.6-91.8, 91.0 and 89.9
// us, the grid-stride loop over 660 resident blocks 95.1-95.7, 92.8-93.2 and 91.5-91.7, cuBLAS
// gemv 94.1-94.2, 91.5-91.7 and 90.8-90.9 (plots/reference/rows_grid/). The kernel's grid-stride
// loop stays only as a guard: with rows <= MAX_GRID_X (supports_rows) one launch covers every row.
template <int G, int P = 1>
static cudaError_t launch_tiles_aligned(const float *d_in, float *d_out, size_t rows, size_t cols,
                                        cudaStream_t s)
{
    const size_t step = (size_t)(BLOCK_SIZE / G) * (ALIGNED_ROWS / P);
    const size_t grid = min_size(ceil_div(rows, step), MAX_GRID_X);
    rowsum_tiles_aligned<G, P><<<(unsigned)grid, BLOCK_SIZE, 0, s>>>(d_in, d_out, rows, cols);
    return cudaGetLastError();
}

static cudaError_t launch_tile_rows(const float *d_in, float *d_out, size_t rows, size_t cols,
                                    cudaStream_t s)
{
    const bool aligned =
        (uintptr_t)d_in % PACK_BYTES == 0 && cols % PACK == 0 && cols <= (size_t)WARP_SIZE * PACK;
    switch (tile_width(cols)) {
    case 4:
        return aligned ? launch_tiles_aligned<4>(d_in, d_out, rows, cols, s)
                       : launch_tiles<4, ROWS_AT_ONCE>(d_in, d_out, rows, cols, s);
    case 8:
        return aligned ? launch_tiles_aligned<8>(d_in, d_out, rows, cols, s)
                       : launch_tiles<8, ROWS_AT_ONCE>(d_in, d_out, rows, cols, s);
    case 16:
        return aligned ? launch_tiles_aligned<16>(d_in, d_out, rows, cols, s)
                       : launch_tiles<16, ROWS_AT_ONCE>(d_in, d_out, rows, cols, s);
    default:
        break;
    }
    if (aligned) return launch_tiles_aligned<32>(d_in, d_out, rows, cols, s);
    // aligned rows of 129..512 columns: 2 or 4 packs a lane, 4 or 2 rows at once
    const bool aligned_wide = (uintptr_t)d_in % PACK_BYTES == 0 && cols % PACK == 0 &&
                              cols <= (size_t)4 * WARP_SIZE * PACK;
    if (aligned_wide && cols <= (size_t)2 * WARP_SIZE * PACK)
        return launch_tiles_aligned<32, 2>(d_in, d_out, rows, cols, s);
    if (aligned_wide) return launch_tiles_aligned<32, 4>(d_in, d_out, rows, cols, s);
    return launch_tiles<32, ROWS_AT_ONCE>(d_in, d_out, rows, cols, s);
}

static cudaError_t launch_tile_per_row(const void *d_in, void *d_out, size_t rows, size_t cols,
                                       void *d_workspace, cudaStream_t s)
{
    (void)d_workspace;
    if (!supports_rows(rows, cols)) return cudaErrorInvalidValue;
    return launch_tile_rows(static_cast<const float *>(d_in), static_cast<float *>(d_out), rows,
                            cols, s);
}

// Blocks per row for long rows: 1 while rows alone give every SM two blocks. With at most half as
// many rows as SMs, each row is cut into chunks of at most one lap, a block each (every load of
// a thread at once, no loop). Where the GPU launches clusters, a row is one cluster
// (sum_lap_cluster) if its laps of 256 threads (4096 floats), else of 512 (8192 floats), number
// no more than the largest cluster it launches (16 on an H100 with the opt-in); otherwise, for
// rows of up to LAP_MAX_CHUNKS laps of 256, the chunks finish with flagged partials (sum_lap: the
// last block adds at most LAP_MAX_CHUNKS of them). The cluster's finish (one message a block)
// won against flags at every shape measured, by 1 to 17 points of the read ceiling, with 256
// and with 512 threads; 1024-thread laps (16 blocks, 16 SMs, for 1 x 262144) lost 6 points
// (README.md, "Few long rows"). Otherwise (up to 2 x SMs rows, longer rows, or
// REDUCE_ROW_LAP=0) the plan the laps replaced: enough chunks for about 2 blocks an SM, each at
// least a lap, which loop over their chunk; one cluster a row where the GPU launches one that
// large (sm_90), else (more chunks than a cluster holds, or no clusters) flagged partials. From
// SMs / 2 to 2 x SMs rows that plan is clusters of 2 to 4, and the laps (then flagged) won and
// lost against it by up to 6 points of the read ceiling, with no count of blocks that told the
// two apart (README.md, "Few long rows").
static constexpr unsigned LAP_MAX_CHUNKS = 1024;

struct row_plan {
    unsigned chunks;
    size_t chunk_len;
    bool cluster; // a cluster of `chunks` blocks a row: sum_lap_cluster if lap, else rowsum_chunks
    bool flags;   // the last chunk of a row to start adds the row's partials
    bool lap;     // chunks of at most one lap: sum_lap_cluster or sum_lap, else as above
    int threads;  // sum_lap_cluster's block: 256 or 512 threads, a lap of 16 floats each
};

// How the few-rows plan may run (REDUCE_ROW_LAP): one-lap chunks in a cluster a row where one
// holds them, else flagged (the default); one-lap chunks always flagged ("flags"); the plan
// before the laps ("0").
enum lap_mode { LAPS, LAPS_FLAGGED, NO_LAPS };

static row_plan plan_block_rows(size_t rows, size_t cols, lap_mode laps)
{
    row_plan p = {1, cols, false, false, false, BLOCK_SIZE};
    const size_t sms = (size_t)(device_attr(cudaDevAttrMultiProcessorCount) > 0
                                    ? device_attr(cudaDevAttrMultiProcessorCount)
                                    : 1);
    if (rows >= 2 * sms) return p;
    if (laps != NO_LAPS && 2 * rows <= sms) {
        // a cluster a row: the fewer threads a block (256 or 512) whose laps cut the row into
        // no more blocks than the GPU launches as one cluster
        static const void *const cluster_kernels[2] = {(const void *)sum_lap_cluster<BLOCK_SIZE>,
                                                       (const void *)sum_lap_cluster<2 * BLOCK_SIZE>};
        for (int t = 0; t < 2 && laps == LAPS && cols > LAP_LEN; ++t) {
            const int threads = BLOCK_SIZE << t;
            const size_t lap = (size_t)threads * UNROLL * PACK;
            const unsigned fit = (unsigned)largest_cluster(cluster_kernels[t], threads).size;
            cut_chunks(cols, fit, lap, &p.chunks, &p.chunk_len);
            if (fit > 1 && p.chunk_len <= lap) {
                p.lap = p.cluster = true;
                p.threads = threads;
                return p;
            }
        }
        cut_chunks(cols, LAP_MAX_CHUNKS, LAP_LEN, &p.chunks, &p.chunk_len);
        if (p.chunk_len <= LAP_LEN) {
            p.flags = p.lap = p.chunks > 1;
            return p;
        }
    }
    cut_chunks(cols, ceil_div(2 * sms, rows), LAP_LEN, &p.chunks, &p.chunk_len);
    if (p.chunks == 1) return p;
    const cluster_fit fit = largest_cluster((const void *)rowsum_chunks, BLOCK_SIZE);
    p.cluster = p.chunks <= (unsigned)fit.size;
    p.flags = !p.cluster;
    return p;
}

// REDUCE_ROW_LAP=0: the plan before the laps; REDUCE_ROW_LAP=flags: one-lap chunks without
// clusters (the plan REDUCE_NO_CLUSTERS=1 gives them). For measurements; the gpu suite tests
// each plan.
static lap_mode row_laps()
{
    const char *v = getenv("REDUCE_ROW_LAP");
    if (v && strcmp(v, "0") == 0) return NO_LAPS;
    if (v && strcmp(v, "flags") == 0) return LAPS_FLAGGED;
    return LAPS;
}

// Enough for the flagged partials whenever a row takes several blocks, in any plan, clusters or
// not: the knobs (REDUCE_ROW_LAP, REDUCE_NO_CLUSTERS) may change between this call and the
// launch.
static size_t workspace_dispatch(size_t rows, size_t cols)
{
    if (cols <= TILE_MAX_COLS) return 0;
    const size_t a = flag_workspace(rows, plan_block_rows(rows, cols, LAPS_FLAGGED).chunks),
                 b = flag_workspace(rows, plan_block_rows(rows, cols, NO_LAPS).chunks);
    return a > b ? a : b;
}

static cudaError_t launch_block_rows(const float *d_in, float *d_out, size_t rows, size_t cols,
                                     void *d_ws, cudaStream_t s)
{
    const row_plan p = plan_block_rows(rows, cols, row_laps());
    if (rows * p.chunks > MAX_GRID_X) return cudaErrorInvalidValue;
    const unsigned grid = (unsigned)(rows * p.chunks);
    if (p.lap && p.cluster) {
        const unsigned len = (unsigned)p.chunk_len;
        if (p.threads == 2 * BLOCK_SIZE)
            return launch_clustered(sum_lap_cluster<2 * BLOCK_SIZE>, grid, 2 * BLOCK_SIZE, p.chunks,
                                    s, d_in, d_out, cols, len);
        return launch_clustered(sum_lap_cluster<BLOCK_SIZE>, grid, BLOCK_SIZE, p.chunks, s, d_in,
                                d_out, cols, len);
    }
    if (!p.flags)
        return launch_clustered(rowsum_chunks, grid, BLOCK_SIZE, p.cluster ? p.chunks : 1, s, d_in,
                                d_out, cols, p.chunks, p.chunk_len);
    char *ws = static_cast<char *>(d_ws);
    unsigned long long *slots =
        reinterpret_cast<unsigned long long *>(ws + flag_tickets_bytes(rows));
    unsigned *tickets = reinterpret_cast<unsigned *>(ws);
    if (p.lap) {
        sum_lap<true><<<grid, BLOCK_SIZE, 0, s>>>(d_in, d_out, cols, p.chunks,
                                                  (unsigned)p.chunk_len, slots, tickets);
        return cudaGetLastError();
    }
    sum_flagged<<<grid, BLOCK_SIZE, 0, s>>>(d_in, d_out, cols, p.chunks, p.chunk_len, slots,
                                            tickets);
    return cudaGetLastError();
}

// Idea:  pick the group from the shape: tiles (4 rows each) up to 512 columns, a warp tile per
//        row up to 4096, then blocks: one per row while rows fill the GPU, else several per row:
//        one-lap chunks for at most SMs / 2 rows (a cluster a row, or flagged partials), else
//        looping chunks in a cluster, or with flagged partials where a row needs more blocks
//        than a cluster.
// Fixes: each mapping alone is slow somewhere between 32 and 65536 columns, or with few rows.
// Cost:  the thresholds are the reasoning in the README; the rows plot checks them.
// Run:   build/06_coop_groups --variant dispatch --rows 8 --cols 131072
static cudaError_t launch_dispatch(const void *d_in, void *d_out, size_t rows, size_t cols,
                                   void *d_workspace, cudaStream_t s)
{
    if (!supports_rows(rows, cols)) return cudaErrorInvalidValue;
    const float *in = static_cast<const float *>(d_in);
    float *out = static_cast<float *>(d_out);
    const size_t sms = (size_t)(device_attr(cudaDevAttrMultiProcessorCount) > 0
                                    ? device_attr(cudaDevAttrMultiProcessorCount)
                                    : 1);
    // fewer rows than a block of warp tiles an SM: a block (or more) per row instead
    const bool few_rows = rows * WARP_SIZE < sms * BLOCK_SIZE && cols > TILE_MAX_COLS;
    if (cols <= TILE_MAX_COLS) return launch_tile_rows(in, out, rows, cols, s);
    if (cols <= WARP_MAX_COLS && !few_rows)
        return launch_tiles<WARP_SIZE, 1>(in, out, rows, cols, s);
    return launch_block_rows(in, out, rows, cols, d_workspace, s);
}

// ------------------------------------------------------------------------------------------------
// Variant table
// ------------------------------------------------------------------------------------------------

static const variant_t variants[] = {
    {"cg_reduce",
     "05's packed sum, block reduce with tiled_partition<32> and cg::reduce, 2 launches", OP_SUM,
     DT_F32, DT_F32, supports_sum, workspace_cg, launch_cg_reduce},
    {"tile_per_row", "a thread_block_tile<G> per row (G = 4..32, cols <= 4G), 4 rows per tile",
     OP_ROWSUM, DT_F32, DT_F32, supports_rows, workspace_none, launch_tile_per_row},
    {"dispatch",
     "row sums: tiles to 512 cols, a warp tile to 4096, else blocks, a cluster or flags per row",
     OP_ROWSUM, DT_F32, DT_F32, supports_rows, workspace_dispatch, launch_dispatch},
    {"grid_sync", "one cooperative launch: partials, grid.sync(), block 0 finishes", OP_SUM, DT_F32,
     DT_F32, supports_sum, workspace_grid_sync, launch_grid_sync},
    {"single_pass",
     "one launch: partials, fence + atomic ticket, the last block adds them in order", OP_SUM,
     DT_F32, DT_F32, supports_sum, workspace_single_pass, launch_single_pass},
    {"cluster_sum",
     "one launch: blocks add up in a cluster's shared memory, one ticket per cluster", OP_SUM,
     DT_F32, DT_F32, supports_sum, workspace_cluster_sum, launch_cluster_sum},
    {"flag_sum",
     "one launch: tickets at the start, the last block to start adds flagged partials in order",
     OP_SUM, DT_F32, DT_F32, supports_sum, workspace_flag_sum, launch_flag_sum},
};

extern "C" const stage_t stage_06_coop_groups = {"06_coop_groups", "Cooperative groups", variants,
                                                 sizeof(variants) / sizeof(variants[0])};
