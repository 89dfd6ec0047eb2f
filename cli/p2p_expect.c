/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/p2p_expect.c — a p2p scenario's `expect:` entries (sim/scenario.h,
 * docs/yaml.md) held against perftest's columns as printed:
 *
 *   lat       t_avg[usec] (half the round trip for a ping-pong), bounds in ps;
 *   bw        BW average[MB/sec], which is 2^20 B/s, against SI bounds in
 *             bit/s ("11GB/s" = 88e9 bit/s = 10490.42 MB/sec), compared in
 *             bit/s so neither side is rounded to the other's unit;
 *   msg_rate  MsgRate[Mpps], bounds in messages per second.
 *
 * A miss is named on stderr with the entry's file:line and both units,
 * and makes the exit status 1 (as a collective's expectation does). */
#include <inttypes.h>
#include <stdio.h>

#include "cli/p2p.h"
#include "sim/scenario.h"

#define MIB_BITS (1048576.0 * 8) /* perftest's MB, in bits */

/* One figure against [lo, hi]; false, with a message, outside. */
static bool within(const struct cc_expect *x, uint64_t size, const char *what, double v,
		   uint64_t lo, uint64_t hi, double scale, const char *unit)
{
	bool low = v < (double)lo;

	if (!low && v <= (double)hi)
		return true;
	fprintf(stderr, "cclab run: %s: %" PRIu64 " bytes: %s %.6g %s is %s the expected %s "
		"%.6g %s\n", x->where, size, what, v / scale, unit, low ? "below" : "above",
		low ? "min" : "max", (double)(low ? lo : hi) / scale, unit);
	return false;
}

bool p2p_meets_expectation(const struct p2p_opts *o, const struct p2p_row *row)
{
	const struct cc_expect *x = cc_scenario_expect(o->scenario, row->size);
	bool ok = true;

	/* A failed row is already a failure, with its own message. */
	if (!x || row->failed)
		return true;
	fflush(stdout); /* after the row it is about */
	if (o->p.mode == CC_P2P_LAT)
		return within(x, row->size, "t_avg", row->lat.avg_us * 1e6, x->lat_min_ps,
			      x->lat_max_ps, 1e6, "us");
	double bps = row->bw.avg_mib_s * MIB_BITS;

	if (!within(x, row->size, "BW average", bps, x->bw_min_bps, x->bw_max_bps, 8e9, "GB/s")) {
		bool low = bps < (double)x->bw_min_bps;

		/* The same in the table's unit, which is not the file's. */
		fprintf(stderr, "cclab run: %s: %" PRIu64 " bytes: in perftest's MB/sec (2^20 B/s): "
			"%.2f, expected %s %.2f\n", x->where, row->size, row->bw.avg_mib_s,
			low ? "at least" : "at most",
			(double)(low ? x->bw_min_bps : x->bw_max_bps) / MIB_BITS);
		ok = false;
	}
	ok = within(x, row->size, "MsgRate", row->bw.msg_rate_mpps * 1e6, x->rate_min_pps,
		    x->rate_max_pps, 1e6, "Mpps") && ok;
	return ok;
}
