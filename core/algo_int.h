/* SPDX-License-Identifier: BSD-3-Clause */
/* core/algo_int.h — what each algorithm's file gives core/algo.c's table
 * beside its builder and primitive walk (core/algo.h): its own parameter
 * rules and the staging it registers.  Only the algorithm files and
 * algo.c include it; callers see cc_params_check() and cc_build(). */
#ifndef CCLAB_CORE_ALGO_INT_H
#define CCLAB_CORE_ALGO_INT_H

#include "algo.h"

/* An algorithm's own rule on parameters that passed the shared checks
 * (sizes that fit, a chunk of at least one element): 0, or -EINVAL with
 * *field set and a message in err, as cc_params_check(). */
typedef int (*cc_algo_check_fn)(const struct cc_coll_params *p, enum cc_param *field, char *err,
				size_t errlen);

/* Staging of one rank beyond the ring's (core/algo.c staging_bytes): its
 * connections (before channels multiply them) and the largest message,
 * in elements, that one slot carries. */
typedef void (*cc_algo_staging_fn)(const struct cc_coll_params *p, double *conns, double *msg);

/* NCCL's double binary tree (src/graph/trees.cc ncclGetDtree): in tree t
 * (0 or 1) over k members, member r's parent u and children d0, d1
 * (CC_CONN_NONE where absent); core/tree.c. */
void cc_dtree(uint32_t t, uint32_t k, uint32_t r, uint32_t *u, uint32_t *d0, uint32_t *d1);

/* The slices a chunk of p is cut into (the slot's elements each). */
uint64_t cc_chunk_slices(const struct cc_coll_params *p);

int cc_ring_check(const struct cc_coll_params *p, enum cc_param *field, char *err, size_t errlen);
/* An algorithm as a generator takes it (core/gen.c): after
 * cc_conns_prepare() (every rank's resources, the connections' counts),
 * each rank's ops are streams of steps after its first invitations, each
 * stream a part that runs at once with the others (a ring's channel), made
 * into its own range of indices: stream j's steps, how many (the same on
 * every rank), and rank r's n-th, emitted through the connections as the
 * algorithm's walk would, in the walk's order.  ctx is the algorithm's,
 * freed by free().  window: how far ahead of a stream's oldest op not done
 * its ops must be made to come in time, where the algorithm knows better
 * than the executor's default (sim/exec_gen.c). */
struct cc_conns;
struct cc_gen_walk {
	void *ctx;
	uint32_t nstreams;
	uint32_t window; /* ops a stream is made ahead to start with; 0: the executor's */
	uint64_t (*steps)(void *ctx, uint32_t j);
	void (*step)(void *ctx, uint32_t r, uint32_t j, uint64_t n);
	/* Rank r's own walk state beyond its connections' (what its steps
	 * so far leave for the next), *bytes of it, which the generator
	 * saves and puts back with theirs; NULL: none.  One per rank, so an
	 * algorithm with state has one stream. */
	void *(*state)(void *ctx, uint32_t r, size_t *bytes);
	void (*free)(void *ctx);
};
/* The algorithm's prepare: 0, -ENOMEM, or -ETIME past the build's
 * deadline (cc_conns_prepare()). */
typedef int (*cc_gen_prepare_fn)(const struct cc_coll_params *p, struct cc_conns *c,
				 struct cc_schedule **s, struct cc_gen_walk *w);
/* The algorithm's, or NULL when it is built whole. */
cc_gen_prepare_fn cc_algo_gen_prepare(enum cc_algo a);
int cc_ring_gen_prepare(const struct cc_coll_params *p, struct cc_conns *c,
			struct cc_schedule **s, struct cc_gen_walk *w);
int cc_tree_gen_prepare(const struct cc_coll_params *p, struct cc_conns *c,
			struct cc_schedule **s, struct cc_gen_walk *w);
int cc_collnet_gen_prepare(const struct cc_coll_params *p, struct cc_conns *c,
			   struct cc_schedule **s, struct cc_gen_walk *w);
int cc_tree_check(const struct cc_coll_params *p, enum cc_param *field, char *err, size_t errlen);
int cc_hier_check(const struct cc_coll_params *p, enum cc_param *field, char *err, size_t errlen);
/* NVLS (core/nvls.c): one node, what the NVSwitch reduces, Simple, GPU
 * buffers. */
int cc_nvls_check(const struct cc_coll_params *p, enum cc_param *field, char *err, size_t errlen);

void cc_hd_staging(const struct cc_coll_params *p, double *conns, double *msg);
void cc_direct_staging(const struct cc_coll_params *p, double *conns, double *msg);
void cc_tree_staging(const struct cc_coll_params *p, double *conns, double *msg);
void cc_hier_staging(const struct cc_coll_params *p, double *conns, double *msg);
void cc_nvls_staging(const struct cc_coll_params *p, double *conns, double *msg);
/* CollNetChain (core/collnet.c): nodes of ranks_per_node, what SHARP
 * reduces, Simple; its staging, NCCL's chunk rule and its primitives. */
int cc_collnet_check(const struct cc_coll_params *p, enum cc_param *field, char *err,
		     size_t errlen);
void cc_collnet_staging(const struct cc_coll_params *p, double *conns, double *msg);
bool cc_collnet_chunk_per_size(const struct cc_coll_params *p);
uint64_t cc_collnet_chunk_bytes(const struct cc_coll_params *p);
void cc_collnet_primitives(const struct cc_coll_params *p, uint32_t rank, cc_prim_fn fn,
			   void *ctx);

/* An algorithm's own estimate of its schedule's bytes (core/algo.c
 * estimate() otherwise), for one of es-byte elements. */
typedef double (*cc_algo_ops_fn)(const struct cc_coll_params *p, size_t es);
/* The primitive steps a walk of every rank's (cc_algo_primitives) costs
 * at most, for checked parameters, k >= 2 and N >= 1: what the memory
 * estimate walks instead of taking the ring's closed form, while few
 * enough (core/algo.c). */
double cc_hd_walk_steps(const struct cc_coll_params *p);
double cc_direct_walk_steps(const struct cc_coll_params *p);
double cc_tree_walk_steps(const struct cc_coll_params *p);
double cc_hier_walk_steps(const struct cc_coll_params *p);
double cc_nvls_schedule_bytes(const struct cc_coll_params *p, size_t es);

/* Whether the tree's chunk depends on the message (NCCL's rule,
 * cc_tree_chunk_bytes): Simple and LL128 when no chunk was given. */
bool cc_tree_chunk_per_size(const struct cc_coll_params *p);
/* NVLS's chunk (NCCL's calcCollChunking for NVLS) when none was given. */
bool cc_nvls_chunk_per_size(const struct cc_coll_params *p);
uint64_t cc_nvls_chunk_bytes(const struct cc_coll_params *p);

#endif /* CCLAB_CORE_ALGO_INT_H */
