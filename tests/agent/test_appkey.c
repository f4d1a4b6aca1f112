// SPDX-License-Identifier: GPL-2.0
/* Tests for agent/policy/appkey.c: which application a model belongs to. */
#include "check_main.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "appkey.h"

#define K8S "kubepods.slice/kubepods-burstable.slice/" \
	"kubepods-burstable-pod0f6c2b1e_4a8d_4c3e_9b7a_2d1e5f8a9c3b.slice/" \
	"cri-containerd-" \
	"3f9e2d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e.scope"

START_TEST(cgroup_keys)
{
	char k[APPKEY_MAX], tiny[8];

	ck_assert_int_eq(appkey_from_cgroup("0::/system.slice/redis.service\n",
					    k, sizeof(k)), 0);
	ck_assert_str_eq(k, "system.slice/redis.service");
	/* hybrid hierarchy: the v2 line is found among v1 ones */
	ck_assert_int_eq(appkey_from_cgroup("12:cpu,cpuacct:/x\n0::/app\n1:name=systemd:/y\n",
					    k, sizeof(k)), 0);
	ck_assert_str_eq(k, "app");
	ck_assert_int_eq(appkey_from_cgroup("0::/\n", k, sizeof(k)), 0);
	ck_assert_str_eq(k, "root");
	ck_assert_int_eq(appkey_from_cgroup("3:memory:/a\n", k, sizeof(k)), -ENOENT);
	ck_assert_int_eq(appkey_from_cgroup("", k, sizeof(k)), -ENOENT);
	ck_assert_int_eq(appkey_from_cgroup("0::relative\n", k, sizeof(k)), -EINVAL);
	ck_assert_int_eq(appkey_from_cgroup("0::/a\tb\n", k, sizeof(k)), -EINVAL);
	ck_assert_int_eq(appkey_from_cgroup("0::/a-long-name\n", tiny, sizeof(tiny)),
			 -ENAMETOOLONG);
	/* a Kubernetes container's cgroup is a key of its own */
	ck_assert_int_eq(appkey_from_cgroup("0::/" K8S "\n", k, sizeof(k)), 0);
	ck_assert_str_eq(k, K8S);
}
END_TEST

START_TEST(comm_keys)
{
	char k[APPKEY_MAX];

	ck_assert_int_eq(appkey_from_comm("redis-server\n", k, sizeof(k)), 0);
	ck_assert_str_eq(k, "redis-server");
	ck_assert_int_eq(appkey_from_comm("\n", k, sizeof(k)), -EINVAL);
	/* a newline inside the name (prctl allows it) is no other's key */
	ck_assert_int_eq(appkey_from_comm("redis\nx\n", k, sizeof(k)), -EINVAL);
	ck_assert_int_eq(appkey_from_comm("redis\n\n", k, sizeof(k)), -EINVAL);
	ck_assert_int_eq(appkey_from_comm("redis", k, sizeof(k)), 0);
	ck_assert_str_eq(k, "redis");
}
END_TEST

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

/* Read whole: a hybrid host's v1 lines before the v2 one past a page */
START_TEST(keys_from_files)
{
	char dir[] = "/tmp/appkey-XXXXXX", path[64], k[APPKEY_MAX];
	char text[8192] = "";
	int i;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/cgroup", dir);
	/* 13 hierarchies, each a Kubernetes path */
	for (i = 1; i <= 13; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 "%d:controller%d:/%s/%s\n", i, i, K8S, K8S);
	ck_assert_uint_gt(strlen(text), 4096);
	strcat(text, "0::/system.slice/redis.service\n");
	write_file(path, text);
	ck_assert_int_eq(appkey_from_file(path, true, k, sizeof(k)), 0);
	ck_assert_str_eq(k, "system.slice/redis.service");
	write_file(path, "redis-server\n");
	ck_assert_int_eq(appkey_from_file(path, false, k, sizeof(k)), 0);
	ck_assert_str_eq(k, "redis-server");
	write_file(path, "");
	ck_assert_int_eq(appkey_from_file(path, false, k, sizeof(k)), -EINVAL);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(appkey_from_file(path, true, k, sizeof(k)), -ENOENT);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

START_TEST(top_pid)
{
	uint32_t a[] = { 9, 4, 9, 4, 2 }, b[] = { 9, 4, 9 };

	ck_assert_uint_eq(appkey_top_pid(a, 5), 4);	/* tie: lower pid */
	ck_assert_uint_eq(appkey_top_pid(b, 3), 9);
	ck_assert_uint_eq(appkey_top_pid(a, 0), 0);
}
END_TEST

START_TEST(switch_needs_a_streak)
{
	struct appkey_switch sw = { .cur = "default" };

	ck_assert(!appkey_observe(&sw, "default", 3));
	ck_assert(!appkey_observe(&sw, "redis", 3));
	ck_assert(!appkey_observe(&sw, "redis", 3));
	/* an interruption restarts the count */
	ck_assert(!appkey_observe(&sw, "sqlite", 3));
	ck_assert(!appkey_observe(&sw, "redis", 3));
	ck_assert(!appkey_observe(&sw, "redis", 3));
	ck_assert(appkey_observe(&sw, "redis", 3));
	ck_assert_str_eq(sw.cur, "redis");
	ck_assert(!appkey_observe(&sw, "redis", 3));
	/* hold 1: at once */
	ck_assert(appkey_observe(&sw, "default", 1));
	ck_assert_str_eq(sw.cur, "default");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("appkey");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, cgroup_keys);
	tcase_add_test(tc, comm_keys);
	tcase_add_test(tc, keys_from_files);
	tcase_add_test(tc, top_pid);
	tcase_add_test(tc, switch_needs_a_streak);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
