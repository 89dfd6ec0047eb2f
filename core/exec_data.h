/* SPDX-License-Identifier: BSD-3-Clause */
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

#include "core/exec.h"
#include "schedule.h"

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

/* The data executor as core/exec.h's descriptor: no time, always data. */
extern const struct cc_executor_ops cc_data_executor;

#endif
