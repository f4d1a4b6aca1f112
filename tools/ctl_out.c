// SPDX-License-Identifier: GPL-2.0
/* indigoctl's output: JSON, or tables for people (ctl_out.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ctl_out.h"

#define COLS_MAX	32

void ctl_add(struct json_object *o, const char *key, struct json_object *v)
{
	if (v && json_object_object_add(o, key, v))
		json_object_put(v);
}

void ctl_add_u64(struct json_object *o, const char *key, uint64_t v)
{
	ctl_add(o, key, json_object_new_uint64(v));
}

void ctl_add_str(struct json_object *o, const char *key, const char *v)
{
	ctl_add(o, key, json_object_new_string(v));
}

/* For people: numbers to 6 significant digits. Valid until the next call. */
static const char *cell(struct json_object *v)
{
	static char buf[32];

	if (!v)
		return "-";
	if (json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	if (json_object_is_type(v, json_type_double)) {
		snprintf(buf, sizeof(buf), "%.6g", json_object_get_double(v));
		return buf;
	}
	return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
}

/* An array of objects as a table whose columns are the first row's keys. */
static void table(struct json_object *a, int indent)
{
	size_t n = json_object_array_length(a), i, c, ncol = 0;
	const char *col[COLS_MAX];
	int width[COLS_MAX];
	struct json_object *row, *v;

	if (!n)
		return;
	row = json_object_array_get_idx(a, 0);
	if (!json_object_is_type(row, json_type_object))
		return;
	json_object_object_foreach(row, k, v0) {
		(void)v0;
		if (ncol < COLS_MAX)
			col[ncol++] = k;
	}
	for (c = 0; c < ncol; c++) {
		width[c] = (int)strlen(col[c]);
		for (i = 0; i < n; i++) {
			row = json_object_array_get_idx(a, i);
			json_object_object_get_ex(row, col[c], &v);
			if ((int)strlen(cell(v)) > width[c])
				width[c] = (int)strlen(cell(v));
		}
	}
	printf("%*s", indent, "");
	for (c = 0; c < ncol; c++)
		printf("%-*s%s", c + 1 < ncol ? width[c] : 0, col[c],
		       c + 1 < ncol ? "  " : "\n");
	for (i = 0; i < n; i++) {
		row = json_object_array_get_idx(a, i);
		printf("%*s", indent, "");
		for (c = 0; c < ncol; c++) {
			v = NULL;
			json_object_object_get_ex(row, col[c], &v);
			printf("%-*s%s", c + 1 < ncol ? width[c] : 0, cell(v),
			       c + 1 < ncol ? "  " : "\n");
		}
	}
}

static void human(struct json_object *o, int indent)
{
	json_object_object_foreach(o, k, v) {
		if (json_object_is_type(v, json_type_object)) {
			printf("%*s[%s]\n", indent, "", k);
			human(v, indent + 2);
		} else if (json_object_is_type(v, json_type_array) &&
			   json_object_array_length(v) &&
			   json_object_is_type(json_object_array_get_idx(v, 0),
					       json_type_object)) {
			printf("%*s[%s]\n", indent, "", k);
			table(v, indent + 2);
		} else {
			printf("%*s%s %s\n", indent, "", k, cell(v));
		}
	}
}

int ctl_flush(void)
{
	errno = 0;	/* what a failed write leaves, and nothing older */
	/* a full disk or a closed pipe: say so, not a bare exit status */
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "indigoctl: writing the output: %s\n",
			strerror(errno ? errno : EIO));
		return 1;
	}
	return 0;
}

int ctl_print(struct json_object *o, bool json)
{
	if (json)
		puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	else
		human(o, 0);
	return ctl_flush();
}
