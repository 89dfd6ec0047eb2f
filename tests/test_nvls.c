/* tests/test_nvls.c — the multicast QPs of NVLink SHARP (core/schedule.h):
 *   - the multicast semantics on a hand-built schedule: a WRITE lands at
 *     every member, the sender's own buffer included; a READ returns the
 *     members' values reduced, for sum, min and max;
 *   - what cc_schedule_validate() refuses on a multicast QP. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/exec_data.h"
#include "core/word.h"

/* ---- the multicast QP, by hand ---- */

enum { B_IN, B_OUT, B_MC, B_RES }; /* MR m covers buffer m */
#define MC_FLAGS 16                /* where the flag words start in B_MC */

/* k ranks, each with an input of 4 int32 (filled by the executor), an
 * output nobody uses, a multicast buffer (4 int32, then k flag words)
 * and a local result; one multicast QP each. */
static struct cc_schedule *mc_sched(uint32_t k)
{
	struct cc_coll_params p;
	struct cc_schedule *s;

	cc_coll_params_default(&p);
	p.nranks = k;
	p.count = 4;
	p.dtype = CC_INT32;
	s = cc_schedule_new(&p);
	assert_non_null(s);
	for (uint32_t r = 0; r < k; r++) {
		struct cc_rank_sched *rs = &s->ranks[r];
		static const enum cc_buf_role role[] = { CC_BUF_INPUT, CC_BUF_OUTPUT, CC_BUF_MCAST,
							 CC_BUF_SEND_STAGE };

		for (uint32_t b = 0; b < 4; b++) {
			cc_add_buffer(rs, &(struct cc_buffer){ CC_MEM_GPU, role[b],
							       b == B_MC ? MC_FLAGS + 8 * k : 16,
							       -1, 0 });
			cc_add_mr(rs, b, CC_ACCESS_LOCAL_WRITE | CC_ACCESS_REMOTE_WRITE |
						 CC_ACCESS_REMOTE_READ);
		}
		cc_add_cq(rs, 8);
		cc_add_qp(rs, &(struct cc_qp){ .peer = 0, .group = k, .max_send_wr = 8,
					       .max_inline = 64, .retry_cnt = 7, .rnr_retry = 7 });
	}
	return s;
}

/* Rank r: post a multicast op after ops deps[0 .. n), doorbell, poll;
 * the poll's index.  A READ reduces B_MC's data into B_RES; a WRITE of
 * `flag` > 0 puts it in the rank's flag word, else B_RES into B_MC. */
static uint32_t mc_op(struct cc_schedule *s, uint32_t r, enum cc_opcode opcode,
		      enum cc_redop redop, uint64_t flag, const uint32_t *deps, uint32_t n)
{
	struct cc_rank_sched *rs = &s->ranks[r];
	struct cc_op op = { .kind = CC_OP_POST_SEND };
	uint32_t i, db;

	op.u.send = (struct cc_op_send){ .qp = 0, .opcode = opcode, .flags = CC_SEND_SIGNALED,
					 .payload = CC_PAYLOAD_DATA, .num_sge = 1,
					 .sge = { .mr = B_RES, .length = 16 }, .remote_mr = B_MC,
					 .dtype = CC_INT32, .redop = redop };
	if (flag) {
		op.u.send.flags |= CC_SEND_INLINE;
		op.u.send.sge.length = 8;
		op.u.send.inline_value = flag;
		op.u.send.remote_offset = MC_FLAGS + 8 * r;
	}
	i = cc_add_op(rs, &op, deps, n);
	rs->ops[i].u.send.wr_id = i;
	db = cc_add_op(rs, &(struct cc_op){ .kind = CC_OP_DOORBELL,
					   .u.doorbell = { .qp = 0, .nwqe = 1 } }, &i, 1);
	return cc_add_op(rs, &(struct cc_op){ .kind = CC_OP_POLL_CQ,
					     .u.poll = { .cq = 0, .wr_id = i } }, &db, 1);
}

/* Rank r waits, after op `after`, for every rank's flag word to reach v:
 * the waits' indices into w. */
static void mc_waits(struct cc_schedule *s, uint32_t r, uint64_t v, uint32_t after, uint32_t *w)
{
	for (uint32_t j = 0; j < s->nranks; j++)
		w[j] = cc_add_op(&s->ranks[r], &(struct cc_op){ .kind = CC_OP_WAIT_MEM,
			.u.wait = { .buf = B_MC, .offset = MC_FLAGS + 8 * j, .value = v } },
			&after, 1);
}

#define MC_K 3

struct seen {
	int32_t in[MC_K][4], mc[MC_K][4], res[MC_K][4];
	uint64_t flags[MC_K][MC_K];
};

static void inspect(void *ctx, uint32_t rank, uint8_t *const *bufs)
{
	struct seen *v = ctx;

	memcpy(v->in[rank], bufs[B_IN], 16);
	memcpy(v->mc[rank], bufs[B_MC], 16);
	memcpy(v->res[rank], bufs[B_RES], 16);
	for (int j = 0; j < MC_K; j++)
		v->flags[rank][j] = cc_word_load(bufs[B_MC] + MC_FLAGS + 8 * j);
}

/* Each rank copies its input into its multicast buffer and multicasts
 * flag 1; once every flag is 1 it READs the buffer reduced over the ranks
 * and multicasts flag 2; once every flag is 2, rank 0 WRITEs its result
 * into every rank's multicast buffer.  Under several interleavings. */
static void test_mc_semantics(void **state)
{
	static const enum cc_redop ops[] = { CC_SUM, CC_MIN, CC_MAX };

	(void)state;
	for (int oi = 0; oi < 3; oi++)
		for (uint64_t order = 1; order < 6; order++) {
			struct cc_schedule *s = mc_sched(MC_K);
			struct seen v;
			struct cc_data_opts o = { .seed = 5 + order, .order_seed = order,
						  .inspect = inspect, .inspect_ctx = &v };
			struct cc_data_result res;
			uint32_t w[MC_K];
			char err[200];

			for (uint32_t r = 0; r < MC_K; r++) {
				struct cc_op cp = { .kind = CC_OP_COPY };
				uint32_t c, f, rd, f2;

				cp.u.calc = (struct cc_op_calc){ .nsrc = 1, .ndst = 1,
					.src = { { B_IN, 0 } }, .dst = { { B_MC, 0 } }, .count = 4,
					.dtype = CC_INT32, .where = CC_ON_GPU };
				c = cc_add_op(&s->ranks[r], &cp, NULL, 0);
				f = mc_op(s, r, CC_WR_RDMA_WRITE, CC_SUM, 1, &c, 1);
				mc_waits(s, r, 1, f, w);
				rd = mc_op(s, r, CC_WR_RDMA_READ, ops[oi], 0, w, MC_K);
				f2 = mc_op(s, r, CC_WR_RDMA_WRITE, CC_SUM, 2, &rd, 1);
				if (r == 0) {
					mc_waits(s, r, 2, f2, w);
					mc_op(s, r, CC_WR_RDMA_WRITE, CC_SUM, 0, w, MC_K);
				}
			}
			assert_int_equal(cc_schedule_validate(s, err, sizeof(err)), 0);
			assert_int_equal(cc_data_run(s, &o, &res), 0);
			assert_int_equal(res.err.status, CC_RUN_OK);
			for (int e = 0; e < 4; e++) {
				int32_t want = v.in[0][e];

				for (uint32_t j = 1; j < MC_K; j++) {
					int32_t x = v.in[j][e];

					want = ops[oi] == CC_SUM ? want + x
					       : ops[oi] == CC_MIN ? (x < want ? x : want)
								   : (x > want ? x : want);
				}
				for (uint32_t r = 0; r < MC_K; r++) {
					assert_int_equal(v.res[r][e], want);
					/* rank 0's WRITE reached every rank, itself too */
					assert_int_equal(v.mc[r][e], want);
				}
			}
			for (uint32_t r = 0; r < MC_K; r++)
				for (uint32_t j = 0; j < MC_K; j++)
					assert_int_equal(v.flags[r][j], 2);
			cc_data_result_free(&res);
			cc_schedule_free(s);
		}
}

static void expect_invalid(struct cc_schedule *s, const char *what)
{
	char err[256];

	assert_int_equal(cc_schedule_validate(s, err, sizeof(err)), -EINVAL);
	if (!strstr(err, what))
		fail_msg("\"%s\" does not say \"%s\"", err, what);
	cc_schedule_free(s);
}

static void test_mc_validate(void **state)
{
	struct cc_schedule *s;

	(void)state;
	s = mc_sched(2);
	mc_op(s, 0, CC_WR_SEND, CC_SUM, 0, NULL, 0);
	expect_invalid(s, "only RDMA_WRITE");

	s = mc_sched(2);
	mc_op(s, 0, CC_WR_RDMA_READ, CC_PROD, 0, NULL, 0);
	expect_invalid(s, "sum, min or max");

	s = mc_sched(2);
	cc_add_op(&s->ranks[0], &(struct cc_op){ .kind = CC_OP_POST_RECV,
						 .u.recv = { .qp = 0 } }, NULL, 0);
	expect_invalid(s, "no receive queue");

	s = mc_sched(3);
	s->ranks[2].qps[0].peer = 0;
	s->ranks[2].qps[0].group = 2; /* ranks 0..1: not rank 2 */
	expect_invalid(s, "multicast group");

	s = mc_sched(2);
	s->ranks[1].bufs[B_MC].size = 64; /* one object, two sizes */
	mc_op(s, 0, CC_WR_RDMA_WRITE, CC_SUM, 0, NULL, 0);
	expect_invalid(s, "one multicast object has one size");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mc_semantics),
		cmocka_unit_test(test_mc_validate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
