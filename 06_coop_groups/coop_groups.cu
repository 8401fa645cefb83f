// SPDX-License-Identifier: MIT
// 06_coop_groups/coop_groups.cu: Cooperative groups
//
// Threads grouped as objects: a thread_block_tile<G> (G lanes of one warp), the thread_block, a
// cluster of blocks (sm_90), the grid. Every group has sync() and thread_rank(); a tile also has
// cg::reduce. The 16-byte packs and the head/body/tail split are 05's.
//
//   cg_reduce       05's packed sum, its block reduce written with groups   (two launches)
//   grid_sync       one cooperative launch: partials, grid.sync(), block 0 adds them
//   single_pass     one launch: the last block to finish (atomic ticket) adds the partials
//   cluster_sum     single_pass whose blocks first add up in their cluster's shared memory
//   tile_per_row    row sums: a thread_block_tile<G> per row, G = 4..32 from cols
//   plain_dispatch  row sums by columns: tiles, a warp tile per row, a block per row
// The tuned paths end the variant table (tuned/: dispatch, flag_sum; tuned/tuned.h).
//
// Run one:  build/06_coop_groups --variant NAME [-n N | --rows R --cols C]
// No -rdc is needed: since CUDA 11, grid.sync() works in whole-program compilation.
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <stdint.h>

#include "stage.h"
#include "tuned/tuned.h"

namespace cg = cooperative_groups;

// -------------------------------------------------------------------------------------------------
// Constants

static constexpr int WARP_SIZE = 32;          // lanes per warp on every NVIDIA GPU
static constexpr int PACK_BYTES = 16;         // the widest load of one thread (LDG.E.128)
static constexpr int PACK = PACK_BYTES / 4;   // 4 floats a pack
static constexpr int BLOCK_SIZE = 256;        // 8 warps, as in 04 and 05
static constexpr int UNROLL = 4;              // 16-byte loads in flight per thread (05)
static constexpr int MIN_BLOCKS = 4;          // at most 64 registers: a lap's loads stay in flight
static constexpr int ROWS_AT_ONCE = 4;        // short rows a tile keeps side by side
static constexpr int BIG_BLOCK = 1024;        // cluster_sum: 1024 threads, 64 KB in flight a block
static constexpr int MAX_CLUSTER = 16;        // with the non-portable opt-in (H100, H200)
static constexpr size_t WS_HEADER = 128;      // workspace: a ticket counter on its own line
static constexpr size_t MAX_GRID_X = 2147483647u;

// -------------------------------------------------------------------------------------------------
// Device helpers: packs and the head/body/tail split (as in 05_packed)

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

// -------------------------------------------------------------------------------------------------
// Device helpers: reductions over groups

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
    cg::cluster_group cluster = cg::this_cluster();
    float total = 0.0f;
    // BEGIN SOLUTION
    __shared__ float block_sum;
    if (threadIdx.x == 0) block_sum = mine;
    cluster.sync(); // every block's sum is in its shared memory, visible to the cluster
    if (threadIdx.x == 0)
        for (unsigned r = 0; r < cluster.num_blocks(); ++r)
            total += *cluster.map_shared_rank(&block_sum, r);
    // END SOLUTION
    cluster.sync(); // the reads are done: the blocks may leave
    return total;
}
#endif

// -------------------------------------------------------------------------------------------------
// Full sums: each variant is the one before it plus one change

// Idea:  05's packed_sum, its block reduce said in groups (tiled_partition<32>, cg::reduce).
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

// Idea:  one cooperative launch: partials, grid.sync(), block 0 adds them (Lei Mao's reduce).
// Fixes: cg_reduce's second launch and the gap before it.
// Cost:  every block must be resident at once; the grid barrier itself costs about 2 us.
// Run:   build/06_coop_groups --variant grid_sync -n 2^20
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

// Idea:  one plain launch: each block stores its partial, fences, takes a ticket; the last adds.
// Fixes: grid_sync's co-residency rule and grid-wide barrier. Up to 32768 floats: one block.
// Cost:  a fence and an atomic a block; the last block then reads every partial again.
// Run:   build/06_coop_groups --variant single_pass -n 2^20
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

// Idea:  single_pass whose blocks first add up in their cluster's shared memory (sm_90).
// Fixes: single_pass's partial, fence and ticket in every block: one of each a cluster.
// Cost:  each cluster.sync() fences every thread GPU-wide, and whole clusters leave SMs idle at
//        large n: slower than single_pass from 2^15.
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

// -------------------------------------------------------------------------------------------------
// Row sums: the same groups, one (or several) a row

// Idea:  a thread_block_tile<G> a row, G = 4..32 lanes to fit it, 4 rows a tile side by side.
// Fixes: 05's warp a row idles 24 of 32 lanes on a 32-column row (8 lanes of 16 bytes hold it).
// Cost:  past 128 columns the tile is a warp that walks its 4 rows 128 columns a lap.
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

// Idea:  the group by row length: tiles to 512 columns, a warp tile a row to 4096, then a block.
// Fixes: tile_per_row on long rows (1024 x 65536 is 32 blocks of 4-row warps for the GPU).
// Cost:  few long rows leave SMs idle: 1 x 262144 is one block on one SM.
// Run:   build/06_coop_groups --variant plain_dispatch --rows 4096 --cols 50257
// ([[maybe_unused]]: in an assignment, only the student's plain_dispatch launches it.)
[[maybe_unused]] static __global__ void __launch_bounds__(BLOCK_SIZE, MIN_BLOCKS)
    rowsum_blocks(const float *__restrict__ d_in, float *__restrict__ d_out, size_t cols)
{
    const cg::thread_block block = cg::this_thread_block();
    const float v = span_sum(d_in + blockIdx.x * cols, cols, block.thread_rank(), BLOCK_SIZE);
    const float total = block_reduce_cg(block, v);
    if (block.thread_rank() == 0) d_out[blockIdx.x] = total;
}

// -------------------------------------------------------------------------------------------------
// Host: what the GPU holds at once

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

// Blocks of `kernel` at `threads` threads that the whole GPU holds at once (occupancy x SMs),
// asked once per kernel and device and kept: launches run in timing loops. At least 1; a failed
// query is left for the launch to report.
static size_t resident_blocks(const void *kernel, int threads)
{
    static const void *known[16];
    static int n_known, known_dev[16], known_threads[16], known_blocks[16];
    int dev = 0, sms = 0, per_sm = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) return 1;
    for (int i = 0; i < n_known; i++)
        if (known[i] == kernel && known_dev[i] == dev && known_threads[i] == threads)
            return (size_t)known_blocks[i];
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0) != cudaSuccess ||
        sms < 1 || per_sm < 1) {
        (void)cudaGetLastError();
        return 1;
    }
    if (n_known < 16) {
        known[n_known] = kernel;
        known_dev[n_known] = dev;
        known_threads[n_known] = threads;
        known_blocks[n_known++] = sms * per_sm;
    }
    return (size_t)sms * per_sm;
}

// The largest cluster of `kernel` at `threads` threads the GPU launches, and how many such
// clusters fit at once: 16 with the non-portable opt-in where the GPU takes it, else 8; 1 (no
// clusters) before sm_90. Asked once per device, kept.
struct cluster_fit {
    int size = 1;
    int active = 0;
};

static cluster_fit largest_cluster(const void *kernel, int threads)
{
    static int cached_dev = -1;
    static cluster_fit cached;
    int dev = 0;
    cluster_fit fit;
    if (!device_attr(cudaDevAttrClusterLaunch) || cudaGetDevice(&dev) != cudaSuccess) return fit;
    if (dev == cached_dev) return cached;
    // the kernel as loaded must be sm_90 code: a build for older GPUs only (ARCH=sm_80) runs on
    // Hopper from compute_80 PTX, where the cluster code is compiled out
    cudaFuncAttributes fa;
    const bool sm90_code = cudaFuncGetAttributes(&fa, kernel) == cudaSuccess && fa.ptxVersion >= 90;
    (void)cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    for (int size = MAX_CLUSTER; size >= 2 && fit.size == 1 && sm90_code; size /= 2) {
        cudaLaunchConfig_t cfg = {};
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim = {(unsigned)size, 1, 1};
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
    cached_dev = dev;
    cached = fit;
    return fit;
}

// The full sums' workspace: the ticket counter on its own line, then one partial a block.
static float *ws_partials(void *d_ws)
{
    return reinterpret_cast<float *>(static_cast<char *>(d_ws) + WS_HEADER);
}
static unsigned *ws_counter(void *d_ws) { return static_cast<unsigned *>(d_ws); }
static size_t ws_for(const void *kernel)
{
    return WS_HEADER + 4 * resident_blocks(kernel, BLOCK_SIZE);
}

static int supports_sum(size_t rows, size_t cols) { return rows == 1 && cols >= 1; }
static int supports_rows(size_t rows, size_t cols)
{
    return rows >= 1 && cols >= 1 && rows <= MAX_GRID_X;
}
static size_t workspace_none(size_t, size_t) { return 0; }

// -------------------------------------------------------------------------------------------------
// Host: full sums

// A grid-stride sum's blocks: no more than fit at once, no more than give each thread one full
// lap of UNROLL packs, at least one.
static size_t sum_grid(size_t n, size_t threads, size_t resident)
{
    const size_t need = ceil_div(n, threads * UNROLL * PACK);
    return need < resident ? need : resident;
}

static size_t workspace_cg(size_t, size_t) { return ws_for((const void *)reduce_packed_cg); }
static size_t workspace_grid_sync(size_t, size_t) { return ws_for((const void *)reduce_grid_sync); }
static size_t workspace_single_pass(size_t, size_t)
{
    return ws_for((const void *)reduce_single_pass);
}

static cudaError_t launch_cg_reduce(const void *d_in, void *d_out, size_t rows, size_t cols,
                                    void *d_workspace, cudaStream_t s)
{
    if (!supports_sum(rows, cols)) return cudaErrorInvalidValue;
    const size_t grid =
        sum_grid(cols, BLOCK_SIZE, resident_blocks((const void *)reduce_packed_cg, BLOCK_SIZE));
    float *out = static_cast<float *>(d_out), *partials = ws_partials(d_workspace);
    reduce_packed_cg<<<(unsigned)grid, BLOCK_SIZE, 0, s>>>((const float *)d_in,
                                                           grid == 1 ? out : partials, cols);
    const cudaError_t err = cudaGetLastError();
    if (grid == 1 || err != cudaSuccess) return err;
    // the second launch: one block adds the partials (they start aligned: no head)
    reduce_packed_cg<<<1, BLOCK_SIZE, 0, s>>>(partials, out, grid);
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
    const size_t grid =
        sum_grid(n, BLOCK_SIZE, resident_blocks((const void *)reduce_grid_sync, BLOCK_SIZE));
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
// cost a ticket and a last pass for less reading than they take (exercise 3 times tickets
// instead). Its threads: one lap each, whole warps, 1024 at most.
static const size_t ONE_BLOCK_MAX_N = 2 * (size_t)BIG_BLOCK * UNROLL * PACK; // 32768 floats

static cudaError_t launch_single_pass(const void *d_in, void *d_out, size_t rows, size_t cols,
                                      void *d_workspace, cudaStream_t s)
{
    if (!supports_sum(rows, cols)) return cudaErrorInvalidValue;
    size_t grid = 1, threads = BLOCK_SIZE;
    if (cols <= ONE_BLOCK_MAX_N) {
        threads = ceil_div(ceil_div(cols, UNROLL * PACK), WARP_SIZE) * WARP_SIZE;
        if (threads > BIG_BLOCK) threads = BIG_BLOCK;
    } else {
        grid = sum_grid(cols, BLOCK_SIZE,
                        resident_blocks((const void *)reduce_single_pass, BLOCK_SIZE));
    }
    reduce_single_pass<<<(unsigned)grid, (unsigned)threads, 0, s>>>(
        (const float *)d_in, (float *)d_out, cols, ws_partials(d_workspace),
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
    const size_t lap = (size_t)BIG_BLOCK * UNROLL * PACK; // 16384 floats a block per lap
    if (n <= lap) {
        // threads for one pack each, whole warps, at least one warp
        const size_t threads = ceil_div(ceil_div(n, PACK), WARP_SIZE) * WARP_SIZE;
        return {1, (unsigned)(threads < BIG_BLOCK ? threads : BIG_BLOCK), 1};
    }
    const cluster_fit fit = largest_cluster((const void *)reduce_cluster, BIG_BLOCK);
    if (fit.size > 1) {
        const size_t clusters = min_size(ceil_div(n, lap * fit.size), (size_t)fit.active);
        return {(unsigned)(clusters * fit.size), BIG_BLOCK, (unsigned)fit.size};
    }
    const size_t resident = resident_blocks((const void *)reduce_cluster, BIG_BLOCK);
    return {(unsigned)sum_grid(n, BIG_BLOCK, resident), BIG_BLOCK, 1};
}

static size_t workspace_cluster_sum(size_t, size_t cols)
{
    return WS_HEADER + (size_t)plan_cluster_sum(cols).grid * 4;
}

// A cluster launch: the cluster's size is a launch attribute, given through cudaLaunchKernelExC
// (the C API, which every CUDA 12 and 13 runtime has); without it, an ordinary launch.
static cudaError_t launch_cluster_sum(const void *d_in, void *d_out, size_t rows, size_t cols,
                                      void *d_workspace, cudaStream_t s)
{
    if (!supports_sum(rows, cols)) return cudaErrorInvalidValue;
    sum_plan p = plan_cluster_sum(cols);
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    cfg.gridDim = dim3(p.grid);
    cfg.blockDim = dim3(p.threads);
    cfg.stream = s;
    if (p.cluster > 1) {
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim = {p.cluster, 1, 1};
        cfg.attrs = attr;
        cfg.numAttrs = 1;
    }
    const float *in = static_cast<const float *>(d_in);
    float *out = static_cast<float *>(d_out), *partials = ws_partials(d_workspace);
    unsigned *counter = ws_counter(d_workspace);
    void *args[] = {&in, &out, &cols, &partials, &counter, &p.cluster};
    const cudaError_t err = cudaLaunchKernelExC(&cfg, (const void *)reduce_cluster, args);
    return err != cudaSuccess ? err : cudaGetLastError();
}

// -------------------------------------------------------------------------------------------------
// Host: row sums

// No more blocks than the GPU holds at once; they loop over the rows.
template <int G, int ROWS>
static cudaError_t launch_tiles(const float *d_in, float *d_out, size_t rows, size_t cols,
                                cudaStream_t s)
{
    const size_t step = (size_t)(BLOCK_SIZE / G) * ROWS;
    const size_t grid = min_size(ceil_div(rows, step),
                                 resident_blocks((const void *)rowsum_tiles<G, ROWS>, BLOCK_SIZE));
    rowsum_tiles<G, ROWS><<<(unsigned)grid, BLOCK_SIZE, 0, s>>>(d_in, d_out, rows, cols);
    return cudaGetLastError();
}

// G: the narrowest tile (4..32 lanes) whose lanes hold a row at one pack each.
static cudaError_t launch_tile_per_row(const void *d_in, void *d_out, size_t rows, size_t cols,
                                       void *d_workspace, cudaStream_t s)
{
    (void)d_workspace;
    if (!supports_rows(rows, cols)) return cudaErrorInvalidValue;
    const float *in = static_cast<const float *>(d_in);
    float *out = static_cast<float *>(d_out);
    if (cols <= 4 * PACK) return launch_tiles<4, ROWS_AT_ONCE>(in, out, rows, cols, s);
    if (cols <= 8 * PACK) return launch_tiles<8, ROWS_AT_ONCE>(in, out, rows, cols, s);
    if (cols <= 16 * PACK) return launch_tiles<16, ROWS_AT_ONCE>(in, out, rows, cols, s);
    return launch_tiles<WARP_SIZE, ROWS_AT_ONCE>(in, out, rows, cols, s);
}

static cudaError_t launch_plain_dispatch(const void *d_in, void *d_out, size_t rows, size_t cols,
                                         void *d_workspace, cudaStream_t s)
{
    if (!supports_rows(rows, cols)) return cudaErrorInvalidValue;
    // BEGIN SOLUTION
    // HINT: by cols: tile_per_row's launcher, then launch_tiles<WARP_SIZE, 1>, then rowsum_blocks
    const float *in = static_cast<const float *>(d_in);
    float *out = static_cast<float *>(d_out);
    constexpr size_t TILE_MAX_COLS = 512, WARP_MAX_COLS = 4096; // 4-row tiles, then a warp tile
    if (cols <= TILE_MAX_COLS) return launch_tile_per_row(in, out, rows, cols, d_workspace, s);
    if (cols <= WARP_MAX_COLS) return launch_tiles<WARP_SIZE, 1>(in, out, rows, cols, s);
    rowsum_blocks<<<(unsigned)rows, BLOCK_SIZE, 0, s>>>(in, out, cols);
    // END SOLUTION
    return cudaGetLastError();
}

// -------------------------------------------------------------------------------------------------
// Variant table

static const variant_t variants[] = {
    {"cg_reduce",
     "05's packed sum, block reduce with tiled_partition<32> and cg::reduce, 2 launches", OP_SUM,
     DT_F32, DT_F32, supports_sum, workspace_cg, launch_cg_reduce},
    {"grid_sync", "one cooperative launch: partials, grid.sync(), block 0 finishes", OP_SUM, DT_F32,
     DT_F32, supports_sum, workspace_grid_sync, launch_grid_sync},
    {"single_pass",
     "one launch: partials, fence + atomic ticket, the last block adds them in order", OP_SUM,
     DT_F32, DT_F32, supports_sum, workspace_single_pass, launch_single_pass},
    {"cluster_sum",
     "one launch: blocks add up in a cluster's shared memory, one ticket per cluster", OP_SUM,
     DT_F32, DT_F32, supports_sum, workspace_cluster_sum, launch_cluster_sum},
    {"tile_per_row", "a thread_block_tile<G> per row (G = 4..32, cols <= 4G), 4 rows per tile",
     OP_ROWSUM, DT_F32, DT_F32, supports_rows, workspace_none, launch_tile_per_row},
    {"plain_dispatch", "row sums by cols: tiles to 512, a warp tile to 4096, else a block a row",
     OP_ROWSUM, DT_F32, DT_F32, supports_rows, workspace_none, launch_plain_dispatch},
    COOP_TUNED_VARIANTS};

extern "C" const stage_t stage_06_coop_groups = {"06_coop_groups", "Cooperative groups", variants,
                                                 sizeof(variants) / sizeof(variants[0])};
