/* SPDX-License-Identifier: BSD-3-Clause */
/* core/p2p_report.h — perftest's result columns for a p2p run (core/p2p.h),
 * from the requester's timestamps.
 *
 * perftest stamps get_cycles() into tposted[i] just before each
 * ibv_post_send of the client, and into tcompleted[] when ibv_poll_cq has
 * returned a completion (src/perftest_resources.c); print_report_bw() and
 * print_report_lat() (src/perftest_parameters.c) turn those into the table.
 * Here the same stamps come from any executor that has a clock: the
 * simulator's trace (cc_p2p_times_from_trace), later the verbs backend.
 *
 *   bw   (ib_*_bw)   #bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]
 *        average = iters * size / (tcompleted[last] - tposted[0]);
 *        MsgRate = iters / that time, in 10^6 per second;
 *        peak    = the best rate over a run of consecutive WQEs, from the
 *                  post of its first to the completion of its last.
 *                  perftest takes every first post; completions are only
 *                  seen for signalled WQEs (every cq_mod-th), so cclab takes
 *                  the first post of each cq_mod group (at most 2048 of them,
 *                  evenly spaced, to stay O(groups)), which is never above
 *                  perftest's figure and never below the average.
 *        MB is 2^20 bytes, perftest's default; with --report_gbits perftest
 *        prints Gb/sec, 10^9 bit per second (cc_p2p_print_bw_row's gbits).
 *   lat  (ib_*_lat)  #bytes #iterations t_min[usec] t_max[usec] t_typical[usec]
 *        t_avg[usec] t_stdev[usec] 99% percentile[usec] 99.9% percentile[usec]
 *        over the iters - 1 deltas tposted[i + 1] - tposted[i], sorted:
 *        min, max, median (the mean of the two middle ones for an even
 *        count, perftest's get_median()), mean, standard deviation (of the
 *        population, as perftest's sqrt(sum / n)) and the samples at index
 *        ceil(n * 0.99) and ceil(n * 0.999) of the sorted deltas;
 *        divided by 2 for the ping-pongs (write, write_imm, send:
 *        perftest's rtt_factor), not for READ and atomics, whose full round
 *        trip perftest reports.  perftest's print_report_lat() first drops
 *        the LAT_MEASURE_TAIL (2) largest deltas: n = iters - 3 and t_max is
 *        the largest one kept (cc_p2p_lat_compute_tail(..., 2, ...), what
 *        cclab prints as ib_*_lat); `cclab p2p` keeps every delta (tail 0),
 *        so its t_max is the real maximum.  perftest's stdev truncates each
 *        deviation to whole microseconds (`int temp_var`), which makes it
 *        0 for any spread under 1 usec; this one is exact.  In a
 *        deterministic simulation every iteration after the first is
 *        usually alike, so min, typical and average coincide and max shows
 *        the first one's start-up.
 */
#ifndef CCLAB_CORE_P2P_REPORT_H
#define CCLAB_CORE_P2P_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "p2p.h"
#include "schedule.h"
#include "trace.h"

#define CC_P2P_NO_TIME UINT64_MAX
#define CC_P2P_PEAK_GROUPS 2048u

/* Per iteration of the client, picoseconds: tposted and tcompleted. */
struct cc_p2p_times {
	uint32_t iters;
	uint32_t client;     /* the client's rank in the schedule: 0, or 1 when
			      * cc_p2p_swap_ranks() made the server rank 0 */
	uint64_t *posted;    /* its post began */
	uint64_t *completed; /* the poll of its completion returned; NO_TIME unsignalled */
};

/* 0 or -ENOMEM; every time CC_P2P_NO_TIME. */
int cc_p2p_times_init(struct cc_p2p_times *t, uint32_t iters);
void cc_p2p_times_free(struct cc_p2p_times *t);

/* Fills t (initialised for s's iterations) from a trace of s's run: the
 * client's (rank t->client's) "post" events of its post_send ops, and "poll" events of polls whose
 * wr_id names a post_send.  0, or -EINVAL when a post is missing (the run
 * did not complete, or the trace dropped events). */
int cc_p2p_times_from_trace(struct cc_p2p_times *t, const struct cc_schedule *s,
			    const struct cc_trace *tr);

struct cc_p2p_bw {
	uint64_t time_ps;     /* tcompleted[last] - tposted[0] */
	double peak_mib_s;    /* perftest's MB/sec: 2^20 bytes per second */
	double avg_mib_s;
	double msg_rate_mpps; /* 10^6 messages per second */
};

struct cc_p2p_lat {
	uint32_t samples;     /* deltas the figures are over: iters - 1 - tail */
	uint32_t tail;        /* largest deltas left out: 0, or perftest's 2 */
	uint32_t rtt_factor;  /* 2 for ping-pongs, else 1 */
	uint64_t min_ps, max_ps; /* raw deltas, before rtt_factor */
	uint64_t p99_ps, p999_ps;
	double typical_ps, avg_ps, stdev_ps;
	/* as printed: / rtt_factor */
	double min_us, max_us, typical_us, avg_us, stdev_us, p99_us, p999_us;
};

/* perftest's print_report_lat() LAT_MEASURE_TAIL */
#define CC_P2P_PERFTEST_TAIL 2u

/* Adds b to sum as perftest's print_full_bw_report() adds the two sides
 * of a bidirectional run: peak, average and message rate; the time is
 * the longer side's. */
void cc_p2p_bw_add(struct cc_p2p_bw *sum, const struct cc_p2p_bw *b);
/* 0, or -EINVAL when a timestamp the figures need is missing, -ENOMEM. */
int cc_p2p_bw_compute(const struct cc_p2p_params *p, const struct cc_p2p_times *t,
		      struct cc_p2p_bw *out);
int cc_p2p_lat_compute(const struct cc_p2p_params *p, const struct cc_p2p_times *t,
		       struct cc_p2p_lat *out);
/* The same without the tail largest deltas (perftest: 2); -EINVAL unless
 * at least one delta is left. */
int cc_p2p_lat_compute_tail(const struct cc_p2p_params *p, const struct cc_p2p_times *t,
			    uint32_t tail, struct cc_p2p_lat *out);

/* The table: perftest's column names; widths its REPORT_FMT's, without
 * the tabs; two decimals for MB/sec, Gb/sec and usec, six for Mpps, as
 * perftest.  gbits: BW in Gb/sec (10^9 bit/s), perftest's --report_gbits. */
void cc_p2p_print_header(FILE *f, enum cc_p2p_mode mode, bool gbits);
void cc_p2p_print_bw_row(FILE *f, uint64_t size, uint32_t iters, const struct cc_p2p_bw *bw,
			 bool gbits);
void cc_p2p_print_lat_row(FILE *f, uint64_t size, uint32_t iters, const struct cc_p2p_lat *lat);
/* A row for a size whose run failed: the size, the iterations, N/A. */
void cc_p2p_print_failed_row(FILE *f, enum cc_p2p_mode mode, uint64_t size, uint32_t iters);
/* MB/sec (2^20 bytes) as Gb/sec (10^9 bit): perftest's --report_gbits. */
double cc_p2p_gbits(double mib_s);

#endif /* CCLAB_CORE_P2P_REPORT_H */
