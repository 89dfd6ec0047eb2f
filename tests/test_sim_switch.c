/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_sim_switch.c — the switch model (sim/switch.c) with its links:
 * store-and-forward and cut-through times to the picosecond against their
 * closed forms (written beside each assertion), the cut-through fallbacks,
 * queueing, tail drop, routing, the event budget and determinism.
 *
 * Notation: ser(B) = ceil(B * 8e12 / rate) ps; p = propagation delay of one
 * link; f = forwarding latency; h = the cut-through header (64 B).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/event.h"
#include "sim/link.h"
#include "sim/packet.h"
#include "sim/params.h"
#include "sim/switch.h"
#include "sim/time.h"
#include "sim/wire.h"

#define G100 UINT64_C(100000000000) /* 80 ps per byte */
#define G200 UINT64_C(200000000000) /* 40 ps per byte */

#define P 5000     /* p: 5 ns, ~1 m of fibre */
#define F 130000   /* f: 130 ns */
#define BIG 4138   /* IB RDMA WRITE_ONLY of 4096 B: LRH 8 + BTH 12 + RETH 16 + 4096 + ICRC 4 + VCRC 2 */
#define SER (BIG * 40)  /* ser(BIG) at 200 Gb/s = 165520 ps */
#define HDR (64 * 40)   /* ser(h) at 200 Gb/s = 2560 ps */

enum { MAXP = 8 };

struct ev {
	sim_time_ps at, last;
	uint32_t psn, where; /* where: receiving NIC, or dropping output port */
};

struct evlog {
	struct ev *e;
	size_t n, cap;
};

static void log_add(struct evlog *g, struct ev e)
{
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 64;
		g->e = realloc(g->e, g->cap * sizeof(*g->e));
		assert_non_null(g->e);
	}
	g->e[g->n++] = e;
}

/* A star: NIC i <-> switch port i through links in[i] (NIC to switch) and
 * out[i] (switch to NIC); NIC i is node i, routed to port i. */
struct net {
	struct sim_engine eng;
	struct sim_switch sw;
	struct sim_link_dir in[MAXP], out[MAXP];
	struct evlog rx, drops;
};

static void nic_rx(struct sim_engine *eng, void *ctx, uint32_t port, struct sim_packet *pkt,
		   sim_time_ps last_ps)
{
	struct net *n = ctx;

	assert_int_equal(pkt->dst_node, port); /* routed right */
	assert_int_equal(last_ps, sim_now(eng)); /* NICs take the last bit */
	log_add(&n->rx, (struct ev){sim_now(eng), last_ps, pkt->psn, port});
}

static void on_drop(struct sim_engine *eng, void *ctx, const struct sim_switch *sw, uint32_t port,
		    struct sim_packet *pkt)
{
	struct net *n = ctx;

	(void)sw;
	log_add(&n->drops, (struct ev){sim_now(eng), 0, pkt->psn, port});
}

static struct sim_switch_params swp(enum sim_switch_mode mode, sim_time_ps fwd, uint64_t buffer)
{
	return (struct sim_switch_params){.fwd_latency_ps = fwd, .buffer_bytes = buffer, .mode = mode,
					  .radix = MAXP};
}

/* rates: in[i] at in_rate[i], out[i] at out_rate[i] (NULL: all G200). */
static struct net *net_new(uint32_t nports, const struct sim_switch_params *sp,
			   const uint64_t *in_rate, const uint64_t *out_rate, unsigned flags)
{
	struct net *n = calloc(1, sizeof(*n));

	assert_non_null(n);
	assert_true(nports <= MAXP);
	assert_int_equal(sim_engine_init(&n->eng, flags), 0);
	assert_int_equal(sim_switch_init(&n->sw, &n->eng, nports, sp), 0);
	sim_switch_on_drop(&n->sw, on_drop, n);
	for (uint32_t i = 0; i < nports; i++) {
		assert_int_equal(sim_link_init(&n->in[i], &n->eng, in_rate ? in_rate[i] : G200, P), 0);
		assert_int_equal(sim_link_init(&n->out[i], &n->eng, out_rate ? out_rate[i] : G200, P), 0);
		sim_link_connect(&n->out[i], nic_rx, n, i);
		assert_int_equal(sim_switch_connect(&n->sw, i, &n->in[i], &n->out[i]), 0);
		assert_int_equal(sim_switch_route_set(&n->sw, i, i), 0);
	}
	return n;
}

static void net_free(struct net *n)
{
	/* nothing left inside */
	assert_int_equal(n->sw.used_bytes, 0);
	for (uint32_t i = 0; i < n->sw.nports; i++) {
		assert_int_equal(n->sw.ports[i].depth_bytes, 0);
		assert_int_equal(n->sw.ports[i].held_pkts, 0);
	}
	sim_switch_destroy(&n->sw);
	sim_engine_destroy(&n->eng);
	free(n->rx.e);
	free(n->drops.e);
	free(n);
}

static struct sim_packet *mkpkts(size_t cnt, enum sim_link link, enum sim_bth_op op,
				 uint32_t payload, uint32_t src, uint32_t dst)
{
	struct sim_packet *p = calloc(cnt, sizeof(*p));

	assert_non_null(p);
	for (size_t i = 0; i < cnt; i++) {
		sim_packet_size(&p[i], link, op, payload);
		p[i].psn = (uint32_t)i;
		p[i].src_node = src;
		p[i].dst_node = dst;
	}
	return p;
}

static sim_time_ps one_packet(enum sim_switch_mode mode, const uint64_t *in_rate,
			      const uint64_t *out_rate, uint64_t *cut_through)
{
	struct sim_switch_params sp = swp(mode, F, 0);
	struct net *n = net_new(2, &sp, in_rate, out_rate, 0);
	struct sim_packet *p = mkpkts(1, SIM_LINK_IB, SIM_BTH_WRITE_ONLY, 4096, 0, 1);
	sim_time_ps at;

	assert_int_equal(p->wire_bytes, BIG);
	sim_link_send(&n->in[0], p);
	sim_run(&n->eng, SIM_TIME_NEVER);
	assert_int_equal(n->rx.n, 1);
	at = n->rx.e[0].at;
	*cut_through = n->sw.ports[1].st.cut_through;
	assert_int_equal(n->sw.ports[1].st.tx_pkts, 1);
	assert_int_equal(n->sw.ports[1].st.tx_bytes, BIG);
	assert_int_equal(n->sw.ports[1].st.peak_bytes, BIG);
	net_free(n);
	free(p);
	return at;
}

/* ---- one packet, one switch ---- */

static void test_store_and_forward(void **state)
{
	uint64_t ct;

	(void)state;
	/* 2 * ser + 2p + f = 2 * 165520 + 10000 + 130000 */
	assert_int_equal(one_packet(SIM_SWITCH_STORE_FORWARD, NULL, NULL, &ct), 2 * SER + 2 * P + F);
	assert_int_equal(2 * SER + 2 * P + F, 471040);
	assert_int_equal(ct, 0);
}

static void test_cut_through(void **state)
{
	uint64_t ct;

	(void)state;
	/* ser(w) + ser(h) + 2p + f = 165520 + 2560 + 10000 + 130000 */
	assert_int_equal(one_packet(SIM_SWITCH_CUT_THROUGH, NULL, NULL, &ct), SER + HDR + 2 * P + F);
	assert_int_equal(SER + HDR + 2 * P + F, 308080);
	assert_int_equal(ct, 1);
}

static void test_cut_through_rates(void **state)
{
	const uint64_t slow_in[2] = {G100, G200}, fast_out[2] = {G200, G200};
	const uint64_t fast_in[2] = {G200, G200}, slow_out[2] = {G100, G100};
	uint64_t ct;

	(void)state;
	/* 100 -> 200 Gb/s would underrun: store-and-forward,
	 * ser_100(w) + p + f + ser_200(w) + p */
	assert_int_equal(one_packet(SIM_SWITCH_CUT_THROUGH, slow_in, fast_out, &ct),
			 BIG * 80 + P + F + BIG * 40 + P);
	assert_int_equal(ct, 0);
	/* 200 -> 100 Gb/s cuts through: ser_200(h) + p + f + ser_100(w) + p */
	assert_int_equal(one_packet(SIM_SWITCH_CUT_THROUGH, fast_in, slow_out, &ct),
			 64 * 40 + P + F + BIG * 80 + P);
	assert_int_equal(ct, 1);
}

/* NIC 0 -> switch A -> switch B -> NIC 1: three links, two switches. */
static sim_time_ps two_hops(enum sim_switch_mode mode)
{
	struct sim_switch_params sp = swp(mode, F, 0);
	struct sim_engine eng;
	struct sim_switch a, b;
	struct sim_link_dir l0, l1, l2;
	struct net sink = {0};
	struct sim_packet *p = mkpkts(1, SIM_LINK_IB, SIM_BTH_WRITE_ONLY, 4096, 0, 1);
	sim_time_ps at;

	assert_int_equal(sim_engine_init(&eng, 0), 0);
	assert_int_equal(sim_switch_init(&a, &eng, 2, &sp), 0);
	assert_int_equal(sim_switch_init(&b, &eng, 2, &sp), 0);
	assert_int_equal(sim_link_init(&l0, &eng, G200, P), 0);
	assert_int_equal(sim_link_init(&l1, &eng, G200, P), 0);
	assert_int_equal(sim_link_init(&l2, &eng, G200, P), 0);
	assert_int_equal(sim_switch_connect(&a, 0, &l0, NULL), 0);
	assert_int_equal(sim_switch_connect(&a, 1, NULL, &l1), 0);
	assert_int_equal(sim_switch_connect(&b, 0, &l1, NULL), 0);
	assert_int_equal(sim_switch_connect(&b, 1, NULL, &l2), 0);
	assert_int_equal(sim_switch_route_set(&a, 1, 1), 0);
	assert_int_equal(sim_switch_route_set(&b, 1, 1), 0);
	sim_link_connect(&l2, nic_rx, &sink, 1);
	sim_link_send(&l0, p);
	sim_run(&eng, SIM_TIME_NEVER);
	assert_int_equal(sink.rx.n, 1);
	at = sink.rx.e[0].at;
	assert_int_equal(a.used_bytes + b.used_bytes, 0);
	free(sink.rx.e);
	free(p);
	sim_switch_destroy(&a);
	sim_switch_destroy(&b);
	sim_engine_destroy(&eng);
	return at;
}

static void test_two_hops(void **state)
{
	(void)state;
	/* 3 ser + 3p + 2f */
	assert_int_equal(two_hops(SIM_SWITCH_STORE_FORWARD), 3 * SER + 3 * P + 2 * F);
	/* ser(w) + 2 ser(h) + 3p + 2f: the header is relearnt at each hop */
	assert_int_equal(two_hops(SIM_SWITCH_CUT_THROUGH), SER + 2 * HDR + 3 * P + 2 * F);
}

/* ---- two inputs, one output ---- */

static void converge(enum sim_switch_mode mode, sim_time_ps *first, sim_time_ps *second,
		     unsigned flags)
{
	struct sim_switch_params sp = swp(mode, F, 0);
	struct net *n = net_new(3, &sp, NULL, NULL, flags);
	struct sim_packet *a = mkpkts(1, SIM_LINK_IB, SIM_BTH_WRITE_ONLY, 4096, 0, 1);
	struct sim_packet *b = mkpkts(1, SIM_LINK_IB, SIM_BTH_WRITE_ONLY, 4096, 2, 1);

	b->psn = 1;
	sim_link_send(&n->in[0], a);
	sim_link_send(&n->in[2], b);
	sim_run(&n->eng, SIM_TIME_NEVER);
	assert_int_equal(n->rx.n, 2);
	*first = n->rx.e[0].at;
	*second = n->rx.e[1].at;
	/* both held at once: one on the wire, one queued (or arriving) */
	assert_int_equal(n->sw.ports[1].st.peak_bytes, 2 * BIG);
	assert_int_equal(n->sw.peak_used_bytes, 2 * BIG);
	assert_int_equal(n->sw.ports[1].st.tx_pkts, 2);
	assert_int_equal(n->sw.ports[1].st.cut_through, mode == SIM_SWITCH_CUT_THROUGH ? 1 : 0);
	net_free(n);
	free(a);
	free(b);
}

static void test_converge(void **state)
{
	sim_time_ps x, y;

	(void)state;
	for (unsigned flags = 0; flags <= SIM_ENGINE_LIFO_TIES; flags += SIM_ENGINE_LIFO_TIES) {
		/* store-and-forward: the first as alone, the second one ser later */
		converge(SIM_SWITCH_STORE_FORWARD, &x, &y, flags);
		assert_int_equal(x, 2 * SER + 2 * P + F);
		assert_int_equal(y, 3 * SER + 2 * P + F);
		/* cut-through: the first cuts through; the second finds the
		 * output taken, waits for its last bit, then for the first to
		 * finish: exactly one ser behind it */
		converge(SIM_SWITCH_CUT_THROUGH, &x, &y, flags);
		assert_int_equal(x, SER + HDR + 2 * P + F);
		assert_int_equal(y, 2 * SER + HDR + 2 * P + F);
	}
}

/* The output frees up between B's header and B's last bit: a packet that
 * could not cut through when its header came in stays store-and-forward. */
static void test_cut_through_busy_output_falls_back(void **state)
{
	struct sim_switch_params sp = swp(SIM_SWITCH_CUT_THROUGH, F, 0);
	struct net *n = net_new(3, &sp, NULL, NULL, 0);
	struct sim_packet *ack = mkpkts(1, SIM_LINK_IB, SIM_BTH_ACK, 0, 0, 1);
	struct sim_packet *b = mkpkts(1, SIM_LINK_IB, SIM_BTH_WRITE_ONLY, 4096, 2, 1);
	const sim_time_ps ser_ack = 30 * 40; /* LRH 8 + BTH 12 + AETH 4 + ICRC 4 + VCRC 2 */

	(void)state;
	b->psn = 1;
	sim_link_send(&n->in[0], ack);
	sim_link_send(&n->in[2], b);
	sim_run(&n->eng, SIM_TIME_NEVER);
	assert_int_equal(n->rx.n, 2);
	/* the ACK (shorter than h): 2 ser(30) + 2p + f */
	assert_int_equal(n->rx.e[0].psn, 0);
	assert_int_equal(n->rx.e[0].at, 2 * ser_ack + 2 * P + F);
	/* B's header at ser(h) + p finds the ACK in the switch: B goes
	 * store-and-forward, 2 ser + 2p + f, though the output is free again
	 * from 2 ser(30) + p + f on */
	assert_int_equal(n->rx.e[1].psn, 1);
	assert_int_equal(n->rx.e[1].at, 2 * SER + 2 * P + F);
	assert_int_equal(n->sw.ports[1].st.cut_through, 0);
	net_free(n);
	free(ack);
	free(b);
}

static void ev_pause(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	(void)eng;
	sim_link_set_paused(ctx, arg != 0);
}

/* A paused output (PFC) is not idle: no cut-through into it. */
static void test_cut_through_paused_output(void **state)
{
	struct sim_switch_params sp = swp(SIM_SWITCH_CUT_THROUGH, F, 0);
	struct net *n = net_new(2, &sp, NULL, NULL, 0);
	struct sim_packet *p = mkpkts(1, SIM_LINK_IB, SIM_BTH_WRITE_ONLY, 4096, 0, 1);
	const sim_time_ps resume = HDR + P + 1; /* just after the header */

	(void)state;
	sim_link_set_paused(&n->out[1], true);
	sim_schedule(&n->eng, resume, ev_pause, &n->out[1], 0);
	sim_link_send(&n->in[0], p);
	sim_run(&n->eng, SIM_TIME_NEVER);
	assert_int_equal(n->rx.n, 1);
	/* store-and-forward from then on: 2 ser + 2p + f */
	assert_int_equal(n->rx.e[0].at, 2 * SER + 2 * P + F);
	assert_int_equal(n->sw.ports[1].st.cut_through, 0);
	net_free(n);
	free(p);
}

/* ---- output scheduling ---- */

struct later {
	struct sim_link_dir *l;
	struct sim_packet *pkt;
};

static void ev_send(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct later *w = ctx;

	(void)eng;
	(void)arg;
	sim_link_send(w->l, w->pkt);
}

/* NIC 0 sends four packets, then (once they are in) NIC 2 one, all to
 * NIC 1, whose output is paused until all five are in (store-and-forward):
 * FIFO sends them in arrival order, fair (deficit round robin per flow)
 * lets NIC 2's packet go once NIC 0's flow has had its turn. */
static void test_fair_output(void **state)
{
	static const uint32_t fifo_order[] = {0, 1, 2, 3, 10}, fair_order[] = {0, 1, 10, 2, 3};
	const sim_time_ps resume = sim_ps_from_us(10);

	(void)state;
	for (int fair = 0; fair < 2; fair++) {
		struct sim_switch_params sp = swp(SIM_SWITCH_STORE_FORWARD, F, 0);
		struct net *n;
		struct sim_packet *a = mkpkts(4, SIM_LINK_IB, SIM_BTH_WRITE_ONLY, 4096, 0, 1);
		struct sim_packet *b = mkpkts(1, SIM_LINK_IB, SIM_BTH_WRITE_ONLY, 4096, 2, 1);

		sp.sched = fair ? SIM_SWITCH_FAIR : SIM_SWITCH_FIFO;
		n = net_new(3, &sp, NULL, NULL, 0);
		b->psn = 10;
		sim_link_set_paused(&n->out[1], true);
		sim_schedule(&n->eng, resume, ev_pause, &n->out[1], 0);
		struct later w = {&n->in[2], b};

		for (size_t i = 0; i < 4; i++)
			sim_link_send(&n->in[0], &a[i]);
		sim_schedule(&n->eng, 4 * SER + P, ev_send, &w, 0); /* A3 is in */
		sim_run(&n->eng, SIM_TIME_NEVER);
		assert_int_equal(n->rx.n, 5);
		for (size_t i = 0; i < 5; i++) {
			/* back to back from the resume: (i + 1) ser + p */
			assert_int_equal(n->rx.e[i].psn, fair ? fair_order[i] : fifo_order[i]);
			assert_int_equal(n->rx.e[i].at, resume + (sim_time_ps)(i + 1) * SER + P);
		}
		/* what waited is counted for the link either way */
		assert_int_equal(n->out[1].st.txq_peak_pkts, 5);
		assert_int_equal(n->out[1].st.txq_peak_bytes, 5 * BIG);
		net_free(n);
		free(a);
		free(b);
	}
}

/* ---- tail drop ---- */

static void test_tail_drop(void **state)
{
	enum { N = 10 };
	struct sim_switch_params sp = swp(SIM_SWITCH_STORE_FORWARD, F, 3 * BIG);
	struct net *n = net_new(2, &sp, NULL, NULL, 0);
	struct sim_packet *p = mkpkts(N, SIM_LINK_IB, SIM_BTH_WRITE_ONLY, 4096, 0, 1);
	const sim_time_ps resume = sim_ps_from_us(10);

	(void)state;
	/* the output is paused, so nothing drains: the buffer holds exactly
	 * three packets, and the other seven are dropped as they arrive */
	sim_link_set_paused(&n->out[1], true);
	sim_schedule(&n->eng, resume, ev_pause, &n->out[1], 0);
	for (size_t i = 0; i < N; i++)
		sim_link_send(&n->in[0], &p[i]);
	sim_run(&n->eng, SIM_TIME_NEVER);
	assert_int_equal(n->drops.n, N - 3);
	for (size_t i = 0; i < N - 3; i++) {
		/* packet k (1-based) arrives at k ser + p */
		assert_int_equal(n->drops.e[i].psn, 3 + i);
		assert_int_equal(n->drops.e[i].at, (4 + i) * SER + P);
		assert_int_equal(n->drops.e[i].where, 1);
	}
	assert_int_equal(n->sw.ports[1].st.drops, N - 3);
	assert_int_equal(n->sw.ports[1].st.drop_bytes, (N - 3) * BIG);
	assert_int_equal(n->sw.ports[1].st.peak_bytes, 3 * BIG);
	assert_int_equal(n->sw.peak_used_bytes, 3 * BIG);
	assert_int_equal(n->sw.ports[0].st.drops, 0);
	/* the three go back to back once resumed: resume + k ser + p */
	assert_int_equal(n->rx.n, 3);
	for (size_t k = 1; k <= 3; k++) {
		assert_int_equal(n->rx.e[k - 1].psn, k - 1);
		assert_int_equal(n->rx.e[k - 1].at, resume + k * SER + P);
	}
	net_free(n);
	free(p);
}

/* The buffer holds frames (preamble and IFG are not stored), and tail drop
 * refuses only what does not fit: a smaller packet behind a dropped one may
 * still get in. */
static void test_tail_drop_sizes(void **state)
{
	/* RoCEv2 WRITE of 1024 B: frame 1106, wire 1126; ACK: frame 70, wire 90
	 * (MAC 14 + 802.1Q 4 + IPv4 20 + UDP 8 + BTH 12 + AETH 4 + ICRC 4 + FCS 4) */
	struct sim_switch_params sp = swp(SIM_SWITCH_STORE_FORWARD, 0, 2 * 1106 + 70);
	struct net *n = net_new(2, &sp, NULL, NULL, 0);
	struct sim_packet *w = mkpkts(4, SIM_LINK_ROCEV2_IPV4, SIM_BTH_WRITE_ONLY, 1024, 0, 1);
	struct sim_packet *a = mkpkts(2, SIM_LINK_ROCEV2_IPV4, SIM_BTH_ACK, 0, 0, 1);

	(void)state;
	assert_int_equal(w->frame_bytes, 1106);
	assert_int_equal(w->wire_bytes, 1126);
	assert_int_equal(a->frame_bytes, 70);
	assert_int_equal(a->wire_bytes, 90);
	a[0].psn = 100;
	a[1].psn = 101;
	sim_link_set_paused(&n->out[1], true);
	sim_schedule(&n->eng, sim_ps_from_us(5), ev_pause, &n->out[1], 0);
	/* in: W0 W1 W2 A100 W3 A101.  W0, W1 fit (2212); W2 does not; A100
	 * fills it exactly (2282); W3 and A101 do not */
	sim_link_send(&n->in[0], &w[0]);
	sim_link_send(&n->in[0], &w[1]);
	sim_link_send(&n->in[0], &w[2]);
	sim_link_send(&n->in[0], &a[0]);
	sim_link_send(&n->in[0], &w[3]);
	sim_link_send(&n->in[0], &a[1]);
	sim_run(&n->eng, SIM_TIME_NEVER);
	assert_int_equal(n->drops.n, 3);
	assert_int_equal(n->drops.e[0].psn, 2);
	assert_int_equal(n->drops.e[1].psn, 3);
	assert_int_equal(n->drops.e[2].psn, 101);
	assert_int_equal(n->sw.ports[1].st.drop_bytes, 2 * 1106 + 70);
	assert_int_equal(n->sw.peak_used_bytes, 2 * 1106 + 70);
	assert_int_equal(n->rx.n, 3);
	assert_int_equal(n->sw.ports[1].st.tx_bytes, 2 * 1106 + 70);
	net_free(n);
	free(w);
	free(a);
}

static void test_unlimited_buffer(void **state)
{
	enum { N = 1000 };
	struct sim_switch_params sp = swp(SIM_SWITCH_CUT_THROUGH, F, 0);
	struct net *n = net_new(2, &sp, NULL, NULL, 0);
	struct sim_packet *p = mkpkts(N, SIM_LINK_IB, SIM_BTH_WRITE_ONLY, 4096, 0, 1);
	const sim_time_ps resume = sim_ps_from_ms(1);

	(void)state;
	sim_link_set_paused(&n->out[1], true);
	sim_schedule(&n->eng, resume, ev_pause, &n->out[1], 0);
	for (size_t i = 0; i < N; i++)
		sim_link_send(&n->in[0], &p[i]);
	sim_run(&n->eng, SIM_TIME_NEVER);
	assert_int_equal(n->drops.n, 0);
	assert_int_equal(n->sw.ports[1].st.peak_bytes, (uint64_t)N * BIG);
	assert_int_equal(n->rx.n, N);
	for (size_t k = 1; k <= N; k++)
		assert_int_equal(n->rx.e[k - 1].at, resume + k * SER + P);
	net_free(n);
	free(p);
}

/* ---- routing ---- */

static uint32_t route_by_flow(void *ctx, const struct sim_switch *sw, uint32_t in_port,
			      const struct sim_packet *pkt)
{
	(void)ctx;
	(void)sw;
	(void)in_port;
	return pkt->flow_id; /* a stand-in for an ECMP hash */
}

static void test_routing(void **state)
{
	struct sim_switch_params sp = swp(SIM_SWITCH_STORE_FORWARD, 0, 0);
	struct net *n = net_new(4, &sp, NULL, NULL, 0);
	struct sim_packet *p = mkpkts(4, SIM_LINK_IB, SIM_BTH_SEND_ONLY, 256, 0, 2);

	(void)state;
	/* table: node 2 -> port 2; node 9 has no entry; port 3's output is
	 * disconnected */
	assert_int_equal(sim_switch_connect(&n->sw, 3, &n->in[3], NULL), 0);
	assert_int_equal(sim_switch_route_set(&n->sw, 3, 3), 0);
	p[1].dst_node = 9;
	p[2].dst_node = 3;
	for (size_t i = 0; i < 3; i++)
		sim_link_send(&n->in[0], &p[i]);
	sim_run(&n->eng, SIM_TIME_NEVER);
	assert_int_equal(n->rx.n, 1);
	assert_int_equal(n->rx.e[0].where, 2);
	assert_int_equal(n->sw.no_route, 2);
	assert_int_equal(n->drops.n, 2);
	assert_int_equal(n->drops.e[0].where, SIM_SWITCH_NO_PORT);
	assert_int_equal(n->drops.e[1].psn, 2);
	/* a callback overrides the table */
	sim_switch_set_router(&n->sw, route_by_flow, NULL);
	p[3].dst_node = 1;
	p[3].flow_id = 1;
	sim_link_send(&n->in[2], &p[3]);
	sim_run(&n->eng, SIM_TIME_NEVER);
	assert_int_equal(n->rx.n, 2);
	assert_int_equal(n->rx.e[1].where, 1);
	assert_int_equal(n->rx.e[1].psn, 3);
	net_free(n);
	free(p);
}

static void test_init_errors(void **state)
{
	struct sim_engine eng;
	struct sim_switch sw;
	struct sim_switch_params sp = swp(SIM_SWITCH_CUT_THROUGH, 0, 0);

	(void)state;
	assert_int_equal(sim_engine_init(&eng, 0), 0);
	assert_int_equal(sim_switch_init(&sw, &eng, 0, &sp), -EINVAL);
	assert_int_equal(sim_switch_init(&sw, NULL, 4, &sp), -EINVAL);
	sp.mode = SIM_SWITCH_MODE_COUNT;
	assert_int_equal(sim_switch_init(&sw, &eng, 4, &sp), -EINVAL);
	sp.mode = SIM_SWITCH_STORE_FORWARD;
	sp.sched = SIM_SWITCH_SCHED_COUNT;
	assert_int_equal(sim_switch_init(&sw, &eng, 4, &sp), -EINVAL);
	sp.sched = SIM_SWITCH_FAIR;
	assert_int_equal(sim_switch_init(&sw, &eng, 4, &sp), 0);
	assert_int_equal(sim_switch_connect(&sw, 4, NULL, NULL), -EINVAL);
	assert_int_equal(sim_switch_route_set(&sw, 0, 4), -EINVAL);
	assert_int_equal(sim_switch_route_set(&sw, 1000, 3), 0);
	assert_int_equal(sw.table[1000], 3);
	assert_int_equal(sw.table[999], SIM_SWITCH_NO_PORT);
	sim_switch_destroy(&sw);
	sim_engine_destroy(&eng);
}

/* ---- a busy fabric: determinism, event budget, conservation ---- */

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

enum { FN = 6, FPKTS = 3000 };

struct fab {
	struct net *n;
	struct sim_packet p[FPKTS];
	size_t probes_left, injects_left, max_own;
	bool buffer_ok;
};

static void ev_inject(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct fab *f = ctx;

	(void)eng;
	f->injects_left--;
	sim_link_send(&f->n->in[f->p[arg].src_node], &f->p[arg]);
}

static void ev_probe(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct fab *f = ctx;
	uint64_t sum = 0;
	size_t own;

	(void)arg;
	f->probes_left--;
	own = sim_pending(eng) - f->probes_left - f->injects_left; /* the models' own */
	if (own > f->max_own)
		f->max_own = own;
	for (uint32_t i = 0; i < FN; i++)
		sum += f->n->sw.ports[i].depth_bytes;
	if (sum != f->n->sw.used_bytes || f->n->sw.used_bytes > f->n->sw.buffer_bytes)
		f->buffer_ok = false;
}

/* FN NICs send FPKTS packets of random sizes to random others at random
 * times, through one cut-through switch with a small buffer and mixed
 * link rates; returns the log of deliveries and drops. */
static void run_fabric(struct evlog *out, size_t *max_own, uint64_t *ndrops, uint64_t *nct)
{
	static const uint64_t rate[FN] = {G200, G200, G100, G200, G100, G200};
	struct sim_switch_params sp = swp(SIM_SWITCH_CUT_THROUGH, 100000, 256 * 1024);
	struct fab *f = calloc(1, sizeof(*f));
	uint64_t s = 7;

	assert_non_null(f);
	f->n = net_new(FN, &sp, rate, rate, 0);
	f->buffer_ok = true;
	for (uint64_t i = 0; i < FPKTS; i++) {
		uint32_t src = (uint32_t)(splitmix64(&s) % FN);
		uint32_t dst = (uint32_t)((src + 1 + splitmix64(&s) % (FN - 1)) % FN);

		if (src != 2 && splitmix64(&s) % 4 == 0) /* node 2, at 100 Gb/s, is a hot spot */
			dst = 2;
		uint32_t pay = (uint32_t)(splitmix64(&s) % 4097);

		sim_packet_size(&f->p[i], SIM_LINK_IB, SIM_BTH_SEND_ONLY, pay);
		f->p[i].psn = (uint32_t)i;
		f->p[i].src_node = src;
		f->p[i].dst_node = dst;
		sim_schedule(&f->n->eng, i * 30000 + splitmix64(&s) % 30000, ev_inject, f, i);
	}
	f->injects_left = FPKTS;
	for (sim_time_ps t = 3; t < FPKTS * 30000; t += 50000, f->probes_left++)
		sim_schedule(&f->n->eng, t, ev_probe, f, 0);
	sim_run(&f->n->eng, SIM_TIME_NEVER);
	assert_int_equal(f->probes_left, 0);
	assert_true(f->buffer_ok);
	/* every packet delivered or dropped, once */
	assert_int_equal(f->n->rx.n + f->n->drops.n, FPKTS);
	*ndrops = f->n->drops.n;
	*nct = 0;
	uint64_t tx = 0, dropped = 0;
	for (uint32_t i = 0; i < FN; i++) {
		*nct += f->n->sw.ports[i].st.cut_through;
		tx += f->n->sw.ports[i].st.tx_pkts;
		dropped += f->n->sw.ports[i].st.drops;
		/* what the port forwarded, its link carried */
		assert_int_equal(f->n->sw.ports[i].st.tx_pkts, f->n->out[i].st.tx_pkts);
		assert_true(f->n->sw.ports[i].st.peak_bytes <= sp.buffer_bytes);
	}
	assert_int_equal(tx, f->n->rx.n);
	assert_int_equal(dropped, f->n->drops.n);
	assert_true(f->n->sw.peak_used_bytes <= sp.buffer_bytes);
	*max_own = f->max_own;
	out->n = 0;
	for (size_t i = 0; i < f->n->rx.n; i++)
		log_add(out, f->n->rx.e[i]);
	for (size_t i = 0; i < f->n->drops.n; i++)
		log_add(out, f->n->drops.e[i]);
	net_free(f->n);
	free(f);
}

static void test_fabric_determinism(void **state)
{
	struct evlog a = {0}, b = {0};
	size_t own_a, own_b;
	uint64_t drops_a, drops_b, ct_a, ct_b;

	(void)state;
	run_fabric(&a, &own_a, &drops_a, &ct_a);
	run_fabric(&b, &own_b, &drops_b, &ct_b);
	assert_int_equal(a.n, b.n);
	assert_memory_equal(a.e, b.e, a.n * sizeof(*a.e));
	/* the scenario exercises what it should: drops, cut-through and
	 * store-and-forward fallbacks */
	assert_true(drops_a > 0);
	assert_true(ct_a > 0 && ct_a < FPKTS - drops_a);
	/* pending events never exceed 2 per link plus the switch's own */
	assert_true(own_a <= 2 * FN * SIM_LINK_MAX_EVENTS + sim_switch_max_events(FN));
	free(a.e);
	free(b.e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_store_and_forward),
		cmocka_unit_test(test_cut_through),
		cmocka_unit_test(test_cut_through_rates),
		cmocka_unit_test(test_two_hops),
		cmocka_unit_test(test_converge),
		cmocka_unit_test(test_cut_through_busy_output_falls_back),
		cmocka_unit_test(test_cut_through_paused_output),
		cmocka_unit_test(test_fair_output),
		cmocka_unit_test(test_tail_drop),
		cmocka_unit_test(test_tail_drop_sizes),
		cmocka_unit_test(test_unlimited_buffer),
		cmocka_unit_test(test_routing),
		cmocka_unit_test(test_init_errors),
		cmocka_unit_test(test_fabric_determinism),
	};
	return cmocka_run_group_tests_name("sim_switch", tests, NULL, NULL);
}
