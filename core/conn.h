/* SPDX-License-Identifier: BSD-3-Clause */
/* core/conn.h — connections between ranks, as NCCL's net transport makes
 * them (src/transport/net.cc, net_ib.cc), and the primitive steps that run
 * on them: the layer every algorithm's schedule is built from.
 *
 * A connection is one directed (sender, receiver) pair: its own RC QP on
 * each side, nslots staging slots in the receiver's memory (and a send
 * stage in the sender's), a clear-to-send word per slot in the sender's
 * memory and a flag word per slot in the receiver's.  Each slice of a
 * primitive step travels in one slot by the protocol of docs/schedule.md:
 *
 *   receiver: slot free -> post_recv -> RDMA WRITE (inline, mostly
 *             unsignaled) of "slice j may come" into the sender's CTS word
 *   sender:   slot data ready (copy/reduce into its send-stage slot) and
 *             CTS seen (wait_mem) -> post_send -> doorbell -> poll
 *   receiver: completion (write_imm, send_recv) or flag (write_flag) seen
 *             -> reduce/copy out of the slot -> slot free again
 *
 * An algorithm (core/ring.c, ...) hands cc_conns_build() its largest
 * message, its connections and its walk, and the build runs four phases:
 *   1. the algorithm's cc_conns_add for every connection;
 *   2. every rank's buffers (after its input and output, which come first:
 *      CC_CONN_B_IN, CC_CONN_B_OUT), MRs, CQ and QPs;
 *   3. the walk counting: cc_conns_count for every step of every rank
 *      (how many slices each connection carries: the receiver invites only
 *      what will come);
 *   4. per rank, the first slots invited, then the walk emitting:
 *      cc_conns_step / cc_conns_exchange for every step in order.
 * Steps name their connections by the rank's own end indices: the i-th
 * connection added with the rank as sender is its send end i, the j-th
 * with it as receiver its recv end j.
 */
#ifndef CCLAB_CORE_CONN_H
#define CCLAB_CORE_CONN_H

#include <stddef.h>
#include <stdint.h>

#include "algo.h"
#include "schedule.h"

#define CC_CONN_NONE UINT32_MAX

/* The user buffers every algorithm adds first, in this order. */
enum { CC_CONN_B_IN, CC_CONN_B_OUT };

/* One end of a connection, as one rank sees it. */
struct cc_conn_end {
	uint32_t peer;
	uint16_t channel;
	uint32_t qp;        /* this rank's first QP of the connection */
	uint32_t nqp;       /* its QPs, qp .. qp + nqp - 1: slice j goes on
			     * qp + j % nqp (NCCL_IB_QPS_PER_CONNECTION) */
	uint8_t split;      /* or every slice cut over all of them
			     * (NCCL_IB_SPLIT_DATA_ON_QPS) */
	uint64_t seq;       /* slices so far */
	uint64_t total;     /* slices the connection carries */
	uint32_t last_post; /* last ibv_post_send call (its doorbell) on the QP */
	uint32_t last_recv; /* last post_recv on it: the RQ is consumed in post order */
	uint32_t *slot_free; /* op after which the slot may be refilled */
	uint32_t *recv_wqe;  /* receiver: post_recv of the slice in each slot */
	uint32_t *cts_sent;  /* receiver: doorbell of the slot's latest CTS */
	uint32_t *cts_poll;  /* receiver: poll of the slot's last signaled CTS */
	uint32_t *data_poll; /* receiver, LL protocols: poll of the slot's data CQE */
	/* receiver, where NCCL flushes (conn.c flush_on()): the loopback
	 * QP of the GDR flush, the host word its READs land in, and the
	 * last flush's doorbell; CC_CONN_NONE otherwise. */
	uint32_t flush_qp, flush_buf, last_flush;
};

struct cc_conn_rank {
	struct cc_conn_end *send, *recv;
	uint32_t nsend, nrecv;
	/* Where the rank's connection resources start (phase 2):
	 * buffers and MRs alike send stages, recv stages, CTS words, flag
	 * words, one per end in end order, then a flush word per receive end
	 * that flushes; then one CQ. */
	uint32_t buf0, mr0, cq;
};

/* The slots a slice spans (cc_coll_params.slice_steps; 1 unless it
 * divides the slots), and a slice's bytes. */
static inline uint32_t cc_conns_slice_steps(const struct cc_coll_params *p)
{
	return p->slice_steps > 1 && p->nslots % p->slice_steps == 0 ? p->slice_steps : 1;
}

static inline uint64_t cc_conns_slice_bytes(const struct cc_coll_params *p)
{
	return p->slot_bytes * cc_conns_slice_steps(p);
}

/* How a step of p is cut (conns_init()): NCCL's SlicePerChunk with the
 * Simple protocol and slice_steps, its smallest slice in elements; 1 and
 * 0 where a step is cut in slots. */
void cc_conns_cut(const struct cc_coll_params *p, uint32_t *spc, uint64_t *min);

/* The slices' size of a step of nelem elements cut so, slot elements at
 * most (NCCL's sliceSize, src/device/prims_simple.h genericOp). */
static inline uint64_t cc_conns_cut_elems(uint32_t spc, uint64_t min, uint64_t slot,
					  uint64_t nelem)
{
	uint64_t n;

	if (spc <= 1)
		return slot;
	n = (nelem + 16ull * spc - 1) / (16ull * spc) * 16;
	if (n < min)
		n = min;
	return n < slot ? n : slot;
}

struct cc_conns {
	struct cc_schedule *s;
	const struct cc_coll_params *p;
	uint32_t k, nslots;
	size_t es;
	uint64_t slot_elems; /* largest slice */
	/* How a Simple step is cut (cc_conns_slice_elems()): NCCL's
	 * SlicePerChunk, and its smallest slice, 1/32 of a full one. */
	uint32_t slice_per_chunk;
	uint64_t slice_min;
	uint64_t slot_stride; /* bytes a slot takes: slot_elems' data, or lines */
	struct cc_conn_rank *rank;
	/* Each rank's reduces and copies run one after the other, in the
	 * order emitted, as one GPU kernel (or CPU thread) runs NCCL's
	 * primitives: what an algorithm needs that reads its output back
	 * (halving-doubling).  The ring does not: each of its steps reads
	 * only what arrives and the input. */
	int serial;
	uint32_t *last_calc; /* per rank, with serial */
	uint32_t **marked;   /* per rank: the marked step's calc per slice */
	uint64_t *nmarked;   /* its capacity, slices */
	int oom;             /* an allocation failed while emitting */
	int flag_wrap;       /* a connection has more slices than LL's flags count */
	uint64_t deadline_ns; /* cc_clock_ns() at which the build stops; 0 never */
	uint32_t since_check; /* slices since the clock was last read */
	int timed_out;       /* the deadline passed: the build stopped */
	/* Where ops go while a generator makes them (core/gen.c): a view of
	 * the rank's op arrays with its own count; NULL: the schedule. */
	struct cc_rank_sched *out;
};

/* A primitive step of one rank: `nelem` elements from input offset
 * in_off (elements) and to output offset out_off, received on recv end
 * `recv` and/or sent on send end `send` (CC_CONN_NONE for neither) as the
 * primitive implies (NCCL's prims: send, recvReduceSend, ...). */
/* NCCL's thread block (src/include/device.h, src/enqueue.cc
 * computeColl): NCCL_MAX_NTHREADS 640 threads, 20 warps, for the tree and
 * NVLS; the ring's block NCCL_SIMPLE_MAX_NTHREADS 512 (16 warps that move
 * data, plus one for sync), NCCL_LL_MAX_NTHREADS 512 or
 * NCCL_LL128_MAX_NTHREADS 640. */
#define CC_NCCL_MAX_WARPS 20u
#define CC_NCCL_SIMPLE_WARPS 16u

/* The warps of a ring's block (and of every block that is not the tree's
 * or NVLS's) with protocol p. */
static inline uint8_t cc_nccl_block_warps(enum cc_proto p)
{
	return p == CC_PROTO_LL128 ? CC_NCCL_MAX_WARPS : CC_NCCL_SIMPLE_WARPS;
}

struct cc_conn_step {
	enum cc_prim prim;
	uint32_t step;   /* index in the loop */
	uint32_t chunk;  /* tag: loop * k + chunk (or block) index */
	uint64_t in_off;
	uint64_t out_off;
	uint64_t nelem;
	uint32_t recv, send;
	/* The rank's own operand (send, reduce) is read from the output at
	 * in_off instead of the input: the output accumulates, as in
	 * halving-doubling. */
	uint8_t src_out;
	/* This step makes final values: avg divides by k here (NCCL's
	 * FuncSumPostDiv, applied once). */
	uint8_t final;
	/* Without `serial`, what orders a step after another of the same
	 * rank that wrote what it reads: `mark` records each slice's reduce
	 * or copy, and slice t of a step with `after` waits for the marked
	 * step's slice t (the same elements when both steps cover the same
	 * range; the tree's reduce of a second child, its sends down). */
	uint8_t mark, after;
	uint16_t channel; /* the tag's: the tree of a double binary tree */
	uint8_t group;    /* the tag's (cc_tag.group) */
	/* Its thread group's warps (cc_op_calc.warps); 0, what an
	 * initialiser leaves: cc_nccl_block_warps(). */
	uint8_t warps;
	/* An op of the rank every slice's reduce or copy also waits for:
	 * what wrote its own operand outside the connections (NVLSTree's
	 * multicast READ, core/nvls.c).  0, what an initialiser leaves, is
	 * none: a rank's first op is never the one a step waits for. */
	uint32_t dep;
	/* When not NULL: slice t's reduce or copy is stored at calcs[t], so
	 * that work outside the connections can wait for the step's data. */
	uint32_t *calcs;
};

/* Whether a primitive receives / sends. */
int cc_prim_recvs(enum cc_prim p);
int cc_prim_sends(enum cc_prim p);

/* Every rank's input and output (CC_CONN_B_IN, CC_CONN_B_OUT): what an
 * algorithm adds first. */
void cc_conns_user_buffers(struct cc_schedule *s, const struct cc_coll_params *p);

/* An algorithm's walk over rank r's steps: walk(ctx, r, 1) must call
 * cc_conns_count for every step, walk(ctx, r, 0) emit them
 * (cc_conns_step, cc_conns_exchange), in order. */
typedef void (*cc_conns_walk_fn)(void *ctx, uint32_t r, int counting);

/* An algorithm on connections, as cc_conns_build() needs it. */
struct cc_conns_algo {
	uint64_t most;  /* its largest message, elements: slots are no larger */
	int serial;     /* cc_conns.serial */
	/* Phase 1's connections (cc_conns_add); the algorithm keeps c for its
	 * walk.  0, or -1 (out of memory). */
	int (*connect)(void *ctx, struct cc_conns *c);
	/* Phase 2's resources of its own, added to every rank before the
	 * connections' (so their indices do not depend on a rank's
	 * connections); NULL for none. */
	void (*resources)(void *ctx, struct cc_schedule *s);
	cc_conns_walk_fn walk;
	void *ctx;
};

/* The whole build: the schedule with every rank's input and output, then
 * phases 1 to 4.  NULL with errno ENOMEM when memory runs out, EOVERFLOW
 * when LL's flags would repeat, ETIME past the deadline. */
struct cc_schedule *cc_conns_build(const struct cc_coll_params *p, const struct cc_conns_algo *a);
/* The deadline (cc_clock_ns() time; 0 none) of the builds that follow on
 * this thread: cc_build_with() sets it around its builder and clears it. */
void cc_conns_set_deadline(uint64_t ns);
/* That deadline, for a builder that makes no connections (core/nvls.c). */
uint64_t cc_conns_deadline(void);
/* The builds that follow on this thread emit only rank `rank`'s ops
 * (cc_build_opts.one_rank; CC_CONN_NONE: every rank's, the default);
 * every rank's resources are still built.  cc_conns_builds_rank(): whether
 * they emit rank r's, for a builder's own loop over ranks (core/nvls.c). */
void cc_conns_set_one_rank(uint32_t rank);
bool cc_conns_builds_rank(uint32_t r);

/* Connection from -> to on channel ch (its buffers' and QPs' channel): 0,
 * or -1 (out of memory). */
int cc_conns_add(struct cc_conns *c, uint32_t from, uint32_t to, uint16_t ch);
/* The same, and the connection's end indices: *s at from, *d at to. */
int cc_conns_link(struct cc_conns *c, uint32_t from, uint32_t to, uint16_t ch, uint32_t *s,
		  uint32_t *d);
void cc_conns_count(struct cc_conns *c, uint32_t r, const struct cc_conn_step *st);
/* Where rank r's ops go: its schedule, or the generator's view of the
 * part being made (cc_conns.out); an algorithm that adds ops of its own
 * beside its steps adds them there. */
struct cc_rank_sched *cc_conns_ops_of(struct cc_conns *c, uint32_t r);
/* Phase 4's start for rank r: the first slots invited. */
void cc_conns_start(struct cc_conns *c, uint32_t r);
void cc_conns_step(struct cc_conns *c, uint32_t r, const struct cc_conn_step *st);
/* The size of the slices a step of nelem elements is cut into (the last
 * may be shorter), and how many: slot_elems each, or with
 * cc_coll_params.slice_steps NCCL's cut of a short step in
 * slice_per_chunk. */
uint64_t cc_conns_slice_elems(const struct cc_conns *c, uint64_t nelem);
uint64_t cc_conns_nslices(const struct cc_conns *c, uint64_t nelem);
/* Two steps of rank r, a send and a receive on different connections,
 * slice by slice interleaved (NCCL's sendrecv): two ranks that exchange
 * more than nslots slices each must, or both wait for the other's
 * clear-to-send. */
void cc_conns_exchange(struct cc_conns *c, uint32_t r, const struct cc_conn_step *send,
		       const struct cc_conn_step *recv);
/* ---- a schedule generated as it runs (core/gen.c) ----
 * cc_conns_prepare(): phases 1 to 3 of cc_conns_build() (every rank's
 * resources and its connections' counts) into *s, and c kept for phase 4,
 * which the generator runs rank by rank, step by step, with c->out set:
 * 0, -ENOMEM, or -ETIME past the build's deadline.  cc_conns_release() frees c.  Rank r's
 * connection state saved and put back (a dry run that counts its ops
 * leaves it as it found it). */
int cc_conns_prepare(struct cc_conns *c, const struct cc_coll_params *p,
		     const struct cc_conns_algo *a, struct cc_schedule **s);
void cc_conns_release(struct cc_conns *c);
struct cc_conns_saved {
	struct cc_conn_end *ends; /* send ends, then recv ends */
	uint32_t *slots;
	uint32_t last_calc;
};
int cc_conns_save(const struct cc_conns *c, uint32_t r, struct cc_conns_saved *sv);
void cc_conns_restore(struct cc_conns *c, uint32_t r, const struct cc_conns_saved *sv);
void cc_conns_saved_free(struct cc_conns_saved *sv);

/* Where an algorithm's walk sends its steps: to the schedule being built
 * (counting, then emitting) or, for a primitive listing (core/algo.h
 * cc_algo_primitives), to a callback, without any connections.  One walk
 * serves both, so the listing is what the schedule does. */
struct cc_walker {
	struct cc_conns *c;   /* NULL when listing */
	int counting;
	cc_prim_fn list;      /* listing: each step as NCCL's primitive */
	void *list_ctx;
};
void cc_walk_step(struct cc_walker *w, uint32_t r, const struct cc_conn_step *st);
/* A send and a receive at once: cc_conns_exchange when emitting. */
void cc_walk_exchange(struct cc_walker *w, uint32_t r, const struct cc_conn_step *send,
		      const struct cc_conn_step *recv);
/* Rank r's send end to (recv end from) peer on channel ch; 0 when
 * listing. */
uint32_t cc_walk_to(const struct cc_walker *w, uint32_t r, uint32_t peer, uint16_t ch);
uint32_t cc_walk_from(const struct cc_walker *w, uint32_t r, uint32_t peer, uint16_t ch);

/* Rank r's end to (from) peer on channel ch: the first one added;
 * CC_CONN_NONE if none. */
uint32_t cc_conns_send_to(const struct cc_conns *c, uint32_t r, uint32_t peer, uint16_t ch);
uint32_t cc_conns_recv_from(const struct cc_conns *c, uint32_t r, uint32_t peer, uint16_t ch);

#endif /* CCLAB_CORE_CONN_H */
