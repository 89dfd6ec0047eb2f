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
 * Memory.  Only switches keep tables, each a row over the ranks it can
 * reach: dist, route_off and route_cnt an entry per (switch, rank), 12
 * bytes, and each distinct ECMP set once in route_ports.  A NIC, whose
 * ports are few, works its routes out from its neighbours' rows when
 * asked (nic_routes()).  So a star of 16384 ranks holds one row (192 KB)
 * where a table per node held 3.2 GB, and 16384 ranks in 8-GPU nodes on rails hold their fabric
 * switches' rows and each NVSwitch's eight entries.  Only a failed
 * allocation (or an index past 32 bits) refuses a network.
 */
#include "sim/net.h"
#include "sim/net_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/grow.h"
#include "util/splitmix.h"

/* ---- builder ---- */

void sim_net_init(struct sim_net *n, const char *name)
{
	memset(n, 0, sizeof(*n));
	snprintf(n->name, sizeof(n->name), "%s", name ? name : "");
}

static void free_routes(struct sim_net *n)
{
	free(n->route_off);
	free(n->route_cnt);
	free(n->route_ports);
	free(n->dist);
	free(n->rows);
	free(n->row_of);
	n->route_off = n->route_cnt = n->route_ports = n->dist = n->row_of = NULL;
	n->nroute_ports = 0;
	n->rows = NULL;
	n->nrows = 0;
	n->nentries = 0;
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
	free(n->node_names.slot);
	free(n->host_names.slot);
	free_routes(n);
	memset(n, 0, sizeof(*n));
}

/* Room for `want` elements (util/grow.h); false, errno = ENOMEM, when there
 * is none, with the array as it was. */
static bool grow(void *arrp, uint32_t *cap, uint32_t want, size_t size)
{
	if (cc_grow(arrp, cap, want, size)) {
		errno = ENOMEM;
		return false;
	}
	return true;
}

/* Names to indices, so that adding a node or host checks its name in
 * constant time (a star of 16384 hosts compared each new name with every
 * one before it: 10^8 strcmp()s).  Open addressing over a power-of-two
 * table of index + 1 (0: empty), at most half full, FNV-1a hashed; the
 * names live in the nodes or hosts, `stride` bytes apart from `base`. */
static uint32_t name_hash(const char *name)
{
	uint32_t h = 2166136261u;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return h;
}

static uint32_t names_find(const struct sim_net_names *ix, const char *base, size_t stride,
			   const char *name)
{
	for (uint32_t i = name_hash(name); ix->cap; i++) {
		uint32_t v = ix->slot[i & (ix->cap - 1)];

		if (v == 0)
			break;
		if (strcmp(base + (size_t)(v - 1) * stride, name) == 0)
			return v - 1;
	}
	return SIM_NET_NONE;
}

static void names_put(struct sim_net_names *ix, const char *name, uint32_t v)
{
	uint32_t i = name_hash(name);

	while (ix->slot[i & (ix->cap - 1)])
		i++;
	ix->slot[i & (ix->cap - 1)] = v + 1;
}

/* Enters the first `count` names into an empty index. */
static void names_fill(struct sim_net_names *ix, const char *base, size_t stride, uint32_t count)
{
	for (uint32_t v = 0; v < count; v++)
		names_put(ix, base + (size_t)v * stride, v);
}

/* Rebuilds the index of the first `count` names for room for `want`:
 * false (errno = ENOMEM) with the index as it was. */
static bool names_index(struct sim_net_names *ix, const char *base, size_t stride,
			uint32_t count, uint32_t want)
{
	uint64_t cap = 16;
	uint32_t *slot;

	while (cap < 2 * (uint64_t)want)
		cap *= 2;
	if (cap > UINT32_MAX || !(slot = calloc(cap, sizeof(*slot)))) {
		errno = ENOMEM;
		return false;
	}
	free(ix->slot);
	ix->slot = slot;
	ix->cap = (uint32_t)cap;
	names_fill(ix, base, stride, count);
	return true;
}

/* The first node's or host's name (NULL before there is an array). */
#define NODE_NAMES(n) ((n)->nodes ? (const char *)(n)->nodes + offsetof(struct sim_net_node, name) \
				  : NULL)
#define HOST_NAMES(n) ((n)->hosts ? (const char *)(n)->hosts + offsetof(struct sim_net_host, name) \
				  : NULL)

static bool reserve_nodes(struct sim_net *n, uint32_t more)
{
	if (more > UINT32_MAX - 1 - n->nnodes) {
		errno = EINVAL;
		return false;
	}
	/* the index is rebuilt after the nodes move: it reads their names */
	if (!grow(&n->nodes, &n->cap_nodes, n->nnodes + more, sizeof(*n->nodes)))
		return false;
	return 2 * ((uint64_t)n->nnodes + more) <= n->node_names.cap ||
	       names_index(&n->node_names, NODE_NAMES(n), sizeof(*n->nodes), n->nnodes,
			   n->cap_nodes);
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
	return names_find(&n->node_names, NODE_NAMES(n), sizeof(*n->nodes), name);
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
	names_put(&n->node_names, v->name, n->nnodes);
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

bool sim_net_nic_socket_ok(const struct sim_net *n, char *msg, size_t len)
{
	for (uint32_t h = 0; n && h < n->nhosts; h++)
		if (n->hosts[h].pcie.switches || n->hosts[h].nics > 1) {
			snprintf(msg, len, "host.nic_socket remote: host %s has %s, which keep a "
				 "GPU's NICs on its socket; a NIC on the other socket there is not "
				 "modelled", n->hosts[h].name,
				 n->hosts[h].pcie.switches ? "PCIe switches" : "several NICs a GPU");
			return false;
		}
	return true;
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
	if (names_find(&n->host_names, HOST_NAMES(n), sizeof(*n->hosts), name) != SIM_NET_NONE)
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
	/* the index again, in place, without the nodes taken back */
	memset(n->node_names.slot, 0, n->node_names.cap * sizeof(*n->node_names.slot));
	names_fill(&n->node_names, NODE_NAMES(n), sizeof(*n->nodes), n->nnodes);
}

static bool reserve_host(struct sim_net *n)
{
	if (!grow(&n->hosts, &n->cap_hosts, n->nhosts + 1, sizeof(*n->hosts)))
		return false;
	return 2 * ((uint64_t)n->nhosts + 1) <= n->host_names.cap ||
	       names_index(&n->host_names, HOST_NAMES(n), sizeof(*n->hosts), n->nhosts,
			   n->cap_hosts);
}

uint32_t sim_net_add_host(struct sim_net *n, const char *name, uint32_t ngpus, bool nvlink)
{
	uint32_t nnodes, nlinks, nranks, nvs = SIM_NET_NONE, h;
	char buf[SIM_NET_NAME_LEN];

	if (!n || n->finished || ngpus == 0 || ngpus > UINT32_MAX - 2 - n->nranks ||
	    !host_names_ok(n, name, ngpus, nvlink))
		return fail(EINVAL);
	if (!reserve_nodes(n, ngpus + (nvlink ? 1 : 0)) || !reserve_ranks(n, ngpus) ||
	    !reserve_host(n))
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
	names_put(&n->host_names, n->hosts[h].name, h);
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
	/* The links between two switches alone, which are all a search goes
	 * on along past its first hop (a star's switch has thousands of ports
	 * and none of them), grouped by far switch and kind: node u's groups
	 * at sw_first[u] .., group g's far switch sw_peer[g], its ports at u
	 * (ascending) sw_port[grp_first[g] .. grp_first[g + 1]].  A rail
	 * leaf's uplinks to its one spine are one group of as many ports as
	 * it has nodes, so a search or an ECMP set looks at one group where
	 * it looked at every port: k searches of k ports at 131072 ranks. */
	uint32_t *sw_first, *sw_peer, *grp_first, *sw_port;
	uint8_t *sw_nvl;
	uint32_t *grp_off;    /* a group's ports as a set in route_ports, or NONE */
	uint32_t *pick;       /* the groups of a set being made */
	/* Per switch u, the last set it had of several groups: the groups at
	 * memo[sw_first[u]] .., memo_n[u] of them (0: none yet), the set's
	 * offset memo_off[u]. */
	uint32_t *memo, *memo_n, *memo_off;
	uint8_t *fwd;         /* per node: a switch (forwards) */
	uint32_t *nvl_host;   /* per node: its host if NVLink-only towards that host's
			       * ranks (a GPU of a host with an NVSwitch, or the
			       * NVSwitch), else SIM_NET_NONE */
	uint32_t *queue;
	uint32_t block;       /* destinations per block */
	uint32_t *dist_all;   /* block x nnodes: over every link */
	uint32_t *dist_nvl;   /* block x nnodes: over NVLink links only */
	uint32_t *comp;       /* per node: a switch's component (union-find root) */
	/* The components with ranks, by their rows' first rank, each with its
	 * rows; and those whose range meets the block being routed.  A search
	 * from rank d sets distances in d's components alone, so a block looks
	 * at their rows alone: on rails every host's NVSwitch is a component
	 * of its own, a row per host, and a pass over every row for every rank
	 * was k^2 / 8 steps. */
	struct route_comp { uint32_t lo, hi, first, count; } *comps;
	uint32_t ncomps, *comp_rows, *active, nactive;
	/* ECMP sets are kept once each (pool_add()): an index of the sets in
	 * n->route_ports by content, and a set being made. */
	uint32_t *set_slot;   /* entry + 1 of the set's first user, 0: empty */
	uint32_t set_cap, nsets;
	uint32_t *set;        /* max_ports */
	uint32_t max_ports;   /* of a switch */
	uint32_t pool_cap;
	int err;              /* -ENOMEM, -E2BIG once the pool could not grow */
};

/* Breadth-first search from rank d's NIC, expanding switches only, over
 * every link or (nvlink_only) NVLink links alone.  Only switches and d's
 * NIC get a distance: a row is a switch's, and another NIC on the way is
 * an end, never a next hop (ecmp_entry()).  dist is all SIM_NET_NONE on
 * entry; reset_dist() makes it so again. */
static void bfs(const struct sim_net *n, const struct route_scratch *s, uint32_t d,
		bool nvlink_only, uint32_t *dist)
{
	uint32_t head = 0, tail = 0, t = n->rank_node[d];

	dist[t] = 0;
	for (uint32_t i = s->adj_first[t]; i < s->adj_first[t + 1]; i++) {
		uint32_t w = s->adj_peer[i];

		if ((nvlink_only && !s->adj_nvl[i]) || !s->fwd[w] || dist[w] != SIM_NET_NONE)
			continue;
		dist[w] = 1;
		s->queue[tail++] = w;
	}
	while (head < tail) {
		uint32_t v = s->queue[head++];

		for (uint32_t i = s->sw_first[v]; i < s->sw_first[v + 1]; i++) {
			uint32_t w = s->sw_peer[i];

			if ((nvlink_only && !s->sw_nvl[i]) || dist[w] != SIM_NET_NONE)
				continue;
			dist[w] = dist[v] + 1;
			s->queue[tail++] = w;
		}
	}
}

/* Undoes bfs() towards rank d, one of the block's: the distances of the
 * switches of the active components (all bfs() reaches) and d's NIC's. */
static void reset_dist(const struct sim_net *n, const struct route_scratch *s, uint32_t d,
		       uint32_t *dist)
{
	for (uint32_t a = 0; a < s->nactive; a++) {
		const struct route_comp *c = &s->comps[s->active[a]];

		for (uint32_t i = c->first; i < c->first + c->count; i++)
			dist[n->rows[s->comp_rows[i]].node] = SIM_NET_NONE;
	}
	dist[n->rank_node[d]] = SIM_NET_NONE;
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
		uint32_t j = cnt++;

		/* insertion: parallel links rarely number more than two */
		for (; j > 0 && ports[j - 1] > s->adj_pport[i]; j--)
			ports[j] = ports[j - 1];
		ports[j] = s->adj_pport[i];
	}
	return cnt;
}

static int port_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The host whose ranks' entries are NVLink-only, for rank d: its host if
 * that host has an NVSwitch, else SIM_NET_NONE. */
static uint32_t nvl_host_of_rank(const struct sim_net *n, uint32_t d)
{
	uint32_t h = n->nodes[n->rank_node[d]].host;

	return h != SIM_NET_NONE && n->hosts[h].nvswitch != SIM_NET_NONE ? h : SIM_NET_NONE;
}

/* A set's hash, for the index of sets. */
static uint32_t set_hash(const uint32_t *p, uint32_t cnt)
{
	uint32_t h = 2166136261u ^ cnt;

	for (uint32_t i = 0; i < cnt; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/* Puts entry e in the index of sets (room assumed). */
static void set_put(const struct sim_net *n, struct route_scratch *s, size_t e)
{
	uint32_t i = set_hash(n->route_ports + n->route_off[e], n->route_cnt[e]);

	while (s->set_slot[i & (s->set_cap - 1)])
		i++;
	s->set_slot[i & (s->set_cap - 1)] = (uint32_t)e + 1;
}

/* Where entry e's set, s->set (route_cnt[e] ports), is in n->route_ports:
 * an equal set already there, else appended.  Most entries share one: a
 * rail's leaf sends every other rail's ranks up the same uplinks, which
 * on a rail-optimised fabric number as many as its nodes (a set per entry
 * was 2^32 ports at 131072 ranks).  On an allocation failure s->err is
 * set and 0 returned; the pass goes on and fails at its end. */
static uint32_t pool_add(struct sim_net *n, struct route_scratch *s, size_t e)
{
	uint32_t cnt = n->route_cnt[e], i = set_hash(s->set, cnt), v;

	if (cnt == 0 || s->err)
		return 0;
	if (2 * ((uint64_t)s->nsets + 1) > s->set_cap) {
		uint64_t cap = s->set_cap ? 2 * (uint64_t)s->set_cap : 1024;
		uint32_t *slot = cap > UINT32_MAX ? NULL : calloc(cap, sizeof(*slot)), *old = s->set_slot;
		uint32_t oldcap = s->set_cap;

		if (!slot) {
			s->err = -ENOMEM;
			return 0;
		}
		s->set_slot = slot;
		s->set_cap = (uint32_t)cap;
		for (uint32_t j = 0; j < oldcap; j++)
			if (old[j])
				set_put(n, s, old[j] - 1);
		free(old);
	}
	for (; (v = s->set_slot[i & (s->set_cap - 1)]) != 0; i++)
		if (n->route_cnt[v - 1] == cnt &&
		    !memcmp(n->route_ports + n->route_off[v - 1], s->set, cnt * sizeof(*s->set)))
			return n->route_off[v - 1];
	if ((uint64_t)n->nroute_ports + cnt > UINT32_MAX) {
		s->err = -E2BIG;
		return 0;
	}
	if (cc_grow(&n->route_ports, &s->pool_cap, (uint64_t)n->nroute_ports + cnt,
		    sizeof(*n->route_ports))) {
		s->err = -ENOMEM;
		return 0;
	}
	memcpy(n->route_ports + n->nroute_ports, s->set, cnt * sizeof(*s->set));
	n->route_off[e] = n->nroute_ports;
	n->nroute_ports += cnt;
	set_put(n, s, e);
	s->nsets++;
	return n->route_off[e];
}

/* Entry e, switch u's towards the NIC t under `dist` (NVLink links only
 * when nvlink_only): its ECMP set, in u's port order.  One hop from t the
 * set is u's links to t; further away every next hop is a switch, and the
 * set is the ports of u's groups one step nearer.  A set of one group is
 * made once per group, one of several once per run of entries that have
 * it (a leaf's uplinks to every spine): a set may have thousands of ports
 * and a switch an entry per rank. */
static void ecmp_entry(struct sim_net *n, struct route_scratch *s, size_t e, uint32_t u,
		       uint32_t t, const uint32_t *dist, bool nvlink_only)
{
	uint32_t ng = 0, cnt = 0;

	n->route_cnt[e] = 0;
	n->route_off[e] = 0;
	if (dist[u] == SIM_NET_NONE)
		return;
	if (dist[u] == 1) {
		n->route_cnt[e] = ecmp_last_hop(s, u, t, nvlink_only, s->set);
		n->route_off[e] = pool_add(n, s, e);
		return;
	}
	for (uint32_t g = s->sw_first[u]; g < s->sw_first[u + 1]; g++)
		if ((!nvlink_only || s->sw_nvl[g]) && dist[s->sw_peer[g]] + 1 == dist[u])
			s->pick[ng++] = g;
	for (uint32_t i = 0; i < ng; i++)
		cnt += s->grp_first[s->pick[i] + 1] - s->grp_first[s->pick[i]];
	n->route_cnt[e] = cnt;
	if (ng == 0)
		return;
	if (ng == 1 && s->grp_off[s->pick[0]] != SIM_NET_NONE) {
		n->route_off[e] = s->grp_off[s->pick[0]];
		return;
	}
	if (ng > 1 && s->memo_n[u] == ng &&
	    !memcmp(s->memo + s->sw_first[u], s->pick, ng * sizeof(*s->pick))) {
		n->route_off[e] = s->memo_off[u];
		return;
	}
	cnt = 0;
	for (uint32_t i = 0; i < ng; i++)
		for (uint32_t j = s->grp_first[s->pick[i]]; j < s->grp_first[s->pick[i] + 1]; j++)
			s->set[cnt++] = s->sw_port[j];
	if (ng > 1)
		qsort(s->set, cnt, sizeof(*s->set), port_cmp);
	n->route_off[e] = pool_add(n, s, e);
	if (s->err)
		return;
	if (ng == 1) {
		s->grp_off[s->pick[0]] = n->route_off[e];
	} else {
		memcpy(s->memo + s->sw_first[u], s->pick, ng * sizeof(*s->pick));
		s->memo_n[u] = ng;
		s->memo_off[u] = n->route_off[e];
	}
}

/* Destinations d0 .. d0 + cnt - 1: their searches first, then, over the
 * active components' switches, each entry of a switch's row in the block:
 * its distance and its set.  Row by row, so the tables are written in
 * runs of entries rather than one entry per row. */
static void route_block(struct sim_net *n, struct route_scratch *s, uint32_t d0, uint32_t cnt)
{
	uint32_t host[ROUTE_BLOCK_MAX], nic[ROUTE_BLOCK_MAX];

	for (uint32_t j = 0; j < cnt; j++) {
		host[j] = nvl_host_of_rank(n, d0 + j);
		nic[j] = n->rank_node[d0 + j];
		bfs(n, s, d0 + j, false, s->dist_all + (size_t)j * n->nnodes);
		if (host[j] != SIM_NET_NONE)
			bfs(n, s, d0 + j, true, s->dist_nvl + (size_t)j * n->nnodes);
	}
	for (uint32_t a = 0; a < s->nactive; a++) {
		const struct route_comp *c = &s->comps[s->active[a]];
		uint32_t lo = c->lo > d0 ? c->lo : d0;
		uint32_t hi = c->hi < d0 + cnt ? c->hi : d0 + cnt;

		for (uint32_t i = c->first; i < c->first + c->count; i++) {
			const struct sim_net_row *row = &n->rows[s->comp_rows[i]];
			uint32_t u = row->node;

			for (uint32_t d = lo; d < hi; d++) {
				uint32_t j = d - d0;
				size_t e = row->base + (d - row->lo);
				bool only = host[j] != SIM_NET_NONE && s->nvl_host[u] == host[j];
				const uint32_t *dist = (only ? s->dist_nvl : s->dist_all) +
						       (size_t)j * n->nnodes;

				n->dist[e] = dist[u];
				ecmp_entry(n, s, e, u, nic[j], dist, only);
			}
		}
	}
	for (uint32_t j = 0; j < cnt; j++) {
		reset_dist(n, s, d0 + j, s->dist_all + (size_t)j * n->nnodes);
		if (host[j] != SIM_NET_NONE)
			reset_dist(n, s, d0 + j, s->dist_nvl + (size_t)j * n->nnodes);
	}
}

/* Switch u's links to switches, grouped by far switch and kind
 * (struct route_scratch), from group g on; returns the next free group.
 * Scratch: gidx and stamp (2 x nnodes, stamp all 0 on the first call),
 * at (a cursor per group).  grp_first[g] is already u's first port. */
static uint32_t group_links(struct route_scratch *s, uint32_t u, uint32_t g, uint32_t *gidx,
			    uint32_t *stamp, uint32_t *at)
{
	uint32_t g0 = g;

	s->sw_first[u] = g;
	for (uint32_t j = s->adj_first[u]; s->fwd[u] && j < s->adj_first[u + 1]; j++) {
		uint32_t key = 2 * s->adj_peer[j] + s->adj_nvl[j];

		if (!s->fwd[s->adj_peer[j]])
			continue;
		if (stamp[key] != u + 1) {
			stamp[key] = u + 1;
			gidx[key] = g;
			s->sw_peer[g] = s->adj_peer[j];
			s->sw_nvl[g] = s->adj_nvl[j];
			s->grp_off[g] = SIM_NET_NONE;
			at[g++] = 0;
		}
		at[gidx[key]]++;
	}
	for (uint32_t i = g0; i < g; i++) {
		s->grp_first[i + 1] = s->grp_first[i] + at[i];
		at[i] = s->grp_first[i];
	}
	for (uint32_t j = s->adj_first[u]; g > g0 && j < s->adj_first[u + 1]; j++)
		if (s->fwd[s->adj_peer[j]])
			s->sw_port[at[gidx[2 * s->adj_peer[j] + s->adj_nvl[j]]]++] =
				j - s->adj_first[u];
	return g;
}

/* The adjacency arrays and which nodes' entries may be NVLink-only;
 * false if the grouping's scratch could not be had. */
static bool fill_graph(const struct sim_net *n, struct route_scratch *s)
{
	uint32_t i = 0, g = 0;
	uint32_t *gidx = malloc(2 * (size_t)n->nnodes * sizeof(*gidx));
	uint32_t *stamp = calloc(2 * (size_t)n->nnodes, sizeof(*stamp));
	uint32_t *at = malloc((2 * (size_t)n->nlinks + 1) * sizeof(*at));

	if (!gidx || !stamp || !at) {
		free(gidx);
		free(stamp);
		free(at);
		return false;
	}
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
	s->grp_first[0] = 0;
	for (uint32_t u = 0; u < n->nnodes; u++)
		g = group_links(s, u, g, gidx, stamp, at);
	s->sw_first[n->nnodes] = g;
	free(gidx);
	free(stamp);
	free(at);
	return true;
}

/* Union-find over the switches, for their rows' ranges. */
static uint32_t comp_root(uint32_t *up, uint32_t u)
{
	while (up[u] != u) {
		up[u] = up[up[u]];
		u = up[u];
	}
	return u;
}

/* A row per switch, over the ranks it can reach: those whose NIC is
 * joined to a switch it reaches through switches alone (its component
 * of the switches; a search from such a NIC finds it, one from any other
 * NIC does not, as NICs do not forward).  Ranks are numbered host by
 * host, so a host's NVSwitch gets its host's ranks and a fabric's
 * switches every rank that has a network port.  Within a row an entry
 * may still be unreachable (an NVLink-only entry).  Returns the number of
 * entries, or SIZE_MAX if scratch memory ran out. */
static size_t lay_out_rows(struct sim_net *n, struct route_scratch *s)
{
	uint32_t *up = s->comp = malloc((size_t)n->nnodes * sizeof(*up));
	uint32_t *lo = malloc((size_t)n->nnodes * sizeof(*lo));
	uint32_t *hi = malloc((size_t)n->nnodes * sizeof(*hi));
	size_t base = 0;

	if (!up || !lo || !hi) {
		free(lo);
		free(hi);
		return SIZE_MAX;
	}
	for (uint32_t u = 0; u < n->nnodes; u++) {
		up[u] = u;
		lo[u] = UINT32_MAX;
		hi[u] = 0;
	}
	for (uint32_t u = 0; u < n->nnodes; u++)
		for (uint32_t i = s->sw_first[u]; i < s->sw_first[u + 1]; i++)
			up[comp_root(up, u)] = comp_root(up, s->sw_peer[i]);
	for (uint32_t d = 0; d < n->nranks; d++) {
		uint32_t t = n->rank_node[d];

		for (uint32_t i = s->adj_first[t]; i < s->adj_first[t + 1]; i++) {
			uint32_t w = s->adj_peer[i], c;

			if (!s->fwd[w])
				continue;
			c = comp_root(up, w);
			lo[c] = d < lo[c] ? d : lo[c];
			hi[c] = d + 1 > hi[c] ? d + 1 : hi[c];
		}
	}
	n->nrows = 0;
	for (uint32_t u = 0; u < n->nnodes; u++) {
		struct sim_net_row *row;
		uint32_t c;

		n->row_of[u] = SIM_NET_NONE;
		if (!s->fwd[u])
			continue;
		c = comp_root(up, u);
		row = &n->rows[n->nrows];
		row->node = u;
		row->lo = lo[c] < hi[c] ? lo[c] : 0;
		row->hi = lo[c] < hi[c] ? hi[c] : 0;
		row->base = base;
		base += row->hi - row->lo;
		n->row_of[u] = n->nrows++;
	}
	for (uint32_t u = 0; u < n->nnodes; u++)
		up[u] = s->fwd[u] ? comp_root(up, u) : SIM_NET_NONE;
	free(lo);
	free(hi);
	return base;
}

static int comp_cmp(const void *a, const void *b)
{
	const struct route_comp *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->first > y->first) - (x->first < y->first);
}

/* The components that have ranks, each with its rows, by first rank
 * (struct route_scratch); false if memory ran out. */
static bool index_comps(const struct sim_net *n, struct route_scratch *s)
{
	uint32_t *cidx = malloc((size_t)n->nnodes * sizeof(*cidx)), at = 0;
	size_t rows = n->nrows ? n->nrows : 1;

	s->comps = malloc(rows * sizeof(*s->comps));
	s->comp_rows = malloc(rows * sizeof(*s->comp_rows));
	s->active = malloc(rows * sizeof(*s->active));
	if (!cidx || !s->comps || !s->comp_rows || !s->active) {
		free(cidx);
		return false;
	}
	for (uint32_t u = 0; u < n->nnodes; u++)
		cidx[u] = SIM_NET_NONE;
	for (uint32_t r = 0; r < n->nrows; r++) {
		const struct sim_net_row *row = &n->rows[r];
		uint32_t c = s->comp[row->node];

		if (row->lo == row->hi)
			continue;
		if (cidx[c] == SIM_NET_NONE) {
			cidx[c] = s->ncomps;
			s->comps[s->ncomps++] = (struct route_comp){ row->lo, row->hi, 0, 0 };
		}
		s->comps[cidx[c]].count++;
	}
	for (uint32_t i = 0; i < s->ncomps; i++) {
		s->comps[i].first = at;
		at += s->comps[i].count;
		s->comps[i].count = 0;
	}
	for (uint32_t r = 0; r < n->nrows; r++) {
		struct route_comp *c;

		if (n->rows[r].lo == n->rows[r].hi)
			continue;
		c = &s->comps[cidx[s->comp[n->rows[r].node]]];
		s->comp_rows[c->first + c->count++] = r;
	}
	qsort(s->comps, s->ncomps, sizeof(*s->comps), comp_cmp);
	free(cidx);
	return true;
}

/* Destinations per block: their distance columns (two arrays of
 * block x nnodes entries) stay within about a megabyte, in cache. */
static uint32_t block_size(const struct sim_net *n)
{
	uint32_t b = (1u << 17) / n->nnodes;

	return b == 0 ? 1 : b > ROUTE_BLOCK_MAX ? ROUTE_BLOCK_MAX : b;
}

/* entries 0: before the rows are laid out. */
static int no_memory(const struct sim_net *n, size_t entries, char *err, size_t errlen)
{
	if (!entries)
		return cc_errf(err, errlen, -ENOMEM, "%s: out of memory for the routes of %u "
			       "nodes", n->name, n->nnodes);
	return cc_errf(err, errlen, -ENOMEM, "%s: out of memory for the route tables of "
		"%u switches x %u ranks (%zu MB)", n->name, n->nrows, n->nranks,
		entries * 12 >> 20);
}

/* The scratch, the rows and the tables' allocations, or -ENOMEM /
 * -EINVAL with a message. */
static int alloc_tables(struct sim_net *n, struct route_scratch *s, char *err, size_t errlen)
{
	size_t ports = 2 * (size_t)n->nlinks, entries;

	for (uint32_t u = 0; u < n->nnodes; u++)
		if (n->nodes[u].kind == SIM_NET_NIC && n->nodes[u].nports > SIM_NET_NIC_PORTS_MAX)
			return cc_errf(err, errlen, -EINVAL, "GPU '%s' has %u links; at most %u "
				"can join one GPU", n->nodes[u].name, n->nodes[u].nports,
				SIM_NET_NIC_PORTS_MAX);
	s->block = block_size(n);
	s->adj_first = malloc(((size_t)n->nnodes + 1) * sizeof(uint32_t));
	s->adj_peer = malloc((ports ? ports : 1) * sizeof(uint32_t));
	s->adj_pport = malloc((ports ? ports : 1) * sizeof(uint32_t));
	s->adj_nvl = malloc(ports ? ports : 1);
	s->sw_first = malloc(((size_t)n->nnodes + 1) * sizeof(uint32_t));
	s->sw_peer = malloc((ports ? ports : 1) * sizeof(uint32_t));
	s->grp_first = malloc((ports + 1) * sizeof(uint32_t));
	s->grp_off = malloc((ports ? ports : 1) * sizeof(uint32_t));
	s->sw_port = malloc((ports ? ports : 1) * sizeof(uint32_t));
	s->sw_nvl = malloc(ports ? ports : 1);
	s->fwd = malloc(n->nnodes);
	s->nvl_host = malloc(n->nnodes * sizeof(uint32_t));
	s->queue = malloc(n->nnodes * sizeof(uint32_t));
	s->dist_all = malloc((size_t)s->block * n->nnodes * sizeof(uint32_t));
	s->dist_nvl = malloc((size_t)s->block * n->nnodes * sizeof(uint32_t));
	n->row_of = malloc(n->nnodes * sizeof(*n->row_of));
	n->rows = malloc(n->nnodes * sizeof(*n->rows));
	if (!s->adj_first || !s->adj_peer || !s->adj_pport || !s->adj_nvl || !s->fwd ||
	    !s->sw_first || !s->sw_peer || !s->grp_first || !s->grp_off || !s->sw_port ||
	    !s->sw_nvl ||
	    !s->nvl_host || !s->queue || !s->dist_all || !s->dist_nvl || !n->row_of || !n->rows)
		return no_memory(n, 0, err, errlen);
	for (size_t i = 0; i < (size_t)s->block * n->nnodes; i++)
		s->dist_all[i] = s->dist_nvl[i] = SIM_NET_NONE;
	if (!fill_graph(n, s))
		return no_memory(n, 0, err, errlen);
	if ((entries = lay_out_rows(n, s)) == SIZE_MAX || !index_comps(n, s))
		return no_memory(n, 0, err, errlen);
	if (entries >= UINT32_MAX) /* pool_add()'s index holds entry + 1 */
		return cc_errf(err, errlen, -E2BIG, "%s: %u switches x %u ranks: too many route "
			       "entries", n->name, n->nrows, n->nranks);
	n->dist = malloc((entries ? entries : 1) * sizeof(*n->dist));
	n->route_off = malloc((entries ? entries : 1) * sizeof(*n->route_off));
	n->route_cnt = malloc((entries ? entries : 1) * sizeof(*n->route_cnt));
	n->nentries = entries;
	for (uint32_t u = 0; u < n->nnodes; u++)
		if (s->fwd[u] && n->nodes[u].nports > s->max_ports)
			s->max_ports = n->nodes[u].nports;
	s->set = malloc(((size_t)s->max_ports + 1) * sizeof(*s->set));
	s->pick = malloc(((size_t)s->max_ports + 1) * sizeof(*s->pick));
	s->memo = malloc(((size_t)s->sw_first[n->nnodes] + 1) * sizeof(*s->memo));
	s->memo_n = calloc(n->nnodes, sizeof(*s->memo_n));
	s->memo_off = malloc((size_t)n->nnodes * sizeof(*s->memo_off));
	n->route_ports = malloc(sizeof(*n->route_ports)); /* grown by pool_add() */
	s->pool_cap = 1;
	if (!n->dist || !n->route_off || !n->route_cnt || !s->set || !s->pick || !s->memo ||
	    !s->memo_n || !s->memo_off || !n->route_ports)
		return no_memory(n, entries, err, errlen);
	return 0;
}

static void free_scratch(struct route_scratch *s)
{
	free(s->adj_first);
	free(s->adj_peer);
	free(s->adj_pport);
	free(s->adj_nvl);
	free(s->sw_first);
	free(s->sw_peer);
	free(s->grp_first);
	free(s->grp_off);
	free(s->sw_port);
	free(s->sw_nvl);
	free(s->pick);
	free(s->memo);
	free(s->memo_n);
	free(s->memo_off);
	free(s->fwd);
	free(s->nvl_host);
	free(s->queue);
	free(s->dist_all);
	free(s->dist_nvl);
	free(s->comp);
	free(s->comps);
	free(s->comp_rows);
	free(s->active);
	free(s->set_slot);
	free(s->set);
}

/* Runs route_block() over every destination: 0, or -ENOMEM / -E2BIG
 * with a message when the sets did not fit. */
static int route_pass(struct sim_net *n, struct route_scratch *s, char *err, size_t errlen)
{
	uint32_t next = 0;

	for (uint32_t d0 = 0; d0 < n->nranks; d0 += s->block) {
		uint32_t cnt = n->nranks - d0 < s->block ? n->nranks - d0 : s->block, keep = 0;

		/* the components whose ranks meet d0 .. d0 + cnt - 1 */
		for (uint32_t a = 0; a < s->nactive; a++)
			if (s->comps[s->active[a]].hi > d0)
				s->active[keep++] = s->active[a];
		s->nactive = keep;
		for (; next < s->ncomps && s->comps[next].lo < d0 + cnt; next++)
			s->active[s->nactive++] = next;
		route_block(n, s, d0, cnt);
		if (s->err)
			break;
	}
	if (s->err == -E2BIG)
		return cc_errf(err, errlen, -E2BIG, "%s: more than 2^32 route ports", n->name);
	if (s->err)
		return cc_errf(err, errlen, -ENOMEM, "%s: out of memory for %u route ports",
			       n->name, n->nroute_ports);
	return 0;
}

/* Switch u's entry towards rank d, or SIZE_MAX outside its row. */
static size_t row_entry(const struct sim_net *n, uint32_t u, uint32_t d)
{
	const struct sim_net_row *row = &n->rows[n->row_of[u]];

	return d >= row->lo && d < row->hi ? row->base + (d - row->lo) : SIZE_MAX;
}

static uint32_t switch_dist(const struct sim_net *n, uint32_t u, uint32_t d)
{
	size_t e = row_entry(n, u, d);

	return e == SIZE_MAX ? SIM_NET_NONE : n->dist[e];
}

/* A NIC's routes are not stored: they follow from its neighbours'.  A NIC
 * does not forward, so its distance to d is one more than the nearest of
 * its far ends that does (a switch) or is d's NIC itself, and its ECMP set
 * those ports, in port order — what a search from d gives it.  Between two
 * GPUs of a host with an NVSwitch only NVLink ports count.  That keeps the
 * tables at switches x ranks (a star of 16384 ports: one row) instead of
 * nodes x ranks.  Returns the distance (SIM_NET_NONE: unreachable) and, if
 * ports is non-NULL, writes the set there; *count gets its size. */
static uint32_t nic_routes(const struct sim_net *n, uint32_t u, uint32_t d, uint32_t *ports,
			   uint32_t *count)
{
	const struct sim_net_node *v = &n->nodes[u];
	uint32_t t = n->rank_node[d], best = SIM_NET_NONE, cnt = 0;
	bool only = v->host != SIM_NET_NONE && v->host == n->nodes[t].host &&
		    n->hosts[v->host].nvswitch != SIM_NET_NONE;

	*count = 0;
	if (u == t)
		return 0;
	for (uint32_t p = 0; p < v->nports; p++) {
		uint32_t w, c;

		if (only && n->links[v->port_link[p]].kind != SIM_NET_LINK_NVLINK)
			continue;
		sim_net_peer(n, u, p, &w, NULL);
		c = w == t ? 0 : n->nodes[w].kind == SIM_NET_SWITCH ? switch_dist(n, w, d)
								    : SIM_NET_NONE;
		if (c == SIM_NET_NONE || c > best)
			continue;
		if (c < best) {
			best = c;
			cnt = 0;
		}
		if (ports)
			ports[cnt] = p;
		cnt++;
	}
	*count = cnt;
	return best == SIM_NET_NONE ? SIM_NET_NONE : best + 1;
}

static uint32_t dist_of(const struct sim_net *n, uint32_t u, uint32_t d)
{
	uint32_t cnt;

	if (n->row_of[u] != SIM_NET_NONE)
		return switch_dist(n, u, d);
	return nic_routes(n, u, d, NULL, &cnt);
}

uint32_t sim_net_dist(const struct sim_net *n, uint32_t u, uint32_t d)
{
	if (!n || !n->finished || u >= n->nnodes || d >= n->nranks)
		return SIM_NET_NONE;
	return dist_of(n, u, d);
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
	return dist_of(n, n->rank_node[s], d) != SIM_NET_NONE;
}

/* Whether switch component c is joined to NIC t by a link. */
static bool comp_touches(const struct route_scratch *s, uint32_t t, uint32_t c)
{
	for (uint32_t i = s->adj_first[t]; i < s->adj_first[t + 1]; i++)
		if (s->comp[s->adj_peer[i]] == c)
			return true;
	return false;
}

/* Every GPU of a host with an NVSwitch has an NVLink link to it. */
static bool nvswitches_reach(const struct sim_net *n, const struct route_scratch *s)
{
	for (uint32_t d = 0; d < n->nranks; d++) {
		uint32_t t = n->rank_node[d], h = n->nodes[t].host, i;

		if (h == SIM_NET_NONE || n->hosts[h].nvswitch == SIM_NET_NONE)
			continue;
		for (i = s->adj_first[t]; i < s->adj_first[t + 1]; i++)
			if (s->adj_nvl[i] && s->adj_peer[i] == n->hosts[h].nvswitch)
				break;
		if (i == s->adj_first[t + 1])
			return false;
	}
	return true;
}

/* Whether every rank reaches every other, in O(nodes + links): true when
 * one component of switches is joined to every GPU (a search from any
 * GPU crosses it to every other) and every GPU of a host with an NVSwitch
 * is joined to it by NVLink (the path inside a host).  false says only
 * that the pairs must be checked one by one. */
static bool all_reach(const struct sim_net *n, const struct route_scratch *s)
{
	uint32_t t0 = n->rank_node[0];

	if (!nvswitches_reach(n, s))
		return false;
	for (uint32_t i = s->adj_first[t0]; i < s->adj_first[t0 + 1]; i++) {
		uint32_t c = s->comp[s->adj_peer[i]], d;

		if (c == SIM_NET_NONE)
			continue;
		for (d = 1; d < n->nranks && comp_touches(s, n->rank_node[d], c); d++)
			;
		if (d == n->nranks)
			return true;
	}
	return false;
}

/* Every pair (all_pairs), or every ring neighbour, has a route: the first
 * pair without one is named. */
static int check_reach(const struct sim_net *n, const struct route_scratch *sc, bool all_pairs,
		       char *err, size_t errlen)
{
	uint32_t k = n->nranks;

	if (all_pairs && all_reach(n, sc))
		return 0;
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
	if (!rc)
		rc = route_pass(n, &s, err, errlen);
	if (!rc)
		rc = check_reach(n, &s, all_pairs, err, errlen);
	free_scratch(&s);
	if (rc) {
		free_routes(n);
		return rc;
	}
	n->finished = true;
	return 0;
}

uint32_t sim_net_routes(const struct sim_net *n, uint32_t u, uint32_t d,
			uint32_t buf[SIM_NET_NIC_PORTS_MAX], const uint32_t **ports)
{
	uint32_t cnt;
	size_t e;

	if (ports)
		*ports = NULL;
	if (!n || !n->finished || u >= n->nnodes || d >= n->nranks)
		return 0;
	if (n->row_of[u] == SIM_NET_NONE) { /* a NIC: its set made in buf */
		nic_routes(n, u, d, buf, &cnt);
		if (ports && buf)
			*ports = buf;
		return cnt;
	}
	if ((e = row_entry(n, u, d)) == SIZE_MAX)
		return 0;
	if (ports)
		*ports = n->route_ports + n->route_off[e];
	return n->route_cnt[e];
}

uint32_t sim_net_pick(const struct sim_net *n, uint32_t u, uint32_t d, uint64_t flow)
{
	uint32_t buf[SIM_NET_NIC_PORTS_MAX];
	const uint32_t *ports;
	uint32_t cnt = sim_net_routes(n, u, d, buf, &ports);

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
	uint32_t buf[SIM_NET_NIC_PORTS_MAX];
	const uint32_t *ports;
	uint32_t cnt = sim_net_routes(n, u, d, buf, &ports);

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
