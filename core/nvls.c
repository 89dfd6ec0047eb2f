/* SPDX-License-Identifier: BSD-3-Clause */
/* core/nvls.c — NVLink SHARP inside one node: NCCL's NVLS algorithm
 * (src/device/all_reduce.h, reduce_scatter.h, all_gather.h,
 * RunWorkColl<..., NCCL_ALGO_NVLS, NCCL_PROTO_SIMPLE>, one node, without
 * user-buffer registration) on multicast QPs (core/schedule.h: an RDMA
 * WRITE on one is multimem.st, an RDMA READ multimem.ld_reduce).
 *
 * Every rank is a head: in each loop of a channel it owns one chunk of
 * every head's chunks (allreduce: the loop's k chunks of the array;
 * reduce-scatter and all-gather: the loop's chunk of its own block).  Per
 * channel each rank has a buffer bound to the multicast object (NCCL's
 * ucBuff/mcBuff, transport/nvls.cc: `up` slots the heads reduce from,
 * `down` slots they multicast into, slots x k chunks each) and k + k sync
 * words in it, and two multicast QPs: one for its member's flags, one for
 * its head's loads and stores (NCCL's scatter/gather warps and reduce
 * warps run side by side).
 *
 *   allreduce, loop l, slot s = l mod slots:
 *     member  scatter: copy the loop's k chunks of the input into up[s];
 *             gather of loop l - slots: copy down[s] out to the output
 *             (both once every head is done with loop l - slots); then
 *             multicast ready[r] = l + 1
 *     head    once ready[j] > l for every j: multicast READ of its chunk
 *             of up[s] (the switch reads it at every rank and reduces:
 *             out N per rank in all, in N/k), into a local result slot,
 *             then multicast WRITE of the result to its chunk of down[s]
 *             (out N/k, in N) and done[r] = l + 1 behind it on the QP
 *     after the last loop: the gathers still owed
 *   reduce-scatter: member scatter of block h's chunk to up[s] chunk h
 *             for every h, ready; head READ of chunk r into the output,
 *             then done (out kN per rank, in N)
 *   all-gather: head WRITE of its input's chunk to down[s] chunk r, done
 *             (once every member gathered loop l - slots); member gather
 *             of every chunk h of down[s] to block h, then ready
 *             (out N, in kN)
 *
 * NCCL's chunk (src/enqueue.cc calcCollChunking, NVLS): min(a step,
 * NCCL_NVLS_CHUNKSIZE 128 KiB), then 64, 32, 16 KiB while a channel's
 * bytes are under 64, 8, 2 x (k heads x chunk); per loop every head one
 * chunk, the last loop's split evenly over the heads (all_reduce.h
 * lastChunkSize: cclab without its 16 KiB rounding).  Slots are
 * NCCL_STEPS (`slots`): buffSize = chunk x NCCL_STEPS per head.
 */
#include "algo.h"
#include "algo_int.h"
#include "conn.h"
#include "nvls_tree.h"

#include <errno.h>
#include <stdlib.h>

#define NONE CC_SCHED_NONE

/* NCCL_NVLS_CHUNKSIZE's default (src/transport/nvls.cc). */
#define NVLS_CHUNK_BYTES (128u * 1024u)
/* Slices between two looks at the build's deadline. */
#define DEADLINE_CHECK_LOOPS 256u

/* NVLSTree's heads READ on a QP of their own: their reduce chain runs
 * ahead of their broadcast chain, as NCCL's reduce and broadcast warps. */
enum { QP_MEMBER, QP_HEAD, QP_REDUCE };

/* One channel's share and layout, the same on every rank. */
struct chan {
	uint64_t off, n;   /* elements of the array (allreduce) or of each block */
	uint64_t loops, slots;
	uint64_t width;    /* elements a chunk's place in a slot holds */
	uint32_t buf, mr;  /* its multicast buffer and MR; the result slots after */
	uint32_t qp;       /* QP_MEMBER's; QP_HEAD's is qp + 1 */
};

/* What rank r's walk has emitted so far on a channel. */
struct state {
	uint32_t *poll_ready, *poll_done; /* per slot: the last flag's poll */
	uint32_t last_db[3];               /* per QP: the last doorbell */
	uint32_t member, head;             /* the last flag post of each role */
	uint32_t reduce;                   /* NVLSTree: the head's last READ */
};

struct nvls {
	const struct cc_coll_params *p;
	struct cc_schedule *s;   /* NULL when listing */
	cc_prim_fn list;
	void *list_ctx;
	uint32_t k;
	uint32_t g;              /* ranks on one NVSwitch: k, or a node's (NVLSTree) */
	struct cc_nvls_tree *tree; /* NVLSTree's network trees; NULL on one node */
	int counting;            /* NVLSTree's phase 3: only the tree steps, counted */
	uint32_t *fin;           /* a chunk's tree steps' last ops */
	size_t es;
	uint64_t chunk;          /* elements */
	uint32_t nch;
	struct chan *ch;
	uint32_t *scratch;       /* k + 4 dependencies: the waits, and more */
	uint32_t *copies;        /* k + 1: a loop's copies, and more */
	uint32_t *deps;          /* k + 8: what post() hands cc_add_op */
	struct state st;
	uint64_t deadline_ns;
	uint32_t since_check;
	int timed_out;
};

/* ---- the chunk ---- */

bool cc_nvls_chunk_per_size(const struct cc_coll_params *p)
{
	return p->chunk_auto;
}

/* NCCL_NVLS_CHUNKSIZE, or its default. */
static uint64_t nvls_chunk(const struct cc_coll_params *p)
{
	return p->nvls_chunk_bytes ? p->nvls_chunk_bytes : NVLS_CHUNK_BYTES;
}

/* NVLSTree's (src/enqueue.cc calcCollChunking, NCCL_ALGO_NVLS_TREE, the
 * same from 2.19 to 2.30 on Hopper): NCCL_NVLS_CHUNKSIZE (128 KiB), at
 * most NCCL_NVLSTREE_MAX_CHUNKSIZE (transport/nvls.cc; by default 64 KiB
 * on 4 nodes or more), then 256 KiB below 32, 128 KiB below 16, 64 KiB
 * below 4 and 32 KiB below 1 x (channels x heads x chunk) bytes. */
static uint64_t tree_chunk_bytes(const struct cc_coll_params *p)
{
	uint64_t nch = p->nchannels > 1 ? p->nchannels : 1, heads = p->ranks_per_node;
	uint64_t bytes = p->count * cc_dtype_size(p->dtype), ops = nch * heads;
	uint64_t chunk = nvls_chunk(p), most = p->nvlstree_max_chunk_bytes;

	if (!most && heads && p->nranks / heads >= 4)
		most = 65536;
	if (most && chunk > most)
		chunk = most;
	if (bytes < 32 * ops * chunk && chunk > 262144)
		chunk = 262144;
	if (bytes < 16 * ops * chunk && chunk > 131072)
		chunk = 131072;
	if (bytes < 4 * ops * chunk && chunk > 65536)
		chunk = 65536;
	if (bytes < ops * chunk && chunk > 32768)
		chunk = 32768;
	return chunk;
}

uint64_t cc_nvls_chunk_bytes(const struct cc_coll_params *p)
{
	uint32_t nch = p->nchannels > 1 ? p->nchannels : 1;

	if (p->algo == CC_ALGO_NVLS_TREE)
		return tree_chunk_bytes(p);
	/* NCCL sizes each channel's chunk by that channel's bytes of the
	 * whole collective (ncclFuncMaxSendRecvCount: k x count for
	 * reduce-scatter and all-gather). */
	uint64_t total = p->count * cc_dtype_size(p->dtype) *
			 (p->coll == CC_ALLREDUCE ? 1 : (uint64_t)p->nranks);
	uint64_t bytes = total / nch, heads = p->nranks;
	uint64_t chunk = p->slot_bytes < nvls_chunk(p) ? p->slot_bytes : nvls_chunk(p);

	if (bytes < 64 * heads * chunk && chunk > 65536)
		chunk = 65536;
	if (bytes < 8 * heads * chunk && chunk > 32768)
		chunk = 32768;
	if (bytes < 2 * heads * chunk && chunk > 16384)
		chunk = 16384;
	return chunk;
}

/* ---- the parameters it takes ---- */

/* ncclNvlsSupported() (src/include/device.h): the NVSwitch reduces sum of
 * 32- and 64-bit integers, half, bfloat16, float and double, and min and
 * max of the integers, half and bfloat16. */
static bool switch_reduces(enum cc_dtype t, enum cc_redop op)
{
	switch (t) {
	case CC_INT32:
	case CC_UINT32:
	case CC_INT64:
	case CC_UINT64:
	case CC_FLOAT16:
	case CC_BFLOAT16:
		return op == CC_SUM || op == CC_MIN || op == CC_MAX;
	case CC_FLOAT32:
	case CC_FLOAT64:
		return op == CC_SUM;
	default:
		return false;
	}
}

static int refuse(enum cc_param *field, char *err, size_t errlen, const char *msg)
{
	if (field)
		*field = CC_PARAM_ALGO;
	snprintf(err, errlen, "%s", msg);
	return -EINVAL;
}

int cc_nvls_check(const struct cc_coll_params *p, enum cc_param *field, char *err, size_t errlen)
{
	char msg[240];
	uint32_t g = p->ranks_per_node;

	if (p->algo == CC_ALGO_NVLS_TREE && (g < 2 || g >= p->nranks || p->nranks % g)) {
		snprintf(msg, sizeof(msg), "nvlstree joins nodes of two or more ranks, each on "
			 "its NVSwitch, by trees over the network: it needs at least two nodes "
			 "whose ranks per node divide the %u ranks, not nodes of %u (one node: nvls)",
			 p->nranks, g);
		if (field)
			*field = CC_PARAM_RANKS_PER_NODE;
		snprintf(err, errlen, "%s", msg);
		return -EINVAL;
	}
	if (p->algo == CC_ALGO_NVLS && g != p->nranks) {
		snprintf(msg, sizeof(msg), "nvls reduces and multicasts in the NVSwitch of one node: "
			 "it needs all %u ranks on one node with an NVSwitch, not nodes of %u "
			 "(several nodes: nvlstree)", p->nranks, g);
		return refuse(field, err, errlen, msg);
	}
	if (p->coll != CC_ALLGATHER && !switch_reduces(p->dtype, p->redop)) {
		snprintf(msg, sizeof(msg), "%s: the NVSwitch does not reduce %s with %s (sum of "
			 "32- and 64-bit integers, half, bfloat16, float and double; min and max of "
			 "the integers, half and bfloat16: NCCL's ncclNvlsSupported)",
			 cc_algo_name[p->algo], cc_dtype_name[p->dtype], cc_redop_name[p->redop]);
		return refuse(field, err, errlen, msg);
	}
	if (p->proto != CC_PROTO_SIMPLE)
		return refuse(field, err, errlen, "nvls and nvlstree run the Simple protocol only "
			      "(NCCL has NVLS kernels for Simple alone)");
	if (p->mem != CC_MEM_GPU)
		return refuse(field, err, errlen, "nvls and nvlstree need the user buffers in GPU "
			      "memory (multicast objects bind GPU memory)");
	return 0;
}

/* ---- the walk ---- */

static bool listing(const struct nvls *n)
{
	return n->s == NULL;
}

static uint32_t add(struct nvls *n, uint32_t r, const struct cc_op *op, const uint32_t *deps,
		    uint32_t ndeps)
{
	return cc_add_op(&n->s->ranks[r], op, deps, ndeps);
}

static struct cc_tag tag(enum cc_prim prim, uint32_t c, uint64_t chunk, uint32_t step,
			 uint8_t group)
{
	return (struct cc_tag){ .prim = prim, .channel = (uint16_t)c, .chunk = (uint32_t)chunk,
				.step = step, .group = group };
}

/* k waits on the sync words [first, first + k) of channel c for `value`,
 * each started after `after` (so few wait at once); into n->scratch. */
static void waits(struct nvls *n, uint32_t r, const struct chan *c, uint32_t first,
		  uint64_t value, uint32_t after, struct cc_tag t)
{
	for (uint32_t j = 0; j < n->g; j++) {
		struct cc_op op = { .kind = CC_OP_WAIT_MEM, .tag = t };

		op.u.wait = (struct cc_op_wait){ .buf = c->buf + 1, .offset = 8ull * (first + j),
						 .value = value };
		n->scratch[j] = add(n, r, &op, &after, 1);
	}
}

/* The warps of rank r's scatter (thread group 0) or gather (group 1) on
 * channel ci, without user-buffer registration (src/device/all_reduce.h,
 * reduce_scatter.h, all_gather.h, RunWorkColl<..., NCCL_ALGO_NVLS or
 * NVLS_TREE, NCCL_PROTO_SIMPLE>): what NCCL_MAX_NTHREADS leaves beside the
 * reduce warps (7 with at most 6 ranks in all, else 5; 5 below NVLSTree's
 * root) and NVLSTree's 4 broadcast warps below its root, the scatter
 * taking the odd one; reduce-scatter's scatter, all-gather's gather (beside
 * 4 broadcast warps) have the rest. */
static uint8_t copy_warps(const struct nvls *n, uint32_t r, uint32_t ci, uint8_t group)
{
	uint32_t reduce = n->k <= 6 ? 7 : 5, bcast = 0, rest;

	if (n->p->coll == CC_REDUCESCATTER)
		return (uint8_t)(CC_NCCL_MAX_WARPS - reduce);
	if (n->p->coll == CC_ALLGATHER)
		return (uint8_t)(CC_NCCL_MAX_WARPS - 4);
	if (n->tree && cc_nvls_tree_has_up(n->tree, r, ci)) {
		reduce = 5;
		bcast = 4;
	}
	rest = CC_NCCL_MAX_WARPS - reduce - bcast;
	return (uint8_t)(group ? rest / 2 : (rest + 1) / 2);
}

static uint32_t copy(struct nvls *n, uint32_t r, uint32_t src, uint64_t src_off, uint32_t dst,
		     uint64_t dst_off, uint64_t count, const uint32_t *deps, uint32_t ndeps,
		     struct cc_tag t)
{
	struct cc_op op = { .kind = CC_OP_COPY, .tag = t };

	op.u.calc = (struct cc_op_calc){
		.nsrc = 1, .ndst = 1, .src = { { src, src_off * n->es } },
		.dst = { { dst, dst_off * n->es } }, .count = count, .dtype = n->p->dtype,
		.redop = n->p->redop, .where = CC_ON_GPU,
		.warps = copy_warps(n, r, t.channel, t.group),
	};
	return add(n, r, &op, deps, ndeps);
}

/* A post_send on QP `which` of channel c, chained to that QP's last
 * doorbell; its wr_id is its index. */
static uint32_t post(struct nvls *n, uint32_t r, const struct chan *c, int which,
		     struct cc_op_send w, const uint32_t *deps, uint32_t ndeps, struct cc_tag t)
{
	struct cc_op op = { .kind = CC_OP_POST_SEND, .tag = t };
	uint32_t *d = n->deps, i;

	for (uint32_t j = 0; j < ndeps; j++)
		d[j] = deps[j];
	d[ndeps] = n->st.last_db[which];
	w.qp = c->qp + (uint32_t)which;
	op.u.send = w;
	i = add(n, r, &op, d, ndeps + 1);
	if (i != NONE)
		n->s->ranks[r].ops[i].u.send.wr_id = i;
	return i;
}

static uint32_t doorbell(struct nvls *n, uint32_t r, const struct chan *c, int which,
			 uint32_t nwqe, uint32_t last_post, struct cc_tag t)
{
	struct cc_op op = { .kind = CC_OP_DOORBELL, .tag = t };

	op.u.doorbell = (struct cc_op_doorbell){ .qp = c->qp + (uint32_t)which, .nwqe = nwqe };
	n->st.last_db[which] = add(n, r, &op, &last_post, 1);
	return n->st.last_db[which];
}

static uint32_t poll(struct nvls *n, uint32_t r, uint32_t wr, uint32_t db, struct cc_tag t)
{
	struct cc_op op = { .kind = CC_OP_POLL_CQ, .tag = t };

	op.u.poll = (struct cc_op_poll){ .cq = 0, .wr_id = wr };
	return add(n, r, &op, &db, 1);
}

/* The multicast WRITE of `value` into sync word `word` at every rank:
 * signaled, its own doorbell unless `pending` WQEs ride along; returns
 * the poll of its completion. */
static uint32_t flag(struct nvls *n, uint32_t r, const struct chan *c, int which, uint32_t word,
		     uint64_t value, const uint32_t *deps, uint32_t ndeps, uint32_t pending,
		     struct cc_tag t, uint32_t *posted)
{
	struct cc_op_send w = { .opcode = CC_WR_RDMA_WRITE, .flags = CC_SEND_SIGNALED |
				CC_SEND_INLINE, .payload = CC_PAYLOAD_CTRL, .num_sge = 1,
				.sge = { .length = 8 }, .remote_mr = c->mr + 1,
				.remote_offset = 8ull * word, .inline_value = value };
	uint32_t i = post(n, r, c, which, w, deps, ndeps, t);
	uint32_t db = doorbell(n, r, c, which, pending + 1, i, t);

	*posted = i;
	return poll(n, r, i, db, t);
}

/* The multicast READ (reduce) or WRITE of `count` elements between local
 * MR lmr + loff (elements) and chunk place roff (elements) of channel c's
 * multicast buffer, on QP `which`; unsignaled WRITE, signaled READ. */
static uint32_t data(struct nvls *n, uint32_t r, const struct chan *c, int which,
		     enum cc_opcode opcode, uint32_t lmr, uint64_t loff, uint64_t roff,
		     uint64_t count, const uint32_t *deps, uint32_t ndeps, struct cc_tag t)
{
	struct cc_op_send w = { .opcode = opcode, .payload = CC_PAYLOAD_DATA, .num_sge = 1,
				.sge = { .mr = lmr, .offset = loff * n->es,
					 .length = (uint32_t)(count * n->es) },
				.remote_mr = c->mr, .remote_offset = roff * n->es,
				.dtype = n->p->dtype, .redop = n->p->redop };

	if (opcode == CC_WR_RDMA_READ)
		w.flags = CC_SEND_SIGNALED;
	return post(n, r, c, which, w, deps, ndeps, t);
}

static void list(struct nvls *n, uint32_t r, enum cc_prim prim, uint32_t c, uint64_t chunk,
		 uint32_t step, uint64_t nelem)
{
	struct cc_prim_step st = { .prim = prim, .channel = (uint16_t)c,
				   .chunk = (uint32_t)chunk, .step = step, .nelem = nelem };

	n->list(n->list_ctx, r, &st);
}

/* Elements of the loop (of each block), and rank h's chunk of it. */
static uint64_t loop_len(const struct nvls *n, const struct chan *c, uint64_t l)
{
	uint64_t per = n->p->coll == CC_ALLREDUCE ? n->g * n->chunk : n->chunk;
	uint64_t at = l * per;

	return c->n - at < per ? c->n - at : per;
}

/* Allreduce: the loop's chunk (a head's share) and head h's elements. */
static uint64_t ar_chunk(const struct nvls *n, const struct chan *c, uint64_t l)
{
	uint64_t len = loop_len(n, c, l);

	return len == n->g * n->chunk ? n->chunk : (len + n->g - 1) / n->g;
}

static uint64_t ar_piece(const struct nvls *n, const struct chan *c, uint64_t l, uint32_t h)
{
	uint64_t cl = ar_chunk(n, c, l), len = loop_len(n, c, l), at = h * cl;

	return at >= len ? 0 : len - at < cl ? len - at : cl;
}

/* Where slot s starts in channel c's multicast buffer: up slots, then down
 * (allreduce), in elements; chunk h of a slot at h x width. */
static uint64_t slot_at(const struct nvls *n, const struct chan *c, uint64_t s, int down)
{
	return ((down && n->p->coll == CC_ALLREDUCE ? c->slots : 0) + s) * n->g * c->width;
}

/* The offset of loop l in the channel's elements. */
static uint64_t loop_at(const struct nvls *n, const struct chan *c, uint64_t l)
{
	return c->off + l * (n->p->coll == CC_ALLREDUCE ? n->g * n->chunk : n->chunk);
}

static void ar_gather(struct nvls *n, uint32_t r, uint32_t ci, uint64_t l, const uint32_t *deps,
		      uint32_t ndeps, uint32_t *out)
{
	const struct chan *c = &n->ch[ci];
	uint64_t len = loop_len(n, c, l);

	if (listing(n)) {
		list(n, r, CC_PRIM_GATHER, ci, l * n->g, 2, len);
		return;
	}
	*out = copy(n, r, c->buf, slot_at(n, c, l % c->slots, 1), CC_CONN_B_OUT, loop_at(n, c, l),
		    len, deps, ndeps, tag(CC_PRIM_GATHER, ci, l * n->g, 2, 1));
}

/* NVLSTree's head between its READ (op pr, the node's sum of its chunk,
 * put in the output at o) and its WRITE: the trees over the nodes
 * (core/nvls_tree.c); the ops the WRITE waits for into n->fin, their
 * count returned. */
static uint32_t across_nodes(struct nvls *n, uint32_t r, uint32_t ci, uint64_t l, uint64_t o,
			     uint64_t mine, uint32_t pr)
{
	return cc_nvls_tree_chunk(n->tree, r, ci, (uint32_t)(l * n->g + r % n->g), o, mine, pr,
				  n->fin);
}

/* Allreduce loop l of channel ci, member then head.  On one node the head
 * READs its chunk of the loop into a result slot and WRITEs it back; with
 * NVLSTree it READs into its output, where the trees add the other
 * nodes' sums, and WRITEs the total from there. */
static void ar_loop(struct nvls *n, uint32_t r, uint32_t ci, uint64_t l)
{
	const struct chan *c = &n->ch[ci];
	struct state *st = &n->st;
	uint32_t h = r % n->g;
	uint64_t s = l % c->slots, len = loop_len(n, c, l), cl = ar_chunk(n, c, l);
	uint64_t mine = ar_piece(n, c, l, h), k = n->g, o = loop_at(n, c, l) + h * cl;
	bool reuse = l >= c->slots;
	struct cc_tag ts = tag(CC_PRIM_SCATTER, ci, l * k, 0, 0);
	struct cc_tag th = tag(CC_PRIM_DIRECT_RECV_DIRECT_SEND, ci, l * k + h, 1, 0);
	uint32_t d[4], nd = 0, sc, ga = NONE, wait_from;

	if (n->counting) {
		if (mine)
			across_nodes(n, r, ci, l, o, mine, NONE);
		return;
	}
	if (listing(n)) {
		list(n, r, CC_PRIM_SCATTER, ci, l * k, 0, len);
		if (reuse)
			ar_gather(n, r, ci, l - c->slots, NULL, 0, NULL);
		list(n, r, CC_PRIM_DIRECT_RECV_DIRECT_SEND, ci, l * k + h, 1, mine);
		if (n->tree && mine)
			across_nodes(n, r, ci, l, o, mine, NONE);
		return;
	}
	/* member: slot s is free once every head is done with loop l - slots */
	uint32_t *w = n->scratch;
	uint32_t nw = 0;

	if (reuse) {
		waits(n, r, c, k, l - c->slots + 1, st->member, ts);
		nw = n->g;
	}
	sc = copy(n, r, CC_CONN_B_IN, loop_at(n, c, l), c->buf, slot_at(n, c, s, 0), len, w, nw,
		  ts);
	if (reuse)
		ar_gather(n, r, ci, l - c->slots, w, nw, &ga);
	d[nd++] = sc;
	d[nd++] = ga;
	d[nd++] = reuse ? st->poll_ready[s] : NONE;
	st->poll_ready[s] = flag(n, r, c, QP_MEMBER, h, l + 1, d, nd, 0, ts, &st->member);

	/* head: every member has scattered loop l and gathered l - slots */
	wait_from = n->tree ? st->reduce : st->head;
	waits(n, r, c, 0, l + 1, wait_from, th);
	nd = 0;
	w[k] = reuse ? st->poll_done[s] : NONE;
	if (!mine) {
		/* no element of this loop is this head's: only its flag */
		st->poll_done[s] = flag(n, r, c, QP_HEAD, k + h, l + 1, w, k + 1, 0, th,
					&st->head);
		return;
	}
	uint32_t rd, db, pr, wr, *wd = &pr, nwd = 1;

	if (n->tree) {
		/* READ into the output: the reduce chain's own QP, whose WQEs
		 * are each polled before the next (no slot to wait for) */
		rd = data(n, r, c, QP_REDUCE, CC_WR_RDMA_READ, 1, o, slot_at(n, c, s, 0) + h * cl,
			  mine, w, k, th);
		db = doorbell(n, r, c, QP_REDUCE, 1, rd, th);
		st->reduce = rd;
		pr = poll(n, r, rd, db, th);
		nwd = across_nodes(n, r, ci, l, o, mine, pr);
		wd = n->fin;
		wd[nwd++] = w[k];
		wr = data(n, r, c, QP_HEAD, CC_WR_RDMA_WRITE, 1, o, slot_at(n, c, s, 1) + h * cl,
			  mine, wd, nwd, th);
	} else {
		rd = data(n, r, c, QP_HEAD, CC_WR_RDMA_READ, c->mr + 2, s * c->width,
			  slot_at(n, c, s, 0) + h * cl, mine, w, k + 1, th);
		db = doorbell(n, r, c, QP_HEAD, 1, rd, th);
		pr = poll(n, r, rd, db, th);
		wr = data(n, r, c, QP_HEAD, CC_WR_RDMA_WRITE, c->mr + 2, s * c->width,
			  slot_at(n, c, s, 1) + h * cl, mine, wd, nwd, th);
	}
	d[nd++] = wr;
	st->poll_done[s] = flag(n, r, c, QP_HEAD, k + h, l + 1, d, nd, 1, th, &st->head);
}

/* Reduce-scatter loop l: member scatter of every block's chunk, head READ
 * of its own into the output. */
static void rs_loop(struct nvls *n, uint32_t r, uint32_t ci, uint64_t l)
{
	const struct chan *c = &n->ch[ci];
	struct state *st = &n->st;
	uint64_t s = l % c->slots, len = loop_len(n, c, l), k = n->k, blk = n->p->count;
	bool reuse = l >= c->slots;
	struct cc_tag ts = tag(CC_PRIM_SCATTER, ci, l * k, 0, 0);
	struct cc_tag th = tag(CC_PRIM_RECV, ci, l * k + r, 1, 0);
	uint32_t *w = n->scratch, nw = 0, *cp = n->copies, rd, db, pr;

	if (listing(n)) {
		list(n, r, CC_PRIM_SCATTER, ci, l * k, 0, len * k);
		list(n, r, CC_PRIM_RECV, ci, l * k + r, 1, len);
		return;
	}
	if (reuse) {
		waits(n, r, c, k, l - c->slots + 1, st->member, ts);
		nw = n->k;
	}
	for (uint32_t h = 0; h < k; h++)
		cp[h] = copy(n, r, CC_CONN_B_IN, h * blk + loop_at(n, c, l), c->buf,
			     slot_at(n, c, s, 0) + h * c->width, len, w, nw, ts);
	cp[k] = reuse ? st->poll_ready[s] : NONE;
	st->poll_ready[s] = flag(n, r, c, QP_MEMBER, r, l + 1, cp, (uint32_t)k + 1, 0, ts,
				 &st->member);

	waits(n, r, c, 0, l + 1, st->head, th);
	w[k] = reuse ? st->poll_done[s] : NONE; /* the QP's WQEs of loop l - slots reaped */
	rd = data(n, r, c, QP_HEAD, CC_WR_RDMA_READ, 1, loop_at(n, c, l),
		  slot_at(n, c, s, 0) + r * c->width, len, w, (uint32_t)k + 1, th);
	db = doorbell(n, r, c, QP_HEAD, 1, rd, th);
	pr = poll(n, r, rd, db, th);
	st->poll_done[s] = flag(n, r, c, QP_HEAD, k + r, l + 1, &pr, 1, 0, th, &st->head);
}

/* All-gather loop l: head WRITE of its input's chunk, member gather of
 * every block's. */
static void ag_loop(struct nvls *n, uint32_t r, uint32_t ci, uint64_t l)
{
	const struct chan *c = &n->ch[ci];
	struct state *st = &n->st;
	uint64_t s = l % c->slots, len = loop_len(n, c, l), k = n->k, blk = n->p->count;
	bool reuse = l >= c->slots;
	struct cc_tag th = tag(CC_PRIM_SEND, ci, l * k + r, 0, 0);
	struct cc_tag tg = tag(CC_PRIM_GATHER, ci, l * k, 1, 1);
	uint32_t *w = n->scratch, nw = 0, *cp = n->copies, wr;

	if (listing(n)) {
		list(n, r, CC_PRIM_SEND, ci, l * k + r, 0, len);
		list(n, r, CC_PRIM_GATHER, ci, l * k, 1, len * k);
		return;
	}
	/* head: slot s is free once every member has gathered loop l - slots */
	if (reuse) {
		waits(n, r, c, 0, l - c->slots + 1, st->head, th);
		nw = n->k;
	}
	w[nw] = reuse ? st->poll_done[s] : NONE;
	wr = data(n, r, c, QP_HEAD, CC_WR_RDMA_WRITE, 0, loop_at(n, c, l),
		  slot_at(n, c, s, 1) + r * c->width, len, w, nw + 1, th);
	st->poll_done[s] = flag(n, r, c, QP_HEAD, k + r, l + 1, &wr, 1, 1, th, &st->head);

	waits(n, r, c, k, l + 1, st->member, tg);
	for (uint32_t h = 0; h < k; h++)
		cp[h] = copy(n, r, c->buf, slot_at(n, c, s, 1) + h * c->width, CC_CONN_B_OUT,
			     h * blk + loop_at(n, c, l), len, w, (uint32_t)k, tg);
	cp[k] = reuse ? st->poll_ready[s] : NONE;
	st->poll_ready[s] = flag(n, r, c, QP_MEMBER, r, l + 1, cp, (uint32_t)k + 1, 0, tg,
				 &st->member);
}

static bool stopped(struct nvls *n)
{
	if (n->deadline_ns && ++n->since_check >= DEADLINE_CHECK_LOOPS) {
		n->since_check = 0;
		n->timed_out = cc_clock_ns() >= n->deadline_ns;
	}
	return n->timed_out;
}

/* Rank r's program, channel by channel, loop by loop. */
static void walk(struct nvls *n, uint32_t r)
{
	for (uint32_t ci = 0; ci < n->nch && !n->timed_out; ci++) {
		const struct chan *c = &n->ch[ci];

		if (!c->n)
			continue;
		n->st.last_db[0] = n->st.last_db[1] = n->st.last_db[2] = NONE;
		n->st.member = n->st.head = n->st.reduce = NONE;
		for (uint64_t l = 0; l < c->loops && !stopped(n); l++) {
			if (n->p->coll == CC_ALLREDUCE)
				ar_loop(n, r, ci, l);
			else if (n->p->coll == CC_REDUCESCATTER)
				rs_loop(n, r, ci, l);
			else
				ag_loop(n, r, ci, l);
		}
		if (n->p->coll != CC_ALLREDUCE || n->counting)
			continue;
		/* the gathers the loops still owe, each once every head is done */
		uint32_t after = n->st.member;

		for (uint64_t l = c->loops > c->slots ? c->loops - c->slots : 0; l < c->loops; l++) {
			uint32_t g = NONE;

			if (!listing(n))
				waits(n, r, c, n->g, l + 1, after, tag(CC_PRIM_GATHER, ci, l * n->g, 2, 1));
			ar_gather(n, r, ci, l, n->scratch, n->g, &g);
			after = g;
		}
	}
}

/* The channels' shares and loops (the same on every rank). */
static int plan(struct nvls *n)
{
	const struct cc_coll_params *p = n->p;
	uint64_t total = p->count;

	n->k = p->nranks;
	n->g = p->algo == CC_ALGO_NVLS_TREE ? p->ranks_per_node : p->nranks;
	if (!n->g || n->k % n->g)
		return -1; /* unchecked parameters (a listing's): no nodes to walk */
	n->es = cc_dtype_size(p->dtype);
	n->chunk = p->chunk_bytes / n->es ? p->chunk_bytes / n->es : 1;
	n->nch = p->nchannels > 1 ? p->nchannels : 1;
	n->ch = calloc(n->nch, sizeof(*n->ch));
	if (!n->ch)
		return -1;
	for (uint32_t ci = 0; ci < n->nch; ci++) {
		struct chan *c = &n->ch[ci];
		uint64_t per = p->coll == CC_ALLREDUCE ? n->g * n->chunk : n->chunk;

		c->off = (uint64_t)((unsigned __int128)total * ci / n->nch);
		c->n = (uint64_t)((unsigned __int128)total * (ci + 1) / n->nch) - c->off;
		c->loops = (c->n + per - 1) / per;
		c->slots = c->loops < p->nslots ? c->loops : p->nslots;
		/* A slot is no larger than the collective's largest chunk. */
		c->width = p->coll == CC_ALLREDUCE ? (c->n + n->g - 1) / n->g : c->n;
		if (c->width > n->chunk)
			c->width = n->chunk;
	}
	return 0;
}

void cc_nvls_primitives(const struct cc_coll_params *p, uint32_t rank, cc_prim_fn fn, void *ctx)
{
	struct nvls n = { .p = p, .list = fn, .list_ctx = ctx };
	struct cc_nvls_tree tree;

	if (plan(&n) == 0) {
		if (n.g == n.k) {
			walk(&n, rank);
		} else if (cc_nvls_tree_init(&tree, p, n.g, n.nch, fn, ctx) == 0) {
			n.tree = &tree;
			walk(&n, rank);
		}
		if (n.tree)
			cc_nvls_tree_free(&tree);
	}
	free(n.ch);
}

/* Every rank's MRs of its input and output, multicast buffers, CQ and
 * QPs: the same layout on each, so one MR index names a channel's
 * multicast buffer at every member (with NVLSTree, before the trees'
 * connections, which differ from rank to rank). */
static void setup(struct nvls *n)
{
	const struct cc_coll_params *p = n->p;
	uint32_t qps = n->tree ? 3 : 2;

	for (uint32_t r = 0; r < n->k; r++) {
		struct cc_rank_sched *rs = &n->s->ranks[r];
		uint32_t nqps = 0;

		/* the WRITE's source (all-gather), the READ's target (reduce-scatter) */
		cc_add_mr(rs, CC_CONN_B_IN, 0);
		cc_add_mr(rs, CC_CONN_B_OUT, CC_ACCESS_LOCAL_WRITE);
		for (uint32_t ci = 0; ci < n->nch; ci++) {
			struct chan *c = &n->ch[ci];
			uint64_t slot = (uint64_t)n->g * c->width * n->es;
			uint64_t mc = c->slots * slot * (p->coll == CC_ALLREDUCE ? 2 : 1);

			if (!c->n)
				continue;
			c->buf = cc_add_buffer(rs, &(struct cc_buffer){ CC_MEM_GPU, CC_BUF_MCAST, mc,
									-1, (uint16_t)ci });
			cc_add_buffer(rs, &(struct cc_buffer){ CC_MEM_GPU, CC_BUF_MCAST,
							       16ull * n->g, -1, (uint16_t)ci });
			c->mr = cc_add_mr(rs, c->buf, CC_ACCESS_LOCAL_WRITE | CC_ACCESS_REMOTE_WRITE |
							      CC_ACCESS_REMOTE_READ);
			cc_add_mr(rs, c->buf + 1, CC_ACCESS_LOCAL_WRITE | CC_ACCESS_REMOTE_WRITE);
			if (p->coll == CC_ALLREDUCE && !n->tree) {
				/* the head's reduced chunk between its READ and WRITE */
				cc_add_buffer(rs, &(struct cc_buffer){ CC_MEM_GPU, CC_BUF_SEND_STAGE,
								       c->slots * c->width * n->es,
								       -1, (uint16_t)ci });
				cc_add_mr(rs, c->buf + 2, CC_ACCESS_LOCAL_WRITE);
			}
			c->qp = nqps;
			nqps += qps;
		}
		/* Each channel's QPs hold at most slots loops of WQEs: a flag
		 * post waits for the poll of the one slots loops before. */
		uint32_t wr = 3 * (uint32_t)p->nslots + 3;
		uint32_t cq = cc_add_cq(rs, (nqps ? nqps : 1) * (2 * (uint32_t)p->nslots + 2));

		for (uint32_t ci = 0; ci < n->nch; ci++)
			for (uint32_t q = 0; n->ch[ci].n && q < qps; q++)
				cc_add_qp(rs, &(struct cc_qp){ .peer = r - r % n->g, .group = n->g,
							       .send_cq = cq, .recv_cq = cq,
							       .max_send_wr = wr, .max_inline = 64,
							       .retry_cnt = 7, .rnr_retry = 7,
							       .channel = (uint16_t)ci });
	}
}

/* NVLSTree on the connections' build (core/conn.h): its trees' edges,
 * the NVSwitch's resources, and the walk, which counts only the trees'
 * steps. */
static int tree_connect(void *ctx, struct cc_conns *c)
{
	struct nvls *n = ctx;

	return cc_nvls_tree_connect(n->tree, c);
}

static void tree_resources(void *ctx, struct cc_schedule *s)
{
	struct nvls *n = ctx;

	n->s = s;
	setup(n);
}

static void tree_walk(void *ctx, uint32_t r, int counting)
{
	struct nvls *n = ctx;

	n->counting = counting;
	n->tree->w.counting = counting;
	walk(n, r);
}

static struct cc_schedule *build_tree(struct nvls *n)
{
	struct cc_nvls_tree tree;
	struct cc_conns_algo a = { .most = n->chunk, .connect = tree_connect,
				   .resources = tree_resources, .walk = tree_walk, .ctx = n };
	struct cc_schedule *s;

	if (cc_nvls_tree_init(&tree, n->p, n->g, n->nch, NULL, NULL)) {
		errno = ENOMEM;
		return NULL;
	}
	n->tree = &tree;
	s = cc_conns_build(n->p, &a);
	if (s && n->timed_out) {
		cc_schedule_free(s);
		s = NULL;
		errno = ETIME;
	}
	cc_nvls_tree_free(&tree);
	n->tree = NULL;
	return s;
}

struct cc_schedule *cc_build_nvls(const struct cc_coll_params *p)
{
	struct nvls n = { .p = p, .deadline_ns = cc_conns_deadline() };
	struct cc_schedule *s = NULL;
	uint64_t most = 0, slices;

	errno = ENOMEM;
	if (plan(&n))
		goto out;
	for (uint32_t ci = 0; ci < n.nch; ci++)
		if (n.ch[ci].slots > most)
			most = n.ch[ci].slots;
	/* a chunk's slices on the trees' connections (core/conn.c's slot) */
	slices = n.chunk / (p->slot_bytes / n.es ? p->slot_bytes / n.es : 1) + 1;
	n.scratch = malloc((n.k + 4) * sizeof(*n.scratch));
	n.copies = malloc((n.k + 1) * sizeof(*n.copies));
	n.deps = malloc((n.k + slices + 8) * sizeof(*n.deps));
	n.fin = malloc((slices + 1) * sizeof(*n.fin));
	n.st.poll_ready = malloc((most + 1) * sizeof(uint32_t));
	n.st.poll_done = malloc((most + 1) * sizeof(uint32_t));
	if (!n.scratch || !n.copies || !n.deps || !n.fin || !n.st.poll_ready || !n.st.poll_done)
		goto out;
	if (n.g != n.k) {
		s = build_tree(&n);
		goto out;
	}
	s = cc_schedule_new(p);
	if (!s)
		goto fail;
	n.s = s;
	cc_conns_user_buffers(s, p);
	setup(&n);
	for (uint32_t r = 0; r < n.k && !n.timed_out && !cc_schedule_oom(s); r++)
		if (cc_conns_builds_rank(r))
			walk(&n, r);
	if (n.timed_out) {
		errno = ETIME;
		goto fail;
	}
	if (!cc_schedule_oom(s))
		goto out;
fail:
	cc_schedule_free(s);
	s = NULL;
out:
	free(n.ch);
	free(n.scratch);
	free(n.copies);
	free(n.deps);
	free(n.fin);
	free(n.st.poll_ready);
	free(n.st.poll_done);
	return s;
}

/* Per rank and channel the multicast buffer: slots x k chunks, up and
 * down for allreduce (the result slots aside), up or down for the
 * others — as cc_build_estimate counts staging, two arrays of slots of a
 * chunk per "connection". */
void cc_nvls_staging(const struct cc_coll_params *p, double *conns, double *msg)
{
	double nch = p->nchannels > 1 ? p->nchannels : 1;

	if (p->algo == CC_ALGO_NVLS_TREE) {
		/* a node's heads, and a parent and two children each way */
		*conns = nch * (p->ranks_per_node + 3);
		*msg = (double)(p->chunk_bytes / cc_dtype_size(p->dtype));
		return;
	}
	*conns = nch * p->nranks * (p->coll == CC_ALLREDUCE ? 1 : 0.5);
	*msg = (double)(p->chunk_bytes / cc_dtype_size(p->dtype));
}

/* Ops per rank: per loop of a channel 2k waits and about 12 more (the
 * copies, flags, posts, doorbells, polls; reduce-scatter and all-gather
 * k copies), each with its dependencies; NVLSTree's k a node's ranks, and
 * its trees' steps about 48 more. */
double cc_nvls_schedule_bytes(const struct cc_coll_params *p, size_t es)
{
	bool tree = p->algo == CC_ALGO_NVLS_TREE && p->ranks_per_node;
	double k = tree ? p->ranks_per_node : p->nranks;
	double chunk = (double)(p->chunk_bytes / es ? p->chunk_bytes / es : 1);
	double nch = p->nchannels > 1 ? p->nchannels : 1;
	double per = p->coll == CC_ALLREDUCE ? k * chunk : chunk;
	double loops = (double)p->count / per + nch;
	double ops = (p->coll == CC_ALLREDUCE ? 2 * k + 12 + (tree ? 48 : 0) : 3 * k + 9) * loops;

	return p->nranks * ops * (sizeof(struct cc_op) + 64 + 4 * k);
}
