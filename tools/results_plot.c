/* SPDX-License-Identifier: MIT */
/* results_plot.c: `build/results plot`: the data of every plot cut from the aggregate into a
   temporary folder, gnuplot run on plots/<script>.gp for each PNG (only rows whose check is ok;
   a missing CSV skips its plots with a note):
     ladder            run.csv: full sum at the largest n, a bar per stage/variant
     sweep, latency    sweep.csv: GB/s (and time, n <= 2^20) against n, key variants
     rows              rows.csv: row-sum GB/s against cols
     softmax_<dt>, logsoftmax_<dt>  softmax.csv + peer.csv: GB/s against cols
     shapes_<op>       shapes.csv + peer.csv: % of the ceiling per real-world shape
     allreduce_<G>gpu  allreduce*.csv (08): busbw against n on G GPUs, the peer copy as ceiling */
#include "results.h"
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_SERIES 48
#define MAX_POINTS 256

typedef struct {
    const char *tmp, *gpdir, *outdir;
    size_t drawn, failed;
} plot_ctx;

/* ---- small helpers ------------------------------------------------------------------ */

/* s as a gnuplot single-quoted string (a quote is written twice). */
static void gq(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'') fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

static FILE *open_in(const plot_ctx *c, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", c->tmp, name);
    FILE *f = fopen(path, "w");
    if (!f) fprintf(stderr, "results: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

/* The gpu, date (YYYY-MM-DD) and source lines every vars file starts with. */
static void vars_header(FILE *f, const char *gpu, const char *date, const char *src)
{
    char d[16];
    int iso = strlen(date) >= 10 && date[4] == '-' && date[7] == '-';
    snprintf(d, sizeof d, "%.10s", date);
    fputs("gpu = ", f);
    gq(f, gpu);
    fputs("\ndate = ", f);
    gq(f, iso ? d : date);
    fputs("\nsrc = ", f);
    gq(f, src);
    fputc('\n', f);
}

static void label_of(const res_entry *e, char *buf, size_t len)
{
    if (e->dt == DT_F32)
        snprintf(buf, len, "%s/%s", e->stage, e->variant);
    else
        snprintf(buf, len, "%s/%s (%s)", e->stage, e->variant, dtype_name(e->dt));
}

/* Runs gnuplot on gpdir/script.gp, writing outdir/image.png; the script reads fmt, dir, gpdir,
   vars (the tmp folder's pfx.vars) and out from set.gp. */
static void draw(plot_ctx *c, const char *script, const char *image, const char *pfx)
{
    char out[1024], errp[1024], vars[1200];
    snprintf(vars, sizeof vars, "%s/%s.vars", c->tmp, pfx);
    snprintf(out, sizeof out, "%s/%s.png", c->outdir, image);
    snprintf(errp, sizeof errp, "%s/gnuplot.err", c->tmp);
    remove(out);
    FILE *f = open_in(c, "set.gp");
    const char *vals[5][2] = {
        {"fmt", "png"}, {"dir", c->tmp}, {"gpdir", c->gpdir}, {"vars", vars}, {"out", out}};
    for (int i = 0; f && i < 5; i++) {
        fprintf(f, "%s = ", vals[i][0]);
        gq(f, vals[i][1]);
        fputc('\n', f);
    }
    int st = f ? fclose(f) : -1;
    if (st == 0)
        st = res_run("gnuplot '%s/set.gp' '%s/%s.gp' 2>'%s'", c->tmp, c->gpdir, script, errp);
    char *msg = res_read_all(errp);
    struct stat sst;
    if (st == 0 && stat(out, &sst) == 0 && sst.st_size > 0) {
        /* gnuplot warnings (a series with no points) still matter */
        if (msg && *msg) fprintf(stderr, "results: %s.png: gnuplot says:\n%s", image, msg);
        printf("%s\n", out);
        c->drawn++;
    } else {
        fprintf(stderr, "results: gnuplot failed on %s.png (%s/%s.gp):\n%s", image, c->gpdir,
                script, msg && *msg ? msg : "(no message)\n");
        remove(out);
        c->failed++;
    }
    free(msg);
}

/* 1, with a note, when the file f of s (name: as the note calls it) is missing or empty */
static int absent(const res_set *s, const res_file *f, const char *what, const char *name)
{
    if (!f->present)
        fprintf(stderr, "results: %s: %s/%s is missing or empty; skipped\n", what, s->dir, name);
    return !f->present;
}

/* The least k with 2^k >= x (up), or the largest with 2^k <= x. */
static int log2_of(double x, int up)
{
    int k = 0;
    while (up ? ldexp(1.0, k) < x * (1 - 1e-12) : ldexp(1.0, k + 1) <= x * (1 + 1e-12)) k++;
    return k;
}

/* ---- line plots ----------------------------------------------------------------------- */

typedef struct {
    char title[128];
    double lw;
    int style; /* reference series: 101 CUB, 102 ceiling, 103 torch, 104 cuBLAS */
    size_t n;
    double x[MAX_POINTS], gbps[MAX_POINTS], us[MAX_POINTS];
} series;

static void add_point(series *s, double x, const res_entry *e)
{
    if (!res_has(e) || s->n == MAX_POINTS) return;
    size_t i = s->n++;
    while (i > 0 && s->x[i - 1] > x) { /* keep x sorted */
        s->x[i] = s->x[i - 1];
        s->gbps[i] = s->gbps[i - 1];
        s->us[i] = s->us[i - 1];
        i--;
    }
    s->x[i] = x;
    s->gbps[i] = e->gbps;
    s->us[i] = e->median_us;
}

/* Writes pfx_s<i>.dat for S and pfx_r<j>.dat for R (points with x in [lo, hi]) and pfx.vars,
   then draws script.gp into image; says so when S has no point to draw. */
static void line_plot(plot_ctx *c, const char *script, const char *image, const char *pfx,
                      const series *S, size_t ns, const series *R, size_t nr, double lo, double hi,
                      const res_file *src, const char *extra)
{
    double xmin = INFINITY, xmax = 0, umin = INFINITY, umax = 0;
    size_t m = 0, r = 0, sidx[MAX_SERIES], ridx[MAX_SERIES];
    for (int pass = 0; pass < 2; pass++) {
        const series *V = pass ? R : S;
        size_t nv = pass ? nr : ns;
        for (size_t i = 0; i < nv; i++) {
            size_t pts = 0;
            for (size_t k = 0; k < V[i].n; k++) pts += V[i].x[k] >= lo && V[i].x[k] <= hi;
            if (pts == 0 || (pass == 1 && m == 0)) continue;
            char name[160];
            snprintf(name, sizeof name, "%s_%c%zu.dat", pfx, pass ? 'r' : 's', (pass ? r : m) + 1);
            FILE *f = open_in(c, name);
            if (!f) return;
            for (size_t k = 0; k < V[i].n; k++) {
                double x = V[i].x[k];
                if (x < lo || x > hi) continue;
                fprintf(f, "%.17g %.6g %.6g\n", x, V[i].gbps[k], V[i].us[k]);
                if (x < xmin) xmin = x;
                if (x > xmax) xmax = x;
                if (V[i].us[k] < umin) umin = V[i].us[k];
                if (V[i].us[k] > umax) umax = V[i].us[k];
            }
            fclose(f);
            if (pass)
                ridx[r++] = i;
            else
                sidx[m++] = i;
        }
    }
    char name[160];
    snprintf(name, sizeof name, "%s.vars", pfx);
    FILE *f = m ? open_in(c, name) : NULL;
    if (!m) fprintf(stderr, "results: %s: no ok rows in %s; skipped\n", image, src->name);
    if (!f) return;
    vars_header(f, src->gpu, src->date, src->name);
    fprintf(f, "ns = %zu\narray T[%zu]\narray LW[%zu]\n", m, m, m);
    for (size_t i = 0; i < m; i++) {
        fprintf(f, "T[%zu] = ", i + 1);
        gq(f, S[sidx[i]].title);
        fprintf(f, "\nLW[%zu] = %g\n", i + 1, S[sidx[i]].lw);
    }
    fprintf(f, "nr = %zu\narray RT[%zu]\narray RS[%zu]\n", r, r ? r : 1, r ? r : 1);
    for (size_t j = 0; j < r; j++) {
        fprintf(f, "RT[%zu] = ", j + 1);
        gq(f, R[ridx[j]].title);
        fprintf(f, "\nRS[%zu] = %d\n", j + 1, R[ridx[j]].style);
    }
    fprintf(f, "xlo = %.17g\nxhi = %.17g\nkmin = %d\nkmax = %d\numin = %.6g\numax = %.6g\n", xmin,
            xmax, log2_of(xmin, 1), log2_of(xmax, 0), umin, umax);
    if (extra) fprintf(f, "%s\n", extra);
    fclose(f);
    draw(c, script, image, pfx);
}

/* The baseline series of variant (op -1: any) at dtype dt and rows (RES_ANY: any). */
static void base_series(const res_file *f, const char *variant, int op, int dt, size_t rows,
                        series *out, const char *title, int style)
{
    memset(out, 0, sizeof *out);
    snprintf(out->title, sizeof out->title, "%s", title);
    out->style = style;
    for (size_t i = 0; i < f->n; i++) {
        const res_entry *e = &f->e[i];
        if (strcmp(e->stage, "baseline") == 0 && strcmp(e->variant, variant) == 0 &&
            (op < 0 || (int)e->op == op) && (int)e->dt == dt &&
            (rows == RES_ANY || e->rows == rows))
            add_point(out, (double)e->cols, e);
    }
}

/* ---- ladder --------------------------------------------------------------------------- */

// The ok full-sum rows of the stages at n into out[] (at most cap, the first ones in the file),
// in stage order (stable: a stage's variants keep their order); returns how many.
static size_t sum_rows_at(const res_file *run, size_t n, const res_entry **out, size_t cap)
{
    size_t no = 0;
    for (size_t i = 0; i < run->n && no < cap; i++) {
        const res_entry *e = &run->e[i];
        if (e->op != OP_SUM || e->cols != n || res_is_ref(e->stage) || !res_has(e)) continue;
        size_t j = no;
        while (j > 0 && strcmp(out[j - 1]->stage, e->stage) > 0) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = e;
        no++;
    }
    return no;
}

static void plot_ladder(plot_ctx *c, const res_set *s)
{
    const res_file *run = &s->f[F_RUN];
    if (absent(s, run, "ladder", "run.csv")) return;
    const size_t n = res_largest_sum_n(run);
    if (n == 0) {
        fprintf(stderr, "results: ladder: no ok full-sum rows in %s/run.csv; skipped\n", s->dir);
        return;
    }
    const res_entry *bar[MAX_SERIES * 2];
    const size_t nb = sum_rows_at(run, n, bar, MAX_SERIES * 2);
    FILE *f = open_in(c, "ladder.dat");
    if (!f) return;
    double top = 0;
    int stage_no = 0;
    for (size_t i = 0; i < nb; i++) {
        if (i == 0 || strcmp(bar[i]->stage, bar[i - 1]->stage) != 0) stage_no++;
        char lab[160];
        label_of(bar[i], lab, sizeof lab);
        fprintf(f, "%zu %.6g %.6g %d \"%s\"\n", i + 1, bar[i]->gbps, bar[i]->pct, stage_no, lab);
        if (bar[i]->gbps > top) top = bar[i]->gbps;
    }
    fclose(f);
    const res_entry *cub =
        res_find(run, NULL, "baseline", "cub_device_reduce", OP_SUM, DT_F32, 1, n);
    const res_entry *ceil = res_find(run, NULL, "baseline", "read_stream", OP_SUM, DT_F32, 1, n);
    double vc = res_has(cub) ? cub->gbps : -1, vl = res_has(ceil) ? ceil->gbps : -1;
    if (vc > top) top = vc;
    if (vl > top) top = vl;
    const char *files[2] = {"ladder_cub.dat", "ladder_ceil.dat"};
    double vals[2] = {vc, vl};
    for (int k = 0; k < 2; k++)
        if (vals[k] > 0 && (f = open_in(c, files[k]))) {
            fprintf(f, "%.6g 0.4\n%.6g %.6g\n", vals[k], vals[k], nb + 0.6);
            fclose(f);
        }
    if (!(f = open_in(c, "ladder.vars"))) return;
    char nl[32];
    res_pow2(n, nl, sizeof nl);
    vars_header(f, run->gpu, run->date, run->name);
    fprintf(f,
            "nb = %zu\nnlabel = '%s'\ncub = %.6g\nceil = %.6g\nhas_cub = %d\nhas_ceil = %d\n"
            "xmax = %.6g\n",
            nb, nl, vc, vl, vc > 0, vl > 0, top * 1.04);
    fclose(f);
    draw(c, "ladder", "ladder", "ladder");
}

/* ---- sweep and latency ------------------------------------------------------------------ */

static size_t variant_series(const res_file *f, int op, int dt, size_t rows, series *S,
                             const char **stage_of, size_t *elems);

static void plot_sweep(plot_ctx *c, const res_set *s)
{
    const res_file *sw = &s->f[F_SWEEP];
    if (absent(s, sw, "sweep, latency", "sweep.csv")) return;
    /* one series per stage/variant/dtype of the lessons */
    static series S[MAX_SERIES];
    const char *stage[MAX_SERIES];
    size_t elems, ns = variant_series(sw, OP_SUM, -1, RES_ANY, S, stage, &elems);
    /* key variants: the best of each stage at its largest n, and any variant that beats CUB by
       10% or more at some n (a small- or mid-size specialist such as a single-pass sum) */
    static series K[MAX_SERIES], R[2];
    base_series(sw, "cub_device_reduce", OP_SUM, DT_F32, 1, &R[0], "CUB DeviceReduce::Sum", 101);
    base_series(sw, "read_stream", OP_SUM, DT_F32, 1, &R[1], "ceiling: read-only stream", 102);
    int keep[MAX_SERIES] = {0};
    for (size_t i = 0; i < ns; i++) {
        size_t best = i;
        double bx = S[i].x[S[i].n - 1], bg = S[i].gbps[S[i].n - 1];
        for (size_t j = 0; j < ns; j++) {
            if (strcmp(stage[j], stage[i]) != 0) continue;
            double x = S[j].x[S[j].n - 1], g = S[j].gbps[S[j].n - 1];
            if (x > bx || (x == bx && g > bg)) {
                best = j;
                bx = x;
                bg = g;
            }
        }
        keep[best] = 1;
        for (size_t a = 0; a < S[i].n; a++)
            for (size_t b = 0; b < R[0].n; b++)
                if (R[0].x[b] == S[i].x[a] && S[i].gbps[a] >= 1.10 * R[0].gbps[b]) keep[i] = 1;
    }
    size_t nk = 0;
    for (size_t i = 0; i < ns; i++)
        if (keep[i]) K[nk++] = S[i];
    line_plot(c, "sweep", "sweep", "sweep", K, nk, R, 2, 0, INFINITY, sw, NULL);
    line_plot(c, "latency", "latency", "latency", K, nk, R, 2, 0, (double)(1 << 20), sw, NULL);
}

/* ---- rows and softmax: one series per variant against cols ------------------------------ */

/* Series of the lessons' entries of op (and dtype dt, or any when dt < 0; rows, or RES_ANY), in
   ladder order; dispatchers are drawn thicker. Titles: the variant alone when there is one
   stage and one dtype. */
static size_t variant_series(const res_file *f, int op, int dt, size_t rows, series *S,
                             const char **stage_of, size_t *elems)
{
    const res_entry *first[MAX_SERIES];
    size_t ns = 0, nstages = 0;
    const char *stages[MAX_SERIES];
    *elems = 0;
    for (size_t i = 0; i < f->n; i++) {
        const res_entry *e = &f->e[i];
        if ((int)e->op != op || (dt >= 0 && (int)e->dt != dt) || res_is_ref(e->stage) ||
            (rows != RES_ANY && e->rows != rows))
            continue;
        if (e->rows * e->cols > *elems) *elems = e->rows * e->cols;
        size_t j = 0;
        while (j < ns && !(strcmp(first[j]->stage, e->stage) == 0 &&
                           strcmp(first[j]->variant, e->variant) == 0 && first[j]->dt == e->dt))
            j++;
        if (j == ns) {
            if (ns == MAX_SERIES) continue;
            j = ns;
            while (j > 0 && strcmp(first[j - 1]->stage, e->stage) > 0) {
                S[j] = S[j - 1];
                first[j] = first[j - 1];
                j--;
            }
            memset(&S[j], 0, sizeof S[j]);
            first[j] = e;
            S[j].lw = strstr(e->variant, "dispatch") ? 3.5 : 2;
            ns++;
            size_t k = 0;
            while (k < nstages && strcmp(stages[k], e->stage) != 0) k++;
            if (k == nstages) stages[nstages++] = e->stage;
        }
        add_point(&S[j], (double)e->cols, e);
    }
    for (size_t j = 0; j < ns; j++) {
        if (stage_of) stage_of[j] = first[j]->stage;
        if (nstages == 1 && dt >= 0)
            snprintf(S[j].title, sizeof S[j].title, "%s", first[j]->variant);
        else
            label_of(first[j], S[j].title, sizeof S[j].title);
    }
    return ns;
}

static void plot_rows(plot_ctx *c, const res_set *s)
{
    const res_file *rw = &s->f[F_ROWS];
    if (absent(s, rw, "rows", "rows.csv")) return;
    static series S[MAX_SERIES], R[3];
    size_t elems, ns = variant_series(rw, OP_ROWSUM, -1, RES_ANY, S, NULL, &elems);
    base_series(rw, "cub_segmented_reduce", OP_ROWSUM, DT_F32, RES_ANY, &R[0],
                "CUB DeviceSegmentedReduce::Sum", 101);
    base_series(rw, "cublas_gemv", OP_ROWSUM, DT_F32, RES_ANY, &R[1], "cuBLAS Sgemv (x ones)", 104);
    base_series(rw, "read_stream", OP_ROWSUM, DT_F32, RES_ANY, &R[2], "ceiling: read-only stream",
                102);
    char el[32], extra[64];
    res_pow2(elems, el, sizeof el);
    snprintf(extra, sizeof extra, "elements = '%s'", el);
    line_plot(c, "rows", "rows", "rows", S, ns, R, 3, 0, INFINITY, rw, extra);
}

/* 1 when f has any entry of dtype dt at rows x cols. */
static int has_shape(const res_file *f, dtype dt, size_t rows, size_t cols)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->e[i].dt == dt && f->e[i].rows == rows && f->e[i].cols == cols) return 1;
    return 0;
}

static void plot_softmax(plot_ctx *c, const res_set *s)
{
    const res_file *sm = &s->f[F_SOFTMAX], *peer = &s->f[F_PEER];
    if (absent(s, sm, "softmax", "softmax.csv")) return;
    static const op_kind ops[2] = {OP_SOFTMAX, OP_LOGSOFTMAX};
    for (int o = 0; o < 2; o++)
        for (int d = DT_F32; d <= DT_BF16; d++) {
            static series S[MAX_SERIES], R[2];
            size_t elems, ns = variant_series(sm, (int)ops[o], d, RES_ANY, S, NULL, &elems);
            const char *on = op_name(ops[o]), *dn = dtype_name((dtype)d);
            char pfx[32];
            snprintf(pfx, sizeof pfx, "%s_%s", on, dn);
            if (ns == 0) {
                fprintf(stderr, "results: %s: no %s %s rows in %s/softmax.csv; skipped\n", pfx, on,
                        dn, s->dir);
                continue;
            }
            base_series(sm, "copy", OP_SOFTMAX, d, RES_ANY, &R[0], "ceiling: device-to-device copy",
                        102);
            if (R[0].n == 0)
                base_series(sm, "copy", -1, d, RES_ANY, &R[0], "ceiling: device-to-device copy",
                            102);
            memset(&R[1], 0, sizeof R[1]);
            snprintf(R[1].title, sizeof R[1].title, "PyTorch %s",
                     ops[o] == OP_SOFTMAX ? "torch.softmax" : "torch.log_softmax");
            R[1].style = 103;
            /* torch at the shapes of the sweep (peer.csv also holds the real-world shapes) */
            for (size_t i = 0; i < peer->n; i++) {
                const res_entry *e = &peer->e[i];
                if (strcmp(e->variant, res_torch_variant(ops[o])) == 0 && e->op == ops[o] &&
                    (int)e->dt == d && has_shape(sm, (dtype)d, e->rows, e->cols))
                    add_point(&R[1], (double)e->cols, e);
            }
            char el[32], extra[256];
            res_pow2(elems, el, sizeof el);
            snprintf(extra, sizeof extra,
                     "pfx = '%s'\nopname = '%s'\ndtname = '%s'\nelements = '%s'", pfx,
                     ops[o] == OP_SOFTMAX ? "Softmax" : "Log-softmax", dn, el);
            line_plot(c, "softmax", pfx, pfx, S, ns, R, 2, 0, INFINITY, sm, extra);
        }
}

/* ---- shapes: grouped bars, percent of the ceiling per real-world shape ---------------------- */

#define MAX_SHAPES 32

/* The entry of f at e's shape and dtype (as its op or any op, op -1) of stage/variant. */
static const res_entry *at(const res_file *f, const char *stage, const char *variant, int op,
                           dtype dt, const size_t *shape)
{
    return res_find(f, NULL, stage, variant, op, dt, shape[0], shape[1]);
}

/* The serialised floor of a softmax shape (read_stream + write_stream time) as a percent of the
   copy at that shape and dtype: where a kernel at the floor would stand. */
static double floor_vs_copy(const res_file *sh, dtype dt, const size_t *shape)
{
    const res_entry *c = at(sh, "baseline", "copy", -1, dt, shape), *r, *w;
    if (!(r = at(sh, "baseline", "read_stream", OP_SOFTMAX, dt, shape)))
        r = at(sh, "baseline", "read_stream", OP_LOGSOFTMAX, dt, shape);
    if (!(w = at(sh, "baseline", "write_stream", OP_SOFTMAX, dt, shape)))
        w = at(sh, "baseline", "write_stream", OP_LOGSOFTMAX, dt, shape);
    return res_has(c) && res_has(r) && res_has(w)
               ? 100 * c->median_us / (r->median_us + w->median_us)
               : NAN;
}

/* Grouped bars per real-world shape: percent of the same shape's ceiling for 06's and 07's
   dispatch, cuBLAS (row sums) and PyTorch per dtype, each softmax bar marked at the serialised
   floor. Writes name.dat (a line per shape), name_marks.dat and name.vars, then draws. */
static void plot_shapes(plot_ctx *c, const res_set *s)
{
    const res_file *sh = &s->f[F_SHAPES], *peer = &s->f[F_PEER];
    absent(s, sh, "shapes", "shapes.csv");
    /* per kind of bar (the lesson's dispatch, cuBLAS, the peer) a tone per dtype */
    static const unsigned rgb[3][3] = {{0x0072b2, 0xb35a00, 0x00785a},
                                       {0x2f3f6f, 0x6f3a10, 0x1f4f3f},
                                       {0x8cc4e8, 0xf2c27a, 0x8fd9bf}};
    static const op_kind ops[3] = {OP_SOFTMAX, OP_LOGSOFTMAX, OP_ROWSUM};
    for (int o = 0; sh->present && o < 3; o++) {
        int rowsum = ops[o] == OP_ROWSUM;
        const char *stage = NULL, *torch = res_torch_variant(ops[o]);
        size_t shape[MAX_SHAPES][2], nsh = 0, nb = 0, nmarks = 0, k, i;
        char name[48], title[200], file[160];
        for (i = 0; i < sh->n; i++) {
            const res_entry *e = &sh->e[i];
            if (strcmp(e->variant, "dispatch") || e->op != ops[o] ||
                strncmp(e->stage, rowsum ? "06_" : "07_", 3) || (stage && strcmp(e->stage, stage)))
                continue;
            stage = e->stage;
            for (k = 0; k < nsh && !(shape[k][0] == e->rows && shape[k][1] == e->cols); k++) {}
            if (k == nsh && nsh < MAX_SHAPES) shape[nsh][0] = e->rows, shape[nsh++][1] = e->cols;
        }
        snprintf(name, sizeof name, "shapes_%s", op_name(ops[o]));
        if (!stage) {
            fprintf(stderr, "results: %s: no dispatch rows in %s/shapes.csv; skipped\n", name,
                    s->dir);
            continue;
        }
        static double v[12][MAX_SHAPES], mark[12][MAX_SHAPES];
        static unsigned col[12];
        static char titles[12][96];
        for (int d = DT_F32; d <= DT_BF16; d++)
            for (int w = 0; w < 3; w++) { /* the dispatch, cuBLAS (row sums), torch */
                int any = 0;
                for (i = 0; i < nsh && (w != 1 || rowsum); i++) {
                    const res_entry *e =
                        w == 0   ? at(sh, stage, "dispatch", ops[o], (dtype)d, shape[i])
                        : w == 1 ? at(sh, "baseline", "cublas_gemv", OP_ROWSUM, (dtype)d, shape[i])
                                 : at(sh, "peer", torch, ops[o], (dtype)d, shape[i]);
                    if (w == 2 && !e) e = at(peer, "peer", torch, ops[o], (dtype)d, shape[i]);
                    const res_entry *b =
                        at(sh, "baseline", rowsum ? "read_stream" : "copy", -1, (dtype)d, shape[i]);
                    v[nb][i] = !res_has(e)                 ? NAN
                               : w == 0                    ? e->pct
                               : res_has(b) && b->gbps > 0 ? 100 * e->gbps / b->gbps
                                                           : NAN;
                    mark[nb][i] =
                        rowsum || isnan(v[nb][i]) ? NAN : floor_vs_copy(sh, (dtype)d, shape[i]);
                    any |= !isnan(v[nb][i]);
                }
                if (!any) continue;
                const char *dn = dtype_name((dtype)d);
                if (w == 0) snprintf(titles[nb], 96, "%s dispatch %s", stage, dn);
                if (w == 1) snprintf(titles[nb], 96, "cuBLAS Sgemv %s", dn);
                if (w == 2) snprintf(titles[nb], 96, "PyTorch %s %s", torch, dn);
                col[nb++] = rgb[w][d];
            }
        if (nb == 0) {
            fprintf(stderr, "results: %s: no ok rows in %s/shapes.csv; skipped\n", name, s->dir);
            continue;
        }
        /* a clustered histogram: group i centred at x = i, nb bars of width 1 / (nb + gap 1) */
        double top = 100, half = 0.5 * nb / (nb + 1.0), bw = 1 / (nb + 1.0);
        snprintf(file, sizeof file, "%s.dat", name);
        FILE *f = open_in(c, file), *m = NULL;
        for (i = 0; f && i < nsh; i++) {
            fprintf(f, "\"%zux%zu\"", shape[i][0], shape[i][1]);
            for (k = 0; k < nb; k++) {
                fprintf(f, isnan(v[k][i]) ? " NaN" : " %.4g", v[k][i]);
                if (v[k][i] > top) top = v[k][i];
            }
            fputc('\n', f);
        }
        snprintf(file, sizeof file, "%s_marks.dat", name);
        if (!f || fclose(f) || !(m = open_in(c, file))) continue;
        for (k = 0; k < nb; k++)
            for (i = 0; i < nsh; i++)
                if (!isnan(mark[k][i])) {
                    fprintf(m, "%.4f %.4g %.4f\n", i - half + k * bw, mark[k][i], bw);
                    nmarks++;
                    if (mark[k][i] > top) top = mark[k][i];
                }
        if (!nmarks) fputs("0 NaN 0\n", m); /* gnuplot wants a point, even one it cannot draw */
        fclose(m);
        snprintf(file, sizeof file, "%s.vars", name);
        if (!(f = open_in(c, file))) continue;
        vars_header(f, sh->gpu, sh->date, sh->name);
        snprintf(title, sizeof title, "%s at real-world shapes (rows x cols): %% of the %s",
                 rowsum                 ? "Row sums"
                 : ops[o] == OP_SOFTMAX ? "Softmax"
                                        : "Log-softmax",
                 rowsum ? "read-only stream" : "device-to-device copy");
        fprintf(f, "name = '%s'\nttl = ", name);
        gq(f, title);
        fputs("\nylab = ", f);
        gq(f, rowsum ? "% of the read ceiling (same shape)" : "% of copy (same shape)");
        fprintf(
            f,
            "\nngroups = %zu\nns = %zu\narray T[%zu]\narray COL[%zu]\nymax = %.4g\nmarks = %zu\n",
            nsh, nb, nb, nb, top * 1.08, nmarks);
        for (k = 0; k < nb; k++) {
            fprintf(f, "T[%zu] = ", k + 1);
            gq(f, titles[k]);
            fprintf(f, "\nCOL[%zu] = %u\n", k + 1, col[k]);
        }
        fclose(f);
        draw(c, "shapes", name, name);
    }
}

/* ---- stage 08: busbw against n, one plot per file and GPU count -------------------------- */

static void plot_allreduce(plot_ctx *c, const res_set *s)
{
    if (!s->n_ar) fprintf(stderr, "results: allreduce: no %s/allreduce*.csv; skipped\n", s->dir);
    for (size_t a = 0; a < s->n_ar; a++) {
        const res_file *f = &s->ar[a];
        size_t g[16], ng = 0, k;
        for (size_t i = 0; i < f->n; i++) { /* the GPU counts of the file's all-reduce rows */
            for (k = 0; k < ng && g[k] != f->e[i].rows; k++) {}
            if (f->e[i].op == OP_ALLREDUCE && k == ng && ng < 16) g[ng++] = f->e[i].rows;
        }
        for (k = 0; k < ng; k++) {
            static series S[MAX_SERIES], R[1];
            size_t elems, ns = variant_series(f, OP_ALLREDUCE, DT_F32, g[k], S, NULL, &elems);
            base_series(f, g[k] == 1 ? "copy" : "peer_copy", OP_ALLREDUCE, DT_F32, g[k], &R[0],
                        g[k] == 1 ? "ceiling: device-to-device copy"
                                  : "ceiling: peer copy, every GPU at once",
                        102);
            char extra[32], name[48];
            snprintf(extra, sizeof extra, "gpus = %zu", g[k]);
            snprintf(name, sizeof name, "allreduce_%zugpu", g[k]);
            line_plot(c, "allreduce", name, "allreduce", S, ns, R, 1, 0, INFINITY, f, extra);
        }
    }
}

/* ---- the command ------------------------------------------------------------------------- */

int res_plot(const res_set *s, const char *gpdir, const char *outdir)
{
    if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
        fprintf(stderr, "results: gnuplot not found; install it (Debian/Ubuntu: apt-get install "
                        "gnuplot-nox)\n");
        return 3;
    }
    char tmpl[1024];
    if (res_run("mkdir -p '%s'", outdir) != 0) return 1;
    if (!res_temp_dir(tmpl, sizeof tmpl)) return 1;
    plot_ctx c = {tmpl, gpdir, outdir, 0, 0};
    plot_ladder(&c, s);
    plot_sweep(&c, s);
    plot_rows(&c, s);
    plot_softmax(&c, s);
    plot_shapes(&c, s);
    plot_allreduce(&c, s);
    res_run("rm -rf '%s'", tmpl);
    if (c.drawn == 0 && c.failed == 0) fprintf(stderr, "results: no plot drawn from %s\n", s->dir);
    return c.failed ? 1 : 0;
}
