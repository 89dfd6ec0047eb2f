/* SPDX-License-Identifier: BSD-3-Clause */
/* core/direct.c — direct reduce-scatter, all-gather and allreduce: every
 * rank exchanges with every other rank itself, k-1 point-to-point steps
 * instead of the ring's relay through k-1 neighbours (NCCL's
 * ncclTransportP2p "direct" patterns; MPI's pairwise exchange), on the
 * connections of core/conn.h.
 *
 * Step i (1 .. k-1) of rank r is a shift: it sends to r+i and receives
 * from r-i (mod k), one interleaved exchange slice by slice, so every
 * step is a permutation in which each rank has one send and one receive
 * in flight, and none waits on a rank that waits on it.
 *
 *   reduce-scatter  sends block r+i of its input; reduces what arrives
 *                   into its own block (the first with its input, then
 *                   into the output, which accumulates): (k-1) N out;
 *   all-gather      copies its input into block r of the output, then
 *                   sends its input and receives block r-i: (k-1) N out;
 *   allreduce       both over the k blocks of one array: the reduce-
 *                   scatter, then the all-gather of the reduced block;
 *   all-to-all      copies its own block, then sends block r+i of its
 *                   input and receives block r-i of its output;
 *   broadcast,      a flat tree: the root sends to (receives from) every
 *   reduce          rank in turn, k-1 messages through its one link;
 *   sendrecv        one shift: its input to r+1, r-1's input into its
 *                   output (nccl-tests' sendrecv_perf), N out.
 *
 * Every rank talks to k-1 others (sendrecv: 2), with a QP pair and
 * staging each: the reason it is for small k (and the fewest steps at any
 * k: one latency per peer, none relayed).  Reduces accumulate in the
 * output, so a rank's reduces and copies run in order (cc_conns.serial).
 *
 * Channels (--channels C) are the channels NCCL cuts a point-to-point
 * operation over (at most p2pnChannelsPerPeer; core/nccl_p2p.c): every
 * message is cut into C contiguous parts, part c on its own connection of
 * channel c to the same peer, the C exchanges of a shift one after
 * another in the walk and, where nothing is reduced, in flight together.
 */
#include "algo.h"
#include "algo_int.h"
#include "conn.h"


#define NONE CC_CONN_NONE

static uint32_t channels(const struct cc_coll_params *p)
{
	return p->nchannels ? p->nchannels : 1;
}

struct direct {
	const struct cc_coll_params *p;
	uint32_t k, nch;
	struct cc_walker w;
};

/* Channel ch's part of a message of len elements at off: *off moves to
 * the part, its length is returned. */
static uint64_t part(const struct direct *d, uint32_t ch, uint64_t *off, uint64_t len)
{
	uint64_t a = (uint64_t)((unsigned __int128)len * ch / d->nch);
	uint64_t b = (uint64_t)((unsigned __int128)len * (ch + 1) / d->nch);

	*off += a;
	return b - a;
}

/* Rank r's send end to (recv end from) peer on channel ch. */
static uint32_t to_peer(struct direct *d, uint32_t r, uint32_t peer, uint32_t ch)
{
	return cc_walk_to(&d->w, r, peer, (uint16_t)ch);
}

static uint32_t from_peer(struct direct *d, uint32_t r, uint32_t peer, uint32_t ch)
{
	return cc_walk_from(&d->w, r, peer, (uint16_t)ch);
}

/* The send step to `to` and the receive step from `from`, each cut over
 * the channels: C exchanges, exchange c moving part c of both on channel
 * c's connections (the steps' other fields as given). */
static void exchange(struct direct *d, uint32_t r, const struct cc_conn_step *send,
		     const struct cc_conn_step *recv, uint32_t to, uint32_t from)
{
	for (uint32_t ch = 0; ch < d->nch; ch++) {
		struct cc_conn_step s = *send, v = *recv;
		uint64_t so = 0, ro = 0;

		s.nelem = part(d, ch, &so, send->nelem);
		s.in_off += so;
		s.out_off += so;
		v.nelem = part(d, ch, &ro, recv->nelem);
		v.in_off += ro;
		v.out_off += ro;
		s.channel = v.channel = (uint16_t)ch;
		s.send = to_peer(d, r, to, ch);
		v.recv = from_peer(d, r, from, ch);
		cc_walk_exchange(&d->w, r, &s, &v);
	}
}

/* Allreduce's block b of k over the one array: as even as integers allow. */
static uint64_t block_off(const struct direct *d, uint32_t b)
{
	return (uint64_t)((unsigned __int128)d->p->count * b / d->k);
}

/* The reduce-scatter phase: blocks at `stride` elements (count for
 * reduce-scatter, whose input is k blocks of count; 0 with `ar` for
 * allreduce's uneven blocks of one array). */
static void reduce_phase(struct direct *d, uint32_t r, int ar)
{
	uint64_t n = d->p->count;

	for (uint32_t i = 1; i < d->k; i++) {
		uint32_t to = (r + i) % d->k, from = (r + d->k - i) % d->k;
		uint64_t go = ar ? block_off(d, to) : to * n;
		uint64_t glen = ar ? block_off(d, to + 1) - go : n;
		uint64_t mine = ar ? block_off(d, r) : 0;
		uint64_t mlen = ar ? block_off(d, r + 1) - mine : n;
		/* The own operand: the input's block r first, then the output. */
		uint64_t own = i == 1 ? (ar ? mine : r * n) : mine;
		struct cc_conn_step send = { .prim = CC_PRIM_SEND, .step = i - 1, .chunk = to,
			    .in_off = go, .out_off = go, .nelem = glen, .recv = NONE };
		struct cc_conn_step recv = { .prim = CC_PRIM_RECV_REDUCE_COPY, .step = i - 1,
			    .chunk = r, .in_off = own, .out_off = mine, .nelem = mlen,
			    .send = NONE, .src_out = i > 1, .final = i == d->k - 1 };

		exchange(d, r, &send, &recv, to, from);
	}
}

/* The all-gather phase: send the own block (all-gather: the input;
 * allreduce: block r of the output), receive block r-i into the output. */
static void gather_phase(struct direct *d, uint32_t r, int ar, uint32_t step0)
{
	uint64_t n = d->p->count;
	uint64_t mine = ar ? block_off(d, r) : 0;
	uint64_t mlen = ar ? block_off(d, r + 1) - mine : n;

	if (!ar) /* the own block, input to output */
		cc_walk_step(&d->w, r, &(struct cc_conn_step){ .prim = CC_PRIM_COPY,
			    .step = step0, .chunk = r, .out_off = r * n, .nelem = n,
			    .recv = NONE, .send = NONE });
	for (uint32_t i = 1; i < d->k; i++) {
		uint32_t to = (r + i) % d->k, from = (r + d->k - i) % d->k;
		uint64_t theirs = ar ? block_off(d, from) : from * n;
		uint64_t tlen = ar ? block_off(d, from + 1) - theirs : n;
		struct cc_conn_step send = { .prim = CC_PRIM_SEND, .step = step0 + i,
			    .chunk = r, .in_off = mine, .out_off = mine, .nelem = mlen,
			    .recv = NONE, .src_out = (uint8_t)ar };
		struct cc_conn_step recv = { .prim = CC_PRIM_RECV, .step = step0 + i,
			    .chunk = from, .in_off = theirs, .out_off = theirs, .nelem = tlen,
			    .send = NONE };

		exchange(d, r, &send, &recv, to, from);
	}
}

/* Broadcast and reduce as a flat tree: the root sends its input to each
 * rank (broadcast), or each rank sends its input to the root, which folds
 * them into its output in turn (reduce): k-1 messages through the root's
 * link, one step for everyone else. */
static void flat_phase(struct direct *d, uint32_t r)
{
	uint64_t n = d->p->count;
	uint32_t root = d->p->root;
	int bcast = d->p->coll == CC_BROADCAST;

	if (r != root) {
		for (uint32_t ch = 0; ch < d->nch; ch++) {
			struct cc_conn_step st = { .prim = bcast ? CC_PRIM_RECV : CC_PRIM_SEND,
						   .chunk = r, .channel = (uint16_t)ch,
						   .recv = NONE, .send = NONE };

			st.nelem = part(d, ch, &st.in_off, n);
			st.out_off = st.in_off;
			if (bcast)
				st.recv = from_peer(d, r, root, ch);
			else
				st.send = to_peer(d, r, root, ch);
			cc_walk_step(&d->w, r, &st);
		}
		return;
	}
	if (bcast)
		cc_walk_step(&d->w, r, &(struct cc_conn_step){ .prim = CC_PRIM_COPY, .chunk = r,
							       .nelem = n, .recv = NONE,
							       .send = NONE });
	for (uint32_t i = 1; i < d->k; i++) {
		uint32_t peer = (root + i) % d->k;

		for (uint32_t ch = 0; ch < d->nch; ch++) {
			struct cc_conn_step st = { .step = i, .chunk = peer, .channel = (uint16_t)ch,
						   .recv = NONE, .send = NONE };

			st.nelem = part(d, ch, &st.in_off, n);
			st.out_off = st.in_off;
			if (bcast) {
				st.prim = CC_PRIM_SEND;
				st.send = to_peer(d, r, peer, ch);
			} else {
				st.prim = CC_PRIM_RECV_REDUCE_COPY;
				st.recv = from_peer(d, r, peer, ch);
				st.src_out = i > 1;
				st.final = i == d->k - 1;
			}
			cc_walk_step(&d->w, r, &st);
		}
	}
}

/* All-to-all, pairwise: block r+i of the input to r+i, block r-i of the
 * output from r-i, after copying the own block across. */
static void alltoall_phase(struct direct *d, uint32_t r)
{
	uint64_t n = d->p->count;

	cc_walk_step(&d->w, r, &(struct cc_conn_step){ .prim = CC_PRIM_COPY, .chunk = r,
						       .in_off = r * n, .out_off = r * n,
						       .nelem = n, .recv = NONE, .send = NONE });
	for (uint32_t i = 1; i < d->k; i++) {
		uint32_t to = (r + i) % d->k, from = (r + d->k - i) % d->k;
		struct cc_conn_step send = { .prim = CC_PRIM_SEND, .step = i, .chunk = to,
					     .in_off = to * n, .nelem = n, .recv = NONE };
		struct cc_conn_step recv = { .prim = CC_PRIM_RECV, .step = i, .chunk = from,
					     .out_off = from * n, .nelem = n, .send = NONE };

		exchange(d, r, &send, &recv, to, from);
	}
}

/* Sendrecv: nccl-tests' SendRecvRunColl, ncclSend of the input to r+1 and
 * ncclRecv from r-1 in one group; one rank sends to itself (a copy). */
static void sendrecv_phase(struct direct *d, uint32_t r)
{
	uint64_t n = d->p->count;

	if (d->k == 1) {
		cc_walk_step(&d->w, r, &(struct cc_conn_step){ .prim = CC_PRIM_COPY, .nelem = n,
							       .recv = NONE, .send = NONE });
		return;
	}
	exchange(d, r,
		 &(struct cc_conn_step){ .prim = CC_PRIM_SEND, .chunk = r, .nelem = n,
					 .recv = NONE },
		 &(struct cc_conn_step){ .prim = CC_PRIM_RECV, .chunk = (r + d->k - 1) % d->k,
					 .nelem = n, .send = NONE },
		 (r + 1) % d->k, (r + d->k - 1) % d->k);
}

static void walk(struct direct *d, uint32_t r)
{
	switch (d->p->coll) {
	case CC_BROADCAST:
	case CC_REDUCE:
		flat_phase(d, r);
		break;
	case CC_ALLTOALL:
		alltoall_phase(d, r);
		break;
	case CC_SENDRECV:
		sendrecv_phase(d, r);
		break;
	case CC_REDUCESCATTER:
		reduce_phase(d, r, 0);
		break;
	case CC_ALLGATHER:
		gather_phase(d, r, 0, 0);
		break;
	default:
		reduce_phase(d, r, 1);
		gather_phase(d, r, 1, d->k - 1);
		break;
	}
}

static void walk_conns(void *ctx, uint32_t r, int counting)
{
	struct direct *d = ctx;

	d->w.counting = counting;
	walk(d, r);
}

void cc_direct_primitives(const struct cc_coll_params *p, uint32_t rank, cc_prim_fn fn,
			  void *ctx)
{
	struct direct d = { .p = p, .k = p->nranks, .nch = channels(p),
			    .w = { .list = fn, .list_ctx = ctx } };

	walk(&d, rank);
}

/* One connection per ordered pair and channel, in shift order (sendrecv:
 * shift 1 only, every rank to the next). */
static int connect(void *ctx, struct cc_conns *c)
{
	struct direct *d = ctx;
	uint32_t shifts = d->p->coll == CC_SENDRECV && d->k > 1 ? 1 : d->k - 1;

	d->w.c = c;
	for (uint32_t ch = 0; ch < d->nch; ch++)
		for (uint32_t i = 1; i <= shifts; i++)
			for (uint32_t r = 0; r < d->k; r++)
				if (cc_conns_add(c, r, (r + i) % d->k, (uint16_t)ch))
					return -1;
	return 0;
}

/* Reduces accumulate in the output, so a rank's reduces and copies run
 * in order; the others' copies write disjoint parts of it and run as
 * their data arrives. */
static int reduces(enum cc_coll c)
{
	return c == CC_ALLREDUCE || c == CC_REDUCESCATTER || c == CC_REDUCE;
}

/* The largest message: a block (allreduce: ceil(N / k)), or the whole
 * array (broadcast, reduce, sendrecv; all-to-all's count is a block
 * already), over the channels. */
static uint64_t most(const struct cc_coll_params *p)
{
	uint64_t m = p->coll == CC_ALLREDUCE ? (p->count + p->nranks - 1) / p->nranks : p->count;

	return (m + channels(p) - 1) / channels(p);
}

struct cc_schedule *cc_build_direct(const struct cc_coll_params *p)
{
	struct direct d = { .p = p, .k = p->nranks, .nch = channels(p) };
	struct cc_conns_algo a = { .most = most(p), .serial = reduces(p->coll), .connect = connect,
				   .walk = walk_conns, .ctx = &d };

	return cc_conns_build(p, &a);
}

/* A rank's steps: an exchange (a send and a receive) a peer and channel;
 * broadcast and reduce a message a peer at the root and one elsewhere. */
double cc_direct_walk_steps(const struct cc_coll_params *p)
{
	double k = p->nranks, ch = channels(p);

	switch (p->coll) {
	case CC_ALLREDUCE:
		return k * 4 * (k - 1) * ch;
	case CC_BROADCAST:
	case CC_REDUCE:
		return 2 * k * ch + k;
	case CC_SENDRECV:
		return 2 * k * ch;
	default:
		return k * (2 * (k - 1) * ch + 1);
	}
}

void cc_direct_staging(const struct cc_coll_params *p, double *conns, double *msg)
{
	/* a connection to every other rank (sendrecv: the next) per channel */
	*conns = (double)(p->coll == CC_SENDRECV ? 1 : p->nranks - 1) * channels(p);
	*msg /= channels(p);
}
