/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/options.c — the subcommands' shared option parsing (getopt_long).
 *
 * Short options and long names follow nccl-tests (src/common.cu main():
 * -b/--minbytes, -e/--maxbytes, -f/--stepfactor, -d/--datatype, -o/--op),
 * plus cclab's own -n/--nranks, -c/--collective, -t/--transport.  Unlike
 * nccl-tests, which reads numbers with strtol(optarg, NULL, 0) and takes
 * "4x" as 4, every value is checked in full and a bad one stops the program
 * with exit code 2 and a message naming the option and the value.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "backend/gpu_map.h"
#include "cli/cli.h"
#include "core/algo.h"
#include "core/dtype.h"
#include "sim/exec.h"
#include "sim/fabric_yaml.h"
#include "sim/nccl_system.h"
#include "util/units.h"

enum {
	OPT_RANK = 256,
	OPT_PRIMITIVES,
	OPT_CHUNK_BYTES,
	OPT_SLOT_BYTES,
	OPT_SLOTS,
	OPT_CHANNELS,
	OPT_RANKS_PER_NODE,
	OPT_NICS,
	OPT_PCIE_SWITCHES,
	OPT_RING_ORDER,
	OPT_SEED,
	OPT_ORDER_SEED,
	OPT_JSON,
	OPT_FABRIC,
	OPT_TOPOLOGY,
	OPT_TRACE,
	OPT_CHECK,
	OPT_CSV,
	OPT_SET,
	OPT_LINKS,
	OPT_GPU_DMA,
	OPT_GDR_FLUSH,
	OPT_MEMORY,
	OPT_DEVICE,
	OPT_PORT,
	OPT_GID_INDEX,
	OPT_MTU,
	OPT_BOOTSTRAP,
	OPT_ITERS,
	OPT_TIMEOUT,
	OPT_FAULT,
	OPT_RNR_RETRY,
	OPT_DEVICE_MAP,
	OPT_WALL_LIMIT,
	OPT_MODEL,
	OPT_JOBS,
	OPT_NCCL_VERSION,
	OPT_ENV,
	OPT_ALL,
	OPT_RING_ORDERS,
	OPT_OUT,
	OPT_GPUS_PER_THREAD,
	OPT_AGG_ITERS,
	OPT_CUDA_GRAPH,
	OPT_VERBS_RUN,
};

#define FOR_SCHEDULE (1u << CLI_SCHEDULE)
#define FOR_CHECK (1u << CLI_CHECK)
#define FOR_SIM (1u << CLI_SIM)
#define FOR_RUN (1u << CLI_RUN)
/* `cclab run` without a scenario runs the verbs executor: the collective
 * and size loop options apply to it, with its own (FOR_VERBS).  With a
 * scenario they are refused, since the file says them. */
#define FOR_VERBS (1u << CLI_CMD_COUNT)
#define FOR_LOOP (FOR_CHECK | FOR_SIM | FOR_VERBS) /* the commands with nccl-tests' size loop */
#define FOR_ALL (FOR_SCHEDULE | FOR_LOOP)
/* `cclab tune` takes sim's setting (FOR_TUNE) when it has no scenario;
 * with one, as `cclab run`, only what goes on top of the file
 * (FOR_TUNE_SC): its outputs, --set, and its own --channels LIST,
 * --ring-orders, --jobs, --all, --out.  What tune sweeps (-A, -P, -t,
 * --ring-order) is refused with the reason (tune_sweeps()). */
#define FOR_TUNE (1u << CLI_TUNE)
#define FOR_TUNE_SC (1u << (CLI_CMD_COUNT + 1))

/* Every option of every command; a command rejects the others by name
 * ("--rank does not apply to 'cclab check'") instead of calling them
 * unknown.  The first entry of a val gives its display name. */
static const struct {
	struct option opt;
	unsigned cmds;
} table[] = {
	{{"nranks", required_argument, NULL, 'n'}, FOR_ALL | FOR_TUNE},
	{{"collective", required_argument, NULL, 'c'}, FOR_ALL | FOR_TUNE},
	{{"transport", required_argument, NULL, 't'}, FOR_ALL},
	{{"algorithm", required_argument, NULL, 'A'}, FOR_ALL},
	{{"protocol", required_argument, NULL, 'P'}, FOR_ALL},
	{{"root", required_argument, NULL, 'r'}, FOR_ALL | FOR_TUNE},
	{{"minbytes", required_argument, NULL, 'b'}, FOR_ALL | FOR_TUNE},
	{{"bytes", required_argument, NULL, 'b'}, FOR_ALL | FOR_TUNE},
	{{"maxbytes", required_argument, NULL, 'e'}, FOR_LOOP | FOR_TUNE},
	{{"stepfactor", required_argument, NULL, 'f'}, FOR_LOOP | FOR_TUNE},
	{{"datatype", required_argument, NULL, 'd'}, FOR_ALL | FOR_TUNE},
	{{"op", required_argument, NULL, 'o'}, FOR_ALL | FOR_TUNE},
	{{"rank", required_argument, NULL, OPT_RANK}, FOR_SCHEDULE},
	{{"primitives", no_argument, NULL, OPT_PRIMITIVES}, FOR_SCHEDULE},
	{{"chunk-bytes", required_argument, NULL, OPT_CHUNK_BYTES}, FOR_ALL | FOR_TUNE},
	{{"slot-bytes", required_argument, NULL, OPT_SLOT_BYTES}, FOR_ALL | FOR_TUNE},
	{{"slots", required_argument, NULL, OPT_SLOTS}, FOR_ALL | FOR_TUNE},
	{{"channels", required_argument, NULL, OPT_CHANNELS}, FOR_ALL | FOR_TUNE | FOR_TUNE_SC},
	{{"ranks-per-node", required_argument, NULL, OPT_RANKS_PER_NODE}, FOR_ALL | FOR_TUNE},
	{{"ring-order", required_argument, NULL, OPT_RING_ORDER}, FOR_ALL},
	{{"seed", required_argument, NULL, OPT_SEED}, FOR_LOOP | FOR_TUNE},
	/* The simulator's order is its clock's: no interleaving to draw. */
	{{"order-seed", required_argument, NULL, OPT_ORDER_SEED}, FOR_CHECK},
	{{"json", required_argument, NULL, OPT_JSON}, FOR_LOOP | FOR_RUN | FOR_TUNE | FOR_TUNE_SC},
	{{"csv", required_argument, NULL, OPT_CSV}, FOR_LOOP | FOR_RUN | FOR_TUNE | FOR_TUNE_SC},
	{{"set", required_argument, NULL, OPT_SET}, FOR_RUN | FOR_TUNE_SC},
	{{"links", required_argument, NULL, OPT_LINKS}, FOR_SIM | FOR_RUN},
	{{"fabric", required_argument, NULL, OPT_FABRIC}, FOR_SIM | FOR_TUNE},
	{{"topology", required_argument, NULL, OPT_TOPOLOGY}, FOR_SIM | FOR_TUNE},
	{{"nics", required_argument, NULL, OPT_NICS}, FOR_SIM | FOR_TUNE},
	{{"pcie-switches", required_argument, NULL, OPT_PCIE_SWITCHES}, FOR_SIM | FOR_TUNE},
	{{"trace", required_argument, NULL, OPT_TRACE}, FOR_SIM | FOR_RUN},
	/* nccl-tests' -c/--check; -c is --collective here. */
	{{"check", required_argument, NULL, OPT_CHECK}, FOR_SIM | FOR_VERBS},
	{{"gpu-dma", required_argument, NULL, OPT_GPU_DMA}, FOR_ALL | FOR_TUNE},
	/* the simulator decides it from the fabric's GPU and NCCL's variables */
	{{"gdr-flush", no_argument, NULL, OPT_GDR_FLUSH}, FOR_SCHEDULE | FOR_CHECK},
	{{"memory", required_argument, NULL, OPT_MEMORY}, FOR_ALL | FOR_TUNE},
	/* The verbs executor's own (backend/verbs_exec.h, backend/launch.h),
	 * for a scenario that lists it too. */
	{{"device", required_argument, NULL, OPT_DEVICE}, FOR_VERBS | FOR_RUN},
	{{"port", required_argument, NULL, OPT_PORT}, FOR_VERBS | FOR_RUN},
	{{"gid-index", required_argument, NULL, OPT_GID_INDEX}, FOR_VERBS | FOR_RUN},
	{{"mtu", required_argument, NULL, OPT_MTU}, FOR_VERBS | FOR_RUN},
	{{"bootstrap", required_argument, NULL, OPT_BOOTSTRAP}, FOR_VERBS | FOR_RUN},
	{{"warmup", required_argument, NULL, 'w'}, FOR_VERBS | FOR_RUN},
	{{"iters", required_argument, NULL, OPT_ITERS}, FOR_VERBS | FOR_RUN},
	{{"timeout", required_argument, NULL, OPT_TIMEOUT}, FOR_VERBS | FOR_RUN},
	/* Key and receive faults for every executor that takes them; the
	 * simulator's own (sim/fault.h) for the simulator only. */
	{{"fault", required_argument, NULL, OPT_FAULT}, FOR_SIM | FOR_VERBS | FOR_RUN},
	{{"wall-limit", required_argument, NULL, OPT_WALL_LIMIT}, FOR_SIM | FOR_RUN},
	{{"model", required_argument, NULL, OPT_MODEL}, FOR_SIM | FOR_RUN | FOR_TUNE | FOR_TUNE_SC},
	{{"jobs", required_argument, NULL, 'j'}, FOR_SIM | FOR_RUN | FOR_TUNE | FOR_TUNE_SC},
	{{"rnr-retry", required_argument, NULL, OPT_RNR_RETRY}, FOR_VERBS | FOR_RUN},
	{{"device-map", required_argument, NULL, OPT_DEVICE_MAP}, FOR_VERBS | FOR_RUN},
	/* NCCL's choices (`auto`): the release whose rules, the variables */
	{{"nccl-version", required_argument, NULL, OPT_NCCL_VERSION}, FOR_SIM | FOR_TUNE},
	{{"env", required_argument, NULL, OPT_ENV}, FOR_SIM | FOR_TUNE},
	/* how a benchmark's thread launches each collective (sim/launch.h) */
	{{"gpus-per-thread", required_argument, NULL, OPT_GPUS_PER_THREAD}, FOR_SIM},
	{{"agg-iters", required_argument, NULL, OPT_AGG_ITERS}, FOR_SIM},
	{{"cuda-graph", no_argument, NULL, OPT_CUDA_GRAPH}, FOR_SIM},
	{{"verbs-run", no_argument, NULL, OPT_VERBS_RUN}, FOR_SIM},
	{{"help", no_argument, NULL, 'h'}, FOR_ALL | FOR_RUN | FOR_TUNE | FOR_TUNE_SC},
	/* tune's own: its table's columns, the ring orders it tries, a
	 * launcher's folder (cli/tune_args.c) */
	{{"all", no_argument, NULL, OPT_ALL}, FOR_TUNE | FOR_TUNE_SC},
	{{"ring-orders", required_argument, NULL, OPT_RING_ORDERS}, FOR_TUNE | FOR_TUNE_SC},
	{{"out", required_argument, NULL, OPT_OUT}, FOR_TUNE | FOR_TUNE_SC},
};
#define NOPTS (sizeof(table) / sizeof(table[0]))

/* ':' first: a missing argument returns ':' rather than '?'. */
static const char short_opts[] = ":n:c:t:A:P:r:b:e:f:d:o:w:j:h";

const char *cli_opts_cmd(const struct cli_opts *o)
{
	return o->scenario ? "run" : cli_cmd_name(o->cmd);
}

const char *cli_redop_label(const struct cc_coll_params *p)
{
	/* all_gather.cu, broadcast.cu and alltoall.cu pass opName "none" to
	 * TimeTest(). */
	if (p->coll == CC_ALLGATHER || p->coll == CC_BROADCAST || p->coll == CC_ALLTOALL)
		return "none";
	return p->redop < CC_REDOP_COUNT ? cc_redop_name[p->redop] : "?";
}

const char *cli_algo_label(const struct cli_opts *o)
{
	return o->nccl && o->nccl->algo ? "auto" : cc_algo_name[o->p.algo];
}

const char *cli_proto_label(const struct cli_opts *o)
{
	return o->nccl && o->nccl->proto ? "auto" : cc_proto_name[o->p.proto];
}

bool cli_chunk_auto(const struct cli_opts *o)
{
	return o->nccl && (o->nccl->algo || o->nccl->proto) && !o->chunk_given;
}

bool cli_slot_auto(const struct cli_opts *o)
{
	return o->nccl && o->nccl->proto && !o->slot_given;
}

/* "-n/--nranks" or "--rank". */
static const char *opt_label(int val, char *buf, size_t len)
{
	for (size_t i = 0; i < NOPTS; i++) {
		if (table[i].opt.val != val)
			continue;
		if (val < 256)
			snprintf(buf, len, "-%c/--%s", val, table[i].opt.name);
		else
			snprintf(buf, len, "--%s", table[i].opt.name);
		return buf;
	}
	snprintf(buf, len, "-%c", val);
	return buf;
}

static unsigned opt_cmds(int val)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (table[i].opt.val == val)
			return table[i].cmds;
	return 0;
}

/* The number of names before the NULL that ends a table. */
static int names_count(const char *const *names)
{
	int n = 0;

	while (names[n])
		n++;
	return n;
}

/* "a, b or c" from a name table. */
static const char *names_list(char *buf, size_t len, const char *const *names, int n)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && off < len; i++) {
		const char *sep = i == 0 ? "" : i == n - 1 ? " or " : ", ";
		int w = snprintf(buf + off, len - off, "%s%s", sep, names[i] ? names[i] : "?");

		if (w < 0)
			break;
		off += (size_t)w;
	}
	return buf;
}

/* A whole decimal number (or 0x-prefixed hex), nothing before or after. */
static int parse_u64(const char *s, uint64_t *out)
{
	int base = 10;
	char *end;
	unsigned long long v;

	if (!s || !(s[0] >= '0' && s[0] <= '9'))
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		if (!((s[0] >= '0' && s[0] <= '9') || (s[0] >= 'a' && s[0] <= 'f') ||
		      (s[0] >= 'A' && s[0] <= 'F')))
			return -EINVAL;
	}
	errno = 0;
	v = strtoull(s, &end, base);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*out = v;
	return 0;
}

struct parse_ctx {
	enum cli_cmd cmd;
	const char *opt; /* the option as the user wrote it: "-n", "--nranks" */
};

static int bad_value(const struct parse_ctx *c, const char *value, const char *why)
{
	char shown[CC_SHOWN_BUF];

	fprintf(stderr, "cclab %s: invalid value '%s' for %s: %s\n", cli_cmd_name(c->cmd),
		cc_shown(shown, value), c->opt, why);
	cli_usage_hint(c->cmd);
	return CLI_EXIT_USAGE;
}

static int get_uint(const struct parse_ctx *c, const char *s, uint64_t min, uint64_t max,
		    uint64_t *out)
{
	char why[128];
	uint64_t v;
	int err = parse_u64(s, &v);
	char *end;
	double d = err == -EINVAL ? strtod(s, &end) : 0;

	/* Too large is said as such: "1e21" or 2^64 is not a bad spelling. */
	if (err == -ERANGE || (err && s[0] && !*end && d > (double)max) || (!err && v > max)) {
		snprintf(why, sizeof(why), "too large: at most %" PRIu64, max);
		return bad_value(c, s, why);
	}
	if (err || v < min) {
		if (max == UINT64_MAX)
			snprintf(why, sizeof(why), "expected a whole number >= %" PRIu64, min);
		else
			snprintf(why, sizeof(why), "expected a whole number from %" PRIu64
				 " to %" PRIu64, min, max);
		return bad_value(c, s, why);
	}
	*out = v;
	return 0;
}

static int get_size(const struct parse_ctx *c, const char *s, uint64_t min, uint64_t *out)
{
	uint64_t v;
	int err = cc_parse_size(s, &v);

	if (err == -ERANGE)
		return bad_value(c, s, "too large (more than 2^64-1 bytes)");
	if (err && cc_units_only_fraction_wrong(cc_parse_size, s))
		return bad_value(c, s, "not a whole number of bytes; expected a size in bytes, "
				 "optionally with a K, M, G suffix (powers of 1024), such as "
				 "4096, 64K or 1.5M");
	if (err)
		return bad_value(c, s, "expected a size in bytes, optionally with a K, M, G "
				 "suffix (powers of 1024), such as 4096, 64K or 1M");
	if (v < min) {
		char why[64];

		snprintf(why, sizeof(why), "must be at least %" PRIu64 " bytes", min);
		return bad_value(c, s, why);
	}
	*out = v;
	return 0;
}

static void defaults(enum cli_cmd cmd, struct cli_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->cmd = cmd;
	cc_coll_params_default(&o->p);
	o->p.coll = CC_ALLREDUCE;
	o->p.transport = CC_WRITE_IMM;
	o->p.dtype = CC_FLOAT32; /* nccl-tests: nccltype = ncclFloat */
	o->p.redop = CC_SUM;     /* ncclop = ncclSum */
	o->p.nranks = 0;         /* required */
	o->minbytes = CLI_DEFAULT_BYTES;
	o->stepfactor = CLI_DEFAULT_FACTOR;
	o->rank = -1;
	o->report_fd = -1;
	o->seed = CLI_DEFAULT_SEED;
	o->order_seed = CLI_DEFAULT_SEED;
	sim_params_preset(CLI_DEFAULT_FABRIC, &o->fabric); /* a built-in name: cannot fail */
	o->topo = SIM_TOPO_RING;
	o->check = true; /* nccl-tests' -c 1 */
	o->gid_index = -1;
	o->warmup = CLI_DEFAULT_WARMUP;
	o->iters = CLI_DEFAULT_ITERS;
	o->timeout_s = CLI_DEFAULT_TIMEOUT_S;
	o->rnr_retry = -1;
	o->wall_limit_ms = (uint64_t)CLI_DEFAULT_WALL_LIMIT_S * 1000u;
	o->jobs = cli_default_jobs();
	o->launch = CC_SIM_LAUNCH_DEFAULT;
	cc_nccl_auto_init(&o->nccl_own);
}

uint32_t cli_default_jobs(void)
{
	/* CCLAB_JOBS when it is a count (tests/run.sh sets 1: it runs the
	 * test programs in parallel itself); else the processors this
	 * process may run on (taskset, a cgroup's cpuset, Slurm's -c), not
	 * the machine's. */
	const char *env = getenv("CCLAB_JOBS");
	char *end;
	long n = env && *env ? strtol(env, &end, 10) : 0;
	cpu_set_t set;

	if (n >= 1 && n <= (long)CLI_MAX_JOBS && !*end)
		return (uint32_t)n;
	n = sched_getaffinity(0, sizeof(set), &set) ? sysconf(_SC_NPROCESSORS_ONLN)
						     : CPU_COUNT(&set);

	return n < 1 ? 1 : n > CLI_MAX_JOBS ? CLI_MAX_JOBS : (uint32_t)n;
}

/* --fault: the simulator's kinds (sim/fault.h), else KIND:RANK:OP as
 * core/exec.h's struct cc_fault. */
static int apply_fault(const struct parse_ctx *c, const char *arg, struct cli_opts *o)
{
	char why[CC_SIM_FAULT_TEXT_LEN + 64];
	struct cc_fault f;
	int rc;

	for (int i = 0; i < CC_SIM_FAULT_KIND_COUNT; i++) {
		size_t n = strlen(cc_sim_fault_kind_name[i]);

		if (strncmp(arg, cc_sim_fault_kind_name[i], n) || arg[n] != ':')
			continue;
		if (o->nsim_faults + o->nfaults == CLI_MAX_FAULTS)
			return bad_value(c, arg, "too many --fault options");
		if (cc_sim_fault_parse(arg, &o->sim_faults[o->nsim_faults], why, sizeof(why)))
			return bad_value(c, arg, why);
		o->nsim_faults++;
		return 0;
	}
	rc = cc_fault_parse(arg, &f, why, sizeof(why));
	if (rc == -EINVAL)
		return bad_value(c, arg, why);
	if (rc)
		return bad_value(c, arg, c->cmd == CLI_SIM
			? "expected link-down:NODE->NODE@T1[-T2], link-down:rank=R[,port=P]@T1[-T2], "
			  "no-ack:rank=R[@T], slow-gpu:rank=RxF (docs/simulator.md, \"Fault "
			  "injection\"), or rkey|lkey|norecv:RANK:OP"
			: "expected rkey:RANK:OP, lkey:RANK:OP or norecv:RANK:OP (OP: the index of a "
			  "post op in 'cclab schedule --rank RANK'), or for a scenario's simulator "
			  "link-down:..., no-ack:... or slow-gpu:...");
	if (o->nsim_faults + o->nfaults == CLI_MAX_FAULTS)
		return bad_value(c, arg, "too many --fault options");
	o->faults[o->nfaults++] = f;
	return 0;
}

/* One option's value into o; 0 or CLI_EXIT_USAGE. */
static int apply(const struct parse_ctx *c, int val, const char *arg, struct cli_opts *o,
		 bool *have_e)
{
	char names[160];
	uint64_t v;
	int err = 0;

	switch (val) {
	case 'n':
		err = get_uint(c, arg, 1, CLI_MAX_RANKS, &v);
		if (!err)
			o->p.nranks = (uint32_t)v;
		return err;
	case 'c':
		if (cc_coll_parse(arg, &o->p.coll))
			return bad_value(c, arg, names_list(names, sizeof(names), cc_coll_name,
							    CC_COLL_COUNT));
		return 0;
	case 'r':
		err = get_uint(c, arg, 0, CLI_MAX_RANKS - 1, &v);
		if (!err)
			o->p.root = (uint32_t)v;
		return err;
	case 'A':
		o->algo_given = true;
		if ((o->nccl_own.algo = cli_is_auto(arg)))
			return 0;
		if (cc_algo_parse(arg, &o->p.algo))
			return bad_value(c, arg, names_list(names, sizeof(names), cc_algo_name,
							    CC_ALGO_COUNT));
		return 0;
	case 'P':
		o->proto_given = true;
		if ((o->nccl_own.proto = cli_is_auto(arg)))
			return 0;
		if (cc_proto_parse(arg, &o->p.proto))
			return bad_value(c, arg, names_list(names, sizeof(names), cc_proto_name,
							    CC_PROTO_COUNT));
		return 0;
	case 't':
		if (cc_transport_parse(arg, &o->p.transport))
			return bad_value(c, arg, names_list(names, sizeof(names),
							    cc_transport_name, CC_TRANSPORT_COUNT));
		return 0;
	case 'd':
		if (cc_dtype_parse(arg, &o->p.dtype))
			return bad_value(c, arg, names_list(names, sizeof(names), cc_dtype_name,
							    CC_DTYPE_COUNT));
		return 0;
	case 'o':
		if (cc_redop_parse(arg, &o->p.redop))
			return bad_value(c, arg, names_list(names, sizeof(names), cc_redop_name,
							    CC_REDOP_COUNT));
		return 0;
	case 'b':
		return get_size(c, arg, 0, &o->minbytes);
	case 'e':
		*have_e = true;
		return get_size(c, arg, 0, &o->maxbytes);
	case 'f':
		/* nccl-tests steps by -i bytes when the factor is 1; cclab
		 * has no -i, so the factor must grow the size. */
		return get_uint(c, arg, 2, UINT64_MAX, &o->stepfactor);
	case OPT_RANK:
		err = get_uint(c, arg, 0, CLI_MAX_RANKS - 1, &v);
		if (!err)
			o->rank = (int64_t)v;
		return err;
	case OPT_PRIMITIVES:
		o->primitives = true;
		return 0;
	case OPT_GDR_FLUSH:
		o->p.gdr_flush = true;
		return 0;
	case OPT_CHUNK_BYTES:
		o->chunk_given = true;
		return get_size(c, arg, 1, &o->p.chunk_bytes);
	case OPT_SLOT_BYTES:
		o->slot_given = true;
		return get_size(c, arg, 1, &o->p.slot_bytes);
	case OPT_SLOTS:
		err = get_uint(c, arg, 1, CLI_MAX_SLOTS, &v);
		if (!err)
			o->p.nslots = (uint32_t)v;
		return err;
	case OPT_CHANNELS:
		if (c->cmd == CLI_TUNE) { /* a list: cli/tune_args.c reads it */
			o->tune_channels = arg;
			return 0;
		}
		o->channels_given = true;
		if ((o->nccl_own.channels = cli_is_auto(arg)))
			return 0;
		err = get_uint(c, arg, 1, 64, &v);
		if (!err)
			o->p.nchannels = (uint32_t)v;
		return err;
	case OPT_NCCL_VERSION:
	case OPT_ENV: {
		char why[256] = "";

		if (val == OPT_NCCL_VERSION
			    ? cc_nccl_version_parse(arg, &o->nccl_own.version, why, sizeof(why))
			    : cli_nccl_env_option(o, arg, why, sizeof(why)))
			return bad_value(c, arg, why);
		return 0;
	}
	case OPT_RING_ORDER:
		if (cc_ring_order_parse(arg, &o->p.ring_order))
			return bad_value(c, arg, names_list(names, sizeof(names), cc_ring_order_name,
							    CC_RING_ORDER_COUNT));
		o->ring_order_given = true;
		return 0;
	case OPT_RANKS_PER_NODE:
		err = get_uint(c, arg, 1, CLI_MAX_RANKS, &v);
		if (!err)
			o->p.ranks_per_node = (uint32_t)v;
		return err;
	case OPT_NICS:
		err = get_uint(c, arg, 1, SIM_NET_MAX_NICS, &v);
		if (!err)
			o->hosts.nics = (uint32_t)v;
		return err;
	case OPT_PCIE_SWITCHES:
		err = get_uint(c, arg, 1, 64, &v);
		if (!err)
			o->hosts.pcie_switches = (uint32_t)v;
		return err;
	case OPT_SEED:
		return get_uint(c, arg, 0, UINT64_MAX, &o->seed);
	case OPT_ORDER_SEED:
		return get_uint(c, arg, 0, UINT64_MAX, &o->order_seed);
	case OPT_JSON:
	case OPT_TRACE:
	case OPT_CSV:
	case OPT_LINKS:
		if (!*arg)
			return bad_value(c, arg, "expected a file name");
		if (val == OPT_JSON)
			o->json = arg;
		else if (val == OPT_CSV)
			o->csv = arg;
		else if (val == OPT_LINKS)
			o->links = arg;
		else
			o->trace = arg;
		return 0;
	case OPT_SET:
		if (!strchr(arg, '='))
			return bad_value(c, arg, "expected KEY=VALUE, such as sizes.max=1GiB");
		if (o->nsets == CLI_MAX_SETS)
			return bad_value(c, arg, "too many --set options");
		o->sets[o->nsets++] = arg;
		return 0;
	case OPT_FABRIC:
		return cli_opt_fabric(c->cmd, c->opt, arg, &o->fabric);
	case OPT_TOPOLOGY:
		o->topo_given = true;
		return cli_opt_topology(c->cmd, c->opt, arg, &o->topo);
	case OPT_CHECK:
		err = get_uint(c, arg, 0, 1, &v);
		if (!err)
			o->check = v != 0;
		return err;
	case OPT_GPU_DMA:
		/* auto: the fabric's (sim), NCCL's choice (run, cli/verbs_gpu.c);
		 * gdr: run's word for gpudirect-rdma */
		o->gpu_dma_given = strcmp(arg, "auto") != 0;
		if (!strcmp(arg, "auto") || !strcmp(arg, "gdr")) {
			o->gpu_dma = SIM_GPU_DMA_GPUDIRECT;
			return 0;
		}
		for (int i = 0; i < SIM_GPU_DMA_COUNT; i++)
			if (!strcmp(arg, sim_gpu_dma_name[i])) {
				o->gpu_dma = (enum sim_gpu_dma)i;
				o->gpu_dma_given = true;
				return 0;
			}
		return bad_value(c, arg, "auto, gdr (or gpudirect-rdma) or host-staging");
	case OPT_MEMORY:
		for (int i = 0; i < CC_MEM_KIND_COUNT; i++)
			if (!strcmp(arg, cc_mem_kind_name[i])) {
				o->p.mem = (enum cc_mem_kind)i;
				o->memory_given = true;
				return 0;
			}
		return bad_value(c, arg, names_list(names, sizeof(names), cc_mem_kind_name,
						    CC_MEM_KIND_COUNT));
	case OPT_DEVICE:
		if (!*arg || strlen(arg) >= CLI_DEVICE_NAME_MAX)
			return bad_value(c, arg, "expected an RDMA device name, such as mlx5_0 or "
				       "rxe0 (cclab devices lists them)");
		o->device = arg;
		return 0;
	case OPT_PORT:
		err = get_uint(c, arg, 1, 255, &v);
		if (!err)
			o->port = (uint8_t)v;
		return err;
	case OPT_GID_INDEX:
		err = get_uint(c, arg, 0, 255, &v);
		if (!err)
			o->gid_index = (int)v;
		return err;
	case OPT_MTU:
		err = get_uint(c, arg, 256, 4096, &v);
		if (!err && (v & (v - 1)))
			return bad_value(c, arg, "an IB MTU is 256, 512, 1024, 2048 or 4096 bytes");
		if (!err)
			o->mtu = (uint32_t)v;
		return err;
	case OPT_BOOTSTRAP:
		if (!*arg)
			return bad_value(c, arg, "expected HOST:PORT, rank 0's address");
		o->bootstrap = arg;
		return 0;
	case 'w':
		err = get_uint(c, arg, 0, CLI_MAX_ITERS, &v);
		if (!err)
			o->warmup = (uint32_t)v;
		return err;
	case OPT_ITERS:
		err = get_uint(c, arg, 1, CLI_MAX_ITERS, &v);
		if (!err)
			o->iters = (uint32_t)v;
		return err;
	case OPT_TIMEOUT:
		err = get_uint(c, arg, 1, 3600, &v);
		if (!err)
			o->timeout_s = (uint32_t)v;
		return err;
	case OPT_FAULT:
		return apply_fault(c, arg, o);
	case OPT_MODEL:
		if (cc_sim_model_parse(arg, &o->model))
			return bad_value(c, arg, "expected packet (every packet, the default) or "
					 "flow (each message a flow, links shared max-min fairly)");
		o->model_given = true;
		return 0;
	case OPT_GPUS_PER_THREAD:
		err = get_uint(c, arg, 1, CC_SIM_LAUNCH_MAX_GPUS, &v);
		if (!err)
			o->launch.gpus_per_thread = (uint32_t)v;
		return err;
	case OPT_AGG_ITERS:
		err = get_uint(c, arg, 1, CC_SIM_LAUNCH_MAX_AGG, &v);
		if (!err)
			o->launch.agg_iters = (uint32_t)v;
		return err;
	case OPT_CUDA_GRAPH:
		o->launch.cuda_graph = true;
		return 0;
	case OPT_VERBS_RUN:
		o->predicts_verbs = true;
		return 0;
	case OPT_WALL_LIMIT:
		o->wall_limit_given = true;
		return cli_opt_wall_limit(c->cmd, c->opt, arg, &o->wall_limit_ms);
	case 'j':
		if (c->cmd == CLI_TUNE) { /* candidates at once, to TUNE_MAX_JOBS */
			o->tune_jobs = arg;
			return 0;
		}
		err = get_uint(c, arg, 1, CLI_MAX_JOBS, &v);
		if (!err) {
			o->jobs = (uint32_t)v;
			o->jobs_given = true;
		}
		return err;
	case OPT_DEVICE_MAP: {
		struct cc_gpu_map m;
		char mwhy[160];
		if (cc_gpu_map_parse(arg, &m, mwhy, sizeof(mwhy)))
			return bad_value(c, arg, mwhy);
		o->device_map = arg;
		return 0;
	}
	case OPT_RNR_RETRY:
		err = get_uint(c, arg, 0, 7, &v);
		if (!err)
			o->rnr_retry = (int)v;
		return err;
	case 'h':
		o->help = true;
		return 0;
	case OPT_ALL:
		o->tune_all = true;
		return 0;
	case OPT_RING_ORDERS:
		o->tune_orders = arg;
		return 0;
	case OPT_OUT:
		if (!*arg)
			return bad_value(c, arg, "expected a folder every task sees");
		o->tune_out = arg;
		return 0;
	}
	return bad_value(c, arg ? arg : "", "internal error: unhandled option");
}

/* ---- for commands with their own parser (cli/cli.h) ---- */

int cli_opt_bad_value(enum cli_cmd cmd, const char *opt, const char *value, const char *why)
{
	struct parse_ctx c = {.cmd = cmd, .opt = opt};

	return bad_value(&c, value, why);
}

int cli_opt_wall_limit(enum cli_cmd cmd, const char *opt, const char *arg, uint64_t *ms)
{
	struct parse_ctx c = {.cmd = cmd, .opt = opt};
	char why[192];
	uint64_t v, ps;

	/* Whole seconds, or a time with its unit ("500ms"); picoseconds in 64
	 * bits hold up to 18446744 s. */
	if (!parse_u64(arg, &v) && v >= 1 && v <= UINT64_MAX / SIM_PS_PER_S)
		ps = v * SIM_PS_PER_S;
	else if (cc_parse_time(arg, &ps) || ps < SIM_PS_PER_MS) {
		snprintf(why, sizeof(why), "expected the wall-clock seconds a simulation may take, "
			 "1 to %" PRIu64 ", such as 600, or a time with its unit of at least 1ms, "
			 "such as 500ms", UINT64_MAX / SIM_PS_PER_S);
		return bad_value(&c, arg, why);
	}
	*ms = ps / SIM_PS_PER_MS;
	return 0;
}

int cli_opt_uint(enum cli_cmd cmd, const char *opt, const char *arg, uint64_t min, uint64_t max,
		 uint64_t *out)
{
	struct parse_ctx c = {.cmd = cmd, .opt = opt};

	return get_uint(&c, arg, min, max, out);
}

int cli_opt_size(enum cli_cmd cmd, const char *opt, const char *arg, uint64_t min, uint64_t *out)
{
	struct parse_ctx c = {.cmd = cmd, .opt = opt};

	return get_size(&c, arg, min, out);
}

int cli_opt_fabric(enum cli_cmd cmd, const char *opt, const char *arg, struct sim_params *out)
{
	const char *const *presets = sim_params_preset_names();
	char names[160];

	if (sim_fabric_is_file(arg)) {
		struct cy_error err;

		if (!sim_fabric_load(out, arg, &err))
			return 0;
		fprintf(stderr, "cclab %s: %s: %s\n", cli_cmd_name(cmd), opt, err.msg);
		return CLI_EXIT_USAGE;
	}
	if (sim_params_preset(arg, out))
		return cli_opt_bad_value(cmd, opt, arg, names_list(names, sizeof(names), presets,
								   names_count(presets)));
	return 0;
}

int cli_opt_topology(enum cli_cmd cmd, const char *opt, const char *arg,
		     enum sim_topo_kind *out)
{
	char names[160];

	if (sim_topo_kind_parse(arg, out))
		return cli_opt_bad_value(cmd, opt, arg, names_list(names, sizeof(names),
								   sim_topo_kind_name,
								   SIM_TOPO_KIND_COUNT));
	/* two ranks, one of each: no nodes to make rails of */
	if (cmd == CLI_P2P && *out == SIM_TOPO_RAILOPT)
		return cli_usage_error(cmd, "%s railopt: the two ranks of cclab p2p are no nodes "
				       "of a rail-optimised network (star, ring or node)", opt);
	return 0;
}

#define usage_error cli_usage_error

int cli_usage_error(enum cli_cmd cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "cclab %s: ", cli_cmd_name(cmd));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	cli_usage_hint(cmd);
	return CLI_EXIT_USAGE;
}

int cli_prog_usage_verror(const char *prog, const char *help, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\nTry '%s %s'.\n", prog, help);
	return CLI_EXIT_USAGE;
}

/* Checks that need every option: required ones, and relations. */
/* Two atomic writers on one path: the later rename would silently
 * replace the earlier file. */
static int same_outputs(enum cli_cmd cmd, const struct cli_opts *o)
{
	const char *const out[] = {o->json, o->csv, o->trace, o->links};
	static const char *const name[] = {"--json", "--csv", "--trace", "--links"};

	for (int i = 0; i < 4; i++)
		for (int j = i + 1; j < 4; j++)
			if (out[i] && out[j] && cc_output_same(out[i], out[j]))
				return usage_error(cmd, "%s and %s name the same file '%s'", name[i],
						   name[j], out[i]);
	return 0;
}

const char *cli_param_option(enum cc_param f)
{
	static const char *const option[CC_PARAM_FIELDS] = {
		[CC_PARAM_KIND] = "-c/-A/-P/-d/-o", [CC_PARAM_ALGO] = "-A/--algorithm",
		[CC_PARAM_CHANNELS] = "--channels", [CC_PARAM_NRANKS] = "-n/--nranks",
		[CC_PARAM_ROOT] = "-r/--root", [CC_PARAM_RANKS_PER_NODE] = "--ranks-per-node",
		[CC_PARAM_RING_ORDER] = "--ring-order", [CC_PARAM_SLOTS] = "--slots",
		[CC_PARAM_SLOT_BYTES] = "--slot-bytes", [CC_PARAM_CHUNK_BYTES] = "--chunk-bytes",
		[CC_PARAM_COUNT] = "-b/-e",
	};

	return f < CC_PARAM_FIELDS ? option[f] : "?";
}

void cli_opts_predict_verbs(struct cli_opts *o)
{
	o->predicts_verbs = true;
	o->fabric.soft.net_step_ps = 0;
}

static int check_all(enum cli_cmd cmd, struct cli_opts *o, bool have_e)
{
	if (!o->p.nranks && !o->verbs)
		return usage_error(cmd, "missing -n/--nranks (the number of ranks, 1 to %u)",
				   CLI_MAX_RANKS);
	if (!have_e)
		o->maxbytes = o->minbytes;
	if (o->minbytes > o->maxbytes)
		return usage_error(cmd, "-b/--minbytes %" PRIu64 " is larger than -e/--maxbytes %"
				   PRIu64, o->minbytes, o->maxbytes);
	if (same_outputs(cmd, o))
		return CLI_EXIT_USAGE;
	/* after --fabric, wherever it came */
	if (o->predicts_verbs)
		cli_opts_predict_verbs(o);
	/* the ranks are threads' GPUs, as nccl-tests counts them */
	if (o->p.nranks % o->launch.gpus_per_thread)
		return usage_error(cmd, "--gpus-per-thread %" PRIu32 ": -n %" PRIu32 " ranks are "
				   "not a whole number of threads of that many GPUs",
				   o->launch.gpus_per_thread, o->p.nranks);
	/* the rank now; the op with each size's schedule (cli_build) */
	for (uint32_t i = 0; o->p.nranks && i < o->nfaults; i++)
		if (o->faults[i].rank >= o->p.nranks)
			return usage_error(cmd, "--fault %s:%" PRIu32 ":%" PRIu32 ": rank %" PRIu32
					   " does not exist (-n %" PRIu32 ")",
					   cc_fault_kind_label[o->faults[i].kind], o->faults[i].rank,
					   o->faults[i].op, o->faults[i].rank, o->p.nranks);
	if (!o->algo_given)
		o->p.algo = cc_algo_default(o->p.coll);
	/* nvls has one shape, one node of every rank: without
	 * --ranks-per-node, that one. */
	if (o->p.algo == CC_ALGO_NVLS && !o->p.ranks_per_node)
		o->p.ranks_per_node = o->p.nranks;
	/* -A auto alone: NCCL chooses the protocol and channels too */
	if (o->nccl_own.algo) {
		o->nccl_own.proto = o->nccl_own.proto || !o->proto_given;
		o->nccl_own.channels = o->nccl_own.channels || !o->channels_given;
	}
	char why_auto[256];

	/* An option's own fault names the option; the rest is auto's */
	if (cli_nccl_finish(cmd, o, why_auto, sizeof(why_auto)))
		return why_auto[0] == '-' ? usage_error(cmd, "%s", why_auto)
					  : usage_error(cmd, "auto: %s", why_auto);
	/* The algorithm core's rules, in its words, at the option to change.
	 * Without -n (the verbs executor under a launcher) the ranks come
	 * later and the rules that need them are checked with them. */
	char why[256];
	enum cc_param f = CC_PARAM_KIND;

	if (cc_params_check(&o->p, &f, why, sizeof(why)) && (o->p.nranks || f != CC_PARAM_NRANKS))
		return usage_error(cmd, "%s: %s", cli_param_option(f), why);
	if (o->rank >= 0 && (uint64_t)o->rank >= o->p.nranks)
		return usage_error(cmd, "invalid value '%" PRId64 "' for --rank: ranks are 0 to %"
				   PRIu32 " with -n %" PRIu32, o->rank, o->p.nranks - 1, o->p.nranks);
	return 0;
}

int cli_opt_once(enum cli_cmd cmd, struct cli_once *s, int c, const char *label,
		 const char *value)
{
	if (c < 0 || c >= CLI_OPT_CODES)
		return 0;
	if (!s->given[c]) {
		s->given[c] = true;
		snprintf(s->label[c], sizeof(s->label[c]), "%s", label);
		s->value[c] = value;
		return 0;
	}
	return cli_opt_twice(cmd, s->label[c], s->value[c], label, value);
}

int cli_opt_twice(enum cli_cmd cmd, const char *first, const char *first_value,
		  const char *label, const char *value)
{
	if (!value)
		return cli_usage_error(cmd, "%s given twice: give it once", label);
	return cli_usage_error(cmd, "%s given twice (%s %s, then %s %s): give it once", first,
			       first, first_value ? first_value : "", label, value);
}

/* Why `cclab tune` refuses an option of sim's: what it tries every value of
 * (its table's columns), or does without; NULL for one that merely does
 * not apply. */
static const char *tune_sweeps(int c)
{
	switch (c) {
	case 'A':
		return "tune runs every algorithm of the collective";
	case 'P':
		return "tune runs every protocol";
	case 't':
		return "tune runs every transport";
	case OPT_RING_ORDER:
		return "tune tries each ring order of --ring-orders (default: rank, and rail too "
		       "on a topology of nodes)";
	case OPT_CHECK:
		return "tune times every run without carrying data";
	}
	return NULL;
}

/* What may be said more than once: each --set and --fault adds one. */
static bool repeatable(int c)
{
	return c == OPT_SET || c == OPT_FAULT || c == OPT_ENV || c == 'h';
}

int cli_parse(enum cli_cmd cmd, int argc, char **argv, struct cli_opts *o)
{
	static struct cli_once once;
	struct option longopts[NOPTS + 1];
	int verbs_opt = 0; /* the first option only the verbs executor takes */
	int setting_opt = 0; /* tune: the first of sim's setting, which a scenario says */
	bool have_e = false;
	char label[48];

	defaults(cmd, o);
	memset(&once, 0, sizeof(once));
	for (size_t i = 0; i < NOPTS; i++)
		longopts[i] = table[i].opt;
	memset(&longopts[NOPTS], 0, sizeof(longopts[NOPTS]));

	opterr = 0; /* our messages, not getopt's */
	optind = 0; /* glibc: full reinitialization, so a second parse works */
	for (;;) {
		int longindex = -1;
		int c = getopt_long(argc, argv, short_opts, longopts, &longindex);
		struct parse_ctx ctx = {.cmd = cmd};

		if (c == -1)
			break;
		if (c == '?') {
			const char *word = argv[optind - 1];

			/* A long option is reported as written; for a short one
			 * getopt gives the letter in optopt. */
			if (!strncmp(word, "--", 2)) {
				if (optopt && strchr(word, '='))
					return usage_error(cmd, "option '%s' takes no value", word);
				return usage_error(cmd, "unknown or ambiguous option '%s'", word);
			}
			return usage_error(cmd, "unknown option '-%c'", optopt);
		}
		if (c == ':')
			return usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
		if (longindex >= 0) {
			snprintf(label, sizeof(label), "--%s", longopts[longindex].name);
		} else {
			snprintf(label, sizeof(label), "-%c", c);
		}
		/* cclab run's verbs options are checked once the scenario
		 * argument (or its absence) is known. */
		if (cmd == CLI_RUN && (opt_cmds(c) & FOR_VERBS) && !(opt_cmds(c) & FOR_RUN)) {
			if (!verbs_opt)
				verbs_opt = c;
		} else if (!(opt_cmds(c) & (cmd == CLI_TUNE ? FOR_TUNE | FOR_TUNE_SC : 1u << cmd))) {
			char what[48];
			const char *why = cmd == CLI_TUNE ? tune_sweeps(c) : NULL;

			return usage_error(cmd, "option %s does not apply to 'cclab %s'%s%s",
					   opt_label(c, what, sizeof(what)), cli_cmd_name(cmd),
					   why ? ": " : "", why ? why : "");
		}
		if (cmd == CLI_TUNE && !(opt_cmds(c) & FOR_TUNE_SC) && !setting_opt)
			setting_opt = c;
		if (!repeatable(c) && cli_opt_once(cmd, &once, c, label, optarg))
			return CLI_EXIT_USAGE;
		ctx.opt = label;
		if (apply(&ctx, c, optarg, o, &have_e))
			return CLI_EXIT_USAGE;
	}
	/* `cclab run` takes the scenario file, and nothing else, as its
	 * argument; everything else comes from that file. */
	if ((cmd == CLI_RUN || cmd == CLI_TUNE) && optind < argc && !o->scenario_path)
		o->scenario_path = argv[optind++];
	if (optind < argc)
		return usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	if (o->help)
		return 0;
	if (cmd == CLI_RUN && o->scenario_path) {
		if (verbs_opt)
			return usage_error(cmd, "option %s applies to 'cclab run' without a scenario; "
					   "the scenario file says it, or --set changes it",
					   opt_label(verbs_opt, label, sizeof(label)));
		return same_outputs(cmd, o) ? CLI_EXIT_USAGE : 0;
	}
	/* tune on a scenario: the file's setting, with --set on top, as
	 * `cclab run`; without one, sim's options make it. */
	if (cmd == CLI_TUNE && o->scenario_path) {
		if (setting_opt)
			return usage_error(cmd, "option %s applies to 'cclab tune' without a scenario; "
					   "the scenario file says it, or --set changes it",
					   opt_label(setting_opt, label, sizeof(label)));
		return same_outputs(cmd, o) ? CLI_EXIT_USAGE : 0;
	}
	if (cmd == CLI_TUNE && argc <= 1)
		return usage_error(cmd, "expected a scenario file (cclab tune SCENARIO.yaml), or "
				   "sim's options (cclab tune -n K ...)");
	if (cmd == CLI_TUNE && o->nsets)
		return usage_error(cmd, "--set applies to 'cclab tune SCENARIO.yaml' only");
	if (cmd == CLI_RUN && argc <= 1)
		return usage_error(cmd, "missing the scenario file (cclab run SCENARIO.yaml), or "
				   "options for a run on this host's RDMA devices (cclab run -n K "
				   "...)");
	if (cmd == CLI_RUN) {
		/* The verbs executor: host buffers unless --memory gpu, since
		 * a GPU is what the machine may lack; ranks may come from the
		 * launcher (-n then must agree, cli/cmd_verbs.c). */
		if (!o->memory_given)
			o->p.mem = CC_MEM_HOST;
		o->p.stage_mem = o->p.mem;
		o->verbs = true;
		if (o->nsets || o->links)
			return usage_error(cmd, "%s applies to 'cclab run SCENARIO.yaml' only",
					   o->nsets ? "--set" : "--links");
		if (o->nsim_faults || o->wall_limit_given || o->jobs_given)
			return usage_error(cmd, "%s applies to the simulator: 'cclab sim', or 'cclab "
					   "run SCENARIO.yaml'", o->nsim_faults ? "--fault "
					   "link-down|no-ack|slow-gpu" : o->wall_limit_given ?
					   "--wall-limit" : "-j/--jobs");
	} else {
		/* --gpu-dma overrides the fabric, whichever of it and --fabric
		 * came first; the schedule's staging follows the fabric
		 * (sim/exec.h). */
		if (o->gpu_dma_given)
			o->fabric.host.gpu_dma = o->gpu_dma;
		cc_sim_stage_for(&o->p, &o->fabric);
		/* NCCL's transport on the fabric's link layer: the simulator
		 * only (`schedule` and `check` take no fabric: the plain form) */
		if (cmd == CLI_SIM || cmd == CLI_TUNE)
			sim_nccl_transport_for(&o->p, &o->fabric, &o->nccl_own.env);
		/* Without --topology, the cabling the schedule can run on: a
		 * ring in rank order talks only to its neighbours; nvls needs
		 * one node's NVSwitch; every other algorithm, order or
		 * all-to-all needs a switch. */
		if (!o->topo_given && cmd == CLI_TUNE)
			/* tune runs every algorithm: a switch carries all but
			 * the multicast ones (n/a there, not an error) */
			o->topo = SIM_TOPO_STAR;
		else if (!o->topo_given)
			o->topo = o->p.algo == CC_ALGO_RING && o->p.coll != CC_ALLTOALL &&
					  o->p.ring_order == CC_RING_ORDER_RANK
				  ? SIM_TOPO_RING
				  : o->p.algo == CC_ALGO_NVLS_TREE || o->p.algo == CC_ALGO_COLLNET_CHAIN
				  ? SIM_TOPO_RAILOPT
				  : cc_algo_multicast(o->p.algo) ? SIM_TOPO_NODE : SIM_TOPO_STAR;
		/* One NVSwitch node: every rank on it (what the transport and
		 * the tree need to know: no hop there crosses a network). */
		if (o->topo == SIM_TOPO_NODE && !o->p.ranks_per_node)
			o->p.ranks_per_node = o->p.nranks;
		/* one NVSwitch node has no network to stage for, whatever
		 * --ranks-per-node says */
		if ((cmd == CLI_SIM || cmd == CLI_TUNE) && o->topo != SIM_TOPO_NODE)
			sim_nccl_stage_for(&o->p, &o->fabric, &o->nccl_own.env);
	}
	cc_coll_params_fill(&o->p, o->slot_given, o->chunk_given);
	return check_all(cmd, o, have_e);
}
