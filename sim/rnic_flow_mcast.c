/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/rnic_flow_mcast.c — multicast QPs in the flow model: NVLink SHARP's
 * (sim/nvls.c has the packet model's) and SHARP's in the network's
 * switches (sim/sharp.c's), as flows.
 *
 * A multimem store: the sender's flow into the switch over its NVLink
 * (shared with its other QPs, as its port's round robin shares it), and a
 * copy out of the switch to every member.  A multimem load-reduce: a
 * request up and the switch's read down to every member, every member's
 * share into the switch, the result out to the sender.
 *
 * What a port of the switch sends, and what a member's port owes the
 * switch, is served first come, first served (struct fl_fifo, one per
 * NVLink direction): a switch output port sends what came in, in order,
 * and a member serves the shares it owes one after another, as one more
 * QP.  Sharing those fairly instead would finish every backlogged copy
 * late together where the packet model lands the oldest first, and the
 * flags behind them with it: 30 % slower at 64 MiB on 16 channels.
 *
 * Flows into and out of the switch are joined only at the end: the switch
 * buffers what comes in.  A message lands when all its parts are through,
 * each part's end plus what follows it: into the switch, the propagation,
 * the switch's forwarding and the last packet's hop out; out of it, the
 * propagation.  A QP's stores land in order (a flag behind its data).  The
 * switch reduces at no cost of its own (as sim/nvls.c says).
 *
 * SHARP in a network switch: every member SENDs its share on the group's
 * QP (its payload read over PCIe, then its NIC's link into the switch,
 * shared with the member's other QPs); the switch ACKs each as it takes
 * it; once every member's share has started coming in, the result goes
 * out of the switch's port to every member (first come, first served, as
 * NVLS's copies), which takes it as a SEND: a receive WQE, the PCIe write,
 * the completion.  The j-th SEND of every member is the group's j-th
 * reduction (sim/sharp.c).
 */
#include "sim/rnic_flow_int.h"

#include <stdlib.h>

#include "sim/model.h"
#include "sim/opcode.h"

/* Member m's NVLink into its NVSwitch (to_switch) or out of it, as a
 * resource (a link direction). */
static uint32_t nvlink_res(const struct sx *x, uint32_t m, bool to_switch)
{
	struct sim_topo *t = (struct sim_topo *)&x->topo;
	uint32_t p = sim_topo_nvswitch_port(t, m, NULL, NULL);

	return (uint32_t)((to_switch ? sim_topo_nic_tx(t, m, p) : sim_topo_nic_rx(t, m, p)) -
			  x->topo.links);
}

/* One packet of `wire` bytes on link direction res: its serialization
 * and propagation. */
static sim_time_ps hop_ps(const struct sx *x, uint32_t res, uint64_t wire)
{
	const struct sim_link_dir *l = &x->topo.links[res];

	return sim_serialize_ps(wire, l->rate_bps) + l->prop_ps;
}

/* The members' buffer a multicast message names (every member registers
 * it alike, sim/nvls.c write_copy). */
static uint8_t *member_mem(const struct sx *x, uint32_t mb, const struct cc_op_send *o)
{
	uint8_t *mem = x->rk[mb].mem[x->s->ranks[mb].mrs[o->remote_mr].buf];

	return mem ? mem + o->remote_offset : NULL;
}

static const struct cc_op_send *op_of(const struct sx *x, const struct fl_msg *m)
{
	return sx_wqe_send(x, m->r, &x->rk[m->r].qp[m->q].sq[m->wqe]);
}

static const struct cc_qp *qp_of(const struct sx *x, const struct fl_msg *m)
{
	return &x->s->ranks[m->r].qps[m->q];
}

/* Wire bytes per payload byte of a message of len, `wire` on its link. */
static double weight(uint32_t len, uint64_t wire)
{
	return len ? (double)wire / len : 1.0;
}

/* A message has landed: a store's data in every member, and the QP's next
 * store may land; a load-reduce's result in the sender's buffer. */
static void land(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sx *x = ctx;
	struct fl_msg *m = &x->fl->msg[arg];
	struct sx_qp *qp = &x->rk[m->r].qp[m->q];
	const struct cc_op_send *o = op_of(x, m);
	const struct cc_qp *cq = qp_of(x, m);

	if (m->response) {
		if (m->nodata) { /* a member's share was not carried: no result */
			free(m->data);
			m->data = NULL;
		}
		fl_response_in(eng, ctx, arg);
		return;
	}
	if (qp->fl_last_mc == arg)
		qp->fl_last_mc = FL_NONE;
	if (m->succ != FL_NONE) {
		struct fl_msg *nx = &x->fl->msg[m->succ];

		nx->pred = FL_NONE;
		if (nx->parts == 0) /* through, and waiting for this one */
			fl_at(x, nx->t_arrive > sim_now(eng) ? nx->t_arrive : sim_now(eng), land,
			      m->succ);
	}
	for (uint32_t j = 0; j < cq->group; j++) {
		uint32_t mb = cc_qp_member(cq, j);

		fl_place(x, mb, x->s->ranks[mb].mrs[o->remote_mr].buf, o->remote_offset, m->len, o,
			 m->data);
	}
	fl_msg_free(x, (uint32_t)arg);
}

/* A part of message id is through; `tail` more and it has landed, once
 * every part has (a store behind the QP's store before it). */
static void part_done(struct sx *x, uint32_t id, sim_time_ps tail)
{
	struct fl_msg *m = &x->fl->msg[id];
	sim_time_ps at = sim_now(&x->eng) + tail;

	if (at > m->t_arrive)
		m->t_arrive = at;
	if (--m->parts == 0 && m->pred == FL_NONE)
		fl_at(x, m->t_arrive, land, id);
}

static void job_done(struct sim_engine *eng, void *ctx, uint64_t arg);

static void sharp_out(struct sx *x, uint32_t agg, uint32_t j, uint32_t res);

/* The head job of link direction res starts: its flow on that link. */
static void job_go(struct sx *x, uint32_t res)
{
	const struct fl_job *j = &x->fl->fifo[res].q[x->fl->fifo[res].head];
	bool sharp = j->kind == FL_SHARP;
	uint32_t len = sharp ? x->fl->agg[j->id].len : x->fl->msg[j->id].len;
	uint64_t wire = sharp ? x->fl->agg[j->id].wire : x->fl->msg[j->id].wire;
	double w = weight(len, wire);

	fl_count(x, res, len, wire);
	if (j->kind == FL_SHARE) {
		struct fl_msg *m = &x->fl->msg[j->id];
		const struct cc_op_send *o = op_of(x, m);
		const struct sim_host_params *h = &x->f->host;
		uint32_t down = nvlink_res(x, j->mb, false);
		double one = 1.0;

		/* The result, as the members' data stands when their shares
		 * leave (a member not carried: none to carry, land()). */
		sx_fold_bytes(&m->data, &m->nodata, m->len, 0, !m->data, member_mem(x, j->mb, o),
			      m->len, o->dtype, o->redop);
		/* The switch's read of the share came down as request flits, one
		 * per NVLink packet it asks for (sim/wire.h): their room on the
		 * way down, in a flow of their own that does not hold the share
		 * back. */
		if (h->nvlink_pkt_bytes && m->len &&
		    sim_flow_start(&x->fl->net,
				   sim_wire_nvlink_read_bytes(m->len, h->nvlink_pkt_bytes,
							      h->nvlink_pkt_overhead_bytes),
				   &down, &one, 1, fl_noop, x, 0))
			sx_die_nomem();
	}
	if (sim_flow_start(&x->fl->net, len, &res, &w, 1, job_done, x, res))
		sx_die_nomem();
}

/* Adds a job to link direction res; it starts at once if none is ahead. */
static void job_add(struct sx *x, uint32_t res, struct fl_job j)
{
	struct fl_fifo *f = &x->fl->fifo[res];

	if (f->head == f->n)
		f->head = f->n = 0; /* drained: reuse from the start */
	SX_GROW(f->q, f->n, f->room);
	f->q[f->n++] = j;
	if (f->n - f->head == 1)
		job_go(x, res);
	if (j.kind == FL_SHARE && ++x->fl->msg[j.id].started == qp_of(x, &x->fl->msg[j.id])->group)
		/* The switch answers packet i when every member's packet i is
		 * in: the result is queued once the last share is. */
		job_add(x, nvlink_res(x, x->fl->msg[j.id].r, false),
			(struct fl_job){ .id = j.id, .mb = x->fl->msg[j.id].r, .kind = FL_RESULT });
}

/* The head job of link direction res is through: the next starts, and
 * the job's message is a part nearer landing. */
static void job_done(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sx *x = ctx;
	uint32_t res = (uint32_t)arg;
	struct fl_fifo *f = &x->fl->fifo[res];
	struct fl_job j = f->q[f->head++];

	(void)eng;
	if (f->head < f->n)
		job_go(x, res);
	if (j.kind == FL_SHARP)
		sharp_out(x, j.id, j.mb, res);
	else
		part_done(x, j.id, j.kind == FL_SHARE ? x->fl->msg[j.id].t_in
						      : x->topo.links[res].prop_ps);
}

/* A store has left its sender: the switch ACKs its last packet as it
 * takes it, and the QP sends on. */
static void store_sent(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sx *x = ctx;
	struct fl_msg *m = &x->fl->msg[arg];
	struct sx_qp *qp = &x->rk[m->r].qp[m->q];
	uint32_t r = m->r;

	fl_at(x, sim_now(eng) + m->t_ack, fl_wqe_done, arg);
	part_done(x, (uint32_t)arg, m->t_in);
	qp->fl_busy = false;
	sx_flow_kick(x, r, qp); /* last: its next message may move x->fl->msg */
}

/* A load-reduce's read has reached every member: each owes its share. */
static void reads_in(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sx *x = ctx;
	const struct cc_qp *cq = qp_of(x, &x->fl->msg[arg]);

	(void)eng;
	for (uint32_t j = 0; j < cq->group; j++) {
		uint32_t mb = cc_qp_member(cq, j);

		job_add(x, nvlink_res(x, mb, true),
			(struct fl_job){ .id = (uint32_t)arg, .mb = mb, .kind = FL_SHARE });
	}
}

static void sharp_go(struct sx *x, uint32_t id);

void fl_mcast_go(struct sx *x, uint32_t id)
{
	struct fl_msg *m = &x->fl->msg[id];
	struct sx_qp *qp = &x->rk[m->r].qp[m->q];
	const struct sx_wqe *w = &qp->sq[m->wqe];
	const struct cc_op_send *o = op_of(x, m);
	const struct cc_qp *cq = qp_of(x, m);
	bool store = !cc_opcode_rd_atomic(o->opcode);
	uint32_t up = nvlink_res(x, m->r, true), down = nvlink_res(x, m->r, false);
	sim_time_ps fwd = x->f->sw.fwd_latency_ps, out = 0;
	uint64_t last;
	double wt;

	if (sx_sharp_group(x, cq)) {
		sharp_go(x, id);
		return;
	}
	sx_trace(x, CC_TRACE_TX_FIRST, m->r, CC_TRACE_NIC, m->q, w->op, sim_now(&x->eng), 0, m->len);
	m->wire = fl_msg_wire(x, qp, store ? sim_msg_of_opcode(o->opcode) : SIM_MSG_READ_RESP,
			      m->len, &last);
	if (!store) {
		/* the request's hop up, the switch's read's hop down */
		uint64_t rq = fl_pkt_wire(x, true, SIM_BTH_READ_REQUEST, 0);
		uint32_t far = 0;

		for (uint32_t j = 0; j < cq->group; j++) {
			uint32_t r2 = nvlink_res(x, cc_qp_member(cq, j), true);

			if (x->topo.links[r2].prop_ps > x->topo.links[far].prop_ps || !j)
				far = r2;
		}
		m->response = true;
		m->parts = cq->group + 1; /* the shares, the result */
		m->t_in = x->topo.links[far].prop_ps + fwd + hop_ps(x, down, last);
		qp->rd_out++;
		fl_at(x, sim_now(&x->eng) + hop_ps(x, up, rq) + fwd + hop_ps(x, down, rq), reads_in,
		      id);
		return;
	}
	if (!(o->flags & CC_SEND_INLINE) && m->len)
		m->data = fl_snapshot(x, m->r, fl_local_buf(x, m->r, w, o), o->sge.offset, m->len);
	for (uint32_t j = 0; j < cq->group; j++) {
		sim_time_ps h = hop_ps(x, nvlink_res(x, cc_qp_member(cq, j), false), last);

		if (h > out)
			out = h;
	}
	m->parts = cq->group + 1; /* the flow in, a copy out per member */
	m->refs = 2;              /* the ACK and the landing */
	m->t_in = x->topo.links[up].prop_ps + fwd + out;
	m->t_ack = x->topo.links[up].prop_ps + fwd +
		   hop_ps(x, down, fl_pkt_wire(x, true, SIM_BTH_ACK, 0));
	m->pred = qp->fl_last_mc;
	if (m->pred != FL_NONE)
		x->fl->msg[m->pred].succ = id;
	qp->fl_last_mc = id;
	qp->fl_busy = true;
	x->rk[m->r].st->wire_bytes += m->wire;
	fl_count(x, up, m->len, m->wire);
	wt = weight(m->len, m->wire);
	if (sim_flow_start(&x->fl->net, m->len, &up, &wt, 1, store_sent, x, id))
		sx_die_nomem();
	for (uint32_t j = 0; j < cq->group; j++) {
		uint32_t mb = cc_qp_member(cq, j);

		job_add(x, nvlink_res(x, mb, false), (struct fl_job){ .id = id, .mb = mb,
								   .kind = FL_COPY });
	}
}

/* ---- SHARP in the network's switches ---- */

static uint32_t member_of(const struct fl_agg *a, uint32_t j)
{
	return a->peer + j * a->stride;
}

/* The network link member mb's group QP q leaves by (to the switch), or
 * comes in by. */
static uint32_t net_res(const struct sx *x, uint32_t mb, uint32_t q, bool to_switch)
{
	struct sim_topo *t = (struct sim_topo *)&x->topo;
	uint32_t p = x->rk[mb].qp[q].port;

	return (uint32_t)((to_switch ? sim_topo_nic_tx(t, mb, p) : sim_topo_nic_rx(t, mb, p)) -
			  x->topo.links);
}

/* The open reduction of the seq-th SEND of the group of QP q at peer; made
 * by its first member. */
static uint32_t agg_of(struct sx *x, const struct cc_qp *cq, uint32_t q, uint32_t seq,
		       uint32_t len, uint32_t mtu)
{
	struct sx_flow *fl = x->fl;
	uint32_t id, free_id = FL_NONE;
	struct fl_agg *a;

	for (id = 0; id < fl->nagg; id++) {
		a = &fl->agg[id];
		if (a->used && a->q == q && a->peer == cq->peer && a->seq == seq)
			return id;
		if (!a->used && free_id == FL_NONE)
			free_id = id;
	}
	if (free_id == FL_NONE) {
		SX_GROW(fl->agg, fl->nagg, fl->room_agg);
		free_id = fl->nagg++;
		fl->agg[free_id] = (struct fl_agg){ 0 };
	}
	a = &fl->agg[free_id];
	free(a->out);
	*a = (struct fl_agg){ .used = true, .q = q, .peer = cq->peer,
			      .stride = cq->stride ? cq->stride : 1, .members = cq->group,
			      .seq = seq, .len = len, .mtu = mtu, .shares = cq->group,
			      .left = cq->group };
	if (!(a->out = calloc(cq->group, sizeof(*a->out))))
		sx_die_nomem();
	return free_id;
}

static void sharp_deliver(struct sim_engine *eng, void *ctx, uint64_t arg);

/* Member j's result can land once it is out of the switch and the last
 * share is in: its last packet's way, the responder, the PCIe write. */
static void sharp_land(struct sx *x, uint32_t agg, uint32_t j)
{
	struct fl_agg *a = &x->fl->agg[agg];
	uint32_t mb = member_of(a, j), res = net_res(x, mb, a->q, false);
	sim_time_ps at = a->t_in + hop_ps(x, res, a->last);

	if (a->out[j] > at)
		at = a->out[j];
	at += x->f->rnic.resp_proc_ps + fl_pcie_pkt_ps(x, a->len, a->mtu, false, false);
	fl_at(x, at, sharp_deliver, (uint64_t)j << 32 | agg);
}

/* Member j's result is out of the switch's port (job end): it lands when
 * the shares are all in too. */
static void sharp_out(struct sx *x, uint32_t agg, uint32_t j, uint32_t res)
{
	struct fl_agg *a = &x->fl->agg[agg];

	a->out[j] = sim_now(&x->eng) + x->topo.links[res].prop_ps;
	if (a->shares == 0)
		sharp_land(x, agg, j);
}

/* The result is in member j's NIC: it takes it as a SEND on the group's
 * QP (its receive WQE, the buffer, the completion).  A member that has
 * posted no receive yet is asked again after the RNR timer. */
static void sharp_deliver(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sx *x = ctx;
	uint32_t agg = (uint32_t)arg, j = (uint32_t)(arg >> 32);
	struct fl_agg *a = &x->fl->agg[agg];
	uint32_t mb = member_of(a, j);
	struct sx_qp *qp = &x->rk[mb].qp[a->q];
	const struct cc_op_recv *rv;
	const struct cc_mr *mr;
	uint32_t rop;

	if (qp->rq_head == qp->rq_n) {
		x->rk[mb].st->rnr_naks++;
		fl_at(x, sim_now(eng) + sim_rnr_timer_ps(x->f->rnic.min_rnr_timer), sharp_deliver,
		      arg);
		return;
	}
	rop = qp->rq[qp->rq_head++];
	rv = &cc_rank_op(&x->s->ranks[mb], rop)->u.recv;
	mr = rv->num_sge ? sx_find_mr(x, mb, x->rk[mb].key[rv->sge.mr], rv->sge.offset, 0, 0)
			 : NULL;
	if (mr)
		fl_place(x, mb, mr->buf, rv->sge.offset, a->len, NULL, a->nodata ? NULL : a->acc);
	sx_cqe_new(x, mb, a->q, rop, true, CC_WC_SUCCESS, a->len, 0,
		   sim_now(eng) + sx_cqe_write_ps(x, qp));
	if (--a->left == 0) {
		free(a->acc);
		a->acc = NULL;
		a->used = false;
	}
}

/* A member's share has left it: the switch ACKs it as it takes it, the
 * QP sends on; when every share is in, the results out may land. */
static void sharp_share_in(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sx *x = ctx;
	struct fl_msg *m = &x->fl->msg[arg];
	struct sx_qp *qp = &x->rk[m->r].qp[m->q];
	uint32_t r = m->r, agg = m->agg, up = net_res(x, r, m->q, true);
	struct fl_agg *a = &x->fl->agg[agg];
	sim_time_ps in = sim_now(eng) + x->topo.links[up].prop_ps + x->f->sw.fwd_latency_ps;

	fl_at(x, in + hop_ps(x, net_res(x, r, m->q, false), fl_pkt_wire(x, false, SIM_BTH_ACK, 0)) +
			 x->f->rnic.resp_proc_ps,
	      fl_wqe_done, arg);
	if (in > a->t_in)
		a->t_in = in;
	if (--a->shares == 0)
		for (uint32_t j = 0; j < a->members; j++)
			if (a->out[j])
				sharp_land(x, agg, j);
	qp->fl_busy = false;
	sx_flow_kick(x, r, qp); /* last: its next message may move x->fl->msg */
}

/* A member's share starts into the switch (its payload's first read
 * done): the result folds it in; once every share has started, the
 * result's copies queue at the switch's ports. */
static void sharp_share_go(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sx *x = ctx;
	struct fl_msg *m = &x->fl->msg[arg];
	const struct cc_op_send *o = op_of(x, m);
	struct fl_agg *a = &x->fl->agg[m->agg];
	uint32_t res[3] = { fl_pcie_res(x, m->r, true), net_res(x, m->r, m->q, true) };
	double w[3] = { fl_pcie_w(x, m->len ? m->len : 1, true), weight(m->len, m->wire) };
	uint32_t agg = m->agg, n = 2;

	(void)eng;
	sx_fold_bytes(&a->acc, &a->nodata, a->len, 0, !a->acc, m->data, a->len, o->dtype,
		      o->redop);
	fl_count(x, res[1], m->len, m->wire);
	/* read across the sockets' link too (host.nic_socket remote) */
	fl_socket_add(x, m->r, SIM_PCIE_DOWN, m->len, res, w, &n);
	x->rk[m->r].st->wire_bytes += m->wire;
	if (sim_flow_start(&x->fl->net, m->len, res, w, n, sharp_share_in, x, arg))
		sx_die_nomem();
	if (++x->fl->agg[agg].started == x->fl->agg[agg].members)
		for (uint32_t j = 0; j < x->fl->agg[agg].members; j++) {
			struct fl_agg *b = &x->fl->agg[agg];

			job_add(x, net_res(x, member_of(b, j), b->q, false),
				(struct fl_job){ .id = agg, .mb = j, .kind = FL_SHARP });
		}
}

/* A member's SEND on a SHARP group's QP: its share of the group's
 * reduction. */
static void sharp_go(struct sx *x, uint32_t id)
{
	struct fl_msg *m = &x->fl->msg[id];
	struct sx_qp *qp = &x->rk[m->r].qp[m->q];
	const struct sx_wqe *w = &qp->sq[m->wqe];
	const struct cc_op_send *o = op_of(x, m);
	uint64_t last;

	sx_trace(x, CC_TRACE_TX_FIRST, m->r, CC_TRACE_NIC, m->q, w->op, sim_now(&x->eng), 0, m->len);
	m->wire = fl_msg_wire(x, qp, SIM_MSG_SEND, m->len, &last);
	m->agg = agg_of(x, qp_of(x, m), m->q, qp->fl_seq++, m->len, qp->mtu);
	x->fl->agg[m->agg].wire = m->wire;
	x->fl->agg[m->agg].last = last;
	if (m->len)
		m->data = fl_snapshot(x, m->r, fl_local_buf(x, m->r, w, o), o->sge.offset, m->len);
	qp->fl_busy = true;
	fl_at(x, sim_now(&x->eng) + (m->len ? fl_pcie_pkt_ps(x, m->len, qp->mtu, true, true) : 0),
	      sharp_share_go, id);
}

void fl_sharp_free(struct sx *x)
{
	for (uint32_t i = 0; i < x->fl->nagg; i++) {
		free(x->fl->agg[i].acc);
		free(x->fl->agg[i].out);
	}
	free(x->fl->agg);
}
