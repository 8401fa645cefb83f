// SPDX-License-Identifier: MIT
// 01_naive/naive.cu: The naive shared-memory tree
//
// A block loads BLOCK_SIZE elements into shared memory and halves them in log2(BLOCK_SIZE)
// steps; thread 0 writes the block's partial sum. The launcher runs pass after pass over the
// partial sums until one value is left, all on the device. README.md has the lesson.
//
// Variants (OP_SUM, float in, float out):
//   interleaved_modulo  tid % (2*s) == 0 threads add  build/01_naive --variant interleaved_modulo
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

// Idea:  threads whose tid is a multiple of 2s add the pair at distance s (s = 1, 2, 4, ...).
// Fixes: nothing yet: the baseline every later stage is measured against.
// Cost:  the adding threads are scattered over every warp, and `%` by a variable is slow.
// Run:   build/01_naive --variant interleaved_modulo
static __global__ void reduce_interleaved_modulo(const float *__restrict__ d_in,
                                                 float *__restrict__ d_out, size_t n)
{
    // Sized by the launcher to blockDim.x floats: the kernel works for any power-of-two block.
    extern __shared__ float s_data[];

    const unsigned tid = threadIdx.x;
    // size_t before the multiply: blockIdx.x * blockDim.x overflows 32 bits past n = 2^32.
    const size_t i = (size_t)blockIdx.x * blockDim.x + tid;

    // Threads past the end load 0, the identity of +: the tree needs no bounds checks.
    s_data[tid] = (i < n) ? d_in[i] : 0.0f;
    __syncthreads();

    // After the step with distance s, s_data[tid] for every multiple of 2s holds the sum of its
    // 2s elements. blockDim.x is a runtime value, so the loop and the `%` stay as written.
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        // BEGIN SOLUTION
        // HINT: the threads whose tid is a multiple of 2*s add the element s places to their right
        if (tid % (2 * s) == 0)
            s_data[tid] += s_data[tid + s];
        // END SOLUTION
        // Outside the if: every thread of the block must reach the barrier, and the next step
        // reads what this step wrote.
        __syncthreads();
    }

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

// One element per thread.
static int supports_sum(size_t rows, size_t cols)
{
    return rows == 1 && cols >= 1 && blocks_for(cols, BLOCK_SIZE) <= MAX_GRID_X;
}

static size_t workspace_sum(size_t rows, size_t cols)
{
    (void)rows;
    return workspace_for(cols, BLOCK_SIZE);
}

// Each launcher returns cudaErrorInvalidValue for a shape its supports() rejects, else what
// run_passes returns.
static cudaError_t launch_interleaved_modulo(const void *d_in, void *d_out, size_t rows,
                                             size_t cols, void *d_workspace, cudaStream_t s)
{
    if (!supports_sum(rows, cols))
        return cudaErrorInvalidValue;
    return run_passes(reduce_interleaved_modulo, BLOCK_SIZE, BLOCK_SIZE * sizeof(float),
                      (const float *)d_in, (float *)d_out, cols, (float *)d_workspace, s);
}

// -------------------------------------------------------------------------------------------------
// Variant table

static const variant_t variants[] = {
    { "interleaved_modulo", "tree where tid % (2*s) == 0 adds: divergent warps, slow modulo",
      OP_SUM, DT_F32, DT_F32, supports_sum, workspace_sum, launch_interleaved_modulo },
};

extern "C" const stage_t stage_01_naive = {
    "01_naive", "The naive shared-memory tree", variants, sizeof(variants) / sizeof(variants[0])
};
