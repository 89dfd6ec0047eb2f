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
 *   reduce          rank in turn, k-1 messages through its one link.
 *
 * Every rank talks to k-1 others, with a QP pair and staging each: the
 * reason it is for small k (and the fewest steps at any k: one latency per
 * peer, none relayed).  Reduces accumulate in the output, so a rank's
 * reduces and copies run in order (cc_conns.serial).
 */
#include "algo.h"
#include "algo_int.h"
#include "conn.h"


#define NONE CC_CONN_NONE

struct direct {
	const struct cc_coll_params *p;
	uint32_t k;
	struct cc_walker w;
};

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
			    .in_off = go, .out_off = go, .nelem = glen, .recv = NONE,
			    .send = cc_walk_to(&d->w, r, to) };
		struct cc_conn_step recv = { .prim = CC_PRIM_RECV_REDUCE_COPY, .step = i - 1,
			    .chunk = r, .in_off = own, .out_off = mine, .nelem = mlen,
			    .recv = cc_walk_from(&d->w, r, from), .send = NONE,
			    .src_out = i > 1, .final = i == d->k - 1 };

		cc_walk_exchange(&d->w, r, &send, &recv);
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
			    .recv = NONE, .send = cc_walk_to(&d->w, r, to),
			    .src_out = (uint8_t)ar };
		struct cc_conn_step recv = { .prim = CC_PRIM_RECV, .step = step0 + i,
			    .chunk = from, .in_off = theirs, .out_off = theirs, .nelem = tlen,
			    .recv = cc_walk_from(&d->w, r, from), .send = NONE };

		cc_walk_exchange(&d->w, r, &send, &recv);
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
		struct cc_conn_step st = { .prim = bcast ? CC_PRIM_RECV : CC_PRIM_SEND,
					   .chunk = r, .nelem = n, .recv = NONE, .send = NONE };

		if (bcast)
			st.recv = cc_walk_from(&d->w, r, root);
		else
			st.send = cc_walk_to(&d->w, r, root);
		cc_walk_step(&d->w, r, &st);
		return;
	}
	if (bcast)
		cc_walk_step(&d->w, r, &(struct cc_conn_step){ .prim = CC_PRIM_COPY, .chunk = r,
							       .nelem = n, .recv = NONE,
							       .send = NONE });
	for (uint32_t i = 1; i < d->k; i++) {
		uint32_t peer = (root + i) % d->k;
		struct cc_conn_step st = { .step = i, .chunk = peer, .nelem = n, .recv = NONE,
					   .send = NONE };

		if (bcast) {
			st.prim = CC_PRIM_SEND;
			st.send = cc_walk_to(&d->w, r, peer);
		} else {
			st.prim = CC_PRIM_RECV_REDUCE_COPY;
			st.recv = cc_walk_from(&d->w, r, peer);
			st.src_out = i > 1;
			st.final = i == d->k - 1;
		}
		cc_walk_step(&d->w, r, &st);
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
					     .in_off = to * n, .nelem = n, .recv = NONE,
					     .send = cc_walk_to(&d->w, r, to) };
		struct cc_conn_step recv = { .prim = CC_PRIM_RECV, .step = i, .chunk = from,
					     .out_off = from * n, .nelem = n,
					     .recv = cc_walk_from(&d->w, r, from), .send = NONE };

		cc_walk_exchange(&d->w, r, &send, &recv);
	}
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
	struct direct d = { .p = p, .k = p->nranks, .w = { .list = fn, .list_ctx = ctx } };

	walk(&d, rank);
}

/* One connection per ordered pair, in shift order: step i's connection
 * is every rank's i-th send end. */
static int connect(void *ctx, struct cc_conns *c)
{
	struct direct *d = ctx;

	d->w.c = c;
	for (uint32_t i = 1; i < d->k; i++)
		for (uint32_t r = 0; r < d->k; r++)
			if (cc_conns_add(c, r, (r + i) % d->k, 0))
				return -1;
	return 0;
}

struct cc_schedule *cc_build_direct(const struct cc_coll_params *p)
{
	struct direct d = { .p = p, .k = p->nranks };
	/* The largest message: a block (allreduce: ceil(N / k)), or the whole
	 * array (broadcast, reduce; all-to-all's count is a block already). */
	struct cc_conns_algo a = {
		.most = p->coll == CC_ALLREDUCE ? (p->count + p->nranks - 1) / p->nranks : p->count,
		.serial = 1, .connect = connect, .walk = walk_conns, .ctx = &d,
	};

	return cc_conns_build(p, &a);
}

void cc_direct_staging(const struct cc_coll_params *p, double *conns, double *msg)
{
	(void)msg;
	*conns = p->nranks - 1; /* a connection to every other rank */
}
