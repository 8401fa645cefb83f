// SPDX-License-Identifier: MIT
// 07_softmax/tuned/common.cuh: what every tuned path shares on the device. Element types and
// 16-byte packs (float, half and bfloat16 in and out, all arithmetic in float), exp on the
// special-function unit, and the (max, sum of exp) state with its merges across a group of lanes,
// a warp and a block.
#ifndef SOFTMAX_TUNED_COMMON_CUH
#define SOFTMAX_TUNED_COMMON_CUH

#include <math.h>
#include <stdint.h>

#include "paths.h"

static constexpr unsigned FULL_MASK = 0xffffffffu;  // all 32 lanes take part in a shuffle
static constexpr float LOG2E = 1.4426950408889634f; // exp(x) = exp2(x * log2(e))

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

#endif // SOFTMAX_TUNED_COMMON_CUH
