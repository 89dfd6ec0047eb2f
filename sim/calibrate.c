/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/calibrate.c — the fit of sim/calibrate.h. */
#include "sim/calibrate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/p2p_report.h"
#include "core/trace.h"
#include "sim/exec.h"

const char *const sim_cal_keys[SIM_CAL_NKEYS] = {
	[SIM_CAL_RATE] = "link.rate_bps",
	[SIM_CAL_PROP] = "link.prop_delay_ps",
	[SIM_CAL_REQ_PROC] = "rnic.req_proc_ps",
	[SIM_CAL_RESP_PROC] = "rnic.resp_proc_ps",
	[SIM_CAL_POST_SEND] = "software.post_send_ps",
	[SIM_CAL_POLL_CQ] = "software.poll_cq_ps",
	[SIM_CAL_ATOMIC] = "rnic.atomic_ps",
};

#define RATE_MIN SIM_CAL_RATE_MIN_BPS
#define RATE_MAX SIM_CAL_RATE_MAX_BPS
#define TIME_MIN 1.0   /* ps: where start() puts a time it scales */
#define TIME_MAX SIM_CAL_TIME_MAX_PS
#define LM_ITERS 60u   /* Levenberg-Marquardt iterations at most */
#define LM_LAMBDA_MAX 1e8
#define LM_H 0.01      /* the Jacobian's step: 1 % of a key's value */
#define BW_ITERS 8u    /* n of the two bw runs, n and 2n */
#define LAT_ITERS 16u

struct search {
	struct sim_cal_point *pts;
	size_t n;
	struct sim_params f;
	const struct sim_param_field *field[SIM_CAL_NKEYS];
	/* Each key as the search moves it, linear in the time it costs: a
	 * time key's picoseconds, the rate's picoseconds per bit. */
	double x[SIM_CAL_NKEYS];
	double scale[SIM_CAL_NKEYS]; /* x at the start: the Jacobian's yardstick */
	uint32_t sims;
	double *scratch; /* n residuals, for cost() */
};

/* One run of p on f: perftest's figures from the simulator's trace. */
/* n of the two bw runs: BW_ITERS in whole post lists (perftest wants the
 * iterations a multiple of the list), rounded up. */
static uint32_t bw_iters(const struct cc_p2p_params *p)
{
	uint32_t l = p->post_list ? p->post_list : 1;

	return (BW_ITERS + l - 1) / l * l;
}

static int run_once(const struct sim_params *f, const struct cc_p2p_params *p,
		    struct cc_trace *tr, struct cc_p2p_bw *bw, struct cc_p2p_lat *lat)
{
	/* A generous bound: a second per iteration plus ten times the
	 * message's serialization; a fabric that needs more is far off. */
	double lim = (double)p->iters * (1e12 + 10.0 * (double)p->size * 8 * 1e12 /
							 (double)f->link.rate_bps);
	struct cc_sim_opts so = {
		.fabric = f,
		.topo = SIM_TOPO_STAR,
		.seed = 1,
		.trace = tr,
		.time_limit_ps = lim >= 1e19 ? (sim_time_ps)1e19 : (sim_time_ps)lim,
	};
	struct cc_sim_result res;
	struct cc_p2p_times t;
	char err[256];
	struct cc_schedule *s = cc_build_p2p(p, err, sizeof(err));
	int rc;

	if (!s)
		return -errno;
	cc_trace_clear(tr);
	rc = cc_sim_run(s, &so, &res);
	if (rc >= 0) {
		rc = res.err.status == CC_RUN_OK ? cc_p2p_times_init(&t, p->iters) : -EIO;
		if (!rc) {
			rc = cc_p2p_times_from_trace(&t, s, tr);
			if (!rc)
				rc = p->mode == CC_P2P_BW ? cc_p2p_bw_compute(p, &t, bw)
							  : cc_p2p_lat_compute(p, &t, lat);
			cc_p2p_times_free(&t);
		}
		cc_sim_result_free(&res);
	}
	cc_schedule_free(s);
	return rc;
}

/* pt's figure on f; *sims counts the simulator's runs. */
static int predict(const struct sim_params *f, struct sim_cal_point *pt, uint32_t *sims)
{
	struct cc_p2p_params p = pt->p;
	struct cc_p2p_bw bw[2];
	struct cc_p2p_lat lat;
	struct cc_trace tr;
	int rc;

	pt->predicted = NAN;
	cc_trace_init(&tr);
	if (p.mode == CC_P2P_LAT) {
		p.iters = p.iters < LAT_ITERS ? p.iters : LAT_ITERS;
		rc = run_once(f, &p, &tr, NULL, &lat);
		*sims += 1;
		if (!rc)
			pt->predicted = lat.typical_us;
	} else if (p.iters <= 2 * bw_iters(&p)) {
		rc = run_once(f, &p, &tr, &bw[0], NULL);
		*sims += 1;
		if (!rc)
			pt->predicted = bw[0].avg_mib_s;
	} else {
		/* T(N) = T(n) + (N - n) * (T(2n) - T(n)) / n. */
		uint32_t n = bw_iters(&p);

		p.iters = n;
		rc = run_once(f, &p, &tr, &bw[0], NULL);
		p.iters = 2 * n;
		if (!rc)
			rc = run_once(f, &p, &tr, &bw[1], NULL);
		*sims += 2;
		if (!rc) {
			double per = (double)(bw[1].time_ps - bw[0].time_ps) / n;
			double t = (double)bw[0].time_ps + (pt->p.iters - n) * per;

			pt->predicted = (double)pt->p.iters * (double)pt->p.size * 1e12 / t /
					(1u << 20);
		}
	}
	cc_trace_free(&tr);
	return rc;
}

static void set_key(struct search *s, unsigned k, double x)
{
	double v = k == SIM_CAL_RATE ? 1e12 / x : x;

	s->x[k] = x;
	sim_param_field_set(&s->f, s->field[k], (uint64_t)llround(v));
}

static bool in_range(unsigned k, double x)
{
	return k == SIM_CAL_RATE ? x >= 1e12 / RATE_MAX && x <= 1e12 / RATE_MIN
				 : x >= 0 && x <= TIME_MAX;
}

/* Geometric mean of measured / predicted over the points of one mode. */
static double scale_of(struct search *s, enum cc_p2p_mode mode, uint64_t min_size)
{
	double sum = 0;
	unsigned n = 0;

	for (size_t i = 0; i < s->n; i++) {
		struct sim_cal_point *pt = &s->pts[i];

		if (pt->p.mode != mode || pt->p.size < min_size)
			continue;
		if (predict(&s->f, pt, &s->sims) || !(pt->predicted > 0))
			continue;
		sum += log(pt->measured / pt->predicted);
		n++;
	}
	return n ? exp(sum / n) : 1.0;
}

static void scale_field(struct sim_params *f, const char *key, double by)
{
	const struct sim_param_field *fd = sim_param_field_find(key);
	double v = (double)sim_param_field_get(f, fd) * by;

	v = v < TIME_MIN ? TIME_MIN : v > TIME_MAX ? TIME_MAX : v;
	sim_param_field_set(f, fd, (uint64_t)llround(v));
}

/* The start: the rate that matches the largest bw points (bandwidth-bound
 * by the wire: the rate scales them directly), then every fitted latency
 * scaled by the lat points' mean ratio.  Twice, as each moves the other.
 * The costs not fitted (doorbell, WQE fetch, CQE write, switch) keep the
 * base's values: a point-to-point test cannot tell them from the fitted
 * keys they add to, so the fitted keys carry the whole measured time. */
static void start(struct search *s)
{
	uint64_t big = 0;

	for (size_t i = 0; i < s->n; i++)
		if (s->pts[i].p.mode == CC_P2P_BW && s->pts[i].p.size > big)
			big = s->pts[i].p.size;
	for (int round = 0; round < 2; round++) {
		double r = big ? scale_of(s, CC_P2P_BW, big) : 1.0;
		double v = (double)s->f.link.rate_bps * r;

		v = v < RATE_MIN ? RATE_MIN : v > RATE_MAX ? RATE_MAX : v;
		s->f.link.rate_bps = (uint64_t)llround(v);
		r = scale_of(s, CC_P2P_LAT, 0);
		for (unsigned k = SIM_CAL_PROP; k < SIM_CAL_NKEYS; k++)
			scale_field(&s->f, sim_cal_keys[k], r);
	}
	for (unsigned k = 0; k < SIM_CAL_NKEYS; k++) {
		uint64_t v = sim_param_field_get(&s->f, s->field[k]);

		s->x[k] = k == SIM_CAL_RATE ? 1e12 / (double)v : (double)v;
		s->scale[k] = s->x[k] > 0 ? s->x[k] : 1e6; /* a key at 0: 1 us */
	}
}

/* Residuals r[i] = ln(predicted / measured) at the current keys; false if
 * a run failed. */
static bool residuals(struct search *s, double *r)
{
	for (size_t i = 0; i < s->n; i++) {
		if (predict(&s->f, &s->pts[i], &s->sims) || !(s->pts[i].predicted > 0))
			return false;
		r[i] = log(s->pts[i].predicted / s->pts[i].measured);
	}
	return true;
}

static double sumsq(const double *r, size_t n)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += r[i] * r[i];
	return sum;
}

/* Sum of squared log-ratios over every point; INFINITY if a run failed. */
static double cost(struct search *s)
{
	return residuals(s, s->scratch) ? sumsq(s->scratch, s->n) : INFINITY;
}

/* Solves m x = b (K x K, m overwritten) by Gaussian elimination with
 * partial pivoting; false if singular. */
static bool solve(double m[SIM_CAL_NKEYS][SIM_CAL_NKEYS], double *b, double *x)
{
	const unsigned K = SIM_CAL_NKEYS;

	for (unsigned c = 0; c < K; c++) {
		unsigned p = c;

		for (unsigned i = c + 1; i < K; i++)
			if (fabs(m[i][c]) > fabs(m[p][c]))
				p = i;
		if (!(fabs(m[p][c]) > 1e-300))
			return false;
		for (unsigned j = 0; j < K; j++) {
			double t = m[c][j];

			m[c][j] = m[p][j];
			m[p][j] = t;
		}
		double t = b[c];

		b[c] = b[p];
		b[p] = t;
		for (unsigned i = c + 1; i < K; i++) {
			double f = m[i][c] / m[c][c];

			for (unsigned j = c; j < K; j++)
				m[i][j] -= f * m[c][j];
			b[i] -= f * b[c];
		}
	}
	for (unsigned c = K; c-- > 0;) {
		double v = b[c];

		for (unsigned j = c + 1; j < K; j++)
			v -= m[c][j] * x[j];
		x[c] = v / m[c][c];
	}
	return true;
}

/* Levenberg-Marquardt (Marquardt 1963) on the residuals: the Jacobian by
 * forward differences, a damped Gauss-Newton step, the damping raised on a
 * step that does not lower the cost and lowered on one that does.  The
 * keys move linearly in the time they cost (sim/calibrate.h), in which
 * every measured time is nearly a sum of them, so the search does not
 * stall where a key reaches 0 (as it does in log space, where a vanishing
 * key stops mattering).  A key no residual depends on is held (its column
 * is zero), and so is a time at 0 that the step would make negative (an
 * active bound); any other step past a bound is cut back onto it. */
static void fit_lm(struct search *s, double *r, double *rk, double *jac)
{
	const unsigned K = SIM_CAL_NKEYS;
	double lambda = 1e-3, cur = sumsq(r, s->n);

	for (unsigned it = 0; it < LM_ITERS && lambda < LM_LAMBDA_MAX; it++) {
		double a[SIM_CAL_NKEYS][SIM_CAL_NKEYS], g[SIM_CAL_NKEYS], x0[SIM_CAL_NKEYS];
		bool improved = false;

		memcpy(x0, s->x, sizeof(x0));
		for (unsigned k = 0; k < K; k++) {
			double h = LM_H * fmax(fabs(x0[k]), s->scale[k]);

			if (!in_range(k, x0[k] + h))
				h = -h;

			set_key(s, k, x0[k] + h);
			bool ok = residuals(s, rk);

			for (size_t i = 0; i < s->n; i++)
				jac[i * K + k] = ok ? (rk[i] - r[i]) / h : 0;
			set_key(s, k, x0[k]);
		}
		for (unsigned k = 0; k < K; k++) {
			g[k] = 0;
			for (unsigned j = 0; j < K; j++) {
				a[k][j] = 0;
				for (size_t i = 0; i < s->n; i++)
					a[k][j] += jac[i * K + k] * jac[i * K + j];
			}
			for (size_t i = 0; i < s->n; i++)
				g[k] -= jac[i * K + k] * r[i];
		}
		while (!improved && lambda < LM_LAMBDA_MAX) {
			double m[SIM_CAL_NKEYS][SIM_CAL_NKEYS], b[SIM_CAL_NKEYS], d[SIM_CAL_NKEYS];

			memcpy(m, a, sizeof(m));
			memcpy(b, g, sizeof(b));
			for (unsigned k = 0; k < K; k++) {
				/* Held (d[k] = 0): a key nothing depends on, and
				 * a time at 0 that the descent would push below. */
				if (a[k][k] == 0 || (k != SIM_CAL_RATE && x0[k] <= 0 && g[k] <= 0)) {
					for (unsigned j = 0; j < K; j++)
						m[k][j] = m[j][k] = 0;
					m[k][k] = 1;
					b[k] = 0;
				} else {
					m[k][k] += lambda * a[k][k];
				}
			}
			if (!solve(m, b, d)) {
				lambda *= 4;
				continue;
			}
			for (unsigned k = 0; k < K; k++) {
				double x = x0[k] + d[k];

				if (!in_range(k, x)) /* onto the bound it crosses */
					x = k == SIM_CAL_RATE ? fmin(fmax(x, 1e12 / RATE_MAX), 1e12 / RATE_MIN)
							      : fmin(fmax(x, 0), TIME_MAX);
				set_key(s, k, x);
			}
			if (residuals(s, rk) && sumsq(rk, s->n) < cur) {
				double now = sumsq(rk, s->n);

				improved = true;
				lambda = fmax(lambda / 3, 1e-9);
				memcpy(r, rk, s->n * sizeof(*r));
				if (cur - now <= 1e-9 * cur + 1e-14)
					it = LM_ITERS; /* converged */
				cur = now;
			} else {
				for (unsigned k = 0; k < K; k++)
					set_key(s, k, x0[k]);
				lambda *= 4;
			}
		}
	}
}

/* The measured times are sums of the keys through max()es (what overlaps
 * and what waits), so the cost has kinks where the search can stop short.
 * Two starts, the best end: the base's proportions scaled (start()), and
 * every fitted time equal to their mean (no key favoured); the second is
 * also where a key the first drove to 0 gets its chance back. */
static void multi_start(struct search *s, double *work)
{
	const unsigned K = SIM_CAL_NKEYS;
	double x0[SIM_CAL_NKEYS], best_x[SIM_CAL_NKEYS], mean = 0, best = INFINITY;

	memcpy(x0, s->x, sizeof(x0));
	for (unsigned k = SIM_CAL_PROP; k < K; k++)
		mean += x0[k] / (K - SIM_CAL_PROP);
	for (int run = 0; run < 2; run++) {
		for (unsigned k = 0; k < K; k++)
			set_key(s, k, run == 0 || k == SIM_CAL_RATE ? x0[k] : mean);
		if (!residuals(s, work))
			continue;
		fit_lm(s, work, work + s->n, work + 2 * s->n);
		double c = cost(s);

		if (c < best) {
			best = c;
			memcpy(best_x, s->x, sizeof(best_x));
		}
	}
	for (unsigned k = 0; k < K; k++)
		set_key(s, k, best == INFINITY ? x0[k] : best_x[k]);
}

static double rms_pct(const struct search *s, size_t *worst, double *max_pct)
{
	double sum = 0;

	*max_pct = 0;
	for (size_t i = 0; i < s->n; i++) {
		double e = s->pts[i].predicted / s->pts[i].measured - 1;

		sum += e * e;
		if (fabs(e) * 100 >= *max_pct) {
			*max_pct = fabs(e) * 100;
			*worst = i;
		}
	}
	return sqrt(sum / (double)s->n) * 100;
}

/* Per key: the rms error with the value 1.25x either way, and whether any
 * point moved at all (a key no test exercises keeps the start's value). */
static void sensitivity(struct search *s, struct sim_cal_fit *fit, const double *at_fit)
{
	for (unsigned k = 0; k < SIM_CAL_NKEYS; k++) {
		double x0 = s->x[k], max;
		size_t w;

		for (int dir = 1; dir >= -1; dir -= 2) {
			double rms = INFINITY;

			/* The value 1.25x up is x 1.25x up, except for the
			 * rate, whose x is its inverse. */
			bool up = (dir > 0) == (k != SIM_CAL_RATE);

			set_key(s, k, up ? x0 * 1.25 : x0 / 1.25);
			if (cost(s) < INFINITY)
				rms = rms_pct(s, &w, &max);
			for (size_t i = 0; i < s->n; i++)
				if (fabs(s->pts[i].predicted / at_fit[i] - 1) > 1e-6)
					fit->key[k].seen = true;
			if (dir > 0)
				fit->key[k].rms_up_pct = rms;
			else
				fit->key[k].rms_down_pct = rms;
		}
		set_key(s, k, x0);
		fit->key[k].negligible = k != SIM_CAL_RATE && x0 < 1000;
	}
}

/* A key the points do not pin down goes back to the base's value when
 * that costs the fit at most SIM_CAL_WEAK_PCT of rms, all such keys
 * together: the search may have left it anywhere the data allows — 8-byte
 * message rates say only that the link is faster than ~4 Gb/s, and the
 * search stopped at 4.02 for a 200 Gb/s link.  True if one went back. */
static bool keep_weak_keys(struct search *s, struct sim_cal_fit *fit,
			   const struct sim_params *base)
{
	bool any = false;
	size_t w;
	double max, ref = fit->rms_pct; /* all of them together cost at most the margin */

	for (unsigned k = 0; k < SIM_CAL_NKEYS; k++) {
		const struct sim_cal_key *c = &fit->key[k];
		double x = s->x[k];
		uint64_t v = sim_param_field_get(base, s->field[k]);

		if (c->negligible || !v)
			continue;
		set_key(s, k, k == SIM_CAL_RATE ? 1e12 / (double)v : (double)v);
		if (cost(s) < INFINITY && rms_pct(s, &w, &max) <= ref + SIM_CAL_WEAK_PCT) {
			fit->key[k].kept = true;
			fit->rms_pct = rms_pct(s, &fit->worst, &fit->max_pct);
			any = true;
		} else {
			set_key(s, k, x);
		}
	}
	return any;
}

/* Where the fit ends against a bound.  The search's own limits (the rate's
 * 100 kb/s and 10 Tb/s, a time's 1 s) are at_bound: the fit did not find
 * the fabric there.  A time at 0 is a cost the points do without, or one
 * they would make negative if they could: one Gauss-Newton step from 0
 * along that key alone, with the Jacobian by a forward difference of 1 ns,
 * tells which (wants_ps < -1 ns: they push it below 0, so the fabric is
 * slower than the points there, by what the other keys cannot absorb). */
static void bounds(struct search *s, struct sim_cal_fit *fit, const double *at_fit)
{
	const double h = 1000; /* ps */

	for (unsigned k = 0; k < SIM_CAL_NKEYS; k++) {
		double x0 = s->x[k], num = 0, den = 0;
		uint64_t v = sim_param_field_get(&s->f, s->field[k]);

		if (k == SIM_CAL_RATE)
			fit->key[k].at_bound = (double)v <= RATE_MIN * (1 + 1e-9) ? -1
					       : (double)v >= RATE_MAX * (1 - 1e-9) ? 1 : 0;
		else
			fit->key[k].at_bound = (double)v >= TIME_MAX * (1 - 1e-9) ? 1 : 0;
		if (k == SIM_CAL_RATE || !fit->key[k].negligible)
			continue;
		set_key(s, k, x0 + h);
		bool ok = cost(s) < INFINITY;

		for (size_t i = 0; ok && i < s->n; i++) {
			double r0 = log(at_fit[i] / s->pts[i].measured);
			double d = log(s->pts[i].predicted / at_fit[i]);

			num += r0 * d;
			den += d * d;
		}
		set_key(s, k, x0);
		/* sensitivity() scales a value: one at 0 does not move, and
		 * would read as "not constrained" when 1 ns moves the points. */
		fit->key[k].seen |= ok && den > 0;
		if (ok && den > 0 && x0 - h * num / den < -h)
			fit->key[k].wants_ps = x0 - h * num / den;
	}
}

int sim_calibrate(struct sim_cal_point *pts, size_t n, const struct sim_params *base,
		  struct sim_cal_fit *fit, char *err, size_t errlen)
{
	struct search s = { .pts = pts, .n = n, .f = *base };
	double *at_fit;
	double best;

	memset(fit, 0, sizeof(*fit));
	if (!n) {
		snprintf(err, errlen, "no measured point to fit");
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		bool bw = pts[i].p.mode == CC_P2P_BW;
		double lo = bw ? SIM_CAL_BW_MIN_MB_S : SIM_CAL_LAT_MIN_US;
		double hi = bw ? SIM_CAL_BW_MAX_MB_S : SIM_CAL_LAT_MAX_US;

		if (!(pts[i].measured >= lo && pts[i].measured <= hi)) {
			snprintf(err, errlen, "point %zu (%s %s, %llu B): the measured figure %g %s is "
				 "outside %g..%g", i, cc_p2p_op_name[pts[i].p.op],
				 cc_p2p_mode_name[pts[i].p.mode], (unsigned long long)pts[i].p.size,
				 pts[i].measured, bw ? "MB/s" : "us", lo, hi);
			return -EINVAL;
		}
	}
	for (unsigned k = 0; k < SIM_CAL_NKEYS; k++)
		s.field[k] = sim_param_field_find(sim_cal_keys[k]);
	/* at_fit, then the search's residuals, trial residuals, Jacobian,
	 * and cost()'s scratch. */
	at_fit = malloc(n * (3 + SIM_CAL_NKEYS) * sizeof(*at_fit));
	if (!at_fit) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s.scratch = at_fit + n * (2 + SIM_CAL_NKEYS);
	start(&s);
	best = cost(&s);
	for (size_t i = 0; best == INFINITY && i < n; i++)
		if (predict(&s.f, &pts[i], &s.sims) || !(pts[i].predicted > 0)) {
			snprintf(err, errlen, "the simulator cannot run point %zu (%s %s, %llu B) on "
				 "fabric '%s' with its rate and latencies scaled to the measurements",
				 i, cc_p2p_op_name[pts[i].p.op], cc_p2p_mode_name[pts[i].p.mode],
				 (unsigned long long)pts[i].p.size, base->name);
			free(at_fit);
			return -EINVAL;
		}
	multi_start(&s, at_fit);
	cost(&s); /* the fit's own figures into pts */
	for (size_t i = 0; i < n; i++)
		at_fit[i] = pts[i].predicted;
	fit->rms_pct = rms_pct(&s, &fit->worst, &fit->max_pct);
	sensitivity(&s, fit, at_fit);
	if (keep_weak_keys(&s, fit, base)) {
		cost(&s);
		for (size_t i = 0; i < n; i++)
			at_fit[i] = pts[i].predicted;
		fit->rms_pct = rms_pct(&s, &fit->worst, &fit->max_pct);
		sensitivity(&s, fit, at_fit);
	}
	bounds(&s, fit, at_fit);
	for (size_t i = 0; i < n; i++)
		pts[i].predicted = at_fit[i];
	free(at_fit);
	fit->fabric = s.f;
	fit->sims = s.sims;
	return 0;
}
