// SPDX-License-Identifier: GPL-2.0
/* Page traces: see trace.h. */
#include "trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int trace_alloc(struct trace *t, uint32_t npages, uint64_t n)
{
	memset(t, 0, sizeof(*t));
	if (n > TRACE_MAX_RECS || !npages)
		return -EINVAL;
	t->r = malloc((n ? n : 1) * sizeof(*t->r));
	if (!t->r)
		return -ENOMEM;
	t->npages = npages;
	t->n = n;
	return 0;
}

void trace_free(struct trace *t)
{
	free(t->r);
	t->r = NULL;
	t->n = 0;
}

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

int trace_write_header(FILE *f, uint32_t npages, uint64_t n)
{
	unsigned char h[TRACE_HDR_BYTES] = { 0 };

	memcpy(h, TRACE_MAGIC, 8);
	put32(h + 8, TRACE_VERSION);
	put32(h + 12, npages);
	put64(h + 16, n);
	return fwrite(h, 1, sizeof(h), f) == sizeof(h) ? 0 : -EIO;
}

int trace_write(const struct trace *t, FILE *f)
{
	int ret = trace_write_header(f, t->npages, t->n);

	if (!ret && t->n && fwrite(t->r, sizeof(*t->r), t->n, f) != t->n)
		ret = -EIO;
	return ret;
}

int trace_save(const struct trace *t, const char *path)
{
	FILE *f = fopen(path, "wb");
	int ret;

	if (!f)
		return -errno;
	ret = trace_write(t, f);
	if (fclose(f) && !ret)
		ret = -EIO;
	return ret;
}

static int read_body(struct trace *t, FILE *f)
{
	unsigned char h[TRACE_HDR_BYTES];
	uint32_t version, npages;
	struct stat st;
	uint64_t n, i;
	int ret;

	if (fread(h, 1, sizeof(h), f) != sizeof(h) ||
	    memcmp(h, TRACE_MAGIC, 8))
		return -EINVAL;
	memcpy(&version, h + 8, 4);
	memcpy(&npages, h + 12, 4);
	memcpy(&n, h + 16, 8);
	if (version != TRACE_VERSION)
		return -EINVAL;
	/* nothing to simulate: every policy would tie at zero */
	if (!n)
		return -ENODATA;
	/* a header that disagrees with the file is damage: refused before
	 * its count, up to TRACE_MAX_RECS, is allocated */
	if (!fstat(fileno(f), &st) && S_ISREG(st.st_mode) &&
	    n <= TRACE_MAX_RECS &&
	    (uint64_t)st.st_size != TRACE_HDR_BYTES + n * sizeof(*t->r))
		return -EINVAL;
	ret = trace_alloc(t, npages, n);
	if (ret)
		return ret;
	if (n && fread(t->r, sizeof(*t->r), n, f) != n) {
		trace_free(t);
		return ferror(f) ? -EIO : -EINVAL;
	}
	for (i = 0; i < n; i++)
		if (t->r[i].page >= npages) {
			trace_free(t);
			return -EINVAL;
		}
	if (fgetc(f) != EOF) {
		trace_free(t);
		return -EINVAL;
	}
	return 0;
}

int trace_load(struct trace *t, const char *path)
{
	FILE *f = fopen(path, "rb");
	int ret;

	if (!f)
		return -errno;
	ret = read_body(t, f);
	fclose(f);
	return ret;
}
