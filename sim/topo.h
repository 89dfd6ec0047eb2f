/* sim/topo.h — the simple topologies of `cclab sim --topology`: which links
 * and switches join the ranks' NICs, and which NIC port leads to whom.
 *
 * Nodes: the NIC of rank r is node r; a switch is node nranks + i.  Every
 * link has the fabric's rate, propagation delay and framing (sim/params.h
 * link section); a cable is two struct sim_link_dir, one per direction.
 *
 *   ring  NIC r has two ports: port 0 is cabled to port 1 of NIC r+1 (mod
 *         k), so port 0 leads to the next rank and port 1 to the previous.
 *         With k = 2 the two NICs are joined by two cables (0.p0-1.p1 and
 *         1.p0-0.p1).  Only neighbours are reachable: there is no
 *         forwarding through a NIC.  k = 1: no links.
 *   star  NIC r has one port, cabled to port r of one switch (sim/switch.h,
 *         the fabric's switch section, radix = k ports whatever the preset's
 *         radix says); the switch routes by destination node.  k = 1: the
 *         lone NIC is still cabled to the switch.
 *
 * The topology owns its links and switches; a NIC attaches by connecting
 * the receive end of the links that lead into it (sim_link_connect() on
 * sim_topo_nic_rx()) and transmitting on sim_topo_nic_tx().
 */
#ifndef CCLAB_SIM_TOPO_H
#define CCLAB_SIM_TOPO_H

#include <stddef.h>
#include <stdint.h>

#include "sim/event.h"
#include "sim/link.h"
#include "sim/params.h"
#include "sim/switch.h"

enum sim_topo_kind {
	SIM_TOPO_RING,
	SIM_TOPO_STAR,
	SIM_TOPO_KIND_COUNT
};
extern const char *const sim_topo_kind_name[SIM_TOPO_KIND_COUNT]; /* "ring", "star" */

/* 0, or -EINVAL for an unknown name. */
int sim_topo_kind_parse(const char *s, enum sim_topo_kind *out);

#define SIM_TOPO_NO_PORT UINT32_MAX

/* Storage: the topology owns `links`, every link direction once; nic_tx
 * and nic_rx point into it, so a ring link is at once NIC r's transmit
 * link (port 0) and NIC r+1's receive link (port 1), one object.
 *   ring  links[r * 2 + port] is what NIC r transmits on from `port`:
 *         port 0 delivers into NIC r+1 port 1, port 1 into NIC r-1 port 0.
 *   star  links[r] is NIC r -> switch port r (the switch's input r),
 *         links[k + r] switch port r -> NIC r (the switch's output r). */
struct sim_topo {
	enum sim_topo_kind kind;
	uint32_t nranks;
	uint32_t nic_ports;           /* ports per NIC: ring 2 (0 when k = 1), star 1 */
	struct sim_link_dir **nic_tx; /* [r * nic_ports + port]: NIC r transmits */
	struct sim_link_dir **nic_rx; /* [r * nic_ports + port]: delivers into NIC r */
	struct sim_link_dir *links;   /* nlinks, owned: ring 2k (0 when k = 1), star 2k */
	size_t nlinks;
	struct sim_switch *sw;        /* nsw switches, node nranks + i */
	uint32_t nsw;
	size_t events;                /* engine events the links and switches can have
				       * pending: what build reserved */
};

/* Builds the links (and switch) of `kind` for nranks NICs with fabric *p on
 * engine eng; reserves their events on the engine (t->events, on top of the
 * room the engine already had, so a caller may reserve its own before or
 * after, the same way).  *t is zeroed first, so sim_topo_destroy() is safe
 * after any failure.  0, -EINVAL (nranks 0 or UINT32_MAX, a bad kind, NULL
 * pointers or parameters sim_params_validate() rejects), or -ENOMEM
 * (nothing left allocated). */
int sim_topo_build(struct sim_topo *t, struct sim_engine *eng, enum sim_topo_kind kind,
		   uint32_t nranks, const struct sim_params *p);
/* Frees what build allocated and zeroes *t; safe on a zeroed struct. */
void sim_topo_destroy(struct sim_topo *t);

static inline struct sim_link_dir *sim_topo_nic_tx(struct sim_topo *t, uint32_t r, uint32_t port)
{
	return t->nic_tx[(size_t)r * t->nic_ports + port];
}

static inline struct sim_link_dir *sim_topo_nic_rx(struct sim_topo *t, uint32_t r, uint32_t port)
{
	return t->nic_rx[(size_t)r * t->nic_ports + port];
}

/* The port of NIC `src` whose packets reach NIC `dst`, or SIM_TOPO_NO_PORT
 * (dst unreachable, or dst == src: NIC loopback is not modelled). */
uint32_t sim_topo_route(const struct sim_topo *t, uint32_t src, uint32_t dst);

/* Switches a packet from src to dst crosses (ring 0, star 1); only
 * meaningful where sim_topo_route() finds a port. */
uint32_t sim_topo_switch_hops(const struct sim_topo *t, uint32_t src, uint32_t dst);

#endif /* CCLAB_SIM_TOPO_H */
