/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/verbs_gather.h — what the ranks of a verbs run send each other
 * after each size: their timing and counters (every rank gets every rank's,
 * so all agree on the row and the exit status), and at the end their trace
 * events (rank 0 gets them all, and writes the one trace file).
 *
 * Both go through the bootstrap's allgather (backend/bootstrap.h), whose
 * blobs are bounded (CC_BMSG_MAX_BLOB): the trace travels in rounds.
 * Encodings are fixed-size big-endian records, decoded with their length
 * checked first, as every bootstrap message is. */
#ifndef CCLAB_BACKEND_VERBS_GATHER_H
#define CCLAB_BACKEND_VERBS_GATHER_H

#include <stddef.h>
#include <stdint.h>

#include "backend/bootstrap.h"
#include "backend/verbs_exec.h"
#include "core/trace.h"

/* One rank's share of a size: its timed iterations' mean, fastest and
 * slowest (ns), and its counters per iteration. */
struct cc_verbs_rank_stats {
	uint32_t iters;
	uint64_t mean_ns, min_ns, max_ns;
	uint64_t wrong, data_bytes, wqes, doorbells;
	uint64_t setup_ns;
};

/* Every rank's stats into all[0 .. world).  0 or -errno with err set. */
int cc_verbs_gather_stats(struct cc_boot *b, const struct cc_verbs_result *mine,
			  struct cc_verbs_rank_stats *all, char *err, size_t errlen);

/* Every rank's events, in rank order, appended to *all on rank 0 (the
 * others' *all is left as it is).  0 or -errno with err set. */
int cc_verbs_gather_trace(struct cc_boot *b, const struct cc_trace *mine, struct cc_trace *all,
			  char *err, size_t errlen);

#endif /* CCLAB_BACKEND_VERBS_GATHER_H */
