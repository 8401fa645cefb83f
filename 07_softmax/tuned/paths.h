// SPDX-License-Identifier: MIT
// 07_softmax/tuned/paths.h: the tuned paths as the planner (plan.cu) sees them. Each path file
// (warp.cu, cta.cu, split.cu, stream.cu) holds its kernels and the host functions declared here,
// instantiated there for float, __half and __nv_bfloat16, softmax and log-softmax. Internal: only
// the tuned/ files include it.
#ifndef SOFTMAX_TUNED_PATHS_H
#define SOFTMAX_TUNED_PATHS_H

#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stddef.h>

static constexpr int WARP_SIZE = 32;         // lanes per warp on every NVIDIA GPU
static constexpr int PACK_BYTES = 16;        // the widest load of one thread (LDG.E.128)
static constexpr int WARP_MAX_COLS = 1024;   // warp path: 32 lanes x 32 values in registers
static constexpr int WARP_PATH_BLOCK = 128;  // 4 warps per block; the grid supplies the rest
static constexpr int ROW_VALUES = 32;        // CTA path: values a thread keeps (32 registers)
static constexpr int CTA_MAX_THREADS = 1024; // the most threads a block may have
// CTA path with rows to spare: at most 512 threads, so that two CTAs share an SM and one loads
// while the other reduces and writes (where registers allow: a float CTA of 512 takes 79 to 93).
static constexpr int CTA_SHARED_SM_THREADS = 512;
static constexpr int PORTABLE_CLUSTER = 8;    // the largest cluster every sm_90 part takes
static constexpr int STREAM_MAX_CLUSTER = 16; // H100 and H200 take 16 with the non-portable opt-in
static constexpr size_t MAX_GRID_X = 2147483647u; // gridDim.x limit (2^31 - 1)

// Elements of T in one 16-byte pack: 4 floats, 8 halves or bfloat16s.
template <typename T>
static __host__ __device__ constexpr int full_pack()
{
    return PACK_BYTES / (int)sizeof(T);
}

// Slots a thread holds in the CTA path: 32 values in packs (8 float packs, 4 half packs). One
// element per slot (P = 1) costs an address register per slot as well, so those keep 16, in
// CTAs of at most 512 threads (up to 128 registers a thread, no spills on any architecture).
template <int P>
static __host__ __device__ constexpr int slots_per_thread()
{
    return P == 1 ? 16 : ROW_VALUES / P;
}
// One CTA an SM at least: forcing two float CTAs of 512 threads onto an SM (64 registers a
// thread) spills and measured slower than one with the registers ptxas picks (4096 x 8192: 85%
// of the copy against 97%).
template <int P>
static __host__ __device__ constexpr int cta_min_blocks()
{
    return 1;
}
template <int P>
static __host__ __device__ constexpr int cta_max_threads()
{
    return sizeof(float) * P <= PACK_BYTES ? 512 : CTA_MAX_THREADS; // float packs and P = 1
}

static inline size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

// The CTA and split paths' plan: a row in `chunks` chunks of chunk_slots slots, a CTA each.
struct row_plan {
    int chunks;         // K: CTAs per row (K > 1 in the CTA path: a cluster)
    int threads;        // CTA size
    size_t chunk_slots; // slots per CTA
};

// The stream kernel's plan (stream.cu).
struct stream_plan {
    int chunks;           // K CTAs a row; K > 1 is a cluster (or, with flags, a split row)
    int threads;          // CTA size
    unsigned chunk_slots; // 16-byte slots a CTA holds of each row
    size_t smem;          // dynamic shared memory a CTA
    size_t groups;        // CTA groups launched (a group a row, or the resident ones looping)
    bool loop;            // the resident groups loop over the rows
    bool gather;          // flags only: the rows gather (no merging CTAs)
    bool ring;            // a looping CTA a row, its whole shared memory a ring of rows
    bool rest_early;      // a ring asks for its next row's rest during this row's writes
    bool bulk_out;        // outputs in place in shared memory, copied out by the TMA
};

// The stream kernel's forms: how the K CTAs of a row swap their states (a cluster's shared
// memory, or the flag path's words in one cooperative launch: merging warps, or a gather), and
// for clusters whether they loop as a ring (asking for the next row's rest after this row's
// writes, or during them: 16-bit types only).
enum stream_form { FORM_CLUSTER, FORM_RING, FORM_RING_EARLY, FORM_MERGE, FORM_GATHER };

// The merging CTAs of a flag launch: a warp a row.
static inline size_t flag_mergers(size_t rows, int threads)
{
    const size_t warps = (size_t)threads / WARP_SIZE;
    return (rows + warps - 1) / warps;
}

// warp.cu: rows of at most 1024 columns; packed when every row starts on a 16-byte boundary.
template <typename T, bool LOG>
cudaError_t warp_path(const T *d_in, T *d_out, size_t rows, int cols, bool packed, int sms,
                      cudaStream_t s);

// cta.cu: plan p (K = 1: a block per row; K > 1: a cluster of K). The kernel, for the planner's
// occupancy questions.
template <typename T, bool LOG, int P>
cudaError_t cta_launch(const T *d_in, T *d_out, size_t rows, size_t cols, const row_plan &p,
                       cudaStream_t s);
template <typename T, bool LOG, int P>
const void *cta_kernel();

// split.cu: plan p in two kernels (states, then the write; the states put back to 0 after), or
// in one cooperative launch (flags; the rows gather or the merging warps merge them). The flag
// kernel, for the planner's occupancy questions.
template <typename T, bool LOG, int P>
cudaError_t split_launch(const T *d_in, T *d_out, size_t rows, size_t cols, const row_plan &p,
                         void *d_ws, cudaStream_t s);
template <typename T, bool LOG, int P>
cudaError_t flags_launch(const T *d_in, T *d_out, size_t rows, size_t cols, const row_plan &p,
                         bool gather, void *d_ws, cudaStream_t s);
template <typename T, bool LOG, int P>
const void *flags_kernel(bool gather);

// stream.cu (sm_90): plan sp in form f (d_ws: the flag path's workspace, for FORM_MERGE and
// FORM_GATHER). The kernel of a form (nullptr where it is not built: FORM_RING_EARLY in float).
template <typename T, bool LOG>
cudaError_t stream_launch(const T *d_in, T *d_out, size_t rows, size_t cols, const stream_plan &sp,
                          stream_form f, void *d_ws, cudaStream_t s);
template <typename T, bool LOG>
const void *stream_kernel(stream_form f);

#endif // SOFTMAX_TUNED_PATHS_H
