/* SPDX-License-Identifier: MIT */
/* report.h: the aligned table for people and the CSV for programs. */
#ifndef REPORT_H
#define REPORT_H

#include <stddef.h>
#include <stdio.h>
#include "device.h"
#include "stage.h"

/* One measured (or only checked) variant at one shape. */
typedef struct {
    char stage[32];
    char variant[64];
    op_kind op;
    dtype dt;
    size_t rows, cols;
    size_t bytes;          /* fewest bytes the operation must move */
    double median_us, min_us;
    double gbps;
    double ceiling_gbps;   /* measured in the same run at this shape */
    double pct_of_ceiling;
    double max_err;
    double vs_cub;         /* CUB median / this median; 0 when there is no CUB row */
    int timed;             /* 0: checked only */
    int ok;                /* check passed */
} result_row;

#define CSV_HEADER \
    "gpu,stage,variant,op,dtype,rows,cols,bytes,median_us,min_us,gbps,ceiling_gbps,pct_of_ceiling,max_err,check"

/* Fewest bytes the operation moves: each input read once, each output written once. */
size_t op_bytes(op_kind op, dtype in, dtype out, size_t rows, size_t cols);

/* "n=268435456" for sums, "65536x1024" for matrices. Cannot fail. */
void format_shape(op_kind op, size_t rows, size_t cols, char *buf, size_t len);

/* Prints the table header / one row to f. Cannot fail. */
void table_header(FILE *f);
void table_row(FILE *f, const result_row *r);

/* Writes one CSV row (no newline handling beyond the trailing '\n'). */
void csv_write_row(FILE *f, const char *gpu, const result_row *r);

/* Appends r to the CSV at path; writes the '#' device lines and the header
   first when the file is new or empty. Returns 0, or -1 with errno set when
   the file cannot be opened or written. */
int csv_append(const char *path, const device_info *d, const result_row *r);

/* Parses one CSV data row into *r (gpu name into gpu[gpu_len]). Returns 0,
   or -1 for a comment, the header, or a malformed line. */
int csv_parse_row(const char *line, result_row *r, char *gpu, size_t gpu_len);

#endif /* REPORT_H */
