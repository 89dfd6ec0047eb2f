/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_gen_sim.c — the simulator on a schedule generated as it runs
 * (core/gen.h, sim/exec_gen.c) against the same schedule built whole: the
 * same time, events, counters, per-rank and per-link figures and trace,
 * event for event, for the ring's and the tree's collectives, protocols
 * and transports, channels, nodes, both models and lossless and ideal fabrics, carrying data or
 * not (then every output checked); with a window of a few ops, which makes
 * ops late and the run start again, as with the default. */
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
#include "core/gen.h"
#include "core/trace.h"
#include "sim/exec.h"
#include "sim/net.h"
#include "sim/params.h"
#include "sim/topo.h"
#include "tests/quick.h"

static unsigned runs;

static void run(const struct cc_schedule *s, const struct cc_sim_opts *so, uint32_t window,
		struct cc_sim_result *res, struct cc_trace *t)
{
	struct cc_sim_opts o = *so;

	o.gen_window = window;
	o.trace = t;
	cc_trace_init(t);
	assert_int_equal(cc_sim_run(s, &o, res), 0);
	assert_int_equal(res->err.status, CC_RUN_OK);
}

static void same_runs(const struct cc_sim_result *a, const struct cc_trace *ta,
		      const struct cc_sim_result *b, const struct cc_trace *tb, const char *what)
{
	if (a->time_ps != b->time_ps || a->events != b->events ||
	    a->peak_pending != b->peak_pending || a->switch_drops != b->switch_drops ||
	    a->pause_frames != b->pause_frames || a->ecn_marks != b->ecn_marks)
		fail_msg("%s: built %llu ps %llu events, generated %llu ps %llu events", what,
			 (unsigned long long)a->time_ps, (unsigned long long)a->events,
			 (unsigned long long)b->time_ps, (unsigned long long)b->events);
	assert_int_equal(a->nranks, b->nranks);
	for (uint32_t r = 0; r < a->nranks; r++)
		if (memcmp(&a->rank[r], &b->rank[r], sizeof(*a->rank)))
			fail_msg("%s: rank %u: built done at %llu ps, %llu ops, %llu wqes; generated "
				 "%llu ps, %llu ops, %llu wqes", what, r,
				 (unsigned long long)a->rank[r].done_ps,
				 (unsigned long long)a->rank[r].ops_done,
				 (unsigned long long)a->rank[r].wqes,
				 (unsigned long long)b->rank[r].done_ps,
				 (unsigned long long)b->rank[r].ops_done,
				 (unsigned long long)b->rank[r].wqes);
	assert_int_equal(a->nlinks, b->nlinks);
	for (uint32_t l = 0; l < a->nlinks; l++) {
		assert_int_equal(a->links[l].tx_bytes, b->links[l].tx_bytes);
		assert_int_equal(a->links[l].tx_pkts, b->links[l].tx_pkts);
	}
	assert_int_equal(ta->n, tb->n);
	for (size_t i = 0; i < ta->n; i++) {
		const struct cc_trace_event *x = &ta->ev[i], *y = &tb->ev[i];

		if (x->t_ps != y->t_ps || x->dur_ps != y->dur_ps || x->kind != y->kind ||
		    x->rank != y->rank || x->track != y->track || x->qp != y->qp ||
		    x->wr_id != y->wr_id || x->bytes != y->bytes || x->op != y->op ||
		    x->op_kind != y->op_kind || x->opcode != y->opcode ||
		    x->tag.prim != y->tag.prim || x->tag.channel != y->tag.channel ||
		    x->tag.chunk != y->tag.chunk || x->tag.step != y->tag.step ||
		    x->tag.slice != y->tag.slice || x->tag.group != y->tag.group)
			fail_msg("%s: trace event %zu differs: rank %u op %u kind %d at %llu ps, "
				 "generated rank %u op %u kind %d at %llu ps", what, i, x->rank, x->op,
				 (int)x->kind, (unsigned long long)x->t_ps, y->rank, y->op,
				 (int)y->kind, (unsigned long long)y->t_ps);
	}
}

/* p built whole and generated, each run with o: the same run. */
static void check_with(const struct cc_coll_params *p, const struct cc_sim_opts *o)
{
	char err[256], what[256];
	struct cc_schedule *whole = cc_build(p, err, sizeof(err));
	struct cc_schedule *gen =
		cc_build_with(p, &(const struct cc_build_opts){ .generated = true }, err, sizeof(err));

	assert_non_null(whole);
	assert_non_null(gen);
	assert_non_null(gen->gen);
	snprintf(what, sizeof(what), "%s %s k=%u ch=%u %s %s %s %s count=%llu",
		 cc_algo_name[p->algo], cc_coll_name[p->coll], p->nranks, p->nchannels,
		 cc_proto_name[p->proto], cc_transport_name[p->transport], o->fabric->name,
		 cc_sim_model_name[o->model], (unsigned long long)p->count);

	const bool data = o->check;
	struct cc_sim_result a, b;
	struct cc_trace ta, tb;

	run(whole, o, 0, &a, &ta);
	assert_int_equal(a.wrong, 0);
	/* the default window, then one so small that ops come late */
	for (uint32_t w = 0; w < 2; w++) {
		run(gen, o, w ? 4 : 0, &b, &tb);
		same_runs(&a, &ta, &b, &tb, what);
		assert_int_equal(b.wrong, 0);
		assert_int_equal(b.checked, data);
		cc_sim_result_free(&b);
		cc_trace_free(&tb);
		runs++;
	}
	cc_sim_result_free(&a);
	cc_trace_free(&ta);
	cc_schedule_free(gen);
	cc_schedule_free(whole);
}

static void check(const struct cc_coll_params *p, const char *fabric, enum sim_topo_kind topo,
		  enum cc_sim_model model, bool data)
{
	struct sim_params f;

	assert_int_equal(sim_params_preset(fabric, &f), 0);
	check_with(p, &(const struct cc_sim_opts){ .fabric = &f, .model = model, .topo = topo,
						   .check = data });
}

static void matrix(enum cc_algo algo)
{
	static const uint32_t ks[] = { 2, 3, 8 };
	static const uint64_t counts[] = { 1000, 300000, 1u << 21 };
	/* CCLAB_MATRIX=quick (`make test`, docs/testing.md): 3 ranks */
	bool quick = matrix_quick();

	for (int c = 0; c < CC_COLL_COUNT; c++) {
		if (!cc_algo_supports(algo, (enum cc_coll)c))
			continue;
		for (int pr = 0; pr < CC_PROTO_COUNT; pr++)
			for (int t = 0; t < CC_TRANSPORT_COUNT; t++)
				for (size_t ki = quick; ki < (quick ? 2u : 3u); ki++) {
					struct cc_coll_params p;
					size_t ni = (size_t)(c + pr + t + (int)ki) % 3;

					cc_coll_params_default(&p);
					p.algo = algo;
					p.coll = (enum cc_coll)c;
					p.proto = (enum cc_proto)pr;
					p.transport = (enum cc_transport)t;
					p.nranks = ks[ki];
					p.root = 1;
					p.count = counts[ni];
					p.nchannels = (uint32_t)(1 + (ki + ni) % 2);
					/* the tree allreduce's chains of two ranks a node */
					if (algo == CC_ALGO_TREE && ks[ki] == 8 && ni != 1)
						p.ranks_per_node = 2;
					cc_coll_params_fill(&p, 0, 0);
					if (cc_params_check(&p, NULL, NULL, 0))
						continue;
					/* a tree joins ranks a ring of cables does not */
					check(&p, (c + t) % 2 ? "ib-ndr" : "roce-400g",
					      ki % 2 || algo == CC_ALGO_TREE ? SIM_TOPO_STAR
									: SIM_TOPO_RING,
					      (pr + t) % 2 ? CC_SIM_MODEL_FLOW : CC_SIM_MODEL_PACKET,
					      ni == 1);
				}
	}
	print_message("%u generated runs\n", runs);
}

static void test_ring(void **state)
{
	(void)state;
	matrix(CC_ALGO_RING);
}

/* NCCL's slices (cc_coll_params.slice_steps, as `auto` sets them): the
 * generated ring the built one, full, short and floor-sized steps. */
static void test_ring_nccl_slices(void **state)
{
	(void)state;
	static const enum cc_coll colls[] = { CC_ALLREDUCE, CC_REDUCESCATTER, CC_ALLGATHER };
	static const uint64_t counts[] = { 1000, 300000, 1u << 21 };

	for (size_t c = 0; c < 3; c++)
		for (size_t n = 0; n < 3; n++) {
			struct cc_coll_params p;

			cc_coll_params_default(&p);
			p.coll = colls[c];
			p.nranks = 3;
			p.count = counts[n];
			p.nchannels = (uint32_t)(1 + n % 2);
			p.slice_steps = 2;
			check(&p, "ib-ndr", SIM_TOPO_STAR,
			      (c + n) % 2 ? CC_SIM_MODEL_FLOW : CC_SIM_MODEL_PACKET, n == 1);
		}
}

static void test_tree(void **state)
{
	(void)state;
	matrix(CC_ALGO_TREE);
}

/* CollNetChain on SHARP switches: chains in nodes of 1, 2 and 4 GPUs,
 * 1 to 4 channels, both models, on a rail-optimised network. */
static void test_collnet(void **state)
{
	(void)state;
	/* the last: 16 KiB chunks, 1024 SENDs on the SHARP QP, up to 64
	 * reductions open, and rank 0's network link at a quarter of the
	 * rate: the other members' SENDs complete (the switch acknowledges a
	 * share when it has it) long before their results, which name those
	 * SENDs' WQEs (sim/exec_gen.c keeps a multicast QP's send queue) */
	static const struct { uint32_t nodes, g, ch; uint64_t count, slot; } c[] = {
		{ 2, 4, 4, 100003, 0 }, { 3, 2, 2, 300001, 0 }, { 4, 1, 2, 65536, 0 },
		{ 2, 2, 1, 1u << 20, 0 }, { 4, 1, 1, 1u << 22, 16384 },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		for (int m = 0; m < 2; m++) {
			struct cc_coll_params p;
			struct sim_params f;
			struct sim_net net;
			char err[200];

			cc_coll_params_default(&p);
			p.algo = CC_ALGO_COLLNET_CHAIN;
			p.nranks = c[i].nodes * c[i].g;
			p.ranks_per_node = c[i].g;
			p.nchannels = c[i].ch;
			p.count = c[i].count;
			if (c[i].slot) { /* and 64 reductions open a channel */
				p.slot_bytes = c[i].slot;
				p.nslots = 64;
			}
			cc_coll_params_fill(&p, 0, 0);
			assert_int_equal(cc_params_check(&p, NULL, NULL, 0), 0);
			assert_int_equal(sim_params_preset(m ? "ideal" : "ib-ndr", &f), 0);
			f.sw.sharp = 1;
			sim_net_init(&net, NULL);
			assert_int_equal(sim_topo_net_make_nodes(&net, SIM_TOPO_RAILOPT, p.nranks,
								 c[i].g, err, sizeof(err)), 0);
			for (uint32_t l = 0; c[i].slot && l < net.nlinks; l++)
				if (net.links[l].kind == SIM_NET_LINK_NET &&
				    (net.links[l].a == net.rank_node[0] ||
				     net.links[l].b == net.rank_node[0]))
					net.links[l].rate_bps = f.link.rate_bps / 4;
			check_with(&p, &(const struct cc_sim_opts){
					       .fabric = &f, .net = &net, .seed = 3, .check = i % 2 == 0,
					       .model = m ? CC_SIM_MODEL_FLOW : CC_SIM_MODEL_PACKET });
			sim_net_free(&net);
		}
}

/* Larger: 32 ranks, 4 channels, two QPs per connection, 64 MiB (16 MiB
 * with CCLAB_MATRIX=quick, `make test`: under the sanitizers 64 MiB took
 * most of the program's 6 minutes). */
static void test_larger(void **state)
{
	(void)state;
	struct cc_coll_params p;

	cc_coll_params_default(&p);
	p.nranks = 32;
	p.count = matrix_quick() ? 4u << 20 : 16u << 20;
	p.nchannels = 4;
	p.qps_per_conn = 2;
	cc_coll_params_fill(&p, 0, 0);
	check(&p, "roce-400g", SIM_TOPO_STAR, CC_SIM_MODEL_PACKET, false);
	check(&p, "ideal", SIM_TOPO_RING, CC_SIM_MODEL_FLOW, true);
}

/* A run cut short by the simulated-time limit, and one stuck: the same
 * report, events and trace as the built schedule's (a generated run that
 * does not end cleanly is run again with every stream whole), with the
 * default window and one of 4 ops. */
static void test_cut_short(void **state)
{
	(void)state;
	struct cc_coll_params p;
	struct sim_params f;
	char err[256];

	cc_coll_params_default(&p);
	p.nranks = 8;
	p.count = 1u << 20;
	p.nslots = 128;
	cc_coll_params_fill(&p, 0, 0);
	assert_int_equal(sim_params_preset("roce-400g", &f), 0);
	struct cc_schedule *whole = cc_build(&p, err, sizeof(err));
	struct cc_schedule *gen =
		cc_build_with(&p, &(const struct cc_build_opts){ .generated = true }, err, sizeof(err));

	assert_non_null(whole);
	assert_non_null(gen->gen);
	for (int w = 0; w < 2; w++) {
		struct cc_sim_opts o = { .fabric = &f, .topo = SIM_TOPO_RING,
					 .time_limit_ps = 20000000, .gen_window = w ? 4 : 0 };
		struct cc_trace ta, tb;
		struct cc_sim_result a, b;

		cc_trace_init(&ta);
		cc_trace_init(&tb);
		o.trace = &ta;
		assert_int_equal(cc_sim_run(whole, &o, &a), 0);
		o.trace = &tb;
		assert_int_equal(cc_sim_run(gen, &o, &b), 0);
		assert_int_equal(a.err.status, CC_RUN_TIME_LIMIT);
		assert_int_equal(b.err.status, a.err.status);
		assert_string_equal(b.err.msg, a.err.msg);
		same_runs(&a, &ta, &b, &tb, "cut short");
		assert_int_equal(b.gen_window, UINT32_MAX);
		cc_sim_result_free(&a);
		cc_sim_result_free(&b);
		cc_trace_free(&ta);
		cc_trace_free(&tb);
	}
	cc_schedule_free(gen);
	cc_schedule_free(whole);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cut_short),
		cmocka_unit_test(test_ring),
		cmocka_unit_test(test_ring_nccl_slices),
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_collnet),
		cmocka_unit_test(test_larger),
	};

	return cmocka_run_group_tests_name("gen_sim", tests, NULL, NULL);
}
