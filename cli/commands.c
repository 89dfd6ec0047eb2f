/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/commands.c — the table of cclab's commands: what `cclab NAME` runs,
 * its --help, and its lines in `cclab help`.  A new command is one entry
 * here, one value of enum cli_cmd (cli/cli.h) and its cmd_*.c. */
#include <string.h>

#include "cli/cli.h"
#include "cli/p2p.h"

const struct cli_command cli_commands[CLI_CMD_COUNT] = {
	[CLI_SCHEDULE] = {
		.name = "schedule", .run = cmd_schedule,
		.forms = {{"", "build one collective's schedule and print it"}},
	},
	[CLI_CHECK] = {
		.name = "check", .run = cmd_check,
		.forms = {{"", "run a range of sizes on the data executor and count wrong\n"
			       "output elements; prints nccl-tests' table"}},
	},
	[CLI_SIM] = {
		.name = "sim", .run = cmd_sim,
		.forms = {{"", "the same on the simulator: simulated time, algbw and busbw\n"
			       "of a modelled fabric (InfiniBand, RoCE) in nccl-tests' table"}},
	},
	[CLI_RUN] = {
		.name = "run", .run = cmd_run, .usage = run_usage,
		.forms = {{"SCENARIO", "run a scenario file (YAML: topology, fabric, collective,\n"
				       "sizes, expectations; docs/yaml.md) on its executors"},
			  {"-n K", "without a scenario: the collective on real RDMA devices\n"
				   "(libibverbs), K local ranks or the launcher's (srun, mpirun)"}},
	},
	/* perftest's options, not nccl-tests' */
	[CLI_P2P] = {
		.name = "p2p", .main = cmd_p2p, .usage = p2p_usage,
		.forms = {{"", "one verbs operation between two ranks, timed as perftest\n"
			       "does (ib_write_bw, ib_read_lat, ...) on the simulator"}},
	},
	[CLI_DEVICES] = {
		.name = "devices", .main = cmd_devices, .usage = devices_usage,
		.forms = {{"", "this host's RDMA devices, ports and GIDs (libibverbs)"}},
	},
	[CLI_COMPARE] = {
		.name = "compare", .main = cmd_compare, .usage = compare_usage,
		.forms = {{"M P", "a measured result file (M.json) beside a predicted one"}},
	},
	[CLI_CALIBRATE] = {
		.name = "calibrate", .main = cmd_calibrate, .usage = calibrate_usage,
		.forms = {{"F...", "a fabric file fitted to measured p2p results (F.json)"}},
	},
	[CLI_TUNE] = {
		.name = "tune", .main = cmd_tune, .usage = tune_usage,
		.forms = {{"SCENARIO", "every algorithm x protocol x transport of a scenario on\n"
				       "the simulator: the winner at each size and its margin\n"
				       "over the runner-up"},
			  {"-n K", "the same without a scenario: the setting of sim's options"}},
	},
	[CLI_VALIDATE] = {
		.name = "validate", .main = cmd_validate, .usage = validate_usage,
		.forms = {{"[DIR]", "a corpus of published nccl-tests and perftest results\n"
				    "(validation/), each simulated: measured beside predicted"}},
	},
	[CLI_SWEEP] = {
		.name = "sweep", .main = cmd_sweep, .usage = sweep_usage,
		.forms = {{"SCENARIO", "a scenario run at every point of a grid of --set values\n"
				       "(-j, Slurm, MPI), merged into one CSV and JSON"}},
	},
};

const char *cli_cmd_name(enum cli_cmd cmd)
{
	return cmd < CLI_CMD_COUNT ? cli_commands[cmd].name : "?";
}

enum cli_cmd cli_cmd_lookup(const char *name)
{
	for (int c = 0; c < CLI_CMD_COUNT; c++)
		if (!strcmp(name, cli_commands[c].name))
			return (enum cli_cmd)c;
	return CLI_CMD_COUNT;
}
