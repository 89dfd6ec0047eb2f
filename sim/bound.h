/* sim/bound.h — the alpha-beta lower bound on a schedule's simulated time,
 * from the fabric's own parameters.
 *
 * No run can beat it: it counts only what every rank must pay on the path
 * it cannot avoid (sim/bound.c derives each term).  A simulated time below
 * it, or a bus bandwidth above the link rate, is a model bug, and `cclab
 * sim` reports it as one.
 */
#ifndef CCLAB_SIM_BOUND_H
#define CCLAB_SIM_BOUND_H

#include "core/schedule.h"
#include "sim/params.h"
#include "sim/time.h"
#include "sim/topo.h"

struct sim_bound {
	sim_time_ps alpha_ps; /* latency: first byte out, last byte in */
	sim_time_ps beta_ps;  /* serialization of the busiest port's bytes */
	sim_time_ps total_ps;
};

/* The bound for schedule s on topology topo of fabric f.  0 for a schedule
 * that sends nothing. */
struct sim_bound sim_bound(const struct cc_schedule *s, const struct sim_params *f,
			   enum sim_topo_kind topo);

static inline sim_time_ps sim_bound_ps(const struct cc_schedule *s, const struct sim_params *f,
				       enum sim_topo_kind topo)
{
	return sim_bound(s, f, topo).total_ps;
}

#endif /* CCLAB_SIM_BOUND_H */
