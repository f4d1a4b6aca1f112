// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: Netscope's pinned maps from userspace (agent/netscope/
 * ns_maps.c), on a hash map faked here as the kernel walks one: a key
 * deleted under the walk (another agent dropping a gone cgroup) sends the
 * next step back to the first key. Releasing a gone controller's policies
 * still reaches every one. A pinned map of another layout, found by its
 * BTF (ns_layout.c, faked here), is refused by name.
 */
#include "check_main.h"
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

/* the writers' lock, in a directory of the test's own (made by the first
 * writer) */
static char lock_dir[64], lock_path[PATH_MAX];
#define NS_POLICY_LOCK	lock_path

/* the code under test, for its calls of the bpf syscalls faked here */
#include "../../agent/netscope/ns_maps.c"

#pragma GCC diagnostic ignored "-Wunused-parameter"

#define POLICY_FD	5
#define GONE_OWNER	99	/* a controller whose program is gone */

/* ns_policy, in the order its walk visits keys */
static uint64_t keys[NS_CGROUPS_MAX];
static struct ns_policy vals[NS_CGROUPS_MAX];
static int nkeys;
static int delete_at = -1;	/* the walk's step at which a key goes */

static int find(uint64_t key)
{
	int i;

	for (i = 0; i < nkeys && keys[i] != key; i++)
		;
	return i < nkeys ? i : -1;
}

static void drop(int i)
{
	memmove(&keys[i], &keys[i + 1], (nkeys - i - 1) * sizeof(keys[0]));
	memmove(&vals[i], &vals[i + 1], (nkeys - i - 1) * sizeof(vals[0]));
	nkeys--;
}

int bpf_map_get_next_key(int fd, const void *key, void *next_key)
{
	int i = key ? find(*(const uint64_t *)key) : -1;

	/* the key just visited dropped by another agent, as the walk goes */
	if (key && i == delete_at) {
		drop(i);
		delete_at = -1;
		i = -1;
	}
	/* a key not found (deleted): the kernel starts at the first again */
	i = i < 0 ? 0 : i + 1;
	if (fd != POLICY_FD || i >= nkeys) {
		errno = ENOENT;
		return -1;
	}
	memcpy(next_key, &keys[i], sizeof(keys[i]));
	return 0;
}

/* another writer's update of a cgroup, run once after the next read of
 * ns_policy, before the update that follows it; and what it returned */
static ns_policy_fn intruder;
static int intruded;

int bpf_map_lookup_elem(int fd, const void *key, void *value)
{
	const struct ns_maps m = { .stats = -1, .policy = POLICY_FD,
				   .ctrl = -1, .link = -1, .epoch = -1 };
	int i = find(*(const uint64_t *)key);
	ns_policy_fn fn = intruder;

	if (fd != POLICY_FD || i < 0) {
		errno = ENOENT;
		return -1;
	}
	memcpy(value, &vals[i], sizeof(vals[i]));
	if (fn) {
		intruder = NULL;
		intruded = ns_policy_update(&m, *(const uint64_t *)key, fn,
					    NULL, 0);
	}
	return 0;
}

int bpf_map_update_elem(int fd, const void *key, const void *value, __u64 flags)
{
	int i = find(*(const uint64_t *)key);

	ck_assert_int_eq(fd, POLICY_FD);
	if (i < 0) {
		ck_assert_int_lt(nkeys, NS_CGROUPS_MAX);
		i = nkeys++;
		keys[i] = *(const uint64_t *)key;
	}
	memcpy(&vals[i], value, sizeof(vals[i]));
	return 0;
}

int bpf_map_delete_elem(int fd, const void *key)
{
	int i = find(*(const uint64_t *)key);

	if (fd != POLICY_FD || i < 0) {
		errno = ENOENT;
		return -1;
	}
	drop(i);
	return 0;
}

int bpf_prog_get_fd_by_id(__u32 id)
{
	errno = ENOENT;
	return -1;
}

/* ns_maps_open()'s pins: each with this version's sizes, and the one named
 * other_layout of another layout by its BTF; the fds handed out */
static const char *other_layout;
static int pinned_fds[8], npinned;
static char pinned_names[8][16];

int bpf_obj_get(const char *pathname)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_lt(npinned, 8);
	pinned_fds[npinned] = fd;
	snprintf(pinned_names[npinned++], sizeof(pinned_names[0]), "%s",
		 strrchr(pathname, '/') + 1);
	return fd;
}

int bpf_obj_get_info_by_fd(int bpf_fd, void *info, __u32 *info_len)
{
	struct bpf_map_info *i = info;
	const char *name = NULL;
	int n;

	for (n = 0; n < npinned; n++)
		if (pinned_fds[n] == bpf_fd)
			name = pinned_names[n];
	ck_assert_ptr_nonnull(name);
	i->key_size = sizeof(__u64);
	if (!strcmp(name, "ns_cg_stats")) {
		i->value_size = sizeof(struct ns_cg_stats);
	} else if (!strcmp(name, "ns_policy")) {
		i->value_size = sizeof(struct ns_policy);
	} else if (!strcmp(name, "ns_ctrl")) {
		i->value_size = sizeof(struct ns_ctrl);
	} else {
		i->key_size = sizeof(__u32);
		i->value_size = !strcmp(name, "ns_link") ?
				sizeof(struct ns_link_view) : sizeof(__u32);
	}
	return 0;
}

bool ns_map_same_btf(const struct bpf_map_info *info,
		     const struct bpf_object *obj, const char *name)
{
	return !other_layout || strcmp(name, other_layout);
}

/* @n cgroups' policies, each paced by the gone controller */
static void fill(int n)
{
	struct ns_policy p = { .rate_Bps = 1000000, .gen = 5,
			       .owner = GONE_OWNER };
	uint64_t key;
	int i;

	nkeys = 0;
	for (i = 0; i < n; i++) {
		key = 1000 + i;
		bpf_map_update_elem(POLICY_FD, &key, &p, BPF_ANY);
	}
}

/* past half the map, a key dropped under the walk sent it back to the
 * first key, and the keys it saw twice filled its list before it reached
 * the last ones: their flows stayed paced by a controller that was gone */
START_TEST(release_reaches_every_key_under_a_delete)
{
	struct ns_maps m = { .stats = -1, .policy = POLICY_FD, .ctrl = -1,
			     .link = -1, .epoch = -1 };
	int i;

	fill(700);
	delete_at = 450;
	ck_assert_int_eq(ns_policy_release(&m, 42), 0);
	ck_assert_int_eq(delete_at, -1);	/* it went */
	ck_assert_int_eq(nkeys, 699);
	for (i = 0; i < nkeys; i++)
		ck_assert_msg(is_neutral(&vals[i]) && vals[i].gen == 6,
			      "cgroup %llu: rate %llu, gen %u",
			      (unsigned long long)keys[i],
			      (unsigned long long)vals[i].rate_Bps, vals[i].gen);
}
END_TEST

#define CG		7
#define OWNER		42
#define FIXED_BPS	5000000

/* indigoctl netscope set rate_mbit=40 */
static int operator_fixes(struct ns_policy *p, const struct ns_policy *old,
			  void *arg)
{
	p->flags |= NS_POLICY_FIXED;
	p->owner = 0;
	p->rate_Bps = FIXED_BPS;
	return 1;
}

/* the controller's interval: its own rate, where none is fixed */
static int controller_paces(struct ns_policy *p, const struct ns_policy *old,
			    void *arg)
{
	if (old && old->flags & NS_POLICY_FIXED)
		return 0;
	p->rate_Bps = 2000000;
	p->owner = OWNER;
	return 1;
}

static void one_policy(void)
{
	struct ns_policy p = { .rate_Bps = 1000000, .gen = 5, .owner = OWNER };
	uint64_t key = CG;

	nkeys = 0;
	bpf_map_update_elem(POLICY_FD, &key, &p, BPF_ANY);
}

/* indigoctl's fixed policy written between the controller's read and its
 * update was overwritten by the controller's: the operator's setting lost,
 * and the gen went back to one flows had applied. Under the lock, the
 * writer that comes second waits (here: is refused, and tries again). */
START_TEST(fixed_policy_written_meanwhile_is_kept)
{
	struct ns_maps m = { .stats = -1, .policy = POLICY_FD, .ctrl = -1,
			     .link = -1, .epoch = -1 };

	one_policy();
	intruder = operator_fixes;
	ck_assert_int_ge(ns_policy_update(&m, CG, controller_paces, NULL, 0), 0);
	ck_assert_ptr_null(intruder);
	if (intruded == -EWOULDBLOCK)	/* indigoctl's wait, over */
		intruded = ns_policy_update(&m, CG, operator_fixes, NULL, 0);
	ck_assert_int_eq(intruded, 1);
	ck_assert_int_eq(nkeys, 1);
	ck_assert_msg(vals[0].flags & NS_POLICY_FIXED &&
		      vals[0].rate_Bps == FIXED_BPS && vals[0].owner == 0,
		      "the fixed policy lost: flags %#x rate %llu owner %u",
		      vals[0].flags, (unsigned long long)vals[0].rate_Bps,
		      vals[0].owner);
	/* each write at a gen of its own, none gone back */
	ck_assert_uint_ge(vals[0].gen, 6);
	ck_assert_uint_le(vals[0].gen, 7);
}
END_TEST

static double ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1e3 + (t.tv_nsec - t0->tv_nsec) / 1e6;
}

/* another writer holding the lock (a stuck indigoctl): a controller's
 * update does not wait for it, a waiting one waits no longer than it said,
 * and neither writes; once it is let go, they do */
START_TEST(held_lock_waits_bounded_and_writes_nothing)
{
	struct ns_maps m = { .stats = -1, .policy = POLICY_FD, .ctrl = -1,
			     .link = -1, .epoch = -1 };
	struct timespec t0;
	int fd;

	one_policy();
	ck_assert_int_eq(ns_policy_update(&m, CG, controller_paces, NULL, 0), 1);
	fd = open(lock_path, O_RDWR | O_CLOEXEC);	/* the first made it */
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(flock(fd, LOCK_EX | LOCK_NB), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(ns_policy_update(&m, CG, operator_fixes, NULL, 0),
			 -EWOULDBLOCK);
	ck_assert_double_lt(ms_since(&t0), 40);	/* not napped */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(ns_policy_update(&m, CG, operator_fixes, NULL, 50),
			 -EWOULDBLOCK);
	ck_assert_double_ge(ms_since(&t0), 50);
	ck_assert_int_eq(vals[0].rate_Bps, 2000000);
	ck_assert_uint_eq(vals[0].gen, 6);
	close(fd);
	ck_assert_int_eq(ns_policy_update(&m, CG, operator_fixes, NULL, 0), 1);
	ck_assert_int_eq(vals[0].rate_Bps, FIXED_BPS);
	ck_assert_uint_eq(vals[0].gen, 7);
}
END_TEST

/* A map of the same sizes but another layout (by BTF) is refused, named,
 * and none of those opened before it is left open. */
START_TEST(other_layout_refused_by_name)
{
	const char *which = NULL;
	struct ns_maps m;
	int i;

	other_layout = "ns_ctrl";
	ck_assert_int_eq(ns_maps_open(&m, NULL, &which), -EPROTO);
	ck_assert_str_eq(which, "ns_ctrl");
	ck_assert_int_eq(npinned, 3);	/* stats, policy, ctrl: then none */
	for (i = 0; i < npinned; i++)
		ck_assert_int_eq(fcntl(pinned_fds[i], F_GETFD), -1);
	ck_assert(m.stats == -1 && m.policy == -1 && m.ctrl == -1 &&
		  m.link == -1 && m.epoch == -1);
	other_layout = NULL;
	npinned = 0;
	ck_assert_int_eq(ns_maps_open(&m, NULL, &which), 0);
	ck_assert_int_eq(npinned, 5);
	ns_maps_close(&m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ns_maps");
	TCase *tc = tcase_create("core");
	int ret;

	snprintf(lock_dir, sizeof(lock_dir), "/tmp/test_maps.XXXXXX");
	if (!mkdtemp(lock_dir))
		return 1;
	snprintf(lock_path, sizeof(lock_path), "%s/run/ns_policy.lock",
		 lock_dir);
	tcase_add_test(tc, release_reaches_every_key_under_a_delete);
	tcase_add_test(tc, fixed_policy_written_meanwhile_is_kept);
	tcase_add_test(tc, held_lock_waits_bounded_and_writes_nothing);
	tcase_add_test(tc, other_layout_refused_by_name);
	suite_add_tcase(s, tc);
	ret = unit_run(s);
	unlink(lock_path);
	*strrchr(lock_path, '/') = '\0';
	rmdir(lock_path);
	rmdir(lock_dir);
	return ret;
}
