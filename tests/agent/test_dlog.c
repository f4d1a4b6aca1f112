// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for agent/policy/dlog.c: the decision log's format, round trip,
 * rotation by size and the reader's handling of damaged files.
 */
#include "check_main.h"
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dlog.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Each test's private directory and its log's path. */
struct tdir {
	char dir[256];
	char log[300];
};

static void tdir_make(struct tdir *t)
{
	snprintf(t->dir, sizeof(t->dir), "%s/test_dlog.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(t->dir));
	snprintf(t->log, sizeof(t->log), "%s/decisions.jsonl", t->dir);
}

/* Removes the directory and the plain files in it. */
static void tdir_remove(struct tdir *t)
{
	DIR *d = opendir(t->dir);
	struct dirent *e;
	char p[600];

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", t->dir, e->d_name);
		ck_assert_int_eq(unlink(p), 0);
	}
	closedir(d);
	ck_assert_int_eq(rmdir(t->dir), 0);
}

/* Size of @path, or -1 if it does not exist. */
static long long fsize(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long long)st.st_size;
}

static long long rot_size(const struct tdir *t, int n)
{
	char p[320];

	snprintf(p, sizeof(p), "%s.%d", t->log, n);
	return fsize(p);
}

static struct dlog_rec mkrec(uint64_t epoch)
{
	struct dlog_rec r;

	memset(&r, 0, sizeof(r));
	r.epoch = epoch;
	r.ts = 1733140000.25;
	r.ncontext = 4;
	r.context[0] = 0.5;
	r.context[1] = 0.25;
	r.context[2] = 0.125;
	r.context[3] = 1.0;
	r.action = 3;
	r.propensity = 0.2;
	r.reward = -0.0125;
	strcpy(r.learner, "linucb");
	return r;
}

static void assert_rec_eq(const struct dlog_rec *a, const struct dlog_rec *b)
{
	size_t i;

	ck_assert_uint_eq(a->epoch, b->epoch);
	ck_assert(a->ts == b->ts);
	ck_assert_uint_eq(a->ncontext, b->ncontext);
	for (i = 0; i < a->ncontext; i++)
		ck_assert_msg(a->context[i] == b->context[i], "context[%zu]: %.17g vs %.17g",
			      i, a->context[i], b->context[i]);
	ck_assert_uint_eq(a->action, b->action);
	ck_assert(a->propensity == b->propensity);
	ck_assert(a->reward == b->reward);
	ck_assert_str_eq(a->learner, b->learner);
}

static void write_text(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(line_format)
{
	static const char want[] =
		"{\"epoch\":12,\"ts\":1733140000.25,"
		"\"context\":[0.5,0.25,0.125,1],\"action\":3,"
		"\"propensity\":0.2,\"reward\":-0.0125,\"learner\":\"linucb\"}\n";
	struct dlog_rec r = mkrec(12);
	struct tdir t;
	struct dlog *l;
	char buf[512] = "";
	FILE *f;

	tdir_make(&t);
	ck_assert_int_eq(dlog_open(&l, t.log, 0, 3), 0);
	ck_assert_int_eq(dlog_append(l, &r), 0);
	ck_assert_int_eq(dlog_sync(l), 0);
	ck_assert_int_eq(dlog_close(l), 0);
	f = fopen(t.log, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fread(buf, 1, sizeof(buf) - 1, f), strlen(want));
	fclose(f);
	ck_assert_str_eq(buf, want);
	tdir_remove(&t);
}
END_TEST

START_TEST(round_trip)
{
	struct dlog_rec in[5], out;
	struct dlog_reader *rd;
	struct tdir t;
	struct dlog *l;
	size_t i;

	in[0] = mkrec(0);
	in[1] = mkrec(1);
	in[1].ncontext = 0;			/* no context */
	in[1].propensity = 1.0;
	strcpy(in[1].learner, "heuristic");
	in[2] = mkrec(2);
	in[2].ncontext = DLOG_CONTEXT_MAX;	/* all of it, awkward values */
	for (i = 0; i < DLOG_CONTEXT_MAX; i++)
		in[2].context[i] = (i % 2 ? -1.0 : 1.0) / (3.0 + i) *
				   pow(10.0, (double)i * 9 - 150);
	in[2].reward = 1e-300;
	in[2].propensity = 1.0 / 3.0;
	in[3] = mkrec(UINT64_MAX);		/* extremes */
	in[3].action = UINT32_MAX;
	in[3].ts = 0.0;
	in[3].reward = -1.7976931348623157e308;
	in[3].propensity = 4.9406564584124654e-324;
	in[4] = mkrec(4);
	strcpy(in[4].learner, "quote\" back\\slash \xc3\xa9");

	tdir_make(&t);
	ck_assert_int_eq(dlog_open(&l, t.log, 0, 3), 0);
	for (i = 0; i < ARRAY_SIZE(in); i++)
		ck_assert_int_eq(dlog_append(l, &in[i]), 0);
	ck_assert_int_eq(dlog_close(l), 0);

	ck_assert_int_eq(dlog_reader_open(&rd, t.log), 0);
	for (i = 0; i < ARRAY_SIZE(in); i++) {
		ck_assert_int_eq(dlog_reader_next(rd, &out), 1);
		ck_assert_uint_eq(dlog_reader_line(rd), i + 1);
		assert_rec_eq(&out, &in[i]);
	}
	ck_assert_int_eq(dlog_reader_next(rd, &out), 0);
	ck_assert_int_eq(dlog_reader_next(rd, &out), 0);
	ck_assert_uint_eq(dlog_reader_malformed(rd), 0);
	dlog_reader_close(rd);
	tdir_remove(&t);
}
END_TEST

START_TEST(bad_records_not_written)
{
	struct dlog_rec r;
	struct tdir t;
	struct dlog *l;
	int i;

	tdir_make(&t);
	ck_assert_int_eq(dlog_open(&l, t.log, 0, 3), 0);
	for (i = 0; i < 9; i++) {
		r = mkrec(1);
		switch (i) {
		case 0:
			r.reward = NAN;
			break;
		case 1:
			r.ts = INFINITY;
			break;
		case 2:
			r.propensity = 0.0;
			break;
		case 3:
			r.propensity = 1.5;
			break;
		case 4:
			r.propensity = NAN;
			break;
		case 5:
			r.context[2] = -INFINITY;
			break;
		case 6:
			r.ncontext = DLOG_CONTEXT_MAX + 1;
			break;
		case 7:
			memset(r.learner, 'x', sizeof(r.learner));
			break;
		case 8:
			r.propensity = -0.5;
			break;
		}
		ck_assert_msg(dlog_append(l, &r) == -EINVAL, "case %d", i);
	}
	ck_assert_int_eq(dlog_close(l), 0);
	ck_assert_int_eq(fsize(t.log), 0);
	tdir_remove(&t);
}
END_TEST

/* Length of one mkrec() line with a one-digit epoch. */
static long long line_len(struct tdir *t)
{
	struct dlog_rec r = mkrec(0);
	struct dlog *l;
	long long n;

	ck_assert_int_eq(dlog_open(&l, t->log, 0, 0), 0);
	ck_assert_int_eq(dlog_append(l, &r), 0);
	ck_assert_int_eq(dlog_close(l), 0);
	n = fsize(t->log);
	ck_assert_int_eq(unlink(t->log), 0);
	return n;
}

START_TEST(rotation_at_size)
{
	struct tdir t;
	struct dlog *l;
	struct dlog_rec r;
	long long L;
	uint64_t max;
	int k;

	tdir_make(&t);
	L = line_len(&t);
	/* the line_format line with a one-digit epoch: 124 bytes */
	ck_assert_int_eq(L, 124);
	/* exactly 7 lines fit: the 7th fills the file to the byte */
	max = 7 * L;
	ck_assert_int_eq(dlog_open(&l, t.log, max, 3), 0);
	for (k = 0; k < 7; k++) {
		r = mkrec(k);
		ck_assert_int_eq(dlog_append(l, &r), 0);
		ck_assert_int_eq(fsize(t.log), (k + 1) * L);
		ck_assert_int_eq(rot_size(&t, 1), -1);
	}
	/* the 8th would make it max + L: the file rotates first */
	r = mkrec(7);
	ck_assert_int_eq(dlog_append(l, &r), 0);
	ck_assert_int_eq(rot_size(&t, 1), 7 * L);
	ck_assert_int_eq(fsize(t.log), L);
	ck_assert_int_eq(dlog_close(l), 0);

	/* one byte less room: 6 lines, and the 7th rotates */
	tdir_remove(&t);
	tdir_make(&t);
	ck_assert_int_eq(dlog_open(&l, t.log, 7 * L - 1, 3), 0);
	for (k = 0; k < 7; k++) {
		r = mkrec(k);
		ck_assert_int_eq(dlog_append(l, &r), 0);
	}
	ck_assert_int_eq(rot_size(&t, 1), 6 * L);
	ck_assert_int_eq(fsize(t.log), L);
	ck_assert_int_eq(dlog_close(l), 0);
	tdir_remove(&t);
}
END_TEST

/* Reads every record of @path; returns how many, epochs into @ep. */
static int read_all(const char *path, uint64_t *ep, int max, uint64_t *bad)
{
	struct dlog_reader *rd;
	struct dlog_rec r;
	int n = 0, ret;

	ck_assert_int_eq(dlog_reader_open(&rd, path), 0);
	while ((ret = dlog_reader_next(rd, &r)) == 1) {
		ck_assert_int_lt(n, max);
		ep[n++] = r.epoch;
	}
	ck_assert_int_eq(ret, 0);
	if (bad)
		*bad = dlog_reader_malformed(rd);
	dlog_reader_close(rd);
	return n;
}

START_TEST(rotation_keeps_n)
{
	uint64_t ep[64], next;
	struct dlog_rec r;
	struct tdir t;
	struct dlog *l;
	char p[320];
	long long L;
	int i, n;

	tdir_make(&t);
	L = line_len(&t);
	/* 3 lines a file; epochs 10-49 all have two digits: L + 1 bytes */
	ck_assert_int_eq(dlog_open(&l, t.log, 3 * (L + 1), DLOG_KEEP_DEFAULT),
			 0);
	for (i = 10; i < 50; i++) {
		r = mkrec(i);
		ck_assert_int_eq(dlog_append(l, &r), 0);
	}
	ck_assert_int_eq(dlog_close(l), 0);
	ck_assert_int_eq(rot_size(&t, 4), -1);
	/*
	 * 40 records, 3 a file: 13 full files and one with a single record.
	 * The log holds 49, .1 46-48, .2 43-45, .3 40-42; the rest is gone.
	 */
	next = 40;
	for (i = 3; i >= 0; i--) {
		if (i)
			snprintf(p, sizeof(p), "%s.%d", t.log, i);
		else
			snprintf(p, sizeof(p), "%s", t.log);
		n = read_all(p, ep, 64, NULL);
		ck_assert_int_eq(n, i ? 3 : 1);
		while (n--)
			ck_assert_uint_eq(ep[(i ? 3 : 1) - 1 - n], next++);
	}
	ck_assert_uint_eq(next, 50);
	tdir_remove(&t);
}
END_TEST

START_TEST(rotation_keep_zero_and_off)
{
	struct dlog_rec r = mkrec(1);
	struct tdir t;
	struct dlog *l;
	long long L;
	int i;

	tdir_make(&t);
	L = line_len(&t);
	/* keep = 0: the log starts afresh, nothing is kept */
	ck_assert_int_eq(dlog_open(&l, t.log, 2 * L, 0), 0);
	for (i = 0; i < 5; i++)
		ck_assert_int_eq(dlog_append(l, &r), 0);
	ck_assert_int_eq(dlog_close(l), 0);
	ck_assert_int_eq(fsize(t.log), L);
	ck_assert_int_eq(rot_size(&t, 1), -1);
	ck_assert_int_eq(unlink(t.log), 0);
	/* max_bytes = 0: no rotation at all */
	ck_assert_int_eq(dlog_open(&l, t.log, 0, 3), 0);
	for (i = 0; i < 50; i++)
		ck_assert_int_eq(dlog_append(l, &r), 0);
	ck_assert_int_eq(dlog_close(l), 0);
	ck_assert_int_eq(fsize(t.log), 50 * L);
	ck_assert_int_eq(rot_size(&t, 1), -1);
	tdir_remove(&t);
}
END_TEST

START_TEST(reopen_and_oversized)
{
	struct dlog_rec r = mkrec(1);
	struct tdir t;
	struct dlog *l;
	long long L;

	tdir_make(&t);
	L = line_len(&t);
	/* a reopened log counts what is already there */
	ck_assert_int_eq(dlog_open(&l, t.log, 2 * L, 3), 0);
	ck_assert_int_eq(dlog_append(l, &r), 0);
	ck_assert_int_eq(dlog_append(l, &r), 0);
	ck_assert_int_eq(dlog_close(l), 0);
	ck_assert_int_eq(dlog_open(&l, t.log, 2 * L, 3), 0);
	ck_assert_int_eq(dlog_append(l, &r), 0);
	ck_assert_int_eq(rot_size(&t, 1), 2 * L);
	ck_assert_int_eq(fsize(t.log), L);
	ck_assert_int_eq(dlog_close(l), 0);
	tdir_remove(&t);

	/* a record bigger than max_bytes still goes in, alone */
	tdir_make(&t);
	ck_assert_int_eq(dlog_open(&l, t.log, L / 2, 3), 0);
	ck_assert_int_eq(dlog_append(l, &r), 0);
	ck_assert_int_eq(fsize(t.log), L);
	ck_assert_int_eq(dlog_append(l, &r), 0);
	ck_assert_int_eq(fsize(t.log), L);
	ck_assert_int_eq(rot_size(&t, 1), L);
	ck_assert_int_eq(dlog_close(l), 0);
	tdir_remove(&t);
}
END_TEST

/* A rotation that fails is reported, and the next append tries again. */
START_TEST(rotation_failure_recovers)
{
	struct dlog_rec r = mkrec(1);
	struct tdir t;
	struct dlog *l;
	char p[320];
	long long L;

	tdir_make(&t);
	L = line_len(&t);
	snprintf(p, sizeof(p), "%s.1", t.log);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	/* keep = 1, so that log.1 is not itself moved out of the way */
	ck_assert_int_eq(dlog_open(&l, t.log, L, 1), 0);
	ck_assert_int_eq(dlog_append(l, &r), 0);
	/* rename(log, log.1) onto a directory fails */
	ck_assert_int_eq(dlog_append(l, &r), -EISDIR);
	ck_assert_int_eq(fsize(t.log), L);
	ck_assert_int_eq(rmdir(p), 0);
	ck_assert_int_eq(dlog_append(l, &r), 0);
	ck_assert_int_eq(rot_size(&t, 1), L);
	ck_assert_int_eq(fsize(t.log), L);
	ck_assert_int_eq(dlog_close(l), 0);
	tdir_remove(&t);
}
END_TEST

/*
 * A log deleted or moved away by someone else (an operator, logrotate):
 * when it is full the agent starts a new one at its path, rather than
 * failing every append from then on trying to rename what is not there.
 */
START_TEST(rotation_after_log_removed)
{
	struct dlog_rec r = mkrec(1);
	struct tdir t;
	struct dlog *l;
	char p[320];
	long long L;
	int i;

	tdir_make(&t);
	L = line_len(&t);
	ck_assert_int_eq(dlog_open(&l, t.log, 2 * L, 3), 0);
	ck_assert_int_eq(dlog_append(l, &r), 0);
	ck_assert_int_eq(unlink(t.log), 0);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(dlog_append(l, &r), 0);
	ck_assert_int_eq(fsize(t.log), 2 * L);
	ck_assert_int_eq(rot_size(&t, 1), -1);
	ck_assert_int_eq(dlog_close(l), 0);
	ck_assert_int_eq(unlink(t.log), 0);

	/* moved away: the file at the path now is another's, left as it is */
	ck_assert_int_eq(dlog_open(&l, t.log, 2 * L, 3), 0);
	ck_assert_int_eq(dlog_append(l, &r), 0);
	snprintf(p, sizeof(p), "%s.moved", t.log);
	ck_assert_int_eq(rename(t.log, p), 0);
	ck_assert_int_eq(dlog_append(l, &r), 0);
	ck_assert_int_eq(dlog_append(l, &r), 0);
	ck_assert_int_eq(fsize(p), 2 * L);
	ck_assert_int_eq(fsize(t.log), L);
	ck_assert_int_eq(rot_size(&t, 1), -1);
	ck_assert_int_eq(dlog_close(l), 0);
	tdir_remove(&t);
}
END_TEST

/*
 * A FIFO at the log's path (a reader meant to tail it, or planted) that no
 * one drains: appends fail once its buffer is full, they do not block the
 * agent's epoch loop for good.
 */
START_TEST(fifo_does_not_block)
{
	struct dlog_rec r = mkrec(1);
	struct tdir t;
	struct dlog *l;
	int i, ret = 0;

	tdir_make(&t);
	ck_assert_int_eq(mkfifo(t.log, 0600), 0);
	ck_assert_int_eq(dlog_open(&l, t.log, 0, 3), 0);
	/* some 250 KB: more than a pipe's 64 KiB */
	for (i = 0; i < 2000 && !ret; i++)
		ret = dlog_append(l, &r);
	ck_assert_int_eq(ret, -EAGAIN);
	ck_assert_int_eq(dlog_close(l), 0);
	tdir_remove(&t);
}
END_TEST

/*
 * A write cut short (here by the file size limit, on a host by a full
 * disk) fails, and the next record, once there is room, reads back: it is
 * not appended to the part of a line the failed write left.
 */
START_TEST(cut_write_spares_next)
{
	struct dlog_rec r1 = mkrec(1), r2 = mkrec(2), r3 = mkrec(3), out;
	struct dlog_reader *rd;
	struct rlimit old, lim;
	struct tdir t;
	struct dlog *l;
	long long L;
	int ret;

	tdir_make(&t);
	L = line_len(&t);
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	if (old.rlim_max != RLIM_INFINITY && old.rlim_max < (rlim_t)(3 * L)) {
		tdir_remove(&t);
		return;		/* no room to raise the limit back */
	}
	ck_assert(signal(SIGXFSZ, SIG_IGN) != SIG_ERR);
	ck_assert_int_eq(dlog_open(&l, t.log, 0, 1), 0);
	ck_assert_int_eq(dlog_append(l, &r1), 0);
	/* room for 10 bytes of the second line */
	lim = old;
	lim.rlim_cur = (rlim_t)L + 10;
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	ret = dlog_append(l, &r2);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
	ck_assert_int_eq(ret, -EFBIG);
	ck_assert_int_eq(dlog_append(l, &r3), 0);
	ck_assert_int_eq(dlog_close(l), 0);
	signal(SIGXFSZ, SIG_DFL);

	ck_assert_int_eq(dlog_reader_open(&rd, t.log), 0);
	ck_assert_int_eq(dlog_reader_next(rd, &out), 1);
	assert_rec_eq(&out, &r1);
	ck_assert_int_eq(dlog_reader_next(rd, &out), 1);
	assert_rec_eq(&out, &r3);
	ck_assert_int_eq(dlog_reader_next(rd, &out), 0);
	ck_assert_uint_eq(dlog_reader_malformed(rd), 0);
	dlog_reader_close(rd);
	ck_assert_int_eq(fsize(t.log), 2 * L);
	tdir_remove(&t);
}
END_TEST

/*
 * A log that ends in a cut-off line (a crash, a write cut short before a
 * restart): the first record appended starts a line of its own.
 */
START_TEST(opened_after_cut)
{
	static const char cut[] = "{\"epoch\":7,\"ts\":17";
	struct dlog_rec r = mkrec(8), out;
	struct dlog_reader *rd;
	struct tdir t;
	struct dlog *l;

	tdir_make(&t);
	write_text(t.log, cut, strlen(cut));
	ck_assert_int_eq(dlog_open(&l, t.log, 0, 1), 0);
	ck_assert_int_eq(dlog_append(l, &r), 0);
	ck_assert_int_eq(dlog_append(l, &r), 0);
	ck_assert_int_eq(dlog_close(l), 0);
	ck_assert_int_eq(dlog_reader_open(&rd, t.log), 0);
	ck_assert_int_eq(dlog_reader_next(rd, &out), 1);
	assert_rec_eq(&out, &r);
	ck_assert_uint_eq(dlog_reader_line(rd), 2);
	ck_assert_int_eq(dlog_reader_next(rd, &out), 1);
	ck_assert_int_eq(dlog_reader_next(rd, &out), 0);
	ck_assert_uint_eq(dlog_reader_malformed(rd), 1);
	dlog_reader_close(rd);
	tdir_remove(&t);
}
END_TEST

START_TEST(malformed_counted)
{
	static const char good[] =
		"{\"epoch\":%d,\"ts\":1,\"context\":[1,2],\"action\":0,"
		"\"propensity\":0.5,\"reward\":1,\"learner\":\"x\"}";
	static const char *const bad[] = {
		"garbage",
		"{\"epoch\":1,\"ts\":1,\"context\":[1,2],\"action\":0,",	/* cut */
		"{\"ts\":1,\"context\":[],\"action\":0,\"propensity\":0.5,\"reward\":1,\"learner\":\"x\"}",
		"{\"epoch\":1,\"ts\":1,\"context\":[],\"action\":0,\"propensity\":0,\"reward\":1,\"learner\":\"x\"}",
		"[1,2,3]",
		"{\"epoch\":1,\"ts\":1,\"context\":[],\"action\":0,\"propensity\":0.5,\"reward\":1,\"learner\":\"x\"} trailing",
	};
	char *text, *p, *line;
	uint64_t ep[16], nbad;
	struct tdir t;
	size_t i, cap = 200000;
	int n;

	text = malloc(cap);
	line = malloc(DLOG_LINE_MAX + 10);
	ck_assert(text && line);
	p = text;
	p += sprintf(p, good, 1);
	*p++ = '\n';
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		p += sprintf(p, "%s\n", bad[i]);
	p += sprintf(p, good, 2);
	p += sprintf(p, "\n\n   \n");			/* blank: not counted */
	/* a line too long to be a record */
	memset(line, ' ', DLOG_LINE_MAX + 5);
	line[0] = '{';
	line[DLOG_LINE_MAX + 5] = '\0';
	p += sprintf(p, "%s\n", line);
	/* a NUL inside a line */
	p += sprintf(p, good, 3);
	p[-5] = '\0';
	*p++ = '\n';
	p += sprintf(p, good, 4);
	*p++ = '\n';
	/* the last line cut off by a crash, no newline */
	p += sprintf(p, "{\"epoch\":5,\"ts\":1");

	tdir_make(&t);
	write_text(t.log, text, p - text);
	free(text);
	free(line);
	n = read_all(t.log, ep, 16, &nbad);
	ck_assert_int_eq(n, 3);
	ck_assert_uint_eq(ep[0], 1);
	ck_assert_uint_eq(ep[1], 2);
	ck_assert_uint_eq(ep[2], 4);
	/* 6 bad ones, the long line, the NUL line and the cut-off last line */
	ck_assert_uint_eq(nbad, 9);
	tdir_remove(&t);
}
END_TEST

static const char *const bad_lines[] = {
	"",
	"null",
	"{}",
	"{\"epoch\":-1,\"ts\":1,\"context\":[],\"action\":0,\"propensity\":1,\"reward\":0,\"learner\":\"x\"}",
	"{\"epoch\":1.5,\"ts\":1,\"context\":[],\"action\":0,\"propensity\":1,\"reward\":0,\"learner\":\"x\"}",
	"{\"epoch\":\"1\",\"ts\":1,\"context\":[],\"action\":0,\"propensity\":1,\"reward\":0,\"learner\":\"x\"}",
	"{\"epoch\":1,\"ts\":\"now\",\"context\":[],\"action\":0,\"propensity\":1,\"reward\":0,\"learner\":\"x\"}",
	"{\"epoch\":1,\"ts\":1,\"context\":[\"a\"],\"action\":0,\"propensity\":1,\"reward\":0,\"learner\":\"x\"}",
	"{\"epoch\":1,\"ts\":1,\"context\":{},\"action\":0,\"propensity\":1,\"reward\":0,\"learner\":\"x\"}",
	"{\"epoch\":1,\"ts\":1,\"context\":[NaN],\"action\":0,\"propensity\":1,\"reward\":0,\"learner\":\"x\"}",
	"{\"epoch\":1,\"ts\":1,\"context\":[],\"action\":-1,\"propensity\":1,\"reward\":0,\"learner\":\"x\"}",
	"{\"epoch\":1,\"ts\":1,\"context\":[],\"action\":4294967296,\"propensity\":1,\"reward\":0,\"learner\":\"x\"}",
	"{\"epoch\":1,\"ts\":1,\"context\":[],\"action\":0,\"propensity\":1.0001,\"reward\":0,\"learner\":\"x\"}",
	"{\"epoch\":1,\"ts\":1,\"context\":[],\"action\":0,\"propensity\":1,\"reward\":Infinity,\"learner\":\"x\"}",
	"{\"epoch\":1,\"ts\":1,\"context\":[],\"action\":0,\"propensity\":1,\"reward\":0,\"learner\":7}",
	"{\"epoch\":1,\"ts\":1,\"context\":[],\"action\":0,\"propensity\":1,\"reward\":0,\"learner\":\"0123456789012345678901234567890123\"}",
	"{\"epoch\":1,\"ts\":1,\"context\":[],\"action\":0,\"propensity\":1,\"reward\":0,\"learner\":\"a\\u0000b\"}",
	"{\"epoch\":1,\"ts\":1,\"context\":[],\"action\":0,\"propensity\":1,\"reward\":0,\"learner\":\"x\"}{}",
	"{\"epoch\":1,\"ts\":1,\"context\":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],\"action\":0,\"propensity\":1,\"reward\":0,\"learner\":\"x\"}",
};

START_TEST(parse_rejects)
{
	struct dlog_rec r;
	const char *s = bad_lines[_i];

	ck_assert_msg(dlog_parse_line(s, strlen(s), &r) == -EINVAL, "%s", s);
}
END_TEST

START_TEST(parse_accepts)
{
	static const char ok[] =
		"{\"learner\":\"x\",\"extra\":{\"a\":[1]},\"reward\":-2,"
		"\"propensity\":1,\"action\":4294967295,\"context\":[1e-3,-2],"
		"\"ts\":1.5e9,\"epoch\":18446744073709551615}  \r";
	struct dlog_rec r;

	/* members in any order, unknown ones ignored, trailing blanks ok */
	ck_assert_int_eq(dlog_parse_line(ok, strlen(ok), &r), 0);
	ck_assert_uint_eq(r.epoch, UINT64_MAX);
	ck_assert_uint_eq(r.action, UINT32_MAX);
	ck_assert(r.ts == 1.5e9 && r.reward == -2.0 && r.propensity == 1.0);
	ck_assert_uint_eq(r.ncontext, 2);
	ck_assert(r.context[0] == 1e-3 && r.context[1] == -2.0);
	ck_assert_str_eq(r.learner, "x");
}
END_TEST

START_TEST(open_errors)
{
	struct dlog_reader *rd;
	struct dlog *l;

	ck_assert_int_eq(dlog_open(&l, "/nonexistent-dir/x/log", 0, 3),
			 -ENOENT);
	ck_assert_int_eq(dlog_open(&l, "", 0, 3), -EINVAL);
	ck_assert_int_eq(dlog_open(&l, "/tmp/x", 0, DLOG_KEEP_MAX + 1), -EINVAL);
	ck_assert_int_eq(dlog_reader_open(&rd, "/nonexistent-dir/log"),
			 -ENOENT);
	ck_assert_int_eq(dlog_close(NULL), 0);
	dlog_reader_close(NULL);
}
END_TEST

static Suite *dlog_suite(void)
{
	Suite *s = suite_create("dlog");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, line_format);
	tcase_add_test(tc, round_trip);
	tcase_add_test(tc, bad_records_not_written);
	tcase_add_test(tc, rotation_at_size);
	tcase_add_test(tc, rotation_keeps_n);
	tcase_add_test(tc, rotation_keep_zero_and_off);
	tcase_add_test(tc, reopen_and_oversized);
	tcase_add_test(tc, rotation_failure_recovers);
	tcase_add_test(tc, rotation_after_log_removed);
	tcase_add_test(tc, fifo_does_not_block);
	tcase_add_test(tc, cut_write_spares_next);
	tcase_add_test(tc, opened_after_cut);
	tcase_add_test(tc, malformed_counted);
	tcase_add_loop_test(tc, parse_rejects, 0, ARRAY_SIZE(bad_lines));
	tcase_add_test(tc, parse_accepts);
	tcase_add_test(tc, open_errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(dlog_suite());
}
