/* SPDX-License-Identifier: MIT */
/* multi_gpu.c: the host logic of the multi-GPU program that needs no GPU: the --gpus flag, the
   bus bytes of an all-reduce, its inputs and its checks. */
#include "multi_gpu.h"
#include "common.h"
#include "data.h"
#include "parallel.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int take_gpus_flag(int *argc, char **argv, int *gpus, char *err, size_t err_len)
{
    *gpus = 0;
    if (err_len) err[0] = '\0';
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        const char *val = NULL;
        if (strcmp(argv[i], "--gpus") == 0) {
            if (i + 1 >= *argc) {
                snprintf(err, err_len, "--gpus needs a value: the number of GPUs, 1 .. %d",
                         TEAM_MAX_GPUS);
                return EXIT_USAGE;
            }
            val = argv[++i];
        } else if (strncmp(argv[i], "--gpus=", 7) == 0) {
            val = argv[i] + 7;
        } else {
            argv[out++] = argv[i];
            continue;
        }
        char *end = NULL;
        errno = 0;
        long g = (*val >= '0' && *val <= '9') ? strtol(val, &end, 10) : 0;
        if (errno || !end || *end != '\0' || g < 1 || g > TEAM_MAX_GPUS) {
            snprintf(err, err_len, "--gpus '%s': expected a number of GPUs, 1 .. %d", val,
                     TEAM_MAX_GPUS);
            return EXIT_USAGE;
        }
        *gpus = (int)g;
    }
    *argc = out;
    argv[out] = NULL;
    return 0;
}

size_t allreduce_bytes(size_t n, int gpus)
{
    if (gpus <= 1) return 2 * n * sizeof(float);
    return 2 * (size_t)(gpus - 1) * n * sizeof(float) / (size_t)gpus;
}

const char *team_set_name(int set) { return set == TEAM_SET_INTS ? "signed ints" : "random"; }

/* a seed of its own for each (set, rank): splitmix64 mixes it, so neighbouring seeds give
   unrelated data */
static uint64_t rank_seed(uint64_t seed, int set, int rank)
{
    return seed * 0x100000001B3ULL + 7919u * (uint64_t)set + 104729u * (uint64_t)(rank + 1);
}

void team_fill(float *x, size_t n, int set, int rank, uint64_t seed)
{
    if (set == TEAM_SET_INTS)
        fill_signed_ints(x, n, rank_seed(seed, set, rank));
    else
        fill_uniform(x, n, 0.0f, 1.0f, rank_seed(seed, set, rank));
}

typedef struct {
    double *ref;
    const float *x;
} acc_ctx;

static void acc_range(void *p, size_t begin, size_t end, int part)
{
    (void)part;
    acc_ctx *c = p;
    for (size_t i = begin; i < end; i++) c->ref[i] += c->x[i];
}

void team_accumulate(double *ref, const float *x, size_t n)
{
    acc_ctx c = {ref, x};
    parallel_for(n, (size_t)1 << 20, acc_range, &c);
}

check_result team_check(const float *got, const double *ref, size_t n, int gpus, int set)
{
    if (set == TEAM_SET_INTS) return check_exact(got, ref, n);
    /* the inputs are non-negative: sum |x| is the reference itself; the longest chain of adds
       any variant makes is G - 1 (a ring passes a partial sum through every GPU) */
    return check_sums_against(got, ref, ref, n, (size_t)(gpus > 0 ? gpus : 1),
                              (size_t)(gpus > 1 ? gpus - 1 : 0));
}
