/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/cmd_sim.c — `cclab sim`: nccl-tests' size loop (cli/loop.c) on the
 * simulator executor (sim/exec.h).
 *
 * The same loop and table as `cclab check`, with simulated time: each size
 * runs once on the fabric of --fabric and the topology of --topology, and
 * its row has time (us), algbw and busbw as nccl-tests computes them, and
 * #wrong when --check 1 (the default) carried the data.
 *
 * No run can beat physics: a time below the alpha-beta lower bound
 * (sim/bound.h) or a bus bandwidth above the link rate is a bug in the
 * model, not a fast fabric, so it is reported on stderr and the exit status
 * is 1 even though the row looks fine.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/sim.h"
#include "core/algo.h"
#include "sim/bound.h"
#include "sim/physics.h"
#include "sim/scenario.h"
#include "util/units.h"

struct sim_ctx {
	struct cc_sim_opts sopts; /* the simulator's setting; per size, its start */
	sim_time_ps bound_ps;  /* this size's lower bound (sim/bound.h) */
	struct cc_trace trace; /* --trace: the last size's events */
	struct cc_sim_result last; /* --links: the last size's link counters */
	struct sim_net own;    /* --topology's network, when no scenario gives one */
	const struct sim_net *net; /* what every size runs on */
	/* The simulator's faults: the scenario's `faults:`, then --fault's */
	struct cc_sim_fault faults[CC_SCENARIO_MAX_FAULTS + CLI_MAX_FAULTS];
	uint32_t nfaults;
	const struct cli_sim_as *as; /* NULL: cclab sim's own table and time */
	struct sim_progress {   /* the line of a long single run (progress()) */
		uint64_t bytes;     /* the size, as the loop's "[1/1] 1M ..." */
		uint64_t start_ns, last_ns;
		bool shown;
	} prog;
};

/* A single size that runs for minutes (-n 1024 -b 1M) would leave the
 * terminal silent: after a second, a line on stderr with the simulated time
 * reached and the events per second, redrawn at most 4 times a second and
 * erased at the end.  Set only when stderr is a terminal, so logs, pipes
 * and tests see nothing; it reads the clock only at the watchdog's calls,
 * every CC_SIM_WALL_CHECK_EVENTS events. */
#define PROGRESS_AFTER_NS UINT64_C(1000000000)
#define PROGRESS_EVERY_NS UINT64_C(250000000)

static void progress(void *ctx, sim_time_ps now, uint64_t events, bool done)
{
	struct sim_progress *p = ctx;
	uint64_t t = cc_clock_ns();
	char b[CC_FMT_BYTES_LEN];
	double s;

	if (!p->start_ns)
		p->start_ns = t;
	if (done) {
		if (p->shown)
			fputs("\r\033[K", stderr);
		p->shown = false;
		p->start_ns = 0;
		return;
	}
	if (t - p->start_ns < PROGRESS_AFTER_NS || (p->shown && t - p->last_ns < PROGRESS_EVERY_NS))
		return;
	s = (double)(t - p->start_ns) / 1e9;
	fprintf(stderr, "\r\033[K[1/1] %s ... %.3f us simulated, %.1f M events, %.2f M events/s, "
		"%.0f s", cc_format_bytes(b, sizeof(b), p->bytes), (double)now / 1e6,
		(double)events / 1e6, (double)events / 1e6 / s, s);
	fflush(stderr);
	p->shown = true;
	p->last_ns = t;
}

/* Whether `bytes` carries data: --check, and a scenario's `check: SIZE`. */
static bool checked(const struct cli_opts *o, uint64_t bytes)
{
	return o->check && (!o->scenario || bytes <= o->scenario->check_max);
}

/* How the collective is launched: where it is not nccl-tests' default, or
 * where its floor may mark a row launch-bound. */
static void launch_line(const struct cli_opts *o)
{
	const struct cc_sim_launch *l = &o->launch;
	const struct sim_sw_params *sw = &o->fabric.soft;
	sim_time_ps floor = sim_launch_floor_ps(l, sw, o->p.mem == CC_MEM_GPU);

	if (sim_launch_is_default(l) && !floor)
		return;
	printf("# launch: %" PRIu32 " GPU%s a thread, %" PRIu32 " collective%s a group%s: ",
	       l->gpus_per_thread, l->gpus_per_thread == 1 ? "" : "s", l->agg_iters,
	       l->agg_iters == 1 ? "" : "s", l->cuda_graph ? ", from a CUDA graph" : "");
	if (floor)
		printf("an iteration takes at least %.2f us, the thread's (%.2f + %" PRIu32
		       " x %.2f us) / %" PRIu32 " (software.group_cpu_ps, launch_cpu_ps)\n",
		       (double)floor / 1e6, (double)sw->group_cpu_ps / 1e6, l->gpus_per_thread,
		       (double)sw->launch_cpu_ps / 1e6, l->agg_iters);
	else
		printf("no launch floor (%s)\n", l->cuda_graph ? "a graph replays without NCCL's "
		       "host path" : o->p.mem != CC_MEM_GPU ? "host memory: no kernel" :
		       "the fabric's launch costs are 0");
}

static void preamble(const struct cli_opts *o, void *ctx)
{
	const struct sim_ctx *c = ctx;
	const struct sim_link_params *l = &o->fabric.link;

	cli_preamble_begin(o, o->check);
	printf("# executor: sim (discrete-event, simulated time)  seed: %" PRIu64 "\n", o->seed);
	if (o->scenario)
		printf("# scenario: %s (%s)\n", o->scenario->name, o->scenario->file);
	printf("# fabric: %s  topology: %s  link: %s %g Gb/s  MTU: %" PRIu32 " B\n",
	       o->fabric.name, o->scenario ? o->scenario->net.name : sim_topo_kind_name[o->topo],
	       sim_link_info[l->type].name, (double)l->rate_bps / 1e9, l->mtu_bytes);
	cli_print_pcie(c->net, &o->fabric);
	if (o->model == CC_SIM_MODEL_FLOW)
		printf("# model: flow: each message a flow, links shared max-min fairly; no loss, "
		       "PFC, credits, ECN or switch queues (docs/simulator.md)\n");
	cli_preamble_buffers(o, true);
	printf("# out-of-place only; one run per size, no warm-up: the time is simulated\n");
	launch_line(o);
	if (o->predicts_verbs)
		printf("# proxy: cclab's verbs executor posts its own verbs, so no NCCL network plugin: "
		       "software.net_step_ps 0 in this prediction\n");
	for (uint32_t i = 0, ns = o->scenario ? o->scenario->nfaults : 0; i < ns + o->nsim_faults;
	     i++) {
		char t[CC_SIM_FAULT_TEXT_LEN];

		printf("# fault: %s\n", cc_sim_fault_format(i < ns ? &o->scenario->faults[i]
								  : &o->sim_faults[i - ns], t,
							  sizeof(t)));
	}
	if (!o->check)
		printf("# --check 0: no data carried, #wrong is N/A\n");
	else if (o->scenario && o->scenario->check_max != UINT64_MAX)
		printf("# check: data carried up to %" PRIu64 " bytes; larger sizes timed only, "
		       "#wrong N/A\n", o->scenario->check_max);
}

/* A refusal of cc_sim_run(): the message, and the exit code.  The
 * simulator's own err is its strerror(); this says what to change. */
static int refused(const struct cli_opts *o, void *ctx, uint64_t size, int rc, const char *err)
{
	/* Under `cclab run` the advice is about the scenario, not options. */
	const struct cc_scenario *sc = o->scenario;

	(void)ctx;
	if (rc == -E2BIG) {
		cli_refuse_memory(o, size);
		return CLI_EXIT_FAIL;
	}
	fprintf(stderr, "cclab %s: %" PRIu64 " bytes: ", sc ? "run" : "sim", size);
	switch (rc) {
	case -EINVAL:
		/* The simulator's own reason when it gave one (sim/sharp.c's);
		 * else the fabric was validated up front, so it is the topology. */
		if (err && *err && strcmp(err, strerror(EINVAL))) {
			fprintf(stderr, "%s\n", err);
			break;
		}
		fprintf(stderr, "the %s topology cannot carry this schedule (a queue pair joins "
			"ranks it does not connect)%s\n", sc ? sc->net.name : sim_topo_kind_name[o->topo],
			sc || o->topo == SIM_TOPO_STAR ? "" : "; --topology star connects every pair");
		break;
	case -EFAULT:
		/* cli_build() stages in host memory on such a fabric; only a
		 * schedule built some other way gets here. */
		fprintf(stderr, "fabric '%s' has no GPUDirect RDMA (host.gpu_dma host-staging), "
			"but the schedule registers GPU memory with the NIC\n", o->fabric.name);
		break;
	default:
		fprintf(stderr, "simulator: %s\n", strerror(-rc));
		break;
	}
	return CLI_EXIT_FAIL;
}

/* Whether a completed run respects physics; if not, says why on stderr. */
static bool within_bounds(const struct cli_opts *o, const struct sim_net *net,
			  const struct cc_result_row *row, sim_time_ps time_ps, sim_time_ps bound_ps)
{
	char why[512];
	struct cc_coll_params p;

	cli_row_params(o, row, &p); /* under auto, the size's own algorithm */
	if (sim_physical(net, &o->fabric, &p, row->size, time_ps, bound_ps, why, sizeof(why)))
		return true;
	fflush(stdout); /* after the row it is about */
	fprintf(stderr, "cclab %s: model bug: %" PRIu64 " bytes: %s\n", cli_opts_cmd(o), row->size,
		why);
	return false;
}

/* A scenario's `expect:` entry for this size, if any: every bound it sets,
 * each failure named on stderr with the scenario's line. */
static bool meets_expectation(const struct cli_opts *o, const struct cc_result_row *row,
			      const struct cc_sim_result *res)
{
	const struct cc_expect *x = cc_scenario_expect(o->scenario, row->size);
	char a[SIM_TIME_FMT_LEN], b[SIM_TIME_FMT_LEN];
	double algbw, busbw = 0;
	bool ok = true;

	if (!x)
		return true;
	cc_result_bw(row->size, row->time_us, row->busbw_factor, &algbw, &busbw);
	fflush(stdout);
	if (res->time_ps < x->time_min_ps || res->time_ps > x->time_max_ps) {
		bool low = res->time_ps < x->time_min_ps;

		fprintf(stderr, "cclab run: %s: %" PRIu64 " bytes: time %s is %s the expected %s "
			"%s\n", x->where, row->size, sim_time_fmt(res->time_ps, a, sizeof(a)),
			low ? "below" : "above", low ? "min" : "max",
			sim_time_fmt(low ? x->time_min_ps : x->time_max_ps, b, sizeof(b)));
		ok = false;
	}
	if (busbw * 8e9 < (double)x->busbw_min_bps || busbw * 8e9 > (double)x->busbw_max_bps) {
		bool low = busbw * 8e9 < (double)x->busbw_min_bps;

		fprintf(stderr, "cclab run: %s: %" PRIu64 " bytes: busbw %.4g GB/s is %s the "
			"expected %s %.4g GB/s\n", x->where, row->size, busbw,
			low ? "below" : "above", low ? "min" : "max",
			(double)(low ? x->busbw_min_bps : x->busbw_max_bps) / 8e9);
		ok = false;
	}
	for (uint32_t r = 0; x->data_bytes != UINT64_MAX && r < res->nranks; r++)
		if (res->rank[r].data_bytes != x->data_bytes) {
			fprintf(stderr, "cclab run: %s: %" PRIu64 " bytes: rank %u sent %" PRIu64
				" data bytes, expected %" PRIu64 "\n", x->where, row->size, r,
				res->rank[r].data_bytes, x->data_bytes);
			ok = false;
			break;
		}
	return ok;
}

/* The determinism test's switch: CCLAB_SIM_TIES=lifo runs events of one
 * picosecond in reverse order of scheduling (sim/event.h
 * SIM_ENGINE_LIFO_TIES); results that change with it depend on an accident
 * of scheduling order.  Anything else: the normal order. */
unsigned cli_sim_engine_flags(void)
{
	const char *t = getenv("CCLAB_SIM_TIES");

	return t && !strcmp(t, "lifo") ? SIM_ENGINE_LIFO_TIES : 0;
}

/* Per size, its own options: the start of its wall-clock limit, and the
 * trace for the last size only (--trace is the last size's events).
 * Sizes may run at once (--jobs): nothing here is shared but read. */
static const void *setting(const struct cli_opts *o, void *ctx, struct cc_exec_common *common,
			   uint64_t start_ns, bool last, void *own)
{
	struct sim_ctx *c = ctx;
	struct cc_sim_opts *so = own;

	(void)common;
	*so = c->sopts;
	so->wall_start_ns = start_ns;
	so->trace = o->trace && last ? &c->trace : NULL;
	return so;
}

/* What a size's run will hold: its schedule and the simulator's state
 * (cc_sim_mem_estimate()), or before the build what its parameters say
 * (cc_build_estimate()); for the sizes that run at once. */
static double mem_need(const struct cli_opts *o, void *ctx, const struct cc_schedule *s,
		       uint64_t bytes, bool check)
{
	struct sim_ctx *c = ctx;
	struct cc_sim_opts so = c->sopts;
	struct cc_coll_params p;
	uint64_t count, size;
	double ops, staging;
	char err[256];

	if (s) {
		so.check = check;
		return (double)cc_schedule_bytes(s) + cc_sim_mem_estimate(s, &so);
	}
	cc_result_counts(o->p.coll, o->p.nranks, cc_dtype_size(o->p.dtype), bytes, &count, &size);
	if (cli_size_params(o, size, &p, NULL, err, sizeof(err)))
		return 0; /* its build will say why */
	p.count = count;
	cc_build_estimate(&p, &ops, &staging);
	return ops + (check || p.proto != CC_PROTO_SIMPLE ? staging : 0);
}

/* The bound, for the row's --csv line and the checks after it. */
static int before_row(const struct cli_opts *o, void *ctx, struct cli_size *z)
{
	struct sim_ctx *c = ctx;

	c->bound_ps = sim_bound_ps(z->s, &o->fabric, c->net);
	z->bound_us = (double)c->bound_ps / 1e6;
	z->row.launch_bound = !z->row.failed && ((const struct cc_sim_result *)z->res)->launch_bound;
	/* The front end's time (nccl-tests' -a); the physics check after
	 * the row keeps the simulator's own, every rank done. */
	if (c->as && c->as->time_us && !z->row.failed)
		z->row.time_us = c->as->time_us(c->as->ctx, z->res);
	return 0;
}

static bool after_row(const struct cli_opts *o, void *ctx, const struct cli_size *z,
		      const struct cli_sink *out)
{
	struct sim_ctx *c = ctx;
	struct cc_sim_result *res = z->res;
	const struct cc_result_row *row = &z->row;
	bool bound_ok = true, ok;

	/* --links is the last size's: nothing of an earlier one stays (and
	 * nothing at all when the last size's build passed its deadline) */
	free(c->last.links);
	memset(&c->last, 0, sizeof(c->last));
	if (!res) { /* the build passed its deadline: nothing ran */
		struct cc_sim_result none = { .err = *z->err };

		if (out->j)
			sim_json_size(out->j, row, &none, 0, false, false);
		return true;
	}
	if (!row->failed)
		bound_ok = within_bounds(o, c->net, row, res->time_ps, c->bound_ps);
	if (res->switch_drops) {
		/* Lossless fabrics do not drop; the model does not have their
		 * flow control yet, so say what the time includes. */
		fflush(stdout);
		fprintf(stderr, "cclab %s: %" PRIu64 " bytes: %" PRIu64 " packets dropped at full "
			"switch buffers and resent (go-back-N)%s\n", o->scenario ? "run" : "sim",
			row->size, res->switch_drops, o->fabric.link.flow_ctrl == SIM_FC_NONE
			? "; link.flow_ctrl credit or pfc would prevent it" : "");
	}
	ok = bound_ok;
	if (!row->failed && o->scenario)
		ok = meets_expectation(o, row, res) && ok;
	if (out->j)
		sim_json_size(out->j, row, res, c->bound_ps, !row->failed, bound_ok);
	if (o->links) { /* keep this size's links for --links: the result gives them up */
		c->last.links = res->links;
		c->last.nlinks = res->nlinks;
		c->last.time_ps = res->time_ps;
		res->links = NULL;
	}
	return ok;
}

/* --links: one CSV line per link direction (docs/plots.md). */
static int write_links(const struct cli_opts *o, const struct cc_sim_result *last)
{
	const char *cmd = cli_opts_cmd(o);
	struct cc_atomic_file af;
	int rc = cli_output_open(cmd, o->links, &af);

	if (!rc) {
		fputs("link,from,to,kind,rate_bps,tx_bytes,busy_us,utilisation,peak_queue_bytes,"
		      "lost,pauses,paused_us,credit_stalls,ecn_marks,flows\n", af.f);
		for (uint32_t i = 0; i < last->nlinks; i++) {
			const struct cc_sim_link_stats *l = &last->links[i];
			uint32_t nth = 0, twins = 0; /* parallel cables between one pair */
			char tag[16] = "";

			for (uint32_t j = 0; j < last->nlinks; j++)
				if (!strcmp(last->links[j].from, l->from) &&
				    !strcmp(last->links[j].to, l->to)) {
					twins++;
					nth += j < i;
				}
			if (twins > 1) /* "(2)", not "#2": '#' starts a gnuplot comment */
				snprintf(tag, sizeof(tag), "(%" PRIu32 ")", nth + 1);
			char *name = NULL;

			if (asprintf(&name, "%s->%s%s", l->from, l->to, tag) < 0)
				name = NULL;
			/* Node names come from the topology file: quoted as CSV needs. */
			cc_csv_str(af.f, name ? name : "?");
			free(name);
			fputc(',', af.f);
			cc_csv_str(af.f, l->from);
			fputc(',', af.f);
			cc_csv_str(af.f, l->to);
			fprintf(af.f, ",%s,%" PRIu64 ",%" PRIu64 ",%.6f,%.6f,%" PRIu64
				",%" PRIu64 ",%" PRIu64 ",%.6f,%" PRIu64 ",%" PRIu64 ",%" PRIu32 "\n",
				cc_sim_link_kind(l),
				l->rate_bps, l->tx_bytes, (double)l->busy_ps / 1e6,
				last->time_ps ? (double)l->busy_ps / (double)last->time_ps : 0.0,
				l->peak_queue_bytes, l->lost, l->pauses, (double)l->paused_ps / 1e6,
				l->credit_stalls, l->ecn_marks, l->flows);
		}
		rc = cli_output_commit(cmd, o->links, &af);
	}
	return rc;
}

static int write_trace(const struct cli_opts *o, void *ctx)
{
	struct sim_ctx *c = ctx;
	int err;

	if (o->links && (err = write_links(o, &c->last)))
		return err;
	if (!o->trace)
		return 0;
	if ((err = cc_trace_write(&c->trace, o->trace)))
		return cli_output_error(cli_opts_cmd(o), o->trace, err);
	/* The file says so too (otherData.dropped), but a trace with holes
	 * must not pass for a whole one. */
	if (c->trace.dropped) {
		fprintf(stderr, "cclab %s: '%s' lacks %" PRIu64 " events: out of memory while "
			"recording\n", cli_opts_cmd(o), o->trace, c->trace.dropped);
		return CLI_EXIT_FAIL;
	}
	return 0;
}

int cmd_sim(const struct cli_opts *o)
{
	return cli_sim_run(o, NULL);
}

int cli_sim_run(const struct cli_opts *o, const struct cli_sim_as *as)
{
	char msg[SIM_NET_ERR_LEN];
	struct sim_ctx c;
	const struct cli_loop loop = {
		.x = &cc_sim_executor,
		.wall_limited = true,
		.generates = true,
		.json_begin = sim_json_begin,
		.preamble = preamble,
		.carries = checked,
		.setting = setting,
		.setting_size = sizeof(struct cc_sim_opts),
		.mem_need = mem_need,
		.refused = refused,
		.before_row = before_row,
		.after_row = after_row,
		.finish = write_trace,
		.ctx = &c,
		.table = as ? as->table : NULL,
	};
	int rc;

	/* Presets are valid; this guards the models against one that is not
	 * (and, later, against a scenario file's values). */
	if (sim_params_validate(&o->fabric)) {
		fprintf(stderr, "cclab %s: fabric '%s': invalid parameters\n", cli_opts_cmd(o),
			o->fabric.name);
		return CLI_EXIT_FAIL;
	}
	/* The trace and links are written after the last size; find out now,
	 * not after a long run, that their paths cannot be written. */
	if ((rc = cli_output_check(cli_opts_cmd(o), o->trace)) ||
	    (rc = cli_output_check(cli_opts_cmd(o), o->links)))
		return rc;
	c.as = as;
	/* One network for every size: its routes are the bound's too. */
	sim_net_init(&c.own, "");
	c.net = o->scenario ? &o->scenario->net : &c.own;
	if (!o->scenario) {
		rc = sim_topo_net_make_hosts(&c.own, o->topo, o->p.nranks, o->p.ranks_per_node,
					     &o->hosts, msg, sizeof(msg));
		if (rc) {
			fprintf(stderr, "cclab sim: --topology %s: %s\n",
				sim_topo_kind_name[o->topo], msg[0] ? msg : strerror(-rc));
			sim_net_free(&c.own);
			/* a shape the options ask for that cannot be built (railopt
			 * without nodes) is the user's; anything else is not */
			return rc == -EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
		}
	}
	/* An algorithm that joins ranks --topology ring does not connect, or
	 * multicasts where no NVSwitch holds every rank: a usage error before
	 * the table, as a scenario's (sim/scenario.c). */
	uint32_t a, b;

	if (!o->scenario && o->p.algo == CC_ALGO_COLLNET_CHAIN && !o->fabric.sw.sharp) {
		fprintf(stderr, "cclab sim: --fabric %s: collnetchain reduces between the nodes in "
			"the network's switches: it needs a fabric with SHARP (a fabric file with "
			"switch: {sharp: 1}, docs/fabric.md)\n", o->fabric.name);
		sim_net_free(&c.own);
		return CLI_EXIT_USAGE;
	}
	if (!o->scenario && !sim_topo_mcast_ok(c.net, &o->p, msg, sizeof(msg))) {
		fprintf(stderr, "cclab sim: --topology %s: %s; --topology %s is one\n",
			sim_topo_kind_name[o->topo], msg,
			sim_topo_kind_name[o->p.algo == CC_ALGO_NVLS_TREE ||
							   o->p.algo == CC_ALGO_COLLNET_CHAIN
						   ? SIM_TOPO_RAILOPT
						   : SIM_TOPO_NODE]);
		sim_net_free(&c.own);
		return CLI_EXIT_USAGE;
	}

	if (!o->scenario && !sim_topo_carries(c.net, &o->p, &a, &b)) {
		fprintf(stderr, "cclab sim: --topology %s: %s %s joins ranks %u and %u, which "
			"it does not connect; --topology star connects every pair\n",
			sim_topo_kind_name[o->topo], cc_algo_name[o->p.algo],
			cc_coll_name[o->p.coll], a, b);
		sim_net_free(&c.own);
		return CLI_EXIT_USAGE;
	}
	/* A fabric this network's switches cannot give credits: refused by
	 * name now, not as a failed run. */
	if (sim_topo_credit_check(c.net, &o->fabric, msg, sizeof(msg))) {
		fprintf(stderr, "cclab %s: fabric '%s' on %s: %s\n", o->scenario ? "run" : "sim",
			o->fabric.name, c.net->name[0] ? c.net->name : sim_topo_kind_name[o->topo], msg);
		sim_net_free(&c.own);
		return CLI_EXIT_USAGE;
	}
	/* A NIC on the other socket beside a PCIe tree that keeps it by its
	 * GPU (--pcie-switches, several NICs a GPU): by name, not as a failed
	 * run (a scenario's was checked as it was read). */
	if (o->fabric.host.nic_socket == SIM_NIC_SOCKET_REMOTE &&
	    !sim_net_nic_socket_ok(c.net, msg, sizeof(msg))) {
		fprintf(stderr, "cclab %s: fabric '%s': %s\n", o->scenario ? "run" : "sim",
			o->fabric.name, msg);
		sim_net_free(&c.own);
		return CLI_EXIT_USAGE;
	}
	/* --fault's nodes and ranks exist in this network: say so now, by
	 * name, not as a refused run.  (A scenario's were checked as it was
	 * read.) */
	c.nfaults = 0;
	for (uint32_t i = 0; o->scenario && i < o->scenario->nfaults; i++)
		c.faults[c.nfaults++] = o->scenario->faults[i];
	for (uint32_t i = 0; i < o->nsim_faults; i++)
		c.faults[c.nfaults++] = o->sim_faults[i];
	if (cc_sim_faults_check(o->sim_faults, o->nsim_faults, c.net, msg, sizeof(msg))) {
		fprintf(stderr, "cclab %s: --fault %s\n", o->scenario ? "run" : "sim", msg);
		sim_net_free(&c.own);
		return CLI_EXIT_USAGE;
	}
	c.sopts = (struct cc_sim_opts){
		.fabric = &o->fabric,
		.model = o->model,
		.topo = o->topo,
		.net = c.net,
		.trace = o->trace ? &c.trace : NULL,
		/* A schedule whose peer never posts its receive retries RNR
		 * forever (rnr_retry 7, as NCCL sets it): stop it, and say so. */
		.time_limit_ps = CLI_SIM_TIME_LIMIT_S * SIM_PS_PER_S,
		.engine_flags = cli_sim_engine_flags(),
		.wall_limit_ms = o->wall_limit_ms,
		/* the simulator's own faults; seeds, key and receive faults
		 * and check are the loop's (struct cc_exec_common) */
		.sim_faults = c.faults,
		.nsim_faults = c.nfaults,
		.launch = o->launch,
	};
	/* One size only: with several, the loop's line says which is running
	 * and sizes may run at once (-j). */
	if (o->minbytes == o->maxbytes && !o->quiet && isatty(STDERR_FILENO)) {
		c.prog = (struct sim_progress){ .bytes = o->minbytes };
		c.sopts.progress = progress;
		c.sopts.progress_ctx = &c.prog;
	}
	cc_trace_init(&c.trace);
	memset(&c.last, 0, sizeof(c.last));
	rc = cli_loop_run(o, &loop);
	cc_trace_free(&c.trace);
	free(c.last.links);
	sim_net_free(&c.own);
	return rc;
}
