/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_ring_order.c — the ring's rail order (core/ring.c,
 * --ring-order rail), against what it promises, checked on the schedule's
 * QPs rather than on the builder's order function:
 *   - every channel's ring is one cycle through all k ranks;
 *   - it crosses between nodes only between GPUs of one rail (the same
 *     local index), except once when the number of nodes is odd;
 *   - channels rotate the rails: with C = G channels every rail carries
 *     node crossings;
 *   - rank order is untouched (the same schedule as without the option);
 *   - #wrong == 0 for every ring collective, transport, protocol, several
 *     node shapes, channel counts and awkward sizes (data executor);
 *   - on a 2 x 4 rail-optimised network no byte crosses the spine, where
 *     rank order sends the node crossings through it. */
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
#include "sim/net.h"
#include "tests/sim_sched.h"
#include "tests/run_status.h"

static struct cc_coll_params params(enum cc_coll coll, uint32_t k, uint32_t g, uint32_t nch,
				    uint64_t count)
{
	struct cc_coll_params p;

	cc_coll_params_default(&p);
	p.coll = coll;
	p.nranks = k;
	p.ranks_per_node = g;
	p.ring_order = CC_RING_ORDER_RAIL;
	p.nchannels = nch;
	p.count = count;
	return p;
}

/* The peer rank r sends to on channel ch: its send stage's. */
static uint32_t next_of(const struct cc_schedule *s, uint32_t r, uint32_t ch)
{
	const struct cc_rank_sched *rs = &s->ranks[r];

	for (uint32_t b = 0; b < rs->nbufs; b++)
		if (rs->bufs[b].role == CC_BUF_SEND_STAGE && rs->bufs[b].channel == ch)
			return (uint32_t)rs->bufs[b].peer;
	fail_msg("rank %u has no send stage on channel %u", r, ch);
	return 0;
}

static void test_cycles_and_rails(void **state)
{
	static const uint32_t shapes[][2] = { { 4, 2 }, { 6, 2 }, { 6, 3 }, { 8, 4 }, { 12, 4 },
					      { 16, 8 }, { 9, 3 } };

	(void)state;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		uint32_t k = shapes[i][0], g = shapes[i][1], m = k / g;
		struct cc_coll_params p = params(CC_ALLREDUCE, k, g, g, 1 << 16);
		char err[200];
		struct cc_schedule *s = cc_build(&p, err, sizeof(err));
		uint32_t rail_used[64] = { 0 };

		assert_non_null(s);
		for (uint32_t ch = 0; ch < g; ch++) {
			uint32_t r = 0, len = 0, cross = 0, off_rail = 0;

			do {
				uint32_t nx = next_of(s, r, ch);

				if (nx / g != r / g) {
					cross++;
					if (nx % g != r % g)
						off_rail++;
					else
						rail_used[r % g]++;
				}
				r = nx;
				len++;
			} while (r != 0 && len <= k);
			assert_int_equal(len, k); /* one cycle through every rank */
			assert_int_equal(cross, m);
			assert_int_equal(off_rail, m % 2);
		}
		for (uint32_t l = 0; l < g; l++)
			assert_true(rail_used[l] > 0);
		cc_schedule_free(s);
	}
}

/* Text t without its plugin-call marks (" call=isend", " call=irecv"),
 * in place; its new length. */
static size_t without_calls(char *t, size_t n)
{
	static const char *const marks[] = {" call=isend", " call=irecv"};
	size_t w = 0;

	for (size_t r = 0; r < n;) {
		size_t skip = 0;

		for (size_t m = 0; m < 2 && !skip; m++)
			if (!strncmp(t + r, marks[m], strlen(marks[m])))
				skip = strlen(marks[m]);
		if (skip) {
			r += skip;
			continue;
		}
		t[w++] = t[r++];
	}
	return w;
}

/* Rank order on nodes is the flat ring's schedule, op for op; only the
 * plugin-call marks differ, as no proxy serves a connection inside a
 * node. */
static void test_rank_order_unchanged(void **state)
{
	struct cc_coll_params p = params(CC_ALLGATHER, 8, 4, 2, 1031);
	char err[200];
	char *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;

	(void)state;
	p.ring_order = CC_RING_ORDER_RANK;
	struct cc_schedule *s1 = cc_build(&p, err, sizeof(err));
	p.ranks_per_node = 0;
	struct cc_schedule *s2 = cc_build(&p, err, sizeof(err));
	FILE *f1 = open_memstream(&a, &na), *f2 = open_memstream(&b, &nb);

	assert_non_null(s1);
	assert_non_null(s2);
	cc_schedule_print(f1, s1, -1);
	cc_schedule_print(f2, s2, -1);
	fclose(f1);
	fclose(f2);
	assert_true(na < nb); /* the flat ring marks every connection's calls */
	na = without_calls(a, na);
	nb = without_calls(b, nb);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
	free(a);
	free(b);
	cc_schedule_free(s1);
	cc_schedule_free(s2);
}

static void test_correct(void **state)
{
	static const uint32_t shapes[][2] = { { 4, 2 }, { 6, 3 }, { 6, 2 }, { 8, 4 }, { 9, 3 } };
	static const uint32_t chans[] = { 1, 2, 3 };
	static const uint64_t counts[] = { 1, 7, 1031, 40009 };
	unsigned runs = 0;

	(void)state;
	for (int c = 0; c < CC_ALLTOALL; c++)
		for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
			for (size_t h = 0; h < sizeof(chans) / sizeof(chans[0]); h++)
				for (size_t n = 0; n < sizeof(counts) / sizeof(counts[0]); n++) {
					uint32_t k = shapes[i][0];
					struct cc_coll_params p = params(c, k, shapes[i][1], chans[h],
									 counts[n]);
					char err[200];

					p.transport = (enum cc_transport)((n + h) % CC_TRANSPORT_COUNT);
					p.proto = (enum cc_proto)((i + n) % CC_PROTO_COUNT);
					p.root = (uint32_t)(n % k);
					p.redop = CC_AVG;
					p.dtype = n % 2 ? CC_FLOAT64 : CC_INT32;
					if (p.dtype == CC_INT32)
						p.redop = CC_SUM;
					cc_coll_params_fill(&p, 0, 0);
					struct cc_schedule *s = cc_build(&p, err, sizeof(err));
					if (!s)
						fail_msg("%s", err);
					struct cc_data_opts o = { .seed = n + 5, .order_seed = i + h };
					struct cc_data_result res;

					assert_int_equal(cc_data_run(s, &o, &res), 0);
					if (res.err.status != CC_RUN_OK || res.wrong)
						fail_msg("%s k=%u G=%u C=%u n=%llu: %s, %llu wrong",
							 cc_coll_name[c], k, shapes[i][1], chans[h],
							 (unsigned long long)counts[n], res.err.msg,
							 (unsigned long long)res.wrong);
					cc_data_result_free(&res);
					cc_schedule_free(s);
					runs++;
				}
	print_message("%u runs\n", runs);
}

static void test_railopt_spine(void **state)
{
	struct sim_net net;
	char msg[SIM_NET_ERR_LEN];

	(void)state;
	sim_net_init(&net, NULL);
	assert_int_equal(sim_net_railopt(&net, 2, 4, 1, msg, sizeof(msg)), 0);
	for (int rail = 0; rail < 2; rail++) {
		struct cc_coll_params p = params(CC_ALLREDUCE, 8, 4, 1, 1 << 20);
		struct sim_params f;
		struct cc_sim_result res;
		char err[200];

		p.ring_order = rail ? CC_RING_ORDER_RAIL : CC_RING_ORDER_RANK;
		struct cc_schedule *s = cc_build(&p, err, sizeof(err));
		assert_non_null(s);
		assert_int_equal(sim_params_preset("roce-400g", &f), 0);
		struct cc_sim_opts o = { .fabric = &f, .net = &net, .seed = 1, .check = true };
		assert_int_equal(cc_sim_run(s, &o, &res), 0);
		assert_run_status(res.err, CC_RUN_OK);
		assert_int_equal(res.wrong, 0);
		print_message("%s order: 4 MiB %.1f us, spine bytes %llu\n", rail ? "rail" : "rank",
			      res.time_ps / 1e6, (unsigned long long)sim_spine_bytes(&res));
		if (rail)
			assert_int_equal(sim_spine_bytes(&res), 0);
		else
			assert_true(sim_spine_bytes(&res) > 0);
		cc_sim_result_free(&res);
		cc_schedule_free(s);
	}
	sim_net_free(&net);
}

static void test_refused(void **state)
{
	char err[256];
	struct cc_coll_params p = params(CC_ALLREDUCE, 6, 4, 1, 100);

	(void)state;
	assert_null(cc_build(&p, err, sizeof(err)));
	assert_non_null(strstr(err, "rail orders the ring on nodes"));
	p = params(CC_ALLREDUCE, 8, 4, 1, 100);
	p.algo = CC_ALGO_TREE;
	assert_null(cc_build(&p, err, sizeof(err)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cycles_and_rails),
		cmocka_unit_test(test_rank_order_unchanged),
		cmocka_unit_test(test_correct),
		cmocka_unit_test(test_railopt_spine),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
