/* SPDX-License-Identifier: MIT */
/* baselines.h: what the stages are measured against, in the same run.
 *   stage_baselines: cub_device_reduce (OP_SUM), cub_segmented_reduce and
 *   cublas_gemv (OP_ROWSUM), descriptors of the stage shape, checked like any
 *   variant. A shape whose counts the installed library cannot take (CUB and
 *   cuBLAS versions that take int) is not supported, with a one-line note.
 *   The ceilings: a read-only 16-byte streaming kernel (reductions) and a
 *   device-to-device copy (softmax), each with a check of its own.
 */
#ifndef BASELINES_H
#define BASELINES_H

#include <stddef.h>
#include <stdint.h>
#include "stage.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const stage_t stage_baselines;

/* Read-only stream: reads `bytes` from d_in once with 16-byte loads and
   writes one 32-bit XOR of its words per block into d_block_xor, so nothing
   can be optimised away and the result is checkable. d_in must be 16-byte
   aligned. read_stream_blocks(bytes) is the number of words it writes. */
size_t read_stream_blocks(size_t bytes);
cudaError_t read_stream_launch(const void *d_in, size_t bytes, uint32_t *d_block_xor, cudaStream_t s);

/* Device-to-device copy of `bytes` (cudaMemcpyAsync): moves 2 x bytes. */
cudaError_t copy_launch(const void *d_in, void *d_out, size_t bytes, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif /* BASELINES_H */
