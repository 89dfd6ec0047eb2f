/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_collnet.c — NCCL's CollNetChain allreduce (core/collnet.c):
 *   - #wrong 0 on the data executor for nodes of 1, 2, 3 and 4 ranks, two
 *     to four nodes, one and three channels, awkward sizes, NCCL's chunk
 *     and tiny chunks on two slots (many reductions open per channel, the
 *     window reused), the reductions SHARP has, several interleavings;
 *   - the shape: one SHARP QP per channel a rank heads, strided over the
 *     nodes, and one SEND per chunk of its channel, each reducing the
 *     chunk's bytes;
 *   - what cc_params_check() refuses (one node, a reduction SHARP has not,
 *     LL) and NCCL's chunk rule;
 *   - the simulator on a rail-optimised network with SHARP switches:
 *     #wrong 0 on ideal and ib-ndr, within physics; one rank a node on
 *     ideal in closed form; NCCL's own choice (auto) runs it where NCCL
 *     picks CollNetChain, and stands in without SHARP;
 *   - `cclab sim` and a scenario without SHARP switches: refused before
 *     the table, exit 2, saying what the fabric needs. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/algo.h"
#include "core/exec_data.h"
#include "core/nccl_auto.h"
#include "sim/bound.h"
#include "sim/exec.h"
#include "sim/nccl_system.h"
#include "sim/net.h"
#include "sim/params.h"
#include "sim/physics.h"
#include "sim/topo.h"
#include "sim/wire.h"
#include "tests/files.h"
#include "tests/quick.h"
#include "tests/run_cclab.h"

static struct cc_coll_params params(uint32_t k, uint32_t g, uint64_t count, enum cc_dtype d,
				    enum cc_redop op)
{
	struct cc_coll_params p;

	cc_coll_params_default(&p);
	p.algo = CC_ALGO_COLLNET_CHAIN;
	p.nranks = k;
	p.ranks_per_node = g;
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
	struct cc_data_opts o = { .seed = p->count * 5 + p->nranks, .order_seed = order };
	struct cc_data_result res;

	if (!s)
		fail_msg("build: %s", err);
	assert_int_equal(cc_data_run(s, &o, &res), 0);
	if (res.err.status != CC_RUN_OK || res.wrong)
		fail_msg("k=%u g=%u count=%llu %s %s chunk %llu x %u slots, %u channels, order "
			 "%llu: %llu wrong, %s", p->nranks, p->ranks_per_node,
			 (unsigned long long)p->count, cc_dtype_name[p->dtype],
			 cc_redop_name[p->redop], (unsigned long long)p->chunk_bytes, p->nslots,
			 p->nchannels, (unsigned long long)order, (unsigned long long)res.wrong,
			 res.err.msg);
	cc_data_result_free(&res);
	cc_schedule_free(s);
}

static void test_correct(void **state)
{
	static const struct { uint32_t k, g; } shapes[] = {
		{ 2, 1 }, { 3, 1 }, { 4, 2 }, { 6, 2 }, { 6, 3 }, { 8, 4 }, { 12, 4 },
	};
	static const struct { enum cc_dtype d; enum cc_redop op; } red[] = {
		{ CC_FLOAT32, CC_SUM }, { CC_INT32, CC_MAX }, { CC_BFLOAT16, CC_SUM },
		{ CC_UINT64, CC_MIN }, { CC_FLOAT64, CC_SUM },
	};
	static const uint64_t sizes[] = { 1, 7, 1031, 70001 };
	unsigned long runs = 0;

	(void)state;
	for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++)
		for (size_t ri = 0; ri < sizeof(red) / sizeof(red[0]); ri++) {
			if (matrix_quick() && ri > 1)
				break;
			for (size_t zi = 0; zi < 4; zi++)
				for (int tiny = 0; tiny < 2; tiny++)
					for (uint32_t ch = 1; ch <= 3; ch += 2) {
						struct cc_coll_params p = params(shapes[si].k, shapes[si].g,
										 sizes[zi], red[ri].d,
										 red[ri].op);

						if (tiny && sizes[zi] > 2000)
							continue;
						p.nchannels = ch;
						if (tiny) {
							/* 3-element chunks, 2 slots */
							p.chunk_bytes = 3 * cc_dtype_size(p.dtype);
							p.chunk_auto = false;
							p.nslots = 2;
						}
						run_checked(&p, sizes[zi] + ri * 7 + ch);
						runs++;
					}
		}
	for (uint64_t order = 0; order < (matrix_quick() ? 4 : 16); order++) {
		struct cc_coll_params p = params(6, 2, 203, CC_FLOAT32, CC_SUM);

		p.chunk_bytes = 8;
		p.chunk_auto = false;
		p.nslots = 2;
		p.nchannels = 2;
		run_checked(&p, order * 977 + 1);
		runs++;
	}
	print_message("%lu runs\n", runs);
}

/* 3 nodes of 4, 3 channels, 100000 floats in 8 KiB chunks: 49 chunks,
 * channel c's are c, c + 3, ...; the head of channel c is local rank c on
 * every node, with one QP for it: members c, c + 4, c + 8. */
static void test_shape(void **state)
{
	struct cc_coll_params p = params(12, 4, 100000, CC_FLOAT32, CC_SUM);
	char err[256];
	struct cc_schedule *s;

	(void)state;
	p.nchannels = 3;
	p.chunk_bytes = 8192;
	p.chunk_auto = false;
	s = cc_build(&p, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(cc_schedule_validate(s, err, sizeof(err)), 0);
	for (uint32_t r = 0; r < 12; r++) {
		const struct cc_rank_sched *rs = &s->ranks[r];
		uint32_t mc = 0, sends = 0;
		uint64_t bytes = 0;

		for (uint32_t q = 0; q < rs->nqps; q++) {
			const struct cc_qp *qp = &rs->qps[q];

			if (!cc_qp_mcast(qp))
				continue;
			mc++;
			assert_int_equal(qp->peer, r % 4);
			assert_int_equal(qp->group, 3);
			assert_int_equal(qp->stride, 4);
			assert_int_equal(qp->channel, r % 4);
		}
		assert_int_equal(mc, r % 4 < 3 ? 1 : 0);
		for (uint32_t i = 0; i < rs->nops; i++) {
			const struct cc_op *o = &rs->ops[i];

			if (o->kind == CC_OP_POST_SEND && cc_qp_mcast(&rs->qps[o->u.send.qp])) {
				assert_int_equal(o->u.send.opcode, CC_WR_SEND);
				sends++;
				bytes += o->u.send.sge.length;
			}
		}
		/* 48 whole chunks and a last one of 100000 - 48 x 2048 = 1696
		 * floats, that one on channel 0 */
		uint32_t c = r % 4;
		uint32_t want = c == 0 ? 17 : c < 3 ? 16 : 0;

		assert_int_equal(sends, want);
		assert_int_equal(bytes, c == 0 ? 16 * 8192 + 1696 * 4 : c < 3 ? 16 * 8192 : 0);
	}
	cc_schedule_free(s);
}

static void expect_refused(struct cc_coll_params p, const char *what)
{
	char err[300];
	enum cc_param field;

	assert_int_equal(cc_params_check(&p, &field, err, sizeof(err)), -EINVAL);
	if (!strstr(err, what))
		fail_msg("\"%s\" does not say \"%s\"", err, what);
}

static void test_refusals(void **state)
{
	struct cc_coll_params p;

	(void)state;
	expect_refused(params(4, 4, 64, CC_FLOAT32, CC_SUM), "two or more nodes");
	expect_refused(params(8, 3, 64, CC_FLOAT32, CC_SUM), "two or more nodes");
	expect_refused(params(4, 2, 64, CC_FLOAT32, CC_PROD), "sum, min or max");
	expect_refused(params(4, 2, 64, CC_INT8, CC_SUM), "sum, min or max");
	p = params(4, 2, 64, CC_FLOAT32, CC_SUM);
	p.proto = CC_PROTO_LL;
	expect_refused(p, "Simple protocol only");
	p = params(4, 2, 64, CC_FLOAT32, CC_SUM);
	p.coll = CC_ALLGATHER;
	assert_int_equal(cc_params_check(&p, NULL, (char[200]){ 0 }, 200), -EINVAL);
}

/* NCCL's chunk: 256 KiB, halved while bytes / (C chunk) < 64 G (to 128
 * KiB), 8 G (64 KiB), G (32 KiB). */
static void test_chunk(void **state)
{
	static const struct { uint64_t bytes; uint32_t ch, g; uint64_t want; } c[] = {
		{ 1ull << 32, 16, 8, 256 * 1024 }, /* 4 GiB / (16 x 256 KiB) = 1024 >= 512 */
		{ 1ull << 30, 16, 8, 128 * 1024 }, /* 256 < 512: 128 KiB, the first floor */
		{ 64ull << 20, 16, 8, 64 * 1024 }, /* 128 KiB; then 32 < 64: 64 KiB */
		{ 1ull << 20, 16, 8, 32 * 1024 },  /* to 64 KiB; then 1 < 8: 32 KiB */
		{ 1ull << 20, 1, 1, 128 * 1024 },  /* 4 < 64: 128 KiB; 8 >= 8 */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct cc_coll_params p = params(2 * c[i].g, c[i].g, c[i].bytes / 4, CC_FLOAT32,
						 CC_SUM);

		p.nchannels = c[i].ch;
		if (cc_coll_chunk_bytes(&p) != c[i].want)
			fail_msg("case %zu: chunk %llu", i,
				 (unsigned long long)cc_coll_chunk_bytes(&p));
	}
}

/* ---- the simulator ---- */

static void fabric(struct sim_params *f, const char *name)
{
	assert_int_equal(sim_params_preset(name, f), 0);
	f->sw.sharp = 1;
}

static void railopt(struct sim_net *net, uint32_t nodes, uint32_t g)
{
	char err[200];

	sim_net_init(net, NULL);
	assert_int_equal(sim_topo_net_make_nodes(net, SIM_TOPO_RAILOPT, nodes * g, g, err,
						 sizeof(err)), 0);
}

/* #wrong 0, and within physics (sim/physics.h: the bound, and algbw
 * through a rank's ports), on ideal and on ib-ndr with SHARP. */
static void test_sim_correct(void **state)
{
	static const struct { uint32_t nodes, g, ch; uint64_t count; } c[] = {
		{ 2, 4, 4, 100003 }, { 3, 2, 2, 300001 }, { 2, 8, 8, 1 << 20 }, { 4, 1, 2, 65536 },
	};
	static const char *const fabs[] = { "ideal", "ib-ndr" };

	(void)state;
	for (int fi = 0; fi < 2; fi++)
		for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			struct cc_coll_params p = params(c[i].nodes * c[i].g, c[i].g, c[i].count,
							 CC_FLOAT32, CC_SUM);
			struct sim_params f;
			struct sim_net net;
			struct cc_sim_result res;
			char err[300];
			struct cc_schedule *s;

			p.nchannels = c[i].ch;
			cc_coll_params_fill(&p, 0, 0);
			fabric(&f, fabs[fi]);
			railopt(&net, c[i].nodes, c[i].g);
			s = cc_build(&p, err, sizeof(err));
			assert_non_null(s);
			assert_int_equal(cc_sim_run(s, &(struct cc_sim_opts){ .fabric = &f, .net = &net,
									   .seed = 3, .check = true },
						    &res), 0);
			if (res.err.status != CC_RUN_OK || res.wrong)
				fail_msg("%s %u x %u: %llu wrong, %s", fabs[fi], c[i].nodes, c[i].g,
					 (unsigned long long)res.wrong, res.err.msg);
			if (!sim_physical(&net, &f, &p, c[i].count * 4, res.time_ps,
					  sim_bound_ps(s, &f, &net), err, sizeof(err)))
				fail_msg("%s %u x %u: %s", fabs[fi], c[i].nodes, c[i].g, err);
			cc_sim_result_free(&res);
			cc_schedule_free(s);
			sim_net_free(&net);
		}
}

/* One rank a node, ideal, one chunk of 1 KiB: the reduction alone, as
 * tests/test_innet.c's closed form has it — 2 ser(1 KiB packet) +
 * ser(ACK) — every other cost being 0 on ideal. */
static void test_sim_closed_form(void **state)
{
	struct cc_coll_params p = params(4, 1, 256, CC_FLOAT32, CC_SUM);
	struct sim_params f;
	struct sim_net net;
	struct cc_sim_result res;
	char err[300];
	struct cc_schedule *s;
	uint64_t rate = UINT64_C(100000000000);

	(void)state;
	fabric(&f, "ideal");
	railopt(&net, 4, 1);
	s = cc_build(&p, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(cc_sim_run(s, &(struct cc_sim_opts){ .fabric = &f, .net = &net }, &res), 0);
	assert_int_equal(res.err.status, CC_RUN_OK);
	assert_int_equal(res.time_ps,
			 2 * sim_serialize_ps(sim_wire_bytes(SIM_LINK_IB, SIM_BTH_SEND_ONLY, 1024), rate) +
				 sim_serialize_ps(sim_wire_bytes(SIM_LINK_IB, SIM_BTH_ACK, 0), rate));
	cc_sim_result_free(&res);
	cc_schedule_free(s);
	sim_net_free(&net);
}

/* NCCL's choice on 4 x 8 H100 with SHARP and NCCL_COLLNET_ENABLE=1,
 * NCCL_ALGO=CollNetChain: CollNetChain, run as such; without SHARP in the
 * switches NCCL has no CollNet, and its choice is Ring or Tree. */
static void test_auto(void **state)
{
	(void)state;
	for (int sharp = 0; sharp < 2; sharp++) {
		struct sim_params f;
		struct sim_net net;
		struct cc_nccl_auto a;
		struct cc_coll_params p;
		struct cc_nccl_pick pick;
		char err[300];

		assert_int_equal(sim_params_preset("ib-ndr", &f), 0);
		f.sw.sharp = (uint32_t)sharp;
		railopt(&net, 4, 8);
		cc_nccl_auto_init(&a);
		a.algo = a.proto = a.channels = true;
		assert_int_equal(cc_nccl_env_set(&a.env, "NCCL_COLLNET_ENABLE", "1", err, sizeof(err)),
				 0);
		assert_int_equal(cc_nccl_env_set(&a.env, "NCCL_ALGO", "CollNetChain,Ring", err,
						 sizeof(err)), 0);
		struct cc_nccl_system sys;

		if (sim_nccl_system(&net, &f, &sys, err, sizeof(err)) ||
		    cc_nccl_comm_init(&a.comm, &a.version, &sys, &a.env, err, sizeof(err)))
			fail_msg("setup: %s", err);
		cc_coll_params_default(&p);
		p.nranks = 32;
		p.ranks_per_node = 8;
		p.count = (256u << 20) / 4;
		assert_int_equal(cc_nccl_auto_apply(&a, 256u << 20, &p, &pick, err, sizeof(err)), 0);
		if (sharp) {
			assert_int_equal(pick.nccl.algo, CC_NCCL_COLLNET_CHAIN);
			assert_false(pick.stand_in);
			assert_int_equal(p.algo, CC_ALGO_COLLNET_CHAIN);
		} else {
			assert_int_not_equal(pick.nccl.algo, CC_NCCL_COLLNET_CHAIN);
			assert_int_equal(p.algo, CC_ALGO_RING);
		}
		sim_net_free(&net);
	}
}

/* Without SHARP in the switches: a usage error (exit 2) naming what the
 * fabric needs, before any table; a scenario's at its 'algorithm'. */
static void test_cli_refusals(void **state)
{
	char path[300];
	FILE *f;
	struct run r;

	(void)state;
	need_cclab();
	r = run_cclab("sim -n 6 -A collnetchain --ranks-per-node 2 -b 1K -e 1K");
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "cclab sim: --fabric ib-hdr: collnetchain reduces between "
				      "the nodes in the network's switches: it needs a fabric with "
				      "SHARP"));
	run_free(&r);
	snprintf(path, sizeof(path), "%s/cn.yaml", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "topology: {generator: railopt, nodes: 3, gpus_per_node: 2, spines: 1}\n"
		   "fabric: {preset: ib-ndr}\nalgorithm: collnetchain\nsizes: 1KiB\n");
	fclose(f);
	r = run_cclab("run '%s'", path);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "cn.yaml:3:12: 'algorithm': collnetchain reduces between "
				      "the nodes in the network's switches: the fabric needs SHARP "
				      "(switch: {sharp: 1})"));
	run_free(&r);
}

/* SHARP as a property of one switch of a topology file: the run uses it;
 * a bad entry is refused at its line and column. */
static void test_topology_switch(void **state)
{
	static const char *const links =
		"  links: [{a: a.gpu0, b: tor}, {a: a.gpu1, b: tor}, {a: b.gpu0, b: tor}, "
		"{a: b.gpu1, b: tor}]\n";
	static const struct { const char *sw; int status; const char *want; } c[] = {
		{ "[{name: tor, sharp: true}]", 0, "# Out of bounds values : 0 OK" },
		{ "[tor]", 2, ":7:12: 'algorithm': collnetchain reduces between the nodes" },
		{ "[{name: tor, sharp: 7}]", 2, ":4:33: 'sharp': '7' is not a boolean" },
		{ "[{nam: tor}]", 2, ":4:15: " },
	};
	char path[300];

	(void)state;
	need_cclab();
	snprintf(path, sizeof(path), "%s/sw.yaml", tmpdir);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		FILE *f = fopen(path, "w");
		struct run r;

		assert_non_null(f);
		fprintf(f, "topology:\n"
			   "  hosts: [{name: a, gpus: 2, nvlink: true}, {name: b, gpus: 2, nvlink: true}]\n"
			   "  # one switch\n"
			   "  switches: %s\n%s"
			   "fabric: {preset: ib-ndr}\n"
			   "algorithm: collnetchain\nchannels: 2\nsizes: {min: 4KiB, max: 64KiB, factor: 16}\n",
			c[i].sw, links);
		fclose(f);
		r = run_cclab("run '%s'", path);
		if (r.status != c[i].status || !strstr(c[i].status ? r.err : r.out, c[i].want))
			fail_msg("case %zu: exit %d\nstdout:\n%s\nstderr:\n%s", i, r.status, r.out,
				 r.err);
		run_free(&r);
	}
}

static int setup(void **state)
{
	(void)state;
	return run_cclab_begin("collnet");
}

static int teardown(void **state)
{
	(void)state;
	return run_cclab_end();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_correct),
		cmocka_unit_test(test_shape),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_chunk),
		cmocka_unit_test(test_sim_correct),
		cmocka_unit_test(test_sim_closed_form),
		cmocka_unit_test(test_auto),
		cmocka_unit_test(test_cli_refusals),
		cmocka_unit_test(test_topology_switch),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
