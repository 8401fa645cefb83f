/* SPDX-License-Identifier: MIT */
#include "data.h"
#include "parallel.h"

#include <math.h>
#include <string.h>

#define GOLDEN_GAMMA 0x9E3779B97F4A7C15ULL

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

uint64_t rng_next(uint64_t *state) { return mix64(*state += GOLDEN_GAMMA); }

/* The i-th output of splitmix64 is mix(seed + (i + 1) * gamma): any element
   can be made on its own, so threads fill chunks and the data does not depend
   on how many there are. */
static uint64_t rng_at(uint64_t seed, size_t i) { return mix64(seed + (uint64_t)(i + 1) * GOLDEN_GAMMA); }

typedef struct {
    float *x;
    float lo, scale;
    uint64_t seed;
    int ints; /* 0: uniform, 1: -8 .. 8, 2: +-(1 .. 8) */
} fill_ctx;

static void fill_range(void *p, size_t begin, size_t end, int part)
{
    (void)part;
    fill_ctx *c = p;
    for (size_t i = begin; i < end; i++) {
        uint64_t r = rng_at(c->seed, i);
        if (c->ints == 1) c->x[i] = (float)((int)(r % 17) - 8);
        else if (c->ints == 2) c->x[i] = (float)(1 + (int)(r % 8)) * ((r >> 32) & 1 ? -1.0f : 1.0f);
        else c->x[i] = c->lo + (float)(r >> 40) * c->scale;
    }
}

void fill_uniform(float *x, size_t n, float lo, float hi, uint64_t seed)
{
    fill_ctx c = {x, lo, (hi - lo) / 16777216.0f /* 2^24 steps */, seed, 0};
    parallel_for(n, (size_t)1 << 20, fill_range, &c);
}

void fill_small_ints(float *x, size_t n, uint64_t seed)
{
    fill_ctx c = {x, 0.0f, 0.0f, seed, 1};
    parallel_for(n, (size_t)1 << 20, fill_range, &c);
}

void fill_signed_ints(float *x, size_t n, uint64_t seed)
{
    fill_ctx c = {x, 0.0f, 0.0f, seed, 2};
    parallel_for(n, (size_t)1 << 20, fill_range, &c);
}

void fill_two_hot(float *x, size_t rows, size_t cols, uint64_t seed)
{
    for (size_t i = 0; i < rows * cols; i++) x[i] = -INFINITY;
    for (size_t r = 0; r < rows; r++) {
        size_t a = r < cols ? r : (size_t)(rng_at(seed, r) % cols);
        x[r * cols + a] = 0.0f;
        if (cols > 1) x[r * cols + (a + 1 + (size_t)(rng_at(seed ^ 0x5BD1E995u, r) % (cols - 1))) % cols] = 0.0f;
    }
}

void fill_one_hot(float *x, size_t n, size_t pos)
{
    memset(x, 0, n * sizeof *x);
    if (pos < n) x[pos] = 1.0f;
}

uint16_t float_to_half(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t exp = (u >> 23) & 0xFFu;
    uint32_t man = u & 0x7FFFFFu;
    if (exp == 0xFF) /* inf or NaN (keep NaN quiet and non-zero) */
        return (uint16_t)(sign | 0x7C00u | (man ? 0x200u | (man >> 13) : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 31) return (uint16_t)(sign | 0x7C00u); /* overflow to inf */
    if (e <= 0) {                                    /* subnormal half or zero */
        if (e < -10) return (uint16_t)sign;
        man |= 0x800000u;
        int shift = 14 - e;
        uint32_t half_man = man >> shift;
        uint32_t rem = man & ((1u << shift) - 1);
        uint32_t halfway = 1u << (shift - 1);
        if (rem > halfway || (rem == halfway && (half_man & 1))) half_man++;
        return (uint16_t)(sign | half_man);
    }
    uint32_t h = sign | ((uint32_t)e << 10) | (man >> 13);
    uint32_t rem = man & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) h++; /* carry may reach inf: correct */
    return (uint16_t)h;
}

float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1Fu;
    uint32_t man = h & 0x3FFu;
    uint32_t u;
    if (exp == 0x1F) {
        u = sign | 0x7F800000u | (man << 13);
    } else if (exp == 0) {
        if (man == 0) {
            u = sign;
        } else { /* subnormal: value = man * 2^-24 */
            float f = (float)man * 5.9604644775390625e-8f;
            return sign ? -f : f;
        }
    } else {
        u = sign | ((exp - 15 + 127) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &u, 4);
    return f;
}

uint16_t float_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) /* NaN: keep it quiet and non-zero */
        return (uint16_t)((u >> 16) | 0x40u);
    /* round to nearest even on the 16 dropped bits; a carry into the exponent is correct,
       up to inf */
    u += 0x7FFFu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

float bf16_to_float(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

typedef enum { TO_HALF, FROM_HALF, TO_BF16, FROM_BF16, ROUND_HALF, ROUND_ALL } convert_kind;

typedef struct {
    float *f;
    uint16_t *h;
    convert_kind kind;
} convert_ctx;

static void convert_range(void *p, size_t begin, size_t end, int part)
{
    (void)part;
    convert_ctx *c = p;
    for (size_t i = begin; i < end; i++) {
        switch (c->kind) {
        case TO_HALF: c->h[i] = float_to_half(c->f[i]); break;
        case FROM_HALF: c->f[i] = half_to_float(c->h[i]); break;
        case TO_BF16: c->h[i] = float_to_bf16(c->f[i]); break;
        case FROM_BF16: c->f[i] = bf16_to_float(c->h[i]); break;
        case ROUND_HALF: c->f[i] = half_to_float(float_to_half(c->f[i])); break;
        case ROUND_ALL: {
            float v = bf16_to_float(float_to_bf16(c->f[i]));
            c->f[i] = fabsf(v) < 6.103515625e-05f /* 2^-14 */ ? 0.0f : v;
            break;
        }
        }
    }
}

static void convert(float *f, uint16_t *h, size_t n, convert_kind kind)
{
    convert_ctx c = {f, h, kind};
    parallel_for(n, (size_t)1 << 20, convert_range, &c);
}

void round_to_half(float *x, size_t n) { convert(x, NULL, n, ROUND_HALF); }
void round_to_all_types(float *x, size_t n) { convert(x, NULL, n, ROUND_ALL); }
void floats_to_halves(const float *f, uint16_t *h, size_t n) { convert((float *)f, h, n, TO_HALF); }
void halves_to_floats(const uint16_t *h, float *f, size_t n) { convert(f, (uint16_t *)h, n, FROM_HALF); }

void floats_to_type(const float *f, void *dst, size_t n, dtype dt)
{
    if (dt == DT_F32) memcpy(dst, f, n * sizeof *f);
    else convert((float *)f, dst, n, dt == DT_F16 ? TO_HALF : TO_BF16);
}

void type_to_floats(const void *src, float *f, size_t n, dtype dt)
{
    if (dt == DT_F32) memcpy(f, src, n * sizeof *f);
    else convert(f, (uint16_t *)src, n, dt == DT_F16 ? FROM_HALF : FROM_BF16);
}
