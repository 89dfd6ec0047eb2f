/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_nccl_slices.c — NCCL's slices (cc_coll_params.slice_steps).
 *
 * NCCL's ring all-reduce, reduce-scatter and all-gather move a slice of
 * SLICESTEPS = NCCL_STEPS / 4 buffer steps per network message, and cut
 * every step, however short, in SlicePerChunk = CHUNKSTEPS / SLICESTEPS
 * slices (src/device/prims_simple.h genericOp):
 *   sliceSize = max(divUp(nelem, 16 * SlicePerChunk) * 16,
 *                   stepSize * StepPerSlice / 32)   elements.
 * With the default 4 MiB buffer: 512 KiB steps, 1 MiB slices, 2 MiB
 * chunks, four slices in flight, the smallest slice 32 KiB.  The data
 * messages each size makes, the staging that holds them, what `auto` sets,
 * and the data on both executors.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/algo.h"
#include "core/exec_data.h"
#include "core/nccl_auto.h"
#include "sim/exec.h"
#include "sim/params.h"
#include "tests/nccl_systems.h"
#include "tests/run_status.h"
#include "tests/sim_sched.h"

#define KIB 1024ull
#define MIB (1024ull * 1024ull)

/* A ring of k ranks, one channel, `bytes` of floats, with NCCL's slices
 * (slice_steps 2 of the default 8 slots of 512 KiB) or cclab's. */
static struct cc_schedule *build(enum cc_coll coll, uint32_t k, uint64_t bytes, uint32_t ss)
{
	struct cc_coll_params p;
	char err[256];

	cc_coll_params_default(&p);
	p.coll = coll;
	p.nranks = k;
	p.count = bytes / 4;
	p.slice_steps = ss;
	struct cc_schedule *s = cc_build(&p, err, sizeof(err));

	if (!s)
		fail_msg("cc_build: %s", err);
	return s;
}

/* Rank r's data messages (post_sends that are not control words), their
 * lengths in order into len[] (at most n). */
static uint32_t data_sends(const struct cc_schedule *s, uint32_t r, uint32_t *len, uint32_t n)
{
	const struct cc_rank_sched *rs = &s->ranks[r];
	uint32_t m = 0;

	for (uint32_t i = 0; i < rs->nops; i++) {
		const struct cc_op *o = cc_rank_op(rs, i);

		if (o->kind != CC_OP_POST_SEND || o->u.send.payload == CC_PAYLOAD_CTRL)
			continue;
		if (m < n)
			len[m] = o->u.send.sge.length;
		m++;
	}
	return m;
}

/* A 2-rank all-reduce is 3 steps (send, recvReduceCopySend, recv), two
 * of them sending: each step's chunk is half the array. */
static void allreduce_messages(void **state)
{
	(void)state;
	static const struct {
		uint64_t bytes;      /* the array */
		uint32_t msgs;       /* data messages a rank sends */
		uint32_t len[4];     /* their lengths */
	} cases[] = {
		/* a full 2 MiB chunk: two 1 MiB slices */
		{ 4 * MIB, 4, { MIB, MIB, MIB, MIB } },
		/* a 256 KiB chunk: two of 128 KiB, not one of 256 */
		{ 512 * KIB, 4, { 128 * KIB, 128 * KIB, 128 * KIB, 128 * KIB } },
		/* 48 KiB: the 32 KiB floor, then the rest */
		{ 96 * KIB, 4, { 32 * KIB, 16 * KIB, 32 * KIB, 16 * KIB } },
		/* 16 KiB: one slice (NCCL's second is empty: no message here) */
		{ 32 * KIB, 2, { 16 * KIB, 16 * KIB } },
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct cc_schedule *s = build(CC_ALLREDUCE, 2, cases[c].bytes, 2);
		uint32_t len[8];

		for (uint32_t r = 0; r < 2; r++) {
			assert_int_equal(data_sends(s, r, len, 8), cases[c].msgs);
			for (uint32_t i = 0; i < cases[c].msgs; i++)
				assert_int_equal(len[i], cases[c].len[i]);
		}
		cc_schedule_free(s);
	}
}

/* Without slice_steps a step is cut in slots: 512 KiB of a 2 MiB chunk
 * a message, one 256 KiB message for a 256 KiB chunk. */
static void cclab_cut_unchanged(void **state)
{
	(void)state;
	uint32_t len[16];
	struct cc_schedule *s = build(CC_ALLREDUCE, 2, 4 * MIB, 0);

	assert_int_equal(data_sends(s, 0, len, 16), 8);
	for (uint32_t i = 0; i < 8; i++)
		assert_int_equal(len[i], 512 * KIB);
	cc_schedule_free(s);
	s = build(CC_ALLREDUCE, 2, 512 * KIB, 0);
	assert_int_equal(data_sends(s, 0, len, 16), 2);
	assert_int_equal(len[0], 256 * KIB);
	assert_int_equal(len[1], 256 * KIB);
	cc_schedule_free(s);
}

/* The staging a connection end holds is the same 4 MiB buffer, as four
 * 1 MiB slices instead of eight 512 KiB slots. */
static void staging_is_the_buffer(void **state)
{
	(void)state;
	for (uint32_t ss = 0; ss <= 2; ss += 2) {
		struct cc_schedule *s = build(CC_ALLREDUCE, 2, 4 * MIB, ss);
		const struct cc_rank_sched *rs = &s->ranks[0];
		uint32_t stages = 0;

		for (uint32_t b = 0; b < rs->nbufs; b++)
			if (rs->bufs[b].role == CC_BUF_SEND_STAGE ||
			    rs->bufs[b].role == CC_BUF_RECV_STAGE) {
				assert_int_equal(rs->bufs[b].size, 4 * MIB);
				stages++;
			}
		assert_int_equal(stages, 2);
		cc_schedule_free(s);
	}
}

/* `auto` on 2 x 8 H100 under NCCL_ALGO=algo at 4 GiB, the slot or the
 * chunk size given or not: the parameters it sets. */
static struct cc_coll_params auto_at_4g(enum cc_coll coll, const char *algo, bool slot_given,
					bool chunk_given)
{
	struct cc_nccl_system sys = dgx_h100(2);
	struct cc_nccl_auto a;
	struct cc_coll_params p;
	struct cc_nccl_pick pick;
	char err[256];

	cc_nccl_auto_init(&a);
	a.algo = a.proto = a.channels = true;
	assert_int_equal(cc_nccl_env_set(&a.env, "NCCL_ALGO", algo, err, sizeof(err)), 0);
	if (cc_nccl_comm_init(&a.comm, &a.version, &sys, &a.env, err, sizeof(err)))
		fail_msg("comm_init: %s", err);
	cc_coll_params_default(&p);
	p.coll = coll;
	p.nranks = 16;
	p.ranks_per_node = 8;
	if (cc_nccl_auto_params(&a, 4096 * MIB, slot_given, chunk_given, &p, &pick, err,
				sizeof(err)))
		fail_msg("auto: %s", err);
	return p;
}

/* `auto` sets NCCL's slices where it runs the ring's all-reduce,
 * reduce-scatter or all-gather on Simple, and not where it runs the tree,
 * or where a slot or chunk size is given. */
static void auto_sets_them_for_the_ring(void **state)
{
	(void)state;
	static const enum cc_coll colls[] = { CC_ALLREDUCE, CC_REDUCESCATTER, CC_ALLGATHER };

	for (size_t c = 0; c < 3; c++) {
		struct cc_coll_params p = auto_at_4g(colls[c], "Ring", false, false);

		assert_int_equal(p.algo, CC_ALGO_RING);
		assert_int_equal(p.proto, CC_PROTO_SIMPLE);
		assert_int_equal(p.slice_steps, 2);
		assert_int_equal(p.slot_bytes, 512 * KIB);
		assert_int_equal(p.chunk_bytes, 2 * MIB);
		assert_int_equal(auto_at_4g(colls[c], "Ring", true, false).slice_steps, 0);
		assert_int_equal(auto_at_4g(colls[c], "Ring", false, true).slice_steps, 0);
	}
	struct cc_coll_params p = auto_at_4g(CC_ALLREDUCE, "Tree", false, false);

	assert_int_equal(p.algo, CC_ALGO_TREE);
	assert_int_equal(p.slice_steps, 0);
}

/* A slice must divide the slots; and a chunk of more slices than two
 * connections' slices in flight hold cannot progress (cc_ring_check):
 * 8 slots as 4 slices of 2 hold a chunk of 7 slices at most. */
static void slices_checked(void **state)
{
	(void)state;
	struct cc_coll_params p;
	char err[256];

	cc_coll_params_default(&p);
	p.nranks = 3;
	p.count = 3 * 15 * 128 * KIB;
	p.slice_steps = 3;
	assert_int_not_equal(cc_params_check(&p, NULL, err, sizeof(err)), 0);
	p.slice_steps = 2;
	p.chunk_bytes = 14 * 512 * KIB;
	assert_int_equal(cc_params_check(&p, NULL, err, sizeof(err)), 0);
	p.chunk_bytes = 15 * 512 * KIB;
	assert_int_not_equal(cc_params_check(&p, NULL, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "with 4 slices in flight per connection"));
}

/* #wrong 0 on the data executor and the simulator, with NCCL's slices:
 * all-reduce, reduce-scatter and all-gather on 2, 3 and 5 ranks, sizes
 * that make full chunks, short ones and the 32 KiB floor. */
static void data_right_on_both_executors(void **state)
{
	(void)state;
	static const enum cc_coll colls[] = { CC_ALLREDUCE, CC_REDUCESCATTER, CC_ALLGATHER };
	static const uint32_t ks[] = { 2, 3, 5 };
	static const uint64_t sizes[] = { 96 * KIB, 600 * KIB, 5 * MIB };
	struct sim_params f;

	assert_int_equal(sim_params_preset("ib-ndr", &f), 0);
	for (size_t c = 0; c < 3; c++)
		for (size_t k = 0; k < 3; k++)
			for (size_t z = 0; z < 3; z++) {
				struct cc_schedule *s = build(colls[c], ks[k], sizes[z], 2);

				both_executors_right(s, &f, 7, 11);
				cc_schedule_free(s);
			}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(allreduce_messages),
		cmocka_unit_test(cclab_cut_unchanged),
		cmocka_unit_test(staging_is_the_buffer),
		cmocka_unit_test(auto_sets_them_for_the_ring),
		cmocka_unit_test(slices_checked),
		cmocka_unit_test(data_right_on_both_executors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
