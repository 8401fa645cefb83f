/* SPDX-License-Identifier: MIT */
/* timing.h: CUDA-event timing of repeated launches, and its statistics. */
#ifndef TIMING_H
#define TIMING_H

#include <stddef.h>
#include <cuda_runtime_api.h>

typedef struct {
    double median_us;
    double min_us;
    int reps;
} timing_t;

/* One repetition of the work being timed, enqueued on s. */
typedef cudaError_t (*rep_fn)(void *ctx, cudaStream_t s);
/* Work enqueued before each repetition, outside the timed region (an L2
   flush); may be NULL. */
typedef cudaError_t (*prep_fn)(void *ctx, cudaStream_t s);

/* Runs warmup untimed repetitions, then iters repetitions each bracketed by
   its own pair of events, prep() before each one outside the events.
   label names what is timed ("05_packed/packed_sum/sum/f32"): with REDUCE_PROFILE=1 in the
   environment, each timed repetition runs inside an NVTX range of that name, between
   cudaProfilerStart() and cudaProfilerStop(), for `make profile`.
   Returns the first CUDA error (nothing is timed then), else cudaSuccess. */
cudaError_t time_reps(rep_fn fn, void *fn_ctx, prep_fn prep, void *prep_ctx, int warmup, int iters,
                      cudaStream_t s, const char *label, timing_t *out);

/* Median of v[0..n) (sorts v in place; the mean of the middle two for even n).
   n must be >= 1. */
double median_of(double *v, size_t n);
/* Smallest of v[0..n); n >= 1. */
double min_of(const double *v, size_t n);
/* GB/s (1e9 bytes per second) for bytes moved in us microseconds; 0 if us <= 0. */
double gbps_of(size_t bytes, double us);

#endif /* TIMING_H */
