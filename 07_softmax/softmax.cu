// SPDX-License-Identifier: MIT
// 07_softmax/softmax.cu: Softmax, one thread per row to OneFlow's paths
//
// Softmax and log-softmax of each row of a row-major [rows, cols] float matrix:
//
//     softmax      y = exp(x - max) / sum(exp(x - max))
//     log-softmax  y = (x - max) - log(sum(exp(x - max)))
//
// Each kernel below is the one before it plus one change; all are plain float. The production
// path (half and bfloat16, 16-byte packs, clusters for long rows, a dispatcher that reads the
// GPU) is tuned/dispatch.cu, the `dispatch` variant. Every variant here exists for softmax and,
// with --op logsoftmax, for log-softmax.
//
//   naive_thread_per_row  one thread per row, three loops over global memory
//   naive_block_3pass     one block per row, three coalesced passes
//   warp_row              one warp per row, the row in registers          (cols <= 1024)
//   block_smem            one block per row, the row in shared memory     (while it fits)
//   block_uncached        one block per row, three passes, re-reads from L2
//   online                one block per row, (max, sum) in one pass, then the write
//   plain_dispatch        picks one of the above by cols
//   dispatch              tuned/dispatch.cu: f32, f16, bf16, any row length, the one to call
//
// Run one:  build/07_softmax --variant warp_row [--op logsoftmax] [--rows R --cols C]
#include <cuda_runtime.h>
#include <math.h>

#include "tuned/tuned.h"
#include "stage.h"

// ------------------------------------------------------------------------------------------------
// Constants
// ------------------------------------------------------------------------------------------------

static constexpr int WARP_SIZE = 32;               // lanes per warp on every NVIDIA GPU
static constexpr unsigned FULL_MASK = 0xffffffffu; // all 32 lanes take part in a shuffle
static constexpr int NAIVE_BLOCK = 256;            // 8 warps: the naive paths' block
static constexpr int ROW_BLOCK = 1024;             // block_uncached, online: the largest block
static constexpr int CHUNK = 256;                  // one thread's sum: partial sums of 256 terms
static constexpr int WARP_ROW_VALUES = 32;         // warp_row: 32 values a lane, 32 registers
static constexpr int WARP_ROW_MAX_COLS = WARP_SIZE * WARP_ROW_VALUES; // 1024
static constexpr int SMEM_BLOCK = 512;            // block_smem: 16 warps per row
static constexpr size_t MAX_GRID_X = 2147483647u; // gridDim.x limit (2^31 - 1)

// ------------------------------------------------------------------------------------------------
// Device helpers: warp and block reductions (the shape of PyTorch's BlockReduceSum)
// ------------------------------------------------------------------------------------------------

// xor butterflies: every lane ends with the warp's max / sum.
static __device__ __forceinline__ float warp_max(float v)
{
    for (int mask = WARP_SIZE / 2; mask > 0; mask /= 2)
        v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, mask));
    return v;
}

static __device__ __forceinline__ float warp_sum(float v)
{
    for (int mask = WARP_SIZE / 2; mask > 0; mask /= 2) v += __shfl_xor_sync(FULL_MASK, v, mask);
    return v;
}

// Every thread of the block gets the block's max / sum: a warp butterfly, one shared slot per
// warp, and every warp reduces the slots. The first barrier lets a block call these back to
// back on the same slots (the previous call's readers are done before anyone writes).
static __device__ __forceinline__ float block_max(float v, float *slots)
{
    const unsigned lane = threadIdx.x % WARP_SIZE, warp = threadIdx.x / WARP_SIZE;
    v = warp_max(v);
    __syncthreads();
    if (lane == 0) slots[warp] = v;
    __syncthreads();
    return warp_max(lane < blockDim.x / WARP_SIZE ? slots[lane] : -INFINITY);
}

static __device__ __forceinline__ float block_sum(float v, float *slots)
{
    const unsigned lane = threadIdx.x % WARP_SIZE, warp = threadIdx.x / WARP_SIZE;
    v = warp_sum(v);
    __syncthreads();
    if (lane == 0) slots[warp] = v;
    __syncthreads();
    return warp_sum(lane < blockDim.x / WARP_SIZE ? slots[lane] : 0.0f);
}

// y of one element once the row's max m and sum s are known (scale: 1/s, or log s).
template <bool LOG>
static __device__ __forceinline__ float softmax_of(float x, float m, float scale)
{
    return LOG ? (x - m) - scale : expf(x - m) * scale;
}

template <bool LOG>
static __device__ __forceinline__ float scale_of(float s)
{
    return LOG ? logf(s) : 1.0f / s; // an all -inf row: s is NaN, so is every output (PyTorch)
}

// ------------------------------------------------------------------------------------------------
// Kernels
// ------------------------------------------------------------------------------------------------

// Idea:  the CPU loop on the GPU: each thread owns a row and walks it three times.
// Fixes: nothing yet: the baseline.
// Cost:  lanes of a warp read addresses cols apart, a 32-byte sector for 4 useful bytes each;
//        one long row is one thread. Run: build/07_softmax --variant naive_thread_per_row
template <bool LOG>
static __global__ void softmax_thread_per_row(const float *__restrict__ d_in,
                                              float *__restrict__ d_out, size_t rows, size_t cols)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t row = blockIdx.x * (size_t)blockDim.x + threadIdx.x; row < rows; row += stride) {
        const float *x = d_in + row * cols;
        float *y = d_out + row * cols;
        float m = -INFINITY;
        // BEGIN SOLUTION
        for (size_t c = 0; c < cols; ++c) m = fmaxf(m, x[c]);
        // END SOLUTION
        // one chain of 65536 adds drifts by ~sqrt(65536) ulps: partial sums keep chains short
        float s = 0.0f;
        for (size_t c0 = 0; c0 < cols; c0 += CHUNK) {
            float part = 0.0f;
            for (size_t c = c0; c < cols && c < c0 + CHUNK; ++c) part += expf(x[c] - m);
            s += part;
        }
        const float scale = scale_of<LOG>(s);
        for (size_t c = 0; c < cols; ++c) y[c] = softmax_of<LOG>(x[c], m, scale);
    }
}

// Idea:  a block per row: thread t takes elements t, t + 256, ...; block reductions.
// Fixes: the uncoalesced reads (a warp now reads 32 neighbours) and one thread per long row.
// Cost:  three passes over global memory, and exp twice per element.
// Run:   build/07_softmax --variant naive_block_3pass
template <bool LOG>
static __global__ void softmax_block_3pass(const float *__restrict__ d_in,
                                           float *__restrict__ d_out, size_t rows, size_t cols)
{
    __shared__ float slots[WARP_SIZE];
    for (size_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const float *x = d_in + row * cols;
        float *y = d_out + row * cols;
        float m = -INFINITY, s = 0.0f;
        for (size_t c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, x[c]);
        m = block_max(m, slots);
        // BEGIN SOLUTION
        for (size_t c = threadIdx.x; c < cols; c += blockDim.x) s += expf(x[c] - m);
        // END SOLUTION
        const float scale = scale_of<LOG>(block_sum(s, slots));
        for (size_t c = threadIdx.x; c < cols; c += blockDim.x)
            y[c] = softmax_of<LOG>(x[c], m, scale);
    }
}

// Idea:  a warp per row, the row read once into 32 registers a lane (lane l: l, l + 32, ...).
// Fixes: the three passes over global memory; shuffles replace shared memory and barriers.
// Cost:  at most 32 x 32 = 1024 columns; shorter rows leave registers and lanes idle.
// Run:   build/07_softmax --variant warp_row
template <bool LOG>
static __global__ void softmax_warp_row(const float *__restrict__ d_in, float *__restrict__ d_out,
                                        size_t rows, size_t cols)
{
    const unsigned lane = threadIdx.x % WARP_SIZE;
    const size_t warps = (size_t)gridDim.x * blockDim.x / WARP_SIZE;
    // the row index is the same in all 32 lanes: the whole warp reaches every shuffle
    for (size_t row = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / WARP_SIZE; row < rows;
         row += warps) {
        const float *x = d_in + row * cols;
        float *y = d_out + row * cols;
        float v[WARP_ROW_VALUES]; // fully unrolled loops: constant indices, so registers
        float m = -INFINITY, s = 0.0f;
#pragma unroll
        for (int i = 0; i < WARP_ROW_VALUES; ++i) {
            const size_t c = lane + (size_t)i * WARP_SIZE;
            v[i] = c < cols ? x[c] : -INFINITY; // padding: no effect on the max, exp gives 0
            m = fmaxf(m, v[i]);
        }
        m = warp_max(m);
#pragma unroll
        for (int i = 0; i < WARP_ROW_VALUES; ++i) {
            const float e = expf(v[i] - m);
            // BEGIN SOLUTION
            s += e;
            // END SOLUTION
            if (!LOG) v[i] = e; // softmax keeps exp for the write; log-softmax keeps x
        }
        const float scale = scale_of<LOG>(warp_sum(s));
#pragma unroll
        for (int i = 0; i < WARP_ROW_VALUES; ++i) {
            const size_t c = lane + (size_t)i * WARP_SIZE;
            if (c < cols) y[c] = LOG ? (v[i] - m) - scale : v[i] * scale;
        }
    }
}

// Idea:  a block per row; pass 1 copies the row into shared memory, passes 2 and 3 read it there.
// Fixes: warp_row's 1024-column limit: the row crosses DRAM once each way at any length that fits.
// Cost:  cols x 4 bytes of shared memory a block (at most 227 KB on sm_90) limit occupancy and
//        the row. Run: build/07_softmax --variant block_smem --cols 8192
template <bool LOG>
static __global__ void softmax_block_smem(const float *__restrict__ d_in, float *__restrict__ d_out,
                                          size_t rows, size_t cols)
{
    extern __shared__ float row_cache[]; // cols floats, sized at launch
    __shared__ float slots[WARP_SIZE];
    for (size_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const float *x = d_in + row * cols;
        float *y = d_out + row * cols;
        float m = -INFINITY, s = 0.0f;
        // a thread reads back only what it wrote: the cache itself needs no barrier
        for (size_t c = threadIdx.x; c < cols; c += blockDim.x) {
            // BEGIN SOLUTION
            row_cache[c] = x[c];
            // END SOLUTION
            m = fmaxf(m, row_cache[c]);
        }
        m = block_max(m, slots);
        for (size_t c = threadIdx.x; c < cols; c += blockDim.x) {
            const float e = expf(row_cache[c] - m);
            s += e;
            if (!LOG) row_cache[c] = e; // softmax keeps exp for the write; log-softmax keeps x
        }
        const float scale = scale_of<LOG>(block_sum(s, slots));
        for (size_t c = threadIdx.x; c < cols; c += blockDim.x)
            y[c] = LOG ? (row_cache[c] - m) - scale : row_cache[c] * scale;
    }
}

// Idea:  one block of 1024 threads per row, online: each thread keeps a running max and a sum
//        taken against it; when the max grows, the sum is rescaled by exp(old - new).
// Fixes: block_uncached's separate max pass: the row is read twice instead of three times.
// Cost:  an extra exp whenever a thread's max grows; where the row fits in registers or shared
//        memory (warp_row, block_smem) it buys nothing. Run: build/07_softmax --variant online
//        --cols 65536
template <bool LOG>
static __global__ void softmax_online(const float *__restrict__ d_in, float *__restrict__ d_out,
                                      size_t rows, size_t cols)
{
    __shared__ float m_slots[WARP_SIZE], s_slots[WARP_SIZE];
    for (size_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const float *x = d_in + row * cols;
        float *y = d_out + row * cols;
        float m = -INFINITY, s = 0.0f;
        for (size_t c = threadIdx.x; c < cols; c += blockDim.x) {
            const float v = x[c];
            if (v > m) {
                // BEGIN SOLUTION
                s *= expf(m - v); // the sum so far, against the new max (exp(-inf) = 0 at first)
                m = v;
                // END SOLUTION
            }
            s += m == -INFINITY ? 0.0f : expf(v - m); // nothing but -inf so far: nothing to add
        }
        // the block's max, then each thread's sum rescaled to it, then the block's sum
        const float row_max = block_max(m, m_slots);
        s = m == -INFINITY ? 0.0f : s * expf(m - row_max);
        const float scale = scale_of<LOG>(block_sum(s, s_slots));
        for (size_t c = threadIdx.x; c < cols; c += blockDim.x)
            y[c] = softmax_of<LOG>(x[c], row_max, scale);
    }
}

// ------------------------------------------------------------------------------------------------
// Launchers
// ------------------------------------------------------------------------------------------------

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

static unsigned grid_of(size_t blocks)
{
    return (unsigned)(blocks < 1 ? 1 : blocks > MAX_GRID_X ? MAX_GRID_X : blocks);
}

static int supports_any(size_t rows, size_t cols) { return rows >= 1 && cols >= 1; }
static int supports_warp_row(size_t rows, size_t cols)
{
    return supports_any(rows, cols) && cols <= WARP_ROW_MAX_COLS;
}
static size_t workspace_none(size_t rows, size_t cols)
{
    (void)rows;
    (void)cols;
    return 0;
}

template <bool LOG>
static cudaError_t launch_thread_per_row(const void *d_in, void *d_out, size_t rows, size_t cols,
                                         void *d_workspace, cudaStream_t s)
{
    (void)d_workspace;
    if (!supports_any(rows, cols)) return cudaErrorInvalidValue;
    softmax_thread_per_row<LOG><<<grid_of(ceil_div(rows, NAIVE_BLOCK)), NAIVE_BLOCK, 0, s>>>(
        (const float *)d_in, (float *)d_out, rows, cols);
    return cudaGetLastError();
}

template <bool LOG>
static cudaError_t launch_block_3pass(const void *d_in, void *d_out, size_t rows, size_t cols,
                                      void *d_workspace, cudaStream_t s)
{
    (void)d_workspace;
    if (!supports_any(rows, cols)) return cudaErrorInvalidValue;
    softmax_block_3pass<LOG>
        <<<grid_of(rows), NAIVE_BLOCK, 0, s>>>((const float *)d_in, (float *)d_out, rows, cols);
    return cudaGetLastError();
}

template <bool LOG>
static cudaError_t launch_warp_row(const void *d_in, void *d_out, size_t rows, size_t cols,
                                   void *d_workspace, cudaStream_t s)
{
    (void)d_workspace;
    if (!supports_warp_row(rows, cols)) return cudaErrorInvalidValue;
    const size_t warps_per_block = NAIVE_BLOCK / WARP_SIZE;
    softmax_warp_row<LOG><<<grid_of(ceil_div(rows, warps_per_block)), NAIVE_BLOCK, 0, s>>>(
        (const float *)d_in, (float *)d_out, rows, cols);
    return cudaGetLastError();
}

// block_smem's shared memory: the row, plus the kernel's static slots. Past 48 KB of the two
// together a kernel must opt in (cudaFuncSetAttribute); the most it may opt in to is the
// device's per-block limit minus the static part. Returns 0 and the bytes to ask for, or 0
// bytes when the row does not fit.
static size_t block_smem_bytes(size_t cols)
{
    static int dev_seen = -1;
    static size_t optin = 0, static_bytes = 0;
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) return 0;
    if (dev != dev_seen) {
        int limit = 0;
        cudaFuncAttributes attr;
        if (cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) !=
                cudaSuccess ||
            cudaFuncGetAttributes(&attr, softmax_block_smem<false>) != cudaSuccess)
            return 0;
        optin = (size_t)limit;
        static_bytes = attr.sharedSizeBytes;
        dev_seen = dev;
    }
    const size_t bytes = cols * sizeof(float);
    return bytes + static_bytes <= optin ? bytes : 0;
}

static int supports_block_smem(size_t rows, size_t cols)
{
    return supports_any(rows, cols) && block_smem_bytes(cols) > 0;
}

template <bool LOG>
static cudaError_t launch_block_smem(const void *d_in, void *d_out, size_t rows, size_t cols,
                                     void *d_workspace, cudaStream_t s)
{
    (void)d_workspace;
    if (!supports_block_smem(rows, cols)) return cudaErrorInvalidValue;
    const size_t bytes = block_smem_bytes(cols);
    static int set_dev = -1;
    static size_t set_bytes = 0; // the opt-in already made for this kernel
    int dev = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err != cudaSuccess) return err;
    if (dev != set_dev || bytes > set_bytes) {
        // always opt in: static + dynamic must stay under the limit the attribute sets, and the
        // default (48 KB) counts the static slots too
        err = cudaFuncSetAttribute(softmax_block_smem<LOG>,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
        if (err != cudaSuccess) return err;
        set_dev = dev;
        set_bytes = bytes;
    }
    softmax_block_smem<LOG>
        <<<grid_of(rows), SMEM_BLOCK, bytes, s>>>((const float *)d_in, (float *)d_out, rows, cols);
    return cudaGetLastError();
}

// block_uncached is naive_block_3pass with 1024 threads and a grid that keeps the rows in flight
// (one per block) within half of L2: the second and third reads of a row then come from L2.
// The row loop inside the kernel takes the rest.
static unsigned l2_grid(size_t rows, size_t cols)
{
    int dev = 0, l2 = 0, sms = 1;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
        return grid_of(rows);
    size_t fit = (size_t)l2 / 2 / (cols * sizeof(float));
    if (fit < (size_t)sms) fit = sms; // at least a block per SM
    return grid_of(rows < fit ? rows : fit);
}

template <bool LOG>
static cudaError_t launch_block_uncached(const void *d_in, void *d_out, size_t rows, size_t cols,
                                         void *d_workspace, cudaStream_t s)
{
    (void)d_workspace;
    if (!supports_any(rows, cols)) return cudaErrorInvalidValue;
    softmax_block_3pass<LOG>
        <<<l2_grid(rows, cols), ROW_BLOCK, 0, s>>>((const float *)d_in, (float *)d_out, rows, cols);
    return cudaGetLastError();
}

template <bool LOG>
static cudaError_t launch_online(const void *d_in, void *d_out, size_t rows, size_t cols,
                                 void *d_workspace, cudaStream_t s)
{
    (void)d_workspace;
    if (!supports_any(rows, cols)) return cudaErrorInvalidValue;
    softmax_online<LOG>
        <<<l2_grid(rows, cols), ROW_BLOCK, 0, s>>>((const float *)d_in, (float *)d_out, rows, cols);
    return cudaGetLastError();
}

// Idea:  OneFlow's DispatchSoftmax in its plainest form: warp_row up to 1024 columns, block_smem
//        while the row fits in shared memory, online beyond.
// Fixes: each path above is slow somewhere between 32 and 65536 columns.
// Cost:  plain kernels: no packs, no half types, no clusters (tuned/dispatch.cu).
// Run:   build/07_softmax --variant plain_dispatch --cols 32,1024,16384,65536
template <bool LOG>
static cudaError_t launch_plain_dispatch(const void *d_in, void *d_out, size_t rows, size_t cols,
                                         void *d_workspace, cudaStream_t s)
{
    if (supports_warp_row(rows, cols))
        return launch_warp_row<LOG>(d_in, d_out, rows, cols, d_workspace, s);
    if (supports_block_smem(rows, cols))
        return launch_block_smem<LOG>(d_in, d_out, rows, cols, d_workspace, s);
    return launch_online<LOG>(d_in, d_out, rows, cols, d_workspace, s);
}

// ------------------------------------------------------------------------------------------------
// Variant table
// ------------------------------------------------------------------------------------------------

// One lesson variant: softmax and log-softmax, float.
#define LESSON(name, idea, supports, launcher)                                              \
    {name, idea, OP_SOFTMAX, DT_F32, DT_F32, supports, workspace_none, launcher<false>},    \
    {                                                                                       \
        name, idea, OP_LOGSOFTMAX, DT_F32, DT_F32, supports, workspace_none, launcher<true> \
    }

static const variant_t variants[] = {
    LESSON("naive_thread_per_row", "one thread per row, three loops over global memory",
           supports_any, launch_thread_per_row),
    LESSON("naive_block_3pass", "one block per row, three coalesced passes, block reductions",
           supports_any, launch_block_3pass),
    LESSON("warp_row", "one warp per row, the row in 32 registers a lane, shuffle reductions",
           supports_warp_row, launch_warp_row),
    LESSON("block_smem", "one block per row, the row cached in shared memory", supports_block_smem,
           launch_block_smem),
    LESSON("block_uncached", "one block of 1024 per row, three passes, rows in flight fit in L2",
           supports_any, launch_block_uncached),
    LESSON("online", "one block per row, running (max, sum) in one pass, then the write",
           supports_any, launch_online),
    LESSON("plain_dispatch", "warp_row to 1024 cols, block_smem while the row fits, else online",
           supports_any, launch_plain_dispatch),
    // the production paths of tuned/ (tuned/tuned.h)
    SOFTMAX_TUNED_VARIANTS
};

#undef LESSON

extern "C" const stage_t stage_07_softmax = {"07_softmax",
                                             "Softmax, one thread per row to OneFlow's paths",
                                             variants, sizeof(variants) / sizeof(variants[0])};
