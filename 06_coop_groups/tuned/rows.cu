// SPDX-License-Identifier: MIT
// 06_coop_groups/tuned/rows.cu: the `dispatch` variant, the tuned row sums, and its planner.
//
// Idea:  the lesson's plain_dispatch (tiles, a warp tile, a block a row, by columns) plus, each
//        where it measured: aligned short rows with no head, tail or loop, 8 packs a lane in
//        flight, a block for each step of rows; warp tiles only while rows fill the GPU (8 x SMs
//        rows), else blocks; under 2 x SMs rows, each row cut into chunks, a block each. At most
//        SMs / 2 rows: chunks of one lap (every load of a thread at once: 4096 floats a block of
//        256 threads), a row one cluster where it fits (lap_cluster.cu), else flagged partials
//        (flags.cu); more rows, or rows over 1024 laps: chunks that loop, flagged partials.
// Fixes: each mapping alone is slow somewhere between 32 and 65536 columns, or with few rows
//        (1 x 262144 as a block a row is one SM reading a megabyte).
// Cost:  more code and plans than the lesson; the thresholds are measurements on 132-SM GPUs
//        (H100, H200). REDUCE_VERBOSE=1 prints the plan each shape gets, on stderr.
// Run:   build/06_coop_groups --variant dispatch --rows 8 --cols 131072
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stage.h"
#include "common.cuh"
#include "testing.h"
#include "tuned.h"

static constexpr int ROWS_AT_ONCE = 4;        // short rows a tile keeps side by side
static constexpr int ALIGNED_ROWS = 8;        // ... on the aligned path, which holds nothing else
static constexpr int MIN_TILE = 4;            // the narrowest tile: 4 lanes x 4 floats = 16 cols
static constexpr size_t TILE_MAX_COLS = 512;  // tiles (4 rows each) up to 512 columns,
static constexpr size_t WARP_MAX_COLS = 4096; // a warp tile per row up to 4096, blocks beyond
static constexpr unsigned LAP_MAX_CHUNKS = 1024; // one-lap chunks: at most 1024 a row

// -------------------------------------------------------------------------------------------------
// Kernels

// The lesson's tile_per_row kernel: a thread_block_tile<G> per row, ROWS rows a tile side by
// side; ROWS == 1 is a warp tile per long row with UNROLL packs a lane in flight.
template <int G, int ROWS>
static __global__ void __launch_bounds__(BLOCK_SIZE, MIN_BLOCKS)
    rowsum_tiles(const float *__restrict__ d_in, float *__restrict__ d_out, size_t rows,
                 size_t cols)
{
    const cg::thread_block block = cg::this_thread_block();
    const cg::thread_block_tile<G> tile = cg::tiled_partition<G>(block);
    constexpr size_t TILES = BLOCK_SIZE / G; // tiles per block
    constexpr size_t STEP = TILES * ROWS;    // rows per block per lap
    const unsigned rank = tile.thread_rank();
    // the bound is the same for the whole block: every tile is whole at cg::reduce
    for (size_t base = blockIdx.x * STEP; base < rows; base += gridDim.x * STEP) {
        const pack_t *body[ROWS];
        size_t packs[ROWS], most = 0;
        float acc[ROWS];
#pragma unroll
        for (int k = 0; k < ROWS; ++k) {
            const size_t row = base + k * TILES + tile.meta_group_rank(); // neighbours: one stretch
            const float *p = d_in + (row < rows ? row : 0) * cols;
            const span_split sp = split_span(p, row < rows ? cols : 0);
            acc[k] = edges_sum(p, sp, rank);
            body[k] = reinterpret_cast<const pack_t *>(p + sp.head);
            packs[k] = sp.packs;
            most = packs[k] > most ? packs[k] : most;
        }
        if (ROWS == 1) {
            acc[0] += packs_sum(body[0], packs[0], rank, G); // a long row: UNROLL loads in flight
        } else {
            for (size_t q = rank; q < most; q += G) { // short rows: one load of each in flight
                pack_t v[ROWS];
#pragma unroll
                for (int k = 0; k < ROWS; ++k) v[k] = q < packs[k] ? body[k][q] : pack_t{};
#pragma unroll
                for (int k = 0; k < ROWS; ++k) acc[k] += pack_sum(v[k]);
            }
        }
#pragma unroll
        for (int k = 0; k < ROWS; ++k) {
            acc[k] = cg::reduce(tile, acc[k], cg::plus<float>());
            const size_t row = base + k * TILES + tile.meta_group_rank();
            if (rank == 0 && row < rows) d_out[row] = acc[k];
        }
    }
}

// The same when every row is whole packs, at most P per lane (d_in 16-byte aligned, cols a
// multiple of 4 and <= 4PG): P predicated 16-byte loads per row and lane, 8 / P rows at once (8
// loads a lane in flight), and no head, tail or loop, whose bookkeeping costs more instructions
// than a 32-column row itself. P = 2 and 4 (G = 32) take aligned rows of 129 to 512 columns,
// which the general kernel walks 128 columns a lap, one pack of each of 4 rows at a time.
template <int G, int P = 1>
static __global__ void __launch_bounds__(BLOCK_SIZE, MIN_BLOCKS)
    rowsum_tiles_aligned(const float *__restrict__ d_in, float *__restrict__ d_out, size_t rows,
                         size_t cols)
{
    const cg::thread_block block = cg::this_thread_block();
    const cg::thread_block_tile<G> tile = cg::tiled_partition<G>(block);
    constexpr int R = ALIGNED_ROWS / P; // rows at once: R x P packs a lane in flight
    constexpr size_t TILES = BLOCK_SIZE / G;
    constexpr size_t STEP = TILES * R;
    const unsigned rank = tile.thread_rank();
    const size_t packs = cols / PACK;
    const pack_t *in = reinterpret_cast<const pack_t *>(d_in);
    for (size_t base = blockIdx.x * STEP; base < rows; base += gridDim.x * STEP) {
        if constexpr (P == 1) { // one pack a lane: 8 rows, every load before any use
            pack_t v[R];
#pragma unroll
            for (int k = 0; k < R; ++k) {
                const size_t row = base + k * TILES + tile.meta_group_rank();
                v[k] = row < rows && rank < packs ? in[row * packs + rank] : pack_t{};
            }
#pragma unroll
            for (int k = 0; k < R; ++k) {
                const float total = cg::reduce(tile, pack_sum(v[k]), cg::plus<float>());
                const size_t row = base + k * TILES + tile.meta_group_rank();
                if (rank == 0 && row < rows) d_out[row] = total;
            }
        } else { // P packs a lane, 8 / P rows
            pack_t v[R][P];
#pragma unroll
            for (int k = 0; k < R; ++k) {
                const size_t row = base + k * TILES + tile.meta_group_rank();
#pragma unroll
                for (int j = 0; j < P; ++j) {
                    const size_t q = rank + (size_t)j * G;
                    v[k][j] = row < rows && q < packs ? in[row * packs + q] : pack_t{};
                }
            }
#pragma unroll
            for (int k = 0; k < R; ++k) {
                float acc = 0.0f;
#pragma unroll
                for (int j = 0; j < P; ++j) acc += pack_sum(v[k][j]);
                const float total = cg::reduce(tile, acc, cg::plus<float>());
                const size_t row = base + k * TILES + tile.meta_group_rank();
                if (rank == 0 && row < rows) d_out[row] = total;
            }
        }
    }
}

// A block a row (the lesson's rowsum_blocks).
static __global__ void __launch_bounds__(BLOCK_SIZE, MIN_BLOCKS)
    rowsum_blocks(const float *__restrict__ d_in, float *__restrict__ d_out, size_t cols)
{
    const cg::thread_block block = cg::this_thread_block();
    const float v = span_sum(d_in + blockIdx.x * cols, cols, block.thread_rank(), BLOCK_SIZE);
    const float total = block_reduce_cg(block, v);
    if (block.thread_rank() == 0) d_out[blockIdx.x] = total;
}

// -------------------------------------------------------------------------------------------------
// Host: what plan a shape gets

// 1: plan as on a GPU without clusters. Set only by the gpu suite (testing.h); exercise 4 edits
// its first value.
static int without_clusters = 0;

extern "C" void coop_rows_plan_without_clusters(int on) { without_clusters = on != 0; }

enum row_path {
    TILES_ALIGNED,
    TILES_ALIGNED_WIDE,
    TILES,
    WARP_TILES,
    BLOCK_A_ROW,
    LAP_CLUSTER,
    LAP_FLAGS,
    LOOP_FLAGS
};

// With REDUCE_VERBOSE=1 in the environment, says on stderr which plan a shape gets, once per
// shape: k is the lanes of a tile, the packs a lane, or the blocks of a row (see the text).
static void say_plan(size_t rows, size_t cols, row_path path, unsigned k, size_t blocks,
                     unsigned threads)
{
    static int verbose = -1, last_path = -1;
    static size_t last_rows, last_cols;
    static unsigned last_k;
    if (verbose < 0) {
        const char *v = getenv("REDUCE_VERBOSE");
        verbose = v && strcmp(v, "1") == 0;
    }
    if (!verbose ||
        (rows == last_rows && cols == last_cols && (int)path == last_path && k == last_k))
        return;
    last_rows = rows, last_cols = cols, last_path = (int)path, last_k = k;
    static const char *const what[] = {
        "aligned tiles of k lanes, 8 rows a tile at once",
        "aligned 32-lane tiles, k packs a lane, 8 / k rows a tile at once",
        "tiles of k lanes, 4 rows a tile at once",
        "a warp tile a row",
        "a block a row",
        "k one-lap blocks a row in one cluster, finished by message",
        "k one-lap blocks a row, flagged partials",
        "k blocks a row that loop, flagged partials"};
    fprintf(stderr, "06_coop_groups dispatch: %zu x %zu: %s (k = %u), %zu blocks of %u threads\n",
            rows, cols, what[path], k, blocks, threads);
}

// The narrowest tile (4..32 lanes) whose lanes hold a row at one pack each.
static int tile_width(size_t cols)
{
    int g = MIN_TILE;
    while (g < WARP_SIZE && (size_t)g * PACK < cols) g *= 2;
    return g;
}

template <int G, int ROWS>
static cudaError_t launch_tiles(const float *d_in, float *d_out, size_t rows, size_t cols,
                                cudaStream_t s)
{
    static fill_cache fill;
    const size_t step = (size_t)(BLOCK_SIZE / G) * ROWS;
    const size_t grid =
        min_size(ceil_div(rows, step),
                 resident_blocks(&fill, (const void *)rowsum_tiles<G, ROWS>, BLOCK_SIZE));
    say_plan(rows, cols, ROWS == 1 ? WARP_TILES : TILES, G, grid, BLOCK_SIZE);
    rowsum_tiles<G, ROWS><<<(unsigned)grid, BLOCK_SIZE, 0, s>>>(d_in, d_out, rows, cols);
    return cudaGetLastError();
}

// One block a step of rows, not the resident blocks looping over them: at 32 to 512 columns
// (2^26 floats, H100) the loop over the resident blocks took 1.5 to 3.3 us longer (3% at 32 and
// 128 columns) and left cuBLAS gemv ahead at 128 to 512. The kernel's loop stays only as a
// guard: with rows <= MAX_GRID_X (coop_supports_dispatch) one launch covers every row.
template <int G, int P = 1>
static cudaError_t launch_tiles_aligned(const float *d_in, float *d_out, size_t rows, size_t cols,
                                        cudaStream_t s)
{
    const size_t step = (size_t)(BLOCK_SIZE / G) * (ALIGNED_ROWS / P);
    const size_t grid = min_size(ceil_div(rows, step), MAX_GRID_X);
    say_plan(rows, cols, P == 1 ? TILES_ALIGNED : TILES_ALIGNED_WIDE, P == 1 ? G : P, grid,
             BLOCK_SIZE);
    rowsum_tiles_aligned<G, P><<<(unsigned)grid, BLOCK_SIZE, 0, s>>>(d_in, d_out, rows, cols);
    return cudaGetLastError();
}

static cudaError_t launch_tile_rows(const float *d_in, float *d_out, size_t rows, size_t cols,
                                    cudaStream_t s)
{
    const bool aligned =
        (uintptr_t)d_in % PACK_BYTES == 0 && cols % PACK == 0 && cols <= (size_t)WARP_SIZE * PACK;
    switch (tile_width(cols)) {
    case 4:
        return aligned ? launch_tiles_aligned<4>(d_in, d_out, rows, cols, s)
                       : launch_tiles<4, ROWS_AT_ONCE>(d_in, d_out, rows, cols, s);
    case 8:
        return aligned ? launch_tiles_aligned<8>(d_in, d_out, rows, cols, s)
                       : launch_tiles<8, ROWS_AT_ONCE>(d_in, d_out, rows, cols, s);
    case 16:
        return aligned ? launch_tiles_aligned<16>(d_in, d_out, rows, cols, s)
                       : launch_tiles<16, ROWS_AT_ONCE>(d_in, d_out, rows, cols, s);
    default:
        break;
    }
    if (aligned) return launch_tiles_aligned<32>(d_in, d_out, rows, cols, s);
    // aligned rows of 129..512 columns: 2 or 4 packs a lane, 4 or 2 rows at once
    const bool aligned_wide = (uintptr_t)d_in % PACK_BYTES == 0 && cols % PACK == 0 &&
                              cols <= (size_t)4 * WARP_SIZE * PACK;
    if (aligned_wide && cols <= (size_t)2 * WARP_SIZE * PACK)
        return launch_tiles_aligned<32, 2>(d_in, d_out, rows, cols, s);
    if (aligned_wide) return launch_tiles_aligned<32, 4>(d_in, d_out, rows, cols, s);
    return launch_tiles<32, ROWS_AT_ONCE>(d_in, d_out, rows, cols, s);
}

// Blocks per row for long rows: 1 while rows alone give every SM two blocks. With at most half
// as many rows as SMs, each row is cut into chunks of at most one lap, a block each (every load
// of a thread at once, no loop): one cluster a row (sum_lap_cluster) where its laps of 256
// threads (4096 floats), else of 512 (8192 floats), number no more than the largest cluster the
// GPU launches (16 on an H100), else flagged partials for rows of up to LAP_MAX_CHUNKS laps.
// Otherwise (up to 2 x SMs rows, or longer rows) chunks of at least a lap for about 2 blocks an
// SM, which loop, with flagged partials. From SMs / 2 to 2 x SMs rows the one-lap chunks won and
// lost against those by up to 6 points of the read ceiling, with no count of blocks that told
// the two apart: hence the rule at SMs / 2.
struct row_plan {
    row_path path;
    unsigned chunks;  // blocks a row
    size_t chunk_len; // floats a block reads
    int threads;      // a block's threads: 256, or 512 for a cluster of laps of 512
};

static row_plan plan_block_rows(size_t rows, size_t cols, bool clusters)
{
    row_plan p = {BLOCK_A_ROW, 1, cols, BLOCK_SIZE};
    const size_t sms = sm_count();
    if (rows >= 2 * sms) return p;
    if (2 * rows <= sms) {
        // a cluster a row: the fewer threads a block (256 or 512) whose laps cut the row into
        // no more blocks than the GPU launches as one cluster
        for (int t = 0; t < 2 && clusters && cols > LAP_LEN; ++t) {
            const int threads = BLOCK_SIZE << t;
            const size_t lap = (size_t)threads * UNROLL * PACK;
            const unsigned fit = (unsigned)coop_lap_cluster_fit(threads);
            cut_chunks(cols, fit, lap, &p.chunks, &p.chunk_len);
            if (fit > 1 && p.chunk_len <= lap) {
                p.path = LAP_CLUSTER;
                p.threads = threads;
                return p;
            }
        }
        cut_chunks(cols, LAP_MAX_CHUNKS, LAP_LEN, &p.chunks, &p.chunk_len);
        if (p.chunk_len <= LAP_LEN) {
            p.path = p.chunks > 1 ? LAP_FLAGS : BLOCK_A_ROW;
            return p;
        }
    }
    cut_chunks(cols, ceil_div(2 * sms, rows), LAP_LEN, &p.chunks, &p.chunk_len);
    p.path = p.chunks > 1 ? LOOP_FLAGS : BLOCK_A_ROW;
    return p;
}

static cudaError_t launch_block_rows(const float *d_in, float *d_out, size_t rows, size_t cols,
                                     void *d_ws, cudaStream_t s)
{
    const bool clusters = !without_clusters && device_attr(cudaDevAttrClusterLaunch);
    const row_plan p = plan_block_rows(rows, cols, clusters);
    say_plan(rows, cols, p.path, p.chunks, rows * p.chunks, (unsigned)p.threads);
    switch (p.path) {
    case LAP_CLUSTER:
        return coop_launch_lap_cluster(p.threads, d_in, d_out, rows, cols, p.chunks,
                                       (unsigned)p.chunk_len, s);
    case LAP_FLAGS:
    case LOOP_FLAGS:
        return coop_launch_flagged_rows(d_in, d_out, rows, cols, p.chunks, p.chunk_len,
                                        p.path == LAP_FLAGS, d_ws, s);
    default:
        rowsum_blocks<<<(unsigned)rows, BLOCK_SIZE, 0, s>>>(d_in, d_out, cols);
        return cudaGetLastError();
    }
}

// -------------------------------------------------------------------------------------------------
// The variant

extern "C" int coop_supports_dispatch(size_t rows, size_t cols)
{
    return rows >= 1 && cols >= 1 && rows <= MAX_GRID_X;
}

// Flagged partials need the workspace; the plan without clusters has them wherever the plan
// with clusters has (and more), so its size serves both.
extern "C" size_t coop_workspace_dispatch(size_t rows, size_t cols)
{
    if (cols <= TILE_MAX_COLS) return 0;
    return coop_flagged_rows_workspace(rows, plan_block_rows(rows, cols, false).chunks);
}

extern "C" cudaError_t coop_launch_dispatch(const void *d_in, void *d_out, size_t rows, size_t cols,
                                            void *d_workspace, cudaStream_t s)
{
    if (!coop_supports_dispatch(rows, cols)) return cudaErrorInvalidValue;
    const float *in = static_cast<const float *>(d_in);
    float *out = static_cast<float *>(d_out);
    // fewer rows than a block of warp tiles an SM: a block (or more) per row instead
    const bool few_rows = rows * WARP_SIZE < sm_count() * BLOCK_SIZE && cols > TILE_MAX_COLS;
    if (cols <= TILE_MAX_COLS) return launch_tile_rows(in, out, rows, cols, s);
    if (cols <= WARP_MAX_COLS && !few_rows)
        return launch_tiles<WARP_SIZE, 1>(in, out, rows, cols, s);
    return launch_block_rows(in, out, rows, cols, d_workspace, s);
}
