// SPDX-License-Identifier: MIT
// 07_softmax/tuned/tuned.h: the production softmax of the tuned/ files. Float, half and bfloat16
// in and out, float arithmetic. `dispatch` picks a path for each shape (plan.cu); each path is
// also a variant of its own, for the tables, the tests and the grader:
//
//   tuned_warp    rows of at most 1024 columns: a group of 1..32 lanes a row (warp.cu)
//   tuned_cta     rows of over 1024 columns that one CTA, or a cluster of up to 8 (sm_90),
//                 holds in registers (cta.cu)
//   tuned_split   rows of over 16384 columns in CTAs that are no cluster: two kernels, or one
//                 cooperative launch where every CTA fits the GPU at once (split.cu)
//   tuned_stream  sm_90 with clusters, rows of over 8192 columns: the chunks in shared memory by
//                 bulk copies, where rows x CTAs a row reach the SM count, else the split plan on
//                 that kernel in one launch where it fits (stream.cu); rows whose input and
//                 output sit at different 16-byte phases take dispatch's plans
//
// Each supports() answers for the current device. Every launcher returns the launch error and
// never synchronizes or allocates.
#ifndef SOFTMAX_TUNED_H
#define SOFTMAX_TUNED_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// Scratch for dispatch (the split path on GPUs without clusters, or rows longer than a cluster
// holds), and for tuned_split and tuned_stream: an upper bound for any alignment of the
// pointers, on the current device (the plan depends on its SM count: size it on the device that
// launches); 0 when none is needed. It must be 8-byte aligned (cudaMalloc's is; else the launch
// returns cudaErrorInvalidValue) and zero before its first launch (cudaMemset once); after that
// one scratch serves any sequence of shapes, dtypes, ops and variants on one stream, but not two
// launches that may run at the same time (other streams). Every launch leaves it zero, one
// refused with an error too.
size_t workspace_dispatch_f32(size_t rows, size_t cols);
size_t workspace_dispatch_16(size_t rows, size_t cols);
size_t workspace_tuned_f32(size_t rows, size_t cols);
size_t workspace_tuned_16(size_t rows, size_t cols);

// Softmax (and _log: log-softmax) of each row of a row-major [rows, cols] matrix, on stream s,
// and where each variant applies, for its dtype and op: dispatch for any rows, cols >= 1 and any
// pointers aligned to their element size.
#define SOFTMAX_TUNED_DECLARE(name, suffix)                                                       \
    cudaError_t launch_##name##_##suffix(const void *d_in, void *d_out, size_t rows, size_t cols, \
                                         void *d_workspace, cudaStream_t s);                      \
    int supports_##name##_##suffix(size_t rows, size_t cols);
#define SOFTMAX_TUNED_DECLARE_ALL(name)  \
    SOFTMAX_TUNED_DECLARE(name, f32)     \
    SOFTMAX_TUNED_DECLARE(name, f32_log) \
    SOFTMAX_TUNED_DECLARE(name, f16)     \
    SOFTMAX_TUNED_DECLARE(name, f16_log) \
    SOFTMAX_TUNED_DECLARE(name, bf16)    \
    SOFTMAX_TUNED_DECLARE(name, bf16_log)
SOFTMAX_TUNED_DECLARE_ALL(dispatch)
SOFTMAX_TUNED_DECLARE_ALL(tuned_warp)
SOFTMAX_TUNED_DECLARE_ALL(tuned_cta)
SOFTMAX_TUNED_DECLARE_ALL(tuned_split)
SOFTMAX_TUNED_DECLARE_ALL(tuned_stream)
#undef SOFTMAX_TUNED_DECLARE_ALL
#undef SOFTMAX_TUNED_DECLARE

#ifdef __cplusplus
}
#endif

// The tuned variants, the last rows of softmax.cu's variant table (OP_* and DT_* of
// common/stage.h): each variant in each dtype and op, with its scratch (ws32, ws16: NULL for
// none).
#define SOFTMAX_TUNED_ROW(name, idea, op, dt, ws, suffix) \
    {#name, idea, op, dt, dt, supports_##name##_##suffix, ws, launch_##name##_##suffix},
#define SOFTMAX_TUNED_ROWS(name, idea, ws32, ws16)                      \
    SOFTMAX_TUNED_ROW(name, idea, OP_SOFTMAX, DT_F32, ws32, f32)        \
    SOFTMAX_TUNED_ROW(name, idea, OP_LOGSOFTMAX, DT_F32, ws32, f32_log) \
    SOFTMAX_TUNED_ROW(name, idea, OP_SOFTMAX, DT_F16, ws16, f16)        \
    SOFTMAX_TUNED_ROW(name, idea, OP_LOGSOFTMAX, DT_F16, ws16, f16_log) \
    SOFTMAX_TUNED_ROW(name, idea, OP_SOFTMAX, DT_BF16, ws16, bf16)      \
    SOFTMAX_TUNED_ROW(name, idea, OP_LOGSOFTMAX, DT_BF16, ws16, bf16_log)
#define SOFTMAX_TUNED_VARIANTS                                                                    \
    SOFTMAX_TUNED_ROWS(dispatch, "tuned: the path and plan for each shape, f32/f16/bf16",         \
                       workspace_dispatch_f32, workspace_dispatch_16)                             \
    SOFTMAX_TUNED_ROWS(tuned_warp, "tuned warp path: 1..32 lanes a row, packs, rows a group",     \
                       NULL, NULL)                                                                \
    SOFTMAX_TUNED_ROWS(tuned_cta, "tuned CTA path: a CTA or a cluster a row, in registers", NULL, \
                       NULL)                                                                      \
    SOFTMAX_TUNED_ROWS(tuned_split, "tuned split path: CTAs a row swap states in memory",         \
                       workspace_tuned_f32, workspace_tuned_16)                                   \
    SOFTMAX_TUNED_ROWS(tuned_stream, "tuned stream path: chunks in smem by the TMA (sm_90)",      \
                       workspace_tuned_f32, workspace_tuned_16)

#endif // SOFTMAX_TUNED_H
