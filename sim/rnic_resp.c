/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/rnic_resp.c — the simulated RNIC's responder, and the requester's
 * side of READ and atomic responses.
 *
 * The PSN checks are the simulator's own, as rxe_resp.c's check_psn:
 *   - an old PSN is a duplicate (re-ACKed, a READ answered again); a PSN
 *     ahead of the expected one gets one sequence-error NAK (IBA
 *     9.7.5.1.3) and is dropped — or, with rnic.selective_repeat, kept in
 *     PSN order until the gap is filled.
 * The request checks after them are core/resp_check.h's, the data
 * executor's too, so both end a bad schedule with the same completion:
 * run on each packet, the R_Key at the first (over the whole message), a
 * receive WQE taken by a SEND's first packet and a WRITE_WITH_IMM's last.
 * A refusal is an RNR NAK, or a NAK and the QP to error (rxe
 * do_class_ac_error).
 * An accepted packet's payload is DMA-written over PCIe (not one that came
 * over NVLink: it is in GPU memory already); the bytes move when that write
 * is done, and a receive CQE follows it.  ACKs go out every
 * rnic.ack_coalesce_pkts packets and at the end of every message.
 */
#include "sim/exec_int.h"

#include <stdlib.h>
#include <string.h>

#include "core/word.h"
#include "sim/model.h"

static void send_ack(struct sx *x, uint32_t r, struct sx_qp *qp, enum sx_aeth aeth, uint32_t psn)
{
	struct sx_pkt *k;
	struct sx_rank *rk = &x->rk[r];

	/* Fault injection (sim/fault.h no-ack): a NIC that stopped
	 * acknowledging sends nothing; the requester's ACK timer fires.  A
	 * multicast QP's requests are a SHARP switch's results, which it
	 * sends once and hears no answer to (sim/sharp.c). */
	if (sx_no_ack(x, r) || qp->mcast)
		return;
	k = sx_pkt_get(x);

	k->kind = SX_PKT_RESP;
	k->aeth = aeth;
	k->ack_psn = psn;
	k->psn = psn;
	sx_pkt_address(x, k, r, qp, SIM_BTH_ACK, 0);
	rk->st->acks++;
	if (aeth == SX_AETH_RNR_NAK)
		rk->st->rnr_naks++;
	sim_pktq_push(&rk->port[qp->port].ctrl, &k->p);
	sx_port_kick(x, r, qp->port);
}

/* The responder's QP fails: NAK the requester, flush here. */
static void resp_error(struct sx *x, uint32_t r, struct sx_qp *qp, enum sx_aeth aeth, uint32_t psn)
{
	send_ack(x, r, qp, aeth, psn);
	sx_qp_flush(x, r, qp->q);
}


/* Where payload packet k of a request comes from at its requester. */
static void req_source(const struct sx *x, const struct sx_pkt *k, uint32_t *buf, uint64_t *off,
		       bool *inl, uint64_t *value)
{
	const struct sx_wqe *w = &x->rk[k->rank].qp[k->qp].sq[k->wqe];
	const struct cc_op_send *o = sx_wqe_send(x, k->rank, w);

	*inl = o->flags & CC_SEND_INLINE;
	*value = o->inline_value;
	*buf = SX_NONE;
	*off = o->sge.offset + (uint64_t)k->idx * x->rk[k->rank].qp[k->qp].mtu;
	if (!*inl && o->num_sge) {
		const struct cc_mr *mr = sx_find_mr(x, k->rank, w->lkey, o->sge.offset,
						    cc_wqe_len(o), 0);
		if (mr)
			*buf = mr->buf;
	}
}

/* The payload of k as its NIC reads it — its DMA read done, or staged with
 * none (NVLink) — copied into the packet when the run carries the source.
 * What lands at the receiver is then what the sender's NIC read, not what
 * the sender's memory holds when the receiver's PCIe write ends: by then
 * the sender may have had its ACK and refilled the slot (a PCIe latency
 * longer than the ACK's way back). */
void sx_pkt_snapshot(struct sx *x, struct sx_pkt *k)
{
	uint32_t len = k->p.payload_bytes, buf = SX_NONE;
	uint64_t off = 0, value;
	bool inl = false;

	if (!len || k->data)
		return;
	if (k->kind == SX_PKT_REQ)
		req_source(x, k, &buf, &off, &inl, &value);
	else if ((k->kind == SX_PKT_RESP && k->p.op != SIM_BTH_ATOMIC_ACK) ||
		 k->kind == SX_PKT_MC_RESP)
		buf = k->buf, off = k->off; /* a READ response: the responder's memory */
	if (inl) {
		k->inl = true;
		k->inl_value = value;
		return;
	}
	if (buf == SX_NONE || !x->rk[k->rank].mem[buf])
		return;
	k->data = malloc(len);
	if (!k->data)
		sx_die_nomem();
	memcpy(k->data, x->rk[k->rank].mem[buf] + off, len);
}

struct sim_pcie_uplink *sx_buf_uplink(const struct sx *x, uint32_t r, uint32_t buf)
{
	struct sx_rank *rk = &x->rk[r];

	if (buf == SX_NONE)
		return NULL;
	if (rk->xsocket)
		return rk->xsocket; /* host memory and the GPU both on the other socket */
	if (x->s->ranks[r].bufs[buf].mem == CC_MEM_GPU)
		return rk->nnics > 1 ? &rk->gpu_link : NULL;
	return rk->uplink;
}

struct sim_pcie_uplink *sx_pkt_source_uplink(const struct sx *x, const struct sx_pkt *k)
{
	uint32_t buf = SX_NONE;
	uint64_t off, value;
	bool inl = false;

	if (!x->rk[k->rank].uplink && x->rk[k->rank].nnics < 2 && !x->rk[k->rank].xsocket)
		return NULL;
	if (k->kind == SX_PKT_REQ)
		req_source(x, k, &buf, &off, &inl, &value);
	else
		buf = k->buf; /* a READ response or a multicast share: the responder's memory */
	return inl ? NULL : sx_buf_uplink(x, k->rank, buf);
}

/* The payload of request packet k is in the responder's memory. */
static void req_written(struct sim_engine *eng, void *ctx, uint64_t arg, sim_time_ps done)
{
	struct sx_rank *rk = ctx;
	struct sx *x = rk->x;
	struct sx_pkt *k = (struct sx_pkt *)(uintptr_t)arg;
	uint32_t len = k->p.payload_bytes;

	(void)eng;
	if (len && x->rk[rk->r].mem[k->buf]) {
		/* what the sender's NIC took (sx_pkt_snapshot), not what its op
		 * holds now */
		if (k->inl) {
			uint8_t word[8];

			cc_word_store(word, k->inl_value);
			memcpy(x->rk[rk->r].mem[k->buf] + k->off, word, len);
		} else if (k->data) {
			memcpy(x->rk[rk->r].mem[k->buf] + k->off, k->data, len);
		}
	}
	if (len)
		sx_mem_written(x, rk->r, k->buf, k->off, len);
	if (k->last_of_msg) {
		struct sx_qp *qp = &rk->qp[k->p.dst_qpn];
		const struct sx_wqe *w = &x->rk[k->rank].qp[k->qp].sq[k->wqe];

		/* The message's bytes; the op is the receive it fills, if any. */
		sx_trace(x, CC_TRACE_DMA_WRITE, rk->r, CC_TRACE_NIC, qp->q, k->op, qp->t_rx_first,
			 done - qp->t_rx_first, cc_wqe_len(sx_wqe_send(x, k->rank, w)));
	}
	if (k->last_of_msg && k->op != SX_NONE) {
		/* A receive completion, after the payload it reports. */
		k->qp = k->p.dst_qpn;
		k->is_recv = true;
		k->cq = x->s->ranks[rk->r].qps[k->qp].recv_cq;
		k->status = CC_WC_SUCCESS;
		sim_time_ps cw = sx_cqe_write_ps(x, &rk->qp[k->qp]);

		sx_cqe_push(x, rk->r, k, k->t0 + cw > done ? k->t0 + cw : done);
		return;
	}
	sx_pkt_put(x, k);
}

/* DMA-writes k's payload into rank r's buffer buf; fn runs when it is in.  A
 * packet that came over NVLink is already in GPU memory: NVLink carries
 * it GPU to GPU, never across the NIC's PCIe link. */
static void dma_write(struct sx *x, uint32_t r, struct sx_pkt *k, uint32_t buf, uint32_t len,
		      sim_pcie_done_fn fn)
{
	struct sx_rank *rk = &x->rk[r];
	/* The NIC of the port it came in by (a GPU with several). */
	struct sim_pcie *link = rk->nnics > 1 && k->rx_port < sim_topo_nic_nports(&x->topo, r)
					? rk->port[k->rx_port].pcie
					: &rk->pcie;
	int err;

	if (k->rx_nvlink) {
		fn(&x->eng, rk, (uint64_t)(uintptr_t)k, sim_now(&x->eng));
		return;
	}
	/* Nothing to write (a zero-length WRITE WITH IMM after its WRITE):
	 * what follows it lands behind the writes before it, which a shared
	 * link (a PCIe switch's uplink, the GPU's link under several NICs) may
	 * hold back.  Without one, the completion is not held (as before the
	 * shared links: a stored figure would move, docs/simulator.md). */
	if (len == 0 && !rk->uplink && rk->nnics < 2 && !rk->xsocket) {
		fn(&x->eng, rk, (uint64_t)(uintptr_t)k, sim_now(&x->eng));
		return;
	}
	err = len == 0 ? sim_pcie_after_writes(link, fn, rk, (uint64_t)(uintptr_t)k)
		       : sim_pcie_dma_write_via(link, sx_buf_uplink(x, r, buf), len, fn, rk,
						(uint64_t)(uintptr_t)k);
	if (err)
		sx_die_nomem();
}

/* The request checks (core/resp_check.h) on packet k of WQE w (op o),
 * against the receive WQE at the head of qp's receive queue. */
static enum cc_resp_state check(struct sx *x, uint32_t r, const struct sx_qp *qp,
				const struct sx_wqe *w, const struct cc_op_send *o, uint32_t flags,
				struct cc_resp_found *f)
{
	/* Only a packet that takes a receive WQE reads one (every use in
	 * cc_resp_check() is under takes_rwqe): the middle packets of a WRITE
	 * do not touch the receive queue, which at scale is a cache miss or
	 * two a packet. */
	uint32_t rop = (flags & SIM_PKT_RWQE) && qp->rq_head < qp->rq_n ? qp->rq[qp->rq_head]
									  : SX_NONE;
	const struct cc_op_recv *rv = rop == SX_NONE ? NULL : &cc_rank_op(&x->s->ranks[r], rop)->u.recv;
	struct cc_resp_req q = { .opcode = o->opcode, .first = flags & SIM_PKT_FIRST,
				 .takes_rwqe = flags & SIM_PKT_RWQE, .len = cc_wqe_len(o),
				 .rkey = w->rkey, .va = o->remote_offset };
	/* A receive's L_Key as posted: a CC_FAULT_LKEY on it too. */
	struct cc_resp_qp p = {
		.rs = &x->s->ranks[r], .keys = x->rk[r].key, .recv = rv,
		.recv_lkey = rv && rv->num_sge
				     ? x->rk[r].key[rv->sge.mr] ^
					       cc_fault_key_flip(x->o->faults, x->o->nfaults,
								 CC_FAULT_LKEY, r, rop)
				     : 0,
	};

	return cc_resp_check(&q, &p, f);
}

/* The checks refused packet k in state st: an RNR NAK (nothing else
 * changes, IBA 9.7.5.2.8), or a NAK and the QP to error.  A SEND refused
 * for its receive WQE's buffer or key consumes that WQE, which completes
 * with the error; a WRITE_WITH_IMM refused for its R_Key leaves its receive
 * WQE to the flush: at the first packet, where the R_Key is checked, a
 * multi-packet one has taken none yet. */
static void refuse(struct sx *x, uint32_t r, struct sx_qp *qp, struct sx_pkt *k,
		   enum cc_resp_state st)
{
	if (st == CC_RESP_ERR_RNR) {
		qp->nak_out = true;
		send_ack(x, r, qp, SX_AETH_RNR_NAK, k->psn);
	} else {
		if (st == CC_RESP_ERR_LENGTH || st == CC_RESP_ERR_MALFORMED_WQE)
			sx_cqe_new(x, r, qp->q, qp->rq[qp->rq_head++], true, cc_resp_recv_wc(st),
				   0, 0, sim_now(&x->eng) + x->f->rnic.cqe_write_ps);
		resp_error(x, r, qp, (enum sx_aeth)cc_resp_nak(st), k->psn);
	}
	sx_pkt_put(x, k);
}

/* A READ request: its responses join the QP's queue (the transmitter
 * reads them from memory as it sends them).  `fresh`: the expected PSN,
 * which the READ's response PSNs then take.  A duplicate is checked
 * again: it is answered from memory as it is now (IBA 9.7.5.1.4). */
static void queue_read(struct sx *x, uint32_t r, struct sx_qp *qp, struct sx_pkt *k,
		       const struct sx_wqe *w, const struct cc_op_send *o, bool fresh)
{
	struct cc_resp_found f;
	enum cc_resp_state st = check(x, r, qp, w, o, sim_bth_info[k->p.op].flags, &f);

	if (st != CC_RESP_EXECUTE) {
		refuse(x, r, qp, k, st);
		return;
	}
	if (qp->rd_head == qp->rd_n)
		qp->rd_head = qp->rd_n = 0; /* drained: reuse from the start */
	SX_GROW(qp->rd, qp->rd_n, qp->rd_cap);
	qp->rd[qp->rd_n++] = (struct sx_rdresp){
		.req_rank = k->rank, .req_qp = k->qp, .wqe = k->wqe, .psn = k->psn,
		.npkts = w->npsn, .buf = f.mr ? f.mr->buf : 0, .off = o->remote_offset,
	};
	sx_qp_wake(x, r, qp);
	if (fresh)
		qp->epsn += w->npsn;
	sx_pkt_put(x, k);
	sx_port_fill(x, r, qp->port);
}

/* Selective repeat: a packet past a gap waits in the QP's reorder
 * buffer, in PSN order, until the gap is filled (as IRN's receiver and
 * ConnectX-7's out-of-order placement keep them, instead of dropping
 * them as go-back-N must).  False if it is not kept: a duplicate of one
 * held, or beyond the window. */
static bool ooo_keep(struct sx_qp *qp, struct sx_pkt *k, uint32_t window)
{
	struct sim_packet **at = &qp->ooo.head;

	if (k->psn - qp->epsn >= window)
		return false;
	for (; *at; at = &(*at)->next) {
		int32_t d = (int32_t)(k->psn - ((struct sx_pkt *)*at)->psn);

		if (d == 0)
			return false;
		if (d < 0)
			break;
	}
	k->p.next = *at;
	*at = &k->p;
	if (!k->p.next)
		qp->ooo.tail = &k->p;
	qp->ooo.count++;
	qp->ooo.bytes += k->p.wire_bytes;
	return true;
}

/* After a packet was handled: the kept packets that now follow in order
 * are handled too; then an ACK for all of them (the requester waits on
 * it), and a NAK if another gap remains. */
void sx_responder_drain(struct sx *x, uint32_t r, struct sx_qp *qp)
{
	bool drained = false;

	while (!qp->error && qp->ooo.head && ((struct sx_pkt *)qp->ooo.head)->psn == qp->epsn) {
		sx_responder(x, r, (struct sx_pkt *)sim_pktq_pop(&qp->ooo));
		drained = true;
	}
	if (!drained || qp->error)
		return;
	if (qp->since_ack) {
		qp->since_ack = 0;
		send_ack(x, r, qp, SX_AETH_ACK, qp->epsn - 1);
	}
	if (qp->ooo.head && !qp->nak_out) {
		qp->nak_out = true;
		send_ack(x, r, qp, SX_AETH_NAK_SEQ, qp->epsn);
	}
}

void sx_responder(struct sx *x, uint32_t r, struct sx_pkt *k)
{
	struct sx_rank *rk = &x->rk[r];
	struct sx_qp *qp = &rk->qp[k->p.dst_qpn];
	const struct sx_wqe *w = &x->rk[k->rank].qp[k->qp].sq[k->wqe];
	const struct cc_op_send *o = sx_wqe_send(x, k->rank, w);
	uint32_t flags = sim_bth_info[k->p.op].flags;
	uint32_t len = cc_wqe_len(o), mtu = qp->mtu;
	sim_time_ps now = sim_now(&x->eng);

	if (qp->error) {
		sx_pkt_put(x, k); /* silently dropped: the requester times out */
		return;
	}
	bool dup = (int32_t)(k->psn - qp->epsn) < 0;

	if (dup && (flags & SIM_PKT_READ)) {
		/* A READ asked again (its responses were lost, or the requester
		 * timed out): answered again from memory (IBA 9.7.5.1.4). */
		queue_read(x, r, qp, k, w, o, false);
		return;
	}
	if (dup) {
		/* Any other duplicate, after a go-back-N: acknowledged again if
		 * it asks for it.  (An atomic would need its cached result,
		 * IBA 9.7.5.1.5; the model keeps none, so a lost atomic ACK is
		 * not recovered.) */
		if (k->ackreq)
			send_ack(x, r, qp, SX_AETH_ACK, qp->epsn - 1);
		sx_pkt_put(x, k);
		return;
	}
	if (k->psn != qp->epsn) {
		if (!qp->nak_out) {
			qp->nak_out = true;
			send_ack(x, r, qp, SX_AETH_NAK_SEQ, qp->epsn);
		}
		if (!x->f->rnic.selective_repeat || !ooo_keep(qp, k, x->f->rnic.max_outstanding_pkts))
			sx_pkt_put(x, k);
		return;
	}
	qp->nak_out = false;
	k->op = SX_NONE; /* no receive completion unless set below */

	if (flags & SIM_PKT_READ) {
		queue_read(x, r, qp, k, w, o, true);
		return;
	}
	struct cc_resp_found f;
	enum cc_resp_state st = check(x, r, qp, w, o, flags, &f);

	if (st != CC_RESP_EXECUTE) {
		refuse(x, r, qp, k, st);
		return;
	}
	if (flags & SIM_PKT_ATOMIC) {
		qp->epsn++;
		k->kind = SX_PKT_ATOMIC;
		k->buf = f.mr->buf;
		k->off = o->remote_offset;
		/* One read-modify-write at a time: the NIC locks the target
		 * while its PCIe read and write are out, so atomics on one
		 * address serialize (Kalia et al., "Design Guidelines for
		 * High Performance RDMA Systems", ATC 2016: a few million
		 * atomics per second on one address, against tens of millions
		 * of WRITEs).  The model serializes all of a NIC's atomics —
		 * exactly the one-address case (perftest's ib_atomic_bw, a
		 * counter), pessimistic for atomics spread over addresses. */
		if (rk->atomic_free < now)
			rk->atomic_free = now;
		rk->atomic_free += x->f->rnic.atomic_ps;
		sim_pipe_push(&rk->atomic_pipe, &k->p, rk->atomic_free);
		return;
	}

	/* SEND and WRITE: a SEND's first packet, or a WRITE_WITH_IMM's with
	 * the immediate (rxe: RXE_RWR_MASK on WRITE_LAST_IMM), takes the
	 * receive WQE the checks found. */
	if (flags & SIM_PKT_FIRST)
		qp->t_rx_first = now;
	if (flags & SIM_PKT_RWQE)
		qp->resp_recv = qp->rq[qp->rq_head++];

	/* Accepted. */
	if (flags & SIM_PKT_SEND) {
		const struct cc_op_recv *rv = &cc_rank_op(&x->s->ranks[r], qp->resp_recv)->u.recv;
		const struct cc_mr *dmr = rv->num_sge ? sx_find_mr(x, r, x->rk[r].key[rv->sge.mr],
								   rv->sge.offset, 0, 0) : NULL;
		/* The checks above passed on this message's first packet: a key
		 * that finds no MR now is the model's bug, not the schedule's,
		 * and landing the payload anywhere would hide it. */
		if (rv->num_sge && !dmr)
			sim__model_die(__FILE__, __LINE__, "rnic: rank %u: a receive's MR vanished "
				       "mid-message", r);
		k->buf = rv->num_sge ? dmr->buf : 0;
		k->off = rv->sge.offset + (uint64_t)k->idx * mtu;
	} else {
		const struct cc_mr *mr = len ? sx_find_mr(x, r, w->rkey, o->remote_offset, len, 0)
					     : NULL;
		if (len && !mr)
			sim__model_die(__FILE__, __LINE__, "rnic: rank %u: a WRITE's target MR "
				       "vanished mid-message", r);
		k->buf = mr ? mr->buf : 0;
		k->off = o->remote_offset + (uint64_t)k->idx * mtu;
	}
	if (flags & SIM_PKT_RCQE) {
		k->op = qp->resp_recv;
		k->byte_len = len;
		k->imm = (flags & SIM_PKT_IMMDT) ? o->imm : 0;
	}
	k->t0 = now;
	qp->epsn++;
	if (k->last_of_msg)
		sx_trace(x, CC_TRACE_RX_LAST, r, CC_TRACE_NIC, qp->q, SX_NONE, now, 0, len);
	if (++qp->since_ack >= x->f->rnic.ack_coalesce_pkts || k->ackreq) {
		qp->since_ack = 0;
		send_ack(x, r, qp, SX_AETH_ACK, k->psn);
	}
	dma_write(x, r, k, k->buf, k->p.payload_bytes, req_written);
}

/* The responder's read-modify-write is done: answer with the old value. */
void sx_atomic_done(struct sim_engine *eng, void *ctx, uint32_t port, struct sim_packet *pkt)
{
	struct sx_rank *rk = ctx;
	struct sx *x = rk->x;
	struct sx_pkt *k = (struct sx_pkt *)pkt;
	const struct sx_wqe *w = &x->rk[k->rank].qp[k->qp].sq[k->wqe];
	const struct cc_op_send *o = sx_wqe_send(x, k->rank, w);
	struct sx_qp *qp = &rk->qp[k->p.dst_qpn];
	uint8_t *word = rk->mem[k->buf] ? rk->mem[k->buf] + k->off : NULL;

	(void)eng;
	(void)port;
	k->old = word ? cc_word_load(word) : 0;
	if (word) {
		if (o->opcode == CC_WR_ATOMIC_FETCH_ADD)
			cc_word_store(word, k->old + o->compare_add);
		else if (k->old == o->compare_add)
			cc_word_store(word, o->swap);
		sx_mem_written(x, rk->r, k->buf, k->off, 8);
	}
	/* no-ack (sim/fault.h): the ATOMIC ACKNOWLEDGE is not sent either. */
	if (sx_no_ack(x, rk->r)) {
		sx_pkt_put(x, k);
		return;
	}
	/* The same packet goes back as the ATOMIC ACKNOWLEDGE, with the
	 * requester's WQE index and its PSN still in it. */
	k->kind = SX_PKT_RESP;
	k->last_of_msg = true;
	sx_pkt_address(x, k, rk->r, qp, SIM_BTH_ATOMIC_ACK, 0);
	sim_pktq_push(&rk->port[qp->port].ctrl, &k->p);
	sx_port_kick(x, rk->r, qp->port);
}

/* The next READ response packet qp owes; stages it. */
void sx_resp_read_make(struct sx *x, uint32_t r, struct sx_qp *qp)
{
	struct sx_rdresp *d = &qp->rd[qp->rd_head];
	const struct sx_wqe *w = &x->rk[d->req_rank].qp[d->req_qp].sq[d->wqe];
	struct sim_wire_seg seg;
	uint32_t payload;
	enum sim_bth_op op;
	struct sx_pkt *k = sx_pkt_get(x);

	sx_segment(SIM_MSG_READ_RESP, cc_wqe_len(sx_wqe_send(x, d->req_rank, w)), qp->mtu, &seg);
	op = sim_wire_seg_pkt(&seg, d->next, &payload);
	k->kind = SX_PKT_RESP;
	k->wqe = d->wqe;
	k->idx = d->next;
	k->psn = d->psn + d->next;
	k->buf = d->buf;
	k->off = d->off + (uint64_t)d->next * qp->mtu;
	k->last_of_msg = d->next + 1 == d->npkts;
	sx_pkt_address(x, k, r, qp, op, payload);
	if (++d->next == d->npkts)
		qp->rd_head++;
	sx_port_stage(x, r, k, payload > 0 && !qp->nvlink); /* NVLink: as req_make */
}

/* A READ response's payload, or an atomic's old value, is in the
 * requester's memory. */
static void resp_written(struct sim_engine *eng, void *ctx, uint64_t arg, sim_time_ps done)
{
	struct sx_rank *rk = ctx;
	struct sx *x = rk->x;
	struct sx_pkt *k = (struct sx_pkt *)(uintptr_t)arg;
	struct sx_qp *qp = &rk->qp[k->p.dst_qpn];
	const struct sx_wqe *w = &qp->sq[k->wqe];
	const struct cc_op_send *o = sx_wqe_send(x, rk->r, w);
	const struct cc_mr *mr = sx_find_mr(x, rk->r, w->lkey, o->sge.offset, cc_wqe_len(o), 0);
	uint64_t off = o->sge.offset + (uint64_t)k->idx * qp->mtu;
	uint32_t len = k->p.op == SIM_BTH_ATOMIC_ACK ? 8 : k->p.payload_bytes;

	(void)eng;
	(void)done;
	if (mr && rk->mem[mr->buf]) {
		if (k->p.op == SIM_BTH_ATOMIC_ACK)
			cc_word_store(rk->mem[mr->buf] + off, k->old);
		else if (k->data)
			memcpy(rk->mem[mr->buf] + off, k->data, len);
	}
	if (mr && len)
		sx_mem_written(x, rk->r, mr->buf, off, len);
	if (k->last_of_msg)
		sx_wqe_response_done(x, rk->r, qp, k->wqe);
	sx_pkt_put(x, k);
}

void sx_response_data(struct sx *x, uint32_t r, struct sx_qp *qp, struct sx_pkt *k)
{
	struct sx_wqe *w = &qp->sq[k->wqe];

	/* A duplicate, or a response after a lost one: dropped.  A gap is a
	 * sequence error (IBA 9.7.5.1.3); the requester asks again when its
	 * ACK timer fires, which stays armed while the READ is out. */
	if (w->done || w->failed || k->psn != w->resp_next) {
		sx_pkt_put(x, k);
		return;
	}
	const struct cc_op_send *o = sx_wqe_send(x, r, w);
	const struct cc_mr *mr = sx_find_mr(x, r, w->lkey, o->sge.offset, cc_wqe_len(o), 0);

	w->resp_next++;
	dma_write(x, r, k, mr ? mr->buf : SX_NONE,
		  k->p.op == SIM_BTH_ATOMIC_ACK ? 8 : k->p.payload_bytes, resp_written);
}
