/* SPDX-License-Identifier: BSD-3-Clause */
/* core/ring.c — ring allreduce, reduce-scatter and all-gather.
 *
 * The primitive sequence per loop is NCCL's runRing (src/device/all_reduce.h,
 * reduce_scatter.h, all_gather.h), ring order 0, 1, ..., k-1:
 *
 *   allreduce      send, (k-2) x recvReduceSend, recvReduceCopySend,
 *                  (k-2) x recvCopySend, recv                    2k-1 steps
 *   reduce-scatter send, (k-2) x recvReduceSend, recvReduceCopy  k steps
 *   all-gather     copySend, (k-2) x recvCopySend, recv          k steps
 *
 * Every directed ring edge r -> r+1 is a connection (core/conn.h: NCCL's
 * net/IB transport, one RC QP pair and nslots staging slots each), and the
 * primitives run on it by the slot protocol of docs/schedule.md.
 */
#include "algo.h"
#include "algo_int.h"
#include "conn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Progress needs the slices of one chunk to fit in what two ranks can
 * buffer on a connection: the sender's slots and the receiver's.  A
 * rank's step needs both a free send slot and an arrived slice; with a
 * chunk of 2*nslots slices or more every rank of the ring can end up
 * waiting for the next one.  NCCL keeps a chunk to NCCL_STEPS/2 steps
 * (ALLREDUCE_CHUNKSTEPS); cclab allows up to 2*nslots - 1 slices. */
int cc_ring_check(const struct cc_coll_params *p, enum cc_param *field, char *err, size_t errlen)
{
	uint64_t slices = cc_chunk_slices(p);

	if (slices < 2ull * p->nslots)
		return 0;
	if (field)
		*field = CC_PARAM_CHUNK_BYTES;
	snprintf(err, errlen, "a chunk of %llu slices (chunk %llu B / slot %llu B) cannot make "
		 "progress with %u slots per connection: at most 2*slots-1 = %u slices; raise the "
		 "slots or lower the chunk size", (unsigned long long)slices,
		 (unsigned long long)p->chunk_bytes, (unsigned long long)p->slot_bytes, p->nslots,
		 2 * p->nslots - 1);
	return -EINVAL;
}

struct ring {
	const struct cc_coll_params *p;
	cc_prim_fn user_fn; /* cc_ring_primitives' callback */
	void *user_ctx;
	struct cc_conns *c; /* the schedule's connections; NULL when listing */
	uint32_t k;
	size_t es;
	/* The channel being walked and its part of the array: elements
	 * [start, start + len) (of each block, for reduce-scatter and
	 * all-gather).  Channel c's connections are every rank's c-th. */
	uint32_t chan;
	uint64_t start, len;
};

/* ---- the chunk walk, shared by counting and emitting ---- */

/* Every step of the ring receives on the rank's one recv end (from r-1)
 * and sends on its one send end (to r+1), as its primitive says. */
typedef void (*step_fn)(struct ring *g, uint32_t r, const struct cc_conn_step *st);

static uint32_t mod(int64_t a, uint32_t k)
{
	int64_t m = a % (int64_t)k;
	return (uint32_t)(m < 0 ? m + k : m);
}

/* Rail order (cc_coll_params.ring_order): on M >= 2 nodes of G >= 2
 * ranks, channel ch's ring goes up the locals of even nodes from c = ch mod
 * G (c, c+1, ..., c-1) and down those of odd nodes from c-1 (c-1, ...,
 * c), so each node is left from and entered at GPUs of one rail: c-1 from
 * an even node to the next, c from an odd one (and between the last node
 * and the first when M is even; M odd leaves one crossing between rails).
 * NCCL's graph search finds such rings on rail-optimised nodes (a NIC per
 * GPU, NET n -> GPU ... GPU -> NET n); channels rotate c so they use
 * different rails.  Otherwise (rank order, or no nodes) position = rank. */
static int rail_order(const struct cc_coll_params *p)
{
	uint32_t g = p->ranks_per_node;

	return p->ring_order == CC_RING_ORDER_RAIL && g >= 2 && p->nranks % g == 0 &&
	       p->nranks / g >= 2;
}

static uint32_t ring_rank(const struct cc_coll_params *p, uint32_t ch, uint32_t pos)
{
	uint32_t g = p->ranks_per_node, node, i, c;

	if (!rail_order(p))
		return pos;
	node = pos / g;
	i = pos % g;
	c = ch % g;
	return node * g + (node % 2 ? mod((int64_t)c - 1 - i, g) : (c + i) % g);
}

static uint32_t ring_pos(const struct cc_coll_params *p, uint32_t ch, uint32_t r)
{
	uint32_t g = p->ranks_per_node, node, l, c;

	if (!rail_order(p))
		return r;
	node = r / g;
	l = r % g;
	c = ch % g;
	return node * g + (node % 2 ? mod((int64_t)c - 1 - l, g) : mod((int64_t)l - c, g));
}

/* allreduce: all_reduce.h runRing.  Chunk c of a loop covers elements
 * [off + c*real, off + (c+1)*real) with real = min(chunk, ceil(rest / k)). */
static void walk_allreduce(struct ring *g, uint32_t r, step_fn fn)
{
	uint32_t k = g->k;
	uint64_t n = g->len, chunk = g->p->chunk_bytes / g->es, b0 = g->start;
	uint64_t loop_size = chunk * k;
	uint32_t loop = 0, pos = ring_pos(g->p, g->chan, r);

	for (uint64_t off = 0; off < n; off += loop_size, loop++) {
		uint64_t rest = n - off;
		uint64_t real = chunk < (rest + k - 1) / k ? chunk : (rest + k - 1) / k;
		uint32_t s = 0;
		struct cc_conn_step st;
#define AR_STEP(PRIM, C)                                                              \
	do {                                                                          \
		uint32_t c_ = (C);                                                    \
		uint64_t o_ = (uint64_t)c_ * real;                                    \
		st = (struct cc_conn_step){                                           \
			.prim = PRIM, .step = s++, .chunk = loop * k + c_,            \
			.in_off = b0 + off + o_, .out_off = b0 + off + o_,            \
			.nelem = o_ < rest ? (rest - o_ < real ? rest - o_ : real) : 0, \
			.recv = g->chan, .send = g->chan, .channel = (uint16_t)g->chan, \
			.final = PRIM == CC_PRIM_RECV_REDUCE_COPY_SEND };             \
		fn(g, r, &st);                                                        \
	} while (0)
		AR_STEP(CC_PRIM_SEND, mod((int64_t)pos - 1, k));
		for (uint32_t j = 2; j < k; j++)
			AR_STEP(CC_PRIM_RECV_REDUCE_SEND, mod((int64_t)pos - j, k));
		AR_STEP(CC_PRIM_RECV_REDUCE_COPY_SEND, pos);
		for (uint32_t j = 1; j + 1 < k; j++)
			AR_STEP(CC_PRIM_RECV_COPY_SEND, mod((int64_t)pos - j, k));
		AR_STEP(CC_PRIM_RECV, mod((int64_t)pos + 1, k));
#undef AR_STEP
	}
}

/* reduce-scatter and all-gather: reduce_scatter.h / all_gather.h runRing.
 * The array is k blocks of count elements; a loop moves the same chunk of
 * every block, one block per step. */
static void walk_blocks(struct ring *g, uint32_t r, step_fn fn)
{
	uint32_t k = g->k;
	uint64_t n = g->len, stride = g->p->count, chunk = g->p->chunk_bytes / g->es;
	uint64_t b0 = g->start;
	int rs = g->p->coll == CC_REDUCESCATTER;
	uint32_t loop = 0, pos = ring_pos(g->p, g->chan, r);
	/* Blocks belong to ranks: the block of the rank D places from this one. */
#define at(D) ring_rank(g->p, g->chan, mod((int64_t)pos + (D), k))

	for (uint64_t off = 0; off < n; off += chunk, loop++) {
		uint64_t nelem = n - off < chunk ? n - off : chunk;
		uint32_t s = 0;
		struct cc_conn_step st;
#define BLOCK_STEP(PRIM, B)                                                                 \
	do {                                                                                \
		uint32_t b_ = (B);                                                          \
		st = (struct cc_conn_step){                                                 \
			.prim = PRIM, .step = s++, .chunk = loop * k + b_,                  \
			.in_off = (rs ? b_ * stride : 0) + b0 + off,                        \
			.out_off = (rs ? 0 : b_ * stride) + b0 + off, .nelem = nelem,       \
			.recv = g->chan, .send = g->chan, .channel = (uint16_t)g->chan,     \
			.final = PRIM == CC_PRIM_RECV_REDUCE_COPY };                        \
		fn(g, r, &st);                                                              \
	} while (0)
		if (rs) {
			BLOCK_STEP(CC_PRIM_SEND, at(-1));
			for (uint32_t j = 2; j < k; j++)
				BLOCK_STEP(CC_PRIM_RECV_REDUCE_SEND, at(-(int64_t)j));
			BLOCK_STEP(CC_PRIM_RECV_REDUCE_COPY, r);
		} else {
			BLOCK_STEP(CC_PRIM_COPY_SEND, r);
			for (uint32_t j = 1; j + 1 < k; j++)
				BLOCK_STEP(CC_PRIM_RECV_COPY_SEND, at(-(int64_t)j));
			BLOCK_STEP(CC_PRIM_RECV, at(1));
		}
#undef BLOCK_STEP
	}
#undef at
}

/* broadcast and reduce: broadcast.h / reduce.h runRing.  The ring starts
 * at the root (broadcast: copySend, recvCopySend ..., recv at root-1) or
 * ends there (reduce: send at root+1, recvReduceSend ..., recvReduceCopy
 * at the root); one primitive per rank per chunk, the chunks pipelined
 * around the ring. */
static void walk_rooted(struct ring *g, uint32_t r, step_fn fn)
{
	uint32_t k = g->k, root = g->p->root;
	uint64_t n = g->len, chunk = g->p->chunk_bytes / g->es;
	int bcast = g->p->coll == CC_BROADCAST;
	/* Position from the ring's first rank: the root, or root+1. */
	uint32_t rp = ring_pos(g->p, g->chan, r), rootp = ring_pos(g->p, g->chan, root);
	uint32_t pos = bcast ? mod((int64_t)rp - rootp, k) : mod((int64_t)rp - rootp - 1, k);
	enum cc_prim prim = pos == 0 ? (bcast ? CC_PRIM_COPY_SEND : CC_PRIM_SEND)
			    : pos == k - 1 ? (bcast ? CC_PRIM_RECV : CC_PRIM_RECV_REDUCE_COPY)
			    : (bcast ? CC_PRIM_RECV_COPY_SEND : CC_PRIM_RECV_REDUCE_SEND);
	uint32_t loop = 0;

	for (uint64_t off = 0; off < n; off += chunk, loop++) {
		struct cc_conn_step st = {
			.prim = prim, .chunk = loop, .in_off = g->start + off,
			.out_off = g->start + off, .nelem = n - off < chunk ? n - off : chunk,
			.recv = g->chan, .send = g->chan, .channel = (uint16_t)g->chan,
			.final = prim == CC_PRIM_RECV_REDUCE_COPY,
		};

		fn(g, r, &st);
	}
}

/* Channel by channel (NCCL's nChannels): channel c takes elements
 * [c N / C, (c+1) N / C) of the array (of each block), on its own ring of
 * connections.  NCCL interleaves the channels' chunks within a loop; a
 * contiguous part each moves the same bytes over the same links. */
static void walk(struct ring *g, uint32_t r, step_fn fn)
{
	uint32_t nch = g->p->nchannels ? g->p->nchannels : 1;
	uint64_t n = g->p->count;

	for (g->chan = 0; g->chan < nch; g->chan++) {
		g->start = (uint64_t)((unsigned __int128)n * g->chan / nch);
		g->len = (uint64_t)((unsigned __int128)n * (g->chan + 1) / nch) - g->start;
		if (g->p->coll == CC_ALLREDUCE)
			walk_allreduce(g, r, fn);
		else if (cc_coll_rooted(g->p->coll))
			walk_rooted(g, r, fn);
		else
			walk_blocks(g, r, fn);
	}
}

static void count_step(struct ring *g, uint32_t r, const struct cc_conn_step *st)
{
	cc_conns_count(g->c, r, st);
}

static void emit_step(struct ring *g, uint32_t r, const struct cc_conn_step *st)
{
	cc_conns_step(g->c, r, st);
}

static void walk_conns(void *ctx, uint32_t r, int counting)
{
	walk(ctx, r, counting ? count_step : emit_step);
}

static void emit_local_copy(struct cc_schedule *s, const struct cc_coll_params *p)
{
	/* k = 1: NCCL copies sendbuff to recvbuff (one step); avg divides by 1. */
	if (p->count == 0)
		return;
	struct cc_op op = { .kind = CC_OP_COPY,
			    .tag = { .prim = CC_PRIM_COPY, .chunk = 0, .step = 0 } };
	op.u.calc = (struct cc_op_calc){
		.nsrc = 1, .ndst = 1, .src = { { CC_CONN_B_IN, 0 } },
		.dst = { { CC_CONN_B_OUT, 0 } }, .count = p->count, .dtype = p->dtype,
		.redop = p->redop, .postdiv = 1,
		.where = p->mem == CC_MEM_GPU ? CC_ON_GPU : CC_ON_CPU,
		.warps = cc_nccl_block_warps(p->proto),
	};
	cc_add_op(&s->ranks[0], &op, NULL, 0);
}

static void report_step(struct ring *g, uint32_t r, const struct cc_conn_step *st)
{
	struct cc_prim_step ps = { st->prim, st->channel, st->chunk, st->step, st->nelem };
	g->user_fn(g->user_ctx, r, &ps);
}

void cc_ring_primitives(const struct cc_coll_params *p, uint32_t rank, cc_prim_fn fn, void *ctx)
{
	struct ring g = { .p = p, .user_fn = fn, .user_ctx = ctx, .k = p->nranks,
			  .es = cc_dtype_size(p->dtype) };
	if (p->count == 0 || rank >= p->nranks)
		return;
	if (g.k == 1) {
		struct cc_prim_step ps = { CC_PRIM_COPY, 0, 0, 0, p->count };
		fn(ctx, rank, &ps);
		return;
	}
	walk(&g, rank, report_step);
}

/* Channel by channel, every rank to the next of the channel's order: rank
 * r's send end c and recv end c are channel c's. */
static int connect(void *ctx, struct cc_conns *c)
{
	struct ring *g = ctx;

	g->c = c;
	for (uint32_t ch = 0; ch < (g->p->nchannels ? g->p->nchannels : 1); ch++)
		for (uint32_t pos = 0; pos < g->k; pos++)
			if (cc_conns_add(c, ring_rank(g->p, ch, pos), ring_rank(g->p, ch, (pos + 1) % g->k),
					 (uint16_t)ch))
				return -1;
	return 0;
}

struct cc_schedule *cc_build_ring(const struct cc_coll_params *p)
{
	struct ring g = { .p = p, .k = p->nranks, .es = cc_dtype_size(p->dtype) };
	/* The largest message: a chunk, or less when the array is smaller. */
	uint64_t chunk = p->chunk_bytes / g.es;
	uint64_t most = p->coll == CC_ALLREDUCE ? (p->count + g.k - 1) / g.k : p->count;
	struct cc_conns_algo a = { .most = most < chunk ? most : chunk, .connect = connect,
				   .walk = walk_conns, .ctx = &g };
	struct cc_schedule *s;

	if (g.k > 1)
		return cc_conns_build(p, &a);
	if ((s = cc_schedule_new(p))) {
		cc_conns_user_buffers(s, p);
		emit_local_copy(s, p);
	}
	return s;
}
