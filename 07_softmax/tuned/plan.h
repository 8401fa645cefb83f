// SPDX-License-Identifier: MIT
// 07_softmax/tuned/plan.h: the planner (plan.cu) as the dispatcher (dispatch.cu) sees it: the
// running GPU, the CTA and split paths' plans, the stream path's plans, and the line
// REDUCE_VERBOSE=1 prints. Internal: only the tuned/ files include it.
#ifndef SOFTMAX_TUNED_PLAN_H
#define SOFTMAX_TUNED_PLAN_H

#include "paths.h"

struct gpu_t {
    int id = -1;
    int sms = 1;
    int sm_threads = 2048; // cudaDevAttrMaxThreadsPerMultiProcessor
    int clusters = 0;      // cudaDevAttrClusterLaunch: thread-block clusters (sm_90 and later)
    int cc_major = 0;      // compute capability: bulk copies need 9 or later
    int smem_optin = 0;    // cudaDevAttrMaxSharedMemoryPerBlockOptin: one CTA's most
    int smem_sm = 0;       // cudaDevAttrMaxSharedMemoryPerMultiprocessor: all CTAs of an SM
    int smem_reserved = 0; // cudaDevAttrReservedSharedMemoryPerBlock: the system's share a CTA
    int coop = 0;          // cudaDevAttrCooperativeLaunch
    // DRAM's theoretical bytes per SM clock per SM (memory clock x 2 x bus width over SM clock
    // x SMs; 0 where the attributes are missing): about 12.8 on an H100 SXM, 15.7 on an H200
    double dram_bytes_per_sm_clock = 0;
};

// The current device's attributes (cached per device), as the gpu suite's overrides see them.
cudaError_t current_gpu(gpu_t *g);

// With REDUCE_VERBOSE=1: "WHO: ROWS x COLS (B-byte elements, P a slot): PATH, K CTA(s) a row, T
// threads each" on stderr, once per shape and path.
void say_plan(const char *who, size_t rows, size_t cols, const char *path, int chunks, int threads,
              size_t elem_bytes, int pack);

enum path_kind { PATH_CTA, PATH_SPLIT };

struct plan_t {
    path_kind path;
    row_plan p;
};

// Slots of P a row of `cols` takes (aligned: every row starts on a 16-byte boundary).
size_t row_slots(size_t cols, int P, bool aligned);
// The split path's plan for rows of `slots` slots, per_thread slots a thread.
plan_t split_plan(const gpu_t &g, size_t rows, size_t slots, int per_thread);
// The CTA path's plan (a CTA or a cluster of up to max_cluster a row), else the split path's.
plan_t plan_rows(const gpu_t &g, int max_cluster, size_t rows, size_t cols, int P, int per_thread,
                 int max_threads, bool aligned);
// The largest cluster of the CTA path's kernel on the current device: 8, or 1 (none).
int cluster_limit(const void *kernel);
// Whether a cluster wider than an SM beats the split path's two kernels.
bool cluster_pays(const gpu_t &g, size_t rows, int chunks, int threads);
// Whether a flag exchange of `chunks` CTAs a row gathers (line: 32 on the stream kernel, 64 in
// registers).
bool flag_gathers(int chunks, int line);
// Whether split plan p runs in one cooperative launch (flags) on the CTAs of split.cu.
template <typename T, bool LOG, int P>
bool flags_fit(const gpu_t &g, size_t rows, const plan_t &p, const void *d_ws);

// The stream path's plan, and the form of its kernel; false where it does not apply.
template <typename T, bool LOG>
bool plan_stream(const gpu_t &g, size_t rows, size_t cols, stream_plan *sp, stream_form *form);
// Split plan p on the stream kernel in one cooperative launch; false where it does not fit.
template <typename T, bool LOG>
bool plan_stream_flags(const gpu_t &g, size_t rows, size_t cols, const plan_t &p, const void *d_ws,
                       stream_plan *sp, stream_form *form);
// Whether the dispatcher sends a shape whose CTA-path plan is p to the stream path.
bool stream_wanted(const gpu_t &g, const plan_t &p);
// The stream plan's words in the REDUCE_VERBOSE line.
const char *stream_words(const stream_plan &sp);

#endif // SOFTMAX_TUNED_PLAN_H
