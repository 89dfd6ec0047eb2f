/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_sim_pcie.c — the PCIe model (sim/pcie.c): every completion time
 * is asserted to the picosecond against its closed form, written next to
 * the assertion.
 *
 * Test link unless said otherwise: tests/pcie_link.h's (its closed forms
 * there).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/event.h"
#include "sim/params.h"
#include "sim/pcie.h"
#include "sim/time.h"
#include "tests/pcie_link.h"


struct done_ent {
	sim_time_ps at;
	uint64_t arg;
};

struct done_log {
	struct done_ent e[256];
	size_t n;
};

static void on_done(struct sim_engine *eng, void *ctx, uint64_t arg, sim_time_ps done_ps)
{
	struct done_log *g = ctx;

	assert_int_equal(done_ps, sim_now(eng));
	assert_true(g->n < sizeof(g->e) / sizeof(g->e[0]));
	g->e[g->n++] = (struct done_ent){done_ps, arg};
}

struct fix {
	struct sim_engine eng;
	struct sim_pcie p;
	struct done_log log;
};

static struct fix *fix_new(const struct sim_pcie_params *pp, unsigned flags)
{
	struct fix *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	assert_int_equal(sim_engine_init(&f->eng, flags), 0);
	assert_int_equal(sim_pcie_init(&f->p, &f->eng, pp), 0);
	return f;
}

static void fix_free(struct fix *f)
{
	sim_pcie_destroy(&f->p);
	sim_engine_destroy(&f->eng);
	free(f);
}

/* 4096 B write at MPS 256: 16 MWr of 256 + 24 B, then the latency. */
static void test_write_4096(void **state)
{
	struct fix *f = fix_new(&test_pp, 0);
	const struct sim_pcie_dir_stats *up = sim_pcie_stats(&f->p, SIM_PCIE_UP);
	const struct sim_pcie_dir_stats *dn = sim_pcie_stats(&f->p, SIM_PCIE_DOWN);

	(void)state;
	assert_int_equal(sim_pcie_dma_write(&f->p, 4096, on_done, &f->log, 7), 0);
	sim_run(&f->eng, SIM_TIME_NEVER);
	assert_int_equal(f->log.n, 1);
	/* 16 * ser(280) + L = 16 * 22400 + 250000 */
	assert_int_equal(f->log.e[0].at, 16 * UINT64_C(22400) + L_PS);
	assert_int_equal(f->log.e[0].at, 608400);
	assert_int_equal(f->log.e[0].arg, 7);
	assert_int_equal(up->tlps, 16);
	assert_int_equal(up->payload_bytes, 4096);
	assert_int_equal(up->wire_bytes, 16 * 280);
	assert_int_equal(sim_pcie_busy_ps(&f->p, SIM_PCIE_UP), 16 * 22400);
	assert_int_equal(dn->tlps, 0);
	assert_int_equal(sim_pcie_busy_ps(&f->p, SIM_PCIE_DOWN), 0);
	assert_true(sim_pcie_idle(&f->p));
	fix_free(f);
}

/* 4096 B read at MRRS 512 / MPS 256: 8 MRd up, each answered by 2 CplD down
 * once it arrives.  Request j (1..8) reaches the host at 1920j + L; the
 * downstream is the bottleneck (2 * 22080 per request > 1920), so the 16
 * CplD run back to back from the first arrival:
 *   ser(MRd) + L + 16 * ser(CplD 256) + L = 1920 + 250000 + 353280 + 250000 */
static void test_read_4096(void **state)
{
	struct fix *f = fix_new(&test_pp, 0);
	const struct sim_pcie_dir_stats *up = sim_pcie_stats(&f->p, SIM_PCIE_UP);
	const struct sim_pcie_dir_stats *dn = sim_pcie_stats(&f->p, SIM_PCIE_DOWN);

	(void)state;
	assert_int_equal(sim_pcie_dma_read(&f->p, 4096, on_done, &f->log, 1), 0);
	sim_run(&f->eng, SIM_TIME_NEVER);
	assert_int_equal(f->log.n, 1);
	assert_int_equal(f->log.e[0].at, 1920 + L_PS + 16 * UINT64_C(22080) + L_PS);
	assert_int_equal(f->log.e[0].at, 855200);
	assert_int_equal(up->tlps, 8);
	assert_int_equal(up->payload_bytes, 0);
	assert_int_equal(up->wire_bytes, 8 * 24);
	assert_int_equal(sim_pcie_busy_ps(&f->p, SIM_PCIE_UP), 8 * 1920);
	assert_int_equal(dn->tlps, 16);
	assert_int_equal(dn->payload_bytes, 4096);
	assert_int_equal(dn->wire_bytes, 16 * 276);
	assert_int_equal(sim_pcie_busy_ps(&f->p, SIM_PCIE_DOWN), 16 * 22080);
	assert_true(sim_pcie_idle(&f->p));
	fix_free(f);
}

/* Completions gated by request arrival: MRRS = MPS = 4 B, CplD overhead 4,
 * so a CplD (8 B, 640 ps) is shorter than an MRd (24 B, 1920 ps) and the
 * downstream idles between requests.  16 B = 4 requests; the last reaches
 * the host at 4 * 1920 + L, its CplD takes 640, then L:
 *   4 * 1920 + L + 640 + L = 508320.
 * A model that sent all completions after the first request would say
 * 1920 + L + 4 * 640 + L = 504480. */
static void test_read_request_gated(void **state)
{
	struct sim_pcie_params pp = test_pp;
	struct fix *f;

	(void)state;
	pp.mps_bytes = 4;
	pp.mrrs_bytes = 4;
	pp.cpl_overhead_bytes = 4;
	f = fix_new(&pp, 0);
	assert_int_equal(sim_pcie_dma_read(&f->p, 16, on_done, &f->log, 0), 0);
	sim_run(&f->eng, SIM_TIME_NEVER);
	assert_int_equal(f->log.n, 1);
	assert_int_equal(f->log.e[0].at, 4 * UINT64_C(1920) + L_PS + 640 + L_PS);
	assert_int_equal(f->log.e[0].at, 508320);
	assert_int_equal(sim_pcie_busy_ps(&f->p, SIM_PCIE_DOWN), 4 * 640);
	fix_free(f);
}

/* Back to back at t = 0: write A, write B, read C upstream; a 64 B MMIO
 * write D downstream.  C's 8 MRds pass the queued writes (pcie.h): request
 * j leaves at 1920 j and reaches the host at 1920 j + L; its two CplD
 * queue downstream behind D, which leaves at 7040, and each other.
 *   A: 16 * 22400 + L                         = 608400
 *   B: 2 * 16 * 22400 + L                     = 966800 (queued before C)
 *   C: 1920 + L, then 16 CplD back to back (request j is in long before
 *      its turn) + L = 251920 + 353280 + 250000 = 855200
 *   D: ser(64 + 24) + L = 7040 + 250000        = 257040 (downstream free)
 * A write queued after C leaves 8 * 1920 later: the link's time counts
 * each TLP once (E, 64 B at t = 0 too: 2 * 358400 + 8 * 1920 + 7040 + L). */
static void test_back_to_back(void **state)
{
	struct fix *f = fix_new(&test_pp, 0);

	(void)state;
	assert_int_equal(sim_pcie_dma_write(&f->p, 4096, on_done, &f->log, 'A'), 0);
	assert_int_equal(sim_pcie_dma_write(&f->p, 4096, on_done, &f->log, 'B'), 0);
	assert_int_equal(sim_pcie_dma_read(&f->p, 4096, on_done, &f->log, 'C'), 0);
	assert_int_equal(sim_pcie_mmio_write(&f->p, 64, on_done, &f->log, 'D'), 0);
	assert_int_equal(sim_pcie_dma_write(&f->p, 64, on_done, &f->log, 'E'), 0);
	sim_run(&f->eng, SIM_TIME_NEVER);
	assert_int_equal(f->log.n, 5);
	assert_int_equal(f->log.e[0].arg, 'D');
	assert_int_equal(f->log.e[0].at, 88 * 80 + L_PS);
	assert_int_equal(f->log.e[1].arg, 'A');
	assert_int_equal(f->log.e[1].at, 16 * UINT64_C(22400) + L_PS);
	assert_int_equal(f->log.e[2].arg, 'C');
	assert_int_equal(f->log.e[2].at, 1920 + L_PS + 16 * UINT64_C(22080) + L_PS);
	assert_int_equal(f->log.e[2].at, 855200);
	assert_int_equal(f->log.e[3].arg, 'B');
	assert_int_equal(f->log.e[3].at, 2 * 16 * UINT64_C(22400) + L_PS);
	assert_int_equal(f->log.e[4].arg, 'E');
	assert_int_equal(f->log.e[4].at, 2 * 16 * UINT64_C(22400) + 8 * 1920 + 88 * 80 + L_PS);
	assert_int_equal(sim_pcie_stats(&f->p, SIM_PCIE_UP)->tlps, 16 + 16 + 8 + 1);
	assert_int_equal(sim_pcie_stats(&f->p, SIM_PCIE_DOWN)->tlps, 16 + 1);
	assert_int_equal(sim_pcie_busy_ps(&f->p, SIM_PCIE_UP), 2 * 16 * 22400 + 8 * 1920 + 88 * 80);
	fix_free(f);
}

/* A responder's read for a READ response stays behind the writes queued
 * before it (sim_pcie_dma_read_ordered()): write A (4096 B) at t = 0, then
 * the ordered read C of 4096 B.  C's 8 MRds leave after A, 1920 apart; the
 * first reaches the host at 358400 + 1920 + L, and its 16 CplD follow back
 * to back (each request is in before its turn):
 *   C = 358400 + 1920 + L + 16 * 22080 + L = 1213600. */
static void test_read_ordered(void **state)
{
	struct fix *f = fix_new(&test_pp, 0);

	(void)state;
	assert_int_equal(sim_pcie_dma_write(&f->p, 4096, on_done, &f->log, 'A'), 0);
	assert_int_equal(sim_pcie_dma_read_ordered(&f->p, 4096, on_done, &f->log, 'C'), 0);
	sim_run(&f->eng, SIM_TIME_NEVER);
	assert_int_equal(f->log.n, 2);
	assert_int_equal(f->log.e[0].arg, 'A');
	assert_int_equal(f->log.e[0].at, 16 * UINT64_C(22400) + L_PS);
	assert_int_equal(f->log.e[1].arg, 'C');
	assert_int_equal(f->log.e[1].at, 358400 + 1920 + L_PS + 16 * UINT64_C(22080) + L_PS);
	assert_int_equal(f->log.e[1].at, 1213600);
	fix_free(f);
}

/* An MMIO write at t = 255000 joins the downstream FIFO between the
 * completions of requests 2 and 3 of a 4096 B read started at 0: request j
 * reaches the host at L + 1920j (j = 2: 253840, j = 3: 255760).
 *   C1, C2: 251920 .. 251920 + 2 * 44160 = 340240
 *   MMIO:   340240 + ser(88) = 347280, delivered + L = 597280
 *   C3..C8: 347280 + 6 * 44160 = 612240, read done + L = 862240 */
static void mmio_at(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct fix *f = ctx;

	(void)eng;
	assert_int_equal(sim_pcie_mmio_write(&f->p, 64, on_done, &f->log, arg), 0);
}

static void test_mmio_interleaves(void **state)
{
	struct fix *f = fix_new(&test_pp, 0);

	(void)state;
	assert_int_equal(sim_pcie_dma_read(&f->p, 4096, on_done, &f->log, 'R'), 0);
	assert_true(sim_schedule(&f->eng, 255000, mmio_at, f, 'M') != SIM_EVENT_NONE);
	sim_run(&f->eng, SIM_TIME_NEVER);
	assert_int_equal(f->log.n, 2);
	assert_int_equal(f->log.e[0].arg, 'M');
	assert_int_equal(f->log.e[0].at, L_PS + 1920 + 2 * 44160 + 88 * 80 + L_PS);
	assert_int_equal(f->log.e[0].at, 597280);
	assert_int_equal(f->log.e[1].arg, 'R');
	assert_int_equal(f->log.e[1].at, L_PS + 1920 + 8 * 44160 + 88 * 80 + L_PS);
	assert_int_equal(f->log.e[1].at, 862240);
	fix_free(f);
}

/* 1 B: one TLP each way.  Write: ser(1 + 24) + L = 2000 + 250000.
 * Read (started at 252000): ser(24) + L + ser(1 + 20) + L
 *   = 1920 + 250000 + 1680 + 250000 = 503600 after its start. */
static void read_at(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct fix *f = ctx;

	(void)eng;
	assert_int_equal(sim_pcie_dma_read(&f->p, 1, on_done, &f->log, arg), 0);
}

static void test_one_byte(void **state)
{
	struct fix *f = fix_new(&test_pp, 0);

	(void)state;
	assert_int_equal(sim_pcie_dma_write(&f->p, 1, on_done, &f->log, 'W'), 0);
	assert_true(sim_schedule(&f->eng, 252000, read_at, f, 'R') != SIM_EVENT_NONE);
	sim_run(&f->eng, SIM_TIME_NEVER);
	assert_int_equal(f->log.n, 2);
	assert_int_equal(f->log.e[0].at, 25 * 80 + L_PS);
	assert_int_equal(f->log.e[0].at, 252000);
	assert_int_equal(f->log.e[1].at, 252000 + 24 * 80 + L_PS + 21 * 80 + L_PS);
	assert_int_equal(f->log.e[1].at, 252000 + 503600);
	assert_int_equal(sim_pcie_stats(&f->p, SIM_PCIE_UP)->wire_bytes, 25 + 24);
	assert_int_equal(sim_pcie_stats(&f->p, SIM_PCIE_DOWN)->wire_bytes, 21);
	fix_free(f);
}

/* rate 0: no serialization, only latency.  Two writes at 0 both land at L;
 * a read costs L each way, 2L. */
static void test_rate_zero(void **state)
{
	struct sim_pcie_params pp = test_pp;
	struct fix *f;

	(void)state;
	pp.rate_bps = 0;
	f = fix_new(&pp, 0);
	assert_int_equal(sim_pcie_dma_write(&f->p, 4096, on_done, &f->log, 1), 0);
	assert_int_equal(sim_pcie_dma_write(&f->p, 1 << 20, on_done, &f->log, 2), 0);
	assert_int_equal(sim_pcie_dma_read(&f->p, 4096, on_done, &f->log, 3), 0);
	sim_run(&f->eng, SIM_TIME_NEVER);
	assert_int_equal(f->log.n, 3);
	assert_int_equal(f->log.e[0].at, L_PS);
	assert_int_equal(f->log.e[1].at, L_PS);
	assert_int_equal(f->log.e[2].at, 2 * L_PS);
	assert_int_equal(f->log.e[0].arg, 1);
	assert_int_equal(f->log.e[1].arg, 2);
	assert_int_equal(sim_pcie_busy_ps(&f->p, SIM_PCIE_UP), 0);
	assert_int_equal(sim_pcie_busy_ps(&f->p, SIM_PCIE_DOWN), 0);
	assert_int_equal(sim_pcie_stats(&f->p, SIM_PCIE_UP)->tlps, 16 + 4096 + 8);
	fix_free(f);
}

/* The ib-hdr preset: Gen4 x16, r = 252061538461 bit/s, L = 250 ns, MPS 256,
 * MRRS 4096.  Each TLP rounds up on its own:
 *   ser(280) = ceil(280 * 8e12 / r) = 8887, ser(24) = 762, ser(276) = 8760
 *   write 4096: 16 * 8887 + L                    = 392192
 *   read 4096:  ser(24) + L + 16 * 8760 + L      = 640922 (one request) */
static void test_preset_gen4(void **state)
{
	struct sim_params sp;
	struct fix *f;

	(void)state;
	assert_int_equal(sim_params_preset("ib-hdr", &sp), 0);
	assert_int_equal(sim_serialize_ps(280, sp.pcie.rate_bps), 8887);
	assert_int_equal(sim_serialize_ps(24, sp.pcie.rate_bps), 762);
	assert_int_equal(sim_serialize_ps(276, sp.pcie.rate_bps), 8760);
	f = fix_new(&sp.pcie, 0);
	assert_int_equal(sim_pcie_dma_write(&f->p, 4096, on_done, &f->log, 0), 0);
	sim_run(&f->eng, SIM_TIME_NEVER);
	assert_int_equal(f->log.e[0].at, 16 * 8887 + L_PS);
	assert_int_equal(sim_pcie_dma_read(&f->p, 4096, on_done, &f->log, 1), 0);
	sim_run(&f->eng, SIM_TIME_NEVER);
	assert_int_equal(f->log.n, 2);
	assert_int_equal(f->log.e[1].at, 392192 + 762 + L_PS + 16 * 8760 + L_PS);
	assert_int_equal(sim_pcie_stats(&f->p, SIM_PCIE_UP)->tlps, 17);
	assert_int_equal(sim_pcie_stats(&f->p, SIM_PCIE_DOWN)->tlps, 16);
	fix_free(f);
}

/* Many transfers queued: never more than SIM_PCIE_MAX_EVENTS pending. */
static void test_events_bounded(void **state)
{
	struct fix *f = fix_new(&test_pp, 0);
	sim_time_ps t = 0;

	(void)state;
	for (uint64_t i = 0; i < 100; i++) {
		assert_int_equal(sim_pcie_dma_read(&f->p, 4096 + i, on_done, &f->log, i), 0);
		assert_int_equal(sim_pcie_dma_write(&f->p, 1 + 100 * i, on_done, &f->log, i), 0);
		assert_int_equal(sim_pcie_mmio_write(&f->p, 64, NULL, NULL, 0), 0);
	}
	while (sim_pending(&f->eng)) {
		assert_true(sim_pending(&f->eng) <= SIM_PCIE_MAX_EVENTS);
		t += 5000;
		sim_run(&f->eng, t);
	}
	assert_int_equal(f->log.n, 200);
	assert_true(sim_pcie_idle(&f->p));
	/* Deliveries never go back in time, whichever line they come from. */
	for (size_t i = 1; i < f->log.n; i++)
		assert_true(f->log.e[i].at >= f->log.e[i - 1].at);
	fix_free(f);
}

static void test_invalid(void **state)
{
	struct sim_pcie_params pp = test_pp;
	struct fix *f = fix_new(&test_pp, 0);
	struct sim_pcie p;

	(void)state;
	assert_int_equal(sim_pcie_dma_write(&f->p, 0, NULL, NULL, 0), -EINVAL);
	assert_int_equal(sim_pcie_dma_read(&f->p, 0, NULL, NULL, 0), -EINVAL);
	assert_int_equal(sim_pcie_mmio_write(&f->p, 0, NULL, NULL, 0), -EINVAL);
	assert_int_equal(sim_pcie_init(&p, NULL, &pp), -EINVAL);
	assert_int_equal(sim_pcie_init(&p, &f->eng, NULL), -EINVAL);
	pp.mps_bytes = 0;
	assert_int_equal(sim_pcie_init(&p, &f->eng, &pp), -EINVAL);
	pp = test_pp;
	pp.mrrs_bytes = 0;
	assert_int_equal(sim_pcie_init(&p, &f->eng, &pp), -EINVAL);
	/* Destroy with batches queued, serializing and in flight: the
	 * sanitizer build checks nothing leaks. */
	for (int i = 0; i < 4; i++) {
		assert_int_equal(sim_pcie_dma_read(&f->p, 8192, on_done, &f->log, 0), 0);
		assert_int_equal(sim_pcie_dma_write(&f->p, 8192, on_done, &f->log, 0), 0);
	}
	sim_run(&f->eng, 300000);
	assert_false(sim_pcie_idle(&f->p));
	fix_free(f);
}

/* A mixed scenario; its log must be the same on every run, and with the
 * engine's reversed tie-break (deliveries at one picosecond are released by
 * one event per direction, so only their order across directions may
 * change: compared sorted). */
static void scenario(unsigned flags, struct done_log *out)
{
	struct fix *f = fix_new(&test_pp, flags);

	for (uint64_t i = 0; i < 20; i++) {
		assert_int_equal(sim_pcie_dma_read(&f->p, 100 + 331 * i, on_done, &f->log, 3 * i), 0);
		assert_int_equal(sim_pcie_dma_write(&f->p, 1 + 257 * i, on_done, &f->log, 3 * i + 1), 0);
		assert_int_equal(sim_pcie_mmio_write(&f->p, 8 + i, on_done, &f->log, 3 * i + 2), 0);
	}
	sim_run(&f->eng, SIM_TIME_NEVER);
	*out = f->log;
	fix_free(f);
}

static int ent_cmp(const void *a, const void *b)
{
	const struct done_ent *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x->arg < y->arg ? -1 : x->arg > y->arg;
}

static void test_determinism(void **state)
{
	static struct done_log a, b, c;

	(void)state;
	scenario(0, &a);
	scenario(0, &b);
	scenario(SIM_ENGINE_LIFO_TIES, &c);
	assert_int_equal(a.n, 60);
	assert_memory_equal(&a, &b, sizeof(a));
	qsort(a.e, a.n, sizeof(a.e[0]), ent_cmp);
	qsort(c.e, c.n, sizeof(c.e[0]), ent_cmp);
	assert_int_equal(c.n, a.n);
	assert_memory_equal(a.e, c.e, a.n * sizeof(a.e[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_4096),
		cmocka_unit_test(test_read_4096),
		cmocka_unit_test(test_read_request_gated),
		cmocka_unit_test(test_back_to_back),
		cmocka_unit_test(test_read_ordered),
		cmocka_unit_test(test_mmio_interleaves),
		cmocka_unit_test(test_one_byte),
		cmocka_unit_test(test_rate_zero),
		cmocka_unit_test(test_preset_gen4),
		cmocka_unit_test(test_events_bounded),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_determinism),
	};
	return cmocka_run_group_tests_name("sim_pcie", tests, NULL, NULL);
}
