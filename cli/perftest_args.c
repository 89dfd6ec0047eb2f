/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/perftest_args.c — perftest's flags as a `cclab p2p` command line
 * (cli/perftest.h).
 *
 * The flags and their meaning are perftest's (src/perftest_parameters.c:
 * usage(), parser_long(); defaults src/perftest_parameters.h).  As there,
 * a flag may be given once (its duplicates_checker), the one argument left
 * is the server's host, and -A belongs to the atomic tests.  What perftest
 * does and cclab's p2p schedule does not model (-q above 1, -D, -R)
 * is refused, naming the flag, rather than run as something else. */
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/perftest.h"

static const struct {
	const char *name;
	enum cc_p2p_op op;
	enum cc_p2p_mode mode;
} programs[] = {
	{"ib_write_bw", CC_P2P_WRITE, CC_P2P_BW},
	{"ib_write_lat", CC_P2P_WRITE, CC_P2P_LAT},
	{"ib_read_bw", CC_P2P_READ, CC_P2P_BW},
	{"ib_read_lat", CC_P2P_READ, CC_P2P_LAT},
	{"ib_send_bw", CC_P2P_SEND, CC_P2P_BW},
	{"ib_send_lat", CC_P2P_SEND, CC_P2P_LAT},
	{"ib_atomic_bw", CC_P2P_FETCH_ADD, CC_P2P_BW},   /* -A FETCH_AND_ADD, perftest's default */
	{"ib_atomic_lat", CC_P2P_FETCH_ADD, CC_P2P_LAT},
};

int pt_program(const char *name, enum cc_p2p_op *op, enum cc_p2p_mode *mode)
{
	for (size_t i = 0; i < sizeof(programs) / sizeof(programs[0]); i++)
		if (!strcmp(name, programs[i].name)) {
			*op = programs[i].op;
			*mode = programs[i].mode;
			return 0;
		}
	return -1;
}

enum {
	OPT_GBITS = 256, OPT_OUT_JSON, OPT_OUT_JSON_FILE, OPT_USE_CUDA, OPT_WRITE_IMM,
	OPT_TEST,       /* --op, --mode: the program's name says them */
	OPT_PASS_ARG,   /* cclab p2p's own, passed on as written */
	OPT_DEVICE,     /* cclab p2p's --device: both sides here */
};

static const struct option longopts[] = {
	{"ib-dev", required_argument, NULL, 'd'},
	{"ib-port", required_argument, NULL, 'i'},
	{"gid-index", required_argument, NULL, 'x'},
	{"mtu", required_argument, NULL, 'm'},
	{"size", required_argument, NULL, 's'},
	{"all", no_argument, NULL, 'a'},
	{"iters", required_argument, NULL, 'n'},
	{"tx-depth", required_argument, NULL, 't'},
	{"rx-depth", required_argument, NULL, 'r'},
	{"cq-mod", required_argument, NULL, 'Q'},
	{"post_list", required_argument, NULL, 'l'},
	{"CPU-freq", no_argument, NULL, 'F'},
	{"qp", required_argument, NULL, 'q'},
	{"duration", required_argument, NULL, 'D'},
	{"bidirectional", no_argument, NULL, 'b'},
	{"rdma_cm", no_argument, NULL, 'R'},
	{"port", required_argument, NULL, 'p'},
	{"atomic_type", required_argument, NULL, 'A'},
	{"report_gbits", no_argument, NULL, OPT_GBITS},
	{"out_json", no_argument, NULL, OPT_OUT_JSON},
	{"out_json_file", required_argument, NULL, OPT_OUT_JSON_FILE},
	{"use_cuda", required_argument, NULL, OPT_USE_CUDA},
	{"write_with_imm", no_argument, NULL, OPT_WRITE_IMM},
	{"help", no_argument, NULL, 'h'},
	{"op", required_argument, NULL, OPT_TEST},
	{"mode", required_argument, NULL, OPT_TEST},
	/* cclab p2p's own long options (docs/p2p.md) */
	{"fabric", required_argument, NULL, OPT_PASS_ARG},
	{"topology", required_argument, NULL, OPT_PASS_ARG},
	{"wall-limit", required_argument, NULL, OPT_PASS_ARG},
	{"json", required_argument, NULL, OPT_PASS_ARG},
	{"csv", required_argument, NULL, OPT_PASS_ARG},
	{"trace", required_argument, NULL, OPT_PASS_ARG},
	{"mem", required_argument, NULL, OPT_PASS_ARG},
	{"timeout", required_argument, NULL, OPT_PASS_ARG},
	{"bootstrap", required_argument, NULL, OPT_PASS_ARG},
	{"device", required_argument, NULL, OPT_DEVICE},
	{NULL, 0, NULL, 0},
};

static const char short_opts[] = ":d:i:x:m:s:an:t:r:Q:l:Fq:D:bRp:A:h";

__attribute__((format(printf, 2, 3)))
static int bad(const struct pt_opts *t, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = cli_prog_usage_verror(t->prog, "--help", fmt, ap);
	va_end(ap);
	return rc;
}

__attribute__((format(printf, 2, 3)))
static void note(struct pt_opts *t, const char *fmt, ...)
{
	size_t off = strlen(t->notes);
	va_list ap;

	if (off + 16 >= sizeof(t->notes))
		return;
	off += (size_t)snprintf(t->notes + off, sizeof(t->notes) - off, "# cclab: ");
	va_start(ap, fmt);
	vsnprintf(t->notes + off, sizeof(t->notes) - off - 1, fmt, ap);
	va_end(ap);
	off = strlen(t->notes);
	t->notes[off] = '\n';
	t->notes[off + 1] = '\0';
}

static void push(struct pt_opts *t, const char *s)
{
	if (t->argc < PT_ARGV_MAX)
		t->argv[t->argc++] = s;
	t->argv[t->argc] = NULL;
}

static void push_u(struct pt_opts *t, const char *opt, uint64_t v)
{
	char *at = t->text + t->off;
	int w = snprintf(at, sizeof(t->text) - t->off, "%" PRIu64, v);

	t->off += (size_t)w + 1;
	push(t, opt);
	push(t, at);
}

/* "-i/--ib-port" for a message. */
static void flag_name(int c, int longindex, char *buf, size_t len)
{
	for (const struct option *o = longopts; o->name; o++)
		if (c < 256 ? o->val == c : o == &longopts[longindex]) {
			if (c < 256)
				snprintf(buf, len, "-%c/--%s", c, o->name);
			else
				snprintf(buf, len, "--%s", o->name);
			return;
		}
	snprintf(buf, len, "-%c", c);
}

/* A whole decimal number in [min, max]. */
static int number(const struct pt_opts *t, const char *flag, const char *arg, uint64_t min,
		  uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*arg < '0' || *arg > '9' || (v = strtoull(arg, &end, 10), *end) || v < min ||
	    v > max)
		return bad(t, "%s: '%s' is not a whole number from %" PRIu64 " to %" PRIu64, flag,
			   arg, min, max);
	*out = v;
	return 0;
}

struct given {
	bool iters, ib_port, gid, cpu_freq, use_cuda, json_file, size, tx_depth, cq_mod, all, bidir;
	bool post_list; /* -l above 1: perftest's CQ moderation is then the list's */
	uint64_t ib_port_v, gid_v, cuda_v, iters_v, size_v, tx_depth_v;
};

static int apply(struct pt_opts *t, struct given *g, int c, const char *flag, const char *arg)
{
	uint64_t v;

	switch (c) {
	case 'd':
		if (!*arg)
			return bad(t, "%s: expected an RDMA device name (cclab devices lists them)",
				   flag);
		t->dev = arg;
		return 0;
	case 'i':
		g->ib_port = true;
		return number(t, flag, arg, 1, 255, &g->ib_port_v);
	case 'x':
		g->gid = true;
		return number(t, flag, arg, 0, 255, &g->gid_v);
	case 'm':
		if (number(t, flag, arg, 256, 4096, &v))
			return CLI_EXIT_USAGE;
		if (v & (v - 1))
			return bad(t, "%s: '%s': an IB MTU is 256, 512, 1024, 2048 or 4096", flag, arg);
		push_u(t, "--mtu", v);
		return 0;
	case 'n':
		/* perftest's range starts at MIN_ITER; cclab p2p's ends at its own */
		if (number(t, flag, arg, PT_MIN_ITERS, CC_P2P_MAX_ITERS, &v))
			return CLI_EXIT_USAGE;
		g->iters = true;
		g->iters_v = v;
		push_u(t, "-n", v);
		return 0;
	case 's':
		/* perftest's -s is a number of bytes (no K or M) */
		g->size = true;
		if (number(t, flag, arg, 1, CC_P2P_MAX_BYTES, &g->size_v))
			return CLI_EXIT_USAGE;
		push_u(t, "-s", g->size_v);
		return 0;
	case 't':
		g->tx_depth = true;
		if (number(t, flag, arg, 1, CC_P2P_MAX_DEPTH, &g->tx_depth_v))
			return CLI_EXIT_USAGE;
		return 0; /* finish() passes it, bounded by -n as perftest */
	case 'r':
	case 'Q':
		/* the same flags in cclab p2p, checked there */
		g->cq_mod = g->cq_mod || c == 'Q';
		push(t, c == 'r' ? "-r" : "-Q");
		push(t, arg);
		return 0;
	case 'l':
		/* cclab p2p's -l, checked there */
		g->post_list = strtoul(arg, NULL, 10) > 1; /* the last -l counts */
		push(t, "-l");
		push(t, arg);
		return 0;
	case 'a':
		g->all = true;
		push(t, "-a");
		return 0;
	case 'F':
		/* perftest: do not fail when the CPU's frequencies disagree
		 * (get_cpu_mhz()); cclab reads no cycle counter */
		g->cpu_freq = true;
		return 0;
	case 'q':
		if (number(t, flag, arg, 1, 65535, &v))
			return CLI_EXIT_USAGE;
		if (v != 1)
			return bad(t, "%s %s: not modelled: cclab's p2p schedule has one RC QP pair "
				   "(core/p2p.h)", flag, arg);
		return 0;
	case 'D':
		return bad(t, "%s: not modelled: cclab runs a number of iterations (-n), "
			   "not for a time; a simulation's duration would be simulated time, "
			   "which is what it measures", flag);
	case 'b':
		if (t->mode != CC_P2P_BW)
			return bad(t, "%s: Bidirectional is only available in BW test (perftest)",
				   flag);
		g->bidir = true;
		push(t, "--bidirectional");
		return 0;
	case 'R':
		return bad(t, "%s: not supported: cclab connects the QPs through its own TCP "
			   "exchange (backend/bootstrap.h), not librdmacm", flag);
	case 'p':
		if (number(t, flag, arg, 1, 65535, &v))
			return CLI_EXIT_USAGE;
		t->tcp_port = (uint16_t)v;
		return 0;
	case 'A':
		if (!cc_p2p_is_atomic(t->op))
			return bad(t, "%s: only the atomic tests (ib_atomic_bw, ib_atomic_lat) take "
				   "it, as perftest", flag);
		if (!strcmp(arg, "FETCH_AND_ADD"))
			t->op = CC_P2P_FETCH_ADD;
		else if (!strcmp(arg, "CMP_AND_SWAP"))
			t->op = CC_P2P_CMP_SWAP;
		else
			return bad(t, "%s: '%s': expected FETCH_AND_ADD or CMP_AND_SWAP", flag, arg);
		return 0;
	case OPT_GBITS:
		t->gbits = true;
		return 0;
	case OPT_OUT_JSON:
		t->out_json = true;
		return 0;
	case OPT_OUT_JSON_FILE:
		if (!*arg)
			return bad(t, "%s: expected a file name", flag);
		t->json_file = arg;
		g->json_file = true;
		return 0;
	case OPT_USE_CUDA:
		if (number(t, flag, arg, 0, 1023, &g->cuda_v))
			return CLI_EXIT_USAGE;
		g->use_cuda = true;
		push(t, "--mem");
		push(t, "gpu");
		return 0;
	case OPT_WRITE_IMM:
		if (t->op != CC_P2P_WRITE)
			return bad(t, "%s: only the write tests take it, as perftest", flag);
		t->op = CC_P2P_WRITE_IMM;
		return 0;
	case OPT_TEST:
		return bad(t, "%s: the program's name sets the test (%s: %s %s); see cclab p2p",
			   flag, t->prog, cc_p2p_op_name[t->op], cc_p2p_mode_name[t->mode]);
	case OPT_DEVICE:
		t->cclab_device = true;
		push(t, "--device");
		push(t, arg);
		return 0;
	case 'h':
		t->help = true;
		return 0;
	}
	return bad(t, "%s: internal error: unhandled flag", flag);
}

/* Where it runs, the options only a device takes, and what has no effect. */
static int finish(struct pt_opts *t, const struct given *g)
{
	bool real = t->dev || t->server;

	if (t->cclab_device && real)
		return bad(t, "--device runs both sides on this host (loopback); -d and a server "
			   "HOST run one side each, perftest's way: not both");
	for (int i = 0; real && i < t->argc; i++)
		if (!strncmp(t->argv[i], "--bootstrap", 11))
			return bad(t, "--bootstrap belongs to --device's launcher runs; -d and a "
				   "server HOST meet on -p/--port");
	if (!real && !t->cclab_device)
		note(t, "no -d and no server HOST: no device to run on, so the test is simulated "
		     "(-d DEV: a server on DEV; -d DEV HOST: its client)");
	if (g->ib_port || g->gid) {
		if (real || t->cclab_device) {
			if (g->ib_port)
				push_u(t, "--port", g->ib_port_v);
			if (g->gid)
				push_u(t, "--gid-index", g->gid_v);
		} else {
			note(t, "%s: no effect in a simulation", g->ib_port ? "-i/--ib-port" :
			     "-x/--gid-index");
		}
	}
	if (!real && t->tcp_port != PT_DEFAULT_PORT)
		note(t, "-p/--port %u: no effect in a simulation", t->tcp_port);
	if (g->cpu_freq)
		note(t, "-F/--CPU-freq: no effect: cclab reads no CPU cycle counter (simulated "
		     "picoseconds, or the host's clock_gettime() on a device)");
	if (g->use_cuda)
		note(t, "--use_cuda %" PRIu64 ": GPU buffers (cclab p2p --mem gpu); the device "
		     "number is not modelled", g->cuda_v);
	if (g->json_file && !t->out_json)
		note(t, "--out_json_file without --out_json: nothing written, as perftest");
	/* perftest's default iterations: DEF_ITERS_WB for the write bw tests,
	 * else DEF_ITERS (cclab p2p's bw default is 5000 for every op) */
	uint64_t iters = g->iters ? g->iters_v
		       : t->mode == CC_P2P_BW && (t->op == CC_P2P_WRITE || t->op == CC_P2P_WRITE_IMM)
			 ? PT_DEF_ITERS_WB : PT_DEF_ITERS;
	uint64_t size = g->size ? g->size_v : t->mode == CC_P2P_BW ? CC_P2P_SIZE_BW
								    : CC_P2P_SIZE_LAT;
	uint64_t tx = g->tx_depth ? g->tx_depth_v : t->mode == CC_P2P_BW ? CC_P2P_TX_DEPTH_BW
									 : CC_P2P_TX_DEPTH_LAT;

	if (!g->iters && iters != (t->mode == CC_P2P_BW ? CC_P2P_ITERS_BW : CC_P2P_ITERS_LAT))
		push_u(t, "-n", iters);
	/* force_dependecies(): no more WQEs in flight than iterations ... */
	if (g->tx_depth || tx > iters)
		push_u(t, "-t", tx < iters ? tx : iters);
	/* ... and no CQ moderation for messages above MSG_SIZE_CQ_MOD_LIMIT
	 * (8192 B) unless -Q asks for it, except with -a (one setting for
	 * every size): every WQE signalled; a post list above 1 sets it to
	 * the list's size afterwards (cclab p2p does) */
	if (!g->cq_mod && !g->post_list && !g->all && !cc_p2p_is_atomic(t->op) &&
	    size > PT_CQ_MOD_LIMIT)
		push_u(t, "-Q", 1);
	push(t, "--op");
	push(t, cc_p2p_op_name[t->op]);
	push(t, "--mode");
	push(t, cc_p2p_mode_name[t->mode]);
	return 0;
}

int pt_parse(int argc, char **argv, struct pt_opts *t)
{
	const char *slash = strrchr(argv[0], '/');
	struct given g = {0};
	unsigned char seen[OPT_DEVICE + 1] = {0};

	memset(t, 0, sizeof(*t));
	t->prog = slash ? slash + 1 : argv[0];
	if (pt_program(t->prog, &t->op, &t->mode))
		return bad(t, "not one of perftest's programs cclab runs");
	t->tcp_port = PT_DEFAULT_PORT;
	t->json_file = PT_JSON_FILE;
	push(t, "p2p");
	opterr = 0;
	optind = 0; /* glibc: full reinitialisation */
	for (;;) {
		int longindex = -1;
		int c = getopt_long(argc, argv, short_opts, longopts, &longindex);
		char flag[48];

		if (c == -1)
			break;
		if (c == '?') {
			const char *word = argv[optind - 1];

			if (!strncmp(word, "--", 2) && optopt && strchr(word, '='))
				return bad(t, "flag '%s' takes no value", word);
			if (!strncmp(word, "--", 2))
				return bad(t, "unknown flag '%s' (not one of perftest's that cclab "
					   "takes, nor cclab p2p's own)", word);
			return bad(t, "unknown flag '-%c' (not one of perftest's that cclab takes)",
				   optopt);
		}
		if (c == ':')
			return bad(t, "flag '%s' needs a value", argv[optind - 1]);
		flag_name(c, longindex, flag, sizeof(flag));
		if (c == OPT_PASS_ARG) {
			/* cclab p2p's own, checked there */
			push(t, argv[optind - (optarg == argv[optind - 1] ? 2 : 1)]);
			if (optarg == argv[optind - 1])
				push(t, optarg);
			continue;
		}
		if (c != 'h' && c <= OPT_DEVICE && seen[c]++)
			return bad(t, "%s: given twice (perftest takes each flag once)", flag);
		if (apply(t, &g, c, flag, optarg))
			return CLI_EXIT_USAGE;
	}
	if (optind < argc - 1)
		return bad(t, "unexpected argument '%s': the server's HOST is the one argument",
			   argv[optind + 1]);
	if (optind == argc - 1) {
		if (!*argv[optind])
			return bad(t, "an empty server HOST");
		t->server = argv[optind];
	}
	if (t->help)
		return 0;
	return finish(t, &g);
}

void pt_usage(const struct pt_opts *t)
{
	printf("Usage: %s [FLAGS] [HOST]\n"
	       "\n"
	       "cclab as perftest's %s (%s %s, docs/p2p.md): HOST given, the client,\n"
	       "connecting to HOST's server; -d DEV alone, the server, waiting for it; with\n"
	       "neither, the test is simulated (cclab p2p's fabric and topology).\n"
	       "\n"
	       "perftest's flags:\n"
	       "  -d, --ib-dev DEV        the RDMA device (the client without it: the first)\n"
	       "  -i, --ib-port N         its port (default: the first active one)\n"
	       "  -x, --gid-index N       the GID index (RoCE)\n"
	       "  -m, --mtu BYTES         path MTU: 256 .. 4096 (simulated: the links')\n"
	       "  -s, --size BYTES        message size (bw: 65536, lat: 2, atomics: 8)\n"
	       "  -a, --all               every size from 2 B to 8 MiB\n"
	       "  -n, --iters N           iterations, %u .. %u (ib_write_bw: %u, else %u)\n"
	       "  -t, --tx-depth N        WQEs in flight (bw: 128, lat: 1)\n"
	       "  -r, --rx-depth N        receives kept posted (512)\n"
	       "  -Q, --cq-mod N          a completion every N WQEs (100)\n"
	       "  -l, --post_list N       N WQEs an ibv_post_send, one doorbell (bw)\n"
	       "  -p, --port PORT         the server's TCP port (default %u)\n"
	       "  -A, --atomic_type T     FETCH_AND_ADD (default) or CMP_AND_SWAP (atomics)\n"
	       "      --write_with_imm    RDMA WRITE WITH IMM (the write tests)\n"
	       "      --report_gbits      BW in Gb/sec (10^9 bit) instead of MB/sec (2^20 B)\n"
	       "      --out_json          perftest's JSON report to %s (or:)\n"
	       "      --out_json_file F   the file --out_json writes\n"
	       "      --use_cuda N        GPU buffers\n"
	       "  -F, --CPU-freq          accepted, no effect (cclab reads no cycle counter)\n"
	       "  -q, --qp 1              one QP pair: more are not modelled\n"
	       "  -b, --bidirectional     bw: both sides send, the figures summed\n"
	       "  -D, -R                  refused: duration, rdma_cm are not modelled or\n"
	       "                          supported\n"
	       "  -h, --help              this text\n"
	       "\n"
	       "cclab p2p's own: --fabric, --topology, --wall-limit (simulated), --device DEV\n"
	       "(both sides on this host, loopback), --json, --csv, --trace, --mem, --timeout,\n"
	       "--bootstrap; cclab help p2p.\n",
	       t->prog, t->prog, cc_p2p_op_name[t->op], cc_p2p_mode_name[t->mode], PT_MIN_ITERS,
	       CC_P2P_MAX_ITERS, PT_DEF_ITERS_WB, PT_DEF_ITERS, PT_DEFAULT_PORT, PT_JSON_FILE);
}
