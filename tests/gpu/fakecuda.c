// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in libcuda for the driver backend's tests (test_driver.c): the
 * entry points agent/gpu/driver.c looks up, over host memory, so the real
 * dlopen/dlsym/version/discovery/probe path runs without a GPU. Behaviour
 * from the environment, read at each call:
 *
 *	FAKECUDA_VERSION	cuDriverGetVersion's answer (12080)
 *	FAKECUDA_VERSION_RESULT	cuDriverGetVersion's CUresult (0; the
 *				toolkit's stub libcuda returns 34)
 *	FAKECUDA_INIT		cuInit's CUresult (0)
 *	FAKECUDA_DEVICES	device count (1)
 *	FAKECUDA_NUMA		NUMA node of device 0's memory (none)
 *	FAKECUDA_HOST_NUMA	every device's nearest host node (0)
 *	FAKECUDA_FAIL_COPY	"N:CODE": the Nth copy since cuInit fails with CODE
 *	FAKECUDA_THREAD		1: the first cuInit that succeeds starts a thread,
 *				"fakecuda", parked for good, as the driver's own
 *
 * fakecuda_live() counts what is allocated (or registered) and not freed,
 * contexts retained and not released: tests check it returns to 0.
 * fakecuda_host_policy() says how the host memory copied from or to was
 * bound (get_mempolicy), as the driver would find it when pinning it.
 */
#include <numaif.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda.h>

#define API __attribute__((visibility("default")))

struct CUevent_st {
	struct timespec at;
};

struct CUstream_st {
	int unused;
};

static int live, copies;

/* Pinned host memory: what cuMemAllocHost gave and cuMemHostRegister took */
#define PINNED_MAX	16
static const void *pinned[PINNED_MAX];

/* The last copy's host memory, pageable [0] and pinned [1]: its policy */
static struct {
	int mode;		/* MPOL_*, -1 no copy since cuInit */
	unsigned long mask;	/* nodes 0-63 */
} seen[2];

static int env(const char *name, int def)
{
	const char *v = getenv(name);

	return v && *v ? atoi(v) : def;
}

API int fakecuda_live(void)
{
	return live;
}

API int fakecuda_host_policy(int is_pinned, unsigned long *mask)
{
	*mask = seen[!!is_pinned].mask;
	return seen[!!is_pinned].mode;
}

/* Replaces pinned entry @from (NULL: a free one) by @to: 0, or -1 none. */
static int pinned_swap(const void *from, const void *to)
{
	int i;

	for (i = 0; i < PINNED_MAX; i++)
		if (pinned[i] == from) {
			pinned[i] = to;
			return 0;
		}
	return -1;
}

static void note_host(const void *h)
{
	unsigned long mask[1024 / (8 * sizeof(unsigned long))] = { 0 };
	int i = 0, mode;

	while (i < PINNED_MAX && pinned[i] != h)
		i++;
	if (get_mempolicy(&mode, mask, 1024 + 1, (void *)h, MPOL_F_ADDR))
		mode = -1;
	seen[i < PINNED_MAX].mode = mode;
	seen[i < PINNED_MAX].mask = mask[0];
}

API CUresult cuDriverGetVersion(int *v)
{
	*v = env("FAKECUDA_VERSION", 12080);
	return env("FAKECUDA_VERSION_RESULT", CUDA_SUCCESS);
}

static void *parked(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* The driver's threads take the signal mask of the thread calling it. */
static void start_thread(void)
{
	static int started;
	pthread_t t;

	if (started || !env("FAKECUDA_THREAD", 0) ||
	    pthread_create(&t, NULL, parked, NULL))
		return;
	pthread_setname_np(t, "fakecuda");
	pthread_detach(t);
	started = 1;
}

API CUresult cuInit(unsigned int flags)
{
	CUresult e = env("FAKECUDA_INIT", 0);

	(void)flags;
	live = 0;
	copies = 0;
	memset(pinned, 0, sizeof(pinned));
	seen[0].mode = -1;
	seen[1].mode = -1;
	if (!e)
		start_thread();
	return e;
}

/* The fake's own words, so tests can tell them from INDIGO's table */
API CUresult cuGetErrorName(CUresult e, const char **s)
{
	*s = e == CUDA_ERROR_NO_DEVICE ? "CUDA_ERROR_NO_DEVICE" :
	     e == CUDA_ERROR_DEVICE_UNAVAILABLE ? "CUDA_ERROR_DEVICE_UNAVAILABLE" :
	     e == CUDA_ERROR_UNKNOWN ? "CUDA_ERROR_UNKNOWN" : NULL;
	return *s ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

API CUresult cuGetErrorString(CUresult e, const char **s)
{
	*s = e == CUDA_ERROR_NO_DEVICE ? "fake: no CUDA-capable device is detected" :
	     e == CUDA_ERROR_DEVICE_UNAVAILABLE ? "fake: device busy or unavailable" :
	     e == CUDA_ERROR_UNKNOWN ? "fake: device fell off the bus" : NULL;
	return *s ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

API CUresult cuDeviceGetCount(int *n)
{
	*n = env("FAKECUDA_DEVICES", 1);
	return CUDA_SUCCESS;
}

API CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
	if (ordinal < 0 || ordinal >= env("FAKECUDA_DEVICES", 1))
		return CUDA_ERROR_INVALID_DEVICE;
	*d = ordinal;
	return CUDA_SUCCESS;
}

API CUresult cuDeviceGetName(char *name, int len, CUdevice d)
{
	snprintf(name, len, "Fake H200 #%d", d);
	return CUDA_SUCCESS;
}

API CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d)
{
	(void)d;
	*bytes = (size_t)141 << 30;
	return CUDA_SUCCESS;
}

API CUresult cuDeviceGetPCIBusId(char *id, int len, CUdevice d)
{
	snprintf(id, len, "00000000:%02X:00.0", 0x3b + d);
	return CUDA_SUCCESS;
}

API CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
	int numa = env("FAKECUDA_NUMA", -1);

	switch ((int)a) {
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
		*v = 9;
		return CUDA_SUCCESS;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
		*v = 0;
		return CUDA_SUCCESS;
	case CU_DEVICE_ATTRIBUTE_NUMA_CONFIG:
		*v = numa >= 0 && d == 0 ? CU_DEVICE_NUMA_CONFIG_NUMA_NODE :
					   CU_DEVICE_NUMA_CONFIG_NONE;
		return CUDA_SUCCESS;
	case CU_DEVICE_ATTRIBUTE_NUMA_ID:
		*v = d == 0 ? numa : -1;
		return CUDA_SUCCESS;
	case CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID:
		*v = env("FAKECUDA_HOST_NUMA", 0);
		return CUDA_SUCCESS;
	default:	/* as an older driver does for attributes it lacks */
		return CUDA_ERROR_INVALID_VALUE;
	}
}

API CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
	(void)d;
	*c = (CUcontext)&live;
	live++;
	return CUDA_SUCCESS;
}

API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d)
{
	(void)d;
	live--;
	return CUDA_SUCCESS;
}

API CUresult cuCtxSetCurrent(CUcontext c)
{
	(void)c;
	return CUDA_SUCCESS;
}

static CUresult alloc(void **p, size_t n)
{
	*p = malloc(n);
	if (!*p)
		return CUDA_ERROR_OUT_OF_MEMORY;
	live++;
	return CUDA_SUCCESS;
}

static CUresult release(void *p)
{
	free(p);
	live--;
	return CUDA_SUCCESS;
}

API CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
	void *q;
	CUresult e = alloc(&q, n);

	*p = (CUdeviceptr)(uintptr_t)q;
	return e;
}

API CUresult cuMemFree_v2(CUdeviceptr p)
{
	return release((void *)(uintptr_t)p);
}

API CUresult cuMemAllocHost_v2(void **p, size_t n)
{
	CUresult e = alloc(p, n);

	if (!e && pinned_swap(NULL, *p)) {
		release(*p);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	return e;
}

API CUresult cuMemFreeHost(void *p)
{
	if (pinned_swap(p, NULL))
		return CUDA_ERROR_INVALID_VALUE;
	return release(p);
}

API CUresult cuMemHostRegister(void *p, size_t n, unsigned int flags)
{
	(void)n;
	(void)flags;
	if (pinned_swap(NULL, p))
		return CUDA_ERROR_OUT_OF_MEMORY;
	live++;
	return CUDA_SUCCESS;
}

API CUresult cuMemHostUnregister(void *p)
{
	if (pinned_swap(p, NULL))
		return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
	live--;
	return CUDA_SUCCESS;
}

static CUresult copy(void *dst, const void *src, size_t n)
{
	const char *fail = getenv("FAKECUDA_FAIL_COPY");
	int at, code;

	copies++;
	if (fail && sscanf(fail, "%d:%d", &at, &code) == 2 && copies == at)
		return code;
	memcpy(dst, src, n);
	return CUDA_SUCCESS;
}

API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *h, size_t n, CUstream s)
{
	(void)s;
	note_host(h);
	return copy((void *)(uintptr_t)d, h, n);
}

API CUresult cuMemcpyDtoHAsync_v2(void *h, CUdeviceptr d, size_t n, CUstream s)
{
	(void)s;
	note_host(h);
	return copy(h, (void *)(uintptr_t)d, n);
}

API CUresult cuStreamCreate(CUstream *s, unsigned int flags)
{
	(void)flags;
	return alloc((void **)s, sizeof(**s));
}

API CUresult cuStreamDestroy_v2(CUstream s)
{
	return release(s);
}

API CUresult cuEventCreate(CUevent *e, unsigned int flags)
{
	(void)flags;
	return alloc((void **)e, sizeof(**e));
}

API CUresult cuEventDestroy_v2(CUevent e)
{
	return release(e);
}

API CUresult cuEventRecord(CUevent e, CUstream s)
{
	(void)s;
	clock_gettime(CLOCK_MONOTONIC, &e->at);
	return CUDA_SUCCESS;
}

API CUresult cuEventSynchronize(CUevent e)
{
	(void)e;
	return CUDA_SUCCESS;
}

/* Only the pre-12.8 name: the backend must fall back to it */
#undef cuEventElapsedTime
API CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b)
{
	*ms = (float)((b->at.tv_sec - a->at.tv_sec) * 1e3 +
		      (b->at.tv_nsec - a->at.tv_nsec) / 1e6);
	/* a copy within the clock's resolution still took some time */
	if (*ms <= 0)
		*ms = 1e-6f;
	return CUDA_SUCCESS;
}
