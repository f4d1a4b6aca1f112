/* SPDX-License-Identifier: GPL-2.0 */
/* What every unit-test file of the module's pure core shares. */
#ifndef INDIGO_UNIT_H
#define INDIGO_UNIT_H

#include <string.h>
#include "check_main.h"
#include "core.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#endif /* INDIGO_UNIT_H */
