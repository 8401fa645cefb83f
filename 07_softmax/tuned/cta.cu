// SPDX-License-Identifier: MIT
// 07_softmax/tuned/cta.cu: the CTA path, a CTA a row or a cluster a row, the row in registers.
//
// Idea:  a row in K chunks, one CTA a chunk, 32 values a thread in registers, every load issued
//        before the first use. K = 1 is a block per row. K > 1 is a thread-block cluster
//        (sm_90): each CTA sends its (max, sum) to the others as one message into their shared
//        memory (distributed shared memory), so the row is read once and written once however
//        long it is and however few rows there are.
// Fixes: softmax.cu's block_smem, a row a CTA through shared memory, 8-byte loads (f32 softmax
//        over plain_dispatch in the reference run: 1.37x at 2048 columns, 1.31x at 4096, 1.35x
//        at 8192). The messages replaced cluster.sync(), at which every thread fences GPU-wide:
//        64 x 32000 from 67-68% of the copy to 78-80% in float, 58-60% to 68-73% in 16-bit.
// Cost:  a float CTA of 512 threads takes 79 to 93 registers a thread (sm_90), alone on its SM:
//        the SM reads nothing while it reduces (the stream path takes such rows where it can);
//        a cluster of more threads than an SM holds needs all its SMs free at once (plan.cu
//        prefers the split path's one launch there); rows of at most 8 CTAs (1 before sm_90).
// Run:   build/07_softmax --variant tuned_cta --cols 2048,8192,32768 [--rows 8] [--dtype bf16]
#include "chunk.cuh"
#include "exchange.cuh"

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

template <typename T, bool LOG, int P>
cudaError_t cta_launch(const T *d_in, T *d_out, size_t rows, size_t cols, const row_plan &p,
                       cudaStream_t s)
{
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
    cudaError_t err = cudaLaunchKernelExC(&cfg, (const void *)softmax_cta<T, LOG, P>, params);
    return err != cudaSuccess ? err : cudaGetLastError();
}

template <typename T, bool LOG, int P>
const void *cta_kernel()
{
    return (const void *)softmax_cta<T, LOG, P>;
}

#define CTA_PATH(T, LOG, P)                                                                      \
    template cudaError_t cta_launch<T, LOG, P>(const T *, T *, size_t, size_t, const row_plan &, \
                                               cudaStream_t);                                    \
    template const void *cta_kernel<T, LOG, P>();
#define CTA_PATHS(T)                   \
    CTA_PATH(T, false, full_pack<T>()) \
    CTA_PATH(T, true, full_pack<T>())  \
    CTA_PATH(T, false, 1)              \
    CTA_PATH(T, true, 1)
CTA_PATHS(float)
CTA_PATHS(__half)
CTA_PATHS(__nv_bfloat16)
#undef CTA_PATHS
#undef CTA_PATH
