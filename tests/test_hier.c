/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_hier.c — the hierarchical allreduce (core/hier.c), against
 * closed forms written here from its three phases, not from the builder:
 *   - per rank, the data bytes on its node connection (to local l+1) and
 *     on its rail connection (to the same local index on the next node):
 *     with G blocks of the array ([b N / G, (b+1) N / G)), the node ring
 *     sends every block but l while reducing and every block but l+1
 *     while gathering, 2N - |B_l| - |B_{l+1}| elements; the rail ring is
 *     a ring allreduce of |B_l| elements over M ranks, 2 |B_l| (M-1)/M
 *     when M divides it per loop;
 *   - the primitive sequence of one rank (G = 4, M = 2);
 *   - on a rail-optimised network (2 nodes x 4 GPUs, one spine) no byte
 *     crosses the spine, while the flat ring's node crossings do, and
 *     hierarchical is the faster one at 16 MiB (4 M floats);
 *   - refused without nodes that divide the ranks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/algo.h"
#include "core/exec_data.h"
#include "sim/exec.h"
#include "sim/net.h"
#include "tests/sim_sched.h"
#include "tests/run_status.h"

static struct cc_coll_params params(uint32_t k, uint32_t g, uint64_t count)
{
	struct cc_coll_params p;

	cc_coll_params_default(&p);
	p.algo = CC_ALGO_HIER;
	p.nranks = k;
	p.ranks_per_node = g;
	p.count = count;
	return p;
}

static uint64_t blk(uint64_t n, uint32_t g, uint32_t b)
{
	return n * (b + 1) / g - n * b / g;
}

/* Data bytes rank r posts on QPs to `peer`. */
static uint64_t bytes_to(const struct cc_rank_sched *rs, uint32_t peer)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < rs->nops; i++) {
		const struct cc_op *o = &rs->ops[i];

		if (o->kind == CC_OP_POST_SEND && o->u.send.payload == CC_PAYLOAD_DATA &&
		    rs->qps[o->u.send.qp].peer == peer)
			sum += o->u.send.sge.length;
	}
	return sum;
}

/* A ring allreduce's elements sent by position pos of m over n elements
 * in chunks of `chunk` (all_reduce.h runRing): every chunk of a loop
 * twice, but its own and the next once. */
static uint64_t ring_elems(uint64_t n, uint32_t m, uint32_t pos, uint64_t chunk)
{
	uint64_t total = 0;

	for (uint64_t off = 0; off < n; off += chunk * m) {
		uint64_t rest = n - off, real = chunk < (rest + m - 1) / m ? chunk : (rest + m - 1) / m;

		for (uint32_t c = 0; c < m; c++) {
			uint64_t o = c * real, len = o < rest ? (rest - o < real ? rest - o : real) : 0;

			total += (c == pos || c == (pos + 1) % m ? 1 : 2) * len;
		}
	}
	return total;
}

static void test_bytes_closed_form(void **state)
{
	static const uint32_t shapes[][2] = { { 4, 2 }, { 6, 3 }, { 8, 4 }, { 12, 4 },
					      { 9, 3 }, { 8, 8 }, { 5, 1 } };
	static const uint64_t counts[] = { 1, 13, 1031, 300007, 1 << 20 };

	(void)state;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		for (size_t j = 0; j < sizeof(counts) / sizeof(counts[0]); j++) {
			uint32_t k = shapes[i][0], g = shapes[i][1], m = k / g;
			uint64_t n = counts[j];
			struct cc_coll_params p = params(k, g, n);
			char err[200];
			struct cc_schedule *s = cc_build(&p, err, sizeof(err));

			assert_non_null(s);
			for (uint32_t r = 0; r < k; r++) {
				uint32_t l = r % g, node = r / g;
				uint32_t next_local = node * g + (l + 1) % g;
				uint32_t next_rail = (r + g) % k;
				uint64_t node_elems = g > 1 ? 2 * n - blk(n, g, l) - blk(n, g, (l + 1) % g)
							    : 0;
				uint64_t rail_elems = m > 1 ? ring_elems(blk(n, g, l), m, node,
									 p.chunk_bytes / 4)
							    : 0;

				if (g > 1)
					assert_int_equal(bytes_to(&s->ranks[r], next_local),
							 4 * node_elems);
				if (m > 1)
					assert_int_equal(bytes_to(&s->ranks[r], next_rail),
							 4 * rail_elems);
				assert_int_equal(cc_rank_data_bytes(&s->ranks[r]),
						 4 * (node_elems + rail_elems));
				/* The figure: 2 (N/G)(M-1)/M on the NIC when
				 * the blocks and loops divide evenly. */
				if (n == 1 << 20 && m > 1 && (n / g) % m == 0 &&
				    n / g <= p.chunk_bytes / 4 * m)
					assert_int_equal(rail_elems, 2 * (n / g) * (m - 1) / m);
			}
			struct cc_data_opts o = { .seed = n + k, .order_seed = k };
			struct cc_data_result res;

			assert_int_equal(cc_data_run(s, &o, &res), 0);
			assert_run_status(res.err, CC_RUN_OK);
			assert_int_equal(res.wrong, 0);
			cc_data_result_free(&res);
			cc_schedule_free(s);
		}
}

struct listing {
	enum cc_prim prim[64];
	uint16_t channel[64];
	uint32_t n;
};

static void collect(void *ctx, uint32_t rank, const struct cc_prim_step *st)
{
	struct listing *l = ctx;

	(void)rank;
	if (l->n < 64) {
		l->prim[l->n] = st->prim;
		l->channel[l->n++] = st->channel;
	}
}

static void test_primitives(void **state)
{
	struct cc_coll_params p = params(8, 4, 1024);
	struct listing l = { .n = 0 };
	static const enum cc_prim want[] = {
		/* node reduce-scatter */
		CC_PRIM_SEND, CC_PRIM_RECV_REDUCE_SEND, CC_PRIM_RECV_REDUCE_SEND,
		CC_PRIM_RECV_REDUCE_COPY,
		/* rail allreduce, M = 2 */
		CC_PRIM_SEND, CC_PRIM_RECV_REDUCE_COPY_SEND, CC_PRIM_RECV,
		/* node all-gather */
		CC_PRIM_COPY_SEND, CC_PRIM_RECV_COPY_SEND, CC_PRIM_RECV_COPY_SEND, CC_PRIM_RECV,
	};

	(void)state;
	cc_algo_primitives(&p, 5, collect, &l);
	assert_int_equal(l.n, sizeof(want) / sizeof(want[0]));
	for (uint32_t i = 0; i < l.n; i++) {
		assert_int_equal(l.prim[i], want[i]);
		assert_int_equal(l.channel[i], i < 4 ? 0 : i < 7 ? 1 : 2);
	}
}

static void test_refused_without_nodes(void **state)
{
	char err[256];
	struct cc_coll_params p = params(6, 4, 100);

	(void)state;
	assert_null(cc_build(&p, err, sizeof(err)));
	assert_non_null(strstr(err, "ranks per node"));
	p.ranks_per_node = 0;
	assert_null(cc_build(&p, err, sizeof(err)));
	p.coll = CC_REDUCESCATTER;
	p.ranks_per_node = 3;
	assert_null(cc_build(&p, err, sizeof(err)));
	assert_non_null(strstr(err, "does not build"));
}

/* Bytes the spine's links carried. */
/* The default chunk fits the slots: hierarchical's serial rings take at
 * most `slots` slices a chunk, the ring 2*slots-1 (cc_params_check), so
 * with 2 or 3 slots and no chunk given neither is refused. */
static void test_default_chunk_fits_slots(void **state)
{
	(void)state;
	for (uint32_t slots = 1; slots <= 8; slots++)
		for (int hier = 0; hier < 2; hier++) {
			struct cc_coll_params p;
			char err[256];

			cc_coll_params_default(&p);
			p.algo = hier ? CC_ALGO_HIER : CC_ALGO_RING;
			p.nranks = 8;
			p.ranks_per_node = 4;
			p.count = 1 << 20;
			p.nslots = slots;
			cc_coll_params_fill(&p, 0, 0);
			uint64_t slices = p.chunk_bytes / p.slot_bytes, most = hier ? slots : 2 * slots - 1;

			assert_int_equal(slices, most < 4 ? most : 4); /* NCCL's 4 slots a chunk */
			if (cc_params_check(&p, NULL, err, sizeof(err)))
				fail_msg("%s, %u slots: %s", hier ? "hierarchical" : "ring", slots, err);
		}
}

static void test_railopt_stays_on_rails(void **state)
{
	struct sim_net net;
	char msg[SIM_NET_ERR_LEN];
	double us[2];

	(void)state;
	sim_net_init(&net, NULL);
	assert_int_equal(sim_net_railopt(&net, 2, 4, 1, msg, sizeof(msg)), 0);
	assert_int_equal(sim_net_ranks_per_node(&net), 4);
	for (int h = 0; h < 2; h++) {
		struct cc_coll_params p = params(8, 4, 4 << 20);
		struct sim_params f;
		struct cc_sim_result res;
		char err[200];

		p.algo = h ? CC_ALGO_HIER : CC_ALGO_RING;
		struct cc_schedule *s = cc_build(&p, err, sizeof(err));
		assert_non_null(s);
		assert_int_equal(sim_params_preset("roce-400g", &f), 0);
		struct cc_sim_opts o = { .fabric = &f, .net = &net, .seed = 1 };
		assert_int_equal(cc_sim_run(s, &o, &res), 0);
		assert_run_status(res.err, CC_RUN_OK);
		us[h] = res.time_ps / 1e6;
		print_message("%s: 16 MiB %.1f us, spine bytes %llu\n", h ? "hierarchical" : "ring",
			      us[h], (unsigned long long)sim_spine_bytes(&res));
		if (h)
			assert_int_equal(sim_spine_bytes(&res), 0);
		else
			assert_true(sim_spine_bytes(&res) > 0);
		cc_sim_result_free(&res);
		cc_schedule_free(s);
	}
	assert_true(us[1] < us[0]);
	sim_net_free(&net);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes_closed_form),
		cmocka_unit_test(test_primitives),
		cmocka_unit_test(test_refused_without_nodes),
		cmocka_unit_test(test_default_chunk_fits_slots),
		cmocka_unit_test(test_railopt_stays_on_rails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
