/* SPDX-License-Identifier: MIT */
/*
 * 07_softmax/softmax.cu: row-wise softmax and log-softmax of a row-major [rows, cols] matrix, from one
 * thread per row up to OneFlow's three paths and the dispatcher that chooses among them by cols.
 *
 *     softmax      y = exp(x - max) / sum(exp(x - max))
 *     log-softmax  y = (x - max) - log(sum(exp(x - max)))
 *
 * Float or half in and out, all arithmetic in float. Every variant is four table entries with one name
 * (softmax / log-softmax x f32 / f16); add --op logsoftmax and --dtype f16 to the commands to get the others.
 *
 *   naive_thread_per_row  one thread per row, three loops        build/07_softmax --variant naive_thread_per_row
 *   naive_block_3pass     one block per row, three passes        build/07_softmax --variant naive_block_3pass
 *   warp_rows             1..32 lanes per row, row in registers  build/07_softmax --variant warp_rows
 *   block_smem            block per row, row in shared memory    build/07_softmax --variant block_smem
 *   block_regs            block per row, row in registers        build/07_softmax --variant block_regs
 *   block_uncached        block per row, three packed passes     build/07_softmax --variant block_uncached
 *   online                block per row, (max, sum) in one pass  build/07_softmax --variant online
 *   dispatch              picks a path by cols: the one to call  build/07_softmax --variant dispatch
 */
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <math.h>
#include <stdint.h>

#include "stage.h"

/* ------------------------------------------------------------------------------------------------------ */
/* Constants                                                                                              */
/* ------------------------------------------------------------------------------------------------------ */

constexpr int WARP_SIZE = 32;                 // lanes per warp on every NVIDIA GPU
constexpr unsigned FULL_MASK = 0xffffffffu;   // all 32 lanes take part in each shuffle
constexpr int PACK_BYTES = 16;                // widest load/store of one thread: LDG.E.128 / STG.E.128
constexpr int WARP_MAX_COLS = 1024;           // 32 lanes x 32 floats (about 60 registers): OneFlow's budget
constexpr int WARP_MAX_CPT = WARP_MAX_COLS / WARP_SIZE;
constexpr int WARP_PATH_BLOCK = 128;          // 4 warps per block, as OneFlow; the grid supplies the rest
constexpr int NAIVE_BLOCK = 256;              // 8 warps: a middle-of-the-road block, no tuning in the naive paths
constexpr int NAIVE_CHUNK = 256;              // partial sums of 256 terms keep float add chains short
constexpr int ROW_BLOCK = 1024;               // block-per-row paths without a row cache: the largest block
constexpr int ROW_UNROLL = 4;                 // packs in flight per thread: 4 x 16 B x 1024 threads = 64 KB
constexpr int ONLINE_VALUES = 32;             // online: values per thread per batch (8 float or 4 half packs)
constexpr int REGS_BLOCK_MAX = 1024;          // block_regs: the most threads a block can have
constexpr int REGS_CPT = 32;                  // block_regs: 32 floats per thread, as warp_rows (about 60 registers)
constexpr int REGS_MAX_COLS = REGS_BLOCK_MAX * REGS_CPT;
constexpr int REGS_PREFETCH_HALF_COLS = 8192; // block_regs: half rows longer than this prefetch the next row
constexpr int SMEM_BLOCK_MIN = 128;           // block_smem tries 128, 256, 512, 1024 threads
constexpr int SMEM_BLOCK_MAX = 1024;          // the most threads a block can have
constexpr size_t SMEM_DEFAULT_BYTES = 48 * 1024;  // dynamic shared memory a launch gets without opting in
constexpr int GRID_WAVES = 32;                // grids of at most 32 full waves; grid-stride loops do the rest

template <typename T> constexpr int full_pack() { return PACK_BYTES / (int)sizeof(T); }  // 4 floats, 8 halves
/* warp_rows, cols <= 32 packs: rows per group, so 16-byte loads in flight per lane. Half needs more: its
   row is gone twice as fast, and it converts and computes twice the values per byte. (Measured.) */
template <typename T> constexpr int warp_narrow_rpa() { return sizeof(T) == 2 ? 4 : 2; }

/* ------------------------------------------------------------------------------------------------------ */
/* Device helpers                                                                                         */
/* ------------------------------------------------------------------------------------------------------ */

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }

template <typename T> __device__ __forceinline__ T from_float(float x);
template <> __device__ __forceinline__ float from_float<float>(float x) { return x; }
template <> __device__ __forceinline__ __half from_float<__half>(float x) { return __float2half_rn(x); }

/* An unsigned type of exactly BYTES bytes: moving one of these is one memory instruction. */
template <int BYTES> struct word_of;
template <> struct word_of<16> { using type = uint4; };
template <> struct word_of<8> { using type = uint2; };
template <> struct word_of<4> { using type = unsigned int; };
template <> struct word_of<2> { using type = unsigned short; };

/* P elements of T seen as one word: load the word, read the elements. */
template <typename T, int P>
union pack_t {
    typename word_of<P * (int)sizeof(T)>::type word;
    T elem[P];
    __device__ pack_t() {}
};

/* Load P consecutive elements at src (aligned to P * sizeof(T)) as floats. LAST_USE marks the line
   evict-first in L2 (ld.global.cs): nothing will read it again, so it should not push out what will. */
template <typename T, int P, bool LAST_USE = false>
__device__ __forceinline__ void load_pack(const T* src, float* dst)
{
    using word_t = typename word_of<P * (int)sizeof(T)>::type;
    pack_t<T, P> pk;
    if constexpr (LAST_USE) pk.word = __ldcs(reinterpret_cast<const word_t*>(src));
    else pk.word = *reinterpret_cast<const word_t*>(src);
#pragma unroll
    for (int i = 0; i < P; ++i) dst[i] = to_float(pk.elem[i]);
}

/* The bits of -inf in T: a pack that lies past the end of a row is filled with it. */
template <typename T> __device__ __forceinline__ T neg_inf();
template <> __device__ __forceinline__ float neg_inf<float>() { return -INFINITY; }
template <> __device__ __forceinline__ __half neg_inf<__half>() { return __ushort_as_half((unsigned short)0xfc00u); }

/* The two halves of load_pack, for kernels that issue every load of a row before they use any: a use
   inside the branch that guards its load makes the next load wait for this one (the compiler keeps the
   branch when the body holds half conversions), while a load alone in its branch is issued at once. */
template <typename T, int P, bool LAST_USE = false>
__device__ __forceinline__ void load_raw(const T* src, bool valid, pack_t<T, P>& pk)
{
    using word_t = typename word_of<P * (int)sizeof(T)>::type;
    if (valid) {
        if constexpr (LAST_USE) pk.word = __ldcs(reinterpret_cast<const word_t*>(src));
        else pk.word = *reinterpret_cast<const word_t*>(src);
    } else {
#pragma unroll
        for (int i = 0; i < P; ++i) pk.elem[i] = neg_inf<T>();
    }
}

template <typename T, int P>
__device__ __forceinline__ void unpack(const pack_t<T, P>& pk, float* dst)
{
#pragma unroll
    for (int i = 0; i < P; ++i) dst[i] = to_float(pk.elem[i]);
}

template <typename T, int P, bool STREAMING = false>
__device__ __forceinline__ void store_pack(T* dst, const float* src)
{
    using word_t = typename word_of<P * (int)sizeof(T)>::type;
    pack_t<T, P> pk;
#pragma unroll
    for (int i = 0; i < P; ++i) pk.elem[i] = from_float<T>(src[i]);
    if constexpr (STREAMING) __stcs(reinterpret_cast<word_t*>(dst), pk.word);
    else *reinterpret_cast<word_t*>(dst) = pk.word;
}

/* U packs of one row, BLOCK packs apart (thread t owns packs t, t + BLOCK, ...); packs past the end of
   the row read nothing and hold -inf, which adds nothing to a max and exp(-inf - max) = 0 to a sum. */
template <typename T, int P, int U, int BLOCK, bool LAST_USE = false>
__device__ __forceinline__ void load_packs(const T* row, size_t first, size_t n_packs, float (&v)[U][P])
{
    pack_t<T, P> raw[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
        const size_t p = first + (size_t)u * BLOCK;
        load_raw<T, P, LAST_USE>(row + p * P, p < n_packs, raw[u]);   // all U loads in flight first
    }
#pragma unroll
    for (int u = 0; u < U; ++u) unpack<T, P>(raw[u], v[u]);
}

struct op_max {
    __device__ static float identity() { return -INFINITY; }
    __device__ static float apply(float a, float b) { return fmaxf(a, b); }
};
struct op_sum {
    __device__ static float identity() { return 0.0f; }
    __device__ static float apply(float a, float b) { return a + b; }
};

/* All-reduce over aligned groups of G lanes (G = 1, 2, ..., 32). An xor mask below G never leaves the
   group, and both partners of each exchange compute OP(a, b) and OP(b, a): the same bits, so every lane
   of the group ends with the identical result. All 32 lanes must execute it (FULL_MASK). */
template <typename OP, int G>
__device__ __forceinline__ float group_all_reduce(float v)
{
#pragma unroll
    for (int mask = G / 2; mask > 0; mask /= 2) v = OP::apply(v, __shfl_xor_sync(FULL_MASK, v, mask));
    return v;
}

/* Block all-reduce (PyTorch's BlockReduceSum shape): reduce in each warp, one slot per warp in shared
   memory, then every warp reduces the slots so every thread gets the result without another broadcast.
   blockDim.x is a multiple of 32. No barrier at the end: a kernel that reduces twice per row gives each
   reduction its own slots, and the barrier inside the other reduction orders the reuse. */
template <typename OP>
__device__ __forceinline__ float block_all_reduce(float v, float* slots)
{
    const int lane = threadIdx.x % WARP_SIZE;
    const int warp = threadIdx.x / WARP_SIZE;
    v = group_all_reduce<OP, WARP_SIZE>(v);
    if (lane == 0) slots[warp] = v;
    __syncthreads();
    v = lane < (int)(blockDim.x / WARP_SIZE) ? slots[lane] : OP::identity();
    return group_all_reduce<OP, WARP_SIZE>(v);
}

/* Online softmax state: the largest value seen and the sum of exp(x - m) over the values seen. */
struct max_sum {
    float m;
    float s;
};

/* Merge two states: rescale the sum that was taken against the smaller max. Symmetric in its arguments
   (bit for bit), so butterfly shuffles leave every lane with the same state. */
__device__ __forceinline__ max_sum max_sum_combine(max_sum a, max_sum b)
{
    if (a.m < b.m) {
        const max_sum t = a;
        a = b;
        b = t;
    }
    if (b.m == -INFINITY) return a;                   // b saw only -inf, its sum is 0; avoid exp(-inf + inf)
    return { a.m, a.s + b.s * expf(b.m - a.m) };
}

/* Fold N new values into a thread's state: one rescale per batch, one exp per value. */
template <int N>
__device__ __forceinline__ void max_sum_add(max_sum& st, const float* x)
{
    float batch_max = -INFINITY;
#pragma unroll
    for (int i = 0; i < N; ++i) batch_max = fmaxf(batch_max, x[i]);
    if (batch_max > st.m) {
        st.s *= expf(st.m - batch_max);               // st.m == -inf: exp(-inf) = 0, and st.s was 0 anyway
        st.m = batch_max;
    }
    const float ref = st.m == -INFINITY ? 0.0f : st.m;  // only -inf so far: exp(-inf - 0) = 0, not NaN
    float part = 0.0f;
#pragma unroll
    for (int i = 0; i < N; ++i) part += expf(x[i] - ref);
    st.s += part;
}

template <int G>
__device__ __forceinline__ max_sum group_all_reduce_max_sum(max_sum v)
{
#pragma unroll
    for (int mask = G / 2; mask > 0; mask /= 2) {
        const max_sum other = { __shfl_xor_sync(FULL_MASK, v.m, mask), __shfl_xor_sync(FULL_MASK, v.s, mask) };
        v = max_sum_combine(v, other);
    }
    return v;
}

/* Same shape as block_all_reduce; the caller puts a barrier after it before the slots are written again. */
__device__ __forceinline__ max_sum block_all_reduce_max_sum(max_sum v, max_sum* slots)
{
    const int lane = threadIdx.x % WARP_SIZE;
    const int warp = threadIdx.x / WARP_SIZE;
    v = group_all_reduce_max_sum<WARP_SIZE>(v);
    if (lane == 0) slots[warp] = v;
    __syncthreads();
    v = lane < (int)(blockDim.x / WARP_SIZE) ? slots[lane] : max_sum{ -INFINITY, 0.0f };
    return group_all_reduce_max_sum<WARP_SIZE>(v);
}

/* The row cache of block_smem holds floats. A pack of P values is split into chunks of at most 4 floats
   (16 bytes) and chunk c of pack p sits at chunk index c * n_packs + p: consecutive threads own
   consecutive packs, so one warp instruction covers 32 consecutive chunks, every bank equally, no
   conflict. (A half pack is 8 floats = 32 bytes; stored whole, lanes 0 and 4 would share banks.) */
template <int P> struct smem_chunk {
    static constexpr int FLOATS = P < 4 ? P : 4;
    static constexpr int COUNT = P / FLOATS;
};
template <int N> struct alignas(sizeof(float) * N) float_vec { float v[N]; };

template <int P>
__device__ __forceinline__ void smem_put(float* buf, int n_packs, int p, const float* v)
{
    constexpr int F = smem_chunk<P>::FLOATS;
#pragma unroll
    for (int c = 0; c < smem_chunk<P>::COUNT; ++c) {
        float_vec<F> chunk;
#pragma unroll
        for (int i = 0; i < F; ++i) chunk.v[i] = v[c * F + i];
        reinterpret_cast<float_vec<F>*>(buf)[c * n_packs + p] = chunk;
    }
}

template <int P>
__device__ __forceinline__ void smem_get(const float* buf, int n_packs, int p, float* v)
{
    constexpr int F = smem_chunk<P>::FLOATS;
#pragma unroll
    for (int c = 0; c < smem_chunk<P>::COUNT; ++c) {
        const float_vec<F> chunk = reinterpret_cast<const float_vec<F>*>(buf)[c * n_packs + p];
#pragma unroll
        for (int i = 0; i < F; ++i) v[c * F + i] = chunk.v[i];
    }
}

/* ------------------------------------------------------------------------------------------------------ */
/* Kernels                                                                                                */
/* ------------------------------------------------------------------------------------------------------ */

/* naive_thread_per_row
 * Idea: one thread owns a row and loops over it three times in global memory (max, sum of exp, write).
 * Fixes: nothing yet: the CPU loop moved to the GPU, the baseline for everything below.
 * Cost: lanes of a warp read rows cols apart (one sector per lane per load); one long row = one thread.
 * Run: build/07_softmax --variant naive_thread_per_row */
template <typename T, bool LOG>
__global__ void softmax_thread_per_row(const T* __restrict__ in, T* __restrict__ out, size_t rows, size_t cols)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t row = blockIdx.x * (size_t)blockDim.x + threadIdx.x; row < rows; row += stride) {
        const T* x = in + row * cols;
        T* y = out + row * cols;
        float m = -INFINITY;
        for (size_t c = 0; c < cols; ++c) m = fmaxf(m, to_float(x[c]));
        // one float chain of cols adds drifts by about sqrt(cols) ulps; partial sums keep chains short
        float s = 0.0f;
        for (size_t c0 = 0; c0 < cols; c0 += NAIVE_CHUNK) {
            const size_t c1 = cols - c0 < NAIVE_CHUNK ? cols : c0 + NAIVE_CHUNK;
            float part = 0.0f;
            for (size_t c = c0; c < c1; ++c) part += expf(to_float(x[c]) - m);
            s += part;
        }
        const float scale = LOG ? logf(s) : 1.0f / s;  // one division per row, one multiply per element
        for (size_t c = 0; c < cols; ++c) {
            const float d = to_float(x[c]) - m;
            y[c] = from_float<T>(LOG ? d - scale : expf(d) * scale);
        }
    }
}

/* naive_block_3pass
 * Idea: one block per row; consecutive threads read consecutive elements; block reductions for max and sum.
 * Fixes: coalescing (a warp reads 32 neighbours) and a long row spread over 256 threads instead of one.
 * Cost: the row crosses DRAM or L2 three times; scalar loads; exp computed twice per element for softmax.
 * Run: build/07_softmax --variant naive_block_3pass */
template <typename T, bool LOG>
__global__ void __launch_bounds__(NAIVE_BLOCK)
softmax_block_3pass(const T* __restrict__ in, T* __restrict__ out, size_t rows, size_t cols)
{
    __shared__ float max_slots[WARP_SIZE];
    __shared__ float sum_slots[WARP_SIZE];
    for (size_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const T* x = in + row * cols;
        T* y = out + row * cols;
        float m = -INFINITY;
        for (size_t c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, to_float(x[c]));
        m = block_all_reduce<op_max>(m, max_slots);
        float s = 0.0f;
        for (size_t c = threadIdx.x; c < cols; c += blockDim.x) s += expf(to_float(x[c]) - m);
        s = block_all_reduce<op_sum>(s, sum_slots);
        const float scale = LOG ? logf(s) : 1.0f / s;
        for (size_t c = threadIdx.x; c < cols; c += blockDim.x) {
            const float d = to_float(x[c]) - m;
            y[c] = from_float<T>(LOG ? d - scale : expf(d) * scale);
        }
    }
}

/* warp_rows
 * Idea: G lanes (1..32) per row, RPA rows per group, the row read once into a fully unrolled register array.
 * Fixes: the three global passes: one 16-byte read and one write per pack; shuffles instead of barriers.
 * Cost: one instantiation per (pack, G, cols_per_thread) bucket; cols <= 1024 (32 floats per lane).
 * Run: build/07_softmax --variant warp_rows */
template <typename T, bool LOG, int P, int G, int CPT, int RPA>
__global__ void __launch_bounds__(WARP_PATH_BLOCK)
softmax_warp_rows(const T* __restrict__ in, T* __restrict__ out, size_t rows, int cols)
{
    static_assert(CPT % P == 0 && WARP_SIZE % G == 0 && CPT <= WARP_MAX_CPT, "bucket shape");
    constexpr int PACKS = CPT / P;                            // packs per lane per row
    constexpr int ROWS_PER_WARP = (WARP_SIZE / G) * RPA;
    const int lane = threadIdx.x % G;                          // place in the row's group
    const int group = (threadIdx.x % WARP_SIZE) / G;           // which group of the warp
    const size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / WARP_SIZE;
    const size_t n_warps = (size_t)gridDim.x * blockDim.x / WARP_SIZE;

    // The launcher picks the smallest bucket that covers the row (cols > G * (CPT - P)), so only a lane's
    // last pack can lie past the end of the row: tail(k) is a compile-time false for all other packs.
    const auto tail = [&](int k) { return k == PACKS - 1 && (k * G + lane) * P >= cols; };
    // The loop bound is the same for all 32 lanes, so every shuffle below has its 32 participants even
    // when some groups have run out of rows; those groups compute on -inf and store nothing.
    for (size_t base = warp * ROWS_PER_WARP; base < rows; base += n_warps * ROWS_PER_WARP) {
        // First every load of the lap (RPA x PACKS 16-byte words in flight per lane), then any use:
        // a row or pack past the end reads nothing and holds -inf, no effect on the max.
        pack_t<T, P> raw[RPA][PACKS];
#pragma unroll
        for (int r = 0; r < RPA; ++r) {
            const size_t row = base + (size_t)group * RPA + r;
#pragma unroll
            for (int k = 0; k < PACKS; ++k) {
                const int col = (k * G + lane) * P;            // neighbouring lanes, neighbouring packs
                load_raw<T, P>(in + row * cols + col, row < rows && !tail(k), raw[r][k]);
            }
        }
        float buf[RPA][CPT];                                   // the rows, in registers: indices are constants
        float row_max[RPA];
#pragma unroll
        for (int r = 0; r < RPA; ++r) {
            row_max[r] = -INFINITY;
#pragma unroll
            for (int k = 0; k < PACKS; ++k) {
                unpack<T, P>(raw[r][k], &buf[r][k * P]);
#pragma unroll
                for (int i = 0; i < P; ++i) row_max[r] = fmaxf(row_max[r], buf[r][k * P + i]);
            }
        }
#pragma unroll
        for (int r = 0; r < RPA; ++r) row_max[r] = group_all_reduce<op_max, G>(row_max[r]);

        float row_sum[RPA];
#pragma unroll
        for (int r = 0; r < RPA; ++r) {
            row_sum[r] = 0.0f;
#pragma unroll
            for (int k = 0; k < PACKS; ++k) {
                if (!tail(k)) {                                // padding skips the exp
#pragma unroll
                    for (int i = 0; i < P; ++i) {
                        const float d = buf[r][k * P + i] - row_max[r];
                        const float e = expf(d);
                        row_sum[r] += e;
                        buf[r][k * P + i] = LOG ? d : e;       // keep what the write needs
                    }
                }
            }
        }
#pragma unroll
        for (int r = 0; r < RPA; ++r) row_sum[r] = group_all_reduce<op_sum, G>(row_sum[r]);

#pragma unroll
        for (int r = 0; r < RPA; ++r) {
            const size_t row = base + (size_t)group * RPA + r;
            const float scale = LOG ? logf(row_sum[r]) : 1.0f / row_sum[r];
#pragma unroll
            for (int k = 0; k < PACKS; ++k) {
                const int col = (k * G + lane) * P;
                if (row < rows && !tail(k)) {
                    float y[P];
#pragma unroll
                    for (int i = 0; i < P; ++i) y[i] = LOG ? buf[r][k * P + i] - scale : buf[r][k * P + i] * scale;
                    store_pack<T, P>(out + row * cols + col, y);
                }
            }
        }
    }
}

/* block_smem
 * Idea: one block per row; pass 1 copies the row into shared memory, passes 2 and 3 work from there.
 * Fixes: rows too long for registers (cols > 1024) still cross DRAM once each way.
 * Cost: cols x 4 bytes of shared memory per block bounds occupancy and the longest row (227 KB on sm_90).
 * Run: build/07_softmax --variant block_smem */
template <typename T, bool LOG, int P>
__global__ void __launch_bounds__(SMEM_BLOCK_MAX)
softmax_block_smem(const T* __restrict__ in, T* __restrict__ out, size_t rows, int cols)
{
    extern __shared__ float4 smem_rows[];                     // float4: 16-byte aligned for 16-byte chunks
    float* row_buf = reinterpret_cast<float*>(smem_rows);
    __shared__ float max_slots[WARP_SIZE];
    __shared__ float sum_slots[WARP_SIZE];
    const int n_packs = cols / P;
    // Each thread only ever reads back the packs it wrote itself, so row_buf needs no barrier: the
    // shared memory is there for its size, not for sharing. Only the two reductions synchronize.
    for (size_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const T* x = in + row * cols;
        T* y = out + row * cols;
        float m = -INFINITY;
#pragma unroll 4
        for (int p = threadIdx.x; p < n_packs; p += blockDim.x) {
            float v[P];
            load_pack<T, P>(x + (size_t)p * P, v);
            smem_put<P>(row_buf, n_packs, p, v);
#pragma unroll
            for (int i = 0; i < P; ++i) m = fmaxf(m, v[i]);
        }
        m = block_all_reduce<op_max>(m, max_slots);

        float s = 0.0f;
#pragma unroll 4
        for (int p = threadIdx.x; p < n_packs; p += blockDim.x) {
            float v[P];
            smem_get<P>(row_buf, n_packs, p, v);
#pragma unroll
            for (int i = 0; i < P; ++i) {
                const float e = expf(v[i] - m);
                s += e;
                v[i] = e;
            }
            if (!LOG) smem_put<P>(row_buf, n_packs, p, v);     // softmax reuses exp; log-softmax keeps x
        }
        s = block_all_reduce<op_sum>(s, sum_slots);

        const float scale = LOG ? logf(s) : 1.0f / s;
#pragma unroll 4
        for (int p = threadIdx.x; p < n_packs; p += blockDim.x) {
            float v[P];
            smem_get<P>(row_buf, n_packs, p, v);
#pragma unroll
            for (int i = 0; i < P; ++i) v[i] = LOG ? (v[i] - m) - scale : v[i] * scale;
            store_pack<T, P>(y + (size_t)p * P, v);
        }
    }
}

/* block_regs
 * Idea: one block per row, the row in registers (32 values per thread), block all-reduces for max and sum;
 *       the block is sized at launch to cover the row. PREFETCH: the next row streams into shared memory.
 * Fixes: block_smem's round trip through shared memory; every load of a thread is in flight at once.
 * Cost: cols <= 1024 threads x 32 values; two barriers per row, during which the block moves no data.
 * Run: build/07_softmax --variant block_regs */
template <typename T, bool LOG, int P, bool PREFETCH>
__global__ void __launch_bounds__(REGS_BLOCK_MAX)
softmax_block_regs(const T* __restrict__ in, T* __restrict__ out, size_t rows, int cols)
{
    static_assert(REGS_CPT % P == 0, "a thread holds whole packs");
    static_assert(!PREFETCH || P * sizeof(T) == PACK_BYTES, "cp.async moves whole 16-byte packs here");
    constexpr int PACKS = REGS_CPT / P;                       // packs per thread
    using word_t = typename word_of<P * (int)sizeof(T)>::type;
    extern __shared__ float4 next_row[];                      // PREFETCH: the block's next row, as loaded
    __shared__ float max_slots[WARP_SIZE];
    __shared__ float sum_slots[WARP_SIZE];
    const int n_packs = cols / P;
    // Pack k of this thread is pack k * blockDim.x + threadIdx.x of the row, so a warp instruction covers
    // 32 neighbouring packs. It exists for k < my_packs: one compare with a constant per pack.
    const int my_packs = threadIdx.x < n_packs ? (n_packs - threadIdx.x + blockDim.x - 1) / blockDim.x : 0;
    const auto valid = [&](int k) { return k < my_packs; };

    // PREFETCH: slot k of this thread mirrors pack k, so a warp's 32 slots are 512 contiguous bytes (no
    // bank conflict), and each thread reads back only what it copied itself: no barrier for the buffer.
    const auto slot = [&](int k) { return reinterpret_cast<word_t*>(next_row) + k * blockDim.x + threadIdx.x; };
    const auto prefetch = [&](size_t r) {                     // cp.async: global to shared, no register
        const T* x = in + r * cols + threadIdx.x * P;
#pragma unroll
        for (int k = 0; k < PACKS; ++k)
            if (valid(k)) __pipeline_memcpy_async(slot(k), x + k * blockDim.x * P, PACK_BYTES);
        __pipeline_commit();
    };
    if constexpr (PREFETCH) {
        if (blockIdx.x < rows) prefetch(blockIdx.x);
    }

    for (size_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const T* x = in + row * cols + threadIdx.x * P;
        T* y = out + row * cols + threadIdx.x * P;
        // With one element per pack the compiler would keep all 32 offsets k * step live from the loads to
        // the stores (spills); an opaque copy of the stride, refreshed before the stores, stops that. Not
        // for wider packs: there the stride must stay visibly a multiple of P for 16-byte stores.
        int step = blockDim.x * P;
        if constexpr (P == 1) asm volatile("" : "+r"(step));
        pack_t<T, P> raw[PACKS];                              // every load of the row in flight at once
        if constexpr (PREFETCH) {
            __pipeline_wait_prior(0);                         // this thread's copies of this row have landed
#pragma unroll
            for (int k = 0; k < PACKS; ++k) {
                if (valid(k)) {
                    raw[k].word = *slot(k);
                } else {
#pragma unroll
                    for (int i = 0; i < P; ++i) raw[k].elem[i] = neg_inf<T>();
                }
            }
        } else {
#pragma unroll
            for (int k = 0; k < PACKS; ++k) load_raw<T, P>(x + k * step, valid(k), raw[k]);
        }

        float buf[REGS_CPT];                                  // the row, in registers: indices are constants
        float m = -INFINITY;
#pragma unroll
        for (int k = 0; k < PACKS; ++k) {
            unpack<T, P>(raw[k], &buf[k * P]);
#pragma unroll
            for (int i = 0; i < P; ++i) m = fmaxf(m, buf[k * P + i]);
        }
        m = block_all_reduce<op_max>(m, max_slots);
        if constexpr (PREFETCH) {
            // past that barrier every thread has read its slots: refill them with the block's next row,
            // which streams in while this one is summed, scaled and written
            if (row + gridDim.x < rows) prefetch(row + gridDim.x);
        }

        // Padding holds -inf: exp(-inf - m) = 0 adds nothing, so this pass needs no bounds test (a row of
        // all -inf has m = -inf and NaN everywhere, padding included, which is the right answer).
        float s = 0.0f;
#pragma unroll
        for (int i = 0; i < REGS_CPT; ++i) {
            const float e = expf(buf[i] - m);
            s += e;
            if (!LOG) buf[i] = e;                             // log-softmax keeps x: fewer live values
        }
        s = block_all_reduce<op_sum>(s, sum_slots);

        const float scale = LOG ? logf(s) : 1.0f / s;
        if constexpr (P == 1) asm volatile("" : "+r"(step));
#pragma unroll
        for (int k = 0; k < PACKS; ++k) {
            if (valid(k)) {
                float v[P];
#pragma unroll
                for (int i = 0; i < P; ++i) v[i] = LOG ? (buf[k * P + i] - m) - scale : buf[k * P + i] * scale;
                store_pack<T, P>(P == 1 ? y : y + k * step, v);
            }
            if constexpr (P == 1) {
                y += step;                                    // one address at a time, not 32 at once
                asm volatile("" : "+l"(y));
            }
        }
    }
}

/* block_uncached
 * Idea: one block of 1024 threads per row, three packed passes over global memory, 4 packs in flight.
 * Fixes: rows longer than shared memory; few rows in flight and evict-first writes keep re-reads in L2.
 * Cost: the row is read three times (twice more from L2 at best); any length, but one SM per row.
 * Run: build/07_softmax --variant block_uncached */
template <typename T, bool LOG, int P>
__global__ void __launch_bounds__(ROW_BLOCK)
softmax_block_uncached(const T* __restrict__ in, T* __restrict__ out, size_t rows, size_t cols)
{
    __shared__ float max_slots[WARP_SIZE];
    __shared__ float sum_slots[WARP_SIZE];
    const size_t n_packs = cols / P;
    constexpr size_t STEP = (size_t)ROW_UNROLL * ROW_BLOCK;
    for (size_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const T* x = in + row * cols;
        T* y = out + row * cols;
        float m = -INFINITY;
        for (size_t p = threadIdx.x; p < n_packs; p += STEP) {
            float v[ROW_UNROLL][P];
            load_packs<T, P, ROW_UNROLL, ROW_BLOCK>(x, p, n_packs, v);
#pragma unroll
            for (int u = 0; u < ROW_UNROLL; ++u)
#pragma unroll
                for (int i = 0; i < P; ++i) m = fmaxf(m, v[u][i]);
        }
        m = block_all_reduce<op_max>(m, max_slots);

        float s = 0.0f;
        for (size_t p = threadIdx.x; p < n_packs; p += STEP) {
            float v[ROW_UNROLL][P];
            load_packs<T, P, ROW_UNROLL, ROW_BLOCK>(x, p, n_packs, v);
            float part = 0.0f;                                 // short chains: a partial per iteration
#pragma unroll
            for (int u = 0; u < ROW_UNROLL; ++u)
#pragma unroll
                for (int i = 0; i < P; ++i) part += expf(v[u][i] - m);
            s += part;
        }
        s = block_all_reduce<op_sum>(s, sum_slots);

        const float scale = LOG ? logf(s) : 1.0f / s;
        for (size_t p = threadIdx.x; p < n_packs; p += STEP) {
            float v[ROW_UNROLL][P];
            load_packs<T, P, ROW_UNROLL, ROW_BLOCK, true>(x, p, n_packs, v);
#pragma unroll
            for (int u = 0; u < ROW_UNROLL; ++u) {
                const size_t q = p + (size_t)u * ROW_BLOCK;
                if (q < n_packs) {
#pragma unroll
                    for (int i = 0; i < P; ++i) v[u][i] = LOG ? (v[u][i] - m) - scale : expf(v[u][i] - m) * scale;
                    store_pack<T, P, true>(y + q * P, v[u]);
                }
            }
        }
    }
}

/* online
 * Idea: one pass keeps (max, sum of exp) per thread, rescaling the sum when the max grows; then one write pass.
 * Fixes: block_uncached's separate max pass: two reads of the row instead of three.
 * Cost: an extra exp per batch and per merge; no gain where the row sits in registers or shared memory.
 * Run: build/07_softmax --variant online */
template <typename T, bool LOG, int P, int U = ROW_UNROLL>
__global__ void __launch_bounds__(ROW_BLOCK)
softmax_online(const T* __restrict__ in, T* __restrict__ out, size_t rows, size_t cols)
{
    __shared__ max_sum slots[WARP_SIZE];
    const size_t n_packs = cols / P;
    constexpr size_t STEP = (size_t)U * ROW_BLOCK;
    for (size_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const T* x = in + row * cols;
        T* y = out + row * cols;
        max_sum st = { -INFINITY, 0.0f };
        for (size_t p = threadIdx.x; p < n_packs; p += STEP) {
            float v[U][P];
            load_packs<T, P, U, ROW_BLOCK>(x, p, n_packs, v);
            max_sum_add<U * P>(st, &v[0][0]);
        }
        st = block_all_reduce_max_sum(st, slots);
        __syncthreads();                                       // every warp has read slots before the next row

        const float scale = LOG ? logf(st.s) : 1.0f / st.s;
        for (size_t p = threadIdx.x; p < n_packs; p += STEP) {
            float v[U][P];
            load_packs<T, P, U, ROW_BLOCK, true>(x, p, n_packs, v);
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const size_t q = p + (size_t)u * ROW_BLOCK;
                if (q < n_packs) {
#pragma unroll
                    for (int i = 0; i < P; ++i)
                        v[u][i] = LOG ? (v[u][i] - st.m) - scale : expf(v[u][i] - st.m) * scale;
                    store_pack<T, P, true>(y + q * P, v[u]);
                }
            }
        }
    }
}

/* ------------------------------------------------------------------------------------------------------ */
/* Host helpers                                                                                           */
/* ------------------------------------------------------------------------------------------------------ */

struct device_info {
    int id;
    int sm_count;
    int max_threads_per_sm;
    size_t smem_optin;        // the most shared memory one block may ask for (227 KB on sm_90)
    size_t l2_bytes;          // L2 cache size (50 MB on H100)
};

/* Attributes of the current device, queried once per device and kept: launchers run in timing loops.
   Returns cudaSuccess or the error of the failed query. */
static cudaError_t get_device_info(device_info* info)
{
    static device_info cached = { -1, 0, 0, 0, 0 };
    int dev;
    cudaError_t err = cudaGetDevice(&dev);
    if (err != cudaSuccess) return err;
    if (dev != cached.id) {
        int sms, threads, optin, l2;
        if ((err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess) return err;
        if ((err = cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, dev)) != cudaSuccess)
            return err;
        if ((err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)) != cudaSuccess)
            return err;
        if ((err = cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev)) != cudaSuccess) return err;
        cached = { dev, sms, threads, (size_t)optin, (size_t)l2 };
    }
    *info = cached;
    return cudaSuccess;
}

static unsigned grid_size(size_t blocks_needed, size_t cap)
{
    const size_t g = blocks_needed < cap ? blocks_needed : cap;
    return (unsigned)(g > 0 ? g : 1);
}

/* 16-byte packs need both pointers 16-byte aligned and cols a multiple of the pack, so that every row
   starts aligned too; otherwise the kernels fall back to one element per access. */
template <typename T>
static bool full_pack_fits(const void* d_in, const void* d_out, size_t cols)
{
    return cols % full_pack<T>() == 0 && (uintptr_t)d_in % PACK_BYTES == 0 && (uintptr_t)d_out % PACK_BYTES == 0;
}

/* ------------------------------------------------------------------------------------------------------ */
/* Launchers                                                                                              */
/* ------------------------------------------------------------------------------------------------------ */

template <typename T, bool LOG>
static cudaError_t launch_thread_per_row(const void* d_in, void* d_out, size_t rows, size_t cols, void*,
                                         cudaStream_t s)
{
    if (rows == 0 || cols == 0) return cudaSuccess;
    device_info dev;
    cudaError_t err = get_device_info(&dev);
    if (err != cudaSuccess) return err;
    const size_t cap = (size_t)dev.sm_count * (dev.max_threads_per_sm / NAIVE_BLOCK) * GRID_WAVES;
    softmax_thread_per_row<T, LOG><<<grid_size((rows + NAIVE_BLOCK - 1) / NAIVE_BLOCK, cap), NAIVE_BLOCK, 0, s>>>(
        (const T*)d_in, (T*)d_out, rows, cols);
    return cudaGetLastError();
}

template <typename T, bool LOG>
static cudaError_t launch_block_3pass(const void* d_in, void* d_out, size_t rows, size_t cols, void*,
                                      cudaStream_t s)
{
    if (rows == 0 || cols == 0) return cudaSuccess;
    device_info dev;
    cudaError_t err = get_device_info(&dev);
    if (err != cudaSuccess) return err;
    const size_t cap = (size_t)dev.sm_count * (dev.max_threads_per_sm / NAIVE_BLOCK) * GRID_WAVES;
    softmax_block_3pass<T, LOG><<<grid_size(rows, cap), NAIVE_BLOCK, 0, s>>>((const T*)d_in, (T*)d_out, rows, cols);
    return cudaGetLastError();
}

/* --- warp_rows: one instantiation per bucket, chosen at run time from cols --- */

template <typename T, bool LOG, int P, int G, int CPT, int RPA>
static cudaError_t warp_rows_launch(const T* in, T* out, size_t rows, int cols, cudaStream_t s)
{
    device_info dev;
    cudaError_t err = get_device_info(&dev);
    if (err != cudaSuccess) return err;
    constexpr size_t ROWS_PER_BLOCK = (WARP_PATH_BLOCK / WARP_SIZE) * (WARP_SIZE / G) * RPA;
    const size_t cap = (size_t)dev.sm_count * (dev.max_threads_per_sm / WARP_PATH_BLOCK) * GRID_WAVES;
    softmax_warp_rows<T, LOG, P, G, CPT, RPA>
        <<<grid_size((rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK, cap), WARP_PATH_BLOCK, 0, s>>>(in, out, rows, cols);
    return cudaGetLastError();
}

/* cols <= 32 * P: one pack per lane, the narrowest group that covers the row, RPA rows per group so
   each lane still has RPA loads in flight. */
template <typename T, bool LOG, int P, int G, int RPA>
static cudaError_t warp_rows_narrow(const T* in, T* out, size_t rows, int cols, cudaStream_t s)
{
    if constexpr (G < WARP_SIZE) {
        if (cols > G * P) return warp_rows_narrow<T, LOG, P, 2 * G, RPA>(in, out, rows, cols, s);
    }
    return warp_rows_launch<T, LOG, P, G, P, RPA>(in, out, rows, cols, s);
}

/* cols > 32 * P: the whole warp per row, cols_per_thread the smallest multiple of P that covers it. */
template <typename T, bool LOG, int P, int CPT>
static cudaError_t warp_rows_wide(const T* in, T* out, size_t rows, int cols, cudaStream_t s)
{
    if constexpr (CPT < WARP_MAX_CPT) {
        if (cols > WARP_SIZE * CPT) return warp_rows_wide<T, LOG, P, CPT + P>(in, out, rows, cols, s);
    }
    return warp_rows_launch<T, LOG, P, WARP_SIZE, CPT, 1>(in, out, rows, cols, s);
}

template <typename T, bool LOG, int P, int RPA>
static cudaError_t warp_rows_pack(const T* in, T* out, size_t rows, int cols, cudaStream_t s)
{
    if (cols <= WARP_SIZE * P) return warp_rows_narrow<T, LOG, P, 1, RPA>(in, out, rows, cols, s);
    return warp_rows_wide<T, LOG, P, 2 * P>(in, out, rows, cols, s);
}

template <typename T, bool LOG, int RPA = warp_narrow_rpa<T>()>
static cudaError_t launch_warp_rows(const void* d_in, void* d_out, size_t rows, size_t cols, void*, cudaStream_t s)
{
    if (cols > WARP_MAX_COLS) return cudaErrorInvalidValue;
    if (rows == 0 || cols == 0) return cudaSuccess;
    const T* in = (const T*)d_in;
    T* out = (T*)d_out;
    if (full_pack_fits<T>(d_in, d_out, cols))
        return warp_rows_pack<T, LOG, full_pack<T>(), RPA>(in, out, rows, (int)cols, s);
    return warp_rows_pack<T, LOG, 1, RPA>(in, out, rows, (int)cols, s);
}

/* --- block_smem --- */

/* Block size and resident blocks per SM for a cached row of cols floats, as OneFlow's
   TryDispatchSoftmaxBlockSMemImplBlockSize picks it: count the blocks of 128 threads that fit on an SM,
   then take the largest of 256, 512, 1024 that keeps that count (more threads for free). *blocks_per_sm
   is 0 when the row does not fit. The last answer is kept: a timing loop asks the same question. */
template <typename T, bool LOG, int P>
static cudaError_t block_smem_config(size_t cols, int* block, int* blocks_per_sm)
{
    static int cached_dev = -1, cached_block = 0, cached_active = 0, attr_dev = -1;
    static size_t cached_cols = 0, attr_bytes = 0;
    device_info dev;
    cudaError_t err = get_device_info(&dev);
    if (err != cudaSuccess) return err;
    if (dev.id == cached_dev && cols == cached_cols) {
        *block = cached_block;
        *blocks_per_sm = cached_active;
        return cudaSuccess;
    }
    *block = SMEM_BLOCK_MIN;
    *blocks_per_sm = 0;
    const size_t slot_bytes = 2 * WARP_SIZE * sizeof(float);             // max_slots and sum_slots
    if (cols > (dev.smem_optin - slot_bytes) / sizeof(float)) return cudaSuccess;  // the row does not fit
    const size_t bytes = cols * sizeof(float);
    auto kernel = softmax_block_smem<T, LOG, P>;
    if (bytes > SMEM_DEFAULT_BYTES && (attr_dev != dev.id || bytes > attr_bytes)) {
        // past 48 KB a kernel must opt in to its dynamic shared memory (sm_70 and later)
        err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
        if (err != cudaSuccess) return err;
        attr_dev = dev.id;
        attr_bytes = bytes;
    }
    int base = 0;
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&base, kernel, SMEM_BLOCK_MIN, bytes);
    if (err != cudaSuccess) return err;
    if (base > 0) {
        for (int b = 2 * SMEM_BLOCK_MIN; b <= SMEM_BLOCK_MAX; b *= 2) {
            int active = 0;
            err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&active, kernel, b, bytes);
            if (err != cudaSuccess) return err;
            if (active == base) *block = b;                        // the largest block that keeps the count
        }
    }
    *blocks_per_sm = base;
    cached_dev = dev.id;
    cached_cols = cols;
    cached_block = *block;
    cached_active = base;
    return cudaSuccess;
}

template <typename T, bool LOG, int P>
static cudaError_t block_smem_pack(const T* in, T* out, size_t rows, size_t cols, cudaStream_t s)
{
    int block, active;
    cudaError_t err = block_smem_config<T, LOG, P>(cols, &block, &active);
    if (err != cudaSuccess) return err;
    if (active == 0) return cudaErrorInvalidValue;           // supports() said no to this shape
    device_info dev;
    if ((err = get_device_info(&dev)) != cudaSuccess) return err;
    const size_t cap = (size_t)dev.sm_count * active * GRID_WAVES;
    softmax_block_smem<T, LOG, P><<<grid_size(rows, cap), block, cols * sizeof(float), s>>>(in, out, rows, (int)cols);
    return cudaGetLastError();
}

template <typename T, bool LOG>
static cudaError_t launch_block_smem(const void* d_in, void* d_out, size_t rows, size_t cols, void*, cudaStream_t s)
{
    if (rows == 0 || cols == 0) return cudaSuccess;
    const T* in = (const T*)d_in;
    T* out = (T*)d_out;
    if (full_pack_fits<T>(d_in, d_out, cols)) return block_smem_pack<T, LOG, full_pack<T>()>(in, out, rows, cols, s);
    return block_smem_pack<T, LOG, 1>(in, out, rows, cols, s);
}

/* --- block_regs: 32 values per thread, the block size from cols --- */

/* Threads for a row of n_packs packs, packs_per_thread each: whole warps, so the reductions see full warps. */
static int block_regs_threads(int n_packs, int packs_per_thread)
{
    const int threads = (n_packs + packs_per_thread - 1) / packs_per_thread;
    return (threads + WARP_SIZE - 1) / WARP_SIZE * WARP_SIZE;
}

template <typename T, bool LOG, int P, bool PREFETCH>
static cudaError_t block_regs_launch(const T* in, T* out, size_t rows, int cols, cudaStream_t s)
{
    static int cached_dev = -1, cached_threads = 0, cached_active = 0, attr_dev = -1;
    static size_t attr_bytes = 0;
    device_info dev;
    cudaError_t err = get_device_info(&dev);
    if (err != cudaSuccess) return err;
    constexpr int PACKS = REGS_CPT / P;
    const int threads = block_regs_threads(cols / P, PACKS);
    if (threads > REGS_BLOCK_MAX) return cudaErrorInvalidValue;
    const size_t smem = PREFETCH ? (size_t)PACKS * threads * PACK_BYTES : 0;   // one row, as loaded
    if constexpr (PREFETCH) {
        if (smem > dev.smem_optin) return block_regs_launch<T, LOG, P, false>(in, out, rows, cols, s);
    }
    auto kernel = softmax_block_regs<T, LOG, P, PREFETCH>;
    if (smem > SMEM_DEFAULT_BYTES && (attr_dev != dev.id || smem > attr_bytes)) {
        // past 48 KB a kernel must opt in to its dynamic shared memory (sm_70 and later)
        err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (err != cudaSuccess) return err;
        attr_dev = dev.id;
        attr_bytes = smem;
    }
    if (dev.id != cached_dev || threads != cached_threads) {
        // resident blocks of this size (smem follows from threads): they size the grid; a timing loop asks
        // the same question again and again, so keep the last answer
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&cached_active, kernel, threads, smem);
        if (err != cudaSuccess) return err;
        cached_dev = dev.id;
        cached_threads = threads;
    }
    const int active = cached_active > 0 ? cached_active : 1;
    // With a prefetch each resident block loops over its rows (it needs a next row to fetch). Without, one
    // row per block: the hardware gives an SM a fresh block as soon as one finishes, which balances better.
    const size_t cap = (size_t)dev.sm_count * active * (PREFETCH ? 1 : GRID_WAVES);
    kernel<<<grid_size(rows, cap), threads, smem, s>>>(in, out, rows, cols);
    return cudaGetLastError();
}

/* The prefetch pays only for half rows past REGS_PREFETCH_HALF_COLS (measured): a half row carries twice
   the values per byte, so its block computes longer per byte moved, and blocks of 512 threads or more
   leave too few resident rows to cover that time. For float rows the extra trip through shared memory
   and the fixed rows per block cost more than the overlap gains. */
template <typename T, bool LOG>
static cudaError_t launch_block_regs(const void* d_in, void* d_out, size_t rows, size_t cols, void*, cudaStream_t s)
{
    if (cols > (size_t)REGS_MAX_COLS) return cudaErrorInvalidValue;
    if (rows == 0 || cols == 0) return cudaSuccess;
    const T* in = (const T*)d_in;
    T* out = (T*)d_out;
    constexpr int P = full_pack<T>();
    if (!full_pack_fits<T>(d_in, d_out, cols))
        return block_regs_launch<T, LOG, 1, false>(in, out, rows, (int)cols, s);   // cp.async: 16 B here
    if constexpr (sizeof(T) == 2) {
        if (cols > (size_t)REGS_PREFETCH_HALF_COLS)
            return block_regs_launch<T, LOG, P, true>(in, out, rows, (int)cols, s);
    }
    return block_regs_launch<T, LOG, P, false>(in, out, rows, (int)cols, s);
}

/* --- block_uncached and online: one block of ROW_BLOCK threads per row --- */

/* Their grid: every block the GPU holds at once, but no more rows in flight than half of L2 holds (and
   at least one block per SM), so the second read of a row comes from L2 rather than DRAM. The row
   loop inside the kernel takes any remaining rows. */
static unsigned row_block_grid(const device_info& dev, int blocks_per_sm, size_t rows, size_t row_bytes)
{
    const size_t resident = (size_t)dev.sm_count * (blocks_per_sm > 0 ? blocks_per_sm : 1);
    size_t fit = dev.l2_bytes / 2 / row_bytes;
    if (fit < (size_t)dev.sm_count) fit = dev.sm_count;
    return grid_size(rows, resident < fit ? resident : fit);
}

/* Resident blocks per SM of one kernel at ROW_BLOCK threads, asked once per device and kept. */
template <typename KERNEL>
static cudaError_t row_block_occupancy(KERNEL kernel, int device, int* cached_dev, int* blocks_per_sm)
{
    if (*cached_dev == device) return cudaSuccess;
    cudaError_t err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, kernel, ROW_BLOCK, 0);
    if (err == cudaSuccess) *cached_dev = device;
    return err;
}

template <typename T, bool LOG, int P>
static cudaError_t block_uncached_pack(const T* in, T* out, size_t rows, size_t cols, cudaStream_t s)
{
    static int cached_dev = -1, blocks_per_sm = 0;
    device_info dev;
    cudaError_t err = get_device_info(&dev);
    if (err != cudaSuccess) return err;
    auto kernel = softmax_block_uncached<T, LOG, P>;
    if ((err = row_block_occupancy(kernel, dev.id, &cached_dev, &blocks_per_sm)) != cudaSuccess) return err;
    kernel<<<row_block_grid(dev, blocks_per_sm, rows, cols * sizeof(T)), ROW_BLOCK, 0, s>>>(in, out, rows, cols);
    return cudaGetLastError();
}

template <typename T, bool LOG>
static cudaError_t launch_block_uncached(const void* d_in, void* d_out, size_t rows, size_t cols, void*,
                                         cudaStream_t s)
{
    if (rows == 0 || cols == 0) return cudaSuccess;
    const T* in = (const T*)d_in;
    T* out = (T*)d_out;
    if (full_pack_fits<T>(d_in, d_out, cols))
        return block_uncached_pack<T, LOG, full_pack<T>()>(in, out, rows, cols, s);
    return block_uncached_pack<T, LOG, 1>(in, out, rows, cols, s);
}

template <typename T, bool LOG, int P, int U>
static cudaError_t online_pack(const T* in, T* out, size_t rows, size_t cols, cudaStream_t s)
{
    static int cached_dev = -1, blocks_per_sm = 0;
    device_info dev;
    cudaError_t err = get_device_info(&dev);
    if (err != cudaSuccess) return err;
    auto kernel = softmax_online<T, LOG, P, U>;
    if ((err = row_block_occupancy(kernel, dev.id, &cached_dev, &blocks_per_sm)) != cudaSuccess) return err;
    kernel<<<row_block_grid(dev, blocks_per_sm, rows, cols * sizeof(T)), ROW_BLOCK, 0, s>>>(in, out, rows, cols);
    return cudaGetLastError();
}

/* online batches ONLINE_VALUES values per thread: 8 float packs or 4 half packs in flight; one element
   per access keeps block_uncached's ROW_UNROLL. */
template <typename T, bool LOG>
static cudaError_t launch_online(const void* d_in, void* d_out, size_t rows, size_t cols, void*, cudaStream_t s)
{
    if (rows == 0 || cols == 0) return cudaSuccess;
    const T* in = (const T*)d_in;
    T* out = (T*)d_out;
    constexpr int P = full_pack<T>();
    if (full_pack_fits<T>(d_in, d_out, cols)) return online_pack<T, LOG, P, ONLINE_VALUES / P>(in, out, rows, cols, s);
    return online_pack<T, LOG, 1, ROW_UNROLL>(in, out, rows, cols, s);
}

/* --- dispatch: OneFlow's DispatchSoftmax, with the register path in place of the shared-memory one ---
 *   cols <= 1024                              warp_rows (G, cols_per_thread, rows_per_access from cols)
 *   cols <= 32768                             block_regs (a block of cols / 32 threads, the row in registers)
 *   longer rows                               online (two reads of the row instead of block_uncached's three)
 * block_smem is never the fastest: block_regs keeps more rows resident per SM up to 32768, and past that
 * a row held in shared memory leaves one block per SM, whose barriers idle the memory. */
template <typename T, bool LOG>
static cudaError_t launch_dispatch(const void* d_in, void* d_out, size_t rows, size_t cols, void* ws, cudaStream_t s)
{
    if (rows == 0 || cols == 0) return cudaSuccess;
    if (cols <= WARP_MAX_COLS) return launch_warp_rows<T, LOG>(d_in, d_out, rows, cols, ws, s);
    if (cols <= (size_t)REGS_MAX_COLS) return launch_block_regs<T, LOG>(d_in, d_out, rows, cols, ws, s);
    return launch_online<T, LOG>(d_in, d_out, rows, cols, ws, s);
}

/* ------------------------------------------------------------------------------------------------------ */
/* supports() and workspace_bytes()                                                                       */
/* ------------------------------------------------------------------------------------------------------ */

template <typename T>
static int supports_any(size_t rows, size_t cols)
{
    return rows >= 1 && cols >= 1;
}

template <typename T>
static int supports_warp_rows(size_t rows, size_t cols)
{
    return rows >= 1 && cols >= 1 && cols <= WARP_MAX_COLS;
}

/* The row (as floats) plus the reduction slots must fit in the shared memory one block can opt in to,
   and one block of 128 threads must be resident. */
template <typename T>
static int supports_block_smem(size_t rows, size_t cols)
{
    if (rows < 1 || cols < 1) return 0;
    int block, active;
    if (block_smem_config<T, false, 1>(cols, &block, &active) != cudaSuccess) return 0;
    return active > 0;
}

template <typename T>
static int supports_block_regs(size_t rows, size_t cols)
{
    return rows >= 1 && cols >= 1 && cols <= (size_t)REGS_MAX_COLS;
}

static size_t no_workspace(size_t, size_t) { return 0; }

/* ------------------------------------------------------------------------------------------------------ */
/* Variant table                                                                                          */
/* ------------------------------------------------------------------------------------------------------ */

/* One path, four entries with the same name: the driver tells them apart by --op and --dtype. */
#define SOFTMAX_VARIANTS(name, idea, supports, launcher)                                                       \
    { name, idea, OP_SOFTMAX, DT_F32, DT_F32, supports<float>, no_workspace, launcher<float, false> },         \
    { name, idea, OP_LOGSOFTMAX, DT_F32, DT_F32, supports<float>, no_workspace, launcher<float, true> },       \
    { name, idea, OP_SOFTMAX, DT_F16, DT_F16, supports<__half>, no_workspace, launcher<__half, false> },       \
    { name, idea, OP_LOGSOFTMAX, DT_F16, DT_F16, supports<__half>, no_workspace, launcher<__half, true> }

static const variant_t variants[] = {
    SOFTMAX_VARIANTS("naive_thread_per_row", "one thread per row, three loops over global memory",
                     supports_any, launch_thread_per_row),
    SOFTMAX_VARIANTS("naive_block_3pass", "one block per row, three coalesced passes, block reductions",
                     supports_any, launch_block_3pass),
    SOFTMAX_VARIANTS("warp_rows", "1..32 lanes per row, row in registers, 16-byte packs, shuffle reductions",
                     supports_warp_rows, launch_warp_rows),
    SOFTMAX_VARIANTS("block_smem", "one block per row, row cached in shared memory, block size from occupancy",
                     supports_block_smem, launch_block_smem),
    SOFTMAX_VARIANTS("block_regs", "one block of cols/32 threads per row, row in registers; half: next row prefetched",
                     supports_block_regs, launch_block_regs),
    SOFTMAX_VARIANTS("block_uncached", "one block per row, three packed passes, re-reads served by L2",
                     supports_any, launch_block_uncached),
    SOFTMAX_VARIANTS("online", "one block per row, running (max, sum) in one pass, then the write pass",
                     supports_any, launch_online),
    SOFTMAX_VARIANTS("dispatch", "warp_rows up to 1024 cols, block_regs up to 32768, else online",
                     supports_any, launch_dispatch),
};

#undef SOFTMAX_VARIANTS

/* ------------------------------------------------------------------------------------------------------ */
/* Descriptor                                                                                             */
/* ------------------------------------------------------------------------------------------------------ */

extern "C" const stage_t stage_07_softmax = { "07_softmax", "Softmax, OneFlow style", variants,
                                              sizeof(variants) / sizeof(variants[0]) };
