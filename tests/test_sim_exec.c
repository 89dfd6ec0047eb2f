/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_sim_exec.c — the simulator executor (sim/exec.c, sim/rnic*.c)
 * end to end: single verbs operations against their closed forms, exact to
 * the picosecond; RNR NAK and retry; errors as completion statuses; ring
 * collectives against the alpha-beta bound, byte counts and determinism.
 *
 * Parameters: the ib-hdr preset (every latency non-zero, so every term of
 * a formula shows).  Notation, all in ps:
 *   ser(B)   B wire bytes at 200 Gb/s = 40 B ps (exact)
 *   p        link propagation, 25 ns;  f: switch forwarding, 130 ns
 *   PS PR PC post_send 100 ns, post_recv 50 ns, poll_cq 50 ns (CPU)
 *   DB RQ RS doorbell 250 ns, requester 100 ns, responder 100 ns (NIC)
 *   CW       CQE write 250 ns
 *   rd(B)    PCIe DMA read of B <= 4096 bytes on an idle link:
 *            pser(24) + L + sum of pser(c + 20) over its 256 B completions + L
 *   wr(B)    PCIe DMA write: sum of pser(m + 24) over its 256 B TLPs + L
 *   pser(B)  ceil(B * 8e12 / 252061538461) (Gen4 x16), L = 250 ns
 * IB wire sizes (LRH 8, BTH 12, RETH 16, AETH 4, ImmDt 4, ICRC 4, VCRC 2):
 *   WRITE_ONLY 4096 B: 4138;  SEND_ONLY 4096 B: 4122;  ACK: 30;
 *   READ_REQUEST: 42;  READ_RESP_ONLY 4096 B: 4126;  WRITE_ONLY 8 B: 50.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/algo.h"
#include "core/gen.h"
#include "sim/bound.h"
#include "sim/exec.h"
#include "sim/wire.h"
#include "tests/run_status.h"
#include "tests/sim_sched.h"

#define NS 1000ull
#define US 1000000ull
#define SER(b) ((uint64_t)(b) * 40u)
#define PROP (25 * NS)
#define FWD (130 * NS)
#define PS (100 * NS)
#define PR (50 * NS)
#define PC (50 * NS)
#define DB (250 * NS)
#define RQ (100 * NS)
#define RS (100 * NS)
#define CW (250 * NS)
#define L (250 * NS)

static uint64_t pser(uint64_t b)
{
	unsigned __int128 num = (unsigned __int128)b * 8u * 1000000000000ull;
	return (uint64_t)((num + 252061538461ull - 1) / 252061538461ull);
}

static uint64_t rd(uint64_t b)
{
	uint64_t t = pser(24) + L + L;
	for (uint64_t off = 0; off < b; off += 256)
		t += pser((b - off < 256 ? b - off : 256) + 20);
	return t;
}

static uint64_t wr(uint64_t b)
{
	uint64_t t = L;
	for (uint64_t off = 0; off < b; off += 256)
		t += pser((b - off < 256 ? b - off : 256) + 24);
	return t;
}

/* ---- hand-built schedules: two ranks, nqp QP pairs ---- */

enum { BUF_DATA, BUF_FLAG };
enum { MR_DATA, MR_FLAG };

/* Runs s on ib-hdr over `net`, or the `topo` network when net is NULL. */
static struct cc_sim_result run_on(const struct cc_schedule *s, enum sim_topo_kind topo,
				   const struct sim_net *net, const struct cc_fault *faults,
				   uint32_t nfaults)
{
	struct sim_params f;
	struct cc_sim_result res;
	char err[200];

	assert_int_equal(cc_schedule_validate(s, err, sizeof(err)), 0);
	assert_int_equal(sim_params_preset("ib-hdr", &f), 0);
	struct cc_sim_opts o = { .fabric = &f, .topo = topo, .net = net, .seed = 1,
				 .check = true, .faults = faults, .nfaults = nfaults,
				 .time_limit_ps = 10 * 1000 * US };
	assert_int_equal(cc_sim_run(s, &o, &res), 0);
	if (res.err.status != CC_RUN_OK)
		print_message("    -> %s\n", res.err.msg);
	return res;
}

static struct cc_sim_result run(const struct cc_schedule *s, enum sim_topo_kind topo,
				const struct cc_fault *faults, uint32_t nfaults)
{
	return run_on(s, topo, NULL, faults, nfaults);
}

static struct cc_op_send write4k(uint32_t flags)
{
	return (struct cc_op_send){ .wr_id = 7, .opcode = CC_WR_RDMA_WRITE, .flags = flags,
				    .num_sge = 1, .sge = { MR_DATA, 0, 4096 },
				    .remote_mr = MR_DATA };
}

/* One signaled 4 KiB RDMA WRITE, rank 0 to rank 1, one packet. */
static void write_one_packet(void **state)
{
	(void)state;
	for (int topo = 0; topo < 2; topo++) {
		struct cc_schedule *s = two_rank_sched(1, 4096, 7);
		poll_op(s, 0, 7, send_op(s, 0, 0, write4k(CC_SEND_SIGNALED), UINT32_MAX));
		struct cc_sim_result res = run(s, topo, NULL, 0);
		/* post, doorbell, BlueFlame, payload read; the packet; the
		 * responder; its ACK back; the completer; CQE; poll.  Over the
		 * star the data cuts through (its 64 B header, second link), the
		 * 30 B ACK is stored and forwarded whole. */
		uint64_t data = topo == SIM_TOPO_RING ? SER(4138) + PROP
						      : SER(4138) + SER(64) + 2 * PROP + FWD;
		uint64_t ack = topo == SIM_TOPO_RING ? SER(30) + PROP : 2 * SER(30) + 2 * PROP + FWD;
		uint64_t want = PS + DB + RQ + rd(4096) + data + RS + ack + RS + CW + PC;

		assert_run_status(res.err, CC_RUN_OK);
		assert_int_equal(res.time_ps, want);
		assert_int_equal(res.rank[0].done_ps, want);
		assert_int_equal(res.rank[0].wire_bytes, 4138);
		assert_int_equal(res.rank[1].wire_bytes, 30);
		assert_int_equal(res.rank[1].acks, 1);
		assert_int_equal(res.rank[0].data_bytes, 4096);
		cc_sim_result_free(&res);
		cc_schedule_free(s);
	}
}

/* A 4 KiB x 3 + 100 B WRITE: four packets whose payload reads overlap
 * the wire; the PCIe completions (16 x pser(276) = 140 ns per 4 KiB) keep
 * ahead of the link (165.5 ns), so after the first read the link never
 * waits, and one ACK answers the last packet. */
static void write_four_packets(void **state)
{
	(void)state;
	uint32_t len = 3 * 4096 + 100;
	struct cc_schedule *s = two_rank_sched(1, len, 7);
	struct cc_op_send o = write4k(CC_SEND_SIGNALED);

	o.sge.length = len;
	poll_op(s, 0, 7, send_op(s, 0, 0, o, UINT32_MAX));
	struct cc_sim_result res = run(s, SIM_TOPO_RING, NULL, 0);
	/* LAST with 100 B: 8 + 12 + 100 + 4 + 2 = 126 */
	uint64_t want = PS + DB + RQ + rd(4096) + 3 * SER(4138 - 16 + 16) + SER(126) + PROP + RS +
			SER(30) + PROP + RS + CW + PC;

	/* FIRST and MIDDLE carry no RETH after the first: 4138 and 4122 */
	want -= 2 * SER(16);
	assert_run_status(res.err, CC_RUN_OK);
	assert_int_equal(res.time_ps, want);
	assert_int_equal(res.rank[0].wire_pkts, 4);
	assert_int_equal(res.rank[0].wire_bytes, 4138 + 2 * 4122 + 126);
	assert_int_equal(res.rank[1].acks, 1);
	cc_sim_result_free(&res);
	cc_schedule_free(s);
}

/* A READ's data lands after a full round trip (request out, response
 * back), a WRITE's after one way: rank 1 sees an 8-byte inline WRITE in
 * its flag word one way after rank 0 posted it, while rank 0's READ of
 * 4 KiB needs the request, the responder's read, the response and its
 * own DMA write. */
/* IBV_SEND_INLINE carries an outgoing payload in the WQE: on a READ or an
 * atomic, which bring data back to their SGE, it is refused by the
 * schedule's validation (the executors would look for a local buffer the
 * WQE does not have). */
static void inline_read_refused(void **state)
{
	static const enum cc_opcode ops[] = { CC_WR_RDMA_READ, CC_WR_ATOMIC_FETCH_ADD,
					      CC_WR_ATOMIC_CMP_SWP };
	char err[200];

	(void)state;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct cc_schedule *s = two_rank_sched(1, 4096, 7);
		struct cc_op_send o = { .wr_id = 9, .opcode = ops[i],
					.flags = CC_SEND_SIGNALED | CC_SEND_INLINE, .num_sge = 1,
					.sge = { MR_DATA, 0, 8 }, .remote_mr = MR_DATA };

		poll_op(s, 0, 9, send_op(s, 0, 0, o, UINT32_MAX));
		assert_int_equal(cc_schedule_validate(s, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "rank 0 op 0: INLINE on "));
		assert_non_null(strstr(err, "which returns data to its SGE"));
		cc_schedule_free(s);
	}
}

static void read_is_a_round_trip(void **state)
{
	(void)state;
	struct cc_schedule *s = two_rank_sched(1, 4096, 7);
	struct cc_op_send o = { .wr_id = 9, .opcode = CC_WR_RDMA_READ, .flags = CC_SEND_SIGNALED,
				.num_sge = 1, .sge = { MR_DATA, 0, 4096 }, .remote_mr = MR_DATA };
	uint32_t db = send_op(s, 0, 0, o, UINT32_MAX);
	poll_op(s, 0, 9, db);
	struct cc_sim_result res = run(s, SIM_TOPO_RING, NULL, 0);
	uint64_t read = PS + DB + RQ + SER(42) + PROP + RS + rd(4096) + SER(4126) + PROP + RS +
			wr(4096) + CW + PC;

	assert_run_status(res.err, CC_RUN_OK);
	assert_int_equal(res.rank[0].done_ps, read);
	assert_int_equal(res.rank[1].wire_bytes, 4126); /* the response is the ACK */
	cc_sim_result_free(&res);
	cc_schedule_free(s);

	/* One way: an inline flag WRITE, seen by a wait on rank 1. */
	s = two_rank_sched(1, 4096, 7);
	o = (struct cc_op_send){ .wr_id = 3, .opcode = CC_WR_RDMA_WRITE,
				 .flags = CC_SEND_SIGNALED | CC_SEND_INLINE, .num_sge = 1,
				 .sge = { MR_FLAG, 0, 8 }, .remote_mr = MR_FLAG, .inline_value = 1 };
	poll_op(s, 0, 3, send_op(s, 0, 0, o, UINT32_MAX));
	op_add(s, 1, (struct cc_op){ .kind = CC_OP_WAIT_MEM, .u.wait = { BUF_FLAG, 0, 1 } },
	       UINT32_MAX);
	res = run(s, SIM_TOPO_RING, NULL, 0);
	uint64_t one_way = PS + DB + RQ + SER(50) + PROP + RS + wr(8) + PC;

	assert_run_status(res.err, CC_RUN_OK);
	assert_int_equal(res.rank[1].done_ps, one_way);
	/* the READ costs a round trip more: request and response flights,
	 * the responder's payload read, and response instead of payload size */
	assert_true(read > one_way + 2 * PROP + rd(4096));
	cc_sim_result_free(&res);
	cc_schedule_free(s);
}

/* Two GPUs of one node (railopt, 1 node x 2 GPUs): their QP runs over
 * NVLink through the NVSwitch, so no PCIe at either end — the 4 KiB WRITE
 * leaves without a payload read, and the inline flag lands without a DMA
 * write.  NVLink at 2400 Gb/s: ser_nv(B) = ceil(B * 10 / 3) ps; NVLink's
 * framing (host.nvlink_pkt_*: 32 B of header flits per 128 B of data, and
 * per data-less packet), no IB headers; the NVSwitch is a switch of the
 * fabric's (f, cut-through; packets up to the 64 B header are stored and
 * forwarded whole); NVLink propagation 0.  And no NIC at all: NCCL's P2P
 * transport is the GPU's own stores and polls, so the post, doorbell, WQE
 * fetch, NIC processing, CQE write and poll cost nothing (sim/exec.c
 * op_p2p): the wire remains, after the P2P hop's latency from the post to
 * the stores leaving (host.p2p_hop_simple_ps, 3.4 us: the schedule's
 * protocol is Simple). */
static void nvlink_skips_pcie(void **state)
{
	(void)state;
	struct sim_net net;
	char msg[SIM_NET_ERR_LEN];

	sim_net_init(&net, NULL);
	assert_int_equal(sim_net_railopt(&net, 1, 2, 0, msg, sizeof(msg)), 0);

	struct cc_schedule *s = two_rank_sched(1, 4096, 7);
	poll_op(s, 0, 7, send_op(s, 0, 0, write4k(CC_SEND_SIGNALED), UINT32_MAX));
	struct cc_sim_result res = run_on(s, SIM_TOPO_RING, &net, NULL, 0);
	/* data: 4096 + 32 x 32 = 5120 B, ser_nv(5120) + ser_nv(64) + f;
	 * ACK: 32 B, 2 ser_nv(32) + f */
	uint64_t want = 3400 * NS + (17067 + 214 + FWD) + (2 * 107 + FWD);

	assert_run_status(res.err, CC_RUN_OK);
	assert_int_equal(res.time_ps, want);
	assert_int_equal(res.wrong, 0);
	assert_int_equal(res.rank[0].busy_ps[CC_SIM_PCIE], 0);
	assert_int_equal(res.rank[1].busy_ps[CC_SIM_PCIE], 0);
	cc_sim_result_free(&res);
	cc_schedule_free(s);

	s = two_rank_sched(1, 4096, 7);
	struct cc_op_send o = { .wr_id = 3, .opcode = CC_WR_RDMA_WRITE,
				.flags = CC_SEND_SIGNALED | CC_SEND_INLINE, .num_sge = 1,
				.sge = { MR_FLAG, 0, 8 }, .remote_mr = MR_FLAG, .inline_value = 1 };
	poll_op(s, 0, 3, send_op(s, 0, 0, o, UINT32_MAX));
	op_add(s, 1, (struct cc_op){ .kind = CC_OP_WAIT_MEM, .u.wait = { BUF_FLAG, 0, 1 } },
	       UINT32_MAX);
	res = run_on(s, SIM_TOPO_RING, &net, NULL, 0);
	/* 8 + 32 B: stored and forwarded, 2 ser_nv(40) + f; then no wr(8),
	 * and the flag is the GPU's to see */
	assert_run_status(res.err, CC_RUN_OK);
	assert_int_equal(res.rank[1].done_ps, 3400 * NS + 2 * 134 + FWD);
	cc_sim_result_free(&res);
	cc_schedule_free(s);
	sim_net_free(&net);
}

/* SEND with no receive posted: RNR NAK; the requester waits the RNR timer
 * (code 12: 640 us), resends from the NAKed PSN and succeeds, because
 * meanwhile rank 1 saw a flag (a WRITE on a second QP) and posted its
 * receive.  The flag queues behind the SEND on rank 0's port. */
static void rnr_then_success(void **state)
{
	(void)state;
	struct cc_schedule *s = two_rank_sched(2, 4096, 7);
	struct cc_op_send send = { .wr_id = 5, .opcode = CC_WR_SEND, .flags = CC_SEND_SIGNALED,
				   .num_sge = 1, .sge = { MR_DATA, 0, 4096 } };
	struct cc_op_send flag = { .wr_id = 6, .opcode = CC_WR_RDMA_WRITE, .flags = CC_SEND_INLINE,
				   .num_sge = 1, .sge = { MR_FLAG, 0, 8 }, .remote_mr = MR_FLAG,
				   .inline_value = 1 };
	uint32_t db = send_op(s, 0, 0, send, UINT32_MAX);
	send_op(s, 0, 1, flag, db);
	poll_op(s, 0, 5, db);
	uint32_t w = op_add(s, 1, (struct cc_op){ .kind = CC_OP_WAIT_MEM,
						  .u.wait = { BUF_FLAG, 0, 1 } }, UINT32_MAX);
	uint32_t pr = op_add(s, 1, (struct cc_op){ .kind = CC_OP_POST_RECV,
		.u.recv = { .qp = 0, .wr_id = 8, .num_sge = 1, .sge = { MR_DATA, 0, 4096 } } }, w);
	poll_op(s, 1, 8, pr);

	struct cc_sim_result res = run(s, SIM_TOPO_RING, NULL, 0);
	uint64_t sent = PS + DB + RQ + rd(4096);                  /* SEND leaves */
	uint64_t nak = sent + SER(4122) + PROP + RS + SER(30) + PROP + RS; /* RNR NAK in */
	uint64_t resent = nak + 640 * US + rd(4096);               /* timer, read again */
	uint64_t accepted = resent + SER(4122) + PROP + RS;
	uint64_t done0 = accepted + SER(30) + PROP + RS + CW + PC;
	uint64_t done1 = accepted + wr(4096) + PC;                 /* wr(4096) > CW */

	assert_run_status(res.err, CC_RUN_OK);
	assert_int_equal(res.rank[0].done_ps, done0);
	assert_int_equal(res.rank[1].done_ps, done1);
	assert_int_equal(res.time_ps, done1 > done0 ? done1 : done0);
	assert_int_equal(res.rank[1].rnr_naks, 1);
	assert_int_equal(res.rank[0].retx_pkts, 1);
	assert_int_equal(res.rank[0].retx_bytes, 4122);
	/* SEND twice, the flag once; RNR NAK, the flag's ACK, the SEND's ACK */
	assert_int_equal(res.rank[0].wire_bytes, 2 * 4122 + 50);
	assert_int_equal(res.rank[1].wire_bytes, 3 * 30);
	cc_sim_result_free(&res);
	cc_schedule_free(s);
}

/* rnr_retry = 0 and no receive ever: IBV_WC_RNR_RETRY_EXC_ERR. */
static void rnr_retry_exhausted(void **state)
{
	(void)state;
	struct cc_schedule *s = two_rank_sched(1, 4096, 0);
	struct cc_op_send send = { .wr_id = 5, .opcode = CC_WR_SEND, .flags = CC_SEND_SIGNALED,
				   .num_sge = 1, .sge = { MR_DATA, 0, 4096 } };
	uint32_t db = send_op(s, 0, 0, send, UINT32_MAX);
	poll_op(s, 0, 5, db);
	struct cc_sim_result res = run(s, SIM_TOPO_RING, NULL, 0);

	assert_run_status(res.err, CC_RUN_COMPLETION_ERROR);
	assert_int_equal(res.err.wc, CC_WC_RNR_RETRY_EXC_ERR);
	assert_int_equal(res.err.rank, 0);
	assert_int_equal(res.err.wr_id, 5);
	cc_sim_result_free(&res);
	cc_schedule_free(s);
}

/* A ring allreduce whose rank 1 skips one receive (CC_FAULT_NO_RECV):
 * rank 0's WRITE WITH IMM meets an empty receive queue and, with
 * rnr_retry 2, ends as IBV_WC_RNR_RETRY_EXC_ERR — as the data executor
 * and the verbs executor on rxe say (test_exec_data, scripts/softroce). */
static void ring_missing_receive_is_rnr_error(void **state)
{
	(void)state;
	struct cc_coll_params p;
	char err[200];

	cc_coll_params_default(&p);
	p.nranks = 2;
	p.count = 4096;
	struct cc_schedule *s = cc_build(&p, err, sizeof(err));
	assert_non_null(s);
	for (uint32_t r = 0; r < 2; r++)
		for (uint32_t q = 0; q < s->ranks[r].nqps; q++)
			s->ranks[r].qps[q].rnr_retry = 2;
	uint32_t victim = 0;
	while (s->ranks[1].ops[victim].kind != CC_OP_POST_RECV)
		victim++;
	struct cc_fault f = { CC_FAULT_NO_RECV, 1, victim };
	struct cc_sim_result res = run(s, SIM_TOPO_RING, &f, 1);

	assert_run_status(res.err, CC_RUN_COMPLETION_ERROR);
	assert_int_equal(res.err.wc, CC_WC_RNR_RETRY_EXC_ERR);
	assert_int_equal(res.err.rank, 0);
	assert_int_equal(s->ranks[0].ops[res.err.op].u.send.opcode, CC_WR_RDMA_WRITE_WITH_IMM);
	cc_sim_result_free(&res);
	cc_schedule_free(s);
}

/* A wrong R_Key: NAK, IBV_WC_REM_ACCESS_ERR, as the data executor says. */
static void bad_rkey_is_remote_access_error(void **state)
{
	(void)state;
	struct cc_schedule *s = two_rank_sched(1, 4096, 7);
	uint32_t db = send_op(s, 0, 0, write4k(CC_SEND_SIGNALED), UINT32_MAX);
	poll_op(s, 0, 7, db);
	struct cc_fault fault = { CC_FAULT_RKEY, 0, 0 };
	struct cc_sim_result res = run(s, SIM_TOPO_STAR, &fault, 1);

	assert_run_status(res.err, CC_RUN_COMPLETION_ERROR);
	assert_int_equal(res.err.wc, CC_WC_REM_ACCESS_ERR);
	assert_int_equal(res.err.rank, 0);
	assert_int_equal(res.err.op, 0);
	cc_sim_result_free(&res);
	cc_schedule_free(s);
}

/* Atomics and READ move the right bytes: two FETCH_ADDs (+5, +7) on rank
 * 1's word return 0 and 5; a COMPARE_SWAP (12 -> 100) succeeds; a fenced
 * READ brings the word back.  Each rank waits for the value it must see;
 * a wrong value would leave the wait parked and the run deadlocked. */
static void atomics_and_read_carry_data(void **state)
{
	(void)state;
	struct cc_schedule *s = two_rank_sched(1, 64, 7);
	struct cc_op_send fa = { .wr_id = 1, .opcode = CC_WR_ATOMIC_FETCH_ADD,
				 .flags = CC_SEND_SIGNALED, .num_sge = 1,
				 .sge = { MR_FLAG, 0, 8 }, .remote_mr = MR_FLAG, .compare_add = 5 };
	uint32_t d = send_op(s, 0, 0, fa, UINT32_MAX);
	fa.wr_id = 2;
	fa.compare_add = 7;
	fa.sge.offset = 8; /* the second old value lands in word 1 */
	d = send_op(s, 0, 0, fa, d);
	struct cc_op_send cas = { .wr_id = 3, .opcode = CC_WR_ATOMIC_CMP_SWP,
				  .flags = CC_SEND_SIGNALED, .num_sge = 1,
				  .sge = { MR_FLAG, 16, 8 }, .remote_mr = MR_FLAG,
				  .compare_add = 12, .swap = 100 };
	d = send_op(s, 0, 0, cas, d);
	struct cc_op_send rd4 = { .wr_id = 4, .opcode = CC_WR_RDMA_READ,
				  .flags = CC_SEND_SIGNALED | CC_SEND_FENCE, .num_sge = 1,
				  .sge = { MR_DATA, 0, 8 }, .remote_mr = MR_FLAG };
	d = send_op(s, 0, 0, rd4, d);
	s->ranks[1].mrs[MR_FLAG].access |= CC_ACCESS_REMOTE_ATOMIC | CC_ACCESS_REMOTE_READ;
	uint32_t p = poll_op(s, 0, 4, d);
	/* word 1 of rank 0's flag buffer: the second FETCH_ADD saw 5; word 2:
	 * the CMP_SWP saw 12; rank 0's data word: the READ brought 100 */
	p = op_add(s, 0, (struct cc_op){ .kind = CC_OP_WAIT_MEM, .u.wait = { BUF_FLAG, 8, 5 } }, p);
	p = op_add(s, 0, (struct cc_op){ .kind = CC_OP_WAIT_MEM, .u.wait = { BUF_FLAG, 16, 12 } }, p);
	op_add(s, 0, (struct cc_op){ .kind = CC_OP_WAIT_MEM, .u.wait = { BUF_DATA, 0, 100 } }, p);
	op_add(s, 1, (struct cc_op){ .kind = CC_OP_WAIT_MEM, .u.wait = { BUF_FLAG, 0, 100 } },
	       UINT32_MAX);
	struct cc_sim_result res = run(s, SIM_TOPO_RING, NULL, 0);

	assert_run_status(res.err, CC_RUN_OK);
	assert_int_equal(res.rank[0].wqes, 4);
	/* three ATOMIC ACKNOWLEDGEs (LRH 8, BTH 12, AETH 4, AtomicAckETH 8,
	 * ICRC 4, VCRC 2 = 38 B) and one READ_RESP_ONLY of 8 B (8 + 12 + 4 + 8
	 * + 4 + 2 = 38 B) */
	assert_int_equal(res.rank[1].wire_bytes, 4 * 38);
	cc_sim_result_free(&res);
	cc_schedule_free(s);
}

/* ---- ring collectives ---- */

static struct cc_sim_result sim(const struct cc_schedule *s, const char *fabric,
				enum sim_topo_kind topo, bool check, struct cc_trace *trace)
{
	struct sim_params f;
	struct cc_sim_result res;

	assert_int_equal(sim_params_preset(fabric, &f), 0);
	struct cc_sim_opts o = { .fabric = &f, .topo = topo, .seed = 3, .check = check,
				 .trace = trace, .time_limit_ps = 60ull * 1000000 * US };
	assert_int_equal(cc_sim_run(s, &o, &res), 0);
	if (res.err.status != CC_RUN_OK)
		print_message("    -> %s\n", res.err.msg);
	assert_run_status(res.err, CC_RUN_OK);
	return res;
}

/* The progress report (cc_sim_opts.progress, cclab sim's line on a
 * terminal) only looks: the same run with it has the same time, events and
 * counters; it is called every CC_SIM_WALL_CHECK_EVENTS events with a
 * simulated time that never goes back, and once at the end with done. */
struct progress_seen {
	uint64_t calls, done, last_events;
	sim_time_ps last_now;
	bool back;
};

static void progress_cb(void *ctx, sim_time_ps now, uint64_t events, bool done)
{
	struct progress_seen *p = ctx;

	p->back |= now < p->last_now || events < p->last_events;
	p->last_now = now;
	p->last_events = events;
	p->calls++;
	p->done += done;
}

static void progress_only_looks(void **state)
{
	(void)state;
	struct cc_schedule *s = ring_sched(CC_ALLREDUCE, CC_WRITE_IMM, 8, 1u << 20);
	struct sim_params f;
	struct cc_sim_result a, b;
	struct progress_seen p = {0};

	assert_int_equal(sim_params_preset("roce-100g", &f), 0);
	struct cc_sim_opts o = { .fabric = &f, .topo = SIM_TOPO_STAR, .seed = 3 };
	assert_int_equal(cc_sim_run(s, &o, &a), 0);
	o.progress = progress_cb;
	o.progress_ctx = &p;
	assert_int_equal(cc_sim_run(s, &o, &b), 0);
	assert_run_status(b.err, CC_RUN_OK);
	assert_int_equal(a.time_ps, b.time_ps);
	assert_int_equal(a.events, b.events);
	assert_memory_equal(a.rank, b.rank, a.nranks * sizeof(*a.rank));
	assert_int_equal(p.done, 1);
	assert_false(p.back);
	assert_int_equal(p.last_events, b.events);
	/* one check before the first event, one per 16384, one at the end */
	assert_int_equal(p.calls, 1 + b.events / CC_SIM_WALL_CHECK_EVENTS + 1);
	cc_sim_result_free(&a);
	cc_sim_result_free(&b);
	cc_schedule_free(s);
}

/* What lands is what the sender's NIC read, not what its memory holds when
 * the receiver's PCIe write ends: with a PCIe latency longer than the
 * ACK's way back the sender has its completion first and refills the slot
 * (found by tests/test_properties.c, seeds 3000703 and 1000224): one
 * 8-byte slot, two slices, Simple (#wrong 1 before) and LL (a read of
 * lines before they arrived). */
static void payload_as_read(void **state)
{
	(void)state;
	for (int pr = CC_PROTO_SIMPLE; pr <= CC_PROTO_LL; pr++) {
		struct cc_coll_params p;
		struct sim_params f;
		struct cc_sim_result res;
		char err[200];

		cc_coll_params_default(&p);
		p.coll = CC_BROADCAST;
		p.nranks = 2;
		p.proto = (enum cc_proto)pr;
		p.dtype = pr ? CC_INT32 : CC_INT64;
		p.count = 2;
		p.slot_bytes = p.chunk_bytes = cc_dtype_size(p.dtype);
		p.nslots = 1;
		struct cc_schedule *s = cc_build(&p, err, sizeof(err));
		assert_non_null(s);
		assert_int_equal(sim_params_preset("ideal", &f), 0);
		f.pcie.latency_ps = 10000;
		struct cc_sim_opts o = { .fabric = &f, .topo = SIM_TOPO_STAR, .seed = 1,
					 .check = true };
		assert_int_equal(cc_sim_run(s, &o, &res), 0);
		assert_run_status(res.err, CC_RUN_OK);
		assert_int_equal(res.wrong, 0);
		cc_sim_result_free(&res);
		cc_schedule_free(s);
	}
}

/* ACKs coalesced over more packets than the window holds: the packet
 * that fills the window asks for an ACK (BTH AckReq), so the run goes on
 * instead of waiting for the ACK timeout. */
static void ack_coalescing_wider_than_window(void **state)
{
	(void)state;
	struct cc_schedule *s = ring_sched(CC_ALLREDUCE, CC_WRITE_IMM, 4, 4 << 20);
	struct sim_params f;
	struct cc_sim_result res;

	sim_params_preset("roce-100g", &f);
	f.rnic.max_outstanding_pkts = 16;
	f.rnic.ack_coalesce_pkts = 1000;
	struct cc_sim_opts o = { .fabric = &f, .topo = SIM_TOPO_STAR, .seed = 3, .check = true,
				 .time_limit_ps = 60ull * 1000000 * US };
	assert_int_equal(cc_sim_run(s, &o, &res), 0);
	assert_run_status(res.err, CC_RUN_OK);
	assert_int_equal(res.wrong, 0);
	assert_true(res.time_ps < 10 * 1000 * US); /* no 1.07 s timeouts */
	for (uint32_t r = 0; r < 4; r++)
		assert_int_equal(res.rank[r].retx_pkts, 0);
	cc_sim_result_free(&res);
	cc_schedule_free(s);
}

/* Large N: within 2% above the alpha-beta bound, never below. */
static void allreduce_near_bound(void **state)
{
	(void)state;
	static const uint32_t ks[] = {2, 4, 8, 16};

	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		struct cc_schedule *s = ring_sched(CC_ALLREDUCE, CC_WRITE_IMM, ks[i], 64ull << 20);
		struct sim_params f;
		struct sim_net net;
		struct cc_sim_result res = sim(s, "ib-hdr", SIM_TOPO_RING, false, NULL);

		sim_params_preset("ib-hdr", &f);
		sim_net_init(&net, NULL);
		assert_int_equal(sim_net_ring(&net, ks[i], NULL, 0), 0);
		sim_time_ps bound = sim_bound_ps(s, &f, &net);
		sim_net_free(&net);
		print_message("    k=%u: %.3f us, bound %.3f us, ratio %.5f\n", ks[i],
			      res.time_ps / 1e6, bound / 1e6, (double)res.time_ps / bound);
		assert_true(res.time_ps >= bound);
		assert_true(res.time_ps * 100 <= bound * 102);
		cc_sim_result_free(&res);
		cc_schedule_free(s);
	}
}

/* Wire bytes are data plus every header, exactly: per rank, the packets
 * of every WQE it executed (sim_wire_msg_sum) plus its ACKs.  Data bytes
 * are 2N(k-1)/k per rank. */
static void wire_bytes_are_data_plus_headers(void **state)
{
	(void)state;
	for (int topo = 0; topo < 2; topo++) {
		uint32_t k = 4;
		uint64_t n = 1 << 20;
		struct cc_schedule *s = ring_sched(CC_ALLREDUCE, CC_WRITE_IMM, k, n);
		struct sim_params f;
		struct cc_sim_result res = sim(s, "roce-100g", topo, true, NULL);

		sim_params_preset("roce-100g", &f);
		assert_int_equal(res.wrong, 0);
		for (uint32_t r = 0; r < k; r++) {
			const struct cc_rank_sched *rs = &s->ranks[r];
			uint64_t want = 0, payload = 0;

			for (uint32_t i = 0; i < rs->nops; i++) {
				const struct cc_op_send *o = &rs->ops[i].u.send;
				struct sim_wire_seg seg;

				if (rs->ops[i].kind != CC_OP_POST_SEND)
					continue;
				assert_true(o->opcode == CC_WR_RDMA_WRITE_WITH_IMM ||
					    o->opcode == CC_WR_RDMA_WRITE);
				assert_int_equal(sim_wire_segment(o->opcode == CC_WR_RDMA_WRITE
								   ? SIM_MSG_WRITE : SIM_MSG_WRITE_IMM,
								   o->sge.length, f.link.mtu_bytes, &seg), 0);
				want += sim_wire_msg_sum(f.link.type, &seg).wire;
				payload += o->sge.length;
			}
			/* RoCEv2 ACK: preamble 8, then a 70 B frame (MAC 14, VLAN
			 * 4, IPv4 20, UDP 8, BTH 12, AETH 4, ICRC 4, FCS 4: over
			 * the 64 B minimum), then IFG 12 */
			want += res.rank[r].acks * sim_wire_bytes(f.link.type, SIM_BTH_ACK, 0);
			assert_int_equal(sim_wire_bytes(f.link.type, SIM_BTH_ACK, 0), 8 + 70 + 12);
			assert_int_equal(res.rank[r].wire_bytes, want);
			assert_int_equal(res.rank[r].payload_bytes, payload);
			assert_int_equal(res.rank[r].data_bytes, 2 * n * (k - 1) / k);
			assert_int_equal(res.rank[r].retx_pkts, 0);
		}
		cc_sim_result_free(&res);
		cc_schedule_free(s);
	}
}

/* Every collective and transport, both topologies: #wrong == 0. */
static void collectives_correct(void **state)
{
	(void)state;
	static const uint32_t ks[] = {1, 2, 3, 5};
	static const uint64_t sizes[] = {0, 4, 1000, 1 << 20};

	for (int c = 0; c < CC_ALLTOALL; c++) /* the ring builds all but all-to-all */
		for (int t = 0; t < CC_TRANSPORT_COUNT; t++)
			for (size_t ki = 0; ki < 4; ki++)
				for (size_t si = 0; si < 4; si++)
					for (int topo = 0; topo < 2; topo++) {
						struct cc_schedule *s = ring_sched(c, t, ks[ki], sizes[si] * ks[ki]);
						struct cc_sim_result res = sim(s, "ib-ndr", topo, true, NULL);

						assert_int_equal(res.wrong, 0);
						for (uint32_t r = 0; r < ks[ki]; r++)
							assert_int_equal(res.rank[r].ops_done,
									 s->ranks[r].nops);
						cc_sim_result_free(&res);
						cc_schedule_free(s);
					}
}

/* Ring collectives on switched networks of sim/net.h: a leaf-spine (2
 * leaves x 4 hosts, 2 spines, 1:1: ring neighbours 3 -> 4 and 7 -> 0 cross
 * the spines) and a rail-optimised cluster (2 nodes x 4 GPUs, 1 spine:
 * neighbours inside a node over NVLink, 3 -> 4 and 7 -> 0 from rail 3 to
 * rail 0 through the spine).  Every collective and transport: #wrong 0,
 * never below the bound on the same network. */
static void collectives_on_networks(void **state)
{
	(void)state;
	struct sim_net nets[2];
	char msg[SIM_NET_ERR_LEN];

	sim_net_init(&nets[0], NULL);
	sim_net_init(&nets[1], NULL);
	assert_int_equal(sim_net_leafspine(&nets[0], 4, 2, 2, 1, 1, msg, sizeof(msg)), 0);
	assert_int_equal(sim_net_railopt(&nets[1], 2, 4, 1, msg, sizeof(msg)), 0);
	for (int n = 0; n < 2; n++)
		for (int c = 0; c < CC_ALLTOALL; c++) /* the ring builds all but all-to-all */
			for (int t = 0; t < CC_TRANSPORT_COUNT; t++) {
				struct cc_schedule *s = ring_sched(c, t, 8, 1 << 20);
				struct sim_params f;
				struct cc_sim_result res;

				assert_int_equal(sim_params_preset("ib-ndr", &f), 0);
				struct cc_sim_opts o = { .fabric = &f, .net = &nets[n], .seed = 3,
							 .check = true,
							 .time_limit_ps = 60ull * 1000000 * US };
				assert_int_equal(cc_sim_run(s, &o, &res), 0);
				if (res.err.status != CC_RUN_OK)
					print_message("    -> %s\n", res.err.msg);
				assert_run_status(res.err, CC_RUN_OK);
				assert_int_equal(res.wrong, 0);
				assert_true(res.time_ps >= sim_bound_ps(s, &f, &nets[n]));
				if (c == CC_ALLREDUCE && t == CC_WRITE_IMM)
					print_message("    %s: allreduce 1 MiB %.3f us, bound %.3f us\n",
						      nets[n].name, res.time_ps / 1e6,
						      sim_bound_ps(s, &f, &nets[n]) / 1e6);
				cc_sim_result_free(&res);
				cc_schedule_free(s);
			}
	/* a network of another rank count is refused */
	struct cc_schedule *s = ring_sched(CC_ALLREDUCE, CC_WRITE_IMM, 4, 1 << 10);
	struct sim_params f;
	struct cc_sim_result res;

	assert_int_equal(sim_params_preset("ib-ndr", &f), 0);
	struct cc_sim_opts o = { .fabric = &f, .net = &nets[0], .check = true };
	assert_int_equal(cc_sim_run(s, &o, &res), -EINVAL);
	assert_int_equal(sim_bound_ps(s, &f, &nets[0]), 0);
	cc_schedule_free(s);
	sim_net_free(&nets[0]);
	sim_net_free(&nets[1]);
}

/* Same input, same output: results and trace byte for byte; and the
 * timing does not hang on the event queue's tie order. */
static void deterministic(void **state)
{
	(void)state;
	struct cc_schedule *s = ring_sched(CC_ALLREDUCE, CC_SEND_RECV, 3, 300000);
	struct cc_trace t1, t2;

	cc_trace_init(&t1);
	cc_trace_init(&t2);
	struct cc_sim_result a = sim(s, "roce-400g", SIM_TOPO_STAR, true, &t1);
	struct cc_sim_result b = sim(s, "roce-400g", SIM_TOPO_STAR, true, &t2);

	assert_int_equal(a.time_ps, b.time_ps);
	assert_int_equal(a.events, b.events);
	assert_memory_equal(a.rank, b.rank, a.nranks * sizeof(*a.rank));
	assert_true(cc_trace_count(&t1) > 100);
	/* every step of an RDMA operation is in the trace (write_imm has no
	 * copies but the send's, which stage through the GPU) */
	bool seen[CC_TRACE_KIND_COUNT] = {0};
	for (size_t i = 0; i < t1.n; i++)
		seen[t1.ev[i].kind] = true;
	for (int kind = 0; kind < CC_TRACE_KIND_COUNT; kind++) {
		if (!seen[kind])
			print_message("    missing trace event %s\n", cc_trace_kind_name[kind]);
		assert_true(seen[kind]);
	}
	assert_int_equal(cc_trace_count(&t1), cc_trace_count(&t2));
	/* every field of every event (not the structs' padding bytes) */
	for (size_t i = 0; i < t1.n; i++) {
		const struct cc_trace_event *e = &t1.ev[i], *f = &t2.ev[i];

		assert_true(e->t_ps == f->t_ps && e->dur_ps == f->dur_ps && e->kind == f->kind &&
			    e->rank == f->rank && e->track == f->track && e->qp == f->qp &&
			    e->wr_id == f->wr_id && e->bytes == f->bytes && e->op == f->op &&
			    e->op_kind == f->op_kind && e->opcode == f->opcode &&
			    e->tag.prim == f->tag.prim && e->tag.channel == f->tag.channel &&
			    e->tag.chunk == f->tag.chunk && e->tag.step == f->tag.step &&
			    e->tag.slice == f->tag.slice);
	}
	cc_sim_result_free(&a);
	cc_sim_result_free(&b);
	cc_trace_free(&t1);
	cc_trace_free(&t2);
	cc_schedule_free(s);
}

/* ---- limits and running out of memory ---- */

/* Rank 1 waits for a flag word nobody writes: nothing is pending, so this
 * is a deadlock whatever the limits — not a time limit. */
static void deadlock_is_not_a_time_limit(void **state)
{
	struct cc_schedule *s = two_rank_sched(1, 64, 7);
	struct cc_op wait = { .kind = CC_OP_WAIT_MEM, .u.wait = { BUF_FLAG, 0, 1 } };

	(void)state;
	cc_add_op(&s->ranks[1], &wait, NULL, 0);
	struct cc_sim_result res = run(s, SIM_TOPO_STAR, NULL, 0);

	assert_run_status(res.err, CC_RUN_DEADLOCK);
	assert_int_equal(res.err.rank, 1);
	assert_non_null(strstr(res.err.msg, "deadlock: waits for a completion or flag that never "
					    "comes"));
	assert_int_equal(res.events, 0);
	cc_sim_result_free(&res);
	cc_schedule_free(s);
}

/* cc_build_with(): a deadline 1 ms away stops a build of 64 ranks x
 * 1 GiB (about 4.6 million ops, seconds to build) within a bounded time,
 * ETIME and "time limit reached"; one far off builds what cc_build does. */
static void build_stops_at_its_deadline(void **state)
{
	struct cc_coll_params p;
	struct cc_schedule *a, *b;
	char err[256] = "";
	uint64_t t0, took;

	(void)state;
	cc_coll_params_default(&p);
	p.nranks = 64;
	p.count = UINT64_C(1) << 28;
	t0 = cc_clock_ns();
	errno = 0;
	a = cc_build_with(&p, &(struct cc_build_opts){ .deadline_ns = t0 + 1000000u }, err,
			  sizeof(err)); /* 1 ms */
	took = cc_clock_ns() - t0;
	print_message("    64 ranks x 1 GiB, deadline 1 ms: stopped after %.1f ms\n",
		      (double)took / 1e6);
	assert_null(a);
	assert_int_equal(errno, ETIME);
	assert_string_equal(err, "time limit reached while building the schedule");
	assert_true(took < UINT64_C(2000000000)); /* 2 s, on two busy cores */

	p.nranks = 8;
	p.count = 1u << 18;
	a = cc_build(&p, err, sizeof(err));
	b = cc_build_with(&p, &(struct cc_build_opts){ .deadline_ns = cc_clock_ns() +
								UINT64_C(3600000000000) },
			  err, sizeof(err));
	assert_non_null(a);
	assert_non_null(b);
	/* Compared as printed: every field of every op (a byte compare
	 * would also compare the unions' padding, which is nobody's). */
	char *ta = NULL, *tb = NULL;
	size_t na = 0, nb = 0;
	FILE *fa = open_memstream(&ta, &na), *fb = open_memstream(&tb, &nb);

	assert_non_null(fa);
	assert_non_null(fb);
	cc_schedule_print(fa, a, -1);
	cc_schedule_print(fb, b, -1);
	assert_int_equal(fclose(fa), 0);
	assert_int_equal(fclose(fb), 0);
	assert_true(na > 0);
	assert_string_equal(ta, tb);
	free(ta);
	free(tb);
	cc_schedule_free(a);
	cc_schedule_free(b);
}

/* AddressSanitizer's shadow is terabytes of address space and its
 * allocator aborts instead of returning NULL: no run under an
 * address-space limit there (`make asan`). */
#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif
#ifndef ASAN
#define ASAN 0
#endif

/* The address space this process maps now (/proc/self/statm). */
static uint64_t mapped_now(void)
{
	unsigned long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	assert_non_null(f);
	assert_int_equal(fscanf(f, "%lu", &pages), 1);
	fclose(f);
	return (uint64_t)pages * (uint64_t)sysconf(_SC_PAGE_SIZE);
}

/* fn(ctx) in a child process whose address space may grow by `extra`
 * bytes beyond what it maps now (ulimit -v): its exit status, or 1000 +
 * the signal that ended it (an abort would be 1006).  cmocka's handlers
 * are reset in the child, so a crash ends it rather than the suite. */
static int limited(uint64_t extra, int (*fn)(void *), void *ctx)
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit lim;

		signal(SIGABRT, SIG_DFL);
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		lim.rlim_cur = lim.rlim_max = mapped_now() + extra;
		if (setrlimit(RLIMIT_AS, &lim))
			_exit(99);
		_exit(fn(ctx));
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st);
}

/* 64 ranks x 1 GiB (about 460 MB of ops) with 64 MiB to grow in: cc_build
 * refuses it up front against the address-space limit (E2BIG, the limit
 * named); the ring's builder itself, past that check, runs out of memory
 * part way and fails with ENOMEM instead of aborting. */
static int build_when_memory_runs_out(void *ctx)
{
	struct cc_coll_params p;
	char err[256] = "";
	struct cc_schedule *s;

	(void)ctx;
	cc_coll_params_default(&p);
	p.nranks = 64;
	p.count = UINT64_C(1) << 28;
	errno = 0;
	struct cc_mem_limit lim;
	cc_mem_limit(&lim);
	s = cc_build_with(&p, &(const struct cc_build_opts){ .mem_limit = &lim }, err, sizeof(err));
	if (s || errno != E2BIG || !strstr(err, "the address-space limit (ulimit -v)"))
		return 2;
	errno = 0;
	s = cc_build_ring(&p);
	if (s || errno != ENOMEM)
		return 3;
	return 0;
}

/* A 4 MiB LL ring allreduce on 8 ranks, timed only: 0 when it completes,
 * 3 when cc_sim_run() says -ENOMEM, 4 for anything else. */
static int sim_when_memory_runs_out(void *ctx)
{
	const struct cc_schedule *s = ctx;
	struct sim_params f;
	struct cc_sim_result res;
	struct cc_sim_opts o = { .fabric = &f, .topo = SIM_TOPO_STAR, .seed = 1 };
	int rc;

	if (sim_params_preset("ib-hdr", &f))
		return 5;
	rc = cc_sim_run(s, &o, &res);
	if (rc == -ENOMEM)
		return 3;
	if (rc)
		return 4;
	rc = res.err.status == CC_RUN_OK ? 0 : 4;
	cc_sim_result_free(&res);
	return rc;
}

/* Runs s in children with less and less room to grow (see below). */
static void sim_short_of_memory(const struct cc_schedule *s, const char *what)
{
	uint64_t lo = 0, hi = UINT64_C(64) << 20;
	int st;

	assert_int_equal(limited(hi, sim_when_memory_runs_out, (void *)s), 0);
	while (hi - lo > (64u << 10)) {
		uint64_t mid = lo + (hi - lo) / 2;

		st = limited(mid, sim_when_memory_runs_out, (void *)s);
		assert_true(st == 0 || st == 3);
		*(st == 0 ? &hi : &lo) = mid;
	}
	print_message("    %s: completes with %.2f MiB to grow in\n", what, (double)hi / (1 << 20));
	for (uint64_t under = 32u << 10; under <= (1u << 20) && under < hi; under += 160u << 10) {
		st = limited(hi - under, sim_when_memory_runs_out, (void *)s);
		if (st != 0 && st != 3)
			fail_msg("%s, %.2f MiB: status %d (1006: an abort)", what,
				 (double)(hi - under) / (1 << 20), st);
	}
}

/* Out of memory in a builder or anywhere in a simulation — setting up or
 * in an event handler, where no error can be returned — is an error
 * (ENOMEM), never an abort.  Each run goes in a child under an
 * address-space limit; a bisection finds the least room the simulation
 * completes in, then runs just short of it, where memory runs out part
 * way through the run (a packet slab, the event heap: unwound by
 * sim__nomem(); here in most of the last 0.7 MiB below the 2.9 MiB it
 * needed): every one ends with its result or -ENOMEM.  The same for the
 * schedule generated as it runs (core/gen.h), whose setup reserves its
 * spans and whose run takes blocks of ops and of their state. */
static void out_of_memory_is_an_error(void **state)
{
	struct cc_coll_params p;
	struct cc_schedule *s;
	char err[256];

	(void)state;
	if (ASAN) {
		print_message("SKIP: AddressSanitizer cannot run under an address-space limit\n");
		skip();
	}
	assert_int_equal(limited(UINT64_C(64) << 20, build_when_memory_runs_out, NULL), 0);
	cc_coll_params_default(&p);
	p.nranks = 8;
	p.proto = CC_PROTO_LL;
	cc_coll_params_fill(&p, 0, 0);
	p.count = UINT64_C(1) << 20;
	s = cc_build(&p, err, sizeof(err));
	assert_non_null(s);
	sim_short_of_memory(s, "built");
	cc_schedule_free(s);
	s = cc_gen_build(&p, err, sizeof(err));
	assert_non_null(s);
	sim_short_of_memory(s, "generated");
	cc_schedule_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(write_one_packet),
		cmocka_unit_test(write_four_packets),
		cmocka_unit_test(read_is_a_round_trip),
		cmocka_unit_test(inline_read_refused),
		cmocka_unit_test(nvlink_skips_pcie),
		cmocka_unit_test(rnr_then_success),
		cmocka_unit_test(rnr_retry_exhausted),
		cmocka_unit_test(ring_missing_receive_is_rnr_error),
		cmocka_unit_test(bad_rkey_is_remote_access_error),
		cmocka_unit_test(atomics_and_read_carry_data),
		cmocka_unit_test(allreduce_near_bound),
		cmocka_unit_test(ack_coalescing_wider_than_window),
		cmocka_unit_test(wire_bytes_are_data_plus_headers),
		cmocka_unit_test(collectives_correct),
		cmocka_unit_test(collectives_on_networks),
		cmocka_unit_test(deterministic),
		cmocka_unit_test(progress_only_looks),
		cmocka_unit_test(payload_as_read),
		cmocka_unit_test(deadlock_is_not_a_time_limit),
		cmocka_unit_test(build_stops_at_its_deadline),
		cmocka_unit_test(out_of_memory_is_an_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
