/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_innet.c — in-network reduction (SHARP in the network's
 * switches) on multicast QPs of several hosts (core/schedule.h), on the
 * data executor and the simulator (sim/sharp.c):
 *   - the semantics on a hand-built schedule of 3 nodes x 2 ranks, two
 *     groups (the ranks of one local index, stride 2): every member's
 *     receive WQE gets the group's inputs reduced (sum, min, max; int32 and
 *     float), the j-th SEND of each member matched (two rounds, the second
 *     reducing the first's results), under several interleavings, with
 *     the completions and byte counts a SEND has;
 *   - the failures: SENDs of different lengths (every member's SEND
 *     IBV_WC_REM_INV_REQ_ERR), a receive WQE too small for the result (that
 *     member's receive in error), a member that never sends (a deadlock
 *     that names the reduction), a member's bad L_Key;
 *   - what cc_schedule_validate() refuses: a reduction the switch has not,
 *     an inline SEND, a member without the group's QP, a group past the
 *     ranks;
 *   - the text format of the QP and the SEND;
 *   - the simulator's SHARP switch: an allreduce of k = 2, 3, 5 ranks on
 *     a star, #wrong 0 on ideal and ib-ndr for one packet, several and a
 *     short last one, each rank's SEND bytes; the closed form on ideal
 *     to the picosecond; the same run twice; what it refuses (switches
 *     without SHARP, link loss, multimem on such a group, members on two
 *     switches), saying why. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/schedule_text.h"

#include "core/exec_data.h"
#include "sim/exec.h"
#include "sim/net.h"
#include "sim/params.h"
#include "sim/topo.h"
#include "sim/wire.h"

#define NODES 3
#define G 2 /* ranks per node: groups of the ranks of one local index */
#define K (NODES * G)
#define N 4 /* elements a SEND carries */

enum { B_IN, B_OUT, B_RES, B_RES2 }; /* MR m covers buffer m */

/* K ranks, each with an input of N elements (filled by the executor), an
 * output nobody uses and two result buffers; QP 0 in the group of its
 * local index: ranks h, h + G, h + 2G. */
static struct cc_schedule *innet_sched(enum cc_dtype d)
{
	struct cc_coll_params p;
	struct cc_schedule *s;

	cc_coll_params_default(&p);
	p.nranks = K;
	p.count = N;
	p.dtype = d;
	s = cc_schedule_new(&p);
	assert_non_null(s);
	for (uint32_t r = 0; r < K; r++) {
		struct cc_rank_sched *rs = &s->ranks[r];
		static const enum cc_buf_role role[] = { CC_BUF_INPUT, CC_BUF_OUTPUT,
							 CC_BUF_RECV_STAGE, CC_BUF_RECV_STAGE };

		for (uint32_t b = 0; b < 4; b++) {
			cc_add_buffer(rs, &(struct cc_buffer){ CC_MEM_GPU, role[b], 4 * N, -1, 0 });
			cc_add_mr(rs, b, CC_ACCESS_LOCAL_WRITE);
		}
		cc_add_cq(rs, 16);
		cc_add_qp(rs, &(struct cc_qp){ .peer = r % G, .group = NODES, .stride = G,
					       .max_send_wr = 8, .max_recv_wr = 8,
					       .retry_cnt = 7, .rnr_retry = 7 });
	}
	return s;
}

/* Rank r, after ops deps[0 .. n): a receive WQE of buffer `into`, a SEND
 * of `len` bytes of buffer `from` (dtype d, redop op), its doorbell, the
 * polls of both; the receive's poll. */
static uint32_t round_op(struct cc_schedule *s, uint32_t r, uint32_t from, uint32_t into,
			 uint32_t len, enum cc_dtype d, enum cc_redop op, const uint32_t *deps,
			 uint32_t n)
{
	struct cc_rank_sched *rs = &s->ranks[r];
	uint32_t cap = (uint32_t)rs->bufs[into].size;
	struct cc_op rv = { .kind = CC_OP_POST_RECV,
			    .u.recv = { .qp = 0, .num_sge = 1, .sge = { into, 0, cap } } };
	struct cc_op sd = { .kind = CC_OP_POST_SEND };
	uint32_t ri, si, db, ps;

	ri = cc_add_op(rs, &rv, deps, n);
	rs->ops[ri].u.recv.wr_id = ri;
	sd.u.send = (struct cc_op_send){ .qp = 0, .opcode = CC_WR_SEND, .flags = CC_SEND_SIGNALED,
					 .payload = CC_PAYLOAD_DATA, .num_sge = 1,
					 .sge = { from, 0, len }, .dtype = d, .redop = op };
	si = cc_add_op(rs, &sd, &ri, 1);
	rs->ops[si].u.send.wr_id = si;
	db = cc_add_op(rs, &(struct cc_op){ .kind = CC_OP_DOORBELL,
					   .u.doorbell = { .qp = 0, .nwqe = 1 } }, &si, 1);
	ps = cc_add_op(rs, &(struct cc_op){ .kind = CC_OP_POLL_CQ,
					   .u.poll = { .cq = 0, .wr_id = si } }, &db, 1);
	return cc_add_op(rs, &(struct cc_op){ .kind = CC_OP_POLL_CQ,
					     .u.poll = { .cq = 0, .wr_id = ri } }, &ps, 1);
}

struct seen {
	uint8_t in[K][4 * N], res[K][4 * N], res2[K][4 * N];
};

static void inspect(void *ctx, uint32_t rank, uint8_t *const *bufs)
{
	struct seen *v = ctx;

	memcpy(v->in[rank], bufs[B_IN], 4 * N);
	memcpy(v->res[rank], bufs[B_RES], 4 * N);
	memcpy(v->res2[rank], bufs[B_RES2], 4 * N);
}

/* Element e of the reduction of a[h], a[h + G], ... with op: int32 sums
 * wrap, as the switch's (and core/dtype.c's) two's-complement adds; float
 * sums go in member order, as the executor adds. */
static double want(uint8_t (*a)[4 * N], uint32_t h, int e, enum cc_dtype d, enum cc_redop op)
{
	float facc = 0;
	int32_t iacc = 0;

	for (uint32_t j = 0; j < NODES; j++) {
		float f;
		int32_t i;

		memcpy(&f, a[h + j * G] + 4 * e, 4);
		memcpy(&i, a[h + j * G] + 4 * e, 4);
		if (j == 0) {
			facc = f;
			iacc = i;
		} else if (op == CC_SUM) {
			facc += f;
			iacc = (int32_t)((uint32_t)iacc + (uint32_t)i);
		} else {
			bool less = d == CC_FLOAT32 ? f < facc : i < iacc;

			if (less == (op == CC_MIN)) {
				facc = f;
				iacc = i;
			}
		}
	}
	if (d == CC_FLOAT32)
		return facc;
	return iacc;
}

static double elem(const uint8_t *b, int e, enum cc_dtype d)
{
	float f;
	int32_t i;

	if (d == CC_FLOAT32) {
		memcpy(&f, b + 4 * e, 4);
		return f;
	}
	memcpy(&i, b + 4 * e, 4);
	return i;
}

/* Two rounds: every rank SENDs its input, then the first round's result;
 * every member of a group gets the group's reduction each time, exactly
 * (want()). */
static void test_semantics(void **state)
{
	static const enum cc_redop ops[] = { CC_SUM, CC_MIN, CC_MAX };
	static const enum cc_dtype types[] = { CC_INT32, CC_FLOAT32 };

	(void)state;
	for (int ti = 0; ti < 2; ti++)
		for (int oi = 0; oi < 3; oi++)
			for (uint64_t order = 1; order < 5; order++) {
				enum cc_dtype d = types[ti];
				struct cc_schedule *s = innet_sched(d);
				struct seen v;
				struct cc_data_opts o = { .seed = 11 + order, .order_seed = order,
							  .inspect = inspect, .inspect_ctx = &v };
				struct cc_data_result res;
				char err[200];

				for (uint32_t r = 0; r < K; r++) {
					uint32_t first = round_op(s, r, B_IN, B_RES, 4 * N, d, ops[oi],
								  NULL, 0);

					round_op(s, r, B_RES, B_RES2, 4 * N, d, ops[oi], &first, 1);
				}
				if (cc_schedule_validate(s, err, sizeof(err)))
					fail_msg("validate: %s", err);
				assert_int_equal(cc_data_run(s, &o, &res), 0);
				if (res.err.status != CC_RUN_OK)
					fail_msg("run: %s", res.err.msg);
				for (uint32_t r = 0; r < K; r++) {
					for (int e = 0; e < N; e++) {
						assert_true(elem(v.res[r], e, d) ==
							    want(v.in, r % G, e, d, ops[oi]));
						assert_true(elem(v.res2[r], e, d) ==
							    want(v.res, r % G, e, d, ops[oi]));
					}
					/* two SENDs of 16 B each, as a SEND counts them */
					assert_int_equal(res.data_bytes[r], 2 * 4 * N);
					assert_int_equal(res.wire_msgs[r], 2);
				}
				cc_data_result_free(&res);
				cc_schedule_free(s);
			}
}

/* Runs s on the data executor and checks how it ended. */
static void expect_run(struct cc_schedule *s, enum cc_run_status st, enum cc_wc_status wc,
		       const char *what)
{
	struct cc_data_opts o = { .seed = 3, .order_seed = 2 };
	struct cc_data_result res;
	char err[200];

	if (cc_schedule_validate(s, err, sizeof(err)))
		fail_msg("validate: %s", err);
	assert_int_equal(cc_data_run(s, &o, &res), 0);
	assert_int_equal(res.err.status, st);
	if (st == CC_RUN_COMPLETION_ERROR)
		assert_int_equal(res.err.wc, wc);
	if (!strstr(res.err.msg, what))
		fail_msg("\"%s\" does not say \"%s\"", res.err.msg, what);
	cc_data_result_free(&res);
	cc_schedule_free(s);
}

static void test_failures(void **state)
{
	struct cc_schedule *s;
	struct cc_fault f = { .kind = CC_FAULT_LKEY, .rank = 4, .op = 1 };

	(void)state;
	/* rank 2 sends 12 bytes where its group's others send 16 */
	s = innet_sched(CC_INT32);
	for (uint32_t r = 0; r < K; r++)
		round_op(s, r, B_IN, B_RES, r == 2 ? 12 : 4 * N, CC_INT32, CC_SUM, NULL, 0);
	expect_run(s, CC_RUN_COMPLETION_ERROR, CC_WC_REM_INV_REQ_ERR, "");

	/* rank 3's receive WQE holds 8 bytes of a 16-byte result */
	s = innet_sched(CC_INT32);
	for (uint32_t r = 0; r < K; r++)
		round_op(s, r, B_IN, B_RES, 4 * N, CC_INT32, CC_SUM, NULL, 0);
	s->ranks[3].ops[0].u.recv.sge.length = 8;
	expect_run(s, CC_RUN_COMPLETION_ERROR, CC_WC_LOC_LEN_ERR, "");

	/* rank 5 never sends: its group waits forever */
	s = innet_sched(CC_INT32);
	for (uint32_t r = 0; r < K - 1; r++)
		round_op(s, r, B_IN, B_RES, 4 * N, CC_INT32, CC_SUM, NULL, 0);
	expect_run(s, CC_RUN_DEADLOCK, CC_WC_SUCCESS, "in-network reduction");

	/* rank 4's SEND carries a wrong L_Key: it fails, its group with it */
	s = innet_sched(CC_INT32);
	for (uint32_t r = 0; r < K; r++)
		round_op(s, r, B_IN, B_RES, 4 * N, CC_INT32, CC_SUM, NULL, 0);
	{
		struct cc_data_opts o = { .seed = 3, .order_seed = 2, .faults = &f, .nfaults = 1 };
		struct cc_data_result res;

		assert_int_equal(cc_data_run(s, &o, &res), 0);
		assert_int_equal(res.err.status, CC_RUN_COMPLETION_ERROR);
		assert_true(res.err.wc == CC_WC_LOC_PROT_ERR || res.err.wc == CC_WC_RETRY_EXC_ERR ||
			    res.err.wc == CC_WC_WR_FLUSH_ERR);
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

static void test_validate(void **state)
{
	struct cc_schedule *s;

	(void)state;
	s = innet_sched(CC_INT32);
	round_op(s, 0, B_IN, B_RES, 4 * N, CC_INT32, CC_PROD, NULL, 0);
	expect_invalid(s, "in-network reduction");

	s = innet_sched(CC_INT32);
	round_op(s, 0, B_IN, B_RES, 6, CC_INT32, CC_SUM, NULL, 0); /* not whole elements */
	expect_invalid(s, "whole elements");

	s = innet_sched(CC_INT32);
	round_op(s, 0, B_IN, B_RES, 4 * N, CC_INT32, CC_SUM, NULL, 0);
	s->ranks[0].ops[1].u.send.flags |= CC_SEND_INLINE;
	expect_invalid(s, "not inline");

	s = innet_sched(CC_INT32);
	s->ranks[4].qps[0].stride = 1; /* rank 4 thinks its group is 0, 1, 2 */
	expect_invalid(s, "same multicast group");

	s = innet_sched(CC_INT32);
	for (uint32_t r = 1; r < K; r += G)
		s->ranks[r].qps[0].group = 4; /* 1, 3, 5, 7 of 6 ranks */
	expect_invalid(s, "multicast group of ranks 1..7 by 2");
}


static void test_print(void **state)
{
	struct cc_schedule *s = innet_sched(CC_FLOAT32);
	char *text;

	(void)state;
	round_op(s, 3, B_IN, B_RES, 4 * N, CC_FLOAT32, CC_MAX, NULL, 0);
	text = schedule_text(cc_schedule_print, s, 3);
	assert_non_null(strstr(text, "schedule format=5 "));
	assert_non_null(strstr(text, "r3 qp 0 peer=switch peer_qp=- send_cq=0 recv_cq=0 "
				     "max_send_wr=8 max_recv_wr=8 max_inline=0 retry_cnt=7 "
				     "rnr_retry=7 ch=0 members=1-5/2\n"));
	assert_non_null(strstr(text, "r3 op 1 post_send qp=0 wr_id=1 opcode=SEND flags=SIGNALED "
				     "sge=mr0+0:16 to=mc1-5/2 reduce=max:float payload=data "
				     "deps=0\n"));
	free(text);
	cc_schedule_free(s);
}

/* ---- the simulator (sim/sharp.c) ---- */

/* k ranks, a host each: one group of all, each SENDs its input (count
 * int32) and takes the sum into its output — an allreduce the run's check
 * holds to its reference. */
static struct cc_schedule *allreduce_sched(uint32_t k, uint64_t count)
{
	struct cc_coll_params p;
	struct cc_schedule *s;

	cc_coll_params_default(&p);
	p.nranks = k;
	p.count = count;
	p.dtype = CC_INT32;
	s = cc_schedule_new(&p);
	assert_non_null(s);
	for (uint32_t r = 0; r < k; r++) {
		struct cc_rank_sched *rs = &s->ranks[r];

		cc_add_buffer(rs, &(struct cc_buffer){ CC_MEM_GPU, CC_BUF_INPUT, 4 * count, -1, 0 });
		cc_add_buffer(rs, &(struct cc_buffer){ CC_MEM_GPU, CC_BUF_OUTPUT, 4 * count, -1, 0 });
		cc_add_mr(rs, B_IN, CC_ACCESS_LOCAL_WRITE);
		cc_add_mr(rs, B_OUT, CC_ACCESS_LOCAL_WRITE);
		cc_add_cq(rs, 16);
		cc_add_qp(rs, &(struct cc_qp){ .peer = 0, .group = k, .max_send_wr = 8,
					       .max_recv_wr = 8, .retry_cnt = 7, .rnr_retry = 7 });
		round_op(s, r, B_IN, B_OUT, (uint32_t)(4 * count), CC_INT32, CC_SUM, NULL, 0);
	}
	return s;
}

/* Runs s on a star of its ranks, on preset `fab` with SHARP switches (or
 * not); the simulator's return code, its message in err. */
static int sharp_run(const struct cc_schedule *s, const char *fab, bool sharp, uint64_t loss_ppb,
		     bool check, struct cc_sim_result *res, char *err, size_t errlen)
{
	struct sim_params f;
	struct sim_net net;
	struct cc_sim_opts so = { .fabric = &f, .net = &net, .seed = 7 };
	struct cc_exec_common c = { .seed = 7, .check = check };
	char nerr[200];
	int rc;

	assert_int_equal(sim_params_preset(fab, &f), 0);
	f.sw.sharp = sharp;
	f.link.loss_ppb = loss_ppb;
	sim_net_init(&net, NULL);
	assert_int_equal(sim_topo_net_make(&net, SIM_TOPO_STAR, s->nranks, nerr, sizeof(nerr)), 0);
	memset(res, 0, sizeof(*res));
	rc = cc_sim_executor.run(s, &c, &so, res, err, errlen);
	sim_net_free(&net);
	return rc;
}

/* #wrong 0 and each rank's SEND bytes, on the ideal fabric and on one
 * with every latency, for one packet, several and a short last one. */
static void test_sim_correct(void **state)
{
	static const uint32_t ks[] = { 2, 3, 5 };
	static const uint64_t counts[] = { 1, 1000, 3 * 1024 + 5 };
	static const char *const fabs[] = { "ideal", "ib-ndr" };

	(void)state;
	for (int fi = 0; fi < 2; fi++)
		for (int ki = 0; ki < 3; ki++)
			for (int ci = 0; ci < 3; ci++) {
				struct cc_schedule *s = allreduce_sched(ks[ki], counts[ci]);
				struct cc_sim_result res;
				char err[300] = "";

				if (sharp_run(s, fabs[fi], true, 0, true, &res, err, sizeof(err)))
					fail_msg("%s k=%u count=%llu: %s", fabs[fi], ks[ki],
						 (unsigned long long)counts[ci], err);
				if (res.err.status != CC_RUN_OK || res.wrong)
					fail_msg("%s k=%u count=%llu: %llu wrong, %s", fabs[fi], ks[ki],
						 (unsigned long long)counts[ci],
						 (unsigned long long)res.wrong, res.err.msg);
				for (uint32_t r = 0; r < ks[ki]; r++)
					assert_int_equal(res.rank[r].data_bytes, 4 * counts[ci]);
				cc_sim_result_free(&res);
				cc_schedule_free(s);
			}
}

/* The closed form on the ideal fabric (only the wire costs time: 100 Gb/s,
 * no latency anywhere, a cut-through star): every member's packets reach
 * the switch side by side, packet i's result leaves for every member when
 * the last member's packet i is in, and the output keeps pace with the
 * input; the ACK of a member's last packet, which asks for one, leaves
 * just before that packet's result, on the same port.  So a message of P
 * packets of w wire bytes each ends an ACK and a packet after its last is
 * in: (P + 1) ser(w) + ser(ACK).  One packet of 1 KiB: 2 ser + ser(ACK);
 * three of 4 KiB: 4 ser + ser(ACK). */
static void test_sim_closed_form(void **state)
{
	static const struct { uint64_t count; uint32_t npkts, payload; enum sim_bth_op op; } c[] = {
		{ 256, 1, 1024, SIM_BTH_SEND_ONLY },
		{ 3 * 1024, 3, 4096, SIM_BTH_SEND_MIDDLE },
	};

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct cc_schedule *s = allreduce_sched(4, c[i].count);
		struct cc_sim_result res;
		char err[300] = "";
		sim_time_ps ser = sim_serialize_ps(sim_wire_bytes(SIM_LINK_IB, c[i].op, c[i].payload),
						   UINT64_C(100000000000));
		sim_time_ps ack = sim_serialize_ps(sim_wire_bytes(SIM_LINK_IB, SIM_BTH_ACK, 0),
						   UINT64_C(100000000000));

		assert_int_equal(sharp_run(s, "ideal", true, 0, false, &res, err, sizeof(err)), 0);
		assert_int_equal(res.err.status, CC_RUN_OK);
		assert_int_equal(res.time_ps, (c[i].npkts + 1) * ser + ack);
		cc_sim_result_free(&res);
		cc_schedule_free(s);
	}
}

/* Same schedule, same options: the same run. */
static void test_sim_deterministic(void **state)
{
	struct cc_sim_result a, b;
	struct cc_schedule *s = allreduce_sched(5, 5000);
	char err[300];

	(void)state;
	assert_int_equal(sharp_run(s, "ib-ndr", true, 0, true, &a, err, sizeof(err)), 0);
	assert_int_equal(sharp_run(s, "ib-ndr", true, 0, true, &b, err, sizeof(err)), 0);
	assert_int_equal(a.time_ps, b.time_ps);
	assert_int_equal(a.events, b.events);
	cc_sim_result_free(&a);
	cc_sim_result_free(&b);
	cc_schedule_free(s);
}

static void expect_sim_refusal(struct cc_schedule *s, bool sharp, uint64_t loss, const char *what)
{
	struct cc_sim_result res;
	char err[300] = "";

	assert_int_equal(sharp_run(s, "ib-ndr", sharp, loss, false, &res, err, sizeof(err)),
			 -EINVAL);
	if (!strstr(err, what))
		fail_msg("\"%s\" does not say \"%s\"", err, what);
	cc_sim_result_free(&res);
	cc_schedule_free(s);
}

/* What the simulator refuses, saying why: switches without SHARP, link
 * loss, multimem on a group of several hosts, members on two switches. */
static void test_sim_refusals(void **state)
{
	struct cc_schedule *s;
	struct cc_sim_result res;
	struct sim_params f;
	struct sim_net net;
	char err[300] = "", nerr[200];

	(void)state;
	expect_sim_refusal(allreduce_sched(3, 64), false, 0, "switch.sharp: 1");
	expect_sim_refusal(allreduce_sched(3, 64), true, 1000, "link loss");
	s = allreduce_sched(3, 64);
	s->ranks[1].ops[1].u.send.opcode = CC_WR_RDMA_READ;
	expect_sim_refusal(s, true, 0, "needs them on one NVSwitch node");

	/* a leaf-spine of two leaves of two hosts: ranks 0, 1 and 2, 3 */
	s = allreduce_sched(4, 64);
	assert_int_equal(sim_params_preset("ib-ndr", &f), 0);
	f.sw.sharp = 1;
	sim_net_init(&net, NULL);
	assert_int_equal(sim_net_leafspine(&net, 2, 2, 2, 1, 1, nerr, sizeof(nerr)), 0);
	memset(&res, 0, sizeof(res));
	assert_int_equal(cc_sim_executor.run(s, &(struct cc_exec_common){ .seed = 1 },
					     &(struct cc_sim_opts){ .fabric = &f, .net = &net },
					     &res, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "hang off one switch"));
	cc_sim_result_free(&res);
	sim_net_free(&net);
	cc_schedule_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_semantics),
		cmocka_unit_test(test_failures),
		cmocka_unit_test(test_validate),
		cmocka_unit_test(test_print),
		cmocka_unit_test(test_sim_correct),
		cmocka_unit_test(test_sim_closed_form),
		cmocka_unit_test(test_sim_deterministic),
		cmocka_unit_test(test_sim_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
