/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/switch.c — admission, routing, tail drop, the forwarding pipeline and
 * the cut-through decision.  The model is described in switch.h.
 */
#include "sim/switch.h"
#include "sim/model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/grow.h"
#include "util/splitmix.h"

static uint32_t route(const struct sim_switch *sw, uint32_t in_port, const struct sim_packet *pkt)
{
	uint32_t port = SIM_SWITCH_NO_PORT;

	if (sw->route_fn)
		port = sw->route_fn(sw->route_ctx, sw, in_port, pkt);
	else if (pkt->dst_node < sw->table_len)
		port = sw->table[pkt->dst_node];
	if (port == SIM_SWITCH_LOCAL && sw->local_fn)
		return port;
	if (port >= sw->nports || !sw->ports[port].out)
		return SIM_SWITCH_NO_PORT;
	return port;
}

/* A PAUSE frame (arg: its quanta; 0 resumes) reaches the upstream sender
 * one propagation after the switch sends it. */
static void pfc_apply(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sim_link_dir *l = ctx;

	(void)eng;
	if (arg == UINT64_MAX)
		sim_link_set_paused(l, true); /* quanta 0 configured: until resumed */
	else
		sim_link_pause_quanta(l, (uint32_t)arg);
}

static void pfc_send(struct sim_switch *sw, struct sim_switch_port *p, bool pause);

/* While the input stays above XON, its PAUSE is sent again before the
 * pause it asked for runs out (at half its time), as switches refresh. */
static void pfc_refresh(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sim_switch *sw = ctx;
	struct sim_switch_port *p = &sw->ports[arg];

	if (p->xoff && p->refresh_at == sim_now(eng))
		pfc_send(sw, p, true);
}

static void pfc_send(struct sim_switch *sw, struct sim_switch_port *p, bool pause)
{
	sim_time_ps now = sim_now(sw->eng);
	uint64_t quanta = pause ? (sw->pfc_quanta ? sw->pfc_quanta : UINT64_MAX) : 0;

	p->xoff = pause;
	if (pause)
		p->st.pause_frames++;
	if (sim_schedule(sw->eng, now + p->in->prop_ps, pfc_apply, p->in, quanta) ==
	    SIM_EVENT_NONE)
		sim__sched_die(__FILE__, __LINE__, "switch: a PAUSE");
	if (!pause || !sw->pfc_quanta)
		return;
	p->refresh_at = now + sim_serialize_ps(sw->pfc_quanta * 64u, p->in->rate_bps) / 2;
	if (sim_schedule(sw->eng, p->refresh_at, pfc_refresh, sw, (uint64_t)(p - sw->ports)) ==
	    SIM_EVENT_NONE)
		sim__sched_die(__FILE__, __LINE__, "switch: a PAUSE");
}

/* Bytes from in_port come in (add) or leave: PFC watches them. */
static void in_account(struct sim_switch *sw, uint32_t in_port, uint32_t frame, bool add)
{
	struct sim_switch_port *p = &sw->ports[in_port];

	if (!sw->pfc_xoff || !p->in)
		return;
	if (add) {
		p->in_bytes += frame;
		if (!p->xoff && p->in_bytes > sw->pfc_xoff)
			pfc_send(sw, p, true);
	} else {
		p->in_bytes -= frame;
		if (p->xoff && p->in_bytes <= sw->pfc_xon)
			pfc_send(sw, p, false);
	}
}

/* A held packet from in_port has left: PFC and credits hear of it. */
static void released(struct sim_switch *sw, uint32_t in_port, uint32_t frame)
{
	in_account(sw, in_port, frame, false);
	if (sw->release_fn)
		sw->release_fn(sw->release_ctx, sw, in_port, frame);
}

/* A dropped packet leaves the switch too: with flow control its room goes
 * back to its input (read before the owner reuses the packet). */
static void drop(struct sim_switch *sw, uint32_t in_port, uint32_t port, struct sim_packet *pkt)
{
	uint32_t frame = pkt->frame_bytes;

	if (sw->drop_fn)
		sw->drop_fn(sw->eng, sw->drop_ctx, sw, port, pkt);
	if (sw->release_fn)
		sw->release_fn(sw->release_ctx, sw, in_port, frame);
}

/* The packet leaves the switch for its output link's FIFO. */
static void to_link(struct sim_switch *sw, struct sim_packet *pkt)
{
	struct sim_switch_port *o = &sw->ports[pkt->hop];

	o->held_pkts--;
	if (sw->release_fn || sw->pfc_xoff) { /* remember its input until its last bit leaves */
		if (o->from_n == o->from_cap) {
			uint32_t cap = o->from_cap ? 2 * o->from_cap : 64;
			uint32_t *p = malloc((size_t)cap * sizeof(*p));

			if (!p)
				sim__nomem(__FILE__, __LINE__, "switch: out of memory");
			for (uint32_t i = 0; i < o->from_n; i++)
				p[i] = o->from[(o->from_head + i) % o->from_cap];
			free(o->from);
			o->from = p;
			o->from_cap = cap;
			o->from_head = 0;
		}
		o->from[(o->from_head + o->from_n++) % o->from_cap] = pkt->in_port;
	}
	sim_link_send(o->out, pkt);
}

/* switch.sched fair: the output link takes the next packet only when it
 * has nothing to send, so the choice is made as late as it can be. */
static void fair_pump(struct sim_switch *sw, uint32_t port)
{
	struct sim_switch_port *o = &sw->ports[port];
	struct sim_packet *pkt;

	if (o->out->busy || sim_link_queued(o->out))
		return;
	pkt = sim_fairq_pop(&o->fair);
	if (pkt)
		to_link(sw, pkt);
}

/* The packet may leave: to the link's FIFO, or to its flow's queue.  The
 * link's queue statistics count what waits for it either way. */
static void to_output(struct sim_switch *sw, struct sim_packet *pkt)
{
	struct sim_switch_port *o = &sw->ports[pkt->hop];
	struct sim_link_stats *st;
	uint64_t flow;

	if (sw->sched == SIM_SWITCH_FIFO) {
		to_link(sw, pkt);
		return;
	}
	st = &o->out->st;
	flow = (uint64_t)pkt->src_node << 24 | pkt->src_qpn; /* QPNs are 24-bit */
	if (sim_fairq_push(&o->fair, flow, pkt))
		sim__nomem(__FILE__, __LINE__, "switch: out of memory");
	if (o->fair.bytes + o->out->txq.bytes > st->txq_peak_bytes)
		st->txq_peak_bytes = o->fair.bytes + o->out->txq.bytes;
	if (o->fair.count + o->out->txq.count > st->txq_peak_pkts)
		st->txq_peak_pkts = o->fair.count + o->out->txq.count;
	fair_pump(sw, pkt->hop);
}

static void fwd_release(struct sim_engine *eng, void *ctx, uint32_t port, struct sim_packet *pkt)
{
	(void)eng;
	(void)port;
	to_output(ctx, pkt);
}

/* From here the packet may leave: it reaches the output queue after the
 * forwarding latency.  Entries come in time order, so the pipeline's due
 * times (entry + fwd) never decrease.  With no latency it goes straight
 * through, so the pipeline stays empty and costs no event. */
static void enter_pipeline(struct sim_switch *sw, struct sim_packet *pkt)
{
	if (sw->fwd_ps == 0)
		to_output(sw, pkt);
	else
		sim_pipe_push(&sw->fwd, pkt, sim_now(sw->eng) + sw->fwd_ps);
}

/* A store-and-forward packet of this input has its last bit in. */
static void saf_release(struct sim_engine *eng, void *ctx, uint32_t port, struct sim_packet *pkt)
{
	(void)eng;
	(void)port;
	enter_pipeline(ctx, pkt);
}

/* RED on the output queue a packet leaves behind as it starts on the
 * wire (DCQCN's CP, Zhu et al. 2015 section 3.1, marking at dequeue):
 * marks it CE with probability 0 at kmin or below, pmax * (q - kmin) /
 * (kmax - kmin) between, 1 at kmax and above. */
static void ecn_mark(void *ctx, uint32_t port, struct sim_packet *pkt)
{
	struct sim_switch *sw = ctx;
	struct sim_switch_port *o = &sw->ports[port];
	uint64_t q = o->depth_bytes - pkt->frame_bytes;

	if (!sw->ecn_kmin || q <= sw->ecn_kmin || pkt->ecn_ce)
		return;
	if (q < sw->ecn_kmax) {
		/* p = pmax% * (q - kmin) / (kmax - kmin), drawn in parts per 2^32 */
		unsigned __int128 p = (unsigned __int128)(q - sw->ecn_kmin) * sw->ecn_pmax_pct
				      << 32;
		uint64_t thresh = (uint64_t)(p / ((unsigned __int128)(sw->ecn_kmax - sw->ecn_kmin) * 100));

		if ((cc_splitmix64_next(&sw->ecn_rng) >> 32) >= thresh)
			return;
	}
	pkt->ecn_ce = true;
	o->st.ecn_marks++;
	o->out->st.ecn_marks++;
}

/* May pkt, whose header is in on in_port, cut through to out_port now?
 * See switch.h for the conditions and where they come from. */
static bool may_cut_through(const struct sim_switch *sw, uint32_t in_port, uint32_t out_port)
{
	const struct sim_switch_port *o = &sw->ports[out_port];

	return sw->ports[in_port].in_rate_bps >= o->out->rate_bps && o->held_pkts == 0 &&
	       sim_link_idle_now(o->out);
}

/* pkt, from in_port (SIM_SWITCH_NO_PORT: made here), takes its frame
 * bytes of the buffer for output `out` until its last bit has left. */
static void hold(struct sim_switch *sw, struct sim_packet *pkt, uint32_t in_port, uint32_t out)
{
	struct sim_switch_port *o = &sw->ports[out];

	sw->used_bytes += pkt->frame_bytes;
	if (sw->used_bytes > sw->peak_used_bytes)
		sw->peak_used_bytes = sw->used_bytes;
	o->depth_bytes += pkt->frame_bytes;
	if (o->depth_bytes > o->st.peak_bytes)
		o->st.peak_bytes = o->depth_bytes;
	o->held_pkts++;
	pkt->hop = out;
	pkt->in_port = in_port;
}

/* A packet's header (cut-through) or last bit (store-and-forward) is in. */
static void switch_rx(struct sim_engine *eng, void *ctx, uint32_t in_port, struct sim_packet *pkt,
		      sim_time_ps last_ps)
{
	struct sim_switch *sw = ctx;
	uint32_t out = route(sw, in_port, pkt);
	struct sim_switch_port *o;
	bool ct;

	if (out == SIM_SWITCH_NO_PORT) {
		sw->no_route++;
		drop(sw, in_port, out, pkt);
		return;
	}
	if (out == SIM_SWITCH_LOCAL) {
		/* The switch's own: it leaves the input at once. */
		uint32_t frame = pkt->frame_bytes;

		sw->local_fn(sw->local_ctx, sw, in_port, pkt, last_ps);
		if (sw->release_fn)
			sw->release_fn(sw->release_ctx, sw, in_port, frame);
		return;
	}
	o = &sw->ports[out];
	/* Tail drop (the arriving packet, never one already queued). */
	if (sw->buffer_bytes && pkt->frame_bytes > sw->buffer_bytes - sw->used_bytes) {
		o->st.drops++;
		o->st.drop_bytes += pkt->frame_bytes;
		drop(sw, in_port, out, pkt);
		return;
	}
	ct = sw->mode == SIM_SWITCH_CUT_THROUGH && last_ps > sim_now(eng) &&
	     may_cut_through(sw, in_port, out);
	hold(sw, pkt, in_port, out);
	in_account(sw, in_port, pkt->frame_bytes, true);
	if (ct) {
		o->st.cut_through++;
		enter_pipeline(sw, pkt);
	} else if (last_ps > sim_now(eng)) {
		sim_pipe_push(&sw->ports[in_port].saf, pkt, last_ps);
	} else {
		enter_pipeline(sw, pkt);
	}
}

/* The last bit of a packet has left output `port`: its bytes are free. */
static void switch_sent(struct sim_engine *eng, void *ctx, uint32_t port, uint32_t frame_bytes,
			uint32_t wire_bytes)
{
	struct sim_switch *sw = ctx;
	struct sim_switch_port *o = &sw->ports[port];

	(void)eng;
	(void)wire_bytes;
	if (o->depth_bytes < frame_bytes || sw->used_bytes < frame_bytes)
		sim__model_die(__FILE__, __LINE__, "switch: port %" PRIu32 " frees more than it holds",
			       port);
	o->depth_bytes -= frame_bytes;
	sw->used_bytes -= frame_bytes;
	o->st.tx_pkts++;
	o->st.tx_bytes += frame_bytes;
	if (o->from_n) {
		uint32_t in = o->from[o->from_head];

		o->from_head = (o->from_head + 1) % o->from_cap;
		o->from_n--;
		if (in != SIM_SWITCH_NO_PORT) /* not one the switch made */
			released(sw, in, frame_bytes);
	}
	if (sw->sched == SIM_SWITCH_FAIR)
		fair_pump(sw, port);
}

int sim_switch_init(struct sim_switch *sw, struct sim_engine *eng, uint32_t nports,
		    const struct sim_switch_params *p)
{
	if (!eng || !p || nports == 0 || nports == SIM_SWITCH_NO_PORT ||
	    (unsigned)p->mode >= SIM_SWITCH_MODE_COUNT ||
	    (unsigned)p->sched >= SIM_SWITCH_SCHED_COUNT)
		return -EINVAL;
	*sw = (struct sim_switch){
		.eng = eng,
		.nports = nports,
		.mode = p->mode,
		.sched = p->sched,
		.fwd_ps = p->fwd_latency_ps,
		.buffer_bytes = p->buffer_bytes,
		.ct_header_bytes = SIM_SWITCH_CT_HEADER_BYTES,
	};
	sw->ports = calloc(nports, sizeof(*sw->ports));
	if (!sw->ports)
		return -ENOMEM;
	for (uint32_t i = 0; i < nports; i++) {
		sim_pipe_init(&sw->ports[i].saf, eng, saf_release, sw, i);
		sim_fairq_init(&sw->ports[i].fair);
	}
	sim_pipe_init(&sw->fwd, eng, fwd_release, sw, 0);
	return 0;
}

void sim_switch_destroy(struct sim_switch *sw)
{
	for (uint32_t i = 0; sw->ports && i < sw->nports; i++) {
		free(sw->ports[i].from);
		sim_fairq_destroy(&sw->ports[i].fair);
	}
	free(sw->ports);
	free(sw->table);
	sw->ports = NULL;
	sw->table = NULL;
	sw->nports = sw->table_len = 0;
}

int sim_switch_connect(struct sim_switch *sw, uint32_t port, struct sim_link_dir *in,
		       struct sim_link_dir *out)
{
	if (port >= sw->nports)
		return -EINVAL;
	if (in) {
		sim_link_connect(in, switch_rx, sw, port);
		sw->ports[port].in = in;
		sim_link_set_rx_header(in, sw->mode == SIM_SWITCH_CUT_THROUGH ? sw->ct_header_bytes : 0);
		sw->ports[port].in_rate_bps = in->rate_bps;
	}
	if (out) {
		sim_link_on_sent(out, switch_sent, sw, port);
		sim_link_on_start(out, ecn_mark, sw, port);
	}
	sw->ports[port].out = out;
	return 0;
}

int sim_switch_route_set(struct sim_switch *sw, uint32_t dst_node, uint32_t port)
{
	if (port >= sw->nports || dst_node == UINT32_MAX)
		return -EINVAL;
	if (dst_node >= sw->table_len) {
		uint32_t len = sw->table_len;

		if (cc_grow(&sw->table, &len, (uint64_t)dst_node + 1, sizeof(*sw->table)))
			return -ENOMEM;
		for (uint32_t i = sw->table_len; i < len; i++)
			sw->table[i] = SIM_SWITCH_NO_PORT;
		sw->table_len = len;
	}
	sw->table[dst_node] = port;
	return 0;
}

void sim_switch_set_router(struct sim_switch *sw, sim_switch_route_fn fn, void *ctx)
{
	sw->route_fn = fn;
	sw->route_ctx = ctx;
}

void sim_switch_set_pfc(struct sim_switch *sw, uint64_t xoff, uint64_t xon, uint32_t quanta)
{
	sw->pfc_quanta = quanta;
	sw->pfc_xoff = xoff;
	sw->pfc_xon = xon;
}

void sim_switch_set_ecn(struct sim_switch *sw, uint64_t kmin, uint64_t kmax, uint32_t pmax_pct,
			uint64_t seed)
{
	sw->ecn_kmin = kmin;
	sw->ecn_kmax = kmax;
	sw->ecn_pmax_pct = pmax_pct;
	sw->ecn_rng = seed;
}

void sim_switch_on_release(struct sim_switch *sw, sim_switch_release_fn fn, void *ctx)
{
	sw->release_fn = fn;
	sw->release_ctx = ctx;
}

void sim_switch_on_local(struct sim_switch *sw, sim_switch_local_fn fn, void *ctx)
{
	sw->local_fn = fn;
	sw->local_ctx = ctx;
}

int sim_switch_inject(struct sim_switch *sw, uint32_t port, struct sim_packet *pkt)
{
	if (port >= sw->nports || !sw->ports[port].out)
		return -EINVAL;
	hold(sw, pkt, SIM_SWITCH_NO_PORT, port);
	to_output(sw, pkt);
	return 0;
}

void sim_switch_on_drop(struct sim_switch *sw, sim_switch_drop_fn fn, void *ctx)
{
	sw->drop_fn = fn;
	sw->drop_ctx = ctx;
}
