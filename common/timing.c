/* SPDX-License-Identifier: MIT */
#include "timing.h"
#include "common.h"

#include <stdlib.h>

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

cudaError_t time_reps(rep_fn fn, void *fn_ctx, prep_fn prep, void *prep_ctx, int warmup, int iters,
                      cudaStream_t s, timing_t *out)
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
        if (e == cudaSuccess) e = fn(fn_ctx, s);
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
