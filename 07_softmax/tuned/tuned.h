// SPDX-License-Identifier: MIT
// 07_softmax/tuned/tuned.h: the production softmax of the tuned/ files, which the `dispatch`
// variant of softmax.cu's table calls. Float, half and bfloat16 in and out, float arithmetic.
#ifndef SOFTMAX_TUNED_H
#define SOFTMAX_TUNED_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// Any shape with rows, cols >= 1, any pointer aligned to its element size.
int supports_dispatch(size_t rows, size_t cols);

// Scratch the dispatcher may use (the split path on GPUs without clusters, or rows longer than
// a cluster holds): an upper bound for any alignment of the pointers, on the current device (the
// plan depends on its SM count: size it on the device that launches); 0 when none is needed.
// It must be 8-byte aligned (cudaMalloc's is; else the launch returns cudaErrorInvalidValue) and
// zero before its first launch (cudaMemset once); after that one scratch serves any sequence of
// shapes, dtypes and ops on one stream, but not two launches that may run at the same time
// (other streams). Every launch leaves it zero, one refused with an error too.
size_t workspace_dispatch_f32(size_t rows, size_t cols);
size_t workspace_dispatch_16(size_t rows, size_t cols);

// Softmax (and _log: log-softmax) of each row of a row-major [rows, cols] matrix, on stream s.
// Return the launch error; never synchronize or allocate.
cudaError_t launch_dispatch_f32(const void *d_in, void *d_out, size_t rows, size_t cols,
                                void *d_workspace, cudaStream_t s);
cudaError_t launch_dispatch_f32_log(const void *d_in, void *d_out, size_t rows, size_t cols,
                                    void *d_workspace, cudaStream_t s);
cudaError_t launch_dispatch_f16(const void *d_in, void *d_out, size_t rows, size_t cols,
                                void *d_workspace, cudaStream_t s);
cudaError_t launch_dispatch_f16_log(const void *d_in, void *d_out, size_t rows, size_t cols,
                                    void *d_workspace, cudaStream_t s);
cudaError_t launch_dispatch_bf16(const void *d_in, void *d_out, size_t rows, size_t cols,
                                 void *d_workspace, cudaStream_t s);
cudaError_t launch_dispatch_bf16_log(const void *d_in, void *d_out, size_t rows, size_t cols,
                                     void *d_workspace, cudaStream_t s);

// The row lengths at which the stream path's shared-memory plan changes on the current GPU, for
// elements of elem_bytes (2 or 4): the longest row one CTA holds twice (two buffers, a plan of
// looping CTAs only), once, and that two CTAs hold. Up to max values into cols, shortest first;
// returns how many (0 where the GPU has no stream path). For the tests of each boundary.
size_t dispatch_smem_edges(size_t elem_bytes, size_t *cols, size_t max);

#ifdef __cplusplus
}
#endif

// The tuned variants, the last rows of softmax.cu's variant table.
#define SOFTMAX_TUNED_VARIANTS                                                            \
    {"dispatch", "tuned: packs, any alignment, clusters for long rows, f32/f16/bf16", OP_SOFTMAX,  \
     DT_F32, DT_F32, supports_dispatch, workspace_dispatch_f32, launch_dispatch_f32},              \
    {"dispatch", "tuned: packs, any alignment, clusters for long rows, f32/f16/bf16", OP_LOGSOFTMAX,\
     DT_F32, DT_F32, supports_dispatch, workspace_dispatch_f32, launch_dispatch_f32_log},          \
    {"dispatch", "tuned: packs, any alignment, clusters for long rows, f32/f16/bf16", OP_SOFTMAX,  \
     DT_F16, DT_F16, supports_dispatch, workspace_dispatch_16, launch_dispatch_f16},               \
    {"dispatch", "tuned: packs, any alignment, clusters for long rows, f32/f16/bf16", OP_LOGSOFTMAX,\
     DT_F16, DT_F16, supports_dispatch, workspace_dispatch_16, launch_dispatch_f16_log},           \
    {"dispatch", "tuned: packs, any alignment, clusters for long rows, f32/f16/bf16", OP_SOFTMAX,  \
     DT_BF16, DT_BF16, supports_dispatch, workspace_dispatch_16, launch_dispatch_bf16},            \
    {"dispatch", "tuned: packs, any alignment, clusters for long rows, f32/f16/bf16", OP_LOGSOFTMAX,\
     DT_BF16, DT_BF16, supports_dispatch, workspace_dispatch_16, launch_dispatch_bf16_log},

#endif // SOFTMAX_TUNED_H
