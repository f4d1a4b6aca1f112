/* SPDX-License-Identifier: GPL-2.0 */
/* The simulator's command-line numbers (indigo-sim, lackey2trace). */
#ifndef INDIGO_SIM_NUM_H
#define INDIGO_SIM_NUM_H

#include <stdint.h>

/*
 * Whole-string numbers only, within @max: strtoull() alone reads "five" as
 * 0 and "-1" as four billion billion (a repeat count that hangs, a cache
 * of 2^54 KiB that shifts to 0 bytes). Decimal only: a user's "08" is 8,
 * not an error, and "010" is 10, not octal 8. 0 or -EINVAL.
 */
int num_u64(const char *s, uint64_t max, uint64_t *v);

#endif /* INDIGO_SIM_NUM_H */
