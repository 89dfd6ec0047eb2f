/* cli/p2p.h — `cclab p2p`: perftest's point-to-point tests (core/p2p.h) on
 * the simulator.  Options (cli/p2p_options.c), the run and its table
 * (cli/cmd_p2p.c), the --json report (cli/p2p_json.c). */
#ifndef CCLAB_CLI_P2P_H
#define CCLAB_CLI_P2P_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/cli.h"
#include "core/p2p.h"
#include "core/p2p_report.h"
#include "core/results.h"
#include "sim/exec.h"

/* Two hosts through one switch, as perftest is mostly run (and as the
 * claims it checks are stated): star. */
#define P2P_DEFAULT_TOPOLOGY SIM_TOPO_STAR

struct p2p_opts {
	struct cc_p2p_params p; /* size: the -s size, or the first of -a */
	bool all;               /* -a: CC_P2P_ALL_MIN .. CC_P2P_ALL_MAX, doubling */
	struct sim_params fabric;
	enum sim_topo_kind topo;
	const char *json, *trace;
	bool help;
};

/* Parses argv[1..argc) (argv[0] is "p2p"): 0 (o->help set for --help), or
 * CLI_EXIT_USAGE after a message on stderr naming the option and value.
 * Every size is checked (cc_p2p_check) here, so a run never starts with
 * parameters the builder refuses. */
int p2p_parse(int argc, char **argv, struct p2p_opts *o);
void p2p_usage(FILE *f);

/* The sizes of the sweep: the first, then each next one; false at the end. */
bool p2p_next_size(const struct p2p_opts *o, uint64_t *size);

/* One size's outcome, for the report. */
struct p2p_row {
	uint64_t size;
	const struct cc_sim_result *res;
	bool failed;        /* the run did not complete, or its stamps are missing */
	bool model_bug;     /* below the bound, or faster than the link */
	sim_time_ps bound_ps;
	struct cc_p2p_bw bw;
	struct cc_p2p_lat lat;
};

/* The report: parameters (every fabric field) and the "sizes" array
 * opened, then one entry per size; cli_json_end() (cli/check.h) closes it
 * with "ok" and commits the file atomically. */
void p2p_json_begin(struct cc_json *j, const struct p2p_opts *o);
void p2p_json_size(struct cc_json *j, const struct p2p_opts *o, const struct p2p_row *row);

#endif /* CCLAB_CLI_P2P_H */
