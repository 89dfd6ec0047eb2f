/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/topo.c — a network (sim/net.h) as engine objects: two link
 * directions per link, a switch per switch node routing by the network's
 * ECMP sets, and each NIC's port table.  The wiring and storage are in
 * topo.h.
 */
#include "sim/topo.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/algo.h"
#include "sim/flow.h"
#include "util/err.h"

const char *const sim_topo_kind_name[SIM_TOPO_KIND_COUNT] = {
	[SIM_TOPO_RING] = "ring",
	[SIM_TOPO_STAR] = "star",
	[SIM_TOPO_NODE] = "node",
	[SIM_TOPO_RAILOPT] = "railopt",
};

int sim_topo_kind_parse(const char *s, enum sim_topo_kind *out)
{
	if (!s || !out)
		return -EINVAL;
	for (unsigned i = 0; i < SIM_TOPO_KIND_COUNT; i++) {
		if (strcmp(s, sim_topo_kind_name[i]) == 0) {
			*out = (enum sim_topo_kind)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* ---- one link's values, the fabric's where the network gives none ---- */

uint64_t sim_topo_link_rate(const struct sim_net_link *l, const struct sim_params *p)
{
	if (l->rate_bps)
		return l->rate_bps;
	if (l->kind == SIM_NET_LINK_NVLINK && p->host.nvlink_bps)
		return p->host.nvlink_bps;
	return p->link.rate_bps;
}

static sim_time_ps link_prop(const struct sim_net_link *l, const struct sim_params *p)
{
	if (l->prop_ps != SIM_NET_DEFAULT_PROP)
		return l->prop_ps;
	return l->kind == SIM_NET_LINK_NVLINK ? SIM_TOPO_NVLINK_PROP_PS : p->link.prop_delay_ps;
}

static uint32_t link_mtu(const struct sim_net_link *l, const struct sim_params *p)
{
	return l->mtu ? l->mtu : p->link.mtu_bytes;
}

/* ---- build ---- */

/* The index in t->links of the direction of link li that leaves node u
 * (links[2i] runs from the link's node a), and the directions themselves:
 * the one that leaves u and the one that enters it. */
static size_t dir_out_index(const struct sim_topo *t, uint32_t li, uint32_t u)
{
	return 2 * (size_t)li + (t->net->links[li].a == u ? 0 : 1);
}

static struct sim_link_dir *dir_out(struct sim_topo *t, uint32_t li, uint32_t u)
{
	return &t->links[dir_out_index(t, li, u)];
}

static struct sim_link_dir *dir_in(struct sim_topo *t, uint32_t li, uint32_t u)
{
	return &t->links[dir_out_index(t, li, u) ^ 1];
}

static int build_links(struct sim_topo *t, struct sim_engine *eng)
{
	const struct sim_net *n = t->net;

	t->nlinks = 2 * (size_t)n->nlinks;
	if (t->nlinks == 0)
		return 0;
	t->links = calloc(t->nlinks, sizeof(*t->links));
	if (!t->links)
		return -ENOMEM;
	for (uint32_t i = 0; i < n->nlinks; i++) {
		uint64_t rate = sim_topo_link_rate(&n->links[i], &t->fabric);
		sim_time_ps prop = link_prop(&n->links[i], &t->fabric);
		int rc = sim_link_init(&t->links[2 * (size_t)i], eng, rate, prop);

		if (!rc)
			rc = sim_link_init(&t->links[2 * (size_t)i + 1], eng, rate, prop);
		if (rc)
			return rc;
	}
	return 0;
}

/* Rank r's ports at nic_first[r]: port p transmits on the direction of its
 * link that leaves the NIC and receives from the one that enters it. */
static int build_nics(struct sim_topo *t)
{
	const struct sim_net *n = t->net;
	size_t total = 0;

	t->nic_first = calloc((size_t)n->nranks + 1, sizeof(*t->nic_first));
	if (!t->nic_first)
		return -ENOMEM;
	for (uint32_t r = 0; r < n->nranks; r++) {
		t->nic_first[r] = (uint32_t)total;
		total += n->nodes[n->rank_node[r]].nports;
	}
	if (total >= UINT32_MAX)
		return -ENOMEM;
	t->nic_first[n->nranks] = (uint32_t)total;
	if (total == 0)
		return 0;
	t->nic_tx = calloc(total, sizeof(*t->nic_tx));
	t->nic_rx = calloc(total, sizeof(*t->nic_rx));
	if (!t->nic_tx || !t->nic_rx)
		return -ENOMEM;
	for (uint32_t r = 0; r < n->nranks; r++) {
		uint32_t u = n->rank_node[r];

		for (uint32_t p = 0; p < n->nodes[u].nports; p++) {
			t->nic_tx[t->nic_first[r] + p] = dir_out(t, n->nodes[u].port_link[p], u);
			t->nic_rx[t->nic_first[r] + p] = dir_in(t, n->nodes[u].port_link[p], u);
		}
	}
	return 0;
}

/* A switch's routing: the network's ECMP set for the destination rank,
 * one member by the flow's hash. */
static uint32_t net_router(void *ctx, const struct sim_switch *sw, uint32_t in_port,
			   const struct sim_packet *pkt)
{
	const struct sim_topo_sw_ctx *c = ctx;

	(void)sw;
	(void)in_port;
	if (pkt->dst_node == SIM_TOPO_MCAST)
		return c->nvswitch || c->sharp ? SIM_SWITCH_LOCAL : SIM_SWITCH_NO_PORT;
	if (pkt->to_port)
		return sim_net_pick_port(c->net, c->node, pkt->dst_node, pkt->dst_port,
					 pkt->flow_id);
	return sim_net_pick(c->net, c->node, pkt->dst_node, pkt->flow_id);
}

/* A packet from in_port left the switch: its room goes back to the sender
 * on that input as credits, a flow-control packet's flight later. */
static void return_credits(void *ctx, const struct sim_switch *sw, uint32_t in_port,
			   uint32_t frame_bytes)
{
	struct sim_topo_sw_ctx *c = ctx;

	(void)sw;
	if (c->in[in_port])
		sim_link_return_credits(c->in[in_port], frame_bytes);
}

/* The largest frame a link of this fabric carries: MTU + every header. */
static uint64_t frame_bytes(const struct sim_params *p)
{
	return (uint64_t)p->link.mtu_bytes + 128;
}

/* An NVSwitch: a switch whose every port is NVLink.  The fabric's switch
 * parameters (buffer, credits, PFC, ECN) are the network's; NVLink has its
 * own link-level flow control, marks no ECN and sends no PAUSE (NCCL's P2P
 * over NVLink is not RDMA), so none of those apply there. */
static bool net_nvswitch(const struct sim_net *n, uint32_t u)
{
	const struct sim_net_node *v = &n->nodes[u];

	if (v->kind != SIM_NET_SWITCH || !v->nports)
		return false;
	for (uint32_t p = 0; p < v->nports; p++)
		if (n->links[v->port_link[p]].kind != SIM_NET_LINK_NVLINK)
			return false;
	return true;
}

int sim_topo_credit_check(const struct sim_net *net, const struct sim_params *p, char *err,
			  size_t errlen)
{
	/* credits count whole blocks (sim/link.h): a share, rounded down,
	 * must hold a largest frame, rounded up */
	uint64_t buf = p->sw.buffer_bytes, need = sim_credit_take(frame_bytes(p));

	if (p->link.flow_ctrl != SIM_FC_CREDIT || buf == 0)
		return 0;
	for (uint32_t u = 0; u < net->nnodes; u++) {
		const struct sim_net_node *v = &net->nodes[u];
		uint64_t share = sim_credit_room(v->nports ? buf / v->nports : buf);

		if (v->kind != SIM_NET_SWITCH || !v->nports || share >= need || net_nvswitch(net, u))
			continue;
		if (err && errlen)
			snprintf(err, errlen, "switch '%s': IB credits (IBA 7.9) give each of its %" PRIu32
				 " ports one %" PRIu64 "-byte frame at least, %" PRIu64 " B, more than "
				 "switch.buffer_bytes %" PRIu64 " (a lossless switch would drop); give it "
				 "%" PRIu64 " or more, or 0: unlimited", v->name, v->nports, need,
				 (uint64_t)v->nports * need, buf, (uint64_t)v->nports * need);
		return -ENOBUFS;
	}
	return 0;
}

/* IB link-level flow control (IBA 7.9): every input of the switch gets an
 * equal share of its buffer as credits (sim_topo_credit_check() made sure
 * it holds a largest frame), so a sender never sends what the switch could
 * not hold and the switch never drops. */
static void credit_inputs(struct sim_topo *t, struct sim_switch *sw, struct sim_topo_sw_ctx *c)
{
	uint64_t share = t->fabric.sw.buffer_bytes / sw->nports;

	for (uint32_t p = 0; p < sw->nports; p++)
		if (c->in[p])
			sim_link_set_credits(c->in[p], share);
	sim_switch_on_release(sw, return_credits, c);
}

/* PFC thresholds from the buffer (the rule of thumb of vendors' "lossless
 * buffer" sizing): each input gets an equal share; above XOFF, it must
 * still absorb what arrives while the PAUSE travels upstream and the
 * sender stops — a round trip of propagation at line rate, plus a frame
 * being sent at each end — so XOFF = share - headroom, and XON two
 * frames lower.  With those, a switch never drops. */
static void pfc_thresholds(const struct sim_topo *t, struct sim_switch *sw)
{
	const struct sim_link_params *l = &t->fabric.link;
	uint64_t share = t->fabric.sw.buffer_bytes / sw->nports;
	uint64_t frame = frame_bytes(&t->fabric);
	uint64_t flight = (uint64_t)((unsigned __int128)2 * l->prop_delay_ps * l->rate_bps /
				     (8 * SIM_PS_PER_S));
	uint64_t headroom = flight + 2 * frame;
	uint64_t xoff = share > headroom + frame ? share - headroom : frame;

	sim_switch_set_pfc(sw, xoff, xoff > 2 * frame ? xoff - 2 * frame : 0, t->fabric.sw.pfc_quanta);
}

/* One switch for node u: its ports, wired to the link directions at u. */
static int build_switch(struct sim_topo *t, struct sim_engine *eng, uint32_t u)
{
	const struct sim_net_node *v = &t->net->nodes[u];
	struct sim_switch *sw = &t->sw[t->nsw];
	int rc = sim_switch_init(sw, eng, v->nports, &t->fabric.sw);

	if (rc)
		return rc;
	struct sim_topo_sw_ctx *c = &t->sw_ctx[t->nsw];

	*c = (struct sim_topo_sw_ctx){ .net = t->net, .node = u, .nvswitch = net_nvswitch(t->net, u) };
	c->sharp = !c->nvswitch && (t->fabric.sw.sharp || v->sharp);
	sim_switch_set_router(sw, net_router, c);
	t->nsw++;
	c->in = calloc(v->nports ? v->nports : 1, sizeof(*c->in));
	if (!c->in)
		return -ENOMEM;
	for (uint32_t p = 0; p < v->nports && !rc; p++) {
		c->in[p] = dir_in(t, v->port_link[p], u);
		rc = sim_switch_connect(sw, p, c->in[p], dir_out(t, v->port_link[p], u));
	}
	if (rc || net_nvswitch(t->net, u))
		return rc;
	if (t->fabric.link.flow_ctrl == SIM_FC_CREDIT && t->fabric.sw.buffer_bytes)
		credit_inputs(t, sw, c);
	if (t->fabric.link.flow_ctrl == SIM_FC_PFC && t->fabric.sw.buffer_bytes)
		pfc_thresholds(t, sw);
	return rc;
}

static int build_switches(struct sim_topo *t, struct sim_engine *eng)
{
	const struct sim_net *n = t->net;
	uint32_t count = 0;
	int rc = 0;

	for (uint32_t u = 0; u < n->nnodes; u++)
		count += n->nodes[u].kind == SIM_NET_SWITCH;
	if (count == 0)
		return 0;
	t->sw = calloc(count, sizeof(*t->sw));
	t->sw_ctx = calloc(count, sizeof(*t->sw_ctx));
	if (!t->sw || !t->sw_ctx)
		return -ENOMEM;
	for (uint32_t u = 0; u < n->nnodes && !rc; u++)
		if (n->nodes[u].kind == SIM_NET_SWITCH)
			rc = build_switch(t, eng, u);
	return rc;
}

/* Reserves the events the links and switches can have pending, on top of
 * the room the engine already has (sim_engine_reserve() sets a total, and
 * the engine offers no getter for it), so what an executor reserves for
 * its NICs, before or after, adds up. */
static int reserve_events(struct sim_topo *t, struct sim_engine *eng)
{
	size_t events = t->nlinks * SIM_LINK_MAX_EVENTS;
	int rc;

	for (uint32_t i = 0; i < t->nsw; i++)
		events += sim_switch_max_events(t->sw[i].nports);
	if (events == 0)
		return 0;
	if (events > SIZE_MAX - eng->cap)
		return -ENOMEM;
	rc = sim_engine_reserve(eng, (size_t)eng->cap + events);
	if (!rc)
		t->events = events;
	return rc;
}

double sim_topo_mem_estimate(const struct sim_net *n)
{
	/* build_links(): two directions a link, each a flow model's resource
	 * too; reserve_events(): the events they and the switches may have
	 * pending, a heap entry and a slot each */
	double dirs = 2.0 * n->nlinks, events = dirs * SIM_LINK_MAX_EVENTS, bytes = 0;

	for (uint32_t u = 0; u < n->nnodes; u++) {
		const struct sim_net_node *v = &n->nodes[u];

		if (v->kind == SIM_NET_SWITCH) { /* build_switch() */
			bytes += sizeof(struct sim_switch) + sizeof(struct sim_topo_sw_ctx) +
				 (double)v->nports * (sizeof(struct sim_switch_port) + sizeof(void *));
			events += sim_switch_max_events(v->nports);
		}
	}
	for (uint32_t r = 0; r < n->nranks; r++) /* build_nics() */
		bytes += sizeof(uint32_t) + 2.0 * sizeof(void *) * n->nodes[n->rank_node[r]].nports;
	return bytes + dirs * (sizeof(struct sim_link_dir) + sizeof(struct sim_flow_res)) +
	       events * (sizeof(struct sim__hent) + sizeof(struct sim__slot));
}

int sim_topo_build_net(struct sim_topo *t, struct sim_engine *eng, const struct sim_net *net,
		       const struct sim_params *p)
{
	int rc;

	if (!t)
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	if (!eng || !net || !p || !net->finished || net->nranks == 0 || sim_params_validate(p))
		return -EINVAL;
	if (sim_topo_credit_check(net, p, NULL, 0))
		return -ENOBUFS;
	t->kind = SIM_TOPO_KIND_COUNT;
	t->nranks = net->nranks;
	t->net = net;
	t->fabric = *p;
	rc = build_links(t, eng);
	if (!rc)
		rc = build_nics(t);
	if (!rc)
		rc = build_switches(t, eng);
	if (!rc)
		rc = reserve_events(t, eng);
	if (rc)
		sim_topo_destroy(t);
	return rc;
}

int sim_topo_net_make_nodes(struct sim_net *n, enum sim_topo_kind kind, uint32_t nranks,
			    uint32_t per_node, char *err, size_t errlen)
{
	return sim_topo_net_make_hosts(n, kind, nranks, per_node, NULL, err, errlen);
}

/* Each host of finished network n behind s PCIe switches. */
static int hosts_pcie(struct sim_net *n, uint32_t s, char *err, size_t errlen)
{
	const struct sim_net_pcie pc = {.switches = s, .latency_ps = SIM_NET_DEFAULT_PROP};

	for (uint32_t h = 0; h < n->nhosts; h++)
		if (sim_net_host_pcie(n, h, &pc))
			return cc_errf(err, errlen, -EINVAL, "--pcie-switches %u does not split "
				       "host '%s''s %u GPUs evenly", s, n->hosts[h].name,
				       n->hosts[h].ngpus);
	return 0;
}

int sim_topo_net_make_hosts(struct sim_net *n, enum sim_topo_kind kind, uint32_t nranks,
			    uint32_t per_node, const struct sim_topo_hosts *h, char *err,
			    size_t errlen)
{
	uint32_t nics = h && h->nics ? h->nics : 1;
	int rc;

	if (!n)
		return -EINVAL;
	sim_net_init(n, NULL);
	if (nics > 1 && kind != SIM_TOPO_RAILOPT)
		return cc_errf(err, errlen, -EINVAL, "--nics %u: several NICs per GPU need "
			       "--topology railopt (or a topology file's 'nics:')", nics);
	switch (kind) {
	case SIM_TOPO_RING: rc = sim_net_ring(n, nranks, err, errlen); break;
	case SIM_TOPO_STAR: rc = sim_net_star(n, nranks, err, errlen); break;
	case SIM_TOPO_NODE: rc = sim_net_node(n, nranks, err, errlen); break;
	case SIM_TOPO_RAILOPT:
		if (!per_node || nranks % per_node)
			return cc_errf(err, errlen, -EINVAL, "railopt needs nodes of G ranks "
				       "(--ranks-per-node) that divide the %u ranks", nranks);
		rc = sim_net_railopt_nics(n, nranks / per_node, per_node, nics, 1, err, errlen);
		break;
	default: return -EINVAL;
	}
	if (!rc && h && h->pcie_switches && (rc = hosts_pcie(n, h->pcie_switches, err, errlen)))
		sim_net_free(n); /* built, but not as asked: nothing left allocated */
	return rc;
}

int sim_topo_net_make(struct sim_net *n, enum sim_topo_kind kind, uint32_t nranks, char *err,
		      size_t errlen)
{
	return sim_topo_net_make_nodes(n, kind, nranks, 0, err, errlen);
}

int sim_topo_build(struct sim_topo *t, struct sim_engine *eng, enum sim_topo_kind kind,
		   uint32_t nranks, const struct sim_params *p)
{
	char err[SIM_NET_ERR_LEN];
	struct sim_net *net;
	int rc;

	if (!t)
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	/* UINT32_MAX ranks leave no node id for a switch (and no room for
	 * the NIC port tables' end marker). */
	if (!eng || !p || nranks == 0 || nranks == UINT32_MAX ||
	    (unsigned)kind >= SIM_TOPO_KIND_COUNT || sim_params_validate(p))
		return -EINVAL;
	net = malloc(sizeof(*net));
	if (!net)
		return -ENOMEM;
	rc = sim_topo_net_make(net, kind, nranks, err, sizeof(err));
	if (!rc)
		rc = sim_topo_build_net(t, eng, net, p);
	if (rc) {
		sim_net_free(net);
		free(net);
		return rc;
	}
	t->own = net;
	t->kind = kind;
	return 0;
}

void sim_topo_destroy(struct sim_topo *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i < t->nsw; i++) {
		sim_switch_destroy(&t->sw[i]);
		free(t->sw_ctx[i].in);
	}
	free(t->sw);
	free(t->sw_ctx);
	free(t->links);
	free(t->nic_first);
	free(t->nic_tx);
	free(t->nic_rx);
	if (t->own) {
		sim_net_free(t->own);
		free(t->own);
	}
	memset(t, 0, sizeof(*t));
}

/* ---- queries ---- */

bool sim_topo_switch_nvlink(const struct sim_topo *t, uint32_t s)
{
	return s < t->nsw && net_nvswitch(t->net, t->sw_ctx[s].node);
}

bool sim_topo_nic_port_nvlink(const struct sim_topo *t, uint32_t r, uint32_t port)
{
	const struct sim_net *n = t->net;
	const struct sim_net_node *v;

	if (r >= t->nranks)
		return false;
	v = &n->nodes[n->rank_node[r]];
	return port < v->nports && n->links[v->port_link[port]].kind == SIM_NET_LINK_NVLINK;
}

uint32_t sim_topo_nvswitch_port(const struct sim_topo *t, uint32_t r, uint32_t *sw,
				uint32_t *sw_port)
{
	const struct sim_net *n = t->net;
	uint32_t p = r < t->nranks ? sim_net_nvswitch_port(n, r) : SIM_NET_NONE, node, port;

	if (p == SIM_NET_NONE)
		return SIM_TOPO_NO_PORT;
	sim_net_peer(n, n->rank_node[r], p, &node, &port);
	for (uint32_t s = 0; sw && s < t->nsw; s++)
		if (t->sw_ctx[s].node == node)
			*sw = s;
	if (sw_port)
		*sw_port = port;
	return p;
}

uint32_t sim_topo_nic_port_mtu(const struct sim_topo *t, uint32_t r, uint32_t port)
{
	const struct sim_net *n = t->net;
	const struct sim_net_node *v = &n->nodes[n->rank_node[r]];

	return port < v->nports ? link_mtu(&n->links[v->port_link[port]], &t->fabric) : 0;
}

/* NVLSTree: each node's g ranks on an NVSwitch host of their own (the
 * trees between them cross the network). */
static bool nodes_ok(const struct sim_net *net, const struct cc_coll_params *p, char *err,
		     size_t errlen)
{
	uint32_t g = p->ranks_per_node, prev = SIM_NET_NONE;

	if (g < 2 || g >= p->nranks || p->nranks % g) {
		if (err && errlen)
			snprintf(err, errlen, "nvlstree needs nodes of two or more ranks, at least "
				 "two of them, that divide the %u ranks (ranks per node: %u)",
				 p->nranks, g);
		return false;
	}
	for (uint32_t b = 0; b + g <= p->nranks; b += g) {
		uint32_t h = sim_net_nvswitch_host(net, b, g);

		if (h != SIM_NET_NONE && h != prev) {
			prev = h;
			continue;
		}
		if (err && errlen)
			snprintf(err, errlen, "nvlstree joins nodes of %u ranks, each on an NVSwitch "
				 "host of its own: ranks %u..%u of the topology%s%s%s %s", g, b,
				 b + g - 1, net->name[0] ? " '" : "", net->name,
				 net->name[0] ? "'" : "",
				 h == SIM_NET_NONE ? "are not on one host with an NVSwitch "
						     "(nvlink: true)"
						   : "share a host with the ranks before them "
						     "(a scenario's railopt topology has a host per "
						     "node)");
		return false;
	}
	return true;
}

/* CollNetChain: each node's g ranks on a host of their own (the chain
 * inside it, SHARP between the hosts); one rank a node: a host each. */
static bool collnet_nodes_ok(const struct sim_net *net, const struct cc_coll_params *p,
			     char *err, size_t errlen)
{
	uint32_t g = p->ranks_per_node ? p->ranks_per_node : 1, prev = SIM_NET_NONE;

	for (uint32_t b = 0; b + g <= p->nranks; b += g) {
		uint32_t h = net->nodes[net->rank_node[b]].host;
		bool one = h != prev;

		for (uint32_t r = b + 1; r < b + g; r++)
			one = one && net->nodes[net->rank_node[r]].host == h;
		if (one) {
			prev = h;
			continue;
		}
		if (err && errlen)
			snprintf(err, errlen, "collnetchain chains nodes of %u ranks, each on a host "
				 "of its own, and reduces between the hosts in the network's "
				 "switches: ranks %u..%u of the topology%s%s%s are not one host of "
				 "their own", g, b, b + g - 1, net->name[0] ? " '" : "", net->name,
				 net->name[0] ? "'" : "");
		return false;
	}
	return true;
}

bool sim_topo_mcast_ok(const struct sim_net *net, const struct cc_coll_params *p, char *err,
		       size_t errlen)
{
	uint32_t nvs = 0;

	if (p->algo == CC_ALGO_NVLS_TREE)
		return nodes_ok(net, p, err, errlen);
	if (p->algo == CC_ALGO_COLLNET_CHAIN)
		return collnet_nodes_ok(net, p, err, errlen);
	if (!cc_algo_multicast(p->algo) || p->nranks < 2 ||
	    sim_net_nvswitch_host(net, 0, p->nranks) != SIM_NET_NONE)
		return true;
	for (uint32_t h = 0; h < net->nhosts; h++)
		nvs += net->hosts[h].nvswitch != SIM_NET_NONE;
	if (err && errlen)
		snprintf(err, errlen, "%s reduces and multicasts in the NVSwitch of one host, which "
			 "must hold all %u ranks; the topology%s%s%s has %u host%s (%u with an "
			 "NVSwitch, nvlink: true)", cc_algo_name[p->algo], p->nranks,
			 net->name[0] ? " '" : "", net->name, net->name[0] ? "'" : "", net->nhosts,
			 net->nhosts == 1 ? "" : "s", nvs);
	return false;
}

uint32_t sim_topo_route(const struct sim_topo *t, uint32_t src, uint32_t dst, uint64_t flow)
{
	if (src >= t->nranks || dst >= t->nranks || src == dst)
		return SIM_TOPO_NO_PORT;
	return sim_net_pick(t->net, t->net->rank_node[src], dst, flow);
}

uint32_t sim_topo_hops(const struct sim_topo *t, uint32_t src, uint32_t dst)
{
	if (src >= t->nranks || dst >= t->nranks || src == dst)
		return SIM_TOPO_NO_PORT;
	return sim_net_dist(t->net, t->net->rank_node[src], dst);
}

int sim_topo_net_path(const struct sim_net *net, const struct sim_params *p, uint32_t src,
		      uint32_t dst, uint64_t flow, struct sim_topo_path *out)
{
	uint32_t u, t, port;

	if (!net || !p || !out || !net->finished || src >= net->nranks || dst >= net->nranks ||
	    src == dst)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->mtu = UINT32_MAX;
	u = net->rank_node[src];
	t = net->rank_node[dst];
	/* Each hop is one link nearer (the ECMP sets are shortest-path), so
	 * the walk ends within dist links. */
	while (u != t) {
		const struct sim_net_link *l;

		port = sim_net_pick(net, u, dst, flow);
		if (port == SIM_NET_NONE)
			return -EINVAL;
		l = &net->links[net->nodes[u].port_link[port]];
		if (out->links == 0) {
			out->first_port = port;
			out->first_rate_bps = sim_topo_link_rate(l, p);
			out->first_nvlink = l->kind == SIM_NET_LINK_NVLINK;
		} else {
			out->switches++;
		}
		out->links++;
		out->prop_ps += link_prop(l, p);
		if (link_mtu(l, p) < out->mtu)
			out->mtu = link_mtu(l, p);
		out->last_nvlink = l->kind == SIM_NET_LINK_NVLINK;
		sim_net_peer(net, u, port, &u, NULL);
	}
	return 0;
}

uint32_t sim_topo_path_mtu(const struct sim_topo *t, uint32_t src, uint32_t dst, uint64_t flow)
{
	struct sim_topo_path path;

	if (sim_topo_net_path(t->net, &t->fabric, src, dst, flow, &path))
		return 0;
	return path.mtu;
}

uint32_t sim_topo_path(const struct sim_topo *t, uint32_t src, uint32_t port, uint32_t dst,
		       uint64_t flow, size_t *dirs, uint32_t max)
{
	const struct sim_net *n = t->net;
	const struct sim_link_dir *l = t->nic_tx[t->nic_first[src] + port];
	uint32_t count = 0;

	/* Bounded by the node count: a route never visits a node twice. */
	for (uint32_t hop = 0; l && count < max && hop <= n->nnodes; hop++) {
		size_t d = (size_t)(l - t->links);
		const struct sim_net_link *nl = &n->links[d / 2];
		uint32_t u = d % 2 ? nl->a : nl->b; /* the node it enters */
		uint32_t p;

		dirs[count++] = d;
		if (n->nodes[u].rank != SIM_NET_NONE)
			break; /* a NIC: the end */
		p = sim_net_pick(n, u, dst, flow);
		if (p == SIM_NET_NONE)
			return 0;
		l = &t->links[dir_out_index(t, n->nodes[u].port_link[p], u)];
	}
	return count;
}

uint64_t sim_topo_fastest_rate(const struct sim_net *net, const struct sim_params *f)
{
	uint64_t best = f->link.rate_bps;

	for (uint32_t i = 0; i < net->nlinks; i++) {
		uint64_t rate = sim_topo_link_rate(&net->links[i], f);

		if (rate > best)
			best = rate;
	}
	return best;
}

uint64_t sim_topo_rank_rate(const struct sim_net *net, const struct sim_params *f)
{
	uint64_t best = f->link.rate_bps;

	for (uint32_t r = 0; r < net->nranks; r++) {
		const struct sim_net_node *nic = &net->nodes[net->rank_node[r]];
		uint64_t sum = 0;

		for (uint32_t p = 0; p < nic->nports; p++)
			sum += sim_topo_link_rate(&net->links[nic->port_link[p]], f);
		if (sum > best)
			best = sum;
	}
	return best;
}

/* Whether every rank reaches every other: a switched network. */
static bool all_pairs(const struct sim_net *n)
{
	for (uint32_t a = 0; a < n->nranks; a++)
		for (uint32_t b = 0; b < n->nranks; b++)
			if (a != b && !sim_net_reaches(n, a, b))
				return false;
	return true;
}

bool sim_topo_carries(const struct sim_net *net, const struct cc_coll_params *p, uint32_t *a,
		      uint32_t *b)
{
	struct cc_coll_params small = *p;
	struct cc_schedule *s;
	char msg[256];
	bool ok = true;

	if (p->nranks > 512 || all_pairs(net))
		return true;
	small.count = p->nranks;
	s = cc_build(&small, msg, sizeof(msg));
	for (uint32_t r = 0; s && ok && r < s->nranks; r++)
		for (uint32_t q = 0; ok && q < s->ranks[r].nqps; q++) {
			uint32_t peer = s->ranks[r].qps[q].peer;

			if (peer == r || sim_net_reaches(net, r, peer))
				continue;
			*a = r;
			*b = peer;
			ok = false;
		}
	cc_schedule_free(s);
	return ok;
}
