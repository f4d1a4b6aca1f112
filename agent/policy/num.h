/* SPDX-License-Identifier: GPL-2.0 */
/* Numbers typed by a user: command-line options and config values. */
#ifndef INDIGO_NUM_H
#define INDIGO_NUM_H

#include <stdint.h>

/*
 * @s as a whole decimal number no greater than @max, into *@v.
 *
 * strtoull() alone skips blanks and takes a sign, so " -1" reads as
 * 2^64 - 1 (a repeat count that hangs, a free_min_kib that vetoes every
 * promotion), "five" as 0 and "4k" as 4; base 0 would read "010" as octal
 * 8. Here the first character must be a digit and so must every other.
 *
 * Returns 0; -EINVAL where @s is not a whole decimal number; -ERANGE
 * where it is one above @max (*@v is then left alone).
 */
int num_u64(const char *s, uint64_t max, uint64_t *v);

/*
 * @s as a decimal number ("1", "-0.5", "2.5e-3"), whole string, into *@v.
 * strtod() alone would also take blanks, "inf", "nan" and hex floats.
 * Returns 0; -EINVAL where @s is not one; -ERANGE where it is too big for
 * a double (*@v is then left alone). The caller checks its own range.
 */
int num_double(const char *s, double *v);

#endif /* INDIGO_NUM_H */
