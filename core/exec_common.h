/* SPDX-License-Identifier: BSD-3-Clause */
/* core/exec_common.h — what every executor of a schedule does the same way:
 * the reverse dependency lists it walks when an op completes, the memory
 * keys it hands out, and the key check an RNIC makes. */
#ifndef CCLAB_CORE_EXEC_COMMON_H
#define CCLAB_CORE_EXEC_COMMON_H

#include <stdint.h>

#include "schedule.h"

/* For rank schedule rs of n ops: deps_left[i] = ops op i waits for, and the
 * ops that wait for op i as users[users_first[i] .. users_first[i + 1]).
 * deps_left has n entries, users_first n + 2 (zeroed by the caller),
 * users rs->ndeps. */
void cc_exec_users(const struct cc_rank_sched *rs, uint32_t *deps_left, uint32_t *users_first,
		   uint32_t *users);

/* Keys of rank r's MRs, one per MR, as mlx5's look: an MR index in the
 * upper 24 bits, a variant byte from the seed below; lkey == rkey.
 * Distinct across ranks, so a key sent to the wrong peer is caught too. */
void cc_exec_keys(const struct cc_rank_sched *rs, uint32_t r, uint64_t seed, uint32_t *key);

/* The MR of rs whose key (keys[m]) is `key` and that covers [off, off+len)
 * of its buffer with every right in `access`; NULL if none (an RNIC's
 * L_Key / R_Key check, IBA 10.6.3). */
const struct cc_mr *cc_exec_find_mr(const struct cc_rank_sched *rs, const uint32_t *keys,
				    uint32_t key, uint64_t off, uint64_t len, uint32_t access);

/* Runs reduce or copy op o on host memory (mem[b]: buffer b): the
 * arithmetic of core/dtype.h, then the second destination, as NCCL's
 * reduceCopy writes both; operands in lines are unpacked and packed
 * (core/proto.h).  0, or -EAGAIN with nothing written when a source in
 * lines is not all there yet (some line lacks its flag): try again. */
int cc_exec_calc_host(const struct cc_op *o, uint8_t *const *mem);

/* An op of a kind no executor knows: cc_schedule_validate() refuses
 * those, so a run that meets one was handed a schedule nobody checked.
 * Every executor ends the same way, a message naming it and abort(): an
 * internal error, never a silent skip. */
_Noreturn void cc_exec_bad_kind(const char *executor, uint32_t rank, uint32_t op, int kind);

#endif /* CCLAB_CORE_EXEC_COMMON_H */
