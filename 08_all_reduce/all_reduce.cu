// SPDX-License-Identifier: MIT
// 08_all_reduce/all_reduce.cu: All-reduce across GPUs
//
// One process drives every local GPU. Each GPU (a rank, 0 .. G-1) holds its own n floats; an
// all-reduce leaves their element-wise sum on every GPU, the same bits everywhere. Each variant
// is the one before plus one change:
//
//   sharded_sum       the ladder's full sum of one array split across the GPUs: 06's
//                     single_pass on each part, then the G partial sums gathered on GPU 0,
//                     added and sent back                                       (--op sum)
//   gather_broadcast  the same gather, add and broadcast for n floats a GPU: GPU 0's links
//                     carry all of it
//   ring              reduce-scatter, then all-gather, around a ring: every GPU sends
//                     2(G-1)/G of its data to the next one, whatever G is
//   nccl              ncclAllReduce, the library to beat (where the build found NCCL)
//
// Run one:  build/08_all_reduce --variant NAME [-n N] [--gpus G]
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <stdint.h>
#include <stdio.h>
#ifdef HAVE_NCCL
#include <nccl.h>
#endif

#include "multi_gpu.h"
#include "stage.h"

namespace cg = cooperative_groups;

static constexpr int WARP_SIZE = 32;     // lanes per warp on every NVIDIA GPU
static constexpr int PACK = 16 / 4;      // floats in one 16-byte load (LDG.E.128)
static constexpr int BLOCK_SIZE = 256;   // 8 warps, as in 04 .. 06
static constexpr int UNROLL = 4;         // 16-byte loads in flight per thread (05)
static constexpr int MIN_BLOCKS = 4;     // at most 64 registers: a lap's loads stay in flight
static constexpr size_t WS_HEADER = 128; // scratch: a ticket counter on its own line
static constexpr size_t SLOT = 256;      // scratch slots start on 256-byte lines
static constexpr int MAX_SLICES = 4;     // ring: a chunk is cut into at most 4 slices ...
static constexpr size_t SLICE_MIN_BYTES = (size_t)32 << 20; // ... of at least 32 MiB each

// ---- Device helpers, from 05 and 06: 16-byte packs, the head/body/tail split, block reduce ------

template <typename T, int N>
struct alignas(sizeof(T) * N) Packed {
    T elem[N];
};
typedef Packed<float, PACK> pack_t;

static __device__ __forceinline__ float pack_sum(const pack_t &v)
{
    return (v.elem[0] + v.elem[1]) + (v.elem[2] + v.elem[3]);
}
static __host__ __device__ __forceinline__ size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}
static __host__ __device__ __forceinline__ size_t ceil_div(size_t a, size_t b)
{
    return (a + b - 1) / b;
}

// What thread `rank` of `width` (>= 4) threads adds of p[0 .. len): the 0..3 floats before p's
// first 16-byte boundary (head) and after its last whole pack (tail) one each, the packs between
// them UNROLL at a time (05: four 16-byte loads in flight before the first add).
static __device__ __forceinline__ float span_sum(const float *__restrict__ p, size_t len,
                                                 size_t rank, size_t width)
{
    const size_t head = min_size((PACK - (uintptr_t)p / sizeof(float) % PACK) % PACK, len);
    const size_t packs = (len - head) / PACK, tail = head + packs * PACK;
    const pack_t *body = reinterpret_cast<const pack_t *>(p + head);
    float acc = (rank < head ? p[rank] : 0.0f) + (tail + rank < len ? p[tail + rank] : 0.0f);
    size_t q = rank;
    for (; q + (UNROLL - 1) * width < packs; q += UNROLL * width) {
        pack_t v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) v[u] = body[q + u * width];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) acc += pack_sum(v[u]);
    }
    for (; q < packs; q += width) acc += pack_sum(body[q]); // the last 0..3 laps' packs
    return acc;
}

// 04's BlockReduceSum in groups (06). Valid in thread 0.
static __device__ __forceinline__ float block_reduce_cg(const cg::thread_block &block, float v)
{
    __shared__ float warp_sums[WARP_SIZE];
    const cg::thread_block_tile<WARP_SIZE> warp = cg::tiled_partition<WARP_SIZE>(block);
    v = cg::reduce(warp, v, cg::plus<float>());
    block.sync();
    if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = v;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        v = warp.thread_rank() < warp.meta_group_size() ? warp_sums[warp.thread_rank()] : 0.0f;
        v = cg::reduce(warp, v, cg::plus<float>());
    }
    return v;
}

// ---- Kernels -------------------------------------------------------------------------------------

// 06's single_pass, on one GPU's part of the array: every block stores its partial, fences and
// takes a ticket; the block with the last ticket adds the partials in index order and resets the
// counter. (06's one-block path for short arrays is left out: one block of 256 threads is used.)
static __global__ void __launch_bounds__(BLOCK_SIZE, MIN_BLOCKS)
    reduce_single_pass(const float *__restrict__ d_in, float *__restrict__ d_out, size_t n,
                       float *d_partials, unsigned *d_counter)
{
    const cg::thread_block block = cg::this_thread_block();
    __shared__ bool is_last;
    float v = span_sum(d_in, n, blockIdx.x * (size_t)blockDim.x + block.thread_rank(),
                       (size_t)gridDim.x * blockDim.x);
    v = block_reduce_cg(block, v);
    if (gridDim.x == 1) { // one block: no partials, no ticket
        if (block.thread_rank() == 0) *d_out = v;
        return;
    }
    if (block.thread_rank() == 0) {
        d_partials[blockIdx.x] = v;
        __threadfence(); // the partial is visible device-wide before the ticket is
        is_last = atomicAdd(d_counter, 1u) == gridDim.x - 1;
        if (is_last) __threadfence();
    }
    block.sync();
    if (!is_last) return;
    v = 0.0f; // the partials in index order, from L2 (__ldcg), where the other SMs' stores landed
    for (unsigned i = block.thread_rank(); i < gridDim.x; i += block.size())
        v += __ldcg(d_partials + i);
    v = block_reduce_cg(block, v);
    if (block.thread_rank() == 0) {
        *d_out = v;
        *d_counter = 0; // self-resetting
    }
}

// The arrays one add reads, in the order it adds them. Every element of a result is added once,
// on one GPU, in this order, and copied from there: every GPU ends with the same bits.
struct sources {
    const float *p[TEAM_MAX_GPUS];
    int count;
};

// d_out[i] = p[0][i] + p[1][i] + ... (and d_copy[i], when given, the same value). With every
// pointer on a 16-byte boundary the body moves in 16-byte packs. A pointer may be another GPU's
// memory (peer access): its loads or stores then cross NVLink (or PCIe). d_out may be p[1]:
// each element is read before the same thread writes it, so no __restrict__ on the outputs.
static __global__ void __launch_bounds__(BLOCK_SIZE)
    add_sources(const sources src, float *d_out, float *d_copy, size_t n, bool packed)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t packs = packed ? n / PACK : 0;
    for (size_t q = first; q < packs; q += stride) {
        pack_t acc = reinterpret_cast<const pack_t *>(src.p[0])[q];
        for (int g = 1; g < src.count; ++g) {
            const pack_t v = reinterpret_cast<const pack_t *>(src.p[g])[q];
#pragma unroll
            for (int e = 0; e < PACK; ++e) acc.elem[e] += v.elem[e];
        }
        reinterpret_cast<pack_t *>(d_out)[q] = acc;
        if (d_copy) reinterpret_cast<pack_t *>(d_copy)[q] = acc;
    }
    for (size_t i = packs * PACK + first; i < n; i += stride) {
        float acc = src.p[0][i];
        for (int g = 1; g < src.count; ++g) acc += src.p[g][i];
        d_out[i] = acc;
        if (d_copy) d_copy[i] = acc;
    }
}

// ---- Launch helpers ------------------------------------------------------------------------------

// Returns the error of `call` from the enclosing launcher.
#define TRY(call)                             \
    do {                                      \
        const cudaError_t err_ = (call);      \
        if (err_ != cudaSuccess) return err_; \
    } while (0)

// The most blocks of 256 threads device `dev` holds at once (threads an SM holds / 256, times the
// SMs): a grid that fills the GPU, and the partial slots single_pass needs.
static size_t full_grid(int dev)
{
    int sms = 1, threads = 2048;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, dev);
    return (size_t)sms * (size_t)(threads / BLOCK_SIZE);
}

// add_sources on device `dev` (made current): 16-byte packs where every pointer allows.
static cudaError_t launch_add(int dev, cudaStream_t s, const sources &src, float *d_out,
                              float *d_copy, size_t n)
{
    if (n == 0) return cudaSuccess;
    uintptr_t bits = (uintptr_t)d_out | (uintptr_t)d_copy;
    for (int g = 0; g < src.count; ++g) bits |= (uintptr_t)src.p[g];
    const bool packed = bits % 16 == 0;
    TRY(cudaSetDevice(dev));
    const size_t grid =
        min_size(ceil_div(packed ? ceil_div(n, PACK) : n, BLOCK_SIZE), full_grid(dev));
    add_sources<<<(unsigned)grid, BLOCK_SIZE, 0, s>>>(src, d_out, d_copy, n, packed);
    return cudaGetLastError();
}

// single_pass's scratch on device `dev`: the ticket, then a slot for every block's partial.
static size_t single_pass_bytes(int dev)
{
    return WS_HEADER + ceil_div(full_grid(dev) * sizeof(float), SLOT) * SLOT;
}

// 06's single_pass launch on device `dev`: n floats of d_in into *d_out (n may be 0: 0.0f).
static cudaError_t single_pass(int dev, const float *d_in, float *d_out, size_t n, void *d_ws,
                               cudaStream_t s)
{
    TRY(cudaSetDevice(dev));
    const size_t laps = ceil_div(n, (size_t)BLOCK_SIZE * UNROLL * PACK); // blocks of one lap each
    const size_t grid = min_size(laps > 0 ? laps : 1, full_grid(dev));
    char *ws = static_cast<char *>(d_ws);
    reduce_single_pass<<<(unsigned)grid, BLOCK_SIZE, 0, s>>>(
        d_in, d_out, n, reinterpret_cast<float *>(ws + WS_HEADER),
        reinterpret_cast<unsigned *>(ws));
    return cudaGetLastError();
}

// The events that order the GPUs, made by open_stage on each rank's device: ready (rank r's
// input to a gather is written) and step (rank r has sent slice k of ring step t).
static cudaEvent_t g_event[TEAM_MAX_GPUS][1 + 2 * (TEAM_MAX_GPUS - 1) * MAX_SLICES];
static int g_event_ranks; // ranks whose events exist
static cudaEvent_t ready_event(int r) { return g_event[r][0]; }
static cudaEvent_t step_event(int r, int t, size_t k) { return g_event[r][1 + t * MAX_SLICES + k]; }

// ---- Variants ------------------------------------------------------------------------------------

static size_t slot_floats(size_t n) { return ceil_div(n, SLOT / sizeof(float)) * (SLOT / 4); }

// Every rank's src[r] (n floats) to GPU 0, through peer copies into GPU 0's slots; GPU 0 adds them
// in rank order into dst[0] and copies dst[0] back to every other rank. All of it on GPU 0's
// stream: its links carry 2(G-1) n floats, and the other links none.
static cudaError_t gather_add_broadcast(const gpu_team *t, const float *const *src,
                                        float *const *dst, size_t n, float *slots)
{
    const size_t bytes = n * sizeof(float);
    cudaStream_t s0 = t->stream[0];
    sources in = {{src[0]}, t->count};
    for (int r = 1; r < t->count; ++r) {
        float *slot = slots + (r - 1) * slot_floats(n);
        TRY(cudaSetDevice(t->dev[r])); // GPU 0 waits until rank r's src is written (a partial)
        TRY(cudaEventRecord(ready_event(r), t->stream[r]));
        TRY(cudaStreamWaitEvent(s0, ready_event(r), 0));
        TRY(cudaMemcpyPeerAsync(slot, t->dev[0], src[r], t->dev[r], bytes, s0));
        in.p[r] = slot;
    }
    TRY(launch_add(t->dev[0], s0, in, dst[0], nullptr, n));
    for (int r = 1; r < t->count; ++r)
        TRY(cudaMemcpyPeerAsync(dst[r], t->dev[r], dst[0], t->dev[0], bytes, s0));
    return cudaSuccess;
}

// Idea:  each GPU sums its part of the array with 06's single_pass (one launch), then the G
//        partial sums meet on GPU 0 (gather_add_broadcast of one float each).
// Fixes: one GPU's memory bandwidth: G GPUs read G parts at once.
// Cost:  2(G-1) tiny peer copies and an add after the sums, each with its waits: about 30 us on
//        2 GPUs and 70 on 4 in the reference run, the time that stays when the parts shrink.
// Run:   build/08_all_reduce --variant sharded_sum -n 2^28
static size_t workspace_sharded_sum(const gpu_team *t, int rank, size_t)
{
    return single_pass_bytes(t->dev[rank]) + SLOT * (size_t)t->count; // + partial, G - 1 slots
}

static cudaError_t launch_sharded_sum(const gpu_team *t, const float *const *d_in,
                                      float *const *d_out, size_t n, void *const *d_ws)
{
    const float *partial[TEAM_MAX_GPUS];
    for (int r = 0; r < t->count; ++r) {
        float *p =
            reinterpret_cast<float *>(static_cast<char *>(d_ws[r]) + single_pass_bytes(t->dev[r]));
        const size_t len = part_begin(r + 1, t->count, n) - part_begin(r, t->count, n);
        TRY(single_pass(t->dev[r], d_in[r], p, len, d_ws[r], t->stream[r]));
        partial[r] = p;
    }
    return gather_add_broadcast(t, partial, d_out, 1, const_cast<float *>(partial[0]) + SLOT / 4);
}

// Idea:  every GPU's n floats to GPU 0 (peer copies), one add of G arrays there, the sum copied
//        back to every GPU: sharded_sum's finish, for n floats instead of one.
// Fixes: nothing in speed; it is the simplest correct all-reduce, and the baseline of the ring.
// Cost:  GPU 0's link carries 2(G-1) n floats while the others idle: busbw is the link's
//        bandwidth divided by about G.
// Run:   build/08_all_reduce --variant gather_broadcast -n 2^26
static size_t workspace_gather_broadcast(const gpu_team *t, int rank, size_t n)
{
    return rank == 0 ? (size_t)(t->count - 1) * slot_floats(n) * sizeof(float) : 0;
}

static cudaError_t launch_gather_broadcast(const gpu_team *t, const float *const *d_in,
                                           float *const *d_out, size_t n, void *const *d_ws)
{
    return gather_add_broadcast(t, d_in, d_out, n, static_cast<float *>(d_ws[0]));
}

// One step of rank q on floats [b, b + len) of the chunk it handles at this step (launch_ring).
// Steps 0 .. G-1 add: q sends its input at step 0, later its input plus the partial sum that
// rank q - 1 left in d_out[q], into d_out[q + 1]; at step G-1 (the first of the all-gather) that
// sum is the total and q keeps it too. Steps G .. 2G-3: q forwards the total that arrived.
static cudaError_t ring_step(const gpu_team *t, int q, int step, const float *const *d_in,
                             float *const *d_out, size_t b, size_t len)
{
    const int G = t->count, next = (q + 1) % G;
    cudaStream_t s = t->stream[q];
    float *to = d_out[next] + b;      // the same floats of the next GPU's output
    const float *from = d_out[q] + b; // what a peer copy sends
    if (len == 0) return cudaSuccess;
    if (step < G) {
        // BEGIN SOLUTION
        // HINT: add input (+ the partial from q - 1 after step 0) into `to`; keep it at step G-1
        const sources src = {{d_in[q] + b, d_out[q] + b}, step == 0 ? 1 : 2};
        float *keep = step == G - 1 ? d_out[q] + b : nullptr;
        if (t->peer[q][next]) // q's kernel stores straight into the next GPU's memory
            return launch_add(t->dev[q], s, src, to, keep, len);
        if (step == 0)
            from = d_in[q] + b; // no peer access: add in place (after step 0), copy
        else
            TRY(launch_add(t->dev[q], s, src, d_out[q] + b, nullptr, len));
        // END SOLUTION
    }
    TRY(cudaSetDevice(t->dev[q]));
    return cudaMemcpyPeerAsync(to, t->dev[next], from, t->dev[q], len * sizeof(float), s);
}

// Idea:  the ring. Cut the n floats into G chunks; at step t rank q sends chunk (q - t) mod G to
//        rank q + 1 only. Reduce-scatter, steps 0 .. G-2: a partial sum travels, each GPU adding
//        its input. All-gather, steps G-1 .. 2G-3: at G-1 rank q adds the last input, keeps the
//        total of chunk q + 1 and sends it on; the totals travel on around the ring. Each chunk
//        is cut into up to 4 slices, and rank q + 1 starts a slice as soon as rank q has sent
//        it (the pipeline; exercise 08.2 asks what that buys when every GPU is busy at every
//        step already, and each slice costs a launch and an event).
// Fixes: gather_broadcast's bottleneck: every GPU sends 2(G-1)/G n floats over its own link, so
//        the time grows from 4n / (link bandwidth) at G = 2 towards 2 x 4n / (link bandwidth).
// Cost:  2(G-1) steps, each a launch or a copy on every GPU and an event between neighbours,
//        issued from one host thread: a floor of about 130 us on 4 GPUs, which small n pays.
// Run:   build/08_all_reduce --variant ring -n 2^26
static cudaError_t launch_ring(const gpu_team *t, const float *const *d_in, float *const *d_out,
                               size_t n, void *const *)
{
    const int G = t->count;
    if (G == 1) { // one GPU: the all-reduce is a copy
        TRY(cudaSetDevice(t->dev[0]));
        return cudaMemcpyAsync(d_out[0], d_in[0], n * sizeof(float), cudaMemcpyDeviceToDevice,
                               t->stream[0]);
    }
    const size_t fit = n / G * sizeof(float) / SLICE_MIN_BYTES; // slices a chunk, 1 .. 4
    const size_t slices = fit < 1 ? 1 : min_size(fit, MAX_SLICES);
    for (int step = 0; step < 2 * (G - 1); ++step)
        for (size_t k = 0; k < slices; ++k)
            for (int q = 0; q < G; ++q) {
                int c = 0; // the chunk rank q sends at this step
                // BEGIN SOLUTION
                c = ((q - step) % G + G) % G;
                // END SOLUTION
                const size_t cb = part_begin(c, G, n), clen = part_begin(c + 1, G, n) - cb;
                const size_t b = cb + part_begin(k, slices, clen);
                const size_t len = cb + part_begin(k + 1, slices, clen) - b;
                TRY(cudaSetDevice(t->dev[q]));
                if (step > 0) // the slice rank q - 1 sent at the step before has landed
                    TRY(cudaStreamWaitEvent(t->stream[q], step_event((q + G - 1) % G, step - 1, k),
                                            0));
                TRY(ring_step(t, q, step, d_in, d_out, b, len));
                TRY(cudaSetDevice(t->dev[q]));
                TRY(cudaEventRecord(step_event(q, step, k), t->stream[q]));
            }
    return cudaSuccess;
}

// Idea:  ncclAllReduce on every GPU, in one group so that one thread can launch all of them.
// Fixes: the hand-written ring's launch and event per step: NCCL runs one kernel a GPU whose
//        threads pass slices to the next GPU through flags in its memory, on several rings
//        (channels) at once; it wins at small n, while at large n on 2 GPUs the ring is faster.
// Cost:  a library, and its communicators, which the first launch creates (checked, not timed).
// Run:   build/08_all_reduce --variant nccl -n 2^26
static char g_error[256];
static const char *last_error() { return g_error; }

#ifdef HAVE_NCCL
static ncclComm_t g_comms[TEAM_MAX_GPUS];
static int g_comm_count;

static cudaError_t nccl_failed(const char *what, ncclResult_t r)
{
    snprintf(g_error, sizeof g_error, "NCCL %s: %s", what, ncclGetErrorString(r));
    return cudaErrorUnknown;
}

static cudaError_t launch_nccl(const gpu_team *t, const float *const *d_in, float *const *d_out,
                               size_t n, void *const *)
{
    if (g_comm_count != t->count) {
        ncclResult_t r = ncclCommInitAll(g_comms, t->count, t->dev);
        if (r != ncclSuccess) return nccl_failed("ncclCommInitAll", r);
        g_comm_count = t->count;
    }
    ncclResult_t r = ncclGroupStart();
    for (int q = 0; q < t->count && r == ncclSuccess; ++q)
        r = ncclAllReduce(d_in[q], d_out[q], n, ncclFloat, ncclSum, g_comms[q], t->stream[q]);
    const ncclResult_t end = ncclGroupEnd();
    if (r != ncclSuccess) return nccl_failed("ncclAllReduce", r);
    return end != ncclSuccess ? nccl_failed("ncclGroupEnd", end) : cudaSuccess;
}

static const char *library()
{
    static char text[96];
    int v = 0;
    if (ncclGetVersion(&v) != ncclSuccess) return "NCCL (version unknown)";
    const char *nvls = getenv("NCCL_NVLS_ENABLE"); // 0: no reduction in the NVLink switch
    snprintf(text, sizeof text, "NCCL %d.%d.%d%s", v / 10000, v % 10000 / 100, v % 100,
             nvls && strcmp(nvls, "0") == 0 ? " (NVLink SHARP off: NCCL_NVLS_ENABLE=0)" : "");
    return text;
}
#endif

// ---- The team's events, the descriptors ----------------------------------------------------------

static void close_stage()
{
#ifdef HAVE_NCCL
    for (int q = 0; q < g_comm_count; ++q) ncclCommDestroy(g_comms[q]);
    g_comm_count = 0;
#endif
    for (int r = 0; r < g_event_ranks; ++r) // from any device: an event knows its own
        for (cudaEvent_t ev : g_event[r]) cudaEventDestroy(ev);
    g_event_ranks = 0;
}

static cudaError_t open_stage(const gpu_team *t)
{
    close_stage();
    g_error[0] = '\0';
    cudaError_t err = cudaSuccess;
    for (int r = 0; r < t->count && err == cudaSuccess; ++r) {
        err = cudaSetDevice(t->dev[r]);
        for (cudaEvent_t &ev : g_event[r])
            if (err == cudaSuccess) err = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
        g_event_ranks = r + 1;
    }
    return err == cudaSuccess ? cudaSetDevice(t->dev[0]) : err;
}

static const team_variant team_variants[] = {
    {"sharded_sum",
     "06's single_pass on each GPU's part, the G partial sums gathered and sent back", OP_SUM,
     workspace_sharded_sum, launch_sharded_sum, 0},
    {"gather_broadcast", "every GPU's floats to GPU 0, added there, the sum copied back to all",
     OP_ALLREDUCE, workspace_gather_broadcast, launch_gather_broadcast, 0},
    {"ring", "reduce-scatter then all-gather around a ring, 2(G-1) pipelined steps", OP_ALLREDUCE,
     nullptr, launch_ring, 0},
#ifdef HAVE_NCCL
    {"nccl", "ncclAllReduce on every GPU in one group (the library to beat)", OP_ALLREDUCE, nullptr,
     launch_nccl, 1},
#endif
};

extern "C" const team_stage team_08_all_reduce = {
    "08_all_reduce", "All-reduce across GPUs",
    team_variants,   sizeof(team_variants) / sizeof(team_variants[0]),
    open_stage,      close_stage,
#ifdef HAVE_NCCL
    library,         nullptr,
#else
    nullptr,
    "nccl is not in this build (no NCCL found): install the distribution's libnccl-dev, or pip "
    "install nvidia-nccl-cu13 (or -cu12) and build with make NCCL_HOME=<its nvidia/nccl folder>, "
    "after make clean",
#endif
    last_error};

// The one-GPU face of the stage, for the gpu suite's sum tests: sharded_sum on a team of one.
static int supports_sum(size_t rows, size_t cols) { return rows == 1 && cols >= 1; }
static size_t workspace_one_gpu(size_t, size_t)
{
    int dev = 0;
    cudaGetDevice(&dev);
    return single_pass_bytes(dev);
}
static cudaError_t launch_one_gpu(const void *d_in, void *d_out, size_t rows, size_t cols,
                                  void *d_ws, cudaStream_t s)
{
    int dev = 0;
    if (!supports_sum(rows, cols) || cudaGetDevice(&dev) != cudaSuccess)
        return cudaErrorInvalidValue;
    return single_pass(dev, static_cast<const float *>(d_in), static_cast<float *>(d_out), cols,
                       d_ws, s);
}
static const variant_t one_gpu_variants[] = {
    {"sharded_sum", "sharded_sum on one GPU: 06's single_pass over the whole array", OP_SUM, DT_F32,
     DT_F32, supports_sum, workspace_one_gpu, launch_one_gpu},
};
extern "C" const stage_t stage_08_all_reduce = {"08_all_reduce", "All-reduce across GPUs",
                                                one_gpu_variants, 1};
