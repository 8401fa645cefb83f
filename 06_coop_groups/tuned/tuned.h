// SPDX-License-Identifier: MIT
// 06_coop_groups/tuned/tuned.h: the tuned paths of 06, which the last rows of coop_groups.cu's
// variant table call: the row-sum dispatcher (rows.cu, with lap_cluster.cu and flags.cu) and
// flag_sum (flags.cu). Float in and out.
#ifndef COOP_TUNED_H
#define COOP_TUNED_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// Row sums of a row-major [rows, cols] matrix: any rows and cols >= 1 (rows < 2^31), any float
// alignment. The workspace (coop_workspace_dispatch bytes: 0 for rows of at most 512 columns)
// must be zero before the first launch; every launch leaves it zero, so one zeroing serves any
// sequence of launches on one stream. The plan depends on the current GPU (its SMs, whether it
// launches clusters): size the workspace on the device that launches.
int coop_supports_dispatch(size_t rows, size_t cols);
size_t coop_workspace_dispatch(size_t rows, size_t cols);
cudaError_t coop_launch_dispatch(const void *d_in, void *d_out, size_t rows, size_t cols,
                                 void *d_workspace, cudaStream_t s);

// The sum of n = cols floats (rows == 1), any n >= 1 and alignment, in one launch; the workspace
// as above.
int coop_supports_flag_sum(size_t rows, size_t cols);
size_t coop_workspace_flag_sum(size_t rows, size_t cols);
cudaError_t coop_launch_flag_sum(const void *d_in, void *d_out, size_t rows, size_t cols,
                                 void *d_workspace, cudaStream_t s);

#ifdef __cplusplus
}
#endif

// The tuned variants, the last rows of coop_groups.cu's variant table.
#define COOP_TUNED_VARIANTS                                                                        \
    {"dispatch",                                                                                   \
     "tuned row sums: tiles, warp tiles, blocks; few long rows: one-lap chunks, a cluster a row",  \
     OP_ROWSUM,                                                                                    \
     DT_F32,                                                                                       \
     DT_F32,                                                                                       \
     coop_supports_dispatch,                                                                       \
     coop_workspace_dispatch,                                                                      \
     coop_launch_dispatch},                                                                        \
        {"flag_sum",                                                                               \
         "tuned: one launch, tickets at the start, the last block to start adds flagged partials", \
         OP_SUM,                                                                                   \
         DT_F32,                                                                                   \
         DT_F32,                                                                                   \
         coop_supports_flag_sum,                                                                   \
         coop_workspace_flag_sum,                                                                  \
         coop_launch_flag_sum},

#endif // COOP_TUNED_H
