/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/fairq.h — an output port's packets kept per flow and served by
 * deficit round robin (Shreedhar and Varghese, "Efficient fair queueing
 * using deficit round robin", SIGCOMM 1995).
 *
 * Why: an output FIFO serves packets in arrival order, so a flow that
 * arrives in bursts (a sender with all its slots free) holds back every
 * flow queued behind it.  Fair queueing gives each flow with packets
 * waiting an equal share of the line, byte for byte: the processor-sharing
 * link that alpha-beta models assume when they charge concurrent messages
 * their share of the bandwidth.  Switch ASICs schedule per input or per
 * priority, not per flow, so only the `ideal` preset uses it
 * (switch.sched = fair; sim/switch.h).
 *
 * A flow is a key (the switch uses the sending node and QP).  Each round
 * visits the flows with packets waiting in the order they became active;
 * a visit adds the quantum to the flow's deficit and sends its packets
 * while the head fits the deficit.  The quantum is the largest frame
 * pushed so far, so a flow of full-sized packets sends exactly one per
 * visit and equal flows alternate packet by packet.  A flow that runs
 * empty leaves the round and its deficit is forgotten (as DRR does).
 */
#ifndef CCLAB_SIM_FAIRQ_H
#define CCLAB_SIM_FAIRQ_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/packet.h"

struct sim_fairq_flow {
	uint64_t key;
	struct sim_pktq q;
	uint64_t deficit;   /* bytes it may still send in this visit */
	uint32_t next;      /* the next active flow in the round */
	bool visiting;      /* its deficit has this visit's quantum */
};

struct sim_fairq {
	struct sim_fairq_flow *flow; /* every flow seen, in order of first packet */
	uint32_t nflow, cap;
	uint32_t *slot;              /* hash of keys: flow index + 1, 0 where empty */
	uint32_t nslot;              /* a power of two, or 0 */
	uint32_t head, tail;         /* the round: active flows, SIM_FAIRQ_NONE-ended */
	uint64_t quantum;
	uint64_t count, bytes;       /* packets waiting, and their wire bytes */
};

#define SIM_FAIRQ_NONE UINT32_MAX

/* An empty queue; it allocates on the first push. */
static inline void sim_fairq_init(struct sim_fairq *q)
{
	*q = (struct sim_fairq){.head = SIM_FAIRQ_NONE, .tail = SIM_FAIRQ_NONE};
}

/* Queues pkt on flow `key`: 0, or -ENOMEM (nothing queued). */
int sim_fairq_push(struct sim_fairq *q, uint64_t key, struct sim_packet *pkt);

/* The next packet by deficit round robin, or NULL when none waits. */
struct sim_packet *sim_fairq_pop(struct sim_fairq *q);

static inline bool sim_fairq_empty(const struct sim_fairq *q) { return q->count == 0; }

/* Frees the flow tables; packets still queued stay their owners'. */
void sim_fairq_destroy(struct sim_fairq *q);

#endif /* CCLAB_SIM_FAIRQ_H */
