/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_grow.c — cc_grow() (util/grow.h), the growth of every array
 * the schedule, the data executor and the simulator append to: the
 * capacities it takes (16, then doubling to the first power-of-two
 * multiple of 16 at or above what is asked), the elements kept across a
 * move, no call to realloc when there is room, and a request beyond a
 * uint32_t of elements or a size_t of bytes refused with -ENOMEM, the
 * array and capacity as they were (a failing realloc() is left out: under
 * ASan a request past its limit is a report, not NULL). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "util/grow.h"

struct elem {
	uint64_t a, b;
};

static void test_capacities(void **state)
{
	struct elem *arr = NULL;
	uint32_t cap = 0;

	(void)state;
	assert_int_equal(cc_grow(&arr, &cap, 0, sizeof(*arr)), 0);
	assert_null(arr); /* nothing asked, nothing made */
	assert_int_equal(cap, 0);
	assert_int_equal(cc_grow(&arr, &cap, 1, sizeof(*arr)), 0);
	assert_non_null(arr);
	assert_int_equal(cap, 16);
	for (uint32_t i = 0; i < 16; i++)
		arr[i] = (struct elem){ i, 3 * i };
	struct elem *before = arr;
	assert_int_equal(cc_grow(&arr, &cap, 16, sizeof(*arr)), 0);
	assert_ptr_equal(arr, before); /* room enough: untouched */
	assert_int_equal(cap, 16);
	assert_int_equal(cc_grow(&arr, &cap, 17, sizeof(*arr)), 0);
	assert_int_equal(cap, 32);
	assert_int_equal(cc_grow(&arr, &cap, 1000, sizeof(*arr)), 0);
	assert_int_equal(cap, 1024);
	for (uint32_t i = 0; i < 16; i++) {
		assert_int_equal(arr[i].a, i);
		assert_int_equal(arr[i].b, 3 * i);
	}
	free(arr);
}

static void test_refused(void **state)
{
	uint32_t *arr = NULL;
	uint32_t cap = 0;

	(void)state;
	assert_int_equal(cc_grow(&arr, &cap, 40, sizeof(*arr)), 0);
	assert_int_equal(cap, 64);
	arr[39] = 7;
	uint32_t *before = arr;
	/* more elements than a uint32_t counts */
	assert_int_equal(cc_grow(&arr, &cap, (uint64_t)UINT32_MAX + 1, sizeof(*arr)), -ENOMEM);
	/* more bytes than a size_t counts */
	assert_int_equal(cc_grow(&arr, &cap, 1u << 20, SIZE_MAX / 1024), -ENOMEM);
	assert_ptr_equal(arr, before);
	assert_int_equal(cap, 64);
	assert_int_equal(arr[39], 7);
	free(arr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capacities),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
