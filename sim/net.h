/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/net.h — a network as a description: hosts and their GPUs, the NIC
 * each GPU uses, switches, links, and the routes between ranks.
 *
 * This is data, built by the generators (ring, star, leafspine, railopt:
 * sim/net_gen.c) or by a topology file (sim/net_yaml.c); sim/topo.c turns
 * it into engine objects (links, switches) for a run.  Nothing here knows
 * about time passing.
 *
 * Nodes.  Every GPU is one rank, with its own RNIC: a node of kind
 * SIM_NET_NIC (one NIC per GPU, as on rail-optimised GPU servers; NICs
 * shared by several GPUs are not modelled).  Ranks are numbered host by
 * host, GPU by GPU.  A switch is a node of kind SIM_NET_SWITCH: a network
 * switch, or the NVSwitch that joins the GPUs of a host.  Only switches
 * forward: a NIC is an end point, so on the `ring` generator (NICs cabled
 * NIC to NIC) a rank reaches its two neighbours and nobody else.
 *
 * Links join two nodes, one new port on each, full duplex.  A network link
 * (SIM_NET_LINK_NET) has the fabric's rate, propagation and MTU unless it
 * says otherwise (0 = the fabric's value); an NVLink link
 * (SIM_NET_LINK_NVLINK) joins a GPU to its host's NVSwitch at
 * host.nvlink_bps unless it says otherwise.
 *
 * Routes (sim_net_finish()).  Shortest paths in links, through switches
 * only.  Between two ranks of one host with NVLink, only NVLink paths count
 * (NCCL uses NVLink, not the NIC, inside a node).  Where several next hops
 * are equally short, all of them form the node's ECMP set for that
 * destination, and sim_net_pick() chooses one per flow (a QP) by hash, as
 * switches hash a flow's 5-tuple: one flow, one path.
 */
#ifndef CCLAB_SIM_NET_H
#define CCLAB_SIM_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/time.h"

#define SIM_NET_NONE UINT32_MAX
#define SIM_NET_NAME_LEN 48
#define SIM_NET_ERR_LEN 256

enum sim_net_kind { SIM_NET_NIC, SIM_NET_SWITCH };
enum sim_net_link_kind { SIM_NET_LINK_NET, SIM_NET_LINK_NVLINK };

struct sim_net_node {
	enum sim_net_kind kind;
	char name[SIM_NET_NAME_LEN]; /* "h3.gpu2", "leaf0", "spine1", "h3.nvswitch" */
	uint32_t rank;               /* NIC: its rank; switch: SIM_NET_NONE */
	uint32_t host;               /* NIC or NVSwitch: its host; else SIM_NET_NONE */
	uint32_t nports;
	uint32_t *port_link;         /* port -> link index */
	uint32_t cap_ports;
	bool sharp;                  /* switch: it has SHARP's aggregation engine
				      * (a topology file's `sharp: true`; the
				      * fabric's switch.sharp gives every switch
				      * one) */
};

struct sim_net_link {
	uint32_t a, a_port, b, b_port; /* nodes, and their ports for this link */
	enum sim_net_link_kind kind;
	uint64_t rate_bps;             /* 0: the fabric's (link.rate_bps or host.nvlink_bps) */
	sim_time_ps prop_ps;           /* SIM_NET_DEFAULT_PROP: the fabric's link.prop_delay_ps */
	uint32_t mtu;                  /* 0: the fabric's link.mtu_bytes */
};
#define SIM_NET_DEFAULT_PROP UINT64_MAX

/* A host's PCIe tree (docs/yaml.md `pcie:`): its GPUs, each with its NIC,
 * split evenly over `switches` PCIe switches (GPU g behind switch
 * g / (ngpus / switches)), each joined to the root complex, and so to host
 * memory, by one uplink the devices behind it share (sim/pcie.h).
 * switches 0: no switch, every device on a root port of its own. */
struct sim_net_pcie {
	uint32_t switches;
	uint64_t uplink_bps;           /* per direction; 0: the fabric's pcie.rate_bps */
	sim_time_ps latency_ps;        /* a switch hop; SIM_NET_DEFAULT_PROP: SIM_NET_PCIE_SWITCH_PS */
};

/* Cut-through latency of a PCIe switch between two x16 ports: 105 ns,
 * Broadcom's figure for its Gen4 PEX88000 family (Linley Group, "Broadcom
 * Ships PCIe Gen4 Switches", 2019-09-24), the switch family of HGX boards.
 * Charged once per flight through the switch. */
#define SIM_NET_PCIE_SWITCH_PS UINT64_C(105000)

struct sim_net_host {
	char name[SIM_NET_NAME_LEN];
	uint32_t first_rank, ngpus;
	uint32_t nvswitch;             /* its NVSwitch node, or SIM_NET_NONE */
	struct sim_net_pcie pcie;
	uint32_t first_pcie_switch;    /* its first switch, counted over the hosts before it */
	/* NICs per GPU (docs/yaml.md `nics:`): each of a GPU's network ports is
	 * a NIC of its own, with its own PCIe link, and NCCL's channels are
	 * dealt over them; 0: one NIC, whatever its ports. */
	uint32_t nics;
};

/* An index of names (sim/net.c). */
struct sim_net_names {
	uint32_t *slot;
	uint32_t cap;
};

/* A switch's route row: its entries towards ranks lo .. hi - 1 start at
 * entry `base`; every other rank is out of its reach. */
struct sim_net_row {
	uint32_t node, lo, hi;
	size_t base;
};

struct sim_net {
	char name[SIM_NET_NAME_LEN];   /* "ring", "leafspine", a file's name */
	struct sim_net_node *nodes;
	struct sim_net_link *links;
	struct sim_net_host *hosts;
	uint32_t nnodes, nlinks, nhosts, nranks;
	uint32_t cap_nodes, cap_links, cap_hosts;
	uint32_t *rank_node;           /* rank -> its NIC node (nranks entries) */
	struct sim_net_names node_names, host_names;
	/* Routes, filled by sim_net_finish(): a row per switch over the
	 * ranks it can reach (rows[row_of[u]]); for its entry e towards rank
	 * d (base + d - lo), the route_cnt[e] ports of u on a shortest path
	 * start at route_ports[route_off[e]] (none where d cannot be
	 * reached), each distinct set kept once.  A NIC has no row (row_of SIM_NET_NONE): its
	 * routes follow from its neighbours' (sim_net_routes()).  Read them
	 * through the functions below. */
	struct sim_net_row *rows;
	uint32_t *row_of;              /* per node: its row, or SIM_NET_NONE */
	uint32_t nrows;
	size_t nentries;
	uint32_t *route_off, *route_cnt; /* per entry */
	uint32_t *route_ports, nroute_ports;
	uint32_t *dist;                /* per entry: links on the path, or SIM_NET_NONE */
	bool finished;
};

/* An empty network named `name`. */
void sim_net_init(struct sim_net *n, const char *name);
void sim_net_free(struct sim_net *n);

/* Adds a host with ngpus GPUs (ranks first_rank .. first_rank + ngpus - 1,
 * in the order hosts are added), each with its NIC node named
 * "<host>.gpu<i>", and, when nvlink is true, an NVSwitch node
 * "<host>.nvswitch" joined to every GPU by an NVLink link.  Returns the host
 * index, or SIM_NET_NONE with errno = ENOMEM / EINVAL (0 GPUs, a name that
 * does not fit or is already taken, or after sim_net_finish()). */
uint32_t sim_net_add_host(struct sim_net *n, const char *name, uint32_t ngpus, bool nvlink);

/* The GPUs of every host when all hosts have the same number (ranks
 * h*G .. h*G+G-1 on host h, as sim_net_add_host numbers them); 0 when
 * there are no hosts or they differ. */
uint32_t sim_net_ranks_per_node(const struct sim_net *n);

/* The host whose NVSwitch joins ranks first .. first + count - 1 (all of
 * them its GPUs), or SIM_NET_NONE: where a multicast group of NVLink
 * SHARP can be (core/schedule.h). */
uint32_t sim_net_nvswitch_host(const struct sim_net *n, uint32_t first, uint32_t count);

/* The port of rank r's NIC whose link leads to its host's NVSwitch, or
 * SIM_NET_NONE. */
uint32_t sim_net_nvswitch_port(const struct sim_net *n, uint32_t r);

/* A host's switch uplink rate (its own, else pcie_rate_bps, the fabric's)
 * and hop latency (its own, else SIM_NET_PCIE_SWITCH_PS). */
uint64_t sim_net_pcie_uplink_bps(const struct sim_net_pcie *pc, uint64_t pcie_rate_bps);
sim_time_ps sim_net_pcie_hop_ps(const struct sim_net_pcie *pc);

/* Gives host h PCIe tree *pc (routes do not depend on it: a finished
 * network takes it too): 0, or -EINVAL when pc->switches is 0 or does not
 * divide its GPUs. */
int sim_net_host_pcie(struct sim_net *n, uint32_t h, const struct sim_net_pcie *pc);
/* PCIe switches over every host; the one rank r sits behind (0 ..
 * count - 1), or SIM_NET_NONE where its host has none. */
uint32_t sim_net_pcie_switch_count(const struct sim_net *n);
uint32_t sim_net_pcie_switch(const struct sim_net *n, uint32_t r);
/* A line on n's PCIe switches for a report's header, without '#' or
 * newline ("8 PCIe switches over 2 hosts: ..."), the uplink rate the
 * fabric's pcie_rate_bps where a host gives none; false (buf untouched)
 * where n has none. */
bool sim_net_pcie_text(const struct sim_net *n, uint64_t pcie_rate_bps, char *buf, size_t len);
/* Gives host h `nics` NICs per GPU (above; 1 .. SIM_NET_MAX_NICS): 0, or
 * -EINVAL.  sim_net_finish() checks every GPU of h has that many network
 * ports. */
#define SIM_NET_MAX_NICS 16
int sim_net_host_nics(struct sim_net *n, uint32_t h, uint32_t nics);
/* NICs of rank r's GPU: its host's `nics`, 0 where not given. */
uint32_t sim_net_rank_nics(const struct sim_net *n, uint32_t r);
/* The host of rank r (r < nranks). */
uint32_t sim_net_rank_host(const struct sim_net *n, uint32_t r);

/* Adds a switch; the node index, or SIM_NET_NONE (errno as above). */
uint32_t sim_net_add_switch(struct sim_net *n, const char *name);
/* Whether some switch of n has SHARP (its node's `sharp`). */
bool sim_net_has_sharp(const struct sim_net *n);
/* Whether every host can have its NICs on the other CPU socket from their
 * GPUs (host.nic_socket remote): not one behind PCIe switches (which hold
 * a GPU with its NIC) nor with several NICs a GPU (which reach its memory
 * through its own link); false with the first such host named in msg. */
bool sim_net_nic_socket_ok(const struct sim_net *n, char *msg, size_t len);

/* Whether nodes a and b belong to one host (its GPUs and its NVSwitch). */
bool sim_net_same_host(const struct sim_net *n, uint32_t a, uint32_t b);

/* Joins nodes a and b (a != b) with a link; its index or SIM_NET_NONE
 * (EINVAL for an NVLink link whose ends are not of one host). */
uint32_t sim_net_add_link(struct sim_net *n, uint32_t a, uint32_t b, enum sim_net_link_kind kind,
			  uint64_t rate_bps, sim_time_ps prop_ps, uint32_t mtu);

/* The node named `name`, or SIM_NET_NONE. */
uint32_t sim_net_find(const struct sim_net *n, const char *name);

/* Validates and computes the routes.  all_pairs: every rank must reach
 * every other (a switched fabric); otherwise (the ring) each rank must
 * reach rank+1 and rank-1.  0, or -EINVAL with a message in err naming the
 * first pair of ranks (and their nodes) without a route or the node that
 * hangs alone ("rank 5 (h0.gpu5) cannot reach rank 12 (h1.gpu4): the
 * topology is not connected"), or -ENOMEM. */
int sim_net_finish(struct sim_net *n, bool all_pairs, char *err, size_t errlen);

/* Whether rank s's NIC has a route to rank d (after sim_net_finish()). */
bool sim_net_reaches(const struct sim_net *n, uint32_t s, uint32_t d);

/* The links on a shortest path from node u to rank d's NIC (0: u is that
 * NIC), or SIM_NET_NONE where there is none. */
uint32_t sim_net_dist(const struct sim_net *n, uint32_t u, uint32_t d);

/* The ECMP set of node u towards rank d: count, and where ports is
 * non-NULL the ports in *ports: in the switch's table, or for a NIC
 * (whose set is computed, not stored) in buf, which a NIC's set needs
 * (with buf NULL, *ports stays NULL: the count only).  A GPU has at most
 * SIM_NET_NIC_PORTS_MAX links (sim_net_finish() refuses more). */
#define SIM_NET_NIC_PORTS_MAX 256
uint32_t sim_net_routes(const struct sim_net *n, uint32_t u, uint32_t d,
			uint32_t buf[SIM_NET_NIC_PORTS_MAX], const uint32_t **ports);

/* The port of u a flow towards d takes: one of the ECMP set, chosen by a
 * hash of (flow, u) — stable for a flow, spread over flows; SIM_NET_NONE
 * when d is unreachable from u. */
uint32_t sim_net_pick(const struct sim_net *n, uint32_t u, uint32_t d, uint64_t flow);

/* sim_net_pick(), but where one of u's ports towards d ends at port
 * `port` of d's NIC node, that one: a packet for one NIC of a GPU with
 * several (addressed to that NIC, as a GID or LID names one port). */
uint32_t sim_net_pick_port(const struct sim_net *n, uint32_t u, uint32_t d, uint32_t port,
			   uint64_t flow);

/* The node and port at the far end of port p of node u. */
void sim_net_peer(const struct sim_net *n, uint32_t u, uint32_t p, uint32_t *node,
		  uint32_t *port);

/* ---- generators (sim/net_gen.c) ----
 * Each starts from an initialised, empty network, builds it, names it, and
 * calls sim_net_finish().  0, -EINVAL (message in err) or -ENOMEM. */

/* k hosts of one GPU, NIC r cabled to NIC r+1 (two ports each; k = 2: two
 * cables; k = 1: none). */
int sim_net_ring(struct sim_net *n, uint32_t k, char *err, size_t errlen);

/* k hosts of one GPU on one switch "sw0". */
int sim_net_star(struct sim_net *n, uint32_t k, char *err, size_t errlen);

/* One host "n0" of k GPUs joined by its NVSwitch, NVLink only (no
 * network): a DGX-style node, where NVLS runs (core/nvls.c). */
int sim_net_node(struct sim_net *n, uint32_t k, char *err, size_t errlen);

/* Two tiers: `leaves` leaf switches with hosts_per_leaf one-GPU hosts each,
 * and `spines` spine switches.  Oversubscription num:den is downlink to
 * uplink capacity per leaf: each leaf has hosts_per_leaf * den / num uplinks
 * at the link rate, spread evenly over the spines (so that count must be a
 * whole multiple of spines; otherwise -EINVAL saying which numbers would
 * work).  Names: leaf<i>, spine<j>, h<n>. */
int sim_net_leafspine(struct sim_net *n, uint32_t hosts_per_leaf, uint32_t leaves,
		      uint32_t spines, uint32_t oversub_num, uint32_t oversub_den, char *err,
		      size_t errlen);

/* Rail-optimised GPU cluster: `nodes` hosts of gpus_per_node GPUs, each GPU
 * with its own NIC; GPU g of every host is cabled to rail leaf "rail<g>";
 * every rail leaf has as many uplinks as hosts (rails are not
 * oversubscribed), dealt round robin over the `spines` spines (a spine
 * beyond the number of hosts gets none); an NVSwitch per host joins its
 * GPUs.  With spines = 0, ranks on different rails of different
 * hosts cannot reach each other (all_pairs fails). */
int sim_net_railopt(struct sim_net *n, uint32_t nodes, uint32_t gpus_per_node, uint32_t spines,
		    char *err, size_t errlen);
/* The same with `nics` NICs per GPU (1 .. SIM_NET_MAX_NICS; the host's
 * `nics`): NIC j of GPU g on rail leaf "rail<g>" when nics is 1, else on
 * its own rail "rail<g>_<j>", a plane per NIC index: plane j's rails
 * cabled to its own `spines` spines "plane<j>_spine<s>". */
int sim_net_railopt_nics(struct sim_net *n, uint32_t nodes, uint32_t gpus_per_node,
			 uint32_t nics, uint32_t spines, char *err, size_t errlen);

#endif /* CCLAB_SIM_NET_H */
