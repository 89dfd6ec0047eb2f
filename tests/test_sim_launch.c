/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_sim_launch.c — the launching thread's floor (sim/launch.h):
 * an iteration of nccl-tests' loop lasts at least
 *   (software.group_cpu_ps + gpus_per_thread x software.launch_cpu_ps) / agg_iters,
 * none from a CUDA graph or on host memory; the simulator raises the time
 * and every rank's done time to it and changes nothing else; a scenario's
 * `launch:`, `cclab sim --gpus-per-thread` and all_reduce_perf -g say it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/exec.h"
#include "sim/launch.h"
#include "sim/scenario.h"
#include "tests/files.h"
#include "tests/run_cclab.h"
#include "tests/sim_sched.h"

#define US UINT64_C(1000000)

/* The presets' costs: 3.96 us a GPU, 1.6 us a group (sim/params.c). */
static const struct sim_sw_params sw = {.launch_cpu_ps = 3960000, .group_cpu_ps = 1600000};

static void floor_closed_form(void **state)
{
	struct cc_sim_launch l = {.gpus_per_thread = 8, .agg_iters = 1};
	(void)state;
	assert_int_equal(sim_launch_floor_ps(&l, &sw, true), 33280000); /* 1.6 + 8 x 3.96 us */
	l.agg_iters = 4;
	assert_int_equal(sim_launch_floor_ps(&l, &sw, true), 8320000);
	l.agg_iters = 3; /* rounded up: never shorter than the launches */
	assert_int_equal(sim_launch_floor_ps(&l, &sw, true), 11093334);
	l.agg_iters = 0; /* taken as 1 */
	assert_int_equal(sim_launch_floor_ps(&l, &sw, true), 33280000);
	assert_int_equal(sim_launch_floor_ps(&l, &sw, false), 0); /* host memory: no kernel */
	l.cuda_graph = true;
	assert_int_equal(sim_launch_floor_ps(&l, &sw, true), 0);
	l = (struct cc_sim_launch){0}; /* the API's default: no floor */
	assert_int_equal(sim_launch_floor_ps(&l, &sw, true), 0);
	l = CC_SIM_LAUNCH_DEFAULT;
	assert_int_equal(sim_launch_floor_ps(&l, &sw, true), 5560000);
	/* the largest a fabric may give, the most GPUs a thread: no overflow */
	struct sim_sw_params big = {.launch_cpu_ps = SIM_PS_PER_S, .group_cpu_ps = SIM_PS_PER_S};

	l.gpus_per_thread = CC_SIM_LAUNCH_MAX_GPUS;
	assert_int_equal(sim_launch_floor_ps(&l, &big, true),
			 (CC_SIM_LAUNCH_MAX_GPUS + 1) * SIM_PS_PER_S);
}

/* A run of s on f with launch l; the result is the caller's to free. */
static void run(const struct cc_schedule *s, const struct sim_params *f, struct cc_sim_launch l,
		struct cc_sim_result *res)
{
	struct cc_sim_opts o = {.fabric = f, .topo = SIM_TOPO_STAR, .seed = 1, .launch = l};

	assert_int_equal(cc_sim_run(s, &o, res), 0);
	assert_run_status(res->err, CC_RUN_OK);
}

/* The floor raises the time and the ranks' done times to itself where the
 * collective is shorter, and leaves the events and every other figure. */
static void floor_in_the_simulator(void **state)
{
	struct sim_params f;
	struct cc_sim_result raw, low, high;
	struct cc_schedule *s = ring_sched(CC_ALLREDUCE, CC_WRITE_IMM, 4, 1024);
	(void)state;

	assert_int_equal(sim_params_preset("ib-ndr", &f), 0);
	run(s, &f, (struct cc_sim_launch){0}, &raw);
	assert_false(raw.launch_bound);
	assert_int_equal(raw.launch_floor_ps, 0);
	/* one GPU a thread: 5.56 us, below this collective's own time */
	assert_true(raw.time_ps > 5560000);
	run(s, &f, CC_SIM_LAUNCH_DEFAULT, &low);
	assert_int_equal(low.launch_floor_ps, 5560000);
	assert_false(low.launch_bound);
	assert_int_equal(low.time_ps, raw.time_ps);
	/* a thread of 64 GPUs: 1.6 + 64 x 3.96 = 255.04 us, above it */
	run(s, &f, (struct cc_sim_launch){.gpus_per_thread = 64}, &high);
	assert_int_equal(high.launch_floor_ps, 255040000);
	assert_true(high.launch_bound);
	assert_int_equal(high.time_ps, 255040000);
	assert_int_equal(high.events, raw.events);
	for (uint32_t r = 0; r < high.nranks; r++) {
		assert_int_equal(high.rank[r].done_ps, 255040000);
		assert_int_equal(high.rank[r].wire_bytes, raw.rank[r].wire_bytes);
		assert_int_equal(high.rank[r].busy_ps[CC_SIM_WIRE], raw.rank[r].busy_ps[CC_SIM_WIRE]);
	}
	cc_sim_result_free(&raw);
	cc_sim_result_free(&low);
	cc_sim_result_free(&high);
	/* host memory: the CPU reduces, no kernel is launched */
	struct cc_coll_params p = s->params;
	char err[256];

	cc_schedule_free(s);
	p.mem = p.stage_mem = CC_MEM_HOST;
	assert_non_null(s = cc_build(&p, err, sizeof(err)));
	run(s, &f, (struct cc_sim_launch){.gpus_per_thread = 64}, &high);
	assert_false(high.launch_bound);
	assert_int_equal(high.launch_floor_ps, 0);
	assert_true(high.time_ps < 255040000);
	cc_sim_result_free(&high);
	cc_schedule_free(s);
	/* no elements: NCCL returns before it enqueues anything */
	s = ring_sched(CC_ALLREDUCE, CC_WRITE_IMM, 4, 0);
	run(s, &f, (struct cc_sim_launch){.gpus_per_thread = 64}, &high);
	assert_false(high.launch_bound);
	assert_int_equal(high.launch_floor_ps, 0);
	cc_sim_result_free(&high);
	cc_schedule_free(s);
}

/* A scenario file in the test's directory, loaded. */
static int load(const char *name, const char *text, struct cc_scenario *sc, struct cy_error *err)
{
	char path[512];
	FILE *f = create_in_tmpdir(name);

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return cc_scenario_load(path, NULL, 0, sc, err);
}

#define NODE8 "topology: {hosts: [{name: n0, gpus: 8, nvlink: true}]}\n" \
	      "fabric: {preset: ib-ndr}\nsizes: 8\ncheck: false\n"

static void scenario_launch(void **state)
{
	struct cc_scenario sc;
	struct cy_error err;
	(void)state;

	assert_int_equal(load("d.yaml", NODE8, &sc, &err), 0);
	assert_int_equal(sc.launch.gpus_per_thread, 1);
	assert_int_equal(sc.launch.agg_iters, 1);
	assert_false(sc.launch.cuda_graph);
	cc_scenario_free(&sc);
	assert_int_equal(load("g.yaml", NODE8 "launch: {gpus_per_thread: 8, agg_iters: 2, "
				 "cuda_graph: true}\n", &sc, &err), 0);
	assert_int_equal(sc.launch.gpus_per_thread, 8);
	assert_int_equal(sc.launch.agg_iters, 2);
	assert_true(sc.launch.cuda_graph);
	cc_scenario_free(&sc);
	/* hostile values: named with their line and column */
	assert_int_equal(load("z.yaml", NODE8 "launch: {gpus_per_thread: 0}\n", &sc, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "z.yaml:5:"));
	assert_non_null(strstr(err.msg, "gpus_per_thread"));
	assert_int_equal(load("u.yaml", NODE8 "launch: {gpus: 8}\n", &sc, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "gpus"));
	assert_int_equal(load("b.yaml", NODE8 "launch: {cuda_graph: maybe}\n", &sc, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "cuda_graph"));
	assert_int_equal(load("m.yaml", NODE8 "launch: {agg_iters: 1000001}\n", &sc, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "agg_iters"));
	/* 8 ranks are no whole number of threads of 3 GPUs */
	assert_int_equal(load("3.yaml", NODE8 "launch: {gpus_per_thread: 3}\n", &sc, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "3.yaml:5:27: 'gpus_per_thread': 3, but the topology's 8 "
				       "ranks are not a whole number of threads"));
	/* a perftest pair launches no collective */
	assert_int_equal(load("p.yaml", "topology: {generator: star, ranks: 2}\n"
				 "p2p: {op: write}\nlaunch: {gpus_per_thread: 2}\n", &sc, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "launch"));
}

/* `cclab sim` and all_reduce_perf -g 8: 33.28 us at 8 B, noted; -G 1 and
 * --cuda-graph: the collective's own time. */
static void command_line(void **state)
{
	(void)state;
	need_cclab_binary();
	struct run r = run_cclab("sim -n 8 -A auto --topology node --fabric ib-ndr -b 8 -e 8 --check 0 "
				 "--gpus-per-thread 8");

	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "# launch: 8 GPUs a thread, 1 collective a group: an "
				      "iteration takes at least 33.28 us"));
	assert_non_null(strstr(r.out, "   33.28 "));
	assert_non_null(strstr(r.out, "  # Ring/LL 1ch; launch-bound\n"));
	run_free(&r);
	r = run_cclab("sim -n 8 -A auto --topology node --fabric ib-ndr -b 8 -e 8 --check 0 "
		      "--gpus-per-thread 8 --cuda-graph");
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.out, "launch-bound"));
	assert_non_null(strstr(r.out, "no launch floor (a graph replays"));
	run_free(&r);
	/* -m 2: one launch a GPU for two collectives, 16.64 us each */
	r = run_cclab("sim -n 8 -A auto --topology node --fabric ib-ndr -b 8 -e 8 --check 0 "
		      "--gpus-per-thread 8 --agg-iters 2");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "   16.64 "));
	assert_non_null(strstr(r.out, "; launch-bound\n"));
	run_free(&r);
	r = run_cclab("sim -n 8 --gpus-per-thread 0");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--gpus-per-thread"));
	run_free(&r);
	r = run_cclab("sim -n 8 --gpus-per-thread 3");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "-n 8 ranks are not a whole number of threads"));
	run_free(&r);
	/* validate takes the case's launch: the Voltage Park node, -g 8 */
	r = run_cclab("validate validation/h100-1x8-nvswitch-allreduce-nvls-nccl2243-voltagepark "
		      "--max-bytes 8");
	assert_non_null(strstr(r.out, "33.28"));
	assert_non_null(strstr(r.out, "# Ring/LL 1ch; launch-bound\n"));
	/* the release the case states, whose choices the sizes run */
	assert_non_null(strstr(r.out, "topology 1x8-nvswitch, NCCL 2.24.3's choices\n"));
	run_free(&r);
	r = run_cclab("check -n 8 --gpus-per-thread 8");
	assert_int_equal(r.status, 2);
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(floor_closed_form),
		cmocka_unit_test(floor_in_the_simulator),
		cmocka_unit_test(scenario_launch),
		cmocka_unit_test(command_line),
	};

	if (run_cclab_begin("launch"))
		return 1;
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	run_cclab_end();
	return rc;
}
