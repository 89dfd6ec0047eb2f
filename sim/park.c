/* SPDX-License-Identifier: MIT */
#include "sim/park.h"

#include <errno.h>
#include <stdlib.h>

#include "core/gen.h"
#include "sim/exec_int.h"

static void count_poll(void *ctx, const struct cc_op *o)
{
	*(uint32_t *)ctx += o->kind == CC_OP_POLL_CQ;
}

int sx_park_init(struct sx_park *pk, const struct cc_schedule *s, uint32_t r, size_t *bytes)
{
	const struct cc_rank_sched *rs = &s->ranks[r];
	uint32_t npolls = 0, nb = 16, n = rs->nops ? rs->nops : 1;

	/* A generated schedule's polls are not there to count: a poll a
	 * step, about (what sizes the hash, nothing else). */
	if (s->gen)
		npolls = rs->nops / 6;
	else
		cc_sched_each_op(s, r, count_poll, &npolls);
	while (nb < npolls / 4)
		nb *= 2;
	pk->n = 0;
	pk->poll_mask = nb - 1;
	pk->spans = s->gen != NULL;
	pk->nops = n;
	pk->list = calloc(n, sizeof(uint32_t));
	pk->pos = pk->spans ? cc_span_new(n, sizeof(uint32_t)) : calloc(n, sizeof(uint32_t));
	pk->poll_next = pk->spans ? cc_span_new(n, sizeof(uint32_t)) : calloc(n, sizeof(uint32_t));
	pk->poll_head = calloc(nb, sizeof(uint32_t));
	pk->on_buf = calloc(rs->nbufs ? rs->nbufs : 1, sizeof(*pk->on_buf));
	*bytes += (pk->spans ? 1 : 3) * (size_t)rs->nops * sizeof(uint32_t) +
		  nb * sizeof(uint32_t) + rs->nbufs * sizeof(*pk->on_buf);
	return pk->list && pk->pos && pk->poll_next && pk->poll_head && pk->on_buf ? 0 : -ENOMEM;
}

void sx_park_drop(struct sx_park *pk, uint32_t floor, uint32_t from, uint32_t to)
{
	cc_span_drop(pk->pos, sizeof(uint32_t), floor, from, to);
	cc_span_drop(pk->poll_next, sizeof(uint32_t), floor, from, to);
}

void sx_park_free(struct sx_park *pk, const struct cc_schedule *s, uint32_t r)
{
	const struct cc_rank_sched *rs = &s->ranks[r];

	if (pk->on_buf)
		for (uint32_t b = 0; b < rs->nbufs; b++)
			free(pk->on_buf[b].op);
	free(pk->list);
	if (pk->spans) {
		cc_span_free(pk->pos, pk->nops, sizeof(uint32_t));
		cc_span_free(pk->poll_next, pk->nops, sizeof(uint32_t));
	} else {
		free(pk->pos);
		free(pk->poll_next);
	}
	free(pk->poll_head);
	free(pk->on_buf);
}

static uint32_t *poll_chain(const struct sx_park *pk, uint32_t cq, uint64_t wr_id)
{
	uint64_t h = (wr_id ^ (uint64_t)cq << 48) * 0x9E3779B97F4A7C15ull;

	return &pk->poll_head[(h >> 40) & pk->poll_mask];
}

void sx_park_add(struct sx_park *pk, const struct cc_rank_sched *rs, uint32_t op)
{
	const struct cc_op *o = cc_rank_op(rs, op);

	pk->pos[op] = pk->n;
	pk->list[pk->n++] = op;
	if (o->kind == CC_OP_POLL_CQ) {
		uint32_t *head = poll_chain(pk, o->u.poll.cq, o->u.poll.wr_id);

		pk->poll_next[op] = *head;
		*head = op + 1;
	} else {
		struct sx_waiters *w = &pk->on_buf[o->u.wait.buf];

		SX_GROW(w->op, w->n, w->cap);
		w->op[w->n++] = op;
	}
}

uint32_t sx_park_take(struct sx_park *pk, const struct cc_rank_sched *rs, uint32_t j)
{
	uint32_t op = pk->list[j];
	const struct cc_op *o = cc_rank_op(rs, op);

	pk->list[j] = pk->list[--pk->n];
	pk->pos[pk->list[j]] = j;
	if (o->kind == CC_OP_POLL_CQ) {
		uint32_t *link = poll_chain(pk, o->u.poll.cq, o->u.poll.wr_id);

		while (*link != op + 1)
			link = &pk->poll_next[*link - 1];
		*link = pk->poll_next[op];
		return op;
	}
	/* A buffer's waiters are few: found by a scan, their order is
	 * nobody's. */
	struct sx_waiters *w = &pk->on_buf[o->u.wait.buf];

	for (uint32_t k = 0; k < w->n; k++)
		if (w->op[k] == op) {
			w->op[k] = w->op[--w->n];
			break;
		}
	return op;
}

uint32_t sx_park_find_poll(const struct sx_park *pk, const struct cc_rank_sched *rs,
			   uint32_t cq, uint64_t wr_id)
{
	uint32_t first = UINT32_MAX;

	for (uint32_t e = *poll_chain(pk, cq, wr_id); e; e = pk->poll_next[e - 1]) {
		const struct cc_op_poll *p = &cc_rank_op(rs, e - 1)->u.poll;

		if (p->cq == cq && p->wr_id == wr_id && pk->pos[e - 1] < first)
			first = pk->pos[e - 1];
	}
	return first;
}
