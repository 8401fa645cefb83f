// SPDX-License-Identifier: MIT
// baselines.cu: what every stage is measured against, in the same run.
//
//   cub_device_reduce     cub::DeviceReduce::Sum              build/baselines --variant cub_device_reduce
//   cub_segmented_reduce  cub::DeviceSegmentedReduce::Sum     build/baselines --variant cub_segmented_reduce
//   read_stream           the read ceiling: every byte read once, 16 bytes per load
//   copy                  the read+write ceiling: cudaMemcpyAsync device to device
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <stdint.h>

#include "baselines.h"

// ---------------------------------------------------------------------------
// CUB full sum. The workspace is CUB's temporary storage, sized by CUB's own
// query (a host-only call with a null pointer).
static int cub_sum_supports(size_t rows, size_t cols) { return rows == 1 && cols >= 1; }

static size_t cub_sum_workspace(size_t rows, size_t cols)
{
    (void)rows;
    size_t bytes = 0;
    cub::DeviceReduce::Sum(nullptr, bytes, (const float *)nullptr, (float *)nullptr, (int64_t)cols);
    return bytes;
}

static cudaError_t cub_sum_launch(const void *d_in, void *d_out, size_t rows, size_t cols,
                                  void *d_ws, cudaStream_t s)
{
    size_t bytes = cub_sum_workspace(rows, cols);
    cudaError_t e = cub::DeviceReduce::Sum(d_ws, bytes, (const float *)d_in, (float *)d_out,
                                           (int64_t)cols, s);
    return e != cudaSuccess ? e : cudaGetLastError();
}

// ---------------------------------------------------------------------------
// CUB segmented sum: one segment per row. The offsets are computed on the fly
// (row * cols) by a transform iterator, so nothing but CUB's storage is needed.
struct row_offset {
    int64_t cols;
    __host__ __device__ int64_t operator()(int64_t r) const { return r * cols; }
};

static int cub_rows_supports(size_t rows, size_t cols) { return rows >= 1 && cols >= 1; }

template <typename F>
static cudaError_t with_offsets(size_t cols, F f)
{
    auto begin = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0),
                                                 row_offset{(int64_t)cols});
    return f(begin, begin + 1);
}

static size_t cub_rows_workspace(size_t rows, size_t cols)
{
    size_t bytes = 0;
    with_offsets(cols, [&](auto b, auto e) {
        return cub::DeviceSegmentedReduce::Sum(nullptr, bytes, (const float *)nullptr,
                                               (float *)nullptr, (int64_t)rows, b, e);
    });
    return bytes;
}

static cudaError_t cub_rows_launch(const void *d_in, void *d_out, size_t rows, size_t cols,
                                   void *d_ws, cudaStream_t s)
{
    size_t bytes = cub_rows_workspace(rows, cols);
    cudaError_t e = with_offsets(cols, [&](auto b, auto end) {
        return cub::DeviceSegmentedReduce::Sum(d_ws, bytes, (const float *)d_in, (float *)d_out,
                                               (int64_t)rows, b, end, s);
    });
    return e != cudaSuccess ? e : cudaGetLastError();
}

static const variant_t baseline_variants[] = {
    {"cub_device_reduce", "cub::DeviceReduce::Sum, the library full sum", OP_SUM, DT_F32, DT_F32,
     cub_sum_supports, cub_sum_workspace, cub_sum_launch},
    {"cub_segmented_reduce", "cub::DeviceSegmentedReduce::Sum, one segment per row", OP_ROWSUM,
     DT_F32, DT_F32, cub_rows_supports, cub_rows_workspace, cub_rows_launch},
};

extern "C" const stage_t stage_baselines = {"baseline", "Baselines (CUB)", baseline_variants,
                                            sizeof baseline_variants / sizeof baseline_variants[0]};

// ---------------------------------------------------------------------------
// Read ceiling (also the L2 flush between timed repetitions: plain loads, so
// the lines it reads replace whatever was cached). 256 threads x 4 blocks per SM-ish keeps every SM streaming;
// each thread keeps 4 independent 16-byte loads in flight per iteration so
// enough bytes are outstanding to cover DRAM latency (Little's law).
static const int STREAM_THREADS = 256;
static const int STREAM_UNROLL = 4;

static __global__ void read_stream_kernel(const uint4 *__restrict__ in, size_t n_vec,
                                          const uint32_t *__restrict__ tail, size_t n_tail,
                                          uint32_t *block_xor)
{
    uint32_t acc = 0;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + (STREAM_UNROLL - 1) * stride < n_vec; i += STREAM_UNROLL * stride) {
        uint4 v[STREAM_UNROLL];
#pragma unroll
        for (int u = 0; u < STREAM_UNROLL; u++) v[u] = in[i + u * stride];
#pragma unroll
        for (int u = 0; u < STREAM_UNROLL; u++) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
    for (; i < n_vec; i += stride) {
        uint4 v = in[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (blockIdx.x == 0 && threadIdx.x < n_tail) acc ^= tail[threadIdx.x];
    // XOR across the warp, then one word per warp into shared memory
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) acc ^= __shfl_xor_sync(0xffffffffu, acc, off);
    __shared__ uint32_t warp_xor[STREAM_THREADS / 32];
    if ((threadIdx.x & 31) == 0) warp_xor[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        uint32_t b = 0;
        for (int w = 0; w < STREAM_THREADS / 32; w++) b ^= warp_xor[w];
        block_xor[blockIdx.x] = b;
    }
}

static int stream_grid_cache = 0;

extern "C" size_t read_stream_blocks(size_t bytes)
{
    if (stream_grid_cache == 0) {
        int dev = 0, sms = 1, per_sm = 1;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_stream_kernel, STREAM_THREADS, 0);
        stream_grid_cache = sms * (per_sm > 0 ? per_sm : 1);
    }
    size_t vec = bytes / 16;
    size_t need = (vec + STREAM_THREADS - 1) / STREAM_THREADS;
    if (need < 1) need = 1;
    return need < (size_t)stream_grid_cache ? need : (size_t)stream_grid_cache;
}

extern "C" cudaError_t read_stream_launch(const void *d_in, size_t bytes, uint32_t *d_block_xor,
                                          cudaStream_t s)
{
    size_t n_words = bytes / 4; // callers pass whole 32-bit words
    size_t n_vec = n_words / 4;
    size_t n_tail = n_words - n_vec * 4;
    unsigned grid = (unsigned)read_stream_blocks(bytes);
    read_stream_kernel<<<grid, STREAM_THREADS, 0, s>>>(
        (const uint4 *)d_in, n_vec, (const uint32_t *)d_in + n_vec * 4, n_tail, d_block_xor);
    return cudaGetLastError();
}

extern "C" cudaError_t copy_launch(const void *d_in, void *d_out, size_t bytes, cudaStream_t s)
{
    return cudaMemcpyAsync(d_out, d_in, bytes, cudaMemcpyDeviceToDevice, s);
}
