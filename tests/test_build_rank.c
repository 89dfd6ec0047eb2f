/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_build_rank.c — a schedule built for one rank
 * (cc_build_opts.one_rank) against the whole one: every rank's buffers,
 * MRs, CQs and QPs as in the whole schedule, the rank's ops and their
 * dependencies identical op for op, every other rank without ops; for
 * every algorithm, the collectives it builds, each protocol and transport,
 * channels, QPs per connection and awkward sizes.  Then what refuses such a
 * schedule (the simulator and the data executor, which run every rank) and
 * what one rank's build saves at k = 256. */
#include <errno.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/quick.h"
#include "tests/schedule_text.h"

#include "core/algo.h"
#include "core/exec_data.h"
#include "sim/exec.h"
#include "sim/params.h"

static unsigned long long compared, per_algo[CC_ALGO_COUNT];


#define SAME_ARRAY(a, b, n) \
	assert_true((n) == 0 || memcmp((a), (b), (size_t)(n) * sizeof(*(a))) == 0)

static void same_resources(const struct cc_rank_sched *a, const struct cc_rank_sched *b)
{
	assert_int_equal(a->nbufs, b->nbufs);
	assert_int_equal(a->nmrs, b->nmrs);
	assert_int_equal(a->ncqs, b->ncqs);
	assert_int_equal(a->nqps, b->nqps);
	for (uint32_t i = 0; i < a->nbufs; i++) {
		assert_int_equal(a->bufs[i].mem, b->bufs[i].mem);
		assert_int_equal(a->bufs[i].role, b->bufs[i].role);
		assert_int_equal(a->bufs[i].size, b->bufs[i].size);
		assert_int_equal(a->bufs[i].peer, b->bufs[i].peer);
		assert_int_equal(a->bufs[i].channel, b->bufs[i].channel);
	}
	SAME_ARRAY(a->mrs, b->mrs, a->nmrs);
	SAME_ARRAY(a->cqs, b->cqs, a->ncqs);
	for (uint32_t i = 0; i < a->nqps; i++) {
		const struct cc_qp *x = &a->qps[i], *y = &b->qps[i];

		assert_true(x->peer == y->peer && x->peer_qp == y->peer_qp &&
			    x->send_cq == y->send_cq && x->recv_cq == y->recv_cq &&
			    x->max_send_wr == y->max_send_wr && x->max_recv_wr == y->max_recv_wr &&
			    x->max_inline == y->max_inline && x->retry_cnt == y->retry_cnt &&
			    x->rnr_retry == y->rnr_retry && x->channel == y->channel &&
			    x->group == y->group && x->stride == y->stride);
	}
}

/* Every rank's one-rank build against `whole`. */
static void check_params(const struct cc_coll_params *p)
{
	char err[256];
	struct cc_schedule *whole = cc_build(p, err, sizeof(err));

	if (!whole)
		fail_msg("%s on %u ranks (%s): %s", cc_coll_name[p->coll], p->nranks,
			 cc_algo_name[p->algo], err);
	assert_false(whole->one_rank);
	for (uint32_t r = 0; r < p->nranks; r++) {
		const struct cc_build_opts o = { .one_rank = true, .rank = r };
		struct cc_schedule *one = cc_build_with(p, &o, err, sizeof(err));

		assert_non_null(one);
		assert_true(one->one_rank);
		assert_int_equal(one->rank, r);
		assert_int_equal(one->nranks, whole->nranks);
		for (uint32_t q = 0; q < p->nranks; q++) {
			const struct cc_rank_sched *a = &whole->ranks[q], *b = &one->ranks[q];

			same_resources(a, b);
			if (q != r) {
				assert_int_equal(b->nops, 0);
				continue;
			}
			assert_int_equal(a->nops, b->nops);
			for (uint32_t i = 0; i < a->nops; i++) {
				assert_int_equal(a->ops[i].ndeps, b->ops[i].ndeps);
				SAME_ARRAY(cc_op_deps(a, &a->ops[i]), cc_op_deps(b, &b->ops[i]),
					   a->ops[i].ndeps);
			}
			/* every field of every op, as `cclab schedule` lists them */
			char *ta = schedule_text(cc_schedule_print, whole, (int)r);
			char *tb = schedule_text(cc_schedule_print, one, (int)r);

			if (strcmp(ta, tb))
				fail_msg("rank %u of %s on %u ranks (%s, %s): ops differ", r,
					 cc_coll_name[p->coll], p->nranks, cc_algo_name[p->algo],
					 cc_proto_name[p->proto]);
			free(ta);
			free(tb);
			compared += a->nops;
			per_algo[p->algo] += a->nops;
		}
		cc_schedule_free(one);
	}
	cc_schedule_free(whole);
}

/* The shapes an algorithm is built in here: ranks, ranks per node,
 * channels. */
struct shape {
	uint32_t k, g, ch;
};

static const struct shape shapes[] = {
	{ 1, 0, 1 }, { 2, 0, 1 }, { 3, 0, 2 }, { 5, 0, 1 }, { 8, 0, 3 },
	{ 4, 2, 2 }, { 8, 4, 1 }, { 12, 4, 2 }, { 6, 3, 1 }, { 16, 8, 2 }, { 4, 4, 1 }, { 8, 8, 2 },
};

static void test_every_algorithm(void **state)
{
	(void)state;
	/* bytes: an empty array, one element, an awkward size, a few slices */
	static const uint64_t counts[] = { 0, 1, 1031, 3 * 65536 + 7 };
	/* CCLAB_MATRIX=quick (`make test`): two of the four sizes per
	 * shape, the two pairs taking turns over shapes, protocols and
	 * transports */
	bool quick = matrix_quick();

	for (int a = 0; a < CC_ALGO_COUNT; a++)
		for (int c = 0; c < CC_COLL_COUNT; c++) {
			if (!cc_algo_supports((enum cc_algo)a, (enum cc_coll)c))
				continue;
			for (int pr = 0; pr < CC_PROTO_COUNT; pr++)
				for (int t = 0; t < CC_TRANSPORT_COUNT; t++)
					for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]);
					     si++)
						for (size_t ni = quick ? (si + (size_t)(pr + t)) % 2 : 0;
						     ni < 4; ni += quick ? 2 : 1) {
							struct cc_coll_params p;

							cc_coll_params_default(&p);
							p.coll = (enum cc_coll)c;
							p.algo = (enum cc_algo)a;
							p.proto = (enum cc_proto)pr;
							p.transport = (enum cc_transport)t;
							p.nranks = shapes[si].k;
							p.ranks_per_node = shapes[si].g;
							p.nchannels = shapes[si].ch;
							p.root = p.nranks > 1 ? 1 : 0;
							p.count = counts[ni];
							/* the tree and NVLS on small chunks: many
							 * loops; two QPs per connection */
							p.slot_bytes = 16384;
							p.qps_per_conn = (ni + si) % 2 ? 2 : 1;
							p.gdr_flush = t == CC_WRITE_IMM && ni == 3;
							cc_coll_params_fill(&p, 1, 0);
							if (cc_params_check(&p, NULL, NULL, 0))
								continue;
							check_params(&p);
						}
		}
	/* Every algorithm was compared, on shapes with ops. */
	for (int a = 0; a < CC_ALGO_COUNT; a++)
		if (per_algo[a] < 1000)
			fail_msg("%s: %llu ops compared", cc_algo_name[a], per_algo[a]);
	assert_true(compared > 100000);
}

static void test_rank_out_of_range(void **state)
{
	(void)state;
	struct cc_coll_params p;
	const struct cc_build_opts o = { .one_rank = true, .rank = 4 };
	char err[200];

	cc_coll_params_default(&p);
	p.nranks = 4;
	p.count = 1024;
	assert_null(cc_build_with(&p, &o, err, sizeof(err)));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(err, "rank 4 does not exist (4 ranks)");
}

/* The executors that run every rank say why they cannot run one. */
static void test_whole_executors_refuse(void **state)
{
	(void)state;
	struct cc_coll_params p;
	const struct cc_build_opts o = { .one_rank = true, .rank = 2 };
	char err[256];

	cc_coll_params_default(&p);
	p.nranks = 4;
	p.count = 4096;
	struct cc_schedule *s = cc_build_with(&p, &o, err, sizeof(err));

	assert_non_null(s);
	assert_int_equal(cc_schedule_whole(s, "data", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "the data executor runs every rank, and this schedule was built "
				 "with rank 2's ops only");

	struct cc_data_result dres;
	memset(err, 0, sizeof(err));
	assert_int_equal(cc_data_executor.run(s, &(struct cc_exec_common){0}, NULL, &dres, err,
					      sizeof(err)), -EINVAL);
	assert_string_equal(err, "the data executor runs every rank, and this schedule was built "
				 "with rank 2's ops only");

	struct sim_params f;
	struct cc_sim_result res;
	struct cc_sim_opts so = { .fabric = &f };

	assert_int_equal(sim_params_preset("ideal", &f), 0);
	assert_int_equal(cc_sim_run(s, &so, &res), -EINVAL);
	assert_string_equal(res.err.msg, "the sim executor runs every rank, and this schedule was "
					 "built with rank 2's ops only");
	cc_sim_result_free(&res);
	cc_schedule_free(s);
}

/* A ring allreduce on 256 ranks: one rank's build holds that rank's ops
 * alone, 1/256 of the whole's, and the schedule's arrays shrink with
 * them (its resources, a few per rank, stay). */
static void test_one_rank_is_small(void **state)
{
	(void)state;
	struct cc_coll_params p;
	char err[200];

	cc_coll_params_default(&p);
	p.nranks = 256;
	p.count = 1u << 20;
	struct cc_schedule *whole = cc_build(&p, err, sizeof(err));
	struct cc_schedule *one =
		cc_build_with(&p, &(const struct cc_build_opts){ .one_rank = true, .rank = 17 },
			      err, sizeof(err));
	uint64_t ops = 0;

	assert_non_null(whole);
	assert_non_null(one);
	for (uint32_t r = 0; r < p.nranks; r++)
		ops += whole->ranks[r].nops;
	/* symmetric ring: every rank has the same ops */
	assert_int_equal(ops, (uint64_t)p.nranks * one->ranks[17].nops);
	assert_true(cc_schedule_bytes(one) * 50 < cc_schedule_bytes(whole));
	cc_schedule_free(one);
	cc_schedule_free(whole);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_algorithm),
		cmocka_unit_test(test_rank_out_of_range),
		cmocka_unit_test(test_whole_executors_refuse),
		cmocka_unit_test(test_one_rank_is_small),
	};

	return cmocka_run_group_tests_name("build_rank", tests, NULL, NULL);
}
