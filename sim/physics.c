/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/physics.c — what a simulated time may not do (sim/physics.h). */
#include "sim/physics.h"

#include <inttypes.h>
#include <stdio.h>

#include "core/algo.h"
#include "core/results.h"
#include "sim/topo.h"

bool sim_physical(const struct sim_net *net, const struct sim_params *f,
		  const struct cc_coll_params *p, uint64_t size, sim_time_ps time_ps,
		  sim_time_ps bound_ps, char *why, size_t len)
{
	uint32_t nranks = p->nranks;
	double port_factor = cc_port_factor(p);
	uint64_t rate = sim_topo_rank_rate(net, f);
	double rank_gbps = (double)rate / 8 / 1e9; /* GB/s as nccl-tests': 1e9 B/s */
	char t[SIM_TIME_FMT_LEN], b[SIM_TIME_FMT_LEN];
	double algbw, busbw;
	size_t used = 0;

	if (len)
		why[0] = '\0';
	if (time_ps < bound_ps)
		used += (size_t)snprintf(why, len, "simulated time %s (%" PRIu64 " ps) is below "
					 "the alpha-beta lower bound %s (%" PRIu64 " ps)",
					 sim_time_fmt(time_ps, t, sizeof(t)), time_ps,
					 sim_time_fmt(bound_ps, b, sizeof(b)), bound_ps);
	/* One rank's copy crosses no link: it runs at memory speed. */
	if (nranks > 1 && cc_result_bw(size, (double)time_ps / 1e6, port_factor, &algbw, &busbw) &&
	    busbw > rank_gbps)
		used += (size_t)snprintf(why + (used < len ? used : len), used < len ? len - used : 0,
					 "%s%s %.6g GB/s exceeds what one rank's ports carry, "
					 "%.6g GB/s (%" PRIu64 " bit/s)", used ? "; " : "",
					 port_factor == cc_busbw_factor(p->coll, nranks)
						 ? "busbw" : "algbw (its N in and out of each rank)",
					 busbw, rank_gbps, rate);
	return used == 0;
}
