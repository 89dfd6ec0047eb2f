/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_sim_faults.c — the simulator's fault injection (sim/fault.h,
 * sim/exec_fault.c) and its limits: every fault ends a run with the
 * completion error or the slowdown its mechanism gives, and nothing hangs.
 *
 * Timers (IBA 9.7.6.1.3): the local ACK timeout is T = 4.096 us x
 * 2^timeout_exp (ib-hdr: exp 18, T = 1.073741824 s); a QP with nothing
 * acknowledged for retry_cnt + 1 timeouts in a row completes its oldest
 * WQE with IBV_WC_RETRY_EXC_ERR (retry_cnt retries, then the error).  A
 * requester re-arms its timer at every packet it sends, so the error
 * comes (retry_cnt + 1) T after the last packet the dead path took, plus
 * the time the retries themselves take to send: microseconds here.
 *
 * Schedules: ring allreduce of 4 ranks (write_imm), 1 MiB; rank r's QP 0
 * sends to rank r + 1 and QP 1 to rank r - 1 (the clear-to-send credits).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/exec.h"
#include "sim/fault.h"
#include "sim/link.h"
#include "tests/files.h"
#include "tests/run_cclab.h"
#include "tests/sim_sched.h"
#include "tests/run_status.h"

#define US 1000000ull
#define MS 1000000000ull
#define K 4u
#define BYTES (UINT64_C(1) << 20)
/* IBA 9.7.6.1.3: 4.096 us x 2^18 */
#define T_ACK (UINT64_C(4096000) << 18)

static struct cc_sim_fault fault(const char *text)
{
	struct cc_sim_fault f;
	char err[200];

	if (cc_sim_fault_parse(text, &f, err, sizeof(err)))
		fail_msg("'%s': %s", text, err);
	return f;
}

/* Runs s on fabric f over `topo` with faults fs[0 .. n). */
static struct cc_sim_result run_f(const struct cc_schedule *s, const struct sim_params *f,
				  enum sim_topo_kind topo, const struct cc_sim_fault *fs, uint32_t n)
{
	struct cc_sim_result res;
	struct cc_sim_opts o = { .fabric = f, .topo = topo, .seed = 1, .check = true,
				 .sim_faults = fs, .nsim_faults = n };

	assert_int_equal(cc_sim_run(s, &o, &res), 0);
	if (res.err.status != CC_RUN_OK)
		print_message("    -> %s\n", res.err.msg);
	return res;
}

static struct cc_sim_result run(const struct cc_schedule *s, const char *fabric,
				enum sim_topo_kind topo, const struct cc_sim_fault *fs, uint32_t n)
{
	struct sim_params f;

	assert_int_equal(sim_params_preset(fabric, &f), 0);
	return run_f(s, &f, topo, fs, n);
}

/* The simulated time an error message gives ("... at N ps: ..."). */
static uint64_t err_time(const struct cc_sim_result *res)
{
	const char *at = strstr(res->err.msg, " at ");
	unsigned long long t;

	assert_non_null(at);
	assert_int_equal(sscanf(at, " at %llu ps", &t), 1);
	return t;
}

/* Link direction from -> to of a result, or NULL. */
static const struct cc_sim_link_stats *link_of(const struct cc_sim_result *res, const char *from,
					       const char *to)
{
	for (uint32_t i = 0; i < res->nlinks; i++)
		if (!strcmp(res->links[i].from, from) && !strcmp(res->links[i].to, to))
			return &res->links[i];
	return NULL;
}

static void same_results(const struct cc_sim_result *a, const struct cc_sim_result *b)
{
	assert_run_status(a->err, b->err.status);
	assert_string_equal(a->err.msg, b->err.msg);
	assert_int_equal(a->time_ps, b->time_ps);
	assert_int_equal(a->events, b->events);
	assert_int_equal(a->wrong, b->wrong);
	assert_int_equal(a->nranks, b->nranks);
	assert_int_equal(a->nlinks, b->nlinks);
	assert_memory_equal(a->rank, b->rank, a->nranks * sizeof(*a->rank));
	assert_memory_equal(a->links, b->links, a->nlinks * sizeof(*a->links));
}

/* ---- the text form ---- */

static void test_parse(void **state)
{
	/* Written, and as cc_sim_fault_format() writes it back. */
	static const char *const ok[][2] = {
		{ "link-down:h0.gpu0->h1.gpu0@10us-50us", NULL },
		{ "link-down:node0.gpu3->rail3@1.5ms", "link-down:node0.gpu3->rail3@1500us-never" },
		{ "link-down:a->b@0-never", NULL },
		{ "link-down:rank=2@10us-1s", "link-down:rank=2,port=0@10us-1s" },
		{ "link-down:rank=2,port=1@250ns-2500ns", NULL },
		{ "no-ack:rank=2@5us", NULL },
		{ "no-ack:rank=all", "no-ack:rank=all@0" },
		{ "slow-gpu:rank=1x2.0", "slow-gpu:rank=1x2" },
		{ "slow-gpu:rank=allx1.25", NULL },
		{ "slow-gpu:rank=3x1000", NULL },
	};
	static const char *const bad[] = {
		"", "link-down", "link-up:a->b@1us", "link-down:a->b", "link-down:a->b@",
		"link-down:a->b@1us-1us", "link-down:a->b@2us-1us", "link-down:a->a@1us",
		"link-down:->b@1us", "link-down:a->@1us", "link-down:ab@1us", "link-down:a->b@1",
		"link-down:a->b@1us-soon", "link-down:rank=all@1us", "link-down:rank=-1@1us",
		"link-down:rank=1,port=x@1us", "link-down:rank=1,prt=1@1us", "no-ack:2",
		"no-ack:rank=", "no-ack:rank=2@5", "no-ack:rank=2@-5us", "slow-gpu:rank=1",
		"slow-gpu:rank=1x", "slow-gpu:rank=1x0.5", "slow-gpu:rank=1x2.0005",
		"slow-gpu:rank=1x1001", "slow-gpu:rank=1x2e0", "slow-gpu:rank=1x.5",
		"slow-gpu:rank=x2", "slow-gpu:rank=1x2x",
	};
	char err[200], text[CC_SIM_FAULT_TEXT_LEN];
	struct cc_sim_fault f, g;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		f = fault(ok[i][0]);
		cc_sim_fault_format(&f, text, sizeof(text));
		assert_string_equal(text, ok[i][1] ? ok[i][1] : ok[i][0]);
		g = fault(text); /* and back: the same fault */
		assert_memory_equal(&f, &g, sizeof(f));
	}
	f = fault("link-down:h0.gpu0->h1.gpu0@10us-50us");
	assert_int_equal(f.kind, CC_SIM_FAULT_LINK_DOWN);
	assert_string_equal(f.from, "h0.gpu0");
	assert_string_equal(f.to, "h1.gpu0");
	assert_int_equal(f.at_ps, 10 * US);
	assert_int_equal(f.until_ps, 50 * US);
	f = fault("slow-gpu:rank=allx1.25");
	assert_int_equal(f.rank, CC_SIM_FAULT_ALL);
	assert_int_equal(f.factor_milli, 1250);
	f = fault("link-down:rank=3,port=1@2us");
	assert_int_equal(f.from[0], '\0');
	assert_int_equal(f.rank, 3);
	assert_int_equal(f.port, 1);
	assert_int_equal(f.until_ps, SIM_TIME_NEVER);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (cc_sim_fault_parse(bad[i], &f, err, sizeof(err)) != -EINVAL)
			fail_msg("'%s' was accepted", bad[i]);
		assert_true(strlen(err) > 10); /* says what was expected */
	}
}

/* Faults the network cannot take: refused by name up front, and by the
 * run (-EINVAL, nothing simulated). */
static void test_check_network(void **state)
{
	static const char *const bad[] = {
		"link-down:h0.gpu0->h9.gpu0@1us",  /* no such node */
		"link-down:h0.gpu0->h2.gpu0@1us",  /* not neighbours on the ring */
		"link-down:rank=4@1us",            /* ranks 0..3 */
		"link-down:rank=1,port=2@1us",     /* a ring NIC has ports 0 and 1 */
		"no-ack:rank=4",
		"slow-gpu:rank=9x2",
	};
	struct cc_schedule *s = ring_sched(CC_ALLREDUCE, CC_WRITE_IMM, K, BYTES);
	struct sim_params f;
	struct sim_net net;
	char err[SIM_NET_ERR_LEN];

	(void)state;
	assert_int_equal(sim_params_preset("ib-hdr", &f), 0);
	sim_net_init(&net, "");
	assert_int_equal(sim_topo_net_make(&net, SIM_TOPO_RING, K, err, sizeof(err)), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cc_sim_fault fs = fault(bad[i]);
		struct cc_sim_result res;
		struct cc_sim_opts o = { .fabric = &f, .topo = SIM_TOPO_RING, .seed = 1,
					 .sim_faults = &fs, .nsim_faults = 1 };

		err[0] = '\0';
		assert_int_equal(cc_sim_faults_check(&fs, 1, &net, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, cc_sim_fault_kind_name[fs.kind])); /* names it */
		assert_int_equal(cc_sim_run(s, &o, &res), -EINVAL);
	}
	struct cc_sim_fault good[] = { fault("link-down:h3.gpu0->h0.gpu0@1us"),
				       fault("link-down:rank=3,port=1@1us"),
				       fault("no-ack:rank=all"), fault("slow-gpu:rank=3x2") };
	assert_int_equal(cc_sim_faults_check(good, 4, &net, err, sizeof(err)), 0);
	sim_net_free(&net);
	cc_schedule_free(s);
}

/* ---- link-down ---- */

struct outage_case {
	struct sim_link_dir l;
	struct sim_packet pkt;
	int got, lost;
};

static void outage_rx(struct sim_engine *eng, void *ctx, uint32_t port, struct sim_packet *pkt,
		      sim_time_ps last_ps)
{
	(void)eng;
	(void)port;
	(void)pkt;
	(void)last_ps;
	((struct outage_case *)ctx)->got++;
}

static void outage_lost(struct sim_engine *eng, void *ctx, struct sim_packet *pkt)
{
	(void)eng;
	(void)pkt;
	((struct outage_case *)ctx)->lost++;
}

static void outage_send(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct outage_case *c = ctx;

	(void)eng;
	(void)arg;
	sim_link_send(&c->l, &c->pkt);
}

/* Whether a 1000-byte packet that starts at `start` on an 8 Gb/s link (1 us
 * of serialization) with `prop` of propagation is lost to an outage
 * [10 us, 20 us). */
static bool lost_at(sim_time_ps start, sim_time_ps prop)
{
	static const struct sim_link_outage down = { 10 * US, 20 * US };
	struct outage_case c = { .pkt = { .wire_bytes = 1000, .frame_bytes = 1000 } };
	struct sim_engine eng;

	assert_int_equal(sim_engine_init(&eng, 0), 0);
	assert_int_equal(sim_link_init(&c.l, &eng, 8000000000u, prop), 0);
	sim_link_connect(&c.l, outage_rx, &c, 0);
	sim_link_set_loss(&c.l, 0, 0, outage_lost, &c);
	sim_link_set_outages(&c.l, &down, 1);
	assert_int_not_equal(sim_schedule(&eng, start, outage_send, &c, 0), SIM_EVENT_NONE);
	sim_run(&eng, SIM_TIME_NEVER);
	sim_engine_destroy(&eng);
	assert_int_equal(c.got + c.lost, 1);
	assert_int_equal(c.l.st.lost, (uint64_t)c.lost);
	return c.lost;
}

/* A packet is lost when it occupies the link — first bit leaving to last
 * bit arriving — at any moment of [from, until). */
static void test_link_outage_rule(void **state)
{
	(void)state;
	assert_false(lost_at(8 * US, 0));           /* [8, 9] us */
	assert_false(lost_at(9 * US, 0));           /* last bit in at 10 us: just made it */
	assert_true(lost_at(9 * US + 1, 0));        /* last bit 1 ps into the outage */
	assert_true(lost_at(15 * US, 0));
	assert_true(lost_at(20 * US - 1, 0));       /* started 1 ps before the link came back */
	assert_false(lost_at(20 * US, 0));
	assert_true(lost_at(8 * US + 1, US));       /* in flight on the wire when it went down */
	assert_false(lost_at(8 * US, US));
}


/* Down for 10 us while data flows: the packets on it are lost, the ones
 * after the outage arrive out of sequence and draw a sequence NAK (IBA
 * 9.7.5.1.3), go-back-N resends — no timeout — and the run completes,
 * correct and later. */
static void test_link_down_brief(void **state)
{
	struct cc_schedule *s = ring_sched(CC_ALLREDUCE, CC_WRITE_IMM, K, BYTES);
	/* after the first invitations (whose lone ACKs, lost, would wait
	 * for the timeout), while data flows */
	struct cc_sim_fault fs = fault("link-down:h0.gpu0->h1.gpu0@10us-20us");
	struct cc_sim_result base = run(s, "ib-hdr", SIM_TOPO_RING, NULL, 0);
	struct cc_sim_result res = run(s, "ib-hdr", SIM_TOPO_RING, &fs, 1);
	uint64_t lost = 0;

	(void)state;
	assert_run_status(base.err, CC_RUN_OK);
	assert_run_status(res.err, CC_RUN_OK);
	assert_int_equal(res.wrong, 0);
	assert_true(res.time_ps > base.time_ps);
	assert_true(res.time_ps < base.time_ps + 100 * US);
	assert_true(res.rank[0].lost_pkts > 0);   /* rank 0 sends on it */
	assert_true(res.rank[0].retx_pkts >= res.rank[0].lost_pkts);
	for (uint32_t r = 0; r < K; r++) {
		assert_int_equal(res.rank[r].timeouts, 0);
		assert_int_equal(base.rank[r].lost_pkts, 0);
		lost += res.rank[r].lost_pkts;
	}
	/* Every loss is on that cable (both its directions count), and each
	 * is a sender's. */
	const struct cc_sim_link_stats *ab = link_of(&res, "h0.gpu0", "h1.gpu0");
	const struct cc_sim_link_stats *ba = link_of(&res, "h1.gpu0", "h0.gpu0");
	uint64_t on_links = 0;

	assert_non_null(ab);
	assert_non_null(ba);
	for (uint32_t i = 0; i < res.nlinks; i++)
		on_links += res.links[i].lost;
	assert_int_equal(on_links, ab->lost + ba->lost);
	assert_int_equal(on_links, lost);
	assert_true(ab->lost > 0);
	cc_sim_result_free(&base);
	cc_sim_result_free(&res);
	cc_schedule_free(s);
}

/* Down from half-way through the run until after it would have ended:
 * nothing arrives after the outage to draw a NAK, so only the local ACK
 * timeout recovers — the run completes, correct, at least T later, and
 * well before retry_cnt runs out (the link is back by the first). */
static void test_link_down_timeout(void **state)
{
	struct cc_schedule *s = ring_sched(CC_ALLREDUCE, CC_WRITE_IMM, K, BYTES);
	struct cc_sim_result base = run(s, "ib-hdr", SIM_TOPO_RING, NULL, 0);
	struct cc_sim_fault fs = {
		.kind = CC_SIM_FAULT_LINK_DOWN, .from = "h0.gpu0", .to = "h1.gpu0",
		.at_ps = base.time_ps / 2, .until_ps = base.time_ps + 10 * US,
	};
	struct cc_sim_result res = run(s, "ib-hdr", SIM_TOPO_RING, &fs, 1);
	uint64_t timeouts = 0;

	(void)state;
	assert_run_status(res.err, CC_RUN_OK);
	assert_int_equal(res.wrong, 0);
	for (uint32_t r = 0; r < K; r++)
		timeouts += res.rank[r].timeouts;
	assert_true(timeouts >= 1);
	assert_true(res.time_ps > base.time_ps / 2 + T_ACK);
	assert_true(res.time_ps < base.time_ps + 2 * T_ACK);
	cc_sim_result_free(&base);
	cc_sim_result_free(&res);
	cc_schedule_free(s);
}

/* Down for good: rank 0's QP to rank 1 (or rank 1's credits back to rank
 * 0, the other direction of the cable) exhausts retry_cnt = 7: 8 timeouts,
 * IBV_WC_RETRY_EXC_ERR on a post_send, CC_RUN_COMPLETION_ERROR, 8 T after
 * its last packet — bounded simulated time, not a hang.  Naming the link
 * by rank 0's port 0 (towards rank 1 on the ring) is the same fault. */
static void test_link_down_forever(void **state)
{
	struct cc_schedule *s = ring_sched(CC_ALLREDUCE, CC_WRITE_IMM, K, BYTES);
	struct cc_sim_fault by_name = fault("link-down:h1.gpu0->h0.gpu0@5us");
	struct cc_sim_fault by_port = fault("link-down:rank=0,port=0@5us-never");
	struct cc_sim_result res = run(s, "ib-hdr", SIM_TOPO_RING, &by_name, 1);
	struct cc_sim_result again = run(s, "ib-hdr", SIM_TOPO_RING, &by_port, 1);
	const struct cc_rank_sched *rs;
	uint64_t t;

	(void)state;
	assert_run_status(res.err, CC_RUN_COMPLETION_ERROR);
	assert_int_equal(res.err.wc, CC_WC_RETRY_EXC_ERR);
	assert_true(res.err.rank <= 1);
	rs = &s->ranks[res.err.rank];
	assert_true(res.err.qp < rs->nqps);
	assert_int_equal(rs->qps[res.err.qp].peer, 1 - res.err.rank); /* across the cable */
	assert_int_equal(rs->ops[res.err.op].kind, CC_OP_POST_SEND);
	assert_non_null(strstr(res.err.msg, "IBV_WC_RETRY_EXC_ERR"));
	assert_int_equal(res.rank[res.err.rank].timeouts, 8); /* retry_cnt 7, then the error */
	t = err_time(&res);
	assert_true(t >= 5 * US + 8 * T_ACK);
	assert_true(t < 8 * T_ACK + MS);
	assert_int_equal(res.time_ps, 0); /* not every rank finished */
	same_results(&res, &again);
	cc_sim_result_free(&res);
	cc_sim_result_free(&again);
	cc_schedule_free(s);
}

/* ---- no-ack ---- */

/* Rank 2's NIC stops acknowledging at 5 us: rank 1's QP 0, which sends to
 * it, exhausts its retries.  The error time is (retry_cnt + 1) T after its
 * last packet, T = 4.096 us x 2^timeout_exp, for any of the fabric's
 * values (the schedule asks for 7 retries; the fabric's rnic.retry_cnt
 * caps them, as NCCL_IB_RETRY_CNT does). */
static void test_no_ack(void **state)
{
	static const struct { uint8_t retry_cnt, timeout_exp; } timers[] = {
		{ 7, 18 }, { 2, 10 }, { 0, 12 }, { 5, 4 },
	};
	struct cc_schedule *s = ring_sched(CC_ALLREDUCE, CC_WRITE_IMM, K, BYTES);
	struct cc_sim_fault fs = fault("no-ack:rank=2@5us");
	struct sim_params f;

	(void)state;
	assert_int_equal(sim_params_preset("ib-hdr", &f), 0);
	for (size_t i = 0; i < sizeof(timers) / sizeof(timers[0]); i++) {
		uint64_t tack = UINT64_C(4096000) << timers[i].timeout_exp;
		uint32_t tries = timers[i].retry_cnt + 1u;
		struct cc_sim_result res;

		f.rnic.retry_cnt = timers[i].retry_cnt;
		f.rnic.timeout_exp = timers[i].timeout_exp;
		res = run_f(s, &f, SIM_TOPO_STAR, &fs, 1);
		assert_run_status(res.err, CC_RUN_COMPLETION_ERROR);
		assert_int_equal(res.err.wc, CC_WC_RETRY_EXC_ERR);
		/* A QP whose responder is rank 2. */
		assert_int_equal(s->ranks[res.err.rank].qps[res.err.qp].peer, 2);
		assert_int_equal(res.rank[res.err.rank].timeouts, tries);
		assert_true(err_time(&res) >= 5 * US + tries * tack);
		assert_true(err_time(&res) < tries * tack + MS);
		/* Rank 2 sent ACKs only before 5 us. */
		assert_true(res.rank[2].acks < res.rank[1].acks);
		cc_sim_result_free(&res);
	}
	cc_schedule_free(s);
}

/* ---- slow-gpu ---- */

/* Every GPU twice as slow is, exactly, the fabric whose GPUs and CPU
 * reduce threads have half the bandwidth and twice the per-op overhead
 * and memory latency (a thread group's pace):
 * the slowdown is the compute model's, nothing else. */
static void test_slow_gpu_all_is_half_rate(void **state)
{
	struct cc_schedule *s = ring_sched(CC_ALLREDUCE, CC_WRITE_IMM, K, BYTES);
	struct cc_sim_fault fs = fault("slow-gpu:rank=allx2");
	struct sim_params f, half;
	struct cc_sim_result slow, res, base;

	(void)state;
	assert_int_equal(sim_params_preset("ib-hdr", &f), 0);
	half = f;
	assert_int_equal(f.host.gpu_mem_bytes_per_s % 2, 0);
	assert_int_equal(f.host.cpu_thread_bytes_per_s % 2, 0);
	half.host.gpu_mem_bytes_per_s /= 2;
	half.host.gpu_step_ps *= 2;
	half.host.gpu_mem_latency_ps *= 2;
	half.host.cpu_thread_bytes_per_s /= 2;
	half.host.cpu_call_ps *= 2;
	base = run_f(s, &f, SIM_TOPO_RING, NULL, 0);
	slow = run_f(s, &f, SIM_TOPO_RING, &fs, 1);
	res = run_f(s, &half, SIM_TOPO_RING, NULL, 0);
	assert_run_status(slow.err, CC_RUN_OK);
	assert_int_equal(slow.wrong, 0);
	assert_true(slow.time_ps > base.time_ps);
	same_results(&slow, &res);
	for (uint32_t r = 0; r < K; r++)
		assert_int_equal(slow.rank[r].busy_ps[CC_SIM_REDUCE],
				 2 * base.rank[r].busy_ps[CC_SIM_REDUCE]);
	cc_sim_result_free(&base);
	cc_sim_result_free(&slow);
	cc_sim_result_free(&res);
	cc_schedule_free(s);
}

/* Bytes rank r's GPU ops move (each operand once, as sim/exec.c charges). */
static uint64_t gpu_bytes(const struct cc_schedule *s, uint32_t r)
{
	const struct cc_rank_sched *rs = &s->ranks[r];
	uint64_t n = 0;

	for (uint32_t i = 0; i < rs->nops; i++) {
		const struct cc_op *o = &rs->ops[i];

		if (o->kind != CC_OP_REDUCE && o->kind != CC_OP_COPY)
			continue;
		assert_int_equal(o->u.calc.where, CC_ON_GPU);
		for (int j = 0; j < o->u.calc.nsrc; j++)
			n += cc_calc_operand_bytes(&o->u.calc, 0, j);
		for (int j = 0; j < o->u.calc.ndst; j++)
			n += cc_calc_operand_bytes(&o->u.calc, 1, j);
	}
	return n;
}

/* A straggler on a compute-bound fabric: `ideal` (wire time only) with
 * GPUs of 1 GB/s (1000 ps a byte, 12.5 times slower than its 100 Gb/s
 * links) and no per-op overhead.  Each rank's GPU work is B = its bytes
 * x 1000 ps; without faults the ring takes B + D, D the wire's share of
 * the pipeline (fill and drain).
 *   - Every GPU F times slower: F B + D — the same pipeline, stretched.
 *   - Rank 1 alone F times slower: F B exactly.  Its neighbours outpace
 *     it, so its input is always there before its GPU is free: its GPU is
 *     busy from the start to the end of the run, and the others wait on
 *     it (they finish earlier, but the collective ends with it).  The
 *     straggler slows every rank, and nothing hides its slowness.
 * F = 2 and 1.25 keep every division exact (1e9 / F is whole). */
static void test_slow_gpu_straggler(void **state)
{
	static const char *const one[] = { "slow-gpu:rank=1x2", "slow-gpu:rank=1x1.25" };
	static const char *const all[] = { "slow-gpu:rank=allx2", "slow-gpu:rank=allx1.25" };
	static const uint64_t milli[] = { 2000, 1250 };
	struct cc_schedule *s = ring_sched(CC_ALLREDUCE, CC_WRITE_IMM, K, BYTES);
	struct sim_params f;
	struct cc_sim_result base;
	uint64_t b, d;

	(void)state;
	assert_int_equal(sim_params_preset("ideal", &f), 0);
	f.host.gpu_mem_bytes_per_s = 1000000000u;
	f.host.gpu_step_ps = 0;
	base = run_f(s, &f, SIM_TOPO_RING, NULL, 0);
	assert_run_status(base.err, CC_RUN_OK);
	b = gpu_bytes(s, 1) * 1000u;
	for (uint32_t r = 0; r < K; r++) {
		assert_int_equal(gpu_bytes(s, r) * 1000u, b); /* a ring: every rank alike */
		assert_int_equal(base.rank[r].busy_ps[CC_SIM_REDUCE], b);
	}
	assert_true(base.time_ps > b);
	d = base.time_ps - b;
	for (size_t i = 0; i < 2; i++) {
		struct cc_sim_fault f1 = fault(one[i]), fa = fault(all[i]);
		struct cc_sim_result r1 = run_f(s, &f, SIM_TOPO_RING, &f1, 1);
		struct cc_sim_result ra = run_f(s, &f, SIM_TOPO_RING, &fa, 1);

		assert_run_status(r1.err, CC_RUN_OK);
		assert_run_status(ra.err, CC_RUN_OK);
		assert_int_equal(r1.wrong, 0);
		assert_int_equal(ra.wrong, 0);
		assert_int_equal(ra.time_ps, milli[i] * b / 1000 + d);
		assert_int_equal(r1.time_ps, milli[i] * b / 1000);
		assert_int_equal(r1.rank[1].busy_ps[CC_SIM_REDUCE], r1.time_ps);
		assert_int_equal(r1.rank[1].done_ps, r1.time_ps); /* the last to finish */
		for (uint32_t r = 0; r < K; r++) {
			assert_true(r1.rank[r].done_ps > base.time_ps); /* everyone slowed */
			if (r != 1)
				assert_int_equal(r1.rank[r].busy_ps[CC_SIM_REDUCE], b);
		}
		cc_sim_result_free(&r1);
		cc_sim_result_free(&ra);
	}
	cc_sim_result_free(&base);
	cc_schedule_free(s);
}

/* ---- limits, and what does not change ---- */

/* A wall-clock limit of 1 ms stops a run that needs far longer (8 ranks,
 * 64 MiB: over a million events): "time limit reached", its own status
 * (not a deadlock), with the first unfinished rank named; a generous limit
 * changes nothing. */
static void test_wall_limit(void **state)
{
	struct cc_schedule *big = ring_sched(CC_ALLREDUCE, CC_WRITE_IMM, 8, UINT64_C(64) << 20);
	struct cc_schedule *s = ring_sched(CC_ALLREDUCE, CC_WRITE_IMM, K, BYTES);
	struct sim_params f;
	struct cc_sim_result res, unlimited, limited;
	struct cc_sim_opts o = { .fabric = &f, .topo = SIM_TOPO_RING, .seed = 1,
				 .wall_limit_ms = 1 };

	(void)state;
	assert_int_equal(sim_params_preset("ib-hdr", &f), 0);
	assert_int_equal(cc_sim_run(big, &o, &res), 0);
	assert_run_status(res.err, CC_RUN_TIME_LIMIT);
	assert_non_null(strstr(res.err.msg, "time limit reached: the wall-clock limit (1 ms) "
					    "stopped the run"));
	assert_int_equal(res.time_ps, 0);
	/* Setup counts against the limit too: on a loaded machine the run
	 * may stop before its first event.  Either way, far from the end. */
	assert_true(res.events < 1000000);
	cc_sim_result_free(&res);

	o.check = true;
	o.wall_limit_ms = 0;
	assert_int_equal(cc_sim_run(s, &o, &unlimited), 0);
	o.wall_limit_ms = 3600u * 1000u;
	assert_int_equal(cc_sim_run(s, &o, &limited), 0);
	assert_run_status(unlimited.err, CC_RUN_OK);
	same_results(&unlimited, &limited);
	cc_sim_result_free(&unlimited);
	cc_sim_result_free(&limited);
	cc_schedule_free(big);
	cc_schedule_free(s);
}

/* Rank 0 SENDs 4 KiB to rank 1, which never posts a receive: with
 * rnr_retry 7 — NCCL's, "retry forever" (IBA 9.7.5.2.8) — the RNR NAKs
 * and resends never end, and simulated time runs on for ever. */
static struct cc_schedule *rnr_forever(void)
{
	struct cc_coll_params p;
	struct cc_schedule *s;
	uint32_t i;

	cc_coll_params_default(&p);
	p.nranks = 2;
	p.count = 0; /* no collective: nothing to compare */
	s = cc_schedule_new(&p);
	assert_non_null(s);
	for (uint32_t r = 0; r < 2; r++) {
		struct cc_rank_sched *rs = &s->ranks[r];

		cc_add_buffer(rs, &(struct cc_buffer){ CC_MEM_GPU, CC_BUF_INPUT, 4096, -1, 0 });
		cc_add_mr(rs, 0, CC_ACCESS_LOCAL_WRITE | CC_ACCESS_REMOTE_WRITE);
		cc_add_cq(rs, 16);
		cc_add_qp(rs, &(struct cc_qp){ .peer = 1 - r, .peer_qp = 0, .max_send_wr = 4,
					       .max_recv_wr = 4, .max_inline = 64, .retry_cnt = 7,
					       .rnr_retry = 7 });
	}
	struct cc_op post = { .kind = CC_OP_POST_SEND, .u.send = {
		.qp = 0, .wr_id = 1, .opcode = CC_WR_SEND, .flags = CC_SEND_SIGNALED,
		.num_sge = 1, .sge = { 0, 0, 4096 } } };
	struct cc_op db = { .kind = CC_OP_DOORBELL, .u.doorbell = { 0, 1 } };
	struct cc_op poll = { .kind = CC_OP_POLL_CQ, .u.poll = { 0, 1 } };

	i = cc_add_op(&s->ranks[0], &post, NULL, 0);
	i = cc_add_op(&s->ranks[0], &db, &i, 1);
	cc_add_op(&s->ranks[0], &poll, &i, 1);
	return s;
}

/* That run stops at the simulated-time limit — the default one too,
 * 3600 simulated seconds — and, with no simulated-time limit at all, at
 * the wall-clock limit: never a hang. */
static void test_time_limits(void **state)
{
	struct cc_schedule *s = rnr_forever();
	struct sim_params f;
	struct cc_sim_result res;
	struct cc_sim_opts o = { .fabric = &f, .topo = SIM_TOPO_STAR, .seed = 1,
				 .time_limit_ps = 50 * MS };

	(void)state;
	assert_int_equal(sim_params_preset("ib-hdr", &f), 0);
	assert_int_equal(cc_sim_run(s, &o, &res), 0);
	assert_run_status(res.err, CC_RUN_TIME_LIMIT);
	assert_non_null(strstr(res.err.msg, "time limit reached (50 ms simulated) still retrying "
					    "after RNR NAKs"));
	assert_int_equal(err_time(&res), 50 * MS);
	assert_true(res.rank[1].rnr_naks > 1);
	cc_sim_result_free(&res);

	f.rnic.min_rnr_timer = 31; /* RNR timer code 31: 491.52 ms, few events */
	o.time_limit_ps = 0;       /* the default */
	assert_int_equal(cc_sim_run(s, &o, &res), 0);
	assert_run_status(res.err, CC_RUN_TIME_LIMIT);
	assert_non_null(strstr(res.err.msg, "time limit reached (3600 s simulated)"));
	assert_int_equal(err_time(&res), CC_SIM_TIME_LIMIT_DEFAULT_PS);
	cc_sim_result_free(&res);

	f.rnic.min_rnr_timer = 1; /* code 1: 10 us, events come fast */
	o.time_limit_ps = SIM_TIME_NEVER;
	o.wall_limit_ms = 20;
	assert_int_equal(cc_sim_run(s, &o, &res), 0);
	assert_run_status(res.err, CC_RUN_TIME_LIMIT);
	assert_non_null(strstr(res.err.msg, "wall-clock limit (20 ms)"));
	assert_true(res.rank[1].rnr_naks > 100);
	cc_sim_result_free(&res);
	cc_schedule_free(s);
}

/* Faults whose time never comes (after the run), a factor of 1 and a link
 * no packet crosses leave a run exactly as it was: the mechanisms cost
 * nothing until they act. */
static void test_dormant_faults(void **state)
{
	struct cc_schedule *s = ring_sched(CC_ALLREDUCE, CC_WRITE_IMM, K, BYTES);
	struct cc_sim_fault fs[] = {
		fault("link-down:h0.gpu0->h1.gpu0@10s-20s"), fault("no-ack:rank=all@10s"),
		fault("slow-gpu:rank=2x1"),
	};
	struct cc_sim_result base = run(s, "ib-hdr", SIM_TOPO_RING, NULL, 0);
	struct cc_sim_result res = run(s, "ib-hdr", SIM_TOPO_RING, fs, 3);

	(void)state;
	assert_run_status(base.err, CC_RUN_OK);
	same_results(&base, &res);
	cc_sim_result_free(&base);
	cc_sim_result_free(&res);
	cc_schedule_free(s);
}

/* The same faults and seed give the same run, byte for byte: every fault
 * is decided from fixed times, never drawn. */
static void test_deterministic(void **state)
{
	struct cc_schedule *s = ring_sched(CC_ALLREDUCE, CC_WRITE_IMM, K, BYTES);
	struct cc_sim_fault fs[] = {
		fault("link-down:h2.gpu0->h3.gpu0@3us-9us"), fault("slow-gpu:rank=3x1.5"),
		fault("link-down:rank=1,port=1@20us-21us"),
	};
	struct cc_sim_fault dead[] = { fault("no-ack:rank=0@30us"),
				       fault("link-down:h1.gpu0->h2.gpu0@4us") };

	(void)state;
	for (int k = 0; k < 2; k++) {
		const struct cc_sim_fault *f = k ? dead : fs;
		uint32_t n = k ? 2 : 3;
		struct cc_sim_result a = run(s, "ib-hdr", SIM_TOPO_RING, f, n);
		struct cc_sim_result b = run(s, "ib-hdr", SIM_TOPO_RING, f, n);

		assert_run_status(a.err, k ? CC_RUN_COMPLETION_ERROR : CC_RUN_OK);
		if (!k)
			assert_int_equal(a.wrong, 0);
		same_results(&a, &b);
		cc_sim_result_free(&a);
		cc_sim_result_free(&b);
	}
	cc_schedule_free(s);
}

/* ---- the command line (skipped without $CCLAB) ---- */

static void test_cli(void **state)
{
	struct run r;

	(void)state;
	need_cclab();
	r = run_cclab("sim -n 4 -b 1M --fault 'link-down:h0.gpu0->h1.gpu0@5us-15us' "
		      "--fault slow-gpu:rank=allx1");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "# fault: link-down:h0.gpu0->h1.gpu0@5us-15us\n"
				      "# fault: slow-gpu:rank=allx1\n"));
	run_free(&r);

	r = run_cclab("sim -n 4 -b 1M --fault 'link-down:rank=0@5us'");
	assert_int_equal(r.status, 1);
	/* the first QP out of retries: rank 1's invitations to rank 0, whose
	 * ACKs never come back */
	assert_non_null(strstr(r.err, "completion_error: rank 1 qp 1 "));
	assert_non_null(strstr(r.err, "IBV_WC_RETRY_EXC_ERR"));
	run_free(&r);

	r = run_cclab("sim -n 4 -b 1M --topology star --fault no-ack:rank=2@5us");
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "IBV_WC_RETRY_EXC_ERR"));
	run_free(&r);

	/* Bad faults: exit 2, the option and what was expected. */
	r = run_cclab("sim -n 4 -b 1M --fault slow-gpu:rank=1x0.5");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "invalid value 'slow-gpu:rank=1x0.5' for --fault: the "
				      "factor is 1"));
	run_free(&r);
	r = run_cclab("sim -n 4 -b 1M --fault 'link-down:h0.gpu0->h9.gpu0@1us'");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--fault 'link-down:h0.gpu0->h9.gpu0@1us-never': the ring "
				      "topology has no node 'h9.gpu0'"));
	run_free(&r);
	r = run_cclab("sim -n 4 -b 1M --fault link-up:rank=1");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--fault: expected link-down:"));
	run_free(&r);
	r = run_cclab("run -n 2 -b 1M --fault no-ack:rank=1");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "applies to the simulator"));
	run_free(&r);

	/* The wall-clock limit: a tiny one stops a long run (or its build),
	 * a time limit, not a deadlock. */
	r = run_cclab("sim -n 8 -b 64M --check 0 --wall-limit 1ms");
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "67108864 bytes: time_limit: "));
	assert_non_null(strstr(r.err, "time limit reached: the wall-clock limit (1 ms) stopped the "));
	run_free(&r);
	r = run_cclab("sim -n 4 -b 1M --wall-limit 0");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "for --wall-limit"));
	run_free(&r);
}

static int cli_setup(void **state)
{
	(void)state;
	return run_cclab_begin("faults");
}

static int cli_teardown(void **state)
{
	(void)state;
	return run_cclab_end();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_check_network),
		cmocka_unit_test(test_link_outage_rule),
		cmocka_unit_test(test_link_down_brief),
		cmocka_unit_test(test_link_down_timeout),
		cmocka_unit_test(test_link_down_forever),
		cmocka_unit_test(test_no_ack),
		cmocka_unit_test(test_slow_gpu_all_is_half_rate),
		cmocka_unit_test(test_slow_gpu_straggler),
		cmocka_unit_test(test_wall_limit),
		cmocka_unit_test(test_time_limits),
		cmocka_unit_test(test_dormant_faults),
		cmocka_unit_test(test_deterministic),
	};

	const struct CMUnitTest cli[] = {
		cmocka_unit_test(test_cli),
	};
	int failed = cmocka_run_group_tests_name("sim_faults", tests, NULL, NULL);

	return failed + cmocka_run_group_tests_name("sim_faults_cli", cli, cli_setup,
						    cli_teardown);
}
