/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The decision log: one JSON object per epoch, one per line (JSON Lines),
 * written with json-c:
 *
 *	{"epoch":12,"ts":1733140000.25,"context":[0.5,0.25,0.125,1],
 *	 "action":3,"propensity":0.2,"reward":-0.0125,"learner":"linucb"}
 *
 *	epoch		decision number, unsigned
 *	ts		when it was taken, seconds since the Unix epoch
 *	context		the features the learner saw (at most DLOG_CONTEXT_MAX)
 *	action		the arm chosen
 *	propensity	the probability the learner gave that arm, (0, 1]: what
 *			off-policy evaluation needs (ope.h)
 *	reward		what the epoch earned (costmodel.h: seconds)
 *	learner		who chose ("linucb", "thompson", "heuristic", ...)
 *
 * Doubles are written in the shortest form that reads back to the same
 * value. Readers ignore members they do not know, so more may be added.
 *
 * Rotation by size: before an append that would take the file past
 * max_bytes, FILE.(keep-1) becomes FILE.keep, ..., FILE becomes FILE.1, and
 * a new FILE is started; the oldest falls off. A FILE deleted or moved
 * away by someone else is not shifted: a new one is started at the path.
 * A record is never split, so a file exceeds max_bytes only if one record
 * alone does.
 *
 * All functions return 0 (or a count) or a negative errno; none prints.
 */
#ifndef INDIGO_DLOG_H
#define INDIGO_DLOG_H

#include <stddef.h>
#include <stdint.h>

#define DLOG_CONTEXT_MAX	32
#define DLOG_LEARNER_MAX	32	/* with the NUL */
#define DLOG_KEEP_DEFAULT	3
#define DLOG_KEEP_MAX		1000	/* each rotation renames them all */
#define DLOG_LINE_MAX		65536	/* a longer line is malformed */

struct dlog_rec {
	uint64_t epoch;
	double ts;				/* s since 1970 */
	size_t ncontext;
	double context[DLOG_CONTEXT_MAX];
	uint32_t action;
	double propensity;			/* (0, 1] */
	double reward;
	char learner[DLOG_LEARNER_MAX];
};

/* Writer. */
struct dlog;

/*
 * Opens (creating, mode 0640) or appends to the log at @path. @max_bytes:
 * rotation size, 0 for none; @keep: rotated files kept, at most
 * DLOG_KEEP_MAX (0: the log is just started afresh when full). A FIFO at
 * @path is written without blocking: appends fail (-EAGAIN) while it is
 * full.
 */
int dlog_open(struct dlog **out, const char *path, uint64_t max_bytes,
	      unsigned int keep);

/*
 * Appends @r as one line, rotating first if needed. -EINVAL for a record
 * that cannot be read back (non-finite numbers, propensity outside (0, 1],
 * too much context, learner not a terminated string); nothing is written
 * then. After a failed rotation or reopen, the next append tries again.
 * What a failed write left of its line is cut off again; a file found
 * ending in part of a line gets a newline before the next record.
 */
int dlog_append(struct dlog *l, const struct dlog_rec *r);

/* fdatasync()s the current file. */
int dlog_sync(struct dlog *l);

/* Closes and frees @l (NULL is fine); the result of close(). */
int dlog_close(struct dlog *l);

/* Reader. */
struct dlog_reader;

int dlog_reader_open(struct dlog_reader **out, const char *path);

/*
 * The next well-formed record: 1 and *@rec filled, 0 at the end of the
 * file, or -errno on a read error. Malformed lines (not JSON, a member
 * missing or of the wrong type or out of range, longer than DLOG_LINE_MAX,
 * containing a NUL, or a cut-off last line) are skipped and counted; blank
 * lines are skipped silently.
 */
int dlog_reader_next(struct dlog_reader *r, struct dlog_rec *rec);

/* Lines skipped as malformed so far. */
uint64_t dlog_reader_malformed(const struct dlog_reader *r);

/* The line number of the last line read (1-based). */
uint64_t dlog_reader_line(const struct dlog_reader *r);

void dlog_reader_close(struct dlog_reader *r);

/* Parses one line (without its newline): 0, -EINVAL, or -ENOMEM. */
int dlog_parse_line(const char *line, size_t len, struct dlog_rec *rec);

#endif /* INDIGO_DLOG_H */
