// SPDX-License-Identifier: GPL-2.0
/*
 * The GPU tier's owner: one backend, the GPUs it found, their node map and
 * link figures. Discovery and probing go through the backend's operations,
 * so everything here runs in tests over a fake one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "backend.h"
#include "costmodel.h"
#include "errbuf.h"
#include "probe.h"
#include "topo.h"

struct gpu_tier {
	struct gpu_config cfg;
	struct gpu_backend *b;
	size_t n;
	struct gpu_info gpus[GPU_MAX];
	struct gpu_tier_map map;
};

const char *gpu_dir_name(enum gpu_dir d)
{
	return d == GPU_H2D ? "h2d" : d == GPU_D2H ? "d2h" : "?";
}

const char *gpu_host_mem_name(enum gpu_host_mem m)
{
	return m == GPU_PINNED ? "pinned" : m == GPU_PAGEABLE ? "pageable" : "?";
}

/*
 * The host node nearest the GPU: sysfs's word for its PCI function (what
 * the kernel itself uses), else the driver's, else -1.
 */
static int host_node(const struct gpu_tier *t, const struct gpu_dev_desc *d,
		     const char *pci)
{
	int node;

	if (!gpu_pci_numa_node(t->cfg.sysfs_root, pci, &node) && node >= 0)
		return node;
	return d->host_node >= 0 ? d->host_node : -1;
}

static int discover(struct gpu_tier *t, char *err, size_t n)
{
	struct gpu_dev_desc d;
	struct gpu_info *g;
	int count, i, code;

	code = t->b->ops->count(t->b, &count);
	if (code)
		return gpu_backend_fail(t->b, code, err, n, "counting GPUs");
	if (count <= 0)
		return errbuf_set(err, n, -ENODEV, "no GPU found");
	/* Beyond GPU_MAX, the first ones stand for the rest */
	t->n = count < GPU_MAX ? (size_t)count : GPU_MAX;
	for (i = 0; i < (int)t->n; i++) {
		g = &t->gpus[i];
		code = t->b->ops->describe(t->b, i, &d);
		if (code)
			return gpu_backend_fail(t->b, code, err, n,
						"GPU %d: reading its properties", i);
		if (gpu_pci_name(d.busid, g->pci, sizeof(g->pci)))
			return errbuf_set(err, n, -EIO, "GPU %d: unreadable PCI bus id \"%.32s\"",
				   i, d.busid);
		g->ordinal = i;
		memcpy(g->name, d.name, sizeof(g->name));
		g->name[sizeof(g->name) - 1] = '\0';
		g->mem_bytes = d.mem_bytes;
		g->cc_major = d.cc_major;
		g->cc_minor = d.cc_minor;
		g->mem_node = d.mem_node >= 0 ? d.mem_node : -1;
		g->host_node = host_node(t, &d, g->pci);
	}
	return 0;
}

static int build_map(struct gpu_tier *t, char *err, size_t n)
{
	int mem_node[GPU_MAX];
	struct gpu_topo topo;
	size_t i;
	int e;

	e = gpu_topo_read(t->cfg.sysfs_root, &topo);
	if (e)
		return errbuf_set(err, n, e, "reading NUMA nodes under %s/devices/system/node: %s",
			   t->cfg.sysfs_root, strerror(-e));
	for (i = 0; i < t->n; i++)
		mem_node[i] = t->gpus[i].mem_node;
	return gpu_tiers_build(&topo, mem_node, t->n, t->cfg.nodes, &t->map,
			       err, n);
}

int gpu_tier_probe(struct gpu_tier *t, char *err, size_t errlen)
{
	struct gpu_link link[GPU_MAX];
	struct gpu_probe_plan plan;
	size_t i;
	int e;

	if (!t)
		return -EINVAL;
	gpu_probe_plan_from(&t->cfg, &plan);
	/* All or nothing: figures from one probe, never half of two */
	for (i = 0; i < t->n; i++) {
		e = gpu_probe_dev(t->b, t->gpus[i].ordinal,
				  t->gpus[i].host_node, &plan, &link[i], err,
				  errlen);
		if (e)
			return e;
	}
	for (i = 0; i < t->n; i++)
		t->gpus[i].link = link[i];
	return 0;
}

int gpu_tier_start_backend(const struct gpu_config *cfg, struct gpu_backend *b,
			   struct gpu_tier **out, char *err, size_t errlen)
{
	struct gpu_tier *t;
	int e;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t) {
		b->ops->close(b);
		return errbuf_set(err, errlen, -ENOMEM, "out of memory");
	}
	t->cfg = *cfg;
	t->b = b;
	e = discover(t, err, errlen);
	if (!e)
		e = build_map(t, err, errlen);
	if (!e)
		e = gpu_tier_probe(t, err, errlen);
	if (e) {
		gpu_tier_stop(t);
		return e;
	}
	*out = t;
	return 0;
}

int gpu_tier_start(const struct gpu_config *cfg, struct gpu_tier **out,
		   char *err, size_t errlen)
{
	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!cfg)
		return -EINVAL;
	if (!cfg->enable)
		return errbuf_set(err, errlen, -ENOTSUP, "GPU tier switched off (gpu.enable = no)");
#ifdef INDIGO_GPU
	struct gpu_backend *b;
	int e = gpu_driver_open(cfg->driver, &b, err, errlen);

	return e ? e : gpu_tier_start_backend(cfg, b, out, err, errlen);
#else
	return errbuf_set(err, errlen, -ENOTSUP,
		   "GPU backend left out at build time (no cuda.h)");
#endif
}

size_t gpu_tier_gpus(const struct gpu_tier *t, const struct gpu_info **gpus)
{
	*gpus = t ? t->gpus : NULL;
	return t ? t->n : 0;
}

const struct gpu_tier_map *gpu_tier_nodes(const struct gpu_tier *t)
{
	return t ? &t->map : NULL;
}

int gpu_tier_driver_version(const struct gpu_tier *t)
{
	return t ? t->b->version : 0;
}

/*
 * Pinned figures: the kernel migrates pages by DMA from pinned memory, so
 * those, not the pageable ones, are what a promotion costs.
 */
int gpu_tier_cm_link(const struct gpu_tier *t, size_t gpu, enum gpu_dir dir,
		     const struct cm_link *base, struct cm_link *out)
{
	const struct gpu_xfer *x;
	struct cm_link l;
	double fixed_ns;

	if (!t || gpu >= t->n || (dir != GPU_H2D && dir != GPU_D2H) || !base ||
	    !out)
		return -EINVAL;
	x = &t->gpus[gpu].link.x[dir][GPU_PINNED];
	l = *base;
	l.bandwidth = x->batch_bw;
	if (cm_link_check(&l))
		return -EINVAL;
	/* lat_ns timed a copy of probe_page_bytes, not of the model's page */
	fixed_ns = x->lat_ns - t->cfg.probe_page_bytes / l.bandwidth * 1e9;
	if (fixed_ns > 0)
		l.k_ns += fixed_ns;
	*out = l;
	return 0;
}

/* Adds @v as @key of @o, taking it; -ENOMEM if @v is NULL or adding fails. */
static int put(struct json_object *o, const char *key, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_object_add(o, key, v)) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

static struct json_object *nodes_json(const struct gpu_tier_map *m)
{
	const struct { const char *key; const struct gpu_nodeset *set; } l[] = {
		{ "local", &m->local }, { "far", &m->far },
		{ "fast", &m->fast }, { "ignored", &m->ignored },
	};
	struct json_object *o = json_object_new_object();
	char buf[GPU_NODE_IDS * 5];
	size_t i;
	int e = !o;

	for (i = 0; i < sizeof(l) / sizeof(l[0]) && !e; i++)
		e = gpu_nodeset_format(l[i].set, buf, sizeof(buf)) ||
		    put(o, l[i].key, json_object_new_string(buf));
	if (e) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *link_json(const struct gpu_link *k)
{
	struct json_object *o = json_object_new_object(), *dir, *x;
	int d, m, e = !o;

	for (d = 0; d < GPU_NDIR && !e; d++) {
		dir = json_object_new_object();
		e = put(o, gpu_dir_name(d), dir);
		for (m = 0; m < GPU_NMEM && !e; m++) {
			x = json_object_new_object();
			e = put(dir, gpu_host_mem_name(m), x);
			if (!e)
				e = put(x, "lat_ns", json_object_new_double(k->x[d][m].lat_ns)) ||
				    put(x, "page_bw", json_object_new_double(k->x[d][m].page_bw)) ||
				    put(x, "batch_bw", json_object_new_double(k->x[d][m].batch_bw));
		}
	}
	if (!e)
		e = put(o, "busy_s", json_object_new_double(k->busy_s)) ||
		    put(o, "wall_s", json_object_new_double(k->wall_s)) ||
		    put(o, "probed_at", json_object_new_int64(k->probed_at));
	if (e) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *gpu_json(const struct gpu_info *g)
{
	struct json_object *o = json_object_new_object();
	int e = !o;

	if (!e)
		e = put(o, "ordinal", json_object_new_int(g->ordinal)) ||
		    put(o, "name", json_object_new_string(g->name)) ||
		    put(o, "pci", json_object_new_string(g->pci)) ||
		    put(o, "mem_bytes", json_object_new_int64((int64_t)g->mem_bytes)) ||
		    put(o, "cc_major", json_object_new_int(g->cc_major)) ||
		    put(o, "cc_minor", json_object_new_int(g->cc_minor)) ||
		    put(o, "host_node", json_object_new_int(g->host_node)) ||
		    put(o, "mem_node", json_object_new_int(g->mem_node)) ||
		    put(o, "link", link_json(&g->link));
	if (e) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

int gpu_tier_json(const struct gpu_tier *t, struct json_object *obj)
{
	struct json_object *o, *arr;
	size_t i;
	int e;

	if (!t || !obj)
		return -EINVAL;
	o = json_object_new_object();
	if (!o)
		return -ENOMEM;
	e = put(o, "driver_version", json_object_new_int(t->b->version)) ||
	    put(o, "nodes_mode", json_object_new_string(gpu_nodes_mode_name(t->cfg.nodes))) ||
	    put(o, "nodes", nodes_json(&t->map));
	if (!e) {
		arr = json_object_new_array();
		e = put(o, "gpus", arr);
	}
	for (i = 0; i < t->n && !e; i++) {
		struct json_object *g = gpu_json(&t->gpus[i]);

		if (!g || json_object_array_add(arr, g)) {
			json_object_put(g);
			e = 1;
		}
	}
	if (!e)
		e = put(obj, "gpu", o);
	else
		json_object_put(o);
	return e ? -ENOMEM : 0;
}

void gpu_tier_stop(struct gpu_tier *t)
{
	if (!t)
		return;
	t->b->ops->close(t->b);
	free(t);
}
