// SPDX-License-Identifier: GPL-2.0
/*
 * lackey2trace: reduces `valgrind --tool=lackey --trace-mem=yes` output,
 * read from a pipe, to a page trace (trace.h) on the fly, so the
 * gigabytes of text lackey prints are never stored.
 *
 *	valgrind --tool=lackey --trace-mem=yes --log-fd=3 PROG... \
 *		3>&1 >/dev/null 2>&1 | lackey2trace [-c KIB] [-s INSNS] [-m N] OUT
 *
 * "I" lines advance the clock of retired instructions. Data accesses
 * ("L", "S", "M") go through a model of a cache (-c KiB, default 256, 8-way
 * LRU over 64-byte lines); only its misses become records, with their page
 * renumbered densely in order of first touch. The default is a per-core L2
 * rather than a whole last-level cache: lackey runs a program about a
 * hundred times slower than native, so a capture covers only a few hundred
 * million instructions, and behind a multi-MiB cache too few accesses
 * would remain to exercise far memory. The traces therefore overstate
 * memory traffic, for every policy alike. -s skips the first INSNS
 * instructions (start-up): their accesses and their time, -m stops after N
 * records. Exit status 0 with at least one record.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "num.h"
#include "trace.h"

#define LINE_SHIFT	6
#define PAGE_SHIFT	12
#define WAYS		8

struct cache {
	uint64_t *tag;		/* sets * WAYS, most recent first; 0: empty */
	uint64_t sets;
};

/* true on a miss; the line becomes the set's most recent either way */
static int cache_miss(struct cache *c, uint64_t line)
{
	uint64_t *set = c->tag + (line % c->sets) * WAYS, key = line + 1;
	unsigned int i;
	int miss;

	for (i = 0; i < WAYS && set[i] != key; i++)
		;
	miss = i == WAYS;
	if (miss)
		i = WAYS - 1;	/* the least recent goes */
	memmove(set + 1, set, i * sizeof(*set));
	set[0] = key;
	return miss;
}

/* page -> dense id, open addressing, grows at half full */
struct pmap {
	uint64_t *key;		/* page + 1; 0 empty */
	uint32_t *id;
	uint64_t size, used;
};

static int pmap_grow(struct pmap *m);

static int pmap_id(struct pmap *m, uint64_t page, uint32_t *id)
{
	uint64_t k = page + 1, h;
	int ret;

	if (m->used * 2 >= m->size) {
		ret = pmap_grow(m);
		if (ret)
			return ret;
	}
	h = (k * 0x9E3779B97F4A7C15ULL) & (m->size - 1);
	while (m->key[h] && m->key[h] != k)
		h = (h + 1) & (m->size - 1);
	if (!m->key[h]) {
		if (m->used >= UINT32_MAX)
			return -E2BIG;
		m->key[h] = k;
		m->id[h] = (uint32_t)m->used++;
	}
	*id = m->id[h];
	return 0;
}

static int pmap_grow(struct pmap *m)
{
	struct pmap n = { .size = m->size ? m->size * 2 : 1024 };
	uint64_t i, h;

	n.key = calloc(n.size, sizeof(*n.key));
	n.id = calloc(n.size, sizeof(*n.id));
	if (!n.key || !n.id) {
		free(n.key);
		free(n.id);
		return -ENOMEM;
	}
	for (i = 0; i < m->size; i++) {
		if (!m->key[i])
			continue;
		h = (m->key[i] * 0x9E3779B97F4A7C15ULL) & (n.size - 1);
		while (n.key[h])
			h = (h + 1) & (n.size - 1);
		n.key[h] = m->key[i];
		n.id[h] = m->id[i];
	}
	n.used = m->used;
	free(m->key);
	free(m->id);
	*m = n;
	return 0;
}

/*
 * A data access as lackey prints it, " K ADDR,SIZE" (K: L, S or M, ADDR
 * hex), whole: a line with something else in it, or an address past 64
 * bits, is no access rather than a record at whatever part of it parsed.
 */
static bool parse_access(const char *line, uint64_t *addr)
{
	char *end;

	if (line[0] != ' ' || !line[1] || !strchr("LSM", line[1]) ||
	    line[2] != ' ' || !isxdigit((unsigned char)line[3]))
		return false;
	errno = 0;
	*addr = strtoull(line + 3, &end, 16);
	if (errno || *end != ',' || !isdigit((unsigned char)end[1]))
		return false;
	for (end++; isdigit((unsigned char)*end); end++)
		;
	return !strcmp(end, "\n");
}

struct opts {
	uint64_t cache_kib, skip, max;
	const char *out;
};

static int parse(int argc, char **argv, struct opts *o)
{
	int c;

	o->cache_kib = 256;
	o->skip = 0;
	o->max = TRACE_MAX_RECS;
	while ((c = getopt(argc, argv, "c:s:m:")) != -1) {
		uint64_t *v = c == 'c' ? &o->cache_kib : c == 's' ? &o->skip :
			      c == 'm' ? &o->max : NULL;
		uint64_t max = c == 'c' ? UINT64_MAX >> 10 :
			       c == 'm' ? TRACE_MAX_RECS : UINT64_MAX;

		if (!v || num_u64(optarg, max, v))
			return -EINVAL;
	}
	if (optind != argc - 1 || o->cache_kib < 1 || !o->max)
		return -EINVAL;
	o->out = argv[optind];
	return 0;
}

static int run(const struct opts *o, FILE *out, uint64_t *n, uint32_t *npages)
{
	struct cache c = { .sets = (o->cache_kib << 10 >> LINE_SHIFT) / WAYS };
	struct pmap m = { 0 };
	uint64_t insns = 0, since = 0, addr;
	char line[256];
	bool tail = false;
	int ret = 0;

	if (!c.sets)
		c.sets = 1;
	c.tag = calloc(c.sets * WAYS, sizeof(*c.tag));
	if (!c.tag)
		return -ENOMEM;
	*n = 0;
	while (*n < o->max && fgets(line, sizeof(line), stdin)) {
		struct trace_rec r;
		bool piece = tail;

		/* a longer line (valgrind's own, a command line) is no record,
		 * nor is a last one cut short (valgrind killed mid-write) */
		tail = !strchr(line, '\n');
		if (piece || tail)
			continue;
		if (line[0] == 'I') {
			/* skipped instructions are not the first record's compute */
			if (++insns > o->skip)
				since++;
			continue;
		}
		if (!parse_access(line, &addr))
			continue;
		if ((o->skip && insns <= o->skip) || !cache_miss(&c, addr >> LINE_SHIFT))
			continue;
		ret = pmap_id(&m, addr >> PAGE_SHIFT, &r.page);
		if (ret)
			break;
		r.insns = since > UINT32_MAX ? UINT32_MAX : (uint32_t)since;
		since = 0;
		if (fwrite(&r, sizeof(r), 1, out) != 1) {
			ret = -EIO;
			break;
		}
		(*n)++;
	}
	*npages = (uint32_t)m.used;
	free(c.tag);
	free(m.key);
	free(m.id);
	return ret;
}

int main(int argc, char **argv)
{
	struct opts o;
	uint32_t npages = 0;
	uint64_t n = 0;
	FILE *out;
	int ret;

	if (parse(argc, argv, &o)) {
		fprintf(stderr, "usage: lackey2trace [-c KIB] [-s INSNS] [-m N] OUT < lackey-output\n");
		return 2;
	}
	/* lackey writes 512 bytes at a time: a deep pipe wakes us less often */
	fcntl(STDIN_FILENO, F_SETPIPE_SZ, 1 << 20);
	out = fopen(o.out, "wb");
	if (!out) {
		perror(o.out);
		return 1;
	}
	/* the header is rewritten once the counts are known */
	ret = trace_write_header(out, 0, 0);
	if (!ret)
		ret = run(&o, out, &n, &npages);
	if (!ret && (fseek(out, 0, SEEK_SET) || trace_write_header(out, npages, n)))
		ret = -EIO;
	if (fclose(out) && !ret)
		ret = -EIO;
	if (!ret && !n)
		ret = -ENODATA;
	if (ret) {
		fprintf(stderr, "lackey2trace: %s: %s\n", o.out, strerror(-ret));
		return 1;
	}
	fprintf(stderr, "lackey2trace: %s: %" PRIu64 " records over %u pages\n",
		o.out, n, npages);
	return 0;
}
