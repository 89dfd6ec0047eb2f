/* SPDX-License-Identifier: BSD-3-Clause */
/* core/reference.h — what a collective's inputs are and what its output must
 * be, computed straight from the definition of the collective (NCCL's
 * "Collective Operations" page), independently of any schedule. */
#ifndef CCLAB_CORE_REFERENCE_H
#define CCLAB_CORE_REFERENCE_H

#include "schedule.h"

/* Fills rank's input buffer (cc_coll_in_count(p) elements). */
void cc_reference_input(const struct cc_coll_params *p, uint32_t rank, uint64_t seed, void *in);

/* Writes rank's expected output (cc_coll_out_count(p) elements).
 * Returns 0 or -ENOMEM. */
int cc_reference_output(const struct cc_coll_params *p, uint32_t rank, uint64_t seed, void *out);

/* The same from the ranks' input buffers (inputs[q] of rank q), for callers
 * that hold them already: allreduce, reduce-scatter and reduce fold the
 * whole input arrays (rank r of a reduce-scatter expects block r of the
 * result), all-gather concatenates, broadcast copies the root's.  out holds
 * max(in, out) count elements, and for all-to-all and sendrecv every rank's
 * expected output one after another (nranks * out elements). */
void cc_reference_from_inputs(const struct cc_coll_params *p, const void *const *inputs,
			      void *out);

#endif
