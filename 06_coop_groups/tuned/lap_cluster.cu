// SPDX-License-Identifier: MIT
// 06_coop_groups/tuned/lap_cluster.cu: a few long rows, each one cluster of one-lap blocks that
// meet by message. The tuned row dispatcher (rows.cu) takes it for at most SMs / 2 rows whose
// laps fit the largest cluster the GPU launches (sm_90).
//
// Idea:  a row's one-lap chunks (a block each, every load of a thread at once, no loop) as one
//        cluster: each block sends its partial straight into the first block's shared memory
//        as one message (st.async: the value and a count of bytes for that block's mbarrier, a
//        barrier object in shared memory that counts arrivals and bytes), and only the first
//        block waits, on its own mbarrier, then adds the partials in rank order. No ticket, no
//        flags, no workspace, and no cluster-wide barrier after the reads.
// Fixes: the flagged finish's trip through L2 (a store, then the last block's polls), and the
//        cost of cluster.sync() there: every thread of every block fences GPU-wide and waits
//        (64 x 32000: 82-83% of the read ceiling with cluster.sync(), 91-94% by message).
// Cost:  at most as many chunks a row as the largest cluster the GPU launches (16 on an H100),
//        whose blocks must fit one GPC together; one cluster barrier at the start (split:
//        arrive before the loads, wait after them) so that no message can reach the first
//        block before its mbarrier exists. PTX: cooperative groups has no st.async or mbarrier.
// Run:   build/06_coop_groups --variant dispatch --rows 64 --cols 32000
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <stdint.h>

#include "common.cuh"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// PTX for the cluster finish below: this block's rank in its cluster and the cluster's size,
// a shared-memory address as a 32-bit shared-window offset, and that address in another block
// of the cluster (mapa: what cluster.map_shared_rank does, as a shared::cluster address).
static __device__ __forceinline__ unsigned cluster_rank()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
static __device__ __forceinline__ unsigned cluster_blocks()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
    return r;
}
static __device__ __forceinline__ unsigned smem_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}
static __device__ __forceinline__ unsigned remote_smem(unsigned local, unsigned rank)
{
    unsigned r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(local), "r"(rank));
    return r;
}
#endif

// The kernel: blocks r * chunks .. r * chunks + chunks - 1 are row r's cluster, block `chunk`
// (its rank in the cluster) reads the row's floats from chunk * chunk_len, at most one lap.
template <int THREADS>
static __global__ void __launch_bounds__(THREADS, MIN_BLOCKS *BLOCK_SIZE / THREADS)
    sum_lap_cluster(const float *__restrict__ d_in, float *__restrict__ d_out, size_t cols,
                    unsigned chunk_len)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const cg::thread_block block = cg::this_thread_block();
    __shared__ float partials[MAX_CLUSTER];
    __shared__ alignas(8) unsigned long long arrived; // the first block's mbarrier
    const unsigned rank = block.thread_rank(), chunk = cluster_rank(), chunks = cluster_blocks();
    if (chunk == 0 && rank == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&arrived))
                     : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    // the first half of the start barrier; relaxed: it orders nothing but the mbarrier's init
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
    const size_t row = blockIdx.x / chunks, start = (size_t)chunk * chunk_len;
    float v = lap_sum(block, d_in + row * cols + start, min_size(chunk_len, cols - start));
    v = block_reduce_cg(block, v);
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory"); // the mbarrier exists
    if (rank != 0) return;
    if (chunk != 0) {
        // one message: 4 bytes into partials[chunk] of block 0, counted on its mbarrier
        asm volatile(
            "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(
                remote_smem(smem_addr(&partials[chunk]), 0)),
            "r"(__float_as_uint(v)), "r"(remote_smem(smem_addr(&arrived), 0))
            : "memory");
        return;
    }
    // block 0: expect 4 bytes from each other block, then wait for the phase to complete
    asm volatile(
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(&arrived)),
        "r"(4 * (chunks - 1))
        : "memory");
    unsigned done = 0;
    do {
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done)
                     : "r"(smem_addr(&arrived))
                     : "memory");
    } while (!done);
    for (unsigned c = 1; c < chunks; ++c) v += partials[c]; // rank order: the same every launch
    d_out[row] = v;
#endif
}

// -------------------------------------------------------------------------------------------------
// Host

// The largest cluster of `kernel` at `threads` threads the GPU launches: 16 with the
// non-portable opt-in where the GPU takes it, else 8; 1 (no clusters) before sm_90. Asked once
// per kernel and device, kept.
static int largest_cluster(const void *kernel, int threads)
{
    static const void *cached_kernel[4];
    static int n_cached, cached_dev[4], cached[4];
    int dev = 0, fit = 1;
    if (!device_attr(cudaDevAttrClusterLaunch) || cudaGetDevice(&dev) != cudaSuccess) return fit;
    for (int i = 0; i < n_cached; i++)
        if (cached_kernel[i] == kernel && cached_dev[i] == dev) return cached[i];
    // the kernel as loaded must be sm_90 code: a build for older GPUs only (ARCH=sm_80) runs on
    // Hopper from compute_80 PTX, where the cluster code is compiled out
    cudaFuncAttributes fa;
    const bool sm90_code = cudaFuncGetAttributes(&fa, kernel) == cudaSuccess && fa.ptxVersion >= 90;
    (void)cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    for (int size = MAX_CLUSTER; size >= 2 && fit == 1 && sm90_code; size /= 2) {
        cudaLaunchConfig_t cfg = {};
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = size;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg.gridDim = dim3(size);
        cfg.blockDim = dim3(threads);
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        int n = 0;
        if (cudaOccupancyMaxActiveClusters(&n, kernel, &cfg) == cudaSuccess && n > 0) fit = size;
    }
    (void)cudaGetLastError(); // a refused size is an answer, not an error to keep
    if (n_cached < 4) {
        cached_kernel[n_cached] = kernel;
        cached_dev[n_cached] = dev;
        cached[n_cached++] = fit;
    }
    return fit;
}

static const void *lap_cluster_kernel(int threads)
{
    return threads == 2 * BLOCK_SIZE ? (const void *)sum_lap_cluster<2 * BLOCK_SIZE>
                                     : (const void *)sum_lap_cluster<BLOCK_SIZE>;
}

int coop_lap_cluster_fit(int threads)
{
    return largest_cluster(lap_cluster_kernel(threads), threads);
}

// Through the C API (cudaLaunchKernelExC), which every CUDA 12 and 13 runtime has.
cudaError_t coop_launch_lap_cluster(int threads, const float *d_in, float *d_out, size_t rows,
                                    size_t cols, unsigned chunks, unsigned chunk_len,
                                    cudaStream_t s)
{
    if (rows * chunks > MAX_GRID_X) return cudaErrorInvalidValue;
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = chunks;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.gridDim = dim3((unsigned)(rows * chunks));
    cfg.blockDim = dim3((unsigned)threads);
    cfg.stream = s;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    void *args[] = {(void *)&d_in, (void *)&d_out, (void *)&cols, (void *)&chunk_len};
    const cudaError_t err = cudaLaunchKernelExC(&cfg, lap_cluster_kernel(threads), args);
    return err != cudaSuccess ? err : cudaGetLastError();
}
