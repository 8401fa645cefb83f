/* SPDX-License-Identifier: MIT */
/* multi_gpu.c: the host logic of the multi-GPU program that needs no GPU: --gpus and --ranks, the
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

/* The value of one --FLAG V or --FLAG=V at argv[*i] into *out (1 .. TEAM_MAX_GPUS): 1 when
   argv[*i] is that flag (*i moves past its value), 0 when it is not, -1 on a bad value. */
static int take_count(int argc, char **argv, int *i, const char *flag, const char *what,
                      int *out, char *err, size_t err_len)
{
    const size_t len = strlen(flag);
    const char *val = NULL;
    if (strcmp(argv[*i], flag) == 0) {
        if (*i + 1 >= argc) {
            snprintf(err, err_len, "%s needs a value: the number of %s, 1 .. %d", flag, what,
                     TEAM_MAX_GPUS);
            return -1;
        }
        val = argv[++*i];
    } else if (strncmp(argv[*i], flag, len) == 0 && argv[*i][len] == '=') {
        val = argv[*i] + len + 1;
    } else {
        return 0;
    }
    char *end = NULL;
    errno = 0;
    long g = (*val >= '0' && *val <= '9') ? strtol(val, &end, 10) : 0;
    if (errno || !end || *end != '\0' || g < 1 || g > TEAM_MAX_GPUS) {
        snprintf(err, err_len, "%s '%s': expected a number of %s, 1 .. %d", flag, val, what,
                 TEAM_MAX_GPUS);
        return -1;
    }
    *out = (int)g;
    return 1;
}

int take_team_flags(int *argc, char **argv, int *gpus, int *ranks, char *err, size_t err_len)
{
    *gpus = *ranks = 0;
    if (err_len) err[0] = '\0';
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        int took = take_count(*argc, argv, &i, "--gpus", "GPUs", gpus, err, err_len);
        if (took == 0) took = take_count(*argc, argv, &i, "--ranks", "ranks", ranks, err, err_len);
        if (took < 0) return EXIT_USAGE;
        if (took == 0) argv[out++] = argv[i];
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
