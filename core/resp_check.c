/* SPDX-License-Identifier: BSD-3-Clause */
/* core/resp_check.c — the responder's request checks, in rxe's order
 * (rxe_resp.c: check_op_valid → check_resource → check_length →
 * check_rkey → execute).  Each check returns the next state. */
#include "resp_check.h"

#include "exec_common.h"

const char *const cc_resp_state_name[CC_RESP_STATE_COUNT] = {
	[CC_RESP_CHK_OP_VALID] = "CHK_OP_VALID",
	[CC_RESP_CHK_RESOURCE] = "CHK_RESOURCE",
	[CC_RESP_CHK_LENGTH] = "CHK_LENGTH",
	[CC_RESP_CHK_RKEY] = "CHK_RKEY",
	[CC_RESP_CHK_RECV_KEY] = "CHK_RECV_KEY",
	[CC_RESP_EXECUTE] = "EXECUTE",
	[CC_RESP_ERR_RNR] = "ERR_RNR",
	[CC_RESP_ERR_INV_REQ] = "ERR_INV_REQ",
	[CC_RESP_ERR_LENGTH] = "ERR_LENGTH",
	[CC_RESP_ERR_RKEY_VIOLATION] = "ERR_RKEY_VIOLATION",
	[CC_RESP_ERR_MALFORMED_WQE] = "ERR_MALFORMED_WQE",
};

static bool is_atomic(enum cc_opcode op)
{
	return op == CC_WR_ATOMIC_FETCH_ADD || op == CC_WR_ATOMIC_CMP_SWP;
}

static bool is_send(enum cc_opcode op)
{
	return op == CC_WR_SEND || op == CC_WR_SEND_WITH_IMM;
}

/* An atomic operates on one naturally aligned 8-byte word (IBA 9.4.5);
 * anything else is an invalid request, NAKed (rxe: ERR_MISALIGNED_ATOMIC,
 * class C, AETH_NAK_INVALID_REQ).  rxe finds the misalignment only when it
 * executes, after the R_Key; it is checked first here, as a property of
 * the request alone, so an atomic wrong in both ways is an invalid
 * request.  (rxe's own check_op_valid compares the QP's access flags,
 * which the schedules do not model.) */
static enum cc_resp_state check_op_valid(const struct cc_resp_req *q)
{
	if (is_atomic(q->opcode) && (q->len != 8 || (q->va & 7)))
		return CC_RESP_ERR_INV_REQ;
	return CC_RESP_CHK_RESOURCE;
}

/* A packet that consumes a receive WQE finds none: RNR NAK, retried by
 * the requester while rnr_retry lasts (IBA 9.7.5.2.8; rxe check_resource,
 * class B: nothing else happens).  Before the R_Key, as in rxe: a
 * WRITE_WITH_IMM that would fail both is first an RNR.  The responder
 * resources of READs and atomics (max_dest_rd_atomic) are not modelled:
 * the requester keeps within them (IBA 9.4.4). */
static enum cc_resp_state check_resource(const struct cc_resp_req *q, const struct cc_resp_qp *p)
{
	if (q->takes_rwqe && !p->recv)
		return CC_RESP_ERR_RNR;
	return CC_RESP_CHK_LENGTH;
}

/* A SEND longer than its receive WQE's scatter list: NAK invalid request
 * (rxe ERR_LENGTH, class C; IBA C9-92 on lengths).  rxe finds it while
 * copying (send_data_in: -ENOSPC); the model knows the whole message's
 * length at its first packet and checks there. */
static enum cc_resp_state check_length(const struct cc_resp_req *q, const struct cc_resp_qp *p)
{
	if (q->takes_rwqe && is_send(q->opcode)) {
		uint32_t room = p->recv->num_sge ? p->recv->sge.length : 0;

		if (q->len > room)
			return CC_RESP_ERR_LENGTH;
	}
	return CC_RESP_CHK_RKEY;
}

/* The access right a remote opcode needs on the target MR (IBA 10.6.3). */
static uint32_t remote_access(enum cc_opcode op)
{
	if (op == CC_WR_RDMA_READ)
		return CC_ACCESS_REMOTE_READ;
	return is_atomic(op) ? CC_ACCESS_REMOTE_ATOMIC : CC_ACCESS_REMOTE_WRITE;
}

/* R_Key, access right and bounds, over the whole message, at the packet
 * that carries the RETH or AtomicETH (its first): an R_Key that names no
 * MR, an MR without the right, or a range outside it is a remote access
 * error (IBA 10.6.3, 9.7.5.2.1; rxe check_rkey → ERR_RKEY_VIOLATION,
 * class C).  A zero-length READ or WRITE checks no R_Key (IBA C9-88). */
static enum cc_resp_state check_rkey(const struct cc_resp_req *q, const struct cc_resp_qp *p,
				     struct cc_resp_found *f)
{
	if (!q->first || is_send(q->opcode) || q->len == 0)
		return CC_RESP_CHK_RECV_KEY;
	f->mr = cc_exec_find_mr(p->rs, p->keys, q->rkey, q->va, q->len, remote_access(q->opcode));
	return f->mr ? CC_RESP_CHK_RECV_KEY : CC_RESP_ERR_RKEY_VIOLATION;
}

/* The receive WQE's own L_Key over its scatter list, for a SEND that
 * lands data there: a bad one is the responder's fault, NAK remote
 * operational error (rxe send_data_in → ERR_MALFORMED_WQE, class A).
 * After the length check, as rxe finds ENOSPC before a bad key. */
static enum cc_resp_state check_recv_key(const struct cc_resp_req *q, const struct cc_resp_qp *p,
					 struct cc_resp_found *f)
{
	if (!q->takes_rwqe || !is_send(q->opcode) || !p->recv->num_sge)
		return CC_RESP_EXECUTE;
	f->recv_mr = cc_exec_find_mr(p->rs, p->keys, p->recv_lkey, p->recv->sge.offset,
				     p->recv->sge.length, CC_ACCESS_LOCAL_WRITE);
	return f->recv_mr || q->len == 0 ? CC_RESP_EXECUTE : CC_RESP_ERR_MALFORMED_WQE;
}

enum cc_resp_state cc_resp_check(const struct cc_resp_req *q, const struct cc_resp_qp *p,
				 struct cc_resp_found *f)
{
	enum cc_resp_state s = CC_RESP_CHK_OP_VALID;

	*f = (struct cc_resp_found){ NULL, NULL };
	for (;;) {
		switch (s) {
		case CC_RESP_CHK_OP_VALID:
			s = check_op_valid(q);
			break;
		case CC_RESP_CHK_RESOURCE:
			s = check_resource(q, p);
			break;
		case CC_RESP_CHK_LENGTH:
			s = check_length(q, p);
			break;
		case CC_RESP_CHK_RKEY:
			s = check_rkey(q, p, f);
			break;
		case CC_RESP_CHK_RECV_KEY:
			s = check_recv_key(q, p, f);
			break;
		default:
			return s;
		}
	}
}

enum cc_nak cc_resp_nak(enum cc_resp_state s)
{
	switch (s) {
	case CC_RESP_ERR_RNR:
		return CC_NAK_RNR;
	case CC_RESP_ERR_INV_REQ:
	case CC_RESP_ERR_LENGTH:
		return CC_NAK_INV_REQ;
	case CC_RESP_ERR_RKEY_VIOLATION:
		return CC_NAK_REM_ACCESS;
	case CC_RESP_ERR_MALFORMED_WQE:
		return CC_NAK_REM_OP;
	default:
		return CC_NAK_NONE;
	}
}

/* The requester's WQE completes with the NAK's status (IBA 9.7.5.2.1 →
 * ibv_wc_status; rxe_comp.c: AETH_NAK_INVALID_REQ → IB_WC_REM_INV_REQ_ERR,
 * AETH_NAK_REM_ACC_ERR → IB_WC_REM_ACCESS_ERR, AETH_NAK_REM_OP_ERR →
 * IB_WC_REM_OP_ERR; an RNR NAK once its retries are spent). */
enum cc_wc_status cc_nak_wc(enum cc_nak n)
{
	switch (n) {
	case CC_NAK_RNR:
		return CC_WC_RNR_RETRY_EXC_ERR;
	case CC_NAK_INV_REQ:
		return CC_WC_REM_INV_REQ_ERR;
	case CC_NAK_REM_ACCESS:
		return CC_WC_REM_ACCESS_ERR;
	case CC_NAK_REM_OP:
		return CC_WC_REM_OP_ERR;
	default:
		return CC_WC_SUCCESS;
	}
}

/* The receive WQE a refused SEND consumed completes with the local
 * error: IBV_WC_LOC_LEN_ERR for a buffer too short (rxe completes it with
 * IB_WC_REM_INV_REQ_ERR; the executors keep ibv_poll_cq(3)'s "Local
 * Length Error", what the receiving side's application sees), and
 * IBV_WC_LOC_PROT_ERR for its own bad L_Key.  A WRITE_WITH_IMM refused
 * for its R_Key completes it with IBV_WC_REM_ACCESS_ERR (rxe do_complete
 * after do_class_ac_error). */
enum cc_wc_status cc_resp_recv_wc(enum cc_resp_state s)
{
	switch (s) {
	case CC_RESP_ERR_LENGTH:
		return CC_WC_LOC_LEN_ERR;
	case CC_RESP_ERR_MALFORMED_WQE:
		return CC_WC_LOC_PROT_ERR;
	case CC_RESP_ERR_RKEY_VIOLATION:
		return CC_WC_REM_ACCESS_ERR;
	default:
		return CC_WC_SUCCESS;
	}
}
