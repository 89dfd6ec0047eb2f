/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/switch.h — an output-queued switch with a shared packet buffer.
 *
 * Ports.  Port i has an input (a struct sim_link_dir whose far end is the
 * switch) and an output (a link the switch sends on).  The output queue of
 * port i is its output link's FIFO, so pausing that link (PFC, credits)
 * backs the queue up inside the switch, where the buffer accounting sees it.
 *
 * A packet's way through:
 *   1. admission — when the switch hears of it (its last bit in
 *      store-and-forward, its header in cut-through): route it (callback, or
 *      a destination-node table), then tail drop if the shared buffer
 *      cannot hold its frame bytes.  A dropped packet goes back to its owner
 *      through the drop callback and is counted on the output port it was
 *      routed to.
 *   2. forwarding — it reaches the output queue `fwd_latency_ps` after it
 *      may leave: after its last bit arrived (store-and-forward), or, cut
 *      through, after its header arrived.  The latency is a pipeline: one
 *      FIFO for the whole switch (a constant delay keeps it in time order),
 *      one pending event.
 *   3. output — the link serializes it; when its last bit has left, its
 *      bytes leave the buffer.  Which waiting packet goes next is
 *      switch.sched: `fifo` hands each packet to the output link's FIFO
 *      as it comes (arrival order, as an ASIC serves one priority), `fair`
 *      keeps them per flow (sending node and QP) and hands the link one at
 *      a time, when it is free, by deficit round robin (sim/fairq.h).
 *      With `fifo` a burst one sender was free to send holds back every
 *      flow that arrives after it: a head-of-line wait that costs the
 *      tree allreduce 3-6.5 % from 64 MiB (docs/schedule.md); `fair` is
 *      the ideal link alpha-beta models assume.
 *
 * Cut-through (SIM_SWITCH_CUT_THROUGH).  The switch hears of a packet once
 * its first `ct_header_bytes` wire bytes are in (default 64: the minimum
 * Ethernet frame, which "fragment-free" switching waits for, and enough for
 * an IB LRH + BTH or an Ethernet + IP + UDP header; for Ethernet the count
 * starts at the preamble; a packet no longer than that is heard of at its
 * last bit, and simply forwarded).  It cuts through only if sending it now
 * could not run out of bytes and nothing is ahead of it — the conditions a
 * switch ASIC checks (e.g. Dell PowerSwitch S4112F-ON User's Guide, "Cut-
 * through switching mode": same speed or fast-to-slow ports, destination
 * not back-pressured by PFC or pause, no packet waiting in its queue):
 *   - input rate >= output rate (a faster output would underrun),
 *   - the output link is idle and not paused, and no other packet for that
 *     output is inside the switch.
 * Otherwise it degenerates to store-and-forward: it waits in a per-input
 * FIFO until its last bit is in, then enters the pipeline as above.  So, on
 * an idle path of equal rates, a packet of w wire bytes crossing link A,
 * the switch and link B arrives after
 *   ser(w) + ser(header) + prop_A + prop_B + fwd        (cut-through)
 *   2 * ser(w) + prop_A + prop_B + fwd                  (store-and-forward)
 * This is virtual cut-through (Kermani and Kleinrock, 1979: a blocked
 * packet is buffered whole in the switch, never stretched over several
 * links as in wormhole routing), with the ASICs' simplification that a
 * packet refused at its header waits for its last bit even if the output
 * frees up earlier.
 *
 * Buffer.  A packet holds frame bytes (what switch memory stores; preamble
 * and IFG are not stored) of the shared buffer from admission until its
 * last bit has left the output.  Each port's queue depth is the bytes held
 * for it, so the depths add up to the buffer in use.
 *
 * ECN (sim_switch_set_ecn()).  As a packet starts on its output link, it
 * is marked Congestion Experienced with a probability that follows the
 * queue it leaves behind (the bytes held for that port after it),
 * RED-style as DCQCN's congestion point does: 0 up to kmin, rising
 * linearly to pmax at kmax, 1 from kmax on.  Marking at dequeue rather
 * than at arrival (an assumption: vendors do not say which their ASICs
 * do) tells the receiver of the queue as it is now, not as it was a
 * queueing delay ago — with kmax = 1.5 MB at 100 Gb/s that is 120 us of
 * stale signal.  The draw comes from the switch's own generator, so a run
 * repeats.
 *
 * Events: at most 1 + nports pending (the pipeline, and one per input's
 * store-and-forward FIFO), besides those of the links.
 */
#ifndef CCLAB_SIM_SWITCH_H
#define CCLAB_SIM_SWITCH_H

#include <stdint.h>

#include "sim/event.h"
#include "sim/fairq.h"
#include "sim/link.h"
#include "sim/packet.h"
#include "sim/params.h"

#define SIM_SWITCH_CT_HEADER_BYTES 64
#define SIM_SWITCH_NO_PORT UINT32_MAX
/* What a routing callback returns for a packet addressed to the switch
 * itself (an NVSwitch's multicast and reduction engine): it goes to the
 * local callback (sim_switch_on_local()), not to an output. */
#define SIM_SWITCH_LOCAL (UINT32_MAX - 1)

struct sim_switch;

/* Picks the output port for pkt, which came in on in_port; returns a port
 * number, or SIM_SWITCH_NO_PORT to drop it as unroutable. */
typedef uint32_t (*sim_switch_route_fn)(void *ctx, const struct sim_switch *sw, uint32_t in_port,
					const struct sim_packet *pkt);

/* Hands a dropped packet back to its owner.  port is the output port it was
 * routed to, or SIM_SWITCH_NO_PORT if unroutable. */
typedef void (*sim_switch_drop_fn)(struct sim_engine *eng, void *ctx, const struct sim_switch *sw,
				   uint32_t port, struct sim_packet *pkt);

/* A packet that came in on in_port has left the switch (its last bit out
 * of its output): its frame bytes are free again — what IB flow control
 * returns to the sender on that input as credits. */
typedef void (*sim_switch_release_fn)(void *ctx, const struct sim_switch *sw, uint32_t in_port,
				      uint32_t frame_bytes);

/* A packet for the switch itself (routed SIM_SWITCH_LOCAL) came in on
 * in_port: its header now (cut-through) or its last bit, which arrives at
 * last_ps.  It is the callee's from now; it never takes buffer space. */
typedef void (*sim_switch_local_fn)(void *ctx, const struct sim_switch *sw, uint32_t in_port,
				    struct sim_packet *pkt, sim_time_ps last_ps);

/* Per output port; bytes are frame bytes. */
struct sim_switch_port_stats {
	uint64_t tx_pkts, tx_bytes; /* forwarded: last bit sent */
	uint64_t drops, drop_bytes; /* tail drops of packets routed here */
	uint64_t cut_through;       /* packets that cut through (the rest: store-and-forward) */
	uint64_t peak_bytes;        /* most bytes held for this port at once */
	uint64_t pause_frames;      /* PFC PAUSE frames (not resumes) sent upstream on this input */
	uint64_t ecn_marks;         /* packets routed here marked CE */
};

struct sim_switch_port {
	struct sim_link_dir *out;   /* NULL: unconnected */
	uint64_t in_rate_bps;   /* of the link into this port; 0: none */
	struct sim_pipe saf;    /* packets of this input waiting for their last bit */
	uint64_t depth_bytes;   /* held for this output: admitted, not fully sent */
	uint64_t held_pkts;     /* of those, still inside the switch (not handed to out) */
	struct sim_fairq fair;  /* switch.sched fair: those waiting for the output */
	/* With a release hook: the input port of each packet handed to `out`
	 * and not yet sent, in order (a ring; the link serves them FIFO). */
	uint32_t *from, from_head, from_n, from_cap;
	struct sim_link_dir *in;    /* the link into this port, or NULL */
	uint64_t in_bytes;          /* held, having come in on this port (PFC's count) */
	bool xoff;                  /* PFC: the upstream sender is (being) paused */
	sim_time_ps refresh_at;     /* PFC: when the PAUSE is due to be sent again */
	struct sim_switch_port_stats st;
};

struct sim_switch {
	struct sim_engine *eng;
	uint32_t nports;
	enum sim_switch_mode mode;
	enum sim_switch_sched sched;
	sim_time_ps fwd_ps;
	uint64_t buffer_bytes;    /* 0: unlimited */
	uint64_t used_bytes, peak_used_bytes;
	uint32_t ct_header_bytes; /* SIM_SWITCH_CT_HEADER_BYTES unless set before connecting */
	struct sim_switch_port *ports;
	struct sim_pipe fwd;      /* the forwarding pipeline */

	sim_switch_route_fn route_fn;
	void *route_ctx;
	uint32_t *table;          /* dst_node -> port, SIM_SWITCH_NO_PORT where unset */
	uint32_t table_len;
	sim_switch_drop_fn drop_fn;
	void *drop_ctx;
	sim_switch_release_fn release_fn;
	void *release_ctx;
	sim_switch_local_fn local_fn;
	void *local_ctx;
	uint64_t pfc_xoff, pfc_xon; /* sim_switch_set_pfc(); xoff 0: no PFC */
	uint32_t pfc_quanta;
	uint64_t ecn_kmin, ecn_kmax; /* sim_switch_set_ecn(); kmin 0: no marking */
	uint32_t ecn_pmax_pct;
	uint64_t ecn_rng;
	uint64_t no_route;        /* unroutable packets dropped */
};

/* nports ports, forwarding latency, buffer, mode and scheduling from *p
 * (radix is the topology's business: nports may differ).  0, -EINVAL (no
 * engine, 0 ports, a bad mode or scheduling) or -ENOMEM. */
int sim_switch_init(struct sim_switch *sw, struct sim_engine *eng, uint32_t nports,
		    const struct sim_switch_params *p);

/* Frees the switch's arrays; packets still inside stay their owners'. */
void sim_switch_destroy(struct sim_switch *sw);

/* Wires port `port`: `in` (may be NULL) now delivers to this port — at the
 * header in cut-through mode, ct_header_bytes as set now — and `out` (may be
 * NULL) is its output link, whose sent callback the switch takes over.
 * 0, or -EINVAL for a port out of range. */
int sim_switch_connect(struct sim_switch *sw, uint32_t port, struct sim_link_dir *in,
		       struct sim_link_dir *out);

/* Routing by destination node: 0, -EINVAL (port out of range), -ENOMEM. */
int sim_switch_route_set(struct sim_switch *sw, uint32_t dst_node, uint32_t port);

/* A routing callback instead of the table (NULL: back to the table). */
void sim_switch_set_router(struct sim_switch *sw, sim_switch_route_fn fn, void *ctx);

/* Where drops go (NULL: nowhere; the packet is just forgotten). */
void sim_switch_on_drop(struct sim_switch *sw, sim_switch_drop_fn fn, void *ctx);

/* Priority flow control (IEEE 802.1Qbb, one priority): when the bytes held
 * that came in on a port pass xoff, the switch sends a PAUSE of `quanta`
 * 512-bit times upstream, which stops the sender one link propagation
 * later (a packet on the wire finishes) for that long; while still above
 * xon it sends the PAUSE again at half that time; at xon, a zero-quanta
 * PAUSE resumes the sender the same way.  quanta 0: pause until resumed.
 * The bytes that still arrive meanwhile are the headroom the caller must
 * leave below the buffer (sim/topo.c sizes it).  Set before traffic. */
void sim_switch_set_pfc(struct sim_switch *sw, uint64_t xoff, uint64_t xon, uint32_t quanta);

/* ECN marking on the output queues (see above): kmin 0 turns it off;
 * kmax > kmin, pmax_pct <= 100.  `seed` starts the switch's generator.
 * Set before traffic. */
void sim_switch_set_ecn(struct sim_switch *sw, uint64_t kmin, uint64_t kmax, uint32_t pmax_pct,
			uint64_t seed);

/* Where releases go (NULL: nowhere), for credit-based flow control. */
void sim_switch_on_release(struct sim_switch *sw, sim_switch_release_fn fn, void *ctx);

/* Where packets for the switch itself go (NULL: nowhere; they are dropped
 * as unroutable). */
void sim_switch_on_local(struct sim_switch *sw, sim_switch_local_fn fn, void *ctx);

/* Sends pkt, which the switch made (a multicast copy, a reduction's
 * result), out of `port` now: it takes its frame bytes of the buffer
 * until its last bit has left, as a forwarded packet does, queues at the
 * output as one does (switch.sched), is never dropped, and came in on no
 * input (no credits or PFC to return).  0, or -EINVAL for a port out of
 * range or unconnected. */
int sim_switch_inject(struct sim_switch *sw, uint32_t port, struct sim_packet *pkt);

/* Engine events one switch can have pending, links excluded. */
static inline size_t sim_switch_max_events(uint32_t nports) { return 1 + (size_t)nports; }

#endif /* CCLAB_SIM_SWITCH_H */
