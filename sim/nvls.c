/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/nvls.c — NVLink SHARP in the simulator: an NVSwitch's multicast and
 * reduction engine, and a member GPU's share of a reduction.
 *
 * A multicast QP (core/schedule.h) sends its requests to its host's
 * NVSwitch (dst SIM_TOPO_MCAST), which takes them for itself
 * (sim_switch_on_local()) once their last bit is in and
 * switch.fwd_latency_ps later (a per-input delay line: one input's
 * packets arrive in order), then:
 *
 *   RDMA WRITE packet (multimem.st)  a copy to every member of the QP's
 *            group, the sender included, each out of the switch port to
 *            that GPU (sim_switch_inject(): the output queue, the link):
 *            the member writes it to memory on arrival (NVLink: no PCIe);
 *            an ACK back to the sender when the packet asks for one.  The
 *            switch acknowledges what it took, as a posted store is;
 *            copies leave each port in order, so a flag written after the
 *            data lands after it.
 *   RDMA READ request (multimem.ld_reduce)  a reduction: a read to every
 *            member (a request-sized packet); each member's NIC port owes
 *            the switch the range, packet by packet at the QP's MTU (its
 *            arbiter serves that share as one more QP, round robin); the
 *            switch reduces packet i of every member as they come (the
 *            op's dtype and redop, core/dtype.h) and, when the last
 *            member's packet i is in, sends the sender READ response
 *            packet i: one packet, the members' k in.
 *
 * Per GPU on its NVLink, an allreduce of N bytes on k ranks: out N (its
 * share of every reduction) + N/k (its stores), in N/k (its reductions'
 * results) + N (every store's copy).  The reduction itself costs nothing
 * beyond the forwarding latency: an assumption, that the NVSwitch's
 * reduction engine keeps up with its ports (NVIDIA publishes no rate of its
 * own for it; docs/simulator.md).
 *
 * The request checks are core/resp_check.h's, per member, on every
 * packet: a refusal is a NAK to the sender (its QP to error), as the data
 * executor's.  Nothing is retransmitted by the switch: NVLink does not
 * lose packets here unless a fault says so, and a lost copy is lost data.
 * Reductions live in a table indexed by number (the lowest free one), so
 * a run never depends on pointers.
 */
#include "sim/exec_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/word.h"
#include "sim/model.h"
#include "sim/opcode.h"

#define DIE(...) sim__model_die(__FILE__, __LINE__, __VA_ARGS__)

/* One multicast READ in the switch. */
struct sx_red {
	bool used;
	uint32_t rank, qp, wqe; /* the sender's WQE */
	uint32_t psn;           /* its first response PSN */
	uint32_t members, len, mtu, npkts, done;
	enum cc_dtype dtype;
	enum cc_redop redop;
	uint32_t *arrived;      /* per packet: members' shares in */
	uint8_t *acc;           /* the reduction so far, when the run carries data */
	bool nodata;            /* some share came without data */
};

/* One NVSwitch's engine. */
struct sx_nvs {
	struct sx *x;
	uint32_t sw;            /* in x->topo.sw */
	uint32_t first, n;      /* its host's ranks */
	uint32_t *port_of;      /* per rank of the host: the switch port to it */
	struct sim_pipe *in;    /* per switch port: what came in, forwarding */
	struct sx_red *red;
	uint32_t nred, cap_red;
};

void sx_switch_address(const struct sx *x, struct sx_pkt *k, uint32_t dst, uint32_t dst_qpn,
		       uint32_t from, uint32_t from_qp, enum sim_bth_op op, uint32_t payload,
		       bool nvlink)
{
	k->p.src_node = from;
	k->p.src_qpn = from_qp;
	k->p.dst_node = dst;
	k->p.dst_qpn = dst_qpn;
	k->p.psn = k->psn & 0xffffff;
	k->p.flow_id = sim_topo_qp_flow(from, from_qp);
	sx_pkt_size(x, k, nvlink, op, payload);
}

/* A packet the switch makes for request k: its sender's rank, QP, port,
 * WQE, packet and PSN, and a copy of its payload when it has one. */
static struct sx_pkt *child(struct sx *x, const struct sx_pkt *k, enum sx_pkt_kind kind)
{
	struct sx_pkt *c = sx_pkt_get(x);

	c->kind = kind;
	c->rank = k->rank;
	c->qp = k->qp;
	c->port = k->port;
	c->wqe = k->wqe;
	c->idx = k->idx;
	c->psn = k->psn;
	c->last_of_msg = k->last_of_msg;
	return c;
}

uint8_t *sx_bytes_of(const uint8_t *src, uint32_t len)
{
	uint8_t *d = malloc(len ? len : 1);

	if (!d)
		sx_die_nomem();
	memcpy(d, src, len);
	return d;
}

static void send_to(struct sx_nvs *v, uint32_t rank, struct sx_pkt *k)
{
	k->by_switch = true;
	if (sim_switch_inject(&v->x->topo.sw[v->sw], v->port_of[rank - v->first], &k->p))
		DIE("nvls: switch %u has no port to rank %u", v->sw, rank);
}

/* An ACK (or NAK) of request packet req to its sender. */
static void ack(struct sx_nvs *v, const struct sx_pkt *req, enum sx_aeth aeth)
{
	struct sx_pkt *a = child(v->x, req, SX_PKT_RESP);

	a->aeth = aeth;
	a->ack_psn = req->psn;
	a->psn = req->psn;
	sx_switch_address(v->x, a, req->rank, req->qp, req->rank, req->qp, SIM_BTH_ACK, 0, true);
	send_to(v, req->rank, a);
}

/* The request checks of every member on packet k of WQE w (op o). */
static enum cc_resp_state check(const struct sx_nvs *v, const struct sx_pkt *k,
				const struct sx_wqe *w, const struct cc_op_send *o,
				const struct cc_qp *cq)
{
	struct sx *x = v->x;

	for (uint32_t m = cq->peer; m < cq->peer + cq->group; m++) {
		struct cc_resp_req q = { .opcode = o->opcode, .first = true, .len = cc_wqe_len(o),
					 .rkey = x->rk[m].key[o->remote_mr] ^ w->rkey,
					 .va = o->remote_offset };
		struct cc_resp_qp p = { .rs = &x->s->ranks[m], .keys = x->rk[m].key };
		struct cc_resp_found f;
		enum cc_resp_state st = cc_resp_check(&q, &p, &f);

		(void)k;
		if (st != CC_RESP_EXECUTE)
			return st;
	}
	return CC_RESP_EXECUTE;
}

/* multimem.st: packet k's copy to every member. */
static void replicate(struct sx_nvs *v, struct sx_pkt *k, const struct cc_qp *cq)
{
	struct sx *x = v->x;

	for (uint32_t m = cq->peer; m < cq->peer + cq->group; m++) {
		struct sx_pkt *c = child(x, k, SX_PKT_MC_WRITE);

		if (k->data)
			c->data = sx_bytes_of(k->data, k->p.payload_bytes);
		sx_switch_address(x, c, m, 0, k->rank, k->qp, k->p.op, k->p.payload_bytes, true);
		send_to(v, m, c);
	}
	if (k->ackreq)
		ack(v, k, SX_AETH_ACK);
}

/* multimem.ld_reduce: a reduction, and a read to every member. */
static void reduce_start(struct sx_nvs *v, struct sx_pkt *k, const struct cc_op_send *o,
			 const struct cc_qp *cq)
{
	struct sx *x = v->x;
	const struct sx_qp *hq = &x->rk[k->rank].qp[k->qp];
	struct sim_wire_seg seg;
	uint32_t id = 0;
	struct sx_red *d;

	while (id < v->nred && v->red[id].used)
		id++;
	if (id == v->nred) {
		SX_GROW(v->red, v->nred, v->cap_red);
		v->red[v->nred++] = (struct sx_red){ 0 };
	}
	sx_segment(SIM_MSG_READ_RESP, cc_wqe_len(o), hq->mtu, &seg);
	d = &v->red[id];
	*d = (struct sx_red){ .used = true, .rank = k->rank, .qp = k->qp, .wqe = k->wqe,
			      .psn = k->psn, .members = cq->group, .len = cc_wqe_len(o),
			      .mtu = hq->mtu, .npkts = seg.npkts, .dtype = o->dtype,
			      .redop = o->redop };
	d->arrived = calloc(seg.npkts, sizeof(*d->arrived));
	if (!d->arrived)
		sx_die_nomem();
	for (uint32_t m = cq->peer; m < cq->peer + cq->group; m++) {
		struct sx_pkt *r = child(x, k, SX_PKT_MC_READ);

		r->red = id;
		sx_switch_address(x, r, m, 0, k->rank, k->qp, SIM_BTH_READ_REQUEST, 0, true);
		sx_pkt_read_request(x, r, true, d->len);
		send_to(v, m, r);
	}
}

/* Reduction d's packet i is complete: the READ response to its sender. */
static void reduce_answer(struct sx_nvs *v, struct sx_red *d, uint32_t i)
{
	struct sx *x = v->x;
	struct sim_wire_seg seg;
	uint32_t payload;
	enum sim_bth_op op;
	struct sx_pkt *k = sx_pkt_get(x);

	sx_segment(SIM_MSG_READ_RESP, d->len, d->mtu, &seg);
	op = sim_wire_seg_pkt(&seg, i, &payload);
	k->kind = SX_PKT_RESP;
	k->rank = d->rank;
	k->qp = d->qp;
	k->port = x->rk[d->rank].qp[d->qp].port;
	k->wqe = d->wqe;
	k->idx = i;
	k->psn = d->psn + i;
	k->last_of_msg = i + 1 == d->npkts;
	if (d->acc && !d->nodata && payload)
		k->data = sx_bytes_of(d->acc + (uint64_t)i * d->mtu, payload);
	sx_switch_address(x, k, d->rank, d->qp, d->rank, d->qp, op, payload, true);
	send_to(v, d->rank, k);
	if (++d->done == d->npkts) {
		free(d->arrived);
		free(d->acc);
		*d = (struct sx_red){ 0 };
	}
}

void sx_fold_bytes(uint8_t **acc, bool *nodata, uint32_t total, uint64_t at, bool first,
		   const uint8_t *src, uint32_t len, enum cc_dtype dtype, enum cc_redop redop)
{
	if (!len)
		return;
	if (!src) {
		*nodata = true;
		return;
	}
	if (!*acc && !(*acc = malloc(total)))
		sx_die_nomem();
	if (first)
		memcpy(*acc + at, src, len);
	else
		cc_reduce(*acc + at, *acc + at, src, len / cc_dtype_size(dtype), dtype, redop);
}

void sx_fold_share(uint8_t **acc, bool *nodata, uint32_t total, uint64_t at, bool first,
		   const struct sx_pkt *k, enum cc_dtype dtype, enum cc_redop redop)
{
	sx_fold_bytes(acc, nodata, total, at, first, k->data, k->p.payload_bytes, dtype, redop);
}

/* A member's share of packet k->idx of reduction k->red. */
static void reduce_share(struct sx_nvs *v, struct sx_pkt *k)
{
	struct sx_red *d = k->red < v->nred ? &v->red[k->red] : NULL;
	uint32_t i = k->idx;

	if (!d || !d->used || i >= d->npkts)
		DIE("nvls: a share of reduction %u, which is not open", k->red);
	sx_fold_share(&d->acc, &d->nodata, d->len, (uint64_t)i * d->mtu, d->arrived[i] == 0, k,
		      d->dtype, d->redop);
	sx_pkt_put(v->x, k);
	if (++d->arrived[i] == d->members)
		reduce_answer(v, d, i);
}

/* A request or share the switch has now (its forwarding latency past). */
static void engine(struct sim_engine *eng, void *ctx, uint32_t port, struct sim_packet *pkt)
{
	struct sx_nvs *v = ctx;
	struct sx *x = v->x;
	struct sx_pkt *k = (struct sx_pkt *)pkt;

	(void)eng;
	(void)port;
	if (k->kind == SX_PKT_MC_RESP) {
		reduce_share(v, k);
		return;
	}
	if (k->kind != SX_PKT_REQ)
		DIE("nvls: a packet of kind %d for switch %u", (int)k->kind, v->sw);
	const struct sx_wqe *w = &x->rk[k->rank].qp[k->qp].sq[k->wqe];
	const struct cc_op_send *o = sx_wqe_send(x, k->rank, w);
	const struct cc_qp *cq = &x->s->ranks[k->rank].qps[k->qp];
	enum cc_resp_state st = check(v, k, w, o, cq);

	if (st != CC_RESP_EXECUTE)
		ack(v, k, (enum sx_aeth)cc_resp_nak(st));
	else if (k->p.op == SIM_BTH_READ_REQUEST)
		reduce_start(v, k, o, cq);
	else
		replicate(v, k, cq);
	sx_pkt_put(x, k);
}

/* The switch's own packet, header or last bit in: to the engine once its
 * last bit is in and the forwarding latency has passed. */
static void local_rx(void *ctx, const struct sim_switch *sw, uint32_t in_port,
		     struct sim_packet *pkt, sim_time_ps last_ps)
{
	struct sx_nvs *v = ctx;
	sim_time_ps now = sim_now(&v->x->eng);

	(void)sw;
	sim_pipe_push(&v->in[in_port], pkt, (last_ps > now ? last_ps : now) + v->x->f->sw.fwd_latency_ps);
}

/* ---- a member's side ---- */

/* Where multicast WRITE copy k lands in member r's memory. */
static void write_copy(struct sx *x, uint32_t r, struct sx_pkt *k)
{
	const struct sx_qp *hq = &x->rk[k->rank].qp[k->qp];
	const struct cc_op_send *o = sx_wqe_send(x, k->rank, &hq->sq[k->wqe]);
	const struct cc_rank_sched *rs = &x->s->ranks[r];
	uint32_t len = k->p.payload_bytes, buf = rs->mrs[o->remote_mr].buf;
	uint64_t off = o->remote_offset + (uint64_t)k->idx * hq->mtu;
	uint8_t *mem = x->rk[r].mem[buf];

	if (len && mem) {
		if (o->flags & CC_SEND_INLINE) {
			uint8_t word[8];

			cc_word_store(word, o->inline_value);
			memcpy(mem + off, word, len);
		} else if (k->data) {
			memcpy(mem + off, k->data, len);
		}
	}
	if (len)
		sx_mem_written(x, r, buf, off, len);
}

void sx_nvls_rx(struct sx *x, uint32_t r, uint32_t port, struct sx_pkt *k)
{
	struct sx_port *pt = &x->rk[r].port[port];

	if (k->kind == SX_PKT_MC_WRITE) {
		/* Over NVLink: in memory as it arrives (sim/rnic_resp.c). */
		write_copy(x, r, k);
		sx_pkt_put(x, k);
		return;
	}
	const struct sx_qp *hq = &x->rk[k->rank].qp[k->qp];
	const struct cc_op_send *o = sx_wqe_send(x, k->rank, &hq->sq[k->wqe]);
	struct sim_wire_seg seg;

	sx_segment(SIM_MSG_READ_RESP, cc_wqe_len(o), hq->mtu, &seg);
	if (pt->mc_head == pt->mc_n)
		pt->mc_head = pt->mc_n = 0; /* drained: reuse from the start */
	SX_GROW(pt->mc, pt->mc_n, pt->mc_cap);
	pt->mc[pt->mc_n++] = (struct sx_mcowe){
		.red = k->red, .buf = x->s->ranks[r].mrs[o->remote_mr].buf,
		.off = o->remote_offset, .len = cc_wqe_len(o), .mtu = hq->mtu,
		.npkts = seg.npkts,
	};
	sx_pkt_put(x, k);
	sx_port_fill(x, r, port);
}

bool sx_nvls_owes(const struct sx *x, uint32_t r, uint32_t port)
{
	const struct sx_port *pt = &x->rk[r].port[port];

	return pt->mc_head < pt->mc_n;
}

void sx_nvls_resp_make(struct sx *x, uint32_t r, uint32_t port)
{
	struct sx_port *pt = &x->rk[r].port[port];
	struct sx_mcowe *d = &pt->mc[pt->mc_head];
	struct sim_wire_seg seg;
	uint32_t payload, nqps = x->s->ranks[r].nqps;
	enum sim_bth_op op;
	struct sx_pkt *k = sx_pkt_get(x);

	sx_segment(SIM_MSG_READ_RESP, d->len, d->mtu, &seg);
	op = sim_wire_seg_pkt(&seg, d->next, &payload);
	k->kind = SX_PKT_MC_RESP;
	k->rank = r;
	k->qp = SX_NONE;
	k->port = port;
	k->red = d->red;
	k->idx = d->next;
	k->psn = d->next;
	k->buf = d->buf;
	k->off = d->off + (uint64_t)d->next * d->mtu;
	k->last_of_msg = d->next + 1 == d->npkts;
	/* for the switch: the flow of a QP this rank does not have */
	sx_switch_address(x, k, SIM_TOPO_MCAST, 0, r, nqps, op, payload, true);
	if (++d->next == d->npkts)
		pt->mc_head++;
	sx_port_stage(x, r, k, false); /* NVLink: GPU memory, no PCIe read */
}

/* ---- setup ---- */

int sx_nvls_init(struct sx *x)
{
	const struct sim_net *net = x->topo.net;
	uint32_t n = 0;

	for (uint32_t h = 0; h < net->nhosts; h++)
		n += net->hosts[h].nvswitch != SIM_NET_NONE;
	if (!n)
		return 0;
	x->nvs = calloc(n, sizeof(*x->nvs));
	if (!x->nvs)
		return -ENOMEM;
	for (uint32_t h = 0; h < net->nhosts; h++) {
		const struct sim_net_host *host = &net->hosts[h];
		struct sx_nvs *v;
		uint32_t sw = UINT32_MAX;

		if (host->nvswitch == SIM_NET_NONE)
			continue;
		v = &x->nvs[x->nnvs++];
		*v = (struct sx_nvs){ .x = x, .first = host->first_rank, .n = host->ngpus };
		v->port_of = calloc(host->ngpus, sizeof(*v->port_of));
		if (!v->port_of)
			return -ENOMEM;
		for (uint32_t g = 0; g < host->ngpus; g++)
			if (sim_topo_nvswitch_port(&x->topo, host->first_rank + g, &sw,
						   &v->port_of[g]) == SIM_TOPO_NO_PORT)
				return -EINVAL;
		if (sw == UINT32_MAX)
			return -EINVAL;
		v->sw = sw;
		v->in = calloc(x->topo.sw[sw].nports, sizeof(*v->in));
		if (!v->in)
			return -ENOMEM;
		for (uint32_t p = 0; p < x->topo.sw[sw].nports; p++)
			sim_pipe_init(&v->in[p], &x->eng, engine, v, p);
		sim_switch_on_local(&x->topo.sw[sw], local_rx, v);
	}
	return 0;
}

void sx_nvls_free(struct sx *x)
{
	for (uint32_t i = 0; i < x->nnvs; i++) {
		struct sx_nvs *v = &x->nvs[i];

		for (uint32_t d = 0; d < v->nred; d++) {
			free(v->red[d].arrived);
			free(v->red[d].acc);
		}
		free(v->red);
		free(v->port_of);
		free(v->in);
	}
	free(x->nvs);
	x->nvs = NULL;
	x->nnvs = 0;
}
