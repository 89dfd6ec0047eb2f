/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/quick.h — whether CCLAB_MATRIX=quick asks for the short run:
 * `make test`'s unit and sanitizer passes (tests/run.sh under test-run),
 * where each program runs less of what it checks (docs/testing.md says
 * what each one drops; `make test-matrix` runs them in full). */
#ifndef CCLAB_TESTS_QUICK_H
#define CCLAB_TESTS_QUICK_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static inline bool matrix_quick(void)
{
	const char *m = getenv("CCLAB_MATRIX");

	return m && !strcmp(m, "quick");
}

#endif
