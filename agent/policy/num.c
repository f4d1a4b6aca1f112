// SPDX-License-Identifier: GPL-2.0
/* Numbers typed by a user: see num.h. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "num.h"

int num_u64(const char *s, uint64_t max, uint64_t *v)
{
	unsigned long long u;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	u = strtoull(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno || u > max)
		return -ERANGE;
	*v = u;
	return 0;
}

int num_double(const char *s, double *v)
{
	const char *p;
	char *end;
	double d;

	for (p = s; *p; p++)
		if (!isdigit((unsigned char)*p) && !strchr(".eE+-", *p))
			return -EINVAL;
	d = strtod(s, &end);
	if (end == s || *end)
		return -EINVAL;
	if (!isfinite(d))
		return -ERANGE;
	*v = d;
	return 0;
}
