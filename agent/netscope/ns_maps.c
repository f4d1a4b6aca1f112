// SPDX-License-Identifier: GPL-2.0
/* Netscope's pinned maps from userspace: see ns_maps.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#define FILEID_KERNFS	0xfe	/* kernfs's file handle type: the node's id */
#define CGROUP2_SUPER_MAGIC	0x63677270

#include "ns_layout.h"
#include "ns_maps.h"

/*
 * A map pinned by another version of Netscope (its agent not restarted
 * since) may have another layout: a lookup copies the map's value size
 * into ours, an update gives its program ours to read as its own, and
 * one of the same size with its fields moved or renamed reads as
 * nonsense. -EPROTO for one whose sizes are not this version's, or whose
 * BTF is not @ref's.
 */
static int get_pinned(const struct bpf_object *ref, const char *name,
		      __u32 key_size, __u32 value_size, int *fd)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);
	char path[128];
	int ret;

	snprintf(path, sizeof(path), NS_PIN_DIR "/%s", name);
	*fd = bpf_obj_get(path);
	if (*fd < 0)
		return -errno;
	if (bpf_obj_get_info_by_fd(*fd, &info, &len))
		ret = -errno;
	else if (info.key_size != key_size || info.value_size != value_size ||
		 !ns_map_same_btf(&info, ref, name))
		ret = -EPROTO;
	else
		return 0;
	close(*fd);
	*fd = -1;
	return ret;
}

int ns_maps_open(struct ns_maps *m, const struct bpf_object *ref,
		 const char **which)
{
	const struct {
		const char *name;
		__u32 key_size, value_size;
		int *fd;
	} maps[] = {
		{ "ns_cg_stats", sizeof(__u64), sizeof(struct ns_cg_stats),
		  &m->stats },
		{ "ns_policy", sizeof(__u64), sizeof(struct ns_policy),
		  &m->policy },
		{ "ns_ctrl", sizeof(__u64), sizeof(struct ns_ctrl), &m->ctrl },
		{ "ns_link", sizeof(__u32), sizeof(struct ns_link_view),
		  &m->link },
		{ "ns_epoch", sizeof(__u32), sizeof(__u32), &m->epoch },
	};
	size_t i;
	int ret = 0;

	m->stats = m->policy = m->ctrl = m->link = m->epoch = -1;
	for (i = 0; !ret && i < sizeof(maps) / sizeof(maps[0]); i++) {
		*which = maps[i].name;
		ret = get_pinned(ref, maps[i].name, maps[i].key_size,
				 maps[i].value_size, maps[i].fd);
	}
	if (ret)
		ns_maps_close(m);
	return ret;
}

void ns_maps_close(struct ns_maps *m)
{
	if (m->stats >= 0)
		close(m->stats);
	if (m->policy >= 0)
		close(m->policy);
	if (m->ctrl >= 0)
		close(m->ctrl);
	if (m->link >= 0)
		close(m->link);
	if (m->epoch >= 0)
		close(m->epoch);
	m->stats = m->policy = m->ctrl = m->link = m->epoch = -1;
}

static int lookup(int fd, uint64_t key, void *val)
{
	return bpf_map_lookup_elem(fd, &key, val) ? -errno : 0;
}

int ns_stats_get(const struct ns_maps *m, uint64_t cgid, struct ns_cg_stats *s)
{
	uint32_t zero = 0, epoch;
	int ret;

	ret = lookup(m->stats, cgid, s);
	if (ret)
		return ret;
	if (bpf_map_lookup_elem(m->epoch, &zero, &epoch))
		return -errno;
	/* counts of an earlier epoch: no flow seen since the last start */
	if (s->count_epoch != epoch)
		s->live_flows = s->bulk_flows = 0;
	return 0;
}

int ns_policy_get(const struct ns_maps *m, uint64_t cgid, struct ns_policy *p)
{
	return lookup(m->policy, cgid, p);
}

int ns_ctrl_get(const struct ns_maps *m, uint64_t cgid, struct ns_ctrl *c)
{
	return lookup(m->ctrl, cgid, c);
}

/*
 * Stores @p at the generation after @old's (NULL: the cgroup had none).
 * A cgroup's first is drawn from its id: the program checks its copy of
 * an entry by gen alone, and the element an update replaced is the CPU's
 * next update's, any cgroup's; two cgroups' gens counted from one start
 * move in step, and a flow could take an equal gen's entry of the other
 * cgroup for its own, and keep that policy as applied.
 */
static int put_after(const struct ns_maps *m, uint64_t cgid, struct ns_policy *p,
		     const struct ns_policy *old)
{
	p->gen = old ? old->gen + 1 :
		 (uint32_t)((cgid * 0x9e3779b97f4a7c15ULL) >> 32);
	if (!p->gen)		/* 0 means "never applied" to the flows */
		p->gen = 1;
	return bpf_map_update_elem(m->policy, &cgid, p, BPF_ANY) ? -errno : 0;
}

/* The lock file, its directory made where missing (no unit made it). */
static int lock_open(void)
{
	char dir[PATH_MAX], *slash;
	int fd = open(NS_POLICY_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	if (fd >= 0 || errno != ENOENT)
		return fd >= 0 ? fd : -errno;
	snprintf(dir, sizeof(dir), "%s", NS_POLICY_LOCK);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	fd = open(NS_POLICY_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	return fd >= 0 ? fd : -errno;
}

#define LOCK_NAP_MS	5

/* NS_POLICY_LOCK held: its fd (closing it lets go), or -errno. Polled,
 * not waited for in flock(): a holder that is stuck must not stop a
 * controller, whose intervals go on. */
static int policy_lock(int wait_ms)
{
	const struct timespec nap = { .tv_nsec = LOCK_NAP_MS * 1000000L };
	int fd = lock_open(), waited = 0, ret;

	if (fd < 0)
		return fd;
	while (flock(fd, LOCK_EX | LOCK_NB)) {
		ret = -errno;
		if ((ret != -EWOULDBLOCK && ret != -EINTR) || waited >= wait_ms) {
			close(fd);
			return ret;
		}
		nanosleep(&nap, NULL);
		waited += LOCK_NAP_MS;
	}
	return fd;
}

/* ns_policy_update() with NS_POLICY_LOCK held */
static int update_locked(const struct ns_maps *m, uint64_t cgid,
			 ns_policy_fn fn, void *arg)
{
	struct ns_policy old, p = { 0 };
	bool have = !ns_policy_get(m, cgid, &old);
	int ret;

	if (have)
		p = old;
	ret = fn(&p, have ? &old : NULL, arg);
	if (ret <= 0)
		return ret;
	ret = put_after(m, cgid, &p, have ? &old : NULL);
	return ret ? ret : 1;
}

int ns_policy_update(const struct ns_maps *m, uint64_t cgid, ns_policy_fn fn,
		     void *arg, int wait_ms)
{
	int fd = policy_lock(wait_ms), ret;

	if (fd < 0)
		return fd;
	ret = update_locked(m, cgid, fn, arg);
	close(fd);
	return ret;
}

static bool is_neutral(const struct ns_policy *p)
{
	const struct ns_policy zero = { .gen = p->gen };

	return !memcmp(p, &zero, sizeof(zero));
}

static int neutral(struct ns_policy *p, const struct ns_policy *old, void *arg)
{
	(void)arg;
	if (!old)
		return -ENOENT;
	*p = (struct ns_policy){ 0 };
	return 1;
}

int ns_policy_neutral(const struct ns_maps *m, uint64_t cgid)
{
	int ret = ns_policy_update(m, cgid, neutral, NULL,
				   NS_POLICY_LOCK_WAIT_MS);

	return ret < 0 ? ret : 0;
}

/* A controller is gone once its program is: no process holds it any more. */
static bool owner_gone(uint32_t owner)
{
	int fd;

	if (!owner)
		return true;
	fd = bpf_prog_get_fd_by_id(owner);
	if (fd >= 0)
		close(fd);
	return fd < 0 && errno == ENOENT;
}

/* gone meanwhile (its cgroup forgotten): nothing to release */
static int release(struct ns_policy *p, const struct ns_policy *old, void *arg)
{
	uint32_t owner = *(const uint32_t *)arg;

	if (!old || old->flags & NS_POLICY_FIXED || is_neutral(old) ||
	    (old->owner != owner && !owner_gone(old->owner)))
		return 0;
	*p = (struct ns_policy){ 0 };
	return 1;
}

int ns_policy_release_one(const struct ns_maps *m, uint64_t cgid,
			  uint32_t owner)
{
	int ret = ns_policy_update(m, cgid, release, &owner,
				   NS_POLICY_LOCK_WAIT_MS);

	return ret < 0 ? ret : 0;
}

int ns_policy_release(const struct ns_maps *m, uint32_t owner)
{
	/* the keys first: an updated hash entry moves to the head of its
	 * bucket, where a walk could meet it again; and each once, or a key
	 * deleted under the walk (by another agent) fills the list with
	 * those seen again before the last ones are reached */
	uint64_t keys[NS_CGROUPS_MAX];
	int fd = policy_lock(NS_POLICY_LOCK_WAIT_MS), n, i, ret, first;

	if (fd < 0)
		return fd;
	n = ns_map_keys(m->policy, keys);
	first = n < 0 ? n : 0;
	for (i = 0; i < n; i++) {
		ret = update_locked(m, keys[i], release, &owner);
		if (ret < 0 && !first)
			first = ret;
	}
	close(fd);
	return first;
}

int ns_ctrl_put(const struct ns_maps *m, uint64_t cgid, const struct ns_ctrl *c)
{
	return bpf_map_update_elem(m->ctrl, &cgid, c, BPF_ANY) ? -errno : 0;
}

int ns_link_view_get(const struct ns_maps *m, struct ns_link_view *v)
{
	uint32_t key = 0;

	return bpf_map_lookup_elem(m->link, &key, v) ? -errno : 0;
}

int ns_link_view_put(const struct ns_maps *m, const struct ns_link_view *v)
{
	uint32_t key = 0;

	return bpf_map_update_elem(m->link, &key, v, BPF_ANY) ? -errno : 0;
}

void ns_maps_forget(const struct ns_maps *m, uint64_t cgid)
{
	bpf_map_delete_elem(m->stats, &cgid);
	bpf_map_delete_elem(m->policy, &cgid);
	bpf_map_delete_elem(m->ctrl, &cgid);
}

int ns_map_keys(int fd, uint64_t *keys)
{
	size_t n = 0, i, steps = 0;
	uint64_t key;
	int ret;

	/* a deleted key sends the kernel's walk back to the first: those
	 * seen are skipped, and a map changing faster than the walk can go
	 * ends it */
	for (ret = bpf_map_get_next_key(fd, NULL, &key) ? -errno : 0;
	     !ret && n < NS_CGROUPS_MAX && steps++ < 4 * NS_CGROUPS_MAX;
	     ret = bpf_map_get_next_key(fd, &key, &key) ? -errno : 0) {
		for (i = 0; i < n && keys[i] != key; i++)
			;
		if (i == n)
			keys[n++] = key;
	}
	return ret && ret != -ENOENT ? ret : (int)n;
}

int ns_stats_keys(const struct ns_maps *m, uint64_t *keys)
{
	return ns_map_keys(m->stats, keys);
}

int ns_cgroup_root(char *buf, size_t len)
{
	char dev[64], dir[PATH_MAX], type[32];
	int ret = -ENOENT;
	FILE *f;

	f = fopen("/proc/self/mounts", "re");
	if (!f)
		return -errno;
	while (ret && fscanf(f, "%63s %4095s %31s %*[^\n]", dev, dir, type) == 3) {
		if (strcmp(type, "cgroup2"))
			continue;
		if ((size_t)snprintf(buf, len, "%s", dir) < len)
			ret = 0;
	}
	fclose(f);
	return ret;
}

int ns_cgroup_id(const char *path, uint64_t *id)
{
	struct statfs fs;
	struct stat st;

	if (stat(path, &st) || statfs(path, &fs))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	/* any other directory's inode number may well be some cgroup's id */
	if (fs.f_type != CGROUP2_SUPER_MAGIC)
		return -EMEDIUMTYPE;
	*id = st.st_ino;
	return 0;
}

int ns_cgroup_alive(int rootfd, uint64_t id)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = { .fh = { .handle_bytes = sizeof(id), .handle_type = FILEID_KERNFS } };
	int fd;

	memcpy(h.fh.f_handle, &id, sizeof(id));
	fd = open_by_handle_at(rootfd, &h.fh, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return 1;
	}
	return errno == ESTALE || errno == ENOENT ? 0 : -errno;
}

int ns_cgroup_path(const char *root, uint64_t id, char *buf, size_t len)
{
	char sub[PATH_MAX];	/* buf is the recursion's answer */
	struct dirent *e;
	struct stat st;
	int ret = -ENOENT;
	DIR *d;

	if (stat(root, &st))
		return -errno;
	if (st.st_ino == id) {
		snprintf(buf, len, "%s", root);
		return 0;
	}
	d = opendir(root);
	if (!d)
		return -errno;
	while (ret && (e = readdir(d))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", root,
				     e->d_name) >= sizeof(sub))
			continue;
		if (!ns_cgroup_path(sub, id, buf, len))
			ret = 0;
	}
	closedir(d);
	return ret;
}
