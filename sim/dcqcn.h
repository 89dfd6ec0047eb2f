/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/dcqcn.h — DCQCN's reaction point: the sending rate of one QP.
 *
 * Zhu et al., "Congestion Control for Large-Scale RDMA Deployments"
 * (SIGCOMM 2015) section 3, with the parameters and fixed-point forms of
 * ConnectX firmware (struct sim_cc_params, NVIDIA's "DCQCN CC Parameters"):
 *
 *   alpha     10-bit fixed point (1024 = 1).  Once per alpha_period:
 *             alpha = g * alpha + (1024 - g) if a CNP came in the period,
 *             else alpha = g * alpha (g = alpha_g / 1024).  The first CNP
 *             of a QP at full rate sets alpha = initial_alpha.
 *   cut       on a CNP, at most once per rate_reduce_period (a CNP inside
 *             the period is acted on when it ends): target = current
 *             rate if clamp_tgt_rate, or if clamp_tgt_rate_ati and a timer
 *             step came since the last cut (ConnectX's defaults: 0 and 1;
 *             the paper's rule is clamp_tgt_rate 1), else the target
 *             stays; rate = rate * (1 - alpha / 2^rate_gd), and never
 *             below min_dec_pct % of itself nor below min_rate.  Both
 *             increase counters start over.
 *   increase  every time_reset of time (T) and every byte_reset bytes sent
 *             (B), one step, the counter of its kind going up after it:
 *               both T and B below threshold F: fast recovery;
 *               both at F or above:             hyper increase,
 *                                  target += hai * (min(T, B) - F + 1);
 *               otherwise:                      additive, target += ai;
 *             then rate = (rate + target) / 2 (fast recovery moves only
 *             the rate).  Target never exceeds the line rate; once both
 *             are at it the QP is unlimited again.
 *
 * The state is advanced lazily: sim_dcqcn_rate() plays the timer steps and
 * any delayed cut due by `now` in time order, so a QP costs the engine no
 * event of its own (the RNIC's pacing wakes it when it may send).
 * Integer arithmetic throughout: runs repeat bit for bit.
 */
#ifndef CCLAB_SIM_DCQCN_H
#define CCLAB_SIM_DCQCN_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/params.h"
#include "sim/time.h"

struct sim_dcqcn {
	uint64_t line_bps;      /* the port's rate: the ceiling */
	uint64_t rate_bps;      /* current rate (RC) */
	uint64_t target_bps;    /* target rate (RT) */
	uint32_t alpha;         /* /1024 */
	bool limited;           /* below line rate or recovering: pacing applies */
	bool cnp_in_period;     /* a CNP came in the current alpha period */
	bool cut_pending;       /* a CNP came too soon after the last cut */
	sim_time_ps alpha_at;   /* start of the current alpha period */
	sim_time_ps last_cut;
	sim_time_ps next_timer; /* the increase timer's next expiry */
	uint32_t t_stage, b_stage;
	uint64_t bytes;         /* sent since the last byte-counter step */
	uint64_t cuts;          /* rate cuts applied */
};

void sim_dcqcn_init(struct sim_dcqcn *d, uint64_t line_bps);

/* A CNP for this QP arrived at `now`. */
void sim_dcqcn_cnp(struct sim_dcqcn *d, const struct sim_cc_params *p, sim_time_ps now);

/* The QP sent `bytes` (wire bytes) at `now`: the byte counter. */
void sim_dcqcn_sent(struct sim_dcqcn *d, const struct sim_cc_params *p, uint64_t bytes,
		    sim_time_ps now);

/* The rate the QP may send at, at `now` (time steps due by then played). */
uint64_t sim_dcqcn_rate(struct sim_dcqcn *d, const struct sim_cc_params *p, sim_time_ps now);

#endif /* CCLAB_SIM_DCQCN_H */
