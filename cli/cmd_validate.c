/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/cmd_validate.c — `cclab validate [DIR...]` (cli/validate.h,
 * docs/validation.md): the command line, the run of every case, the
 * report, and the baseline gate that `make test` holds the model to. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/argv.h"
#include "cli/check.h"
#include "cli/validate.h"
#include "util/files.h"
#include "util/units.h"

#define VAL_DEFAULT_MAX_ITERS 200u

static void usage(FILE *f)
{
	fprintf(f,
		"usage: cclab validate [DIR...] [options]\n"
		"\n"
		"Simulates every case of a corpus of published measurements at the sizes it\n"
		"measured and prints measured beside predicted: per case its sizes and its\n"
		"errors, over the corpus each class's median and worst (docs/validation.md).\n"
		"A DIR with a scenario.yaml is one case; any other DIR holds cases, one per\n"
		"subfolder.  Default: validation.\n"
		"\n"
		"options:\n"
		"  --set KEY=VALUE       set a key of every case's scenario (repeatable), e.g.\n"
		"                        --set fabric.rnic.req_proc_ps=300ns\n"
		"  --max-bytes SIZE      simulate sizes up to SIZE only (default: all; a case\n"
		"                        whose sizes are all larger runs its smallest)\n"
		"  --max-iters N         perftest iterations simulated, at most (default %u)\n"
		"  --wall-limit SECONDS  real time one size may take (default %u)\n"
		"  --json FILE           the report as JSON (schema_version 1)\n"
		"  --csv FILE            one line per case and size (scripts/plot.sh validate)\n"
		"  --baseline FILE       fail (exit 1) when a class's median |error| is worse than\n"
		"                        FILE's by more than --tolerance percentage points\n"
		"  --write-baseline FILE write this run's medians as a baseline\n"
		"  --tolerance PP        percentage points a median may worsen (default 1)\n"
		"  --jobs N              cases simulated at once (default: the processors)\n"
		"  --model packet|flow   the simulator's model for the collective cases (default:\n"
		"                        each case's, packet); perftest cases stay packet-level\n"
		"  --quiet               each case's figures and the summary, without its sizes\n"
		"  -h, --help            this text\n"
		"\n"
		"Exit status: 0; 1 when a measured size could not be simulated, or the baseline\n"
		"gate failed; 2 for a bad command line or a broken case (its file, line and\n"
		"column named).\n",
		VAL_DEFAULT_MAX_ITERS, CLI_DEFAULT_WALL_LIMIT_S);
}

/* Every message of this command: "cclab validate: ...", the hint, exit 2. */
#define usage_error(...) cli_usage_error(CLI_VALIDATE, __VA_ARGS__)

static int parse_args(int argc, char **argv, struct val_args *a, bool *help)
{
	enum { O_SET, O_JSON, O_CSV, O_BASE, O_WBASE, O_MAXB, O_ITERS, O_WALL, O_TOL, O_JOBS,
	       O_QUIET, O_MODEL, O_COUNT };
	static const struct cli_argv_opt opts[O_COUNT] = {
		[O_SET] = {.name = "--set", .repeat = true},
		[O_JSON] = {.name = "--json"},
		[O_CSV] = {.name = "--csv"},
		[O_BASE] = {.name = "--baseline"},
		[O_WBASE] = {.name = "--write-baseline"},
		[O_MAXB] = {.name = "--max-bytes"},
		[O_ITERS] = {.name = "--max-iters"},
		[O_WALL] = {.name = "--wall-limit"},
		[O_TOL] = {.name = "--tolerance"},
		[O_JOBS] = {.name = "--jobs"},
		[O_QUIET] = {.name = "--quiet", .flag = true},
		[O_MODEL] = {.name = "--model"},
	};
	struct cli_argv it;
	const char *val;
	int o;

	memset(a, 0, sizeof(*a));
	a->max_iters = VAL_DEFAULT_MAX_ITERS;
	a->wall_limit_ms = (uint64_t)CLI_DEFAULT_WALL_LIMIT_S * 1000u;
	a->tolerance_pp = 1;
	cli_argv_init(&it, CLI_VALIDATE, opts, O_COUNT, argc, argv);
	while ((o = cli_argv_next(&it, &val)) != CLI_ARGV_END) {
		uint64_t v;
		char *end;

		switch (o) {
		case CLI_ARGV_ARG:
			if (a->ndirs == VAL_MAX_DIRS)
				return usage_error("more than %u folders", VAL_MAX_DIRS);
			a->dirs[a->ndirs++] = val;
			break;
		case O_QUIET:
			a->quiet = true;
			break;
		case O_SET:
			if (a->nsets == CLI_MAX_SETS)
				return usage_error("--set: at most %u", CLI_MAX_SETS);
			a->sets[a->nsets++] = val;
			break;
		case O_MODEL:
			if (cc_sim_model_parse(val, &a->model))
				return usage_error("invalid value '%s' for --model: expected packet or "
						   "flow", val);
			a->model_given = true;
			break;
		case O_JSON: a->json = val; break;
		case O_CSV: a->csv = val; break;
		case O_BASE: a->baseline = val; break;
		case O_WBASE: a->write_baseline = val; break;
		case O_MAXB:
			if (cc_parse_size(val, &v) || !v)
				return usage_error("invalid value '%s' for --max-bytes: expected a size "
						   "such as 1G", val);
			a->max_bytes = v;
			break;
		case O_ITERS:
			errno = 0;
			v = strtoull(val, &end, 10);
			if (*end || errno || val[0] < '0' || val[0] > '9' || v < 2 || v > 1000000)
				return usage_error("invalid value '%s' for --max-iters: expected 2 to "
						   "1000000", val);
			a->max_iters = (uint32_t)v;
			break;
		case O_WALL:
			if (cli_opt_wall_limit(CLI_VALIDATE, "--wall-limit", val, &a->wall_limit_ms))
				return CLI_EXIT_USAGE;
			break;
		case O_JOBS:
			errno = 0;
			v = strtoull(val, &end, 10);
			if (*end || errno || val[0] < '0' || val[0] > '9' || v < 1 || v > VAL_MAX_JOBS)
				return usage_error("invalid value '%s' for --jobs: expected 1 to %u cases "
						   "at once", val, VAL_MAX_JOBS);
			a->jobs = (uint32_t)v;
			break;
		default: {
			double d;

			errno = 0;
			d = strtod(val, &end);
			if (*end || errno || !isfinite(d) || d < 0 || d > 1000)
				return usage_error("invalid value '%s' for --tolerance: expected "
						   "percentage points, 0 to 1000", val);
			a->tolerance_pp = d;
		}
		}
	}
	*help = it.help;
	if (it.help || it.rc)
		return it.rc;
	if (a->json && a->csv && cc_output_same(a->json, a->csv))
		return usage_error("--json and --csv name the same file '%s'", a->json);
	return CLI_EXIT_OK;
}

/* ---- the baseline: "class,cases,median_abs_pct" per line ---- */

static int read_baseline(const char *path, double median[VAL_CLASS_COUNT],
			 bool have[VAL_CLASS_COUNT])
{
	char line[256], name[32];
	unsigned n, lineno = 0;
	double m;
	FILE *f = NULL;
	int fd, rc;

	memset(have, 0, sizeof(bool) * VAL_CLASS_COUNT);
	if ((rc = cc_input_open(path, &fd)) || !(f = fdopen(fd, "r"))) {
		fprintf(stderr, "cclab validate: cannot read '%s': %s\n", path,
			cc_file_strerror(rc ? rc : -errno));
		return CLI_EXIT_USAGE;
	}
	while (fgets(line, sizeof(line), f)) {
		int k;

		lineno++;
		if (lineno == 1 && !strcmp(line, "class,cases,median_abs_pct\n"))
			continue;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%31[a-z],%u,%lf", name, &n, &m) != 3 || !isfinite(m) || m < 0) {
			fprintf(stderr, "cclab validate: %s:%u: expected class,cases,median_abs_pct\n",
				path, lineno);
			fclose(f);
			return CLI_EXIT_USAGE;
		}
		for (k = 0; k < VAL_CLASS_COUNT && strcmp(name, val_class_name[k]); k++)
			;
		if (k == VAL_CLASS_COUNT) {
			fprintf(stderr, "cclab validate: %s:%u: unknown class '%s' (large, small, "
				"half)\n", path, lineno, name);
			fclose(f);
			return CLI_EXIT_USAGE;
		}
		have[k] = true;
		median[k] = m;
	}
	fclose(f);
	return 0;
}

static int write_baseline(const char *path, const struct val_class_sum sum[VAL_CLASS_COUNT])
{
	struct cc_atomic_file af;
	int rc = cli_output_open("validate", path, &af);

	if (rc)
		return rc;
	fputs("class,cases,median_abs_pct\n", af.f);
	for (int k = 0; k < VAL_CLASS_COUNT; k++)
		if (sum[k].n)
			fprintf(af.f, "%s,%u,%.1f\n", val_class_name[k], sum[k].n,
				sum[k].median_abs_pct);
	return cli_output_commit("validate", path, &af);
}

/* The gate: a class whose median |error| grew past the stored one by more
 * than the tolerance fails the run: a change that hurts fidelity is seen. */
static bool gate(const struct val_args *a, const struct val_class_sum sum[VAL_CLASS_COUNT],
		 const double median[VAL_CLASS_COUNT], const bool have[VAL_CLASS_COUNT])
{
	bool ok = true;

	printf("#\n# baseline %s (tolerance %.1f percentage points):\n", a->baseline,
	       a->tolerance_pp);
	for (int k = 0; k < VAL_CLASS_COUNT; k++) {
		if (!have[k])
			continue;
		if (!sum[k].n) {
			printf("# %-6s FAILED: no case has this class now (baseline %.1f %%)\n",
			       val_class_name[k], median[k]);
			ok = false;
			continue;
		}
		bool worse = sum[k].median_abs_pct > median[k] + a->tolerance_pp + 0.05;

		printf("# %-6s median |err| %.1f %%, baseline %.1f %%: %s\n", val_class_name[k],
		       sum[k].median_abs_pct, median[k],
		       worse ? "FAILED, worse" : sum[k].median_abs_pct < median[k] - 0.05
		       ? "better (update the baseline)" : "as before");
		ok = ok && !worse;
	}
	return ok;
}

/* Cases run on --jobs threads, each taking the next case not taken; the
 * report is printed afterwards in the cases' order, so it is the same for
 * any --jobs. */
struct pool {
	const struct val_args *a;
	struct val_case *c;
	uint32_t *order; /* the costliest first, so the last to finish is a small one */
	uint32_t n, next, done;
	bool tty;
	pthread_mutex_t lock;
};

/* A case's simulation work, roughly: the bytes it moves, all ranks, all
 * sizes simulated (a perftest test: one pair, its iterations). */
static double cost(const struct val_args *a, const struct val_case *c)
{
	double w = 0;

	for (uint32_t i = 0; i < c->npts; i++) {
		uint64_t s = c->pts[i].size;

		if (!c->pts[i].measured || (a->max_bytes && s > a->max_bytes))
			continue;
		w += c->kind == VAL_COLL ? (double)s * c->sc.p.nranks
					 : (double)s * (a->max_iters < c->sc.p2p.iters ? a->max_iters
										       : c->sc.p2p.iters);
	}
	return w;
}

static const struct val_args *sort_args;
static const struct val_case *sort_cases;

static int costlier(const void *x, const void *y)
{
	double a = cost(sort_args, &sort_cases[*(const uint32_t *)x]);
	double b = cost(sort_args, &sort_cases[*(const uint32_t *)y]);

	return (a < b) - (a > b);
}

static void *worker(void *arg)
{
	struct pool *p = arg;
	uint32_t i;

	while ((i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) < p->n) {
		i = p->order ? p->order[i] : i;
		val_case_run(p->a, &p->c[i]);
		val_case_score(&p->c[i]);
		pthread_mutex_lock(&p->lock);
		p->done++;
		if (p->tty)
			fprintf(stderr, "\r\033[K[%u/%u] %s done", p->done, p->n, p->c[i].name);
		pthread_mutex_unlock(&p->lock);
	}
	return NULL;
}

static void run_all(const struct val_args *a, struct val_case *c, uint32_t n, bool tty)
{
	struct pool p = { .a = a, .c = c, .n = n, .tty = tty, .lock = PTHREAD_MUTEX_INITIALIZER };
	uint32_t jobs = a->jobs ? a->jobs : cli_default_jobs(), started = 0;
	pthread_t t[VAL_MAX_JOBS];

	p.order = malloc((n ? n : 1) * sizeof(*p.order));
	if (!p.order) /* in file order, on this thread alone */
		jobs = 1;
	for (uint32_t i = 0; p.order && i < n; i++)
		p.order[i] = i;
	sort_args = a;
	sort_cases = c;
	if (p.order)
		qsort(p.order, n, sizeof(*p.order), costlier);
	if (jobs > n)
		jobs = n;
	if (jobs > VAL_MAX_JOBS)
		jobs = VAL_MAX_JOBS;
	for (uint32_t i = 1; i < jobs; i++)
		if (!pthread_create(&t[started], NULL, worker, &p))
			started++;
	worker(&p); /* this thread too; with no other, it runs them all */
	for (uint32_t i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	free(p.order);
	if (tty)
		fputs("\r\033[K", stderr);
}

static int run(const struct val_args *a)
{
	struct val_class_sum sum[VAL_CLASS_COUNT];
	struct cc_atomic_file jf = {0}, cf = {0};
	struct val_case *c = NULL;
	double median[VAL_CLASS_COUNT];
	bool have[VAL_CLASS_COUNT] = {0}, tty = isatty(STDERR_FILENO);
	uint32_t n = 0, unpredicted = 0;
	int rc = val_cases_load(a, &c, &n);

	if (!rc && a->baseline)
		rc = read_baseline(a->baseline, median, have);
	if (!rc && a->json)
		rc = cli_output_open("validate", a->json, &jf);
	if (!rc && a->csv && (rc = cli_output_open("validate", a->csv, &cf)) && a->json)
		cc_atomic_abort(&jf);
	if (!rc && a->write_baseline)
		rc = cli_output_check("validate", a->write_baseline);
	if (rc) {
		val_cases_free(c, n);
		return rc;
	}
	printf("# cclab %s validate: %u cases; sizes up to %s simulated, perftest at most %u "
	       "iterations\n", CCLAB_VERSION, n, a->max_bytes ? "--max-bytes" : "the largest",
	       a->max_iters);
	if (a->model_given && a->model == CC_SIM_MODEL_FLOW)
		printf("# model: flow for the collective cases (docs/simulator.md, The flow model); "
		       "perftest cases on the packet model\n");
	run_all(a, c, n, tty);
	for (uint32_t i = 0; i < n; i++) {
		printf("#\n");
		val_print_case(stdout, &c[i], !a->quiet);
		for (uint32_t p = 0; p < c[i].npts; p++) {
			const struct val_point *pt = &c[i].pts[p];

			if (pt->measured && !pt->predicted &&
			    strcmp(pt->status, VAL_ABOVE_CAP)) {
				fprintf(stderr, "cclab validate: %s: %" PRIu64 " bytes: not predicted: "
					"%s\n", c[i].name, pt->size, pt->status);
				unpredicted++;
			}
		}
	}
	val_classes(c, n, sum);
	val_print_summary(stdout, c, n, sum);
	if (a->csv) {
		val_csv(cf.f, c, n);
		rc = cli_output_commit("validate", a->csv, &cf);
	}
	if (a->json) {
		struct cc_json j;
		int err;

		cc_json_init(&j);
		val_json(&j, a, c, n, sum);
		if ((err = cli_json_end(&j, &jf, !unpredicted)))
			rc = cli_output_error("validate", a->json, err);
		cc_json_free(&j);
	}
	if (!rc && a->write_baseline)
		rc = write_baseline(a->write_baseline, sum);
	if (!rc && a->baseline && !gate(a, sum, median, have))
		rc = CLI_EXIT_FAIL;
	if (!rc && unpredicted) {
		fprintf(stderr, "cclab validate: %u measured sizes could not be simulated (above)\n",
			unpredicted);
		rc = CLI_EXIT_FAIL;
	}
	val_cases_free(c, n);
	return rc;
}

int cmd_validate(int argc, char **argv)
{
	struct val_args a;
	bool help = false;
	int rc = parse_args(argc, argv, &a, &help);

	if (rc || help) {
		if (help)
			usage(stdout);
		return rc;
	}
	return run(&a);
}

void validate_usage(FILE *f)
{
	usage(f);
}
