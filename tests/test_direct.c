/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_direct.c — direct reduce-scatter, all-gather, allreduce and
 * sendrecv (core/direct.c):
 *   - #wrong 0 from the data executor for k = 1..9, 16 and 33, every
 *     collective x transport, awkward sizes, one dtype of each width and
 *     every redop (k = 16: float, sum and avg; k = 33: float avg and
 *     write_imm: k-1 QP pairs a rank make them slow), with tiny and single
 *     slots (many slices per exchange); CCLAB_MATRIX=quick keeps float
 *     sum and avg only;
 *   - each rank's data bytes against closed forms written here: (k-1) N
 *     for reduce-scatter and all-gather (N per rank), and for allreduce
 *     N - |block r| then (k-1) |block r|, block b of k being
 *     [b N / k, (b+1) N / k) — from the schedule and from what the data
 *     executor moved;
 *   - every collective, sendrecv among them, on 1 to 4 channels (NCCL's
 *     p2p channels per peer): #wrong 0 for k = 1..7, and the same bytes
 *     (sendrecv: N a rank, none on one rank);
 *   - the primitive listing: k-1 exchanges per phase, one per channel;
 *   - the simulator: on the `ideal` fabric, star, within 2 % of the bytes
 *     each rank's one NIC link must carry at the link rate (sendrecv: N
 *     each way at once, on 1 and 2 channels). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/algo.h"
#include "core/exec_data.h"
#include "sim/exec.h"
#include "tests/quick.h"
#include "tests/sim_sched.h"
#include "sim/wire.h"

static struct cc_coll_params params(enum cc_coll c, enum cc_transport t, uint32_t k,
				    uint64_t count, enum cc_dtype d, enum cc_redop op)
{
	struct cc_coll_params p;

	cc_coll_params_default(&p);
	p.algo = CC_ALGO_DIRECT;
	p.coll = c;
	p.transport = t;
	p.nranks = k;
	p.count = count;
	p.dtype = d;
	p.redop = c == CC_ALLGATHER ? CC_SUM : op;
	p.root = k - 1;
	return p;
}

static void run_checked(const struct cc_coll_params *p, uint64_t order)
{
	char err[200];
	struct cc_schedule *s = cc_build(p, err, sizeof(err));
	struct cc_data_opts o = { .seed = p->count + p->nranks, .order_seed = order };
	struct cc_data_result res;

	if (!s)
		fail_msg("build: %s", err);
	assert_int_equal(cc_data_run(s, &o, &res), 0);
	if (res.err.status != CC_RUN_OK || res.wrong)
		fail_msg("%s %s k=%u count=%llu %s %s slot %llu x %u: %llu wrong, %s",
			 cc_coll_name[p->coll], cc_transport_name[p->transport], p->nranks,
			 (unsigned long long)p->count, cc_dtype_name[p->dtype],
			 cc_redop_name[p->redop], (unsigned long long)p->slot_bytes, p->nslots,
			 (unsigned long long)res.wrong, res.err.msg);
	cc_data_result_free(&res);
	cc_schedule_free(s);
}

static void test_correct(void **state)
{
	static const enum cc_dtype dtypes[] = { CC_INT8, CC_FLOAT16, CC_FLOAT32, CC_FLOAT64 };
	static const uint32_t ks[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 33 };

	(void)state;
	for (size_t ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++)
		for (int c = 0; c <= CC_ALLGATHER; c++)
			for (int t = 0; t < CC_TRANSPORT_COUNT; t++)
				for (size_t di = 0; di < 4; di++)
					for (int op = 0; op < CC_REDOP_COUNT; op++) {
						uint32_t k = ks[ki];
						const uint64_t counts[] = { 0, 1, 7, 1031, 13ull * k + 1 };

						/* k > 9, and with CCLAB_MATRIX=quick every k:
						 * one dtype, sum and avg */
						if ((k > 9 || matrix_quick()) &&
						    (dtypes[di] != CC_FLOAT32 ||
						     (op != CC_SUM && op != CC_AVG)))
							continue;
						if (k == 33 && (t != CC_WRITE_IMM || op != CC_AVG))
							continue;

						for (size_t i = 0; i < 5; i++) {
							struct cc_coll_params p = params(
								(enum cc_coll)c, (enum cc_transport)t, k,
								counts[i], dtypes[di], (enum cc_redop)op);

							run_checked(&p, i + op);
							if (counts[i] > 7 && k <= 9) {
								/* 3-element slots, 2 of them:
								 * many slices per exchange. */
								p.slot_bytes = 3 * cc_dtype_size(p.dtype);
								p.nslots = 2;
								run_checked(&p, i * 3 + 1);
								p.nslots = 1;
								run_checked(&p, i * 5 + 2);
							}
						}
					}
}

static uint64_t want_elems(enum cc_coll c, uint32_t k, uint32_t r, uint64_t n)
{
	if (c == CC_SENDRECV)
		return k > 1 ? n : 0; /* one rank copies, sending nothing */
	if (c != CC_ALLREDUCE)
		return (uint64_t)(k - 1) * n;
	uint64_t block = n * (r + 1) / k - n * r / k;
	return n - block + (uint64_t)(k - 1) * block;
}

static void test_bytes(void **state)
{
	static const uint64_t counts[] = { 1, 5, 100, 4099, 65539 };

	(void)state;
	for (uint32_t k = 1; k <= 12; k++)
		for (int c = 0; c <= CC_SENDRECV; c++)
			for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
				if (c > CC_ALLGATHER && c < CC_SENDRECV)
					continue;
				struct cc_coll_params p = params((enum cc_coll)c, CC_SEND_RECV, k,
								 counts[i], CC_FLOAT32, CC_SUM);
				char err[200];
				struct cc_schedule *s;
				struct cc_data_opts o = { .seed = 9, .order_seed = k };
				struct cc_data_result res;

				p.slot_bytes = 4096;
				p.nchannels = 1 + (uint32_t)(i % 3); /* the bytes do not change */
				s = cc_build(&p, err, sizeof(err));
				assert_non_null(s);
				assert_int_equal(cc_data_run(s, &o, &res), 0);
				assert_int_equal(res.wrong, 0);
				for (uint32_t r = 0; r < k; r++) {
					uint64_t want = 4 * want_elems(p.coll, k, r, counts[i]);
					uint64_t posted = cc_rank_data_bytes(&s->ranks[r]);

					if (posted != want || res.data_bytes[r] != want)
						fail_msg("%s k=%u n=%llu rank %u: posted %llu, moved %llu, "
							 "want %llu", cc_coll_name[c], k,
							 (unsigned long long)counts[i], r,
							 (unsigned long long)posted,
							 (unsigned long long)res.data_bytes[r],
							 (unsigned long long)want);
				}
				cc_data_result_free(&res);
				cc_schedule_free(s);
			}
}

/* Every collective on channels: each message cut in parts, each part on
 * the channel's own connection; #wrong 0 with slices of one element to
 * many, parts of none (count < channels) to many slices. */
static void test_channels(void **state)
{
	(void)state;
	for (uint32_t k = 1; k <= 7; k++)
		for (int c = 0; c < CC_COLL_COUNT; c++)
			for (uint32_t ch = 2; ch <= 4; ch++)
				for (int t = 0; t < CC_TRANSPORT_COUNT; t++) {
					const uint64_t counts[] = { 0, 1, 3, 1031, 13ull * k + 5 };

					if (ch != 3 && t != CC_WRITE_IMM)
						continue;
					for (size_t i = 0; i < 5; i++) {
						struct cc_coll_params p = params(
							(enum cc_coll)c, (enum cc_transport)t, k,
							counts[i], CC_FLOAT32, i % 2 ? CC_AVG : CC_SUM);

						p.nchannels = ch;
						run_checked(&p, i + ch);
						if (i == 4 && !matrix_quick()) {
							p.slot_bytes = 3 * cc_dtype_size(p.dtype);
							p.nslots = 2;
							run_checked(&p, i * 3 + ch);
						}
					}
				}
}

struct count_ctx {
	unsigned sends, recvs, reduces, copies;
};

static void count_prim(void *ctx, uint32_t rank, const struct cc_prim_step *st)
{
	struct count_ctx *c = ctx;

	(void)rank;
	c->sends += st->prim == CC_PRIM_SEND;
	c->recvs += st->prim == CC_PRIM_RECV;
	c->reduces += st->prim == CC_PRIM_RECV_REDUCE_COPY;
	c->copies += st->prim == CC_PRIM_COPY;
}

static void test_primitives(void **state)
{
	(void)state;
	for (int c = 0; c <= CC_ALLGATHER; c++) {
		struct cc_coll_params p = params((enum cc_coll)c, CC_WRITE_IMM, 5, 100, CC_FLOAT32,
						 CC_SUM);
		struct count_ctx n = { 0 };

		cc_algo_primitives(&p, 2, count_prim, &n);
		assert_int_equal(n.sends, c == CC_ALLREDUCE ? 8 : 4);
		assert_int_equal(n.reduces, c == CC_ALLGATHER ? 0 : 4);
		assert_int_equal(n.recvs, c == CC_REDUCESCATTER ? 0 : 4);
		assert_int_equal(n.copies, c == CC_ALLGATHER);
	}
	/* sendrecv on 3 channels: a send and a receive of each part */
	for (uint32_t k = 1; k <= 3; k++) {
		struct cc_coll_params p = params(CC_SENDRECV, CC_WRITE_IMM, k, 100, CC_FLOAT32,
						 CC_SUM);
		struct count_ctx n = { 0 };

		p.nchannels = 3;
		cc_algo_primitives(&p, k - 1, count_prim, &n);
		assert_int_equal(n.sends, k > 1 ? 3 : 0);
		assert_int_equal(n.recvs, k > 1 ? 3 : 0);
		assert_int_equal(n.copies, k == 1);
		assert_int_equal(n.reduces, 0);
	}
}

/* All-gather and reduce-scatter on the ideal fabric: each rank's link
 * carries (k-1) N, the same as the ring's, in k-1 direct exchanges. */
static void test_sim_ideal(void **state)
{
	const uint64_t n = 8ull << 20; /* bytes per rank */
	struct sim_params f;
	struct sim_wire_seg seg;

	(void)state;
	assert_int_equal(sim_params_preset("ideal", &f), 0);
	assert_int_equal(sim_wire_segment(SIM_MSG_WRITE_IMM, CC_DEFAULT_SLOT_BYTES,
					  f.link.mtu_bytes, &seg), 0);
	struct sim_wire_sum w = sim_wire_msg_sum(f.link.type, &seg);
	double per_byte = (double)w.wire / (double)w.payload;

	for (int c = CC_REDUCESCATTER; c <= CC_ALLGATHER; c++)
		for (uint32_t k = 2; k <= 8; k *= 2) {
			struct cc_coll_params p = params((enum cc_coll)c, CC_WRITE_IMM, k, n / 4,
							 CC_FLOAT32, CC_SUM);
			double want = (double)(k - 1) * n * per_byte * 8 / (double)f.link.rate_bps * 1e6;
			double got = sim_star_us(&p, "ideal");

			if (got < want || got > want * 1.02)
				fail_msg("%s k=%u: %.1f us against the closed form %.1f us",
					 cc_coll_name[c], k, got, want);
		}
	/* sendrecv: N out and N in on every link at once (full duplex), as
	 * fast on one channel as on two */
	for (uint32_t ch = 1; ch <= 2; ch++)
		for (uint32_t k = 2; k <= 8; k *= 2) {
			struct cc_coll_params p = params(CC_SENDRECV, CC_WRITE_IMM, k, n / 4,
							 CC_FLOAT32, CC_SUM);
			double want = (double)n * per_byte * 8 / (double)f.link.rate_bps * 1e6;
			double got;

			p.nchannels = ch;
			got = sim_star_us(&p, "ideal");
			if (got < want || got > want * 1.02)
				fail_msg("sendrecv k=%u, %u channels: %.1f us against the closed form "
					 "%.1f us", k, ch, got, want);
		}
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_correct),
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_channels),
		cmocka_unit_test(test_primitives),
		cmocka_unit_test(test_sim_ideal),
	};

	return cmocka_run_group_tests_name("direct", t, NULL, NULL);
}
