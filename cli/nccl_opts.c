/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/nccl_opts.c — `auto` on the command line: -A auto, -P auto,
 * --channels auto, --nccl-version and --env NCCL_X=VALUE, and NCCL's
 * communicator for `cclab sim`'s topology and fabric (core/nccl_auto.h).
 * Only the simulator has the fabric and topology NCCL's choice depends
 * on; the other commands take a scenario's. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "sim/nccl_system.h"

bool cli_is_auto(const char *arg)
{
	return !strcmp(arg, "auto");
}

int cli_nccl_env_option(struct cli_opts *o, const char *arg, char *err, size_t len)
{
	const char *eq = strchr(arg, '=');
	char name[64];

	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(name)) {
		snprintf(err, len, "NAME=VALUE, as NCCL_ALGO=Ring");
		return -EINVAL;
	}
	snprintf(name, sizeof(name), "%.*s", (int)(eq - arg), arg);
	int rc = cc_nccl_env_set(&o->nccl_own.env, name, eq + 1, err, len);

	if (rc == -ENOENT && cc_nccl_env_inert(name))
		return 0;
	if (rc == -ENOENT)
		snprintf(err, len, "%s is not a variable cclab models (docs/nccl-tuning.md)", name);
	return rc;
}

int cli_nccl_finish(enum cli_cmd cmd, struct cli_opts *o, char *err, size_t len)
{
	struct cc_nccl_auto *a = &o->nccl_own;
	struct cc_nccl_system sys;
	struct sim_net net;
	int rc;

	if (!cc_nccl_auto_any(a))
		return 0;
	if (cmd != CLI_SIM) {
		snprintf(err, len, "auto (NCCL's choice) needs the fabric and topology it depends "
			 "on: 'cclab sim', or a scenario with 'cclab run'");
		return -EINVAL;
	}
	/* A tree may be chosen: every pair must be reachable. */
	if (a->algo && !o->topo_given)
		o->topo = SIM_TOPO_STAR;
	if ((rc = sim_topo_net_make_hosts(&net, o->topo, o->p.nranks, o->p.ranks_per_node,
					  &o->hosts, err, len))) {
		sim_net_free(&net);
		return rc;
	}
	rc = sim_nccl_system(&net, &o->fabric, &sys, err, len);
	sim_net_free(&net);
	if (!rc)
		rc = cc_nccl_comm_init(&a->comm, &a->version, &sys, &a->env, err, len);
	if (rc)
		return rc;
	if (a->algo) /* until a size chooses */
		o->p.algo = cc_algo_default(o->p.coll);
	if (a->channels)
		o->p.nchannels = a->comm.nchannels;
	/* NCCL's rings follow the rails, as a scenario's (sim/scenario_nccl.c) */
	if (cc_nccl_rail_rings(a, o->p.coll, &sys) && !o->ring_order_given)
		o->p.ring_order = CC_RING_ORDER_RAIL;
	o->nccl = a;
	return 0;
}
