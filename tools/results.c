/* SPDX-License-Identifier: MIT */
/* results: the one reader of the results CSVs; draws the plots and writes the tables.
 *
 *   build/results plot RESULTS_DIR OUT_DIR [--scripts DIR] [--png]
 *       every plot the data allows, PNG and SVG (--png: PNG only), into OUT_DIR (gnuplot
 *       scripts: plots/)
 *   build/results tables RESULTS_DIR [--write] [--root DIR]
 *       the generated blocks of the stage READMEs and README.md, and BENCHMARKS.md;
 *       without --write prints a diff of what would change and writes nothing
 *
 * RESULTS_DIR holds run.csv, sweep.csv, rows.csv, softmax.csv, shapes.csv, peer.csv and
 * profile.csv; any may be missing (what needs it is skipped with a note). Exit status: 0 ok,
 * 1 a malformed CSV (one line naming file:line) or a plot gnuplot could not draw, 2 usage,
 * 3 gnuplot missing (plot).
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "results.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define USAGE                                                           \
    "usage: results plot RESULTS_DIR OUT_DIR [--scripts DIR] [--png]\n" \
    "       results tables RESULTS_DIR [--write] [--root DIR]\n"

/* A usage error: one line on stderr, exit status 2. */
static int usage(const char *why)
{
    fprintf(stderr, "results: %s (results -h for the usage)\n", why);
    return 2;
}

/* The results folder as the tables show it: relative to root when inside it, with a '/'. */
static void results_label(const char *dir, const char *root, char *out, size_t len)
{
    char rd[PATH_MAX], rr[PATH_MAX];
    if (realpath(dir, rd) && realpath(root, rr)) {
        size_t k = strlen(rr);
        if (strncmp(rd, rr, k) == 0 && rd[k] == '/') {
            snprintf(out, len, "%s/", rd + k + 1);
            return;
        }
        if (strcmp(rd, rr) == 0) {
            snprintf(out, len, "./");
            return;
        }
    }
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') n--;
    snprintf(out, len, "%.*s/", (int)n, dir);
}

/* plots/ beside the program (build/results -> plots/), else ./plots. */
static void default_scripts(const char *argv0, char *out, size_t len)
{
    const char *slash = strrchr(argv0, '/');
    struct stat st;
    if (slash) {
        snprintf(out, len, "%.*s/../plots", (int)(slash - argv0), argv0);
        char probe[PATH_MAX + 16];
        snprintf(probe, sizeof probe, "%s/common.gp", out);
        if (stat(probe, &st) == 0) return;
    }
    snprintf(out, len, "plots");
}

int main(int argc, char **argv)
{
    if (argc < 2) return usage("no command: plot or tables");
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
        fputs(USAGE, stdout);
        return 0;
    }
    const char *pos[2] = {NULL, NULL}, *root = ".", *scripts = NULL;
    int npos = 0, write = 0, have_root = 0, png = 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--write") == 0)
            write = 1;
        else if (strcmp(a, "--png") == 0)
            png = 1;
        else if (strcmp(a, "--root") == 0 && i + 1 < argc) {
            root = argv[++i];
            have_root = 1;
        } else if (strcmp(a, "--scripts") == 0 && i + 1 < argc)
            scripts = argv[++i];
        else if (a[0] == '-' && a[1]) {
            char why[160];
            snprintf(why, sizeof why, "unknown or incomplete option '%s'", a);
            return usage(why);
        } else if (npos < 2)
            pos[npos++] = a;
        else
            return usage("too many arguments");
    }
    int is_plot = strcmp(cmd, "plot") == 0, is_tables = strcmp(cmd, "tables") == 0;
    if (!is_plot && !is_tables) {
        char why[160];
        snprintf(why, sizeof why, "unknown command '%s'", cmd);
        return usage(why);
    }
    if (npos != (is_plot ? 2 : 1))
        return usage(is_plot ? "plot needs RESULTS_DIR and OUT_DIR" : "needs RESULTS_DIR");
    if ((write || have_root) && !is_tables) return usage("--write and --root go with tables");
    if ((scripts || png) && !is_plot) return usage("--scripts and --png go with plot");
    struct stat st;
    if (stat(pos[0], &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr,
                "results: no results folder '%s' (run 'make run' and 'make sweep' "
                "first)\n",
                pos[0]);
        return 2;
    }

    res_set s;
    char err[1200];
    if (res_load_set(pos[0], &s, err, sizeof err) != 0) {
        fprintf(stderr, "results: %s\n", err);
        return 1;
    }
    for (int k = 0; k < F_COUNT; k++) {
        if (s.f[k].n_fail_rows)
            fprintf(stderr, "results: %s: %zu row(s) whose check is FAIL are not drawn or used\n",
                    s.f[k].name, s.f[k].n_fail_rows);
        if (k != F_PEER && s.f[k].present && s.f[F_PEER].present &&
            strcmp(s.f[k].gpu, s.f[F_PEER].gpu) != 0)
            fprintf(stderr,
                    "results: %s was measured on %s, peer.csv on %s: no torch ratios "
                    "between them\n",
                    s.f[k].name, s.f[k].gpu, s.f[F_PEER].gpu);
    }
    int rc = 0;
    if (is_plot) {
        char dir[PATH_MAX];
        if (scripts)
            snprintf(dir, sizeof dir, "%s", scripts);
        else
            default_scripts(argv[0], dir, sizeof dir);
        rc = res_plot(&s, dir, pos[1], png);
    } else {
        char label[PATH_MAX + 2];
        results_label(pos[0], root, label, sizeof label);
        rc = res_tables(&s, root, label, write);
    }
    res_free(&s);
    return rc;
}
