/* core/exec_data.h — the data executor: runs a schedule on in-process memory
 * with verbs semantics and checks the result against a reference.
 *
 * No time is modelled.  Hosts ops and WQEs are interleaved in an order drawn
 * from a seed (per-QP order kept), so a schedule that reads a buffer before
 * the completion or flag that guards it gives wrong results for some seeds:
 * races show up as #wrong, not as luck. */
#ifndef CCLAB_CORE_EXEC_DATA_H
#define CCLAB_CORE_EXEC_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "schedule.h"

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

struct cc_data_opts {
	uint64_t seed;       /* input values */
	uint64_t order_seed; /* interleaving of ranks and QPs */
	const struct cc_fault *faults;
	uint32_t nfaults;
	/* Called for each rank after the run, with its buffers (schedule's
	 * buffer order), before they are freed: for tests and debugging. */
	void (*inspect)(void *ctx, uint32_t rank, uint8_t *const *bufs);
	void *inspect_ctx;
};

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

struct cc_data_result {
	struct cc_run_error err;  /* status CC_RUN_OK on success */
	uint64_t wrong;           /* output elements differing from the reference */
	uint64_t *data_bytes;     /* per rank: CC_PAYLOAD_DATA bytes actually sent */
	uint64_t *wire_msgs;      /* per rank: WQEs executed by its NIC */
	uint64_t *ops_done;       /* per rank: ops completed */
	uint32_t nranks;
};

/* Runs s.  Returns 0 when the run could be carried out (res->err says how it
 * ended), -E2BIG when its buffers would take more than 3/4 of the machine's
 * memory, -ENOMEM when memory could not be had.  Free with
 * cc_data_result_free. */
int cc_data_run(const struct cc_schedule *s, const struct cc_data_opts *o,
		struct cc_data_result *res);
void cc_data_result_free(struct cc_data_result *res);

#endif
