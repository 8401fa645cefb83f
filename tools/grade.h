/* SPDX-License-Identifier: MIT */
/* grade.h: the parts of the grader (tools/grade.c) that the host tests call directly. */
#ifndef GRADE_H
#define GRADE_H

#include <stddef.h>

#define GRADE_NAME_MAX 64

/* The two rules of tools/thresholds.txt (its header says what each field is). */
typedef struct {
    char stage[GRADE_NAME_MAX];
    double suite_points, check_points, run_points, sanitizer_points;
    int line;
} correct_rule;

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

/* A thresholds file's text: 0 with *t filled, or -1 with *t empty and "name:line: why" in err. */
int thresholds_parse(const char *text, const char *name, thresholds_t *t, char *err,
                     size_t err_len);
void thresholds_free(thresholds_t *t);
const correct_rule *thresholds_correctness(const thresholds_t *t, const char *stage);

/* points at threshold_pct or above, points * pct / threshold_pct below, 0 when the stage is not
   correct or pct is no number >= 0; rounded to 0.01. */
double perf_score(double points, double pct, double threshold_pct, int stage_correct);
double round_points(double x); /* to the nearest 0.01 */

/* What a results CSV holds of a stage, read by the results tool's reader: its rows, those whose
   check is FAIL, and one variant's medians. */
typedef struct {
    double pct_of_ceiling, gbps, ceiling_gbps;
    int check_ok; /* every row of the variant passed its check */
    size_t rows, failed;
} csv_hit;

/* In the text of a results CSV: stage's rows, and stage/variant/op/dtype (variant NULL: none).
   1 when the variant is there, 0 when not, -1 when the text is not a results CSV. */
int csv_find(const char *text, const char *stage, const char *variant, const char *op,
             const char *dtype, csv_hit *hit);

/* s[0..len) as a JSON string literal (malloc'd): quotes, backslashes and control characters
   escaped, valid UTF-8 kept, each byte of an invalid sequence \ufffd. */
char *json_string(const char *s, size_t len);

/* What to show of a long output (malloc'd): the lines that name a failure (at most 20), then
   the last tail_lines (all of it up to 2 * tail_lines lines), cut to max_bytes. */
char *output_excerpt(const char *text, size_t len, size_t tail_lines, size_t max_bytes);

/* The N of compute-sanitizer's "ERROR SUMMARY: N errors" or "RACECHECK SUMMARY: N hazards" in
   one run's output (the larger), -1 when it has neither (the tool did not finish). */
int sanitizer_findings(const char *text);

/* The tool's first report (malloc'd; "" when none): its "=========" lines from the first
   finding to the blank line or host backtrace that ends it, at most max_lines, each cut to 160
   characters, then the summary line. */
char *sanitizer_report(const char *text, size_t max_lines);

/* The "# sm_count: N" of a results CSV; 0 when it has none. */
int csv_sm_count(const char *text);

/* The sanitizer test's sizes on sms SMs (another value than 1 .. 100000: 132), where every loop
   of every kernel runs more than once (INSTRUCTORS.md, The sanitizer test). */
void sanitizer_sizes(int sms, char *n_sum, size_t n_len, char *rows, size_t rows_len);

#endif /* GRADE_H */
