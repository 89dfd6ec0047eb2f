/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/verbs_exec.h — the verbs executor: one rank of a schedule on a real
 * RNIC through libibverbs, the same schedule the data executor checks and
 * the simulator times.
 *
 * A process is one rank.  It opens its device once (cc_verbs_open) and runs
 * one schedule per size (cc_verbs_run):
 *
 *   setup    buffers (page-aligned host memory), one MR per schedule MR
 *            (ibv_reg_mr with the schedule's access flags), CQs (with
 *            completion timestamps where the device has them), RC QPs
 *            moved to INIT (backend/verbs_attr.h);
 *   exchange every rank's QPNs, first PSNs, LID/GID and MR address, rkey
 *            and length over the bootstrap (backend/bootstrap.h), in the
 *            messages of backend/bootstrap_msg.h; a rank whose setup
 *            failed sends its reason instead, so every rank stops with it;
 *   connect  RTR with the peer's QPN/PSN/address, RTS, then a barrier so no
 *            WQE reaches a QP that is not yet ready to receive;
 *   iterate  warm-up then timed iterations (nccl-tests' -w and -n).  Each
 *            iteration zeroes the control words (credits, flags), poisons
 *            the outputs, passes a barrier, then runs the rank's ops in
 *            dependency order: post_recv -> ibv_post_recv; post_send builds
 *            the WR and chains it on its QP; doorbell -> one ibv_post_send of
 *            the chain (a post list: one MMIO write for the batch, as the
 *            schedule says); poll_cq -> waits for that wr_id's CQE;
 *            wait_mem -> spins on the 64-bit word a peer's WRITE sets;
 *            reduce / copy on the CPU.  The time is from the barrier to the
 *            rank's last op.  Then every signaled WQE is drained (a QP whose
 *            last WQE is unsignaled gets a signaled zero-length WRITE, so its
 *            send queue is empty again) and a barrier ensures no peer still
 *            writes into this rank before the next iteration resets it;
 *   check    after the last iteration, the output against the reference of
 *            core/reference.h (#wrong), as the data executor does.
 *
 * Errors are reported, never waited out: a failed completion names rank,
 * QP, peer, op, tag, wr_id and ibv_wc_status_str, and its QPs are moved to
 * the error state so what they hold is flushed; an op that sees no progress
 * for timeout_ms names what it waits for and from which peer.
 */
#ifndef CCLAB_BACKEND_VERBS_EXEC_H
#define CCLAB_BACKEND_VERBS_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "backend/bootstrap.h"
#include "backend/gpu_path.h"
#include "core/exec.h"
#include "core/schedule.h"
#include "core/trace.h"

#define CC_VERBS_DEFAULT_TIMEOUT_MS 10000

/* How a CQE's time is known. */
enum cc_verbs_clock {
	CC_VERBS_CLOCK_SOFTWARE, /* clock_gettime when the CQE is polled */
	CC_VERBS_CLOCK_HCA,      /* the RNIC's free-running clock (hca_core_clock) */
	CC_VERBS_CLOCK_WALLCLOCK, /* the RNIC's real-time clock, in ns */
	CC_VERBS_CLOCK_COUNT
};
extern const char *const cc_verbs_clock_name[CC_VERBS_CLOCK_COUNT];

struct cc_verbs_opts {
	const char *device;  /* NULL or "": the first device with an active port */
	uint8_t port;        /* 0: its first active port */
	int gid_index;       /* < 0: cc_verbs_default_gid() (RoCE), none on IB */
	uint32_t mtu_bytes;  /* path MTU asked for; 0: the port's active MTU */
	uint8_t traffic_class;
	int timeout_ms;      /* no progress for this long is an error; <= 0: default */
};

/* An open device, port and address; reused for every size. */
struct cc_verbs_ctx {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	char device[IBV_SYSFS_NAME_MAX];
	uint8_t port;
	bool roce;
	int gid_index;       /* -1 on InfiniBand */
	union ibv_gid gid;
	uint16_t lid;
	enum ibv_mtu active_mtu;
	uint32_t mtu_bytes;
	uint8_t traffic_class;
	uint32_t max_qp_rd_atom;      /* the device's caps on max_dest_rd_atomic */
	uint32_t max_qp_init_rd_atom; /* ... and on max_rd_atomic */
	uint64_t hca_core_clock_khz; /* 0 when the device has no completion timestamps */
	int timeout_ms;
};

/* Opens the device and checks the port and GID: 0, or -ENODEV / -EINVAL /
 * -errno with a message in err that says what to do (no RDMA device, no
 * active port, a GID index the port does not have). */
int cc_verbs_open(const struct cc_verbs_opts *o, struct cc_verbs_ctx *v, char *err,
		  size_t errlen);
void cc_verbs_close(struct cc_verbs_ctx *v);

struct cc_verbs_run_opts {
	uint32_t warmup, iters; /* iters >= 1 */
	uint64_t seed;          /* inputs: core/reference.h */
	bool check;             /* compare the output with the reference */
	struct cc_trace *trace; /* NULL, or the last timed iteration's events */
	/* Faults injected by tests (core/exec_data.h): a post op of this
	 * rank with a corrupted rkey or lkey, or a post_recv not posted, as
	 * the data executor and the simulator do. */
	const struct cc_fault *faults;
	uint32_t nfaults;
	int rnr_retry; /* < 0: the schedule's (7: forever, as NCCL); else 0..7 */
	/* GPU buffers: NULL refuses a schedule with CC_MEM_GPU buffers;
	 * else this rank's GPU, already current (cc_gpu_select), and how
	 * the staging meets the RNIC (backend/gpu_path.h). */
	const struct cc_verbs_gpu *gpu;
};

struct cc_verbs_gpu {
	int device;
	enum cc_gpu_path path;
};

/* Whether this device's provider and kernel take dma-buf MRs: NCCL's
 * ncclIbDmaBufSupport probe, ibv_reg_dmabuf_mr(pd, 0, 0, 0, -1, 0), which
 * fails with EOPNOTSUPP or EPROTONOSUPPORT without support (EBADF, the fd
 * -1, means the request was understood).  1 or 0. */
int cc_verbs_dmabuf_probe(struct cc_verbs_ctx *v);

struct cc_verbs_result {
	struct cc_run_error err;  /* CC_RUN_OK, or how the run ended */
	uint64_t wrong;           /* this rank's output elements off the reference */
	uint64_t data_bytes;      /* per iteration: CC_PAYLOAD_DATA bytes sent */
	uint64_t wqes;            /* per iteration: send WQEs posted */
	uint64_t doorbells;       /* per iteration: ibv_post_send calls */
	uint32_t iters;           /* timed iterations completed */
	double *iter_us;          /* their times, iters entries */
	double setup_us;          /* registration, exchange and connection */
	enum cc_verbs_clock clock;
};

/* Runs rank b->rank of s (s->nranks == b->world).  Returns 0 when the run
 * was carried out (res->err says how it ended), or a negative errno with a
 * message in err when it could not be: setup on this rank or another one
 * failed (-ENOMEM from registration says what RLIMIT_MEMLOCK allows), the
 * bootstrap failed, or s has multicast QPs (-EOPNOTSUPP: NVLink SHARP has
 * no verbs; cc_verbs_refuse_mcast()).  Free with cc_verbs_result_free(). */
/* -EOPNOTSUPP, and in err why a schedule with multicast QPs
 * (cc_schedule_has_mcast()) does not run here: before any device or
 * bootstrap is touched, by cc_verbs_run() and cc_verbs_executor alike. */
int cc_verbs_refuse_mcast(char *err, size_t errlen);
int cc_verbs_run(struct cc_verbs_ctx *v, struct cc_boot *b, const struct cc_schedule *s,
		 const struct cc_verbs_run_opts *o, struct cc_verbs_result *res, char *err,
		 size_t errlen);
void cc_verbs_result_free(struct cc_verbs_result *res);

/* The verbs executor as core/exec.h's descriptor (backend/verbs_ops.c),
 * its setting one of these. */
struct cc_verbs_exec {
	struct cc_verbs_ctx *v;        /* opened (cc_verbs_open) */
	struct cc_boot *boot;          /* this rank's, joined */
	struct cc_verbs_run_opts opts; /* warmup, iters, trace, rnr_retry */
};
extern const struct cc_executor_ops cc_verbs_executor;

#endif /* CCLAB_BACKEND_VERBS_EXEC_H */
