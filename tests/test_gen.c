/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_gen.c — schedules generated as they run (core/gen.h) against
 * the built ones: for the ring's and the tree's collectives, protocols,
 * transports, channels, QPs per connection, ring orders, nodes and
 * awkward sizes, and CollNetChain's nodes, channels and slots, every
 * rank's streams made step by step in an interleaved order give the built
 * schedule's ops and dependencies op for op, at their indices; with pages
 * given back as it goes, the ops still to come are the same. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/algo.h"
#include "core/gen.h"

static unsigned long long compared;

static void same_op(const struct cc_schedule *a, const struct cc_schedule *b, uint32_t r,
		    uint32_t i)
{
	char ta[1024], tb[1024];
	FILE *fa = fmemopen(ta, sizeof(ta), "w"), *fb = fmemopen(tb, sizeof(tb), "w");

	assert_non_null(fa);
	assert_non_null(fb);
	/* every field the listing has, its dependencies included */
	cc_op_print(fa, a, r, i);
	cc_op_print(fb, b, r, i);
	fputc('\0', fa);
	fputc('\0', fb);
	fclose(fa);
	fclose(fb);
	if (strcmp(ta, tb) || cc_rank_op(&a->ranks[r], i)->dep_first != cc_rank_op(&b->ranks[r], i)->dep_first)
		fail_msg("%s k=%u ch=%u %s %s: built\n%sgenerated\n%s", cc_coll_name[a->params.coll],
			 a->nranks, a->params.nchannels, cc_proto_name[a->params.proto],
			 cc_transport_name[a->params.transport], ta, tb);
	compared++;
}

/* Every stream of rank r given back whole: each block of ops inside one
 * stream went back to the pool, and its ops read as zeros (core/gen.h),
 * as pages given back did. */
static void dropped_blocks_read_zero(const struct cc_schedule *g, uint32_t r)
{
	static const struct cc_op zero;

	for (uint32_t j = 1; j < cc_gen_streams(g->gen); j++) {
		const struct cc_gen_stream *st = cc_gen_stream(g->gen, r, j);
		uint32_t from = (st->first + CC_OPBLK - 1) / CC_OPBLK * CC_OPBLK;

		for (uint32_t i = from; i + CC_OPBLK <= st->end; i += CC_OPBLK)
			for (uint32_t k = 0; k < CC_OPBLK; k++)
				assert_memory_equal(cc_rank_op(&g->ranks[r], i + k), &zero, sizeof(zero));
	}
}

/* Makes every stream of g's ranks, one step of each in turn; with `drop`,
 * gives back each stream's made ops and checks each new op at once. */
static void generate(const struct cc_schedule *whole, const struct cc_schedule *g, bool drop)
{
	uint32_t ns = cc_gen_streams(g->gen);

	for (uint32_t r = 0; r < g->nranks; r++) {
		assert_int_equal(g->ranks[r].nops, whole->ranks[r].nops);
		assert_int_equal(g->ranks[r].ndeps, whole->ranks[r].ndeps);
		/* stream 0, the first invitations, is made with the schedule */
		assert_int_equal(cc_gen_stream(g->gen, r, 0)->made, cc_gen_stream(g->gen, r, 0)->end);
		if (drop)
			for (uint32_t i = 0; i < cc_gen_stream(g->gen, r, 0)->end; i++)
				same_op(whole, g, r, i);
		for (bool more = true; more;) {
			more = false;
			for (uint32_t j = 1; j < ns; j++) {
				const struct cc_gen_stream *st = cc_gen_stream(g->gen, r, j);
				uint32_t from = st->made;

				int rc = cc_gen_next(g->gen, r, j);

				assert_true(rc >= 0);
				if (!rc)
					continue;
				more = true;
				assert_true(st->made <= st->end);
				if (!drop)
					continue;
				for (uint32_t i = from; i < st->made; i++)
					same_op(whole, g, r, i);
				cc_gen_drop(g->gen, r, j, st->made);
			}
		}
		for (uint32_t j = 0; j < ns; j++) {
			const struct cc_gen_stream *st = cc_gen_stream(g->gen, r, j);

			assert_int_equal(st->made, st->end);
			/* an empty stream holds no op to look up */
			if (st->end > st->first)
				assert_int_equal(cc_gen_stream_of(g->gen, r, st->first), j);
		}
		assert_int_equal(cc_gen_stream(g->gen, r, ns - 1)->end, g->ranks[r].nops);
		if (drop)
			dropped_blocks_read_zero(g, r);
		else
			for (uint32_t i = 0; i < g->ranks[r].nops; i++)
				same_op(whole, g, r, i);
	}
}

static void check_params(const struct cc_coll_params *p)
{
	const struct cc_build_opts o = { .generated = true };
	char err[256];
	struct cc_schedule *whole = cc_build(p, err, sizeof(err));

	if (!whole)
		fail_msg("%s: %s", cc_coll_name[p->coll], err);
	for (int drop = 0; drop < 2; drop++) {
		struct cc_schedule *g = cc_build_with(p, &o, err, sizeof(err));

		assert_non_null(g);
		assert_non_null(g->gen);
		generate(whole, g, drop);
		cc_schedule_free(g);
	}
	cc_schedule_free(whole);
}

static void matrix(enum cc_algo algo)
{
	static const uint32_t ks[] = { 2, 3, 5, 8 };
	static const uint64_t counts[] = { 1, 1031, 3 * 65536 + 7 };

	compared = 0;
	for (int c = 0; c < CC_COLL_COUNT; c++) {
		if (!cc_algo_supports(algo, (enum cc_coll)c))
			continue;
		for (int pr = 0; pr < CC_PROTO_COUNT; pr++)
			for (int t = 0; t < CC_TRANSPORT_COUNT; t++)
				for (size_t ki = 0; ki < 4; ki++)
					for (size_t ni = 0; ni < 3; ni++) {
						struct cc_coll_params p;

						cc_coll_params_default(&p);
						p.algo = algo;
						p.coll = (enum cc_coll)c;
						p.proto = (enum cc_proto)pr;
						p.transport = (enum cc_transport)t;
						p.nranks = ks[ki];
						p.root = 1;
						p.count = counts[ni];
						p.nchannels = (uint32_t)(1 + (ki + ni) % 3);
						p.slot_bytes = 16384;
						p.qps_per_conn = (ki + ni) % 2 ? 2 : 1;
						p.gdr_flush = t == CC_WRITE_IMM && ni == 2;
						if (ks[ki] == 8 && ni == 1) {
							/* the ring in rail order, the tree's chains */
							p.ranks_per_node = 4;
							p.ring_order = CC_RING_ORDER_RAIL;
						}
						cc_coll_params_fill(&p, 1, 0);
						if (cc_params_check(&p, NULL, NULL, 0))
							continue;
						assert_true(cc_gen_supported(&p));
						check_params(&p);
					}
	}
}

static void test_ring_matrix(void **state)
{
	(void)state;
	matrix(CC_ALGO_RING);
	assert_true(compared > 100000);
}

/* CollNetChain: nodes of 1, 2 and 4 GPUs, 1 to 4 channels, sizes that
 * leave a last chunk short or fill a few loops, slots of 4 and 2. */
static void test_collnet(void **state)
{
	(void)state;
	static const struct { uint32_t nodes, g, ch; uint64_t count; } c[] = {
		{ 2, 4, 4, 100003 }, { 3, 2, 2, 300001 }, { 4, 1, 2, 65536 }, { 2, 2, 1, 1u << 20 },
		{ 3, 4, 3, 7 },
	};

	compared = 0;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		for (int slots = 2; slots <= 4; slots += 2) {
			struct cc_coll_params p;

			cc_coll_params_default(&p);
			p.algo = CC_ALGO_COLLNET_CHAIN;
			p.nranks = c[i].nodes * c[i].g;
			p.ranks_per_node = c[i].g;
			p.nchannels = c[i].ch;
			p.count = c[i].count;
			p.nslots = (uint32_t)slots;
			p.slot_bytes = 16384;
			cc_coll_params_fill(&p, 1, 0);
			assert_int_equal(cc_params_check(&p, NULL, NULL, 0), 0);
			assert_true(cc_gen_supported(&p));
			check_params(&p);
		}
	assert_true(compared > 10000);
}

static void test_tree_matrix(void **state)
{
	(void)state;
	matrix(CC_ALGO_TREE);
	assert_true(compared > 50000);
}

/* What is neither the ring nor the tree, and either on one rank, is
 * built whole. */
static void test_not_generated(void **state)
{
	(void)state;
	const struct cc_build_opts o = { .generated = true };
	struct cc_coll_params p;
	char err[200];

	cc_coll_params_default(&p);
	p.nranks = 4;
	p.count = 4096;
	p.algo = CC_ALGO_HALVING_DOUBLING;
	assert_false(cc_gen_supported(&p));
	struct cc_schedule *s = cc_build_with(&p, &o, err, sizeof(err));

	assert_non_null(s);
	assert_null(s->gen);
	cc_schedule_free(s);
	p.nranks = 1;
	p.algo = CC_ALGO_RING;
	assert_false(cc_gen_supported(&p));
	p.algo = CC_ALGO_TREE;
	assert_false(cc_gen_supported(&p));
}

/* A ring allreduce of 1024 ranks, generated: the schedule holds its
 * resources and counts only until ops are made. */
static void test_large_is_cheap(void **state)
{
	(void)state;
	const struct cc_build_opts o = { .generated = true };
	struct cc_coll_params p;
	char err[200];

	cc_coll_params_default(&p);
	p.nranks = 1024;
	p.count = 1u << 18;
	struct cc_schedule *s = cc_build_with(&p, &o, err, sizeof(err));

	assert_non_null(s);
	assert_non_null(s->gen);
	/* 2(k-1) steps, a slice each, at k = 1024 */
	assert_true(s->ranks[5].nops > 6 * 2 * 1023);
	assert_int_equal(cc_gen_stream(s->gen, 5, 1)->made, cc_gen_stream(s->gen, 5, 1)->first);
	cc_schedule_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_matrix),
		cmocka_unit_test(test_tree_matrix),
		cmocka_unit_test(test_collnet),
		cmocka_unit_test(test_not_generated),
		cmocka_unit_test(test_large_is_cheap),
	};

	return cmocka_run_group_tests_name("gen", tests, NULL, NULL);
}
