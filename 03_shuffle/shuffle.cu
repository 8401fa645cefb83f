/* SPDX-License-Identifier: MIT */
/* shuffle.cu: stage 03, the reduction tree moves from shared memory into registers.
 *
 * Variants (each line: what it does, and the command that runs it alone):
 *   last_warp_shuffle  shared tree down to 64 partials, the last warp finishes with shuffles
 *                      build/03_shuffle --variant last_warp_shuffle
 *   shuffle_down_tree  every warp reduces in registers, one shared slot per warp, warp 0 finishes
 *                      build/03_shuffle --variant shuffle_down_tree
 *   shuffle_xor_tree   the same with a __shfl_xor_sync butterfly: every lane ends with the total
 *                      build/03_shuffle --variant shuffle_xor_tree
 *   warp_per_row       row sums: one warp per row, lanes stride over the columns, shuffle reduce
 *                      build/03_shuffle --rows 4096 --cols 4096 --variant warp_per_row
 *
 * The full sums run pass after pass on the device (input -> partials -> ... -> one float in
 * d_out); the workspace holds two ping-pong arrays of per-block partials.
 */
#include "stage.h"

#include <cuda_runtime.h>

/* ------------------------------------------------------------------------------------------ */
/* Constants                                                                                  */
/* ------------------------------------------------------------------------------------------ */

/* A warp is 32 lanes on every NVIDIA GPU so far; shuffle offsets 16, 8, 4, 2, 1 come from it. */
static constexpr int WARP_SIZE = 32;
/* Every lane of the warp takes part in each shuffle below. */
static constexpr unsigned FULL_MASK = 0xffffffffu;
/* 256 threads = 8 warps: small enough that several blocks fit on one SM (2048 threads per SM
   on sm_80/sm_90), large enough that each block's tree amortises its start-up. */
static constexpr int BLOCK_SIZE = 256;
/* First add during the load (stage 02): each thread starts from two input elements. */
static constexpr int ELEMS_PER_THREAD = 2;
static constexpr size_t ELEMS_PER_BLOCK = (size_t)BLOCK_SIZE * ELEMS_PER_THREAD;
/* gridDim.x may be at most 2^31 - 1 (compute capability 3.0 and later). */
static constexpr size_t MAX_GRID_X = 2147483647u;

/* ------------------------------------------------------------------------------------------ */
/* Device helpers                                                                             */
/* ------------------------------------------------------------------------------------------ */

/* Sum of v over the 32 lanes, valid in lane 0 only. Each step lane i adds the value of lane
   i + offset; lanes whose partner would be past lane 31 get their own value back, so the upper
   lanes end with junk that nobody reads. The shuffle is a register-to-register exchange with
   the synchronisation built in: every lane named in the mask must reach the same call. */
static __device__ __forceinline__ float warp_reduce_sum_down(float v)
{
#pragma unroll
    for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

/* Sum of v over the 32 lanes, valid in EVERY lane (an all-reduce). Lane i pairs with lane
   i ^ offset; both add the same two numbers, so after five steps all 32 lanes hold the total. */
static __device__ __forceinline__ float warp_reduce_sum_xor(float v)
{
#pragma unroll
    for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2)
        v += __shfl_xor_sync(FULL_MASK, v, offset);
    return v;
}

/* Stage 02's first add during the load: elements i and i + BLOCK_SIZE of this block's
   2 * BLOCK_SIZE slice, with 0 (the identity of +) for anything past the end. */
static __device__ __forceinline__ float load_two(const float *in, size_t n)
{
    const size_t i = (size_t)blockIdx.x * ELEMS_PER_BLOCK + threadIdx.x;
    float v = (i < n) ? in[i] : 0.0f;
    if (i + BLOCK_SIZE < n)
        v += in[i + BLOCK_SIZE];
    return v;
}

/* ------------------------------------------------------------------------------------------ */
/* Kernels                                                                                    */
/* ------------------------------------------------------------------------------------------ */

/* Idea: shared tree (sequential addressing) down to 64 partials, then warp 0 uses shuffles.
   Fixes: stage 02's last six levels, each a __syncthreads for 32 or fewer working threads.
   Cost: three block barriers remain (store, 128, 64) and a shared round trip per level.
   Run: build/03_shuffle --variant last_warp_shuffle */
static __global__ void __launch_bounds__(BLOCK_SIZE)
reduce_last_warp_shuffle(const float *in, float *out, size_t n)
{
    __shared__ float s_data[BLOCK_SIZE];
    const int tid = threadIdx.x;

    s_data[tid] = load_two(in, n);
    __syncthreads();

    /* Sequential addressing (stage 02): thread t adds t + s, conflict-free; stop at 64 left. */
#pragma unroll
    for (int s = BLOCK_SIZE / 2; s > WARP_SIZE; s /= 2) {
        if (tid < s)
            s_data[tid] += s_data[tid + s];
        __syncthreads();
    }

    /* 64 partials remain; warp 0 takes two each and finishes without touching shared memory.
       Only whole warp 0 enters the branch, so the full mask is honest. */
    if (tid < WARP_SIZE) {
        float v = s_data[tid] + s_data[tid + WARP_SIZE];
        v = warp_reduce_sum_down(v);
        if (tid == 0)
            out[blockIdx.x] = v;
    }
}

/* Idea: the whole block tree in registers: warp shuffle, one shared slot per warp, warp shuffle.
   Fixes: last_warp_shuffle's 256 -> 64 walk through shared memory, a barrier per level.
   Cost: one __syncthreads; each thread still starts from only two elements (stage 04).
   Run: build/03_shuffle --variant shuffle_down_tree */
static __global__ void __launch_bounds__(BLOCK_SIZE)
reduce_shuffle_down_tree(const float *in, float *out, size_t n)
{
    /* One slot per warp: at most 1024 threads / 32 lanes = 32 slots, here 8. */
    __shared__ float s_warp_sums[BLOCK_SIZE / WARP_SIZE];
    const int lane = threadIdx.x % WARP_SIZE;
    const int warp = threadIdx.x / WARP_SIZE;

    /* Every thread reaches the shuffles, past-the-end ones carrying 0: no early return, since
       a lane that left would break the full mask. */
    float v = warp_reduce_sum_down(load_two(in, n));
    if (lane == 0)
        s_warp_sums[warp] = v;
    __syncthreads();

    if (warp == 0) {
        v = (lane < BLOCK_SIZE / WARP_SIZE) ? s_warp_sums[lane] : 0.0f;
        v = warp_reduce_sum_down(v);
        if (lane == 0)
            out[blockIdx.x] = v;
    }
}

/* Idea: shuffle_down_tree with a __shfl_xor_sync butterfly, so every lane holds the total.
   Fixes: nothing for a sum; it is the all-reduce softmax needs (row max in every lane).
   Cost: as shuffle_down_tree (five shuffles per level either way).
   Run: build/03_shuffle --variant shuffle_xor_tree */
static __global__ void __launch_bounds__(BLOCK_SIZE)
reduce_shuffle_xor_tree(const float *in, float *out, size_t n)
{
    __shared__ float s_warp_sums[BLOCK_SIZE / WARP_SIZE];
    const int lane = threadIdx.x % WARP_SIZE;
    const int warp = threadIdx.x / WARP_SIZE;

    /* After the butterfly any lane could store the warp's sum; lane 0 does, by convention. */
    float v = warp_reduce_sum_xor(load_two(in, n));
    if (lane == 0)
        s_warp_sums[warp] = v;
    __syncthreads();

    if (warp == 0) {
        v = (lane < BLOCK_SIZE / WARP_SIZE) ? s_warp_sums[lane] : 0.0f;
        v = warp_reduce_sum_xor(v);
        if (lane == 0)
            out[blockIdx.x] = v;
    }
}

/* Idea: row sums, one warp per row; lane l adds cols l, l + 32, ... (128-byte coalesced loads).
   Fixes: (first row sum) no shared memory and no __syncthreads: a row never leaves its warp.
   Cost: a long row gets only 32 threads (cols / 32 adds each); cols = 1 idles 31 lanes.
   Run: build/03_shuffle --rows 4096 --cols 4096 --variant warp_per_row */
static __global__ void __launch_bounds__(BLOCK_SIZE)
rowsum_warp_per_row(const float *in, float *out, size_t rows, size_t cols)
{
    const int lane = threadIdx.x % WARP_SIZE;
    const size_t warps_per_block = BLOCK_SIZE / WARP_SIZE;
    const size_t first_row = (size_t)blockIdx.x * warps_per_block + threadIdx.x / WARP_SIZE;
    const size_t row_stride = (size_t)gridDim.x * warps_per_block;

    /* The row index is the same for all 32 lanes, so the whole warp runs the same number of
       iterations and arrives at the shuffle together. Looping covers more rows than the grid. */
    for (size_t row = first_row; row < rows; row += row_stride) {
        const float *in_row = in + row * cols;
        float v = 0.0f;
        for (size_t c = lane; c < cols; c += WARP_SIZE)
            v += in_row[c];
        v = warp_reduce_sum_down(v);
        if (lane == 0)
            out[row] = v;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Launchers                                                                                  */
/* ------------------------------------------------------------------------------------------ */

typedef void (*sum_kernel_t)(const float *, float *, size_t);

/* Blocks one pass needs for n inputs: each block consumes 2 * BLOCK_SIZE of them. */
static size_t blocks_for(size_t n)
{
    return (n + ELEMS_PER_BLOCK - 1) / ELEMS_PER_BLOCK;
}

static int supports_sum(size_t rows, size_t cols)
{
    return rows == 1 && cols >= 1 && blocks_for(cols) <= MAX_GRID_X;
}

static int supports_rowsum(size_t rows, size_t cols)
{
    return rows >= 1 && cols >= 1;
}

/* Two ping-pong arrays: the first holds pass 1's partials, the second pass 2's; later passes
   alternate between them and are smaller still, so they fit. */
static size_t workspace_sum(size_t rows, size_t cols)
{
    (void)rows;
    const size_t first = blocks_for(cols);
    if (first <= 1)
        return 0;
    return (first + blocks_for(first)) * sizeof(float);
}

static size_t workspace_none(size_t rows, size_t cols)
{
    (void)rows;
    (void)cols;
    return 0;
}

/* Runs `kernel` pass after pass on stream s until one value lands in d_out. Each pass divides
   the count by 2 * BLOCK_SIZE = 512, so 2^28 inputs take four passes (2^19, 2^10, 2, 1 partials).
   Returns the first launch error, or cudaGetLastError() after the last pass. */
static cudaError_t launch_multipass(sum_kernel_t kernel, const void *d_in, void *d_out,
                                    size_t n, void *d_workspace, cudaStream_t s)
{
    float *d_ping = (float *)d_workspace; /* NULL when one pass suffices: never used then */
    float *d_pong = d_ping ? d_ping + blocks_for(n) : nullptr;
    const float *d_src = (const float *)d_in;
    int use_pong = 0;

    for (;;) {
        const size_t blocks = blocks_for(n);
        float *d_dst = (blocks == 1) ? (float *)d_out : (use_pong ? d_pong : d_ping);
        kernel<<<(unsigned)blocks, BLOCK_SIZE, 0, s>>>(d_src, d_dst, n);
        const cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess || blocks == 1)
            return err;
        d_src = d_dst;
        n = blocks;
        use_pong = !use_pong;
    }
}

static cudaError_t launch_last_warp_shuffle(const void *d_in, void *d_out, size_t rows,
                                            size_t cols, void *d_workspace, cudaStream_t s)
{
    (void)rows;
    return launch_multipass(reduce_last_warp_shuffle, d_in, d_out, cols, d_workspace, s);
}

static cudaError_t launch_shuffle_down_tree(const void *d_in, void *d_out, size_t rows,
                                            size_t cols, void *d_workspace, cudaStream_t s)
{
    (void)rows;
    return launch_multipass(reduce_shuffle_down_tree, d_in, d_out, cols, d_workspace, s);
}

static cudaError_t launch_shuffle_xor_tree(const void *d_in, void *d_out, size_t rows,
                                           size_t cols, void *d_workspace, cudaStream_t s)
{
    (void)rows;
    return launch_multipass(reduce_shuffle_xor_tree, d_in, d_out, cols, d_workspace, s);
}

/* Enough blocks for one warp per row, capped at the gridDim.x limit; the kernel's row loop
   covers the rest (rows may be 2^26 with cols = 1). */
static cudaError_t launch_warp_per_row(const void *d_in, void *d_out, size_t rows, size_t cols,
                                       void *d_workspace, cudaStream_t s)
{
    (void)d_workspace;
    const size_t warps_per_block = BLOCK_SIZE / WARP_SIZE;
    size_t blocks = (rows + warps_per_block - 1) / warps_per_block;
    if (blocks > MAX_GRID_X)
        blocks = MAX_GRID_X;
    rowsum_warp_per_row<<<(unsigned)blocks, BLOCK_SIZE, 0, s>>>((const float *)d_in,
                                                               (float *)d_out, rows, cols);
    return cudaGetLastError();
}

/* ------------------------------------------------------------------------------------------ */
/* Variant table and descriptor                                                               */
/* ------------------------------------------------------------------------------------------ */

static const variant_t variants[] = {
    { "last_warp_shuffle",
      "shared tree to 64 partials, last warp finishes with __shfl_down_sync",
      OP_SUM, DT_F32, DT_F32, supports_sum, workspace_sum, launch_last_warp_shuffle },
    { "shuffle_down_tree",
      "warp shuffle, one shared slot per warp, one __syncthreads, warp shuffle",
      OP_SUM, DT_F32, DT_F32, supports_sum, workspace_sum, launch_shuffle_down_tree },
    { "shuffle_xor_tree",
      "as shuffle_down_tree with a __shfl_xor_sync butterfly (all lanes get the sum)",
      OP_SUM, DT_F32, DT_F32, supports_sum, workspace_sum, launch_shuffle_xor_tree },
    { "warp_per_row",
      "row sums: one warp per row, lanes stride over cols, shuffle reduce",
      OP_ROWSUM, DT_F32, DT_F32, supports_rowsum, workspace_none, launch_warp_per_row },
};

extern "C" const stage_t stage_03_shuffle = {
    "03_shuffle", "Warp shuffle", variants, sizeof(variants) / sizeof(variants[0])
};
