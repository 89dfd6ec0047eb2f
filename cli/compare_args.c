/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/compare_args.c — the command line of `cclab compare` and its help.
 * Two positional files and four options, none of nccl-tests' loop: read
 * by cli/argv.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/argv.h"
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
	enum { O_TRACE_M, O_TRACE_P, O_CSV, O_MAX, O_COUNT };
	static const struct cli_argv_opt opts[O_COUNT] = {
		[O_TRACE_M] = {.name = "--trace-measured"},
		[O_TRACE_P] = {.name = "--trace-predicted"},
		[O_CSV] = {.name = "--csv"},
		[O_MAX] = {.name = "--max-error"},
	};
	struct cli_argv it;
	const char *val;
	int npos = 0, o;

	memset(a, 0, sizeof(*a));
	cli_argv_init(&it, CLI_COMPARE, opts, O_COUNT, argc, argv);
	while ((o = cli_argv_next(&it, &val)) != CLI_ARGV_END) {
		switch (o) {
		case CLI_ARGV_ARG:
			if (npos == 2)
				return usage_error("unexpected argument '%s' (two files are compared)",
						   val);
			a->file[npos++] = val;
			break;
		case O_TRACE_M:
		case O_TRACE_P:
			a->trace[o - O_TRACE_M] = val;
			break;
		case O_CSV:
			a->csv = val;
			break;
		default:
			if (!parse_pct(val, &a->max_err))
				return usage_error("--max-error: '%s' is not a percentage (a number "
						   ">= 0, such as 10 or 2.5)", val);
			a->have_max = true;
		}
	}
	*help = it.help;
	if (it.help || it.rc)
		return it.rc;
	if (npos < 2)
		return usage_error("expected two result files: MEASURED.json PREDICTED.json");
	if (!a->trace[0] != !a->trace[1])
		return usage_error("%s needs its partner: the per-phase tables compare two traces",
				   a->trace[0] ? "--trace-measured" : "--trace-predicted");
	return CLI_EXIT_OK;
}
