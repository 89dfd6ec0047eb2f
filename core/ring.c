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
	/* with NCCL's slices (slice_steps), a slice of ss slots in each of
	 * nslots / ss places */
	uint32_t ss = cc_conns_slice_steps(p), places = p->nslots / ss;
	uint64_t slices = cc_chunk_slices(p);

	slices = (slices + ss - 1) / ss;
	if (slices < 2ull * places)
		return 0;
	if (field)
		*field = CC_PARAM_CHUNK_BYTES;
	snprintf(err, errlen, "a chunk of %llu slices (chunk %llu B / %s %llu B) cannot make "
		 "progress with %u %s per connection: at most 2*%s-1 = %u slices; raise the "
		 "slots or lower the chunk size", (unsigned long long)slices,
		 (unsigned long long)p->chunk_bytes, ss > 1 ? "slice" : "slot",
		 (unsigned long long)cc_conns_slice_bytes(p), places,
		 ss > 1 ? "slices in flight" : "slots", ss > 1 ? "slices" : "slots",
		 2 * places - 1);
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

/* The channel's part of the array: elements [start, start + len) (of
 * each block, for reduce-scatter and all-gather). */
static void set_channel(struct ring *g, uint32_t ch)
{
	uint32_t nch = g->p->nchannels ? g->p->nchannels : 1;
	uint64_t n = g->p->count;

	g->chan = ch;
	g->start = (uint64_t)((unsigned __int128)n * ch / nch);
	g->len = (uint64_t)((unsigned __int128)n * (ch + 1) / nch) - g->start;
}

/* Steps of a loop, and loops of the channel: allreduce 2k-1 steps a loop
 * of chunk * k elements, reduce-scatter and all-gather k steps a chunk,
 * broadcast and reduce one step a chunk. */
static uint64_t loop_steps(const struct ring *g)
{
	if (g->p->coll == CC_ALLREDUCE)
		return 2ull * g->k - 1;
	return cc_coll_rooted(g->p->coll) ? 1 : g->k;
}

static uint64_t chan_steps(const struct ring *g)
{
	uint64_t chunk = g->p->chunk_bytes / g->es;
	uint64_t loop = g->p->coll == CC_ALLREDUCE ? chunk * g->k : chunk;

	return (g->len + loop - 1) / loop * loop_steps(g);
}

/* allreduce: all_reduce.h runRing, step s of a loop.  Chunk c of a loop
 * covers elements [off + c*real, off + (c+1)*real) with real = min(chunk,
 * ceil(rest / k)); the loop is send, (k-2) x recvReduceSend,
 * recvReduceCopySend, (k-2) x recvCopySend, recv. */
static void allreduce_step(const struct ring *g, uint32_t r, uint64_t loop, uint32_t s,
			   struct cc_conn_step *st)
{
	uint32_t k = g->k, pos = ring_pos(g->p, g->chan, r), c;
	uint64_t chunk = g->p->chunk_bytes / g->es, off = loop * chunk * k;
	uint64_t rest = g->len - off;
	uint64_t real = chunk < (rest + k - 1) / k ? chunk : (rest + k - 1) / k;
	enum cc_prim prim;

	if (s == 0) {
		prim = CC_PRIM_SEND;
		c = mod((int64_t)pos - 1, k);
	} else if (s + 1 < k) {
		prim = CC_PRIM_RECV_REDUCE_SEND;
		c = mod((int64_t)pos - s - 1, k);
	} else if (s + 1 == k) {
		prim = CC_PRIM_RECV_REDUCE_COPY_SEND;
		c = pos;
	} else if (s + 2 < 2 * k) {
		prim = CC_PRIM_RECV_COPY_SEND;
		c = mod((int64_t)pos - (s - k + 1), k);
	} else {
		prim = CC_PRIM_RECV;
		c = mod((int64_t)pos + 1, k);
	}
	uint64_t o = (uint64_t)c * real;

	*st = (struct cc_conn_step){
		.prim = prim, .step = s, .chunk = (uint32_t)loop * k + c,
		.in_off = g->start + off + o, .out_off = g->start + off + o,
		.nelem = o < rest ? (rest - o < real ? rest - o : real) : 0,
		.recv = g->chan, .send = g->chan, .channel = (uint16_t)g->chan,
		.final = prim == CC_PRIM_RECV_REDUCE_COPY_SEND };
}

/* reduce-scatter and all-gather: reduce_scatter.h / all_gather.h runRing.
 * The array is k blocks of count elements; a loop moves the same chunk of
 * every block, one block per step: reduce-scatter send, (k-2) x
 * recvReduceSend, recvReduceCopy; all-gather copySend, (k-2) x
 * recvCopySend, recv.  Blocks belong to ranks: the block of the rank D
 * places from this one. */
static void block_step(const struct ring *g, uint32_t r, uint64_t loop, uint32_t s,
		       struct cc_conn_step *st)
{
	uint32_t k = g->k, pos = ring_pos(g->p, g->chan, r), b;
	uint64_t stride = g->p->count, chunk = g->p->chunk_bytes / g->es, off = loop * chunk;
	int rs = g->p->coll == CC_REDUCESCATTER;
	enum cc_prim prim;
#define at(D) ring_rank(g->p, g->chan, mod((int64_t)pos + (D), k))

	if (rs) {
		prim = s == 0 ? CC_PRIM_SEND : s + 1 < k ? CC_PRIM_RECV_REDUCE_SEND
							 : CC_PRIM_RECV_REDUCE_COPY;
		b = s + 1 < k ? at(-(int64_t)s - 1) : r;
	} else {
		prim = s == 0 ? CC_PRIM_COPY_SEND : s + 1 < k ? CC_PRIM_RECV_COPY_SEND : CC_PRIM_RECV;
		b = s == 0 ? r : s + 1 < k ? at(-(int64_t)s) : at(1);
	}
#undef at
	*st = (struct cc_conn_step){
		.prim = prim, .step = s, .chunk = (uint32_t)loop * k + b,
		.in_off = (rs ? b * stride : 0) + g->start + off,
		.out_off = (rs ? 0 : b * stride) + g->start + off,
		.nelem = g->len - off < chunk ? g->len - off : chunk,
		.recv = g->chan, .send = g->chan, .channel = (uint16_t)g->chan,
		.final = prim == CC_PRIM_RECV_REDUCE_COPY };
}

/* broadcast and reduce: broadcast.h / reduce.h runRing.  The ring starts
 * at the root (broadcast: copySend, recvCopySend ..., recv at root-1) or
 * ends there (reduce: send at root+1, recvReduceSend ..., recvReduceCopy
 * at the root); one primitive per rank per chunk, the chunks pipelined
 * around the ring. */
static void rooted_step(const struct ring *g, uint32_t r, uint64_t loop, struct cc_conn_step *st)
{
	uint32_t k = g->k, root = g->p->root;
	uint64_t chunk = g->p->chunk_bytes / g->es, off = loop * chunk;
	int bcast = g->p->coll == CC_BROADCAST;
	/* Position from the ring's first rank: the root, or root+1. */
	uint32_t rp = ring_pos(g->p, g->chan, r), rootp = ring_pos(g->p, g->chan, root);
	uint32_t pos = bcast ? mod((int64_t)rp - rootp, k) : mod((int64_t)rp - rootp - 1, k);
	enum cc_prim prim = pos == 0 ? (bcast ? CC_PRIM_COPY_SEND : CC_PRIM_SEND)
			    : pos == k - 1 ? (bcast ? CC_PRIM_RECV : CC_PRIM_RECV_REDUCE_COPY)
			    : (bcast ? CC_PRIM_RECV_COPY_SEND : CC_PRIM_RECV_REDUCE_SEND);

	*st = (struct cc_conn_step){
		.prim = prim, .chunk = (uint32_t)loop, .in_off = g->start + off,
		.out_off = g->start + off, .nelem = g->len - off < chunk ? g->len - off : chunk,
		.recv = g->chan, .send = g->chan, .channel = (uint16_t)g->chan,
		.final = prim == CC_PRIM_RECV_REDUCE_COPY,
	};
}

/* Step n of rank r on the channel set_channel() chose: what a walk and a
 * generator (cc_ring_step()) both take the steps from. */
static void chan_step(const struct ring *g, uint32_t r, uint64_t n, struct cc_conn_step *st)
{
	uint64_t per = loop_steps(g);

	if (g->p->coll == CC_ALLREDUCE)
		allreduce_step(g, r, n / per, (uint32_t)(n % per), st);
	else if (cc_coll_rooted(g->p->coll))
		rooted_step(g, r, n, st);
	else
		block_step(g, r, n / per, (uint32_t)(n % per), st);
}

/* Channel by channel (NCCL's nChannels): channel c takes elements
 * [c N / C, (c+1) N / C) of the array (of each block), on its own ring of
 * connections.  NCCL interleaves the channels' chunks within a loop; a
 * contiguous part each moves the same bytes over the same links. */
static void walk(struct ring *g, uint32_t r, step_fn fn)
{
	uint32_t nch = g->p->nchannels ? g->p->nchannels : 1;

	for (uint32_t ch = 0; ch < nch; ch++) {
		set_channel(g, ch);
		for (uint64_t n = 0, steps = chan_steps(g); n < steps; n++) {
			struct cc_conn_step st;

			chan_step(g, r, n, &st);
			fn(g, r, &st);
		}
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

/* The ring on the connections' build: its largest message (a chunk, or
 * less when the array is smaller), connections and walk. */
static struct cc_conns_algo ring_algo(struct ring *g)
{
	uint64_t chunk = g->p->chunk_bytes / g->es;
	uint64_t most = g->p->coll == CC_ALLREDUCE ? (g->p->count + g->k - 1) / g->k : g->p->count;

	return (struct cc_conns_algo){ .most = most < chunk ? most : chunk, .connect = connect,
				       .walk = walk_conns, .ctx = g };
}

struct cc_schedule *cc_build_ring(const struct cc_coll_params *p)
{
	struct ring g = { .p = p, .k = p->nranks, .es = cc_dtype_size(p->dtype) };
	struct cc_conns_algo a = ring_algo(&g);
	struct cc_schedule *s;

	if (g.k > 1)
		return cc_conns_build(p, &a);
	if ((s = cc_schedule_new(p))) {
		cc_conns_user_buffers(s, p);
		emit_local_copy(s, p);
	}
	return s;
}

/* ---- the ring generated as it runs (core/gen.c) ----
 * A stream per channel: channel j's steps, as walk() takes them. */

static uint64_t gen_steps(void *ctx, uint32_t j)
{
	struct ring *g = ctx;

	set_channel(g, j);
	return chan_steps(g);
}

static void gen_step(void *ctx, uint32_t r, uint32_t j, uint64_t n)
{
	struct ring *g = ctx;
	struct cc_conn_step st;

	set_channel(g, j);
	chan_step(g, r, n, &st);
	cc_conns_step(g->c, r, &st);
}

int cc_ring_gen_prepare(const struct cc_coll_params *p, struct cc_conns *c,
			struct cc_schedule **s, struct cc_gen_walk *w)
{
	struct ring *g = calloc(1, sizeof(*g));
	struct cc_conns_algo a;
	int rc;

	if (!g)
		return -ENOMEM;
	*g = (struct ring){ .p = p, .k = p->nranks, .es = cc_dtype_size(p->dtype) };
	a = ring_algo(g);
	if ((rc = cc_conns_prepare(c, p, &a, s))) {
		free(g);
		return rc;
	}
	*w = (struct cc_gen_walk){ .ctx = g, .nstreams = p->nchannels ? p->nchannels : 1,
				   .steps = gen_steps, .step = gen_step, .free = free };
	return 0;
}
