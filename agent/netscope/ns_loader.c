// SPDX-License-Identifier: GPL-2.0
/* Loads, pins, attaches and registers Netscope's programs: see ns_loader.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "linux/indigo_netscope.h"
#include "ns_layout.h"
#include "ns_loader.h"
#include "ns_maps.h"
#include "ns_netns.h"
#include "netscope_sockops.skel.h"
#include "netscope_cc.skel.h"

#define BPF_FS_MAGIC	0xcafe4a11

struct ns_loader {
	struct ns_sockops *so;
	struct ns_cc *cc;
	struct bpf_link *cc_link;
	int cc_lock;			/* held while cc_link is ours, or -1 */
	int cc_err;
	bool cc_replaced;
	struct bpf_link *links[NS_ATTACH_MAX];
	size_t nlinks;
	struct ns_adopt adopt;
};

int ns_pin_dir_make(void)
{
	struct statfs fs;

	if (statfs("/sys/fs/bpf", &fs))
		return -errno;
	if (fs.f_type != BPF_FS_MAGIC &&
	    mount("bpf", "/sys/fs/bpf", "bpf", 0, "mode=0700"))
		return -errno;
	if (mkdir(NS_PIN_DIR, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

/* libbpf's own messages go nowhere: callers report the errors returned. */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/*
 * A map pinned by an older build with another layout cannot be reused:
 * unpin it so that this load makes a fresh one (its state is lost, which a
 * layout change makes unavoidable).
 */
static void drop_stale_pins(struct bpf_object *obj)
{
	struct bpf_map_info info;
	struct bpf_map *map;
	__u32 len;
	int fd;

	bpf_object__for_each_map(map, obj) {
		const char *path = bpf_map__pin_path(map);

		if (!path)
			continue;
		fd = bpf_obj_get(path);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) &&
		    (info.type != bpf_map__type(map) ||
		     info.key_size != bpf_map__key_size(map) ||
		     info.value_size != bpf_map__value_size(map) ||
		     info.max_entries != bpf_map__max_entries(map) ||
		     info.map_flags != bpf_map__map_flags(map) ||
		     !ns_map_same_btf(&info, obj, bpf_map__name(map))))
			unlink(path);
		close(fd);
	}
}

/*
 * The CC is registered without a struct_ops link (kernels before 6.4 have
 * none), so the kernel keeps it after its agent is killed, and refuses the
 * name to the next one. Unregister such a "netscope", any but @own, so
 * that a restarted agent comes back with its own programs. Only for the
 * holder of cc_lock(): a running agent's CC looks the same.
 */
static int drop_orphan_cc(int own)
{
	struct bpf_map_info info, mine = { 0 };
	__u32 id = 0, len = sizeof(mine);
	int fd, zero = 0, ret = -EEXIST;	/* none to drop: still taken */

	if (bpf_obj_get_info_by_fd(own, &mine, &len))
		return -errno;
	while (!bpf_map_get_next_id(id, &id)) {
		fd = bpf_map_get_fd_by_id(id);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && id != mine.id &&
		    info.type == BPF_MAP_TYPE_STRUCT_OPS &&
		    !strcmp(info.name, mine.name))
			ret = bpf_map_delete_elem(fd, &zero) ? -errno : 0;
		close(fd);
	}
	return ret;
}

/*
 * The agent whose "netscope" CC is registered holds a lock on the pin
 * directory while it lives: the kernel drops it with a killed agent, whose
 * CC stays. Taken: the fd. Held by a running agent: -EEXIST.
 */
static int cc_lock(void)
{
	int fd = open(NS_PIN_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int err;

	if (fd < 0)
		return -errno;
	if (!flock(fd, LOCK_EX | LOCK_NB))
		return fd;
	err = errno == EWOULDBLOCK ? EEXIST : errno;
	close(fd);
	return -err;
}

static int cc_attach(struct ns_loader *l, const struct ns_load_opts *o)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .pin_root_path = NS_PIN_DIR);
	int ret;

	l->cc = ns_cc__open_opts(&oo);
	if (!l->cc)
		return -errno;
	if (o->cc_target_us)
		l->cc->rodata->target_base_us = o->cc_target_us;
	drop_stale_pins(l->cc->obj);
	ret = ns_cc__load(l->cc);
	if (ret)
		return ret;
	l->cc_link = bpf_map__attach_struct_ops(l->cc->maps.netscope);
	if (!l->cc_link && errno == EEXIST) {
		ret = drop_orphan_cc(bpf_map__fd(l->cc->maps.netscope));
		if (ret)
			return ret;
		l->cc_replaced = true;
		l->cc_link = bpf_map__attach_struct_ops(l->cc->maps.netscope);
	}
	return l->cc_link ? 0 : -errno;
}

static int cc_register(struct ns_loader *l, const struct ns_load_opts *o)
{
	int ret;

	l->cc_lock = cc_lock();
	if (l->cc_lock < 0)
		return l->cc_lock;
	ret = cc_attach(l, o);
	if (ret) {
		close(l->cc_lock);
		l->cc_lock = -1;
	}
	return ret;
}

/* Before the program is attached: no flow meets the map half written. */
static int host_peers_write(struct ns_loader *l, const struct ns_load_opts *o)
{
	int fd = bpf_map__fd(l->so->maps.ns_host_peers);
	__u8 one = 1;
	size_t i;

	for (i = 0; i < o->host_peers.n; i++)
		if (bpf_map_update_elem(fd, &o->host_peers.p[i], &one, BPF_ANY))
			return -errno;
	return 0;
}

/* Before the program is attached too: no flow in an application's child
 * cgroup is counted under the child's id. */
static int apps_write(struct ns_loader *l, const struct ns_load_opts *o)
{
	size_t i;
	int ret;

	for (i = 0; i < o->napps; i++) {
		ret = ns_loader_app_move(l, 0, o->apps[i]);
		if (ret)
			return ret;
	}
	return 0;
}

int ns_loader_app_move(struct ns_loader *l, uint64_t from, uint64_t to)
{
	int fd = bpf_map__fd(l->so->maps.ns_apps);
	__u64 key = from;
	__u8 one = 1;

	/* first: the map holds NS_APPS_MAX, as many as there are apps */
	if (from && bpf_map_delete_elem(fd, &key) && errno != ENOENT)
		return -errno;
	key = to;
	return bpf_map_update_elem(fd, &key, &one, BPF_ANY) ? -errno : 0;
}

/* Before the program is attached, as ns_apps: for netscope_adopt. */
static int attached_write(struct ns_loader *l, const struct ns_load_opts *o)
{
	int fd = bpf_map__fd(l->so->maps.ns_attached);
	__u8 one = 1;
	uint64_t id;
	size_t i;
	int ret;

	for (i = 0; i < o->ncgroups; i++) {
		ret = ns_cgroup_id(o->cgroups[i], &id);
		if (ret)
			return ret;
		if (bpf_map_update_elem(fd, &id, &one, BPF_ANY))
			return -errno;
	}
	return 0;
}

/* netscope_adopt over the sockets of the namespace the thread is in. */
static int adopt_here(void *link)
{
	char buf[64];
	ssize_t n;
	int fd;

	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0)
		return -errno;
	/* it prints nothing: reading to the end runs it over them all */
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	close(fd);
	return n < 0 ? -errno : 0;
}

/*
 * After the program is attached: a flow established since has its state,
 * which the iterator passes by. Flows left unseen are reported, not fatal.
 */
static void flows_adopt(struct ns_loader *l)
{
	struct bpf_link *link;

	link = bpf_program__attach_iter(l->so->progs.netscope_adopt, NULL);
	if (!link) {
		l->adopt.err = -errno;
		return;
	}
	l->adopt.err = ns_netns_each(adopt_here, link,
				     &l->adopt.netns_skipped);
	bpf_link__destroy(link);
	l->adopt.taken = l->so->bss->adopt_taken;
	l->adopt.missed = l->so->bss->adopt_missed;
}

/*
 * A new counting epoch, before the program is attached: flows that closed
 * while none was attached leave the counts (ns_cg_stats.count_epoch).
 */
static int epoch_next(struct ns_loader *l)
{
	int fd = bpf_map__fd(l->so->maps.ns_epoch);
	__u32 zero = 0, e;

	if (bpf_map_lookup_elem(fd, &zero, &e))
		return -errno;
	e = e + 1 ? e + 1 : 1;	/* 0: a flow counted in none */
	return bpf_map_update_elem(fd, &zero, &e, BPF_ANY) ? -errno : 0;
}

int ns_loader_open(struct ns_loader **out, const struct ns_load_opts *o,
		   const char **why)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .pin_root_path = NS_PIN_DIR);
	struct ns_loader *l;
	int ret, fd;
	size_t i;

	if (o->ncgroups > NS_ATTACH_MAX || o->napps > NS_APPS_MAX) {
		*why = "too many cgroups";
		return -E2BIG;
	}
	l = calloc(1, sizeof(*l));
	if (!l) {
		*why = "memory";
		return -ENOMEM;
	}
	l->cc_lock = -1;
	if (!getenv("INDIGO_BPF_DEBUG"))
		libbpf_set_print(quiet);
	*why = "bpffs at /sys/fs/bpf";
	ret = ns_pin_dir_make();
	if (ret)
		goto fail;
	*why = "sock_ops program";
	l->so = ns_sockops__open_opts(&oo);
	if (!l->so) {
		ret = -errno;
		goto fail;
	}
	drop_stale_pins(l->so->obj);
	l->so->rodata->with_loopback = o->loopback;
	ret = ns_sockops__load(l->so);
	if (ret)
		goto fail;
	*why = "peers on the host (ns_host_peers)";
	ret = host_peers_write(l, o);
	if (ret)
		goto fail;
	*why = "applications' cgroups (ns_apps)";
	ret = apps_write(l, o);
	if (ret)
		goto fail;
	*why = "attached cgroups (ns_attached)";
	ret = attached_write(l, o);
	if (ret)
		goto fail;
	*why = "flow counting epoch (ns_epoch)";
	ret = epoch_next(l);
	if (ret)
		goto fail;
	for (i = 0; i < o->ncgroups; i++) {
		*why = o->cgroups[i];
		fd = open(o->cgroups[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			ret = -errno;
			goto fail;
		}
		l->links[i] = bpf_program__attach_cgroup(l->so->progs.netscope_sockops, fd);
		ret = -errno;
		close(fd);
		if (!l->links[i])
			goto fail;
		l->nlinks++;
	}
	l->cc_err = o->want_cc ? cc_register(l, o) : -ENOTSUP;
	/* after the CC: a policy that names it finds it registered */
	flows_adopt(l);
	*out = l;
	return 0;
fail:
	ns_loader_close(l);
	return ret;
}

int ns_loader_cc_status(const struct ns_loader *l)
{
	return l->cc_err;
}

const struct ns_adopt *ns_loader_adopt(const struct ns_loader *l)
{
	return &l->adopt;
}

bool ns_loader_cc_replaced(const struct ns_loader *l)
{
	return l->cc_replaced;
}

uint32_t ns_loader_prog_id(const struct ns_loader *l)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(bpf_program__fd(l->so->progs.netscope_sockops),
				   &info, &len))
		return 0;
	return info.id;
}

int ns_loader_map_fd(const struct ns_loader *l, enum ns_map m)
{
	switch (m) {
	case NS_MAP_STATS:
		return bpf_map__fd(l->so->maps.ns_cg_stats);
	case NS_MAP_POLICY:
		return bpf_map__fd(l->so->maps.ns_policy);
	case NS_MAP_CTRL:
		return bpf_map__fd(l->so->maps.ns_ctrl);
	case NS_MAP_LINK:
		return bpf_map__fd(l->so->maps.ns_link);
	case NS_MAP_EPOCH:
		return bpf_map__fd(l->so->maps.ns_epoch);
	}
	return -EINVAL;
}

void ns_loader_close(struct ns_loader *l)
{
	size_t i;

	if (!l)
		return;
	bpf_link__destroy(l->cc_link);	/* unregisters "netscope" */
	ns_cc__destroy(l->cc);
	if (l->cc_lock >= 0)
		close(l->cc_lock);
	for (i = 0; i < l->nlinks; i++)
		bpf_link__destroy(l->links[i]);
	ns_sockops__destroy(l->so);
	free(l);
}
