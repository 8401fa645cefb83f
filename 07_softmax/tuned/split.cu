// SPDX-License-Identifier: MIT
// 07_softmax/tuned/split.cu: the split path, K CTAs a row that are no cluster.
//
// Idea:  the CTA path's chunks, their (max, sum) swapped through global memory. Two kernels: the
//        first writes each chunk's state, the second merges its row's states, reads its chunk
//        again (from L2 when it is still there) and writes it. Or, where every CTA fits the GPU
//        at once, one cooperative launch (the flags): each CTA publishes its state as one 64-bit
//        word, value and flag at once, the row's states are merged (by merging warps, or by
//        every CTA of a row of at most 64), and each CTA writes from its registers.
// Fixes: the CTA path's rows of at most 8 CTAs (1 before sm_90), and its clusters wider than an
//        SM, which need all their SMs free at once: where the one launch runs it replaces them
//        (16 x 131072 float 45-46% of the copy -> 68-69%, 6 x 120000 75-79% -> 89-94%).
// Cost:  two kernels launch twice, read each chunk twice and then clear the states (0.8 to 3.5
//        us at the few-row shapes that take them); the one launch needs every CTA resident at
//        once and a workspace that every launch leaves zero; with merging warps (rows of over 64
//        CTAs) a row's states cross L2 twice.
// Run:   build/07_softmax --variant tuned_split --rows 1 --cols 262144 [--dtype bf16]
#include "chunk.cuh"
#include "exchange.cuh"

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

template <typename T, bool LOG, int P>
cudaError_t split_launch(const T *d_in, T *d_out, size_t rows, size_t cols, const row_plan &p,
                         void *d_ws, cudaStream_t s)
{
    if (d_ws == nullptr) return cudaErrorInvalidValue;
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
    // also when that kernel could not be launched, since the first one has written them. (A
    // count in the write kernel instead measured slower in float.)
    const cudaError_t cleared =
        cudaMemsetAsync(d_ws, 0, rows * (size_t)p.chunks * sizeof(max_sum), s);
    return err != cudaSuccess ? err : cleared;
}

// The cooperative launch's own error: cudaSuccess once launched (the caller then asks
// cudaGetLastError), else the refusal, after which the caller runs the two kernels.
template <typename T, bool LOG, int P>
cudaError_t flags_launch(const T *d_in, T *d_out, size_t rows, size_t cols, const row_plan &p,
                         bool gather, void *d_ws, cudaStream_t s)
{
    unsigned long long *words = static_cast<unsigned long long *>(d_ws);
    size_t n_rows = rows, n_cols = cols, n_slots = p.chunk_slots;
    int n_chunks = p.chunks;
    void *args[] = {(void *)&d_in, (void *)&d_out, &n_rows, &n_cols, &n_chunks, &n_slots, &words};
    return cudaLaunchCooperativeKernel(
        flags_kernel<T, LOG, P>(gather),
        dim3((unsigned)(rows * p.chunks + (gather ? 0 : flag_mergers(rows, p.threads)))),
        dim3(p.threads), args, 0, s);
}

template <typename T, bool LOG, int P>
const void *flags_kernel(bool gather)
{
    return gather ? (const void *)softmax_flags<T, LOG, P, true>
                  : (const void *)softmax_flags<T, LOG, P, false>;
}

#define SPLIT_PATH(T, LOG, P)                                                                      \
    template cudaError_t split_launch<T, LOG, P>(const T *, T *, size_t, size_t, const row_plan &, \
                                                 void *, cudaStream_t);                            \
    template cudaError_t flags_launch<T, LOG, P>(const T *, T *, size_t, size_t, const row_plan &, \
                                                 bool, void *, cudaStream_t);                      \
    template const void *flags_kernel<T, LOG, P>(bool);
#define SPLIT_PATHS(T)                   \
    SPLIT_PATH(T, false, full_pack<T>()) \
    SPLIT_PATH(T, true, full_pack<T>())  \
    SPLIT_PATH(T, false, 1)              \
    SPLIT_PATH(T, true, 1)
SPLIT_PATHS(float)
SPLIT_PATHS(__half)
SPLIT_PATHS(__nv_bfloat16)
#undef SPLIT_PATHS
#undef SPLIT_PATH
