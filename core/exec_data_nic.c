/* core/exec_data_nic.c — the data executor's RNIC: executes the WQE at the
 * head of a send queue against the peer's memory and receive queue.
 *
 * The checks, their order and their outcomes follow the responder of the
 * kernel's soft-RoCE driver (drivers/infiniband/sw/rxe/rxe_resp.c:
 * check_resource → check_rkey → execute → acknowledge) and the IBA:
 *   - no receive WQE for a SEND / WRITE_WITH_IMM: RNR NAK, retried while
 *     rnr_retry lasts (IBA 9.7.5.2.8), then IBV_WC_RNR_RETRY_EXC_ERR;
 *   - R_Key unknown, lacking the access right, or range outside the MR:
 *     NAK remote access error → IBV_WC_REM_ACCESS_ERR, both QPs to error
 *     (rxe: do_class_ac_error);
 *   - message longer than the receive SGE: IBV_WC_LOC_LEN_ERR at the
 *     responder, IBV_WC_REM_INV_REQ_ERR at the requester; a receive WQE
 *     with a bad L_Key: IBV_WC_LOC_PROT_ERR there, IBV_WC_REM_OP_ERR here;
 *   - L_Key unknown or range outside the local MR: IBV_WC_LOC_PROT_ERR;
 *   - a QP in error flushes every outstanding WQE with IBV_WC_WR_FLUSH_ERR.
 * Completions are generated for signaled WQEs, and always for errors. */
#include "exec_data_int.h"

#include <string.h>

/* The MR of rank r whose key is `key` and that covers [off, off+len) of its
 * buffer with all of `access`; NULL if none. */
static const struct cc_mr *find_mr(struct dx *x, uint32_t r, uint32_t key, uint64_t off,
				   uint64_t len, uint32_t access)
{
	return cc_exec_find_mr(&x->s->ranks[r], x->rk[r].key, key, off, len, access);
}

static void complete(struct dx *x, uint32_t r, uint32_t q, uint32_t op, uint64_t wr_id,
		     enum cc_wc_status st, int is_recv, uint32_t len, uint32_t imm)
{
	const struct cc_qp *qp = &x->s->ranks[r].qps[q];
	struct dx_cqe c = { wr_id, st, q, op, len, imm, is_recv };
	dx_push_cqe(x, r, is_recv ? qp->recv_cq : qp->send_cq, &c);
}

void dx_qp_to_error(struct dx *x, uint32_t r, uint32_t q)
{
	const struct cc_rank_sched *rs = &x->s->ranks[r];
	struct dx_qp *qp = &x->rk[r].qp[q];
	qp->error = 1;
	qp->rnr_blocked = 0;
	for (; qp->sq.head < qp->sq.tail; qp->sq.head++) {
		uint32_t op = qp->sq.op[qp->sq.head];
		complete(x, r, q, op, rs->ops[op].u.send.wr_id, CC_WC_WR_FLUSH_ERR, 0, 0, 0);
	}
	qp->rung = qp->sq.tail;
	for (; qp->rq.head < qp->rq.tail; qp->rq.head++) {
		uint32_t op = qp->rq.op[qp->rq.head];
		complete(x, r, q, op, rs->ops[op].u.recv.wr_id, CC_WC_WR_FLUSH_ERR, 1, 0, 0);
	}
}

/* The head WQE fails with `st`; the QP goes to error and flushes the rest. */
static void fail_head(struct dx *x, uint32_t r, uint32_t q, enum cc_wc_status st)
{
	struct dx_qp *qp = &x->rk[r].qp[q];
	uint32_t op = qp->sq.op[qp->sq.head++];
	complete(x, r, q, op, x->s->ranks[r].ops[op].u.send.wr_id, st, 0, 0, 0);
	dx_qp_to_error(x, r, q);
}

void dx_rnr_expire(struct dx *x, uint32_t r, uint32_t q)
{
	fail_head(x, r, q, CC_WC_RNR_RETRY_EXC_ERR);
}

/* Takes the receive WQE a SEND or WRITE_WITH_IMM consumes.  Returns its op
 * index, or UINT32_MAX when the RQ is empty (the caller turns that into RNR). */
static uint32_t take_recv(struct dx *x, uint32_t pr, uint32_t pq)
{
	struct dx_qp *peer = &x->rk[pr].qp[pq];
	if (peer->rq.head == peer->rq.tail)
		return UINT32_MAX;
	return peer->rq.op[peer->rq.head++];
}

void dx_nic_step(struct dx *x, uint32_t r, uint32_t q)
{
	const struct cc_rank_sched *rs = &x->s->ranks[r];
	struct dx_rank *rk = &x->rk[r];
	struct dx_qp *qp = &rk->qp[q];
	uint32_t i = qp->sq.op[qp->sq.head];
	const struct cc_op_send *p = &rs->ops[i].u.send;
	const struct cc_qp *cqp = &rs->qps[q];
	uint32_t pr = cqp->peer, pq = cqp->peer_qp;
	struct dx_rank *prk = &x->rk[pr];
	uint32_t len = p->sge.length;
	uint8_t inline_buf[8];
	uint8_t *local = NULL;
	const struct cc_mr *lmr = NULL;
	int local_write = cc_opcode_rd_atomic(p->opcode);

	/* Requester: gather the local side (L_Key check, IBA 10.6.3.1). */
	if (p->flags & CC_SEND_INLINE) {
		cc_word_store(inline_buf, p->inline_value);
		local = inline_buf;
		if (len > sizeof(inline_buf))
			len = sizeof(inline_buf);
	} else if (p->num_sge) {
		lmr = find_mr(x, r, rk->wqe_lkey[i], p->sge.offset, len,
			      local_write ? CC_ACCESS_LOCAL_WRITE : 0);
		if (!lmr) {
			fail_head(x, r, q, CC_WC_LOC_PROT_ERR);
			return;
		}
		local = rk->mem[lmr->buf] + p->sge.offset;
	} else {
		len = 0;
	}
	if (prk->qp[pq].error) {
		/* The responder drops everything: the requester retries until
		 * retry_cnt is exhausted (IBA 9.7.6.1.3). */
		fail_head(x, r, q, CC_WC_RETRY_EXC_ERR);
		return;
	}

	uint32_t recv_op = UINT32_MAX;
	const struct cc_mr *rmr = NULL;
	switch (p->opcode) {
	case CC_WR_SEND:
	case CC_WR_SEND_WITH_IMM: {
		recv_op = take_recv(x, pr, pq);
		if (recv_op == UINT32_MAX) {
			qp->rnr_blocked = 1;
			return;
		}
		const struct cc_op_recv *rv = &x->s->ranks[pr].ops[recv_op].u.recv;
		uint32_t room = rv->num_sge ? rv->sge.length : 0;
		const struct cc_mr *dmr = NULL;
		if (rv->num_sge)
			dmr = find_mr(x, pr, prk->wqe_lkey[recv_op], rv->sge.offset, room,
				      CC_ACCESS_LOCAL_WRITE);
		if (len > room || (len && !dmr)) {
			/* Too long: invalid request (rxe RESPST_ERR_LENGTH).  A
			 * receive WQE whose own key is bad is the responder's
			 * fault: remote operational error (RESPST_ERR_MALFORMED_WQE). */
			int too_long = len > room;
			complete(x, pr, pq, recv_op, rv->wr_id,
				 too_long ? CC_WC_LOC_LEN_ERR : CC_WC_LOC_PROT_ERR, 1, 0, 0);
			dx_qp_to_error(x, pr, pq);
			fail_head(x, r, q, too_long ? CC_WC_REM_INV_REQ_ERR : CC_WC_REM_OP_ERR);
			return;
		}
		if (len) {
			memcpy(prk->mem[dmr->buf] + rv->sge.offset, local, len);
			dx_mem_written(x, pr, dmr->buf, rv->sge.offset, len);
		}
		complete(x, pr, pq, recv_op, rv->wr_id, CC_WC_SUCCESS, 1, len,
			 p->opcode == CC_WR_SEND_WITH_IMM ? p->imm : 0);
		break;
	}
	case CC_WR_RDMA_WRITE:
	case CC_WR_RDMA_WRITE_WITH_IMM:
		/* rxe checks resources (the receive WQE) before the rkey, and
		 * a zero-length transfer checks no rkey at all (IBA C9-88). */
		if (p->opcode == CC_WR_RDMA_WRITE_WITH_IMM) {
			recv_op = take_recv(x, pr, pq);
			if (recv_op == UINT32_MAX) {
				qp->rnr_blocked = 1;
				return;
			}
		}
		if (len) {
			rmr = find_mr(x, pr, rk->wqe_rkey[i], p->remote_offset, len,
				      CC_ACCESS_REMOTE_WRITE);
			if (!rmr) {
				/* The requester's error first: it is the root cause
				 * the run reports. */
				fail_head(x, r, q, CC_WC_REM_ACCESS_ERR);
				if (recv_op != UINT32_MAX)
					complete(x, pr, pq, recv_op,
						 x->s->ranks[pr].ops[recv_op].u.recv.wr_id,
						 CC_WC_REM_ACCESS_ERR, 1, 0, 0);
				dx_qp_to_error(x, pr, pq);
				return;
			}
			memcpy(prk->mem[rmr->buf] + p->remote_offset, local, len);
			dx_mem_written(x, pr, rmr->buf, p->remote_offset, len);
		}
		if (recv_op != UINT32_MAX)
			complete(x, pr, pq, recv_op, x->s->ranks[pr].ops[recv_op].u.recv.wr_id,
				 CC_WC_SUCCESS, 1, len, p->imm);
		break;
	case CC_WR_RDMA_READ:
		if (!len)
			break;
		rmr = find_mr(x, pr, rk->wqe_rkey[i], p->remote_offset, len, CC_ACCESS_REMOTE_READ);
		if (!rmr) {
			dx_qp_to_error(x, pr, pq);
			fail_head(x, r, q, CC_WC_REM_ACCESS_ERR);
			return;
		}
		memcpy(local, prk->mem[rmr->buf] + p->remote_offset, len);
		dx_mem_written(x, r, lmr->buf, p->sge.offset, len);
		break;
	case CC_WR_ATOMIC_FETCH_ADD:
	case CC_WR_ATOMIC_CMP_SWP: {
		/* 8 bytes, naturally aligned (IBA 9.4.5). */
		if (len != 8 || (p->remote_offset & 7)) {
			dx_qp_to_error(x, pr, pq);
			fail_head(x, r, q, CC_WC_REM_INV_REQ_ERR);
			return;
		}
		rmr = find_mr(x, pr, rk->wqe_rkey[i], p->remote_offset, 8, CC_ACCESS_REMOTE_ATOMIC);
		if (!rmr) {
			dx_qp_to_error(x, pr, pq);
			fail_head(x, r, q, CC_WC_REM_ACCESS_ERR);
			return;
		}
		if (!lmr) {
			fail_head(x, r, q, CC_WC_LOC_PROT_ERR); /* nowhere to return the old value */
			return;
		}
		uint8_t *w = prk->mem[rmr->buf] + p->remote_offset;
		uint64_t old = cc_word_load(w);
		if (p->opcode == CC_WR_ATOMIC_FETCH_ADD)
			cc_word_store(w, old + p->compare_add);
		else if (old == p->compare_add)
			cc_word_store(w, p->swap);
		cc_word_store(local, old);
		dx_mem_written(x, pr, rmr->buf, p->remote_offset, 8);
		dx_mem_written(x, r, lmr->buf, p->sge.offset, 8);
		break;
	}
	default:
		fail_head(x, r, q, CC_WC_LOC_QP_OP_ERR);
		return;
	}

	qp->sq.head++;
	x->res->wire_msgs[r]++;
	if (p->payload == CC_PAYLOAD_DATA)
		x->res->data_bytes[r] += len;
	if (p->flags & CC_SEND_SIGNALED)
		complete(x, r, q, i, p->wr_id, CC_WC_SUCCESS, 0, len, 0);
}
