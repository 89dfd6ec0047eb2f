/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_sim_engine.c — sim/time.h and the event engine (sim/event.c):
 * exact time arithmetic, the total order (time, insertion sequence) with
 * deliberate ties both ways, cancellation, handlers that schedule, and the
 * heap against plain reference orderings. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/event.h"
#include "sim/time.h"

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* A log of the args of executed events, with their times. */
struct rec {
	uint64_t arg[256];
	sim_time_ps at[256];
	size_t n;
};

static void record(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct rec *r = ctx;
	assert_true(r->n < 256);
	r->at[r->n] = sim_now(eng);
	r->arg[r->n++] = arg;
}

/* ---- time.h ---- */

static void test_time_units(void **state)
{
	(void)state;
	assert_int_equal(sim_ps_from_ns(3), 3000);
	assert_int_equal(sim_ps_from_us(3), 3000000);
	assert_int_equal(sim_ps_from_ms(3), UINT64_C(3000000000));
	assert_int_equal(sim_ps_from_s(3), UINT64_C(3000000000000));
	assert_true(sim_ps_from_s(UINT64_MAX / 1000) == SIM_TIME_NEVER); /* saturates */
}

static void test_serialize_exact(void **state)
{
	(void)state;
	/* ceil(B * 8 * 1e12 / R) */
	assert_int_equal(sim_serialize_ps(4096, UINT64_C(100000000000)), 327680);
	assert_int_equal(sim_serialize_ps(1, UINT64_C(400000000000)), 20);
	assert_int_equal(sim_serialize_ps(0, UINT64_C(400000000000)), 0);
	assert_int_equal(sim_serialize_ps(1500, UINT64_C(10000000000)), 1200000);
	assert_int_equal(sim_serialize_ps(64, UINT64_C(25000000000)), 20480);
	/* 8e12 / 3e11 = 26.67: rounded up, the link is busy until the last bit */
	assert_int_equal(sim_serialize_ps(1, UINT64_C(300000000000)), 27);
	assert_int_equal(sim_serialize_ps(1, 3), UINT64_C(2666666666667));
	/* 4178 B RoCEv2 frame + 20 B preamble/IFG at 400 Gb/s: 4198*8*1e12/4e11 */
	assert_int_equal(sim_serialize_ps(4198, UINT64_C(400000000000)), 83960);
	/* 2 GiB at 1 b/s needs more than 64 bits of ps */
	assert_true(sim_serialize_ps(UINT64_C(1) << 31, 1) == SIM_TIME_NEVER);
	/* the largest byte count still exact in 128 bits */
	assert_int_equal(sim_serialize_ps(UINT64_MAX, UINT64_MAX), 8000000000000);
}

static void test_time_fmt(void **state)
{
	char b[SIM_TIME_FMT_LEN];
	(void)state;
	assert_string_equal(sim_time_fmt(0, b, sizeof(b)), "0 ps");
	assert_string_equal(sim_time_fmt(20, b, sizeof(b)), "20 ps");
	assert_string_equal(sim_time_fmt(1000, b, sizeof(b)), "1 ns");
	assert_string_equal(sim_time_fmt(327680, b, sizeof(b)), "327.68 ns");
	assert_string_equal(sim_time_fmt(1500000, b, sizeof(b)), "1.5 us");
	assert_string_equal(sim_time_fmt(1000001, b, sizeof(b)), "1.000001 us");
	assert_string_equal(sim_time_fmt(SIM_PS_PER_S * 3 + 1, b, sizeof(b)), "3.000000000001 s");
	assert_string_equal(sim_time_fmt(UINT64_MAX, b, sizeof(b)), "18446744.073709551615 s");
}

/* ---- total order ---- */

/* 100 events at 5 ns, interleaved with events at 7 ns and 3 ns. */
static void run_ties(unsigned flags, struct rec *r)
{
	struct sim_engine eng;

	assert_int_equal(sim_engine_init(&eng, flags), 0);
	for (uint64_t i = 0; i < 100; i++) {
		sim_schedule(&eng, sim_ps_from_ns(5), record, r, i);
		if (i % 10 == 0) {
			sim_schedule(&eng, sim_ps_from_ns(7), record, r, 1000 + i);
			sim_schedule(&eng, sim_ps_from_ns(3), record, r, 2000 + i);
		}
	}
	assert_int_equal(sim_run(&eng, SIM_TIME_NEVER), 120);
	assert_int_equal(r->n, 120);
	sim_engine_destroy(&eng);
}

static void test_ties_fifo(void **state)
{
	struct rec r = {0};
	(void)state;
	run_ties(0, &r);
	for (size_t i = 0; i < 10; i++) /* 3 ns: insertion order */
		assert_int_equal(r.arg[i], 2000 + 10 * i);
	for (size_t i = 0; i < 100; i++)
		assert_int_equal(r.arg[10 + i], i);
	for (size_t i = 0; i < 10; i++)
		assert_int_equal(r.arg[110 + i], 1000 + 10 * i);
}

static void test_ties_lifo(void **state)
{
	struct rec r = {0};
	(void)state;
	run_ties(SIM_ENGINE_LIFO_TIES, &r);
	for (size_t i = 0; i < 10; i++) /* 3 ns: newest first; times still ordered */
		assert_int_equal(r.arg[i], 2000 + 10 * (9 - i));
	for (size_t i = 0; i < 100; i++)
		assert_int_equal(r.arg[10 + i], 99 - i);
	for (size_t i = 0; i < 10; i++)
		assert_int_equal(r.arg[110 + i], 1000 + 10 * (9 - i));
}

/* 100k random events over 1000 distinct times (so ~100 per time), 10% of
 * them cancelled; the engine's order must equal a sort by (time, seq) — or
 * (time, -seq) under LIFO ties. */
struct big {
	uint64_t *order;
	size_t n;
};

static void big_record(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct big *b = ctx;
	(void)eng;
	b->order[b->n++] = arg;
}

struct ref_ev {
	sim_time_ps t;
	uint64_t seq;
	int cancelled;
};

static int lifo_sort;

static int ref_cmp(const void *pa, const void *pb)
{
	const struct ref_ev *a = pa, *b = pb;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	if (lifo_sort)
		return a->seq > b->seq ? -1 : 1;
	return a->seq < b->seq ? -1 : 1;
}

static void big_vs_sorted(unsigned flags)
{
	enum { N = 100000 };
	struct ref_ev *ev = calloc(N, sizeof(*ev));
	sim_event_id *id = calloc(N, sizeof(*id));
	struct big b = {.order = calloc(N, sizeof(uint64_t))};
	struct sim_engine eng;
	uint64_t rng = 42;
	size_t live = N;

	assert_non_null(ev);
	assert_non_null(id);
	assert_non_null(b.order);
	assert_int_equal(sim_engine_init(&eng, flags), 0);
	for (size_t i = 0; i < N; i++) {
		ev[i] = (struct ref_ev){.t = splitmix64(&rng) % 1000, .seq = i};
		id[i] = sim_schedule(&eng, ev[i].t, big_record, &b, i);
		assert_true(id[i] != SIM_EVENT_NONE);
	}
	for (size_t i = 0; i < N; i++)
		if (splitmix64(&rng) % 10 == 0) {
			assert_int_equal(sim_cancel(&eng, id[i]), 0);
			ev[i].cancelled = 1;
			live--;
		}
	assert_int_equal(sim_pending(&eng), live);
	assert_int_equal(sim_run(&eng, SIM_TIME_NEVER), live);
	assert_int_equal(b.n, live);

	lifo_sort = !!(flags & SIM_ENGINE_LIFO_TIES);
	qsort(ev, N, sizeof(*ev), ref_cmp);
	size_t k = 0;
	for (size_t i = 0; i < N; i++) {
		if (ev[i].cancelled)
			continue;
		if (b.order[k] != ev[i].seq)
			fail_msg("event %zu: engine ran %" PRIu64 ", reference %" PRIu64, k,
				 b.order[k], ev[i].seq);
		k++;
	}
	assert_int_equal(k, live);
	sim_engine_destroy(&eng);
	free(ev);
	free(id);
	free(b.order);
}

static void test_heap_vs_sorted_fifo(void **state) { (void)state; big_vs_sorted(0); }
static void test_heap_vs_sorted_lifo(void **state) { (void)state; big_vs_sorted(SIM_ENGINE_LIFO_TIES); }

/* Hold model: N components, each rescheduling itself from its handler with a
 * pseudo-random delay in [0, 63] ps (0 = a tie at now), compared with a
 * linear-scan reference that assigns sequence numbers the same way. */
enum { HOLD_N = 1000, HOLD_EVENTS = 50000 };

struct hold {
	uint32_t fires[HOLD_N];
	uint32_t *order;
	size_t n;
};

static sim_time_ps hold_delay(uint64_t c, uint64_t k)
{
	uint64_t s = c * 1000003 + k;
	return splitmix64(&s) % 64;
}

static void hold_fire(struct sim_engine *eng, void *ctx, uint64_t c)
{
	struct hold *h = ctx;
	h->order[h->n++] = (uint32_t)c;
	if (h->n < HOLD_EVENTS)
		sim_schedule_in(eng, hold_delay(c, ++h->fires[c]), hold_fire, h, c);
}

static void hold_vs_reference(unsigned flags, uint64_t seq_limit)
{
	static struct hold h;
	static sim_time_ps t[HOLD_N];
	static uint64_t seq[HOLD_N];
	static int gone[HOLD_N];
	size_t total = HOLD_EVENTS + HOLD_N - 1;
	uint32_t *ref = calloc(total, sizeof(*ref));
	struct sim_engine eng;
	int lifo = !!(flags & SIM_ENGINE_LIFO_TIES);

	memset(&h, 0, sizeof(h));
	h.order = calloc(total, sizeof(*h.order));
	assert_non_null(h.order);
	assert_non_null(ref);
	assert_int_equal(sim_engine_init(&eng, flags), 0);
	if (seq_limit)
		eng.seq_limit = seq_limit; /* white box: force rank renumbering */
	for (uint64_t c = 0; c < HOLD_N; c++)
		sim_schedule(&eng, hold_delay(c, 0), hold_fire, &h, c);
	assert_int_equal(sim_run(&eng, SIM_TIME_NEVER), total);
	if (seq_limit)
		assert_true(eng.renumbered >= HOLD_EVENTS / seq_limit);

	uint64_t next = 0, fires[HOLD_N] = {0};
	for (size_t c = 0; c < HOLD_N; c++) {
		t[c] = hold_delay(c, 0);
		seq[c] = next++;
		gone[c] = 0;
	}
	for (size_t k = 0; k < total; k++) {
		size_t m = SIZE_MAX;
		for (size_t c = 0; c < HOLD_N; c++) {
			if (gone[c])
				continue;
			if (m == SIZE_MAX || t[c] < t[m] ||
			    (t[c] == t[m] && (lifo ? seq[c] > seq[m] : seq[c] < seq[m])))
				m = c;
		}
		ref[k] = (uint32_t)m;
		if (k + 1 < HOLD_EVENTS) {
			t[m] += hold_delay(m, ++fires[m]);
			seq[m] = next++;
		} else {
			gone[m] = 1;
		}
	}
	for (size_t k = 0; k < total; k++)
		if (h.order[k] != ref[k])
			fail_msg("event %zu: engine ran component %u, reference %u", k,
				 h.order[k], ref[k]);
	sim_engine_destroy(&eng);
	free(h.order);
	free(ref);
}

static void test_hold_vs_reference_fifo(void **state) { (void)state; hold_vs_reference(0, 0); }
static void test_hold_vs_reference_lifo(void **state) { (void)state; hold_vs_reference(SIM_ENGINE_LIFO_TIES, 0); }

/* The same with the 36-bit rank counter shrunk to 4096, so the pending
 * events are renumbered every ~3000 insertions. */
static void test_renumber_fifo(void **state) { (void)state; hold_vs_reference(0, 4096); }
static void test_renumber_lifo(void **state) { (void)state; hold_vs_reference(SIM_ENGINE_LIFO_TIES, 4096); }

/* All-tie rounds across renumberings: 200 components fire at the same
 * instants every 10 ps; FIFO keeps their order round after round, LIFO
 * reverses it every round. */
struct rounds {
	uint32_t order[100][200];
	size_t n;
};

static void round_fire(struct sim_engine *eng, void *ctx, uint64_t c)
{
	struct rounds *r = ctx;
	r->order[r->n / 200][r->n % 200] = (uint32_t)c;
	r->n++;
	if (r->n <= 99 * 200)
		sim_schedule_in(eng, 10, round_fire, r, c);
}

static void rounds_run(unsigned flags)
{
	static struct rounds r;
	struct sim_engine eng;

	memset(&r, 0, sizeof(r));
	assert_int_equal(sim_engine_init(&eng, flags), 0);
	eng.seq_limit = 512;
	for (uint64_t c = 0; c < 200; c++)
		sim_schedule(&eng, 0, round_fire, &r, c);
	assert_int_equal(sim_run(&eng, SIM_TIME_NEVER), 100 * 200);
	assert_true(eng.renumbered >= 30);
	for (size_t k = 0; k < 100; k++)
		for (size_t i = 0; i < 200; i++) {
			size_t want = (flags & SIM_ENGINE_LIFO_TIES) && k % 2 == 0 ? 199 - i : i;
			if (r.order[k][i] != want)
				fail_msg("round %zu position %zu: component %u, want %zu", k, i,
					 r.order[k][i], want);
		}
	sim_engine_destroy(&eng);
}

static void test_renumber_ties_fifo(void **state) { (void)state; rounds_run(0); }
static void test_renumber_ties_lifo(void **state) { (void)state; rounds_run(SIM_ENGINE_LIFO_TIES); }

/* ---- cancellation ---- */

static void test_cancel(void **state)
{
	struct sim_engine eng;
	struct rec r = {0};
	sim_event_id id[10];
	(void)state;

	assert_int_equal(sim_engine_init(&eng, 0), 0);
	for (uint64_t i = 0; i < 10; i++) {
		id[i] = sim_schedule(&eng, 100 + i, record, &r, i);
		assert_true(id[i] != SIM_EVENT_NONE);
		for (uint64_t j = 0; j < i; j++)
			assert_true(id[i] != id[j]);
	}
	assert_int_equal(sim_cancel(&eng, id[0]), 0); /* the head */
	assert_int_equal(sim_cancel(&eng, id[4]), 0);
	assert_int_equal(sim_cancel(&eng, id[9]), 0); /* the tail */
	assert_int_equal(sim_cancel(&eng, id[4]), -ENOENT); /* twice */
	assert_int_equal(sim_cancel(&eng, SIM_EVENT_NONE), -ENOENT);
	assert_int_equal(sim_cancel(&eng, (UINT64_C(7) << 32) | 123456), -ENOENT);
	assert_int_equal(sim_pending(&eng), 7);
	assert_int_equal(sim_run(&eng, SIM_TIME_NEVER), 7);
	const uint64_t want[] = {1, 2, 3, 5, 6, 7, 8};
	assert_int_equal(r.n, 7);
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(r.arg[i], want[i]);
	assert_int_equal(sim_cancel(&eng, id[1]), -ENOENT); /* already ran */

	/* A stale id must not hit the event that now reuses its slot. */
	sim_event_id a = sim_schedule(&eng, 200, record, &r, 50);
	assert_int_equal(sim_run(&eng, SIM_TIME_NEVER), 1);
	sim_event_id b = sim_schedule(&eng, 300, record, &r, 51);
	assert_true((uint32_t)a == (uint32_t)b); /* same slot, new generation */
	assert_true(a != b);
	assert_int_equal(sim_cancel(&eng, a), -ENOENT);
	assert_int_equal(sim_run(&eng, SIM_TIME_NEVER), 1);
	assert_int_equal(r.arg[r.n - 1], 51);
	assert_int_equal(eng.cancelled, 3);
	sim_engine_destroy(&eng);
}

/* A handler cancels a timer pending at its own time and cannot cancel itself. */
struct canceller {
	struct sim_engine *eng;
	sim_event_id timer, self;
	int self_rc;
	struct rec *r;
};

static void cancel_timer(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct canceller *c = ctx;
	(void)arg;
	assert_int_equal(sim_cancel(eng, c->timer), 0);
	c->self_rc = sim_cancel(eng, c->self);
	record(eng, c->r, 1);
}

static void test_cancel_from_handler(void **state)
{
	struct sim_engine eng;
	struct rec r = {0};
	struct canceller c = {.r = &r};
	(void)state;

	assert_int_equal(sim_engine_init(&eng, 0), 0);
	c.self = sim_schedule(&eng, 10, cancel_timer, &c, 0);
	c.timer = sim_schedule(&eng, 10, record, &r, 2); /* same time, later seq */
	sim_schedule(&eng, 11, record, &r, 3);
	assert_int_equal(sim_run(&eng, SIM_TIME_NEVER), 2);
	assert_int_equal(c.self_rc, -ENOENT);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.arg[0], 1);
	assert_int_equal(r.arg[1], 3);
	sim_engine_destroy(&eng);
}

/* Tombstones are reclaimed: a retransmission-timer pattern (cancel and
 * re-arm far in the future on every tick) keeps the heap bounded. */
struct rearm {
	sim_event_id timer;
	uint64_t ticks, timeouts;
	size_t max_heap;
};

static void rearm_timeout(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct rearm *a = ctx;
	(void)eng;
	(void)arg;
	a->timeouts++;
}

static void rearm_tick(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct rearm *a = ctx;
	(void)arg;
	assert_int_equal(sim_cancel(eng, a->timer), 0);
	a->timer = sim_schedule_in(eng, sim_ps_from_ms(1), rearm_timeout, a, 0);
	if (eng->n > a->max_heap)
		a->max_heap = eng->n;
	if (++a->ticks < 200000)
		sim_schedule_in(eng, 1000, rearm_tick, a, 0);
}

static void test_cancel_compaction(void **state)
{
	struct sim_engine eng;
	struct rearm a = {0};
	(void)state;

	assert_int_equal(sim_engine_init(&eng, 0), 0);
	a.timer = sim_schedule(&eng, sim_ps_from_ms(1), rearm_timeout, &a, 0);
	sim_schedule(&eng, 0, rearm_tick, &a, 0);
	sim_run(&eng, SIM_TIME_NEVER);
	assert_int_equal(a.ticks, 200000);
	assert_int_equal(a.timeouts, 1); /* only the last armed timer fires */
	assert_int_equal(eng.cancelled, 200000);
	assert_true(a.max_heap <= 2 * 1024 + 4); /* not 200000 tombstones */
	assert_int_equal(sim_pending(&eng), 0);
	sim_engine_destroy(&eng);
}

/* ---- handlers that schedule ---- */

struct chain {
	struct rec *r;
	int fanout; /* events each step schedules */
	int steps;
};

static void chain_step(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct chain *c = ctx;
	record(eng, c->r, arg);
	if (--c->steps <= 0)
		return;
	/* first at now (runs after what is already pending at now), then later */
	for (int i = 0; i < c->fanout; i++)
		sim_schedule(eng, sim_now(eng) + (sim_time_ps)i * 5, i == 0 ? chain_step : record,
			     i == 0 ? (void *)c : (void *)c->r, arg * 10 + (uint64_t)i);
}

static void test_schedule_from_handler(void **state)
{
	struct sim_engine eng;
	struct rec r = {0};
	struct chain c = {.r = &r, .fanout = 3, .steps = 3};
	(void)state;

	assert_int_equal(sim_engine_init(&eng, 0), 0);
	sim_schedule(&eng, 100, chain_step, &c, 1);
	sim_schedule(&eng, 100, record, &r, 2);  /* pending at 100 before the child */
	sim_schedule(&eng, 104, record, &r, 3);
	assert_int_equal(sim_run(&eng, SIM_TIME_NEVER), 9);
	/* 1@100 schedules 10@100, 11@105, 12@110; 10 schedules 100@100, 101@105,
	 * 102@110; 100 is the last step. */
	const uint64_t want_arg[] = {1, 2, 10, 100, 3, 11, 101, 12, 102};
	const sim_time_ps want_at[] = {100, 100, 100, 100, 104, 105, 105, 110, 110};
	assert_int_equal(r.n, 9);
	for (size_t i = 0; i < 9; i++) {
		assert_int_equal(r.arg[i], want_arg[i]);
		assert_int_equal(r.at[i], want_at[i]);
	}
	sim_engine_destroy(&eng);
}

/* ---- run limits and stop ---- */

static void test_run_until(void **state)
{
	struct sim_engine eng;
	struct rec r = {0};
	(void)state;

	assert_int_equal(sim_engine_init(&eng, 0), 0);
	sim_schedule(&eng, 10, record, &r, 1);
	sim_schedule(&eng, 20, record, &r, 2);
	sim_schedule(&eng, 30, record, &r, 3);
	assert_int_equal(sim_run(&eng, 20), 2); /* an event at `until` runs */
	assert_int_equal(sim_now(&eng), 20);
	assert_int_equal(sim_run(&eng, 25), 0);
	assert_int_equal(sim_now(&eng), 25); /* the interval was simulated */
	sim_schedule_in(&eng, 1, record, &r, 4); /* at 26 */
	assert_int_equal(sim_run(&eng, SIM_TIME_NEVER), 2);
	assert_int_equal(sim_now(&eng), 30);
	assert_int_equal(sim_run(&eng, SIM_TIME_NEVER), 0);
	assert_int_equal(sim_now(&eng), 30);
	assert_int_equal(r.arg[2], 4);
	assert_int_equal(r.at[2], 26);
	assert_int_equal(sim_events_executed(&eng), 4);
	sim_engine_destroy(&eng);
}

static void stopper(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	record(eng, ctx, arg);
	sim_stop(eng);
}

static void test_stop(void **state)
{
	struct sim_engine eng;
	struct rec r = {0};
	(void)state;

	assert_int_equal(sim_engine_init(&eng, 0), 0);
	sim_schedule(&eng, 10, record, &r, 1);
	sim_schedule(&eng, 20, stopper, &r, 2);
	sim_schedule(&eng, 30, record, &r, 3);
	assert_int_equal(sim_run(&eng, 1000), 2);
	assert_int_equal(sim_now(&eng), 20); /* stopped: the clock stays */
	assert_int_equal(sim_pending(&eng), 1);
	assert_int_equal(sim_run(&eng, 1000), 1);
	assert_int_equal(sim_now(&eng), 1000);
	sim_engine_destroy(&eng);
	assert_int_equal(sim_engine_init(&eng, 1u << 7), -EINVAL); /* unknown flag */
}

/* ---- invariant violations abort with the caller's file:line ---- */

static void schedule_past(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	(void)ctx;
	(void)arg;
	sim_schedule(eng, sim_now(eng) - 1, record, NULL, 0);
}

static void run_inside(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	(void)ctx;
	(void)arg;
	sim_run(eng, SIM_TIME_NEVER);
}

/* Runs fn in a child with the default SIGABRT action (cmocka's handler would
 * otherwise catch it) and returns what the child wrote to stderr. */
static void expect_abort(sim_handler_fn fn, const char *want1, const char *want2)
{
	int fd[2];
	char buf[512] = {0};
	int status;

	assert_int_equal(pipe(fd), 0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct sim_engine eng;
		signal(SIGABRT, SIG_DFL);
		dup2(fd[1], 2);
		if (sim_engine_init(&eng, 0) == 0) {
			sim_schedule(&eng, 100, fn, NULL, 0);
			sim_run(&eng, SIM_TIME_NEVER);
		}
		_exit(0);
	}
	close(fd[1]);
	size_t got = 0;
	ssize_t k;
	while (got < sizeof(buf) - 1 && (k = read(fd[0], buf + got, sizeof(buf) - 1 - got)) > 0)
		got += (size_t)k;
	close(fd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
	if (!strstr(buf, want1) || !strstr(buf, want2))
		fail_msg("stderr was: %s", buf);
}

static void test_invariant_aborts(void **state)
{
	(void)state;
	expect_abort(schedule_past, "test_sim_engine.c:", "scheduled in the past");
	expect_abort(run_inside, "event.c:", "called from an event handler");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time_units),
		cmocka_unit_test(test_serialize_exact),
		cmocka_unit_test(test_time_fmt),
		cmocka_unit_test(test_ties_fifo),
		cmocka_unit_test(test_ties_lifo),
		cmocka_unit_test(test_heap_vs_sorted_fifo),
		cmocka_unit_test(test_heap_vs_sorted_lifo),
		cmocka_unit_test(test_hold_vs_reference_fifo),
		cmocka_unit_test(test_hold_vs_reference_lifo),
		cmocka_unit_test(test_renumber_fifo),
		cmocka_unit_test(test_renumber_lifo),
		cmocka_unit_test(test_renumber_ties_fifo),
		cmocka_unit_test(test_renumber_ties_lifo),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_cancel_from_handler),
		cmocka_unit_test(test_cancel_compaction),
		cmocka_unit_test(test_schedule_from_handler),
		cmocka_unit_test(test_run_until),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_invariant_aborts),
	};
	return cmocka_run_group_tests_name("sim_engine", tests, NULL, NULL);
}
