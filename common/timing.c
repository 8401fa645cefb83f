/* SPDX-License-Identifier: MIT */
#include "timing.h"
#include "common.h"

#include <cuda_profiler_api.h>
#include <nvtx3/nvToolsExt.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double median_of(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double min_of(const double *v, size_t n)
{
    double m = v[0];
    for (size_t i = 1; i < n; i++)
        if (v[i] < m) m = v[i];
    return m;
}

double gbps_of(size_t bytes, double us) { return us > 0 ? (double)bytes / (us * 1e3) : 0.0; }

/* One timed repetition; under REDUCE_PROFILE=1 (make profile) inside an NVTX range named
   label and between cudaProfilerStart/Stop, so that Nsight Compute started with
   --profile-from-start off sees exactly the timed launches and can name them. */
static cudaError_t profiled_rep(rep_fn fn, void *fn_ctx, cudaStream_t s, const char *label)
{
    static int profiling = -1;
    if (profiling < 0) profiling = getenv("REDUCE_PROFILE") && strcmp(getenv("REDUCE_PROFILE"), "1") == 0;
    if (!profiling) return fn(fn_ctx, s);
    nvtxRangePushA(label ? label : "unnamed");
    cudaError_t e = cudaProfilerStart();
    if (e == cudaSuccess) e = fn(fn_ctx, s);
    cudaError_t e2 = cudaProfilerStop();
    nvtxRangePop();
    return e != cudaSuccess ? e : e2;
}

cudaError_t time_reps(rep_fn fn, void *fn_ctx, prep_fn prep, void *prep_ctx, int warmup, int iters,
                      cudaStream_t s, const char *label, timing_t *out)
{
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < warmup && e == cudaSuccess; i++) {
        if (prep) e = prep(prep_ctx, s);
        if (e == cudaSuccess) e = fn(fn_ctx, s);
    }
    if (e != cudaSuccess) return e;

    cudaEvent_t *ev = xmalloc(2 * (size_t)iters * sizeof *ev);
    int made = 0;
    for (; made < 2 * iters; made++)
        if ((e = cudaEventCreate(&ev[made])) != cudaSuccess) break;
    /* each repetition has its own events: the median is over repetitions,
       and a flush between them stays outside the timed region */
    for (int i = 0; i < iters && e == cudaSuccess; i++) {
        if (prep) e = prep(prep_ctx, s);
        if (e == cudaSuccess) e = cudaEventRecord(ev[2 * i], s);
        if (e == cudaSuccess) e = profiled_rep(fn, fn_ctx, s, label);
        if (e == cudaSuccess) e = cudaEventRecord(ev[2 * i + 1], s);
    }
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e == cudaSuccess) {
        double *us = xmalloc((size_t)iters * sizeof *us);
        for (int i = 0; i < iters && e == cudaSuccess; i++) {
            float ms = 0.0f;
            e = cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]);
            us[i] = ms * 1e3;
        }
        if (e == cudaSuccess) {
            out->min_us = min_of(us, (size_t)iters);
            out->median_us = median_of(us, (size_t)iters);
            out->reps = iters;
        }
        free(us);
    }
    for (int i = 0; i < made; i++) cudaEventDestroy(ev[i]);
    free(ev);
    return e;
}
