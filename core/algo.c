/* SPDX-License-Identifier: BSD-3-Clause */
/* core/algo.c — parameter checks shared by every algorithm, and dispatch. */
#include "algo.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "algo_int.h"
#include "conn.h"
#include "gen.h"
#include "util/mem_limit.h"

/* Largest single WQE payload: ibv_sge.length is 32 bits and IBA limits a
 * message to 2^31 bytes (IBA 9.4.x, "maximum message size"). */
#define CC_MAX_MSG_BYTES (1ull << 31)
#define CC_MAX_CHANNELS 64u /* NCCL's MAXCHANNELS */

uint32_t cc_ring_steps(enum cc_coll coll, uint32_t nranks)
{
	if (nranks <= 1 || cc_coll_rooted(coll))
		return 1; /* broadcast, reduce: one primitive per chunk */
	return coll == CC_ALLREDUCE ? 2 * nranks - 1 : nranks;
}

double cc_busbw_factor(enum cc_coll coll, uint32_t nranks)
{
	/* nccl-tests doc/PERFORMANCE.md: allreduce 2(n-1)/n, reduce-scatter,
	 * all-gather and all-to-all (n-1)/n, broadcast and reduce 1; sendrecv
	 * 1 (src/sendrecv.cu SendRecvGetBw: one peer's whole buffer). */
	if (nranks == 0)
		return 0;
	double f = (double)(nranks - 1) / nranks;
	if (coll == CC_BROADCAST || coll == CC_REDUCE || coll == CC_SENDRECV)
		return 1;
	return coll == CC_ALLREDUCE ? 2 * f : f;
}

/* Ops a slice costs a side: about 7 (sender: produce, wait, post,
 * doorbell, poll; receiver: arrival, post_recv, CTS post, doorbell, poll),
 * and 3 more for each further QP a slice cut over a connection's QPs
 * takes (its post, CQE and receive: cc_coll_params.split_on_qps). */
static double ops_per_side(const struct cc_coll_params *p)
{
	uint32_t nq = p->qps_per_conn > 1 ? p->qps_per_conn : 1;

	return 7 + (p->split_on_qps ? 3.0 * (nq - 1) : 0);
}

/* The bytes an op takes, in the schedule and the executors' state. */
#define OP_BYTES ((double)sizeof(struct cc_op) + 64)

/* An upper bound on the memory a ring schedule's ops take, with the data
 * executor's per-op state: ops_per_side() a side per slice, slices <=
 * elements moved / slot + one partial slice per step of every channel's
 * loops (each channel loops over its own part), or per element moved
 * where there are fewer. */
static double ring_ops_bytes(const struct cc_coll_params *p, size_t es)
{
	uint32_t spc;
	uint64_t min;

	cc_conns_cut(p, &spc, &min);
	double k = p->nranks, slot = (double)(cc_conns_slice_bytes(p) / es);
	double chunk = (double)(p->chunk_bytes / es), n = (double)p->count;
	double ch = p->nchannels > 1 ? p->nchannels : 1;
	double loops, steps, moved;
	if (p->coll == CC_ALLREDUCE) {
		loops = n / ch / (k * chunk) + 1;
		steps = 2 * k - 1;
		moved = 2 * n;
	} else if (p->coll == CC_BROADCAST || p->coll == CC_REDUCE) {
		loops = n / ch / chunk + 1; /* a chain: a step a loop, n through each rank */
		steps = 1;
		moved = n;
	} else {
		loops = n / ch / chunk + 1;
		steps = k;
		moved = n * k;
	}
	/* a partial slice carries an element at least; NCCL's cut
	 * (cc_conns_cut()) makes a short step up to spc slices */
	double partial = ch * loops * steps < moved ? ch * loops * steps : moved;
	double slices = moved / slot + spc * partial;
	return k * 2 * ops_per_side(p) * slices * OP_BYTES;
}

/* The same count walked over every rank's primitive steps
 * (cc_algo_primitives), for the algorithms whose steps are not the
 * ring's: per step, its slices (a partial one included) for each side it
 * has, and its calc. */
struct walked {
	uint64_t slot; /* a slice's elements, */
	uint32_t spc;  /* and how a step is cut (cc_conns_cut()) */
	uint64_t min;
	double slices;
};

static void walk_step(void *ctx, uint32_t rank, const struct cc_prim_step *st)
{
	struct walked *w = ctx;
	uint64_t len = cc_conns_cut_elems(w->spc, w->min, w->slot, st->nelem);
	double slices = (double)(st->nelem / len + (st->nelem % len != 0));

	(void)rank;
	if (st->nelem) /* an empty chunk makes no op */
		w->slices += slices * (cc_prim_sends(st->prim) + cc_prim_recvs(st->prim)) + 1;
}

static double walked_ops_bytes(const struct cc_coll_params *p, size_t es)
{
	struct walked w = { .slot = cc_conns_slice_bytes(p) / es ? cc_conns_slice_bytes(p) / es : 1 };

	cc_conns_cut(p, &w.spc, &w.min);

	for (uint32_t r = 0; r < p->nranks; r++)
		cc_algo_primitives(p, r, walk_step, &w);
	return ops_per_side(p) * w.slices * OP_BYTES;
}

/* What the walk may cost at most, in primitive steps (with the tree's
 * per-call work counted as steps): past it the closed form stands in,
 * which errs high for these algorithms (direct on 4097 ranks: about
 * twice its schedule). */
#define WALK_STEPS_MAX (1u << 25)

/* ---- the algorithms, one entry each ----
 *
 * A new algorithm is one entry here and its builder's file: cc_build,
 * cc_algo_primitives, the collectives it builds, whether it splits over
 * channels and how much staging it holds are read from the entry, not from
 * chains of ifs. */

#define COLL(c) (1u << (c))
#define ALL_COLLS (COLL(CC_COLL_COUNT) - 1)

static const struct algo_desc {
	struct cc_schedule *(*build)(const struct cc_coll_params *p);
	void (*primitives)(const struct cc_coll_params *p, uint32_t rank, cc_prim_fn fn,
			   void *ctx);
	unsigned colls;       /* COLL() of each collective it builds */
	bool splits_channels; /* --channels: a ring (or tree pair) per channel */
	bool chunked;         /* moves chunks: a slot carries at most one */
	cc_algo_staging_fn staging;          /* NULL: the ring's */
	cc_algo_check_fn check;              /* its own parameter rules; NULL: none */
	bool (*chunk_per_size)(const struct cc_coll_params *p); /* NULL: never */
	uint64_t (*chunk_bytes)(const struct cc_coll_params *p); /* when per size */
	cc_algo_ops_fn schedule_bytes;       /* its own estimate; NULL: below */
	/* The primitive steps walking its ranks costs at most: the estimate
	 * walks them (walked_ops_bytes()) while few enough; NULL: the ring's
	 * closed form. */
	double (*walk_steps)(const struct cc_coll_params *p);
	bool multicast;       /* runs on multicast QPs: cc_algo_multicast() */
	cc_gen_prepare_fn gen; /* generated as it runs (core/gen.h); NULL: built whole */
} algos[CC_ALGO_COUNT] = {
	[CC_ALGO_RING] = { .build = cc_build_ring, .primitives = cc_ring_primitives,
			   .colls = ALL_COLLS & ~COLL(CC_ALLTOALL) & ~COLL(CC_SENDRECV),
			   .splits_channels = true,
			   .chunked = true, .check = cc_ring_check, .gen = cc_ring_gen_prepare },
	[CC_ALGO_HALVING_DOUBLING] = { .build = cc_build_hd, .primitives = cc_hd_primitives,
				       .colls = COLL(CC_ALLREDUCE), .staging = cc_hd_staging,
				       .walk_steps = cc_hd_walk_steps },
	[CC_ALGO_DIRECT] = { .build = cc_build_direct, .primitives = cc_direct_primitives,
			     .colls = ALL_COLLS, .splits_channels = true,
			     .staging = cc_direct_staging, .walk_steps = cc_direct_walk_steps },
	[CC_ALGO_TREE] = { .build = cc_build_tree, .primitives = cc_tree_primitives,
			   .colls = COLL(CC_ALLREDUCE) | COLL(CC_BROADCAST) | COLL(CC_REDUCE),
			   .splits_channels = true, .chunked = true, .staging = cc_tree_staging,
			   .check = cc_tree_check, .chunk_per_size = cc_tree_chunk_per_size,
			   .chunk_bytes = cc_tree_chunk_bytes, .gen = cc_tree_gen_prepare,
			   .walk_steps = cc_tree_walk_steps },
	[CC_ALGO_HIER] = { .build = cc_build_hier, .primitives = cc_hier_primitives,
			   .colls = COLL(CC_ALLREDUCE), .chunked = true, .staging = cc_hier_staging,
			   .check = cc_hier_check, .walk_steps = cc_hier_walk_steps },
	[CC_ALGO_NVLS] = { .build = cc_build_nvls, .primitives = cc_nvls_primitives,
			   .colls = COLL(CC_ALLREDUCE) | COLL(CC_REDUCESCATTER) | COLL(CC_ALLGATHER),
			   .splits_channels = true, .chunked = true, .staging = cc_nvls_staging,
			   .check = cc_nvls_check, .chunk_per_size = cc_nvls_chunk_per_size,
			   .chunk_bytes = cc_nvls_chunk_bytes,
			   .schedule_bytes = cc_nvls_schedule_bytes, .multicast = true },
	[CC_ALGO_NVLS_TREE] = { .build = cc_build_nvls, .primitives = cc_nvls_primitives,
				.colls = COLL(CC_ALLREDUCE), .splits_channels = true,
				.chunked = true, .staging = cc_nvls_staging, .check = cc_nvls_check,
				.chunk_per_size = cc_nvls_chunk_per_size,
				.chunk_bytes = cc_nvls_chunk_bytes,
				.schedule_bytes = cc_nvls_schedule_bytes, .multicast = true },
	[CC_ALGO_COLLNET_CHAIN] = { .build = cc_build_collnet, .primitives = cc_collnet_primitives,
				    .colls = COLL(CC_ALLREDUCE), .splits_channels = true,
				    .chunked = true, .staging = cc_collnet_staging,
				    .check = cc_collnet_check,
				    .chunk_per_size = cc_collnet_chunk_per_size,
				    .chunk_bytes = cc_collnet_chunk_bytes, .multicast = true,
				    .gen = cc_collnet_gen_prepare },
};

/* The staging every rank registers: two slot arrays (send and receive)
 * per connection it has — the ring 1 each way, halving-doubling log2 k
 * partners and a fix-up, direct k-1 peers — of slots of at most the
 * largest message (a chunk, for the algorithms that move chunks).  What
 * makes direct a small-k algorithm. */
static double staging_bytes(const struct cc_coll_params *p, size_t es)
{
	const struct algo_desc *a = &algos[p->algo];
	double k = p->nranks, conns = p->nchannels > 1 ? p->nchannels : 1;
	double msg = p->coll == CC_ALLREDUCE ? (double)p->count / k + 1 : (double)p->count;
	double slot = (double)(p->slot_bytes / es);

	if (k == 1)
		return 0;
	if (a->staging)
		a->staging(p, &conns, &msg);
	/* The ring, the tree and hierarchical move a chunk at most (the
	 * tree's NCCL's for the size): a slot is no larger (cc_conns_build). */
	if (a->chunked && (double)(p->chunk_bytes / es) < msg)
		msg = (double)(p->chunk_bytes / es);
	return k * 2 * conns * p->nslots *
	       (double)cc_proto_wire_bytes(p->proto, (uint64_t)(slot < msg ? slot : msg) * es);
}

/* -EINVAL, field at fault and its message. */
static int refuse(enum cc_param *field, enum cc_param f, char *err, size_t errlen,
		  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int refuse(enum cc_param *field, enum cc_param f, char *err, size_t errlen,
		  const char *fmt, ...)
{
	va_list ap;

	if (field)
		*field = f;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

uint64_t cc_chunk_slices(const struct cc_coll_params *p)
{
	size_t es = cc_dtype_size(p->dtype);

	return (p->chunk_bytes / es + p->slot_bytes / es - 1) / (p->slot_bytes / es);
}

int cc_params_check(const struct cc_coll_params *p, enum cc_param *field, char *err,
		    size_t errlen)
{
	size_t es;
	if (p->coll >= CC_COLL_COUNT || p->transport >= CC_TRANSPORT_COUNT ||
	    p->proto >= CC_PROTO_COUNT || p->dtype >= CC_DTYPE_COUNT || p->redop >= CC_REDOP_COUNT ||
	    p->algo >= CC_ALGO_COUNT || p->mem >= CC_MEM_KIND_COUNT ||
	    p->stage_mem >= CC_MEM_KIND_COUNT || p->ring_order >= CC_RING_ORDER_COUNT)
		return refuse(field, CC_PARAM_KIND, err, errlen, "unknown collective, algorithm, "
			      "transport, protocol, dtype, redop, memory kind or ring order");
	if (!cc_algo_supports(p->algo, p->coll)) {
		char hint[CC_ALGO_HINT_LEN];

		return refuse(field, CC_PARAM_ALGO, err, errlen, "algorithm %s does not build %s (%s)",
			      cc_algo_name[p->algo], cc_coll_name[p->coll],
			      cc_algo_support_hint(p->coll, hint, sizeof(hint)));
	}
	if (p->nchannels > CC_MAX_CHANNELS)
		return refuse(field, CC_PARAM_CHANNELS, err, errlen, "%u channels, out of range 1..%u",
			      p->nchannels, CC_MAX_CHANNELS);
	if (p->nchannels > 1 && !cc_algo_splits_channels(p->algo))
		return refuse(field, CC_PARAM_CHANNELS, err, errlen, "%u channels, but %s "
			      "does not split over channels", p->nchannels, cc_algo_name[p->algo]);
	if (p->nranks < 1 || p->nranks > CC_MAX_RANKS)
		return refuse(field, CC_PARAM_NRANKS, err, errlen, "%u ranks, out of range 1..%u",
			      p->nranks, CC_MAX_RANKS);
	if (cc_coll_rooted(p->coll) && p->root >= p->nranks)
		return refuse(field, CC_PARAM_ROOT, err, errlen, "root %u, but ranks are 0 to %u "
			      "with %u ranks", p->root, p->nranks - 1, p->nranks);
	if (p->ranks_per_node > CC_MAX_RANKS)
		return refuse(field, CC_PARAM_RANKS_PER_NODE, err, errlen,
			      "%u ranks per node, out of range 1..%u", p->ranks_per_node, CC_MAX_RANKS);
	es = cc_dtype_size(p->dtype);
	if (p->nslots < 1 || p->nslots > 1024)
		return refuse(field, CC_PARAM_SLOTS, err, errlen, "%u slots, out of range 1..1024",
			      p->nslots);
	if (p->slot_bytes < es || p->slot_bytes > CC_MAX_MSG_BYTES)
		return refuse(field, CC_PARAM_SLOT_BYTES, err, errlen, "slot size %llu B out of "
			      "range %zu..%llu (one %s element .. 2 GiB)",
			      (unsigned long long)p->slot_bytes, es, CC_MAX_MSG_BYTES,
			      cc_dtype_name[p->dtype]);
	if (p->slice_steps > 1 && (p->nslots % p->slice_steps ||
				   p->slot_bytes * p->slice_steps > CC_MAX_MSG_BYTES))
		return refuse(field, CC_PARAM_SLOTS, err, errlen, "slices of %u slots: they must "
			      "divide the %u slots and hold at most 2 GiB", p->slice_steps, p->nslots);
	if (p->chunk_bytes < es)
		return refuse(field, CC_PARAM_CHUNK_BYTES, err, errlen, "chunk size %llu B is "
			      "less than one %s element", (unsigned long long)p->chunk_bytes,
			      cc_dtype_name[p->dtype]);
	/* Rail order is the ring's order over nodes (core/ring.c): with one
	 * rank per node there is one rail, the rank order, and asking for it
	 * is a mistake about the topology. */
	if (p->ring_order == CC_RING_ORDER_RAIL &&
	    (p->algo != CC_ALGO_RING || p->ranks_per_node < 2 || p->nranks % p->ranks_per_node))
		return refuse(field, CC_PARAM_RING_ORDER, err, errlen, "rail orders the ring on "
			      "nodes: it needs the ring algorithm and two or more ranks per node "
			      "dividing %u ranks (algorithm %s, %u per node)", p->nranks,
			      cc_algo_name[p->algo], p->ranks_per_node);
	if (algos[p->algo].check && algos[p->algo].check(p, field, err, errlen))
		return -EINVAL;
	/* The whole array (count * nranks elements for reduce-scatter and
	 * all-gather) must have a byte size that fits in 63 bits. */
	if (p->count > (UINT64_MAX >> 1) / es / p->nranks)
		return refuse(field, CC_PARAM_COUNT, err, errlen, "count %llu too large",
			      (unsigned long long)p->count);
	return 0;
}

bool cc_algo_splits_channels(enum cc_algo a)
{
	return a < CC_ALGO_COUNT && algos[a].splits_channels;
}

bool cc_algo_multicast(enum cc_algo a)
{
	return a < CC_ALGO_COUNT && algos[a].multicast;
}

cc_gen_prepare_fn cc_algo_gen_prepare(enum cc_algo a)
{
	return a < CC_ALGO_COUNT ? algos[a].gen : NULL;
}

double cc_port_factor(const struct cc_coll_params *p)
{
	if (p->coll == CC_ALLREDUCE && p->nranks > 1 && cc_algo_multicast(p->algo))
		return 1;
	return cc_busbw_factor(p->coll, p->nranks);
}

bool cc_coll_chunk_per_size(const struct cc_coll_params *p)
{
	return p->algo < CC_ALGO_COUNT && algos[p->algo].chunk_per_size &&
	       algos[p->algo].chunk_per_size(p);
}

uint64_t cc_coll_chunk_bytes(const struct cc_coll_params *p)
{
	return cc_coll_chunk_per_size(p) ? algos[p->algo].chunk_bytes(p) : p->chunk_bytes;
}

/* p with the chunk its schedule is built with. */
static struct cc_coll_params with_chunk(const struct cc_coll_params *p)
{
	struct cc_coll_params q = *p;

	q.chunk_bytes = cc_coll_chunk_bytes(p);
	return q;
}

/* Each connection end's resources: its QPs, and two buffers and their
 * MRs (staging and flags), twice for the arrays' doubling slack; the
 * connections a rank has each way are the staging's count (direct joins
 * every pair, used or not). */
static double conns_bytes(const struct cc_coll_params *p)
{
	const struct algo_desc *a = &algos[p->algo];
	double conns = p->nchannels > 1 ? p->nchannels : 1, msg = 0;
	double nq = p->qps_per_conn > 1 ? p->qps_per_conn : 1;
	double end = 2 * (nq * sizeof(struct cc_qp) +
			  2 * (sizeof(struct cc_buffer) + sizeof(struct cc_mr)));

	if (a->staging)
		a->staging(p, &conns, &msg);
	return (double)p->nranks * 2 * conns * end;
}

/* cc_build_estimate of p with its chunk (with_chunk): an algorithm's own
 * estimate, its walked steps while few enough, or the ring's closed form;
 * and the connections' resources.  Parameters not `checked` by
 * cc_params_check() (cc_build_estimate() takes any) get the closed form:
 * nothing is walked. */
static void estimate(const struct cc_coll_params *p, bool checked, double *ops, double *staging)
{
	size_t es = cc_dtype_size(p->dtype);
	const struct algo_desc *a = p->algo < CC_ALGO_COUNT ? &algos[p->algo] : NULL;

	if (a && a->schedule_bytes)
		*ops = a->schedule_bytes(p, es);
	else if (a && a->walk_steps && checked && p->nranks > 1 && p->count > 0 &&
		 a->walk_steps(p) <= WALK_STEPS_MAX)
		*ops = walked_ops_bytes(p, es);
	else
		*ops = ring_ops_bytes(p, es);
	if (a && !a->schedule_bytes && checked)
		*ops += conns_bytes(p);
	*staging = staging_bytes(p, es);
}

void cc_build_estimate(const struct cc_coll_params *given, double *ops, double *staging)
{
	const struct cc_coll_params q = with_chunk(given);

	estimate(&q, !cc_params_check(&q, NULL, NULL, 0), ops, staging);
}

double cc_build_estimate_ops(const struct cc_coll_params *p)
{
	double ops, staging;

	cc_build_estimate(p, &ops, &staging);
	return ops / OP_BYTES;
}

struct cc_schedule *cc_build(const struct cc_coll_params *p, char *err, size_t errlen)
{
	const struct cc_build_opts o = {0};

	return cc_build_with(p, &o, err, errlen);
}

struct cc_schedule *cc_build_with(const struct cc_coll_params *given, const struct cc_build_opts *o,
				  char *err, size_t errlen)
{
	const struct cc_coll_params q = with_chunk(given), *p = &q;
	double ops, staging;
	errno = EINVAL;
	if (cc_params_check(p, NULL, err, errlen))
		return NULL;
	/* Refuse up front what would only end in the OOM killer, or in a
	 * failed allocation half way (cc_build_opts.mem_limit). */
	estimate(p, true, &ops, &staging);
	if (o->timing_only && p->proto == CC_PROTO_SIMPLE)
		staging = 0;
	bool gen = o->generated && !o->one_rank && cc_gen_supported(p);

	if (o->one_rank && p->nranks) { /* one rank's ops and staging */
		ops /= p->nranks;
		staging /= p->nranks;
	}
	if (gen && p->nranks) /* ops in flight, a rank's worth at most */
		ops /= p->nranks;
	const struct cc_mem_limit *lim = o->mem_limit;
	double need = ops + staging, have = lim ? (double)lim->bytes : 0;
	if (have > 0 && need > have * 0.75) {
		char l[96];

		snprintf(err, errlen,
			 "the schedule would take about %.1f GiB (%u ranks, %.3g MiB of ops each, "
			 "%.1f GiB of staging); %s %s: use fewer ranks, a smaller size, or larger "
			 "--chunk-bytes/--slot-bytes", need / (1 << 30), p->nranks,
			 ops / p->nranks / (1 << 20), staging / (1 << 30),
			 lim->source == CC_MEM_SRC_RAM ? "this machine has" : "this process may use",
			 cc_mem_limit_text(lim, l, sizeof(l)));
		errno = E2BIG;
		return NULL;
	}
	/* k = 1 (a local copy) and an empty array are the ring's whatever
	 * the algorithm: one answer; the other builders take k >= 2, N >= 1. */
	int ring = p->nranks == 1 || p->count == 0;
	if (o->one_rank && o->rank >= p->nranks) {
		snprintf(err, errlen, "rank %u does not exist (%u ranks)", o->rank, p->nranks);
		return NULL;
	}
	cc_conns_set_deadline(o->deadline_ns);
	if (gen) {
		struct cc_schedule *g = cc_gen_build(p, err, errlen);

		cc_conns_set_deadline(0);
		return g;
	}
	cc_conns_set_one_rank(o->one_rank ? o->rank : CC_CONN_NONE);
	errno = 0;
	struct cc_schedule *s = (ring ? &algos[CC_ALGO_RING] : &algos[p->algo])->build(p);
	int built_errno = errno;
	cc_conns_set_deadline(0);
	cc_conns_set_one_rank(CC_CONN_NONE);
	if (s && o->one_rank) {
		s->one_rank = true;
		s->rank = o->rank;
	}
	if (!s && built_errno == EOVERFLOW) {
		snprintf(err, errlen, "more than %llu slices on one connection: %s's flags "
			 "would repeat; use larger --slot-bytes", (unsigned long long)
			 cc_proto_max_flag(p->proto), cc_proto_name[p->proto]);
		errno = EOVERFLOW;
		return NULL;
	}
	if (!s && built_errno == ETIME) {
		snprintf(err, errlen, "time limit reached while building the schedule");
		errno = ETIME;
		return NULL;
	}
	if (s && cc_schedule_oom(s)) { /* the k = 1 copy appends without checking */
		cc_schedule_free(s);
		s = NULL;
	}
	if (!s) {
		errno = ENOMEM;
		snprintf(err, errlen, "out of memory building the schedule");
		return NULL;
	}
	if (cc_schedule_validate(s, err, errlen)) {
		/* A builder that emits a broken schedule is a bug, not bad input. */
		fprintf(stderr, "cclab: internal error: %s\n", err);
		abort();
	}
	return s;
}

void cc_algo_primitives(const struct cc_coll_params *given, uint32_t rank, cc_prim_fn fn,
			void *ctx)
{
	const struct cc_coll_params q = with_chunk(given), *p = &q;

	/* As cc_build: k = 1, an empty array (and a rank out of range) are
	 * the ring's listing whatever the algorithm; the others take k >= 2
	 * and count >= 1. */
	if (p->nranks == 1 || p->count == 0 || rank >= p->nranks || p->algo >= CC_ALGO_COUNT)
		cc_ring_primitives(p, rank, fn, ctx);
	else
		algos[p->algo].primitives(p, rank, fn, ctx);
}

int cc_algo_supports(enum cc_algo a, enum cc_coll c)
{
	return a < CC_ALGO_COUNT && c < CC_COLL_COUNT && (algos[a].colls & COLL(c));
}

const char *cc_algo_support_hint(enum cc_coll c, char *buf, size_t len)
{
	unsigned n = 0, i = 0;
	size_t at = 0;

	for (int a = 0; a < CC_ALGO_COUNT; a++)
		n += cc_algo_supports((enum cc_algo)a, c) ? 1 : 0;
	if (n == CC_ALGO_COUNT) {
		snprintf(buf, len, "every algorithm builds %s", cc_coll_name[c]);
		return buf;
	}
	/* "a", "a or b", "a, b or c", in the table's order */
	buf[0] = '\0';
	for (int a = 0; a < CC_ALGO_COUNT && at < len; a++)
		if (cc_algo_supports((enum cc_algo)a, c)) {
			i++;
			at += (size_t)snprintf(buf + at, len - at, "%s%s",
					       i == 1 ? "" : i == n ? " or " : ", ", cc_algo_name[a]);
		}
	return buf;
}

enum cc_algo cc_algo_default(enum cc_coll c)
{
	return cc_coll_p2p(c) ? CC_ALGO_DIRECT : CC_ALGO_RING;
}
