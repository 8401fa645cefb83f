// SPDX-License-Identifier: MIT
// 07_softmax/tuned/dispatch.cu: the dispatcher, which runs the plan plan.cu picks for a shape,
// and each tuned path alone as a named variant (tuned.h): the functions softmax.cu's variant
// table calls.
//
// Run: build/07_softmax --variant dispatch --rows R --cols C [--op logsoftmax] [--dtype f16|bf16]
//      (REDUCE_VERBOSE=1 prints the plan); --variant tuned_warp|tuned_cta|tuned_split|tuned_stream
#include <stdint.h>

#include "plan.h"
#include "tuned.h"

// ------------------------------------------------------------------------------------------------
// The dispatcher
// ------------------------------------------------------------------------------------------------

static const char *const DISPATCH = "07_softmax/dispatch";

// The split plan p as planned: in one launch when it fits (flags), else in two kernels.
template <typename T, bool LOG, int P>
static cudaError_t split_run(const T *d_in, T *d_out, size_t rows, size_t cols, const plan_t &p,
                             bool flags, void *d_ws, cudaStream_t s)
{
    if (d_ws == nullptr) return cudaErrorInvalidValue;
    if (flags) {
        const cudaError_t e = flags_launch<T, LOG, P>(
            d_in, d_out, rows, cols, p.p, flag_gathers(p.p.chunks, 2 * WARP_SIZE), d_ws, s);
        if (e == cudaSuccess) return cudaGetLastError();
        (void)cudaGetLastError(); // refused after all: the two kernels
    }
    return split_launch<T, LOG, P>(d_in, d_out, rows, cols, p.p, d_ws, s);
}

// Rows of over 1024 columns, in slots of P (16-byte packs, or one element where input and output
// sit at different 16-byte phases).
template <typename T, bool LOG, int P>
static cudaError_t cta_path(const T *d_in, T *d_out, size_t rows, size_t cols, void *d_ws,
                            const gpu_t &g, cudaStream_t s)
{
    constexpr int PER_THREAD = slots_per_thread<P>();
    const int max_cluster = g.clusters ? cluster_limit(cta_kernel<T, LOG, P>()) : 1;
    const bool aligned = (uintptr_t)d_in % PACK_BYTES == 0 && cols % P == 0;
    plan_t p = plan_rows(g, max_cluster, rows, cols, P, PER_THREAD, cta_max_threads<P>(), aligned);
    if (p.path == PATH_CTA && p.p.chunks > 1 &&
        (size_t)p.p.chunks * p.p.threads > (size_t)g.sm_threads) {
        // A cluster wider than an SM's threads: the plan of a GPU without clusters instead, when
        // the row needs more than one CTA there and that plan runs in one launch (flags), or
        // the cluster does not pay against its two kernels. Against the flags, such clusters
        // lost at every shape of 6 to 16 rows of 100000 to 131072 columns measured, by up to
        // 24 points of the copy (16 x 131072 float), but for 16-bit at 8 x 131072 and bfloat16
        // log-softmax at 8 x 100003, within the spread (H100; on an H200 16-bit lost up to 5
        // points at 6 and 8 rows).
        gpu_t flat = g;
        flat.clusters = 0;
        const plan_t q =
            plan_rows(flat, 1, rows, cols, P, PER_THREAD, cta_max_threads<P>(), aligned);
        if (q.path == PATH_SPLIT && (flags_fit<T, LOG, P>(g, rows, q, d_ws) ||
                                     !cluster_pays(g, rows, p.p.chunks, p.p.threads)))
            p = q;
    }
    if constexpr (P == full_pack<T>()) {
        stream_plan sp;
        stream_form f;
        if (stream_wanted(g, p) && plan_stream<T, LOG>(g, rows, cols, &sp, &f)) {
            say_plan(DISPATCH, rows, cols, stream_words(sp), sp.chunks, sp.threads, sizeof(T), P);
            return stream_launch<T, LOG>(d_in, d_out, rows, cols, sp, f, nullptr, s);
        }
    }
    const bool flags = flags_fit<T, LOG, P>(g, rows, p, d_ws);
    if constexpr (P == full_pack<T>()) {
        // Else the split plan on the stream kernel, in one launch as well, when all of its CTAs
        // fit and the register-holding ones do not: 32 x 128256 float from 52-53% of the copy to
        // 65-68%, and 6 to 22 points at each of the 26 shapes of 2 to 96 rows of 65536 to 262144
        // columns that take it (H100). Where the register flags fit they stay: forced in their
        // place, the stream flags lost at one row (51-54% against 57-62%) and at 8 rows.
        stream_plan sp;
        stream_form f;
        if (!flags && plan_stream_flags<T, LOG>(g, rows, cols, p, d_ws, &sp, &f)) {
            say_plan(DISPATCH, rows, cols, "stream, one launch (flags)", sp.chunks, sp.threads,
                     sizeof(T), P);
            const cudaError_t e = stream_launch<T, LOG>(d_in, d_out, rows, cols, sp, f, d_ws, s);
            if (e == cudaSuccess) return e;
            (void)cudaGetLastError(); // refused after all: the split path below
        }
    }
    say_plan(DISPATCH, rows, cols,
             p.path == PATH_CTA ? (p.p.chunks > 1 ? "cluster" : "block per row")
             : flags            ? "split, one launch (flags)"
                                : "split (two kernels)",
             p.p.chunks, p.p.threads, sizeof(T), P);
    if (rows * (size_t)p.p.chunks > MAX_GRID_X)
        return cudaErrorInvalidValue; // beyond any GPU's memory
    if (p.path == PATH_CTA) return cta_launch<T, LOG, P>(d_in, d_out, rows, cols, p.p, s);
    return split_run<T, LOG, P>(d_in, d_out, rows, cols, p, flags, d_ws, s);
}

// Whether input and output rows sit at the same offset from a 16-byte boundary (true when the
// two pointers do, since rows advance both by the same bytes): packs need it.
static bool same_phase(const void *in, const void *out)
{
    return ((uintptr_t)in - (uintptr_t)out) % PACK_BYTES == 0;
}

// The warp path; it also wants every row aligned (cols a multiple of the pack).
template <typename T, bool LOG>
static cudaError_t warp_run(const char *who, const void *in, void *out, size_t rows, size_t cols,
                            const gpu_t &g, cudaStream_t s)
{
    constexpr int P = full_pack<T>();
    const bool packed =
        same_phase(in, out) && (uintptr_t)in % PACK_BYTES == 0 && cols % full_pack<T>() == 0;
    say_plan(who, rows, cols, packed ? "warp path, 16-byte packs" : "warp path, one element a load",
             cols <= (size_t)WARP_SIZE * (packed ? P : 1) ? 0 : 1, WARP_PATH_BLOCK, sizeof(T),
             packed ? P : 1);
    return warp_path<T, LOG>(static_cast<const T *>(in), static_cast<T *>(out), rows, (int)cols,
                             packed, g.sms, s);
}

// The whole dispatcher.
template <typename T, bool LOG>
static cudaError_t dispatch(const void *in, void *out, size_t rows, size_t cols, void *d_ws,
                            cudaStream_t s)
{
    // the exchange's words are 64-bit (tuned.h)
    if (rows == 0 || cols == 0 || (uintptr_t)d_ws % 8 != 0) return cudaErrorInvalidValue;
    gpu_t g;
    cudaError_t err = current_gpu(&g);
    if (err != cudaSuccess) return err;
    if (cols <= (size_t)WARP_MAX_COLS) return warp_run<T, LOG>(DISPATCH, in, out, rows, cols, g, s);
    const T *d_in = static_cast<const T *>(in);
    T *d_out = static_cast<T *>(out);
    if (same_phase(in, out))
        return cta_path<T, LOG, full_pack<T>()>(d_in, d_out, rows, cols, d_ws, g, s);
    return cta_path<T, LOG, 1>(d_in, d_out, rows, cols, d_ws, g, s);
}

// ------------------------------------------------------------------------------------------------
// Each path alone (the named variants)
// ------------------------------------------------------------------------------------------------

static const char *const TUNED_WARP = "07_softmax/tuned_warp",
                         *const TUNED_CTA = "07_softmax/tuned_cta",
                         *const TUNED_SPLIT = "07_softmax/tuned_split",
                         *const TUNED_STREAM = "07_softmax/tuned_stream";

// The split path takes rows longer than one CTA of 512 threads holds at any alignment (16384
// values), so every plan has 2 CTAs a row at least.
static constexpr size_t SPLIT_MIN_COLS = (size_t)CTA_SHARED_SM_THREADS * ROW_VALUES + 1;
// The stream path takes rows for which the CTA path needs more than 256 threads (8192 values).
static constexpr size_t STREAM_MIN_COLS = (size_t)CTA_SHARED_SM_THREADS / 2 * ROW_VALUES + 1;

// The CTA path's plan in slots of P: false where a row needs more CTAs than a cluster holds.
template <typename T, bool LOG, int P>
static bool cta_plan(const gpu_t &g, size_t rows, size_t cols, bool aligned, plan_t *p)
{
    const int max_cluster = g.clusters ? cluster_limit(cta_kernel<T, LOG, P>()) : 1;
    *p = plan_rows(g, max_cluster, rows, cols, P, slots_per_thread<P>(), cta_max_threads<P>(),
                   aligned);
    return p->path == PATH_CTA && rows * (size_t)p->p.chunks <= MAX_GRID_X;
}

template <typename T, int P>
static plan_t split_only_plan(const gpu_t &g, size_t rows, size_t cols, bool aligned)
{
    return split_plan(g, rows, row_slots(cols, P, aligned), slots_per_thread<P>());
}

// The stream path's plan: a CTA or cluster a row where rows x CTAs a row reach the SM count,
// else the split plan on the stream kernel in one launch (flags) where it fits.
template <typename T, bool LOG>
static bool stream_only_plan(const gpu_t &g, size_t rows, size_t cols, bool aligned,
                             const void *d_ws, stream_plan *sp, stream_form *f)
{
    if (g.cc_major < 9 || !g.clusters) return false;
    if (plan_stream<T, LOG>(g, rows, cols, sp, f)) return true;
    const plan_t p = split_only_plan<T, full_pack<T>()>(g, rows, cols, aligned);
    return plan_stream_flags<T, LOG>(g, rows, cols, p, d_ws, sp, f);
}

template <typename T, bool LOG, int P>
static cudaError_t cta_only(const T *d_in, T *d_out, size_t rows, size_t cols, const gpu_t &g,
                            cudaStream_t s)
{
    plan_t p;
    if (!cta_plan<T, LOG, P>(g, rows, cols, (uintptr_t)d_in % PACK_BYTES == 0 && cols % P == 0, &p))
        return cudaErrorInvalidValue;
    say_plan(TUNED_CTA, rows, cols, p.p.chunks > 1 ? "cluster" : "block per row", p.p.chunks,
             p.p.threads, sizeof(T), P);
    return cta_launch<T, LOG, P>(d_in, d_out, rows, cols, p.p, s);
}

template <typename T, bool LOG, int P>
static cudaError_t split_only(const T *d_in, T *d_out, size_t rows, size_t cols, void *d_ws,
                              const gpu_t &g, cudaStream_t s)
{
    const plan_t p =
        split_only_plan<T, P>(g, rows, cols, (uintptr_t)d_in % PACK_BYTES == 0 && cols % P == 0);
    const bool flags = flags_fit<T, LOG, P>(g, rows, p, d_ws);
    say_plan(TUNED_SPLIT, rows, cols, flags ? "split, one launch (flags)" : "split (two kernels)",
             p.p.chunks, p.p.threads, sizeof(T), P);
    if (rows * (size_t)p.p.chunks > MAX_GRID_X) return cudaErrorInvalidValue;
    return split_run<T, LOG, P>(d_in, d_out, rows, cols, p, flags, d_ws, s);
}

template <typename T, bool LOG>
static cudaError_t stream_only(const T *d_in, T *d_out, size_t rows, size_t cols, void *d_ws,
                               const gpu_t &g, cudaStream_t s)
{
    constexpr int P = full_pack<T>();
    stream_plan sp;
    stream_form f;
    if (!stream_only_plan<T, LOG>(g, rows, cols, (uintptr_t)d_in % PACK_BYTES == 0 && cols % P == 0,
                                  d_ws, &sp, &f))
        return cudaErrorInvalidValue;
    const bool flags = f == FORM_MERGE || f == FORM_GATHER;
    say_plan(TUNED_STREAM, rows, cols, flags ? "stream, one launch (flags)" : stream_words(sp),
             sp.chunks, sp.threads, sizeof(T), P);
    return stream_launch<T, LOG>(d_in, d_out, rows, cols, sp, f, flags ? d_ws : nullptr, s);
}

enum tuned_path { ONLY_WARP, ONLY_CTA, ONLY_SPLIT, ONLY_STREAM };

// One path, where its supports() (below) says it applies.
template <typename T, bool LOG, int PATH>
static cudaError_t path_only(const void *in, void *out, size_t rows, size_t cols, void *d_ws,
                             cudaStream_t s)
{
    if (rows == 0 || cols == 0 || (uintptr_t)d_ws % 8 != 0) return cudaErrorInvalidValue;
    gpu_t g;
    cudaError_t err = current_gpu(&g);
    if (err != cudaSuccess) return err;
    const T *d_in = static_cast<const T *>(in);
    T *d_out = static_cast<T *>(out);
    const bool phase = same_phase(in, out);
    switch (PATH) {
    case ONLY_WARP:
        if (cols > (size_t)WARP_MAX_COLS) return cudaErrorInvalidValue;
        return warp_run<T, LOG>(TUNED_WARP, in, out, rows, cols, g, s);
    case ONLY_CTA:
        return phase ? cta_only<T, LOG, full_pack<T>()>(d_in, d_out, rows, cols, g, s)
                     : cta_only<T, LOG, 1>(d_in, d_out, rows, cols, g, s);
    case ONLY_SPLIT:
        if (d_ws == nullptr) return cudaErrorInvalidValue;
        return phase ? split_only<T, LOG, full_pack<T>()>(d_in, d_out, rows, cols, d_ws, g, s)
                     : split_only<T, LOG, 1>(d_in, d_out, rows, cols, d_ws, g, s);
    default:
        // the TMA moves whole 16-byte slots of input and output: rows whose input and output
        // sit at different phases take the dispatcher's one-element plans
        if (!phase) return dispatch<T, LOG>(in, out, rows, cols, d_ws, s);
        return stream_only<T, LOG>(d_in, d_out, rows, cols, d_ws, g, s);
    }
}

static int supports_any(size_t rows, size_t cols) { return rows >= 1 && cols >= 1; }

static int supports_warp(size_t rows, size_t cols)
{
    return rows >= 1 && cols >= 1 && cols <= (size_t)WARP_MAX_COLS;
}

template <typename T, bool LOG>
static int supports_cta(size_t rows, size_t cols)
{
    gpu_t g;
    plan_t p;
    return rows >= 1 && cols > (size_t)WARP_MAX_COLS && current_gpu(&g) == cudaSuccess &&
           cta_plan<T, LOG, full_pack<T>()>(g, rows, cols, false, &p) &&
           cta_plan<T, LOG, 1>(g, rows, cols, false, &p);
}

template <typename T>
static int supports_split(size_t rows, size_t cols)
{
    gpu_t g;
    return rows >= 1 && cols >= SPLIT_MIN_COLS && current_gpu(&g) == cudaSuccess &&
           rows * (size_t)split_only_plan<T, 1>(g, rows, cols, false).p.chunks <= MAX_GRID_X &&
           rows * (size_t)split_only_plan<T, full_pack<T>()>(g, rows, cols, false).p.chunks <=
               MAX_GRID_X;
}

// (for either alignment of the rows, whose split plans may differ)
template <typename T, bool LOG>
static int supports_stream(size_t rows, size_t cols)
{
    gpu_t g;
    stream_plan sp;
    stream_form f;
    const void *ws = &g; // the plan only asks whether there is a workspace
    return rows >= 1 && cols >= STREAM_MIN_COLS && current_gpu(&g) == cudaSuccess &&
           stream_only_plan<T, LOG>(g, rows, cols, false, ws, &sp, &f) &&
           stream_only_plan<T, LOG>(g, rows, cols, true, ws, &sp, &f);
}

// Scratch for the split plan in slots of P: a state (8 bytes) a chunk, then a word and two
// counters a row (the flags); any GPU may take the split path (no clusters), so the bound
// assumes none.
template <int P>
static size_t split_workspace(size_t rows, size_t cols, bool always)
{
    if (cols <= (size_t)WARP_MAX_COLS) return 0;
    gpu_t g;
    if (current_gpu(&g) != cudaSuccess) g = gpu_t();
    g.clusters = 0;
    const plan_t p =
        plan_rows(g, 1, rows, cols, P, slots_per_thread<P>(), cta_max_threads<P>(), false);
    const size_t k =
        always ? split_plan(g, rows, row_slots(cols, P, false), slots_per_thread<P>()).p.chunks
               : p.p.chunks;
    return always || p.path == PATH_SPLIT ? rows * k * sizeof(unsigned long long) + rows * 16 : 0;
}

template <typename T>
static size_t workspace(size_t rows, size_t cols, bool always)
{
    const size_t a = split_workspace<full_pack<T>()>(rows, cols, always),
                 b = split_workspace<1>(rows, cols, always);
    return a > b ? a : b;
}

// ------------------------------------------------------------------------------------------------
// tuned.h
// ------------------------------------------------------------------------------------------------

size_t workspace_dispatch_f32(size_t rows, size_t cols)
{
    return workspace<float>(rows, cols, false);
}
size_t workspace_dispatch_16(size_t rows, size_t cols)
{
    return workspace<__half>(rows, cols, false);
}
size_t workspace_tuned_f32(size_t rows, size_t cols) { return workspace<float>(rows, cols, true); }
size_t workspace_tuned_16(size_t rows, size_t cols) { return workspace<__half>(rows, cols, true); }

#define ENTRY(name, body)                                                                 \
    cudaError_t name(const void *d_in, void *d_out, size_t rows, size_t cols, void *d_ws, \
                     cudaStream_t s)                                                      \
    {                                                                                     \
        return body(d_in, d_out, rows, cols, d_ws, s);                                    \
    }
#define SUPPORTS(name, body) \
    int name(size_t rows, size_t cols) { return body(rows, cols); }
#define ENTRIES(suffix, T, LOG)                                           \
    ENTRY(launch_dispatch_##suffix, (dispatch<T, LOG>))                   \
    ENTRY(launch_tuned_warp_##suffix, (path_only<T, LOG, ONLY_WARP>))     \
    ENTRY(launch_tuned_cta_##suffix, (path_only<T, LOG, ONLY_CTA>))       \
    ENTRY(launch_tuned_split_##suffix, (path_only<T, LOG, ONLY_SPLIT>))   \
    ENTRY(launch_tuned_stream_##suffix, (path_only<T, LOG, ONLY_STREAM>)) \
    SUPPORTS(supports_dispatch_##suffix, supports_any)                    \
    SUPPORTS(supports_tuned_warp_##suffix, supports_warp)                 \
    SUPPORTS(supports_tuned_cta_##suffix, (supports_cta<T, LOG>))         \
    SUPPORTS(supports_tuned_split_##suffix, supports_split<T>)            \
    SUPPORTS(supports_tuned_stream_##suffix, (supports_stream<T, LOG>))
ENTRIES(f32, float, false)
ENTRIES(f32_log, float, true)
ENTRIES(f16, __half, false)
ENTRIES(f16_log, __half, true)
ENTRIES(bf16, __nv_bfloat16, false)
ENTRIES(bf16_log, __nv_bfloat16, true)
#undef ENTRIES
#undef SUPPORTS
#undef ENTRY
