/* SPDX-License-Identifier: GPL-2.0 */
/*
 * indigoctl's output: every command builds one JSON object, printed as it
 * is with --json, or for people:
 *
 *	scalars			"key value", one per line
 *	an object		"[key]" then its members, indented
 *	an array of objects	a table: a header of their keys, a row each
 *
 * so the two never disagree.
 */
#ifndef INDIGO_CTL_OUT_H
#define INDIGO_CTL_OUT_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

/* Prints @o (not consumed) to stdout; 0, or 1 when it could not. */
int ctl_print(struct json_object *o, bool json);
/* Flushes stdout; 0, or 1 (and why, on stderr) when it could not. */
int ctl_flush(void);

/* Adds to @o; the value is consumed. Silently drops it on allocation failure. */
void ctl_add(struct json_object *o, const char *key, struct json_object *v);
void ctl_add_u64(struct json_object *o, const char *key, uint64_t v);
void ctl_add_str(struct json_object *o, const char *key, const char *v);

#endif /* INDIGO_CTL_OUT_H */
