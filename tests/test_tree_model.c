/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_tree_model.c — an alpha-beta closed form for the double binary
 * tree (core/tree.c) on the simulator, written here from the tree's shape
 * and the protocol of core/conn.h, and held to within 2 % where it must
 * hold (docs/schedule.md, "Double binary tree", has the table).
 *
 * Fabric.  The `ideal` preset (sim/params.c): every NIC, PCIe, CPU and GPU
 * cost is zero, only serialization at the link rate B costs, and the switch
 * shares each output fairly among the flows waiting; star topology.
 * For the latency regime the test copies it and sets link.prop_delay_ps = p,
 * so a hop NIC -> switch -> NIC costs alpha = 2 p + switch.fwd_latency_ps
 * (2 us here; the switch's latency adds the same way).
 *
 * Messages.  A slice of m <= S bytes (S = slot_bytes, 512 KiB) is one
 * RDMA WRITE WITH IMM: wire(m) bytes with every packet's headers at the
 * 4096-byte MTU (sim_wire_msg_sum), s(m) = wire(m) / B on a link.  The
 * receiving NIC ACKs every packet (rnic.ack_coalesce_pkts = 1: ack = 30 B
 * each, npk(m) of them) and invites each slice with a clear-to-send, an
 * inline 8-byte RDMA WRITE (cts = 50 B) that is ACKed too.  A node forwards
 * a slice once all of it is in (its completion), and its NIC serves its
 * QPs round robin, packet by packet (docs/simulator.md), so c children get
 * one slice each c s(m) after the node has it.  chunk_bytes does not
 * enter: each step waits for what it reads slice by slice (mark/after, one
 * slot per slice), and the simulator runs every op when its inputs are in,
 * so chunks only tag the slices (the test also runs chunk = S, not 4 S).
 *
 * Shape.  NCCL's btree over k ranks has depth D = ceil(log2 k); the root
 * has one child 2^(D-1); below it every inner node has two children,
 * except 2^(D-1) itself when k = 2^(D-1) + 1.  Let a(v) be the sum of the
 * children counts of v's ancestors: the first slice reaches v a(v) s after
 * the root has it.  The deepest two-child node sits at depth D-1 with
 *   F = a + 2 = 2D - 1, or 2D - 2 when k - 1 is a power of two (k > 2).
 * Tree 1 (mirrored or shifted) has the same shape.
 *
 * Broadcast (one tree, the whole array: L = ceil(N / S) slices of m).  A
 * two-child node's port sends, per slice, 2 messages to its children, an
 * ACK per packet of the one it received, the CTS for it, and an ACK for
 * each child's CTS:
 *   P2 = 2 wire(m) + npk(m) ack + cts + 2 ack   bytes per slice,
 * 2N(1 + headers) in all, the most of any port (a leaf's port receives N,
 * the root's sends N).  The deepest two-child node starts after the CTS
 * that invited the first slice (alpha, at t = 0 every receiver invites),
 * D - 1 hops and (F - 2) s; its port then never idles (its parent feeds it
 * at B / 2, what it sends each child); the last slice reaches a leaf one hop
 * later and its send completes when the ACK is back (one more alpha):
 *   T_bcast = (D + 2) alpha + (F - 2) s(m) + L P2 / B.
 * Reduce is the same pipeline reversed (a two-child node's receive port
 * takes both children's slices, the same P2 bytes, and sends the sum up
 * once it has both), its first slice's pass the up pass U (below) instead
 * of D alpha + F s:
 *   T_reduce = 2 alpha + U - 2 s(m) + L P2 / B,
 * which is T_bcast where the two subtrees are alike.
 *
 * Allreduce (two trees, half the array each: L = ceil(N / 2 / S) slices of
 * m per tree).  Latency regime (L = 1): a reduce up tree t, then a
 * broadcast down it; the down slots were invited at t = 0 and the up ACK
 * is off the path.  Up, a node's port takes its children's slices one
 * after the other, so the root has the sum at U = ready(root), with
 * ready(leaf) = 0 and, for children ready at r1 <= r2,
 * ready(v) = max(r2 + alpha + s, r1 + alpha + 2 s) (ready(c) + alpha + s
 * for one child): U = D alpha + F s where the two subtrees are alike
 * (k a power of two, or one more), less where a shallow subtree's slice
 * comes in early (k = 6, 7, 12: one s less).  Down is the broadcast's
 * D alpha + F s, so
 *   T_ar = (D + 2) alpha + U + F s(m),   (2D + 2) alpha + 2 F s(m) for
 * the alike ones.
 * Bandwidth: for k >= 4 the busiest ranks are inner (two children) in one
 * tree and a leaf in the other: per slice index they send 1 up + 2 down
 * there and 1 up here, and receive as many, so their port carries
 *   P4 = 4 (wire(m) + npk(m) ack + cts + ack)   bytes per slice index,
 * 2N(1 + headers) each way, and no port carries more: T_ar >= L P4 / B.
 * From above, the first slice index costs at most a pass through alike
 * subtrees (the latency form's 2 F s with m = S) and every further one the
 * busiest port's P4:
 *   T_ar <= (2D + 2) alpha + 2 F s(S) + (L - 1) P4 / B.
 * The run keeps between the two at 16 and 64 MiB (with one or two slices
 * per tree it can pass the form from above by up to 1.5 %), and each
 * further slice index costs
 * exactly P4 / B (16 -> 64 MiB adds three times the 16 MiB bound, to
 * 0.03 %), so the part above the bound is a fill that does not grow with
 * N: 76 us for k = 4, 171 us for k = 7 and 8, 341 us for k = 16, where the
 * form from above counts 83, 252 and 421 us; the run hides the rest of the
 * first pass under the other tree's traffic, by an amount the trees'
 * shapes set and this test does not derive.  So the form from above holds
 * within 2 % from 64 MiB (0.06 to 0.73 %), and at 16 MiB only the bracket.
 *
 * That needs the ideal preset's fair switch outputs (switch.sched = fair,
 * deficit round robin per flow: the link alpha-beta assumes).  Through
 * FIFO outputs, as every hardware preset has, the same runs lose time that
 * grows with N (k = 4: +0.09 % at 16 MiB, faster than fair there, +6.45 %
 * at 64 MiB): the busiest port's transmit idles mid-run while each of its
 * four send QPs waits on something queued at its switch output (the root's
 * reflected slice, its children's slices, the clear-to-send of its leaf
 * send) behind slices a lightly loaded sender was free to send early, up
 * to 8 slots per connection; k = 4 at 64 MiB takes 6.45 % over the bound
 * instead of 0.70 % (test_allreduce_fifo).  Rooted collectives have no
 * such loop (their dependencies only flow one way) and match their form
 * within 1.5 % either way.
 *
 * What holds within 2 % (asserted): broadcast and reduce at 16 MiB on the
 * ideal fabric and with alpha = 2 us, and at 4 B and 1 KiB with alpha =
 * 2 us; allreduce at 4 B, 1 KiB and 4 KiB with alpha = 2 us, and at 64 MiB
 * on the ideal fabric (the form from above).  Not asserted:
 * rooted ones at 4 KiB with alpha = 2 us, up to 3.8 % off: a single-packet
 * message only cuts through the switch when nothing else (an ACK) is at the
 * output (sim/switch.h), otherwise it pays its serialization twice, and
 * with s(4 KiB) = 0.33 us against alpha = 2 us one such packet time is
 * already 3 %; on the ideal fabric (alpha = 0) small sizes are a few
 * packet times and their order of ties (docs/simulator.md), not a formula. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/algo.h"
#include "sim/exec.h"
#include "sim/params.h"
#include "sim/topo.h"
#include "sim/wire.h"
#include "tests/quick.h"

#define KIB 1024ull
#define MIB (1024ull * 1024ull)

static const uint32_t ks[] = { 4, 7, 8, 16 };
#define NKS (sizeof(ks) / sizeof(ks[0]))

/* CCLAB_MATRIX=quick (`make test`): the 16 MiB runs up to k = 8. */
static uint32_t max_k(void)
{
	return matrix_quick() ? 8 : 16;
}

/* The ideal preset with link propagation prop_ps: alpha = 2 prop_ps. */
static struct sim_params fabric(sim_time_ps prop_ps)
{
	struct sim_params f;

	assert_int_equal(sim_params_preset("ideal", &f), 0);
	f.link.prop_delay_ps = prop_ps;
	return f;
}

static double alpha_us(const struct sim_params *f)
{
	return (double)(2 * f->link.prop_delay_ps + f->sw.fwd_latency_ps) / 1e6;
}

static struct cc_coll_params params(enum cc_coll c, uint32_t k, uint64_t bytes)
{
	struct cc_coll_params p;

	cc_coll_params_default(&p);
	p.algo = CC_ALGO_TREE;
	p.coll = c;
	p.nranks = k;
	p.count = bytes / 4;
	p.root = 0;
	return p;
}

/* Runs p on f, star; the result in *res when res is not NULL (the caller
 * frees it).  Microseconds. */
static double run_us(const struct cc_coll_params *p, const struct sim_params *f,
		     struct cc_sim_result *res)
{
	struct cc_sim_result r;
	struct cc_sim_opts o = { .fabric = f, .topo = SIM_TOPO_STAR, .seed = 1 };
	char err[256];
	struct cc_schedule *s = cc_build(p, err, sizeof(err));
	double us;

	if (!s)
		fail_msg("build: %s", err);
	assert_int_equal(cc_sim_run(s, &o, &r), 0);
	if (r.err.status != CC_RUN_OK)
		fail_msg("%s k=%u count=%llu: %s", cc_coll_name[p->coll], p->nranks,
			 (unsigned long long)p->count, r.err.msg);
	us = (double)r.time_ps / 1e6;
	if (res)
		*res = r;
	else
		cc_sim_result_free(&r);
	cc_schedule_free(s);
	return us;
}

/* The tree's depth and F (the header comment). */
static uint32_t depth(uint32_t k)
{
	uint32_t d = 0;

	while ((1u << d) < k)
		d++;
	return d;
}

static uint32_t fill(uint32_t k)
{
	uint32_t d = depth(k);

	return 2 * d - 1 - (k > 2 && ((k - 1) & (k - 2)) == 0);
}

/* NCCL's ncclGetBtree (src/graph/trees.cc), written again from NCCL as
 * this test's reference: rank r's children (NONE where absent). */
#define NONE UINT32_MAX
static void children(uint32_t k, uint32_t r, uint32_t d[2])
{
	uint32_t bit = 1, low;

	while (bit < k && !(bit & r))
		bit <<= 1;
	if (r == 0) { /* the root: one child, the largest power of two below k */
		d[0] = NONE;
		d[1] = k > 1 ? bit >> 1 : NONE;
		return;
	}
	low = bit >> 1;
	d[0] = low ? r - low : NONE;
	d[1] = low ? r + low : NONE;
	while (d[1] != NONE && d[1] >= k) { /* the nearest right child in range */
		d[1] = low ? r + low : NONE;
		low >>= 1;
	}
}

/* The up pass of one slice from the leaves to v: when v has the sum.  A
 * leaf sends at once; a node's port takes its children's slices one after
 * the other, each alpha + s after its child had it, so with children
 * ready at r1 <= r2 the node has both at max(r2 + alpha + s, r1 + alpha +
 * 2 s).  In a tree whose two subtrees are alike (k a power of two, or one
 * more) the root has it at D alpha + F s; where a shallow subtree's slice
 * comes in early (k = 6, 7, 12) sooner. */
static double ready_us(uint32_t k, uint32_t v, double alpha, double s)
{
	uint32_t d[2];
	double r[2], t = 0;
	int n = 0;

	children(k, v, d);
	for (int i = 0; i < 2; i++)
		if (d[i] != NONE)
			r[n++] = ready_us(k, d[i], alpha, s);
	if (n == 2 && r[0] > r[1]) {
		double x = r[0];

		r[0] = r[1];
		r[1] = x;
	}
	for (int i = 0; i < n; i++) /* the port takes them in order */
		t = (r[i] + alpha + s > t + s ? r[i] + alpha + s : t + s);
	return t;
}

/* One slice of m bytes on the wire, and its packets. */
static uint64_t wire(const struct sim_params *f, uint64_t m, uint64_t *npk)
{
	struct sim_wire_seg seg;

	assert_int_equal(sim_wire_segment(SIM_MSG_WRITE_IMM, m, f->link.mtu_bytes, &seg), 0);
	struct sim_wire_sum w = sim_wire_msg_sum(f->link.type, &seg);
	if (npk)
		*npk = w.pkts;
	return w.wire;
}

static uint64_t ack_bytes(const struct sim_params *f)
{
	return sim_wire_bytes(f->link.type, SIM_BTH_ACK, 0);
}

static uint64_t cts_bytes(const struct sim_params *f)
{
	return sim_wire_bytes(f->link.type, SIM_BTH_WRITE_ONLY, 8);
}

static double bytes_us(const struct sim_params *f, double bytes)
{
	return bytes * 8 / (double)f->link.rate_bps * 1e6;
}

/* Broadcast: (D + 2) alpha + (F - 2) s(m) + L P2 / B.  Reduce is the same
 * pipeline reversed, its first slice's pass the up pass U instead of
 * D alpha + F s: 2 alpha + U - 2 s(m) + L P2 / B, the same where the
 * subtrees are alike. */
static double rooted_us(const struct sim_params *f, enum cc_coll c, uint32_t k, uint64_t n,
			uint64_t slot)
{
	uint64_t m = n < slot ? n : slot, l = (n + slot - 1) / slot, npk;
	uint64_t w = wire(f, m, &npk);
	uint64_t p2 = 2 * w + npk * ack_bytes(f) + cts_bytes(f) + 2 * ack_bytes(f);
	double a = alpha_us(f), s = bytes_us(f, (double)w);
	double pass = c == CC_REDUCE ? ready_us(k, 0, a, s) : depth(k) * a + fill(k) * s;

	return 2 * a + pass - 2 * s + bytes_us(f, (double)(l * p2));
}

/* Allreduce, one slice per tree: the CTS that invites it (alpha), the up
 * pass U, the broadcast down (D alpha + F s: each node's children get it
 * one after the other) and the last ACK (alpha):
 *   T_ar = (D + 2) alpha + U + F s(m);   (2D + 2) alpha + 2 F s(m) when
 * the subtrees are alike.  Both trees have the same shape. */
static double allreduce_lat_us(const struct sim_params *f, uint32_t k, uint64_t n)
{
	uint64_t m = (n / 4 + 1) / 2 * 4; /* the larger half */
	double s = bytes_us(f, (double)wire(f, m, NULL)), a = alpha_us(f);

	return (depth(k) + 2) * a + ready_us(k, 0, a, s) + fill(k) * s;
}

/* Allreduce, bandwidth: slices of m = min(N / 2, S) per tree, L of them,
 * and the busiest port's bytes per slice index, P4. */
static uint64_t allreduce_p4(const struct sim_params *f, uint64_t n, uint64_t slot, uint64_t *l)
{
	uint64_t half = n / 2, m = half < slot ? half : slot, npk;
	uint64_t w = wire(f, m, &npk);

	*l = (half + m - 1) / m;
	return 4 * (w + npk * ack_bytes(f) + cts_bytes(f) + ack_bytes(f));
}

/* Allreduce, bandwidth, from above: the first slice index a pass as
 * through alike subtrees ((2D + 2) alpha + 2 F s(S); an unloaded pass
 * takes U + F s, no more), every further one P4 / B. */
static double allreduce_upper_us(const struct sim_params *f, uint32_t k, uint64_t n,
				 uint64_t slot)
{
	uint64_t l, p4 = allreduce_p4(f, n, slot, &l);
	double s = bytes_us(f, (double)wire(f, slot, NULL));

	return (2 * depth(k) + 2) * alpha_us(f) + 2 * fill(k) * s +
	       bytes_us(f, (double)((l - 1) * p4));
}

static void check(const char *what, uint32_t k, uint64_t n, const struct sim_params *f,
		  double got, double want)
{
	print_message("    %-9s k=%-2u %8llu B alpha %.0f us: %10.3f us, closed form %10.3f us "
		      "(%+.2f %%)\n", what, k, (unsigned long long)n, alpha_us(f), got, want,
		      (got / want - 1) * 100);
	if (got < want * 0.98 || got > want * 1.02)
		fail_msg("%s k=%u %llu B: %.3f us against the closed form %.3f us", what, k,
			 (unsigned long long)n, got, want);
}

static void test_shape(void **state)
{
	(void)state;
	/* D and F for the k the sweeps use, and the odd ones out (k - 1 a
	 * power of two: the root's child has one child). */
	assert_int_equal(depth(4), 2);
	assert_int_equal(depth(7), 3);
	assert_int_equal(depth(16), 4);
	assert_int_equal(fill(4), 3);
	assert_int_equal(fill(5), 4);
	assert_int_equal(fill(7), 5);
	assert_int_equal(fill(8), 5);
	assert_int_equal(fill(9), 6);
	assert_int_equal(fill(16), 7);
}

/* Broadcast and reduce, bandwidth: 16 MiB, alpha 0 and 2 us. */
static void test_rooted_bandwidth(void **state)
{
	const uint64_t n = 16 * MIB;

	(void)state;
	for (int a = 0; a < 2; a++) {
		struct sim_params f = fabric(a ? 1000000 : 0);

		for (int c = CC_BROADCAST; c <= CC_REDUCE; c++)
			for (size_t i = 0; i < NKS && ks[i] <= max_k(); i++) {
				struct cc_coll_params p = params((enum cc_coll)c, ks[i], n);

				check(cc_coll_name[c], ks[i], n, &f, run_us(&p, &f, NULL),
				      rooted_us(&f, (enum cc_coll)c, ks[i], n, p.slot_bytes));
			}
	}
	/* The chunk does not enter: one slot per chunk instead of four. */
	struct sim_params f = fabric(0);
	struct cc_coll_params p = params(CC_BROADCAST, 8, n);
	p.chunk_bytes = p.slot_bytes;
	check("broadcast", 8, n, &f, run_us(&p, &f, NULL), rooted_us(&f, CC_BROADCAST, 8, n, p.slot_bytes));
}

/* Broadcast and reduce, latency: 4 B and 1 KiB, alpha 2 us. */
static void test_rooted_latency(void **state)
{
	static const uint64_t sizes[] = { 4, 1 * KIB };
	struct sim_params f = fabric(1000000);

	(void)state;
	for (int c = CC_BROADCAST; c <= CC_REDUCE; c++)
		for (size_t i = 0; i < NKS; i++)
			for (size_t j = 0; j < 2; j++) {
				struct cc_coll_params p = params((enum cc_coll)c, ks[i], sizes[j]);

				check(cc_coll_name[c], ks[i], sizes[j], &f, run_us(&p, &f, NULL),
				      rooted_us(&f, (enum cc_coll)c, ks[i], sizes[j], p.slot_bytes));
			}
}

/* Allreduce, latency: 4 B (one float: tree 1 alone), 1 KiB, 4 KiB with
 * alpha = 2 us; and one 512 KiB slice per tree (1 MiB) on the ideal
 * fabric, where the slices' serialization is the whole time, for shapes
 * with alike subtrees and without (k = 6, 7, 12: U below D alpha + F s). */
static void test_allreduce_latency(void **state)
{
	static const uint64_t sizes[] = { 4, 1 * KIB, 4 * KIB };
	static const uint32_t shapes[] = { 4, 5, 6, 7, 8, 12, 16 };
	struct sim_params f = fabric(1000000), ideal = fabric(0);

	(void)state;
	for (size_t i = 0; i < NKS; i++)
		for (size_t j = 0; j < 3; j++) {
			struct cc_coll_params p = params(CC_ALLREDUCE, ks[i], sizes[j]);

			check("allreduce", ks[i], sizes[j], &f, run_us(&p, &f, NULL),
			      allreduce_lat_us(&f, ks[i], sizes[j]));
		}
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		struct cc_coll_params p = params(CC_ALLREDUCE, shapes[i], 1 * MIB);

		p.chunk_bytes = p.slot_bytes;
		check("allreduce", shapes[i], 1 * MIB, &ideal, run_us(&p, &ideal, NULL),
		      allreduce_lat_us(&ideal, shapes[i], 1 * MIB));
	}
}

/* One allreduce of n bytes on f: its time, and the busiest port's bytes
 * and wire time (printed with the bound and the form from above). */
static double allreduce_run(const struct sim_params *f, uint32_t k, uint64_t n, uint64_t *most)
{
	struct cc_coll_params p = params(CC_ALLREDUCE, k, n);
	struct cc_sim_result res;
	double got = run_us(&p, f, &res);
	uint64_t l, p4 = allreduce_p4(f, n, p.slot_bytes, &l), queue = 0;
	uint32_t busiest = 0;

	*most = 0;
	for (uint32_t r = 0; r < res.nranks; r++)
		if (res.rank[r].wire_bytes > *most) {
			*most = res.rank[r].wire_bytes;
			busiest = r;
		}
	for (uint32_t i = 0; i < res.nlinks; i++)
		if (res.links[i].peak_queue_bytes > queue)
			queue = res.links[i].peak_queue_bytes;

	const struct cc_sim_rank_stats *b = &res.rank[busiest];
	double bound = bytes_us(f, (double)(l * p4)), wire_us = (double)b->busy_ps[CC_SIM_WIRE] / 1e6;

	print_message("    allreduce k=%-2u %9llu B %s: %9.1f us, bound %9.1f us (%+.2f %%), "
		      "from above %9.1f us; rank %u: idle %.1f us; deepest egress queue %.2f MB\n",
		      k, (unsigned long long)n, sim_switch_sched_name[f->sw.sched], got, bound,
		      (got / bound - 1) * 100, allreduce_upper_us(f, k, n, p.slot_bytes), busiest,
		      got - wire_us, (double)queue / 1e6);
	assert_true(wire_us <= got);
	cc_sim_result_free(&res);
	return got;
}

/* Allreduce, bandwidth, ideal fabric (fair switch outputs), 16 and 64 MiB:
 * the busiest port carries exactly L P4 bytes; the run takes at least
 * their time and at most the form from above, and is within 2 % of that
 * form at 64 MiB; each further slice index costs exactly P4 / B (16 to
 * 64 MiB adds three times the 16 MiB bound, to 0.1 %). */
static void test_allreduce_bandwidth(void **state)
{
	static const uint64_t sizes[] = { 16 * MIB, 64 * MIB };
	struct sim_params f = fabric(0);

	(void)state;
	for (size_t i = 0; i < NKS && ks[i] <= max_k(); i++) {
		uint32_t k = ks[i];
		double got[2], bound[2];

		for (size_t j = 0; j < 2; j++) {
			struct cc_coll_params p = params(CC_ALLREDUCE, k, sizes[j]);
			uint64_t l, p4 = allreduce_p4(&f, sizes[j], p.slot_bytes, &l), most;
			double upper = allreduce_upper_us(&f, k, sizes[j], p.slot_bytes);

			bound[j] = bytes_us(&f, (double)(l * p4));
			got[j] = allreduce_run(&f, k, sizes[j], &most);
			if (most != l * p4)
				fail_msg("k=%u %llu B: the busiest port sent %llu bytes, the closed "
					 "form %llu", k, (unsigned long long)sizes[j],
					 (unsigned long long)most, (unsigned long long)(l * p4));
			assert_true(got[j] >= bound[j]);
			assert_true(got[j] <= upper);
			if (j == 1)
				check("allreduce", k, sizes[j], &f, got[j], upper);
		}
		double step = got[1] - got[0], want = bound[1] - bound[0];

		print_message("    k=%-2u 16 -> 64 MiB: %+.1f us, (L64 - L16) P4 / B %.1f us\n", k,
			      step, want);
		assert_true(step > want * 0.999 && step < want * 1.001);
	}
}

/* The same allreduce through FIFO switch outputs (every real preset's):
 * a sender's burst holds back the flows queued behind it, and k = 4 at
 * 64 MiB loses 6.5 % to it, where fair outputs lose 0.7 %. */
static void test_allreduce_fifo(void **state)
{
	struct sim_params f = fabric(0);
	struct cc_coll_params p = params(CC_ALLREDUCE, 4, 64 * MIB);
	uint64_t l, p4 = allreduce_p4(&f, 64 * MIB, p.slot_bytes, &l), most;
	double bound = bytes_us(&f, (double)(l * p4)), fair, fifo;

	(void)state;
	fair = allreduce_run(&f, 4, 64 * MIB, &most);
	f.sw.sched = SIM_SWITCH_FIFO;
	fifo = allreduce_run(&f, 4, 64 * MIB, &most);
	assert_true(most == l * p4);
	assert_true(fair < bound * 1.01);
	assert_true(fifo > bound * 1.05);
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_shape),
		cmocka_unit_test(test_rooted_bandwidth),
		cmocka_unit_test(test_rooted_latency),
		cmocka_unit_test(test_allreduce_latency),
		cmocka_unit_test(test_allreduce_bandwidth),
		cmocka_unit_test(test_allreduce_fifo),
	};

	return cmocka_run_group_tests_name("tree_model", t, NULL, NULL);
}
