/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/rnic_flow.c — the NIC of the flow-level model (`--model flow`).
 *
 * Everything up to the NIC is the packet model's: the host side
 * (sim/exec.c: posts, doorbells, polls, GPU and CPU work) and the NIC's
 * doorbell, WQE fetch and CQE pipelines (sim/rnic.c).  From a fetched WQE
 * on, a message is one flow instead of packets: its payload crosses the
 * requester's PCIe link (the payload read), every link direction of its
 * route, and the responder's PCIe link (the write), each used at its wire
 * bytes per payload byte (headers per MTU packet, NVLink framing, TLP
 * headers per max payload), and all of them shared max-min fairly with the
 * other messages in flight (sim/flow.h).  A QP sends its messages one
 * after another, as its requester does; its next one starts when the last
 * byte of the one before has left.
 *
 * Latency is added in closed form around the flow: the payload's first
 * PCIe read (two PCIe latencies) before it, and after its last byte the
 * route's propagation and switch forwarding (plus, through a
 * store-and-forward switch, the last packet's serialization on each later
 * link), the responder's processing and its PCIe write.  The ACK comes back
 * the same way as one packet, and the completion follows as in the packet
 * model.  A READ is a request packet out and a response flow back.
 *
 * Not in the flow model (the packet model has them): packet loss and
 * retransmission, PFC and IB credits, ECN and DCQCN, switch buffers and
 * queues (a flow's rate is its max-min share at once), the QP's window of
 * unacknowledged packets, a resent message's bandwidth after an RNR NAK
 * (its delay is kept).  Refused: atomics, faults, PCIe switches and
 * several NICs per GPU.  Multicast QPs (NVLink SHARP, SHARP in the
 * network) are sim/rnic_flow_mcast.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/word.h"
#include "sim/rnic_flow_int.h"
#include "sim/model.h"
#include "sim/opcode.h"

/* A message's route: resources and the latency parts around its flow. */
struct fl_route {
	uint32_t n;
	uint32_t link[SIM_FLOW_MAX_RES - 2]; /* beside two PCIe links (route()) */
	sim_time_ps prop;    /* propagation and switch forwarding, end to end */
	uint32_t nsw;
};

/* The PCIe link of rank r's NIC, towards the NIC (read data) or away
 * from it (written data), as a resource. */
uint32_t fl_pcie_res(const struct sx *x, uint32_t r, bool to_nic)
{
	return x->fl->nlink_res + 2 * r + (to_nic ? 0 : 1);
}

/* The link between the CPU sockets that rank r's NIC crosses
 * (host.nic_socket remote: rk[r].xsocket set), towards the NIC or away
 * from it, as a resource: two a host, after the NICs' PCIe links. */
static uint32_t fl_socket_res(const struct sx *x, uint32_t r, bool to_nic)
{
	return x->fl->nlink_res + 2 * x->s->nranks +
	       2 * sim_net_rank_host(x->topo.net, r) + (to_nic ? 0 : 1);
}

void fl_socket_add(struct sx *x, uint32_t r, enum sim_pcie_dirn d, uint32_t len,
		   uint32_t *res_out, double *w_out, uint32_t *n)
{
	struct sim_pcie_uplink *u = x->rk[r].xsocket;
	bool read = d == SIM_PCIE_DOWN;
	uint64_t wire;

	if (!u || !len)
		return;
	wire = fl_pcie_wire(x, len, read);
	res_out[*n] = fl_socket_res(x, r, read);
	w_out[(*n)++] = fl_pcie_w(x, len, read);
	u->wire_bytes[d] += wire;
	u->payload_bytes[d] += len;
	if (u->rate_bps) /* 0: unlimited (the ideal preset's) */
		u->busy_ps[d] += sim_serialize_ps(wire, u->rate_bps);
}

/* The route of a packet of rank r's QP qp to its peer, as the switches
 * route it (sim_net_pick(): the QP's flow keeps one path).  A QP on its
 * own NIC (NCCL's GDR flush) has none: its packets turn round inside the
 * NIC (rnic.c loopback). */
static int route(const struct sx *x, uint32_t r, const struct sx_qp *qp, struct fl_route *rt)
{
	const struct sim_net *net = x->topo.net;
	uint32_t u = net->rank_node[r], port = qp->port, dst = net->rank_node[qp->peer];
	uint64_t flow = sim_topo_qp_flow(r, qp->q);

	memset(rt, 0, sizeof(*rt));
	if (qp->peer == r)
		return 0;
	for (;;) {
		uint32_t li = net->nodes[u].port_link[port], v, vport;
		const struct sim_net_link *l = &net->links[li];
		uint32_t res = 2 * li + !(l->a == u && l->a_port == port);

		/* the sockets' links take two of the flow's resources */
		if (rt->n == sizeof(rt->link) / sizeof(rt->link[0]) - (x->socket_links ? 2 : 0))
			return -E2BIG;
		rt->link[rt->n++] = res;
		rt->prop += x->topo.links[res].prop_ps;
		sim_net_peer(net, u, port, &v, &vport);
		if (v == dst)
			return 0;
		if (net->nodes[v].kind != SIM_NET_SWITCH)
			return -EINVAL;
		port = qp->peer_port != SX_NONE ? sim_net_pick_port(net, v, qp->peer, qp->peer_port, flow)
						: sim_net_pick(net, v, qp->peer, flow);
		if (port == SIM_NET_NONE)
			return -EINVAL;
		rt->prop += x->f->sw.fwd_latency_ps;
		rt->nsw++;
		u = v;
	}
}

/* Wire bytes of one packet of `payload` bytes, opcode op, on the QP's
 * link layer. */
uint64_t fl_pkt_wire(const struct sx *x, bool nvlink, enum sim_bth_op op, uint32_t payload)
{
	const struct sim_host_params *h = &x->f->host;

	if (nvlink && h->nvlink_pkt_bytes)
		return sim_wire_nvlink_bytes(payload, h->nvlink_pkt_bytes, h->nvlink_pkt_overhead_bytes);
	return sim_wire_bytes(x->f->link.type, op, payload);
}

/* Wire bytes of a whole message of `len` at the QP's MTU, and its last
 * packet's. */
uint64_t fl_msg_wire(const struct sx *x, const struct sx_qp *qp, enum sim_msg m, uint32_t len,
			 uint64_t *last)
{
	struct sim_wire_seg seg;
	uint32_t pay;
	enum sim_bth_op op;
	uint64_t full;

	sx_segment(m, len, qp->mtu, &seg);
	op = sim_wire_seg_pkt(&seg, seg.npkts - 1, &pay);
	*last = fl_pkt_wire(x, qp->nvlink, op, pay);
	if (!qp->nvlink || !x->f->host.nvlink_pkt_bytes)
		return sim_wire_msg_sum(x->f->link.type, &seg).wire;
	full = seg.npkts > 1 ? fl_pkt_wire(x, true, seg.middle, qp->mtu) : 0;
	return full * (seg.npkts - 1) + *last;
}

/* After a flow's last byte has left the sender: the rest of the way to
 * the receiving NIC, where a packet of `last` wire bytes ends it. */
static sim_time_ps tail_ps(const struct sx *x, const struct fl_route *rt, uint64_t last,
			   bool nvlink)
{
	sim_time_ps t = rt->prop + (nvlink ? 0 : x->f->rnic.resp_proc_ps);

	if (x->f->sw.mode == SIM_SWITCH_STORE_FORWARD)
		for (uint32_t i = 1; i < rt->n; i++)
			t += sim_serialize_ps(last, x->topo.links[rt->link[i]].rate_bps);
	return t;
}

/* One packet of `wire` bytes along the route: its first serialization
 * and the tail. */
static sim_time_ps packet_ps(const struct sx *x, const struct fl_route *rt, uint64_t wire,
			     bool nvlink)
{
	return (rt->n ? sim_serialize_ps(wire, x->topo.links[rt->link[0]].rate_bps) : 0) +
	       tail_ps(x, rt, wire, nvlink);
}

/* PCIe wire bytes per payload byte of a DMA of len: a TLP header per
 * max payload (MWr, or CplD for read data), as sim/pcie.c frames them. */
uint64_t fl_pcie_wire(const struct sx *x, uint32_t len, bool read)
{
	const struct sim_pcie_params *p = &x->f->pcie;
	uint64_t ntlp = (len + p->mps_bytes - 1) / p->mps_bytes;

	return len + ntlp * (read ? p->cpl_overhead_bytes : p->tlp_overhead_bytes);
}

double fl_pcie_w(const struct sx *x, uint32_t len, bool read)
{
	return 1.0 + (double)(fl_pcie_wire(x, len, read) - len) / len;
}

/* The NIC moves a packet between PCIe and the wire whole: a message's
 * first packet is read in before it leaves, its last one written out
 * after it has arrived.  The time of one DMA of a packet's payload: the
 * flight and the TLPs' serialization. */
sim_time_ps fl_pcie_pkt_ps(const struct sx *x, uint32_t len, uint32_t mtu, bool read, bool first)
{
	const struct sim_pcie_params *p = &x->f->pcie;
	uint32_t pay = !len ? 0 : first ? (len < mtu ? len : mtu) : len - (len - 1) / mtu * mtu;
	uint64_t ntlp = (pay + p->mps_bytes - 1) / p->mps_bytes;

	return (read ? 2 : 1) * p->latency_ps +
	       (p->rate_bps ? sim_serialize_ps(pay + ntlp * (read ? p->cpl_overhead_bytes
								    : p->tlp_overhead_bytes),
					       p->rate_bps)
			    : 0);
}

void fl_noop(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	(void)eng;
	(void)ctx;
	(void)arg;
}

uint32_t fl_msg_new(struct sx *x)
{
	struct sx_flow *fl = x->fl;
	uint32_t id;

	if (fl->free_head != FL_NONE) {
		id = fl->free_head;
		fl->free_head = fl->msg[id].next_free;
	} else {
		SX_GROW(fl->msg, fl->nmsg, fl->room);
		id = fl->nmsg++;
	}
	fl->msg[id] = (struct fl_msg){ .pred = FL_NONE, .succ = FL_NONE, .rop = SX_NONE };
	return id;
}

void fl_msg_free(struct sx *x, uint32_t id)
{
	struct fl_msg *m = &x->fl->msg[id];

	if (m->refs > 1) {
		m->refs--;
		return;
	}
	free(m->data);
	m->data = NULL;
	m->next_free = x->fl->free_head;
	x->fl->free_head = id;
}

/* Which memory a WQE's local SGE is in at rank r: its buffer, or SX_NONE
 * (inline, no SGE, or not carried). */
uint32_t fl_local_buf(const struct sx *x, uint32_t r, const struct sx_wqe *w,
			  const struct cc_op_send *o)
{
	const struct cc_mr *mr;

	if ((o->flags & CC_SEND_INLINE) || !o->num_sge)
		return SX_NONE;
	mr = sx_find_mr(x, r, w->lkey, o->sge.offset, cc_wqe_len(o), 0);
	return mr ? mr->buf : SX_NONE;
}

/* Copies len bytes of rank r's buffer buf at off, when carried. */
uint8_t *fl_snapshot(const struct sx *x, uint32_t r, uint32_t buf, uint64_t off, uint32_t len)
{
	uint8_t *d;

	if (!len || buf == SX_NONE || !x->rk[r].mem[buf])
		return NULL;
	if (!(d = malloc(len)))
		sx_die_nomem();
	memcpy(d, x->rk[r].mem[buf] + off, len);
	return d;
}

/* What comes in for a QP stays in order: its packets arrive as they left
 * (IBA 9.5), its payloads are written as they came (PCIe keeps posted
 * writes in order, 2.4.1).  `at`, or the last such time *last if later;
 * it becomes the last. */
static sim_time_ps in_order(sim_time_ps *last, sim_time_ps at)
{
	if (at < *last)
		at = *last;
	*last = at;
	return at;
}

void fl_count(struct sx *x, uint32_t res, uint32_t len, uint64_t wire)
{
	struct sim_link_dir *l = &x->topo.links[res];

	l->st.tx_bytes += wire;
	l->st.rx_bytes += wire;
	l->st.tx_payload_bytes += len;
	l->busy_ps += sim_serialize_ps(wire, l->rate_bps);
}

void fl_place(struct sx *x, uint32_t r, uint32_t buf, uint64_t off, uint32_t len,
	      const struct cc_op_send *o, const uint8_t *data)
{
	uint8_t *mem;

	if (!len)
		return;
	mem = x->rk[r].mem[buf];
	if (mem && o && (o->flags & CC_SEND_INLINE)) {
		uint8_t word[8];

		cc_word_store(word, o->inline_value);
		memcpy(mem + off, word, len);
	} else if (mem && data) {
		memcpy(mem + off, data, len);
	}
	sx_mem_written(x, r, buf, off, len);
}

static void msg_sent(struct sim_engine *eng, void *ctx, uint64_t arg);
static void req_arrive(struct sim_engine *eng, void *ctx, uint64_t arg);
static void resp_arrive(struct sim_engine *eng, void *ctx, uint64_t arg);
static void resp_go(struct sim_engine *eng, void *ctx, uint64_t arg);

/* Starts message id's flow now: from rank `from` (QP fqp) to rank `to`,
 * reading the payload from memory unless it needs no read. */
static void flow_go(struct sx *x, uint32_t id, uint32_t from, const struct sx_qp *fqp, bool read)
{
	struct fl_msg *m = &x->fl->msg[id];
	struct fl_route rt;
	uint32_t res[SIM_FLOW_MAX_RES], n = 0;
	double w[SIM_FLOW_MAX_RES];
	uint64_t last, wire;

	if (route(x, from, fqp, &rt))
		sim__model_die(__FILE__, __LINE__, "flow: no route from rank %u to %u", from,
			       fqp->peer);
	wire = fl_msg_wire(x, fqp, m->response ? SIM_MSG_READ_RESP
					    : sim_msg_of_opcode(sx_wqe_send(x, m->r,
									&x->rk[m->r].qp[m->q].sq[m->wqe])->opcode),
			m->len, &last);
	if (read && m->len) {
		res[n] = fl_pcie_res(x, from, true);
		w[n++] = fl_pcie_w(x, m->len, true);
		fl_socket_add(x, from, SIM_PCIE_DOWN, m->len, res, w, &n);
	}
	for (uint32_t i = 0; i < rt.n; i++) {
		res[n] = rt.link[i];
		w[n++] = m->len ? (double)wire / m->len : 1.0;
		fl_count(x, rt.link[i], m->len, wire);
	}
	if (rt.n)
		x->rk[from].st->wire_bytes += wire;
	if (!fqp->nvlink && m->len) {
		res[n] = fl_pcie_res(x, fqp->peer, false);
		w[n++] = fl_pcie_w(x, m->len, false);
		fl_socket_add(x, fqp->peer, SIM_PCIE_UP, m->len, res, w, &n);
	}
	m->t_arrive = !m->len ? packet_ps(x, &rt, last, fqp->nvlink) /* a header alone */
			      : tail_ps(x, &rt, last, fqp->nvlink);
	if (!m->response)
		sx_trace(x, CC_TRACE_TX_FIRST, m->r, CC_TRACE_NIC, m->q,
			 x->rk[m->r].qp[m->q].sq[m->wqe].op, sim_now(&x->eng), 0, m->len);
	if (sim_flow_start(&x->fl->net, m->len, res, w, n, msg_sent, x, id))
		sx_die_nomem();
}

/* A message's last byte has left its sender: the receiver has it a tail
 * later, and the requester's QP may send its next message. */
static void msg_sent(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sx *x = ctx;
	struct fl_msg *m = &x->fl->msg[arg];
	struct sx_qp *qp = &x->rk[m->r].qp[m->q];
	struct sx_qp *to = m->response ? qp : &x->rk[qp->peer].qp[qp->peer_q];

	/* A QP's packets arrive in the order they left: a short message's
	 * shorter tail does not overtake the one before it. */
	m->t_arrive = in_order(&to->fl_in, m->t_arrive + sim_now(eng));
	fl_at(x, m->t_arrive, m->response ? resp_arrive : req_arrive, arg);
	if (!m->response) {
		sx_trace(x, CC_TRACE_TX_LAST, m->r, CC_TRACE_NIC, m->q, qp->sq[m->wqe].op,
			 sim_now(eng), 0, m->len);
		qp->fl_busy = false;
		sx_flow_kick(x, m->r, qp);
	}
}

/* The payload's first PCIe read is back: the flow starts. */
static void req_go(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sx *x = ctx;
	struct fl_msg *m = &x->fl->msg[arg];
	const struct sx_qp *qp = &x->rk[m->r].qp[m->q];

	(void)eng;
	flow_go(x, (uint32_t)arg, m->r, qp, !qp->nvlink);
}

void fl_wqe_done(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sx *x = ctx;
	struct fl_msg *m = &x->fl->msg[arg];
	struct sx_qp *qp = &x->rk[m->r].qp[m->q];

	(void)eng;
	if (!qp->error) {
		/* forward progress: the retry counters start over (rnic.c
		 * sx_ack_upto, rxe_comp.c) */
		qp->rnr_left = qp->rnr_max;
		qp->retry_left = qp->retry_max;
		qp->sq[m->wqe].done = true;
		sx_complete_in_order(x, m->r, qp);
	}
	fl_msg_free(x, (uint32_t)arg);
}

/* One header-only packet of rank `from`'s QP qp to its peer (an ACK, a
 * READ request): how long it takes to arrive. */
static sim_time_ps one_packet_ps(const struct sx *x, uint32_t from, const struct sx_qp *qp,
			   enum sim_bth_op op)
{
	struct fl_route rt;

	if (route(x, from, qp, &rt))
		sim__model_die(__FILE__, __LINE__, "flow: no route from rank %u to %u", from,
			       qp->peer);
	return packet_ps(x, &rt, fl_pkt_wire(x, qp->nvlink, op, 0), qp->nvlink);
}

/* A request as both ends see it: the requester's QP, WQE and op, the
 * responder and its QP. */
struct fl_req {
	struct sx_qp *rq;
	const struct sx_wqe *w;
	const struct cc_op_send *o;
	uint32_t d;
	struct sx_qp *qp;
};

static struct fl_req req_of(struct sx *x, const struct fl_msg *m)
{
	struct fl_req q = { .rq = &x->rk[m->r].qp[m->q] };

	q.w = &q.rq->sq[m->wqe];
	q.o = sx_wqe_send(x, m->r, q.w);
	q.d = q.rq->peer;
	q.qp = &x->rk[q.d].qp[q.rq->peer_q];
	return q;
}

/* Whether a request takes a receive WQE at the responder (a SEND, or the
 * immediate of a WRITE WITH IMM: IBA 9.4.1, 9.4.3). */
static bool takes_recv(enum cc_opcode op)
{
	return op == CC_WR_SEND || op == CC_WR_SEND_WITH_IMM || op == CC_WR_RDMA_WRITE_WITH_IMM;
}

/* A message sent again whole: its serialization on the first link, at
 * the line rate, and the rest of the way. */
static sim_time_ps resend_ps(const struct sx *x, const struct fl_msg *m)
{
	const struct sx_qp *qp = &x->rk[m->r].qp[m->q];
	const struct cc_op_send *o = sx_wqe_send(x, m->r, &qp->sq[m->wqe]);
	struct fl_route rt;
	uint64_t last, wire = fl_msg_wire(x, qp, sim_msg_of_opcode(o->opcode), m->len, &last);

	if (route(x, m->r, qp, &rt))
		sim__model_die(__FILE__, __LINE__, "flow: no route from rank %u", m->r);
	return (rt.n ? sim_serialize_ps(wire, x->topo.links[rt.link[0]].rate_bps) : 0) +
	       tail_ps(x, &rt, last, qp->nvlink);
}

/* The payload is in the responder's memory: what the packet model's
 * req_written does for the message's packets together. */
static void req_written(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sx *x = ctx;
	struct fl_msg *m = &x->fl->msg[arg];
	struct fl_req q = req_of(x, m);
	const struct sx_wqe *w = q.w;
	const struct cc_op_send *o = q.o;
	uint32_t d = q.d, buf = SX_NONE, rop = m->rop;
	struct sx_qp *qp = q.qp;
	uint64_t off = 0;

	if (o->opcode == CC_WR_SEND || o->opcode == CC_WR_SEND_WITH_IMM) {
		const struct cc_op_recv *rv = &cc_rank_op(&x->s->ranks[d], rop)->u.recv;
		const struct cc_mr *mr = rv->num_sge ? sx_find_mr(x, d, x->rk[d].key[rv->sge.mr],
								  rv->sge.offset, 0, 0) : NULL;
		buf = mr ? mr->buf : SX_NONE;
		off = rv->sge.offset;
	} else if (m->len) {
		const struct cc_mr *mr = sx_find_mr(x, d, w->rkey, o->remote_offset, m->len, 0);

		buf = mr ? mr->buf : SX_NONE;
		off = o->remote_offset;
	}
	if (m->len && buf == SX_NONE)
		sim__model_die(__FILE__, __LINE__, "flow: rank %u: a message's target vanished", d);
	fl_place(x, d, buf, off, m->len, o, m->data);
	sx_trace(x, CC_TRACE_DMA_WRITE, d, CC_TRACE_NIC, qp->q, rop, m->t_arrive,
		 sim_now(eng) - m->t_arrive, m->len);
	if (rop != SX_NONE) {
		sim_time_ps cw = sx_cqe_write_ps(x, qp), at = m->t_arrive + cw;

		sx_cqe_new(x, d, qp->q, rop, true, CC_WC_SUCCESS, m->len,
			   o->opcode == CC_WR_SEND ? 0 : o->imm, at > sim_now(eng) ? at : sim_now(eng));
	}
	fl_msg_free(x, (uint32_t)arg);
}

/* A request's last byte is at the responder's NIC. */
static void req_arrive(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sx *x = ctx;
	struct fl_msg *m = &x->fl->msg[arg];
	struct fl_req q = req_of(x, m);
	const struct cc_op_send *o = q.o;
	uint32_t d = q.d, len = m->len;
	struct sx_qp *qp = q.qp;
	sim_time_ps now = sim_now(eng);

	if (q.rq->error) {
		/* its requester went to error (an RNR or retry failure): what
		 * was still in flight behind it is not placed */
		fl_msg_free(x, (uint32_t)arg);
		return;
	}
	if (now <= qp->fl_hold && !m->held) {
		/* behind a request refused for RNR: the QP's requests are
		 * taken in order, so it waits for that one to come again */
		fl_at(x, qp->fl_hold + 1, req_arrive, arg);
		return;
	}
	m->held = false;
	sx_trace(x, CC_TRACE_RX_LAST, d, CC_TRACE_NIC, qp->q, SX_NONE, now, 0, len);
	if (cc_opcode_rd_atomic(o->opcode)) {
		/* a READ request: the response is read from memory, behind the
		 * QP's writes before it, then flows back */
		uint32_t id = fl_msg_new(x);
		struct fl_msg *resp = &x->fl->msg[id];

		m = &x->fl->msg[arg]; /* a new message may have moved the array */
		resp->r = m->r;
		resp->q = m->q;
		resp->wqe = m->wqe;
		resp->len = len;
		resp->response = true;
		fl_msg_free(x, (uint32_t)arg);
		if (qp->nvlink || !len)
			fl_at(x, in_order(&qp->fl_wr, now), resp_go, id);
		else
			fl_at(x, in_order(&qp->fl_wr, now) + fl_pcie_pkt_ps(x, len, qp->mtu, true, true),
			      resp_go, id);
		return;
	}
	if (takes_recv(o->opcode) && qp->rq_head == qp->rq_n) {
		/* No receive posted: an RNR NAK, and the requester sends again
		 * after its RNR timer, rnr_retry times (IBA 9.7.5.2.8; rnic.c
		 * sx_completer).  The resent bytes are not charged to the links,
		 * and the requester's later messages are not held back (the
		 * flow model's simplifications): they wait here instead. */
		x->rk[d].st->rnr_naks++;
		if (q.rq->rnr_left == 0) {
			sx_wqe_fail(x, m->r, m->q, m->wqe, CC_WC_RNR_RETRY_EXC_ERR);
			fl_msg_free(x, (uint32_t)arg);
			return;
		}
		if (q.rq->rnr_max != 7)
			q.rq->rnr_left--;
		m->held = true;
		m->t_arrive = now + one_packet_ps(x, d, qp, SIM_BTH_ACK) +
			      sim_rnr_timer_ps(x->f->rnic.min_rnr_timer) + resend_ps(x, m);
		qp->fl_hold = m->t_arrive;
		fl_at(x, m->t_arrive, req_arrive, arg);
		return;
	}
	/* A SEND's first packet, or a WRITE WITH IMM's last, takes the
	 * receive WQE at the head as it comes in (rnic_resp.c). */
	if (takes_recv(o->opcode))
		m->rop = qp->rq[qp->rq_head++];
	/* The ACK leaves as the last packet comes in (rnic_resp.c send_ack),
	 * the payload is written behind it. */
	m->refs = 2;
	fl_at(x, in_order(&qp->fl_wr, now + (qp->nvlink ? 0 : fl_pcie_pkt_ps(x, len, qp->mtu, false,
									 false))),
	      req_written, arg);
	fl_at(x, now + one_packet_ps(x, d, qp, SIM_BTH_ACK), fl_wqe_done, arg);
}

/* A READ's response data is read at the responder: it flows back. */
static void resp_go(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sx *x = ctx;
	struct fl_msg *m = &x->fl->msg[arg];
	const struct sx_qp *rq = &x->rk[m->r].qp[m->q];
	const struct sx_wqe *w = &rq->sq[m->wqe];
	const struct cc_op_send *o = sx_wqe_send(x, m->r, w);
	const struct cc_mr *mr = sx_find_mr(x, rq->peer, w->rkey, o->remote_offset, m->len, 0);
	const struct sx_qp *qp = &x->rk[rq->peer].qp[rq->peer_q];

	(void)eng;
	/* what the responder's memory holds as its NIC reads it */
	m->data = fl_snapshot(x, rq->peer, mr ? mr->buf : SX_NONE, o->remote_offset, m->len);
	flow_go(x, (uint32_t)arg, rq->peer, qp, !qp->nvlink && m->len);
}

/* A READ's response is in the requester's memory: the WQE is done (a
 * response acknowledges it, IBA 9.7.5.1.1). */
void fl_response_in(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sx *x = ctx;
	struct fl_msg *m = &x->fl->msg[arg];
	struct sx_qp *qp = &x->rk[m->r].qp[m->q];
	const struct sx_wqe *w = &qp->sq[m->wqe];
	const struct cc_op_send *o = sx_wqe_send(x, m->r, w);
	uint32_t buf = fl_local_buf(x, m->r, w, o);

	if (buf != SX_NONE)
		fl_place(x, m->r, buf, o->sge.offset, m->len, NULL, m->data);
	fl_wqe_done(eng, ctx, arg);
}

/* A READ's response is at the requester's NIC: written behind a PCIe
 * latency (none over NVLink). */
static void resp_arrive(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sx *x = ctx;
	const struct fl_msg *m = &x->fl->msg[arg];
	struct sx_qp *qp = &x->rk[m->r].qp[m->q];
	sim_time_ps w = qp->nvlink ? 0 : fl_pcie_pkt_ps(x, m->len, qp->mtu, false, false);

	fl_at(x, in_order(&qp->fl_wr, sim_now(eng) + w), fl_response_in, arg);
}

/* Starts WQE i of rank r's QP qp. */
static void wqe_go(struct sx *x, uint32_t r, struct sx_qp *qp, uint32_t i)
{
	struct sx_wqe *w = &qp->sq[i];
	const struct cc_op_send *o = sx_wqe_send(x, r, w);
	uint32_t id = fl_msg_new(x), len = cc_wqe_len(o);
	struct fl_msg *m = &x->fl->msg[id];
	sim_time_ps now = sim_now(&x->eng);
	struct cc_sim_rank_stats *st = x->rk[r].st;

	m->r = r;
	m->q = qp->q;
	m->wqe = i;
	m->len = len;
	w->started = true;
	if (qp->mcast) {
		fl_mcast_go(x, id);
		return;
	}
	if (cc_opcode_rd_atomic(o->opcode)) {
		/* the READ request: one packet, in order behind the QP's
		 * messages before it; the QP goes on at once */
		struct sx_qp *to = &x->rk[qp->peer].qp[qp->peer_q];

		qp->rd_out++;
		m->t_arrive = in_order(&to->fl_in,
				       now + one_packet_ps(x, r, qp, SIM_BTH_READ_REQUEST));
		fl_at(x, m->t_arrive, req_arrive, id);
		return;
	}
	qp->fl_busy = true;
	st->payload_bytes += len;
	if (!(o->flags & CC_SEND_INLINE) && len)
		m->data = fl_snapshot(x, r, fl_local_buf(x, r, w, o), o->sge.offset, len);
	/* The payload's first read from memory: a PCIe round trip from when
	 * the NIC had the WQE, overlapping the message before it (the
	 * transmit side reads ahead, rnic.c sx_port_prefetch); none inline,
	 * or over NVLink, where the GPU's threads store it. */
	sim_time_ps ready = w->t_first + fl_pcie_pkt_ps(x, len, qp->mtu, true, true);

	if (qp->nvlink || !len || (o->flags & CC_SEND_INLINE))
		flow_go(x, id, r, qp, false);
	else if (ready <= now)
		flow_go(x, id, r, qp, true);
	else
		fl_at(x, ready, req_go, id);
}

void sx_flow_kick(struct sx *x, uint32_t r, struct sx_qp *qp)
{
	/* WQEs the NIC holds from now: their payload reads may start */
	for (; qp->fl_seen < qp->fetched; qp->fl_seen++)
		qp->sq[qp->fl_seen].t_first = sim_now(&x->eng);
	while (!qp->error && !qp->fl_busy && qp->cur < qp->fetched)
		wqe_go(x, r, qp, qp->cur++);
}

/* What the flow model refuses, with why in err: 0 or -EINVAL. */
static int refuse(const struct sx *x, char *err, size_t errlen)
{
	const struct cc_schedule *s = x->s;

	if (x->o->nfaults || x->o->nsim_faults) {
		snprintf(err, errlen, "--model flow has no faults: use --model packet");
		return -EINVAL;
	}
	if (x->nuplinks) {
		snprintf(err, errlen, "--model flow does not model PCIe switches yet: use "
			 "--model packet");
		return -EINVAL;
	}
	for (uint32_t r = 0; r < s->nranks; r++) {
		const struct cc_rank_sched *rs = &s->ranks[r];

		if (x->rk[r].nnics > 1) {
			snprintf(err, errlen, "--model flow does not model several NICs per GPU yet: "
				 "use --model packet");
			return -EINVAL;
		}
		/* (a generated schedule posts no atomics: core/gen.h) */
		for (uint32_t i = 0; !s->gen && i < rs->nops; i++) {
			const struct cc_op *o = cc_rank_op(rs, i);

			if (o->kind == CC_OP_POST_SEND &&
			    (o->u.send.opcode == CC_WR_ATOMIC_FETCH_ADD ||
			     o->u.send.opcode == CC_WR_ATOMIC_CMP_SWP)) {
				snprintf(err, errlen, "--model flow has no atomics: use --model packet");
				return -EINVAL;
			}
		}
	}
	return 0;
}

int sx_flow_init(struct sx *x, char *err, size_t errlen)
{
	struct sx_flow *fl;
	uint32_t nres;
	int rc = refuse(x, err, errlen);

	if (rc)
		return rc;
	if (!(fl = calloc(1, sizeof(*fl))))
		return -ENOMEM;
	x->fl = fl;
	fl->free_head = FL_NONE;
	fl->nlink_res = (uint32_t)x->topo.nlinks;
	nres = fl->nlink_res + 2 * x->s->nranks + (x->socket_links ? 2 * x->topo.net->nhosts : 0);
	if ((rc = sim_flownet_init(&fl->net, &x->eng, nres)))
		return rc;
	if (!(fl->fifo = calloc(fl->nlink_res ? fl->nlink_res : 1, sizeof(*fl->fifo))))
		return -ENOMEM;
	for (uint32_t i = 0; i < fl->nlink_res; i++)
		sim_flownet_set_rate(&fl->net, i, x->topo.links[i].rate_bps);
	for (uint32_t r = 0; r < x->s->nranks; r++) {
		sim_flownet_set_rate(&fl->net, fl_pcie_res(x, r, true), x->f->pcie.rate_bps);
		sim_flownet_set_rate(&fl->net, fl_pcie_res(x, r, false), x->f->pcie.rate_bps);
		if (x->rk[r].xsocket) {
			sim_flownet_set_rate(&fl->net, fl_socket_res(x, r, true),
					     x->rk[r].xsocket->rate_bps);
			sim_flownet_set_rate(&fl->net, fl_socket_res(x, r, false),
					     x->rk[r].xsocket->rate_bps);
		}
		for (uint32_t q = 0; q < x->s->ranks[r].nqps; q++)
			x->rk[r].qp[q].fl_last_mc = FL_NONE;
	}
	return 0;
}

void sx_flow_free(struct sx *x)
{
	if (!x->fl)
		return;
	for (uint32_t i = 0; i < x->fl->nmsg; i++)
		free(x->fl->msg[i].data);
	free(x->fl->msg);
	for (uint32_t i = 0; x->fl->fifo && i < x->fl->nlink_res; i++)
		free(x->fl->fifo[i].q);
	free(x->fl->fifo);
	fl_sharp_free(x);
	sim_flownet_destroy(&x->fl->net);
	free(x->fl);
	x->fl = NULL;
}
