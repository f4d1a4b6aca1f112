// SPDX-License-Identifier: GPL-2.0
/* Page traces: see trace.h. */
#include "trace.h"
#include "errbuf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* records read at once from a file of unknown size (a pipe): 256 KiB */
#define TRACE_PIPE_RECS	(1U << 15)

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

/*
 * The header, checked against itself and the file's size before anything
 * is allocated for its counts: a damaged one (four billion pages for a few
 * records) must get an error, not an allocation the host cannot give.
 */
static int read_header(FILE *f, uint32_t *npages, uint64_t *n, bool *sized,
		       char *why, size_t len)
{
	unsigned char h[TRACE_HDR_BYTES];
	uint32_t version;
	uint64_t want;
	struct stat st;

	if (fread(h, 1, sizeof(h), f) != sizeof(h) ||
	    memcmp(h, TRACE_MAGIC, 8))
		return errbuf_set(why, len, -EINVAL, "not a trace (no %s header)",
			       TRACE_MAGIC);
	memcpy(&version, h + 8, 4);
	memcpy(npages, h + 12, 4);
	memcpy(n, h + 16, 8);
	if (version != TRACE_VERSION)
		return errbuf_set(why, len, -EINVAL, "trace version %" PRIu32 ", not %d",
			       version, TRACE_VERSION);
	/* nothing to simulate: every policy would tie at zero */
	if (!*n)
		return errbuf_set(why, len, -ENODATA, "no records");
	if (*n > TRACE_MAX_RECS)
		return errbuf_set(why, len, -EINVAL, "header claims %" PRIu64
			       " records, more than the %llu a trace may hold",
			       *n, TRACE_MAX_RECS);
	/* a header that disagrees with the file is damage */
	want = TRACE_HDR_BYTES + *n * sizeof(struct trace_rec);
	*sized = !fstat(fileno(f), &st) && S_ISREG(st.st_mode);
	if (*sized && (uint64_t)st.st_size != want)
		return errbuf_set(why, len, -EINVAL, "header claims %" PRIu64
			       " records (%" PRIu64 " bytes), the file has %jd",
			       *n, want, (intmax_t)st.st_size);
	if (!*npages)
		return errbuf_set(why, len, -EINVAL, "header claims no pages");
	/* every policy allocates per page; the records name at most n */
	if (*npages > *n)
		return errbuf_set(why, len, -EINVAL, "header claims %" PRIu32
			       " pages, more than its %" PRIu64 " records can name",
			       *npages, *n);
	return 0;
}

/*
 * The @n records into @t, which has room for t->n. Room grows as records
 * arrive, so that a header whose count no file size vouched for (a pipe)
 * cannot have gigabytes allocated for records that never come. -ENODATA
 * where the file ends first.
 */
static int read_recs(struct trace *t, FILE *f, uint64_t n)
{
	struct trace_rec *r;
	uint64_t got = 0, room;

	for (;;) {
		got += fread(t->r + got, sizeof(*t->r), t->n - got, f);
		if (got < t->n || t->n == n)
			break;
		room = t->n * 2 < n ? t->n * 2 : n;
		r = realloc(t->r, room * sizeof(*r));
		if (!r)
			return -ENOMEM;
		t->r = r;
		t->n = room;
	}
	if (got < n)
		return ferror(f) ? -EIO : -ENODATA;
	return 0;
}

static int read_body(struct trace *t, FILE *f, char *why, size_t len)
{
	uint32_t npages = 0;
	uint64_t n = 0, i;
	bool sized = false;
	int ret = read_header(f, &npages, &n, &sized, why, len);

	if (ret)
		return ret;
	ret = trace_alloc(t, npages, sized || n < TRACE_PIPE_RECS ? n :
			  TRACE_PIPE_RECS);
	if (!ret)
		ret = read_recs(t, f, n);
	if (ret == -ENODATA)
		ret = errbuf_set(why, len, -EINVAL, "truncated: fewer than the "
				 "header's %" PRIu64 " records", n);
	else if (ret)
		ret = errbuf_set(why, len, ret, "%s", strerror(-ret));
	for (i = 0; !ret && i < n; i++)
		if (t->r[i].page >= npages)
			ret = errbuf_set(why, len, -EINVAL, "record %" PRIu64
				      ": page %" PRIu32 ", beyond the header's %"
				      PRIu32 " pages", i, t->r[i].page, npages);
	if (!ret && fgetc(f) != EOF)
		ret = errbuf_set(why, len, -EINVAL, "data after the header's %"
			      PRIu64 " records", n);
	if (ret)
		trace_free(t);
	return ret;
}

int trace_load(struct trace *t, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char why[160] = "";
	int ret;

	if (!f) {
		ret = -errno;
		return errbuf_set(err, errlen, ret, "%s: %s", path, strerror(-ret));
	}
	ret = read_body(t, f, why, sizeof(why));
	fclose(f);
	if (ret)
		errbuf_set(err, errlen, ret, "%s: %s", path,
			   *why ? why : strerror(-ret));
	return ret;
}
