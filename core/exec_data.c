/* SPDX-License-Identifier: BSD-3-Clause */
/* core/exec_data.c — the data executor: host side and scheduler.
 *
 * Entities are ranks (their host/GPU ops) and QPs (their send queues, run by
 * exec_data_nic.c).  Each step picks one active entity at random (seeded) and
 * lets it do one thing, so every interleaving that the verbs ordering rules
 * allow can happen: WQEs of one QP run in order; different QPs, ranks, and
 * ops of one rank whose dependencies are met, in any order. */
#include "exec_data_int.h"
#include "check_io.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"

const char *cc_wc_status_name(enum cc_wc_status s)
{
	switch (s) {
	case CC_WC_SUCCESS: return "IBV_WC_SUCCESS";
	case CC_WC_LOC_LEN_ERR: return "IBV_WC_LOC_LEN_ERR";
	case CC_WC_LOC_QP_OP_ERR: return "IBV_WC_LOC_QP_OP_ERR";
	case CC_WC_LOC_PROT_ERR: return "IBV_WC_LOC_PROT_ERR";
	case CC_WC_WR_FLUSH_ERR: return "IBV_WC_WR_FLUSH_ERR";
	case CC_WC_REM_INV_REQ_ERR: return "IBV_WC_REM_INV_REQ_ERR";
	case CC_WC_REM_ACCESS_ERR: return "IBV_WC_REM_ACCESS_ERR";
	case CC_WC_REM_OP_ERR: return "IBV_WC_REM_OP_ERR";
	case CC_WC_RETRY_EXC_ERR: return "IBV_WC_RETRY_EXC_ERR";
	case CC_WC_RNR_RETRY_EXC_ERR: return "IBV_WC_RNR_RETRY_EXC_ERR";
	}
	return "IBV_WC_?";
}

/* splitmix64: small, good enough to shuffle an interleaving. */
uint64_t dx_rand(struct dx *x)
{
	uint64_t z = (x->rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void activate(struct dx *x, uint32_t id)
{
	x->active[x->nactive++] = id;
}

void dx_activate_rank(struct dx *x, uint32_t r)
{
	if (!x->rk[r].active && x->rk[r].nready) {
		x->rk[r].active = 1;
		activate(x, r);
	}
}

void dx_activate_qp(struct dx *x, uint32_t r, uint32_t q)
{
	struct dx_qp *qp = &x->rk[r].qp[q];
	if (!qp->active && !qp->rnr_blocked && !qp->innet_wait && qp->sq.head < qp->rung) {
		qp->active = 1;
		activate(x, x->s->nranks + x->qp_base[r] + q);
	}
}

void dx_set_error(struct dx *x, enum cc_run_status st, enum cc_wc_status wc, uint32_t r,
		  uint32_t qp, uint32_t op, const char *what)
{
	struct cc_run_error *e = &x->res->err;
	if (e->status != CC_RUN_OK)
		return; /* keep the first */
	const struct cc_op *o = &x->s->ranks[r].ops[op];
	uint64_t wr_id = cc_op_wr_id(o);
	e->status = st;
	e->wc = wc;
	e->rank = r;
	e->qp = qp;
	e->op = op;
	e->wr_id = wr_id;
	snprintf(e->msg, sizeof(e->msg), "rank %u qp %u op %u (%s) wr_id %" PRIu64 ": %s", r, qp,
		 op, cc_op_kind_name[o->kind], wr_id, what);
}

/* ---- completion queues ---- */

void dx_push_cqe(struct dx *x, uint32_t r, uint32_t c, const struct dx_cqe *e)
{
	struct dx_rank *rk = &x->rk[r];
	struct dx_cq *cq = &rk->cq[c];
	if (cc_grow(&cq->e, &cq->cap, (uint64_t)cq->n + 1, sizeof(*cq->e))) {
		x->nomem = 1;
		return;
	}
	cq->e[cq->n++] = *e;
	/* Remember the root cause: the first error that is not a flush. */
	if (e->status != CC_WC_SUCCESS &&
	    (!x->have_err || (x->first_err.status == CC_WC_WR_FLUSH_ERR &&
			      e->status != CC_WC_WR_FLUSH_ERR))) {
		x->have_err = 1;
		x->first_err = *e;
		x->first_err_rank = r;
	}
	if (e->status == CC_WC_SUCCESS && cq->n > x->s->ranks[r].cqs[c].depth) {
		/* A real CQ overruns: IBV_EVENT_CQ_ERR, and the QPs on it fail. */
		dx_set_error(x, CC_RUN_POST_ERROR, CC_WC_SUCCESS, r, e->qp, e->op,
			     "completion queue overrun (more CQEs than its depth)");
	}
	/* Wake the poll_cq waiting for this wr_id, if it is parked. */
	for (uint32_t i = 0; i < rk->nparked; i++) {
		const struct cc_op *o = &x->s->ranks[r].ops[rk->parked[i]];
		if (o->kind == CC_OP_POLL_CQ && o->u.poll.cq == c && o->u.poll.wr_id == e->wr_id) {
			rk->ready[rk->nready++] = rk->parked[i];
			rk->parked[i] = rk->parked[--rk->nparked];
			dx_activate_rank(x, r);
			break;
		}
	}
}

/* A remote write landed in [off, off+len) of buffer `buf` of rank r:
 * re-check the memory waits on words it touched. */
void dx_mem_written(struct dx *x, uint32_t r, uint32_t buf, uint64_t off, uint64_t len)
{
	struct dx_rank *rk = &x->rk[r];
	for (uint32_t i = 0; i < rk->nparked;) {
		const struct cc_op *o = &x->s->ranks[r].ops[rk->parked[i]];
		if (o->kind == CC_OP_WAIT_MEM && o->u.wait.buf == buf &&
		    o->u.wait.offset < off + len && off < o->u.wait.offset + 8) {
			rk->ready[rk->nready++] = rk->parked[i];
			rk->parked[i] = rk->parked[--rk->nparked];
			continue;
		}
		i++;
	}
	dx_activate_rank(x, r);
}

/* ---- host ops ---- */

/* Queues are append-only arrays of posting-op indices: a WQE's position is
 * absolute for the whole run, so doorbells and heads never need rebasing. */
static int queue_push(struct dx *x, struct dx_queue *q, uint32_t op)
{
	if (cc_grow(&q->op, &q->cap, (uint64_t)q->tail + 1, sizeof(*q->op))) {
		x->nomem = 1;
		return -1;
	}
	q->op[q->tail++] = op;
	return 0;
}

static void post_recv(struct dx *x, uint32_t r, uint32_t i)
{
	const struct cc_rank_sched *rs = &x->s->ranks[r];
	const struct cc_op_recv *p = &rs->ops[i].u.recv;
	struct dx_qp *qp = &x->rk[r].qp[p->qp];

	if (cc_fault_on(x->o->faults, x->o->nfaults, CC_FAULT_NO_RECV, r, i))
		return;
	/* A receive WQE's slot is free once its completion is reaped (mlx5
	 * advances the RQ tail in poll_cq), not when the NIC consumes it. */
	if (qp->rq_posted - qp->rq_retired >= rs->qps[p->qp].max_recv_wr) {
		dx_set_error(x, CC_RUN_POST_ERROR, CC_WC_SUCCESS, r, p->qp, i,
			     "ibv_post_recv: receive queue full (ENOMEM)");
		return;
	}
	x->rk[r].wqe_lkey[i] = (p->num_sge ? x->rk[r].key[p->sge.mr] : 0) ^
			       cc_fault_key_flip(x->o->faults, x->o->nfaults, CC_FAULT_LKEY, r, i);
	if (qp->error) {
		/* Posting to a QP in the error state completes with a flush
		 * (IBA 10.3.1 / ibv_post_recv(3)). */
		struct dx_cqe c = { p->wr_id, CC_WC_WR_FLUSH_ERR, p->qp, i, 0, 0, 1 };
		dx_push_cqe(x, r, rs->qps[p->qp].recv_cq, &c);
		return;
	}
	if (queue_push(x, &qp->rq, i))
		return;
	qp->rq_posted++;
	const struct cc_qp *cq = &rs->qps[p->qp];
	if (cc_qp_mcast(cq)) {
		/* an in-network reduction may have waited for this receive */
		dx_innet_wake(x, r, p->qp);
		return;
	}
	/* The peer's send may have been waiting for exactly this (RNR). */
	struct dx_qp *peer = &x->rk[cq->peer].qp[cq->peer_qp];
	if (peer->rnr_blocked) {
		peer->rnr_blocked = 0;
		dx_activate_qp(x, cq->peer, cq->peer_qp);
	}
}

static void post_send(struct dx *x, uint32_t r, uint32_t i)
{
	const struct cc_rank_sched *rs = &x->s->ranks[r];
	const struct cc_op_send *p = &rs->ops[i].u.send;
	const struct cc_qp *cqp = &rs->qps[p->qp];
	struct dx_rank *rk = &x->rk[r];
	struct dx_qp *qp = &rk->qp[p->qp];

	if (qp->sq_posted - qp->sq_retired >= cqp->max_send_wr) {
		dx_set_error(x, CC_RUN_POST_ERROR, CC_WC_SUCCESS, r, p->qp, i,
			     "ibv_post_send: send queue full (ENOMEM): unsignaled WQEs are freed only "
			     "by a later signaled completion");
		return;
	}
	/* The schedule's inline payload is one 8-byte word (inline_value). */
	if ((p->flags & CC_SEND_INLINE) &&
	    (p->sge.length > cqp->max_inline || p->sge.length > sizeof(p->inline_value))) {
		dx_set_error(x, CC_RUN_POST_ERROR, CC_WC_SUCCESS, r, p->qp, i,
			     "ibv_post_send: inline payload larger than max_inline_data (EINVAL)");
		return;
	}
	rk->wqe_lkey[i] = (cc_send_local_sge(p) ? rk->key[p->sge.mr] : 0) ^
			  cc_fault_key_flip(x->o->faults, x->o->nfaults, CC_FAULT_LKEY, r, i);
	/* A multicast QP presents each member's key of MR remote_mr (one
	 * multicast object): what is kept is what a fault flips in them. */
	rk->wqe_rkey[i] = (cc_opcode_remote(p->opcode) && !cc_qp_mcast(cqp)
				   ? x->rk[cqp->peer].key[p->remote_mr] : 0) ^
			  cc_fault_key_flip(x->o->faults, x->o->nfaults, CC_FAULT_RKEY, r, i);
	if (qp->error) {
		struct dx_cqe c = { p->wr_id, CC_WC_WR_FLUSH_ERR, p->qp, i, 0, 0, 0 };
		dx_push_cqe(x, r, cqp->send_cq, &c);
		return;
	}
	rk->sq_seq[i] = qp->sq_posted++;
	queue_push(x, &qp->sq, i);
}

static void doorbell(struct dx *x, uint32_t r, uint32_t i)
{
	const struct cc_op_doorbell *d = &x->s->ranks[r].ops[i].u.doorbell;
	struct dx_qp *qp = &x->rk[r].qp[d->qp];
	uint32_t unrung = qp->sq.tail - qp->rung;
	/* A doorbell hands over what was posted; it cannot cover more. */
	qp->rung += d->nwqe < unrung ? d->nwqe : unrung;
	dx_activate_qp(x, r, d->qp);
}

/* The first error completion any QP generated: the root cause. */
static void report_first_error(struct dx *x)
{
	char what[96];
	snprintf(what, sizeof(what), "completed with %s", cc_wc_status_name(x->first_err.status));
	dx_set_error(x, CC_RUN_COMPLETION_ERROR, x->first_err.status, x->first_err_rank,
		     x->first_err.qp, x->first_err.op, what);
}

/* Returns 1 when the completion was there and has been reaped. */
static int poll_cq(struct dx *x, uint32_t r, uint32_t i)
{
	const struct cc_op_poll *p = &x->s->ranks[r].ops[i].u.poll;
	struct dx_rank *rk = &x->rk[r];
	struct dx_cq *cq = &rk->cq[p->cq];

	for (uint32_t j = 0; j < cq->n; j++) {
		if (cq->e[j].wr_id != p->wr_id)
			continue;
		struct dx_cqe c = cq->e[j];
		memmove(&cq->e[j], &cq->e[j + 1], (cq->n - j - 1) * sizeof(c));
		cq->n--;
		if (c.status != CC_WC_SUCCESS) {
			/* Reaping any error ends the run; what it reports is the
			 * root cause: the first error, not a flush, that any QP
			 * generated (this one, or what led to it). */
			report_first_error(x);
		} else if (c.is_recv) {
			rk->qp[c.qp].rq_retired++;
		} else {
			/* Reaping a signaled send completion frees its WQE and
			 * every unsignaled one before it on that SQ. */
			struct dx_qp *qp = &rk->qp[c.qp];
			uint64_t upto = rk->sq_seq[c.op] + 1;
			if (upto > qp->sq_retired)
				qp->sq_retired = upto;
		}
		return 1;
	}
	return 0;
}

static int wait_mem(struct dx *x, uint32_t r, uint32_t i)
{
	const struct cc_op_wait *w = &x->s->ranks[r].ops[i].u.wait;
	return cc_word_load(x->rk[r].mem[w->buf] + w->offset) >= w->value;
}

static void calc(struct dx *x, uint32_t r, uint32_t i)
{
	const struct cc_op *o = &x->s->ranks[r].ops[i];

	/* Every line was written by one atomic WRITE here: a source not all
	 * there means the schedule reads before it waits. */
	if (cc_exec_calc_host(o, x->rk[r].mem)) {
		dx_set_error(x, CC_RUN_EARLY_READ, CC_WC_SUCCESS, r, 0, i,
			     "reads lines whose flags are not all there yet");
		return;
	}
	/* A wait_mem may watch what this op wrote. */
	for (int j = 0; j < o->u.calc.ndst; j++)
		dx_mem_written(x, r, o->u.calc.dst[j].buf, o->u.calc.dst[j].offset,
			       cc_calc_operand_bytes(&o->u.calc, 1, j));
}

static void op_done(struct dx *x, uint32_t r, uint32_t i)
{
	struct dx_rank *rk = &x->rk[r];
	rk->done[i] = 1;
	rk->ndone++;
	for (uint32_t u = rk->users_first[i]; u < rk->users_first[i + 1]; u++) {
		uint32_t d = rk->users[u];
		if (--rk->deps_left[d] == 0)
			rk->ready[rk->nready++] = d;
	}
}

/* Runs one ready op of rank r, chosen at random among the ready ones. */
static void rank_step(struct dx *x, uint32_t r)
{
	struct dx_rank *rk = &x->rk[r];
	uint32_t pick = (uint32_t)(dx_rand(x) % rk->nready);
	uint32_t i = rk->ready[pick];
	rk->ready[pick] = rk->ready[--rk->nready];
	const struct cc_op *o = &x->s->ranks[r].ops[i];

	switch (o->kind) {
	case CC_OP_POST_RECV:
		post_recv(x, r, i);
		break;
	case CC_OP_POST_SEND:
		post_send(x, r, i);
		break;
	case CC_OP_DOORBELL:
		doorbell(x, r, i);
		break;
	case CC_OP_POLL_CQ:
		if (!poll_cq(x, r, i)) {
			rk->parked[rk->nparked++] = i;
			return;
		}
		break;
	case CC_OP_WAIT_MEM:
		if (!wait_mem(x, r, i)) {
			rk->parked[rk->nparked++] = i;
			return;
		}
		break;
	case CC_OP_REDUCE:
	case CC_OP_COPY:
		calc(x, r, i);
		break;
	default:
		cc_exec_bad_kind("data", r, i, (int)o->kind);
	}
	op_done(x, r, i);
}

/* Nothing can move.  An RNR-blocked WQE whose retries are finite now runs
 * out of them (IBA 9.7.5.2.8: rnr_retry = 7 means forever).  Returns 1 if
 * that changed something. */
static int quiesce(struct dx *x)
{
	for (uint32_t r = 0; r < x->s->nranks; r++)
		for (uint32_t q = 0; q < x->s->ranks[r].nqps; q++)
			if (x->rk[r].qp[q].rnr_blocked && x->s->ranks[r].qps[q].rnr_retry < 7) {
				dx_rnr_expire(x, r, q);
				return 1;
			}
	return 0;
}

static void report_stuck(struct dx *x)
{
	if (x->have_err) {
		report_first_error(x);
		return;
	}
	for (uint32_t r = 0; r < x->s->nranks; r++) {
		const struct cc_rank_sched *rs = &x->s->ranks[r];
		for (uint32_t q = 0; q < rs->nqps; q++)
			if (x->rk[r].qp[q].rnr_blocked) {
				dx_set_error(x, CC_RUN_DEADLOCK, CC_WC_SUCCESS, r, q,
					     x->rk[r].qp[q].sq.op[x->rk[r].qp[q].sq.head],
					     "waits forever for a receive WQE (RNR, rnr_retry = 7)");
				return;
			}
		for (uint32_t q = 0; q < rs->nqps; q++)
			if (x->rk[r].qp[q].innet_wait) {
				dx_set_error(x, CC_RUN_DEADLOCK, CC_WC_SUCCESS, r, q,
					     x->rk[r].qp[q].sq.op[x->rk[r].qp[q].sq.head],
					     "deadlock: an in-network reduction waits for a member's "
					     "SEND or receive WQE that never comes");
				return;
			}
		if (x->rk[r].nparked) {
			dx_set_error(x, CC_RUN_DEADLOCK, CC_WC_SUCCESS, r, 0, x->rk[r].parked[0],
				     "deadlock: waits for a completion or flag that never comes");
			return;
		}
		if (x->rk[r].ndone < rs->nops) {
			uint32_t i = 0;
			while (x->rk[r].done[i])
				i++;
			dx_set_error(x, CC_RUN_DEADLOCK, CC_WC_SUCCESS, r, 0, i,
				     "deadlock: dependencies never complete");
			return;
		}
	}
}

static void run(struct dx *x)
{
	uint32_t nranks = x->s->nranks;
	for (uint32_t r = 0; r < nranks; r++)
		dx_activate_rank(x, r);
	for (;;) {
		while (x->nactive && x->res->err.status == CC_RUN_OK && !x->nomem) {
			uint32_t pick = (uint32_t)(dx_rand(x) % x->nactive);
			uint32_t id = x->active[pick];
			if (id < nranks) {
				rank_step(x, id);
				if (!x->rk[id].nready) {
					x->rk[id].active = 0;
					x->active[pick] = x->active[--x->nactive];
				}
			} else {
				uint32_t r = x->qp_rank[id - nranks];
				uint32_t q = id - nranks - x->qp_base[r];
				struct dx_qp *qp = &x->rk[r].qp[q];
				/* A peer's error may have flushed this QP (or RNR
				 * blocked it) since it was activated. */
				if (!qp->rnr_blocked && !qp->innet_wait && !qp->error &&
				    qp->sq.head < qp->rung)
					dx_nic_step(x, r, q);
				if (qp->rnr_blocked || qp->innet_wait || qp->error ||
				    qp->sq.head >= qp->rung) {
					/* Appends made meanwhile leave `pick` in place. */
					qp->active = 0;
					x->active[pick] = x->active[--x->nactive];
				}
			}
		}
		if (x->res->err.status != CC_RUN_OK || x->nomem || !quiesce(x))
			break;
	}
	if (x->res->err.status != CC_RUN_OK || x->nomem)
		return;
	uint32_t r;
	for (r = 0; r < nranks; r++)
		if (x->rk[r].ndone < x->s->ranks[r].nops)
			break;
	if (r < nranks || x->have_err)
		report_stuck(x);
}

/* ---- setup and checking ---- */

static int setup_rank(struct dx *x, uint32_t r)
{
	const struct cc_rank_sched *rs = &x->s->ranks[r];
	struct dx_rank *rk = &x->rk[r];
	uint32_t n = rs->nops;

	rk->mem = calloc(rs->nbufs + 1, sizeof(*rk->mem));
	rk->key = calloc(rs->nmrs + 1, sizeof(*rk->key));
	rk->deps_left = calloc(n + 1, sizeof(uint32_t));
	rk->users_first = calloc(n + 2, sizeof(uint32_t));
	rk->users = calloc(rs->ndeps + 1, sizeof(uint32_t));
	rk->done = calloc(n + 1, 1);
	rk->sq_seq = calloc(n + 1, sizeof(uint64_t));
	rk->wqe_lkey = calloc(n + 1, sizeof(uint32_t));
	rk->wqe_rkey = calloc(n + 1, sizeof(uint32_t));
	rk->ready = calloc(n + 1, sizeof(uint32_t));
	rk->parked = calloc(n + 1, sizeof(uint32_t));
	rk->qp = calloc(rs->nqps + 1, sizeof(*rk->qp));
	rk->cq = calloc(rs->ncqs + 1, sizeof(*rk->cq));
	if (!rk->mem || !rk->key || !rk->deps_left || !rk->users_first || !rk->users ||
	    !rk->done || !rk->sq_seq || !rk->wqe_lkey || !rk->wqe_rkey || !rk->ready ||
	    !rk->parked || !rk->qp || !rk->cq)
		return -ENOMEM;
	for (uint32_t b = 0; b < rs->nbufs; b++) {
		/* calloc: untouched staging pages cost no memory. */
		rk->mem[b] = calloc(rs->bufs[b].size ? rs->bufs[b].size : 1, 1);
		if (!rk->mem[b])
			return -ENOMEM;
	}
	cc_exec_keys(rs, r, x->o->seed, rk->key);
	cc_exec_users(rs, rk->deps_left, rk->users_first, rk->users);
	for (uint32_t i = 0; i < n; i++)
		if (!rk->deps_left[i])
			rk->ready[rk->nready++] = i;
	return 0;
}

static void free_rank(const struct cc_rank_sched *rs, struct dx_rank *rk)
{
	if (rk->mem)
		for (uint32_t b = 0; b < rs->nbufs; b++)
			free(rk->mem[b]);
	if (rk->qp)
		for (uint32_t q = 0; q < rs->nqps; q++) {
			free(rk->qp[q].sq.op);
			free(rk->qp[q].rq.op);
		}
	if (rk->cq)
		for (uint32_t c = 0; c < rs->ncqs; c++)
			free(rk->cq[c].e);
	free(rk->mem);
	free(rk->key);
	free(rk->deps_left);
	free(rk->users_first);
	free(rk->users);
	free(rk->done);
	free(rk->sq_seq);
	free(rk->wqe_lkey);
	free(rk->wqe_rkey);
	free(rk->ready);
	free(rk->parked);
	free(rk->qp);
	free(rk->cq);
}

/* Inputs, poisoned outputs and the reference (core/check_io.h). */
static int prepare_io(struct dx *x, uint8_t ***in, uint8_t ***out)
{
	*in = calloc(x->s->nranks, sizeof(**in));
	*out = calloc(x->s->nranks, sizeof(**out));
	if (!*in || !*out)
		return -ENOMEM;
	/* Buffers 0 and 1 are a collective's input and output; a schedule
	 * of no collective (count 0, hand-built) may have fewer. */
	for (uint32_t r = 0; r < x->s->nranks; r++) {
		(*in)[r] = x->s->ranks[r].nbufs > 0 ? x->rk[r].mem[0] : NULL;
		(*out)[r] = x->s->ranks[r].nbufs > 1 ? x->rk[r].mem[1] : NULL;
	}
	cc_check_io_fill(&x->io, x->o->seed, *in, *out);
	return 0;
}

int cc_data_run(const struct cc_schedule *s, const struct cc_data_opts *o,
		struct cc_data_result *res)
{
	struct dx x = { .s = s, .o = o, .res = res, .rng = o->order_seed };
	uint8_t **in = NULL, **out = NULL;
	uint32_t nqps = 0;
	int rc = -ENOMEM;

	memset(res, 0, sizeof(*res));
	if (cc_check_io_too_big(s, true, 0))
		return -E2BIG;
	res->nranks = s->nranks;
	res->data_bytes = calloc(s->nranks, sizeof(uint64_t));
	res->wire_msgs = calloc(s->nranks, sizeof(uint64_t));
	res->ops_done = calloc(s->nranks, sizeof(uint64_t));
	x.rk = calloc(s->nranks, sizeof(*x.rk));
	x.qp_base = calloc(s->nranks, sizeof(uint32_t));
	if (!res->data_bytes || !res->wire_msgs || !res->ops_done || !x.rk || !x.qp_base)
		goto out;
	for (uint32_t r = 0; r < s->nranks; r++) {
		x.qp_base[r] = nqps;
		nqps += s->ranks[r].nqps;
	}
	x.active = calloc(s->nranks + nqps, sizeof(uint32_t));
	x.qp_rank = calloc(nqps + 1, sizeof(uint32_t));
	if (!x.qp_rank)
		goto out;
	for (uint32_t r = 0; r < s->nranks; r++)
		for (uint32_t q = 0; q < s->ranks[r].nqps; q++)
			x.qp_rank[x.qp_base[r] + q] = r;
	if (!x.active || cc_check_io_init(&x.io, s))
		goto out;
	for (uint32_t r = 0; r < s->nranks; r++)
		if (setup_rank(&x, r))
			goto out;
	if (prepare_io(&x, &in, &out))
		goto out;
	run(&x);
	if (x.nomem)
		goto out;
	res->wrong = cc_check_io_wrong(&x.io, out);
	for (uint32_t r = 0; r < s->nranks; r++) {
		res->ops_done[r] = x.rk[r].ndone;
		if (o->inspect)
			o->inspect(o->inspect_ctx, r, x.rk[r].mem);
	}
	rc = 0;
out:
	for (uint32_t r = 0; x.rk && r < s->nranks; r++)
		free_rank(&s->ranks[r], &x.rk[r]);
	free(x.rk);
	free(x.qp_base);
	free(x.active);
	free(x.qp_rank);
	free(in);
	free(out);
	cc_check_io_free(&x.io);
	if (rc)
		cc_data_result_free(res);
	return rc;
}

void cc_data_result_free(struct cc_data_result *res)
{
	free(res->data_bytes);
	free(res->wire_msgs);
	free(res->ops_done);
	res->data_bytes = res->wire_msgs = res->ops_done = NULL;
}

/* ---- the data executor as core/exec.h's descriptor ---- */

static int data_run(const struct cc_schedule *s, const struct cc_exec_common *c, const void *ctx,
		    void *res, char *err, size_t errlen)
{
	struct cc_data_opts o = ctx ? *(const struct cc_data_opts *)ctx : (struct cc_data_opts){0};
	int rc;

	if ((rc = cc_schedule_whole(s, "data", err, errlen)))
		return rc;
	o.seed = c->seed;
	o.order_seed = c->order_seed;
	o.faults = c->faults;
	o.nfaults = c->nfaults;
	rc = cc_data_run(s, &o, res);
	if (rc)
		snprintf(err, errlen, "%s", rc == -E2BIG ? "the buffers would not fit in this "
			 "machine's memory" : strerror(-rc));
	return rc;
}

static const struct cc_run_error *data_error(const void *res)
{
	return &((const struct cc_data_result *)res)->err;
}

static uint64_t data_wrong(const void *res)
{
	return ((const struct cc_data_result *)res)->wrong;
}

static double no_time(const void *res)
{
	(void)res;
	return NAN;
}

static void data_free(void *res)
{
	cc_data_result_free(res);
}

const struct cc_executor_ops cc_data_executor = {
	.id = CC_EXEC_DATA,
	.caps = CC_EXEC_CAP_DATA,
	.result_size = sizeof(struct cc_data_result),
	.run = data_run,
	.error = data_error,
	.wrong = data_wrong,
	.time_us = no_time,
	.result_free = data_free,
};
