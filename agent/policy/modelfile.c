// SPDX-License-Identifier: GPL-2.0
/*
 * Model files: atomic save, checked load, moving aside what fails the
 * checks, and safe per-application file names. See modelfile.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* renameat2(), mkostemp() */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "errbuf.h"
#include "modelfile.h"

#define HASH_HEX	16

/* Reflected CRC-32 (poly 0xedb88320), a nibble at a time: tiny table. */
uint32_t modelfile_crc32(const void *data, size_t len)
{
	static const uint32_t tab[16] = {
		0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac,
		0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
		0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
		0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
	};
	const unsigned char *p = data;
	uint32_t crc = 0xffffffff;

	while (len--) {
		crc ^= *p++;
		crc = (crc >> 4) ^ tab[crc & 15];
		crc = (crc >> 4) ^ tab[crc & 15];
	}
	return crc ^ 0xffffffff;
}

static void put_le32(unsigned char *p, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put_le64(unsigned char *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_le64(const unsigned char *p)
{
	return get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= n;
	}
	return 0;
}

/* Bytes read, short only at end of file; or -errno. */
static ssize_t read_all(int fd, void *buf, size_t len)
{
	char *p = buf;
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, p + got, len - got);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!n)
			break;
		got += n;
	}
	return (ssize_t)got;
}

/* Directory part of @path, malloc'd ("." for a bare name). */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, slash - path);
}

/* The rename is durable only once the directory is on disk too. */
static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd))
		ret = -errno;
	close(fd);
	return ret;
}

/* "DIR/.BASE.tmp-XXXXXX", malloc'd: hidden, and never a model's name. */
static char *tmp_template(const char *path, const char *dir)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t n = strlen(dir) + strlen(base) + 16;
	char *t = malloc(n);

	if (t)
		snprintf(t, n, "%s/.%s.tmp-XXXXXX", dir, base);
	return t;
}

/* Writes header and payload to the new temporary file @fd, then fsyncs. */
static int write_model(int fd, uint32_t version, const void *data, size_t len)
{
	unsigned char h[MODELFILE_HEADER_BYTES];
	int ret;

	memcpy(h, MODELFILE_MAGIC, 8);
	put_le32(h + 8, version);
	put_le32(h + 12, modelfile_crc32(data, len));
	put_le64(h + 16, len);
	ret = write_all(fd, h, sizeof(h));
	if (!ret && len)
		ret = write_all(fd, data, len);
	if (!ret && fsync(fd))
		ret = -errno;
	return ret;
}

int modelfile_save(const char *path, uint32_t version, const void *data,
		   size_t len, char *err, size_t errlen)
{
	char *dir = NULL, *tmp = NULL;
	const char *step = "out of memory";
	int fd, ret = -ENOMEM;

	if (!path || !*path || !version || len > MODELFILE_MAX_PAYLOAD ||
	    (len && !data)) {
		errbuf_set(err, errlen, 0, "%s: invalid arguments to save",
			path ? path : "(null)");
		return -EINVAL;
	}
	dir = dir_of(path);
	tmp = dir ? tmp_template(path, dir) : NULL;
	if (!tmp)
		goto out;
	step = "creating a temporary file";
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	step = "writing";
	ret = write_model(fd, version, data, len);
	/* close() reports delayed write errors (NFS): check it too */
	if (close(fd) && !ret)
		ret = -errno;
	if (ret)
		goto out_unlink;
	step = "renaming into place";
	if (rename(tmp, path)) {
		ret = -errno;
		goto out_unlink;
	}
	step = "syncing the directory";
	ret = sync_dir(dir);
	goto out;
out_unlink:
	unlink(tmp);
out:
	if (ret)
		errbuf_set(err, errlen, 0, "%s: %s: %s", path, step, strerror(-ret));
	free(tmp);
	free(dir);
	return ret;
}

static int rename_noreplace(const char *from, const char *to)
{
	if (!renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL)
		return -errno;
	/* no RENAME_NOREPLACE on this file system: look, then leap */
	if (!access(to, F_OK))
		return -EEXIST;
	return rename(from, to) ? -errno : 0;
}

/* Never over an existing file: -1, -2, ... on a clash. */
void modelfile_move_aside(const char *path, const char *why, char *where,
			  size_t wlen)
{
	size_t n = strlen(path) + strlen(why) + 48;
	char *to = malloc(n);
	long long now = (long long)time(NULL);
	int i, r = -ENOMEM;

	if (!to) {
		snprintf(where, wlen, "not moved aside: out of memory");
		return;
	}
	for (i = 0; i < 100; i++) {
		if (i)
			snprintf(to, n, "%s.%s-%lld-%d", path, why, now, i);
		else
			snprintf(to, n, "%s.%s-%lld", path, why, now);
		r = rename_noreplace(path, to);
		if (r != -EEXIST)
			break;
	}
	if (r)
		snprintf(where, wlen, "not moved aside: %s", strerror(-r));
	else
		snprintf(where, wlen, "moved to %s", to);
	free(to);
}

/* What was wrong with the file, for the message; "" when nothing. */
struct verdict {
	char why[160];
};

static bool check_header(const unsigned char *h, off_t size,
			 uint32_t max_version, struct verdict *v)
{
	uint32_t version = get_le32(h + 8);
	uint64_t len = get_le64(h + 16);
	uint64_t have = (uint64_t)size - MODELFILE_HEADER_BYTES;

	if (memcmp(h, MODELFILE_MAGIC, 8))
		snprintf(v->why, sizeof(v->why),
			 "bad magic: not an INDIGO model file");
	else if (!version)
		snprintf(v->why, sizeof(v->why), "version 0 is invalid");
	else if (version > max_version)
		snprintf(v->why, sizeof(v->why),
			 "version %u is newer than the supported %u", version,
			 max_version);
	else if (len > MODELFILE_MAX_PAYLOAD)
		snprintf(v->why, sizeof(v->why),
			 "payload length %llu is over the limit",
			 (unsigned long long)len);
	else if (have < len)
		snprintf(v->why, sizeof(v->why),
			 "truncated: %llu of %llu payload bytes",
			 (unsigned long long)have, (unsigned long long)len);
	else if (have > len)
		snprintf(v->why, sizeof(v->why),
			 "%llu bytes after the %llu-byte payload",
			 (unsigned long long)(have - len),
			 (unsigned long long)len);
	return !v->why[0];
}

/*
 * Reads and checks the open model file @fd. 0 with the payload, -EINVAL
 * with v->why filled, or -errno for an I/O error.
 */
static int read_model(int fd, uint32_t max_version, void **data, size_t *len,
		      uint32_t *version, struct verdict *v)
{
	unsigned char h[MODELFILE_HEADER_BYTES];
	struct stat st;
	uint32_t crc;
	ssize_t got;
	size_t n;
	void *buf;

	if (fstat(fd, &st))
		return -errno;
	/* a directory is a setup mistake, not a damaged model: leave it */
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode)) {
		snprintf(v->why, sizeof(v->why), "not a regular file");
		return -EINVAL;
	}
	got = read_all(fd, h, sizeof(h));
	if (got < 0)
		return (int)got;
	if (got < (ssize_t)sizeof(h)) {
		snprintf(v->why, sizeof(v->why),
			 "truncated: %zd of %d header bytes", got,
			 MODELFILE_HEADER_BYTES);
		return -EINVAL;
	}
	if (!check_header(h, st.st_size, max_version, v))
		return -EINVAL;
	n = get_le64(h + 16);
	buf = malloc(n ? n : 1);
	if (!buf)
		return -ENOMEM;
	got = read_all(fd, buf, n);
	if (got != (ssize_t)n) {
		free(buf);
		if (got < 0)
			return (int)got;
		/* shrank since the fstat() */
		snprintf(v->why, sizeof(v->why), "truncated while reading");
		return -EINVAL;
	}
	crc = modelfile_crc32(buf, n);
	if (crc != get_le32(h + 12)) {
		free(buf);
		snprintf(v->why, sizeof(v->why),
			 "CRC-32 mismatch: stored %08x, payload %08x",
			 get_le32(h + 12), crc);
		return -EINVAL;
	}
	*data = buf;
	*len = n;
	*version = get_le32(h + 8);
	return 0;
}

int modelfile_load(const char *path, uint32_t max_version, void **data,
		   size_t *len, uint32_t *version, char *err, size_t errlen)
{
	struct verdict v = { "" };
	char where[512];
	int fd, ret;

	if (err && errlen)
		err[0] = '\0';
	/* O_NONBLOCK: a FIFO planted here must not hang the agent */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		ret = -errno;
		errbuf_set(err, errlen, 0, "%s: %s", path, strerror(-ret));
		return ret;
	}
	ret = read_model(fd, max_version, data, len, version, &v);
	close(fd);
	if (ret == -EINVAL) {
		modelfile_move_aside(path, MODELFILE_ASIDE_CORRUPT, where,
				     sizeof(where));
		errbuf_set(err, errlen, 0, "%s: %s; %s", path, v.why, where);
	} else if (ret) {
		errbuf_set(err, errlen, 0, "%s: %s", path, strerror(-ret));
	}
	return ret;
}

/* FNV-1a, 64 bits: a stable, dependency-free name hash. */
static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static bool safe_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

int modelfile_name(const char *key, char *out, size_t outlen)
{
	const size_t room = MODELFILE_NAME_MAX - sizeof(MODELFILE_SUFFIX);
	size_t klen, n, i;
	bool changed = false;

	if (!key || !*key)
		return -EINVAL;
	if (outlen < MODELFILE_NAME_MAX)
		return -ENOSPC;
	klen = strlen(key);
	n = klen;
	if (n > room) {
		n = room - 1 - HASH_HEX;
		changed = true;
	}
	for (i = 0; i < n; i++) {
		out[i] = safe_char(key[i]) ? key[i] : '_';
		changed |= out[i] != key[i];
	}
	/* no hidden files, no "." or "..", nothing that looks like an option */
	if (out[0] == '.' || out[0] == '-') {
		out[0] = '_';
		changed = true;
	}
	if (changed && n > room - 1 - HASH_HEX)
		n = room - 1 - HASH_HEX;
	if (changed)
		n += snprintf(out + n, outlen - n, "-%016llx",
			      (unsigned long long)fnv1a(key));
	memcpy(out + n, MODELFILE_SUFFIX, sizeof(MODELFILE_SUFFIX));
	return 0;
}
