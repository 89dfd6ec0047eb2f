/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_pcie_uplink.c — a PCIe switch's uplink shared by the devices
 * behind it (sim/pcie.h): device batches and bulk transfers, each time
 * asserted to the picosecond against its closed form.
 *
 * Device links and the uplink: tests/pcie_link.h's link (100 Gb/s, L =
 * 250 ns, MPS 256, MRRS 512), switch hop H = 105 ns.  A 256 B write is one
 * MWr: ser = 280 * 80 = 22400 ps on either link.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "sim/event.h"
#include "sim/gpu_host.h"
#include "sim/params.h"
#include "sim/pcie.h"
#include "sim/time.h"
#include "tests/pcie_link.h"

#define H_PS UINT64_C(105000)
#define MWR256 UINT64_C(22400)


struct two {
	struct sim_engine eng;
	struct sim_pcie a, b;
	struct sim_pcie_uplink up;
	struct sim_pcie_bulk ring[SIM_PCIE_NDIR][SIM_PCIE_BULK_RING];
	sim_time_ps done[8];
	unsigned ndone;
};

static void on_done(struct sim_engine *eng, void *ctx, uint64_t arg, sim_time_ps done_ps)
{
	struct two *t = ctx;

	(void)eng;
	assert_true(arg < 8);
	t->done[arg] = done_ps;
	t->ndone++;
}

static struct two *two_new(void)
{
	struct two *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	assert_int_equal(sim_engine_init(&t->eng, 0), 0);
	assert_int_equal(sim_pcie_init(&t->a, &t->eng, &test_pp), 0);
	assert_int_equal(sim_pcie_init(&t->b, &t->eng, &test_pp), 0);
	t->up = (struct sim_pcie_uplink){.rate_bps = test_pp.rate_bps, .latency_ps = H_PS, .ring = t->ring};
	return t;
}

static void two_free(struct two *t)
{
	sim_pcie_destroy(&t->a);
	sim_pcie_destroy(&t->b);
	sim_engine_destroy(&t->eng);
	free(t);
}

/* Two devices write 256 B to host memory at once: the uplink takes one
 * after the other.  a: ser + L + H; b: 2 ser + L + H.  Without the uplink
 * both would land at ser + L. */
static void test_two_writes_share(void **state)
{
	struct two *t = two_new();

	(void)state;
	assert_int_equal(sim_pcie_dma_write_via(&t->a, &t->up, 256, on_done, t, 0), 0);
	assert_int_equal(sim_pcie_dma_write_via(&t->b, &t->up, 256, on_done, t, 1), 0);
	sim_run(&t->eng, SIM_TIME_NEVER);
	assert_int_equal(t->ndone, 2);
	assert_int_equal(t->done[0], MWR256 + L_PS + H_PS);
	assert_int_equal(t->done[1], 2 * MWR256 + L_PS + H_PS);
	assert_int_equal(t->up.busy_ps[SIM_PCIE_UP], 2 * MWR256);
	assert_int_equal(t->up.busy_ps[SIM_PCIE_DOWN], 0);
	assert_int_equal(t->up.wire_bytes[SIM_PCIE_UP], 2 * 280);
	two_free(t);
}

/* GPUDirect RDMA turns at the switch: writes without the uplink are the
 * link's own, ser + L each, and leave the uplink untouched. */
static void test_peer_writes_skip_uplink(void **state)
{
	struct two *t = two_new();

	(void)state;
	assert_int_equal(sim_pcie_dma_write_via(&t->a, NULL, 256, on_done, t, 0), 0);
	assert_int_equal(sim_pcie_dma_write(&t->b, 256, on_done, t, 1), 0);
	sim_run(&t->eng, SIM_TIME_NEVER);
	assert_int_equal(t->done[0], MWR256 + L_PS);
	assert_int_equal(t->done[1], MWR256 + L_PS);
	assert_int_equal(t->up.busy_ps[SIM_PCIE_UP], 0);
	two_free(t);
}

/* A 512 B read through the uplink: MRd (24 B: 1920 ps) up, then two CplD
 * of 256 (276 B: 22080 ps each) down, each flight L + H:
 *   1920 + (L + H) + 2 * 22080 + (L + H). */
static void test_read_through_uplink(void **state)
{
	struct two *t = two_new();

	(void)state;
	assert_int_equal(sim_pcie_dma_read_via(&t->a, &t->up, 512, on_done, t, 0), 0);
	sim_run(&t->eng, SIM_TIME_NEVER);
	assert_int_equal(t->done[0], 1920 + 2 * (L_PS + H_PS) + 2 * 22080);
	assert_int_equal(t->up.busy_ps[SIM_PCIE_UP], 1920);
	assert_int_equal(t->up.busy_ps[SIM_PCIE_DOWN], 2 * 22080);
	two_free(t);
}

/* A bulk transfer holds the uplink for P from 0; a device batch at 0
 * shares it: the batch takes twice its serialization (2 ser + L + H), and
 * the bulk transfer ends ser later (P + ser), which its id tells. */
static void test_batch_shares_with_bulk(void **state)
{
	struct two *t = two_new();
	const sim_time_ps P = 1000000;
	uint64_t id;

	(void)state;
	assert_int_equal(sim_pcie_uplink_bulk(&t->up, SIM_PCIE_UP, 0, P, 0, 0, &id), P);
	assert_int_equal(id, 0);
	assert_int_equal(sim_pcie_dma_write_via(&t->a, &t->up, 256, on_done, t, 0), 0);
	sim_run(&t->eng, SIM_TIME_NEVER);
	assert_int_equal(t->done[0], 2 * MWR256 + L_PS + H_PS);
	assert_int_equal(sim_pcie_uplink_bulk_end(&t->up, SIM_PCIE_UP, id), P + MWR256);
	assert_int_equal(t->up.bulk_free[SIM_PCIE_UP], P + MWR256);
	/* The other direction is its own: nothing there. */
	assert_int_equal(t->up.bulk_free[SIM_PCIE_DOWN], 0);
	assert_int_equal(sim_pcie_uplink_bulk_end(&t->up, SIM_PCIE_DOWN, id), 0);
	two_free(t);
}

/* A bulk transfer with less left than the batch's time shares only that
 * much: P = ser / 2 from 0, a batch at 0 ends at ser + P (+ L + H), the
 * bulk transfer at 2P. */
static void test_batch_outlasts_bulk(void **state)
{
	struct two *t = two_new();
	const sim_time_ps P = MWR256 / 2;
	uint64_t id;

	(void)state;
	assert_int_equal(sim_pcie_uplink_bulk(&t->up, SIM_PCIE_UP, 0, P, 0, 0, &id), P);
	assert_int_equal(sim_pcie_dma_write_via(&t->a, &t->up, 256, on_done, t, 0), 0);
	sim_run(&t->eng, SIM_TIME_NEVER);
	assert_int_equal(t->done[0], MWR256 + P + L_PS + H_PS);
	assert_int_equal(sim_pcie_uplink_bulk_end(&t->up, SIM_PCIE_UP, id), 2 * P);
	two_free(t);
}

static void write_now(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct two *t = ctx;

	(void)eng;
	assert_int_equal(sim_pcie_dma_write_via(&t->a, &t->up, 256, on_done, t, arg), 0);
}

/* A batch pushes back only the bulk transfers still going: A holds [0, P],
 * B queued behind it [P, 2P]; a batch at P + 1 shares with B (ends
 * 2P + ser), and A's end stays P. */
static void test_push_spares_ended(void **state)
{
	struct two *t = two_new();
	const sim_time_ps P = 1000000;
	uint64_t a, b;

	(void)state;
	assert_int_equal(sim_pcie_uplink_bulk(&t->up, SIM_PCIE_UP, 0, P, 0, 0, &a), P);
	assert_int_equal(sim_pcie_uplink_bulk(&t->up, SIM_PCIE_UP, 0, P, 0, 0, &b), 2 * P);
	assert_int_equal(b, 1);
	assert_true(sim_schedule(&t->eng, P + 1, write_now, t, 0) != SIM_EVENT_NONE);
	sim_run(&t->eng, SIM_TIME_NEVER);
	assert_int_equal(sim_pcie_uplink_bulk_end(&t->up, SIM_PCIE_UP, a), P);
	assert_int_equal(sim_pcie_uplink_bulk_end(&t->up, SIM_PCIE_UP, b), 2 * P + MWR256);
	assert_int_equal(t->done[0], P + 1 + 2 * MWR256 + L_PS + H_PS);
	two_free(t);
}

/* A bulk transfer after queued batches takes what they leave: batches of
 * a and b end at 2 ser; a bulk of P from 0 ends at 2 ser + P, and a second
 * bulk of P after it at 2 ser + 2P (bulk transfers in turn). */
static void test_bulk_after_batches(void **state)
{
	struct two *t = two_new();
	const sim_time_ps P = 500000;
	uint64_t id;

	(void)state;
	assert_int_equal(sim_pcie_dma_write_via(&t->a, &t->up, 256, on_done, t, 0), 0);
	assert_int_equal(sim_pcie_dma_write_via(&t->b, &t->up, 256, on_done, t, 1), 0);
	assert_int_equal(sim_pcie_uplink_bulk(&t->up, SIM_PCIE_UP, 0, P, 0, 0, NULL), 2 * MWR256 + P);
	assert_int_equal(sim_pcie_uplink_bulk(&t->up, SIM_PCIE_UP, 0, P, 0, 0, NULL),
			 2 * MWR256 + 2 * P);
	assert_int_equal(sim_pcie_uplink_bulk(&t->up, SIM_PCIE_UP, 7, 0, 0, 0, &id), 7);
	assert_int_equal(id, SIM_PCIE_BULK_NONE);
	sim_run(&t->eng, SIM_TIME_NEVER);
	assert_int_equal(t->done[1], 2 * MWR256 + L_PS + H_PS);
	two_free(t);
}

/* An unlimited uplink (rate 0) costs only its hop. */
static void test_unlimited_uplink(void **state)
{
	struct two *t = two_new();

	(void)state;
	t->up.rate_bps = 0;
	assert_int_equal(sim_pcie_dma_write_via(&t->a, &t->up, 256, on_done, t, 0), 0);
	assert_int_equal(sim_pcie_dma_write_via(&t->b, &t->up, 256, on_done, t, 1), 0);
	sim_run(&t->eng, SIM_TIME_NEVER);
	assert_int_equal(t->done[0], MWR256 + L_PS + H_PS);
	assert_int_equal(t->done[1], MWR256 + L_PS + H_PS);
	two_free(t);
}

/* A GPU's own link as its NICs cross it (reversed): a NIC's write to GPU
 * memory goes down that link, a read's request down and its completions
 * up.  Two NICs writing at once share it as they would an uplink. */
static void test_reversed_link(void **state)
{
	struct two *t = two_new();

	(void)state;
	t->up.reversed = true;
	t->up.latency_ps = 0;
	assert_int_equal(sim_pcie_dma_write_via(&t->a, &t->up, 256, on_done, t, 0), 0);
	assert_int_equal(sim_pcie_dma_write_via(&t->b, &t->up, 256, on_done, t, 1), 0);
	sim_run(&t->eng, SIM_TIME_NEVER);
	assert_int_equal(t->done[0], MWR256 + L_PS);
	assert_int_equal(t->done[1], 2 * MWR256 + L_PS);
	assert_int_equal(t->up.busy_ps[SIM_PCIE_DOWN], 2 * MWR256);
	assert_int_equal(t->up.busy_ps[SIM_PCIE_UP], 0);
	two_free(t);
}

/* What follows the writes lands behind them: with none in flight, at
 * once; behind a 256 B write issued at 0, when it lands (ser + L), after
 * it. */
static void test_after_writes(void **state)
{
	struct two *t = two_new();

	(void)state;
	assert_int_equal(sim_pcie_after_writes(&t->a, on_done, t, 0), 0);
	assert_int_equal(t->ndone, 1); /* at once, before any event */
	assert_int_equal(t->done[0], 0);
	assert_int_equal(sim_pcie_dma_write(&t->a, 256, on_done, t, 1), 0);
	assert_int_equal(sim_pcie_after_writes(&t->a, on_done, t, 2), 0);
	assert_int_equal(t->ndone, 1);
	sim_run(&t->eng, SIM_TIME_NEVER);
	assert_int_equal(t->ndone, 3);
	assert_int_equal(t->done[1], MWR256 + L_PS);
	assert_int_equal(t->done[2], MWR256 + L_PS);
	/* It takes no link time: the next write starts at once. */
	assert_int_equal(t->a.dir[SIM_PCIE_UP].busy_ps, MWR256);
	two_free(t);
}

/* A staging job's TLP bytes, as the uplink counts them: 4096 B stored
 * (16 MWr of 256 + 24) and 4096 B loaded (8 MRd of 24 up, 16 CplD of 256 +
 * 20 down). */
static void test_staging_wire_bytes(void **state)
{
	struct sim_gpu_host_cost c;

	(void)state;
	sim_gpu_host_cost(&test_pp, 4096, 4096, &c);
	assert_int_equal(c.wire[SIM_PCIE_UP], 4096 + 16 * 24 + 8 * 24);
	assert_int_equal(c.wire[SIM_PCIE_DOWN], 4096 + 16 * 20);
	sim_gpu_host_cost(&test_pp, 700, 0, &c); /* 2 requests: 512 + 188 */
	assert_int_equal(c.wire[SIM_PCIE_UP], 2 * 24);
	assert_int_equal(c.wire[SIM_PCIE_DOWN], 700 + (2 + 1) * 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_writes_share),
		cmocka_unit_test(test_peer_writes_skip_uplink),
		cmocka_unit_test(test_read_through_uplink),
		cmocka_unit_test(test_batch_shares_with_bulk),
		cmocka_unit_test(test_batch_outlasts_bulk),
		cmocka_unit_test(test_push_spares_ended),
		cmocka_unit_test(test_bulk_after_batches),
		cmocka_unit_test(test_unlimited_uplink),
		cmocka_unit_test(test_reversed_link),
		cmocka_unit_test(test_after_writes),
		cmocka_unit_test(test_staging_wire_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
