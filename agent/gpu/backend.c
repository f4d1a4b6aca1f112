// SPDX-License-Identifier: GPL-2.0
/* What backends share: failures as one line and an errno, host memory. */
#include <numaif.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "backend.h"
#include "cuerr.h"

int gpu_backend_fail(struct gpu_backend *b, int code, char *err, size_t errlen,
		     const char *fmt, ...)
{
	char what[GPU_CUERR_MAX];
	va_list ap;
	int n;

	if (err && errlen) {
		va_start(ap, fmt);
		n = vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < errlen)
			snprintf(err + n, errlen - n, ": %s",
				 b->ops->strerror(b, code, what, sizeof(what)));
	}
	return gpu_cuerr_errno(code);
}

void *gpu_host_alloc(size_t bytes, int node)
{
	unsigned long mask[GPU_NODE_IDS / (8 * sizeof(unsigned long))] = { 0 };
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (node >= 0 && node < GPU_NODE_IDS) {
		mask[node / (8 * sizeof(unsigned long))] =
			1UL << (node % (8 * sizeof(unsigned long)));
		/*
		 * maxnode: one past the mask's bits, as libnuma passes it.
		 * Failing, the memory stays unbound, as with no node known.
		 */
		(void)mbind(p, bytes, MPOL_BIND, mask, GPU_NODE_IDS + 1, 0);
	}
	/* Touched, so that copies do not time first-touch faults */
	memset(p, 0x5a, bytes);
	return p;
}

void gpu_host_free(void *p, size_t bytes)
{
	if (p)
		munmap(p, bytes);
}
