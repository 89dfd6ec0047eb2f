/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/event.h — the discrete-event engine: a clock and a queue of pending
 * events, run in a total order.
 *
 * Order.  Events run by (time, insertion sequence number): of two events at
 * the same picosecond, the one scheduled first runs first.  Every event gets
 * a fresh insertion rank (unique among pending events; see SIM__TIE_BITS), so
 * a full tie cannot happen and a run is a pure function of its inputs — the ordering rule of libuv's timer heap
 * (timeout, start_id); ROSS treats a full tie as a bug.  The debug flag
 * SIM_ENGINE_LIFO_TIES reverses the tie-break (later-scheduled first) so a
 * determinism test can run a scenario both ways: a model whose results change
 * depends on an accident of scheduling order, not on physics.
 *
 * Contract for components — schedule only the head of line.  A link, port
 * or NIC engine keeps its own FIFO of work (packets, WQEs) and has at most
 * one pending event of each kind: "my head-of-line item finishes at t".  Its
 * handler pops the head, hands it on, and schedules the next head, if any.
 * So the queue holds one entry per busy component, not one per packet in
 * flight, and a million queued packets cost no heap operations (htsim's Pipe
 * and Queue: doNextEvent() / beginService()).  The engine does not enforce
 * this; the benchmark (bench/bench_eventq.c) measures exactly this load.
 *
 * Handlers.  A handler runs with sim_now() == its event's time.  It may
 * schedule events at any time >= sim_now() (an event at sim_now() runs after
 * every event already pending at that time), cancel events, and call
 * sim_stop().  Scheduling in the past, a NULL handler, or calling sim_run()
 * from a handler breaks an engine invariant: the engine prints the caller's
 * file:line and aborts (these are bugs, never user input).
 *
 * Cancellation is lazy (for retransmission and RNR timers, which are re-armed
 * far more often than they fire): sim_cancel() marks the event's slot dead in
 * O(1) and the heap entry becomes a tombstone, dropped when it reaches the
 * top.  When tombstones outnumber live events the heap is rebuilt without
 * them in O(n), so memory stays bounded under any re-arm pattern.  An event
 * id carries a generation, so cancelling an event that already ran or was
 * cancelled — even if its slot now holds another event — returns -ENOENT and
 * touches nothing.  Cancel-and-re-arm still costs a push and, later, a
 * compaction pass per re-arm (bench_eventq "rearm" rows); a timer pushed back
 * on every ACK is cheaper kept lazily (htsim's TCP keeps its RTO deadline in
 * a field, not in a cancelled event): leave the one pending event alone,
 * store the new deadline, and when the event fires either act (deadline
 * reached) or reschedule itself at the stored deadline.
 *
 * Out of memory: sim_schedule() returns SIM_EVENT_NONE with errno = ENOMEM;
 * sim_engine_reserve() lets a model size the queue up front instead.
 * The engine is single-threaded; one engine per simulation.
 */
#ifndef CCLAB_SIM_EVENT_H
#define CCLAB_SIM_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/time.h"

struct sim_engine;

/* ctx is the component (a link, a NIC engine), arg a small datum of its own
 * (a port number, a packet index), so one handler serves many components. */
typedef void (*sim_handler_fn)(struct sim_engine *eng, void *ctx, uint64_t arg);

/* (generation << 32) | slot index; never 0. */
typedef uint64_t sim_event_id;
#define SIM_EVENT_NONE ((sim_event_id)0)

/* sim_engine_init() flags. */
enum {
	SIM_ENGINE_LIFO_TIES = 1u << 0, /* debug: equal times run newest first */
};

/* Internal (sim__): a heap entry and an event slot.  A heap entry is 16
 * bytes — the time and one word holding the tie-break rank above the slot
 * index — so four children fill one 64-byte cache line and (time, key) is a
 * plain branch-free two-word compare; the handler and its arguments stay put
 * in the slot array.  Ranks are 36 bits: after 2^36 insertions the pending
 * events are renumbered in their current order (sim_schedule() does this in
 * O(n log n), once per ~7e10 events), which keeps the order exact forever. */
#define SIM__SLOT_BITS 28 /* at most 2^28 - 1 pending events (~13 GB) */
#define SIM__TIE_BITS 36
#define SIM__TIE_MAX ((UINT64_C(1) << SIM__TIE_BITS) - 1)

struct sim__hent {
	sim_time_ps time;
	uint64_t key; /* rank << SIM__SLOT_BITS | slot; ranks are unique */
};

struct sim__slot {
	sim_handler_fn fn; /* NULL: free, or cancelled (a tombstone in the heap) */
	void *ctx;
	uint64_t arg;
	uint32_t gen;       /* bumped when the slot is freed; part of the id */
	uint32_t next_free; /* free-list link while free */
};

/* Embed by value; read only through the functions below. */
struct sim_engine {
	sim_time_ps now;
	uint64_t seq;       /* insertion counter since the last renumbering */
	uint64_t seq_limit; /* renumber when seq reaches it (SIM__TIE_MAX + 1) */
	uint64_t tie_mask;  /* rank = seq ^ tie_mask: 0, or SIM__TIE_MAX (LIFO) */
	uint64_t executed;  /* events run since init */
	uint64_t cancelled; /* successful sim_cancel() calls since init */
	uint64_t renumbered; /* times the ranks were renumbered */
	struct sim__hent *heap; /* heap[1] starts a cache line (see event.c) */
	void *heap_mem;
	struct sim__slot *slots;
	size_t n;     /* heap entries, tombstones included */
	size_t live;  /* pending events that will run */
	size_t peak_live; /* most pending at once since init */
	size_t tombs; /* cancelled entries still in the heap */
	uint32_t cap; /* of both arrays: heap entries <= used slots <= cap */
	uint32_t nslots;
	uint32_t free_head;
	unsigned flags;
	/* sim_engine_watch(): watch_fn(watch_ctx) after every watch_every
	 * events; watch_at is the executed count of the next call. */
	uint64_t watch_every, watch_at;
	bool (*watch_fn)(void *ctx);
	void *watch_ctx;
	bool running;    /* inside sim_run() */
	bool root_stale; /* heap[0] is the event whose handler is running */
	bool stop;
};

/* 0, -EINVAL for unknown flags, or -ENOMEM. */
int sim_engine_init(struct sim_engine *eng, unsigned flags);
void sim_engine_destroy(struct sim_engine *eng);

/* Makes room for n pending events; 0 or -ENOMEM. */
int sim_engine_reserve(struct sim_engine *eng, size_t n);

/* Schedules fn(eng, ctx, arg) at absolute time `at` (>= sim_now()); returns
 * its id, or SIM_EVENT_NONE and errno = ENOMEM.  The macros pass the caller's
 * file and line for the invariant-violation message. */
sim_event_id sim_schedule_loc(struct sim_engine *eng, sim_time_ps at, sim_handler_fn fn,
			      void *ctx, uint64_t arg, const char *file, int line);
#define sim_schedule(eng, at, fn, ctx, arg) \
	sim_schedule_loc((eng), (at), (fn), (ctx), (arg), __FILE__, __LINE__)

/* The same at sim_now() + delay (an overflowing sum is an invariant abort). */
sim_event_id sim_schedule_in_loc(struct sim_engine *eng, sim_time_ps delay, sim_handler_fn fn,
				 void *ctx, uint64_t arg, const char *file, int line);
#define sim_schedule_in(eng, delay, fn, ctx, arg) \
	sim_schedule_in_loc((eng), (delay), (fn), (ctx), (arg), __FILE__, __LINE__)

/* 0, or -ENOENT if id is not pending (already ran, cancelled, or NONE). */
int sim_cancel(struct sim_engine *eng, sim_event_id id);

/* Runs events in order while their time is <= until (SIM_TIME_NEVER: until
 * the queue is empty) or until a handler calls sim_stop().  Returns the
 * number of events executed by this call.  Unless stopped, the clock then
 * stands at `until` when it is finite (the interval up to `until` has been
 * simulated), else at the last event's time. */
uint64_t sim_run(struct sim_engine *eng, sim_time_ps until);

/* From a handler: sim_run() returns once this handler does. */
void sim_stop(struct sim_engine *eng);

/* A watchdog outside simulated time: sim_run() calls fn(ctx) between
 * events, once every `every` events executed, and returns (as after
 * sim_stop()) when it returns true — a wall-clock limit, say, which must
 * hold even when simulated time stands still.  every 0 or fn NULL: none
 * (the default).  The events and their order are not affected. */
void sim_engine_watch(struct sim_engine *eng, uint64_t every, bool (*fn)(void *ctx), void *ctx);

static inline sim_time_ps sim_now(const struct sim_engine *eng) { return eng->now; }
static inline size_t sim_pending(const struct sim_engine *eng) { return eng->live; }
static inline uint64_t sim_events_executed(const struct sim_engine *eng) { return eng->executed; }
static inline size_t sim_pending_peak(const struct sim_engine *eng) { return eng->peak_live; }

/* Bytes held by the queue's arrays, for memory reports. */
size_t sim_engine_mem_bytes(const struct sim_engine *eng);

#endif /* CCLAB_SIM_EVENT_H */
