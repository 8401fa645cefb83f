/* SPDX-License-Identifier: MIT */
/* data.h: seeded inputs, exact test patterns and float <-> half conversion. */
#ifndef DATA_H
#define DATA_H

#include <stddef.h>
#include <stdint.h>

/* splitmix64: a tiny, well-mixed generator; the same seed gives the same data
   on every machine. */
uint64_t rng_next(uint64_t *state);

/* Uniform floats in [lo, hi) with 24 random mantissa bits; element i depends
   only on (seed, i), so the fill runs on every core and gives the same data. */
void fill_uniform(float *x, size_t n, float lo, float hi, uint64_t seed);
/* Small integers in [-8, 8]: every partial sum of a few million of them is
   exact in float (|sum| < 2^24), so a correct sum must match exactly. */
void fill_small_ints(float *x, size_t n, uint64_t seed);
/* All zeros except x[pos] = 1.0: the sum must be exactly 1. */
void fill_one_hot(float *x, size_t n, size_t pos);

/* IEEE half <-> float, round to nearest even; NaN and inf preserved. */
uint16_t float_to_half(float f);
float half_to_float(uint16_t h);
/* Rounds each value to the nearest half and back, so the host keeps exactly
   what a half input holds. */
void round_to_half(float *x, size_t n);
/* Whole arrays, converted in parallel. */
void floats_to_halves(const float *f, uint16_t *h, size_t n);
void halves_to_floats(const uint16_t *h, float *f, size_t n);

#endif /* DATA_H */
