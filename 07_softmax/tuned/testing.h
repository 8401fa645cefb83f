/* SPDX-License-Identifier: MIT */
/* 07_softmax/tuned/testing.h: for the gpu suite only. Plan choices that a test must force, to
 * reach on one GPU the plans another GPU takes by default (no clusters before sm_90, a ring where
 * DRAM is fast) or a path's other form (the two kernels where the one launch fits), and the
 * stream path's shared-memory edges, so that it can test each from both sides. Nothing else
 * calls these: a program's plans depend on its shapes and its GPU alone. */
#ifndef SOFTMAX_TUNED_TESTING_H
#define SOFTMAX_TUNED_TESTING_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { TUNED_AUTO = 0, TUNED_ON, TUNED_OFF } tuned_choice; /* AUTO: the planner's rule */

typedef struct {
    tuned_choice clusters;   /* OFF: plan as on a GPU without clusters (the split path) */
    tuned_choice flags;      /* OFF: split plans in two kernels, never one cooperative launch */
    tuned_choice ring;       /* ON: a ring wherever a chunk is over half a CTA's shared memory
                                and rows exceed the rings resident; OFF: never */
    tuned_choice ring_early; /* 16-bit rings: ON asks for the next row's rest during this row's
                                writes, OFF after them (float rings always after) */
    tuned_choice bulk_out;   /* stream path: outputs by the TMA (ON) or by the threads (OFF) */
    int stream_flags_chunks; /* the split plan on the stream kernel: K CTAs a row, from 2 to the
                                split plan's (0 or outside: the split plan's) */
    int gather_max;          /* flag launches: rows of more CTAs than this merge (0: the
                                planner's lines, 32 on the stream kernel, 64 in registers) */
} softmax_tuned_overrides;

/* Every later plan of the tuned variants follows o; NULL puts the planner's rules back. */
void softmax_tuned_set_overrides(const softmax_tuned_overrides *o);

/* The row lengths at which the stream path's shared-memory plan changes on the current GPU, for
 * elements of elem_bytes (2 or 4): the longest row of which one CTA holds half its shared memory
 * or less (above it, the ring), the longest one CTA holds, and the longest two CTAs hold. Up to
 * max values into cols, shortest first; returns how many (0 where the GPU has no stream path). */
size_t softmax_tuned_smem_edges(size_t elem_bytes, size_t *cols, size_t max);

#ifdef __cplusplus
}
#endif

#endif /* SOFTMAX_TUNED_TESTING_H */
