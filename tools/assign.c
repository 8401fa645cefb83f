/* SPDX-License-Identifier: MIT */
/* assign: replaces the solution regions of one file by stubs (make assignment).
 *
 *   build/assign [--code | --markdown] IN OUT     OUT "-" is stdout; the kind follows IN's name
 *
 * A region is a line containing "BEGIN SOLUTION" through the next line containing
 * "END SOLUTION" (substring match, as nbgrader does). Every byte outside the regions is kept.
 * Exit codes: 0 done (one line on stdout: the file and its number of regions); 1 IN cannot be
 * read or OUT written; 2 usage or a bad marker ("file:line: message" on stderr, OUT not
 * written). Built without main (-DCOURSE_LIB) for the host tests, which call strip_regions().
 */
#include "assign.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growing output buffer; oom records that an append failed (later appends do nothing). */
typedef struct {
    char *p;
    size_t len, cap;
    int oom;
} buf_t;

static void put(buf_t *b, const char *s, size_t n)
{
    if (b->oom) return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1) cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) { b->oom = 1; return; }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void puts_buf(buf_t *b, const char *s) { put(b, s, strlen(s)); }

/* 1 if needle occurs in s[0..n), else 0 (s may hold NUL bytes). */
static int contains(const char *s, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (s[i] == needle[0] && memcmp(s + i, needle, k) == 0) return 1;
    return 0;
}

/* One line of the input: [start, content_end) is its text, [content_end, end) its ending
   ("\r\n", "\n" or nothing on a last line without a newline). */
typedef struct {
    const char *start;
    size_t content_len, eol_len;
} line_t;

static line_t next_line(const char *p, const char *end)
{
    line_t l = {p, 0, 0};
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) {
        l.content_len = (size_t)(end - p);
        return l;
    }
    l.content_len = (size_t)(nl - p);
    l.eol_len = 1;
    if (l.content_len > 0 && nl[-1] == '\r') { l.content_len--; l.eol_len = 2; }
    return l;
}

static size_t indent_len(const line_t *l)
{
    size_t i = 0;
    while (i < l->content_len && (l->start[i] == ' ' || l->start[i] == '\t')) i++;
    return i;
}

int assign_is_markdown(const char *path)
{
    size_t n = strlen(path);
    return n >= 3 && strcmp(path + n - 3, ".md") == 0;
}

int strip_regions(const char *in, size_t len, const char *name, int markdown, char **out,
                  size_t *out_len, char *err, size_t err_len)
{
    buf_t b = {0};
    const char *p = in, *end = in + len;
    int line_no = 0, regions = 0, in_region = 0, begin_no = 0, expect_hint = 0;
    line_t begin = {0}, hint = {0};
    int have_hint = 0;

    *out = NULL;
    *out_len = 0;
    put(&b, "", 0); /* an empty input gives an empty, NUL-terminated output */
    while (p < end) {
        line_t l = next_line(p, end);
        p += l.content_len + l.eol_len;
        line_no++;
        int has_begin = contains(l.start, l.content_len, ASSIGN_BEGIN);
        int has_end = contains(l.start, l.content_len, ASSIGN_END);
        if (has_begin && has_end) {
            snprintf(err, err_len, "%s:%d: %s and %s on one line", name, line_no, ASSIGN_BEGIN,
                     ASSIGN_END);
            goto fail;
        }
        if (!in_region) {
            if (has_end) {
                snprintf(err, err_len, "%s:%d: %s without a %s before it", name, line_no,
                         ASSIGN_END, ASSIGN_BEGIN);
                goto fail;
            }
            if (has_begin) {
                in_region = 1;
                begin = l;
                begin_no = line_no;
                have_hint = 0;
                expect_hint = 1;
                continue;
            }
            put(&b, l.start, l.content_len + l.eol_len);
            continue;
        }
        if (has_begin) {
            snprintf(err, err_len, "%s:%d: nested %s (the region opened at line %d is still open)",
                     name, line_no, ASSIGN_BEGIN, begin_no);
            goto fail;
        }
        if (expect_hint) {
            expect_hint = 0;
            if (!has_end && contains(l.start, l.content_len, ASSIGN_HINT)) {
                hint = l;
                have_hint = 1;
            }
        }
        if (!has_end) continue;
        /* the stub: its last line ends as the END line did */
        const char *last_eol = l.start + l.content_len;
        size_t last_eol_len = l.eol_len;
        if (markdown) {
            if (have_hint) {
                put(&b, hint.start, hint.content_len);
                put(&b, begin.start + begin.content_len, begin.eol_len);
            }
            put(&b, begin.start, indent_len(&begin));
            puts_buf(&b, ASSIGN_MARKDOWN_STUB);
        } else if (have_hint) {
            put(&b, hint.start, hint.content_len);
        } else {
            put(&b, begin.start, indent_len(&begin));
            puts_buf(&b, ASSIGN_CODE_STUB);
        }
        put(&b, last_eol, last_eol_len);
        in_region = 0;
        regions++;
    }
    if (in_region) {
        snprintf(err, err_len, "%s:%d: %s without an %s before the end of the file", name,
                 begin_no, ASSIGN_BEGIN, ASSIGN_END);
        goto fail;
    }
    if (b.oom) {
        snprintf(err, err_len, "%s: out of memory", name);
        goto fail;
    }
    *out = b.p;
    *out_len = b.len;
    return regions;
fail:
    free(b.p);
    return -1;
}

#ifndef COURSE_LIB

/* Reads the whole file at path into a malloc'd buffer. Returns it (NUL-terminated) and sets
   *len, or NULL with errno set. */
static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *p = malloc(cap);
    while (p) {
        n += fread(p + n, 1, cap - n - 1, f);
        if (n < cap - 1) break;
        char *q = realloc(p, cap * 2);
        if (!q) { free(p); p = NULL; errno = ENOMEM; break; }
        p = q;
        cap *= 2;
    }
    if (p && ferror(f)) { free(p); p = NULL; errno = EIO; }
    fclose(f);
    if (p) { p[n] = '\0'; *len = n; }
    return p;
}

/* Writes data to path through path.tmp and a rename, so a reader never sees half a file.
   Returns 0, or -1 with errno set (path untouched). */
static int write_file(const char *path, const char *data, size_t len)
{
    if (strcmp(path, "-") == 0) return fwrite(data, 1, len, stdout) == len ? 0 : -1;
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    FILE *f = fopen(tmp, "wb");
    if (!f) return -1;
    int ok = fwrite(data, 1, len, f) == len;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        errno = e;
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int kind = -1; /* -1: from the name, 0 code, 1 markdown */
    int a = 1;
    if (a < argc && strcmp(argv[a], "--code") == 0) { kind = 0; a++; }
    else if (a < argc && strcmp(argv[a], "--markdown") == 0) { kind = 1; a++; }
    if (argc - a != 2) {
        fprintf(stderr, "usage: %s [--code | --markdown] IN OUT   (OUT - is stdout)\n", argv[0]);
        return 2;
    }
    const char *in_path = argv[a], *out_path = argv[a + 1];
    size_t len = 0, out_len = 0;
    char *in = read_file(in_path, &len);
    if (!in) {
        fprintf(stderr, "assign: cannot read %s: %s\n", in_path, strerror(errno));
        return 1;
    }
    char err[512], *out = NULL;
    int markdown = kind >= 0 ? kind : assign_is_markdown(in_path);
    int regions = strip_regions(in, len, in_path, markdown, &out, &out_len, err, sizeof err);
    free(in);
    if (regions < 0) {
        fprintf(stderr, "%s\n", err);
        return strstr(err, "out of memory") ? 1 : 2;
    }
    if (write_file(out_path, out, out_len) != 0) {
        fprintf(stderr, "assign: cannot write %s: %s\n", out_path, strerror(errno));
        free(out);
        return 1;
    }
    free(out);
    if (strcmp(out_path, "-") != 0)
        printf("%s: %d solution region%s stubbed\n", in_path, regions, regions == 1 ? "" : "s");
    return 0;
}

#endif /* COURSE_LIB */
