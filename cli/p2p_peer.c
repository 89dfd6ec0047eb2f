/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/p2p_peer.c — a p2p row as text, from perftest's client to its server
 * (cli/p2p_verbs.c, two hosts): the server prints the client's figures, as
 * perftest's server prints the report the client sends it
 * (xchg_bw_reports(), src/perftest_communication.c).
 *
 * Text rather than the struct: the two hosts need not share a compiler,
 * padding or byte order.  Doubles go as C99 hexadecimal floats (%a), so
 * the server prints exactly the client's figures.  "F" is a failed row;
 * "B ..." and "L ..." a bw and a lat row. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/p2p.h"

void p2p_row_encode(const struct p2p_row *row, enum cc_p2p_mode mode, char *buf, size_t len)
{
	const struct cc_p2p_bw *b = &row->bw;
	const struct cc_p2p_lat *l = &row->lat;

	if (row->failed)
		snprintf(buf, len, "F");
	else if (mode == CC_P2P_BW)
		snprintf(buf, len, "B %" PRIu64 " %a %a %a", b->time_ps, b->peak_mib_s, b->avg_mib_s,
			 b->msg_rate_mpps);
	else
		snprintf(buf, len, "L %" PRIu32 " %" PRIu32 " %" PRIu32 " %" PRIu64 " %" PRIu64
			 " %" PRIu64 " %" PRIu64 " %a %a %a %a %a %a %a %a %a %a", l->samples, l->tail,
			 l->rtt_factor, l->min_ps, l->max_ps, l->p99_ps, l->p999_ps, l->typical_ps,
			 l->avg_ps, l->stdev_ps, l->min_us, l->max_us, l->typical_us, l->avg_us,
			 l->stdev_us, l->p99_us, l->p999_us);
}

int p2p_row_decode(const char *text, size_t n, struct p2p_row *row)
{
	char buf[P2P_ROW_TEXT];
	struct cc_p2p_bw *b = &row->bw;
	struct cc_p2p_lat *l = &row->lat;
	int end = 0;

	if (n == 0 || n >= sizeof(buf) || memchr(text, '\0', n))
		return -EINVAL;
	memcpy(buf, text, n);
	buf[n] = '\0';
	memset(b, 0, sizeof(*b));
	memset(l, 0, sizeof(*l));
	row->failed = false;
	if (!strcmp(buf, "F")) {
		row->failed = true;
		return 0;
	}
	if (buf[0] == 'B' &&
	    sscanf(buf, "B %" SCNu64 " %la %la %la%n", &b->time_ps, &b->peak_mib_s, &b->avg_mib_s,
		   &b->msg_rate_mpps, &end) == 4 && (size_t)end == n)
		return 0;
	if (buf[0] == 'L' &&
	    sscanf(buf, "L %" SCNu32 " %" SCNu32 " %" SCNu32 " %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %" SCNu64 " %la %la %la %la %la %la %la %la %la %la%n", &l->samples, &l->tail,
		   &l->rtt_factor, &l->min_ps, &l->max_ps, &l->p99_ps, &l->p999_ps, &l->typical_ps,
		   &l->avg_ps, &l->stdev_ps, &l->min_us, &l->max_us, &l->typical_us, &l->avg_us,
		   &l->stdev_us, &l->p99_us, &l->p999_us, &end) == 17 && (size_t)end == n)
		return 0;
	row->failed = true;
	return -EINVAL;
}
