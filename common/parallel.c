/* SPDX-License-Identifier: MIT */
#include "parallel.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

/* More threads than this gain nothing on the memory-bound loops they run. */
#define MAX_PARTS 32

typedef struct {
    range_fn fn;
    void *ctx;
    size_t begin, end;
    int part;
} chunk;

static void *run_chunk(void *p)
{
    chunk *c = p;
    c->fn(c->ctx, c->begin, c->end, c->part);
    return NULL;
}

int parallel_parts(size_t n, size_t min_chunk)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int parts = cores < 1 ? 1 : cores > MAX_PARTS ? MAX_PARTS : (int)cores;
    if (min_chunk < 1) min_chunk = 1;
    if ((size_t)parts > n / min_chunk) parts = (int)(n / min_chunk);
    return parts < 1 ? 1 : parts;
}

void parallel_for(size_t n, size_t min_chunk, range_fn fn, void *ctx)
{
    int parts = parallel_parts(n, min_chunk);
    if (parts == 1) {
        fn(ctx, 0, n, 0);
        return;
    }
    chunk c[MAX_PARTS];
    pthread_t t[MAX_PARTS];
    int started[MAX_PARTS] = {0};
    for (int i = 0; i < parts; i++) {
        c[i] = (chunk){fn, ctx, n * (size_t)i / (size_t)parts, n * (size_t)(i + 1) / (size_t)parts, i};
        if (i > 0) started[i] = pthread_create(&t[i], NULL, run_chunk, &c[i]) == 0;
    }
    run_chunk(&c[0]);
    for (int i = 1; i < parts; i++) {
        if (started[i]) pthread_join(t[i], NULL);
        else run_chunk(&c[i]);
    }
}
