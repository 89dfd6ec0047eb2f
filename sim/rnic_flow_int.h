/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/rnic_flow_int.h — what the flow model's NIC (sim/rnic_flow.c) and its
 * multicast side (sim/rnic_flow_mcast.c) share.  Internal to sim/. */
#ifndef CCLAB_SIM_RNIC_FLOW_INT_H
#define CCLAB_SIM_RNIC_FLOW_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/exec_int.h"
#include "sim/flow.h"

#define FL_NONE UINT32_MAX

/* A message in flight: a WQE's request, or a READ's response. */
struct fl_msg {
	uint32_t r, q, wqe;  /* the requester, its QP and WQE */
	uint32_t len;
	bool response;       /* a READ's response, from the responder to r */
	bool held;           /* refused for RNR: it comes again at its QP's fl_hold */
	sim_time_ps t_arrive; /* its last byte at the receiving NIC (multicast: the
			       * latest of its parts' landings so far) */
	uint8_t *data;       /* the payload as read at the start, when carried */
	uint32_t rop;        /* the receive WQE it took at the responder, or SX_NONE */
	uint32_t refs;       /* events still to use it (at the responder: the write and the ACK) */
	/* multicast (sim/rnic_flow_mcast.c) */
	sim_time_ps t_ack;   /* store: from its flow's end to its ACK back */
	sim_time_ps t_in;    /* from a flow into the switch's end to the landing */
	uint64_t wire;       /* its wire bytes */
	uint32_t parts;      /* its flows and jobs still going */
	uint32_t started;    /* load: members whose share has started */
	bool nodata;         /* load: a member's data is not carried */
	uint32_t pred, succ; /* store: the QP's one before it, not landed yet, and the
			      * one after it (FL_NONE: none) */
	uint32_t agg;        /* SHARP: its reduction (struct fl_agg) */
	uint32_t next_free;
};

/* A piece of a multicast message that one NVLink direction serves first
 * come, first served: a member's share into the switch (its port serves
 * the shares it owes as one more QP, sim/nvls.c), a store's copy out of
 * the switch to a member, a load-reduce's result out to its sender (a
 * switch port sends what came in, in order); FL_SHARP: a SHARP switch's
 * result out to a member (id: its reduction, mb: the member's index). */
enum fl_job_kind { FL_SHARE, FL_COPY, FL_RESULT, FL_SHARP };

struct fl_job {
	uint32_t id, mb;     /* the message, and the member it is for */
	enum fl_job_kind kind;
};

struct fl_fifo {
	struct fl_job *q;
	uint32_t head, n, room;
};

/* One reduction a SHARP switch has open: the seq-th SEND of every member
 * of a group (sim/sharp.c's sx_agg). */
struct fl_agg {
	bool used;
	uint32_t q, peer, stride, members, seq;
	uint32_t len, mtu;
	uint64_t wire, last;   /* a member's SEND's wire bytes, and its last packet's */
	uint32_t started;      /* shares begun */
	uint32_t shares;       /* shares not yet in the switch */
	uint32_t left;         /* results not yet delivered */
	sim_time_ps t_in;      /* the last share's end plus its way into the switch */
	uint8_t *acc;          /* the result, when carried */
	bool nodata;
	sim_time_ps *out;      /* per member: its result's job end plus propagation; 0: not yet */
};

struct sx_flow {
	struct sim_flownet net;
	uint32_t nlink_res;  /* resources 0 .. nlink_res): the topology's link directions */
	struct fl_msg *msg;
	uint32_t nmsg, room, free_head;
	struct fl_fifo *fifo; /* per link direction: its multicast jobs */
	struct fl_agg *agg;  /* SHARP's reductions, open and free */
	uint32_t nagg, room_agg;
};

/* Schedules fn(x, arg) at `at`; out of event slots ends the run, as the
 * packet model's own scheduling does. */
static inline void fl_at(struct sx *x, sim_time_ps at, sim_handler_fn fn, uint64_t arg)
{
	if (sim_schedule(&x->eng, at, fn, x, arg) == SIM_EVENT_NONE)
		sx_die_nomem();
}

/* rnic_flow.c */
/* The PCIe link of rank r's NIC towards it (read data) or from it, as a
 * resource; the TLP bytes of a DMA of len there, and per payload byte; one
 * packet's DMA (first or last of a message at mtu): its flight and TLPs. */
uint32_t fl_pcie_res(const struct sx *x, uint32_t r, bool to_nic);
uint64_t fl_pcie_wire(const struct sx *x, uint32_t len, bool read);
double fl_pcie_w(const struct sx *x, uint32_t len, bool read);
sim_time_ps fl_pcie_pkt_ps(const struct sx *x, uint32_t len, uint32_t mtu, bool read, bool first);
/* Rank r's message of len bytes on its socket link, direction d (down:
 * the read data's CplD; up: the written data's MWr): appended to the flow
 * being made (res_out, w_out, *n) and counted where the packet model
 * counts it (the link's own counters, exec.c collect_socket_links());
 * nothing where the NIC crosses no such link or len is 0. */
void fl_socket_add(struct sx *x, uint32_t r, enum sim_pcie_dirn d, uint32_t len,
		   uint32_t *res_out, double *w_out, uint32_t *n);
uint32_t fl_msg_new(struct sx *x);
/* One use of message id is over; the last frees it. */
void fl_msg_free(struct sx *x, uint32_t id);
/* Wire bytes of one packet of `payload` bytes, opcode op, on the QP's link
 * layer; of a whole message of len at the QP's MTU, and in *last its last
 * packet's. */
uint64_t fl_pkt_wire(const struct sx *x, bool nvlink, enum sim_bth_op op, uint32_t payload);
uint64_t fl_msg_wire(const struct sx *x, const struct sx_qp *qp, enum sim_msg m, uint32_t len,
		     uint64_t *last);
/* Which buffer a WQE's local SGE is in at rank r, or SX_NONE. */
uint32_t fl_local_buf(const struct sx *x, uint32_t r, const struct sx_wqe *w,
		      const struct cc_op_send *o);
/* A copy of len bytes of rank r's buffer buf at off, when carried. */
uint8_t *fl_snapshot(const struct sx *x, uint32_t r, uint32_t buf, uint64_t off, uint32_t len);
/* Events on message id: its WQE is done (its ACK, or its response, is
 * back; then the message is freed once); a response's data is in the
 * requester's buffer, and its WQE done. */
void fl_wqe_done(struct sim_engine *eng, void *ctx, uint64_t arg);
void fl_response_in(struct sim_engine *eng, void *ctx, uint64_t arg);
/* --links: link direction res carried a message of len payload bytes,
 * `wire` bytes on it. */
void fl_count(struct sx *x, uint32_t res, uint32_t len, uint64_t wire);
/* len bytes land in rank r's buffer buf at off: the inline value of o
 * (when o is an inline WQE), else data (NULL: not carried); waits on
 * them are woken. */
void fl_place(struct sx *x, uint32_t r, uint32_t buf, uint64_t off, uint32_t len,
	      const struct cc_op_send *o, const uint8_t *data);
/* A flow that only takes its bytes' room on its links. */
void fl_noop(struct sim_engine *eng, void *ctx, uint64_t arg);

/* rnic_flow_mcast.c */
/* Starts multicast message id: a WQE of a multicast QP, on an NVSwitch
 * (NVLink SHARP) or a SHARP switch of the network. */
void fl_mcast_go(struct sx *x, uint32_t id);
void fl_sharp_free(struct sx *x);

#endif /* CCLAB_SIM_RNIC_FLOW_INT_H */
