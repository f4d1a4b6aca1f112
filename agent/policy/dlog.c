// SPDX-License-Identifier: GPL-2.0
/*
 * The decision log: JSON Lines through json-c, rotated by size, and a
 * reader that survives whatever a crash or an editor left in the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <json-c/json.h>

#include "dlog.h"

struct dlog {
	int fd;			/* -1 after a failed rotation: reopen */
	bool torn;		/* the file may end in a cut-off line */
	char *path;
	char *rot;		/* room for "path.N" */
	size_t rotlen;
	uint64_t max_bytes;
	unsigned int keep;
};

struct dlog_reader {
	FILE *f;
	char *buf;		/* DLOG_LINE_MAX + 1 */
	json_tokener *tok;
	uint64_t line, malformed;
};

/* Writer */

static int open_log(struct dlog *l)
{
	struct stat st;
	char last;

	/*
	 * read too: the last byte tells whether the file ends a line.
	 * O_NONBLOCK: a FIFO there that no one drains must fail appends
	 * (EAGAIN), not hang the agent; files and /dev/null ignore it.
	 */
	l->fd = open(l->path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC |
		     O_NONBLOCK, 0640);
	if (l->fd < 0)
		return -errno;
	/* a crash, or a full disk before a restart, may have cut it short */
	l->torn = !fstat(l->fd, &st) && st.st_size > 0 &&
		  pread(l->fd, &last, 1, st.st_size - 1) == 1 && last != '\n';
	return 0;
}

int dlog_open(struct dlog **out, const char *path, uint64_t max_bytes,
	      unsigned int keep)
{
	struct dlog *l;
	size_t plen;
	int ret;

	if (!path || !*path || keep > DLOG_KEEP_MAX)
		return -EINVAL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	plen = strlen(path);
	l->rotlen = plen + 16;		/* ".4294967295" and the NUL */
	l->path = strdup(path);
	l->rot = malloc(l->rotlen);
	l->fd = -1;
	l->max_bytes = max_bytes;
	l->keep = keep;
	if (!l->path || !l->rot) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = open_log(l);
	if (ret)
		goto fail;
	*out = l;
	return 0;
fail:
	free(l->rot);
	free(l->path);
	free(l);
	return ret;
}

/* "path.N" in l->rot */
static const char *rot_name(struct dlog *l, unsigned int n)
{
	snprintf(l->rot, l->rotlen, "%s.%u", l->path, n);
	return l->rot;
}

/* path.(keep-1) -> path.keep, ..., path -> path.1; the oldest falls off. */
static int shift_files(struct dlog *l)
{
	char *from;
	unsigned int i;
	int ret = 0;

	if (!l->keep)
		return unlink(l->path) && errno != ENOENT ? -errno : 0;
	from = malloc(l->rotlen);
	if (!from)
		return -ENOMEM;
	for (i = l->keep; i > 1 && !ret; i--) {
		snprintf(from, l->rotlen, "%s.%u", l->path, i - 1);
		if (rename(from, rot_name(l, i)) && errno != ENOENT)
			ret = -errno;
	}
	free(from);
	if (!ret && rename(l->path, rot_name(l, 1)))
		ret = -errno;
	return ret;
}

static int rotate(struct dlog *l)
{
	struct stat ours, there;
	int ret;

	if (fstat(l->fd, &ours))
		return -errno;
	/*
	 * Deleted or moved away by someone else (an operator, logrotate):
	 * nothing of ours is at the path to shift, and renaming it would
	 * fail (ENOENT) on every append from now on. Start a new file.
	 */
	if (stat(l->path, &there)) {
		if (errno != ENOENT)
			return -errno;
	} else if (there.st_dev == ours.st_dev && there.st_ino == ours.st_ino) {
		ret = shift_files(l);
		if (ret)
			return ret;
	}
	/* the old file is renamed: whatever is still open there is done */
	close(l->fd);
	return open_log(l);
}

/* Shortest "%.Ng" that reads back as exactly @d: the log stays readable. */
static json_object *new_double(double d)
{
	char buf[32];
	int prec;

	for (prec = 1; prec < 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	if (prec == 17)
		snprintf(buf, sizeof(buf), "%.17g", d);
	return json_object_new_double_s(d, buf);
}

static bool rec_valid(const struct dlog_rec *r)
{
	size_t i;

	if (!isfinite(r->ts) || !isfinite(r->reward) ||
	    !(r->propensity > 0.0 && r->propensity <= 1.0) ||
	    r->ncontext > DLOG_CONTEXT_MAX ||
	    strnlen(r->learner, DLOG_LEARNER_MAX) == DLOG_LEARNER_MAX)
		return false;
	for (i = 0; i < r->ncontext; i++)
		if (!isfinite(r->context[i]))
			return false;
	return true;
}

/* Adds @v (NULL: allocation failed) to @o; @v is consumed either way. */
static bool add(json_object *o, const char *k, json_object *v)
{
	if (!v)
		return false;
	if (json_object_object_add(o, k, v)) {
		json_object_put(v);
		return false;
	}
	return true;
}

static bool fill_context(json_object *ctx, const struct dlog_rec *r)
{
	size_t i;

	for (i = 0; i < r->ncontext; i++) {
		json_object *v = new_double(r->context[i]);

		if (!v || json_object_array_add(ctx, v)) {
			json_object_put(v);
			return false;
		}
	}
	return true;
}

static json_object *rec_to_json(const struct dlog_rec *r)
{
	json_object *o = json_object_new_object(), *ctx;

	if (!o)
		return NULL;
	/* members in this order in the file: insertion order */
	ctx = json_object_new_array_ext((int)r->ncontext);
	if (!add(o, "epoch", json_object_new_uint64(r->epoch)) ||
	    !add(o, "ts", new_double(r->ts))) {
		json_object_put(ctx);
		goto fail;
	}
	/* from here on @ctx is @o's (or already freed by add()) */
	if (!add(o, "context", ctx) ||
	    !add(o, "action", json_object_new_int64(r->action)) ||
	    !add(o, "propensity", new_double(r->propensity)) ||
	    !add(o, "reward", new_double(r->reward)) ||
	    !add(o, "learner", json_object_new_string(r->learner)) ||
	    !fill_context(ctx, r))
		goto fail;
	return o;
fail:
	json_object_put(o);
	return NULL;
}

/*
 * One write for the line and its newline; O_APPEND keeps it whole. After
 * a cut-off line (@torn) a newline first ends it, so that it does not
 * take this line with it.
 */
static int write_line(int fd, bool torn, const char *s, size_t len)
{
	struct iovec iov[3] = {
		{ .iov_base = "\n", .iov_len = 1 },
		{ .iov_base = (void *)s, .iov_len = len },
		{ .iov_base = "\n", .iov_len = 1 },
	};
	struct iovec *v = torn ? iov : iov + 1;
	int cnt = torn ? 3 : 2;

	while (cnt) {
		ssize_t n = writev(fd, v, cnt);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		while (cnt && (size_t)n >= v->iov_len) {
			n -= v->iov_len;
			v++;
			cnt--;
		}
		if (cnt) {
			v->iov_base = (char *)v->iov_base + n;
			v->iov_len -= n;
		}
	}
	return 0;
}

/* Rotates if appending @len bytes would take the file past max_bytes. */
static int make_room(struct dlog *l, size_t len)
{
	struct stat st;

	if (l->fd < 0) {
		int ret = open_log(l);

		if (ret)
			return ret;
	}
	if (!l->max_bytes)
		return 0;
	/* stat, not a counter: another process may have truncated it */
	if (fstat(l->fd, &st))
		return -errno;
	if (st.st_size > 0 && (uint64_t)st.st_size + len > l->max_bytes)
		return rotate(l);
	return 0;
}

/*
 * Writes one line. A write that stops part way (disk full, the file size
 * limit) leaves part of a line that the next record would be appended to,
 * and both would read as one malformed line: the part is cut off again, or
 * where that fails too, the next record starts on a line of its own.
 */
static int write_record(struct dlog *l, const char *s, size_t len)
{
	struct stat st;
	int ret;

	if (fstat(l->fd, &st))
		return -errno;
	ret = write_line(l->fd, l->torn, s, len);
	if (!ret)
		l->torn = false;
	else if (ftruncate(l->fd, st.st_size))
		l->torn = true;
	return ret;
}

int dlog_append(struct dlog *l, const struct dlog_rec *r)
{
	const char *s;
	json_object *o;
	size_t len;
	int ret;

	if (!rec_valid(r))
		return -EINVAL;
	o = rec_to_json(r);
	if (!o)
		return -ENOMEM;
	s = json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN |
					      JSON_C_TO_STRING_NOSLASHESCAPE,
					      &len);
	ret = s ? make_room(l, len + 1) : -ENOMEM;
	if (!ret)
		ret = write_record(l, s, len);
	json_object_put(o);
	return ret;
}

int dlog_sync(struct dlog *l)
{
	if (l->fd < 0)
		return -EBADF;
	return fdatasync(l->fd) ? -errno : 0;
}

int dlog_close(struct dlog *l)
{
	int ret = 0;

	if (!l)
		return 0;
	if (l->fd >= 0 && close(l->fd))
		ret = -errno;
	free(l->rot);
	free(l->path);
	free(l);
	return ret;
}

/* Parsing */

static bool get(json_object *o, const char *k, json_type t, json_object **v)
{
	if (!json_object_object_get_ex(o, k, v))
		return false;
	if (t == json_type_double)	/* any number */
		return json_object_is_type(*v, json_type_double) ||
		       json_object_is_type(*v, json_type_int);
	return json_object_is_type(*v, t);
}

static bool get_finite(json_object *o, const char *k, double *d)
{
	json_object *v;

	if (!get(o, k, json_type_double, &v))
		return false;
	*d = json_object_get_double(v);
	return isfinite(*d);
}

/* json-c keeps integers as int64 or uint64; a negative one is no count. */
static bool get_uint(json_object *o, const char *k, uint64_t max, uint64_t *u)
{
	json_object *v;

	if (!get(o, k, json_type_int, &v) || json_object_get_int64(v) < 0)
		return false;
	*u = json_object_get_uint64(v);
	return *u <= max;
}

static bool get_context(json_object *o, struct dlog_rec *rec)
{
	json_object *a;
	size_t i, n;

	if (!get(o, "context", json_type_array, &a))
		return false;
	n = json_object_array_length(a);
	if (n > DLOG_CONTEXT_MAX)
		return false;
	for (i = 0; i < n; i++) {
		json_object *v = json_object_array_get_idx(a, i);

		if (!json_object_is_type(v, json_type_double) &&
		    !json_object_is_type(v, json_type_int))
			return false;
		rec->context[i] = json_object_get_double(v);
		if (!isfinite(rec->context[i]))
			return false;
	}
	rec->ncontext = n;
	return true;
}

static bool from_json(json_object *o, struct dlog_rec *rec)
{
	json_object *v;
	uint64_t action;
	const char *s;

	if (!json_object_is_type(o, json_type_object) ||
	    !get_uint(o, "epoch", UINT64_MAX, &rec->epoch) ||
	    !get_finite(o, "ts", &rec->ts) ||
	    !get_context(o, rec) ||
	    !get_uint(o, "action", UINT32_MAX, &action) ||
	    !get_finite(o, "propensity", &rec->propensity) ||
	    !(rec->propensity > 0.0 && rec->propensity <= 1.0) ||
	    !get_finite(o, "reward", &rec->reward) ||
	    !get(o, "learner", json_type_string, &v))
		return false;
	rec->action = (uint32_t)action;
	s = json_object_get_string(v);
	if ((size_t)json_object_get_string_len(v) >= DLOG_LEARNER_MAX ||
	    strlen(s) != (size_t)json_object_get_string_len(v))
		return false;
	memcpy(rec->learner, s, strlen(s) + 1);
	return true;
}

static int parse(json_tokener *tok, const char *line, size_t len,
		 struct dlog_rec *rec)
{
	struct dlog_rec tmp;
	json_object *o;
	size_t end;
	bool ok;

	if (len > DLOG_LINE_MAX)
		return -EINVAL;
	json_tokener_reset(tok);
	o = json_tokener_parse_ex(tok, line, (int)len);
	if (!o || json_tokener_get_error(tok) != json_tokener_success) {
		json_object_put(o);
		return -EINVAL;
	}
	/* one object per line: nothing but blanks may follow it */
	for (end = json_tokener_get_parse_end(tok); end < len; end++)
		if (line[end] != ' ' && line[end] != '\t' && line[end] != '\r')
			break;
	memset(&tmp, 0, sizeof(tmp));
	ok = end == len && from_json(o, &tmp);
	json_object_put(o);
	if (!ok)
		return -EINVAL;
	*rec = tmp;
	return 0;
}

int dlog_parse_line(const char *line, size_t len, struct dlog_rec *rec)
{
	json_tokener *tok = json_tokener_new();
	int ret;

	if (!tok)
		return -ENOMEM;
	ret = parse(tok, line, len, rec);
	json_tokener_free(tok);
	return ret;
}

/* Reader */

int dlog_reader_open(struct dlog_reader **out, const char *path)
{
	struct dlog_reader *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return -ENOMEM;
	r->f = fopen(path, "re");
	if (!r->f) {
		ret = -errno;
		free(r);
		return ret;
	}
	r->buf = malloc(DLOG_LINE_MAX + 1);
	r->tok = json_tokener_new();
	if (!r->buf || !r->tok) {
		dlog_reader_close(r);
		return -ENOMEM;
	}
	*out = r;
	return 0;
}

enum line_kind { LINE_EOF, LINE_OK, LINE_BAD };

/*
 * Reads one line into r->buf (no newline); *len its length. A line too
 * long or with a NUL is consumed whole and reported LINE_BAD.
 */
static int read_line(struct dlog_reader *r, size_t *len, enum line_kind *kind)
{
	bool bad = false;
	size_t n = 0;
	int c;

	while ((c = getc_unlocked(r->f)) != EOF && c != '\n') {
		if (!c || n >= DLOG_LINE_MAX)
			bad = true;
		else
			r->buf[n++] = (char)c;
	}
	if (ferror(r->f))
		return errno ? -errno : -EIO;
	if (c == EOF && !n && !bad) {
		*kind = LINE_EOF;
		return 0;
	}
	r->line++;
	r->buf[n] = '\0';
	*len = n;
	*kind = bad ? LINE_BAD : LINE_OK;
	return 0;
}

static bool blank(const char *s)
{
	for (; *s; s++)
		if (*s != ' ' && *s != '\t' && *s != '\r')
			return false;
	return true;
}

int dlog_reader_next(struct dlog_reader *r, struct dlog_rec *rec)
{
	enum line_kind kind;
	size_t len;
	int ret;

	for (;;) {
		ret = read_line(r, &len, &kind);
		if (ret)
			return ret;
		if (kind == LINE_EOF)
			return 0;
		if (kind == LINE_OK && blank(r->buf))
			continue;
		if (kind == LINE_OK && !parse(r->tok, r->buf, len, rec))
			return 1;
		r->malformed++;
	}
}

uint64_t dlog_reader_malformed(const struct dlog_reader *r)
{
	return r->malformed;
}

uint64_t dlog_reader_line(const struct dlog_reader *r)
{
	return r->line;
}

void dlog_reader_close(struct dlog_reader *r)
{
	if (!r)
		return;
	if (r->f)
		fclose(r->f);
	json_tokener_free(r->tok);
	free(r->buf);
	free(r);
}
