/* SPDX-License-Identifier: BSD-3-Clause */
/* core/resp_check.h — the responder's checks on an arriving request, as one
 * ordered sequence every executor runs: the data executor's RNIC
 * (core/exec_data_nic.c) on a whole message, the simulated RNIC's
 * responder (sim/rnic_resp.c) on each packet.  One sequence, so a bad
 * schedule ends with the same completion status whichever executor runs it
 * (tests/test_resp_conformance.c holds them to it).
 *
 * The shape is rxe's responder (drivers/infiniband/sw/rxe/rxe_resp.c): a
 * state per check, each check a small function that returns the next state
 * or an error state; the error state then names the NAK the requester gets
 * (IBA 9.7.5.2.1, AETH syndromes) and the status a consumed receive WQE
 * completes with.  rxe's first two checks, check_psn and check_op_seq, are
 * about packets and stay in the simulator, the one executor with packets;
 * what is here starts at check_op_valid.  The checks are pure: they read the
 * request, the responder's MRs and the head of its receive queue, and
 * change nothing; the executor acts on the outcome. */
#ifndef CCLAB_CORE_RESP_CHECK_H
#define CCLAB_CORE_RESP_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "core/exec.h"
#include "core/schedule.h"

/* Checks in the order they run, then where they end (rxe enum resp_states). */
enum cc_resp_state {
	CC_RESP_CHK_OP_VALID,
	CC_RESP_CHK_RESOURCE,
	CC_RESP_CHK_LENGTH,
	CC_RESP_CHK_RKEY,
	CC_RESP_CHK_RECV_KEY,
	CC_RESP_EXECUTE,             /* every check passed: carry it out */
	CC_RESP_ERR_RNR,             /* no receive WQE posted */
	CC_RESP_ERR_INV_REQ,         /* an atomic that is not 8 aligned bytes */
	CC_RESP_ERR_LENGTH,          /* a SEND longer than its receive WQE */
	CC_RESP_ERR_RKEY_VIOLATION,  /* R_Key unknown, lacking the right, or out of range */
	CC_RESP_ERR_MALFORMED_WQE,   /* the receive WQE's own L_Key is bad */
	CC_RESP_STATE_COUNT
};
extern const char *const cc_resp_state_name[CC_RESP_STATE_COUNT]; /* "CHK_RKEY", ... */

/* The NAKs a responder sends (IBA 9.7.5.2.1, AETH syndromes), none for an
 * ACK.  Sequence errors are the simulator's own (it has PSNs). */
enum cc_nak { CC_NAK_NONE, CC_NAK_RNR, CC_NAK_INV_REQ, CC_NAK_REM_ACCESS, CC_NAK_REM_OP };

/* A request as the responder sees it.  An executor without packets passes
 * a whole message as one ONLY packet (first and, where it takes one,
 * takes_rwqe both set). */
struct cc_resp_req {
	enum cc_opcode opcode;
	bool first;      /* the message's first packet: it carries the RETH or
			  * AtomicETH, so the R_Key is checked here, over the
			  * whole message */
	bool takes_rwqe; /* it consumes a receive WQE (rxe RXE_RWR_MASK): a
			  * SEND's first packet, a WRITE_WITH_IMM's last */
	uint32_t len;    /* the whole message's bytes (cc_wqe_len) */
	uint32_t rkey;
	uint64_t va;     /* remote_offset: where in the target MR's buffer */
};

/* The responder's side: its MRs and the receive WQE at the head of the
 * QP's receive queue (NULL: none posted). */
struct cc_resp_qp {
	const struct cc_rank_sched *rs;
	const uint32_t *keys;            /* keys of rs's MRs (cc_exec_keys) */
	const struct cc_op_recv *recv;
	uint32_t recv_lkey;              /* recv's L_Key, as posted (faults included) */
};

/* What the checks found, for the executor to carry the request out with. */
struct cc_resp_found {
	const struct cc_mr *mr;      /* the target of a WRITE, READ or atomic; NULL
				      * when nothing is checked (zero length) */
	const struct cc_mr *recv_mr; /* the receive WQE's MR, for a SEND */
};

/* Runs the checks on request q at responder p: CC_RESP_EXECUTE, or the
 * error state of the first that fails.  *f is filled as the checks go. */
enum cc_resp_state cc_resp_check(const struct cc_resp_req *q, const struct cc_resp_qp *p,
				 struct cc_resp_found *f);

/* For an error state: the NAK the requester gets, and the status the
 * requester's WQE then completes with (for RNR: once rnr_retry is spent,
 * IBA 9.7.5.2.8).  CC_NAK_NONE / CC_WC_SUCCESS for a state that is no error. */
enum cc_nak cc_resp_nak(enum cc_resp_state s);
enum cc_wc_status cc_nak_wc(enum cc_nak n);

/* The status of the receive WQE an error state consumed, CC_WC_SUCCESS
 * when it consumes none: the responder's own completion (rxe do_complete
 * after do_class_ac_error). */
enum cc_wc_status cc_resp_recv_wc(enum cc_resp_state s);

#endif /* CCLAB_CORE_RESP_CHECK_H */
