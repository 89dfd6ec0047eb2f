/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_flow.c — max-min fair flows (sim/flow.h), each end time
 * asserted to the picosecond against its closed form.
 *
 * Resources of 100 Gb/s carry 12.5 bytes per ns: a 1 MB flow alone takes
 * 80 us.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "sim/event.h"
#include "sim/flow.h"
#include "sim/time.h"

#define G100 UINT64_C(100000000000)
#define US UINT64_C(1000000)

struct fx {
	struct sim_engine eng;
	struct sim_flownet net;
	sim_time_ps end[8];
};

static void done(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct fx *f = ctx;

	f->end[arg] = sim_now(eng);
}

static void setup(struct fx *f, uint32_t nres)
{
	assert_int_equal(sim_engine_init(&f->eng, 0), 0);
	assert_int_equal(sim_flownet_init(&f->net, &f->eng, nres), 0);
	for (uint32_t i = 0; i < 8; i++)
		f->end[i] = SIM_TIME_NEVER;
}

static void teardown(struct fx *f)
{
	assert_int_equal(sim_flownet_active(&f->net), 0);
	sim_flownet_destroy(&f->net);
	sim_engine_destroy(&f->eng);
}

static void start(struct fx *f, uint64_t bytes, const uint32_t *res, const double *w, uint32_t n,
		  uint64_t id)
{
	assert_int_equal(sim_flow_start(&f->net, bytes, res, w, n, done, f, id), 0);
}

static const double ONE[4] = { 1, 1, 1, 1 };

static void test_one_flow(void **state)
{
	struct fx f;
	uint32_t r0 = 0;

	(void)state;
	setup(&f, 1);
	sim_flownet_set_rate(&f.net, 0, G100);
	start(&f, 1000000, &r0, ONE, 1, 0);
	sim_run(&f.eng, SIM_TIME_NEVER);
	assert_int_equal(f.end[0], 80 * US);
	teardown(&f);
}

/* w = 1.25: a payload byte takes 1.25 bytes of the resource (headers). */
static void test_weight(void **state)
{
	struct fx f;
	uint32_t r0 = 0;
	double w = 1.25;

	(void)state;
	setup(&f, 1);
	sim_flownet_set_rate(&f.net, 0, G100);
	start(&f, 1000000, &r0, &w, 1, 0);
	sim_run(&f.eng, SIM_TIME_NEVER);
	assert_int_equal(f.end[0], 100 * US);
	teardown(&f);
}

/* Two flows on one resource from t = 0: 2 MB through it, 160 us. */
static void test_two_share(void **state)
{
	struct fx f;
	uint32_t r0 = 0;

	(void)state;
	setup(&f, 1);
	sim_flownet_set_rate(&f.net, 0, G100);
	start(&f, 1000000, &r0, ONE, 1, 0);
	start(&f, 1000000, &r0, ONE, 1, 1);
	sim_run(&f.eng, SIM_TIME_NEVER);
	assert_int_equal(f.end[0], 160 * US);
	assert_int_equal(f.end[1], 160 * US);
	teardown(&f);
}

static void later(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct fx *f = ctx;
	uint32_t r0 = 0;

	(void)eng;
	start(f, arg, &r0, ONE, 1, 1);
}

/* A 1 MB flow alone for 40 us (0.5 MB left), then a 0.5 MB one joins:
 * each gets half, both end 80 us later. */
static void test_join(void **state)
{
	struct fx f;
	uint32_t r0 = 0;

	(void)state;
	setup(&f, 1);
	sim_flownet_set_rate(&f.net, 0, G100);
	start(&f, 1000000, &r0, ONE, 1, 0);
	sim_schedule(&f.eng, 40 * US, later, &f, 500000);
	sim_run(&f.eng, SIM_TIME_NEVER);
	assert_int_equal(f.end[0], 120 * US);
	assert_int_equal(f.end[1], 120 * US);
	teardown(&f);
}

/* Max-min, not proportional: A = 100G, B = 50G; flow 0 on A and B,
 * flow 1 on A, flow 2 on B.  B is the bottleneck: flows 0 and 2 get
 * 3.125 B/ns each; flow 1 the rest of A, 9.375 B/ns.  250 kB each of
 * flows 0 and 2 end at 80 us, when flow 1 has moved 750 kB of its 1.5 MB;
 * alone on A it ends 60 us later. */
static void test_max_min(void **state)
{
	struct fx f;
	uint32_t ab[2] = { 0, 1 }, a = 0, b = 1;

	(void)state;
	setup(&f, 2);
	sim_flownet_set_rate(&f.net, 0, G100);
	sim_flownet_set_rate(&f.net, 1, G100 / 2);
	start(&f, 250000, ab, ONE, 2, 0);
	start(&f, 1500000, &a, ONE, 1, 1);
	start(&f, 250000, &b, ONE, 1, 2);
	sim_run(&f.eng, SIM_TIME_NEVER);
	assert_int_equal(f.end[0], 80 * US);
	assert_int_equal(f.end[2], 80 * US);
	assert_int_equal(f.end[1], 140 * US);
	teardown(&f);
}

/* An unlimited resource is no constraint; no bytes end at once. */
static void test_unlimited_and_empty(void **state)
{
	struct fx f;
	uint32_t both[2] = { 0, 1 }, r0 = 0;

	(void)state;
	setup(&f, 2);
	sim_flownet_set_rate(&f.net, 1, G100);
	start(&f, 1000000, both, ONE, 2, 0);
	start(&f, 0, &r0, ONE, 1, 1);
	sim_run(&f.eng, SIM_TIME_NEVER);
	assert_int_equal(f.end[0], 80 * US);
	assert_int_equal(f.end[1], 0);
	teardown(&f);
}

/* Components: a flow on another resource keeps its end event while the
 * first resource's flows change. */
static void test_components(void **state)
{
	struct fx f;
	uint32_t a = 0, b = 1;

	(void)state;
	setup(&f, 2);
	sim_flownet_set_rate(&f.net, 0, G100);
	sim_flownet_set_rate(&f.net, 1, G100);
	start(&f, 1000000, &b, ONE, 1, 2);
	start(&f, 1000000, &a, ONE, 1, 0);
	sim_schedule(&f.eng, 40 * US, later, &f, 500000);
	sim_run(&f.eng, SIM_TIME_NEVER);
	assert_int_equal(f.end[2], 80 * US);
	assert_int_equal(f.end[0], 120 * US);
	assert_int_equal(f.end[1], 120 * US);
	teardown(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_flow),
		cmocka_unit_test(test_weight),
		cmocka_unit_test(test_two_share),
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_max_min),
		cmocka_unit_test(test_unlimited_and_empty),
		cmocka_unit_test(test_components),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
