/* SPDX-License-Identifier: MIT */
/* baselines.h: what the stages are measured against, in the same run.
 *   stage_baselines: cub_device_reduce (OP_SUM), cub_segmented_reduce and
 *   cublas_gemv (OP_ROWSUM), descriptors of the stage shape, checked like any
 *   variant. A shape whose counts the installed library cannot take (CUB and
 *   cuBLAS versions that take int) is not supported, with a one-line note.
 *   The ceilings: a read-only 16-byte streaming kernel (reductions) and a
 *   device-to-device copy (softmax), each with a check of its own; and a
 *   write-only streaming kernel, which with the read-only one gives softmax's
 *   serialised floor (a row is read whole before any of it is written).
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

/* Write-only stream: writes `bytes` bytes to d_out with 16-byte stores (byte stores for a tail
   of under 16 bytes), as many blocks as fit on the GPU at once. Byte k gets byte k % 4 (little
   end first) of write_stream_word(k / 4), so a check can tell a byte left out or written to
   the wrong place. d_out must be 16-byte aligned. */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline uint32_t write_stream_word(size_t i)
{
    /* an odd multiplier (Knuth's 2^32 / golden ratio): no two words of a 2^32 span alike */
    return (uint32_t)i * 2654435761u + 0x9e3779b9u;
}
cudaError_t write_stream_launch(void *d_out, size_t bytes, cudaStream_t s);

/* Device-to-device copy of `bytes` (cudaMemcpyAsync): moves 2 x bytes. */
cudaError_t copy_launch(const void *d_in, void *d_out, size_t bytes, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif /* BASELINES_H */
