// SPDX-License-Identifier: GPL-2.0
/* indigod's per-epoch context vector: see context.h. */
#include "context.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define VETO_FIRST	2	/* INDIGO_REASON_DENY: reasons below are verdicts */
#define MEMINFO_MAX	8192

static const char *const names[CTX_DIM] = {
	"bias", "faults", "promote", "veto",
	"rate_p50", "rate_p90", "rate_p99",
	"burst_p50", "burst_p90", "burst_p99",
	"local_used", "far_used", "local_free", "far_free",
	"bandwidth", "delay",
};

const char *ctx_feature_name(unsigned int f)
{
	return f < CTX_DIM ? names[f] : "?";
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

int ctx_epoch_add_node(struct ctx_epoch *e, uint32_t id, uint64_t faults,
		       uint64_t allowed, uint64_t allowed_pages,
		       const uint64_t *veto, size_t nveto)
{
	size_t i;

	if (!e || (nveto && !veto))
		return -EINVAL;
	if (e->nfar >= CTX_MAX_NODES)
		return -ENOSPC;
	e->far[e->nfar++] = id;
	e->faults = sat_add(e->faults, faults);
	e->allowed = sat_add(e->allowed, allowed);
	e->allowed_pages = sat_add(e->allowed_pages, allowed_pages);
	for (i = VETO_FIRST; i < nveto; i++)
		e->vetoes = sat_add(e->vetoes, veto[i]);
	return 0;
}

uint64_t ctx_epoch_pages(const struct ctx_epoch *e)
{
	return e->allowed_pages > e->allowed ? e->allowed_pages : e->allowed;
}

/* "Node N KEY:   VALUE kB": the value of KEY, or -EINVAL. */
static int meminfo_field(const char *text, const char *key, uint64_t *kib)
{
	size_t klen = strlen(key);
	const char *line = text;

	while (line && *line) {
		const char *p = line, *eol = strchr(line, '\n');

		if (strncmp(p, "Node ", 5) == 0) {
			p += 5;
			while (isdigit((unsigned char)*p))
				p++;
			while (*p == ' ')
				p++;
			if (strncmp(p, key, klen) == 0 && p[klen] == ':') {
				char *end;
				unsigned long long v;

				p += klen + 1;
				while (*p == ' ' || *p == '\t')
					p++;
				if (!isdigit((unsigned char)*p))
					return -EINVAL;
				errno = 0;
				v = strtoull(p, &end, 10);
				if (errno || end == p)
					return -EINVAL;
				while (*end == ' ' || *end == '\t')
					end++;
				if (strncmp(end, "kB", 2) != 0)
					return -EINVAL;
				*kib = v;
				return 0;
			}
		}
		line = eol ? eol + 1 : NULL;
	}
	return -EINVAL;
}

int ctx_parse_meminfo(const char *text, uint64_t *total_kib,
		      uint64_t *free_kib)
{
	uint64_t t, f;

	if (!text || !total_kib || !free_kib)
		return -EINVAL;
	if (meminfo_field(text, "MemTotal", &t) ||
	    meminfo_field(text, "MemFree", &f) || f > t)
		return -EINVAL;
	*total_kib = t;
	*free_kib = f;
	return 0;
}

/*
 * O_NONBLOCK: a FIFO as a counter file, its writer gone or not there yet,
 * must read as empty (or EAGAIN), not hang the agent in open() or read();
 * regular and sysfs files ignore it.
 */
static int read_small(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	while (got < len - 1) {
		ssize_t n = read(fd, buf + got, len - 1 - got);

		if (n < 0) {
			int err = errno;

			if (err == EINTR)
				continue;
			close(fd);
			return -err;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	return 0;
}

static int is_far(uint32_t id, const uint32_t *far, uint32_t nfar)
{
	uint32_t i;

	for (i = 0; i < nfar; i++)
		if (far[i] == id)
			return 1;
	return 0;
}

int ctx_read_mem(const char *sysfs_root, const uint32_t *far, uint32_t nfar,
		 struct ctx_mem *m)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct ctx_mem acc = { 0 };
	struct dirent *de;
	char *buf;
	DIR *d;
	int ret = 0;

	if (!sysfs_root || !m || (nfar && !far))
		return -EINVAL;
	if ((size_t)snprintf(dir, sizeof(dir), "%s/devices/system/node",
			     sysfs_root) >= sizeof(dir))
		return -ENAMETOOLONG;
	d = opendir(dir);
	if (!d)
		return -errno;
	buf = malloc(MEMINFO_MAX);
	if (!buf) {
		closedir(d);
		return -ENOMEM;
	}
	while ((de = readdir(d))) {
		uint64_t total, free;
		unsigned int id;
		char tail;

		if (sscanf(de->d_name, "node%u%c", &id, &tail) != 1 ||
		    id >= CTX_NODE_IDS)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s/meminfo", dir,
				     de->d_name) >= sizeof(path)) {
			ret = -ENAMETOOLONG;
			break;
		}
		ret = read_small(path, buf, MEMINFO_MAX);
		if (ret)
			break;
		ret = ctx_parse_meminfo(buf, &total, &free);
		if (ret)
			break;
		if (is_far(id, far, nfar)) {
			acc.far_total = sat_add(acc.far_total, total);
			acc.far_free = sat_add(acc.far_free, free);
			acc.nfar++;
		} else {
			acc.local_total = sat_add(acc.local_total, total);
			acc.local_free = sat_add(acc.local_free, free);
			acc.nlocal++;
			/* a memoryless (CPU-only) node takes no promotions */
			if (total && (!acc.local_node_min ||
				      total < acc.local_node_min))
				acc.local_node_min = total;
		}
	}
	free(buf);
	closedir(d);
	if (!ret)
		*m = acc;
	return ret;
}

int ctx_read_counter(const char *path, uint64_t *bytes)
{
	char buf[64], *p, *end;
	unsigned long long v;
	int ret;

	if (!path || !bytes)
		return -EINVAL;
	ret = read_small(path, buf, sizeof(buf));
	if (ret)
		return ret;
	for (p = buf; *p == ' ' || *p == '\t'; p++)
		;
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno)
		return -EINVAL;
	while (*end == ' ' || *end == '\t' || *end == '\n')
		end++;
	if (*end)
		return -EINVAL;
	*bytes = v;
	return 0;
}

int ctx_parse_vmstat_demoted(const char *text, uint64_t *pages)
{
	static const char pfx[] = "pgdemote_";
	unsigned long long v;
	uint64_t sum = 0;
	bool seen = false;
	const char *l, *next;
	char *end;

	if (!text || !pages)
		return -EINVAL;
	for (l = text; l; l = next) {
		next = strchr(l, '\n');
		if (next)
			next++;
		if (strncmp(l, pfx, sizeof(pfx) - 1))
			continue;
		l += strcspn(l, " \n");
		if (*l != ' ' || !isdigit((unsigned char)l[1]))
			return -EINVAL;
		errno = 0;
		v = strtoull(l + 1, &end, 10);
		if (errno || (*end && *end != '\n'))
			return -EINVAL;
		sum = sat_add(sum, v);
		seen = true;
	}
	if (!seen)
		return -ENOENT;
	*pages = sum;
	return 0;
}

int ctx_read_vmstat_demoted(const char *path, uint64_t *pages)
{
	char *buf;
	int ret;

	if (!path || !pages)
		return -EINVAL;
	buf = malloc(CTX_VMSTAT_MAX);
	if (!buf)
		return -ENOMEM;
	ret = read_small(path, buf, CTX_VMSTAT_MAX);
	if (!ret)
		ret = ctx_parse_vmstat_demoted(buf, pages);
	free(buf);
	return ret;
}

int ctx_available_gbps(double capacity_gbps, uint64_t prev, uint64_t now,
		       uint64_t own_bytes, double dt_s, double *avail_gbps)
{
	double used, avail, floor;
	uint64_t others;

	if (!avail_gbps || !(capacity_gbps > 0) || !isfinite(capacity_gbps) ||
	    !(dt_s > 0) || !isfinite(dt_s))
		return -EINVAL;
	if (now < prev)
		return -ERANGE;
	/* a counter that missed some of ours: nothing of the others' */
	others = now - prev > own_bytes ? now - prev - own_bytes : 0;
	used = (double)others * 8.0 / dt_s / 1e9;
	avail = capacity_gbps - used;
	floor = CTX_AVAIL_FLOOR * capacity_gbps;
	*avail_gbps = avail > floor ? avail : floor;
	return 0;
}

static double clamp01(double v)
{
	if (!(v > 0.0))		/* also NaN */
		return 0.0;
	return v > 1.0 ? 1.0 : v;
}

static double used_frac(uint64_t total, uint64_t free)
{
	return total ? clamp01((double)(total - (free < total ? free : total)) /
			       (double)total) : 0.0;
}

static double free_norm(uint64_t kib)
{
	return clamp01(log2(1.0 + (double)kib / (1024.0 * 1024.0)) / 12.0);
}

int ctx_build(const struct ctx_epoch *e, const struct ctx_mem *mem,
	      const struct ctx_link *link, double *x)
{
	double secs, gap;

	if (!e || !link || !x || !isfinite(link->bandwidth_gbps) ||
	    !isfinite(link->far_ns) || !isfinite(link->local_ns))
		return -EINVAL;
	secs = (e->ms ? e->ms : 1000) / 1000.0;
	gap = link->far_ns - link->local_ns;
	x[CTX_F_BIAS] = 1.0;
	x[CTX_F_FAULTS] = clamp01(log10(1.0 + (double)e->faults / secs) / 6.0);
	x[CTX_F_PROMOTE] = e->faults ?
		clamp01((double)e->allowed / (double)e->faults) : 0.0;
	x[CTX_F_VETO] = e->faults ?
		clamp01((double)e->vetoes / (double)e->faults) : 0.0;
	x[CTX_F_RATE_P50] = clamp01(log10(1.0 + e->rate_p50) / 10.0);
	x[CTX_F_RATE_P90] = clamp01(log10(1.0 + e->rate_p90) / 10.0);
	x[CTX_F_RATE_P99] = clamp01(log10(1.0 + e->rate_p99) / 10.0);
	x[CTX_F_BURST_P50] = clamp01(log10(1.0 + e->burst_p50) / 6.0);
	x[CTX_F_BURST_P90] = clamp01(log10(1.0 + e->burst_p90) / 6.0);
	x[CTX_F_BURST_P99] = clamp01(log10(1.0 + e->burst_p99) / 6.0);
	if (mem) {
		x[CTX_F_LOCAL_USED] = used_frac(mem->local_total,
						mem->local_free);
		x[CTX_F_FAR_USED] = used_frac(mem->far_total, mem->far_free);
		x[CTX_F_LOCAL_FREE] = free_norm(mem->local_free);
		x[CTX_F_FAR_FREE] = free_norm(mem->far_free);
	} else {
		x[CTX_F_LOCAL_USED] = x[CTX_F_FAR_USED] = 0.0;
		x[CTX_F_LOCAL_FREE] = x[CTX_F_FAR_FREE] = 0.0;
	}
	x[CTX_F_BANDWIDTH] = clamp01(log10(1.0 + link->bandwidth_gbps) / 4.0);
	x[CTX_F_DELAY] = clamp01(log10(1.0 + (gap > 0 ? gap : 0)) / 7.0);
	return 0;
}
