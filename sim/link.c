/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/link.c — the delay line and the link: FIFO, serialization,
 * propagation, pause.  The model and its event budget are in link.h.
 */
#include "sim/link.h"
#include "sim/model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "util/splitmix.h"

/* A handler cannot return an error to anyone: running out of event slots in
 * the middle of a run ends it.  Executors reserve SIM_LINK_MAX_EVENTS per
 * link up front; only IB credit updates, one per frame in flight back
 * upstream, may grow the engine mid-run, and only a failed allocation
 * there ends a run. */
static void sched(struct sim_engine *eng, sim_time_ps at, sim_handler_fn fn, void *ctx,
		  const char *file, int line)
{
	if (sim_schedule_loc(eng, at, fn, ctx, 0, file, line) == SIM_EVENT_NONE)
		sim__sched_die(file, line, "link");
}

/* ---- delay line ---- */

static void pipe_release(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sim_pipe *p = ctx;
	sim_time_ps now = sim_now(eng);

	(void)arg;
	p->armed = false;
	p->running = true;
	/* The callback may push into this very pipe (a zero delay loop); a
	 * packet it pushes due now is released by this loop, in order. */
	while (p->q.head && p->q.head->due <= now) {
		struct sim_packet *pkt = sim_pktq_pop(&p->q);

		p->fn(eng, p->ctx, p->port, pkt);
	}
	p->running = false;
	if (p->q.head) {
		p->armed = true;
		sched(eng, p->q.head->due, pipe_release, p, __FILE__, __LINE__);
	}
}

void sim_pipe_init(struct sim_pipe *p, struct sim_engine *eng, sim_pipe_fn fn, void *ctx,
		   uint32_t port)
{
	*p = (struct sim_pipe){.eng = eng, .fn = fn, .ctx = ctx, .port = port};
}

void sim_pipe_push_loc(struct sim_pipe *p, struct sim_packet *pkt, sim_time_ps due,
		       const char *file, int line)
{
	if (due < sim_now(p->eng))
		sim__model_die(file, line, "pipe: due %" PRIu64 " ps before now %" PRIu64 " ps",
			       due, sim_now(p->eng));
	if (p->q.tail && due < p->q.tail->due)
		sim__model_die(file, line, "pipe: due %" PRIu64 " ps before its predecessor's %" PRIu64
			       " ps", due, p->q.tail->due);
	pkt->due = due;
	sim_pktq_push(&p->q, pkt);
	/* Non-empty and not running implies armed: only the first packet of
	 * an idle pipe needs an event; the release handler re-arms itself. */
	if (!p->armed && !p->running) {
		p->armed = true;
		sched(p->eng, p->q.head->due, pipe_release, p, file, line);
	}
}

/* ---- link ---- */

/* Whether pkt was on the wire during one of the link's outages: from the
 * start of its serialization (its last bit's arrival, less propagation
 * and serialization) to its last bit's arrival. */
static bool link_was_down(const struct sim_link_dir *l, const struct sim_packet *pkt)
{
	sim_time_ps end = pkt->tail;
	sim_time_ps start = end - l->prop_ps - sim_serialize_ps(pkt->wire_bytes, l->rate_bps);

	for (uint32_t i = 0; i < l->noutages; i++)
		if (start < l->outages[i].until && end > l->outages[i].from)
			return true;
	return false;
}

static void link_deliver(struct sim_engine *eng, void *ctx, uint32_t port, struct sim_packet *pkt)
{
	struct sim_link_dir *l = ctx;

	(void)port;
	if ((l->noutages && link_was_down(l, pkt)) ||
	    (l->loss_ppb && cc_splitmix64_next(&l->loss_rng) % 1000000000 < l->loss_ppb)) {
		uint32_t frame = pkt->frame_bytes;

		l->st.lost++;
		if (l->lost_fn)
			l->lost_fn(eng, l->lost_ctx, pkt);
		/* The receiver discarded it: its buffer room comes back. */
		if (l->credit_on)
			sim_link_return_credits(l, frame);
		return;
	}
	l->st.rx_pkts++;
	l->st.rx_bytes += pkt->wire_bytes;
	l->rx_fn(eng, l->rx_ctx, l->rx_port, pkt, pkt->tail);
}

static void link_ser_end(struct sim_engine *eng, void *ctx, uint64_t arg);
static bool may_start(struct sim_link_dir *l);

/* Puts the head of the FIFO on the wire.  The packet enters the delay line
 * now, at its delivery time (last bit, or header for a cut-through
 * receiver): start + ser(bytes) + prop never decreases from one packet to
 * the next, since each starts after the previous one's last bit left. */
static void link_start(struct sim_link_dir *l)
{
	struct sim_packet *pkt = sim_pktq_pop(&l->txq);
	sim_time_ps now = sim_now(l->eng);
	sim_time_ps ser = sim_serialize_ps(pkt->wire_bytes, l->rate_bps);
	sim_time_ps head = ser;

	if (l->rx_header && l->rx_header < pkt->wire_bytes)
		head = sim_serialize_ps(l->rx_header, l->rate_bps);
	if (l->prop_ps > SIM_TIME_NEVER - now - l->rx_delay_ps ||
	    ser > SIM_TIME_NEVER - now - l->prop_ps - l->rx_delay_ps)
		sim__model_die(__FILE__, __LINE__, "link: packet of %" PRIu32 " B ends beyond time's range",
			       pkt->wire_bytes);
	if (l->start_fn)
		l->start_fn(l->start_ctx, l->start_port, pkt);
	if (l->credit_on)
		l->credits -= sim_credit_take(pkt->frame_bytes);
	l->busy = true;
	l->tx_start = now;
	l->tx_end = now + ser;
	l->cur_frame = pkt->frame_bytes;
	l->cur_wire = pkt->wire_bytes;
	l->cur_payload = pkt->payload_bytes;
	pkt->tail = l->tx_end + l->prop_ps;
	sched(l->eng, l->tx_end, link_ser_end, l, __FILE__, __LINE__);
	sim_pipe_push(&l->wire, pkt, now + head + l->prop_ps + l->rx_delay_ps);
}

static void link_ser_end(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sim_link_dir *l = ctx;

	(void)arg;
	l->busy = false;
	l->busy_ps += l->tx_end - l->tx_start;
	l->st.tx_pkts++;
	l->st.tx_bytes += l->cur_wire;
	l->st.tx_payload_bytes += l->cur_payload;
	/* The sender hears first: it may pause the link or queue more. */
	if (l->sent_fn)
		l->sent_fn(eng, l->sent_ctx, l->sent_port, l->cur_frame, l->cur_wire);
	if (may_start(l))
		link_start(l);
}

int sim_link_init(struct sim_link_dir *l, struct sim_engine *eng, uint64_t rate_bps,
		  sim_time_ps prop_ps)
{
	if (!eng || rate_bps == 0)
		return -EINVAL;
	*l = (struct sim_link_dir){.eng = eng, .rate_bps = rate_bps, .prop_ps = prop_ps};
	sim_pipe_init(&l->wire, eng, link_deliver, l, 0);
	return 0;
}

void sim_link_connect(struct sim_link_dir *l, sim_link_rx_fn fn, void *ctx, uint32_t port)
{
	l->rx_fn = fn;
	l->rx_ctx = ctx;
	l->rx_port = port;
}

void sim_link_on_start(struct sim_link_dir *l, sim_link_start_fn fn, void *ctx, uint32_t port)
{
	l->start_fn = fn;
	l->start_ctx = ctx;
	l->start_port = port;
}

void sim_link_on_sent(struct sim_link_dir *l, sim_link_sent_fn fn, void *ctx, uint32_t port)
{
	l->sent_fn = fn;
	l->sent_ctx = ctx;
	l->sent_port = port;
}

void sim_link_set_rx_header(struct sim_link_dir *l, uint32_t bytes) { l->rx_header = bytes; }

void sim_link_set_rx_delay(struct sim_link_dir *l, sim_time_ps ps) { l->rx_delay_ps = ps; }

/* Whether the head packet may start now: not paused, not busy, and with
 * credits for it when the link runs IB flow control. */
static bool may_start(struct sim_link_dir *l)
{
	if (l->busy || l->paused || sim_pktq_empty(&l->txq))
		return false;
	if (l->credit_on && l->credits < sim_credit_take(l->txq.head->frame_bytes)) {
		if (!l->credit_blocked)
			l->st.credit_stalls++;
		l->credit_blocked = true;
		return false;
	}
	l->credit_blocked = false;
	return true;
}

void sim_link_set_credits(struct sim_link_dir *l, uint64_t bytes)
{
	l->credit_on = true;
	l->credits = sim_credit_room(bytes);
}

void sim_link_add_credits(struct sim_link_dir *l, uint64_t bytes)
{
	l->credits += bytes;
	if (may_start(l))
		link_start(l);
}

static void credits_arrive(struct sim_engine *eng, void *ctx, uint64_t bytes)
{
	(void)eng;
	sim_link_add_credits(ctx, bytes);
}

void sim_link_return_credits(struct sim_link_dir *l, uint32_t frame_bytes)
{
	uint64_t bytes = sim_credit_take(frame_bytes);

	if (!l->prop_ps) {
		sim_link_add_credits(l, bytes);
		return;
	}
	if (sim_schedule(l->eng, sim_now(l->eng) + l->prop_ps, credits_arrive, l, bytes) ==
	    SIM_EVENT_NONE)
		sim__sched_die(__FILE__, __LINE__, "link: a credit update");
}

void sim_link_set_loss(struct sim_link_dir *l, uint64_t ppb, uint64_t seed, sim_link_lost_fn fn,
		       void *ctx)
{
	l->loss_ppb = ppb;
	l->loss_rng = seed;
	l->lost_fn = fn;
	l->lost_ctx = ctx;
}

void sim_link_set_outages(struct sim_link_dir *l, const struct sim_link_outage *o, uint32_t n)
{
	l->outages = n ? o : NULL;
	l->noutages = o ? n : 0;
}

void sim_link_send_loc(struct sim_link_dir *l, struct sim_packet *pkt, const char *file, int line)
{
	if (!l->rx_fn)
		sim__model_die(file, line, "link: send on a link with no receiver");
	sim_pktq_push(&l->txq, pkt);
	if (l->txq.bytes > l->st.txq_peak_bytes)
		l->st.txq_peak_bytes = l->txq.bytes;
	if (l->txq.count > l->st.txq_peak_pkts)
		l->st.txq_peak_pkts = l->txq.count;
	if (may_start(l))
		link_start(l);
}

void sim_link_set_paused(struct sim_link_dir *l, bool paused)
{
	sim_time_ps now = sim_now(l->eng);

	if (paused == l->paused)
		return;
	l->paused = paused;
	if (paused) {
		l->st.pauses++;
		l->paused_since = now;
		return;
	}
	l->paused_ps += now - l->paused_since;
	if (may_start(l))
		link_start(l);
}

static void pause_expire(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sim_link_dir *l = ctx;

	(void)arg;
	if (l->paused && l->pause_until == sim_now(eng))
		sim_link_set_paused(l, false); /* not renewed meanwhile */
}

void sim_link_pause_quanta(struct sim_link_dir *l, uint32_t quanta)
{
	if (quanta == 0) {
		sim_link_set_paused(l, false);
		return;
	}
	l->pause_until = sim_now(l->eng) + sim_serialize_ps((uint64_t)quanta * 64, l->rate_bps);
	sim_link_set_paused(l, true);
	sched(l->eng, l->pause_until, pause_expire, l, __FILE__, __LINE__);
}

bool sim_link_idle_now(const struct sim_link_dir *l)
{
	return !l->paused && sim_pktq_empty(&l->txq) &&
	       (!l->busy || l->tx_end <= sim_now(l->eng));
}

sim_time_ps sim_link_busy_ps(const struct sim_link_dir *l)
{
	sim_time_ps now = sim_now(l->eng);

	if (!l->busy)
		return l->busy_ps;
	return l->busy_ps + (now < l->tx_end ? now : l->tx_end) - l->tx_start;
}

sim_time_ps sim_link_paused_ps(const struct sim_link_dir *l)
{
	if (!l->paused)
		return l->paused_ps;
	return l->paused_ps + sim_now(l->eng) - l->paused_since;
}
