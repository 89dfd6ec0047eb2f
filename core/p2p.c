/* SPDX-License-Identifier: BSD-3-Clause */
/* core/p2p.c — perftest's point-to-point loops as schedules (core/p2p.h).
 *
 * Each loop is written out WQE by WQE with the dependencies that perftest's
 * code enforces at run time: the window of run_iter_bw() (post while
 * scnt - ccnt < tx_depth), the receive reposting of run_iter_bw_server(),
 * the ping-pong of run_iter_lat_write() / run_iter_lat_send(), the wait
 * for each completion of run_iter_lat().  Ops use their own index as wr_id,
 * as every builder does (docs/schedule.md), and carry no NCCL primitive.
 */
#include "p2p.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"

const char *const cc_p2p_op_name[CC_P2P_OP_COUNT] = {
	[CC_P2P_WRITE] = "write",
	[CC_P2P_WRITE_IMM] = "write_imm",
	[CC_P2P_SEND] = "send",
	[CC_P2P_READ] = "read",
	[CC_P2P_FETCH_ADD] = "fetch_add",
	[CC_P2P_CMP_SWAP] = "cmp_swap",
};

const char *const cc_p2p_mode_name[CC_P2P_MODE_COUNT] = {
	[CC_P2P_BW] = "bw",
	[CC_P2P_LAT] = "lat",
};

int cc_p2p_op_parse(const char *s, enum cc_p2p_op *out)
{
	for (int i = 0; i < CC_P2P_OP_COUNT; i++)
		if (!strcmp(s, cc_p2p_op_name[i])) {
			*out = (enum cc_p2p_op)i;
			return 0;
		}
	return -EINVAL;
}

int cc_p2p_mode_parse(const char *s, enum cc_p2p_mode *out)
{
	for (int i = 0; i < CC_P2P_MODE_COUNT; i++)
		if (!strcmp(s, cc_p2p_mode_name[i])) {
			*out = (enum cc_p2p_mode)i;
			return 0;
		}
	return -EINVAL;
}

const char *cc_p2p_tool(enum cc_p2p_op op, enum cc_p2p_mode mode)
{
	static const char *const tool[CC_P2P_OP_COUNT][CC_P2P_MODE_COUNT] = {
		[CC_P2P_WRITE] = {"ib_write_bw", "ib_write_lat"},
		[CC_P2P_WRITE_IMM] = {"ib_write_bw --write_with_imm", "ib_write_lat --write_with_imm"},
		[CC_P2P_SEND] = {"ib_send_bw", "ib_send_lat"},
		[CC_P2P_READ] = {"ib_read_bw", "ib_read_lat"},
		[CC_P2P_FETCH_ADD] = {"ib_atomic_bw -A FETCH_AND_ADD", "ib_atomic_lat -A FETCH_AND_ADD"},
		[CC_P2P_CMP_SWAP] = {"ib_atomic_bw -A CMP_AND_SWAP", "ib_atomic_lat -A CMP_AND_SWAP"},
	};

	if ((unsigned)op >= CC_P2P_OP_COUNT || (unsigned)mode >= CC_P2P_MODE_COUNT)
		return "?";
	return tool[op][mode];
}

enum cc_opcode cc_p2p_opcode(enum cc_p2p_op op, enum cc_p2p_mode mode)
{
	switch (op) {
	case CC_P2P_WRITE:
		/* ib_write_lat polls memory; the IR polls a CQ (core/p2p.h). */
		return mode == CC_P2P_LAT ? CC_WR_RDMA_WRITE_WITH_IMM : CC_WR_RDMA_WRITE;
	case CC_P2P_WRITE_IMM: return CC_WR_RDMA_WRITE_WITH_IMM;
	case CC_P2P_SEND: return CC_WR_SEND;
	case CC_P2P_READ: return CC_WR_RDMA_READ;
	case CC_P2P_FETCH_ADD: return CC_WR_ATOMIC_FETCH_ADD;
	default: return CC_WR_ATOMIC_CMP_SWP;
	}
}

int cc_p2p_is_atomic(enum cc_p2p_op op)
{
	return op == CC_P2P_FETCH_ADD || op == CC_P2P_CMP_SWAP;
}

int cc_p2p_is_pingpong(enum cc_p2p_op op, enum cc_p2p_mode mode)
{
	return mode == CC_P2P_LAT && (op == CC_P2P_WRITE || op == CC_P2P_WRITE_IMM ||
				      op == CC_P2P_SEND);
}

void cc_p2p_params_default(struct cc_p2p_params *p, enum cc_p2p_op op, enum cc_p2p_mode mode)
{
	memset(p, 0, sizeof(*p));
	p->op = op;
	p->mode = mode;
	p->size = cc_p2p_is_atomic(op) ? CC_P2P_ATOMIC_BYTES
		  : mode == CC_P2P_BW ? CC_P2P_SIZE_BW : CC_P2P_SIZE_LAT;
	p->iters = mode == CC_P2P_BW ? CC_P2P_ITERS_BW : CC_P2P_ITERS_LAT;
	p->tx_depth = mode == CC_P2P_BW ? CC_P2P_TX_DEPTH_BW : CC_P2P_TX_DEPTH_LAT;
	p->cq_mod = CC_P2P_CQ_MOD;
	p->rx_depth = CC_P2P_RX_DEPTH;
	p->post_list = 1;
	p->mem = CC_MEM_HOST;
	p->nranks = 2;
}

uint32_t cc_p2p_cq_mod(const struct cc_p2p_params *p)
{
	/* run_iter_lat() waits for every READ / atomic: each is signalled. */
	if (p->mode == CC_P2P_LAT && !cc_p2p_is_pingpong(p->op, p->mode))
		return 1;
	/* perftest lowers cq_mod to tx_depth: a window of tx_depth WQEs
	 * without a signalled one could never be retired. */
	return p->cq_mod < p->tx_depth ? p->cq_mod : p->tx_depth;
}

int cc_p2p_signaled(const struct cc_p2p_params *p, uint32_t i)
{
	uint32_t cm = cc_p2p_cq_mod(p);

	return i % cm == cm - 1 || i + 1 == p->iters;
}

int cc_p2p_check_post_list(const struct cc_p2p_params *p, char *err, size_t errlen)
{
	if (p->post_list == 1)
		return 0;
	if (p->post_list == 0)
		return cc_errf(err, errlen, -EINVAL, "post list 0: a list has 1 WQE or more");
	if (p->mode != CC_P2P_BW)
		return cc_errf(err, errlen, -EINVAL, "post list %u: only bw tests have it "
			       "(perftest: \"Post list is supported in BW tests only\")",
			       p->post_list);
	if (p->iters % p->post_list)
		return cc_errf(err, errlen, -EINVAL, "iterations %u: not a multiple of the post "
			       "list, %u (perftest: \"Number of iterations must be a multiple of "
			       "post list size\")", p->iters, p->post_list);
	if (p->post_list > p->tx_depth)
		return cc_errf(err, errlen, -EINVAL, "post list %u: above the tx depth, %u (a "
			       "list is posted whole, so it would never be; perftest would wait "
			       "for ever)", p->post_list, p->tx_depth);
	if (p->post_list % cc_p2p_cq_mod(p))
		return cc_errf(err, errlen, -EINVAL, "post list %u: not a multiple of the cq "
			       "moderation, %u (perftest: \"Post list size must be a multiple of CQ "
			       "moderation\")", p->post_list, cc_p2p_cq_mod(p));
	return 0;
}

void cc_p2p_set_post_list(struct cc_p2p_params *p, uint32_t n)
{
	p->post_list = n;
	if (n > 1)
		p->cq_mod = n;
}

uint32_t cc_p2p_iters_at_most(const struct cc_p2p_params *p, uint32_t max)
{
	uint32_t n = p->post_list ? p->post_list : 1;

	if (p->iters <= max)
		return p->iters;
	return max < n ? n : max / n * n;
}

int cc_p2p_check(const struct cc_p2p_params *p, char *err, size_t errlen)
{
	int rc;

	if ((unsigned)p->op >= CC_P2P_OP_COUNT)
		return cc_errf(err, errlen, -EINVAL, "unknown operation %d", (int)p->op);
	if ((unsigned)p->mode >= CC_P2P_MODE_COUNT)
		return cc_errf(err, errlen, -EINVAL, "unknown mode %d", (int)p->mode);
	if ((unsigned)p->mem >= CC_MEM_KIND_COUNT)
		return cc_errf(err, errlen, -EINVAL, "unknown memory kind %d", (int)p->mem);
	if (p->size == 0)
		return cc_errf(err, errlen, -EINVAL, "size 0: a message has at least 1 byte");
	if (cc_p2p_is_atomic(p->op) && p->size != CC_P2P_ATOMIC_BYTES)
		return cc_errf(err, errlen, -EINVAL,
			       "size %llu: %s is a 64-bit atomic, always %u bytes",
			       (unsigned long long)p->size, cc_p2p_op_name[p->op], CC_P2P_ATOMIC_BYTES);
	if (p->size > CC_P2P_MAX_BYTES)
		return cc_errf(err, errlen, -EINVAL,
			       "size %llu B is above 2 GiB, the largest RDMA message "
			       "(IBA; ibv_sge.length is 32 bits)", (unsigned long long)p->size);
	if (p->iters == 0 || p->iters > CC_P2P_MAX_ITERS)
		return cc_errf(err, errlen, -EINVAL, "iterations %u out of range 1..%u", p->iters,
			       CC_P2P_MAX_ITERS);
	if (p->mode == CC_P2P_LAT && p->iters < 2)
		return cc_errf(err, errlen, -EINVAL,
			       "iterations %u: lat needs at least 2, a latency is the time "
			       "between two consecutive posts (perftest's tposted deltas)", p->iters);
	if (p->tx_depth == 0 || p->tx_depth > CC_P2P_MAX_DEPTH)
		return cc_errf(err, errlen, -EINVAL, "tx depth %u out of range 1..%u", p->tx_depth,
			       CC_P2P_MAX_DEPTH);
	if (p->rx_depth == 0 || p->rx_depth > CC_P2P_MAX_DEPTH)
		return cc_errf(err, errlen, -EINVAL, "rx depth %u out of range 1..%u", p->rx_depth,
			       CC_P2P_MAX_DEPTH);
	if (p->cq_mod == 0 || p->cq_mod > CC_P2P_MAX_DEPTH)
		return cc_errf(err, errlen, -EINVAL,
			       "cq moderation %u out of range 1..%u", p->cq_mod,
			       CC_P2P_MAX_DEPTH);
	if ((rc = cc_p2p_check_post_list(p, err, errlen)))
		return rc;
	if (p->bidir && p->mode != CC_P2P_BW)
		return cc_errf(err, errlen, -EINVAL, "bidirectional: only bw tests have it "
			       "(perftest: \"Bidirectional is only available in BW test\")");
	if (p->nranks == 1 || p->nranks > CC_P2P_MAX_RANKS)
		return cc_errf(err, errlen, -EINVAL,
			       "%u ranks: a p2p test needs 2 to %u (ranks 0 and 1 run it)",
			       p->nranks, CC_P2P_MAX_RANKS);
	return 0;
}

/* ---- the builder ---- */

enum { BUF_IN, BUF_OUT }; /* and MR i covers buffer i */
enum { CQ_SEND, CQ_RECV };
#define NONE UINT32_MAX

struct gen {
	const struct cc_p2p_params *p;
	struct cc_schedule *s;
	uint32_t cm;    /* cc_p2p_cq_mod() */
	uint32_t rx;    /* receives kept posted: min(rx_depth, iters) */
	uint32_t *poll; /* per iteration of the rank being built: its completion's poll */
	uint32_t *recv; /* per message it receives: that message's post_recv */
};

/* The last op of each kind a rank's program added, for its chains. */
struct chain {
	uint32_t db;    /* doorbell: the previous ibv_post_send call */
	uint32_t recv;  /* post_recv: the receive queue is consumed in order */
	uint32_t rpoll; /* poll of a receive completion: reaped in order */
	uint32_t spoll; /* poll of a send completion */
};

static uint32_t add(struct cc_rank_sched *rs, const struct cc_op *op, uint32_t d0, uint32_t d1,
		    uint32_t d2)
{
	const uint32_t deps[3] = {d0, d1, d2}; /* NONE entries are dropped */

	return cc_add_op(rs, op, deps, 3);
}

/* Whether rank r is a target of the peer's work: rank 1, or both ranks
 * of a ping-pong or a bidirectional run. */
static bool target(const struct cc_p2p_params *p, uint32_t r)
{
	return r == 1 || p->bidir || cc_p2p_is_pingpong(p->op, p->mode);
}

/* Whether rank r's output is written by the peer's RDMA WRITEs. */
static bool written(const struct cc_p2p_params *p, uint32_t r)
{
	enum cc_opcode oc = cc_p2p_opcode(p->op, p->mode);

	return (oc == CC_WR_RDMA_WRITE || oc == CC_WR_RDMA_WRITE_WITH_IMM) && target(p, r);
}

/* Whether rank r consumes receive WQEs (SEND, WRITE_WITH_IMM). */
static bool receives(const struct cc_p2p_params *p, uint32_t r)
{
	enum cc_opcode oc = cc_p2p_opcode(p->op, p->mode);

	return (oc == CC_WR_SEND || oc == CC_WR_RDMA_WRITE_WITH_IMM) && target(p, r);
}

static void setup_rank(struct gen *g, uint32_t r)
{
	const struct cc_p2p_params *p = g->p;
	struct cc_rank_sched *rs = &g->s->ranks[r];
	uint32_t in = CC_ACCESS_LOCAL_WRITE, out = CC_ACCESS_LOCAL_WRITE, max_inline = 0;

	cc_add_buffer(rs, &(struct cc_buffer){ p->mem, CC_BUF_INPUT, p->size, -1, 0 });
	cc_add_buffer(rs, &(struct cc_buffer){ p->mem, CC_BUF_OUTPUT, p->size, -1, 0 });
	/* LOCAL_WRITE everywhere, as perftest and NCCL register (ibv_reg_mr(3):
	 * REMOTE_WRITE and REMOTE_ATOMIC require it), plus only the remote
	 * right the peer uses. */
	if (target(p, r) && p->op == CC_P2P_READ)
		in |= CC_ACCESS_REMOTE_READ;
	if (written(p, r))
		out |= CC_ACCESS_REMOTE_WRITE;
	if (target(p, r) && cc_p2p_is_atomic(p->op))
		out |= CC_ACCESS_REMOTE_ATOMIC;
	cc_add_mr(rs, BUF_IN, in);
	cc_add_mr(rs, BUF_OUT, out);
	cc_add_cq(rs, p->tx_depth); /* perftest: send_cq of tx_depth entries */
	cc_add_cq(rs, g->rx);       /* recv_cq of rx_depth */
	if (p->mode == CC_P2P_LAT && p->op == CC_P2P_SEND)
		max_inline = CC_P2P_INLINE_SEND;
	else if (p->mode == CC_P2P_LAT && (p->op == CC_P2P_WRITE || p->op == CC_P2P_WRITE_IMM))
		max_inline = CC_P2P_INLINE_WRITE;
	/* retry_cnt and rnr_retry 7: perftest's ctx_modify_qp_to_rts(). */
	cc_add_qp(rs, &(struct cc_qp){ .peer = 1 - r, .peer_qp = 0, .send_cq = CQ_SEND,
				       .recv_cq = CQ_RECV, .max_send_wr = p->tx_depth,
				       .max_recv_wr = g->rx, .max_inline = max_inline,
				       .retry_cnt = 7, .rnr_retry = 7 });
}

/* Iteration i's WQE from rank r. */
static struct cc_op send_wqe(const struct gen *g, uint32_t r, uint32_t i)
{
	const struct cc_p2p_params *p = g->p;
	const struct cc_rank_sched *rs = &g->s->ranks[r];
	struct cc_op op = { .kind = CC_OP_POST_SEND };
	struct cc_op_send *o = &op.u.send;

	o->qp = 0;
	o->wr_id = rs->nops; /* the post's own index */
	o->opcode = cc_p2p_opcode(p->op, p->mode);
	o->flags = cc_p2p_signaled(p, i) ? CC_SEND_SIGNALED : 0;
	o->payload = CC_PAYLOAD_DATA;
	o->num_sge = 1;
	o->sge = (struct cc_sge){ BUF_IN, 0, (uint32_t)p->size };
	o->remote_mr = BUF_OUT;
	switch (o->opcode) {
	case CC_WR_RDMA_READ: /* into our output, from the peer's input */
		o->sge.mr = BUF_OUT;
		o->remote_mr = BUF_IN;
		break;
	case CC_WR_ATOMIC_FETCH_ADD: /* the old value into our output */
		o->sge.mr = BUF_OUT;
		o->compare_add = 1;
		break;
	case CC_WR_ATOMIC_CMP_SWP: /* succeeds every time: the word counts */
		o->sge.mr = BUF_OUT;
		o->compare_add = i;
		o->swap = (uint64_t)i + 1;
		break;
	case CC_WR_RDMA_WRITE_WITH_IMM:
		o->imm = (uint32_t)p->size; /* the length, as NCCL sends it */
		break;
	default:
		break;
	}
	/* The IR's inline payload is one 8-byte word (core/p2p.h). */
	if (rs->nqps && p->size <= rs->qps[0].max_inline && p->size <= sizeof(o->inline_value)) {
		o->flags |= CC_SEND_INLINE;
		o->inline_value = (uint64_t)i + 1;
	}
	return op;
}

/* A receive WQE for message j, after d0 and d1. */
static uint32_t post_recv(struct gen *g, uint32_t r, struct chain *c, uint32_t j, uint32_t d0,
			  uint32_t d1)
{
	struct cc_rank_sched *rs = &g->s->ranks[r];
	struct cc_op op = { .kind = CC_OP_POST_RECV };

	op.u.recv.qp = 0;
	op.u.recv.wr_id = rs->nops;
	/* SEND lands in the scatter list; WRITE_WITH_IMM at its remote
	 * address, so its receive needs none (NCCL's ncclIbIrecv). */
	if (g->p->op == CC_P2P_SEND) {
		op.u.recv.num_sge = 1;
		op.u.recv.sge = (struct cc_sge){ BUF_OUT, 0, (uint32_t)g->p->size };
	}
	c->recv = add(rs, &op, c->recv, d0, d1);
	g->recv[j] = c->recv;
	return c->recv;
}

/* The first min(rx_depth, iters) receives, before anything else. */
static void prepost(struct gen *g, uint32_t r, struct chain *c)
{
	for (uint32_t j = 0; j < g->rx; j++)
		post_recv(g, r, c, j, NONE, NONE);
}

static uint32_t poll_recv(struct gen *g, uint32_t r, struct chain *c, uint32_t j)
{
	struct cc_op op = { .kind = CC_OP_POLL_CQ, .u.poll = { CQ_RECV, g->recv[j] } };

	c->rpoll = add(&g->s->ranks[r], &op, g->recv[j], c->rpoll, NONE);
	return c->rpoll;
}

/* run_iter_bw()'s window: WQE i is posted while i - ccnt < tx_depth, ccnt
 * being cq_mod times the completions polled so far.  So it waits for the
 * poll of the first signalled WQE at or after i - tx_depth (cq_mod <=
 * tx_depth puts that one before i). */
static uint32_t window(const struct gen *g, uint32_t i)
{
	if (i < g->p->tx_depth)
		return NONE;
	return g->poll[((i - g->p->tx_depth) / g->cm + 1) * g->cm - 1];
}

/* post_send of iterations i .. i + post_list - 1 after dep, one
 * ibv_post_send of a list: a doorbell for them all, and the poll of each
 * signalled one's completion.  The list is posted once all of it fits in
 * the window.  Returns the doorbell. */
static uint32_t post(struct gen *g, uint32_t r, struct chain *c, uint32_t i, uint32_t dep)
{
	struct cc_rank_sched *rs = &g->s->ranks[r];
	uint32_t n = g->p->post_list, first = rs->nops, prev = c->db;
	struct cc_op db = { .kind = CC_OP_DOORBELL, .u.doorbell = { 0, n } };

	/* the list's posts are ops first .. first + n - 1 */
	for (uint32_t j = 0; j < n; j++) {
		struct cc_op wqe = send_wqe(g, r, i + j);

		prev = add(rs, &wqe, prev, j ? NONE : dep, j ? NONE : window(g, i + n - 1));
	}
	c->db = add(rs, &db, prev, NONE, NONE);
	for (uint32_t j = 0; j < n; j++) {
		g->poll[i + j] = NONE;
		if (cc_p2p_signaled(g->p, i + j)) {
			struct cc_op poll = { .kind = CC_OP_POLL_CQ,
					      .u.poll = { CQ_SEND, first + j } };

			c->spoll = add(rs, &poll, c->db, c->spoll, NONE);
			g->poll[i + j] = c->spoll;
		}
	}
	return c->db;
}

/* Rank r (0; both when bidirectional) of bw, and rank 0 of lat READ /
 * atomics, which waits for each. */
static void requester(struct gen *g, uint32_t r)
{
	struct chain c = { NONE, NONE, NONE, NONE };
	bool each = g->p->mode == CC_P2P_LAT;

	for (uint32_t i = 0; i < g->p->iters; i += g->p->post_list)
		post(g, r, &c, i, each && i ? g->poll[i - 1] : NONE);
}

/* Rank r (1; both when bidirectional) of bw SEND / WRITE_WITH_IMM:
 * run_iter_bw_server() reposts a receive for each one it reaps, until
 * `iters` were posted. */
static void receiver(struct gen *g, uint32_t r)
{
	struct chain c = { NONE, NONE, NONE, NONE };

	prepost(g, r, &c);
	for (uint32_t j = 0; j < g->p->iters; j++) {
		uint32_t rp = poll_recv(g, r, &c, j);

		if (j + g->rx < g->p->iters)
			post_recv(g, r, &c, j + g->rx, rp, NONE);
	}
}

/* Either side of a lat ping-pong.  Rank 1 answers message i; rank 0 sends
 * message i once it has answer i - 1 (the first once its receives are
 * posted: rank 1 posts as many at the same cost, so both start together,
 * as after perftest's handshake).  SEND reposts the receive before it
 * answers, as run_iter_lat_send(); WRITE_WITH_IMM only stands in for a
 * memory poll, so its repost follows the answer, off the critical path. */
static void pingpong(struct gen *g, uint32_t r)
{
	struct chain c = { NONE, NONE, NONE, NONE };
	bool send = g->p->op == CC_P2P_SEND;

	prepost(g, r, &c);
	for (uint32_t i = 0; i < g->p->iters; i++) {
		uint32_t dep = c.recv, rp = NONE, j = UINT32_MAX;

		if (r == 1 || i > 0) {
			uint32_t k = r == 1 ? i : i - 1; /* the message this one answers */

			dep = rp = poll_recv(g, r, &c, k);
			if ((uint64_t)k + g->rx < g->p->iters)
				j = k + g->rx;
			if (send && j != UINT32_MAX) {
				dep = post_recv(g, r, &c, j, rp, NONE);
				j = UINT32_MAX;
			}
		}
		uint32_t db = post(g, r, &c, i, dep);

		if (j != UINT32_MAX)
			post_recv(g, r, &c, j, rp, db);
	}
	if (r == 0)
		poll_recv(g, r, &c, g->p->iters - 1); /* the last answer */
}

struct cc_schedule *cc_build_p2p(const struct cc_p2p_params *p, char *err, size_t errlen)
{
	struct cc_coll_params cp;
	struct gen g = { .p = p };
	bool pp;

	errno = EINVAL;
	if (cc_p2p_check(p, err, errlen))
		return NULL;
	/* No collective: count 0, so the reference check has nothing to
	 * fill or count (core/check_io.h). */
	cc_coll_params_default(&cp);
	/* Ranks past 1 stay empty: no buffers, no QPs, no ops. */
	cp.nranks = p->nranks > 2 ? p->nranks : 2;
	cp.count = 0;
	cp.mem = p->mem;
	g.cm = cc_p2p_cq_mod(p);
	g.rx = p->rx_depth < p->iters ? p->rx_depth : p->iters;
	g.s = cc_schedule_new(&cp);
	g.poll = malloc((size_t)p->iters * sizeof(*g.poll));
	g.recv = malloc((size_t)p->iters * sizeof(*g.recv));
	if (!g.s || !g.poll || !g.recv) {
		cc_schedule_free(g.s);
		free(g.poll);
		free(g.recv);
		errno = ENOMEM;
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	setup_rank(&g, 0);
	setup_rank(&g, 1);
	pp = cc_p2p_is_pingpong(p->op, p->mode);
	for (uint32_t r = 0; r < 2; r++) {
		if (pp) {
			pingpong(&g, r);
			continue;
		}
		/* a bidirectional rank's receives first: they are posted
		 * before anything is sent, as run_iter_bi() finds them */
		if (receives(p, r))
			receiver(&g, r);
		if (r == 0 || p->bidir)
			requester(&g, r);
	}
	free(g.poll);
	free(g.recv);
	if (cc_schedule_oom(g.s)) {
		cc_schedule_free(g.s);
		errno = ENOMEM;
		snprintf(err, errlen, "out of memory building the schedule");
		return NULL;
	}
	if (cc_schedule_validate(g.s, err, errlen)) {
		/* A builder that emits a broken schedule is a bug, not bad input. */
		fprintf(stderr, "cclab: internal error: p2p schedule: %s\n", err);
		abort();
	}
	return g.s;
}

/* The same test with the server as rank 0: perftest's server is the side
 * that waits for the client's connection, and cclab's bootstrap listens on
 * rank 0 (backend/bootstrap.h), so a perftest-style server and client
 * (`ib_write_bw -d DEV` and `ib_write_bw -d DEV HOST`) run the schedule
 * relabelled rather than a second bootstrap with another listener.  A p2p
 * rank refers to its peer only through its QP's peer (buffers carry no
 * peer: -1) and remote MRs by index, so swapping the two ranks' work and
 * pointing each QP at the other is the whole relabelling. */
void cc_p2p_swap_ranks(struct cc_schedule *s)
{
	struct cc_rank_sched t = s->ranks[0];

	s->ranks[0] = s->ranks[1];
	s->ranks[1] = t;
	for (uint32_t r = 0; r < 2; r++) {
		struct cc_rank_sched *rs = &s->ranks[r];

		for (uint32_t q = 0; q < rs->nqps; q++)
			rs->qps[q].peer = 1 - r;
		for (uint32_t b = 0; b < rs->nbufs; b++)
			if (rs->bufs[b].peer >= 0)
				rs->bufs[b].peer = 1 - (int32_t)r;
	}
}
