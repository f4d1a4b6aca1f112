// SPDX-License-Identifier: GPL-2.0
/*
 * Node lists and the tier map. Lists use the kernel's syntax ("0-1,3"), the
 * one sysfs writes and the module's far_nodes parameter reads, so a map's
 * far list can be handed to the module unchanged.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tiers.h"

int gpu_nodeset_test(const struct gpu_nodeset *set, int node)
{
	if (node < 0 || node >= GPU_NODE_IDS)
		return 0;
	return !!(set->w[node / 64] & (1ULL << (node % 64)));
}

void gpu_nodeset_add(struct gpu_nodeset *set, int node)
{
	if (node >= 0 && node < GPU_NODE_IDS)
		set->w[node / 64] |= 1ULL << (node % 64);
}

int gpu_nodeset_count(const struct gpu_nodeset *set)
{
	int i, n = 0;

	for (i = 0; i < GPU_NODE_IDS / 64; i++)
		n += __builtin_popcountll(set->w[i]);
	return n;
}

/* One decimal node id below GPU_NODE_IDS at *@s; advances *@s. */
static int parse_id(const char **s, int *id)
{
	long v = 0;
	const char *p = *s;

	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	while (isdigit((unsigned char)*p)) {
		v = v * 10 + (*p++ - '0');
		if (v >= GPU_NODE_IDS)
			return -EINVAL;
	}
	*s = p;
	*id = (int)v;
	return 0;
}

int gpu_nodeset_parse(const char *s, struct gpu_nodeset *set)
{
	struct gpu_nodeset r;
	int a, b;

	if (!s || !set)
		return -EINVAL;
	memset(&r, 0, sizeof(r));
	if (*s == '\n' && !s[1])
		s++;
	while (*s) {
		if (parse_id(&s, &a))
			return -EINVAL;
		b = a;
		if (*s == '-') {
			s++;
			if (parse_id(&s, &b) || b < a)
				return -EINVAL;
		}
		for (; a <= b; a++)
			gpu_nodeset_add(&r, a);
		if (*s == ',' && s[1])
			s++;
		else if (*s == '\n' && !s[1])
			s++;
		else if (*s)
			return -EINVAL;
	}
	*set = r;
	return 0;
}

int gpu_nodeset_format(const struct gpu_nodeset *set, char *buf, size_t n)
{
	size_t len = 0;
	int a, b, k;

	if (!n)
		return -ENOSPC;
	buf[0] = '\0';
	for (a = 0; a < GPU_NODE_IDS; a = b + 1) {
		if (!gpu_nodeset_test(set, a)) {
			b = a;
			continue;
		}
		for (b = a; b + 1 < GPU_NODE_IDS && gpu_nodeset_test(set, b + 1); b++)
			;
		if (a == b)
			k = snprintf(buf + len, n - len, "%s%d", len ? "," : "", a);
		else
			k = snprintf(buf + len, n - len, "%s%d-%d", len ? "," : "",
				     a, b);
		if (k < 0 || (size_t)k >= n - len) {
			buf[0] = '\0';
			return -ENOSPC;
		}
		len += (size_t)k;
	}
	return 0;
}

static int fail(char *err, size_t n, size_t gpu, int node, const char *why)
{
	if (err && n)
		snprintf(err, n, "GPU %zu: memory node %d %s", gpu, node, why);
	return -EINVAL;
}

int gpu_tiers_build(const struct gpu_topo *t, const int *gpu_mem_node,
		    size_t ngpu, enum gpu_nodes_mode mode,
		    struct gpu_tier_map *m, char *err, size_t errlen)
{
	struct gpu_nodeset gpu = { { 0 } };
	struct gpu_tier_map r;
	struct gpu_nodeset *dst;
	size_t i;
	int node;

	if (!t || !m || (ngpu && !gpu_mem_node))
		return -EINVAL;
	switch (mode) {
	case GPU_NODES_FAR:
		dst = &r.far;
		break;
	case GPU_NODES_FAST:
		dst = &r.fast;
		break;
	case GPU_NODES_IGNORE:
		dst = &r.ignored;
		break;
	default:
		return -EINVAL;
	}
	memset(&r, 0, sizeof(r));
	for (i = 0; i < ngpu; i++) {
		node = gpu_mem_node[i];
		if (node == -1)
			continue;
		if (node < 0 || node >= GPU_NODE_IDS)
			return fail(err, errlen, i, node, "is out of range");
		if (gpu_nodeset_test(&t->cpu, node))
			return fail(err, errlen, i, node,
				    "has CPUs: it cannot be GPU memory");
		if (gpu_nodeset_test(&gpu, node))
			return fail(err, errlen, i, node,
				    "is claimed by another GPU too");
		gpu_nodeset_add(&gpu, node);
	}
	for (node = 0; node < GPU_NODE_IDS; node++) {
		if (!gpu_nodeset_test(&t->mem, node))
			continue;
		if (gpu_nodeset_test(&gpu, node))
			gpu_nodeset_add(dst, node);
		else if (gpu_nodeset_test(&t->cpu, node))
			gpu_nodeset_add(&r.local, node);
		else
			gpu_nodeset_add(&r.far, node);
	}
	*m = r;
	return 0;
}

const char *gpu_nodes_mode_name(int mode)
{
	static const char *const names[] = { "far", "fast", "ignore" };

	return mode >= 0 && mode <= GPU_NODES_IGNORE ? names[mode] : "?";
}
