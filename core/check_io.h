/* SPDX-License-Identifier: BSD-3-Clause */
/* core/check_io.h — a run's user buffers: deterministic inputs, poisoned
 * outputs, and #wrong against the reference.  Shared by every executor that
 * moves real bytes (the data executor, the simulator), so they check alike.
 *
 * Convention of every schedule builder: buffer 0 of a rank is its input
 * (CC_BUF_INPUT), buffer 1 its output (CC_BUF_OUTPUT).
 *
 * A schedule that computes no collective (core/p2p.h, the tests' hand-built
 * ones) says so with params.count 0: then nothing is filled or compared and
 * #wrong is 0, so every executor runs it like any other.  Its ranks still
 * need buffers 0 and 1, which the executors hand to these functions. */
#ifndef CCLAB_CORE_CHECK_IO_H
#define CCLAB_CORE_CHECK_IO_H

#include <stdbool.h>
#include <stdint.h>

#include "schedule.h"

struct cc_check_io {
	const struct cc_schedule *s;
	uint8_t *want; /* expected outputs, from the inputs (see check_io.c) */
};

/* 0 or -ENOMEM. */
int cc_check_io_init(struct cc_check_io *io, const struct cc_schedule *s);
void cc_check_io_free(struct cc_check_io *io);

/* Fills every rank's input (in[r], cc_coll_in_count elements) from seed,
 * computes the reference, and fills every output (out[r]) with the bitwise
 * complement of what it must become, so an element the schedule never
 * writes is always counted wrong. */
void cc_check_io_fill(struct cc_check_io *io, uint64_t seed, uint8_t *const *in,
		      uint8_t *const *out);

/* Output elements of all ranks that differ from the reference. */
uint64_t cc_check_io_wrong(const struct cc_check_io *io, uint8_t *const *out);

/* True when the schedule's buffers of all ranks (of its one rank, when
 * built for one: cc_schedule.one_rank), plus the reference, would
 * take more than 3/4 of the memory this process may use (util/mem_limit.h:
 * physical memory, ulimit -v and -d, the cgroup's limit): refused up front
 * rather than left to the OOM killer.  extra_bytes: the caller's own state. */
bool cc_check_io_too_big(const struct cc_schedule *s, bool buffers, double extra_bytes);

#endif
