/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/p2p_run.c — a p2p test's sweep on the simulator, for `cclab p2p`
 * (cli/cmd_p2p.c) and for `cclab run` on a scenario with `p2p:`
 * (cli/cmd_run.c): one copy, so both print the same table and files.
 *
 * Each size runs once, with the data not carried (a p2p schedule has no
 * collective to check; the data executor, `make test`'s test_p2p, checks
 * the schedule itself).  The trace of the run gives perftest's stamps:
 * rank 0's "post" events are tposted, its "poll" events of send
 * completions tcompleted (core/p2p_report.h).
 *
 * As `cclab sim` does, a result no fabric could give is a model bug, not a
 * fast fabric: a run below the alpha-beta lower bound (sim/bound.h), or a
 * payload rate above the fastest link, is reported on stderr, exit 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/check.h"
#include "cli/p2p.h"
#include "core/algo.h"
#include "sim/bound.h"
#include "sim/scenario.h"

struct p2p_ctx {
	const struct sim_net *net; /* every size's, and the bound's */
	struct cc_trace trace;     /* this size's events: the stamps, and --trace */
	struct p2p_files f;        /* --json, --csv */
	uint32_t errors;           /* sizes whose run failed: the closing line */
};

const char p2p_dashes[] =
	"---------------------------------------------------------------------------------------\n";

const char *p2p_cmd(const struct p2p_opts *o)
{
	return o->scenario ? "run" : "p2p";
}

void p2p_print_depths(const struct cc_p2p_params *p, const char *inl)
{
	printf("# iterations: %" PRIu32 "  tx depth: %" PRIu32 "  cq moderation: %" PRIu32
	       "  rx depth: %" PRIu32 "  memory: %s%s%s\n", p->iters, p->tx_depth,
	       cc_p2p_cq_mod(p), p->rx_depth, cc_mem_kind_name[p->mem], inl ? "  inline: " : "",
	       inl ? inl : "");
	if (p->post_list > 1)
		printf("# post list: %" PRIu32 " WQEs an ibv_post_send, one doorbell\n",
		       p->post_list);
}

const char *p2p_topology_name(const struct p2p_opts *o)
{
	return o->scenario ? o->scenario->net.name : sim_topo_kind_name[o->topo];
}

static void preamble(const struct p2p_opts *o, const struct sim_net *net)
{
	const struct cc_p2p_params *p = &o->p;
	const struct sim_link_params *l = &o->fabric.link;
	bool pp = cc_p2p_is_pingpong(p->op, p->mode);
	const char *inl = "none (perftest's default for this test)";

	if (pp)
		inl = p->op == CC_P2P_SEND ? "messages <= 8 B (perftest: <= 236 B)"
					   : "messages <= 8 B (perftest: <= 220 B)";
	printf("# cclab %s p2p: %s %s, as %s%s: %s, %s, one RC QP pair\n", CCLAB_VERSION,
	       cc_p2p_op_name[p->op], cc_p2p_mode_name[p->mode], cc_p2p_tool(p->op, p->mode),
	       p->bidir ? " -b" : "", cc_opcode_name[cc_p2p_opcode(p->op, p->mode)],
	       p->bidir ? "ranks 0 and 1 both sending, the figures the sum of both sides'"
			: "rank 0 (client) to rank 1 (server)");
	if (o->scenario)
		printf("# scenario: %s (%s)\n", o->scenario->name, o->scenario->file);
	printf("# fabric: %s  topology: %s  link: %s %g Gb/s  MTU: %" PRIu32 " B\n", o->fabric.name,
	       p2p_topology_name(o), sim_link_info[l->type].name, (double)l->rate_bps / 1e9,
	       l->mtu_bytes);
	cli_print_pcie(net, &o->fabric);
	p2p_print_depths(p, inl);
	if (p->mode == CC_P2P_BW)
		printf("# executor: sim (simulated time, one run per size); %s; "
		       "average over tposted[0] .. tcompleted[last]\n",
		       o->gbits ? "Gb = 10^9 bit" : "MB = 2^20 bytes");
	else
		printf("# executor: sim (simulated time, one run per size); t over the %" PRIu32
		       " deltas tposted[i+1] - tposted[i]%s, %s\n",
		       p->iters - 1 - (o->prog ? CC_P2P_PERFTEST_TAIL : 0),
		       o->prog ? " but the 2 largest, as perftest" : "",
		       pp ? "halved: a half round trip" : "the whole operation");
	if (p->op == CC_P2P_WRITE && p->mode == CC_P2P_LAT)
		printf("# write lat: WRITE_WITH_IMM ping-pong polling the receive CQ "
		       "(ib_write_lat polls the buffer's last byte; docs/p2p.md)\n");
	fputs(p2p_dashes, stdout);
	p2p_print_header(o);
}

void p2p_print_header(const struct p2p_opts *o)
{
	cc_p2p_print_header(stdout, o->p.mode, o->gbits);
}

void p2p_print_row(const struct p2p_opts *o, const struct p2p_row *row)
{
	if (o->p.mode == CC_P2P_BW)
		cc_p2p_print_bw_row(stdout, row->size, o->p.iters, &row->bw, o->gbits);
	else
		cc_p2p_print_lat_row(stdout, row->size, o->p.iters, &row->lat);
}

/* As ib_*_lat, perftest's figures leave out its two largest deltas
 * (print_report_lat(), LAT_MEASURE_TAIL); cclab p2p keeps them all. */
int p2p_figures(const struct p2p_opts *o, const struct cc_p2p_params *p,
		const struct cc_p2p_times *t, struct p2p_row *row)
{
	if (p->mode == CC_P2P_BW)
		return cc_p2p_bw_compute(p, t, &row->bw);
	return cc_p2p_lat_compute_tail(p, t, o->prog ? CC_P2P_PERFTEST_TAIL : 0, &row->lat);
}

/* Simulated time after which a run counts as stuck (a peer that never
 * posts a receive, retried forever): ten times what the link needs for
 * each message plus 1 ms per iteration, at least 1 s.  An honest run
 * takes a small fraction of it, a stuck one ends long before `cclab sim`'s
 * fixed hour, and a large -n is not cut short. */
static sim_time_ps time_limit(const struct p2p_opts *o, uint64_t size)
{
	double ser_ps = (double)size * 8 * 1e12 / (double)o->fabric.link.rate_bps;
	double lim = (double)o->p.iters * (1e9 + 10 * ser_ps);

	if (lim < 1e12)
		lim = 1e12;
	return lim >= 1e19 ? (sim_time_ps)1e19 : (sim_time_ps)lim;
}

/* Physics: says on stderr what a completed run broke; false if anything. */
static bool within_bounds(const struct p2p_opts *o, const struct p2p_ctx *c,
			  const struct p2p_row *row)
{
	double link = (double)sim_topo_fastest_rate(c->net, &o->fabric) / 8 / 1048576; /* MB/s */
	bool ok = true;

	if (o->p.bidir) /* the two directions' sum */
		link *= 2;

	fflush(stdout); /* after the row it is about */
	if (row->res->time_ps < row->bound_ps) {
		fprintf(stderr, "cclab %s: model bug: %" PRIu64 " bytes: the run took %" PRIu64
			" ps, below the alpha-beta lower bound %" PRIu64 " ps\n", p2p_cmd(o),
			row->size, row->res->time_ps, row->bound_ps);
		ok = false;
	}
	if (o->p.mode == CC_P2P_BW && (row->bw.avg_mib_s > link || row->bw.peak_mib_s > link)) {
		fprintf(stderr, "cclab %s: model bug: %" PRIu64 " bytes: %.2f MB/sec (peak %.2f) "
			"exceeds the fastest link, %.2f MB/sec\n", p2p_cmd(o), row->size,
			row->bw.avg_mib_s, row->bw.peak_mib_s, link);
		ok = false;
	}
	return ok;
}

/* A refusal of cc_sim_run(); exit status 1. */
static int refused(const struct p2p_opts *o, uint64_t size, int rc)
{
	fprintf(stderr, "cclab %s: %" PRIu64 " bytes: ", p2p_cmd(o), size);
	if (rc == -EINVAL)
		fprintf(stderr, "the %s topology cannot carry the QP between the two ranks\n",
			p2p_topology_name(o));
	else if (rc == -EOPNOTSUPP)
		fprintf(stderr, "fabric '%s' reaches GPU memory through host staging, which the "
			"simulator does not model for this schedule; use %s\n", o->fabric.name,
			o->scenario ? "p2p.mem: host" : "--mem host");
	else
		fprintf(stderr, "simulator: %s\n", strerror(-rc));
	return CLI_EXIT_FAIL;
}

/* perftest's figures from the run's trace; false if its stamps are
 * missing.  Bidirectional: each rank's as a client, added up as
 * print_full_bw_report() adds the two sides' reports. */
static bool figures(const struct p2p_opts *o, const struct cc_schedule *s,
		    const struct cc_trace *tr, struct p2p_row *row)
{
	struct cc_p2p_params p = o->p;
	struct cc_p2p_bw sum = {0};
	struct cc_p2p_times t;
	int rc = 0;

	p.size = row->size;
	for (uint32_t side = 0; !rc && side < (p.bidir ? 2u : 1u); side++) {
		if (cc_p2p_times_init(&t, p.iters))
			return false;
		t.client = side;
		rc = cc_p2p_times_from_trace(&t, s, tr);
		if (!rc)
			rc = p2p_figures(o, &p, &t, row);
		cc_p2p_times_free(&t);
		if (!rc && p.bidir)
			cc_p2p_bw_add(&sum, &row->bw);
	}
	if (!rc && p.bidir)
		row->bw = sum;
	return rc == 0;
}

/* A row whose run failed: N/A, and why on stderr. */
static void report_failed(const struct p2p_opts *o, const struct p2p_ctx *c,
			  const struct p2p_row *row)
{
	const struct cc_sim_result *res = row->res;

	cc_p2p_print_failed_row(stdout, o->p.mode, row->size, o->p.iters);
	fflush(stdout);
	if (res->err.status != CC_RUN_OK)
		fprintf(stderr, "cclab %s: %" PRIu64 " bytes: %s: %.*s\n", p2p_cmd(o), row->size,
			cli_run_status_name(res->err.status), (int)sizeof(res->err.msg),
			res->err.msg);
	else
		fprintf(stderr, "cclab %s: %" PRIu64 " bytes: the trace lacks timestamps (%" PRIu64
			" events dropped: out of memory)\n", p2p_cmd(o), row->size,
			c->trace.dropped);
}

int p2p_point(const struct p2p_opts *o, const struct sim_net *net, uint64_t size,
	      struct p2p_row *row, char *why, size_t len)
{
	struct cc_p2p_params p = o->p;
	struct cc_sim_opts so = {
		.fabric = &o->fabric,
		.net = net,
		.seed = o->seed,
		.time_limit_ps = time_limit(o, size),
		.wall_limit_ms = o->wall_limit_ms,
		.wall_start_ns = cc_clock_ns(),
	};
	struct cc_sim_result res;
	struct cc_schedule *s;
	struct cc_trace tr;
	int rc;

	memset(row, 0, sizeof(*row));
	row->size = size;
	p.size = size;
	if (!(s = cc_build_p2p(&p, why, len)))
		return -ENOMEM; /* parameters were checked with the scenario */
	cc_trace_init(&tr);
	so.trace = &tr;
	rc = cc_sim_run(s, &so, &res);
	if (rc < 0) {
		snprintf(why, len, "simulator: %s", strerror(-rc));
	} else {
		if (res.err.status != CC_RUN_OK) {
			snprintf(why, len, "%s: %.*s", cli_run_status_name(res.err.status),
				 (int)sizeof(res.err.msg), res.err.msg);
			rc = -EIO;
		} else if (!figures(o, s, &tr, row)) {
			snprintf(why, len, "the trace lacks timestamps (out of memory)");
			rc = -EIO;
		}
		cc_sim_result_free(&res);
	}
	cc_trace_free(&tr);
	cc_schedule_free(s);
	return rc < 0 ? rc : 0;
}

/* One size: build, run, print its row, add its JSON entry and CSV line.
 * Returns 0 with *ok, or an exit status that ends the sweep. */
static int run_size(const struct p2p_opts *o, struct p2p_ctx *c, uint64_t size, bool *ok)
{
	struct cc_p2p_params p = o->p;
	struct cc_sim_opts so = {
		.fabric = &o->fabric,
		.topo = o->topo,
		.net = c->net,
		.seed = o->seed,
		.check = false, /* nothing to check: no collective (core/p2p.h) */
		.trace = &c->trace,
		.time_limit_ps = time_limit(o, size),
		/* --wall-limit: the build and the run (a 2 GiB READ takes hours
		 * of real time to simulate 5000 times) */
		.wall_limit_ms = o->wall_limit_ms,
		.wall_start_ns = cc_clock_ns(),
	};
	struct cc_sim_result res;
	struct p2p_row row = { .size = size, .res = &res, .err = &res.err };
	struct cc_schedule *s;
	char err[256];
	int rc;

	p.size = size;
	s = cc_build_p2p(&p, err, sizeof(err));
	if (!s) { /* parameters were checked: only memory is left */
		fprintf(stderr, "cclab %s: %" PRIu64 " bytes: %s\n", p2p_cmd(o), size, err);
		return CLI_EXIT_FAIL;
	}
	cc_trace_clear(&c->trace);
	rc = cc_sim_run(s, &so, &res);
	if (rc < 0) {
		cc_schedule_free(s);
		return refused(o, size, rc);
	}
	row.bound_ps = sim_bound_ps(s, &o->fabric, c->net);
	row.failed = res.err.status != CC_RUN_OK || !figures(o, s, &c->trace, &row);
	if (row.failed) {
		report_failed(o, c, &row);
		c->errors++;
	} else {
		p2p_print_row(o, &row);
		row.model_bug = !within_bounds(o, c, &row);
	}
	*ok = !row.failed && !row.model_bug;
	*ok = p2p_meets_expectation(o, &row) && *ok;
	p2p_files_row(&c->f, o, &row);
	cc_sim_result_free(&res);
	cc_schedule_free(s);
	return 0;
}

int p2p_run(const struct p2p_opts *o, const struct sim_net *net)
{
	struct p2p_ctx c = { .net = net };
	bool all_ok = true;
	uint64_t size = o->p.size;
	int rc = p2p_files_open(o, &c.f);

	if (rc)
		return rc;
	cc_trace_init(&c.trace);
	preamble(o, net);
	do {
		bool ok = false;

		rc = run_size(o, &c, size, &ok);
		all_ok = all_ok && ok;
	} while (!rc && p2p_next_size(o, &size));
	fputs(p2p_dashes, stdout);
	if (!rc)
		cc_results_print_errors(stdout, c.errors);
	if (!rc && o->trace && p2p_write_trace(o, &c.trace))
		rc = CLI_EXIT_FAIL;
	rc = p2p_files_close(o, &c.f, rc, all_ok);
	cc_trace_free(&c.trace);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "cclab %s: cannot write the output: %s\n", p2p_cmd(o),
			strerror(errno));
		return CLI_EXIT_FAIL;
	}
	if (rc)
		return rc;
	return all_ok ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
