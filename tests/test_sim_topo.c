/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_sim_topo.c — the run-time topology (sim/topo.c): kind names,
 * the route and hop tables of ring and star, the wiring (every link
 * delivers into the NIC port the cabling says, and one ring link is both a
 * NIC's transmit link and its neighbour's receive link), one packet's
 * arrival time to the picosecond against its closed form (written beside
 * each assertion) on ring, star, leaf-spine and NVLink, link values from
 * the network or the fabric, path MTU, the event reservation, and the
 * error paths.
 *
 * Notation: ser(B) = ceil(B * 8e12 / rate) ps; w = wire bytes of the packet;
 * p = propagation delay of one link; f = the switch's forwarding latency;
 * h = the cut-through header (64 B, counted from the LRH on IB: no preamble).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "sim/event.h"
#include "sim/link.h"
#include "sim/packet.h"
#include "sim/params.h"
#include "sim/switch.h"
#include "sim/time.h"
#include "sim/topo.h"
#include "sim/wire.h"

#define NO SIM_TOPO_NO_PORT
#define ANY 2u /* a route table entry: either port (the k = 2 ring's two cables) */

enum { MAXK = 8, MAXRX = 64 };

/* What arrived where. */
struct arrival {
	sim_time_ps at;
	uint32_t nic, port;
	struct sim_packet *pkt;
};

struct rxlog {
	struct arrival a[MAXRX];
	size_t n;
};

/* One receiving NIC: its rank and the shared log. */
struct nic {
	struct rxlog *log;
	uint32_t rank;
};

static void nic_rx(struct sim_engine *eng, void *ctx, uint32_t port, struct sim_packet *pkt,
		   sim_time_ps last_ps)
{
	struct nic *n = ctx;

	assert_int_equal(last_ps, sim_now(eng)); /* NICs take the last bit */
	assert_true(n->log->n < MAXRX);
	n->log->a[n->log->n++] = (struct arrival){sim_now(eng), n->rank, port, pkt};
}

/* A topology on its own engine, every NIC receive link connected. */
struct fab {
	struct sim_engine eng;
	struct sim_topo t;
	struct sim_params p;
	struct nic nic[MAXK];
	struct rxlog log;
};

static void fab_connect(struct fab *f)
{
	assert_true(f->t.nranks <= MAXK);
	for (uint32_t r = 0; r < f->t.nranks; r++) {
		f->nic[r] = (struct nic){&f->log, r};
		for (uint32_t port = 0; port < sim_topo_nic_nports(&f->t, r); port++)
			sim_link_connect(sim_topo_nic_rx(&f->t, r, port), nic_rx, &f->nic[r], port);
	}
}

static void fab_init(struct fab *f, enum sim_topo_kind kind, uint32_t k, const char *preset)
{
	memset(f, 0, sizeof(*f));
	assert_true(k <= MAXK);
	assert_int_equal(sim_params_preset(preset, &f->p), 0);
	assert_int_equal(sim_engine_init(&f->eng, 0), 0);
	assert_int_equal(sim_topo_build(&f->t, &f->eng, kind, k, &f->p), 0);
	fab_connect(f);
}

/* The same on a network of the caller's, which must outlive the fab. */
static void fab_init_net(struct fab *f, const struct sim_net *net, const char *preset)
{
	memset(f, 0, sizeof(*f));
	assert_int_equal(sim_params_preset(preset, &f->p), 0);
	assert_int_equal(sim_engine_init(&f->eng, 0), 0);
	assert_int_equal(sim_topo_build_net(&f->t, &f->eng, net, &f->p), 0);
	fab_connect(f);
}

static void fab_fini(struct fab *f)
{
	assert_int_equal(sim_pending(&f->eng), 0);
	sim_topo_destroy(&f->t);
	sim_engine_destroy(&f->eng);
}

static void mkpkt(struct sim_packet *pkt, const struct sim_params *p, uint32_t src, uint32_t dst,
		  uint32_t psn)
{
	memset(pkt, 0, sizeof(*pkt));
	sim_packet_size(pkt, p->link.type, SIM_BTH_WRITE_ONLY, 4096);
	pkt->src_node = src;
	pkt->dst_node = dst;
	pkt->psn = psn;
}

/* ---- names ---- */

static void test_kind_names(void **state)
{
	enum sim_topo_kind k = SIM_TOPO_KIND_COUNT;

	(void)state;
	assert_string_equal(sim_topo_kind_name[SIM_TOPO_RING], "ring");
	assert_string_equal(sim_topo_kind_name[SIM_TOPO_STAR], "star");
	assert_int_equal(sim_topo_kind_parse("ring", &k), 0);
	assert_int_equal(k, SIM_TOPO_RING);
	assert_int_equal(sim_topo_kind_parse("star", &k), 0);
	assert_int_equal(k, SIM_TOPO_STAR);
	/* Unknown names leave *out alone. */
	assert_int_equal(sim_topo_kind_parse("Ring", &k), -EINVAL);
	assert_int_equal(sim_topo_kind_parse("", &k), -EINVAL);
	assert_int_equal(sim_topo_kind_parse("rings", &k), -EINVAL);
	assert_int_equal(sim_topo_kind_parse("fat-tree", &k), -EINVAL);
	assert_int_equal(sim_topo_kind_parse(NULL, &k), -EINVAL);
	assert_int_equal(sim_topo_kind_parse("ring", NULL), -EINVAL);
	assert_int_equal(k, SIM_TOPO_STAR);
}

/* ---- route and hop tables ---- */

/* route[src][dst] for a k-ring, and the shape of the built topology. */
static void check_ring(uint32_t k, const uint32_t *route)
{
	struct fab f;

	fab_init(&f, SIM_TOPO_RING, k, "ideal");
	assert_int_equal(f.t.kind, SIM_TOPO_RING);
	assert_int_equal(f.t.nranks, k);
	assert_non_null(f.t.own);
	assert_ptr_equal(f.t.net, f.t.own);
	assert_int_equal(f.t.nlinks, k == 1 ? 0 : 2 * k);
	assert_int_equal(f.t.nsw, 0);
	assert_null(f.t.sw);
	/* 2 events per link, no switch */
	assert_int_equal(f.t.events, (k == 1 ? 0 : 2 * k) * SIM_LINK_MAX_EVENTS);
	for (uint32_t s = 0; s < k; s++) {
		assert_int_equal(sim_topo_nic_nports(&f.t, s), k == 1 ? 0 : 2);
		for (uint32_t d = 0; d < k; d++) {
			bool seen[2] = {false, false};

			/* flows: the route is the table's whatever the flow,
			 * except that k = 2 spreads flows over both cables */
			for (uint64_t flow = 0; flow < 16; flow++) {
				uint32_t port = sim_topo_route(&f.t, s, d, flow);

				if (route[s * k + d] == ANY) {
					assert_true(port < 2);
					seen[port] = true;
				} else {
					assert_int_equal(port, route[s * k + d]);
				}
			}
			if (route[s * k + d] == ANY)
				assert_true(seen[0] && seen[1]);
			/* neighbours: one link; else none */
			assert_int_equal(sim_topo_hops(&f.t, s, d), route[s * k + d] == NO ? NO : 1);
		}
		/* out of range */
		assert_int_equal(sim_topo_route(&f.t, s, k, 0), NO);
		assert_int_equal(sim_topo_route(&f.t, k, s, 0), NO);
		assert_int_equal(sim_topo_hops(&f.t, s, k), NO);
	}
	fab_fini(&f);
}

static void test_route_ring(void **state)
{
	/* k = 1: nothing to reach, no ports */
	static const uint32_t r1[] = {NO};
	/* k = 2: next == prev, two cables; a flow takes either */
	static const uint32_t r2[] = {
		NO, ANY,
		ANY, NO,
	};
	static const uint32_t r3[] = {
		NO, 0, 1,
		1, NO, 0,
		0, 1, NO,
	};
	/* k = 5: only neighbours; port 0 to src+1, port 1 to src-1 */
	static const uint32_t r5[] = {
		NO, 0, NO, NO, 1,
		1, NO, 0, NO, NO,
		NO, 1, NO, 0, NO,
		NO, NO, 1, NO, 0,
		0, NO, NO, 1, NO,
	};

	(void)state;
	check_ring(1, r1);
	check_ring(2, r2);
	check_ring(3, r3);
	check_ring(5, r5);
}

static void test_route_star(void **state)
{
	static const uint32_t ks[] = {1, 2, 3, 5};

	(void)state;
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		uint32_t k = ks[i];
		struct fab f;

		fab_init(&f, SIM_TOPO_STAR, k, "ib-hdr");
		assert_int_equal(f.t.kind, SIM_TOPO_STAR);
		assert_int_equal(f.t.nlinks, 2 * k);
		assert_int_equal(f.t.nsw, 1);
		assert_non_null(f.t.sw);
		/* k ports whatever the preset's radix (40) says */
		assert_int_equal(f.t.sw[0].nports, k);
		assert_int_equal(f.t.sw[0].fwd_ps, f.p.sw.fwd_latency_ps);
		assert_int_equal(f.t.sw[0].mode, f.p.sw.mode);
		assert_int_equal(f.t.sw[0].buffer_bytes, f.p.sw.buffer_bytes);
		/* 2 per link + the pipeline + one per input */
		assert_int_equal(f.t.events, 2 * k * SIM_LINK_MAX_EVENTS + 1 + k);
		/* the switch routes by the network's ECMP sets */
		assert_non_null(f.t.sw[0].route_fn);
		assert_int_equal(f.t.sw_ctx[0].node, k); /* after the k NICs */
		for (uint32_t s = 0; s < k; s++) {
			assert_int_equal(sim_topo_nic_nports(&f.t, s), 1);
			assert_false(sim_topo_nic_port_nvlink(&f.t, s, 0));
			for (uint32_t d = 0; d < k; d++) {
				assert_int_equal(sim_topo_route(&f.t, s, d, s * 7 + d), s == d ? NO : 0);
				/* NIC, switch, NIC: two links */
				assert_int_equal(sim_topo_hops(&f.t, s, d), s == d ? NO : 2);
			}
			assert_int_equal(sim_topo_route(&f.t, s, k, 0), NO);
			assert_int_equal(sim_topo_route(&f.t, k, s, 0), NO);
			/* the switch sends rank s out of port s */
			assert_int_equal(sim_net_pick(f.t.net, k, s, 12345), s);
			assert_ptr_equal(f.t.sw[0].ports[s].out, sim_topo_nic_rx(&f.t, s, 0));
			assert_int_equal(f.t.sw[0].ports[s].in_rate_bps, f.p.link.rate_bps);
		}
		fab_fini(&f);
	}
}

/* ---- wiring ---- */

/* Every ring link is the transmit link of exactly one (NIC, port) and the
 * receive link of exactly one, the far end of the same cable; a packet sent
 * on (r, 0) lands at (r+1, 1), on (r, 1) at (r-1, 0). */
static void test_ring_wiring(void **state)
{
	static const uint32_t ks[] = {2, 3, 5};

	(void)state;
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		uint32_t k = ks[i];
		struct fab f;
		struct sim_packet pkt[2 * MAXK];

		fab_init(&f, SIM_TOPO_RING, k, "ideal");
		for (uint32_t r = 0; r < k; r++) {
			uint32_t next = (r + 1) % k, prev = (r + k - 1) % k;

			/* one object, seen from both ends */
			assert_ptr_equal(sim_topo_nic_tx(&f.t, r, 0), sim_topo_nic_rx(&f.t, next, 1));
			assert_ptr_equal(sim_topo_nic_tx(&f.t, r, 1), sim_topo_nic_rx(&f.t, prev, 0));
			/* cable r joins NIC r (its a end) to NIC r+1 */
			assert_ptr_equal(sim_topo_nic_tx(&f.t, r, 0), &f.t.links[r * 2 + 0]);
			assert_ptr_equal(sim_topo_nic_tx(&f.t, r, 1), &f.t.links[prev * 2 + 1]);
			for (uint32_t port = 0; port < 2; port++) {
				struct sim_link_dir *l = sim_topo_nic_tx(&f.t, r, port);

				assert_int_equal(l->rate_bps, f.p.link.rate_bps);
				assert_int_equal(l->prop_ps, f.p.link.prop_delay_ps);
				assert_int_equal(l->rx_header, 0);
			}
		}
		/* all 2k receive pointers distinct */
		for (uint32_t a = 0; a < 2 * k; a++)
			for (uint32_t b = a + 1; b < 2 * k; b++)
				assert_ptr_not_equal(f.t.nic_rx[a], f.t.nic_rx[b]);
		for (uint32_t r = 0; r < k; r++) {
			for (uint32_t port = 0; port < 2; port++) {
				uint32_t dst = port == 0 ? (r + 1) % k : (r + k - 1) % k;

				mkpkt(&pkt[r * 2 + port], &f.p, r, dst, r * 2 + port);
				sim_link_send(sim_topo_nic_tx(&f.t, r, port), &pkt[r * 2 + port]);
			}
		}
		sim_run(&f.eng, SIM_TIME_NEVER);
		assert_int_equal(f.log.n, 2 * k);
		for (size_t j = 0; j < f.log.n; j++) {
			const struct arrival *a = &f.log.a[j];
			uint32_t src = a->pkt->src_node, sport = a->pkt->psn % 2;

			/* (src, 0) -> (src+1, 1); (src, 1) -> (src-1, 0) */
			assert_int_equal(a->nic, a->pkt->dst_node);
			assert_int_equal(a->nic, sport == 0 ? (src + 1) % k : (src + k - 1) % k);
			assert_int_equal(a->port, 1 - sport);
			/* all sent at 0 on idle links: ser(w) + p, p = 0 on ideal */
			assert_int_equal(a->at, a->pkt->wire_bytes * UINT64_C(80));
		}
		fab_fini(&f);
	}
}

/* Star: every src reaches every other dst, at dst's only port. */
static void test_star_wiring(void **state)
{
	enum { K = 4 };
	struct fab f;
	struct sim_packet pkt[K * K];
	size_t n = 0;

	(void)state;
	fab_init(&f, SIM_TOPO_STAR, K, "ib-hdr");
	for (uint32_t r = 0; r < K; r++) {
		/* cable r: NIC r -> switch, then switch -> NIC r */
		assert_ptr_equal(sim_topo_nic_tx(&f.t, r, 0), &f.t.links[2 * r]);
		assert_ptr_equal(sim_topo_nic_rx(&f.t, r, 0), &f.t.links[2 * r + 1]);
		/* cut-through: the switch hears of a packet at its header */
		assert_int_equal(sim_topo_nic_tx(&f.t, r, 0)->rx_header, SIM_SWITCH_CT_HEADER_BYTES);
		assert_int_equal(sim_topo_nic_rx(&f.t, r, 0)->rx_header, 0);
	}
	for (uint32_t s = 0; s < K; s++) {
		for (uint32_t d = 0; d < K; d++) {
			if (s == d)
				continue;
			mkpkt(&pkt[n], &f.p, s, d, (uint32_t)n);
			sim_link_send(sim_topo_nic_tx(&f.t, s, sim_topo_route(&f.t, s, d, n)), &pkt[n]);
			n++;
		}
	}
	sim_run(&f.eng, SIM_TIME_NEVER);
	assert_int_equal(f.log.n, n);
	for (size_t j = 0; j < f.log.n; j++) {
		assert_int_equal(f.log.a[j].nic, f.log.a[j].pkt->dst_node);
		assert_int_equal(f.log.a[j].port, 0);
	}
	assert_int_equal(f.t.sw[0].used_bytes, 0);
	assert_int_equal(f.t.sw[0].no_route, 0);
	fab_fini(&f);
}

/* A lone NIC on a star is still cabled to its one-port switch; a lone NIC
 * on a ring has nothing. */
static void test_single_rank(void **state)
{
	struct fab f;

	(void)state;
	fab_init(&f, SIM_TOPO_STAR, 1, "ideal");
	assert_int_equal(f.t.nlinks, 2);
	assert_int_equal(f.t.sw[0].nports, 1);
	assert_non_null(sim_topo_nic_tx(&f.t, 0, 0));
	assert_non_null(sim_topo_nic_rx(&f.t, 0, 0));
	assert_ptr_not_equal(sim_topo_nic_tx(&f.t, 0, 0), sim_topo_nic_rx(&f.t, 0, 0));
	assert_int_equal(sim_topo_route(&f.t, 0, 0, 0), NO);
	fab_fini(&f);

	fab_init(&f, SIM_TOPO_RING, 1, "ideal");
	assert_int_equal(sim_topo_nic_nports(&f.t, 0), 0);
	assert_int_equal(f.t.nlinks, 0);
	assert_null(f.t.links);
	assert_int_equal(f.t.events, 0);
	assert_int_equal(sim_topo_route(&f.t, 0, 0, 0), NO);
	fab_fini(&f);
}

/* ---- one packet, end to end ---- */

/* Sends one 4096 B RDMA WRITE_ONLY from NIC 0 to NIC 1 at time 0 on an idle
 * fabric and returns its arrival time; checks where it landed. */
static sim_time_ps one_packet(enum sim_topo_kind kind, const char *preset, uint32_t *wire)
{
	struct fab f;
	struct sim_packet pkt;
	uint32_t port;
	sim_time_ps at;

	fab_init(&f, kind, 3, preset);
	port = sim_topo_route(&f.t, 0, 1, 0);
	assert_int_equal(port, 0);
	mkpkt(&pkt, &f.p, 0, 1, 7);
	*wire = pkt.wire_bytes;
	sim_link_send(sim_topo_nic_tx(&f.t, 0, port), &pkt);
	sim_run(&f.eng, SIM_TIME_NEVER);
	assert_int_equal(f.log.n, 1);
	assert_ptr_equal(f.log.a[0].pkt, &pkt);
	assert_int_equal(f.log.a[0].nic, 1);
	/* ring: NIC 0 port 0 is cabled to NIC 1 port 1; star: port 0 */
	assert_int_equal(f.log.a[0].port, kind == SIM_TOPO_RING ? 1 : 0);
	if (kind == SIM_TOPO_STAR) {
		assert_int_equal(f.t.sw[0].ports[1].st.cut_through, 1);
		assert_int_equal(f.t.sw[0].ports[1].st.tx_pkts, 1);
		assert_int_equal(f.t.sw[0].used_bytes, 0);
	}
	at = f.log.a[0].at;
	fab_fini(&f);
	return at;
}

static void test_timing(void **state)
{
	uint32_t w;

	(void)state;
	/* w = IB WRITE_ONLY of 4096 B: LRH 8 + BTH 12 + RETH 16 + 4096 + ICRC 4
	 * + VCRC 2 = 4138 (IB frames carry no preamble or IFG). */

	/* ideal: 100 Gb/s (80 ps/B), p = 0, f = 0, cut-through. */
	/* ring: ser(w) + p = 4138 * 80 + 0 */
	assert_int_equal(one_packet(SIM_TOPO_RING, "ideal", &w), 331040);
	assert_int_equal(w, 4138);
	assert_int_equal(sim_serialize_ps(w, UINT64_C(100000000000)), 331040);
	/* star: ser(w) + ser(h) + p + p + f = 331040 + 64 * 80 + 0 + 0 + 0 */
	assert_int_equal(one_packet(SIM_TOPO_STAR, "ideal", &w), 331040 + 5120);

	/* ib-hdr: 200 Gb/s (40 ps/B), p = 25 ns (5 m), f = 130 ns, cut-through. */
	/* ring: ser(w) + p = 4138 * 40 + 25000 = 165520 + 25000 */
	assert_int_equal(one_packet(SIM_TOPO_RING, "ib-hdr", &w), 190520);
	assert_int_equal(w, 4138);
	/* star: ser(w) + ser(h) + p + p + f
	 *     = 165520 + 64 * 40 + 25000 + 25000 + 130000 = 348080 */
	assert_int_equal(one_packet(SIM_TOPO_STAR, "ib-hdr", &w), 165520 + 2560 + 25000 + 25000 + 130000);
}

/* ---- networks of sim/net.h ---- */

/* Leaf-spine, 2 leaves of 2 hosts, 1 spine, 1:1 (two uplinks per leaf):
 * the switches and their ports, and one packet's arrival across the same
 * leaf and across the spine. */
static void test_leafspine(void **state)
{
	struct sim_net net;
	struct fab f;
	struct sim_packet pkt;
	char err[SIM_NET_ERR_LEN];
	sim_time_ps t0;

	(void)state;
	sim_net_init(&net, NULL);
	assert_int_equal(sim_net_leafspine(&net, 2, 2, 1, 1, 1, err, sizeof(err)), 0);
	fab_init_net(&f, &net, "ib-hdr");
	assert_int_equal(f.t.kind, SIM_TOPO_KIND_COUNT);
	assert_null(f.t.own);
	/* 4 host links + 2 x 2 uplinks, two directions each */
	assert_int_equal(f.t.nlinks, 2 * 8);
	assert_int_equal(f.t.nsw, 3);
	assert_int_equal(f.t.sw[0].nports, 4); /* leaf0: 2 hosts, 2 uplinks */
	assert_int_equal(f.t.sw[1].nports, 4);
	assert_int_equal(f.t.sw[2].nports, 4); /* spine0: 2 uplinks per leaf */
	assert_int_equal(f.t.events, 16 * SIM_LINK_MAX_EVENTS + 3 * (1 + 4));
	assert_int_equal(sim_topo_hops(&f.t, 0, 1), 2);
	assert_int_equal(sim_topo_hops(&f.t, 0, 2), 4);
	/* same leaf: as the star, ser(w) + ser(h) + 2p + f */
	mkpkt(&pkt, &f.p, 0, 1, 1);
	sim_link_send(sim_topo_nic_tx(&f.t, 0, sim_topo_route(&f.t, 0, 1, 0)), &pkt);
	sim_run(&f.eng, SIM_TIME_NEVER);
	assert_int_equal(f.log.n, 1);
	assert_int_equal(f.log.a[0].nic, 1);
	assert_int_equal(f.log.a[0].at, 165520 + 2560 + 2 * 25000 + 130000);
	/* other leaf: three switches cut through, each adding ser(h) + p + f
	 * before the last link's ser(w) + p:
	 * 3 * (2560 + 25000 + 130000) + 165520 + 25000 = 663200 */
	f.log.n = 0;
	t0 = sim_now(&f.eng);
	mkpkt(&pkt, &f.p, 0, 2, 2);
	pkt.flow_id = 77;
	sim_link_send(sim_topo_nic_tx(&f.t, 0, sim_topo_route(&f.t, 0, 2, 77)), &pkt);
	sim_run(&f.eng, SIM_TIME_NEVER);
	assert_int_equal(f.log.n, 1);
	assert_int_equal(f.log.a[0].nic, 2);
	assert_int_equal(f.log.a[0].at - t0, 663200);
	fab_fini(&f);
	sim_net_free(&net);
}

/* Rail-optimised, 2 nodes x 2 GPUs, 1 spine: port 0 of every GPU is its
 * NVLink to the NVSwitch, port 1 its rail; NVLink links run at
 * host.nvlink_bps (2400 Gb/s on ib-hdr) with no propagation, and a packet
 * between the GPUs of one node crosses the NVSwitch, never the rails. */
static void test_nvlink(void **state)
{
	struct sim_net net;
	struct fab f;
	struct sim_packet pkt;
	char err[SIM_NET_ERR_LEN];
	uint64_t nv;

	(void)state;
	sim_net_init(&net, NULL);
	assert_int_equal(sim_net_railopt(&net, 2, 2, 1, err, sizeof(err)), 0);
	fab_init_net(&f, &net, "ib-hdr");
	nv = f.p.host.nvlink_bps;
	assert_int_equal(nv, UINT64_C(2400000000000));
	/* NVSwitch x 2, rail x 2, spine */
	assert_int_equal(f.t.nsw, 5);
	for (uint32_t r = 0; r < 4; r++) {
		assert_int_equal(sim_topo_nic_nports(&f.t, r), 2);
		assert_true(sim_topo_nic_port_nvlink(&f.t, r, 0));
		assert_false(sim_topo_nic_port_nvlink(&f.t, r, 1));
		assert_false(sim_topo_nic_port_nvlink(&f.t, r, 2)); /* no such port */
		assert_int_equal(sim_topo_nic_tx(&f.t, r, 0)->rate_bps, nv);
		assert_int_equal(sim_topo_nic_tx(&f.t, r, 0)->prop_ps, SIM_TOPO_NVLINK_PROP_PS);
		assert_int_equal(sim_topo_nic_rx(&f.t, r, 0)->rate_bps, nv);
		assert_int_equal(sim_topo_nic_tx(&f.t, r, 1)->rate_bps, f.p.link.rate_bps);
		assert_int_equal(sim_topo_nic_tx(&f.t, r, 1)->prop_ps, f.p.link.prop_delay_ps);
	}
	assert_false(sim_topo_nic_port_nvlink(&f.t, 4, 0)); /* no such rank */
	/* same node: NVLink, whatever the flow; other node: the rail */
	for (uint64_t flow = 0; flow < 8; flow++) {
		assert_int_equal(sim_topo_route(&f.t, 0, 1, flow), 0);
		assert_int_equal(sim_topo_route(&f.t, 0, 2, flow), 1);
		assert_int_equal(sim_topo_route(&f.t, 0, 3, flow), 1);
	}
	assert_int_equal(sim_topo_hops(&f.t, 0, 1), 2);
	assert_int_equal(sim_topo_hops(&f.t, 0, 2), 2); /* rail 0 */
	assert_int_equal(sim_topo_hops(&f.t, 0, 3), 4); /* rail 0, spine, rail 1 */
	/* ser_nv(w) + ser_nv(h) + f, no propagation: ceil(4138 * 8 / 2.4) +
	 * ceil(64 * 8 / 2.4) + 130000 = 13794 + 214 + 130000 */
	mkpkt(&pkt, &f.p, 0, 1, 1);
	sim_link_send(sim_topo_nic_tx(&f.t, 0, 0), &pkt);
	sim_run(&f.eng, SIM_TIME_NEVER);
	assert_int_equal(f.log.n, 1);
	assert_int_equal(f.log.a[0].nic, 1);
	assert_int_equal(f.log.a[0].port, 0);
	assert_int_equal(f.log.a[0].at, 13794 + 214 + 130000);
	assert_int_equal(sim_serialize_ps(4138, nv) + sim_serialize_ps(64, nv), 13794 + 214);
	fab_fini(&f);

	/* A fabric without an NVLink rate: NVLink takes the link rate. */
	memset(&f, 0, sizeof(f));
	assert_int_equal(sim_params_preset("ib-hdr", &f.p), 0);
	f.p.host.nvlink_bps = 0;
	assert_int_equal(sim_engine_init(&f.eng, 0), 0);
	assert_int_equal(sim_topo_build_net(&f.t, &f.eng, &net, &f.p), 0);
	assert_int_equal(sim_topo_nic_tx(&f.t, 0, 0)->rate_bps, f.p.link.rate_bps);
	fab_fini(&f);
	sim_net_free(&net);
}

/* The most one flow and one rank can send: a star's NIC has one port, a
 * ring's two (both to the peer at k = 2), a node's GPU NVLink beside its
 * rail port; k = 1 on a ring has no links and keeps the fabric's rate. */
static void test_rank_rate(void **state)
{
	static const struct { enum sim_topo_kind kind; uint32_t k, ports; } c[] = {
		{SIM_TOPO_STAR, 4, 1}, {SIM_TOPO_RING, 1, 1}, {SIM_TOPO_RING, 2, 2},
		{SIM_TOPO_RING, 5, 2},
	};
	struct sim_params p;
	struct sim_net net;
	char err[SIM_NET_ERR_LEN];

	(void)state;
	assert_int_equal(sim_params_preset("ib-hdr", &p), 0);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		assert_int_equal(sim_topo_net_make(&net, c[i].kind, c[i].k, err, sizeof(err)), 0);
		assert_int_equal(sim_topo_fastest_rate(&net, &p), p.link.rate_bps);
		assert_int_equal(sim_topo_rank_rate(&net, &p), c[i].ports * p.link.rate_bps);
		sim_net_free(&net);
	}
	sim_net_init(&net, NULL);
	assert_int_equal(sim_net_railopt(&net, 2, 2, 1, err, sizeof(err)), 0);
	assert_int_equal(sim_topo_fastest_rate(&net, &p), p.host.nvlink_bps);
	assert_int_equal(sim_topo_rank_rate(&net, &p), p.host.nvlink_bps + p.link.rate_bps);
	sim_net_free(&net);
}

/* A link's own rate, propagation and MTU win over the fabric's; the path
 * MTU is the smallest on the path; the path is walked link by link. */
static void test_link_values(void **state)
{
	struct sim_net net;
	struct fab f;
	struct sim_topo_path path;
	char err[SIM_NET_ERR_LEN];
	uint32_t a, b, sw;

	(void)state;
	sim_net_init(&net, "custom");
	assert_int_equal(sim_net_add_host(&net, "a", 1, false), 0);
	assert_int_equal(sim_net_add_host(&net, "b", 1, false), 1);
	a = sim_net_find(&net, "a.gpu0");
	b = sim_net_find(&net, "b.gpu0");
	sw = sim_net_add_switch(&net, "s");
	assert_int_equal(sim_net_add_link(&net, a, sw, SIM_NET_LINK_NET, UINT64_C(100000000000),
					  1000, 1024), 0);
	assert_int_equal(sim_net_add_link(&net, sw, b, SIM_NET_LINK_NET, 0, SIM_NET_DEFAULT_PROP,
					  0), 1);
	assert_int_equal(sim_net_finish(&net, true, err, sizeof(err)), 0);
	fab_init_net(&f, &net, "ib-hdr");
	/* link 0: a -> s, s -> a at its own values; link 1 at the fabric's */
	assert_int_equal(f.t.links[0].rate_bps, UINT64_C(100000000000));
	assert_int_equal(f.t.links[1].prop_ps, 1000);
	assert_int_equal(f.t.links[2].rate_bps, f.p.link.rate_bps);
	assert_int_equal(f.t.links[3].prop_ps, f.p.link.prop_delay_ps);
	assert_ptr_equal(sim_topo_nic_tx(&f.t, 0, 0), &f.t.links[0]);
	assert_ptr_equal(sim_topo_nic_rx(&f.t, 1, 0), &f.t.links[2]);
	/* the smaller MTU of the two, both ways, whatever the flow */
	assert_int_equal(sim_topo_path_mtu(&f.t, 0, 1, 5), 1024);
	assert_int_equal(sim_topo_path_mtu(&f.t, 1, 0, 5), 1024);
	assert_int_equal(sim_topo_path_mtu(&f.t, 0, 0, 5), 0);
	assert_int_equal(sim_topo_path_mtu(&f.t, 0, 2, 5), 0);
	assert_int_equal(sim_topo_net_path(&net, &f.p, 0, 1, 9, &path), 0);
	assert_int_equal(path.links, 2);
	assert_int_equal(path.switches, 1);
	assert_int_equal(path.first_port, 0);
	assert_int_equal(path.mtu, 1024);
	assert_int_equal(path.prop_ps, 1000 + f.p.link.prop_delay_ps);
	assert_int_equal(path.first_rate_bps, UINT64_C(100000000000));
	assert_false(path.first_nvlink);
	assert_false(path.last_nvlink);
	assert_int_equal(sim_topo_net_path(&net, &f.p, 1, 1, 9, &path), -EINVAL);
	fab_fini(&f);
	sim_net_free(&net);
}

/* ---- events ---- */

/* The reservation adds to what the engine had room for. */
static void test_reserve_adds(void **state)
{
	struct sim_engine eng;
	struct sim_params p;
	struct sim_topo t;

	(void)state;
	assert_int_equal(sim_params_preset("ib-hdr", &p), 0);
	assert_int_equal(sim_engine_init(&eng, 0), 0);
	assert_int_equal(sim_engine_reserve(&eng, 1000), 0);
	assert_true(eng.cap >= 1000);
	assert_int_equal(sim_topo_build(&t, &eng, SIM_TOPO_STAR, 100, &p), 0);
	/* 200 links * 2 + 1 + 100 */
	assert_int_equal(t.events, 501);
	assert_true(eng.cap >= 1000 + 501);
	sim_topo_destroy(&t);
	sim_engine_destroy(&eng);
}

/* ---- errors ---- */

/* IB credits promise buffer room (IBA 7.9): a finite switch buffer must
 * hold one largest frame (4096 B MTU + 128 B of headers = 4224 B) per port,
 * or the fabric is refused by name; a star of 4 has 4 switch ports, a 2 x 2
 * leaf-spine 4 on each switch.  PFC and no flow control drop instead, and
 * are not checked; 0 is unlimited. */
static void test_credit_check(void **state)
{
	struct sim_engine eng;
	struct sim_params p;
	struct sim_topo t;
	struct sim_net net;
	char err[SIM_NET_ERR_LEN];

	(void)state;
	assert_int_equal(sim_params_preset("ib-hdr", &p), 0);
	assert_int_equal(sim_engine_init(&eng, 0), 0);
	sim_net_init(&net, NULL);
	assert_int_equal(sim_net_star(&net, 4, err, sizeof(err)), 0);
	p.sw.buffer_bytes = 4 * 4224;
	assert_int_equal(sim_topo_credit_check(&net, &p, err, sizeof(err)), 0);
	assert_int_equal(sim_topo_build_net(&t, &eng, &net, &p), 0);
	for (uint32_t r = 0; r < 4; r++) /* each input's share: one frame */
		assert_int_equal(sim_topo_nic_tx(&t, r, 0)->credits, 4224);
	sim_topo_destroy(&t);
	p.sw.buffer_bytes = 4 * 4224 - 1;
	assert_int_equal(sim_topo_credit_check(&net, &p, err, sizeof(err)), -ENOBUFS);
	assert_string_equal(err, "switch 'sw0': IB credits (IBA 7.9) give each of its 4 ports one "
			    "4224-byte frame at least, 16896 B, more than switch.buffer_bytes "
			    "16895 (a lossless switch would drop); give it 16896 or more, or 0: "
			    "unlimited");
	assert_int_equal(sim_topo_credit_check(&net, &p, NULL, 0), -ENOBUFS);
	assert_int_equal(sim_topo_build_net(&t, &eng, &net, &p), -ENOBUFS);
	assert_int_equal(sim_topo_build(&t, &eng, SIM_TOPO_STAR, 4, &p), -ENOBUFS);
	/* the ring has no switch; 0 is unlimited; PFC and none may drop */
	assert_int_equal(sim_topo_build(&t, &eng, SIM_TOPO_RING, 4, &p), 0);
	sim_topo_destroy(&t);
	p.sw.buffer_bytes = 0;
	assert_int_equal(sim_topo_credit_check(&net, &p, err, sizeof(err)), 0);
	p.sw.buffer_bytes = 1024;
	p.link.flow_ctrl = SIM_FC_PFC;
	assert_int_equal(sim_topo_credit_check(&net, &p, err, sizeof(err)), 0);
	p.link.flow_ctrl = SIM_FC_NONE;
	assert_int_equal(sim_topo_credit_check(&net, &p, err, sizeof(err)), 0);
	sim_net_free(&net);
	/* leaf-spine: the check names the first switch short of room */
	p.link.flow_ctrl = SIM_FC_CREDIT;
	p.sw.buffer_bytes = 4 * 4224 - 64;
	sim_net_init(&net, NULL);
	assert_int_equal(sim_net_leafspine(&net, 2, 2, 1, 1, 1, err, sizeof(err)), 0);
	assert_int_equal(sim_topo_credit_check(&net, &p, err, sizeof(err)), -ENOBUFS);
	assert_non_null(strstr(err, "switch 'leaf0'"));
	sim_net_free(&net);
	sim_engine_destroy(&eng);
}

static void test_errors(void **state)
{
	struct sim_engine eng;
	struct sim_params p, bad;
	struct sim_topo t, zero;

	(void)state;
	assert_int_equal(sim_params_preset("ib-hdr", &p), 0);
	assert_int_equal(sim_engine_init(&eng, 0), 0);

	memset(&zero, 0, sizeof(zero));
	memset(&t, 0x5a, sizeof(t)); /* build zeroes it before any check */
	assert_int_equal(sim_topo_build(&t, &eng, SIM_TOPO_RING, 0, &p), -EINVAL);
	assert_memory_equal(&t, &zero, sizeof(t));
	sim_topo_destroy(&t);
	assert_int_equal(sim_topo_build(&t, &eng, SIM_TOPO_STAR, 0, &p), -EINVAL);
	assert_int_equal(sim_topo_build(&t, &eng, SIM_TOPO_RING, UINT32_MAX, &p), -EINVAL);
	assert_int_equal(sim_topo_build(&t, &eng, SIM_TOPO_KIND_COUNT, 4, &p), -EINVAL);
	assert_int_equal(sim_topo_build(&t, &eng, (enum sim_topo_kind)-1, 4, &p), -EINVAL);
	assert_int_equal(sim_topo_build(&t, NULL, SIM_TOPO_RING, 4, &p), -EINVAL);
	assert_int_equal(sim_topo_build(&t, &eng, SIM_TOPO_RING, 4, NULL), -EINVAL);
	assert_int_equal(sim_topo_build(NULL, &eng, SIM_TOPO_RING, 4, &p), -EINVAL);
	/* parameters sim_params_validate() rejects */
	bad = p;
	bad.link.rate_bps = 0;
	assert_int_equal(sim_topo_build(&t, &eng, SIM_TOPO_RING, 4, &bad), -EINVAL);
	bad = p;
	bad.link.mtu_bytes = 1000;
	assert_int_equal(sim_topo_build(&t, &eng, SIM_TOPO_STAR, 4, &bad), -EINVAL);
	bad = p;
	bad.sw.mode = SIM_SWITCH_MODE_COUNT;
	assert_int_equal(sim_topo_build(&t, &eng, SIM_TOPO_STAR, 4, &bad), -EINVAL);
	assert_memory_equal(&t, &zero, sizeof(t));
	/* build_net: no network, or one not finished */
	assert_int_equal(sim_topo_build_net(&t, &eng, NULL, &p), -EINVAL);
	{
		struct sim_net raw;

		sim_net_init(&raw, "raw");
		assert_int_equal(sim_net_add_host(&raw, "h", 2, true), 0);
		assert_int_equal(sim_topo_build_net(&t, &eng, &raw, &p), -EINVAL);
		assert_memory_equal(&t, &zero, sizeof(t));
		sim_net_free(&raw);
	}
	/* destroy: after a failure, on a zeroed struct, twice, and NULL */
	sim_topo_destroy(&t);
	sim_topo_destroy(&zero);
	sim_topo_destroy(NULL);
	assert_int_equal(sim_topo_build(&t, &eng, SIM_TOPO_STAR, 4, &p), 0);
	sim_topo_destroy(&t);
	assert_memory_equal(&t, &zero, sizeof(t));
	sim_topo_destroy(&t);
	assert_int_equal(sim_pending(&eng), 0);
	sim_engine_destroy(&eng);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kind_names),
		cmocka_unit_test(test_route_ring),
		cmocka_unit_test(test_route_star),
		cmocka_unit_test(test_ring_wiring),
		cmocka_unit_test(test_star_wiring),
		cmocka_unit_test(test_single_rank),
		cmocka_unit_test(test_timing),
		cmocka_unit_test(test_leafspine),
		cmocka_unit_test(test_nvlink),
		cmocka_unit_test(test_rank_rate),
		cmocka_unit_test(test_link_values),
		cmocka_unit_test(test_reserve_adds),
		cmocka_unit_test(test_credit_check),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
