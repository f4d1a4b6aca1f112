// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: one line of the decision log (dlog_parse_line), as
 * indigoctl eval reads a log it did not write. A line either parses into
 * a record dlog_append would accept, or is refused; never a crash.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dlog_rec rec;
	/* not NUL-terminated: the parser is given the length */
	char *line = malloc(size ? size : 1);

	if (!line)
		return 0;
	memcpy(line, data, size);
	dlog_parse_line(line, size, &rec);
	free(line);
	return 0;
}
