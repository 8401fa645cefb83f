/* SPDX-License-Identifier: MIT */
/* results: the one reader of the results CSVs; draws the plots and writes the tables.
 *
 *   build/results plot RESULTS_DIR OUT_DIR    every plot the data allows, as PNG, into OUT_DIR
 *                                             (the scripts: plots/ beside build/, else ./plots)
 *   build/results tables RESULTS_DIR [--write]  the generated blocks of the READMEs and
 *       BENCHMARKS.md of the current folder; without --write, which files would change
 *
 * Any CSV of RESULTS_DIR may be missing: what needs it is skipped, with a note. Exit: 0 ok, 1 a
 * malformed CSV (file:line) or a plot gnuplot could not draw, 2 usage, 3 no gnuplot.
 */
#include "results.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- the command ------------------------------------------------------------ */

/* A usage error: one line on stderr, exit status 2. */
static int usage(const char *why, const char *arg)
{
    fputs("results: ", stderr);
    fprintf(stderr, why, arg ? arg : "");
    fputs(" (results -h for the usage)\n", stderr);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 2) return usage("no command: plot or tables", NULL);
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
        fputs("usage: results plot RESULTS_DIR OUT_DIR\n"
              "       results tables RESULTS_DIR [--write]\n",
              stdout);
        return 0;
    }
    const char *pos[2] = {NULL, NULL};
    int npos = 0, write = 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--write") == 0)
            write = 1;
        else if (a[0] == '-' && a[1])
            return usage("unknown or incomplete option '%s'", a);
        else if (npos < 2)
            pos[npos++] = a;
        else
            return usage("too many arguments", NULL);
    }
    int is_plot = strcmp(cmd, "plot") == 0, is_tables = strcmp(cmd, "tables") == 0;
    if (!is_plot && !is_tables) return usage("unknown command '%s'", cmd);
    if (npos != (is_plot ? 2 : 1))
        return usage(is_plot ? "plot needs RESULTS_DIR and OUT_DIR" : "needs RESULTS_DIR", NULL);
    if (write && !is_tables) return usage("--write goes with tables", NULL);
    struct stat st;
    if (stat(pos[0], &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "results: no results folder '%s' (run 'make run' and 'make sweep' first)\n",
                pos[0]);
        return 2;
    }
    res_set s;
    char err[1200];
    if (res_load_set(pos[0], &s, err, sizeof err) != 0) {
        fprintf(stderr, "results: %s\n", err);
        return 1;
    }
    for (int k = 0; k < F_COUNT; k++)
        if (s.f[k].n_fail_rows)
            fprintf(stderr, "results: %s: %zu row(s) whose check is FAIL are not drawn or used\n",
                    s.f[k].name, s.f[k].n_fail_rows);
    int rc;
    char dir[PATH_MAX], rd[PATH_MAX + 16];
    if (is_plot) {
        /* the scripts: plots/ beside the program (build/results), else ./plots */
        const char *slash = strrchr(argv[0], '/');
        snprintf(dir, sizeof dir, "%.*s/../plots", slash ? (int)(slash - argv[0]) : 0, argv[0]);
        snprintf(rd, sizeof rd, "%s/common.gp", dir);
        if (!slash || stat(rd, &st) != 0) snprintf(dir, sizeof dir, "plots");
        rc = res_plot(&s, dir, pos[1]);
    } else {
        size_t n = strlen(pos[0]); /* the folder as the tables name it: "plots/reference/" */
        while (n > 1 && pos[0][n - 1] == '/') n--;
        snprintf(dir, sizeof dir, "%.*s/", (int)n, pos[0]);
        rc = res_tables(&s, ".", dir, write);
    }
    res_free(&s);
    return rc;
}
