/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/net_gen.c — the built-in networks of sim/net.h: ring, star, one
 * node, leaf-spine and rail-optimised.  Each builds hosts, switches and links on
 * an empty network with the builder, then sim_net_finish() computes the
 * routes.  Every link takes the fabric's rate, propagation and MTU (0 /
 * SIM_NET_DEFAULT_PROP), so one topology serves every --fabric preset.
 */
#include "sim/net.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sim/net_int.h"
#include "util/err.h"
#include "util/units.h"

/* A builder call failed: errno says whether for memory. */
static int build_failed(const struct sim_net *n, char *err, size_t errlen)
{
	int rc = errno == ENOMEM ? -ENOMEM : -EINVAL;

	return cc_errf(err, errlen, rc, "%s: %s while building the topology", n->name,
		 rc == -ENOMEM ? "out of memory" : "invalid argument");
}

/* Names the network; -EINVAL unless it is initialised and empty. */
static int start(struct sim_net *n, const char *name, char *err, size_t errlen)
{
	if (!n)
		return -EINVAL;
	if (n->nnodes || n->nlinks || n->nhosts || n->finished)
		return cc_errf(err, errlen, -EINVAL, "%s: the network is not empty", name);
	snprintf(n->name, sizeof(n->name), "%s", name);
	return 0;
}

/* count one-GPU hosts h0.. (NIC "h<i>.gpu0"), no NVLink. */
static int add_hosts(struct sim_net *n, uint32_t count, char *err, size_t errlen)
{
	char name[SIM_NET_NAME_LEN];

	for (uint32_t i = 0; i < count; i++) {
		snprintf(name, sizeof(name), "h%u", i);
		if (sim_net_add_host(n, name, 1, false) == SIM_NET_NONE)
			return build_failed(n, err, errlen);
	}
	return 0;
}

/* Switches <prefix>0 .. <prefix>count-1; the first one's node in *first. */
static int add_switches(struct sim_net *n, const char *prefix, uint32_t count, uint32_t *first,
			char *err, size_t errlen)
{
	char name[SIM_NET_NAME_LEN];

	*first = n->nnodes;
	for (uint32_t i = 0; i < count; i++) {
		snprintf(name, sizeof(name), "%s%u", prefix, i);
		if (sim_net_add_switch(n, name) == SIM_NET_NONE)
			return build_failed(n, err, errlen);
	}
	return 0;
}

/* `count` network links a-b at the fabric's values. */
static int cable(struct sim_net *n, uint32_t a, uint32_t b, uint32_t count, char *err,
		 size_t errlen)
{
	for (uint32_t i = 0; i < count; i++)
		if (sim_net_add_link(n, a, b, SIM_NET_LINK_NET, 0, SIM_NET_DEFAULT_PROP, 0) ==
		    SIM_NET_NONE)
			return build_failed(n, err, errlen);
	return 0;
}

/* Swaps ports 0 and 1 of node u, links included. */
static void swap_ports(struct sim_net *n, uint32_t u)
{
	struct sim_net_node *v = &n->nodes[u];
	uint32_t l0 = v->port_link[0], l1 = v->port_link[1];

	v->port_link[0] = l1;
	v->port_link[1] = l0;
	/* On a two-ring both cables join the same nodes: fix each link's end
	 * at u by its old port, not by node alone. */
	if (n->links[l0].a == u && n->links[l0].a_port == 0)
		n->links[l0].a_port = 1;
	else
		n->links[l0].b_port = 1;
	if (n->links[l1].a == u && n->links[l1].a_port == 1)
		n->links[l1].a_port = 0;
	else
		n->links[l1].b_port = 0;
}

/* start() for the one-GPU-host generators, and their k hosts. */
static int start_hosts(struct sim_net *n, const char *name, uint32_t k, char *err,
		       size_t errlen)
{
	int rc = start(n, name, err, errlen);

	if (rc)
		return rc;
	if (k == 0)
		return cc_errf(err, errlen, -EINVAL, "%s: 0 ranks", name);
	return add_hosts(n, k, err, errlen);
}

int sim_net_ring(struct sim_net *n, uint32_t k, char *err, size_t errlen)
{
	int rc = start_hosts(n, "ring", k, err, errlen);

	/* Cable r goes from NIC r to NIC r+1 (k = 2: two cables). */
	for (uint32_t r = 0; !rc && k > 1 && r < k; r++)
		rc = cable(n, n->rank_node[r], n->rank_node[r + 1 == k ? 0 : r + 1], 1, err,
			   errlen);
	if (rc)
		return rc;
	/* NIC r > 0 got the cable from r-1 first; the wiring of sim/topo.h
	 * (and of NCCL's ring: send to the next, receive from the previous)
	 * has port 0 lead to the next rank and port 1 to the previous. */
	for (uint32_t r = 1; k > 1 && r < k; r++)
		swap_ports(n, n->rank_node[r]);
	return sim_net_finish(n, false, err, errlen);
}

int sim_net_star(struct sim_net *n, uint32_t k, char *err, size_t errlen)
{
	uint32_t sw;
	int rc = start_hosts(n, "star", k, err, errlen);

	if (!rc)
		rc = add_switches(n, "sw", 1, &sw, err, errlen);
	/* NIC r on switch port r. */
	for (uint32_t r = 0; !rc && r < k; r++)
		rc = cable(n, n->rank_node[r], sw, 1, err, errlen);
	return rc ? rc : sim_net_finish(n, true, err, errlen);
}

int sim_net_node(struct sim_net *n, uint32_t k, char *err, size_t errlen)
{
	int rc = start(n, "node", err, errlen);

	if (rc)
		return rc;
	if (k == 0)
		return cc_errf(err, errlen, -EINVAL, "node: 0 ranks");
	if (sim_net_add_host(n, "n0", k, true) == SIM_NET_NONE)
		return build_failed(n, err, errlen);
	return sim_net_finish(n, true, err, errlen);
}

/* -EINVAL for uplinks = hosts_per_leaf * den / num that are not a whole
 * multiple of spines, naming an oversubscription that would work: the
 * multiple of spines nearest the requested count (at least one per
 * spine), as hosts_per_leaf : uplinks in lowest terms. */
static int bad_oversub(uint32_t hpl, uint32_t spines, uint32_t num, uint32_t den, char *err,
		       size_t errlen)
{
	uint64_t down = (uint64_t)hpl * den;
	uint64_t m = (down + (uint64_t)num * spines / 2) / ((uint64_t)num * spines);
	uint64_t up, g;

	if (m == 0)
		m = 1;
	up = m * spines;
	g = cc_gcd_u64(hpl, up);
	return cc_errf(err, errlen, -EINVAL, "leafspine: %u hosts per leaf at oversubscription "
		 "%u:%u need %u * %u / %u = %.6g uplinks per leaf, which is not a whole "
		 "multiple of the %u spines; %llu:%llu (%llu uplinks per leaf) would work",
		 hpl, num, den, hpl, den, num, (double)down / num, spines,
		 (unsigned long long)(hpl / g), (unsigned long long)(up / g),
		 (unsigned long long)up);
}

int sim_net_leafspine(struct sim_net *n, uint32_t hosts_per_leaf, uint32_t leaves,
		      uint32_t spines, uint32_t oversub_num, uint32_t oversub_den, char *err,
		      size_t errlen)
{
	uint64_t down = (uint64_t)hosts_per_leaf * oversub_den, up;
	uint32_t leaf0, spine0;
	int rc = start(n, "leafspine", err, errlen);

	if (rc)
		return rc;
	if (!hosts_per_leaf || !leaves || !spines || !oversub_num || !oversub_den)
		return cc_errf(err, errlen, -EINVAL, "leafspine: hosts per leaf (%u), leaves (%u), "
			 "spines (%u) and oversubscription (%u:%u) must all be above 0",
			 hosts_per_leaf, leaves, spines, oversub_num, oversub_den);
	if ((uint64_t)hosts_per_leaf * leaves > UINT32_MAX / 2)
		return cc_errf(err, errlen, -EINVAL, "leafspine: %u x %u hosts: too many",
			 hosts_per_leaf, leaves);
	up = down / oversub_num;
	if (down % oversub_num || up % spines)
		return bad_oversub(hosts_per_leaf, spines, oversub_num, oversub_den, err, errlen);
	if (up > UINT32_MAX / 2)
		return cc_errf(err, errlen, -EINVAL, "leafspine: %llu uplinks per leaf: too many",
			 (unsigned long long)up);
	rc = add_hosts(n, hosts_per_leaf * leaves, err, errlen);
	if (!rc)
		rc = add_switches(n, "leaf", leaves, &leaf0, err, errlen);
	if (!rc)
		rc = add_switches(n, "spine", spines, &spine0, err, errlen);
	/* Leaf ports: its hosts first, then its uplinks, spine by spine. */
	for (uint32_t l = 0; !rc && l < leaves; l++) {
		for (uint32_t j = 0; !rc && j < hosts_per_leaf; j++)
			rc = cable(n, n->rank_node[l * hosts_per_leaf + j], leaf0 + l, 1, err,
				   errlen);
		for (uint32_t s = 0; !rc && s < spines; s++)
			rc = cable(n, leaf0 + l, spine0 + s, (uint32_t)(up / spines), err, errlen);
	}
	return rc ? rc : sim_net_finish(n, true, err, errlen);
}

int sim_net_railopt(struct sim_net *n, uint32_t nodes, uint32_t gpus_per_node, uint32_t spines,
		    char *err, size_t errlen)
{
	return sim_net_railopt_nics(n, nodes, gpus_per_node, 1, spines, err, errlen);
}

int sim_net_railopt_nics(struct sim_net *n, uint32_t nodes, uint32_t gpus_per_node,
			 uint32_t nics, uint32_t spines, char *err, size_t errlen)
{
	char name[SIM_NET_NAME_LEN];
	uint32_t rail0 = 0, spine0 = 0;
	int rc = start(n, "railopt", err, errlen);

	if (rc)
		return rc;
	if (!nodes || !gpus_per_node)
		return cc_errf(err, errlen, -EINVAL, "railopt: nodes (%u) and GPUs per node (%u) "
			 "must be above 0", nodes, gpus_per_node);
	if (!nics || nics > SIM_NET_MAX_NICS)
		return cc_errf(err, errlen, -EINVAL, "railopt: %u NICs per GPU; 1 to %u", nics,
			       SIM_NET_MAX_NICS);
	if ((uint64_t)nodes * gpus_per_node * nics > UINT32_MAX / 2 ||
	    (uint64_t)nodes * spines > UINT32_MAX / 2)
		return cc_errf(err, errlen, -EINVAL, "railopt: %u nodes x %u GPUs, %u spines: "
			 "too many", nodes, gpus_per_node, spines);
	for (uint32_t i = 0; i < nodes; i++) {
		snprintf(name, sizeof(name), "node%u", i);
		if (sim_net_add_host(n, name, gpus_per_node, true) == SIM_NET_NONE)
			return build_failed(n, err, errlen);
		if (nics > 1 && sim_net_host_nics(n, i, nics))
			return build_failed(n, err, errlen);
	}
	/* One rail leaf per GPU index and NIC index. */
	for (uint32_t g = 0; !rc && g < gpus_per_node; g++) {
		for (uint32_t j = 0; !rc && j < nics; j++) {
			uint32_t sw;

			if (nics == 1)
				snprintf(name, sizeof(name), "rail%u", g);
			else
				snprintf(name, sizeof(name), "rail%u_%u", g, j);
			sw = sim_net_add_switch(n, name);
			if (sw == SIM_NET_NONE)
				return build_failed(n, err, errlen);
			if (g == 0 && j == 0)
				rail0 = sw;
		}
	}
	/* Spines: one set, or with several NICs a set per NIC index (a plane
	 * of its own: NCCL never joins two planes, search.cc
	 * ncclTopoSearchCheckNet, so a packet for NIC j stays on plane j). */
	for (uint32_t j = 0; !rc && j < nics; j++) {
		uint32_t first;

		if (nics == 1) {
			rc = add_switches(n, "spine", spines, &spine0, err, errlen);
			break;
		}
		snprintf(name, sizeof(name), "plane%u_spine", j);
		rc = add_switches(n, name, spines, &first, err, errlen);
		if (j == 0)
			spine0 = first;
	}
	/* Rail leaf ports: NIC j of GPU g of every host, then as many uplinks
	 * as downlinks (a rail is not oversubscribed), dealt over its plane's
	 * spines round robin: spine s gets ceil or floor of nodes / spines. */
	for (uint32_t g = 0; !rc && g < gpus_per_node; g++) {
		for (uint32_t j = 0; !rc && j < nics; j++) {
			uint32_t leaf = rail0 + g * nics + j, plane = spine0 + j * spines;

			for (uint32_t i = 0; !rc && i < nodes; i++)
				rc = cable(n, n->rank_node[n->hosts[i].first_rank + g], leaf, 1, err,
					   errlen);
			for (uint32_t s = 0; !rc && s < spines && s < nodes; s++)
				rc = cable(n, leaf, plane + s, nodes / spines + (s < nodes % spines),
					   err, errlen);
		}
	}
	return rc ? rc : sim_net_finish(n, true, err, errlen);
}
