/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_p2p.c — perftest's point-to-point workloads (core/p2p.h,
 * core/p2p_report.h, cclab p2p): the schedules' structure and limits, the
 * data executor running every op in both modes, the simulator against
 * closed forms, perftest's arithmetic, and the command line.
 *
 * Closed forms on ib-hdr, in ps (as tests/test_sim_exec.c derives them):
 *   PS PC   post_send 100 ns, poll_cq 50 ns (CPU)
 *   DB RQ RS doorbell 250 ns, requester 100 ns, responder 100 ns (NIC)
 *   CW AT   CQE write 250 ns, the responder's atomic read-modify-write 546 ns
 *   PROP FWD link propagation 25 ns, switch forwarding 130 ns
 *   ser(B)  B wire bytes at 200 Gb/s = 40 B ps
 *   rd(8)   PCIe read of 8 B: pser(24) + L + pser(28) + L, L = 250 ns
 *   wr(8)   PCIe write of 8 B: pser(32) + L
 * IB packets with 8 B of payload: WRITE_ONLY_IMM 54 B (LRH 8, BTH 12,
 * RETH 16, ImmDt 4, ICRC 4, VCRC 2), SEND_ONLY 34 B, READ_REQUEST 42 B,
 * READ_RESPONSE_ONLY 38 B, COMPARE_SWAP / FETCH_ADD request 54 B (AtomicETH
 * 28), ATOMIC_ACKNOWLEDGE 38 B.  Through the star's cut-through switch a
 * packet of at most 64 B is stored and forwarded whole: ser(B) twice.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/files.h"
#include "tests/run_cclab.h"
#include "tests/clock.h"

#include "core/exec_data.h"
#include "core/p2p.h"
#include "core/p2p_report.h"
#include "core/word.h"
#include "sim/bound.h"
#include "sim/exec.h"
#include "sim/opcode.h"
#include "sim/wire.h"

#define NS 1000ull
#define PS (100 * NS)
#define PC (50 * NS)
#define DB (250 * NS)
#define RQ (100 * NS)
#define RS (100 * NS)
#define CW (250 * NS)
#define AT (546 * NS)
#define PROP (25 * NS)
#define FWD (130 * NS)
#define L (250 * NS)
#define SER(b) ((uint64_t)(b) * 40u)

static uint64_t pser(uint64_t b)
{
	unsigned __int128 num = (unsigned __int128)b * 8u * 1000000000000ull;
	return (uint64_t)((num + 252061538461ull - 1) / 252061538461ull);
}

#define RD8 (pser(24) + L + pser(28) + L)
#define WR8 (pser(32) + L)

static const enum cc_p2p_op all_ops[] = {CC_P2P_WRITE, CC_P2P_WRITE_IMM, CC_P2P_SEND,
					 CC_P2P_READ, CC_P2P_FETCH_ADD, CC_P2P_CMP_SWAP};
#define NOPS_ALL (sizeof(all_ops) / sizeof(all_ops[0]))

static struct cc_p2p_params params(enum cc_p2p_op op, enum cc_p2p_mode mode, uint64_t size,
				   uint32_t iters)
{
	struct cc_p2p_params p;

	cc_p2p_params_default(&p, op, mode);
	p.size = cc_p2p_is_atomic(op) ? 8 : size;
	p.iters = iters;
	return p;
}

static struct cc_schedule *build(const struct cc_p2p_params *p)
{
	char err[256];
	struct cc_schedule *s = cc_build_p2p(p, err, sizeof(err));

	if (!s)
		fail_msg("cc_build_p2p: %s", err);
	assert_int_equal(cc_schedule_validate(s, err, sizeof(err)), 0);
	return s;
}

/* ---- names, defaults, parameter checks ---- */

static void names_and_defaults(void **state)
{
	struct cc_p2p_params p;
	enum cc_p2p_op op;
	enum cc_p2p_mode mode;

	(void)state;
	for (int i = 0; i < CC_P2P_OP_COUNT; i++) {
		assert_int_equal(cc_p2p_op_parse(cc_p2p_op_name[i], &op), 0);
		assert_int_equal(op, i);
	}
	assert_int_equal(cc_p2p_op_parse("atomic", &op), -EINVAL);
	assert_int_equal(cc_p2p_mode_parse("lat", &mode), 0);
	assert_int_equal(mode, CC_P2P_LAT);
	assert_int_equal(cc_p2p_mode_parse("latency", &mode), -EINVAL);
	assert_string_equal(cc_p2p_tool(CC_P2P_READ, CC_P2P_LAT), "ib_read_lat");
	assert_string_equal(cc_p2p_tool(CC_P2P_SEND, CC_P2P_BW), "ib_send_bw");

	/* perftest_parameters.h: DEF_TX_BW 128, DEF_TX_LAT 1, DEF_CQ_MOD 100,
	 * DEF_RX_SEND 512, DEF_SIZE_BW 65536, DEF_SIZE_LAT 2; 5000 / 1000
	 * iterations; host memory. */
	cc_p2p_params_default(&p, CC_P2P_WRITE, CC_P2P_BW);
	assert_int_equal(p.tx_depth, 128);
	assert_int_equal(p.cq_mod, 100);
	assert_int_equal(p.rx_depth, 512);
	assert_int_equal(p.iters, 5000);
	assert_int_equal(p.size, 65536);
	assert_int_equal(p.mem, CC_MEM_HOST);
	cc_p2p_params_default(&p, CC_P2P_SEND, CC_P2P_LAT);
	assert_int_equal(p.tx_depth, 1);
	assert_int_equal(p.iters, 1000);
	assert_int_equal(p.size, 2);
	cc_p2p_params_default(&p, CC_P2P_CMP_SWAP, CC_P2P_BW);
	assert_int_equal(p.size, 8);
	/* cq_mod above tx_depth is taken as tx_depth, as perftest does */
	cc_p2p_params_default(&p, CC_P2P_WRITE, CC_P2P_BW);
	p.tx_depth = 16;
	assert_int_equal(cc_p2p_cq_mod(&p), 16);
	/* lat READ / atomics wait for each: every one signalled */
	cc_p2p_params_default(&p, CC_P2P_READ, CC_P2P_LAT);
	p.tx_depth = 8;
	assert_int_equal(cc_p2p_cq_mod(&p), 1);
}

static void expect_refused(struct cc_p2p_params p, const char *needle)
{
	char err[256] = "";

	errno = 0;
	assert_null(cc_build_p2p(&p, err, sizeof(err)));
	assert_int_equal(errno, EINVAL);
	if (!strstr(err, needle))
		fail_msg("message '%s' lacks '%s'", err, needle);
}

static void bad_parameters(void **state)
{
	struct cc_p2p_params p = params(CC_P2P_WRITE, CC_P2P_BW, 64, 10);

	(void)state;
	p.size = 0;
	expect_refused(p, "size 0");
	p = params(CC_P2P_FETCH_ADD, CC_P2P_BW, 8, 10);
	p.size = 16;
	expect_refused(p, "fetch_add is a 64-bit atomic, always 8 bytes");
	p = params(CC_P2P_WRITE, CC_P2P_BW, (UINT64_C(1) << 31) + 1, 10);
	expect_refused(p, "above 2 GiB");
	p = params(CC_P2P_WRITE, CC_P2P_BW, 64, 0);
	expect_refused(p, "iterations 0");
	p = params(CC_P2P_WRITE, CC_P2P_LAT, 64, 1);
	expect_refused(p, "lat needs at least 2");
	p = params(CC_P2P_WRITE, CC_P2P_BW, 64, 10);
	p.tx_depth = 0;
	expect_refused(p, "tx depth 0");
	p.tx_depth = 4;
	p.cq_mod = 0;
	expect_refused(p, "cq moderation 0");
	p.cq_mod = 1;
	p.rx_depth = 0;
	expect_refused(p, "rx depth 0");
	p.rx_depth = 1;
	p.op = CC_P2P_OP_COUNT;
	expect_refused(p, "unknown operation");
}

/* ---- structure ---- */

struct counts {
	uint32_t post_send, doorbell, signaled, inline_, send_poll, post_recv, recv_poll;
};

static struct counts count(const struct cc_rank_sched *rs, enum cc_opcode want_opcode)
{
	struct counts c = {0};

	for (uint32_t i = 0; i < rs->nops; i++) {
		const struct cc_op *o = &rs->ops[i];

		switch (o->kind) {
		case CC_OP_POST_SEND:
			c.post_send++;
			assert_int_equal(o->u.send.opcode, want_opcode);
			assert_int_equal(o->u.send.wr_id, i);
			assert_int_equal(o->u.send.payload, CC_PAYLOAD_DATA);
			c.signaled += !!(o->u.send.flags & CC_SEND_SIGNALED);
			c.inline_ += !!(o->u.send.flags & CC_SEND_INLINE);
			break;
		case CC_OP_DOORBELL:
			c.doorbell++;
			assert_int_equal(o->u.doorbell.nwqe, 1); /* post_list 1 */
			break;
		case CC_OP_POST_RECV:
			c.post_recv++;
			break;
		case CC_OP_POLL_CQ:
			assert_true(o->u.poll.wr_id < i);
			if (rs->ops[o->u.poll.wr_id].kind == CC_OP_POST_SEND) {
				assert_int_equal(o->u.poll.cq, 0);
				c.send_poll++;
			} else {
				assert_int_equal(rs->ops[o->u.poll.wr_id].kind, CC_OP_POST_RECV);
				assert_int_equal(o->u.poll.cq, 1);
				c.recv_poll++;
			}
			break;
		default:
			fail_msg("op %u: unexpected %s", i, cc_op_kind_name[o->kind]);
		}
		assert_int_equal(o->tag.prim, CC_PRIM_NONE);
	}
	return c;
}

static void structure(void **state)
{
	const uint32_t n = 250, tx = 16, cq = 10, rx = 64;

	(void)state;
	for (size_t k = 0; k < NOPS_ALL; k++) {
		for (int mode = 0; mode < CC_P2P_MODE_COUNT; mode++) {
			enum cc_p2p_op op = all_ops[k];
			struct cc_p2p_params p = params(op, mode, 8, n);
			bool pp = cc_p2p_is_pingpong(op, mode);
			bool two_sided = cc_p2p_opcode(op, mode) == CC_WR_SEND ||
					 cc_p2p_opcode(op, mode) == CC_WR_RDMA_WRITE_WITH_IMM;
			bool remote_write = cc_p2p_opcode(op, mode) == CC_WR_RDMA_WRITE ||
					    cc_p2p_opcode(op, mode) == CC_WR_RDMA_WRITE_WITH_IMM;

			if (mode == CC_P2P_BW)
				p.tx_depth = tx;
			p.cq_mod = cq;
			p.rx_depth = rx;
			struct cc_schedule *s = build(&p);
			uint32_t cm = mode == CC_P2P_LAT && !pp ? 1 : (cq < p.tx_depth ? cq : p.tx_depth);
			uint32_t signaled = (n + cm - 1) / cm;
			struct counts c0 = count(&s->ranks[0], cc_p2p_opcode(op, mode));
			struct counts c1 = count(&s->ranks[1], cc_p2p_opcode(op, mode));

			assert_int_equal(s->nranks, 2);
			assert_int_equal(s->params.count, 0); /* no collective to check */
			assert_int_equal(c0.post_send, n);
			assert_int_equal(c0.doorbell, n);
			assert_int_equal(c0.signaled, signaled);
			assert_int_equal(c0.send_poll, signaled);
			/* inline only for lat WRITE / SEND of <= 8 B */
			assert_int_equal(c0.inline_, pp ? n : 0);
			assert_int_equal(c0.post_recv, pp ? n : 0);
			assert_int_equal(c0.recv_poll, pp ? n : 0);
			assert_int_equal(c1.post_send, pp ? n : 0);
			assert_int_equal(c1.signaled, pp ? signaled : 0);
			assert_int_equal(c1.post_recv, two_sided ? n : 0);
			assert_int_equal(c1.recv_poll, two_sided ? n : 0);
			for (uint32_t r = 0; r < 2; r++) {
				const struct cc_rank_sched *rs = &s->ranks[r];
				uint32_t in = CC_ACCESS_LOCAL_WRITE, out = CC_ACCESS_LOCAL_WRITE;

				if (r == 1 && op == CC_P2P_READ)
					in |= CC_ACCESS_REMOTE_READ;
				if (remote_write && (r == 1 || pp))
					out |= CC_ACCESS_REMOTE_WRITE;
				if (r == 1 && cc_p2p_is_atomic(op))
					out |= CC_ACCESS_REMOTE_ATOMIC;
				assert_int_equal(rs->nbufs, 2);
				assert_int_equal(rs->bufs[0].role, CC_BUF_INPUT);
				assert_int_equal(rs->bufs[1].role, CC_BUF_OUTPUT);
				assert_int_equal(rs->bufs[1].size, p.size);
				assert_int_equal(rs->bufs[0].mem, CC_MEM_HOST);
				assert_int_equal(rs->mrs[0].access, in);
				assert_int_equal(rs->mrs[1].access, out);
				assert_int_equal(rs->nqps, 1);
				assert_int_equal(rs->qps[0].peer, 1 - r);
				assert_int_equal(rs->qps[0].max_send_wr, p.tx_depth);
				assert_int_equal(rs->qps[0].max_recv_wr, rx);
				assert_int_equal(rs->cqs[0].depth, p.tx_depth);
			}
			cc_schedule_free(s);
		}
	}
	/* 16 B is beyond the IR's one-word inline: DMA-read like bw */
	struct cc_p2p_params p = params(CC_P2P_WRITE, CC_P2P_LAT, 16, 10);
	struct cc_schedule *s = build(&p);

	assert_int_equal(count(&s->ranks[0], CC_WR_RDMA_WRITE_WITH_IMM).inline_, 0);
	cc_schedule_free(s);
}

/* What rank r's ops guarantee, by their dependencies alone, before each
 * post: send WQEs retired (up to the latest signalled one reaped) and
 * receives reaped.  Every post must find fewer than tx_depth send WQEs
 * (rx receive WQEs) outstanding; returns the most seen before a post. */
static uint32_t max_outstanding(const struct cc_schedule *s, uint32_t r, uint32_t tx,
				uint32_t rx, uint32_t *max_recv)
{
	const struct cc_rank_sched *rs = &s->ranks[r];
	int64_t *sreap = calloc(rs->nops, sizeof(*sreap)), *rreap = calloc(rs->nops, sizeof(*rreap));
	uint32_t *seq = calloc(rs->nops, sizeof(*seq)), nsend = 0, nrecv = 0, most = 0;

	assert_true(sreap && rreap && seq);
	*max_recv = 0;
	for (uint32_t i = 0; i < rs->nops; i++) {
		const struct cc_op *o = &rs->ops[i];
		const uint32_t *d = cc_op_deps(rs, o);

		sreap[i] = rreap[i] = -1;
		for (uint32_t k = 0; k < o->ndeps; k++) {
			if (sreap[d[k]] > sreap[i])
				sreap[i] = sreap[d[k]];
			if (rreap[d[k]] > rreap[i])
				rreap[i] = rreap[d[k]];
		}
		if (o->kind == CC_OP_POST_SEND) {
			uint32_t out = (uint32_t)((int64_t)nsend - (sreap[i] + 1));

			seq[i] = nsend++;
			assert_true(out < tx);
			if (out > most)
				most = out;
		} else if (o->kind == CC_OP_POST_RECV) {
			uint32_t out = (uint32_t)((int64_t)nrecv - (rreap[i] + 1));

			seq[i] = nrecv++;
			assert_true(out < rx);
			if (out > *max_recv)
				*max_recv = out;
		} else if (o->kind == CC_OP_POLL_CQ) {
			const struct cc_op *w = &rs->ops[o->u.poll.wr_id];
			int64_t *reap = w->kind == CC_OP_POST_SEND ? &sreap[i] : &rreap[i];

			if (w->kind == CC_OP_POST_SEND)
				assert_true(w->u.send.flags & CC_SEND_SIGNALED);
			if ((int64_t)seq[o->u.poll.wr_id] > *reap)
				*reap = seq[o->u.poll.wr_id];
		}
	}
	free(sreap);
	free(rreap);
	free(seq);
	return most;
}

static void window_never_exceeded(void **state)
{
	static const uint32_t tx[] = {1, 7, 16, 128}, cq[] = {1, 3, 10, 100};

	(void)state;
	for (size_t k = 0; k < NOPS_ALL; k++)
		for (size_t t = 0; t < 4; t++) {
			struct cc_p2p_params p = params(all_ops[k], CC_P2P_BW, 64, 300);
			uint32_t mr;

			p.tx_depth = tx[t];
			p.cq_mod = cq[t];
			p.rx_depth = 32;
			struct cc_schedule *s = build(&p);

			/* perftest's window is used in full: tx_depth - 1
			 * outstanding when the next is posted */
			assert_int_equal(max_outstanding(s, 0, p.tx_depth, 32, &mr), p.tx_depth - 1);
			max_outstanding(s, 1, p.tx_depth, 32, &mr);
			if (all_ops[k] == CC_P2P_SEND || all_ops[k] == CC_P2P_WRITE_IMM)
				assert_int_equal(mr, 31); /* 32 kept posted */
			cc_schedule_free(s);
		}
	for (size_t k = 0; k < NOPS_ALL; k++) {
		struct cc_p2p_params p = params(all_ops[k], CC_P2P_LAT, 8, 100);
		uint32_t mr;

		p.rx_depth = 8;
		struct cc_schedule *s = build(&p);

		/* lat: one at a time */
		assert_int_equal(max_outstanding(s, 0, 1, 8, &mr), 0);
		max_outstanding(s, 1, 1, 8, &mr);
		cc_schedule_free(s);
	}
}

/* perftest -l N: N WQEs an ibv_post_send, one doorbell for the list, the
 * list posted when it fits the window whole (run_iter_bw: scnt + N <=
 * tx_depth + ccnt), cq_mod dividing it; both ranks with -b.  And
 * perftest's three refusals, and cclab's of a list above tx_depth (which
 * perftest would never post). */
static void post_lists(void **state)
{
	(void)state;
	for (int bidir = 0; bidir < 2; bidir++) {
		struct cc_p2p_params p = params(CC_P2P_WRITE, CC_P2P_BW, 64, 64);
		uint32_t mr;

		p.tx_depth = 16;
		p.post_list = p.cq_mod = 8;
		p.bidir = bidir;
		struct cc_schedule *s = build(&p);

		for (uint32_t r = 0; r < 2; r++) {
			const struct cc_rank_sched *rs = &s->ranks[r];
			uint32_t posts = 0, bells = 0, signaled = 0, since = 0;

			if (r == 1 && !bidir)
				break;
			for (uint32_t i = 0; i < rs->nops; i++) {
				const struct cc_op *o = &rs->ops[i];

				if (o->kind == CC_OP_POST_SEND) {
					posts++;
					since++;
					signaled += !!(o->u.send.flags & CC_SEND_SIGNALED);
				} else if (o->kind == CC_OP_DOORBELL) {
					assert_int_equal(o->u.doorbell.nwqe, 8);
					assert_int_equal(since, 8); /* the list's posts, then it */
					since = 0;
					bells++;
				}
			}
			assert_int_equal(posts, 64);
			assert_int_equal(bells, 8);
			assert_int_equal(signaled, 8); /* each list's last */
			/* the window used in full, never more */
			assert_int_equal(max_outstanding(s, r, p.tx_depth, 512, &mr), 15);
		}
		cc_schedule_free(s);
	}
	struct cc_p2p_params p = params(CC_P2P_WRITE, CC_P2P_BW, 64, 64);

	p.post_list = 8;
	p.cq_mod = 3;
	expect_refused(p, "post list 8: not a multiple of the cq moderation, 3");
	p.cq_mod = 4;
	p.iters = 60;
	expect_refused(p, "iterations 60: not a multiple of the post list, 8");
	p.iters = 64;
	p.tx_depth = 4;
	expect_refused(p, "post list 8: above the tx depth, 4");
	/* shortened runs keep whole lists (validate, calibrate) */
	p = params(CC_P2P_WRITE, CC_P2P_BW, 64, 5120);
	p.post_list = 128;
	assert_int_equal(cc_p2p_iters_at_most(&p, 200), 128);
	assert_int_equal(cc_p2p_iters_at_most(&p, 100), 128);
	assert_int_equal(cc_p2p_iters_at_most(&p, 6000), 5120);
	p.post_list = 1;
	assert_int_equal(cc_p2p_iters_at_most(&p, 200), 200);
	p = params(CC_P2P_READ, CC_P2P_LAT, 64, 64);
	p.post_list = 2;
	expect_refused(p, "only bw tests have it");
	p.post_list = 0;
	expect_refused(p, "post list 0");
}

/* ---- the data executor ---- */

struct words {
	uint64_t target, fetched;
};

static void inspect(void *ctx, uint32_t rank, uint8_t *const *bufs)
{
	struct words *w = ctx;

	if (rank == 1)
		w->target = cc_word_load(bufs[1]);
	else
		w->fetched = cc_word_load(bufs[1]);
}

static void data_executor(void **state)
{
	(void)state;
	for (size_t k = 0; k < NOPS_ALL; k++)
		for (int mode = 0; mode < CC_P2P_MODE_COUNT; mode++)
			for (uint64_t seed = 1; seed <= 3; seed++) {
				enum cc_p2p_op op = all_ops[k];
				struct cc_p2p_params p = params(op, mode, 100, 300);
				bool pp = cc_p2p_is_pingpong(op, mode);
				struct words w = {0};
				struct cc_data_opts o = { .seed = 1, .order_seed = seed,
							  .inspect = inspect, .inspect_ctx = &w };
				struct cc_data_result res;

				p.tx_depth = mode == CC_P2P_BW ? 16 : 1;
				p.cq_mod = 5;
				p.rx_depth = 20;
				struct cc_schedule *s = build(&p);

				assert_int_equal(cc_data_run(s, &o, &res), 0);
				if (res.err.status != CC_RUN_OK)
					fail_msg("%s %s seed %" PRIu64 ": %s", cc_p2p_op_name[op],
						 cc_p2p_mode_name[mode], seed, res.err.msg);
				assert_int_equal(res.wrong, 0);
				for (uint32_t r = 0; r < 2; r++)
					assert_int_equal(res.ops_done[r], s->ranks[r].nops);
				assert_int_equal(res.wire_msgs[0], 300);
				assert_int_equal(res.wire_msgs[1], pp ? 300 : 0);
				assert_int_equal(res.data_bytes[0], 300 * p.size);
				if (cc_p2p_is_atomic(op)) {
					/* +1 each, or i -> i + 1 each: the word counts,
					 * and the last old value came back */
					assert_int_equal(w.target, 300);
					assert_int_equal(w.fetched, 299);
				}
				cc_data_result_free(&res);
				cc_schedule_free(s);
			}
}

/* ---- the simulator ---- */

struct simrun {
	struct cc_sim_result res;
	struct cc_p2p_bw bw;
	struct cc_p2p_lat lat;
	sim_time_ps bound;
};

static struct simrun sim_on(const struct cc_p2p_params *p, const struct sim_params *f,
			    enum sim_topo_kind topo, bool check)
{
	struct cc_trace tr;
	struct cc_p2p_times t;
	struct sim_net net;
	struct simrun out;
	char msg[SIM_NET_ERR_LEN];
	struct cc_schedule *s = build(p);

	sim_net_init(&net, "");
	assert_int_equal(sim_topo_net_make(&net, topo, 2, msg, sizeof(msg)), 0);
	cc_trace_init(&tr);
	struct cc_sim_opts o = { .fabric = f, .net = &net, .seed = 1, .check = check,
				 .trace = &tr, .time_limit_ps = 10 * SIM_PS_PER_S };
	assert_int_equal(cc_sim_run(s, &o, &out.res), 0);
	if (out.res.err.status != CC_RUN_OK)
		fail_msg("%s: %s", cc_p2p_op_name[p->op], out.res.err.msg);
	assert_int_equal(cc_p2p_times_init(&t, p->iters), 0);
	assert_int_equal(cc_p2p_times_from_trace(&t, s, &tr), 0);
	if (p->mode == CC_P2P_BW)
		assert_int_equal(cc_p2p_bw_compute(p, &t, &out.bw), 0);
	else
		assert_int_equal(cc_p2p_lat_compute(p, &t, &out.lat), 0);
	out.bound = sim_bound_ps(s, f, &net);
	/* no run beats the alpha-beta bound */
	assert_true(out.res.time_ps >= out.bound);
	cc_p2p_times_free(&t);
	cc_trace_free(&tr);
	sim_net_free(&net);
	cc_schedule_free(s);
	return out;
}

static struct simrun sim(const struct cc_p2p_params *p, const char *fabric,
			 enum sim_topo_kind topo, bool check)
{
	struct sim_params f;

	assert_int_equal(sim_params_preset(fabric, &f), 0);
	return sim_on(p, &f, topo, check);
}

/* Every op and mode completes on both fabrics, with data carried and
 * checked (nothing to compare: #wrong 0) or not. */
static void sim_every_op(void **state)
{
	static const char *const fabrics[] = {"ideal", "ib-hdr"};

	(void)state;
	for (size_t fi = 0; fi < 2; fi++)
		for (size_t k = 0; k < NOPS_ALL; k++)
			for (int mode = 0; mode < CC_P2P_MODE_COUNT; mode++) {
				struct cc_p2p_params p = params(all_ops[k], mode, 4096, 200);
				struct simrun r = sim(&p, fabrics[fi], SIM_TOPO_STAR, k % 2);

				assert_int_equal(r.res.wrong, 0);
				assert_int_equal(r.res.rank[0].wqes, 200);
				if (mode == CC_P2P_BW)
					assert_true(r.bw.avg_mib_s > 0 && r.bw.peak_mib_s >= r.bw.avg_mib_s);
				else
					assert_true(r.lat.min_ps > 0 && r.lat.max_ps >= r.lat.min_ps);
				cc_sim_result_free(&r.res);
			}
}

/* lat at 8 B on ib-hdr, exact to the picosecond, back to back (ring) and
 * through one switch (star).  Every iteration is alike: min = max. */
static uint64_t lat_delta(enum cc_p2p_op op, enum sim_topo_kind topo)
{
	struct cc_p2p_params p = params(op, CC_P2P_LAT, 8, 20);
	struct simrun r = sim(&p, "ib-hdr", topo, false);

	assert_int_equal(r.lat.min_ps, r.lat.max_ps);
	assert_int_equal(r.lat.rtt_factor, cc_p2p_is_pingpong(op, CC_P2P_LAT) ? 2 : 1);
	cc_sim_result_free(&r.res);
	return r.lat.min_ps;
}

static void sim_lat_closed_forms(void **state)
{
	(void)state;
	for (int topo = 0; topo < 2; topo++) {
		/* one flight of a packet of B bytes: serialization, propagation,
		 * and on the star the switch (store and forward: <= 64 B) */
#define FLIGHT(b) (SER(b) + PROP + (topo == SIM_TOPO_STAR ? FWD + SER(b) + PROP : 0))
		/* ping-pong, one way: post, doorbell (BlueFlame, inline),
		 * requester, the packet, responder, the payload's DMA write (the
		 * receive CQE, CW after acceptance, is visible with it: wr(8) >
		 * CW), the poll; then the answer's post starts */
		uint64_t imm_way = PS + DB + RQ + FLIGHT(54) + RS + WR8 + PC;
		uint64_t send_way = PS + DB + RQ + FLIGHT(34) + RS + WR8 + PC;
		/* READ: request, the responder reads 8 B, response, DMA write,
		 * CQE after it, poll; then the next post */
		uint64_t read = PS + DB + RQ + FLIGHT(42) + RS + RD8 + FLIGHT(38) + RS + WR8 + CW + PC;
		uint64_t atomic = PS + DB + RQ + FLIGHT(54) + RS + AT + FLIGHT(38) + RS + WR8 + CW + PC;

		assert_int_equal(WR8 > CW, 1);
		assert_int_equal(lat_delta(CC_P2P_WRITE_IMM, topo), 2 * imm_way);
		assert_int_equal(lat_delta(CC_P2P_WRITE, topo), 2 * imm_way);
		assert_int_equal(lat_delta(CC_P2P_SEND, topo), 2 * send_way);
		assert_int_equal(lat_delta(CC_P2P_READ, topo), read);
		assert_int_equal(lat_delta(CC_P2P_FETCH_ADD, topo), atomic);
		assert_int_equal(lat_delta(CC_P2P_CMP_SWAP, topo), atomic);
		/* "RDMA READ costs a round trip more than WRITE": perftest's
		 * READ figure (full) exceeds WRITE's (half a ping-pong) by a
		 * second flight and the responder's memory read at least */
		assert_true(read > imm_way + 2 * PROP + RD8);
#undef FLIGHT
	}
	/* ring: 1.756 us READ against 0.878 us one way (perftest units) */
	assert_int_equal(lat_delta(CC_P2P_READ, SIM_TOPO_RING), 1755867);
}

/* Through one switch: IB HDR against RoCEv2 100G, one WRITE_WITH_IMM of 8 B
 * each way, from sim/wire.h's frame sizes (RoCEv2: Ethernet, 802.1Q, IPv4,
 * UDP, preamble and IFG) and each preset's switch latency. */
static uint64_t wire_of(enum sim_link link, enum cc_opcode op, uint32_t len)
{
	struct sim_wire_seg seg;

	assert_int_equal(sim_wire_segment(sim_msg_of_opcode(op), len, 4096, &seg), 0);
	return sim_wire_msg_sum(link, &seg).wire;
}

static void ib_vs_roce_through_a_switch(void **state)
{
	uint64_t half[2];
	static const char *const fabric[2] = {"ib-hdr", "roce-100g"};

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct sim_params f;
		struct cc_p2p_params p = params(CC_P2P_WRITE_IMM, CC_P2P_LAT, 8, 20);

		sim_params_preset(fabric[i], &f);
		uint64_t w = wire_of(f.link.type, CC_WR_RDMA_WRITE_WITH_IMM, 8);
		uint64_t ps_per_byte = 8 * SIM_PS_PER_S / f.link.rate_bps;
		/* cut-through: the second link starts after the first 64 B */
		uint64_t flight = w * ps_per_byte + f.link.prop_delay_ps + f.sw.fwd_latency_ps +
				  (w < 64 ? w : 64) * ps_per_byte + f.link.prop_delay_ps;
		struct simrun r = sim(&p, fabric[i], SIM_TOPO_STAR, false);

		assert_int_equal(r.lat.min_ps, 2 * (PS + DB + RQ + flight + RS + WR8 + PC));
		half[i] = r.lat.min_ps / 2;
		print_message("    %s: write_imm 8 B %.3f us (half round trip)\n", fabric[i],
			      r.lat.typical_us);
		cc_sim_result_free(&r.res);
	}
	assert_int_equal(half[0], 1035336);
	assert_int_equal(half[1], 1215256);
}

/* bw of large messages: the wire's rate times payload / wire bytes.  On
 * `ideal` only the wire costs time, exactly.  On ib-hdr the run takes the
 * wire time of every message, plus at most one message's start-up and
 * completion (post, doorbell, PCIe read, flight, ACK, CQE, poll: < 5 us);
 * the window (128 PSNs, 16 READs) never lets the link idle in between. */
static void sim_bw_is_wire_bound(void **state)
{
	(void)state;
	{
		struct cc_p2p_params p = params(CC_P2P_WRITE, CC_P2P_BW, 1 << 20, 100);
		struct simrun r = sim(&p, "ideal", SIM_TOPO_RING, false);
		/* 256 packets: FIRST 4096 + 42 B, then 26 B of headers each;
		 * 80 ps a byte at 100 Gb/s; the last packet's ACK (30 B) ends it */
		uint64_t wire = 4138 + 255 * 4122;
		uint64_t want = 100 * wire * 80 + 30 * 80;

		assert_int_equal(wire, wire_of(SIM_LINK_IB, CC_WR_RDMA_WRITE, 1 << 20));
		assert_int_equal(r.bw.time_ps, want);
		assert_true(fabs(r.bw.avg_mib_s - 100.0 * (1 << 20) / (want * 1e-12) / 1048576) < 1e-6);
		cc_sim_result_free(&r.res);
	}
	static const struct { enum cc_p2p_op op; uint32_t size; } c[] = {
		{CC_P2P_WRITE, 65536}, {CC_P2P_WRITE, 1 << 20}, {CC_P2P_SEND, 1 << 20},
		{CC_P2P_WRITE_IMM, 65536}, {CC_P2P_READ, 65536},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint32_t n = c[i].size > 65536 ? 100 : 400;
		struct cc_p2p_params p = params(c[i].op, CC_P2P_BW, c[i].size, n);
		enum cc_opcode oc = cc_p2p_opcode(c[i].op, CC_P2P_BW);
		uint64_t wire_ps = n * SER(wire_of(SIM_LINK_IB, oc, c[i].size));
		double bound = 200e9 / 8 * c[i].size / (double)wire_of(SIM_LINK_IB, oc, c[i].size) /
			       1048576;
		struct simrun r = sim(&p, "ib-hdr", SIM_TOPO_STAR, false);

		print_message("    %s %u B: %.2f MB/sec (%.3f %% below the wire's %.2f)\n",
			      cc_p2p_op_name[c[i].op], c[i].size, r.bw.avg_mib_s,
			      100 * (1 - r.bw.avg_mib_s / bound), bound);
		assert_true(r.bw.time_ps > wire_ps);
		assert_true(r.bw.time_ps < wire_ps + 5000 * NS);
		/* the queue never runs dry: no stretch of WQEs beats the whole */
		assert_true(r.bw.peak_mib_s >= r.bw.avg_mib_s);
		assert_true(r.bw.peak_mib_s < bound);
		cc_sim_result_free(&r.res);
	}
}

/* Bidirectional bw (perftest -b): both ranks are requesters (and, for
 * send and write_imm, receivers) on the one QP pair.  The data executor
 * runs every op both ways; on `ideal` back to back (a link each way) a
 * 1 MiB WRITE stream each way takes what one way takes, but for the
 * other side's ACKs between its packets (30 B a packet), and the
 * report is the two sides' sum (print_full_bw_report). */
static void sim_bidirectional(void **state)
{
	(void)state;
	for (size_t k = 0; k < NOPS_ALL; k++) {
		struct cc_p2p_params p = params(all_ops[k], CC_P2P_BW, 100, 300);
		struct cc_data_opts o = { .seed = 1, .order_seed = k + 1 };
		struct cc_data_result res;
		struct cc_schedule *s;

		p.bidir = true;
		p.tx_depth = 16;
		p.cq_mod = 5;
		p.rx_depth = 20;
		s = build(&p);
		assert_int_equal(cc_data_run(s, &o, &res), 0);
		if (res.err.status != CC_RUN_OK)
			fail_msg("%s -b: %s", cc_p2p_op_name[all_ops[k]], res.err.msg);
		for (uint32_t r = 0; r < 2; r++) {
			assert_int_equal(res.ops_done[r], s->ranks[r].nops);
			assert_int_equal(res.wire_msgs[r], 300);
		}
		cc_data_result_free(&res);
		cc_schedule_free(s);
	}
	struct cc_p2p_params p = params(CC_P2P_WRITE, CC_P2P_BW, 1 << 20, 100);
	struct simrun one = sim(&p, "ideal", SIM_TOPO_RING, false);
	struct sim_params f;
	struct sim_net net;
	struct cc_trace tr;
	struct cc_sim_result res;
	struct cc_p2p_bw side[2], sum = {0};
	char msg[SIM_NET_ERR_LEN];
	struct cc_schedule *s;

	p.bidir = true;
	s = build(&p);
	assert_int_equal(sim_params_preset("ideal", &f), 0);
	sim_net_init(&net, "");
	assert_int_equal(sim_topo_net_make(&net, SIM_TOPO_RING, 2, msg, sizeof(msg)), 0);
	cc_trace_init(&tr);
	struct cc_sim_opts so = { .fabric = &f, .net = &net, .seed = 1, .trace = &tr,
				  .time_limit_ps = 10 * SIM_PS_PER_S };
	assert_int_equal(cc_sim_run(s, &so, &res), 0);
	assert_int_equal(res.err.status, CC_RUN_OK);
	for (uint32_t c = 0; c < 2; c++) {
		struct cc_p2p_times t;

		assert_int_equal(cc_p2p_times_init(&t, p.iters), 0);
		t.client = c;
		assert_int_equal(cc_p2p_times_from_trace(&t, s, &tr), 0);
		assert_int_equal(cc_p2p_bw_compute(&p, &t, &side[c]), 0);
		cc_p2p_bw_add(&sum, &side[c]);
		cc_p2p_times_free(&t);
		/* the other way's ACKs, one a packet (256 a message), 30 B each
		 * at 80 ps a byte, between this side's packets: all but the
		 * last, which follows this side's last packet */
		assert_int_equal(side[c].time_ps, one.bw.time_ps + (100 * 256 - 1) * 30 * 80);
	}
	assert_true(side[0].time_ps == side[1].time_ps); /* symmetric */
	assert_true(fabs(sum.avg_mib_s - 2 * side[0].avg_mib_s) < 1e-9 * sum.avg_mib_s);
	assert_true(sum.msg_rate_mpps == side[0].msg_rate_mpps + side[1].msg_rate_mpps);
	assert_true(sum.time_ps == side[0].time_ps);
	cc_sim_result_free(&res);
	cc_sim_result_free(&one.res);
	cc_trace_free(&tr);
	sim_net_free(&net);
	cc_schedule_free(s);
	/* lat has no -b */
	p = params(CC_P2P_WRITE, CC_P2P_LAT, 8, 10);
	p.bidir = true;
	expect_refused(p, "only bw tests have it");
}

/* Line rate needs the payload reads of a PCIe round trip in flight: each
 * packet's payload is read on its own (sim/pcie.h), so at 400 Gb/s with a
 * 1 KiB MTU (21 ns a packet against a ~0.55 us read) or at a calibrated
 * 500 ns PCIe latency a NIC that kept 8 packets ahead sent 126 and 245
 * Gb/s.  The depth follows the round trip (sx_port_prefetch), so the run
 * stays within one message's start-up of the wire's time, as on ib-hdr. */
static void sim_bw_prefetch_covers_pcie(void **state)
{
	static const struct { const char *preset; uint32_t mtu; sim_time_ps pcie_ps; } c[] = {
		{"roce-400g", 1024, 0}, {"roce-400g", 2048, 0}, {"ib-ndr", 4096, 500 * NS},
		{"ib-ndr", 1024, 1000 * NS},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct cc_p2p_params p = params(CC_P2P_WRITE, CC_P2P_BW, 1 << 20, 50);
		struct sim_params f;
		struct sim_wire_seg seg;

		assert_int_equal(sim_params_preset(c[i].preset, &f), 0);
		f.link.mtu_bytes = c[i].mtu;
		if (c[i].pcie_ps)
			f.pcie.latency_ps = c[i].pcie_ps;
		/* the PSN window out of the way: 128 packets of 1 KiB do not
		 * cover the ACK's round trip at 400 Gb/s (the preset's rxe value) */
		f.rnic.max_outstanding_pkts = UINT32_C(1) << 23;
		assert_int_equal(sim_wire_segment(sim_msg_of_opcode(CC_WR_RDMA_WRITE), 1 << 20,
						  c[i].mtu, &seg), 0);
		uint64_t wire_ps = 50 * sim_serialize_ps(sim_wire_msg_sum(f.link.type, &seg).wire,
							  f.link.rate_bps);
		struct simrun r = sim_on(&p, &f, SIM_TOPO_STAR, false);

		print_message("    %s, MTU %u, PCIe %llu ps: %.2f MB/sec, %.3f %% above the wire\n",
			      c[i].preset, c[i].mtu, (unsigned long long)f.pcie.latency_ps,
			      r.bw.avg_mib_s, 100.0 * ((double)r.bw.time_ps / wire_ps - 1));
		assert_true(r.bw.time_ps > wire_ps);
		assert_true(r.bw.time_ps < wire_ps + 5000 * NS);
		cc_sim_result_free(&r.res);
	}
}

/* IB credits over a long cable (IBA 7.9): the switch gives the sender's
 * input a share of its buffer (buffer / 2 ports), in whole 64-byte
 * blocks; a frame takes its bytes rounded up to blocks, from its first
 * bit until its last bit has left the switch and the flow-control packet
 * has flown back: a loop of s + 2 p + fwd for s the frame's serialization,
 * p the cable's propagation, fwd the switch's latency.  With room for n
 * frames and n s below the loop, the sender moves n frames per loop:
 *   time ~ (frames / n) (s + 2 p + fwd).
 * 1 km (5 us) and 16 frames of room, counted in blocks: 51 Gb/s of
 * payload over a 200 Gb/s link.  A share of 16 frames in bytes (4122 B
 * each, not a whole number of blocks) holds only 15 once both are
 * rounded: 15 frames a loop. */
static void sim_bw_credit_loop(void **state)
{
	const uint32_t msgs = 50;
	const sim_time_ps prop = 5000 * NS;
	struct sim_params f;
	struct sim_wire_seg seg;
	uint32_t payload;

	(void)state;
	assert_int_equal(sim_params_preset("ib-hdr", &f), 0);
	assert_int_equal(sim_wire_segment(sim_msg_of_opcode(CC_WR_RDMA_WRITE), 1 << 20,
					  f.link.mtu_bytes, &seg), 0);
	/* a middle packet: every packet but the first has its size */
	enum sim_bth_op op = sim_wire_seg_pkt(&seg, 1, &payload);
	uint32_t frame = sim_wire_frame_bytes(f.link.type, op, payload);
	uint64_t credit = (frame + 63) / 64 * 64;
	sim_time_ps ser = sim_serialize_ps(sim_wire_bytes(f.link.type, op, payload),
					   f.link.rate_bps);
	double loop = (double)(ser + 2 * prop + f.sw.fwd_latency_ps);
	const struct { uint64_t share; uint32_t frames; } c[] = {
		{ 16 * credit, 16 }, { 16 * (uint64_t)frame, 15 },
	};

	assert_true(frame % 64 != 0);
	f.link.prop_delay_ps = prop;
	f.rnic.max_outstanding_pkts = UINT32_C(1) << 23; /* the PSN window out of the way */
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct cc_p2p_params p = params(CC_P2P_WRITE, CC_P2P_BW, 1 << 20, msgs);

		f.sw.buffer_bytes = 2 * c[i].share;
		double want = (double)seg.npkts * msgs / c[i].frames * loop;
		struct simrun r = sim_on(&p, &f, SIM_TOPO_STAR, false);

		print_message("    1 km, a share of %llu B (%u frames): %.2f MB/sec, %.3f %% from "
			      "the closed form %.1f us\n", (unsigned long long)c[i].share,
			      c[i].frames, r.bw.avg_mib_s,
			      100.0 * ((double)r.bw.time_ps / want - 1), want / 1e6);
		assert_true(fabs((double)r.bw.time_ps / want - 1) < 0.01);
		cc_sim_result_free(&r.res);
	}
}

/* Small messages: rank 0's CPU posts one WQE per post_send_ps (100 ns),
 * so every op but the atomics peaks at ~10 Mpps.  Atomics go one at a
 * time through the responder's read-modify-write (rnic.atomic_ps, 546 ns
 * on ib-hdr: sim/rnic_resp.c), so they run at 1 / atomic_ps = 1.83 Mpps,
 * five times slower — the claim of the seed articles (docs/seed-claims.md). */
static void sim_small_message_rate(void **state)
{
	double rate[NOPS_ALL];

	(void)state;
	for (size_t k = 0; k < NOPS_ALL; k++) {
		struct cc_p2p_params p = params(all_ops[k], CC_P2P_BW, 8, 2000);
		struct simrun r = sim(&p, "ib-hdr", SIM_TOPO_STAR, false);
		bool atomic = all_ops[k] == CC_P2P_FETCH_ADD || all_ops[k] == CC_P2P_CMP_SWAP;
		double cap = atomic ? 1e6 / (546 * NS) : 1e6 / PS; /* Mpps: the RMW unit, or the CPU */

		rate[k] = r.bw.msg_rate_mpps;
		print_message("    %s 8 B: %.4f Mpps\n", cc_p2p_op_name[all_ops[k]], rate[k]);
		assert_true(rate[k] < cap);
		assert_true(rate[k] > 0.98 * cap);
		assert_true(fabs(r.bw.avg_mib_s - rate[k] * 1e6 * 8 / 1048576) < 1e-6);
		cc_sim_result_free(&r.res);
	}
}

/* ---- perftest's arithmetic on made-up stamps ---- */

static void report_arithmetic(void **state)
{
	struct cc_p2p_params p = params(CC_P2P_WRITE, CC_P2P_BW, 1000, 4);
	struct cc_p2p_times t;
	struct cc_p2p_bw bw;
	struct cc_p2p_lat lat;

	(void)state;
	assert_int_equal(cc_p2p_times_init(&t, 4), 0);
	/* posts at 0, 1, 2, 10 us; completions of WQE 1 (cq_mod 2) at 4 us
	 * and of the last at 20 us */
	t.posted[0] = 0;
	t.posted[1] = 1000000;
	t.posted[2] = 2000000;
	t.posted[3] = 10000000;
	t.completed[1] = 4000000;
	t.completed[3] = 20000000;
	assert_int_equal(cc_p2p_bw_compute(&p, &t, &bw), 0);
	assert_int_equal(bw.time_ps, 20000000);
	/* 4000 B in 20 us = 200 MB/s (10^6) = 190.73 MB/sec (2^20) */
	assert_true(fabs(bw.avg_mib_s - 4000 / 20e-6 / 1048576) < 1e-9);
	assert_true(fabs(bw.msg_rate_mpps - 0.2) < 1e-12);
	/* best stretch: WQEs 0..1 in 4 us = 500 MB/s (10^6) */
	assert_true(fabs(bw.peak_mib_s - 2000 / 4e-6 / 1048576) < 1e-9);

	/* lat: deltas 1, 1, 8 us: median 1, mean 10/3, max 8; halved for a
	 * ping-pong, whole for READ */
	p = params(CC_P2P_WRITE, CC_P2P_LAT, 2, 4);
	assert_int_equal(cc_p2p_lat_compute(&p, &t, &lat), 0);
	assert_int_equal(lat.samples, 3);
	assert_int_equal(lat.rtt_factor, 2);
	assert_true(fabs(lat.min_us - 0.5) < 1e-12 && fabs(lat.max_us - 4) < 1e-12);
	assert_true(fabs(lat.typical_us - 0.5) < 1e-12);
	assert_true(fabs(lat.avg_us - 10.0 / 6) < 1e-12);
	p = params(CC_P2P_READ, CC_P2P_LAT, 2, 4);
	assert_int_equal(cc_p2p_lat_compute(&p, &t, &lat), 0);
	assert_true(fabs(lat.typical_us - 1) < 1e-12 && fabs(lat.avg_us - 10.0 / 3) < 1e-12);
	/* an even count: perftest's get_median() averages the middle two */
	t.iters = 3;
	assert_int_equal(cc_p2p_lat_compute(&p, &t, &lat), 0);
	assert_true(fabs(lat.typical_us - 1) < 1e-12);
	t.posted[2] = 4000000;
	assert_int_equal(cc_p2p_lat_compute(&p, &t, &lat), 0);
	assert_true(fabs(lat.typical_us - 2) < 1e-12);
	/* a missing completion: no bw */
	t.iters = 4;
	t.completed[3] = CC_P2P_NO_TIME;
	assert_int_equal(cc_p2p_bw_compute(&p, &t, &bw), -EINVAL);
	cc_p2p_times_free(&t);
}

/* ---- the command line ---- */

static int cli_setup(void **state)
{
	(void)state;
	return run_cclab_begin("p2p");
}

static int cli_teardown(void **state)
{
	(void)state;
	return run_cclab_end();
}

static void need_binary(void)
{
	if (!cclab || !*cclab) {
		print_message("CCLAB is not set (tests/run.sh sets it); skipping\n");
		skip();
	}
	assert_int_equal(access(cclab, X_OK), 0);
}

static void cli_runs(void **state)
{
	char json[128], trace[128];

	(void)state;
	need_binary();
	struct run r = run_cclab("p2p --op read --mode lat -s 8 -n 20 --topology ring");

	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "as ib_read_lat"));
	assert_non_null(strstr(r.out, " #bytes #iterations    t_min[usec]"));
	/* 1.755867 us, every iteration alike */
	assert_non_null(strstr(r.out, " 8       20          1.76           1.76         1.76"));
	/* closed as a collective's table is, for scripts that look for it */
	assert_non_null(strstr(r.out, "-----\n# Out of bounds values : 0 OK\n"));
	run_free(&r);

	/* perftest -a: 2 B .. 8 MiB, 23 sizes; atomics have one */
	r = run_cclab("p2p --op send --mode lat -a -n 2 --fabric ideal");
	assert_int_equal(r.status, 0);
	assert_int_equal(count_substr(r.out, "\n 8388608 "), 1);
	assert_int_equal(count_lines_starting(r.out, " "), 24); /* header + 23 rows */
	run_free(&r);
	r = run_cclab("p2p --op cmp_swap -a -n 50");
	assert_int_equal(r.status, 0);
	assert_int_equal(count_lines_starting(r.out, " "), 2);
	assert_non_null(strstr(r.out, "BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]"));
	run_free(&r);

	/* JSON and trace, atomically written; the same run twice, the same file */
	snprintf(json, sizeof(json), "%s/r.json", tmpdir);
	snprintf(trace, sizeof(trace), "%s/t.json", tmpdir);
	r = run_cclab("p2p --op write -s 64K -n 100 --fabric roce-100g --json '%s' --trace '%s'",
		      json, trace);
	assert_int_equal(r.status, 0);
	run_free(&r);
	char *j1 = slurp(json, NULL), *t1 = slurp(trace, NULL);

	assert_non_null(j1);
	assert_non_null(t1);
	assert_non_null(strstr(j1, "\"perftest\": \"ib_write_bw\""));
	assert_non_null(strstr(j1, "\"mb_bytes\": 1048576"));
	char want[64];

	snprintf(want, sizeof(want), "\"link.type\": \"%s\"", sim_link_info[SIM_LINK_ROCEV2_IPV4].name);
	assert_non_null(strstr(j1, want));
	assert_non_null(strstr(j1, "\"bw_average_mb_s\""));
	assert_non_null(strstr(j1, "\"ok\": true"));
	assert_non_null(strstr(t1, "\"traceEvents\""));
	r = run_cclab("p2p --op write -s 64K -n 100 --fabric roce-100g --json '%s'", json);
	assert_int_equal(r.status, 0);
	run_free(&r);
	char *j2 = slurp(json, NULL);

	assert_string_equal(j1, j2);
	free(j1);
	free(j2);
	free(t1);

	/* --csv: one line per size, the other mode's columns empty */
	snprintf(json, sizeof(json), "%s/r.csv", tmpdir);
	r = run_cclab("p2p --op write --mode lat -s 8 -n 10 --fabric ib-hdr --csv '%s'", json);
	assert_int_equal(r.status, 0);
	run_free(&r);
	j1 = slurp(json, NULL);
	assert_non_null(j1);
	assert_non_null(strstr(j1, "\n,sim,ib-hdr,star,write,lat,8,10,,,,1.03"));
	assert_int_equal(count_substr(j1, "\n"), 2);
	free(j1);

	r = run_cclab("help p2p");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "Usage: cclab p2p --op OP"));
	run_free(&r);
	r = run_cclab("help");
	assert_non_null(strstr(r.out, "  p2p "));
	run_free(&r);
}

static void cli_bad_options(void **state)
{
	static const struct {
		const char *args, *msg;
	} cases[] = {
		{"p2p", "missing --op (write, write_imm, send, read, fetch_add or cmp_swap)"},
		{"p2p --op atomic", "invalid value 'atomic' for --op"},
		{"p2p --op write --mode latency", "invalid value 'latency' for --mode: bw or lat"},
		{"p2p --op write -s 0", "invalid value '0' for -s"},
		{"p2p --op write --size 1x", "invalid value '1x' for --size"},
		{"p2p --op fetch_add -s 16", "-s/--size: size 16: fetch_add is a 64-bit atomic"},
		{"p2p --op write -s 3G", "above 2 GiB"},
		{"p2p --op write -s 8 -a", "-s/--size and -a/--all exclude each other"},
		{"p2p --op write --mode lat -n 1", "-n/--iters: iterations 1: lat needs at least 2"},
		{"p2p --op write -n 0", "invalid value '0' for -n"},
		{"p2p --op write --iters 100001", "invalid value '100001' for --iters: too large: at most 100000"},
		{"p2p --op write --tx-depth 0", "invalid value '0' for --tx-depth"},
		{"p2p --op write -Q x", "invalid value 'x' for -Q"},
		{"p2p --op write --fabric ib-qdr", "invalid value 'ib-qdr' for --fabric"},
		{"p2p --op write --topology mesh", "invalid value 'mesh' for --topology"},
		{"p2p --op write --topology railopt", "--topology railopt: the two ranks of cclab "
		 "p2p are no nodes"},
		{"p2p --op write --mem nvme", "invalid value 'nvme' for --mem: host or gpu"},
		{"p2p --op read --mode lat --bidirectional", "--bidirectional: only bw tests"},
		{"p2p --op write --json ''", "for --json: expected a file name"},
		{"p2p --op write --json a --trace a", "--json and --trace name the same file"},
		{"p2p --op write --json a --csv a", "--csv and --json name the same file"},
		{"p2p --op write --frobnicate", "unknown or ambiguous option '--frobnicate'"},
		{"p2p --op write -z", "unknown option '-z'"},
		{"p2p --op write -s", "option '-s' needs a value"},
		{"p2p --op write extra", "unexpected argument 'extra'"},
	};

	(void)state;
	need_binary();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run r = run_cclab("%s", cases[i].args);

		if (r.status != 2 || !strstr(r.err, cases[i].msg))
			fail_msg("'%s': status %d, stderr '%s', want 2 and '%s'", cases[i].args,
				 r.status, r.err, cases[i].msg);
		assert_non_null(strstr(r.err, "Try 'cclab p2p --help'."));
		assert_string_equal(r.out, "");
		run_free(&r);
	}
	/* an unwritable report: exit 1 before any run */
	struct run r = run_cclab("p2p --op write --json /nonexistent/dir/r.json");

	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "cannot write '/nonexistent/dir/r.json'"));
	assert_string_equal(r.out, "");
	run_free(&r);
}

/* --wall-limit, as `cclab sim`'s: a 2 GiB READ 5000 times (hours of real
 * time to simulate) stops after 1 s, by itself and as a scenario under
 * `cclab run`, its row failed with status time_limit — not "deadlock" —
 * in the error line, the JSON and the CSV; exit 1.  Asserted under 5 s
 * (two busy cores). */
static void cli_wall_limit(void **state)
{
	char json[128], csv[128], sc[128];
	double t0, took;

	(void)state;
	need_binary();
	snprintf(json, sizeof(json), "%s/wl.json", tmpdir);
	snprintf(csv, sizeof(csv), "%s/wl.csv", tmpdir);
	t0 = monotonic_s();
	struct run r = run_cclab("p2p --op read -s 2G --wall-limit 1 --json '%s' --csv '%s'", json,
				 csv);
	took = monotonic_s() - t0;
	print_message("p2p --op read -s 2G --wall-limit 1: %.2f s\n", took);
	assert_int_equal(r.status, 1);
	assert_true(took < 5);
	assert_non_null(strstr(r.out, " 2147483648    5000             N/A"));
	assert_non_null(strstr(r.err, "cclab p2p: 2147483648 bytes: time_limit: "));
	assert_non_null(strstr(r.err, "time limit reached: the wall-clock limit (1000 ms) "
				      "stopped the run"));
	assert_null(strstr(r.err, "deadlock"));
	run_free(&r);
	char *j = slurp(json, NULL), *c = slurp(csv, NULL);

	assert_non_null(j);
	assert_non_null(c);
	assert_non_null(strstr(j, "\"status\": \"time_limit\""));
	assert_non_null(strstr(c, ",time_limit\n"));
	free(j);
	free(c);

	/* the same test as a scenario: `cclab run`'s --wall-limit holds */
	snprintf(sc, sizeof(sc), "%s/read2g.yaml", tmpdir);
	FILE *f = fopen(sc, "w");

	assert_non_null(f);
	fputs("topology: {generator: star, ranks: 2}\nfabric: {preset: roce-100g}\n"
	      "p2p: {op: read}\nsizes: 2GiB\n", f);
	assert_int_equal(fclose(f), 0);
	t0 = monotonic_s();
	r = run_cclab("run '%s' --wall-limit 1", sc);
	took = monotonic_s() - t0;
	print_message("run (p2p scenario) --wall-limit 1: %.2f s\n", took);
	assert_int_equal(r.status, 1);
	assert_true(took < 5);
	assert_non_null(strstr(r.err, "cclab run: 2147483648 bytes: time_limit: "));
	assert_non_null(strstr(r.err, "the wall-clock limit (1000 ms) stopped the run"));
	run_free(&r);

	/* the limit's value, and the simulator's option only */
	r = run_cclab("p2p --op write --wall-limit 0");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "invalid value '0' for --wall-limit: expected the "
				      "wall-clock seconds a simulation may take, 1 to 18446744"));
	run_free(&r);
	r = run_cclab("p2p --op write --device mlx5_0 --wall-limit 5");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--wall-limit applies to the simulator, not to a run with "
				      "--device"));
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_and_defaults),
		cmocka_unit_test(bad_parameters),
		cmocka_unit_test(structure),
		cmocka_unit_test(window_never_exceeded),
		cmocka_unit_test(post_lists),
		cmocka_unit_test(data_executor),
		cmocka_unit_test(sim_every_op),
		cmocka_unit_test(sim_lat_closed_forms),
		cmocka_unit_test(ib_vs_roce_through_a_switch),
		cmocka_unit_test(sim_bw_is_wire_bound),
		cmocka_unit_test(sim_bidirectional),
		cmocka_unit_test(sim_bw_prefetch_covers_pcie),
		cmocka_unit_test(sim_bw_credit_loop),
		cmocka_unit_test(sim_small_message_rate),
		cmocka_unit_test(report_arithmetic),
		cmocka_unit_test(cli_runs),
		cmocka_unit_test(cli_bad_options),
		cmocka_unit_test(cli_wall_limit),
	};

	return cmocka_run_group_tests(tests, cli_setup, cli_teardown);
}
