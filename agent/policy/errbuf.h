/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Errors that say why: a function that fails formats the reason into its
 * caller's buffer (when the caller gave one) and returns its code, so that
 * only the caller decides where the message goes.
 */
#ifndef INDIGO_ERRBUF_H
#define INDIGO_ERRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

static inline int __attribute__((format(printf, 4, 5)))
errbuf_set(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

#endif /* INDIGO_ERRBUF_H */
