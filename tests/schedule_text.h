/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/schedule_text.h — a schedule's listing as a string, for tests that
 * compare listings (include after cmocka.h).  fn is cc_schedule_print or
 * cc_schedule_print_primitives; rank -1 lists every rank.  The caller
 * frees the text. */
#ifndef CCLAB_TESTS_SCHEDULE_TEXT_H
#define CCLAB_TESTS_SCHEDULE_TEXT_H

#include <stdio.h>

#include "core/schedule.h"

typedef void (*schedule_print_fn)(FILE *f, const struct cc_schedule *s, int rank);

/* Not inlined: inlined, gcc takes the text for a pointer to the local
 * that open_memstream() writes it through (-Wdangling-pointer). */
__attribute__((noinline, unused)) static char *schedule_text(schedule_print_fn fn,
							     const struct cc_schedule *s, int rank)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fn(f, s, rank);
	assert_int_equal(fclose(f), 0);
	assert_non_null(buf);
	return buf;
}

#endif
