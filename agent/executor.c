// SPDX-License-Identifier: GPL-2.0
/* Executor "agent": promotions by move_pages(2) (executor.h). */
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "executor.h"

#define QUEUE_MAX	65536	/* candidates per run: 64 epochs of cand_max */
#define BATCH_MAX	1024	/* pages per move_pages call */

struct executor {
	struct promote_cand *q;
	size_t nq;
	int nnodes;			/* every node the kernel can have */
	int nknown;			/* those libnuma knew of at start */
	int *near;			/* nearest CPU node of each node, or -1 */
	bool *cpu;			/* each node: has CPUs and memory */
	bool *far;			/* each node: far; then the next set */
	uint64_t *room;			/* pages each node may take, this run */
	struct promote_bucket bucket;
	uint64_t page_bytes;
	struct exec_totals t;
	void *pages[BATCH_MAX];
	int nodes[BATCH_MAX], status[BATCH_MAX];
	size_t from[BATCH_MAX];		/* candidate of each page asked */
};

static bool has_cpus(int node)
{
	struct bitmask *cpus = numa_allocate_cpumask();
	bool any;

	if (!cpus)
		return false;
	any = !numa_node_to_cpus(node, cpus) &&
	      numa_bitmask_weight(cpus) > 0;
	numa_free_cpumask(cpus);
	return any;
}

/*
 * libnuma reads the nodes once, at start: a node whose memory came online
 * later (a hot-added CXL expander's, which the module then watches as far)
 * is past its numa_max_node(), and numa_distance() says 0 for it. sysfs
 * knows it.
 */
static const char *node_sysfs = "/sys/devices/system/node";

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -errno;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	return ok ? 0 : -EIO;
}

/*
 * @node's distance to @to from sysfs, 0 where unknown: its distance file
 * has one figure per online node, in node order, so @to's is the one at
 * its rank among the online nodes.
 */
static int sysfs_distance(int node, int to)
{
	char path[96], line[4096], *p, *end;
	long lo, hi;
	int rank = 0, i;

	snprintf(path, sizeof(path), "%s/online", node_sysfs);
	if (read_line(path, line, sizeof(line)))
		return 0;
	/* "0-1,3": ranges of node ids, ascending */
	for (p = line;; p = end + 1) {
		lo = strtol(p, &end, 10);
		if (end == p)
			return 0;
		hi = *end == '-' ? strtol(end + 1, &end, 10) : lo;
		if (to <= hi) {
			if (to < lo)
				return 0;
			rank += to - (int)lo;
			break;
		}
		rank += (int)(hi - lo + 1);
		if (*end != ',')
			return 0;
	}
	snprintf(path, sizeof(path), "%s/node%d/distance", node_sysfs, node);
	if (read_line(path, line, sizeof(line)))
		return 0;
	for (p = line, i = 0; i <= rank; i++, p = end) {
		lo = strtol(p, &end, 10);
		if (end == p)
			return 0;
	}
	return lo > 0 && lo < 256 ? (int)lo : 0;
}

static int node_distance(int a, int b)
{
	int d = numa_distance(a, b);

	return d > 0 ? d : sysfs_distance(a, b);
}

/*
 * For each node, the nearest node with CPUs that is neither it nor far: a
 * far node may have CPUs itself (the module's far_nodes=), and a page
 * "moved" where it is, or to another far node, would count as promoted
 * though it stayed far. Of the nodes that came after the start, only the
 * far ones hold candidates.
 */
static void map_near_nodes(struct executor *x)
{
	int a, b, best, dist, bestd;

	for (a = 0; a < x->nnodes; a++) {
		best = -1;
		bestd = 0;
		for (b = 0; b < x->nknown && (a < x->nknown || x->far[a]); b++) {
			if (!x->cpu[b] || x->far[b] || b == a)
				continue;
			dist = node_distance(a, b);
			if (dist > 0 && (best < 0 || dist < bestd)) {
				best = b;
				bestd = dist;
			}
		}
		x->near[a] = best;
	}
}

int executor_open(struct executor **out)
{
	struct executor *x;
	int i, ret;

	if (numa_available() < 0)
		return -ENOSYS;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->nknown = numa_max_node() + 1;
	x->nnodes = numa_num_possible_nodes();
	if (x->nnodes < x->nknown)
		x->nnodes = x->nknown;
	x->page_bytes = (uint64_t)sysconf(_SC_PAGESIZE);
	x->q = calloc(QUEUE_MAX, sizeof(*x->q));
	x->near = calloc(x->nnodes, sizeof(*x->near));
	x->room = calloc(x->nnodes, sizeof(*x->room));
	x->cpu = calloc(x->nnodes, sizeof(*x->cpu));
	x->far = calloc(2 * (size_t)x->nnodes, sizeof(*x->far));
	ret = x->q && x->near && x->room && x->cpu && x->far ? -ENOENT :
							       -ENOMEM;
	for (i = 0; ret != -ENOMEM && i < x->nknown; i++) {
		x->cpu[i] = numa_bitmask_isbitset(numa_all_nodes_ptr, i) &&
			    has_cpus(i);
		if (x->cpu[i])
			ret = 0;
	}
	if (ret) {
		executor_close(x);
		return ret;
	}
	map_near_nodes(x);
	*out = x;
	return 0;
}

void executor_close(struct executor *x)
{
	if (!x)
		return;
	free(x->q);
	free(x->near);
	free(x->room);
	free(x->cpu);
	free(x->far);
	free(x);
}

void executor_add(struct executor *x, const struct promote_cand *c, size_t n)
{
	size_t room = QUEUE_MAX - x->nq;

	if (n > room) {
		x->t.dropped += n - room;
		n = room;
	}
	memcpy(x->q + x->nq, c, n * sizeof(*c));
	x->nq += n;
}

void executor_clear(struct executor *x)
{
	x->nq = 0;
}

void executor_set_far(struct executor *x, const uint32_t *far, size_t n)
{
	bool *now = x->far + x->nnodes;
	size_t i;

	memset(now, 0, x->nnodes * sizeof(*now));
	for (i = 0; i < n; i++)
		if (far[i] < (uint32_t)x->nnodes)
			now[far[i]] = true;
	/* the same set each epoch: nothing to redo */
	if (!memcmp(now, x->far, x->nnodes * sizeof(*now)))
		return;
	memcpy(x->far, now, x->nnodes * sizeof(*now));
	map_near_nodes(x);
}

/*
 * Moves @n pages of @c (one process) and counts them from where each ends
 * up (where that cannot be read, as for a process gone, all as failed):
 * 0, or the move's error other than a process gone, for the caller to log.
 */
static int move_batch(struct executor *x, const struct promote_cand *c,
		      size_t n)
{
	size_t i, want = 0, keep = 0;
	uint64_t asked = 0;	/* base pages */
	long ret;
	int err;

	for (i = 0; i < n; i++) {
		int to = promote_dest(c[i].node, x->near, x->nnodes);

		if (to < 0) {
			x->t.failed += promote_pages(&c[i]);
			continue;
		}
		x->from[want] = i;
		x->pages[want] = (void *)(uintptr_t)c[i].addr;
		x->nodes[want] = to;
		want++;
	}
	if (!want)
		return 0;
	/*
	 * A page that left the node it was seen on (moved by an earlier run,
	 * sighted again in the same epoch) is left alone: at its target, the
	 * move would report it moved again. Unread, all are moved as seen.
	 */
	if (numa_move_pages((int)c[0].pid, want, x->pages, NULL, x->status,
			    0) < 0)
		for (i = 0; i < want; i++)
			x->status[i] = (int)c[x->from[i]].node;
	for (i = 0; i < want; i++) {
		/* an absent page (negative) is asked for, to fail and count */
		if (x->status[i] >= 0 &&
		    x->status[i] != (int)c[x->from[i]].node)
			continue;
		x->from[keep] = x->from[i];
		x->pages[keep] = x->pages[i];
		x->nodes[keep] = x->nodes[i];
		x->status[keep] = -1;
		asked += promote_pages(&c[x->from[i]]);
		keep++;
	}
	want = keep;
	if (!want)
		return 0;
	x->t.tried += asked;
	ret = numa_move_pages((int)c[0].pid, want, x->pages, x->nodes,
			      x->status, MPOL_MF_MOVE);
	err = ret < 0 ? errno : 0;
	if (err == ESRCH) {
		x->t.failed += asked;
		return 0;
	}
	/*
	 * Not all moved (a positive count), or an error part way: the kernel
	 * writes no status for the pages of a node whose migration failed in
	 * part, nor for those after it, though some of them moved. Where each
	 * page is now tells.
	 */
	if (ret && numa_move_pages((int)c[0].pid, want, x->pages, NULL,
				   x->status, 0) < 0) {
		/* some may have moved, but none can be told from the rest */
		x->t.failed += asked;
		if (!err)
			err = errno == ESRCH ? 0 : errno;
		return -err;
	}
	/* status: the node each page is on now, or -errno for that page;
	 * a huge page moves, or stays, whole */
	for (i = 0; i < want; i++) {
		const struct promote_cand *p = &c[x->from[i]];

		if (x->status[i] == x->nodes[i]) {
			x->t.moved += promote_pages(p);
			x->t.moves++;
			x->t.rate_sum_hz += p->rate_mhz / 1000.0;
		} else {
			x->t.failed += promote_pages(p);
		}
	}
	return -err;
}

/*
 * What each destination (a node with CPUs) may take before its free memory
 * is down to @free_min_kib, as the module's gate would have it; one whose
 * free memory cannot be read is not held back.
 */
static void measure_room(struct executor *x, uint64_t free_min_kib)
{
	long long free_b;
	int i;

	for (i = 0; i < x->nknown; i++)
		if (x->cpu[i])
			x->room[i] = numa_node_size64(i, &free_b) < 0 || free_b < 0 ?
				     UINT64_MAX :
				     promote_room((uint64_t)free_b,
						  free_min_kib, x->page_bytes);
}

static int by_pid(const void *pa, const void *pb)
{
	const struct promote_cand *a = pa, *b = pb;

	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

int executor_run(struct executor *x, uint32_t rate_min_mhz,
		 uint32_t burst_min_ms, uint64_t free_min_kib, uint32_t cap_pps,
		 double epoch_s, double now_s)
{
	uint64_t paid = 0, moved = x->t.moved;
	size_t n, fit, i, j;
	int ret = 0, err;

	if (!x->nq)
		return 0;
	n = promote_pick(x->q, x->nq, rate_min_mhz, burst_min_ms,
			 x->page_bytes);
	if (n) {
		measure_room(x, free_min_kib);
		fit = promote_fit(x->q, n, x->near, x->nnodes, x->room);
		x->t.held += n - fit;
		n = fit;
	}
	x->nq = 0;
	if (cap_pps && n) {
		ret = promote_refill(&x->bucket, now_s, cap_pps,
				     cap_pps * epoch_s >= 1 ? cap_pps * epoch_s : 1);
		if (ret)
			return ret;
		fit = promote_take(&x->bucket, x->q, n);
		x->t.over_budget += n - fit;
		n = fit;
		for (i = 0; i < n; i++)
			paid += promote_pages(&x->q[i]);
	}
	/* the hottest n, grouped by process: one call per process and batch */
	qsort(x->q, n, sizeof(*x->q), by_pid);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && j - i < BATCH_MAX &&
		     x->q[j].pid == x->q[i].pid; j++)
			;
		err = move_batch(x, x->q + i, j - i);
		if (err && !ret)
			ret = err;
	}
	/* a page that did not move put nothing on the link: its tokens go
	 * to the next run's pages */
	if (paid > x->t.moved - moved)
		promote_refund(&x->bucket, paid - (x->t.moved - moved));
	return ret;
}

void executor_take(struct executor *x, struct exec_totals *t)
{
	*t = x->t;
	memset(&x->t, 0, sizeof(x->t));
}
