/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/matrix.h — the body of tests/test_matrix_<collective>.c, one program
 * per collective so that `make test` runs them in parallel.
 *
 * Every collective x transport (x algorithm: MATRIX_ALGO, ring unless the
 * including file says; protocol MATRIX_PROTO, simple unless it says), for
 * k = 1..17 and 33,
 * at awkward sizes (0, one element, 7, 1031, 13k+1 so that N mod k != 0;
 * per rank for reduce-scatter and all-gather: 0, 1, 7, 1031/k+1, 14) and
 * at several MiB, over the dtypes and redops: the data executor must report
 * #wrong == 0 and a clean run.  Sizes above 7 elements also run with tiny
 * slots and chunks (3 and 7 elements, 2 slots: 3 slices per chunk, the most
 * that can progress) and with a single 5-element slot per connection: many
 * loops, slices and slot reuses per connection.
 *
 * How much runs is set by CCLAB_MATRIX (docs/testing.md):
 *   full            awkward sizes: every k x dtype x redop; tiny slots: every
 *                   k x redop for one dtype of each width (int8, half, float,
 *                   double); several MiB: every dtype x redop for k = 2, 3, 8,
 *                   and one dtype of each width x {sum, avg} for every k.
 *   exhaustive      every k of 1..33 x dtype x redop for all of the above
 *                   (hours of CPU: for nightly runs).
 *   quick           k in {1, 2, 3, 5, 8, 17, 33}, awkward sizes for every
 *                   dtype x redop up to k = 8 (the width representatives
 *                   with sum at 17 and 33), tiny slots for the width
 *                   representatives with sum, MiB for them at k = 2 and
 *                   17: what `make test` runs (test-run's default;
 *                   `make test-matrix` runs full).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/algo.h"
#include "core/exec_data.h"

#ifndef MATRIX_ALGO
#define MATRIX_ALGO CC_ALGO_RING
#endif
#ifndef MATRIX_PROTO
#define MATRIX_PROTO CC_PROTO_SIMPLE
#endif

struct combo {
	enum cc_coll coll;
	enum cc_transport transport;
	enum cc_algo algo;
};

static unsigned long long runs;

static void check_one(const struct combo *c, uint32_t k, uint64_t count, int d, int op, int tiny)
{
	struct cc_coll_params p;
	char err[200];
	cc_coll_params_default(&p);
	p.coll = c->coll;
	p.algo = c->algo;
	/* Rooted collectives: the root moves with the size and the operator. */
	p.root = cc_coll_rooted(c->coll) && k > 1 ? (uint32_t)((count + (uint64_t)op) % k) : 0;
	p.transport = c->transport;
	p.proto = MATRIX_PROTO;
	p.nranks = k;
	p.count = count;
	p.dtype = (enum cc_dtype)d;
	p.redop = (enum cc_redop)op;
	/* Hierarchical: nodes of G ranks, G moving over k's divisors
	 * (1 and k included: the flat ring, one node). */
	if (p.algo == CC_ALGO_HIER) {
		uint32_t divs[64], nd = 0;

		for (uint32_t g = 1; g <= k; g++)
			if (k % g == 0)
				divs[nd++] = g;
		p.ranks_per_node = divs[(count + (uint64_t)op + (uint64_t)d) % nd];
	}
	if (tiny == 1) {
		/* 3 slices per chunk on 2 slots: the most cc_build allows
		 * (3 slots for hierarchical, whose rings run in order). */
		size_t es = cc_dtype_size(p.dtype);
		p.slot_bytes = 3 * es;
		p.chunk_bytes = 7 * es;
		p.nslots = p.algo == CC_ALGO_HIER ? 3 : 2;
	} else if (tiny == 2) {
		/* One slot per connection, one slice per chunk. */
		size_t es = cc_dtype_size(p.dtype);
		p.slot_bytes = 5 * es;
		p.chunk_bytes = 5 * es;
		p.nslots = 1;
	}
	struct cc_schedule *s = cc_build(&p, err, sizeof(err));
	if (!s)
		fail_msg("build failed: %s", err);
	struct cc_data_opts o = { .seed = count * 31 + k, .order_seed = count + k * 7 + op };
	struct cc_data_result res;
	assert_int_equal(cc_data_run(s, &o, &res), 0);
	if (res.err.status != CC_RUN_OK || res.wrong)
		fail_msg("%s %s %s k=%u root %u count=%llu %s %s%s: %llu wrong, %s",
			 cc_coll_name[c->coll], cc_algo_name[c->algo], cc_transport_name[c->transport], k,
			 p.root,
			 (unsigned long long)count, cc_dtype_name[d], cc_redop_name[op],
			 tiny == 1 ? " (tiny slots)" : tiny == 2 ? " (one slot)" : "", (unsigned long long)res.wrong, res.err.msg);
	runs++;
	cc_data_result_free(&res);
	cc_schedule_free(s);
}

static int width_representative(int d)
{
	return d == CC_INT8 || d == CC_FLOAT16 || d == CC_FLOAT32 || d == CC_FLOAT64;
}

enum { QUICK, FULL, EXHAUSTIVE };
/* With CCLAB_MATRIX unset (a program run by hand), the ring's three
 * collectives run the full matrix; the other algorithms and collectives
 * (files that define MATRIX_QUICK_BY_DEFAULT) the quick one, unless
 * CCLAB_MATRIX=full or exhaustive asks.  `make test` sets quick for all,
 * `make test-matrix` full. */
#ifdef MATRIX_QUICK_BY_DEFAULT
static int mode = QUICK;
#else
static int mode = FULL;
#endif

static int want_k(uint32_t k)
{
	return mode != QUICK || k <= 3 || k == 5 || k == 8 || k == 17 || k == 33;
}

/* Every dtype x redop at the awkward sizes: in quick mode up to k = 8,
 * beyond that the width representatives with sum.  An operator's code
 * does not depend on k; a rank count's indexing does, and depends on an
 * element's width, not on its type or operator. */
static int want_combo(uint32_t k, int d, int op)
{
	return mode != QUICK || k <= 8 || (width_representative(d) && op == CC_SUM);
}

static int want_tiny(int d, int op)
{
	return mode == EXHAUSTIVE || (width_representative(d) && (mode == FULL || op == CC_SUM));
}

static int want_big(uint32_t k, int d, int op)
{
	if (mode == EXHAUSTIVE)
		return 1;
	if (mode == QUICK)
		/* k = 17, not 33: the same loops over slots and chunks at a
		 * quarter of the steps (33 ranks' 2 MiB were most of a quick
		 * program's time, and of the sanitizer pass's) */
		return (k == 2 || k == 17) && width_representative(d) && op == CC_SUM;
	return k == 2 || k == 3 || k == 8 ||
	       (width_representative(d) && (op == CC_SUM || op == CC_AVG));
}

static void matrix(void **state)
{
	const struct combo *c = *state;
	/* 18..32 only when exhaustive: the k in 1..33, at an hour. */
	for (uint32_t k = 1; k <= 33; k = k == 17 && mode != EXHAUSTIVE ? 33 : k + 1) {
		if (!want_k(k))
			continue;
		/* Element counts per rank.  For reduce-scatter and all-gather the
		 * whole array is k times that (nccl-tests' size), so the larger
		 * two are scaled to keep the whole array near 1031 and 13k+1. */
		int whole = c->coll == CC_REDUCESCATTER || c->coll == CC_ALLGATHER ||
			    c->coll == CC_ALLTOALL;
		const uint64_t small[] = { 0, 1, 7, whole ? 1031 / k + 1 : 1031,
					   whole ? 13 + (k > 1) : 13ull * k + 1 };
		for (int d = 0; d < CC_DTYPE_COUNT; d++) {
			size_t es = cc_dtype_size((enum cc_dtype)d);
			/* Several MiB: the whole array for reduce-scatter and
			 * all-gather (nccl-tests' size), plus a few elements so
			 * it does not split evenly. */
			uint64_t mib = (2u << 20) / es;
			uint64_t big_count = whole ? mib / k + 1 : mib + 3;
			for (int op = 0; op < CC_REDOP_COUNT; op++) {
				for (size_t i = 0; want_combo(k, d, op) &&
						   i < sizeof(small) / sizeof(small[0]); i++) {
					check_one(c, k, small[i], d, op, 0);
					if (small[i] > 7 && want_tiny(d, op)) {
						check_one(c, k, small[i], d, op, 1);
						check_one(c, k, small[i], d, op, 2);
					}
				}
				if (want_big(k, d, op))
					check_one(c, k, big_count, d, op, 0);
			}
		}
	}
}

/* cmocka names a test after its function: one per transport. */
static void write_imm(void **state)
{
	matrix(state);
}

static void send_recv(void **state)
{
	matrix(state);
}

static void write_flag(void **state)
{
	matrix(state);
}

int main(void)
{
	const char *m = getenv("CCLAB_MATRIX");
	if (m && !strcmp(m, "quick"))
		mode = QUICK;
	else if (m && !strcmp(m, "full"))
		mode = FULL;
	else if (m && !strcmp(m, "exhaustive"))
		mode = EXHAUSTIVE;
	static const struct combo combos[] = {
		{ MATRIX_COLL, CC_WRITE_IMM, MATRIX_ALGO },
		{ MATRIX_COLL, CC_SEND_RECV, MATRIX_ALGO },
		{ MATRIX_COLL, CC_WRITE_FLAG, MATRIX_ALGO },
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_prestate(write_imm, (void *)&combos[0]),
		cmocka_unit_test_prestate(send_recv, (void *)&combos[1]),
		cmocka_unit_test_prestate(write_flag, (void *)&combos[2]),
	};
	int failed = cmocka_run_group_tests_name(MATRIX_NAME, tests, NULL, NULL);
	static const char *const mode_name[] = { "quick", "full", "exhaustive" };
	print_message("%s: %llu runs (%s)\n", MATRIX_NAME, runs, mode_name[mode]);
	return failed;
}

