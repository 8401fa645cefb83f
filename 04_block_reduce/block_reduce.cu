// SPDX-License-Identifier: MIT
// 04_block_reduce/block_reduce.cu: Grid-stride loops and BlockReduceSum
//
// Many elements per thread and a reusable two-level block reduce. A full sum takes two launches
// (one when a single block covers n): a grid of the size the GPU holds at once writes one partial
// per block into the workspace, then one block reduces those partials into d_out. README.md has
// the lesson.
//
// Variants (OP_SUM and OP_ROWSUM, float in, float out):
//   grid_stride         grid-stride loop       build/04_block_reduce --variant grid_stride
//   grid_stride_unroll  4 loads in flight      build/04_block_reduce --variant grid_stride_unroll
//   warp_per_row        one warp per row (03)  build/04_block_reduce --variant warp_per_row
//   block_per_row       one block per row      build/04_block_reduce --variant block_per_row
#include "stage.h"

#include <cuda_runtime.h>

// -------------------------------------------------------------------------------------------------
// Constants

// A warp is 32 lanes on every NVIDIA GPU so far; the shuffle offsets 16, 8, 4, 2, 1 come from it.
static constexpr unsigned WARP_SIZE = 32;

// Every lane of the warp takes part in each shuffle below.
static constexpr unsigned FULL_MASK = 0xffffffffu;

// 256 threads = 8 warps of 32 lanes: a multiple of 32 so no warp is partly empty, a power of two
// so every step of the tree halves it exactly, and 8 blocks fill the 2048 thread slots of an SM
// (sm_80, sm_90) while a thread needs at most 32 registers (65536 per SM / 2048 threads).
static constexpr unsigned BLOCK_SIZE = 256;

// One shared slot per warp. A block holds at most 1024 threads = 32 warps, so the slots never
// outnumber the lanes of the warp that reads them back.
static constexpr unsigned WARPS_PER_BLOCK = BLOCK_SIZE / WARP_SIZE;

// Independent accumulators in grid_stride_unroll: 4 loads issued before the first add.
static constexpr int UNROLL = 4;

// The largest gridDim.x the hardware accepts (2^31 - 1, every GPU since sm_30).
static constexpr size_t MAX_GRID_X = 2147483647u;

// Size of the per-device caches of the occupancy query; device ids beyond it are queried on
// every call (correct, just not cached).
static constexpr int MAX_CACHED_DEVICES = 64;

static_assert(BLOCK_SIZE % WARP_SIZE == 0, "the block is whole warps");
static_assert(WARPS_PER_BLOCK <= WARP_SIZE, "warp 0 must hold one slot per warp");

// -------------------------------------------------------------------------------------------------
// Device helpers

// Sum of v over the 32 lanes, valid in lane 0. Each step lane i adds the value of lane
// i + offset; a lane whose partner would be past lane 31 gets its own value back, so the upper
// lanes end with junk that nobody reads. The shuffle is a register-to-register exchange with the
// synchronisation built in: every lane named in the mask must reach the same call.
static __device__ __forceinline__ float warp_reduce_sum(float v)
{
#pragma unroll
    for (unsigned offset = WARP_SIZE / 2; offset > 0; offset /= 2) {
        v += __shfl_down_sync(FULL_MASK, v, offset);
    }
    return v;
}

// Sum of v over the whole block, valid in thread 0; every thread of the block must call it (it
// contains __syncthreads). s_warp_sums is the caller's __shared__ array of one slot per warp.
// 03_shuffle's shuffle_down_tree as a helper, the shape of PyTorch's BlockReduceSum: warp
// shuffle, one slot per warp, warp shuffle. May be called back to back on the same slots
// (block_per_row does exactly that).
static __device__ __forceinline__ float block_reduce_sum(float v, float *s_warp_sums)
{
    const unsigned lane = threadIdx.x % WARP_SIZE;
    const unsigned warp = threadIdx.x / WARP_SIZE;

    v = warp_reduce_sum(v);
    // Barrier 1: a previous call may still have warp 0 reading the slots. Without it, a fast warp
    // of the next call would overwrite its slot before warp 0 has read the old value.
    __syncthreads();
    if (lane == 0)
        s_warp_sums[warp] = v;
    // Barrier 2: every slot is written before warp 0 reads them.
    __syncthreads();
    if (warp == 0) {
        v = (lane < WARPS_PER_BLOCK) ? s_warp_sums[lane] : 0.0f;
        // BEGIN SOLUTION
        // HINT: lane l of warp 0 now holds warp l's sum (0 past the last warp): reduce them
        v = warp_reduce_sum(v);
        // END SOLUTION
    }
    return v;
}

// -------------------------------------------------------------------------------------------------
// Kernels

// Idea:  a grid-stride loop (i, i + G, i + 2G, ...) over a resident-sized grid, block_reduce_sum.
// Fixes: 03_shuffle's two elements per thread (2^28 floats -> 2^19 blocks and four launches).
// Cost:  one load in flight per thread (each add waits for its load); two launches above 256.
// Run:   build/04_block_reduce --variant grid_stride
static __global__ void __launch_bounds__(BLOCK_SIZE)
reduce_grid_stride(const float *__restrict__ d_in, float *__restrict__ d_out, size_t n)
{
    __shared__ float s_warp_sums[WARPS_PER_BLOCK];
    const size_t stride = (size_t)gridDim.x * BLOCK_SIZE;

    // Consecutive threads read consecutive floats in every iteration: coalesced.
    float sum = 0.0f;
    for (size_t i = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x; i < n; i += stride) {
        // BEGIN SOLUTION
        // HINT: add element i to this thread's sum
        sum += d_in[i];
        // END SOLUTION
    }

    sum = block_reduce_sum(sum, s_warp_sums);
    if (threadIdx.x == 0)
        d_out[blockIdx.x] = sum;
}

// Idea:  grid_stride with UNROLL = 4 independent accumulators: 4 loads issued before any add.
// Fixes: grid_stride's one outstanding load per thread (4x the bytes in flight).
// Cost:  more registers; the last < 4 strides go through a one-load tail loop.
// Run:   build/04_block_reduce --variant grid_stride_unroll
static __global__ void __launch_bounds__(BLOCK_SIZE)
reduce_grid_stride_unroll(const float *__restrict__ d_in, float *__restrict__ d_out, size_t n)
{
    __shared__ float s_warp_sums[WARPS_PER_BLOCK];
    const size_t stride = (size_t)gridDim.x * BLOCK_SIZE;
    size_t i = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;

    float acc[UNROLL] = {}; // fully unrolled below, so these live in registers
    // All four indices are in range, so all four loads may be issued before any add.
    for (; i + (UNROLL - 1) * stride < n; i += UNROLL * stride) {
        // BEGIN SOLUTION
        // HINT: load elements i, i + stride, ... (UNROLL of them) first, then add each to its acc
        float x[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; ++k)
            x[k] = d_in[i + k * stride];
#pragma unroll
        for (int k = 0; k < UNROLL; ++k)
            acc[k] += x[k];
        // END SOLUTION
    }
    // Tail: fewer than UNROLL strides left for this thread.
    for (; i < n; i += stride)
        acc[0] += d_in[i];

    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < UNROLL; ++k)
        sum += acc[k];
    sum = block_reduce_sum(sum, s_warp_sums);
    if (threadIdx.x == 0)
        d_out[blockIdx.x] = sum;
}

// Idea:  row sums with one warp per row (03_shuffle's kernel, unchanged, to compare on one run).
// Fixes: nothing new here; the baseline for block_per_row.
// Cost:  a long row is summed by only 32 threads; 31 lanes idle when cols = 1.
// Run:   build/04_block_reduce --variant warp_per_row --rows 4096 --cols 4096
static __global__ void __launch_bounds__(BLOCK_SIZE)
rowsum_warp_per_row(const float *__restrict__ d_in, float *__restrict__ d_out, size_t rows,
                    size_t cols)
{
    const unsigned lane = threadIdx.x % WARP_SIZE;
    const size_t first_row = (size_t)blockIdx.x * WARPS_PER_BLOCK + threadIdx.x / WARP_SIZE;
    const size_t row_stride = (size_t)gridDim.x * WARPS_PER_BLOCK;

    // The row index is the same for all 32 lanes, so the whole warp runs the same number of
    // iterations and reaches the shuffle together. The loop covers more rows than the grid.
    for (size_t row = first_row; row < rows; row += row_stride) {
        float v = 0.0f;
        // BEGIN SOLUTION
        // HINT: lane l adds columns l, l + 32, l + 64, ... of this row
        const float *d_row = d_in + row * cols;
        for (size_t c = lane; c < cols; c += WARP_SIZE)
            v += d_row[c];
        // END SOLUTION
        v = warp_reduce_sum(v);
        if (lane == 0)
            d_out[row] = v;
    }
}

// Idea:  row sums, one block per row, block_reduce_sum; a capped grid, blocks loop over rows.
// Fixes: warp_per_row's 32 threads per long row; here 256 threads share it (cols / 256 each).
// Cost:  two __syncthreads per row; short rows leave most of the block idle.
// Run:   build/04_block_reduce --variant block_per_row --rows 1024 --cols 65536
static __global__ void __launch_bounds__(BLOCK_SIZE)
rowsum_block_per_row(const float *__restrict__ d_in, float *__restrict__ d_out, size_t rows,
                     size_t cols)
{
    __shared__ float s_warp_sums[WARPS_PER_BLOCK];

    // row depends only on blockIdx.x, so every thread of the block runs the same iterations and
    // meets the same __syncthreads inside block_reduce_sum. Iteration r + 1 reuses the slots of
    // iteration r: that reuse is why block_reduce_sum begins with a barrier.
    for (size_t row = blockIdx.x; row < rows; row += gridDim.x) {
        float v = 0.0f;
        // BEGIN SOLUTION
        // HINT: thread t adds columns t, t + BLOCK_SIZE, t + 2 * BLOCK_SIZE, ... of this row
        const float *d_row = d_in + row * cols;
        for (size_t c = threadIdx.x; c < cols; c += BLOCK_SIZE)
            v += d_row[c];
        // END SOLUTION
        v = block_reduce_sum(v, s_warp_sums);
        if (threadIdx.x == 0)
            d_out[row] = v;
    }
}

// -------------------------------------------------------------------------------------------------
// Launchers

// Blocks that fit on the whole GPU at once for `kernel` at BLOCK_SIZE threads: the occupancy
// calculator's blocks per SM times the SM count. The two queries cost host time on every launch,
// so the answer is kept per device in `cache` (0 = not asked yet). Writes the count to *blocks and
// returns cudaSuccess, or returns the query's error.
static cudaError_t resident_blocks(const void *kernel, int *cache, size_t *blocks)
{
    int dev = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err != cudaSuccess)
        return err;
    if (dev >= 0 && dev < MAX_CACHED_DEVICES && cache[dev] > 0) {
        *blocks = (size_t)cache[dev];
        return cudaSuccess;
    }

    int per_sm = 0, sms = 0;
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, BLOCK_SIZE, 0);
    if (err != cudaSuccess)
        return err;
    err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (err != cudaSuccess)
        return err;
    int total = (per_sm > 0 ? per_sm : 1) * (sms > 0 ? sms : 1);
    if (dev >= 0 && dev < MAX_CACHED_DEVICES)
        cache[dev] = total;
    *blocks = (size_t)total;
    return cudaSuccess;
}

// One cache per kernel: register use, hence occupancy, differs between them. Not locked: two
// host threads racing here would both run the same query and store the same answer.
static int g_cache_grid_stride[MAX_CACHED_DEVICES];
static int g_cache_grid_stride_unroll[MAX_CACHED_DEVICES];
static int g_cache_block_per_row[MAX_CACHED_DEVICES];

static size_t ceil_div(size_t a, size_t b)
{
    return (a + b - 1) / b;
}

// Grid of a full sum: as many blocks as are resident at once, but no more than n needs
// (elems_per_thread elements for each thread of the grid before the loop runs dry). If the
// occupancy query fails, *blocks is the uncapped need: a safe upper bound for the workspace.
static cudaError_t sum_grid(const void *kernel, int *cache, size_t n, size_t elems_per_thread,
                            size_t *blocks)
{
    size_t need = ceil_div(n, (size_t)BLOCK_SIZE * elems_per_thread);
    if (need > MAX_GRID_X)
        need = MAX_GRID_X;
    size_t resident = 0;
    const cudaError_t err = resident_blocks(kernel, cache, &resident);
    *blocks = (err == cudaSuccess && resident < need) ? resident : need;
    return err;
}

// Any n: the grid-stride loop covers n beyond the largest grid.
static int supports_sum(size_t rows, size_t cols)
{
    return rows == 1 && cols >= 1;
}

// Any matrix: the row loops cover rows beyond the largest grid.
static int supports_rowsum(size_t rows, size_t cols)
{
    return rows >= 1 && cols >= 1;
}

static size_t workspace_none(size_t rows, size_t cols)
{
    (void)rows;
    (void)cols;
    return 0;
}

// One float per block of the first pass; none when one block already covers n.
static size_t workspace_grid_stride(size_t rows, size_t cols)
{
    (void)rows;
    size_t blocks = 0;
    (void)sum_grid((const void *)reduce_grid_stride, g_cache_grid_stride, cols, 1, &blocks);
    return blocks > 1 ? blocks * sizeof(float) : 0;
}

static size_t workspace_grid_stride_unroll(size_t rows, size_t cols)
{
    (void)rows;
    size_t blocks = 0;
    (void)sum_grid((const void *)reduce_grid_stride_unroll, g_cache_grid_stride_unroll, cols,
                   UNROLL, &blocks);
    return blocks > 1 ? blocks * sizeof(float) : 0;
}

typedef void (*reduce_kernel_t)(const float *, float *, size_t);

// Pass 1: `blocks` blocks of `kernel` write one partial each into the workspace. Pass 2: one block
// of reduce_grid_stride sums those partials (a few thousand at most) into d_out. With a single
// block, pass 1 writes d_out directly. Returns the first launch error or cudaSuccess.
static cudaError_t launch_two_pass(reduce_kernel_t kernel, size_t blocks, const void *d_in,
                                   void *d_out, size_t n, void *d_workspace, cudaStream_t s)
{
    float *d_partials = (float *)d_workspace;
    float *d_first_out = (blocks == 1) ? (float *)d_out : d_partials;
    kernel<<<(unsigned)blocks, BLOCK_SIZE, 0, s>>>((const float *)d_in, d_first_out, n);
    if (blocks == 1)
        return cudaGetLastError();
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        return err;
    reduce_grid_stride<<<1, BLOCK_SIZE, 0, s>>>(d_partials, (float *)d_out, blocks);
    return cudaGetLastError();
}

// Each launcher returns cudaErrorInvalidValue for a shape its supports() rejects, else the first
// error of the occupancy query or the launches, or cudaSuccess.
static cudaError_t launch_grid_stride(const void *d_in, void *d_out, size_t rows, size_t cols,
                                      void *d_workspace, cudaStream_t s)
{
    if (!supports_sum(rows, cols))
        return cudaErrorInvalidValue;
    size_t blocks = 0;
    const cudaError_t err = sum_grid((const void *)reduce_grid_stride, g_cache_grid_stride,
                                     cols, 1, &blocks);
    if (err != cudaSuccess)
        return err;
    return launch_two_pass(reduce_grid_stride, blocks, d_in, d_out, cols, d_workspace, s);
}

static cudaError_t launch_grid_stride_unroll(const void *d_in, void *d_out, size_t rows,
                                             size_t cols, void *d_workspace, cudaStream_t s)
{
    if (!supports_sum(rows, cols))
        return cudaErrorInvalidValue;
    size_t blocks = 0;
    const cudaError_t err = sum_grid((const void *)reduce_grid_stride_unroll,
                                     g_cache_grid_stride_unroll, cols, UNROLL, &blocks);
    if (err != cudaSuccess)
        return err;
    return launch_two_pass(reduce_grid_stride_unroll, blocks, d_in, d_out, cols, d_workspace, s);
}

// As in 03_shuffle: enough blocks for one warp per row, capped at the gridDim.x limit.
static cudaError_t launch_warp_per_row(const void *d_in, void *d_out, size_t rows, size_t cols,
                                       void *d_workspace, cudaStream_t s)
{
    if (!supports_rowsum(rows, cols))
        return cudaErrorInvalidValue;
    (void)d_workspace;
    size_t blocks = ceil_div(rows, WARPS_PER_BLOCK);
    if (blocks > MAX_GRID_X)
        blocks = MAX_GRID_X;
    rowsum_warp_per_row<<<(unsigned)blocks, BLOCK_SIZE, 0, s>>>((const float *)d_in,
                                                               (float *)d_out, rows, cols);
    return cudaGetLastError();
}

// One block per row, but never more blocks than are resident at once: each block then walks rows
// blockIdx.x, + gridDim.x, ... and reuses its shared slots row after row.
static cudaError_t launch_block_per_row(const void *d_in, void *d_out, size_t rows, size_t cols,
                                        void *d_workspace, cudaStream_t s)
{
    if (!supports_rowsum(rows, cols))
        return cudaErrorInvalidValue;
    (void)d_workspace;
    size_t blocks = 0;
    const cudaError_t err = resident_blocks((const void *)rowsum_block_per_row,
                                            g_cache_block_per_row, &blocks);
    if (err != cudaSuccess)
        return err;
    if (blocks > rows)
        blocks = rows;
    rowsum_block_per_row<<<(unsigned)blocks, BLOCK_SIZE, 0, s>>>((const float *)d_in,
                                                                (float *)d_out, rows, cols);
    return cudaGetLastError();
}

// -------------------------------------------------------------------------------------------------
// Variant table

static const variant_t variants[] = {
    { "grid_stride",
      "grid-stride loop, block_reduce_sum, grid = occupancy x SMs, second pass of one block",
      OP_SUM, DT_F32, DT_F32, supports_sum, workspace_grid_stride, launch_grid_stride },
    { "grid_stride_unroll",
      "grid_stride with 4 independent accumulators: 4 loads in flight per thread",
      OP_SUM, DT_F32, DT_F32, supports_sum, workspace_grid_stride_unroll,
      launch_grid_stride_unroll },
    { "warp_per_row",
      "row sums: one warp per row, lanes stride over cols (stage 03, for comparison)",
      OP_ROWSUM, DT_F32, DT_F32, supports_rowsum, workspace_none, launch_warp_per_row },
    { "block_per_row",
      "row sums: one block per row, block_reduce_sum, capped grid loops over rows",
      OP_ROWSUM, DT_F32, DT_F32, supports_rowsum, workspace_none, launch_block_per_row },
};

extern "C" const stage_t stage_04_block_reduce = {
    "04_block_reduce", "Grid-stride loops and BlockReduceSum", variants,
    sizeof(variants) / sizeof(variants[0])
};
