/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_ring.c — the ring algorithms' structure and byte counts:
 *   - NCCL's primitive sequence per loop (all_reduce.h / reduce_scatter.h /
 *     all_gather.h runRing), step by step, for every rank;
 *   - data bytes each rank sends: 2N(k-1)/k for allreduce when k divides N,
 *     2(k-1)N summed over ranks for every N, (k-1)/k of the whole array for
 *     reduce-scatter and all-gather — counted from the schedule and from what
 *     the data executor actually moved;
 *   - protocol invariants: receives posted before the CTS that invites the
 *     data, bounded queues, one CQE per signaled WQE. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "core/algo.h"
#include "core/exec_data.h"
#include "core/reference.h"
#include "tests/run_status.h"

static struct cc_schedule *build(enum cc_coll c, enum cc_transport t, uint32_t k, uint64_t count,
				 enum cc_dtype d)
{
	struct cc_coll_params p;
	char err[200];
	cc_coll_params_default(&p);
	p.coll = c;
	p.transport = t;
	p.nranks = k;
	p.count = count;
	p.dtype = d;
	struct cc_schedule *s = cc_build(&p, err, sizeof(err));
	if (!s)
		fail_msg("build: %s", err);
	return s;
}

/* Expected primitive and chunk (mod k) of rank r at step s, written from
 * NCCL's runRing independently of core/ring.c's loops. */
static enum cc_prim want_prim(enum cc_coll c, uint32_t k, uint32_t s)
{
	if (c == CC_ALLREDUCE) {
		if (s == 0)
			return CC_PRIM_SEND;
		if (s < k - 1)
			return CC_PRIM_RECV_REDUCE_SEND;
		if (s == k - 1)
			return CC_PRIM_RECV_REDUCE_COPY_SEND;
		if (s < 2 * k - 2)
			return CC_PRIM_RECV_COPY_SEND;
		return CC_PRIM_RECV;
	}
	if (c == CC_REDUCESCATTER)
		return s == 0 ? CC_PRIM_SEND : s < k - 1 ? CC_PRIM_RECV_REDUCE_SEND
							 : CC_PRIM_RECV_REDUCE_COPY;
	return s == 0 ? CC_PRIM_COPY_SEND : s < k - 1 ? CC_PRIM_RECV_COPY_SEND : CC_PRIM_RECV;
}

static uint32_t want_chunk(enum cc_coll c, uint32_t k, uint32_t r, uint32_t s)
{
	/* allreduce and reduce-scatter work on chunk r-1-s at step s (the
	 * allreduce's second half walks the same ring again); all-gather on r-s. */
	int64_t x = c == CC_ALLGATHER ? (int64_t)r - s : (int64_t)r - 1 - s;
	return (uint32_t)(((x % k) + k) % k);
}

static void primitive_sequence(void **state)
{
	(void)state;
	static const uint32_t ks[] = { 2, 3, 4, 5, 8, 17, 33 };
	for (int c = 0; c <= CC_ALLGATHER; c++)
		for (size_t ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++) {
			uint32_t k = ks[ki];
			/* 3 loops: chunk = 64 elements, 3 * 64 * k elements. */
			struct cc_coll_params p;
			char err[200];
			cc_coll_params_default(&p);
			p.coll = (enum cc_coll)c;
			p.nranks = k;
			p.chunk_bytes = 64 * 4;
			p.count = c == CC_ALLREDUCE ? 3 * 64 * k : 3 * 64;
			struct cc_schedule *s = cc_build(&p, err, sizeof(err));
			assert_non_null(s);
			uint32_t steps = cc_ring_steps(p.coll, k);
			assert_int_equal(steps, c == CC_ALLREDUCE ? 2 * k - 1 : k);
			for (uint32_t r = 0; r < k; r++) {
				const struct cc_rank_sched *rs = &s->ranks[r];
				uint32_t seen = 0, last_step = UINT32_MAX, last_chunk = UINT32_MAX;
				for (uint32_t i = 0; i < rs->nops; i++) {
					const struct cc_tag *t = &rs->ops[i].tag;
					if (t->prim == CC_PRIM_NONE ||
					    (t->step == last_step && t->chunk == last_chunk))
						continue;
					uint32_t loop = seen / steps, st = seen % steps;
					assert_int_equal(t->step, st);
					assert_int_equal(t->prim, want_prim(p.coll, k, st));
					assert_int_equal(t->chunk,
							 loop * k + want_chunk(p.coll, k, r, st));
					last_step = t->step;
					last_chunk = t->chunk;
					seen++;
				}
				assert_int_equal(seen, 3 * steps);
			}
			cc_schedule_free(s);
		}
}

static void single_rank_is_one_copy(void **state)
{
	(void)state;
	for (int c = 0; c <= CC_ALLGATHER; c++) {
		struct cc_schedule *s = build((enum cc_coll)c, CC_WRITE_IMM, 1, 1000, CC_FLOAT32);
		assert_int_equal(s->ranks[0].nops, 1);
		assert_int_equal(s->ranks[0].ops[0].kind, CC_OP_COPY);
		assert_int_equal(s->ranks[0].ops[0].tag.prim, CC_PRIM_COPY);
		assert_int_equal(s->ranks[0].nqps, 0);
		assert_int_equal(cc_ring_steps((enum cc_coll)c, 1), 1);
		cc_schedule_free(s);
	}
}

static uint64_t run_bytes(struct cc_schedule *s, uint64_t *per_rank)
{
	struct cc_data_opts o = { .seed = 9, .order_seed = 4 };
	struct cc_data_result res;
	uint64_t total = 0;
	assert_int_equal(cc_data_run(s, &o, &res), 0);
	assert_run_status(res.err, CC_RUN_OK);
	assert_int_equal(res.wrong, 0);
	for (uint32_t r = 0; r < s->nranks; r++) {
		/* What moved equals what the schedule says. */
		assert_int_equal(res.data_bytes[r], cc_rank_data_bytes(&s->ranks[r]));
		per_rank[r] = res.data_bytes[r];
		total += res.data_bytes[r];
	}
	cc_data_result_free(&res);
	return total;
}

static void allreduce_bytes(void **state)
{
	(void)state;
	uint64_t per[64];
	for (uint32_t k = 1; k <= 33; k += (k < 9 ? 1 : 8)) {
		for (int t = 0; t < CC_TRANSPORT_COUNT; t++) {
			/* k divides N: every rank sends exactly 2N(k-1)/k bytes. */
			uint64_t count = 1000ull * k, n = count * 4;
			struct cc_schedule *s = build(CC_ALLREDUCE, (enum cc_transport)t, k, count,
						      CC_FLOAT32);
			uint64_t total = run_bytes(s, per);
			for (uint32_t r = 0; r < k; r++)
				assert_int_equal(per[r], 2 * n * (k - 1) / k);
			assert_int_equal(total, 2 * (k - 1) * n);
			cc_schedule_free(s);

			/* k does not divide N (and N < k): the total still is 2(k-1)N. */
			static const uint64_t odd[] = { 1, 3, 7, 1031, 100003 };
			for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
				s = build(CC_ALLREDUCE, (enum cc_transport)t, k, odd[i], CC_INT8);
				assert_int_equal(run_bytes(s, per), 2 * (k - 1) * odd[i]);
				cc_schedule_free(s);
			}
		}
	}
}

static void scatter_gather_bytes(void **state)
{
	(void)state;
	uint64_t per[64];
	for (int c = CC_REDUCESCATTER; c <= CC_ALLGATHER; c++)
		for (uint32_t k = 1; k <= 33; k += (k < 9 ? 1 : 8))
			for (uint64_t count = 0; count < 2000; count = count * 3 + 1) {
				/* Whole array k*count elements of 8 bytes; each rank
				 * sends (k-1)/k of it. */
				struct cc_schedule *s = build((enum cc_coll)c, CC_WRITE_IMM, k, count,
							      CC_FLOAT64);
				uint64_t whole = (uint64_t)k * count * 8;
				uint64_t total = run_bytes(s, per);
				for (uint32_t r = 0; r < k; r++)
					assert_int_equal(per[r], whole * (k - 1) / k);
				assert_int_equal(total, whole * (k - 1));
				cc_schedule_free(s);
			}
}

/* Every receive WQE a SEND / WRITE_WITH_IMM will consume is posted, and the
 * CTS that invites the data depends on it; queue depths are never exceeded
 * (the data executor would fail the post otherwise). */
static void receives_precede_their_cts(void **state)
{
	(void)state;
	for (int t = 0; t < 2; t++) {
		struct cc_schedule *s = build(CC_ALLREDUCE, (enum cc_transport)t, 5, 1 << 20,
					      CC_FLOAT32);
		for (uint32_t r = 0; r < 5; r++) {
			const struct cc_rank_sched *rs = &s->ranks[r];
			uint32_t recvs = 0, cts = 0;
			for (uint32_t i = 0; i < rs->nops; i++) {
				const struct cc_op *o = &rs->ops[i];
				if (o->kind == CC_OP_POST_RECV)
					recvs++;
				if (o->kind != CC_OP_POST_SEND || o->u.send.payload != CC_PAYLOAD_CTRL)
					continue;
				cts++;
				int found = 0;
				const uint32_t *d = cc_op_deps(rs, o);
				for (uint32_t j = 0; j < o->ndeps; j++)
					found |= rs->ops[d[j]].kind == CC_OP_POST_RECV;
				assert_true(found);
				/* Credits are inline and signaled once per nslots. */
				assert_true(o->u.send.flags & CC_SEND_INLINE);
			}
			assert_int_equal(recvs, cts);
		}
		cc_schedule_free(s);
	}
}

/* The two ways to the expected output agree: per rank from the definition
 * (what a rank of a distributed run can compute alone) and from all the
 * inputs at once (what the data executor uses). */
static void reference_per_rank_matches_all_inputs(void **state)
{
	(void)state;
	for (int c = 0; c <= CC_ALLGATHER; c++)
		for (int op = 0; op < CC_REDOP_COUNT; op++) {
			struct cc_coll_params p;
			cc_coll_params_default(&p);
			p.coll = (enum cc_coll)c;
			p.redop = (enum cc_redop)op;
			p.dtype = CC_FLOAT16;
			p.nranks = 5;
			p.count = 301;
			size_t es = cc_dtype_size(p.dtype);
			uint64_t in = cc_coll_in_count(&p), out = cc_coll_out_count(&p);
			uint8_t *inputs = malloc(p.nranks * in * es);
			uint8_t *all = malloc((in > out ? in : out) * es);
			uint8_t *mine = malloc(out * es);
			const void *ptr[5];
			for (uint32_t r = 0; r < p.nranks; r++) {
				ptr[r] = inputs + r * in * es;
				cc_reference_input(&p, r, 11, inputs + r * in * es);
			}
			cc_reference_from_inputs(&p, ptr, all);
			for (uint32_t r = 0; r < p.nranks; r++) {
				assert_int_equal(cc_reference_output(&p, r, 11, mine), 0);
				const uint8_t *want = p.coll == CC_REDUCESCATTER ? all + r * out * es : all;
				assert_int_equal(cc_count_wrong(mine, want, out, p.dtype), 0);
			}
			free(inputs);
			free(all);
			free(mine);
		}
}

static void bad_parameters(void **state)
{
	(void)state;
	struct cc_coll_params p;
	char err[200];
	cc_coll_params_default(&p);
	p.nranks = 0;
	assert_null(cc_build(&p, err, sizeof(err)));
	cc_coll_params_default(&p);
	p.slot_bytes = 2; /* less than one float */
	assert_null(cc_build(&p, err, sizeof(err)));
	cc_coll_params_default(&p);
	p.nslots = 0;
	assert_null(cc_build(&p, err, sizeof(err)));
	cc_coll_params_default(&p);
	p.count = UINT64_MAX / 2;
	assert_null(cc_build(&p, err, sizeof(err)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(primitive_sequence),
		cmocka_unit_test(single_rank_is_one_copy),
		cmocka_unit_test(allreduce_bytes),
		cmocka_unit_test(scatter_gather_bytes),
		cmocka_unit_test(receives_precede_their_cts),
		cmocka_unit_test(reference_per_rank_matches_all_inputs),
		cmocka_unit_test(bad_parameters),
	};
	return cmocka_run_group_tests_name("ring", tests, NULL, NULL);
}
