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

/* The whole file as a malloc'd string; NULL with errno set when it cannot be read. */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    sbuf b = {0};
    char chunk[8192];
    size_t k;
    sb_add(&b, "");
    while ((k = fread(chunk, 1, sizeof chunk, f)) > 0) sb_printf(&b, "%.*s", (int)k, chunk);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        sb_free(&b);
        errno = EIO;
        return NULL;
    }
    return b.s;
}

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

/* ---- a unified diff (LCS over the lines that differ) ---------------------------------- */

typedef struct {
    const char **p;
    size_t *len, n;
} lines_t;

static void split_lines(const char *text, lines_t *l)
{
    size_t cap = 64;
    l->n = 0;
    l->p = malloc(cap * sizeof *l->p);
    l->len = malloc(cap * sizeof *l->len);
    for (const char *s = text; l->p && l->len && *s;) {
        const char *nl = strchr(s, '\n');
        size_t k = nl ? (size_t)(nl - s) : strlen(s);
        if (l->n == cap) {
            cap *= 2;
            l->p = realloc(l->p, cap * sizeof *l->p);
            l->len = realloc(l->len, cap * sizeof *l->len);
            if (!l->p || !l->len) break;
        }
        l->p[l->n] = s;
        l->len[l->n++] = k;
        s += k + (nl ? 1 : 0);
    }
    if (!l->p || !l->len) {
        fprintf(stderr, "results: out of memory\n");
        exit(1);
    }
}

static int same_line(const lines_t *a, size_t i, const lines_t *b, size_t j)
{
    return a->len[i] == b->len[j] && memcmp(a->p[i], b->p[j], a->len[i]) == 0;
}

typedef struct {
    char kind;   /* ' ', '-', '+' */
    size_t a, b; /* line index in old and new before this op */
} diff_op;

static void print_hunk(const diff_op *op, size_t lo, size_t hi, const lines_t *a, const lines_t *b)
{
    size_t na = 0, nb = 0;
    for (size_t k = lo; k < hi; k++) {
        na += op[k].kind != '+';
        nb += op[k].kind != '-';
    }
    printf("@@ -%zu,%zu +%zu,%zu @@\n", na ? op[lo].a + 1 : op[lo].a, na,
           nb ? op[lo].b + 1 : op[lo].b, nb);
    for (size_t k = lo; k < hi; k++) {
        const lines_t *l = op[k].kind == '+' ? b : a;
        size_t i = op[k].kind == '+' ? op[k].b : op[k].a;
        printf("%c%.*s\n", op[k].kind, (int)l->len[i], l->p[i]);
    }
}

/* Prints a unified diff (3 lines of context) of old and new, named name. */
static void print_diff(const char *name, const char *old, const char *new)
{
    lines_t a, b;
    split_lines(old, &a);
    split_lines(new, &b);
    size_t pre = 0, suf = 0;
    while (pre < a.n && pre < b.n && same_line(&a, pre, &b, pre)) pre++;
    while (suf < a.n - pre && suf < b.n - pre && same_line(&a, a.n - 1 - suf, &b, b.n - 1 - suf))
        suf++;
    size_t n = a.n - pre - suf, m = b.n - pre - suf;
    /* L[i][j]: the longest common subsequence of the middles from i and j on */
    unsigned *L = NULL;
    if ((n + 1) * (m + 1) <= (size_t)64 << 20) L = calloc((n + 1) * (m + 1), sizeof *L);
    diff_op *op = malloc((a.n + b.n + 1) * sizeof *op);
    if (!op) {
        fprintf(stderr, "results: out of memory\n");
        exit(1);
    }
    if (L)
        for (size_t i = n; i-- > 0;)
            for (size_t j = m; j-- > 0;)
                L[i * (m + 1) + j] = same_line(&a, pre + i, &b, pre + j)
                                         ? L[(i + 1) * (m + 1) + j + 1] + 1
                                         : (L[(i + 1) * (m + 1) + j] >= L[i * (m + 1) + j + 1]
                                                ? L[(i + 1) * (m + 1) + j]
                                                : L[i * (m + 1) + j + 1]);
    size_t no = 0, i = 0, j = 0;
    for (size_t k = 0; k < pre; k++) op[no++] = (diff_op){' ', k, k};
    while (i < n || j < m) {
        if (L && i < n && j < m && same_line(&a, pre + i, &b, pre + j)) {
            op[no++] = (diff_op){' ', pre + i, pre + j};
            i++, j++;
        } else if (i < n && (j == m || !L || L[(i + 1) * (m + 1) + j] >= L[i * (m + 1) + j + 1])) {
            op[no++] = (diff_op){'-', pre + i, pre + j};
            i++;
        } else {
            op[no++] = (diff_op){'+', pre + i, pre + j};
            j++;
        }
    }
    for (size_t k = 0; k < suf; k++) op[no++] = (diff_op){' ', pre + n + k, pre + m + k};
    printf("--- a/%s\n+++ b/%s\n", name, name);
    const size_t ctx = 3;
    for (size_t k = 0; k < no;) {
        if (op[k].kind == ' ') {
            k++;
            continue;
        }
        size_t lo = k > ctx ? k - ctx : 0, last = k;
        for (size_t q = k; q < no && q <= last + 2 * ctx; q++)
            if (op[q].kind != ' ') last = q;
        size_t hi = last + ctx + 1 < no ? last + ctx + 1 : no;
        print_hunk(op, lo, hi, &a, &b);
        k = hi;
    }
    free(L);
    free(op);
    free(a.p);
    free(a.len);
    free(b.p);
    free(b.len);
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
    char *old = read_text(path);
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
    char *old = read_text(path);
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
