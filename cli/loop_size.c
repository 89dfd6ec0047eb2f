/* cli/loop_size.c — one size of nccl-tests' loop (cli/loop.c) on any
 * executor, through its descriptor (core/exec.h): the size's schedule, its
 * run, its row on stdout and in --csv.  One copy for every executor, so
 * their tables, files and exit codes cannot drift apart; what is one
 * command's own comes in through struct cli_loop's hooks. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "cli/check.h"
#include "core/algo.h"
#include "core/dtype.h"
#include "sim/scenario.h"

struct cc_result_row cli_row(const struct cli_opts *o, uint64_t size, uint64_t count)
{
	struct cc_coll_params p = o->p;

	p.count = count;
	return (struct cc_result_row){
		.size = size,
		.count = count,
		.type = cc_dtype_name[o->p.dtype],
		.redop = cli_redop_label(&o->p),
		/* nccl-tests' *RunTest() pass root -1 but for broadcast and reduce */
		.root = cc_coll_rooted(o->p.coll) ? (int)o->p.root : -1,
		.chunk_bytes = cc_coll_chunk_bytes(&p),
		.time_us = CC_RESULT_NO_TIME,
		.busbw_factor = cc_busbw_factor(o->p.coll, o->p.nranks),
	};
}

/* Names for the CSV's scenario and topology columns. */
static const char *csv_scenario_name(const struct cli_opts *o)
{
	return o->scenario ? o->scenario->name : "";
}

static const char *topology_name(const struct cli_opts *o)
{
	return o->scenario ? o->scenario->net.name : sim_topo_kind_name[o->topo];
}

/* The --csv columns; docs/plots.md and scripts/plot-busbw.gp read them. */
void cli_csv_header(FILE *f)
{
	fputs("scenario,executor,fabric,topology,collective,transport,nranks,dtype,redop,"
	      "size_bytes,count,time_us,algbw_gbps,busbw_gbps,bound_us,wrong,status,algorithm,"
	      "protocol,channels,ring_order\n", f);
}

static void csv_row(const struct cli_opts *o, FILE *f, const struct cc_result_row *row,
		    const struct cc_run_error *err, double bound_us)
{
	bool sim = o->cmd == CLI_SIM;
	double algbw, busbw;

	/* The verbs executor's "fabric" is the device it ran on.  Names from
	 * files and devices are the user's text: quoted where CSV needs it. */
	cc_csv_str(f, csv_scenario_name(o));
	fprintf(f, ",%s,", o->verbs ? "verbs" : sim ? "sim" : "data");
	cc_csv_str(f, sim ? o->fabric.name : o->verbs && o->device ? o->device : "");
	fputc(',', f);
	cc_csv_str(f, sim ? topology_name(o) : "");
	fprintf(f, ",%s,%s,%" PRIu32 ",%s,%s,%" PRIu64 ",%" PRIu64 ",", cc_coll_name[o->p.coll],
		cc_transport_name[o->p.transport], o->p.nranks, cc_dtype_name[o->p.dtype],
		cli_redop_label(&o->p), row->size, row->count);
	if (!row->failed && cc_result_bw(row->size, row->time_us, row->busbw_factor, &algbw, &busbw))
		fprintf(f, "%.6g,%.6g,%.6g,", row->time_us, algbw, busbw);
	else
		fputs(",,,", f);
	if (bound_us >= 0)
		fprintf(f, "%.6g", bound_us);
	if (row->unchecked)
		fprintf(f, ",N/A,%s", cli_run_status_name(err->status));
	else
		fprintf(f, ",%" PRIu64 ",%s", row->wrong, cli_run_status_name(err->status));
	/* what tells apart runs merged into one file */
	fprintf(f, ",%s,%s,%" PRIu32 ",%s\n", cc_algo_name[o->p.algo], cc_proto_name[o->p.proto],
		o->p.nchannels > 1 ? o->p.nchannels : 1, /* 0: the default, one */
		cc_ring_order_name[o->p.ring_order]);
}

void cli_report_row(const struct cli_opts *o, const struct cc_result_row *row,
		    const struct cc_run_error *err, struct cc_results_summary *sum,
		    const struct cli_sink *out, double bound_us)
{
	cc_results_print_row(stdout, row);
	cc_results_summary_add(sum, row);
	if (out->csv)
		csv_row(o, out->csv, row, err, bound_us);
	if (!row->failed || o->quiet)
		return;
	fflush(stdout); /* keep the row and its error in order on a terminal */
	/* msg is a fixed array; do not trust it to be terminated. */
	fprintf(stderr, "cclab %s: %" PRIu64 " bytes: %s: %.*s\n", cli_opts_cmd(o), row->size,
		cli_run_status_name(err->status), (int)sizeof(err->msg), err->msg);
}

/* Whether size `bytes` carries data. */
static bool carried(const struct cli_opts *o, const struct cli_loop *l, uint64_t bytes)
{
	return l->carries ? l->carries(o, bytes) : o->check;
}

/* A run the executor refused, when its command says nothing of its own. */
static int refused(const struct cli_opts *o, const struct cli_loop *l, uint64_t size, int rc,
		   const char *err)
{
	if (l->refused)
		return l->refused(o, l->ctx, size, rc, err);
	if (rc == -E2BIG)
		cli_refuse_memory(o, size);
	else
		fprintf(stderr, "cclab %s: %s executor, %" PRIu64 " bytes: %s\n", cli_opts_cmd(o),
			cc_executor_ops_name(l->x), size, err);
	return CLI_EXIT_FAIL;
}

int cli_loop_size(const struct cli_opts *o, const struct cli_loop *l, uint64_t bytes, void *res,
		  struct cc_results_summary *sum, const struct cli_sink *out, bool *ok)
{
	const struct cc_executor_ops *x = l->x;
	/* The wall-clock limit covers building the schedule and running it. */
	uint64_t start_ns = cc_clock_ns();
	bool check = carried(o, l, bytes);
	struct cc_exec_common c = { .seed = o->seed, .order_seed = o->order_seed,
				    .faults = o->faults, .nfaults = o->nfaults, .check = check };
	const void *setting = l->setting ? l->setting(o, l->ctx, &c, start_ns) : NULL;
	/* Timing only, Simple's staging is never allocated: not weighed. */
	const struct cc_build_opts bo = {
		.deadline_ns = l->wall_limited ? cli_wall_deadline(o->wall_limit_ms, start_ns) : 0,
		.timing_only = l->wall_limited && !check,
	};
	struct cli_size z = { .bound_us = -1 };
	struct cc_run_error limit = { .status = CC_RUN_TIME_LIMIT };
	struct cc_schedule *s;
	uint64_t count, size;
	char err[512] = "";
	double t;
	int rc = cli_build_with(o, bytes, &bo, &s, &count, &size);

	*ok = false;
	if (rc && rc != CLI_BUILD_TIME_LIMIT)
		return rc;
	z.row = cli_row(o, size, count);
	z.row.unchecked = !check;
	if (rc == CLI_BUILD_TIME_LIMIT) {
		/* A failed row, status time_limit, as for a run the limit
		 * stopped (nothing ran: no time, no counters). */
		snprintf(limit.msg, sizeof(limit.msg), "time limit reached: the wall-clock limit "
			 "(%" PRIu64 " ms) stopped the build of the schedule, before the run",
			 o->wall_limit_ms);
		z.err = &limit;
		z.row.failed = true;
		cli_report_row(o, &z.row, z.err, sum, out, z.bound_us);
		if (l->after_row) /* for its --json entry: the size failed anyway */
			l->after_row(o, l->ctx, &z, out);
		return 0;
	}
	memset(res, 0, x->result_size);
	rc = x->run(s, &c, setting, res, err, sizeof(err));
	if (rc) {
		rc = refused(o, l, size, rc, err);
		goto out;
	}
	z.s = s;
	z.res = res;
	z.err = x->error(res);
	z.row.failed = z.err->status != CC_RUN_OK;
	z.row.wrong = x->wrong(res);
	/* A run that stopped early has no time worth a bandwidth. */
	t = x->time_us(res);
	if (!z.row.failed && !isnan(t))
		z.row.time_us = t;
	if (l->before_row && (rc = l->before_row(o, l->ctx, &z)))
		goto out;
	cli_report_row(o, &z.row, z.err, sum, out, z.bound_us);
	*ok = !z.row.failed && (z.row.unchecked || z.row.wrong == 0);
	if (l->after_row)
		*ok = l->after_row(o, l->ctx, &z, out) && *ok;
out:
	x->result_free(res);
	cc_schedule_free(s);
	return rc;
}
