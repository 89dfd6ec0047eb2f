/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/pcie.c — the PCIe link model: per-direction FIFO of TLP batches,
 * serialization, latency, read requests turned into completions.  The
 * model, its sources and its event budget are in pcie.h.
 */
#include "sim/pcie.h"
#include "sim/model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* A batch: ntlp TLPs of one kind, back to back in one direction.  Every TLP
 * but the last carries `full` payload bytes, the last `last`; each costs
 * `oh` more.  A read's request batch names the completion batch it causes
 * (`then`), so the handler that delivers the request needs no allocation. */
struct sim_pcie_item {
	struct sim_pcie_item *next;
	struct sim_pcie_item *then;
	uint64_t ntlp;
	uint64_t payload;
	uint32_t full, last, oh;
	sim_time_ps due;
	bool pass;          /* a transmit read request: passes queued writes */
	struct sim_pcie_uplink *via; /* the switch uplink it also crosses, or NULL */
	sim_pcie_done_fn fn;
	void *ctx;
	uint64_t arg;
};

static void sched(struct sim_engine *eng, sim_time_ps at, sim_handler_fn fn, void *ctx,
		  uint64_t arg, int line)
{
	if (sim_schedule(eng, at, fn, ctx, arg) == SIM_EVENT_NONE)
		sim__sched_die(__FILE__, line, "pcie");
}

static struct sim_pcie_item *item_get(struct sim_pcie *p)
{
	struct sim_pcie_item *it = p->free;

	if (it)
		p->free = it->next;
	else
		it = malloc(sizeof(*it));
	if (it)
		*it = (struct sim_pcie_item){0};
	return it;
}

static void item_put(struct sim_pcie *p, struct sim_pcie_item *it)
{
	it->then = NULL; /* handed on, or put back itself: not owned */
	it->next = p->free;
	p->free = it;
}

static uint64_t div_up(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

static sim_time_ps add_sat(sim_time_ps a, sim_time_ps b)
{
	return b > SIM_TIME_NEVER - a ? SIM_TIME_NEVER : a + b;
}

/* Serialization of one TLP; rate 0 is an unlimited link. */
static sim_time_ps tlp_ps(uint64_t rate_bps, uint64_t wire_bytes)
{
	return rate_bps ? sim_serialize_ps(wire_bytes, rate_bps) : 0;
}

/* Each TLP rounded up on its own, like a packet on sim/link.c's wire: the
 * sum can only over-estimate the rate's bound, by < 1 ps per TLP. */
static sim_time_ps batch_ps(uint64_t rate_bps, const struct sim_pcie_item *it)
{
	sim_time_ps full = tlp_ps(rate_bps, (uint64_t)it->full + it->oh);
	sim_time_ps last = tlp_ps(rate_bps, (uint64_t)it->last + it->oh);
	uint64_t n = it->ntlp - 1;

	if (n && full > SIM_TIME_NEVER / n)
		return SIM_TIME_NEVER;
	return add_sat(n * full, last);
}

static void deliver(struct sim_engine *eng, void *ctx, uint64_t arg);

/* The delay line of arg: a direction, or SIM_PCIE_NDIR for the upstream
 * read requests. */
static struct sim_pcie_dir *line_of(struct sim_pcie *p, uint64_t arg)
{
	return arg == SIM_PCIE_NDIR ? &p->mrd : &p->dir[arg];
}

/* Appends it, due at it->due, to delay line `arg`; due times on one line
 * never decrease (FIFO order, one latency), so it stays sorted and one
 * event for its head suffices. */
static void line_append(struct sim_pcie *p, uint64_t arg, struct sim_pcie_item *it)
{
	struct sim_pcie_dir *line = line_of(p, arg);

	it->next = NULL;
	if (line->fl_tail)
		line->fl_tail->next = it;
	else
		line->fl_head = it;
	line->fl_tail = it;
	if (!line->fl_armed && !line->fl_running) {
		line->fl_armed = true;
		sched(p->eng, it->due, deliver, p, arg, __LINE__);
	}
}

/* The bulk transfers of uplink u's direction d still going at `from` end
 * ps later (a batch took that much of the uplink from them): the last
 * ones, as they end in id order. */
static void bulk_push(struct sim_pcie_uplink *u, enum sim_pcie_dirn d, sim_time_ps from,
		      sim_time_ps ps)
{
	u->bulk_free[d] = add_sat(u->bulk_free[d], ps);
	for (uint64_t id = u->bulk_ids[d]; u->ring && id-- > 0;) {
		struct sim_pcie_bulk *b = &u->ring[d][id % SIM_PCIE_BULK_RING];

		if (b->id != id || b->end <= from)
			break;
		b->end = add_sat(b->end, ps);
	}
}

/* Device batch it on uplink u (its direction dev_d as the device sees it),
 * handed to it at `now`: its end there.  The uplink serves batches in the
 * order they are handed over (so one device's backlog on its own link
 * never holds another's); a transmit read request (pass) goes ahead of the
 * batches waiting, as on the device's own link, and moves their end by its
 * serialization.  A bulk transfer holding the uplink then shares it
 * (sim/pcie.h). */
static sim_time_ps uplink_batch(struct sim_pcie_uplink *u, enum sim_pcie_dirn dev_d,
				sim_time_ps now, const struct sim_pcie_item *it, bool pass)
{
	enum sim_pcie_dirn d = !u->reversed ? dev_d : dev_d == SIM_PCIE_UP ? SIM_PCIE_DOWN
									     : SIM_PCIE_UP;
	sim_time_ps ps = batch_ps(u->rate_bps, it), span = ps, from = now;

	if (!ps)
		return now;
	if (!pass && u->batch_free[d] > from)
		from = u->batch_free[d];
	if (u->bulk_free[d] > from) {
		/* Shared for as long as the bulk transfer has left, at most
		 * the batch's own time: each is that much later. */
		sim_time_ps ov = u->bulk_free[d] - from < ps ? u->bulk_free[d] - from : ps;

		span = add_sat(ps, ov);
		bulk_push(u, d, from, ov);
	}
	u->busy_ps[d] += ps;
	u->wire_bytes[d] += it->payload + it->ntlp * it->oh;
	u->payload_bytes[d] += it->payload;
	if (u->batch_free[d] > from) { /* a read request ahead of them */
		u->batch_free[d] = add_sat(u->batch_free[d], ps);
		return add_sat(from, span);
	}
	u->batch_free[d] = add_sat(from, span);
	return u->batch_free[d];
}

/* Queues a batch: it starts serializing when the direction is free (FIFO:
 * at the end of the previous batch, or now), and is delivered latency_ps
 * after its last TLP left.  Both times are known at once, so the
 * serialization needs no event of its own.  A transmit read request
 * (it->pass) goes ahead of the queued writes instead (pcie.h). */
static void dir_push(struct sim_pcie *p, enum sim_pcie_dirn d, struct sim_pcie_item *it)
{
	struct sim_pcie_dir *dir = &p->dir[d];
	bool mrd = d == SIM_PCIE_UP && it->pass;
	struct sim_pcie_dir *line = mrd ? &p->mrd : dir;
	sim_time_ps now = sim_now(p->eng);
	sim_time_ps after = mrd ? p->mrd.free_at : dir->free_at;
	sim_time_ps start = after > now ? after : now;
	sim_time_ps link_from, ser = batch_ps(p->rate_bps, it), end, hop = p->latency_ps;

	/* The link's time it takes: after what is queued (for a read request,
	 * the writes it passed), so each TLP is counted once. */
	link_from = start > dir->free_at ? start : dir->free_at;
	if (add_sat(add_sat(link_from, ser), p->latency_ps) == SIM_TIME_NEVER)
		sim__model_die(__FILE__, __LINE__, "pcie: batch of %" PRIu64 " TLPs ends beyond time's range",
			 it->ntlp);
	if (start > dir->free_at)
		dir->seg_start = start; /* the direction was idle in between */
	dir->free_at = link_from + ser;
	dir->busy_ps += ser;
	dir->st.tlps += it->ntlp;
	dir->st.payload_bytes += it->payload;
	dir->st.wire_bytes += it->payload + it->ntlp * it->oh;
	dir->st.batches++;
	if (mrd)
		p->mrd.free_at = start + ser;
	end = mrd ? p->mrd.free_at : dir->free_at;
	if (it->via) {
		sim_time_ps up_end = uplink_batch(it->via, d, now, it, mrd);

		if (up_end > end)
			end = up_end;
		hop = add_sat(hop, it->via->latency_ps);
	}
	it->due = add_sat(end, hop);
	/* In order on its line, behind one an uplink held longer (without
	 * uplinks a line's times never go backwards: FIFO, one latency). */
	if (line->fl_tail && line->fl_tail->due > it->due)
		it->due = line->fl_tail->due;
	line_append(p, mrd ? SIM_PCIE_NDIR : d, it);
}

sim_time_ps sim_pcie_uplink_bulk(struct sim_pcie_uplink *u, enum sim_pcie_dirn d,
				 sim_time_ps from, sim_time_ps ps, uint64_t payload_bytes,
				 uint64_t wire_bytes, uint64_t *id)
{
	if (id)
		*id = SIM_PCIE_BULK_NONE;
	if (!ps)
		return from;
	if (u->batch_free[d] > from)
		from = u->batch_free[d];
	if (u->bulk_free[d] > from)
		from = u->bulk_free[d];
	u->bulk_free[d] = add_sat(from, ps);
	u->busy_ps[d] += ps;
	u->wire_bytes[d] += wire_bytes;
	u->payload_bytes[d] += payload_bytes;
	if (u->ring) {
		uint64_t n = u->bulk_ids[d]++;

		u->ring[d][n % SIM_PCIE_BULK_RING] = (struct sim_pcie_bulk){n, u->bulk_free[d]};
		if (id)
			*id = n;
	}
	return u->bulk_free[d];
}

sim_time_ps sim_pcie_uplink_bulk_end(const struct sim_pcie_uplink *u, enum sim_pcie_dirn d,
				     uint64_t id)
{
	const struct sim_pcie_bulk *b;

	if (!u->ring || id == SIM_PCIE_BULK_NONE)
		return 0;
	b = &u->ring[d][id % SIM_PCIE_BULK_RING];
	return b->id == id ? b->end : 0;
}

static void deliver(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sim_pcie *p = ctx;
	struct sim_pcie_dir *dir = line_of(p, arg);
	sim_time_ps now = sim_now(eng);

	dir->fl_armed = false;
	dir->fl_running = true;
	/* Batches due at the same picosecond are released by this one event,
	 * oldest first, so their order does not hang on the engine's
	 * tie-break. */
	while (dir->fl_head && dir->fl_head->due <= now) {
		struct sim_pcie_item *it = dir->fl_head;

		dir->fl_head = it->next;
		if (!dir->fl_head)
			dir->fl_tail = NULL;
		/* A read request reached the root complex: its completions
		 * join the downstream FIFO now. */
		if (it->then)
			dir_push(p, SIM_PCIE_DOWN, it->then);
		if (it->fn)
			it->fn(eng, it->ctx, it->arg, now);
		item_put(p, it);
	}
	dir->fl_running = false;
	if (dir->fl_head) {
		dir->fl_armed = true;
		sched(eng, dir->fl_head->due, deliver, p, arg, __LINE__);
	}
}

int sim_pcie_init(struct sim_pcie *p, struct sim_engine *eng, const struct sim_pcie_params *pp)
{
	if (!eng || !pp || pp->mps_bytes == 0 || pp->mrrs_bytes == 0)
		return -EINVAL;
	*p = (struct sim_pcie){
		.eng = eng,
		.rate_bps = pp->rate_bps,
		.latency_ps = pp->latency_ps,
		.mps = pp->mps_bytes,
		.mrrs = pp->mrrs_bytes,
		.tlp_oh = pp->tlp_overhead_bytes,
		.cpl_oh = pp->cpl_overhead_bytes,
	};
	return 0;
}

static void free_list(struct sim_pcie_item *it)
{
	while (it) {
		struct sim_pcie_item *next = it->next;

		free(it->then); /* a request still queued owns its completions */
		free(it);
		it = next;
	}
}

void sim_pcie_destroy(struct sim_pcie *p)
{
	for (int d = 0; d <= SIM_PCIE_NDIR; d++) {
		struct sim_pcie_dir *dir = line_of(p, (uint64_t)d);

		free_list(dir->fl_head);
		*dir = (struct sim_pcie_dir){0};
	}
	free_list(p->free);
	p->free = NULL;
}

/* `bytes` of data as MWr TLPs of at most MPS payload: one batch. */
static int write_batch(struct sim_pcie *p, struct sim_pcie_uplink *via, enum sim_pcie_dirn d,
		       uint64_t bytes, sim_pcie_done_fn fn, void *ctx, uint64_t arg)
{
	struct sim_pcie_item *it;

	if (bytes == 0)
		return -EINVAL;
	it = item_get(p);
	if (!it)
		return -ENOMEM;
	it->ntlp = div_up(bytes, p->mps);
	it->payload = bytes;
	it->full = p->mps;
	it->last = (uint32_t)(bytes - (it->ntlp - 1) * p->mps);
	it->oh = p->tlp_oh;
	it->via = via;
	it->fn = fn;
	it->ctx = ctx;
	it->arg = arg;
	dir_push(p, d, it);
	return 0;
}

int sim_pcie_dma_write(struct sim_pcie *p, uint64_t bytes, sim_pcie_done_fn fn, void *ctx,
		       uint64_t arg)
{
	return write_batch(p, NULL, SIM_PCIE_UP, bytes, fn, ctx, arg);
}

int sim_pcie_dma_write_via(struct sim_pcie *p, struct sim_pcie_uplink *via, uint64_t bytes,
			   sim_pcie_done_fn fn, void *ctx, uint64_t arg)
{
	return write_batch(p, via, SIM_PCIE_UP, bytes, fn, ctx, arg);
}

int sim_pcie_mmio_write(struct sim_pcie *p, uint64_t bytes, sim_pcie_done_fn fn, void *ctx,
			uint64_t arg)
{
	return write_batch(p, NULL, SIM_PCIE_DOWN, bytes, fn, ctx, arg);
}

/* `bytes` read as MRRS-sized requests up, each answered by MPS-sized
 * completions down; pass: the requests go ahead of queued writes. */
static int read_batches(struct sim_pcie *p, struct sim_pcie_uplink *via, uint64_t bytes,
			bool pass, sim_pcie_done_fn fn, void *ctx, uint64_t arg)
{
	uint64_t nreq = bytes ? div_up(bytes, p->mrrs) : 0;
	struct sim_pcie_item *head = NULL, *tail = NULL;

	if (bytes == 0)
		return -EINVAL;
	/* Allocate every batch first, so that -ENOMEM leaves nothing queued
	 * and no handler ever allocates. */
	for (uint64_t i = 0; i < nreq; i++) {
		struct sim_pcie_item *rq = item_get(p), *cpl = rq ? item_get(p) : NULL;
		uint64_t len = i + 1 < nreq ? p->mrrs : bytes - (nreq - 1) * p->mrrs;

		if (!cpl) {
			if (rq)
				item_put(p, rq);
			while (head) {
				struct sim_pcie_item *next = head->next;

				item_put(p, head->then);
				item_put(p, head);
				head = next;
			}
			return -ENOMEM;
		}
		/* The request: one MRd, header only (Base Spec 2.2.7: a read
		 * request carries a Length but no data). */
		rq->ntlp = 1;
		rq->oh = p->tlp_oh;
		rq->then = cpl;
		rq->pass = pass;
		rq->via = via;
		/* Its completions: CplD of at most MPS bytes each. */
		cpl->ntlp = div_up(len, p->mps);
		cpl->payload = len;
		cpl->full = p->mps;
		cpl->last = (uint32_t)(len - (cpl->ntlp - 1) * p->mps);
		cpl->oh = p->cpl_oh;
		cpl->via = via;
		if (tail)
			tail->next = rq;
		else
			head = rq;
		tail = rq;
	}
	/* The last request's completions come back last (both FIFOs keep
	 * request order), so they carry the callback. */
	tail->then->fn = fn;
	tail->then->ctx = ctx;
	tail->then->arg = arg;
	while (head) {
		struct sim_pcie_item *next = head->next;

		dir_push(p, SIM_PCIE_UP, head);
		head = next;
	}
	return 0;
}

int sim_pcie_dma_read(struct sim_pcie *p, uint64_t bytes, sim_pcie_done_fn fn, void *ctx,
		      uint64_t arg)
{
	return read_batches(p, NULL, bytes, true, fn, ctx, arg);
}

int sim_pcie_dma_read_via(struct sim_pcie *p, struct sim_pcie_uplink *via, uint64_t bytes,
			  sim_pcie_done_fn fn, void *ctx, uint64_t arg)
{
	return read_batches(p, via, bytes, true, fn, ctx, arg);
}

int sim_pcie_dma_read_ordered(struct sim_pcie *p, uint64_t bytes, sim_pcie_done_fn fn, void *ctx,
			      uint64_t arg)
{
	return read_batches(p, NULL, bytes, false, fn, ctx, arg);
}

int sim_pcie_dma_read_ordered_via(struct sim_pcie *p, struct sim_pcie_uplink *via,
				  uint64_t bytes, sim_pcie_done_fn fn, void *ctx, uint64_t arg)
{
	return read_batches(p, via, bytes, false, fn, ctx, arg);
}

int sim_pcie_after_writes(struct sim_pcie *p, sim_pcie_done_fn fn, void *ctx, uint64_t arg)
{
	struct sim_pcie_dir *up = &p->dir[SIM_PCIE_UP];
	struct sim_pcie_item *it;

	if (!up->fl_tail || up->fl_tail->due <= sim_now(p->eng)) {
		fn(p->eng, ctx, arg, sim_now(p->eng));
		return 0;
	}
	if (!(it = item_get(p)))
		return -ENOMEM;
	/* No TLP of its own: delivered with the last write, after it. */
	it->due = up->fl_tail->due;
	it->fn = fn;
	it->ctx = ctx;
	it->arg = arg;
	line_append(p, SIM_PCIE_UP, it);
	return 0;
}

sim_time_ps sim_pcie_busy_ps(const struct sim_pcie *p, enum sim_pcie_dirn d)
{
	const struct sim_pcie_dir *dir = &p->dir[d];
	sim_time_ps now = sim_now(p->eng);

	/* busy_ps counts every batch queued; what lies after now is the rest
	 * of the current back-to-back run, which started at seg_start. */
	if (dir->free_at <= now)
		return dir->busy_ps;
	return dir->busy_ps - (dir->free_at - (now > dir->seg_start ? now : dir->seg_start));
}

bool sim_pcie_idle(const struct sim_pcie *p)
{
	for (int d = 0; d < SIM_PCIE_NDIR; d++)
		if (p->dir[d].fl_head)
			return false;
	return !p->mrd.fl_head;
}
