/* SPDX-License-Identifier: BSD-3-Clause */
/* core/exec_data_int.h — the data executor's state, shared by its host side
 * (exec_data.c: ops, scheduling) and its NIC side (exec_data_nic.c: WQE
 * execution).  Internal to core/. */
#ifndef CCLAB_CORE_EXEC_DATA_INT_H
#define CCLAB_CORE_EXEC_DATA_INT_H

#include "check_io.h"
#include "exec_common.h"
#include "word.h"
#include "exec_data.h"

struct dx_cqe {
	uint64_t wr_id;
	enum cc_wc_status status;
	uint32_t qp;
	uint32_t op; /* the posting op, for error messages */
	uint32_t byte_len;
	uint32_t imm;
	int is_recv;
};

struct dx_cq {
	struct dx_cqe *e;
	uint32_t n, cap;
};

/* A work queue: the ops that posted its WQEs, in order, append-only.
 * [head, tail) are posted and not yet executed. */
struct dx_queue {
	uint32_t *op;
	uint32_t head, tail, cap;
};

struct dx_qp {
	struct dx_queue sq, rq;
	uint32_t rung;       /* SQ WQEs handed to the NIC by doorbells */
	uint64_t sq_posted;  /* WQEs posted on the SQ since creation */
	uint64_t sq_retired; /* of those, freed by a reaped signaled completion */
	uint64_t rq_posted, rq_retired; /* retired: its CQE reaped */
	int error;           /* QP in the error state (IBA 10.3.1) */
	int rnr_blocked;     /* head WQE waits for a receive WQE at the peer */
	int innet_wait;      /* head SEND waits for the rest of its in-network
			      * reduction's members (exec_data_nic.c) */
	int active;          /* in the scheduler's active list */
};

struct dx_rank {
	uint8_t **mem;       /* per buffer */
	uint32_t *key;       /* per MR: lkey == rkey, as mlx5 gives */
	uint32_t *deps_left; /* per op */
	uint32_t *users_first, *users; /* CSR: ops that depend on op i */
	uint8_t *done;
	uint64_t *sq_seq;    /* per op (post_send): its position in its SQ */
	uint32_t *wqe_lkey, *wqe_rkey; /* per op: keys as resolved at post time */
	uint32_t *ready, nready;
	uint32_t *parked, nparked; /* poll_cq / wait_mem ops waiting */
	struct dx_qp *qp;
	struct dx_cq *cq;
	uint32_t ndone;
	int active;
};

struct dx {
	const struct cc_schedule *s;
	const struct cc_data_opts *o;
	struct dx_rank *rk;
	uint32_t *active, nactive; /* entity ids: rank r, or nranks + qp_base[r] + q */
	uint32_t *qp_base; /* first global QP number of each rank */
	uint32_t *qp_rank; /* rank of each global QP number */
	uint32_t nentities;
	uint64_t rng;
	struct cc_data_result *res;
	struct dx_cqe first_err; /* first error completion generated */
	uint32_t first_err_rank;
	int have_err;
	int nomem;
	struct cc_check_io io;
};

uint64_t dx_rand(struct dx *x);
void dx_activate_rank(struct dx *x, uint32_t r);
void dx_activate_qp(struct dx *x, uint32_t r, uint32_t q);
void dx_push_cqe(struct dx *x, uint32_t r, uint32_t cq, const struct dx_cqe *c);
void dx_mem_written(struct dx *x, uint32_t r, uint32_t buf, uint64_t off, uint64_t len);
void dx_set_error(struct dx *x, enum cc_run_status st, enum cc_wc_status wc, uint32_t r,
		  uint32_t qp, uint32_t op, const char *what);

/* NIC side (exec_data_nic.c). */
void dx_nic_step(struct dx *x, uint32_t r, uint32_t q);
void dx_qp_to_error(struct dx *x, uint32_t r, uint32_t q);
void dx_rnr_expire(struct dx *x, uint32_t r, uint32_t q);
void dx_innet_wake(struct dx *x, uint32_t r, uint32_t q);

#endif
