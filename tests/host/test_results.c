/* SPDX-License-Identifier: MIT */
/* The results reader (build/results): medians, malformed rows, markers, the serialised floor,
   blocks without dates, bf16.
   Every test writes its own small CSVs into a fresh temporary folder. */
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "results.h"
#include "suites.h"

#define HEADER                                                                              \
    "# gpu: Test GPU\n# date: 2030-01-02T03:04:05Z\n"                                       \
    "gpu,stage,variant,op,dtype,rows,cols,bytes,median_us,min_us,gbps,ceiling_gbps,pct_of_" \
    "ceiling,"                                                                              \
    "max_err,check\n"

static char dir[64];

/* A fresh empty folder in dir. */
static void fresh_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/results-test.XXXXXX");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
}

static void write_file(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
}

static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CU_ASSERT_EQUAL(system(cmd), 0);
}

/* One results row: time and ceiling chosen so that gbps and pct are as given. */
static void row(char *buf, size_t len, const char *stage, const char *variant, const char *op,
                const char *dt, size_t rows, size_t cols, double gbps, double pct,
                const char *check)
{
    size_t n = strlen(buf);
    snprintf(buf + n, len - n, "Test GPU,%s,%s,%s,%s,%zu,%zu,1000,%.3f,%.3f,%.2f,%.2f,%.2f,0,%s\n",
             stage, variant, op, dt, rows, cols, 1000 / gbps, 1000 / gbps, gbps, 100 * gbps / pct,
             pct, check);
}

static void test_repeated_rows_are_one_entry_with_their_medians(void)
{
    fresh_dir();
    char csv[4096] = HEADER;
    row(csv, sizeof csv, "baseline", "read_stream", "sum", "f32", 1, 1024, 100, 100, "ok");
    row(csv, sizeof csv, "baseline", "read_stream", "sum", "f32", 1, 1024, 300, 100, "ok");
    row(csv, sizeof csv, "baseline", "read_stream", "sum", "f32", 1, 1024, 200, 100, "ok");
    row(csv, sizeof csv, "baseline", "read_stream", "sum", "f32", 1, 1024, 900, 100, "FAIL");
    row(csv, sizeof csv, "05_packed", "packed_sum", "sum", "f32", 1, 1024, 10, 50, "ok");
    row(csv, sizeof csv, "05_packed", "packed_sum", "sum", "f32", 1, 1024, 20, 70, "ok");
    write_file("run.csv", csv);
    char path[256], err[512] = "";
    res_file f;
    snprintf(path, sizeof path, "%s/run.csv", dir);
    CU_ASSERT_EQUAL_FATAL(res_load_file(path, &f, err, sizeof err), 0);
    CU_ASSERT_EQUAL(f.n, 2);
    const res_entry *b = res_find(&f, NULL, "baseline", "read_stream", OP_SUM, DT_F32, 1, 1024);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_EQUAL(b->n_ok, 3);
    CU_ASSERT_EQUAL(b->n_fail, 1);              /* the FAIL row is counted, not used */
    CU_ASSERT_DOUBLE_EQUAL(b->gbps, 200, 1e-9); /* odd count: the middle one */
    const res_entry *p = res_find(&f, NULL, "05_packed", "packed_sum", OP_SUM, DT_F32, 1, 1024);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_DOUBLE_EQUAL(p->gbps, 15, 1e-9); /* even count: the mean of the middle two */
    CU_ASSERT_DOUBLE_EQUAL(p->pct, 60, 1e-9);
    CU_ASSERT_STRING_EQUAL(f.gpu, "Test GPU");
    CU_ASSERT_STRING_EQUAL(f.date, "2030-01-02T03:04:05Z");
    free(f.e);
    remove_dir();
}

static void test_a_malformed_row_is_rejected_naming_file_and_line(void)
{
    fresh_dir();
    static const char *const bad[] = {
        "Test GPU,05_packed,packed_sum,sum,f64,1,1024,1000,1,1,1,1,1,0,ok\n",    /* dtype */
        "Test GPU,05_packed,packed_sum,sum,f32,1,1024,1000,1,1,1,1,1,0\n",       /* 14 fields */
        "Test GPU,05_packed,packed_sum,sum,f32,1,x,1000,1,1,1,1,1,0,ok\n",       /* cols */
        "Test GPU,05_packed,packed_sum,sum,f32,1,1024,1000,1,1,1,1,1,0,maybe\n", /* check */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char csv[1024] = HEADER;
        row(csv, sizeof csv, "05_packed", "packed_sum", "sum", "f32", 1, 1024, 10, 50, "ok");
        strcat(csv, bad[i]); /* line 5: two comments, header, one row */
        write_file("run.csv", csv);
        char path[256], want[300], err[512] = "";
        res_file f;
        snprintf(path, sizeof path, "%s/run.csv", dir);
        snprintf(want, sizeof want, "%s:5: ", path);
        CU_ASSERT_EQUAL(res_load_file(path, &f, err, sizeof err), -1);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
        CU_ASSERT_PTR_NULL(strchr(err, '\n'));
        res_set s;
        CU_ASSERT_EQUAL(res_load_set(dir, &s, err, sizeof err), -1);
    }
    /* the program says so in one line and exits 1 */
    const char *bdir = getenv("BUILD_DIR") ? getenv("BUILD_DIR") : "build";
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s/results tables %s >/dev/null 2>%s/err.txt", bdir, dir, dir);
    int st = system(cmd);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 1);
    snprintf(cmd, sizeof cmd, "%s/results >/dev/null 2>&1", bdir);
    st = system(cmd);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 2);
    remove_dir();
}

static void test_a_missing_or_empty_file_is_absent_not_an_error(void)
{
    fresh_dir();
    write_file("run.csv", ""); /* a run that wrote nothing */
    res_set s;
    char err[512] = "";
    CU_ASSERT_EQUAL_FATAL(res_load_set(dir, &s, err, sizeof err), 0);
    for (int k = 0; k < F_COUNT; k++) CU_ASSERT_FALSE(s.f[k].present);
    CU_ASSERT_FALSE(s.prof.present);
    sbuf b = {0};
    CU_ASSERT_EQUAL(res_md_stage_results(&s, "01_naive", "results/", &b), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(b.s, "No measurements of 01_naive"));
    sb_free(&b);
    res_free(&s);
    remove_dir();
}

static void test_marker_replacement_keeps_every_byte_outside_the_markers(void)
{
    const char *before = "# Title\r\n\nText with <!-- results:begin --> inline is not a marker.\n"
                         "  <!-- results:begin -->  \n";
    const char *after = "<!-- results:end -->\n\nTail \xc3\xa9 without a final newline";
    char text[1024];
    snprintf(text, sizeof text, "%sold line 1\nold line 2\n%s", before, after);
    char *out = res_replace_marker(text, "results", "| a | b |\n\n\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_EQUAL(strncmp(out, before, strlen(before)), 0);
    size_t n = strlen(out), k = strlen(after);
    CU_ASSERT_FATAL(n >= k);
    CU_ASSERT_STRING_EQUAL(out + n - k, after);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "| a | b |\n\n<!-- results:end -->"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "generated by make tables"));
    CU_ASSERT_PTR_NULL(strstr(out, "old line"));
    /* running it again on its own output changes nothing */
    char *again = res_replace_marker(out, "results", "| a | b |\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(again);
    CU_ASSERT_STRING_EQUAL(again, out);
    free(again);
    free(out);
}

static void test_a_missing_marker_is_reported_and_the_file_left_alone(void)
{
    CU_ASSERT_PTR_NULL(res_replace_marker("no markers\n", "results", "x"));
    CU_ASSERT_PTR_NULL(
        res_replace_marker("<!-- results:end -->\n<!-- results:begin -->\n", "results", "x"));
    CU_ASSERT_PTR_NULL(res_replace_marker("<!-- results:begin -->\n<!-- results:end -->\n"
                                          "<!-- results:begin -->\n<!-- results:end -->\n",
                                          "results", "x"));
    CU_ASSERT_PTR_NULL(res_replace_marker("<!-- results:begin -->\n", "results", "x"));

    /* through `tables --write`: a README without markers keeps every byte */
    fresh_dir();
    char stage[128], readme[192];
    snprintf(stage, sizeof stage, "%s/01_naive", dir);
    CU_ASSERT_EQUAL_FATAL(mkdir(stage, 0755), 0);
    const char *text = "# 01_naive: no markers here\n\nprose\n";
    write_file("01_naive/README.md", text);
    char csv[1024] = HEADER;
    row(csv, sizeof csv, "01_naive", "interleaved_modulo", "sum", "f32", 1, 1024, 10, 50, "ok");
    write_file("run.csv", csv);
    res_set s;
    char err[512];
    CU_ASSERT_EQUAL_FATAL(res_load_set(dir, &s, err, sizeof err), 0);
    fflush(stdout);
    fflush(stderr);
    int out = dup(1), errfd = dup(2), null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    int rc = res_tables(&s, dir, "results/", 1);
    fflush(stdout);
    fflush(stderr);
    dup2(out, 1);
    dup2(errfd, 2);
    close(out);
    close(errfd);
    close(null);
    CU_ASSERT_EQUAL(rc, 0);
    snprintf(readme, sizeof readme, "%s/README.md", stage);
    FILE *f = fopen(readme, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char got[256] = "";
    got[fread(got, 1, sizeof got - 1, f)] = '\0';
    fclose(f);
    CU_ASSERT_STRING_EQUAL(got, text);
    res_free(&s);
    remove_dir();
}

/* Times chosen so that 100 * (read + write) / kernel is a round percent: a shape of 07 with
   its copy, read and write streams (as the stage program writes them, under op softmax) and a
   softmax and a log-softmax kernel. */
static void floor_rows(char *csv, size_t len, const char *dt, size_t rows, size_t cols)
{
    row(csv, len, "baseline", "copy", "softmax", dt, rows, cols, 1000.0 / 20, 100, "ok");
    row(csv, len, "baseline", "read_stream", "softmax", dt, rows, cols, 1000.0 / 12, 100, "ok");
    row(csv, len, "baseline", "write_stream", "softmax", dt, rows, cols, 1000.0 / 13, 100, "ok");
    row(csv, len, "07_softmax", "dispatch", "softmax", dt, rows, cols, 1000.0 / 50, 40, "ok");
    row(csv, len, "07_softmax", "dispatch", "logsoftmax", dt, rows, cols, 1000.0 / 25, 80, "ok");
}

static void test_the_serialised_floor_is_read_plus_write_time_over_the_kernels(void)
{
    fresh_dir();
    char sh[4096] = HEADER;
    floor_rows(sh, sizeof sh, "f16", 8, 131072);
    row(sh, sizeof sh, "baseline", "read_stream", "rowsum", "f32", 8, 131072, 2, 100, "ok");
    row(sh, sizeof sh, "06_coop_groups", "dispatch", "rowsum", "f32", 8, 131072, 20, 90, "ok");
    write_file("shapes.csv", sh);
    res_set s;
    char err[512];
    CU_ASSERT_EQUAL_FATAL(res_load_set(dir, &s, err, sizeof err), 0);
    const res_file *f = &s.f[F_SHAPES];
    const res_entry *a = res_find(f, NULL, "07_softmax", "dispatch", OP_SOFTMAX, DT_F16, 8, 131072);
    const res_entry *l =
        res_find(f, NULL, "07_softmax", "dispatch", OP_LOGSOFTMAX, DT_F16, 8, 131072);
    const res_entry *r =
        res_find(f, NULL, "06_coop_groups", "dispatch", OP_ROWSUM, DT_F32, 8, 131072);
    CU_ASSERT_FATAL(a && l && r);
    CU_ASSERT_DOUBLE_EQUAL(a->pct_floor, 100.0 * (12 + 13) / 50, 1e-6); /* 50% */
    CU_ASSERT_DOUBLE_EQUAL(l->pct_floor, 100.0 * (12 + 13) / 25, 1e-6); /* log-softmax: 100% */
    CU_ASSERT_TRUE(isnan(r->pct_floor));                                /* row sums have none */
    /* no write stream at the shape: no floor */
    char sh2[4096] = HEADER;
    row(sh2, sizeof sh2, "baseline", "read_stream", "softmax", "f32", 1, 4096, 10, 100, "ok");
    row(sh2, sizeof sh2, "07_softmax", "dispatch", "softmax", "f32", 1, 4096, 10, 50, "ok");
    write_file("shapes.csv", sh2);
    res_free(&s);
    CU_ASSERT_EQUAL_FATAL(res_load_set(dir, &s, err, sizeof err), 0);
    CU_ASSERT_TRUE(isnan(s.f[F_SHAPES].e[1].pct_floor));
    res_free(&s);
    remove_dir();
}

/* Occurrences of needle in hay. */
static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

/* 1 when text holds a date (2030-01-02) or a time (03:04Z or 03:04:05Z). */
static int has_date(const char *text)
{
    for (const char *p = text; *p; p++) {
        int d = 1, t = 1;
        for (int k = 0; k < 10 && d; k++)
            d = p[k] && (k == 4 || k == 7 ? p[k] == '-' : p[k] >= '0' && p[k] <= '9');
        for (int k = 0; k < 5 && t; k++)
            t = p[k] && (k == 2 ? p[k] == ':' : p[k] >= '0' && p[k] <= '9');
        if (d || (t && (p[5] == 'Z' || (p[5] == ':' && p[8] == 'Z')))) return 1;
    }
    return 0;
}

static void test_the_blocks_name_the_gpu_once_and_carry_no_date(void)
{
    fresh_dir();
    char run[4096] = HEADER, rows[4096] = HEADER, sm[8192] = HEADER, sh[4096] = HEADER;
    size_t n28 = (size_t)1 << 28;
    row(run, sizeof run, "baseline", "read_stream", "sum", "f32", 1, n28, 3000, 100, "ok");
    row(run, sizeof run, "baseline", "cub_device_reduce", "sum", "f32", 1, n28, 2900, 96.7, "ok");
    row(run, sizeof run, "04_block_reduce", "grid_stride", "sum", "f32", 1, n28, 2200, 73.3, "ok");
    row(run, sizeof run, "04_block_reduce", "warp_per_row", "rowsum", "f32", 65536, 1024, 2900, 97,
        "ok");
    for (size_t c = 32; c <= 4096; c *= 8) {
        row(rows, sizeof rows, "04_block_reduce", "warp_per_row", "rowsum", "f32", 65536 * 1024 / c,
            c, 2000, 70, "ok");
        row(rows, sizeof rows, "baseline", "read_stream", "rowsum", "f32", 65536 * 1024 / c, c,
            2900, 100, "ok");
        floor_rows(sm, sizeof sm, "f32", 65536 * 1024 / c, c);
        row(sm, sizeof sm, "07_softmax", "warp_row", "softmax", "f32", 65536 * 1024 / c, c, 2500,
            83, "ok");
    }
    floor_rows(sh, sizeof sh, "f32", 1, 262144);
    floor_rows(sh, sizeof sh, "bf16", 1, 262144);
    write_file("run.csv", run);
    write_file("rows.csv", rows);
    write_file("softmax.csv", sm);
    write_file("shapes.csv", sh);
    write_file("profile.csv",
               "# gpu: Test GPU\n# date: 2030-01-02T03:04:05Z\n"
               "gpu,stage,variant,op,dtype,rows,cols,duration_us,dram_pct_of_peak,"
               "achieved_occupancy_pct,registers_per_thread,thread_inst_per_inst,"
               "shared_bank_conflicts_per_request,global_ld_sectors_per_request,"
               "bytes_in_flight_per_sm\n"
               "Test GPU,04_block_reduce,grid_stride,sum,f32,1,268435456,470.5,,,18,,,,\n"
               "Test GPU,07_softmax,warp_row,softmax,f32,65536,1024,176,,,96,,,,\n"
               "Test GPU,07_softmax,warp_row,logsoftmax,f32,65536,1024,176,,,96,,,,\n");
    res_set s;
    char err[512];
    CU_ASSERT_EQUAL_FATAL(res_load_set(dir, &s, err, sizeof err), 0);
    static const char *const stages[2] = {"04_block_reduce", "07_softmax"};
    for (int k = 0; k < 2; k++) {
        sbuf b = {0};
        CU_ASSERT_EQUAL(res_md_stage_results(&s, stages[k], "results/", &b), 0);
        CU_ASSERT_EQUAL(res_md_stage_evidence(&s, stages[k], "results/", &b), 0);
        CU_ASSERT_FALSE(has_date(b.s));
        CU_ASSERT_EQUAL(count_of(b.s, "Test GPU"), 1);
        if (k ==
            1) { /* 07: % of copy and of the floor per dtype; no log-softmax twin of a softmax counter row */
            CU_ASSERT_PTR_NOT_NULL(strstr(b.s, "| 1 x 262144 | 40.0 | 50.0 | 40.0 | 50.0 |"));
            CU_ASSERT_PTR_NULL(strstr(b.s, "logsoftmax 65536"));
        }
        sb_free(&b);
    }
    sbuf b = {0};
    CU_ASSERT_EQUAL(res_md_ladder(&s, "results/", &b), 0);
    CU_ASSERT_FALSE(has_date(b.s));
    CU_ASSERT_EQUAL(count_of(b.s, "Test GPU"), 1);
    sb_free(&b);
    /* BENCHMARKS.md: the GPU and the date once, at the top; no targets */
    res_md_benchmarks(&s, "results/", &b);
    CU_ASSERT_EQUAL(count_of(b.s, "Test GPU"), 1);
    CU_ASSERT_EQUAL(count_of(b.s, "2030-01-02"), 1);
    CU_ASSERT_PTR_NULL(strstr(b.s, "03:04"));
    CU_ASSERT_PTR_NULL(strstr(b.s, "target"));
    sb_free(&b);
    res_free(&s);
    remove_dir();
}

static void test_bf16_rows_and_the_new_baselines_are_read(void)
{
    fresh_dir();
    char sh[4096] = HEADER;
    row(sh, sizeof sh, "baseline", "copy", "softmax", "bf16", 64, 32000, 3000, 100, "ok");
    row(sh, sizeof sh, "07_softmax", "dispatch", "softmax", "bf16", 64, 32000, 2850, 95, "ok");
    row(sh, sizeof sh, "baseline", "read_stream", "rowsum", "f32", 64, 32000, 3000, 100, "ok");
    row(sh, sizeof sh, "baseline", "cublas_gemv", "rowsum", "f32", 64, 32000, 2000, 66.7, "ok");
    row(sh, sizeof sh, "06_coop_groups", "dispatch", "rowsum", "f32", 64, 32000, 2700, 90, "ok");
    write_file("shapes.csv", sh);
    char peer[1024] = HEADER;
    row(peer, sizeof peer, "peer", "torch_softmax", "softmax", "bf16", 64, 32000, 1900, 60, "ok");
    row(peer, sizeof peer, "peer", "torch_sum", "rowsum", "f32", 64, 32000, 1500, 50, "ok");
    write_file("peer.csv", peer);
    write_file("profile.csv",
               "gpu,stage,variant,op,dtype,rows,cols,duration_us,dram_pct_of_peak,"
               "achieved_occupancy_pct,registers_per_thread,thread_inst_per_inst,"
               "shared_bank_conflicts_per_request,global_ld_sectors_per_request,"
               "bytes_in_flight_per_sm\n"
               "Test GPU,07_softmax,dispatch,softmax,bf16,64,32000,1.5,90.5,80,32,31.9,,16,n/a\n");
    res_set s;
    char err[512];
    CU_ASSERT_EQUAL_FATAL(res_load_set(dir, &s, err, sizeof err), 0);
    const res_entry *d =
        res_find(&s.f[F_SHAPES], NULL, "07_softmax", "dispatch", OP_SOFTMAX, DT_BF16, 64, 32000);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_EQUAL(d->dt, DT_BF16);
    CU_ASSERT_DOUBLE_EQUAL(d->pct, 95, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(d->x_torch, 2850.0 / 1900, 1e-9);
    const res_entry *r =
        res_find(&s.f[F_SHAPES], NULL, "06_coop_groups", "dispatch", OP_ROWSUM, DT_F32, 64, 32000);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_DOUBLE_EQUAL(r->x_gemv, 2700.0 / 2000, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r->x_torch, 2700.0 / 1500, 1e-9);
    CU_ASSERT_TRUE(isnan(r->x_cub)); /* no CUB row at this shape */
    CU_ASSERT_EQUAL_FATAL(s.prof.n, 1);
    CU_ASSERT_DOUBLE_EQUAL(s.prof.e[0].m[PM_LANES], 31.9, 1e-9);
    CU_ASSERT_TRUE(isnan(s.prof.e[0].m[PM_BANK_CONFLICTS]));
    CU_ASSERT_TRUE(isnan(s.prof.e[0].m[PM_BYTES_IN_FLIGHT]));
    sbuf b = {0};
    res_md_benchmarks(&s, "results/", &b);
    /* row sums at the shape: GB/s, % of ceiling, x PyTorch, x cuBLAS (no CUB row: no column) */
    CU_ASSERT_PTR_NOT_NULL(strstr(b.s, "| 64 x 32000 | 2700 | 90.0 | 1.80 | 1.35 |"));
    sb_free(&b);
    res_free(&s);
    remove_dir();
}

/* Stage 08: its rows in a one-GPU file are left out of it; its own files are read apart, and
   drawn into its README block and BENCHMARKS.md per GPU count. */
static void test_the_all_reduce_files_are_read_apart_per_gpu_count(void)
{
    fresh_dir();
    char run[2048] = HEADER, ar[4096] = HEADER;
    size_t n28 = (size_t)1 << 28, n26 = (size_t)1 << 26;
    row(run, sizeof run, "06_coop_groups", "single_pass", "sum", "f32", 1, n28, 3000, 95, "ok");
    row(run, sizeof run, "08_all_reduce", "sharded_sum", "sum", "f32", 2, n28, 6000, 90, "ok");
    row(run, sizeof run, "08_all_reduce", "ring", "allreduce", "f32", 2, n26, 300, 80, "ok");
    write_file("run.csv", run);
    row(ar, sizeof ar, "baseline", "peer_copy", "allreduce", "f32", 2, n26, 360, 100, "ok");
    row(ar, sizeof ar, "08_all_reduce", "ring", "allreduce", "f32", 2, n26, 288, 80, "ok");
    row(ar, sizeof ar, "08_all_reduce", "nccl", "allreduce", "f32", 2, n26, 320, 88.9, "ok");
    row(ar, sizeof ar, "08_all_reduce", "sharded_sum", "sum", "f32", 2, n28, 5400, 90, "ok");
    write_file("allreduce_2gpu.csv", ar);
    res_set s;
    char err[512];
    CU_ASSERT_EQUAL_FATAL(res_load_set(dir, &s, err, sizeof err), 0);
    CU_ASSERT_EQUAL(s.f[F_RUN].n, 1); /* 08's rows are not one-GPU sums */
    CU_ASSERT_EQUAL(res_largest_sum_n(&s.f[F_RUN]), n28);
    CU_ASSERT_EQUAL_FATAL(s.n_ar, 1);
    CU_ASSERT_STRING_EQUAL(s.ar[0].name, "allreduce_2gpu.csv");
    sbuf b = {0};
    CU_ASSERT_EQUAL(res_md_stage_results(&s, "08_all_reduce", "results/", &b), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(b.s, "All-reduce on 2 GPUs, **Test GPU**"));
    CU_ASSERT_PTR_NOT_NULL(strstr(b.s, "| n | peer copy GB/s | ring | nccl | ring x nccl |"));
    CU_ASSERT_PTR_NOT_NULL(strstr(b.s, "| 2^26 | 360 | 288 (80.0%) | 320 (88.9%) | 0.90 |"));
    CU_ASSERT_PTR_NOT_NULL(strstr(b.s, "`sharded_sum`, the full sum of n = 2^28 floats"));
    sb_free(&b);
    CU_ASSERT_EQUAL(res_md_stage_evidence(&s, "08_all_reduce", "results/", &b), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(b.s, "Not profiled"));
    sb_free(&b);
    res_md_ladder(&s, "results/", &b);
    CU_ASSERT_PTR_NULL(strstr(b.s, "08_all_reduce"));
    sb_free(&b);
    res_md_benchmarks(&s, "results/", &b);
    CU_ASSERT_PTR_NOT_NULL(strstr(b.s, "## All-reduce across GPUs"));
    CU_ASSERT_PTR_NOT_NULL(strstr(b.s, "| 2^26 | 360 | 288 (80.0%) | 320 (88.9%) | 0.90 |"));
    sb_free(&b);
    res_free(&s);
    remove_dir();
}

CU_TestInfo results_tests[] = {
    {"repeated rows are one entry with their medians",
     test_repeated_rows_are_one_entry_with_their_medians},
    {"a malformed row is rejected naming file and line",
     test_a_malformed_row_is_rejected_naming_file_and_line},
    {"a missing or empty file is absent, not an error",
     test_a_missing_or_empty_file_is_absent_not_an_error},
    {"marker replacement keeps every byte outside the markers",
     test_marker_replacement_keeps_every_byte_outside_the_markers},
    {"a missing marker is reported and the file left alone",
     test_a_missing_marker_is_reported_and_the_file_left_alone},
    {"the serialised floor is read plus write time over the kernel's",
     test_the_serialised_floor_is_read_plus_write_time_over_the_kernels},
    {"the blocks name the GPU once and carry no date",
     test_the_blocks_name_the_gpu_once_and_carry_no_date},
    {"bf16 rows and the new baselines are read", test_bf16_rows_and_the_new_baselines_are_read},
    {"the all-reduce files are read apart, per GPU count",
     test_the_all_reduce_files_are_read_apart_per_gpu_count},
    CU_TEST_INFO_NULL,
};
