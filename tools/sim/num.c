// SPDX-License-Identifier: GPL-2.0
/* The simulator's command-line numbers: see num.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "num.h"

int num_u64(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	if (end == s || *end || errno || strchr(s, '-') || *v > max)
		return -EINVAL;
	return 0;
}
