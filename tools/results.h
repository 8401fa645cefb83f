/* SPDX-License-Identifier: MIT */
/* results.h: the one reader of the results CSVs.
 *
 * build/results reads the CSVs of a results folder once into the aggregate
 * below (one entry per gpu/stage/variant/op/dtype/rows/cols, medians across
 * repeated rows, ratios against the same shape's baselines) and draws the
 * plots (results_plot.c) and writes the README tables and BENCHMARKS.md
 * (results_md.c) from it. Nothing reads the CSVs a second time.
 */
#ifndef RESULTS_H
#define RESULTS_H

#include <stdarg.h>
#include <stddef.h>
#include "stage.h"

/* ---- the aggregate ------------------------------------------------------- */

/* One gpu/stage/variant/op/dtype/rows/cols: the medians of its rows whose check is ok. */
typedef struct {
    char gpu[64];
    char stage[32];
    char variant[64];
    op_kind op;
    dtype dt;
    size_t rows, cols;
    size_t n_ok, n_fail;    /* rows that passed / failed their check */
    double median_us, gbps; /* medians over the ok rows; NAN when none */
    double pct;             /* median pct_of_ceiling (the ceiling of the same run) */
    /* GB/s over the same shape's baseline (same gpu, dtype, rows, cols); NAN where absent:
       sum: cub_device_reduce; rowsum: cub_segmented_reduce and cublas_gemv;
       every op: the PyTorch peer (torch_sum, torch_softmax, torch_log_softmax) */
    double x_cub, x_gemv, x_torch;
    /* what a reader needs while the file is read; freed by res_finish_file */
    double *v;
    size_t nv, capv;
} res_entry;

/* The files of a results folder, in the order they are read. */
enum { F_RUN, F_SWEEP, F_ROWS, F_SOFTMAX, F_SHAPES, F_PEER, F_COUNT };

/* One CSV of the results schema. */
typedef struct {
    char name[16]; /* "run.csv" */
    int present;   /* 0: the file does not exist */
    char gpu[64];  /* from "# gpu:", else the first row's gpu column */
    char date[40]; /* from "# date:", else "date unknown" */
    res_entry *e;  /* in first-seen order */
    size_t n, cap;
    size_t n_fail_rows; /* rows whose check is FAIL */
} res_file;

/* profile.csv (DESIGN.md "Evidence"): one row per profiled variant and shape. */
enum {
    PM_DURATION_US,
    PM_DRAM_PCT,
    PM_OCCUPANCY_PCT,
    PM_REGISTERS,
    PM_LANES,
    PM_BANK_CONFLICTS,
    PM_SECTORS,
    PM_BYTES_IN_FLIGHT,
    PM_COUNT
};
typedef struct {
    char gpu[64], stage[32], variant[64];
    char op[16], dt[8];
    size_t rows, cols;
    double m[PM_COUNT]; /* NAN where the profiler gave no value */
} prof_entry;

typedef struct {
    int present;
    char gpu[64], date[40];
    prof_entry *e;
    size_t n, cap;
} prof_file;

typedef struct {
    char dir[512]; /* the folder as given */
    res_file f[F_COUNT];
    prof_file prof;
    char *sanitize; /* the text of sanitize.txt (make sanitize's summary); NULL if missing */
} res_set;

extern const char *const res_file_names[F_COUNT]; /* "run.csv", ... */
extern const char *const prof_metric_names[PM_COUNT];

/* Reads one results CSV into *f (aggregated, medians taken). Returns 0; 1 when the file does
   not exist or is empty (f->present is 0); -1 when it is malformed, with "path:line: why" in
   err. */
int res_load_file(const char *path, res_file *f, char *err, size_t err_len);

/* Reads profile.csv (header by column name). Same returns as res_load_file. */
int prof_load_file(const char *path, prof_file *p, char *err, size_t err_len);

/* Reads every file of dir (missing ones stay absent) and fills the ratios. Returns 0, or -1
   with "path:line: why" in err for the first malformed file (s is then freed). */
int res_load_set(const char *dir, res_set *s, char *err, size_t err_len);

/* Fills x_cub, x_gemv and x_torch of every entry of s. Cannot fail. */
void res_link(res_set *s);

void res_free(res_set *s);

/* The entry of f with these keys, or NULL. gpu NULL matches any gpu; op -1 any op. */
const res_entry *res_find(const res_file *f, const char *gpu, const char *stage,
                          const char *variant, int op, dtype dt, size_t rows, size_t cols);

/* 1 when the entry has an ok measurement (gbps is a number). */
int res_has(const res_entry *e);

/* 1 for the stages that are not lessons: "baseline" and "peer". */
int res_is_ref(const char *stage);

/* Median of v[0..n) ignoring NaNs (sorts v); NAN when n is 0 or all are NaN. */
double res_median(double *v, size_t n);

/* The PyTorch variant for op: "torch_sum", "torch_softmax", "torch_log_softmax"; NULL for sum. */
const char *res_torch_variant(op_kind op);

/* ---- text ---------------------------------------------------------------- */

/* A growing string; s is always NUL-terminated once anything was added. Allocation failure
   prints one line and exits 1 (a tool, not a library: nothing to recover). */
typedef struct {
    char *s;
    size_t n, cap;
} sbuf;

void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_add(sbuf *b, const char *text);
void sb_free(sbuf *b);

/* "2^28" for a power of two, else the number, into buf. */
void res_pow2(size_t n, char *buf, size_t len);

/* ---- tables (results_md.c) ------------------------------------------------ */

/* Replaces the lines between "<!-- NAME:begin -->" and "<!-- NAME:end -->" (each alone on its
   line, surrounding blanks allowed) with the generated note and content; every byte outside
   the markers is kept. Returns a new malloc'd text, or NULL when the markers are missing,
   repeated or out of order (text is not changed). */
char *res_replace_marker(const char *text, const char *name, const char *content);

/* One target of BRIEF/issue 10 checked against the data. */
typedef struct {
    char what[160];
    char goal[32];
    char measured[192]; /* "no data" when the CSVs lack it */
    char missed_by[64]; /* "" when met */
    int met;
} res_target;

/* Computes the targets into out[0..max); returns how many. Cannot fail: missing data gives
   "no data" rows that are not met. */
size_t res_targets(const res_set *s, res_target *out, size_t max);

/* The markdown of each generated block; label is the results folder as shown ("plots/reference/").
   Each appends to b and returns 0, or -1 when there is no data for it (b then holds a one-line
   note saying so). */
int res_md_stage_results(const res_set *s, const char *stage, const char *label, sbuf *b);
int res_md_stage_evidence(const res_set *s, const char *stage, const char *label, sbuf *b);
int res_md_ladder(const res_set *s, const char *label, sbuf *b);
/* The whole of BENCHMARKS.md. */
void res_md_benchmarks(const res_set *s, const char *label, sbuf *b);

/* `tables`: rebuilds the blocks of ROOT/NN_name/README.md (every stage) and ROOT/README.md,
   and the whole of ROOT/BENCHMARKS.md. write 0: prints a diff of what would change and
   writes nothing. Returns 0, or 1 when a file could not be read or written (one line on
   stderr). */
int res_tables(const res_set *s, const char *root, const char *label, int write);

/* ---- plots (results_plot.c) ---------------------------------------------- */

/* `plot`: writes the gnuplot data of every plot the data allows into a temporary folder and
   runs gpdir/<plot>.gp for PNG and SVG into outdir, printing each image written. Returns 0,
   1 when gnuplot failed on a script, or 3 when gnuplot is not installed. */
int res_plot(const res_set *s, const char *gpdir, const char *outdir);

#endif /* RESULTS_H */
