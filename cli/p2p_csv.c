/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/p2p_csv.c — `--csv` of a p2p run: one line per size, perftest's
 * figures in its units (MB/sec = 2^20 B/s, Mpps, usec), the other mode's
 * columns empty, so bw and lat files share one header and scripts can
 * concatenate them.  Written atomically by cli/p2p_run.c. */
#include <inttypes.h>

#include "cli/check.h"
#include "cli/p2p.h"
#include "sim/scenario.h"

void p2p_csv_header(FILE *f)
{
	fputs("scenario,executor,fabric,topology,op,mode,size_bytes,iterations,bw_peak_mib_s,"
	      "bw_avg_mib_s,msg_rate_mpps,t_min_us,t_max_us,t_typical_us,t_avg_us,bound_us,"
	      "status\n", f);
}

void p2p_csv_row(FILE *f, const struct p2p_opts *o, const struct p2p_row *row)
{
	const char *status = cli_run_status_name(row->err->status);

	/* On a device: executor verbs, the device in the fabric column. */
	cc_csv_str(f, o->scenario ? o->scenario->name : "");
	fprintf(f, ",%s,", o->device ? "verbs" : "sim");
	cc_csv_str(f, o->device ? o->device : o->fabric.name);
	fputc(',', f);
	cc_csv_str(f, o->device ? "" : p2p_topology_name(o));
	fprintf(f, ",%s,%s,%" PRIu64 ",%" PRIu32 ",", cc_p2p_op_name[o->p.op],
		cc_p2p_mode_name[o->p.mode], row->size, o->p.iters);
	if (row->failed)
		fputs(",,,,,,,", f);
	else if (o->p.mode == CC_P2P_BW)
		fprintf(f, "%.9g,%.9g,%.9g,,,,,", row->bw.peak_mib_s, row->bw.avg_mib_s,
			row->bw.msg_rate_mpps);
	else
		fprintf(f, ",,,%.9g,%.9g,%.9g,%.9g,", row->lat.min_us, row->lat.max_us,
			row->lat.typical_us, row->lat.avg_us);
	/* A run that completed but left no stamps has nothing to show. */
	if (row->failed && row->err->status == CC_RUN_OK)
		status = "no_timestamps";
	if (row->res)
		fprintf(f, "%.9g,%s\n", (double)row->bound_ps / 1e6, status);
	else
		fprintf(f, ",%s\n", status); /* no bound for a measurement */
}
