// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: a learner's saved state (bandit_load), the payload of
 * a model file once its header and CRC are checked, so that a model file
 * that is intact as a file but wrong inside is refused, not trusted. A
 * state that loads must also be usable: one choose and one update.
 *
 * Each input is tried as it is and again with its two CRC-32s made right:
 * a mutated header or payload almost never keeps its CRC, so without the
 * second try the checks behind the CRCs (dimensions, parameters, the
 * arms' numbers) and a loaded state's choose and update would see the
 * seeds only.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bandit.h"
#include "modelfile.h"	/* modelfile_crc32: the same CRC-32 as bandit.c's */

/* bandit.c's snapshot layout (its comment above SNAP_HEADER) */
#define HDR_V1		116
#define HDR_V2		124
#define OFF_VERSION	8
#define OFF_PAYLOAD	104

static void try_load(const uint8_t *data, size_t size)
{
	struct bandit *b = NULL;
	double x[64] = { 1 };
	unsigned int arm;
	FILE *f;

	f = fmemopen((void *)data, size, "rb");
	if (!f)
		return;
	if (!bandit_load(&b, f) && b) {
		if (bandit_dim(b) <= 64 && !bandit_choose(b, x, &arm, NULL)) {
			if (arm >= bandit_arms(b))
				abort();	/* a choice must name an arm */
			bandit_update(b, x, arm, 1.0);
		}
		bandit_free(b);
	}
	fclose(f);
}

static uint64_t get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* @d with the header's CRC, and the payload's where it fits, recomputed */
static void fix_crcs(uint8_t *d, size_t size)
{
	uint32_t version;
	uint64_t plen;
	size_t hlen;

	if (size < HDR_V1)
		return;
	version = (uint32_t)get_le(d + OFF_VERSION, 4);
	hlen = version == 1 ? HDR_V1 : HDR_V2;
	if (size < hlen)
		return;
	put_le32(d + hlen - 4, modelfile_crc32(d, hlen - 4));
	plen = get_le(d + OFF_PAYLOAD, 8);
	if (plen <= size - hlen && size - hlen - plen >= 4)
		put_le32(d + hlen + plen, modelfile_crc32(d + hlen, plen));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	if (!size)
		return 0;
	try_load(data, size);
	copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	fix_crcs(copy, size);
	if (memcmp(copy, data, size))
		try_load(copy, size);
	free(copy);
	return 0;
}
