/* SPDX-License-Identifier: BSD-3-Clause */
/* core/collnet.c — NCCL's CollNetChain allreduce: a chain through each
 * node's GPUs over NVLink, the nodes joined by an in-network reduction in
 * the switches (SHARP, core/schedule.h "In-network reduction").
 *
 * NCCL (src/device/all_reduce.h, RunWorkColl<ncclFuncAllReduce, ...,
 * NCCL_ALGO_COLLNET_CHAIN, NCCL_PROTO_SIMPLE>; src/graph/connect.cc, the
 * chain: collNetIntra[c * localRanks + i], up = i == 0 ? nRanks (the
 * network) : collNetIntra[i - 1]) runs each channel's block as two thread
 * groups at once, reduce up the chain and broadcast down it, and the proxy
 * hands the head's sum to the CollNet plugin, whose SHARP allreduce
 * returns the total.  Here, per channel c and node, the chain starts at
 * the head, local rank c mod g (the GPU of the channel's NIC: channels
 * take the rails in turn, as NCCL's graph does), and goes through the
 * following local ranks in turn.  Chunk l of channel c is elements
 * [(l C + c) chunk, + chunk) of the array (the kernel's loop of
 * nChannels chunks):
 *
 *   up    (thread group 0): bottom send; middle recvReduceSend; head
 *         recvReduceCopy into its output (the node's sum);
 *   net   the head's proxy: a receive WQE of its output, a SEND of the
 *         node's sum on the channel's SHARP group (every node's head,
 *         stride g), doorbell, the two completions;
 *   down  (thread group 1): head send of the total from its output; middle
 *         recvCopySend; bottom recv.
 *
 * With one GPU a node there is no chain: the SEND reads the input.  The
 * proxy keeps at most nslots of a channel's reductions open (NCCL_STEPS).
 * Warps: NCCL_MAX_NTHREADS split as the tree's, 12 up and 8 down.  NCCL
 * does the reduce into its CollNet send buffer and the broadcast from its
 * receive buffer; the output stands for both here (the head reads its own
 * sum in place), one copy less at the head. */
#include "algo_int.h"
#include "conn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NONE CC_CONN_NONE
#define UP_WARPS 12
#define DOWN_WARPS 8

struct collnet {
	const struct cc_coll_params *p;
	uint32_t k, g, nch;
	struct cc_schedule *s;
	struct cc_walker w;
	/* per channel and rank: the chain's ends (phase 1) */
	uint32_t *up_send, *up_recv, *down_send, *down_recv;
	/* per rank being walked: per channel, its SHARP QP and the polls of
	 * its last nslots reductions' receives */
	uint32_t *qp_of, *done;
	uint32_t *last_recv, *last_db; /* per channel: its QP's posts, in order */
	uint32_t mr_in, mr_out, cq;
	uint32_t *calcs;       /* the head's reduces of a chunk, per slice */
	uint32_t *deps;        /* a SEND's: its receive and those reduces */
	uint64_t slot_elems;   /* a slice's, as core/conn.c cuts a step */
};

static size_t at(const struct collnet *n, uint32_t c, uint32_t r)
{
	return (size_t)c * n->k + r;
}

/* Rank r's place in channel c's chain: 0 the head, g - 1 the bottom. */
static uint32_t pos(const struct collnet *n, uint32_t c, uint32_t r)
{
	return (r % n->g + n->g - c % n->g) % n->g;
}

/* The rank at place i of channel c's chain on r's node. */
static uint32_t chain(const struct collnet *n, uint32_t c, uint32_t r, uint32_t i)
{
	return r - r % n->g + (c % n->g + i) % n->g;
}

static void step(struct collnet *n, uint32_t r, enum cc_prim prim, uint32_t c, uint64_t l,
		 uint8_t group, uint64_t off, uint64_t nelem, uint32_t recv, uint32_t send,
		 uint8_t src_out, uint32_t dep, uint32_t *calcs)
{
	struct cc_conn_step st = {
		.prim = prim, .step = group, .chunk = (uint32_t)l, .in_off = off, .out_off = off,
		.nelem = nelem, .recv = recv, .send = send, .src_out = src_out,
		.channel = (uint16_t)c, .group = group, .warps = group ? DOWN_WARPS : UP_WARPS,
		.dep = dep, .calcs = calcs,
	};

	cc_walk_step(&n->w, r, &st);
}

/* Rank r's ops as its steps' go (core/conn.h cc_conns_ops_of()). */
static struct cc_rank_sched *ops(struct collnet *n, uint32_t r)
{
	return cc_conns_ops_of(n->w.c, r);
}

static uint32_t add(struct collnet *n, uint32_t r, const struct cc_op *op, const uint32_t *deps,
		    uint32_t ndeps)
{
	return cc_add_op(ops(n, r), op, deps, ndeps);
}

/* The head's reduction of chunk l of channel c across the nodes: elements
 * [off, off + nelem), from its input (alone on its node) or the node's
 * sum in its output, after `nsum` reduces sums[]; the poll of its
 * result. */
static uint32_t across(struct collnet *n, uint32_t r, uint32_t c, uint64_t l, uint64_t off,
		       uint64_t nelem, const uint32_t *sums, uint32_t nsum)
{
	const struct cc_coll_params *p = n->p;
	size_t es = cc_dtype_size(p->dtype);
	uint32_t q = n->qp_of[c], *win = &n->done[(size_t)c * p->nslots];
	uint32_t len = (uint32_t)(nelem * es), slot = (uint32_t)(l % p->nslots);
	struct cc_tag tag = { .prim = CC_PRIM_NONE, .channel = (uint16_t)c, .chunk = (uint32_t)l };
	struct cc_op op = { .kind = CC_OP_POST_RECV, .tag = tag };
	uint32_t *deps = n->deps, nd = 0, rv, sd, db, ps;

	/* After the QP's previous receive (results land in posting order) and
	 * the slot's previous reduction: at most nslots open. */
	op.u.recv = (struct cc_op_recv){ .qp = q, .num_sge = 1, .sge = { n->mr_out, off * es, len } };
	op.u.recv.wr_id = ops(n, r)->nops;
	if (n->last_recv[c] != NONE)
		deps[nd++] = n->last_recv[c];
	if (win[slot] != NONE)
		deps[nd++] = win[slot];
	rv = n->last_recv[c] = add(n, r, &op, deps, nd);
	nd = 0;
	op = (struct cc_op){ .kind = CC_OP_POST_SEND, .tag = tag };
	op.u.send = (struct cc_op_send){
		.qp = q, .wr_id = ops(n, r)->nops, .opcode = CC_WR_SEND,
		.flags = CC_SEND_SIGNALED, .payload = CC_PAYLOAD_DATA, .num_sge = 1,
		.sge = { n->g > 1 ? n->mr_out : n->mr_in, off * es, len },
		.dtype = p->dtype, .redop = p->redop,
	};
	/* after its receive and the previous SEND's doorbell: the j-th SEND of
	 * every member is one reduction */
	deps[nd++] = rv;
	if (n->last_db[c] != NONE)
		deps[nd++] = n->last_db[c];
	for (uint32_t i = 0; i < nsum; i++)
		if (sums[i] != NONE)
			deps[nd++] = sums[i];
	sd = add(n, r, &op, deps, nd);
	op = (struct cc_op){ .kind = CC_OP_DOORBELL, .tag = tag,
			     .u.doorbell = { .qp = q, .nwqe = 1 } };
	db = n->last_db[c] = add(n, r, &op, &sd, 1);
	op = (struct cc_op){ .kind = CC_OP_POLL_CQ, .tag = tag, .u.poll = { .cq = n->cq, .wr_id = sd } };
	ps = add(n, r, &op, &db, 1);
	op.u.poll.wr_id = rv;
	uint32_t both[] = { db, ps };
	win[slot] = add(n, r, &op, both, 2);
	return win[slot];
}

/* Chunk l of channel c on rank r: elements [off, off + nelem). */
static void chunk(struct collnet *n, uint32_t r, uint32_t c, uint64_t l, uint64_t off,
		  uint64_t nelem)
{
	uint32_t i = pos(n, c, r), g = n->g;
	size_t e = at(n, c, r);
	uint32_t done = NONE, nslices = 0;
	bool head = i == 0, bottom = i == g - 1, emit = n->w.c && !n->w.counting;

	if (g > 1) {
		if (bottom)
			step(n, r, CC_PRIM_SEND, c, l, 0, off, nelem, NONE, n->up_send[e], 0, 0,
			     NULL);
		else if (!head)
			step(n, r, CC_PRIM_RECV_REDUCE_SEND, c, l, 0, off, nelem, n->up_recv[e],
			     n->up_send[e], 0, 0, NULL);
		else {
			nslices = emit ? (uint32_t)cc_conns_nslices(n->w.c, nelem) : 0;
			for (uint32_t t = 0; t < nslices; t++)
				n->calcs[t] = NONE;
			step(n, r, CC_PRIM_RECV_REDUCE_COPY, c, l, 0, off, nelem, n->up_recv[e],
			     NONE, 0, 0, emit ? n->calcs : NULL);
		}
	}
	if (head && emit)
		done = across(n, r, c, l, off, nelem, n->calcs, nslices);
	if (g == 1)
		return;
	if (head)
		step(n, r, CC_PRIM_SEND, c, l, 1, off, nelem, NONE, n->down_send[e], 1,
		     done == NONE ? 0 : done, NULL);
	else if (bottom)
		step(n, r, CC_PRIM_RECV, c, l, 1, off, nelem, n->down_recv[e], NONE, 0, 0, NULL);
	else
		step(n, r, CC_PRIM_RECV_COPY_SEND, c, l, 1, off, nelem, n->down_recv[e],
		     n->down_send[e], 0, 0, NULL);
}

/* A rank's walk state before its first chunk: no reduction open, no
 * post on its SHARP QPs. */
static void walk_start(struct collnet *n)
{
	for (uint32_t c = 0; c < n->nch * n->p->nslots; c++)
		n->done[c] = NONE;
	for (uint32_t c = 0; c < n->nch; c++)
		n->last_recv[c] = n->last_db[c] = NONE;
}

/* Loop l of the kernel: chunk l of every channel that has one (false if
 * none). */
static bool row(struct collnet *n, uint32_t r, uint64_t l)
{
	const struct cc_coll_params *p = n->p;
	uint64_t cs = p->chunk_bytes / cc_dtype_size(p->dtype);
	bool any = false;

	for (uint32_t c = 0; c < n->nch; c++) {
		uint64_t off = (l * n->nch + c) * cs;

		if (off >= p->count)
			continue;
		any = true;
		chunk(n, r, c, l, off, p->count - off < cs ? p->count - off : cs);
	}
	return any;
}

static void walk(struct collnet *n, uint32_t r)
{
	walk_start(n);
	for (uint64_t l = 0; row(n, r, l) && !(n->s && cc_schedule_oom(n->s)); l++)
		;
}

/* The QPs of the channels r heads, in channel order (resources()). */
static void set_qps(struct collnet *n, uint32_t r)
{
	for (uint32_t c = 0, q = 0; c < n->nch; c++)
		n->qp_of[c] = pos(n, c, r) == 0 ? q++ : NONE;
}

static void walk_conns(void *ctx, uint32_t r, int counting)
{
	struct collnet *n = ctx;

	n->w.counting = counting;
	if (!counting)
		set_qps(n, r);
	walk(n, r);
}

/* Phase 1: per channel and node, the chain's edges up and down. */
static int connect(void *ctx, struct cc_conns *c)
{
	struct collnet *n = ctx;

	n->w.c = c;
	for (uint32_t ch = 0; ch < n->nch; ch++)
		for (uint32_t r = 0; r < n->k; r++) {
			uint32_t i = pos(n, ch, r), up;

			if (i == 0)
				continue;
			up = chain(n, ch, r, i - 1);
			if (cc_conns_link(c, r, up, (uint16_t)ch, &n->up_send[at(n, ch, r)],
					  &n->up_recv[at(n, ch, up)]) ||
			    cc_conns_link(c, up, r, (uint16_t)ch, &n->down_send[at(n, ch, up)],
					  &n->down_recv[at(n, ch, r)]))
				return -1;
		}
	return 0;
}

/* Phase 2: every rank's MRs over its input and output, a CQ, and a SHARP
 * QP per channel it heads, in channel order: the heads of one channel
 * (one local rank on every node) get the same QP index. */
static void resources(void *ctx, struct cc_schedule *s)
{
	struct collnet *n = ctx;
	const struct cc_coll_params *p = n->p;
	uint32_t heads = (n->nch + n->g - 1) / n->g;

	n->s = s;
	for (uint32_t r = 0; r < n->k; r++) {
		struct cc_rank_sched *rs = &s->ranks[r];
		uint32_t cq;

		n->mr_in = cc_add_mr(rs, CC_CONN_B_IN, 0);
		n->mr_out = cc_add_mr(rs, CC_CONN_B_OUT, CC_ACCESS_LOCAL_WRITE);
		n->cq = cq = cc_add_cq(rs, 2 * heads * (p->nslots + 1));
		for (uint32_t c = 0; c < n->nch; c++)
			if (pos(n, c, r) == 0)
				cc_add_qp(rs, &(struct cc_qp){ .peer = c % n->g, .group = n->k / n->g,
							       .stride = n->g, .send_cq = cq,
							       .recv_cq = cq,
							       .max_send_wr = p->nslots + 1,
							       .max_recv_wr = p->nslots + 1,
							       .retry_cnt = 7, .rnr_retry = 7,
							       .channel = (uint16_t)c });
	}
}

static int init(struct collnet *n, const struct cc_coll_params *p)
{
	size_t m;

	*n = (struct collnet){ .p = p, .k = p->nranks, .g = p->ranks_per_node ? p->ranks_per_node : 1,
			       .nch = p->nchannels ? p->nchannels : 1 };
	m = (size_t)n->nch * n->k;
	n->up_send = malloc(m * sizeof(uint32_t));
	n->up_recv = malloc(m * sizeof(uint32_t));
	n->down_send = malloc(m * sizeof(uint32_t));
	n->down_recv = malloc(m * sizeof(uint32_t));
	n->qp_of = malloc(n->nch * sizeof(uint32_t));
	n->done = malloc((size_t)n->nch * p->nslots * sizeof(uint32_t));
	size_t es = cc_dtype_size(p->dtype), slices;

	n->slot_elems = p->slot_bytes / es ? p->slot_bytes / es : 1;
	slices = (size_t)(p->chunk_bytes / es / n->slot_elems) + 2;
	n->calcs = malloc(slices * sizeof(uint32_t));
	n->deps = malloc((slices + 2) * sizeof(uint32_t));
	n->last_recv = malloc(n->nch * sizeof(uint32_t));
	n->last_db = malloc(n->nch * sizeof(uint32_t));
	if (!n->up_send || !n->up_recv || !n->down_send || !n->down_recv || !n->qp_of ||
	    !n->done || !n->calcs || !n->deps || !n->last_recv || !n->last_db)
		return -1;
	for (size_t i = 0; i < m; i++)
		n->up_send[i] = n->up_recv[i] = n->down_send[i] = n->down_recv[i] = NONE;
	return 0;
}

static void fini(struct collnet *n)
{
	free(n->up_send);
	free(n->up_recv);
	free(n->down_send);
	free(n->down_recv);
	free(n->qp_of);
	free(n->done);
	free(n->calcs);
	free(n->deps);
	free(n->last_recv);
	free(n->last_db);
}

/* CollNetChain on the connections' build: its largest message (a chunk,
 * or the array), connections, resources and walk. */
static struct cc_conns_algo collnet_algo(const struct cc_coll_params *p, struct collnet *n)
{
	uint64_t cs = p->chunk_bytes / cc_dtype_size(p->dtype);

	return (struct cc_conns_algo){ .most = cs < p->count ? cs : p->count, .connect = connect,
				       .resources = resources, .walk = walk_conns, .ctx = n };
}

struct cc_schedule *cc_build_collnet(const struct cc_coll_params *p)
{
	struct collnet n;
	struct cc_conns_algo a = collnet_algo(p, &n);
	struct cc_schedule *s = NULL;

	if (!init(&n, p))
		s = cc_conns_build(p, &a);
	else
		errno = ENOMEM;
	fini(&n);
	return s;
}

void cc_collnet_primitives(const struct cc_coll_params *p, uint32_t rank, cc_prim_fn fn,
			   void *ctx)
{
	struct collnet n;

	if (!init(&n, p)) {
		n.w = (struct cc_walker){ .list = fn, .list_ctx = ctx };
		walk(&n, rank);
	}
	fini(&n);
}

/* NCCL's chunk (src/enqueue.cc, NCCL_ALGO_COLLNET_CHAIN): a slot, at most
 * 256 KiB, halved while nBytes / (nChannels chunk) < depth x 64 (down to
 * 128 KiB), depth x 8 (64 KiB), depth (32 KiB), depth the ranks a node. */
uint64_t cc_collnet_chunk_bytes(const struct cc_coll_params *p)
{
	static const struct {
		uint64_t per_depth, floor;
	} rule[] = { { 64, 128 * 1024 }, { 8, 64 * 1024 }, { 1, 32 * 1024 } };
	uint64_t bytes = p->count * cc_dtype_size(p->dtype), nch = p->nchannels ? p->nchannels : 1;
	uint64_t depth = p->ranks_per_node ? p->ranks_per_node : 1;
	uint64_t chunk = p->slot_bytes < 256 * 1024 ? p->slot_bytes : 256 * 1024;

	for (size_t i = 0; i < sizeof(rule) / sizeof(rule[0]); i++)
		while (chunk > rule[i].floor && bytes / (nch * chunk) < rule[i].per_depth * depth)
			chunk /= 2;
	return chunk;
}

bool cc_collnet_chunk_per_size(const struct cc_coll_params *p)
{
	return p->chunk_auto;
}

/* What SHARP reduces as NCCL hands it (the plugin's types; sum, min, max:
 * the switch has no product, and no division for avg). */
static bool sharp_reduces(enum cc_dtype t, enum cc_redop op)
{
	if (op != CC_SUM && op != CC_MIN && op != CC_MAX)
		return false;
	return t == CC_INT32 || t == CC_UINT32 || t == CC_INT64 || t == CC_UINT64 ||
	       t == CC_FLOAT16 || t == CC_BFLOAT16 || t == CC_FLOAT32 || t == CC_FLOAT64;
}

int cc_collnet_check(const struct cc_coll_params *p, enum cc_param *field, char *err,
		     size_t errlen)
{
	uint32_t g = p->ranks_per_node ? p->ranks_per_node : 1;
	const char *msg = NULL;

	if (p->nranks % g || p->nranks / g < 2) {
		if (field)
			*field = CC_PARAM_RANKS_PER_NODE;
		snprintf(err, errlen, "collnetchain reduces across two or more nodes in the "
			 "network's switches: it needs nodes whose ranks per node divide the %u "
			 "ranks, not nodes of %u", p->nranks, g);
		return -EINVAL;
	}
	if (!sharp_reduces(p->dtype, p->redop))
		msg = "collnetchain: SHARP reduces 16-, 32- and 64-bit integers and floats with "
		      "sum, min or max";
	else if (p->proto != CC_PROTO_SIMPLE)
		msg = "collnetchain runs the Simple protocol only (NCCL has CollNet kernels for "
		      "Simple alone)";
	else if (p->mem == CC_MEM_GPU && cc_coll_stage_mem(p) != CC_MEM_GPU)
		msg = "collnetchain hands the NIC the GPU's buffers: it needs GPUDirect RDMA "
		      "(CollNet's host-staged path is not built)";
	if (!msg)
		return 0;
	if (field)
		*field = CC_PARAM_ALGO;
	snprintf(err, errlen, "%s", msg);
	return -EINVAL;
}

/* Two slot arrays each way on the chain's two edges a channel. */
void cc_collnet_staging(const struct cc_coll_params *p, double *conns, double *msg)
{
	*msg = (double)p->count / (*conns) + 1;
	*conns *= 2;
}

/* ---- CollNetChain generated as it runs (core/gen.c) ----
 * One stream: the kernel's loops, a chunk of each channel, in the walk's
 * order.  A rank's walk state (its open reductions and last posts per
 * channel) is its own, kept between steps in `state` and copied in and
 * out around each. */
struct collnet_gen {
	struct collnet n;
	uint32_t *state; /* per rank: done, last_recv, last_db */
	size_t words;    /* of one rank's */
};

static uint32_t *rank_state(struct collnet_gen *cg, uint32_t r)
{
	return cg->state + (size_t)r * cg->words;
}

static void *gen_state(void *ctx, uint32_t r, size_t *bytes)
{
	struct collnet_gen *cg = ctx;

	*bytes = cg->words * sizeof(uint32_t);
	return rank_state(cg, r);
}

/* Between a rank's walk arrays and its kept state, one way or the other. */
static void swap_state(struct collnet_gen *cg, uint32_t r, bool in)
{
	struct collnet *n = &cg->n;
	uint32_t *st = rank_state(cg, r);
	size_t nd = (size_t)n->nch * n->p->nslots;
	struct {
		uint32_t *a;
		size_t len;
	} part[] = { { n->done, nd }, { n->last_recv, n->nch }, { n->last_db, n->nch } };

	for (size_t i = 0; i < 3; st += part[i].len, i++)
		memcpy(in ? part[i].a : st, in ? st : part[i].a, part[i].len * sizeof(uint32_t));
}

static uint64_t gen_steps(void *ctx, uint32_t j)
{
	const struct collnet *n = &((struct collnet_gen *)ctx)->n;
	uint64_t cs = n->p->chunk_bytes / cc_dtype_size(n->p->dtype), per = cs * n->nch;

	(void)j;
	return (n->p->count + per - 1) / per;
}

static void gen_step(void *ctx, uint32_t r, uint32_t j, uint64_t l)
{
	struct collnet_gen *cg = ctx;

	(void)j;
	swap_state(cg, r, true);
	set_qps(&cg->n, r);
	row(&cg->n, r, l);
	swap_state(cg, r, false);
}

static void gen_free(void *ctx)
{
	struct collnet_gen *cg = ctx;

	fini(&cg->n);
	free(cg->state);
	free(cg);
}

int cc_collnet_gen_prepare(const struct cc_coll_params *p, struct cc_conns *c,
			   struct cc_schedule **s, struct cc_gen_walk *w)
{
	struct collnet_gen *cg = calloc(1, sizeof(*cg));
	struct cc_conns_algo a;
	int rc = -ENOMEM;

	if (!cg)
		return -ENOMEM;
	a = collnet_algo(p, &cg->n);
	if (init(&cg->n, p)) {
		gen_free(cg);
		return -ENOMEM;
	}
	cg->words = (size_t)cg->n.nch * p->nslots + 2 * (size_t)cg->n.nch;
	cg->state = malloc((size_t)p->nranks * cg->words * sizeof(uint32_t));
	if (!cg->state || (rc = cc_conns_prepare(c, p, &a, s))) {
		gen_free(cg);
		return rc;
	}
	cg->n.w.counting = 0; /* from here on it emits */
	walk_start(&cg->n);
	for (uint32_t r = 0; r < p->nranks; r++)
		swap_state(cg, r, false);
	*w = (struct cc_gen_walk){ .ctx = cg, .nstreams = 1, .steps = gen_steps,
				   .step = gen_step, .state = gen_state, .free = gen_free };
	return 0;
}
