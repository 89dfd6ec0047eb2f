/* SPDX-License-Identifier: BSD-3-Clause */
/* core/tree.c — double binary tree allreduce, as NCCL builds it
 * (src/graph/trees.cc ncclGetBtree / ncclGetDtree; src/device/all_reduce.h
 * runTreeSplit), on the connections of core/conn.h.
 *
 * Tree 0 is NCCL's binary tree over ranks 0..k-1 (a rank's parent clears
 * its lowest set bit and sets the next one up; rank 0 is the root with one
 * child); tree 1 is the same tree mirrored (k even: rank r plays k-1-r) or
 * shifted by one (k odd), so that most leaves of one tree are inner nodes
 * of the other and every rank's links carry about the same.  On nodes of
 * G > 1 ranks (ranks_per_node) the allreduce's trees join nodes instead,
 * each node a chain of its ranks (node_tree), as NCCL does: the network
 * carries 2 (nodes - 1) halves per tree, NVLink the rest.  Each tree
 * reduces and broadcasts half of the array, chunk by chunk (chunk_bytes;
 * cc_tree_chunk_bytes()), in one pass:
 *
 *   up     leaf: send;  inner: recvReduceSend (the own input plus what its
 *          children sent, to its parent);  root: recvReduceCopySend (the
 *          sum, final: postdiv for avg, into its output and down to its
 *          first child; reduce, which has no way down: recvReduceCopy);
 *   down   root: its last reduce is recvReduceCopySend, the result to its
 *          first child;  inner: recvCopySend, the result into the
 *          output and to its first child;  leaf: recv;  a second child:
 *          send from the output.
 *
 * NCCL reduces both children in one primitive (two receive buffers) and
 * sends to both at once; here a second child's reduce is its own step
 * reading the first's partial sum from the output, and the second child
 * gets its own send: the same bytes on the wire, one more pass over the
 * chunk in memory.  Steps of one chunk that read what another wrote are ordered
 * by cc_conn_step.mark/after, not by serializing the rank, so chunks
 * pipeline up one tree while earlier ones come down.
 */
#include "algo.h"
#include "algo_int.h"
#include "conn.h"
#include "proto.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#define NONE CC_CONN_NONE

/* One rank's place in one tree, and its connections there. */
struct node {
	uint32_t parent;      /* NONE at the root */
	uint32_t child[2];    /* NONE where absent */
	uint32_t up_send, down_recv;         /* ends to / from the parent */
	uint32_t up_recv[2], down_send[2];   /* ends from / to each child */
};

struct tree {
	const struct cc_coll_params *p;
	uint32_t k;
	/* Trees: 2 per channel for allreduce (tree 0 on channels 0..C-1,
	 * tree 1 on C..2C-1, as NCCL duplicates its channels), 1 for a
	 * rooted collective; each takes part t of the array. */
	uint32_t ntrees;
	struct node *node;    /* [tree * k + rank] */
	struct cc_walker w;
};

/* NCCL's ncclGetBtree: parent u and children d0 < d1 of rank r. */
static void btree(uint32_t k, uint32_t r, uint32_t *u, uint32_t *d0, uint32_t *d1)
{
	uint32_t bit, up, low;

	for (bit = 1; bit < k; bit <<= 1)
		if (bit & r)
			break;
	if (r == 0) {
		*u = NONE;
		*d0 = NONE;
		*d1 = k > 1 ? bit >> 1 : NONE;
		return;
	}
	up = (r ^ bit) | (bit << 1);
	if (up >= k)
		up = r ^ bit;
	*u = up;
	low = bit >> 1;
	*d0 = low == 0 ? NONE : r - low;
	*d1 = low == 0 ? NONE : r + low;
	while (*d1 != NONE && *d1 >= k) {
		*d1 = low == 0 ? NONE : r + low;
		low >>= 1;
	}
}

/* ncclGetDtree's second tree: mirrored for even k, shifted for odd. */
static void btree2(uint32_t k, uint32_t r, uint32_t *u, uint32_t *d0, uint32_t *d1)
{
	uint32_t a, b0, b1;

	if (k % 2) {
		btree(k, (r + k - 1) % k, &a, &b0, &b1);
		*u = a == NONE ? NONE : (a + 1) % k;
		*d0 = b0 == NONE ? NONE : (b0 + 1) % k;
		*d1 = b1 == NONE ? NONE : (b1 + 1) % k;
	} else {
		btree(k, k - 1 - r, &a, &b0, &b1);
		*u = a == NONE ? NONE : k - 1 - a;
		*d0 = b1 == NONE ? NONE : k - 1 - b1;
		*d1 = b0 == NONE ? NONE : k - 1 - b0;
	}
}

/* Tree t (0: btree, 1: its mirror or shift) over k members. */
void cc_dtree(uint32_t t, uint32_t k, uint32_t r, uint32_t *u, uint32_t *d0, uint32_t *d1)
{
	if (t == 0)
		btree(k, r, u, d0, d1);
	else
		btree2(k, r, u, d0, d1);
}

/* Where a node hangs its child nodes: NCCL's BALANCED_TREE pattern (what
 * src/init.cc searches the tree graph for; src/graph/connect.cc
 * ncclTopoPreset: treeToChild0 = intra[1], treeToChild1 = intra[0]). */
#define CHILD0_LOCAL 1u
#define CHILD1_LOCAL 0u

/* Tree t of an allreduce on nodes of g ranks (g > 1, dividing k), as NCCL
 * joins them (ncclTopoPreset, connectTrees): a node's ranks form a chain,
 * over NVLink, each the parent of the next; tree t joins the nodes, node
 * n's head (the chain's first) taking its parent node's rank that holds
 * child 0 or child 1 as its parent, and the ranks at chain positions
 * CHILD0_LOCAL / CHILD1_LOCAL the head of its child node 0 / 1 as a child.
 * No rank has more than two children.  The chain starts at local rank
 * `first` and wraps (local first, first + 1, ..., g - 1, 0, ...): channel
 * pair c starts at 2c mod g, so channels leave their nodes through
 * different NICs, as NCCL's tree graph search gives each channel its own
 * (one NIC per GPU on rail-optimised nodes). */
static void node_tree(uint32_t t, uint32_t k, uint32_t g, uint32_t first, uint32_t r,
		      uint32_t *u, uint32_t *d0, uint32_t *d1)
{
	uint32_t nn = k / g, n = r / g, l = (r % g + g - first) % g, nu, nd0, nd1;
#define AT(node, pos) ((node) * g + ((pos) + first) % g) /* rank at a chain position */

	cc_dtree(t, nn, n, &nu, &nd0, &nd1);
	*u = l ? AT(n, l - 1) : NONE;
	if (!l && nu != NONE) {
		uint32_t pu, pd0, pd1;

		cc_dtree(t, nn, nu, &pu, &pd0, &pd1);
		*u = AT(nu, pd0 == n ? CHILD0_LOCAL : CHILD1_LOCAL);
	}
	*d0 = l + 1 < g ? AT(n, l + 1) : NONE;
	*d1 = l == CHILD0_LOCAL && nd0 != NONE ? AT(nd0, 0)
	    : l == CHILD1_LOCAL && nd1 != NONE ? AT(nd1, 0) : NONE;
#undef AT
}

/* Trees per channel (allreduce: 2) times the channels. */
static uint32_t trees_of(const struct cc_coll_params *p)
{
	return (cc_coll_rooted(p->coll) ? 1u : 2u) * (p->nchannels > 1 ? p->nchannels : 1u);
}

/* Whether the allreduce's trees join nodes (node_tree) rather than ranks:
 * on nodes that tile the ranks (unchecked parameters may reach the chunk
 * rule). */
static int on_nodes(const struct cc_coll_params *p)
{
	return cc_tree_on_nodes(p) && p->nranks % p->ranks_per_node == 0;
}

/* Where tree t's part of the array starts (t = ntrees: the end): equal
 * parts, halves for allreduce on one channel, the whole array for a
 * rooted collective's one tree. */
static uint64_t part(const struct tree *g, uint32_t t)
{
	return (uint64_t)((unsigned __int128)g->p->count * t / g->ntrees);
}

static struct node *node_of(const struct tree *g, uint32_t t, uint32_t r)
{
	return &g->node[(size_t)t * g->k + r];
}

/* The thread group that runs step s (0, 1: up; 2 on: down) of tree t on
 * rank r.  NCCL's allreduce splits a non-root rank's block in two
 * (runTreeSplit, src/device/all_reduce.h, on every protocol): reduce up
 * and broadcast down run at once; the root's block does its
 * recvReduceCopySend whole. */
static uint8_t thread_group(const struct tree *g, uint32_t r, uint32_t t, uint32_t s)
{
	return s >= 2 && g->p->coll == CC_ALLREDUCE && node_of(g, t, r)->parent != NONE;
}

/* The warps of step s's thread group: the tree's block is
 * NCCL_MAX_NTHREADS whatever the protocol (src/enqueue.cc), and a split
 * one gives the reduce half 640 / 2 + 64 threads with Simple, 70 % with LL
 * and LL128, and the broadcast half the rest (runTreeSplit,
 * src/device/all_reduce.h): 12 and 8 warps, or 14 and 6. */
static uint8_t group_warps(const struct tree *g, uint32_t r, uint32_t t, uint32_t s)
{
	bool split = g->p->coll == CC_ALLREDUCE && node_of(g, t, r)->parent != NONE;
	uint8_t reduce = g->p->proto == CC_PROTO_SIMPLE ? 12 : 14;

	if (!split)
		return CC_NCCL_MAX_WARPS;
	return thread_group(g, r, t, s) ? CC_NCCL_MAX_WARPS - reduce : reduce;
}

static void step(struct tree *g, uint32_t r, enum cc_prim prim, uint32_t t, uint32_t s,
		 uint32_t chunk, uint64_t off, uint64_t n, uint32_t recv, uint32_t send,
		 uint8_t src_out, uint8_t final, uint8_t mark, uint8_t after)
{
	struct cc_conn_step st = {
		.prim = prim, .step = s, .chunk = chunk, .in_off = off, .out_off = off,
		.nelem = n, .recv = recv, .send = send, .src_out = src_out, .final = final,
		.mark = mark, .after = after, .channel = (uint16_t)t,
		.group = thread_group(g, r, t, s), .warps = group_warps(g, r, t, s),
	};

	cc_walk_step(&g->w, r, &st);
}

/* One chunk of tree t on rank r: elements [off, off + n). */
static void chunk(struct tree *g, uint32_t r, uint32_t t, uint32_t c, uint64_t off, uint64_t n)
{
	const struct node *nd = node_of(g, t, r);
	uint32_t nch = (nd->child[0] != NONE) + (nd->child[1] != NONE);
	uint32_t first = nd->child[0] != NONE ? 0 : 1; /* the first child present */
	int root = nd->parent == NONE;
	int up = g->p->coll != CC_BROADCAST, down = g->p->coll != CC_REDUCE;

	/* Up.  With two children the first one's sum goes to the output
	 * (marked), the second's reduce reads it from there (after).  The
	 * root's last reduce also sends the result down to its first child
	 * (NCCL's root runs recvReduceCopySend, one primitive). */
	if (!up) {
		if (root) /* broadcast: the root's input is the result */
			step(g, r, CC_PRIM_COPY, t, 0, c, off, n, NONE, NONE, 0, 0, 1, 0);
	} else if (nch == 0) {
		step(g, r, CC_PRIM_SEND, t, 0, c, off, n, NONE, nd->up_send, 0, 0, 0, 0);
	} else if (nch == 2) {
		step(g, r, CC_PRIM_RECV_REDUCE_COPY, t, 0, c, off, n, nd->up_recv[0], NONE, 0, 0,
		     1, 0);
		if (root && down)
			step(g, r, CC_PRIM_RECV_REDUCE_COPY_SEND, t, 1, c, off, n, nd->up_recv[1],
			     nd->down_send[0], 1, 1, 1, 1);
		else if (root)
			step(g, r, CC_PRIM_RECV_REDUCE_COPY, t, 1, c, off, n, nd->up_recv[1], NONE,
			     1, 1, 1, 1);
		else
			step(g, r, CC_PRIM_RECV_REDUCE_SEND, t, 1, c, off, n, nd->up_recv[1],
			     nd->up_send, 1, 0, 0, 1);
	} else if (root) {
		step(g, r, down ? CC_PRIM_RECV_REDUCE_COPY_SEND : CC_PRIM_RECV_REDUCE_COPY, t, 0, c,
		     off, n, nd->up_recv[first], down ? nd->down_send[first] : NONE, 0, 1, 1, 0);
	} else {
		step(g, r, CC_PRIM_RECV_REDUCE_SEND, t, 0, c, off, n, nd->up_recv[first],
		     nd->up_send, 0, 0, 0, 0);
	}
	/* Down: the result into the output and on to the first child in one
	 * pass (NCCL's directRecvCopyDirectSend), then to a second child from
	 * the output.  The root's first child has it already (above). */
	if (!down)
		return;
	if (!root && nch)
		step(g, r, CC_PRIM_RECV_COPY_SEND, t, 2, c, off, n, nd->down_recv,
		     nd->down_send[first], 0, 0, 1, 0);
	else if (!root)
		step(g, r, CC_PRIM_RECV, t, 2, c, off, n, nd->down_recv, NONE, 0, 0, 1, 0);
	else if (!up && nch)
		step(g, r, CC_PRIM_SEND, t, 3 + first, c, off, n, NONE, nd->down_send[first], 1, 0,
		     0, 1);
	if (nch == 2)
		step(g, r, CC_PRIM_SEND, t, 4, c, off, n, NONE, nd->down_send[1], 1, 0, 0, 1);
}

/* Simple (NCCL's computeColl, src/enqueue.cc): a tree chunk is one step
 * (chunkSteps = 1), halved while nBytes / (nChannels * chunk) < factor *
 * depth, with NCCL's depth nRanks/nNodes - 1 + log2i(nNodes)
 * (src/graph/connect.cc connectTrees, "a good approximation").  Enough
 * chunks in flight that the pipeline fills, none so small that a slice's
 * fixed costs dominate. */
static uint64_t simple_chunk(uint64_t bytes, uint64_t trees, uint64_t step, uint32_t lg,
			     uint32_t ppn)
{
	static const struct {
		uint64_t per_depth, floor;
	} rule[] = { { 8, 128 * 1024 }, { 4, 64 * 1024 }, { 1, 32 * 1024 } };
	uint64_t chunk = step, depth = ppn - 1 + lg;

	for (size_t i = 0; i < sizeof(rule) / sizeof(rule[0]); i++)
		while (chunk > rule[i].floor && bytes / (trees * chunk) < rule[i].per_depth * depth)
			chunk /= 2;
	return chunk;
}

/* LL128 (the same function's NCCL_PROTO_LL128 branch): the step's lines
 * (614,400 B for 576,000 B of data) halved while nBytes / (nChannels *
 * chunk) < nsteps * 64 / ppn (down to 128 KiB of lines), then nsteps * 16
 * / ppn (32 KiB), nsteps = 1 + log2i(nNodes) + 0.1 ppn; NCCL counts the
 * chunk in lines, and so does this, then returns the data they carry
 * (chunkEffectiveSize: 120 of every 128 bytes). */
static uint64_t ll128_chunk(uint64_t bytes, uint64_t trees, uint64_t step, uint32_t lg,
			    uint32_t ppn)
{
	static const struct {
		double per_step;
		uint64_t floor;
	} rule[] = { { 64, 128 * 1024 }, { 16, 32 * 1024 } };
	uint64_t lines = cc_proto_wire_bytes(CC_PROTO_LL128, step);
	double nsteps = 1 + lg + 0.1 * ppn;

	for (size_t i = 0; i < sizeof(rule) / sizeof(rule[0]); i++)
		while (lines > rule[i].floor &&
		       (double)(bytes / (trees * lines)) < nsteps * rule[i].per_step / ppn)
			lines /= 2;
	uint64_t data = cc_proto_line_data(CC_PROTO_LL128, lines);

	return data < step ? data : step; /* not halved: the step as given */
}

uint64_t cc_tree_chunk_bytes(const struct cc_coll_params *p)
{
	/* One channel per tree here (allreduce: two per channel, as NCCL's
	 * duplicated channels); a tree over ranks counts each as a node. */
	uint64_t bytes = p->count * cc_dtype_size(p->dtype), trees = trees_of(p);
	uint32_t ppn = on_nodes(p) ? p->ranks_per_node : 1, lg = 0;

	for (uint32_t n = p->nranks / ppn; n > 1; n >>= 1)
		lg++;
	if (p->proto == CC_PROTO_LL128)
		return ll128_chunk(bytes, trees, p->slot_bytes, lg, ppn);
	return simple_chunk(bytes, trees, p->slot_bytes, lg, ppn);
}

/* Row c of the walk: chunk c of every tree that has one (0 if none). */
static int row(struct tree *g, uint32_t r, uint32_t c)
{
	uint64_t cs = g->p->chunk_bytes / cc_dtype_size(g->p->dtype);
	int any = 0;

	for (uint32_t t = 0; t < g->ntrees; t++) {
		uint64_t off = part(g, t) + c * cs, end = part(g, t + 1);

		if (off >= end)
			continue;
		chunk(g, r, t, c, off, end - off < cs ? end - off : cs);
		any = 1;
	}
	return any;
}

/* Chunk by chunk, the two trees interleaved: both halves move at once. */
static void walk(struct tree *g, uint32_t r)
{
	for (uint32_t c = 0; row(g, r, c); c++)
		;
}

static void walk_conns(void *ctx, uint32_t r, int counting)
{
	struct tree *g = ctx;

	g->w.counting = counting;
	walk(g, r);
}

/* x + root mod k, NONE kept: a rooted collective's tree is tree 0 with
 * its ranks relabelled so that the root sits where rank 0 does. */
static uint32_t from_virtual(const struct tree *g, uint32_t x)
{
	return x == NONE ? NONE : (x + g->p->root) % g->k;
}

static int make_nodes(struct tree *g)
{
	int rooted = cc_coll_rooted(g->p->coll);
	uint32_t shapes = rooted ? 1 : 2; /* tree 0 and tree 1, or one */

	g->ntrees = trees_of(g->p);
	g->node = calloc((size_t)g->ntrees * g->k, sizeof(*g->node));
	if (!g->node)
		return -1;
	for (uint32_t t = 0; t < g->ntrees; t++) {
		/* tree 0 on the first half of the channels, tree 1 on the rest */
		uint32_t shape = t * shapes / g->ntrees;

		for (uint32_t r = 0; r < g->k; r++) {
			struct node *nd = node_of(g, t, r);

			if (rooted) {
				uint32_t v = (r + g->k - g->p->root) % g->k, u, d0, d1;

				btree(g->k, v, &u, &d0, &d1);
				nd->parent = from_virtual(g, u);
				nd->child[0] = from_virtual(g, d0);
				nd->child[1] = from_virtual(g, d1);
			} else if (on_nodes(g->p)) {
				uint32_t rpn = g->p->ranks_per_node, pair = t % (g->ntrees / 2);

				node_tree(shape, g->k, rpn, 2 * pair % rpn, r, &nd->parent,
					  &nd->child[0], &nd->child[1]);
			} else {
				cc_dtree(shape, g->k, r, &nd->parent, &nd->child[0], &nd->child[1]);
			}
		}
	}
	return 0;
}

static void free_nodes(struct tree *g)
{
	free(g->node);
}

void cc_tree_primitives(const struct cc_coll_params *p, uint32_t rank, cc_prim_fn fn, void *ctx)
{
	struct tree g = { .p = p, .k = p->nranks, .w = { .list = fn, .list_ctx = ctx } };

	if (!make_nodes(&g))
		walk(&g, rank);
	free_nodes(&g);
}

/* Per tree, per rank with a parent: the edge up and the edge down. */
static int connect(void *ctx, struct cc_conns *c)
{
	struct tree *g = ctx;

	g->w.c = c;
	for (uint32_t t = 0; t < g->ntrees; t++)
		for (uint32_t r = 0; r < g->k; r++) {
			struct node *nd = node_of(g, t, r);
			struct node *pn;
			uint32_t i;

			if (nd->parent == NONE)
				continue;
			pn = node_of(g, t, nd->parent);
			i = pn->child[0] == r ? 0 : 1;
			if (cc_conns_link(c, r, nd->parent, (uint16_t)t, &nd->up_send,
					  &pn->up_recv[i]) ||
			    cc_conns_link(c, nd->parent, r, (uint16_t)t, &pn->down_send[i],
					  &nd->down_recv))
				return -1;
		}
	return 0;
}

/* The tree on the connections' build: its largest message (a chunk, of
 * one tree's part of the array), connections and walk. */
static struct cc_conns_algo tree_algo(struct tree *g)
{
	uint64_t cs = g->p->chunk_bytes / cc_dtype_size(g->p->dtype);
	uint64_t most = (g->p->count + trees_of(g->p) - 1) / trees_of(g->p);

	return (struct cc_conns_algo){ .most = cs < most ? cs : most, .connect = connect,
				       .walk = walk_conns, .ctx = g };
}

struct cc_schedule *cc_build_tree(const struct cc_coll_params *p)
{
	struct tree g = { .p = p, .k = p->nranks };
	struct cc_conns_algo a = tree_algo(&g);
	struct cc_schedule *s = NULL;

	if (!make_nodes(&g))
		s = cc_conns_build(p, &a);
	else
		errno = ENOMEM;
	free_nodes(&g);
	return s;
}

bool cc_tree_on_nodes(const struct cc_coll_params *p)
{
	return p->algo == CC_ALGO_TREE && p->coll == CC_ALLREDUCE && p->ranks_per_node > 1;
}

bool cc_tree_chunk_per_size(const struct cc_coll_params *p)
{
	return p->chunk_auto && p->proto != CC_PROTO_LL;
}

/* The allreduce chains each node's ranks (node_tree): nodes of G must
 * tile the ranks, or the tree would be some other shape. */
int cc_tree_check(const struct cc_coll_params *p, enum cc_param *field, char *err, size_t errlen)
{
	if (!cc_tree_on_nodes(p) || p->nranks % p->ranks_per_node == 0)
		return 0;
	if (field)
		*field = CC_PARAM_RANKS_PER_NODE;
	snprintf(err, errlen, "the tree allreduce chains the ranks of each node: the ranks per "
		 "node (%u) must divide %u ranks", p->ranks_per_node, p->nranks);
	return -EINVAL;
}

/* A rank's steps: at most an up and a down step, and a send to a second
 * child, per chunk of each of its trees; and each listing makes every
 * tree's nodes again (make_nodes), k a tree. */
double cc_tree_walk_steps(const struct cc_coll_params *p)
{
	double k = p->nranks, trees = 2.0 * (p->nchannels > 1 ? p->nchannels : 1);
	size_t es = cc_dtype_size(p->dtype);
	double chunks = (double)p->count * es / (double)(p->chunk_bytes > es ? p->chunk_bytes : es);

	return k * trees * (k + 3 * (chunks + 1));
}

void cc_tree_staging(const struct cc_coll_params *p, double *conns, double *msg)
{
	*msg = (double)p->count / 2 / *conns + 1; /* one tree's part */
	*conns *= 6; /* parent and two children, each way, in two trees a channel */
}

/* ---- the tree generated as it runs (core/gen.c) ----
 * One stream: the walk's rows, a chunk of each tree, in its order (the
 * trees' chunks interleave there, so they are made together). */

static uint64_t gen_steps(void *ctx, uint32_t j)
{
	struct tree *g = ctx;
	uint64_t cs = g->p->chunk_bytes / cc_dtype_size(g->p->dtype), rows = 0;

	(void)j;
	for (uint32_t t = 0; t < g->ntrees; t++) {
		uint64_t len = part(g, t + 1) - part(g, t), n = (len + cs - 1) / cs;

		rows = n > rows ? n : rows;
	}
	return rows;
}

static void gen_step(void *ctx, uint32_t r, uint32_t j, uint64_t n)
{
	(void)j;
	row(ctx, r, (uint32_t)n);
}

static void gen_free(void *ctx)
{
	free_nodes(ctx);
	free(ctx);
}

int cc_tree_gen_prepare(const struct cc_coll_params *p, struct cc_conns *c,
			struct cc_schedule **s, struct cc_gen_walk *w)
{
	struct tree *g = calloc(1, sizeof(*g));
	struct cc_conns_algo a;
	int rc = -ENOMEM;

	if (!g)
		return -ENOMEM;
	*g = (struct tree){ .p = p, .k = p->nranks };
	a = tree_algo(g);
	if (make_nodes(g) || (rc = cc_conns_prepare(c, p, &a, s))) {
		gen_free(g);
		return rc;
	}
	g->w.counting = 0; /* from here on it emits */
	/* The up and the down pass are one stream: while a rank's oldest op
	 * waits for an early chunk to come down the tree, the up pass of later
	 * ones goes on, as far as the slots on the way up allow — further the
	 * deeper the tree.  Made 512 ops ahead, ops came late from k = 64 on;
	 * the fewest that sufficed for a 64 MiB allreduce were 768 ops at
	 * k = 16, 1024 at 64, 1536 at 256, 2048 at 1024 (bench_sim). */
	*w = (struct cc_gen_walk){ .ctx = g, .nstreams = 1, .window = 2048, .steps = gen_steps,
				   .step = gen_step, .free = gen_free };
	return 0;
}
