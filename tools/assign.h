/* SPDX-License-Identifier: MIT */
/* assign.h: the solution-region transform behind `make assignment` (tools/assign.c). */
#ifndef ASSIGN_H
#define ASSIGN_H

#include <stddef.h>

/* The marker texts, matched as substrings of a line (as nbgrader does). */
#define ASSIGN_BEGIN "BEGIN SOLUTION"
#define ASSIGN_END   "END SOLUTION"
#define ASSIGN_HINT  "HINT:"
/* What replaces a region without a hint in a code file (after the BEGIN line's indentation)
   and in a Markdown file. */
#define ASSIGN_CODE_STUB     "// TODO: implement this part (see README.md, Exercises)"
#define ASSIGN_MARKDOWN_STUB "*(left for you to work out)*"

/* Replaces every solution region of in[0..len) and keeps every other byte.
   A region runs from a line containing ASSIGN_BEGIN to the next line containing ASSIGN_END,
   both included. In a code file (markdown == 0) it becomes one line: the BEGIN line's
   indentation and ASSIGN_CODE_STUB, or, when the line right after BEGIN contains ASSIGN_HINT,
   that line as written. In a Markdown file it becomes the hint line (if any) and then a line
   with the BEGIN line's indentation and ASSIGN_MARKDOWN_STUB. Stub lines end as the BEGIN line
   does ("\n" or "\r\n"), except the last, which ends as the END line does (so a file without
   a trailing newline keeps lacking one).
   Returns the number of regions (>= 0) and sets *out (malloc'd, NUL-terminated, owned by the
   caller) and *out_len. Returns -1 with *out NULL and a one-line message "name:line: ..." in
   err on a nested BEGIN, an END without a BEGIN, a BEGIN without an END, both markers on one
   line, or (as "name: out of memory") when memory runs out. */
int strip_regions(const char *in, size_t len, const char *name, int markdown, char **out,
                  size_t *out_len, char *err, size_t err_len);

/* 1 if path names a Markdown file (ends in ".md"), else 0. */
int assign_is_markdown(const char *path);

#endif /* ASSIGN_H */
