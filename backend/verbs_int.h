/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/verbs_int.h — the verbs executor's state, shared by its setup
 * (verbs_setup.c: resources, exchange, connection) and its run
 * (verbs_exec.c: iterations, ops, completions).  Not for other users. */
#ifndef CCLAB_BACKEND_VERBS_INT_H
#define CCLAB_BACKEND_VERBS_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "backend/verbs_exec.h"

/* wr_id of the zero-length WRITE that drains QP q (the WRs of the
 * schedule carry their op index as wr_id). */
#define VX_DRAIN_WR_ID(q) (UINT64_MAX - (uint64_t)(q))

struct vx_cq {
	struct ibv_cq *cq;    /* for ibv_poll_cq, or the one behind cqx */
	struct ibv_cq_ex *cqx; /* NULL when the device has no ibv_create_cq_ex */
};

struct vx_qp {
	struct ibv_qp *qp;
	uint32_t psn;
	struct ibv_send_wr *head, *tail; /* posted, doorbell not yet rung */
	uint32_t pending;
	bool tail_unsignaled; /* the last WQE handed to the NIC had no CQE */
};

/* A peer's MR as the exchange delivered it. */
struct vx_rmr {
	uint64_t addr, len;
	uint32_t rkey;
};

/* A completion seen on a CQ, until a poll_cq op reaps it. */
struct vx_cqe {
	uint64_t wr_id; /* the schedule's */
	uint32_t cq;
	uint8_t state;  /* VX_EMPTY, VX_PRESENT, VX_REAPED */
	uint32_t qp, op, bytes;
};
enum { VX_EMPTY, VX_PRESENT, VX_REAPED };
enum { VX_BUF_NONE, VX_BUF_HOST, VX_BUF_PINNED, VX_BUF_GPU };

struct vx {
	struct cc_verbs_ctx *v;
	struct cc_boot *b;
	const struct cc_schedule *s;
	const struct cc_rank_sched *rs;
	uint32_t rank;
	const struct cc_verbs_run_opts *o;
	struct cc_verbs_result *res;

	/* resources */
	uint8_t **mem;  /* each buffer, as the CPU and the RNIC address it */
	uint8_t **dmem; /* ... as kernels do (GPU runs: verbs_gpu.c), else NULL */
	uint8_t *kind;  /* how each was allocated: VX_BUF_* */
	struct ibv_mr **mr;
	struct vx_cq *cq;
	struct vx_qp *qp;
	struct vx_rmr **rmr; /* [rank][mr], every rank's */
	uint32_t *nrmr;
	enum cc_verbs_clock clock;

	/* prepared work requests, one per op (unused for other kinds) */
	struct ibv_send_wr *swr;
	struct ibv_recv_wr *rwr;
	struct ibv_sge *sge;
	uint64_t *inline_val;

	/* one iteration's progress */
	uint32_t *deps_left, *users_first, *users;
	uint32_t *ready, ready_head, ready_tail; /* FIFO: ops ready to run */
	uint32_t *parked, nparked;               /* poll_cq / wait_mem not yet satisfied */
	uint32_t ndone;
	struct vx_cqe *tab; /* open addressing on (cq, wr_id) */
	uint32_t tab_mask;
	uint64_t cqes_expected, cqes_seen;
	uint64_t t0_ns;                    /* CLOCK_MONOTONIC at the iteration's start */
	uint64_t t0_hw;                    /* the device clock then (CC_VERBS_CLOCK_HCA/WALLCLOCK) */
	bool tracing;
};

uint64_t vx_now_ns(void);

/* verbs_gpu.c: buffers in GPU memory and pinned host memory, their MRs,
 * the reduce and copy ops as kernels, and host copies in and out. */
int vx_gpu_check(const struct vx *x, char *err, size_t errlen);
int vx_buf_alloc(struct vx *x, uint32_t b, char *err, size_t errlen);
void vx_buf_free(struct vx *x, uint32_t b);
struct ibv_mr *vx_reg_mr(struct vx *x, uint32_t m, int *e, char *err, size_t errlen);
int vx_put(struct vx *x, uint32_t b, const void *src, size_t n, char *err, size_t errlen);
int vx_get(struct vx *x, uint32_t b, void *dst, size_t n, char *err, size_t errlen);
int vx_gpu_calc(struct vx *x, const struct cc_op *o, char *err, size_t errlen);

/* verbs_setup.c */
int vx_setup(struct vx *x, char *err, size_t errlen);
void vx_teardown(struct vx *x);

#endif /* CCLAB_BACKEND_VERBS_INT_H */
