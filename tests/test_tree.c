/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_tree.c — the double binary tree allreduce's shape and bytes
 * (core/tree.c), against NCCL's trees written out by hand here:
 *   - k = 8: tree 0 is 0 -> 4, 4 -> {2, 6}, 2 -> {1, 3}, 6 -> {5, 7}
 *     (ncclGetBtree), tree 1 its mirror r -> 7 - r (ncclGetDtree, k
 *     even): each rank's data bytes are, per tree, its half once up (but
 *     the root) plus its half once down per child (every rank is a leaf
 *     in one tree and inner in the other, but the two roots);
 *   - k = 7: tree 1 is tree 0 shifted by one (k odd);
 *   - each role's primitives: recvReduceCopySend at a root, recvCopySend
 *     down an inner rank (NCCL's runTreeSplit);
 *   - every k in 1..33: the bytes over all ranks are 2 (k-1) N (each
 *     tree: k-1 edges, its half up and down each), from the schedule and
 *     from what the data executor moved, with #wrong 0;
 *   - the chunk nobody gave: NCCL's rules (src/enqueue.cc) for Simple and
 *     LL128, worked out by hand for sizes, depths and one tree or two;
 *   - thread groups: a non-root rank's steps down are its block's second
 *     group (NCCL's runTreeSplit), and the simulator runs them beside the
 *     steps up;
 *   - the simulator: on ib-hdr, k = 16, star, the tree beats the ring at
 *     4 B (2 log2 k hops against 2 (k-1)) and at 4 MiB, and loses at
 *     16 MiB (each rank sends its half up to three times: the ring is
 *     bandwidth-optimal). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "core/algo.h"
#include "core/algo_int.h"
#include "core/conn.h"
#include "core/exec_data.h"
#include "core/proto.h"
#include "sim/exec.h"
#include "tests/sim_sched.h"
#include "tests/run_status.h"

static struct cc_coll_params params(uint32_t k, uint64_t count)
{
	struct cc_coll_params p;

	cc_coll_params_default(&p);
	p.algo = CC_ALGO_TREE;
	p.nranks = k;
	p.count = count;
	p.chunk_bytes = 64 * 1024;
	p.slot_bytes = 16 * 1024;
	return p;
}

/* Bytes of rank r given its parent (-1: root) and child count in each
 * tree, tree 0 carrying elements [0, N/2) and tree 1 [N/2, N). */
static uint64_t want(const int parent[2], const int nchild[2], uint64_t n)
{
	uint64_t h[2] = { n / 2, n - n / 2 }, b = 0;

	for (int t = 0; t < 2; t++)
		b += ((parent[t] >= 0) + (uint64_t)nchild[t]) * h[t] * 4;
	return b;
}

/* Every rank's data bytes against its place in each tree, on nodes of g
 * ranks (0: the trees over ranks). */
static void check_ranks_g(uint32_t k, uint32_t g, uint64_t n, const int (*parent)[2],
			  const int (*nchild)[2])
{
	struct cc_coll_params p = params(k, n);
	char err[200];

	p.ranks_per_node = g;
	struct cc_schedule *s = cc_build(&p, err, sizeof(err));

	assert_non_null(s);
	for (uint32_t r = 0; r < k; r++)
		if (cc_rank_data_bytes(&s->ranks[r]) != want(parent[r], nchild[r], n))
			fail_msg("k=%u rank %u: %llu bytes, want %llu", k, r,
				 (unsigned long long)cc_rank_data_bytes(&s->ranks[r]),
				 (unsigned long long)want(parent[r], nchild[r], n));
	cc_schedule_free(s);
}

static void check_ranks(uint32_t k, uint64_t n, const int (*parent)[2], const int (*nchild)[2])
{
	check_ranks_g(k, 0, n, parent, nchild);
}

/* p built and run on the data executor (seed, order_seed): it completes
 * and every sum is right (#wrong 0).  The caller frees res and the
 * schedule. */
static struct cc_schedule *build_and_run(const struct cc_coll_params *p, uint64_t seed,
					 uint64_t order_seed, struct cc_data_result *res)
{
	char err[200];
	struct cc_schedule *s = cc_build(p, err, sizeof(err));
	struct cc_data_opts o = { .seed = seed, .order_seed = order_seed };

	if (!s)
		fail_msg("%s", err);
	assert_int_equal(cc_data_run(s, &o, res), 0);
	assert_run_status(res->err, CC_RUN_OK);
	assert_int_equal(res->wrong, 0);
	return s;
}

static void test_k8(void **state)
{
	/* { tree 0, tree 1 } per rank.  Tree 1 of rank r is tree 0 of 7 - r
	 * mirrored: 7 is its root with child 3; 3 has 5 and 1; 5 has 6 and 4;
	 * 1 has 2 and 0. */
	static const int parent[8][2] = { { -1, 1 }, { 2, 3 }, { 4, 1 }, { 2, 7 },
					  { 0, 5 }, { 6, 3 }, { 4, 5 }, { 6, -1 } };
	static const int nchild[8][2] = { { 1, 0 }, { 0, 2 }, { 2, 0 }, { 0, 2 },
					  { 2, 0 }, { 0, 2 }, { 2, 0 }, { 0, 1 } };

	(void)state;
	check_ranks(8, 100003, parent, nchild);
}

/* Every reduce and copy of one chunk of one slice per tree, by role, as
 * NCCL's runTreeSplit runs them: a root's last reduce is
 * recvReduceCopySend (its result to its first child), an inner rank's
 * step down is recvCopySend (into its output and on to its first child,
 * directRecvCopyDirectSend), a leaf sends up and receives down; a second
 * child costs a recvReduceCopy up and a send down of their own.
 * Broadcast only comes down (the root copies, then sends), reduce only
 * goes up (the root's recvReduceCopy is final).  The roles come from
 * cc_dtree (checked against NCCL's trees by hand above), k = 7 and 8. */
static void check_primitives(uint32_t k, enum cc_coll coll)
{
	struct cc_coll_params p = params(k, 1000);
	uint32_t ntrees = coll == CC_ALLREDUCE ? 2 : 1;
	char err[200];
	struct cc_schedule *s;

	p.coll = coll;
	p.root = 0;
	s = cc_build(&p, err, sizeof(err));
	assert_non_null(s);
	for (uint32_t r = 0; r < k; r++)
		for (uint16_t t = 0; t < ntrees; t++) {
			uint32_t got[CC_PRIM_COUNT] = {0}, want[CC_PRIM_COUNT] = {0}, u, d0, d1;
			uint32_t c;

			cc_dtree(t, k, r, &u, &d0, &d1);
			c = (d0 != CC_CONN_NONE) + (d1 != CC_CONN_NONE);
			for (uint32_t i = 0; i < s->ranks[r].nops; i++) {
				const struct cc_op *o = &s->ranks[r].ops[i];

				if ((o->kind == CC_OP_REDUCE || o->kind == CC_OP_COPY) &&
				    o->tag.channel == t)
					got[o->tag.prim]++;
			}
			if (coll == CC_BROADCAST) {
				want[CC_PRIM_COPY] = u == CC_CONN_NONE;
				want[CC_PRIM_RECV] = u != CC_CONN_NONE && c == 0;
				want[CC_PRIM_RECV_COPY_SEND] = u != CC_CONN_NONE && c > 0;
				want[CC_PRIM_SEND] = u == CC_CONN_NONE ? c : c ? c - 1 : 0;
			} else if (c == 0) { /* a leaf */
				want[CC_PRIM_SEND] = 1;
				want[CC_PRIM_RECV] = coll == CC_ALLREDUCE;
			} else if (coll == CC_REDUCE) {
				want[CC_PRIM_RECV_REDUCE_COPY] = u == CC_CONN_NONE ? c : c - 1;
				want[CC_PRIM_RECV_REDUCE_SEND] = u != CC_CONN_NONE;
			} else {
				want[CC_PRIM_RECV_REDUCE_COPY] = c - 1;
				want[CC_PRIM_SEND] = c - 1;
				if (u == CC_CONN_NONE)
					want[CC_PRIM_RECV_REDUCE_COPY_SEND] = 1;
				else
					want[CC_PRIM_RECV_REDUCE_SEND] = want[CC_PRIM_RECV_COPY_SEND] = 1;
			}
			for (int q = 0; q < CC_PRIM_COUNT; q++)
				if (got[q] != want[q])
					fail_msg("%s k=%u rank %u tree %u: %u %s, want %u",
						 cc_coll_name[coll], k, r, t, got[q], cc_prim_name[q],
						 want[q]);
		}
	cc_schedule_free(s);
}

static void test_primitives(void **state)
{
	(void)state;
	for (uint32_t k = 7; k <= 8; k++) {
		check_primitives(k, CC_ALLREDUCE);
		check_primitives(k, CC_BROADCAST);
		check_primitives(k, CC_REDUCE);
	}
}

static void test_k7(void **state)
{
	/* tree 0 (ncclGetBtree, k = 7): 0 -> 4, 4 -> {2, 6}, 2 -> {1, 3},
	 * 6 -> {5} (7 is out of range); tree 1: tree 0 of r - 1, plus one:
	 * 1 -> 5, 5 -> {3, 0}, 3 -> {2, 4}, 0 -> {6}. */
	static const int parent[7][2] = { { -1, 5 }, { 2, -1 }, { 4, 3 }, { 2, 5 },
					  { 0, 3 }, { 6, 1 }, { 4, 0 } };
	static const int nchild[7][2] = { { 1, 1 }, { 0, 1 }, { 2, 0 }, { 0, 2 },
					  { 2, 0 }, { 0, 2 }, { 1, 0 } };

	(void)state;
	check_ranks(7, 4096 * 3 + 5, parent, nchild);
}

/* 2 nodes x 4 ranks (ranks_per_node 4), NCCL's BALANCED_TREE
 * (src/graph/connect.cc ncclTopoPreset, connectTrees), by hand: each node
 * a chain 0 -> 1 -> 2 -> 3 (4 -> 5 -> 6 -> 7); a node's child node 0
 * hangs on its local rank 1, child node 1 on local 0.  Tree 0 over 2
 * nodes: node 0 the root, node 1 its child 1, so rank 4's parent is
 * rank 0.  Tree 1 mirrors it: node 1 the root, node 0 its child 0, so
 * rank 0's parent is rank 5.  Each rank: { tree 0, tree 1 } parent and
 * children (-1: none). */
static void test_nodes_2x4(void **state)
{
	static const int parent[8][2] = { { -1, 5 }, { 0, 0 }, { 1, 1 }, { 2, 2 },
					  { 0, -1 }, { 4, 4 }, { 5, 5 }, { 6, 6 } };
	static const int child[8][2][2] = {
		{ { 1, 4 }, { 1, -1 } }, { { 2, -1 }, { 2, -1 } }, { { 3, -1 }, { 3, -1 } },
		{ { -1, -1 }, { -1, -1 } }, { { 5, -1 }, { 5, -1 } }, { { 6, -1 }, { 6, 0 } },
		{ { 7, -1 }, { 7, -1 } }, { { -1, -1 }, { -1, -1 } },
	};
	int nchild[8][2];
	struct cc_coll_params p = params(8, 100003);
	char err[200];

	(void)state;
	for (int r = 0; r < 8; r++)
		for (int t = 0; t < 2; t++)
			nchild[r][t] = (child[r][t][0] >= 0) + (child[r][t][1] >= 0);
	check_ranks_g(8, 4, 100003, parent, (const int (*)[2])nchild);
	/* and who each rank is connected to: its parents and children */
	p.ranks_per_node = 4;
	struct cc_schedule *s = cc_build(&p, err, sizeof(err));

	assert_non_null(s);
	for (int r = 0; r < 8; r++) {
		const struct cc_rank_sched *rs = &s->ranks[r];
		uint32_t want = 0, got = 0;

		for (int t = 0; t < 2; t++) {
			if (parent[r][t] >= 0)
				want |= 1u << parent[r][t];
			for (int i = 0; i < 2; i++)
				if (child[r][t][i] >= 0)
					want |= 1u << child[r][t][i];
		}
		for (uint32_t q = 0; q < rs->nqps; q++)
			got |= 1u << rs->qps[q].peer;
		if (got != want)
			fail_msg("rank %d: peers 0x%x, want 0x%x", r, got, want);
	}
	cc_schedule_free(s);
}

/* Nodes of g = 2, 3, 4 ranks, 1 to 6 nodes: the sums are right (#wrong
 * 0), every rank sends 2 (k-1) N over all, as the flat trees, and only
 * 2 (nodes - 1) halves per tree cross between nodes, N (nodes - 1) each
 * way in all: a node's other ranks talk over NVLink. */
static void test_nodes_totals(void **state)
{
	static const uint64_t counts[] = { 1, 10007 };

	(void)state;
	for (uint32_t g = 2; g <= 4; g++)
		for (uint32_t nn = 1; nn <= 6; nn++)
			for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
				uint32_t k = g * nn;
				struct cc_coll_params p = params(k, counts[i]);
				struct cc_data_result res;
				uint64_t posted = 0, across = 0;

				p.ranks_per_node = g;
				struct cc_schedule *s = build_and_run(&p, 5, k + i, &res);

				for (uint32_t r = 0; r < k; r++) {
					const struct cc_rank_sched *rs = &s->ranks[r];

					posted += cc_rank_data_bytes(rs);
					for (uint32_t j = 0; j < rs->nops; j++) {
						const struct cc_op *op = &rs->ops[j];

						if (op->kind == CC_OP_POST_SEND &&
						    op->u.send.payload == CC_PAYLOAD_DATA &&
						    rs->qps[op->u.send.qp].peer / g != r / g)
							across += op->u.send.sge.length;
					}
				}
				assert_int_equal(posted, 2ull * (k - 1) * counts[i] * 4);
				assert_int_equal(across, 2ull * (nn - 1) * counts[i] * 4);
				cc_data_result_free(&res);
				cc_schedule_free(s);
			}
}

/* Channels on nodes: pair c's chains start at local 2c mod G, so its
 * trees leave and enter nodes through locals 2c and 2c + 1 (their NICs),
 * as NCCL's tree search gives each channel its own NIC.  3 nodes of 4,
 * C = 2: every QP between nodes belongs to a rank at local 2 (tree %
 * 2) or 2 (tree % 2) + 1; the sums right, and the bytes between nodes
 * those of one channel, 2 (nodes - 1) N. */
static void test_nodes_channels(void **state)
{
	struct cc_coll_params p = params(12, 20011);
	struct cc_data_result res;
	uint64_t across = 0;
	uint32_t used = 0;

	(void)state;
	p.ranks_per_node = 4;
	p.nchannels = 2;
	struct cc_schedule *s = build_and_run(&p, 3, 7, &res);

	for (uint32_t r = 0; r < 12; r++) {
		const struct cc_rank_sched *rs = &s->ranks[r];

		for (uint32_t q = 0; q < rs->nqps; q++) {
			uint32_t pair = rs->qps[q].channel % 2;

			if (rs->qps[q].peer / 4 == r / 4)
				continue;
			if (r % 4 / 2 != pair)
				fail_msg("rank %u: channel %u crosses nodes", r,
					 (unsigned)rs->qps[q].channel);
			used |= 1u << r % 4;
		}
		for (uint32_t j = 0; j < rs->nops; j++) {
			const struct cc_op *op = &rs->ops[j];

			if (op->kind == CC_OP_POST_SEND && op->u.send.payload == CC_PAYLOAD_DATA &&
			    rs->qps[op->u.send.qp].peer / 4 != r / 4)
				across += op->u.send.sge.length;
		}
	}
	assert_int_equal(used, 0xf); /* all four locals' NICs */
	assert_int_equal(across, 2ull * 2 * 20011 * 4);
	cc_data_result_free(&res);
	cc_schedule_free(s);
}

/* Nodes that do not tile the ranks: the allreduce's shape would be
 * neither NCCL's nor the flat one, so it is refused; a rooted tree, over
 * ranks anyway, is not. */
static void test_nodes_must_tile(void **state)
{
	struct cc_coll_params p = params(12, 100);
	char err[200];
	struct cc_schedule *s;

	(void)state;
	p.ranks_per_node = 5;
	assert_null(cc_build(&p, err, sizeof(err)));
	assert_string_equal(err, "the tree allreduce chains the ranks of each node: the ranks per "
				 "node (5) must divide 12 ranks");
	p.coll = CC_BROADCAST;
	s = cc_build(&p, err, sizeof(err));
	assert_non_null(s);
	cc_schedule_free(s);
}

/* Channels (NCCL's duplicated channels: tree 0 on channels 0..C-1, tree
 * 1 on C..2C-1): each channel its own connections and an equal part of
 * the array, so a rank's QPs are C times one channel's and its bytes
 * exactly one channel's (tree 0's parts still cover the first half);
 * the sums right for allreduce, broadcast and reduce, on ranks and on
 * nodes. */
static void test_channels(void **state)
{
	static const uint64_t counts[] = { 1, 7, 10007 };
	static const uint32_t ks[] = { 2, 3, 5, 8, 12 };
	static const enum cc_coll colls[] = { CC_ALLREDUCE, CC_BROADCAST, CC_REDUCE };

	(void)state;
	for (size_t c = 0; c < 3; c++)
		for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++)
			for (size_t j = 0; j < sizeof(counts) / sizeof(counts[0]); j++)
				for (uint32_t g = 0; g <= 2; g += 2) {
					struct cc_coll_params p = params(ks[i], counts[j]);
					char err[200];

					if (g && ks[i] % g)
						continue; /* refused: nodes must tile */
					p.coll = colls[c];
					p.ranks_per_node = g;
					struct cc_schedule *one = cc_build(&p, err, sizeof(err));

					assert_non_null(one);
					for (uint32_t ch = 2; ch <= 3; ch++) {
						struct cc_data_result res;

						p.nchannels = ch;
						struct cc_schedule *s = build_and_run(&p, 6, ch, &res);

						for (uint32_t r = 0; r < ks[i]; r++) {
							assert_int_equal(cc_rank_data_bytes(&s->ranks[r]),
									 cc_rank_data_bytes(&one->ranks[r]));
							assert_int_equal(s->ranks[r].nqps,
									 ch * one->ranks[r].nqps);
						}
						cc_data_result_free(&res);
						cc_schedule_free(s);
					}
					cc_schedule_free(one);
				}
}

static void test_totals(void **state)
{
	static const uint64_t counts[] = { 1, 2, 33, 10007 };

	(void)state;
	for (uint32_t k = 1; k <= 33; k++)
		for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
			struct cc_coll_params p = params(k, counts[i]);
			struct cc_data_result res;
			struct cc_schedule *s = build_and_run(&p, 4, k + i, &res);
			uint64_t posted = 0, moved = 0;

			for (uint32_t r = 0; r < k; r++) {
				posted += cc_rank_data_bytes(&s->ranks[r]);
				moved += res.data_bytes[r];
			}
			assert_int_equal(posted, 2ull * (k - 1) * counts[i] * 4);
			assert_int_equal(moved, posted);
			cc_data_result_free(&res);
			cc_schedule_free(s);
		}
}

/* The chunk nobody gave (chunk_auto), worked out here from NCCL's
 * computeColl (src/enqueue.cc) by hand: start from one 512 KiB step,
 * halve while bytes / (trees * chunk) < 8 depth and chunk > 128 KiB, then
 * < 4 depth and > 64 KiB, then < depth and > 32 KiB; depth = log2i(k)
 * (g - 1 + log2i(k / g) on nodes of g ranks), two trees for allreduce,
 * one for broadcast and reduce. */
static void test_chunk_rule(void **state)
{
	static const struct {
		enum cc_coll coll;
		uint32_t k;
		uint64_t bytes, chunk;
		uint32_t g; /* ranks per node (1: the trees span ranks) */
	} want[] = {
		/* k = 16, depth 4: thresholds 32, 16, 4 chunks per tree */
		{ CC_ALLREDUCE, 16, 4, 32768, 1 },
		{ CC_ALLREDUCE, 16, 256 << 10, 32768, 1 },   /* 2 chunks of 64 KiB < 4 */
		{ CC_ALLREDUCE, 16, 512 << 10, 65536, 1 },   /* 4 of 64 KiB: stays */
		{ CC_ALLREDUCE, 16, 1 << 20, 65536, 1 },
		{ CC_ALLREDUCE, 16, 2 << 20, 65536, 1 },     /* 8 of 128 KiB < 16 */
		{ CC_ALLREDUCE, 16, 4 << 20, 131072, 1 },    /* 16 of 128 KiB: stays */
		{ CC_ALLREDUCE, 16, 8 << 20, 131072, 1 },    /* 16 of 256 KiB < 32 */
		{ CC_ALLREDUCE, 16, 16 << 20, 262144, 1 },   /* 32 of 256 KiB: stays */
		{ CC_ALLREDUCE, 16, 32 << 20, 524288, 1 },
		/* k = 7, depth 2; k = 2, depth 1 */
		{ CC_ALLREDUCE, 7, 1 << 20, 65536, 1 },      /* 4 of 128 KiB < 8 */
		{ CC_ALLREDUCE, 2, 1 << 20, 131072, 1 },     /* 4 of 128 KiB: not < 4 */
		/* one tree carries the whole array */
		{ CC_BROADCAST, 16, 8 << 20, 262144, 1 },    /* 32 of 256 KiB */
		{ CC_REDUCE, 16, 2 << 20, 131072, 1 },       /* 16 of 128 KiB */
		/* 2 nodes of 8, depth 8: thresholds 64, 32, 8 */
		{ CC_ALLREDUCE, 16, 4 << 20, 65536, 8 },  /* 16 of 128 KiB < 32 */
		{ CC_ALLREDUCE, 16, 32 << 20, 262144, 8 }, /* 64 of 256 KiB: stays */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct cc_coll_params p = params(want[i].k, want[i].bytes / 4);
		char err[200];

		p.coll = want[i].coll;
		p.ranks_per_node = want[i].g;
		p.slot_bytes = 512 * 1024;
		p.chunk_bytes = 2 * 1024 * 1024;
		p.chunk_auto = true;
		if (cc_coll_chunk_bytes(&p) != want[i].chunk)
			fail_msg("%s k=%u %llu B: chunk %llu, want %llu", cc_coll_name[p.coll],
				 want[i].k, (unsigned long long)want[i].bytes,
				 (unsigned long long)cc_coll_chunk_bytes(&p),
				 (unsigned long long)want[i].chunk);
		/* the schedule is built with it and records it */
		struct cc_schedule *s = cc_build(&p, err, sizeof(err));

		assert_non_null(s);
		assert_int_equal(s->params.chunk_bytes, want[i].chunk);
		cc_schedule_free(s);
	}

	/* LL128 (NCCL's NCCL_PROTO_LL128 branch): the step's 614,400 B of
	 * lines halved while bytes / (trees x lines) < 64 nsteps / ppn (to
	 * 128 KiB), then 16 nsteps / ppn (32 KiB), nsteps = 1 + log2i(nodes)
	 * + 0.1 ppn; the chunk is the data of the lines (x 120 / 128). */
	static const struct {
		enum cc_coll coll;
		uint64_t bytes, chunk;
		uint32_t g;
	} ll128[] = {
		/* k = 16 ranks: nsteps 5.1, thresholds 326.4 and 81.6 */
		{ CC_ALLREDUCE, 4 << 20, 18000, 1 },    /* 76800 B: 27 < 81.6 -> 19200 */
		{ CC_ALLREDUCE, 8 << 20, 36000, 1 },    /* 38400 B: 109 */
		{ CC_ALLREDUCE, 16 << 20, 72000, 1 },   /* 76800 B: 109 */
		{ CC_ALLREDUCE, 256 << 20, 288000, 1 }, /* 307200 B: 436 >= 326.4 */
		{ CC_ALLREDUCE, 1 << 30, 576000, 1 },   /* 873: one step */
		{ CC_BROADCAST, 8 << 20, 72000, 1 },    /* one tree: 76800 B, 109 */
		/* 2 nodes of 8: nsteps 2.8, thresholds 22.4 and 5.6 */
		{ CC_ALLREDUCE, 4 << 20, 72000, 8 },    /* 76800 B: 27 >= 5.6 */
		{ CC_ALLREDUCE, 32 << 20, 576000, 8 },  /* 27 >= 22.4 */
	};

	for (size_t i = 0; i < sizeof(ll128) / sizeof(ll128[0]); i++) {
		struct cc_coll_params p = params(16, ll128[i].bytes / 4);

		p.coll = ll128[i].coll;
		p.proto = CC_PROTO_LL128;
		p.ranks_per_node = ll128[i].g;
		p.slot_bytes = p.chunk_bytes = 576000;
		p.chunk_auto = true;
		if (cc_coll_chunk_bytes(&p) != ll128[i].chunk)
			fail_msg("ll128 %s %llu B, %u a node: chunk %llu, want %llu",
				 cc_coll_name[p.coll], (unsigned long long)ll128[i].bytes,
				 ll128[i].g, (unsigned long long)cc_coll_chunk_bytes(&p),
				 (unsigned long long)ll128[i].chunk);
	}

	/* Given, another protocol, another algorithm: the chunk as set. */
	struct cc_coll_params p = params(16, (1 << 20) / 4);

	p.slot_bytes = 512 * 1024;
	p.chunk_bytes = 2 * 1024 * 1024;
	assert_int_equal(cc_coll_chunk_bytes(&p), 2 * 1024 * 1024);
	p.chunk_auto = true;
	p.proto = CC_PROTO_LL;
	assert_int_equal(cc_coll_chunk_bytes(&p), 2 * 1024 * 1024);
	p.proto = CC_PROTO_SIMPLE;
	p.algo = CC_ALGO_RING;
	assert_int_equal(cc_coll_chunk_bytes(&p), 2 * 1024 * 1024);
	/* cc_coll_params_fill() is what sets it: chunk not given */
	cc_coll_params_fill(&p, 0, 0);
	assert_true(p.chunk_auto);
	cc_coll_params_fill(&p, 0, 1);
	assert_false(p.chunk_auto);
}

/* ib-hdr, k = 16, star, with the chunks cclab sim picks by default. */
static double sim_us(enum cc_algo a, uint64_t bytes)
{
	struct cc_coll_params p;

	cc_coll_params_default(&p);
	p.algo = a;
	p.nranks = 16;
	p.count = bytes / 4;
	cc_coll_params_fill(&p, 0, 0);
	return sim_star_us(&p, "ib-hdr");
}

/* Group 1 exactly for a non-root rank's steps down (2: recvCopySend or a
 * leaf's recv, 4: a second child's send) of an allreduce, on every protocol; a rank is non-root in tree t
 * when it receives down there. */
static void check_groups(enum cc_coll coll, enum cc_proto proto, int split)
{
	struct cc_coll_params p = params(7, 7 * 1000);
	char err[200];

	p.coll = coll;
	p.proto = proto;
	p.root = 0;
	struct cc_schedule *s = cc_build(&p, err, sizeof(err));
	uint32_t ones = 0;

	assert_non_null(s);
	for (uint32_t r = 0; r < s->nranks; r++) {
		const struct cc_rank_sched *rs = &s->ranks[r];
		int gets_down[2] = { 0, 0 };

		for (uint32_t i = 0; i < rs->nops; i++)
			if (rs->ops[i].tag.prim != CC_PRIM_NONE && rs->ops[i].tag.step == 2)
				gets_down[rs->ops[i].tag.channel & 1] = 1;
		for (uint32_t i = 0; i < rs->nops; i++) {
			const struct cc_tag *t = &rs->ops[i].tag;
			int want = split && t->prim != CC_PRIM_NONE && t->step >= 2 &&
				   gets_down[t->channel & 1];

			if (t->group != want)
				fail_msg("%s %s rank %u op %u: group %u", cc_coll_name[coll],
					 cc_proto_name[proto], r, i, t->group);
			ones += t->group;
		}
	}
	assert_true(split ? ones > 0 : ones == 0);
	cc_schedule_free(s);
}

/* The ideal fabric with a 50 us GPU step and 16 chunks per tree (k = 7):
 * with the groups merged into one lane a rank's steps up and down queue
 * behind each other; split, they overlap. */
static void test_thread_groups(void **state)
{
	struct cc_coll_params p = params(7, (1u << 20) / 4);
	struct sim_params f;
	double us[2];
	char err[200];

	(void)state;
	check_groups(CC_ALLREDUCE, CC_PROTO_SIMPLE, 1);
	check_groups(CC_ALLREDUCE, CC_PROTO_LL128, 1);
	check_groups(CC_ALLREDUCE, CC_PROTO_LL, 1);
	check_groups(CC_BROADCAST, CC_PROTO_SIMPLE, 0);
	check_groups(CC_REDUCE, CC_PROTO_SIMPLE, 0);

	p.chunk_bytes = p.slot_bytes = 32 * 1024;
	assert_int_equal(sim_params_preset("ideal", &f), 0);
	f.host.gpu_step_ps = 50 * SIM_PS_PER_US;
	for (int merged = 0; merged < 2; merged++) {
		struct cc_schedule *s = cc_build(&p, err, sizeof(err));

		assert_non_null(s);
		for (uint32_t r = 0; merged && r < s->nranks; r++)
			for (uint32_t i = 0; i < s->ranks[r].nops; i++)
				s->ranks[r].ops[i].tag.group = 0;
		us[merged] = sim_sched_star_us(s, &f);
		cc_schedule_free(s);
	}
	print_message("    split %.1f us, one group %.1f us\n", us[0], us[1]);
	assert_true(us[0] < 0.75 * us[1]);
}

/* The tree wins on latency (2 log2 k hops against the ring's 2 (k-1)
 * steps: 55 against 163 us at 4 B) and, pipelined in NCCL's small chunks,
 * up to 8 MiB (462 against 582 us at 4 MiB; 803 against 959 at 8 MiB);
 * from 16 MiB the ring wins (1286 against 1541 us): an inner rank sends
 * its half up to three times, the ring each byte twice.  docs/schedule.md
 * has the sweep. */
static void test_sim_latency_and_bandwidth(void **state)
{
	(void)state;
	assert_true(sim_us(CC_ALGO_TREE, 4) < 0.6 * sim_us(CC_ALGO_RING, 4));
	assert_true(sim_us(CC_ALGO_TREE, 4u << 20) < sim_us(CC_ALGO_RING, 4u << 20));
	assert_true(sim_us(CC_ALGO_TREE, 16u << 20) > sim_us(CC_ALGO_RING, 16u << 20));
	assert_true(sim_us(CC_ALGO_TREE, 64u << 20) > sim_us(CC_ALGO_RING, 64u << 20));
}

/* Each reduce and copy names its thread group's warps: NCCL's tree block
 * is NCCL_MAX_NTHREADS, 20 warps, whatever the protocol; runTreeSplit
 * gives a non-root rank's reduce half 12 and its broadcast half 8 with
 * Simple, 14 and 6 (70 %) with LL. */
static void test_warps(void **state)
{
	(void)state;
	for (int ll = 0; ll < 2; ll++) {
		struct cc_coll_params p = params(8, 1u << 16);
		char err[200];
		struct cc_schedule *s;
		uint32_t roots = 0;

		p.proto = ll ? CC_PROTO_LL : CC_PROTO_SIMPLE;
		s = cc_build(&p, err, sizeof(err));
		assert_non_null(s);
		for (uint32_t r = 0; r < p.nranks; r++)
			for (uint32_t ch = 0; ch < 2; ch++) {
				const struct cc_rank_sched *rs = &s->ranks[r];
				bool split = false;

				for (uint32_t i = 0; i < rs->nops; i++)
					split |= rs->ops[i].tag.channel == ch && rs->ops[i].tag.group;
				roots += !split;
				for (uint32_t i = 0; i < rs->nops; i++) {
					const struct cc_op *o = &rs->ops[i];
					uint8_t want = !split ? 20
						     : o->tag.group ? (ll ? 6 : 8)
								    : (ll ? 14 : 12);

					if ((o->kind == CC_OP_REDUCE || o->kind == CC_OP_COPY) &&
					    o->tag.channel == ch)
						assert_int_equal(o->u.calc.warps, want);
				}
			}
		assert_int_equal(roots, 2); /* one root a tree */
		cc_schedule_free(s);
	}
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_k8),
		cmocka_unit_test(test_primitives),
		cmocka_unit_test(test_warps),
		cmocka_unit_test(test_k7),
		cmocka_unit_test(test_nodes_2x4),
		cmocka_unit_test(test_nodes_totals),
		cmocka_unit_test(test_nodes_channels),
		cmocka_unit_test(test_nodes_must_tile),
		cmocka_unit_test(test_channels),
		cmocka_unit_test(test_totals),
		cmocka_unit_test(test_chunk_rule),
		cmocka_unit_test(test_thread_groups),
		cmocka_unit_test(test_sim_latency_and_bandwidth),
	};

	return cmocka_run_group_tests_name("tree", t, NULL, NULL);
}
