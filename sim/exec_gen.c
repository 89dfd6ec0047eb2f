/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/exec_gen.c — running a schedule generated as it runs (core/gen.h).
 *
 * A built schedule's ops all exist from the start: each becomes ready the
 * moment its last dependency completes (sim/exec.c op_done), the ones with
 * none at time 0.  Here each stream of a rank (its first invitations, then
 * each channel) is made a step at a time, kept `window` ops ahead of its
 * oldest op not done, and an op is made before it could start: then it
 * becomes ready at the same moment, in the same order (a dependency's
 * users are kept in index order), and the run is the built schedule's,
 * event for event.
 *
 * Whether an op was made in time is checked as it is made: one whose
 * dependencies have all completed, or one without any that would not
 * simply wait (a wait_mem whose word is already there, a poll whose CQE
 * is), was made late — the built schedule would have started it already.
 * The run then stops and starts again with a window four times larger
 * (cc_sim_run), up to the whole stream, which is the built schedule's
 * behaviour by construction.  A run that does not end cleanly (stuck, out
 * of simulated time, an error) is made again with every stream whole
 * (sim/exec.c setup_and_run): an early end could hide a late op, and a
 * stuck run's report names the op a built run's would.  So a generated
 * run is exact whatever the window; the window only decides the memory.
 *
 * Memory: the ops are in blocks a pool recycles (core/gen.h), and so is
 * their state here (struct sx_opst, a block beside each op block); the
 * dependencies and their users' edges are reserved address space
 * (cc_span_new()); the ops that are done and that no queue still names
 * (a posted WQE until its completion is reaped, a receive WQE until it
 * is) are given back as a stream moves on, until the rank sends a
 * request again (give_back()); so are the queues' WQEs behind the oldest
 * in use, but a multicast QP's sends.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/gen.h"
#include "sim/exec_int.h"

/* Ops given back at a time: a few pages of them. */
#define GIVE_BACK_OPS 256u

/* The state of ops in a block none of whose ops is registered yet, or
 * whose ops are all given back: zeros, as their ops read (core/gen.c);
 * read-only, so a write there faults at once. */
static const struct sx_opst opst_none[CC_OPBLK];
#define OPST_NONE ((struct sx_opst *)opst_none)

/* A block of zero state for op block b of rank r, from those given back
 * where there are (any rank's: a run's state stays in memory it has
 * touched, as its ops do). */
static void opst_take(struct sx *x, struct sx_rank *rk, uint32_t b)
{
	struct sx_opst_free *f = x->opst_free;
	struct sx_opst *blk;

	if (f) {
		x->opst_free = f->next;
		blk = memset(f, 0, CC_OPBLK * sizeof(struct sx_opst));
	} else if (!(blk = calloc(CC_OPBLK, sizeof(struct sx_opst)))) {
		sx_die_nomem();
	}
	rk->opst[b] = blk;
}

static void opst_put(struct sx *x, struct sx_rank *rk, uint32_t b)
{
	struct sx_opst_free *f = (struct sx_opst_free *)rk->opst[b];

	f->next = x->opst_free;
	x->opst_free = f;
	rk->opst[b] = OPST_NONE;
}

void sx_gen_opst_pool_free(struct sx *x)
{
	for (struct sx_opst_free *f = x->opst_free, *next; f; f = next) {
		next = f->next;
		free(f);
	}
	x->opst_free = NULL;
}

int sx_gen_rank_init(struct sx *x, uint32_t r)
{
	const struct cc_rank_sched *rs = &x->s->ranks[r];
	struct sx_rank *rk = &x->rk[r];
	uint32_t ns = cc_gen_streams(x->s->gen);

	/* the table first, all of it none: sx_gen_rank_free() reads it
	 * whatever fails after */
	if (!(rk->opst = malloc(cc_opblk_count(rs->nops) * sizeof(*rk->opst))))
		return -ENOMEM;
	for (uint32_t b = 0; b < cc_opblk_count(rs->nops); b++)
		rk->opst[b] = OPST_NONE;
	rk->uedge = cc_span_new(rs->ndeps ? rs->ndeps : 1, sizeof(*rk->uedge));
	rk->front = calloc(ns, sizeof(uint32_t));
	rk->given = calloc(ns, sizeof(uint32_t));
	if (!rk->uedge || !rk->front || !rk->given)
		return -ENOMEM;
	for (uint32_t j = 0; j < ns; j++)
		rk->front[j] = rk->given[j] = cc_gen_stream(x->s->gen, r, j)->first;
	return 0;
}

int sx_gen_queues_init(struct sx *x, uint32_t r)
{
	const struct cc_rank_sched *rs = &x->s->ranks[r];
	struct sx_rank *rk = &x->rk[r];

	/* A QP's send and receive queues keep every WQE posted: reserved for
	 * the most it can have (every op of the rank), never grown, given
	 * back behind the oldest WQE still in use. */
	for (uint32_t q = 0; q < rs->nqps; q++) {
		struct sx_qp *qp = &rk->qp[q];

		qp->sq = cc_span_new(rs->nops, sizeof(*qp->sq));
		qp->rq = cc_span_new(rs->nops, sizeof(*qp->rq));
		if (!qp->sq || !qp->rq)
			return -ENOMEM;
		qp->sq_cap = qp->rq_cap = rs->nops;
	}
	return 0;
}

void sx_gen_queues_free(struct sx *x, uint32_t r)
{
	const struct cc_rank_sched *rs = &x->s->ranks[r];
	struct sx_rank *rk = &x->rk[r];

	for (uint32_t q = 0; q < rs->nqps; q++) {
		cc_span_free(rk->qp[q].sq, rs->nops, sizeof(*rk->qp[q].sq));
		cc_span_free(rk->qp[q].rq, rs->nops, sizeof(*rk->qp[q].rq));
		rk->qp[q].sq = NULL;
		rk->qp[q].rq = NULL;
	}
}

/* What a span of n elements of `size` bytes holds when `live` of them are
 * in use at once (cc_span_new(), cc_span_drop()): under a page, the heap's
 * n x size; else the pages the live ones cover, with `batch` more where
 * they are given back that many at a time, and a page either side. */
static double span_held(double n, size_t size, double live, double batch)
{
	double page = (double)sysconf(_SC_PAGESIZE);

	if (n * (double)size < page)
		return n * (double)size;
	live = (live < n ? live : n) + batch;
	if (live > n)
		live = n;
	return ceil(live * (double)size / page) * page + page;
}

/* The op blocks a generated rank holds (core/gen.c), and as many of its
 * ops' state here: those its `live` ops and, in each of its streams, a
 * batch given back at a time cover, with a block either side of each
 * stream. */
static double blocks_held(double n, double nblk, double live, double streams)
{
	double held;

	live = (live < n ? live : n) + streams * GIVE_BACK_OPS;
	held = ceil(live / CC_OPBLK) + 2 * streams;
	return held < nblk ? held : nblk;
}

double sx_gen_rank_bytes(const struct cc_schedule *s, uint32_t r, double live,
			 const double *qp_sends, const double *qp_recvs)
{
	const struct cc_rank_sched *rs = &s->ranks[r];
	double n = rs->nops, nd = rs->ndeps, in_use = live < n ? live : n;
	double share = n ? in_use / n : 0, bytes;
	double nblk = cc_opblk_count(rs->nops);
	double held = blocks_held(n, nblk, in_use, s->gen ? cc_gen_streams(s->gen) : 1);

	/* cc_gen_build(): the ops and dependencies, given back a batch of
	 * ops at a time (give_back()), the ops' table of blocks with a count
	 * of each one's ops dropped; sx_gen_rank_init(): the ops' state, in
	 * as many blocks, and its table */
	bytes = held * CC_OPBLK * (sizeof(struct cc_op) + sizeof(struct sx_opst)) +
		nblk * (sizeof(struct cc_op *) + 1 + sizeof(struct sx_opst *)) +
		span_held(nd + CC_GEN_DEP_SLACK, sizeof(uint32_t), nd * share, GIVE_BACK_OPS * nd / (n ? n : 1));
	/* the users' lists' edges; sx_park_init()'s pos and poll_next spans
	 * and list */
	bytes += 3 * span_held(n, sizeof(uint32_t), in_use, GIVE_BACK_OPS) +
		 span_held(nd ? nd : 1, sizeof(struct sx_uedge), nd * share,
			   GIVE_BACK_OPS * nd / (n ? n : 1));
	/* sx_gen_queues_init(): each QP's queues, its own posts in use (given
	 * back behind the oldest); a completion each, in a CQ that doubles */
	for (uint32_t q = 0; q < rs->nqps; q++)
		bytes += span_held(n, sizeof(struct sx_wqe), qp_sends[q] * share, 0) +
			 span_held(n, sizeof(uint32_t), qp_recvs[q] * share, 0) +
			 2.0 * sizeof(struct sx_cqe) * (qp_sends[q] + qp_recvs[q]) * share;
	return bytes;
}

void sx_gen_rank_free(struct sx *x, uint32_t r)
{
	const struct cc_rank_sched *rs = &x->s->ranks[r];
	struct sx_rank *rk = &x->rk[r];
	uint32_t nd = rs->ndeps ? rs->ndeps : 1;

	for (uint32_t b = 0; rk->opst && b < cc_opblk_count(rs->nops); b++)
		if (rk->opst[b] != OPST_NONE)
			opst_put(x, rk, b);
	free(rk->opst);
	cc_span_free(rk->uedge, nd, sizeof(*rk->uedge));
	free(rk->front);
	free(rk->given);
	rk->opst = NULL;
	rk->uedge = NULL;
	rk->front = rk->given = NULL;
}

/* Whether rank r's op d is done: given back ones are. */
static bool dep_done(const struct sx *x, uint32_t r, uint32_t d)
{
	const struct sx_rank *rk = &x->rk[r];

	return d < rk->given[cc_gen_stream_of(x->s->gen, r, d)] || sx_opst(rk, d)->done;
}

/* Op i joins the user list of its dependency d (edge e, its position in
 * the dependencies), which stays in index order: the order a built
 * schedule's users are readied in. */
static void add_user(struct sx_rank *rk, uint32_t d, uint32_t e, uint32_t i)
{
	struct sx_ulist *l = &sx_opst(rk, d)->users;
	uint32_t *link = &l->head;

	rk->uedge[e].op = i;
	if (!l->head || rk->uedge[l->tail - 1].op < i) {
		/* the common case: appended */
		if (l->head)
			rk->uedge[l->tail - 1].next = e + 1;
		else
			l->head = e + 1;
		rk->uedge[e].next = 0;
		l->tail = e + 1;
		return;
	}
	while (*link && rk->uedge[*link - 1].op < i)
		link = &rk->uedge[*link - 1].next;
	rk->uedge[e].next = *link;
	*link = e + 1;
}

/* Op i, just made: its dependencies not done yet and its place in their
 * user lists.  Whether it was made in time (see the top of this file):
 * `late` says how to judge an op with none. */
static bool register_op(struct sx *x, uint32_t r, uint32_t i,
			bool (*late)(struct sx *x, uint32_t r, uint32_t i))
{
	const struct cc_rank_sched *rs = &x->s->ranks[r];
	struct sx_rank *rk = &x->rk[r];
	const struct cc_op *o = cc_rank_op(rs, i);
	const uint32_t *d = cc_op_deps(rs, o);
	uint32_t left = 0;

	if (rk->opst[i >> CC_OPBLK_SHIFT] == OPST_NONE)
		opst_take(x, rk, i >> CC_OPBLK_SHIFT);
	for (uint32_t j = 0; j < o->ndeps; j++)
		if (!dep_done(x, r, d[j])) {
			add_user(rk, d[j], o->dep_first + j, i);
			left++;
		}
	sx_opst(rk, i)->deps_left = left;
	if (left)
		return true;
	return o->ndeps == 0 && (!late || !late(x, r, i));
}

/* The next step of rank r's stream j made: 1, or 0 when it has none. */
static int next_step(struct cc_gen *g, uint32_t r, uint32_t j)
{
	int rc = cc_gen_next(g, r, j);

	if (rc < 0)
		sx_die_nomem();
	return rc;
}

void sx_gen_start(struct sx *x, uint32_t r)
{
	struct cc_gen *g = x->s->gen;

	for (uint32_t j = 0; j < cc_gen_streams(g); j++) {
		const struct cc_gen_stream *st = cc_gen_stream(g, r, j);

		while (j && st->made - st->first < x->gen_window && next_step(g, r, j))
			;
		for (uint32_t i = st->first; i < st->made; i++)
			register_op(x, r, i, NULL);
	}
}

/* Stream j of rank r kept `window` ops ahead of its front: the ops made
 * are readied where they have no dependency left (waits that park); one
 * made too late stops the run for a larger window. */
static void top_up(struct sx *x, uint32_t r, uint32_t j)
{
	struct cc_gen *g = x->s->gen;
	const struct cc_gen_stream *st = cc_gen_stream(g, r, j);
	struct sx_rank *rk = &x->rk[r];

	while (!x->gen_late && st->made - rk->front[j] < x->gen_window) {
		uint32_t from = st->made;

		if (!next_step(g, r, j))
			return;
		for (uint32_t i = from; i < st->made && !x->gen_late; i++) {
			if (!register_op(x, r, i, sx_gen_would_start)) {
				x->gen_late = true;
				sim_stop(&x->eng);
				return;
			}
			if (!sx_opst(rk, i)->deps_left)
				sx_op_ready(x, r, i);
		}
	}
}

/* The lowest op of rank r a queue still names: the oldest WQE whose
 * completion is not reaped, of every QP. */
static uint32_t named_by_queues(const struct sx *x, uint32_t r)
{
	const struct cc_rank_sched *rs = &x->s->ranks[r];
	const struct sx_rank *rk = &x->rk[r];
	uint32_t low = UINT32_MAX;

	for (uint32_t q = 0; q < rs->nqps; q++) {
		const struct sx_qp *qp = &rk->qp[q];

		if (qp->retired < qp->sq_n && qp->sq[qp->retired].op < low)
			low = qp->sq[qp->retired].op;
		if (qp->rq_retired < qp->rq_n && qp->rq[qp->rq_retired] < low)
			low = qp->rq[qp->rq_retired];
	}
	return low;
}

/* Gives back stream j's ops below its front that no queue names. */
static void give_back(struct sx *x, uint32_t r, uint32_t j)
{
	const struct cc_rank_sched *rs = &x->s->ranks[r];
	struct sx_rank *rk = &x->rk[r];
	uint32_t upto = rk->front[j], low;

	if (j == 0 || upto - rk->given[j] < GIVE_BACK_OPS)
		return; /* stream 0 stays: a run that starts again reads it */
	/* A rank that has sent a request again (a timeout, a NAK, an RNR
	 * wait) may have copies of it still in flight, and a responder reads
	 * the requester's WQE and op for each (sim/rnic_resp.c): from then on
	 * its ops and WQEs stay.  What was given back before was behind the
	 * oldest WQE in flight then, which no copy names. */
	if (rk->st->retx_pkts || rk->st->timeouts)
		return;
	if ((low = named_by_queues(x, r)) < upto)
		upto = low;
	if (upto <= rk->given[j])
		return;
	const struct cc_gen_stream *st = cc_gen_stream(x->s->gen, r, j);
	uint32_t from = rk->given[j], f = st->first, df = st->dep_first;
	uint32_t d0 = cc_rank_op(rs, from)->dep_first;
	uint32_t d1 = upto < st->made ? cc_rank_op(rs, upto)->dep_first : st->dep_made;

	cc_span_drop(rk->uedge, sizeof(*rk->uedge), df, d0, d1);
	sx_park_drop(&rk->park, f, from, upto);
	cc_gen_drop(x->s->gen, r, j, upto);
	/* the ops' state goes back with their blocks */
	for (uint32_t b = from >> CC_OPBLK_SHIFT; b <= (upto - 1) >> CC_OPBLK_SHIFT; b++)
		if (rk->opst[b] != OPST_NONE && !cc_gen_block_held(rs, b))
			opst_put(x, rk, b);
	rk->given[j] = upto;
	/* and the WQEs behind every queue's oldest in use.  Not a multicast
	 * QP's send queue: a SHARP switch acknowledges a member's SEND when it
	 * has taken it, and its result, sent once the last member's share is
	 * in, names that SEND's WQE (sim/sharp.c), which the member may have
	 * reaped long before; a SEND per chunk and channel, they are few. */
	for (uint32_t q = 0; q < rs->nqps; q++) {
		struct sx_qp *qp = &rk->qp[q];
		uint32_t sq = qp->retired < qp->una ? qp->retired : qp->una;
		uint32_t rq = qp->rq_retired < qp->rq_head ? qp->rq_retired : qp->rq_head;

		if (qp->mcast)
			sq = qp->sq_given;
		cc_span_drop(qp->sq, sizeof(*qp->sq), 0, qp->sq_given, sq);
		cc_span_drop(qp->rq, sizeof(*qp->rq), 0, qp->rq_given, rq);
		qp->sq_given = sq > qp->sq_given ? sq : qp->sq_given;
		qp->rq_given = rq > qp->rq_given ? rq : qp->rq_given;
	}
}

void sx_gen_done(struct sx *x, uint32_t r, uint32_t i)
{
	struct cc_gen *g = x->s->gen;
	struct sx_rank *rk = &x->rk[r];
	uint32_t j = cc_gen_stream_of(g, r, i);
	const struct cc_gen_stream *st = cc_gen_stream(g, r, j);

	if (i != rk->front[j])
		return;
	while (rk->front[j] < st->made && sx_opst(rk, rk->front[j])->done)
		rk->front[j]++;
	if (j) {
		top_up(x, r, j);
		give_back(x, r, j);
	}
}

uint32_t sx_gen_waiting(const struct sx *x, uint32_t r)
{
	struct cc_gen *g = x->s->gen;
	const struct sx_rank *rk = &x->rk[r];

	/* What a built schedule's scan from op 0 finds, where every op is
	 * made: ops given back are done, with none left */
	for (uint32_t j = 0; j < cc_gen_streams(g); j++) {
		const struct cc_gen_stream *st = cc_gen_stream(g, r, j);

		for (uint32_t i = rk->given[j]; i < st->made; i++)
			if (sx_opst(rk, i)->deps_left)
				return i;
	}
	return x->s->ranks[r].nops;
}

bool sx_gen_unmade(const struct sx *x)
{
	struct cc_gen *g = x->s->gen;

	for (uint32_t r = 0; r < x->s->nranks; r++)
		for (uint32_t j = 0; j < cc_gen_streams(g); j++)
			if (cc_gen_stream(g, r, j)->made < cc_gen_stream(g, r, j)->end)
				return true;
	return false;
}
