// SPDX-License-Identifier: MIT
// 06_coop_groups/tuned/common.cuh: what the tuned files share. The device helpers are the
// lesson's (coop_groups.cu: 05's packs and head/body/tail split, the block reduce in groups),
// copied so that the lesson stays one file a student can edit without touching these paths;
// then the launch helpers, and the functions one tuned file offers the others.
#ifndef COOP_TUNED_COMMON_CUH
#define COOP_TUNED_COMMON_CUH

#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <stdint.h>

namespace cg = cooperative_groups;

static constexpr int WARP_SIZE = 32;        // lanes per warp on every NVIDIA GPU
static constexpr int PACK_BYTES = 16;       // the widest load of one thread (LDG.E.128)
static constexpr int PACK = PACK_BYTES / 4; // 4 floats a pack
static constexpr int BLOCK_SIZE = 256;      // 8 warps, as in 04 and 05
static constexpr int UNROLL = 4;            // 16-byte loads in flight per thread (05)
static constexpr int MIN_BLOCKS = 4;        // at most 64 registers: a lap's loads stay in flight
static constexpr int BIG_BLOCK = 1024;      // flag_sum's one block for small n
static constexpr int MAX_CLUSTER = 16;      // with the non-portable opt-in (H100, H200)
static constexpr size_t WS_HEADER = 128;    // workspace: ticket counters on their own lines
static constexpr size_t MAX_GRID_X = 2147483647u;
// One lap of a block: 256 threads x 4 packs x 4 floats = 4096 floats.
static constexpr size_t LAP_LEN = (size_t)BLOCK_SIZE * UNROLL * PACK;

// -------------------------------------------------------------------------------------------------
// Device helpers (as in coop_groups.cu)

template <typename T, int N>
struct alignas(sizeof(T) * N) Packed {
    T elem[N];
};
typedef Packed<float, PACK> pack_t;

static __device__ __forceinline__ float pack_sum(const pack_t &v)
{
    return (v.elem[0] + v.elem[1]) + (v.elem[2] + v.elem[3]);
}

static __host__ __device__ __forceinline__ size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}
static __host__ __device__ __forceinline__ size_t ceil_div(size_t a, size_t b)
{
    return (a + b - 1) / b;
}

struct span_split {
    size_t head;  // floats before the first 16-byte boundary (0..3)
    size_t packs; // whole 16-byte packs after them
    size_t tail;  // floats after the last pack (0..3)
};

static __host__ __device__ __forceinline__ span_split split_span(const float *p, size_t len)
{
    const size_t past = (size_t)(((uintptr_t)p / sizeof(float)) % PACK);
    span_split sp;
    sp.head = min_size((PACK - past) % PACK, len);
    sp.packs = (len - sp.head) / PACK;
    sp.tail = len - sp.head - sp.packs * PACK;
    return sp;
}

// Packs first, first + stride, ... of a body: UNROLL 16-byte loads in flight per full lap.
static __device__ __forceinline__ float packs_sum(const pack_t *__restrict__ body, size_t n_packs,
                                                  size_t first, size_t stride)
{
    float acc = 0.0f;
    size_t q = first;
    for (; q + (UNROLL - 1) * stride < n_packs; q += UNROLL * stride) {
        pack_t v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) v[u] = body[q + u * stride];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) acc += pack_sum(v[u]);
    }
    // the last 0..3 packs of this thread: loaded together, not one round trip each
    pack_t v[UNROLL - 1];
#pragma unroll
    for (int u = 0; u < UNROLL - 1; ++u)
        v[u] = q + u * stride < n_packs ? body[q + u * stride] : pack_t{};
#pragma unroll
    for (int u = 0; u < UNROLL - 1; ++u) acc += pack_sum(v[u]);
    return acc;
}

// The head and tail floats (0..3 each) that thread `rank` of at least 4 threads owns.
static __device__ __forceinline__ float edges_sum(const float *__restrict__ p, const span_split &sp,
                                                  size_t rank)
{
    return (rank < sp.head ? p[rank] : 0.0f) +
           (rank < sp.tail ? p[sp.head + sp.packs * PACK + rank] : 0.0f);
}

// A span's sum as seen by thread `rank` of `width` (>= 4) threads.
static __device__ __forceinline__ float span_sum(const float *__restrict__ p, size_t len,
                                                 size_t rank, size_t width)
{
    const span_split sp = split_span(p, len);
    const float edges = edges_sum(p, sp, rank); // loaded first: its latency hides under the body's
    return packs_sum(reinterpret_cast<const pack_t *>(p + sp.head), sp.packs, rank, width) + edges;
}

// The block's sum, valid in thread 0 (the lesson's block_reduce_cg).
static __device__ __forceinline__ float block_reduce_cg(const cg::thread_block &block, float v)
{
    __shared__ float warp_sums[WARP_SIZE];
    const cg::thread_block_tile<WARP_SIZE> warp = cg::tiled_partition<WARP_SIZE>(block);
    v = cg::reduce(warp, v, cg::plus<float>());
    block.sync();
    if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = v;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        v = warp.thread_rank() < warp.meta_group_size() ? warp_sums[warp.thread_rank()] : 0.0f;
        v = cg::reduce(warp, v, cg::plus<float>());
    }
    return v;
}

// One lap's sum (at most UNROLL packs a thread at p, plus the edges) as this thread of the
// block sees it: each of its packs loaded at once, predicated, no loop.
static __device__ __forceinline__ float lap_sum(const cg::thread_block &block,
                                                const float *__restrict__ p, size_t len)
{
    const span_split sp = split_span(p, len);
    const pack_t *body = reinterpret_cast<const pack_t *>(p + sp.head);
    pack_t x[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
        const size_t q = block.thread_rank() + (size_t)u * block.size();
        x[u] = q < sp.packs ? body[q] : pack_t{};
    }
    float v = edges_sum(p, sp, block.thread_rank());
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) v += pack_sum(x[u]);
    return v;
}

// -------------------------------------------------------------------------------------------------
// Host helpers

static inline int device_attr(cudaDeviceAttr attr)
{
    int dev = 0, v = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&v, attr, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return v;
}

static inline size_t sm_count()
{
    const int sms = device_attr(cudaDevAttrMultiProcessorCount);
    return (size_t)(sms > 0 ? sms : 1);
}

struct fill_cache {
    int dev = -1;   // the device the answer is for; -1 before the first query
    int blocks = 1; // blocks of one kernel resident at once: occupancy x SMs
};

// Blocks of `kernel` at `threads` threads that the whole GPU holds at once, asked once per
// device and kept (launches run in timing loops). At least 1; a failed query is left for the
// launch to report.
static inline int resident_blocks(fill_cache *c, const void *kernel, int threads)
{
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) return 1;
    if (c->dev != dev) {
        int sms = 0, per_sm = 0;
        if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0) !=
                cudaSuccess ||
            sms < 1 || per_sm < 1) {
            (void)cudaGetLastError();
            return 1;
        }
        c->blocks = sms * per_sm;
        c->dev = dev;
    }
    return c->blocks;
}

// Cuts `cols` floats into `chunks` contiguous chunks of whole packs (each keeps the row's 16-byte
// phase), no more than `most`, none shorter than `min_len` floats: fills chunks and chunk_len.
static inline void cut_chunks(size_t cols, size_t most, size_t min_len, unsigned *chunks,
                              size_t *chunk_len)
{
    size_t c = min_size(most, ceil_div(cols, min_len));
    if (c < 1) c = 1;
    *chunk_len = ceil_div(ceil_div(cols, c), PACK) * PACK;
    *chunks = (unsigned)ceil_div(cols, *chunk_len);
}

// -------------------------------------------------------------------------------------------------
// What one tuned file offers the others

// flags.cu: row r's chunks are blocks r * chunks + chunk; the last of a row to start adds the
// row's flagged partials. lap: chunks of at most LAP_LEN floats read without a loop (sum_lap),
// else chunks that loop (sum_flagged). The workspace (coop_flagged_rows_workspace bytes) is zero
// before the first launch, and every launch leaves it zero.
size_t coop_flagged_rows_workspace(size_t rows, unsigned chunks);
cudaError_t coop_launch_flagged_rows(const float *d_in, float *d_out, size_t rows, size_t cols,
                                     unsigned chunks, size_t chunk_len, bool lap, void *d_ws,
                                     cudaStream_t s);

// lap_cluster.cu: the largest cluster of sum_lap_cluster at `threads` (256 or 512) threads the
// GPU launches (1: none), and its launch: each row one cluster of `chunks` one-lap blocks.
int coop_lap_cluster_fit(int threads);
cudaError_t coop_launch_lap_cluster(int threads, const float *d_in, float *d_out, size_t rows,
                                    size_t cols, unsigned chunks, unsigned chunk_len,
                                    cudaStream_t s);

#endif // COOP_TUNED_COMMON_CUH
