/* SPDX-License-Identifier: MIT */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "suites.h"
#include "timing.h"

static void test_median_of_odd_and_even_counts(void)
{
    double odd[5] = {5, 1, 4, 2, 3}, even[4] = {10, 1, 3, 2}, one[1] = {7};
    CU_ASSERT_DOUBLE_EQUAL(median_of(odd, 5), 3.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(median_of(even, 4), 2.5, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(median_of(one, 1), 7.0, 0.0);
}

static void test_min_of_finds_the_smallest(void)
{
    double v[4] = {3, -1, 2, -1.5};
    CU_ASSERT_DOUBLE_EQUAL(min_of(v, 4), -1.5, 0.0);
}

static void test_gbps_is_bytes_over_microseconds_times_1000(void)
{
    CU_ASSERT_DOUBLE_EQUAL(gbps_of(1000000000, 1e6), 1.0, 1e-12); /* 1 GB in 1 s */
    CU_ASSERT_DOUBLE_EQUAL(gbps_of((size_t)1 << 30, 358.0), 2999.279, 0.001); /* 2^30 B in 358 us */
    CU_ASSERT_DOUBLE_EQUAL(gbps_of(100, 0.0), 0.0, 0.0);
}

static void test_bytes_count_each_input_once_and_each_output_once(void)
{
    CU_ASSERT_EQUAL(op_bytes(OP_SUM, DT_F32, DT_F32, 1, 10), 44);
    CU_ASSERT_EQUAL(op_bytes(OP_ROWSUM, DT_F32, DT_F32, 3, 4), 48 + 12);
    CU_ASSERT_EQUAL(op_bytes(OP_SOFTMAX, DT_F32, DT_F32, 2, 3), 48);
    CU_ASSERT_EQUAL(op_bytes(OP_LOGSOFTMAX, DT_F16, DT_F16, 2, 3), 24);
}

static void test_shape_format_for_sums_and_matrices(void)
{
    char b[48];
    format_shape(OP_SUM, 1, 268435456, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "n=268435456");
    format_shape(OP_SOFTMAX, 65536, 1024, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "65536x1024");
}

static result_row sample_row(void)
{
    result_row r;
    memset(&r, 0, sizeof r);
    strcpy(r.stage, "05_packed");
    strcpy(r.variant, "packed_sum");
    r.op = OP_ROWSUM;
    r.dt = DT_F32;
    r.rows = 65536;
    r.cols = 1024;
    r.bytes = op_bytes(r.op, r.dt, r.dt, r.rows, r.cols);
    r.median_us = 95.125;
    r.min_us = 94.5;
    r.gbps = gbps_of(r.bytes, r.median_us);
    r.ceiling_gbps = 3000.0;
    r.pct_of_ceiling = 100.0 * r.gbps / 3000.0;
    r.max_err = 1.5e-5;
    r.timed = 1;
    r.ok = 1;
    return r;
}

static void test_csv_round_trip_with_one_header(void)
{
    char path[] = "/tmp/reduce-csv-XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    device_info d;
    memset(&d, 0, sizeof d);
    strcpy(d.name, "Test GPU");
    d.runtime_version = 13000;
    result_row a = sample_row(), b = sample_row();
    strcpy(b.variant, "dispatch");
    b.ok = 0;
    CU_ASSERT_EQUAL(csv_append(path, &d, &a), 0);
    CU_ASSERT_EQUAL(csv_append(path, &d, &b), 0);

    FILE *f = fopen(path, "r");
    CU_ASSERT_FATAL(f != NULL);
    char line[1024], gpu[64];
    int headers = 0, comments = 0, rows = 0;
    result_row got[2];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') { comments++; continue; }
        if (strncmp(line, CSV_HEADER, strlen(CSV_HEADER)) == 0) { headers++; continue; }
        CU_ASSERT_EQUAL_FATAL(csv_parse_row(line, &got[rows < 2 ? rows : 1], gpu, sizeof gpu), 0);
        rows++;
    }
    fclose(f);
    unlink(path);
    CU_ASSERT_EQUAL(headers, 1);
    CU_ASSERT(comments >= 3); /* gpu, cuda, date */
    CU_ASSERT_EQUAL_FATAL(rows, 2);
    CU_ASSERT_STRING_EQUAL(gpu, "Test GPU");
    CU_ASSERT_STRING_EQUAL(got[0].stage, "05_packed");
    CU_ASSERT_STRING_EQUAL(got[0].variant, "packed_sum");
    CU_ASSERT_EQUAL(got[0].op, OP_ROWSUM);
    CU_ASSERT_EQUAL(got[0].rows, 65536);
    CU_ASSERT_EQUAL(got[0].cols, 1024);
    CU_ASSERT_EQUAL(got[0].bytes, a.bytes);
    CU_ASSERT_DOUBLE_EQUAL(got[0].median_us, 95.125, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(got[0].gbps, a.gbps, 0.006);
    CU_ASSERT_DOUBLE_EQUAL(got[0].pct_of_ceiling, a.pct_of_ceiling, 0.006);
    CU_ASSERT_TRUE(got[0].ok);
    CU_ASSERT_STRING_EQUAL(got[1].variant, "dispatch");
    CU_ASSERT_FALSE(got[1].ok);
}

static void test_csv_parser_rejects_malformed_rows(void)
{
    result_row r;
    char gpu[64];
    CU_ASSERT_EQUAL(csv_parse_row("# gpu: x", &r, gpu, sizeof gpu), -1);
    CU_ASSERT_EQUAL(csv_parse_row(CSV_HEADER, &r, gpu, sizeof gpu), -1);
    CU_ASSERT_EQUAL(csv_parse_row("g,s,v,sum,f32,1,2,3,4,5,6,7,8,9", &r, gpu, sizeof gpu), -1); /* 14 fields */
    CU_ASSERT_EQUAL(csv_parse_row("g,s,v,max,f32,1,2,3,4,5,6,7,8,9,ok", &r, gpu, sizeof gpu), -1);
    CU_ASSERT_EQUAL(csv_parse_row("g,s,v,sum,f32,1,2,3,4,5,6,7,8,9,maybe", &r, gpu, sizeof gpu), -1);
    CU_ASSERT_EQUAL(csv_parse_row("g,s,v,sum,f32,1,x,3,4,5,6,7,8,9,ok", &r, gpu, sizeof gpu), -1);
    CU_ASSERT_EQUAL(csv_parse_row("g,s,v,sum,f32,1,2,3,4,5,6,7,8,9,ok", &r, gpu, sizeof gpu), 0);
}

static void test_csv_append_fails_cleanly_on_an_unwritable_path(void)
{
    device_info d;
    memset(&d, 0, sizeof d);
    result_row a = sample_row();
    CU_ASSERT_EQUAL(csv_append("/nonexistent-dir/x.csv", &d, &a), -1);
}

CU_TestInfo report_tests[] = {
    {"median of odd and even counts", test_median_of_odd_and_even_counts},
    {"min_of finds the smallest", test_min_of_finds_the_smallest},
    {"GB/s is bytes over microseconds times 1000", test_gbps_is_bytes_over_microseconds_times_1000},
    {"bytes count each input once and each output once", test_bytes_count_each_input_once_and_each_output_once},
    {"shape format for sums and matrices", test_shape_format_for_sums_and_matrices},
    {"CSV round trip with one header", test_csv_round_trip_with_one_header},
    {"CSV parser rejects malformed rows", test_csv_parser_rejects_malformed_rows},
    {"CSV append fails cleanly on an unwritable path", test_csv_append_fails_cleanly_on_an_unwritable_path},
    CU_TEST_INFO_NULL,
};
