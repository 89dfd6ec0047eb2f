/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/sweep_args.c — `cclab sweep`'s command line: the scenario, --grid
 * KEY=V1,V2,... (repeatable: a product), --set, the results folder, -j,
 * --merge; and the grid's lines in the results folder's sweep.txt. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/argv.h"
#include "util/yaml.h"
#include "cli/sweep.h"
#include "util/files.h"

#define usage_error(...) cli_usage_error(CLI_SWEEP, __VA_ARGS__)

void sweep_usage(FILE *f)
{
	fprintf(f,
		"usage: cclab sweep SCENARIO.yaml --grid KEY=V1,V2,... [--grid ...] [options]\n"
		"       cclab sweep --merge DIR [--json FILE] [--csv FILE]\n"
		"\n"
		"Runs the scenario once per point of the grid: the cartesian product of the\n"
		"--grid values (the first --grid outermost, the last fastest), each point as\n"
		"'cclab run SCENARIO --set KEY=VALUE ...' runs it, and merges the points'\n"
		"results into one CSV and one JSON with the grid's keys as columns, in grid\n"
		"order (docs/cluster.md, \"Sweeps\").  Each point's result is kept in the\n"
		"results folder as it finishes: a rerun skips the points already done.\n"
		"\n"
		"options:\n"
		"  --grid KEY=V1,V2,...  a key of the scenario (as --set names it) and its\n"
		"                        values, comma-separated (repeatable, up to %u keys)\n"
		"  --grid-file FILE      the points listed instead: a YAML list of mappings,\n"
		"                        such as - {algorithm: ring, channels: 8}, each point\n"
		"                        the same keys\n"
		"  --set KEY=VALUE       set a key for every point (repeatable)\n"
		"  --out DIR             the results folder (default: the scenario's file\n"
		"                        name with .sweep for .yaml, in this folder)\n"
		"  -j, --jobs N          points run at once (default: the processors; 1 for\n"
		"                        each task under srun or mpirun)\n"
		"  --json FILE           the merged JSON (default DIR/sweep.json)\n"
		"  --csv FILE            the merged CSV (default DIR/sweep.csv)\n"
		"  --merge DIR           join the points of a results folder (a Slurm job\n"
		"                        array's shares) into the merged files; runs nothing\n"
		"  -h, --help            this text\n"
		"\n"
		"Under a launcher the points are shared out: a Slurm job array's task runs\n"
		"those of SLURM_ARRAY_TASK_ID (then 'cclab sweep --merge DIR'), srun's and\n"
		"mpirun's tasks those of their rank, and rank 0 merges when all are done.\n"
		"\n"
		"Exit status: 0 when every point ran and passed; 1 when one failed (its row in\n"
		"the merged files says why; the others still run); 2 for a bad command line,\n"
		"a point whose scenario is refused (named, before anything runs), or a\n"
		"results folder written by another sweep (the difference named).\n",
		SWEEP_MAX_KEYS);
}

uint64_t sweep_npoints(const struct sweep_args *a)
{
	uint64_t n = 1;

	if (a->list)
		return a->nlist;
	for (uint32_t i = 0; i < a->nkeys; i++)
		n *= a->keys[i].nvals;
	return n;
}

void sweep_point_values(const struct sweep_args *a, uint64_t point, uint32_t *idx)
{
	if (a->list) {
		memcpy(idx, a->list + point * a->nkeys, a->nkeys * sizeof(*idx));
		return;
	}
	for (uint32_t i = a->nkeys; i-- > 0;) {
		idx[i] = (uint32_t)(point % a->keys[i].nvals);
		point /= a->keys[i].nvals;
	}
}

/* KEY=V1,V2,...: each value non-empty, at most SWEEP_VALUE_MAX bytes, not
 * repeated.  0, or -EINVAL with why. */
static int parse_grid(const char *val, struct sweep_key *k, char *why, size_t len)
{
	const char *eq = strchr(val, '='), *p;

	memset(k, 0, sizeof(*k));
	if (!eq || eq == val) {
		snprintf(why, len, "expected KEY=V1,V2,... such as algorithm=ring,tree");
		return -EINVAL;
	}
	if (!eq[1]) {
		snprintf(why, len, "no values after '='");
		return -EINVAL;
	}
	if (memchr(val, '\n', (size_t)(eq - val))) {
		snprintf(why, len, "a key with a line break");
		return -EINVAL;
	}
	k->key = strndup(val, (size_t)(eq - val));
	if (!k->key)
		goto nomem;
	for (p = eq + 1;;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char *v;

		if (memchr(p, '\n', n)) {
			snprintf(why, len, "a value with a line break");
			return -EINVAL;
		}
		if (n == 0 || n > SWEEP_VALUE_MAX) {
			snprintf(why, len, n ? "a value longer than %u bytes" :
				 "an empty value (two commas, or one at an end)", SWEEP_VALUE_MAX);
			return -EINVAL;
		}
		if (k->nvals == SWEEP_MAX_VALUES) {
			snprintf(why, len, "more than %u values", SWEEP_MAX_VALUES);
			return -EINVAL;
		}
		if (!(v = strndup(p, n)))
			goto nomem;
		for (uint32_t i = 0; i < k->nvals; i++)
			if (!strcmp(k->vals[i], v)) {
				snprintf(why, len, "value '%s' is listed twice", v);
				free(v);
				return -EINVAL;
			}
		char **vals = realloc(k->vals, (k->nvals + 1) * sizeof(*vals));

		if (!vals) {
			free(v);
			goto nomem;
		}
		k->vals = vals;
		k->vals[k->nvals++] = v;
		if (!end)
			return 0;
		p = end + 1;
	}
nomem:
	snprintf(why, len, "out of memory");
	return -ENOMEM;
}

static void key_free(struct sweep_key *k)
{
	for (uint32_t i = 0; i < k->nvals; i++)
		free(k->vals[i]);
	free(k->vals);
	free((char *)k->key);
	memset(k, 0, sizeof(*k));
}

void sweep_args_free(struct sweep_args *a)
{
	for (uint32_t i = 0; i < a->nkeys; i++)
		key_free(&a->keys[i]);
	a->nkeys = 0;
	free(a->list);
	a->list = NULL;
	a->nlist = 0;
}

/* Adds --grid val; 0, or -EINVAL/-ENOMEM with why. */
static int add_grid(struct sweep_args *a, const char *val, char *why, size_t len)
{
	struct sweep_key k;
	int rc;

	if (a->nkeys == SWEEP_MAX_KEYS) {
		snprintf(why, len, "at most %u keys", SWEEP_MAX_KEYS);
		return -EINVAL;
	}
	if ((rc = parse_grid(val, &k, why, len))) {
		key_free(&k);
		return rc;
	}
	for (uint32_t i = 0; i < a->nkeys; i++)
		if (!strcmp(a->keys[i].key, k.key)) {
			snprintf(why, len, "key '%s' has a --grid already", k.key);
			key_free(&k);
			return -EINVAL;
		}
	if (sweep_npoints(a) * k.nvals > SWEEP_MAX_POINTS) {
		snprintf(why, len, "more than %u points", SWEEP_MAX_POINTS);
		key_free(&k);
		return -EINVAL;
	}
	a->keys[a->nkeys++] = k;
	return 0;
}

int sweep_parse_args(int argc, char **argv, struct sweep_args *a, bool *help)
{
	enum { O_GRID, O_SET, O_OUT, O_JOBS, O_JSON, O_CSV, O_MERGE, O_GRID_FILE, O_COUNT };
	static const struct cli_argv_opt opts[O_COUNT] = {
		[O_GRID] = {.name = "--grid", .repeat = true},
		[O_SET] = {.name = "--set", .repeat = true},
		[O_OUT] = {.name = "--out"},
		[O_JOBS] = {.name = "--jobs", .alias = "-j"},
		[O_JSON] = {.name = "--json"},
		[O_CSV] = {.name = "--csv"},
		[O_MERGE] = {.name = "--merge"},
		[O_GRID_FILE] = {.name = "--grid-file"},
	};
	struct cli_argv it;
	const char *val;
	char why[160];
	int o;

	memset(a, 0, sizeof(*a));
	*help = false;
	cli_argv_init(&it, CLI_SWEEP, opts, O_COUNT, argc, argv);
	while ((o = cli_argv_next(&it, &val)) != CLI_ARGV_END) {
		switch (o) {
		case CLI_ARGV_ARG:
			if (a->scenario)
				return usage_error("unexpected argument '%s' (one scenario is swept)",
						   val);
			a->scenario = val;
			break;
		case O_GRID:
			if (add_grid(a, val, why, sizeof(why)))
				return usage_error("--grid %s: %s", val, why);
			break;
		case O_SET:
			if (a->nsets == CLI_MAX_SETS)
				return usage_error("--set: at most %u", CLI_MAX_SETS);
			if (strchr(val, '\n'))
				return usage_error("--set: a value with a line break");
			a->sets[a->nsets++] = val;
			break;
		case O_OUT: a->out = val; break;
		case O_JOBS: {
			uint64_t v;

			if (cli_opt_uint(CLI_SWEEP, "--jobs", val, 1, CLI_MAX_JOBS, &v))
				return CLI_EXIT_USAGE;
			a->jobs = (uint32_t)v;
			break;
		}
		case O_JSON: a->json = val; break;
		case O_GRID_FILE: a->grid_file = val; break;
		case O_CSV: a->csv = val; break;
		default: a->merge = val; break;
		}
	}
	*help = it.help;
	if (it.help || it.rc)
		return it.rc;
	if (a->json && a->csv && cc_output_same(a->json, a->csv))
		return usage_error("--json and --csv name the same file '%s'", a->json);
	if (a->merge) {
		if (a->scenario || a->nkeys || a->nsets || a->out || a->jobs || a->grid_file)
			return usage_error("--merge DIR joins a results folder: it takes no scenario, "
					   "--grid, --set, --out or --jobs (the folder has them)");
		return CLI_EXIT_OK;
	}
	if (!a->scenario)
		return usage_error("expected a scenario file: cclab sweep SCENARIO.yaml --grid "
				   "KEY=V1,V2,...");
	if (a->grid_file && a->nkeys)
		return usage_error("--grid and --grid-file: the points come from one or the other");
	if (a->grid_file) {
		struct cy_error err;
		int rc = sweep_grid_file(a, a->grid_file, &err);

		if (rc) {
			fprintf(stderr, "cclab sweep: --grid-file %s\n", err.msg);
			return rc == -ENOMEM ? CLI_EXIT_FAIL : CLI_EXIT_USAGE;
		}
	}
	if (!a->nkeys)
		return usage_error("expected at least one --grid KEY=V1,V2,... or a --grid-file "
				   "(a single run is 'cclab run %s')", a->scenario);
	/* each point is 'cclab run' with all of them as --set */
	if (a->nsets + a->nkeys > CLI_MAX_SETS)
		return usage_error("%u --set and %u --grid keys: a point takes at most %u --set in "
				   "all", a->nsets, a->nkeys, CLI_MAX_SETS);
	return CLI_EXIT_OK;
}

void sweep_grid_line(const struct sweep_args *a, uint32_t i, FILE *f)
{
	if (a->list) { /* the file is copied beside it: grid.yaml */
		if (i == 0)
			fprintf(f, "grid-file: %s\n", a->grid_file);
		return;
	}
	fprintf(f, "grid: %s=", a->keys[i].key);
	for (uint32_t v = 0; v < a->keys[i].nvals; v++)
		fprintf(f, "%s%s", v ? "," : "", a->keys[i].vals[v]);
	fputc('\n', f);
}

int sweep_args_from_manifest(char *text, struct sweep_args *a, char *why, size_t len)
{
	char *line = text;

	while (*line) {
		char *end = strchr(line, '\n');

		if (end)
			*end = '\0';
		if (!strncmp(line, "scenario: ", 10)) {
			a->scenario = line + 10;
		} else if (!strncmp(line, "set: ", 5) && a->nsets < CLI_MAX_SETS) {
			a->sets[a->nsets++] = line + 5;
		} else if (!strncmp(line, "grid-file: ", 11)) {
			a->grid_file = line + 11;
		} else if (!strncmp(line, "grid: ", 6)) {
			int rc = add_grid(a, line + 6, why, len);

			if (rc)
				return rc;
		}
		if (!end)
			break;
		line = end + 1;
	}
	if (!a->scenario || (!a->nkeys && !a->grid_file)) {
		snprintf(why, len, "no %s line", a->scenario ? "grid" : "scenario");
		return -EINVAL;
	}
	return 0;
}
