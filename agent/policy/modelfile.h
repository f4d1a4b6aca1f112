/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Learned models on disk: one file per application, saved atomically and
 * checked on load.
 *
 * Format (little-endian), MODELFILE_HEADER_BYTES of header, then payload:
 *	0	8	magic "INDIGOMF"
 *	8	4	version of the payload (the caller's; 0 is invalid)
 *	12	4	CRC-32 (IEEE 802.3, as zlib) of the payload
 *	16	8	payload length in bytes
 *	24	...	payload
 *
 * Saving writes a temporary file in the same directory, fsyncs it, renames
 * it over the target and fsyncs the directory, so a crash leaves either the
 * old model or the new one. (A crash before the rename can leave a
 * ".NAME.tmp-XXXXXX" behind; loads never look at those.)
 *
 * A load that finds a file it cannot trust (truncated, corrupt, foreign,
 * too new) renames it to NAME.corrupt-<unix time> (for a post-mortem, and
 * so that the next save starts clean) and returns -EINVAL with a one-line
 * reason in the caller's buffer.
 *
 * All functions return 0 or a negative errno; none prints.
 */
#ifndef INDIGO_MODELFILE_H
#define INDIGO_MODELFILE_H

#include <stddef.h>
#include <stdint.h>

#define MODELFILE_MAGIC		"INDIGOMF"
#define MODELFILE_HEADER_BYTES	24
#define MODELFILE_MAX_PAYLOAD	(1U << 30)
#define MODELFILE_NAME_MAX	128	/* modelfile_name() output, with NUL */
#define MODELFILE_SUFFIX	".model"

/*
 * Saves @len bytes at @data as @path with @version (>= 1). No temporary
 * file is left behind. A failure writing leaves the old file, if any,
 * untouched; one syncing the directory comes after the rename, with the
 * new file in place but not yet sure to outlive a crash.
 */
int modelfile_save(const char *path, uint32_t version, const void *data,
		   size_t len, char *err, size_t errlen);

/*
 * Loads @path: on success *@data is a malloc'd copy of the payload (the
 * caller frees it; non-NULL even when *@len is 0) and *@version its
 * version, which is at most @max_version.
 *	-ENOENT		no file (nothing saved yet); nothing moved
 *	-EINVAL		untrustworthy file: moved aside, reason in @err
 *	-errno		could not read it (permissions, I/O); nothing moved
 */
int modelfile_load(const char *path, uint32_t max_version, void **data,
		   size_t *len, uint32_t *version, char *err, size_t errlen);

/* Why a file is moved aside: the middle of its new name. */
#define MODELFILE_ASIDE_CORRUPT		"corrupt"
#define MODELFILE_ASIDE_OTHER_SHAPE	"other-shape"

/*
 * Renames @path to PATH.WHY-<unix time>, as a load does with a file it
 * cannot trust (WHY "corrupt"): for a caller that finds the payload
 * unusable, or usable only by another agent (one upgraded or rolled back:
 * kept for it, not overwritten by the next save). Writes where the file
 * went, or why it stayed, to @where.
 */
void modelfile_move_aside(const char *path, const char *why, char *where,
			  size_t wlen);

/*
 * A safe file name for an application key (a cgroup path such as
 * "/system.slice/redis.service", or a command name), into @out of at least
 * MODELFILE_NAME_MAX bytes: only [A-Za-z0-9._-], not starting with '.' or
 * '-', ending in MODELFILE_SUFFIX. Keys that had to be changed or cut get
 * "-" and 16 hex digits of a hash of the whole key, so that different keys
 * keep different names. -EINVAL for an empty key, -ENOSPC for a small @out.
 */
int modelfile_name(const char *key, char *out, size_t outlen);

/* CRC-32 as in the header; crc32("123456789") = 0xcbf43926. */
uint32_t modelfile_crc32(const void *data, size_t len);

#endif /* INDIGO_MODELFILE_H */
