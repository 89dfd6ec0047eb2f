/* SPDX-License-Identifier: BSD-3-Clause */
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
	struct verbs_session s;
	struct cc_verbs_exec x; /* the executor's setting: this session's device */
	struct cc_trace trace; /* this rank's events of the last size */
	struct verbs_gpu gpu;  /* --memory gpu: this rank's GPU and path (cli/verbs_gpu.c) */
	struct cc_verbs_rank_stats *stats; /* every rank's, of this size */
	enum cc_verbs_clock clock;
	double min_us, max_us; /* this size's fastest and slowest rank */
};

/* cli_loop's preamble has no context argument; one run per process. */
static struct vrun *g_run;

/* Whether this process is one of the ranks `-n K` forked (set before the
 * fork, inherited), as opposed to one started with CCLAB_RANK, srun or
 * mpirun by someone else. */
static bool g_forked;

bool verbs_rank_speaks(const struct verbs_session *s)
{
	return s->rank == 0 || !g_forked;
}

static void preamble(const struct cli_opts *o, void *ctx)
{
	const struct vrun *c = g_run;
	char gid[64] = "LID";

	(void)ctx;
	cli_preamble_begin(o, o->check);
	if (c->s.v.gid_index >= 0)
		cc_verbs_gid_str(&c->s.v.gid, gid, sizeof(gid));
	printf("# executor: verbs on %s port %u (%s, %s%s%d), launcher %s\n", c->s.v.device,
	       c->s.v.port, c->s.v.roce ? "RoCE" : "InfiniBand", gid, c->s.v.gid_index >= 0 ? " index " : "",
	       c->s.v.gid_index >= 0 ? c->s.v.gid_index : c->s.v.lid, cc_launcher_name[c->s.launcher]);
	printf("# warmup iters: %u iters: %u timeout: %u s  seed: %" PRIu64 "\n", o->warmup,
	       o->iters, o->timeout_s, o->seed);
	printf("#\n# Using devices\n");
	for (uint32_t r = 0; r < c->s.world; r++)
		printf("#  Rank %2u %s\n", r, c->s.where[r]);
	verbs_gpu_preamble(&c->gpu);
	cli_preamble_buffers(o, true);
}

static void json_begin(struct cc_json *j, const struct cli_opts *o)
{
	const struct vrun *c = g_run;
	char gid[64] = "";

	cli_json_begin(j, o, "verbs");
	cc_json_kv_bool(j, "in_place", false);
	cc_json_kv_string(j, "device", c->s.v.device);
	cc_json_kv_uint(j, "port", c->s.v.port);
	cc_json_kv_string(j, "link_layer", c->s.v.roce ? "Ethernet" : "InfiniBand");
	cc_json_kv_int(j, "gid_index", c->s.v.gid_index);
	if (c->s.v.gid_index >= 0)
		cc_verbs_gid_str(&c->s.v.gid, gid, sizeof(gid));
	cc_json_kv_string(j, "gid", gid);
	cc_json_kv_uint(j, "lid", c->s.v.lid);
	cc_json_kv_uint(j, "active_mtu", 128u << c->s.v.active_mtu);
	cc_json_kv_string(j, "launcher", cc_launcher_name[c->s.launcher]);
	cc_json_kv_uint(j, "warmup", o->warmup);
	cc_json_kv_uint(j, "iters", o->iters);
	cc_json_kv_bool(j, "check", o->check);
	cc_json_key(j, "ranks");
	cc_json_array_begin(j);
	for (uint32_t r = 0; r < c->s.world; r++)
		cc_json_string(j, c->s.where[r]);
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
	for (uint32_t r = 0; r < c->s.world; r++) {
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
		      const struct cc_run_error *err)
{
	double algbw = 0, busbw = 0; /* read only when the time is known */
	bool bw = !row->failed && cc_result_bw(row->size, row->time_us, row->busbw_factor, &algbw,
					      &busbw);

	cli_json_size_begin(j, row);
	cli_json_double_or_null(j, "time_us", bw, row->time_us);
	cli_json_double_or_null(j, "algbw_gbps", bw, algbw);
	cli_json_double_or_null(j, "busbw_gbps", bw, busbw);
	cli_json_double_or_null(j, "time_min_us", bw, c->min_us);
	cli_json_double_or_null(j, "time_max_us", bw, c->max_us);
	cc_json_key(j, "wrong");
	row->unchecked ? cc_json_null(j) : cc_json_uint(j, row->wrong);
	cli_json_status(j, err);
	cc_json_kv_string(j, "cqe_clock", cc_verbs_clock_name[c->clock]);
	per_rank(j, "rank_time_us", c, offsetof(struct cc_verbs_rank_stats, mean_ns), true);
	per_rank(j, "setup_us", c, offsetof(struct cc_verbs_rank_stats, setup_ns), true);
	per_rank(j, "data_bytes_sent", c, offsetof(struct cc_verbs_rank_stats, data_bytes), false);
	per_rank(j, "wqes", c, offsetof(struct cc_verbs_rank_stats, wqes), false);
	per_rank(j, "doorbells", c, offsetof(struct cc_verbs_rank_stats, doorbells), false);
	cc_json_object_end(j);
}

/* The size's trace is this rank's events of it alone. */
static const void *setting(const struct cli_opts *o, void *ctx, struct cc_exec_common *common,
			   uint64_t start_ns, bool last, void *own)
{
	struct vrun *c = ctx;

	(void)o;
	(void)common;
	(void)start_ns;
	(void)last;
	(void)own;
	cc_trace_clear(&c->trace);
	return &c->x;
}

/* A size this rank could not run or gather: rank 0 speaks for the ranks
 * it forked; every rank speaks under srun or mpirun, and when the
 * bootstrap itself failed: then rank 0 may be the one that is gone. */
static int rank_failed(const struct vrun *c, uint64_t size, const char *err)
{
	if (verbs_rank_speaks(&c->s) || c->s.b.failed)
		fprintf(stderr, "cclab run: rank %u, %" PRIu64 " bytes: %s\n", c->s.rank, size, err);
	return CLI_EXIT_FAIL;
}

static int refused(const struct cli_opts *o, void *ctx, uint64_t size, int rc, const char *err)
{
	(void)o;
	(void)rc;
	return rank_failed(ctx, size, err);
}

/* Every rank's counters, so that all agree on the row: the time is
 * nccl-tests' (each rank's mean, averaged over the ranks), #wrong the
 * ranks' sum. */
static int before_row(const struct cli_opts *o, void *ctx, struct cli_size *z)
{
	struct vrun *c = ctx;
	const struct cc_verbs_result *res = z->res;
	double mean = 0;
	char err[512];

	(void)o;
	if (cc_verbs_gather_stats(&c->s.b, res, c->stats, err, sizeof(err)))
		return rank_failed(c, z->row.size, err);
	c->clock = res->clock;
	c->min_us = c->max_us = 0;
	z->row.wrong = 0;
	for (uint32_t r = 0; r < c->s.world; r++) {
		const struct cc_verbs_rank_stats *st = &c->stats[r];
		double lo = (double)st->min_ns / 1e3, hi = (double)st->max_ns / 1e3;

		mean += (double)st->mean_ns / 1e3 / c->s.world;
		c->min_us = r == 0 || lo < c->min_us ? lo : c->min_us;
		c->max_us = hi > c->max_us ? hi : c->max_us;
		z->row.wrong += st->wrong;
	}
	if (!z->row.failed)
		z->row.time_us = mean;
	return 0;
}

static bool after_row(const struct cli_opts *o, void *ctx, const struct cli_size *z,
		      const struct cli_sink *out)
{
	(void)o;
	if (out->j)
		json_size(out->j, ctx, &z->row, z->err);
	return true;
}

/* The last size's events of every rank, into one file by rank 0. */
static int finish(const struct cli_opts *o, void *ctx)
{
	struct vrun *c = ctx;
	struct cc_trace all;
	char err[512];
	int rc;

	if (!o->trace) /* the same on every rank: all or none gather */
		return 0;
	cc_trace_init(&all);
	rc = cc_verbs_gather_trace(&c->s.b, &c->trace, &all, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "cclab run: rank %u: gathering the trace: %s\n", c->s.rank, err);
	} else if (c->s.rank == 0 && (rc = cc_trace_write(&all, o->trace))) {
		fprintf(stderr, "cclab run: cannot write '%s': %s\n", o->trace, strerror(-rc));
	}
	cc_trace_free(&all);
	return rc ? CLI_EXIT_FAIL : 0;
}

/* The exchange after the device is open: each rank's "Pid N on HOST device
 * D port P" for the preamble, or "!" and why its device did not open —
 * whole: those reasons say what to do and run past 200 characters.  The
 * failure is taken up to WHERE_MAX bytes (verbs_session_open's reasons
 * are under 512), the preamble line to fit s->where[r]; a blob that is
 * empty or longer is a protocol fault, not truncated. */
#define WHERE_MAX 1024

/* Rank r's blob, checked; NULL and why in err when it is malformed.
 * Unprintable bytes become '?' (the text goes to a terminal). */
static char *where_text(const struct cc_boot_blobs *all, uint32_t r, size_t max, char *err,
			size_t errlen)
{
	size_t n = all->len[r];
	char *t;

	if (n == 0 || n > max) {
		snprintf(err, errlen, "rank %u sent a %zu-byte description of its device, expected "
			 "1..%zu", r, n, max);
		return NULL;
	}
	if (!(t = malloc(n + 1))) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		uint8_t c = all->data[r][i];
		t[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	t[n] = '\0';
	return t;
}

/* Every rank's place, or the reasons ranks failed, so one rank's missing
 * device stops all at once, named: rank 0 prints every failed rank's
 * reason; another rank prints its own, or the first it stops for. */
static int exchange_where(struct verbs_session *s, const char *cmd, int open_rc,
			  const char *open_err)
{
	char me[WHERE_MAX + 1], host[64] = "?", err[512];
	struct cc_boot_blobs all = {0};
	bool told = false;
	int rc;

	gethostname(host, sizeof(host) - 1);
	if (open_rc)
		snprintf(me, sizeof(me), "!%s", open_err);
	else
		snprintf(me, sizeof(me), "Pid %6ld on %.40s device %.40s port %u", (long)getpid(),
			 host, s->v.device, s->v.port);
	if ((rc = cc_boot_allgather(&s->b, me, strlen(me), &all, err, sizeof(err)))) {
		fprintf(stderr, "cclab %s: rank %u: bootstrap: %s\n", cmd, s->rank, err);
		return CLI_EXIT_FAIL;
	}
	if (open_rc && verbs_rank_speaks(s)) {
		fprintf(stderr, "cclab %s: rank %u: %s\n", cmd, s->rank, open_err);
		told = true;
	}
	for (uint32_t r = 0; r < all.n; r++) {
		bool failed = all.len[r] > 0 && all.data[r][0] == '!';
		char *t = where_text(&all, r, failed ? WHERE_MAX : sizeof(s->where[r]) - 1, err,
				     sizeof(err));

		if (!t) {
			fprintf(stderr, "cclab %s: rank %u: bootstrap: %s\n", cmd, s->rank, err);
			rc = CLI_EXIT_FAIL;
			break;
		}
		if (!failed) {
			memcpy(s->where[r], t, strlen(t) + 1);
		} else {
			rc = CLI_EXIT_FAIL;
			if (s->rank == 0 && r != 0)
				fprintf(stderr, "cclab %s: rank %u: %s\n", cmd, r, t + 1);
			else if (!told && verbs_rank_speaks(s))
				fprintf(stderr, "cclab %s: rank %u: stopped: rank %u failed: %s\n",
					cmd, s->rank, r, t + 1);
			told = told || s->rank != 0;
		}
		free(t);
	}
	cc_boot_blobs_free(&all);
	return rc;
}

int verbs_session_open(struct verbs_session *s, const char *cmd, const struct cc_verbs_opts *vo,
		       int boot_timeout_ms, uint32_t rank, uint32_t world,
		       enum cc_launcher launcher, const struct cc_rendezvous *addr, int listen_fd)
{
	struct cc_boot_opts bo = { .timeout_ms = boot_timeout_ms, .log = stderr };
	char err[512];
	int rc;

	memset(s, 0, sizeof(*s));
	s->rank = rank;
	s->world = world;
	s->launcher = launcher;
	if (!(s->where = calloc(world, sizeof(*s->where)))) {
		fprintf(stderr, "cclab %s: out of memory\n", cmd);
		return CLI_EXIT_FAIL;
	}
	if (cc_boot_open(&s->b, addr, listen_fd, rank, world, &bo, err, sizeof(err))) {
		fprintf(stderr, "cclab %s: rank %u: bootstrap: %s\n", cmd, rank, err);
		free(s->where);
		s->where = NULL;
		return CLI_EXIT_FAIL;
	}
	rc = cc_verbs_open(vo, &s->v, err, sizeof(err));
	if ((rc = exchange_where(s, cmd, rc, err)))
		verbs_session_close(s);
	return rc;
}

void verbs_session_close(struct verbs_session *s)
{
	if (!s->where)
		return;
	cc_verbs_close(&s->v);
	cc_boot_close(&s->b);
	free(s->where);
	s->where = NULL;
}

/* One rank of `cclab run`: the size loop on its session. */
static int run_rank(void *ctx, uint32_t rank, uint32_t world, enum cc_launcher launcher,
		    const struct cc_rendezvous *addr, int listen_fd)
{
	struct cli_opts o = *(const struct cli_opts *)ctx;
	struct vrun c = {0};
	struct cc_verbs_opts vo = { .device = o.device, .port = o.port, .gid_index = o.gid_index,
				    .mtu_bytes = o.mtu, .timeout_ms = (int)o.timeout_s * 1000 };
	int rc;

	o.p.nranks = world;
	if (rank != 0) {
		/* Rank 0 prints and writes; the others only speak on error. */
		o.json = o.csv = NULL;
		o.report_fd = -1;
		o.quiet = true;
		if (!freopen("/dev/null", "w", stdout))
			return CLI_EXIT_FAIL;
	}
	if (!(c.stats = calloc(world, sizeof(*c.stats)))) {
		fprintf(stderr, "cclab run: out of memory\n");
		return CLI_EXIT_FAIL;
	}
	/* A rank may stall for the verbs timeout before it reaches the next
	 * exchange: the bootstrap waits longer than that. */
	rc = verbs_session_open(&c.s, "run", &vo, (int)(2 * o.timeout_s + 20) * 1000, rank, world,
				launcher, addr, listen_fd);
	if (!rc && (rc = verbs_gpu_setup(&c.s, &o, &c.gpu)))
		verbs_session_close(&c.s);
	if (rc) {
		free(c.stats);
		return rc;
	}
	cc_trace_init(&c.trace);
	c.x = (struct cc_verbs_exec){
		.v = &c.s.v,
		.boot = &c.s.b,
		/* seed, check and the key and receive faults are the loop's */
		.opts = { .warmup = o.warmup, .iters = o.iters, .trace = o.trace ? &c.trace : NULL,
			  .rnr_retry = o.rnr_retry, .gpu = c.gpu.n ? &c.gpu.g : NULL },
	};
	g_run = &c;
	const struct cli_loop loop = {
		.x = &cc_verbs_executor,
		.one_rank = true,
		.rank = rank,
		.json_begin = json_begin,
		.preamble = preamble,
		.setting = setting,
		.refused = refused,
		.before_row = before_row,
		.after_row = after_row,
		.finish = finish,
		.ctx = &c,
	};
	rc = cli_loop_run(&o, &loop);
	g_run = NULL;
	verbs_session_close(&c.s);
	verbs_gpu_free(&c.gpu);
	cc_trace_free(&c.trace);
	free(c.stats);
	return rc;
}

int verbs_launch(const char *cmd, uint32_t nranks, uint32_t dflt, const char *bootstrap,
		 uint32_t timeout_s, verbs_rank_fn fn, void *ctx)
{
	struct cc_launch l;
	struct cc_rendezvous addr = { .host = "127.0.0.1", .kind = CC_HOST_IPV4 };
	struct cc_rendezvous given;
	char err[512];
	int rc;

	/* --bootstrap is checked first, whether or not a launcher will use it
	 * (without one, the forked ranks meet on 127.0.0.1 at a free port): a
	 * typo must not pass unnoticed here to fail on the cluster, nor hide
	 * behind the "no RDMA device" that may follow. */
	if (bootstrap && *bootstrap &&
	    cc_rendezvous_get(bootstrap, NULL, &given, err, sizeof(err))) {
		fprintf(stderr, "cclab %s: %s\n", cmd, err);
		return CLI_EXIT_USAGE;
	}
	if ((rc = cc_launch_detect(NULL, &l, err, sizeof(err)))) {
		fprintf(stderr, "cclab %s: %s\n", cmd, err);
		return CLI_EXIT_USAGE;
	}
	/* The simulator takes more ranks (CC_MAX_RANKS) than the bootstrap
	 * joins: refused before a rank is forked, not by each of them. */
	if (nranks > CC_LAUNCH_MAX_RANKS) {
		fprintf(stderr, "cclab %s: -n %u: the verbs executor joins at most %u ranks\n", cmd,
			nranks, CC_LAUNCH_MAX_RANKS);
		return CLI_EXIT_USAGE;
	}
	if (l.size > 1) {
		if (nranks && nranks != l.size) {
			fprintf(stderr, "cclab %s: -n %u, but the launcher (%s) started %u ranks\n",
				cmd, nranks, cc_launcher_name[l.launcher], l.size);
			return CLI_EXIT_USAGE;
		}
		rc = cc_rendezvous_get(bootstrap, NULL, &addr, err, sizeof(err));
		if (rc == -ENOENT) {
			fprintf(stderr, "cclab %s: %u ranks from %s need rank 0's address: "
				"--bootstrap HOST:PORT or %s=HOST:PORT (HOST: the node of rank 0, "
				"PORT: a free TCP port; docs/cluster.md)\n", cmd, l.size,
				cc_launcher_name[l.launcher], CC_BOOTSTRAP_ENV);
			return CLI_EXIT_USAGE;
		}
		if (rc) {
			fprintf(stderr, "cclab %s: %s\n", cmd, err);
			return CLI_EXIT_USAGE;
		}
		return fn(ctx, l.rank, l.size, l.launcher, &addr, -1);
	}
	/* This process alone: the ranks on this host.  Say "no RDMA device"
	 * once, here, rather than from each rank. */
	struct cc_verbs_dev *devs;
	uint32_t n;
	if (cc_verbs_devices(&devs, &n, err, sizeof(err))) {
		fprintf(stderr, "cclab %s: %s\n", cmd, err);
		return CLI_EXIT_FAIL;
	}
	cc_verbs_devices_free(devs, n);
	uint32_t k = nranks ? nranks : dflt;
	if (k == 1)
		return fn(ctx, 0, 1, CC_LAUNCH_LOCAL, &addr, -1);
	g_forked = true;
	return verbs_launch_local(cmd, k, (int)(3 * timeout_s + 20) * 1000, fn, ctx);
}

int cmd_verbs(const struct cli_opts *o)
{
	/* Said once, before any rank is launched (each would refuse too). */
	if (cc_algo_multicast(o->p.algo)) {
		char err[256];

		cc_verbs_refuse_mcast(err, sizeof(err));
		fprintf(stderr, "cclab run: -A %s: %s\n", cc_algo_name[o->p.algo], err);
		return CLI_EXIT_USAGE;
	}
	int rc = verbs_gpu_precheck("run", o);
	if (rc)
		return rc;
	return verbs_launch("run", o->p.nranks, 1, o->bootstrap, o->timeout_s, run_rank,
			    (void *)o);
}
