/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/cmd_p2p.c — `cclab p2p`: perftest's point-to-point tests on the
 * simulator (core/p2p.h builds the schedule, core/p2p_report.h turns the
 * run's timestamps into perftest's columns; docs/p2p.md).
 *
 * The options (cli/p2p_options.c) name the test, the fabric and the
 * topology; the sweep itself is cli/p2p_run.c's, which `cclab run` uses
 * too for a scenario with a `p2p:` section.
 */
#include <string.h>

#include "cli/p2p.h"

int p2p_exec(const struct p2p_opts *o)
{
	struct sim_net net;
	char msg[SIM_NET_ERR_LEN];
	int rc;

	if (o->device)
		return p2p_verbs(o);
	if (sim_params_validate(&o->fabric)) {
		fprintf(stderr, "cclab p2p: fabric '%s': invalid parameters\n", o->fabric.name);
		return CLI_EXIT_FAIL;
	}
	/* One network for every size: its routes are the bound's too. */
	sim_net_init(&net, "");
	rc = sim_topo_net_make(&net, o->topo, o->p.nranks, msg, sizeof(msg));
	if (rc) {
		fprintf(stderr, "cclab p2p: --topology %s: %s\n", sim_topo_kind_name[o->topo],
			msg[0] ? msg : strerror(-rc));
		sim_net_free(&net);
		return CLI_EXIT_FAIL;
	}
	if (sim_topo_credit_check(&net, &o->fabric, msg, sizeof(msg))) {
		fprintf(stderr, "cclab p2p: fabric '%s' on %s: %s\n", o->fabric.name,
			sim_topo_kind_name[o->topo], msg);
		sim_net_free(&net);
		return CLI_EXIT_USAGE;
	}
	rc = p2p_run(o, &net);
	sim_net_free(&net);
	return rc;
}

int cmd_p2p(int argc, char **argv)
{
	struct p2p_opts o;
	int rc = p2p_parse(argc, argv, &o);

	if (rc)
		return rc;
	if (o.help) {
		p2p_usage(stdout);
		return CLI_EXIT_OK;
	}
	return p2p_exec(&o);
}
