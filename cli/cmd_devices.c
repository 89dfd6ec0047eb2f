/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/cmd_devices.c — `cclab devices`: what ibv_devinfo and show_gids
 * tell, in one table, with the GID the verbs executor would use by
 * default (backend/verbs_dev.h).  On a host without RDMA it says so and
 * what to do, exit 1. */
#include <stdio.h>
#include <string.h>

#include "backend/verbs_attr.h"
#include "backend/verbs_dev.h"
#include "cli/cli.h"

void devices_usage(FILE *f)
{
	fprintf(f, "Usage: cclab devices\n\n"
		   "Lists this host's RDMA devices through libibverbs: each port's state, link\n"
		   "layer, active MTU and LID, and its GIDs with their type (IB, RoCE v1, RoCE\n"
		   "v2). The GID marked * is the one a QP uses by default: on RoCE a v2 GID\n"
		   "holding an IPv4 address, as NCCL and perftest choose; InfiniBand ports\n"
		   "are addressed by LID.\n\n"
		   "Exit status: 0 devices listed, 1 none (the message says why), 2 bad usage.\n");
}

static const char *state_name(enum ibv_port_state s)
{
	switch (s) {
	case IBV_PORT_ACTIVE: return "ACTIVE";
	case IBV_PORT_DOWN: return "DOWN";
	case IBV_PORT_INIT: return "INIT";
	case IBV_PORT_ARMED: return "ARMED";
	default: return "other";
	}
}

static void print_port(const struct cc_verbs_dev *d, const struct cc_verbs_port *p)
{
	int dflt = cc_verbs_default_gid(p);
	bool ib = p->link_layer != IBV_LINK_LAYER_ETHERNET;

	printf("%-12s %4u  %-7s %-10s %5u  %5u", d->name, p->num, state_name(p->state),
	       ib ? "InfiniBand" : "Ethernet", cc_verbs_mtu_bytes(p->active_mtu), p->lid);
	if (p->ngids == 0)
		printf("  (no GIDs)\n");
	for (uint32_t i = 0; i < p->ngids; i++) {
		char gid[64];

		cc_verbs_gid_str(&p->gids[i].gid, gid, sizeof(gid));
		if (i)
			printf("%-12s %4s  %-7s %-10s %5s  %5s", "", "", "", "", "", "");
		printf("  %3u %c %-39s %s\n", p->gids[i].index, (int)p->gids[i].index == dflt ? '*' : ' ',
		       gid, cc_verbs_gid_type_name(p->gids[i].type));
	}
}

int cmd_devices(int argc, char **argv)
{
	struct cc_verbs_dev *devs;
	uint32_t n;
	char err[512];

	if (argc > 1) {
		if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
			devices_usage(stdout);
			return CLI_EXIT_OK;
		}
		fprintf(stderr, "cclab devices: unexpected argument '%s'\n", argv[1]);
		cli_usage_hint(CLI_DEVICES);
		return CLI_EXIT_USAGE;
	}
	if (cc_verbs_devices(&devs, &n, err, sizeof(err))) {
		fprintf(stderr, "cclab devices: %s\n", err);
		return CLI_EXIT_FAIL;
	}
	printf("%-12s %4s  %-7s %-10s %5s  %5s  %3s   %-39s %s\n", "device", "port", "state", "link",
	       "mtu", "lid", "gid", "address", "type");
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t p = 0; p < devs[i].nports; p++)
			print_port(&devs[i], &devs[i].ports[p]);
	cc_verbs_devices_free(devs, n);
	return CLI_EXIT_OK;
}
