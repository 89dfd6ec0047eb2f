/* cli/tune_args.c — the command line of `cclab tune` and its help.  A
 * parser of its own, as `cclab compare` has: one scenario file, its --set
 * overrides, two output files and --all; the scenario says everything
 * else. */
#include <stdio.h>
#include <string.h>

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
		   "the transports.  Each protocol runs with NCCL's slot and chunk for it\n"
		   "unless the scenario sets slot_bytes or chunk_bytes.  A combination the\n"
		   "algorithm does not build (halving-doubling is allreduce only) or the\n"
		   "topology cannot carry (halving-doubling on a ring, which joins\n"
		   "neighbours only) is n/a, not an error.  The scenario's algorithm,\n"
		   "protocol, transport, executors, check and expectations are not used:\n"
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
		   "  -h, --help              this text\n\n"
		   "Exit status: 0 every run completed, 1 a run failed (named on stderr) or a\n"
		   "file could not be written, 2 bad usage, a bad scenario (file:line:col)\n"
		   "or a p2p scenario.\n\n"
		   "Example:\n"
		   "  cclab tune scenarios/demo.yaml --set sizes.max=64MiB --csv tune.csv\n");
}

int tune_parse_args(int argc, char **argv, struct tune_args *a, bool *help)
{
	enum { OPT_SET, OPT_JSON, OPT_CSV, OPT_COUNT };
	static const char *const opts[OPT_COUNT] = {"--set", "--json", "--csv"};
	bool dashdash = false;

	memset(a, 0, sizeof(*a));
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *val;
		size_t o, len = 0;

		if (dashdash || arg[0] != '-' || !arg[1]) {
			if (a->scenario)
				return usage_error("unexpected argument '%s' (one scenario is tuned)",
						   arg);
			a->scenario = arg;
			continue;
		}
		if (!strcmp(arg, "--")) {
			dashdash = true;
			continue;
		}
		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			*help = true;
			return CLI_EXIT_OK;
		}
		if (!strcmp(arg, "--all")) {
			a->all = true;
			continue;
		}
		for (o = 0; o < OPT_COUNT; o++) {
			len = strlen(opts[o]);
			if (!strncmp(arg, opts[o], len) && (!arg[len] || arg[len] == '='))
				break;
		}
		if (o == OPT_COUNT)
			return usage_error("unknown option '%s'", arg);
		if (arg[len] == '=')
			val = arg + len + 1;
		else if (i + 1 < argc)
			val = argv[++i];
		else
			return usage_error("option '%s' needs a value", arg);
		if (!*val)
			return usage_error("option '%s' needs a non-empty value", opts[o]);
		if (o == OPT_SET) {
			if (a->nsets == CLI_MAX_SETS)
				return usage_error("--set: at most %u", CLI_MAX_SETS);
			a->sets[a->nsets++] = val;
		} else if (o == OPT_JSON) {
			a->json = val;
		} else {
			a->csv = val;
		}
	}
	if (!a->scenario)
		return usage_error("expected a scenario file: cclab tune SCENARIO.yaml");
	/* Two atomic writes to one path: the second would silently win. */
	if (a->json && a->csv && !strcmp(a->json, a->csv))
		return usage_error("--json and --csv name the same file '%s'", a->json);
	return CLI_EXIT_OK;
}
