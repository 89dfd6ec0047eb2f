/* SPDX-License-Identifier: MIT */
/* The ops a rank has parked: poll_cq and wait_mem ops whose CQE or word is
 * not there yet.
 *
 * The parked list keeps its order (what a scan of it visits, and what a
 * stuck run names); beside it, each op's place in the list and, per
 * buffer and per CQ, the ops waiting on it, so that a write into a
 * watched buffer or a new CQE looks only at its own waiters instead of
 * every parked op of the rank (a 64-rank tree over 16 channels parks ~600
 * at once, its polls on one CQ). */
#ifndef CCLAB_SIM_PARK_H
#define CCLAB_SIM_PARK_H

#include <stddef.h>
#include <stdint.h>

#include "core/schedule.h"

struct sx_waiters {
	uint32_t *op, n, cap;
};

struct sx_park {
	uint32_t *list, n;          /* the parked ops, in parking order */
	uint32_t *pos;              /* per op: its index in list */
	struct sx_waiters *on_buf;  /* per buffer: its parked wait_mems */
	/* parked poll_cqs by (CQ, wr_id): chains of op + 1 (0 ends one);
	 * a rank's QPs often share one CQ, so a per-CQ list would be all */
	uint32_t *poll_head, *poll_next, poll_mask;
	bool spans;     /* pos and poll_next are cc_span_new()'s, of nops */
	uint32_t nops;
};

/* 0 or -ENOMEM; adds what it allocated to *bytes.  A generated schedule
 * (rs's ops made as the run goes, core/gen.h) gets its per-op arrays as
 * reserved address space, and sx_park_drop() gives back those of ops
 * [from, to), none of them parked, from op `floor` on (cc_span_drop()). */
int sx_park_init(struct sx_park *pk, const struct cc_schedule *s, uint32_t r, size_t *bytes);
void sx_park_drop(struct sx_park *pk, uint32_t floor, uint32_t from, uint32_t to);
void sx_park_free(struct sx_park *pk, const struct cc_schedule *s, uint32_t r);

void sx_park_add(struct sx_park *pk, const struct cc_rank_sched *rs, uint32_t op);
/* Takes list[j] out (the last entry moves into its place, as it always
 * has: the order later scans see) and returns its op. */
uint32_t sx_park_take(struct sx_park *pk, const struct cc_rank_sched *rs, uint32_t j);
/* The parked poll on `cq` for `wr_id` nearest the front of the list (the
 * one a scan would meet first): its index in list, or UINT32_MAX. */
uint32_t sx_park_find_poll(const struct sx_park *pk, const struct cc_rank_sched *rs,
			   uint32_t cq, uint64_t wr_id);

#endif
