/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_nccl_tune.c — NCCL's tuning model (core/nccl_tune.h), every
 * expected value worked out here by hand from NCCL's sources, not taken
 * from the code's output:
 *   - releases, names, and NCCL_* variables in NCCL's syntax, with the
 *     messages a bad value gets;
 *   - DGX H100 (1 and 2 nodes) and DGX B200: the graphs, NVLS's and
 *     NVLSTree's bus bandwidth, the choice at 8 B and 1 GiB, the ring's
 *     latency and time, the tree's correction, the ring's x1.4;
 *   - what changed between releases: Tree/Simple latency (2.19, 2.23),
 *     the ring's LL factor (2.20, 2.21), the ring's network steps (2.22,
 *     2.23), the ring kept aside (2.19-2.23);
 *   - NCCL_ALGO/NCCL_PROTO, the channel bounds and the per-size channel
 *     and thread reduction;
 *   - the point-to-point path (sendrecv, all-to-all): channels per peer,
 *     protocol, step and the channels an op takes, on MOC's 2 x 1 H100
 *     (2.26.2, whose log says "2 p2p channels per peer", "P2P Chunksize
 *     set to 131072") and a DGX H100 on 1 and 2 nodes (2.30.7).
 * Systems: a DGX H100 GPU has 18 NVLinks (450 GB/s), which NCCL counts at
 * 20.6 GB/s each (topo.h SM90_NVLINK_BW): 370.8 GB/s to the NVSwitch; a
 * PCIe Gen5 x16 link = 16 x 240 / 80 = 48 GB/s (topo.cc kvDictPciGen),
 * 400 Gb/s NICs = 50 GB/s; a B200 18 x 40.1 = 721.8 GB/s.  nccl-tests'
 * busbw = algbw x 2(n-1)/n; NCCL's table holds algbw (ring, NVLS: busBw x
 * n/nsteps, nsteps = 2(n-1) for allreduce). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/nccl_tune.h"
#include "tests/nccl_systems.h"

#define GIB (1ull << 30)
#define MIB (1ull << 20)

static void close_to(double got, double want, const char *what)
{
	if (!(fabs(got - want) <= 1e-9 * fmax(1.0, fabs(want))))
		fail_msg("%s: %.12g, want %.12g", what, got, want);
}

static struct cc_nccl_version ver(const char *s)
{
	struct cc_nccl_version v;
	char err[200];

	if (cc_nccl_version_parse(s, &v, err, sizeof(err)))
		fail_msg("%s", err);
	return v;
}

static void set_env(struct cc_nccl_env *e, const char *name, const char *value)
{
	char err[200];

	if (cc_nccl_env_set(e, name, value, err, sizeof(err)))
		fail_msg("%s=%s: %s", name, value, err);
}

static void init(struct cc_nccl_comm *c, const char *v, const struct cc_nccl_system *s,
		 const struct cc_nccl_env *e)
{
	struct cc_nccl_version version = ver(v);
	struct cc_nccl_env plain;
	char err[200];

	if (!e) {
		cc_nccl_env_init(&plain);
		e = &plain;
	}
	if (cc_nccl_comm_init(c, &version, s, e, err, sizeof(err)))
		fail_msg("comm_init: %s", err);
}

static struct cc_nccl_choice choose(const struct cc_nccl_comm *c, enum cc_coll coll, uint64_t bytes)
{
	struct cc_nccl_choice ch;
	char err[200];

	if (cc_nccl_choose(c, coll, bytes, &ch, err, sizeof(err)))
		fail_msg("choose: %s", err);
	return ch;
}

static void test_names_and_versions(void **state)
{
	struct cc_nccl_version v;
	enum cc_gpu_arch a;
	enum cc_cpu_vendor cpu;
	char err[200];

	(void)state;
	v = ver("2.23.4");
	assert_true(v.major == 2 && v.minor == 23 && v.patch == 4);
	v = ver("v2.27.7-1");
	assert_true(v.minor == 27 && v.patch == 7);
	v = ver("2.18");
	assert_true(v.minor == 18 && v.patch == 0);
	assert_true(cc_nccl_version_cmp(&v, 2, 18, 0) == 0 && cc_nccl_version_cmp(&v, 2, 18, 3) < 0 &&
		    cc_nccl_version_cmp(&v, 2, 9, 9) > 0);
	assert_int_equal(cc_nccl_version_parse("2.17.1", &v, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "2.17.1: cclab has NCCL's rules from 2.18 on");
	assert_int_equal(cc_nccl_version_parse("2.31", &v, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "2.31.0: cclab has NCCL's rules up to 2.30.7, not this release's");
	assert_int_equal(cc_nccl_version_parse("2.30.9", &v, err, sizeof(err)), 0);
	for (const char *bad = "2.x\0002.23.4junk\0002\0002.1234567890\000-2.23\0"; *bad;
	     bad += strlen(bad) + 1)
		assert_int_equal(cc_nccl_version_parse(bad, &v, err, sizeof(err)), -EINVAL);
	assert_true(cc_nccl_version_cmp(&cc_nccl_version_default, 2, 30, 7) == 0);

	assert_int_equal(cc_gpu_arch_parse("H200", &a), 0);
	assert_int_equal(a, CC_GPU_HOPPER);
	assert_int_equal(cc_gpu_arch_parse("b200", &a), 0);
	assert_int_equal(a, CC_GPU_BLACKWELL);
	assert_int_equal(cc_gpu_arch_parse("ampere", &a), 0);
	assert_int_equal(a, CC_GPU_AMPERE);
	assert_int_equal(cc_gpu_arch_parse("k80", &a), -EINVAL);
	assert_int_equal(cc_cpu_vendor_parse("amd", &cpu), 0);
	assert_int_equal(cpu, CC_CPU_AMD);
	assert_string_equal(cc_nccl_algo_name[CC_NCCL_NVLS_TREE], "NVLSTree");
	assert_string_equal(cc_nccl_path_name[CC_NCCL_PATH_PXN], "PXN");
}

static void test_env_syntax(void **state)
{
	const uint32_t all_algos = (1u << CC_NCCL_ALGO_COUNT) - 1;
	struct cc_nccl_env e;
	char err[200];

	(void)state;
	cc_nccl_env_init(&e);
	set_env(&e, "NCCL_ALGO", "rInG");
	for (int c = 0; c < CC_ALLTOALL; c++)
		assert_int_equal(e.algo[c], 1u << CC_NCCL_RING);
	/* set anew each time, from NCCL's default */
	set_env(&e, "NCCL_ALGO", "^NVLS,nvlstree");
	assert_int_equal(e.algo[CC_ALLGATHER],
			 all_algos & ~(1u << CC_NCCL_NVLS) & ~(1u << CC_NCCL_NVLS_TREE));
	set_env(&e, "NCCL_ALGO", "allreduce:tree");
	assert_int_equal(e.algo[CC_ALLREDUCE], 1u << CC_NCCL_TREE);
	assert_int_equal(e.algo[CC_ALLGATHER], all_algos);
	set_env(&e, "NCCL_ALGO", "ring,collnetdirect;allreduce:^ring;broadcast:ring");
	assert_int_equal(e.algo[CC_ALLREDUCE], all_algos & ~(1u << CC_NCCL_RING));
	assert_int_equal(e.algo[CC_REDUCE], 1u << CC_NCCL_RING | 1u << CC_NCCL_COLLNET_DIRECT);
	assert_int_equal(e.algo[CC_BROADCAST], 1u << CC_NCCL_RING);

	set_env(&e, "NCCL_PROTO", "Simple");
	assert_int_equal(e.proto[CC_ALLREDUCE], 1u << CC_PROTO_SIMPLE);
	assert_int_equal(e.proto_given, (1u << CC_COLL_COUNT) - 1);
	set_env(&e, "NCCL_PROTO", "^LL128;allreduce:LL128");
	assert_int_equal(e.proto[CC_ALLREDUCE], 1u << CC_PROTO_LL128);
	assert_int_equal(e.proto[CC_REDUCE], 1u << CC_PROTO_LL | 1u << CC_PROTO_SIMPLE);

	/* a refused value leaves the variable as it was */
	assert_int_equal(cc_nccl_env_set(&e, "NCCL_ALGO", "rnig", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "NCCL_ALGO: 'rnig' is not an algorithm (Tree, Ring, CollNetDirect, "
				 "CollNetChain, NVLS, NVLSTree, PAT)");
	assert_int_equal(e.algo[CC_BROADCAST], 1u << CC_NCCL_RING);
	assert_int_equal(cc_nccl_env_set(&e, "NCCL_PROTO", "LL,LL256", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "NCCL_PROTO: 'LL256' is not a protocol (Simple, LL, LL128)");
	assert_int_equal(cc_nccl_env_set(&e, "NCCL_ALGO", "allgathr:ring", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "NCCL_ALGO: 'allgathr' is not a collective (Broadcast, Reduce, "
				 "AllGather, ReduceScatter, AllReduce)");
	assert_int_equal(cc_nccl_env_set(&e, "NCCL_ALGO", "allreduce:tree;ring", err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "NCCL_ALGO: 'ring' needs a collective before it ('allreduce:ring'): "
				 "only the first entry may omit it");
	assert_int_equal(cc_nccl_env_set(&e, "NCCL_ALGO", "allreduce:", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "NCCL_ALGO: 'allreduce:' names no algorithm");
	assert_int_equal(cc_nccl_env_set(&e, "NCCL_SOCKET_IFNAME", "eth0", err, sizeof(err)), -ENOENT);

	set_env(&e, "NCCL_MAX_NCHANNELS", "4");
	assert_int_equal(e.max_nchannels, 4);
	assert_int_equal(cc_nccl_env_set(&e, "NCCL_MAX_NCHANNELS", "4x", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "NCCL_MAX_NCHANNELS: '4x' is not a whole number");
	assert_int_equal(cc_nccl_env_set(&e, "NCCL_MIN_NCHANNELS", "-1", err, sizeof(err)), -EINVAL);
	assert_int_equal(cc_nccl_env_set(&e, "NCCL_BUFFSIZE", "99999999999999999999", err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "NCCL_BUFFSIZE: '99999999999999999999' is too large");
	/* a slot (an eighth) of 512 B at least, a buffer of 1 GiB at most */
	assert_int_equal(cc_nccl_env_set(&e, "NCCL_BUFFSIZE", "2048", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "NCCL_BUFFSIZE: 2048 is out of range 4096..1073741824");
	assert_int_equal(cc_nccl_env_set(&e, "NCCL_MAX_NCHANNELS", "0", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "NCCL_MAX_NCHANNELS: 0 is out of range 1..4294967295");
	assert_int_equal(cc_nccl_env_set(&e, "NCCL_IB_QPS_PER_CONNECTION", "129", err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(cc_nccl_env_set(&e, "NCCL_COLLNET_ENABLE", "", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "NCCL_COLLNET_ENABLE: empty value");
	assert_int_equal(e.max_nchannels, 4);
	set_env(&e, "NCCL_NVLS_ENABLE", "2");
	assert_int_equal(e.nvls_enable, -1);
	set_env(&e, "NCCL_NVLS_ENABLE", "0");
	assert_int_equal(e.nvls_enable, 0);
	/* a path name, case as NCCL compares it, or the old numbering */
	set_env(&e, "NCCL_NET_GDR_LEVEL", "PXB");
	assert_int_equal(e.net_gdr_level, CC_NCCL_PATH_PXB);
	set_env(&e, "NCCL_NET_GDR_LEVEL", "3");
	assert_int_equal(e.net_gdr_level, CC_NCCL_PATH_PHB);
	set_env(&e, "NCCL_NET_GDR_LEVEL", "9");
	assert_int_equal(e.net_gdr_level, CC_NCCL_PATH_SYS);
	assert_int_equal(cc_nccl_env_set(&e, "NCCL_NET_GDR_LEVEL", "pxb", err, sizeof(err)), -EINVAL);
	for (int i = 0; cc_nccl_env_names[i]; i++)
		assert_int_not_equal(cc_nccl_env_set(&e, cc_nccl_env_names[i], "1", err, sizeof(err)),
				     -ENOENT);
}

/* DGX H100, one node, 2.30.7.
 * Ring (search.cc, SM90 intra speeds 60 50 40 30 ...): 60 fits
 * floor(370.8/60) = 6 channels (360 < totalBw 370.8: go on); 50 x 7 = 350,
 * 40 x 9 = 360, 30 x 12 = 360 ... are no better; ncclTopoDupChannels
 * (bwIntra 60 >= 50) makes 12 x 30; no faster speed holds 12.  Tree: the
 * first speed with 12 x speed <= 370.8 x 8/7 = 423.8 is 30.  NCCL's
 * channels: 12, doubled by ncclTopoPostset: 24.
 * NVLS: 8 heads, a head's link carries its channel twice: 9 x bw <= 370.8,
 * 50 fails, 40 holds; pass 2 raises bwInter to 50, 60 (< 2 x 40).
 * tuning.cc: per channel min(40 x .85 x 7/8 x 2, 60) = 59.5, busBw 8 x
 * 59.5 = 476 (nccl-tests measures ~480), algbw 476 x 8/14 = 272.
 * Ring/Simple: busBw 12 x 30 = 360, algbw 205.7, so NVLS wins at 1 GiB.
 * 8 B: Ring/LL's latency 6.6 + 14 x 0.6 = 15.0 us beats Tree/LL's 6.8 +
 * 2 x 7 x 0.6 = 15.2, NVLS's 25, LL128's 14 + 14 x 1.9 = 40.6; its
 * bandwidth min(llMaxBw 141, 360 x .5) x 8/14. */
/* NCCL flushes before Hopper or when told to, never when told not to
 * (graph/paths.cc ncclTopoNeedFlush, net_ib/connect.cc). */
static void test_env_gdr_flush(void **state)
{
	(void)state;
	struct cc_nccl_env e;

	cc_nccl_env_init(&e);
	assert_true(cc_nccl_env_gdr_flush(&e, CC_GPU_VOLTA));
	assert_true(cc_nccl_env_gdr_flush(&e, CC_GPU_AMPERE));
	assert_false(cc_nccl_env_gdr_flush(&e, CC_GPU_HOPPER));
	assert_false(cc_nccl_env_gdr_flush(&e, CC_GPU_BLACKWELL));
	set_env(&e, "NCCL_NET_FORCE_FLUSH", "0");
	assert_true(cc_nccl_env_gdr_flush(&e, CC_GPU_AMPERE));
	assert_false(cc_nccl_env_gdr_flush(&e, CC_GPU_HOPPER));
	set_env(&e, "NCCL_NET_FORCE_FLUSH", "1");
	assert_true(cc_nccl_env_gdr_flush(&e, CC_GPU_HOPPER));
	set_env(&e, "NCCL_GDR_FLUSH_DISABLE", "1");
	assert_false(cc_nccl_env_gdr_flush(&e, CC_GPU_HOPPER));
	assert_false(cc_nccl_env_gdr_flush(&e, CC_GPU_AMPERE));
	set_env(&e, "NCCL_GDR_FLUSH_DISABLE", "0");
	assert_true(cc_nccl_env_gdr_flush(&e, CC_GPU_HOPPER));
}

static void test_dgx_h100_one_node(void **state)
{
	struct cc_nccl_system s = dgx_h100(1);
	struct cc_nccl_comm c;
	struct cc_nccl_choice ch;

	(void)state;
	init(&c, "2.30.7", &s, NULL);
	assert_int_equal(c.graph[CC_NCCL_RING].nchannels, 12);
	close_to(c.graph[CC_NCCL_RING].bw_intra, 30, "ring bwIntra");
	assert_int_equal(c.graph[CC_NCCL_TREE].nchannels, 12);
	close_to(c.graph[CC_NCCL_TREE].bw_intra, 30, "tree bwIntra");
	assert_int_equal(c.graph[CC_NCCL_NVLS].nchannels, 8);
	close_to(c.graph[CC_NCCL_NVLS].bw_intra, 40, "NVLS bwIntra");
	close_to(c.graph[CC_NCCL_NVLS].bw_inter, 60, "NVLS bwInter");
	assert_int_equal(c.nchannels, 24);
	assert_int_equal(c.nvls_nchannels, 16);
	assert_int_equal(c.graph[CC_NCCL_NVLS_TREE].nchannels, 8);
	assert_true(c.bw[CC_ALLREDUCE][CC_NCCL_NVLS_TREE][CC_PROTO_SIMPLE] == 0); /* one node */
	assert_true(c.bw[CC_ALLREDUCE][CC_NCCL_COLLNET_CHAIN][CC_PROTO_SIMPLE] == 0);
	close_to(c.bw[CC_ALLREDUCE][CC_NCCL_NVLS][CC_PROTO_SIMPLE] * 14 / 8, 476, "NVLS busbw");
	close_to(c.bw[CC_ALLREDUCE][CC_NCCL_RING][CC_PROTO_SIMPLE], 360.0 * 8 / 14, "ring algbw");

	ch = choose(&c, CC_ALLREDUCE, GIB);
	assert_int_equal(ch.algo, CC_NCCL_NVLS);
	assert_int_equal(ch.proto, CC_PROTO_SIMPLE);
	close_to(ch.time_us, 25 + GIB / (1000 * 272.0), "NVLS at 1 GiB");
	assert_int_equal(ch.nchannels, 16);
	assert_int_equal(ch.nthreads, 640);

	ch = choose(&c, CC_ALLREDUCE, 8);
	assert_int_equal(ch.algo, CC_NCCL_RING);
	assert_int_equal(ch.proto, CC_PROTO_LL);
	close_to(ch.time_us, 15.0 + 8 / (1000 * 141.0 * 8 / 14), "Ring/LL at 8 B");
	/* 8 B < nc x 512 threads x 64 B: one channel, threads halved to 64,
	 * then the 3-warp minimum */
	assert_int_equal(ch.nchannels, 1);
	assert_int_equal(ch.nthreads, 96);
}

/* DGX B200, one node, 2.30.7: 721.8 GB/s; SM100 intra speeds 90 80 70
 * ... NVLS: 9 x 90 = 810 > 721.8, 9 x 80 = 720 holds: 8 x 80; pass 2
 * raises bwInter only to 90, the array's top.  Per channel min(80 x .74 x
 * 7/8 x 2 = 103.6, 90) = 90: busBw 720, not 8 x 103.6 = 829 — NCCL 2.30's
 * own estimate; nccl-tests measures ~830 (nccl #1807).  Ring: 8 x 90 = 720
 * first, duplicated to 16 x 45: the same 720, so NVLS wins on latency (25
 * us against 8.4 + 14 x 3.4 = 56).  NVLS channels: 24 on one Blackwell
 * node (nvls.cc NVLS_NCHANNELS_SM100_NVL). */
static void test_b200_one_node(void **state)
{
	struct cc_nccl_system s = dgx_h100(1);
	struct cc_nccl_comm c;
	struct cc_nccl_choice ch;

	(void)state;
	s.arch = CC_GPU_BLACKWELL;
	s.nvlink_gbs = 900;
	init(&c, "2.30.7", &s, NULL);
	close_to(c.graph[CC_NCCL_NVLS].bw_intra, 80, "NVLS bwIntra");
	close_to(c.graph[CC_NCCL_NVLS].bw_inter, 90, "NVLS bwInter");
	close_to(c.bw[CC_ALLREDUCE][CC_NCCL_NVLS][CC_PROTO_SIMPLE] * 14 / 8, 720, "NVLS busbw");
	assert_int_equal(c.graph[CC_NCCL_RING].nchannels, 16);
	close_to(c.graph[CC_NCCL_RING].bw_intra, 45, "ring bwIntra");
	assert_int_equal(c.nchannels, 32);
	assert_int_equal(c.nvls_nchannels, 24);
	ch = choose(&c, CC_ALLREDUCE, GIB);
	assert_int_equal(ch.algo, CC_NCCL_NVLS);
	assert_int_equal(ch.nchannels, 24);
}

/* Two DGX H100, 2.30.7.  Ring: SM90 inter speeds, maxBw min(50, 48) = 48:
 * 8 NICs x floor(50/48), 8 PCIe links x floor(48/48), NVLink 8 x 7/8 x 48 =
 * 336 <= 370.8: 8 x 48 = 384 >= totalBw, done; no duplication (bwIntra 48
 * < 50, 8 > 4).  Channels 8 x 2 = 16, not doubled again (16 < 16 fails).
 * NVLS: heads 6 at 48 ((6+1) x 48 <= 370.8), 7 at 45, 8 at 40; pass 2
 * raises bwInter 42, 45, 48.  NVLSTree: per channel min(40 x .85 x 7/8 x 2 =
 * 59.5, 2 x 48, cap 57.7) = 57.7, busBw 8 x 57.7 = 461.6; ring 384, tree
 * min(384 x .92, 8 x 41.4) = 331.2 bus: NVLSTree wins at 1 GiB, its
 * latency 25 + 2 x log2(2) x 20.9 = 66.8 us.
 * Ring/Simple allreduce latency: nsteps 30, 2(2-1) = 2 over the network
 * at 14 us, 28 over NVLink at max(3.4, 3 x 1.0 net overhead) = 3.4: 8.4 +
 * 28 x 3.4 + 2 x 14 = 131.6 us; x1.4 when bytes / (16 channels x 16
 * ranks) >= 64, i.e. from 16 KiB. */
static void test_dgx_h100_two_nodes(void **state)
{
	struct cc_nccl_system s = dgx_h100(2);
	struct cc_nccl_comm c;
	struct cc_nccl_choice ch;
	const double ring_algbw = 384.0 * 16 / 30;

	(void)state;
	init(&c, "2.30.7", &s, NULL);
	assert_int_equal(c.graph[CC_NCCL_RING].nchannels, 8);
	close_to(c.graph[CC_NCCL_RING].bw_inter, 48, "ring bwInter");
	assert_int_equal(c.nchannels, 16);
	close_to(c.graph[CC_NCCL_NVLS].bw_intra, 40, "NVLS bwIntra");
	close_to(c.graph[CC_NCCL_NVLS].bw_inter, 48, "NVLS bwInter");
	assert_true(c.bw[CC_ALLREDUCE][CC_NCCL_NVLS][CC_PROTO_SIMPLE] == 0); /* needs CollNet */
	close_to(c.bw[CC_ALLREDUCE][CC_NCCL_NVLS_TREE][CC_PROTO_SIMPLE] * 30 / 16, 461.6,
		 "NVLSTree busbw");

	ch = choose(&c, CC_ALLREDUCE, GIB);
	assert_int_equal(ch.algo, CC_NCCL_NVLS_TREE);
	close_to(ch.time_us, 66.8 + GIB / (1000 * 461.6 * 16 / 30), "NVLSTree at 1 GiB");

	close_to(c.lat[CC_ALLREDUCE][CC_NCCL_RING][CC_PROTO_SIMPLE], 131.6, "ring latency");
	close_to(c.bw[CC_ALLREDUCE][CC_NCCL_RING][CC_PROTO_SIMPLE], ring_algbw, "ring algbw");
	close_to(cc_nccl_time_us(&c, CC_ALLREDUCE, CC_NCCL_RING, CC_PROTO_SIMPLE, GIB),
		 131.6 * 1.4 + GIB / (1000 * ring_algbw), "ring at 1 GiB");
	close_to(cc_nccl_time_us(&c, CC_ALLREDUCE, CC_NCCL_RING, CC_PROTO_SIMPLE, 16383),
		 131.6 + 16383 / (1000 * ring_algbw), "ring below the plateau");
	close_to(cc_nccl_time_us(&c, CC_ALLREDUCE, CC_NCCL_RING, CC_PROTO_SIMPLE, 16384),
		 131.6 * 1.4 + 16384 / (1000 * ring_algbw), "ring on the plateau");

	/* Tree/Simple at 1 MiB: log2(2^20 / 64) = 14, correction .5; busBw
	 * 331.2, algbw x .5 = 165.6; latency 8.4 + 2 x (7 x 4.0 + 1 x 14) =
	 * 92.4 us. */
	close_to(cc_nccl_time_us(&c, CC_ALLREDUCE, CC_NCCL_TREE, CC_PROTO_SIMPLE, MIB),
		 92.4 + MIB / (1000 * 165.6 * .5), "tree at 1 MiB");
	/* 64 GiB: log2 = 30, past the table: no correction */
	close_to(cc_nccl_time_us(&c, CC_ALLREDUCE, CC_NCCL_TREE, CC_PROTO_SIMPLE, 64 * GIB),
		 92.4 + 64 * GIB / (1000 * 165.6), "tree at 64 GiB");
}

/* NCCL_NET_OVERHEAD (ns) replaces getNetOverhead's 1 us (Intel) in the
 * ring's steps inside a node on two nodes: with 2000 ns, Simple's 3 x 2 =
 * 6 us beats NVLink's 3.4, so 8.4 + 28 x 6 + 2 x 14 = 204.4 us; with 0 the
 * NVLink hop's 3.4 stands (131.6, as without the variable); LL's 0.6 gives
 * way to 2: 6.6 + 28 x 2 + 2 x 2.7 = 68.0 us.  Out of range: refused. */
static void test_env_net_overhead(void **state)
{
	struct cc_nccl_system s = dgx_h100(2);
	struct cc_nccl_comm c;
	struct cc_nccl_env e;
	char err[200];

	(void)state;
	cc_nccl_env_init(&e);
	set_env(&e, "NCCL_NET_OVERHEAD", "2000");
	init(&c, "2.30.7", &s, &e);
	close_to(c.lat[CC_ALLREDUCE][CC_NCCL_RING][CC_PROTO_SIMPLE], 204.4, "Simple, 2 us");
	close_to(c.lat[CC_ALLREDUCE][CC_NCCL_RING][CC_PROTO_LL], 68.0, "LL, 2 us");
	set_env(&e, "NCCL_NET_OVERHEAD", "0");
	init(&c, "2.30.7", &s, &e);
	close_to(c.lat[CC_ALLREDUCE][CC_NCCL_RING][CC_PROTO_SIMPLE], 131.6, "Simple, 0");
	assert_int_equal(cc_nccl_env_set(&e, "NCCL_NET_OVERHEAD", "-2", err, sizeof(err)), -EINVAL);
	assert_int_equal(cc_nccl_env_set(&e, "NCCL_NET_OVERHEAD", "1000000001", err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(e.net_overhead_ns, 0);
}

/* What changed between releases. */
static void test_release_differences(void **state)
{
	struct cc_nccl_system s = dgx_h100(1), pcie = {
		.arch = CC_GPU_AMPERE, .cpu = CC_CPU_INTEL, .nranks = 2, .nnodes = 1,
		.pci_gbs = 24, .nics_per_node = 1, .nic_gbs = 25,
	};
	struct cc_nccl_comm c;

	(void)state;
	/* Tree/Simple, one DGX H100 node: 2.19 to 2.22 base 0 + 28 us a
	 * hop, 2 x 7 x 28 = 392; 2.23 8.4 + 2 x 7 x 4.0 = 64.4 */
	init(&c, "2.19.4", &s, NULL);
	close_to(c.lat[CC_ALLREDUCE][CC_NCCL_TREE][CC_PROTO_SIMPLE], 392, "2.19 Tree/Simple");
	init(&c, "2.23.4", &s, NULL);
	close_to(c.lat[CC_ALLREDUCE][CC_NCCL_TREE][CC_PROTO_SIMPLE], 64.4, "2.23 Tree/Simple");

	/* Ring/LL, two A100 over PCIe Gen4 (24 GB/s): default intra speeds
	 * 40 30 20 ...: 20, 18, 15 fit one channel, 12 two = 24 = totalBw;
	 * busBw 24, x 1/4 in 2.20, x 1/2 from 2.21 (llMaxBw 87.7 does not
	 * bind), x n/nsteps = 2/2 */
	init(&c, "2.20.5", &pcie, NULL);
	close_to(c.bw[CC_ALLREDUCE][CC_NCCL_RING][CC_PROTO_LL], 6.0, "2.20 Ring/LL");
	assert_false(c.ll128_enabled); /* no NVLink */
	init(&c, "2.21.5", &pcie, NULL);
	close_to(c.bw[CC_ALLREDUCE][CC_NCCL_RING][CC_PROTO_LL], 12.0, "2.21 Ring/LL");

	/* Ring/Simple allreduce on two DGX H100: 2.22 counts 2 x nNodes = 4
	 * network steps, 8.4 + 26 x 3.4 + 4 x 14 = 152.8; 2.23 131.6 */
	s = dgx_h100(2);
	init(&c, "2.22.3", &s, NULL);
	close_to(c.lat[CC_ALLREDUCE][CC_NCCL_RING][CC_PROTO_SIMPLE], 152.8, "2.22 ring latency");
	init(&c, "2.23.4", &s, NULL);
	close_to(c.lat[CC_ALLREDUCE][CC_NCCL_RING][CC_PROTO_SIMPLE], 131.6, "2.23 ring latency");
}

/* NCCL_ALGO, NCCL_PROTO and the channel bounds on one DGX H100 (numbers
 * of test_dgx_h100_one_node). */
static void test_env_choices(void **state)
{
	struct cc_nccl_system s = dgx_h100(1);
	struct cc_nccl_comm c;
	struct cc_nccl_env e;
	struct cc_nccl_choice ch;
	char err[200];

	(void)state;
	cc_nccl_env_init(&e);
	set_env(&e, "NCCL_ALGO", "ring");
	init(&c, "2.30.7", &s, &e);
	ch = choose(&c, CC_ALLREDUCE, GIB);
	assert_int_equal(ch.algo, CC_NCCL_RING);
	assert_int_equal(ch.proto, CC_PROTO_SIMPLE);
	assert_true(cc_nccl_time_us(&c, CC_ALLREDUCE, CC_NCCL_NVLS, CC_PROTO_SIMPLE, GIB) < 0);

	/* without NVLS the ring (algbw 205.7) beats the tree (165.6) */
	set_env(&e, "NCCL_ALGO", "^NVLS");
	init(&c, "2.30.7", &s, &e);
	assert_int_equal(choose(&c, CC_ALLREDUCE, GIB).algo, CC_NCCL_RING);

	/* only allreduce's choice changes */
	set_env(&e, "NCCL_ALGO", "allreduce:tree");
	init(&c, "2.30.7", &s, &e);
	assert_int_equal(choose(&c, CC_ALLREDUCE, GIB).algo, CC_NCCL_TREE);
	assert_int_equal(choose(&c, CC_ALLGATHER, GIB).algo, CC_NCCL_RING);

	/* Simple only: at 8 B NVLS's 25 us beats the ring's 56 */
	cc_nccl_env_init(&e);
	set_env(&e, "NCCL_PROTO", "Simple");
	init(&c, "2.30.7", &s, &e);
	ch = choose(&c, CC_ALLREDUCE, 8);
	assert_int_equal(ch.algo, CC_NCCL_NVLS);
	assert_int_equal(ch.proto, CC_PROTO_SIMPLE);

	/* nothing left: CollNet is off */
	cc_nccl_env_init(&e);
	set_env(&e, "NCCL_ALGO", "CollNetDirect");
	init(&c, "2.30.7", &s, &e);
	assert_int_equal(cc_nccl_choose(&c, CC_ALLREDUCE, GIB, &ch, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "no algorithm/protocol available for allreduce: NCCL_ALGO and "
				 "NCCL_PROTO leave nothing that runs on this system");
	/* up to 2.23 NCCL_ALGO=CollNet* without CollNet re-enables ring and tree */
	init(&c, "2.23.4", &s, &e);
	assert_int_equal(choose(&c, CC_ALLREDUCE, GIB).algo, CC_NCCL_RING);
	/* and 2.19-2.23 keep the ring aside: NCCL_ALGO=NVLS on A100 (no
	 * NVLS) leaves allreduce nothing, which gets the ring back */
	s.arch = CC_GPU_AMPERE;
	s.nvlink_links = 12;
	s.nvlink_gbs = 300;
	set_env(&e, "NCCL_ALGO", "NVLS");
	init(&c, "2.23.4", &s, &e);
	assert_true(c.ring_backup_bw[CC_ALLREDUCE][CC_PROTO_SIMPLE] > 0);
	assert_int_equal(choose(&c, CC_ALLREDUCE, GIB).algo, CC_NCCL_RING);
	init(&c, "2.24.3", &s, &e);
	assert_int_equal(cc_nccl_choose(&c, CC_ALLREDUCE, GIB, &ch, err, sizeof(err)), -ENOENT);

	/* the communicator's 24 channels, bounded */
	s = dgx_h100(1);
	cc_nccl_env_init(&e);
	set_env(&e, "NCCL_MAX_NCHANNELS", "4");
	init(&c, "2.30.7", &s, &e);
	assert_int_equal(c.nchannels, 4);
	assert_int_equal(c.nvls_nchannels, 16); /* NVLS obeys NCCL_MAX_CTAS only */
	set_env(&e, "NCCL_MAX_CTAS", "8");
	init(&c, "2.30.7", &s, &e);
	assert_int_equal(c.nvls_nchannels, 8);
	cc_nccl_env_init(&e);
	set_env(&e, "NCCL_MIN_NCHANNELS", "32");
	init(&c, "2.30.7", &s, &e);
	assert_int_equal(c.nchannels, 32);
	set_env(&e, "NCCL_MIN_NCHANNELS", "100"); /* at most MAXCHANNELS, 64 */
	init(&c, "2.30.7", &s, &e);
	assert_int_equal(c.nchannels, 64);
	set_env(&e, "NCCL_NVLS_NCHANNELS", "4");
	init(&c, "2.30.7", &s, &e);
	assert_int_equal(c.nvls_nchannels, 4);
}

/* topoGetAlgoInfo's per-size reduction, Ring/LL on one DGX H100: 512
 * threads, 8 B a thread x 8 ranks = 64: a channel is worth 512 x 64 =
 * 32 KiB; channels drop while bytes < nc x 32 KiB, then threads halve
 * (while a multiple of 128) while bytes < nc x nt x 64. */
static void test_per_size_channels(void **state)
{
	struct cc_nccl_system s = dgx_h100(1);
	struct cc_nccl_comm c;
	struct cc_nccl_env e;
	struct cc_nccl_choice ch;

	(void)state;
	cc_nccl_env_init(&e);
	set_env(&e, "NCCL_ALGO", "ring");
	set_env(&e, "NCCL_PROTO", "LL");
	init(&c, "2.30.7", &s, &e);
	ch = choose(&c, CC_ALLREDUCE, 64 * 1024); /* 2 x 32 KiB */
	assert_int_equal(ch.nchannels, 2);
	assert_int_equal(ch.nthreads, 512);
	ch = choose(&c, CC_ALLREDUCE, 48 * 1024); /* < 2 x 32 KiB, >= 1 x */
	assert_int_equal(ch.nchannels, 1);
	assert_int_equal(ch.nthreads, 512);
	ch = choose(&c, CC_ALLREDUCE, 16 * 1024); /* 16 KiB = 1 x 256 x 64 */
	assert_int_equal(ch.nchannels, 1);
	assert_int_equal(ch.nthreads, 256);
	ch = choose(&c, CC_ALLREDUCE, 24 * 32 * 1024); /* all 24 channels */
	assert_int_equal(ch.nchannels, 24);
	ch = choose(&c, CC_ALLREDUCE, 24 * 32 * 1024 - 1);
	assert_int_equal(ch.nchannels, 23);

	/* Ring/Simple: 512 threads (12 x 30 > PCI_BW 12) x 64 B, plus the
	 * sync warp */
	set_env(&e, "NCCL_PROTO", "Simple");
	init(&c, "2.30.7", &s, &e);
	ch = choose(&c, CC_ALLREDUCE, 5 * 32 * 1024);
	assert_int_equal(ch.nchannels, 5);
	assert_int_equal(ch.nthreads, 512 + 32);
}

/* CollNet on 12 DGX H100 with SHARP: NCCL_COLLNET_ENABLE=1 and the
 * plugin.  CollNetChain's graph is the tree's, 8 x 48: algbw 8 x 48 x .5 =
 * 192; CollNetDirect has 8 heads at 48: GPU/NIC factor 8/8 = 1, x .85 on
 * Hopper, x .5: 163.2.  NVLS between nodes then runs too. */
static void test_collnet(void **state)
{
	struct cc_nccl_system s = dgx_h100(12);
	struct cc_nccl_comm c;
	struct cc_nccl_env e;

	(void)state;
	s.collnet = true;
	init(&c, "2.30.7", &s, NULL);
	assert_int_equal(c.graph[CC_NCCL_COLLNET_CHAIN].nchannels, 0); /* not enabled */
	cc_nccl_env_init(&e);
	set_env(&e, "NCCL_COLLNET_ENABLE", "1");
	init(&c, "2.30.7", &s, &e);
	assert_int_equal(c.graph[CC_NCCL_COLLNET_DIRECT].nchannels, 8);
	close_to(c.bw[CC_ALLREDUCE][CC_NCCL_COLLNET_CHAIN][CC_PROTO_SIMPLE], 192, "CollNetChain");
	close_to(c.bw[CC_ALLREDUCE][CC_NCCL_COLLNET_DIRECT][CC_PROTO_SIMPLE], 163.2, "CollNetDirect");
	assert_true(c.bw[CC_ALLREDUCE][CC_NCCL_COLLNET_CHAIN][CC_PROTO_LL] == 0);
	assert_true(c.bw[CC_ALLREDUCE][CC_NCCL_NVLS][CC_PROTO_SIMPLE] > 0);
}

static void p2p_peers_is(const struct cc_nccl_comm *c, uint64_t bytes, uint32_t peers,
			 uint32_t per_peer, uint32_t nch, enum cc_proto proto, uint64_t step,
			 uint64_t chunk)
{
	struct cc_nccl_p2p x;

	cc_nccl_p2p(c, bytes, peers, &x);
	if (x.per_peer != per_peer || x.nchannels != nch || x.proto != proto ||
	    x.step_bytes != step || x.chunk_bytes != chunk)
		fail_msg("%llu B: %u per peer, %u channels, %s, step %llu, chunk %llu; want %u, "
			 "%u, %s, %llu, %llu", (unsigned long long)bytes, x.per_peer, x.nchannels,
			 cc_proto_name[x.proto], (unsigned long long)x.step_bytes,
			 (unsigned long long)x.chunk_bytes, per_peer, nch, cc_proto_name[proto],
			 (unsigned long long)step, (unsigned long long)chunk);
}

static void p2p_is(const struct cc_nccl_comm *c, uint64_t bytes, uint32_t per_peer,
		   uint32_t nch, enum cc_proto proto, uint64_t step, uint64_t chunk)
{
	p2p_peers_is(c, bytes, 0, per_peer, nch, proto, step, chunk);
}

static void test_p2p(void **state)
{
	const uint64_t kib = 1024;
	/* the GPU's path to its NIC at 24 GB/s, so that the graph has the
	 * log's 2 channels ("2 coll channels"; the two are on different
	 * sockets) */
	struct cc_nccl_system moc = {
		.arch = CC_GPU_HOPPER, .cpu = CC_CPU_AMD, .nranks = 2, .nnodes = 2,
		.pci_gbs = 24, .nics_per_node = 1, .nic_gbs = 50,
	};
	struct cc_nccl_system one = dgx_h100(1), two = dgx_h100(2), eight = dgx_h100(8);
	struct cc_nccl_comm c;

	(void)state;
	/* MOC, 2.26.2: a network peer gets 2 (2 x 2 ranks is not above 4 x
	 * p2pnChannels 2), its one NIC no more: 2 per peer, as the log; an
	 * op starts from 1 (2 x 2 ranks > 2) and doubles while a part is
	 * over a step (128 KiB); never LL over the network (no LL buffer); a
	 * network step carries a quarter below one step's bytes, half below
	 * eight. */
	init(&c, "2.26.2", &moc, NULL);
	assert_int_equal(c.nchannels, 2);
	p2p_is(&c, GIB, 2, 2, CC_PROTO_SIMPLE, 128 * kib, 128 * kib);
	p2p_is(&c, 256 * kib, 2, 2, CC_PROTO_SIMPLE, 128 * kib, 64 * kib);
	p2p_is(&c, 64 * kib, 2, 1, CC_PROTO_SIMPLE, 128 * kib, 32 * kib);
	p2p_is(&c, 32 * kib, 2, 1, CC_PROTO_SIMPLE, 128 * kib, 32 * kib);
	p2p_is(&c, 0, 2, 1, CC_PROTO_SIMPLE, 128 * kib, 32 * kib);
	/* DGX H100, 2 nodes, 2.30.7: NVLink peers 2 x 18, a network peer
	 * max(1 NIC, ceil(48 GB/s / 14)) = 4, and 4 x ceil(16 / 8) is not
	 * above p2pnChannels 16: 4; an op from 1 (4 x 16 > 16, 2 x 16 too),
	 * doubled to 4 at 1 GiB. */
	init(&c, "2.30.7", &two, NULL);
	assert_int_equal(c.nchannels, 16);
	p2p_is(&c, GIB, 4, 4, CC_PROTO_SIMPLE, 128 * kib, 128 * kib);
	/* 8 nodes: 4 x ceil(64 peers / 8) > 16, 2 x 8 is not: 2 per peer;
	 * with nccl-tests' sendrecv's 2 peers (maxP2pPeers) 4 stay */
	init(&c, "2.30.7", &eight, NULL);
	assert_int_equal(c.nchannels, 16);
	p2p_is(&c, GIB, 2, 2, CC_PROTO_SIMPLE, 128 * kib, 128 * kib);
	p2p_peers_is(&c, GIB, 2, 4, 4, CC_PROTO_SIMPLE, 128 * kib, 128 * kib);
	/* one node, 2.30.7: 36 -> 64, bounded by p2pnChannels 32 (24 rounded
	 * up); an op from 4 (32 x 8 > 32 ... 4 x 8 is not), a part up to 32
	 * NVLink steps of 512 KiB, so 1 GiB takes 32; LL up to the op's own
	 * channels x 16 KiB, those counted with the Simple step (2.29): 256
	 * KiB on 4 is Simple, 16 KiB on 1 is LL, whole steps on NVLink */
	init(&c, "2.30.7", &one, NULL);
	assert_int_equal(c.nchannels, 24);
	p2p_is(&c, GIB, 32, 32, CC_PROTO_SIMPLE, 512 * kib, 512 * kib);
	p2p_is(&c, MIB, 32, 4, CC_PROTO_SIMPLE, 512 * kib, 512 * kib);
	p2p_is(&c, 256 * kib, 32, 4, CC_PROTO_SIMPLE, 512 * kib, 512 * kib);
	p2p_is(&c, 16 * kib, 32, 1, CC_PROTO_LL, 64 * kib, 32 * kib);
	/* one node, 2.26.2: 24 channels, so 32 per peer; LL up to 32 x 16
	 * KiB = 512 KiB, and the op's channels by the LL step (64 KiB): 256
	 * KiB on 4, a part at most 32 steps */
	init(&c, "2.26.2", &one, NULL);
	assert_int_equal(c.nchannels, 24);
	p2p_is(&c, 256 * kib, 32, 4, CC_PROTO_LL, 64 * kib, 32 * kib);
	p2p_is(&c, MIB, 32, 4, CC_PROTO_SIMPLE, 512 * kib, 512 * kib);
}

static void test_refusals(void **state)
{
	struct cc_nccl_system s = dgx_h100(2);
	struct cc_nccl_version v = ver("2.23.4");
	struct cc_nccl_comm c;
	struct cc_nccl_env e;
	struct cc_nccl_choice ch;
	char err[200];

	(void)state;
	cc_nccl_env_init(&e);
	s.nranks = 15;
	assert_int_equal(cc_nccl_comm_init(&c, &v, &s, &e, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "15 ranks do not fill 2 nodes evenly");
	s = dgx_h100(2);
	s.nics_per_node = 0;
	assert_int_equal(cc_nccl_comm_init(&c, &v, &s, &e, err, sizeof(err)), -EINVAL);
	s = dgx_h100(1);
	s.arch = CC_GPU_BLACKWELL;
	assert_int_equal(cc_nccl_comm_init(&c, &v, &s, &e, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "NCCL 2.23 has no Blackwell rules (2.25 on)");
	s.arch = CC_GPU_HOPPER;
	s.nvlink_links = 0;
	assert_int_equal(cc_nccl_comm_init(&c, &v, &s, &e, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "NVLink needs both its links (0) and its rate (450 GB/s), or neither");
	s.nvlink_links = 18;
	s.nranks = 0;
	assert_int_equal(cc_nccl_comm_init(&c, &v, &s, &e, err, sizeof(err)), -EINVAL);
	/* NCCL_ALGO per collective came with 2.24 */
	s = dgx_h100(1);
	set_env(&e, "NCCL_ALGO", "allreduce:ring");
	assert_int_equal(cc_nccl_comm_init(&c, &v, &s, &e, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "NCCL 2.23 takes NCCL_ALGO and NCCL_PROTO for all collectives at "
				 "once (per collective from 2.24)");
	init(&c, "2.24.3", &s, &e);
	assert_int_equal(cc_nccl_choose(&c, CC_ALLTOALL, GIB, &ch, err, sizeof(err)), -ENOENT);
	/* one rank: Ring/Simple, at no cost */
	s.nranks = 1;
	init(&c, "2.30.7", &s, NULL);
	ch = choose(&c, CC_ALLREDUCE, GIB);
	assert_int_equal(ch.algo, CC_NCCL_RING);
	assert_int_equal(ch.proto, CC_PROTO_SIMPLE);
	assert_int_equal(ch.nchannels, 1);
	assert_true(ch.time_us == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_and_versions),
		cmocka_unit_test(test_env_syntax),
		cmocka_unit_test(test_env_gdr_flush),
		cmocka_unit_test(test_env_net_overhead),
		cmocka_unit_test(test_dgx_h100_one_node),
		cmocka_unit_test(test_b200_one_node),
		cmocka_unit_test(test_dgx_h100_two_nodes),
		cmocka_unit_test(test_release_differences),
		cmocka_unit_test(test_env_choices),
		cmocka_unit_test(test_per_size_channels),
		cmocka_unit_test(test_collnet),
		cmocka_unit_test(test_p2p),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
