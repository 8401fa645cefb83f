// SPDX-License-Identifier: MIT
// 05_packed/packed.cu: Packed 16-byte loads
//
// 04_block_reduce's kernels with one change: the body of every span of floats is read in 16-byte
// packs (one LDG.E.128 moves 4 floats). A span is cut at 16-byte boundaries: HEAD (the 0..3
// floats before the first boundary), BODY (whole packs), TAIL (the 0..3 floats after the last
// pack); head and tail are read with 4-byte loads. Every row is cut on its own: a row starts on a
// boundary only when d_in does and cols % 4 == 0. README.md has the lesson.
//
// Variants (OP_SUM and OP_ROWSUM, float in, float out):
//   packed_sum            grid-stride over packs  build/05_packed --variant packed_sum
//   warp_per_row_packed   one warp per row        build/05_packed --variant warp_per_row_packed
//   block_per_row_packed  one block per row       build/05_packed --variant block_per_row_packed
#include "stage.h"

#include <cuda_runtime.h>
#include <stdint.h>

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

// 16 bytes is the widest load one thread can issue (LDG.E.128): a pack of 4 floats.
static constexpr size_t PACK_BYTES = 16;
static constexpr size_t PACK = PACK_BYTES / sizeof(float);

// Independent pack loads per lap of packed_sum, as in 04, now 4 x 16 bytes.
static constexpr int UNROLL = 4;

// Threads one SM holds (CUDA C++ Programming Guide, compute capabilities): 1024 on sm_75, 1536
// on sm_86 to sm_89 and sm_120, 2048 on sm_80, sm_90, sm_100. Device code is compiled once per
// architecture with __CUDA_ARCH__ set, so each gets its own number (the Guide's pattern).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
static constexpr unsigned SM_MAX_THREADS = 1024;
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 860 && __CUDA_ARCH__ <= 890
static constexpr unsigned SM_MAX_THREADS = 1536;
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1200
static constexpr unsigned SM_MAX_THREADS = 1536;
#else
static constexpr unsigned SM_MAX_THREADS = 2048;
#endif

// __launch_bounds__(BLOCK_SIZE, B) promises B resident blocks per SM: ptxas then fits a thread in
// 65536 / (B x 256) registers and spends what that allows. A pack takes 4 registers where a float
// took 1, so B decides where the bytes in flight come from (Little's law: bandwidth = bytes in
// flight / latency). With 4 blocks (64 registers; ptxas uses 42 to 62, nvcc -Xptxas -v) a thread
// keeps 4 to 10 packs in flight: packed_sum and warp_per_row_packed hold many packs per thread
// (8 per lane at 1024 columns), and long rows leave them one block per SM.
static constexpr int MIN_BLOCKS_REGS = 4;

// Every thread slot instead (8 blocks on sm_80, sm_90: 32 registers) for block_per_row_packed. At
// 1024 columns a row is 256 packs, ONE per thread: the same 16 bytes per thread as 04's
// block_per_row (nvcc unrolls its loop into four 4-byte loads), so only resident threads add
// bytes in flight. 8 blocks x 256 x 16 B = 32 KB per SM, yet it stays behind 04 at 1024 columns
// (README.md: the per-row work); with MIN_BLOCKS_REGS, 4 blocks hold 16 KB (exercise 05.3).
static constexpr int MIN_BLOCKS_FULL = SM_MAX_THREADS / BLOCK_SIZE;

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
        v = warp_reduce_sum(v);
    }
    return v;
}

// N elements that one instruction moves. alignas is what lets the compiler emit one 16-byte load:
// such an access must start on a 16-byte boundary, and alignas promises that every Packed does.
template <typename T, size_t N>
struct alignas(sizeof(T) * N) Packed {
    T elem[N];
};

typedef Packed<float, PACK> pack_t;
static_assert(sizeof(pack_t) == PACK_BYTES && alignof(pack_t) == PACK_BYTES,
              "one pack is one 16-byte load");

// (a + b) + (c + d): two dependent adds instead of three.
static __device__ __forceinline__ float pack_sum(const pack_t &v)
{
    static_assert(PACK == 4, "pack_sum is written out for the 4 floats of a pack");
    return (v.elem[0] + v.elem[1]) + (v.elem[2] + v.elem[3]);
}

// A span of floats cut at 16-byte boundaries.
struct span_split {
    size_t head;  // floats before the first 16-byte boundary (0..3)
    size_t packs; // whole 16-byte packs after them
    size_t tail;  // floats after the last pack (0..3)
};

// p is 4-byte aligned (a float), so it sits 0..3 floats past a 16-byte boundary.
static __device__ __forceinline__ span_split split_span(const float *p, size_t len)
{
    const size_t past = ((uintptr_t)p / sizeof(float)) % PACK;
    const size_t head = (PACK - past) % PACK;
    span_split sp;
    sp.head = head < len ? head : len;
    sp.packs = (len - sp.head) / PACK;
    sp.tail = len - sp.head - sp.packs * PACK;
    return sp;
}

// Sum of the head and tail floats this thread takes: one each for ranks 0..2 of the threads that
// share the span (a warp, a block or the grid: never fewer than 3), 0 for the others. An aligned
// span predicates both loads off; in the row kernels a misaligned one pays a round trip before its
// body loads (packed_sum issues them before its loop and adds them after it).
static __device__ __forceinline__ float edges_sum(const float *__restrict__ p, span_split sp,
                                                  size_t rank)
{
    float v = 0.0f;
    if (rank < sp.head)
        v += p[rank];
    if (rank < sp.tail)
        v += p[sp.head + sp.packs * PACK + rank];
    return v;
}

// -------------------------------------------------------------------------------------------------
// Kernels

// Idea:  04's grid_stride_unroll over 16-byte packs; the grid's first threads take head and tail.
// Fixes: 04's 4-byte loads: a lap moves 64 bytes per thread instead of 16, in the same 4 loads.
// Cost:  head/tail bookkeeping; two launches above 4096 floats, a fixed cost up to ~2^24.
// Run:   build/05_packed --variant packed_sum
static __global__ void __launch_bounds__(BLOCK_SIZE, MIN_BLOCKS_REGS)
reduce_packed_sum(const float *__restrict__ d_in, float *__restrict__ d_out, size_t n)
{
    __shared__ float s_warp_sums[WARPS_PER_BLOCK];
    const size_t stride = (size_t)gridDim.x * BLOCK_SIZE;
    size_t i = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    const span_split sp = split_span(d_in, n);
    const pack_t *d_body = reinterpret_cast<const pack_t *>(d_in + sp.head);
    const float edges = edges_sum(d_in, sp, i);

    float acc[UNROLL] = {}; // fully unrolled below, so these live in registers
    // All four packs are in range, so all four loads may be issued before any add.
    for (; i + (UNROLL - 1) * stride < sp.packs; i += UNROLL * stride) {
        // BEGIN SOLUTION
        // HINT: load packs i, i + stride, ... (UNROLL of them) of d_body first, then add each
        pack_t x[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; ++k)
            x[k] = d_body[i + k * stride];
#pragma unroll
        for (int k = 0; k < UNROLL; ++k)
            acc[k] += pack_sum(x[k]);
        // END SOLUTION
    }
    // Tail: fewer than UNROLL strides of packs left for this thread.
    for (; i < sp.packs; i += stride)
        acc[0] += pack_sum(d_body[i]);

    float sum = edges;
#pragma unroll
    for (int k = 0; k < UNROLL; ++k)
        sum += acc[k];
    sum = block_reduce_sum(sum, s_warp_sums);
    if (threadIdx.x == 0)
        d_out[blockIdx.x] = sum;
}

// Idea:  04's warp_per_row over 16-byte packs: lane l adds packs l, l + 32, ... of its row.
// Fixes: 4-byte loads: nvcc's unrolled loop keeps 8 to 10 packs per lane in flight, not 4 floats.
// Cost:  one warp per row: a few long rows leave most SMs idle, short rows idle most lanes.
// Run:   build/05_packed --variant warp_per_row_packed
static __global__ void __launch_bounds__(BLOCK_SIZE, MIN_BLOCKS_REGS)
rowsum_warp_per_row_packed(const float *__restrict__ d_in, float *__restrict__ d_out, size_t rows,
                           size_t cols)
{
    const unsigned lane = threadIdx.x % WARP_SIZE;
    const size_t first_row = (size_t)blockIdx.x * WARPS_PER_BLOCK + threadIdx.x / WARP_SIZE;
    const size_t row_stride = (size_t)gridDim.x * WARPS_PER_BLOCK;

    // The row index is the same for all 32 lanes, so the whole warp runs the same number of
    // iterations and reaches the shuffle together. The loop covers more rows than the grid.
    for (size_t row = first_row; row < rows; row += row_stride) {
        const float *d_row = d_in + row * cols;
        const span_split sp = split_span(d_row, cols);
        float v = edges_sum(d_row, sp, lane);
        // BEGIN SOLUTION
        // HINT: lane l adds packs l, l + 32, l + 64, ... of the row's body (d_row + sp.head)
        const pack_t *d_body = reinterpret_cast<const pack_t *>(d_row + sp.head);
        for (size_t q = lane; q < sp.packs; q += WARP_SIZE)
            v += pack_sum(d_body[q]);
        // END SOLUTION
        v = warp_reduce_sum(v);
        if (lane == 0)
            d_out[row] = v;
    }
}

// Idea:  04's block_per_row over 16-byte packs: thread t adds packs t, t + 256, ... of its row.
// Fixes: 4 bytes per load: on long rows a thread keeps 3 to 4 packs in flight, not four floats.
// Cost:  two __syncthreads per row and the head/tail work of each row: behind 04 at 1024 columns.
// Run:   build/05_packed --variant block_per_row_packed --rows 1024 --cols 65536
static __global__ void __launch_bounds__(BLOCK_SIZE, MIN_BLOCKS_FULL)
rowsum_block_per_row_packed(const float *__restrict__ d_in, float *__restrict__ d_out,
                            size_t rows, size_t cols)
{
    __shared__ float s_warp_sums[WARPS_PER_BLOCK];

    // row depends only on blockIdx.x, so every thread of the block runs the same iterations and
    // meets the same __syncthreads inside block_reduce_sum. Iteration r + 1 reuses the slots of
    // iteration r: that reuse is why block_reduce_sum begins with a barrier.
    for (size_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const float *d_row = d_in + row * cols;
        const span_split sp = split_span(d_row, cols);
        float v = edges_sum(d_row, sp, threadIdx.x);
        // BEGIN SOLUTION
        // HINT: thread t adds packs t, t + BLOCK_SIZE, ... of the row's body (d_row + sp.head)
        const pack_t *d_body = reinterpret_cast<const pack_t *>(d_row + sp.head);
        for (size_t q = threadIdx.x; q < sp.packs; q += BLOCK_SIZE)
            v += pack_sum(d_body[q]);
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
static int g_cache_packed_sum[MAX_CACHED_DEVICES];
static int g_cache_block_per_row_packed[MAX_CACHED_DEVICES];

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
static size_t workspace_packed_sum(size_t rows, size_t cols)
{
    (void)rows;
    size_t blocks = 0;
    (void)sum_grid((const void *)reduce_packed_sum, g_cache_packed_sum, cols, UNROLL * PACK,
                   &blocks);
    return blocks > 1 ? blocks * sizeof(float) : 0;
}

typedef void (*reduce_kernel_t)(const float *, float *, size_t);

// Pass 1: `blocks` blocks of `kernel` write one partial each into the workspace. Pass 2: one block
// of the same kernel sums those partials (a few thousand at most) into d_out. With a single
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
    kernel<<<1, BLOCK_SIZE, 0, s>>>(d_partials, (float *)d_out, blocks);
    return cudaGetLastError();
}

// Each launcher returns cudaErrorInvalidValue for a shape its supports() rejects, else the first
// error of the occupancy query or the launches, or cudaSuccess.
static cudaError_t launch_packed_sum(const void *d_in, void *d_out, size_t rows, size_t cols,
                                     void *d_workspace, cudaStream_t s)
{
    if (!supports_sum(rows, cols))
        return cudaErrorInvalidValue;
    size_t blocks = 0;
    const cudaError_t err = sum_grid((const void *)reduce_packed_sum, g_cache_packed_sum, cols,
                                     UNROLL * PACK, &blocks);
    if (err != cudaSuccess)
        return err;
    return launch_two_pass(reduce_packed_sum, blocks, d_in, d_out, cols, d_workspace, s);
}

// As in 03_shuffle: enough blocks for one warp per row, capped at the gridDim.x limit.
static cudaError_t launch_warp_per_row_packed(const void *d_in, void *d_out, size_t rows,
                                              size_t cols, void *d_workspace, cudaStream_t s)
{
    if (!supports_rowsum(rows, cols))
        return cudaErrorInvalidValue;
    (void)d_workspace;
    size_t blocks = ceil_div(rows, WARPS_PER_BLOCK);
    if (blocks > MAX_GRID_X)
        blocks = MAX_GRID_X;
    rowsum_warp_per_row_packed<<<(unsigned)blocks, BLOCK_SIZE, 0, s>>>((const float *)d_in,
                                                                      (float *)d_out, rows, cols);
    return cudaGetLastError();
}

// One block per row, but never more blocks than are resident at once: each block then walks rows
// blockIdx.x, + gridDim.x, ... and reuses its shared slots row after row.
static cudaError_t launch_block_per_row_packed(const void *d_in, void *d_out, size_t rows,
                                               size_t cols, void *d_workspace, cudaStream_t s)
{
    if (!supports_rowsum(rows, cols))
        return cudaErrorInvalidValue;
    (void)d_workspace;
    size_t blocks = 0;
    const cudaError_t err = resident_blocks((const void *)rowsum_block_per_row_packed,
                                            g_cache_block_per_row_packed, &blocks);
    if (err != cudaSuccess)
        return err;
    if (blocks > rows)
        blocks = rows;
    rowsum_block_per_row_packed<<<(unsigned)blocks, BLOCK_SIZE, 0, s>>>((const float *)d_in,
                                                                       (float *)d_out, rows, cols);
    return cudaGetLastError();
}

// -------------------------------------------------------------------------------------------------
// Variant table

static const variant_t variants[] = {
    { "packed_sum",
      "grid_stride_unroll over 16-byte packs: 4 x 16 B in flight, head/tail in 4-byte loads",
      OP_SUM, DT_F32, DT_F32, supports_sum, workspace_packed_sum, launch_packed_sum },
    { "warp_per_row_packed",
      "row sums: one warp per row, lanes stride over 16-byte packs",
      OP_ROWSUM, DT_F32, DT_F32, supports_rowsum, workspace_none, launch_warp_per_row_packed },
    { "block_per_row_packed",
      "row sums: one block per row over 16-byte packs, block_reduce_sum",
      OP_ROWSUM, DT_F32, DT_F32, supports_rowsum, workspace_none, launch_block_per_row_packed },
};

extern "C" const stage_t stage_05_packed = {
    "05_packed", "Packed 16-byte loads", variants, sizeof(variants) / sizeof(variants[0])
};
