/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_sim_net_step.c — NCCL's network plugin on the proxy thread
 * (software.net_step_ps; docs/simulator.md, "The proxy's network
 * plugin"): the schedule marks the post of each plugin call, one isend a
 * slice whatever its QPs and one irecv a slice invited; the simulator
 * charges half a step's cost on each, on the proxy's CPU, and nothing on
 * NVLink or in a perftest run; the presets take NCCL's figure for their
 * CPU. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>

#include "core/p2p.h"
#include "sim/exec.h"
#include "sim/params.h"
#include "tests/files.h"
#include "tests/run_cclab.h"
#include "tests/sim_sched.h"

#define US UINT64_C(1000000)
#define MIB (UINT64_C(1) << 20)

/* A 1 MiB ring allreduce of k ranks over nch channels, qpc QPs a
 * connection, each slice split over them (NCCL_IB_SPLIT_DATA_ON_QPS=1) or
 * whole on one in turn. */
static struct cc_schedule *ring_split(enum cc_transport t, uint32_t k, uint32_t nch, uint32_t qpc,
				      bool split)
{
	struct cc_coll_params p;
	char err[256];
	struct cc_schedule *s;

	cc_coll_params_default(&p);
	p.transport = t;
	p.nranks = k;
	p.nchannels = nch;
	p.qps_per_conn = qpc;
	p.split_on_qps = split;
	p.count = MIB / 4; /* 1 MiB of float */
	s = cc_build(&p, err, sizeof(err));
	assert_non_null(s);
	return s;
}

static struct cc_schedule *ring(enum cc_transport t, uint32_t k, uint32_t nch, uint32_t qpc)
{
	return ring_split(t, k, nch, qpc, false);
}

struct count {
	uint32_t isend, irecv, data_posts, cts_posts;
};

static struct count count_of(const struct cc_schedule *s, uint32_t r)
{
	const struct cc_rank_sched *rs = &s->ranks[r];
	struct count n = {0};

	for (uint32_t i = 0; i < rs->nops; i++) {
		const struct cc_op *o = &rs->ops[i];
		bool send = o->kind == CC_OP_POST_SEND;

		n.isend += o->tag.call == CC_CALL_ISEND;
		n.irecv += o->tag.call == CC_CALL_IRECV;
		/* the marks sit on sends of the right kind only */
		if (o->tag.call)
			assert_true(send);
		if (o->tag.call == CC_CALL_ISEND)
			assert_int_equal(o->u.send.payload, CC_PAYLOAD_DATA);
		if (o->tag.call == CC_CALL_IRECV) {
			assert_int_equal(o->u.send.payload, CC_PAYLOAD_CTRL);
			assert_true(o->u.send.flags & CC_SEND_INLINE);
			/* into the sender's clear-to-send words (NCCL's FIFO) */
			const struct cc_rank_sched *ps = &s->ranks[rs->qps[o->u.send.qp].peer];

			assert_int_equal(ps->bufs[ps->mrs[o->u.send.remote_mr].buf].role, CC_BUF_CTS);
		}
		if (send && o->u.send.payload == CC_PAYLOAD_DATA)
			n.data_posts++;
	}
	return n;
}

/* One isend a slice, on its first QP's post where it is split over two;
 * one irecv a slice invited; on a ring, as many slices come in as go
 * out. */
static void marks(void **state)
{
	static const enum cc_transport ts[] = {CC_WRITE_IMM, CC_SEND_RECV, CC_WRITE_FLAG};
	(void)state;

	for (size_t t = 0; t < sizeof(ts) / sizeof(ts[0]); t++)
		for (uint32_t qpc = 1; qpc <= 2; qpc++) {
			/* split: NCCL's write_imm only */
			bool split = qpc == 2 && ts[t] == CC_WRITE_IMM;
			struct cc_schedule *s = ring_split(ts[t], 4, 2, qpc, split);

			for (uint32_t r = 0; r < 4; r++) {
				struct count n = count_of(s, r);

				/* 2 channels x 2(k-1) = 6 sending steps x 1
				 * slice: 1 MiB over 4 ranks and 2 channels is
				 * 128 KiB a step, one 512 KiB slot's slice */
				assert_int_equal(n.isend, 2 * 6);
				assert_int_equal(n.irecv, n.isend);
				assert_int_equal(n.data_posts, n.isend * (split ? qpc : 1));
			}
			cc_schedule_free(s);
		}
}

/* A schedule that marks an op no plugin call makes is invalid. */
static void marks_validated(void **state)
{
	struct cc_schedule *s = ring(CC_WRITE_IMM, 4, 1, 1);
	struct cc_rank_sched *rs = &s->ranks[0];
	char err[256];
	uint32_t poll = 0;
	(void)state;

	assert_int_equal(cc_schedule_validate(s, err, sizeof(err)), 0);
	while (rs->ops[poll].kind != CC_OP_POLL_CQ)
		poll++;
	rs->ops[poll].tag.call = CC_CALL_ISEND;
	assert_int_equal(cc_schedule_validate(s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "call mark 1 on an op that makes no plugin call"));
	rs->ops[poll].tag.call = CC_CALL_NONE;
	for (uint32_t i = 0; i < rs->nops; i++)
		if (rs->ops[i].tag.call)
			rs->ops[i].tag.call = CC_CALL_COUNT;
	assert_int_equal(cc_schedule_validate(s, err, sizeof(err)), -EINVAL);
	cc_schedule_free(s);
}

/* What else a slice may take stays unmarked, and the counts hold: the
 * LL128 protocol, adaptive routing's 0-byte WRITE WITH IMM behind the
 * data, the GDR flush's READ. */
static void marks_other_shapes(void **state)
{
	struct cc_coll_params p;
	char err[256];
	(void)state;

	for (int shape = 0; shape < 3; shape++) {
		struct cc_schedule *s;

		cc_coll_params_default(&p);
		p.nranks = 4;
		p.nchannels = 2;
		p.count = MIB / 4;
		if (shape == 0)
			p.proto = CC_PROTO_LL128;
		p.ar_split = shape == 1;
		p.ar_threshold = 8192;
		p.gdr_flush = shape == 2;
		assert_non_null(s = cc_build(&p, err, sizeof(err)));
		for (uint32_t r = 0; r < 4; r++) {
			const struct cc_rank_sched *rs = &s->ranks[r];
			struct count n = count_of(s, r);
			uint32_t imm0 = 0, reads = 0;

			assert_true(n.isend > 0);
			assert_int_equal(n.irecv, n.isend);
			assert_int_equal(n.data_posts, n.isend);
			for (uint32_t i = 0; i < rs->nops; i++) {
				const struct cc_op *o = &rs->ops[i];

				if (o->kind != CC_OP_POST_SEND)
					continue;
				imm0 += o->u.send.opcode == CC_WR_RDMA_WRITE_WITH_IMM &&
					o->u.send.payload == CC_PAYLOAD_CTRL;
				reads += o->u.send.opcode == CC_WR_RDMA_READ;
			}
			/* the shape is there, its ops unmarked (count_of) */
			if (shape == 1)
				assert_int_equal(imm0, n.isend);
			if (shape == 2)
				assert_int_equal(reads, n.irecv);
		}
		cc_schedule_free(s);
	}
}

/* Inside a node NCCL's P2P transport has no proxy: no marks on those
 * connections.  4 ranks, 2 a node: 0 -> 1 and 2 -> 3 stay inside, 1 -> 2
 * and 3 -> 0 cross. */
static void no_marks_inside_a_node(void **state)
{
	struct cc_coll_params p;
	char err[256];
	struct cc_schedule *s;
	(void)state;

	cc_coll_params_default(&p);
	p.nranks = 4;
	p.nchannels = 2;
	p.ranks_per_node = 2;
	p.count = MIB / 4;
	assert_non_null(s = cc_build(&p, err, sizeof(err)));
	for (uint32_t r = 0; r < 4; r++) {
		struct count n = count_of(s, r);
		bool sends_out = r % 2 == 1, hears_out = r % 2 == 0;

		assert_int_equal(n.isend, sends_out ? 2 * 6 : 0);
		assert_int_equal(n.irecv, hears_out ? 2 * 6 : 0);
	}
	cc_schedule_free(s);
}

static struct cc_sim_result run(const struct cc_schedule *s, enum sim_topo_kind topo,
				sim_time_ps net_step)
{
	struct sim_params f;
	struct cc_sim_result res;
	struct cc_sim_opts o = {.fabric = &f, .topo = topo, .seed = 1};

	assert_int_equal(sim_params_preset("ideal", &f), 0);
	f.soft.net_step_ps = net_step;
	assert_int_equal(cc_sim_run(s, &o, &res), 0);
	assert_run_status(res.err, CC_RUN_OK);
	return res;
}

/* On the proxy: each rank's CPU time grows by half a step a call, exactly,
 * and the collective takes longer. */
static void charged_on_the_proxy(void **state)
{
	struct cc_schedule *s = ring(CC_WRITE_IMM, 4, 2, 2);
	struct cc_sim_result none = run(s, SIM_TOPO_STAR, 0);
	struct cc_sim_result some = run(s, SIM_TOPO_STAR, 3 * US);
	(void)state;

	assert_int_equal(none.rank[0].busy_ps[CC_SIM_SOFTWARE], 0); /* ideal: verbs are free */
	for (uint32_t r = 0; r < 4; r++) {
		struct count n = count_of(s, r);

		assert_int_equal(some.rank[r].busy_ps[CC_SIM_SOFTWARE] -
					 none.rank[r].busy_ps[CC_SIM_SOFTWARE],
				 (uint64_t)(n.isend + n.irecv) * 3 * US / 2);
		assert_int_equal(some.rank[r].wire_bytes, none.rank[r].wire_bytes);
	}
	assert_true(some.time_ps > none.time_ps);
	cc_sim_result_free(&none);
	cc_sim_result_free(&some);
	cc_schedule_free(s);
}

/* NVLink's P2P transport has no proxy: the same ring on one NVSwitch node
 * takes the same time, to the picosecond, and no CPU. */
static void none_over_nvlink(void **state)
{
	struct cc_schedule *s = ring(CC_WRITE_IMM, 4, 2, 1);
	struct cc_sim_result none = run(s, SIM_TOPO_NODE, 0);
	struct cc_sim_result some = run(s, SIM_TOPO_NODE, 3 * US);
	(void)state;

	assert_int_equal(some.time_ps, none.time_ps);
	assert_int_equal(some.events, none.events);
	for (uint32_t r = 0; r < 4; r++)
		assert_int_equal(some.rank[r].busy_ps[CC_SIM_SOFTWARE], 0);
	cc_sim_result_free(&none);
	cc_sim_result_free(&some);
	cc_schedule_free(s);
}

/* perftest calls the verbs itself: no plugin, no mark, no cost. */
static void none_in_perftest(void **state)
{
	struct cc_p2p_params pp;
	char err[256];
	struct cc_schedule *s;
	(void)state;

	cc_p2p_params_default(&pp, CC_P2P_WRITE, CC_P2P_BW);
	pp.size = 65536;
	pp.iters = 100;
	assert_non_null(s = cc_build_p2p(&pp, err, sizeof(err)));
	for (uint32_t r = 0; r < 2; r++) {
		struct count n = count_of(s, r);

		assert_int_equal(n.isend + n.irecv, 0);
	}
	struct cc_sim_result none = run(s, SIM_TOPO_STAR, 0);
	struct cc_sim_result some = run(s, SIM_TOPO_STAR, 3 * US);

	assert_int_equal(some.time_ps, none.time_ps);
	cc_sim_result_free(&none);
	cc_sim_result_free(&some);
	cc_schedule_free(s);
}

/* NCCL's network post overhead by CPU maker (src/graph/tuning.cc
 * getNetOverhead), each preset for its host's CPU; at most a second. */
static void presets(void **state)
{
	static const struct {
		const char *name;
		sim_time_ps step;
		enum cc_cpu_vendor cpu;
	} want[] = {
		{"ib-hdr", 2 * US, CC_CPU_AMD},    {"roce-100g", 2 * US, CC_CPU_AMD},
		{"ib-ndr", US, CC_CPU_INTEL},      {"roce-400g", US, CC_CPU_INTEL},
		{"ideal", 0, CC_CPU_INTEL},
	};
	struct sim_params f;
	(void)state;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(sim_params_preset(want[i].name, &f), 0);
		assert_int_equal(f.soft.net_step_ps, want[i].step);
		assert_int_equal(f.host.cpu_vendor, want[i].cpu);
	}
	f.soft.net_step_ps = SIM_PS_PER_S;
	assert_int_equal(sim_params_validate(&f), 0);
	f.soft.net_step_ps = SIM_PS_PER_S + 1;
	assert_int_equal(sim_params_validate(&f), -EINVAL);
}

/* The time of the 1 MiB row of `cclab sim ARGS`, which must succeed. */
static double row_us(const char *args, bool want_line)
{
	struct run r = run_cclab("sim -n 4 -b 1M --memory host --topology star --check 0 %s", args);
	const char *row;
	double us = 0;

	assert_int_equal(r.status, 0);
	assert_int_equal(strstr(r.out, "# proxy: cclab's verbs executor posts its own verbs") != NULL,
			 want_line);
	assert_non_null(row = strstr(r.out, "\n     1048576 "));
	assert_int_equal(sscanf(row, " %*s %*s %*s %*s %*s %lf", &us), 1);
	run_free(&r);
	return us;
}

/* cclab's own verbs executor has no NCCL plugin: `cclab sim --verbs-run`
 * predicts it with none, as a fabric whose software.net_step_ps is 0,
 * before or after --fabric, and says so. */
static void verbs_run(void **state)
{
	FILE *f;
	char fab[256];
	(void)state;

	need_cclab_binary();
	assert_non_null(f = create_in_tmpdir("no-plugin.yaml"));
	fputs("preset: roce-400g\nsoftware: {net_step_ps: 0us}\n", f);
	fclose(f);
	snprintf(fab, sizeof(fab), "--fabric %s/no-plugin.yaml", tmpdir);
	double nccl = row_us("--fabric roce-400g", false);
	double own = row_us("--fabric roce-400g --verbs-run", true);

	assert_true(own < nccl);
	assert_true(row_us("--verbs-run --fabric roce-400g", true) == own);
	assert_true(row_us(fab, false) == own);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(marks),
		cmocka_unit_test(marks_other_shapes),
		cmocka_unit_test(marks_validated),
		cmocka_unit_test(no_marks_inside_a_node),
		cmocka_unit_test(charged_on_the_proxy),
		cmocka_unit_test(none_over_nvlink),
		cmocka_unit_test(none_in_perftest),
		cmocka_unit_test(presets),
		cmocka_unit_test(verbs_run),
	};

	if (run_cclab_begin("net-step"))
		return 1;
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	run_cclab_end();
	return rc;
}
