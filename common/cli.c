/* SPDX-License-Identifier: MIT */
/* cli.c: flag parsing with full validation. Every error is one line that
   names the flag and the accepted range; the caller turns it into exit 2. */
#include "cli.h"
#include "common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *op_name(op_kind op)
{
    switch (op) {
    case OP_SUM: return "sum";
    case OP_ROWSUM: return "rowsum";
    case OP_SOFTMAX: return "softmax";
    case OP_LOGSOFTMAX: return "logsoftmax";
    case OP_ALLREDUCE: return "allreduce";
    }
    return "?";
}

const char *dtype_name(dtype dt)
{
    switch (dt) {
    case DT_F32: return "f32";
    case DT_F16: return "f16";
    case DT_BF16: return "bf16";
    }
    return "?";
}

size_t dtype_bytes(dtype dt) { return dt == DT_F32 ? 4 : 2; }

int parse_dtype(const char *text, dtype *out)
{
    static const dtype all[] = {DT_F32, DT_F16, DT_BF16};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(text, dtype_name(all[i])) == 0) {
            *out = all[i];
            return 0;
        }
    return -1;
}

static int fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return EXIT_USAGE;
}

int parse_size(const char *text, size_t max, size_t *out)
{
    if (text == NULL || *text == '\0') return -1;
    unsigned long long v;
    char *end;
    if (strncmp(text, "2^", 2) == 0) {
        const char *p = text + 2;
        if (*p < '0' || *p > '9') return -1;
        errno = 0;
        unsigned long long k = strtoull(p, &end, 10);
        if (errno || *end != '\0' || k > 62) return -1;
        v = 1ULL << k;
    } else {
        if (*text < '0' || *text > '9') return -1; /* no sign, no space */
        errno = 0;
        v = strtoull(text, &end, 10);
        if (errno == ERANGE || *end != '\0') return -1;
    }
    if (v == 0 || v > (unsigned long long)max) return -1;
    *out = (size_t)v;
    return 0;
}

/* Parses a comma-separated list of sizes into list[]; returns 0 or -1. */
static int parse_size_list(const char *text, size_t max, size_t *list, size_t *count)
{
    char buf[1024];
    if (strlen(text) >= sizeof buf) return -1;
    strcpy(buf, text);
    *count = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (*count == CLI_MAX_SIZES) return -1;
        if (parse_size(tok, max, &list[*count]) != 0) return -1;
        (*count)++;
    }
    /* "", "1,,2" and a trailing comma are errors, not silently shorter lists */
    if (*count == 0 || strstr(text, ",,") || text[0] == ',' || text[strlen(text) - 1] == ',') return -1;
    return 0;
}

static int parse_int(const char *text, long lo, long hi, int *out)
{
    if (text == NULL || *text == '\0') return -1;
    errno = 0;
    char *end;
    long v = strtol(text, &end, 10);
    if (errno || *end != '\0' || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

void print_usage(const char *prog)
{
    printf("usage: %s [-n N | --rows R --cols C] [--variant NAME|all] [--op OP]\n"
           "       %*s [--dtype f32|f16|bf16] [--iters K] [--warmup W] [--seed S]\n"
           "       %*s [--csv FILE] [--check-only] [--list] [-h]\n"
           "\n"
           "Checks every selected variant against a double-precision CPU reference,\n"
           "then times it and prints GB/s against the ceiling and CUB measured in the same run.\n"
           "\n"
           "  -n N            full-sum size(s): 1 .. 2^40 elements; N, 2^K, or a comma list\n"
           "                  (default 2^28, or the largest power of two that fits)\n"
           "  --rows R        rows of a [rows, cols] matrix: 1 .. 2^40\n"
           "  --cols C        columns, or a comma list; without --rows, rows = 2^26 / cols\n"
           "                  (default shape 65536 x 1024)\n"
           "  --variant NAME  one variant (see --list), or all (default)\n"
           "  --op OP         only variants of sum, rowsum, softmax, logsoftmax or allreduce\n"
           "  --dtype T       only variants with f32, f16 or bf16 input\n"
           "  --iters K       timed repetitions: 1 .. 100000 (default 50; median and min)\n"
           "  --warmup W      untimed repetitions first: 0 .. 100000 (default 5)\n"
           "  --seed S        random seed: 0 .. 2^64-1 (default 1)\n"
           "  --csv FILE      append results to FILE (header and device lines if new)\n"
           "  --check-only    check every variant, time nothing\n"
           "  --list          list the variants and exit (needs no GPU)\n"
           "  -h, --help      this text\n"
           "\n"
           "exit codes: 0 all checks passed, 1 a check failed, 2 usage error,\n"
           "            3 no CUDA device, out of device memory, or a CUDA error\n",
           prog, (int)strlen(prog), "", (int)strlen(prog), "");
}

int parse_options(int argc, char **argv, options_t *o, char *err, size_t err_len)
{
    memset(o, 0, sizeof *o);
    o->iters = 50;
    o->warmup = 5;
    o->seed = 1;
    if (err_len) err[0] = '\0';

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        char flag[64];
        const char *val = NULL;
        /* --flag=value is accepted as well as --flag value */
        const char *eq = strncmp(arg, "--", 2) == 0 ? strchr(arg, '=') : NULL;
        if (eq && (size_t)(eq - arg) < sizeof flag) {
            memcpy(flag, arg, (size_t)(eq - arg));
            flag[eq - arg] = '\0';
            val = eq + 1;
        } else {
            snprintf(flag, sizeof flag, "%s", arg);
        }

        int is_bool = !strcmp(flag, "--check-only") || !strcmp(flag, "--list") ||
                      !strcmp(flag, "-h") || !strcmp(flag, "--help");
        int known = is_bool || !strcmp(flag, "-n") || !strcmp(flag, "--rows") ||
                    !strcmp(flag, "--cols") || !strcmp(flag, "--variant") ||
                    !strcmp(flag, "--op") || !strcmp(flag, "--dtype") ||
                    !strcmp(flag, "--iters") || !strcmp(flag, "--warmup") ||
                    !strcmp(flag, "--seed") || !strcmp(flag, "--csv");
        if (!known)
            return fail(err, err_len, "unknown flag '%s'; run with -h to see the flags", arg);
        if (is_bool) {
            if (val) return fail(err, err_len, "%s takes no value", flag);
            if (!strcmp(flag, "--check-only")) o->check_only = 1;
            else if (!strcmp(flag, "--list")) o->list = 1;
            else o->help = 1;
            continue;
        }
        if (!val) {
            if (i + 1 >= argc)
                return fail(err, err_len, "%s needs a value; run with -h to see the flags", flag);
            val = argv[++i];
        }

        if (!strcmp(flag, "-n")) {
            if (parse_size_list(val, CLI_MAX_ELEMS, o->n, &o->n_count))
                return fail(err, err_len,
                            "-n '%s': expected a count 1 .. 2^40 (N or 2^K), or a comma list of up to %d",
                            val, CLI_MAX_SIZES);
        } else if (!strcmp(flag, "--rows")) {
            if (parse_size(val, CLI_MAX_ELEMS, &o->rows))
                return fail(err, err_len, "--rows '%s': expected a count 1 .. 2^40 (N or 2^K)", val);
        } else if (!strcmp(flag, "--cols")) {
            if (parse_size_list(val, CLI_MAX_ELEMS, o->cols, &o->cols_count))
                return fail(err, err_len,
                            "--cols '%s': expected a count 1 .. 2^40 (N or 2^K), or a comma list of up to %d",
                            val, CLI_MAX_SIZES);
        } else if (!strcmp(flag, "--variant")) {
            if (*val == '\0') return fail(err, err_len, "--variant needs a name (see --list) or all");
            o->variant = strcmp(val, "all") == 0 ? NULL : val;
        } else if (!strcmp(flag, "--op")) {
            o->have_op = 1;
            if (!strcmp(val, "sum")) o->op = OP_SUM;
            else if (!strcmp(val, "rowsum")) o->op = OP_ROWSUM;
            else if (!strcmp(val, "softmax")) o->op = OP_SOFTMAX;
            else if (!strcmp(val, "logsoftmax")) o->op = OP_LOGSOFTMAX;
            else if (!strcmp(val, "allreduce")) o->op = OP_ALLREDUCE;
            else return fail(err, err_len, "--op '%s': expected sum, rowsum, softmax, logsoftmax or allreduce",
                             val);
        } else if (!strcmp(flag, "--dtype")) {
            o->have_dtype = 1;
            if (parse_dtype(val, &o->dt))
                return fail(err, err_len, "--dtype '%s': expected f32, f16 or bf16", val);
        } else if (!strcmp(flag, "--iters")) {
            if (parse_int(val, 1, 100000, &o->iters))
                return fail(err, err_len, "--iters '%s': expected an integer 1 .. 100000", val);
        } else if (!strcmp(flag, "--warmup")) {
            if (parse_int(val, 0, 100000, &o->warmup))
                return fail(err, err_len, "--warmup '%s': expected an integer 0 .. 100000", val);
        } else if (!strcmp(flag, "--seed")) {
            char *end;
            errno = 0;
            if (*val < '0' || *val > '9') end = (char *)val;
            else o->seed = strtoull(val, &end, 10);
            if (errno || *end != '\0' || end == val)
                return fail(err, err_len, "--seed '%s': expected an integer 0 .. 2^64-1", val);
        } else if (!strcmp(flag, "--csv")) {
            if (*val == '\0') return fail(err, err_len, "--csv needs a file name");
            o->csv = val;
        }
    }

    if (o->n_count && (o->rows || o->cols_count))
        return fail(err, err_len, "-n (a full sum) and --rows/--cols (a matrix) cannot be combined");
    if (o->rows && !o->cols_count)
        return fail(err, err_len, "--rows needs --cols: give the matrix as --rows R --cols C");
    for (size_t i = 0; i < o->cols_count; i++) {
        size_t rows = o->rows ? o->rows : CLI_DEFAULT_ELEMS / o->cols[i];
        if (rows == 0) rows = 1;
        if (rows > CLI_MAX_ELEMS / o->cols[i])
            return fail(err, err_len, "--rows %zu x --cols %zu: more than 2^40 elements", rows, o->cols[i]);
    }
    return 0;
}

int select_variants(const options_t *o, const char *dir, const variant_key *keys, size_t n,
                    int *selected, char *err, size_t err_len)
{
    int named = 0, picked = 0;
    for (size_t i = 0; i < n; i++) {
        const int name_ok = !o->variant || strcmp(o->variant, keys[i].name) == 0;
        named |= name_ok;
        selected[i] = name_ok && (!o->have_op || keys[i].op == o->op) &&
                      (!o->have_dtype || keys[i].dt == o->dt);
        picked += selected[i];
    }
    if (!named) {
        size_t at = (size_t)snprintf(err, err_len,
                                     "--variant %s: no such variant in %s; choose one of:",
                                     o->variant, dir);
        for (size_t i = 0; i < n && at < err_len; i++) {
            size_t j = 0;
            while (j < i && strcmp(keys[j].name, keys[i].name) != 0) j++;
            if (j == i) at += (size_t)snprintf(err + at, err_len - at, " %s", keys[i].name);
        }
        if (at < err_len) snprintf(err + at, err_len - at, " all");
        return EXIT_USAGE;
    }
    if (!picked) return fail(err, err_len, "no variant of %s matches --op/--dtype; see --list", dir);
    return 0;
}
