/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/clock.h — real time for the tests that bound how long a command
 * takes (a refusal, a deadline): CLOCK_MONOTONIC, which no clock change
 * moves. */
#ifndef CCLAB_TESTS_CLOCK_H
#define CCLAB_TESTS_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline double monotonic_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static inline int64_t monotonic_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

#endif /* CCLAB_TESTS_CLOCK_H */
