// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: Netscope's pinned maps from userspace (agent/netscope/
 * ns_maps.c), on a hash map faked here as the kernel walks one: a key
 * deleted under the walk (another agent dropping a gone cgroup) sends the
 * next step back to the first key. Releasing a gone controller's policies
 * still reaches every one.
 */
#include "check_main.h"
#include <errno.h>
#include <string.h>

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

int bpf_map_lookup_elem(int fd, const void *key, void *value)
{
	int i = find(*(const uint64_t *)key);

	if (fd != POLICY_FD || i < 0) {
		errno = ENOENT;
		return -1;
	}
	memcpy(value, &vals[i], sizeof(vals[i]));
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

int bpf_obj_get(const char *pathname)
{
	errno = ENOSYS;
	return -1;
}

int bpf_obj_get_info_by_fd(int bpf_fd, void *info, __u32 *info_len)
{
	errno = ENOSYS;
	return -1;
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

int main(void)
{
	Suite *s = suite_create("ns_maps");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, release_reaches_every_key_under_a_delete);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
