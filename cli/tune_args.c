/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/tune_args.c — the command line of `cclab tune` and its help: one
 * scenario file, its --set overrides, two output files, --all and the
 * layouts to try (read by cli/argv.h); the scenario says everything else. */
#include <stdio.h>
#include <string.h>

#include "cli/argv.h"
#include "cli/cli.h"
#include "cli/tune.h"

/* Every message of this command: "cclab tune: ...", the hint, exit 2. */
#define usage_error(...) cli_usage_error(CLI_TUNE, __VA_ARGS__)

void tune_usage(FILE *f)
{
	fprintf(f, "Usage: cclab tune SCENARIO.yaml [--set KEY=VALUE]... [OPTIONS]\n\n"
		   "The simulator's tuning table: for each size of the scenario's sweep\n"
		   "(sizes: min, max, factor) runs its collective on its topology and fabric\n"
		   "with every algorithm x protocol x transport, and prints one row per\n"
		   "size: the winner, its time and busbw, the runner-up (the fastest of\n"
		   "another algorithm or protocol), the margin (runner-up time / best\n"
		   "time - 1) * 100, and per algorithm and protocol the fastest time over\n"
		   "the transports; the ring once per ring order and channel count\n"
		   "(ring-rail-4ch).  Each protocol runs with NCCL's slot and chunk for it\n"
		   "unless the scenario sets slot_bytes or chunk_bytes.  A combination the\n"
		   "algorithm does not build (halving-doubling is allreduce only) or the\n"
		   "topology cannot carry (halving-doubling on a ring, which joins\n"
		   "neighbours only) is n/a, not an error.  The scenario's algorithm\n"
		   "must build its collective (the file is checked as 'cclab run' checks\n"
		   "it) but, like its protocol, transport, executors, check and\n"
		   "expectations, is not used:\n"
		   "every run is timed only, without carrying data.  The summary names\n"
		   "the sizes each algorithm wins and the protocol fastest with it at each\n"
		   "size.  docs/tune.md has the details.\n\n"
		   "Options:\n"
		   "      --set KEY=VALUE     set a key before the file is read, as if written\n"
		   "                          in it (repeatable): sizes.max=1GiB,\n"
		   "                          fabric.preset=roce-400g\n"
		   "      --json FILE         also write the table to FILE as JSON, atomically\n"
		   "      --csv FILE          also write one CSV line per size x candidate,\n"
		   "                          atomically\n"
		   "      --all               a table column per candidate, not per algorithm\n"
		   "                          and protocol (--json and --csv have them all)\n"
		   "      --channels LIST     run the ring and the tree on each of these\n"
		   "                          channel counts, e.g. 1,2,4 (at most 4; default:\n"
		   "                          the scenario's channels); the other algorithms\n"
		   "                          use one\n"
		   "      --ring-orders LIST  rank, rail or rank,rail: the ring orders to try\n"
		   "                          (default: the scenario's, and rail too on a\n"
		   "                          topology of multi-GPU nodes)\n"
		   "      --jobs N            run up to N candidates of a size at once, each\n"
		   "                          on its own thread (default: one per processor);\n"
		   "                          the output is the same for any N\n"
		   "      --out DIR           under srun or mpirun: spread the runs over the\n"
		   "                          tasks through DIR (a folder every task sees);\n"
		   "                          rank 0 prints the table, the same as one\n"
		   "                          process's (docs/tune.md)\n"
		   "  -h, --help              this text\n\n"
		   "Exit status: 0 every run completed, 1 a run failed (named on stderr) or a\n"
		   "file could not be written, 2 bad usage, a bad scenario (file:line:col)\n"
		   "or a p2p scenario.\n\n"
		   "Example:\n"
		   "  cclab tune scenarios/demo.yaml --set sizes.max=64MiB --csv tune.csv\n");
}

/* The next item of a comma-separated list at *p: its start in *item, its
 * length returned (0 for an empty one); *p moves past it and its comma. */
static size_t next_item(const char **p, const char **item)
{
	const char *s = *p, *e = strchr(s, ',');
	size_t n = e ? (size_t)(e - s) : strlen(s);

	*item = s;
	*p = e ? e + 1 : s + n;
	return n;
}

/* --channels 1,2,4: distinct counts of 1 to 64 (as `cclab sim --channels`), at
 * most TUNE_MAX_CHANNELS.  0, or CLI_EXIT_USAGE after the message. */
static int parse_channels(const char *val, struct tune_args *a)
{
	const char *p = val, *item;
	size_t n;

	a->nchannels = 0;
	while (*p || p == val) {
		unsigned long v = 0;
		size_t i;

		n = next_item(&p, &item);
		for (i = 0; i < n && item[i] >= '0' && item[i] <= '9' && v <= 64; i++)
			v = v * 10 + (unsigned long)(item[i] - '0');
		if (n == 0 || i < n || v < 1 || v > 64)
			return usage_error("invalid value '%s' for --channels: expected channel "
					   "counts of 1 to 64 separated by commas, such as 1,2,4", val);
		for (uint32_t j = 0; j < a->nchannels; j++)
			if (a->channels[j] == v)
				return usage_error("--channels %s: %lu is listed twice", val, v);
		if (a->nchannels == TUNE_MAX_CHANNELS)
			return usage_error("--channels %s: at most %d counts", val, TUNE_MAX_CHANNELS);
		a->channels[a->nchannels++] = (uint32_t)v;
		if (!*p && item[n] == ',')
			return usage_error("invalid value '%s' for --channels: nothing after "
					   "the last comma", val);
	}
	return 0;
}

/* --ring-orders rank,rail: each ring order once.  0, or CLI_EXIT_USAGE. */
static int parse_orders(const char *val, struct tune_args *a)
{
	const char *p = val, *item;
	char name[16];
	size_t n;

	memset(a->order_given, 0, sizeof(a->order_given));
	a->orders_given = true;
	while (*p || p == val) {
		enum cc_ring_order o;

		n = next_item(&p, &item);
		snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) ? n : sizeof(name) - 1),
			 item);
		if (n == 0 || n >= sizeof(name) || cc_ring_order_parse(name, &o))
			return usage_error("invalid value '%s' for --ring-orders: expected rank, "
					   "rail or both, separated by a comma", val);
		if (a->order_given[o])
			return usage_error("--ring-orders %s: %s is listed twice", val, name);
		a->order_given[o] = true;
		if (!*p && item[n] == ',')
			return usage_error("invalid value '%s' for --ring-orders: nothing after "
					   "the last comma", val);
	}
	return 0;
}

/* --jobs N: 1 to TUNE_MAX_JOBS.  0, or CLI_EXIT_USAGE. */
static int parse_jobs(const char *val, struct tune_args *a)
{
	unsigned long v = 0;
	const char *d;

	for (d = val; *d >= '0' && *d <= '9' && v <= TUNE_MAX_JOBS; d++)
		v = v * 10 + (unsigned long)(*d - '0');
	if (*d || v < 1 || v > TUNE_MAX_JOBS)
		return usage_error("invalid value '%s' for --jobs: expected 1 to %d runs at once",
				   val, TUNE_MAX_JOBS);
	a->jobs = (uint32_t)v;
	return 0;
}

int tune_parse_args(int argc, char **argv, struct tune_args *a, bool *help)
{
	enum { O_SET, O_JSON, O_CSV, O_CHANNELS, O_ORDERS, O_JOBS, O_ALL, O_OUT, O_COUNT };
	static const struct cli_argv_opt opts[O_COUNT] = {
		[O_SET] = {.name = "--set", .repeat = true},
		[O_JSON] = {.name = "--json"},
		[O_CSV] = {.name = "--csv"},
		[O_CHANNELS] = {.name = "--channels"},
		[O_ORDERS] = {.name = "--ring-orders"},
		[O_JOBS] = {.name = "--jobs"},
		[O_ALL] = {.name = "--all", .flag = true},
		[O_OUT] = {.name = "--out"},
	};
	struct cli_argv it;
	const char *val;
	int o;

	memset(a, 0, sizeof(*a));
	cli_argv_init(&it, CLI_TUNE, opts, O_COUNT, argc, argv);
	while ((o = cli_argv_next(&it, &val)) != CLI_ARGV_END) {
		switch (o) {
		case CLI_ARGV_ARG:
			if (a->scenario)
				return usage_error("unexpected argument '%s' (one scenario is tuned)",
						   val);
			a->scenario = val;
			break;
		case O_ALL: a->all = true; break;
		case O_OUT: a->out = val; break;
		case O_SET:
			if (a->nsets == CLI_MAX_SETS)
				return usage_error("--set: at most %u", CLI_MAX_SETS);
			a->sets[a->nsets++] = val;
			break;
		case O_JSON: a->json = val; break;
		case O_CSV: a->csv = val; break;
		case O_CHANNELS:
			if (parse_channels(val, a))
				return CLI_EXIT_USAGE;
			break;
		case O_ORDERS:
			if (parse_orders(val, a))
				return CLI_EXIT_USAGE;
			break;
		default:
			if (parse_jobs(val, a))
				return CLI_EXIT_USAGE;
		}
	}
	*help = it.help;
	if (it.help || it.rc)
		return it.rc;
	if (!a->scenario)
		return usage_error("expected a scenario file: cclab tune SCENARIO.yaml");
	/* Two atomic writes to one path: the second would silently win. */
	if (a->json && a->csv && cc_output_same(a->json, a->csv))
		return usage_error("--json and --csv name the same file '%s'", a->json);
	return CLI_EXIT_OK;
}
