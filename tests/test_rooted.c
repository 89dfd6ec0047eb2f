/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_rooted.c — broadcast, reduce and all-to-all: the bytes each
 * rank sends against closed forms written here, the root, and the command
 * line and scenario keys that reach them.
 *   - ring broadcast (broadcast.h runRing): every rank sends N but the one
 *     before the root; ring reduce (reduce.h): every rank but the root;
 *   - direct (flat tree): broadcast's root sends (k-1) N, the others
 *     nothing; reduce's non-roots send N each; all-to-all (k-1) N each;
 *   - tree (NCCL's binary tree, relabelled to put the root on top):
 *     reduce's non-roots send N each, broadcast's ranks N per child, and
 *     (k-1) N in all, every edge once;
 *   - nccl-tests' busbw factors: 1 for broadcast and reduce, (k-1)/k for
 *     all-to-all;
 *   - the data executor: #wrong 0 for every root of k = 1..6 (reduce's
 *     non-root outputs are not checked: NCCL leaves them alone);
 *   - -r/--root and `root:` out of range, `root:` on a collective without
 *     one, -A ring for all-to-all: refused with the reason; all-to-all
 *     defaults to direct. */
#include <errno.h>
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
#include "tests/files.h"
#include "tests/run_cclab.h"
#include "tests/run_status.h"

/* Elements rank r sends, from the definitions above. */
static uint64_t want_elems(enum cc_coll c, enum cc_algo a, uint32_t k, uint32_t root,
			   uint32_t r, uint64_t n)
{
	if (k == 1)
		return 0;
	if (c == CC_ALLTOALL)
		return (uint64_t)(k - 1) * n;
	if (a == CC_ALGO_RING)
		return c == CC_BROADCAST ? (r == (root + k - 1) % k ? 0 : n) : (r == root ? 0 : n);
	if (a == CC_ALGO_TREE && c == CC_BROADCAST)
		return UINT64_MAX; /* per child: checked as a sum, (k-1) N */
	if (c == CC_BROADCAST)
		return r == root ? (uint64_t)(k - 1) * n : 0;
	return r == root ? 0 : n;
}

static void check_bytes(enum cc_coll c, enum cc_algo a)
{
	static const uint64_t counts[] = { 1, 7, 1000, 70001 };

	for (uint32_t k = 1; k <= 6; k++)
		for (uint32_t root = 0; root < k; root++)
			for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
				struct cc_coll_params p;
				struct cc_data_result res;
				char err[200];

				cc_coll_params_default(&p);
				p.coll = c;
				p.algo = a;
				p.nranks = k;
				p.root = root;
				p.count = counts[i];
				p.slot_bytes = 4096;
				p.chunk_bytes = 3 * 4096;
				struct cc_schedule *s = cc_build(&p, err, sizeof(err));
				struct cc_data_opts o = { .seed = 5, .order_seed = root + i };

				if (!s)
					fail_msg("build: %s", err);
				assert_int_equal(cc_data_run(s, &o, &res), 0);
				assert_run_status(res.err, CC_RUN_OK);
				assert_int_equal(res.wrong, 0);
				uint64_t sum = 0;

				for (uint32_t r = 0; r < k; r++) {
					uint64_t want = 4 * want_elems(c, a, k, root, r, counts[i]);
					uint64_t posted = cc_rank_data_bytes(&s->ranks[r]);

					sum += posted;
					if (want_elems(c, a, k, root, r, counts[i]) == UINT64_MAX) {
						/* 0, N or 2N: a leaf, one child, two */
						assert_true(posted % (4 * counts[i]) == 0);
						assert_true(posted <= 8 * counts[i]);
						continue;
					}
					if (posted != want || res.data_bytes[r] != want)
						fail_msg("%s %s k=%u root %u n=%llu rank %u: %llu "
							 "bytes, want %llu", cc_coll_name[c],
							 cc_algo_name[a], k, root,
							 (unsigned long long)counts[i], r,
							 (unsigned long long)posted,
							 (unsigned long long)want);
				}
				if (c == CC_BROADCAST || c == CC_REDUCE) /* every edge once */
					assert_int_equal(sum, 4ull * (k - 1) * counts[i]);
				cc_data_result_free(&res);
				cc_schedule_free(s);
			}
}

static void test_bytes(void **state)
{
	(void)state;
	check_bytes(CC_BROADCAST, CC_ALGO_RING);
	check_bytes(CC_REDUCE, CC_ALGO_RING);
	check_bytes(CC_BROADCAST, CC_ALGO_DIRECT);
	check_bytes(CC_REDUCE, CC_ALGO_DIRECT);
	check_bytes(CC_ALLTOALL, CC_ALGO_DIRECT);
	check_bytes(CC_BROADCAST, CC_ALGO_TREE);
	check_bytes(CC_REDUCE, CC_ALGO_TREE);
}

static void test_busbw_and_support(void **state)
{
	struct cc_coll_params p;
	char err[200];

	(void)state;
	assert_true(cc_busbw_factor(CC_BROADCAST, 8) == 1.0);
	assert_true(cc_busbw_factor(CC_REDUCE, 8) == 1.0);
	assert_true(cc_busbw_factor(CC_ALLTOALL, 8) == 7.0 / 8);
	assert_int_equal(cc_algo_default(CC_ALLTOALL), CC_ALGO_DIRECT);
	assert_int_equal(cc_algo_default(CC_BROADCAST), CC_ALGO_RING);
	assert_false(cc_algo_supports(CC_ALGO_RING, CC_ALLTOALL));
	assert_true(cc_algo_supports(CC_ALGO_TREE, CC_REDUCE));
	assert_false(cc_algo_supports(CC_ALGO_HALVING_DOUBLING, CC_REDUCE));
	assert_true(cc_algo_supports(CC_ALGO_DIRECT, CC_REDUCE));
	cc_coll_params_default(&p);
	p.coll = CC_BROADCAST;
	p.nranks = 4;
	p.count = 10;
	p.root = 4;
	enum cc_param f = CC_PARAM_KIND;
	assert_int_equal(cc_params_check(&p, &f, err, sizeof(err)), -EINVAL);
	assert_int_equal(f, CC_PARAM_ROOT);
	assert_string_equal(err, "root 4, but ranks are 0 to 3 with 4 ranks");
}

static int setup(void **state)
{
	(void)state;
	return run_cclab_begin("rooted");
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
	r = run_cclab("check -n 4 -c reduce -r 2 -b 1K");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "float     sum       2 "));
	run_free(&r);
	r = run_cclab("check -n 4 -c broadcast -r 4 -b 1K");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "-r/--root: root 4, but ranks are 0 to 3 with 4 ranks"));
	run_free(&r);
	r = run_cclab("check -n 3 -c alltoall -b 3K");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "algorithm direct"));
	run_free(&r);
	r = run_cclab("check -n 3 -c alltoall -A ring -b 3K");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "-A/--algorithm: algorithm ring does not build alltoall (direct)"));
	run_free(&r);
	snprintf(path, sizeof(path), "%s/s.yaml", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("topology: {generator: star, ranks: 4}\ncollective: allgather\nroot: 1\nsizes: 1K\n",
	      f);
	assert_int_equal(fclose(f), 0);
	r = run_cclab("run %s", path);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "s.yaml:3:7: 'root': only broadcast and reduce have a root"));
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_busbw_and_support),
		cmocka_unit_test(test_cli),
	};

	return cmocka_run_group_tests_name("rooted", t, setup, teardown);
}
