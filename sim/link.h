/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/link.h — one direction of a network link, and the delay line it is
 * built on.
 *
 * A link is htsim's Queue followed by its Pipe: packets wait in a FIFO, are
 * serialized one at a time at the line rate (sim_serialize_ps() on the
 * packet's wire bytes, so preamble and IFG cost line time), then travel for
 * the propagation delay and are handed to the receiver's callback.  A
 * full-duplex cable is two links.  (The struct is sim_link_dir, one
 * direction, because sim/wire.h's enum sim_link, the link layer, owns the
 * tag; the functions keep the sim_link_ prefix.)
 *
 * Head-of-line scheduling (sim/event.h's contract): a link has at most two
 * pending engine events whatever it carries — the end of the serialization
 * in progress, and the arrival of the earliest packet in flight.  Packets in
 * flight wait in a delay line (struct sim_pipe) ordered by arrival; only its
 * head is scheduled, and the next one when that fires.  Arrival times on one
 * link never decrease (FIFO serialization, constant delay), which is what
 * makes one event enough.
 *
 * Delivery time.  By default the receiver gets the packet when its last bit
 * has arrived: start of serialization + ser(wire bytes) + propagation.  A
 * cut-through switch instead asks to hear of it once the first `rx_header`
 * bytes are in (sim_link_set_rx_header()); the callback's last_ps argument
 * then says when the rest will have arrived.
 *
 * Pause.  A "may transmit" switch that the flow-control models drive (PFC
 * pause frames, IEEE 802.1Qbb; IB credits, IBA 7.9): while paused no new
 * packet starts, and the one being serialized finishes — both mechanisms act
 * at packet boundaries.  Resuming starts the head packet at once.  One FIFO
 * per link for now: pausing stops every priority.
 *
 * Packets are the caller's (sim/packet.h); a link never frees one.
 */
#ifndef CCLAB_SIM_LINK_H
#define CCLAB_SIM_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/event.h"
#include "sim/packet.h"
#include "sim/time.h"

/* ---- delay line ---- */

/* Called when a packet's due time has come. */
typedef void (*sim_pipe_fn)(struct sim_engine *eng, void *ctx, uint32_t port,
			    struct sim_packet *pkt);

/* A FIFO of packets each released at its own due time, due times never
 * decreasing: one pending event (for the head) however many it holds.
 * Packets due at the same picosecond are released by one event, oldest
 * first. */
struct sim_pipe {
	struct sim_engine *eng;
	struct sim_pktq q;
	sim_pipe_fn fn;
	void *ctx;
	uint32_t port;
	bool armed;   /* an event is pending for the head */
	bool running; /* inside the release handler */
};

void sim_pipe_init(struct sim_pipe *p, struct sim_engine *eng, sim_pipe_fn fn, void *ctx,
		   uint32_t port);

/* Queues pkt (its `next` and `due` are the pipe's from now) for release at
 * `due`.  due < sim_now() or < the previous packet's due is a model bug: it
 * aborts with the caller's file:line. */
void sim_pipe_push_loc(struct sim_pipe *p, struct sim_packet *pkt, sim_time_ps due,
		       const char *file, int line);
#define sim_pipe_push(p, pkt, due) sim_pipe_push_loc((p), (pkt), (due), __FILE__, __LINE__)

static inline uint64_t sim_pipe_count(const struct sim_pipe *p) { return p->q.count; }

/* ---- link ---- */

/* Delivery to the far end: (ctx, port) is the receiving node and port.
 * last_ps is when the packet's last bit arrives: sim_now() unless the
 * receiver asked for early delivery (rx_header) or a delay (rx_delay). */
typedef void (*sim_link_rx_fn)(struct sim_engine *eng, void *ctx, uint32_t port,
			       struct sim_packet *pkt, sim_time_ps last_ps);

/* The sender's notice that a packet's last bit has left, so its buffer
 * space is free.  It carries sizes, not the packet: a cut-through receiver
 * may already have forwarded — or dropped and returned — the packet by then. */
typedef void (*sim_link_sent_fn)(struct sim_engine *eng, void *ctx, uint32_t port,
				 uint32_t frame_bytes, uint32_t wire_bytes);

/* The sender's notice that pkt starts on the wire now (leaves the FIFO):
 * the last moment it may still change the packet (a switch marks ECN at
 * dequeue). */
typedef void (*sim_link_start_fn)(void *ctx, uint32_t port, struct sim_packet *pkt);

/* A packet the link lost (sim_link_set_loss()): it goes back to its owner
 * instead of reaching the receiver. */
typedef void (*sim_link_lost_fn)(struct sim_engine *eng, void *ctx, struct sim_packet *pkt);

/* An outage (fault injection, sim/fault.h link-down): the link is down
 * from `from` until `until` (SIM_TIME_NEVER: for good). */
struct sim_link_outage {
	sim_time_ps from, until;
};

struct sim_link_stats {
	uint64_t tx_pkts, tx_bytes;   /* fully serialized; wire bytes */
	uint64_t tx_payload_bytes;    /* of those, payload (sim/packet.h) */
	uint64_t rx_pkts, rx_bytes;   /* delivered; wire bytes */
	uint64_t txq_peak_bytes;      /* most wire bytes waiting to start */
	uint64_t txq_peak_pkts;
	uint64_t pauses;              /* transitions to paused */
	uint64_t lost;                /* packets lost (sim_link_set_loss(), outages) */
	uint64_t credit_stalls;       /* times the head packet waited for credits */
	uint64_t ecn_marks;           /* packets the switch feeding it marked CE (sim/switch.h) */
};

struct sim_link_dir {
	struct sim_engine *eng;
	uint64_t rate_bps;
	sim_time_ps prop_ps;
	uint32_t rx_header;  /* 0: deliver at the last bit */
	sim_time_ps rx_delay_ps; /* the receiver's own fixed delay (sim_link_set_rx_delay) */
	uint64_t loss_ppb;       /* sim_link_set_loss() */
	bool credit_on;          /* sim_link_set_credits(): IB link-level flow control */
	bool credit_blocked;     /* the head packet is waiting for credits */
	uint64_t credits;        /* bytes the receiver has room for */
	uint64_t loss_rng;
	const struct sim_link_outage *outages; /* sim_link_set_outages() */
	uint32_t noutages;
	sim_link_lost_fn lost_fn;
	void *lost_ctx;

	sim_link_rx_fn rx_fn;
	void *rx_ctx;
	uint32_t rx_port;
	sim_link_sent_fn sent_fn;
	void *sent_ctx;
	uint32_t sent_port;
	sim_link_start_fn start_fn;
	void *start_ctx;
	uint32_t start_port;

	struct sim_pktq txq;   /* waiting to serialize */
	struct sim_pipe wire;  /* serializing or propagating, by arrival */

	/* The packet being serialized, by its sizes only (see sim_link_sent_fn). */
	bool busy;
	bool paused;
	sim_time_ps tx_start, tx_end;
	uint32_t cur_frame, cur_wire, cur_payload;

	sim_time_ps busy_ps;     /* completed serializations */
	sim_time_ps paused_ps;   /* completed pauses */
	sim_time_ps paused_since;
	sim_time_ps pause_until;   /* sim_link_pause_quanta(): when the pause expires */
	struct sim_link_stats st;
};

/* Engine events one link can have pending at once: reserve
 * links * SIM_LINK_MAX_EVENTS with sim_engine_reserve(). */
#define SIM_LINK_MAX_EVENTS 2 /* plus one per PAUSE frame's expiry; credit updates
				* in flight grow the engine as needed (sim/link.c) */

/* 0, or -EINVAL for a NULL engine or a zero rate.  The link starts
 * unconnected, unpaused and empty. */
int sim_link_init(struct sim_link_dir *l, struct sim_engine *eng, uint64_t rate_bps,
		  sim_time_ps prop_ps);

/* The receiving end: fn(eng, ctx, port, pkt, last_ps) for every packet. */
void sim_link_connect(struct sim_link_dir *l, sim_link_rx_fn fn, void *ctx, uint32_t port);

/* The sending end's notice of each packet's last bit leaving (optional). */
void sim_link_on_sent(struct sim_link_dir *l, sim_link_sent_fn fn, void *ctx, uint32_t port);

/* The sending end's notice of each packet leaving the FIFO (optional). */
void sim_link_on_start(struct sim_link_dir *l, sim_link_start_fn fn, void *ctx, uint32_t port);

/* Deliver once the first `bytes` bytes on the wire (preamble included) have
 * arrived, not the last; 0 restores last-bit delivery.  Set before traffic. */
void sim_link_set_rx_header(struct sim_link_dir *l, uint32_t bytes);

/* The receiver processes every packet a fixed `ps` after it arrives (an
 * RNIC's receive pipeline): fold that into the delay line, so the packet
 * is delivered ps later and the receiver needs no event of its own per
 * packet.  The receiver's last_ps still says when the last bit arrived.
 * Set before traffic. */
void sim_link_set_rx_delay(struct sim_link_dir *l, sim_time_ps ps);

/* Random loss: each packet is lost with probability ppb / 1e9, drawn
 * when it would be delivered (a receiver drops a corrupted frame on its
 * CRC), from a generator seeded by `seed` alone, so a run is repeatable.
 * fn gets each lost packet back.  ppb 0 (the default) loses nothing. */
void sim_link_set_loss(struct sim_link_dir *l, uint64_t ppb, uint64_t seed, sim_link_lost_fn fn,
		       void *ctx);

/* The link's outages, o[0 .. n) (the caller's; they must outlive the
 * link), NULL / 0 for none (the default).  A packet that occupies the
 * link at any moment of an outage — from the start of its serialization
 * to its last bit's arrival — is lost: it goes back through the loss
 * callback (sim_link_set_loss(); its credits come back), as a frame the
 * receiver never sees.  The transmitter keeps serializing while down, so
 * the sender's timing is that of a dead cable, not of a pause.  Decided at
 * delivery from the outages' fixed times: no event of its own. */
void sim_link_set_outages(struct sim_link_dir *l, const struct sim_link_outage *o, uint32_t n);

/* IB link-level flow control (IBA 7.9): the sender starts a packet only
 * when the receiver has advertised room for its frame, `bytes` to begin
 * with (whole 64-byte blocks, IBA 7.9.4: a frame takes its bytes rounded
 * up to blocks); the receiver gives them back as it frees the buffer
 * (sim_link_return_credits()), in a flow-control packet that reaches the
 * sender one propagation later: so a share of buffer smaller than what
 * the link carries in that round trip throttles the sender, as on long
 * IB cables.  The FCP's own few bytes and its wait behind a frame on the
 * way back are not modelled.  A packet waiting for credits holds the
 * FIFO (no overtaking, one VL).  sim_link_add_credits(): credits that
 * arrive now. */
#define SIM_CREDIT_BLOCK 64u
/* The credits a frame of `bytes` takes (whole blocks, rounded up), and
 * the credits room for `bytes` gives (rounded down). */
static inline uint64_t sim_credit_take(uint64_t bytes)
{
	return (bytes + SIM_CREDIT_BLOCK - 1) / SIM_CREDIT_BLOCK * SIM_CREDIT_BLOCK;
}
static inline uint64_t sim_credit_room(uint64_t bytes)
{
	return bytes / SIM_CREDIT_BLOCK * SIM_CREDIT_BLOCK;
}
void sim_link_set_credits(struct sim_link_dir *l, uint64_t bytes);
void sim_link_add_credits(struct sim_link_dir *l, uint64_t bytes);
void sim_link_return_credits(struct sim_link_dir *l, uint32_t frame_bytes);

/* Queues pkt for transmission; it starts now if the link is idle and not
 * paused.  Sending on an unconnected link aborts (a wiring bug). */
void sim_link_send_loc(struct sim_link_dir *l, struct sim_packet *pkt, const char *file, int line);
#define sim_link_send(l, pkt) sim_link_send_loc((l), (pkt), __FILE__, __LINE__)

/* Stops (true) or resumes (false) starting packets; idempotent. */
void sim_link_set_paused(struct sim_link_dir *l, bool paused);

/* A PAUSE frame of `quanta` 512-bit times arrived (IEEE 802.1Qbb): stops
 * starting packets until that much time at the link's rate has passed —
 * a later frame restarts the timer, quanta 0 resumes at once. */
void sim_link_pause_quanta(struct sim_link_dir *l, uint32_t quanta);

/* True if a packet handed over now could start now: not paused, nothing
 * waiting, and no serialization ending after sim_now() (one ending exactly
 * now counts as over, whichever of the two events at this picosecond runs
 * first — so a model's decision does not hang on the tie-break). */
bool sim_link_idle_now(const struct sim_link_dir *l);

/* True if nothing waits to start and nothing is being serialized past
 * now, paused or not: a sender that keeps one packet queued (an RNIC's
 * transmitter) hands over the next one now, and it starts when the link
 * may (a resume, credits) — its sent callback then asks for more. */
static inline bool sim_link_can_queue(const struct sim_link_dir *l)
{
	return sim_pktq_empty(&l->txq) && (!l->busy || l->tx_end <= sim_now(l->eng));
}

/* Serialization time of `bytes` bytes on this link. */
static inline sim_time_ps sim_link_ser_ps(const struct sim_link_dir *l, uint32_t bytes)
{
	return sim_serialize_ps(bytes, l->rate_bps);
}

/* Time spent serializing up to sim_now(), the current packet's elapsed part
 * included: busy_ps / elapsed is the utilisation. */
sim_time_ps sim_link_busy_ps(const struct sim_link_dir *l);

/* Time spent paused up to sim_now(). */
sim_time_ps sim_link_paused_ps(const struct sim_link_dir *l);

/* Packets queued (not started) and in flight (started, not delivered). */
static inline uint64_t sim_link_queued(const struct sim_link_dir *l) { return l->txq.count; }
static inline uint64_t sim_link_in_flight(const struct sim_link_dir *l) { return l->wire.q.count; }

#endif /* CCLAB_SIM_LINK_H */
