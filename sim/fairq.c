/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/fairq.c — deficit round robin over flows; see fairq.h. */
#include "sim/fairq.h"

#include <errno.h>
#include <stdlib.h>

#include "util/grow.h"
#include "util/splitmix.h"

static uint32_t hash_of(const struct sim_fairq *q, uint64_t key)
{
	uint64_t h = key;

	return (uint32_t)cc_splitmix64_next(&h) & (q->nslot - 1);
}

/* The slot holding key's flow, or the empty slot where it would go. */
static uint32_t *slot_of(const struct sim_fairq *q, uint64_t key)
{
	uint32_t i = hash_of(q, key);

	while (q->slot[i] && q->flow[q->slot[i] - 1].key != key)
		i = (i + 1) & (q->nslot - 1);
	return &q->slot[i];
}

/* Doubles the hash (kept at most half full) and makes room for one more
 * flow.  0 or -ENOMEM. */
static int grow(struct sim_fairq *q)
{
	if (q->nflow >= UINT32_MAX / 8) /* the hash's size must stay a uint32_t */
		return -ENOMEM;
	if (cc_grow(&q->flow, &q->cap, (uint64_t)q->nflow + 1, sizeof(*q->flow)))
		return -ENOMEM;
	if (2 * (q->nflow + 1) > q->nslot) {
		uint32_t n = q->nslot ? 2 * q->nslot : 16;
		uint32_t *s = calloc(n, sizeof(*s));

		if (!s)
			return -ENOMEM;
		free(q->slot);
		q->slot = s;
		q->nslot = n;
		for (uint32_t i = 0; i < q->nflow; i++)
			*slot_of(q, q->flow[i].key) = i + 1;
	}
	return 0;
}

int sim_fairq_push(struct sim_fairq *q, uint64_t key, struct sim_packet *pkt)
{
	uint32_t *slot = q->nslot ? slot_of(q, key) : NULL;
	struct sim_fairq_flow *f;
	uint32_t i;

	if (!slot || !*slot) {
		int rc = grow(q);

		if (rc)
			return rc;
		slot = slot_of(q, key);
		q->flow[q->nflow] = (struct sim_fairq_flow){.key = key, .next = SIM_FAIRQ_NONE};
		*slot = ++q->nflow;
	}
	i = *slot - 1;
	f = &q->flow[i];
	if (sim_pktq_empty(&f->q)) { /* joins the round at its end */
		f->next = SIM_FAIRQ_NONE;
		if (q->tail == SIM_FAIRQ_NONE)
			q->head = i;
		else
			q->flow[q->tail].next = i;
		q->tail = i;
	}
	sim_pktq_push(&f->q, pkt);
	if (pkt->frame_bytes > q->quantum)
		q->quantum = pkt->frame_bytes;
	q->count++;
	q->bytes += pkt->wire_bytes;
	return 0;
}

/* The head flow's visit is over: it goes to the end of the round, or
 * leaves it when it has nothing left. */
static void next_visit(struct sim_fairq *q)
{
	uint32_t i = q->head;
	struct sim_fairq_flow *f = &q->flow[i];

	f->visiting = false;
	q->head = f->next;
	f->next = SIM_FAIRQ_NONE;
	if (q->head == SIM_FAIRQ_NONE)
		q->tail = SIM_FAIRQ_NONE;
	if (sim_pktq_empty(&f->q)) {
		f->deficit = 0;
		return;
	}
	if (q->tail == SIM_FAIRQ_NONE)
		q->head = i;
	else
		q->flow[q->tail].next = i;
	q->tail = i;
}

struct sim_packet *sim_fairq_pop(struct sim_fairq *q)
{
	/* Each pass either sends or ends a visit, and a visit adds a quantum
	 * no smaller than any frame, so this ends within two rounds. */
	while (q->head != SIM_FAIRQ_NONE) {
		struct sim_fairq_flow *f = &q->flow[q->head];
		struct sim_packet *pkt;

		if (!f->visiting) {
			f->deficit += q->quantum;
			f->visiting = true;
		}
		if (f->q.head->frame_bytes > f->deficit) {
			next_visit(q);
			continue;
		}
		pkt = sim_pktq_pop(&f->q);
		f->deficit -= pkt->frame_bytes;
		q->count--;
		q->bytes -= pkt->wire_bytes;
		if (sim_pktq_empty(&f->q))
			next_visit(q);
		return pkt;
	}
	return NULL;
}

void sim_fairq_destroy(struct sim_fairq *q)
{
	free(q->flow);
	free(q->slot);
	sim_fairq_init(q);
}
