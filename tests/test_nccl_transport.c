/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_nccl_transport.c — what NCCL's transport variables do to the
 * schedule (sim_nccl_transport_for).
 *
 * Adaptive routing (cc_coll_params.ar_split; src/transport/net_ib/p2p.cc
 * ncclIbMultiSend): a slice above NCCL_IB_AR_THRESHOLD goes as an
 * unsignaled RDMA WRITE of the data and a signaled 0-byte WRITE WITH IMM
 * behind it, in one post and one doorbell; at or below it, one WRITE WITH
 * IMM.  The schedule's shape, the variables that switch it, the data on
 * both executors, and the wire bytes the simulator charges for the extra
 * packet.
 *
 * NCCL_BUFFSIZE (cc_coll_params.buff_bytes; src/init.cc
 * computeBuffSizes): the Simple protocol's slots and chunks.
 * NCCL_NET_GDR_LEVEL=LOC: host staging.
 *
 * The GDR flush (cc_coll_params.gdr_flush; src/transport/net.cc
 * recvProxyProgress, net_ib/p2p.cc ncclIbIflush): a 1-byte RDMA READ of
 * each received Simple slice on a loopback QP before the kernel reads it;
 * its shape, its data, and its cost in closed form.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>

#include "core/algo.h"
#include "core/exec_data.h"
#include "core/nccl_tune.h"
#include "core/proto.h"
#include "core/results.h"
#include "sim/exec.h"
#include "sim/opcode.h"
#include "sim/nccl_system.h"
#include "sim/params.h"
#include "sim/wire.h"
#include "tests/run_status.h"
#include "tests/sim_sched.h"

#define THRESHOLD 8192u

static struct cc_schedule *build(enum cc_proto proto, uint32_t k, uint64_t count,
				 uint64_t threshold)
{
	struct cc_coll_params p;
	char err[256];

	cc_coll_params_default(&p);
	p.proto = proto;
	cc_coll_params_fill(&p, 0, 0);
	p.nranks = k;
	p.count = count;
	p.ar_split = true;
	p.ar_threshold = threshold;
	struct cc_schedule *s = cc_build(&p, err, sizeof(err));
	assert_non_null(s);
	return s;
}

/* Counts rank r's data sends: split ones (a WRITE, then the 0-byte WRITE
 * WITH IMM, then one doorbell of both) and whole ones, checking each. */
static void count_sends(const struct cc_schedule *s, uint32_t r, uint64_t threshold,
			uint32_t *split, uint32_t *whole)
{
	const struct cc_rank_sched *rs = &s->ranks[r];

	for (uint32_t i = 0; i < rs->nops; i++) {
		const struct cc_op_send *w = &rs->ops[i].u.send;

		if (rs->ops[i].kind != CC_OP_POST_SEND || w->payload != CC_PAYLOAD_DATA)
			continue;
		if (w->opcode == CC_WR_RDMA_WRITE_WITH_IMM) {
			assert_true(w->sge.length <= threshold);
			assert_true(w->flags & CC_SEND_SIGNALED);
			assert_int_equal(w->imm, w->sge.length);
			++*whole;
			continue;
		}
		assert_int_equal(w->opcode, CC_WR_RDMA_WRITE);
		assert_true(w->sge.length > threshold);
		assert_int_equal(w->flags, 0);
		assert_true(i + 2 < rs->nops);
		const struct cc_op *imm = &rs->ops[i + 1], *db = &rs->ops[i + 2];

		assert_int_equal(imm->kind, CC_OP_POST_SEND);
		assert_int_equal(imm->u.send.opcode, CC_WR_RDMA_WRITE_WITH_IMM);
		assert_int_equal(imm->u.send.num_sge, 0);
		assert_int_equal(imm->u.send.flags, CC_SEND_SIGNALED);
		assert_int_equal(imm->u.send.imm, w->sge.length); /* the size, as NCCL's immData */
		assert_int_equal(imm->u.send.qp, w->qp);
		assert_int_equal(imm->u.send.remote_mr, w->remote_mr);
		assert_int_equal(db->kind, CC_OP_DOORBELL);
		assert_int_equal(db->u.doorbell.nwqe, 2);
		++*split;
	}
}

/* Two ranks, Simple: each of the ring's 3 slices per rank is half the
 * array.  16384 B: 8192 B slices, at the threshold, whole; 16392 B:
 * 8196 B slices, split. */
static void split_only_above_the_threshold(void **state)
{
	(void)state;
	static const struct {
		uint64_t count;
		uint32_t split, whole;
	} want[] = { { 4096, 0, 2 }, { 4098, 2, 0 } };

	for (size_t c = 0; c < sizeof(want) / sizeof(want[0]); c++) {
		struct cc_schedule *s = build(CC_PROTO_SIMPLE, 2, want[c].count, THRESHOLD);

		for (uint32_t r = 0; r < 2; r++) {
			uint32_t split = 0, whole = 0;

			count_sends(s, r, THRESHOLD, &split, &whole);
			assert_int_equal(split, want[c].split);
			assert_int_equal(whole, want[c].whole);
		}
		cc_schedule_free(s);
	}
}

/* NCCL_IB_ADAPTIVE_ROUTING unset: on for an InfiniBand port, off for
 * RoCE; set, it wins either way; NCCL_IB_AR_THRESHOLD unset is 8192. */
static void the_link_and_the_variables_decide(void **state)
{
	(void)state;
	static const struct {
		const char *preset, *ar, *threshold;
		bool split;
		uint64_t at;
	} want[] = {
		{ "ib-ndr", NULL, NULL, true, 8192 },
		{ "roce-400g", NULL, NULL, false, 8192 },
		{ "ib-ndr", "0", NULL, false, 8192 },
		{ "roce-400g", "1", "0", true, 0 },
		{ "ib-hdr", NULL, "65536", true, 65536 },
	};
	char err[200];

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct cc_nccl_env e;
		struct cc_coll_params p;
		struct sim_params f;

		cc_nccl_env_init(&e);
		if (want[i].ar)
			assert_int_equal(cc_nccl_env_set(&e, "NCCL_IB_ADAPTIVE_ROUTING", want[i].ar,
							 err, sizeof(err)), 0);
		if (want[i].threshold)
			assert_int_equal(cc_nccl_env_set(&e, "NCCL_IB_AR_THRESHOLD",
							 want[i].threshold, err, sizeof(err)), 0);
		assert_int_equal(sim_params_preset(want[i].preset, &f), 0);
		cc_coll_params_default(&p);
		assert_false(p.ar_split);
		sim_nccl_transport_for(&p, &f, &e);
		assert_int_equal(p.ar_split, want[i].split);
		assert_int_equal(p.ar_threshold, want[i].at);
	}
}

/* The data lands right on the data executor and the simulator, every
 * protocol (LL and LL128 slices above the threshold split too: NCCL's
 * rule is the message's size), threshold 0 (every slice with data split)
 * and 8192. */
static void data_right_on_both_executors(void **state)
{
	(void)state;
	static const uint32_t ks[] = { 2, 3, 5 };
	static const uint64_t counts[] = { 1, 1000, 1 << 18 };
	static const uint64_t thresholds[] = { 0, THRESHOLD };
	struct sim_params f;

	assert_int_equal(sim_params_preset("ib-ndr", &f), 0);
	for (int pr = 0; pr < CC_PROTO_COUNT; pr++)
		for (size_t ki = 0; ki < 3; ki++)
			for (size_t ci = 0; ci < 3; ci++)
				for (size_t ti = 0; ti < 2; ti++) {
					struct cc_schedule *s = build((enum cc_proto)pr, ks[ki],
								      counts[ci] * ks[ki],
								      thresholds[ti]);
					both_executors_right(s, &f, 5, 9 + ci);
					cc_schedule_free(s);
				}
}

/* The wire carries the extra WQE as one more packet: per rank, the
 * packets of every WQE (a 0-byte WRITE WITH IMM is one packet of headers
 * and the immediate) plus the ACKs, exactly; the data bytes stay
 * 2N(k-1)/k. */
static void the_extra_packet_on_the_wire(void **state)
{
	(void)state;
	uint32_t k = 4;
	uint64_t n = 1 << 20;
	struct cc_schedule *s = build(CC_PROTO_SIMPLE, k, n / 4, THRESHOLD);
	struct sim_params f;
	struct cc_sim_opts o = { .fabric = &f, .topo = SIM_TOPO_STAR, .seed = 1, .check = true };
	struct cc_sim_result res;

	assert_int_equal(sim_params_preset("ib-ndr", &f), 0);
	assert_int_equal(cc_sim_run(s, &o, &res), 0);
	assert_run_status(res.err, CC_RUN_OK);
	assert_int_equal(res.wrong, 0);
	for (uint32_t r = 0; r < k; r++) {
		const struct cc_rank_sched *rs = &s->ranks[r];
		uint64_t want = 0, zero_imm = 0;

		for (uint32_t i = 0; i < rs->nops; i++) {
			const struct cc_op_send *w = &rs->ops[i].u.send;
			struct sim_wire_seg seg;
			uint32_t len = w->num_sge ? w->sge.length : 0;

			if (rs->ops[i].kind != CC_OP_POST_SEND)
				continue;
			assert_int_equal(sim_wire_segment(sim_msg_of_opcode(w->opcode), len,
							  f.link.mtu_bytes, &seg), 0);
			want += sim_wire_msg_sum(f.link.type, &seg).wire;
			zero_imm += w->opcode == CC_WR_RDMA_WRITE_WITH_IMM && !w->num_sge;
		}
		/* 2(k-1) = 6 steps of a 256 KiB chunk, each one slice above
		 * the threshold: split */
		assert_int_equal(zero_imm, 2 * (k - 1));
		want += res.rank[r].acks * sim_wire_bytes(f.link.type, SIM_BTH_ACK, 0);
		assert_int_equal(res.rank[r].wire_bytes, want);
		assert_int_equal(res.rank[r].data_bytes, 2 * n * (k - 1) / k);
	}
	cc_sim_result_free(&res);
	cc_schedule_free(s);
}

/* NCCL_BUFFSIZE of 8 MiB: Simple slots of 1 MiB (an eighth, NCCL_STEPS)
 * and chunks of 4; LL and LL128 keep theirs; given sizes win; unset,
 * NCCL's 4 MiB (512 KiB slots). */
static void the_buffer_size_sets_simple_slots(void **state)
{
	(void)state;
	struct cc_nccl_env e;
	struct sim_params f;
	char err[200];

	cc_nccl_env_init(&e);
	assert_int_equal(sim_params_preset("ib-ndr", &f), 0);
	for (int set = 0; set < 2; set++) {
		if (set)
			assert_int_equal(cc_nccl_env_set(&e, "NCCL_BUFFSIZE", "8388608", err,
							 sizeof(err)), 0);
		for (int pr = 0; pr < CC_PROTO_COUNT; pr++) {
			struct cc_coll_params p;

			cc_coll_params_default(&p);
			p.proto = (enum cc_proto)pr;
			sim_nccl_transport_for(&p, &f, &e);
			assert_int_equal(p.buff_bytes, set ? 8388608 : 0);
			cc_coll_params_fill(&p, 0, 0);
			if (pr == CC_PROTO_SIMPLE) {
				assert_int_equal(p.slot_bytes, set ? 1048576 : 524288);
				assert_int_equal(p.chunk_bytes, 4 * p.slot_bytes);
			} else {
				assert_int_equal(p.slot_bytes, cc_proto_slot_bytes(p.proto));
			}
			p.slot_bytes = 4096;
			p.chunk_bytes = 8192;
			cc_coll_params_fill(&p, 1, 1);
			assert_int_equal(p.slot_bytes, 4096);
			assert_int_equal(p.chunk_bytes, 8192);
		}
	}
}

/* NCCL_NET_GDR_LEVEL=LOC: no GPUDirect RDMA, the staging in host memory
 * (the fabric's host-staging mode); any other level keeps what the fabric
 * says (a GPU's NIC is behind its PCIe switch: PIX). */
static void gdr_level_loc_stages_in_host_memory(void **state)
{
	(void)state;
	static const struct {
		const char *level;
		bool fabric_gdr;
		enum cc_mem_kind stage;
	} want[] = {
		{ NULL, true, CC_MEM_GPU },   { "LOC", true, CC_MEM_HOST },
		{ "PIX", true, CC_MEM_GPU },  { "SYS", true, CC_MEM_GPU },
		{ "SYS", false, CC_MEM_HOST }, { NULL, false, CC_MEM_HOST },
	};
	char err[200];

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct cc_nccl_env e;
		struct cc_coll_params p;
		struct sim_params f;

		cc_nccl_env_init(&e);
		if (want[i].level)
			assert_int_equal(cc_nccl_env_set(&e, "NCCL_NET_GDR_LEVEL", want[i].level, err,
							 sizeof(err)), 0);
		assert_int_equal(sim_params_preset("ib-ndr", &f), 0);
		f.host.gpu_dma = want[i].fabric_gdr ? SIM_GPU_DMA_GPUDIRECT
						    : SIM_GPU_DMA_HOST_STAGING;
		cc_coll_params_default(&p);
		cc_sim_stage_for(&p, &f);
		sim_nccl_transport_for(&p, &f, &e);
		assert_int_equal(cc_coll_stage_mem(&p), want[i].stage);
	}
}

/* A ring collective of k ranks, NCCL's GDR flush asked for or not. */
static struct cc_schedule *build_flush(enum cc_proto proto, enum cc_transport t, uint32_t k,
				       uint64_t count, uint32_t ranks_per_node,
				       enum cc_mem_kind stage, bool flush)
{
	struct cc_coll_params p;
	char err[256];

	cc_coll_params_default(&p);
	p.proto = proto;
	p.transport = t;
	cc_coll_params_fill(&p, 0, 0);
	p.nranks = k;
	p.count = count;
	p.ranks_per_node = ranks_per_node;
	p.stage_mem = stage;
	p.gdr_flush = flush;
	struct cc_schedule *s = cc_build(&p, err, sizeof(err));
	assert_non_null(s);
	return s;
}

/* Rank r's flush READs, each checked: on a QP connected to itself, one
 * signaled byte from a receive stage slot into a host word. */
static uint32_t count_flushes(const struct cc_schedule *s, uint32_t r)
{
	const struct cc_rank_sched *rs = &s->ranks[r];
	uint32_t n = 0;

	for (uint32_t i = 0; i < rs->nops; i++) {
		const struct cc_op_send *w = &rs->ops[i].u.send;

		if (rs->ops[i].kind != CC_OP_POST_SEND || w->opcode != CC_WR_RDMA_READ)
			continue;
		const struct cc_qp *qp = &rs->qps[w->qp];
		const struct cc_buffer *from = &rs->bufs[rs->mrs[w->remote_mr].buf];
		const struct cc_buffer *to = &rs->bufs[rs->mrs[w->sge.mr].buf];

		assert_int_equal(qp->peer, r);
		assert_int_equal(qp->peer_qp, w->qp);
		assert_true(w->flags & CC_SEND_SIGNALED);
		assert_int_equal(w->num_sge, 1);
		assert_int_equal(w->sge.length, 1);
		assert_int_equal(from->role, CC_BUF_RECV_STAGE);
		assert_true(rs->mrs[w->remote_mr].access & CC_ACCESS_REMOTE_READ);
		assert_int_equal(to->role, CC_BUF_FLUSH);
		assert_int_equal(to->mem, CC_MEM_HOST);
		n++;
	}
	return n;
}

/* Whether op i of rank r waits, directly, for a poll of a flush READ. */
static bool after_flush(const struct cc_rank_sched *rs, uint32_t i)
{
	for (uint32_t d = 0; d < rs->ops[i].ndeps; d++) {
		const struct cc_op *o = &rs->ops[rs->deps[rs->ops[i].dep_first + d]];

		if (o->kind == CC_OP_POLL_CQ &&
		    rs->ops[o->u.poll.wr_id].u.send.opcode == CC_WR_RDMA_READ &&
		    rs->ops[o->u.poll.wr_id].kind == CC_OP_POST_SEND)
			return true;
	}
	return false;
}

/* Where the staging lives (NCCL's net.cc sendProxyConnect and
 * recvProxyConnect): LL's send stage to a peer on another node in host
 * memory even with GPUDirect RDMA, every other stage with the staging:
 * LL inside a node, LL128 and Simple anywhere, and every receive stage.
 * 4 ranks, 2 a node. */
static void ll_sends_from_host_memory(void **state)
{
	(void)state;
	for (int pr = 0; pr < CC_PROTO_COUNT; pr++)
		for (int st = 0; st < CC_MEM_KIND_COUNT; st++) {
			struct cc_schedule *s = build_flush((enum cc_proto)pr, CC_WRITE_IMM, 4,
							    4 * 1000, 2, (enum cc_mem_kind)st,
							    false);
			uint32_t host_sends = 0;

			for (uint32_t r = 0; r < 4; r++) {
				const struct cc_rank_sched *rs = &s->ranks[r];

				for (uint32_t b = 0; b < rs->nbufs; b++) {
					const struct cc_buffer *buf = &rs->bufs[b];
					bool across = buf->peer >= 0 && (uint32_t)buf->peer / 2 != r / 2;
					enum cc_mem_kind want = (enum cc_mem_kind)st;

					if (buf->role != CC_BUF_SEND_STAGE &&
					    buf->role != CC_BUF_RECV_STAGE)
						continue;
					if (buf->role == CC_BUF_SEND_STAGE && across &&
					    pr == CC_PROTO_LL)
						want = CC_MEM_HOST;
					assert_int_equal(buf->mem, want);
					host_sends += buf->role == CC_BUF_SEND_STAGE &&
						      buf->mem == CC_MEM_HOST;
				}
			}
			/* the ring 0 1 2 3 crosses the network at 1 -> 2 and 3 -> 0 */
			assert_int_equal(host_sends, st == CC_MEM_HOST ? 4 : pr == CC_PROTO_LL ? 2 : 0);
			cc_schedule_free(s);
		}
}

/* All-to-all's LL (forced: NCCL's own choice runs none over the network)
 * on NCCL's shared point-to-point buffers: both stages of a peer on another
 * node in host memory, those inside the node with the staging. */
static void p2p_ll_stages_in_host_memory(void **state)
{
	struct cc_coll_params p;
	char err[256];

	(void)state;
	cc_coll_params_default(&p);
	p.coll = CC_ALLTOALL;
	p.algo = CC_ALGO_DIRECT;
	p.proto = CC_PROTO_LL;
	cc_coll_params_fill(&p, 0, 0);
	p.nranks = 4;
	p.count = 4 * 256;
	p.ranks_per_node = 2;
	struct cc_schedule *s = cc_build(&p, err, sizeof(err));
	uint32_t host = 0;

	assert_non_null(s);
	for (uint32_t r = 0; r < 4; r++)
		for (uint32_t b = 0; b < s->ranks[r].nbufs; b++) {
			const struct cc_buffer *buf = &s->ranks[r].bufs[b];

			if (buf->role != CC_BUF_SEND_STAGE && buf->role != CC_BUF_RECV_STAGE)
				continue;
			assert_int_equal(buf->mem, (uint32_t)buf->peer / 2 != r / 2 ? CC_MEM_HOST
										     : CC_MEM_GPU);
			host += buf->mem == CC_MEM_HOST;
		}
	/* each rank: a send and a receive stage to each of its 2 peers across */
	assert_int_equal(host, 4 * 2 * 2);
	cc_schedule_free(s);
}

/* Simple over the network into GPU memory: one flush per received slice,
 * and every reduce or copy that reads a receive stage waits for its
 * slice's flush.  None with LL or LL128 (NCCL: Simple only), inside a
 * node (P2P transport), with host staging (no GDR), or not asked. */
static void the_flush_in_the_schedule(void **state)
{
	(void)state;
	uint32_t k = 3;
	uint64_t count = 3 * 200000; /* 2.4 MB: two slices a step */

	for (int t = 0; t < CC_TRANSPORT_COUNT; t++) {
		struct cc_schedule *s = build_flush(CC_PROTO_SIMPLE, (enum cc_transport)t, k,
						    count, 0, CC_MEM_GPU, true);

		for (uint32_t r = 0; r < k; r++) {
			const struct cc_rank_sched *rs = &s->ranks[r];
			uint32_t reads = 0, loopback = 0, words = 0;

			for (uint32_t q = 0; q < rs->nqps; q++)
				loopback += rs->qps[q].peer == r;
			for (uint32_t b = 0; b < rs->nbufs; b++)
				words += rs->bufs[b].role == CC_BUF_FLUSH;
			assert_int_equal(loopback, 1);
			assert_int_equal(words, 1);
			for (uint32_t i = 0; i < rs->nops; i++) {
				const struct cc_op *o = &rs->ops[i];

				if (o->kind != CC_OP_REDUCE && o->kind != CC_OP_COPY)
					continue;
				for (int j = 0; j < o->u.calc.nsrc; j++)
					if (rs->bufs[o->u.calc.src[j].buf].role == CC_BUF_RECV_STAGE) {
						assert_true(after_flush(rs, i));
						reads++;
					}
			}
			/* 2(k-1) = 4 receiving steps of 2 slices */
			assert_int_equal(reads, 8);
			assert_int_equal(count_flushes(s, r), 8);
		}
		cc_schedule_free(s);
	}
	static const struct {
		enum cc_proto proto;
		uint32_t ranks_per_node;
		enum cc_mem_kind stage;
		bool asked;
	} none[] = {
		{ CC_PROTO_LL, 0, CC_MEM_GPU, true },
		{ CC_PROTO_LL128, 0, CC_MEM_GPU, true },
		{ CC_PROTO_SIMPLE, 3, CC_MEM_GPU, true },
		{ CC_PROTO_SIMPLE, 0, CC_MEM_HOST, true },
		{ CC_PROTO_SIMPLE, 0, CC_MEM_GPU, false },
	};
	for (size_t c = 0; c < sizeof(none) / sizeof(none[0]); c++) {
		struct cc_schedule *s = build_flush(none[c].proto, CC_WRITE_IMM, k, count,
						    none[c].ranks_per_node, none[c].stage,
						    none[c].asked);

		for (uint32_t r = 0; r < k; r++) {
			assert_int_equal(count_flushes(s, r), 0);
			for (uint32_t q = 0; q < s->ranks[r].nqps; q++)
				assert_int_not_equal(s->ranks[r].qps[q].peer, r);
		}
		cc_schedule_free(s);
	}
}

/* The flushed schedules carry their data right on both executors, every
 * transport and protocol, 2, 3 and 5 ranks. */
static void the_flush_keeps_the_data_right(void **state)
{
	(void)state;
	static const uint32_t ks[] = { 2, 3, 5 };
	static const uint64_t counts[] = { 1, 1000, 1 << 18 };
	struct sim_params f;

	assert_int_equal(sim_params_preset("ib-hdr", &f), 0);
	for (int t = 0; t < CC_TRANSPORT_COUNT; t++)
		for (int pr = 0; pr < CC_PROTO_COUNT; pr++)
			for (size_t ki = 0; ki < 3; ki++)
				for (size_t ci = 0; ci < 3; ci++) {
					struct cc_schedule *s = build_flush(
						(enum cc_proto)pr, (enum cc_transport)t, ks[ki],
						counts[ci] * ks[ki], 0, CC_MEM_GPU, true);

					both_executors_right(s, &f, 7, 3 + ci);
					cc_schedule_free(s);
				}
}

/* What one flush costs on an idle NIC, in closed form: the proxy's post
 * (software.post_send_ps), the doorbell carrying the WQE (BlueFlame:
 * rnic.doorbell_ps, rnic.req_proc_ps), the READ request turned round
 * inside the NIC (rnic.resp_proc_ps), the responder's 1-byte PCIe read of
 * the slot (a request up and its completion down: 2 pcie.latency_ps on
 * an unlimited link), the response turned round (rnic.resp_proc_ps), its
 * byte written to the host word (1 pcie.latency_ps), its CQE
 * (rnic.cqe_write_ps), the proxy's poll (software.poll_cq_ps).  An 8 B allreduce on 2 ranks receives twice, each
 * on the critical path, so it takes 2 flushes longer; nothing of it goes
 * on the wire. */
static void the_flush_costs_in_closed_form(void **state)
{
	(void)state;
	const sim_time_ps lat = 1000000, resp = 100000, req = 30000, db = 7000, post = 200000,
			  poll = 50000, cqe = 11000;
	struct sim_params f;
	struct cc_sim_result res[2];

	assert_int_equal(sim_params_preset("ideal", &f), 0);
	f.pcie.latency_ps = lat;
	f.rnic.resp_proc_ps = resp;
	f.rnic.req_proc_ps = req;
	f.rnic.doorbell_ps = db;
	f.soft.post_send_ps = post;
	f.soft.poll_cq_ps = poll;
	f.rnic.cqe_write_ps = cqe;
	for (int on = 0; on < 2; on++) {
		struct cc_schedule *s = build_flush(CC_PROTO_SIMPLE, CC_WRITE_IMM, 2, 2, 0,
						    CC_MEM_GPU, on);
		struct cc_sim_opts o = { .fabric = &f, .topo = SIM_TOPO_STAR, .seed = 1,
					 .check = true };

		for (uint32_t r = 0; r < 2; r++)
			assert_int_equal(count_flushes(s, r), on ? 2 : 0);
		assert_int_equal(cc_sim_run(s, &o, &res[on]), 0);
		assert_run_status(res[on].err, CC_RUN_OK);
		assert_int_equal(res[on].wrong, 0);
		cc_schedule_free(s);
	}
	assert_int_equal(res[1].time_ps - res[0].time_ps,
			 2 * (post + db + req + resp + 2 * lat + resp + lat + cqe + poll));
	for (uint32_t r = 0; r < 2; r++) {
		assert_int_equal(res[1].rank[r].wire_bytes, res[0].rank[r].wire_bytes);
		assert_int_equal(res[1].rank[r].wqes, res[0].rank[r].wqes + 2);
	}
	cc_sim_result_free(&res[0]);
	cc_sim_result_free(&res[1]);
}

/* The fabric's GPU and the variables decide (sim_nccl_transport_for):
 * A100 (ib-hdr) flushes, H100 (ib-ndr) does not unless forced. */
static void the_gpu_and_the_variables_decide_the_flush(void **state)
{
	(void)state;
	static const struct {
		const char *fabric, *var, *value;
		bool flush;
	} want[] = {
		{ "ib-hdr", NULL, NULL, true },
		{ "ib-ndr", NULL, NULL, false },
		{ "ib-ndr", "NCCL_NET_FORCE_FLUSH", "1", true },
		{ "ib-hdr", "NCCL_GDR_FLUSH_DISABLE", "1", false },
	};
	char err[200];

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct cc_nccl_env e;
		struct cc_coll_params p;
		struct sim_params f;

		cc_nccl_env_init(&e);
		if (want[i].var)
			assert_int_equal(cc_nccl_env_set(&e, want[i].var, want[i].value, err,
							 sizeof(err)), 0);
		assert_int_equal(sim_params_preset(want[i].fabric, &f), 0);
		cc_coll_params_default(&p);
		sim_nccl_transport_for(&p, &f, &e);
		assert_int_equal(p.gdr_flush, want[i].flush);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(split_only_above_the_threshold),
		cmocka_unit_test(the_link_and_the_variables_decide),
		cmocka_unit_test(data_right_on_both_executors),
		cmocka_unit_test(the_extra_packet_on_the_wire),
		cmocka_unit_test(the_buffer_size_sets_simple_slots),
		cmocka_unit_test(gdr_level_loc_stages_in_host_memory),
		cmocka_unit_test(ll_sends_from_host_memory),
		cmocka_unit_test(p2p_ll_stages_in_host_memory),
		cmocka_unit_test(the_flush_in_the_schedule),
		cmocka_unit_test(the_flush_keeps_the_data_right),
		cmocka_unit_test(the_flush_costs_in_closed_form),
		cmocka_unit_test(the_gpu_and_the_variables_decide_the_flush),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
