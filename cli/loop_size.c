/* SPDX-License-Identifier: BSD-3-Clause */
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

static struct cc_result_row size_row(const struct cli_opts *o, uint64_t size, uint64_t count)
{
	struct cc_coll_params p;
	struct cc_nccl_pick pick = {0};
	char err[256];
	/* `auto`: what this size was built with (cli_build_with(), which
	 * reported any error before the run). */
	bool nccl = o->nccl && !cli_size_params(o, size, &p, &pick, err, sizeof(err));

	if (!nccl)
		p = o->p;
	p.count = count;
	return (struct cc_result_row){
		.nccl = nccl,
		.pick = pick,
		.size = size,
		.count = count,
		.type = cc_dtype_name[o->p.dtype],
		.redop = cli_redop_label(&o->p),
		/* nccl-tests' *RunTest() pass root -1 but for broadcast and reduce */
		.root = cc_coll_rooted(o->p.coll) ? (int)o->p.root : -1,
		.chunk_bytes = cc_coll_chunk_bytes(&p),
		.slot_bytes = p.slot_bytes,
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

static void csv_row(const struct cli_opts *o, const struct cc_executor_ops *x, FILE *f,
		    const struct cc_result_row *row, const struct cc_run_error *err,
		    double bound_us)
{
	/* A modelled network has a fabric and a topology; the "fabric" of an
	 * executor on a device is that device. */
	bool net = x->caps & CC_EXEC_CAP_LINKS, dev = x->caps & CC_EXEC_CAP_DEVICE;
	double algbw, busbw;

	/* Names from files and devices are the user's text: quoted where CSV
	 * needs it. */
	cc_csv_str(f, csv_scenario_name(o));
	fprintf(f, ",%s,", cc_executor_ops_name(x));
	cc_csv_str(f, net ? o->fabric.name : dev && o->device ? o->device : "");
	fputc(',', f);
	cc_csv_str(f, net ? topology_name(o) : "");
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
	/* what tells apart runs merged into one file: what this size ran */
	struct cc_coll_params p;

	cli_row_params(o, row, &p);
	fprintf(f, ",%s,%s,%" PRIu32 ",%s\n", cc_algo_name[p.algo], cc_proto_name[p.proto],
		p.nchannels > 1 ? p.nchannels : 1, /* 0: the default, one */
		cc_ring_order_name[p.ring_order]);
}

/* Prints the row, adds it to the summary, writes its --csv line, and for
 * a failed row names the status and the executor's message on stderr. */
static void report_row(const struct cli_opts *o, const struct cli_loop *l,
		       const struct cli_size *z, struct cc_results_summary *sum,
		       const struct cli_sink *out)
{
	const struct cc_run_error *err = z->err;

	if (l->table)
		l->table->row(o, l->table->ctx, &z->row);
	else
		cc_results_print_row(stdout, &z->row);
	cc_results_summary_add(sum, &z->row);
	if (out->csv)
		csv_row(o, l->x, out->csv, &z->row, err, z->bound_us);
	if (!z->row.failed || o->quiet)
		return;
	fflush(stdout); /* keep the row and its error in order on a terminal */
	/* msg is a fixed array; do not trust it to be terminated. */
	fprintf(stderr, "cclab %s: %" PRIu64 " bytes: %s: %.*s\n", cli_opts_cmd(o), z->row.size,
		cli_run_status_name(err->status), (int)sizeof(err->msg), err->msg);
}

bool cli_size_carried(const struct cli_opts *o, const struct cli_loop *l, uint64_t bytes)
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

void cli_size_build(const struct cli_opts *o, const struct cli_loop *l, struct cli_size_run *r,
		    FILE *errs)
{
	/* The wall-clock limit covers building the schedule and running it. */
	uint64_t start_ns = cc_clock_ns();

	r->c = (struct cc_exec_common){ .seed = o->seed, .order_seed = o->order_seed,
					 .faults = o->faults, .nfaults = o->nfaults,
					 .cancel = r->c.cancel };
	r->check = r->c.check = cli_size_carried(o, l, r->bytes);
	r->ctx = l->setting ? l->setting(o, l->ctx, &r->c, start_ns, r->last, r->setting) : NULL;
	/* Timing only, Simple's staging is never allocated: not weighed. */
	const struct cc_build_opts bo = {
		.deadline_ns = l->wall_limited ? cli_wall_deadline(o->wall_limit_ms, start_ns) : 0,
		.timing_only = l->wall_limited && !r->check,
		.one_rank = l->one_rank,
		.rank = l->rank,
		.generated = l->generates && !o->nfaults,
	};

	r->s = NULL;
	r->err[0] = '\0';
	r->run_rc = 0;
	r->rc = cli_build_to(o, r->bytes, &bo, &r->s, &r->count, &r->size, errs);
}

void cli_size_run(const struct cli_loop *l, struct cli_size_run *r)
{
	memset(r->res, 0, l->x->result_size);
	r->run_rc = l->x->run(r->s, &r->c, r->ctx, r->res, r->err, sizeof(r->err));
}

int cli_size_report(const struct cli_opts *o, const struct cli_loop *l, struct cli_size_run *r,
		    struct cc_results_summary *sum, const struct cli_sink *out, bool *ok)
{
	const struct cc_executor_ops *x = l->x;
	struct cli_size z = { .bound_us = -1 };
	struct cc_run_error limit = { .status = CC_RUN_TIME_LIMIT };
	int rc = r->rc;
	double t;

	*ok = false;
	if (rc && rc != CLI_BUILD_TIME_LIMIT)
		return rc;
	z.row = size_row(o, r->size, r->count);
	z.row.unchecked = !r->check;
	if (rc == CLI_BUILD_TIME_LIMIT) {
		/* A failed row, status time_limit, as for a run the limit
		 * stopped (nothing ran: no time, no counters). */
		snprintf(limit.msg, sizeof(limit.msg), "time limit reached: the wall-clock limit "
			 "(%" PRIu64 " ms) stopped the build of the schedule, before the run",
			 o->wall_limit_ms);
		z.err = &limit;
		z.row.failed = true;
		report_row(o, l, &z, sum, out);
		if (l->after_row) /* for its --json entry: the size failed anyway */
			l->after_row(o, l->ctx, &z, out);
		return 0;
	}
	if (r->run_rc) {
		rc = refused(o, l, r->size, r->run_rc, r->err);
		goto out;
	}
	z.s = r->s;
	z.res = r->res;
	z.err = x->error(r->res);
	z.row.failed = z.err->status != CC_RUN_OK;
	z.row.wrong = x->wrong(r->res);
	/* A run that stopped early has no time worth a bandwidth. */
	t = x->time_us(r->res);
	if (!z.row.failed && !isnan(t))
		z.row.time_us = t;
	if (l->before_row && (rc = l->before_row(o, l->ctx, &z)))
		goto out;
	report_row(o, l, &z, sum, out);
	*ok = !z.row.failed && (z.row.unchecked || z.row.wrong == 0);
	if (l->after_row)
		*ok = l->after_row(o, l->ctx, &z, out) && *ok;
out:
	cli_size_run_clear(l, r);
	return rc;
}

void cli_size_run_clear(const struct cli_loop *l, struct cli_size_run *r)
{
	if (r->s) {
		/* a run that was refused filled nothing the result must free */
		l->x->result_free(r->res);
		cc_schedule_free(r->s);
		r->s = NULL;
	}
}
