/* SPDX-License-Identifier: MIT */
/* data.h: seeded inputs, exact test patterns and float <-> half conversion. */
#ifndef DATA_H
#define DATA_H

#include <stddef.h>
#include <stdint.h>

#include "stage.h"

/* splitmix64: a tiny, well-mixed generator; the same seed gives the same data
   on every machine. */
uint64_t rng_next(uint64_t *state);

/* Uniform floats in [lo, hi) with 24 random mantissa bits; element i depends
   only on (seed, i), so the fill runs on every core and gives the same data. */
void fill_uniform(float *x, size_t n, float lo, float hi, uint64_t seed);
/* Small integers in [-8, 8]: every partial sum of a few million of them is
   exact in float (|sum| < 2^24), so a correct sum must match exactly. */
void fill_small_ints(float *x, size_t n, uint64_t seed);
/* Nonzero small integers, +-1 .. +-8 with a random sign: the exact pattern of the
   program's own check. Every element counts (none is 0), and a sum of 2^28 of them keeps
   every partial sum far below 2^24 (its spread is about 5 sqrt(n) = 8.3e4), so any order
   of adds is exact in float. */
void fill_signed_ints(float *x, size_t n, uint64_t seed);
/* The exact pattern of the program's own softmax check: row r of x[rows, cols] is -inf
   everywhere but at two columns, which hold 0. Its softmax is exactly 0.5 there and 0
   elsewhere: an element left out of the row's sum, or counted twice, gives 1 or 1/3. The two
   columns move from row to row (row r < cols puts one at column r), so over many rows every
   column is read as a 0 somewhere. A row of one column holds a single 0 (softmax 1). */
void fill_two_hot(float *x, size_t rows, size_t cols, uint64_t seed);
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

/* bfloat16 (the top 16 bits of a float: 8 exponent bits, 7 mantissa bits) <-> float,
   round to nearest even; NaN stays NaN, and values past the largest bf16 round to inf. */
uint16_t float_to_bf16(float f);
float bf16_to_float(uint16_t b);
/* Rounds each value to a number that float, half and bf16 all hold exactly: the nearest
   bf16, with magnitudes below half's smallest normal (2^-14) set to zero. Inputs shared by
   the f32, f16 and bf16 variants of one shape then share one reference. */
void round_to_all_types(float *x, size_t n);
/* Converts n floats to dt (4 or 2 bytes each) into dst, and back, in parallel. */
void floats_to_type(const float *f, void *dst, size_t n, dtype dt);
void type_to_floats(const void *src, float *f, size_t n, dtype dt);

#endif /* DATA_H */
