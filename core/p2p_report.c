/* SPDX-License-Identifier: BSD-3-Clause */
/* core/p2p_report.c — perftest's bw and lat figures from tposted /
 * tcompleted stamps, and its table (core/p2p_report.h). */
#include "p2p_report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MIB 1048576.0 /* perftest's MB (format_factor 0x100000) */

int cc_p2p_times_init(struct cc_p2p_times *t, uint32_t iters)
{
	t->iters = iters;
	t->client = 0;
	t->posted = malloc((iters ? iters : 1) * sizeof(*t->posted));
	t->completed = malloc((iters ? iters : 1) * sizeof(*t->completed));
	if (!t->posted || !t->completed) {
		cc_p2p_times_free(t);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < iters; i++)
		t->posted[i] = t->completed[i] = CC_P2P_NO_TIME;
	return 0;
}

void cc_p2p_times_free(struct cc_p2p_times *t)
{
	free(t->posted);
	free(t->completed);
	t->posted = t->completed = NULL;
}

/* The client's ops as iterations: the k-th post_send is iteration k (the
 * client posts nothing else), and a poll whose wr_id is a post_send's
 * index reaps that iteration's completion (builders use the post's index
 * as wr_id). */
int cc_p2p_times_from_trace(struct cc_p2p_times *t, const struct cc_schedule *s,
			    const struct cc_trace *tr)
{
	if (t->client >= s->nranks)
		return -EINVAL;
	const struct cc_rank_sched *rs = &s->ranks[t->client];
	uint32_t *iter = malloc((rs->nops ? rs->nops : 1) * sizeof(*iter));
	uint32_t k = 0;

	if (!iter)
		return -ENOMEM;
	for (uint32_t i = 0; i < rs->nops; i++) {
		const struct cc_op *o = cc_rank_op(rs, i);

		iter[i] = UINT32_MAX;
		if (o->kind == CC_OP_POST_SEND)
			iter[i] = k++;
		else if (o->kind == CC_OP_POLL_CQ && o->u.poll.wr_id < i &&
			 cc_rank_op(rs, o->u.poll.wr_id)->kind == CC_OP_POST_SEND)
			iter[i] = iter[o->u.poll.wr_id];
	}
	for (size_t e = 0; e < tr->n; e++) {
		const struct cc_trace_event *ev = &tr->ev[e];

		if (ev->rank != t->client || ev->op >= rs->nops || iter[ev->op] >= t->iters)
			continue;
		if (ev->kind == CC_TRACE_POST && cc_rank_op(rs, ev->op)->kind == CC_OP_POST_SEND)
			t->posted[iter[ev->op]] = ev->t_ps;
		else if (ev->kind == CC_TRACE_POLL && cc_rank_op(rs, ev->op)->kind == CC_OP_POLL_CQ)
			t->completed[iter[ev->op]] = ev->t_ps;
	}
	free(iter);
	if (k != t->iters)
		return -EINVAL;
	for (uint32_t i = 0; i < t->iters; i++)
		if (t->posted[i] == CC_P2P_NO_TIME)
			return -EINVAL;
	return 0;
}

/* Every stride-th end, and the last one. */
static uint32_t next_end(uint32_t e, uint32_t stride, uint32_t n)
{
	if (e + 1 >= n)
		return n;
	return e + stride < n ? e + stride : n - 1;
}

void cc_p2p_bw_add(struct cc_p2p_bw *sum, const struct cc_p2p_bw *b)
{
	sum->peak_mib_s += b->peak_mib_s;
	sum->avg_mib_s += b->avg_mib_s;
	sum->msg_rate_mpps += b->msg_rate_mpps;
	if (b->time_ps > sum->time_ps)
		sum->time_ps = b->time_ps;
}

int cc_p2p_bw_compute(const struct cc_p2p_params *p, const struct cc_p2p_times *t,
		      struct cc_p2p_bw *out)
{
	uint32_t n = t->iters, ngroups = 0, *start;
	double best = 0;

	memset(out, 0, sizeof(*out));
	if (n == 0 || t->completed[n - 1] == CC_P2P_NO_TIME ||
	    t->completed[n - 1] <= t->posted[0])
		return -EINVAL;
	out->time_ps = t->completed[n - 1] - t->posted[0];
	/* Rates in messages per ps, one formula for average and peak: the
	 * whole run is one of the stretches, so the peak is never below. */
	best = (double)n / (double)out->time_ps;
	out->avg_mib_s = best * (double)p->size * 1e12 / MIB;
	out->msg_rate_mpps = best * 1e12 / 1e6;

	/* The cq_mod groups: each ends with a signalled WQE, whose completion
	 * the poll stamped; the next starts after it.  At most
	 * CC_P2P_PEAK_GROUPS starts and ends, evenly spaced (the last end
	 * always), keep this O(1) in the iterations. */
	start = malloc(2 * (size_t)n * sizeof(*start));
	if (!start)
		return -ENOMEM;
	uint32_t *end = start + n, nend = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (i == 0 || t->completed[i - 1] != CC_P2P_NO_TIME)
			start[ngroups++] = i;
		if (t->completed[i] != CC_P2P_NO_TIME)
			end[nend++] = i;
	}
	uint32_t stride = (ngroups + CC_P2P_PEAK_GROUPS - 1) / CC_P2P_PEAK_GROUPS;

	for (uint32_t g = 0; g < ngroups; g += stride) {
		uint32_t i = start[g];

		for (uint32_t e = 0; e < nend; e = next_end(e, stride, nend)) {
			uint32_t j = end[e];

			if (j < i || t->completed[j] <= t->posted[i])
				continue;
			double rate = (double)(j - i + 1) / (double)(t->completed[j] - t->posted[i]);

			if (rate > best)
				best = rate;
		}
	}
	free(start);
	out->peak_mib_s = best * (double)p->size * 1e12 / MIB;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* perftest's percentile: the sorted delta at index ceil(n * q), n the
 * deltas kept (print_report_lat(): iters_99 = ceil(measure_cnt * 0.99));
 * with no tail dropped that index can be n itself, so the last delta. */
static uint64_t percentile(const uint64_t *d, uint32_t n, uint32_t all, double q)
{
	double i = ceil((double)n * q);

	return d[i >= (double)all ? all - 1 : (uint32_t)i];
}

int cc_p2p_lat_compute_tail(const struct cc_p2p_params *p, const struct cc_p2p_times *t,
			    uint32_t tail, struct cc_p2p_lat *out)
{
	uint32_t m = t->iters ? t->iters - 1 : 0, n;
	uint64_t *d;
	double sum = 0, var = 0, f;

	memset(out, 0, sizeof(*out));
	if (m <= tail)
		return -EINVAL;
	n = m - tail;
	d = malloc(m * sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (uint32_t i = 0; i < m; i++) {
		if (t->posted[i + 1] < t->posted[i] || t->posted[i + 1] == CC_P2P_NO_TIME) {
			free(d);
			return -EINVAL;
		}
		d[i] = t->posted[i + 1] - t->posted[i];
	}
	qsort(d, m, sizeof(*d), cmp_u64);
	for (uint32_t i = 0; i < n; i++)
		sum += (double)d[i];
	out->samples = n;
	out->tail = tail;
	out->rtt_factor = cc_p2p_is_pingpong(p->op, p->mode) ? 2 : 1;
	out->min_ps = d[0];
	/* perftest's t_max is delta[measure_cnt], measure_cnt = n: past the
	 * deltas the other figures are over, the smallest one dropped */
	out->max_ps = d[tail ? n : m - 1];
	/* perftest's get_median(): the middle one, or the mean of two. */
	out->typical_ps = n % 2 ? (double)d[n / 2] : ((double)d[n / 2 - 1] + (double)d[n / 2]) / 2;
	out->avg_ps = sum / n;
	for (uint32_t i = 0; i < n; i++)
		var += ((double)d[i] - out->avg_ps) * ((double)d[i] - out->avg_ps);
	out->stdev_ps = sqrt(var / n);
	out->p99_ps = percentile(d, n, m, 0.99);
	out->p999_ps = percentile(d, n, m, 0.999);
	f = 1e6 * out->rtt_factor;
	out->min_us = (double)out->min_ps / f;
	out->max_us = (double)out->max_ps / f;
	out->typical_us = out->typical_ps / f;
	out->avg_us = out->avg_ps / f;
	out->stdev_us = out->stdev_ps / f;
	out->p99_us = (double)out->p99_ps / f;
	out->p999_us = (double)out->p999_ps / f;
	free(d);
	return 0;
}

int cc_p2p_lat_compute(const struct cc_p2p_params *p, const struct cc_p2p_times *t,
		       struct cc_p2p_lat *out)
{
	return cc_p2p_lat_compute_tail(p, t, 0, out);
}

double cc_p2p_gbits(double mib_s)
{
	return mib_s * MIB * 8 / 1e9;
}

void cc_p2p_print_header(FILE *f, enum cc_p2p_mode mode, bool gbits)
{
	const char *u = gbits ? "Gb/sec" : "MB/sec";

	if (mode == CC_P2P_BW)
		fprintf(f, " #bytes     #iterations    BW peak[%s]    BW average[%s]   "
			   "MsgRate[Mpps]\n", u, u);
	else
		fprintf(f, " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
			   "t_avg[usec]    t_stdev[usec]   99%% percentile[usec]   "
			   "99.9%% percentile[usec]\n");
}

void cc_p2p_print_bw_row(FILE *f, uint64_t size, uint32_t iters, const struct cc_p2p_bw *bw,
			 bool gbits)
{
	double peak = gbits ? cc_p2p_gbits(bw->peak_mib_s) : bw->peak_mib_s;
	double avg = gbits ? cc_p2p_gbits(bw->avg_mib_s) : bw->avg_mib_s;

	fprintf(f, " %-7llu    %-10u       %-7.2f            %-7.2f              %-7.6f\n",
		(unsigned long long)size, iters, peak, avg, bw->msg_rate_mpps);
}

/* REPORT_FMT_LAT's columns, its tabs as spaces */
#define LAT_ROW " %-7llu %-10u  %-7.2f        %-7.2f      %-7.2f          %-7.2f        " \
		"%-7.2f          %-7.2f                %-7.2f\n"
#define LAT_NA  " %-7llu %-10u  %-7s        %-7s      %-7s          %-7s        " \
		"%-7s          %-7s                %-7s\n"

void cc_p2p_print_lat_row(FILE *f, uint64_t size, uint32_t iters, const struct cc_p2p_lat *lat)
{
	fprintf(f, LAT_ROW, (unsigned long long)size, iters, lat->min_us, lat->max_us,
		lat->typical_us, lat->avg_us, lat->stdev_us, lat->p99_us, lat->p999_us);
}

void cc_p2p_print_failed_row(FILE *f, enum cc_p2p_mode mode, uint64_t size, uint32_t iters)
{
	if (mode == CC_P2P_BW)
		fprintf(f, " %-7llu    %-10u       %-7s            %-7s              %-7s\n",
			(unsigned long long)size, iters, "N/A", "N/A", "N/A");
	else
		fprintf(f, LAT_NA, (unsigned long long)size, iters, "N/A", "N/A", "N/A", "N/A",
			"N/A", "N/A", "N/A");
}
