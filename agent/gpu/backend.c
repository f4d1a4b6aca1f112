// SPDX-License-Identifier: GPL-2.0
/* A backend's failures as one line and an errno. */
#include <stdarg.h>
#include <stdio.h>

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
