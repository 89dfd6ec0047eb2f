/* cli/compare_args.c — the command line of `cclab compare` and its help.
 * A parser of its own, as `cclab p2p` and `cclab devices` have: two
 * positional files and four options, none of nccl-tests' loop. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/compare.h"

/* Every message of this command: "cclab compare: ...", the hint, exit 2. */
#define usage_error(...) cli_usage_error(CLI_COMPARE, __VA_ARGS__)

void compare_usage(FILE *f)
{
	fprintf(f, "Usage: cclab compare MEASURED.json PREDICTED.json [OPTIONS]\n\n"
		   "Puts two result files side by side, size by size: typically a measured one\n"
		   "('cclab run ... --json', real devices) and a predicted one ('cclab sim ...\n"
		   "--json').  Both must be of the same collective, ranks, type and operator\n"
		   "(else exit status 2); a different transport, chunk, slot or memory is only\n"
		   "warned about.  Sizes present in one file only are listed on stderr and\n"
		   "skipped.  For each common size: both times, the error\n"
		   "(predicted - measured) / measured * 100, both busbw and the measured #wrong;\n"
		   "then the mean and the largest |error|.  docs/compare.md has the details.\n\n"
		   "Options:\n"
		   "      --trace-measured FILE.csv   with --trace-predicted: per-phase tables of\n"
		   "      --trace-predicted FILE.csv  the traced size (--trace FILE.csv of each run,\n"
		   "                                  its last size): per primitive step and per\n"
		   "                                  mechanism (post->cqe, cqe->poll, doorbell,\n"
		   "                                  reduce, copy)\n"
		   "      --csv FILE                  also write one CSV line per common size,\n"
		   "                                  atomically\n"
		   "      --max-error PCT             exit status 1 if any size's |error| exceeds\n"
		   "                                  PCT percent\n"
		   "  -h, --help                      this text\n\n"
		   "Exit status: 0 compared (and within --max-error); 1 beyond --max-error,\n"
		   "nothing compared (every size N/A) or the CSV could not be written; 2 bad\n"
		   "usage, a file that is not a collective's result (a time of 0 or less, a\n"
		   "trace rank the run does not have) or two runs that do not compare.\n\n"
		   "Example:\n"
		   "  cclab run -n 4 -b 64K -e 64M --json measured.json --trace measured.csv\n"
		   "  cclab sim -n 4 -b 64K -e 64M --fabric roce-100g --json predicted.json \\\n"
		   "      --trace predicted.csv\n"
		   "  cclab compare measured.json predicted.json --max-error 15 \\\n"
		   "      --trace-measured measured.csv --trace-predicted predicted.csv\n");
}

/* A percentage: a plain non-negative decimal ("10", "2.5"). */
static bool parse_pct(const char *s, double *out)
{
	char *end;

	if (!(*s >= '0' && *s <= '9') && *s != '.')
		return false;
	errno = 0;
	*out = strtod(s, &end);
	return !*end && !errno && isfinite(*out);
}

int cmp_parse_args(int argc, char **argv, struct cmp_args *a, bool *help)
{
	static const char *const opts[] = {"--trace-measured", "--trace-predicted", "--csv",
					   "--max-error"};
	static struct cli_once once;
	int npos = 0;
	bool dashdash = false;

	memset(a, 0, sizeof(*a));
	memset(&once, 0, sizeof(once));
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *val = NULL;
		size_t o, len;

		if (dashdash || arg[0] != '-' || !arg[1]) {
			if (npos == 2)
				return usage_error("unexpected argument '%s' (two files are compared)",
						   arg);
			a->file[npos++] = arg;
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
		for (o = 0; o < sizeof(opts) / sizeof(opts[0]); o++) {
			len = strlen(opts[o]);
			if (!strncmp(arg, opts[o], len) && (!arg[len] || arg[len] == '='))
				break;
		}
		if (o == sizeof(opts) / sizeof(opts[0]))
			return usage_error("unknown option '%s'", arg);
		if (arg[len] == '=')
			val = arg + len + 1;
		else if (i + 1 < argc)
			val = argv[++i];
		else
			return usage_error("option '%s' needs a value", arg);
		if (!*val)
			return usage_error("option '%s' needs a non-empty value", opts[o]);
		if (cli_opt_once(CLI_COMPARE, &once, (int)o, opts[o], val))
			return CLI_EXIT_USAGE;
		if (o < 2)
			a->trace[o] = val;
		else if (o == 2)
			a->csv = val;
		else if (!parse_pct(val, &a->max_err))
			return usage_error("--max-error: '%s' is not a percentage (a number >= 0, "
					   "such as 10 or 2.5)", val);
		else
			a->have_max = true;
	}
	if (npos < 2)
		return usage_error("expected two result files: MEASURED.json PREDICTED.json");
	if (!a->trace[0] != !a->trace[1])
		return usage_error("%s needs its partner: the per-phase tables compare two traces",
				   a->trace[0] ? "--trace-measured" : "--trace-predicted");
	return CLI_EXIT_OK;
}
