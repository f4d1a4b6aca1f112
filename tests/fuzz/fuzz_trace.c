// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: a page trace file (trace_load), as indigo-sim reads
 * a trace it did not make. The bytes go to a file of this process's own;
 * a trace loads whole or is refused, and a header does not make it
 * allocate more than the file holds (check-fuzz runs with a malloc limit).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "trace.h"

static char path[64];

static void remove_file(void)
{
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace t;
	FILE *f;

	if (!*path) {
		snprintf(path, sizeof(path), "/tmp/indigo-fuzz-trace-%d", (int)getpid());
		atexit(remove_file);
	}
	f = fopen(path, "wb");
	if (!f)
		return 0;
	if (fwrite(data, 1, size, f) != size) {
		fclose(f);
		return 0;
	}
	fclose(f);
	if (!trace_load(&t, path, NULL, 0))
		trace_free(&t);
	return 0;
}
