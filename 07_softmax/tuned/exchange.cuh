// SPDX-License-Identifier: MIT
// 07_softmax/tuned/exchange.cuh: how the CTAs that share a row swap their (max, sum) states.
// Within a cluster (sm_90): messages into each other's shared memory, counted on an mbarrier
// (cta.cu, stream.cu). Across CTAs that are no cluster: 64-bit words in global memory, each one
// value and flag at once, in one cooperative launch (the flags: split.cu, stream.cu).
#ifndef SOFTMAX_TUNED_EXCHANGE_CUH
#define SOFTMAX_TUNED_EXCHANGE_CUH

#include "common.cuh"

// ------------------------------------------------------------------------------------------------
// Clusters: messages through distributed shared memory
// ------------------------------------------------------------------------------------------------

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
static __device__ __forceinline__ max_sum cluster_states(max_sum row, max_sum *states,
                                                         uint64_t *got, unsigned me,
                                                         unsigned chunks, unsigned parity)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (threadIdx.x < chunks && threadIdx.x != me)
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%0], {%1, %2}, "
                     "[%3];" ::"r"(cluster_smem(&states[me], threadIdx.x)),
                     "f"(row.m), "f"(row.s), "r"(cluster_smem(got, threadIdx.x))
                     : "memory");
    if (threadIdx.x == 0) {
        states[me] = row;
        asm volatile(
            "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_address(got)),
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

// ------------------------------------------------------------------------------------------------
// Flags: states through global memory, in one cooperative launch
// ------------------------------------------------------------------------------------------------

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

// States a lane of the merging warp loads at once.
static constexpr int STATES_AT_ONCE = 4;

// Each CTA stores its state as one word, value and flag at once: no fence, no ticket. A warp of
// the merging CTAs (launched after the rows' CTAs, a warp a row; they read nothing) merges each
// row: it loads the row's states, STATES_AT_ONCE a lane at once (128 a round for the warp), loads
// again those not published yet (all of them together: one round trip to L2 a round of polls,
// however many are missing), merges them in index order, as the split path's second kernel
// does, puts each back to 0, and publishes the row's state as one word, which every CTA of the
// row polls: one word a row to poll (with every CTA polling all 256 states of its row, one row
// of 262144 ran at 22-27% of the copy). A merging warp holds no chunk, so its loads in flight
// take no registers from the chunk's values. Every CTA waits for others of its row, so all must
// be resident at once: a cooperative launch guarantees that or refuses. Each CTA of the row
// counts itself after its writes (counting before them measured slower); the last puts the word
// and the count back to 0 (a CTA counts only once it has read the word, so none is still waiting
// on it). Against a fence and a ticket taken by every CTA, the last to take one merging, the
// merging warps took 1 x 262144 from 51-58% of the copy to 57-62% and 2 x 200000 float from
// 82-87% to 88-95% (H100).
// Grid: rows x chunks CTAs, then flag_mergers(rows, blockDim.x). Workspace: the states (rows x
// chunks words), then the row words, then two counters a row (the first is the reader count;
// the second stays 0).
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
// and the count back to 0 (the row's word stays 0). Against the merging warps, at 42 shapes of 1
// to 64 rows with 7 to 32 CTAs a row, +3.4 points of the copy on average (32 x 128256 16-bit
// softmax 58-59% -> 63-64%); a gather for any count (up to 32 states a lane a round) measured
// 46-51% against 58-64% at one row of 262144 (128 a row). The stream kernel's flags use this
// one; the flag path in registers, flag_gather_wide. The host decides (plan.cu).
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
// lane, as flag_gather_row does). Against the merging warps, H100, three rounds alternating:
// 8 x 131072 (64 a row) 0.35 to 1.09 us faster a pair in every dtype and op (float softmax
// 9.58-9.63 us against 10.05-10.32), 2 x 200000 float (52 a row) 0.08 to 0.38; one row of 131072
// (36 a row) -0.23 to +0.30. Four states a lane (rows of up to 128) tied at one row of 262144 and
// spilled registers in 16-bit softmax, so rows of over 64 keep the merging warps. Rows of at most
// 32 take this function too: against flag_gather_row, 32 x 128256 16-bit log-softmax took 1.26
// to 1.89 us less a pair (softmax -0.11 to +0.57), with the same registers and instructions and
// less time waiting on loads, at the barrier and to drain (Nsight Compute).
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

#endif // SOFTMAX_TUNED_EXCHANGE_CUH
