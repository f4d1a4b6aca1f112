// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: indigod's config parser (config_parse_string) and its
 * command-line overrides, on arbitrary text. Either parses or says why,
 * with @cfg untouched on error; never crashes (tests/fuzz/README.md).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct indigod_config cfg, before;
	char err[256], *text = malloc(size + 1);
	const char *ov[1];

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	config_defaults(&cfg);
	before = cfg;
	if (config_parse_string(&cfg, text, "fuzz.conf", err, sizeof(err)) &&
	    memcmp(&cfg, &before, sizeof(cfg)))
		abort();	/* an error must leave the config as it was */
	/* the same bytes as one "section.key=value" override */
	ov[0] = text;
	config_apply_overrides(&cfg, ov, 1, err, sizeof(err));
	free(text);
	return 0;
}
