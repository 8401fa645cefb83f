/* SPDX-License-Identifier: MIT */
/* 01_naive: the textbook shared-memory tree, the first rung of the ladder.
 *
 * Variants (OP_SUM, float in, float out):
 *   interleaved_modulo   tid % (2*s) picks the adding threads   build/01_naive --variant interleaved_modulo
 *
 * A block loads BLOCK_SIZE elements into shared memory and halves them in
 * log2(BLOCK_SIZE) steps; thread 0 writes the block's partial sum. The
 * launcher repeats the kernel on the partial sums until one value is left,
 * all on the device (see README.md for the lesson).
 */
#include <cuda_runtime.h>
#include "stage.h"

/* ------------------------------------------------------------------------- */
/* Constants                                                                  */
/* ------------------------------------------------------------------------- */

/* 256 threads = 8 warps of 32 lanes. A multiple of 32 so no warp is partly
   empty; a power of two so every step of the tree halves it exactly; small
   enough that 8 blocks fill the 2048 thread slots of an SM (sm_80, sm_90),
   large enough that each block's tree does real work. Its shared array is
   256 * 4 bytes = 1 KB, far under the 48 KB a block gets without opting in. */
static constexpr unsigned BLOCK_SIZE = 256;

/* The largest gridDim.x the hardware accepts (2^31 - 1, all GPUs since sm_30). */
static constexpr size_t MAX_GRID_X = 2147483647u;

/* ------------------------------------------------------------------------- */
/* Kernels                                                                    */
/* ------------------------------------------------------------------------- */

/* Idea:  one element per thread into shared memory, then pairs at distance s
          (s = 1, 2, 4, ...) are added by the threads whose tid is a multiple of 2s.
   Fixes: nothing yet: this is the baseline every later stage is measured against.
   Cost:  the adding threads are scattered over every warp (divergence), and
          `%` by a runtime value is a long integer-division sequence.
   Run:   build/01_naive --variant interleaved_modulo */
static __global__ void reduce_interleaved_modulo(const float *d_in, float *d_out, size_t n)
{
    /* Sized by the launcher to blockDim.x floats: the kernel itself works for
       any power-of-two block size. */
    extern __shared__ float s_data[];

    const unsigned tid = threadIdx.x;
    /* size_t before the multiply: blockIdx.x * blockDim.x overflows 32 bits
       once n passes 2^32. */
    const size_t i = (size_t)blockIdx.x * blockDim.x + tid;

    /* Threads past the end load the identity of +, so the tree needs no
       bounds checks and never reads past the input. */
    s_data[tid] = (i < n) ? d_in[i] : 0.0f;
    __syncthreads();

    /* After the step with distance s, s_data[tid] for every multiple of 2s
       holds the sum of its 2s elements. blockDim.x is a runtime value, so
       both the loop and the `%` stay in the machine code as written. */
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            s_data[tid] += s_data[tid + s];
        /* Outside the if: every thread of the block must reach the barrier,
           and the next step reads what this step wrote. */
        __syncthreads();
    }

    if (tid == 0)
        d_out[blockIdx.x] = s_data[0];
}

/* ------------------------------------------------------------------------- */
/* Launchers                                                                  */
/* ------------------------------------------------------------------------- */

/* Blocks needed to cover `count` values with one value per thread. */
static size_t blocks_for(size_t count)
{
    return (count + BLOCK_SIZE - 1) / BLOCK_SIZE;
}

static int supports_sum(size_t rows, size_t cols)
{
    return rows == 1 && cols >= 1 && blocks_for(cols) <= MAX_GRID_X;
}

/* Two ping-pong buffers of partial sums: pass 1 writes the first (one float
   per block of the input), pass 2 the second; every later pass produces fewer
   partials than the pass two before it, so the two buffers suffice. When the
   first pass already ends in one block it writes d_out, and no scratch is needed. */
static size_t workspace_sum(size_t rows, size_t cols)
{
    (void)rows;
    const size_t p1 = blocks_for(cols);
    if (p1 <= 1)
        return 0;
    return (p1 + blocks_for(p1)) * sizeof(float);
}

/* Runs passes of reduce_interleaved_modulo until one value lands in d_out.
   Returns cudaSuccess, cudaErrorInvalidValue for a shape supports() rejects,
   or the first launch error. Never synchronizes. */
static cudaError_t launch_interleaved_modulo(const void *d_in, void *d_out, size_t rows,
                                             size_t cols, void *d_workspace, cudaStream_t s)
{
    if (!supports_sum(rows, cols))
        return cudaErrorInvalidValue;

    float *d_ping = (float *)d_workspace;
    /* Second buffer right after the first; none when the workspace is 0. */
    float *d_pong = d_ping ? d_ping + blocks_for(cols) : nullptr;
    const float *d_src = (const float *)d_in;
    size_t count = cols;

    for (;;) {
        const size_t blocks = blocks_for(count);
        float *d_dst = (blocks == 1) ? (float *)d_out : d_ping;
        reduce_interleaved_modulo<<<(unsigned)blocks, BLOCK_SIZE,
                                    BLOCK_SIZE * sizeof(float), s>>>(d_src, d_dst, count);
        const cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess || blocks == 1)
            return err;
        /* This pass's output is the next one's input; write the other buffer. */
        d_src = d_dst;
        count = blocks;
        d_ping = d_pong;
        d_pong = d_dst;
    }
}

/* ------------------------------------------------------------------------- */
/* Variant table and descriptor                                               */
/* ------------------------------------------------------------------------- */

static const variant_t variants[] = {
    { "interleaved_modulo", "tree where tid % (2*s) == 0 adds: divergent warps, slow modulo",
      OP_SUM, DT_F32, DT_F32, supports_sum, workspace_sum, launch_interleaved_modulo },
};

extern "C" const stage_t stage_01_naive = {
    "01_naive", "Naive shared-memory tree", variants, sizeof(variants) / sizeof(variants[0])
};
