/* SPDX-License-Identifier: MIT */
/* cli.h: the flags of every stage program, parsed and validated. */
#ifndef CLI_H
#define CLI_H

#include <stddef.h>
#include <stdint.h>
#include "stage.h"

#define CLI_MAX_SIZES 64
/* Largest element count accepted by -n, --rows x --cols: 2^40 elements
   (4 TiB of floats) is beyond any GPU, and keeps byte counts far from overflow. */
#define CLI_MAX_ELEMS ((size_t)1 << 40)
/* With --cols and no --rows, rows = CLI_DEFAULT_ELEMS / cols (at least 1). */
#define CLI_DEFAULT_ELEMS ((size_t)1 << 26)

typedef struct {
    size_t n[CLI_MAX_SIZES];      /* -n: full-sum sizes */
    size_t n_count;               /* 0: not given */
    size_t rows;                  /* --rows; 0: not given */
    size_t cols[CLI_MAX_SIZES];   /* --cols list */
    size_t cols_count;            /* 0: not given */
    const char *variant;          /* --variant; NULL means all */
    int have_dtype;  dtype dt;    /* --dtype */
    int have_op;     op_kind op;  /* --op */
    int iters;                    /* --iters, timed repetitions */
    int warmup;                   /* --warmup */
    uint64_t seed;                /* --seed */
    const char *csv;              /* --csv FILE; NULL: no CSV */
    int check_only, list, help;
} options_t;

/* Parses argv into *o (defaults first). Returns 0 on success; on a usage
   error returns EXIT_USAGE (2) with a one-line message in err (no newline).
   Never prints, never exits. Sizes accept decimal, 2^K, and comma lists. */
int parse_options(int argc, char **argv, options_t *o, char *err, size_t err_len);

/* Parses one size: decimal digits or 2^K. Returns 0 and sets *out, or -1 if
   the text is not a number, is zero, or exceeds max. */
int parse_size(const char *text, size_t max, size_t *out);

/* One variant as --variant, --op and --dtype see it (a stage may list a name once per dtype). */
typedef struct {
    const char *name;
    op_kind op;
    dtype dt;
} variant_key;

/* Which of the n variants of stage `dir` the options pick: selected[i] = 1 or 0. Returns 0 when
   at least one is picked; else EXIT_USAGE with a one-line message in err: a --variant no variant
   has (the names to choose from, each once), or no variant that matches --op and --dtype. */
int select_variants(const options_t *o, const char *dir, const variant_key *keys, size_t n,
                    int *selected, char *err, size_t err_len);

/* Prints the usage text for program `prog` to stdout. Cannot fail. */
void print_usage(const char *prog);

const char *op_name(op_kind op);       /* "sum", "rowsum", "softmax", "logsoftmax", "allreduce" */
const char *dtype_name(dtype dt);      /* "f32", "f16", "bf16" */
size_t dtype_bytes(dtype dt);          /* 4, 2, 2 */
/* "f32", "f16" or "bf16" into *out: 0, or -1 for any other text. */
int parse_dtype(const char *text, dtype *out);

#endif /* CLI_H */
