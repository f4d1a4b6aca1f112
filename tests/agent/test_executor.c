// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for agent/executor.c: what it counts from move_pages(2). libnuma is
 * replaced by the fakes below (this file is not linked with -lnuma): node
 * 0 has CPUs, node 1 is far memory; numa_move_pages follows the kernel's
 * do_pages_move() closely enough for the counts.
 */
#include "check_main.h"
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "../../agent/executor.c"

#define PG 4096ULL
#define DEAD_PID 999

/*
 * The fake address space: pages (or folios of several, found by any
 * address in them, as move_pages(2) finds them), the node each is on,
 * whether it moves.
 */
static struct fake_page {
	uint64_t addr;
	uint64_t pages;
	int node;
	int stuck;		/* isolated, but migrate_pages() fails it */
} pt[16];
static size_t npt;
static unsigned int move_calls, query_calls;
static unsigned int cpu_nodes = 1;	/* bit n: node n has CPUs */
static int max_node = 1;
/* distances between nodes 1 and 2 (0 is 20 from either) */
static int dist_12 = 20;
static int move_errno;	/* the move fails as a whole, after moving */
static int query_errno;	/* queries after a move fail so */
static int possible_nodes = 4;

static struct fake_page *lookup(const void *p)
{
	size_t i;

	for (i = 0; i < npt; i++)
		if ((uintptr_t)p >= pt[i].addr &&
		    (uintptr_t)p < pt[i].addr + pt[i].pages * PG)
			return &pt[i];
	return NULL;
}

static void folio_at(uint64_t addr, uint64_t pages, int node, int stuck)
{
	pt[npt++] = (struct fake_page){ .addr = addr, .pages = pages,
					.node = node, .stuck = stuck };
}

static void page_at(uint64_t addr, int node, int stuck)
{
	folio_at(addr, 1, node, stuck);
}

static struct bitmask all_nodes;
struct bitmask *numa_all_nodes_ptr = &all_nodes;

int numa_available(void) { return 0; }
int numa_max_node(void) { return max_node; }
int numa_num_possible_nodes(void) { return possible_nodes; }
/* as libnuma's: nothing of a node that came after the start */
int numa_distance(int a, int b)
{
	if (a > max_node || b > max_node)
		return 0;
	if (a == b)
		return 10;
	return a + b == 3 ? dist_12 : 20;
}
int numa_bitmask_isbitset(const struct bitmask *b, unsigned int n)
{
	(void)b;
	return n <= (unsigned int)max_node;
}
struct bitmask *numa_allocate_cpumask(void)
{
	return calloc(1, sizeof(struct bitmask));
}
void numa_bitmask_free(struct bitmask *b) { free(b); }
int numa_node_to_cpus(int node, struct bitmask *b)
{
	b->size = (cpu_nodes >> node) & 1;	/* stands for the weight */
	return 0;
}
unsigned int numa_bitmask_weight(const struct bitmask *b) { return b->size; }
long long numa_node_size64(int node, long long *freep)
{
	(void)node;
	*freep = 1LL << 40;
	return 1LL << 41;
}

/* A node's queued pages migrate: statuses stored only if all moved. */
static long flush(int node, unsigned long start, unsigned long end,
		  void **pages, int *status)
{
	unsigned long k;
	long failed = 0;

	for (k = start; k < end; k++) {
		struct fake_page *pg = lookup(pages[k]);

		if (pg->stuck)
			failed++;
		else
			pg->node = node;
	}
	if (failed)
		return failed;
	for (k = start; k < end; k++)
		status[k] = node;
	return 0;
}

int numa_move_pages(int pid, unsigned long count, void **pages,
		    const int *nodes, int *status, int flags)
{
	unsigned long i, start = 0;
	int cur = -1;
	long r;

	(void)flags;
	if (pid == DEAD_PID) {
		errno = ESRCH;
		return -1;
	}
	if (!nodes) {
		query_calls++;
		if (query_errno && move_calls) {
			errno = query_errno;
			return -1;
		}
		for (i = 0; i < count; i++) {
			struct fake_page *pg = lookup(pages[i]);

			status[i] = pg ? pg->node : -ENOENT;
		}
		return 0;
	}
	move_calls++;
	for (i = 0; i < count; i++) {
		struct fake_page *pg;

		if (cur >= 0 && nodes[i] != cur) {
			r = flush(cur, start, i, pages, status);
			if (r)
				return r + count - i;
			cur = -1;
		}
		if (cur < 0) {
			cur = nodes[i];
			start = i;
		}
		pg = lookup(pages[i]);
		if (pg && pg->node != cur)
			continue;	/* queued */
		status[i] = pg ? cur : -ENOENT;
		r = flush(cur, start, i, pages, status);
		if (r)
			return r + count - i - 1;
		cur = -1;
	}
	r = cur >= 0 ? flush(cur, start, count, pages, status) : 0;
	if (move_errno) {
		errno = move_errno;
		return -1;
	}
	return r;
}

static struct executor *x;

static void setup(void)
{
	npt = 0;
	move_calls = query_calls = 0;
	move_errno = query_errno = 0;
	node_sysfs = "/sys/devices/system/node";
	cpu_nodes = 1;
	max_node = 1;
	dist_12 = 20;
	ck_assert_int_eq(executor_open(&x), 0);
}

static void teardown(void)
{
	executor_close(x);
}

static void add_pages(uint32_t pid, uint64_t addr, uint32_t rate_mhz,
		      uint32_t pages)
{
	struct promote_cand c = { .addr = addr, .pid = pid, .node = 1,
				  .rate_mhz = rate_mhz, .burst_ms = 10,
				  .pages = pages };

	executor_add(x, &c, 1);
}

static void add(uint32_t pid, uint64_t addr, uint32_t rate_mhz)
{
	add_pages(pid, addr, rate_mhz, 1);
}

START_TEST(all_move)
{
	struct exec_totals t;

	page_at(1 * PG, 1, 0);
	page_at(2 * PG, 1, 0);
	add(7, 1 * PG, 2000);
	add(7, 2 * PG, 3000);
	ck_assert_int_eq(executor_run(x, 0, 0, 0, 0, 1.0, 1.0), 0);
	executor_take(x, &t);
	ck_assert_uint_eq(t.tried, 2);
	ck_assert_uint_eq(t.moved, 2);
	ck_assert_uint_eq(t.failed, 0);
	ck_assert_double_eq_tol(t.rate_sum_hz, 5.0, 1e-9);
	ck_assert_int_eq(pt[0].node, 0);
}
END_TEST

/*
 * One page of a node's group fails to migrate: the kernel returns how many
 * did not move and writes no status for that group, yet the others moved
 * and must count as moved (the reward is made of them).
 */
START_TEST(partial_failure_counts_the_pages_that_moved)
{
	struct exec_totals t;

	page_at(1 * PG, 1, 0);
	page_at(2 * PG, 1, 1);
	page_at(3 * PG, 1, 0);
	add(7, 1 * PG, 3000);
	add(7, 2 * PG, 2000);
	add(7, 3 * PG, 1000);
	ck_assert_int_eq(executor_run(x, 0, 0, 0, 0, 1.0, 1.0), 0);
	executor_take(x, &t);
	ck_assert_uint_eq(t.tried, 3);
	ck_assert_uint_eq(t.moved, 2);
	ck_assert_uint_eq(t.failed, 1);
	ck_assert_double_eq_tol(t.rate_sum_hz, 4.0, 1e-9);
}
END_TEST

/* A page not present (-ENOENT) and a process that is gone: failures. */
START_TEST(absent_pages_and_gone_processes_fail)
{
	struct exec_totals t;

	page_at(1 * PG, 1, 0);
	add(7, 1 * PG, 3000);
	add(7, 5 * PG, 2000);
	add(DEAD_PID, 1 * PG, 1000);
	ck_assert_int_eq(executor_run(x, 0, 0, 0, 0, 1.0, 1.0), 0);
	executor_take(x, &t);
	ck_assert_uint_eq(t.moved, 1);
	ck_assert_uint_eq(t.failed, 2);
	ck_assert_uint_eq(t.tried, 3);
}
END_TEST

/*
 * A huge page moves whole: counted as its 512 base pages, moved or not,
 * and under a cap of 600 pages an epoch two of them do not both go.
 */
START_TEST(a_huge_page_counts_its_pages)
{
	struct exec_totals t;

	folio_at(512 * PG, 512, 1, 0);
	folio_at(1024 * PG, 512, 1, 0);
	folio_at(1536 * PG, 512, 1, 1);
	add_pages(7, 512 * PG + 9 * PG, 3000, 512);
	add_pages(7, 1024 * PG, 2000, 512);
	ck_assert_int_eq(executor_run(x, 0, 0, 0, 600, 1.0, 1.0), 0);
	executor_take(x, &t);
	ck_assert_uint_eq(t.moved, 512);
	ck_assert_uint_eq(t.moves, 1);
	ck_assert_uint_eq(t.tried, 512);
	ck_assert_uint_eq(t.over_budget, 1);
	ck_assert_double_eq_tol(t.rate_sum_hz, 3.0, 1e-9);
	ck_assert_int_eq(pt[0].node, 0);
	ck_assert_int_eq(pt[1].node, 1);
	/* one that stays: all its pages failed */
	add_pages(7, 1536 * PG, 3000, 512);
	ck_assert_int_eq(executor_run(x, 0, 0, 0, 0, 1.0, 2.0), 0);
	executor_take(x, &t);
	ck_assert_uint_eq(t.failed, 512);
	ck_assert_uint_eq(t.moved, 0);
}
END_TEST

/*
 * A large folio mapped by PTEs at an unaligned address (16 pages from
 * page 8): moved where it was seen, not at its aligned start (page 0),
 * where there is no page.
 */
START_TEST(an_unaligned_folio_moves_where_seen)
{
	struct exec_totals t;

	folio_at(8 * PG, 16, 1, 0);
	add_pages(7, 10 * PG, 3000, 16);
	ck_assert_int_eq(executor_run(x, 0, 0, 0, 0, 1.0, 1.0), 0);
	executor_take(x, &t);
	ck_assert_uint_eq(t.moved, 16);
	ck_assert_uint_eq(t.failed, 0);
	ck_assert_int_eq(pt[0].node, 0);
}
END_TEST

/*
 * A move that fails as a whole part way (ENOMEM) after some pages moved:
 * they count from where they are, and the error is returned to be logged.
 */
START_TEST(whole_call_error_is_returned)
{
	struct exec_totals t;

	page_at(1 * PG, 1, 0);
	page_at(2 * PG, 1, 0);
	add(7, 1 * PG, 3000);
	add(7, 2 * PG, 2000);
	move_errno = ENOMEM;
	ck_assert_int_eq(executor_run(x, 0, 0, 0, 0, 1.0, 1.0), -ENOMEM);
	executor_take(x, &t);
	ck_assert_uint_eq(t.moved, 2);
	ck_assert_uint_eq(t.failed, 0);
	ck_assert_uint_eq(query_calls, 2);	/* before the move and after */
}
END_TEST

/*
 * A far node with CPUs of its own (the module's far_nodes=, on a machine of
 * two sockets): its pages go to the other node, not where they already are,
 * which would count them as moved though nothing moved.
 */
START_TEST(a_far_node_with_cpus_promotes_to_another_node)
{
	struct exec_totals t;

	executor_close(x);
	cpu_nodes = 3;
	ck_assert_int_eq(executor_open(&x), 0);
	page_at(1 * PG, 1, 0);
	add(7, 1 * PG, 3000);
	ck_assert_int_eq(executor_run(x, 0, 0, 0, 0, 1.0, 1.0), 0);
	executor_take(x, &t);
	ck_assert_int_eq(pt[0].node, 0);
	ck_assert_uint_eq(t.moved, 1);
}
END_TEST

/*
 * An epoch's candidates read in two polls, a page sighted in both: the
 * second run finds it near already, where move_pages reports it at its
 * target as if it had moved. It moved once, and counts once.
 */
START_TEST(a_page_already_near_is_not_moved_again)
{
	struct exec_totals t;

	page_at(1 * PG, 1, 0);
	add(7, 1 * PG, 3000);
	ck_assert_int_eq(executor_run(x, 0, 0, 0, 0, 1.0, 1.0), 0);
	add(7, 1 * PG, 3000);
	ck_assert_int_eq(executor_run(x, 0, 0, 0, 0, 1.0, 1.1), 0);
	executor_take(x, &t);
	ck_assert_uint_eq(t.moved, 1);
	ck_assert_uint_eq(t.moves, 1);
	ck_assert_uint_eq(t.tried, 1);
	ck_assert_uint_eq(t.failed, 0);
	ck_assert_double_eq_tol(t.rate_sum_hz, 3.0, 1e-9);
}
END_TEST

/*
 * Two far nodes with CPUs, closer to each other than to node 0: a page on
 * one goes to node 0, not to the other far node, once the executor knows
 * which nodes are far (the module's, each epoch).
 */
START_TEST(a_far_node_is_never_a_destination)
{
	static const uint32_t far[] = { 2, 1 };
	struct exec_totals t;

	executor_close(x);
	cpu_nodes = 7;
	max_node = 2;
	dist_12 = 15;
	ck_assert_int_eq(executor_open(&x), 0);
	executor_set_far(x, far, 2);
	page_at(1 * PG, 1, 0);
	page_at(2 * PG, 2, 0);
	add(7, 1 * PG, 3000);
	add_pages(8, 2 * PG, 2000, 1);
	x->q[1].node = 2;
	ck_assert_int_eq(executor_run(x, 0, 0, 0, 0, 1.0, 1.0), 0);
	executor_take(x, &t);
	ck_assert_int_eq(pt[0].node, 0);
	ck_assert_int_eq(pt[1].node, 0);
	ck_assert_uint_eq(t.moved, 2);
	/* no near node left: nowhere to go, a failure */
	executor_set_far(x, (const uint32_t[]){ 0, 1, 2 }, 3);
	page_at(3 * PG, 1, 0);
	add(7, 3 * PG, 3000);
	ck_assert_int_eq(executor_run(x, 0, 0, 0, 0, 1.0, 2.0), 0);
	executor_take(x, &t);
	ck_assert_uint_eq(t.moved, 0);
	ck_assert_uint_eq(t.failed, 1);
	ck_assert_int_eq(pt[2].node, 1);
}
END_TEST

/*
 * A move that leaves pages behind, then a query that fails: nothing tells
 * which moved, all count as failed, and the query's error is returned.
 */
START_TEST(a_failed_query_after_a_move_is_returned)
{
	struct exec_totals t;

	page_at(1 * PG, 1, 0);
	page_at(2 * PG, 1, 1);
	add(7, 1 * PG, 3000);
	add(7, 2 * PG, 2000);
	query_errno = EPERM;
	ck_assert_int_eq(executor_run(x, 0, 0, 0, 0, 1.0, 1.0), -EPERM);
	executor_take(x, &t);
	ck_assert_uint_eq(t.failed, 2);
	ck_assert_uint_eq(t.moved, 0);
	/* the process gone meanwhile: as for any move of a process gone */
	page_at(3 * PG, 1, 1);
	add(7, 3 * PG, 3000);
	query_errno = ESRCH;
	ck_assert_int_eq(executor_run(x, 0, 0, 0, 0, 1.0, 2.0), 0);
}
END_TEST

/*
 * The cap pays for pages that move: those that did not (absent here) give
 * their tokens back, and a page in the next run, at the same moment, uses
 * them.
 */
START_TEST(pages_that_did_not_move_give_their_tokens_back)
{
	struct exec_totals t;

	page_at(2 * PG, 1, 0);
	page_at(3 * PG, 1, 0);
	add(7, 1 * PG, 3000);
	add(7, 2 * PG, 2000);
	ck_assert_int_eq(executor_run(x, 0, 0, 0, 2, 1.0, 1.0), 0);
	add(7, 3 * PG, 3000);
	ck_assert_int_eq(executor_run(x, 0, 0, 0, 2, 1.0, 1.0), 0);
	executor_take(x, &t);
	ck_assert_uint_eq(t.over_budget, 0);
	ck_assert_uint_eq(t.moved, 2);
	ck_assert_uint_eq(t.failed, 1);
	ck_assert_int_eq(pt[1].node, 0);
}
END_TEST

/*
 * Node 3's memory came online after the start (libnuma's view ends at
 * node 1, and its distances know nothing of 3): once the module names it
 * far, its pages go to the CPU node sysfs says is nearest.
 */
START_TEST(a_node_hot_added_after_the_start_is_promoted_from)
{
	char dir[] = "/tmp/indigo-exec-XXXXXX", path[64];
	struct exec_totals t;
	FILE *f;

	executor_close(x);
	cpu_nodes = 3;		/* 0 and 1 */
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/online", dir);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs("0-1,3\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/node3", dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/node3/distance", dir);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs("30 17 10\n", f);	/* to 0, 1, 3 */
	fclose(f);
	node_sysfs = dir;
	ck_assert_int_eq(executor_open(&x), 0);
	executor_set_far(x, (const uint32_t[]){ 3 }, 1);
	page_at(1 * PG, 3, 0);
	add(7, 1 * PG, 3000);
	x->q[0].node = 3;
	ck_assert_int_eq(executor_run(x, 0, 0, 0, 0, 1.0, 1.0), 0);
	executor_take(x, &t);
	ck_assert_uint_eq(t.moved, 1);
	ck_assert_int_eq(pt[0].node, 1);
	unlink(path);
	snprintf(path, sizeof(path), "%s/node3", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/online", dir);
	unlink(path);
	rmdir(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("executor");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, all_move);
	tcase_add_test(tc, partial_failure_counts_the_pages_that_moved);
	tcase_add_test(tc, absent_pages_and_gone_processes_fail);
	tcase_add_test(tc, a_huge_page_counts_its_pages);
	tcase_add_test(tc, an_unaligned_folio_moves_where_seen);
	tcase_add_test(tc, whole_call_error_is_returned);
	tcase_add_test(tc, a_far_node_with_cpus_promotes_to_another_node);
	tcase_add_test(tc, a_page_already_near_is_not_moved_again);
	tcase_add_test(tc, a_far_node_is_never_a_destination);
	tcase_add_test(tc, a_failed_query_after_a_move_is_returned);
	tcase_add_test(tc, pages_that_did_not_move_give_their_tokens_back);
	tcase_add_test(tc, a_node_hot_added_after_the_start_is_promoted_from);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
