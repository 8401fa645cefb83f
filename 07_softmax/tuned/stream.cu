// SPDX-License-Identifier: MIT
// 07_softmax/tuned/stream.cu: the stream path (sm_90), each CTA's chunk of a row in shared
// memory, brought by bulk copies.
//
// Idea:  one lane asks the Tensor Memory Accelerator (TMA, a copy unit in each SM that moves
//        memory by itself once asked: cp.async.bulk) for the CTA's chunk of the row, whose bytes
//        land on an mbarrier (a barrier in shared memory that counts bytes). No thread holds a
//        value, so a CTA takes 45 to 55 registers a thread and several share an SM, each at its
//        own phase: one loads while another reduces or writes. A CTA a row is launched once a
//        row; K > 1 CTAs a row form a cluster, as in the CTA path, and the resident clusters loop
//        over the rows. Where a chunk is over half a CTA's shared memory, the CTA (or cluster)
//        loops with all of it as a ring of rows, asking for as much of its next row as fits
//        beside this one once this one has landed. A float CTA a row, and a float log-softmax
//        ring, hand their outputs to the TMA as well.
// Fixes: the CTA path's CTA of 512 threads, alone on its SM for rows of over 8192 values: the SM
//        reads nothing while it reduces (f32 softmax over plain_dispatch in the reference run:
//        1.35x at 16384 columns, 1.72x at 32768, 1.80x at 65536; over the CTA path, 4096 x 50257
//        in 0.75 of the time in float and 0.66 in 16-bit).
// Cost:  sm_90 and clusters; rows x CTAs a row must reach the SM count (few long rows take the
//        split plan instead, on this kernel in one launch where the register-holding CTAs cannot
//        all be resident); a CTA whose chunk fills over half its shared memory is alone on its
//        SM, which then reads nothing while it reduces, unless the ring's early loads cover it.
// Run:   build/07_softmax --variant tuned_stream --cols 16384,32768,65536 [--dtype bf16]
#include "chunk.cuh"
#include "exchange.cuh"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// (sm_90 device code only: the kernel's body is empty on earlier GPUs and on the host)

// Bulk-copy instructions (PTX ISA 8.0, sm_90); the mbarrier helpers are in exchange.cuh.
// Lane `lane` of the issuing warp: bytes (a multiple of 16, both addresses 16-byte aligned) from
// global src into shared dst, in pieces of at most 32 KB spread over the warp; lane 0 first
// tells the barrier how many bytes to expect (and arrives: the barrier counts one arrival).
static constexpr unsigned BULK_PIECE = 32768;
static __device__ __forceinline__ void bulk_copies(void *dst, const void *src, unsigned bytes,
                                                   uint64_t *bar, unsigned lane)
{
    for (unsigned off = lane * BULK_PIECE; off < bytes; off += WARP_SIZE * BULK_PIECE) {
        const unsigned n = bytes - off < BULK_PIECE ? bytes - off : BULK_PIECE;
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                     " [%0], [%1], %2, [%3];" ::"r"(smem_address((char *)dst + off)),
                     "l"((const char *)src + off), "r"(n), "r"(smem_address(bar))
                     : "memory");
    }
}

static __device__ __forceinline__ void bulk_load(void *dst, const void *src, unsigned bytes,
                                                 uint64_t *bar, unsigned lane)
{
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
    for (unsigned off = lane * BULK_PIECE; off < bytes; off += WARP_SIZE * BULK_PIECE) {
        const unsigned n = bytes - off < BULK_PIECE ? bytes - off : BULK_PIECE;
        asm volatile(
            "cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"((char *)dst + off),
            "r"(smem_address((const char *)src + off)), "r"(n)
            : "memory");
    }
}

// Issuing warp: waits until the TMA has read every byte of this lane's bulk stores (the shared
// memory is then free; the global writes may still be in flight).
static __device__ __forceinline__ void bulk_stores_read()
{
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
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
static __device__ __forceinline__ void
ring_ask(const T *x, const chunk_t &c, uint4 *ring, unsigned ring_slots, unsigned pos, unsigned lo,
         unsigned hi, bool arrive, uint64_t *bar, unsigned lane)
{
    const T *base = x - c.a + c.first * P; // on a 16-byte boundary
    const unsigned a = lo > c.whole_lo ? lo : c.whole_lo, z = hi < c.whole_hi ? hi : c.whole_hi;
    const unsigned n = z > a ? z - a : 0, q = ring_at<true>(pos, a, ring_slots);
    const unsigned n1 = n < ring_slots - q ? n : ring_slots - q; // up to the ring's end
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    if (lane == 0) {
        if (arrive)
            asm volatile(
                "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_address(bar)),
                "r"(n * PACK_BYTES)
                : "memory");
        else
            asm volatile(
                "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(smem_address(bar)),
                "r"(n * PACK_BYTES)
                : "memory");
    }
    __syncwarp();
    bulk_copies(ring + q, base + (size_t)a * P, n1 * PACK_BYTES, bar, lane);
    bulk_copies(ring, base + (size_t)(a + n1) * P, (n - n1) * PACK_BYTES, bar, lane);
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

#endif // sm_90

// How the K CTAs of a row swap their states: EX_CLUSTER, a cluster's distributed shared memory
// (or K = 1); otherwise they are no cluster and swap them as the flag path's do (a cooperative
// launch, each CTA a row; the flag path's workspace in d_words, unused with EX_CLUSTER):
// EX_MERGE, rows x K CTAs then the merging CTAs; EX_GATHER, rows x K CTAs that gather (K <= 32).
// RING: the CTAs loop over the rows with their whole shared memory as a ring (a looping CTA
// otherwise asks for each row once the one before is written); SPLIT: a ring that asks for its
// next row's rest during this row's writes (its own kernel: switched at run time inside the ring
// kernel, it slowed the rings without it, float 1024 x 65536 from 89% of the copy to 86%).
enum { EX_CLUSTER, EX_MERGE, EX_GATHER };
template <typename T, bool LOG, int EX, bool RING = false, bool SPLIT = false>
static __global__ void __launch_bounds__(1024, 1)
    softmax_stream(const T *__restrict__ d_in, T *__restrict__ d_out, size_t rows, size_t cols,
                   int chunks, unsigned chunk_slots, unsigned long long *d_words, int bulk_out)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr int P = PACK_BYTES / (int)sizeof(T);
    extern __shared__ uint4 smem_slots[]; // chunk_slots 16-byte slots, or the ring
    __shared__ __align__(8) uint64_t bar[2];
    __shared__ max_sum cta_state[2];
    __shared__ __align__(8) uint64_t got[2]; // the cluster's messages, by row parity
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
        const unsigned b = RING ? it & 1 : 0; // a ring's rows alternate two barriers
        const unsigned parity = (RING ? it >> 1 : it) & 1;
        uint4 *buf = smem_slots;
        const chunk_t c = chunk_of<T, P>(d_in, cols, r, k, chunk_slots);
        const T *x = d_in + r * cols;
        if (warp == 0) {
            if (RING) {
                // the rest of this row, into what the row before left (unless asked for already)
                if (!SPLIT || !rest_asked)
                    ring_ask<T, P>(x, c, smem_slots, ring_slots, pos, early, c.count, true, &bar[b],
                                   lane);
                early = 0;
                rest_asked = false;
            } else {
                ask_for_chunk<T, P>(x, c, buf, &bar[0], lane);
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
            // barrier (no arrival yet). Asked for before the wait instead, 1024 x 65536 16-bit
            // rings ran at 84-86% of the copy against 89-90%.
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
        // then a sum pass, with nothing to convert and no rescaling. One pass took 2048 x 32768
        // 16-bit from 90% of the copy to 92% on an H100 and from 77-78% to 82-83% on an H200;
        // in float it cost 0.5 to 1.5 points (1024 x 65536, 2048 x 32768).
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
        // SPLIT: this row's first rest_at slots written (whole rounds of the CTA), the next
        // row's rest is asked for there, so that it loads during the remaining writes
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

template <typename T, bool LOG>
const void *stream_kernel(stream_form f)
{
    switch (f) {
    case FORM_CLUSTER:
        return (const void *)softmax_stream<T, LOG, EX_CLUSTER>;
    case FORM_RING:
        return (const void *)softmax_stream<T, LOG, EX_CLUSTER, true>;
    case FORM_RING_EARLY:
        // 16-bit rings only: float rings lost with the early ask (clusters of 2 at 1024 x 65536
        // float, 3.0 to 4.9 points of the copy on an H100; float log-softmax rings on an H200)
        if constexpr (sizeof(T) == 2)
            return (const void *)softmax_stream<T, LOG, EX_CLUSTER, true, true>;
        return nullptr;
    case FORM_MERGE:
        return (const void *)softmax_stream<T, LOG, EX_MERGE>;
    case FORM_GATHER:
        return (const void *)softmax_stream<T, LOG, EX_GATHER>;
    }
    return nullptr;
}

template <typename T, bool LOG>
cudaError_t stream_launch(const T *d_in, T *d_out, size_t rows, size_t cols, const stream_plan &sp,
                          stream_form f, void *d_ws, cudaStream_t s)
{
    const bool flags = f == FORM_MERGE || f == FORM_GATHER;
    const void *kernel = stream_kernel<T, LOG>(f);
    if (kernel == nullptr) return cudaErrorInvalidValue;
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    cfg.gridDim = dim3(
        (unsigned)(sp.groups * sp.chunks + (f == FORM_MERGE ? flag_mergers(rows, sp.threads) : 0)));
    cfg.blockDim = dim3(sp.threads);
    cfg.dynamicSmemBytes = sp.smem;
    cfg.stream = s;
    if (flags) {
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
    int n_chunks = sp.chunks, bulk_out = sp.bulk_out;
    unsigned n_slots = sp.chunk_slots;
    unsigned long long *d_words = flags ? static_cast<unsigned long long *>(d_ws) : nullptr;
    void *params[] = {(void *)&d_in, (void *)&d_out, &n_rows,          &n_cols,
                      &n_chunks,     &n_slots,       (void *)&d_words, &bulk_out};
    cudaError_t err = cudaLaunchKernelExC(&cfg, kernel, params);
    return err != cudaSuccess ? err : cudaGetLastError();
}

#define STREAM_PATH(T, LOG)                                                                      \
    template cudaError_t stream_launch<T, LOG>(                                                  \
        const T *, T *, size_t, size_t, const stream_plan &, stream_form, void *, cudaStream_t); \
    template const void *stream_kernel<T, LOG>(stream_form);
STREAM_PATH(float, false)
STREAM_PATH(float, true)
STREAM_PATH(__half, false)
STREAM_PATH(__half, true)
STREAM_PATH(__nv_bfloat16, false)
STREAM_PATH(__nv_bfloat16, true)
#undef STREAM_PATH
