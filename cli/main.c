/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/main.c — `cclab COMMAND [OPTIONS]`: finds the command in the table
 * (cli/commands.c) and runs it.  Options are parsed in cli/options.c,
 * help is in cli/usage.c. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/nccl_tests.h"
#include "cli/perftest.h"

static int help(int argc, char **argv)
{
	enum cli_cmd cmd;

	if (argc < 3) {
		cli_usage_main(stdout);
		return CLI_EXIT_OK;
	}
	/* the nccl-tests and perftest programs: their own --help */
	enum cc_coll coll;
	enum cc_p2p_op op;
	enum cc_p2p_mode mode;
	char *prog_help[] = { argv[2], "--help", NULL };

	if (!nt_program(argv[2], &coll))
		return cmd_nccl_tests(2, prog_help);
	if (!pt_program(argv[2], &op, &mode))
		return cmd_perftest(2, prog_help);
	cmd = cli_cmd_lookup(argv[2]);
	if (cmd == CLI_CMD_COUNT) {
		fprintf(stderr, "cclab help: unknown command '%s'\n", argv[2]);
		cli_usage_hint(CLI_CMD_COUNT);
		return CLI_EXIT_USAGE;
	}
	cli_usage(stdout, cmd);
	return CLI_EXIT_OK;
}

int main(int argc, char **argv)
{
	const struct cli_command *c;
	struct cli_opts o;
	enum cli_cmd cmd;
	int rc;

	/* As nccl-tests' main(): every line out at once, so a table row and an
	 * error about it appear in order. */
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* nccl-tests' mode: run as all_reduce_perf (a symlink to cclab), or
	 * `cclab all_reduce_perf ...` (cli/cmd_nccl_tests.c) */
	const char *base = strrchr(argv[0], '/');
	enum cc_coll coll;

	if (!nt_program(base ? base + 1 : argv[0], &coll))
		return cmd_nccl_tests(argc, argv);
	if (argc >= 2 && !nt_program(argv[1], &coll))
		return cmd_nccl_tests(argc - 1, argv + 1);
	/* perftest's mode: ib_write_bw & co. the same way (cli/cmd_perftest.c) */
	enum cc_p2p_op op;
	enum cc_p2p_mode mode;

	if (!pt_program(base ? base + 1 : argv[0], &op, &mode))
		return cmd_perftest(argc, argv);
	if (argc >= 2 && !pt_program(argv[1], &op, &mode))
		return cmd_perftest(argc - 1, argv + 1);
	if (argc < 2) {
		cli_usage_main(stderr);
		return CLI_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return help(argc, argv);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("cclab %s\n", CCLAB_VERSION);
		return CLI_EXIT_OK;
	}
	cmd = cli_cmd_lookup(argv[1]);
	if (cmd == CLI_CMD_COUNT) {
		fprintf(stderr, "cclab: unknown command '%s'\n", argv[1]);
		cli_usage_hint(CLI_CMD_COUNT);
		return CLI_EXIT_USAGE;
	}
	c = &cli_commands[cmd];
	if (c->main)
		return c->main(argc - 1, argv + 1);
	rc = cli_parse(cmd, argc - 1, argv + 1, &o);
	if (rc)
		return rc;
	if (o.help) {
		cli_usage(stdout, cmd);
		return CLI_EXIT_OK;
	}
	return c->run(&o);
}
