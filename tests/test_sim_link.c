/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_sim_link.c — the link model (sim/link.c): every delivery time
 * is asserted to the picosecond against its closed form, written next to the
 * assertion.  ser(B) = ceil(B * 8e12 / rate) ps (sim_serialize_ps()).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/event.h"
#include "sim/link.h"
#include "sim/packet.h"
#include "sim/time.h"
#include "sim/wire.h"

#define G100 UINT64_C(100000000000) /* 100 Gb/s: 80 ps per byte */
#define G200 UINT64_C(200000000000) /* 200 Gb/s: 40 ps per byte */
#define G400 UINT64_C(400000000000) /* 400 Gb/s: 20 ps per byte */

/* One delivery: when, when its last bit arrived, which packet, where. */
struct rx_ent {
	sim_time_ps at, last;
	uint32_t psn, port;
};

struct rx_log {
	struct rx_ent *e;
	size_t n, cap;
};

static void rx_log_add(struct rx_log *g, sim_time_ps at, sim_time_ps last, uint32_t psn,
		       uint32_t port)
{
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 64;
		g->e = realloc(g->e, g->cap * sizeof(*g->e));
		assert_non_null(g->e);
	}
	g->e[g->n++] = (struct rx_ent){at, last, psn, port};
}

static void on_rx(struct sim_engine *eng, void *ctx, uint32_t port, struct sim_packet *pkt,
		  sim_time_ps last_ps)
{
	rx_log_add(ctx, sim_now(eng), last_ps, pkt->psn, port);
}

static struct sim_packet *mkpkts(size_t n, enum sim_link link, enum sim_bth_op op, uint32_t payload)
{
	struct sim_packet *p = calloc(n, sizeof(*p));

	assert_non_null(p);
	for (size_t i = 0; i < n; i++) {
		sim_packet_size(&p[i], link, op, payload);
		p[i].psn = (uint32_t)i;
	}
	return p;
}

static void setup_link(struct sim_engine *eng, struct sim_link_dir *l, uint64_t rate, sim_time_ps prop,
		       struct rx_log *log)
{
	assert_int_equal(sim_engine_init(eng, 0), 0);
	assert_int_equal(sim_link_init(l, eng, rate, prop), 0);
	sim_link_connect(l, on_rx, log, 7);
}

/* ---- sizes and a single packet ---- */

static void test_packet_sizes(void **state)
{
	struct sim_packet p = {0};

	(void)state;
	/* IB: LRH 8 + BTH 12 + RETH 16 + 4096 + ICRC 4 + VCRC 2 */
	sim_packet_size(&p, SIM_LINK_IB, SIM_BTH_WRITE_ONLY, 4096);
	assert_int_equal(p.frame_bytes, 4138);
	assert_int_equal(p.wire_bytes, 4138);
	assert_int_equal(p.payload_bytes, 4096);
	assert_int_equal(p.op, SIM_BTH_WRITE_ONLY);
	/* RoCEv2: MAC 14 + 802.1Q 4 + IPv4 20 + UDP 8 + BTH 12 + RETH 16 + 1024
	 * + ICRC 4 + FCS 4 = 1106; on the wire + preamble 8 + IFG 12 */
	sim_packet_size(&p, SIM_LINK_ROCEV2_IPV4, SIM_BTH_WRITE_ONLY, 1024);
	assert_int_equal(p.frame_bytes, 1106);
	assert_int_equal(p.wire_bytes, 1126);
}

static void test_init_errors(void **state)
{
	struct sim_engine eng;
	struct sim_link_dir l;

	(void)state;
	assert_int_equal(sim_engine_init(&eng, 0), 0);
	assert_int_equal(sim_link_init(&l, &eng, 0, 0), -EINVAL);
	assert_int_equal(sim_link_init(&l, NULL, G100, 0), -EINVAL);
	assert_int_equal(sim_link_init(&l, &eng, G100, 0), 0);
	sim_engine_destroy(&eng);
}

static void test_one_packet(void **state)
{
	struct sim_engine eng;
	struct sim_link_dir l;
	struct rx_log log = {0};
	struct sim_packet *p = mkpkts(1, SIM_LINK_IB, SIM_BTH_WRITE_ONLY, 4096);
	const sim_time_ps prop = sim_ps_from_ns(5); /* ~1 m of fibre */
	const sim_time_ps ser = 4138 * 40;           /* 4138 B at 200 Gb/s */

	(void)state;
	setup_link(&eng, &l, G200, prop, &log);
	assert_int_equal(sim_serialize_ps(p->wire_bytes, G200), ser);
	sim_link_send(&l, p);
	sim_run(&eng, SIM_TIME_NEVER);
	assert_int_equal(log.n, 1);
	assert_int_equal(log.e[0].at, ser + prop); /* 165520 + 5000 */
	assert_int_equal(log.e[0].at, 170520);
	assert_int_equal(log.e[0].last, ser + prop);
	assert_int_equal(log.e[0].port, 7);
	assert_int_equal(l.st.tx_pkts, 1);
	assert_int_equal(l.st.tx_bytes, 4138);
	assert_int_equal(l.st.rx_pkts, 1);
	assert_int_equal(l.st.rx_bytes, 4138);
	assert_int_equal(sim_link_busy_ps(&l), ser);
	assert_int_equal(sim_events_executed(&eng), 2); /* end of serialization, arrival */
	free(log.e);
	free(p);
	sim_engine_destroy(&eng);
}

/* ---- pipelining ---- */

static void test_back_to_back(void **state)
{
	enum { N = 50 };
	struct sim_engine eng;
	struct sim_link_dir l;
	struct rx_log log = {0};
	struct sim_packet *p = mkpkts(N, SIM_LINK_ROCEV2_IPV4, SIM_BTH_WRITE_ONLY, 1024);
	const sim_time_ps prop = sim_ps_from_ns(100);
	const sim_time_ps ser = 1126 * 80; /* 1126 wire B at 100 Gb/s = 90080 ps */

	(void)state;
	setup_link(&eng, &l, G100, prop, &log);
	for (size_t i = 0; i < N; i++)
		sim_link_send(&l, &p[i]);
	assert_int_equal(sim_link_queued(&l), N - 1); /* the first is on the wire */
	/* the first started at once: N - 1 ever waited */
	assert_int_equal(l.st.txq_peak_pkts, N - 1);
	assert_int_equal(l.st.txq_peak_bytes, (N - 1) * 1126);
	sim_run(&eng, SIM_TIME_NEVER);
	assert_int_equal(log.n, N);
	for (size_t k = 1; k <= N; k++) {
		/* the k-th arrives at prop + k * ser */
		assert_int_equal(log.e[k - 1].at, prop + k * ser);
		assert_int_equal(log.e[k - 1].psn, k - 1);
	}
	assert_int_equal(l.st.tx_bytes, N * 1126);
	assert_int_equal(sim_link_busy_ps(&l), N * ser); /* 100% busy while sending */
	free(log.e);
	free(p);
	sim_engine_destroy(&eng);
}

/* A sender that keeps one packet queued at a time: the next goes in from the
 * sent callback, so the link never idles and times equal back-to-back. */
struct feeder {
	struct sim_link_dir *l;
	struct sim_packet *p;
	size_t next, n;
	sim_time_ps sent_at[8];
	uint32_t sent_frame[8], sent_wire[8];
	size_t nsent;
};

static void feed_sent(struct sim_engine *eng, void *ctx, uint32_t port, uint32_t frame,
		      uint32_t wire)
{
	struct feeder *f = ctx;

	assert_int_equal(port, 3);
	assert_true(f->nsent < 8);
	f->sent_at[f->nsent] = sim_now(eng);
	f->sent_frame[f->nsent] = frame;
	f->sent_wire[f->nsent++] = wire;
	if (f->next < f->n)
		sim_link_send(f->l, &f->p[f->next++]);
}

static void test_sent_callback_refills(void **state)
{
	struct sim_engine eng;
	struct sim_link_dir l;
	struct rx_log log = {0};
	struct sim_packet *p = mkpkts(5, SIM_LINK_ROCEV2_IPV4, SIM_BTH_WRITE_ONLY, 1024);
	struct feeder f = {.l = &l, .p = p, .next = 1, .n = 5};
	const sim_time_ps prop = 7777, ser = 1126 * 80;

	(void)state;
	setup_link(&eng, &l, G100, prop, &log);
	sim_link_on_sent(&l, feed_sent, &f, 3);
	sim_link_send(&l, &p[0]);
	sim_run(&eng, SIM_TIME_NEVER);
	assert_int_equal(f.nsent, 5);
	assert_int_equal(log.n, 5);
	for (size_t k = 1; k <= 5; k++) {
		assert_int_equal(f.sent_at[k - 1], k * ser);    /* last bit leaves */
		assert_int_equal(log.e[k - 1].at, prop + k * ser); /* and arrives */
		assert_int_equal(f.sent_frame[k - 1], 1106);
		assert_int_equal(f.sent_wire[k - 1], 1126);
	}
	assert_int_equal(l.st.txq_peak_pkts, 1);
	free(log.e);
	free(p);
	sim_engine_destroy(&eng);
}

/* ---- early (header) delivery ---- */

static void test_header_delivery(void **state)
{
	struct sim_engine eng;
	struct sim_link_dir l;
	struct rx_log log = {0};
	struct sim_packet *p = mkpkts(2, SIM_LINK_IB, SIM_BTH_WRITE_ONLY, 4096);
	struct sim_packet *ack = mkpkts(1, SIM_LINK_IB, SIM_BTH_ACK, 0);
	const sim_time_ps prop = 5000, ser = 4138 * 40, hdr = 64 * 40;
	const sim_time_ps ser_ack = 30 * 40; /* ACK: LRH 8 + BTH 12 + AETH 4 + ICRC 4 + VCRC 2 */

	(void)state;
	setup_link(&eng, &l, G200, prop, &log);
	sim_link_set_rx_header(&l, 64);
	ack->psn = 99;
	assert_int_equal(ack->wire_bytes, 30);
	sim_link_send(&l, &p[0]);
	sim_link_send(&l, &p[1]);
	sim_link_send(&l, ack);
	sim_run(&eng, SIM_TIME_NEVER);
	assert_int_equal(log.n, 3);
	/* heard of at start + ser(64) + prop; last bit at start + ser(w) + prop */
	assert_int_equal(log.e[0].at, hdr + prop);
	assert_int_equal(log.e[0].last, ser + prop);
	assert_int_equal(log.e[1].at, ser + hdr + prop);
	assert_int_equal(log.e[1].last, 2 * ser + prop);
	/* a packet shorter than the header threshold: at its last bit */
	assert_int_equal(log.e[2].psn, 99);
	assert_int_equal(log.e[2].at, 2 * ser + ser_ack + prop);
	assert_int_equal(log.e[2].last, 2 * ser + ser_ack + prop);
	free(log.e);
	free(p);
	free(ack);
	sim_engine_destroy(&eng);
}

/* ---- pause ---- */

static void ev_pause(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	(void)eng;
	sim_link_set_paused(ctx, arg != 0);
}

static void ev_pause_quanta(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	(void)eng;
	sim_link_pause_quanta(ctx, (uint32_t)arg);
}

/* PAUSE frames with quanta (IEEE 802.1Qbb): 100 quanta at 200 Gb/s are
 * 100 x 512 bits = 256 ns; a second frame before the expiry restarts the
 * timer from its own arrival; a zero-quanta frame resumes at once. */
static void test_pause_quanta(void **state)
{
	struct sim_engine eng;
	struct sim_link_dir l;
	struct rx_log log = {0};
	struct sim_packet *p = mkpkts(2, SIM_LINK_IB, SIM_BTH_WRITE_ONLY, 4096);
	const sim_time_ps prop = 5000, ser = 4138 * 40, q100 = 256000;

	(void)state;
	setup_link(&eng, &l, G200, prop, &log);
	sim_link_pause_quanta(&l, 100);
	sim_link_send(&l, &p[0]);
	sim_schedule(&eng, 200000, ev_pause_quanta, &l, 100); /* renewed at 200 ns */
	sim_run(&eng, SIM_TIME_NEVER);
	assert_int_equal(log.n, 1);
	assert_int_equal(log.e[0].at, 200000 + q100 + ser + prop); /* the renewal's expiry */
	assert_int_equal(l.st.pauses, 1);
	assert_int_equal(sim_link_paused_ps(&l), 200000 + q100);
	/* a resume (quanta 0) ends a long pause early */
	sim_time_ps t0 = sim_now(&eng);
	sim_link_pause_quanta(&l, 65535);
	sim_link_send(&l, &p[1]);
	sim_schedule(&eng, t0 + 1000, ev_pause_quanta, &l, 0);
	sim_run(&eng, SIM_TIME_NEVER);
	assert_int_equal(log.n, 2);
	assert_int_equal(log.e[1].at, t0 + 1000 + ser + prop);
	free(log.e);
	free(p);
	sim_engine_destroy(&eng);
}

static void test_pause_before_send(void **state)
{
	struct sim_engine eng;
	struct sim_link_dir l;
	struct rx_log log = {0};
	struct sim_packet *p = mkpkts(3, SIM_LINK_IB, SIM_BTH_WRITE_ONLY, 4096);
	const sim_time_ps prop = 5000, ser = 4138 * 40, resume = sim_ps_from_us(1);

	(void)state;
	setup_link(&eng, &l, G200, prop, &log);
	sim_link_set_paused(&l, true);
	sim_link_set_paused(&l, true); /* idempotent */
	for (size_t i = 0; i < 3; i++)
		sim_link_send(&l, &p[i]);
	assert_int_equal(sim_link_queued(&l), 3);
	assert_int_equal(sim_pending(&eng), 0); /* a paused, idle link schedules nothing */
	sim_schedule(&eng, resume, ev_pause, &l, 0);
	sim_run(&eng, SIM_TIME_NEVER);
	assert_int_equal(log.n, 3);
	for (size_t k = 1; k <= 3; k++)
		assert_int_equal(log.e[k - 1].at, resume + k * ser + prop);
	assert_int_equal(l.st.pauses, 1);
	assert_int_equal(sim_link_paused_ps(&l), resume);
	assert_int_equal(sim_link_busy_ps(&l), 3 * ser);
	free(log.e);
	free(p);
	sim_engine_destroy(&eng);
}

/* Probe: busy time mid-serialization. */
struct busy_probe {
	struct sim_link_dir *l;
	sim_time_ps busy, paused;
};

static void ev_probe_busy(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct busy_probe *b = ctx;

	(void)eng;
	(void)arg;
	b->busy = sim_link_busy_ps(b->l);
	b->paused = sim_link_paused_ps(b->l);
}

static void test_pause_mid_packet(void **state)
{
	struct sim_engine eng;
	struct sim_link_dir l;
	struct rx_log log = {0};
	struct sim_packet *p = mkpkts(2, SIM_LINK_IB, SIM_BTH_WRITE_ONLY, 4096);
	const sim_time_ps prop = 5000, ser = 4138 * 40, resume = sim_ps_from_us(10);
	struct busy_probe b = {.l = &l};

	(void)state;
	setup_link(&eng, &l, G200, prop, &log);
	sim_link_send(&l, &p[0]);
	sim_link_send(&l, &p[1]);
	/* Paused while the first is on the wire: it finishes (pause acts at
	 * packet boundaries, IEEE 802.1Qbb / IBA 7.9); the second waits. */
	sim_schedule(&eng, ser / 2, ev_pause, &l, 1);
	sim_schedule(&eng, ser / 2 + 1, ev_probe_busy, &b, 0);
	sim_schedule(&eng, resume, ev_pause, &l, 0);
	sim_run(&eng, SIM_TIME_NEVER);
	assert_int_equal(b.busy, ser / 2 + 1);
	assert_int_equal(b.paused, 1);
	assert_int_equal(log.n, 2);
	assert_int_equal(log.e[0].at, ser + prop);
	assert_int_equal(log.e[1].at, resume + ser + prop);
	assert_int_equal(sim_link_paused_ps(&l), resume - ser / 2);
	free(log.e);
	free(p);
	sim_engine_destroy(&eng);
}

static void test_pause_within_packet_costs_nothing(void **state)
{
	struct sim_engine eng;
	struct sim_link_dir l;
	struct rx_log log = {0};
	struct sim_packet *p = mkpkts(2, SIM_LINK_IB, SIM_BTH_WRITE_ONLY, 4096);
	const sim_time_ps prop = 5000, ser = 4138 * 40;

	(void)state;
	setup_link(&eng, &l, G200, prop, &log);
	sim_link_send(&l, &p[0]);
	sim_link_send(&l, &p[1]);
	/* paused and resumed before the first packet ends: no gap at all */
	sim_schedule(&eng, ser / 4, ev_pause, &l, 1);
	sim_schedule(&eng, ser / 2, ev_pause, &l, 0);
	/* nor a pause and resume at the picosecond the first ends (they were
	 * scheduled after the link's own event, so they run after it) */
	sim_schedule(&eng, ser, ev_pause, &l, 1);
	sim_schedule(&eng, ser, ev_pause, &l, 0);
	sim_run(&eng, SIM_TIME_NEVER);
	assert_int_equal(log.n, 2);
	assert_int_equal(log.e[0].at, ser + prop);
	assert_int_equal(log.e[1].at, 2 * ser + prop);
	assert_int_equal(l.st.pauses, 2);
	free(log.e);
	free(p);
	sim_engine_destroy(&eng);
}

/* ---- event budget ---- */

/* Probes scheduled through a run: each records the link's own pending
 * events — sim_pending() minus the probes still queued (a running event is
 * no longer pending) — and the packets in flight. */
struct pend_probe {
	struct sim_link_dir *l;
	size_t probes_left, max_own;
	uint64_t max_flight;
};

static void ev_probe_pending(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct pend_probe *pp = ctx;
	size_t own;

	(void)arg;
	pp->probes_left--;
	own = sim_pending(eng) - pp->probes_left;
	if (own > pp->max_own)
		pp->max_own = own;
	if (sim_link_in_flight(pp->l) > pp->max_flight)
		pp->max_flight = sim_link_in_flight(pp->l);
}

static void test_pending_events_bounded(void **state)
{
	enum { N = 10000 };
	struct sim_engine eng;
	struct sim_link_dir l;
	struct rx_log log = {0};
	/* 4198 wire B (RoCEv2 4 KiB WRITE) at 400 Gb/s: 83960 ps each; the
	 * 10000 take 839.6 us to send, less than the 1 ms (~200 km) flight. */
	struct sim_packet *p = mkpkts(N, SIM_LINK_ROCEV2_IPV4, SIM_BTH_WRITE_ONLY, 4096);
	const sim_time_ps prop = sim_ps_from_ms(1), ser = 4198 * 20;
	struct pend_probe pp = {.l = &l};
	uint64_t probes = 0;

	(void)state;
	setup_link(&eng, &l, G400, prop, &log);
	assert_int_equal(ser, 83960);
	for (size_t i = 0; i < N; i++)
		sim_link_send(&l, &p[i]);
	for (sim_time_ps t = 1; t < prop + N * ser; t += sim_ps_from_us(3), probes++)
		sim_schedule(&eng, t, ev_probe_pending, &pp, 0);
	pp.probes_left = probes;

	/* all serialized, none arrived: every packet is in flight, and the
	 * link has one event pending (the first arrival) */
	sim_run(&eng, sim_ps_from_us(900));
	assert_int_equal(sim_link_in_flight(&l), N);
	assert_int_equal(sim_link_queued(&l), 0);
	assert_int_equal(log.n, 0);
	assert_int_equal(sim_pending(&eng) - pp.probes_left, 1);
	sim_run(&eng, SIM_TIME_NEVER);
	assert_int_equal(pp.probes_left, 0);
	assert_int_equal(pp.max_flight, N);
	/* serializing and in flight at once: two, never more */
	assert_int_equal(pp.max_own, 2);
	assert_true(pp.max_own <= SIM_LINK_MAX_EVENTS);
	assert_int_equal(log.n, N);
	for (size_t k = 1; k <= N; k++)
		assert_int_equal(log.e[k - 1].at, prop + k * ser);
	/* one event per serialization and one per arrival, nothing more */
	assert_int_equal(sim_events_executed(&eng), 2 * N + probes);
	free(log.e);
	free(p);
	sim_engine_destroy(&eng);
}

/* ---- determinism ---- */

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

enum { DL = 3, DN = 600 };

struct det {
	struct sim_link_dir l[DL];
	struct sim_packet p[DN];
};

static void ev_send(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct det *d = ctx;

	(void)eng;
	sim_link_send(&d->l[arg % DL], &d->p[arg / DL]);
}

static void ev_pause_link(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct det *d = ctx;

	(void)eng;
	sim_link_set_paused(&d->l[arg >> 1], arg & 1);
}

static int ent_cmp(const void *a, const void *b)
{
	const struct rx_ent *x = a, *y = b;

	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	return x->psn < y->psn ? -1 : x->psn > y->psn;
}

/* Three links, random sizes, send times and pauses.  A link's send times
 * are distinct, so no delivery time depends on the engine's tie-break. */
static void run_det(unsigned flags, struct rx_log *log)
{
	static const uint64_t rates[DL] = {G100, G200, G400};
	struct sim_engine eng;
	struct det *d = calloc(1, sizeof(*d));
	uint64_t s = 42;

	assert_non_null(d);
	assert_int_equal(sim_engine_init(&eng, flags), 0);
	for (uint32_t i = 0; i < DL; i++) {
		assert_int_equal(sim_link_init(&d->l[i], &eng, rates[i], 1000 * (i + 1)), 0);
		sim_link_connect(&d->l[i], on_rx, log, i);
		if (i == 2)
			sim_link_set_rx_header(&d->l[i], 64);
	}
	for (uint64_t i = 0; i < DN; i++) {
		uint32_t pay = (uint32_t)(splitmix64(&s) % 4097);

		sim_packet_size(&d->p[i], SIM_LINK_ROCEV2_IPV4, SIM_BTH_SEND_ONLY, pay);
		d->p[i].psn = (uint32_t)i;
		/* packet i goes on link i % DL at a time of its own */
		sim_schedule(&eng, i * 10000 + splitmix64(&s) % 10000, ev_send, d, i * DL + i % DL);
	}
	for (uint64_t i = 0; i < 40; i++)
		sim_schedule(&eng, splitmix64(&s) % sim_ps_from_us(6), ev_pause_link, d,
			     (i % DL) << 1 | (i & 1));
	for (uint32_t i = 0; i < DL; i++)
		sim_schedule(&eng, sim_ps_from_us(7), ev_pause_link, d, (uint64_t)i << 1);
	sim_run(&eng, SIM_TIME_NEVER);
	assert_int_equal(log->n, DN);
	for (uint32_t i = 0; i < DL; i++) { /* the scenario queues and pauses */
		assert_true(d->l[i].st.pauses > 0);
		assert_true(d->l[i].st.txq_peak_pkts > 1);
		assert_false(d->l[i].paused);
	}
	sim_engine_destroy(&eng);
	free(d);
}

static void test_determinism(void **state)
{
	struct rx_log a = {0}, b = {0}, c = {0};

	(void)state;
	run_det(0, &a);
	run_det(0, &b);
	assert_memory_equal(a.e, b.e, a.n * sizeof(*a.e));
	/* Reversed tie-break: the same time for every packet (the log's order
	 * among equal times may differ, so compare sorted). */
	run_det(SIM_ENGINE_LIFO_TIES, &c);
	qsort(a.e, a.n, sizeof(*a.e), ent_cmp);
	qsort(c.e, c.n, sizeof(*c.e), ent_cmp);
	assert_memory_equal(a.e, c.e, a.n * sizeof(*a.e));
	free(a.e);
	free(b.e);
	free(c.e);
}

/* ---- invariants ---- */

static void expect_abort(void (*fn)(void), const char *want)
{
	int fd[2];
	char buf[512] = {0};
	int status;

	assert_int_equal(pipe(fd), 0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		signal(SIGABRT, SIG_DFL);
		dup2(fd[1], 2);
		fn();
		_exit(0);
	}
	close(fd[1]);
	size_t got = 0;
	ssize_t k;
	while (got < sizeof(buf) - 1 && (k = read(fd[0], buf + got, sizeof(buf) - 1 - got)) > 0)
		got += (size_t)k;
	close(fd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
	if (!strstr(buf, want))
		fail_msg("stderr was: %s", buf);
}

static void send_unconnected(void)
{
	struct sim_engine eng;
	struct sim_link_dir l;
	struct sim_packet p = {.wire_bytes = 64};

	sim_engine_init(&eng, 0);
	sim_link_init(&l, &eng, G100, 0);
	sim_link_send(&l, &p);
}

static void pipe_out_of_order(void)
{
	struct sim_engine eng;
	struct sim_pipe pp;
	struct sim_packet a = {0}, b = {0};

	sim_engine_init(&eng, 0);
	sim_pipe_init(&pp, &eng, NULL, NULL, 0);
	sim_pipe_push(&pp, &a, 100);
	sim_pipe_push(&pp, &b, 99);
}

static void test_invariant_aborts(void **state)
{
	(void)state;
	expect_abort(send_unconnected, "no receiver");
	expect_abort(pipe_out_of_order, "before its predecessor");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_packet_sizes),
		cmocka_unit_test(test_init_errors),
		cmocka_unit_test(test_one_packet),
		cmocka_unit_test(test_pause_quanta),
		cmocka_unit_test(test_back_to_back),
		cmocka_unit_test(test_sent_callback_refills),
		cmocka_unit_test(test_header_delivery),
		cmocka_unit_test(test_pause_before_send),
		cmocka_unit_test(test_pause_mid_packet),
		cmocka_unit_test(test_pause_within_packet_costs_nothing),
		cmocka_unit_test(test_pending_events_bounded),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_invariant_aborts),
	};
	return cmocka_run_group_tests_name("sim_link", tests, NULL, NULL);
}
