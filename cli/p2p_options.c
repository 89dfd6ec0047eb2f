/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/p2p_options.c — `cclab p2p`'s options and help.
 *
 * Flags follow perftest's (src/perftest_parameters.c usage()): -s/--size,
 * -a/--all, -n/--iters, -t/--tx-depth, -Q/--cq-mod, -r/--rx-depth; the
 * test is --op and --mode here rather than the program's name.  --fabric
 * and --topology are cclab sim's (cli/options.c checks them for both).
 * Every value is checked in full; a bad one stops with exit status 2 and a
 * message naming the option and the value.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "cli/p2p.h"
#include "sim/scenario.h"

enum {
	OPT_OP = 256,
	OPT_MODE,
	OPT_MEM,
	OPT_FABRIC,
	OPT_TOPOLOGY,
	OPT_JSON,
	OPT_TRACE,
	OPT_CSV,
	OPT_DEVICE,
	OPT_PORT,
	OPT_GID_INDEX,
	OPT_BOOTSTRAP,
	OPT_TIMEOUT,
	OPT_WALL_LIMIT,
	OPT_MTU,
	OPT_BIDIR,
};

static const struct option longopts[] = {
	{"op", required_argument, NULL, OPT_OP},
	{"mode", required_argument, NULL, OPT_MODE},
	{"size", required_argument, NULL, 's'},
	{"all", no_argument, NULL, 'a'},
	{"iters", required_argument, NULL, 'n'},
	{"tx-depth", required_argument, NULL, 't'},
	{"cq-mod", required_argument, NULL, 'Q'},
	{"post_list", required_argument, NULL, 'l'},
	{"post-list", required_argument, NULL, 'l'},
	{"rx-depth", required_argument, NULL, 'r'},
	{"bidirectional", no_argument, NULL, OPT_BIDIR},
	{"mem", required_argument, NULL, OPT_MEM},
	{"fabric", required_argument, NULL, OPT_FABRIC},
	{"topology", required_argument, NULL, OPT_TOPOLOGY},
	{"json", required_argument, NULL, OPT_JSON},
	{"trace", required_argument, NULL, OPT_TRACE},
	{"csv", required_argument, NULL, OPT_CSV},
	{"wall-limit", required_argument, NULL, OPT_WALL_LIMIT},
	{"mtu", required_argument, NULL, OPT_MTU},
	/* On a real RNIC (cli/p2p_verbs.c) instead of the simulator. */
	{"device", required_argument, NULL, OPT_DEVICE},
	{"port", required_argument, NULL, OPT_PORT},
	{"gid-index", required_argument, NULL, OPT_GID_INDEX},
	{"bootstrap", required_argument, NULL, OPT_BOOTSTRAP},
	{"timeout", required_argument, NULL, OPT_TIMEOUT},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* ':' first: a missing argument returns ':' rather than '?'. */
static const char short_opts[] = ":s:an:t:Q:l:r:h";

__attribute__((format(printf, 1, 2)))
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("cclab p2p: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	cli_usage_hint(CLI_P2P);
	return CLI_EXIT_USAGE;
}

/* "a, b or c" */
static void list(char *buf, size_t len, const char *const *names, int n)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && off < len; i++) {
		int w = snprintf(buf + off, len - off, "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ",
				 names[i]);
		if (w < 0)
			break;
		off += (size_t)w;
	}
}

static int get_u32(const char *opt, const char *arg, uint32_t max, uint32_t *out)
{
	uint64_t v;
	int rc = cli_opt_uint(CLI_P2P, opt, arg, 1, max, &v);

	if (!rc)
		*out = (uint32_t)v;
	return rc;
}

struct given {
	bool op, mode, size, iters, tx_depth, fabric_topo, bidir;
	uint32_t iters_v, tx_depth_v, cq_mod, rx_depth, post_list;
	enum cc_mem_kind mem;
	uint64_t size_v;
};

static int apply(int c, const char *opt, const char *arg, struct p2p_opts *o, struct given *g)
{
	char names[160];

	switch (c) {
	case OPT_OP:
		if (cc_p2p_op_parse(arg, &o->p.op)) {
			list(names, sizeof(names), cc_p2p_op_name, CC_P2P_OP_COUNT);
			return cli_opt_bad_value(CLI_P2P, opt, arg, names);
		}
		g->op = true;
		return 0;
	case OPT_MODE:
		if (cc_p2p_mode_parse(arg, &o->p.mode)) {
			list(names, sizeof(names), cc_p2p_mode_name, CC_P2P_MODE_COUNT);
			return cli_opt_bad_value(CLI_P2P, opt, arg, names);
		}
		g->mode = true;
		return 0;
	case 's':
		g->size = true;
		return cli_opt_size(CLI_P2P, opt, arg, 1, &g->size_v);
	case 'a':
		o->all = true;
		return 0;
	case 'n':
		g->iters = true;
		return get_u32(opt, arg, CC_P2P_MAX_ITERS, &g->iters_v);
	case 't':
		g->tx_depth = true;
		return get_u32(opt, arg, CC_P2P_MAX_DEPTH, &g->tx_depth_v);
	case 'Q':
		return get_u32(opt, arg, CC_P2P_MAX_DEPTH, &g->cq_mod);
	case 'l':
		return get_u32(opt, arg, CC_P2P_MAX_DEPTH, &g->post_list);
	case 'r':
		return get_u32(opt, arg, CC_P2P_MAX_DEPTH, &g->rx_depth);
	case OPT_MEM:
		for (int m = 0; m < CC_MEM_KIND_COUNT; m++)
			if (!strcmp(arg, cc_mem_kind_name[m])) {
				g->mem = (enum cc_mem_kind)m;
				return 0;
			}
		list(names, sizeof(names), cc_mem_kind_name, CC_MEM_KIND_COUNT);
		return cli_opt_bad_value(CLI_P2P, opt, arg, names);
	case OPT_FABRIC:
		g->fabric_topo = true;
		return cli_opt_fabric(CLI_P2P, opt, arg, &o->fabric);
	case OPT_TOPOLOGY:
		g->fabric_topo = true;
		return cli_opt_topology(CLI_P2P, opt, arg, &o->topo);
	case OPT_JSON:
	case OPT_TRACE:
	case OPT_CSV:
		if (!*arg)
			return cli_opt_bad_value(CLI_P2P, opt, arg, "expected a file name");
		*(c == OPT_JSON ? &o->json : c == OPT_TRACE ? &o->trace : &o->csv) = arg;
		return 0;
	case OPT_DEVICE:
		if (!*arg || strlen(arg) >= CLI_DEVICE_NAME_MAX)
			return cli_opt_bad_value(CLI_P2P, opt, arg, "expected an RDMA device name "
						 "(cclab devices lists them)");
		o->device = arg;
		return 0;
	case OPT_PORT:
	case OPT_GID_INDEX: {
		uint64_t v;
		if (cli_opt_uint(CLI_P2P, opt, arg, c == OPT_PORT ? 1 : 0, 255, &v))
			return CLI_EXIT_USAGE;
		if (c == OPT_PORT)
			o->port = (uint8_t)v;
		else
			o->gid_index = (int)v;
		o->verbs_opt = true;
		return 0;
	}
	case OPT_BOOTSTRAP:
		if (!*arg)
			return cli_opt_bad_value(CLI_P2P, opt, arg, "expected HOST:PORT");
		o->bootstrap = arg;
		o->verbs_opt = true;
		return 0;
	case OPT_TIMEOUT: {
		uint64_t v;
		if (cli_opt_uint(CLI_P2P, opt, arg, 1, 3600, &v))
			return CLI_EXIT_USAGE;
		o->timeout_s = (uint32_t)v;
		o->verbs_opt = true;
		return 0;
	}
	case OPT_MTU: {
		uint64_t v;
		if (cli_opt_uint(CLI_P2P, opt, arg, 256, 4096, &v))
			return CLI_EXIT_USAGE;
		if (v & (v - 1))
			return cli_opt_bad_value(CLI_P2P, opt, arg,
						 "an IB MTU is 256, 512, 1024, 2048 or 4096 bytes");
		o->mtu = (uint32_t)v;
		return 0;
	}
	case OPT_BIDIR:
		g->bidir = true;
		return 0;
	case OPT_WALL_LIMIT:
		o->wall_limit_given = true;
		return cli_opt_wall_limit(CLI_P2P, opt, arg, &o->wall_limit_ms);
	case 'h':
		o->help = true;
		return 0;
	}
	return cli_opt_bad_value(CLI_P2P, opt, arg ? arg : "", "internal error: unhandled option");
}

/* perftest's defaults for the test, then what was given. */
static int finish(struct p2p_opts *o, const struct given *g)
{
	struct cc_p2p_params p;
	char err[256];
	uint64_t size;

	if (!g->op) {
		char names[160];

		list(names, sizeof(names), cc_p2p_op_name, CC_P2P_OP_COUNT);
		return usage_error("missing --op (%s)", names);
	}
	if (g->size && o->all)
		return usage_error("-s/--size and -a/--all exclude each other");
	if (o->verbs_opt && !o->device)
		return usage_error("--port, --gid-index, --bootstrap and --timeout need --device "
				   "(a run on a real RNIC)");
	if (o->device && (g->fabric_topo || o->wall_limit_given))
		return usage_error("%s applies to the simulator, not to a run with --device",
				   g->fabric_topo ? "--fabric/--topology" : "--wall-limit");
	if (o->json && o->trace && cc_output_same(o->json, o->trace))
		return usage_error("--json and --trace name the same file '%s'", o->json);
	if (o->csv && ((o->json && cc_output_same(o->csv, o->json)) ||
		       (o->trace && cc_output_same(o->csv, o->trace))))
		return usage_error("--csv and --%s name the same file '%s'",
				   o->json && cc_output_same(o->csv, o->json) ? "json" : "trace",
				   o->csv);
	/* The path MTU: the QPs' on a device (cli/p2p_verbs.c), the links'
	 * packets in the simulator, whichever --fabric came first. */
	if (o->mtu && !o->device)
		o->fabric.link.mtu_bytes = o->mtu;
	cc_p2p_params_default(&p, o->p.op, o->p.mode);
	if (g->size)
		p.size = g->size_v;
	else if (o->all)
		p.size = cc_p2p_is_atomic(p.op) ? CC_P2P_ATOMIC_BYTES : CC_P2P_ALL_MIN;
	if (g->iters)
		p.iters = g->iters_v;
	if (g->tx_depth)
		p.tx_depth = g->tx_depth_v;
	if (g->post_list) /* -Q, below, overrides the list's CQ moderation */
		cc_p2p_set_post_list(&p, g->post_list);
	if (g->cq_mod)
		p.cq_mod = g->cq_mod;
	if (g->rx_depth)
		p.rx_depth = g->rx_depth;
	p.mem = g->mem;
	p.bidir = g->bidir;
	if (p.bidir && p.mode != CC_P2P_BW)
		return usage_error("--bidirectional: only bw tests have it (perftest: "
				   "\"Bidirectional is only available in BW test\")");
	if (cc_p2p_check_post_list(&p, err, sizeof(err)))
		return usage_error("-l/--post_list: %s", err);
	o->p = p;
	/* Every size of the sweep, before anything runs. */
	size = p.size;
	do {
		p.size = size;
		if (cc_p2p_check(&p, err, sizeof(err))) {
			/* The depths and counts were range-checked as they were
			 * read; what is left is the size, or too few lat iterations. */
			bool iters = p.mode == CC_P2P_LAT && p.iters < 2;

			return usage_error("%s: %s", iters ? "-n/--iters" : "-s/--size", err);
		}
	} while (p2p_next_size(o, &size));
	return 0;
}

int p2p_parse(int argc, char **argv, struct p2p_opts *o)
{
	static struct cli_once once;
	struct given g = { .mem = CC_MEM_HOST };

	memset(o, 0, sizeof(*o));
	memset(&once, 0, sizeof(once));
	cc_p2p_params_default(&o->p, CC_P2P_WRITE, CC_P2P_BW);
	sim_params_preset(CLI_DEFAULT_FABRIC, &o->fabric); /* built in: cannot fail */
	o->topo = P2P_DEFAULT_TOPOLOGY;
	o->seed = 1;
	o->gid_index = -1;
	o->timeout_s = CLI_DEFAULT_TIMEOUT_S;
	o->wall_limit_ms = (uint64_t)CLI_DEFAULT_WALL_LIMIT_S * 1000u;
	opterr = 0;
	optind = 0; /* glibc: full reinitialisation */
	for (;;) {
		int longindex = -1;
		int c = getopt_long(argc, argv, short_opts, longopts, &longindex);
		char opt[48];

		if (c == -1)
			break;
		if (c == '?') {
			const char *word = argv[optind - 1];

			if (!strncmp(word, "--", 2)) {
				if (optopt && strchr(word, '='))
					return usage_error("option '%s' takes no value", word);
				return usage_error("unknown or ambiguous option '%s'", word);
			}
			return usage_error("unknown option '-%c'", optopt);
		}
		if (c == ':')
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		if (longindex >= 0)
			snprintf(opt, sizeof(opt), "--%s", longopts[longindex].name);
		else
			snprintf(opt, sizeof(opt), "-%c", c);
		if (c != 'h' && cli_opt_once(CLI_P2P, &once, c, opt, optarg))
			return CLI_EXIT_USAGE;
		if (apply(c, opt, optarg, o, &g))
			return CLI_EXIT_USAGE;
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (o->help)
		return 0;
	return finish(o, &g);
}

bool p2p_next_size(const struct p2p_opts *o, uint64_t *size)
{
	/* A scenario's sizes: min, max, factor, as a collective's. */
	if (o->scenario)
		return cc_result_next_size(size, o->scenario->stepfactor, o->scenario->maxbytes);
	/* -a doubles up to 8 MiB, as perftest; atomics have one size. */
	if (!o->all || cc_p2p_is_atomic(o->p.op) || *size >= CC_P2P_ALL_MAX)
		return false;
	*size *= 2;
	return true;
}

void p2p_usage(FILE *f)
{
	char ops[160];

	list(ops, sizeof(ops), cc_p2p_op_name, CC_P2P_OP_COUNT);
	fprintf(f,
		"Usage: cclab p2p --op OP [--mode bw|lat] [-s SIZE | -a] [OPTIONS]\n"
		"\n"
		"One verbs operation between two ranks, timed on the simulator the way\n"
		"perftest measures it (docs/p2p.md): rank 0 is the client, rank 1 the\n"
		"server, one RC QP pair.  bw: rank 0 keeps up to --tx-depth WQEs in flight\n"
		"(ib_*_bw); prints #bytes #iterations BW peak[MB/sec] BW average[MB/sec]\n"
		"MsgRate[Mpps], MB = 2^20 bytes as perftest.  lat: write, write_imm and\n"
		"send ping-pong and report half the round trip; read and the atomics\n"
		"wait for each completion and report all of it (ib_*_lat); prints\n"
		"#bytes #iterations t_min t_max t_typical t_avg t_stdev, 99%% and 99.9%%\n"
		"percentiles [usec], over every delta (ib_*_lat leaves out the 2 largest).\n"
		"As perftest's programs: ib_write_bw ... (cclab ib_write_bw --help).\n"
		"Exit status 0 only if every run completed within the model's bounds.\n"
		"\n"
		"Options:\n"
		"      --op OP             %s (required)\n"
		"      --mode MODE         bw or lat (default bw)\n"
		"  -s, --size SIZE         bytes per message (default 65536 for bw, 2 for lat,\n"
		"                          8 for the atomics, which take no other)\n"
		"  -a, --all               every size from 2 B to 8 MiB, doubling (perftest -a)\n"
		"  -n, --iters N           iterations, 1 to %u (default %u for bw, %u for lat;\n"
		"                          lat needs 2)\n"
		"  -t, --tx-depth N        WQEs in flight on rank 0 (default %u for bw, %u for lat)\n"
		"  -Q, --cq-mod N          signal every Nth WQE (default %u, at most tx-depth)\n"
		"  -l, --post_list N       bw: N WQEs an ibv_post_send, one doorbell (default 1;\n"
		"                          -n a multiple of N, N of -Q, which defaults to N;\n"
		"                          N at most -t)\n"
		"  -r, --rx-depth N        receives kept posted (default %u)\n"
		"      --bidirectional     bw: both ranks send at once on the QP pair, the\n"
		"                          figures the sum of the two sides' (perftest -b)\n"
		"      --mem KIND          host or gpu buffers (default host; gpu: --use_cuda)\n"
		"      --fabric NAME|FILE  a preset of 'cclab sim' (default %s; docs/fabric.md),\n"
		"                          or a fabric file (FILE.yaml, docs/calibrate.md)\n"
		"      --topology NAME     star: through one switch (default); ring: back to back\n"
		"      --mtu BYTES         path MTU, 256 to 4096 (default: the fabric's, or the\n"
		"                          port's active MTU with --device)\n"
		"      --json FILE         also write the results (and every fabric parameter)\n"
		"                          to FILE as JSON, atomically\n"
		"      --csv FILE          also write one CSV line per size to FILE, atomically\n"
		"      --trace FILE        a Chrome trace of the LAST size's run (FILE.csv: CSV)\n"
		"      --wall-limit S      stop a size's simulation after S real seconds, building\n"
		"                          its schedule included (or a time: 500ms; default %u):\n"
		"                          its row fails with status time_limit\n"
		"      --device NAME       run on this RDMA device instead of the simulator:\n"
		"                          two local ranks on it (loopback), or the two ranks\n"
		"                          of srun / mpirun (docs/cluster.md)\n"
		"      --port N, --gid-index N, --bootstrap HOST:PORT, --timeout S\n"
		"                          as 'cclab run' (with --device only)\n"
		"  -h, --help              this text\n"
		"\n"
		"SIZE is a number of bytes with an optional K, M or G suffix (powers of 1024).\n"
		"\n"
		"Example: RDMA READ latency vs WRITE on HDR InfiniBand through one switch:\n"
		"  cclab p2p --op read --mode lat -s 8 --fabric ib-hdr\n"
		"  cclab p2p --op write --mode lat -s 8 --fabric ib-hdr\n"
		"and the same measured on a device:\n"
		"  cclab p2p --op read --mode lat -s 8 --device mlx5_0\n",
		ops, CC_P2P_MAX_ITERS, CC_P2P_ITERS_BW, CC_P2P_ITERS_LAT, CC_P2P_TX_DEPTH_BW,
		CC_P2P_TX_DEPTH_LAT, CC_P2P_CQ_MOD, CC_P2P_RX_DEPTH, CLI_DEFAULT_FABRIC,
		CLI_DEFAULT_WALL_LIMIT_S);
}
