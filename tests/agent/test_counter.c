// SPDX-License-Identifier: GPL-2.0
/* Tests for agent/policy/counter.c: a counter's growth between readings. */
#include "check_main.h"

#include "counter.h"

START_TEST(growth)
{
	struct counter_src c = { 0 };
	uint64_t prev = 7;
	double dt = 7;

	ck_assert_int_eq(counter_step(&c, 100, 1.0, &prev, &dt), 0);
	ck_assert_uint_eq(prev, 7);		/* untouched */
	ck_assert_int_eq(counter_step(&c, 250, 1.5, &prev, &dt), 1);
	ck_assert_uint_eq(prev, 100);
	ck_assert_double_eq(dt, 0.5);
	/* went back: restarted; the next reading compares with it */
	ck_assert_int_eq(counter_step(&c, 10, 2.0, &prev, &dt), 0);
	ck_assert_int_eq(counter_step(&c, 30, 3.0, &prev, &dt), 1);
	ck_assert_uint_eq(prev, 10);
	/* the clock did not advance */
	ck_assert_int_eq(counter_step(&c, 40, 3.0, &prev, &dt), 0);
	counter_reset(&c);
	ck_assert_int_eq(counter_step(&c, 50, 4.0, &prev, &dt), 0);
	ck_assert_int_eq(counter_step(&c, 50, 5.0, &prev, &dt), 1);
	ck_assert_uint_eq(prev, 50);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("counter");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, growth);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
