/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_halving.c — recursive halving-doubling allreduce's structure
 * and byte counts (core/halving.c), against closed forms written here
 * from Rabenseifner's algorithm, not from the builder's loops:
 *   - each rank's data bytes, from the schedule's posted WQEs and from what
 *     the data executor moved: with block b of k' covering
 *     [b N / k', (b+1) N / k'), core rank c sends N - |block c| while
 *     halving, and while doubling at each distance 2^t the aligned group
 *     of 2^t blocks holding block c; a fix-up pair adds N each way;
 *   - N(k'-1)/k' each way exactly when k' divides N (the figure);
 *   - the primitive listing: 2 log2 k' swaps (plus the fix-up), and only
 *     allreduce is accepted;
 *   - the simulator: on the `ideal` fabric (only serialization costs) the
 *     time is within 2 % of 2N(k-1)/k bytes at the link rate, headers
 *     included; on ib-hdr (k = 8, star) halving-doubling beats the ring up
 *     to 1 MiB (2 log2 k latencies instead of 2(k-1)) and loses from
 *     2 MiB (no pipelining across its swaps), the crossing docs/schedule.md
 *     documents. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include <cmocka.h>

#include "core/algo.h"
#include "core/exec_data.h"
#include "sim/exec.h"
#include "tests/quick.h"
#include "tests/sim_sched.h"
#include "sim/wire.h"
#include "tests/run_status.h"

static struct cc_schedule *build(enum cc_transport t, uint32_t k, uint64_t count,
				 uint64_t slot_bytes)
{
	struct cc_coll_params p;
	char err[200];

	cc_coll_params_default(&p);
	p.algo = CC_ALGO_HALVING_DOUBLING;
	p.transport = t;
	p.nranks = k;
	p.count = count;
	p.dtype = CC_FLOAT32;
	if (slot_bytes)
		p.slot_bytes = slot_bytes;
	struct cc_schedule *s = cc_build(&p, err, sizeof(err));
	if (!s)
		fail_msg("build: %s", err);
	return s;
}

static uint32_t pow2_below(uint32_t k)
{
	uint32_t kp = 1;

	while (kp * 2 <= k)
		kp *= 2;
	return kp;
}

/* Elements rank r sends, from the algorithm's definition. */
static uint64_t want_elems(uint32_t k, uint32_t r, uint64_t n)
{
	uint32_t kp = pow2_below(k), rem = k - kp, cr;

	if (k == 1)
		return 0;
	if (r < 2 * rem && r % 2 == 0)
		return n; /* its input, to 2i+1 */
	cr = r < 2 * rem ? r / 2 : r - rem;
	uint64_t sent = n - (n * (cr + 1) / kp - n * cr / kp);
	for (uint32_t g = 1; g < kp; g *= 2) {
		uint32_t first = cr / g * g;

		sent += n * (first + g) / kp - n * first / kp;
	}
	return sent + (r < 2 * rem ? n : 0);
}

static void test_bytes_per_rank(void **state)
{
	static const uint64_t counts[] = { 1, 7, 64, 1000, 12345, 262147 };

	(void)state;
	for (uint32_t k = 1; k <= 33; k++)
		for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
			for (int t = 0; t < CC_TRANSPORT_COUNT; t++) {
				uint64_t n = counts[c];
				struct cc_schedule *s = build((enum cc_transport)t, k, n, 4096);
				struct cc_data_opts o = { .seed = 3, .order_seed = k + c };
				struct cc_data_result res;

				assert_int_equal(cc_data_run(s, &o, &res), 0);
				assert_run_status(res.err, CC_RUN_OK);
				assert_int_equal(res.wrong, 0);
				for (uint32_t r = 0; r < k; r++) {
					uint64_t want = 4 * want_elems(k, r, n);
					uint64_t posted = cc_rank_data_bytes(&s->ranks[r]);

					if (posted != want || res.data_bytes[r] != want)
						fail_msg("k=%u n=%llu rank %u: posted %llu, moved %llu, "
							 "want %llu", k, (unsigned long long)n, r,
							 (unsigned long long)posted,
							 (unsigned long long)res.data_bytes[r],
							 (unsigned long long)want);
				}
				cc_data_result_free(&res);
				cc_schedule_free(s);
			}
}

/* k a power of two dividing N: N(k-1)/k each way, 2N(k-1)/k in all, the
 * ring's figure in 2 log2 k steps instead of 2(k-1). */
static void test_power_of_two(void **state)
{
	(void)state;
	for (uint32_t k = 2; k <= 64; k *= 2) {
		uint64_t n = 1024 * 64;
		struct cc_schedule *s = build(CC_WRITE_IMM, k, n, 0);

		for (uint32_t r = 0; r < k; r++)
			assert_int_equal(cc_rank_data_bytes(&s->ranks[r]), 2 * 4 * n * (k - 1) / k);
		cc_schedule_free(s);
	}
}

struct count_ctx {
	unsigned sends, recvs, reduces;
};

static void count_prim(void *ctx, uint32_t rank, const struct cc_prim_step *st)
{
	struct count_ctx *c = ctx;

	(void)rank;
	c->sends += st->prim == CC_PRIM_SEND;
	c->recvs += st->prim == CC_PRIM_RECV;
	c->reduces += st->prim == CC_PRIM_RECV_REDUCE_COPY;
}

static void test_primitives(void **state)
{
	struct cc_coll_params p;
	char err[200];

	(void)state;
	cc_coll_params_default(&p);
	p.algo = CC_ALGO_HALVING_DOUBLING;
	p.count = 1000;
	/* k = 8: 3 halving swaps (send + recvReduceCopy) and 3 doubling swaps
	 * (send + recv) per rank. */
	p.nranks = 8;
	for (uint32_t r = 0; r < 8; r++) {
		struct count_ctx c = { 0 };

		cc_algo_primitives(&p, r, count_prim, &c);
		assert_int_equal(c.sends, 6);
		assert_int_equal(c.reduces, 3);
		assert_int_equal(c.recvs, 3);
	}
	/* k = 6: ranks 0, 2 hand their input over and get the result back;
	 * 1, 3 fold it in and send the result back; 4, 5 only swap (k' = 4). */
	p.nranks = 6;
	for (uint32_t r = 0; r < 6; r++) {
		struct count_ctx c = { 0 };

		cc_algo_primitives(&p, r, count_prim, &c);
		if (r < 4 && r % 2 == 0) {
			assert_int_equal(c.sends, 1);
			assert_int_equal(c.recvs, 1);
			assert_int_equal(c.reduces, 0);
		} else {
			assert_int_equal(c.sends, 4 + (r < 4));
			assert_int_equal(c.reduces, 2 + (r < 4));
			assert_int_equal(c.recvs, 2);
		}
	}
	/* Only allreduce. */
	p.coll = CC_ALLGATHER;
	assert_int_equal(cc_params_check(&p, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "does not build allgather"));
}

static double sim_us(enum cc_algo a, uint32_t k, uint64_t bytes, const char *fabric)
{
	struct cc_coll_params p;

	cc_coll_params_default(&p);
	p.algo = a;
	p.nranks = k;
	p.count = bytes / 4;
	return sim_star_us(&p, fabric);
}

/* CCLAB_MATRIX=quick (`make test`): the simulations up to k = 8. */
static uint32_t max_k(void)
{
	return matrix_quick() ? 8 : 16;
}

static void test_sim_ideal(void **state)
{
	const uint64_t n = 64ull << 20;
	struct sim_params f;
	struct sim_wire_seg seg;

	(void)state;
	assert_int_equal(sim_params_preset("ideal", &f), 0);
	/* Wire bytes per payload byte: 512 KiB slots at the path MTU. */
	assert_int_equal(sim_wire_segment(SIM_MSG_WRITE_IMM, CC_DEFAULT_SLOT_BYTES,
					  f.link.mtu_bytes, &seg), 0);
	struct sim_wire_sum w = sim_wire_msg_sum(f.link.type, &seg);
	double per_byte = (double)w.wire / (double)w.payload;

	for (uint32_t k = 2; k <= max_k(); k *= 2) {
		double want = 2.0 * n * (k - 1) / k * per_byte * 8 / (double)f.link.rate_bps * 1e6;
		double got = sim_us(CC_ALGO_HALVING_DOUBLING, k, n, "ideal");

		if (got < want || got > want * 1.02)
			fail_msg("k=%u: %.1f us against the closed form %.1f us", k, got, want);
	}
}

static void test_sim_crossing(void **state)
{
	(void)state;
	for (uint64_t b = 4; b <= (1u << 20); b *= 32)
		assert_true(sim_us(CC_ALGO_HALVING_DOUBLING, 8, b, "ib-hdr") <
			    sim_us(CC_ALGO_RING, 8, b, "ib-hdr"));
	/* up to 2 MiB: the ring's 14 steps each pay the proxy's plugin calls
	 * and the GDR flush, halving-doubling's 6 (docs/schedule.md) */
	for (uint64_t b = 1u << 20; b <= (2u << 20); b *= 2)
		assert_true(sim_us(CC_ALGO_HALVING_DOUBLING, 8, b, "ib-hdr") <
			    sim_us(CC_ALGO_RING, 8, b, "ib-hdr"));
	for (uint64_t b = 4u << 20; b <= (32u << 20); b *= 4)
		assert_true(sim_us(CC_ALGO_HALVING_DOUBLING, 8, b, "ib-hdr") >
			    sim_us(CC_ALGO_RING, 8, b, "ib-hdr"));
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_bytes_per_rank),
		cmocka_unit_test(test_power_of_two),
		cmocka_unit_test(test_primitives),
		cmocka_unit_test(test_sim_ideal),
		cmocka_unit_test(test_sim_crossing),
	};

	return cmocka_run_group_tests_name("halving", t, NULL, NULL);
}
