/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/sharp.c — SHARP in the network's switches: a switch's aggregation
 * engine for the in-network reductions of multicast QPs whose members are
 * not one NVSwitch node's (core/schedule.h, "In-network reduction").
 *
 * The mechanism is NVIDIA's Scalable Hierarchical Aggregation and
 * Reduction Protocol as the switch runs it (Graham et al., "Scalable
 * Hierarchical Aggregation Protocol (SHArP): A Hardware Architecture for
 * Efficient Data Reduction", COMHPC 2016; SHARP's streaming aggregation
 * in Quantum switches): each host sends its data to the aggregation node
 * of the switch it hangs off, which reduces what its children sent and
 * sends the result down to every host.  Here one switch is the tree: the
 * members' NIC ports must all lead to it (a rail of a rail-optimised
 * network, or a star); a tree over several switches is refused.
 *
 * Member side: a SEND on the group's QP leaves the member's network port
 * addressed to the switch (dst SIM_TOPO_MCAST; a network switch with
 * switch.sharp takes such packets for itself), PSN by PSN as on any RC
 * QP; the switch acknowledges each packet that asks for it, so the SEND
 * completes when the switch has taken it.  The result comes back as a
 * SEND on the same QP, which the member's responder takes as any SEND
 * (sim/rnic_resp.c: the receive WQE, the DMA write, the completion),
 * without acknowledging it: the switch sends results once and keeps no
 * state to resend them.
 *
 * Switch side, each packet after switch.fwd_latency_ps (a delay line per
 * input, as sim/nvls.c's): in PSN order per member QP (a duplicate is
 * acknowledged again, one past a gap dropped: the member resends it); a
 * message's first packet names its operation — the member's j-th SEND on
 * the QP is the group's j-th reduction — whose length, type and operation
 * every member must share, or the switch NAKs them (invalid request,
 * IBV_WC_REM_INV_REQ_ERR, as the data executor ends it); packet i of
 * every member is reduced as it comes (member order does not matter for
 * sum, min and max of integers; floats are added in arrival order, as a
 * switch would), and when the last member's packet i is in, result
 * packet i goes out of the switch's port to every member at once.  The
 * reduction costs nothing beyond the forwarding latency: an assumption,
 * that the aggregation engine keeps up with its ports, as NVLS's is
 * taken to (NVIDIA publishes no aggregation rate of its own).  Link loss
 * is refused: the switch would have to keep every result to resend it. */
#include "sim/exec_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/model.h"
#include "sim/opcode.h"

#define DIE(...) sim__model_die(__FILE__, __LINE__, __VA_ARGS__)

/* One reduction the switch has open: the j-th SEND of a group. */
struct sx_agg {
	bool used, failed;
	uint32_t q, peer, stride, members; /* the group: QP q of its members */
	uint32_t seq;                      /* j */
	uint32_t len, mtu, npkts, done;
	enum cc_dtype dtype;
	enum cc_redop redop;
	uint32_t *arrived;                 /* per packet: members' shares in */
	uint32_t *wqe;                     /* per member: its SEND's WQE */
	uint8_t *acc;                      /* the reduction so far, when carried */
	bool nodata;
};

/* What the switch keeps of one member QP. */
struct sx_agg_end {
	uint32_t epsn;     /* the next request PSN it takes */
	uint32_t next_seq; /* messages begun */
	uint32_t cur;      /* the open reduction its current message feeds */
	uint32_t rpsn;     /* the next result PSN it sends the member */
};

struct sx_sharp {
	struct sx *x;
	uint32_t sw;               /* in x->topo.sw */
	uint32_t *port_of;         /* per rank: the switch port to it, or SX_NONE */
	struct sx_agg_end **end;   /* per rank: per QP, or NULL */
	struct sim_pipe *in;       /* per switch port */
	struct sx_agg *agg;
	uint32_t nagg, cap_agg;
};

bool sx_sharp_group(const struct sx *x, const struct cc_qp *cq)
{
	return cq->stride > 1 ||
	       sim_net_nvswitch_host(x->topo.net, cq->peer, cq->group) == SIM_NET_NONE;
}

static void send_to(struct sx_sharp *v, uint32_t rank, struct sx_pkt *k)
{
	k->by_switch = true;
	if (sim_switch_inject(&v->x->topo.sw[v->sw], v->port_of[rank], &k->p))
		DIE("sharp: switch %u has no port to rank %u", v->sw, rank);
}

/* An ACK (or NAK) of member request packet req. */
static void ack(struct sx_sharp *v, const struct sx_pkt *req, enum sx_aeth aeth, uint32_t psn)
{
	struct sx_pkt *a = sx_pkt_get(v->x);

	a->kind = SX_PKT_RESP;
	a->rank = req->rank;
	a->qp = req->qp;
	a->port = req->port;
	a->aeth = aeth;
	a->ack_psn = psn;
	a->psn = psn;
	sx_switch_address(v->x, a, req->rank, req->qp, req->rank, req->qp, SIM_BTH_ACK, 0, false);
	send_to(v, req->rank, a);
}

/* The open reduction for the seq-th SEND of the group of rank r's QP q,
 * made when it is the first member's packet. */
static uint32_t agg_of(struct sx_sharp *v, uint32_t r, uint32_t q, uint32_t seq,
		       const struct cc_op_send *o)
{
	struct sx *x = v->x;
	const struct cc_qp *cq = &x->s->ranks[r].qps[q];
	uint32_t id, free_id = UINT32_MAX;
	struct sim_wire_seg seg;
	struct sx_agg *d;

	for (id = 0; id < v->nagg; id++) {
		d = &v->agg[id];
		if (d->used && d->q == q && d->peer == cq->peer && d->seq == seq)
			return id;
		if (!d->used && free_id == UINT32_MAX)
			free_id = id;
	}
	if (free_id == UINT32_MAX) {
		SX_GROW(v->agg, v->nagg, v->cap_agg);
		free_id = v->nagg++;
	}
	d = &v->agg[free_id];
	*d = (struct sx_agg){ .used = true, .q = q, .peer = cq->peer,
			      .stride = cq->stride ? cq->stride : 1, .members = cq->group,
			      .seq = seq, .len = cc_wqe_len(o), .mtu = x->rk[r].qp[q].mtu,
			      .dtype = o->dtype, .redop = o->redop };
	sx_segment(SIM_MSG_SEND, d->len, d->mtu, &seg);
	d->npkts = seg.npkts;
	d->arrived = calloc(seg.npkts, sizeof(*d->arrived));
	d->wqe = calloc(d->members, sizeof(*d->wqe));
	if (!d->arrived || !d->wqe)
		sx_die_nomem();
	return free_id;
}

static void agg_close(struct sx_agg *d)
{
	free(d->arrived);
	free(d->wqe);
	free(d->acc);
	*d = (struct sx_agg){ 0 };
}

/* Packet i of reduction d is complete: result packet i to every member. */
static void agg_answer(struct sx_sharp *v, struct sx_agg *d, uint32_t i)
{
	struct sx *x = v->x;
	struct sim_wire_seg seg;
	uint32_t payload;
	enum sim_bth_op op;

	sx_segment(SIM_MSG_SEND, d->len, d->mtu, &seg);
	op = sim_wire_seg_pkt(&seg, i, &payload);
	for (uint32_t j = 0; j < d->members; j++) {
		uint32_t m = d->peer + j * d->stride;
		struct sx_agg_end *e = &v->end[m][d->q];
		struct sx_pkt *k = sx_pkt_get(x);

		k->kind = SX_PKT_REQ;
		k->rank = m; /* the member's own SEND: its length and opcode */
		k->qp = d->q;
		k->wqe = d->wqe[j];
		k->port = x->rk[m].qp[d->q].port;
		k->idx = i;
		k->psn = e->rpsn++;
		k->last_of_msg = i + 1 == d->npkts;
		k->t0 = sim_now(&x->eng);
		if (d->acc && !d->nodata && payload)
			k->data = sx_bytes_of(d->acc + (uint64_t)i * d->mtu, payload);
		sx_switch_address(x, k, m, d->q, m, d->q, op, payload, false);
		send_to(v, m, k);
	}
	if (++d->done == d->npkts)
		agg_close(d);
}

/* NAKs every member's packet of reduction d from now on: the group's
 * SENDs disagree. */
static void agg_fail(struct sx_sharp *v, struct sx_agg *d, const struct sx_pkt *k)
{
	d->failed = true;
	ack(v, k, SX_AETH_NAK_INV_REQ, k->psn);
}

/* A member's request packet, its forwarding latency past. */
static void engine(struct sim_engine *eng, void *ctx, uint32_t port, struct sim_packet *pkt)
{
	struct sx_sharp *v = ctx;
	struct sx *x = v->x;
	struct sx_pkt *k = (struct sx_pkt *)pkt;
	struct sx_agg_end *e;
	uint32_t flags = sim_bth_info[k->p.op].flags;

	(void)eng;
	(void)port;
	if (k->kind != SX_PKT_REQ || !(flags & SIM_PKT_SEND) || !v->end[k->rank])
		DIE("sharp: a packet of kind %d, op %d for switch %u", (int)k->kind,
		    (int)k->p.op, v->sw);
	e = &v->end[k->rank][k->qp];
	if (k->psn != e->epsn) {
		/* A resend of what it has (acknowledged again), or past a gap
		 * (the member resends from the gap: go-back-N). */
		if ((int32_t)(k->psn - e->epsn) < 0 && k->ackreq)
			ack(v, k, SX_AETH_ACK, e->epsn - 1);
		sx_pkt_put(x, k);
		return;
	}
	e->epsn++;
	const struct cc_op_send *o = sx_wqe_send(x, k->rank, &x->rk[k->rank].qp[k->qp].sq[k->wqe]);
	const struct cc_qp *cq = &x->s->ranks[k->rank].qps[k->qp];
	uint32_t j = (k->rank - cq->peer) / (cq->stride ? cq->stride : 1);

	if (flags & SIM_PKT_FIRST)
		e->cur = agg_of(v, k->rank, k->qp, e->next_seq++, o);
	struct sx_agg *d = &v->agg[e->cur];
	uint32_t i = k->idx;

	if (d->failed || cc_wqe_len(o) != d->len || o->dtype != d->dtype || o->redop != d->redop) {
		agg_fail(v, d, k);
		sx_pkt_put(x, k);
		return;
	}
	d->wqe[j] = k->wqe;
	if (k->ackreq)
		ack(v, k, SX_AETH_ACK, k->psn);
	sx_fold_share(&d->acc, &d->nodata, d->len, (uint64_t)i * d->mtu, d->arrived[i] == 0, k,
		      d->dtype, d->redop);
	sx_pkt_put(x, k);
	if (++d->arrived[i] == d->members)
		agg_answer(v, d, i);
}

static void local_rx(void *ctx, const struct sim_switch *sw, uint32_t in_port,
		     struct sim_packet *pkt, sim_time_ps last_ps)
{
	struct sx_sharp *v = ctx;
	sim_time_ps now = sim_now(&v->x->eng);

	(void)sw;
	sim_pipe_push(&v->in[in_port], pkt,
		      (last_ps > now ? last_ps : now) + v->x->f->sw.fwd_latency_ps);
}

/* ---- setup ---- */

/* The switch and switch port rank r's QP q's port leads to; false when
 * it leads to no switch. */
static bool switch_of(const struct sx *x, uint32_t r, uint32_t q, uint32_t *sw, uint32_t *sw_port)
{
	const struct sim_net *n = x->topo.net;
	uint32_t node, port;

	sim_net_peer(n, n->rank_node[r], x->rk[r].qp[q].port, &node, &port);
	for (uint32_t s = 0; s < x->topo.nsw; s++)
		if (x->topo.sw_ctx[s].node == node) {
			*sw = s;
			*sw_port = port;
			return true;
		}
	return false;
}

static struct sx_sharp *engine_for(struct sx *x, uint32_t sw)
{
	struct sx_sharp *v;

	for (uint32_t i = 0; i < x->nsharp; i++)
		if (x->sharp[i].sw == sw)
			return &x->sharp[i];
	v = &x->sharp[x->nsharp++];
	*v = (struct sx_sharp){ .x = x, .sw = sw };
	v->port_of = malloc(x->s->nranks * sizeof(*v->port_of));
	v->end = calloc(x->s->nranks, sizeof(*v->end));
	v->in = calloc(x->topo.sw[sw].nports, sizeof(*v->in));
	if (!v->port_of || !v->end || !v->in)
		return NULL;
	for (uint32_t r = 0; r < x->s->nranks; r++)
		v->port_of[r] = SX_NONE;
	for (uint32_t p = 0; p < x->topo.sw[sw].nports; p++)
		sim_pipe_init(&v->in[p], &x->eng, engine, v, p);
	sim_switch_on_local(&x->topo.sw[sw], local_rx, v);
	return v;
}

/* ops_fit()'s look at one rank's ops, in index order. */
struct fit {
	const struct sx *x;
	uint32_t r, i;
	char *err;
	size_t errlen;
	int rc;
};

static void fit_op(void *ctx, const struct cc_op *o)
{
	struct fit *f = ctx;
	const struct cc_rank_sched *rs = &f->x->s->ranks[f->r];
	const struct cc_qp *cq;
	uint32_t i = f->i++;
	bool send, sharp;

	if (f->rc || o->kind != CC_OP_POST_SEND || !cc_qp_mcast(cq = &rs->qps[o->u.send.qp]))
		return;
	send = o->u.send.opcode == CC_WR_SEND;
	sharp = sx_sharp_group(f->x, cq);
	if (send == sharp)
		return;
	snprintf(f->err, f->errlen, "rank %u op %u: %s on multicast qp %u, whose members are %s: "
		 "%s", f->r, i, cc_opcode_name[o->u.send.opcode], o->u.send.qp,
		 sharp ? "not one NVSwitch node's" : "one NVSwitch node's",
		 sharp ? "multimem (RDMA WRITE, READ) needs them on one NVSwitch node"
		       : "an NVSwitch reduces only what it reads (RDMA READ)");
	f->rc = -EINVAL;
}

/* Each multicast op for its switch: SEND (reduce in the network) on a
 * SHARP group only, multimem (RDMA WRITE and READ) on an NVSwitch one
 * only (a generated schedule's ops made for the look).  0, -EINVAL with a
 * message, or -ENOMEM. */
static int ops_fit(const struct sx *x, char *err, size_t errlen)
{
	/* Only ops on multicast QPs are looked at: none without them */
	if (!cc_schedule_has_mcast(x->s))
		return 0;
	for (uint32_t r = 0; r < x->s->nranks; r++) {
		struct fit f = { .x = x, .r = r, .err = err, .errlen = errlen };

		if (cc_sched_each_op(x->s, r, fit_op, &f))
			return -ENOMEM;
		if (f.rc)
			return f.rc;
	}
	return 0;
}

int sx_sharp_init(struct sx *x, char *err, size_t errlen)
{
	const struct cc_schedule *s = x->s;
	int rc = ops_fit(x, err, errlen);

	if (rc)
		return rc;

	for (uint32_t r = 0; r < s->nranks; r++)
		for (uint32_t q = 0; q < s->ranks[r].nqps; q++) {
			const struct cc_qp *cq = &s->ranks[r].qps[q];
			uint32_t sw, sw_port, lead_sw, lead_port;
			struct sx_sharp *v;

			if (!cc_qp_mcast(cq) || !sx_sharp_group(x, cq))
				continue;
			if (x->f->link.loss_ppb) {
				snprintf(err, errlen, "rank %u qp %u: an in-network reduction with "
					 "link loss is not modelled (the switch keeps no result to "
					 "resend)", r, q);
				return -EINVAL;
			}
			if (!switch_of(x, r, q, &sw, &sw_port) ||
			    !switch_of(x, cq->peer, q, &lead_sw, &lead_port) || sw != lead_sw ||
			    sim_topo_switch_nvlink(&x->topo, sw)) {
				snprintf(err, errlen, "rank %u qp %u: the members of an in-network "
					 "reduction hang off one switch (a SHARP tree over several "
					 "switches is not modelled); rank %u and rank %u do not", r, q,
					 r, cq->peer);
				return -EINVAL;
			}
			if (!x->topo.sw_ctx[sw].sharp) {
				snprintf(err, errlen, "rank %u qp %u: an in-network reduction needs "
					 "switches with SHARP (switch.sharp: 1, or the topology's "
					 "switch with sharp: true), and %s has none", r, q,
					 x->topo.net->nodes[x->topo.sw_ctx[sw].node].name);
				return -EINVAL;
			}
			if (!x->sharp && !(x->sharp = calloc(x->topo.nsw, sizeof(*x->sharp))))
				return -ENOMEM;
			if (!(v = engine_for(x, sw)))
				return -ENOMEM;
			v->port_of[r] = sw_port;
			if (!v->end[r] && !(v->end[r] = calloc(s->ranks[r].nqps, sizeof(**v->end))))
				return -ENOMEM;
		}
	return 0;
}

void sx_sharp_free(struct sx *x)
{
	for (uint32_t i = 0; i < x->nsharp; i++) {
		struct sx_sharp *v = &x->sharp[i];

		for (uint32_t d = 0; d < v->nagg; d++)
			if (v->agg[d].used)
				agg_close(&v->agg[d]);
		free(v->agg);
		for (uint32_t r = 0; v->end && r < x->s->nranks; r++)
			free(v->end[r]);
		free(v->end);
		free(v->port_of);
		free(v->in);
	}
	free(x->sharp);
	x->sharp = NULL;
	x->nsharp = 0;
}
