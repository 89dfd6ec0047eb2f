/* SPDX-License-Identifier: BSD-3-Clause */
/* bench/bench_eventq.c — throughput of the event engine (sim/event.c) under
 * the load the fabric models put on it: N components, each with exactly one
 * pending event (the head-of-line contract in sim/event.h), each handler
 * rescheduling its component after a pseudo-random delay — the classic
 * "hold" model of priority-queue benchmarks.  N is the pending-set size.
 *
 * A second mode, "rearm", adds what an RC requester does on every packet:
 * cancel the component's retransmission timer and arm it again further out
 * (the timer never fires), so each event costs two schedules and a cancel
 * and the heap carries tombstones.
 *
 * usage: bench_eventq [events-per-row [pending ...]]
 *        defaults: 20000000 events; pending 1000 100000 1000000 4000000
 * Prints events executed, wall seconds and events per wall second, CPU
 * seconds and events per CPU second (they differ when the machine is shared),
 * the engine's own arrays, the process's peak RSS (getrusage; monotonic, so
 * "so far"), setup time, and the simulated time reached.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "sim/event.h"

struct bench {
	uint64_t rng;
	uint64_t done, target;
	sim_event_id *timer; /* rearm mode: one per component */
};

/* xorshift64*: cheap enough not to dominate the handler. */
static inline uint64_t rnd(struct bench *b)
{
	b->rng ^= b->rng >> 12;
	b->rng ^= b->rng << 25;
	b->rng ^= b->rng >> 27;
	return b->rng * UINT64_C(2685821657736338717);
}

/* Delays uniform in [0, 2 us): mean 1 us, with exact ties now and then. */
static inline sim_time_ps delay(struct bench *b)
{
	return rnd(b) % (2 * SIM_PS_PER_US);
}

static void on_timeout(struct sim_engine *eng, void *ctx, uint64_t c)
{
	(void)eng;
	(void)ctx;
	fprintf(stderr, "bench_eventq: timer of component %" PRIu64 " fired\n", c);
	abort();
}

static void on_hold(struct sim_engine *eng, void *ctx, uint64_t c)
{
	struct bench *b = ctx;

	if (++b->done == b->target)
		sim_stop(eng);
	sim_schedule_in(eng, delay(b), on_hold, b, c);
}

static void on_rearm(struct sim_engine *eng, void *ctx, uint64_t c)
{
	struct bench *b = ctx;

	if (++b->done == b->target)
		sim_stop(eng);
	sim_cancel(eng, b->timer[c]);
	b->timer[c] = sim_schedule_in(eng, sim_ps_from_us(100), on_timeout, b, c);
	sim_schedule_in(eng, delay(b), on_rearm, b, c);
}

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now_s(void) { return clock_s(CLOCK_MONOTONIC); }
static double cpu_s(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

static double peak_rss_mib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_maxrss / 1024.0; /* Linux: KiB */
}

static int run_row(const char *mode, uint64_t pending, uint64_t events)
{
	int rearm = strcmp(mode, "rearm") == 0;
	struct bench b = {.rng = UINT64_C(0x9e3779b97f4a7c15) ^ pending, .target = events};
	struct sim_engine eng;

	if (sim_engine_init(&eng, 0) || sim_engine_reserve(&eng, rearm ? 2 * pending : pending)) {
		fprintf(stderr, "bench_eventq: out of memory for %" PRIu64 " events\n", pending);
		return -ENOMEM;
	}
	if (rearm && !(b.timer = calloc(pending, sizeof(*b.timer)))) {
		sim_engine_destroy(&eng);
		return -ENOMEM;
	}
	double t0 = now_s();
	for (uint64_t c = 0; c < pending; c++) {
		if (rearm)
			b.timer[c] = sim_schedule(&eng, sim_ps_from_us(100), on_timeout, &b, c);
		sim_schedule(&eng, delay(&b), rearm ? on_rearm : on_hold, &b, c);
	}
	double t1 = now_s(), c1 = cpu_s();
	uint64_t ran = sim_run(&eng, SIM_TIME_NEVER);
	double t2 = now_s(), c2 = cpu_s();
	char simt[SIM_TIME_FMT_LEN];

	printf("%-6s %10" PRIu64 " %11" PRIu64 " %8.3f %8.2f %8.3f %8.2f %9.1f %9.1f %8.3f  %s\n",
	       mode, pending, ran, t2 - t1, (double)ran / (t2 - t1) / 1e6, c2 - c1,
	       (double)ran / (c2 - c1) / 1e6,
	       (double)sim_engine_mem_bytes(&eng) / (1 << 20), peak_rss_mib(), t1 - t0,
	       sim_time_fmt(sim_now(&eng), simt, sizeof(simt)));
	fflush(stdout);
	sim_engine_destroy(&eng);
	free(b.timer);
	return 0;
}

int main(int argc, char **argv)
{
	static const uint64_t def_sizes[] = {1000, 100000, 1000000, 4000000};
	uint64_t events = 20000000;

	if (argc > 1)
		events = strtoull(argv[1], NULL, 0);
	if (events == 0) {
		fprintf(stderr, "usage: %s [events-per-row [pending ...]]\n", argv[0]);
		return 2;
	}
	printf("# hold: N components, one pending event each, reschedule after U[0,2us)\n");
	printf("# rearm: hold + cancel and re-arm a 100 us timer per event\n");
	printf("%-6s %10s %11s %8s %8s %8s %8s %9s %9s %8s  %s\n", "mode", "pending", "events",
	       "wall_s", "Mev/s", "cpu_s", "Mev/cpus", "queue_MiB", "peakRSS", "setup_s", "sim_time");
	for (int mode = 0; mode < 2; mode++) {
		const char *name = mode ? "rearm" : "hold";
		if (argc > 2) {
			for (int i = 2; i < argc; i++)
				if (run_row(name, strtoull(argv[i], NULL, 0), events))
					return 1;
		} else {
			for (size_t i = 0; i < sizeof(def_sizes) / sizeof(def_sizes[0]); i++)
				if (run_row(name, def_sizes[i], events))
					return 1;
		}
	}
	return 0;
}
