// SPDX-License-Identifier: GPL-2.0
/* Tests for agent/policy/num.c: numbers typed by a user. */
#include "check_main.h"
#include <errno.h>
#include <stdint.h>

#include "num.h"

START_TEST(whole_numbers)
{
	uint64_t v = 7;

	ck_assert_int_eq(num_u64("0", 10, &v), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(num_u64("10", 10, &v), 0);
	ck_assert_uint_eq(v, 10);
	/* decimal, never octal or hex */
	ck_assert_int_eq(num_u64("010", 100, &v), 0);
	ck_assert_uint_eq(v, 10);
	ck_assert_int_eq(num_u64("08", 100, &v), 0);
	ck_assert_uint_eq(v, 8);
	ck_assert_int_eq(num_u64("18446744073709551615", UINT64_MAX, &v), 0);
	ck_assert_uint_eq(v, UINT64_MAX);
}
END_TEST

/* Not numbers: the value is left as it was. */
START_TEST(not_numbers)
{
	static const char *const bad[] = {
		"", " 1", "1 ", "-1", " -1", "+1", "1.5", "4k", "0x10", "five",
		"1\n", "\t2",
	};
	unsigned int i;
	uint64_t v = 7;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(num_u64(bad[i], UINT64_MAX, &v) == -EINVAL,
			      "\"%s\" taken", bad[i]);
		ck_assert_uint_eq(v, 7);
	}
}
END_TEST

/* Too big, for @max or for 64 bits: -ERANGE, the value left as it was. */
START_TEST(out_of_range)
{
	uint64_t v = 7;

	ck_assert_int_eq(num_u64("11", 10, &v), -ERANGE);
	ck_assert_int_eq(num_u64("18446744073709551616", UINT64_MAX, &v), -ERANGE);
	ck_assert_int_eq(num_u64("99999999999999999999999", UINT64_MAX, &v), -ERANGE);
	ck_assert_uint_eq(v, 7);
}
END_TEST

START_TEST(decimals)
{
	static const char *const bad[] = {
		"", " 1", "1 ", "inf", "-inf", "nan", "0x1p3", "1,5", "4k",
		".", "-", "e5", "1e", "1-2",
	};
	unsigned int i;
	double d = 7;

	ck_assert_int_eq(num_double("0.25", &d), 0);
	ck_assert_double_eq(d, 0.25);
	ck_assert_int_eq(num_double("-1.5e2", &d), 0);
	ck_assert_double_eq(d, -150);
	ck_assert_int_eq(num_double("+3", &d), 0);
	ck_assert_double_eq(d, 3);
	ck_assert_int_eq(num_double("010", &d), 0);
	ck_assert_double_eq(d, 10);
	d = 7;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(num_double(bad[i], &d) == -EINVAL, "\"%s\" taken",
			      bad[i]);
	ck_assert_int_eq(num_double("1e999", &d), -ERANGE);
	ck_assert_int_eq(num_double("-1e999", &d), -ERANGE);
	ck_assert_double_eq(d, 7);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("num");
	TCase *tc = tcase_create("num");

	tcase_add_test(tc, whole_numbers);
	tcase_add_test(tc, not_numbers);
	tcase_add_test(tc, out_of_range);
	tcase_add_test(tc, decimals);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
