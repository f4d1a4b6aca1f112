// SPDX-License-Identifier: GPL-2.0
/*
 * The CUDA driver as a GPU backend. libcuda is loaded at run time, never
 * linked, so indigod starts on hosts without NVIDIA's driver; cuda.h is
 * used for types only. Each entry point is looked up by the versioned name
 * that cuda.h maps its API name to (cuMemAlloc -> cuMemAlloc_v2): those are
 * the ABI the header's prototypes describe.
 *
 * A device's context is the primary one, retained for a probe and released
 * after it, so the agent holds no GPU memory between probes.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda.h>

#include "backend.h"
#include "cuerr.h"

#define DRIVER_MIN_VERSION	11000	/* CUDA 11.0: primary contexts, events, _v2 names */

/* The error table's codes are cuda.h's. */
_Static_assert(CUDA_ERROR_DEVICE_UNAVAILABLE == 46 && CUDA_ERROR_LAUNCH_FAILED == 719 &&
	       CUDA_ERROR_OUT_OF_MEMORY == GPU_BACKEND_HOST_ENOMEM,
	       "CUresult values moved");

/* Entry points: X(member and symbol, fallback symbol or NULL). */
#define CU_API(X) \
	X(cuInit, NULL) \
	X(cuGetErrorName, NULL) \
	X(cuGetErrorString, NULL) \
	X(cuDeviceGetCount, NULL) \
	X(cuDeviceGet, NULL) \
	X(cuDeviceGetName, NULL) \
	X(cuDeviceTotalMem_v2, NULL) \
	X(cuDeviceGetAttribute, NULL) \
	X(cuDeviceGetPCIBusId, NULL) \
	X(cuDevicePrimaryCtxRetain, NULL) \
	X(cuDevicePrimaryCtxRelease_v2, NULL) \
	X(cuCtxSetCurrent, NULL) \
	X(cuMemAlloc_v2, NULL) \
	X(cuMemFree_v2, NULL) \
	X(cuMemAllocHost_v2, NULL) \
	X(cuMemFreeHost, NULL) \
	X(cuMemHostRegister_v2, NULL) \
	X(cuMemHostUnregister, NULL) \
	X(cuMemcpyHtoDAsync_v2, NULL) \
	X(cuMemcpyDtoHAsync_v2, NULL) \
	X(cuStreamCreate, NULL) \
	X(cuStreamDestroy_v2, NULL) \
	X(cuEventCreate, NULL) \
	X(cuEventDestroy_v2, NULL) \
	X(cuEventRecord, NULL) \
	X(cuEventSynchronize, NULL)

/*
 * cuEventElapsedTime: drivers from 12.8 add cuEventElapsedTime_v2, older
 * ones have only the plain name, same prototype. cuda.h before 12.8 does
 * not declare the _v2 name, so its type is spelt here, not taken from the
 * header: any cuda.h from 11.0 on builds this.
 */
typedef CUresult elapsed_fn(float *ms, CUevent start, CUevent stop);
#if CUDA_VERSION >= 13000
_Static_assert(__builtin_types_compatible_p(elapsed_fn, __typeof__(cuEventElapsedTime_v2)),
	       "cuEventElapsedTime_v2's prototype moved");
#endif

struct drv {
	struct gpu_backend b;		/* first: the backend is the driver */
	void *lib;
	bool resident;			/* lib must not be dlclose()d */
	__typeof__(cuDriverGetVersion) *cuDriverGetVersion;
#define MEMBER(f, alt) __typeof__(f) *f;
	CU_API(MEMBER)
#undef MEMBER
	elapsed_fn *elapsed;
};

struct sess {
	CUdevice dev;
	CUcontext ctx;
	CUstream stream;
	CUevent start, stop;
	CUdeviceptr dbuf;
	void *pinned, *pageable;
	size_t bytes;
	bool registered;	/* pinned is ours, registered with the driver */
};

static struct drv *drv_of(struct gpu_backend *b)
{
	return (struct drv *)b;
}

static const char *drv_strerror(struct gpu_backend *b, int code, char *buf,
				size_t n)
{
	struct drv *d = drv_of(b);
	const char *name = NULL, *text = NULL;

	/* An unknown code leaves the pointers NULL: the table answers */
	if (d->cuGetErrorName(code, &name))
		name = NULL;
	if (d->cuGetErrorString(code, &text))
		text = NULL;
	return gpu_cuerr_describe(code, name, text, buf, n);
}

static int drv_count(struct gpu_backend *b, int *n)
{
	return drv_of(b)->cuDeviceGetCount(n);
}

/*
 * NUMA attributes by their ABI numbers, so that any cuda.h builds this and
 * a driver older than the attributes just answers "invalid value"; the
 * header this was written against (13.0) agrees with the numbers.
 */
#define ATTR_NUMA_CONFIG	130
#define ATTR_NUMA_ID		131
#define ATTR_HOST_NUMA_ID	134
#define NUMA_CONFIG_NUMA_NODE	1
#if CUDA_VERSION >= 13000
_Static_assert(ATTR_NUMA_CONFIG == CU_DEVICE_ATTRIBUTE_NUMA_CONFIG &&
	       ATTR_NUMA_ID == CU_DEVICE_ATTRIBUTE_NUMA_ID &&
	       ATTR_HOST_NUMA_ID == CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID &&
	       NUMA_CONFIG_NUMA_NODE == CU_DEVICE_NUMA_CONFIG_NUMA_NODE,
	       "NUMA attribute numbers moved");
#endif

/* An attribute the driver may not know (older than the header): -1 then. */
static int attr_or(struct drv *d, CUdevice dev, int attr)
{
	int v;

	return d->cuDeviceGetAttribute(&v, attr, dev) ? -1 : v;
}

static void numa_nodes(struct drv *d, CUdevice dev, struct gpu_dev_desc *o)
{
	o->mem_node = -1;
	if (attr_or(d, dev, ATTR_NUMA_CONFIG) == NUMA_CONFIG_NUMA_NODE)
		o->mem_node = attr_or(d, dev, ATTR_NUMA_ID);
	o->host_node = attr_or(d, dev, ATTR_HOST_NUMA_ID);
}

static int drv_describe(struct gpu_backend *b, int ordinal,
			struct gpu_dev_desc *o)
{
	struct drv *d = drv_of(b);
	CUdevice dev;
	size_t mem;
	int e;

	memset(o, 0, sizeof(*o));
	e = d->cuDeviceGet(&dev, ordinal);
	if (!e)
		e = d->cuDeviceGetName(o->name, sizeof(o->name), dev);
	if (!e)
		e = d->cuDeviceTotalMem_v2(&mem, dev);
	if (!e)
		e = d->cuDeviceGetPCIBusId(o->busid, sizeof(o->busid), dev);
	if (!e)
		e = d->cuDeviceGetAttribute(&o->cc_major,
				CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
	if (!e)
		e = d->cuDeviceGetAttribute(&o->cc_minor,
				CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
	if (e)
		return e;
	o->mem_bytes = mem;
	numa_nodes(d, dev, o);
	return 0;
}

static void drv_close_dev(struct gpu_backend *b, void *p)
{
	struct drv *d = drv_of(b);
	struct sess *s = p;

	if (!s)
		return;
	/* Teardown after a lost device fails too; nothing more to do then */
	if (s->stop)
		d->cuEventDestroy_v2(s->stop);
	if (s->start)
		d->cuEventDestroy_v2(s->start);
	if (s->stream)
		d->cuStreamDestroy_v2(s->stream);
	if (s->dbuf)
		d->cuMemFree_v2(s->dbuf);
	if (s->registered) {
		d->cuMemHostUnregister(s->pinned);
		gpu_host_free(s->pinned, s->bytes);
	} else if (s->pinned) {
		d->cuMemFreeHost(s->pinned);
	}
	gpu_host_free(s->pageable, s->bytes);
	if (s->ctx) {
		d->cuCtxSetCurrent(NULL);
		d->cuDevicePrimaryCtxRelease_v2(s->dev);
	}
	free(s);
}

/*
 * Pinned host memory on @node. The driver's own (cuMemAllocHost) lands
 * where the calling thread's policy puts it and, pinned, cannot be moved
 * after; so with a node known the memory is ours, bound before it is
 * touched (gpu_host_alloc), and then pinned by registering it.
 */
static int alloc_pinned(struct drv *d, struct sess *s, int node)
{
	void *p;
	int e;

	if (node < 0) {
		e = d->cuMemAllocHost_v2(&s->pinned, s->bytes);
		if (!e)
			memset(s->pinned, 0xa5, s->bytes);
		return e;
	}
	p = gpu_host_alloc(s->bytes, node);
	if (!p)
		return GPU_BACKEND_HOST_ENOMEM;
	e = d->cuMemHostRegister_v2(p, s->bytes, 0);
	if (e) {
		gpu_host_free(p, s->bytes);
		return e;
	}
	s->pinned = p;
	s->registered = true;
	return 0;
}

static int drv_open_dev(struct gpu_backend *b, int ordinal, size_t bytes,
			int node, void **out)
{
	struct drv *d = drv_of(b);
	struct sess *s = calloc(1, sizeof(*s));
	int e;

	if (!s)
		return GPU_BACKEND_HOST_ENOMEM;
	e = d->cuDeviceGet(&s->dev, ordinal);
	if (!e)
		e = d->cuDevicePrimaryCtxRetain(&s->ctx, s->dev);
	if (!e)
		e = d->cuCtxSetCurrent(s->ctx);
	if (!e)
		e = d->cuStreamCreate(&s->stream, CU_STREAM_NON_BLOCKING);
	if (!e)
		e = d->cuEventCreate(&s->start, CU_EVENT_DEFAULT);
	if (!e)
		e = d->cuEventCreate(&s->stop, CU_EVENT_DEFAULT);
	if (!e)
		e = d->cuMemAlloc_v2(&s->dbuf, bytes);
	s->bytes = bytes;
	if (!e)
		e = alloc_pinned(d, s, node);
	if (!e) {
		s->pageable = gpu_host_alloc(bytes, node);
		if (!s->pageable)
			e = GPU_BACKEND_HOST_ENOMEM;
	}
	if (e) {
		drv_close_dev(b, s);
		return e;
	}
	*out = s;
	return 0;
}

static int drv_copy(struct gpu_backend *b, void *p, enum gpu_dir dir,
		    enum gpu_host_mem mem, size_t bytes, unsigned int n,
		    double *seconds)
{
	struct drv *d = drv_of(b);
	struct sess *s = p;
	void *host = mem == GPU_PINNED ? s->pinned : s->pageable;
	unsigned int i;
	float ms;
	int e;

	e = d->cuEventRecord(s->start, s->stream);
	for (i = 0; i < n && !e; i++)
		e = dir == GPU_H2D ?
			d->cuMemcpyHtoDAsync_v2(s->dbuf, host, bytes, s->stream) :
			d->cuMemcpyDtoHAsync_v2(host, s->dbuf, bytes, s->stream);
	if (!e)
		e = d->cuEventRecord(s->stop, s->stream);
	if (!e)
		e = d->cuEventSynchronize(s->stop);
	if (!e)
		e = d->elapsed(&ms, s->start, s->stop);
	if (!e)
		*seconds = ms / 1e3;
	return e;
}

static void drv_pause(struct gpu_backend *b, double seconds)
{
	struct timespec ts = {
		.tv_sec = (time_t)seconds,
		.tv_nsec = (long)((seconds - (time_t)seconds) * 1e9),
	};

	(void)b;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void drv_close(struct gpu_backend *b)
{
	struct drv *d = drv_of(b);

	if (!d->resident)
		dlclose(d->lib);
	free(d);
}

static const struct gpu_backend_ops drv_ops = {
	.count = drv_count,
	.describe = drv_describe,
	.open_dev = drv_open_dev,
	.copy = drv_copy,
	.close_dev = drv_close_dev,
	.pause = drv_pause,
	.strerror = drv_strerror,
	.close = drv_close,
};

/* Looks @name (or @alt) up into *@slot. */
static int resolve(struct drv *d, const char *lib, const char *name,
		   const char *alt, void **slot, char *err, size_t n)
{
	*slot = dlsym(d->lib, name);
	if (!*slot && alt)
		*slot = dlsym(d->lib, alt);
	if (*slot)
		return 0;
	snprintf(err, n, "%s is not a usable CUDA driver: it lacks %s", lib, name);
	return -EPROTO;
}

static int load(struct drv *d, const char *lib, char *err, size_t n)
{
	char what[GPU_CUERR_MAX];
	int e, v;

	e = resolve(d, lib, "cuDriverGetVersion", NULL,
		    (void **)&d->cuDriverGetVersion, err, n);
	if (e)
		return e;
	/*
	 * The version first: an old driver is "too old", not "lacks X". The
	 * toolkit's stub libcuda fails here already, with its own code
	 * (CUDA_ERROR_STUB_LIBRARY): named from the table, as the driver's
	 * own names are not looked up yet.
	 */
	e = d->cuDriverGetVersion(&v);
	if (e) {
		snprintf(err, n, "%s: cuDriverGetVersion: %s", lib,
			 gpu_cuerr_describe(e, NULL, NULL, what, sizeof(what)));
		return -EPROTO;
	}
	if (v < DRIVER_MIN_VERSION) {
		snprintf(err, n, "CUDA driver %d.%d is too old: INDIGO needs %d.%d or newer",
			 v / 1000, v % 1000 / 10, DRIVER_MIN_VERSION / 1000,
			 DRIVER_MIN_VERSION % 1000 / 10);
		return -EPROTO;
	}
	d->b.version = v;
#define RESOLVE(f, alt) \
	if (!e) \
		e = resolve(d, lib, #f, alt, (void **)&d->f, err, n);
	CU_API(RESOLVE)
#undef RESOLVE
	if (!e)
		e = resolve(d, lib, "cuEventElapsedTime_v2", "cuEventElapsedTime",
			    (void **)&d->elapsed, err, n);
	return e;
}

/*
 * From cuInit on, the driver has threads running its code and handlers
 * and state in the process: libcuda is not made to be unloaded (CUDA's
 * runtime never does; loaders that did, CUDA.jl's, saw segfaults), and
 * unmapped by our dlclose() (gpu_tier_stop() on a reload, after a lost
 * device, after a start that failed past cuInit) it can take the agent
 * down. So once cuInit is called the library stays mapped: RTLD_NODELETE,
 * set through a second handle to the object already loaded, after which
 * dlclose() only counts down. What is no driver (not one, too old, the
 * stub) is still unloaded.
 */
static void keep_loaded(struct drv *d, const char *lib)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD | RTLD_NODELETE);

	if (h)
		dlclose(h);
	else		/* not found by that name again: never close ours */
		d->resident = true;
}

int gpu_driver_open(const char *lib, struct gpu_backend **out, char *err,
		    size_t errlen)
{
	struct drv *d;
	const char *why;
	int e;

	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	d->b.ops = &drv_ops;
	d->lib = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!d->lib) {
		why = dlerror();
		/*
		 * No driver only when @lib itself is missing: dlerror() names
		 * the object it could not open, a dependency of @lib when
		 * that one is missing, which is a driver that cannot load.
		 */
		e = why && !strncmp(why, lib, strlen(lib)) &&
		    why[strlen(lib)] == ':' && strstr(why, "No such file") ?
			-ENOENT : -EPROTO;
		snprintf(err, errlen, "%s%s", e == -ENOENT ?
			 "no NVIDIA driver: " : "cannot load the CUDA driver: ",
			 why ? why : lib);
		free(d);
		return e;
	}
	e = load(d, lib, err, errlen);
	if (!e) {
		keep_loaded(d, lib);
		e = d->cuInit(0);
		if (e)
			e = gpu_backend_fail(&d->b, e, err, errlen, "cuInit");
	}
	if (e) {
		drv_close(&d->b);
		return e;
	}
	*out = &d->b;
	return 0;
}
