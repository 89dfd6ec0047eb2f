/* SPDX-License-Identifier: BSD-3-Clause */
/* core/nvls_tree.h — NVLSTree's network part: on each channel, the heads
 * of one local index on every node joined by NCCL's double binary tree
 * (src/graph/connect.cc connectNvls: channel c takes tree c mod 2 of
 * ncclGetDtree over the nodes), on the connections of core/conn.h.
 * core/nvls.c runs the NVSwitch part around it. */
#ifndef CCLAB_CORE_NVLS_TREE_H
#define CCLAB_CORE_NVLS_TREE_H

#include <stdbool.h>
#include <stdint.h>

#include "conn.h"

struct cc_nvls_tree_node;

struct cc_nvls_tree {
	const struct cc_coll_params *p;
	uint32_t k, g, nch;            /* ranks, ranks per node, channels */
	struct cc_nvls_tree_node *node; /* [channel * k + rank] */
	struct cc_walker w;            /* counting, emitting or listing */
};

/* The trees of p's nch channels on nodes of g ranks; list/ctx for a
 * primitive listing (else NULL).  0, or -1 (out of memory). */
int cc_nvls_tree_init(struct cc_nvls_tree *t, const struct cc_coll_params *p, uint32_t g,
		      uint32_t nch, cc_prim_fn list, void *ctx);
void cc_nvls_tree_free(struct cc_nvls_tree *t);
/* Phase 1 (core/conn.h): each head's edge up and down, per channel. */
int cc_nvls_tree_connect(struct cc_nvls_tree *t, struct cc_conns *c);

/* Whether head r's node has a parent in channel ci's tree (NCCL's
 * treeUp != -1): what sets the warps of its block's groups. */
bool cc_nvls_tree_has_up(const struct cc_nvls_tree *t, uint32_t r, uint32_t ci);

/* Head r's steps for one chunk of channel ci: elements [off, off + n) of
 * its output, which holds the node's sum (the multicast READ, op `dep`)
 * and on return the sum over all nodes.  Up the tree the children's
 * partial sums are added to it and the result sent to the parent; down,
 * the total comes from the parent (the root has it) and goes on to the
 * children.  Into fin the ops after which the output holds the total (one
 * per slice); their count (0 when counting or listing). */
uint32_t cc_nvls_tree_chunk(struct cc_nvls_tree *t, uint32_t r, uint32_t ci, uint32_t chunk,
			    uint64_t off, uint64_t n, uint32_t dep, uint32_t *fin);

#endif /* CCLAB_CORE_NVLS_TREE_H */
