/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/bound.c — the alpha-beta lower bound (sim/bound.h), port by port.
 *
 * beta: a port serializes one packet at a time at its link's rate, so no
 * run ends before a NIC port has put out every collective-data packet
 * routed through it: the DATA requests (CC_PAYLOAD_DATA) its rank posts on
 * QPs whose flow leaves by that port (the executor's routing: the ECMP
 * hash of sim_topo_qp_flow()), segmented at the QP's path MTU with every
 * header of sim/wire.h (sim_wire_msg_sum()), plus the READ responses it
 * owes — ser(bytes) at that link's rate.  ACKs, clear-to-send words and
 * flags also take the wire but are left out: a bound may only leave things
 * out.
 *
 * alpha: before that port's first data packet can start, some CPU posted a
 * WQE (software.post_send_ps), rang the doorbell (rnic.doorbell_ps), the
 * NIC had it in hand at the earliest (BlueFlame: rnic.req_proc_ps) and read
 * the payload over PCIe (a round trip, 2 x pcie.latency_ps); on an NVLink
 * port none of these, only NCCL's P2P hop (host.p2p_hop_*: the kernel's
 * stores, GPU to GPU, sim/exec.c op_p2p).  After its last data
 * packet has left, the bytes still cross their path (propagation on each of
 * its links, each switch's forwarding latency: the shortest such tail among
 * the port's flows, since the last packet may be any of them), the
 * receiving NIC processes them (rnic.resp_proc_ps) and DMA-writes them
 * (pcie.latency_ps; none arriving over NVLink), and the receiver polls once
 * (software.poll_cq_ps; not for a plain WRITE, which it sees in the memory
 * it watches) before anything can depend on them — or, for a
 * request the responder acknowledges on arrival, the ACK crosses back and
 * the requester's CQE is written (rnic.cqe_write_ps) and polled, when that
 * is shorter (a high pcie.latency_ps: a WRITE's sender can learn before
 * its receiver).  Every run's end depends on every data packet, so for
 * each port the sum holds for every schedule that computes the collective
 * correctly, and the bound is the largest of them.
 *
 * A multicast QP's data (NVLink SHARP, sim/nvls.c) loads the NVLink ports
 * it leaves by: a WRITE the sender's, a READ every member's (each sends the
 * switch its share), with no tail.
 *
 * What the bound does not count, and the run pays: clear-to-send round
 * trips before the first send, ACKs and control words on the same ports,
 * reductions and copies, WQE fetches without BlueFlame, PCIe and CPU
 * contention, and pipeline fill and drain beyond one packet.
 */
#include "sim/bound.h"

#include <stdbool.h>
#include <stdlib.h>

#include "sim/opcode.h"
#include "sim/topo.h"
#include "sim/wire.h"

/* Wire bytes of one data WQE, segmented at mtu, framed as the link it
 * leaves on (NVLink's or the fabric's, as sx_pkt_size). */
static uint64_t data_wire_bytes(const struct cc_op_send *o, const struct sim_params *f,
				uint32_t mtu, bool nvlink)
{
	const struct sim_host_params *h = &f->host;
	struct sim_wire_seg seg;

	if (o->opcode == CC_WR_ATOMIC_FETCH_ADD || o->opcode == CC_WR_ATOMIC_CMP_SWP)
		return 0;
	if (sim_wire_segment(sim_msg_of_opcode(o->opcode), o->num_sge ? o->sge.length : 0, mtu,
			     &seg))
		return 0;
	if (nvlink && h->nvlink_pkt_bytes)
		return (uint64_t)(seg.npkts - 1) *
			       sim_wire_nvlink_bytes(seg.mtu, h->nvlink_pkt_bytes,
						     h->nvlink_pkt_overhead_bytes) +
		       sim_wire_nvlink_bytes(seg.last_payload, h->nvlink_pkt_bytes,
					     h->nvlink_pkt_overhead_bytes);
	return sim_wire_msg_sum(f->link.type, &seg).wire;
}

/* What one NIC port must carry, and its shortest tail. */
struct port_load {
	uint64_t bytes;
	uint64_t rate_bps;
	sim_time_ps tail_ps;  /* after its last data packet leaves */
	bool nvlink;
	bool used;
};

/* One data WQE of QP q of rank r (its payload goes from `from` to `to`,
 * on the flow of `from`'s end of the QP) onto its port's load. */
static void add_wqe(const struct cc_schedule *s, const struct sim_params *f,
		    const struct sim_net *net, const uint32_t *first, struct port_load *load,
		    uint32_t r, const struct cc_op_send *o)
{
	const struct cc_qp *qp = &s->ranks[r].qps[o->qp];
	bool read = o->opcode == CC_WR_RDMA_READ; /* its payload comes towards us */
	uint32_t from = read ? qp->peer : r, to = read ? r : qp->peer;
	uint64_t there_flow = read ? sim_topo_qp_flow(qp->peer, qp->peer_qp)
				   : sim_topo_qp_flow(r, o->qp);
	uint64_t back_flow = read ? sim_topo_qp_flow(r, o->qp)
				  : sim_topo_qp_flow(qp->peer, qp->peer_qp);
	struct sim_topo_path there, back;
	struct port_load *pl;
	sim_time_ps tail;

	if (sim_topo_net_path(net, f, from, to, there_flow, &there) ||
	    sim_topo_net_path(net, f, to, from, back_flow, &back))
		return; /* the run refuses it */
	pl = &load[first[from] + there.first_port];
	/* The QP's MTU: both directions' smallest, as the executor's. */
	pl->bytes += data_wire_bytes(o, f, there.mtu < back.mtu ? there.mtu : back.mtu,
				     there.first_nvlink);
	sim_time_ps arrive = there.prop_ps + (sim_time_ps)there.switches * f->sw.fwd_latency_ps +
			     f->rnic.resp_proc_ps;

	/* The receiver learns of a SEND or WRITE WITH IMM by polling its CQ;
	 * of a plain WRITE by the memory it watches (LL's flags: no poll). */
	bool receiver_cqe = o->opcode == CC_WR_SEND || o->opcode == CC_WR_SEND_WITH_IMM ||
			    o->opcode == CC_WR_RDMA_WRITE_WITH_IMM || read;

	tail = arrive + (there.last_nvlink ? 0 : f->pcie.latency_ps) +
	       (receiver_cqe ? f->soft.poll_cq_ps : 0);
	if (!read) {
		/* The requester may learn first: the ACK leaves on arrival, before
		 * the payload's posted DMA write lands (sim/rnic_resp.c). */
		sim_time_ps acked = arrive + back.prop_ps +
				    (sim_time_ps)back.switches * f->sw.fwd_latency_ps +
				    f->rnic.cqe_write_ps + f->soft.poll_cq_ps;
		if (acked < tail)
			tail = acked;
	}
	if (!pl->used || tail < pl->tail_ps)
		pl->tail_ps = tail;
	pl->rate_bps = there.first_rate_bps;
	pl->nvlink = there.first_nvlink;
	pl->used = true;
}

/* A SEND to an in-network reduction (SHARP, sim/sharp.c) of rank r: its
 * packets leave r's first network port, to its switch, at that link's
 * MTU (the members' smallest is no larger).  No tail: the result comes
 * back from the switch, which this bound does not follow. */
static void add_innet_wqe(const struct sim_params *f, const struct sim_net *net,
			  const uint32_t *first, struct port_load *load, uint32_t r,
			  const struct cc_op_send *o)
{
	const struct sim_net_node *v = &net->nodes[net->rank_node[r]];

	for (uint32_t p = 0; p < v->nports; p++) {
		const struct sim_net_link *l = &net->links[v->port_link[p]];
		struct port_load *pl = &load[first[r] + p];

		if (l->kind == SIM_NET_LINK_NVLINK)
			continue;
		pl->bytes += data_wire_bytes(o, f, l->mtu ? l->mtu : f->link.mtu_bytes, false);
		pl->rate_bps = sim_topo_link_rate(l, f);
		pl->nvlink = false;
		pl->tail_ps = 0;
		pl->used = true;
		return;
	}
}

/* A data WQE of multicast QP qp (NVLink SHARP, sim/nvls.c) of rank r: a
 * WRITE's packets leave r's NVLink port once; a READ's range leaves every
 * member's NVLink port, as READ response packets, to the switch that
 * reduces it.  At the QP's MTU, the smallest of its members' NVLink links.
 * Their tails are left out (0): what follows the switch is not this
 * bound's to count. */
static void add_mcast_wqe(const struct sim_params *f, const struct sim_net *net,
			  const uint32_t *first, struct port_load *load, uint32_t r,
			  const struct cc_qp *qp, const struct cc_op_send *o)
{
	uint32_t mtu = UINT32_MAX, from, to;
	struct sim_wire_seg seg;
	bool read = o->opcode == CC_WR_RDMA_READ;

	if (o->opcode == CC_WR_SEND) {
		add_innet_wqe(f, net, first, load, r, o);
		return;
	}
	for (uint32_t m = qp->peer; m < qp->peer + qp->group; m++) {
		uint32_t p = sim_net_nvswitch_port(net, m);
		const struct sim_net_link *l;

		if (p == SIM_NET_NONE)
			return; /* the run refuses it */
		l = &net->links[net->nodes[net->rank_node[m]].port_link[p]];
		if ((l->mtu ? l->mtu : f->link.mtu_bytes) < mtu)
			mtu = l->mtu ? l->mtu : f->link.mtu_bytes;
	}
	if (sim_wire_segment(read ? SIM_MSG_READ_RESP : sim_msg_of_opcode(o->opcode),
			     o->num_sge ? o->sge.length : 0, mtu, &seg))
		return;
	from = read ? qp->peer : r;
	to = read ? qp->peer + qp->group : r + 1;
	for (uint32_t m = from; m < to; m++) {
		uint32_t p = sim_net_nvswitch_port(net, m);
		const struct sim_net_link *l = &net->links[net->nodes[net->rank_node[m]].port_link[p]];
		struct port_load *pl = &load[first[m] + p];

		pl->bytes += sim_wire_msg_sum(f->link.type, &seg).wire;
		pl->rate_bps = sim_topo_link_rate(l, f);
		pl->nvlink = true;
		pl->tail_ps = 0;
		pl->used = true;
	}
}

/* The bound through one port: its start, its bytes, its tail. */
static struct sim_bound port_bound(const struct port_load *pl, const struct sim_params *f,
				   enum cc_proto proto)
{
	struct sim_bound b;

	b.beta_ps = sim_serialize_ps(pl->bytes, pl->rate_bps);
	/* An NVLink port starts one P2P hop in: the kernel's stores have no
	 * post, doorbell or WQE to wait for (sim/exec.c op_p2p). */
	b.alpha_ps = (pl->nvlink ? sim_p2p_hop_ps(&f->host, proto)
				 : f->soft.post_send_ps + f->rnic.doorbell_ps + f->rnic.req_proc_ps +
					   2 * f->pcie.latency_ps) +
		     pl->tail_ps;
	b.total_ps = b.alpha_ps + b.beta_ps;
	return b;
}

/* What add_op() adds the data WQEs of rank r to. */
struct wqe_adder {
	const struct cc_schedule *s;
	const struct sim_params *f;
	const struct sim_net *net;
	const uint32_t *first;
	struct port_load *load;
	uint32_t r;
};

static void add_op(void *ctx, const struct cc_op *op)
{
	const struct wqe_adder *a = ctx;
	const struct cc_rank_sched *rs = &a->s->ranks[a->r];

	if (op->kind != CC_OP_POST_SEND || op->u.send.payload != CC_PAYLOAD_DATA)
		return;
	if (cc_qp_mcast(&rs->qps[op->u.send.qp]))
		add_mcast_wqe(a->f, a->net, a->first, a->load, a->r, &rs->qps[op->u.send.qp],
			      &op->u.send);
	else
		add_wqe(a->s, a->f, a->net, a->first, a->load, a->r, &op->u.send);
}

struct sim_bound sim_bound(const struct cc_schedule *s, const struct sim_params *f,
			   const struct sim_net *net)
{
	struct sim_bound b = {0};
	uint32_t *first;
	struct port_load *load;
	size_t nports = 0;

	if (!net || !net->finished || net->nranks != s->nranks)
		return b;
	first = calloc((size_t)s->nranks + 1, sizeof(*first));
	for (uint32_t r = 0; first && r < s->nranks; r++) {
		first[r] = (uint32_t)nports;
		nports += net->nodes[net->rank_node[r]].nports;
	}
	load = calloc(nports ? nports : 1, sizeof(*load));
	if (!first || !load) {
		free(first);
		free(load);
		return b; /* no memory: no bound, rather than a wrong one */
	}
	struct wqe_adder a = { s, f, net, first, load, 0 };

	for (a.r = 0; a.r < s->nranks; a.r++)
		if (cc_sched_each_op(s, a.r, add_op, &a)) {
			free(first);
			free(load);
			return b; /* no memory: no bound, rather than a wrong one */
		}
	for (size_t i = 0; i < nports; i++) {
		struct sim_bound pb;

		if (load[i].bytes == 0)
			continue;
		pb = port_bound(&load[i], f, s->params.proto);
		if (pb.total_ps > b.total_ps)
			b = pb;
	}
	free(first);
	free(load);
	return b;
}
