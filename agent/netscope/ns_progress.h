/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An application's own progress figure: a count of units of work done
 * (requests served, steps computed) that only grows. Read from a file the
 * application rewrites ("/run/app/progress"), or from a Unix stream socket
 * that answers each connection with the figure, ended by a newline or by
 * closing ("unix:/run/app.sock").
 */
#ifndef INDIGO_NS_PROGRESS_H
#define INDIGO_NS_PROGRESS_H

/* 0 and the figure in *units, or -errno (-EINVAL: not a number,
 * -EOVERFLOW: more than 63 bytes, too long to be one, -EAGAIN: a socket's
 * not whole within 100 ms). */
int ns_progress_read(const char *source, double *units);

#endif /* INDIGO_NS_PROGRESS_H */
