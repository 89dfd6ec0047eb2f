/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/net.c — the network description of sim/net.h: the builder (hosts,
 * switches, links in growable arrays), validation, and the route tables
 * sim_net_finish() computes.
 *
 * Routes.  One breadth-first search per destination rank d, outward from
 * d's NIC over the links, expanding switches only: a NIC reached gets its
 * distance but is never expanded, because a NIC does not forward (on the
 * `ring` a rank reaches its neighbours and nobody else).  The ECMP set of
 * node u towards d is then every port of u whose far end w is one step
 * nearer (dist[w] == dist[u] - 1) and may carry the packet on: a switch, or
 * d's NIC itself.  All equal-cost next hops, as ECMP routing installs them
 * (RFC 2992), so every path a flow can take is a shortest one.
 *
 * NVLink inside a host.  For two ranks of one host that has an NVSwitch,
 * NCCL moves data over NVLink, never through the NICs: the entries of that
 * host's nodes (its GPUs' NICs and its NVSwitch) towards its own ranks come
 * from a second search over NVLink links alone.
 *
 * Memory.  dist and route_first hold nnodes * nranks entries each and
 * route_ports about as many (one port per reachable entry on a tree):
 * 12 bytes per (node, rank) pair, e.g. 200 MB for a 4096-rank star (4097
 * nodes), 3.6 GB for 16384 ranks in 8-GPU nodes on rails (about 18,500
 * nodes): what bounds CC_MAX_RANKS (core/schedule.h).  Only a failed
 * allocation (or an index past 32 bits) refuses a network.
 */
#include "sim/net.h"
#include "sim/net_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/splitmix.h"

/* ---- builder ---- */

void sim_net_init(struct sim_net *n, const char *name)
{
	memset(n, 0, sizeof(*n));
	snprintf(n->name, sizeof(n->name), "%s", name ? name : "");
}

static void free_routes(struct sim_net *n)
{
	free(n->route_first);
	free(n->route_ports);
	free(n->dist);
	n->route_first = n->route_ports = n->dist = NULL;
	n->finished = false;
}

void sim_net_free(struct sim_net *n)
{
	if (!n)
		return;
	for (uint32_t i = 0; i < n->nnodes; i++)
		free(n->nodes[i].port_link);
	free(n->nodes);
	free(n->links);
	free(n->hosts);
	free(n->rank_node);
	free_routes(n);
	memset(n, 0, sizeof(*n));
}

/* Makes room for `want` elements of `size` bytes in the array whose pointer
 * is at *arrp (any element type: the pointer is moved with memcpy) and
 * whose capacity is *cap, doubling (git's ALLOC_GROW); false, errno =
 * ENOMEM, when it cannot, with the array as it was. */
static bool grow(void *arrp, uint32_t *cap, uint32_t want, size_t size)
{
	uint64_t ncap = *cap ? *cap : 8;
	void *arr, *p;

	if (want <= *cap)
		return true;
	while (ncap < want)
		ncap *= 2;
	if (ncap > UINT32_MAX)
		ncap = UINT32_MAX;
	memcpy(&arr, arrp, sizeof(arr));
	p = realloc(arr, (size_t)ncap * size);
	if (!p) {
		errno = ENOMEM;
		return false;
	}
	memcpy(arrp, &p, sizeof(p));
	*cap = (uint32_t)ncap;
	return true;
}

static bool reserve_nodes(struct sim_net *n, uint32_t more)
{
	if (more > UINT32_MAX - 1 - n->nnodes) {
		errno = EINVAL;
		return false;
	}
	return grow(&n->nodes, &n->cap_nodes, n->nnodes + more, sizeof(*n->nodes));
}

/* rank_node has no capacity field: its capacity is a function of nranks
 * (the power of two at or above it, at least 8), so it needs none. */
static uint32_t rank_cap(uint32_t nranks)
{
	uint64_t c = 8;

	if (nranks == 0)
		return 0;
	while (c < nranks)
		c *= 2;
	return c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
}

static bool reserve_ranks(struct sim_net *n, uint32_t more)
{
	uint32_t cap = rank_cap(n->nranks);
	void *p;

	if (n->nranks + more <= cap)
		return true;
	p = realloc(n->rank_node, (size_t)rank_cap(n->nranks + more) * sizeof(*n->rank_node));
	if (!p) {
		errno = ENOMEM;
		return false;
	}
	n->rank_node = p;
	return true;
}

static bool reserve_ports(struct sim_net_node *v, uint32_t more)
{
	return grow(&v->port_link, &v->cap_ports, v->nports + more, sizeof(*v->port_link));
}

uint32_t sim_net_find(const struct sim_net *n, const char *name)
{
	if (!n || !name)
		return SIM_NET_NONE;
	for (uint32_t i = 0; i < n->nnodes; i++)
		if (strcmp(n->nodes[i].name, name) == 0)
			return i;
	return SIM_NET_NONE;
}

/* A new node (room reserved); its index. */
static uint32_t node_new(struct sim_net *n, enum sim_net_kind kind, const char *name,
			 uint32_t rank, uint32_t host)
{
	struct sim_net_node *v = &n->nodes[n->nnodes];

	memset(v, 0, sizeof(*v));
	v->kind = kind;
	snprintf(v->name, sizeof(v->name), "%s", name);
	v->rank = rank;
	v->host = host;
	return n->nnodes++;
}

/* Whether `name` can name a new node: non-empty, fits, not taken. */
static bool name_free(const struct sim_net *n, const char *name)
{
	return name && name[0] && strlen(name) < SIM_NET_NAME_LEN &&
	       sim_net_find(n, name) == SIM_NET_NONE;
}

static uint32_t fail(int err)
{
	errno = err;
	return SIM_NET_NONE;
}

uint32_t sim_net_add_switch(struct sim_net *n, const char *name)
{
	if (!n || n->finished || !name_free(n, name))
		return fail(EINVAL);
	if (!reserve_nodes(n, 1))
		return SIM_NET_NONE;
	return node_new(n, SIM_NET_SWITCH, name, SIM_NET_NONE, SIM_NET_NONE);
}

bool sim_net_has_sharp(const struct sim_net *n)
{
	for (uint32_t u = 0; n && u < n->nnodes; u++)
		if (n->nodes[u].kind == SIM_NET_SWITCH && n->nodes[u].sharp)
			return true;
	return false;
}

static bool mtu_ok(uint32_t mtu)
{
	return mtu == 0 || mtu == 256 || mtu == 512 || mtu == 1024 || mtu == 2048 || mtu == 4096;
}

bool sim_net_same_host(const struct sim_net *n, uint32_t a, uint32_t b)
{
	return a < n->nnodes && b < n->nnodes && n->nodes[a].host != SIM_NET_NONE &&
	       n->nodes[a].host == n->nodes[b].host;
}

uint32_t sim_net_add_link(struct sim_net *n, uint32_t a, uint32_t b, enum sim_net_link_kind kind,
			  uint64_t rate_bps, sim_time_ps prop_ps, uint32_t mtu)
{
	struct sim_net_link *l;

	if (!n || n->finished || a >= n->nnodes || b >= n->nnodes || a == b ||
	    (kind != SIM_NET_LINK_NET && kind != SIM_NET_LINK_NVLINK) || !mtu_ok(mtu) ||
	    (kind == SIM_NET_LINK_NVLINK && !sim_net_same_host(n, a, b)) ||
	    n->nlinks == UINT32_MAX - 1)
		return fail(EINVAL);
	/* Every allocation first, so a failure leaves the network as it was. */
	if (!grow(&n->links, &n->cap_links, n->nlinks + 1, sizeof(*n->links)) ||
	    !reserve_ports(&n->nodes[a], 1) || !reserve_ports(&n->nodes[b], 1))
		return SIM_NET_NONE;
	l = &n->links[n->nlinks];
	*l = (struct sim_net_link){
		.a = a, .a_port = n->nodes[a].nports, .b = b, .b_port = n->nodes[b].nports,
		.kind = kind, .rate_bps = rate_bps, .prop_ps = prop_ps, .mtu = mtu,
	};
	n->nodes[a].port_link[n->nodes[a].nports++] = n->nlinks;
	n->nodes[b].port_link[n->nodes[b].nports++] = n->nlinks;
	return n->nlinks++;
}

/* Whether host `name` with ngpus GPUs can be added: the host name is new,
 * and so is every node name it makes, each fitting SIM_NET_NAME_LEN. */
static bool host_names_ok(const struct sim_net *n, const char *name, uint32_t ngpus, bool nvlink)
{
	char buf[SIM_NET_NAME_LEN + 16];

	if (!name || !name[0])
		return false;
	for (uint32_t h = 0; h < n->nhosts; h++)
		if (strcmp(n->hosts[h].name, name) == 0)
			return false;
	/* The longest GPU name is the last one's. */
	snprintf(buf, sizeof(buf), "%.*s.gpu%u", SIM_NET_NAME_LEN, name, ngpus - 1);
	if (strlen(buf) >= SIM_NET_NAME_LEN)
		return false;
	snprintf(buf, sizeof(buf), "%.*s.nvswitch", SIM_NET_NAME_LEN, name);
	if (nvlink && !name_free(n, buf))
		return false;
	for (uint32_t g = 0; g < ngpus; g++) {
		snprintf(buf, sizeof(buf), "%s.gpu%u", name, g);
		if (!name_free(n, buf))
			return false;
	}
	return true;
}

/* Undoes a partly added host: its nodes (their links are among the last,
 * joining only them) and ranks. */
static void host_rollback(struct sim_net *n, uint32_t nnodes, uint32_t nlinks, uint32_t nranks)
{
	for (uint32_t i = nnodes; i < n->nnodes; i++)
		free(n->nodes[i].port_link);
	n->nnodes = nnodes;
	n->nlinks = nlinks;
	n->nranks = nranks;
}

uint32_t sim_net_add_host(struct sim_net *n, const char *name, uint32_t ngpus, bool nvlink)
{
	uint32_t nnodes, nlinks, nranks, nvs = SIM_NET_NONE, h;
	char buf[SIM_NET_NAME_LEN];

	if (!n || n->finished || ngpus == 0 || ngpus > UINT32_MAX - 2 - n->nranks ||
	    !host_names_ok(n, name, ngpus, nvlink))
		return fail(EINVAL);
	if (!reserve_nodes(n, ngpus + (nvlink ? 1 : 0)) || !reserve_ranks(n, ngpus) ||
	    !grow(&n->hosts, &n->cap_hosts, n->nhosts + 1, sizeof(*n->hosts)))
		return SIM_NET_NONE;
	nnodes = n->nnodes;
	nlinks = n->nlinks;
	nranks = n->nranks;
	h = n->nhosts;
	for (uint32_t g = 0; g < ngpus; g++) {
		snprintf(buf, sizeof(buf), "%s.gpu%u", name, g);
		n->rank_node[n->nranks] = node_new(n, SIM_NET_NIC, buf, n->nranks, h);
		n->nranks++;
	}
	if (nvlink) {
		snprintf(buf, sizeof(buf), "%s.nvswitch", name);
		nvs = node_new(n, SIM_NET_SWITCH, buf, SIM_NET_NONE, h);
		for (uint32_t g = 0; g < ngpus; g++) {
			if (sim_net_add_link(n, nnodes + g, nvs, SIM_NET_LINK_NVLINK, 0,
					     SIM_NET_DEFAULT_PROP, 0) == SIM_NET_NONE) {
				host_rollback(n, nnodes, nlinks, nranks);
				return fail(ENOMEM);
			}
		}
	}
	n->hosts[h] = (struct sim_net_host){
		.first_rank = nranks, .ngpus = ngpus, .nvswitch = nvs,
		.pcie = {.latency_ps = SIM_NET_DEFAULT_PROP},
		.first_pcie_switch = sim_net_pcie_switch_count(n),
	};
	snprintf(n->hosts[h].name, sizeof(n->hosts[h].name), "%s", name);
	n->nhosts++;
	return h;
}

int sim_net_host_pcie(struct sim_net *n, uint32_t h, const struct sim_net_pcie *pc)
{
	if (!n || !pc || h >= n->nhosts || pc->switches == 0 ||
	    n->hosts[h].ngpus % pc->switches)
		return -EINVAL;
	n->hosts[h].pcie = *pc;
	for (uint32_t i = h + 1; i < n->nhosts; i++)
		n->hosts[i].first_pcie_switch =
			n->hosts[i - 1].first_pcie_switch + n->hosts[i - 1].pcie.switches;
	return 0;
}

int sim_net_host_nics(struct sim_net *n, uint32_t h, uint32_t nics)
{
	if (!n || n->finished || h >= n->nhosts || nics == 0 || nics > SIM_NET_MAX_NICS)
		return -EINVAL;
	n->hosts[h].nics = nics;
	return 0;
}

uint32_t sim_net_rank_nics(const struct sim_net *n, uint32_t r)
{
	return n->hosts[sim_net_rank_host(n, r)].nics;
}

uint32_t sim_net_pcie_switch_count(const struct sim_net *n)
{
	const struct sim_net_host *last = n->nhosts ? &n->hosts[n->nhosts - 1] : NULL;

	return last ? last->first_pcie_switch + last->pcie.switches : 0;
}

uint64_t sim_net_pcie_uplink_bps(const struct sim_net_pcie *pc, uint64_t pcie_rate_bps)
{
	return pc->uplink_bps ? pc->uplink_bps : pcie_rate_bps;
}

sim_time_ps sim_net_pcie_hop_ps(const struct sim_net_pcie *pc)
{
	return pc->latency_ps == SIM_NET_DEFAULT_PROP ? SIM_NET_PCIE_SWITCH_PS : pc->latency_ps;
}

bool sim_net_pcie_text(const struct sim_net *n, uint64_t pcie_rate_bps, char *buf, size_t len)
{
	uint32_t hosts = 0, nsw = sim_net_pcie_switch_count(n);
	uint64_t rate = 0;
	sim_time_ps hop = 0;
	bool same = true;

	if (!nsw)
		return false;
	for (uint32_t h = 0; h < n->nhosts; h++) {
		const struct sim_net_pcie *pc = &n->hosts[h].pcie;
		uint64_t r = sim_net_pcie_uplink_bps(pc, pcie_rate_bps);
		sim_time_ps l = sim_net_pcie_hop_ps(pc);

		if (!pc->switches)
			continue;
		if (hosts++ && (r != rate || l != hop))
			same = false;
		rate = r;
		hop = l;
	}
	if (same)
		snprintf(buf, len, "%u PCIe switches over %u of %u hosts, GPUs and NICs behind each "
			 "sharing its uplink to host memory: %g Gb/s, %g ns a hop", nsw, hosts,
			 n->nhosts, (double)rate / 1e9, (double)hop / 1e3);
	else
		snprintf(buf, len, "%u PCIe switches over %u of %u hosts, GPUs and NICs behind each "
			 "sharing its uplink to host memory: rates and hops per host as the "
			 "topology gives", nsw, hosts, n->nhosts);
	return true;
}

uint32_t sim_net_rank_host(const struct sim_net *n, uint32_t r)
{
	return n->nodes[n->rank_node[r]].host;
}

uint32_t sim_net_pcie_switch(const struct sim_net *n, uint32_t r)
{
	const struct sim_net_host *h = &n->hosts[sim_net_rank_host(n, r)];

	if (!h->pcie.switches)
		return SIM_NET_NONE;
	return h->first_pcie_switch + (r - h->first_rank) / (h->ngpus / h->pcie.switches);
}

/* ---- routes ---- */

void sim_net_peer(const struct sim_net *n, uint32_t u, uint32_t p, uint32_t *node, uint32_t *port)
{
	const struct sim_net_link *l = &n->links[n->nodes[u].port_link[p]];
	bool at_a = l->a == u && l->a_port == p;

	if (node)
		*node = at_a ? l->b : l->a;
	if (port)
		*port = at_a ? l->b_port : l->a_port;
}

/* Scratch of the route computation: the graph as flat adjacency arrays
 * (each port's far node, and whether its link is NVLink), and the searches
 * of a block of destinations. */
#define ROUTE_BLOCK_MAX 64u

struct route_scratch {
	uint32_t *adj_first;  /* nnodes + 1: node u's ports at adj_first[u] .. */
	uint32_t *adj_peer;   /* the far node of each port */
	uint32_t *adj_pport;  /* and the port there */
	uint8_t *adj_nvl;     /* its link is NVLink */
	uint8_t *fwd;         /* per node: a switch (forwards) */
	uint32_t *nvl_host;   /* per node: its host if NVLink-only towards that host's
			       * ranks (a GPU of a host with an NVSwitch, or the
			       * NVSwitch), else SIM_NET_NONE */
	uint32_t *queue;
	uint32_t block;       /* destinations per block */
	uint32_t *dist_all;   /* block x nnodes: over every link */
	uint32_t *dist_nvl;   /* block x nnodes: over NVLink links only */
};

/* Breadth-first search from rank d's NIC, expanding switches only, over
 * every link or (nvlink_only) NVLink links alone. */
static void bfs(const struct sim_net *n, const struct route_scratch *s, uint32_t d,
		bool nvlink_only, uint32_t *dist)
{
	uint32_t head = 0, tail = 0, t = n->rank_node[d];

	for (uint32_t i = 0; i < n->nnodes; i++)
		dist[i] = SIM_NET_NONE;
	dist[t] = 0;
	s->queue[tail++] = t;
	while (head < tail) {
		uint32_t v = s->queue[head++];

		/* The destination starts the search; any other NIC ends it. */
		if (v != t && !s->fwd[v])
			continue;
		for (uint32_t i = s->adj_first[v]; i < s->adj_first[v + 1]; i++) {
			uint32_t w = s->adj_peer[i];

			if ((nvlink_only && !s->adj_nvl[i]) || dist[w] != SIM_NET_NONE)
				continue;
			dist[w] = dist[v] + 1;
			s->queue[tail++] = w;
		}
	}
}

/* One hop from t: u's links to t itself, found from t's side — a NIC has
 * a port or two where a switch may have thousands (a 4096-port star would
 * otherwise scan every switch port for every rank).  In u's port order. */
static uint32_t ecmp_last_hop(const struct route_scratch *s, uint32_t u, uint32_t t,
			      bool nvlink_only, uint32_t *ports)
{
	uint32_t cnt = 0;

	for (uint32_t i = s->adj_first[t]; i < s->adj_first[t + 1]; i++) {
		if (s->adj_peer[i] != u || (nvlink_only && !s->adj_nvl[i]))
			continue;
		if (ports) {
			uint32_t j = cnt;

			/* insertion: parallel links rarely number more than two */
			for (; j > 0 && ports[j - 1] > s->adj_pport[i]; j--)
				ports[j] = ports[j - 1];
			ports[j] = s->adj_pport[i];
		}
		cnt++;
	}
	return cnt;
}

/* The ECMP set of u towards the NIC t under `dist` (NVLink links only
 * when nvlink_only): counted, and written to ports when non-NULL. */
static uint32_t ecmp_set(const struct route_scratch *s, uint32_t u, uint32_t t,
			 const uint32_t *dist, bool nvlink_only, uint32_t *ports)
{
	uint32_t cnt = 0, first = s->adj_first[u];

	if (u == t || dist[u] == SIM_NET_NONE)
		return 0;
	if (dist[u] == 1)
		return ecmp_last_hop(s, u, t, nvlink_only, ports);
	for (uint32_t i = first; i < s->adj_first[u + 1]; i++) {
		uint32_t w = s->adj_peer[i];

		if ((nvlink_only && !s->adj_nvl[i]) || dist[w] + 1 != dist[u] ||
		    (w != t && !s->fwd[w]))
			continue;
		if (ports)
			ports[cnt] = i - first;
		cnt++;
	}
	return cnt;
}

/* The host whose ranks' entries are NVLink-only, for rank d: its host if
 * that host has an NVSwitch, else SIM_NET_NONE. */
static uint32_t nvl_host_of_rank(const struct sim_net *n, uint32_t d)
{
	uint32_t h = n->nodes[n->rank_node[d]].host;

	return h != SIM_NET_NONE && n->hosts[h].nvswitch != SIM_NET_NONE ? h : SIM_NET_NONE;
}

/* Destinations d0 .. d0 + cnt - 1: their searches first, then node by
 * node each entry's distance and either its set's size (into
 * route_first[i + 1], first pass) or the set itself (at route_first[i],
 * second pass).  Node by node, so the tables, laid out [u * nranks + d],
 * are written in runs of cnt entries rather than one entry per row. */
static void route_block(struct sim_net *n, struct route_scratch *s, uint32_t d0, uint32_t cnt,
			bool fill)
{
	uint32_t host[ROUTE_BLOCK_MAX], nic[ROUTE_BLOCK_MAX];

	for (uint32_t j = 0; j < cnt; j++) {
		host[j] = nvl_host_of_rank(n, d0 + j);
		nic[j] = n->rank_node[d0 + j];
		bfs(n, s, d0 + j, false, s->dist_all + (size_t)j * n->nnodes);
		if (host[j] != SIM_NET_NONE)
			bfs(n, s, d0 + j, true, s->dist_nvl + (size_t)j * n->nnodes);
	}
	for (uint32_t u = 0; u < n->nnodes; u++) {
		size_t i = (size_t)u * n->nranks + d0;

		for (uint32_t j = 0; j < cnt; j++, i++) {
			bool only = host[j] != SIM_NET_NONE && s->nvl_host[u] == host[j];
			const uint32_t *dist = (only ? s->dist_nvl : s->dist_all) +
					       (size_t)j * n->nnodes;

			if (fill) {
				ecmp_set(s, u, nic[j], dist, only, n->route_ports + n->route_first[i]);
			} else {
				n->dist[i] = dist[u];
				n->route_first[i + 1] = ecmp_set(s, u, nic[j], dist, only, NULL);
			}
		}
	}
}

/* The adjacency arrays and which nodes' entries may be NVLink-only. */
static void fill_graph(const struct sim_net *n, struct route_scratch *s)
{
	uint32_t i = 0;

	for (uint32_t u = 0; u < n->nnodes; u++) {
		const struct sim_net_node *v = &n->nodes[u];
		uint32_t h = v->host;

		s->adj_first[u] = i;
		s->fwd[u] = v->kind == SIM_NET_SWITCH;
		for (uint32_t p = 0; p < v->nports; p++, i++) {
			sim_net_peer(n, u, p, &s->adj_peer[i], &s->adj_pport[i]);
			s->adj_nvl[i] = n->links[v->port_link[p]].kind == SIM_NET_LINK_NVLINK;
		}
		s->nvl_host[u] = SIM_NET_NONE;
		if (h != SIM_NET_NONE && n->hosts[h].nvswitch != SIM_NET_NONE &&
		    (v->kind == SIM_NET_NIC || u == n->hosts[h].nvswitch))
			s->nvl_host[u] = h;
	}
	s->adj_first[n->nnodes] = i;
}

/* Destinations per block: their distance columns (two arrays of
 * block x nnodes entries) stay within about a megabyte, in cache. */
static uint32_t block_size(const struct sim_net *n)
{
	uint32_t b = (1u << 17) / n->nnodes;

	return b == 0 ? 1 : b > ROUTE_BLOCK_MAX ? ROUTE_BLOCK_MAX : b;
}

/* The tables' and the scratch's allocations, or -ENOMEM / -E2BIG with a
 * message. */
static int alloc_tables(struct sim_net *n, struct route_scratch *s, char *err, size_t errlen)
{
	size_t entries = (size_t)n->nnodes * n->nranks, ports = 2 * (size_t)n->nlinks;

	if (n->nranks && entries / n->nranks != n->nnodes)
		return cc_errf(err, errlen, -E2BIG, "%s: %u nodes x %u ranks: too many route "
			"entries", n->name, n->nnodes, n->nranks);
	s->block = block_size(n);
	n->dist = malloc((entries ? entries : 1) * sizeof(*n->dist));
	n->route_first = calloc(entries + 1, sizeof(*n->route_first));
	s->adj_first = malloc(((size_t)n->nnodes + 1) * sizeof(uint32_t));
	s->adj_peer = malloc((ports ? ports : 1) * sizeof(uint32_t));
	s->adj_pport = malloc((ports ? ports : 1) * sizeof(uint32_t));
	s->adj_nvl = malloc(ports ? ports : 1);
	s->fwd = malloc(n->nnodes);
	s->nvl_host = malloc(n->nnodes * sizeof(uint32_t));
	s->queue = malloc(n->nnodes * sizeof(uint32_t));
	s->dist_all = malloc((size_t)s->block * n->nnodes * sizeof(uint32_t));
	s->dist_nvl = malloc((size_t)s->block * n->nnodes * sizeof(uint32_t));
	if (!n->dist || !n->route_first || !s->adj_first || !s->adj_peer || !s->adj_pport ||
	    !s->adj_nvl || !s->fwd ||
	    !s->nvl_host || !s->queue || !s->dist_all || !s->dist_nvl)
		return cc_errf(err, errlen, -ENOMEM, "%s: out of memory for the route tables of "
			"%u nodes x %u ranks (%zu MB)", n->name, n->nnodes, n->nranks,
			entries * 12 >> 20);
	fill_graph(n, s);
	return 0;
}

static void free_scratch(struct route_scratch *s)
{
	free(s->adj_first);
	free(s->adj_peer);
	free(s->adj_pport);
	free(s->adj_nvl);
	free(s->fwd);
	free(s->nvl_host);
	free(s->queue);
	free(s->dist_all);
	free(s->dist_nvl);
}

/* Prefix sums of the set sizes, then the ports array. */
static int alloc_ports(struct sim_net *n, char *err, size_t errlen)
{
	size_t entries = (size_t)n->nnodes * n->nranks;
	uint64_t sum = 0;

	for (size_t i = 1; i <= entries; i++) {
		sum += n->route_first[i];
		if (sum > UINT32_MAX - 1)
			return cc_errf(err, errlen, -E2BIG, "%s: more than 2^32 route ports",
				n->name);
		n->route_first[i] = (uint32_t)sum;
	}
	n->route_ports = malloc((sum ? sum : 1) * sizeof(*n->route_ports));
	if (!n->route_ports)
		return cc_errf(err, errlen, -ENOMEM, "%s: out of memory for %llu route ports",
			n->name, (unsigned long long)sum);
	return 0;
}

/* Runs one pass of route_block() over every destination. */
static void route_pass(struct sim_net *n, struct route_scratch *s, bool fill)
{
	for (uint32_t d0 = 0; d0 < n->nranks; d0 += s->block) {
		uint32_t cnt = n->nranks - d0 < s->block ? n->nranks - d0 : s->block;

		route_block(n, s, d0, cnt, fill);
	}
}

/* -EINVAL naming the pair (s, d) without a route. */
static int unreachable(const struct sim_net *n, uint32_t s, uint32_t d, char *err, size_t errlen)
{
	return cc_errf(err, errlen, -EINVAL, "rank %u (%s) cannot reach rank %u (%s): the "
		"topology is not connected", s, n->nodes[n->rank_node[s]].name, d,
		n->nodes[n->rank_node[d]].name);
}

bool sim_net_reaches(const struct sim_net *n, uint32_t s, uint32_t d)
{
	return n->dist[(size_t)n->rank_node[s] * n->nranks + d] != SIM_NET_NONE;
}

/* Every pair (all_pairs), or every ring neighbour, has a route. */
static int check_reach(const struct sim_net *n, bool all_pairs, char *err, size_t errlen)
{
	uint32_t k = n->nranks;

	for (uint32_t s = 0; s < k; s++) {
		if (all_pairs) {
			for (uint32_t d = 0; d < k; d++)
				if (d != s && !sim_net_reaches(n, s, d))
					return unreachable(n, s, d, err, errlen);
			continue;
		}
		uint32_t next = s + 1 == k ? 0 : s + 1, prev = s == 0 ? k - 1 : s - 1;

		if (next != s && !sim_net_reaches(n, s, next))
			return unreachable(n, s, next, err, errlen);
		if (prev != s && !sim_net_reaches(n, s, prev))
			return unreachable(n, s, prev, err, errlen);
	}
	return 0;
}

/* A node without a link, in a network of more than one node. */
static int check_alone(const struct sim_net *n, char *err, size_t errlen)
{
	if (n->nnodes < 2)
		return 0;
	for (uint32_t u = 0; u < n->nnodes; u++)
		if (n->nodes[u].nports == 0)
			return cc_errf(err, errlen, -EINVAL,
				       "%s '%s' hangs alone: no link joins it "
				"to the topology", n->nodes[u].kind == SIM_NET_NIC ? "GPU"
				: "switch", n->nodes[u].name);
	return 0;
}

/* Every GPU of a host with `nics` has as many network ports: one each. */
static int check_nics(const struct sim_net *n, char *err, size_t errlen)
{
	for (uint32_t r = 0; r < n->nranks; r++) {
		const struct sim_net_node *u = &n->nodes[n->rank_node[r]];
		uint32_t want = n->hosts[u->host].nics, net = 0;

		if (!want)
			continue;
		for (uint32_t p = 0; p < u->nports; p++)
			net += n->links[u->port_link[p]].kind == SIM_NET_LINK_NET;
		if (net != want)
			return cc_errf(err, errlen, -EINVAL, "GPU '%s' has %u network link%s; its "
				       "host's 'nics: %u' needs one per NIC", u->name, net,
				       net == 1 ? "" : "s", want);
	}
	return 0;
}

int sim_net_finish(struct sim_net *n, bool all_pairs, char *err, size_t errlen)
{
	struct route_scratch s = {0};
	int rc;

	if (err && errlen)
		err[0] = '\0';
	if (!n)
		return -EINVAL;
	if (n->finished)
		return 0;
	if (n->nranks == 0)
		return cc_errf(err, errlen, -EINVAL, "%s: no GPUs (a topology needs at least one "
			"host)", n->name);
	rc = check_alone(n, err, errlen);
	if (!rc)
		rc = check_nics(n, err, errlen);
	if (!rc)
		rc = alloc_tables(n, &s, err, errlen);
	if (!rc) {
		route_pass(n, &s, false);
		rc = check_reach(n, all_pairs, err, errlen);
	}
	if (!rc)
		rc = alloc_ports(n, err, errlen);
	if (!rc)
		route_pass(n, &s, true);
	free_scratch(&s);
	if (rc) {
		free_routes(n);
		return rc;
	}
	n->finished = true;
	return 0;
}

uint32_t sim_net_routes(const struct sim_net *n, uint32_t u, uint32_t d, const uint32_t **ports)
{
	size_t i;

	if (ports)
		*ports = NULL;
	if (!n || !n->finished || u >= n->nnodes || d >= n->nranks)
		return 0;
	i = (size_t)u * n->nranks + d;
	if (ports)
		*ports = n->route_ports + n->route_first[i];
	return n->route_first[i + 1] - n->route_first[i];
}

uint32_t sim_net_pick(const struct sim_net *n, uint32_t u, uint32_t d, uint64_t flow)
{
	const uint32_t *ports;
	uint32_t cnt = sim_net_routes(n, u, d, &ports);

	if (cnt == 0)
		return SIM_NET_NONE;
	if (cnt == 1)
		return ports[0];
	/* The node id salts the hash, as switches seed their ECMP hash
	 * differently so that successive tiers do not pick in lockstep
	 * (hash polarization).  Integer arithmetic only: the same choice on
	 * every machine. */
	return ports[cc_splitmix64(flow ^ ((uint64_t)u * CC_SPLITMIX_GAMMA)) % cnt];
}

uint32_t sim_net_pick_port(const struct sim_net *n, uint32_t u, uint32_t d, uint32_t port,
			   uint64_t flow)
{
	const uint32_t *ports;
	uint32_t cnt = sim_net_routes(n, u, d, &ports);

	for (uint32_t i = 0; i < cnt; i++) {
		uint32_t node, at;

		sim_net_peer(n, u, ports[i], &node, &at);
		if (node == n->rank_node[d] && at == port)
			return ports[i];
	}
	return sim_net_pick(n, u, d, flow);
}

uint32_t sim_net_ranks_per_node(const struct sim_net *n)
{
	uint32_t g = n->nhosts ? n->hosts[0].ngpus : 0;

	for (uint32_t h = 0; h < n->nhosts; h++)
		if (n->hosts[h].ngpus != g || n->hosts[h].first_rank != h * g)
			return 0;
	return g;
}

uint32_t sim_net_nvswitch_host(const struct sim_net *n, uint32_t first, uint32_t count)
{
	const struct sim_net_host *h;
	uint32_t hi;

	if (!n || count == 0 || first >= n->nranks || count > n->nranks - first)
		return SIM_NET_NONE;
	hi = n->nodes[n->rank_node[first]].host;
	if (hi >= n->nhosts)
		return SIM_NET_NONE;
	h = &n->hosts[hi];
	if (h->nvswitch == SIM_NET_NONE || first < h->first_rank ||
	    first + count > h->first_rank + h->ngpus)
		return SIM_NET_NONE;
	return hi;
}

uint32_t sim_net_nvswitch_port(const struct sim_net *n, uint32_t r)
{
	uint32_t u, h, node;

	if (!n || r >= n->nranks)
		return SIM_NET_NONE;
	u = n->rank_node[r];
	h = n->nodes[u].host;
	if (h >= n->nhosts || n->hosts[h].nvswitch == SIM_NET_NONE)
		return SIM_NET_NONE;
	for (uint32_t p = 0; p < n->nodes[u].nports; p++) {
		sim_net_peer(n, u, p, &node, NULL);
		if (node == n->hosts[h].nvswitch)
			return p;
	}
	return SIM_NET_NONE;
}
