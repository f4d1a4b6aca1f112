// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for agent/policy/modelfile.c: round trips, every kind of damaged
 * file moved aside with its reason, no temporary file left behind, and
 * safe names from application keys.
 */
#include "check_main.h"
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "modelfile.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct tdir {
	char dir[256];
	char path[300];		/* DIR/app.model */
};

static void tdir_make(struct tdir *t)
{
	snprintf(t->dir, sizeof(t->dir), "%s/test_modelfile.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(t->dir));
	snprintf(t->path, sizeof(t->path), "%s/app.model", t->dir);
}

/*
 * Entries in the directory (without . and ..); the name of the last one
 * starting with @prefix into @found.
 */
static int ls(const struct tdir *t, const char *prefix, char *found, size_t n)
{
	DIR *d = opendir(t->dir);
	struct dirent *e;
	int count = 0;

	ck_assert_ptr_nonnull(d);
	if (found)
		found[0] = '\0';
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		count++;
		if (found && prefix && !strncmp(e->d_name, prefix,
						strlen(prefix)))
			snprintf(found, n, "%s", e->d_name);
	}
	closedir(d);
	return count;
}

static void tdir_remove(struct tdir *t)
{
	DIR *d = opendir(t->dir);
	struct dirent *e;
	char p[600];

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", t->dir, e->d_name);
		if (unlink(p))
			ck_assert_int_eq(rmdir(p), 0);
	}
	closedir(d);
	ck_assert_int_eq(rmdir(t->dir), 0);
}

static void write_raw(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	if (len)
		ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

/* The whole file at @path, malloc'd; its size in *@len. */
static unsigned char *read_raw(const char *path, size_t *len)
{
	struct stat st;
	unsigned char *buf;
	FILE *f;

	ck_assert_int_eq(stat(path, &st), 0);
	buf = malloc(st.st_size + 1);
	f = fopen(path, "r");
	ck_assert(buf && f);
	*len = fread(buf, 1, st.st_size, f);
	ck_assert_uint_eq(*len, (size_t)st.st_size);
	fclose(f);
	return buf;
}

static void fill(unsigned char *p, size_t n, uint32_t seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245 + 12345;
		p[i] = (unsigned char)(seed >> 16);
	}
}

START_TEST(crc32_vectors)
{
	ck_assert_uint_eq(modelfile_crc32("123456789", 9), 0xcbf43926);
	ck_assert_uint_eq(modelfile_crc32("", 0), 0);
	ck_assert_uint_eq(modelfile_crc32("a", 1), 0xe8b7be43);
	ck_assert_uint_eq(modelfile_crc32("The quick brown fox jumps over the lazy dog",
					  43), 0x414fa339);
}
END_TEST

START_TEST(round_trip)
{
	static const size_t sizes[] = { 0, 1, 24, 4096, 1 << 20 };
	unsigned char *in, *raw;
	char err[512];
	struct tdir t;
	size_t i, len, rawlen;
	uint32_t ver;
	void *out;

	tdir_make(&t);
	in = malloc(1 << 20);
	ck_assert_ptr_nonnull(in);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		fill(in, sizes[i], (uint32_t)i);
		ck_assert_msg(!modelfile_save(t.path, (uint32_t)i + 1, in,
					      sizes[i], err, sizeof(err)),
			      "%s", err);
		/* only the model: no temporary file left */
		ck_assert_int_eq(ls(&t, NULL, NULL, 0), 1);
		ck_assert_msg(!modelfile_load(t.path, 100, &out, &len, &ver,
					      err, sizeof(err)), "%s", err);
		ck_assert_ptr_nonnull(out);
		ck_assert_uint_eq(len, sizes[i]);
		ck_assert_uint_eq(ver, i + 1);
		ck_assert(!memcmp(out, in, len));
		free(out);
	}
	/* the header as documented */
	raw = read_raw(t.path, &rawlen);
	ck_assert_uint_eq(rawlen, 24 + (1 << 20));
	ck_assert(!memcmp(raw, "INDIGOMF", 8));
	ck_assert_uint_eq(raw[8], 5);
	ck_assert(!raw[9] && !raw[10] && !raw[11]);
	ck_assert_uint_eq(raw[16] | raw[17] << 8 | raw[18] << 16, 1 << 20);
	ck_assert_uint_eq(raw[12] | raw[13] << 8 | raw[14] << 16 |
			  (uint32_t)raw[15] << 24,
			  modelfile_crc32(in, 1 << 20));
	free(raw);
	free(in);
	tdir_remove(&t);
}
END_TEST

START_TEST(overwrite_and_relative)
{
	char err[512], cwd[512];
	struct tdir t;
	uint32_t ver;
	size_t len;
	void *out;

	tdir_make(&t);
	ck_assert_int_eq(modelfile_save(t.path, 1, "old", 3, err, sizeof(err)),
			 0);
	ck_assert_int_eq(modelfile_save(t.path, 2, "newer", 5, err,
					sizeof(err)), 0);
	ck_assert_int_eq(ls(&t, NULL, NULL, 0), 1);
	ck_assert_int_eq(modelfile_load(t.path, 2, &out, &len, &ver, err,
					sizeof(err)), 0);
	ck_assert_uint_eq(ver, 2);
	ck_assert(len == 5 && !memcmp(out, "newer", 5));
	free(out);
	/* a bare file name saves in the current directory */
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_int_eq(chdir(t.dir), 0);
	ck_assert_int_eq(modelfile_save("bare.model", 1, "x", 1, err,
					sizeof(err)), 0);
	ck_assert_int_eq(chdir(cwd), 0);
	ck_assert_int_eq(ls(&t, NULL, NULL, 0), 2);
	tdir_remove(&t);
}
END_TEST

/* Writes a model with the given header fields and payload. */
static void write_model(const char *path, const char *magic, uint32_t ver,
			uint32_t crc, uint64_t len, const void *payload,
			size_t plen)
{
	unsigned char *buf = malloc(24 + plen);
	int i;

	ck_assert_ptr_nonnull(buf);
	memcpy(buf, magic, 8);
	for (i = 0; i < 4; i++) {
		buf[8 + i] = (unsigned char)(ver >> (8 * i));
		buf[12 + i] = (unsigned char)(crc >> (8 * i));
	}
	for (i = 0; i < 8; i++)
		buf[16 + i] = (unsigned char)(len >> (8 * i));
	if (plen)
		memcpy(buf + 24, payload, plen);
	write_raw(path, buf, 24 + plen);
	free(buf);
}

enum damage {
	D_EMPTY, D_SHORT_HEADER, D_TRUNCATED, D_TRAILING, D_FLIPPED,
	D_FOREIGN, D_TOO_NEW, D_VERSION0, D_HUGE, D_FIFO, D_COUNT
};

static const char *const damage_reason[D_COUNT] = {
	[D_EMPTY] = "truncated: 0 of 24 header bytes",
	[D_SHORT_HEADER] = "truncated: 10 of 24 header bytes",
	[D_TRUNCATED] = "truncated: 50 of 100 payload bytes",
	[D_TRAILING] = "5 bytes after the 100-byte payload",
	[D_FLIPPED] = "CRC-32 mismatch: stored ",
	[D_FOREIGN] = "bad magic: not an INDIGO model file",
	[D_TOO_NEW] = "version 3 is newer than the supported 2",
	[D_VERSION0] = "version 0 is invalid",
	[D_HUGE] = "payload length 1099511627776 is over the limit",
	[D_FIFO] = "not a regular file",
};

static void make_damaged(const char *path, enum damage d)
{
	unsigned char p[105];
	char err[256];
	uint32_t crc;

	fill(p, sizeof(p), 7);
	crc = modelfile_crc32(p, 100);
	switch (d) {
	case D_EMPTY:
		write_raw(path, "", 0);
		break;
	case D_SHORT_HEADER:
		write_raw(path, "INDIGOMF\1\0", 10);
		break;
	case D_TRUNCATED:
		write_model(path, "INDIGOMF", 1, crc, 100, p, 50);
		break;
	case D_TRAILING:
		write_model(path, "INDIGOMF", 1, crc, 100, p, 105);
		break;
	case D_FLIPPED:
		ck_assert_int_eq(modelfile_save(path, 1, p, 100, err,
						sizeof(err)), 0);
		{
			FILE *f = fopen(path, "r+");

			ck_assert_ptr_nonnull(f);
			ck_assert_int_eq(fseek(f, 24 + 42, SEEK_SET), 0);
			ck_assert_int_eq(fputc(p[42] ^ 0x10, f), p[42] ^ 0x10);
			ck_assert_int_eq(fclose(f), 0);
		}
		break;
	case D_FOREIGN:
		write_raw(path, "{\"this\": \"is JSON, not a model\"}\n", 33);
		break;
	case D_TOO_NEW:
		ck_assert_int_eq(modelfile_save(path, 3, p, 100, err,
						sizeof(err)), 0);
		break;
	case D_VERSION0:
		write_model(path, "INDIGOMF", 0, crc, 100, p, 100);
		break;
	case D_HUGE:
		write_model(path, "INDIGOMF", 1, crc, 1ULL << 40, p, 100);
		break;
	case D_FIFO:
		ck_assert_int_eq(mkfifo(path, 0600), 0);
		break;
	case D_COUNT:
		break;
	}
}

START_TEST(damaged_moved_aside)
{
	char err[1024], aside[256], want[512];
	struct tdir t;
	uint32_t ver = 77;
	size_t len = 77;
	void *out = NULL;

	tdir_make(&t);
	make_damaged(t.path, (enum damage)_i);
	ck_assert_int_eq(modelfile_load(t.path, 2, &out, &len, &ver, err,
					sizeof(err)), -EINVAL);
	/* outputs untouched */
	ck_assert_ptr_null(out);
	ck_assert(len == 77 && ver == 77);
	/* "PATH: reason; moved to PATH.corrupt-<time>", one line */
	snprintf(want, sizeof(want), "%s: %s", t.path, damage_reason[_i]);
	ck_assert_msg(!strncmp(err, want, strlen(want)), "%s", err);
	snprintf(want, sizeof(want), "; moved to %s.corrupt-", t.path);
	ck_assert_msg(strstr(err, want), "%s", err);
	ck_assert_ptr_null(strchr(err, '\n'));
	/* the file is gone from its place, and is the only thing there */
	ck_assert_int_eq(access(t.path, F_OK), -1);
	ck_assert_int_eq(ls(&t, "app.model.corrupt-", aside, sizeof(aside)), 1);
	ck_assert_msg(aside[0], "nothing moved aside");
	ck_assert(strstr(err, aside));
	/* the next load just finds nothing */
	ck_assert_int_eq(modelfile_load(t.path, 2, &out, &len, &ver, err,
					sizeof(err)), -ENOENT);
	tdir_remove(&t);
}
END_TEST

/* Two corrupt files in the same second get different names. */
START_TEST(aside_names_do_not_clash)
{
	char err[1024];
	struct tdir t;
	uint32_t ver;
	size_t len;
	void *out;
	int i;

	tdir_make(&t);
	for (i = 0; i < 3; i++) {
		write_raw(t.path, "junk", 4);
		ck_assert_int_eq(modelfile_load(t.path, 1, &out, &len, &ver,
						err, sizeof(err)), -EINVAL);
	}
	/* three asides (unless the clock ticked: then still three files) */
	ck_assert_int_eq(ls(&t, NULL, NULL, 0), 3);
	tdir_remove(&t);
}
END_TEST

START_TEST(not_damage)
{
	char err[512], sub[320];
	struct tdir t;
	uint32_t ver;
	size_t len;
	void *out;

	tdir_make(&t);
	/* missing: -ENOENT, nothing created */
	ck_assert_int_eq(modelfile_load(t.path, 1, &out, &len, &ver, err,
					sizeof(err)), -ENOENT);
	ck_assert(strstr(err, "No such file or directory"));
	ck_assert_int_eq(ls(&t, NULL, NULL, 0), 0);
	/* a directory in its place is left where it is */
	ck_assert_int_eq(mkdir(t.path, 0700), 0);
	ck_assert_int_eq(modelfile_load(t.path, 1, &out, &len, &ver, err,
					sizeof(err)), -EISDIR);
	ck_assert_int_eq(access(t.path, F_OK), 0);
	/* and saving over it fails without leaving a temporary file */
	ck_assert_int_eq(modelfile_save(t.path, 1, "x", 1, err, sizeof(err)),
			 -EISDIR);
	ck_assert_msg(strstr(err, "renaming into place"), "%s", err);
	ck_assert_int_eq(ls(&t, NULL, NULL, 0), 1);
	ck_assert_int_eq(rmdir(t.path), 0);
	/* a directory that does not exist */
	snprintf(sub, sizeof(sub), "%s/no/such/dir.model", t.dir);
	ck_assert_int_eq(modelfile_save(sub, 1, "x", 1, err, sizeof(err)),
			 -ENOENT);
	ck_assert_msg(strstr(err, "creating a temporary file"), "%s", err);
	/* bad arguments */
	ck_assert_int_eq(modelfile_save(t.path, 0, "x", 1, err, sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(modelfile_save(t.path, 1, NULL, 1, err, sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(modelfile_save("", 1, "x", 1, NULL, 0), -EINVAL);
	ck_assert_int_eq(ls(&t, NULL, NULL, 0), 0);
	tdir_remove(&t);
}
END_TEST

/* A name is safe: [A-Za-z0-9._-], no leading '.' or '-', ends .model. */
static void assert_safe(const char *name)
{
	size_t n = strlen(name), i;

	ck_assert_uint_gt(n, strlen(MODELFILE_SUFFIX));
	ck_assert_uint_lt(n, MODELFILE_NAME_MAX);
	ck_assert_str_eq(name + n - strlen(MODELFILE_SUFFIX), MODELFILE_SUFFIX);
	ck_assert_msg(name[0] != '.' && name[0] != '-', "%s", name);
	for (i = 0; i < n; i++)
		ck_assert_msg(strchr("abcdefghijklmnopqrstuvwxyz"
				     "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-",
				     name[i]), "%s", name);
}

START_TEST(names)
{
	static const char *const keys[] = {
		"redis-server",
		"/system.slice/redis.service",
		"/",
		".",
		"..",
		"../../etc/passwd",
		"-rf",
		"my app with spaces",
		"caf\xc3\xa9",
		"a/b",
		"a_b",
		"a\nb",
	};
	char names[ARRAY_SIZE(keys)][MODELFILE_NAME_MAX];
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		ck_assert_int_eq(modelfile_name(keys[i], names[i],
						sizeof(names[i])), 0);
		assert_safe(names[i]);
		/* every key its own name */
		for (j = 0; j < i; j++)
			ck_assert_str_ne(names[i], names[j]);
	}
	/* clean keys stay readable as they are */
	ck_assert_str_eq(names[0], "redis-server.model");
	ck_assert_str_eq(names[10], "a_b.model");
	/* changed ones keep what they can, then a hash */
	ck_assert(!strncmp(names[1], "_system.slice_redis.service-", 28));
	ck_assert_uint_eq(strlen(names[1]), 28 + 16 + 6);
	ck_assert(!strncmp(names[5], "_._.._etc_passwd-", 17));
	ck_assert(!strncmp(names[7], "my_app_with_spaces-", 19));
	/* the same key, the same name, every time */
	{
		char again[MODELFILE_NAME_MAX];

		ck_assert_int_eq(modelfile_name(keys[1], again, sizeof(again)),
				 0);
		ck_assert_str_eq(again, names[1]);
	}
}
END_TEST

START_TEST(long_names)
{
	char key[1001], a[MODELFILE_NAME_MAX], b[MODELFILE_NAME_MAX];
	char fit[MODELFILE_NAME_MAX];

	/* two 1000-character keys that differ only at the very end */
	memset(key, 'k', 1000);
	key[1000] = '\0';
	ck_assert_int_eq(modelfile_name(key, a, sizeof(a)), 0);
	key[999] = 'j';
	ck_assert_int_eq(modelfile_name(key, b, sizeof(b)), 0);
	assert_safe(a);
	assert_safe(b);
	ck_assert_str_ne(a, b);
	ck_assert_uint_eq(strlen(a), MODELFILE_NAME_MAX - 1);
	/* the longest clean key kept whole: 121 characters + ".model" */
	memset(fit, 'f', 121);
	fit[121] = '\0';
	ck_assert_int_eq(modelfile_name(fit, a, sizeof(a)), 0);
	ck_assert_uint_eq(strlen(a), 127);
	ck_assert(!strncmp(a, fit, 121));
	/* one more and it is cut and hashed, still 127 */
	key[122] = '\0';
	memset(key, 'f', 122);
	ck_assert_int_eq(modelfile_name(key, b, sizeof(b)), 0);
	ck_assert_uint_eq(strlen(b), 127);
	ck_assert_str_ne(a, b);
	/* errors */
	ck_assert_int_eq(modelfile_name("", a, sizeof(a)), -EINVAL);
	ck_assert_int_eq(modelfile_name(NULL, a, sizeof(a)), -EINVAL);
	ck_assert_int_eq(modelfile_name("x", a, MODELFILE_NAME_MAX - 1),
			 -ENOSPC);
}
END_TEST

/* A sanitised name really is one file in the state directory. */
START_TEST(name_saves_in_dir)
{
	char name[MODELFILE_NAME_MAX], path[600], err[512], found[256];
	struct tdir t;
	uint32_t ver;
	size_t len;
	void *out;

	tdir_make(&t);
	ck_assert_int_eq(modelfile_name("../../../../tmp/evil", name,
					sizeof(name)), 0);
	snprintf(path, sizeof(path), "%s/%s", t.dir, name);
	ck_assert_int_eq(modelfile_save(path, 1, "m", 1, err, sizeof(err)), 0);
	ck_assert_int_eq(ls(&t, name, found, sizeof(found)), 1);
	ck_assert_str_eq(found, name);
	ck_assert_int_eq(modelfile_load(path, 1, &out, &len, &ver, err,
					sizeof(err)), 0);
	free(out);
	tdir_remove(&t);
}
END_TEST

static Suite *modelfile_suite(void)
{
	Suite *s = suite_create("modelfile");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, crc32_vectors);
	tcase_add_test(tc, round_trip);
	tcase_add_test(tc, overwrite_and_relative);
	tcase_add_loop_test(tc, damaged_moved_aside, 0, D_COUNT);
	tcase_add_test(tc, aside_names_do_not_clash);
	tcase_add_test(tc, not_damage);
	tcase_add_test(tc, names);
	tcase_add_test(tc, long_names);
	tcase_add_test(tc, name_saves_in_dir);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(modelfile_suite());
}
