/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/physics.h — what a simulated time may not do, whoever ran it
 * (`cclab sim`, `cclab run`, `cclab tune`, `cclab validate`, the property
 * and fuzz tests): beat the alpha-beta bound of its schedule (sim/bound.h),
 * or give a bus bandwidth that no rank's ports could carry
 * (sim_topo_rank_rate()).  Either is a model bug. */
#ifndef CCLAB_SIM_PHYSICS_H
#define CCLAB_SIM_PHYSICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/schedule.h"
#include "sim/net.h"
#include "sim/params.h"
#include "sim/time.h"

/* Whether a completed run of collective p at `size` bytes (nccl-tests'
 * size) obeys physics on network net: time_ps not below bound_ps
 * (sim_bound_ps() of its schedule), and no more bytes through one rank's
 * ports than they carry (sim_topo_rank_rate()): algbw times
 * cc_port_factor(p) — the busbw, or for an algorithm that reduces in the
 * switch (NVLS allreduce) the algbw itself; not checked for one rank,
 * whose copy crosses no link.  false with what it broke in why. */
bool sim_physical(const struct sim_net *net, const struct sim_params *f,
		  const struct cc_coll_params *p, uint64_t size, sim_time_ps time_ps,
		  sim_time_ps bound_ps, char *why, size_t len);

#endif /* CCLAB_SIM_PHYSICS_H */
