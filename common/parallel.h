/* SPDX-License-Identifier: MIT */
/* parallel.h: a parallel for over the host's cores, for references and
   checks of large shapes (a 2^28-element reference takes seconds on one core). */
#ifndef PARALLEL_H
#define PARALLEL_H

#include <stddef.h>

/* fn(ctx, begin, end, part) handles items [begin, end); part numbers the
   contiguous chunks 0 .. parts-1 in index order. */
typedef void (*range_fn)(void *ctx, size_t begin, size_t end, int part);

/* Chunks parallel_for will use for n items (1 when n < 2 * min_chunk). */
int parallel_parts(size_t n, size_t min_chunk);

/* Runs fn over [0, n) in parallel_parts(n, min_chunk) contiguous chunks, one
   thread each, and returns when all are done. Falls back to running the
   chunks one after another if a thread cannot be started. Cannot fail. */
void parallel_for(size_t n, size_t min_chunk, range_fn fn, void *ctx);

#endif /* PARALLEL_H */
