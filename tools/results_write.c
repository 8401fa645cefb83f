/* SPDX-License-Identifier: MIT */
/* results_write.c: `build/results tables`: the generated blocks put into the READMEs and
   BENCHMARKS.md, or, without --write, a unified diff of what would change. */
#include "results.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- files ------------------------------------------------------------------------ */

/* Writes text to path through a temporary file and a rename. Returns 0, or -1 (errno). */
static int write_text(const char *path, const char *text)
{
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) return -1;
    size_t n = strlen(text);
    int bad = fwrite(text, 1, n, f) != n;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        remove(tmp);
        return -1;
    }
    return 0;
}

/* Prints a unified diff of old and new text of name (diff -u on two temporary files). */
static void print_diff(const char *name, const char *old, const char *new)
{
    char d[1024], a[1100], b[1100];
    if (!res_temp_dir(d, sizeof d)) return;
    snprintf(a, sizeof a, "%s/old", d);
    snprintf(b, sizeof b, "%s/new", d);
    fflush(stdout);
    if (write_text(a, old) == 0 && write_text(b, new) == 0)
        res_run("diff -u -L 'a/%s' -L 'b/%s' '%s' '%s'; true", name, name, a, b);
    res_run("rm -rf '%s'", d);
}

/* ---- the files to rebuild ------------------------------------------------------------ */

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The stage folders of root (NN_name), sorted; returns how many (at most max). */
static size_t stage_dirs(const char *root, char **out, size_t max)
{
    DIR *d = opendir(root);
    if (!d) return 0;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        const char *s = e->d_name;
        if (!(s[0] >= '0' && s[0] <= '9' && s[1] >= '0' && s[1] <= '9' && s[2] == '_' && s[3]))
            continue;
        char path[1024];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", root, s);
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) out[n++] = strdup(s);
    }
    closedir(d);
    qsort(out, n, sizeof *out, cmp_str);
    return n;
}

typedef struct {
    size_t changed, failed;
    int write;
} run_state;

/* Compares old and new text of root/name and writes or diffs it. */
static void settle(run_state *r, const char *root, const char *name, const char *old,
                   const char *new)
{
    if (strcmp(old, new) == 0) return;
    r->changed++;
    if (!r->write) {
        print_diff(name, old, new);
        return;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, name);
    if (write_text(path, new) != 0) {
        fprintf(stderr, "results: cannot write %s: %s\n", path, strerror(errno));
        r->failed++;
        return;
    }
    printf("updated %s\n", name);
}

typedef int (*block_fn)(const res_set *, const char *stage, const char *label, sbuf *);

/* Rebuilds the named blocks of root/name; a missing file or marker is one note on stderr. */
static void rebuild(run_state *r, const res_set *s, const char *root, const char *name,
                    const char *stage, const char *label, const char *const *marker,
                    const block_fn *fn, size_t nblocks)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, name);
    char *old = res_read_all(path);
    if (!old) {
        fprintf(stderr, "results: cannot read %s: %s; skipped\n", path, strerror(errno));
        return;
    }
    char *text = strdup(old);
    for (size_t k = 0; k < nblocks && text; k++) {
        sbuf b = {0};
        fn[k](s, stage, label, &b);
        char *next = res_replace_marker(text, marker[k], b.s ? b.s : "");
        sb_free(&b);
        if (!next) {
            fprintf(stderr,
                    "results: %s: no '<!-- %s:begin -->' ... '<!-- %s:end -->' marker "
                    "lines (each once, in that order); that block is skipped\n",
                    name, marker[k], marker[k]);
            continue;
        }
        free(text);
        text = next;
    }
    if (text) settle(r, root, name, old, text);
    free(text);
    free(old);
}

static int ladder_block(const res_set *s, const char *stage, const char *label, sbuf *b)
{
    (void)stage;
    return res_md_ladder(s, label, b);
}

int res_tables(const res_set *s, const char *root, const char *label, int write)
{
    run_state r = {0, 0, write};
    char *dirs[64];
    size_t nd = stage_dirs(root, dirs, 64);
    static const char *const stage_markers[2] = {"results", "evidence"};
    static const block_fn stage_fns[2] = {res_md_stage_results, res_md_stage_evidence};
    for (size_t i = 0; i < nd; i++) {
        char name[1024];
        snprintf(name, sizeof name, "%s/README.md", dirs[i]);
        rebuild(&r, s, root, name, dirs[i], label, stage_markers, stage_fns, 2);
        free(dirs[i]);
    }
    static const char *const top_markers[1] = {"ladder"};
    static const block_fn top_fns[1] = {ladder_block};
    rebuild(&r, s, root, "README.md", NULL, label, top_markers, top_fns, 1);

    char path[1024];
    snprintf(path, sizeof path, "%s/BENCHMARKS.md", root);
    char *old = res_read_all(path);
    if (!old && errno != ENOENT) {
        fprintf(stderr, "results: cannot read %s: %s\n", path, strerror(errno));
        r.failed++;
    } else {
        sbuf b = {0};
        res_md_benchmarks(s, label, &b);
        settle(&r, root, "BENCHMARKS.md", old ? old : "", b.s);
        sb_free(&b);
    }
    free(old);

    if (r.changed == 0)
        printf("results: the tables are up to date\n");
    else if (!write)
        printf("results: %zu file(s) would change; run with --write to write them\n", r.changed);
    return r.failed ? 1 : 0;
}
