/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/dcqcn.c — DCQCN's reaction point; the model is described in dcqcn.h. */
#include "sim/dcqcn.h"

void sim_dcqcn_init(struct sim_dcqcn *d, uint64_t line_bps)
{
	*d = (struct sim_dcqcn){ .line_bps = line_bps, .rate_bps = line_bps,
				 .target_bps = line_bps };
}

/* Brings alpha up to the period that holds t: the period that saw a CNP
 * raises it, every later one lowers it (a small alpha reaches 0 within a
 * few hundred periods, so the loop is short however long the gap). */
static void alpha_to(struct sim_dcqcn *d, const struct sim_cc_params *p, sim_time_ps t)
{
	uint64_t g = p->alpha_g;
	uint64_t n;

	if (t < d->alpha_at + p->alpha_period_ps)
		return;
	n = (t - d->alpha_at) / p->alpha_period_ps;
	d->alpha_at += n * p->alpha_period_ps;
	if (d->cnp_in_period) {
		d->alpha = (uint32_t)((d->alpha * g >> 10) + (1024 - g));
		d->cnp_in_period = false;
		n--;
	}
	for (; n && d->alpha; n--)
		d->alpha = (uint32_t)(d->alpha * g >> 10);
}

static void cut(struct sim_dcqcn *d, const struct sim_cc_params *p, sim_time_ps t)
{
	uint64_t r = d->rate_bps, next, floor;

	alpha_to(d, p, t);
	next = r - (uint64_t)((unsigned __int128)r * d->alpha >> p->rate_gd);
	floor = (uint64_t)((unsigned __int128)r * p->min_dec_pct / 100);
	if (next < floor)
		next = floor;
	if (next < p->min_rate_bps)
		next = p->min_rate_bps;
	/* ConnectX resets the target only where clamp_tgt_rate says so, or
	 * (clamp_tgt_rate_after_time_inc) when the timer raised the rate
	 * since the last cut; else the target stays, and fast recovery heads
	 * back to it (mlx5_ifc.h cong_control_r_roce_ecn_rp). */
	if (p->clamp_tgt_rate || (p->clamp_tgt_rate_ati && d->t_stage > 0))
		d->target_bps = r;
	d->rate_bps = next;
	d->t_stage = d->b_stage = 0;
	d->bytes = 0;
	d->next_timer = t + p->time_reset_ps;
	d->last_cut = t;
	d->cut_pending = false;
	d->cuts++;
}

/* One increase step; `timer`: the time counter's, else the byte counter's. */
static void increase(struct sim_dcqcn *d, const struct sim_cc_params *p, bool timer)
{
	uint32_t f = p->threshold;
	uint64_t step = 0;

	if (d->t_stage >= f && d->b_stage >= f)
		step = p->hai_rate_bps * ((d->t_stage < d->b_stage ? d->t_stage : d->b_stage) - f + 1);
	else if (d->t_stage >= f || d->b_stage >= f)
		step = p->ai_rate_bps;
	/* else fast recovery: the target stays */
	d->target_bps = d->line_bps - d->target_bps > step ? d->target_bps + step : d->line_bps;
	d->rate_bps = (d->rate_bps + d->target_bps + 1) / 2; /* rounded up: reaches the target */
	if (timer)
		d->t_stage++;
	else
		d->b_stage++;
	if (d->rate_bps >= d->line_bps && d->target_bps >= d->line_bps) {
		d->rate_bps = d->target_bps = d->line_bps;
		d->limited = false;
	}
}

/* Plays the timer steps and a delayed cut due by `now`, in time order. */
static void advance(struct sim_dcqcn *d, const struct sim_cc_params *p, sim_time_ps now)
{
	while (d->limited) {
		sim_time_ps cut_at = d->cut_pending ? d->last_cut + p->rate_reduce_period_ps
						    : SIM_TIME_NEVER;

		if (cut_at <= d->next_timer && cut_at <= now) {
			cut(d, p, cut_at);
		} else if (d->next_timer <= now) {
			sim_time_ps t = d->next_timer;

			d->next_timer += p->time_reset_ps;
			alpha_to(d, p, t);
			increase(d, p, true);
		} else {
			break;
		}
	}
}

void sim_dcqcn_cnp(struct sim_dcqcn *d, const struct sim_cc_params *p, sim_time_ps now)
{
	advance(d, p, now);
	if (!d->limited) {
		/* The first CNP of a QP at full rate. */
		d->limited = true;
		d->alpha = p->initial_alpha;
		d->alpha_at = now;
		d->cnp_in_period = true;
		cut(d, p, now);
		return;
	}
	alpha_to(d, p, now);
	d->cnp_in_period = true;
	if (now >= d->last_cut + p->rate_reduce_period_ps)
		cut(d, p, now);
	else
		d->cut_pending = true;
}

void sim_dcqcn_sent(struct sim_dcqcn *d, const struct sim_cc_params *p, uint64_t bytes,
		    sim_time_ps now)
{
	advance(d, p, now);
	if (!d->limited)
		return;
	d->bytes += bytes;
	while (d->limited && d->bytes >= p->byte_reset_bytes) {
		d->bytes -= p->byte_reset_bytes;
		increase(d, p, false);
	}
}

uint64_t sim_dcqcn_rate(struct sim_dcqcn *d, const struct sim_cc_params *p, sim_time_ps now)
{
	advance(d, p, now);
	return d->limited ? d->rate_bps : d->line_bps;
}
