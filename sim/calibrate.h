/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/calibrate.h — fits a fabric's parameters (sim/params.h) to measured
 * point-to-point results, with the simulator in the loop.
 *
 * Each measured point is one size of a `cclab p2p --device --json` run:
 * perftest's test (op, mode, depths, iterations) and its figure (BW
 * average in MB/s for bw, t_typical in us for lat).  A candidate fabric
 * is judged by running the same tests in the simulator (the same schedule
 * the device ran, core/p2p.h, on a star of two ranks) and comparing the
 * figures; the fit is the fabric whose figures are closest, in the sum of
 * squared log-ratios (a relative error, alike for MB/s and us).
 *
 * The fitted parameters (sim_cal_keys) are the ones a point-to-point test
 * can see: the link's rate and one-way latency, the requester's and
 * responder's per-packet processing, the host's post and poll, the
 * responder's atomic.  Everything else keeps the base fabric's value.
 * Several keys can trade off (a test sees their sum): the fit reports,
 * per key, whether the measurements constrain it at all.
 *
 * The search is Levenberg-Marquardt with each key linear in the time it
 * costs (picoseconds; the rate as picoseconds per bit), within bounds
 * (SIM_CAL_RATE_*, 0 to SIM_CAL_TIME_MAX_PS), from a start that already
 * matches the largest bw point's rate and the lat points' mean scale, and
 * from a second with every fitted time equal (docs/calibrate.md).  The
 * simulator is deterministic, so the fit is too.
 *
 * A bw run of N iterations is simulated at two short lengths n and 2n and
 * extrapolated linearly (a pipeline in steady state adds the same time per
 * message), so a 5000-iteration measurement costs 3n simulated messages.
 */
#ifndef CCLAB_SIM_CALIBRATE_H
#define CCLAB_SIM_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/p2p.h"
#include "sim/params.h"

/* The keys fitted, in the order the search walks them. */
enum {
	SIM_CAL_RATE,
	SIM_CAL_PROP,
	SIM_CAL_REQ_PROC,
	SIM_CAL_RESP_PROC,
	SIM_CAL_POST_SEND,
	SIM_CAL_POLL_CQ,
	SIM_CAL_ATOMIC,
	SIM_CAL_NKEYS
};
extern const char *const sim_cal_keys[SIM_CAL_NKEYS]; /* "link.rate_bps", ... */

/* The figures a point may have: a half round trip between 1 ns and 1 s,
 * a bandwidth between 1 KiB/s and 1 TiB/s (0.001 and 1e6 perftest MB/s,
 * 8.8 Tb/s, below the fastest rate the search allows).  Anything outside
 * is no measurement of an RDMA fabric (a unit mistaken, a file edited),
 * and the fit of one would land on the search's bounds. */
#define SIM_CAL_LAT_MIN_US 1e-3
#define SIM_CAL_LAT_MAX_US 1e6
#define SIM_CAL_BW_MIN_MB_S 1e-3
#define SIM_CAL_BW_MAX_MB_S 1e6

/* The values the search may give a key: a rate of 100 kb/s to 10 Tb/s, a
 * time of 0 to 1 s.  A fit that ends on one of these (other than a time
 * at 0, a cost the measurements do without) did not find the fabric: the
 * measurements ask for more than the model allows. */
#define SIM_CAL_RATE_MIN_BPS 1e5
#define SIM_CAL_RATE_MAX_BPS 1e13
#define SIM_CAL_TIME_MAX_PS 1e12

struct sim_cal_point {
	struct cc_p2p_params p; /* the test as measured (size, iters, depths) */
	double measured;        /* bw: BW average MB/s (2^20 B); lat: t_typical us */
	double predicted;       /* the fit's figure; NAN if its run failed */
};

/* How a key came out of the fit. */
struct sim_cal_key {
	bool seen;           /* some point's figure moves when it moves */
	bool negligible;     /* a time the fit drove under 1 ns: the
			      * measurements are explained without it */
	double rms_up_pct;   /* the fit's rms error with the value x 1.25 */
	double rms_down_pct; /* ... and / 1.25 */
	bool kept;           /* the base's value explains the points as well (the
			      * rms within SIM_CAL_WEAK_PCT): kept, rather than one
			      * the search wandered to */
	int at_bound;        /* -1 / +1: at the search's lowest / highest value
			      * (SIM_CAL_RATE_*, SIM_CAL_TIME_MAX_PS); 0 otherwise */
	double wants_ps;     /* a negligible time the points push below 0: the
			      * value (< 0) a step of Gauss-Newton from 0 asks
			      * for; 0 when they do not */
};

/* How much rms error, in points of %, the fit gives up to keep the base's
 * values of the keys the points do not pin down. */
#define SIM_CAL_WEAK_PCT 0.1

struct sim_cal_fit {
	struct sim_params fabric; /* the base with the fitted keys set */
	struct sim_cal_key key[SIM_CAL_NKEYS];
	double rms_pct;           /* root mean square of (predicted/measured - 1), % */
	double max_pct;           /* the largest |predicted/measured - 1|, % */
	size_t worst;             /* its point */
	uint32_t sims;            /* simulator runs the search took */
};

/* Fits the keys to pts[0..n), starting from *base (whose name the fit
 * keeps): 0 with *fit and every pts[i].predicted set; -EINVAL with a
 * message in err when no point can be simulated on the base fabric or a
 * point's figure is outside SIM_CAL_LAT_* / SIM_CAL_BW_*.  The caller
 * judges the result: fit->rms_pct may be NaN or infinite (a point the
 * fitted fabric cannot run), and a key may be at_bound. */
int sim_calibrate(struct sim_cal_point *pts, size_t n, const struct sim_params *base,
		  struct sim_cal_fit *fit, char *err, size_t errlen);

#endif /* CCLAB_SIM_CALIBRATE_H */
