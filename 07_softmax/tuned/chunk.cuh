// SPDX-License-Identifier: MIT
// 07_softmax/tuned/chunk.cuh: a CTA's chunk of a row in registers, for the CTA path (cta.cu) and
// the split path (split.cu); the stream path (stream.cu) uses the chunk's geometry only.
//
// A row starting a elements past a 16-byte boundary is seen as slots of P elements aligned to
// those boundaries: slot q holds elements [qP - a, qP - a + P) of the row. Every slot but the
// first and the last is one 16-byte access wherever the row starts; the two ends are read and
// written element by element, and what lies outside the row is -inf and never stored.
#ifndef SOFTMAX_TUNED_CHUNK_CUH
#define SOFTMAX_TUNED_CHUNK_CUH

#include "common.cuh"

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

#endif // SOFTMAX_TUNED_CHUNK_CUH
