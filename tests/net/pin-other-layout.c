// SPDX-License-Identifier: GPL-2.0
/*
 * pin-other-layout PATH: replaces the map pinned at PATH with one alike in
 * everything bpftool shows (type, key and value sizes, entries, flags) but
 * whose value BTF is another layout (a struct of __u32 words w0, w1, ...),
 * as a build that reshaped a struct without changing its size leaves it.
 * For netscope-net.sh: the loader must not take it for its own.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>

static int other_btf(__u32 key_size, __u32 value_size, __u32 *key_id,
		     __u32 *value_id)
{
	struct btf *btf = btf__new_empty();
	char name[16];
	int u32, u64, s, fd = -1;
	__u32 i;

	if (!btf)
		return -errno;
	u32 = btf__add_int(btf, "__u32", 4, 0);
	u64 = btf__add_int(btf, "__u64", 8, 0);
	s = btf__add_struct(btf, "other", value_size);
	for (i = 0; s > 0 && i < value_size / 4; i++) {
		snprintf(name, sizeof(name), "w%u", i);
		if (btf__add_field(btf, name, u32, i * 32, 0))
			s = -1;
	}
	if (s > 0 && !btf__load_into_kernel(btf)) {
		fd = dup(btf__fd(btf));
		*key_id = key_size == 8 ? (__u32)u64 : (__u32)u32;
		*value_id = (__u32)s;
	}
	btf__free(btf);
	return fd < 0 ? -EINVAL : fd;
}

int main(int argc, char **argv)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info), key_id = 0, value_id = 0;
	int old, fd, btf_fd;

	if (argc != 2) {
		fprintf(stderr, "usage: pin-other-layout PATH\n");
		return 2;
	}
	old = bpf_obj_get(argv[1]);
	if (old < 0 || bpf_obj_get_info_by_fd(old, &info, &len)) {
		perror(argv[1]);
		return 1;
	}
	if ((info.key_size != 4 && info.key_size != 8) || info.value_size % 4) {
		fprintf(stderr, "%s: key %u, value %u bytes: not handled\n",
			argv[1], info.key_size, info.value_size);
		return 1;
	}
	btf_fd = other_btf(info.key_size, info.value_size, &key_id, &value_id);
	if (btf_fd < 0) {
		fprintf(stderr, "BTF: %s\n", strerror(-btf_fd));
		return 1;
	}
	LIBBPF_OPTS(bpf_map_create_opts, o, .btf_fd = btf_fd,
		    .btf_key_type_id = key_id, .btf_value_type_id = value_id,
		    .map_flags = info.map_flags);
	fd = bpf_map_create(info.type, info.name, info.key_size,
			    info.value_size, info.max_entries, &o);
	if (fd < 0 || unlink(argv[1]) || bpf_obj_pin(fd, argv[1])) {
		perror("replacing the map");
		return 1;
	}
	return 0;
}
