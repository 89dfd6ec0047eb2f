/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_sim_net.c — network descriptions (sim/net.c, sim/net_gen.c):
 * the builder and its errors, the exact node, link and port counts of every
 * generator, the route tables (ECMP set sizes and path lengths in links;
 * every node's towards every rank against a plain search's, and the
 * tables' size: a row per switch, each set once),
 * NVLink preferred inside a host, sim_net_pick() stable per flow and
 * spreading over flows by the documented hash, and the messages for a
 * disconnected topology and a leaf-spine that cannot be built.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/net.h"

#define NONE SIM_NET_NONE

/* Links on the path from rank s to rank d. */
static uint32_t hops(const struct sim_net *n, uint32_t s, uint32_t d)
{
	return sim_net_dist(n, n->rank_node[s], d);
}

/* Size of node u's ECMP set towards rank d. */
static uint32_t nroutes(const struct sim_net *n, uint32_t u, uint32_t d)
{
	uint32_t buf[SIM_NET_NIC_PORTS_MAX];
	const uint32_t *ports;

	return sim_net_routes(n, u, d, buf, &ports);
}

static uint32_t node(const struct sim_net *n, const char *name)
{
	uint32_t u = sim_net_find(n, name);

	if (u == NONE)
		fail_msg("no node '%s'", name);
	return u;
}

/* The far end of port p of u. */
static uint32_t peer(const struct sim_net *n, uint32_t u, uint32_t p)
{
	uint32_t w, wp;

	sim_net_peer(n, u, p, &w, &wp);
	/* and its port there leads back */
	uint32_t back, bp;
	sim_net_peer(n, w, wp, &back, &bp);
	assert_int_equal(back, u);
	assert_int_equal(bp, p);
	return w;
}

/* ---- builder ---- */

static void test_builder(void **state)
{
	struct sim_net n;
	uint32_t s0, nvs;

	(void)state;
	sim_net_init(&n, "test");
	assert_string_equal(n.name, "test");
	assert_int_equal(sim_net_add_host(&n, "a", 2, true), 0);
	assert_int_equal(sim_net_add_host(&n, "b", 1, false), 1);
	assert_int_equal(n.nranks, 3);
	assert_int_equal(n.nhosts, 2);
	/* a.gpu0, a.gpu1, a.nvswitch, b.gpu0 */
	assert_int_equal(n.nnodes, 4);
	assert_int_equal(node(&n, "a.gpu0"), 0);
	assert_int_equal(node(&n, "a.gpu1"), 1);
	nvs = node(&n, "a.nvswitch");
	assert_int_equal(nvs, 2);
	assert_int_equal(node(&n, "b.gpu0"), 3);
	assert_int_equal(n.hosts[0].first_rank, 0);
	assert_int_equal(n.hosts[0].ngpus, 2);
	assert_int_equal(n.hosts[0].nvswitch, nvs);
	assert_int_equal(n.hosts[1].first_rank, 2);
	assert_int_equal(n.hosts[1].nvswitch, NONE);
	assert_int_equal(n.rank_node[2], 3);
	assert_int_equal(n.nodes[3].rank, 2);
	assert_int_equal(n.nodes[3].host, 1);
	assert_int_equal(n.nodes[nvs].kind, SIM_NET_SWITCH);
	assert_int_equal(n.nodes[nvs].rank, NONE);
	assert_int_equal(n.nodes[nvs].host, 0);
	/* the NVSwitch joins both GPUs by NVLink */
	assert_int_equal(n.nlinks, 2);
	assert_int_equal(n.nodes[nvs].nports, 2);
	for (uint32_t l = 0; l < 2; l++) {
		assert_int_equal(n.links[l].kind, SIM_NET_LINK_NVLINK);
		assert_int_equal(n.links[l].a, l);
		assert_int_equal(n.links[l].b, nvs);
		assert_int_equal(n.links[l].rate_bps, 0);
		assert_int_equal(n.links[l].prop_ps, SIM_NET_DEFAULT_PROP);
		assert_int_equal(n.links[l].mtu, 0);
	}
	s0 = sim_net_add_switch(&n, "s0");
	assert_int_equal(s0, 4);
	assert_int_equal(sim_net_add_link(&n, 0, s0, SIM_NET_LINK_NET, 7, 8, 512), 2);
	assert_int_equal(n.links[2].a_port, 1); /* a.gpu0's second port */
	assert_int_equal(n.links[2].b_port, 0);
	assert_int_equal(n.links[2].rate_bps, 7);
	assert_int_equal(n.links[2].prop_ps, 8);
	assert_int_equal(n.links[2].mtu, 512);
	assert_int_equal(peer(&n, 0, 1), s0);
	assert_int_equal(peer(&n, s0, 0), 0);
	assert_int_equal(peer(&n, nvs, 1), 1);
	assert_int_equal(sim_net_find(&n, "nope"), NONE);
	assert_int_equal(sim_net_find(&n, NULL), NONE);
	sim_net_free(&n);
}

static void expect_einval(uint32_t got)
{
	assert_int_equal(got, NONE);
	assert_int_equal(errno, EINVAL);
}

static void test_builder_errors(void **state)
{
	struct sim_net n, zero;
	char err[SIM_NET_ERR_LEN];
	char longname[SIM_NET_NAME_LEN + 1];

	(void)state;
	sim_net_init(&n, "errors");
	assert_int_equal(sim_net_add_host(&n, "h", 2, true), 0);
	/* duplicates: host name, node names either way */
	expect_einval(sim_net_add_host(&n, "h", 1, false));
	expect_einval(sim_net_add_switch(&n, "h.gpu1"));
	expect_einval(sim_net_add_switch(&n, "h.nvswitch"));
	assert_int_equal(sim_net_add_switch(&n, "x.gpu0"), 3);
	expect_einval(sim_net_add_host(&n, "x", 1, false));
	expect_einval(sim_net_add_switch(&n, "x.gpu0"));
	/* no GPUs, no name, names that do not fit */
	expect_einval(sim_net_add_host(&n, "g", 0, false));
	expect_einval(sim_net_add_host(&n, "", 1, false));
	expect_einval(sim_net_add_host(&n, NULL, 1, false));
	expect_einval(sim_net_add_switch(&n, ""));
	memset(longname, 'a', SIM_NET_NAME_LEN);
	longname[SIM_NET_NAME_LEN] = '\0';
	expect_einval(sim_net_add_switch(&n, longname));
	longname[SIM_NET_NAME_LEN - 1] = '\0'; /* 47 characters: a switch fits */
	assert_int_equal(sim_net_add_switch(&n, longname), 4);
	longname[SIM_NET_NAME_LEN - 5] = '\0'; /* + ".gpu0" is 48: a host does not */
	expect_einval(sim_net_add_host(&n, longname, 1, false));
	longname[SIM_NET_NAME_LEN - 6] = '\0';
	assert_int_equal(sim_net_add_host(&n, longname, 1, false), 1);
	/* a host's nodes are all or nothing: 39 + ".nvswitch" does not fit */
	longname[SIM_NET_NAME_LEN - 9] = '\0';
	longname[0] = 'b';
	expect_einval(sim_net_add_host(&n, longname, 1, true));
	assert_int_equal(n.nhosts, 2);
	/* links: to itself, a node that is not there, a bad kind or MTU */
	expect_einval(sim_net_add_link(&n, 0, 0, SIM_NET_LINK_NET, 0, 0, 0));
	expect_einval(sim_net_add_link(&n, 0, n.nnodes, SIM_NET_LINK_NET, 0, 0, 0));
	expect_einval(sim_net_add_link(&n, 0, 3, (enum sim_net_link_kind)7, 0, 0, 0));
	expect_einval(sim_net_add_link(&n, 0, 3, SIM_NET_LINK_NET, 0, 0, 1000));
	/* nothing added by the failures */
	assert_int_equal(n.nlinks, 2);
	assert_int_equal(n.nnodes, 6);
	assert_int_equal(n.nranks, 3);
	/* after finish nothing is added */
	assert_int_equal(sim_net_add_link(&n, 0, 3, SIM_NET_LINK_NET, 0, 0, 0), 2);
	assert_int_equal(sim_net_add_link(&n, 4, 3, SIM_NET_LINK_NET, 0, 0, 0), 3);
	assert_int_equal(sim_net_add_link(&n, 5, 4, SIM_NET_LINK_NET, 0, 0, 0), 4);
	assert_int_equal(sim_net_add_link(&n, 1, 3, SIM_NET_LINK_NET, 0, 0, 0), 5);
	assert_int_equal(sim_net_finish(&n, true, err, sizeof(err)), 0);
	assert_true(n.finished);
	assert_int_equal(sim_net_finish(&n, true, err, sizeof(err)), 0);
	expect_einval(sim_net_add_host(&n, "late", 1, false));
	expect_einval(sim_net_add_switch(&n, "late"));
	expect_einval(sim_net_add_link(&n, 0, 3, SIM_NET_LINK_NET, 0, 0, 0));
	/* free: twice, and on a zeroed struct */
	sim_net_free(&n);
	memset(&zero, 0, sizeof(zero));
	assert_memory_equal(&n, &zero, sizeof(n));
	sim_net_free(&n);
	sim_net_free(&zero);
	sim_net_free(NULL);
	/* routes of an unfinished network: none */
	sim_net_init(&n, "raw");
	assert_int_equal(sim_net_add_host(&n, "h", 2, true), 0);
	assert_int_equal(nroutes(&n, 0, 1), 0);
	assert_int_equal(sim_net_pick(&n, 0, 1, 0), NONE);
	sim_net_free(&n);
}

/* ---- generators: counts and routes ---- */

static void test_ring(void **state)
{
	static const uint32_t ks[] = {1, 2, 3, 5};
	char err[SIM_NET_ERR_LEN];

	(void)state;
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		uint32_t k = ks[i];
		struct sim_net n;

		sim_net_init(&n, NULL);
		assert_int_equal(sim_net_ring(&n, k, err, sizeof(err)), 0);
		assert_string_equal(n.name, "ring");
		assert_int_equal(n.nranks, k);
		assert_int_equal(n.nhosts, k);
		assert_int_equal(n.nnodes, k);
		assert_int_equal(n.nlinks, k == 1 ? 0 : k);
		for (uint32_t r = 0; r < k; r++) {
			uint32_t next = (r + 1) % k, prev = (r + k - 1) % k;
			char name[SIM_NET_NAME_LEN];

			snprintf(name, sizeof(name), "h%u.gpu0", r);
			assert_int_equal(node(&n, name), r);
			assert_int_equal(n.nodes[r].nports, k == 1 ? 0 : 2);
			if (k == 1)
				continue;
			/* port 0 to the next rank's port 1 */
			assert_int_equal(peer(&n, r, 0), next);
			assert_int_equal(peer(&n, r, 1), prev);
			uint32_t w, wp;
			sim_net_peer(&n, r, 0, &w, &wp);
			assert_int_equal(wp, 1);
			for (uint32_t d = 0; d < k; d++) {
				bool nb = d != r && (d == next || d == prev);

				assert_int_equal(hops(&n, r, d), d == r ? 0 : nb ? 1 : NONE);
				/* k = 2: both cables lead to the other rank */
				assert_int_equal(nroutes(&n, r, d), !nb ? 0 : k == 2 ? 2 : 1);
			}
			if (k > 2) {
				assert_int_equal(sim_net_pick(&n, r, next, 99), 0);
				assert_int_equal(sim_net_pick(&n, r, prev, 99), 1);
			}
		}
		sim_net_free(&n);
	}
}

static void test_star(void **state)
{
	static const uint32_t ks[] = {1, 2, 5};
	char err[SIM_NET_ERR_LEN];

	(void)state;
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		uint32_t k = ks[i], sw;
		struct sim_net n;

		sim_net_init(&n, NULL);
		assert_int_equal(sim_net_star(&n, k, err, sizeof(err)), 0);
		assert_string_equal(n.name, "star");
		assert_int_equal(n.nnodes, k + 1);
		assert_int_equal(n.nlinks, k);
		sw = node(&n, "sw0");
		assert_int_equal(sw, k);
		assert_int_equal(n.nodes[sw].nports, k);
		for (uint32_t r = 0; r < k; r++) {
			assert_int_equal(n.nodes[r].nports, 1);
			assert_int_equal(peer(&n, sw, r), r); /* switch port r: rank r */
			assert_int_equal(nroutes(&n, sw, r), 1);
			assert_int_equal(sim_net_pick(&n, sw, r, 12345), r);
			for (uint32_t d = 0; d < k; d++) {
				assert_int_equal(hops(&n, r, d), r == d ? 0 : 2);
				assert_int_equal(nroutes(&n, r, d), r == d ? 0 : 1);
			}
		}
		/* the NIC's own entry, and out of range: none */
		assert_int_equal(sim_net_pick(&n, 0, 0, 1), NONE);
		assert_int_equal(sim_net_pick(&n, 0, k, 1), NONE);
		assert_int_equal(sim_net_pick(&n, k + 1, 0, 1), NONE);
		sim_net_free(&n);
	}
}

/* 16 hosts per leaf, 4 leaves, 4 spines, 2:1: 8 uplinks per leaf, 2 to
 * each spine. */
static void test_leafspine(void **state)
{
	struct sim_net n;
	char err[SIM_NET_ERR_LEN];
	uint32_t leaf0, leaf1, spine0;

	(void)state;
	sim_net_init(&n, NULL);
	assert_int_equal(sim_net_leafspine(&n, 16, 4, 4, 2, 1, err, sizeof(err)), 0);
	assert_string_equal(n.name, "leafspine");
	assert_int_equal(n.nranks, 64);
	assert_int_equal(n.nnodes, 64 + 4 + 4);
	assert_int_equal(n.nlinks, 64 + 4 * 8);
	leaf0 = node(&n, "leaf0");
	leaf1 = node(&n, "leaf1");
	spine0 = node(&n, "spine0");
	assert_int_equal(node(&n, "h17.gpu0"), 17);
	assert_int_equal(node(&n, "spine3"), spine0 + 3);
	assert_int_equal(n.nodes[leaf0].nports, 16 + 8);
	assert_int_equal(n.nodes[spine0].nports, 4 * 2);
	/* leaf ports: hosts, then 2 uplinks per spine, spine by spine */
	assert_int_equal(peer(&n, leaf1, 0), 16);
	assert_int_equal(peer(&n, leaf1, 16), spine0);
	assert_int_equal(peer(&n, leaf1, 17), spine0);
	assert_int_equal(peer(&n, leaf1, 23), spine0 + 3);
	/* same leaf: NIC, leaf, NIC; other leaf: up a spine and down */
	assert_int_equal(hops(&n, 0, 15), 2);
	assert_int_equal(hops(&n, 0, 16), 4);
	assert_int_equal(hops(&n, 63, 0), 4);
	/* ECMP: a leaf to a host on another leaf, all 8 uplinks (two to each
	 * of the 4 spines); to its own host, one port; a spine to a host,
	 * its 2 links to that host's leaf; a NIC, its one port */
	assert_int_equal(nroutes(&n, leaf0, 16), 8);
	assert_int_equal(nroutes(&n, leaf0, 3), 1);
	assert_int_equal(nroutes(&n, spine0, 40), 2);
	assert_int_equal(nroutes(&n, 0, 40), 1);
	const uint32_t *ports;
	assert_int_equal(sim_net_routes(&n, leaf0, 16, NULL, &ports), 8);
	for (uint32_t i = 0; i < 8; i++)
		assert_int_equal(ports[i], 16 + i);
	/* a spine never routes through another leaf */
	assert_int_equal(sim_net_routes(&n, spine0, 40, NULL, &ports), 2);
	assert_int_equal(peer(&n, spine0, ports[0]), node(&n, "leaf2"));
	assert_int_equal(peer(&n, spine0, ports[1]), node(&n, "leaf2"));
	sim_net_free(&n);

	/* 1:1: 16 uplinks, 4 per spine */
	sim_net_init(&n, NULL);
	assert_int_equal(sim_net_leafspine(&n, 16, 4, 4, 1, 1, err, sizeof(err)), 0);
	assert_int_equal(n.nlinks, 64 + 4 * 16);
	assert_int_equal(nroutes(&n, node(&n, "leaf3"), 0), 16);
	sim_net_free(&n);
}

/* 2 nodes x 4 GPUs, 1 spine. */
static void test_railopt(void **state)
{
	struct sim_net n;
	char err[SIM_NET_ERR_LEN];
	uint32_t rail0, spine0, nvs0;

	(void)state;
	sim_net_init(&n, NULL);
	assert_int_equal(sim_net_railopt(&n, 2, 4, 1, err, sizeof(err)), 0);
	assert_string_equal(n.name, "railopt");
	assert_int_equal(n.nranks, 8);
	assert_int_equal(n.nhosts, 2);
	assert_string_equal(n.hosts[1].name, "node1");
	/* 8 GPUs, 2 NVSwitches, 4 rails, 1 spine */
	assert_int_equal(n.nnodes, 8 + 2 + 4 + 1);
	/* 8 NVLink, 8 GPU-rail, each rail 1 uplink per host to the spine */
	assert_int_equal(n.nlinks, 8 + 8 + 4 * 2);
	assert_int_equal(node(&n, "node1.gpu2"), 4 + 1 + 2);
	assert_int_equal(n.rank_node[6], node(&n, "node1.gpu2"));
	nvs0 = node(&n, "node0.nvswitch");
	rail0 = node(&n, "rail0");
	spine0 = node(&n, "spine0");
	assert_int_equal(n.nodes[nvs0].nports, 4);
	assert_int_equal(n.nodes[rail0].nports, 2 + 2);
	assert_int_equal(n.nodes[spine0].nports, 4 * 2);
	/* GPU ports: NVLink first, then the rail */
	assert_int_equal(n.nodes[0].nports, 2);
	assert_int_equal(n.links[n.nodes[0].port_link[0]].kind, SIM_NET_LINK_NVLINK);
	assert_int_equal(peer(&n, 0, 0), nvs0);
	assert_int_equal(peer(&n, 0, 1), rail0);
	assert_int_equal(peer(&n, n.rank_node[5], 1), rail0 + 1);
	/* same host: 2 NVLink links, through the NVSwitch */
	assert_int_equal(hops(&n, 0, 3), 2);
	assert_int_equal(sim_net_pick(&n, 0, 3, 5), 0);
	assert_int_equal(nroutes(&n, 0, 3), 1);
	/* same rail, other host: GPU, rail, GPU */
	assert_int_equal(hops(&n, 1, 5), 2);
	assert_int_equal(sim_net_pick(&n, 1, 5, 5), 1);
	/* other rail, other host: rail, spine, rail */
	assert_int_equal(hops(&n, 1, 6), 4);
	assert_int_equal(nroutes(&n, rail0 + 1, 6), 2); /* 2 uplinks to the spine */
	/* the NVSwitch only reaches its own host's GPUs */
	assert_int_equal(nroutes(&n, nvs0, 2), 1);
	assert_int_equal(nroutes(&n, nvs0, 5), 0);
	sim_net_free(&n);

	/* spines = 0: one host is fine, two are not */
	sim_net_init(&n, NULL);
	assert_int_equal(sim_net_railopt(&n, 1, 8, 0, err, sizeof(err)), 0);
	assert_int_equal(hops(&n, 0, 7), 2);
	sim_net_free(&n);
	sim_net_init(&n, NULL);
	assert_int_equal(sim_net_railopt(&n, 2, 2, 0, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "rank 0 (node0.gpu0) cannot reach rank 3 (node1.gpu1): the "
				 "topology is not connected");
	assert_false(n.finished);
	assert_null(n.route_ports);
	sim_net_free(&n);
}

/* Two GPUs of one host, each also on one leaf: NIC, leaf, NIC is as short
 * as NIC, NVSwitch, NIC, but inside a host only NVLink counts; between
 * hosts NVLink never does. */
static void test_nvlink_preferred(void **state)
{
	struct sim_net n;
	char err[SIM_NET_ERR_LEN];
	uint32_t leaf, nvs;

	(void)state;
	sim_net_init(&n, "pref");
	assert_int_equal(sim_net_add_host(&n, "a", 2, true), 0);
	assert_int_equal(sim_net_add_host(&n, "b", 1, false), 1);
	nvs = node(&n, "a.nvswitch");
	leaf = sim_net_add_switch(&n, "leaf");
	for (uint32_t r = 0; r < 3; r++)
		assert_int_not_equal(sim_net_add_link(&n, n.rank_node[r], leaf, SIM_NET_LINK_NET, 0,
						      SIM_NET_DEFAULT_PROP, 0), NONE);
	assert_int_equal(sim_net_finish(&n, true, err, sizeof(err)), 0);
	/* a.gpu0 -> a.gpu1: port 0 (NVLink) only, not port 1 (the leaf) */
	assert_int_equal(hops(&n, 0, 1), 2);
	assert_int_equal(nroutes(&n, n.rank_node[0], 1), 1);
	assert_int_equal(sim_net_pick(&n, n.rank_node[0], 1, 3), 0);
	assert_int_equal(sim_net_pick(&n, n.rank_node[1], 0, 3), 0);
	assert_int_equal(nroutes(&n, nvs, 1), 1);
	/* a.gpu0 -> b.gpu0: the leaf */
	assert_int_equal(sim_net_pick(&n, n.rank_node[0], 2, 3), 1);
	assert_int_equal(sim_net_pick(&n, n.rank_node[2], 0, 3), 0);
	/* the leaf still reaches a's GPUs directly (its own entries) */
	assert_int_equal(nroutes(&n, leaf, 1), 1);
	sim_net_free(&n);
}

/* ---- pick ---- */

static uint64_t ref_splitmix64(uint64_t x)
{
	uint64_t z = x + 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* 4 hosts per leaf, 2 leaves, 4 spines, 1:1: a leaf has 4 uplinks, one
 * per spine.  1000 flows spread over them (each 150..350); one flow stays
 * on one port; the choice is the documented hash, nothing machine-local. */
static void test_pick(void **state)
{
	struct sim_net n;
	char err[SIM_NET_ERR_LEN];
	uint32_t leaf0, count[4] = {0};
	const uint32_t *ports;

	(void)state;
	sim_net_init(&n, NULL);
	assert_int_equal(sim_net_leafspine(&n, 4, 2, 4, 1, 1, err, sizeof(err)), 0);
	leaf0 = node(&n, "leaf0");
	assert_int_equal(sim_net_routes(&n, leaf0, 5, NULL, &ports), 4);
	for (uint64_t flow = 0; flow < 1000; flow++) {
		/* rank 2, QP flow: as the executor numbers flows */
		uint64_t f = (uint64_t)2 << 32 | flow;
		uint32_t p = sim_net_pick(&n, leaf0, 5, f);
		uint64_t h = ref_splitmix64(f ^ (leaf0 * 0x9e3779b97f4a7c15ull));

		assert_int_equal(p, ports[h % 4]);
		assert_int_equal(sim_net_pick(&n, leaf0, 5, f), p);
		assert_true(p >= 4 && p < 8);
		count[p - 4]++;
	}
	for (int i = 0; i < 4; i++) {
		print_message("    uplink %d: %u flows\n", i, count[i]);
		assert_true(count[i] >= 150 && count[i] <= 350);
	}
	/* another node hashes the same flows differently */
	uint32_t leaf1 = node(&n, "leaf1"), same = 0;
	for (uint64_t flow = 0; flow < 1000; flow++)
		same += sim_net_pick(&n, leaf0, 5, flow) - 4 == sim_net_pick(&n, leaf1, 0, flow) - 4;
	assert_true(same < 400);
	sim_net_free(&n);
}

/* ---- errors ---- */

static void test_errors(void **state)
{
	struct sim_net n;
	char err[SIM_NET_ERR_LEN];
	uint32_t s0, s1;

	(void)state;
	/* two switches not joined */
	sim_net_init(&n, "split");
	assert_int_equal(sim_net_add_host(&n, "a", 2, false), 0);
	assert_int_equal(sim_net_add_host(&n, "b", 1, false), 1);
	s0 = sim_net_add_switch(&n, "s0");
	s1 = sim_net_add_switch(&n, "s1");
	assert_int_not_equal(sim_net_add_link(&n, 0, s0, SIM_NET_LINK_NET, 0, 0, 0), NONE);
	assert_int_not_equal(sim_net_add_link(&n, 1, s0, SIM_NET_LINK_NET, 0, 0, 0), NONE);
	assert_int_not_equal(sim_net_add_link(&n, 2, s1, SIM_NET_LINK_NET, 0, 0, 0), NONE);
	assert_int_equal(sim_net_finish(&n, true, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "rank 0 (a.gpu0) cannot reach rank 2 (b.gpu0): the topology "
				 "is not connected");
	assert_false(n.finished);
	/* ring neighbours only: 0's previous, 2, is missing too */
	assert_int_equal(sim_net_finish(&n, false, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "rank 0 (a.gpu0) cannot reach rank 2 (b.gpu0): the topology "
				 "is not connected");
	sim_net_free(&n);

	/* a switch without links */
	sim_net_init(&n, "alone");
	assert_int_equal(sim_net_add_host(&n, "a", 1, false), 0);
	s0 = sim_net_add_switch(&n, "s0");
	assert_int_not_equal(sim_net_add_switch(&n, "lost"), NONE);
	assert_int_not_equal(sim_net_add_link(&n, 0, s0, SIM_NET_LINK_NET, 0, 0, 0), NONE);
	assert_int_equal(sim_net_finish(&n, true, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "switch 'lost' hangs alone: no link joins it to the topology");
	sim_net_free(&n);

	/* no GPUs */
	sim_net_init(&n, "empty");
	assert_int_equal(sim_net_finish(&n, true, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no GPUs"));
	sim_net_free(&n);

	/* leaf-spine: 16 * 1 / 3 uplinks is not whole; nearest multiple of 4
	 * spines: 4 uplinks, 16:4 = 4:1 */
	sim_net_init(&n, NULL);
	assert_int_equal(sim_net_leafspine(&n, 16, 4, 4, 3, 1, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "leafspine: 16 hosts per leaf at oversubscription 3:1 need "
				 "16 * 1 / 3 = 5.33333 uplinks per leaf, which is not a whole "
				 "multiple of the 4 spines; 4:1 (4 uplinks per leaf) would work");
	assert_int_equal(n.nnodes, 0);
	/* 16 uplinks over 3 spines: 15 would do (16:15) */
	assert_int_equal(sim_net_leafspine(&n, 16, 2, 3, 1, 1, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "16:15 (15 uplinks per leaf) would work"));
	/* 2 uplinks over 4 spines: at least one per spine, 4:4 = 1:1 */
	assert_int_equal(sim_net_leafspine(&n, 4, 2, 4, 2, 1, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "1:1 (4 uplinks per leaf) would work"));
	assert_int_equal(sim_net_leafspine(&n, 4, 2, 4, 0, 1, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "must all be above 0"));
	assert_int_equal(sim_net_leafspine(&n, 4, 0, 4, 1, 1, err, sizeof(err)), -EINVAL);
	sim_net_free(&n);

	/* zero ranks; a network that is not empty */
	sim_net_init(&n, NULL);
	assert_int_equal(sim_net_ring(&n, 0, err, sizeof(err)), -EINVAL);
	assert_int_equal(sim_net_star(&n, 0, err, sizeof(err)), -EINVAL);
	assert_int_equal(sim_net_railopt(&n, 0, 8, 1, err, sizeof(err)), -EINVAL);
	assert_int_equal(sim_net_railopt(&n, 2, 0, 1, err, sizeof(err)), -EINVAL);
	assert_int_equal(sim_net_star(&n, 3, err, sizeof(err)), 0);
	assert_int_equal(sim_net_ring(&n, 3, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not empty"));
	sim_net_free(&n);
	/* no message buffer */
	sim_net_init(&n, NULL);
	assert_int_equal(sim_net_ring(&n, 0, NULL, 0), -EINVAL);
	sim_net_free(&n);
}

/* k = 1: a lone ring NIC without links, a lone star NIC on its switch;
 * both finish, with nothing to route. */
static void test_single(void **state)
{
	struct sim_net n;
	char err[SIM_NET_ERR_LEN];

	(void)state;
	sim_net_init(&n, NULL);
	assert_int_equal(sim_net_ring(&n, 1, err, sizeof(err)), 0);
	assert_int_equal(n.nnodes, 1);
	assert_int_equal(n.nlinks, 0);
	assert_int_equal(hops(&n, 0, 0), 0);
	assert_int_equal(nroutes(&n, 0, 0), 0);
	sim_net_free(&n);
	sim_net_init(&n, NULL);
	assert_int_equal(sim_net_star(&n, 1, err, sizeof(err)), 0);
	assert_int_equal(n.nnodes, 2);
	assert_int_equal(n.nlinks, 1);
	assert_int_equal(nroutes(&n, 1, 0), 1); /* the switch towards rank 0 */
	assert_int_equal(nroutes(&n, 0, 0), 0);
	sim_net_free(&n);
}

/* ---- routes against a reference ---- */

/* A plain search for the reference, straight from sim/net.h's rules
 * rather than sim/net.c's tables: breadth first from rank d's NIC over the
 * links (NVLink ones alone when nvl), through switches only. */
static void ref_bfs(const struct sim_net *n, uint32_t d, bool nvl, uint32_t *dist,
		    uint32_t *queue)
{
	uint32_t head = 0, tail = 0, t = n->rank_node[d];

	for (uint32_t u = 0; u < n->nnodes; u++)
		dist[u] = NONE;
	dist[t] = 0;
	queue[tail++] = t;
	while (head < tail) {
		uint32_t v = queue[head++];

		if (v != t && n->nodes[v].kind != SIM_NET_SWITCH)
			continue;
		for (uint32_t p = 0; p < n->nodes[v].nports; p++) {
			const struct sim_net_link *l = &n->links[n->nodes[v].port_link[p]];
			uint32_t w = l->a == v && l->a_port == p ? l->b : l->a;

			if ((nvl && l->kind != SIM_NET_LINK_NVLINK) || dist[w] != NONE)
				continue;
			dist[w] = dist[v] + 1;
			queue[tail++] = w;
		}
	}
}

/* Every node's distance and ECMP set (its ports in order) towards every
 * rank, as sim_net_dist() and sim_net_routes() give them, equal the
 * reference's: switches' from their rows, NICs' computed on demand. */
static void check_routes(const struct sim_net *n)
{
	uint32_t *all = malloc(n->nnodes * sizeof(*all));
	uint32_t *nvl = malloc(n->nnodes * sizeof(*nvl));
	uint32_t *queue = malloc(n->nnodes * sizeof(*queue));

	assert_non_null(all);
	assert_non_null(nvl);
	assert_non_null(queue);
	for (uint32_t d = 0; d < n->nranks; d++) {
		uint32_t t = n->rank_node[d], h = n->nodes[t].host;
		bool host_nvl = h != NONE && n->hosts[h].nvswitch != NONE;

		ref_bfs(n, d, false, all, queue);
		ref_bfs(n, d, true, nvl, queue);
		for (uint32_t u = 0; u < n->nnodes; u++) {
			const struct sim_net_node *v = &n->nodes[u];
			/* inside a host with an NVSwitch, its GPUs and NVSwitch
			 * go over NVLink only */
			bool only = host_nvl && v->host == h &&
				    (v->kind == SIM_NET_NIC || u == n->hosts[h].nvswitch);
			const uint32_t *dist = only ? nvl : all;
			uint32_t want[SIM_NET_NIC_PORTS_MAX * 64], cnt = 0, buf[SIM_NET_NIC_PORTS_MAX];
			const uint32_t *ports;

			for (uint32_t p = 0; u != t && dist[u] != NONE && p < v->nports; p++) {
				const struct sim_net_link *l = &n->links[v->port_link[p]];
				uint32_t w = l->a == u && l->a_port == p ? l->b : l->a;

				if (only && l->kind != SIM_NET_LINK_NVLINK)
					continue;
				if ((w == t || n->nodes[w].kind == SIM_NET_SWITCH) &&
				    dist[w] != NONE && dist[w] + 1 == dist[u])
					want[cnt++] = p;
			}
			assert_int_equal(sim_net_dist(n, u, d), dist[u]);
			assert_int_equal(sim_net_routes(n, u, d, buf, &ports), cnt);
			for (uint32_t i = 0; i < cnt; i++)
				assert_int_equal(ports[i], want[i]);
		}
	}
	free(all);
	free(nvl);
	free(queue);
}

/* The generators' shapes, and hand-made ones: GPUs on two leaves and an
 * NVSwitch, a GPU cabled to two switches, a ring of NICs. */
static void test_routes_reference(void **state)
{
	struct sim_net n;
	char err[SIM_NET_ERR_LEN];
	uint32_t leaf[2], spine[2];

	(void)state;
	sim_net_init(&n, NULL);
	assert_int_equal(sim_net_ring(&n, 6, err, sizeof(err)), 0);
	check_routes(&n);
	sim_net_free(&n);
	sim_net_init(&n, NULL);
	assert_int_equal(sim_net_star(&n, 9, err, sizeof(err)), 0);
	check_routes(&n);
	sim_net_free(&n);
	sim_net_init(&n, NULL);
	assert_int_equal(sim_net_leafspine(&n, 4, 3, 2, 2, 1, err, sizeof(err)), 0);
	check_routes(&n);
	sim_net_free(&n);
	sim_net_init(&n, NULL);
	assert_int_equal(sim_net_railopt(&n, 4, 8, 2, err, sizeof(err)), 0);
	check_routes(&n);
	/* Rows: 8 rail leaves and 2 spines over the 32 ranks, 4 NVSwitches
	 * over their 8.  Sets, each kept once: a leaf's port to each of its
	 * 4 GPUs and its 4 uplinks (the same port numbers on every leaf), a
	 * spine's 2 links to each of the 8 leaves, an NVSwitch's port to
	 * each of its 8 GPUs (its first 4 as the leaves'): 4 + 4 + 16 + 4. */
	assert_int_equal(n.nrows, 14);
	assert_int_equal(n.nentries, 8 * 32 + 2 * 32 + 4 * 8);
	assert_int_equal(n.nroute_ports, 28);
	sim_net_free(&n);
	sim_net_init(&n, NULL);
	assert_int_equal(sim_net_railopt_nics(&n, 3, 4, 2, 2, err, sizeof(err)), 0);
	check_routes(&n);
	sim_net_free(&n);
	/* a leaf's uplinks all to one spine, and 7 over 3 spines (3, 2, 2):
	 * sets of parallel links (sim/net.c keeps them as a group) */
	sim_net_init(&n, NULL);
	assert_int_equal(sim_net_railopt(&n, 6, 4, 1, err, sizeof(err)), 0);
	check_routes(&n);
	sim_net_free(&n);
	sim_net_init(&n, NULL);
	assert_int_equal(sim_net_railopt(&n, 7, 2, 3, err, sizeof(err)), 0);
	check_routes(&n);
	sim_net_free(&n);
	/* past 2048 nodes ranks are routed in blocks of fewer than all
	 * (48 here), each over the components it meets: the fabric's and
	 * the 6 or 7 NVSwitches' of its hosts, entering and leaving */
	sim_net_init(&n, NULL);
	assert_int_equal(sim_net_railopt(&n, 300, 8, 2, err, sizeof(err)), 0);
	assert_true(n.nnodes > 2048);
	check_routes(&n);
	sim_net_free(&n);
	/* two leaves' cables to two spines interleaved in port order (A, B,
	 * A, B, and one more B): a set over both spines' groups is their
	 * ports merged in port order; and a rank cabled to both leaves */
	sim_net_init(&n, "interleaved");
	assert_int_equal(sim_net_add_host(&n, "h", 3, false), 0);
	leaf[0] = sim_net_add_switch(&n, "leaf0");
	leaf[1] = sim_net_add_switch(&n, "leaf1");
	spine[0] = sim_net_add_switch(&n, "spineA");
	spine[1] = sim_net_add_switch(&n, "spineB");
	for (uint32_t l = 0; l < 2; l++)
		for (uint32_t i = 0; i < 5; i++)
			assert_int_not_equal(sim_net_add_link(&n, leaf[l], spine[i % 2 || i == 4],
							      SIM_NET_LINK_NET, 0,
							      SIM_NET_DEFAULT_PROP, 0), NONE);
	for (uint32_t r = 0; r < 4; r++)
		assert_int_not_equal(sim_net_add_link(&n, n.rank_node[r % 3], leaf[r % 2],
						      SIM_NET_LINK_NET, 0, SIM_NET_DEFAULT_PROP, 0),
				     NONE);
	assert_int_equal(sim_net_finish(&n, true, err, sizeof(err)), 0);
	check_routes(&n);
	sim_net_free(&n);

	sim_net_init(&n, "mixed");
	assert_int_equal(sim_net_add_host(&n, "a", 3, true), 0);
	assert_int_equal(sim_net_add_host(&n, "b", 2, false), 1);
	leaf[0] = sim_net_add_switch(&n, "leaf0");
	leaf[1] = sim_net_add_switch(&n, "leaf1");
	assert_int_not_equal(sim_net_add_link(&n, leaf[0], leaf[1], SIM_NET_LINK_NET, 0,
					      SIM_NET_DEFAULT_PROP, 0), NONE);
	for (uint32_t r = 0; r < 5; r++)
		assert_int_not_equal(sim_net_add_link(&n, n.rank_node[r], leaf[r % 2],
						      SIM_NET_LINK_NET, 0, SIM_NET_DEFAULT_PROP, 0),
				     NONE);
	/* a.gpu1 has a second cable, to the other leaf, and b's GPUs a direct one */
	assert_int_not_equal(sim_net_add_link(&n, n.rank_node[1], leaf[0], SIM_NET_LINK_NET, 0,
					      SIM_NET_DEFAULT_PROP, 0), NONE);
	assert_int_not_equal(sim_net_add_link(&n, n.rank_node[3], n.rank_node[4],
					      SIM_NET_LINK_NET, 0, SIM_NET_DEFAULT_PROP, 0), NONE);
	assert_int_equal(sim_net_finish(&n, true, err, sizeof(err)), 0);
	check_routes(&n);
	sim_net_free(&n);
}

/* A large star: 4096 ranks, 4097 nodes, one table row (the switch's; a
 * NIC's routes are worked out when asked), whose 4096 sets are a port
 * each: 4096 entries and ports, where a row per node took 200 MB. */
static void test_star_4096(void **state)
{
	struct sim_net n;
	char err[SIM_NET_ERR_LEN];

	(void)state;
	sim_net_init(&n, NULL);
	assert_int_equal(sim_net_star(&n, 4096, err, sizeof(err)), 0);
	assert_int_equal(n.nnodes, 4097);
	assert_int_equal(n.nrows, 1);
	assert_int_equal(n.nentries, 4096);
	assert_int_equal(n.nroute_ports, 4096);
	assert_int_equal(hops(&n, 0, 4095), 2);
	assert_int_equal(sim_net_pick(&n, 4096, 4095, 1), 4095);
	assert_int_equal(sim_net_pick(&n, 17, 4095, 1), 0);
	sim_net_free(&n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builder),
		cmocka_unit_test(test_builder_errors),
		cmocka_unit_test(test_ring),
		cmocka_unit_test(test_star),
		cmocka_unit_test(test_leafspine),
		cmocka_unit_test(test_railopt),
		cmocka_unit_test(test_nvlink_preferred),
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_single),
		cmocka_unit_test(test_routes_reference),
		cmocka_unit_test(test_star_4096),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
