/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/argv.h — the option reader of the commands with a few long options
 * of their own (compare, calibrate, validate), one option at a time
 * as getopt() hands them out, so each command keeps its own switch.
 *
 * What it accepts (as those commands' hand-written loops did): `--name
 * VALUE` and `--name=VALUE`, exactly the name (no abbreviations, unlike
 * getopt_long); a short alias with its value next or attached (`-o FILE`,
 * `-oFILE`); flags without a value; -h/--help; `--` ends the options; any
 * other word, and "-" alone, is an argument.  A value may not be empty,
 * and an option not marked repeatable may be given once (the message of
 * cli_opt_once()).  Every refusal is one message "cclab CMD: ..." naming
 * the option as written, and the help hint: the caller returns
 * CLI_EXIT_USAGE.
 *
 * `cclab schedule|check|sim|run|tune` and `cclab p2p` take nccl-tests' and
 * perftest's short options through getopt_long (cli/options.c,
 * cli/p2p_options.c): clusters (-n4), abbreviations, a grammar of their
 * own that this reader does not reproduce (tune: sim's options beside
 * its own). */
#ifndef CCLAB_CLI_ARGV_H
#define CCLAB_CLI_ARGV_H

#include <stdbool.h>

#include "cli/cli.h"

#define CLI_ARGV_MAX_OPTS 16

struct cli_argv_opt {
	const char *name;  /* "--json" */
	const char *alias; /* "-o", or NULL */
	bool flag;         /* takes no value ("--all"); may be repeated */
	bool repeat;       /* may be given more than once ("--set") */
};

/* What cli_argv_next() returns besides an option's index. */
enum { CLI_ARGV_END = -1, CLI_ARGV_ARG = -2 };

struct cli_argv {
	enum cli_cmd cmd;
	const struct cli_argv_opt *opts;
	unsigned nopts;
	int argc, i;
	char **argv;
	bool dashdash;
	bool help; /* stopped at -h/--help */
	int rc;    /* stopped at an error: CLI_EXIT_USAGE, after the message */
	/* each option's first spelling and value, for "given twice" */
	const char *first[CLI_ARGV_MAX_OPTS], *first_value[CLI_ARGV_MAX_OPTS];
};

/* argv[0] is the command's name; reading starts at argv[1]. */
void cli_argv_init(struct cli_argv *it, enum cli_cmd cmd, const struct cli_argv_opt *opts,
		   unsigned nopts, int argc, char **argv);
/* The next option's index in opts (*val its value, NULL for a flag);
 * CLI_ARGV_ARG (*val the argument); or CLI_ARGV_END at the end, at
 * -h/--help (it->help set) and at an error (it->rc set, after the
 * message): the caller stops there and returns it->rc when either is
 * set. */
int cli_argv_next(struct cli_argv *it, const char **val);

#endif
