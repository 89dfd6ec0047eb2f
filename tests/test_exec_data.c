/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_exec_data.c — the data executor answers like a real RNIC:
 * hand-built two-rank schedules, each with one verbs-level mistake, must end
 * with the completion status libibverbs would report (or the post error),
 * naming rank, QP, op and wr_id — never a crash or a silent success. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/algo.h"
#include "core/exec_data.h"
#include "tests/run_status.h"
#include "tests/two_ranks.h"

enum { SRC = 0, DST = 0 };

static uint32_t post(struct cc_schedule *s, uint32_t r, enum cc_opcode opc, uint32_t flags,
		     uint64_t loff, uint32_t len, uint64_t roff)
{
	struct cc_rank_sched *rs = &s->ranks[r];
	uint32_t prev = rs->nops ? rs->nops - 1 : UINT32_MAX;
	struct cc_op op = { .kind = CC_OP_POST_SEND };
	op.u.send = (struct cc_op_send){ .qp = 0, .wr_id = 100 + rs->nops, .opcode = opc,
					 .flags = flags, .num_sge = 1,
					 .sge = { opc >= CC_WR_ATOMIC_FETCH_ADD ? 1 : 0, loff, len },
					 .remote_mr = DST, .remote_offset = roff };
	uint32_t i = cc_add_op(rs, &op, &prev, 1);
	op = (struct cc_op){ .kind = CC_OP_DOORBELL, .u.doorbell = { 0, 1 } };
	cc_add_op(rs, &op, &i, 1);
	return i;
}

static void poll_for(struct cc_schedule *s, uint32_t r, uint64_t wr_id)
{
	struct cc_rank_sched *rs = &s->ranks[r];
	uint32_t prev = rs->nops - 1;
	struct cc_op op = { .kind = CC_OP_POLL_CQ, .u.poll = { 0, wr_id } };
	cc_add_op(rs, &op, &prev, 1);
}

static struct cc_data_result run(struct cc_schedule *s, const struct cc_fault *f, uint32_t nf)
{
	struct cc_data_opts o = { .seed = 1, .order_seed = 1, .faults = f, .nfaults = nf };
	struct cc_data_result res;
	char err[200];
	assert_int_equal(cc_schedule_validate(s, err, sizeof(err)), 0);
	assert_int_equal(cc_data_run(s, &o, &res), 0);
	return res;
}

static void expect(struct cc_data_result *res, enum cc_run_status st, enum cc_wc_status wc,
		   uint32_t rank, uint32_t op, uint64_t wr_id)
{
	print_message("    -> %s\n", res->err.msg);
	assert_run_status(res->err, st);
	assert_int_equal(res->err.wc, wc);
	assert_int_equal(res->err.rank, rank);
	assert_int_equal(res->err.qp, 0);
	assert_int_equal(res->err.op, op);
	assert_int_equal(res->err.wr_id, wr_id);
	assert_non_null(strstr(res->err.msg, "wr_id"));
	cc_data_result_free(res);
}

static void write_ok(void **state)
{
	(void)state;
	struct cc_schedule *s = two_ranks(CC_ACCESS_REMOTE_WRITE, 7);
	uint32_t w = post(s, 0, CC_WR_RDMA_WRITE, CC_SEND_SIGNALED, 0, 64, 0);
	poll_for(s, 0, 100 + w);
	struct cc_data_result res = run(s, NULL, 0);
	assert_run_status(res.err, CC_RUN_OK);
	assert_int_equal(res.wire_msgs[0], 1);
	assert_int_equal(res.ops_done[0], 3);
	cc_data_result_free(&res);
	cc_schedule_free(s);
}

static void wrong_rkey(void **state)
{
	(void)state;
	struct cc_schedule *s = two_ranks(CC_ACCESS_REMOTE_WRITE, 7);
	uint32_t w = post(s, 0, CC_WR_RDMA_WRITE, CC_SEND_SIGNALED, 0, 64, 0);
	poll_for(s, 0, 100 + w);
	struct cc_fault f = { CC_FAULT_RKEY, 0, w };
	struct cc_data_result res = run(s, &f, 1);
	expect(&res, CC_RUN_COMPLETION_ERROR, CC_WC_REM_ACCESS_ERR, 0, w, 100 + w);
	cc_schedule_free(s);
}

static void remote_out_of_bounds(void **state)
{
	(void)state;
	struct cc_schedule *s = two_ranks(CC_ACCESS_REMOTE_WRITE, 7);
	/* 64 bytes at offset 32 of a 64-byte MR: the last 32 are outside. */
	uint32_t w = post(s, 0, CC_WR_RDMA_WRITE, CC_SEND_SIGNALED, 0, 64, 32);
	poll_for(s, 0, 100 + w);
	struct cc_data_result res = run(s, NULL, 0);
	expect(&res, CC_RUN_COMPLETION_ERROR, CC_WC_REM_ACCESS_ERR, 0, w, 100 + w);
	cc_schedule_free(s);
}

static void no_remote_write_access(void **state)
{
	(void)state;
	struct cc_schedule *s = two_ranks(CC_ACCESS_LOCAL_WRITE | CC_ACCESS_REMOTE_READ, 7);
	uint32_t w = post(s, 0, CC_WR_RDMA_WRITE, CC_SEND_SIGNALED, 0, 8, 0);
	poll_for(s, 0, 100 + w);
	struct cc_data_result res = run(s, NULL, 0);
	expect(&res, CC_RUN_COMPLETION_ERROR, CC_WC_REM_ACCESS_ERR, 0, w, 100 + w);
	cc_schedule_free(s);
}

/* An error completes even an unsignaled WQE, and flushes the ones after it. */
static void unsignaled_error_then_flush(void **state)
{
	(void)state;
	struct cc_schedule *s = two_ranks(CC_ACCESS_REMOTE_WRITE, 7);
	uint32_t bad = post(s, 0, CC_WR_RDMA_WRITE, 0, 0, 64, 8);
	uint32_t next = post(s, 0, CC_WR_RDMA_WRITE, CC_SEND_SIGNALED, 0, 8, 0);
	poll_for(s, 0, 100 + next);
	struct cc_data_result res = run(s, NULL, 0);
	/* The poll reaps the flush of `next`; the error that caused it is
	 * what gets reported. */
	expect(&res, CC_RUN_COMPLETION_ERROR, CC_WC_REM_ACCESS_ERR, 0, bad, 100 + bad);
	cc_schedule_free(s);
}

static void local_key_wrong(void **state)
{
	(void)state;
	struct cc_schedule *s = two_ranks(CC_ACCESS_REMOTE_WRITE, 7);
	uint32_t w = post(s, 0, CC_WR_RDMA_WRITE, CC_SEND_SIGNALED, 0, 64, 0);
	poll_for(s, 0, 100 + w);
	struct cc_fault f = { CC_FAULT_LKEY, 0, w };
	struct cc_data_result res = run(s, &f, 1);
	expect(&res, CC_RUN_COMPLETION_ERROR, CC_WC_LOC_PROT_ERR, 0, w, 100 + w);
	cc_schedule_free(s);
}

/* SEND with no receive WQE at the peer: RNR NAKs until rnr_retry runs out. */
static void missing_receive(void **state)
{
	(void)state;
	for (uint8_t retry = 0; retry < 7; retry += 3) {
		struct cc_schedule *s = two_ranks(CC_ACCESS_LOCAL_WRITE, retry);
		uint32_t w = post(s, 0, CC_WR_SEND, CC_SEND_SIGNALED, 0, 16, 0);
		poll_for(s, 0, 100 + w);
		struct cc_data_result res = run(s, NULL, 0);
		expect(&res, CC_RUN_COMPLETION_ERROR, CC_WC_RNR_RETRY_EXC_ERR, 0, w, 100 + w);
		cc_schedule_free(s);
	}
}

/* rnr_retry = 7 retries forever: a hang on hardware, a deadlock report here. */
static void missing_receive_infinite_retry(void **state)
{
	(void)state;
	struct cc_schedule *s = two_ranks(CC_ACCESS_LOCAL_WRITE, 7);
	uint32_t w = post(s, 0, CC_WR_SEND, CC_SEND_SIGNALED, 0, 16, 0);
	poll_for(s, 0, 100 + w);
	struct cc_data_result res = run(s, NULL, 0);
	expect(&res, CC_RUN_DEADLOCK, CC_WC_SUCCESS, 0, w, 100 + w);
	cc_schedule_free(s);
}

static void add_recv(struct cc_schedule *s, uint32_t len)
{
	struct cc_op op = { .kind = CC_OP_POST_RECV };
	op.u.recv = (struct cc_op_recv){ .qp = 0, .wr_id = 7, .num_sge = 1, .sge = { 0, 0, len } };
	cc_add_op(&s->ranks[1], &op, NULL, 0);
	op = (struct cc_op){ .kind = CC_OP_POLL_CQ, .u.poll = { 0, 7 } };
	uint32_t prev = 0;
	cc_add_op(&s->ranks[1], &op, &prev, 1);
}

static void send_recv_ok_and_too_long(void **state)
{
	(void)state;
	struct cc_schedule *s = two_ranks(CC_ACCESS_LOCAL_WRITE, 7);
	uint32_t w = post(s, 0, CC_WR_SEND, CC_SEND_SIGNALED, 0, 16, 0);
	poll_for(s, 0, 100 + w);
	add_recv(s, 16);
	struct cc_data_result res = run(s, NULL, 0);
	assert_run_status(res.err, CC_RUN_OK);
	cc_data_result_free(&res);
	cc_schedule_free(s);

	s = two_ranks(CC_ACCESS_LOCAL_WRITE, 7);
	w = post(s, 0, CC_WR_SEND, CC_SEND_SIGNALED, 0, 32, 0);
	poll_for(s, 0, 100 + w);
	add_recv(s, 16);
	res = run(s, NULL, 0);
	/* Requester sees REM_INV_REQ_ERR, responder LOC_LEN_ERR; whichever
	 * poll reaps first is reported, both name the right WQE. */
	print_message("    -> %s\n", res.err.msg);
	assert_run_status(res.err, CC_RUN_COMPLETION_ERROR);
	assert_true((res.err.wc == CC_WC_REM_INV_REQ_ERR && res.err.rank == 0 && res.err.op == w) ||
		    (res.err.wc == CC_WC_LOC_LEN_ERR && res.err.rank == 1 && res.err.wr_id == 7));
	cc_data_result_free(&res);
	cc_schedule_free(s);
}

static void send_queue_overflow(void **state)
{
	(void)state;
	struct cc_schedule *s = two_ranks(CC_ACCESS_REMOTE_WRITE, 7);
	/* max_send_wr = 4: five unsignaled WQEs without a reaped completion. */
	uint32_t w = 0;
	for (int i = 0; i < 5; i++)
		w = post(s, 0, CC_WR_RDMA_WRITE, 0, 0, 8, 0);
	struct cc_data_result res = run(s, NULL, 0);
	expect(&res, CC_RUN_POST_ERROR, CC_WC_SUCCESS, 0, w, 100 + w);
	cc_schedule_free(s);
}

static void keep_word(void *ctx, uint32_t rank, uint8_t *const *bufs)
{
	uint64_t *w = ctx;
	memcpy(&w[rank], bufs[0], 8);
}

static void read_and_atomics(void **state)
{
	(void)state;
	uint32_t all = CC_ACCESS_LOCAL_WRITE | CC_ACCESS_REMOTE_WRITE | CC_ACCESS_REMOTE_READ |
		       CC_ACCESS_REMOTE_ATOMIC;
	struct cc_schedule *s = two_ranks(all, 7);
	/* fetch_add 5 then cmp_swp(5 -> 9) on rank 1's first word, then READ
	 * it back into rank 0's source buffer. */
	uint32_t a = post(s, 0, CC_WR_ATOMIC_FETCH_ADD, CC_SEND_SIGNALED, 0, 8, 0);
	s->ranks[0].ops[a].u.send.compare_add = 5;
	uint32_t c = post(s, 0, CC_WR_ATOMIC_CMP_SWP, CC_SEND_SIGNALED, 0, 8, 0);
	s->ranks[0].ops[c].u.send.compare_add = 5;
	s->ranks[0].ops[c].u.send.swap = 9;
	uint32_t rd = post(s, 0, CC_WR_RDMA_READ, CC_SEND_SIGNALED, 0, 8, 0);
	poll_for(s, 0, 100 + a);
	poll_for(s, 0, 100 + c);
	poll_for(s, 0, 100 + rd);
	/* The READ lands in rank 0's first word: 9 on both sides (host is
	 * little-endian, as the executor's words are). */
	uint64_t words[2] = { 0, 0 };
	struct cc_data_opts o = { .seed = 1, .order_seed = 1, .inspect = keep_word,
				  .inspect_ctx = words };
	struct cc_data_result res;
	assert_int_equal(cc_data_run(s, &o, &res), 0);
	assert_run_status(res.err, CC_RUN_OK);
	assert_int_equal(res.wire_msgs[0], 3);
	assert_int_equal(words[1], 9);
	assert_int_equal(words[0], 9);
	cc_data_result_free(&res);

	/* A misaligned atomic is an invalid request (IBA 9.4.5). */
	cc_schedule_free(s);
	s = two_ranks(all, 7);
	a = post(s, 0, CC_WR_ATOMIC_FETCH_ADD, CC_SEND_SIGNALED, 0, 8, 4);
	poll_for(s, 0, 100 + a);
	res = run(s, NULL, 0);
	expect(&res, CC_RUN_COMPLETION_ERROR, CC_WC_REM_INV_REQ_ERR, 0, a, 100 + a);
	cc_schedule_free(s);
}

/* Completions only for signaled WQEs: polling an unsignaled one never ends. */
static void unsignaled_gives_no_completion(void **state)
{
	(void)state;
	struct cc_schedule *s = two_ranks(CC_ACCESS_REMOTE_WRITE, 7);
	uint32_t w = post(s, 0, CC_WR_RDMA_WRITE, 0, 0, 8, 0);
	poll_for(s, 0, 100 + w);
	struct cc_data_result res = run(s, NULL, 0);
	assert_run_status(res.err, CC_RUN_DEADLOCK);
	cc_data_result_free(&res);
	cc_schedule_free(s);
}


/* A receive WQE whose lkey is bad: LOC_PROT_ERR at the responder and
 * REM_OP_ERR at the requester (rxe RESPST_ERR_MALFORMED_WQE, class A). */
static void receive_with_bad_lkey(void **state)
{
	(void)state;
	struct cc_schedule *s = two_ranks(CC_ACCESS_LOCAL_WRITE, 7);
	uint32_t w = post(s, 0, CC_WR_SEND, CC_SEND_SIGNALED, 0, 16, 0);
	poll_for(s, 0, 100 + w);
	add_recv(s, 16);
	struct cc_fault f = { CC_FAULT_LKEY, 1, 0 };
	struct cc_data_result res = run(s, &f, 1);
	print_message("    -> %s\n", res.err.msg);
	assert_run_status(res.err, CC_RUN_COMPLETION_ERROR);
	assert_true((res.err.wc == CC_WC_REM_OP_ERR && res.err.rank == 0 && res.err.op == w) ||
		    (res.err.wc == CC_WC_LOC_PROT_ERR && res.err.rank == 1 && res.err.wr_id == 7));
	cc_data_result_free(&res);
	cc_schedule_free(s);
}

/* A receive WQE holds its RQ slot until its completion is reaped (mlx5
 * moves the RQ tail in poll_cq): posting max_recv_wr + 1 receives with
 * none reaped fails, even after the NIC consumed some. */
static void receive_queue_slots_free_on_poll(void **state)
{
	(void)state;
	struct cc_schedule *s = two_ranks(CC_ACCESS_LOCAL_WRITE, 7);
	struct cc_rank_sched *rs = &s->ranks[1];
	uint32_t w = post(s, 0, CC_WR_SEND, CC_SEND_SIGNALED, 0, 8, 0);
	poll_for(s, 0, 100 + w);
	uint32_t last = UINT32_MAX;
	/* max_recv_wr = 4: the fifth receive fails whether or not the SEND
	 * has consumed one of the first four, since rank 1 reaps nothing. */
	for (int i = 0; i < 5; i++) {
		struct cc_op op = { .kind = CC_OP_POST_RECV };
		op.u.recv = (struct cc_op_recv){ .qp = 0, .wr_id = 200 + i, .num_sge = 1,
						 .sge = { 0, 0, 8 } };
		last = cc_add_op(rs, &op, &last, 1);
	}
	struct cc_data_result res = run(s, NULL, 0);
	expect(&res, CC_RUN_POST_ERROR, CC_WC_SUCCESS, 1, last, 204);
	cc_schedule_free(s);
}

/* A wait_mem on the word an atomic returns its old value into wakes up
 * when the atomic completes, whatever the interleaving. */
static void wait_on_local_atomic_result(void **state)
{
	(void)state;
	uint32_t all = CC_ACCESS_LOCAL_WRITE | CC_ACCESS_REMOTE_ATOMIC;
	for (uint64_t seed = 0; seed < 40; seed++) {
		struct cc_schedule *s = two_ranks(all, 7);
		uint32_t a = post(s, 0, CC_WR_ATOMIC_FETCH_ADD, CC_SEND_SIGNALED, 0, 8, 0);
		s->ranks[0].ops[a].u.send.compare_add = 7;
		uint32_t b = post(s, 0, CC_WR_ATOMIC_FETCH_ADD, CC_SEND_SIGNALED, 0, 8, 0);
		s->ranks[0].ops[b].u.send.compare_add = 1;
		/* The second FETCH_ADD returns 7 into rank 0's result word. */
		struct cc_op op = { .kind = CC_OP_WAIT_MEM, .u.wait = { 1, 0, 7 } };
		cc_add_op(&s->ranks[0], &op, NULL, 0);
		poll_for(s, 0, 100 + a);
		poll_for(s, 0, 100 + b);
		struct cc_data_opts o = { .seed = 1, .order_seed = seed };
		struct cc_data_result res;
		assert_int_equal(cc_data_run(s, &o, &res), 0);
		if (res.err.status != CC_RUN_OK)
			fail_msg("order seed %llu: %s", (unsigned long long)seed, res.err.msg);
		cc_data_result_free(&res);
		cc_schedule_free(s);
	}
}

/* A real collective with a fault in the middle ends with the right status. */
static void ring_with_bad_rkey(void **state)
{
	(void)state;
	for (int t = 0; t < CC_TRANSPORT_COUNT; t++) {
		struct cc_coll_params p;
		char err[200];
		cc_coll_params_default(&p);
		p.nranks = 4;
		p.count = 4096;
		p.transport = (enum cc_transport)t;
		struct cc_schedule *s = cc_build(&p, err, sizeof(err));
		assert_non_null(s);
		uint32_t victim = UINT32_MAX;
		const struct cc_rank_sched *rs = &s->ranks[2];
		for (uint32_t i = 0; i < rs->nops && victim == UINT32_MAX; i++)
			if (rs->ops[i].kind == CC_OP_POST_SEND &&
			    rs->ops[i].u.send.payload == CC_PAYLOAD_DATA &&
			    rs->ops[i].u.send.opcode != CC_WR_SEND)
				victim = i;
		struct cc_fault f = { CC_FAULT_RKEY, 2, victim };
		/* Every interleaving must end the same way: errors and flushes
		 * race with the rest of the ring. */
		for (uint64_t seed = 0; seed < 32; seed++) {
			struct cc_data_opts o = { .seed = 3, .order_seed = seed, .faults = &f,
						  .nfaults = 1 };
			struct cc_data_result res;
			assert_int_equal(cc_data_run(s, &o, &res), 0);
			if (seed == 0)
				print_message("    %s seed %llu -> %s\n", cc_transport_name[t],
					      (unsigned long long)seed, res.err.msg);
			if (t == CC_SEND_RECV) {
				/* SEND carries no rkey: the fault changes nothing. */
				assert_int_equal(victim, UINT32_MAX);
				assert_run_status(res.err, CC_RUN_OK);
			} else {
				assert_run_status(res.err, CC_RUN_COMPLETION_ERROR);
				assert_int_equal(res.err.wc, CC_WC_REM_ACCESS_ERR);
				assert_int_equal(res.err.rank, 2);
				assert_int_equal(res.err.op, victim);
				assert_true(res.wrong > 0);
			}
			cc_data_result_free(&res);
		}
		cc_schedule_free(s);
	}
}

/* A receiver that fell behind (CC_FAULT_NO_RECV on one post_recv of rank
 * 1): a SEND or WRITE WITH IMM meets an empty receive queue.  With finite
 * rnr_retry it ends as IBV_WC_RNR_RETRY_EXC_ERR on the sender, rank 0; with
 * NCCL's 7 (forever) the run is reported stuck.  write_flag posts no
 * receives for data: nothing to drop. */
static void ring_with_missing_receive(void **state)
{
	(void)state;
	for (int t = 0; t < CC_TRANSPORT_COUNT; t++) {
		for (int forever = 0; forever < 2; forever++) {
			struct cc_coll_params p;
			char err[200];
			cc_coll_params_default(&p);
			p.nranks = 2;
			p.count = 4096;
			p.transport = (enum cc_transport)t;
			struct cc_schedule *s = cc_build(&p, err, sizeof(err));
			assert_non_null(s);
			for (uint32_t r = 0; r < 2; r++)
				for (uint32_t q = 0; q < s->ranks[r].nqps; q++)
					s->ranks[r].qps[q].rnr_retry = forever ? 7 : 2;
			uint32_t victim = UINT32_MAX;
			const struct cc_rank_sched *rs = &s->ranks[1];
			for (uint32_t i = 0; i < rs->nops && victim == UINT32_MAX; i++)
				if (rs->ops[i].kind == CC_OP_POST_RECV &&
				    rs->qps[rs->ops[i].u.recv.qp].peer == 0 &&
				    rs->ops[i].tag.prim != CC_PRIM_NONE)
					victim = i;
			if (victim == UINT32_MAX) {
				/* Not a data receive: look for any receive. */
				for (uint32_t i = 0; i < rs->nops && victim == UINT32_MAX; i++)
					if (rs->ops[i].kind == CC_OP_POST_RECV)
						victim = i;
			}
			struct cc_fault f = { CC_FAULT_NO_RECV, 1, victim };
			struct cc_data_opts o = { .seed = 3, .order_seed = 5, .faults = &f,
						  .nfaults = 1 };
			struct cc_data_result res;
			assert_int_equal(cc_data_run(s, &o, &res), 0);
			if (victim == UINT32_MAX) {
				assert_run_status(res.err, CC_RUN_OK);
			} else if (forever) {
				assert_run_status(res.err, CC_RUN_DEADLOCK);
				assert_non_null(strstr(res.err.msg, "RNR"));
			} else {
				assert_run_status(res.err, CC_RUN_COMPLETION_ERROR);
				assert_int_equal(res.err.wc, CC_WC_RNR_RETRY_EXC_ERR);
				assert_int_equal(res.err.rank, 0);
			}
			print_message("    %s rnr_retry %d, no receive at r1 op %d -> %s\n",
				      cc_transport_name[t], forever ? 7 : 2, (int)victim,
				      res.err.status == CC_RUN_OK ? "ok" : res.err.msg);
			cc_data_result_free(&res);
			cc_schedule_free(s);
		}
	}
}

/* Drop the dependency of every consuming reduce/copy on its arrival
 * (poll/flag): the executor's random interleaving must expose the race as
 * wrong results for some order seeds. */
static void race_is_detected(void **state)
{
	(void)state;
	for (int t = 0; t < CC_TRANSPORT_COUNT; t++) {
		struct cc_coll_params p;
		char err[200];
		cc_coll_params_default(&p);
		p.nranks = 3;
		p.count = 3000;
		p.slot_bytes = 256;
		p.chunk_bytes = 3 * 256;
		p.nslots = 2;
		p.transport = (enum cc_transport)t;
		struct cc_schedule *s = cc_build(&p, err, sizeof(err));
		for (uint32_t r = 0; r < s->nranks; r++) {
			struct cc_rank_sched *rs = &s->ranks[r];
			for (uint32_t i = 0; i < rs->nops; i++) {
				struct cc_op *o = &rs->ops[i];
				if (o->kind != CC_OP_REDUCE && o->kind != CC_OP_COPY)
					continue;
				for (uint32_t d = 0; d < o->ndeps; d++) {
					uint32_t *dep = &rs->deps[o->dep_first + d];
					enum cc_op_kind k = rs->ops[*dep].kind;
					if (k == CC_OP_POLL_CQ && o->u.calc.src[0].buf == 3)
						*dep = 0; /* harmless: the first op */
					if (k == CC_OP_WAIT_MEM)
						*dep = 0;
				}
			}
		}
		uint64_t worst = 0;
		for (uint64_t seed = 1; seed <= 16 && !worst; seed++) {
			struct cc_data_opts o = { .seed = 1, .order_seed = seed };
			struct cc_data_result res;
			assert_int_equal(cc_data_run(s, &o, &res), 0);
			worst = res.wrong;
			cc_data_result_free(&res);
		}
		print_message("    %s: racy schedule gave %llu wrong elements\n",
			      cc_transport_name[t], (unsigned long long)worst);
		assert_true(worst > 0);
		cc_schedule_free(s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(write_ok),
		cmocka_unit_test(wrong_rkey),
		cmocka_unit_test(remote_out_of_bounds),
		cmocka_unit_test(no_remote_write_access),
		cmocka_unit_test(unsignaled_error_then_flush),
		cmocka_unit_test(local_key_wrong),
		cmocka_unit_test(missing_receive),
		cmocka_unit_test(missing_receive_infinite_retry),
		cmocka_unit_test(send_recv_ok_and_too_long),
		cmocka_unit_test(send_queue_overflow),
		cmocka_unit_test(read_and_atomics),
		cmocka_unit_test(unsignaled_gives_no_completion),
		cmocka_unit_test(receive_with_bad_lkey),
		cmocka_unit_test(receive_queue_slots_free_on_poll),
		cmocka_unit_test(wait_on_local_atomic_result),
		cmocka_unit_test(ring_with_bad_rkey),
		cmocka_unit_test(ring_with_missing_receive),
		cmocka_unit_test(race_is_detected),
	};
	return cmocka_run_group_tests_name("exec_data", tests, NULL, NULL);
}
