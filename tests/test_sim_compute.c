/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_sim_compute.c — the reduce/copy resource (sim/compute.c):
 * every cost is asserted to the picosecond against
 *   overhead + ceil(bytes moved * 1e12 / bandwidth),
 * written next to the assertion.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/compute.h"
#include "sim/event.h"
#include "sim/params.h"
#include "sim/time.h"

#define TB_S UINT64_C(1000000000000) /* 1e12 B/s: 1 byte per ps */

struct done_log {
	struct {
		sim_time_ps at;
		uint64_t arg;
	} e[64];
	size_t n;
};

static void on_done(struct sim_engine *eng, void *ctx, uint64_t arg, sim_time_ps done_ps)
{
	struct done_log *g = ctx;

	assert_int_equal(done_ps, sim_now(eng));
	assert_true(g->n < sizeof(g->e) / sizeof(g->e[0]));
	g->e[g->n].at = done_ps;
	g->e[g->n++].arg = arg;
}

/* 1 B/ps, overhead 1000 ps: exact arithmetic. */
static void test_copy_reduce_exact(void **state)
{
	struct sim_engine eng;
	struct sim_compute c;
	struct done_log log = {0};

	(void)state;
	assert_int_equal(sim_engine_init(&eng, 0), 0);
	assert_int_equal(sim_compute_init(&c, &eng, 1000, TB_S), 0);
	/* copy 4096 B, 1 destination: 1000 + 2 * 4096 */
	assert_int_equal(sim_compute_cost_ps(&c, 2 * 4096), 1000 + 8192);
	assert_int_equal(sim_compute_copy(&c, 4096, 1, on_done, &log, 1), 0);
	sim_run(&eng, SIM_TIME_NEVER);
	assert_int_equal(log.n, 1);
	assert_int_equal(log.e[0].at, 1000 + 2 * 4096);
	assert_int_equal(c.st.bytes_moved, 2 * 4096);
	/* reduce 4096 B, 2 sources, 1 destination: 3n; then 2 destinations:
	 * 4n; each starts when submitted (the resource is idle). */
	assert_int_equal(sim_compute_reduce(&c, 4096, 2, 1, on_done, &log, 2), 0);
	sim_run(&eng, SIM_TIME_NEVER);
	assert_int_equal(log.e[1].at, 9192 + 1000 + 3 * 4096);
	assert_int_equal(sim_compute_reduce(&c, 4096, 2, 2, on_done, &log, 3), 0);
	sim_run(&eng, SIM_TIME_NEVER);
	assert_int_equal(log.e[2].at, 9192 + 13288 + 1000 + 4 * 4096);
	assert_int_equal(c.st.jobs, 3);
	assert_int_equal(c.st.bytes_moved, (2 + 3 + 4) * 4096);
	assert_int_equal(sim_compute_busy_ps(&c), 3 * 1000 + 9 * 4096);
	sim_compute_destroy(&c);
	sim_engine_destroy(&eng);
}

/* 3 B/ps, no overhead: rounding up to whole picoseconds. */
static void test_rounding(void **state)
{
	struct sim_engine eng;
	struct sim_compute c;

	(void)state;
	assert_int_equal(sim_engine_init(&eng, 0), 0);
	assert_int_equal(sim_compute_init(&c, &eng, 0, 3 * TB_S), 0);
	assert_int_equal(sim_compute_cost_ps(&c, 2), 1);  /* copy 1 B: ceil(2/3) */
	assert_int_equal(sim_compute_cost_ps(&c, 15), 5); /* reduce 5 B, 3n: 15/3 */
	assert_int_equal(sim_compute_cost_ps(&c, 20), 7); /* reduce 5 B, 4n: ceil(20/3) */
	assert_int_equal(sim_compute_cost_ps(&c, 0), 0);
	/* Saturates instead of wrapping: 2^64-1 B at 1 B/s. */
	assert_int_equal(sim_compute_init(&c, &eng, 5, 1), 0);
	assert_int_equal(sim_compute_cost_ps(&c, UINT64_MAX), SIM_TIME_NEVER);
	/* bandwidth 0 is unlimited: the overhead alone */
	assert_int_equal(sim_compute_init(&c, &eng, 777, 0), 0);
	assert_int_equal(sim_compute_cost_ps(&c, UINT64_C(1) << 40), 777);
	assert_int_equal(sim_compute_reduce(&c, 1, 0, 1, NULL, NULL, 0), -EINVAL);
	assert_int_equal(sim_compute_reduce(&c, 1, 2, 0, NULL, NULL, 0), -EINVAL);
	assert_int_equal(sim_compute_copy(&c, 1, 0, NULL, NULL, 0), -EINVAL);
	assert_int_equal(sim_compute_copy(&c, UINT64_MAX, 1, NULL, NULL, 0), -EINVAL);
	assert_int_equal(sim_compute_init_host(&c, &eng, SIM_COMPUTE_KIND_COUNT, NULL), -EINVAL);
	sim_compute_destroy(&c);
	sim_engine_destroy(&eng);
}

/* Two jobs submitted at 0 run back to back, one pending event at a time:
 *   A = 1000 + 3 * 1000 = 4000;  B = A + 1000 + 2 * 500 = 6000. */
static void test_back_to_back(void **state)
{
	struct sim_engine eng;
	struct sim_compute c;
	struct done_log log = {0};

	(void)state;
	assert_int_equal(sim_engine_init(&eng, 0), 0);
	assert_int_equal(sim_compute_init(&c, &eng, 1000, TB_S), 0);
	assert_int_equal(sim_compute_reduce(&c, 1000, 2, 1, on_done, &log, 'A'), 0);
	assert_int_equal(sim_compute_copy(&c, 500, 1, on_done, &log, 'B'), 0);
	assert_int_equal(sim_pending(&eng), SIM_COMPUTE_MAX_EVENTS);
	sim_run(&eng, 5000);
	assert_int_equal(log.n, 1);
	assert_int_equal(log.e[0].arg, 'A');
	assert_int_equal(log.e[0].at, 1000 + 3 * 1000);
	assert_int_equal(sim_compute_busy_ps(&c), 4000 + 1000); /* B's elapsed part */
	assert_int_equal(sim_pending(&eng), 1);
	sim_run(&eng, SIM_TIME_NEVER);
	assert_int_equal(log.n, 2);
	assert_int_equal(log.e[1].arg, 'B');
	assert_int_equal(log.e[1].at, 4000 + 1000 + 2 * 500);
	assert_true(sim_compute_idle(&c));
	sim_compute_destroy(&c);
	sim_engine_destroy(&eng);
}

/* The ib-hdr preset (A100 node): GPU 2039 GB/s, launch 5 us; CPU thread
 * 20 GB/s, call 100 ns.  Reduce 1 MiB, 2 sources, 1 destination = 3 MiB:
 *   GPU: 5000000 + ceil(3145728 * 1e12 / 2039e9) = 5000000 + 1542780
 *   CPU:  100000 + 3145728 * 1e12 / 20e9        =  100000 + 157286400
 * and 4 KiB the other way round: the launch dominates a small GPU job,
 *   GPU: 1000000 + ceil(12288e12 / 2039e9) = 1006027 per step, after one
 *   launch of 5000000;  CPU: 100000 + 614400 */
static void test_gpu_vs_cpu_preset(void **state)
{
	struct sim_params sp;
	struct sim_engine eng;
	struct sim_compute gpu, cpu;
	struct done_log lg = {0}, lc = {0};

	(void)state;
	assert_int_equal(sim_params_preset("ib-hdr", &sp), 0);
	assert_int_equal(sim_engine_init(&eng, 0), 0);
	assert_int_equal(sim_compute_init_host(&gpu, &eng, SIM_COMPUTE_GPU, &sp.host), 0);
	assert_int_equal(sim_compute_init_host(&cpu, &eng, SIM_COMPUTE_CPU, &sp.host), 0);
	assert_int_equal(sim_compute_reduce(&gpu, 1 << 20, 2, 1, on_done, &lg, 0), 0);
	assert_int_equal(sim_compute_reduce(&cpu, 1 << 20, 2, 1, on_done, &lc, 0), 0);
	sim_run(&eng, SIM_TIME_NEVER);
	/* the first GPU job launches the kernel: launch + step + bytes */
	assert_int_equal(lg.e[0].at, 5000000 + 1000000 + 1542780);
	assert_int_equal(lc.e[0].at, 100000 + 157286400);
	/* later jobs run in the launched kernel: step + bytes */
	assert_int_equal(sim_compute_cost_ps(&gpu, 3 * 4096), 1000000 + 6027);
	assert_int_equal(sim_compute_cost_ps(&cpu, 3 * 4096), 100000 + 614400);
	sim_compute_destroy(&gpu);
	sim_compute_destroy(&cpu);
	sim_engine_destroy(&eng);
}

/* A callback that queues the next job: a chain of 10 copies of 100 B at
 * 1 B/ps with 10 ps overhead, each 210 ps, ends at 2100. */
struct chain {
	struct sim_compute *c;
	struct done_log log;
};

static void chain_next(struct sim_engine *eng, void *ctx, uint64_t arg, sim_time_ps done_ps)
{
	struct chain *ch = ctx;

	on_done(eng, &ch->log, arg, done_ps);
	if (arg + 1 < 10)
		assert_int_equal(sim_compute_copy(ch->c, 100, 1, chain_next, ch, arg + 1), 0);
}

static void run_chain(unsigned flags, struct done_log *out)
{
	struct sim_engine eng;
	struct sim_compute c;
	struct chain ch = {.c = &c};

	assert_int_equal(sim_engine_init(&eng, flags), 0);
	assert_int_equal(sim_compute_init(&c, &eng, 10, TB_S), 0);
	assert_int_equal(sim_compute_copy(&c, 100, 1, chain_next, &ch, 0), 0);
	/* and independent jobs queued behind the first */
	for (uint64_t i = 0; i < 5; i++)
		assert_int_equal(sim_compute_reduce(&c, 7 * i + 1, 2, 1, on_done, &ch.log, 100 + i), 0);
	while (sim_pending(&eng)) {
		assert_true(sim_pending(&eng) <= SIM_COMPUTE_MAX_EVENTS);
		sim_run(&eng, sim_now(&eng) + 50);
	}
	*out = ch.log;
	sim_compute_destroy(&c);
	sim_engine_destroy(&eng);
}

static void test_chain_determinism(void **state)
{
	static struct done_log a, b, c;
	sim_time_ps t = 210;

	(void)state;
	run_chain(0, &a);
	run_chain(0, &b);
	run_chain(SIM_ENGINE_LIFO_TIES, &c);
	assert_int_equal(a.n, 15);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_memory_equal(&a, &c, sizeof(a));
	/* Copy 0 (210), then reduces i = 0..4 of 10 + 3(7i + 1), then the
	 * chain's copies 1..9, 210 each, in submission order. */
	assert_int_equal(a.e[0].at, 210);
	for (uint64_t i = 0; i < 5; i++) {
		t += 10 + 3 * (7 * i + 1);
		assert_int_equal(a.e[1 + i].arg, 100 + i);
		assert_int_equal(a.e[1 + i].at, t);
	}
	for (uint64_t i = 1; i < 10; i++) {
		t += 210;
		assert_int_equal(a.e[5 + i].arg, i);
		assert_int_equal(a.e[5 + i].at, t);
	}
}

/* Lanes (thread blocks) pay their overheads at once and share the
 * memory, served in the order the lanes started their jobs.  Overhead
 * 1000 ps, 1 B/ps; copies of 500 B move 1000 B (1000 ps of memory):
 *   lane 0, A at 0: overhead to 1000, memory 1000..2000
 *   lane 1, B at 0: overhead to 1000, memory waits for A: 2000..3000
 *   lane 2, C at 0, 0 bytes: overhead only, ends at 1000
 *   lane 0, D after A: overhead 2000..3000, memory 3000..4000
 * One lane alone would take 3 x 2000 + 1000 = 7000 ps.  Busy: any lane
 * running a job, 0..4000; one event per busy lane. */
static void test_lanes(void **state)
{
	struct sim_engine eng;
	struct sim_compute c;
	struct done_log log = {0};

	(void)state;
	assert_int_equal(sim_engine_init(&eng, 0), 0);
	assert_int_equal(sim_compute_init(&c, &eng, 1000, TB_S), 0);
	assert_int_equal(sim_compute_submit_on(&c, 0, 1000, 0, on_done, &log, 'A'), 0);
	assert_int_equal(sim_compute_submit_on(&c, 1, 1000, 0, on_done, &log, 'B'), 0);
	assert_int_equal(sim_compute_submit_on(&c, 2, 0, 0, on_done, &log, 'C'), 0);
	assert_int_equal(sim_compute_submit_on(&c, 0, 1000, 0, on_done, &log, 'D'), 0);
	assert_int_equal(sim_pending(&eng), 3 * SIM_COMPUTE_MAX_EVENTS);
	assert_int_equal(c.nlanes, 3);
	sim_run(&eng, 1500);
	assert_int_equal(log.n, 1);
	assert_int_equal(log.e[0].arg, 'C');
	assert_int_equal(log.e[0].at, 1000);
	assert_int_equal(sim_compute_busy_ps(&c), 1500);
	sim_run(&eng, SIM_TIME_NEVER);
	assert_int_equal(log.n, 4);
	assert_int_equal(log.e[1].arg, 'A');
	assert_int_equal(log.e[1].at, 2000);
	assert_int_equal(log.e[2].arg, 'B');
	assert_int_equal(log.e[2].at, 3000);
	assert_int_equal(log.e[3].arg, 'D');
	assert_int_equal(log.e[3].at, 4000);
	assert_int_equal(sim_compute_busy_ps(&c), 4000);
	assert_true(sim_compute_idle(&c));
	assert_int_equal(sim_compute_submit_on(&c, SIM_COMPUTE_MAX_LANES, 1, 0, NULL, NULL, 0),
			 -EINVAL);
	sim_compute_destroy(&c);
	sim_engine_destroy(&eng);
}

/* A job's other path (a GPU's PCIe link to host memory) is its own shared
 * timeline, beside the memory.  Overhead 1000 ps, 1 B/ps, all at 0:
 *   lane 0, A: 1000 B and 5000 ps of PCIe: memory 1000..2000, PCIe
 *     1000..6000, ends at 6000
 *   lane 1, B: 1000 B: memory 2000..3000 (after A's), ends at 3000, not
 *     held up by A's PCIe time
 *   lane 2, C: 0 B and 1000 ps of PCIe: PCIe 6000..7000, ends at 7000. */
static void test_lanes_other_path(void **state)
{
	struct sim_engine eng;
	struct sim_compute c;
	struct done_log log = {0};

	(void)state;
	assert_int_equal(sim_engine_init(&eng, 0), 0);
	assert_int_equal(sim_compute_init(&c, &eng, 1000, TB_S), 0);
	assert_int_equal(sim_compute_submit_on(&c, 0, 1000, 5000, on_done, &log, 'A'), 0);
	assert_int_equal(sim_compute_submit_on(&c, 1, 1000, 0, on_done, &log, 'B'), 0);
	assert_int_equal(sim_compute_submit_on(&c, 2, 0, 1000, on_done, &log, 'C'), 0);
	sim_run(&eng, SIM_TIME_NEVER);
	assert_int_equal(log.n, 3);
	assert_int_equal(log.e[0].arg, 'B');
	assert_int_equal(log.e[0].at, 3000);
	assert_int_equal(log.e[1].arg, 'A');
	assert_int_equal(log.e[1].at, 6000);
	assert_int_equal(log.e[2].arg, 'C');
	assert_int_equal(log.e[2].at, 7000);
	sim_compute_destroy(&c);
	sim_engine_destroy(&eng);
}

/* A thread group's pace: ceil(n / (w x 4096)) rounds of 500 ns, the first
 * one inside the hop's latency.  16 warps, 64 KiB a round: 512 KiB is 8
 * rounds, 3.5 us; 512 KiB + 1 B is 9, 4 us; 1 B is one, nothing; nothing,
 * no warps or no latency is no pace.  LL's 32 KiB slot on 16 warps: 4 KiB
 * a round, 8 rounds; LL128's 576,000 B step on 20 warps: 38,400 B a
 * round, 15 rounds. */
static void test_pace_closed_form(void **state)
{
	struct sim_host_params h = { .gpu_mem_latency_ps = 500000, .gpu_warp_load_bytes = 4096 };

	(void)state;
	assert_int_equal(sim_compute_pace_ps(&h, CC_PROTO_SIMPLE, 16, 512 * 1024), 3500000);
	assert_int_equal(sim_compute_pace_ps(&h, CC_PROTO_SIMPLE, 16, 512 * 1024 + 1), 4000000);
	assert_int_equal(sim_compute_pace_ps(&h, CC_PROTO_SIMPLE, 16, 1), 0);
	assert_int_equal(sim_compute_pace_ps(&h, CC_PROTO_SIMPLE, 8, 1024 * 1024), 15500000);
	assert_int_equal(sim_compute_pace_ps(&h, CC_PROTO_SIMPLE, 16, 0), 0);
	assert_int_equal(sim_compute_pace_ps(&h, CC_PROTO_SIMPLE, 0, 1 << 20), 0);
	assert_int_equal(sim_compute_pace_ps(&h, CC_PROTO_LL, 16, 32768), 3500000);
	assert_int_equal(sim_compute_pace_ps(&h, CC_PROTO_LL128, 20, 576000), 7000000);
	h.gpu_mem_latency_ps = 0;
	assert_int_equal(sim_compute_pace_ps(&h, CC_PROTO_SIMPLE, 16, 1 << 20), 0);
}

/* The pace holds its lane, not the memory: overhead 1000 ps, 1 TB/s.
 *   lane 0, A: 1000 B (1000 ps of memory, 1000..2000) paced 5000 ps:
 *     ends at 1000 + 5000 = 6000; its next job A2 (no pace) starts there
 *     and ends at 6000 + 1000 + 1000 = 8000
 *   lane 1, B: 1000 B, memory 2000..3000 right after A's: ends at 3000
 *   lane 2, C: 1000 B paced 500 ps, under its memory time: memory
 *     3000..4000, ends at 4000. */
static void test_pace_holds_lane(void **state)
{
	struct sim_engine eng;
	struct sim_compute c;
	struct done_log log = {0};

	(void)state;
	assert_int_equal(sim_engine_init(&eng, 0), 0);
	assert_int_equal(sim_compute_init(&c, &eng, 1000, TB_S), 0);
	assert_int_equal(sim_compute_submit_step(&c, 0, 1000, 0, 5000, true, on_done, &log, 'A'),
			 0);
	assert_int_equal(sim_compute_submit_step(&c, 0, 1000, 0, 0, true, on_done, &log, 'a'), 0);
	assert_int_equal(sim_compute_submit_step(&c, 1, 1000, 0, 0, true, on_done, &log, 'B'), 0);
	assert_int_equal(sim_compute_submit_step(&c, 2, 1000, 0, 500, true, on_done, &log, 'C'),
			 0);
	sim_run(&eng, SIM_TIME_NEVER);
	assert_int_equal(log.n, 4);
	assert_int_equal(log.e[0].arg, 'B');
	assert_int_equal(log.e[0].at, 3000);
	assert_int_equal(log.e[1].arg, 'C');
	assert_int_equal(log.e[1].at, 4000);
	assert_int_equal(log.e[2].arg, 'A');
	assert_int_equal(log.e[2].at, 6000);
	assert_int_equal(log.e[3].arg, 'a');
	assert_int_equal(log.e[3].at, 8000);
	sim_compute_destroy(&c);
	sim_engine_destroy(&eng);
}

/* Destroy with jobs queued and running: the sanitizer build checks for
 * leaks. */
static void test_destroy_busy(void **state)
{
	struct sim_engine eng;
	struct sim_compute c;

	(void)state;
	assert_int_equal(sim_engine_init(&eng, 0), 0);
	assert_int_equal(sim_compute_init(&c, &eng, 10, TB_S), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(sim_compute_copy(&c, 100, 1, NULL, NULL, 0), 0);
	sim_run(&eng, 300);
	assert_int_equal(c.st.jobs, 1);
	assert_false(sim_compute_idle(&c));
	sim_compute_destroy(&c);
	sim_engine_destroy(&eng);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_reduce_exact),
		cmocka_unit_test(test_rounding),
		cmocka_unit_test(test_back_to_back),
		cmocka_unit_test(test_gpu_vs_cpu_preset),
		cmocka_unit_test(test_chain_determinism),
		cmocka_unit_test(test_lanes),
		cmocka_unit_test(test_lanes_other_path),
		cmocka_unit_test(test_pace_closed_form),
		cmocka_unit_test(test_pace_holds_lane),
		cmocka_unit_test(test_destroy_busy),
	};
	return cmocka_run_group_tests_name("sim_compute", tests, NULL, NULL);
}
