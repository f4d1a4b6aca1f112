/* SPDX-License-Identifier: GPL-2.0 */
/* What every unit-test file of the pure core shares: includes and main(). */
#ifndef INDIGO_UNIT_H
#define INDIGO_UNIT_H

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "core.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Runs @s; the exit status says whether any test failed. */
static inline int unit_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif /* INDIGO_UNIT_H */
