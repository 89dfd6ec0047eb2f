/* SPDX-License-Identifier: BSD-3-Clause */
/* core/gen.c — a schedule generated as it runs (core/gen.h). */
#include "gen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "algo_int.h"
#include "conn.h"

/* A rank's state as its ops are made: its connections', and the
 * algorithm's own (cc_gen_walk.state). */
struct saved {
	struct cc_conns_saved c;
	void *walk;
};

/* The op blocks of a generated schedule (cc_rank_sched.opblk): a rank's
 * block is taken when cc_add_op() first writes into it and given back
 * here once every op in it is dropped, and the next block any rank
 * reaches takes it again.  So a run's ops stay in the memory it has
 * already touched: ops written into fresh pages instead, as they were
 * when each op had its own address, cost a page fault every 25 ops, and
 * a virtual machine with shadow page tables makes that an exit to its
 * host (12 us a page on the development machine, a third of the time of
 * a ring allreduce on 1024 ranks; docs/performance.md). */
struct cc_op_pool {
	struct free_block { struct free_block *next; } *free;
};

/* What a block not taken, or given back, reads as: zero ops, as pages
 * given back read before; read-only, so a write there faults at once. */
static const struct cc_op unmade_block[CC_OPBLK];
#define UNMADE ((struct cc_op *)unmade_block)

/* A block of zero ops, as a page never written was: the ops of a block
 * not made yet read as zeros whoever had it before. */
static struct cc_op *pool_take(struct cc_op_pool *pool)
{
	struct free_block *b = pool->free;

	if (!b)
		return calloc(CC_OPBLK, sizeof(struct cc_op));
	pool->free = b->next;
	return memset(b, 0, CC_OPBLK * sizeof(struct cc_op));
}

static void pool_put(struct cc_op_pool *pool, struct cc_op *blk)
{
	struct free_block *b = (struct free_block *)blk;

	b->next = pool->free;
	pool->free = b;
}

struct cc_gen {
	struct cc_coll_params p;
	struct cc_conns c;
	struct cc_gen_walk w; /* the algorithm's steps */
	uint32_t k, nstreams;
	struct cc_gen_stream *st; /* rank r's stream j at r * nstreams + j */
	struct cc_gen_stream *st0; /* the same as made: what cc_gen_rewind() restores */
	/* Each rank's state once its stream 0 is made: where its streams
	 * start from (cc_gen_rewind(), cc_gen_scan()). */
	struct saved *start;
	struct cc_op_pool pool;
	/* rank r's ops dropped in its block b, at dropped[r][b] */
	uint8_t **dropped;
};

bool cc_gen_supported(const struct cc_coll_params *p)
{
	return cc_algo_gen_prepare(p->algo) && p->nranks >= 2 && p->count > 0;
}

/* Whether a span of n elements of `size` bytes is heap memory: less than
 * a page.  cc_span_drop() needs no test for it: the pages it gives back
 * lie whole between elements `floor` and `to`, inside the span, and a
 * span shorter than a page holds no whole page. */
static bool span_small(size_t n, size_t size)
{
	return n * size < (size_t)sysconf(_SC_PAGESIZE);
}

void *cc_span_new(size_t n, size_t size)
{
	void *p;

	if (!n || n > SIZE_MAX / size)
		return NULL;
	if (span_small(n, size))
		return calloc(n, size);
	p = mmap(NULL, n * size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void cc_span_drop(void *p, size_t size, size_t floor, size_t from, size_t to)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	/* from the page `from` is in, once a page of the range ends there:
	 * a range of less than a page gives back the page it completes */
	uintptr_t lo = ((uintptr_t)p + floor * size + page - 1) & ~(page - 1);
	uintptr_t a = ((uintptr_t)p + from * size) & ~(page - 1);
	uintptr_t b = ((uintptr_t)p + to * size) & ~(page - 1);

	if (a < lo)
		a = lo;

	if (p && b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
}

void cc_span_free(void *p, size_t n, size_t size)
{
	if (p && span_small(n, size))
		free(p);
	else if (p)
		munmap(p, n * size);
}

static int save(struct cc_gen *g, uint32_t r, struct saved *sv)
{
	size_t n = 0;
	void *at = g->w.state ? g->w.state(g->w.ctx, r, &n) : NULL;

	sv->walk = NULL;
	if (cc_conns_save(&g->c, r, &sv->c))
		return -1;
	if (at && !(sv->walk = malloc(n))) {
		cc_conns_saved_free(&sv->c);
		return -1;
	}
	if (at)
		memcpy(sv->walk, at, n);
	return 0;
}

static void restore(struct cc_gen *g, uint32_t r, const struct saved *sv)
{
	size_t n = 0;
	void *at = g->w.state ? g->w.state(g->w.ctx, r, &n) : NULL;

	cc_conns_restore(&g->c, r, &sv->c);
	if (at)
		memcpy(at, sv->walk, n);
}

static void saved_free(struct saved *sv)
{
	cc_conns_saved_free(&sv->c);
	free(sv->walk);
	sv->walk = NULL;
}


/* Rank r's step n of stream j (1..), emitted where g->c.out says: the one
 * way the dry run, the scans and the run's own making take a step. */
static void emit_step(struct cc_gen *g, uint32_t r, uint32_t j, uint64_t n)
{
	g->w.step(g->w.ctx, r, j - 1, n);
}

static struct cc_gen_stream *stream(struct cc_gen *g, uint32_t r, uint32_t j)
{
	return &g->st[(size_t)r * g->nstreams + j];
}

/* The rank's op arrays as the connections' layer appends to them, from
 * op `made` and dependency `dep_made` on. */
static struct cc_rank_sched view(const struct cc_rank_sched *rs, uint32_t made, uint32_t dep_made)
{
	return (struct cc_rank_sched){ .opblk = rs->opblk, .op_pool = rs->op_pool,
				       .deps = rs->deps, .nops = made, .ndeps = dep_made,
				       .cap_deps = rs->ndeps + CC_GEN_DEP_SLACK };
}

struct cc_op *cc_gen_op_slot(struct cc_rank_sched *v, uint32_t i)
{
	struct cc_op **b = &v->opblk[i >> CC_OPBLK_SHIFT];

	if (*b == UNMADE && !(*b = pool_take(v->op_pool))) {
		*b = UNMADE;
		return NULL;
	}
	return &(*b)[i & (CC_OPBLK - 1)];
}

/* Rank r's ops counted, stream by stream (a dry run that leaves its
 * connections as it found them), its arrays reserved, and its stream 0
 * made.  0, or -ENOMEM / -EOVERFLOW. */
static int rank_init(struct cc_gen *g, struct cc_schedule *s, uint32_t r)
{
	struct cc_conns *c = &g->c;
	struct cc_rank_sched *rs = &s->ranks[r], v = { .count_only = true };
	struct saved sv;

	if (save(g, r, &sv))
		return -ENOMEM;
	c->out = &v;
	cc_conns_start(c, r);
	*stream(g, r, 0) = (struct cc_gen_stream){ .end = v.nops, .dep_made = v.ndeps };
	for (uint32_t j = 1; j < g->nstreams; j++) {
		struct cc_gen_stream *st = stream(g, r, j);

		*st = (struct cc_gen_stream){ .first = v.nops, .made = v.nops, .dep_first = v.ndeps,
					      .dep_made = v.ndeps, .dropped = v.nops,
					      .nsteps = g->w.steps(g->w.ctx, j - 1) };
		for (uint64_t n = 0; n < st->nsteps; n++)
			emit_step(g, r, j, n);
		st->end = v.nops;
	}
	c->out = NULL;
	restore(g, r, &sv);
	saved_free(&sv);
	if (c->flag_wrap)
		return -EOVERFLOW;
	if (c->timed_out)
		return -ETIME;
	rs->nops = v.nops;
	rs->ndeps = v.ndeps;
	if (!(rs->opblk = malloc(cc_opblk_count(rs->nops) * sizeof(*rs->opblk))))
		return -ENOMEM;
	for (uint32_t b = 0; b < cc_opblk_count(rs->nops); b++)
		rs->opblk[b] = UNMADE;
	rs->op_pool = &g->pool;
	g->dropped[r] = calloc(cc_opblk_count(rs->nops), 1);
	rs->deps = cc_span_new(rs->ndeps + CC_GEN_DEP_SLACK, sizeof(*rs->deps));
	if (!g->dropped[r] || !rs->deps)
		return -ENOMEM;
	/* Stream 0 now, for real: the first slots' invitations. */
	v = view(rs, 0, 0);
	c->out = &v;
	cc_conns_start(c, r);
	c->out = NULL;
	stream(g, r, 0)->made = v.nops;
	if (c->oom || save(g, r, &g->start[r]))
		return -ENOMEM;
	return 0;
}

static void unmap_rank(struct cc_rank_sched *rs)
{
	for (uint32_t b = 0; rs->opblk && b < cc_opblk_count(rs->nops); b++)
		if (rs->opblk[b] != UNMADE)
			free(rs->opblk[b]);
	free(rs->opblk);
	cc_span_free(rs->deps, rs->ndeps + CC_GEN_DEP_SLACK, sizeof(*rs->deps));
	rs->opblk = NULL;
	rs->op_pool = NULL;
	rs->deps = NULL;
}

void cc_gen_free(struct cc_schedule *s)
{
	struct cc_gen *g = s->gen;

	if (!g)
		return;
	for (uint32_t r = 0; r < s->nranks; r++)
		unmap_rank(&s->ranks[r]);
	while (g->pool.free) {
		struct free_block *b = g->pool.free;

		g->pool.free = b->next;
		free(b);
	}
	for (uint32_t r = 0; g->dropped && r < g->k; r++)
		free(g->dropped[r]);
	free(g->dropped);
	for (uint32_t r = 0; g->start && r < g->k; r++)
		saved_free(&g->start[r]);
	cc_conns_release(&g->c);
	if (g->w.free)
		g->w.free(g->w.ctx);
	free(g->start);
	free(g->st);
	free(g->st0);
	free(g);
	s->gen = NULL;
}

struct cc_schedule *cc_gen_build(const struct cc_coll_params *p, char *err, size_t errlen)
{
	struct cc_gen *g = calloc(1, sizeof(*g));
	struct cc_schedule *s = NULL;
	int rc = -ENOMEM;

	if (!g)
		goto fail;
	g->p = *p;
	g->k = p->nranks;
	if ((rc = cc_algo_gen_prepare(p->algo)(&g->p, &g->c, &s, &g->w))) {
		free(g);
		g = NULL;
		goto fail;
	}
	rc = -ENOMEM;
	g->nstreams = 1 + g->w.nstreams;
	s->gen = g;
	g->st = calloc((size_t)g->k * g->nstreams, sizeof(*g->st));
	g->st0 = malloc((size_t)g->k * g->nstreams * sizeof(*g->st0));
	g->start = calloc(g->k, sizeof(*g->start));
	g->dropped = calloc(g->k, sizeof(*g->dropped));
	if (!g->st || !g->st0 || !g->start || !g->dropped)
		goto fail;
	for (uint32_t r = 0; r < g->k; r++)
		if ((rc = rank_init(g, s, r)))
			goto fail;
	memcpy(g->st0, g->st, (size_t)g->k * g->nstreams * sizeof(*g->st));
	/* The build's deadline is the build's: making ops during the run
	 * must never stop half way. */
	g->c.deadline_ns = 0;
	return s;
fail:
	if (s)
		cc_schedule_free(s);
	if (rc == -ETIME)
		snprintf(err, errlen, "time limit reached while building the schedule");
	else if (rc == -EOVERFLOW)
		snprintf(err, errlen, "more than %llu slices on one connection: %s's flags would "
			 "repeat; use larger --slot-bytes", (unsigned long long)
			 cc_proto_max_flag(p->proto), cc_proto_name[p->proto]);
	else
		snprintf(err, errlen, "out of memory generating the schedule");
	errno = -rc;
	return NULL;
}

uint32_t cc_gen_streams(const struct cc_gen *g)
{
	return g->nstreams;
}

uint32_t cc_gen_window(const struct cc_gen *g)
{
	return g->w.window;
}

const struct cc_gen_stream *cc_gen_stream(const struct cc_gen *g, uint32_t r, uint32_t j)
{
	return &g->st[(size_t)r * g->nstreams + j];
}

uint32_t cc_gen_stream_of(const struct cc_gen *g, uint32_t r, uint32_t i)
{
	const struct cc_gen_stream *st = &g->st[(size_t)r * g->nstreams];
	uint32_t j = g->nstreams - 1;

	while (j > 0 && i < st[j].first)
		j--;
	return j;
}

int cc_gen_next(struct cc_gen *g, uint32_t r, uint32_t j)
{
	struct cc_gen_stream *st = stream(g, r, j);
	struct cc_rank_sched *rs = &g->c.s->ranks[r], v;

	if (st->step >= st->nsteps)
		return 0;
	v = view(rs, st->made, st->dep_made);
	g->c.out = &v;
	emit_step(g, r, j, st->step++);
	g->c.out = NULL;
	if (v.oom || g->c.oom)
		return -ENOMEM; /* a block for its ops (cc_gen_op_slot()) */
	st->made = v.nops;
	st->dep_made = v.ndeps;
	return 1;
}

void cc_gen_drop(struct cc_gen *g, uint32_t r, uint32_t j, uint32_t upto)
{
	struct cc_gen_stream *st = stream(g, r, j);
	const struct cc_rank_sched *rs = &g->c.s->ranks[r];

	if (upto <= st->dropped)
		return;
	uint32_t d0 = st->dropped < st->made ? cc_rank_op(rs, st->dropped)->dep_first : st->dep_made;
	uint32_t d1 = upto < st->made ? cc_rank_op(rs, upto)->dep_first : st->dep_made;

	/* A block goes back once all its ops are dropped, whichever streams
	 * they are in (stream 0's never are: its blocks stay). */
	for (uint32_t i = st->dropped; i < upto;) {
		uint32_t b = i >> CC_OPBLK_SHIFT;
		uint64_t start = (uint64_t)b << CC_OPBLK_SHIFT, end = start + CC_OPBLK;
		uint32_t len = (uint32_t)((end < rs->nops ? end : rs->nops) - start);

		end = end < upto ? end : upto;
		g->dropped[r][b] += (uint8_t)(end - i);
		if (g->dropped[r][b] == len) {
			pool_put(&g->pool, rs->opblk[b]);
			rs->opblk[b] = UNMADE;
		}
		i = (uint32_t)end;
	}
	cc_span_drop(rs->deps, sizeof(*rs->deps), st->dep_first, d0, d1);
	st->dropped = upto;
}

bool cc_gen_block_held(const struct cc_rank_sched *rs, uint32_t b)
{
	return rs->opblk[b] != UNMADE;
}

void cc_gen_rewind(struct cc_gen *g)
{
	for (uint32_t r = 0; r < g->k; r++) {
		restore(g, r, &g->start[r]);
		memset(g->dropped[r], 0, cc_opblk_count(g->c.s->ranks[r].nops));
	}
	memcpy(g->st, g->st0, (size_t)g->k * g->nstreams * sizeof(*g->st));
}

int cc_gen_scan(struct cc_gen *g, uint32_t r, void (*fn)(void *ctx, const struct cc_op *o),
		void *ctx)
{
	const struct cc_rank_sched *rs = &g->c.s->ranks[r];
	/* a step at a time, into a scratch numbered from the step's first op */
	struct cc_rank_sched v = {0};
	struct saved now;
	int rc = 0;

	for (uint32_t i = 0; i < stream(g, r, 0)->end; i++)
		fn(ctx, cc_rank_op(rs, i));
	if (save(g, r, &now))
		return -ENOMEM;
	restore(g, r, &g->start[r]);
	g->c.out = &v;
	for (uint32_t j = 1; j < g->nstreams && !rc; j++) {
		const struct cc_gen_stream *st = stream(g, r, j);

		v.nops = st->first;
		v.ndeps = st->dep_first;
		for (uint64_t n = 0; n < st->nsteps && !rc; n++) {
			v.op_base = v.nops;
			v.dep_base = v.ndeps;
			emit_step(g, r, j, n);
			if (v.oom)
				rc = -ENOMEM;
			for (uint32_t i = 0; !rc && i < v.nops - v.op_base; i++)
				fn(ctx, &v.ops[i]);
		}
	}
	g->c.out = NULL;
	g->c.oom = 0;
	restore(g, r, &now);
	saved_free(&now);
	free(v.ops);
	free(v.deps);
	return rc;
}
