/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/event.c — the event queue: a 4-ary implicit min-heap of 16-byte
 * (time, rank|slot) entries over a slot array holding the handlers.
 *
 * Why 4-ary: a pop sifts down log4(n) levels instead of log2(n), and the four
 * children of a node are one aligned 64-byte cache line (heap[1] is placed on
 * a line boundary, so children 4i+1 .. 4i+4 always share one line): half the
 * levels of a binary heap for the same number of cache misses per level.
 * Unlike a calendar queue it needs no tuning to the delay distribution.  The
 * minimum of four children is a branch-free tournament of 128-bit compares:
 * with random keys a branchy scan mispredicts about every other compare.
 * (Measured with bench/bench_eventq.c: an 8-ary variant was no faster, nor
 * was a bottom-up sift-down; prefetching the grandchildren's four lines gains
 * about 30% at 1e5 pending and is skipped for heaps that fit in L1.)
 *
 * Hold optimisation: the common step is "pop the minimum, its handler pushes
 * one new event" (every head-of-line component does this).  While a handler
 * runs, its entry stays at heap[0] marked stale; the handler's first
 * sim_schedule() overwrites the root and sifts down once, instead of a pop
 * (sift down) followed by a push (sift up).  The slot of the running event is
 * freed before the call, so the new event reuses a hot slot.
 */
#include "sim/event.h"
#include "sim/model.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOT_MASK ((UINT64_C(1) << SIM__SLOT_BITS) - 1)
#define SLOT_NONE UINT32_MAX        /* free-list end */
#define MAX_SLOTS ((uint32_t)SLOT_MASK) /* indices 0 .. 2^28 - 2 */
#define MIN_CAP 64u
#define LINE 64u
#define PREFETCH_MIN 4096u /* entries: 64 KiB of heap */
/* Rebuild the heap once tombstones are this many and outnumber live events. */
#define COMPACT_MIN 1024u

static _Noreturn void sim__die(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static _Noreturn void sim__die(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sim__vdie("engine", file, line, fmt, ap);
}

/* (time, key) lexicographic, as one 128-bit compare (cmp + sbb, no branch). */
static inline int before(const struct sim__hent *a, const struct sim__hent *b)
{
	unsigned __int128 ka = (unsigned __int128)a->time << 64 | a->key;
	unsigned __int128 kb = (unsigned __int128)b->time << 64 | b->key;

	return ka < kb;
}

static inline uint32_t hent_slot(const struct sim__hent *e) { return (uint32_t)(e->key & SLOT_MASK); }

static inline void sift_up(struct sim__hent *h, size_t i, struct sim__hent e)
{
	while (i > 0) {
		size_t p = (i - 1) / 4;

		if (!before(&e, &h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = e;
}

/* Places e at hole i and moves it down among n entries. */
static inline void sift_down(struct sim__hent *h, size_t n, size_t i, struct sim__hent e)
{
	for (;;) {
		size_t c = 4 * i + 1, best;

		if (c + 3 < n) { /* all four children: the common case */
			/* The next level is one of these four lines: start all four
			 * loads now.  Only for heaps beyond L1, where it pays. */
			if (n > PREFETCH_MIN && 4 * c + 13 < n) {
				__builtin_prefetch(&h[4 * c + 1]);
				__builtin_prefetch(&h[4 * c + 5]);
				__builtin_prefetch(&h[4 * c + 9]);
				__builtin_prefetch(&h[4 * c + 13]);
			}
			size_t m01 = c + (size_t)before(&h[c + 1], &h[c]);
			size_t m23 = c + 2 + (size_t)before(&h[c + 3], &h[c + 2]);
			best = before(&h[m23], &h[m01]) ? m23 : m01;
		} else if (c < n) {
			best = c;
			for (size_t k = c + 1; k < n; k++)
				if (before(&h[k], &h[best]))
					best = k;
		} else {
			break;
		}
		if (!before(&h[best], &e))
			break;
		h[i] = h[best];
		i = best;
	}
	h[i] = e;
}

static void pop_root(struct sim_engine *eng)
{
	if (--eng->n > 0)
		sift_down(eng->heap, eng->n, 0, eng->heap[eng->n]);
}

static inline void slot_free(struct sim_engine *eng, uint32_t idx)
{
	struct sim__slot *s = &eng->slots[idx];

	s->fn = NULL;
	if (++s->gen == 0) /* ids are never 0 */
		s->gen = 1;
	s->next_free = eng->free_head;
	eng->free_head = idx;
}

static int grow(struct sim_engine *eng, size_t want)
{
	if (want <= eng->cap)
		return 0;
	if (want > MAX_SLOTS)
		return -ENOMEM;
	size_t cap = eng->cap ? eng->cap : MIN_CAP;
	while (cap < want)
		cap = cap * 2 > MAX_SLOTS ? MAX_SLOTS : cap * 2;

	/* heap[0] sits 16 bytes before a line boundary, heap[1] on it */
	void *mem;
	if (posix_memalign(&mem, LINE, LINE + cap * sizeof(struct sim__hent)))
		return -ENOMEM;
	struct sim__hent *h = (struct sim__hent *)((char *)mem + LINE) - 1;
	if (eng->n)
		memcpy(h, eng->heap, eng->n * sizeof(*h));
	free(eng->heap_mem);
	eng->heap_mem = mem;
	eng->heap = h;

	struct sim__slot *s = realloc(eng->slots, cap * sizeof(*s));
	if (!s)
		return -ENOMEM;
	eng->slots = s;
	eng->cap = (uint32_t)cap;
	return 0;
}

int sim_engine_init(struct sim_engine *eng, unsigned flags)
{
	*eng = (struct sim_engine){
		.free_head = SLOT_NONE,
		.flags = flags,
		.seq_limit = SIM__TIE_MAX + 1,
		.tie_mask = (flags & SIM_ENGINE_LIFO_TIES) ? SIM__TIE_MAX : 0,
		.watch_at = UINT64_MAX,
	};
	if (flags & ~(unsigned)SIM_ENGINE_LIFO_TIES)
		return -EINVAL;
	int rc = grow(eng, MIN_CAP);
	if (rc)
		sim_engine_destroy(eng);
	return rc;
}

void sim_engine_destroy(struct sim_engine *eng)
{
	free(eng->heap_mem);
	free(eng->slots);
	eng->heap_mem = NULL;
	eng->heap = NULL;
	eng->slots = NULL;
	eng->cap = eng->nslots = 0;
	eng->n = eng->live = eng->tombs = eng->peak_live = 0;
	eng->free_head = SLOT_NONE;
}

int sim_engine_reserve(struct sim_engine *eng, size_t n)
{
	return grow(eng, n);
}

size_t sim_engine_mem_bytes(const struct sim_engine *eng)
{
	return LINE + (size_t)eng->cap * (sizeof(struct sim__hent) + sizeof(struct sim__slot));
}

/* Drops every tombstone and re-heapifies (Floyd, O(n)).  Never while
 * root_stale: that entry's slot is already free. */
static void compact(struct sim_engine *eng)
{
	struct sim__hent *h = eng->heap;
	size_t w = 0;

	for (size_t i = 0; i < eng->n; i++) {
		if (eng->slots[hent_slot(&h[i])].fn)
			h[w++] = h[i];
		else
			slot_free(eng, hent_slot(&h[i]));
	}
	eng->n = w;
	eng->tombs = 0;
	if (w >= 2)
		for (size_t i = (w - 2) / 4 + 1; i-- > 0;)
			sift_down(h, w, i, h[i]);
}

static int hent_cmp(const void *a, const void *b)
{
	return before(a, b) ? -1 : before(b, a);
}

/* The rank counter ran out: give the pending events ranks 0..n-1 (FIFO) or
 * the top n ranks (LIFO) in their current order, and restart the counter at
 * n, so every later event still ranks after (FIFO) or before (LIFO) them.  A
 * sorted array is a valid heap. */
static void renumber(struct sim_engine *eng)
{
	compact(eng);
	size_t n = eng->n;
	if (n >= eng->seq_limit / 2)
		sim__die(__FILE__, __LINE__, "%zu pending events leave no ranks to renumber", n);
	qsort(eng->heap, n, sizeof(*eng->heap), hent_cmp);
	uint64_t base = eng->tie_mask ? SIM__TIE_MAX - (n - 1) : 0;
	for (size_t r = 0; r < n; r++)
		eng->heap[r].key = (base + r) << SIM__SLOT_BITS | hent_slot(&eng->heap[r]);
	eng->seq = n;
	eng->renumbered++;
}

sim_event_id sim_schedule_loc(struct sim_engine *eng, sim_time_ps at, sim_handler_fn fn,
			      void *ctx, uint64_t arg, const char *file, int line)
{
	if (at < eng->now) {
		char a[SIM_TIME_FMT_LEN], b[SIM_TIME_FMT_LEN];
		sim__die(file, line, "event scheduled in the past (at %s < now %s)",
			 sim_time_fmt(at, a, sizeof(a)), sim_time_fmt(eng->now, b, sizeof(b)));
	}
	if (!fn)
		sim__die(file, line, "event scheduled with a NULL handler");
	if (eng->seq >= eng->seq_limit) {
		if (eng->root_stale) { /* retire it first: renumber() compacts */
			eng->root_stale = false;
			pop_root(eng);
		}
		renumber(eng);
	}

	uint32_t idx = eng->free_head;
	if (idx != SLOT_NONE) {
		eng->free_head = eng->slots[idx].next_free;
	} else {
		if (eng->nslots == eng->cap && grow(eng, (size_t)eng->cap + 1)) {
			errno = ENOMEM;
			return SIM_EVENT_NONE;
		}
		idx = eng->nslots++;
		eng->slots[idx].gen = 1;
	}
	struct sim__slot *s = &eng->slots[idx];
	s->fn = fn;
	s->ctx = ctx;
	s->arg = arg;

	uint64_t rank = eng->seq++ ^ eng->tie_mask;
	struct sim__hent e = {.time = at, .key = rank << SIM__SLOT_BITS | idx};
	if (eng->root_stale) {
		/* hold: replace the running event's entry (see top of file) */
		eng->root_stale = false;
		sift_down(eng->heap, eng->n, 0, e);
	} else {
		sift_up(eng->heap, eng->n++, e);
	}
	if (++eng->live > eng->peak_live)
		eng->peak_live = eng->live;
	return ((sim_event_id)s->gen << 32) | idx;
}

sim_event_id sim_schedule_in_loc(struct sim_engine *eng, sim_time_ps delay, sim_handler_fn fn,
				 void *ctx, uint64_t arg, const char *file, int line)
{
	if (delay > SIM_TIME_NEVER - eng->now)
		sim__die(file, line, "now + delay overflows (delay %" PRIu64 " ps)", delay);
	return sim_schedule_loc(eng, eng->now + delay, fn, ctx, arg, file, line);
}

int sim_cancel(struct sim_engine *eng, sim_event_id id)
{
	uint32_t idx = (uint32_t)id, gen = (uint32_t)(id >> 32);

	if (idx >= eng->nslots)
		return -ENOENT;
	struct sim__slot *s = &eng->slots[idx];
	if (s->gen != gen || !s->fn)
		return -ENOENT;
	s->fn = NULL; /* the heap entry is now a tombstone */
	eng->live--;
	eng->tombs++;
	eng->cancelled++;
	return 0;
}

uint64_t sim_run(struct sim_engine *eng, sim_time_ps until)
{
	uint64_t ran = 0;

	if (eng->running)
		sim__die(__FILE__, __LINE__, "sim_run() called from an event handler");
	eng->running = true;
	eng->stop = false;
	while (eng->n > 0) {
		if (eng->tombs >= COMPACT_MIN && eng->tombs > eng->live) {
			compact(eng);
			if (eng->n == 0)
				break;
		}
		struct sim__hent top = eng->heap[0];
		if (top.time > until)
			break;
		uint32_t idx = hent_slot(&top);
		struct sim__slot *s = &eng->slots[idx];
		sim_handler_fn fn = s->fn;
		if (!fn) { /* tombstone of a cancelled event */
			eng->tombs--;
			slot_free(eng, idx);
			pop_root(eng);
			continue;
		}
		void *ctx = s->ctx;
		uint64_t arg = s->arg;
		slot_free(eng, idx);
		eng->live--;
		eng->now = top.time;
		eng->root_stale = true;
		if (eng->n > PREFETCH_MIN) {
			/* The next event is the root's smallest child or one the
			 * handler schedules: start loading the child's slot now, so
			 * the miss overlaps the handler's own work. */
			struct sim__hent *h = eng->heap;
			size_t m01 = 1 + (size_t)before(&h[2], &h[1]);
			size_t m23 = 3 + (size_t)before(&h[4], &h[3]);
			__builtin_prefetch(&eng->slots[hent_slot(&h[before(&h[m23], &h[m01]) ? m23 : m01])]);
		}
		fn(eng, ctx, arg);
		if (eng->root_stale) { /* the handler scheduled nothing */
			eng->root_stale = false;
			pop_root(eng);
		}
		ran++;
		eng->executed++;
		if (eng->executed == eng->watch_at) {
			eng->watch_at += eng->watch_every;
			if (eng->watch_fn(eng->watch_ctx))
				eng->stop = true;
		}
		if (eng->stop)
			break;
	}
	if (!eng->stop && until != SIM_TIME_NEVER && until > eng->now)
		eng->now = until;
	eng->running = false;
	eng->stop = false;
	return ran;
}

void sim_stop(struct sim_engine *eng)
{
	eng->stop = true;
}

void sim_engine_watch(struct sim_engine *eng, uint64_t every, bool (*fn)(void *ctx), void *ctx)
{
	bool on = every && fn;

	eng->watch_every = on ? every : 0;
	eng->watch_fn = on ? fn : NULL;
	eng->watch_ctx = ctx;
	/* UINT64_MAX executed events never come: off costs one compare. */
	eng->watch_at = on && eng->executed <= UINT64_MAX - every ? eng->executed + every
								  : UINT64_MAX;
}
