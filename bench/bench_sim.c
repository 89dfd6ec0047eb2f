/* SPDX-License-Identifier: BSD-3-Clause */
/* bench/bench_sim.c — how fast the simulator executor (sim/exec.h) runs a
 * ring (or tree) allreduce, and what it costs in memory: for each rank count k and
 * size N it builds the schedule (cc_build(), as `cclab sim` does), runs it
 * with cc_sim_run() on a fabric preset without carrying data (check off:
 * timing only), and prints one row:
 *
 *   ranks, bytes       k and N (the allreduce size, nccl-tests' -b)
 *   sim_us             simulated time until every rank is done
 *   busbw_GB/s         nccl-tests: algbw = N / time, busbw = algbw * 2(k-1)/k
 *   events             engine events the run executed
 *   build_s, run_s     wall seconds (CLOCK_MONOTONIC) of cc_build() and of
 *                      cc_sim_run() alone
 *   events/s           events per wall second of the run
 *   rss_MiB            the process's peak RSS so far (getrusage ru_maxrss;
 *                      monotonic, so a row includes the larger ones before)
 *   sim_mem_MiB        the simulator's own memory (cc_sim_result.mem_bytes)
 *   est_MiB            what `cclab sim` weighs before it runs: the schedule
 *                      and cc_sim_mem_estimate() (against rss_MiB)
 *   sched_MiB, ops     the schedule's own memory (cc_schedule_bytes(): a
 *                      generated one's resources only) and its ops over all
 *                      ranks: what grows with k^2
 *   window             a generated schedule's window the run ended with
 *                      (sim/exec_gen.c), 0: built whole
 *
 * Speed figures belong here, not in the unit tests (docs/testing.md).
 *
 * usage: make bench && build/bench/bench_sim [--full|--scale] [-k LIST] [-N LIST]
 *                                            [--fabric NAME] [--topology ring|star]
 *                                            [--model packet|flow] [--built]
 *                                            [--window N] [--algorithm ring|tree]
 *                                            [--max-ops N]
 *   default   k in 2,8,32 x N in 1M,64M: a quick sweep, well under a minute
 *   --scale   k in 8,64,256,1024,4096,16384 x N = 1M: how cost grows with k
 *   --full    k in 2,8,32,128,256 x N in 1M,64M,1G; points whose schedule
 *             cc_build() refuses as too large for this machine (E2BIG) print
 *             a "skipped" row with its reason
 *   -k LIST   comma-separated rank counts, e.g. -k 4,16
 *   -N LIST   comma-separated sizes with K/M/G suffixes (cc_parse_size),
 *             e.g. -N 256K,1G
 *   --fabric  a sim_params preset (default ib-hdr)
 *   --topology ring (default; the tree's: star) or star
 *   --model   packet (default) or flow (sim/rnic_flow.c)
 *   --built   the schedule built whole, not generated as it runs (core/gen.h)
 *   --window  a generated schedule's window to start with (default
 *             CC_SIM_GEN_WINDOW)
 *   --algorithm  ring (default) or tree: NCCL's double binary tree, its
 *             chunk by NCCL's rule per size (a rank a node)
 *   --max-ops N  a point whose schedule has more than N ops over all ranks
 *             prints a "skipped" row instead of running (about 40 minutes
 *             per 10^9 ops on the development machine); --scale: 1e9 unless
 *             given, which skips the ring at k = 16384 (about 4.9e9)
 * Exit status: 0, 1 if a run failed, 2 for a bad option.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "core/algo.h"
#include "core/dtype.h"
#include "core/results.h"
#include "sim/exec.h"
#include "sim/params.h"
#include "sim/topo.h"
#include "util/units.h"

#define MAXLIST 64

struct list {
	uint64_t v[MAXLIST];
	size_t n;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double peak_rss_mib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_maxrss / 1024.0; /* Linux: KiB */
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench_sim [--full | --scale] [-k LIST] [-N LIST] [--fabric NAME] "
		   "[--topology ring|star] [--model packet|flow] [--built] [--window N]\n"
		   "  [--algorithm ring|tree] [--max-ops N]\n"
		   "  default: k 2,8,32 x N 1M,64M; --full: k 2,8,32,128,256 x N 1M,64M,1G;\n"
		   "  --scale: k 8,64,256,1024,4096,16384 x N 1M (rows too large for this\n"
		   "  machine print skipped and why)\n"
		   "  LIST is comma-separated: -k 4,16  -N 256K,1G\n");
}

static int bad_option(const char *opt, const char *val, const char *why)
{
	if (val)
		fprintf(stderr, "bench_sim: %s '%s': %s\n", opt, val, why);
	else
		fprintf(stderr, "bench_sim: %s: %s\n", opt, why);
	usage(stderr);
	return 2;
}

/* Comma-separated rank counts: each a whole decimal number >= 1. */
static int parse_ranks(const char *s, struct list *out)
{
	const char *p = s;

	out->n = 0;
	for (;;) {
		char *end;
		unsigned long long v;

		if (*p < '0' || *p > '9')
			return -EINVAL;
		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno || v == 0 || v > UINT32_MAX)
			return -EINVAL;
		if (out->n == MAXLIST)
			return -E2BIG;
		out->v[out->n++] = v;
		if (*end == '\0')
			return 0;
		if (*end != ',')
			return -EINVAL;
		p = end + 1;
	}
}

/* Comma-separated sizes, each as cc_parse_size() reads it. */
static int parse_sizes(const char *s, struct list *out)
{
	char buf[64];
	const char *p = s;

	out->n = 0;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (len == 0 || len >= sizeof(buf))
			return -EINVAL;
		memcpy(buf, p, len);
		buf[len] = '\0';
		if (out->n == MAXLIST)
			return -E2BIG;
		if (cc_parse_size(buf, &out->v[out->n]))
			return -EINVAL;
		out->n++;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

/* How a point is built and run besides k and N. */
struct point_opts {
	const struct sim_params *fab;
	enum sim_topo_kind topo;
	enum cc_sim_model model;
	bool built;      /* whole, not generated */
	uint32_t window; /* cc_sim_opts.gen_window */
	enum cc_algo algo;
	uint64_t max_ops; /* skip a point with more ops over all ranks; 0: none */
};

static void print_header(const char *fabric, const struct point_opts *po)
{
	printf("# allreduce, %s algorithm, write_imm, float32 sum, fabric %s, topology %s, "
	       "check off, model %s\n", cc_algo_name[po->algo], fabric,
	       sim_topo_kind_name[po->topo], cc_sim_model_name[po->model]);
	printf("%6s %12s %12s %10s %12s %8s %8s %10s %8s %8s %11s %9s %11s %7s\n", "ranks",
	       "bytes", "sim_us", "busbw_GB/s", "events", "build_s", "run_s", "events/s", "rss_MiB",
	       "est_MiB", "sim_mem_MiB", "sched_MiB", "ops", "window");
}

/* One (k, N) point: 0, or 1 if it could not be run. */
static int run_point(uint32_t k, uint64_t bytes, const struct point_opts *po)
{
	struct cc_coll_params p;
	struct cc_schedule *s;
	struct cc_sim_result res;
	uint64_t count, size;
	char err[256] = "";
	int rc;

	cc_coll_params_default(&p);
	p.coll = CC_ALLREDUCE;
	p.algo = po->algo;
	p.nranks = k;
	/* As cli/build.c: nccl-tests' count from the size asked for. */
	cc_result_counts(p.coll, k, cc_dtype_size(p.dtype), bytes, &count, &size);
	p.count = count;

	errno = 0;
	double t0 = now_s();
	struct cc_mem_limit host;
	cc_mem_limit(&host);
	s = cc_build_with(&p, &(const struct cc_build_opts){ .mem_limit = &host, .timing_only = true,
							     .generated = !po->built }, err,
			  sizeof(err));
	double t1 = now_s();
	if (!s) {
		if (errno == E2BIG) {
			printf("%6" PRIu32 " %12" PRIu64 "  skipped: schedule too large (%s)\n", k,
			       bytes, err);
			return 0;
		}
		if (errno == EINVAL && err[0]) { /* past cc_build()'s own range (k) */
			printf("%6" PRIu32 " %12" PRIu64 "  skipped: refused by cc_build() (%s)\n", k,
			       bytes, err);
			return 0;
		}
		printf("%6" PRIu32 " %12" PRIu64 "  failed: cannot build the schedule: %s\n", k,
		       bytes, err[0] ? err : strerror(errno ? errno : ENOMEM));
		return 1;
	}

	uint64_t ops = 0;

	for (uint32_t r = 0; r < s->nranks; r++)
		ops += s->ranks[r].nops;
	if (po->max_ops && ops > po->max_ops) {
		printf("%6" PRIu32 " %12" PRIu64 "  skipped: %.3g ops over all ranks, more than "
		       "--max-ops %.3g (about 40 minutes a 10^9 here)\n", k, bytes, (double)ops,
		       (double)po->max_ops);
		cc_schedule_free(s);
		return 0;
	}
	struct cc_sim_opts o = {
		.fabric = po->fab,
		.model = po->model,
		.topo = po->topo,
		.gen_window = po->window,
		.seed = 1,
		.check = false,
	};
	double est = (double)cc_schedule_bytes(s) + cc_sim_mem_estimate(s, &o);

	memset(&res, 0, sizeof(res));
	double t2 = now_s();
	rc = cc_sim_run(s, &o, &res);
	double t3 = now_s();
	if (rc) {
		printf("%6" PRIu32 " %12" PRIu64 "  %s: cc_sim_run: %s\n", k, bytes,
		       rc == -E2BIG ? "skipped" : "failed", strerror(-rc));
		cc_schedule_free(s);
		return rc == -E2BIG ? 0 : 1;
	}

	double run_s = t3 - t2;
	double sim_us = (double)res.time_ps / (double)SIM_PS_PER_US;
	double algbw = 0, busbw = 0;

	/* nccl-tests: algbw = size / time, busbw = algbw * 2(k-1)/k. */
	if (!cc_result_bw(size, sim_us, cc_busbw_factor(p.coll, k), &algbw, &busbw))
		busbw = 0;
	printf("%6" PRIu32 " %12" PRIu64 " %12.3f %10.3f %12" PRIu64 " %8.3f %8.3f %10.3g %8.1f "
	       "%8.1f %11.2f %9.1f %11" PRIu64 " %7" PRIu32, k, bytes, sim_us, busbw, res.events,
	       t1 - t0, run_s, run_s > 0 ? (double)res.events / run_s : 0.0, peak_rss_mib(),
	       est / (1024.0 * 1024.0), (double)res.mem_bytes / (1024.0 * 1024.0),
	       (double)cc_schedule_bytes(s) / (1024.0 * 1024.0), ops, res.gen_window);
	int bad = res.err.status != CC_RUN_OK;
	if (bad)
		printf("  failed: %.*s", (int)sizeof(res.err.msg), res.err.msg);
	printf("\n");
	fflush(stdout);
	cc_sim_result_free(&res);
	cc_schedule_free(s);
	return bad;
}

int main(int argc, char **argv)
{
	enum { OPT_FULL = 256, OPT_FABRIC, OPT_TOPOLOGY, OPT_SCALE, OPT_MODEL, OPT_BUILT, OPT_WINDOW,
	       OPT_ALGO, OPT_MAX_OPS };
	static const struct option longopts[] = {
		{"full", no_argument, NULL, OPT_FULL},
		{"scale", no_argument, NULL, OPT_SCALE},
		{"fabric", required_argument, NULL, OPT_FABRIC},
		{"topology", required_argument, NULL, OPT_TOPOLOGY},
		{"model", required_argument, NULL, OPT_MODEL},
		{"built", no_argument, NULL, OPT_BUILT},
		{"window", required_argument, NULL, OPT_WINDOW},
		{"algorithm", required_argument, NULL, OPT_ALGO},
		{"max-ops", required_argument, NULL, OPT_MAX_OPS},
		{"ranks", required_argument, NULL, 'k'},
		{"bytes", required_argument, NULL, 'N'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static const uint64_t quick_k[] = {2, 8, 32}, full_k[] = {2, 8, 32, 128, 256};
	static const uint64_t quick_n[] = {UINT64_C(1) << 20, UINT64_C(64) << 20};
	static const uint64_t full_n[] = {UINT64_C(1) << 20, UINT64_C(64) << 20, UINT64_C(1) << 30};
	/* issue 27's scale: the rank counts users ask about, one size */
	static const uint64_t scale_k[] = {8, 64, 256, 1024, 4096, 16384};
	static const uint64_t scale_n[] = {UINT64_C(1) << 20};
	struct list ks = {.n = 0}, ns = {.n = 0};
	const char *fabric = "ib-hdr";
	struct point_opts po = { .topo = SIM_TOPO_RING, .model = CC_SIM_MODEL_PACKET };
	struct sim_params fab;
	bool full = false, scale = false, have_k = false, have_n = false, have_topo = false;
	int c, rc = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":k:N:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_FULL:
			full = true;
			break;
		case OPT_SCALE:
			scale = true;
			break;
		case OPT_FABRIC:
			fabric = optarg;
			break;
		case OPT_TOPOLOGY:
			if (sim_topo_kind_parse(optarg, &po.topo))
				return bad_option("--topology", optarg, "not ring or star");
			have_topo = true;
			break;
		case OPT_MODEL:
			if (cc_sim_model_parse(optarg, &po.model))
				return bad_option("--model", optarg, "not packet or flow");
			break;
		case OPT_BUILT:
			po.built = true;
			break;
		case OPT_ALGO:
			if (cc_algo_parse(optarg, &po.algo) ||
			    (po.algo != CC_ALGO_RING && po.algo != CC_ALGO_TREE))
				return bad_option("--algorithm", optarg, "not ring or tree");
			break;
		case OPT_WINDOW: {
			char *end;
			unsigned long w = strtoul(optarg, &end, 10);

			if (*end || !*optarg || w < 1 || w > UINT32_MAX)
				return bad_option("--window", optarg, "expected a count of ops >= 1");
			po.window = (uint32_t)w;
			break;
		}
		case OPT_MAX_OPS: {
			char *end;
			double v = strtod(optarg, &end);

			if (*end || !*optarg || !(v >= 1 && v < 1.8e19))
				return bad_option("--max-ops", optarg, "expected a count of ops >= 1");
			po.max_ops = (uint64_t)v;
			break;
		}
		case 'k':
			if (parse_ranks(optarg, &ks))
				return bad_option("-k", optarg,
						  "expected comma-separated rank counts >= 1 "
						  "(at most 64 of them)");
			have_k = true;
			break;
		case 'N':
			if (parse_sizes(optarg, &ns))
				return bad_option("-N", optarg,
						  "expected comma-separated sizes such as 1M,64M,1G "
						  "(at most 64 of them)");
			have_n = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			return bad_option(argv[optind - 1], NULL, "needs a value");
		default:
			/* optopt: the short option, or a long one's val when it
			 * was given a value it does not take ("--full=1"). */
			if (optopt >= 256)
				return bad_option(argv[optind - 1], NULL, "takes no value");
			if (optopt) {
				char opt[3] = {'-', (char)optopt, '\0'};

				return bad_option(opt, NULL, "unknown option");
			}
			return bad_option(argv[optind - 1], NULL, "unknown option");
		}
	}
	if (optind < argc)
		return bad_option(argv[optind], NULL, "unexpected argument");
	if (sim_params_preset(fabric, &fab)) {
		fprintf(stderr, "bench_sim: --fabric '%s': unknown preset; one of:", fabric);
		for (const char *const *n = sim_params_preset_names(); *n; n++)
			fprintf(stderr, " %s", *n);
		fprintf(stderr, "\n");
		return 2;
	}
	if (!have_k) {
		const uint64_t *v = scale ? scale_k : full ? full_k : quick_k;
		size_t n = scale  ? sizeof(scale_k) / sizeof(scale_k[0])
			   : full ? sizeof(full_k) / sizeof(full_k[0])
				  : sizeof(quick_k) / sizeof(quick_k[0]);

		memcpy(ks.v, v, n * sizeof(*v));
		ks.n = n;
	}
	if (!have_n) {
		const uint64_t *v = scale ? scale_n : full ? full_n : quick_n;
		size_t n = scale  ? sizeof(scale_n) / sizeof(scale_n[0])
			   : full ? sizeof(full_n) / sizeof(full_n[0])
				  : sizeof(quick_n) / sizeof(quick_n[0]);

		memcpy(ns.v, v, n * sizeof(*v));
		ns.n = n;
	}

	/* --scale's largest points take hours on the ring (k^2 steps):
	 * skipped unless asked for */
	/* a tree joins ranks that a ring of cables does not */
	if (po.algo == CC_ALGO_TREE && !have_topo)
		po.topo = SIM_TOPO_STAR;
	if (scale && !po.max_ops)
		po.max_ops = UINT64_C(1000000000);
	po.fab = &fab;
	print_header(fab.name, &po);
	for (size_t i = 0; i < ks.n; i++)
		for (size_t j = 0; j < ns.n; j++)
			rc |= run_point((uint32_t)ks.v[i], ns.v[j], &po);
	return rc;
}
