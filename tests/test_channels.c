/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_channels.c — the ring over C channels (--channels, NCCL's
 * nChannels; core/ring.c):
 *   - #wrong 0 for the ring's five collectives x C in {2, 3, 5} x k in
 *     {2, 3, 5, 8} x every transport, with 3-element slots (channel parts
 *     of one element, or none, included); in the quick run (tests/quick.h)
 *     3001 elements (a thousand slots) only at k = 3: at every k they were
 *     most of the program's time;
 *   - the schedule: every rank has 2C QPs, two on each channel, staging
 *     buffers tagged with their channel, and the ranks together send the
 *     bytes of one channel (every element crosses the same number of
 *     edges: the parts add up to the array);
 *   - the simulator: on roce-100g, k = 8, star, 2 MiB allreduce with 2
 *     channels is faster than with 1 (more messages in flight on each
 *     link), and at 64 MiB the same within 0.1 % (the link is full);
 *   - each channel is its own thread block (a GPU lane, sim/compute.h):
 *     where the GPU's per-step overhead is all that costs, C channels
 *     take the time of one, not C times it;
 *   - --channels with another algorithm, and 'channels:' likewise, refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/algo.h"
#include "core/exec_data.h"
#include "sim/exec.h"
#include "tests/sim_sched.h"
#include "tests/files.h"
#include "tests/quick.h"
#include "tests/run_cclab.h"

static struct cc_coll_params params(enum cc_coll c, enum cc_transport t, uint32_t k,
				    uint32_t nch, uint64_t count)
{
	struct cc_coll_params p;

	cc_coll_params_default(&p);
	p.coll = c;
	p.transport = t;
	p.nranks = k;
	p.nchannels = nch;
	p.count = count;
	p.root = k - 1;
	return p;
}

static void test_correct_and_bytes(void **state)
{
	static const uint32_t ks[] = { 2, 3, 5, 8 }, chs[] = { 2, 3, 5 };
	static const uint64_t counts[] = { 1, 4, 301, 3001 };

	(void)state;
	for (int c = 0; c < CC_ALLTOALL; c++) /* the ring's collectives */
		for (int t = 0; t < CC_TRANSPORT_COUNT; t++)
			for (size_t ki = 0; ki < 4; ki++)
				for (size_t ci = 0; ci < 3; ci++)
					for (size_t i = 0; i < 4; i++) {
						if (i == 3 && ks[ki] != 3 && matrix_quick())
							continue;
						struct cc_coll_params p = params(
							(enum cc_coll)c, (enum cc_transport)t, ks[ki],
							chs[ci], counts[i]);
						struct cc_coll_params one = p;
						char err[200];
						struct cc_schedule *s, *s1;
						struct cc_data_opts o = { .seed = 3, .order_seed = i + ci };
						struct cc_data_result res;

						p.slot_bytes = one.slot_bytes = 12;
						p.chunk_bytes = one.chunk_bytes = 20;
						one.nchannels = 1;
						s = cc_build(&p, err, sizeof(err));
						s1 = cc_build(&one, err, sizeof(err));
						assert_non_null(s);
						assert_non_null(s1);
						assert_int_equal(cc_data_run(s, &o, &res), 0);
						if (res.err.status != CC_RUN_OK || res.wrong)
							fail_msg("%s %s k=%u C=%u n=%llu: %llu wrong, %s",
								 cc_coll_name[c], cc_transport_name[t],
								 ks[ki], chs[ci],
								 (unsigned long long)counts[i],
								 (unsigned long long)res.wrong,
								 res.err.msg);
						uint64_t sum = 0, sum1 = 0;

						for (uint32_t r = 0; r < ks[ki]; r++) {
							sum += cc_rank_data_bytes(&s->ranks[r]);
							sum1 += cc_rank_data_bytes(&s1->ranks[r]);
						}
						assert_int_equal(sum, sum1);
						cc_data_result_free(&res);
						cc_schedule_free(s);
						cc_schedule_free(s1);
					}
}

static void test_structure(void **state)
{
	struct cc_coll_params p = params(CC_ALLREDUCE, CC_WRITE_IMM, 4, 3, 1 << 16);
	char err[200];
	struct cc_schedule *s;

	(void)state;
	s = cc_build(&p, err, sizeof(err));
	assert_non_null(s);
	for (uint32_t r = 0; r < 4; r++) {
		const struct cc_rank_sched *rs = &s->ranks[r];
		unsigned per[3] = { 0 }, stage[3] = { 0 };

		assert_int_equal(rs->nqps, 6);
		for (uint32_t q = 0; q < rs->nqps; q++) {
			assert_true(rs->qps[q].channel < 3);
			per[rs->qps[q].channel]++;
		}
		for (uint32_t b = 0; b < rs->nbufs; b++)
			if (rs->bufs[b].role == CC_BUF_SEND_STAGE || rs->bufs[b].role == CC_BUF_RECV_STAGE)
				stage[rs->bufs[b].channel]++;
		for (int c = 0; c < 3; c++) {
			assert_int_equal(per[c], 2);
			assert_int_equal(stage[c], 2);
		}
	}
	cc_schedule_free(s);
}

static double sim_us(uint32_t nch, uint64_t bytes)
{
	struct cc_coll_params p = params(CC_ALLREDUCE, CC_WRITE_IMM, 8, nch, bytes / 4);

	return sim_star_us(&p, "roce-100g");
}

static void test_sim(void **state)
{
	(void)state;
	assert_true(sim_us(2, 2u << 20) < 0.9 * sim_us(1, 2u << 20));
	double a = sim_us(1, 64u << 20), b = sim_us(2, 64u << 20);

	assert_true(b > a * 0.999 && b < a * 1.001);
}

/* The ideal fabric (no cost but the wire's) with a 50 us GPU step: a
 * 4 KiB allreduce over k = 4 is a chain of NCCL's 2k - 1 = 7 primitives,
 * one step each (350 us and a few ns of wire), and channels run theirs
 * side by side.  With one GPU queue for all, four channels took 4x. */
static void test_sim_blocks(void **state)
{
	struct sim_params f;
	double us[2];
	uint32_t nch[2] = { 1, 4 };

	(void)state;
	assert_int_equal(sim_params_preset("ideal", &f), 0);
	f.host.gpu_step_ps = 50 * SIM_PS_PER_US;
	for (int i = 0; i < 2; i++) {
		struct cc_coll_params p = params(CC_ALLREDUCE, CC_WRITE_IMM, 4, nch[i], 1024);
		char err[256];
		struct cc_schedule *s = cc_build(&p, err, sizeof(err));

		assert_non_null(s);
		us[i] = sim_sched_star_us(s, &f);
		cc_schedule_free(s);
	}
	print_message("    1 channel %.2f us, 4 channels %.2f us\n", us[0], us[1]);
	assert_true(us[0] >= 7 * 50 && us[0] < 7 * 50 * 1.01);
	assert_true(us[1] > 0.99 * us[0] && us[1] < 1.01 * us[0]);
}

static int setup(void **state)
{
	(void)state;
	return run_cclab_begin("channels");
}

static int teardown(void **state)
{
	(void)state;
	return run_cclab_end();
}

static void test_cli(void **state)
{
	char path[160];
	struct run r;
	FILE *f;

	(void)state;
	need_cclab();
	r = run_cclab("check -n 4 --channels 3 -b 1M");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "slots: 8  channels: 3\n"));
	run_free(&r);
	r = run_cclab("check -n 4 --channels 2 -A tree -b 1M");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "channels: 2"));
	run_free(&r);
	r = run_cclab("check -n 4 --channels 2 -A halving-doubling -b 1M");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--channels: 2 channels, but halving-doubling does not split "
				      "over channels"));
	run_free(&r);
	snprintf(path, sizeof(path), "%s/s.yaml", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("topology: {generator: star, ranks: 4}\nalgorithm: hierarchical\nchannels: 2\n"
	      "sizes: 1K\n", f);
	assert_int_equal(fclose(f), 0);
	r = run_cclab("run %s", path);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "s.yaml:3:11: 'channels': 2 channels, but hierarchical does "
				      "not split over channels"));
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_correct_and_bytes),
		cmocka_unit_test(test_structure),
		cmocka_unit_test(test_sim),
		cmocka_unit_test(test_sim_blocks),
		cmocka_unit_test(test_cli),
	};

	return cmocka_run_group_tests_name("channels", t, setup, teardown);
}
