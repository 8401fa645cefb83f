/* SPDX-License-Identifier: MIT */
/* grade.h: the pieces of the grader (tools/grade.c) that the host tests call directly:
   the thresholds file, the score arithmetic, the results CSV lookup and JSON strings. */
#ifndef GRADE_H
#define GRADE_H

#include <stddef.h>

#define GRADE_NAME_MAX 64

/* "correctness STAGE SUITE CHECK RUN [SANITIZERS]": all-or-nothing points of the stage's
   correctness tests (gpu suite, program check at awkward sizes, standard-size run, and the
   compute-sanitizer test; without the fifth field that test earns no points but still
   decides, with the others, whether the stage is correct). */
typedef struct {
    char stage[GRADE_NAME_MAX];
    double suite_points, check_points, run_points, sanitizer_points;
    int line;
} correct_rule;

/* "performance STAGE VARIANT OP DTYPE PCT POINTS": full POINTS when the variant reaches PCT
   percent of the measured ceiling at the standard size, proportionally fewer below. */
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

/* Parses the text of a thresholds file ('#' comments, blank lines, whitespace-separated
   fields). Returns 0 with *t filled (free with thresholds_free), or -1 with *t empty and one
   line "name:line: message" in err for an unknown keyword, a wrong field count, a number
   that is not one (or out of range: PCT in (0, 100], points >= 0), an unknown op or dtype,
   a stage name not of the NN_name form, or a rule given twice. */
int thresholds_parse(const char *text, const char *name, thresholds_t *t, char *err,
                     size_t err_len);
void thresholds_free(thresholds_t *t);

/* The correctness rule of stage, or NULL when the file has none. */
const correct_rule *thresholds_correctness(const thresholds_t *t, const char *stage);

/* Points earned by a variant at pct percent of the ceiling against a threshold of
   threshold_pct (> 0): points at or above it, points * pct / threshold_pct below, 0 when the
   stage is not correct or pct is not a non-negative number. Rounded to 0.01. Cannot fail. */
double perf_score(double points, double pct, double threshold_pct, int stage_correct);

/* x rounded to the nearest 0.01 (the precision of every score the grader reports). */
double round_points(double x);

/* One variant of a results CSV (its medians where it has several rows), read by the results
   tool's reader (results.h). */
typedef struct {
    double pct_of_ceiling, gbps, ceiling_gbps;
    int check_ok; /* every row of it passed its check */
} csv_hit;

/* Looks for stage/variant/op/dtype in the text of a results CSV. Returns 1 and fills *hit, 0
   when there is no such row, -1 when the text is not a results CSV (no header, a malformed
   row). */
int csv_find(const char *text, const char *stage, const char *variant, const char *op,
             const char *dtype, csv_hit *hit);

/* Counts the rows of stage in a results CSV (*rows) and those whose check is FAIL (*failed).
   Returns 0, or -1 when the text is not a results CSV. */
int csv_count(const char *text, const char *stage, size_t *rows, size_t *failed);

/* s[0..len) as a JSON string literal, quotes included: '"', '\\' and control characters
   escaped, valid UTF-8 kept as it is, each byte of an invalid UTF-8 sequence replaced by
   \ufffd. Returns a malloc'd NUL-terminated string, or NULL when memory runs out. */
char *json_string(const char *s, size_t len);

/* The part of a long program output worth showing: the lines that name a failure (FAIL,
   error, timed out, past the end, Assertion, ...; at most 20), then the last tail_lines
   lines; the whole text when it has at most 2 * tail_lines lines. Cut to max_bytes.
   Returns a malloc'd string, or NULL when memory runs out. */
char *output_excerpt(const char *text, size_t len, size_t tail_lines, size_t max_bytes);

/* ---- the sanitizer test ---------------------------------------------------- */

/* What compute-sanitizer found in the text of one run's output: the errors of its
   "ERROR SUMMARY: N errors" line, or the hazards of racecheck's "RACECHECK SUMMARY: N hazards
   displayed" line (warnings included), the larger where both are printed. Returns that count,
   or -1 when the text has no such line (the tool did not finish: it crashed or was killed).
   Cannot fail. */
int sanitizer_findings(const char *text);

/* The tool's first report in the text of one run's output, for a student to read: its
   "=========" lines from the first that names a finding, up to max_lines of them, stopping
   at the blank "=========" that ends the report or at its host backtrace, each line cut to
   160 characters; then the summary line. "" when the text holds no report. Returns a
   malloc'd string, or NULL when memory runs out. */
char *sanitizer_report(const char *text, size_t max_lines);

/* The SM count of the GPU that wrote a results CSV (its "# sm_count: N" line), or 0 when the
   text has none. */
int csv_sm_count(const char *text);

/* The sizes the sanitizer test checks, from the GPU's SM count (sms > 0; another value is
   taken as 132): full sums of n_sum = 1, 33, 1025, 65537 and 65536 x sms + 7 floats (more
   than two unrolled laps of 16-byte packs for every thread of a grid that fills the GPU, then
   a tail), and matrices of rows = 32 x sms + 3 (more rows than the GPU holds blocks of 64 or
   more threads, so each block loops over rows and its block reduce runs back to back) by
   1, 33 and 2051 columns for row sums (odd rows start off 16-byte boundaries; a row is two
   laps of packs for 256 threads) and 1, 33, 1025 for softmax. Fills the comma lists. */
void sanitizer_sizes(int sms, char *n_sum, size_t n_len, char *rows, size_t rows_len);

#endif /* GRADE_H */
