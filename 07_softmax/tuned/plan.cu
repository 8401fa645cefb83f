// SPDX-License-Identifier: MIT
// 07_softmax/tuned/plan.cu: the planner. From the shape, the pointers and the running GPU it
// picks a path and its launch (CTAs a row, threads, shared memory); dispatch.cu runs the plan and
// says which with REDUCE_VERBOSE=1 (say_plan, here). The paths:
//
//   warp path     cols <= 1024: a group of 1..32 lanes a row, the row in registers (warp.cu)
//   CTA path      longer rows: a CTA a row, or a cluster of up to 8 (sm_90), the row in
//                 registers (cta.cu)
//   split path    rows longer than a cluster holds, long rows on GPUs without clusters, and rows
//                 whose cluster would be wider than an SM where the one launch below fits: K CTAs
//                 a row that swap their states through global memory, in two kernels or in one
//                 cooperative launch (split.cu)
//   stream path   sm_90: rows whose CTA would need over 256 threads, and enough of them to give
//                 every SM a CTA: the chunks in shared memory, brought by bulk copies
//                 (stream.cu); also the split plan in one launch where the split path's
//                 register-holding CTAs cannot all be resident
//
// Each rule below says what it was measured against (same-run comparisons, % of the
// device-to-device copy at the same shape unless said otherwise). testing.h's functions (the
// plan choices the gpu suite forces) are at the end.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "testing.h"

// The plan choices the gpu suite forces (testing.h); all TUNED_AUTO outside it.
static softmax_tuned_overrides forced;

// ------------------------------------------------------------------------------------------------
// What the GPU offers
// ------------------------------------------------------------------------------------------------

// Attributes of the current device, asked once per device: launchers run in timing loops. The
// gpu suite's clusters override applies here.
cudaError_t current_gpu(gpu_t *g)
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
            cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev) !=
                cudaSuccess ||
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
    if (forced.clusters == TUNED_OFF) g->clusters = 0;
    return cudaSuccess;
}

// With REDUCE_VERBOSE=1 in the environment, says on stderr which path and plan a shape gets, once
// per shape: what the planner decided on this GPU, for the README's tables and for a user.
void say_plan(const char *who, size_t rows, size_t cols, const char *path, int chunks, int threads,
              size_t elem_bytes, int pack)
{
    static size_t last_rows, last_cols, last_bytes;
    static const char *last_path, *last_who;
    const char *v = getenv("REDUCE_VERBOSE");
    if (!v || strcmp(v, "1") != 0) return;
    if (rows == last_rows && cols == last_cols && elem_bytes == last_bytes && path == last_path &&
        who == last_who)
        return;
    last_rows = rows, last_cols = cols, last_bytes = elem_bytes, last_path = path, last_who = who;
    fprintf(stderr,
            "%s: %zu x %zu (%zu-byte elements, %d a slot): %s, %d CTA(s) a row, %d threads each\n",
            who, rows, cols, elem_bytes, pack, path, chunks, threads);
}

// ------------------------------------------------------------------------------------------------
// The CTA and split paths' plan
// ------------------------------------------------------------------------------------------------

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
    p.p.chunks = (int)k;
    p.p.chunk_slots = ceil_div(slots, k);
    p.p.threads = cta_threads(p.p.chunk_slots, per_thread);
    return p;
}

// Slots of P a row of `cols` needs: cols / P when every row starts on a boundary, else one more
// at most.
size_t row_slots(size_t cols, int P, bool aligned)
{
    return aligned ? ceil_div(cols, (size_t)P) : ceil_div(cols + P - 1, (size_t)P);
}

// The split path's plan. Its chunks keep two warps at least: every chunk's state crosses L2 to
// be merged and back, and at 1 x 262144 128 CTAs of 64 threads beat 256 of 32 by 1 to 7 points
// of the copy in every dtype.
plan_t split_plan(const gpu_t &g, size_t rows, size_t slots, int per_thread)
{
    return make_plan(
        PATH_SPLIT,
        chunks_for(g.sms, rows, slots, CTA_SHARED_SM_THREADS, per_thread, (size_t)-1, 2), slots,
        per_thread);
}

// The plan for rows of `cols` elements in slots of P, per_thread slots a thread:
//  - CTAs of at most 512 threads, so that one can load while another reduces and writes where
//    registers let two share an SM (16-bit packs: 63 registers a thread on sm_90; float 79 to
//    93, alone); 1024 where a row needs it to fit the largest cluster;
//  - K > 1 chunks need a cluster (sm_90, up to max_cluster CTAs);
//  - otherwise the split path, whose chunks only ever double for parallelism.
plan_t plan_rows(const gpu_t &g, int max_cluster, size_t rows, size_t cols, int P, int per_thread,
                 int max_threads, bool aligned)
{
    const size_t slots = row_slots(cols, P, aligned);
    const size_t limit = g.clusters ? (size_t)max_cluster : 1;
    const int caps[2] = {CTA_SHARED_SM_THREADS, max_threads};
    for (int c = 0; c < 2; c++) {
        if (ceil_div(slots, (size_t)caps[c] * per_thread) > limit) continue;
        return make_plan(PATH_CTA, chunks_for(g.sms, rows, slots, caps[c], per_thread, limit),
                         slots, per_thread);
    }
    return split_plan(g, rows, slots, per_thread);
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

// The largest cluster of the CTA path: 8, the size every sm_90 part takes, when the occupancy API
// says such clusters of this kernel fit; else 1 (the split path). The non-portable 16 that H100
// and H200 allow measured slower than the split path (1 x 262144 floats: 36% of the copy as a
// cluster of 16, 41% split, before the clusters swapped their states by message). Asked once per
// kernel and device.
int cluster_limit(const void *kernel)
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
// this GPU (asked only where the split plan cannot run in one launch, which beats such clusters
// everywhere measured). A cluster of more threads than an SM holds spans SMs that must all be
// free at once. On the H100 such clusters lost to the two kernels when the row clusters needed
// more CTAs than there are SMs (32 x 128256: split in 0.76 to 0.87 of the cluster's time) and
// when they covered under a quarter of the SMs (one 16-bit row of 262144: 0.73 to 0.79); they won
// where their CTAs, one a SM, covered a quarter to all of them (8 x 131072). Clusters no larger
// than one SM's threads won or tied at every shape measured.
bool cluster_pays(const gpu_t &g, size_t rows, int chunks, int threads)
{
    if ((size_t)chunks * threads <= (size_t)g.sm_threads) return true;
    const size_t ctas = rows * (size_t)chunks;
    return ctas * 4 >= (size_t)g.sms && ctas <= (size_t)g.sms;
}

// ------------------------------------------------------------------------------------------------
// The flags (one cooperative launch of a split plan)
// ------------------------------------------------------------------------------------------------

// Whether a flag exchange of `chunks` CTAs a row gathers instead of merging: rows of at most 32
// on the stream kernel (flag_gather_row), at most 64 in registers (flag_gather_wide, two states a
// lane); above, merging warps (exchange.cuh).
bool flag_gathers(int chunks, int line)
{
    const int most = forced.gather_max > 0 && forced.gather_max < line ? forced.gather_max : line;
    return chunks <= most;
}

static size_t flag_extra_ctas(size_t rows, int threads, bool gathers)
{
    return gathers ? 0 : flag_mergers(rows, threads);
}

// Whether split plan p can run in one cooperative launch (flags): every CTA of it and its
// merging CTAs resident at once, a workspace, a GPU with cooperative launch.
template <typename T, bool LOG, int P>
bool flags_fit(const gpu_t &g, size_t rows, const plan_t &p, const void *d_ws)
{
    if (p.path != PATH_SPLIT || d_ws == nullptr || !g.coop || forced.flags == TUNED_OFF)
        return false;
    int per_sm = 0;
    const bool gathers = flag_gathers(p.p.chunks, 2 * WARP_SIZE);
    const bool fit =
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, flags_kernel<T, LOG, P>(gathers),
                                                      p.p.threads, 0) == cudaSuccess &&
        rows * (size_t)p.p.chunks + flag_extra_ctas(rows, p.p.threads, gathers) <=
            (size_t)per_sm * g.sms;
    (void)cudaGetLastError();
    return fit;
}

// ------------------------------------------------------------------------------------------------
// The stream path's plan
// ------------------------------------------------------------------------------------------------

// Fast DRAM, for the ring: DRAM's theoretical bytes per SM clock per SM at least this. There a
// float CTA a row takes the ring, and a 16-bit ring CTA a row asks for its next row's rest during
// this row's writes (plan_stream). A line between the two GPUs measured, the H100 SXM (12.8: both
// lost) and the H200 (15.7: both won); a GPU between them is untested.
static constexpr double FAST_DRAM_BYTES_PER_SM_CLOCK = 14.0;

// The most dynamic shared memory one CTA of `kernel` may ask for: the opt-in limit less the
// kernel's static shared memory (asking for the whole opt-in limit on top of static shared
// memory fails the launch). Set on the kernel once per device, with the non-portable clusters.
static size_t stream_smem_limit(const gpu_t &g, const void *kernel)
{
    static const void *cached_kernel[16];
    static int cached_dev[16], n_cached;
    static size_t cached_limit[16];
    if (kernel == nullptr) return 0;
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

// Threads of a stream CTA: about 8 slots each, 128 to 512, or RING_THREADS for a ring, whose CTA
// is alone on its SM with over 7000 slots: 768 against 512 at 1024 x 65536, every dtype and op,
// -0.1 to +1.9 points of the copy on an H100 and +0.2 to +2.6 on an H200, elsewhere within a
// point either way; 1024 lost 1 to 7.
static constexpr int RING_THREADS = 768;
static int stream_threads(size_t chunk_slots, bool ring = false)
{
    const size_t t = ceil_div(ceil_div(chunk_slots, 8), (size_t)WARP_SIZE) * WARP_SIZE;
    return (int)(ring ? RING_THREADS : t < 128 ? 128 : t > 512 ? 512 : t);
}

// A cluster's CTAs: registers must not cut the CTAs an SM below what shared memory allows. At
// about 8 slots a thread, 256 x 151936 16-bit clusters of 6 take CTAs of 416 threads and 50 KB;
// at the kernel's registers the SM holds 3 of them where its shared memory holds 4. So: the most
// threads, down from `threads` in steps of a warp and never under 128, at which an SM holds as
// many CTAs as at 128 (the occupancy calculator decides, from the kernel's own registers and the
// running GPU's limits). At 256 x 151936 f16 and bf16 (416 -> 320 threads), H100: softmax +1.7
// to +3.3 points of the copy, log-softmax +4.2 to +5.6. Not for a CTA a row, launched once a
// row: there the same rule lost (2048 x 32768 16-bit, 512 -> 416 threads: -2.1 to -2.5).
static int stream_fit_threads(const void *kernel, int threads, size_t smem)
{
    if (threads <= 128) return threads;
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

// The stream plan for rows of `cols` elements in 16-byte slots of P (a kernel of type T, LOG),
// or false. K: the fewest CTAs whose shared memory holds the row (a cluster when K > 1); false
// when that exceeds the largest cluster, or when rows x K CTAs would leave SMs without one (few
// rows: the CTA and split paths cut each row finer). A cluster is cut until three of its CTAs
// fit an SM (four in 16-bit types), unless it is a ring. A single CTA a row is launched once per
// row (as one leaves its SM the block scheduler starts the next, so an SM's CTAs run at
// different phases): that beat the resident CTAs looping over the rows by 4 to 7 points of the
// copy at every single-CTA shape measured (4096 x 16384 float 91% -> 95%, 2048 x 32768 87% ->
// 94%, 4096 x 50257 bf16 89% -> 94%), one buffer or two. Clusters loop: relaunching a cluster
// per row lost 2 to 6 points (1024 x 65536 and 256 x 151936 float).
template <typename T, bool LOG>
bool plan_stream(const gpu_t &g, size_t rows, size_t cols, stream_plan *sp, stream_form *form)
{
    constexpr int P = full_pack<T>();
    const void *kernel = stream_kernel<T, LOG>(FORM_CLUSTER);
    const void *ring_kernel = stream_kernel<T, LOG>(FORM_RING);
    const void *early_kernel = stream_kernel<T, LOG>(FORM_RING_EARLY); // 16-bit only
    *form = FORM_CLUSTER;
    sp->ring = sp->rest_early = sp->gather = false;
    const size_t limit = stream_smem_limit(g, kernel);
    if (limit < PACK_BYTES) return false;
    const size_t slots = ceil_div(cols + P - 1, (size_t)P); // any alignment of the row
    const size_t kmax = g.clusters ? STREAM_MAX_CLUSTER : 1;
    const size_t k_fit = ceil_div(slots * PACK_BYTES, limit);
    size_t k = k_fit;
    // The ring: where the fewest CTAs' chunks are each over half of a CTA's shared memory, so that
    // one CTA an SM holds one buffer, those CTAs loop over the rows with the whole of it as a
    // ring, and each asks for the next row's first slots (as many as fit beside this row) once
    // this row has landed: the SM reads while it reduces and writes. Taken for a CTA a row in
    // 16-bit types (H100, 60000 to 92000 columns: +1.7 to +9.6 points of the copy; 1024 x 65536
    // 79-80% -> 89%), and in float where DRAM feeds each SM at least FAST_DRAM_BYTES_PER_SM_CLOCK
    // (H200: 32768 columns +7 to +9.5; on the H100 float lost, 0 to -6); and for clusters (which
    // then keep their fewest CTAs instead of being cut) where at least two thirds of a chunk fit
    // beside it (clusters of 2 against the cut ones: with 77% beside, 1024 x 65536 float +2.6 to
    // +3.2, 512 x 131072 bf16 +3 to +4; with 49%, 256 x 151936 16-bit -1.5 to -2).
    const size_t fit_bytes = ceil_div(slots, k_fit) * PACK_BYTES;
    bool ring_rule = false;
    if (forced.ring != TUNED_OFF && 2 * fit_bytes > limit && fit_bytes <= limit &&
        rows * k_fit >= (size_t)g.sms && stream_smem_limit(g, ring_kernel) == limit &&
        (forced.ring == TUNED_ON ||
         (k_fit == 1 ? P >= 8 || g.dram_bytes_per_sm_clock >= FAST_DRAM_BYTES_PER_SM_CLOCK
                     : 3 * (limit - fit_bytes) >= 2 * fit_bytes))) {
        const size_t rr = stream_resident(g, ring_kernel, (int)k_fit,
                                          stream_threads(ceil_div(slots, k_fit), true),
                                          limit / PACK_BYTES * PACK_BYTES);
        ring_rule = rr > 0 && rows > rr;
    }
    if (rows * k_fit < (size_t)g.sms) return false;
    if (k_fit > 1 && !ring_rule) {
        // A cluster's CTAs wait for each other's states once a row; alone on its SM, a CTA then
        // leaves the SM idle. Cut the row until three float chunks fit one SM's shared memory, or
        // four 16-bit ones: 256 x 151936 floats 77% of the copy as K = 6 (two a SM), 84% as
        // K = 8 (three); bf16 78% as K = 6 (four a SM), 77% as 8, 76% as 12 (H100).
        const size_t per_sm = (size_t)g.smem_sm / (P >= 8 ? 4 : 3),
                     fixed = (size_t)g.smem_reserved + ((size_t)g.smem_optin - limit);
        if (per_sm > fixed + PACK_BYTES) {
            const size_t k2 = ceil_div(slots * PACK_BYTES, per_sm - fixed);
            k = k2 > k ? (k2 < kmax ? k2 : kmax) : k;
        }
    }
    if (k > kmax) return false;
    sp->chunks = (int)k;
    sp->chunk_slots = (unsigned)ceil_div(slots, k);
    sp->smem = (size_t)sp->chunk_slots * PACK_BYTES;
    sp->threads = stream_threads(sp->chunk_slots);
    if (sp->chunks > 1) sp->threads = stream_fit_threads(kernel, sp->threads, sp->smem);
    size_t resident = stream_resident(g, kernel, sp->chunks, sp->threads, sp->smem);
    sp->loop = sp->chunks > 1;
    // the ring, as decided above (or forced, for any K whose chunk is over half the memory)
    if ((forced.ring == TUNED_ON || (ring_rule && sp->chunks == (int)k_fit)) &&
        2 * sp->smem > limit && stream_smem_limit(g, ring_kernel) == limit) {
        const size_t ring = limit / PACK_BYTES * PACK_BYTES;
        const int threads = stream_threads(sp->chunk_slots, true);
        const size_t rr = stream_resident(g, ring_kernel, sp->chunks, threads, ring);
        if (rr > 0 && rows > rr) {
            sp->ring = true;
            sp->loop = true;
            // When a ring asks for its next row's rest: once the slots it lands in (this row's
            // first) are written, in the middle of this row's writes (its own kernel), or after
            // all of them. During, for 16-bit rings only: clusters (512 x 131072 bf16: +0.5 to
            // +0.8 points of the copy on an H100, +1.1 to +1.4 on an H200), and a CTA a row on fast
            // DRAM (H200 +2.2 to +4.8; H100 -0.3 to -4.3). Float rings lost with it (clusters of 2
            // at 1024 x 65536: -3.0 to -4.9 on an H100; 4096 x 50257 log-softmax on an H200: 65%
            // of the copy against 81%).
            const bool early_rule = P >= 8 && (sp->chunks > 1 || g.dram_bytes_per_sm_clock >=
                                                                     FAST_DRAM_BYTES_PER_SM_CLOCK);
            sp->rest_early =
                forced.ring_early == TUNED_AUTO ? early_rule : forced.ring_early == TUNED_ON;
            if (sp->rest_early && stream_smem_limit(g, early_kernel) != limit)
                sp->rest_early = false; // (and float has no such kernel)
            sp->smem = ring;
            sp->threads = threads;
            resident = rr;
        }
    }
    if (resident == 0) return false;
    // Outputs by the TMA: each thread writes its outputs over its inputs in shared memory and one
    // warp asks the TMA to copy the whole slots out (shared to global); the CTA waits only until
    // the TMA has read them. Taken for a float CTA launched once a row (4096 x 50257 softmax +3.1
    // to +3.2 points of the copy, log-softmax +8.9 to +9.1; 4096 x 16384 +0.5, +1.6 to +1.7;
    // H100) and for float log-softmax rings that ask after their writes (1024 x 65536 +4.4 to
    // +4.7, 300 x 60001 +8.1 to +9.3). Not taken where it lost: looping clusters (256 x 151936:
    // -0.2 to -4.6), 16-bit CTAs a row (4096 x 16384: -0.6 to +0.2), 16-bit rings (1024 x 65536:
    // -5.6 to -9.3), float softmax rings (H200: -0.8 to -10.5). At a float CTA a row the
    // threads' stores cost the L2 22% (softmax) and 47% (log-softmax) more write sectors than
    // the TMA's copies, for the same DRAM bytes.
    const bool bulk_rule = P == 4 && ((sp->chunks == 1 && !sp->loop && !sp->ring) ||
                                      (LOG && sp->ring && !sp->rest_early));
    sp->bulk_out = forced.bulk_out == TUNED_AUTO ? bulk_rule : forced.bulk_out == TUNED_ON;
    const size_t most = sp->loop ? resident : MAX_GRID_X / (size_t)sp->chunks;
    sp->groups = rows < most ? rows : most; // past MAX_GRID_X even a group a row loops
    *form = sp->ring ? (sp->rest_early ? FORM_RING_EARLY : FORM_RING) : FORM_CLUSTER;
    return sp->groups * (size_t)sp->chunks <= MAX_GRID_X;
}

// Split plan p on the stream kernel in one cooperative launch (the flags' exchange): its K CTAs
// a row each hold their chunk in shared memory (the TMA's) instead of registers, so they are
// resident at once where the register-holding CTAs are not (32 x 128256 float: 512 CTAs of 256
// threads at 96 to 104 registers, two an SM). False when the chunk exceeds one CTA's shared
// memory, when not every CTA fits at once, or on a GPU without bulk copies or cooperative
// launch. The flag path's workspace, with the same K.
template <typename T, bool LOG>
bool plan_stream_flags(const gpu_t &g, size_t rows, size_t cols, const plan_t &p, const void *d_ws,
                       stream_plan *sp, stream_form *form)
{
    constexpr int P = full_pack<T>();
    if (p.path != PATH_SPLIT || d_ws == nullptr || !g.coop || g.cc_major < 9 ||
        forced.flags == TUNED_OFF)
        return false;
    const size_t slots = ceil_div(cols + P - 1, (size_t)P); // any alignment of the row
    const int k = forced.stream_flags_chunks;
    sp->chunks = k >= 2 && k <= p.p.chunks ? k : p.p.chunks;
    sp->gather = flag_gathers(sp->chunks, WARP_SIZE);
    *form = sp->gather ? FORM_GATHER : FORM_MERGE;
    const void *kernel = stream_kernel<T, LOG>(*form);
    const size_t limit = stream_smem_limit(g, kernel);
    sp->chunk_slots = (unsigned)ceil_div(slots, (size_t)sp->chunks);
    sp->smem = (size_t)sp->chunk_slots * PACK_BYTES;
    if (sp->smem > limit) return false;
    sp->threads = stream_threads(sp->chunk_slots);
    sp->loop = sp->ring = sp->rest_early = sp->bulk_out = false;
    sp->groups = rows;
    int per_sm = 0;
    const bool fit = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, sp->threads,
                                                                   sp->smem) == cudaSuccess &&
                     rows * (size_t)sp->chunks + flag_extra_ctas(rows, sp->threads, sp->gather) <=
                         (size_t)per_sm * g.sms;
    (void)cudaGetLastError();
    return fit;
}

// Whether the dispatcher sends a shape whose CTA-path plan is p to the stream path: on GPUs with
// bulk copies, when the CTA path needs more than one CTA a row, or one CTA of more than 256
// threads (8192 values). Below that the CTA path's CTAs of up to 256 threads share an SM and won
// every comparison on the H100 (4096 x 8192 and 16384 x 4096 bf16: 94.0% and 98.6% of the copy
// against 86.0% and 88.2% on the stream path); above it the stream path won (4096 x 50257 in
// 0.66 to 0.75 of the CTA path's time).
bool stream_wanted(const gpu_t &g, const plan_t &p)
{
    if (g.cc_major < 9 || !g.clusters) return false;
    return p.path == PATH_SPLIT || p.p.chunks > 1 || p.p.threads > CTA_SHARED_SM_THREADS / 2;
}

const char *stream_words(const stream_plan &sp)
{
    return sp.ring && sp.rest_early
               ? "stream (shared memory, looping, a ring, its rest asked during the writes)"
           : sp.ring && sp.bulk_out ? "stream (shared memory, looping, a ring, outputs by the TMA)"
           : sp.ring                ? "stream (shared memory, looping, a ring)"
           : sp.loop                ? "stream (shared memory, looping)"
           : sp.bulk_out            ? "stream (shared memory, outputs by the TMA)"
                                    : "stream (shared memory)";
}

// ------------------------------------------------------------------------------------------------
// testing.h
// ------------------------------------------------------------------------------------------------

void softmax_tuned_set_overrides(const softmax_tuned_overrides *o)
{
    forced = o ? *o : softmax_tuned_overrides{};
}

size_t softmax_tuned_smem_edges(size_t elem_bytes, size_t *cols, size_t max)
{
    gpu_t g;
    if (current_gpu(&g) != cudaSuccess || g.cc_major < 9 || !g.clusters) return 0;
    const void *kernel = elem_bytes == 4 ? stream_kernel<float, false>(FORM_CLUSTER)
                                         : stream_kernel<__half, false>(FORM_CLUSTER);
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

#define PLAN(T, LOG)                                                                         \
    template bool flags_fit<T, LOG, full_pack<T>()>(const gpu_t &, size_t, const plan_t &,   \
                                                    const void *);                           \
    template bool flags_fit<T, LOG, 1>(const gpu_t &, size_t, const plan_t &, const void *); \
    template bool plan_stream<T, LOG>(const gpu_t &, size_t, size_t, stream_plan *,          \
                                      stream_form *);                                        \
    template bool plan_stream_flags<T, LOG>(const gpu_t &, size_t, size_t, const plan_t &,   \
                                            const void *, stream_plan *, stream_form *);
PLAN(float, false)
PLAN(float, true)
PLAN(__half, false)
PLAN(__half, true)
PLAN(__nv_bfloat16, false)
PLAN(__nv_bfloat16, true)
#undef PLAN
