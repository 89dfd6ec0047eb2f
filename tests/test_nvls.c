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
 *     the listing, and the text format of its QPs and ops. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/algo.h"
#include "core/exec_data.h"
#include "core/word.h"

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

					want = ops[oi] == CC_SUM ? want + x
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
	mc_op(s, 0, CC_WR_SEND, CC_SUM, 0, NULL, 0);
	expect_invalid(s, "only RDMA_WRITE");

	s = mc_sched(2);
	mc_op(s, 0, CC_WR_RDMA_READ, CC_PROD, 0, NULL, 0);
	expect_invalid(s, "sum, min or max");

	s = mc_sched(2);
	cc_add_op(&s->ranks[0], &(struct cc_op){ .kind = CC_OP_POST_RECV,
						 .u.recv = { .qp = 0 } }, NULL, 0);
	expect_invalid(s, "no receive queue");

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

static int quick(void)
{
	const char *m = getenv("CCLAB_MATRIX");

	return m && !strcmp(m, "quick");
}

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
				if (quick() && di > 1)
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
	for (uint64_t order = 0; order < (quick() ? 4 : 24); order++)
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

static char *print_to_string(const struct cc_schedule *s, int rank)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	cc_schedule_print(f, s, rank);
	fclose(f);
	return buf;
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
	out = print_to_string(s, 1);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mc_semantics),
		cmocka_unit_test(test_mc_validate),
		cmocka_unit_test(test_correct),
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_chunk),
		cmocka_unit_test(test_primitives),
		cmocka_unit_test(test_print),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
