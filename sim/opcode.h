/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/opcode.h — from a work request's opcode (core/schedule.h) to the
 * packet stream it puts on the wire (sim/wire.h). */
#ifndef CCLAB_SIM_OPCODE_H
#define CCLAB_SIM_OPCODE_H

#include "core/schedule.h"
#include "sim/wire.h"

/* The message stream of a SEND or WRITE; a READ's is its response stream
 * (the request is one READ_REQUEST packet).  Atomics are single packets of
 * their own and have none: READ_RESP is returned, and callers test for
 * them first. */
static inline enum sim_msg sim_msg_of_opcode(enum cc_opcode op)
{
	switch (op) {
	case CC_WR_SEND: return SIM_MSG_SEND;
	case CC_WR_SEND_WITH_IMM: return SIM_MSG_SEND_IMM;
	case CC_WR_RDMA_WRITE: return SIM_MSG_WRITE;
	case CC_WR_RDMA_WRITE_WITH_IMM: return SIM_MSG_WRITE_IMM;
	default: return SIM_MSG_READ_RESP;
	}
}

#endif /* CCLAB_SIM_OPCODE_H */
