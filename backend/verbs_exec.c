/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/verbs_exec.c — running a rank's ops on real verbs: iterations,
 * posting, doorbells, completions, flags, reductions, and the error and
 * stall reports (verbs_exec.h says the order of things and why). */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>

#include "backend/bootstrap_msg.h"
#include "backend/verbs_int.h"
#include "core/dtype.h"
#include "core/exec_common.h"
#include "core/reference.h"

/* ---- the trace: same events as the simulator, on this rank's clock ---- */

static void trace(struct vx *x, enum cc_trace_kind k, enum cc_trace_track track, uint32_t qp,
		  uint32_t op, uint64_t t_ns, uint64_t dur_ns, uint64_t bytes)
{
	if (!x->tracing)
		return;
	const struct cc_op *o = op < x->rs->nops ? &x->rs->ops[op] : NULL;
	struct cc_trace_event e = {
		.t_ps = (t_ns > x->t0_ns ? t_ns - x->t0_ns : 0) * 1000,
		.dur_ps = dur_ns * 1000, .kind = k, .rank = x->rank, .track = track,
		.qp = qp, .wr_id = o ? cc_op_wr_id(o) : 0, .bytes = bytes,
	};
	cc_trace_set_op(&e, o, op);
	if (o)
		e.tag = o->tag;
	cc_trace_append(x->o->trace, &e);
}

/* The clock, read only when the trace wants it: in the timed iterations
 * that are not traced every read is time the measurement itself adds. */
static uint64_t stamp(const struct vx *x)
{
	return x->tracing ? vx_now_ns() : 0;
}

/* ---- errors ---- */

/* "op 37 (post_send RDMA_WRITE_WITH_IMM, recvReduceSend chunk 3 step 2)" */
static void describe_op(const struct vx *x, uint32_t i, char *buf, size_t len)
{
	const struct cc_op *o = &x->rs->ops[i];
	const char *what = o->kind == CC_OP_POST_SEND ? cc_opcode_name[o->u.send.opcode] : "";

	snprintf(buf, len, "op %u (%s%s%s, %s chunk %u step %u)", i, cc_op_kind_name[o->kind],
		 *what ? " " : "", what, cc_prim_name[o->tag.prim], o->tag.chunk, o->tag.step);
}

static void set_error(struct vx *x, enum cc_run_status st, enum cc_wc_status wc, uint32_t qp,
		      uint32_t op, const char *fmt, ...)
{
	struct cc_run_error *e = &x->res->err;
	char opd[128], why[160];
	va_list ap;

	if (e->status != CC_RUN_OK)
		return; /* the first error is the cause */
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	describe_op(x, op, opd, sizeof(opd));
	*e = (struct cc_run_error){ .status = st, .wc = wc, .rank = x->rank, .qp = qp, .op = op,
				    .wr_id = cc_op_wr_id(&x->rs->ops[op]) };
	if (qp < x->rs->nqps)
		snprintf(e->msg, sizeof(e->msg), "rank %u QP %u (to rank %u): %.90s wr_id %" PRIu64
			 ": %.110s", x->rank, qp, x->rs->qps[qp].peer, opd, e->wr_id, why);
	else
		snprintf(e->msg, sizeof(e->msg), "rank %u: %.90s: %.150s", x->rank, opd, why);
}

/* ---- completions ---- */

static struct vx_cqe *tab_slot(struct vx *x, uint32_t cq, uint64_t wr_id, bool present)
{
	uint32_t h = (uint32_t)((wr_id * 0x9e3779b97f4a7c15u) >> 40 ^ cq) & x->tab_mask;

	for (;; h = (h + 1) & x->tab_mask) {
		struct vx_cqe *c = &x->tab[h];

		if (c->state == VX_EMPTY)
			return present ? NULL : c;
		if (present && c->state == VX_PRESENT && c->cq == cq && c->wr_id == wr_id)
			return c;
	}
}

/* The QP index of a QPN, for a CQE that reports an error. */
static uint32_t qp_of(const struct vx *x, uint32_t qpn)
{
	for (uint32_t q = 0; q < x->rs->nqps; q++)
		if (x->qp[q].qp->qp_num == qpn)
			return q;
	return UINT32_MAX;
}

static void on_wc(struct vx *x, uint32_t c, uint64_t wr_id, enum ibv_wc_status st,
		  uint32_t vendor_err, uint32_t qpn, uint32_t bytes, uint64_t t_ns)
{
	x->cqes_seen++;
	if (wr_id >= x->rs->nops) { /* a drain WRITE (VX_DRAIN_WR_ID) */
		uint32_t q = (uint32_t)(UINT64_MAX - wr_id);
		if (st != IBV_WC_SUCCESS && q < x->rs->nqps && x->res->err.status == CC_RUN_OK) {
			x->res->err = (struct cc_run_error){ .status = CC_RUN_COMPLETION_ERROR,
							     .wc = (enum cc_wc_status)st, .rank = x->rank,
							     .qp = q, .op = UINT32_MAX };
			snprintf(x->res->err.msg, sizeof(x->res->err.msg), "rank %u QP %u (to rank "
				 "%u): the drain WRITE after the iteration completed with %s",
				 x->rank, q, x->rs->qps[q].peer, ibv_wc_status_str(st));
		}
		return;
	}
	uint32_t op = (uint32_t)wr_id;
	const struct cc_op *o = &x->rs->ops[op];
	uint32_t q = o->kind == CC_OP_POST_SEND ? o->u.send.qp : o->u.recv.qp;

	if (st != IBV_WC_SUCCESS) {
		/* A flush follows another error: report it only if nothing
		 * else was seen (the peer's error then is the cause). */
		uint32_t wq = qp_of(x, qpn);
		set_error(x, CC_RUN_COMPLETION_ERROR, (enum cc_wc_status)st, wq < x->rs->nqps ? wq : q,
			  op, "completed with %s (%s, vendor_err 0x%x)", cc_wc_status_name(
			  (enum cc_wc_status)st), ibv_wc_status_str(st), vendor_err);
		return;
	}
	struct vx_cqe *e = tab_slot(x, c, cc_op_wr_id(o), false);
	*e = (struct vx_cqe){ .wr_id = cc_op_wr_id(o), .cq = c, .state = VX_PRESENT, .qp = q,
			      .op = op, .bytes = bytes };
	trace(x, CC_TRACE_CQE, CC_TRACE_NIC, q, op, t_ns, 0, bytes);
}

/* The device's completion time on the monotonic clock of the iteration. */
static uint64_t hw_time_ns(const struct vx *x, uint64_t ts, uint64_t now)
{
	uint64_t ns;

	if (x->clock == CC_VERBS_CLOCK_WALLCLOCK)
		ns = ts; /* real time, ns */
	else
		ns = (uint64_t)((double)ts * 1e6 / (double)x->v->hca_core_clock_khz);
	if (ns < x->t0_hw)
		return now; /* before the reference sample: not trustworthy */
	return x->t0_ns + (ns - x->t0_hw);
}

/* Reaps every CQ once; returns the completions seen. */
static uint32_t poll_cqs(struct vx *x)
{
	uint32_t seen = 0;

	for (uint32_t c = 0; c < x->rs->ncqs; c++) {
		struct vx_cq *cq = &x->cq[c];

		if (cq->cqx) {
			struct ibv_poll_cq_attr pa = {0};
			if (ibv_start_poll(cq->cqx, &pa))
				continue;
			uint64_t now = stamp(x);
			do {
				struct ibv_cq_ex *e = cq->cqx;
				uint64_t ts = x->clock == CC_VERBS_CLOCK_WALLCLOCK
						      ? ibv_wc_read_completion_wallclock_ns(e)
						      : ibv_wc_read_completion_ts(e);
				on_wc(x, c, e->wr_id, e->status, ibv_wc_read_vendor_err(e),
				      ibv_wc_read_qp_num(e), ibv_wc_read_byte_len(e),
				      hw_time_ns(x, ts, now));
				seen++;
			} while (!ibv_next_poll(cq->cqx));
			ibv_end_poll(cq->cqx);
			continue;
		}
		struct ibv_wc wc[32];
		int n;
		while ((n = ibv_poll_cq(cq->cq, 32, wc)) > 0) {
			uint64_t now = stamp(x);
			for (int i = 0; i < n; i++)
				on_wc(x, c, wc[i].wr_id, wc[i].status, wc[i].vendor_err, wc[i].qp_num,
				      wc[i].byte_len, now);
			seen += (uint32_t)n;
		}
		if (n < 0)
			set_error(x, CC_RUN_COMPLETION_ERROR, CC_WC_SUCCESS, UINT32_MAX, 0,
				  "ibv_poll_cq on CQ %u failed (%d)", c, n);
	}
	return seen;
}

/* ---- ops ---- */

static uint64_t word_load(const uint8_t *p)
{
	uint64_t v;

	/* A peer's RDMA WRITE changes it under us: read it once, whole. */
	if (((uintptr_t)p & 7) == 0)
		return le64toh(__atomic_load_n((const uint64_t *)(const void *)p, __ATOMIC_ACQUIRE));
	v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | ((const volatile uint8_t *)p)[i];
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return v;
}

static void op_done(struct vx *x, uint32_t i)
{
	x->ndone++;
	for (uint32_t u = x->users_first[i]; u < x->users_first[i + 1]; u++)
		if (--x->deps_left[x->users[u]] == 0)
			x->ready[x->ready_tail++] = x->users[u];
}

static void do_post_recv(struct vx *x, uint32_t i)
{
	const struct cc_op_recv *p = &x->rs->ops[i].u.recv;
	struct ibv_recv_wr *bad;

	if (cc_fault_on(x->o->faults, x->o->nfaults, CC_FAULT_NO_RECV, x->rank, i)) {
		x->cqes_expected--; /* it will not complete */
		return;
	}
	uint64_t t = stamp(x);
	int rc = ibv_post_recv(x->qp[p->qp].qp, &x->rwr[i], &bad);

	if (rc)
		set_error(x, CC_RUN_POST_ERROR, CC_WC_SUCCESS, p->qp, i, "ibv_post_recv: %s",
			  strerror(rc));
	trace(x, CC_TRACE_POST, CC_TRACE_CPU, p->qp, i, t, stamp(x) - t, p->sge.length);
}

static void do_post_send(struct vx *x, uint32_t i)
{
	const struct cc_op_send *p = &x->rs->ops[i].u.send;
	struct vx_qp *qp = &x->qp[p->qp];
	struct ibv_send_wr *w = &x->swr[i];

	w->next = NULL;
	if (qp->tail)
		qp->tail->next = w;
	else
		qp->head = w;
	qp->tail = w;
	qp->pending++;
	x->res->wqes++;
	trace(x, CC_TRACE_POST, CC_TRACE_CPU, p->qp, i, stamp(x), 0,
	      w->num_sge ? w->sg_list->length : 0);
}

/* One ibv_post_send for every WR chained since the last doorbell: the
 * provider writes the WQEs and rings the doorbell once (a post list). */
static void do_doorbell(struct vx *x, uint32_t i)
{
	const struct cc_op_doorbell *d = &x->rs->ops[i].u.doorbell;
	struct vx_qp *qp = &x->qp[d->qp];
	struct ibv_send_wr *bad = NULL;

	if (!qp->head)
		return;
	uint64_t t = stamp(x);
	int rc = ibv_post_send(qp->qp, qp->head, &bad);
	trace(x, CC_TRACE_DOORBELL, CC_TRACE_CPU, d->qp, i, t, stamp(x) - t, qp->pending);
	qp->tail_unsignaled = !(qp->tail->send_flags & IBV_SEND_SIGNALED);
	if (rc)
		set_error(x, CC_RUN_POST_ERROR, CC_WC_SUCCESS, d->qp,
			  bad ? (uint32_t)bad->wr_id : i, "ibv_post_send: %s%s", strerror(rc),
			  rc == ENOMEM ? " (send queue full)" : "");
	x->res->doorbells++;
	qp->head = qp->tail = NULL;
	qp->pending = 0;
}

static bool try_poll(struct vx *x, uint32_t i)
{
	const struct cc_op_poll *p = &x->rs->ops[i].u.poll;
	struct vx_cqe *e = tab_slot(x, p->cq, p->wr_id, true);

	if (!e)
		return false;
	e->state = VX_REAPED;
	trace(x, CC_TRACE_POLL, CC_TRACE_CPU, e->qp, i, stamp(x), 0, e->bytes);
	return true;
}

static bool try_wait(struct vx *x, uint32_t i)
{
	const struct cc_op_wait *w = &x->rs->ops[i].u.wait;

	return word_load(x->mem[w->buf] + w->offset) >= w->value;
}

/* Runs reduce or copy i; false while a source in lines (LL, LL128) is
 * not all there: the RNIC may place a WRITE's lines in any order, so the
 * last line's flag (what the wait before it saw) does not vouch for the
 * others; the op is tried again, as NCCL's LL readers spin per line. */
static bool do_calc(struct vx *x, uint32_t i)
{
	const struct cc_op *o = &x->rs->ops[i];
	bool red = o->kind == CC_OP_REDUCE;
	enum cc_trace_track tr = o->u.calc.where == CC_ON_GPU ? CC_TRACE_GPU : CC_TRACE_CPU;
	uint64_t t = stamp(x);
	uint64_t bytes = o->u.calc.count * cc_dtype_size(o->u.calc.dtype);

	if (x->o->gpu) {
		/* On the rank's GPU, synchronously (backend/cuda/gpu.h). */
		char why[200];
		if (vx_gpu_calc(x, o, why, sizeof(why)))
			set_error(x, CC_RUN_POST_ERROR, CC_WC_SUCCESS, UINT32_MAX, i, "%s", why);
	} else if (cc_exec_calc_host(o, x->mem)) {
		return false;
	}
	uint64_t end = stamp(x);

	trace(x, red ? CC_TRACE_REDUCE_BEGIN : CC_TRACE_COPY_BEGIN, tr, CC_TRACE_NONE, i, t,
	      end - t, bytes);
	trace(x, red ? CC_TRACE_REDUCE_END : CC_TRACE_COPY_END, tr, CC_TRACE_NONE, i, end, 0,
	      bytes);
	return true;
}

/* Runs op i; false when it must wait (parked). */
static bool run_op(struct vx *x, uint32_t i)
{
	switch (x->rs->ops[i].kind) {
	case CC_OP_POST_RECV: do_post_recv(x, i); return true;
	case CC_OP_POST_SEND: do_post_send(x, i); return true;
	case CC_OP_DOORBELL: do_doorbell(x, i); return true;
	case CC_OP_POLL_CQ: return try_poll(x, i);
	case CC_OP_WAIT_MEM: return try_wait(x, i);
	case CC_OP_REDUCE:
	case CC_OP_COPY: return do_calc(x, i);
	default: cc_exec_bad_kind("verbs", x->rank, i, (int)x->rs->ops[i].kind);
	}
}

/* What op i waits for and from whom, for the stall report. */
static void report_stall(struct vx *x, uint32_t i, uint64_t idle_ms)
{
	const struct cc_op *o = &x->rs->ops[i];

	if (o->kind == CC_OP_WAIT_MEM) {
		const struct cc_op_wait *w = &o->u.wait;
		const struct cc_buffer *b = &x->rs->bufs[w->buf];
		set_error(x, CC_RUN_DEADLOCK, CC_WC_SUCCESS, UINT32_MAX, i,
			  "no progress for %" PRIu64 " ms: waits for the %s word at offset %" PRIu64
			  " to reach %" PRIu64 " (it holds %" PRIu64 "), written by rank %d",
			  idle_ms, cc_buf_role_name[b->role], w->offset, w->value,
			  word_load(x->mem[w->buf] + w->offset), b->peer);
		return;
	}
	if (o->kind == CC_OP_REDUCE || o->kind == CC_OP_COPY) {
		set_error(x, CC_RUN_EARLY_READ, CC_WC_SUCCESS, UINT32_MAX, i,
			  "no progress for %" PRIu64 " ms: a %s waits for lines of a slot whose "
			  "last line came (a WRITE placed in part?)", idle_ms,
			  cc_op_kind_name[o->kind]);
		return;
	}
	/* A poll: the QP of the WQE it polls for names the peer. */
	uint32_t q = UINT32_MAX;
	for (uint32_t j = 0; j < x->rs->nops && o->kind == CC_OP_POLL_CQ; j++) {
		const struct cc_op *p = &x->rs->ops[j];
		if (p->kind == CC_OP_POST_SEND && p->u.send.wr_id == o->u.poll.wr_id)
			q = p->u.send.qp;
		else if (p->kind == CC_OP_POST_RECV && p->u.recv.wr_id == o->u.poll.wr_id)
			q = p->u.recv.qp;
	}
	set_error(x, CC_RUN_DEADLOCK, CC_WC_SUCCESS, q, i,
		  "no progress for %" PRIu64 " ms: its completion (CQ %u) never came%s; a "
		  "slow link may need a longer --timeout", idle_ms,
		  o->kind == CC_OP_POLL_CQ ? o->u.poll.cq : 0,
		  q < x->rs->nqps ? " from that peer (dead, stopped, or its QP in error)" : "");
}

/* One iteration of the rank's ops.  Returns when all are done or on error. */
static void run_ops(struct vx *x)
{
	uint64_t idle_since = 0; /* 0: progress since the last look at the clock */
	uint32_t spins = 0;

	while (x->ndone < x->rs->nops && x->res->err.status == CC_RUN_OK) {
		bool progress = false;

		while (x->ready_head < x->ready_tail && x->res->err.status == CC_RUN_OK) {
			uint32_t i = x->ready[x->ready_head++];

			if (run_op(x, i))
				op_done(x, i);
			else
				x->parked[x->nparked++] = i;
			progress = true;
		}
		if (poll_cqs(x))
			progress = true;
		for (uint32_t k = 0; k < x->nparked; k++) {
			uint32_t i = x->parked[k];
			if (!run_op(x, i))
				continue;
			x->parked[k--] = x->parked[--x->nparked];
			op_done(x, i);
			progress = true;
		}
		if (progress) {
			spins = 0;
			idle_since = 0;
			continue;
		}
		/* Nothing to do: let others run.  Ranks may outnumber cores,
		 * and a software RNIC (rxe) does its work in kernel threads
		 * that a spinning poller would starve; on an idle core the
		 * call returns at once. */
		if (++spins % 16 == 0)
			sched_yield();
		/* Reading the clock costs more than a poll: look every 1024
		 * idle rounds. */
		if (spins % 1024)
			continue;
		uint64_t now = vx_now_ns();
		if (!idle_since) {
			idle_since = now;
			continue;
		}
		uint64_t idle_ms = (now - idle_since) / 1000000u;
		if (idle_ms < (uint64_t)x->v->timeout_ms)
			continue;
		if (x->nparked)
			report_stall(x, x->parked[0], idle_ms);
		else
			set_error(x, CC_RUN_DEADLOCK, CC_WC_SUCCESS, UINT32_MAX, 0,
				  "no progress for %" PRIu64 " ms and nothing to wait for: the "
				  "schedule's dependencies never complete", idle_ms);
	}
}

/* ---- iterations ---- */

/* Per-run tables: dependency lists, the ready FIFO, the completion table,
 * the CQEs an iteration yields. */
static int alloc_run_state(struct vx *x, uint32_t **deps0)
{
	const struct cc_rank_sched *rs = x->rs;
	uint32_t n = rs->nops, tab = 64;

	x->deps_left = calloc(n + 1, sizeof(uint32_t));
	x->users_first = calloc(n + 2, sizeof(uint32_t));
	x->users = calloc(rs->ndeps + 1, sizeof(uint32_t));
	x->ready = calloc(n + 1, sizeof(uint32_t));
	x->parked = calloc(n + 1, sizeof(uint32_t));
	*deps0 = calloc(n + 1, sizeof(uint32_t));
	if (!x->deps_left || !x->users_first || !x->users || !x->ready || !x->parked || !*deps0)
		return -ENOMEM;
	cc_exec_users(rs, *deps0, x->users_first, x->users);
	for (uint32_t i = 0; i < n; i++) {
		const struct cc_op *o = &rs->ops[i];
		if (o->kind == CC_OP_POST_RECV ||
		    (o->kind == CC_OP_POST_SEND && (o->u.send.flags & CC_SEND_SIGNALED)))
			x->cqes_expected++;
	}
	/* At most half full, counting the drain WRITEs' absence. */
	while (tab < 2 * x->cqes_expected + 2)
		tab *= 2;
	x->tab = calloc(tab, sizeof(*x->tab));
	x->tab_mask = tab - 1;
	return x->tab ? 0 : -ENOMEM;
}

static void free_run_state(struct vx *x)
{
	free(x->deps_left);
	free(x->users_first);
	free(x->users);
	free(x->ready);
	free(x->parked);
	free(x->tab);
}

/* Before the barrier that starts an iteration: nothing of the previous one
 * may be left, in memory or in the executor's tables. */
static int reset_iteration(struct vx *x, const uint32_t *deps0, const uint8_t *poison,
			   uint64_t out_bytes, uint64_t expected, char *err, size_t errlen)
{
	const struct cc_rank_sched *rs = x->rs;
	int rc;

	for (uint32_t b = 0; b < rs->nbufs; b++)
		if (rs->bufs[b].role == CC_BUF_CTS || rs->bufs[b].role == CC_BUF_FLAG)
			memset(x->mem[b], 0, rs->bufs[b].size);
	if (poison && (rc = vx_put(x, 1, poison, out_bytes, err, errlen)))
		return rc;
	memcpy(x->deps_left, deps0, rs->nops * sizeof(uint32_t));
	x->ready_head = x->ready_tail = x->nparked = x->ndone = 0;
	for (uint32_t i = 0; i < rs->nops; i++)
		if (!deps0[i])
			x->ready[x->ready_tail++] = i;
	memset(x->tab, 0, (x->tab_mask + 1) * sizeof(*x->tab));
	x->cqes_expected = expected;
	x->cqes_seen = 0;
	for (uint32_t q = 0; q < rs->nqps; q++) {
		x->qp[q].head = x->qp[q].tail = NULL;
		x->qp[q].pending = 0;
		x->qp[q].tail_unsignaled = false;
	}
	x->res->wqes = x->res->doorbells = 0;
	return 0;
}

/* The device clock now, on the scale hw_time_ns() converts. */
static uint64_t hw_clock_now(const struct vx *x)
{
	if (x->clock == CC_VERBS_CLOCK_WALLCLOCK) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	}
	if (x->clock == CC_VERBS_CLOCK_HCA) {
		struct ibv_values_ex rt = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
		if (!ibv_query_rt_values_ex(x->v->ctx, &rt))
			return (uint64_t)((double)rt.raw_clock.tv_nsec * 1e6 /
					  (double)x->v->hca_core_clock_khz);
	}
	return 0;
}

/* Every signaled WQE of the iteration completed, and every send queue
 * empty: a QP whose last WQE had no CQE gets a signaled zero-length WRITE,
 * whose completion retires it and all before it (IBA 10.8.3: a CQE
 * completes the WQEs ahead of it on the SQ). */
static void drain(struct vx *x)
{
	for (uint32_t q = 0; q < x->rs->nqps && x->res->err.status == CC_RUN_OK; q++) {
		if (!x->qp[q].tail_unsignaled)
			continue;
		uint32_t peer = x->rs->qps[q].peer;
		struct ibv_send_wr w = { .wr_id = VX_DRAIN_WR_ID(q), .opcode = IBV_WR_RDMA_WRITE,
					 .send_flags = IBV_SEND_SIGNALED }, *bad;
		if (x->nrmr[peer]) {
			w.wr.rdma.remote_addr = x->rmr[peer][0].addr;
			w.wr.rdma.rkey = x->rmr[peer][0].rkey;
		}
		int rc = ibv_post_send(x->qp[q].qp, &w, &bad);
		if (rc) {
			set_error(x, CC_RUN_POST_ERROR, CC_WC_SUCCESS, q, 0,
				  "ibv_post_send of the drain WRITE: %s", strerror(rc));
			return;
		}
		x->qp[q].tail_unsignaled = false;
		x->cqes_expected++;
	}
	uint64_t start = vx_now_ns();
	while (x->cqes_seen < x->cqes_expected && x->res->err.status == CC_RUN_OK) {
		if (poll_cqs(x))
			continue;
		uint64_t idle = vx_now_ns() - start;
		if (idle >= (uint64_t)x->v->timeout_ms * 1000000u) {
			set_error(x, CC_RUN_DEADLOCK, CC_WC_SUCCESS, UINT32_MAX, 0,
				  "after its last op, %" PRIu64 " of %" PRIu64 " completions came in "
				  "%d ms", x->cqes_seen, x->cqes_expected, x->v->timeout_ms);
			return;
		}
	}
}

/* After an error: every QP to ERR, so what it holds completes with
 * IBV_WC_WR_FLUSH_ERR (IBA 10.3.1), reaped for a short while. */
static void flush(struct vx *x)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct cc_run_error keep = x->res->err;

	for (uint32_t q = 0; q < x->rs->nqps; q++)
		ibv_modify_qp(x->qp[q].qp, &a, IBV_QP_STATE);
	for (uint64_t t = vx_now_ns(); vx_now_ns() - t < 100000000u;)
		if (!poll_cqs(x))
			sched_yield();
	x->res->err = keep;
}

/* How much an error explains: a real completion error is a cause, a flush
 * or a stall usually a consequence of someone else's. */
static int weight(const struct cc_run_error *e)
{
	if (e->status == CC_RUN_OK)
		return 0;
	if (e->status == CC_RUN_DEADLOCK)
		return 1;
	if (e->status == CC_RUN_COMPLETION_ERROR && e->wc == CC_WC_WR_FLUSH_ERR)
		return 2;
	return 3;
}

/* End of an iteration: every rank's status to every rank.  On error, the
 * rank's result says the most telling error of all ranks.  Returns 0, or a
 * bootstrap error (a rank died) with err set. */
static int sync_status(struct vx *x, bool *any_failed, char *err, size_t errlen)
{
	struct cc_run_error *mine = &x->res->err;
	size_t n = strnlen(mine->msg, sizeof(mine->msg));
	uint8_t blob[8 + sizeof(mine->msg)];
	struct cc_boot_blobs all = {0};
	char berr[512];
	int rc;

	cc_bmsg_put32(blob, mine->status);
	cc_bmsg_put32(blob + 4, mine->wc);
	memcpy(blob + 8, mine->msg, n);
	if ((rc = cc_boot_allgather(x->b, blob, 8 + n, &all, berr, sizeof(berr)))) {
		snprintf(err, errlen, "bootstrap: %s", berr);
		return rc;
	}
	struct cc_run_error best = *mine;
	for (uint32_t r = 0; r < all.n; r++) {
		struct cc_run_error e = {0};
		if (all.len[r] < 8)
			continue;
		e.status = (enum cc_run_status)cc_bmsg_get32(all.data[r]);
		e.wc = (enum cc_wc_status)cc_bmsg_get32(all.data[r] + 4);
		e.rank = r;
		snprintf(e.msg, sizeof(e.msg), "%.*s", (int)(all.len[r] - 8),
			 (const char *)all.data[r] + 8);
		if (weight(&e) > weight(&best))
			best = e;
	}
	*any_failed = best.status != CC_RUN_OK;
	if (best.rank != x->rank || mine->status == CC_RUN_OK) {
		/* Another rank's error: its fields beyond the message are its own. */
		best.qp = best.op = UINT32_MAX;
		best.wr_id = 0;
	}
	*mine = best;
	cc_boot_blobs_free(&all);
	return 0;
}

/* The rank's input, generated on the host, into buffer 0 wherever it is. */
static int put_input(struct vx *x, char *err, size_t errlen)
{
	size_t n = cc_coll_in_count(&x->s->params) * cc_dtype_size(x->s->params.dtype);
	uint8_t *in;
	int rc;

	if (x->kind[0] != VX_BUF_GPU) {
		cc_reference_input(&x->s->params, x->rank, x->o->seed, x->mem[0]);
		return 0;
	}
	if (!(in = malloc(n + 1))) {
		snprintf(err, errlen, "out of memory for the input");
		return -ENOMEM;
	}
	cc_reference_input(&x->s->params, x->rank, x->o->seed, in);
	rc = vx_put(x, 0, in, n, err, errlen);
	free(in);
	return rc;
}

int cc_verbs_refuse_mcast(char *err, size_t errlen)
{
	snprintf(err, errlen, "the schedule has multicast QPs (NVLink SHARP, -A nvls): an RDMA "
		 "device has no NVSwitch to reduce and multicast; the data executor (cclab "
		 "check) and the simulator run it");
	return -EOPNOTSUPP;
}

int cc_verbs_run(struct cc_verbs_ctx *v, struct cc_boot *b, const struct cc_schedule *s,
		 const struct cc_verbs_run_opts *o, struct cc_verbs_result *res, char *err,
		 size_t errlen)
{
	struct vx x = { .v = v, .b = b, .s = s, .rs = &s->ranks[b->rank], .rank = b->rank, .o = o,
			.res = res };
	const struct cc_coll_params *p = &s->params;
	bool check = o->check && p->count > 0;
	uint64_t out_count = p->count ? cc_coll_out_count(p) : 0;
	uint64_t out_bytes = out_count * cc_dtype_size(p->dtype);
	uint8_t *want = NULL, *poison = NULL;
	uint32_t *deps0 = NULL, total = o->warmup + o->iters;
	uint64_t start = vx_now_ns();
	int rc;

	memset(res, 0, sizeof(*res));
	if (cc_schedule_has_mcast(s))
		return cc_verbs_refuse_mcast(err, errlen);
	if (s->nranks != b->world || b->rank >= s->nranks) {
		snprintf(err, errlen, "the schedule has %u ranks, the job %u", s->nranks, b->world);
		return -EINVAL;
	}
	res->iter_us = calloc(o->iters + 1, sizeof(double));
	if (check) {
		want = malloc(out_bytes + 1);
		poison = malloc(out_bytes + 1);
	}
	if (!res->iter_us || (check && (!want || !poison))) {
		rc = -ENOMEM;
		snprintf(err, errlen, "out of memory for the reference");
		goto out;
	}
	if (check && cc_reference_output(p, x.rank, o->seed, want)) {
		rc = -ENOMEM;
		snprintf(err, errlen, "out of memory for the reference");
		goto out;
	}
	for (uint64_t i = 0; check && i < out_bytes; i++)
		poison[i] = (uint8_t)~want[i];
	if ((rc = vx_setup(&x, err, errlen)))
		goto out;
	if (alloc_run_state(&x, &deps0)) {
		rc = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (p->count && (rc = put_input(&x, err, errlen)))
		goto out;
	res->clock = x.clock;
	res->setup_us = (double)(vx_now_ns() - start) / 1e3;
	uint64_t expected = x.cqes_expected;
	for (uint32_t it = 0; it < total; it++) {
		char berr[512];
		bool failed = false;

		if ((rc = reset_iteration(&x, deps0, check ? poison : NULL, out_bytes, expected, err,
					  errlen)))
			goto out;
		if ((rc = cc_boot_barrier(b, berr, sizeof(berr)))) {
			snprintf(err, errlen, "bootstrap: %s", berr);
			goto out;
		}
		x.tracing = o->trace && it + 1 == total;
		x.t0_ns = vx_now_ns();
		x.t0_hw = hw_clock_now(&x);
		run_ops(&x);
		uint64_t t1 = vx_now_ns();
		if (res->err.status == CC_RUN_OK)
			drain(&x);
		if (res->err.status != CC_RUN_OK)
			flush(&x);
		if ((rc = sync_status(&x, &failed, err, errlen)))
			goto out;
		if (failed)
			break;
		if (it >= o->warmup)
			res->iter_us[res->iters++] = (double)(t1 - x.t0_ns) / 1e3;
	}
	res->data_bytes = cc_rank_data_bytes(x.rs);
	/* Reduce's non-roots have no defined output. */
	if (check && res->err.status == CC_RUN_OK && cc_coll_checks_rank(p, x.rank)) {
		/* GPU output back to the host first (poison holds it). */
		if ((rc = vx_get(&x, 1, poison, out_bytes, err, errlen)))
			goto out;
		res->wrong = cc_count_wrong(poison, want, out_count, p->dtype);
	}
	rc = 0;
out:
	free_run_state(&x);
	free(deps0);
	vx_teardown(&x);
	free(want);
	free(poison);
	return rc;
}

void cc_verbs_result_free(struct cc_verbs_result *res)
{
	free(res->iter_us);
	res->iter_us = NULL;
}
