/* SPDX-License-Identifier: MIT */
/* results.h: the one reader of the results CSVs (DESIGN.md, Results schema): read once into
 * the aggregate below (medians of repeated rows, ratios against the same shape's baselines),
 * drawn by results_plot.c, written out by results_md.c, read by the grader too.
 */
#ifndef RESULTS_H
#define RESULTS_H

#include <stdarg.h>
#include <stddef.h>
#include "stage.h"

/* One gpu/stage/variant/op/dtype/rows/cols: the medians of its rows whose check is ok. */
typedef struct {
    char gpu[64], stage[32], variant[64];
    op_kind op;
    dtype dt;
    size_t rows, cols;
    size_t n_ok, n_fail;    /* rows that passed / failed their check */
    double median_us, gbps; /* medians over the ok rows; NAN when none */
    double pct, ceiling;    /* median pct_of_ceiling and ceiling_gbps (measured in the same run) */
    /* GB/s over the same shape's baseline (same gpu, dtype, rows, cols); NAN where absent:
       sum: cub_device_reduce; rowsum: cub_segmented_reduce and cublas_gemv; every op but the
       all-reduce: the PyTorch peer (torch_sum, torch_softmax, torch_log_softmax) */
    double x_cub, x_gemv, x_torch;
    /* softmax and log-softmax: read_stream + write_stream time at the same shape (the serialised
       floor) as a percentage of this entry's time; NAN where absent */
    double pct_floor;
    double *v; /* the ok rows' values while the file is read */
    size_t nv, capv;
} res_entry;

/* The one-GPU files of a results folder. Stage 08's files (allreduce.csv, or one
   allreduce_<G>gpu.csv per GPU count in plots/reference/) are read apart, into res_set.ar. */
enum { F_RUN, F_SWEEP, F_ROWS, F_SOFTMAX, F_SHAPES, F_PEER, F_COUNT };
#define RES_MAX_AR 8

typedef struct {
    char name[32]; /* "run.csv" */
    int present;   /* 0: the file does not exist or is empty */
    char gpu[64];  /* from "# gpu:", else the first row's gpu column */
    char date[40]; /* from "# date:", else "" */
    res_entry *e;  /* in first-seen order */
    size_t n, cap;
    size_t n_fail_rows; /* rows whose check is FAIL */
} res_file;

/* profile.csv (DESIGN.md, Evidence): one row per profiled variant and shape; its metrics, in
   the order of its columns: duration, DRAM %, occupancy %, registers, lanes, bank conflicts,
   sectors per request, bytes in flight per SM. */
enum { PM_DURATION_US, PM_LANES = 4, PM_BANK_CONFLICTS, PM_BYTES_IN_FLIGHT = 7, PM_COUNT };
typedef struct {
    char gpu[64], stage[32], variant[64], op[16], dt[8];
    size_t rows, cols;
    double m[PM_COUNT]; /* NAN where the profiler gave no value */
} prof_entry;

typedef struct {
    int present;
    char gpu[64];
    prof_entry *e;
    size_t n, cap;
} prof_file;

typedef struct {
    char dir[512]; /* the folder as given */
    res_file f[F_COUNT];
    res_file ar[RES_MAX_AR]; /* stage 08: its all-reduce files, by name */
    size_t n_ar;
    prof_file prof;
    char *sanitize; /* sanitize.txt (make sanitize's summary); NULL if missing */
} res_set;

/* One results CSV's text (name: what messages call it) into *f, medians taken: 0; 1 when the
   text is empty (f->present 0); -1 when it is malformed, with "name:line: why" in err.
   res_load_file: the same for the file at path, 1 also when there is none. */
int res_read_text(const char *text, const char *name, res_file *f, char *err, size_t err_len);
int res_load_file(const char *path, res_file *f, char *err, size_t err_len);

/* Every file of dir (missing ones stay absent), ratios filled; 08's rows (an all-reduce, or a
   sum over several GPUs: rows > 1) left out of the one-GPU files. 0, or -1 with
   "path:line: why" in err for the first malformed file (s is then freed). */
int res_load_set(const char *dir, res_set *s, char *err, size_t err_len);
void res_free(res_set *s);

#define RES_ANY ((size_t)-1) /* res_find: any rows */

/* The entry of f with these keys, or NULL; gpu NULL, op -1 and rows RES_ANY match any. */
const res_entry *res_find(const res_file *f, const char *gpu, const char *stage,
                          const char *variant, int op, dtype dt, size_t rows, size_t cols);

/* The largest n of a lesson's ok full sum in f (the standard size); 0 if none. */
size_t res_largest_sum_n(const res_file *f);

int res_has(const res_entry *e);        /* an ok measurement: gbps is a number */
int res_is_ref(const char *stage);      /* "baseline" or "peer": not a lesson */
const char *res_torch_variant(op_kind); /* "torch_sum", ...; NULL for sum and allreduce */

/* ---- text (shared with the grader) -------------------------------------------- */

/* A growing string, NUL-terminated once anything was added. Running out of memory prints one
   line and exits 1 (a tool, not a library: nothing to recover). */
typedef struct {
    char *s;
    size_t n, cap;
} sbuf;

void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_add(sbuf *b, const char *text);
void sb_free(sbuf *b);
void *res_xrealloc(void *p, size_t n);

char *res_read_all(const char *path); /* malloc'd, NUL-terminated; NULL (errno) if unreadable */
/* Runs the shell command printf(fmt, ...) makes: system()'s status (one line if not 0). */
int res_run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *res_temp_dir(char *buf, size_t len);      /* a new folder in $TMPDIR or /tmp; NULL: none */
void res_pow2(size_t n, char *buf, size_t len); /* "2^28" for a power of two, else the number */

/* ---- the README blocks and BENCHMARKS.md (results_md.c) ------------------------- */

/* text with the lines between "<!-- NAME:begin -->" and "<!-- NAME:end -->" (each alone on its
   line) replaced by the generated note and content, every other byte kept: malloc'd, or NULL
   when the markers are missing, repeated or out of order. */
char *res_replace_marker(const char *text, const char *name, const char *content);

/* Each appends one block to b (no date or time) and returns 0, or -1 when there is no data for
   it (b then holds a note saying so); label: the results folder as shown ("plots/reference/"). */
int res_md_stage_results(const res_set *s, const char *stage, const char *label, sbuf *b);
int res_md_stage_evidence(const res_set *s, const char *stage, const char *label, sbuf *b);
int res_md_ladder(const res_set *s, const char *label, sbuf *b);
/* The whole of BENCHMARKS.md: the GPU and the date of the run once, at the top. */
void res_md_benchmarks(const res_set *s, const char *label, sbuf *b);

/* `tables`: the blocks of ROOT/NN_name/README.md and ROOT/README.md, and ROOT/BENCHMARKS.md,
   rewritten (write 0: the files that would change named). 0, or 1 when a file could not be
   read or written. */
int res_tables(const res_set *s, const char *root, const char *label, int write);

/* `plot`: every plot the data allows, gpdir/<plot>.gp run into outdir/<plot>.png, each image
   named on stdout. 0, 1 when gnuplot failed, 3 when it is missing. */
int res_plot(const res_set *s, const char *gpdir, const char *outdir);

#endif /* RESULTS_H */
