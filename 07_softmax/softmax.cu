// SPDX-License-Identifier: MIT
// 07_softmax/softmax.cu: Softmax, one thread per row to OneFlow's three paths
//
// Softmax and log-softmax of each row of a row-major [rows, cols] float matrix:
//
//     softmax      y = exp(x - max) / sum(exp(x - max))
//     log-softmax  y = (x - max) - log(sum(exp(x - max)))
//
// While a row's max and sum are found, where does the row wait? In registers, in shared memory,
// or nowhere (it is read again). OneFlow's softmax (oneflow/core/cuda/softmax.cuh) has one kernel
// for each answer and picks by cols; the kernels below build up to them, each the one before plus
// one change. Where this file departs from OneFlow, a comment says "Not OneFlow's" (README.md
// lists them). Not OneFlow's: float in, float out, float arithmetic; OneFlow templates every
// kernel on the element type and a compute type (float for half). The 16-bit paths are tuned/'s.
//
//   naive_thread_per_row  one thread per row, three loops over global memory
//   naive_block_3pass     one block per row, three coalesced passes
//   block_uncached        OneFlow's uncached path: packs, blocks of 1024, 32 waves, three passes
//   block_smem            OneFlow's shared-memory path: the row in shared memory, occupancy
//   warp_row              OneFlow's warp path: a group of 1-32 lanes a row, the row in registers
//   plain_dispatch        OneFlow's dispatch: warp_row, else block_smem, else block_uncached
//   online                not OneFlow's: block_uncached with the max and the sum in one pass
//   dispatch              tuned/: f32, f16, bf16, any row length, the one to call
//
// Run one:  build/07_softmax --variant warp_row [--op logsoftmax] [--rows R --cols C]
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "tuned/tuned.h"
#include "stage.h"

// ------------------------------------------------------------------------------------------------
// Constants
// ------------------------------------------------------------------------------------------------

static constexpr int WARP_SIZE = 32;               // lanes per warp on every NVIDIA GPU
static constexpr unsigned FULL_MASK = 0xffffffffu; // all 32 lanes take part in a shuffle
static constexpr int NAIVE_BLOCK = 256;            // the naive paths: 8 warps a block
static constexpr int CHUNK = 256;                  // naive_thread_per_row: partial sums of 256
static constexpr size_t MAX_GRID_X = 2147483647u;  // gridDim.x limit (2^31 - 1)

// OneFlow's numbers (softmax.cuh).
static constexpr int PACK = 2;            // floats one load moves when cols is even: 8 bytes
static constexpr int MAX_PER_LANE = 32;   // warp path: at most 32 values a lane in registers,
static constexpr int WARP_PATH_MAX_COLS = WARP_SIZE * MAX_PER_LANE; // so rows up to 1024
static constexpr int WARP_PATH_BLOCK = 128;   // warp path: blocks of 128 threads
static constexpr int UNCACHED_BLOCK = 1024;   // uncached path: blocks of 1024 threads
static constexpr int SMEM_BLOCK_MIN = 128;    // shared-memory path: blocks of 128 threads,
static constexpr int SMEM_BLOCK_MAX = 1024;   // or up to 1024 where that costs no blocks an SM
static constexpr int WAVES = 32;              // a grid of at most 32 waves; its blocks loop

static_assert(PACK * sizeof(float) <= 16 && (PACK & (PACK - 1)) == 0 && MAX_PER_LANE % PACK == 0,
              "a pack is one load of at most 16 bytes, and whole packs fill a lane");

// ------------------------------------------------------------------------------------------------
// Device helpers
// ------------------------------------------------------------------------------------------------

enum combine { MAX_OF, SUM_OF };

// The max or the sum of v over a group of WIDTH lanes (a power of two <= 32, groups aligned in
// the warp): xor butterflies, so every lane of the group ends with the result and lanes of other
// groups never mix in. OneFlow's WarpAllReduce. Every lane of the warp must reach the call.
template <combine OP, int WIDTH = WARP_SIZE>
static __device__ __forceinline__ float group_reduce(float v)
{
#pragma unroll
    for (int mask = WIDTH / 2; mask > 0; mask /= 2) {
        const float other = __shfl_xor_sync(FULL_MASK, v, mask);
        v = OP == MAX_OF ? fmaxf(v, other) : v + other;
    }
    return v;
}

// Every thread of the block gets the block's max / sum: a warp butterfly, one shared slot per
// warp, every warp reduces the slots (04_block_reduce's two levels). The first barrier lets a
// block call it back to back on the same slots. Not OneFlow's: its BlockAllReduce is
// cub::BlockReduce, then one shared slot that broadcasts the result.
template <combine OP>
static __device__ __forceinline__ float block_reduce(float v, float *slots)
{
    const unsigned lane = threadIdx.x % WARP_SIZE, warp = threadIdx.x / WARP_SIZE;
    v = group_reduce<OP>(v);
    __syncthreads();
    if (lane == 0) slots[warp] = v;
    __syncthreads();
    const float none = OP == MAX_OF ? -INFINITY : 0.0f;
    return group_reduce<OP>(lane < blockDim.x / WARP_SIZE ? slots[lane] : none);
}

// The write of one element once the row's max m and sum s are known: exp(x - m) / s, or
// (x - m) - log s. scale_of(s) is the part that depends on s alone; finish() takes what a cached
// path kept, exp(x - m) or x - m. A row of all -inf has m = -inf, so x - m and every y are NaN,
// as in PyTorch. OneFlow divides by the sum, as here.
template <bool LOG>
static __device__ __forceinline__ float scale_of(float s) { return LOG ? logf(s) : s; }
template <bool LOG>
static __device__ __forceinline__ float finish(float kept, float scale)
{
    return LOG ? kept - scale : kept / scale;
}
template <bool LOG>
static __device__ __forceinline__ float softmax_of(float x, float m, float scale)
{
    return finish<LOG>(LOG ? x - m : expf(x - m), scale);
}

// N floats that one instruction moves: alignas lets the compiler emit one 8- or 16-byte access,
// which must start on a multiple of its size. OneFlow's Pack (a union over aligned storage).
template <int N>
struct alignas(N * sizeof(float)) pack_t {
    float v[N];
};

template <int N>
static __device__ __forceinline__ void load_pack(float *dst, const float *src)
{
    const pack_t<N> p = *reinterpret_cast<const pack_t<N> *>(src);
#pragma unroll
    for (int i = 0; i < N; ++i) dst[i] = p.v[i];
}

template <int N>
static __device__ __forceinline__ void store_pack(float *dst, const float *src)
{
    pack_t<N> p;
#pragma unroll
    for (int i = 0; i < N; ++i) p.v[i] = src[i];
    *reinterpret_cast<pack_t<N> *>(dst) = p;
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
// Cost:  three passes over global memory, one 4-byte load in flight a thread, a block a row.
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
        m = block_reduce<MAX_OF>(m, slots);
        // BEGIN SOLUTION
        for (size_t c = threadIdx.x; c < cols; c += blockDim.x) s += expf(x[c] - m);
        // END SOLUTION
        const float scale = scale_of<LOG>(block_reduce<SUM_OF>(s, slots));
        for (size_t c = threadIdx.x; c < cols; c += blockDim.x)
            y[c] = softmax_of<LOG>(x[c], m, scale);
    }
}

// Idea:  naive_block_3pass as OneFlow writes it (SoftmaxBlockUncachedImpl): loads of P floats,
//        blocks of 1024, at most 32 waves of blocks that loop over the rows (the launcher).
// Fixes: one 4-byte load in flight a thread (a pack of 2 moves 8), and a launch of a block a row.
// Cost:  still three reads of every row: the second and third come from L2 only while the rows
//        in flight fit there. Run: build/07_softmax --variant block_uncached --cols 65536
template <bool LOG, int P>
static __global__ void __launch_bounds__(UNCACHED_BLOCK)
    softmax_block_uncached(const float *__restrict__ d_in, float *__restrict__ d_out, size_t rows,
                           size_t cols)
{
    __shared__ float slots[WARP_SIZE];
    const size_t packs = cols / P; // the launcher picks P to divide cols
    for (size_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const float *x = d_in + row * cols;
        float *y = d_out + row * cols;
        float v[P], m = -INFINITY, s = 0.0f;
        for (size_t p = threadIdx.x; p < packs; p += blockDim.x) {
            load_pack<P>(v, x + p * P);
#pragma unroll
            for (int i = 0; i < P; ++i) m = fmaxf(m, v[i]);
        }
        m = block_reduce<MAX_OF>(m, slots);
        for (size_t p = threadIdx.x; p < packs; p += blockDim.x) {
            load_pack<P>(v, x + p * P);
            // BEGIN SOLUTION
#pragma unroll
            for (int i = 0; i < P; ++i) s += expf(v[i] - m);
            // END SOLUTION
        }
        const float scale = scale_of<LOG>(block_reduce<SUM_OF>(s, slots));
        for (size_t p = threadIdx.x; p < packs; p += blockDim.x) {
            load_pack<P>(v, x + p * P);
#pragma unroll
            for (int i = 0; i < P; ++i) v[i] = softmax_of<LOG>(v[i], m, scale);
            store_pack<P>(y + p * P, v);
        }
    }
}

// Idea:  block_uncached with the row kept in shared memory: pass 1 copies it there, passes 2 and
//        3 read it there (SoftmaxBlockSMemImpl). The launcher sizes the block by occupancy.
// Fixes: the second and third reads of every row from L2 or DRAM.
// Cost:  cols x 4 bytes of shared memory a block: the row must fit (227 KB at most on sm_90), and
//        long rows leave few blocks an SM. Run: build/07_softmax --variant block_smem --cols 8192
template <bool LOG, int P>
static __global__ void __launch_bounds__(SMEM_BLOCK_MAX)
    softmax_block_smem(const float *__restrict__ d_in, float *__restrict__ d_out, size_t rows,
                       size_t cols)
{
    extern __shared__ float row_cache[]; // cols floats, sized at launch
    __shared__ float slots[WARP_SIZE];
    const size_t packs = cols / P;
    for (size_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const float *x = d_in + row * cols;
        float *y = d_out + row * cols;
        float v[P], m = -INFINITY, s = 0.0f;
        // element i of pack p goes to i * packs + p (OneFlow's layout): neighbouring threads
        // store neighbouring words, 32 banks for 32 lanes, where p * P + i would conflict
        for (size_t p = threadIdx.x; p < packs; p += blockDim.x) {
            load_pack<P>(v, x + p * P);
#pragma unroll
            for (int i = 0; i < P; ++i) {
                // BEGIN SOLUTION
                row_cache[i * packs + p] = v[i];
                // END SOLUTION
                m = fmaxf(m, v[i]);
            }
        }
        // block_reduce's barriers also order pass 1's stores before other threads' reads
        m = block_reduce<MAX_OF>(m, slots);
        for (size_t c = threadIdx.x; c < cols; c += blockDim.x) {
            const float t = row_cache[c] - m, e = expf(t);
            row_cache[c] = LOG ? t : e; // what the write needs: x - m, or exp(x - m)
            s += e;
        }
        const float scale = scale_of<LOG>(block_reduce<SUM_OF>(s, slots));
        for (size_t p = threadIdx.x; p < packs; p += blockDim.x) {
#pragma unroll
            for (int i = 0; i < P; ++i) v[i] = finish<LOG>(row_cache[i * packs + p], scale);
            store_pack<P>(y + p * P, v);
        }
    }
}

// Idea:  a thread group of WIDTH lanes per row, ROWS rows a group; each lane keeps PER_LANE values
//        of each row in registers, loaded in packs of P (SoftmaxWarpImpl). Lane l of a group
//        takes packs l, l + WIDTH, ... of its row; slots past cols hold -inf (padding).
// Fixes: block_smem's shared memory and barriers for rows up to 1024: max and sum are shuffles
//        in the group, and a short row gets a group as narrow as itself, so no lane idles.
// Cost:  rows of at most 32 x 32; one kernel per (P, PER_LANE, WIDTH, ROWS), 70 for each op.
// Run:   build/07_softmax --variant warp_row --cols 32,1024
template <bool LOG, int P, int PER_LANE, int WIDTH, int ROWS>
static __global__ void softmax_warp(const float *__restrict__ d_in, float *__restrict__ d_out,
                                    size_t rows, size_t cols)
{
    static_assert(PER_LANE % P == 0 && WARP_SIZE % WIDTH == 0, "whole packs, whole groups");
    constexpr int PACKS = PER_LANE / P, GROUPS_PER_WARP = WARP_SIZE / WIDTH;
    const unsigned lane = threadIdx.x; // the block is (WIDTH, groups): x is the lane in the group
    const size_t group = blockIdx.x * (size_t)blockDim.y + threadIdx.y;
    const size_t groups = (size_t)gridDim.x * blockDim.y;
    // Not OneFlow's: there each group leaves the row loop on its own, while the shuffles of the
    // groups still in it name every lane, and every lane a mask names must reach the shuffle
    // unless it has exited (Programming Guide). Here the warp's first group decides, so the
    // whole warp runs every shuffle; a group past the last row loads and stores nothing.
    const size_t warp_first = group - threadIdx.y % GROUPS_PER_WARP;
    float buf[ROWS][PER_LANE]; // unrolled loops, constant indices: registers
    for (size_t first = warp_first * ROWS; first < rows; first += groups * ROWS) {
        const size_t row0 = first + (group - warp_first) * ROWS; // ROWS divides rows
        float m[ROWS], s[ROWS];
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            m[r] = -INFINITY;
#pragma unroll
            for (int p = 0; p < PACKS; ++p) {
                // Not OneFlow's: it compiles a twin without this bound test for rows that fill
                // the group exactly; here the test stays, a compare a pack, half the instances
                const size_t col = ((size_t)p * WIDTH + lane) * P; // a group reads WIDTH packs
                if (row0 < rows && col < cols) {
                    load_pack<P>(&buf[r][p * P], d_in + (row0 + r) * cols + col);
#pragma unroll
                    for (int i = 0; i < P; ++i) m[r] = fmaxf(m[r], buf[r][p * P + i]);
                } else {
#pragma unroll
                    for (int i = 0; i < P; ++i) buf[r][p * P + i] = -INFINITY; // exp gives 0
                }
            }
        }
#pragma unroll
        for (int r = 0; r < ROWS; ++r) m[r] = group_reduce<MAX_OF, WIDTH>(m[r]);
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            s[r] = 0.0f;
#pragma unroll
            for (int i = 0; i < PER_LANE; ++i) {
                const float t = buf[r][i] - m[r], e = expf(t);
                buf[r][i] = LOG ? t : e; // what the write needs: x - m, or exp(x - m)
                // BEGIN SOLUTION
                s[r] += e;
                // END SOLUTION
            }
        }
#pragma unroll
        for (int r = 0; r < ROWS; ++r) s[r] = scale_of<LOG>(group_reduce<SUM_OF, WIDTH>(s[r]));
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
#pragma unroll
            for (int p = 0; p < PACKS; ++p) {
                const size_t col = ((size_t)p * WIDTH + lane) * P;
                if (row0 < rows && col < cols) {
                    float v[P];
#pragma unroll
                    for (int i = 0; i < P; ++i) v[i] = finish<LOG>(buf[r][p * P + i], s[r]);
                    store_pack<P>(d_out + (row0 + r) * cols + col, v);
                }
            }
        }
    }
}

// Idea:  Not OneFlow's: block_uncached with the max and the sum in one pass; each thread keeps a
//        running max and a sum taken against it, rescaled by exp(old - new) when the max grows.
// Fixes: block_uncached's separate max pass: a row is read twice instead of three times.
// Cost:  an exp more whenever a max grows (Milakov and Gimelshein's online softmax).
// Run:   build/07_softmax --variant online --cols 65536
template <bool LOG, int P>
static __global__ void __launch_bounds__(UNCACHED_BLOCK)
    softmax_online(const float *__restrict__ d_in, float *__restrict__ d_out, size_t rows,
                   size_t cols)
{
    __shared__ float slots[WARP_SIZE];
    const size_t packs = cols / P;
    for (size_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const float *x = d_in + row * cols;
        float *y = d_out + row * cols;
        float v[P], m = -INFINITY, s = 0.0f;
        for (size_t p = threadIdx.x; p < packs; p += blockDim.x) {
            load_pack<P>(v, x + p * P);
            float pack_max = v[0];
#pragma unroll
            for (int i = 1; i < P; ++i) pack_max = fmaxf(pack_max, v[i]);
            if (pack_max > m) {
                // BEGIN SOLUTION
                s *= expf(m - pack_max); // the sum so far, against the new max (0 at first)
                m = pack_max;
                // END SOLUTION
            }
            if (m != -INFINITY) { // nothing but -inf so far: nothing to add
#pragma unroll
                for (int i = 0; i < P; ++i) s += expf(v[i] - m);
            }
        }
        // the block's max, then each thread's sum rescaled to it, then the block's sum
        const float row_max = block_reduce<MAX_OF>(m, slots);
        s = m == -INFINITY ? 0.0f : s * expf(m - row_max);
        const float scale = scale_of<LOG>(block_reduce<SUM_OF>(s, slots));
        for (size_t p = threadIdx.x; p < packs; p += blockDim.x) {
            load_pack<P>(v, x + p * P);
#pragma unroll
            for (int i = 0; i < P; ++i) v[i] = softmax_of<LOG>(v[i], row_max, scale);
            store_pack<P>(y + p * P, v);
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Launchers: float pointers, a shape that supports() accepts, the stream; return the launch error
// ------------------------------------------------------------------------------------------------

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

static unsigned grid_of(size_t blocks)
{
    return (unsigned)(blocks < 1 ? 1 : blocks > MAX_GRID_X ? MAX_GRID_X : blocks);
}

// OneFlow's GetNumBlocks: a block per work item, but at most WAVES waves, a wave being the blocks
// whose threads fill every SM once (SMs x threads an SM / block); the blocks loop over the rest.
static cudaError_t waves_grid(int block, size_t blocks, unsigned *grid)
{
    int dev = 0, sms = 0, per_sm = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err == cudaSuccess) err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev);
    const size_t most = (size_t)sms * per_sm / block * WAVES;
    *grid = grid_of(blocks < most ? blocks : most);
    return err;
}

// Packs of PACK floats where cols is a multiple of PACK and both pointers start on a multiple of
// the pack's bytes (then every row does); else loads of one float. Not OneFlow's: its softmax
// picks the pack from cols alone (its tensors start aligned); the pointer test is the
// IsAlignedForPack of OneFlow's elementwise.cuh, which also falls back to packs of one.
static bool can_pack(const float *d_in, const float *d_out, size_t cols)
{
    const uintptr_t bytes = PACK * sizeof(float);
    return cols % PACK == 0 && (uintptr_t)d_in % bytes == 0 && (uintptr_t)d_out % bytes == 0;
}

template <bool LOG>
static cudaError_t run_thread_per_row(const float *x, float *y, size_t rows, size_t cols,
                                      cudaStream_t s)
{
    const unsigned grid = grid_of(ceil_div(rows, NAIVE_BLOCK));
    softmax_thread_per_row<LOG><<<grid, NAIVE_BLOCK, 0, s>>>(x, y, rows, cols);
    return cudaGetLastError();
}

template <bool LOG>
static cudaError_t run_block_3pass(const float *x, float *y, size_t rows, size_t cols,
                                   cudaStream_t s)
{
    softmax_block_3pass<LOG><<<grid_of(rows), NAIVE_BLOCK, 0, s>>>(x, y, rows, cols);
    return cudaGetLastError();
}

// block_uncached and online: OneFlow's LaunchSoftmaxBlockUncachedImpl, blocks of 1024 threads,
// a block a row up to 32 waves.
template <bool LOG, int P, bool ONLINE>
static cudaError_t run_uncached_p(const float *x, float *y, size_t rows, size_t cols,
                                  cudaStream_t s)
{
    unsigned grid = 0;
    cudaError_t err = waves_grid(UNCACHED_BLOCK, rows, &grid);
    if (err != cudaSuccess) return err;
    if (ONLINE)
        softmax_online<LOG, P><<<grid, UNCACHED_BLOCK, 0, s>>>(x, y, rows, cols);
    else
        softmax_block_uncached<LOG, P><<<grid, UNCACHED_BLOCK, 0, s>>>(x, y, rows, cols);
    return cudaGetLastError();
}

template <bool LOG>
static cudaError_t run_block_uncached(const float *x, float *y, size_t rows, size_t cols,
                                      cudaStream_t s)
{
    return can_pack(x, y, cols) ? run_uncached_p<LOG, PACK, false>(x, y, rows, cols, s)
                                : run_uncached_p<LOG, 1, false>(x, y, rows, cols, s);
}

template <bool LOG>
static cudaError_t run_online(const float *x, float *y, size_t rows, size_t cols, cudaStream_t s)
{
    return can_pack(x, y, cols) ? run_uncached_p<LOG, PACK, true>(x, y, rows, cols, s)
                                : run_uncached_p<LOG, 1, true>(x, y, rows, cols, s);
}

// The dynamic shared memory block_smem may have: the device's per-block opt-in limit less the
// kernel's static slots. Past 48 KB a kernel must opt in (cudaFuncSetAttribute), once a device.
// Not OneFlow's: its softmax does not opt in, so its shared-memory path ends at 48 KB (about
// 12000 float columns); its layer_norm.cuh opts in as here (MaximizeDynamicSharedMemorySize).
template <bool LOG, int P>
static size_t smem_limit()
{
    static int dev_done = -1;
    static size_t limit = 0;
    int dev = 0, optin = 0;
    cudaFuncAttributes attr;
    if (cudaGetDevice(&dev) != cudaSuccess) return 0;
    if (dev != dev_done) {
        if (cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) !=
                cudaSuccess ||
            cudaFuncGetAttributes(&attr, softmax_block_smem<LOG, P>) != cudaSuccess ||
            cudaFuncSetAttribute(softmax_block_smem<LOG, P>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 optin - (int)attr.sharedSizeBytes) != cudaSuccess) {
            (void)cudaGetLastError(); // no opt-in: no shared-memory path, not an error to keep
            return 0;
        }
        limit = (size_t)optin - attr.sharedSizeBytes;
        dev_done = dev;
    }
    return limit;
}

// OneFlow's block size for the shared-memory path (TryDispatchSoftmaxBlockSMemImplBlockSize).
// The occupancy API says how many blocks of 128 threads an SM holds with the row in shared
// memory; none, and the row is not for this path (returns 0). Else the largest of 1024, 512 and
// 256 threads at which an SM still holds as many blocks (more threads on the same rows), or 128.
template <bool LOG, int P>
static int smem_block_size(size_t cols)
{
    const size_t bytes = cols * sizeof(float);
    int at_min = 0, n = 0;
    if (bytes > smem_limit<LOG, P>() ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&at_min, softmax_block_smem<LOG, P>,
                                                      SMEM_BLOCK_MIN, bytes) != cudaSuccess ||
        at_min <= 0) {
        (void)cudaGetLastError();
        return 0;
    }
    for (int block = SMEM_BLOCK_MAX; block > SMEM_BLOCK_MIN; block /= 2)
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, softmax_block_smem<LOG, P>, block,
                                                          bytes) == cudaSuccess &&
            n == at_min)
            return block;
    (void)cudaGetLastError();
    return SMEM_BLOCK_MIN;
}

// Not OneFlow's: it compiles the kernel once per block size (cub's BlockReduce needs it); here
// the kernel reads blockDim.x, so one instance serves 128 to 1024 threads (__launch_bounds__).
template <bool LOG, int P>
static cudaError_t run_block_smem_p(const float *x, float *y, size_t rows, size_t cols,
                                    cudaStream_t s)
{
    const int block = smem_block_size<LOG, P>(cols);
    unsigned grid = 0;
    if (block == 0) return cudaErrorInvalidValue;
    cudaError_t err = waves_grid(block, rows, &grid);
    if (err != cudaSuccess) return err;
    softmax_block_smem<LOG, P><<<grid, block, cols * sizeof(float), s>>>(x, y, rows, cols);
    return cudaGetLastError();
}

template <bool LOG>
static cudaError_t run_block_smem(const float *x, float *y, size_t rows, size_t cols,
                                  cudaStream_t s)
{
    return can_pack(x, y, cols) ? run_block_smem_p<LOG, PACK>(x, y, rows, cols, s)
                                : run_block_smem_p<LOG, 1>(x, y, rows, cols, s);
}

// The warp path (OneFlow's LaunchSoftmaxWarpImpl): blocks of 128 threads shaped (WIDTH, 128 /
// WIDTH), one thread group each ROWS rows, at most 32 waves.
template <bool LOG, int P, int PER_LANE, int WIDTH, int ROWS>
static cudaError_t run_warp_kernel(const float *x, float *y, size_t rows, size_t cols,
                                   cudaStream_t s)
{
    constexpr int GROUPS = WARP_PATH_BLOCK / WIDTH;
    unsigned grid = 0;
    cudaError_t err = waves_grid(WARP_PATH_BLOCK, ceil_div(rows / ROWS, GROUPS), &grid);
    if (err != cudaSuccess) return err;
    softmax_warp<LOG, P, PER_LANE, WIDTH, ROWS><<<grid, dim3(WIDTH, GROUPS), 0, s>>>(x, y, rows,
                                                                                    cols);
    return cudaGetLastError();
}

// Rows of at most 32 packs: one pack a lane, the narrowest group of 1, 2, 4, ... 32 lanes that
// covers the row, 2 rows a group when rows is even (DispatchSoftmaxWarpImplCols, first part).
template <bool LOG, int P, int WIDTH>
static cudaError_t warp_short_rows(const float *x, float *y, size_t rows, size_t cols,
                                   cudaStream_t s)
{
    if constexpr (WIDTH < WARP_SIZE)
        if (cols > (size_t)WIDTH * P)
            return warp_short_rows<LOG, P, 2 * WIDTH>(x, y, rows, cols, s);
    if (rows % 2 == 0) return run_warp_kernel<LOG, P, P, WIDTH, 2>(x, y, rows, cols, s);
    return run_warp_kernel<LOG, P, P, WIDTH, 1>(x, y, rows, cols, s);
}

// Longer rows: the whole warp, one row at a time, and the fewest values a lane, in steps of a
// pack (2P, 3P, ... 32), that cover the row (DispatchSoftmaxWarpImplCols, second part).
template <bool LOG, int P, int PER_LANE>
static cudaError_t warp_long_rows(const float *x, float *y, size_t rows, size_t cols,
                                  cudaStream_t s)
{
    if constexpr (PER_LANE < MAX_PER_LANE)
        if (cols > (size_t)PER_LANE * WARP_SIZE)
            return warp_long_rows<LOG, P, PER_LANE + P>(x, y, rows, cols, s);
    return run_warp_kernel<LOG, P, PER_LANE, WARP_SIZE, 1>(x, y, rows, cols, s);
}

template <bool LOG>
static cudaError_t run_warp_row(const float *x, float *y, size_t rows, size_t cols, cudaStream_t s)
{
    if (can_pack(x, y, cols))
        return cols <= (size_t)WARP_SIZE * PACK ? warp_short_rows<LOG, PACK, 1>(x, y, rows, cols, s)
                                                : warp_long_rows<LOG, PACK, 2 * PACK>(x, y, rows,
                                                                                      cols, s);
    return cols <= (size_t)WARP_SIZE ? warp_short_rows<LOG, 1, 1>(x, y, rows, cols, s)
                                     : warp_long_rows<LOG, 1, 2>(x, y, rows, cols, s);
}

static int supports_any(size_t rows, size_t cols) { return rows >= 1 && cols >= 1; }
static int supports_warp_row(size_t rows, size_t cols)
{
    return supports_any(rows, cols) && cols <= WARP_PATH_MAX_COLS;
}
// Every instance has the same static shared memory, so the row fits all of them or none.
static int supports_block_smem(size_t rows, size_t cols)
{
    return supports_any(rows, cols) && smem_block_size<false, 1>(cols) > 0;
}

// Idea:  OneFlow's DispatchSoftmax: the warp path up to 1024 columns, the shared-memory path while
//        an SM holds a block with the row, the uncached path beyond.
// Fixes: each path above is slow somewhere between 32 and 65536 columns, or does not run there.
// Cost:  plain float kernels, one block a long row (tuned/: 16-byte packs, clusters, 16-bit types).
// Run:   build/07_softmax --variant plain_dispatch --cols 32,1024,16384,65536
template <bool LOG>
static cudaError_t run_plain_dispatch(const float *x, float *y, size_t rows, size_t cols,
                                      cudaStream_t s)
{
    if (supports_warp_row(rows, cols)) return run_warp_row<LOG>(x, y, rows, cols, s);
    if (supports_block_smem(rows, cols)) return run_block_smem<LOG>(x, y, rows, cols, s);
    return run_block_uncached<LOG>(x, y, rows, cols, s);
}

// ------------------------------------------------------------------------------------------------
// Variant table
// ------------------------------------------------------------------------------------------------

typedef cudaError_t (*run_fn)(const float *, float *, size_t, size_t, cudaStream_t);
typedef int (*supports_fn)(size_t, size_t);

// The stage's launch signature (stage.h) around a run_ function: no workspace; a shape that
// supports() refuses is cudaErrorInvalidValue.
template <run_fn RUN, supports_fn SUPPORTS>
static cudaError_t launch(const void *d_in, void *d_out, size_t rows, size_t cols,
                          void *d_workspace, cudaStream_t s)
{
    (void)d_workspace;
    if (!SUPPORTS(rows, cols)) return cudaErrorInvalidValue;
    return RUN((const float *)d_in, (float *)d_out, rows, cols, s);
}

static size_t workspace_none(size_t rows, size_t cols)
{
    (void)rows;
    (void)cols;
    return 0;
}

// One lesson variant: softmax and log-softmax, float.
#define LESSON(name, idea, supports, run)                                                     \
    {name, idea, OP_SOFTMAX, DT_F32, DT_F32, supports, workspace_none,                        \
     launch<run<false>, supports>},                                                           \
    {                                                                                         \
        name, idea, OP_LOGSOFTMAX, DT_F32, DT_F32, supports, workspace_none,                  \
            launch<run<true>, supports>                                                       \
    }

static const variant_t variants[] = {
    LESSON("naive_thread_per_row", "one thread per row, three loops over global memory",
           supports_any, run_thread_per_row),
    LESSON("naive_block_3pass", "one block of 256 per row, three coalesced passes", supports_any,
           run_block_3pass),
    LESSON("block_uncached", "OneFlow's uncached path: packs of 2, blocks of 1024, three passes",
           supports_any, run_block_uncached),
    LESSON("block_smem", "OneFlow's shared-memory path: the row in shared memory, sized blocks",
           supports_block_smem, run_block_smem),
    LESSON("warp_row", "OneFlow's warp path: 1 to 32 lanes and 1 or 2 rows a group, in registers",
           supports_warp_row, run_warp_row),
    LESSON("plain_dispatch", "OneFlow's dispatch: warp_row, else block_smem, else block_uncached",
           supports_any, run_plain_dispatch),
    LESSON("online", "not OneFlow's: block_uncached with the max and the sum in one pass",
           supports_any, run_online),
    // the production paths of tuned/ (tuned/tuned.h)
    SOFTMAX_TUNED_VARIANTS
};

#undef LESSON

extern "C" const stage_t stage_07_softmax = {"07_softmax",
                                             "Softmax, one thread per row to OneFlow's three paths",
                                             variants, sizeof(variants) / sizeof(variants[0])};
