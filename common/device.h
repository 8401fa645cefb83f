/* SPDX-License-Identifier: MIT */
/* device.h: what the driver needs to know about the GPU. */
#ifndef DEVICE_H
#define DEVICE_H

#include <stddef.h>

typedef struct {
    int id;
    char name[256];          /* commas removed: it goes into CSV */
    int sm_count;
    size_t l2_bytes;
    size_t total_mem;
    int cc_major, cc_minor;
    int runtime_version, driver_version; /* 13000 = 13.0 */
    int coop_launch;         /* cudaDevAttrCooperativeLaunch */
    double peak_gbps;        /* theoretical: 2 x memory clock x bus width; reported, never the ceiling */
} device_info;

/* The number of CUDA devices into *count. Returns 0 when there is one at least, else EXIT_CUDA
   (3) with a one-line reason and what to do in err (no device, no driver). */
int device_count(int *count, char *err, size_t err_len);

/* Opens device 0 and fills *d. Returns 0, or EXIT_CUDA (3) with a one-line
   reason and what to do in err: no device, no driver, or a CUDA error. */
int device_open(device_info *d, char *err, size_t err_len);

/* Opens device `id` (makes it current, creates its context) and fills *d. Returns 0, or
   EXIT_CUDA (3) with a one-line reason in err. */
int device_open_id(device_info *d, int id, char *err, size_t err_len);

/* Free device memory in bytes (cudaMemGetInfo); 0 if the query fails. */
size_t device_free_bytes(void);

/* Page-locked host memory, so that copies run at full speed instead of through a bounce
   buffer; plain memory (xmalloc: exits when even that fails) where it cannot be had. */
void *pinned_alloc(size_t bytes);
/* Frees what pinned_alloc returned, either kind; NULL is fine. */
void pinned_free(void *p);

#endif /* DEVICE_H */
