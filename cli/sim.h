/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/sim.h — pieces of `cclab sim` shared between its files: the --json
 * report (cli/sim_json.c) that cli/cmd_sim.c fills size by size. */
#ifndef CCLAB_CLI_SIM_H
#define CCLAB_CLI_SIM_H

#include <stdbool.h>

#include "cli/check.h"
#include "sim/exec.h"

/* Every field of the fabric, by its key ("link.rate_bps"), in the field
 * table's order: what `sim`, `run` and `p2p` record as "fabric". */
/* sim/event.h engine flags from the environment: CCLAB_SIM_TIES=lifo
 * reverses the order of same-time events (the determinism test's switch). */
unsigned cli_sim_engine_flags(void);

void sim_fabric_json(struct cc_json *j, const struct sim_params *p);

/* cli_json_begin() plus the simulator's parameters ("fabric": every field
 * of the resolved preset, "topology", "check"), then opens "sizes". */
void sim_json_begin(struct cc_json *j, const struct cli_opts *o);

/* One size's entry.  bound_ps is sim_bound_ps() of the schedule;
 * bound_checked says whether the run was held against it (only completed
 * runs are), bound_ok whether it stayed within it. */
void sim_json_size(struct cc_json *j, const struct cc_result_row *row,
		   const struct cc_sim_result *res, sim_time_ps bound_ps, bool bound_checked,
		   bool bound_ok);

/* `cclab sim` for a front end of its own (nccl-tests' mode,
 * cli/cmd_nccl_tests.c): its table instead of cclab's (NULL: cclab's), and
 * the time a completed row shows from the simulator's result (NULL: the
 * time every rank was done, res->time_ps).  cmd_sim() is this with NULL. */
struct cli_sim_as {
	const struct cli_table *table;
	double (*time_us)(void *ctx, const struct cc_sim_result *res);
	void *ctx;
};
int cli_sim_run(const struct cli_opts *o, const struct cli_sim_as *as);

#endif
