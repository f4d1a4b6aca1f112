// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for agent/gpu/cuerr.c: every CUresult has its own name and a real
 * message, with and without the driver's words; when the build found
 * cuda.h, every code it defines is in the table under its own name.
 */
#include "check_main.h"
#include <errno.h>
#include <string.h>

#include "cuerr.h"

#ifdef INDIGO_GPU
#include <cuda.h>
#endif

/* No "unknown"-style filler: each message says something of its own */
static void real_message(int code)
{
	const char *name = gpu_cuerr_name(code), *text = gpu_cuerr_text(code);
	char buf[GPU_CUERR_MAX];

	ck_assert_msg(name && text, "code %d missing", code);
	ck_assert_msg(!strncmp(name, "CUDA_", 5), "%s", name);
	ck_assert_msg(strlen(text) >= 7, "%s: \"%s\" is too short", name, text);
	ck_assert_msg(code == 999 || !strstr(text, "unknown"), "%s: %s", name, text);
	ck_assert_msg(!strstr(text, "error code"), "%s: %s", name, text);
	gpu_cuerr_describe(code, NULL, NULL, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, name));
	ck_assert_ptr_nonnull(strstr(buf, text));
	ck_assert_uint_lt(strlen(buf), sizeof(buf) - 1);	/* not cut */
}

START_TEST(table)
{
	const char *names[256], *texts[256];
	size_t i, j, n;
	int prev = -1, code;

	for (n = 0; (code = gpu_cuerr_code_at(n)) >= 0; n++) {
		ck_assert_uint_lt(n, 256);
		ck_assert_int_gt(code, prev);	/* sorted: the lookup bisects */
		prev = code;
		real_message(code);
		names[n] = gpu_cuerr_name(code);
		texts[n] = gpu_cuerr_text(code);
		for (j = 0; j < n; j++) {
			ck_assert_str_ne(names[j], names[n]);
			ck_assert_str_ne(texts[j], texts[n]);
		}
	}
	ck_assert_uint_ge(n, 100);
	for (i = 0; i < 1200; i++) {
		if (gpu_cuerr_name((int)i))
			continue;
		ck_assert_ptr_null(gpu_cuerr_text((int)i));
	}
}
END_TEST

/* The codes that the GPU tier meets most, by hand */
START_TEST(known)
{
	static const struct { int code; const char *name; } k[] = {
		{ 0, "CUDA_SUCCESS" },
		{ 3, "CUDA_ERROR_NOT_INITIALIZED" },
		{ 34, "CUDA_ERROR_STUB_LIBRARY" },
		{ 46, "CUDA_ERROR_DEVICE_UNAVAILABLE" },
		{ 100, "CUDA_ERROR_NO_DEVICE" },
		{ 214, "CUDA_ERROR_ECC_UNCORRECTABLE" },
		{ 719, "CUDA_ERROR_LAUNCH_FAILED" },
		{ 803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH" },
		{ 999, "CUDA_ERROR_UNKNOWN" },
	};
	size_t i;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		ck_assert_str_eq(gpu_cuerr_name(k[i].code), k[i].name);
}
END_TEST

#ifdef INDIGO_GPU
/*
 * Every code of the cuda.h this build uses, by its header name. The table
 * may hold more: codes of a cuda.h newer than this one (12.x builds too).
 */
START_TEST(header)
{
#define X(c) { c, #c },
	static const struct { int code; const char *name; } h[] = {
#include "cuda_codes.h"
	};
#undef X
	size_t i, n = 0;

	for (i = 0; i < sizeof(h) / sizeof(h[0]); i++) {
		ck_assert_str_eq(gpu_cuerr_name(h[i].code), h[i].name);
		real_message(h[i].code);
	}
	while (gpu_cuerr_code_at(n) >= 0)
		n++;
	ck_assert_uint_ge(n, sizeof(h) / sizeof(h[0]));
}
END_TEST
#endif

START_TEST(describe)
{
	char buf[GPU_CUERR_MAX], tiny[8];

	ck_assert_str_eq(gpu_cuerr_describe(2, NULL, NULL, buf, sizeof(buf)),
			 "CUDA_ERROR_OUT_OF_MEMORY: out of memory");
	/* the driver's words win */
	ck_assert_str_eq(gpu_cuerr_describe(2, "CUDA_ERROR_OUT_OF_MEMORY",
					    "out of memory (driver)", buf,
					    sizeof(buf)),
			 "CUDA_ERROR_OUT_OF_MEMORY: out of memory (driver)");
	/* a code newer than the table */
	ck_assert_str_eq(gpu_cuerr_describe(1234, NULL, NULL, buf, sizeof(buf)),
			 "CUresult 1234: unknown code (a driver newer than INDIGO?)");
	/* ... that the driver knows */
	ck_assert_str_eq(gpu_cuerr_describe(1234, "CUDA_ERROR_NEW", "new thing",
					    buf, sizeof(buf)),
			 "CUDA_ERROR_NEW: new thing");
	ck_assert_str_eq(gpu_cuerr_describe(1234, NULL, "new thing", buf,
					    sizeof(buf)),
			 "CUresult 1234: new thing");
	ck_assert_str_eq(gpu_cuerr_describe(-5, NULL, NULL, buf, sizeof(buf)),
			 "CUresult -5: unknown code (a driver newer than INDIGO?)");
	gpu_cuerr_describe(2, NULL, NULL, tiny, sizeof(tiny));
	ck_assert_str_eq(tiny, "CUDA_ER");
}
END_TEST

START_TEST(errnos)
{
	ck_assert_int_eq(gpu_cuerr_errno(0), 0);
	ck_assert_int_eq(gpu_cuerr_errno(100), -ENODEV);
	/* busy (exclusive-process compute mode), not gone: a later probe may work */
	ck_assert_int_eq(gpu_cuerr_errno(46), -EBUSY);
	ck_assert(!gpu_cuerr_device_lost(46));
	ck_assert_int_eq(gpu_cuerr_errno(719), -ENODEV);
	ck_assert_int_eq(gpu_cuerr_errno(2), -ENOMEM);
	ck_assert_int_eq(gpu_cuerr_errno(34), -EPROTO);
	ck_assert_int_eq(gpu_cuerr_errno(36), -EPROTO);
	ck_assert_int_eq(gpu_cuerr_errno(803), -EPROTO);
	ck_assert_int_eq(gpu_cuerr_errno(1), -EIO);
	ck_assert_int_eq(gpu_cuerr_errno(1234), -EIO);
	ck_assert(gpu_cuerr_device_lost(214));
	ck_assert(!gpu_cuerr_device_lost(1));
	ck_assert(!gpu_cuerr_device_lost(100));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("gpu-cuerr");
	TCase *tc = tcase_create("cuerr");

	tcase_add_test(tc, table);
	tcase_add_test(tc, known);
#ifdef INDIGO_GPU
	tcase_add_test(tc, header);
#endif
	tcase_add_test(tc, describe);
	tcase_add_test(tc, errnos);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
