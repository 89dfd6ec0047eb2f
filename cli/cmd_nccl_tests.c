/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/cmd_nccl_tests.c — nccl-tests' mode: `all_reduce_perf -b 8 -e 128M
 * -f 2 -g 8` (cclab under that name, a symlink) or `cclab all_reduce_perf
 * ...` runs what nccl-tests would, on the simulator, and prints nccl-tests'
 * text.
 *
 * nccl-tests' run(): one table; its *RunTest() a TimeTest() per type (-d
 * all), per op (-o all, the reductions) and per root (-r -1, broadcast and
 * reduce), each the size loop -N times.  Here each of those is one `cclab
 * sim` sweep (cli_sim_run()) of the same table: its parameters are turned
 * into cclab's options and read by cli_parse(), so every rule of `cclab
 * sim` holds, and the table hooks (cli/nccl_tests_out.c) print nccl-tests'
 * lines.  nccl-tests' -i stepping, which cclab's loop has not, is one sweep
 * per size. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/nccl_tests.h"
#include "cli/sim.h"
#include "core/algo.h"
#include "core/dtype.h"

#define NT_ARGV_MAX (40 + NT_MAX_PASS + 2 * NT_MAX_ENV)

/* One sweep's `cclab sim` command line. */
struct sim_argv {
	const char *v[NT_ARGV_MAX + 1];
	int argc;
	char text[256]; /* the numbers */
	size_t off;
};

static void push(struct sim_argv *a, const char *s)
{
	if (a->argc < NT_ARGV_MAX)
		a->v[a->argc++] = s;
}

static void push_u64(struct sim_argv *a, const char *opt, uint64_t v)
{
	int w = snprintf(a->text + a->off, sizeof(a->text) - a->off, "%" PRIu64, v);

	push(a, opt);
	push(a, a->text + a->off);
	a->off += (size_t)w + 1;
}

/* One sweep: a type, an op, a root and the sizes from min to max. */
struct sweep {
	enum cc_dtype dtype;
	enum cc_redop redop;
	uint32_t root;
	uint64_t min, max, factor;
};

static void sim_argv(const struct nt_opts *n, const struct sweep *s, struct sim_argv *a)
{
	memset(a, 0, sizeof(*a));
	push(a, "sim");
	push_u64(a, "-n", n->nranks);
	push(a, "-c");
	push(a, cc_coll_name[n->coll]);
	push_u64(a, "-b", s->min);
	push_u64(a, "-e", s->max);
	push_u64(a, "-f", s->factor);
	push(a, "-d");
	push(a, cc_dtype_name[s->dtype]);
	push(a, "-o");
	push(a, cc_redop_name[s->redop]);
	if (cc_coll_rooted(n->coll))
		push_u64(a, "-r", s->root);
	push(a, "--check");
	push(a, n->check ? "1" : "0");
	if (n->ranks_per_node) {
		/* one node: its NVSwitch; more: rail-optimised nodes, the
		 * layout of today's GPU clusters (docs/simulator.md) */
		push_u64(a, "--ranks-per-node", n->ranks_per_node);
		push(a, "--topology");
		push(a, n->ranks_per_node == n->nranks ? "node" : "railopt");
	}
	if (n->nccl_chooses) {
		push(a, "-A");
		push(a, "auto");
	}
	if (n->timeout_s)
		push_u64(a, "--wall-limit", n->timeout_s);
	/* how a thread launches: BenchTime()'s time per iteration is at least
	 * that thread's (sim/launch.h) */
	push_u64(a, "--gpus-per-thread", n->ngpus);
	if (n->agg_iters > 1)
		push_u64(a, "--agg-iters", n->agg_iters);
	if (n->graph)
		push(a, "--cuda-graph");
	for (uint32_t i = 0; i < n->nenv; i++) {
		push(a, "--env");
		push(a, n->env[i]);
	}
	/* cclab's own last: an explicit --env overrides the environment's */
	for (uint32_t i = 0; i < n->npass; i++)
		push(a, n->pass[i]);
	a->v[a->argc] = NULL;
}

/* After `cclab sim` refused a sweep: what it was asked, so a message that
 * names cclab's options (-n/--nranks) reads in nccl-tests' terms. */
static void explain(const struct nt_opts *n, const struct sim_argv *a)
{
	fprintf(stderr, "%s: nccl-tests' flags as cclab's: cclab", n->prog);
	for (int i = 0; i < a->argc; i++)
		fprintf(stderr, strpbrk(a->v[i], " \t'\"") ? " '%s'" : " %s", a->v[i]);
	fprintf(stderr, " (-n: nprocs %" PRIu32 " x -t %" PRIu32 " x -g %" PRIu32 ")\n",
		n->nprocs, n->nthreads, n->ngpus);
}

/* common.cu BenchTime(): each thread times its -g GPUs together (it
 * waits for all their streams), and Allreduce(&deltaSec, average) takes
 * thread 0's (-a 0), the mean (1), the least (2) or the largest (3) of
 * every process's threads.  Ranks are (proc x nThreads + thread) x nGpus
 * + i, so a thread's GPUs are -g consecutive ranks; in a simulation every
 * rank starts at 0 and is done at its done_ps. */
static double row_time_us(void *ctx, const struct cc_sim_result *res)
{
	const struct nt_opts *n = ctx;
	uint32_t g = n->ngpus, timers = g ? res->nranks / g : 0;
	double acc = 0;

	if (!res->rank || !timers)
		return (double)res->time_ps / 1e6;
	for (uint32_t t = 0; t < timers; t++) {
		sim_time_ps tt = 0;

		for (uint32_t i = t * g; i < t * g + g; i++)
			tt = res->rank[i].done_ps > tt ? res->rank[i].done_ps : tt;
		double us = (double)tt / 1e6;

		if (t == 0 || n->average == NT_AVG_MEAN)
			acc = t == 0 ? us : acc + us;
		else if (n->average == NT_AVG_MIN)
			acc = us < acc ? us : acc;
		else if (n->average == NT_AVG_MAX)
			acc = us > acc ? us : acc;
	}
	return n->average == NT_AVG_MEAN ? acc / timers : acc;
}

static bool loops_ops(enum cc_coll c)
{
	/* sendrecv.cu runs every op too, though it reduces nothing */
	return c == CC_ALLREDUCE || c == CC_REDUCESCATTER || c == CC_REDUCE || c == CC_SENDRECV;
}

/* The next size of nccl-tests' loop (TimeTest()): times -f, or plus -i. */
static bool next_size(const struct nt_opts *n, uint64_t *size)
{
	uint64_t next;

	if (n->stepfactor > 1)
		return cc_result_next_size(size, n->stepfactor, n->maxbytes);
	if (__builtin_add_overflow(*size, n->stepbytes, &next) || next > n->maxbytes ||
	    !n->stepbytes)
		return false;
	*size = next;
	return true;
}

struct plan {
	enum cc_dtype types[NT_NTYPES];
	enum cc_redop ops[NT_NOPS];
	uint32_t ntypes, nops, root0, nroots;
	uint64_t nsizes; /* sweeps per combination: 1, or the sizes under -i */
};

static void make_plan(struct nt_opts *n, struct plan *p)
{
	memset(p, 0, sizeof(*p));
	for (int i = 0; i < NT_NTYPES && n->all_types; i++)
		cc_dtype_parse(nt_type_names[i], &p->types[p->ntypes++]);
	if (!n->all_types)
		p->types[p->ntypes++] = n->dtype;
	for (int i = 0; i < NT_NOPS && n->all_ops && loops_ops(n->coll); i++)
		cc_redop_parse(nt_op_names[i], &p->ops[p->nops++]);
	if (!p->nops)
		p->ops[p->nops++] = n->redop;
	p->root0 = n->all_roots ? 0 : n->root;
	p->nroots = n->all_roots && cc_coll_rooted(n->coll) ? n->nranks : 1;
	p->nsizes = 1;
	for (uint64_t s = n->minbytes; n->stepfactor <= 1 && next_size(n, &s);)
		p->nsizes++;
	if (n->all_types)
		nt_note(n, "-d all: f8e4m3 and f8e5m2 left out: cclab has no fp8 type (as "
			"nccl-tests leaves them out before Hopper)");
	if (n->all_ops && loops_ops(n->coll))
		nt_note(n, "-o all: mulsum left out: ncclRedOpCreatePreMulSum() is not modelled");
	if (n->cycles > 1)
		nt_note(n, "-N %" PRIu64 ": each cycle's rows are the same (a simulation repeats "
			"exactly)", n->cycles);
	if (n->timeout_s)
		nt_note(n, "-T %" PRIu64 ": the wall-clock limit of each size's simulation "
			"(--wall-limit)", n->timeout_s);
	if (n->blocking)
		nt_note(n, "-z %d: blocking collectives, the thread waiting for each before it "
			"launches the next, are not modelled: the launches are taken to overlap the "
			"collectives, an iteration the longer of the two", n->blocking);
	if ((n->ngpus > 1 || n->agg_iters > 1) && !n->graph)
		nt_note(n, "-g %" PRIu32 " -m %" PRIu64 ": a thread launches its GPUs' kernels one "
			"after another, so an iteration takes at least (software.group_cpu_ps + %"
			PRIu32 " x software.launch_cpu_ps) / %" PRIu64 " (docs/simulator.md, \"The "
			"launching thread\")", n->ngpus, n->agg_iters, n->ngpus, n->agg_iters);
}

/* Notes for flags that change how a GPU run is driven and nothing that is
 * simulated. */
static void inert_notes(struct nt_opts *n)
{
	char list[256] = "";
	size_t off = 0;
#define INERT(cond, ...) \
	if (cond) \
		off += (size_t)snprintf(list + off, off < sizeof(list) ? sizeof(list) - off : 0, \
					__VA_ARGS__)
	INERT(n->parallel_init, " -p %d", n->parallel_init);
	INERT(n->stream_null, " -y %d", n->stream_null);
	INERT(n->local_register, " -R %d (buffer registration: not modelled, times are without "
	      "it)", n->local_register);
	INERT(n->cta_policy >= 0, " -x %d", n->cta_policy);
	INERT(n->device_cta != 16, " -V %" PRIu64, n->device_cta);
	INERT(n->unalign, " -u %" PRIu64, n->unalign);
	INERT(n->per_iter_skip, " -K %" PRIu64, n->per_iter_skip);
#undef INERT
	if (off)
		nt_note(n, "taken, not applicable to a simulation (the time is unchanged):%s", list);
}

/* -J and cclab's own files must not be one path. */
static int same_file(const struct nt_opts *n)
{
	for (uint32_t i = 0; n->json && i + 1 < n->npass; i += 2)
		if ((!strcmp(n->pass[i], "--json") || !strcmp(n->pass[i], "--csv") ||
		     !strcmp(n->pass[i], "--trace") || !strcmp(n->pass[i], "--links")) &&
		    cc_output_same(n->json, n->pass[i + 1])) {
			fprintf(stderr, "%s: -J and %s name the same file '%s'\n", n->prog,
				n->pass[i], n->json);
			return CLI_EXIT_USAGE;
		}
	return 0;
}

/* Every sweep of the plan, into one table.  The worst exit status of a
 * sweep; CLI_EXIT_USAGE ends at once. */
static int run_all(const struct nt_opts *n, const struct plan *p, const struct cli_sim_as *as)
{
	struct cli_opts *o = malloc(sizeof(*o));
	int worst = 0;

	if (!o) {
		fprintf(stderr, "%s: out of memory\n", n->prog);
		return CLI_EXIT_FAIL;
	}
	for (uint32_t t = 0; t < p->ntypes; t++)
		for (uint32_t k = 0; k < p->nops; k++)
			for (uint32_t r = p->root0; r < p->root0 + p->nroots; r++)
				for (uint64_t c = 0; c < n->cycles; c++) {
					struct sweep s = {p->types[t], p->ops[k], r, n->minbytes,
							  n->maxbytes, n->stepfactor};

					do {
						struct sim_argv a;
						int rc;

						if (n->stepfactor <= 1) { /* -i: one size a sweep */
							s.max = s.min;
							s.factor = 2;
						}
						sim_argv(n, &s, &a);
						rc = cli_parse(CLI_SIM, a.argc, (char **)a.v, o);
						if (rc) {
							explain(n, &a);
							free(o);
							return rc;
						}
						rc = cli_sim_run(o, as);
						worst = rc > worst ? rc : worst;
						if (rc == CLI_EXIT_USAGE) {
							explain(n, &a);
							free(o);
							return rc;
						}
					} while (n->stepfactor <= 1 && next_size(n, &s.min));
				}
	free(o);
	return worst;
}

int cmd_nccl_tests(int argc, char **argv)
{
	static struct nt_opts n;
	struct plan p;
	struct cc_atomic_file af = {0};
	struct cc_json j;
	int rc;

	if ((rc = nt_parse(argc, argv, &n)))
		return rc;
	if (n.help) {
		nt_usage(&n);
		return CLI_EXIT_OK;
	}
	/* nccl-tests prints on the launcher's rank 0 only; the others have
	 * nothing to simulate (rank 0 simulates every rank) */
	if (n.proc > 0)
		return CLI_EXIT_OK;
	make_plan(&n, &p);
	inert_notes(&n);
	if (n.whole_files && (uint64_t)p.ntypes * p.nops * p.nroots * n.cycles * p.nsizes > 1) {
		fprintf(stderr, "%s: --json, --csv, --trace and --links are cclab's files of one "
			"sweep, and this run has %" PRIu64 " (-d all, -o all, -r -1, -N or -i "
			"stepping); -J FILE.json holds them all\n", n.prog,
			(uint64_t)p.ntypes * p.nops * p.nroots * n.cycles * p.nsizes);
		return CLI_EXIT_USAGE;
	}
	if ((rc = same_file(&n)))
		return rc;
	if (n.json && (rc = cli_output_open(n.prog, n.json, &af)))
		return rc;

	struct nt_run run = {.n = &n, .j = n.json ? &j : NULL, .json_path = n.json};
	const struct cli_table table = {.header = nt_header, .row = nt_row, .ctx = &run};
	const struct cli_sim_as as = {.table = &table, .time_us = row_time_us, .ctx = &n};

	cc_json_init(&j);
	rc = run_all(&n, &p, &as);
	if (rc != CLI_EXIT_USAGE && run.header_done)
		nt_footer(&run);
	if (n.json && rc != CLI_EXIT_USAGE && run.header_done) {
		nt_json_end(&j, &run);
		int err = cli_json_write(&j, &af);

		if (err)
			rc = cli_output_error(n.prog, n.json, err);
	} else if (n.json) {
		cc_atomic_abort(&af);
	}
	cc_json_free(&j);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: cannot write the output: %s\n", n.prog, strerror(errno));
		return CLI_EXIT_FAIL;
	}
	if (rc)
		return rc;
	return run.errors || !nt_bw_ok(&run) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
