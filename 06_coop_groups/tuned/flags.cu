// SPDX-License-Identifier: MIT
// 06_coop_groups/tuned/flags.cu: flagged partials. The `flag_sum` variant (a full sum in one
// launch), and the chunks of a row that the tuned row dispatcher (rows.cu) finishes this way.
//
// Idea:  single_pass with its ticket taken when a block STARTS, not when it ends: the block that
//        starts last (every other block is then already running) adds the partials, which the
//        others publish as flagged 64-bit words (value and ready flag in one store): no fence,
//        no second read of the partials. Up to 32768 floats: one block, as in single_pass.
// Fixes: single_pass's fence, and its last block's second read of the partials (each arrives
//        with its own flag); cluster_sum's cluster barriers: any number of blocks, any GPU.
// Cost:  the partials still cross L2 to the last block, which polls; it is the only block that
//        waits, and only for blocks already running, so it cannot wait forever.
// Run:   build/06_coop_groups --variant flag_sum -n 2^16,2^20
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <stdint.h>

#include "stage.h"
#include "common.cuh"
#include "tuned.h"

// -------------------------------------------------------------------------------------------------
// Kernels

// A partial with its ready flag in one 64-bit word: the high half is 1 once the low half holds
// the float's bits. One aligned 64-bit access is never torn, so the flag needs no fence of its
// own: whoever sees the flag sees the value. Relaxed, gpu-scope loads and stores go to L2 (not to
// a stale L1 line) and are seen by other SMs without a fence.
static constexpr unsigned long long SLOT_READY = 1ull << 32;
static constexpr unsigned FLAG_AT_ONCE = 8; // slots a thread loads at once when it adds them

static __device__ __forceinline__ unsigned long long slot_load(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
static __device__ __forceinline__ void slot_store(unsigned long long *p, unsigned long long v)
{
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

// Sum, in index order, of `count` flagged partials, as thread `rank` of `width` sees it: slot
// `mine_at` is the caller's own (value `mine`, never stored). Up to 8 slots a thread are loaded
// at once, then each is polled again until its flag is up, read, and put back to 0 for the next
// launch.
static __device__ __forceinline__ float flagged_sum(unsigned long long *slots, unsigned count,
                                                    unsigned mine_at, float mine, unsigned rank,
                                                    unsigned width)
{
    constexpr unsigned AT_ONCE = FLAG_AT_ONCE;
    float acc = 0.0f;
    for (unsigned base = rank; base < count; base += AT_ONCE * width) {
        unsigned long long s[AT_ONCE];
#pragma unroll
        for (unsigned k = 0; k < AT_ONCE; ++k) {
            const unsigned i = base + k * width;
            s[k] = i < count && i != mine_at ? slot_load(slots + i) : SLOT_READY;
        }
#pragma unroll
        for (unsigned k = 0; k < AT_ONCE; ++k) {
            const unsigned i = base + k * width;
            if (i >= count) break;
            if (i == mine_at) {
                acc += mine;
                continue;
            }
            while (!(s[k] & SLOT_READY)) s[k] = slot_load(slots + i);
            acc += __uint_as_float((unsigned)s[k]);
            slot_store(slots + i, 0ull);
        }
    }
    return acc;
}

// The end of a flagged sum, in every thread of the block: `v` (valid in thread 0) is this
// block's partial, chunk `chunk` of `chunks` of row `row`, `ticket` (valid in thread 0) the
// order it started in. Every block but the last to start publishes its partial and leaves; the
// last adds all of them in index order and writes the row's sum.
static __device__ __forceinline__ void flagged_finish(const cg::thread_block &block, float v,
                                                      unsigned ticket, size_t row, unsigned chunk,
                                                      unsigned chunks, unsigned long long *d_slots,
                                                      unsigned *d_tickets, float *d_out)
{
    unsigned long long *slots = d_slots + row * chunks;
    const cg::thread_block_tile<WARP_SIZE> warp = cg::tiled_partition<WARP_SIZE>(block);
    if (chunks <= WARP_SIZE * FLAG_AT_ONCE) {
        // up to 256 partials: warp 0 alone (thread 0 holds v and the ticket) publishes or adds
        // them, one load of each at once; no block barrier, no second block reduce
        if (warp.meta_group_rank() != 0) return;
        unsigned last = 0;
        if (warp.thread_rank() == 0) {
            last = ticket == chunks - 1;
            if (last)
                d_tickets[row] = 0; // every ticket is drawn: ready for the next launch
            else
                slot_store(slots + chunk, SLOT_READY | __float_as_uint(v));
        }
        if (!warp.shfl(last, 0)) return;
        v = flagged_sum(slots, chunks, chunk, warp.shfl(v, 0), warp.thread_rank(), WARP_SIZE);
        v = cg::reduce(warp, v, cg::plus<float>());
        if (warp.thread_rank() == 0) d_out[row] = v;
        return;
    }
    __shared__ bool is_last;
    __shared__ float own;
    if (block.thread_rank() == 0) {
        is_last = ticket == chunks - 1;
        own = v;
        if (is_last)
            d_tickets[row] = 0;
        else
            slot_store(slots + chunk, SLOT_READY | __float_as_uint(v));
    }
    block.sync();
    if (!is_last) return;
    v = flagged_sum(slots, chunks, chunk, own, block.thread_rank(), block.size());
    v = block_reduce_cg(block, v);
    if (block.thread_rank() == 0) d_out[row] = v;
}

// Chunks that loop: row r's blocks are blockIdx.x = r * chunks + chunk, each a contiguous chunk
// of whole packs (a row too long for one lap a block), or, with chunk_len 0, a full sum too large
// for one lap a block on a full GPU.
static __global__ void __launch_bounds__(BLOCK_SIZE, MIN_BLOCKS)
    sum_flagged(const float *__restrict__ d_in, float *__restrict__ d_out, size_t cols,
                unsigned chunks, size_t chunk_len, unsigned long long *d_slots, unsigned *d_tickets)
{
    const cg::thread_block block = cg::this_thread_block();
    const size_t row = blockIdx.x / chunks;
    const unsigned chunk = blockIdx.x % chunks;
    unsigned ticket = 0;
    // at the start: the atomic's round trip overlaps this block's loads
    if (chunks > 1 && block.thread_rank() == 0) ticket = atomicAdd(d_tickets + row, 1u);
    const size_t start = chunk * chunk_len;
    const size_t len = start < cols ? min_size(chunk_len, cols - start) : 0;
    // chunk_len 0: the row's blocks stride over the whole row together (a full sum too large for
    // one lap a block: neighbouring blocks read neighbouring memory, as in single_pass)
    float v =
        chunk_len == 0
            ? span_sum(d_in + row * cols, cols, chunk * (size_t)BLOCK_SIZE + block.thread_rank(),
                       (size_t)chunks * BLOCK_SIZE)
            : span_sum(d_in + row * cols + start, len, block.thread_rank(), BLOCK_SIZE);
    v = block_reduce_cg(block, v);
    if (chunks == 1) {
        if (block.thread_rank() == 0) d_out[row] = v;
        return;
    }
    flagged_finish(block, v, ticket, row, chunk, chunks, d_slots, d_tickets, d_out);
}

// sum_flagged where every block reads at most one lap (UNROLL packs a thread): no loop at all,
// each thread's packs are loaded at once, predicated; chunks >= 2 chunks of chunk_len floats a
// row. ROWS: row r's blocks are blockIdx.x = r * chunks + chunk (the row dispatch); else one
// row, gridDim.x chunks (flag_sum), without the row's index arithmetic: 40 registers, 6 blocks
// an SM, where the row form takes 54 (4 blocks an SM).
template <bool ROWS>
static __global__ void __launch_bounds__(BLOCK_SIZE, MIN_BLOCKS)
    sum_lap(const float *__restrict__ d_in, float *__restrict__ d_out, size_t cols, unsigned chunks,
            unsigned chunk_len, unsigned long long *d_slots, unsigned *d_tickets)
{
    const cg::thread_block block = cg::this_thread_block();
    if (!ROWS) chunks = gridDim.x;
    const size_t row = ROWS ? blockIdx.x / chunks : 0;
    const unsigned chunk = ROWS ? blockIdx.x % chunks : blockIdx.x, rank = block.thread_rank();
    unsigned ticket = 0;
    if (rank == 0) ticket = atomicAdd(d_tickets + row, 1u);
    const size_t start = (size_t)chunk * chunk_len;
    float v = lap_sum(block, d_in + row * cols + start, min_size(chunk_len, cols - start));
    v = block_reduce_cg(block, v);
    flagged_finish(block, v, ticket, row, chunk, chunks, d_slots, d_tickets, d_out);
}

// n <= ONE_BLOCK_MAX_N: single_pass's one block (the lesson's reduce_single_pass with one block:
// the same loads and block reduce, no partials, no ticket).
static __global__ void __launch_bounds__(BIG_BLOCK, 1)
    sum_one_block(const float *__restrict__ d_in, float *__restrict__ d_out, size_t n)
{
    const cg::thread_block block = cg::this_thread_block();
    float v = span_sum(d_in, n, block.thread_rank(), blockDim.x);
    v = block_reduce_cg(block, v);
    if (block.thread_rank() == 0) *d_out = v;
}

// -------------------------------------------------------------------------------------------------
// Host

// Up to two laps of a 1024-thread block, one block does the whole sum (as single_pass).
static const size_t ONE_BLOCK_MAX_N = 2 * (size_t)BIG_BLOCK * UNROLL * PACK; // 32768 floats

// The workspace of the flagged partials: one ticket a row (on their own 128-byte lines), then
// one 64-bit slot a block.
static size_t tickets_bytes(size_t rows) { return ceil_div(rows * 4, WS_HEADER) * WS_HEADER; }

size_t coop_flagged_rows_workspace(size_t rows, unsigned chunks)
{
    return chunks > 1 ? tickets_bytes(rows) + rows * chunks * 8 : 0;
}

cudaError_t coop_launch_flagged_rows(const float *d_in, float *d_out, size_t rows, size_t cols,
                                     unsigned chunks, size_t chunk_len, bool lap, void *d_ws,
                                     cudaStream_t s)
{
    if (rows * chunks > MAX_GRID_X) return cudaErrorInvalidValue;
    const unsigned grid = (unsigned)(rows * chunks);
    char *ws = static_cast<char *>(d_ws);
    unsigned long long *slots = reinterpret_cast<unsigned long long *>(ws + tickets_bytes(rows));
    unsigned *tickets = reinterpret_cast<unsigned *>(ws);
    if (lap)
        sum_lap<true><<<grid, BLOCK_SIZE, 0, s>>>(d_in, d_out, cols, chunks, (unsigned)chunk_len,
                                                  slots, tickets);
    else
        sum_flagged<<<grid, BLOCK_SIZE, 0, s>>>(d_in, d_out, cols, chunks, chunk_len, slots,
                                                tickets);
    return cudaGetLastError();
}

// flag_sum's plan: up to ONE_BLOCK_MAX_N floats one block (no ticket, no flags); then 256-thread
// blocks of one lap each (sum_lap, no loop) while the GPU holds them all at once; beyond that, as
// many blocks as it holds, striding over the array together (sum_flagged).
struct flag_plan {
    unsigned grid;
    size_t chunk_len;
    bool lap; // sum_lap, else sum_flagged
};

static flag_plan plan_flag_sum(size_t n)
{
    flag_plan p = {1, n, true};
    if (n <= ONE_BLOCK_MAX_N) return p;
    static fill_cache fill_lap, fill_loop;
    const size_t resident_lap =
        resident_blocks(&fill_lap, (const void *)sum_lap<false>, BLOCK_SIZE);
    if (ceil_div(n, LAP_LEN) <= resident_lap) {
        cut_chunks(n, resident_lap, LAP_LEN, &p.grid, &p.chunk_len);
        return p;
    }
    p.grid = (unsigned)resident_blocks(&fill_loop, (const void *)sum_flagged, BLOCK_SIZE);
    p.chunk_len = 0; // the blocks stride over the array together
    p.lap = false;
    return p;
}

extern "C" int coop_supports_flag_sum(size_t rows, size_t cols) { return rows == 1 && cols >= 1; }

extern "C" size_t coop_workspace_flag_sum(size_t rows, size_t cols)
{
    (void)rows;
    return coop_flagged_rows_workspace(1, plan_flag_sum(cols).grid);
}

extern "C" cudaError_t coop_launch_flag_sum(const void *d_in, void *d_out, size_t rows, size_t cols,
                                            void *d_workspace, cudaStream_t s)
{
    if (!coop_supports_flag_sum(rows, cols)) return cudaErrorInvalidValue;
    const float *in = static_cast<const float *>(d_in);
    float *out = static_cast<float *>(d_out);
    const flag_plan p = plan_flag_sum(cols);
    if (p.grid == 1) {
        // threads for one lap each, whole warps, 1024 at most
        size_t threads = ceil_div(ceil_div(cols, UNROLL * PACK), WARP_SIZE) * WARP_SIZE;
        if (threads > BIG_BLOCK) threads = BIG_BLOCK;
        sum_one_block<<<1, (unsigned)threads, 0, s>>>(in, out, cols);
        return cudaGetLastError();
    }
    char *ws = static_cast<char *>(d_workspace);
    unsigned *tickets = reinterpret_cast<unsigned *>(ws);
    unsigned long long *slots = reinterpret_cast<unsigned long long *>(ws + tickets_bytes(1));
    if (p.lap)
        sum_lap<false><<<p.grid, BLOCK_SIZE, 0, s>>>(in, out, cols, p.grid, (unsigned)p.chunk_len,
                                                     slots, tickets);
    else
        sum_flagged<<<p.grid, BLOCK_SIZE, 0, s>>>(in, out, cols, p.grid, p.chunk_len, slots,
                                                  tickets);
    return cudaGetLastError();
}
