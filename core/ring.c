/* core/ring.c — ring allreduce, reduce-scatter and all-gather.
 *
 * The primitive sequence per loop is NCCL's runRing (src/device/all_reduce.h,
 * reduce_scatter.h, all_gather.h), ring order 0, 1, ..., k-1:
 *
 *   allreduce      send, (k-2) x recvReduceSend, recvReduceCopySend,
 *                  (k-2) x recvCopySend, recv                    2k-1 steps
 *   reduce-scatter send, (k-2) x recvReduceSend, recvReduceCopy  k steps
 *   all-gather     copySend, (k-2) x recvCopySend, recv          k steps
 *
 * Below the primitives is the protocol NCCL's net/IB transport uses
 * (src/transport/net_ib.cc): every directed ring edge is a connection with
 * its own RC QP pair and nslots staging slots in the receiver's memory.
 * Each slice of a chunk travels in one slot:
 *
 *   receiver: slot free -> post_recv -> RDMA WRITE (inline, mostly unsignaled)
 *             of "slice j may come" into the sender's clear-to-send word
 *   sender:   slot data ready (copy/reduce into its send-stage slot) and
 *             clear-to-send seen (wait_mem) -> post_send -> doorbell -> poll
 *   receiver: completion (write_imm, send_recv) or flag (write_flag) seen ->
 *             reduce/copy out of the slot -> slot free again
 *
 * Every CTS write is unsignaled except one per nslots, whose completion is
 * polled before the same slot's next CTS is posted: as ncclIbPostFifo does,
 * so the send queue drains without a CQE per credit.
 */
#include "algo.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* Buffer and MR indices, the same on every rank. */
enum { B_IN, B_OUT, B_SEND_STAGE, B_RECV_STAGE, B_CTS, B_FLAG };
enum { MR_SEND_STAGE, MR_RECV_STAGE, MR_CTS, MR_FLAG };
enum { QP_OUT, QP_IN }; /* QP_OUT: to next (data out); QP_IN: from prev */

/* One end of a connection, as one rank sees it. */
struct end {
	uint64_t seq;       /* slices so far */
	uint64_t total;     /* slices the connection carries */
	uint32_t last_post; /* last ibv_post_send call (its doorbell) on this end's QP */
	uint32_t last_recv; /* last post_recv on it: the RQ is consumed in post order */
	uint32_t *slot_free; /* op after which the slot may be refilled */
	uint32_t *recv_wqe;  /* receiver: post_recv of the slice in each slot */
	uint32_t *cts_sent;  /* receiver: doorbell of the slot's latest CTS */
	uint32_t *cts_poll;  /* receiver: poll of the slot's last signaled CTS */
};

struct ring {
	const struct cc_coll_params *p;
	cc_prim_fn user_fn; /* cc_ring_primitives' callback */
	void *user_ctx;
	struct cc_schedule *s;
	uint32_t k, nslots;
	size_t es;
	uint64_t slot_elems; /* largest slice; also the slot stride */
	struct end *out, *in; /* per rank */
};

static uint32_t add(struct ring *g, uint32_t r, struct cc_op *op, const uint32_t *deps,
		    uint32_t ndeps)
{
	return cc_add_op(&g->s->ranks[r], op, deps, ndeps);
}

/* ---- setup: buffers, MRs, CQ, QPs ---- */

static void setup_rank(struct ring *g, uint32_t r)
{
	struct cc_rank_sched *rs = &g->s->ranks[r];
	const struct cc_coll_params *p = g->p;
	uint32_t next = (r + 1) % g->k, prev = (r + g->k - 1) % g->k;
	uint64_t stage = (uint64_t)g->nslots * g->slot_elems * g->es;
	uint64_t words = (uint64_t)g->nslots * 8;

	cc_add_buffer(rs, &(struct cc_buffer){ p->mem, CC_BUF_INPUT, cc_coll_in_count(p) * g->es, -1, 0 });
	cc_add_buffer(rs, &(struct cc_buffer){ p->mem, CC_BUF_OUTPUT, cc_coll_out_count(p) * g->es, -1, 0 });
	if (g->k == 1)
		return;
	/* Staging follows the user buffers, or sits in host memory when the
	 * NIC cannot reach GPU memory (no GPUDirect RDMA): NCCL's net
	 * transport then allocates its Simple buffers with cudaHostAlloc and
	 * the kernel reads and writes them through the GPU mapping
	 * (src/transport/net.cc, sendProxyConnect / recvProxyConnect).  The
	 * reduces and copies still run on the GPU (`where` follows mem). */
	enum cc_mem_kind smem = cc_coll_stage_mem(p);
	cc_add_buffer(rs, &(struct cc_buffer){ smem, CC_BUF_SEND_STAGE, stage, (int32_t)next, 0 });
	cc_add_buffer(rs, &(struct cc_buffer){ smem, CC_BUF_RECV_STAGE, stage, (int32_t)prev, 0 });
	/* Control words live in host memory whatever the staging: the proxy
	 * thread polls them.  NCCL too: net_ib.cc's clear-to-send fifo is
	 * host memory registered with the NIC, and net.cc places sendMem /
	 * recvMem (head, tail, connFifo) in host memory with or without
	 * GPUDirect RDMA (GDRCopy's optional head in GPU memory aside). */
	cc_add_buffer(rs, &(struct cc_buffer){ CC_MEM_HOST, CC_BUF_CTS, words, (int32_t)next, 0 });
	cc_add_buffer(rs, &(struct cc_buffer){ CC_MEM_HOST, CC_BUF_FLAG, words, (int32_t)prev, 0 });

	/* NCCL registers with LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ; we ask
	 * for what each buffer needs, so a schedule that strays is caught. */
	cc_add_mr(rs, B_SEND_STAGE, CC_ACCESS_LOCAL_WRITE);
	cc_add_mr(rs, B_RECV_STAGE, CC_ACCESS_LOCAL_WRITE | CC_ACCESS_REMOTE_WRITE);
	cc_add_mr(rs, B_CTS, CC_ACCESS_LOCAL_WRITE | CC_ACCESS_REMOTE_WRITE);
	cc_add_mr(rs, B_FLAG, CC_ACCESS_LOCAL_WRITE | CC_ACCESS_REMOTE_WRITE);

	cc_add_cq(rs, 4 * g->nslots);
	/* NCCL_IB_RETRY_CNT and rnr_retry default to 7 (net_ib.cc). */
	struct cc_qp qp = { .send_cq = 0, .recv_cq = 0, .max_send_wr = 2 * g->nslots,
			    .max_recv_wr = g->nslots, .max_inline = 64, .retry_cnt = 7,
			    .rnr_retry = 7, .channel = 0 };
	qp.peer = next;
	qp.peer_qp = QP_IN;
	cc_add_qp(rs, &qp);
	qp.peer = prev;
	qp.peer_qp = QP_OUT;
	cc_add_qp(rs, &qp);
}

/* ---- the chunk walk, shared by counting and emitting ---- */

/* A primitive step applied to one chunk of data. */
struct step {
	enum cc_prim prim;
	uint32_t step;   /* index in the loop */
	uint32_t chunk;  /* tag: loop * k + chunk (or block) index */
	uint64_t in_off; /* element offsets into input and output */
	uint64_t out_off;
	uint64_t nelem;
};

static int prim_recvs(enum cc_prim p)
{
	return p != CC_PRIM_SEND && p != CC_PRIM_COPY_SEND && p != CC_PRIM_COPY;
}

static int prim_sends(enum cc_prim p)
{
	return p == CC_PRIM_SEND || p == CC_PRIM_COPY_SEND || p == CC_PRIM_RECV_REDUCE_SEND ||
	       p == CC_PRIM_RECV_REDUCE_COPY_SEND || p == CC_PRIM_RECV_COPY_SEND;
}

typedef void (*step_fn)(struct ring *g, uint32_t r, const struct step *st);

static uint32_t mod(int64_t a, uint32_t k)
{
	int64_t m = a % (int64_t)k;
	return (uint32_t)(m < 0 ? m + k : m);
}

/* allreduce: all_reduce.h runRing.  Chunk c of a loop covers elements
 * [off + c*real, off + (c+1)*real) with real = min(chunk, ceil(rest / k)). */
static void walk_allreduce(struct ring *g, uint32_t r, step_fn fn)
{
	uint32_t k = g->k;
	uint64_t n = g->p->count, chunk = g->p->chunk_bytes / g->es;
	uint64_t loop_size = chunk * k;
	uint32_t loop = 0;

	for (uint64_t off = 0; off < n; off += loop_size, loop++) {
		uint64_t rest = n - off;
		uint64_t real = chunk < (rest + k - 1) / k ? chunk : (rest + k - 1) / k;
		uint32_t s = 0;
		struct step st;
#define AR_STEP(PRIM, C)                                                              \
	do {                                                                          \
		uint32_t c_ = (C);                                                    \
		uint64_t o_ = (uint64_t)c_ * real;                                    \
		st = (struct step){ PRIM, s++, loop * k + c_, off + o_, off + o_,     \
				    o_ < rest ? (rest - o_ < real ? rest - o_ : real) : 0 }; \
		fn(g, r, &st);                                                        \
	} while (0)
		AR_STEP(CC_PRIM_SEND, mod((int64_t)r - 1, k));
		for (uint32_t j = 2; j < k; j++)
			AR_STEP(CC_PRIM_RECV_REDUCE_SEND, mod((int64_t)r - j, k));
		AR_STEP(CC_PRIM_RECV_REDUCE_COPY_SEND, r);
		for (uint32_t j = 1; j + 1 < k; j++)
			AR_STEP(CC_PRIM_RECV_COPY_SEND, mod((int64_t)r - j, k));
		AR_STEP(CC_PRIM_RECV, mod((int64_t)r + 1, k));
#undef AR_STEP
	}
}

/* reduce-scatter and all-gather: reduce_scatter.h / all_gather.h runRing.
 * The array is k blocks of count elements; a loop moves the same chunk of
 * every block, one block per step. */
static void walk_blocks(struct ring *g, uint32_t r, step_fn fn)
{
	uint32_t k = g->k;
	uint64_t n = g->p->count, chunk = g->p->chunk_bytes / g->es;
	int rs = g->p->coll == CC_REDUCESCATTER;
	uint32_t loop = 0;

	for (uint64_t off = 0; off < n; off += chunk, loop++) {
		uint64_t nelem = n - off < chunk ? n - off : chunk;
		uint32_t s = 0;
		struct step st;
#define BLOCK_STEP(PRIM, B)                                                                 \
	do {                                                                                \
		uint32_t b_ = (B);                                                          \
		st = (struct step){ PRIM, s++, loop * k + b_,                               \
				    rs ? b_ * n + off : off, rs ? off : b_ * n + off, nelem }; \
		fn(g, r, &st);                                                              \
	} while (0)
		if (rs) {
			BLOCK_STEP(CC_PRIM_SEND, mod((int64_t)r - 1, k));
			for (uint32_t j = 2; j < k; j++)
				BLOCK_STEP(CC_PRIM_RECV_REDUCE_SEND, mod((int64_t)r - j, k));
			BLOCK_STEP(CC_PRIM_RECV_REDUCE_COPY, r);
		} else {
			BLOCK_STEP(CC_PRIM_COPY_SEND, r);
			for (uint32_t j = 1; j + 1 < k; j++)
				BLOCK_STEP(CC_PRIM_RECV_COPY_SEND, mod((int64_t)r - j, k));
			BLOCK_STEP(CC_PRIM_RECV, mod((int64_t)r + 1, k));
		}
#undef BLOCK_STEP
	}
}

static void walk(struct ring *g, uint32_t r, step_fn fn)
{
	if (g->p->coll == CC_ALLREDUCE)
		walk_allreduce(g, r, fn);
	else
		walk_blocks(g, r, fn);
}

static uint64_t nslices(const struct ring *g, uint64_t nelem)
{
	return (nelem + g->slot_elems - 1) / g->slot_elems;
}

static void count_step(struct ring *g, uint32_t r, const struct step *st)
{
	if (prim_sends(st->prim))
		g->out[r].total += nslices(g, st->nelem);
	if (prim_recvs(st->prim))
		g->in[r].total += nslices(g, st->nelem);
}

/* ---- the protocol ---- */

/* Receiver side: make slice j of rank r's incoming connection welcome —
 * post the receive WQE, then tell the sender (RDMA WRITE of j+1 into its
 * CTS word for the slot). */
static void arm(struct ring *g, uint32_t r, uint64_t j)
{
	struct end *e = &g->in[r];
	uint32_t slot = (uint32_t)(j % g->nslots);
	enum cc_transport t = g->p->transport;
	struct cc_op op = { .tag = { .prim = CC_PRIM_NONE } };
	uint32_t recv = NONE;

	if (t != CC_WRITE_FLAG) {
		/* WRITE_WITH_IMM consumes a receive WQE without using its SGE
		 * (IBA 9.4.3); SEND lands in it. */
		op.kind = CC_OP_POST_RECV;
		op.u.recv = (struct cc_op_recv){ .qp = QP_IN, .wr_id = g->s->ranks[r].nops };
		if (t == CC_SEND_RECV) {
			op.u.recv.num_sge = 1;
			op.u.recv.sge = (struct cc_sge){ MR_RECV_STAGE, slot * g->slot_elems * g->es,
							 (uint32_t)(g->slot_elems * g->es) };
		}
		uint32_t deps[] = { e->slot_free[slot], e->last_recv };
		recv = add(g, r, &op, deps, 2);
		e->recv_wqe[slot] = recv;
		e->last_recv = recv;
	}

	int signaled = slot == 0;
	op.kind = CC_OP_POST_SEND;
	op.u.send = (struct cc_op_send){
		.qp = QP_IN, .wr_id = g->s->ranks[r].nops, .opcode = CC_WR_RDMA_WRITE,
		.flags = CC_SEND_INLINE | (signaled ? CC_SEND_SIGNALED : 0),
		.payload = CC_PAYLOAD_CTRL, .num_sge = 1,
		.sge = { .length = 8 }, .remote_mr = MR_CTS, .remote_offset = slot * 8ull,
		.inline_value = j + 1,
	};
	uint32_t deps[] = { e->slot_free[slot], recv, e->last_post, e->cts_poll[slot] };
	uint32_t cts = add(g, r, &op, deps, 4);

	op.kind = CC_OP_DOORBELL;
	op.u.doorbell = (struct cc_op_doorbell){ .qp = QP_IN, .nwqe = 1 };
	uint32_t db = add(g, r, &op, &cts, 1);
	e->last_post = db;
	e->cts_sent[slot] = db;

	if (signaled) {
		op.kind = CC_OP_POLL_CQ;
		op.u.poll = (struct cc_op_poll){ .cq = 0, .wr_id = cts };
		e->cts_poll[slot] = add(g, r, &op, &db, 1);
	}
}

/* The op that sees slice j arrive: its completion, or its flag. */
static uint32_t arrival(struct ring *g, uint32_t r, uint64_t j, const struct cc_tag *tag)
{
	struct end *e = &g->in[r];
	uint32_t slot = (uint32_t)(j % g->nslots);
	struct cc_op op = { .tag = *tag };

	if (g->p->transport == CC_WRITE_FLAG) {
		/* Watch the flag once the slice has been invited. */
		op.kind = CC_OP_WAIT_MEM;
		op.u.wait = (struct cc_op_wait){ B_FLAG, slot * 8ull, j + 1 };
		return add(g, r, &op, &e->cts_sent[slot], 1);
	}
	op.kind = CC_OP_POLL_CQ;
	op.u.poll = (struct cc_op_poll){ .cq = 0, .wr_id = e->recv_wqe[slot] };
	return add(g, r, &op, &e->recv_wqe[slot], 1);
}

/* Sender side: slice i, already in send-stage slot i % nslots (made by op
 * `ready`), goes to the next rank once that rank's CTS for it is seen. */
static void send_slice(struct ring *g, uint32_t r, uint64_t i, uint32_t ready, uint64_t nelem,
		       const struct cc_tag *tag)
{
	struct end *e = &g->out[r];
	uint32_t slot = (uint32_t)(i % g->nslots);
	uint64_t slot_off = slot * g->slot_elems * g->es;
	uint32_t len = (uint32_t)(nelem * g->es);
	enum cc_transport t = g->p->transport;
	struct cc_op op = { .tag = *tag };

	/* Watch the slot's CTS word once the slot's previous send is done. */
	op.kind = CC_OP_WAIT_MEM;
	op.u.wait = (struct cc_op_wait){ B_CTS, slot * 8ull, i + 1 };
	uint32_t cts = add(g, r, &op, &e->slot_free[slot], 1);

	struct cc_op_send data = {
		.qp = QP_OUT, .payload = CC_PAYLOAD_DATA, .num_sge = 1,
		.sge = { MR_SEND_STAGE, slot_off, len }, .remote_mr = MR_RECV_STAGE,
		.remote_offset = slot_off,
		/* NCCL puts the size in the immediate so the receiver learns it. */
		.imm = len,
	};
	switch (t) {
	case CC_WRITE_IMM:
		data.opcode = CC_WR_RDMA_WRITE_WITH_IMM;
		data.flags = CC_SEND_SIGNALED;
		break;
	case CC_SEND_RECV:
		data.opcode = CC_WR_SEND;
		data.flags = CC_SEND_SIGNALED;
		data.remote_mr = 0;
		data.remote_offset = 0;
		break;
	case CC_WRITE_FLAG:
		/* The flag write that follows completes in order on the RC QP;
		 * only it is signaled. */
		data.opcode = CC_WR_RDMA_WRITE;
		data.flags = 0;
		break;
	default:
		abort();
	}
	data.wr_id = g->s->ranks[r].nops;
	op.kind = CC_OP_POST_SEND;
	op.u.send = data;
	uint32_t deps[] = { ready, cts, e->last_post };
	uint32_t last = add(g, r, &op, deps, 3);
	uint32_t nwqe = 1;

	if (t == CC_WRITE_FLAG) {
		/* The receiver polls the flag in memory, so it must not see it
		 * before the data: both WRITEs go on the same RC QP, which
		 * executes and places them in order (IBA 9.5, o9-…
		 * "ordering of requests"; NCCL's LL protocols avoid relying on
		 * it by flagging every line). */
		op.u.send = (struct cc_op_send){
			.qp = QP_OUT, .wr_id = g->s->ranks[r].nops, .opcode = CC_WR_RDMA_WRITE,
			.flags = CC_SEND_INLINE | CC_SEND_SIGNALED, .payload = CC_PAYLOAD_CTRL,
			.num_sge = 1, .sge = { .length = 8 }, .remote_mr = MR_FLAG,
			.remote_offset = slot * 8ull, .inline_value = i + 1,
		};
		last = add(g, r, &op, &last, 1);
		nwqe = 2;
	}

	op.kind = CC_OP_DOORBELL;
	op.u.doorbell = (struct cc_op_doorbell){ .qp = QP_OUT, .nwqe = nwqe };
	uint32_t db = add(g, r, &op, &last, 1);
	/* One thread posts: the next ibv_post_send on this QP starts after
	 * this one (WQEs and doorbell) has returned. */
	e->last_post = db;

	op.kind = CC_OP_POLL_CQ;
	op.u.poll = (struct cc_op_poll){ .cq = 0, .wr_id = last };
	e->slot_free[slot] = add(g, r, &op, &db, 1);
}

static struct cc_mref mref(uint32_t buf, uint64_t elem, size_t es)
{
	return (struct cc_mref){ buf, elem * es };
}

static void emit_step(struct ring *g, uint32_t r, const struct step *st)
{
	const struct cc_coll_params *p = g->p;
	int recvs = prim_recvs(st->prim), sends = prim_sends(st->prim);

	for (uint64_t done = 0, t = 0; done < st->nelem; done += g->slot_elems, t++) {
		uint64_t n = st->nelem - done < g->slot_elems ? st->nelem - done : g->slot_elems;
		struct cc_tag tag = { st->prim, 0, st->chunk, st->step, (uint32_t)t };
		struct cc_op op = { .tag = tag };
		struct cc_op_calc *c = &op.u.calc;
		uint32_t deps[2] = { NONE, NONE };
		uint64_t j = 0, i = 0;

		c->count = n;
		c->dtype = p->dtype;
		c->redop = p->redop;
		c->postdiv = 1;
		c->where = p->mem == CC_MEM_GPU ? CC_ON_GPU : CC_ON_CPU;
		if (recvs) {
			j = g->in[r].seq++;
			deps[0] = arrival(g, r, j, &tag);
			c->src[c->nsrc++] = (struct cc_mref){
				B_RECV_STAGE, (j % g->nslots) * g->slot_elems * g->es };
		}
		if (sends) {
			i = g->out[r].seq++;
			deps[1] = g->out[r].slot_free[i % g->nslots];
		}
		/* Sources: what arrived (if any), then this rank's own input. */
		int reduce = st->prim == CC_PRIM_RECV_REDUCE_SEND ||
			     st->prim == CC_PRIM_RECV_REDUCE_COPY_SEND ||
			     st->prim == CC_PRIM_RECV_REDUCE_COPY;
		if (!recvs || reduce)
			c->src[c->nsrc++] = mref(B_IN, st->in_off + done, g->es);
		/* Destinations: the output (if this step finalises data), then
		 * the send-stage slot (if it sends). */
		if (st->prim != CC_PRIM_SEND && st->prim != CC_PRIM_RECV_REDUCE_SEND)
			c->dst[c->ndst++] = mref(B_OUT, st->out_off + done, g->es);
		if (sends)
			c->dst[c->ndst++] = (struct cc_mref){
				B_SEND_STAGE, (i % g->nslots) * g->slot_elems * g->es };
		op.kind = reduce ? CC_OP_REDUCE : CC_OP_COPY;
		/* avg = sum, divided once where the final value is made
		 * (NCCL's FuncSumPostDiv). */
		if (p->redop == CC_AVG && (st->prim == CC_PRIM_RECV_REDUCE_COPY_SEND ||
					   st->prim == CC_PRIM_RECV_REDUCE_COPY))
			c->postdiv = g->k;
		uint32_t calc = add(g, r, &op, deps, 2);

		if (recvs) {
			struct end *e = &g->in[r];
			e->slot_free[j % g->nslots] = calc;
			if (j + g->nslots < e->total)
				arm(g, r, j + g->nslots);
		}
		if (sends)
			send_slice(g, r, i, calc, n, &tag);
	}
}

static void emit_rank(struct ring *g, uint32_t r)
{
	struct end *in = &g->in[r];
	for (uint64_t j = 0; j < in->total && j < g->nslots; j++)
		arm(g, r, j);
	walk(g, r, emit_step);
}

static void emit_local_copy(struct ring *g)
{
	/* k = 1: NCCL copies sendbuff to recvbuff (one step); avg divides by 1. */
	if (g->p->count == 0)
		return;
	struct cc_op op = { .kind = CC_OP_COPY,
			    .tag = { .prim = CC_PRIM_COPY, .chunk = 0, .step = 0 } };
	op.u.calc = (struct cc_op_calc){
		.nsrc = 1, .ndst = 1, .src = { { B_IN, 0 } }, .dst = { { B_OUT, 0 } },
		.count = g->p->count, .dtype = g->p->dtype, .redop = g->p->redop, .postdiv = 1,
		.where = g->p->mem == CC_MEM_GPU ? CC_ON_GPU : CC_ON_CPU,
	};
	add(g, 0, &op, NULL, 0);
}

static void report_step(struct ring *g, uint32_t r, const struct step *st)
{
	struct cc_prim_step ps = { st->prim, 0, st->chunk, st->step, st->nelem };
	g->user_fn(g->user_ctx, r, &ps);
}

void cc_ring_primitives(const struct cc_coll_params *p, uint32_t rank, cc_prim_fn fn, void *ctx)
{
	struct ring g = { .p = p, .user_fn = fn, .user_ctx = ctx, .k = p->nranks,
			  .es = cc_dtype_size(p->dtype) };
	if (p->count == 0 || rank >= p->nranks)
		return;
	if (g.k == 1) {
		struct cc_prim_step ps = { CC_PRIM_COPY, 0, 0, 0, p->count };
		fn(ctx, rank, &ps);
		return;
	}
	walk(&g, rank, report_step);
}

static int alloc_ends(struct ring *g, struct end *e)
{
	for (uint32_t r = 0; r < g->k; r++) {
		e[r].last_post = NONE;
		e[r].last_recv = NONE;
		e[r].slot_free = malloc(4 * g->nslots * sizeof(uint32_t));
		if (!e[r].slot_free)
			return -1;
		e[r].recv_wqe = e[r].slot_free + g->nslots;
		e[r].cts_poll = e[r].recv_wqe + g->nslots;
		e[r].cts_sent = e[r].cts_poll + g->nslots;
		for (uint32_t i = 0; i < 4 * g->nslots; i++)
			e[r].slot_free[i] = NONE;
	}
	return 0;
}

struct cc_schedule *cc_build_ring(const struct cc_coll_params *p)
{
	struct ring g = { .p = p, .k = p->nranks, .nslots = p->nslots,
			  .es = cc_dtype_size(p->dtype) };
	g.slot_elems = p->slot_bytes / g.es;
	/* A slot never needs to be larger than the largest chunk this
	 * collective moves: size staging to that (NCCL allocates its full
	 * buffers; this keeps small collectives on many ranks small). */
	uint64_t chunk = p->chunk_bytes / g.es;
	uint64_t most = p->coll == CC_ALLREDUCE ? (p->count + g.k - 1) / g.k : p->count;
	if (most > chunk)
		most = chunk;
	if (most < g.slot_elems)
		g.slot_elems = most ? most : 1;
	g.s = cc_schedule_new(p);
	if (!g.s)
		return NULL;
	for (uint32_t r = 0; r < g.k; r++)
		setup_rank(&g, r);
	if (g.k == 1) {
		emit_local_copy(&g);
		return g.s;
	}
	g.out = calloc(g.k, sizeof(*g.out));
	g.in = calloc(g.k, sizeof(*g.in));
	struct cc_schedule *s = g.s;
	if (!g.out || !g.in || alloc_ends(&g, g.out) || alloc_ends(&g, g.in)) {
		cc_schedule_free(s);
		s = NULL;
		goto out;
	}
	for (uint32_t r = 0; r < g.k; r++)
		walk(&g, r, count_step);
	for (uint32_t r = 0; r < g.k; r++)
		emit_rank(&g, r);
out:
	for (uint32_t r = 0; g.out && g.in && r < g.k; r++) {
		free(g.out[r].slot_free);
		free(g.in[r].slot_free);
	}
	free(g.out);
	free(g.in);
	return s;
}
