/* SPDX-License-Identifier: MIT */
#include "sim/park.h"

#include <errno.h>
#include <stdlib.h>

#include "sim/exec_int.h"

int sx_park_init(struct sx_park *pk, const struct cc_rank_sched *rs, size_t *bytes)
{
	uint32_t npolls = 0, nb = 16;

	for (uint32_t i = 0; i < rs->nops; i++)
		npolls += rs->ops[i].kind == CC_OP_POLL_CQ;
	while (nb < npolls / 4)
		nb *= 2;
	pk->n = 0;
	pk->poll_mask = nb - 1;
	pk->list = calloc(rs->nops ? rs->nops : 1, sizeof(uint32_t));
	pk->pos = calloc(rs->nops ? rs->nops : 1, sizeof(uint32_t));
	pk->poll_next = calloc(rs->nops ? rs->nops : 1, sizeof(uint32_t));
	pk->poll_head = calloc(nb, sizeof(uint32_t));
	pk->on_buf = calloc(rs->nbufs ? rs->nbufs : 1, sizeof(*pk->on_buf));
	*bytes += 3 * (size_t)rs->nops * sizeof(uint32_t) + nb * sizeof(uint32_t) +
		  rs->nbufs * sizeof(*pk->on_buf);
	return pk->list && pk->pos && pk->poll_next && pk->poll_head && pk->on_buf ? 0 : -ENOMEM;
}

void sx_park_free(struct sx_park *pk, const struct cc_rank_sched *rs)
{
	if (pk->on_buf)
		for (uint32_t b = 0; b < rs->nbufs; b++)
			free(pk->on_buf[b].op);
	free(pk->list);
	free(pk->pos);
	free(pk->poll_next);
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
	const struct cc_op *o = &rs->ops[op];

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
	const struct cc_op *o = &rs->ops[op];

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
		const struct cc_op_poll *p = &rs->ops[e - 1].u.poll;

		if (p->cq == cq && p->wr_id == wr_id && pk->pos[e - 1] < first)
			first = pk->pos[e - 1];
	}
	return first;
}
