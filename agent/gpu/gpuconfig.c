// SPDX-License-Identifier: GPL-2.0
/*
 * The [gpu] section's keys. The agent's INI reader hands each key here;
 * messages read "KEY: what is wrong" for it to prefix with FILE:LINE.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "num.h"
#include "probe.h"

#define SHOW_MAX	48	/* characters of a bad value quoted back */

void gpu_config_defaults(struct gpu_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->enable = true;
	strcpy(cfg->driver, "libcuda.so.1");
	strcpy(cfg->sysfs_root, "/sys");
	cfg->nodes = GPU_NODES_FAR;	/* what the module does with CPU-less nodes */
	cfg->probe_share = 0.05;
	cfg->probe_page_bytes = 4096;
	cfg->probe_batch_kib = 16384;
	cfg->probe_reps = 8;
}

#define STR_(x)	#x
#define STR(x)	STR_(x)

static int bad(char *err, size_t n, const char *key, const char *fmt,
	       const char *v)
{
	char show[SHOW_MAX + 1];
	size_t i;
	int k;

	for (i = 0; i < SHOW_MAX && v[i]; i++)
		show[i] = isprint((unsigned char)v[i]) ? v[i] : '?';
	show[i] = '\0';
	if (err && n) {
		k = snprintf(err, n, "%s: ", key);
		if (k >= 0 && (size_t)k < n)
			snprintf(err + k, n - k, fmt, show);
	}
	return -EINVAL;
}

static int set_u32(uint32_t *dst, const char *key, const char *v,
		   uint32_t lo, uint32_t hi, char *err, size_t n)
{
	char fmt[96];
	uint64_t u = 0;
	int ret;

	ret = num_u64(v, hi, &u);
	if (ret == -EINVAL)
		return bad(err, n, key, "\"%s\" is not a whole number", v);
	if (ret || u < lo) {
		snprintf(fmt, sizeof(fmt), "%%s is out of range %u-%u", lo, hi);
		return bad(err, n, key, fmt, v);
	}
	*dst = (uint32_t)u;
	return 0;
}

static int set_path(char *dst, const char *key, const char *v, char *err,
		    size_t n)
{
	if (!*v)
		return bad(err, n, key, "an empty path%s", v);
	if (strlen(v) >= GPU_PATH_MAX)
		return bad(err, n, key, "\"%s\" is longer than 255 bytes", v);
	strcpy(dst, v);
	return 0;
}

static int set_choice(int *dst, const char *key, const char *v,
		      const char *const *choices, const char *list, char *err,
		      size_t n)
{
	char fmt[96];
	int i;

	for (i = 0; choices[i]; i++)
		if (!strcmp(v, choices[i])) {
			*dst = i;
			return 0;
		}
	snprintf(fmt, sizeof(fmt), "\"%%s\" is not one of %s", list);
	return bad(err, n, key, fmt, v);
}

int gpu_config_set(struct gpu_config *cfg, const char *key, const char *value,
		   char *err, size_t errlen)
{
	static const char *const yesno[] = { "no", "yes", NULL };
	static const char *const modes[] = { "far", "fast", "ignore", NULL };
	struct gpu_config c;
	int e, i;

	if (!cfg || !key || !value)
		return -EINVAL;
	c = *cfg;
	if (!strcmp(key, "enable")) {
		i = c.enable;
		e = set_choice(&i, key, value, yesno, "yes, no", err, errlen);
		c.enable = i;
	} else if (!strcmp(key, "driver")) {
		e = set_path(c.driver, key, value, err, errlen);
	} else if (!strcmp(key, "sysfs_root")) {
		e = set_path(c.sysfs_root, key, value, err, errlen);
	} else if (!strcmp(key, "nodes")) {
		e = set_choice(&c.nodes, key, value, modes, "far, fast, ignore",
			       err, errlen);
	} else if (!strcmp(key, "probe_share")) {
		e = num_double(value, &c.probe_share);
		if (e == -EINVAL)
			e = bad(err, errlen, key, "\"%s\" is not a number", value);
		else if (e || c.probe_share < GPU_PROBE_SHARE_MIN ||
			 c.probe_share > 1)
			e = bad(err, errlen, key, "%s is out of range ["
				STR(GPU_PROBE_SHARE_MIN) ", 1]", value);
	} else if (!strcmp(key, "probe_page_bytes")) {
		e = set_u32(&c.probe_page_bytes, key, value, 512, 2097152, err,
			    errlen);
	} else if (!strcmp(key, "probe_batch_kib")) {
		e = set_u32(&c.probe_batch_kib, key, value, 64, 1048576, err,
			    errlen);
	} else if (!strcmp(key, "probe_reps")) {
		e = set_u32(&c.probe_reps, key, value, 1, PROBE_REPS_MAX, err,
			    errlen);
	} else {
		e = bad(err, errlen, key, "unknown key%s", "");
	}
	if (e)
		return e;
	*cfg = c;
	return 0;
}

int gpu_config_check(const struct gpu_config *cfg, char *err, size_t errlen)
{
	if ((uint64_t)cfg->probe_batch_kib * 1024 >= cfg->probe_page_bytes)
		return 0;
	if (err && errlen)
		snprintf(err, errlen,
			 "probe_batch_kib (%u KiB) is below probe_page_bytes (%u bytes)",
			 cfg->probe_batch_kib, cfg->probe_page_bytes);
	return -EINVAL;
}
