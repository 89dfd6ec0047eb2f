/* SPDX-License-Identifier: BSD-3-Clause */
/* core/algo.h — collective algorithms: a collective in, a schedule out. */
#ifndef CCLAB_CORE_ALGO_H
#define CCLAB_CORE_ALGO_H

#include <stddef.h>

#include "util/mem_limit.h"
#include "schedule.h"

/* The parameter a refusal of cc_params_check() is about, so that each
 * caller points at it in its own words: the command line at its option
 * (cli/options.c), a scenario at its key (sim/scenario.c). */
enum cc_param {
	CC_PARAM_KIND,           /* an enum out of range: collective, dtype, ... */
	CC_PARAM_ALGO,
	CC_PARAM_CHANNELS,
	CC_PARAM_NRANKS,
	CC_PARAM_ROOT,
	CC_PARAM_RANKS_PER_NODE,
	CC_PARAM_RING_ORDER,
	CC_PARAM_SLOTS,
	CC_PARAM_SLOT_BYTES,
	CC_PARAM_CHUNK_BYTES,
	CC_PARAM_COUNT,          /* the element count: the size */
	CC_PARAM_FIELDS
};

/* Checks p (nranks >= 1, sizes that fit, chunk >= one element, a chunk
 * that can make progress with the slots, the algorithm's own rules from
 * its file): 0, or -EINVAL with the parameter at fault in *field (may be
 * NULL) and in err a message that reads after the caller's name for it
 * ("--channels: ...", "'channels': ...").  The one statement of these
 * rules: the command line and the scenario reader say them through it. */
int cc_params_check(const struct cc_coll_params *p, enum cc_param *field, char *err,
		    size_t errlen);

/* cc_params_check, then builds the schedule (with a memory estimate
 * first when cc_build_with() is given a limit, util/mem_limit.h).
 * Returns NULL with a message in err on bad parameters, or
 * NULL with errno = ENOMEM (also with a message).  Running out of memory
 * while building is not fatal: the partial schedule is freed. */
struct cc_schedule *cc_build(const struct cc_coll_params *p, char *err, size_t errlen);
/* How cc_build_with() builds; all zero is cc_build(). */
struct cc_build_opts {
	/* cc_clock_ns() time at which the build stops: NULL with errno
	 * ETIME and a message.  The builders look at the clock every few
	 * hundred slices, so a build of any size stops within about a
	 * millisecond of it (a wall-clock limit covers building too).  0:
	 * never. */
	uint64_t deadline_ns;
	/* The run will not carry data (the simulator timing only): the
	 * Simple protocol's staging is then never allocated and is not
	 * weighed; the LL protocols' is (their lines carry the flags). */
	bool timing_only;
	/* Memory the caller lets the schedule take (util/mem_limit.h): a
	 * schedule estimated at more than 3/4 of it is refused up front,
	 * NULL with errno E2BIG and a message naming the limit, rather
	 * than ending in the OOM killer or a failed allocation half way.
	 * NULL: no limit.  The policy is the caller's: the library never
	 * asks the host on its own. */
	const struct cc_mem_limit *mem_limit;
	/* Only rank `rank`'s ops (cc_schedule.one_rank): what one process of
	 * a job that runs a rank each needs.  The schedule then holds every
	 * rank's resources and one rank's ops, about 1/k of the whole (a ring
	 * allreduce's ops grow as k^2, one rank's as k), and takes as long to
	 * build.  A rank's ops are the same as in the whole schedule: each
	 * rank's are built from its own connections' state alone. */
	bool one_rank;
	uint32_t rank;
	/* Generated as it runs where the algorithm allows (core/gen.h,
	 * cc_gen_supported(): the ring), for the simulator: every rank's
	 * resources now, its ops as the run asks.  Weighed as one rank's
	 * ops; not validated op by op (cc_schedule_validate), its ops being
	 * the built schedule's (tests/test_gen.c). */
	bool generated;
};
struct cc_schedule *cc_build_with(const struct cc_coll_params *p, const struct cc_build_opts *o,
				  char *err, size_t errlen);
/* CLOCK_MONOTONIC in nanoseconds: the clock of build deadlines. */
uint64_t cc_clock_ns(void);

/* What cc_build() weighs (bytes, roughly, from above): `ops`, the ops of
 * p's schedule with an executor's per-op state, and `staging`, the
 * staging buffers every rank registers (allocated by an executor that
 * carries them, not by the build). */
void cc_build_estimate(const struct cc_coll_params *p, double *ops, double *staging);
/* About how many ops p's schedule has, from above as the bytes above are
 * (its connections' resources counted as ops too): what the time to
 * simulate it grows with. */
double cc_build_estimate_ops(const struct cc_coll_params *p);

/* Whether algorithm a splits over channels (nchannels > 1): the ring, the
 * tree and NVLS, as NCCL's. */
bool cc_algo_splits_channels(enum cc_algo a);
/* Whether algorithm a runs on multicast QPs (NVLink SHARP: nvls), which
 * need every rank on one host with an NVSwitch, and which only an
 * executor that models the switch runs. */
bool cc_algo_multicast(enum cc_algo a);
/* Whether p is a tree allreduce on nodes of ranks_per_node > 1 ranks,
 * whose trees then join nodes, a chain each (core/tree.c): the nodes must
 * tile the ranks (cc_params_check). */
bool cc_tree_on_nodes(const struct cc_coll_params *p);

/* The chunk p's schedule is built with: p->chunk_bytes, but for the
 * tree's Simple and LL128 protocols when nobody gave it (chunk_auto),
 * where NCCL's rules size it by the message (cc_tree_chunk_bytes).
 * cc_build() and cc_algo_primitives() apply it; the schedule's params
 * record it. */
uint64_t cc_coll_chunk_bytes(const struct cc_coll_params *p);
/* Whether that chunk depends on the size (then p->chunk_bytes is unused). */
bool cc_coll_chunk_per_size(const struct cc_coll_params *p);
/* NCCL's tree chunk (src/enqueue.cc computeColl, the allreduce's pattern
 * TreeUpDown; cclab's broadcast and reduce trees take it too, NCCL having
 * none).  Simple: one slot, halved while a tree's share of the message
 * makes fewer than 8 depth chunks (down to 128 KiB), 4 depth (64 KiB),
 * depth (32 KiB).  LL128: one slot's lines, halved while the share makes
 * fewer than 64 nsteps / ppn chunks (down to 128 KiB of lines), 16 nsteps
 * / ppn (32 KiB), nsteps = 1 + log2i(nodes) + 0.1 ppn; the data of the
 * lines.  LL keeps its one slot (NCCL has no rule for it). */
uint64_t cc_tree_chunk_bytes(const struct cc_coll_params *p);

/* Ring algorithms (core/ring.c), NCCL's src/device/{all_reduce,
 * reduce_scatter,all_gather}.h runRing. */
struct cc_schedule *cc_build_ring(const struct cc_coll_params *p);

/* The other algorithms' builders take k >= 2 and count >= 1: cc_build()
 * gives the ring those.  Recursive halving-doubling allreduce
 * (core/halving.c). */
struct cc_schedule *cc_build_hd(const struct cc_coll_params *p);
/* Direct reduce-scatter, all-gather and allreduce (core/direct.c). */
struct cc_schedule *cc_build_direct(const struct cc_coll_params *p);
/* NCCL's double binary tree allreduce (core/tree.c). */
struct cc_schedule *cc_build_tree(const struct cc_coll_params *p);
/* Hierarchical allreduce (core/hier.c): a reduce-scatter ring inside each
 * node (NVLink), a ring allreduce per rail across nodes (each rank with
 * the ranks of the same local index), an all-gather ring inside each
 * node.  Needs ranks_per_node dividing nranks. */
struct cc_schedule *cc_build_hier(const struct cc_coll_params *p);
/* NVLink SHARP inside one node (core/nvls.c): allreduce, reduce-scatter
 * and all-gather on multicast QPs, NCCL's NVLS; and, for an allreduce on
 * several nodes, NCCL's NVLSTree: NVLS in each node, the nodes joined by
 * double binary trees over the network (core/nvls_tree.c). */
struct cc_schedule *cc_build_nvls(const struct cc_coll_params *p);
/* NCCL's CollNetChain allreduce (core/collnet.c): a chain through each
 * node's ranks, the nodes joined by SHARP's in-network reduction on
 * multicast QPs of every node's head of a channel. */
struct cc_schedule *cc_build_collnet(const struct cc_coll_params *p);

/* Whether algorithm a builds collective c (core/algo.c's table: ring all
 * but all-to-all, direct all, tree allreduce, broadcast and reduce,
 * halving-doubling and hierarchical allreduce only). */
int cc_algo_supports(enum cc_algo a, enum cc_coll c);
/* The algorithms that build c, for a message ("ring or direct"), from the
 * same table, into buf (CC_ALGO_HINT_LEN bytes). */
#define CC_ALGO_HINT_LEN 96
const char *cc_algo_support_hint(enum cc_coll c, char *buf, size_t len);
/* What -A defaults to for c: ring, or direct for all-to-all (NCCL's is
 * point-to-point sends). */
enum cc_algo cc_algo_default(enum cc_coll c);

/* One primitive step of one rank, as NCCL's runRing executes it. */
struct cc_prim_step {
	enum cc_prim prim;
	uint16_t channel;
	uint32_t chunk; /* loop * nranks + chunk (or block) index */
	uint32_t step;  /* in the loop */
	uint64_t nelem; /* elements the step moves; 0 for an empty chunk */
};
typedef void (*cc_prim_fn)(void *ctx, uint32_t rank, const struct cc_prim_step *st);

/* Calls fn for every primitive step of rank, in order, empty chunks
 * included (NCCL runs those steps with nelem = 0).  k = 1: one "copy". */
void cc_ring_primitives(const struct cc_coll_params *p, uint32_t rank, cc_prim_fn fn, void *ctx);
/* The same for halving-doubling: per swap a send and a receive (their
 * step numbers equal), tagged chunk = the swap's index. */
void cc_hd_primitives(const struct cc_coll_params *p, uint32_t rank, cc_prim_fn fn, void *ctx);
/* The same for the tree: per chunk of each tree, up then down (channel =
 * the tree). */
void cc_tree_primitives(const struct cc_coll_params *p, uint32_t rank, cc_prim_fn fn, void *ctx);
/* The same for direct: step i sends to r+i and receives from r-i. */
void cc_direct_primitives(const struct cc_coll_params *p, uint32_t rank, cc_prim_fn fn,
			  void *ctx);
/* The same for hierarchical: its three phases in order (channel = the
 * phase: 0 intra-node reduce-scatter, 1 inter-node, 2 all-gather). */
void cc_hier_primitives(const struct cc_coll_params *p, uint32_t rank, cc_prim_fn fn, void *ctx);
/* The same for NVLS: per channel and loop its scatter, its head's step
 * (directRecvDirectSend for allreduce, recv for reduce-scatter, send for
 * all-gather) and its gather (chunk = loop * k, + the head's rank for the
 * head's step). */
void cc_nvls_primitives(const struct cc_coll_params *p, uint32_t rank, cc_prim_fn fn, void *ctx);
/* The algorithm's own walk: p->algo's; the ring's for k = 1 or an empty
 * array, as cc_build.  (The non-ring listings above take k >= 2 and
 * count >= 1, as their builders.) */
void cc_algo_primitives(const struct cc_coll_params *p, uint32_t rank, cc_prim_fn fn, void *ctx);

/* The primitive listing of docs/schedule.md for checked parameters, without
 * building the schedule; rank -1: every rank. */
void cc_print_primitives(FILE *f, const struct cc_coll_params *p, int rank);

/* Number of primitive steps per loop (2k-1 for allreduce, k for
 * reduce-scatter and all-gather, 1 for k = 1). */
uint32_t cc_ring_steps(enum cc_coll coll, uint32_t nranks);

/* nccl-tests' bus bandwidth factor: busbw = algbw * factor. */
double cc_busbw_factor(enum cc_coll coll, uint32_t nranks);
/* The bytes, per byte of nccl-tests' size, that some rank must move
 * through its ports one way at least, whatever the schedule: the busbw
 * factor (Patarasuk and Yuan for allreduce), but for an algorithm that
 * reduces in the switch (cc_algo_multicast()) allreduce's 1 — every
 * rank's N must leave it and the result come back, once each. */
double cc_port_factor(const struct cc_coll_params *p);

#endif
