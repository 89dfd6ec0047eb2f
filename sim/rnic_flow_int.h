/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/rnic_flow_int.h — what the flow model's NIC (sim/rnic_flow.c) and its
 * NVLink SHARP side (sim/rnic_flow_nvls.c) share.  Internal to sim/. */
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
	uint32_t refs;       /* events still to use it (at the responder: the write and the ACK) */
	/* multicast (sim/rnic_flow_nvls.c) */
	sim_time_ps t_ack;   /* store: from its flow's end to its ACK back */
	sim_time_ps t_in;    /* from a flow into the switch's end to the landing */
	uint64_t wire;       /* its wire bytes */
	uint32_t parts;      /* its flows and jobs still going */
	uint32_t started;    /* load: members whose share has started */
	bool nodata;         /* load: a member's data is not carried */
	uint32_t pred, succ; /* store: the QP's one before it, not landed yet, and the
			      * one after it (FL_NONE: none) */
	uint32_t next_free;
};

/* A piece of a multicast message that one NVLink direction serves first
 * come, first served: a member's share into the switch (its port serves
 * the shares it owes as one more QP, sim/nvls.c), a store's copy out of
 * the switch to a member, a load-reduce's result out to its sender (a
 * switch port sends what came in, in order). */
enum fl_job_kind { FL_SHARE, FL_COPY, FL_RESULT };

struct fl_job {
	uint32_t id, mb;     /* the message, and the member it is for */
	enum fl_job_kind kind;
};

struct fl_fifo {
	struct fl_job *q;
	uint32_t head, n, room;
};

struct sx_flow {
	struct sim_flownet net;
	uint32_t nlink_res;  /* resources 0 .. nlink_res): the topology's link directions */
	struct fl_msg *msg;
	uint32_t nmsg, room, free_head;
	struct fl_fifo *fifo; /* per link direction: its multicast jobs */
};

/* rnic_flow.c */
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
/* A flow that only takes its bytes' room on its links. */
void fl_noop(struct sim_engine *eng, void *ctx, uint64_t arg);

/* rnic_flow_nvls.c */
/* Starts multicast message id (a WQE of a multicast QP on an NVSwitch). */
void fl_mcast_go(struct sx *x, uint32_t id);

#endif /* CCLAB_SIM_RNIC_FLOW_INT_H */
