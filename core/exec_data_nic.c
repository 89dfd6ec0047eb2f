/* core/exec_data_nic.c — the data executor's RNIC: executes the WQE at the
 * head of a send queue against the peer's memory and receive queue.
 *
 * The requester checks its own side (L_Key, IBA 10.6.3.1:
 * IBV_WC_LOC_PROT_ERR); the responder's checks on the request are
 * core/resp_check.h's, the simulated RNIC's too, the whole message taken
 * as one ONLY packet.  Their outcomes:
 *   - no receive WQE for a SEND / WRITE_WITH_IMM: RNR NAK, retried while
 *     rnr_retry lasts (IBA 9.7.5.2.8), then IBV_WC_RNR_RETRY_EXC_ERR;
 *   - any other refusal: the NAK's status at the requester, the consumed
 *     receive WQE's at the responder, both QPs to error (rxe:
 *     do_class_ac_error);
 *   - a QP in error flushes every outstanding WQE with IBV_WC_WR_FLUSH_ERR.
 * Completions are generated for signaled WQEs, and always for errors. */
#include "exec_data_int.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "resp_check.h"

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

/* The responder refuses the head WQE of (r, q) in state st (core/resp_check.h).
 * The side at fault completes first, as the root cause the run reports: the
 * responder's receive WQE for its own buffer or key, else the requester. */
static void refuse(struct dx *x, uint32_t r, uint32_t q, enum cc_resp_state st, uint32_t recv_op)
{
	const struct cc_qp *cqp = &x->s->ranks[r].qps[q];
	uint32_t pr = cqp->peer, pq = cqp->peer_qp;
	bool recv_first = st == CC_RESP_ERR_LENGTH || st == CC_RESP_ERR_MALFORMED_WQE;
	uint64_t recv_wr_id = recv_op == UINT32_MAX ? 0 : x->s->ranks[pr].ops[recv_op].u.recv.wr_id;

	if (recv_op != UINT32_MAX && recv_first)
		complete(x, pr, pq, recv_op, recv_wr_id, cc_resp_recv_wc(st), 1, 0, 0);
	fail_head(x, r, q, cc_nak_wc(cc_resp_nak(st)));
	if (recv_op != UINT32_MAX && !recv_first)
		complete(x, pr, pq, recv_op, recv_wr_id, cc_resp_recv_wc(st), 1, 0, 0);
	dx_qp_to_error(x, pr, pq);
}

/* Head WQE i of multicast QP q (core/schedule.h), its local side checked:
 * the NVSwitch checks the request against every member as a responder
 * checks an ONLY packet (core/resp_check.h: R_Key, access and bounds of MR
 * remote_mr; the key a member's own, as the multicast object is one
 * handle, with what a fault flips in it), then writes the payload at every
 * member, the sender included (multimem.st), or reads the range at every
 * member and reduces it, in rank order, into the local SGE
 * (multimem.ld_reduce).  A refusal fails the WQE with its NAK's status
 * and the QP goes to error; no member has a QP to fail.  False when the
 * WQE did not execute. */
static bool mcast_step(struct dx *x, uint32_t r, uint32_t q, uint32_t i, uint8_t *local,
		       const struct cc_mr *lmr)
{
	const struct cc_op_send *p = &x->s->ranks[r].ops[i].u.send;
	const struct cc_qp *cqp = &x->s->ranks[r].qps[q];
	uint32_t len = cc_wqe_len(p), first = cqp->peer, end = cqp->peer + cqp->group;
	struct cc_resp_found found;
	uint8_t *acc = NULL;

	for (uint32_t m = first; m < end; m++) {
		struct cc_resp_req req = { .opcode = p->opcode, .first = true, .len = len,
					   .rkey = x->rk[m].key[p->remote_mr] ^ x->rk[r].wqe_rkey[i],
					   .va = p->remote_offset };
		struct cc_resp_qp resp = { .rs = &x->s->ranks[m], .keys = x->rk[m].key };
		enum cc_resp_state st = cc_resp_check(&req, &resp, &found);

		if (st != CC_RESP_EXECUTE) {
			fail_head(x, r, q, cc_nak_wc(cc_resp_nak(st)));
			return false;
		}
	}
	if (!len)
		return true;
	if (p->opcode == CC_WR_RDMA_READ && !(acc = malloc(len))) {
		x->nomem = 1;
		return false;
	}
	for (uint32_t m = first; m < end; m++) {
		const struct cc_rank_sched *ms = &x->s->ranks[m];
		uint32_t buf = ms->mrs[p->remote_mr].buf;
		uint8_t *at = x->rk[m].mem[buf] + p->remote_offset;

		if (p->opcode == CC_WR_RDMA_WRITE) {
			memcpy(at, local, len);
			dx_mem_written(x, m, buf, p->remote_offset, len);
		} else if (m == first) {
			memcpy(acc, at, len);
		} else {
			cc_reduce(acc, acc, at, len / cc_dtype_size(p->dtype), p->dtype, p->redop);
		}
	}
	if (acc) {
		memcpy(local, acc, len);
		free(acc);
		dx_mem_written(x, r, lmr->buf, p->sge.offset, len);
	}
	return true;
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
	struct dx_qp *peer = &prk->qp[pq];
	uint32_t len = cc_wqe_len(p);
	uint8_t inline_buf[8];
	uint8_t *local = NULL;
	const struct cc_mr *lmr = NULL;
	int local_write = cc_opcode_rd_atomic(p->opcode);

	/* Requester: gather the local side (L_Key check, IBA 10.6.3.1). */
	if (p->flags & CC_SEND_INLINE) {
		cc_word_store(inline_buf, p->inline_value);
		local = inline_buf;
	} else if (p->num_sge) {
		lmr = find_mr(x, r, rk->wqe_lkey[i], p->sge.offset, len,
			      local_write ? CC_ACCESS_LOCAL_WRITE : 0);
		if (!lmr) {
			fail_head(x, r, q, CC_WC_LOC_PROT_ERR);
			return;
		}
		local = rk->mem[lmr->buf] + p->sge.offset;
	}
	if (cc_qp_mcast(cqp)) {
		/* The NVSwitch, not a peer QP, answers (its opcodes validated). */
		if (mcast_step(x, r, q, i, local, lmr))
			goto done;
		return;
	}
	if (peer->error) {
		/* The responder drops everything: the requester retries until
		 * retry_cnt is exhausted (IBA 9.7.6.1.3). */
		fail_head(x, r, q, CC_WC_RETRY_EXC_ERR);
		return;
	}
	if (p->opcode >= CC_OPCODE_COUNT) {
		fail_head(x, r, q, CC_WC_LOC_QP_OP_ERR);
		return;
	}

	/* Responder: the whole message is one ONLY packet to the checks. */
	bool takes_rwqe = !cc_opcode_remote(p->opcode) || p->opcode == CC_WR_RDMA_WRITE_WITH_IMM;
	uint32_t recv_op = takes_rwqe && peer->rq.head < peer->rq.tail ? peer->rq.op[peer->rq.head]
								      : UINT32_MAX;
	const struct cc_op_recv *rv = recv_op == UINT32_MAX ? NULL
				      : &x->s->ranks[pr].ops[recv_op].u.recv;
	struct cc_resp_req req = { .opcode = p->opcode, .first = true, .takes_rwqe = takes_rwqe,
				   .len = len, .rkey = rk->wqe_rkey[i], .va = p->remote_offset };
	struct cc_resp_qp resp = { .rs = &x->s->ranks[pr], .keys = prk->key, .recv = rv,
				   .recv_lkey = rv ? prk->wqe_lkey[recv_op] : 0 };
	struct cc_resp_found found;
	enum cc_resp_state st = cc_resp_check(&req, &resp, &found);

	if (st == CC_RESP_ERR_RNR) {
		qp->rnr_blocked = 1; /* until a receive is posted, or rnr_retry runs out */
		return;
	}
	if (rv)
		peer->rq.head++; /* consumed, whether executed or refused */
	if (st != CC_RESP_EXECUTE) {
		refuse(x, r, q, st, recv_op);
		return;
	}

	const struct cc_mr *rmr = found.mr;
	switch (p->opcode) {
	case CC_WR_SEND:
	case CC_WR_SEND_WITH_IMM:
		if (len) {
			memcpy(prk->mem[found.recv_mr->buf] + rv->sge.offset, local, len);
			dx_mem_written(x, pr, found.recv_mr->buf, rv->sge.offset, len);
		}
		complete(x, pr, pq, recv_op, rv->wr_id, CC_WC_SUCCESS, 1, len,
			 p->opcode == CC_WR_SEND_WITH_IMM ? p->imm : 0);
		break;
	case CC_WR_RDMA_WRITE:
	case CC_WR_RDMA_WRITE_WITH_IMM:
		if (len) {
			memcpy(prk->mem[rmr->buf] + p->remote_offset, local, len);
			dx_mem_written(x, pr, rmr->buf, p->remote_offset, len);
		}
		if (rv)
			complete(x, pr, pq, recv_op, rv->wr_id, CC_WC_SUCCESS, 1, len, p->imm);
		break;
	case CC_WR_RDMA_READ:
		if (len) {
			memcpy(local, prk->mem[rmr->buf] + p->remote_offset, len);
			dx_mem_written(x, r, lmr->buf, p->sge.offset, len);
		}
		break;
	default: { /* the atomics */
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
	}

done:
	qp->sq.head++;
	x->res->wire_msgs[r]++;
	if (p->payload == CC_PAYLOAD_DATA)
		x->res->data_bytes[r] += len;
	if (p->flags & CC_SEND_SIGNALED)
		complete(x, r, q, i, p->wr_id, CC_WC_SUCCESS, 0, len, 0);
}
