/* SPDX-License-Identifier: BSD-3-Clause */
/* core/nccl_auto.c — NCCL's choice, applied to a run (core/nccl_auto.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/algo.h"
#include "core/nccl_auto.h"

void cc_nccl_auto_init(struct cc_nccl_auto *a)
{
	memset(a, 0, sizeof(*a));
	a->version = cc_nccl_version_default;
	cc_nccl_env_init(&a->env);
}

bool cc_nccl_env_inert(const char *name)
{
	/* Logging, device and interface selection, bootstrap and launch
	 * settings (docs.nvidia.com NCCL "Environment Variables"): none moves
	 * the choice of algorithm, protocol or channels on the hardware a
	 * scenario describes. */
	static const char *const inert[] = {
		"NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE", "NCCL_SOCKET_IFNAME",
		"NCCL_SOCKET_FAMILY", "NCCL_IB_HCA", "NCCL_IB_GID_INDEX", "NCCL_IB_DISABLE",
		"NCCL_IB_TIMEOUT", "NCCL_IB_RETRY_CNT", "NCCL_IB_SL", "NCCL_IB_TC",
		"NCCL_IB_PCI_RELAXED_ORDERING", "NCCL_IB_ROCE_VERSION_NUM", "NCCL_P2P_LEVEL",
		"NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE", "NCCL_NET", "NCCL_NET_PLUGIN",
		"NCCL_TOPO_FILE", "NCCL_TOPO_DUMP_FILE", "NCCL_GRAPH_DUMP_FILE",
		"NCCL_CUMEM_ENABLE", "NCCL_LAUNCH_MODE", "NCCL_ASYNC_ERROR_HANDLING",
		"NCCL_COMM_BLOCKING", "NCCL_CROSS_NIC", "NCCL_IGNORE_CPU_AFFINITY",
		"NCCL_TESTS_SPLIT_MASK", NULL,
	};

	for (const char *const *n = inert; *n; n++)
		if (!strcmp(*n, name))
			return true;
	return false;
}

enum cc_algo cc_nccl_algo_cclab(const struct cc_nccl_comm *c, enum cc_nccl_algo a,
				enum cc_coll coll)
{
	enum cc_algo x;

	switch (a) {
	case CC_NCCL_RING:
		x = CC_ALGO_RING;
		break;
	case CC_NCCL_TREE:
		x = CC_ALGO_TREE;
		break;
	case CC_NCCL_NVLS:
		/* NCCL's NVLS on several nodes adds a network stage
		 * (src/device/all_reduce.h, the NVLS case's scatter to the
		 * network heads) that core/nvls.c does not build. */
		if (c->sys.nnodes != 1)
			return CC_ALGO_COUNT;
		x = CC_ALGO_NVLS;
		break;
	case CC_NCCL_NVLS_TREE:
		/* NVLS in each node, trees between them (core/nvls_tree.c) */
		if (c->sys.nnodes < 2)
			return CC_ALGO_COUNT;
		x = CC_ALGO_NVLS_TREE;
		break;
	case CC_NCCL_COLLNET_CHAIN:
		/* a chain in each node, SHARP between them (core/collnet.c) */
		if (c->sys.nnodes < 2)
			return CC_ALGO_COUNT;
		x = CC_ALGO_COLLNET_CHAIN;
		break;
	default:
		return CC_ALGO_COUNT;
	}
	return cc_algo_supports(x, coll) ? x : CC_ALGO_COUNT;
}

int cc_nccl_auto_params(const struct cc_nccl_auto *a, uint64_t bytes, bool slot_given,
			bool chunk_given, struct cc_coll_params *p, struct cc_nccl_pick *pick,
			char *err, size_t len)
{
	struct cc_nccl_pick own;
	int rc;

	if (!a || !cc_nccl_auto_any(a))
		return 0;
	if (!pick)
		pick = &own;
	if ((rc = cc_nccl_auto_apply(a, bytes, p, pick, err, len)))
		return rc;
	/* The protocol's slot and chunk, unless given (core/schedule.h);
	 * NCCL's point-to-point step for Simple (LL keeps cclab's lines). */
	cc_coll_params_fill(p, slot_given, chunk_given);
	if (pick->p2p && !slot_given && p->proto == CC_PROTO_SIMPLE && pick->proto == p->proto)
		p->slot_bytes = pick->slot_bytes;
	/* NCCL's ring moves a slice of SLICESTEPS = NCCL_STEPS / 4 = 2 steps
	 * a message, CHUNKSTEPS = NCCL_STEPS / 2 a chunk (all-reduce,
	 * reduce-scatter, all-gather: src/include/collectives.h), where a
	 * slot here is one step (cc_coll_params_fill()) of NCCL_STEPS; other
	 * slot counts are cclab's own geometry, cut in slots. */
	p->slice_steps = 0;
	if (!slot_given && !chunk_given && !pick->p2p && p->proto == CC_PROTO_SIMPLE &&
	    p->algo == CC_ALGO_RING && p->nslots == CC_DEFAULT_NSLOTS && cc_coll_ring_looped(p->coll))
		p->slice_steps = CC_DEFAULT_NSLOTS / 4;
	return 0;
}

void cc_nccl_p2p_pick(const struct cc_nccl_comm *c, enum cc_coll coll, uint64_t bytes,
		      struct cc_nccl_pick *pick)
{
	struct cc_nccl_p2p x;
	uint32_t k = c->sys.nranks;
	uint64_t peer = coll == CC_ALLTOALL && k ? bytes / k : bytes;
	/* nccl-tests' sendrecv.cu tells a 2.30 communicator it has 2 peers
	 * (ncclConfig_t maxP2pPeers) */
	uint32_t peers = coll == CC_SENDRECV && cc_nccl_version_cmp(&c->version, 2, 30, 0) >= 0
				 ? 2 : 0;

	cc_nccl_p2p(c, peer, peers, &x);
	*pick = (struct cc_nccl_pick){
		.nccl = { .proto = x.proto, .nchannels = x.nchannels, .time_us = -1 },
		.cclab_algo = CC_ALGO_DIRECT, .proto = x.proto, .nchannels = x.nchannels,
		.p2p = true, .slot_bytes = x.chunk_bytes,
	};
}

/* All-to-all and sendrecv: NCCL's point-to-point rules. */
static void p2p_apply(const struct cc_nccl_auto *a, uint64_t bytes, struct cc_coll_params *p,
		      struct cc_nccl_pick *pick)
{
	cc_nccl_p2p_pick(&a->comm, p->coll, bytes, pick);
	if (a->algo) {
		p->algo = CC_ALGO_DIRECT;
		p->ring_order = CC_RING_ORDER_RANK; /* no ring to order */
	}
	if (a->proto)
		p->proto = pick->proto;
	if (a->channels)
		p->nchannels = pick->nchannels;
	/* what runs, which a fixed setting may make other than the choice */
	pick->proto = p->proto;
	pick->nchannels = p->nchannels ? p->nchannels : 1;
	pick->given = pick->proto != pick->nccl.proto || pick->nchannels != pick->nccl.nchannels;
}

/* NCCL's algorithm that cclab builds as `built` for coll on c, or
 * CC_NCCL_ALGO_COUNT where NCCL has none (halving-doubling, ...): the
 * other way round from cc_nccl_algo_cclab(). */
static enum cc_nccl_algo nccl_algo_of(const struct cc_nccl_comm *c, enum cc_coll coll,
				      enum cc_algo built)
{
	for (int x = 0; x < CC_NCCL_ALGO_COUNT; x++)
		if (cc_nccl_algo_cclab(c, (enum cc_nccl_algo)x, coll) == built)
			return (enum cc_nccl_algo)x;
	return CC_NCCL_ALGO_COUNT;
}

/* NCCL's table with what the user fixed taken as NCCL_ALGO and
 * NCCL_PROTO would take it: only the fixed algorithm (where NCCL has it)
 * and the fixed protocol keep their bandwidth, so the choice is NCCL's
 * under that setting and names what runs.  False: nothing fixed that
 * NCCL could mask. */
static bool mask_fixed(const struct cc_nccl_auto *a, const struct cc_coll_params *p,
		       struct cc_nccl_comm *masked)
{
	bool algo_known = nccl_algo_of(&a->comm, p->coll, p->algo) != CC_NCCL_ALGO_COUNT;

	if ((a->algo || !algo_known) && a->proto)
		return false;
	*masked = a->comm;
	for (int x = 0; x < CC_NCCL_ALGO_COUNT; x++)
		for (int q = 0; q < CC_PROTO_COUNT; q++)
			if ((!a->algo && algo_known &&
			     cc_nccl_algo_cclab(&a->comm, (enum cc_nccl_algo)x, p->coll) != p->algo) ||
			    (!a->proto && q != (int)p->proto))
				masked->bw[p->coll][x][q] = 0;
	return true;
}

/* n of cclab's channels of `built` as NCCL counts them (the inverse of
 * cc_nccl_channels_as()). */
static uint32_t channels_nccl(enum cc_algo built, enum cc_coll coll, uint32_t n)
{
	return built == CC_ALGO_TREE && !cc_coll_rooted(coll) ? 2 * n : n;
}

int cc_nccl_auto_apply(const struct cc_nccl_auto *a, uint64_t bytes, struct cc_coll_params *p,
		       struct cc_nccl_pick *pick, char *err, size_t len)
{
	struct cc_nccl_comm masked;
	const struct cc_nccl_comm *c = &a->comm;
	struct cc_nccl_choice run;
	enum cc_algo built;
	int rc;

	if (cc_coll_p2p(p->coll)) {
		p2p_apply(a, bytes, p, pick);
		return 0;
	}
	pick->p2p = false;
	pick->slot_bytes = 0;
	/* A fixed algorithm or protocol narrows NCCL's choice, as its
	 * variables would; where that leaves nothing (LL128 off on this GPU),
	 * the choice stays NCCL's own and the row says what ran instead. */
	if (mask_fixed(a, p, &masked) &&
	    !cc_nccl_choose(&masked, p->coll, bytes, &pick->nccl, err, len))
		c = &masked;
	else if ((rc = cc_nccl_choose(c, p->coll, bytes, &pick->nccl, err, len)))
		return rc;
	run = pick->nccl;
	built = cc_nccl_algo_cclab(c, run.algo, p->coll);
	pick->stand_in = built == CC_ALGO_COUNT;
	if (pick->stand_in) {
		/* NCCL's best of what cclab builds: the same model with the
		 * other algorithms' bandwidth taken away (bw 0: not available). */
		struct cc_nccl_comm only = *c;

		for (int x = 0; x < CC_NCCL_ALGO_COUNT; x++)
			if (cc_nccl_algo_cclab(c, (enum cc_nccl_algo)x, p->coll) == CC_ALGO_COUNT)
				for (int q = 0; q < CC_PROTO_COUNT; q++)
					only.bw[p->coll][x][q] = 0;
		if (cc_nccl_choose(&only, p->coll, bytes, &run, err, len)) {
			snprintf(err, len, "NCCL chooses %s for %s, which cclab does not build, and "
				 "NCCL_ALGO / NCCL_PROTO leave none that it does (Ring%s)",
				 cc_nccl_algo_name[pick->nccl.algo], cc_coll_name[p->coll],
				 p->coll == CC_ALLREDUCE ? ", Tree" : "");
			return -ENOENT;
		}
		built = cc_nccl_algo_cclab(c, run.algo, p->coll);
	}
	if (a->algo) {
		p->algo = built;
		/* rail order is the ring's (NCCL's trees follow no rails) */
		if (p->algo != CC_ALGO_RING)
			p->ring_order = CC_RING_ORDER_RANK;
	}
	if (a->proto)
		p->proto = run.proto;
	if (a->channels)
		p->nchannels = cc_nccl_channels_as(p->algo, p->coll, run.nchannels);
	/* what runs, which a fixed setting may make other than the choice */
	enum cc_nccl_algo ran = nccl_algo_of(c, p->coll, p->algo);

	pick->algo = ran != CC_NCCL_ALGO_COUNT ? ran : run.algo;
	pick->ran_cclab_only = ran == CC_NCCL_ALGO_COUNT;
	pick->cclab_algo = p->algo;
	pick->proto = p->proto;
	pick->nchannels = a->channels ? run.nchannels
				      : channels_nccl(p->algo, p->coll, p->nchannels ? p->nchannels : 1);
	pick->given = built != p->algo || p->proto != run.proto || pick->nchannels != run.nchannels;
	return 0;
}

uint32_t cc_nccl_channels_as(enum cc_algo built, enum cc_coll coll, uint32_t n)
{
	if (built == CC_ALGO_TREE && !cc_coll_rooted(coll))
		return (n + 1) / 2;
	return n;
}

/* As NCCL_PROTO and NCCL's logs spell them. */
static const char *const nccl_proto_name[CC_PROTO_COUNT] = {
	[CC_PROTO_SIMPLE] = "Simple", [CC_PROTO_LL] = "LL", [CC_PROTO_LL128] = "LL128",
};

const char *cc_nccl_choice_text(const struct cc_nccl_choice *ch, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s %uch", cc_nccl_algo_name[ch->algo], nccl_proto_name[ch->proto],
		 ch->nchannels);
	return buf;
}

const char *cc_nccl_pick_algo_name(const struct cc_nccl_pick *pick)
{
	if (pick->p2p)
		return "P2P";
	return pick->ran_cclab_only ? cc_algo_name[pick->cclab_algo] : cc_nccl_algo_name[pick->algo];
}

const char *cc_nccl_pick_text(const struct cc_nccl_pick *pick, char *buf, size_t len)
{
	const struct cc_nccl_choice *n = &pick->nccl;
	int k;

	if (pick->p2p)
		k = snprintf(buf, len, "P2P/%s %uch %" PRIu64 "KiB", nccl_proto_name[n->proto],
			     n->nchannels, pick->slot_bytes >> 10);
	else
		k = (int)strlen(cc_nccl_choice_text(n, buf, len));

	if (pick->given && k >= 0 && (size_t)k < len)
		snprintf(buf + k, len - (size_t)k, "; ran %s/%s %uch (as set)",
			 cc_nccl_pick_algo_name(pick), nccl_proto_name[pick->proto],
			 pick->nchannels);
	else if (pick->stand_in && k >= 0 && (size_t)k < len)
		snprintf(buf + k, len - (size_t)k, "; ran %s/%s %uch (%s not modelled%s)",
			 cc_nccl_pick_algo_name(pick), nccl_proto_name[pick->proto],
			 pick->nchannels, cc_nccl_algo_name[n->algo],
			 n->algo == CC_NCCL_NVLS ? " on several nodes" : "");
	return buf;
}
