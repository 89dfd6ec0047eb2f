/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/nccl_tests_args.c — nccl-tests' command line (src/common.cu main(),
 * 2.19.6): its short and long flags, read with getopt_long as there, so
 * the last of a repeated flag wins (the header says so, since it may hide
 * a mistake); the launcher's process count and NCCL's variables from the
 * environment.  cclab's own long options (--fabric, --topology, ...) pass
 * on to `cclab sim`, which keeps its rule: each at most once.
 *
 * nccl-tests reads numbers with strtol(optarg, NULL, 0) and takes "4x" as
 * 4, an unknown -d as float and an unknown -o as sum; here every value is
 * checked in full (base 0, as strtol) and a bad one stops with exit 2 and
 * a message naming the flag.  A flag that would change what is measured
 * in a way a simulation cannot give (-C 1 CPU time, -M 1 memory report,
 * -I 1 per-iteration spread, -D device kernels) is refused; one that
 * changes only how a GPU run is driven is taken and noted in the header. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/nccl_tests.h"
#include "core/nccl_auto.h"
#include "sim/launch.h"
#include "util/files.h"
#include "util/units.h"

extern char **environ;

const char *const nt_type_names[NT_NTYPES] = {
	"int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double", "bfloat16",
};
const char *const nt_op_names[NT_NOPS] = {"sum", "prod", "max", "min", "avg"};

/* cclab's own long options that mean something to a simulation; each
 * passes on to `cclab sim` with its value (docs: cclab help sim). */
static const char *const pass_names[] = {
	"--transport", "--algorithm", "--protocol", "--chunk-bytes", "--slot-bytes", "--slots",
	"--channels", "--ranks-per-node", "--ring-order", "--seed", "--json", "--csv", "--links",
	"--fabric", "--topology", "--trace", "--gpu-dma", "--fault", "--wall-limit", "--jobs",
	"--nccl-version", "--env", "--nics", "--pcie-switches", "--model",
};
#define NPASS_NAMES (sizeof(pass_names) / sizeof(pass_names[0]))
enum { OPT_PASS = 1000, OPT_NRANKS = 2000, OPT_COLLECTIVE };

/* common.cu's longopts[], then cclab's. */
static struct option longopts[] = {
	{"nthreads", required_argument, NULL, 't'}, {"ngpus", required_argument, NULL, 'g'},
	{"minbytes", required_argument, NULL, 'b'}, {"maxbytes", required_argument, NULL, 'e'},
	{"stepbytes", required_argument, NULL, 'i'}, {"stepfactor", required_argument, NULL, 'f'},
	{"iters", required_argument, NULL, 'n'}, {"agg_iters", required_argument, NULL, 'm'},
	{"warmup_iters", required_argument, NULL, 'w'}, {"run_cycles", required_argument, NULL, 'N'},
	{"parallel_init", required_argument, NULL, 'p'}, {"check", required_argument, NULL, 'c'},
	{"op", required_argument, NULL, 'o'}, {"datatype", required_argument, NULL, 'd'},
	{"root", required_argument, NULL, 'r'}, {"blocking", required_argument, NULL, 'z'},
	{"stream_null", required_argument, NULL, 'y'}, {"timeout", required_argument, NULL, 'T'},
	{"cudagraph", required_argument, NULL, 'G'}, {"report_cputime", required_argument, NULL, 'C'},
	{"report_timestamps", required_argument, NULL, 'S'},
	{"output_file", required_argument, NULL, 'J'}, {"average", required_argument, NULL, 'a'},
	{"local_register", required_argument, NULL, 'R'},
	{"cta_policy", required_argument, NULL, 'x'},
	{"device_implementation", required_argument, NULL, 'D'},
	{"device_cta_count", required_argument, NULL, 'V'}, {"memory", required_argument, NULL, 'M'},
	{"unalign", required_argument, NULL, 'u'}, {"per_iter_timing", required_argument, NULL, 'I'},
	{"per_iter_skip", required_argument, NULL, 'K'}, {"help", no_argument, NULL, 'h'},
	{"nranks", required_argument, NULL, OPT_NRANKS},
	{"collective", required_argument, NULL, OPT_COLLECTIVE},
#define X(i) {NULL, required_argument, NULL, OPT_PASS + (i)}
	X(0), X(1), X(2), X(3), X(4), X(5), X(6), X(7), X(8), X(9), X(10), X(11), X(12), X(13),
	X(14), X(15), X(16), X(17), X(18), X(19), X(20), X(21), X(22), X(23), X(24),
#undef X
	{NULL, 0, NULL, 0},
};
#define NLONG (sizeof(longopts) / sizeof(longopts[0]) - 1)
_Static_assert(NLONG == 34 + NPASS_NAMES, "one longopts entry per pass_names entry");

/* ':' first: a missing value is ':', not '?'. */
static const char short_opts[] = ":t:g:b:e:i:f:n:m:w:N:p:I:K:c:o:d:r:z:y:T:hG:C:a:R:x:D:V:J:S:M:u:";

static const struct {
	const char *name;
	enum cc_coll coll;
} programs[] = {
	{"all_reduce_perf", CC_ALLREDUCE}, {"all_gather_perf", CC_ALLGATHER},
	{"reduce_scatter_perf", CC_REDUCESCATTER}, {"broadcast_perf", CC_BROADCAST},
	{"reduce_perf", CC_REDUCE}, {"alltoall_perf", CC_ALLTOALL},
	{"sendrecv_perf", CC_SENDRECV},
};

int nt_program(const char *name, enum cc_coll *coll)
{
	for (size_t i = 0; i < sizeof(programs) / sizeof(programs[0]); i++)
		if (!strcmp(name, programs[i].name)) {
			*coll = programs[i].coll;
			return 0;
		}
	return -1;
}

void nt_note(struct nt_opts *n, const char *fmt, ...)
{
	size_t off = strlen(n->notes);
	va_list ap;
	int w;

	if (off + 12 >= sizeof(n->notes))
		return;
	off += (size_t)snprintf(n->notes + off, sizeof(n->notes) - off, "# cclab: ");
	va_start(ap, fmt);
	w = vsnprintf(n->notes + off, sizeof(n->notes) - off, fmt, ap);
	va_end(ap);
	if (w < 0 || off + (size_t)w + 2 > sizeof(n->notes)) {
		n->notes[sizeof(n->notes) - 2] = '\n';
		n->notes[sizeof(n->notes) - 1] = '\0';
		return;
	}
	strcat(n->notes, "\n");
}

/* "-b (--minbytes)" */
static const char *flag_label(int c, char *buf, size_t len)
{
	for (size_t i = 0; i < NLONG; i++)
		if (longopts[i].val == c) {
			snprintf(buf, len, "-%c (--%s)", c, longopts[i].name);
			return buf;
		}
	snprintf(buf, len, "-%c", c);
	return buf;
}

static int bad(const struct nt_opts *n, int c, const char *val, const char *why)
{
	char shown[CC_SHOWN_BUF], label[48];

	fprintf(stderr, "%s: invalid value '%s' for %s: %s\n", n->prog, cc_shown(shown, val),
		flag_label(c, label, sizeof(label)), why);
	fprintf(stderr, "Try '%s -h'.\n", n->prog);
	return CLI_EXIT_USAGE;
}

__attribute__((format(printf, 2, 3)))
static int usage_error(const struct nt_opts *n, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = cli_prog_usage_verror(n->prog, "-h", fmt, ap);
	va_end(ap);
	return rc;
}

/* A whole integer as strtol(s, NULL, 0) reads one (0x hex, 0 octal), in
 * [min, max]; 0 or the message. */
static int get_int(const struct nt_opts *n, int c, const char *s, int64_t min, int64_t max,
		   int64_t *out)
{
	char why[96], *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 0);
	if (end == s || *end || errno || v < min || v > max) {
		snprintf(why, sizeof(why), "expected a whole number from %" PRId64 " to %" PRId64,
			 min, max);
		return bad(n, c, s, why);
	}
	*out = v;
	return 0;
}

static int get_uint(const struct nt_opts *n, int c, const char *s, uint64_t min, uint64_t max,
		    uint64_t *out)
{
	int64_t v;
	int rc = get_int(n, c, s, (int64_t)min, (int64_t)max, &v);

	if (!rc)
		*out = (uint64_t)v;
	return rc;
}

static int get_flag(const struct nt_opts *n, int c, const char *s, int max, int *out)
{
	int64_t v;
	int rc = get_int(n, c, s, 0, max, &v);

	if (!rc)
		*out = (int)v;
	return rc;
}

/* parsesize(): a number with K, M or G (powers of 1024), as common.cu
 * reads -b, -e and -i; cclab's units (KiB, T, ...) are taken too. */
static int get_size(const struct nt_opts *n, int c, const char *s, uint64_t *out)
{
	if (cc_parse_size(s, out))
		return bad(n, c, s, "expected a size in bytes, optionally with K, M or G (powers "
			   "of 1024), such as 8, 64K or 1.5M");
	return 0;
}

static int get_type(struct nt_opts *n, const char *s)
{
	n->all_types = !strcmp(s, "all");
	if (n->all_types)
		return 0;
	for (int i = 0; i < NT_NTYPES; i++)
		if (!strcmp(s, nt_type_names[i]))
			return cc_dtype_parse(s, &n->dtype) ? bad(n, 'd', s, "internal error") : 0;
	if (!strcmp(s, "f8e4m3") || !strcmp(s, "f8e5m2"))
		return bad(n, 'd', s, "cclab has no fp8 type (ncclFloat8e4m3, ncclFloat8e5m2): "
			   "not modelled");
	return bad(n, 'd', s, "expected int8, uint8, int32, uint32, int64, uint64, half, float, "
		   "double, bfloat16 or all");
}

static int get_op(struct nt_opts *n, const char *s)
{
	n->all_ops = !strcmp(s, "all");
	if (n->all_ops)
		return 0;
	if (!strcmp(s, "mulsum"))
		return bad(n, 'o', s, "ncclRedOpCreatePreMulSum() is not a reduction cclab models");
	for (int i = 0; i < NT_NOPS; i++)
		if (!strcmp(s, nt_op_names[i]))
			return cc_redop_parse(s, &n->redop) ? bad(n, 'o', s, "internal error") : 0;
	return bad(n, 'o', s, "expected sum, prod, min, max, avg or all");
}

/* A -J file: nccl-tests writes JSON only to a name ending in .json
 * (common.cu classifyOutputFile()) and silently nothing to another. */
static int get_json(struct nt_opts *n, const char *s)
{
	const char *dot = strrchr(s, '.'), *slash = strrchr(s, '/');

	if (!dot || (slash && slash > dot) || strcasecmp(dot, ".json"))
		return bad(n, 'J', s, "nccl-tests writes only a file whose name ends in .json "
			   "(any other it ignores)");
	n->json = s;
	return 0;
}

/* Flags whose only value here is 0: any other asks for what a simulation
 * cannot give. */
static const struct {
	int flag, max;
	const char *why;
} zero_only[] = {
	{'C', 1, "a simulation has no host CPU time to report; not applicable to a simulation"},
	{'M', 1, "NCCL's own GPU memory is not modelled; not applicable to a simulation"},
	{'I', 1, "a simulation's iterations are identical: no spread to report; not applicable "
		 "to a simulation"},
	{'D', INT32_MAX, "NCCL's device-API kernels are not modelled"},
};

/* One flag's value into n; 0 or CLI_EXIT_USAGE. */
static int apply(struct nt_opts *n, int c, const char *a)
{
	int64_t v = 0;
	int x, rc = 0;

	for (size_t i = 0; i < sizeof(zero_only) / sizeof(zero_only[0]); i++)
		if (zero_only[i].flag == c) {
			if ((rc = get_flag(n, c, a, zero_only[i].max, &x)) == 0 && x)
				return bad(n, c, a, zero_only[i].why);
			return rc;
		}
	switch (c) {
	case 't': rc = get_int(n, c, a, 1, CLI_MAX_RANKS, &v); n->nthreads = (uint32_t)v; break;
	case 'g': rc = get_int(n, c, a, 1, CC_SIM_LAUNCH_MAX_GPUS, &v); n->ngpus = (uint32_t)v; break;
	case 'b': return get_size(n, c, a, &n->minbytes);
	case 'e': return get_size(n, c, a, &n->maxbytes);
	case 'i': return get_size(n, c, a, &n->stepbytes);
	case 'f': return get_uint(n, c, a, 0, UINT32_MAX, &n->stepfactor);
	case 'n': return get_uint(n, c, a, 1, CLI_MAX_ITERS, &n->iters);
	case 'm': return get_uint(n, c, a, 1, CLI_MAX_ITERS, &n->agg_iters);
	case 'w': return get_uint(n, c, a, 0, CLI_MAX_ITERS, &n->warmup);
	case 'N':
		if (!strcmp(a, "0"))
			return bad(n, c, a, "0 repeats the table forever; a simulation repeats it "
				   "exactly, so give a count");
		return get_uint(n, c, a, 1, NT_MAX_CYCLES, &n->cycles);
	case 'p': return get_flag(n, c, a, 1, &n->parallel_init);
	case 'c': return get_uint(n, c, a, 0, CLI_MAX_ITERS, &n->check);
	case 'o': return get_op(n, a);
	case 'd': return get_type(n, a);
	case 'r':
		n->all_roots = !strcmp(a, "all") || !strcmp(a, "-1");
		if (n->all_roots)
			return 0;
		rc = get_int(n, c, a, 0, CLI_MAX_RANKS - 1, &v);
		n->root = (uint32_t)v;
		break;
	case 'z': return get_flag(n, c, a, 3, &n->blocking);
	case 'y': return get_flag(n, c, a, 1, &n->stream_null);
	case 'T': return get_uint(n, c, a, 0, 18446744, &n->timeout_s);
	case 'G': return get_uint(n, c, a, 0, CLI_MAX_ITERS, &n->graph);
	case 'S': return get_flag(n, c, a, 1, &n->timestamps);
	case 'J': return get_json(n, a);
	case 'a': return get_flag(n, c, a, 3, &n->average);
	case 'R': return get_flag(n, c, a, 2, &n->local_register);
	case 'x': return get_flag(n, c, a, 2, &n->cta_policy);
	case 'V': return get_uint(n, c, a, 1, 128, &n->device_cta);
	case 'u': return get_uint(n, c, a, 0, UINT32_MAX, &n->unalign);
	case 'K': return get_uint(n, c, a, 0, CLI_MAX_ITERS, &n->per_iter_skip);
	}
	return rc;
}

/* A cclab long option, kept for `cclab sim` as written. */
static int pass_on(struct nt_opts *n, const char *opt, const char *a)
{
	if (n->npass + 2 > NT_MAX_PASS)
		return usage_error(n, "too many of cclab's options (at most %u)", NT_MAX_PASS / 2);
	n->pass[n->npass++] = opt;
	n->pass[n->npass++] = a;
	if (!strcmp(opt, "--algorithm") || !strcmp(opt, "--protocol") ||
	    !strcmp(opt, "--channels"))
		n->nccl_chooses = false;
	if (!strcmp(opt, "--json") || !strcmp(opt, "--csv") || !strcmp(opt, "--trace") ||
	    !strcmp(opt, "--links"))
		n->whole_files = true;
	n->wall_limit = n->wall_limit || !strcmp(opt, "--wall-limit");
	n->layout_given = n->layout_given || !strcmp(opt, "--ranks-per-node") ||
			  !strcmp(opt, "--topology");
	return 0;
}

/* A launcher's variable: 0 and *v, or CLI_EXIT_USAGE naming it. */
static int launcher_var(const struct nt_opts *n, const char *var, long min, long max, long *v)
{
	const char *s = getenv(var);
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	if (end == s || *end || errno || *v < min || *v > max)
		return usage_error(n, "%s='%s' in the environment: expected a whole number from "
				   "%ld to %ld", var, s, min, max);
	return 0;
}

/* Processes on this node, from the launcher: mpirun's local size, hydra's,
 * or srun's tasks per node (a plain number: SLURM_NTASKS_PER_NODE, which
 * srun sets when --ntasks-per-node was asked); else 1. */
static int local_size(struct nt_opts *n)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS",
					   "SLURM_NTASKS_PER_NODE"};
	long v;

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *s = getenv(vars[i]);

		if (!s || !*s)
			continue;
		if (launcher_var(n, vars[i], 1, n->nprocs, &v))
			return CLI_EXIT_USAGE;
		n->procs_per_node = (uint32_t)v;
		n->procs_per_node_from = vars[i];
		return 0;
	}
	return 0;
}

/* The launcher's process count and this process's rank (common.cu:
 * MPI_Comm_size, MPI_Comm_rank; here what mpirun, a PMI launcher or srun
 * sets), else 1 process, rank 0. */
static int launcher(struct nt_opts *n)
{
	static const char *const vars[][2] = {{"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"},
					      {"PMI_SIZE", "PMI_RANK"},
					      {"SLURM_NTASKS", "SLURM_PROCID"}};
	long v;

	n->nprocs = 1;
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *s = getenv(vars[i][0]), *r = getenv(vars[i][1]);

		if (!s || !*s)
			continue;
		if (launcher_var(n, vars[i][0], 1, CLI_MAX_RANKS, &v))
			return CLI_EXIT_USAGE;
		n->nprocs = (uint32_t)v;
		n->nprocs_from = vars[i][0];
		if (r && *r && launcher_var(n, vars[i][1], 0, v - 1, &v))
			return CLI_EXIT_USAGE;
		n->proc = r && *r ? (uint32_t)v : 0;
		return local_size(n);
	}
	return 0;
}

/* NCCL_* of the environment: those cclab models go on as --env (checked
 * here, so a bad value names its variable); NCCL_TESTS_MIN_BW is
 * nccl-tests' own pass mark (common.cu run()). */
/* A list of NAME=VALUE words for a header note: whole words while they
 * fit in its LIST_LEN bytes, then a count of the rest, never a word cut. */
#define LIST_LEN 512

struct env_list {
	char text[LIST_LEN];
	unsigned more;
};

static void list_add(struct env_list *l, const char *word)
{
	size_t off = strlen(l->text), need = strlen(word) + (off ? 1 : 0);

	/* room kept for " and 99999 more" */
	if (l->more || off + need + 16 >= LIST_LEN) {
		l->more++;
		return;
	}
	snprintf(l->text + off, LIST_LEN - off, "%s%s", off ? " " : "", word);
}

static void list_note(struct nt_opts *n, const char *what, const struct env_list *l)
{
	if (l->more)
		nt_note(n, "%s: %s and %u more", what, l->text, l->more);
	else
		nt_note(n, "%s: %s", what, l->text);
}

static int nccl_env(struct nt_opts *n)
{
	/* only to check the values, as `cclab sim --env` will take them */
	struct cli_opts *probe = calloc(1, sizeof(*probe));
	struct env_list taken = {0}, inert = {0}, unknown = {0}, *list;
	int rc = 0;

	if (!probe)
		return usage_error(n, "out of memory");
	cc_nccl_auto_init(&probe->nccl_own);
	n->min_bw = -1;
	for (char **e = environ; e && *e && !rc; e++) {
		const char *s = *e, *eq = strchr(s, '=');
		char err[256];

		if (strncmp(s, "NCCL_", 5) || !eq)
			continue;
		if (!strncmp(s, "NCCL_TESTS_MIN_BW=", 18)) {
			char *end;

			n->min_bw = strtod(eq + 1, &end);
			if (end == eq + 1 || *end || !isfinite(n->min_bw) || n->min_bw < 0)
				rc = usage_error(n, "NCCL_TESTS_MIN_BW='%s' in the environment: expected "
						 "a bus bandwidth in GB/s, such as 40", eq + 1);
			continue;
		}
		if (!strncmp(s, "NCCL_TESTS_", 11)) {
			nt_note(n, "%.*s: not modelled (one communicator of every rank, one device "
				"each), ignored", (int)(eq - s), s);
			continue;
		}
		int r = cli_nccl_env_option(probe, s, err, sizeof(err));

		if (r == -ENOENT) {
			list = &unknown;
		} else if (r) {
			rc = usage_error(n, "%.*s in the environment: %s", (int)(eq - s), s, err);
			break;
		} else {
			char name[64];

			snprintf(name, sizeof(name), "%.*s", (int)(eq - s), s);
			list = cc_nccl_env_inert(name) ? &inert : &taken;
			if (n->nenv == NT_MAX_ENV) {
				rc = usage_error(n, "more than %u NCCL_ variables in the environment",
						 NT_MAX_ENV);
				break;
			}
			n->env[n->nenv++] = s;
		}
		list_add(list, s);
	}
	free(probe);
	if (rc)
		return rc;
	if (*taken.text)
		list_note(n, "from the environment, as NCCL reads them", &taken);
	else
		nt_note(n, "from the environment, as NCCL reads them: none");
	if (*inert.text)
		list_note(n, "from the environment, changing nothing cclab models", &inert);
	if (*unknown.text)
		list_note(n, "from the environment, not modelled (ignored)", &unknown);
	return 0;
}

static void defaults(struct nt_opts *n, int argc, char **argv)
{
	const char *slash = strrchr(argv[0], '/');

	memset(n, 0, sizeof(*n));
	n->prog = slash ? slash + 1 : argv[0];
	nt_program(n->prog, &n->coll);
	n->argc = argc;
	n->argv = argv;
	n->nthreads = n->ngpus = 1;
	/* common.cu's defaults */
	n->minbytes = n->maxbytes = 32u << 20;
	n->stepbytes = 1u << 20;
	n->stepfactor = 1;
	n->check = 1;
	n->warmup = 1;
	n->iters = 20;
	n->agg_iters = 1;
	n->cycles = 1;
	n->dtype = CC_FLOAT32;
	n->redop = CC_SUM;
	n->average = 1;
	n->cta_policy = -1;
	n->device_cta = 16;
	n->nccl_chooses = true;
	n->procs_per_node = 1;
}

/* "-b given 2 times" notes: getopt's last wins, as in nccl-tests. */
struct seen {
	unsigned count[128];
	const char *last[128];
};

static void repeated_notes(struct nt_opts *n, const struct seen *s)
{
	char label[48];

	for (int c = 0; c < 128; c++)
		if (s->count[c] > 1)
			nt_note(n, "%s given %u times: the last, %s, counts (getopt, as nccl-tests)",
				flag_label(c, label, sizeof(label)), s->count[c], s->last[c]);
}

/* Checks that need every flag. */
static int check_all(struct nt_opts *n)
{
	if (n->minbytes > n->maxbytes)
		return usage_error(n, "invalid sizes for 'minbytes' and 'maxbytes': -b %" PRIu64
				   " > -e %" PRIu64, n->minbytes, n->maxbytes);
	if ((uint64_t)n->nprocs * n->nthreads * n->ngpus > CLI_MAX_RANKS)
		return usage_error(n, "-t %u x -g %u x %u process%s = %" PRIu64 " ranks: cclab "
				   "simulates at most %u", n->nthreads, n->ngpus, n->nprocs,
				   n->nprocs > 1 ? "es" : "",
				   (uint64_t)n->nprocs * n->nthreads * n->ngpus, CLI_MAX_RANKS);
	n->nranks = n->nprocs * n->nthreads * n->ngpus;
	/* One process's GPUs share its host (nccl-tests drives them from
	 * it), and so do the processes the launcher put on one node: a node
	 * of that many GPUs, joined by NVLink, unless cclab's own
	 * --ranks-per-node or --topology says otherwise. */
	uint32_t per_node = n->procs_per_node * n->nthreads * n->ngpus;

	if (!n->layout_given && per_node > 1 && n->nranks % per_node == 0)
		n->ranks_per_node = per_node;
	if (cc_coll_rooted(n->coll) && !n->all_roots && n->root >= n->nranks)
		return usage_error(n, "-r (--root) %u: ranks are 0 to %u (%u process%s x -t %u x "
				   "-g %u)", n->root, n->nranks - 1, n->nprocs,
				   n->nprocs > 1 ? "es" : "", n->nthreads, n->ngpus);
	if (n->stepfactor <= 1 && n->minbytes < n->maxbytes) {
		if (!n->stepbytes)
			return usage_error(n, "-i (--stepbytes) 0 with -f %" PRIu64 " never gets "
					   "from -b to -e", n->stepfactor);
		if ((n->maxbytes - n->minbytes) / n->stepbytes >= NT_MAX_SIZES)
			return usage_error(n, "-b %" PRIu64 " to -e %" PRIu64 " by -i %" PRIu64
					   " is more than %u sizes; a larger -i, or -f", n->minbytes,
					   n->maxbytes, n->stepbytes, NT_MAX_SIZES);
	}
	if (n->timeout_s && n->wall_limit)
		return usage_error(n, "-T (--timeout) and --wall-limit both set the wall-clock "
				   "limit of each size: give one");
	return 0;
}

int nt_parse(int argc, char **argv, struct nt_opts *n)
{
	struct seen *seen = calloc(1, sizeof(*seen));
	int rc = 0;

	defaults(n, argc, argv);
	if (!seen)
		return usage_error(n, "out of memory");
	for (size_t i = 0; i < NPASS_NAMES; i++)
		longopts[NLONG - NPASS_NAMES + i].name = pass_names[i] + 2;
	opterr = 0;
	optind = 0; /* glibc: a full reinitialisation */
	while (!rc) {
		int c = getopt_long(argc, argv, short_opts, longopts, NULL);
		const char *word = argv[optind - 1];

		if (c == -1)
			break;
		if (c == '?' && !strncmp(word, "--", 2))
			rc = usage_error(n, "unknown or ambiguous option '%s'", word);
		else if (c == '?')
			rc = usage_error(n, "invalid option '-%c'", optopt);
		else if (c == ':')
			rc = usage_error(n, "option '%s' needs a value", word);
		else if (c == 'h')
			n->help = true;
		else if (c == OPT_NRANKS)
			rc = usage_error(n, "--nranks: here the ranks are the launcher's processes "
					 "x -t x -g, as in nccl-tests");
		else if (c == OPT_COLLECTIVE)
			rc = usage_error(n, "--collective: the program's name says it (%s)", n->prog);
		else if (c >= OPT_PASS)
			rc = pass_on(n, pass_names[c - OPT_PASS], optarg);
		else {
			seen->count[c & 127]++;
			seen->last[c & 127] = optarg;
			rc = apply(n, c, optarg);
		}
	}
	if (!rc && optind < argc)
		rc = usage_error(n, "unexpected argument '%s'", argv[optind]);
	if (!rc && !n->help) {
		repeated_notes(n, seen);
		if (!(rc = launcher(n)) && !(rc = nccl_env(n)))
			rc = check_all(n);
	}
	free(seen);
	return rc;
}

void nt_usage(const struct nt_opts *n)
{
	printf("USAGE: %s \n\t"
	       "[-t,--nthreads <num threads>] \n\t"
	       "[-g,--ngpus <gpus per thread>] \n\t"
	       "[-b,--minbytes <min size in bytes>] \n\t"
	       "[-e,--maxbytes <max size in bytes>] \n\t"
	       "[-i,--stepbytes <increment size>] \n\t"
	       "[-f,--stepfactor <increment factor>] \n\t"
	       "[-n,--iters <iteration count>] \n\t"
	       "[-m,--agg_iters <aggregated iteration count>] \n\t"
	       "[-w,--warmup_iters <warmup iteration count>] \n\t"
	       "[-N,--run_cycles <cycle count> run & print each cycle (default: 1)] \n\t"
	       "[-p,--parallel_init <0/1>] \n\t"
	       "[-c,--check <check iteration count>] \n\t"
	       "[-o,--op <sum/prod/min/max/avg/all>] \n\t"
	       "[-d,--datatype <nccltype/all>] \n\t"
	       "[-r,--root <root/-1/all>] \n\t"
	       "[-z,--blocking <0/1/2/3>] \n\t"
	       "[-y,--stream_null <0/1>] \n\t"
	       "[-T,--timeout <time in seconds>] \n\t"
	       "[-G,--cudagraph <num graph launches>] \n\t"
	       "[-C,--report_cputime <0>] \n\t"
	       "[-S,--report_timestamps <0/1> report timestamps (default 0)] \n\t"
	       "[-J,--output_file <file.json> write nccl-tests' JSON to it] \n\t"
	       "[-a,--average <0/1/2/3> report average iteration time <0=RANK0/1=AVG/2=MIN/3=MAX>] \n\t"
	       "[-R,--local_register <0/1/2>] \n\t"
	       "[-x,--cta_policy <0/1/2>] \n\t"
	       "[-D,--device_implementation <0>] \n\t"
	       "[-V,--device_cta_count <number>] \n\t"
	       "[-M,--memory <0>] \n\t"
	       "[-u,--unalign <index of first element>] \n\t"
	       "[-I,--per_iter_timing <0>] \n\t"
	       "[-K,--per_iter_skip <count>] \n\t"
	       "[-h,--help]\n"
	       "cclab %s: nccl-tests' flags on the simulator (docs/simulator.md); cclab's own, "
	       "as in 'cclab sim':\n\t", n->prog, CCLAB_VERSION);
	for (size_t i = 0; i < NPASS_NAMES; i++)
		printf("%s%s", pass_names[i], i + 1 < NPASS_NAMES ? (i % 6 == 5 ? "\n\t" : " ")
								    : "\n");
}
