/* sim/bound.c — the alpha-beta lower bound (sim/bound.h).
 *
 * beta: a port serializes one packet at a time at the link rate, so no run
 * ends before the busiest NIC port has put out every collective-data packet
 * routed through it: the DATA requests (CC_PAYLOAD_DATA) its rank posts
 * to peers behind that port, segmented at the path MTU with every header
 * of sim/wire.h (sim_wire_msg_sum()), plus the READ responses it owes —
 * ser(bytes) at link.rate_bps.  ACKs, clear-to-send words and flags also
 * take the wire but are left out: a bound may only leave things out.
 *
 * alpha: before that port's first data packet can start, some CPU posted a
 * WQE (software.post_send_ps), rang the doorbell (rnic.doorbell_ps), the
 * NIC had it in hand at the earliest (BlueFlame: rnic.req_proc_ps) and read
 * the payload over PCIe (a round trip, 2 x pcie.latency_ps).  After its last
 * data packet has left, the bytes still cross the path (propagation on
 * every link, each switch's forwarding latency), the receiving NIC
 * processes them (rnic.resp_proc_ps) and DMA-writes them (pcie.latency_ps),
 * and the receiver polls once (software.poll_cq_ps) before anything can
 * depend on them.  Every collective's output depends on its last data
 * packet, so the sum holds for every schedule that computes the
 * collective correctly.
 *
 * What the bound does not count, and the run pays: clear-to-send round
 * trips before the first send, ACKs and control words on the same ports,
 * reductions and copies, WQE fetches without BlueFlame, PCIe and CPU
 * contention, and pipeline fill and drain beyond one packet.
 */
#include "sim/bound.h"

#include <stdlib.h>

#include "sim/opcode.h"
#include "sim/wire.h"

/* Wire bytes of one data WQE, on the port that carries its payload. */
static uint64_t data_wire_bytes(const struct cc_op_send *o, const struct sim_params *f)
{
	struct sim_wire_seg seg;

	if (o->opcode == CC_WR_ATOMIC_FETCH_ADD || o->opcode == CC_WR_ATOMIC_CMP_SWP)
		return 0;
	if (sim_wire_segment(sim_msg_of_opcode(o->opcode), o->num_sge ? o->sge.length : 0,
			     f->link.mtu_bytes, &seg))
		return 0;
	return sim_wire_msg_sum(f->link.type, &seg).wire;
}

struct sim_bound sim_bound(const struct cc_schedule *s, const struct sim_params *f,
			   enum sim_topo_kind topo)
{
	struct sim_topo t = {.kind = topo, .nranks = s->nranks};
	struct sim_bound b = {0};
	uint64_t busiest = 0, *bytes = calloc((size_t)s->nranks * 2 + 1, sizeof(*bytes));
	uint32_t hops = 0;

	if (!bytes)
		return b; /* no memory: no bound, rather than a wrong one */
	for (uint32_t r = 0; r < s->nranks; r++) {
		const struct cc_rank_sched *rs = &s->ranks[r];

		for (uint32_t i = 0; i < rs->nops; i++) {
			const struct cc_op *op = &rs->ops[i];
			const struct cc_op_send *o = &op->u.send;
			uint32_t from, to, port;

			if (op->kind != CC_OP_POST_SEND || o->payload != CC_PAYLOAD_DATA)
				continue;
			/* A READ's payload leaves from the peer, towards us. */
			from = o->opcode == CC_WR_RDMA_READ ? rs->qps[o->qp].peer : r;
			to = from == r ? rs->qps[o->qp].peer : r;
			port = sim_topo_route(&t, from, to);
			if (port >= 2)
				continue;
			bytes[(size_t)from * 2 + port] += data_wire_bytes(o, f);
			if (sim_topo_switch_hops(&t, from, to) > hops)
				hops = sim_topo_switch_hops(&t, from, to);
		}
	}
	for (size_t i = 0; i < (size_t)s->nranks * 2; i++)
		if (bytes[i] > busiest)
			busiest = bytes[i];
	free(bytes);
	if (busiest == 0)
		return b;
	b.beta_ps = sim_serialize_ps(busiest, f->link.rate_bps);
	b.alpha_ps = f->soft.post_send_ps + f->rnic.doorbell_ps + f->rnic.req_proc_ps +
		     2 * f->pcie.latency_ps +
		     (uint64_t)(hops + 1) * f->link.prop_delay_ps + hops * f->sw.fwd_latency_ps +
		     f->rnic.resp_proc_ps + f->pcie.latency_ps + f->soft.poll_cq_ps;
	b.total_ps = b.alpha_ps + b.beta_ps;
	return b;
}
