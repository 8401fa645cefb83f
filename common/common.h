/* SPDX-License-Identifier: MIT */
/* common.h: exit codes and the one CUDA error check shared by the host code. */
#ifndef COMMON_H
#define COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

/* Exit codes of every stage program (README "Exit codes"). */
enum {
    EXIT_ALL_OK = 0,      /* every check passed */
    EXIT_CHECK_FAIL = 1,  /* a check failed: the variant was not timed */
    EXIT_USAGE = 2,       /* a bad flag, value or size: one line names it */
    EXIT_CUDA = 3         /* no device, out of device memory, or a CUDA error */
};

/* Prints one line naming the error, the call and what to do, then exits
   with EXIT_CUDA. Never returns. */
void cuda_fail(cudaError_t err, const char *call, const char *file, int line);

/* CHECK_CUDA(call): on failure prints "<file>:<line>: <call>: <error>" and a
   hint on one line, then exits 3. For programs; tests assert instead. */
#define CHECK_CUDA(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) cuda_fail(err_, #call, __FILE__, __LINE__); \
    } while (0)

/* Host allocation that exits 3 with one line when the host is out of memory. */
void *xmalloc(size_t bytes);

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif /* COMMON_H */
