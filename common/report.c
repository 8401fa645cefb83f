/* SPDX-License-Identifier: MIT */
#include "report.h"
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

size_t op_bytes(op_kind op, dtype in, dtype out, size_t rows, size_t cols)
{
    size_t elems = rows * cols;
    switch (op) {
    case OP_SUM: return elems * dtype_bytes(in) + dtype_bytes(out);
    case OP_ROWSUM: return elems * dtype_bytes(in) + rows * dtype_bytes(out);
    case OP_SOFTMAX:
    case OP_LOGSOFTMAX: return elems * (dtype_bytes(in) + dtype_bytes(out));
    case OP_ALLREDUCE: return 0; /* counted by allreduce_bytes (common/multi_gpu.h): it needs G */
    }
    return 0;
}

void format_shape(op_kind op, size_t rows, size_t cols, char *buf, size_t len)
{
    if (op == OP_SUM || op == OP_ALLREDUCE) snprintf(buf, len, "n=%zu", cols);
    else snprintf(buf, len, "%zux%zu", rows, cols);
}

void table_header(FILE *f)
{
    fprintf(f, "%-24s %-10s %-5s %-16s %10s %10s %8s %6s %6s  %s\n", "variant", "op", "dtype", "shape",
            "median_us", "min_us", "GB/s", "%ceil", "xCUB", "check");
}

void table_row(FILE *f, const result_row *r)
{
    char shape[48], name[96];
    format_shape(r->op, r->rows, r->cols, shape, sizeof shape);
    if (strcmp(r->stage, "baseline") == 0 || strcmp(r->stage, "peer") == 0)
        snprintf(name, sizeof name, "[%s]", r->variant);
    else
        snprintf(name, sizeof name, "%s", r->variant);
    if (r->timed) {
        char cub[16] = "-";
        if (r->vs_cub > 0) snprintf(cub, sizeof cub, "%.2f", r->vs_cub);
        fprintf(f, "%-24s %-10s %-5s %-16s %10.2f %10.2f %8.1f %6.1f %6s  %s\n", name, op_name(r->op),
                dtype_name(r->dt), shape, r->median_us, r->min_us, r->gbps, r->pct_of_ceiling, cub,
                r->ok ? "ok" : "FAIL");
    } else {
        fprintf(f, "%-24s %-10s %-5s %-16s %10s %10s %8s %6s %6s  %s (max |err| %.3g)\n", name,
                op_name(r->op), dtype_name(r->dt), shape, "-", "-", "-", "-", "-", r->ok ? "ok" : "FAIL",
                r->max_err);
    }
    fflush(f);
}

void csv_write_row(FILE *f, const char *gpu, const result_row *r)
{
    fprintf(f, "%s,%s,%s,%s,%s,%zu,%zu,%zu,%.3f,%.3f,%.2f,%.2f,%.2f,%.3g,%s\n", gpu, r->stage, r->variant,
            op_name(r->op), dtype_name(r->dt), r->rows, r->cols, r->bytes, r->median_us, r->min_us,
            r->gbps, r->ceiling_gbps, r->pct_of_ceiling, r->max_err, r->ok ? "ok" : "FAIL");
}

int csv_append(const char *path, const device_info *d, const result_row *r)
{
    FILE *f = fopen(path, "a");
    if (!f) return -1;
    if (ftell(f) == 0) { /* a new file: device lines, then the header */
        char date[32];
        time_t now = time(NULL);
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
        fprintf(f, "# gpu: %s\n# cuda: runtime %d.%d driver %d.%d\n# date: %s\n",
                d->name, d->runtime_version / 1000, d->runtime_version % 1000 / 10,
                d->driver_version / 1000, d->driver_version % 1000 / 10, date);
        fprintf(f, "# sm_count: %d l2_bytes: %zu compute_capability: %d.%d\n", d->sm_count,
                d->l2_bytes, d->cc_major, d->cc_minor);
        fprintf(f, "# theoretical_peak_gbps: %.1f (from memory clock and bus width; never the ceiling)\n",
                d->peak_gbps);
        fprintf(f, "%s\n", CSV_HEADER);
    }
    csv_write_row(f, d->name, r);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) return -1;
    return 0;
}

static int parse_op(const char *s, op_kind *op)
{
    static const op_kind all[] = {OP_SUM, OP_ROWSUM, OP_SOFTMAX, OP_LOGSOFTMAX, OP_ALLREDUCE};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(s, op_name(all[i])) == 0) { *op = all[i]; return 0; }
    return -1;
}

int csv_parse_row(const char *line, result_row *r, char *gpu, size_t gpu_len)
{
    if (line[0] == '#' || strncmp(line, "gpu,", 4) == 0) return -1;
    char buf[1024];
    if (strlen(line) >= sizeof buf) return -1;
    strcpy(buf, line);
    buf[strcspn(buf, "\r\n")] = '\0';
    char *field[15];
    size_t nf = 0;
    for (char *p = buf; nf < 15;) {
        field[nf++] = p;
        char *c = strchr(p, ',');
        if (!c) break;
        *c = '\0';
        p = c + 1;
    }
    if (nf != 15 || strchr(field[14], ',')) return -1;
    memset(r, 0, sizeof *r);
    snprintf(gpu, gpu_len, "%s", field[0]);
    snprintf(r->stage, sizeof r->stage, "%s", field[1]);
    snprintf(r->variant, sizeof r->variant, "%s", field[2]);
    if (parse_op(field[3], &r->op)) return -1;
    if (parse_dtype(field[4], &r->dt)) return -1;
    char *end;
    r->rows = strtoull(field[5], &end, 10); if (*end) return -1;
    r->cols = strtoull(field[6], &end, 10); if (*end) return -1;
    r->bytes = strtoull(field[7], &end, 10); if (*end) return -1;
    double *num[] = {&r->median_us, &r->min_us, &r->gbps, &r->ceiling_gbps, &r->pct_of_ceiling, &r->max_err};
    for (size_t i = 0; i < 6; i++) {
        *num[i] = strtod(field[8 + i], &end);
        if (*end || end == field[8 + i]) return -1;
    }
    if (strcmp(field[14], "ok") == 0) r->ok = 1;
    else if (strcmp(field[14], "FAIL") == 0) r->ok = 0;
    else return -1;
    r->timed = 1;
    return 0;
}
