/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/bound.h — the alpha-beta lower bound on a schedule's simulated time,
 * from the fabric's own parameters and the network's paths.
 *
 * No run can beat it: it counts only what every rank must pay on the path
 * it cannot avoid (sim/bound.c derives each term).  A simulated time below
 * it, or a bus bandwidth above the link rate, is a model bug, and `cclab
 * sim` reports it as one.
 */
#ifndef CCLAB_SIM_BOUND_H
#define CCLAB_SIM_BOUND_H

#include "core/schedule.h"
#include "sim/net.h"
#include "sim/params.h"
#include "sim/time.h"

struct sim_bound {
	sim_time_ps alpha_ps; /* latency: first byte out, last byte in */
	sim_time_ps beta_ps;  /* serialization of the bounding port's bytes */
	sim_time_ps total_ps;
};

/* The bound for schedule s on finished network *net (the one the run
 * uses: sim_topo_net_make() for --topology ring|star) of fabric f.  0 for
 * a schedule that sends nothing, or a network of another rank count. */
struct sim_bound sim_bound(const struct cc_schedule *s, const struct sim_params *f,
			   const struct sim_net *net);

static inline sim_time_ps sim_bound_ps(const struct cc_schedule *s, const struct sim_params *f,
				       const struct sim_net *net)
{
	return sim_bound(s, f, net).total_ps;
}

#endif /* CCLAB_SIM_BOUND_H */
