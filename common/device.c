/* SPDX-License-Identifier: MIT */
#include "device.h"
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cuda_fail(cudaError_t err, const char *call, const char *file, int line)
{
    const char *hint = "the GPU or driver is in a bad state: rerun, or find the fault with `make sanitize`";
    if (err == cudaErrorMemoryAllocation)
        hint = "out of device memory: use a smaller size (-n, or --rows/--cols)";
    else if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver)
        hint = "no usable CUDA device: run on a machine with an NVIDIA GPU and its driver";
    fprintf(stderr, "error: CUDA %s (%s) in %s at %s:%d; %s\n", cudaGetErrorName(err),
            cudaGetErrorString(err), call, file, line, hint);
    exit(EXIT_CUDA);
}

void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "error: out of host memory allocating %zu bytes; use a smaller size\n", bytes);
        exit(EXIT_CUDA);
    }
    return p;
}

int device_count(int *count, char *err, size_t err_len)
{
    *count = 0;
    cudaError_t e = cudaGetDeviceCount(count);
    if (e == cudaSuccess && *count > 0) return 0;
    snprintf(err, err_len,
             "no CUDA device (%s): run on a machine with an NVIDIA GPU and driver; "
             "`--list` and `make test`'s host suite need none",
             e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount found 0 devices");
    *count = 0;
    return EXIT_CUDA;
}

int device_open(device_info *d, char *err, size_t err_len)
{
    memset(d, 0, sizeof *d);
    int count = 0, rc = device_count(&count, err, err_len);
    if (rc) return rc;
    int id = 0;
    if (getenv("CUDA_DEVICE")) id = atoi(getenv("CUDA_DEVICE"));
    if (id < 0 || id >= count) id = 0;
    return device_open_id(d, id, err, err_len);
}

int device_open_id(device_info *d, int id, char *err, size_t err_len)
{
    memset(d, 0, sizeof *d);
    d->id = id;
    cudaError_t e;
    struct cudaDeviceProp p;
    if ((e = cudaSetDevice(d->id)) != cudaSuccess ||
        (e = cudaGetDeviceProperties(&p, d->id)) != cudaSuccess) {
        snprintf(err, err_len, "cannot open CUDA device %d: %s", d->id, cudaGetErrorString(e));
        return EXIT_CUDA;
    }
    size_t j = 0;
    for (size_t i = 0; p.name[i] && j + 1 < sizeof d->name; i++)
        if (p.name[i] != ',') d->name[j++] = p.name[i];
    d->name[j] = '\0';
    d->sm_count = p.multiProcessorCount;
    d->l2_bytes = (size_t)p.l2CacheSize;
    d->total_mem = p.totalGlobalMem;
    d->cc_major = p.major;
    d->cc_minor = p.minor;
    cudaRuntimeGetVersion(&d->runtime_version);
    cudaDriverGetVersion(&d->driver_version);
    cudaDeviceGetAttribute(&d->coop_launch, cudaDevAttrCooperativeLaunch, d->id);
    int clock_khz = 0, bus_bits = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, d->id);
    cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, d->id);
    /* double data rate: two transfers per clock on each bus bit */
    d->peak_gbps = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
    /* a first runtime call creates the context: fail here, not mid-run */
    if ((e = cudaFree(0)) != cudaSuccess) {
        snprintf(err, err_len, "cannot create a CUDA context on device %d: %s", d->id,
                 cudaGetErrorString(e));
        return EXIT_CUDA;
    }
    return 0;
}

size_t device_free_bytes(void)
{
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) return 0;
    return free_b;
}

void *pinned_alloc(size_t bytes)
{
    void *p = NULL;
    if (cudaMallocHost(&p, bytes ? bytes : 1) == cudaSuccess) return p;
    (void)cudaGetLastError();
    return xmalloc(bytes);
}

void pinned_free(void *p)
{
    unsigned int flags = 0;
    if (!p) return;
    if (cudaHostGetFlags(&flags, p) == cudaSuccess)
        cudaFreeHost(p);
    else {
        (void)cudaGetLastError();
        free(p);
    }
}
