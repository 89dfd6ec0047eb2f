/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/validate_score.c — how far off the model is (cli/validate.h, "The
 * figures"): per case, the error at its largest sizes, at its smallest,
 * and of its half-peak size; over the corpus, each class's median and
 * worst. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/validate.h"
#include "core/results.h"

const char *const val_class_name[VAL_CLASS_COUNT] = { "large", "small", "half" };

/* Both figures of a size for bandwidth (bw) or time. */
static bool compared(const struct val_point *pt, bool bw)
{
	return pt->predicted && (bw ? pt->has_bw : pt->has_time);
}

/* The mean of predicted / measured - 1 over the compared sizes in
 * [lo, hi], of bandwidth (bw) or time. */
static bool mean_error(const struct val_case *c, uint64_t lo, uint64_t hi, bool bw, double *pct,
		       uint64_t *from, uint64_t *to)
{
	double sum = 0;
	uint32_t n = 0;

	for (uint32_t i = 0; i < c->npts; i++) {
		const struct val_point *pt = &c->pts[i];

		if (!compared(pt, bw) || pt->size < lo || pt->size > hi)
			continue;
		sum += bw ? pt->pred_bw / pt->meas_bw - 1 : pt->pred_time_us / pt->meas_time_us - 1;
		*from = n ? *from : pt->size;
		*to = pt->size;
		n++;
	}
	if (!n)
		return false;
	*pct = 100 * sum / n;
	return true;
}

/* The size at which a bandwidth curve first reaches half of its peak, on
 * the compared sizes, interpolated between the two sizes around it on
 * log-log axes; false when the first size is already there (the curve
 * starts above half: no crossing to see) or the curve has no positive
 * point. */
static bool half_peak(const struct val_case *c, bool pred, double *size)
{
	double peak = 0, prev_s = 0, prev_b = 0;
	bool first = true;

	for (uint32_t i = 0; i < c->npts; i++)
		if (compared(&c->pts[i], true))
			peak = fmax(peak, pred ? c->pts[i].pred_bw : c->pts[i].meas_bw);
	if (peak <= 0)
		return false;
	for (uint32_t i = 0; i < c->npts; i++) {
		const struct val_point *pt = &c->pts[i];
		double b = pred ? pt->pred_bw : pt->meas_bw, s = (double)pt->size;

		if (!compared(pt, true))
			continue;
		if (b >= peak / 2) {
			if (first || prev_b <= 0)
				return false;
			*size = exp(log(prev_s) + (log(peak / 2) - log(prev_b)) *
						  (log(s) - log(prev_s)) / (log(b) - log(prev_b)));
			return true;
		}
		prev_s = s;
		prev_b = b;
		first = false;
	}
	return false;
}

/* The smallest and largest size compared for bandwidth (bw) or time. */
static bool span(const struct val_case *c, bool bw, uint64_t *lo, uint64_t *hi)
{
	*lo = UINT64_MAX;
	*hi = 0;
	for (uint32_t i = 0; i < c->npts; i++)
		if (compared(&c->pts[i], bw)) {
			*lo = c->pts[i].size < *lo ? c->pts[i].size : *lo;
			*hi = c->pts[i].size > *hi ? c->pts[i].size : *hi;
		}
	return *hi > 0;
}

/* The sizes of "large" (lo to hi) with both times, as a line each. */
static void large_line(struct val_case *c, uint64_t lo, uint64_t hi)
{
	uint64_t *size = calloc(c->npts ? c->npts : 1, sizeof(*size));
	double *t[2] = { calloc(c->npts ? c->npts : 1, sizeof(double)),
			 calloc(c->npts ? c->npts : 1, sizeof(double)) };
	uint32_t n = 0;

	if (size && t[0] && t[1]) {
		for (uint32_t i = 0; i < c->npts; i++) {
			const struct val_point *pt = &c->pts[i];

			if (!compared(pt, false) || pt->size < lo || pt->size > hi)
				continue;
			size[n] = pt->size;
			t[0][n] = pt->meas_time_us;
			t[1][n++] = pt->pred_time_us;
		}
		c->line_sizes = n;
		c->have_line = cc_result_lines(size, t[0], t[1], n, c->busbw_factor,
					       c->line_fixed_us, c->line_busbw);
	}
	free(size);
	free(t[0]);
	free(t[1]);
}

/* The ring's step as a line (val_case.have_step): over the sizes that ran
 * the ring on Simple with both times, the least-squares fit of
 *   time = steps x fixed + chunk bytes / rate
 * (no intercept: a size's steps carry its fixed part), measured and
 * predicted; none where fewer than 2 sizes ran it, or their chunks
 * leave the two parts inseparable (every step the same chunk). */
static void ring_step_line(struct val_case *c)
{
	double s11[2] = { 0 }, s12[2] = { 0 }, s22[2] = { 0 }, t1[2] = { 0 }, t2[2] = { 0 };
	uint32_t n = 0;

	c->have_step = false;
	for (uint32_t i = 0; i < c->npts; i++) {
		const struct val_point *pt = &c->pts[i];
		double x1 = pt->ring_steps, x2 = pt->ring_bytes / 1e3; /* us at 1 GB/s */

		if (!compared(pt, false) || x1 <= 0)
			continue;
		for (int m = 0; m < 2; m++) {
			double y = m ? pt->pred_time_us : pt->meas_time_us;

			s11[m] += x1 * x1;
			s12[m] += x1 * x2;
			s22[m] += x2 * x2;
			t1[m] += x1 * y;
			t2[m] += x2 * y;
		}
		n++;
	}
	if (n < 2)
		return;
	for (int m = 0; m < 2; m++) {
		double det = s11[m] * s22[m] - s12[m] * s12[m];
		double inv = det > 1e-9 * s11[m] * s22[m] ? (s11[m] * t2[m] - s12[m] * t1[m]) / det : 0;

		if (inv <= 0)
			return;
		c->step_fixed_us[m] = (t1[m] * s22[m] - t2[m] * s12[m]) / det;
		c->step_rate[m] = 1 / inv;
	}
	c->step_sizes = n;
	c->have_step = true;
}

void val_case_score(struct val_case *c)
{
	uint64_t lo, hi;

	memset(c->have, 0, sizeof(c->have));
	/* Bandwidth is a large message's figure: a table that stops at small
	 * sizes (a latency study's 4 to 128 B) has none, nor a half peak. */
	bool bw = span(c, true, &lo, &hi) && hi > VAL_SMALL_MAX;

	c->have_line = false;
	if (bw)
		c->have[VAL_LARGE] = mean_error(c, (uint64_t)((double)hi / VAL_SPAN), hi, true,
						&c->err_pct[VAL_LARGE], &c->at_lo[VAL_LARGE],
						&c->at_hi[VAL_LARGE]);
	if (c->have[VAL_LARGE] && c->kind == VAL_COLL)
		large_line(c, c->at_lo[VAL_LARGE], c->at_hi[VAL_LARGE]);
	ring_step_line(c);
	if (span(c, false, &lo, &hi))
		c->have[VAL_SMALL] = mean_error(c, lo, (uint64_t)fmin((double)lo * VAL_SPAN,
								     (double)VAL_SMALL_MAX),
						false, &c->err_pct[VAL_SMALL], &c->at_lo[VAL_SMALL],
						&c->at_hi[VAL_SMALL]);
	if (bw && half_peak(c, false, &c->half_meas) && half_peak(c, true, &c->half_pred)) {
		double r = c->half_pred / c->half_meas;

		c->have[VAL_HALF] = true;
		/* The factor between the two, signed by its direction. */
		c->err_pct[VAL_HALF] = r >= 1 ? (r - 1) * 100 : -(1 / r - 1) * 100;
		c->at_lo[VAL_HALF] = (uint64_t)fmin(c->half_meas, c->half_pred);
		c->at_hi[VAL_HALF] = (uint64_t)fmax(c->half_meas, c->half_pred);
	}
}

double val_abs_pct(const struct val_case *c, enum val_class k)
{
	return fabs(c->err_pct[k]);
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void val_classes(const struct val_case *c, uint32_t n, struct val_class_sum sum[VAL_CLASS_COUNT])
{
	double *v = calloc(n ? n : 1, sizeof(*v));

	for (int k = 0; k < VAL_CLASS_COUNT; k++) {
		struct val_class_sum *s = &sum[k];

		memset(s, 0, sizeof(*s));
		for (uint32_t i = 0; v && i < n; i++) {
			if (!c[i].have[k])
				continue;
			v[s->n++] = val_abs_pct(&c[i], (enum val_class)k);
			if (!s->worst || val_abs_pct(&c[i], (enum val_class)k) > s->worst_abs_pct) {
				s->worst = &c[i];
				s->worst_abs_pct = val_abs_pct(&c[i], (enum val_class)k);
			}
		}
		if (!s->n)
			continue;
		qsort(v, s->n, sizeof(*v), by_value);
		s->median_abs_pct = s->n % 2 ? v[s->n / 2] : (v[s->n / 2 - 1] + v[s->n / 2]) / 2;
	}
	free(v);
}
