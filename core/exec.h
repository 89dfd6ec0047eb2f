/* SPDX-License-Identifier: BSD-3-Clause */
/* core/exec.h — the contract every executor of a schedule keeps: the data
 * executor (core/exec_data.h: bytes in process memory, no time), the
 * simulator (sim/exec.h: bytes and time on a modelled fabric) and the verbs
 * executor (backend/verbs_exec.h: bytes on real RNICs).  What a run ends
 * with (a status, the WQE that failed and its work completion status, as
 * libibverbs reports it), the faults a test injects to see the error path
 * a real RNIC takes, and the executors' names.  An executor's own options
 * and counters stay in its header; what they all answer the same way is
 * here, so editing one executor's header cannot change another's contract. */
#ifndef CCLAB_CORE_EXEC_H
#define CCLAB_CORE_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/schedule.h"

/* The executors, in the order `cclab run` lists them (sim/scenario.h's
 * `executors:`). */
enum cc_executor { CC_EXEC_SIM, CC_EXEC_DATA, CC_EXEC_VERBS, CC_EXECUTOR_COUNT };
extern const char *const cc_executor_name[CC_EXECUTOR_COUNT]; /* "sim", "data", "verbs" */

/* Work completion status, with libibverbs' values (enum ibv_wc_status). */
enum cc_wc_status {
	CC_WC_SUCCESS = 0,
	CC_WC_LOC_LEN_ERR = 1,
	CC_WC_LOC_QP_OP_ERR = 2,
	CC_WC_LOC_PROT_ERR = 4,
	CC_WC_WR_FLUSH_ERR = 5,
	CC_WC_REM_INV_REQ_ERR = 9,
	CC_WC_REM_ACCESS_ERR = 10,
	CC_WC_REM_OP_ERR = 11,
	CC_WC_RETRY_EXC_ERR = 12,
	CC_WC_RNR_RETRY_EXC_ERR = 13,
};
const char *cc_wc_status_name(enum cc_wc_status s); /* "IBV_WC_REM_ACCESS_ERR" */

/* Faults injected by tests, to check that an executor answers like a real
 * RNIC: a key corrupted the way a stale or mistyped one would be, or a
 * post_recv that posts nothing (a receiver that fell behind: the peer's
 * SEND or WRITE WITH IMM meets an empty receive queue, RNR). */
enum cc_fault_kind { CC_FAULT_RKEY, CC_FAULT_LKEY, CC_FAULT_NO_RECV, CC_FAULT_KIND_COUNT };
/* As --fault names them: "rkey", "lkey", "norecv". */
extern const char *const cc_fault_kind_label[CC_FAULT_KIND_COUNT];


struct cc_fault {
	enum cc_fault_kind kind;
	uint32_t rank;
	uint32_t op; /* a post_send (or post_recv for LKEY) op of that rank */
};

/* The mask a key of op `op` of rank `rank` is XORed with: 0x80 for each
 * fault of `kind` (CC_FAULT_RKEY, CC_FAULT_LKEY) on it, the byte a stale
 * or mistyped key differs in.  Every executor corrupts keys through it. */
static inline uint32_t cc_fault_key_flip(const struct cc_fault *faults, uint32_t n,
					 enum cc_fault_kind kind, uint32_t rank, uint32_t op)
{
	uint32_t flip = 0;

	for (uint32_t f = 0; f < n; f++)
		if (faults[f].kind == kind && faults[f].rank == rank && faults[f].op == op)
			flip ^= 0x80;
	return flip;
}

/* True when faults[0 .. n) has one of `kind` on op `op` of rank `rank`. */
static inline int cc_fault_on(const struct cc_fault *faults, uint32_t n, enum cc_fault_kind kind,
			      uint32_t rank, uint32_t op)
{
	for (uint32_t f = 0; f < n; f++)
		if (faults[f].kind == kind && faults[f].rank == rank && faults[f].op == op)
			return 1;
	return 0;
}

/* 0 if fault f names an op of schedule s that it can act on: a rank and op
 * that exist, a post_send that carries an R_Key for CC_FAULT_RKEY, a post
 * with a local SGE for CC_FAULT_LKEY, a post_recv for CC_FAULT_NO_RECV.
 * Else -EINVAL and a message in err ("op 9 of rank 1 is a doorbell, not a
 * post_send"): a fault that matched nothing would leave the run clean and
 * the test that asked for it passing without having tested anything. */
int cc_fault_check(const struct cc_fault *f, const struct cc_schedule *s, char *err, size_t len);
/* "rkey:RANK:OP", "lkey:RANK:OP" or "norecv:RANK:OP", RANK and OP in
 * decimal digits up to 2^32 - 1 (a larger one is refused, never wrapped):
 * 0 and *out; -ENOENT when s names no such kind (it may be another
 * fault's text), -EINVAL with a message in err when the numbers are bad. */
int cc_fault_parse(const char *s, struct cc_fault *out, char *err, size_t len);

enum cc_run_status {
	CC_RUN_OK,
	CC_RUN_COMPLETION_ERROR, /* a WQE completed with an error status */
	CC_RUN_POST_ERROR,       /* ibv_post_* would have failed (queue full, ...) */
	CC_RUN_DEADLOCK,         /* ops left and nothing can progress */
	CC_RUN_EARLY_READ,       /* a reduce or copy read lines not all there */
	/* Stopped by a limit (the simulator's simulated-time or wall-clock
	 * limit; a build past its deadline) with ops left: no verdict on the
	 * schedule, which might have finished given longer.  A deadlock is
	 * only what can never progress. */
	CC_RUN_TIME_LIMIT,
};

struct cc_run_error {
	enum cc_run_status status;
	enum cc_wc_status wc; /* for CC_RUN_COMPLETION_ERROR */
	uint32_t rank, qp, op;
	uint64_t wr_id;
	char msg[256]; /* one line that names rank, QP, op and wr_id */
};

/* ---- one executor, as any caller drives it ----
 *
 * Each executor fills one descriptor (the data executor in
 * core/exec_data.c, the simulator in sim/exec_ops.c, the verbs executor
 * in backend/verbs_ops.c), so that code that runs "a schedule on each
 * executor" (the conformance tests, `cclab run`'s table, the CLI's size
 * loop) reads names, what the executor models and how a run ended from
 * it instead of switching on enum cc_executor.  A new executor (a flow-level model) is
 * one more descriptor in its own file. */

/* What every executor takes beside the schedule and its own setting. */
struct cc_exec_common {
	uint64_t seed;       /* input values (core/reference.h) */
	uint64_t order_seed; /* interleaving of ranks and QPs, where it has one */
	const struct cc_fault *faults;
	uint32_t nfaults;
	bool check;          /* carry data and count output elements off the reference */
	/* NULL, or a flag another thread sets to call the run off (the
	 * simulator stops at its next watchdog check; its result is not
	 * used).  The others run to their end. */
	const bool *cancel;
};

/* What an executor models: its capabilities. */
enum {
	CC_EXEC_CAP_TIME = 1u << 0,   /* a time per run: --trace means something */
	CC_EXEC_CAP_DATA = 1u << 1,   /* carries the bytes (always, or with check) */
	CC_EXEC_CAP_LINKS = 1u << 2,  /* a modelled network whose links it counts */
	CC_EXEC_CAP_DEVICE = 1u << 3, /* needs an RNIC and one process per rank */
};

struct cc_executor_ops {
	enum cc_executor id;
	unsigned caps;       /* CC_EXEC_CAP_* */
	size_t result_size;  /* bytes of its result struct */
	/* Runs s with c and ctx, the executor's own setting (the data
	 * executor: NULL or a struct cc_data_opts; the simulator: its
	 * struct cc_sim_opts, fabric and network; verbs: a struct
	 * cc_verbs_exec, device and bootstrap), c overriding the setting's
	 * seeds, faults and check.  0 when the run was carried out (how it
	 * ended: error()), or a negative errno and a message in err. */
	int (*run)(const struct cc_schedule *s, const struct cc_exec_common *c, const void *ctx,
		   void *res, char *err, size_t errlen);
	const struct cc_run_error *(*error)(const void *res);
	uint64_t (*wrong)(const void *res); /* 0 unless checked */
	double (*time_us)(const void *res);  /* NaN when it models no time */
	void (*result_free)(void *res);
};

/* The name of x ("data"), as `executors:` and `cclab run` say it. */
static inline const char *cc_executor_ops_name(const struct cc_executor_ops *x)
{
	return cc_executor_name[x->id];
}

#endif /* CCLAB_CORE_EXEC_H */
