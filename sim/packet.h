/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/packet.h — the packet the simulator's models pass around, and the
 * intrusive FIFO they keep packets in.
 *
 * One struct per packet on the wire: who sent it to whom (node, port, QP),
 * its BTH opcode and PSN, and its size three ways — payload, frame (what a
 * switch stores) and wire bytes (frame + Ethernet preamble/SFD + IFG, the
 * line time it occupies; sim/wire.h).  Models never allocate or free
 * packets: the creator (the simulated NIC) owns the memory, links and
 * switches only hold pointers while the packet is in their care and hand it
 * on, or back through a drop callback.
 *
 * Why an intrusive list: a link or port holds an unbounded number of packets
 * (htsim's Pipe keeps every packet in flight), so the FIFO must cost no
 * allocation per packet.  `next` and `due` belong to whichever component
 * holds the packet at the moment — a packet sits in at most one FIFO at a
 * time — and mean nothing outside it.
 */
#ifndef CCLAB_SIM_PACKET_H
#define CCLAB_SIM_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/time.h"
#include "sim/wire.h"

struct sim_packet {
	/* Addressing.  Nodes are NICs and switches of the topology; a port
	 * is a NIC port or switch port of that node. */
	uint32_t src_node, dst_node;
	uint32_t src_port, dst_port; /* dst_port: only where to_port */
	uint32_t src_qpn, dst_qpn; /* 24-bit QP numbers (IBA 9.2: BTH DestQP) */
	uint32_t psn;              /* 24-bit packet sequence number */
	enum sim_bth_op op;

	/* Size: see sim_packet_size(). */
	uint32_t payload_bytes;
	uint32_t frame_bytes; /* LRH .. VCRC, or MAC header .. FCS */
	uint32_t wire_bytes;  /* frame + preamble + IFG: what serialization costs */

	uint64_t flow_id; /* hashed by ECMP (sim_net_pick): one flow keeps one path */
	uint8_t prio;     /* IB service level / VL, or RoCE 802.1p priority */
	bool to_port;     /* for port dst_port of dst_node's NIC (a GPU with several NICs,
			   * sim_net_pick_port()); else any of its ports */
	bool ecn_ce;      /* ECN Congestion Experienced: a switch marked it (RFC 3168) */
	void *user;       /* the creator's; models never touch it */

	/* Scratch of the current holder (see the top of this file). */
	struct sim_packet *next;
	sim_time_ps due;  /* when the holder hands it on */
	sim_time_ps tail; /* link: when its last bit reaches the receiver */
	uint32_t hop;     /* switch: the output port chosen for it */
	uint32_t in_port; /* switch: the port it came in on */
};

/* Sets op and the three sizes of a packet of opcode op carrying `payload`
 * bytes on link layer `link` (sim_wire_frame_bytes / sim_wire_bytes). */
static inline void sim_packet_size(struct sim_packet *p, enum sim_link link, enum sim_bth_op op,
				   uint32_t payload)
{
	p->op = op;
	p->payload_bytes = payload;
	p->frame_bytes = sim_wire_frame_bytes(link, op, payload);
	p->wire_bytes = sim_wire_bytes(link, op, payload);
}

/* The same on NVLink (sim_wire_nvlink_bytes): frame and wire alike. */
static inline void sim_packet_size_nvlink(struct sim_packet *p, enum sim_bth_op op,
					  uint32_t payload, uint32_t pkt_bytes, uint32_t overhead)
{
	p->op = op;
	p->payload_bytes = payload;
	p->frame_bytes = p->wire_bytes = sim_wire_nvlink_bytes(payload, pkt_bytes, overhead);
}

/* A FIFO of packets linked through their `next`. */
struct sim_pktq {
	struct sim_packet *head, *tail;
	uint64_t count;
	uint64_t bytes; /* sum of wire_bytes */
};

static inline bool sim_pktq_empty(const struct sim_pktq *q) { return q->head == NULL; }

static inline void sim_pktq_push(struct sim_pktq *q, struct sim_packet *p)
{
	p->next = NULL;
	if (q->tail)
		q->tail->next = p;
	else
		q->head = p;
	q->tail = p;
	q->count++;
	q->bytes += p->wire_bytes;
}

static inline struct sim_packet *sim_pktq_pop(struct sim_pktq *q)
{
	struct sim_packet *p = q->head;

	if (!p)
		return NULL;
	q->head = p->next;
	if (!q->head)
		q->tail = NULL;
	p->next = NULL;
	q->count--;
	q->bytes -= p->wire_bytes;
	return p;
}

#endif /* CCLAB_SIM_PACKET_H */
