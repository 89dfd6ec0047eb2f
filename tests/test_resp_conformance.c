/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_resp_conformance.c — the responder's request checks
 * (core/resp_check.h), row by row, and one table of bad schedules run on
 * every executor that can run them here: each row must end the same way on
 * the data executor and the simulator (run status, completion status,
 * rank, QP, op), since both now ask the same checks.
 *
 * The verbs executor needs an RNIC: scripts/softroce/verbs-tests.sh runs
 * the same faults (rkey, lkey on a post_send, norecv) through `cclab run`
 * on soft-RoCE and expects the statuses these rows expect. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/algo.h"
#include "core/exec_common.h"
#include "core/exec_data.h"
#include "core/resp_check.h"
#include "sim/exec.h"
#include "tests/run_status.h"
#include "tests/two_ranks.h"

enum { RW = CC_ACCESS_LOCAL_WRITE | CC_ACCESS_REMOTE_WRITE,
       ALL = RW | CC_ACCESS_REMOTE_READ | CC_ACCESS_REMOTE_ATOMIC };

/* ---- the checks, row by row ---- */

/* Rank 1's side: a 64-byte buffer, MR 0 over it with `access`. */
struct side {
	struct cc_buffer buf;
	struct cc_mr mr;
	struct cc_rank_sched rs;
	uint32_t key;
};

static void side_init(struct side *d, uint32_t access)
{
	memset(d, 0, sizeof(*d));
	d->buf = (struct cc_buffer){ CC_MEM_HOST, CC_BUF_OUTPUT, 64, -1, 0 };
	d->mr = (struct cc_mr){ .buf = 0, .access = access };
	d->rs.bufs = &d->buf;
	d->rs.mrs = &d->mr;
	d->rs.nbufs = d->rs.nmrs = 1;
	cc_exec_keys(&d->rs, 1, 1, &d->key);
}

static void check_steps(void **state)
{
	(void)state;
	enum { K = 0, BADK = 0x80 }; /* the key, or the key with a fault's flip */
	static const struct {
		uint32_t access;
		enum cc_opcode opcode;
		bool first, rwqe;
		uint32_t len;
		uint32_t key_flip;
		uint64_t va;
		int32_t recv_len; /* -1: no receive WQE posted */
		uint32_t recv_flip;
		enum cc_resp_state want;
		enum cc_nak nak;
		enum cc_wc_status req_wc, recv_wc;
	} rows[] = {
		/* check_op_valid: an atomic is one aligned 8-byte word */
		{ ALL, CC_WR_ATOMIC_FETCH_ADD, 1, 0, 8, K, 4, -1, K, CC_RESP_ERR_INV_REQ,
		  CC_NAK_INV_REQ, CC_WC_REM_INV_REQ_ERR, CC_WC_SUCCESS },
		{ ALL, CC_WR_ATOMIC_CMP_SWP, 1, 0, 4, K, 0, -1, K, CC_RESP_ERR_INV_REQ,
		  CC_NAK_INV_REQ, CC_WC_REM_INV_REQ_ERR, CC_WC_SUCCESS },
		/* ... ahead of the R_Key: wrong both ways is an invalid request */
		{ ALL, CC_WR_ATOMIC_FETCH_ADD, 1, 0, 8, BADK, 4, -1, K, CC_RESP_ERR_INV_REQ,
		  CC_NAK_INV_REQ, CC_WC_REM_INV_REQ_ERR, CC_WC_SUCCESS },
		/* check_resource: no receive WQE for a packet that takes one */
		{ RW, CC_WR_SEND, 1, 1, 16, K, 0, -1, K, CC_RESP_ERR_RNR, CC_NAK_RNR,
		  CC_WC_RNR_RETRY_EXC_ERR, CC_WC_SUCCESS },
		{ RW, CC_WR_RDMA_WRITE_WITH_IMM, 0, 1, 16, K, 0, -1, K, CC_RESP_ERR_RNR, CC_NAK_RNR,
		  CC_WC_RNR_RETRY_EXC_ERR, CC_WC_SUCCESS },
		/* ... ahead of the R_Key (rxe's order) */
		{ RW, CC_WR_RDMA_WRITE_WITH_IMM, 1, 1, 16, BADK, 0, -1, K, CC_RESP_ERR_RNR,
		  CC_NAK_RNR, CC_WC_RNR_RETRY_EXC_ERR, CC_WC_SUCCESS },
		/* a SEND's middle packet takes none: no check */
		{ RW, CC_WR_SEND, 0, 0, 16, K, 0, -1, K, CC_RESP_EXECUTE, CC_NAK_NONE,
		  CC_WC_SUCCESS, CC_WC_SUCCESS },
		/* check_length: a SEND longer than its receive WQE */
		{ RW, CC_WR_SEND, 1, 1, 32, K, 0, 16, K, CC_RESP_ERR_LENGTH, CC_NAK_INV_REQ,
		  CC_WC_REM_INV_REQ_ERR, CC_WC_LOC_LEN_ERR },
		/* ... found before the receive's own bad key */
		{ RW, CC_WR_SEND, 1, 1, 32, K, 0, 16, BADK, CC_RESP_ERR_LENGTH, CC_NAK_INV_REQ,
		  CC_WC_REM_INV_REQ_ERR, CC_WC_LOC_LEN_ERR },
		{ RW, CC_WR_SEND, 1, 1, 16, K, 0, 16, K, CC_RESP_EXECUTE, CC_NAK_NONE, CC_WC_SUCCESS,
		  CC_WC_SUCCESS },
		/* check_rkey: unknown key, missing right, out of range */
		{ RW, CC_WR_RDMA_WRITE, 1, 0, 64, BADK, 0, -1, K, CC_RESP_ERR_RKEY_VIOLATION,
		  CC_NAK_REM_ACCESS, CC_WC_REM_ACCESS_ERR, CC_WC_REM_ACCESS_ERR },
		{ RW, CC_WR_RDMA_WRITE, 1, 0, 64, K, 32, -1, K, CC_RESP_ERR_RKEY_VIOLATION,
		  CC_NAK_REM_ACCESS, CC_WC_REM_ACCESS_ERR, CC_WC_REM_ACCESS_ERR },
		{ CC_ACCESS_LOCAL_WRITE, CC_WR_RDMA_WRITE, 1, 0, 8, K, 0, -1, K,
		  CC_RESP_ERR_RKEY_VIOLATION, CC_NAK_REM_ACCESS, CC_WC_REM_ACCESS_ERR,
		  CC_WC_REM_ACCESS_ERR },
		{ RW, CC_WR_RDMA_READ, 1, 0, 8, K, 0, -1, K, CC_RESP_ERR_RKEY_VIOLATION,
		  CC_NAK_REM_ACCESS, CC_WC_REM_ACCESS_ERR, CC_WC_REM_ACCESS_ERR },
		{ RW | CC_ACCESS_REMOTE_READ, CC_WR_ATOMIC_FETCH_ADD, 1, 0, 8, K, 0, -1, K,
		  CC_RESP_ERR_RKEY_VIOLATION, CC_NAK_REM_ACCESS, CC_WC_REM_ACCESS_ERR,
		  CC_WC_REM_ACCESS_ERR },
		{ ALL, CC_WR_ATOMIC_CMP_SWP, 1, 0, 8, K, 56, -1, K, CC_RESP_EXECUTE, CC_NAK_NONE,
		  CC_WC_SUCCESS, CC_WC_SUCCESS },
		/* ... at the first packet only; none for zero bytes (IBA C9-88) */
		{ RW, CC_WR_RDMA_WRITE, 0, 0, 64, BADK, 0, -1, K, CC_RESP_EXECUTE, CC_NAK_NONE,
		  CC_WC_SUCCESS, CC_WC_SUCCESS },
		{ RW, CC_WR_RDMA_READ, 1, 0, 0, BADK, 0, -1, K, CC_RESP_EXECUTE, CC_NAK_NONE,
		  CC_WC_SUCCESS, CC_WC_SUCCESS },
		/* the receive WQE's own L_Key: the responder's fault */
		{ RW, CC_WR_SEND, 1, 1, 16, K, 0, 16, BADK, CC_RESP_ERR_MALFORMED_WQE,
		  CC_NAK_REM_OP, CC_WC_REM_OP_ERR, CC_WC_LOC_PROT_ERR },
		{ RW, CC_WR_SEND, 1, 1, 0, K, 0, 16, BADK, CC_RESP_EXECUTE, CC_NAK_NONE,
		  CC_WC_SUCCESS, CC_WC_SUCCESS },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct side d;
		struct cc_op_recv rv = { .qp = 0, .wr_id = 7, .num_sge = 1,
					 .sge = { 0, 0, (uint32_t)rows[i].recv_len } };
		struct cc_resp_found f;

		side_init(&d, rows[i].access);
		struct cc_resp_req q = { rows[i].opcode, rows[i].first, rows[i].rwqe, rows[i].len,
					 d.key ^ rows[i].key_flip, rows[i].va };
		struct cc_resp_qp p = { &d.rs, &d.key, rows[i].recv_len < 0 ? NULL : &rv,
					d.key ^ rows[i].recv_flip };
		enum cc_resp_state st = cc_resp_check(&q, &p, &f);

		print_message("    row %zu: %s %u B -> %s\n", i, cc_opcode_name[q.opcode], q.len,
			      cc_resp_state_name[st]);
		assert_string_equal(cc_resp_state_name[st], cc_resp_state_name[rows[i].want]);
		assert_int_equal(cc_resp_nak(st), rows[i].nak);
		assert_int_equal(cc_nak_wc(cc_resp_nak(st)), rows[i].req_wc);
		assert_int_equal(cc_resp_recv_wc(st), rows[i].recv_wc);
		if (st == CC_RESP_EXECUTE && q.first && q.len && q.opcode != CC_WR_SEND)
			assert_ptr_equal(f.mr, &d.mr); /* what the executor writes to */
		if (st == CC_RESP_EXECUTE && q.takes_rwqe && q.len)
			assert_ptr_equal(f.recv_mr, &d.mr);
	}
}

/* ---- one table of bad schedules, every executor ---- */

static uint32_t add(struct cc_schedule *s, uint32_t r, struct cc_op op)
{
	struct cc_rank_sched *rs = &s->ranks[r];
	uint32_t prev = rs->nops ? rs->nops - 1 : UINT32_MAX;

	return cc_add_op(rs, &op, &prev, prev == UINT32_MAX ? 0 : 1);
}

/* Who ends the run, and how. */
enum who { REQ, RECV, NONE };

static const struct row {
	const char *name;
	uint32_t access;        /* rank 1's MR 0 */
	uint8_t rnr_retry;
	enum cc_opcode opcode;  /* rank 0's one WQE */
	uint32_t len;
	uint64_t roff;
	int32_t recv_len;       /* rank 1's one receive, -1: none */
	int fault;              /* -1, or a cc_fault_kind ... */
	enum who fault_on;      /* ... on rank 0's WQE or rank 1's receive */
	enum cc_run_status status;
	enum cc_wc_status wc;
	enum who by;            /* the op the run names */
} table[] = {
	{ "bad rkey", RW, 7, CC_WR_RDMA_WRITE, 64, 0, -1, CC_FAULT_RKEY, REQ,
	  CC_RUN_COMPLETION_ERROR, CC_WC_REM_ACCESS_ERR, REQ },
	{ "write past the MR", RW, 7, CC_WR_RDMA_WRITE, 64, 32, -1, -1, REQ,
	  CC_RUN_COMPLETION_ERROR, CC_WC_REM_ACCESS_ERR, REQ },
	{ "write, no REMOTE_WRITE", CC_ACCESS_LOCAL_WRITE | CC_ACCESS_REMOTE_READ, 7,
	  CC_WR_RDMA_WRITE, 8, 0, -1, -1, REQ, CC_RUN_COMPLETION_ERROR, CC_WC_REM_ACCESS_ERR, REQ },
	{ "read, no REMOTE_READ", RW, 7, CC_WR_RDMA_READ, 8, 0, -1, -1, REQ,
	  CC_RUN_COMPLETION_ERROR, CC_WC_REM_ACCESS_ERR, REQ },
	{ "atomic, no REMOTE_ATOMIC", RW | CC_ACCESS_REMOTE_READ, 7, CC_WR_ATOMIC_FETCH_ADD, 8, 0,
	  -1, -1, REQ, CC_RUN_COMPLETION_ERROR, CC_WC_REM_ACCESS_ERR, REQ },
	{ "misaligned atomic", ALL, 7, CC_WR_ATOMIC_CMP_SWP, 8, 4, -1, -1, REQ,
	  CC_RUN_COMPLETION_ERROR, CC_WC_REM_INV_REQ_ERR, REQ },
	{ "send, no receive", RW, 0, CC_WR_SEND, 16, 0, -1, -1, REQ, CC_RUN_COMPLETION_ERROR,
	  CC_WC_RNR_RETRY_EXC_ERR, REQ },
	{ "write_imm, receive not posted", RW, 2, CC_WR_RDMA_WRITE_WITH_IMM, 16, 0, 16,
	  CC_FAULT_NO_RECV, RECV, CC_RUN_COMPLETION_ERROR, CC_WC_RNR_RETRY_EXC_ERR, REQ },
	{ "write_imm, bad rkey and no receive", RW, 0, CC_WR_RDMA_WRITE_WITH_IMM, 16, 0, -1,
	  CC_FAULT_RKEY, REQ, CC_RUN_COMPLETION_ERROR, CC_WC_RNR_RETRY_EXC_ERR, REQ },
	{ "write_imm, bad rkey", RW, 7, CC_WR_RDMA_WRITE_WITH_IMM, 16, 0, 16, CC_FAULT_RKEY, REQ,
	  CC_RUN_COMPLETION_ERROR, CC_WC_REM_ACCESS_ERR, REQ },
	{ "send longer than the receive", RW, 7, CC_WR_SEND, 32, 0, 16, -1, REQ,
	  CC_RUN_COMPLETION_ERROR, CC_WC_LOC_LEN_ERR, RECV },
	{ "receive with a bad lkey", RW, 7, CC_WR_SEND, 16, 0, 16, CC_FAULT_LKEY, RECV,
	  CC_RUN_COMPLETION_ERROR, CC_WC_LOC_PROT_ERR, RECV },
	{ "send with a bad lkey", RW, 7, CC_WR_SEND, 16, 0, 16, CC_FAULT_LKEY, REQ,
	  CC_RUN_COMPLETION_ERROR, CC_WC_LOC_PROT_ERR, REQ },
	{ "zero-length write, bad rkey", RW, 7, CC_WR_RDMA_WRITE, 0, 0, -1, CC_FAULT_RKEY, REQ,
	  CC_RUN_OK, CC_WC_SUCCESS, NONE },
};

/* Row t's schedule; *req and *recv: the ops of rank 0's WQE and rank 1's
 * receive (UINT32_MAX: none). */
static struct cc_schedule *build(const struct row *t, uint32_t *req, uint32_t *recv)
{
	struct cc_schedule *s = two_ranks(t->access, t->rnr_retry);
	bool atomic = t->opcode >= CC_WR_ATOMIC_FETCH_ADD;
	struct cc_op_send o = { .qp = 0, .wr_id = 100, .opcode = t->opcode,
				.flags = CC_SEND_SIGNALED, .num_sge = 1,
				.sge = { atomic ? 1 : 0, 0, t->len }, .remote_mr = 0,
				.remote_offset = t->roff };

	*recv = UINT32_MAX;
	if (t->recv_len >= 0) {
		*recv = add(s, 1, (struct cc_op){ .kind = CC_OP_POST_RECV, .u.recv = {
			.qp = 0, .wr_id = 200, .num_sge = 1,
			.sge = { 0, 0, (uint32_t)t->recv_len } } });
		add(s, 1, (struct cc_op){ .kind = CC_OP_POLL_CQ, .u.poll = { 0, 200 } });
	}
	*req = add(s, 0, (struct cc_op){ .kind = CC_OP_POST_SEND, .u.send = o });
	add(s, 0, (struct cc_op){ .kind = CC_OP_DOORBELL, .u.doorbell = { 0, 1 } });
	add(s, 0, (struct cc_op){ .kind = CC_OP_POLL_CQ, .u.poll = { 0, 100 } });
	return s;
}

/* Runs s on executor x through its descriptor (core/exec.h); the run's
 * error.  ctx is the executor's own setting: the simulator's fabric and
 * network, nothing for the data executor. */
static struct cc_run_error run_on(const struct cc_executor_ops *x, const void *ctx,
				  const struct cc_schedule *s, const struct cc_fault *f, uint32_t nf)
{
	const struct cc_exec_common c = { .seed = 1, .order_seed = 1, .faults = f, .nfaults = nf,
					  .check = true };
	struct cc_run_error err;
	char msg[256] = "";
	void *res = calloc(1, x->result_size);

	assert_non_null(res);
	if (x->run(s, &c, ctx, res, msg, sizeof(msg)))
		fail_msg("%s: %s", cc_executor_ops_name(x), msg);
	err = *x->error(res);
	x->result_free(res);
	free(res);
	return err;
}

static void bad_schedules(void **state)
{
	struct sim_params fab;
	const struct cc_sim_opts sim = { .fabric = &fab, .topo = SIM_TOPO_STAR,
					 .time_limit_ps = SIM_PS_PER_S };
	/* Every executor that runs here (see the top for verbs). */
	const struct {
		const struct cc_executor_ops *x;
		const void *ctx;
	} execs[] = { { &cc_data_executor, NULL }, { &cc_sim_executor, &sim } };

	(void)state;
	assert_int_equal(sim_params_preset("ib-hdr", &fab), 0);

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const struct row *t = &table[i];
		uint32_t req, recv;
		struct cc_schedule *s = build(t, &req, &recv);
		struct cc_fault f = { (enum cc_fault_kind)t->fault, t->fault_on == REQ ? 0 : 1,
				      t->fault_on == REQ ? req : recv };
		char err[256];

		assert_int_equal(cc_schedule_validate(s, err, sizeof(err)), 0);
		if (t->fault >= 0)
			assert_int_equal(cc_fault_check(&f, s, err, sizeof(err)), 0);
		for (size_t k = 0; k < sizeof(execs) / sizeof(execs[0]); k++) {
			struct cc_run_error e = run_on(execs[k].x, execs[k].ctx, s, &f,
						       t->fault >= 0);

			print_message("    %-36s %-4s -> %s\n", t->name,
				      cc_executor_ops_name(execs[k].x),
				      e.status == CC_RUN_OK ? "ok" : e.msg);
			assert_run_status(e, t->status);
			if (t->by == NONE)
				continue;
			assert_int_equal(e.wc, t->wc);
			assert_int_equal(e.rank, t->by == REQ ? 0 : 1);
			assert_int_equal(e.qp, 0);
			assert_int_equal(e.op, t->by == REQ ? req : recv);
			assert_int_equal(e.wr_id, t->by == REQ ? 100 : 200);
		}
		cc_schedule_free(s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(check_steps),
		cmocka_unit_test(bad_schedules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
