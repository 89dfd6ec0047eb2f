/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/topo.h — the run-time topology: a network description (sim/net.h)
 * turned into engine objects — links and switches — and which NIC port
 * leads to whom.
 *
 * Built from a finished struct sim_net (sim_topo_build_net(): a generator's
 * or a topology file's), or for `cclab sim --topology ring|star` from the
 * generator of that name (sim_topo_build(), which then owns the network):
 *
 *   ring  NIC r has two ports: port 0 is cabled to port 1 of NIC r+1 (mod
 *         k), so port 0 leads to the next rank and port 1 to the previous.
 *         With k = 2 the two NICs are joined by two cables (0.p0-1.p1 and
 *         1.p0-0.p1), and a flow takes one of them by hash.  Only
 *         neighbours are reachable: there is no forwarding through a NIC.
 *         k = 1: no links.
 *   star  NIC r has one port, cabled to port r of one switch (sim/switch.h,
 *         the fabric's switch section, radix = k ports whatever the preset's
 *         radix says).  k = 1: the lone NIC is still cabled to the switch.
 *
 * Links.  Every link of the network is two struct sim_link_dir, one per
 * direction: links[2i] carries network link i from its node a to node b,
 * links[2i + 1] from b to a.  Rate, propagation and MTU are the link's own
 * where the network gives them, else the fabric's (sim/params.h link
 * section); an NVLink link defaults to host.nvlink_bps (the fabric's link
 * rate if that is 0) and to SIM_TOPO_NVLINK_PROP_PS.
 *
 * Switches.  One struct sim_switch per switch node (NVSwitches included),
 * with the node's ports, switch port p = node port p, and the fabric's
 * switch section (latency, buffer, mode).  A switch routes each packet by
 * sim_net_pick(net, its node, pkt->dst_node, pkt->flow_id): dst_node is the
 * destination RANK, and the hash keeps a flow (a QP) on one path.
 *
 * The topology owns its links and switches; a NIC attaches by connecting
 * the receive end of the links that lead into it (sim_link_connect() on
 * sim_topo_nic_rx()) and transmitting on sim_topo_nic_tx().  Switches hold
 * pointers to the network: it must outlive the topology.
 */
#ifndef CCLAB_SIM_TOPO_H
#define CCLAB_SIM_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/event.h"
#include "sim/link.h"
#include "sim/net.h"
#include "sim/params.h"
#include "sim/switch.h"

enum sim_topo_kind {
	SIM_TOPO_RING,
	SIM_TOPO_STAR,
	SIM_TOPO_NODE, /* one host, its GPUs on its NVSwitch (sim_net_node()) */
	SIM_TOPO_RAILOPT, /* hosts of G GPUs on NVSwitches, a rail per local index,
			   * one spine (sim_net_railopt()) */
	SIM_TOPO_KIND_COUNT
};
extern const char *const sim_topo_kind_name[SIM_TOPO_KIND_COUNT]; /* "ring", "star", ... */

/* 0, or -EINVAL for an unknown name. */
int sim_topo_kind_parse(const char *s, enum sim_topo_kind *out);

#define SIM_TOPO_NO_PORT UINT32_MAX

/* The dst_node of a packet for the NVSwitch it reaches first, not for a
 * rank: a multicast QP's request (NVLink SHARP, core/schedule.h), or a
 * member's answer to the switch's read.  An NVSwitch routes it to itself
 * (SIM_SWITCH_LOCAL), any other switch drops it as unroutable. */
#define SIM_TOPO_MCAST (UINT32_MAX - 1)

/* Propagation of an NVLink link that does not give its own: 0.  The
 * traces from a GPU to its NVSwitch are centimetres of board and
 * backplane (under 2 ns at ~5 ns/m), small next to the NVSwitch's
 * forwarding, which the switch latency already charges; no datasheet
 * gives the figure, so the model adds nothing rather than invent one. */
#define SIM_TOPO_NVLINK_PROP_PS 0

/* A switch's routing context: its network and node. */
struct sim_topo_sw_ctx {
	const struct sim_net *net;
	uint32_t node;
	bool nvswitch;            /* every port NVLink: SIM_TOPO_MCAST is its own */
	bool sharp;               /* a network switch with SHARP (switch.sharp): so is it */
	struct sim_link_dir **in; /* per port: the link into it (credits go back on it) */
};

struct sim_topo {
	enum sim_topo_kind kind;      /* sim_topo_build()'s; SIM_TOPO_KIND_COUNT from a net */
	uint32_t nranks;
	const struct sim_net *net;    /* the routes */
	struct sim_net *own;          /* the network sim_topo_build() made, or NULL */
	struct sim_params fabric;     /* a copy: the links' defaults */
	uint32_t *nic_first;          /* nranks + 1: rank r's ports are nic_first[r] .. [r + 1] */
	struct sim_link_dir **nic_tx; /* [nic_first[r] + port]: NIC r transmits */
	struct sim_link_dir **nic_rx; /* [nic_first[r] + port]: delivers into NIC r */
	struct sim_link_dir *links;   /* nlinks = 2 per network link, owned (see above) */
	size_t nlinks;
	struct sim_switch *sw;        /* nsw switches, in node order */
	struct sim_topo_sw_ctx *sw_ctx;
	uint32_t nsw;
	size_t events;                /* engine events the links and switches can have
				       * pending: what build reserved */
};

/* Builds the links and switches of finished network *net for fabric *p on
 * engine eng; reserves their events on the engine (t->events, on top of
 * the room the engine already had, so a caller may reserve its own before
 * or after, the same way).  *t is zeroed first, so sim_topo_destroy() is
 * safe after any failure.  0, -EINVAL (NULL pointers, a network not
 * finished, or parameters sim_params_validate() rejects), -ENOBUFS (what
 * sim_topo_credit_check() refuses), or -ENOMEM (nothing left allocated). */
/* What sim_topo_build_net() allocates for network n, about: its links'
 * two directions, switches and ports, NICs, and the events they reserve
 * (cc_sim_mem_estimate()). */
double sim_topo_mem_estimate(const struct sim_net *n);
int sim_topo_build_net(struct sim_topo *t, struct sim_engine *eng, const struct sim_net *net,
		       const struct sim_params *p);

struct cc_coll_params;

/* Whether network net connects every pair of ranks that collective p's
 * schedule joins by a queue pair (built for a small array: the connections
 * do not depend on the size).  false with the first pair it does not in
 * *a, *b (halving-doubling's partners or a tree on a ring of NICs).  true
 * also when the schedule cannot be built here or has over 512 ranks (an
 * all-to-all's k^2 queue pairs): the run decides those. */
bool sim_topo_carries(const struct sim_net *net, const struct cc_coll_params *p, uint32_t *a,
		      uint32_t *b);

/* With IB credit flow control and a finite switch buffer, every switch
 * of net must have room for one largest frame (MTU + headers) per port:
 * credits are a promise of buffer space (IBA 7.9), so a switch that hands
 * out more than it holds would drop on a lossless fabric.  0, or -ENOBUFS
 * with the switch, the figures and the smallest buffer that works in err
 * (may be NULL). */
int sim_topo_credit_check(const struct sim_net *net, const struct sim_params *p, char *err,
			  size_t errlen);

/* The same on the network sim_topo_net_make() generates for kind and
 * nranks, which the topology owns.  -EINVAL also for nranks 0 or
 * UINT32_MAX or a bad kind. */
int sim_topo_build(struct sim_topo *t, struct sim_engine *eng, enum sim_topo_kind kind,
		   uint32_t nranks, const struct sim_params *p);

/* Initialises *n and generates the `kind` network of nranks ranks
 * (sim_net_ring() or sim_net_star()): 0, or -EINVAL / -ENOMEM with a
 * message in err.  Free with sim_net_free(). */
int sim_topo_net_make(struct sim_net *n, enum sim_topo_kind kind, uint32_t nranks, char *err,
		      size_t errlen);
/* The same with nodes of per_node ranks, which railopt needs (dividing
 * nranks) and the others ignore. */
int sim_topo_net_make_nodes(struct sim_net *n, enum sim_topo_kind kind, uint32_t nranks,
			    uint32_t per_node, char *err, size_t errlen);

/* What a generated network's hosts hold besides their GPUs (the command
 * line's --nics and --pcie-switches): NICs per GPU (railopt only; 0 or 1:
 * one) and PCIe switches per host (0: none; docs/yaml.md `pcie:`). */
struct sim_topo_hosts {
	uint32_t nics, pcie_switches;
};

/* sim_topo_net_make_nodes() with hosts of *h (NULL: as without): -EINVAL
 * with a message naming the option where the generator cannot give them. */
int sim_topo_net_make_hosts(struct sim_net *n, enum sim_topo_kind kind, uint32_t nranks,
			    uint32_t per_node, const struct sim_topo_hosts *h, char *err,
			    size_t errlen);

/* Frees what build allocated (the network too, if it made it) and zeroes
 * *t; safe on a zeroed struct. */
void sim_topo_destroy(struct sim_topo *t);

/* Ports of rank r's NIC. */
static inline uint32_t sim_topo_nic_nports(const struct sim_topo *t, uint32_t r)
{
	return t->nic_first[r + 1] - t->nic_first[r];
}

static inline struct sim_link_dir *sim_topo_nic_tx(struct sim_topo *t, uint32_t r, uint32_t port)
{
	return t->nic_tx[t->nic_first[r] + port];
}

static inline struct sim_link_dir *sim_topo_nic_rx(struct sim_topo *t, uint32_t r, uint32_t port)
{
	return t->nic_rx[t->nic_first[r] + port];
}

/* Whether switch s (t->sw order) is an NVSwitch: every port NVLink.  The
 * fabric's switch buffer, credits, PFC and ECN are the network's and do
 * not apply to it. */
bool sim_topo_switch_nvlink(const struct sim_topo *t, uint32_t s);
/* Whether port `port` of rank r's NIC is an NVLink link (to its host's
 * NVSwitch). */
bool sim_topo_nic_port_nvlink(const struct sim_topo *t, uint32_t r, uint32_t port);
/* The port of rank r's NIC whose link leads to its host's NVSwitch, and in
 * *sw and *sw_port (may be NULL) that switch (t->sw order) and its port at
 * the other end; SIM_TOPO_NO_PORT when r's host has none. */
uint32_t sim_topo_nvswitch_port(const struct sim_topo *t, uint32_t r, uint32_t *sw,
				uint32_t *sw_port);
/* The MTU of the link at port `port` of rank r's NIC (its own, else the
 * fabric's). */
uint32_t sim_topo_nic_port_mtu(const struct sim_topo *t, uint32_t r, uint32_t port);

/* Whether network net has what collective p's multicast QPs need
 * (cc_algo_multicast()): one host whose NVSwitch joins every rank.  true
 * for an algorithm without them; false with why in err (may be NULL). */
bool sim_topo_mcast_ok(const struct sim_net *net, const struct cc_coll_params *p, char *err,
		       size_t errlen);

/* The flow id of QP q of rank r: what the NIC's port choice
 * (sim_topo_route()) and every switch's ECMP hash (pkt->flow_id) see, so
 * one QP keeps one path — as a switch hashing a RoCEv2 QP's 5-tuple does,
 * whose UDP source port is fixed per QP. */
static inline uint64_t sim_topo_qp_flow(uint32_t r, uint32_t q)
{
	return (uint64_t)r << 32 | q;
}

/* A network link's rate: its own, else the fabric's (host.nvlink_bps for
 * NVLink, when set; link.rate_bps otherwise). */
uint64_t sim_topo_link_rate(const struct sim_net_link *l, const struct sim_params *p);

/* The port of NIC `src` that flow `flow` towards NIC `dst` leaves by
 * (sim_net_pick() at src's node), or SIM_TOPO_NO_PORT (dst unreachable,
 * out of range, or dst == src: NIC loopback is not modelled). */
uint32_t sim_topo_route(const struct sim_topo *t, uint32_t src, uint32_t dst, uint64_t flow);

/* Links on a path from src to dst (ring neighbours 1, star 2; every ECMP
 * path is a shortest one, so any flow's), or SIM_TOPO_NO_PORT where
 * sim_topo_route() finds none.  The switches on it: one fewer. */
uint32_t sim_topo_hops(const struct sim_topo *t, uint32_t src, uint32_t dst);

/* The path one flow takes, link by link, with the fabric's defaults
 * applied to each link. */
struct sim_topo_path {
	uint32_t links, switches;
	uint32_t first_port;      /* of src's NIC */
	uint32_t mtu;             /* smallest link MTU on the path */
	sim_time_ps prop_ps;      /* propagation, summed over the links */
	uint64_t first_rate_bps;  /* of the link src transmits on */
	bool first_nvlink;        /* src transmits on an NVLink link */
	bool last_nvlink;         /* dst receives from an NVLink link */
};

/* Walks flow `flow` from rank src to rank dst through finished network
 * *net, switch by switch (sim_net_pick() at each), under fabric *p.  0, or
 * -EINVAL where sim_topo_route() would give SIM_TOPO_NO_PORT. */
int sim_topo_net_path(const struct sim_net *net, const struct sim_params *p, uint32_t src,
		      uint32_t dst, uint64_t flow, struct sim_topo_path *out);

/* The path MTU of flow `flow` from src to dst: the smallest MTU of the
 * links it crosses, each link's own or the fabric's; 0 without a path. */
uint32_t sim_topo_path_mtu(const struct sim_topo *t, uint32_t src, uint32_t dst, uint64_t flow);

/* The fastest link of network net, bit/s (the fabric's link rate at
 * least): no single flow (one QP, one path) sends payload faster. */
uint64_t sim_topo_fastest_rate(const struct sim_net *net, const struct sim_params *f);

/* The most one rank can send at once on network net, bit/s: the sum of
 * the rates of the links at its NIC's ports (two cables on a k = 2 ring,
 * NVLink beside the NIC on a node), the largest over ranks, and the
 * fabric's link rate at least.  No collective's busbw (nccl-tests) exceeds
 * it: some rank must move busbw x time bytes through its ports (allreduce:
 * 2 (k-1) N in all over k ranks, Patarasuk and Yuan; the gathers,
 * scatters and all-to-all (k-1) N / k each; broadcast N into every other
 * rank, reduce N out of each), and NIC nodes never forward. */
uint64_t sim_topo_rank_rate(const struct sim_net *net, const struct sim_params *f);

/* The link directions (indices into t->links) a packet of flow `flow`
 * takes from rank src's NIC port `port` to rank dst, switches routing it
 * by sim_net_pick() as they do in the run; at most max of them are
 * stored, and their count is returned (0 when the path is unknown). */
uint32_t sim_topo_path(const struct sim_topo *t, uint32_t src, uint32_t port, uint32_t dst,
		       uint64_t flow, size_t *dirs, uint32_t max);

#endif /* CCLAB_SIM_TOPO_H */
