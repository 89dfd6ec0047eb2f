/* cli/cmd_verbs.c — `cclab run` without a scenario: nccl-tests' size loop
 * (cli/loop.c) on the verbs executor (backend/verbs_exec.h), one process
 * per rank.
 *
 * Ranks come from the launcher (backend/launch.h: srun, mpirun, or the
 * local one that `-n K` starts, cli/launch_local.c).  Every rank runs the
 * same loop and builds the same schedules; after each size all ranks
 * exchange their timings and counters, so all agree on the row and on the
 * exit status, and rank 0 alone prints the table and writes the files.
 *
 * The time column is nccl-tests': each rank's mean over the timed
 * iterations, averaged over the ranks (common.cu: Allreduce(args,
 * &deltaSec, average)).  The JSON report has `cclab sim`'s keys for what
 * both know (time_us, algbw_gbps, busbw_gbps, wrong, status,
 * data_bytes_sent, wqes) so `cclab compare` reads either. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/verbs_dev.h"
#include "backend/verbs_gather.h"
#include "cli/check.h"
#include "cli/verbs.h"

struct vrun {
	uint32_t rank, world;
	enum cc_launcher launcher;
	struct cc_verbs_ctx v;
	struct cc_boot b;
	struct cc_trace trace; /* this rank's events of the last size */
	struct cc_verbs_rank_stats *stats;
	char (*where)[128];    /* per rank: "host pid device" for the preamble */
	enum cc_verbs_clock clock;
};

/* cli_loop's preamble has no context argument; one run per process. */
static struct vrun *g_run;

static void preamble(const struct cli_opts *o)
{
	const struct vrun *c = g_run;
	char gid[64] = "LID";

	cli_preamble_begin(o, o->check);
	if (c->v.gid_index >= 0)
		cc_verbs_gid_str(&c->v.gid, gid, sizeof(gid));
	printf("# executor: verbs on %s port %u (%s, %s%s%d), launcher %s\n", c->v.device,
	       c->v.port, c->v.roce ? "RoCE" : "InfiniBand", gid, c->v.gid_index >= 0 ? " index " : "",
	       c->v.gid_index >= 0 ? c->v.gid_index : c->v.lid, cc_launcher_name[c->launcher]);
	printf("# warmup iters: %u iters: %u timeout: %u s  seed: %" PRIu64 "\n", o->warmup,
	       o->iters, o->timeout_s, o->seed);
	printf("#\n# Using devices\n");
	for (uint32_t r = 0; r < c->world; r++)
		printf("#  Rank %2u %s\n", r, c->where[r]);
	cli_preamble_buffers(o);
}

static void json_begin(struct cc_json *j, const struct cli_opts *o)
{
	const struct vrun *c = g_run;
	char gid[64] = "";

	cli_json_begin(j, o, "verbs");
	cc_json_key(j, "in_place");
	cc_json_bool(j, false);
	cc_json_key(j, "device");
	cc_json_string(j, c->v.device);
	cc_json_key(j, "port");
	cc_json_uint(j, c->v.port);
	cc_json_key(j, "link_layer");
	cc_json_string(j, c->v.roce ? "Ethernet" : "InfiniBand");
	cc_json_key(j, "gid_index");
	cc_json_int(j, c->v.gid_index);
	if (c->v.gid_index >= 0)
		cc_verbs_gid_str(&c->v.gid, gid, sizeof(gid));
	cc_json_key(j, "gid");
	cc_json_string(j, gid);
	cc_json_key(j, "lid");
	cc_json_uint(j, c->v.lid);
	cc_json_key(j, "active_mtu");
	cc_json_uint(j, 128u << c->v.active_mtu);
	cc_json_key(j, "launcher");
	cc_json_string(j, cc_launcher_name[c->launcher]);
	cc_json_key(j, "warmup");
	cc_json_uint(j, o->warmup);
	cc_json_key(j, "iters");
	cc_json_uint(j, o->iters);
	cc_json_key(j, "check");
	cc_json_bool(j, o->check);
	cc_json_key(j, "ranks");
	cc_json_array_begin(j);
	for (uint32_t r = 0; r < c->world; r++)
		cc_json_string(j, c->where[r]);
	cc_json_array_end(j);
	cc_json_key(j, "sizes");
	cc_json_array_begin(j);
}

/* A per-rank array of one stats field, as ns -> us when us. */
static void per_rank(struct cc_json *j, const char *key, const struct vrun *c, size_t off,
		     bool us)
{
	cc_json_key(j, key);
	cc_json_array_begin_flat(j);
	for (uint32_t r = 0; r < c->world; r++) {
		uint64_t v;
		memcpy(&v, (const char *)&c->stats[r] + off, sizeof(v));
		if (us)
			cc_json_double(j, (double)v / 1e3);
		else
			cc_json_uint(j, v);
	}
	cc_json_array_end(j);
}

static void json_size(struct cc_json *j, const struct vrun *c, const struct cc_result_row *row,
		      const struct cc_run_error *err, double min_us, double max_us)
{
	double algbw, busbw;
	bool bw = !row->failed && cc_result_bw(row->size, row->time_us, row->busbw_factor, &algbw,
					      &busbw);

	cli_json_size_begin(j, row);
	cc_json_key(j, "time_us");
	if (bw)
		cc_json_double(j, row->time_us);
	else
		cc_json_null(j);
	cc_json_key(j, "algbw_gbps");
	bw ? cc_json_double(j, algbw) : cc_json_null(j);
	cc_json_key(j, "busbw_gbps");
	bw ? cc_json_double(j, busbw) : cc_json_null(j);
	cc_json_key(j, "time_min_us");
	bw ? cc_json_double(j, min_us) : cc_json_null(j);
	cc_json_key(j, "time_max_us");
	bw ? cc_json_double(j, max_us) : cc_json_null(j);
	cc_json_key(j, "wrong");
	row->unchecked ? cc_json_null(j) : cc_json_uint(j, row->wrong);
	cli_json_status(j, err);
	cc_json_key(j, "cqe_clock");
	cc_json_string(j, cc_verbs_clock_name[c->clock]);
	per_rank(j, "rank_time_us", c, offsetof(struct cc_verbs_rank_stats, mean_ns), true);
	per_rank(j, "setup_us", c, offsetof(struct cc_verbs_rank_stats, setup_ns), true);
	per_rank(j, "data_bytes_sent", c, offsetof(struct cc_verbs_rank_stats, data_bytes), false);
	per_rank(j, "wqes", c, offsetof(struct cc_verbs_rank_stats, wqes), false);
	per_rank(j, "doorbells", c, offsetof(struct cc_verbs_rank_stats, doorbells), false);
	cc_json_object_end(j);
}

static int run_size(const struct cli_opts *o, void *ctx, uint64_t bytes,
		    struct cc_results_summary *sum, const struct cli_sink *out, bool *ok)
{
	struct vrun *c = ctx;
	struct cc_verbs_run_opts ro = { .warmup = o->warmup, .iters = o->iters, .seed = o->seed,
					.check = o->check, .trace = o->trace ? &c->trace : NULL,
					.faults = o->faults, .nfaults = o->nfaults };
	struct cc_verbs_result res;
	struct cc_schedule *s;
	uint64_t count, size;
	char err[512];
	int rc = cli_build(o, bytes, &s, &count, &size);

	if (rc)
		return rc;
	cc_trace_clear(&c->trace);
	rc = cc_verbs_run(&c->v, &c->b, s, &ro, &res, err, sizeof(err));
	if (!rc)
		rc = cc_verbs_gather_stats(&c->b, &res, c->stats, err, sizeof(err));
	cc_schedule_free(s);
	if (rc) {
		/* Rank 0 speaks for all, unless the bootstrap itself failed:
		 * then rank 0 may be the one that is gone. */
		if (c->rank == 0 || c->b.failed)
			fprintf(stderr, "cclab run: rank %u, %" PRIu64 " bytes: %s\n", c->rank, size,
				err);
		cc_verbs_result_free(&res);
		return CLI_EXIT_FAIL;
	}
	c->clock = res.clock;

	struct cc_result_row row = cli_row(o, size, count);
	double mean = 0, lo = 0, hi = 0;
	for (uint32_t r = 0; r < c->world; r++) {
		const struct cc_verbs_rank_stats *st = &c->stats[r];
		mean += (double)st->mean_ns / 1e3 / c->world;
		lo = r == 0 || (double)st->min_ns / 1e3 < lo ? (double)st->min_ns / 1e3 : lo;
		hi = (double)st->max_ns / 1e3 > hi ? (double)st->max_ns / 1e3 : hi;
		row.wrong += st->wrong;
	}
	row.failed = res.err.status != CC_RUN_OK;
	row.unchecked = !o->check;
	if (!row.failed)
		row.time_us = mean;
	cli_report_row(o, &row, &res.err, sum, out, -1);
	*ok = !row.failed && (row.unchecked || row.wrong == 0);
	if (out->j)
		json_size(out->j, c, &row, &res.err, lo, hi);
	cc_verbs_result_free(&res);
	return 0;
}

/* The last size's events of every rank, into one file by rank 0. */
static int finish(const struct cli_opts *o, void *ctx)
{
	struct vrun *c = ctx;
	struct cc_trace all;
	char err[512];
	int rc;

	if (!o->trace && !(c->rank && c->trace.n))
		return 0;
	cc_trace_init(&all);
	rc = cc_verbs_gather_trace(&c->b, &c->trace, &all, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "cclab run: rank %u: gathering the trace: %s\n", c->rank, err);
	} else if (c->rank == 0) {
		size_t n = strlen(o->trace);
		rc = n >= 4 && !strcmp(o->trace + n - 4, ".csv") ? cc_trace_write_csv(&all, o->trace)
								  : cc_trace_write_chrome(&all, o->trace);
		if (rc)
			fprintf(stderr, "cclab run: cannot write '%s': %s\n", o->trace, strerror(-rc));
	}
	cc_trace_free(&all);
	return rc ? CLI_EXIT_FAIL : 0;
}

/* After the device is open: every rank's host, pid and device, or the
 * reason it could not open one, so one rank's missing device stops all
 * at once, named. */
static int exchange_where(struct vrun *c, int open_rc, const char *open_err)
{
	char me[128], host[64] = "?", err[512];
	struct cc_boot_blobs all = {0};
	int rc;

	gethostname(host, sizeof(host) - 1);
	if (open_rc)
		snprintf(me, sizeof(me), "!%.126s", open_err);
	else
		snprintf(me, sizeof(me), "Pid %6ld on %.40s device %.40s port %u", (long)getpid(), host,
			 c->v.device, c->v.port);
	if ((rc = cc_boot_allgather(&c->b, me, strlen(me), &all, err, sizeof(err)))) {
		fprintf(stderr, "cclab run: rank %u: bootstrap: %s\n", c->rank, err);
		return CLI_EXIT_FAIL;
	}
	for (uint32_t r = 0; r < all.n && !rc; r++) {
		size_t n = all.len[r] < sizeof(c->where[r]) - 1 ? all.len[r] : sizeof(c->where[r]) - 1;
		memcpy(c->where[r], all.data[r], n);
		c->where[r][n] = '\0';
		if (c->where[r][0] == '!') {
			if (c->rank == 0)
				fprintf(stderr, "cclab run: rank %u: %s\n", r, c->where[r] + 1);
			rc = CLI_EXIT_FAIL;
		}
	}
	cc_boot_blobs_free(&all);
	return rc;
}

int verbs_rank_main(const struct cli_opts *in, uint32_t rank, uint32_t world,
		    enum cc_launcher launcher, const struct cc_rendezvous *addr, int listen_fd)
{
	struct cli_opts o = *in;
	struct vrun c = { .rank = rank, .world = world, .launcher = launcher };
	struct cc_verbs_opts vo = { .device = o.device, .port = o.port, .gid_index = o.gid_index,
				    .mtu_bytes = o.mtu, .timeout_ms = (int)o.timeout_s * 1000 };
	/* A rank may stall for the verbs timeout before it reaches the next
	 * exchange: the bootstrap waits longer than that. */
	struct cc_boot_opts bo = { .timeout_ms = (int)(2 * o.timeout_s + 20) * 1000,
				   .log = stderr };
	char err[512];
	int rc;

	o.p.nranks = world;
	if (rank != 0) {
		/* Rank 0 prints and writes; the others only speak on error. */
		o.json = o.csv = NULL;
		o.no_progress = true;
		if (!freopen("/dev/null", "w", stdout))
			return CLI_EXIT_FAIL;
	}
	c.stats = calloc(world, sizeof(*c.stats));
	c.where = calloc(world, sizeof(*c.where));
	if (!c.stats || !c.where) {
		fprintf(stderr, "cclab run: out of memory\n");
		free(c.stats);
		free(c.where);
		return CLI_EXIT_FAIL;
	}
	cc_trace_init(&c.trace);
	if ((rc = cc_boot_open(&c.b, addr, listen_fd, rank, world, &bo, err, sizeof(err)))) {
		fprintf(stderr, "cclab run: rank %u: bootstrap: %s\n", rank, err);
		rc = CLI_EXIT_FAIL;
		goto out_free;
	}
	int orc = cc_verbs_open(&vo, &c.v, err, sizeof(err));
	if ((rc = exchange_where(&c, orc, err)))
		goto out;
	g_run = &c;
	const struct cli_loop loop = {
		.json_begin = json_begin,
		.preamble = preamble,
		.run_size = run_size,
		.finish = finish,
		.ctx = &c,
	};
	rc = cli_loop_run(&o, &loop);
	g_run = NULL;
out:
	cc_verbs_close(&c.v);
	cc_boot_close(&c.b);
out_free:
	cc_trace_free(&c.trace);
	free(c.stats);
	free(c.where);
	return rc;
}

int cmd_verbs(const struct cli_opts *o)
{
	struct cc_launch l;
	struct cc_rendezvous addr = { .host = "127.0.0.1", .kind = CC_HOST_IPV4 };
	char err[512];
	int rc;

	if ((rc = cc_launch_detect(NULL, &l, err, sizeof(err)))) {
		fprintf(stderr, "cclab run: %s\n", err);
		return CLI_EXIT_USAGE;
	}
	if (l.size > 1) {
		if (o->p.nranks && o->p.nranks != l.size) {
			fprintf(stderr, "cclab run: -n %u, but the launcher (%s) started %u ranks\n",
				o->p.nranks, cc_launcher_name[l.launcher], l.size);
			return CLI_EXIT_USAGE;
		}
		rc = cc_rendezvous_get(o->bootstrap, NULL, &addr, err, sizeof(err));
		if (rc == -ENOENT) {
			fprintf(stderr, "cclab run: %u ranks from %s need rank 0's address: "
				"--bootstrap HOST:PORT or %s=HOST:PORT (HOST: the node of rank 0, "
				"PORT: a free TCP port; docs/cluster.md)\n", l.size,
				cc_launcher_name[l.launcher], CC_BOOTSTRAP_ENV);
			return CLI_EXIT_USAGE;
		}
		if (rc) {
			fprintf(stderr, "cclab run: %s\n", err);
			return CLI_EXIT_USAGE;
		}
		return verbs_rank_main(o, l.rank, l.size, l.launcher, &addr, -1);
	}
	/* This process alone: -n K ranks on this host.  Say "no RDMA device"
	 * once, here, rather than from each of K ranks. */
	struct cc_verbs_dev *devs;
	uint32_t n;
	if (cc_verbs_devices(&devs, &n, err, sizeof(err))) {
		fprintf(stderr, "cclab run: %s\n", err);
		return CLI_EXIT_FAIL;
	}
	cc_verbs_devices_free(devs, n);
	uint32_t k = o->p.nranks ? o->p.nranks : 1;
	if (k == 1)
		return verbs_rank_main(o, 0, 1, CC_LAUNCH_LOCAL, &addr, -1);
	return verbs_launch_local(o, k, (int)(3 * o->timeout_s + 20) * 1000);
}
