// SPDX-License-Identifier: MIT
// 07_softmax/tuned/warp.cu: the warp path, rows of at most 1024 columns in registers.
//
// Idea:  OneFlow's warp softmax whole: a group of G lanes (1, 2, ..., 32, the narrowest that
//        covers the row) owns RPA rows (2 in float, 4 in 16-bit types) and reads them in 16-byte
//        packs, every load of the group's rows issued before any is used.
// Fixes: OneFlow's warp path (softmax.cu's warp_row) reads 8 bytes at a time; 16-byte packs
//        and 16-bit types keep more bytes in flight on short rows (f32 softmax over warp_row in
//        the reference run: 1.15x at 32 columns, 1.17x at 64, even from 128 up).
// Cost:  rows of at most 1024 columns; where some row starts off a 16-byte boundary, a load an
//        element (4 values a lane at a time).
// Run:   build/07_softmax --variant tuned_warp --cols 32,128,1024 [--dtype f16|bf16]
#include "common.cuh"

// Element i of a pack in float; -inf for a pack past the end of the row.
template <typename T, int P>
static __device__ __forceinline__ float value_at(const pack_t<T, P> &p, int i, bool valid)
{
    return valid ? to_float(p.elem[i]) : -INFINITY;
}

// Groups of 2 to 16 lanes (several rows a warp) keep only their RPA packs between the passes and
// convert them again in each pass. Kept in float, 4 rows of 16-bit packs took 74 to 96 registers
// a thread, so 5 or 6 blocks of 128 threads fit an SM's 64K registers; as packs, the launch
// bounds hold them to 64 and 8 blocks fit: bfloat16 log-softmax at 64 columns from 99.3 to 88.7
// us, softmax from 93.5 to 87.5 (H100). Converting again cost the other groups up to 10 points
// of the copy (a lane per row of up to 8 16-bit values; a warp per row, 2 points at 256), so
// they keep their values in float.
template <int G>
static __host__ __device__ constexpr bool warp_keeps_floats()
{
    return G == 1 || G == WARP_SIZE;
}
template <int G>
static __host__ __device__ constexpr int warp_min_blocks()
{
    return warp_keeps_floats<G>() ? 1 : 8;
}

// Packs of P elements; lane l of a group holds packs l, l + G, ... of its row (neighbouring
// lanes read neighbouring packs). Padding holds -inf: no effect on the max, exp gives 0.
template <typename T, bool LOG, int P, int G, int CPT, int RPA>
static __global__ void __launch_bounds__(WARP_PATH_BLOCK, warp_min_blocks<G>())
    softmax_warp(const T *__restrict__ d_in, T *__restrict__ d_out, size_t rows, int cols)
{
    static_assert(CPT % P == 0 && WARP_SIZE % G == 0 && CPT * G <= 2 * WARP_MAX_COLS, "bucket");
    using word_t = typename word_of<P *(int)sizeof(T)>::type;
    constexpr int PACKS = CPT / P;
    constexpr int ROWS_PER_WARP = (WARP_SIZE / G) * RPA;
    const int lane = threadIdx.x % G;
    const int group = (threadIdx.x % WARP_SIZE) / G;
    const size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / WARP_SIZE;
    const size_t n_warps = (size_t)gridDim.x * blockDim.x / WARP_SIZE;

    // The bound is the same for all 32 lanes, so every shuffle has its 32 participants; groups
    // past the last row compute on -inf and store nothing.
    for (size_t base = warp * ROWS_PER_WARP; base < rows; base += n_warps * ROWS_PER_WARP) {
        pack_t<T, P> raw[RPA][PACKS];
#pragma unroll
        for (int r = 0; r < RPA; ++r) {
            const size_t row = base + (size_t)group * RPA + r;
#pragma unroll
            for (int k = 0; k < PACKS; ++k) {
                const int col = (k * G + lane) * P;
                if (row < rows && col < cols) // a load alone in its branch: all issue at once
                    raw[r][k].word = *reinterpret_cast<const word_t *>(d_in + row * cols + col);
            }
        }
        constexpr bool KEEP = warp_keeps_floats<G>();
        float v[RPA][KEEP ? CPT : 1], m[RPA], s[RPA];
#pragma unroll
        for (int r = 0; r < RPA; ++r) {
            const size_t row = base + (size_t)group * RPA + r;
            m[r] = -INFINITY;
#pragma unroll
            for (int k = 0; k < PACKS; ++k) {
                const bool valid = row < rows && (k * G + lane) * P < cols;
#pragma unroll
                for (int i = 0; i < P; ++i) {
                    if constexpr (KEEP) {
                        v[r][k * P + i] = valid ? to_float(raw[r][k].elem[i]) : -INFINITY;
                        m[r] = fmaxf(m[r], v[r][k * P + i]);
                    } else {
                        m[r] = fmaxf(m[r], value_at<T, P>(raw[r][k], i, valid));
                    }
                }
            }
            m[r] = group_max<G>(m[r]);
            s[r] = 0.0f;
            if constexpr (KEEP) {
#pragma unroll
                for (int i = 0; i < CPT; ++i) {
                    const float e = exp_of(v[r][i] - m[r]);
                    s[r] += e;
                    if (!LOG) v[r][i] = e;
                }
            } else {
#pragma unroll
                for (int k = 0; k < PACKS; ++k) {
                    const bool valid = row < rows && (k * G + lane) * P < cols;
#pragma unroll
                    for (int i = 0; i < P; ++i)
                        s[r] += exp_of(value_at<T, P>(raw[r][k], i, valid) - m[r]);
                }
            }
            s[r] = group_sum<G>(s[r]);
        }
#pragma unroll
        for (int r = 0; r < RPA; ++r) {
            const size_t row = base + (size_t)group * RPA + r;
            // log-softmax subtracts the max first: x - (max + log s) would round at the max's
            // magnitude (inputs of 1e4 lose 2e-4)
            const float scale = LOG ? logf(s[r]) : __fdividef(1.0f, s[r]);
#pragma unroll
            for (int k = 0; k < PACKS; ++k) {
                const int col = (k * G + lane) * P;
                if (row < rows && col < cols) {
                    pack_t<T, P> out;
#pragma unroll
                    for (int i = 0; i < P; ++i) {
                        if constexpr (KEEP) {
                            out.elem[i] = from_float<T>(LOG ? (v[r][k * P + i] - m[r]) - scale
                                                            : v[r][k * P + i] * scale);
                        } else {
                            const float d = to_float(raw[r][k].elem[i]) - m[r];
                            out.elem[i] = from_float<T>(LOG ? d - scale : exp_of(d) * scale);
                        }
                    }
                    *reinterpret_cast<word_t *>(d_out + row * cols + col) = out.word;
                }
            }
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Host: the group width and values a lane from the row length
// ------------------------------------------------------------------------------------------------

static unsigned capped_grid(size_t blocks, size_t cap)
{
    const size_t g = blocks < cap ? blocks : cap;
    return (unsigned)(g > 0 ? g : 1);
}

template <typename T, bool LOG, int P, int G, int CPT, int RPA>
static cudaError_t warp_launch(const T *d_in, T *d_out, size_t rows, int cols, int sms,
                               cudaStream_t s)
{
    constexpr size_t ROWS_PER_BLOCK = (WARP_PATH_BLOCK / WARP_SIZE) * (WARP_SIZE / G) * RPA;
    // 16 blocks of 128 threads fill an SM (2048 threads); 32 such waves, then grid-stride
    const size_t cap = (size_t)sms * 16 * 32;
    softmax_warp<T, LOG, P, G, CPT, RPA>
        <<<capped_grid(ceil_div(rows, ROWS_PER_BLOCK), cap), WARP_PATH_BLOCK, 0, s>>>(d_in, d_out,
                                                                                      rows, cols);
    return cudaGetLastError();
}

// cols <= 32 P: one pack per lane, the narrowest group that covers the row.
template <typename T, bool LOG, int P, int RPA, int G = 1>
static cudaError_t warp_narrow(const T *d_in, T *d_out, size_t rows, int cols, int sms,
                               cudaStream_t s)
{
    if constexpr (G < WARP_SIZE) {
        if (cols > G * P)
            return warp_narrow<T, LOG, P, RPA, 2 * G>(d_in, d_out, rows, cols, sms, s);
    }
    return warp_launch<T, LOG, P, G, P, RPA>(d_in, d_out, rows, cols, sms, s);
}

// cols > 32 P: the whole warp per row, CPT the smallest multiple of STEP that covers the row.
template <typename T, bool LOG, int P, int STEP, int CPT>
static cudaError_t warp_wide(const T *d_in, T *d_out, size_t rows, int cols, int sms,
                             cudaStream_t s)
{
    if constexpr (CPT < WARP_MAX_COLS / WARP_SIZE) {
        if (cols > WARP_SIZE * CPT)
            return warp_wide<T, LOG, P, STEP, CPT + STEP>(d_in, d_out, rows, cols, sms, s);
    }
    return warp_launch<T, LOG, P, WARP_SIZE, CPT, 1>(d_in, d_out, rows, cols, sms, s);
}

// Half a row is gone twice as fast and carries twice the values to convert per byte, so 16-bit
// types keep 4 short rows per group in flight, float 2.
template <typename T>
static constexpr int narrow_rows()
{
    return sizeof(T) == 2 ? 4 : 2;
}

template <typename T, bool LOG>
cudaError_t warp_path(const T *d_in, T *d_out, size_t rows, int cols, bool packed, int sms,
                      cudaStream_t s)
{
    constexpr int P = full_pack<T>();
    if (packed) {
        if (cols <= WARP_SIZE * P)
            return warp_narrow<T, LOG, P, narrow_rows<T>()>(d_in, d_out, rows, cols, sms, s);
        return warp_wide<T, LOG, P, P, 2 * P>(d_in, d_out, rows, cols, sms, s);
    }
    // rows that start off 16-byte boundaries: one element per access, buckets of 4 values
    if (cols <= WARP_SIZE)
        return warp_narrow<T, LOG, 1, narrow_rows<T>()>(d_in, d_out, rows, cols, sms, s);
    return warp_wide<T, LOG, 1, 4, 4>(d_in, d_out, rows, cols, sms, s);
}

#define WARP_PATH(T, LOG) \
    template cudaError_t warp_path<T, LOG>(const T *, T *, size_t, int, bool, int, cudaStream_t);
WARP_PATH(float, false)
WARP_PATH(float, true)
WARP_PATH(__half, false)
WARP_PATH(__half, true)
WARP_PATH(__nv_bfloat16, false)
WARP_PATH(__nv_bfloat16, true)
#undef WARP_PATH
