/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/validate_run.c — each measured size of a case on the simulator
 * (cli/validate.h): a collective as `cclab run` of its scenario times it
 * (timing only: no data carried, so any size fits), a perftest test as
 * `cclab p2p` measures it. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "cli/p2p.h"
#include "cli/sim.h"
#include "cli/validate.h"
#include "core/algo.h"
#include "sim/bound.h"
#include "sim/physics.h"

/* One channel's primitives of rank 0 and their bytes (a ring's steps run
 * one after the other on its block: NCCL's runRing). */
static void chain_step(void *ctx, uint32_t rank, const struct cc_prim_step *st)
{
	struct val_point *pt = ctx;

	(void)rank;
	if (st->channel == 0) {
		pt->ring_steps += 1;
		pt->ring_bytes += (double)st->nelem;
	}
}

/* pt's ring chain where p runs the ring's all-reduce, reduce-scatter or
 * all-gather on Simple (val_point.ring_steps). */
static void ring_chain(const struct cc_coll_params *p, struct val_point *pt)
{
	pt->ring_steps = pt->ring_bytes = 0;
	if (p->algo != CC_ALGO_RING || p->proto != CC_PROTO_SIMPLE || p->nranks < 2 ||
	    !cc_coll_ring_looped(p->coll))
		return;
	cc_ring_primitives(p, 0, chain_step, pt);
	pt->ring_bytes *= (double)cc_dtype_size(p->dtype);
}

static void coll_point(const struct val_args *a, const struct val_case *c, struct val_point *pt)
{
	const struct cc_scenario *sc = &c->sc;
	uint64_t start = cc_clock_ns();
	struct cc_sim_opts o = {
		.fabric = &sc->fabric,
		.model = a->model_given ? a->model : (enum cc_sim_model)sc->model,
		.net = &sc->net,
		.seed = sc->seed,
		.check = false,
		.time_limit_ps = CLI_SIM_TIME_LIMIT_S * SIM_PS_PER_S,
		.engine_flags = cli_sim_engine_flags(),
		.wall_limit_ms = a->wall_limit_ms,
		.wall_start_ns = start,
		.sim_faults = sc->faults,
		.nsim_faults = sc->nfaults,
		.launch = sc->launch,
	};
	struct cc_mem_limit host;
	const struct cc_build_opts bo = { .deadline_ns = cli_wall_deadline(a->wall_limit_ms, start),
					  .timing_only = true, .generated = true, .mem_limit = &host };
	struct cc_coll_params p = sc->p;
	struct cc_sim_result res;
	struct cc_schedule *s;
	char err[VAL_TEXT_LEN] = "";
	double algbw;
	int rc;

	cc_mem_limit(&host);
	if (cc_nccl_auto_any(&sc->nccl)) {
		/* `auto`: the algorithm, protocol and channels NCCL runs here */
		struct cc_nccl_pick pick;

		if (cc_nccl_auto_params(&sc->nccl, pt->size, sc->slot_given, sc->chunk_given, &p,
					&pick, err, sizeof(err))) {
			snprintf(pt->status, sizeof(pt->status), "%s", err);
			return;
		}
		cc_nccl_pick_text(&pick, pt->nccl, sizeof(pt->nccl));
	} else {
		cc_coll_params_fill(&p, sc->slot_given, sc->chunk_given);
	}
	p.count = pt->count;
	ring_chain(&p, pt);
	errno = 0;
	if (!(s = cc_build_with(&p, &bo, err, sizeof(err)))) {
		snprintf(pt->status, sizeof(pt->status), "%s", errno == ETIME ? "time limit reached "
			 "while building the schedule" : err[0] ? err : strerror(errno ? errno : ENOMEM));
		return;
	}
	memset(&res, 0, sizeof(res));
	rc = cc_sim_run(s, &o, &res);
	if (rc < 0) {
		/* the simulator's own reason where it gave one (--model flow's) */
		snprintf(pt->status, sizeof(pt->status), "simulator: %.*s",
			 (int)sizeof(res.err.msg), rc == -EINVAL && res.err.msg[0] ? res.err.msg
										 : strerror(-rc));
	} else if (res.err.status != CC_RUN_OK) {
		snprintf(pt->status, sizeof(pt->status), "%s: %.*s",
			 cli_run_status_name(res.err.status), (int)sizeof(res.err.msg), res.err.msg);
	} else if (!sim_physical(&sc->net, &sc->fabric, &p, pt->size, res.time_ps,
				 sim_bound_ps(s, &sc->fabric, &sc->net), err, sizeof(err))) {
		snprintf(pt->status, sizeof(pt->status), "model bug: %s", err);
	} else {
		pt->predicted = true;
		pt->launch_bound = res.launch_bound;
		pt->pred_time_us = (double)res.time_ps / 1e6;
		cc_result_bw(pt->size, pt->pred_time_us, c->busbw_factor, &algbw, &pt->pred_bw);
		snprintf(pt->status, sizeof(pt->status), "ok");
	}
	if (rc >= 0)
		cc_sim_result_free(&res);
	cc_schedule_free(s);
}

static void p2p_point_of(const struct val_args *a, const struct val_case *c, struct val_point *pt)
{
	const struct cc_scenario *sc = &c->sc;
	struct p2p_opts o = {
		.p = sc->p2p,
		.fabric = sc->fabric,
		.seed = sc->seed,
		.wall_limit_ms = a->wall_limit_ms,
		.scenario = sc,
	};
	struct p2p_row row;
	char why[VAL_TEXT_LEN] = "";

	/* perftest's figure is a steady state (bw: bytes over the whole
	 * loop; lat: the median sample): fewer iterations give it within a
	 * fraction of a percent for much less simulated time. */
	if (a->max_iters)
		o.p.iters = cc_p2p_iters_at_most(&o.p, a->max_iters);
	if (p2p_point(&o, &sc->net, pt->size, &row, why, sizeof(why))) {
		snprintf(pt->status, sizeof(pt->status), "%s", why);
		return;
	}
	pt->predicted = true;
	if (c->kind == VAL_BW)
		pt->pred_bw = row.bw.avg_mib_s * c->bw_per_mib_s; /* in the table's unit */
	else
		pt->pred_time_us = row.lat.typical_us;
	snprintf(pt->status, sizeof(pt->status), "ok");
}

int val_case_run(const struct val_args *a, struct val_case *c)
{
	/* A case whose every size is above --max-bytes still runs its
	 * smallest: no case drops out of the report for the cap alone. */
	uint64_t cap = a->max_bytes;

	for (uint32_t i = 0; cap && i < c->npts; i++)
		if (c->pts[i].measured) {
			cap = c->pts[i].size > cap ? c->pts[i].size : cap;
			break;
		}
	for (uint32_t i = 0; i < c->npts; i++) {
		struct val_point *pt = &c->pts[i];

		if (!pt->measured) {
			snprintf(pt->status, sizeof(pt->status), "not measured (N/A)");
			continue;
		}
		if (cap && pt->size > cap) {
			snprintf(pt->status, sizeof(pt->status), VAL_ABOVE_CAP);
			continue;
		}
		if (c->kind == VAL_COLL)
			coll_point(a, c, pt);
		else
			p2p_point_of(a, c, pt);
	}
	return 0;
}
