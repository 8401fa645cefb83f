// SPDX-License-Identifier: MIT
// 02_strided/strided.cu: Strided and sequential addressing
//
// Four fixes to the naive tree, each variant the previous one plus one change. Every launcher
// runs pass after pass over the partial sums until one value is left, all on the device.
// README.md has the lesson.
//
// Variants (OP_SUM, float in, float out):
//   strided_index   busy threads in the fewest warps    build/02_strided --variant strided_index
//   sequential      conflict-free shared addresses      build/02_strided --variant sequential
//   first_add_load  two elements a thread, add on load  build/02_strided --variant first_add_load
//   unrolled        block size a template, no loop      build/02_strided --variant unrolled
#include "stage.h"

#include <cuda_runtime.h>

// -------------------------------------------------------------------------------------------------
// Constants

// 256 threads = 8 warps of 32 lanes: a multiple of 32 so no warp is partly empty, a power of two
// so every step of the tree halves it exactly, and 8 blocks fill the 2048 thread slots of an SM
// (sm_80, sm_90). Its shared array is 256 x 4 bytes = 1 KB, far under the 48 KB a block gets.
static constexpr unsigned BLOCK_SIZE = 256;

// The largest gridDim.x the hardware accepts (2^31 - 1, every GPU since sm_30).
static constexpr size_t MAX_GRID_X = 2147483647u;

// -------------------------------------------------------------------------------------------------
// Kernels

// Idea:  thread tid adds the pair at index 2*s*tid: the busy threads are tid 0, 1, 2, ...
// Fixes: 01_naive's busy lanes scattered over every warp, and its `%`.
// Cost:  shared-memory bank conflicts: lanes 16/s apart share a bank, up to 8-way at 256 threads.
// Run:   build/02_strided --variant strided_index
static __global__ void reduce_strided_index(const float *__restrict__ d_in,
                                            float *__restrict__ d_out, size_t n)
{
    extern __shared__ float s_data[]; // blockDim.x floats, sized at launch

    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + tid; // no 32-bit overflow

    s_data[tid] = (i < n) ? d_in[i] : 0.0f; // identity past the end
    __syncthreads();

    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        // The same pairs as 01_naive, handed to the lowest thread ids: at s = 1 threads 0..127
        // (warps 0..3) add, warps 4..7 have nothing to do. Lane L touches word 2*s*L, so lanes
        // 16/s apart share a bank and the warp's request is split into passes (README.md).
        // BEGIN SOLUTION
        // HINT: thread tid adds the pair that starts at index 2*s*tid, if it is inside the block
        const unsigned index = 2 * s * tid;
        if (index < blockDim.x)
            s_data[index] += s_data[index + s];
        // END SOLUTION
        __syncthreads();
    }

    if (tid == 0)
        d_out[blockIdx.x] = s_data[0];
}

// Idea:  add the upper half onto the lower half: thread tid adds s_data[tid + s], s halving.
// Fixes: strided_index's bank conflicts: 32 lanes read 32 consecutive words.
// Cost:  half the threads do nothing but load, even in the first step.
// Run:   build/02_strided --variant sequential
static __global__ void reduce_sequential(const float *__restrict__ d_in,
                                         float *__restrict__ d_out, size_t n)
{
    extern __shared__ float s_data[];

    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + tid;

    s_data[tid] = (i < n) ? d_in[i] : 0.0f;
    __syncthreads();

    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        // Lane L reads words L and L + s: 32 consecutive words sit in 32 different banks, one
        // pass through shared memory per request.
        // BEGIN SOLUTION
        // HINT: the lower s threads each add the element s places above their own
        if (tid < s)
            s_data[tid] += s_data[tid + s];
        // END SOLUTION
        __syncthreads();
    }

    if (tid == 0)
        d_out[blockIdx.x] = s_data[0];
}

// Idea:  each thread loads two elements blockDim.x apart and stores their sum: half the blocks.
// Fixes: sequential's idle half; each thread also keeps two loads in flight instead of one.
// Cost:  blockDim.x is a runtime value, so every tree step pays loop bookkeeping.
// Run:   build/02_strided --variant first_add_load
static __global__ void reduce_first_add_load(const float *__restrict__ d_in,
                                             float *__restrict__ d_out, size_t n)
{
    extern __shared__ float s_data[];

    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + tid;

    // Both loads are coalesced: a warp reads 32 consecutive floats each time. Each is guarded
    // on its own: the second half of the last block may be partly or wholly past the end.
    float sum = (i < n) ? d_in[i] : 0.0f;
    // BEGIN SOLUTION
    // HINT: add the element blockDim.x further on, if it is inside the input
    if (i + blockDim.x < n)
        sum += d_in[i + blockDim.x];
    // END SOLUTION
    s_data[tid] = sum;
    __syncthreads();

    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            s_data[tid] += s_data[tid + s];
        __syncthreads();
    }

    if (tid == 0)
        d_out[blockIdx.x] = s_data[0];
}

// Idea:  first_add_load with the block size a template parameter: the tree unrolls, no loop.
// Fixes: first_add_load's loop counter, compare and branch around each step.
// Cost:  a barrier per step remains even while only warp 0 works (03_shuffle removes them).
// Run:   build/02_strided --variant unrolled
template <unsigned BLOCK>
static __global__ void reduce_unrolled(const float *__restrict__ d_in, float *__restrict__ d_out,
                                       size_t n)
{
    // 32: one warp, the smallest useful block; 1024: the hardware limit.
    static_assert(BLOCK >= 32 && BLOCK <= 1024 && (BLOCK & (BLOCK - 1)) == 0,
                  "BLOCK must be a power of two from 32 to 1024");
    __shared__ float s_data[BLOCK]; // size known at compile time now

    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * (2 * BLOCK) + tid;

    float sum = (i < n) ? d_in[i] : 0.0f;
    if (i + BLOCK < n)
        sum += d_in[i + BLOCK];
    s_data[tid] = sum;
    __syncthreads();

    // One step per line; a step BLOCK does not need is removed at compile time. Each barrier is
    // outside its `if`: every thread must reach it. From the 32 step on only warp 0 works, yet
    // every step keeps its barrier: since Volta (sm_70) the 32 lanes of a warp are scheduled
    // independently, so lane 0 could read s_data[16] before lane 16 has added into it. The old
    // trick (no barriers there, s_data marked volatile) assumed lanes in lock step; on sm_70 and
    // later it is a race. 03_shuffle shows the fix. No barrier after the last step: thread 0
    // then reads only its own write.
    // BEGIN SOLUTION
    // HINT: one line per step, from 512 down to 1: if (BLOCK >= 2s) { if (tid < s) ...; barrier }
    if (BLOCK >= 1024) { if (tid < 512) s_data[tid] += s_data[tid + 512]; __syncthreads(); }
    if (BLOCK >= 512)  { if (tid < 256) s_data[tid] += s_data[tid + 256]; __syncthreads(); }
    if (BLOCK >= 256)  { if (tid < 128) s_data[tid] += s_data[tid + 128]; __syncthreads(); }
    if (BLOCK >= 128)  { if (tid < 64)  s_data[tid] += s_data[tid + 64];  __syncthreads(); }
    if (BLOCK >= 64)   { if (tid < 32)  s_data[tid] += s_data[tid + 32];  __syncthreads(); }
    if (BLOCK >= 32)   { if (tid < 16)  s_data[tid] += s_data[tid + 16];  __syncthreads(); }
    if (BLOCK >= 16)   { if (tid < 8)   s_data[tid] += s_data[tid + 8];   __syncthreads(); }
    if (BLOCK >= 8)    { if (tid < 4)   s_data[tid] += s_data[tid + 4];   __syncthreads(); }
    if (BLOCK >= 4)    { if (tid < 2)   s_data[tid] += s_data[tid + 2];   __syncthreads(); }
    if (BLOCK >= 2)    { if (tid < 1)   s_data[tid] += s_data[tid + 1]; }
    // END SOLUTION

    if (tid == 0)
        d_out[blockIdx.x] = s_data[0];
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
// shared memory) pass after pass until one value lands in d_out. Returns cudaSuccess or the first
// launch error; never synchronizes. The caller has checked the shape.
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

// One element per thread (strided_index, sequential).
static int supports_sum(size_t rows, size_t cols)
{
    return rows == 1 && cols >= 1 && blocks_for(cols, BLOCK_SIZE) <= MAX_GRID_X;
}

static size_t workspace_sum(size_t rows, size_t cols)
{
    (void)rows;
    return workspace_for(cols, BLOCK_SIZE);
}

// Two elements per thread (first_add_load, unrolled).
static int supports_sum_pairs(size_t rows, size_t cols)
{
    return rows == 1 && cols >= 1 && blocks_for(cols, 2 * BLOCK_SIZE) <= MAX_GRID_X;
}

static size_t workspace_sum_pairs(size_t rows, size_t cols)
{
    (void)rows;
    return workspace_for(cols, 2 * BLOCK_SIZE);
}

// Each launcher returns cudaErrorInvalidValue for a shape its supports() rejects, else what
// run_passes returns.
static cudaError_t launch_strided_index(const void *d_in, void *d_out, size_t rows,
                                        size_t cols, void *d_workspace, cudaStream_t s)
{
    if (!supports_sum(rows, cols))
        return cudaErrorInvalidValue;
    return run_passes(reduce_strided_index, BLOCK_SIZE, BLOCK_SIZE * sizeof(float),
                      (const float *)d_in, (float *)d_out, cols, (float *)d_workspace, s);
}

static cudaError_t launch_sequential(const void *d_in, void *d_out, size_t rows,
                                     size_t cols, void *d_workspace, cudaStream_t s)
{
    if (!supports_sum(rows, cols))
        return cudaErrorInvalidValue;
    return run_passes(reduce_sequential, BLOCK_SIZE, BLOCK_SIZE * sizeof(float),
                      (const float *)d_in, (float *)d_out, cols, (float *)d_workspace, s);
}

static cudaError_t launch_first_add_load(const void *d_in, void *d_out, size_t rows,
                                         size_t cols, void *d_workspace, cudaStream_t s)
{
    if (!supports_sum_pairs(rows, cols))
        return cudaErrorInvalidValue;
    return run_passes(reduce_first_add_load, 2 * BLOCK_SIZE, BLOCK_SIZE * sizeof(float),
                      (const float *)d_in, (float *)d_out, cols, (float *)d_workspace, s);
}

static cudaError_t launch_unrolled(const void *d_in, void *d_out, size_t rows,
                                   size_t cols, void *d_workspace, cudaStream_t s)
{
    if (!supports_sum_pairs(rows, cols))
        return cudaErrorInvalidValue;
    // Static shared memory (s_data[BLOCK]): no dynamic bytes at launch.
    return run_passes(reduce_unrolled<BLOCK_SIZE>, 2 * BLOCK_SIZE, 0,
                      (const float *)d_in, (float *)d_out, cols, (float *)d_workspace, s);
}

// -------------------------------------------------------------------------------------------------
// Variant table

static const variant_t variants[] = {
    { "strided_index", "busy threads contiguous (index = 2*s*tid): idle warps, bank conflicts",
      OP_SUM, DT_F32, DT_F32, supports_sum, workspace_sum, launch_strided_index },
    { "sequential", "upper half added onto lower half (tid < s): conflict-free shared memory",
      OP_SUM, DT_F32, DT_F32, supports_sum, workspace_sum, launch_sequential },
    { "first_add_load", "each thread adds two elements while loading: half the blocks",
      OP_SUM, DT_F32, DT_F32, supports_sum_pairs, workspace_sum_pairs, launch_first_add_load },
    { "unrolled", "block size a template parameter, tree fully unrolled at compile time",
      OP_SUM, DT_F32, DT_F32, supports_sum_pairs, workspace_sum_pairs, launch_unrolled },
};

extern "C" const stage_t stage_02_strided = {
    "02_strided", "Strided and sequential addressing", variants,
    sizeof(variants) / sizeof(variants[0])
};
