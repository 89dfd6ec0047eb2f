/* SPDX-License-Identifier: BSD-3-Clause */
/* core/trace.h — the event trace every executor emits, and its writers.
 *
 * The data executor, the simulator and the verbs backend record the same
 * events (docs: ARCHITECTURE.md, "Event names"), so one trace viewer and one
 * set of scripts serve all three.  An event is an instant or, with a
 * duration, an interval, on one track (the rank's CPU, GPU or NIC; later a
 * link or switch port) at an integer time in picoseconds (sim/time.h says
 * why integers).
 *
 * Recording is an append into a growable array: amortised O(1), no malloc
 * per event, because the simulator records millions.  Writing produces
 *   - Chrome trace JSON (the Trace Event Format that Perfetto and
 *     chrome://tracing open): cc_trace_write_chrome();
 *   - CSV, one line per event, for scripts and gnuplot: cc_trace_write_csv().
 * Both are written atomically (util/atomic_file.h) and are byte-identical for
 * the same trace on any machine: times are printed from the integers, never
 * through floating point, and events come out in the order recorded.
 */
#ifndef CCLAB_CORE_TRACE_H
#define CCLAB_CORE_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "schedule.h"

/* What happened, in the order a send goes through the stack. */
enum cc_trace_kind {
	CC_TRACE_POST,         /* WQE written to the ring (ibv_post_send/recv) */
	CC_TRACE_DOORBELL,     /* MMIO doorbell write */
	CC_TRACE_WQE_FETCH,    /* NIC reads the WQE over PCIe */
	CC_TRACE_DMA_READ,     /* NIC reads the payload */
	CC_TRACE_TX_FIRST,     /* first packet of the message on the wire */
	CC_TRACE_TX_LAST,      /* last packet of the message on the wire */
	CC_TRACE_RX_LAST,      /* last packet arrived at the responder */
	CC_TRACE_DMA_WRITE,    /* responder writes the payload to memory */
	CC_TRACE_ACK,          /* ACK received by the requester */
	CC_TRACE_CQE,          /* CQE written to host memory */
	CC_TRACE_POLL,         /* poll_cq reaped the CQE */
	CC_TRACE_REDUCE_BEGIN,
	CC_TRACE_REDUCE_END,
	CC_TRACE_COPY_BEGIN,
	CC_TRACE_COPY_END,
	/* A packet's serialization on a port, as a span: last so that the
	 * kinds before it keep their numbers. */
	CC_TRACE_WIRE,
	CC_TRACE_KIND_COUNT
};

/* "post", "doorbell", ... exactly the names of ARCHITECTURE.md. */
extern const char *const cc_trace_kind_name[CC_TRACE_KIND_COUNT];

/* Where it happened, within the node `rank`.  Tracks from CC_TRACE_PORT0 on
 * are ports by id: CC_TRACE_PORT0 + n is port n (cc_trace_port()), so link
 * and switch models need no change here; from CC_TRACE_GPU_LANE0 on, the
 * GPU's lanes past the first (cc_trace_gpu(): a thread block each, whose
 * ops overlap another block's, so each needs its own track to nest).
 * Values between the fixed tracks and the ports are invalid.  (A C enum
 * holds any value of its underlying type, which GCC and Clang make
 * unsigned int when no constant is negative.) */
enum cc_trace_track {
	CC_TRACE_CPU,
	CC_TRACE_GPU, /* lane 0: channel 0's block */
	CC_TRACE_NIC,
	CC_TRACE_TRACK_COUNT, /* fixed tracks */
	CC_TRACE_PORT0 = 16,
	CC_TRACE_GPU_LANE0 = 1u << 24, /* ports below, GPU lanes from here */
};

static inline enum cc_trace_track cc_trace_port(uint32_t port)
{
	return (enum cc_trace_track)(CC_TRACE_PORT0 + port);
}

/* GPU lane L (sim/compute.h: CC_TAG_GROUPS channel + thread group). */
static inline enum cc_trace_track cc_trace_gpu(uint32_t lane)
{
	return lane ? (enum cc_trace_track)(CC_TRACE_GPU_LANE0 + lane) : CC_TRACE_GPU;
}

/* "cpu", "gpu", "nic", "portN", and "gpu-chC", "gpu-chC-down",
 * "gpu-chC-g2" or "gpu-chC-g3" for thread group 0 to 3 of channel C (no
 * space, for awk); NULL (and "" in buf) for an invalid track.  Returns
 * buf. */
#define CC_TRACE_TRACK_NAME_LEN 24
const char *cc_trace_track_name(enum cc_trace_track track, char *buf, size_t len);

/* qp or op of an event that has none (a port event, ...): written as -1. */
#define CC_TRACE_NONE UINT32_MAX

struct cc_trace_event {
	uint64_t t_ps;   /* start */
	uint64_t dur_ps; /* 0: an instant */
	enum cc_trace_kind kind;
	uint32_t rank;
	enum cc_trace_track track;
	uint32_t qp;     /* per rank, or CC_TRACE_NONE */
	uint64_t wr_id;
	uint64_t bytes;
	struct cc_tag tag;
	uint32_t op;     /* index into the rank's ops, or CC_TRACE_NONE */
	/* What op is, so a viewer can name it without the schedule: its
	 * enum cc_op_kind and, for a post_send, its enum cc_opcode.  Read
	 * only when op is not CC_TRACE_NONE. */
	uint8_t op_kind, opcode;
};

/* Fills e's op, op_kind and opcode from op number i, or none (o NULL). */
static inline void cc_trace_set_op(struct cc_trace_event *e, const struct cc_op *o, uint32_t i)
{
	e->op = o ? i : CC_TRACE_NONE;
	e->op_kind = o ? (uint8_t)o->kind : 0;
	e->opcode = o && o->kind == CC_OP_POST_SEND ? (uint8_t)o->u.send.opcode : 0;
}

struct cc_trace {
	struct cc_trace_event *ev;
	size_t n, cap;
	/* Appends lost to out-of-memory: the writers report them, so a
	 * recorder that ignores append's result still leaves an honest trace. */
	uint64_t dropped;
};

void cc_trace_init(struct cc_trace *t);
/* Forgets the events, keeps the memory for the next run. */
void cc_trace_clear(struct cc_trace *t);
void cc_trace_free(struct cc_trace *t);

int cc__trace_append_slow(struct cc_trace *t, const struct cc_trace_event *e);

/* Copies *e to the end (e may point into t's own buffer).  Returns 0, or
 * -ENOMEM (the event is dropped and counted).  Inline so the common case is
 * a compare and a copy. */
static inline int cc_trace_append(struct cc_trace *t, const struct cc_trace_event *e)
{
	if (t->n < t->cap) {
		t->ev[t->n++] = *e;
		return 0;
	}
	return cc__trace_append_slow(t, e);
}

static inline size_t cc_trace_count(const struct cc_trace *t)
{
	return t->n;
}

/* ps as decimal microseconds, exactly: the integer part, then up to six
 * fractional digits with trailing zeros dropped (0 -> "0", 1 -> "0.000001",
 * 1500000 -> "1.5", UINT64_MAX -> "18446744073709.551615").  Returns the
 * length. */
#define CC_TRACE_US_LEN 24
size_t cc_trace_ps_to_us(uint64_t ps, char buf[CC_TRACE_US_LEN]);

/* Chrome trace JSON:
 *
 *   {"traceEvents":[
 *   {"name":"process_name","ph":"M","pid":1,"tid":1,"args":{"name":"rank 0"}},
 *   {"name":"thread_name","ph":"M","pid":1,"tid":3,"args":{"name":"nic"}},
 *   {"name":"dma_read","ph":"X","ts":1.5,"dur":0.25,"pid":1,"tid":3,"args":{...}},
 *   {"name":"cqe","ph":"i","s":"t","ts":2,"pid":1,"tid":3,"args":{...}},
 *   ...
 *   ],
 *   "displayTimeUnit":"ns",
 *   "otherData":{"generator":"cclab","clock":"ps","events":N,"dropped":D}}
 *
 * A process per rank, a thread per track: pid is rank + 1 and tid is
 * track + 1, because Perfetto takes pid and tid 0 for the kernel's idle
 * task and treats them specially (google/perfetto#394); the names say
 * "rank 0", "cpu", ...  Metadata events come first, one process_name per
 * rank and one thread_name per (rank, track) used, in ascending order; then
 * one line per event in recorded order.  ts and dur are microseconds
 * (cc_trace_ps_to_us()).  args: qp, wr_id, bytes, op, op_name (with an op:
 * "post_send RDMA_WRITE_WITH_IMM", "reduce", ...), prim, channel, chunk,
 * step, slice.
 *
 * Perfetto nests the "X" slices of one thread and cannot draw two that
 * overlap without nesting.  The NIC's slices do overlap: a QP's payload
 * read runs while another QP's WQE fetch or a receive's DMA write is under
 * way.  So the NIC's "X" slices go on a thread per (QP, kind), named
 * "nic qp1 dma_read" (its instants stay on "nic"), and on any thread a
 * slice that would still overlap its neighbour partially moves to a
 * further lane, "... #2", "#3": every thread's slices are then disjoint or
 * nested, and no event is dropped.  The lanes are chosen from the events
 * alone (sorted by start, longer first), so the output stays a function of
 * the trace.  Threads of the recorder's own tracks keep tid track + 1;
 * the added ones get tids from 2^30 up, in sorted order per rank.
 *
 * Returns 0 or -errno: -EINVAL for an event with an invalid kind, track or
 * prim (nothing is written), -ENOMEM, or the atomic writer's error; on
 * error no file is left and an existing one is untouched. */
int cc_trace_write_chrome(const struct cc_trace *t, const char *path);

/* CSV with the header
 *   t_ps,dur_ps,kind,rank,track,qp,wr_id,bytes,op,prim,channel,chunk,step,slice
 * times in integer picoseconds, kind/track/prim by name, qp/op -1 for none.
 * Same errors as cc_trace_write_chrome(). */
int cc_trace_write_csv(const struct cc_trace *t, const char *path);

/* What --trace FILE writes: CSV when the name ends in ".csv" (for
 * scripts/plot.sh timeline and cclab compare), Chrome trace JSON otherwise
 * (for Perfetto).  Same errors as the two writers. */
int cc_trace_write(const struct cc_trace *t, const char *path);

#endif /* CCLAB_CORE_TRACE_H */
