/* SPDX-License-Identifier: MIT */
/* stage.h: the contract between a stage's kernels and the common driver.
 *
 * A stage is one folder with one .cu file that exports one stage_t with C
 * linkage, named stage_<dir> (stage_03_shuffle). Tests, the grader and the
 * plots find variants only through these descriptors, so the names below
 * are the contract: change them everywhere at once or not at all.
 */
#ifndef STAGE_H
#define STAGE_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* OP_ALLREDUCE: the element-wise sum across GPUs of 08_all_reduce (common/multi_gpu.h); no
   variant_t has it: a one-GPU stage never sees it. */
typedef enum { OP_SUM, OP_ROWSUM, OP_SOFTMAX, OP_LOGSOFTMAX, OP_ALLREDUCE } op_kind;
typedef enum { DT_F32, DT_F16, DT_BF16 } dtype;

typedef struct {
    const char *name;   /* short, snake_case, unique in its stage: "sequential" */
    const char *idea;   /* one line: what this variant does differently */
    op_kind op;
    dtype in_type, out_type;
    /* 1 if this variant handles the shape, else 0 (e.g. warp softmax: cols <= 1024).
       May query the current device (cooperative launch, shared memory size). */
    int (*supports)(size_t rows, size_t cols);
    /* Device scratch the launcher needs; 0 if none. The caller allocates it
       once per shape and zeroes it once; a launcher that relies on zeroed
       scratch (a counter) must leave it zeroed when its work completes. */
    size_t (*workspace_bytes)(size_t rows, size_t cols);
    /* Asynchronous on stream s: no allocation, no device-wide sync, no exit.
       OP_SUM: rows == 1, cols == n, writes one value.  OP_ROWSUM: writes rows values.
       OP_SOFTMAX / OP_LOGSOFTMAX: writes rows*cols values.  Returns the launch error.
       d_in may be any address aligned to its element size (not only 16 bytes). */
    cudaError_t (*launch)(const void *d_in, void *d_out, size_t rows, size_t cols,
                          void *d_workspace, cudaStream_t s);
} variant_t;

typedef struct {
    const char *dir;            /* "03_shuffle" */
    const char *title;          /* "Warp shuffle" */
    const variant_t *variants;
    size_t n_variants;
} stage_t;

/* Every stage's main() is this one call. Returns the process exit code:
   0 all checks passed, 1 a check failed, 2 usage error, 3 CUDA/device error. */
int stage_main(const stage_t *stage, int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif /* STAGE_H */
