// SPDX-License-Identifier: GPL-2.0
/*
 * farmem: a workload with its memory on a far node, for tests, the demo and
 * the benchmark.
 *
 * It maps --pages pages, first-touches them, moves them all to --far (with
 * move_pages), then for --seconds keeps writing to the first --hot pages and,
 * every --cold-ms, to the rest. NUMA balancing's hinting faults then ask to
 * promote what is touched; indigo.ko's gate decides. At the end it prints
 * where the pages are, as one line of key=value pairs:
 *
 *   farmem hot=64 hot_near=64 cold=192 cold_near=0 passes=123 ms=5000
 *
 * --bind-far keeps every page on the far node for the whole run (MPOL_BIND
 * with MPOL_F_NUMA_BALANCING: still scanned, so still faulting, but never
 * misplaced): a steady stream of far hinting faults, for the benchmark.
 *
 * --progress FILE publishes the number of passes done so far, as one
 * decimal number rewritten (atomically, by rename) every 100 ms: the
 * application progress figure indigod can take as its reward. A FILE it
 * cannot write ends the run at the start (exit 1).
 *
 * --thp backs the pages with transparent huge pages (2 MiB aligned,
 * MADV_HUGEPAGE, made on the far node) instead of keeping them base pages,
 * and says how much of them is huge once placed (thp_kib on the placed=
 * line): one hinting fault then asks to promote 512 pages at once.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <numa.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "num.h"

#ifndef MPOL_F_NUMA_BALANCING
#define MPOL_F_NUMA_BALANCING (1 << 13)
#endif

#define THP_BYTES	(2UL << 20)

struct opts {
	long pages, hot, seconds, cold_ms;
	int far, bind_far, thp;
	const char *progress;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* atol read "node1" as 0 (the near node) and "1.5" as 1: see num.h */
static int num(const char *s, long *v)
{
	uint64_t u;

	if (num_u64(s, LONG_MAX, &u))
		return -1;
	*v = (long)u;
	return 0;
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "pages", required_argument, NULL, 'p' },
		{ "hot", required_argument, NULL, 'h' },
		{ "seconds", required_argument, NULL, 's' },
		{ "cold-ms", required_argument, NULL, 'c' },
		{ "far", required_argument, NULL, 'f' },
		{ "bind-far", no_argument, NULL, 'b' },
		{ "progress", required_argument, NULL, 'g' },
		{ "thp", no_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	long far = 1;
	int c, bad = 0;

	*o = (struct opts){ .pages = 256, .hot = 64, .seconds = 10,
			    .cold_ms = 0, .far = 1 };
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'p': bad |= num(optarg, &o->pages); break;
		case 'h': bad |= num(optarg, &o->hot); break;
		case 's': bad |= num(optarg, &o->seconds); break;
		case 'c': bad |= num(optarg, &o->cold_ms); break;
		case 'f': bad |= num(optarg, &far); break;
		case 'b': o->bind_far = 1; break;
		case 'g': o->progress = optarg; break;
		case 't': o->thp = 1; break;
		default: return -1;
		}
	}
	if (bad || optind < argc || o->pages <= 0 || o->hot > o->pages ||
	    far > 63)
		return -1;
	o->far = (int)far;
	return 0;
}

/* Moves all pages to @node, or (node < 0) queries where they are. */
static int pages_move(char *buf, long n, long psz, int node, int *status)
{
	void **pages = calloc(n, sizeof(*pages));
	int *nodes = node >= 0 ? calloc(n, sizeof(*nodes)) : NULL;
	long i;
	int rc;

	if (!pages || (node >= 0 && !nodes)) {
		free(pages);
		free(nodes);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		pages[i] = buf + i * psz;
		if (nodes)
			nodes[i] = node;
	}
	rc = numa_move_pages(0, n, pages, nodes, status, MPOL_MF_MOVE);
	free(pages);
	free(nodes);
	return rc < 0 ? -errno : 0;
}

/*
 * @path holds @n, replaced whole so that a reader never sees half of it.
 * 0 or -errno.
 */
static int publish(const char *path, long n)
{
	char tmp[4096];
	FILE *f;
	int ret = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	fprintf(f, "%ld\n", n);
	if (fclose(f) || rename(tmp, path)) {
		ret = -errno;
		unlink(tmp);
	}
	return ret;
}

/* The process's anonymous memory in huge pages, KiB (-1: unknown). */
static long thp_kib(void)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[256];
	long kib = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

static void touch(char *buf, long from, long to, long psz, long pass)
{
	long i;

	for (i = from; i < to; i++)
		((volatile char *)buf)[i * psz] = (char)pass;
}

int main(int argc, char **argv)
{
	long psz = sysconf(_SC_PAGESIZE), passes = 0, i, near_hot = 0,
	     near_cold = 0;
	double start, last_cold, last_pub = 0;
	unsigned long far_mask;
	struct opts o;
	int *status, ret;
	char *buf;

	if (parse(argc, argv, &o)) {
		fprintf(stderr, "usage: farmem [--pages N] [--hot N] [--seconds S] [--cold-ms MS] [--far NODE] [--bind-far] [--progress FILE] [--thp]\n");
		return 2;
	}
	if (numa_available() < 0 || o.far > numa_max_node()) {
		fprintf(stderr, "farmem: no NUMA node %d\n", o.far);
		return 1;
	}
	/* a path it cannot write is said now, not a run without a figure */
	ret = o.progress ? publish(o.progress, 0) : 0;
	if (ret) {
		fprintf(stderr, "farmem: --progress %s: %s\n", o.progress,
			strerror(-ret));
		return 1;
	}
	/* room to start at a huge page's boundary */
	buf = mmap(NULL, o.pages * psz + (o.thp ? THP_BYTES : 0),
		   PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	status = calloc(o.pages, sizeof(*status));
	if (buf == MAP_FAILED || !status) {
		perror("farmem: mmap");
		return 1;
	}
	if (o.thp)
		buf = (char *)(((unsigned long)buf + THP_BYTES - 1) & ~(THP_BYTES - 1));
	/* else THP would make the hot/cold split coarser than a page */
	madvise(buf, o.pages * psz, o.thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	far_mask = 1UL << o.far;
	if (o.bind_far && set_mempolicy(MPOL_BIND | MPOL_F_NUMA_BALANCING,
					&far_mask, sizeof(far_mask) * 8)) {
		perror("farmem: set_mempolicy");
		return 1;
	}
	/* huge pages are made on the far node: moving them there may split
	 * them, or fail where its free memory is fragmented */
	if (o.thp && mbind(buf, o.pages * psz, MPOL_BIND, &far_mask,
			   sizeof(far_mask) * 8, 0)) {
		perror("farmem: mbind");
		return 1;
	}
	touch(buf, 0, o.pages, psz, 0);
	if (o.thp)
		mbind(buf, o.pages * psz, MPOL_DEFAULT, NULL, 0, 0);
	if (!o.bind_far && !o.thp && pages_move(buf, o.pages, psz, o.far, status)) {
		perror("farmem: move_pages");
		return 1;
	}
	pages_move(buf, o.pages, psz, -1, status);
	for (i = 0; i < o.pages; i++)
		if (status[i] != o.far)
			break;
	printf("farmem placed=%ld far=%d pid=%d thp_kib=%ld\n", i, o.far,
	       (int)getpid(), thp_kib());
	fflush(stdout);

	start = now_ms();
	last_cold = start;
	while (now_ms() - start < o.seconds * 1e3) {
		touch(buf, 0, o.hot, psz, ++passes);
		if (o.cold_ms && now_ms() - last_cold >= o.cold_ms) {
			touch(buf, o.hot, o.pages, psz, passes);
			last_cold = now_ms();
		}
		if (o.progress && now_ms() - last_pub >= 100) {
			publish(o.progress, passes);
			last_pub = now_ms();
		}
	}
	pages_move(buf, o.pages, psz, -1, status);
	for (i = 0; i < o.pages; i++) {
		if (status[i] < 0 || status[i] == o.far)
			continue;
		if (i < o.hot)
			near_hot++;
		else
			near_cold++;
	}
	printf("farmem hot=%ld hot_near=%ld cold=%ld cold_near=%ld passes=%ld ms=%.0f\n",
	       o.hot, near_hot, o.pages - o.hot, near_cold, passes,
	       now_ms() - start);
	return 0;
}
