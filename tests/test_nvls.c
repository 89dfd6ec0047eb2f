/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_nvls.c — NVLink SHARP (core/nvls.c) and the multicast QPs it
 * runs on (core/schedule.h):
 *   - the multicast semantics on a hand-built schedule: a WRITE lands at
 *     every member, the sender's own buffer included; a READ returns the
 *     members' values reduced, for sum, min and max;
 *   - what cc_schedule_validate() refuses on a multicast QP;
 *   - #wrong 0 from the data executor for allreduce, reduce-scatter and
 *     all-gather, k = 2, 3, 4 and 8, the dtypes and redops the NVSwitch
 *     reduces, awkward sizes, one and three channels, NCCL's chunk and
 *     tiny chunks on two slots (many loops, every slot reused), several
 *     interleavings;
 *   - what cc_params_check() refuses (not one node, a reduction the
 *     switch has not, LL, host buffers, broadcast), NCCL's chunk rule,
 *     the listing, and the text format of its QPs and ops;
 *   - the simulator (sim/nvls.c): #wrong 0 and within physics on one node
 *     for k = 2, 3, 5, 8 on ideal, ib-ndr and roce-400g; each GPU's NVLink
 *     payload exactly N + N/k out and N/k + N in for allreduce (kN and N
 *     for reduce-scatter, N and kN for all-gather) plus the flags; the
 *     closed form on the ideal fabric and busbw above the ring's; the
 *     same run twice; the refusal off an NVSwitch node, in a scenario at
 *     its 'algorithm';
 *   - the verbs executor's refusal. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/quick.h"
#include "tests/schedule_text.h"
#include <unistd.h>

#include "tests/files.h"

#include "backend/verbs_exec.h"
#include "core/algo.h"
#include "core/exec_data.h"
#include "core/results.h"
#include "core/word.h"
#include "sim/bound.h"
#include "sim/exec.h"
#include "sim/params.h"
#include "sim/physics.h"
#include "sim/scenario.h"
#include "sim/topo.h"
#include "sim/wire.h"

static struct cc_coll_params params(enum cc_coll c, uint32_t k, uint64_t count, enum cc_dtype d,
				    enum cc_redop op)
{
	struct cc_coll_params p;

	cc_coll_params_default(&p);
	p.algo = CC_ALGO_NVLS;
	p.coll = c;
	p.nranks = k;
	p.ranks_per_node = k;
	p.count = count;
	p.dtype = d;
	p.redop = op;
	cc_coll_params_fill(&p, 0, 0);
	return p;
}

static void run_checked(const struct cc_coll_params *p, uint64_t order)
{
	char err[256];
	struct cc_schedule *s = cc_build(p, err, sizeof(err));
	struct cc_data_opts o = { .seed = p->count * 3 + p->nranks, .order_seed = order };
	struct cc_data_result res;

	if (!s)
		fail_msg("build: %s", err);
	assert_int_equal(cc_data_run(s, &o, &res), 0);
	if (res.err.status != CC_RUN_OK || res.wrong)
		fail_msg("%s k=%u count=%llu %s %s chunk %llu x %u slots, %u channels, order %llu: "
			 "%llu wrong, %s", cc_coll_name[p->coll], p->nranks,
			 (unsigned long long)p->count, cc_dtype_name[p->dtype],
			 cc_redop_name[p->redop], (unsigned long long)p->chunk_bytes, p->nslots,
			 p->nchannels, (unsigned long long)order, (unsigned long long)res.wrong,
			 res.err.msg);
	cc_data_result_free(&res);
	cc_schedule_free(s);
}

/* ---- the multicast QP, by hand ---- */

enum { B_IN, B_OUT, B_MC, B_RES }; /* MR m covers buffer m */
#define MC_FLAGS 16                /* where the flag words start in B_MC */

/* k ranks, each with an input of 4 int32 (filled by the executor), an
 * output nobody uses, a multicast buffer (4 int32, then k flag words)
 * and a local result; one multicast QP each. */
static struct cc_schedule *mc_sched(uint32_t k)
{
	struct cc_coll_params p;
	struct cc_schedule *s;

	cc_coll_params_default(&p);
	p.nranks = k;
	p.count = 4;
	p.dtype = CC_INT32;
	s = cc_schedule_new(&p);
	assert_non_null(s);
	for (uint32_t r = 0; r < k; r++) {
		struct cc_rank_sched *rs = &s->ranks[r];
		static const enum cc_buf_role role[] = { CC_BUF_INPUT, CC_BUF_OUTPUT, CC_BUF_MCAST,
							 CC_BUF_SEND_STAGE };

		for (uint32_t b = 0; b < 4; b++) {
			cc_add_buffer(rs, &(struct cc_buffer){ CC_MEM_GPU, role[b],
							       b == B_MC ? MC_FLAGS + 8 * k : 16,
							       -1, 0 });
			cc_add_mr(rs, b, CC_ACCESS_LOCAL_WRITE | CC_ACCESS_REMOTE_WRITE |
						 CC_ACCESS_REMOTE_READ);
		}
		cc_add_cq(rs, 8);
		cc_add_qp(rs, &(struct cc_qp){ .peer = 0, .group = k, .max_send_wr = 8,
					       .max_inline = 64, .retry_cnt = 7, .rnr_retry = 7 });
	}
	return s;
}

/* Rank r: post a multicast op after ops deps[0 .. n), doorbell, poll;
 * the poll's index.  A READ reduces B_MC's data into B_RES; a WRITE of
 * `flag` > 0 puts it in the rank's flag word, else B_RES into B_MC. */
static uint32_t mc_op(struct cc_schedule *s, uint32_t r, enum cc_opcode opcode,
		      enum cc_redop redop, uint64_t flag, const uint32_t *deps, uint32_t n)
{
	struct cc_rank_sched *rs = &s->ranks[r];
	struct cc_op op = { .kind = CC_OP_POST_SEND };
	uint32_t i, db;

	op.u.send = (struct cc_op_send){ .qp = 0, .opcode = opcode, .flags = CC_SEND_SIGNALED,
					 .payload = CC_PAYLOAD_DATA, .num_sge = 1,
					 .sge = { .mr = B_RES, .length = 16 }, .remote_mr = B_MC,
					 .dtype = CC_INT32, .redop = redop };
	if (flag) {
		op.u.send.flags |= CC_SEND_INLINE;
		op.u.send.sge.length = 8;
		op.u.send.inline_value = flag;
		op.u.send.remote_offset = MC_FLAGS + 8 * r;
	}
	i = cc_add_op(rs, &op, deps, n);
	rs->ops[i].u.send.wr_id = i;
	db = cc_add_op(rs, &(struct cc_op){ .kind = CC_OP_DOORBELL,
					   .u.doorbell = { .qp = 0, .nwqe = 1 } }, &i, 1);
	return cc_add_op(rs, &(struct cc_op){ .kind = CC_OP_POLL_CQ,
					     .u.poll = { .cq = 0, .wr_id = i } }, &db, 1);
}

/* Rank r waits, after op `after`, for every rank's flag word to reach v:
 * the waits' indices into w. */
static void mc_waits(struct cc_schedule *s, uint32_t r, uint64_t v, uint32_t after, uint32_t *w)
{
	for (uint32_t j = 0; j < s->nranks; j++)
		w[j] = cc_add_op(&s->ranks[r], &(struct cc_op){ .kind = CC_OP_WAIT_MEM,
			.u.wait = { .buf = B_MC, .offset = MC_FLAGS + 8 * j, .value = v } },
			&after, 1);
}

#define MC_K 3

struct seen {
	int32_t in[MC_K][4], mc[MC_K][4], res[MC_K][4];
	uint64_t flags[MC_K][MC_K];
};

static void inspect(void *ctx, uint32_t rank, uint8_t *const *bufs)
{
	struct seen *v = ctx;

	memcpy(v->in[rank], bufs[B_IN], 16);
	memcpy(v->mc[rank], bufs[B_MC], 16);
	memcpy(v->res[rank], bufs[B_RES], 16);
	for (int j = 0; j < MC_K; j++)
		v->flags[rank][j] = cc_word_load(bufs[B_MC] + MC_FLAGS + 8 * j);
}

/* Each rank copies its input into its multicast buffer and multicasts
 * flag 1; once every flag is 1 it READs the buffer reduced over the ranks
 * and multicasts flag 2; once every flag is 2, rank 0 WRITEs its result
 * into every rank's multicast buffer.  Under several interleavings. */
static void test_mc_semantics(void **state)
{
	static const enum cc_redop ops[] = { CC_SUM, CC_MIN, CC_MAX };

	(void)state;
	for (int oi = 0; oi < 3; oi++)
		for (uint64_t order = 1; order < 6; order++) {
			struct cc_schedule *s = mc_sched(MC_K);
			struct seen v;
			struct cc_data_opts o = { .seed = 5 + order, .order_seed = order,
						  .inspect = inspect, .inspect_ctx = &v };
			struct cc_data_result res;
			uint32_t w[MC_K];
			char err[200];

			for (uint32_t r = 0; r < MC_K; r++) {
				struct cc_op cp = { .kind = CC_OP_COPY };
				uint32_t c, f, rd, f2;

				cp.u.calc = (struct cc_op_calc){ .nsrc = 1, .ndst = 1,
					.src = { { B_IN, 0 } }, .dst = { { B_MC, 0 } }, .count = 4,
					.dtype = CC_INT32, .where = CC_ON_GPU };
				c = cc_add_op(&s->ranks[r], &cp, NULL, 0);
				f = mc_op(s, r, CC_WR_RDMA_WRITE, CC_SUM, 1, &c, 1);
				mc_waits(s, r, 1, f, w);
				rd = mc_op(s, r, CC_WR_RDMA_READ, ops[oi], 0, w, MC_K);
				f2 = mc_op(s, r, CC_WR_RDMA_WRITE, CC_SUM, 2, &rd, 1);
				if (r == 0) {
					mc_waits(s, r, 2, f2, w);
					mc_op(s, r, CC_WR_RDMA_WRITE, CC_SUM, 0, w, MC_K);
				}
			}
			assert_int_equal(cc_schedule_validate(s, err, sizeof(err)), 0);
			assert_int_equal(cc_data_run(s, &o, &res), 0);
			assert_int_equal(res.err.status, CC_RUN_OK);
			for (int e = 0; e < 4; e++) {
				int32_t want = v.in[0][e];

				for (uint32_t j = 1; j < MC_K; j++) {
					int32_t x = v.in[j][e];

					/* int32 sums wrap, as the switch's (and
					 * core/dtype.c's) two's-complement adds */
					want = ops[oi] == CC_SUM ? (int32_t)((uint32_t)want + (uint32_t)x)
					       : ops[oi] == CC_MIN ? (x < want ? x : want)
								   : (x > want ? x : want);
				}
				for (uint32_t r = 0; r < MC_K; r++) {
					assert_int_equal(v.res[r][e], want);
					/* rank 0's WRITE reached every rank, itself too */
					assert_int_equal(v.mc[r][e], want);
				}
			}
			for (uint32_t r = 0; r < MC_K; r++)
				for (uint32_t j = 0; j < MC_K; j++)
					assert_int_equal(v.flags[r][j], 2);
			cc_data_result_free(&res);
			cc_schedule_free(s);
		}
}

static void expect_invalid(struct cc_schedule *s, const char *what)
{
	char err[256];

	assert_int_equal(cc_schedule_validate(s, err, sizeof(err)), -EINVAL);
	if (!strstr(err, what))
		fail_msg("\"%s\" does not say \"%s\"", err, what);
	cc_schedule_free(s);
}

static void test_mc_validate(void **state)
{
	struct cc_schedule *s;

	(void)state;
	s = mc_sched(2);
	mc_op(s, 0, CC_WR_ATOMIC_FETCH_ADD, CC_SUM, 0, NULL, 0);
	expect_invalid(s, "only RDMA_WRITE");

	s = mc_sched(2);
	mc_op(s, 0, CC_WR_RDMA_READ, CC_PROD, 0, NULL, 0);
	expect_invalid(s, "sum, min or max");

	s = mc_sched(3);
	s->ranks[2].qps[0].peer = 0;
	s->ranks[2].qps[0].group = 2; /* ranks 0..1: not rank 2 */
	expect_invalid(s, "multicast group");

	s = mc_sched(2);
	s->ranks[1].bufs[B_MC].size = 64; /* one object, two sizes */
	mc_op(s, 0, CC_WR_RDMA_WRITE, CC_SUM, 0, NULL, 0);
	expect_invalid(s, "one multicast object has one size");
}

/* ---- the algorithm on the data executor ---- */

struct combo {
	enum cc_dtype d;
	enum cc_redop op;
};

static void test_correct(void **state)
{
	/* what the NVSwitch reduces (ncclNvlsSupported) */
	static const struct combo reduce[] = {
		{ CC_FLOAT32, CC_SUM }, { CC_INT32, CC_MIN }, { CC_UINT32, CC_MAX },
		{ CC_INT64, CC_SUM },   { CC_UINT64, CC_MAX }, { CC_FLOAT16, CC_SUM },
		{ CC_BFLOAT16, CC_MIN }, { CC_FLOAT64, CC_SUM },
	};
	/* all-gather reduces nothing: any dtype */
	static const struct combo gather[] = {
		{ CC_INT8, CC_SUM }, { CC_FLOAT16, CC_PROD }, { CC_FLOAT32, CC_AVG },
		{ CC_FLOAT64, CC_SUM },
	};
	static const uint32_t ks[] = { 2, 3, 4, 8 };
	static const enum cc_coll colls[] = { CC_ALLREDUCE, CC_REDUCESCATTER, CC_ALLGATHER };
	unsigned long runs = 0;

	(void)state;
	for (size_t ci = 0; ci < 3; ci++)
		for (size_t ki = 0; ki < 4; ki++) {
			uint32_t k = ks[ki];
			const struct combo *cb = colls[ci] == CC_ALLGATHER ? gather : reduce;
			size_t ncb = colls[ci] == CC_ALLGATHER ? 4 : 8;
			/* per rank for reduce-scatter and all-gather */
			const uint64_t sizes[] = { 1, 7, 1031, 13 * k + 1, 70001 };

			for (size_t di = 0; di < ncb; di++) {
				if (matrix_quick() && di > 1)
					break;
				for (size_t si = 0; si < 5; si++)
					for (int tiny = 0; tiny < 2; tiny++)
						for (uint32_t ch = 1; ch <= 3; ch += 2) {
							struct cc_coll_params p = params(
								colls[ci], k, sizes[si], cb[di].d,
								cb[di].op);

							if (tiny && sizes[si] > 2000)
								continue;
							p.nchannels = ch;
							if (tiny) {
								/* 3-element chunks, 2 slots */
								p.chunk_bytes = 3 * cc_dtype_size(p.dtype);
								p.chunk_auto = false;
								p.nslots = 2;
							}
							run_checked(&p, sizes[si] + di * 7 + ch);
							runs++;
						}
			}
		}
	/* several interleavings of one schedule that reuses its slots */
	for (uint64_t order = 0; order < (matrix_quick() ? 4 : 24); order++)
		for (size_t ci = 0; ci < 3; ci++) {
			struct cc_coll_params p = params(colls[ci], 4, 203, CC_FLOAT32, CC_SUM);

			p.chunk_bytes = 8;
			p.chunk_auto = false;
			p.nslots = 2;
			p.nchannels = 2;
			run_checked(&p, order * 977 + 1);
			runs++;
		}
	print_message("%lu runs\n", runs);
}

/* The executor moved what the multicast schedule says: per rank the
 * WQEs' bytes, 2 N/k for allreduce (a chunk read, the same written), N
 * for reduce-scatter (its block read) and all-gather (its input written). */
static void test_bytes(void **state)
{
	(void)state;
	for (int c = 0; c < 3; c++) {
		static const enum cc_coll colls[] = { CC_ALLREDUCE, CC_REDUCESCATTER, CC_ALLGATHER };
		const uint32_t k = 4;
		const uint64_t n = 4096; /* divisible by k and by every chunk */
		struct cc_coll_params p = params(colls[c], k, n, CC_FLOAT32, CC_SUM);
		char err[200];
		struct cc_schedule *s = cc_build(&p, err, sizeof(err));
		struct cc_data_opts o = { .seed = 1, .order_seed = 2 };
		struct cc_data_result res;
		uint64_t want = colls[c] == CC_ALLREDUCE ? 2 * n * 4 / k : n * 4;

		assert_non_null(s);
		assert_int_equal(cc_data_run(s, &o, &res), 0);
		assert_int_equal(res.wrong, 0);
		for (uint32_t r = 0; r < k; r++) {
			assert_int_equal(res.data_bytes[r], want);
			assert_int_equal(cc_rank_data_bytes(&s->ranks[r]), want);
		}
		cc_data_result_free(&res);
		cc_schedule_free(s);
	}
}

/* The copies' warps, NCCL's (RunWorkColl<..., NCCL_ALGO_NVLS>, one node,
 * no registered buffers): beside 5 reduce warps (8 ranks; 7 at most 6)
 * the allreduce's scatter has 8 (or 7) and its gather 7 (or 6);
 * reduce-scatter's scatter 15 (13), all-gather's gather 16. */
static void test_warps(void **state)
{
	static const struct {
		enum cc_coll c;
		uint32_t k;
		uint8_t scatter, gather;
	} cases[] = {
		{ CC_ALLREDUCE, 8, 8, 7 },     { CC_ALLREDUCE, 4, 7, 6 },
		{ CC_REDUCESCATTER, 8, 15, 0 }, { CC_REDUCESCATTER, 4, 13, 0 },
		{ CC_ALLGATHER, 8, 0, 16 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cc_coll_params p = params(cases[i].c, cases[i].k, 1u << 16, CC_FLOAT32, CC_SUM);
		char err[200];
		struct cc_schedule *s = cc_build(&p, err, sizeof(err));
		uint32_t seen = 0;

		assert_non_null(s);
		for (uint32_t r = 0; r < cases[i].k; r++)
			for (uint32_t j = 0; j < s->ranks[r].nops; j++) {
				const struct cc_op *o = &s->ranks[r].ops[j];

				if (o->kind != CC_OP_COPY)
					continue;
				assert_int_equal(o->u.calc.warps, o->tag.prim == CC_PRIM_SCATTER
								      ? cases[i].scatter
								      : cases[i].gather);
				seen++;
			}
		assert_true(seen > 0);
		cc_schedule_free(s);
	}
}

static void expect_refused(struct cc_coll_params p, const char *what)
{
	char err[256];
	enum cc_param f = CC_PARAM_FIELDS;

	assert_int_equal(cc_params_check(&p, &f, err, sizeof(err)), -EINVAL);
	if (!strstr(err, what))
		fail_msg("\"%s\" does not say \"%s\"", err, what);
	assert_int_equal(f, CC_PARAM_ALGO);
}

static void test_refusals(void **state)
{
	struct cc_coll_params p;

	(void)state;
	p = params(CC_ALLREDUCE, 8, 64, CC_FLOAT32, CC_SUM);
	p.ranks_per_node = 4;
	expect_refused(p, "one node with an NVSwitch");
	p.ranks_per_node = 0;
	expect_refused(p, "one node with an NVSwitch");
	expect_refused(params(CC_ALLREDUCE, 8, 64, CC_FLOAT32, CC_PROD), "does not reduce float");
	expect_refused(params(CC_REDUCESCATTER, 8, 64, CC_FLOAT32, CC_MAX), "with max");
	expect_refused(params(CC_ALLREDUCE, 8, 64, CC_INT8, CC_SUM), "does not reduce int8");
	expect_refused(params(CC_ALLREDUCE, 8, 64, CC_FLOAT32, CC_AVG), "with avg");
	p = params(CC_ALLREDUCE, 8, 64, CC_FLOAT32, CC_SUM);
	p.proto = CC_PROTO_LL;
	expect_refused(p, "Simple");
	p = params(CC_ALLREDUCE, 8, 64, CC_FLOAT32, CC_SUM);
	p.mem = CC_MEM_HOST;
	expect_refused(p, "GPU memory");
	expect_refused(params(CC_BROADCAST, 8, 64, CC_FLOAT32, CC_SUM), "does not build broadcast");
	/* all-gather reduces nothing: any dtype and redop */
	p = params(CC_ALLGATHER, 8, 64, CC_INT8, CC_PROD);
	assert_int_equal(cc_params_check(&p, NULL, (char[64]){0}, 64), 0);
}

/* NCCL's chunk (calcCollChunking, NVLS): 128 KiB, then 64, 32, 16 KiB
 * below 64, 8, 2 x (k x chunk) bytes per channel. */
static void test_chunk(void **state)
{
	static const struct {
		enum cc_coll c;
		uint32_t k, ch;
		uint64_t bytes, chunk;
	} cases[] = {
		{ CC_ALLREDUCE, 8, 16, 1ull << 30, 131072 },   /* 64 MiB a channel */
		{ CC_ALLREDUCE, 8, 16, 512ull << 20, 65536 },  /* 32 MiB */
		{ CC_ALLREDUCE, 8, 16, 64ull << 20, 65536 },   /* 4 MiB: not < 8 x 8 x 64K */
		{ CC_ALLREDUCE, 8, 16, 32ull << 20, 32768 },   /* 2 MiB */
		{ CC_ALLREDUCE, 8, 16, 8ull << 20, 32768 },    /* 512 KiB: not < 2 x 8 x 32K */
		{ CC_ALLREDUCE, 8, 16, 4ull << 20, 16384 },
		{ CC_ALLREDUCE, 8, 1, 64ull << 20, 131072 },   /* not < 64 x 8 x 128K */
		{ CC_ALLREDUCE, 8, 1, 32ull << 20, 65536 },
		{ CC_ALLREDUCE, 2, 1, 16ull << 20, 131072 },   /* not < 64 x 2 x 128K */
		{ CC_ALLREDUCE, 2, 1, (16ull << 20) - 4, 65536 },
		/* reduce-scatter and all-gather: k x the per-rank count (given in bytes here) */
		{ CC_REDUCESCATTER, 8, 16, 128ull << 20, 131072 }, /* 1 GiB: 64 MiB a channel */
		{ CC_ALLGATHER, 8, 16, 1ull << 20, 32768 },        /* 8 MiB: 512 KiB a channel */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cc_coll_params p = params(cases[i].c, cases[i].k, cases[i].bytes / 4,
						 CC_FLOAT32, CC_SUM);

		p.nchannels = cases[i].ch;
		assert_true(cc_coll_chunk_per_size(&p));
		if (cc_coll_chunk_bytes(&p) != cases[i].chunk)
			fail_msg("case %zu: chunk %llu, want %llu", i,
				 (unsigned long long)cc_coll_chunk_bytes(&p),
				 (unsigned long long)cases[i].chunk);
		p.chunk_auto = false;
		p.chunk_bytes = 4096;
		assert_false(cc_coll_chunk_per_size(&p));
		assert_int_equal(cc_coll_chunk_bytes(&p), 4096);
	}
}

struct count {
	uint32_t n[CC_PRIM_COUNT];
	uint64_t elems[CC_PRIM_COUNT];
};

static void count_step(void *ctx, uint32_t rank, const struct cc_prim_step *st)
{
	struct count *c = ctx;

	(void)rank;
	c->n[st->prim]++;
	c->elems[st->prim] += st->nelem;
}

/* The listing: per loop a scatter, the head's step and a gather, covering
 * the array (allreduce), each head its k-th. */
static void test_primitives(void **state)
{
	struct cc_coll_params p = params(CC_ALLREDUCE, 4, 1000, CC_FLOAT32, CC_SUM);
	struct count c = { 0 };

	(void)state;
	p.chunk_bytes = 4 * 50; /* 50 elements a head: 5 loops of 200 */
	p.chunk_auto = false;
	p.nslots = 2;
	cc_algo_primitives(&p, 1, count_step, &c);
	assert_int_equal(c.n[CC_PRIM_SCATTER], 5);
	assert_int_equal(c.n[CC_PRIM_GATHER], 5);
	assert_int_equal(c.n[CC_PRIM_DIRECT_RECV_DIRECT_SEND], 5);
	assert_int_equal(c.elems[CC_PRIM_SCATTER], 1000);
	assert_int_equal(c.elems[CC_PRIM_GATHER], 1000);
	assert_int_equal(c.elems[CC_PRIM_DIRECT_RECV_DIRECT_SEND], 250);
}


/* `cclab schedule`: a multicast QP names its members, a READ on it its
 * reduction. */
static void test_print(void **state)
{
	struct cc_coll_params p = params(CC_ALLREDUCE, 2, 8, CC_FLOAT32, CC_SUM);
	char err[200];
	struct cc_schedule *s = cc_build(&p, err, sizeof(err));
	char *out;

	(void)state;
	assert_non_null(s);
	out = schedule_text(cc_schedule_print, s, 1);
	assert_non_null(strstr(out, "r1 buf 2 role=mcast mem=gpu size=64 peer=- ch=0\n"));
	assert_non_null(strstr(out, "r1 qp 1 peer=nvswitch peer_qp=- send_cq=0 recv_cq=0 "
				    "max_send_wr=27 max_recv_wr=0 max_inline=64 retry_cnt=7 "
				    "rnr_retry=7 ch=0 members=0-1\n"));
	assert_non_null(strstr(out, "opcode=RDMA_READ flags=SIGNALED sge=mr4+0:16 "
				    "remote=mc0-1.mr2+16 reduce=sum:float payload=data"));
	assert_non_null(strstr(out, "prim=directRecvDirectSend chunk=1 step=1"));
	free(out);
	cc_schedule_free(s);
}

/* ---- the simulator ---- */

/* Runs p on one node of its ranks (sim_net_node()) on fabric f: a clean
 * run within physics (sim/physics.h); the schedule in *sched when asked. */
static void nvls_sim(const struct cc_coll_params *p, const struct sim_params *f, bool check,
		    struct cc_sim_result *res, struct sim_net *net)
{
	char err[256];
	struct cc_schedule *s = cc_build(p, err, sizeof(err));
	struct cc_sim_opts o = { .fabric = f, .net = net, .seed = 7, .check = check };
	uint64_t size = (p->coll == CC_ALLREDUCE ? p->count : p->count * p->nranks) *
			cc_dtype_size(p->dtype);

	if (!s)
		fail_msg("build: %s", err);
	assert_int_equal(cc_sim_run(s, &o, res), 0);
	if (res->err.status != CC_RUN_OK || (check && res->wrong))
		fail_msg("%s k=%u count=%llu %s %s on %s: %llu wrong, %s", cc_coll_name[p->coll],
			 p->nranks, (unsigned long long)p->count, cc_dtype_name[p->dtype],
			 cc_redop_name[p->redop], f->name, (unsigned long long)res->wrong,
			 res->err.msg);
	if (!sim_physical(net, f, p, size, res->time_ps, sim_bound_ps(s, f, net), err,
			  sizeof(err)))
		fail_msg("%s k=%u count=%llu on %s: %s", cc_coll_name[p->coll], p->nranks,
			 (unsigned long long)p->count, f->name, err);
	cc_schedule_free(s);
}

static void node_net(struct sim_net *net, uint32_t k)
{
	char err[200];

	sim_net_init(net, NULL);
	assert_int_equal(sim_topo_net_make(net, SIM_TOPO_NODE, k, err, sizeof(err)), 0);
}

static void fabric(struct sim_params *f, const char *name)
{
	assert_int_equal(sim_params_preset(name, f), 0);
}

/* #wrong 0 with the bytes moved as the simulator moves them, on the
 * ideal fabric and on one with every latency (ib-ndr's H100 node). */
static void test_sim_correct(void **state)
{
	static const enum cc_coll colls[] = { CC_ALLREDUCE, CC_REDUCESCATTER, CC_ALLGATHER };
	static const uint32_t ks[] = { 2, 3, 5, 8 };
	static const char *const fabrics[] = { "ideal", "ib-ndr", "roce-400g" };

	(void)state;
	for (size_t fi = 0; fi < 3; fi++)
		for (size_t ki = 0; ki < 4; ki++) {
			struct sim_params f;
			struct sim_net net;

			fabric(&f, fabrics[fi]);
			node_net(&net, ks[ki]);
			for (size_t ci = 0; ci < 3; ci++)
				for (uint64_t n = 1; n < 100000; n = n * 37 + 5) {
					struct cc_coll_params p = params(colls[ci], ks[ki], n,
									 fi ? CC_BFLOAT16 : CC_INT32,
									 fi == 1 ? CC_MAX : CC_SUM);
					struct cc_sim_result res;

					p.nchannels = (uint32_t)(n % 3) + 1;
					nvls_sim(&p, &f, true, &res, &net);
					cc_sim_result_free(&res);
				}
			sim_net_free(&net);
		}
}

/* One rank's NVLink, to its NVSwitch (out) or from it (in). */
static const struct cc_sim_link_stats *nvlink(const struct cc_sim_result *res, uint32_t r,
					      bool out)
{
	char gpu[32];

	snprintf(gpu, sizeof(gpu), "n0.gpu%u", r);
	for (uint32_t i = 0; i < res->nlinks; i++) {
		const struct cc_sim_link_stats *l = &res->links[i];

		if (!strcmp(out ? l->from : l->to, gpu) &&
		    !strcmp(out ? l->to : l->from, "n0.nvswitch"))
			return l;
	}
	fail_msg("no NVLink of rank %u", r);
	return NULL;
}

/* The payload each rank's NVLink carries, exactly: allreduce of N bytes
 * out N (its share of every reduction) + N/k (its stores), in N/k (its
 * results) + N (every store's copy); reduce-scatter (N a block) out kN,
 * in N; all-gather out N, in kN — and the flags: two 8-byte words a loop
 * out, every rank's two in. */
static void test_sim_link_bytes(void **state)
{
	static const enum cc_coll colls[] = { CC_ALLREDUCE, CC_REDUCESCATTER, CC_ALLGATHER };

	(void)state;
	for (uint32_t k = 4; k <= 8; k += 4)
		for (size_t ci = 0; ci < 3; ci++) {
			struct cc_coll_params p = params(colls[ci], k, 1 << 18, CC_FLOAT32, CC_SUM);
			uint64_t n = p.count * 4, out, in, flags = 0;
			struct sim_params f;
			struct sim_net net;
			struct cc_sim_result res;
			char err[200];
			struct cc_schedule *s;

			p.nchannels = 2;
			s = cc_build(&p, err, sizeof(err));
			assert_non_null(s);
			for (uint32_t i = 0; i < s->ranks[0].nops; i++)
				flags += s->ranks[0].ops[i].kind == CC_OP_POST_SEND &&
					 s->ranks[0].ops[i].u.send.payload == CC_PAYLOAD_CTRL;
			cc_schedule_free(s);
			out = colls[ci] == CC_ALLREDUCE ? n + n / k
			      : colls[ci] == CC_REDUCESCATTER ? k * n : n;
			in = colls[ci] == CC_ALLREDUCE ? n / k + n
			     : colls[ci] == CC_REDUCESCATTER ? n : k * n;
			fabric(&f, "ideal");
			node_net(&net, k);
			nvls_sim(&p, &f, false, &res, &net);
			for (uint32_t r = 0; r < k; r++) {
				assert_int_equal(nvlink(&res, r, true)->tx_payload_bytes, out + 8 * flags);
				assert_int_equal(nvlink(&res, r, false)->tx_payload_bytes,
						 in + 8 * flags * k);
			}
			cc_sim_result_free(&res);
			sim_net_free(&net);
		}
}

/* Wire bytes of a `bytes` message of WRITE (write) or READ response
 * packets at MTU 4096 on IB (sim/wire.h). */
static double msg_wire(bool write, uint32_t bytes)
{
	double w = 0;
	uint32_t n = (bytes + 4095) / 4096;

	for (uint32_t i = 0; i < n; i++) {
		enum sim_bth_op op = n == 1	     ? (write ? SIM_BTH_WRITE_ONLY : SIM_BTH_READ_RESP_ONLY)
				     : i == 0	     ? (write ? SIM_BTH_WRITE_FIRST : SIM_BTH_READ_RESP_FIRST)
				     : i + 1 == n ? (write ? SIM_BTH_WRITE_LAST : SIM_BTH_READ_RESP_LAST)
						  : (write ? SIM_BTH_WRITE_MIDDLE
							   : SIM_BTH_READ_RESP_MIDDLE);

		w += sim_wire_bytes(SIM_LINK_IB, op, i + 1 == n ? bytes - i * 4096 : 4096);
	}
	return w;
}

/* The closed form, on the ideal fabric (only the wire costs time), one
 * node of k = 8 GPUs at B = 100 Gb/s each way, one channel, NCCL's 128 KiB
 * chunk C: an NVLS allreduce of N bytes moves N (1 + 1/k) through every
 * GPU's link each way (test_sim_link_bytes), so T >= T* = N (1 + 1/k) / B.
 * The busier way is in (from the switch): per loop of k C bytes it
 * carries the result of its READ (C), k stores' copies (k C), 2k flags, k
 * reads of its share and 3 ACKs, all with their headers; beyond the first
 * loop's fill each loop costs exactly that at B, so from 32 to 64 MiB the
 * time grows by T*'s growth times (those wire bytes / (k + 1) C), 1.00750.
 * Measured: 64 MiB 1.69 % above T*, the step that ratio to 0.01 %; busbw
 * at most 2 (k-1) / (k+1) B (14/9 B) and 1.55 x the ring's on the node. */
static void test_sim_closed_form(void **state)
{
	const uint32_t k = 8, chunk = 128 * 1024;
	struct sim_params f;
	struct sim_net net;
	double t[2], form[2], bw = 100e9 / 8;
	uint64_t sizes[2] = { 32ull << 20, 64ull << 20 };
	double ring_busbw, nvls_busbw, algbw;
	double in = msg_wire(false, chunk) + k * msg_wire(true, chunk) +
		    2.0 * k * sim_wire_bytes(SIM_LINK_IB, SIM_BTH_WRITE_ONLY, 8) +
		    k * sim_wire_bytes(SIM_LINK_IB, SIM_BTH_READ_REQUEST, 0) +
		    3.0 * sim_wire_bytes(SIM_LINK_IB, SIM_BTH_ACK, 0);
	double want = in / ((k + 1.0) * chunk);

	(void)state;
	fabric(&f, "ideal");
	node_net(&net, k);
	for (int i = 0; i < 2; i++) {
		struct cc_coll_params p = params(CC_ALLREDUCE, k, sizes[i] / 4, CC_FLOAT32, CC_SUM);
		struct cc_sim_result res;

		p.chunk_bytes = chunk;
		p.chunk_auto = false;
		nvls_sim(&p, &f, false, &res, &net);
		t[i] = (double)res.time_ps / 1e12;
		form[i] = (double)sizes[i] * (1 + 1.0 / k) / bw;
		print_message("nvls allreduce k=%u %llu MiB: %.1f us, closed form %.1f us (%+.2f %%)\n",
			      k, (unsigned long long)(sizes[i] >> 20), t[i] * 1e6, form[i] * 1e6,
			      (t[i] / form[i] - 1) * 100);
		cc_sim_result_free(&res);
	}
	double step = (t[1] - t[0]) / (form[1] - form[0]);

	print_message("32 -> 64 MiB: %.5f x the closed form's step, wire bytes say %.5f\n", step,
		      want);
	assert_true(t[1] > form[1] && t[1] < 1.02 * form[1]);
	assert_true(step > want - 0.0002 && step < want + 0.0002);
	nvls_busbw = (double)sizes[1] / t[1] * 2 * (k - 1) / k / 1e9;
	assert_true(nvls_busbw <= 2.0 * (k - 1) / (k + 1) * bw / 1e9);

	struct cc_coll_params p = params(CC_ALLREDUCE, k, sizes[1] / 4, CC_FLOAT32, CC_SUM);
	struct cc_sim_result res;

	p.algo = CC_ALGO_RING;
	p.chunk_auto = false;
	nvls_sim(&p, &f, false, &res, &net);
	assert_true(cc_result_bw(sizes[1], (double)res.time_ps / 1e6, cc_busbw_factor(p.coll, k),
				 &algbw, &ring_busbw));
	print_message("busbw: nvls %.2f GB/s, ring %.2f GB/s (%.3f x)\n", nvls_busbw, ring_busbw,
		      nvls_busbw / ring_busbw);
	assert_true(nvls_busbw > 1.4 * ring_busbw);
	cc_sim_result_free(&res);
	sim_net_free(&net);
}

/* Same schedule, same options: the same run, event for event. */
static void test_sim_deterministic(void **state)
{
	struct cc_coll_params p = params(CC_ALLREDUCE, 5, 300001, CC_FLOAT16, CC_SUM);
	struct sim_params f;
	struct sim_net net;
	struct cc_sim_result a, b;

	(void)state;
	p.nchannels = 3;
	fabric(&f, "ib-ndr");
	node_net(&net, 5);
	nvls_sim(&p, &f, true, &a, &net);
	nvls_sim(&p, &f, true, &b, &net);
	assert_int_equal(a.time_ps, b.time_ps);
	assert_int_equal(a.events, b.events);
	assert_int_equal(a.nlinks, b.nlinks);
	for (uint32_t i = 0; i < a.nlinks; i++) {
		assert_int_equal(a.links[i].tx_bytes, b.links[i].tx_bytes);
		assert_int_equal(a.links[i].busy_ps, b.links[i].busy_ps);
	}
	for (uint32_t r = 0; r < 5; r++)
		assert_int_equal(a.rank[r].done_ps, b.rank[r].done_ps);
	cc_sim_result_free(&a);
	cc_sim_result_free(&b);
	sim_net_free(&net);
}

/* Where no NVSwitch holds every rank, nvls does not run: the topology
 * check says why, and the simulator refuses the schedule. */
static void test_sim_refusals(void **state)
{
	struct cc_coll_params p = params(CC_ALLREDUCE, 4, 1024, CC_FLOAT32, CC_SUM);
	struct sim_params f;
	struct sim_net star, node;
	struct cc_sim_result res;
	char err[256];
	struct cc_schedule *s = cc_build(&p, err, sizeof(err));

	(void)state;
	assert_non_null(s);
	fabric(&f, "ideal");
	sim_net_init(&star, NULL);
	assert_int_equal(sim_topo_net_make(&star, SIM_TOPO_STAR, 4, err, sizeof(err)), 0);
	node_net(&node, 4);
	assert_false(sim_topo_mcast_ok(&star, &p, err, sizeof(err)));
	assert_non_null(strstr(err, "NVSwitch of one host"));
	assert_true(sim_topo_mcast_ok(&node, &p, err, sizeof(err)));
	assert_int_equal(cc_sim_run(s, &(struct cc_sim_opts){ .fabric = &f, .net = &star }, &res),
			 -EINVAL);
	cc_schedule_free(s);
	sim_net_free(&star);
	sim_net_free(&node);
}

/* A scenario says where nvls cannot run, at its 'algorithm': a host
 * without an NVSwitch, or two hosts; one with an NVSwitch loads. */
static void test_scenario(void **state)
{
	static const struct {
		const char *topology, *want;
	} cases[] = {
		{ "{hosts: [{name: n0, gpus: 2, nvlink: false}], switches: [tor], links: "
		  "[{a: n0.gpu0, b: tor}, {a: n0.gpu1, b: tor}]}",
		  ":3:12: 'algorithm': nvls reduces and multicasts in the NVSwitch of one host, "
		  "which must hold all 2 ranks; the topology has 1 host (0 with an NVSwitch" },
		{ "{hosts: [{name: a, gpus: 2, nvlink: true}, {name: b, gpus: 2, nvlink: true}], "
		  "switches: [tor], links: [{a: a.gpu0, b: tor}, {a: a.gpu1, b: tor}, "
		  "{a: b.gpu0, b: tor}, {a: b.gpu1, b: tor}]}",
		  ":3:12: 'algorithm': nvls reduces and multicasts in the NVSwitch of one node: it "
		  "needs all 4 ranks on one node with an NVSwitch, not nodes of 2" },
		{ "{hosts: [{name: n0, gpus: 4, nvlink: true}]}", NULL },
	};
	struct tmpdir t;

	(void)state;
	tmpdir_make(&t, "nvls");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char path[128];
		struct cc_scenario sc;
		struct cy_error err;
		FILE *f;
		int rc;

		path_in(path, sizeof(path), &t, "s.yaml");
		f = fopen(path, "w");
		assert_non_null(f);
		fprintf(f, "topology: %s\nfabric: {preset: ideal}\nalgorithm: nvls\n"
			"sizes: {min: 1KiB, max: 1KiB}\n", cases[i].topology);
		fclose(f);
		rc = cc_scenario_load(path, NULL, 0, &sc, &err);
		if (!cases[i].want) {
			assert_int_equal(rc, 0);
			assert_int_equal(sc.p.algo, CC_ALGO_NVLS);
			assert_int_equal(sc.p.ranks_per_node, 4);
			cc_scenario_free(&sc);
		} else if (rc == 0 || !strstr(err.msg, cases[i].want)) {
			fail_msg("case %zu: %s", i, rc ? err.msg : "loaded");
		}
		remove(path);
	}
	rmdir(t.path);
}

/* The verbs executor refuses a multicast schedule before it touches a
 * device, with the reason. */
static void test_verbs_refuses(void **state)
{
	struct cc_coll_params p = params(CC_ALLREDUCE, 2, 64, CC_FLOAT32, CC_SUM);
	char err[256] = "", res[1024];
	struct cc_schedule *s = cc_build(&p, err, sizeof(err));
	struct cc_exec_common c = { .seed = 1 };

	(void)state;
	assert_non_null(s);
	assert_true(cc_verbs_executor.result_size <= sizeof(res));
	assert_int_equal(cc_verbs_executor.run(s, &c, NULL, res, err, sizeof(err)), -EOPNOTSUPP);
	assert_non_null(strstr(err, "multicast QPs (NVLink SHARP"));
	cc_schedule_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mc_semantics),
		cmocka_unit_test(test_mc_validate),
		cmocka_unit_test(test_correct),
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_warps),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_chunk),
		cmocka_unit_test(test_primitives),
		cmocka_unit_test(test_print),
		cmocka_unit_test(test_sim_correct),
		cmocka_unit_test(test_sim_link_bytes),
		cmocka_unit_test(test_sim_closed_form),
		cmocka_unit_test(test_sim_deterministic),
		cmocka_unit_test(test_sim_refusals),
		cmocka_unit_test(test_scenario),
		cmocka_unit_test(test_verbs_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
