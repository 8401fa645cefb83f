/* SPDX-License-Identifier: MIT */
/* grade.h: the parts of the grader (tools/grade.c) that the host tests call directly. */
#ifndef GRADE_H
#define GRADE_H

#include <stddef.h>

#define GRADE_NAME_MAX 64

/* "correctness STAGE SUITE CHECK RUN [SANITIZERS]": the all-or-nothing points of the stage's
   gpu suite, program check, standard run and sanitizer test (no fifth field: that test still
   decides correctness, for no points). */
typedef struct {
    char stage[GRADE_NAME_MAX];
    double suite_points, check_points, run_points, sanitizer_points;
    int line;
} correct_rule;

/* "performance STAGE VARIANT OP DTYPE PCT POINTS": full POINTS at PCT percent of the measured
   ceiling, proportionally fewer below. */
typedef struct {
    char stage[GRADE_NAME_MAX], variant[GRADE_NAME_MAX], op[16], dtype[8];
    double pct, points;
    int line;
} perf_rule;

typedef struct {
    correct_rule *correct;
    size_t n_correct;
    perf_rule *perf;
    size_t n_perf;
} thresholds_t;

/* Parses the text of a thresholds file. Returns 0 with *t filled (free with thresholds_free),
   or -1 with *t empty and "name:line: message" in err. */
int thresholds_parse(const char *text, const char *name, thresholds_t *t, char *err,
                     size_t err_len);
void thresholds_free(thresholds_t *t);
const correct_rule *thresholds_correctness(const thresholds_t *t, const char *stage);

/* points at or above threshold_pct, points * pct / threshold_pct below, 0 when the stage is not
   correct or pct is not a non-negative number; rounded to 0.01. */
double perf_score(double points, double pct, double threshold_pct, int stage_correct);
double round_points(double x); /* to the nearest 0.01 */

/* One variant of a results CSV (its medians), read by the results tool's reader. */
typedef struct {
    double pct_of_ceiling, gbps, ceiling_gbps;
    int check_ok; /* every row of it passed its check */
} csv_hit;

/* stage/variant/op/dtype in the text of a results CSV: 1 (and *hit), 0 when absent, -1 when the
   text is not a results CSV. */
int csv_find(const char *text, const char *stage, const char *variant, const char *op,
             const char *dtype, csv_hit *hit);

/* The rows of stage in a results CSV and those whose check is FAIL: 0, or -1 as above. */
int csv_count(const char *text, const char *stage, size_t *rows, size_t *failed);

/* s[0..len) as a JSON string literal: quotes, backslashes and control characters escaped, valid
   UTF-8 kept, each byte of an invalid sequence \ufffd. malloc'd; NULL when memory runs out. */
char *json_string(const char *s, size_t len);

/* The lines of a long output that name a failure (at most 20), then its last tail_lines lines
   (the whole text when it has at most 2 * tail_lines lines), cut to max_bytes. malloc'd. */
char *output_excerpt(const char *text, size_t len, size_t tail_lines, size_t max_bytes);

/* compute-sanitizer's findings in one run's output: the count of its "ERROR SUMMARY: N errors"
   or "RACECHECK SUMMARY: N hazards" line (the larger), -1 when it has neither (the tool did not
   finish). */
int sanitizer_findings(const char *text);

/* The tool's first report, for a student: its "=========" lines from the first finding, at
   most max_lines, up to the blank line or the host backtrace that ends it, each cut to 160
   characters; then the summary line. "" when there is none. malloc'd. */
char *sanitizer_report(const char *text, size_t max_lines);

/* The "# sm_count: N" of a results CSV; 0 when it has none. */
int csv_sm_count(const char *text);

/* The sanitizer test's sizes on a GPU of sms SMs (another value than 1 .. 100000: 132): full
   sums of 1, 33, 1025, 65537 and 65536 x sms + 7 floats (two unrolled laps of 16-byte packs for
   every thread of a full grid, then a tail) and rows = 32 x sms + 3 (more rows than the GPU
   holds blocks: each block loops over rows). */
void sanitizer_sizes(int sms, char *n_sum, size_t n_len, char *rows, size_t rows_len);

#endif /* GRADE_H */
