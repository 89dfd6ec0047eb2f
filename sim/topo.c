/* sim/topo.c — the ring and star topologies: their links, their switch, and
 * which NIC port leads where.  The wiring and the storage are in topo.h.
 */
#include "sim/topo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *const sim_topo_kind_name[SIM_TOPO_KIND_COUNT] = {
	[SIM_TOPO_RING] = "ring",
	[SIM_TOPO_STAR] = "star",
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

/* Ring: NIC r's port 0 cable goes to NIC r+1's port 1, so the link NIC r
 * transmits on from port 0 delivers into (r+1, 1), and the one from port 1
 * — the reverse direction of the cable to r-1 — into (r-1, 0). */
static int build_ring(struct sim_topo *t)
{
	uint32_t k = t->nranks;

	for (uint32_t r = 0; r < k; r++) {
		uint32_t next = r + 1 == k ? 0 : r + 1, prev = r == 0 ? k - 1 : r - 1;

		t->nic_tx[(size_t)r * 2 + 0] = &t->links[(size_t)r * 2 + 0];
		t->nic_tx[(size_t)r * 2 + 1] = &t->links[(size_t)r * 2 + 1];
		t->nic_rx[(size_t)next * 2 + 1] = &t->links[(size_t)r * 2 + 0];
		t->nic_rx[(size_t)prev * 2 + 0] = &t->links[(size_t)r * 2 + 1];
	}
	return 0;
}

/* Star: links[r] NIC r -> switch port r, links[k + r] switch port r -> NIC
 * r; the switch sends to node r on port r. */
static int build_star(struct sim_topo *t, struct sim_engine *eng, const struct sim_params *p)
{
	uint32_t k = t->nranks;
	int rc;

	t->sw = calloc(1, sizeof(*t->sw));
	if (!t->sw)
		return -ENOMEM;
	/* The switch takes p->sw's latency, buffer and mode; radix is the
	 * topology's: k ports. */
	rc = sim_switch_init(t->sw, eng, k, &p->sw);
	if (rc) {
		free(t->sw);
		t->sw = NULL;
		return rc;
	}
	t->nsw = 1;
	for (uint32_t r = 0; r < k; r++) {
		t->nic_tx[r] = &t->links[r];
		t->nic_rx[r] = &t->links[(size_t)k + r];
		rc = sim_switch_connect(t->sw, r, t->nic_tx[r], t->nic_rx[r]);
		if (!rc)
			rc = sim_switch_route_set(t->sw, r, r);
		if (rc)
			return rc;
	}
	return 0;
}

int sim_topo_build(struct sim_topo *t, struct sim_engine *eng, enum sim_topo_kind kind,
		   uint32_t nranks, const struct sim_params *p)
{
	size_t nports, events;
	int rc;

	if (!t)
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	/* nranks + nsw must name a node: UINT32_MAX ranks leave no id for
	 * the switch (and would make the switch's port count its NO_PORT). */
	if (!eng || !p || nranks == 0 || nranks == UINT32_MAX ||
	    (unsigned)kind >= SIM_TOPO_KIND_COUNT || sim_params_validate(p))
		return -EINVAL;
	t->kind = kind;
	t->nranks = nranks;
	if (kind == SIM_TOPO_RING) {
		t->nic_ports = nranks == 1 ? 0 : 2;
		t->nlinks = nranks == 1 ? 0 : 2 * (size_t)nranks;
	} else {
		t->nic_ports = 1;
		t->nlinks = 2 * (size_t)nranks;
	}
	if (t->nlinks == 0)
		return 0;
	nports = (size_t)nranks * t->nic_ports;
	t->links = calloc(t->nlinks, sizeof(*t->links));
	t->nic_tx = calloc(nports, sizeof(*t->nic_tx));
	t->nic_rx = calloc(nports, sizeof(*t->nic_rx));
	if (!t->links || !t->nic_tx || !t->nic_rx) {
		rc = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < t->nlinks; i++) {
		rc = sim_link_init(&t->links[i], eng, p->link.rate_bps, p->link.prop_delay_ps);
		if (rc)
			goto fail;
	}
	rc = kind == SIM_TOPO_RING ? build_ring(t) : build_star(t, eng, p);
	if (rc)
		goto fail;

	events = t->nlinks * SIM_LINK_MAX_EVENTS;
	for (uint32_t i = 0; i < t->nsw; i++)
		events += sim_switch_max_events(t->sw[i].nports);
	/* On top of the room the engine already has (sim_engine_reserve()
	 * sets a total, and the engine offers no getter for it), so what an
	 * executor reserves for its NICs, before or after, adds up. */
	if (events > SIZE_MAX - eng->cap) {
		rc = -ENOMEM;
		goto fail;
	}
	rc = sim_engine_reserve(eng, (size_t)eng->cap + events);
	if (rc)
		goto fail;
	t->events = events;
	return 0;
fail:
	sim_topo_destroy(t);
	return rc;
}

void sim_topo_destroy(struct sim_topo *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i < t->nsw; i++)
		sim_switch_destroy(&t->sw[i]);
	free(t->sw);
	free(t->links);
	free(t->nic_tx);
	free(t->nic_rx);
	memset(t, 0, sizeof(*t));
}

uint32_t sim_topo_route(const struct sim_topo *t, uint32_t src, uint32_t dst)
{
	uint32_t k = t->nranks;

	if (src >= k || dst >= k || src == dst)
		return SIM_TOPO_NO_PORT;
	if (t->kind == SIM_TOPO_STAR)
		return 0;
	if (t->kind != SIM_TOPO_RING)
		return SIM_TOPO_NO_PORT;
	/* k = 2: next == prev, and port 0 is the one named first. */
	if (dst == (src + 1 == k ? 0 : src + 1))
		return 0;
	if (dst == (src == 0 ? k - 1 : src - 1))
		return 1;
	return SIM_TOPO_NO_PORT;
}

uint32_t sim_topo_switch_hops(const struct sim_topo *t, uint32_t src, uint32_t dst)
{
	(void)src;
	(void)dst;
	return t->kind == SIM_TOPO_STAR ? 1 : 0;
}
