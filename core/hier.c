/* SPDX-License-Identifier: BSD-3-Clause */
/* core/hier.c — hierarchical allreduce for multi-GPU nodes, on the
 * connections of core/conn.h.
 *
 * k = M nodes x G ranks per node (cc_coll_params.ranks_per_node); rank
 * r = node * G + l sits on node r / G with local index l = r % G.  The
 * array of n elements is cut into G blocks (as even as integers allow):
 *
 *   1. intra-node reduce-scatter, a ring over the node's G ranks (NVLink
 *      in a topology with it): send, (G-2) x recvReduceSend,
 *      recvReduceCopy — rank l ends with block l summed over its node;
 *   2. inter-node allreduce of block l, a ring over the M ranks of local
 *      index l, one per node: NCCL's runRing sequence (send,
 *      recvReduceSend, recvReduceCopySend, recvCopySend, recv) — each rail
 *      carries one ring, so on a rail-optimised fabric (GPU l of every
 *      node on leaf "rail<l>") every inter-node byte stays on its rail
 *      and no spine is crossed;
 *   3. intra-node all-gather of the blocks, a ring over the node:
 *      copySend, (G-2) x recvCopySend, recv.
 *
 * Each rank's NIC sends 2 (n/G)(M-1)/M elements instead of the flat
 * ring's 2 n (k-1)/k: the inter-node traffic shrinks by G, the intra-node
 * phases ride NVLink.  The idea of NCCL's CollNet/NVLS "tree" split and
 * of Horovod's hierarchical allreduce; phase 2's per-rail rings are the
 * rail-aware order NCCL's graph search finds on rail-optimised nodes.
 *
 * Phases 2 and 3 read what the earlier phase left in the output
 * (cc_conn_step.src_out), so each rank's reduces and copies run in order
 * (cc_conns.serial), as one kernel runs NCCL's primitives.  With G = 1
 * only phase 2 runs (the flat ring); with M = 1 phases 1 and 3 are a ring
 * allreduce as reduce-scatter + all-gather, phase 1 making final values.
 */
#include "algo.h"
#include "algo_int.h"
#include "conn.h"

#include <errno.h>
#include <stdio.h>

#define NONE CC_CONN_NONE

struct hier {
	const struct cc_coll_params *p;
	uint32_t g, m;      /* ranks per node, nodes */
	uint64_t chunk;     /* elements per chunk */
	struct cc_walker w;
};

enum { PHASE_RS, PHASE_RAIL, PHASE_AG };

static uint32_t mod(int64_t a, uint32_t n)
{
	int64_t x = a % (int64_t)n;

	return (uint32_t)(x < 0 ? x + n : x);
}

/* Where block b of G starts. */
static uint64_t block_off(const struct hier *h, uint32_t b)
{
	return (uint64_t)((unsigned __int128)h->p->count * b / h->g);
}

static uint64_t block_len(const struct hier *h, uint32_t b)
{
	return block_off(h, b + 1) - block_off(h, b);
}

static uint32_t intra_next(const struct hier *h, uint32_t r)
{
	return r / h->g * h->g + (r % h->g + 1) % h->g;
}
static uint32_t intra_prev(const struct hier *h, uint32_t r)
{
	return r / h->g * h->g + (r % h->g + h->g - 1) % h->g;
}
static uint32_t rail_next(const struct hier *h, uint32_t r)
{
	return (r + h->g) % (h->g * h->m);
}
static uint32_t rail_prev(const struct hier *h, uint32_t r)
{
	return (r + h->g * (h->m - 1)) % (h->g * h->m);
}

/* Phases 1 and 3: per chunk of the blocks, one step per block around the
 * node's ring (reduce_scatter.h / all_gather.h runRing, on blocks of one
 * array instead of k arrays). */
static void walk_node(struct hier *h, uint32_t r, int rs, uint32_t *s, uint32_t *loop)
{
	uint32_t g = h->g, l = r % g;
	uint32_t recv = cc_walk_from(&h->w, r, intra_prev(h, r), PHASE_RS);
	uint32_t send = cc_walk_to(&h->w, r, intra_next(h, r), PHASE_RS);
	uint64_t most = block_len(h, g - 1); /* the last block is the largest */

	for (uint64_t off = 0; off < most; off += h->chunk, (*loop)++) {
		for (uint32_t j = 0; j < g; j++) {
			/* rs: blocks l-1, l-2, ..., l; ag: blocks l, l-1, ..., l+1 */
			uint32_t b = rs ? mod((int64_t)l - 1 - j, g) : mod((int64_t)l - j, g);
			enum cc_prim prim = rs ? (j == 0 ? CC_PRIM_SEND
						  : j + 1 < g ? CC_PRIM_RECV_REDUCE_SEND
						  : CC_PRIM_RECV_REDUCE_COPY)
					       : (j == 0 ? CC_PRIM_COPY_SEND
						  : j + 1 < g ? CC_PRIM_RECV_COPY_SEND : CC_PRIM_RECV);
			uint64_t len = block_len(h, b), at = block_off(h, b) + off;
			struct cc_conn_step st = {
				.prim = prim, .step = (*s)++, .chunk = *loop * g + b,
				.in_off = at, .out_off = at,
				.nelem = off < len ? (len - off < h->chunk ? len - off : h->chunk) : 0,
				.recv = cc_prim_recvs(prim) ? recv : NONE,
				.send = cc_prim_sends(prim) ? send : NONE,
				.src_out = !rs,
				.final = prim == CC_PRIM_RECV_REDUCE_COPY && h->m == 1,
				.channel = rs ? PHASE_RS : PHASE_AG,
			};

			cc_walk_step(&h->w, r, &st);
		}
	}
}

/* Phase 2: block l's ring allreduce among the node-mates' peers of the
 * other nodes (all_reduce.h runRing, chunk c of a loop covering
 * min(chunk, ceil(rest / M)) elements). */
static void walk_rail(struct hier *h, uint32_t r, uint32_t *s, uint32_t *loop)
{
	uint32_t m = h->m, pos = r / h->g, l = r % h->g;
	uint32_t recv = cc_walk_from(&h->w, r, rail_prev(h, r), PHASE_RAIL);
	uint32_t send = cc_walk_to(&h->w, r, rail_next(h, r), PHASE_RAIL);
	uint64_t n = block_len(h, l), b0 = block_off(h, l);

	for (uint64_t off = 0; off < n; off += h->chunk * m, (*loop)++) {
		uint64_t rest = n - off;
		uint64_t real = h->chunk < (rest + m - 1) / m ? h->chunk : (rest + m - 1) / m;

		for (uint32_t j = 0; j < 2 * m - 1; j++) {
			/* chunks pos-1, pos-2, ..., pos (reduce), then pos-1, ...,
			 * pos+1 (gather), as the ring's 2k-1 steps */
			uint32_t c = j < m ? mod((int64_t)pos - 1 - j, m) : mod((int64_t)pos - (j - m + 1), m);
			enum cc_prim prim = j == 0 ? CC_PRIM_SEND
					    : j + 1 < m ? CC_PRIM_RECV_REDUCE_SEND
					    : j + 1 == m ? CC_PRIM_RECV_REDUCE_COPY_SEND
					    : j + 1 < 2 * m - 1 ? CC_PRIM_RECV_COPY_SEND : CC_PRIM_RECV;
			uint64_t o = (uint64_t)c * real;
			struct cc_conn_step st = {
				.prim = prim, .step = (*s)++, .chunk = *loop * m + c,
				.in_off = b0 + off + o, .out_off = b0 + off + o,
				.nelem = o < rest ? (rest - o < real ? rest - o : real) : 0,
				.recv = cc_prim_recvs(prim) ? recv : NONE,
				.send = cc_prim_sends(prim) ? send : NONE,
				.src_out = h->g > 1, .final = prim == CC_PRIM_RECV_REDUCE_COPY_SEND,
				.channel = PHASE_RAIL,
			};

			cc_walk_step(&h->w, r, &st);
		}
	}
}

static void walk(struct hier *h, uint32_t r)
{
	uint32_t s = 0, loop = 0;

	if (h->g > 1)
		walk_node(h, r, 1, &s, &loop);
	if (h->m > 1)
		walk_rail(h, r, &s, &loop);
	if (h->g > 1)
		walk_node(h, r, 0, &s, &loop);
}

static void walk_conns(void *ctx, uint32_t r, int counting)
{
	struct hier *h = ctx;

	h->w.counting = counting;
	walk(h, r);
}

/* Every rank to the next of its node (phases 1 and 3 share it) and to the
 * next of its rail. */
static int connect(void *ctx, struct cc_conns *c)
{
	struct hier *h = ctx;

	h->w.c = c;
	for (uint32_t r = 0; r < h->g * h->m; r++) {
		if (h->g > 1 && cc_conns_add(c, r, intra_next(h, r), PHASE_RS))
			return -1;
		if (h->m > 1 && cc_conns_add(c, r, rail_next(h, r), PHASE_RAIL))
			return -1;
	}
	return 0;
}

static void init(struct hier *h, const struct cc_coll_params *p)
{
	uint64_t chunk = p->chunk_bytes / cc_dtype_size(p->dtype);

	*h = (struct hier){ .p = p, .g = p->ranks_per_node, .chunk = chunk ? chunk : 1 };
	h->m = p->nranks / h->g;
}

void cc_hier_primitives(const struct cc_coll_params *p, uint32_t rank, cc_prim_fn fn, void *ctx)
{
	struct hier h;

	init(&h, p);
	h.w = (struct cc_walker){ .list = fn, .list_ctx = ctx };
	walk(&h, rank);
}

struct cc_schedule *cc_build_hier(const struct cc_coll_params *p)
{
	struct hier h;
	/* The largest message is a chunk of the largest block. */
	uint64_t most = (p->count + p->ranks_per_node - 1) / p->ranks_per_node;
	struct cc_conns_algo a = { .most = most, .serial = 1, .connect = connect,
				   .walk = walk_conns, .ctx = &h };

	init(&h, p);
	if (a.most > h.chunk)
		a.most = h.chunk;
	return cc_conns_build(p, &a);
}

/* The node's ranks must tile the ranks, and the rings run each rank's
 * reduces and copies in order (cc_conns.serial): a step must then be able
 * to send its whole chunk before its successor takes any, which the
 * receiver's slots allow up to nslots slices. */
int cc_hier_check(const struct cc_coll_params *p, enum cc_param *field, char *err, size_t errlen)
{
	uint64_t slices = cc_chunk_slices(p);

	if (p->nranks > 1 && (!p->ranks_per_node || p->nranks % p->ranks_per_node)) {
		if (field)
			*field = CC_PARAM_RANKS_PER_NODE;
		snprintf(err, errlen, "the hierarchical algorithm needs the ranks per node "
			 "(the GPUs of each host, as many on every host) dividing %u ranks; it "
			 "has %u", p->nranks, p->ranks_per_node);
		return -EINVAL;
	}
	if (slices <= p->nslots)
		return 0;
	if (field)
		*field = CC_PARAM_CHUNK_BYTES;
	snprintf(err, errlen, "a chunk of %llu slices (chunk %llu B / slot %llu B) cannot make "
		 "progress on the hierarchical algorithm with %u slots per connection: at most "
		 "slots = %u slices; raise the slots or lower the chunk size",
		 (unsigned long long)slices, (unsigned long long)p->chunk_bytes,
		 (unsigned long long)p->slot_bytes, p->nslots, p->nslots);
	return -EINVAL;
}

/* A rank's steps: G a loop of the node's two phases, 2M-1 a loop of the
 * rail's. */
double cc_hier_walk_steps(const struct cc_coll_params *p)
{
	struct hier h;
	double node, rail;

	init(&h, p);
	node = (double)((block_len(&h, h.g - 1) + h.chunk - 1) / h.chunk);
	rail = node / h.m + 1;
	return (double)p->nranks * (2 * node * h.g + rail * (2 * h.m - 1));
}

void cc_hier_staging(const struct cc_coll_params *p, double *conns, double *msg)
{
	(void)p;
	(void)msg;
	*conns = 2; /* the node's ring and the rail's ring */
}
