// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for agent/policy/config.c: defaults, every kind of error with the
 * line it names, all-or-nothing application, --set overrides, files.
 * Run from the repository root (the example file is read from there).
 */
#include "check_main.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "actions.h"
#include "config.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define EXAMPLE		"agent/indigod.conf.example"

/* Parses @text as "indigod.conf"; expects failure with exactly @msg. */
static void expect_err(const char *text, const char *msg)
{
	struct indigod_config c;
	char err[256];
	int ret;

	config_defaults(&c);
	ret = config_parse_string(&c, text, "indigod.conf", err, sizeof(err));
	ck_assert_msg(ret == -EINVAL, "accepted:\n%s", text);
	ck_assert_str_eq(err, msg);
}

static void expect_ok(const char *text, struct indigod_config *c)
{
	char err[256] = "";
	int ret = config_parse_string(c, text, "indigod.conf", err, sizeof(err));

	ck_assert_msg(ret == 0, "refused: %s", err);
}

START_TEST(defaults)
{
	struct indigod_config c, d;

	memset(&c, 0x5a, sizeof(c));
	config_defaults(&c);
	ck_assert_uint_eq(c.agent.epoch_ms, 1000);
	ck_assert_int_eq(c.agent.learner, CONFIG_LEARNER_HEURISTIC);
	ck_assert_int_eq(c.agent.executor, CONFIG_EXECUTOR_KERNEL);
	ck_assert_str_eq(c.agent.state_dir, "/var/lib/indigo");
	ck_assert_str_eq(c.agent.log_path, "/var/log/indigo/decisions.jsonl");
	ck_assert_uint_eq(c.agent.log_max_bytes, 64ULL << 20);
	ck_assert_str_eq(c.agent.metrics_path, "/run/indigo/metrics.prom");
	ck_assert_int_eq(c.link.source, CONFIG_LINK_FIXED);
	ck_assert(c.link.bandwidth_gbps == 100.0);
	ck_assert(c.link.far_latency_ns == 900.0);
	ck_assert(c.link.local_latency_ns == 100.0);
	ck_assert_str_eq(c.link.counter_path, "");
	ck_assert(c.bandit.alpha == 1.0);
	ck_assert(c.bandit.lambda == 1.0);
	ck_assert(c.bandit.v == 1.0);
	ck_assert_uint_eq(c.bandit.seed, 0);
	ck_assert_uint_eq(c.bandit.rebuild_every, 100);
	ck_assert(c.bandit.forget == 0);	/* auto */
	ck_assert_uint_eq(c.bandit.warmup, 20);
	ck_assert(c.policy.rate_cap_share == 0.3);
	/* no floor of indigod's own: the kernel's watermarks decide */
	ck_assert_uint_eq(c.policy.free_min_kib, 0);
	/* the fill arm stops at 1/16 of local memory free */
	ck_assert(c.policy.fill_share == 0.0625);
	ck_assert(c.policy.fill_share == ACT_FILL_SHARE_DEFAULT);
	ck_assert_str_eq(c.agent.status_path, "/run/indigo/status.json");
	ck_assert_int_eq(c.agent.model_key, CONFIG_MODEL_FIXED);
	ck_assert_int_eq(c.reward.source, CONFIG_REWARD_COSTMODEL);
	ck_assert_str_eq(c.reward.progress_path, "");
	ck_assert(c.reward.progress_scale == 0.0);
	/* auto: estimated online (epoch.h), stored as 0 */
	ck_assert(c.reward.residence == 0.0);
	ck_assert_uint_eq(c.agent.netlink_rcvbuf, 4U << 20);

	/* an empty file, or one of comments and empty sections: defaults */
	memset(&d, 0, sizeof(d));
	expect_ok("", &d);
	ck_assert(!memcmp(&c, &d, sizeof(c)));
	memset(&d, 0, sizeof(d));
	expect_ok("; nothing\n# at all\n\n[agent]\n[link]\n[bandit]\n[policy]\n",
		  &d);
	ck_assert(!memcmp(&c, &d, sizeof(c)));
}
END_TEST

START_TEST(every_key)
{
	static const char text[] =
		"[agent]\n"
		"epoch_ms = 250\n"
		"learner = thompson\n"
		"executor = agent\n"
		"state_dir = /srv/indigo\n"
		"log_path = /srv/indigo/log.jsonl\n"
		"log_max_bytes = 4096\n"
		"metrics_path =\n"
		"[link]\n"
		"source = counter\n"
		"bandwidth_gbps = 12.5\n"
		"far_latency_ns = 1.5e3\n"
		"local_latency_ns = 92.5\n"
		"counter_path = /sys/class/net/eth0/statistics/tx_bytes\n"
		"[bandit]\n"
		"alpha = 0\n"
		"lambda = 0.01\n"
		"v = 100\n"
		"seed = 18446744073709551615\n"
		"rebuild_every = 1\n"
		"warmup = 0\n"
		"[policy]\n"
		"rate_cap_share = 1 ; all of it\n"
		"free_min_kib = 131072\n"
		"fill_share = 0.5\n"
		"[reward]\n"
		"residence = 12.5\n"
		"[netscope]\n"
		"host_peers = 172.17.0.0/16 fd00:1::/64\t198.18.0.129\n"
		"apps = /a=/run/a.progress /b /c /d /e /f /g /h /i /j /k /l /m /n /o /a/p\n";
	/* IPv4 as ::ffff:a.b.c.d */
	static const struct ns_peer_prefix docker = {
		.prefixlen = 112, .addr = { [10] = 0xff, [11] = 0xff, 172, 17 } };
	static const struct ns_peer_prefix v6 = {
		.prefixlen = 64, .addr = { 0xfd, 0x00, 0x00, 0x01 } };
	static const struct ns_peer_prefix host = {
		.prefixlen = 128,
		.addr = { [10] = 0xff, [11] = 0xff, 198, 18, 0, 129 } };
	struct indigod_config c;

	expect_ok(text, &c);
	ck_assert_uint_eq(c.agent.epoch_ms, 250);
	ck_assert_int_eq(c.agent.learner, CONFIG_LEARNER_THOMPSON);
	ck_assert_int_eq(c.agent.executor, CONFIG_EXECUTOR_AGENT);
	ck_assert_str_eq(c.agent.state_dir, "/srv/indigo");
	ck_assert_str_eq(c.agent.log_path, "/srv/indigo/log.jsonl");
	ck_assert_uint_eq(c.agent.log_max_bytes, 4096);
	ck_assert_str_eq(c.agent.metrics_path, "");
	ck_assert_int_eq(c.link.source, CONFIG_LINK_COUNTER);
	ck_assert(c.link.bandwidth_gbps == 12.5);
	ck_assert(c.link.far_latency_ns == 1500.0);
	ck_assert(c.link.local_latency_ns == 92.5);
	ck_assert_str_eq(c.link.counter_path,
			 "/sys/class/net/eth0/statistics/tx_bytes");
	ck_assert(c.bandit.alpha == 0.0);
	ck_assert(c.bandit.lambda == 0.01);
	ck_assert(c.bandit.v == 100.0);
	ck_assert_uint_eq(c.bandit.seed, UINT64_MAX);
	ck_assert_uint_eq(c.bandit.rebuild_every, 1);
	ck_assert_uint_eq(c.bandit.warmup, 0);
	ck_assert(c.policy.rate_cap_share == 1.0);
	ck_assert_uint_eq(c.policy.free_min_kib, 131072);
	ck_assert(c.policy.fill_share == 0.5);
	ck_assert(c.reward.residence == 12.5);
	ck_assert_uint_eq(c.netscope.host_peers.n, 3);
	ck_assert(!memcmp(&c.netscope.host_peers.p[0], &docker, sizeof(docker)));
	ck_assert(!memcmp(&c.netscope.host_peers.p[1], &v6, sizeof(v6)));
	ck_assert(!memcmp(&c.netscope.host_peers.p[2], &host, sizeof(host)));
	ck_assert_str_eq(c.netscope.apps,
			 "/a=/run/a.progress /b /c /d /e /f /g /h /i /j /k /l /m /n /o /a/p");
	ck_assert_str_eq(config_learner_name(c.agent.learner), "thompson");
	ck_assert_str_eq(config_executor_name(c.agent.executor), "agent");
	ck_assert_str_eq(config_link_source_name(c.link.source), "counter");
	ck_assert_str_eq(config_link_source_name(7), "?");
	ck_assert_str_eq(config_learner_name(-1), "?");
}
END_TEST

/* The brief's example, on line 12. */
START_TEST(error_names_line_twelve)
{
	expect_err("# 1\n# 2\n# 3\n# 4\n# 5\n# 6\n# 7\n# 8\n# 9\n[agent]\n"
		   "learner = linucb\n"
		   "epoch_ms = 0\n",
		   "indigod.conf:12: epoch_ms: 0 is out of range 10-60000");
}
END_TEST

static const struct {
	const char *text, *msg;
} bad_values[] = {
	/* integers */
	{ "[agent]\nepoch_ms = 60001\n",
	  "indigod.conf:2: epoch_ms: 60001 is out of range 10-60000" },
	{ "[agent]\nepoch_ms = abc\n",
	  "indigod.conf:2: epoch_ms: \"abc\" is not a whole number" },
	{ "[agent]\nepoch_ms = -5\n",
	  "indigod.conf:2: epoch_ms: \"-5\" is not a whole number" },
	{ "[agent]\nepoch_ms = +500\n",
	  "indigod.conf:2: epoch_ms: \"+500\" is not a whole number" },
	{ "[agent]\nepoch_ms = 500.0\n",
	  "indigod.conf:2: epoch_ms: \"500.0\" is not a whole number" },
	{ "[agent]\nepoch_ms = 500 # half a second\n",
	  "indigod.conf:2: epoch_ms: \"500 # half a second\" is not a whole number" },
	{ "[agent]\nepoch_ms =\n",
	  "indigod.conf:2: epoch_ms: empty value (default: 1000)" },
	{ "[bandit]\nseed = 18446744073709551616\n",
	  "indigod.conf:2: seed: 18446744073709551616 is out of range 0-18446744073709551615" },
	{ "[agent]\nlog_max_bytes = 4095\n",
	  "indigod.conf:2: log_max_bytes: 4095 is out of range 4096-1099511627776" },
	{ "[bandit]\nrebuild_every = 0\n",
	  "indigod.conf:2: rebuild_every: 0 is out of range 1-1000000" },
	{ "[bandit]\nwarmup = 1000001\n",
	  "indigod.conf:2: warmup: 1000001 is out of range 0-1000000" },
	{ "[policy]\nfree_min_kib = 4294967297\n",
	  "indigod.conf:2: free_min_kib: 4294967297 is out of range 0-4294967296" },
	/* doubles */
	{ "[netscope]\ncapacity_mbit = 1e-300\nfloor_mbit = 0\n",
	  "indigod.conf:2: capacity_mbit: 1e-300 is out of range [1, 400000]" },
	{ "[link]\nbandwidth_gbps = 0\n",
	  "indigod.conf:2: bandwidth_gbps: 0 is out of range [0.001, 10000]" },
	{ "[link]\nbandwidth_gbps = -1\n",
	  "indigod.conf:2: bandwidth_gbps: -1 is out of range [0.001, 10000]" },
	/* above 0, but a page's transfer cost would be infinite */
	{ "[link]\nbandwidth_gbps = 1e-320\n",
	  "indigod.conf:2: bandwidth_gbps: 1e-320 is out of range [0.001, 10000]" },
	{ "[link]\nbandwidth_gbps = nan\n",
	  "indigod.conf:2: bandwidth_gbps: \"nan\" is not a number" },
	{ "[link]\nbandwidth_gbps = inf\n",
	  "indigod.conf:2: bandwidth_gbps: \"inf\" is not a number" },
	{ "[link]\nbandwidth_gbps = 1e999\n",
	  "indigod.conf:2: bandwidth_gbps: 1e999 is out of range [0.001, 10000]" },
	{ "[link]\nbandwidth_gbps = 0x10\n",
	  "indigod.conf:2: bandwidth_gbps: \"0x10\" is not a number" },
	{ "[link]\nbandwidth_gbps = 100Gb\n",
	  "indigod.conf:2: bandwidth_gbps: \"100Gb\" is not a number" },
	{ "[link]\nbandwidth_gbps = 1e\n",
	  "indigod.conf:2: bandwidth_gbps: \"1e\" is not a number" },
	{ "[policy]\nrate_cap_share = 1.5\n",
	  "indigod.conf:2: rate_cap_share: 1.5 is out of range (0, 1]" },
	{ "[policy]\nrate_cap_share = 0\n",
	  "indigod.conf:2: rate_cap_share: 0 is out of range (0, 1]" },
	{ "[policy]\nfill_share = 0\n",
	  "indigod.conf:2: fill_share: 0 is out of range (0, 0.5]" },
	{ "[policy]\nfill_share = 0.51\n",
	  "indigod.conf:2: fill_share: 0.51 is out of range (0, 0.5]" },
	{ "[policy]\nfill_share = 1/16\n",
	  "indigod.conf:2: fill_share: \"1/16\" is not a number" },
	{ "[bandit]\nalpha = -0.5\n",
	  "indigod.conf:2: alpha: -0.5 is out of range [0, 100]" },
	{ "[bandit]\nforget = 0\n",
	  "indigod.conf:2: forget: 0 is out of range (0, 1] (or auto)" },
	{ "[bandit]\nforget = 1.5\n",
	  "indigod.conf:2: forget: 1.5 is out of range (0, 1] (or auto)" },
	{ "[bandit]\nlambda = 0\n",
	  "indigod.conf:2: lambda: 0 is out of range [0.001, 1e+06]" },
	/* so small that A stops being positive definite in rounding */
	{ "[bandit]\nlambda = 1e-9\n",
	  "indigod.conf:2: lambda: 1e-9 is out of range [0.001, 1e+06]" },
	/* choices */
	{ "[agent]\nlearner = LinUCB\n",
	  "indigod.conf:2: learner: \"LinUCB\" is not one of linucb, thompson, heuristic" },
	{ "[agent]\nexecutor = both\n",
	  "indigod.conf:2: executor: \"both\" is not one of kernel, agent" },
	{ "[link]\nsource = dcqcn\n",
	  "indigod.conf:2: source: \"dcqcn\" is not one of fixed, counter, netscope, gpu" },
	/* peers on the host: the first bad prefix, and why */
	{ "[netscope]\nhost_peers = 172.17.0.0/16 10.1.2.3/8\n",
	  "indigod.conf:2: host_peers: \"10.1.2.3/8\" has address bits set past its length" },
	{ "[netscope]\nhost_peers = 10.0.0.0/33\n",
	  "indigod.conf:2: host_peers: \"10.0.0.0/33\" has a length that is not 0-32" },
	{ "[netscope]\nhost_peers = fd00::/129\n",
	  "indigod.conf:2: host_peers: \"fd00::/129\" has a length that is not 0-128" },
	{ "[netscope]\nhost_peers = 10.0.0.0/+8\n",
	  "indigod.conf:2: host_peers: \"10.0.0.0/+8\" has a length that is not 0-32" },
	{ "[netscope]\nhost_peers = 10.0.0.0/\n",
	  "indigod.conf:2: host_peers: \"10.0.0.0/\" has a length that is not 0-32" },
	{ "[netscope]\nhost_peers = docker0\n",
	  "indigod.conf:2: host_peers: \"docker0\" is not an IPv4 or IPv6 address prefix" },
	{ "[netscope]\nhost_peers = 10.0.0.0/8,172.17.0.0/16\n",
	  "indigod.conf:2: host_peers: \"10.0.0.0/8,172.17.0.0/16\" has a length that is not 0-32" },
	/* what Netscope could not start with: refused as the file is read,
	 * so that a reload keeps the running Netscope and its configuration */
	{ "[netscope]\napps = /sys/fs/cgroup/a sys/fs/cgroup/b\n",
	  "indigod.conf:2: apps: \"sys/fs/cgroup/b\" is not DIR[=PROGRESS] with an absolute DIR" },
	{ "[netscope]\nfloor_mbit = 2000\n",
	  "indigod.conf:2: floor_mbit: 2000 is above capacity_mbit (1000)" },
	{ "[netscope]\nfloor_mbit = 20\ncapacity_mbit = 10\n",
	  "indigod.conf:3: capacity_mbit: 10 is below floor_mbit (20)" },
	{ "[netscope]\napps = /sys/fs/cgroup/a=\n",
	  "indigod.conf:2: apps: \"/sys/fs/cgroup/a=\" is not DIR[=PROGRESS] with an absolute DIR" },
	{ "[netscope]\napps = /a /b /c /d /e /f /g /h /i /j /k /l /m /n /o /p /q\n",
	  "indigod.conf:2: apps: more than 16 applications" },
	{ "[netscope]\napps = /sys/fs/cgroup/a /sys/fs/cgroup/b /sys/fs/cgroup/a=/run/a.progress\n",
	  "indigod.conf:2: apps: \"/sys/fs/cgroup/a\" is named twice" },
	/* paths */
	{ "[agent]\nstate_dir = var/lib/indigo\n",
	  "indigod.conf:2: state_dir: \"var/lib/indigo\" is not an absolute path" },
	{ "[agent]\nstate_dir =\n",
	  "indigod.conf:2: state_dir: empty value (default: /var/lib/indigo)" },
	{ "[agent]\nlog_path = ~/log\n",
	  "indigod.conf:2: log_path: \"~/log\" is not an absolute path" },
	{ "[agent]\nmetrics_path = metrics.prom\n",
	  "indigod.conf:2: metrics_path: \"metrics.prom\" is not an absolute path" },
	{ "[agent]\nlog_path = /var/log/\x01x\n",
	  "indigod.conf:2: log_path: path has a control character" },
};

START_TEST(bad_value)
{
	expect_err(bad_values[_i].text, bad_values[_i].msg);
}
END_TEST

static const struct {
	const char *text, *msg;
} bad_structure[] = {
	{ "[agent]\nepoch = 500\n",
	  "indigod.conf:2: epoch: unknown key in [agent]" },
	{ "[link]\nepoch_ms = 500\n",
	  "indigod.conf:2: epoch_ms: unknown key in [link]" },
	{ "[agent]\nepoch_ms = 500\n\n[agnet]\nlearner = linucb\n",
	  "indigod.conf:4: [agnet]: unknown section (known: agent, link, bandit, policy, reward, netscope, gpu)" },
	/* an unknown section with no keys is still caught */
	{ "[agent]\n[Policy]\n",
	  "indigod.conf:2: [Policy]: unknown section (known: agent, link, bandit, policy, reward, netscope, gpu)" },
	{ "epoch_ms = 500\n[agent]\n",
	  "indigod.conf:1: epoch_ms: key outside a section" },
	{ "[agent]\nepoch_ms = 100\nlearner = linucb\nepoch_ms = 200\n",
	  "indigod.conf:4: epoch_ms: duplicate key (first set on line 2)" },
	/* repeating a section does not reset its keys */
	{ "[agent]\nepoch_ms = 100\n[link]\n[agent]\nepoch_ms = 100\n",
	  "indigod.conf:5: epoch_ms: duplicate key (first set on line 2)" },
	{ "[agent]\nepoch_ms\n",
	  "indigod.conf:2: syntax error: expected [section], key = value or a ; comment" },
	{ "[agent]\nepoch_ms = 100\n= 5\n",
	  "indigod.conf:3: line: no key before the '='" },
	{ "[agent\nepoch_ms = 100\n",
	  "indigod.conf:1: syntax error: expected [section], key = value or a ; comment" },
	{ "[agent]\nepoch_ms = 100\n   200\n",
	  "indigod.conf:3: epoch_ms: indented line continues the previous value (multi-line values are not supported)" },
	{ "[agent]\nepoch_ms = 100\n\tlearner = linucb\n",
	  "indigod.conf:3: epoch_ms: indented line continues the previous value (multi-line values are not supported)" },
	/* first error in file order wins, whichever kind */
	{ "[agent]\nepoch_ms = 1\nbogus\nlearner = x\n",
	  "indigod.conf:2: epoch_ms: 1 is out of range 10-60000" },
	{ "[agent]\nbogus\nepoch_ms = 1\n",
	  "indigod.conf:2: syntax error: expected [section], key = value or a ; comment" },
	/* cross-key: the error names the key set last */
	{ "[link]\nfar_latency_ns = 80\n",
	  "indigod.conf:2: far_latency_ns: 80 is not above local_latency_ns (100)" },
	{ "[link]\nfar_latency_ns = 900\nlocal_latency_ns = 900\n",
	  "indigod.conf:3: local_latency_ns: 900 is not below far_latency_ns (900)" },
	{ "[link]\nlocal_latency_ns = 1000\n",
	  "indigod.conf:2: local_latency_ns: 1000 is not below far_latency_ns (900)" },
	{ "[link]\nsource = counter\n",
	  "indigod.conf:2: source: source = counter needs a counter_path" },
	{ "[link]\nsource = counter\ncounter_path =\n",
	  "indigod.conf:3: counter_path: source = counter needs a counter_path" },
	{ "[reward]\nsource = progress\n",
	  "indigod.conf:2: source: source = progress needs a progress_path" },
	{ "[reward]\nprogress_scale = -1\n",
	  "indigod.conf:2: progress_scale: -1 is out of range [0, 1e+15]" },
	/* residence: auto or 1-64 epochs; "auto" is no word for other keys */
	{ "[reward]\nresidence = 0.5\n",
	  "indigod.conf:2: residence: 0.5 is out of range [1, 64] (or auto)" },
	{ "[reward]\nresidence = 65\n",
	  "indigod.conf:2: residence: 65 is out of range [1, 64] (or auto)" },
	{ "[reward]\nresidence = 0\n",
	  "indigod.conf:2: residence: 0 is out of range [1, 64] (or auto)" },
	{ "[reward]\nresidence = Auto\n",
	  "indigod.conf:2: residence: \"Auto\" is not a number or auto" },
	{ "[reward]\nprogress_scale = auto\n",
	  "indigod.conf:2: progress_scale: \"auto\" is not a number" },
	/* [gpu] is checked by agent/gpu/, reported the same way */
	{ "[gpu]\nprobe_share = 0\n",
	  "indigod.conf:2: probe_share: 0 is out of range [0.01, 1]" },
	{ "[gpu]\nnodes = fast\nnodes = far\n",
	  "indigod.conf:3: nodes: duplicate key (first set on line 2)" },
	{ "[gpu]\ngpu_nodes = far\n",
	  "indigod.conf:2: gpu_nodes: unknown key" },
	/* between [gpu]'s keys: on the one set last */
	{ "[gpu]\nprobe_page_bytes = 131072\nprobe_batch_kib = 64\n",
	  "indigod.conf:3: probe_batch_kib: probe_batch_kib (64 KiB) is below probe_page_bytes (131072 bytes)" },
	{ "[agent]\nmodel_key = pid\n",
	  "indigod.conf:2: model_key: \"pid\" is not one of fixed, cgroup, comm" },
	/* inih ignores what follows a header's ']': the key would be lost */
	{ "[agent] epoch_ms = 100\n",
	  "indigod.conf:1: [agent]: \"epoch_ms = 100\" after the section header (one key = value per line)" },
	{ "[link]\nbandwidth_gbps = 40\n[agent]]\n",
	  "indigod.conf:3: [agent]: \"]\" after the section header (one key = value per line)" },
};

START_TEST(bad_structure_case)
{
	expect_err(bad_structure[_i].text, bad_structure[_i].msg);
}
END_TEST

START_TEST(indented_first_key_ok)
{
	struct indigod_config c;

	/* nothing to continue yet: inih reads an ordinary key */
	expect_ok("[agent]\n    epoch_ms = 300\n[link]\n\tbandwidth_gbps = 40\n",
		  &c);
	ck_assert_uint_eq(c.agent.epoch_ms, 300);
	ck_assert(c.link.bandwidth_gbps == 40.0);
	/* indented comments and CRLF line ends are fine */
	expect_ok("[agent]\r\nepoch_ms = 400\r\n  ; note\r\n", &c);
	ck_assert_uint_eq(c.agent.epoch_ms, 400);
	/* and so is a comment after a section header */
	expect_ok("[agent] ; the agent\nepoch_ms = 500\n[link];x\r\n", &c);
	ck_assert_uint_eq(c.agent.epoch_ms, 500);
}
END_TEST

START_TEST(long_line)
{
	char text[512];

	/* inih's limit is 200 bytes with the NUL: 199 characters */
	snprintf(text, sizeof(text), "[agent]\n; %0*d\nepoch_ms = 100\n", 198, 0);
	expect_err(text, "indigod.conf:2: line: longer than 199 characters");
	snprintf(text, sizeof(text), "[agent]\n; %0*d\nepoch_ms = 100\n", 197, 0);
	{
		struct indigod_config c;

		expect_ok(text, &c);
		ck_assert_uint_eq(c.agent.epoch_ms, 100);
	}
}
END_TEST

START_TEST(long_value_quoted_short)
{
	char text[256], want[256];

	/* a long bad value is quoted back cut short, on one line */
	snprintf(text, sizeof(text), "[agent]\nlearner = %0*d\n", 150, 7);
	snprintf(want, sizeof(want),
		 "indigod.conf:2: learner: \"%0*d...\" is not one of linucb, thompson, heuristic",
		 45, 0);
	expect_err(text, want);
}
END_TEST

/* A file that is fine but for one line is not applied at all. */
START_TEST(all_or_nothing)
{
	static const char good[] =
		"[agent]\nepoch_ms = 250\nlearner = linucb\n"
		"[link]\nbandwidth_gbps = 25\n";
	static const char bad[] =
		"[agent]\nepoch_ms = 500\nlearner = thompson\nexecutor = agent\n"
		"[link]\nbandwidth_gbps = 50\nfar_latency_ns = 2000\n"
		"[bandit]\nalpha = 2\n"
		"[policy]\nrate_cap_share = 0.5\nfree_min_kib = 7\n"
		"[bandit]\nseed = 12x\n";
	struct indigod_config c, saved;
	char err[256];

	expect_ok(good, &c);
	saved = c;
	ck_assert_int_eq(config_parse_string(&c, bad, "indigod.conf", err,
					     sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "indigod.conf:14: seed: \"12x\" is not a whole number");
	ck_assert(!memcmp(&c, &saved, sizeof(c)));
}
END_TEST

START_TEST(small_or_no_error_buffer)
{
	struct indigod_config c;
	char err[12];

	config_defaults(&c);
	ck_assert_int_eq(config_parse_string(&c, "[agent]\nepoch_ms = 0\n",
					     "indigod.conf", err, sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "indigod.con");
	ck_assert_int_eq(config_parse_string(&c, "[x]\n", "f", NULL, 0),
			 -EINVAL);
	ck_assert_int_eq(config_apply_overrides(&c, (const char *[]){ "x" }, 1,
						NULL, 0), -EINVAL);
}
END_TEST

START_TEST(overrides)
{
	const char *sets[] = {
		"agent.epoch_ms=500",
		" link.bandwidth_gbps = 25 ",
		"agent.learner=linucb",
		"agent.metrics_path=",
	};
	struct indigod_config c, d;
	char err[256] = "";

	config_defaults(&c);
	ck_assert_msg(!config_apply_overrides(&c, sets, ARRAY_SIZE(sets), err,
					      sizeof(err)), "%s", err);
	ck_assert_uint_eq(c.agent.epoch_ms, 500);
	ck_assert(c.link.bandwidth_gbps == 25.0);
	ck_assert_int_eq(c.agent.learner, CONFIG_LEARNER_LINUCB);
	ck_assert_str_eq(c.agent.metrics_path, "");
	/* over a file's values, not over the defaults */
	expect_ok("[bandit]\nalpha = 3\n", &d);
	ck_assert_int_eq(config_apply_overrides(&d, sets, 1, err, sizeof(err)),
			 0);
	ck_assert(d.bandit.alpha == 3.0);
	ck_assert_uint_eq(d.agent.epoch_ms, 500);
	/* none: nothing changes */
	ck_assert_int_eq(config_apply_overrides(&d, NULL, 0, err, sizeof(err)),
			 0);
	/*
	 * Checks across keys see every override: moving both latencies up
	 * works in either order.
	 */
	config_defaults(&c);
	ck_assert_int_eq(config_apply_overrides(&c, (const char *[]){
		"link.local_latency_ns=1000", "link.far_latency_ns=2000" }, 2,
		err, sizeof(err)), 0);
	ck_assert(c.link.far_latency_ns == 2000.0);
	ck_assert(c.link.local_latency_ns == 1000.0);
	/* a file's fixed residence back to auto */
	expect_ok("[reward]\nresidence = 8\n", &d);
	ck_assert(d.reward.residence == 8.0);
	ck_assert_int_eq(config_apply_overrides(&d, (const char *[]){
		"reward.residence=auto" }, 1, err, sizeof(err)), 0);
	ck_assert(d.reward.residence == 0.0);
}
END_TEST

static const struct {
	const char *set[2];
	const char *msg;
} bad_overrides[] = {
	{ { "agent.epoch_ms=0" },
	  "--set agent.epoch_ms: 0 is out of range 10-60000" },
	{ { "agent.epoch_ms=100", "agent.learner=dqn" },
	  "--set agent.learner: \"dqn\" is not one of linucb, thompson, heuristic" },
	{ { "agent.epoch_ms" }, "--set agent.epoch_ms: expected section.key=value" },
	{ { "epoch_ms=100" }, "--set epoch_ms: expected section.key=value" },
	{ { "=100" }, "--set =100: expected section.key=value" },
	{ { "agnet.epoch_ms=100" }, "--set agnet.epoch_ms: unknown section" },
	{ { "agent.epoch=100" }, "--set agent.epoch: unknown key" },
	{ { "agent.epoch_ms=100", "agent.epoch_ms=200" },
	  "--set agent.epoch_ms: given twice" },
	{ { "link.far_latency_ns=50" },
	  "--set link.far_latency_ns: 50 is not above local_latency_ns (100)" },
	{ { "link.source=counter" },
	  "--set link.source: source = counter needs a counter_path" },
	/* a sensitive app's floor above the link: it would never be cut */
	{ { "netscope.capacity_mbit=50" },
	  "--set netscope.capacity_mbit: 50 is below floor_mbit (100)" },
	{ { "netscope.capacity_mbit=50", "netscope.floor_mbit=60" },
	  "--set netscope.floor_mbit: 60 is above capacity_mbit (50)" },
	{ { "gpu.nodes=fast", "gpu.nodes=far" }, "--set gpu.nodes: given twice" },
	{ { "gpu.probe_batch_kib=64", "gpu.probe_page_bytes=131072" },
	  "--set gpu.probe_page_bytes: probe_batch_kib (64 KiB) is below probe_page_bytes (131072 bytes)" },
	{ { "agent.state_dir=" },
	  "--set agent.state_dir: empty value (default: /var/lib/indigo)" },
};

START_TEST(bad_override)
{
	struct indigod_config c, saved;
	size_t n = bad_overrides[_i].set[1] ? 2 : 1;
	char err[256];

	config_defaults(&c);
	saved = c;
	ck_assert_int_eq(config_apply_overrides(&c, bad_overrides[_i].set, n,
						err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, bad_overrides[_i].msg);
	/* the first override was fine, but none is applied */
	ck_assert(!memcmp(&c, &saved, sizeof(c)));
}
END_TEST

/*
 * [gpu]'s keys are checked against each other once all are set: a larger
 * page and the larger batch it needs, given page first, are as good as
 * batch first, where the page was refused against the file's batch.
 */
START_TEST(gpu_overrides_in_any_order)
{
	static const char *const sets[] = { "gpu.probe_page_bytes=131072",
					    "gpu.probe_batch_kib=128" };
	struct indigod_config c;
	char err[256];

	ck_assert_int_eq(config_parse_string(&c, "[gpu]\nprobe_batch_kib = 64\n",
					     "indigod.conf", err, sizeof(err)), 0);
	ck_assert_int_eq(config_apply_overrides(&c, sets, 2, err, sizeof(err)), 0);
	ck_assert_uint_eq(c.gpu.probe_page_bytes, 131072);
	ck_assert_uint_eq(c.gpu.probe_batch_kib, 128);
}
END_TEST

/* A private directory for files; removed with its files by rm_tmpdir(). */
static void make_tmpdir(char *dir, size_t n)
{
	snprintf(dir, n, "%s/test_config.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(load_files)
{
	char dir[256], path[300], err[512];
	struct indigod_config c, saved;
	static const char bad[] = "[agent]\nepoch_ms = 5\n";
	static const char nul[] = "[agent]\nepoch_ms = 500\n\0\n";
	char *big;

	make_tmpdir(dir, sizeof(dir));
	config_defaults(&c);
	saved = c;

	snprintf(path, sizeof(path), "%s/missing.conf", dir);
	ck_assert_int_eq(config_load(&c, path, err, sizeof(err)), -ENOENT);
	ck_assert(strstr(err, "missing.conf: No such file or directory"));

	snprintf(path, sizeof(path), "%s/bad.conf", dir);
	write_file(path, bad, sizeof(bad) - 1);
	ck_assert_int_eq(config_load(&c, path, err, sizeof(err)), -EINVAL);
	ck_assert(strstr(err, "/bad.conf:2: epoch_ms: 5 is out of range"));
	ck_assert_int_eq(unlink(path), 0);

	snprintf(path, sizeof(path), "%s/nul.conf", dir);
	write_file(path, nul, sizeof(nul) - 1);
	ck_assert_int_eq(config_load(&c, path, err, sizeof(err)), -EINVAL);
	ck_assert(strstr(err, "/nul.conf:3: line: contains a NUL byte"));
	ck_assert_int_eq(unlink(path), 0);

	snprintf(path, sizeof(path), "%s/big.conf", dir);
	big = malloc(CONFIG_FILE_MAX + 1);
	ck_assert_ptr_nonnull(big);
	memset(big, '\n', CONFIG_FILE_MAX + 1);
	write_file(path, big, CONFIG_FILE_MAX + 1);
	ck_assert_int_eq(config_load(&c, path, err, sizeof(err)), -EFBIG);
	ck_assert(strstr(err, "/big.conf: larger than 65536 bytes"));
	/* exactly the limit is fine */
	write_file(path, big, CONFIG_FILE_MAX);
	free(big);
	ck_assert_int_eq(config_load(&c, path, err, sizeof(err)), 0);
	ck_assert_int_eq(unlink(path), 0);

	ck_assert_int_eq(config_load(&c, dir, err, sizeof(err)), -EISDIR);
	ck_assert(!memcmp(&c, &saved, sizeof(c)));

	snprintf(path, sizeof(path), "%s/good.conf", dir);
	write_file(path, "[agent]\nepoch_ms = 20\n", 22);
	ck_assert_int_eq(config_load(&c, path, err, sizeof(err)), 0);
	ck_assert_uint_eq(c.agent.epoch_ms, 20);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* Reads the example into a malloc'd string. */
static char *read_example(void)
{
	FILE *f = fopen(EXAMPLE, "r");
	char *buf = calloc(1, CONFIG_FILE_MAX + 1);

	ck_assert_msg(f != NULL, "%s: run the tests from the repository root",
		      EXAMPLE);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_gt(fread(buf, 1, CONFIG_FILE_MAX, f), 0);
	fclose(f);
	return buf;
}

/*
 * The example as shipped means "all defaults", and so does the example with
 * every key uncommented: each documented default is the real one.
 */
START_TEST(example_file)
{
	struct indigod_config c, d;
	char err[256] = "", *text, *out, *p, *q;
	int keys = 0;

	config_defaults(&d);
	ck_assert_msg(!config_load(&c, EXAMPLE, err, sizeof(err)), "%s", err);
	ck_assert(!memcmp(&c, &d, sizeof(c)));

	text = read_example();
	out = calloc(1, strlen(text) + 1);
	ck_assert_ptr_nonnull(out);
	for (p = text, q = out; *p; ) {
		/* "; key = value" -> "key = value" */
		if (!strncmp(p, "; ", 2) && (p == text || p[-1] == '\n')) {
			p += 2;
			keys++;
		}
		*q++ = *p++;
	}
	memset(&c, 0, sizeof(c));
	ck_assert_msg(!config_parse_string(&c, out, "example", err,
					   sizeof(err)), "%s", err);
	ck_assert(!memcmp(&c, &d, sizeof(c)));
	/* every key is in the example */
	ck_assert_int_eq(keys, (int)config_key_count());
	ck_assert_int_ge(keys, 26);
	free(text);
	free(out);
}
END_TEST

static Suite *config_suite(void)
{
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, defaults);
	tcase_add_test(tc, every_key);
	tcase_add_test(tc, error_names_line_twelve);
	tcase_add_loop_test(tc, bad_value, 0, ARRAY_SIZE(bad_values));
	tcase_add_loop_test(tc, bad_structure_case, 0,
			    ARRAY_SIZE(bad_structure));
	tcase_add_test(tc, indented_first_key_ok);
	tcase_add_test(tc, long_line);
	tcase_add_test(tc, long_value_quoted_short);
	tcase_add_test(tc, all_or_nothing);
	tcase_add_test(tc, small_or_no_error_buffer);
	tcase_add_test(tc, overrides);
	tcase_add_loop_test(tc, bad_override, 0, ARRAY_SIZE(bad_overrides));
	tcase_add_test(tc, load_files);
	tcase_add_test(tc, gpu_overrides_in_any_order);
	tcase_add_test(tc, example_file);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(config_suite());
}
