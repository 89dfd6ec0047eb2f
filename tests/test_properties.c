/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_properties.c — seeded pseudo-random properties of the core,
 * the data executor and the simulator (issue 9, "Hardening").
 *
 * Each case draws its parameters from its own splitmix64 stream
 * (util/splitmix.h), seeded by base + i: case i of a run with
 * CCLAB_PROP_SEED=S is case 0 of a run with CCLAB_PROP_SEED=S+i and
 * CCLAB_PROP_RUNS=1, which is what a failure prints to replay it.
 *
 *   data (CCLAB_PROP_RUNS cases, default 400): random k (1..24), collective,
 *     every algorithm that builds it (hierarchical on ranks per node that
 *     divide k, the ring on 1..4 channels and in rank or rail order),
 *     transport, protocol, dtype, redop, root, awkward counts (0 to about
 *     100k elements), slot and chunk sizes (some not a whole number of
 *     elements), slots per connection, memory kinds; now and then a value
 *     far out of range.  When cc_build accepts them, the data executor
 *     under a random interleaving must end OK with #wrong 0, every op of
 *     every rank done, every send WQE executed, and per rank the data
 *     bytes it moved equal to what its schedule posts; the sum over ranks
 *     is at least the information-theoretic minimum (element transfers:
 *     allreduce 2(k-1) per element — one-way gossip needs 2n-2 calls;
 *     reduce-scatter, all-gather and all-to-all k-1 per element of the
 *     whole array; broadcast and reduce k-1 per element; sendrecv k, each
 *     rank its buffer once), times the
 *     protocol's line overhead (LL 16/8, LL128 128/120), and exactly that
 *     minimum for the Simple protocol, which every algorithm reaches
 *     (halving-doubling's fix-up pairs too: 2rN + 2(2^m-1)N = 2(k-1)N).
 *     When cc_build refuses them: a message, errno EINVAL exactly when
 *     cc_params_check refuses too, else E2BIG or EOVERFLOW.
 *   sim (CCLAB_PROP_RUNS / 4 cases, at least 1): a preset fabric with
 *     random overrides inside sim_params_validate's ranges (link rate,
 *     propagation, MTU 256..4096, switch latency, mode and buffer, flow
 *     control, the RNIC's costs, window, ACK coalescing and selective
 *     repeat, PCIe latency, MPS and MRRS, software costs, GPU step, host
 *     staging), k 1..8, a small collective of any algorithm on a star (or
 *     a ring network for rank-order ring schedules): cc_sim_run returns 0,
 *     status OK, #wrong 0 (check on); sim_physical() (sim/physics.h, the
 *     check `cclab sim` makes): time >= sim_bound_ps() and busbw
 *     (nccl-tests, cc_busbw_factor) <= what one rank's ports carry
 *     (sim_topo_rank_rate(): a k = 2 ring has two cables) for k >= 2 (k = 1
 *     moves nothing over a link: a broadcast's local copy runs at memory
 *     speed); per rank every op done, every posted send WQE completed,
 *     data bytes as posted, done no later than the run; the same run
 *     again gives the same time, events and per-rank statistics; the run
 *     without data (check off) the same time.
 *
 * Failures print the case's seed, every parameter and the replay line, and
 * the test goes on to the next case: a run reports all it finds.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/algo.h"
#include "core/exec_data.h"
#include "core/results.h"
#include "sim/bound.h"
#include "sim/physics.h"
#include "sim/exec.h"
#include "sim/net.h"
#include "sim/params.h"
#include "sim/topo.h"
#include "util/splitmix.h"
#include "tests/clock.h"

#define DEFAULT_SEED UINT64_C(20240909)
#define DEFAULT_RUNS 400u
#define MAX_REPORTS 25u

static uint64_t base_seed = DEFAULT_SEED;
static unsigned nruns = DEFAULT_RUNS;

/* ---- the generator ---- */

static uint64_t rnd(uint64_t *st)
{
	return cc_splitmix64_next(st);
}

/* Uniform in [0, n), n >= 1 (the modulo bias is of no matter here). */
static uint64_t below(uint64_t *st, uint64_t n)
{
	return n ? rnd(st) % n : 0;
}

/* Uniform in [lo, hi]. */
static uint64_t range(uint64_t *st, uint64_t lo, uint64_t hi)
{
	return lo + below(st, hi - lo + 1);
}

/* True with probability pct %. */
static int chance(uint64_t *st, unsigned pct)
{
	return below(st, 100) < pct;
}

/* A case's stream: its seed through the finaliser, apart per property. */
static uint64_t case_state(uint64_t seed, uint64_t domain)
{
	return cc_mix64(seed ^ cc_mix64(domain));
}

/* A random divisor of k. */
static uint32_t divisor_of(uint64_t *st, uint32_t k)
{
	uint32_t divs[32], n = 0;

	for (uint32_t g = 1; g <= k && n < 32; g++)
		if (k % g == 0)
			divs[n++] = g;
	return divs[below(st, n)];
}

/* An awkward element count up to `max`: 0 .. 3, a few, around k and its
 * multiples, powers of two and their neighbours, 1031 + 13j, anything. */
static uint64_t awkward_count(uint64_t *st, uint32_t k, uint64_t max)
{
	uint64_t n;

	switch (below(st, 8)) {
	case 0: n = below(st, 4); break;                         /* 0 .. 3 */
	case 1: n = range(st, 1, 64); break;
	case 2: n = k + range(st, 0, 2) - 1; break;              /* k-1 .. k+1 */
	case 3: n = (uint64_t)k * range(st, 1, 500) + range(st, 0, 2) - 1; break;
	case 4: {
		uint64_t t = UINT64_C(1) << range(st, 3, 16);    /* 2^j - 1 .. 2^j + 1 */
		n = t + range(st, 0, 2) - 1;
		break;
	}
	case 5: n = 1031 + 13 * below(st, 100); break;
	default: n = below(st, max + 1); break;
	}
	return n > max ? max : n;
}

/* The information-theoretic minimum of element transfers (see the top). */
static uint64_t min_transfers(const struct cc_coll_params *p)
{
	uint64_t k = p->nranks, n = p->count;

	if (k <= 1)
		return 0;
	/* In the switch (nvls): each element reduced once (a READ) and
	 * multicast once (a WRITE): allreduce 2N, the others N a rank. */
	/* nvlstree: so in each node, and each element up and down every
	 * edge of the trees between them. */
	if (p->algo == CC_ALGO_NVLS_TREE && p->ranks_per_node) {
		uint64_t nodes = k / p->ranks_per_node;

		return nodes * 2 * n + 2 * (nodes - 1) * n;
	}
	/* collnetchain: each element up and down each node's chain (G - 1
	 * hops each way) and into the network once a node (SHARP's SEND). */
	if (p->algo == CC_ALGO_COLLNET_CHAIN) {
		uint64_t g = p->ranks_per_node ? p->ranks_per_node : 1;

		return k / g * (2 * (g - 1) + 1) * n;
	}
	if (cc_algo_multicast(p->algo))
		return p->coll == CC_ALLREDUCE ? 2 * n : k * n;
	switch (p->coll) {
	case CC_ALLREDUCE: return 2 * (k - 1) * n;
	case CC_REDUCESCATTER:
	case CC_ALLGATHER:
	case CC_ALLTOALL: return k * (k - 1) * n;
	case CC_SENDRECV: return k * n; /* every rank its whole buffer, once */
	default: return (k - 1) * n; /* broadcast, reduce */
	}
}

/* Elements of the whole array, for the slice estimate. */
static uint64_t whole_elems(const struct cc_coll_params *p)
{
	return p->coll == CC_REDUCESCATTER || p->coll == CC_ALLGATHER || p->coll == CC_ALLTOALL
		       ? p->count * p->nranks
		       : p->count;
}

/* About how many slices (hence ops) the schedule has: what the data
 * executor's time goes with. */
static double est_slices(const struct cc_coll_params *p)
{
	size_t es = cc_dtype_size(p->dtype);
	double slot = (double)(p->slot_bytes / es), chunk = (double)(p->chunk_bytes / es);
	double moved = (double)min_transfers(p) * 1.5 + (double)p->nranks;

	if (slot < 1)
		slot = 1;
	if (chunk < 1)
		chunk = 1;
	return moved / slot + 2.0 * p->nranks * ((double)whole_elems(p) / chunk + 1);
}

/* Random collective parameters.  `small`: fewer ranks and bytes, larger
 * slots (the simulator's cases). */
static void gen_params(uint64_t *st, struct cc_coll_params *p, int small)
{
	uint32_t k;

	cc_coll_params_default(p);
	k = small ? (uint32_t)range(st, 1, 8)
		  : (uint32_t)(chance(st, 50) ? range(st, 1, 8) : range(st, 1, 24));
	p->nranks = k;
	/* Half the cases pick the algorithm first, half the collective, so
	 * that neither allreduce-only algorithms nor direct dominate. */
	if (chance(st, 50)) {
		p->algo = (enum cc_algo)below(st, CC_ALGO_COUNT);
		do
			p->coll = (enum cc_coll)below(st, CC_COLL_COUNT);
		while (!cc_algo_supports(p->algo, p->coll));
	} else {
		enum cc_algo ok[CC_ALGO_COUNT];
		uint32_t n = 0;

		p->coll = (enum cc_coll)below(st, CC_COLL_COUNT);
		for (int a = 0; a < CC_ALGO_COUNT; a++)
			if (cc_algo_supports((enum cc_algo)a, p->coll))
				ok[n++] = (enum cc_algo)a;
		p->algo = ok[below(st, n)];
	}
	if (chance(st, 2)) /* sometimes one that does not build it */
		p->algo = (enum cc_algo)below(st, CC_ALGO_COUNT);
	p->transport = (enum cc_transport)below(st, CC_TRANSPORT_COUNT);
	p->proto = (enum cc_proto)below(st, CC_PROTO_COUNT);
	p->dtype = (enum cc_dtype)below(st, CC_DTYPE_COUNT);
	p->redop = (enum cc_redop)below(st, CC_REDOP_COUNT);
	p->root = (uint32_t)below(st, k);
	if (cc_coll_rooted(p->coll) && chance(st, 3))
		p->root = k + (uint32_t)below(st, 3); /* out of range: refused */
	p->mem = chance(st, 75) ? CC_MEM_GPU : CC_MEM_HOST;
	p->stage_mem = chance(st, 75) ? p->mem : (enum cc_mem_kind)below(st, CC_MEM_KIND_COUNT);

	if (p->algo == CC_ALGO_NVLS) {
		/* one node, mostly; sometimes nodes it refuses */
		p->ranks_per_node = chance(st, 90) ? k : (uint32_t)range(st, 0, k + 1);
		p->nchannels = (uint32_t)(chance(st, 60) ? 1 : range(st, 0, 4));
	} else if (p->algo == CC_ALGO_NVLS_TREE) {
		/* nodes of two or more, mostly; sometimes shapes it refuses */
		p->ranks_per_node = divisor_of(st, k);
		for (int tries = 0; chance(st, 90) && tries < 32 &&
				    (p->ranks_per_node < 2 || p->ranks_per_node == k);
		     tries++)
			p->ranks_per_node = divisor_of(st, k);
		p->nchannels = (uint32_t)(chance(st, 60) ? 1 : range(st, 0, 4));
		/* mostly what the switch reduces, on Simple and GPU buffers:
		 * the shapes it builds are rare among all the draws */
		if (chance(st, 80)) {
			static const enum cc_dtype ok[] = { CC_INT32, CC_UINT64, CC_FLOAT16,
							    CC_BFLOAT16, CC_FLOAT32, CC_FLOAT64 };

			p->proto = CC_PROTO_SIMPLE;
			p->mem = CC_MEM_GPU;
			p->dtype = ok[below(st, 6)];
			p->redop = CC_SUM;
		}
	} else if (p->algo == CC_ALGO_COLLNET_CHAIN) {
		/* two or more nodes, mostly; sometimes shapes it refuses */
		p->ranks_per_node = divisor_of(st, k);
		for (int tries = 0; chance(st, 90) && tries < 32 && p->ranks_per_node == k; tries++)
			p->ranks_per_node = divisor_of(st, k);
		p->nchannels = (uint32_t)(chance(st, 60) ? 1 : range(st, 0, 4));
		/* mostly what SHARP reduces, on Simple */
		if (chance(st, 80)) {
			static const enum cc_dtype ok[] = { CC_INT32, CC_UINT64, CC_FLOAT16,
							    CC_BFLOAT16, CC_FLOAT32, CC_FLOAT64 };
			static const enum cc_redop ops[] = { CC_SUM, CC_MIN, CC_MAX };

			p->coll = CC_ALLREDUCE;
			p->proto = CC_PROTO_SIMPLE;
			p->dtype = ok[below(st, 6)];
			p->redop = ops[below(st, 3)];
		}
	} else if (p->algo == CC_ALGO_HIER) {
		p->ranks_per_node = divisor_of(st, k);
		if (chance(st, 5))
			p->ranks_per_node = (uint32_t)range(st, 0, k + 1); /* may not divide */
	} else if (p->algo == CC_ALGO_RING) {
		p->nchannels = (uint32_t)(chance(st, 60) ? 1 : range(st, 0, 4));
		if (chance(st, 30)) {
			p->ring_order = CC_RING_ORDER_RAIL;
			p->ranks_per_node = divisor_of(st, k);
		} else if (chance(st, 20)) {
			p->ranks_per_node = divisor_of(st, k); /* rank order: no effect */
		}
	} else if (chance(st, 1)) {
		p->nchannels = (uint32_t)range(st, 2, 4); /* refused: ring only */
	}
	if (chance(st, 1)) { /* rail order where it cannot be: refused */
		p->ring_order = CC_RING_ORDER_RAIL;
		p->ranks_per_node = (uint32_t)range(st, 0, k + 1);
	}

	/* Sizes: the whole array (nccl-tests' size) up to ~100k elements
	 * (16k for the simulator), per rank for the collectives that count so. */
	uint64_t whole = awkward_count(st, k, small ? 65536 : 100000);
	if (p->coll == CC_REDUCESCATTER || p->coll == CC_ALLGATHER || p->coll == CC_ALLTOALL)
		p->count = whole / k + (whole % k && chance(st, 50));
	else
		p->count = whole;

	/* Slots and chunks. */
	size_t es = cc_dtype_size(p->dtype);
	p->nslots = (uint32_t)(chance(st, 85) ? range(st, 1, 8) : range(st, 9, 32));
	if (chance(st, 25)) {
		cc_coll_params_fill(p, 0, 0);
	} else {
		static const uint64_t slots[] = { 1, 2, 3, 5, 7, 13, 64, 100, 1000, 4093 };
		uint64_t slot_e = chance(st, 70) ? slots[below(st, sizeof(slots) / sizeof(slots[0]))]
						 : range(st, 1, 5000);
		if (small && slot_e < 64)
			slot_e = 64 + slot_e;
		/* Slices per chunk the algorithm can progress with: 2*slots-1
		 * for the ring, slots for hierarchical, any for the rest. */
		uint64_t max_sl = p->algo == CC_ALGO_HIER   ? p->nslots
				  : p->algo == CC_ALGO_RING ? 2ull * p->nslots - 1
							    : 2ull * p->nslots + 2;
		uint64_t sl = range(st, 1, max_sl);
		if (chance(st, 4))
			sl = max_sl + range(st, 1, 3); /* the ring and hierarchical refuse */
		p->slot_bytes = slot_e * es;
		if (es > 1 && chance(st, 10))
			p->slot_bytes += range(st, 1, es - 1); /* not a whole element */
		/* The last slice of a chunk partial, sometimes. */
		uint64_t chunk_e = (sl - 1) * slot_e + range(st, 1, slot_e);
		p->chunk_bytes = chunk_e * es;
		if (es > 1 && chance(st, 10))
			p->chunk_bytes += range(st, 1, es - 1);
		if (chance(st, 1))
			p->slot_bytes = below(st, es); /* under one element: refused */
	}
	/* Keep the run small: scale slots and chunks, not the array. */
	double budget = small ? 5000 : 25000;
	while (p->slot_bytes >= es && est_slices(p) > budget && p->slot_bytes < (1u << 30)) {
		p->slot_bytes *= 2;
		p->chunk_bytes *= 2;
	}
	/* Now and then one value far out of range, which cc_build must
	 * refuse with a message: never in the simulator's cases. */
	if (!small && chance(st, 3)) {
		switch (below(st, 11)) {
		case 0: p->nranks = 0; break;
		case 1: p->nranks = 4097; break;
		case 2: p->nslots = chance(st, 50) ? 0 : 1025; break;
		case 3: p->chunk_bytes = 0; break;
		case 4: p->slot_bytes = (UINT64_C(1) << 31) + es; break;
		case 5: p->count = (UINT64_MAX >> 1) / es / k + 1; break; /* overflows */
		case 6: p->count = UINT64_C(1) << 40; break;  /* more than this machine has */
		case 7: p->nchannels = 65; break;
		case 8: p->ranks_per_node = 5000; break;
		case 9: p->transport = CC_TRANSPORT_COUNT; break;
		default: p->proto = CC_PROTO_COUNT; break;
		}
	}
	/* NCCL's IB transport variables (sim_nccl_transport_for), from a
	 * stream of their own so that every draw above, and the cases the
	 * seeds name, stay what they were. */
	uint64_t tr = *st ^ UINT64_C(0x9e3779b97f4a7c15);

	p->ar_split = chance(&tr, 30);
	p->ar_threshold = chance(&tr, 50) ? 8192 : below(&tr, 4096);
	p->qps_per_conn = (uint32_t)(chance(&tr, 70) ? 1 : range(&tr, 2, 4));
	p->split_on_qps = chance(&tr, 40);
}

/* A name from a table, or "?" for a value out of range. */
static const char *name_of(const char *const *names, unsigned n, unsigned v)
{
	return v < n ? names[v] : "?";
}

static void describe(char *buf, size_t len, const struct cc_coll_params *p)
{
	snprintf(buf, len,
		 "%s %s k=%u count=%llu %s %s root=%u %s %s chunk=%llu B slot=%llu B slots=%u "
		 "channels=%u ranks_per_node=%u order=%s mem=%s stage=%s ar=%d/%llu qps=%u%s",
		 name_of(cc_coll_name, CC_COLL_COUNT, p->coll),
		 name_of(cc_algo_name, CC_ALGO_COUNT, p->algo), p->nranks,
		 (unsigned long long)p->count, cc_dtype_name[p->dtype], cc_redop_name[p->redop],
		 p->root, name_of(cc_transport_name, CC_TRANSPORT_COUNT, p->transport),
		 name_of(cc_proto_name, CC_PROTO_COUNT, p->proto),
		 (unsigned long long)p->chunk_bytes, (unsigned long long)p->slot_bytes, p->nslots,
		 p->nchannels, p->ranks_per_node, cc_ring_order_name[p->ring_order],
		 cc_mem_kind_name[p->mem], cc_mem_kind_name[p->stage_mem], p->ar_split,
		 (unsigned long long)p->ar_threshold, p->qps_per_conn,
		 p->split_on_qps ? " split" : "");
}

/* ---- failure reports ---- */

struct prop_ctx {
	const char *name;
	uint64_t seed;     /* this case's */
	char what[1300];   /* its parameters */
	unsigned failures; /* in this property */
	int failed_case;   /* this case failed already */
};

static void prop_fail(struct prop_ctx *c, const char *fmt, ...)
{
	va_list ap;
	char msg[512];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!c->failed_case)
		c->failures++;
	if (c->failures <= MAX_REPORTS) {
		if (!c->failed_case)
			print_message("%s: FAIL, seed %llu (replay: CCLAB_PROP_SEED=%llu "
				      "CCLAB_PROP_RUNS=1)\n    %s\n",
				      c->name, (unsigned long long)c->seed,
				      (unsigned long long)c->seed, c->what);
		print_message("    -> %s\n", msg);
	}
	c->failed_case = 1;
}

/* The case running now, for a library abort() (a builder's internal error,
 * the simulator's invariant checks): said before the process dies. */
static const struct prop_ctx *volatile running;

static void say(const char *str)
{
	ssize_t n = write(STDERR_FILENO, str, strlen(str));
	(void)n;
}

static void on_abort(int sig)
{
	const struct prop_ctx *c = running;

	if (c) {
		char num[24];
		int i = (int)sizeof(num) - 1;
		uint64_t v = c->seed;

		num[i] = '\0';
		do
			num[--i] = (char)('0' + v % 10);
		while ((v /= 10) && i > 0);
		say("\nproperties: aborted in a ");
		say(c->name);
		say(" case (replay: CCLAB_PROP_SEED=");
		say(num + i);
		say(" CCLAB_PROP_RUNS=1)\n    ");
		say(c->what);
		say("\n");
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

#define PROP_CHECK(c, cond, ...)                     \
	do {                                         \
		if (!(cond))                         \
			prop_fail((c), __VA_ARGS__); \
	} while (0)

static uint32_t count_sends(const struct cc_rank_sched *rs)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < rs->nops; i++)
		n += rs->ops[i].kind == CC_OP_POST_SEND;
	return n;
}

/* ---- property 1: the core and the data executor ---- */

static void prop_data(void **state)
{
	struct prop_ctx c = { .name = "data" };
	unsigned built = 0, refused = 0, exact = 0, too_big = 0;
	unsigned per_algo[CC_ALGO_COUNT] = { 0 }, per_coll[CC_COLL_COUNT] = { 0 };
	uint64_t ops = 0;
	double t0 = monotonic_s();
	struct cc_mem_limit host;

	(void)state;
	cc_mem_limit(&host);
	for (unsigned i = 0; i < nruns; i++) {
		uint64_t seed = base_seed + i, st = case_state(seed, 1);
		struct cc_coll_params p;
		char err[512] = "";

		gen_params(&st, &p, 0);
		c.seed = seed;
		c.failed_case = 0;
		describe(c.what, sizeof(c.what), &p);
		running = &c;

		char chk[512] = "";
		/* with the chunk cc_build takes: NCCL's for the size, where the
		 * algorithm has a rule and none was given */
		struct cc_coll_params pc = p;

		pc.chunk_bytes = cc_coll_chunk_bytes(&p);
		int checked = cc_params_check(&pc, NULL, chk, sizeof(chk));
		errno = 0;
		/* Against this host's memory, as the command line builds. */
		struct cc_schedule *s = cc_build_with(&p, &(const struct cc_build_opts){
							       .mem_limit = &host }, err, sizeof(err));
		int e = errno;

		if (!s) {
			refused++;
			PROP_CHECK(&c, err[0] != '\0', "refused without a message (errno %d)", e);
			PROP_CHECK(&c, e == EINVAL || e == E2BIG || e == EOVERFLOW,
				   "refused with errno %d (%s): %s", e, strerror(e), err);
			PROP_CHECK(&c, (e == EINVAL) == (checked != 0),
				   "refused with errno %s but cc_params_check says %d (%s): %s",
				   strerror(e), checked, chk, err);
			continue;
		}
		PROP_CHECK(&c, checked == 0, "built, but cc_params_check refuses: %s", chk);
		built++;
		per_algo[p.algo]++;
		per_coll[p.coll]++;

		struct cc_data_opts o = { .seed = rnd(&st), .order_seed = rnd(&st) };
		struct cc_data_result res;
		/* The user buffers, which cc_build's estimate leaves to the run
		 * (it answers -E2BIG beyond the machine): only the far-out
		 * counts reach 64 GiB, and they are not run. */
		double buf_bytes = (double)(cc_coll_in_count(&p) + cc_coll_out_count(&p)) *
				   (double)cc_dtype_size(p.dtype) * p.nranks;

		if (buf_bytes > (double)(UINT64_C(1) << 36)) {
			too_big++;
			cc_schedule_free(s);
			continue;
		}
		int rc = cc_data_run(s, &o, &res);

		PROP_CHECK(&c, rc == 0, "cc_data_run returned %d (%.3g bytes of user buffers)", rc,
			   buf_bytes);
		if (rc == 0) {
			uint64_t sum = 0;

			PROP_CHECK(&c, res.err.status == CC_RUN_OK, "status %d: %s", res.err.status,
				   res.err.msg);
			PROP_CHECK(&c, res.wrong == 0, "%llu wrong (input seed %llu, order seed %llu)",
				   (unsigned long long)res.wrong, (unsigned long long)o.seed,
				   (unsigned long long)o.order_seed);
			for (uint32_t r = 0; r < s->nranks; r++) {
				const struct cc_rank_sched *rs = &s->ranks[r];
				uint64_t want = cc_rank_data_bytes(rs);

				ops += rs->nops;
				sum += res.data_bytes[r];
				PROP_CHECK(&c, res.data_bytes[r] == want,
					   "rank %u moved %llu data bytes, its schedule posts %llu", r,
					   (unsigned long long)res.data_bytes[r],
					   (unsigned long long)want);
				PROP_CHECK(&c, res.ops_done[r] == rs->nops, "rank %u: %llu of %u ops done",
					   r, (unsigned long long)res.ops_done[r], rs->nops);
				PROP_CHECK(&c, res.wire_msgs[r] == count_sends(rs),
					   "rank %u: its NIC executed %llu WQEs of %u posted", r,
					   (unsigned long long)res.wire_msgs[r], count_sends(rs));
			}
			/* The minimum, in bytes, with the protocol's lines. */
			uint64_t min_b = min_transfers(&p) * cc_dtype_size(p.dtype);
			int ok;

			if (p.proto == CC_PROTO_LL)
				ok = sum >= 2 * min_b;
			else if (p.proto == CC_PROTO_LL128)
				ok = (unsigned __int128)sum * 120 >= (unsigned __int128)min_b * 128;
			else
				ok = sum >= min_b;
			PROP_CHECK(&c, ok, "%llu data bytes in all, below the minimum %llu (x %s lines)",
				   (unsigned long long)sum, (unsigned long long)min_b,
				   cc_proto_name[p.proto]);
			if (p.proto == CC_PROTO_SIMPLE) {
				exact++;
				PROP_CHECK(&c, sum == min_b,
					   "%llu data bytes in all, the minimum is %llu (Simple)",
					   (unsigned long long)sum, (unsigned long long)min_b);
			}
			cc_data_result_free(&res);
		}
		cc_schedule_free(s);
	}
	running = NULL;
	double dt = monotonic_s() - t0;
	print_message("data: seed %llu, %u cases: %u built (%u against the exact minimum, %u "
		      "with buffers too large to run), %u refused; %llu ops; %.1f s\n",
		      (unsigned long long)base_seed, nruns, built, exact, too_big, refused,
		      (unsigned long long)ops, dt);
	print_message("data: by algorithm");
	for (int a = 0; a < CC_ALGO_COUNT; a++)
		print_message(" %s %u", cc_algo_name[a], per_algo[a]);
	print_message("; by collective");
	for (int k = 0; k < CC_COLL_COUNT; k++)
		print_message(" %s %u", cc_coll_name[k], per_coll[k]);
	print_message("\n");
	if (c.failures)
		fail_msg("data: %u of %u cases failed", c.failures, nruns);
}

/* ---- property 2: the simulator on random fabrics ---- */

static void gen_fabric(uint64_t *st, struct sim_params *f)
{
	const char *const *names = sim_params_preset_names();
	size_t n = 0;

	while (names[n])
		n++;
	assert_int_equal(sim_params_preset(names[below(st, n)], f), 0);
	if (chance(st, 50)) {
		static const uint64_t gbit[] = { 10, 25, 40, 50, 56, 100, 200, 400, 800 };
		f->link.rate_bps = chance(st, 70) ? gbit[below(st, 9)] * UINT64_C(1000000000)
						  : range(st, 1000, 800000) * UINT64_C(1000000);
	}
	if (chance(st, 50))
		f->link.prop_delay_ps = chance(st, 30) ? 0 : range(st, 1, 2 * SIM_PS_PER_US);
	if (chance(st, 50))
		f->link.mtu_bytes = 256u << below(st, 5);
	if (chance(st, 50))
		f->sw.fwd_latency_ps = range(st, 0, SIM_PS_PER_US);
	if (chance(st, 30))
		f->sw.mode = (enum sim_switch_mode)below(st, SIM_SWITCH_MODE_COUNT);
	if (chance(st, 50)) {
		f->rnic.doorbell_ps = range(st, 0, 2 * SIM_PS_PER_US);
		f->rnic.wqe_fetch_ps = range(st, 0, 2 * SIM_PS_PER_US);
		f->rnic.req_proc_ps = range(st, 0, SIM_PS_PER_US);
		f->rnic.resp_proc_ps = range(st, 0, SIM_PS_PER_US);
		f->rnic.cqe_write_ps = range(st, 0, SIM_PS_PER_US);
	}
	if (chance(st, 30)) {
		static const uint32_t win[] = { 1, 2, 3, 8, 64, 1024 };
		f->rnic.max_outstanding_pkts = win[below(st, 6)];
	}
	if (chance(st, 30))
		f->rnic.ack_coalesce_pkts = (uint32_t)range(st, 1, 16);
	if (chance(st, 40)) {
		f->soft.post_send_ps = range(st, 0, 500 * SIM_PS_PER_NS);
		f->soft.post_recv_ps = range(st, 0, 500 * SIM_PS_PER_NS);
		f->soft.poll_cq_ps = range(st, 0, 500 * SIM_PS_PER_NS);
	}
	if (chance(st, 30))
		f->host.gpu_step_ps = range(st, 0, 5 * SIM_PS_PER_US);
	/* Beyond the basics: flow control, small switch buffers (drops and
	 * go-back-N without flow control), selective repeat, PCIe, host
	 * staging without GPUDirect RDMA. */
	if (chance(st, 20))
		f->link.flow_ctrl = (enum sim_flow_ctrl)below(st, SIM_FC_COUNT);
	if (chance(st, 20)) {
		static const uint64_t buf[] = { 0, 64 << 10, 256 << 10, 4 << 20 };
		f->sw.buffer_bytes = buf[below(st, 4)];
	}
	if (chance(st, 20))
		f->rnic.selective_repeat = (uint8_t)below(st, 2);
	if (chance(st, 20)) {
		f->pcie.latency_ps = range(st, 0, SIM_PS_PER_US);
		f->pcie.mps_bytes = 128u << below(st, 3);
		f->pcie.mrrs_bytes = 512u << below(st, 4);
	}
	if (chance(st, 15))
		f->host.gpu_dma = SIM_GPU_DMA_HOST_STAGING;
	if (chance(st, 30)) /* fair outputs with credits, PFC and drops too */
		f->sw.sched = (enum sim_switch_sched)below(st, SIM_SWITCH_SCHED_COUNT);
}

static void describe_fabric(char *buf, size_t len, const struct sim_params *f)
{
	snprintf(buf, len,
		 "fabric %s rate=%llu prop=%llu mtu=%u sw_lat=%llu sw_mode=%s sw_sched=%s doorbell=%llu "
		 "fetch=%llu req=%llu resp=%llu cqe=%llu window=%u ack_every=%u post=%llu/%llu "
		 "poll=%llu gpu_step=%llu fc=%s sw_buf=%llu sr=%u pcie_lat=%llu mps=%u mrrs=%u "
		 "gpu_dma=%s",
		 f->name, (unsigned long long)f->link.rate_bps,
		 (unsigned long long)f->link.prop_delay_ps, f->link.mtu_bytes,
		 (unsigned long long)f->sw.fwd_latency_ps, sim_switch_mode_name[f->sw.mode],
		 sim_switch_sched_name[f->sw.sched],
		 (unsigned long long)f->rnic.doorbell_ps, (unsigned long long)f->rnic.wqe_fetch_ps,
		 (unsigned long long)f->rnic.req_proc_ps, (unsigned long long)f->rnic.resp_proc_ps,
		 (unsigned long long)f->rnic.cqe_write_ps, f->rnic.max_outstanding_pkts,
		 f->rnic.ack_coalesce_pkts, (unsigned long long)f->soft.post_send_ps,
		 (unsigned long long)f->soft.post_recv_ps, (unsigned long long)f->soft.poll_cq_ps,
		 (unsigned long long)f->host.gpu_step_ps, sim_flow_ctrl_name[f->link.flow_ctrl],
		 (unsigned long long)f->sw.buffer_bytes, f->rnic.selective_repeat,
		 (unsigned long long)f->pcie.latency_ps, f->pcie.mps_bytes, f->pcie.mrrs_bytes,
		 sim_gpu_dma_name[f->host.gpu_dma]);
}

static void prop_sim(void **state)
{
	struct prop_ctx c = { .name = "sim" };
	unsigned nsim = nruns / 4 ? nruns / 4 : 1, ring_topo = 0;
	unsigned per_algo[CC_ALGO_COUNT] = { 0 };
	uint64_t events = 0;
	double t0 = monotonic_s();

	(void)state;
	for (unsigned i = 0; i < nsim; i++) {
		uint64_t seed = base_seed + i, st = case_state(seed, 2);
		struct cc_coll_params p;
		struct sim_params f;
		struct cc_schedule *s = NULL;
		char err[512], fab[560], par[400];

		c.seed = seed;
		c.failed_case = 0;
		running = &c;
		gen_fabric(&st, &f);
		describe_fabric(fab, sizeof(fab), &f);
		snprintf(c.what, sizeof(c.what), "%s", fab);
		PROP_CHECK(&c, sim_params_validate(&f) == 0, "the generator made an invalid fabric");
		/* Parameters cc_build accepts: the refusals are property 1's. */
		for (int tries = 0; !s && tries < 100; tries++) {
			gen_params(&st, &p, 1);
			cc_sim_stage_for(&p, &f);
			s = cc_build(&p, err, sizeof(err));
		}
		assert_non_null(s);
		per_algo[p.algo]++;

		/* nvlstree and collnetchain: a host per node, on rails; the
		 * latter's switches with SHARP, on links that lose nothing
		 * (sim/sharp.c refuses loss) */
		bool nodes = p.algo == CC_ALGO_NVLS_TREE || p.algo == CC_ALGO_COLLNET_CHAIN;
		enum sim_topo_kind kind = nodes ? SIM_TOPO_RAILOPT
					  : cc_algo_multicast(p.algo) ? SIM_TOPO_NODE : SIM_TOPO_STAR;
		if (p.algo == CC_ALGO_COLLNET_CHAIN) {
			f.sw.sharp = 1;
			f.link.loss_ppb = 0;
			describe_fabric(fab, sizeof(fab), &f);
		}
		if (p.algo == CC_ALGO_RING && p.ring_order == CC_RING_ORDER_RANK && p.count &&
		    chance(&st, 40))
			kind = SIM_TOPO_RING;
		ring_topo += kind == SIM_TOPO_RING;
		describe(par, sizeof(par), &p);
		uint64_t vseed = rnd(&st);
		snprintf(c.what, sizeof(c.what), "%s on %s; %s; input seed %llu", par,
			 sim_topo_kind_name[kind], fab, (unsigned long long)vseed);

		struct sim_net net;
		sim_net_init(&net, NULL);
		assert_int_equal(sim_topo_net_make_nodes(&net, kind, p.nranks, p.ranks_per_node, err,
							 sizeof(err)), 0);

		/* railopt needs the nodes' size, which only the network has */
		struct cc_sim_opts o = { .fabric = &f, .topo = kind, .seed = vseed, .check = true,
					 .time_limit_ps = 10 * SIM_PS_PER_S,
					 .net = kind == SIM_TOPO_RAILOPT ? &net : NULL };
		struct cc_sim_result a, b, d;
		/* A buffer IB credits would over-commit is refused, and only
		 * that (sim_topo_credit_check()). */
		bool overcommit = sim_topo_credit_check(&net, &f, NULL, 0) != 0;
		int rc = cc_sim_run(s, &o, &a);

		if (overcommit)
			PROP_CHECK(&c, rc == -ENOBUFS, "over-committed credits: cc_sim_run returned %d",
				   rc);
		else
			PROP_CHECK(&c, rc == 0, "cc_sim_run returned %d", rc);
		if (rc == 0 && !overcommit) {
			events += a.events;
			PROP_CHECK(&c, a.err.status == CC_RUN_OK, "status %d: %s", a.err.status,
				   a.err.msg);
			PROP_CHECK(&c, a.checked && a.wrong == 0, "%llu wrong",
				   (unsigned long long)a.wrong);
			/* The check `cclab sim`, `run` and `tune` make of every run. */
			uint64_t size = whole_elems(&p) * cc_dtype_size(p.dtype);
			char why[512];
			PROP_CHECK(&c, sim_physical(&net, &f, &p, size, a.time_ps,
						    sim_bound_ps(s, &f, &net), why, sizeof(why)),
				   "%s (%llu B in %llu ps)", why, (unsigned long long)size,
				   (unsigned long long)a.time_ps);
			for (uint32_t r = 0; r < s->nranks && a.err.status == CC_RUN_OK; r++) {
				const struct cc_rank_sched *rs = &s->ranks[r];
				const struct cc_sim_rank_stats *x = &a.rank[r];

				PROP_CHECK(&c, x->ops_done == rs->nops, "rank %u: %llu of %u ops done",
					   r, (unsigned long long)x->ops_done, rs->nops);
				PROP_CHECK(&c, x->wqes == count_sends(rs),
					   "rank %u: %llu send WQEs completed of %u posted", r,
					   (unsigned long long)x->wqes, count_sends(rs));
				PROP_CHECK(&c, x->data_bytes == cc_rank_data_bytes(rs),
					   "rank %u: %llu data bytes, its schedule posts %llu", r,
					   (unsigned long long)x->data_bytes,
					   (unsigned long long)cc_rank_data_bytes(rs));
				PROP_CHECK(&c, x->done_ps <= a.time_ps,
					   "rank %u done at %llu ps, after the run's end %llu ps", r,
					   (unsigned long long)x->done_ps, (unsigned long long)a.time_ps);
			}

			/* Again: the same run. */
			rc = cc_sim_run(s, &o, &b);
			PROP_CHECK(&c, rc == 0, "second cc_sim_run returned %d", rc);
			if (rc == 0) {
				PROP_CHECK(&c, b.time_ps == a.time_ps && b.events == a.events,
					   "rerun: %llu ps, %llu events; first %llu ps, %llu events",
					   (unsigned long long)b.time_ps, (unsigned long long)b.events,
					   (unsigned long long)a.time_ps, (unsigned long long)a.events);
				PROP_CHECK(&c, !memcmp(a.rank, b.rank, a.nranks * sizeof(*a.rank)),
					   "rerun: per-rank statistics differ");
				cc_sim_result_free(&b);
			}
			/* Without data: the control words alone decide the time. */
			o.check = false;
			rc = cc_sim_run(s, &o, &d);
			PROP_CHECK(&c, rc == 0, "cc_sim_run without check returned %d", rc);
			if (rc == 0) {
				PROP_CHECK(&c, d.err.status == CC_RUN_OK && d.time_ps == a.time_ps,
					   "without check: status %d, %llu ps; with check %llu ps",
					   d.err.status, (unsigned long long)d.time_ps,
					   (unsigned long long)a.time_ps);
				cc_sim_result_free(&d);
			}
		}
		cc_sim_result_free(&a);
		sim_net_free(&net);
		cc_schedule_free(s);
	}
	running = NULL;
	double dt = monotonic_s() - t0;
	print_message("sim: seed %llu, %u cases (%u on a ring network), %llu events; %.1f s\n",
		      (unsigned long long)base_seed, nsim, ring_topo, (unsigned long long)events, dt);
	print_message("sim: by algorithm");
	for (int a = 0; a < CC_ALGO_COUNT; a++)
		print_message(" %s %u", cc_algo_name[a], per_algo[a]);
	print_message("\n");
	if (c.failures)
		fail_msg("sim: %u of %u cases failed", c.failures, nsim);
}

static int parse_env(const char *name, uint64_t *out)
{
	const char *v = getenv(name);
	char *end;

	if (!v || !*v)
		return 0;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 0);
	if (errno || *end) {
		fprintf(stderr, "%s=%s: not a number\n", name, v);
		return -1;
	}
	*out = x;
	return 1;
}

int main(void)
{
	uint64_t seed = DEFAULT_SEED, runs = DEFAULT_RUNS;

	if (parse_env("CCLAB_PROP_SEED", &seed) < 0 || parse_env("CCLAB_PROP_RUNS", &runs) < 0)
		return 2;
	base_seed = seed;
	signal(SIGABRT, on_abort);
	nruns = runs > 1000000 ? 1000000u : (unsigned)runs;
	print_message("properties: CCLAB_PROP_SEED=%llu CCLAB_PROP_RUNS=%u\n",
		      (unsigned long long)base_seed, nruns);

	const struct CMUnitTest tests[] = {
		cmocka_unit_test(prop_data),
		cmocka_unit_test(prop_sim),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
