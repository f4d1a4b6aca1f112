/* SPDX-License-Identifier: GPL-2.0 */
/* main() of every Check test file, module core and agent alike. */
#ifndef INDIGO_CHECK_MAIN_H
#define INDIGO_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

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

#endif /* INDIGO_CHECK_MAIN_H */
