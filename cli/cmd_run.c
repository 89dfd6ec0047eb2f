/* cli/cmd_run.c — `cclab run SCENARIO.yaml`: everything a scenario file
 * says (sim/scenario.h, docs/yaml.md), run with the executors it lists.
 *
 * The scenario fills the same options `cclab sim` and `cclab check` take
 * on the command line, so a scenario and its command line give the same
 * table; what only a scenario has — a topology file, fabric overrides,
 * `check: SIZE`, expectations — reaches cmd_sim through o->scenario.
 * Output files (--json, --csv, --trace) describe the simulator's run; with
 * `executors: [data]` alone, the data executor's (it has no trace).
 * A scenario with `p2p:` runs `cclab p2p`'s sweep (cli/p2p_run.c) on its
 * network and fabric instead, and holds perftest's figures to its
 * expectations (cli/p2p_expect.c).
 * A bad scenario is a usage error: exit 2, its file:line:col on stderr,
 * nothing run, nothing written.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/p2p.h"
#include "sim/scenario.h"

/* The command-line options a scenario stands for. */
static void from_scenario(const struct cli_opts *in, const struct cc_scenario *sc,
			  enum cc_executor e, bool outputs, struct cli_opts *o)
{
	*o = *in;
	o->cmd = e == CC_EXEC_SIM ? CLI_SIM : CLI_CHECK;
	o->p = sc->p;
	o->chunk_given = sc->chunk_given;
	o->minbytes = sc->minbytes;
	o->maxbytes = sc->maxbytes;
	o->stepfactor = sc->stepfactor;
	o->seed = sc->seed;
	o->order_seed = sc->seed;
	o->fabric = sc->fabric;
	o->check = sc->check_max > 0;
	o->scenario = sc;
	/* The data executor always carries data: it runs the sizes the
	 * scenario checks, no larger (cmd_run skips it when that is none). */
	if (e == CC_EXEC_DATA && sc->check_max < o->maxbytes)
		o->maxbytes = sc->check_max;
	if (!outputs || e == CC_EXEC_DATA)
		o->trace = o->links = NULL;
	if (!outputs)
		o->json = o->csv = NULL;
}

/* A p2p scenario: what `cclab p2p` would take from its options. */
static int run_p2p(const struct cli_opts *in, const struct cc_scenario *sc)
{
	struct p2p_opts o = {
		.p = sc->p2p,
		.fabric = sc->fabric,
		.topo = P2P_DEFAULT_TOPOLOGY, /* unused: the scenario's network runs */
		.seed = sc->seed,
		.json = in->json,
		.trace = in->trace,
		.csv = in->csv,
		.scenario = sc,
	};

	/* Link counters are the collective path's (cli/cmd_sim.c). */
	if (in->links)
		fprintf(stderr, "cclab run: --links ignored: a p2p scenario writes no link "
			"counters\n");
	return p2p_run(&o, &sc->net);
}

int cmd_run(const struct cli_opts *in)
{
	struct cc_scenario sc;
	struct cy_error err;
	int worst = CLI_EXIT_OK;
	int rc;

	if (in->verbs)
		return cmd_verbs(in);
	rc = cc_scenario_load(in->scenario_path, in->sets, in->nsets, &sc, &err);
	if (rc) {
		fprintf(stderr, "cclab run: %s\n", err.msg);
		/* Bad input, a file that is not there included, is a usage
		 * error; only running out of memory is a failure. */
		return rc == -ENOMEM ? CLI_EXIT_FAIL : CLI_EXIT_USAGE;
	}
	if (sc.is_p2p) {
		worst = run_p2p(in, &sc);
		cc_scenario_free(&sc);
		return worst;
	}
	for (int e = 0; e < CC_EXECUTOR_COUNT; e++) {
		struct cli_opts o;

		if (!sc.executor[e])
			continue;
		if (e == CC_EXEC_DATA && sc.check_max < sc.minbytes) {
			fprintf(stderr, "cclab run: the data executor is listed but no size is "
				"checked (check: %s): skipped\n", sc.check_max ? "a size below "
				"sizes.min" : "false");
			continue;
		}
		/* Files are the simulator's when it runs, else the data
		 * executor's. */
		from_scenario(in, &sc, (enum cc_executor)e,
			      e == CC_EXEC_SIM || !sc.executor[CC_EXEC_SIM], &o);
		if (e == CC_EXEC_DATA && in->trace && !sc.executor[CC_EXEC_SIM])
			fprintf(stderr, "cclab run: --trace ignored: the data executor models no "
				"time\n");
		rc = e == CC_EXEC_SIM ? cmd_sim(&o) : cmd_check(&o);
		if (rc > worst)
			worst = rc;
		if (rc == CLI_EXIT_USAGE)
			break;
	}
	cc_scenario_free(&sc);
	return worst;
}
