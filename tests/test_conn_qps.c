/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_conn_qps.c — several QPs per network connection
 * (cc_coll_params.qps_per_conn, NCCL_IB_QPS_PER_CONNECTION): NCCL's IB
 * transport sends each message whole on one QP of the connection, round
 * robin (net_ib/common.h ncclIbCommBaseGetQpForRequest, split off), and
 * the clear-to-send on the first (p2p.h ncclIbRecvCommGetQpForCts).  The
 * QPs the schedule makes and which slice uses which, connections inside a
 * node keeping one, one QP changing nothing, and the data on both
 * executors.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "core/algo.h"
#include "core/exec_data.h"
#include "sim/exec.h"
#include "sim/params.h"
#include "tests/run_status.h"
#include "tests/sim_sched.h"

static struct cc_schedule *build_split(enum cc_transport t, enum cc_proto proto, uint32_t k,
				       uint32_t ranks_per_node, uint64_t count, uint32_t qps,
				       bool split)
{
	struct cc_coll_params p;
	char err[256];

	cc_coll_params_default(&p);
	p.transport = t;
	p.proto = proto;
	cc_coll_params_fill(&p, 0, 0);
	p.nranks = k;
	p.ranks_per_node = ranks_per_node;
	p.count = count;
	p.qps_per_conn = qps;
	p.split_on_qps = split;
	struct cc_schedule *s = cc_build(&p, err, sizeof(err));
	assert_non_null(s);
	return s;
}

static struct cc_schedule *build(enum cc_transport t, enum cc_proto proto, uint32_t k,
				 uint32_t ranks_per_node, uint64_t count, uint32_t qps)
{
	return build_split(t, proto, k, ranks_per_node, count, qps, false);
}

/* Ring allreduce, 4 ranks, one node each, 2 QPs per connection, 8 KiB
 * slots: 6 steps of a 64 KiB chunk, 8 slices each.  Each rank has its
 * send end's 2 QPs then its receive end's 2, each paired with the same
 * one at the peer; data slice i (a SEND-side post of data) goes on QP
 * i % 2, its receive WQE on the receiver's QP i % 2, every clear-to-send
 * on the receive end's first QP. */
static void slices_round_robin(void **state)
{
	(void)state;
	struct cc_coll_params p;
	char err[256];

	cc_coll_params_default(&p);
	p.nranks = 4;
	p.count = 64 * 1024;
	p.slot_bytes = 8192;
	p.chunk_bytes = 65536;
	p.qps_per_conn = 2;
	struct cc_schedule *s = cc_build(&p, err, sizeof(err));

	assert_non_null(s);
	for (uint32_t r = 0; r < 4; r++) {
		const struct cc_rank_sched *rs = &s->ranks[r];
		uint32_t next = (r + 1) % 4, prev = (r + 3) % 4;
		uint32_t data = 0, recvs = 0, cts = 0;

		assert_int_equal(rs->nqps, 4);
		for (uint32_t q = 0; q < 4; q++) {
			assert_int_equal(rs->qps[q].peer, q < 2 ? next : prev);
			/* the peer's receive QPs are its 2 and 3, its send QPs 0 and 1 */
			assert_int_equal(rs->qps[q].peer_qp, q < 2 ? 2 + q : q - 2);
		}
		for (uint32_t i = 0; i < rs->nops; i++) {
			const struct cc_op *o = &rs->ops[i];

			if (o->kind == CC_OP_POST_SEND && o->u.send.payload == CC_PAYLOAD_DATA)
				assert_int_equal(o->u.send.qp, data++ % 2);
			else if (o->kind == CC_OP_POST_SEND)
				assert_int_equal(o->u.send.qp, 2), cts++;
			else if (o->kind == CC_OP_POST_RECV)
				assert_int_equal(o->u.recv.qp, 2 + recvs++ % 2);
		}
		assert_int_equal(data, 6 * 8);
		assert_int_equal(recvs, 6 * 8);
		assert_int_equal(cts, 6 * 8);
	}
	cc_schedule_free(s);
}

/* Nodes of 2: ranks 0 -> 1 and 2 -> 3 talk inside a node (NCCL's P2P
 * transport, no IB QPs of its own: one), 1 -> 2 and 3 -> 0 across (3). */
static void one_qp_inside_a_node(void **state)
{
	(void)state;
	struct cc_schedule *s = build(CC_WRITE_IMM, CC_PROTO_SIMPLE, 4, 2, 4096, 3);

	for (uint32_t r = 0; r < 4; r++) {
		uint32_t send = r % 2 == 1 ? 3 : 1, recv = r % 2 == 0 ? 3 : 1;

		assert_int_equal(s->ranks[r].nqps, send + recv);
	}
	cc_schedule_free(s);
}

/* NCCL_IB_SPLIT_DATA_ON_QPS=1, 3 QPs: every slice cut over all three in
 * parts of DIVUP(DIVUP(len, 3), 128) * 128 bytes (8 KiB slices: 2816,
 * 2816, 2560; a 100-byte slice: 100, 0, 0, the empty ones 0-byte WRITE
 * WITH IMM), each part a WRITE WITH IMM of the whole length on its QP;
 * with adaptive routing above the threshold (0 here) a WRITE and a 0-byte
 * WRITE WITH IMM on each.  The receiver posts one receive on each of its
 * QPs and polls all three. */
static void split_over_all_qps(void **state)
{
	(void)state;
	static const struct {
		uint64_t count, slot;
		uint32_t len, part[3];
	} want[] = { { 4 * 8192, 8192, 8192, { 2816, 2816, 2560 } },
		     { 100, 8192, 100, { 100, 0, 0 } } };

	for (size_t w = 0; w < 2; w++)
		for (int ar = 0; ar < 2; ar++) {
			struct cc_coll_params p;
			char err[256];

			cc_coll_params_default(&p);
			p.nranks = 4;
			p.count = want[w].count;
			p.slot_bytes = want[w].slot;
			p.chunk_bytes = want[w].slot;
			p.qps_per_conn = 3;
			p.split_on_qps = true;
			p.ar_split = ar;
			p.ar_threshold = 0;
			struct cc_schedule *s = cc_build(&p, err, sizeof(err));

			assert_non_null(s);
			for (uint32_t r = 0; r < 4; r++) {
				const struct cc_rank_sched *rs = &s->ranks[r];
				uint32_t n = 0, recvs = 0, polls = 0;
				uint64_t base = 0;

				assert_int_equal(rs->nqps, 6);
				for (uint32_t i = 0; i < rs->nops; i++) {
					const struct cc_op *o = &rs->ops[i];
					const struct cc_op_send *x = &o->u.send;

					if (o->kind == CC_OP_POST_RECV) {
						assert_int_equal(o->u.recv.qp, 3 + recvs++ % 3);
						continue;
					}
					if (o->kind == CC_OP_POLL_CQ && i && rs->ops[i - 1].kind ==
					    CC_OP_POLL_CQ)
						polls++;
					if (o->kind != CC_OP_POST_SEND || x->qp >= 3)
						continue;
					if (x->payload == CC_PAYLOAD_CTRL) /* AR's 0-byte IMM */
						continue;
					uint32_t k = n % 3, len = want[w].part[k];

					assert_int_equal(x->qp, k);
					assert_int_equal(x->sge.length, len);
					assert_int_equal(x->num_sge, len ? 1 : 0);
					if (k == 0)
						base = x->sge.offset;
					assert_int_equal(x->sge.offset - base,
							 k == 0 ? 0 : k == 1 ? want[w].part[0]
							 : want[w].part[0] + want[w].part[1]);
					if (ar) {
						const struct cc_op_send *m = &rs->ops[i + 1].u.send;

						assert_int_equal(x->opcode, CC_WR_RDMA_WRITE);
						assert_int_equal(m->opcode, CC_WR_RDMA_WRITE_WITH_IMM);
						assert_int_equal(m->qp, k);
						assert_int_equal(m->imm, want[w].len);
					} else {
						assert_int_equal(x->opcode, CC_WR_RDMA_WRITE_WITH_IMM);
						assert_int_equal(x->imm, want[w].len);
					}
					n++;
				}
				assert_int_equal(n % 3, 0);
				assert_int_equal(recvs, n);
				assert_true(polls > 0); /* a slice's completions polled in a row */
			}
			cc_schedule_free(s);
		}
}

/* qps_per_conn 1 builds what 0 (the default) builds, op for op. */
static void one_qp_is_the_default(void **state)
{
	(void)state;
	for (int t = 0; t < CC_TRANSPORT_COUNT; t++) {
		struct cc_schedule *a = build((enum cc_transport)t, CC_PROTO_SIMPLE, 3, 0, 100000, 0);
		struct cc_schedule *b = build((enum cc_transport)t, CC_PROTO_SIMPLE, 3, 0, 100000, 1);
		char *pa = NULL, *pb = NULL;
		size_t la = 0, lb = 0;
		FILE *fa = open_memstream(&pa, &la), *fb = open_memstream(&pb, &lb);

		cc_schedule_print(fa, a, -1);
		cc_schedule_print(fb, b, -1);
		fclose(fa);
		fclose(fb);
		assert_int_equal(la, lb);
		assert_string_equal(pa, pb);
		free(pa);
		free(pb);
		cc_schedule_free(a);
		cc_schedule_free(b);
	}
}

/* #wrong 0 on the data executor and the simulator: every transport and
 * protocol, 2 and 3 QPs, round robin and cut over all (write_imm), 2, 3
 * and 5 ranks. */
static void data_right_on_both_executors(void **state)
{
	(void)state;
	static const uint32_t ks[] = { 2, 3, 5 };
	struct sim_params f;

	assert_int_equal(sim_params_preset("roce-400g", &f), 0);
	for (int t = 0; t < CC_TRANSPORT_COUNT; t++)
		for (int pr = 0; pr < CC_PROTO_COUNT; pr++)
			for (uint32_t q = 2; q <= 3; q++)
				for (size_t ki = 0; ki < 6; ki++) {
					struct cc_schedule *s = build_split((enum cc_transport)t,
									    (enum cc_proto)pr,
									    ks[ki % 3], 0, 300000, q,
									    ki >= 3);
					both_executors_right(s, &f, 3, 5 + q);
					cc_schedule_free(s);
				}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(slices_round_robin),
		cmocka_unit_test(one_qp_inside_a_node),
		cmocka_unit_test(split_over_all_qps),
		cmocka_unit_test(one_qp_is_the_default),
		cmocka_unit_test(data_right_on_both_executors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
