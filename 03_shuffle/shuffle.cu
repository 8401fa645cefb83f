// SPDX-License-Identifier: MIT
// 03_shuffle/shuffle.cu: Warp shuffles
//
// The reduction tree moves from shared memory into registers: __shfl_down_sync and
// __shfl_xor_sync pass values between the 32 lanes of a warp with no shared memory and no block
// barrier. The full sums run pass after pass on the device (input -> partials -> ... -> one
// float in d_out) as in 02_strided; warp_per_row is the first row sum. README.md has the lesson.
//
// Variants (OP_SUM and OP_ROWSUM, float in, float out):
//   last_warp_shuffle  shared tree to 64, one warp   build/03_shuffle --variant last_warp_shuffle
//   shuffle_down_tree  warp, slot per warp, warp     build/03_shuffle --variant shuffle_down_tree
//   shuffle_xor_tree   the same as a butterfly       build/03_shuffle --variant shuffle_xor_tree
//   warp_per_row       row sums, one warp per row    build/03_shuffle --variant warp_per_row
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
// (sm_80, sm_90). The largest shared array here (last_warp_shuffle's) is 256 x 4 bytes = 1 KB.
static constexpr unsigned BLOCK_SIZE = 256;

// One shared slot per warp. A block holds at most 1024 threads = 32 warps, so the slots never
// outnumber the lanes of the warp that reads them back.
static constexpr unsigned WARPS_PER_BLOCK = BLOCK_SIZE / WARP_SIZE;

// The largest gridDim.x the hardware accepts (2^31 - 1, every GPU since sm_30).
static constexpr size_t MAX_GRID_X = 2147483647u;

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
        // BEGIN SOLUTION
        // HINT: add the value of the lane `offset` places up (__shfl_down_sync, all 32 lanes)
        v += __shfl_down_sync(FULL_MASK, v, offset);
        // END SOLUTION
    }
    return v;
}

// Sum of v over the 32 lanes, valid in EVERY lane (an all-reduce). Lane i pairs with lane
// i ^ offset; both add the same two numbers, so after five steps all 32 lanes hold the total.
static __device__ __forceinline__ float warp_allreduce_sum(float v)
{
#pragma unroll
    for (unsigned offset = WARP_SIZE / 2; offset > 0; offset /= 2)
        v += __shfl_xor_sync(FULL_MASK, v, offset);
    return v;
}

// 02_strided's first add during the load: elements i and i + BLOCK_SIZE of this block's
// 2 * BLOCK_SIZE slice, with 0 (the identity of +) for anything past the end.
static __device__ __forceinline__ float load_two(const float *__restrict__ d_in, size_t n)
{
    const size_t i = (size_t)blockIdx.x * (2 * BLOCK_SIZE) + threadIdx.x;
    float sum = (i < n) ? d_in[i] : 0.0f;
    if (i + BLOCK_SIZE < n)
        sum += d_in[i + BLOCK_SIZE];
    return sum;
}

// -------------------------------------------------------------------------------------------------
// Kernels

// Idea:  the shared tree (sequential addressing) down to 64 partials, then warp 0 shuffles.
// Fixes: 02_strided's last levels, each a __syncthreads for 32 or fewer working threads.
// Cost:  three block barriers remain (store, 128, 64) and a shared round trip per level.
// Run:   build/03_shuffle --variant last_warp_shuffle
static __global__ void __launch_bounds__(BLOCK_SIZE)
reduce_last_warp_shuffle(const float *__restrict__ d_in, float *__restrict__ d_out, size_t n)
{
    __shared__ float s_data[BLOCK_SIZE];
    const unsigned tid = threadIdx.x;

    s_data[tid] = load_two(d_in, n);
    __syncthreads();

    // Sequential addressing (02_strided): thread tid adds tid + s, conflict-free; stop at 64 left.
#pragma unroll
    for (unsigned s = BLOCK_SIZE / 2; s > WARP_SIZE; s >>= 1) {
        if (tid < s)
            s_data[tid] += s_data[tid + s];
        __syncthreads();
    }

    // 64 partials remain; warp 0 takes two each and finishes without touching shared memory.
    // Only whole warp 0 enters the branch, so the full mask is honest.
    if (tid < WARP_SIZE) {
        float v = s_data[tid] + s_data[tid + WARP_SIZE];
        // BEGIN SOLUTION
        // HINT: the 32 lanes of warp 0 hold the 64 partials, two each: reduce them in registers
        v = warp_reduce_sum(v);
        // END SOLUTION
        if (tid == 0)
            d_out[blockIdx.x] = v;
    }
}

// Idea:  the whole block tree in registers: warp shuffle, one shared slot per warp, warp shuffle.
// Fixes: last_warp_shuffle's 256 -> 64 walk through shared memory, a barrier per level.
// Cost:  one __syncthreads; each thread still starts from only two elements (04_block_reduce).
// Run:   build/03_shuffle --variant shuffle_down_tree
static __global__ void __launch_bounds__(BLOCK_SIZE)
reduce_shuffle_down_tree(const float *__restrict__ d_in, float *__restrict__ d_out, size_t n)
{
    __shared__ float s_warp_sums[WARPS_PER_BLOCK];
    const unsigned lane = threadIdx.x % WARP_SIZE;
    const unsigned warp = threadIdx.x / WARP_SIZE;

    // Every thread reaches the shuffles, past-the-end ones carrying 0: no early return, since a
    // lane that left would break the full mask.
    float v = warp_reduce_sum(load_two(d_in, n));
    if (lane == 0)
        s_warp_sums[warp] = v;
    __syncthreads();

    if (warp == 0) {
        v = (lane < WARPS_PER_BLOCK) ? s_warp_sums[lane] : 0.0f;
        // BEGIN SOLUTION
        // HINT: lane l of warp 0 now holds warp l's sum (0 past the last warp): reduce them
        v = warp_reduce_sum(v);
        // END SOLUTION
        if (lane == 0)
            d_out[blockIdx.x] = v;
    }
}

// Idea:  shuffle_down_tree with a __shfl_xor_sync butterfly, so every lane holds the total.
// Fixes: nothing for a sum; it is the all-reduce softmax needs (the row max in every lane).
// Cost:  as shuffle_down_tree (five shuffles per level either way).
// Run:   build/03_shuffle --variant shuffle_xor_tree
static __global__ void __launch_bounds__(BLOCK_SIZE)
reduce_shuffle_xor_tree(const float *__restrict__ d_in, float *__restrict__ d_out, size_t n)
{
    __shared__ float s_warp_sums[WARPS_PER_BLOCK];
    const unsigned lane = threadIdx.x % WARP_SIZE;
    const unsigned warp = threadIdx.x / WARP_SIZE;

    // After the butterfly any lane could store the warp's sum; lane 0 does, by convention.
    float v = warp_allreduce_sum(load_two(d_in, n));
    if (lane == 0)
        s_warp_sums[warp] = v;
    __syncthreads();

    if (warp == 0) {
        v = (lane < WARPS_PER_BLOCK) ? s_warp_sums[lane] : 0.0f;
        // BEGIN SOLUTION
        // HINT: lane l of warp 0 now holds warp l's sum (0 past the last warp): reduce them
        v = warp_allreduce_sum(v);
        // END SOLUTION
        if (lane == 0)
            d_out[blockIdx.x] = v;
    }
}

// Idea:  row sums, one warp per row; lane l adds cols l, l + 32, ... (128-byte coalesced loads).
// Fixes: (the first row sum) no shared memory and no __syncthreads: a row never leaves its warp.
// Cost:  a long row gets only 32 threads (cols / 32 adds each); cols = 1 idles 31 lanes.
// Run:   build/03_shuffle --variant warp_per_row --rows 4096 --cols 4096
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

// -------------------------------------------------------------------------------------------------
// Launchers

typedef void (*reduce_kernel_t)(const float *, float *, size_t);

// Blocks needed to cover `count` values when a block takes `per_block` of them.
static size_t blocks_for(size_t count, size_t per_block)
{
    return (count + per_block - 1) / per_block;
}

// Two ping-pong buffers of partial sums: pass 1 writes the first, pass 2 the second, and every
// later pass produces fewer partials than the pass two before it, so the two suffice. None when
// the first pass already ends in one block.
static size_t workspace_for(size_t cols, size_t per_block)
{
    const size_t first = blocks_for(cols, per_block);
    if (first <= 1)
        return 0;
    return (first + blocks_for(first, per_block)) * sizeof(float);
}

// Runs `kernel` (BLOCK_SIZE threads, `per_block` elements per block, `smem_bytes` of dynamic
// shared memory) pass after pass until one value lands in d_out. Each pass here divides the count
// by 2 * BLOCK_SIZE = 512, so 2^28 inputs take four passes (2^19, 2^10, 2, 1 partials). Returns
// cudaSuccess or the first launch error; never synchronizes. The caller has checked the shape.
static cudaError_t run_passes(reduce_kernel_t kernel, size_t per_block, size_t smem_bytes,
                              const float *d_in, float *d_out, size_t n, float *d_workspace,
                              cudaStream_t s)
{
    float *d_ping = d_workspace;
    // The second buffer right after the first; none when the workspace is 0.
    float *d_pong = d_ping ? d_ping + blocks_for(n, per_block) : nullptr;
    const float *d_src = d_in;
    size_t blocks = blocks_for(n, per_block);

    while (blocks > 1) {
        float *d_dst = d_ping;
        kernel<<<(unsigned)blocks, BLOCK_SIZE, smem_bytes, s>>>(d_src, d_dst, n);
        const cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess)
            return err;
        // This pass's partials feed the next pass, which writes the other buffer.
        d_src = d_dst;
        n = blocks;
        d_ping = d_pong;
        d_pong = d_dst;
        blocks = blocks_for(n, per_block);
    }
    kernel<<<1, BLOCK_SIZE, smem_bytes, s>>>(d_src, d_out, n);
    return cudaGetLastError();
}

// Two elements per thread (every full sum here: 02_strided's first add during the load).
static int supports_sum_pairs(size_t rows, size_t cols)
{
    return rows == 1 && cols >= 1 && blocks_for(cols, 2 * BLOCK_SIZE) <= MAX_GRID_X;
}

static size_t workspace_sum_pairs(size_t rows, size_t cols)
{
    (void)rows;
    return workspace_for(cols, 2 * BLOCK_SIZE);
}

// Any matrix: the row loop covers rows beyond the largest grid.
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

// Each launcher returns cudaErrorInvalidValue for a shape its supports() rejects, else the first
// launch error or cudaSuccess. The kernels' shared memory is static: no dynamic bytes at launch.
static cudaError_t launch_last_warp_shuffle(const void *d_in, void *d_out, size_t rows,
                                            size_t cols, void *d_workspace, cudaStream_t s)
{
    if (!supports_sum_pairs(rows, cols))
        return cudaErrorInvalidValue;
    return run_passes(reduce_last_warp_shuffle, 2 * BLOCK_SIZE, 0,
                      (const float *)d_in, (float *)d_out, cols, (float *)d_workspace, s);
}

static cudaError_t launch_shuffle_down_tree(const void *d_in, void *d_out, size_t rows,
                                            size_t cols, void *d_workspace, cudaStream_t s)
{
    if (!supports_sum_pairs(rows, cols))
        return cudaErrorInvalidValue;
    return run_passes(reduce_shuffle_down_tree, 2 * BLOCK_SIZE, 0,
                      (const float *)d_in, (float *)d_out, cols, (float *)d_workspace, s);
}

static cudaError_t launch_shuffle_xor_tree(const void *d_in, void *d_out, size_t rows,
                                           size_t cols, void *d_workspace, cudaStream_t s)
{
    if (!supports_sum_pairs(rows, cols))
        return cudaErrorInvalidValue;
    return run_passes(reduce_shuffle_xor_tree, 2 * BLOCK_SIZE, 0,
                      (const float *)d_in, (float *)d_out, cols, (float *)d_workspace, s);
}

// Enough blocks for one warp per row, capped at the gridDim.x limit; the kernel's row loop covers
// the rest (rows may be 2^26 with cols = 1).
static cudaError_t launch_warp_per_row(const void *d_in, void *d_out, size_t rows, size_t cols,
                                       void *d_workspace, cudaStream_t s)
{
    if (!supports_rowsum(rows, cols))
        return cudaErrorInvalidValue;
    (void)d_workspace;
    size_t blocks = blocks_for(rows, WARPS_PER_BLOCK);
    if (blocks > MAX_GRID_X)
        blocks = MAX_GRID_X;
    rowsum_warp_per_row<<<(unsigned)blocks, BLOCK_SIZE, 0, s>>>((const float *)d_in,
                                                               (float *)d_out, rows, cols);
    return cudaGetLastError();
}

// -------------------------------------------------------------------------------------------------
// Variant table

static const variant_t variants[] = {
    { "last_warp_shuffle",
      "shared tree to 64 partials, last warp finishes with __shfl_down_sync",
      OP_SUM, DT_F32, DT_F32, supports_sum_pairs, workspace_sum_pairs, launch_last_warp_shuffle },
    { "shuffle_down_tree",
      "warp shuffle, one shared slot per warp, one __syncthreads, warp shuffle",
      OP_SUM, DT_F32, DT_F32, supports_sum_pairs, workspace_sum_pairs, launch_shuffle_down_tree },
    { "shuffle_xor_tree",
      "as shuffle_down_tree with a __shfl_xor_sync butterfly (all lanes get the sum)",
      OP_SUM, DT_F32, DT_F32, supports_sum_pairs, workspace_sum_pairs, launch_shuffle_xor_tree },
    { "warp_per_row",
      "row sums: one warp per row, lanes stride over cols, shuffle reduce",
      OP_ROWSUM, DT_F32, DT_F32, supports_rowsum, workspace_none, launch_warp_per_row },
};

extern "C" const stage_t stage_03_shuffle = {
    "03_shuffle", "Warp shuffles", variants, sizeof(variants) / sizeof(variants[0])
};
