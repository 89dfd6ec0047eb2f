/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/calibrate_host.c — `cclab calibrate --host-bench`: how fast this CPU
 * reduces and copies, in the simulator's terms (cli/calibrate.h).
 *
 * The verbs executor reduces and copies host buffers on the rank's own
 * thread (core/exec_common.h, cc_exec_calc_host), and the simulator
 * charges such a call host.cpu_call_ps + bytes moved / host.cpu_thread_
 * bytes_per_s (sim/compute.h: a reduce of n bytes moves 3n, a copy 2n).
 * Both are fitted here by least squares to the median time of calls of
 * 16 KiB .. 2 MiB, float sum and memmove, as the executor makes them.
 * Run it where the ranks run (inside the VM for soft-RoCE), with the
 * machine otherwise idle: a shared CPU gives a shared rate. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/calibrate.h"
#include "core/dtype.h"

#define MIN_BYTES (16u << 10)
#define TRIALS 7u
#define TRIAL_NS 2000000.0 /* each trial repeats the call for ~2 ms */

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median over TRIALS of the mean time of one call. */
static double time_call(bool reduce, float *d, const float *a, const float *b, size_t bytes)
{
	double t[TRIALS];
	unsigned reps = 1;

	for (;;) { /* enough repetitions for a trial to last TRIAL_NS */
		double t0 = now_ns();

		for (unsigned r = 0; r < reps; r++)
			if (reduce)
				cc_reduce(d, a, b, bytes / 4, CC_FLOAT32, CC_SUM);
			else
				memmove(d, a, bytes);
		if (now_ns() - t0 >= TRIAL_NS / 4 || reps >= (1u << 20))
			break;
		reps *= 2;
	}
	reps *= 4;
	for (unsigned i = 0; i < TRIALS; i++) {
		double t0 = now_ns();

		for (unsigned r = 0; r < reps; r++)
			if (reduce)
				cc_reduce(d, a, b, bytes / 4, CC_FLOAT32, CC_SUM);
			else
				memmove(d, a, bytes);
		t[i] = (now_ns() - t0) / reps;
	}
	qsort(t, TRIALS, sizeof(t[0]), cmp_double);
	return t[TRIALS / 2];
}

int cal_host_bench(struct cal_host *h)
{
	size_t max = (size_t)MIN_BYTES << (CAL_HOST_SIZES - 1);
	float *a = malloc(max), *b = malloc(max), *d = malloc(max);
	double sx = 0, sy = 0, sxx = 0, sxy = 0, slope, icpt;

	memset(h, 0, sizeof(*h));
	if (!a || !b || !d) {
		free(a);
		free(b);
		free(d);
		return -ENOMEM;
	}
	for (size_t i = 0; i < max / 4; i++) {
		a[i] = (float)(i % 1000) * 0.5f;
		b[i] = (float)(i % 777) * 0.25f;
	}
	for (unsigned s = 0; s < CAL_HOST_SIZES; s++) {
		size_t bytes = (size_t)MIN_BYTES << s;

		for (int reduce = 1; reduce >= 0; reduce--) {
			h->moved[h->n] = (reduce ? 3 : 2) * (uint64_t)bytes;
			h->ns[h->n] = time_call(reduce, d, a, b, bytes);
			h->n++;
		}
	}
	free(a);
	free(b);
	free(d);
	for (unsigned i = 0; i < h->n; i++) {
		double x = (double)h->moved[i], y = h->ns[i];

		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
	}
	slope = (h->n * sxy - sx * sy) / (h->n * sxx - sx * sx); /* ns per byte */
	icpt = (sy - slope * sx) / h->n;
	if (!(slope > 0))
		return -ERANGE;
	h->bytes_per_s = (uint64_t)(1e9 / slope);
	h->call_ps = icpt > 0 ? (uint64_t)(icpt * 1e3) : 0;
	return 0;
}
