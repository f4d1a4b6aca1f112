// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: a page trace file (trace_load), as indigo-sim reads
 * a trace it did not make. The bytes go to a file of this process's own;
 * a trace loads whole or is refused, and a header does not make it
 * allocate more than the file holds (check-fuzz runs with a malloc limit).
 * The same bytes then come through a pipe, as `indigo-sim run /dev/stdin`
 * reads them: no file size vouches for the header there, so its checks
 * and the records' growing room (read_recs) are another path.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "trace.h"

static char path[64];

/* what a pipe is made to hold, written whole before the load reads it */
#define PIPE_BYTES	(1 << 20)

static void load_pipe(const uint8_t *data, size_t size)
{
	char name[32];
	struct trace t;
	int fd[2];

	if (size > PIPE_BYTES || pipe(fd))
		return;
	if (fcntl(fd[1], F_SETPIPE_SZ, PIPE_BYTES) >= 0 &&
	    write(fd[1], data, size) == (ssize_t)size) {
		close(fd[1]);
		fd[1] = -1;
		snprintf(name, sizeof(name), "/dev/fd/%d", fd[0]);
		if (!trace_load(&t, name, NULL, 0))
			trace_free(&t);
	}
	if (fd[1] >= 0)
		close(fd[1]);
	close(fd[0]);
}

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
	load_pipe(data, size);
	return 0;
}
