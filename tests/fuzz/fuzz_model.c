// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: a learner's saved state (bandit_load), the payload of
 * a model file once its header and CRC are checked, so that a model file
 * that is intact as a file but wrong inside is refused, not trusted. A
 * state that loads must also be usable: one choose and one update.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bandit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bandit *b = NULL;
	double x[64] = { 1 };
	unsigned int arm;
	FILE *f;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "rb");
	if (!f)
		return 0;
	if (!bandit_load(&b, f) && b) {
		if (bandit_dim(b) <= 64 && !bandit_choose(b, x, &arm, NULL))
			bandit_update(b, x, arm, 1.0);
		bandit_free(b);
	}
	fclose(f);
	return 0;
}
