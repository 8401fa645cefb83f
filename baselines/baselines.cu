// SPDX-License-Identifier: MIT
// baselines.cu: what every stage is measured against, in the same run.
//
//   cub_device_reduce     cub::DeviceReduce::Sum             build/baselines --op sum
//   cub_segmented_reduce  cub::DeviceSegmentedReduce::Sum    build/baselines --op rowsum
//   cublas_gemv           cublasSgemv with a vector of ones  build/baselines --variant cublas_gemv
//   read_stream           the read ceiling: every byte read once, 16 bytes per load
//   write_stream          every byte written once, 16 bytes per store; with read_stream, the
//                         serialised floor of softmax at few long rows
//   copy                  the read+write ceiling: cudaMemcpyAsync device to device
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/version.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <cublas_v2.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "baselines.h"

// ---------------------------------------------------------------------------
// The counts each library takes. A library call given a count its parameter type cannot hold
// would narrow it silently and time the wrong work, so such a shape is not supported: the
// variant is skipped and says why, once per shape. CUB's types, read from the headers of each
// toolkit (CUB_VERSION, from cub/version.cuh):
//   DeviceReduce::Sum num_items: int in 2.0.1 (CUDA 12.0, 12.1); a template integer type
//     (64-bit here) from 2.2.0 (CUDA 12.2/12.3). 2.1.x is treated as int.
//   DeviceSegmentedReduce::Sum num_segments: int in every 2.x (CUDA 12.9 has 2.8.2); int64 from
//     3.0 (CUDA 13.0).
//   DeviceSegmentedReduce::Sum segment offsets: int in 2.0.1 .. 2.2.0 (CUDA 12.0 .. 12.3); the
//     offset iterator's own type (int64 here) from 2.3.2 (CUDA 12.4).
// cuBLAS: the classic API takes int m, n and lda (rows, cols and the whole matrix are kept
// within int too, the size the 32-bit API is known to handle).
#define CUB_SUM_ITEMS_64 (CUB_VERSION >= 200200)
#define CUB_SEG_COUNT_64 (CUB_VERSION >= 300000)
#define CUB_SEG_OFFSETS_64 (CUB_VERSION >= 200302)

static int fits_int(size_t n) { return n <= (size_t)INT_MAX; }

// Prints "note: VARIANT skipped at ROWSxCOLS: WHY" once per variant and shape (supports() is
// asked many times for one shape). Returns 0, the supports() answer.
static int skip_note(const char *variant, size_t rows, size_t cols, const char *why)
{
    static const char *last_variant;
    static size_t last_rows, last_cols;
    if (variant != last_variant || rows != last_rows || cols != last_cols) {
        fprintf(stderr, "note: %s skipped at %zux%zu: %s\n", variant, rows, cols, why);
        last_variant = variant;
        last_rows = rows;
        last_cols = cols;
    }
    return 0;
}

// ---------------------------------------------------------------------------
// CUB full sum. The workspace is CUB's temporary storage, sized by CUB's own
// query (a host-only call with a null pointer).
#if CUB_SUM_ITEMS_64
typedef int64_t cub_items_t;
#else
typedef int cub_items_t;
#endif

static int cub_sum_supports(size_t rows, size_t cols)
{
    if (rows != 1 || cols < 1) return 0;
    if (!CUB_SUM_ITEMS_64 && !fits_int(cols))
        return skip_note("cub_device_reduce", rows, cols,
                         "this CUB's DeviceReduce::Sum takes an int count "
                         "(64-bit from CUB 2.2, CUDA 12.2)");
    return 1;
}

static size_t cub_sum_workspace(size_t rows, size_t cols)
{
    (void)rows;
    size_t bytes = 0;
    cub::DeviceReduce::Sum(nullptr, bytes, (const float *)nullptr, (float *)nullptr,
                           (cub_items_t)cols);
    return bytes;
}

static cudaError_t cub_sum_launch(const void *d_in, void *d_out, size_t rows, size_t cols,
                                  void *d_ws, cudaStream_t s)
{
    size_t bytes = cub_sum_workspace(rows, cols);
    cudaError_t e = cub::DeviceReduce::Sum(d_ws, bytes, (const float *)d_in, (float *)d_out,
                                           (cub_items_t)cols, s);
    return e != cudaSuccess ? e : cudaGetLastError();
}

// ---------------------------------------------------------------------------
// CUB segmented sum: one segment per row. The offsets are computed on the fly
// (row * cols) by a transform iterator, so nothing but CUB's storage is needed.
#if CUB_SEG_COUNT_64
typedef int64_t cub_segments_t;
#else
typedef int cub_segments_t;
#endif

struct row_offset {
    int64_t cols;
    __host__ __device__ int64_t operator()(int64_t r) const { return r * cols; }
};

static int cub_rows_supports(size_t rows, size_t cols)
{
    if (rows < 1 || cols < 1) return 0;
    if (!CUB_SEG_COUNT_64 && !fits_int(rows))
        return skip_note("cub_segmented_reduce", rows, cols,
                         "this CUB's DeviceSegmentedReduce::Sum takes an int segment count "
                         "(64-bit from CUB 3.0, CUDA 13.0)");
    if (!CUB_SEG_OFFSETS_64 && (!fits_int(cols) || !fits_int(rows * cols)))
        return skip_note("cub_segmented_reduce", rows, cols,
                         "this CUB's DeviceSegmentedReduce::Sum takes int offsets "
                         "(64-bit from CUB 2.3.2, CUDA 12.4)");
    return 1;
}

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
                                               (float *)nullptr, (cub_segments_t)rows, b, e);
    });
    return bytes;
}

static cudaError_t cub_rows_launch(const void *d_in, void *d_out, size_t rows, size_t cols,
                                   void *d_ws, cudaStream_t s)
{
    size_t bytes = cub_rows_workspace(rows, cols);
    cudaError_t e = with_offsets(cols, [&](auto b, auto end) {
        return cub::DeviceSegmentedReduce::Sum(d_ws, bytes, (const float *)d_in, (float *)d_out,
                                               (cub_segments_t)rows, b, end, s);
    });
    return e != cudaSuccess ? e : cudaGetLastError();
}

// ---------------------------------------------------------------------------
// cuBLAS row sums: y = A 1 for the row-major [rows, cols] matrix A. cuBLAS is column-major, so
// it sees the same bytes as the cols x rows matrix A^T (leading dimension cols), and the row
// sums are one transposed matrix-vector product, y = (A^T)^T x with x = ones(cols): cublasSgemv
// with CUBLAS_OP_T, m = cols, n = rows. It reads the matrix once and x once per block of rows
// (cols floats more, which is as large as the matrix when rows is 1), the price of asking a
// general gemv for a row sum.
//
// State kept per device, made outside the timed launch:
//   - one cuBLAS handle, created on the first workspace query on that device (cublasCreate
//     allocates, so never in a launch), reused by every launch; the launch sets its stream;
//   - the ones vector x, in device memory of its own: the launch's workspace is re-zeroed by
//     callers between launches, so x cannot live there without a fill kernel in every launch
//     (a launch of its own in the timed region, a few microseconds that are not gemv's). The
//     workspace query fills it (a kernel, then a device synchronize), growing it when a wider
//     row asks, so the timed launch is the gemv alone.
// Both are released at exit (an atexit handler registered after the CUDA runtime started, so it
// runs before the runtime's own teardown), which keeps memcheck's leak check clean. The launch's
// workspace is cuBLAS's scratch (cublasSetWorkspace), so cuBLAS never allocates inside the
// launch either.
static const size_t GEMV_WS_BYTES = (size_t)4 << 20; // cuBLAS's default workspace size (its docs)
static const size_t GEMV_WS_ALIGN = 256;              // cublasSetWorkspace wants 256-byte alignment
static const int GEMV_MAX_DEVICES = 64;

struct gemv_device {
    cublasHandle_t handle;
    float *d_ones;
    size_t ones_cap;   // floats of ones in d_ones
    cudaError_t error; // the last preparation failure, returned by the launch
};
static gemv_device gemv_devices[GEMV_MAX_DEVICES];
static pthread_mutex_t gemv_lock = PTHREAD_MUTEX_INITIALIZER;

static cudaError_t cuda_error_of(cublasStatus_t st)
{
    switch (st) {
    case CUBLAS_STATUS_SUCCESS: return cudaSuccess;
    case CUBLAS_STATUS_ALLOC_FAILED: return cudaErrorMemoryAllocation;
    case CUBLAS_STATUS_NOT_INITIALIZED: return cudaErrorInitializationError;
    case CUBLAS_STATUS_INVALID_VALUE: return cudaErrorInvalidValue;
    case CUBLAS_STATUS_ARCH_MISMATCH: return cudaErrorNoKernelImageForDevice;
    case CUBLAS_STATUS_NOT_SUPPORTED: return cudaErrorNotSupported;
    case CUBLAS_STATUS_EXECUTION_FAILED: return cudaErrorLaunchFailure;
    default: return cudaErrorUnknown;
    }
}

// Frees every device's ones vector and handle; the atexit handler. Cannot fail (errors of a
// device already in an error state are ignored).
static void gemv_release(void)
{
    int current = 0;
    cudaError_t no_current = cudaGetDevice(&current);
    pthread_mutex_lock(&gemv_lock);
    for (int dev = 0; dev < GEMV_MAX_DEVICES; dev++) {
        gemv_device *g = &gemv_devices[dev];
        if (!g->handle && !g->d_ones) continue;
        if (cudaSetDevice(dev) != cudaSuccess) continue;
        if (g->d_ones) cudaFree(g->d_ones);
        if (g->handle) cublasDestroy(g->handle);
        g->d_ones = NULL;
        g->handle = NULL;
        g->ones_cap = 0;
    }
    pthread_mutex_unlock(&gemv_lock);
    if (no_current == cudaSuccess) cudaSetDevice(current);
    (void)cudaGetLastError();
}

static __global__ void fill_ones(float *x, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) x[i] = 1.0f;
}

// The current device's handle and a ones vector of at least `cols` floats, made or grown here.
// Returns the state with error set on failure (the launch returns that error), or NULL when the
// device number is out of range.
static gemv_device *gemv_prepare(size_t cols)
{
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= GEMV_MAX_DEVICES) return NULL;
    gemv_device *g = &gemv_devices[dev];
    pthread_mutex_lock(&gemv_lock);
    cudaError_t e = cudaSuccess;
    static int release_registered;
    if (!g->handle) {
        e = cuda_error_of(cublasCreate(&g->handle));
        if (e) g->handle = NULL;
    }
    if (!e && !release_registered) release_registered = atexit(gemv_release) == 0;
    if (!e && g->ones_cap < cols) {
        // wait for launches that may still read the old vector, then replace it
        size_t cap = (cols + 65535) / 65536 * 65536;
        e = cudaDeviceSynchronize();
        if (!e && g->d_ones) e = cudaFree(g->d_ones);
        g->d_ones = NULL;
        g->ones_cap = 0;
        if (!e) e = cudaMalloc((void **)&g->d_ones, cap * sizeof(float));
        if (!e) {
            size_t blocks = (cap + 255) / 256 < 4096 ? (cap + 255) / 256 : 4096;
            fill_ones<<<(unsigned)blocks, 256>>>(g->d_ones, cap);
            e = cudaGetLastError();
        }
        if (!e) e = cudaDeviceSynchronize();
        if (!e) g->ones_cap = cap;
    }
    g->error = e;
    if (e) (void)cudaGetLastError(); // reported by the launch, not by whoever asks next
    pthread_mutex_unlock(&gemv_lock);
    return g;
}

static int gemv_supports(size_t rows, size_t cols)
{
    if (rows < 1 || cols < 1) return 0;
    if (!fits_int(rows) || !fits_int(cols) || !fits_int(rows * cols))
        return skip_note("cublas_gemv", rows, cols,
                         "cublasSgemv takes int sizes (kept to matrices of at most 2^31-1 floats)");
    return 1;
}

static size_t gemv_workspace(size_t rows, size_t cols)
{
    (void)rows;
    gemv_prepare(cols);
    return GEMV_WS_BYTES + GEMV_WS_ALIGN;
}

static cudaError_t gemv_launch(const void *d_in, void *d_out, size_t rows, size_t cols, void *d_ws,
                               cudaStream_t s)
{
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e) return e;
    if (dev < 0 || dev >= GEMV_MAX_DEVICES) return cudaErrorInvalidDevice;
    pthread_mutex_lock(&gemv_lock);
    gemv_device g = gemv_devices[dev];
    pthread_mutex_unlock(&gemv_lock);
    if (g.error) return g.error;
    // the workspace query prepares the device; a caller that skipped it gets an error (no
    // handle), not an allocation inside the launch
    if (!g.handle || g.ones_cap < cols) return cudaErrorInvalidResourceHandle;
    void *ws = (void *)(((uintptr_t)d_ws + GEMV_WS_ALIGN - 1) & ~(uintptr_t)(GEMV_WS_ALIGN - 1));
    cublasStatus_t st = cublasSetStream(g.handle, s); // this also resets the workspace
    if (st == CUBLAS_STATUS_SUCCESS) st = cublasSetWorkspace(g.handle, ws, GEMV_WS_BYTES);
    const float one = 1.0f, zero = 0.0f;
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasSgemv(g.handle, CUBLAS_OP_T, (int)cols, (int)rows, &one, (const float *)d_in,
                         (int)cols, g.d_ones, 1, &zero, (float *)d_out, 1);
    e = cuda_error_of(st);
    return e != cudaSuccess ? e : cudaGetLastError();
}

static const variant_t baseline_variants[] = {
    {"cub_device_reduce", "cub::DeviceReduce::Sum, the library full sum", OP_SUM, DT_F32, DT_F32,
     cub_sum_supports, cub_sum_workspace, cub_sum_launch},
    {"cub_segmented_reduce", "cub::DeviceSegmentedReduce::Sum, one segment per row", OP_ROWSUM,
     DT_F32, DT_F32, cub_rows_supports, cub_rows_workspace, cub_rows_launch},
    {"cublas_gemv", "cublasSgemv (y = A x, x all ones) on the column-major view of the rows",
     OP_ROWSUM, DT_F32, DT_F32, gemv_supports, gemv_workspace, gemv_launch},
};

extern "C" const stage_t stage_baselines = {"baseline", "Baselines (CUB, cuBLAS)",
                                            baseline_variants,
                                            sizeof baseline_variants / sizeof baseline_variants[0]};

// ---------------------------------------------------------------------------
// Read ceiling (also the L2 flush between timed repetitions: plain loads, so
// the lines it reads replace whatever was cached). Blocks of 256 threads, as many
// as fit on every SM at once (the occupancy API), keep every SM streaming; each
// thread keeps 4 independent 16-byte loads in flight per iteration so enough
// bytes are outstanding to cover DRAM latency (Little's law).
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

// Write-only stream, the other half of softmax's serialised floor: the same grid and 16-byte
// accesses as the read stream. A store does not hold the thread up as a load does (it is posted
// and the thread goes on), so a grid-stride loop keeps enough of them outstanding.
static __global__ void write_stream_kernel(uint4 *__restrict__ out, size_t n_vec,
                                           unsigned char *__restrict__ tail, size_t n_tail)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
#pragma unroll 4
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n_vec; i += stride)
        out[i] = make_uint4(write_stream_word(4 * i), write_stream_word(4 * i + 1),
                            write_stream_word(4 * i + 2), write_stream_word(4 * i + 3));
    if (blockIdx.x == 0 && threadIdx.x < n_tail) {
        size_t k = 16 * n_vec + threadIdx.x; // a byte of the last, partial 16
        tail[threadIdx.x] = (unsigned char)(write_stream_word(k / 4) >> (8 * (k % 4)));
    }
}

// Blocks of STREAM_THREADS for a stream over `bytes`: one per 16 bytes a thread, at most as many
// as fit on every SM at once (the occupancy API, asked once per kernel).
static size_t stream_blocks(const void *kernel, int *cache, size_t bytes)
{
    if (*cache == 0) {
        int dev = 0, sms = 1, per_sm = 1;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, STREAM_THREADS, 0);
        *cache = sms * (per_sm > 0 ? per_sm : 1);
    }
    size_t need = (bytes / 16 + STREAM_THREADS - 1) / STREAM_THREADS;
    if (need < 1) need = 1;
    return need < (size_t)*cache ? need : (size_t)*cache;
}

static int read_grid_cache = 0, write_grid_cache = 0;

extern "C" size_t read_stream_blocks(size_t bytes)
{
    return stream_blocks((const void *)read_stream_kernel, &read_grid_cache, bytes);
}

extern "C" cudaError_t write_stream_launch(void *d_out, size_t bytes, cudaStream_t s)
{
    size_t n_vec = bytes / 16;
    unsigned grid = (unsigned)stream_blocks((const void *)write_stream_kernel, &write_grid_cache,
                                            bytes);
    write_stream_kernel<<<grid, STREAM_THREADS, 0, s>>>((uint4 *)d_out, n_vec,
                                                        (unsigned char *)d_out + 16 * n_vec,
                                                        bytes - 16 * n_vec);
    return cudaGetLastError();
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
