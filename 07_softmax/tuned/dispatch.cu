// SPDX-License-Identifier: MIT
// 07_softmax/softmax_tuned.cu: the production softmax behind the `dispatch` variant.
//
// softmax.cu teaches the paths one change at a time, in plain float. This file is what a user
// calls: float, half and bfloat16 in and out (all arithmetic in float), 16-byte packs for any
// row alignment, and a dispatcher that decides from the shape and the running GPU:
//
//   warp path      cols <= 1024: a group of 1..32 lanes per row, the row in registers
//                  (softmax.cu's warp_row, with packs and several short rows per group)
//   CTA path       longer rows: a row cut into K chunks, one CTA of up to 1024 threads per chunk,
//                  32 values a thread in registers. K = 1 is one block per row; K > 1 is a
//                  thread-block cluster (sm_90): the K CTAs swap their (max, sum) through
//                  distributed shared memory, so the row is read once and written once however
//                  long it is and however few rows there are
//   split path     the same chunks without clusters (GPUs before sm_90, rows longer than a
//                  cluster holds, or few rows whose clusters would be wider than an SM while
//                  the one launch below fits): one kernel writes each chunk's (max, sum) to the
//                  workspace, a second combines them and writes the chunk, reading it again; or,
//                  where every CTA fits the GPU at once, one cooperative launch whose CTAs swap
//                  their states through L2 (flags) and write from registers
//   stream path    sm_90, rows that need CTAs of more than 256 threads and enough of them to
//                  give every SM a CTA: each CTA's chunk in shared memory, brought by bulk
//                  copies (cp.async.bulk) while no thread holds a value, so several CTAs share
//                  an SM; a CTA a row, launched once per row (in float, its outputs go back
//                  the same way: written over the inputs, copied out by the TMA; so do float
//                  log-softmax rings); K > 1 CTAs a row form a cluster as above, and the
//                  resident clusters loop over the rows
//
// Run: build/07_softmax --variant dispatch --rows R --cols C [--op logsoftmax] [--dtype f16|bf16]
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cooperative_groups.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuned.h"

namespace cg = cooperative_groups;

// ------------------------------------------------------------------------------------------------
// Constants
// ------------------------------------------------------------------------------------------------

static constexpr int WARP_SIZE = 32;               // lanes per warp on every NVIDIA GPU
static constexpr unsigned FULL_MASK = 0xffffffffu; // all 32 lanes take part in a shuffle
static constexpr int PACK_BYTES = 16;              // the widest load of one thread (LDG.E.128)
static constexpr int WARP_MAX_COLS = 1024;         // warp path: 32 lanes x 32 values in registers
static constexpr int WARP_PATH_BLOCK = 128;        // 4 warps per block; the grid supplies the rest
static constexpr int ROW_VALUES = 32;              // CTA path: values a thread keeps (32 registers)
static constexpr int CTA_MAX_THREADS = 1024;       // the most threads a block may have
// CTA path with rows to spare: at most 512 threads, so that two CTAs (each ~60 registers a
// thread) share an SM and one loads while the other reduces and writes.
static constexpr int CTA_SHARED_SM_THREADS = 512;
static constexpr int PORTABLE_CLUSTER = 8;          // the largest cluster every sm_90 part takes
static constexpr int STREAM_MAX_CLUSTER = 16;        // H100 and H200 take 16 with the non-portable opt-in
static constexpr float LOG2E = 1.4426950408889634f; // exp(x) = exp2(x * log2(e))
static constexpr size_t MAX_GRID_X = 2147483647u;   // gridDim.x limit (2^31 - 1)

// ------------------------------------------------------------------------------------------------
// Element types and 16-byte packs
// ------------------------------------------------------------------------------------------------

static __device__ __forceinline__ float to_float(float x) { return x; }
static __device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
static __device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }

template <typename T>
static __device__ __forceinline__ T from_float(float v);
template <>
__device__ __forceinline__ float from_float<float>(float v)
{
    return v;
}
template <>
__device__ __forceinline__ __half from_float<__half>(float v)
{
    return __float2half_rn(v);
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v)
{
    return __float2bfloat16_rn(v);
}

// A word of exactly BYTES bytes: moving one is one memory instruction.
template <int BYTES>
struct word_of;
template <>
struct word_of<16> {
    using type = uint4;
};
template <>
struct word_of<8> {
    using type = uint2;
};
template <>
struct word_of<4> {
    using type = unsigned int;
};
template <>
struct word_of<2> {
    using type = unsigned short;
};

// P elements of T seen as one word.
template <typename T, int P>
union pack_t {
    typename word_of<P *(int)sizeof(T)>::type word;
    T elem[P];
    __device__ pack_t() {}
};

// Elements of T in one 16-byte pack: 4 floats, 8 halves or bfloat16s.
template <typename T>
static constexpr int full_pack()
{
    return PACK_BYTES / (int)sizeof(T);
}

// ------------------------------------------------------------------------------------------------
// Reductions
// ------------------------------------------------------------------------------------------------

// (max, sum of exp(x - max)) of the values seen so far; the sum of an empty set is 0 at -inf.
struct max_sum {
    float m;
    float s;
};

// exp(d) = 2^(d log2 e) on the special-function unit (MUFU.EX2), the instruction exp2f() uses,
// without exp2f's test and two multiplies that keep results below 2^-126 (subnormal); those
// become 0 (.ftz), under every check's absolute tolerance. Three instructions an element
// instead of six in the passes that are not waiting on memory.
static __device__ __forceinline__ float exp_of(float d)
{
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(d * LOG2E));
    return r;
}

template <int G>
static __device__ __forceinline__ float group_max(float v)
{
#pragma unroll
    for (int mask = G / 2; mask > 0; mask /= 2) v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, mask));
    return v;
}

template <int G>
static __device__ __forceinline__ float group_sum(float v)
{
#pragma unroll
    for (int mask = G / 2; mask > 0; mask /= 2) v += __shfl_xor_sync(FULL_MASK, v, mask);
    return v;
}

// The group's state from its lanes' states: the max by butterfly, each lane's sum rescaled to
// it (one exp a lane, where merging pairs would take two a step), then the sum by butterfly.
// xor butterflies leave every lane with the same bits: each pair adds the same two numbers.
template <int G>
static __device__ __forceinline__ max_sum group_combine(max_sum v)
{
    const float m = group_max<G>(v.m);
    const float s = m == -INFINITY ? v.s : v.s * exp_of(v.m - m); // all empty: the zeros stay
    return {m, group_sum<G>(s)};
}

// Two states merged into one (a lane's running state over several chunks).
static __device__ __forceinline__ max_sum merge(max_sum a, max_sum b)
{
    const float m = fmaxf(a.m, b.m);
    if (m == -INFINITY) return {m, a.s + b.s}; // both empty; avoids exp(-inf - -inf)
    return {m, a.s * exp_of(a.m - m) + b.s * exp_of(b.m - m)};
}

// The slots' state in every lane, in groups of G lanes that each take all `n` slots (n <= G).
template <int G>
static __device__ __forceinline__ max_sum slots_combine(const max_sum *slots, unsigned n)
{
    const unsigned i = threadIdx.x % G;
    const max_sum empty = {-INFINITY, 0.0f};
    return group_combine<G>(i < n ? slots[i] : empty);
}

// Every thread of the block gets the block's state: warp butterflies, one slot per warp, and
// every warp reduces the slots itself (no second barrier), in butterflies only as wide as the
// block has warps: 1 step for 2 warps, where 32 lanes take 5. The steps left out would add
// empty slots (+0 and a max with -inf), so the bits are those of a 32-lane butterfly. Called
// once per block, or once per row with a barrier between (the stream path).
static __device__ __forceinline__ max_sum block_combine(max_sum v)
{
    __shared__ max_sum slots[WARP_SIZE];
    const unsigned lane = threadIdx.x % WARP_SIZE, warp = threadIdx.x / WARP_SIZE;
    const unsigned warps = blockDim.x / WARP_SIZE;
    v = group_combine<WARP_SIZE>(v);
    if (lane == 0) slots[warp] = v;
    __syncthreads();
    if (warps <= 1) return v;
    if (warps <= 2) return slots_combine<2>(slots, warps);
    if (warps <= 4) return slots_combine<4>(slots, warps);
    if (warps <= 8) return slots_combine<8>(slots, warps);
    if (warps <= 16) return slots_combine<16>(slots, warps);
    return slots_combine<WARP_SIZE>(slots, warps);
}

// ------------------------------------------------------------------------------------------------
// Warp path: cols <= 1024, a group of G lanes per row, RPA rows per group, CPT values per lane
// ------------------------------------------------------------------------------------------------

// Element i of a pack in float; -inf for a pack past the end of the row.
template <typename T, int P>
static __device__ __forceinline__ float value_at(const pack_t<T, P> &p, int i, bool valid)
{
    return valid ? to_float(p.elem[i]) : -INFINITY;
}

// Groups of 2 to 16 lanes (several rows a warp) keep only their RPA packs between the passes and
// convert them again in each pass, where the floats of 4 rows of 16-bit packs took 74 to 96
// registers a thread (nvcc 13.0): 64, so 8 blocks of 128 threads share an SM's 64K registers,
// not 5 or 6. Converting again cost the other groups up to 10 points of the copy (a lane per row
// of up to 8 16-bit values; a warp per row, 2 points at 256), so they keep their values in float.
template <int G>
static __host__ __device__ constexpr bool warp_keeps_floats()
{
    return G == 1 || G == WARP_SIZE;
}
template <int G>
static __host__ __device__ constexpr int warp_min_blocks()
{
    return warp_keeps_floats<G>() ? 1 : 8;
}

// Packs of P elements; lane l of a group holds packs l, l + G, ... of its row (neighbouring
// lanes read neighbouring packs). Padding holds -inf: no effect on the max, exp gives 0.
template <typename T, bool LOG, int P, int G, int CPT, int RPA>
static __global__ void __launch_bounds__(WARP_PATH_BLOCK, warp_min_blocks<G>())
    softmax_warp(const T *__restrict__ d_in, T *__restrict__ d_out, size_t rows, int cols)
{
    static_assert(CPT % P == 0 && WARP_SIZE % G == 0 && CPT * G <= 2 * WARP_MAX_COLS, "bucket");
    using word_t = typename word_of<P *(int)sizeof(T)>::type;
    constexpr int PACKS = CPT / P;
    constexpr int ROWS_PER_WARP = (WARP_SIZE / G) * RPA;
    const int lane = threadIdx.x % G;
    const int group = (threadIdx.x % WARP_SIZE) / G;
    const size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / WARP_SIZE;
    const size_t n_warps = (size_t)gridDim.x * blockDim.x / WARP_SIZE;

    // The bound is the same for all 32 lanes, so every shuffle has its 32 participants; groups
    // past the last row compute on -inf and store nothing.
    for (size_t base = warp * ROWS_PER_WARP; base < rows; base += n_warps * ROWS_PER_WARP) {
        pack_t<T, P> raw[RPA][PACKS];
#pragma unroll
        for (int r = 0; r < RPA; ++r) {
            const size_t row = base + (size_t)group * RPA + r;
#pragma unroll
            for (int k = 0; k < PACKS; ++k) {
                const int col = (k * G + lane) * P;
                if (row < rows && col < cols) // a load alone in its branch: all issue at once
                    raw[r][k].word = *reinterpret_cast<const word_t *>(d_in + row * cols + col);
            }
        }
        constexpr bool KEEP = warp_keeps_floats<G>();
        float v[RPA][KEEP ? CPT : 1], m[RPA], s[RPA];
#pragma unroll
        for (int r = 0; r < RPA; ++r) {
            const size_t row = base + (size_t)group * RPA + r;
            m[r] = -INFINITY;
#pragma unroll
            for (int k = 0; k < PACKS; ++k) {
                const bool valid = row < rows && (k * G + lane) * P < cols;
#pragma unroll
                for (int i = 0; i < P; ++i) {
                    if constexpr (KEEP) {
                        v[r][k * P + i] = valid ? to_float(raw[r][k].elem[i]) : -INFINITY;
                        m[r] = fmaxf(m[r], v[r][k * P + i]);
                    } else {
                        m[r] = fmaxf(m[r], value_at<T, P>(raw[r][k], i, valid));
                    }
                }
            }
            m[r] = group_max<G>(m[r]);
            s[r] = 0.0f;
            if constexpr (KEEP) {
#pragma unroll
                for (int i = 0; i < CPT; ++i) {
                    const float e = exp_of(v[r][i] - m[r]);
                    s[r] += e;
                    if (!LOG) v[r][i] = e;
                }
            } else {
#pragma unroll
                for (int k = 0; k < PACKS; ++k) {
                    const bool valid = row < rows && (k * G + lane) * P < cols;
#pragma unroll
                    for (int i = 0; i < P; ++i)
                        s[r] += exp_of(value_at<T, P>(raw[r][k], i, valid) - m[r]);
                }
            }
            s[r] = group_sum<G>(s[r]);
        }
#pragma unroll
        for (int r = 0; r < RPA; ++r) {
            const size_t row = base + (size_t)group * RPA + r;
            // log-softmax subtracts the max first: x - (max + log s) would round at the max's
            // magnitude (inputs of 1e4 lose 2e-4)
            const float scale = LOG ? logf(s[r]) : __fdividef(1.0f, s[r]);
#pragma unroll
            for (int k = 0; k < PACKS; ++k) {
                const int col = (k * G + lane) * P;
                if (row < rows && col < cols) {
                    pack_t<T, P> out;
#pragma unroll
                    for (int i = 0; i < P; ++i) {
                        if constexpr (KEEP) {
                            out.elem[i] = from_float<T>(LOG ? (v[r][k * P + i] - m[r]) - scale
                                                            : v[r][k * P + i] * scale);
                        } else {
                            const float d = to_float(raw[r][k].elem[i]) - m[r];
                            out.elem[i] = from_float<T>(LOG ? d - scale : exp_of(d) * scale);
                        }
                    }
                    *reinterpret_cast<word_t *>(d_out + row * cols + col) = out.word;
                }
            }
        }
    }
}

// ------------------------------------------------------------------------------------------------
// CTA path: the row in slots of P elements, 32 values a thread, chunks of the row per CTA
// ------------------------------------------------------------------------------------------------

// A row starting a elements past a 16-byte boundary is seen as slots of P elements aligned to
// those boundaries: slot q holds elements [qP - a, qP - a + P) of the row. Every slot but the
// first and the last is one 16-byte access wherever the row starts; the two ends are read and
// written element by element, and what lies outside the row is -inf and never stored.

// Slots a thread holds in the CTA path: 32 values in packs (8 float packs, 4 half packs). One
// element per slot (P = 1) costs an address register per slot as well, so those keep 16, in
// CTAs of at most 512 threads (up to 128 registers a thread, no spills on any architecture).
template <int P>
static __host__ __device__ constexpr int slots_per_thread()
{
    return P == 1 ? 16 : ROW_VALUES / P;
}
// One CTA a block at least: forcing two float CTAs of 512 threads onto an SM (64 registers a
// thread) spills and measured slower than letting ptxas take 96 registers (4096 x 8192: 85% of
// the copy against 97%).
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

// Where one CTA's chunk of its row lies: slots first .. first + count - 1 of the row, thread t
// owning first + t + j * blockDim.x. Only the row's first slot (when the row starts off a
// boundary) and its last (when it ends off one) are ragged: the chunk's slots whole_lo ..
// whole_hi - 1 (counted from first) are whole. 32-bit counts inside a chunk keep registers.
struct chunk_t {
    size_t row;
    size_t first;
    unsigned count, whole_lo, whole_hi;
    int a; // the row's offset past a 16-byte boundary, in elements
};

template <typename T, int P>
static __device__ __forceinline__ chunk_t chunk_of(const T *d_in, size_t cols, size_t row,
                                                   size_t chunk, size_t chunk_slots)
{
    chunk_t c;
    c.row = row;
    c.a = P == 1 ? 0 : (int)(((uintptr_t)(d_in + c.row * cols) / sizeof(T)) % P);
    const size_t n_slots = (cols + c.a + P - 1) / P;
    c.first = chunk * chunk_slots;
    const size_t end = c.first + chunk_slots < n_slots ? c.first + chunk_slots : n_slots;
    const size_t lo = c.a > 0 ? 1 : 0, hi = (cols + c.a) % P != 0 ? n_slots - 1 : n_slots;
    c.count = (unsigned)(end > c.first ? end - c.first : 0);
    c.whole_lo = (unsigned)(lo > c.first ? lo - c.first : 0);
    c.whole_hi = (unsigned)(hi > c.first ? (hi < end ? hi : end) - c.first : 0);
    return c;
}

// Every load of the thread's slots first, then any use: 32 values in flight per thread.
template <typename T, int P>
static __device__ __forceinline__ void load_chunk(const T *__restrict__ x, size_t cols,
                                                  const chunk_t &c,
                                                  float (&v)[slots_per_thread<P>()][P])
{
    using word_t = typename word_of<P *(int)sizeof(T)>::type;
    constexpr int SLOTS = slots_per_thread<P>();
    const T *base = x - c.a + c.first * P; // on a 16-byte boundary: slot l at base + lP
    pack_t<T, P> raw[SLOTS];
    // Whole slots first, each load alone in its branch: all are in flight before any is used.
    // (A conversion inside the branch would make each load wait for the one before it; float
    // needs none and goes straight to its registers.)
#pragma unroll
    for (int j = 0; j < SLOTS; ++j) {
        const unsigned l = threadIdx.x + j * blockDim.x;
        if (l >= c.whole_lo && l < c.whole_hi) {
            raw[j].word = *reinterpret_cast<const word_t *>(base + (size_t)l * P);
            if constexpr (sizeof(T) == 4) {
#pragma unroll
                for (int i = 0; i < P; ++i) v[j][i] = to_float(raw[j].elem[i]);
            }
        }
    }
    // Then the values; a ragged slot element by element, and outside the row -inf.
#pragma unroll
    for (int j = 0; j < SLOTS; ++j) {
        const unsigned l = threadIdx.x + j * blockDim.x;
        if (l >= c.whole_lo && l < c.whole_hi) {
            if constexpr (sizeof(T) != 4) {
#pragma unroll
                for (int i = 0; i < P; ++i) v[j][i] = to_float(raw[j].elem[i]);
            }
        } else {
#pragma unroll
            for (int i = 0; i < P; ++i) {
                const long long e = (long long)((c.first + l) * P + i) - c.a; // its column
                v[j][i] = l < c.count && e >= 0 && e < (long long)cols ? to_float(x[e]) : -INFINITY;
            }
        }
    }
}

// The thread's own (max, sum of exp(x - max)); with KEEP_EXP the values become exp(x - max),
// which the write multiplies by one factor per thread. A thread holding only -inf keeps zeros.
template <int P, bool KEEP_EXP>
static __device__ __forceinline__ max_sum thread_state(float (&v)[slots_per_thread<P>()][P])
{
    float m = -INFINITY;
#pragma unroll
    for (int j = 0; j < slots_per_thread<P>(); ++j)
#pragma unroll
        for (int i = 0; i < P; ++i) m = fmaxf(m, v[j][i]);
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < slots_per_thread<P>(); ++j)
#pragma unroll
        for (int i = 0; i < P; ++i) {
            const float e = m == -INFINITY ? 0.0f : exp_of(v[j][i] - m);
            s += e;
            if (KEEP_EXP) v[j][i] = e;
        }
    return {m, s};
}

// y = exp(x - M) / S from the kept exponentials (one multiply), or x - M - log S.
template <typename T, bool LOG, int P>
static __device__ __forceinline__ void write_chunk(T *__restrict__ y, size_t cols, const chunk_t &c,
                                                   float (&v)[slots_per_thread<P>()][P],
                                                   float thread_max, max_sum row)
{
    // An all -inf row has row.s == 0 and gives NaN, as PyTorch does. Log-softmax subtracts
    // the max first: x - (max + log s) would round at the max's magnitude.
    const float scale =
        LOG ? logf(row.s)
            : __fdividef(thread_max == -INFINITY ? 0.0f : exp_of(thread_max - row.m), row.s);
    using word_t = typename word_of<P *(int)sizeof(T)>::type;
    T *base = y - c.a + c.first * P;
#pragma unroll
    for (int j = 0; j < slots_per_thread<P>(); ++j) {
        const unsigned l = threadIdx.x + j * blockDim.x;
        pack_t<T, P> pk;
#pragma unroll
        for (int i = 0; i < P; ++i)
            pk.elem[i] = from_float<T>(LOG ? (v[j][i] - row.m) - scale : v[j][i] * scale);
        if (l >= c.whole_lo && l < c.whole_hi) {
            *reinterpret_cast<word_t *>(base + (size_t)l * P) = pk.word;
        } else if (l < c.count) { // a ragged slot: the elements inside the row
#pragma unroll
            for (int i = 0; i < P; ++i) {
                const long long e = (long long)((c.first + l) * P + i) - c.a;
                if (e >= 0 && e < (long long)cols) y[e] = pk.elem[i];
            }
        }
    }
}

// mbarrier instructions (PTX ISA 8.0, sm_90), for the clusters' messages and the stream path's
// bulk copies.
static __device__ __forceinline__ unsigned smem_address(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

static __device__ __forceinline__ void mbar_init(uint64_t *bar)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_address(bar)) : "memory");
#endif
}

// Makes the barriers' initialisation visible to the TMA (the async proxy).
static __device__ __forceinline__ void mbar_init_fence()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}

// Waits until the barrier's phase of this parity has completed (every byte has landed).
static __device__ __forceinline__ void mbar_wait(uint64_t *bar, unsigned parity)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    unsigned done = 0;
    do {
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done)
                     : "r"(smem_address(bar)), "r"(parity)
                     : "memory");
    } while (!done);
#endif
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// A shared-memory address of this CTA as the same variable's address in CTA `rank` of the
// cluster (mapa), for st.async.
static __device__ __forceinline__ unsigned cluster_smem(const void *p, unsigned rank)
{
    unsigned r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                 : "=r"(r)
                 : "r"(smem_address(p)), "r"(rank));
    return r;
}
#endif

// The row's state from the K = chunks CTAs of a cluster, in every thread of each: thread t < K
// (t != me) sends this CTA's state to CTA t as one message (st.async: 8 bytes into states[me]
// there, counted on that CTA's mbarrier `got`), thread 0 puts it into its own states[me] and
// tells `got` to expect the other K - 1 (8 bytes each); then every thread waits for the phase
// `parity` and merges the K states in rank order (the same order, so the same result, in every
// CTA). No cluster-wide barrier: each CTA waits only for the messages it receives, and no CTA
// reads another's shared memory, so none has to wait for the others before it leaves. Before
// the first call the cluster must have met once after every `got` was initialised (a message to
// a barrier that does not exist yet is lost).
static __device__ __forceinline__ max_sum cluster_states(max_sum row, max_sum *states, uint64_t *got,
                                                         unsigned me, unsigned chunks,
                                                         unsigned parity)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (threadIdx.x < chunks && threadIdx.x != me)
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%0], {%1, %2}, "
                     "[%3];" ::"r"(cluster_smem(&states[me], threadIdx.x)),
                     "f"(row.m), "f"(row.s), "r"(cluster_smem(got, threadIdx.x))
                     : "memory");
    if (threadIdx.x == 0) {
        states[me] = row;
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(
                         smem_address(got)),
                     "r"(8u * (chunks - 1))
                     : "memory");
    }
    mbar_wait(got, parity);
    const unsigned lane = threadIdx.x % WARP_SIZE;
    const max_sum empty = {-INFINITY, 0.0f};
    row = lane < chunks ? states[lane] : empty;
    row = group_combine<WARP_SIZE>(row);
#endif
    return row;
}

// The two halves of a cluster barrier: the first (relaxed: it orders nothing but the barriers'
// initialisation, fenced before it) right after the init, the second before the first message.
static __device__ __forceinline__ void cluster_arrive()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
#endif
}
static __device__ __forceinline__ void cluster_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
#endif
}

// One CTA per chunk; K = chunks CTAs of a row form a cluster (sm_90) and swap their states
// through distributed shared memory, each CTA's sent to the others as a message
// (cluster_states). With chunks == 1 it is a block per row.
template <typename T, bool LOG, int P>
static __global__ void __launch_bounds__(cta_max_threads<P>(), cta_min_blocks<P>())
    softmax_cta(const T *__restrict__ d_in, T *__restrict__ d_out, size_t cols, int chunks,
                size_t chunk_slots)
{
    __shared__ max_sum states[PORTABLE_CLUSTER];
    __shared__ __align__(8) uint64_t got;
    if (chunks > 1) {
        if (threadIdx.x == 0) {
            mbar_init(&got);
            mbar_init_fence();
        }
        cluster_arrive(); // waited for after the loads, before the first message
    }
    const chunk_t c =
        chunk_of<T, P>(d_in, cols, blockIdx.x / chunks, blockIdx.x % chunks, chunk_slots);
    float v[slots_per_thread<P>()][P];
    load_chunk<T, P>(d_in + c.row * cols, cols, c, v);
    const max_sum mine = thread_state<P, !LOG>(v);
    max_sum row = block_combine(mine);
    if (chunks > 1) {
        cluster_wait(); // every CTA's barrier exists
        row = cluster_states(row, states, &got, blockIdx.x % chunks, chunks, 0);
    }
    write_chunk<T, LOG, P>(d_out + c.row * cols, cols, c, v, mine.m, row);
}

// Split path, first kernel: each chunk's state into d_state[row * chunks + chunk].
template <typename T, int P>
static __global__ void __launch_bounds__(cta_max_threads<P>(), cta_min_blocks<P>())
    softmax_split_state(const T *__restrict__ d_in, size_t cols, int chunks, size_t chunk_slots,
                        max_sum *__restrict__ d_state)
{
    const chunk_t c =
        chunk_of<T, P>(d_in, cols, blockIdx.x / chunks, blockIdx.x % chunks, chunk_slots);
    float v[slots_per_thread<P>()][P];
    load_chunk<T, P>(d_in + c.row * cols, cols, c, v);
    const max_sum row = block_combine(thread_state<P, false>(v));
    if (threadIdx.x == 0) d_state[blockIdx.x] = row;
}

// Split path, second kernel: the row's state from its chunks (in index order, the same in every
// CTA), then the chunk again (from L2 when it is still there) and its outputs. cta_path puts the
// states back to 0 after it (a memset in stream order), as every launch leaves the workspace.
template <typename T, bool LOG, int P>
static __global__ void __launch_bounds__(cta_max_threads<P>(), cta_min_blocks<P>())
    softmax_split_write(const T *__restrict__ d_in, T *__restrict__ d_out, size_t cols, int chunks,
                        size_t chunk_slots, const max_sum *__restrict__ d_state)
{
    const chunk_t c =
        chunk_of<T, P>(d_in, cols, blockIdx.x / chunks, blockIdx.x % chunks, chunk_slots);
    float v[slots_per_thread<P>()][P];
    load_chunk<T, P>(d_in + c.row * cols, cols, c, v);
    const max_sum mine = thread_state<P, !LOG>(v);
    const unsigned lane = threadIdx.x % WARP_SIZE;
    max_sum row = {-INFINITY, 0.0f};
    for (int k = lane; k < chunks; k += WARP_SIZE) row = merge(row, d_state[c.row * chunks + k]);
    row = group_combine<WARP_SIZE>(row);
    write_chunk<T, LOG, P>(d_out + c.row * cols, cols, c, v, mine.m, row);
}

// Flag path: the split path's chunks in one launch instead of two, each chunk read once. A
// CTA's (max, sum) travels as one 64-bit word: the max's bits low, the negated sum's high. A sum
// is never negative and never -0, so -s has its sign bit set: bit 63 is the word's flag. A 0, as
// every launch leaves the workspace, reads as not published yet, and so would a state of the
// split path's two kernels ({max, sum}: bit 63 clear).
static __device__ __forceinline__ bool published(unsigned long long w) { return (w >> 63) != 0; }
static __device__ __forceinline__ unsigned long long state_load(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
static __device__ __forceinline__ void state_store(unsigned long long *p, unsigned long long v)
{
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
// The low half of the global nanosecond timer: a difference of up to 4.29 s is right across a
// wrap, and a poll holds one register for it, not two.
static __device__ __forceinline__ unsigned now_ns()
{
    unsigned t;
    asm volatile("mov.u32 %0, %%globaltimer_lo;" : "=r"(t));
    return t;
}
// (the sign bit forced as well: a NaN sum stays a NaN, and its word is published all the same)
static __device__ __forceinline__ unsigned long long state_word(max_sum r)
{
    return ((unsigned long long)(__float_as_uint(-r.s) | 0x80000000u) << 32) | __float_as_uint(r.m);
}

static __device__ __forceinline__ max_sum word_state(unsigned long long w)
{
    return {__uint_as_float((unsigned)w), -__uint_as_float((unsigned)(w >> 32))};
}

// Traps once a poll has waited a second: the workspace was not zero at the first launch (or a
// debugger stopped the kernel that long), and a launch failure beats a hang.
static __device__ __forceinline__ void poll_deadline(unsigned t0)
{
    if (now_ns() - t0 > 1000000000u) __trap();
}

// The merging CTAs of a flag launch: a warp a row.
static size_t flag_mergers(size_t rows, int threads)
{
    const size_t warps = (size_t)threads / WARP_SIZE;
    return (rows + warps - 1) / warps;
}

// States a lane of the merging warp loads at once.
static constexpr int STATES_AT_ONCE = 4;

// Each CTA stores its state as one word, value and flag at once: no fence, no ticket. A warp of
// the merging CTAs (launched after the rows' CTAs, a warp a row; they read nothing) merges each
// row: it loads the row's states, STATES_AT_ONCE a lane at once (128 a round for the warp), loads
// again those not published yet (all of them together: one round trip to L2 a round of polls,
// however many are missing), merges them in index order, as the split path's second kernel
// does, puts each back to 0, and publishes the row's state as one word, which every CTA of the
// row polls: one word a row to poll, not all of the row's states (polling those, every CTA of
// one row of 262144 reached 22-27% of the copy; plots/reference/dispatch/flag_exchange/). A
// merging warp holds no chunk, so its loads in flight take no registers from the chunk's
// values. Every CTA waits for others of its row, so all must be resident at once: a
// cooperative launch guarantees that or refuses. Each CTA of the row counts itself after its
// writes; the last puts the word and the count back to 0 (a CTA counts only once it has read
// the word, so none is still waiting on it; counting before the writes measured slower,
// plots/reference/dispatch/flag_exchange/count_early/). Against a fence and a ticket taken by
// every CTA (the last to take one merging): 1 x 262144 from 51-58% of the copy to 57-62%,
// 2 x 200000 float from 82-87% to 88-95% (one H100 session,
// plots/reference/dispatch/flag_exchange/merger_ctas/).
// Grid: rows x chunks CTAs, then flag_mergers(rows, blockDim.x). Workspace: the states (rows x
// chunks words), then the row words, then two counters a row (the first is the reader count;
// the second, the ticket of an earlier exchange, stays 0).
// A merging warp (lane = its lane): row r's chunks states, merged in index order once all are
// published, each put back to 0, then the row's state published as its word.
static __device__ __forceinline__ void flag_merge_row(unsigned long long *d_words, size_t rows,
                                                      int chunks, size_t r, int lane)
{
    unsigned long long *states = d_words + r * chunks;
    const unsigned t0 = now_ns();
    max_sum row = {-INFINITY, 0.0f};
    for (int base = lane; base < chunks; base += STATES_AT_ONCE * WARP_SIZE) {
        unsigned long long w[STATES_AT_ONCE];
#pragma unroll
        for (int u = 0; u < STATES_AT_ONCE; ++u) {
            const int j = base + u * WARP_SIZE;
            w[u] = j < chunks ? state_load(states + j) : ~0ull; // past the row: never loaded
        }
        for (;;) {
            bool missing = false;
#pragma unroll
            for (int u = 0; u < STATES_AT_ONCE; ++u) missing |= !published(w[u]);
            if (!missing) break;
            poll_deadline(t0);
#pragma unroll
            for (int u = 0; u < STATES_AT_ONCE; ++u)
                if (!published(w[u])) w[u] = state_load(states + base + u * WARP_SIZE);
        }
#pragma unroll
        for (int u = 0; u < STATES_AT_ONCE; ++u) {
            const int j = base + u * WARP_SIZE;
            if (j >= chunks) break;
            row = merge(row, word_state(w[u]));
            state_store(states + j, 0ull); // only the merger reads it
        }
    }
    row = group_combine<WARP_SIZE>(row);
    if (lane == 0) state_store(d_words + rows * (size_t)chunks + r, state_word(row));
}

// One thread of a chunk: publishes the chunk's state (its word in the row's states), then
// waits for the row's word.
static __device__ __forceinline__ max_sum flag_exchange(unsigned long long *state,
                                                        const unsigned long long *row_word,
                                                        max_sum cta)
{
    state_store(state, state_word(cta));
    const unsigned t0 = now_ns();
    unsigned long long w;
    while (!published(w = state_load(row_word))) {
        __nanosleep(64);
        poll_deadline(t0);
    }
    return word_state(w);
}

// One thread of each chunk of row r, after its writes: the last to count puts the row's word
// and the count back to 0.
static __device__ __forceinline__ void flag_count_reader(unsigned long long *d_words, size_t rows,
                                                         int chunks, size_t r)
{
    unsigned long long *word = d_words + rows * (size_t)chunks + r;
    unsigned *readers = reinterpret_cast<unsigned *>(d_words + rows * (size_t)chunks + rows);
    if (atomicAdd(readers + 2 * r, 1u) == (unsigned)chunks - 1) { // every CTA has it
        state_store(word, 0ull);
        readers[2 * r] = 0;
    }
}

// A row of at most 32 chunks gathers instead (no merging warps, one trip to L2 fewer): the first
// warp of each of its CTAs loads the row's states, one a lane, loads again those not published
// yet until all are, and merges them as the merging warp would (lane i state i, the same
// butterfly: the same bits). Each CTA counts itself after its writes; the last puts the states
// and the count back to 0 (the row's word stays 0). At 32 x 128256 bfloat16 (16 a row) that
// measured 61-64% of the copy against 57-58% with the merging warps
// (plots/reference/dispatch/flag_exchange/gather/). In the flag path in registers rows of up to
// 64 chunks gather, two states a lane (flag_gather_wide, below; at most 32, the same loads and
// bits as here); a first form of the gather for any count (up to 32 states a lane a round)
// measured 46-51% against 58-64% at one row of 262144 (128 a row, gather/first/). The host
// decides (flag_gathers, flag_gathers_regs).

static __device__ __forceinline__ max_sum flag_gather_row(const unsigned long long *states,
                                                          int chunks, unsigned lane)
{
    const unsigned t0 = now_ns();
    unsigned long long w = (int)lane < chunks ? state_load(states + lane) : ~0ull;
    while (!__all_sync(FULL_MASK, published(w))) {
        poll_deadline(t0);
        if (!published(w)) w = state_load(states + lane);
    }
    const max_sum empty = {-INFINITY, 0.0f};
    return group_combine<WARP_SIZE>((int)lane < chunks ? merge(empty, word_state(w)) : empty);
}

// The flag path in registers gathers rows of up to GATHER_AT_ONCE x 32 CTAs: lane i polls
// states i, i + 32 (both at once, one trip to L2 a round), merges its own in index order, then
// the butterfly (the same bits in every CTA of the row; a row of at most 32 loads one state a
// lane, as flag_gather_row does). Against the merging warps (REDUCE_FLAGS_GATHER_MAX=32), three
// rounds alternating in one H100 call (plots/reference/dispatch/flag_exchange/gather_wide/):
// 8 x 131072 (64 a row) 0.35 to 1.09 us faster a pair in every dtype and op (float softmax
// 9.58-9.63 us against 10.05-10.32), 4 x 131072 0.15 to 0.45 (f32 and bf16 softmax, leaving out
// one merging run of 15.5 us), 2 x 200000 float (52 a row) 0.08 to 0.38; one row of 131072 (36
// a row) -0.23 to +0.30. Four states a lane (rows of up to 128) tied at one row of 262144 and
// spilled registers in 16-bit softmax, so rows of over 64 keep the merging warps. Rows of at most
// 32 take this function too: against the build with flag_gather_row, one H100 call, 32 x 128256
// 16-bit log-softmax 1.26 to 1.89 us faster a pair, softmax -0.11 to +0.57; under Nsight Compute
// the same registers and instructions, less waiting on loads, at the barrier and to drain
// (gather_wide/, its README).
static constexpr int GATHER_AT_ONCE = 2;
static __device__ __forceinline__ max_sum flag_gather_wide(const unsigned long long *states,
                                                           int chunks, unsigned lane)
{
    const unsigned t0 = now_ns();
    const unsigned long long *mine = states + lane; // state lane + 32 u at mine + 32 u
    const int n = chunks - (int)lane;               // this lane's states: those with 32 u < n
    unsigned long long w[GATHER_AT_ONCE];
#pragma unroll
    for (int u = 0; u < GATHER_AT_ONCE; ++u)
        w[u] = u * WARP_SIZE < n ? state_load(mine + u * WARP_SIZE) : ~0ull; // past the row
    for (;;) {
        bool all = true;
#pragma unroll
        for (int u = 0; u < GATHER_AT_ONCE; ++u) all &= published(w[u]);
        if (__all_sync(FULL_MASK, all)) break;
        poll_deadline(t0);
#pragma unroll
        for (int u = 0; u < GATHER_AT_ONCE; ++u)
            if (!published(w[u])) w[u] = state_load(mine + u * WARP_SIZE);
    }
    max_sum row = {-INFINITY, 0.0f};
#pragma unroll
    for (int u = 0; u < GATHER_AT_ONCE; ++u)
        if (u * WARP_SIZE < n) row = merge(row, word_state(w[u]));
    return group_combine<WARP_SIZE>(row);
}

// The gathering row's count after the writes: the last CTA puts the row's states and the count
// back to 0.
static __device__ __forceinline__ void flag_count_gatherer(unsigned long long *d_words, size_t rows,
                                                           int chunks, size_t r)
{
    unsigned *readers = reinterpret_cast<unsigned *>(d_words + rows * (size_t)chunks + rows);
    if (atomicAdd(readers + 2 * r, 1u) == (unsigned)chunks - 1) {
        for (int j = 0; j < chunks; ++j) state_store(d_words + r * chunks + j, 0ull);
        readers[2 * r] = 0;
    }
}

// GATHER: the rows gather (at most 32 chunks a row); no merging CTAs are launched.
template <typename T, bool LOG, int P, bool GATHER>
static __global__ void __launch_bounds__(cta_max_threads<P>(), cta_min_blocks<P>())
    softmax_flags(const T *__restrict__ d_in, T *__restrict__ d_out, size_t rows, size_t cols,
                  int chunks, size_t chunk_slots, unsigned long long *d_words)
{
    const size_t data_ctas = rows * (size_t)chunks;
    if (!GATHER && blockIdx.x >= data_ctas) { // a merging CTA: a warp a row
        const size_t r =
            (blockIdx.x - data_ctas) * (blockDim.x / WARP_SIZE) + threadIdx.x / WARP_SIZE;
        if (r < rows) flag_merge_row(d_words, rows, chunks, r, threadIdx.x % WARP_SIZE);
        return;
    }
    const size_t r = blockIdx.x / chunks;
    const int k = blockIdx.x % chunks;
    unsigned long long *state = d_words + r * chunks + k;
    const unsigned long long *row_word = d_words + data_ctas + r;
    const chunk_t c = chunk_of<T, P>(d_in, cols, r, k, chunk_slots);
    float v[slots_per_thread<P>()][P];
    load_chunk<T, P>(d_in + c.row * cols, cols, c, v);
    const max_sum mine = thread_state<P, !LOG>(v);
    const max_sum cta = block_combine(mine);
    __shared__ max_sum total;
    if (GATHER) {
        if (threadIdx.x == 0) state_store(state, state_word(cta));
        if (threadIdx.x < WARP_SIZE) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
            // (the row's states from the CTA's own: on sm_75 the other form spills 12 to 16
            // bytes in 16-bit softmax, on sm_90 this one takes up to 32 more registers)
            const unsigned long long *states = state - k;
#else
            const unsigned long long *states = d_words + r * chunks;
#endif
            const max_sum t = flag_gather_wide(states, chunks, threadIdx.x);
            if (threadIdx.x == 0) total = t;
        }
    } else if (threadIdx.x == 0) {
        total = flag_exchange(state, row_word, cta);
    }
    __syncthreads();
    write_chunk<T, LOG, P>(d_out + c.row * cols, cols, c, v, mine.m, total);
    // after the writes: the count's round trip is off the way to them (the row again: fewer
    // registers held over the writes); in a gathering row the last CTA's first warp puts the
    // states back to 0, a lane each
    if (GATHER) {
        if (threadIdx.x < WARP_SIZE) {
            const size_t rr = blockIdx.x / chunks;
            unsigned *readers =
                reinterpret_cast<unsigned *>(d_words + rows * (size_t)chunks + rows);
            unsigned last = 0;
            if (threadIdx.x == 0) last = atomicAdd(readers + 2 * rr, 1u) == (unsigned)chunks - 1;
            if (__shfl_sync(FULL_MASK, last, 0)) {
                for (int j = threadIdx.x; j < chunks; j += WARP_SIZE)
                    state_store(d_words + rr * chunks + j, 0ull);
                if (threadIdx.x == 0) readers[2 * rr] = 0;
            }
        }
        return;
    }
    if (threadIdx.x == 0) flag_count_reader(d_words, rows, chunks, blockIdx.x / chunks);
}

// ------------------------------------------------------------------------------------------------
// Stream path (sm_90): the chunk in shared memory, brought by the TMA (Tensor Memory Accelerator)
// ------------------------------------------------------------------------------------------------

// A CTA that holds its chunk in registers is alone on its SM once the chunk passes about 8192
// floats (96 registers a thread), and a lone CTA reads, then reduces, then writes: the SM's
// share of DRAM idles between. Here the chunk lives in shared memory instead. One lane asks
// the Tensor Memory Accelerator for it (cp.async.bulk: whole 16-byte slots, completion counted
// in bytes on an mbarrier), so no thread holds a value, registers stay few, and several CTAs
// share an SM, each at its own phase. A single CTA a row is launched once per row; clusters
// stay resident and loop over rows. A CTA (alone or in a cluster) whose chunk is over half its
// shared memory may instead loop with all of it as a ring (RING): once a row has landed it asks
// for as much of its next row as fits beside it. A looping single CTA may have two buffers, and
// then asks for its next row before it reduces this one (REDUCE_STREAM_LOOP=1 with the looping
// plan's rule, or REDUCE_STREAM_NBUF=2, for measurements: a CTA a row beat it). A float CTA a
// row, and a float log-softmax ring, hand their outputs to the TMA as well (bulk_out): written
// over the inputs, copied out in bulk; the CTA waits only until the TMA has read them. Nsight
// Compute at 4096 x 50257 float: the same DRAM bytes, 18% (softmax) and 32% (log-softmax) fewer
// L2 write sectors, 15-17% fewer instructions (stream_tuning/bulk_out/, "What Nsight Compute
// counted").

// Bulk-copy instructions (PTX ISA 8.0, sm_90); the mbarrier helpers are above softmax_cta.
// Lane `lane` of the issuing warp: bytes (a multiple of 16, both addresses 16-byte aligned) from
// global src into shared dst, in pieces of at most 32 KB spread over the warp; lane 0 first
// tells the barrier how many bytes to expect (and arrives: the barrier counts one arrival).
static constexpr unsigned BULK_PIECE = 32768;
static __device__ __forceinline__ void bulk_copies(void *dst, const void *src, unsigned bytes,
                                                   uint64_t *bar, unsigned lane)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    for (unsigned off = lane * BULK_PIECE; off < bytes; off += WARP_SIZE * BULK_PIECE) {
        const unsigned n = bytes - off < BULK_PIECE ? bytes - off : BULK_PIECE;
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                     " [%0], [%1], %2, [%3];" ::"r"(smem_address((char *)dst + off)),
                     "l"((const char *)src + off), "r"(n), "r"(smem_address(bar))
                     : "memory");
    }
#endif
}

static __device__ __forceinline__ void bulk_load(void *dst, const void *src, unsigned bytes,
                                                 uint64_t *bar, unsigned lane)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    // what the CTA's threads last read or wrote here, they did through the generic proxy: order
    // it before the TMA's writes
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    if (lane == 0)
        asm volatile(
            "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_address(bar)),
            "r"(bytes)
            : "memory");
    __syncwarp();
    bulk_copies(dst, src, bytes, bar, lane);
#endif
}

// Issuing warp: the whole slots of chunk c into buf (slot l at byte 16 l), the count on bar.
template <typename T, int P>
static __device__ __forceinline__ void ask_for_chunk(const T *x, const chunk_t &c, uint4 *buf,
                                                     uint64_t *bar, unsigned lane)
{
    const T *base = x - c.a + c.first * P; // on a 16-byte boundary
    const unsigned n = c.whole_hi > c.whole_lo ? c.whole_hi - c.whole_lo : 0;
    bulk_load(buf + c.whole_lo, base + (size_t)c.whole_lo * P, n * PACK_BYTES, bar, lane);
}

// Lane `lane` of the issuing warp: bytes (a multiple of 16, both addresses 16-byte aligned) from
// shared src to global dst, in pieces of at most 32 KB spread over the warp, as one bulk group a
// lane (cp.async.bulk ... bulk_group). The threads that wrote src fenced it for the async proxy
// (fence.proxy.async) before the barrier that precedes this.
static __device__ __forceinline__ void bulk_stores(void *dst, const void *src, unsigned bytes,
                                                   unsigned lane)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    for (unsigned off = lane * BULK_PIECE; off < bytes; off += WARP_SIZE * BULK_PIECE) {
        const unsigned n = bytes - off < BULK_PIECE ? bytes - off : BULK_PIECE;
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(
                         (char *)dst + off),
                     "r"(smem_address((const char *)src + off)), "r"(n)
                     : "memory");
    }
#endif
}

// Issuing warp: waits until the TMA has read every byte of this lane's bulk stores (the shared
// memory is then free; the global writes may still be in flight).
static __device__ __forceinline__ void bulk_stores_read()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
#endif
}

// The ring (a looping CTA whose row is over half its shared memory): ring_slots 16-byte slots,
// row after row, each row's slot l at ring slot (pos + l) mod ring_slots, so that the next row's
// first slots load into what this row leaves free while this row is reduced and written.
template <bool RING>
static __device__ __forceinline__ unsigned ring_at(unsigned pos, unsigned l, unsigned ring_slots)
{
    if (!RING) return l;
    const unsigned q = pos + l;
    return q < ring_slots ? q : q - ring_slots;
}

// Issuing warp: the whole slots among slots [lo, hi) of chunk c into the ring, row slot 0 at ring
// slot pos; their bytes counted on bar, which then gets its one arrival only if `arrive` (a
// row's first part is asked for without it, the rest with it: the phase ends once both landed).
template <typename T, int P>
static __device__ __forceinline__ void ring_ask(const T *x, const chunk_t &c, uint4 *ring,
                                                unsigned ring_slots, unsigned pos, unsigned lo,
                                                unsigned hi, bool arrive, uint64_t *bar,
                                                unsigned lane)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const T *base = x - c.a + c.first * P; // on a 16-byte boundary
    const unsigned a = lo > c.whole_lo ? lo : c.whole_lo, z = hi < c.whole_hi ? hi : c.whole_hi;
    const unsigned n = z > a ? z - a : 0, q = ring_at<true>(pos, a, ring_slots);
    const unsigned n1 = n < ring_slots - q ? n : ring_slots - q; // up to the ring's end
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    if (lane == 0) {
        if (arrive)
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(
                             smem_address(bar)),
                         "r"(n * PACK_BYTES)
                         : "memory");
        else
            asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(
                             smem_address(bar)),
                         "r"(n * PACK_BYTES)
                         : "memory");
    }
    __syncwarp();
    bulk_copies(ring + q, base + (size_t)a * P, n1 * PACK_BYTES, bar, lane);
    bulk_copies(ring, base + (size_t)(a + n1) * P, (n - n1) * PACK_BYTES, bar, lane);
#endif
}

// The chunk's ragged slots (at most its first and its last), element by element, -inf outside
// the row; thread i of `count` helpers takes the first (i = 0) or the last (i = 1).
template <typename T, int P, bool RING = false>
static __device__ __forceinline__ void ragged_slots(const T *x, size_t cols, const chunk_t &c,
                                                    uint4 *buf, unsigned i, unsigned pos = 0,
                                                    unsigned ring_slots = 0)
{
    if (c.count == 0) return;
    const unsigned l = i == 0 ? 0 : c.count - 1;
    if (i == 1 && c.count == 1) return; // one slot: thread 0 has it
    if (l >= c.whole_lo && l < c.whole_hi) return;
    pack_t<T, P> pk;
#pragma unroll
    for (int j = 0; j < P; ++j) {
        const long long e = (long long)((c.first + l) * P + j) - c.a; // its column
        pk.elem[j] = e >= 0 && e < (long long)cols ? x[e] : from_float<T>(-INFINITY);
    }
    buf[ring_at<RING>(pos, l, ring_slots)] = *reinterpret_cast<const uint4 *>(&pk.word);
}

// How the K CTAs of a row swap their states: EX_CLUSTER, a cluster's distributed shared memory
// (or K = 1); otherwise they are no cluster and swap them as the flag path's do (a cooperative
// launch, each CTA a row, one buffer; the flag path's workspace in d_words, unused with
// EX_CLUSTER): EX_MERGE, rows x K CTAs then the merging CTAs; EX_GATHER, rows x K CTAs that
// gather (K <= 32).
enum { EX_CLUSTER, EX_MERGE, EX_GATHER };
template <typename T, bool LOG, int EX, bool RING = false, bool SPLIT = false>
static __global__ void __launch_bounds__(1024, 1)
    softmax_stream(const T *__restrict__ d_in, T *__restrict__ d_out, size_t rows, size_t cols,
                   int chunks, unsigned chunk_slots, int nbuf, unsigned long long *d_words,
                   int bulk_out)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr int P = PACK_BYTES / (int)sizeof(T);
    extern __shared__ uint4 smem_slots[]; // nbuf buffers of chunk_slots 16-byte slots
    __shared__ __align__(8) uint64_t bar[2];
    __shared__ max_sum cta_state[2];
    __shared__ __align__(8) uint64_t got[2];               // the cluster's messages, by row parity
    __shared__ max_sum states[2][STREAM_MAX_CLUSTER];
    constexpr bool FLAGS = EX != EX_CLUSTER;
    const size_t data_ctas = FLAGS ? rows * (size_t)chunks : gridDim.x;
    if (EX == EX_MERGE && blockIdx.x >= data_ctas) { // a merging CTA: a warp a row
        const size_t r =
            (blockIdx.x - data_ctas) * (blockDim.x / WARP_SIZE) + threadIdx.x / WARP_SIZE;
        if (r < rows) flag_merge_row(d_words, rows, chunks, r, threadIdx.x % WARP_SIZE);
        return;
    }
    const unsigned k = blockIdx.x % chunks; // the CTA's rank in its cluster (or row)
    const size_t first_row = blockIdx.x / chunks, n_groups = data_ctas / chunks;
    const unsigned warp = threadIdx.x / WARP_SIZE, lane = threadIdx.x % WARP_SIZE;
    const bool swap = !FLAGS && chunks > 1; // a cluster: states by message
    if (threadIdx.x == 0) {
        mbar_init(&bar[0]);
        mbar_init(&bar[1]);
        if (swap) {
            mbar_init(&got[0]);
            mbar_init(&got[1]);
        }
        mbar_init_fence();
    }
    __syncthreads();
    if (swap) cluster_arrive(); // waited for before the first message
    if (!RING && nbuf == 2 && warp == 0 && first_row < rows)
        ask_for_chunk<T, P>(d_in + first_row * cols,
                            chunk_of<T, P>(d_in, cols, first_row, k, chunk_slots), smem_slots,
                            &bar[0], lane);
    // RING: the whole dynamic shared memory is one ring; row r starts at ring slot pos, and
    // `early` of its slots were asked for in the row before (warp 0's count)
    unsigned ring_slots = 0, pos = 0, early = 0;
    bool rest_asked = false; // RING: this row's rest was asked for during the row before's writes
    if (RING) {
        asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(ring_slots));
        ring_slots /= PACK_BYTES;
    }
    unsigned it = 0;
    for (size_t r = first_row; r < rows; r += n_groups, ++it) {
        const unsigned b = RING || nbuf == 2 ? it & 1 : 0;
        const unsigned parity = (RING || nbuf == 2 ? it >> 1 : it) & 1;
        uint4 *buf = RING ? smem_slots : smem_slots + (size_t)b * chunk_slots;
        const chunk_t c = chunk_of<T, P>(d_in, cols, r, k, chunk_slots);
        const T *x = d_in + r * cols;
        if (warp == 0) {
            if (RING) {
                // the rest of this row, into what the row before left (unless asked for already)
                if (!SPLIT || !rest_asked)
                    ring_ask<T, P>(x, c, smem_slots, ring_slots, pos, early, c.count, true,
                                   &bar[b], lane);
                early = 0;
                rest_asked = false;
            } else if (nbuf == 1) {
                ask_for_chunk<T, P>(x, c, buf, &bar[0], lane);
            } else if (r + n_groups < rows) { // the next row, into the other buffer
                const size_t rn = r + n_groups;
                ask_for_chunk<T, P>(d_in + rn * cols,
                                    chunk_of<T, P>(d_in, cols, rn, k, chunk_slots),
                                    smem_slots + (size_t)(b ^ 1) * chunk_slots, &bar[b ^ 1], lane);
            }
        } else if (warp == 1 && lane < 2) {
            ragged_slots<T, P, RING>(x, cols, c, buf, lane, pos, ring_slots);
        }
        mbar_wait(&bar[b], parity);
        // SPLIT: the next row's slots that do not fit beside this row land in this row's first
        // rest_at slots
        unsigned rest_at = 0;
        if (RING && (SPLIT || warp == 0) && r + n_groups < rows) {
            // this row has landed: as much of the next as fits beside it, on the next row's
            // barrier (no arrival yet). Asked for before the wait, these loads delayed this
            // row's last ones (plots/reference/dispatch/stream_tuning/ring/).
            const size_t rn = r + n_groups;
            const chunk_t cn = chunk_of<T, P>(d_in, cols, rn, k, chunk_slots);
            const unsigned room = ring_slots - c.count;
            const unsigned fits = cn.count < room ? cn.count : room;
            rest_at = cn.count - fits;
            if (warp == 0) {
                early = fits;
                ring_ask<T, P>(d_in + rn * cols, cn, smem_slots, ring_slots,
                               ring_at<true>(pos, c.count, ring_slots), 0, early, false,
                               &bar[b ^ 1], lane);
            }
        }
        __syncthreads(); // the ragged slots too

        // (max, sum of exp) of the thread's slots, then of the CTA. 16-bit values: one pass, a
        // pack at a time (online softmax): the pack's max first, and the sum so far rescaled when
        // that raises the thread's; each value is converted once, not twice. Float: a max pass,
        // then a sum pass, with nothing to convert and no rescaling. One H100 call,
        // plots/reference/dispatch/stream_tuning/online/: one pass took 2048 x 32768 bf16 from
        // 90% of the copy to 92%, 1024 x 65536 16-bit up by 0.4 to 0.9 points, and cost float
        // 1.2 to 1.5 points at 1024 x 65536 and 0.5 to 0.7 at 2048 x 32768 (elsewhere within
        // 0.6, or within the spread between builds). On an H200 2048 x 32768 16-bit went from
        // 77-78% to 82-83% (stream_tuning/h200_e76b40e/).
        float m = -INFINITY, s = 0.0f;
        if constexpr (sizeof(T) == 2) {
            for (unsigned l = threadIdx.x; l < c.count; l += blockDim.x) {
                pack_t<T, P> pk;
                pk.word = *reinterpret_cast<const typename word_of<PACK_BYTES>::type *>(
                    &buf[ring_at<RING>(pos, l, ring_slots)]);
                float v[P], pm = -INFINITY;
#pragma unroll
                for (int i = 0; i < P; ++i) {
                    v[i] = to_float(pk.elem[i]);
                    pm = fmaxf(pm, v[i]);
                }
                if (pm > m) { // (exp(-inf) = 0: an empty sum stays 0)
                    s *= exp_of(m - pm);
                    m = pm;
                }
                if (m != -INFINITY) { // else this pack and all before it are -inf
#pragma unroll
                    for (int i = 0; i < P; ++i) s += exp_of(v[i] - m);
                }
            }
        } else {
            for (unsigned l = threadIdx.x; l < c.count; l += blockDim.x) {
                pack_t<T, P> pk;
                pk.word = *reinterpret_cast<const typename word_of<PACK_BYTES>::type *>(
                    &buf[ring_at<RING>(pos, l, ring_slots)]);
#pragma unroll
                for (int i = 0; i < P; ++i) m = fmaxf(m, to_float(pk.elem[i]));
            }
            if (m != -INFINITY) {
                for (unsigned l = threadIdx.x; l < c.count; l += blockDim.x) {
                    pack_t<T, P> pk;
                    pk.word = *reinterpret_cast<const typename word_of<PACK_BYTES>::type *>(
                        &buf[ring_at<RING>(pos, l, ring_slots)]);
#pragma unroll
                    for (int i = 0; i < P; ++i) s += exp_of(to_float(pk.elem[i]) - m);
                }
            }
        }
        max_sum row = block_combine({m, s});
        if (FLAGS) { // the row's K states, through global memory
            if (EX == EX_GATHER) {
                if (threadIdx.x == 0) state_store(d_words + r * chunks + k, state_word(row));
                if (warp == 0) {
                    const max_sum t = flag_gather_row(d_words + r * chunks, chunks, lane);
                    if (lane == 0) cta_state[0] = t;
                }
            } else if (threadIdx.x == 0) {
                cta_state[0] = flag_exchange(d_words + r * chunks + k,
                                             d_words + rows * (size_t)chunks + r, row);
            }
            __syncthreads();
            row = cta_state[0];
        } else if (swap) { // the cluster's K states, by message into each CTA's shared memory
            if (it == 0) cluster_wait();
            // row `it` uses states[it & 1] and got[it & 1], that barrier's (it / 2)-th phase; a
            // CTA sends row it + 2's state only after it has every state of row it + 1, which
            // each CTA sends after it is done with row it's
            row = cluster_states(row, states[it & 1], &got[it & 1], k, chunks, (it >> 1) & 1);
        }

        // the outputs, from the same shared memory
        const float scale = LOG ? logf(row.s) : __fdividef(1.0f, row.s);
        T *y = d_out + r * cols - c.a + c.first * P;
        // slot l's outputs: its whole slots to global memory, or (in_place) over its inputs for
        // the TMA to copy out; ragged slots element by element to global memory either way
        auto put = [&](unsigned l, bool in_place) {
            uint4 *q = &buf[ring_at<RING>(pos, l, ring_slots)];
            pack_t<T, P> pk, out;
            pk.word = *reinterpret_cast<const typename word_of<PACK_BYTES>::type *>(q);
#pragma unroll
            for (int i = 0; i < P; ++i) {
                const float v = to_float(pk.elem[i]);
                out.elem[i] = from_float<T>(LOG ? (v - row.m) - scale : exp_of(v - row.m) * scale);
            }
            if (l >= c.whole_lo && l < c.whole_hi) {
                *reinterpret_cast<typename word_of<PACK_BYTES>::type *>(
                    in_place ? (T *)q : y + (size_t)l * P) = out.word;
            } else {
#pragma unroll
                for (int i = 0; i < P; ++i) {
                    const long long e = (long long)((c.first + l) * P + i) - c.a;
                    if (e >= 0 && e < (long long)cols) d_out[r * cols + e] = out.elem[i];
                }
            }
        };
        // SPLIT (a ring's nbuf 2; REDUCE_STREAM_NBUF=1 keeps the ask after all the writes): this
        // row's first rest_at slots written (whole rounds of the CTA), the next row's rest is
        // asked for there, so that it loads during the remaining writes
        unsigned cut = 0;
        if (SPLIT && rest_at > 0) {
            cut = (rest_at + blockDim.x - 1) / blockDim.x * blockDim.x;
            cut = cut < c.count ? cut : c.count;
            for (unsigned l = threadIdx.x; l < cut; l += blockDim.x) put(l, false);
            __syncthreads(); // those slots are free for the TMA
            if (warp == 0) {
                const size_t rn = r + n_groups;
                const chunk_t cn = chunk_of<T, P>(d_in, cols, rn, k, chunk_slots);
                ring_ask<T, P>(d_in + rn * cols, cn, smem_slots, ring_slots,
                               ring_at<true>(pos, c.count, ring_slots), early, cn.count, true,
                               &bar[b ^ 1], lane);
                rest_asked = true;
            }
        }
        if (!SPLIT && bulk_out) {
            // the outputs over the inputs, then the TMA copies the whole slots out: the CTA is
            // done once it has read them, not once every thread has stored its own
            for (unsigned l = threadIdx.x; l < c.count; l += blockDim.x) put(l, true);
            asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); // for the TMA's reads
            __syncthreads();
            if (warp == 0) {
                const unsigned lo = c.whole_lo, n = c.whole_hi > lo ? c.whole_hi - lo : 0;
                const unsigned q = ring_at<RING>(pos, lo, ring_slots);
                const unsigned n1 = RING && n > ring_slots - q ? ring_slots - q : n; // ring's end
                bulk_stores(y + (size_t)lo * P, &buf[q], n1 * PACK_BYTES, lane);
                if (RING) bulk_stores(y + (size_t)(lo + n1) * P, buf, (n - n1) * PACK_BYTES, lane);
                bulk_stores_read();
            }
        } else {
            for (unsigned l = cut + threadIdx.x; l < c.count; l += blockDim.x) put(l, false);
        }
        if (FLAGS && threadIdx.x == 0) {
            if (EX == EX_GATHER)
                flag_count_gatherer(d_words, rows, chunks, r);
            else
                flag_count_reader(d_words, rows, chunks, r);
        }
        __syncthreads(); // the buffer is free for the TMA again
        if (RING) pos = ring_at<true>(pos, c.count, ring_slots);
    }
    if (swap && it == 0) cluster_wait(); // a CTA without a row still completes the barrier
#endif
}

// ------------------------------------------------------------------------------------------------
// Host: what the GPU offers, and the plan for a shape
// ------------------------------------------------------------------------------------------------

struct gpu_t {
    int id = -1;
    int sms = 1;
    int sm_threads = 2048; // cudaDevAttrMaxThreadsPerMultiProcessor
    int clusters = 0;      // cudaDevAttrClusterLaunch: thread-block clusters (sm_90 and later)
    int cc_major = 0;      // compute capability: bulk copies need 9 or later
    int smem_optin = 0;    // cudaDevAttrMaxSharedMemoryPerBlockOptin: one CTA's most
    int smem_sm = 0;       // cudaDevAttrMaxSharedMemoryPerMultiprocessor: all CTAs of an SM
    int smem_reserved = 0; // cudaDevAttrReservedSharedMemoryPerBlock: the system's share a CTA
    int coop = 0;          // cudaDevAttrCooperativeLaunch
    // DRAM's theoretical bytes per SM clock per SM (memory clock x 2 x bus width over SM clock
    // x SMs; 0 where the attributes are missing): about 12.8 on an H100 SXM, 15.7 on an H200
    double dram_bytes_per_sm_clock = 0;
};

// Attributes of the current device, asked once per device: launchers run in timing loops.
static cudaError_t current_gpu(gpu_t *g)
{
    static gpu_t cached;
    int dev = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err != cudaSuccess) return err;
    if (dev != cached.id) {
        gpu_t n;
        n.id = dev;
        if ((err = cudaDeviceGetAttribute(&n.sms, cudaDevAttrMultiProcessorCount, dev)) !=
            cudaSuccess)
            return err;
        if ((err = cudaDeviceGetAttribute(&n.sm_threads, cudaDevAttrMaxThreadsPerMultiProcessor,
                                          dev)) != cudaSuccess)
            return err;
        if ((err = cudaDeviceGetAttribute(&n.cc_major, cudaDevAttrComputeCapabilityMajor, dev)) !=
                cudaSuccess ||
            (err = cudaDeviceGetAttribute(&n.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                          dev)) != cudaSuccess ||
            (err = cudaDeviceGetAttribute(&n.smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor,
                                          dev)) != cudaSuccess ||
            (err = cudaDeviceGetAttribute(&n.smem_reserved, cudaDevAttrReservedSharedMemoryPerBlock,
                                          dev)) != cudaSuccess)
            return err;
        if (cudaDeviceGetAttribute(&n.coop, cudaDevAttrCooperativeLaunch, dev) != cudaSuccess) {
            (void)cudaGetLastError();
            n.coop = 0;
        }
        if (cudaDeviceGetAttribute(&n.clusters, cudaDevAttrClusterLaunch, dev) != cudaSuccess) {
            (void)cudaGetLastError(); // a runtime that does not know the attribute: no clusters
            n.clusters = 0;
        }
        int mem_khz = 0, bus_bits = 0, sm_khz = 0;
        if (cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, dev) != cudaSuccess) {
            (void)cudaGetLastError();
            mem_khz = 0;
        }
        if (mem_khz > 0 && bus_bits > 0 && sm_khz > 0)
            n.dram_bytes_per_sm_clock =
                2.0 * mem_khz * (bus_bits / 8.0) / ((double)sm_khz * (double)n.sms);
        cached = n;
    }
    *g = cached;
    return cudaSuccess;
}

enum path_kind { PATH_WARP, PATH_CTA, PATH_SPLIT };

struct plan_t {
    path_kind path;
    int chunks;         // K: CTAs per row
    int threads;        // CTA size
    size_t chunk_slots; // slots per CTA
};

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

// Threads for a chunk of `slots` slots of which each thread holds `per_thread`: whole warps.
static int cta_threads(size_t slots, int per_thread)
{
    return (int)(ceil_div(ceil_div(slots, (size_t)per_thread), WARP_SIZE) * WARP_SIZE);
}

// Chunks per row for rows of `slots` slots when a CTA may hold `cap` threads x per_thread slots:
// the fewest that fit the row, then doubled while rows x K CTAs would leave SMs idle (fewer than
// two per SM), up to max_chunks, as long as each CTA keeps at least min_warps warps.
static size_t chunks_for(size_t sms, size_t rows, size_t slots, int cap, int per_thread,
                         size_t max_chunks, int min_warps = 1)
{
    size_t k = ceil_div(slots, (size_t)cap * per_thread);
    while (rows * k < 2 * sms && 2 * k <= max_chunks &&
           ceil_div(slots, 2 * k) >= (size_t)min_warps * WARP_SIZE * per_thread)
        k *= 2;
    return k;
}

static plan_t make_plan(path_kind path, size_t k, size_t slots, int per_thread)
{
    plan_t p;
    p.path = path;
    p.chunks = (int)k;
    p.chunk_slots = ceil_div(slots, k);
    p.threads = cta_threads(p.chunk_slots, per_thread);
    return p;
}

// The plan for rows of `cols` elements in slots of P, per_thread slots a thread:
//  - CTAs of at most 512 threads, so that two (about 60 registers a thread) share an SM and one
//    loads while the other reduces and writes; 1024 where a row needs it to fit the largest
//    cluster;
//  - K > 1 chunks need a cluster (sm_90, up to max_cluster CTAs);
//  - otherwise the split path, whose chunks only ever double for parallelism.
static plan_t plan_rows(const gpu_t &g, int max_cluster, size_t rows, size_t cols, int P,
                        int per_thread, int max_threads, bool aligned)
{
    // slots a row needs: cols / P when every row starts on a boundary, else one more at most
    const size_t slots = aligned ? ceil_div(cols, (size_t)P) : ceil_div(cols + P - 1, (size_t)P);
    const size_t limit = g.clusters ? (size_t)max_cluster : 1;
    const int caps[2] = {CTA_SHARED_SM_THREADS, max_threads};
    for (int c = 0; c < 2; c++) {
        if (ceil_div(slots, (size_t)caps[c] * per_thread) > limit) continue;
        return make_plan(PATH_CTA, chunks_for(g.sms, rows, slots, caps[c], per_thread, limit),
                         slots, per_thread);
    }
    // Split chunks keep two warps at least: every chunk's state crosses L2 to a merging warp
    // and back (the flags), and at 1 x 262144 128 CTAs of 64 threads beat 256 of 32 by 1 to 7
    // points of the copy in every dtype (plots/reference/dispatch/flag_exchange/ticket/, with
    // the ticket exchange of that time).
    return make_plan(
        PATH_SPLIT,
        chunks_for(g.sms, rows, slots, CTA_SHARED_SM_THREADS, per_thread, (size_t)-1, 2), slots,
        per_thread);
}

// Clusters of `size` CTAs (threads and dynamic shared memory each) of `kernel` that the GPU holds
// at once, from the occupancy API; 0 when none fits or the GPU refuses (a refusal is an answer,
// not an error to keep).
static size_t active_clusters(const void *kernel, int size, int threads, size_t smem)
{
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = size;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.gridDim = dim3(size);
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = smem;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    int n = 0;
    if (cudaOccupancyMaxActiveClusters(&n, kernel, &cfg) != cudaSuccess) n = 0;
    (void)cudaGetLastError();
    return n > 0 ? (size_t)n : 0;
}

// The largest cluster the dispatcher uses: 8, the size every sm_90 part takes, when the occupancy
// API says such clusters of this kernel fit; else 1 (the split path). The non-portable 16 that
// H100 and H200 allow measured slower here than the split path: 1 x 262144 floats took 36% of
// the copy as a cluster of 16 and 41% split (REDUCE_NO_CLUSTERS=1 compares the two), measured
// when the clusters met at cluster.sync(), before their message exchange. Asked once per kernel
// and device.
static int cluster_limit(const void *kernel)
{
    static const void *cached_kernel[64];
    static int cached_size[64], cached_dev[64], n_cached;
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) return 1;
    for (int i = 0; i < n_cached; i++)
        if (cached_kernel[i] == kernel && cached_dev[i] == dev) return cached_size[i];
    // the kernel as loaded must be sm_90 code: a build for older GPUs only (ARCH=sm_80) runs on
    // Hopper from compute_80 PTX, where the cluster exchange is compiled out
    cudaFuncAttributes fa;
    const bool sm90_code = cudaFuncGetAttributes(&fa, kernel) == cudaSuccess && fa.ptxVersion >= 90;
    const int result =
        sm90_code && active_clusters(kernel, PORTABLE_CLUSTER, CTA_SHARED_SM_THREADS, 0) > 0
            ? PORTABLE_CLUSTER
            : 1;
    if (n_cached < 64) {
        cached_kernel[n_cached] = kernel;
        cached_dev[n_cached] = dev;
        cached_size[n_cached++] = result;
    }
    return result;
}

// Whether a cluster plan of K = chunks CTAs of `threads` beats the split path's two kernels on
// this GPU. A cluster of more threads than an SM holds spans SMs that must all be free at once.
// On the H100 (README.md, "Clusters or the split path"; REDUCE_NO_CLUSTERS=1 times the split
// plan on any GPU) such clusters lost to the two kernels when the row clusters needed more CTAs
// than there are SMs (32 x 128256: split in 0.76 to 0.87 of the cluster's time) and when they
// covered under a quarter of the SMs (one 16-bit row of 262144: 0.73 to 0.79); they won where
// their CTAs, one a SM, covered a quarter to all of them (8 x 131072). Clusters no larger than
// one SM's threads won or tied at every shape measured (64 x 32000, 4096 x 50257, 2048 x 32768).
// Against the split plan in one launch (flags) the wide clusters lose everywhere: the caller
// asks flags_fit first. All measured when the clusters met at cluster.sync(), before their
// message exchange (cluster_states): not measured again since.
static bool cluster_pays(const gpu_t &g, size_t rows, int chunks, int threads)
{
    if ((size_t)chunks * threads <= (size_t)g.sm_threads) return true;
    const size_t ctas = rows * (size_t)chunks;
    return ctas * 4 >= (size_t)g.sms && ctas <= (size_t)g.sms;
}

static unsigned capped_grid(size_t blocks, size_t cap)
{
    const size_t g = blocks < cap ? blocks : cap;
    return (unsigned)(g > 0 ? g : 1);
}

// With REDUCE_VERBOSE=1 in the environment, says on stderr which path and plan a shape gets, once
// per shape: what the dispatcher decided on this GPU, for the README's tables and for a user.
static void say_plan(const char *who, size_t rows, size_t cols, const char *path, int chunks,
                     int threads, size_t elem_bytes, int pack)
{
    static size_t last_rows, last_cols, last_bytes;
    static const char *last_path;
    const char *v = getenv("REDUCE_VERBOSE");
    if (!v || strcmp(v, "1") != 0) return;
    if (rows == last_rows && cols == last_cols && elem_bytes == last_bytes && path == last_path)
        return;
    last_rows = rows, last_cols = cols, last_bytes = elem_bytes, last_path = path;
    fprintf(stderr,
            "%s: %zu x %zu (%zu-byte elements, %d a slot): %s, %d CTA(s) a row, %d threads each\n",
            who, rows, cols, elem_bytes, pack, path, chunks, threads);
}

// ------------------------------------------------------------------------------------------------
// Host: the three paths
// ------------------------------------------------------------------------------------------------

template <typename T, bool LOG, int P, int G, int CPT, int RPA>
static cudaError_t warp_launch(const T *d_in, T *d_out, size_t rows, int cols, const gpu_t &g,
                               cudaStream_t s)
{
    constexpr size_t ROWS_PER_BLOCK = (WARP_PATH_BLOCK / WARP_SIZE) * (WARP_SIZE / G) * RPA;
    // 16 blocks of 128 threads fill an SM (2048 threads); 32 such waves, then grid-stride
    const size_t cap = (size_t)g.sms * 16 * 32;
    softmax_warp<T, LOG, P, G, CPT, RPA>
        <<<capped_grid(ceil_div(rows, ROWS_PER_BLOCK), cap), WARP_PATH_BLOCK, 0, s>>>(d_in, d_out,
                                                                                      rows, cols);
    return cudaGetLastError();
}

// cols <= 32 P: one pack per lane, the narrowest group that covers the row.
template <typename T, bool LOG, int P, int RPA, int G = 1>
static cudaError_t warp_narrow(const T *d_in, T *d_out, size_t rows, int cols, const gpu_t &g,
                               cudaStream_t s)
{
    if constexpr (G < WARP_SIZE) {
        if (cols > G * P) return warp_narrow<T, LOG, P, RPA, 2 * G>(d_in, d_out, rows, cols, g, s);
    }
    return warp_launch<T, LOG, P, G, P, RPA>(d_in, d_out, rows, cols, g, s);
}

// cols > 32 P: the whole warp per row, CPT the smallest multiple of STEP that covers the row.
template <typename T, bool LOG, int P, int STEP, int CPT>
static cudaError_t warp_wide(const T *d_in, T *d_out, size_t rows, int cols, const gpu_t &g,
                             cudaStream_t s)
{
    if constexpr (CPT < WARP_MAX_COLS / WARP_SIZE) {
        if (cols > WARP_SIZE * CPT)
            return warp_wide<T, LOG, P, STEP, CPT + STEP>(d_in, d_out, rows, cols, g, s);
    }
    return warp_launch<T, LOG, P, WARP_SIZE, CPT, 1>(d_in, d_out, rows, cols, g, s);
}

// Half a row is gone twice as fast and carries twice the values to convert per byte, so 16-bit
// types keep 4 short rows per group in flight, float 2.
template <typename T>
static constexpr int narrow_rows()
{
    return sizeof(T) == 2 ? 4 : 2;
}

template <typename T, bool LOG>
static cudaError_t warp_path(const T *d_in, T *d_out, size_t rows, int cols, bool packed,
                             const gpu_t &g, cudaStream_t s)
{
    constexpr int P = full_pack<T>();
    say_plan("07_softmax/dispatch", rows, cols,
             packed ? "warp path, 16-byte packs" : "warp path, one element a load",
             cols <= WARP_SIZE * (packed ? P : 1) ? 0 : 1, WARP_PATH_BLOCK, sizeof(T),
             packed ? P : 1);
    if (packed) {
        if (cols <= WARP_SIZE * P)
            return warp_narrow<T, LOG, P, narrow_rows<T>()>(d_in, d_out, rows, cols, g, s);
        return warp_wide<T, LOG, P, P, 2 * P>(d_in, d_out, rows, cols, g, s);
    }
    // rows that start off 16-byte boundaries: one element per access, buckets of 4 values
    if (cols <= WARP_SIZE)
        return warp_narrow<T, LOG, 1, narrow_rows<T>()>(d_in, d_out, rows, cols, g, s);
    return warp_wide<T, LOG, 1, 4, 4>(d_in, d_out, rows, cols, g, s);
}

// ------------------------------------------------------------------------------------------------
// Host: the stream path's plan
// ------------------------------------------------------------------------------------------------

// Fast DRAM, for the ring: DRAM's theoretical bytes per SM clock per SM at least this. There a
// float CTA a row takes the ring, and a 16-bit ring CTA a row asks for its next row's rest during
// this row's writes (plan_stream, below). A line between the two GPUs measured, the H100 SXM (12.8:
// both lost) and the H200 (15.7: both won); a GPU between them is untested.
static constexpr double FAST_DRAM_BYTES_PER_SM_CLOCK = 14.0;


struct stream_plan_t {
    int chunks;           // K CTAs a row; K > 1 is a cluster
    int threads;          // CTA size
    int nbuf;             // buffers a CTA: 2 asks for the next row before reducing this one
                          // (a ring: 2 asks for its rest during this row's writes, 1 after)
    unsigned chunk_slots; // 16-byte slots a CTA holds of each row
    size_t smem;          // dynamic shared memory a CTA
    size_t groups;        // CTA groups launched (a group a row, or the resident ones looping)
    bool loop;            // the resident groups loop over the rows
    bool gather;          // stream flags only: the rows gather (no merging CTAs)
    bool ring;            // one looping CTA a row, its whole shared memory a ring of rows
    bool bulk_out;        // outputs in place in shared memory, copied out by the TMA
};

// A knob for measurements: an integer from the environment, or dflt. A value that is not an
// integer from lo to hi (a multiple of step) is ignored, with one line on stderr, once a name.
static int env_knob(const char *name, int dflt, int lo, int hi, int step = 1)
{
    const char *v = getenv(name);
    if (!v || !*v) return dflt;
    char *end = nullptr;
    const long x = strtol(v, &end, 10);
    if (*end == '\0' && x >= lo && x <= hi && x % step == 0) return (int)x;
    static const char *warned[8];
    static int n_warned;
    for (int i = 0; i < n_warned; i++)
        if (warned[i] == name) return dflt;
    if (n_warned < 8) warned[n_warned++] = name;
    if (step > 1)
        fprintf(stderr, "07_softmax: %s=%s ignored: a multiple of %d from %d to %d\n", name, v,
                step, lo, hi);
    else
        fprintf(stderr, "07_softmax: %s=%s ignored: an integer from %d to %d\n", name, v, lo, hi);
    return dflt;
}

// The most dynamic shared memory one CTA of `kernel` may ask for: the opt-in limit less the
// kernel's static shared memory (asking for the whole opt-in limit on top of static shared
// memory fails the launch). Set on the kernel once per device, with the non-portable clusters.
static size_t stream_smem_limit(const gpu_t &g, const void *kernel)
{
    static const void *cached_kernel[16];
    static int cached_dev[16], n_cached;
    static size_t cached_limit[16];
    for (int i = 0; i < n_cached; i++)
        if (cached_kernel[i] == kernel && cached_dev[i] == g.id) return cached_limit[i];
    cudaFuncAttributes fa;
    size_t limit = 0;
    // (and only sm_90 code has the bulk copies: a build for older GPUs runs here from their PTX)
    if (cudaFuncGetAttributes(&fa, kernel) == cudaSuccess && fa.ptxVersion >= 90 &&
        (size_t)g.smem_optin > fa.sharedSizeBytes) {
        limit = (size_t)g.smem_optin - fa.sharedSizeBytes;
        if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)limit) !=
            cudaSuccess)
            limit = 0;
        if (g.clusters)
            (void)cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    }
    (void)cudaGetLastError(); // a refusal means no stream path, not an error to keep
    if (n_cached < 16) {
        cached_kernel[n_cached] = kernel;
        cached_dev[n_cached] = g.id;
        cached_limit[n_cached++] = limit;
    }
    return limit;
}

// Groups of K CTAs (threads, smem each) the GPU holds at once; 0 when none fits.
static size_t stream_resident(const gpu_t &g, const void *kernel, int chunks, int threads,
                              size_t smem)
{
    int n = 0;
    if (chunks == 1) {
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, threads, smem) != cudaSuccess)
            n = 0;
        (void)cudaGetLastError();
        return (size_t)n * g.sms;
    }
    return active_clusters(kernel, chunks, threads, smem);
}

// Threads of a stream CTA: about 8 slots each, 128 to 512, or RING_THREADS for a ring
// (REDUCE_STREAM_THREADS sets them). A ring's CTA is alone on its SM with over 7000 slots: 768
// threads against 512, three rounds alternating in one call on each GPU
// (plots/reference/dispatch/stream_tuning/ring/threads.txt): 1024 x 65536, every dtype and op,
// -0.1 to +1.9 points on the H100 and +0.2 to +2.6 on the H200; 512 x 131072 bf16 +0.8 to +1.0
// and -0.5 to -1.0; 2048 x 60000 f16 -0.2 to -0.4 and +1.1 to +1.6; the H200's float CTA a row
// at 2048 x 32768 -0.6 to -1.1. 1024 threads lost 1 to 7 (ring/followups.txt).
static constexpr int RING_THREADS = 768;
static int stream_threads(size_t chunk_slots, bool ring = false)
{
    size_t t = ceil_div(ceil_div(chunk_slots, 8), (size_t)WARP_SIZE) * WARP_SIZE;
    t = ring ? RING_THREADS : t < 128 ? 128 : t > 512 ? 512 : t;
    return env_knob("REDUCE_STREAM_THREADS", (int)t, 64, 1024, WARP_SIZE);
}

// A cluster's CTAs: registers must not cut the CTAs an SM below what shared memory allows. At
// about 8 slots a thread, 256 x 151936 16-bit clusters of 6 take CTAs of 416 threads and 50 KB;
// at the kernel's registers the SM holds 3 of them where its shared memory holds 4. So: the most
// threads, down from `threads` in steps of a warp and never under 128, at which an SM holds as
// many CTAs as at 128 (the occupancy calculator decides, from the kernel's own registers and the
// running GPU's limits). H100, three rounds alternating (plots/reference/dispatch/stream_tuning/
// fit_threads/): 256 x 151936 f16 and bf16, 416 -> 320 threads, against the build before,
// softmax +1.5 to +3.9 points of the copy, log-softmax +4.6 to +5.7; in one build against
// REDUCE_STREAM_THREADS=416, +1.7 to +3.3 and +4.2 to +5.6. Not for a CTA a row,
// launched once a row: there the same rule lost (2048 x 32768 16-bit, 512 -> 416 threads: -2.1
// to -2.5; 4096 x 16384 16-bit, 288 -> 192: -0.1 to -0.6). REDUCE_STREAM_THREADS, when set, is
// kept as is.
static int stream_fit_threads(const void *kernel, int threads, size_t smem)
{
    const char *knob = getenv("REDUCE_STREAM_THREADS");
    if ((knob && *knob) || threads <= 128) return threads;
    int want = 0, n = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&want, kernel, 128, smem) != cudaSuccess)
        want = 0;
    for (int t = threads; want > 0 && t > 128; t -= WARP_SIZE)
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, t, smem) == cudaSuccess &&
            n >= want)
            return t;
    (void)cudaGetLastError();
    return want > 0 ? 128 : threads;
}

// The stream plan for rows of `cols` elements in 16-byte slots of P, or false. K: the fewest CTAs
// whose shared memory holds the row (a cluster when K > 1); false when that exceeds the largest
// cluster, or when rows x K CTAs would leave SMs without one (few rows: the CTA path cuts each
// row finer); a cluster is cut until three of its CTAs fit an SM (four in 16-bit types), unless
// it is a ring (below). A single CTA a row is launched once per row, unless it is a ring;
// clusters and rings loop over the rows. Looping plans only: two
// buffers when a single CTA has several rows to do and an SM then holds at least as many buffers
// (rows in flight) as with one. REDUCE_STREAM=1 (measurements) also takes few rows, raising K
// towards one CTA a SM; REDUCE_STREAM_K, _THREADS, _LOOP, _NBUF and _RING set the plan
// (REDUCE_STREAM_NBUF=2 implies the loop unless REDUCE_STREAM_LOOP=0, which keeps one buffer;
// REDUCE_STREAM_GROUPS caps the looping groups).
static bool plan_stream(const gpu_t &g, const void *kernel, size_t rows, size_t cols, int P,
                        bool log_op, bool forced, stream_plan_t *sp,
                        const void *ring_kernel = nullptr, const void *split_kernel = nullptr)
{
    sp->ring = false;
    const size_t limit = stream_smem_limit(g, kernel);
    if (limit < PACK_BYTES) return false;
    const size_t slots = ceil_div(cols + P - 1, (size_t)P); // any alignment of the row
    const size_t kmax = g.clusters ? STREAM_MAX_CLUSTER : 1;
    const size_t k_fit = ceil_div(slots * PACK_BYTES, limit);
    size_t k = k_fit;
    // The ring (REDUCE_STREAM_RING=0 or 1 overrides): where the fewest CTAs' chunks are each over
    // half of a CTA's shared memory, so that one CTA an SM holds one buffer, those CTAs loop over
    // the rows with the whole of it as a ring, and each asks for the next row's first slots (as
    // many as fit beside this row) once this row has landed: the SM reads while it reduces and
    // writes. Taken for a CTA a row in 16-bit types, and in float where DRAM feeds each SM at
    // least FAST_DRAM_BYTES_PER_SM_CLOCK; and for clusters (which then keep their fewest CTAs
    // instead of being cut) where at least two thirds of a chunk fit beside it.
    // H100 (plots/reference/dispatch/stream_tuning/ring/): a 16-bit CTA a row, 60000 to 92000
    // columns, +1.7 to +9.6 points of the copy (1024 x 65536: 79-80% -> 89%); a float one lost
    // (32768 columns: 0 to -1.8; 40000 to 50257: -2 to -6), likely because float's two passes
    // cost less to hide than looping costs against a CTA launched a row (ablations and the
    // loop, below; not profiled). On an H200 (ring/h200/), whose DRAM is 22% faster for the
    // same SMs and clock, the float CTAs gained: 32768 +7 to +9.5, 40000 +2.0 to +2.3, 46000
    // +3.6, 50257 log-softmax +3.8 (softmax 0 to -1); 16-bit +3.6 to +11.7. Clusters of 2 as rings
    // against the cut ones of 4 or 5, with 77% of a chunk beside it: 1024 x 65536 float +2.6 to
    // +3.2 (H200 +1.4 to +1.9), 512 x 131072 bf16 +3 to +4 (H200 +4); with 49% (256 x 151936
    // 16-bit, against 6): -1.5 to -2 (H200 0 and -5). The two-thirds line lies between those.
    const int want_ring = env_knob("REDUCE_STREAM_RING", -1, 0, 1);
    const size_t fit_bytes = ceil_div(slots, k_fit) * PACK_BYTES;
    bool ring_rule = false;
    if (want_ring != 0 && ring_kernel && 2 * fit_bytes > limit && fit_bytes <= limit &&
        rows * k_fit >= (size_t)g.sms && stream_smem_limit(g, ring_kernel) == limit &&
        (want_ring == 1 ||
         (k_fit == 1 ? P >= 8 || g.dram_bytes_per_sm_clock >= FAST_DRAM_BYTES_PER_SM_CLOCK
                     : 3 * (limit - fit_bytes) >= 2 * fit_bytes))) {
        const size_t rr = stream_resident(g, ring_kernel, (int)k_fit,
                                          stream_threads(ceil_div(slots, k_fit), true),
                                          limit / PACK_BYTES * PACK_BYTES);
        ring_rule = rr > 0 && rows > rr;
    }
    if (rows * k_fit < (size_t)g.sms) {
        if (!forced) return false;
        k = ceil_div((size_t)g.sms, rows);
        k = k < kmax ? k : kmax;
        k = k > k_fit ? k : k_fit;
    } else if (k_fit > 1 && !ring_rule) {
        // A cluster's CTAs wait for each other's states once a row; alone on its SM, a CTA then
        // leaves the SM idle. Cut the row until three float chunks fit one SM's shared memory, or
        // four 16-bit ones. With the states swapped by message, one H100 call
        // (plots/reference/dispatch/stream_tuning/three_a_sm/k.txt): 256 x 151936 floats 77% of
        // the copy as K = 6 (two a SM), 84% as K = 8 (three); 1024 x 65536 floats 85% as K = 3,
        // 86% as K = 4; 256 x 151936 bf16 78% as K = 6 (four a SM), 77% as K = 8, 76% as
        // K = 12. Why the best count differs by type was not profiled. The float rule gained on
        // an H200 too (stream_tuning/h200_e76b40e/: 256 x 151936 floats 67-69% -> 72-75%).
        // (With cluster.sync(), two float chunks a SM had beaten one: 1024 x 65536 at 79% as
        // K = 2, 86% as K = 3, kmatrix_2.txt; at 256 x 151936 float K = 8 beat 6 there and
        // tied with it in k151936/kmatrix.txt.)
        const size_t per_sm = (size_t)g.smem_sm / (P >= 8 ? 4 : 3),
                     fixed = (size_t)g.smem_reserved + ((size_t)g.smem_optin - limit);
        if (per_sm > fixed + PACK_BYTES) {
            const size_t k2 = ceil_div(slots * PACK_BYTES, per_sm - fixed);
            k = k2 > k ? (k2 < kmax ? k2 : kmax) : k;
        }
    }
    k = (size_t)env_knob("REDUCE_STREAM_K", (int)k, 1, STREAM_MAX_CLUSTER);
    if (k < k_fit || k > kmax) return false;
    sp->chunks = (int)k;
    sp->chunk_slots = (unsigned)ceil_div(slots, k);
    sp->nbuf = 1;
    sp->smem = (size_t)sp->chunk_slots * PACK_BYTES;
    sp->threads = stream_threads(sp->chunk_slots);
    if (sp->chunks > 1) sp->threads = stream_fit_threads(kernel, sp->threads, sp->smem);
    size_t resident = stream_resident(g, kernel, sp->chunks, sp->threads, sp->smem);
    const int want_nbuf = env_knob("REDUCE_STREAM_NBUF", 0, 1, 2);
    // A single CTA a row is launched once per row (likely, not profiled: as one leaves its SM
    // the block scheduler starts the next, so an SM's CTAs run at different phases). That beat the
    // resident CTAs looping over the rows by 4 to 7 points of the copy at every single-CTA shape
    // measured, two buffers or one (4096 x 16384, 2048 x 32768, 4096 x 50257; 1024 x 65536 in
    // 16-bit). Clusters loop: relaunching a cluster per row lost 2 to 6 points (1024 x 65536 and
    // 256 x 151936 in float; plots/reference/dispatch/stream_tuning/grid/).
    // REDUCE_STREAM_LOOP=0 or 1 overrides; REDUCE_STREAM_NBUF=2 implies the loop unless it is 0
    // (two buffers only where a CTA has a next row).
    const int want_loop = env_knob("REDUCE_STREAM_LOOP", -1, 0, 1);
    sp->loop = want_loop >= 0 ? want_loop == 1 : (sp->chunks > 1 || want_nbuf == 2);
    // (a cluster keeps one buffer: two would leave its CTAs alone on their SMs again)
    if (sp->loop && 2 * sp->smem <= limit && want_nbuf != 1 &&
        (want_nbuf == 2 || (sp->chunks == 1 && rows > resident))) {
        const int t2 = sp->chunks > 1 ? stream_fit_threads(kernel, stream_threads(sp->chunk_slots),
                                                           2 * sp->smem)
                                      : sp->threads;
        const size_t r2 = stream_resident(g, kernel, sp->chunks, t2, 2 * sp->smem);
        if (r2 > 0 && (want_nbuf == 2 || 2 * r2 >= resident)) {
            sp->nbuf = 2;
            sp->smem *= 2;
            sp->threads = t2;
            resident = r2;
        }
    }
    // the ring, as decided above (or with REDUCE_STREAM_RING=1 for any K whose chunk is over
    // half the shared memory)
    if (ring_kernel && (want_ring == 1 || (ring_rule && sp->chunks == (int)k_fit)) &&
        sp->nbuf == 1 && 2 * sp->smem > limit && want_loop != 0 &&
        stream_smem_limit(g, ring_kernel) == limit) {
        const size_t ring = limit / PACK_BYTES * PACK_BYTES;
        const int threads = stream_threads(sp->chunk_slots, true);
        const size_t rr = stream_resident(g, ring_kernel, sp->chunks, threads, ring);
        if (rr > 0 && rows > rr) {
            sp->ring = true;
            sp->loop = true;
            // A ring's nbuf: 2 asks for the next row's rest as soon as the slots it lands in are
            // written (its own kernel, SPLIT), 1 once all of this row's are (REDUCE_STREAM_NBUF
            // sets it). 2 for 16-bit rings only: clusters, and a CTA a row on fast DRAM. Against
            // the build before it, same call, three rounds alternating
            // (plots/reference/dispatch/stream_tuning/ring/split/), points of the copy: 16-bit
            // clusters of 2 (512 x 131072 bf16) H100 +0.5 to +0.8, H200 +1.1 to +1.4; a 16-bit
            // CTA a row H200 +2.2 to +4.8, H100 -0.3 to -4.3; float clusters of 2 (1024 x 65536)
            // lost on both, H100 -3.0 to -4.9, H200 -0.3 to -4.0. A float CTA a row (a ring on the
            // H200 only) lost but for one shape's softmax, against REDUCE_STREAM_NBUF=1
            // (split/h200_float/): 4096 x 50257 log-softmax 64.7-64.9% against 80.5-80.9%,
            // softmax -1.2 to -1.6; 2048 x 32768 log-softmax -1.6 to -1.8, softmax +0.6 to +0.9.
            sp->nbuf = want_nbuf ? want_nbuf
                       : P >= 8 && (sp->chunks > 1 ||
                                    g.dram_bytes_per_sm_clock >= FAST_DRAM_BYTES_PER_SM_CLOCK)
                           ? 2
                           : 1;
            // (its own kernel: the other keeps no trace of it; its shared memory set up here)
            if (sp->nbuf == 2 && !(split_kernel && stream_smem_limit(g, split_kernel) == limit))
                sp->nbuf = 1;
            sp->smem = ring;
            sp->threads = threads;
            resident = rr;
        }
    }
    if (resident == 0) return false;
    // Outputs by the TMA (REDUCE_STREAM_BULK_OUT=0 or 1 overrides): each thread writes its
    // outputs over its inputs in shared memory and one warp asks the TMA to copy the whole slots
    // out (cp.async.bulk, shared to global); the CTA waits only until the TMA has read them. Taken
    // for a float CTA launched once a row, and for float log-softmax rings of one buffer. Same
    // call, three rounds alternating against =0
    // (plots/reference/dispatch/stream_tuning/bulk_out/), points of the copy: H100 4096 x 50257
    // softmax +3.1 to +3.2, log-softmax +8.9 to +9.1; 1500 x 46000 +1.4 to +1.6 and +6.1 to +6.3;
    // 4096 x 16384 +0.5 and +1.6 to +1.7; 2048 x 32768 -1.0 to -1.1 and +0.9 to +1.1; H200
    // 4096 x 16384 +1.9 to +2.1 and +9.4 to +9.6, 8192 x 12288 -1.2 to -1.3 and +3.2 to +3.3.
    // Not taken where it lost: looping clusters (256 x 151936, H100: -0.2 to -4.6), a row over
    // 16 CTAs in one launch (32 x 128256 float: -5.5 to -6.2 in softmax), 16-bit CTAs a row
    // (4096 x 16384: -0.6 to +0.2), 16-bit rings (H100 1024 x 65536: -5.6 to -9.3) and float
    // softmax rings (H200, two rounds: -0.8 to -10.5). Float log-softmax rings gained: H100
    // 300 x 60001 +8.1 to +9.3, 2048 x 58000 +7.4 to +7.6, 1024 x 65536 +4.4 to +4.7; H200 (two
    // rounds) 1500 x 46000 +13.6 to +14.3, 4096 x 50257 +5.6 to +5.8, 2048 x 32768 +2.1. Why
    // log-softmax gains where softmax loses on rings was not profiled; at a float CTA a row its
    // thread stores took the L2 47% more write sectors than the TMA's copies (softmax 22%).
    sp->bulk_out = env_knob("REDUCE_STREAM_BULK_OUT",
                            P == 4 && ((sp->chunks == 1 && !sp->loop && !sp->ring) ||
                                       (log_op && sp->ring && sp->nbuf == 1)),
                            0, 1) == 1;
    const size_t most = sp->loop ? resident : MAX_GRID_X / (size_t)sp->chunks;
    sp->groups = rows < most ? rows : most; // past MAX_GRID_X even a group a row loops
    // REDUCE_STREAM_GROUPS (measurements; a looping plan): fewer groups, each with more rows
    if (sp->loop && sp->groups <= 65536)
        sp->groups = (size_t)env_knob("REDUCE_STREAM_GROUPS", (int)sp->groups, 1, (int)sp->groups);
    return sp->groups * (size_t)sp->chunks <= MAX_GRID_X;
}

// Whether a flag exchange of `chunks` CTAs a row gathers instead of merging (at most 32 a row;
// REDUCE_FLAGS_GATHER=0: never, for measurements), and the merging CTAs its launch then adds.
static bool flag_gathers(int chunks)
{
    return chunks <= WARP_SIZE && env_knob("REDUCE_FLAGS_GATHER", 1, 0, 1) == 1;
}

// The same for the flag path in registers: up to GATHER_AT_ONCE x 32 CTAs a row
// (flag_gather_wide; REDUCE_FLAGS_GATHER_MAX=32, for measurements, keeps the stream kernel's
// line).
static bool flag_gathers_regs(int chunks)
{
    const int most = env_knob("REDUCE_FLAGS_GATHER_MAX", GATHER_AT_ONCE * WARP_SIZE, WARP_SIZE,
                              GATHER_AT_ONCE * WARP_SIZE, WARP_SIZE);
    return chunks <= most && env_knob("REDUCE_FLAGS_GATHER", 1, 0, 1) == 1;
}

static size_t flag_extra_ctas(size_t rows, int chunks, int threads, bool gathers)
{
    return gathers ? 0 : flag_mergers(rows, threads);
}

// EX other than EX_CLUSTER: the flag path's exchange (d_words its workspace), cooperative launch.
template <typename T, bool LOG, int EX = EX_CLUSTER>
static cudaError_t stream_launch(const T *d_in, T *d_out, size_t rows, size_t cols,
                                 const stream_plan_t &sp, cudaStream_t s,
                                 unsigned long long *d_words = nullptr)
{
    constexpr bool FLAGS = EX != EX_CLUSTER;
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    cfg.gridDim = dim3(
        (unsigned)(sp.groups * sp.chunks + (EX == EX_MERGE ? flag_mergers(rows, sp.threads) : 0)));
    cfg.blockDim = dim3(sp.threads);
    cfg.dynamicSmemBytes = sp.smem;
    cfg.stream = s;
    if (FLAGS) {
        attr[0].id = cudaLaunchAttributeCooperative;
        attr[0].val.cooperative = 1;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
    } else if (sp.chunks > 1) {
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = sp.chunks;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
    }
    size_t n_rows = rows, n_cols = cols;
    int n_chunks = sp.chunks, n_buf = sp.nbuf, bulk_out = sp.bulk_out;
    unsigned n_slots = sp.chunk_slots;
    void *params[] = {(void *)&d_in, (void *)&d_out, &n_rows, &n_cols,   &n_chunks,
                      &n_slots,      &n_buf,         (void *)&d_words, &bulk_out};
    const void *kernel = (const void *)softmax_stream<T, LOG, EX>;
    if constexpr (EX == EX_CLUSTER)
        if (sp.ring)
            kernel = sp.nbuf == 2 ? (const void *)softmax_stream<T, LOG, EX_CLUSTER, true, true>
                                  : (const void *)softmax_stream<T, LOG, EX_CLUSTER, true>;
    cudaError_t err = cudaLaunchKernelExC(&cfg, kernel, params);
    return err != cudaSuccess ? err : cudaGetLastError();
}

// Whether the stream path may take a shape whose CTA-path plan is p: on GPUs with bulk copies,
// when the CTA path needs more than one CTA a row, or one CTA of more than 256 threads (8192
// values). Below that the CTA path's 256-thread CTAs share an SM and won every same-run
// comparison on the H100; above it the stream path won (README.md, "The stream path or the CTA
// path").
// REDUCE_STREAM=0 or 1 overrides, for measurements.
static int stream_knob() { return env_knob("REDUCE_STREAM", -1, 0, 1); }

static bool stream_wanted(const gpu_t &g, const plan_t &p)
{
    if (g.cc_major < 9 || !g.clusters) return false;
    if (stream_knob() >= 0) return stream_knob() == 1;
    return p.path == PATH_SPLIT || p.chunks > 1 || p.threads > CTA_SHARED_SM_THREADS / 2;
}

// Whether split plan p can run in one cooperative launch (flags): every CTA of it and its
// merging CTAs resident at once, a workspace, a GPU with cooperative launch (REDUCE_FLAGS=0:
// never, for measurements).
template <typename T, bool LOG, int P>
static bool flags_fit(const gpu_t &g, size_t rows, const plan_t &p, const void *d_ws)
{
    if (p.path != PATH_SPLIT || d_ws == nullptr || !g.coop || !env_knob("REDUCE_FLAGS", 1, 0, 1))
        return false;
    int per_sm = 0;
    const bool gathers = flag_gathers_regs(p.chunks);
    const void *kernel = gathers ? (const void *)softmax_flags<T, LOG, P, true>
                                 : (const void *)softmax_flags<T, LOG, P, false>;
    const bool fit = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, p.threads, 0) ==
                         cudaSuccess &&
                     rows * (size_t)p.chunks + flag_extra_ctas(rows, p.chunks, p.threads, gathers) <=
                         (size_t)per_sm * g.sms;
    (void)cudaGetLastError();
    return fit;
}

// Split plan p on the stream kernel in one cooperative launch (the flag path's exchange): its K
// CTAs a row each hold their chunk in shared memory (the TMA's) instead of registers, so they
// are resident at once where the register-holding CTAs are not (32 x 128256 float: 512 CTAs of
// 256 threads at 96 registers, two an SM). False when the chunk exceeds one CTA's shared memory,
// when not every CTA fits at once, or on a GPU without bulk copies or cooperative launch.
// The flag path's workspace, with the same K. REDUCE_STREAM_FLAGS_K (measurements) takes fewer;
// REDUCE_FLAGS=0 turns this off as well (the two kernels).
template <typename T, bool LOG>
static bool plan_stream_flags(const gpu_t &g, size_t rows, size_t cols, const plan_t &p,
                              const void *d_ws, stream_plan_t *sp)
{
    constexpr int P = full_pack<T>();
    if (p.path != PATH_SPLIT || d_ws == nullptr || !g.coop || g.cc_major < 9 ||
        !env_knob("REDUCE_FLAGS", 1, 0, 1))
        return false;
    const size_t slots = ceil_div(cols + P - 1, (size_t)P); // any alignment of the row
    sp->chunks = env_knob("REDUCE_STREAM_FLAGS_K", p.chunks, 2, p.chunks);
    sp->gather = flag_gathers(sp->chunks);
    const void *kernel = sp->gather ? (const void *)softmax_stream<T, LOG, EX_GATHER>
                                    : (const void *)softmax_stream<T, LOG, EX_MERGE>;
    const size_t limit = stream_smem_limit(g, kernel);
    sp->chunk_slots = (unsigned)ceil_div(slots, (size_t)sp->chunks);
    sp->smem = (size_t)sp->chunk_slots * PACK_BYTES;
    if (sp->smem > limit) return false;
    sp->threads = stream_threads(sp->chunk_slots);
    sp->nbuf = 1;
    sp->loop = false;
    sp->ring = false;
    sp->groups = rows;
    sp->bulk_out = env_knob("REDUCE_STREAM_BULK_OUT", 0, 0, 1) == 1;
    int per_sm = 0;
    const bool fit = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, sp->threads,
                                                                   sp->smem) == cudaSuccess &&
                     rows * (size_t)sp->chunks +
                             flag_extra_ctas(rows, sp->chunks, sp->threads, sp->gather) <=
                         (size_t)per_sm * g.sms;
    (void)cudaGetLastError();
    return fit;
}

template <typename T, bool LOG, int P>
static cudaError_t cta_path(const T *d_in, T *d_out, size_t rows, size_t cols, void *d_ws,
                            const gpu_t &g, cudaStream_t s)
{
    constexpr int PER_THREAD = slots_per_thread<P>();
    auto kernel = softmax_cta<T, LOG, P>;
    const int max_cluster = g.clusters ? cluster_limit((const void *)kernel) : 1;
    const bool aligned = (uintptr_t)d_in % PACK_BYTES == 0 && cols % P == 0;
    plan_t p = plan_rows(g, max_cluster, rows, cols, P, PER_THREAD, cta_max_threads<P>(), aligned);
    if (p.path == PATH_CTA && p.chunks > 1 && (size_t)p.chunks * p.threads > (size_t)g.sm_threads) {
        // A cluster wider than an SM's threads: the plan of a GPU without clusters instead, when
        // the row needs more than one CTA there and that plan runs in one launch (flags), or
        // the cluster does not pay against its two kernels. Against the flags, such clusters
        // lost at every shape of 6 to 16 rows of 100000 to 131072 columns measured, by up to
        // 24 points of the copy (16 x 131072 float), but for 16-bit at 8 x 131072 and bfloat16
        // log-softmax at 8 x 100003, within the spread (one H100 call; on an H200 16-bit lost
        // up to 5 points at 6 and 8 rows: plots/reference/dispatch/flag_exchange/wide_clusters/).
        gpu_t flat = g;
        flat.clusters = 0;
        const plan_t q =
            plan_rows(flat, 1, rows, cols, P, PER_THREAD, cta_max_threads<P>(), aligned);
        if (q.path == PATH_SPLIT &&
            (flags_fit<T, LOG, P>(g, rows, q, d_ws) || !cluster_pays(g, rows, p.chunks, p.threads)))
            p = q;
    }
    if constexpr (P == full_pack<T>()) {
        stream_plan_t sp;
        if (stream_wanted(g, p) &&
            plan_stream(g, (const void *)softmax_stream<T, LOG, EX_CLUSTER>, rows, cols, P, LOG,
                        stream_knob() == 1, &sp,
                        (const void *)softmax_stream<T, LOG, EX_CLUSTER, true>,
                        (const void *)softmax_stream<T, LOG, EX_CLUSTER, true, true>)) {
            say_plan("07_softmax/dispatch", rows, cols,
                     sp.ring && sp.nbuf == 2
                         ? "stream (shared memory, looping, a ring, its rest asked during the writes)"
                     : sp.ring && sp.bulk_out
                         ? "stream (shared memory, looping, a ring, outputs by the TMA)"
                     : sp.ring      ? "stream (shared memory, looping, a ring)"
                     : sp.nbuf == 2 ? "stream (shared memory, looping, 2 buffers)"
                     : sp.loop      ? "stream (shared memory, looping)"
                     : sp.bulk_out  ? "stream (shared memory, outputs by the TMA)"
                                    : "stream (shared memory)",
                     sp.chunks, sp.threads, sizeof(T), P);
            return stream_launch<T, LOG>(d_in, d_out, rows, cols, sp, s);
        }
    }
    // The split plan in one cooperative launch when every CTA of it can be resident at once
    // (REDUCE_FLAGS=0: the two kernels, for measurements).
    const bool flags = flags_fit<T, LOG, P>(g, rows, p, d_ws);
    if constexpr (P == full_pack<T>()) {
        // Else the same plan on the stream kernel, in one launch as well, when all of its CTAs
        // fit (REDUCE_STREAM_FLAGS=0: never; 1: in place of the flag path too, measurements).
        const int want = env_knob("REDUCE_STREAM_FLAGS", -1, 0, 1);
        stream_plan_t sp;
        if ((want == 1 || (want < 0 && !flags)) &&
            plan_stream_flags<T, LOG>(g, rows, cols, p, d_ws, &sp)) {
            say_plan("07_softmax/dispatch", rows, cols, "stream, one launch (flags)", sp.chunks,
                     sp.threads, sizeof(T), P);
            unsigned long long *words = static_cast<unsigned long long *>(d_ws);
            const cudaError_t e =
                sp.gather ? stream_launch<T, LOG, EX_GATHER>(d_in, d_out, rows, cols, sp, s, words)
                          : stream_launch<T, LOG, EX_MERGE>(d_in, d_out, rows, cols, sp, s, words);
            if (e == cudaSuccess) return e;
            (void)cudaGetLastError(); // refused after all: the split path below
        }
    }
    say_plan("07_softmax/dispatch", rows, cols,
             p.path == PATH_CTA ? (p.chunks > 1 ? "cluster" : "block per row")
             : flags            ? "split, one launch (flags)"
                                : "split (two kernels)",
             p.chunks, p.threads, sizeof(T), P);
    if (rows * (size_t)p.chunks > MAX_GRID_X)
        return cudaErrorInvalidValue; // beyond any GPU's memory
    if (p.path == PATH_CTA) {
        cudaLaunchConfig_t cfg = {};
        cudaLaunchAttribute attr[1];
        cfg.gridDim = dim3((unsigned)(rows * p.chunks));
        cfg.blockDim = dim3(p.threads);
        cfg.stream = s;
        if (p.chunks > 1) {
            attr[0].id = cudaLaunchAttributeClusterDimension;
            attr[0].val.clusterDim.x = p.chunks;
            attr[0].val.clusterDim.y = 1;
            attr[0].val.clusterDim.z = 1;
            cfg.attrs = attr;
            cfg.numAttrs = 1;
        }
        // the C API form: every CUDA 12 and 13 runtime has it
        size_t n_cols = cols, n_slots = p.chunk_slots;
        int n_chunks = p.chunks;
        void *params[] = {(void *)&d_in, (void *)&d_out, &n_cols, &n_chunks, &n_slots};
        cudaError_t err = cudaLaunchKernelExC(&cfg, (const void *)kernel, params);
        return err != cudaSuccess ? err : cudaGetLastError();
    }
    if (d_ws == nullptr) return cudaErrorInvalidValue;
    if (flags) {
        unsigned long long *words = static_cast<unsigned long long *>(d_ws);
        size_t n_rows = rows, n_cols = cols, n_slots = p.chunk_slots;
        int n_chunks = p.chunks;
        void *args[] = {(void *)&d_in, (void *)&d_out, &n_rows, &n_cols,
                        &n_chunks,     &n_slots,       &words};
        const bool gather = flag_gathers_regs(p.chunks);
        cudaError_t e = cudaLaunchCooperativeKernel(
            gather ? (const void *)softmax_flags<T, LOG, P, true>
                   : (const void *)softmax_flags<T, LOG, P, false>,
            dim3((unsigned)(rows * p.chunks + (gather ? 0 : flag_mergers(rows, p.threads)))),
            dim3(p.threads), args, 0, s);
        if (e == cudaSuccess) return cudaGetLastError();
        (void)cudaGetLastError(); // refused after all: the two kernels below
    }
    max_sum *state = static_cast<max_sum *>(d_ws);
    softmax_split_state<T, P><<<(unsigned)(rows * p.chunks), p.threads, 0, s>>>(
        d_in, cols, p.chunks, p.chunk_slots, state);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return err;
    softmax_split_write<T, LOG, P><<<(unsigned)(rows * p.chunks), p.threads, 0, s>>>(
        d_in, d_out, cols, p.chunks, p.chunk_slots, state);
    err = cudaGetLastError();
    // The one-launch paths keep their counts in this scratch and find them zero only if every
    // launch before leaves it zero (tuned.h): a state left here could sit where a later,
    // smaller flag launch counts its readers, and that count would never come round to reset
    // its row. The states go back to 0 once the write kernel has read them (stream order), and
    // also when that kernel could not be launched, since the first one has written them. (0.8 to
    // 3.5 us on the H100; a count in the write kernel cost more in float:
    // plots/reference/dispatch/split_reset/.)
    const cudaError_t cleared =
        cudaMemsetAsync(d_ws, 0, rows * (size_t)p.chunks * sizeof(max_sum), s);
    return err != cudaSuccess ? err : cleared;
}

// The whole dispatcher. Packs need each row's input and output to sit at the same offset from a
// 16-byte boundary (true when the two pointers do, since rows advance both by the same bytes);
// the warp path also wants every row aligned (cols a multiple of the pack).
template <typename T, bool LOG>
static cudaError_t dispatch(const void *in, void *out, size_t rows, size_t cols, void *d_ws,
                            cudaStream_t s)
{
    // the exchange's words are 64-bit (tuned.h)
    if (rows == 0 || cols == 0 || (uintptr_t)d_ws % 8 != 0) return cudaErrorInvalidValue;
    gpu_t g;
    cudaError_t err = current_gpu(&g);
    if (err != cudaSuccess) return err;
    // REDUCE_NO_CLUSTERS=1: plan as on a GPU without clusters (the gpu suite tests the split
    // path on Hopper that way)
    const char *nc = getenv("REDUCE_NO_CLUSTERS");
    if (nc && strcmp(nc, "1") == 0) g.clusters = 0;
    const T *d_in = static_cast<const T *>(in);
    T *d_out = static_cast<T *>(out);
    const bool same_phase = ((uintptr_t)in - (uintptr_t)out) % PACK_BYTES == 0;
    if (cols <= (size_t)WARP_MAX_COLS) {
        const bool rows_aligned =
            same_phase && (uintptr_t)in % PACK_BYTES == 0 && cols % full_pack<T>() == 0;
        return warp_path<T, LOG>(d_in, d_out, rows, (int)cols, rows_aligned, g, s);
    }
    if (same_phase) return cta_path<T, LOG, full_pack<T>()>(d_in, d_out, rows, cols, d_ws, g, s);
    return cta_path<T, LOG, 1>(d_in, d_out, rows, cols, d_ws, g, s);
}

// Scratch of the split path for slots of P: a state per chunk. Any GPU may take the split path
// (no clusters), so the bound assumes none.
template <int P>
static size_t split_workspace(size_t rows, size_t cols)
{
    if (cols <= (size_t)WARP_MAX_COLS) return 0;
    gpu_t g;
    if (current_gpu(&g) != cudaSuccess) g = gpu_t();
    g.clusters = 0;
    const plan_t p =
        plan_rows(g, 1, rows, cols, P, slots_per_thread<P>(), cta_max_threads<P>(), false);
    return p.path == PATH_SPLIT ? rows * (size_t)p.chunks * sizeof(max_sum) + rows * 16 : 0;
}

// ------------------------------------------------------------------------------------------------
// The functions softmax.cu's variant table calls
// ------------------------------------------------------------------------------------------------

int supports_dispatch(size_t rows, size_t cols) { return rows >= 1 && cols >= 1; }

size_t workspace_dispatch_f32(size_t rows, size_t cols)
{
    const size_t a = split_workspace<full_pack<float>()>(rows, cols),
                 b = split_workspace<1>(rows, cols);
    return a > b ? a : b;
}

size_t workspace_dispatch_16(size_t rows, size_t cols)
{
    const size_t a = split_workspace<full_pack<__half>()>(rows, cols),
                 b = split_workspace<1>(rows, cols);
    return a > b ? a : b;
}

size_t dispatch_smem_edges(size_t elem_bytes, size_t *cols, size_t max)
{
    gpu_t g;
    if (current_gpu(&g) != cudaSuccess || g.cc_major < 9 || !g.clusters) return 0;
    const void *kernel = elem_bytes == 4 ? (const void *)softmax_stream<float, false, EX_CLUSTER>
                                         : (const void *)softmax_stream<__half, false, EX_CLUSTER>;
    const size_t per_slot = PACK_BYTES / elem_bytes,
                 slots = stream_smem_limit(g, kernel) / PACK_BYTES;
    // a row of c columns takes at most ceil((c + P - 1) / P) slots: the longest with s slots
    const size_t longest[3] = {(slots / 2) * per_slot - (per_slot - 1),
                               slots * per_slot - (per_slot - 1),
                               2 * slots * per_slot - (per_slot - 1)};
    size_t n = 0;
    for (size_t i = 0; i < 3 && n < max && slots >= 2; i++) cols[n++] = longest[i];
    return n;
}

#define DISPATCH_ENTRY(name, T, LOG)                                                      \
    cudaError_t name(const void *d_in, void *d_out, size_t rows, size_t cols, void *d_ws, \
                     cudaStream_t s)                                                      \
    {                                                                                     \
        return dispatch<T, LOG>(d_in, d_out, rows, cols, d_ws, s);                        \
    }
DISPATCH_ENTRY(launch_dispatch_f32, float, false)
DISPATCH_ENTRY(launch_dispatch_f32_log, float, true)
DISPATCH_ENTRY(launch_dispatch_f16, __half, false)
DISPATCH_ENTRY(launch_dispatch_f16_log, __half, true)
DISPATCH_ENTRY(launch_dispatch_bf16, __nv_bfloat16, false)
DISPATCH_ENTRY(launch_dispatch_bf16_log, __nv_bfloat16, true)
#undef DISPATCH_ENTRY
