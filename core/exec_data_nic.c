/* SPDX-License-Identifier: BSD-3-Clause */
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

/* The members of rank r's multicast QP q that wait on their in-network
 * reduction look again: what they waited for (a receive WQE, a member's
 * error) may have come. */
void dx_innet_wake(struct dx *x, uint32_t r, uint32_t q)
{
	const struct cc_qp *cqp = &x->s->ranks[r].qps[q];

	for (uint32_t j = 0; j < cqp->group; j++) {
		uint32_t m = cc_qp_member(cqp, j);
		struct dx_qp *mq = &x->rk[m].qp[q];

		if (mq->innet_wait) {
			mq->innet_wait = 0;
			dx_activate_qp(x, m, q);
		}
	}
}

void dx_qp_to_error(struct dx *x, uint32_t r, uint32_t q)
{
	const struct cc_rank_sched *rs = &x->s->ranks[r];
	struct dx_qp *qp = &x->rk[r].qp[q];
	qp->error = 1;
	qp->rnr_blocked = 0;
	qp->innet_wait = 0;
	for (; qp->sq.head < qp->sq.tail; qp->sq.head++) {
		uint32_t op = qp->sq.op[qp->sq.head];
		complete(x, r, q, op, rs->ops[op].u.send.wr_id, CC_WC_WR_FLUSH_ERR, 0, 0, 0);
	}
	qp->rung = qp->sq.tail;
	for (; qp->rq.head < qp->rq.tail; qp->rq.head++) {
		uint32_t op = qp->rq.op[qp->rq.head];
		complete(x, r, q, op, rs->ops[op].u.recv.wr_id, CC_WC_WR_FLUSH_ERR, 1, 0, 0);
	}
	if (cc_qp_mcast(&rs->qps[q]))
		dx_innet_wake(x, r, q); /* its group's operation can no longer happen */
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
	uint32_t len = cc_wqe_len(p), first = cqp->peer;
	struct cc_resp_found found;
	uint8_t *acc = NULL;

	for (uint32_t j = 0; j < cqp->group; j++) {
		uint32_t m = cc_qp_member(cqp, j);
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
	for (uint32_t j = 0; j < cqp->group; j++) {
		uint32_t m = cc_qp_member(cqp, j);
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

/* The head WQE of member m's QP q: a SEND on it, its L_Key's MR (NULL:
 * refused), its bytes in memory. */
static const struct cc_op_send *innet_send(struct dx *x, uint32_t m, uint32_t q,
					   const struct cc_mr **lmr, uint8_t **local)
{
	const struct dx_qp *mq = &x->rk[m].qp[q];
	uint32_t i = mq->sq.op[mq->sq.head];
	const struct cc_op_send *p = &x->s->ranks[m].ops[i].u.send;

	*lmr = find_mr(x, m, x->rk[m].wqe_lkey[i], p->sge.offset, cc_wqe_len(p), 0);
	*local = *lmr ? x->rk[m].mem[(*lmr)->buf] + p->sge.offset : NULL;
	return p;
}

/* Whether member m's QP q is ready for its part of an in-network
 * reduction: a SEND rung at the head of its send queue, a receive WQE for
 * the result. */
static bool innet_ready(const struct dx *x, uint32_t m, uint32_t q)
{
	const struct dx_qp *mq = &x->rk[m].qp[q];

	return mq->sq.head < mq->rung && mq->rq.head < mq->rq.tail &&
	       x->s->ranks[m].ops[mq->sq.op[mq->sq.head]].u.send.opcode == CC_WR_SEND;
}

/* Delivers the result `acc` (len bytes) of an in-network reduction to
 * member m: its SEND and its receive WQE retire, as a SEND's would; the
 * receive WQE is checked as a responder checks one (core/resp_check.h),
 * and a refused one completes in error and takes its QP to error. */
static void innet_deliver(struct dx *x, uint32_t m, uint32_t q, const uint8_t *acc, uint32_t len)
{
	struct dx_rank *mk = &x->rk[m];
	struct dx_qp *mq = &mk->qp[q];
	const struct cc_rank_sched *ms = &x->s->ranks[m];
	uint32_t i = mq->sq.op[mq->sq.head++], recv_op = mq->rq.op[mq->rq.head++];
	const struct cc_op_send *p = &ms->ops[i].u.send;
	const struct cc_op_recv *rv = &ms->ops[recv_op].u.recv;
	struct cc_resp_req req = { .opcode = CC_WR_SEND, .first = true, .takes_rwqe = true,
				   .len = len };
	struct cc_resp_qp resp = { .rs = ms, .keys = mk->key, .recv = rv,
				   .recv_lkey = mk->wqe_lkey[recv_op] };
	struct cc_resp_found found;
	enum cc_resp_state st = cc_resp_check(&req, &resp, &found);

	mq->innet_wait = 0;
	x->res->wire_msgs[m]++;
	if (p->payload == CC_PAYLOAD_DATA)
		x->res->data_bytes[m] += len;
	if (p->flags & CC_SEND_SIGNALED)
		complete(x, m, q, i, p->wr_id, CC_WC_SUCCESS, 0, len, 0);
	if (st != CC_RESP_EXECUTE) {
		complete(x, m, q, recv_op, rv->wr_id, cc_resp_recv_wc(st), 1, 0, 0);
		dx_qp_to_error(x, m, q);
		return;
	}
	if (len) {
		memcpy(mk->mem[found.recv_mr->buf] + rv->sge.offset, acc, len);
		dx_mem_written(x, m, found.recv_mr->buf, rv->sge.offset, len);
	}
	complete(x, m, q, recv_op, rv->wr_id, CC_WC_SUCCESS, 1, len, 0);
	dx_activate_qp(x, m, q);
}

/* The head WQE of rank r's multicast QP q is a SEND to an in-network
 * reduction (core/schedule.h): the switches reduce the j-th SEND of every
 * member, so it waits (innet_wait) until every member's QP q is ready
 * (innet_ready()); the member that completes the set carries the
 * operation out for all of them, as the switches would:
 *   - a member whose QP is in error never contributes: the others' SENDs
 *     go unanswered (IBV_WC_RETRY_EXC_ERR);
 *   - each member's L_Key (IBA 10.6.3.1): a bad one fails that member
 *     (IBV_WC_LOC_PROT_ERR), and so the rest;
 *   - SENDs of different lengths, types or operations: the switch rejects
 *     the operation, every member's SEND IBV_WC_REM_INV_REQ_ERR;
 *   - the reduction, in member order, to every member's receive WQE
 *     (innet_deliver()). */
static void innet_step(struct dx *x, uint32_t r, uint32_t q)
{
	const struct cc_qp *cqp = &x->s->ranks[r].qps[q];
	const struct cc_op_send *p0 = NULL;
	const struct cc_mr *lmr;
	uint8_t *local, *acc = NULL;
	uint32_t len = 0;

	for (uint32_t j = 0; j < cqp->group; j++) {
		uint32_t m = cc_qp_member(cqp, j);

		if (x->rk[m].qp[q].error) {
			fail_head(x, r, q, CC_WC_RETRY_EXC_ERR);
			return;
		}
		if (!innet_ready(x, m, q)) {
			x->rk[r].qp[q].innet_wait = 1;
			return;
		}
	}
	for (uint32_t j = 0; j < cqp->group; j++) {
		uint32_t m = cc_qp_member(cqp, j);
		const struct cc_op_send *p = innet_send(x, m, q, &lmr, &local);

		if (!lmr) {
			fail_head(x, m, q, CC_WC_LOC_PROT_ERR);
			return;
		}
		if (!p0) {
			p0 = p;
			len = cc_wqe_len(p);
		} else if (cc_wqe_len(p) != len || p->dtype != p0->dtype || p->redop != p0->redop) {
			for (uint32_t k = 0; k < cqp->group; k++)
				if (!x->rk[cc_qp_member(cqp, k)].qp[q].error)
					fail_head(x, cc_qp_member(cqp, k), q, CC_WC_REM_INV_REQ_ERR);
			return;
		}
	}
	if (len && !(acc = malloc(len))) {
		x->nomem = 1;
		return;
	}
	for (uint32_t j = 0; len && j < cqp->group; j++) {
		innet_send(x, cc_qp_member(cqp, j), q, &lmr, &local);
		if (j)
			cc_reduce(acc, acc, local, len / cc_dtype_size(p0->dtype), p0->dtype,
				  p0->redop);
		else
			memcpy(acc, local, len);
	}
	for (uint32_t j = 0; j < cqp->group; j++)
		innet_deliver(x, cc_qp_member(cqp, j), q, acc, len);
	free(acc);
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

	if (cc_qp_mcast(cqp) && p->opcode == CC_WR_SEND) {
		innet_step(x, r, q);
		return;
	}
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
