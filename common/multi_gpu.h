/* SPDX-License-Identifier: MIT */
/* multi_gpu.h: one process, several GPUs (08_all_reduce).
 *
 * The team (the local GPUs, one stream each, and which pairs have peer access), the descriptor a
 * multi-GPU stage exports (team_stage: variants that launch on every GPU at once), how an array
 * is cut into parts, and the inputs, references and checks of an all-reduce. The program is
 * team_main (multi_gpu_driver.c): the same flags, exit codes, CSV and timing as every stage,
 * plus --gpus G.
 *
 * How an all-reduce fills the CSV schema (DESIGN.md "Results schema"):
 *   op allreduce, rows = G (the GPUs), cols = n (the floats each GPU holds), dtype f32;
 *   bytes = allreduce_bytes(n, G): the bytes each GPU's link must carry by the nccl-tests bus
 *   definition, 2(G-1)/G x 4n, so that gbps is the bus bandwidth (busbw = algbw x 2(G-1)/G,
 *   algbw = 4n / time); ceiling_gbps = the peer copy measured in the same run (baseline
 *   peer_copy: every GPU copies its 4n bytes to the next one at once, cudaMemcpyPeerAsync).
 *   One GPU: an all-reduce is a copy: bytes = 2 x 4n (read and written), against the
 *   device-to-device copy (baseline copy).
 *   sharded_sum is a full sum: op sum, rows = G, cols = n (the whole array, split across the
 *   GPUs), bytes = 4n + 4, against every GPU reading its part at once (baseline read_stream
 *   with rows = G).
 */
#ifndef MULTI_GPU_H
#define MULTI_GPU_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "check.h"
#include "stage.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most GPUs one team drives (an HGX board holds 8; 16 leaves room). */
#define TEAM_MAX_GPUS 16

typedef struct {
    int count;                          /* G: ranks 0 .. G-1 */
    int gpus;                           /* the devices they use: 0 .. gpus-1 */
    int dev[TEAM_MAX_GPUS];             /* the CUDA device of each rank: r mod gpus */
    cudaStream_t stream[TEAM_MAX_GPUS]; /* one non-blocking stream a rank, on its device */
    /* peer[a][b]: kernels on rank a may load from and store to rank b's memory (the same GPU,
       or peer access enabled); 0: copies between them are staged by the driver through host
       memory */
    unsigned char peer[TEAM_MAX_GPUS][TEAM_MAX_GPUS];
} gpu_team;

typedef struct {
    const char *name; /* snake_case, unique in the stage: "ring" */
    const char *idea; /* one line */
    /* OP_SUM: n floats split across the ranks (rank r holds part r of part_begin), their total
       on every rank (d_out[r][0]). OP_ALLREDUCE: n floats on every rank, their element-wise sum
       in d_out[r][0 .. n) on every rank, the same bits everywhere. */
    op_kind op;
    /* Device scratch rank `rank` needs at n, 0 if none. The caller allocates it and zeroes it
       once; a launch that relies on zeroed scratch (a ticket) leaves it zeroed. */
    size_t (*workspace_bytes)(const gpu_team *t, int rank, size_t n);
    /* Asynchronous: enqueues every rank's work on its stream and returns; d_in[r] and d_out[r]
       are on rank r, d_in[r] is not written. No host synchronisation, no exit; the nccl
       variant's first launch on a team creates its communicators. Returns the first error. */
    cudaError_t (*launch)(const gpu_team *t, const float *const *d_in, float *const *d_out,
                          size_t n, void *const *d_ws);
    /* 1: needs a GPU a rank (a library that refuses two ranks on one GPU); such a variant is
       left out of a team with more ranks than GPUs */
    int gpu_a_rank;
} team_variant;

typedef struct {
    const char *dir; /* "08_all_reduce" */
    const char *title;
    const team_variant *variants;
    size_t n_variants;
    /* Before any launch on team t (events); 0 or the error. close frees what open and the
       launches made (communicators). */
    cudaError_t (*open)(const gpu_team *t);
    void (*close)(void);
    /* "NCCL 2.28.9", or NULL when the build has none */
    const char *(*library)(void);
    /* NULL, or one line: the variant this build lacks and how to get it */
    const char *missing;
    /* the library's own words for the last failed launch ("" if none) */
    const char *(*last_error)(void);
} team_stage;

/* Where part k of n elements cut into `parts` starts: k n / parts rounded down to a multiple of
   4 floats, so that every part of a 16-byte aligned buffer starts on a 16-byte boundary.
   part_begin(0, ..) = 0, part_begin(parts, parts, n) = n, never decreasing in k; a part may be
   empty (n < 4 parts). Shards of sharded_sum, chunks and slices of the ring all use it. */
static inline size_t part_begin(size_t k, size_t parts, size_t n)
{
    return k >= parts ? n : k * n / parts / 4 * 4;
}

/* ---- pure host logic (multi_gpu.c; the host suite tests it) ---------------------------- */

/* Removes "--gpus G" and "--ranks R" (or --gpus=G, --ranks=R) from argv (argc shrinks, order
   kept); *gpus = G and *ranks = R (1 .. TEAM_MAX_GPUS), 0 for a flag not given. Returns 0, or
   EXIT_USAGE with one line in err. */
int take_team_flags(int *argc, char **argv, int *gpus, int *ranks, char *err, size_t err_len);

/* The bytes an all-reduce of n floats on G GPUs counts: 2(G-1)/G x 4n (rounded down) for
   G >= 2, 2 x 4n for G = 1 (a copy). */
size_t allreduce_bytes(size_t n, int gpus);

/* The two inputs of every all-reduce check: */
enum { TEAM_SET_INTS, TEAM_SET_RANDOM, TEAM_SETS };
/* Rank r's n inputs of a set: TEAM_SET_INTS nonzero integers +-1 .. +-8 (any sum of up to 16
   of them is exact in float, and every rank counts at every element: a rank left out, or
   added twice, changes every output); TEAM_SET_RANDOM uniform floats in [0, 1). Element i
   depends only on (set, rank, i, seed). */
void team_fill(float *x, size_t n, int set, int rank, uint64_t seed);
/* "signed ints" or "random": named in a failure */
const char *team_set_name(int set);
/* ref[i] += x[i] for i < n, in double (the reference is built rank by rank as inputs are
   made). */
void team_accumulate(double *ref, const float *x, size_t n);
/* One rank's all-reduce output against ref (the sum of every rank's inputs): exact for
   TEAM_SET_INTS; within 2 (G - 1 + ceil(log2 G)) u ref[i] for TEAM_SET_RANDOM (non-negative
   inputs, any order of G - 1 adds). A NaN (an element never written) always fails. */
check_result team_check(const float *got, const double *ref, size_t n, int gpus, int set);

/* ---- the team and the program (multi_gpu_driver.c) ------------------------------------- */

/* Opens a team of `ranks` ranks (0: one a GPU) on the first `gpus` GPUs (0: all, at most
   TEAM_MAX_GPUS, and no more than the ranks), rank r on GPU r mod gpus: a stream a rank and peer access between every pair
   of GPUs that has it. With more ranks than GPUs, ranks share a GPU and what they send each
   other stays in its memory: the algorithm's every step, not the links' speed. Returns 0;
   EXIT_CUDA with a line in err (no device, a CUDA error); EXIT_USAGE when more GPUs are asked
   for than are present, or fewer ranks than the GPUs asked for (err says which). */
int team_open(gpu_team *t, int gpus, int ranks, char *err, size_t err_len);
/* 1 when some ranks of t share a GPU */
static inline int team_shared(const gpu_team *t) { return t->count > t->gpus; }
/* Waits for every rank's stream; the first error. */
cudaError_t team_sync(const gpu_team *t);
void team_close(gpu_team *t);

/* The program of a multi-GPU stage: DESIGN.md's program contract (flags, exit codes, CSV),
   with --gpus G. Returns the exit code. */
int team_main(const team_stage *st, int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif /* MULTI_GPU_H */
