/* SPDX-License-Identifier: BSD-3-Clause */
/* core/nvls_tree.c — NVLSTree's network trees (core/nvls_tree.h).
 *
 * NCCL's NVLSTree allreduce (src/device/all_reduce.h, RunWorkColl<...,
 * NCCL_ALGO_NVLS_TREE, NCCL_PROTO_SIMPLE>) gives a head's chunk two warp
 * groups: the reduce warps add the NVSwitch's sum of the node
 * (multimem.ld_reduce) and what the tree children sent, and send it up
 * (directRecvDirectSend on treeDown -> treeUp; the root sends it back down
 * at once); the broadcast warps take the total from the parent and store
 * it to the node (multimem.st) and to the children.  Here:
 *
 *   up    leaf: send;  one child: recvReduceSend;  two: recvReduceCopy of
 *         the first into the output, recvReduceSend of the second;
 *         root: recvReduceCopy of each child (the total);
 *   down  leaf: recv;  inner: recvCopySend to the first child, send to the
 *         second;  root: send to each child.
 *
 * The node's sum sits in the output (the READ put it there), so every own
 * operand is read from the output (src_out).  Up steps run on the
 * reduce warps (thread group 2), down steps on the broadcast warps (group
 * 3; the root's on its reduce warps, for it has no broadcast warps), as
 * NCCL's run side by side with the scatter and gather warps (groups 0 and
 * 1, core/nvls.c).  Their warps (without user-buffer registration): the
 * reduce group 5 below the root, 7 at a root of at most 6 ranks in all, 5
 * above; the broadcast group 4.
 */
#include "nvls_tree.h"

#include "algo_int.h"

#include <stdbool.h>
#include <stdlib.h>

#define NONE CC_CONN_NONE

struct cc_nvls_tree_node {
	uint32_t parent, child[2];
	uint32_t up_send, down_recv;       /* ends to / from the parent */
	uint32_t up_recv[2], down_send[2]; /* ends from / to each child */
};

enum { STEP_UP = 3, STEP_DOWN = 4 }; /* after core/nvls.c's steps 0..2 */

static struct cc_nvls_tree_node *node_of(const struct cc_nvls_tree *t, uint32_t ci, uint32_t r)
{
	return &t->node[(size_t)ci * t->k + r];
}

int cc_nvls_tree_init(struct cc_nvls_tree *t, const struct cc_coll_params *p, uint32_t g,
		      uint32_t nch, cc_prim_fn list, void *ctx)
{
	uint32_t nodes = p->nranks / g;

	*t = (struct cc_nvls_tree){ .p = p, .k = p->nranks, .g = g, .nch = nch,
				    .w = { .list = list, .list_ctx = ctx } };
	t->node = calloc((size_t)nch * t->k, sizeof(*t->node));
	if (!t->node)
		return -1;
	for (uint32_t ci = 0; ci < nch; ci++)
		for (uint32_t r = 0; r < t->k; r++) {
			struct cc_nvls_tree_node *nd = node_of(t, ci, r);
			uint32_t h = r % g, u, d0, d1;

			/* connectNvls: tree c mod 2 over the nodes, between the
			 * heads of one index (heads[h * nNodes + node]) */
			cc_dtree(ci % 2, nodes, r / g, &u, &d0, &d1);
			nd->parent = u == NONE ? NONE : u * g + h;
			nd->child[0] = d0 == NONE ? NONE : d0 * g + h;
			nd->child[1] = d1 == NONE ? NONE : d1 * g + h;
			/* the children in order, the present ones first */
			if (nd->child[0] == NONE) {
				nd->child[0] = nd->child[1];
				nd->child[1] = NONE;
			}
		}
	return 0;
}

void cc_nvls_tree_free(struct cc_nvls_tree *t)
{
	free(t->node);
	t->node = NULL;
}

int cc_nvls_tree_connect(struct cc_nvls_tree *t, struct cc_conns *c)
{
	t->w.c = c;
	for (uint32_t ci = 0; ci < t->nch; ci++)
		for (uint32_t r = 0; r < t->k; r++) {
			struct cc_nvls_tree_node *nd = node_of(t, ci, r), *pn;
			uint32_t i;

			if (nd->parent == NONE)
				continue;
			pn = node_of(t, ci, nd->parent);
			i = pn->child[0] == r ? 0 : 1;
			if (cc_conns_link(c, r, nd->parent, (uint16_t)ci, &nd->up_send,
					  &pn->up_recv[i]) ||
			    cc_conns_link(c, nd->parent, r, (uint16_t)ci, &pn->down_send[i],
					  &nd->down_recv))
				return -1;
		}
	return 0;
}

struct chunk_at {
	uint32_t ci, chunk;
	uint64_t off, n;
};

bool cc_nvls_tree_has_up(const struct cc_nvls_tree *t, uint32_t r, uint32_t ci)
{
	return node_of(t, ci, r)->parent != NONE;
}

/* One step of the chunk: up (the reduce warps) or down (the broadcast
 * warps, or the root's reduce warps). */
static void step(struct cc_nvls_tree *t, uint32_t r, const struct chunk_at *at, bool down,
		 enum cc_prim prim, uint32_t recv, uint32_t send, uint32_t dep, uint32_t *calcs,
		 uint8_t mark, uint8_t after)
{
	bool has_up = cc_nvls_tree_has_up(t, r, at->ci), bcast = down && has_up;
	struct cc_conn_step st = {
		.prim = prim, .step = down ? STEP_DOWN : STEP_UP, .chunk = at->chunk,
		.in_off = at->off, .out_off = at->off, .nelem = at->n, .recv = recv,
		.send = send, .src_out = 1, .mark = mark, .after = after,
		.channel = (uint16_t)at->ci, .group = bcast ? 3 : 2,
		.warps = bcast ? 4 : has_up || t->k > 6 ? 5 : 7,
		.dep = dep, .calcs = calcs,
	};

	cc_walk_step(&t->w, r, &st);
}

uint32_t cc_nvls_tree_chunk(struct cc_nvls_tree *t, uint32_t r, uint32_t ci, uint32_t chunk,
			    uint64_t off, uint64_t n, uint32_t dep, uint32_t *fin)
{
	const struct cc_nvls_tree_node *nd = node_of(t, ci, r);
	struct chunk_at at = { ci, chunk, off, n };
	uint32_t kids = (nd->child[0] != NONE) + (nd->child[1] != NONE);
	bool root = nd->parent == NONE;
	uint32_t *done = t->w.c && !t->w.counting ? fin : NULL;
	uint32_t slices = done ? (uint32_t)cc_conns_nslices(t->w.c, n) : 0;

	/* none yet: a build stopped part way (its deadline) leaves the rest */
	for (uint32_t i = 0; i < slices; i++)
		done[i] = NONE;

	/* up: the children's partial sums added to the node's */
	if (kids == 2)
		step(t, r, &at, false, CC_PRIM_RECV_REDUCE_COPY, nd->up_recv[0], NONE, dep, NULL,
		     1, 0);
	if (root) {
		step(t, r, &at, false, CC_PRIM_RECV_REDUCE_COPY, nd->up_recv[kids - 1], NONE,
		     kids == 2 ? 0 : dep, done, 1, kids == 2);
	} else {
		step(t, r, &at, false, kids ? CC_PRIM_RECV_REDUCE_SEND : CC_PRIM_SEND,
		     kids ? nd->up_recv[kids - 1] : NONE, nd->up_send, kids == 2 ? 0 : dep, NULL,
		     0, kids == 2);
		/* down: the total from the parent, on to the first child */
		step(t, r, &at, true, kids ? CC_PRIM_RECV_COPY_SEND : CC_PRIM_RECV,
		     nd->down_recv, kids ? nd->down_send[0] : NONE, 0, done, kids > 0, 0);
	}
	/* the root's total to its children, an inner node's to its second */
	for (uint32_t i = root ? 0 : 1; i < kids; i++)
		step(t, r, &at, true, CC_PRIM_SEND, NONE, nd->down_send[i], 0, NULL, 0, 1);
	return slices;
}
