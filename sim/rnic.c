/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/rnic.c — the simulated RNIC: doorbell and WQE fetch, the transmit
 * path of each port, and the requester and completer of every QP.  The
 * responder is in sim/rnic_resp.c.
 *
 * Roles as in the kernel's soft-RoCE driver (drivers/infiniband/sw/rxe):
 * the requester (rxe_req.c) turns WQEs into packets, the completer
 * (rxe_comp.c) turns ACKs and responses into completions, the responder
 * (rxe_resp.c) executes requests.  What each step costs
 * (docs/simulator.md):
 *
 *   doorbell   the CPU's MMIO write reaches the NIC rnic.doorbell_ps later;
 *              a doorbell that hands over one WQE carries it (BlueFlame,
 *              mlx5's bf_reg), otherwise the NIC fetches the WQEs by DMA
 *              (rnic.wqe_fetch_ps, a measured round trip); then
 *              rnic.req_proc_ps until the requester can use them.
 *   transmit   each port keeps sx_port_prefetch() packets in flight from
 *              the arbiter to the wire: a packet whose payload is in host or
 *              GPU memory is read over PCIe first (sim/pcie.h, MRd/CplD)
 *              unless its port is NVLink (GPU to GPU, no PCIe), and
 *              packets leave in the order they were made.  The arbiter
 *              picks QPs round robin, one packet at a time; ACKs and NAKs
 *              skip the queue.  A packet goes on the wire only when the
 *              port is idle, so the link never holds more than one.
 *   window     a QP has at most rnic.max_outstanding_pkts unacknowledged
 *              PSNs, and params max_rd_atomic READs / atomics outstanding
 *              (IBA 9.5: initiator depth); a fenced WQE waits for earlier
 *              READs and atomics to complete.
 *   completer  ACKs are cumulative (IBA 9.7.5.1); WQEs complete in order;
 *              a CQE is written rnic.cqe_write_ps after it is issued, and
 *              never before an earlier CQE or the payload it reports.
 *   errors     an RNR NAK stops the QP for the responder's RNR timer
 *              (rnic.min_rnr_timer), then it resends from the NAKed PSN
 *              (go-back-N), rnr_retry times (7: forever); a sequence NAK
 *              or the local ACK timeout (4.096 us * 2^rnic.timeout_exp)
 *              resends from the oldest unacknowledged PSN, retry_cnt
 *              times — or, with rnic.selective_repeat, a NAK resends only
 *              the packet it names; other NAKs end the WQE with the
 *              matching status.
 *              A failed WQE puts the QP in the error state: every other
 *              WQE is flushed (IBV_WC_WR_FLUSH_ERR), as IBA 10.3.1 says.
 *   DCQCN      a CE-marked packet makes the receiving QP send its peer a
 *              CNP (at most one per cc.cnp_interval_ps); the peer's rate
 *              follows sim/dcqcn.h, and the arbiter paces a limited QP's
 *              packets at it, waking the port when the next may go.
 */
#include "sim/exec_int.h"

#include <errno.h>
#include <stdlib.h>

#include "sim/model.h"
#include "sim/opcode.h"

#define DIE(...) sim__model_die(__FILE__, __LINE__, __VA_ARGS__)

const struct cc_op_send *sx_wqe_send(const struct sx *x, uint32_t r, const struct sx_wqe *w)
{
	return &cc_rank_op(&x->s->ranks[r], w->op)->u.send;
}

/* Cuts a message at the QP's path MTU. */
void sx_segment(enum sim_msg msg, uint32_t len, uint32_t mtu, struct sim_wire_seg *seg)
{
	if (sim_wire_segment(msg, len, mtu, seg))
		DIE("rnic: cannot segment a %u B message", len);
}

/* PSNs a WQE takes: its request packets, or its READ response packets. */
static uint32_t wqe_npsn(const struct sx_qp *qp, const struct cc_op_send *o)
{
	struct sim_wire_seg seg;

	if (o->opcode == CC_WR_ATOMIC_FETCH_ADD || o->opcode == CC_WR_ATOMIC_CMP_SWP)
		return 1;
	sx_segment(sim_msg_of_opcode(o->opcode), cc_wqe_len(o), qp->mtu, &seg);
	return seg.npkts;
}

const struct cc_mr *sx_find_mr(const struct sx *x, uint32_t r, uint32_t key, uint64_t off,
			       uint64_t len, uint32_t access)
{
	return cc_exec_find_mr(&x->s->ranks[r], x->rk[r].key, key, off, len, access);
}

/* ---- completions ---- */

/* Sends a CQE token towards host memory: visible at `want` at the
 * earliest, and not before the CQEs the NIC wrote earlier. */
void sx_cqe_push(struct sx *x, uint32_t r, struct sx_pkt *k, sim_time_ps want)
{
	struct sx_rank *rk = &x->rk[r];

	k->kind = SX_PKT_CQE;
	k->rank = r;
	if (k->status != CC_WC_SUCCESS &&
	    (!x->have_err || (x->first_err.status == CC_WC_WR_FLUSH_ERR &&
			      k->status != CC_WC_WR_FLUSH_ERR))) {
		x->have_err = true;
		x->first_err = (struct sx_cqe){
			.wr_id = cc_op_wr_id(cc_rank_op(&x->s->ranks[r], k->op)),
			.op = k->op, .qp = k->qp, .status = k->status, .is_recv = k->is_recv,
		};
		x->first_err_rank = r;
	}
	if (want < rk->cqe_last_due)
		want = rk->cqe_last_due;
	rk->cqe_last_due = want;
	sim_pipe_push(&rk->cqe_pipe, &k->p, want);
}

/* A CQE for op `op` of QP q. */
void sx_cqe_new(struct sx *x, uint32_t r, uint32_t q, uint32_t op, bool is_recv,
		enum cc_wc_status st, uint32_t len, uint32_t imm, sim_time_ps want)
{
	const struct cc_qp *cq = &x->s->ranks[r].qps[q];
	struct sx_pkt *k = sx_pkt_get(x);

	k->qp = q;
	k->op = op;
	k->is_recv = is_recv;
	k->cq = is_recv ? cq->recv_cq : cq->send_cq;
	k->status = st;
	k->byte_len = len;
	k->imm = imm;
	sx_cqe_push(x, r, k, want);
}

static void cqe_arrive(struct sim_engine *eng, void *ctx, uint32_t port, struct sim_packet *pkt)
{
	struct sx_rank *rk = ctx;

	(void)eng;
	(void)port;
	sx_cqe_visible(rk->x, (struct sx_pkt *)pkt);
}

/* The QP enters the error state: everything still queued is flushed. */
void sx_qp_flush(struct sx *x, uint32_t r, uint32_t q)
{
	struct sx_qp *qp = &x->rk[r].qp[q];
	sim_time_ps want = sim_now(&x->eng) + x->f->rnic.cqe_write_ps;

	if (qp->error)
		return;
	qp->error = true;
	qp->epoch++;
	qp->rnr_wait = false;
	for (uint32_t i = qp->una; i < qp->sq_n; i++) {
		struct sx_wqe *w = &qp->sq[i];

		/* Done but not completed (behind an unfinished READ) counts:
		 * a WQE completes in order or is flushed (IBA 10.3.1). */
		if (!w->failed) {
			w->failed = true;
			sx_cqe_new(x, r, q, w->op, false, CC_WC_WR_FLUSH_ERR, 0, 0, want);
		}
	}
	qp->una = qp->cur = qp->fetched = qp->rung = qp->sq_n;
	qp->sr_n = 0;
	while (!sim_pktq_empty(&qp->ooo))
		sx_pkt_put(x, (struct sx_pkt *)sim_pktq_pop(&qp->ooo));
	for (; qp->rq_head < qp->rq_n; qp->rq_head++)
		sx_cqe_new(x, r, q, qp->rq[qp->rq_head], true, CC_WC_WR_FLUSH_ERR, 0, 0, want);
}

/* WQE i fails with st; the QP goes to error. */
void sx_wqe_fail(struct sx *x, uint32_t r, uint32_t q, uint32_t i, enum cc_wc_status st)
{
	struct sx_qp *qp = &x->rk[r].qp[q];

	if (qp->error || i >= qp->sq_n)
		return;
	qp->sq[i].failed = true;
	sx_cqe_new(x, r, q, qp->sq[i].op, false, st, 0, 0,
		   sim_now(&x->eng) + x->f->rnic.cqe_write_ps);
	sx_qp_flush(x, r, q);
}

sim_time_ps sx_cqe_write_ps(const struct sx *x, const struct sx_qp *qp)
{
	/* NCCL's P2P transport has no CQ: the flag its CQE stands for is in
	 * GPU memory as soon as the store lands (sim/exec.c op_p2p). */
	return qp->nvlink ? 0 : x->f->rnic.cqe_write_ps;
}

void sx_complete_in_order(struct sx *x, uint32_t r, struct sx_qp *qp)
{
	sim_time_ps now = sim_now(&x->eng);

	while (qp->una < qp->sq_n && qp->sq[qp->una].done) {
		struct sx_wqe *w = &qp->sq[qp->una];
		const struct cc_op_send *o = sx_wqe_send(x, r, w);
		uint32_t len = cc_wqe_len(o);

		if (cc_opcode_rd_atomic(o->opcode))
			qp->rd_out--;
		x->rk[r].st->wqes++;
		if (o->payload == CC_PAYLOAD_DATA)
			x->rk[r].st->data_bytes += len;
		sx_trace(x, CC_TRACE_ACK, r, CC_TRACE_NIC, qp->q, w->op, now, 0, len);
		if (o->flags & CC_SEND_SIGNALED)
			sx_cqe_new(x, r, qp->q, w->op, false, CC_WC_SUCCESS, len, 0,
				   now + sx_cqe_write_ps(x, qp));
		qp->una++;
	}
}

/* The WQE whose PSNs include psn, from the oldest outstanding on. */
static uint32_t wqe_of_psn(const struct sx_qp *qp, uint32_t psn)
{
	for (uint32_t i = qp->una; i < qp->sq_n && qp->sq[i].started; i++)
		if (psn - qp->sq[i].first_psn < qp->sq[i].npsn)
			return i;
	return qp->una;
}

/* The requester's cursor is behind an acknowledged PSN — it went back
 * (an RNR NAK, a timeout) while the responder, holding the packets past a
 * gap (selective repeat), acknowledged further: it goes on from `upto`,
 * not resending what the peer has. */
static void skip_acked(struct sx *x, uint32_t r, struct sx_qp *qp, uint32_t upto)
{
	uint32_t i = qp->cur;

	if ((int32_t)(qp->next_psn - upto) >= 0)
		return;
	while (i < qp->sq_n && qp->sq[i].started &&
	       (int32_t)(upto - (qp->sq[i].first_psn + qp->sq[i].npsn)) >= 0)
		i++;
	qp->cur = i;
	qp->cur_pkt = 0;
	qp->next_psn = upto;
	if (i < qp->sq_n && qp->sq[i].started) {
		const struct sx_wqe *w = &qp->sq[i];

		if (cc_opcode_rd_atomic(sx_wqe_send(x, r, w)->opcode))
			qp->next_psn = w->first_psn; /* a READ is asked for whole */
		else
			qp->cur_pkt = upto - w->first_psn;
	}
}

/* Everything before PSN `upto` is acknowledged. */
void sx_ack_upto(struct sx *x, uint32_t r, struct sx_qp *qp, uint32_t upto)
{
	if ((int32_t)(upto - qp->una_psn) <= 0)
		return;
	qp->una_psn = upto;
	skip_acked(x, r, qp, upto);
	/* Forward progress: the retry counters start over (rxe_comp.c). */
	qp->retry_left = qp->retry_max;
	qp->rnr_left = qp->rnr_max;
	qp->ack_deadline = sim_now(&x->eng) + sim_ack_timeout_ps(x->f->rnic.timeout_exp);
	for (uint32_t i = qp->una; i < qp->sq_n && qp->sq[i].started; i++) {
		struct sx_wqe *w = &qp->sq[i];

		if (cc_opcode_rd_atomic(sx_wqe_send(x, r, w)->opcode))
			continue; /* done when its response is in memory */
		if ((int32_t)(upto - (w->first_psn + w->npsn)) < 0)
			break;
		w->done = true;
	}
	sx_complete_in_order(x, r, qp);
}

/* A READ or atomic WQE's response is in local memory. */
void sx_wqe_response_done(struct sx *x, uint32_t r, struct sx_qp *qp, uint32_t i)
{
	struct sx_wqe *w = &qp->sq[i];

	if (qp->error || w->done)
		return;
	w->done = true;
	/* A response acknowledges every request before it (IBA 9.7.5.1.1). */
	sx_ack_upto(x, r, qp, w->first_psn + w->npsn);
	sx_complete_in_order(x, r, qp);
	sx_port_fill(x, r, qp->port);
}

/* Go back to PSN psn: the packets after it are made and sent again. */
static void rewind_to(struct sx *x, uint32_t r, struct sx_qp *qp, uint32_t psn)
{
	uint32_t i = wqe_of_psn(qp, psn);
	struct sx_wqe *w = &qp->sq[i];

	qp->epoch++; /* packets made but not sent are dropped */
	qp->sr_n = 0; /* and so are single resends: everything goes again */
	qp->cur = i;
	sx_qp_wake(x, r, qp);
	if (i >= qp->sq_n || !w->started) {
		qp->cur_pkt = 0;
		qp->next_psn = qp->una_psn;
		return;
	}
	if (cc_opcode_rd_atomic(sx_wqe_send(x, r, w)->opcode))
		psn = w->first_psn; /* a READ is asked for again whole */
	qp->cur_pkt = psn - w->first_psn;
	qp->next_psn = psn;
}

static void rnr_timer(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sx_rank *rk = ctx;
	struct sx_qp *qp = &rk->qp[arg];

	(void)eng;
	if (qp->error || !qp->rnr_wait)
		return;
	qp->rnr_wait = false;
	rewind_to(rk->x, rk->r, qp, qp->rnr_psn);
	sx_port_fill(rk->x, rk->r, qp->port);
}

static void ack_timer(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sx_rank *rk = ctx;
	struct sx *x = rk->x;
	struct sx_qp *qp = &rk->qp[arg];
	sim_time_ps now = sim_now(eng);

	/* Nothing unacknowledged and no READ or atomic waiting for its
	 * response: the timer has nothing to guard. */
	if (qp->error || (qp->una_psn == qp->max_psn && qp->rd_out == 0) || qp->rnr_wait) {
		qp->ack_timer_armed = false;
		return;
	}
	if (now < qp->ack_deadline) {
		if (sim_schedule(eng, qp->ack_deadline, ack_timer, rk, arg) == SIM_EVENT_NONE)
			sx_die_nomem();
		return;
	}
	/* Local ACK timeout (IBA 9.7.6.1.3): resend, or give up. */
	rk->st->timeouts++;
	if (qp->retry_left == 0) {
		qp->ack_timer_armed = false;
		sx_wqe_fail(x, rk->r, qp->q, wqe_of_psn(qp, qp->una_psn), CC_WC_RETRY_EXC_ERR);
		return;
	}
	qp->retry_left--;
	rewind_to(x, rk->r, qp, qp->una_psn);
	qp->ack_deadline = now + sim_ack_timeout_ps(x->f->rnic.timeout_exp);
	if (sim_schedule(eng, qp->ack_deadline, ack_timer, rk, arg) == SIM_EVENT_NONE)
		sx_die_nomem();
	sx_port_fill(x, rk->r, qp->port);
}

static void arm_ack_timer(struct sx *x, uint32_t r, struct sx_qp *qp)
{
	sim_time_ps t = sim_ack_timeout_ps(x->f->rnic.timeout_exp);

	if (t == SIM_TIME_NEVER)
		return;
	qp->ack_deadline = sim_now(&x->eng) + t;
	if (qp->ack_timer_armed)
		return;
	qp->ack_timer_armed = true;
	if (sim_schedule(&x->eng, qp->ack_deadline, ack_timer, &x->rk[r], qp->q) == SIM_EVENT_NONE)
		sx_die_nomem();
}

/* The completer: an ACK, NAK or response for QP k->p.dst_qpn of rank r. */
void sx_completer(struct sx *x, uint32_t r, struct sx_pkt *k)
{
	struct sx_qp *qp = &x->rk[r].qp[k->p.dst_qpn];
	sim_time_ps now = sim_now(&x->eng);

	if (qp->error) {
		sx_pkt_put(x, k);
		return;
	}
	switch (k->p.op) {
	case SIM_BTH_ACK:
		switch (k->aeth) {
		case SX_AETH_ACK:
			sx_ack_upto(x, r, qp, k->ack_psn + 1);
			break;
		case SX_AETH_RNR_NAK:
			sx_ack_upto(x, r, qp, k->ack_psn);
			if (qp->rnr_wait)
				break;
			if (qp->rnr_left == 0) {
				sx_wqe_fail(x, r, qp->q, wqe_of_psn(qp, k->ack_psn),
					    CC_WC_RNR_RETRY_EXC_ERR);
				break;
			}
			if (qp->rnr_max != 7)
				qp->rnr_left--;
			qp->rnr_wait = true;
			qp->rnr_psn = k->ack_psn;
			qp->epoch++;
			if (sim_schedule(&x->eng, now + sim_rnr_timer_ps(x->f->rnic.min_rnr_timer),
					 rnr_timer, &x->rk[r], qp->q) == SIM_EVENT_NONE)
				sx_die_nomem();
			break;
		case SX_AETH_NAK_SEQ: {
			uint32_t i = wqe_of_psn(qp, k->ack_psn);

			sx_ack_upto(x, r, qp, k->ack_psn);
			if (qp->retry_left == 0) {
				sx_wqe_fail(x, r, qp->q, i, CC_WC_RETRY_EXC_ERR);
				break;
			}
			qp->retry_left--;
			/* Selective repeat resends the packet named; go-back-N
			 * (and a READ or atomic, asked again whole) everything
			 * from it on. */
			if (x->f->rnic.selective_repeat && i < qp->sq_n && qp->sq[i].started &&
			    !cc_opcode_rd_atomic(sx_wqe_send(x, r, &qp->sq[i])->opcode)) {
				SX_GROW(qp->sr_psn, qp->sr_n, qp->sr_cap);
				qp->sr_psn[qp->sr_n++] = k->ack_psn;
				sx_qp_wake(x, r, qp);
			} else {
				rewind_to(x, r, qp, k->ack_psn);
			}
			break;
		}
		default: {
			enum cc_wc_status st = cc_nak_wc((enum cc_nak)k->aeth);

			sx_ack_upto(x, r, qp, k->ack_psn);
			sx_wqe_fail(x, r, qp->q, wqe_of_psn(qp, k->ack_psn), st);
			break;
		}
		}
		sx_pkt_put(x, k);
		break;
	case SIM_BTH_READ_RESP_FIRST:
	case SIM_BTH_READ_RESP_MIDDLE:
	case SIM_BTH_READ_RESP_LAST:
	case SIM_BTH_READ_RESP_ONLY:
	case SIM_BTH_ATOMIC_ACK:
		sx_response_data(x, r, qp, k);
		return;
	default:
		DIE("rnic: opcode %s at a completer", sim_bth_info[k->p.op].name);
	}
	sx_port_fill(x, r, qp->port);
}

/* ---- the requester: WQEs into packets ---- */

/* Addresses packet k from rank r's QP qp to its peer, as opcode op with
 * `payload` bytes, and sizes it for the fabric's link layer. */
void sx_pkt_address(const struct sx *x, struct sx_pkt *k, uint32_t r, const struct sx_qp *qp,
		    enum sim_bth_op op, uint32_t payload)
{
	k->rank = r;
	k->qp = qp->q;
	k->port = qp->port;
	k->p.src_node = r;
	/* A multicast QP's requests are for its host's NVSwitch (sim/nvls.c). */
	k->p.dst_node = qp->mcast ? SIM_TOPO_MCAST : qp->peer;
	k->p.src_port = qp->port;
	k->p.src_qpn = qp->q;
	k->p.dst_qpn = qp->peer_q;
	k->p.psn = k->psn & 0xffffff;
	k->p.flow_id = sim_topo_qp_flow(r, qp->q);
	/* To the peer's NIC of this QP's channel, where it has several. */
	k->p.to_port = qp->peer_port != SX_NONE;
	k->p.dst_port = qp->peer_port;
	sx_pkt_size(x, k, qp->nvlink, op, payload);
}

void sx_pkt_size(const struct sx *x, struct sx_pkt *k, bool nvlink, enum sim_bth_op op,
		 uint32_t payload)
{
	const struct sim_host_params *h = &x->f->host;

	if (nvlink && h->nvlink_pkt_bytes)
		sim_packet_size_nvlink(&k->p, op, payload, h->nvlink_pkt_bytes,
				       h->nvlink_pkt_overhead_bytes);
	else
		sim_packet_size(&k->p, x->f->link.type, op, payload);
}

void sx_pkt_read_request(const struct sx *x, struct sx_pkt *k, bool nvlink, uint64_t len)
{
	const struct sim_host_params *h = &x->f->host;
	uint64_t b;

	if (!nvlink || !h->nvlink_pkt_bytes)
		return;
	b = sim_wire_nvlink_read_bytes(len, h->nvlink_pkt_bytes, h->nvlink_pkt_overhead_bytes);
	k->p.frame_bytes = k->p.wire_bytes = b > UINT32_MAX ? UINT32_MAX : (uint32_t)b;
}

/* Whether QP qp may make its next request packet now. */
static bool req_eligible(const struct sx *x, uint32_t r, const struct sx_qp *qp)
{
	if (qp->error || qp->rnr_wait || qp->cur >= qp->fetched)
		return false;
	if (qp->next_psn - qp->una_psn >= x->f->rnic.max_outstanding_pkts)
		return false;
	const struct sx_wqe *w = &qp->sq[qp->cur];
	if (w->started || qp->cur_pkt > 0)
		return true;
	const struct cc_op_send *o = sx_wqe_send(x, r, w);
	if (cc_opcode_rd_atomic(o->opcode) && qp->rd_out >= x->f->rnic.max_rd_atomic)
		return false;
	if ((o->flags & CC_SEND_FENCE) && qp->rd_out > 0)
		return false;
	return true;
}

static void read_done(struct sim_engine *eng, void *ctx, uint64_t arg, sim_time_ps done)
{
	struct sx_pkt *k = (struct sx_pkt *)(uintptr_t)arg;
	struct sx_rank *rk = ctx;

	(void)eng;
	(void)done;
	sx_pkt_snapshot(rk->x, k);
	k->ready = true;
	rk->port[k->port].reading--;
	sx_port_kick(rk->x, rk->r, k->port);
}

/* Queues k on its port, reading its payload first when it has one in
 * memory. */
void sx_port_stage(struct sx *x, uint32_t r, struct sx_pkt *k, bool needs_read)
{
	struct sx_port *pt = &x->rk[r].port[k->port];
	/* a member's share of a multicast READ belongs to no QP of its own */
	struct sx_qp *qp = k->kind == SX_PKT_MC_RESP ? NULL : &x->rk[r].qp[k->qp];

	if (qp && qp->cc.limited) {
		/* DCQCN: the next packet waits for this one's time at the rate. */
		qp->pace_last = sim_now(&x->eng);
		qp->pace_bytes = k->p.wire_bytes;
		sim_dcqcn_sent(&qp->cc, &x->f->cc, k->p.wire_bytes, qp->pace_last);
	}
	sim_pktq_push(&pt->stage, &k->p);
	k->ready = !needs_read;
	if (!needs_read) {
		sx_pkt_snapshot(x, k);
		return;
	}
	pt->reading++;
	/* A READ response returns what the WRITEs before it on its QP left:
	 * its read stays behind the writes queued upstream (sim/pcie.h). */
	if ((k->kind == SX_PKT_RESP ? sim_pcie_dma_read_ordered_via : sim_pcie_dma_read_via)(
		    pt->pcie, sx_pkt_source_uplink(x, k), k->p.payload_bytes, read_done,
		    &x->rk[r], (uint64_t)(uintptr_t)k))
		sx_die_nomem();
}

/* Starts WQE qp->cur on its first packet: the local side (L_Key, IBA
 * 10.6.3.1) is checked now.  False if it failed. */
static bool req_start(struct sx *x, uint32_t r, struct sx_qp *qp)
{
	struct sx_wqe *w = &qp->sq[qp->cur];
	const struct cc_op_send *o = sx_wqe_send(x, r, w);

	if (cc_send_local_sge(o) &&
	    !sx_find_mr(x, r, w->lkey, o->sge.offset, cc_wqe_len(o),
			cc_opcode_rd_atomic(o->opcode) ? CC_ACCESS_LOCAL_WRITE : 0)) {
		sx_wqe_fail(x, r, qp->q, qp->cur, CC_WC_LOC_PROT_ERR);
		return false;
	}
	w->started = true;
	w->first_psn = qp->next_psn;
	w->npsn = wqe_npsn(qp, o);
	w->t_first = sim_now(&x->eng);
	if (cc_opcode_rd_atomic(o->opcode))
		qp->rd_out++;
	return true;
}

/* Makes request packet `idx` of started WQE i, at PSN psn, and stages it;
 * *npkts is the WQE's packet count and *advance the PSNs the packet takes
 * (a READ request takes its responses'). */
static void req_packet(struct sx *x, uint32_t r, struct sx_qp *qp, uint32_t i, uint32_t idx,
		       uint32_t psn, uint32_t *npkts, uint32_t *advance)
{
	struct sx_wqe *w = &qp->sq[i];
	const struct cc_op_send *o = sx_wqe_send(x, r, w);
	struct sim_wire_seg seg;
	uint32_t payload = 0;
	enum sim_bth_op op;
	bool needs_read = false;

	*npkts = 1;
	*advance = 1;
	switch (o->opcode) {
	case CC_WR_RDMA_READ:
		op = SIM_BTH_READ_REQUEST;
		*advance = w->npsn;
		w->resp_next = w->first_psn; /* asked (again) from the start */
		break;
	case CC_WR_ATOMIC_FETCH_ADD:
		op = SIM_BTH_FETCH_ADD;
		w->resp_next = w->first_psn;
		break;
	case CC_WR_ATOMIC_CMP_SWP:
		op = SIM_BTH_COMPARE_SWAP;
		w->resp_next = w->first_psn;
		break;
	default:
		sx_segment(sim_msg_of_opcode(o->opcode), cc_wqe_len(o), qp->mtu, &seg);
		op = sim_wire_seg_pkt(&seg, idx, &payload);
		*npkts = seg.npkts;
		/* Over NVLink the peer GPU's memory is reached GPU to GPU: the
		 * payload never crosses the NIC's PCIe link. */
		needs_read = payload > 0 && !(o->flags & CC_SEND_INLINE) && !qp->nvlink;
		break;
	}

	struct sx_pkt *k = sx_pkt_get(x);
	k->kind = SX_PKT_REQ;
	k->wqe = i;
	k->idx = idx;
	k->epoch = qp->epoch;
	k->psn = psn;
	k->last_of_msg = idx + 1 == *npkts;
	k->retx = (int32_t)(psn - qp->max_psn) < 0;
	sx_pkt_address(x, k, r, qp, op, payload);
	if (op == SIM_BTH_READ_REQUEST)
		sx_pkt_read_request(x, k, qp->nvlink, cc_wqe_len(o));

	/* BTH AckReq (IBA 9.2): on a message's last packet, on the one that
	 * fills the window, so the responder's coalescing can never leave a
	 * full window waiting for an ACK, and on a selective resend, which
	 * the requester is waiting on. */
	k->ackreq = k->last_of_msg || psn != qp->next_psn ||
		    psn + *advance - qp->una_psn >= x->f->rnic.max_outstanding_pkts;
	sx_port_stage(x, r, k, needs_read);
}

/* Makes the next request packet of qp and stages it. */
static void req_make(struct sx *x, uint32_t r, struct sx_qp *qp)
{
	uint32_t npkts, advance;

	if (!qp->sq[qp->cur].started && !req_start(x, r, qp))
		return;
	req_packet(x, r, qp, qp->cur, qp->cur_pkt, qp->next_psn, &npkts, &advance);
	qp->next_psn += advance;
	if ((int32_t)(qp->next_psn - qp->max_psn) > 0)
		qp->max_psn = qp->next_psn;
	if (++qp->cur_pkt == npkts) {
		qp->cur++;
		qp->cur_pkt = 0;
	}
}

/* Selective repeat: resends the one packet a sequence NAK named. */
static void req_resend(struct sx *x, uint32_t r, struct sx_qp *qp)
{
	uint32_t psn = qp->sr_psn[--qp->sr_n];
	uint32_t i = wqe_of_psn(qp, psn), npkts, advance;

	if (i >= qp->sq_n || !qp->sq[i].started || (int32_t)(psn - qp->una_psn) < 0)
		return; /* acknowledged meanwhile */
	req_packet(x, r, qp, i, psn - qp->sq[i].first_psn, psn, &npkts, &advance);
}

/* DCQCN pacing: a rate-limited QP may make its next packet once the one
 * before has had its time at the QP's rate — the rate as it is now, so a
 * rate that recovered meanwhile shortens the wait, as a NIC's rate
 * limiter re-reads its rate (ns-3's DCQCN, RdmaHw::ChangeRate, moves a
 * waiting QP's next send the same way).  *at: when to look again, if it
 * may not send now: when its packet's time is up, or at the next timer
 * step if that comes first, since the step may raise the rate (a QP cut
 * to 13 Mb/s would otherwise sleep 2.5 ms on one 4 KiB packet while its
 * rate came back to 50 Gb/s at the next 300 us step). */
static bool qp_paced(struct sx *x, struct sx_qp *qp, sim_time_ps *at)
{
	sim_time_ps now = sim_now(&x->eng);

	if (!qp->cc.limited || !qp->pace_bytes)
		return false;
	uint64_t rate = sim_dcqcn_rate(&qp->cc, &x->f->cc, now);

	if (!qp->cc.limited)
		return false;
	*at = qp->pace_last + sim_serialize_ps(qp->pace_bytes, rate);
	if (*at <= now)
		return false;
	if (qp->cc.next_timer < *at) /* after sim_dcqcn_rate(): later than now */
		*at = qp->cc.next_timer;
	return true;
}

static void pace_wake(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sx_rank *rk = ctx;
	struct sx_port *pt = &rk->port[arg];

	if (pt->wake_at != sim_now(eng))
		return; /* superseded by an earlier wake-up */
	pt->wake_at = 0;
	sx_port_fill(rk->x, rk->r, (uint32_t)arg);
}

/* Wakes port `port` at t, unless a wake-up is due sooner. */
static void pace_wake_at(struct sx *x, uint32_t r, uint32_t port, sim_time_ps t)
{
	struct sx_port *pt = &x->rk[r].port[port];

	if (pt->wake_at && pt->wake_at <= t)
		return;
	pt->wake_at = t;
	if (sim_schedule(&x->eng, t, pace_wake, &x->rk[r], port) == SIM_EVENT_NONE)
		sx_die_nomem();
}

/* The first index in [from, to) whose bit is set in b, or `to`. */
static uint32_t bit_next(const uint64_t *b, uint32_t from, uint32_t to)
{
	while (from < to) {
		uint64_t w = b[from / 64] >> (from % 64);

		if (w) {
			from += (uint32_t)__builtin_ctzll(w);
			return from < to ? from : to;
		}
		from = (from / 64 + 1) * 64;
	}
	return to;
}

/* Makes one packet for port `port` from the first of its QPs, round robin
 * from pt->rr, that can send: READ responses a QP owes first, then its
 * own requests.  What the port owes its NVSwitch's reductions
 * (sim/nvls.c) takes its turn after the last QP, as one more.  Only the
 * QPs in pt->ready are looked at; one found with nothing to send leaves
 * it.  Returns the index that sent, or SX_NONE; *wake: the earliest a
 * paced QP passed over may send. */
static uint32_t port_pick(struct sx *x, uint32_t r, uint32_t port, sim_time_ps *wake)
{
	struct sx_rank *rk = &x->rk[r];
	struct sx_port *pt = &rk->port[port];
	uint32_t nqps = x->s->ranks[r].nqps, from = pt->rr, to = nqps + 1;

	for (int pass = 0; pass < 2; pass++, to = pt->rr, from = 0) {
		for (uint32_t q = bit_next(pt->ready, from, to); q < to;
		     q = bit_next(pt->ready, q + 1, to)) {
			if (q == nqps) {
				if (!sx_nvls_owes(x, r, port))
					continue;
				sx_nvls_resp_make(x, r, port);
				return q;
			}
			struct sx_qp *qp = &rk->qp[q];

			if (qp->error || (qp->rd_head == qp->rd_n && !qp->sr_n &&
					  qp->cur >= qp->fetched)) {
				pt->ready[q / 64] &= ~(UINT64_C(1) << (q % 64));
				continue;
			}
			bool resp = qp->rd_head < qp->rd_n;
			bool resend = !qp->rnr_wait && qp->sr_n;

			if (!(resp || resend || req_eligible(x, r, qp)))
				continue;
			sim_time_ps at;

			if (qp_paced(x, qp, &at)) {
				if (at < *wake)
					*wake = at;
				continue;
			}
			if (resp)
				sx_resp_read_make(x, r, qp);
			else if (resend)
				req_resend(x, r, qp);
			else
				req_make(x, r, qp);
			return q;
		}
	}
	return SX_NONE;
}

/* Fills port `port`'s transmit queue from its QPs, one packet at a time,
 * round robin (port_pick). */
void sx_port_fill(struct sx *x, uint32_t r, uint32_t port)
{
	struct sx_port *pt = &x->rk[r].port[port];
	uint32_t n = x->s->ranks[r].nqps + 1;
	sim_time_ps wake = SIM_TIME_NEVER;

	while (pt->stage.count < pt->prefetch) {
		uint32_t q = port_pick(x, r, port, &wake);

		if (q == SX_NONE)
			break;
		pt->rr = (q + 1) % n;
	}
	if (wake != SIM_TIME_NEVER && pt->stage.count < pt->prefetch)
		pace_wake_at(x, r, port, wake);
	sx_port_kick(x, r, port);
}

/* ---- the transmitter ---- */

static void nic_rx(struct sx *x, uint32_t r, struct sx_pkt *k);

static void loopback_arrive(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sx_rank *rk = ctx;

	(void)eng;
	nic_rx(rk->x, rk->r, (struct sx_pkt *)(uintptr_t)arg);
}

static void loopback_sent(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sx_rank *rk = ctx;

	(void)eng;
	sx_port_kick(rk->x, rk->r, (uint32_t)arg);
}

/* A packet of a QP connected to its own NIC (NCCL's GDR flush QP) turns
 * round inside the NIC: it takes its turn at the port like any other,
 * but never reaches the wire, so it counts no wire bytes, meets no link,
 * switch, credit or loss, and is at the receive side's end after the
 * receive pipeline, rnic.resp_proc_ps.  The port is free again at once. */
static void loopback(struct sx *x, uint32_t r, struct sx_pkt *k)
{
	sim_time_ps now = sim_now(&x->eng);

	k->rx_nvlink = false;
	if (sim_schedule(&x->eng, now + x->f->rnic.resp_proc_ps, loopback_arrive, &x->rk[r],
			 (uint64_t)(uintptr_t)k) == SIM_EVENT_NONE ||
	    sim_schedule(&x->eng, now, loopback_sent, &x->rk[r], k->port) == SIM_EVENT_NONE)
		sx_die_nomem();
}

static void transmit(struct sx *x, uint32_t r, struct sx_pkt *k)
{
	struct sx_rank *rk = &x->rk[r];
	sim_time_ps now = sim_now(&x->eng);

	if (k->p.dst_node != r) {
		rk->st->wire_bytes += k->p.wire_bytes;
		rk->st->wire_pkts++;
		rk->st->payload_bytes += k->p.payload_bytes;
	}
	k->t0 = now;
	if (k->kind == SX_PKT_REQ) {
		struct sx_qp *qp = &rk->qp[k->qp];
		struct sx_wqe *w = &qp->sq[k->wqe];

		if (k->retx) {
			rk->st->retx_pkts++;
			rk->st->retx_bytes += k->p.wire_bytes;
		} else {
			uint64_t len = cc_wqe_len(sx_wqe_send(x, r, w));

			if (k->idx == 0) {
				if (w->t_first < now)
					sx_trace(x, CC_TRACE_DMA_READ, r, CC_TRACE_NIC, k->qp, w->op,
						 w->t_first, now - w->t_first, len);
				sx_trace(x, CC_TRACE_TX_FIRST, r, CC_TRACE_NIC, k->qp, w->op, now,
					 0, len);
			}
			if (k->last_of_msg)
				sx_trace(x, CC_TRACE_TX_LAST, r, CC_TRACE_NIC, k->qp, w->op, now,
					 0, len);
		}
		arm_ack_timer(x, r, qp);
	}
	if (k->p.dst_node == r)
		loopback(x, r, k);
	else
		sim_link_send(rk->port[k->port].tx, &k->p);
}

/* Puts the next packet on the wire if the port is idle: ACKs and NAKs
 * first, then the head of the staged packets once its payload is in. */
void sx_port_kick(struct sx *x, uint32_t r, uint32_t port)
{
	struct sx_rank *rk = &x->rk[r];
	struct sx_port *pt = &rk->port[port];

	if (!sim_link_can_queue(pt->tx))
		return;
	if (!sim_pktq_empty(&pt->ctrl)) {
		transmit(x, r, (struct sx_pkt *)sim_pktq_pop(&pt->ctrl));
		return;
	}
	for (bool dropped = false;;) {
		struct sx_pkt *k = (struct sx_pkt *)pt->stage.head;

		if (!k || !k->ready) {
			/* Dropping stale packets made room: fill it, or the
			 * port would wait for an unrelated event (a timeout). */
			if (dropped)
				sx_port_fill(x, r, port);
			return;
		}
		sim_pktq_pop(&pt->stage);
		if (k->kind == SX_PKT_REQ) {
			struct sx_qp *qp = &rk->qp[k->qp];

			if (k->epoch != qp->epoch || qp->error) {
				sx_pkt_put(x, k); /* made before a rewind or an error */
				dropped = true;
				continue;
			}
		}
		transmit(x, r, k);
		break;
	}
	sx_port_fill(x, r, port);
}

static void port_sent(struct sim_engine *eng, void *ctx, uint32_t port, uint32_t frame,
		      uint32_t wire)
{
	struct sx_rank *rk = ctx;

	(void)eng;
	(void)frame;
	(void)wire;
	sx_port_kick(rk->x, rk->r, port);
}

/* A packet starts to serialize on the port: its time on the wire, as a
 * span of exactly the link's serialization time (start + wire bytes x 8 /
 * rate, as sim/link.c charges it), on the port's track.  Registered only
 * when tracing, so an untraced run does not even make the call. */
static void port_started(void *ctx, uint32_t port, struct sim_packet *pkt)
{
	struct sx_rank *rk = ctx;
	struct sx *x = rk->x;
	const struct sx_pkt *k = (const struct sx_pkt *)pkt;
	uint32_t qp = SX_NONE, op = SX_NONE;

	if (k->kind == SX_PKT_REQ && k->rank == rk->r) {
		qp = k->qp;
		op = rk->qp[k->qp].sq[k->wqe].op;
	} else if (k->kind == SX_PKT_RESP && k->rank == rk->r) {
		qp = k->qp;
	}
	sx_trace(x, CC_TRACE_WIRE, rk->r, cc_trace_port(port), qp, op, sim_now(&x->eng),
		 sim_link_ser_ps(rk->port[port].tx, pkt->wire_bytes), pkt->wire_bytes);
}

/* ---- doorbells and WQE fetch ---- */

/* QP qp holds new WQEs: its port's arbiter looks at it, or under the flow
 * model its next message starts (sim/rnic_flow.c). */
static void wqes_in(struct sx *x, uint32_t r, struct sx_qp *qp)
{
	if (x->fl) {
		sx_flow_kick(x, r, qp);
		return;
	}
	sx_qp_wake(x, r, qp);
	sx_port_fill(x, r, qp->port);
}

void sx_nic_doorbell(struct sx *x, uint32_t r, uint32_t q, uint32_t nwqe)
{
	struct sx_rank *rk = &x->rk[r];
	struct sx_qp *qp = &rk->qp[q];
	uint32_t unrung = qp->sq_n - qp->rung;
	struct sx_pkt *k;

	/* A doorbell hands over what was posted; it cannot cover more. */
	qp->rung += nwqe < unrung ? nwqe : unrung;
	if (qp->error)
		return;
	if (qp->nvlink) {
		/* NCCL's P2P transport: the GPU's threads issue the stores
		 * themselves; there is no NIC to ring nor WQE to fetch
		 * (sim/exec.c op_p2p). */
		if (qp->rung > qp->fetched) {
			qp->fetched = qp->rung;
			wqes_in(x, r, qp);
		}
		return;
	}
	k = sx_pkt_get(x);
	k->kind = SX_PKT_DOORBELL;
	k->rank = r;
	k->qp = q;
	k->wqe = qp->rung;
	/* BlueFlame: one WQE rides in the doorbell's MMIO write itself. */
	k->idx = nwqe == 1 && x->f->rnic.wqe_bytes <= x->f->rnic.bf_max_bytes;
	sim_pipe_push(&rk->db_pipe, &k->p, sim_now(&x->eng) + x->f->rnic.doorbell_ps);
}

static void doorbell_arrive(struct sim_engine *eng, void *ctx, uint32_t port,
			    struct sim_packet *pkt)
{
	struct sx_rank *rk = ctx;
	struct sx_pkt *k = (struct sx_pkt *)pkt;
	const struct sim_rnic_params *n = &rk->x->f->rnic;

	struct sx_qp *qp = &rk->qp[k->qp];

	(void)port;
	k->t0 = sim_now(eng);
	k->kind = SX_PKT_FETCH;
	/* A BlueFlame WQE must not overtake WQEs of the same QP still being
	 * fetched: the NIC takes a QP's doorbells in order, so behind a fetch
	 * it waits for that fetch too. */
	if (k->idx && qp->fetching == 0) {
		sim_pipe_push(&rk->bf_pipe, pkt, sim_now(eng) + n->req_proc_ps);
		return;
	}
	k->idx = 0;
	qp->fetching++;
	sim_pipe_push(&rk->fetch_pipe, pkt, sim_now(eng) + n->wqe_fetch_ps + n->req_proc_ps);
}

static void wqes_fetched(struct sim_engine *eng, void *ctx, uint32_t port, struct sim_packet *pkt)
{
	struct sx_rank *rk = ctx;
	struct sx *x = rk->x;
	struct sx_pkt *k = (struct sx_pkt *)pkt;
	struct sx_qp *qp = &rk->qp[k->qp];

	(void)port;
	if (!k->idx)
		qp->fetching--; /* it came by DMA, not BlueFlame */
	if (!qp->error && k->wqe > qp->fetched) {
		uint32_t first = qp->fetched;

		qp->fetched = k->wqe;
		sx_trace(x, CC_TRACE_WQE_FETCH, rk->r, CC_TRACE_NIC, qp->q, qp->sq[first].op, k->t0,
			 sim_now(eng) - k->t0, (uint64_t)(k->wqe - first) * x->f->rnic.wqe_bytes);
		wqes_in(x, rk->r, qp);
	}
	sx_pkt_put(x, k);
}

/* ---- receive ---- */

/* DCQCN's notification point: a CE-marked packet for local QP qp asks its
 * sender to slow down — a CNP to the peer QP, at most one per
 * cc.cnp_interval_ps (NVIDIA min_time_between_cnps).  CNPs skip the data
 * queue, as they ride a strict-priority class (Cumulus: TC 6). */
static void ecn_marked(struct sx *x, uint32_t r, struct sx_qp *qp)
{
	sim_time_ps now = sim_now(&x->eng);
	struct sx_rank *rk = &x->rk[r];
	struct sx_pkt *k;

	rk->st->ecn_rx++;
	if (!x->f->cc.dcqcn || (qp->cnp_sent && now - qp->cnp_last < x->f->cc.cnp_interval_ps))
		return;
	qp->cnp_sent = true;
	qp->cnp_last = now;
	k = sx_pkt_get(x);
	k->kind = SX_PKT_CNP;
	sx_pkt_address(x, k, r, qp, SIM_BTH_CNP, 0);
	rk->st->cnps_sent++;
	sim_pktq_push(&rk->port[qp->port].ctrl, &k->p);
	sx_port_kick(x, r, qp->port);
}

/* DCQCN's reaction point: the QP the CNP names cuts its rate. */
static void cnp_arrive(struct sx *x, uint32_t r, struct sx_pkt *k)
{
	struct sx_qp *qp = &x->rk[r].qp[k->p.dst_qpn];

	x->rk[r].st->cnps_rx++;
	if (x->f->cc.dcqcn && !qp->error)
		sim_dcqcn_cnp(&qp->cc, &x->f->cc, sim_now(&x->eng));
	sx_pkt_put(x, k);
}

/* A packet at the end of rank r's receive pipeline. */
static void nic_rx(struct sx *x, uint32_t r, struct sx_pkt *k)
{
	struct sx_rank *rk = &x->rk[r];

	if (k->kind == SX_PKT_CNP) {
		cnp_arrive(x, r, k);
		return;
	}
	/* A switch's own packet (an NVSwitch's copy, a SHARP result) has no
	 * NIC behind it to slow down: no CNP for its mark. */
	if (k->p.ecn_ce && !k->by_switch)
		ecn_marked(x, r, &rk->qp[k->p.dst_qpn]);
	if (k->kind == SX_PKT_REQ) {
		struct sx_qp *qp = &rk->qp[k->p.dst_qpn];

		sx_responder(x, r, k);
		sx_responder_drain(x, r, qp);
	} else {
		sx_completer(x, r, k);
	}
}

static void port_rx(struct sim_engine *eng, void *ctx, uint32_t port, struct sim_packet *pkt,
		    sim_time_ps last_ps)
{
	struct sx_rank *rk = ctx;
	struct sx *x = rk->x;
	struct sx_pkt *k = (struct sx_pkt *)pkt;
	struct sx_rank *src = &x->rk[k->rank];

	(void)eng;
	k->rx_nvlink = rk->port[port].nvlink;
	k->rx_port = port;
	if (k->kind == SX_PKT_MC_READ || k->kind == SX_PKT_MC_WRITE) {
		sx_nvls_rx(x, rk->r, port, k); /* an NVSwitch's read, or a store's copy */
		return;
	}
	/* Time in switches: from its last bit in at the first switch
	 * (store-and-forward would start there; cut-through starts earlier,
	 * which only adds) to its last bit out of the last, counted once per
	 * sender however many overlap.  The first link is the one it left
	 * by, the last the one it came in on. */
	if (x->topo.nsw && !k->by_switch) {
		const struct sim_link_dir *first = src->port[k->port].tx;
		sim_time_ps in = k->t0 + sim_link_ser_ps(first, k->p.wire_bytes) + first->prop_ps;
		sim_time_ps out = last_ps - sim_topo_nic_rx(&x->topo, rk->r, port)->prop_ps;

		if (in < src->sw_covered)
			in = src->sw_covered;
		if (out > in) {
			src->st->busy_ps[CC_SIM_SWITCH] += out - in;
			src->sw_covered = out;
		}
	}
	/* The link delivered it rnic.resp_proc_ps after its last bit (the
	 * receive pipeline, sim_link_set_rx_delay()): process it now. */
	nic_rx(x, rk->r, k);
}

/* ---- setup ---- */

uint32_t sx_port_prefetch(const struct sim_params *f, uint64_t rate_bps, uint32_t mtu_bytes)
{
	const struct sim_pcie_params *pc = &f->pcie;
	uint64_t mtu = mtu_bytes;
	uint64_t cpls = (mtu + pc->mps_bytes - 1) / pc->mps_bytes;
	/* One MTU's read on an idle link (sim/pcie.h's closed form): its MRd
	 * up, a latency, its CplDs down, a latency. */
	sim_time_ps rtt = 2 * pc->latency_ps;

	if (pc->rate_bps)
		rtt += sim_serialize_ps(pc->tlp_overhead_bytes, pc->rate_bps) +
		       sim_serialize_ps(mtu + cpls * pc->cpl_overhead_bytes, pc->rate_bps);
	/* What the wire sends meanwhile, in packets of an MTU, doubled. */
	unsigned __int128 bits = (unsigned __int128)rtt * rate_bps;
	unsigned __int128 per_pkt = (unsigned __int128)mtu * 8u * SIM_PS_PER_S;
	unsigned __int128 n = 2 * ((bits + per_pkt - 1) / per_pkt);

	if (n < SX_TX_PREFETCH_MIN)
		return SX_TX_PREFETCH_MIN;
	return n > SX_TX_PREFETCH_MAX ? SX_TX_PREFETCH_MAX : (uint32_t)n;
}

int sx_nic_init(struct sx *x, uint32_t r)
{
	struct sx_rank *rk = &x->rk[r];
	struct sim_engine *eng = &x->eng;
	uint32_t nports = sim_topo_nic_nports(&x->topo, r), nqps = x->s->ranks[r].nqps;
	int err = sim_pcie_init(&rk->pcie, eng, &x->f->pcie);
	uint32_t nic = 0;

	if (err)
		return err;
	if (rk->nnics > 1) {
		rk->nic_pcie = calloc(rk->nnics - 1, sizeof(*rk->nic_pcie));
		if (!rk->nic_pcie)
			return -ENOMEM;
		for (uint32_t i = 0; i + 1 < rk->nnics; i++)
			if ((err = sim_pcie_init(&rk->nic_pcie[i], eng, &x->f->pcie)))
				return err;
	}
	if (nports) {
		rk->port = calloc(nports, sizeof(*rk->port));
		if (!rk->port)
			return -ENOMEM;
	}
	for (uint32_t p = 0; p < nports; p++) {
		rk->port[p].tx = sim_topo_nic_tx(&x->topo, r, p);
		rk->port[p].prefetch = SX_TX_PREFETCH_MIN;
		rk->port[p].ready = calloc(nqps / 64 + 1, sizeof(uint64_t));
		if (!rk->port[p].ready)
			return -ENOMEM;
		/* the NVLS share: looked at in its turn, whatever it owes */
		rk->port[p].ready[nqps / 64] |= UINT64_C(1) << (nqps % 64);
		sim_link_on_sent(rk->port[p].tx, port_sent, rk, p);
		if (x->o->trace)
			sim_link_on_start(rk->port[p].tx, port_started, rk, p);
		sim_link_connect(sim_topo_nic_rx(&x->topo, r, p), port_rx, rk, p);
		rk->port[p].nvlink = sim_topo_nic_port_nvlink(&x->topo, r, p);
		/* Network port i is NIC i's where the GPU has several. */
		rk->port[p].pcie = &rk->pcie;
		if (!rk->port[p].nvlink && rk->nnics > 1 && nic++)
			rk->port[p].pcie = &rk->nic_pcie[nic - 2];
		/* A GPU takes in NVLink traffic itself: no NIC pipeline. */
		sim_link_set_rx_delay(sim_topo_nic_rx(&x->topo, r, p),
				      rk->port[p].nvlink ? 0 : x->f->rnic.resp_proc_ps);
	}
	/* Deep enough for the smallest path MTU of the port's QPs (a topology
	 * may set it per link); an NVLink port reads nothing over PCIe and
	 * keeps the floor. */
	for (uint32_t q = 0; q < x->s->ranks[r].nqps; q++) {
		const struct sx_qp *qp = &rk->qp[q];
		struct sx_port *pt = &rk->port[qp->port];
		uint32_t n = qp->nvlink ? SX_TX_PREFETCH_MIN
					: sx_port_prefetch(x->f, pt->tx->rate_bps, qp->mtu);

		if (n > pt->prefetch)
			pt->prefetch = n;
	}
	sim_pipe_init(&rk->db_pipe, eng, doorbell_arrive, rk, 0);
	sim_pipe_init(&rk->bf_pipe, eng, wqes_fetched, rk, 0);
	sim_pipe_init(&rk->fetch_pipe, eng, wqes_fetched, rk, 0);
	sim_pipe_init(&rk->cqe_pipe, eng, cqe_arrive, rk, 0);
	sim_pipe_init(&rk->atomic_pipe, eng, sx_atomic_done, rk, 0);
	return 0;
}

void sx_nic_destroy(struct sx *x, uint32_t r)
{
	struct sx_rank *rk = &x->rk[r];

	sim_pcie_destroy(&rk->pcie);
	for (uint32_t i = 0; rk->nic_pcie && i + 1 < rk->nnics; i++)
		sim_pcie_destroy(&rk->nic_pcie[i]);
	free(rk->nic_pcie);
	rk->nic_pcie = NULL;
	for (uint32_t p = 0; rk->port && p < sim_topo_nic_nports(&x->topo, r); p++) {
		free(rk->port[p].mc);
		free(rk->port[p].ready);
	}
	free(rk->port);
	rk->port = NULL;
}
