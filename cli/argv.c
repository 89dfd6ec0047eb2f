/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/argv.c — the option reader of compare, tune, calibrate and validate
 * (cli/argv.h). */
#include <stdlib.h>
#include <string.h>

#include "cli/argv.h"

void cli_argv_init(struct cli_argv *it, enum cli_cmd cmd, const struct cli_argv_opt *opts,
		   unsigned nopts, int argc, char **argv)
{
	if (nopts > CLI_ARGV_MAX_OPTS)
		abort(); /* a command's table outgrew the reader: raise the limit */
	memset(it, 0, sizeof(*it));
	it->cmd = cmd;
	it->opts = opts;
	it->nopts = nopts;
	it->argc = argc;
	it->argv = argv;
	it->i = 1;
}

/* The option arg names, and where its value starts (NULL: none written
 * with it); nopts when none does. */
static unsigned match(const struct cli_argv *it, const char *arg, const char **spelled,
		      const char **attached)
{
	*attached = NULL;
	for (unsigned o = 0; o < it->nopts; o++) {
		const struct cli_argv_opt *d = &it->opts[o];
		size_t len = strlen(d->name);

		*spelled = d->name;
		if (d->flag && !strcmp(arg, d->name))
			return o;
		if (!d->flag && !strncmp(arg, d->name, len) && (!arg[len] || arg[len] == '=')) {
			*attached = arg[len] ? arg + len + 1 : NULL;
			return o;
		}
	}
	for (unsigned o = 0; o < it->nopts; o++) {
		const char *a = it->opts[o].alias;

		*spelled = a;
		if (a && !strncmp(arg, a, strlen(a))) {
			*attached = arg[strlen(a)] ? arg + strlen(a) : NULL;
			return o;
		}
	}
	return it->nopts;
}

int cli_argv_next(struct cli_argv *it, const char **val)
{
	const char *arg, *spelled;
	unsigned o;

	*val = NULL;
	for (;;) {
		if (it->i >= it->argc)
			return CLI_ARGV_END;
		arg = it->argv[it->i++];
		if (it->dashdash || arg[0] != '-' || !arg[1]) {
			*val = arg;
			return CLI_ARGV_ARG;
		}
		if (strcmp(arg, "--"))
			break;
		it->dashdash = true;
	}
	if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
		it->help = true;
		return CLI_ARGV_END;
	}
	o = match(it, arg, &spelled, val);
	if (o == it->nopts) {
		it->rc = cli_usage_error(it->cmd, "unknown option '%s'", arg);
		return CLI_ARGV_END;
	}
	if (it->opts[o].flag)
		return (int)o;
	if (!*val) {
		if (it->i >= it->argc) {
			it->rc = cli_usage_error(it->cmd, "option '%s' needs a value", arg);
			return CLI_ARGV_END;
		}
		*val = it->argv[it->i++];
	}
	if (!**val) {
		it->rc = cli_usage_error(it->cmd, "option '%s' needs a non-empty value", spelled);
		return CLI_ARGV_END;
	}
	if (it->opts[o].repeat)
		return (int)o;
	if (it->first[o]) {
		it->rc = cli_opt_twice(it->cmd, it->first[o], it->first_value[o], spelled, *val);
		return CLI_ARGV_END;
	}
	it->first[o] = spelled;
	it->first_value[o] = *val;
	return (int)o;
}
