/* SPDX-License-Identifier: BSD-3-Clause */
/* core/nccl_auto.h — `auto`: the algorithm, protocol and channel count a
 * run takes from NCCL's own choice at each size (core/nccl_tune.h), as
 * nccl-tests gets them from NCCL, so that a predicted table is of what a
 * real run does.
 *
 * NCCL may choose an algorithm cclab does not build yet (CollNet, PAT,
 * NVLS on several nodes).  Then the size runs NCCL's best of ring and
 * tree (allreduce), under the same NCCL_ALGO and NCCL_PROTO, and its row
 * says so: never a silent stand-in. */
#ifndef CCLAB_CORE_NCCL_AUTO_H
#define CCLAB_CORE_NCCL_AUTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/nccl_tune.h"
#include "core/schedule.h"

/* Which parameters NCCL chooses, and the model it chooses with. */
struct cc_nccl_auto {
	bool algo, proto, channels; /* `auto` for each; none: the run's own */
	struct cc_nccl_version version;
	struct cc_nccl_env env;
	struct cc_nccl_comm comm;   /* cc_nccl_comm_init() of version, env, system */
};

/* What one size ran and why. */
struct cc_nccl_pick {
	struct cc_nccl_choice nccl; /* NCCL's choice */
	enum cc_nccl_algo algo;     /* what runs: nccl.algo, or the stand-in */
	enum cc_algo cclab_algo;    /* the same as cclab's algorithm */
	enum cc_proto proto;
	uint32_t nchannels;         /* NCCL's count (cc_nccl_channels_as: cclab's) */
	bool stand_in;              /* nccl.algo is not one cclab builds */
	bool ran_cclab_only;        /* what ran is an algorithm NCCL has not
				     * (halving-doubling, ...): algo is then nccl's */
	bool given;                 /* what ran is not nccl: a setting the user fixed
				     * (-A, -P, --channels) made it other */
	/* All-to-all and sendrecv: NCCL's point-to-point path, no algorithm
	 * (nccl.algo means nothing), cclab's `direct` on its channels, with
	 * a slot of the data one step carries (cc_nccl_p2p). */
	bool p2p;
	uint64_t slot_bytes;
};

/* The channels cclab's algorithm `built` takes for NCCL's n channels:
 * the same count, but the tree allreduce's `channels` are pairs (tree 0
 * and its mirror, core/tree.c) where each NCCL channel runs one tree of
 * the two (src/graph/connect.cc: the first half of the communicator's
 * channels on tree 0, the duplicates on tree 1), so half of them, rounded
 * up.  `built` is what runs, NCCL's pick or an algorithm given. */
uint32_t cc_nccl_channels_as(enum cc_algo built, enum cc_coll coll, uint32_t n);

/* The defaults: nothing auto, the newest release's rules, NCCL's env. */
void cc_nccl_auto_init(struct cc_nccl_auto *a);
static inline bool cc_nccl_auto_any(const struct cc_nccl_auto *a)
{
	return a->algo || a->proto || a->channels;
}

/* Whether a ring NCCL picks for collective coll on system s leaves and
 * enters each node on one rail (cc_coll_params.ring_order rail): its graph
 * search finds such rings wherever nodes hold several GPUs
 * (src/graph/search.cc, connect.cc), so `auto` runs them unless a ring
 * order is given.  All-to-all and sendrecv run no ring. */
static inline bool cc_nccl_rail_rings(const struct cc_nccl_auto *a, enum cc_coll coll,
				      const struct cc_nccl_system *s)
{
	return a->algo && !cc_coll_p2p(coll) && s->nnodes > 1 && s->nranks > s->nnodes;
}

/* Whether `name` is a variable NCCL reads that changes nothing cclab
 * models (NCCL_DEBUG, NCCL_IB_HCA, NCCL_SOCKET_IFNAME, ...): a case states
 * its source's environment whole, and these are taken and ignored, while
 * a misspelt name is still refused. */
bool cc_nccl_env_inert(const char *name);

/* NCCL's algorithm as cclab builds it on communicator c, or CC_ALGO_COUNT
 * when it has none for collective coll there (NVLS: cclab's nvls, one
 * NVSwitch node only; NVLSTree: nvlstree, several nodes; CollNet, PAT:
 * none). */
enum cc_algo cc_nccl_algo_cclab(const struct cc_nccl_comm *c, enum cc_nccl_algo a,
				enum cc_coll coll);

/* The choice for a size of `bytes` (the size column) of p's collective:
 * sets p's algorithm, protocol and channels where a says auto, and *pick.
 * 0, or -ENOENT with a message in err when NCCL_ALGO / NCCL_PROTO leave
 * nothing that cclab can run. */
int cc_nccl_auto_apply(const struct cc_nccl_auto *a, uint64_t bytes, struct cc_coll_params *p,
		       struct cc_nccl_pick *pick, char *err, size_t len);

/* p's collective as it runs at `bytes` (the size column): under a (NULL
 * or nothing auto: p as it is), NCCL's choice (cc_nccl_auto_apply), then
 * the protocol's slot and chunk unless the user gave them
 * (cc_coll_params_fill).  What `cclab sim`, `cclab run` and libcclab
 * build for a size; *pick may be NULL.  0, or cc_nccl_auto_apply's error. */
int cc_nccl_auto_params(const struct cc_nccl_auto *a, uint64_t bytes, bool slot_given,
			bool chunk_given, struct cc_coll_params *p, struct cc_nccl_pick *pick,
			char *err, size_t len);

/* All-to-all and sendrecv (cc_coll_p2p) at a size of `bytes` (the size
 * column; all-to-all's peer gets a k-th) on communicator c: NCCL's
 * point-to-point rules (cc_nccl_p2p) as a pick of `direct`. */
void cc_nccl_p2p_pick(const struct cc_nccl_comm *c, enum cc_coll coll, uint64_t bytes,
		      struct cc_nccl_pick *pick);

/* NCCL's choice as its logs say it: "Ring/LL 4ch"; point-to-point:
 * "P2P/Simple 2ch 128KiB" (the data of a step). */
const char *cc_nccl_choice_text(const struct cc_nccl_choice *ch, char *buf, size_t len);
/* "Ring/LL 4ch" or, for a stand-in, "NVLS/Simple 16ch; ran Ring/Simple
 * 32ch (NVLS not modelled)", or where a fixed setting made the run other,
 * "Tree/LL128 16ch; ran Tree/Simple 8ch (as set)": what the table's row
 * notes. */
#define CC_NCCL_PICK_TEXT_LEN 96
/* The algorithm that ran, as NCCL names it ("Ring", "P2P"), or cclab's
 * name for a fixed one NCCL has not ("halving-doubling"). */
const char *cc_nccl_pick_algo_name(const struct cc_nccl_pick *pick);
const char *cc_nccl_pick_text(const struct cc_nccl_pick *pick, char *buf, size_t len);

#endif /* CCLAB_CORE_NCCL_AUTO_H */
