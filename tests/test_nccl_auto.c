/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_nccl_auto.c — `auto`: NCCL's choice applied to a run
 * (core/nccl_auto.h), a network read as NCCL's topology sees it
 * (sim/nccl_system.h), and `auto` in scenarios and on the command line.
 *
 *   - at 8 B on two DGX H100 nodes NCCL picks the tree with LL: its latency
 *     by hand from tuning.cc (2.30) is 6.8 + 2 x (7 x 0.6 + 1 x 5.0) =
 *     25.2 us, below the ring's 6.6 + 28 x 1.0 + 2 x 2.7 = 40.0 us (the
 *     ring's intra-node hop takes the 1 us network overhead, net ones the
 *     NET Ring LL 2.7 us); the size runs as cclab's tree with LL, in rank
 *     order (rail order is the ring's);
 *   - at 1 GiB NCCL picks NVLSTree, which runs as cclab's nvlstree on
 *     NCCL's 16 channels;
 *   - on eight one-GPU nodes NCCL picks PAT for a 1 MiB all-gather, which
 *     cclab does not build: the size runs the ring with the protocol NCCL's
 *     own estimate finds fastest, recomputed here from cc_nccl_time_us(),
 *     and says so;
 *   - NCCL_ALGO=Ring holds every size to the ring; NCCL_ALGO=NVLS on
 *     one-GPU nodes leaves nothing: -ENOENT, and a scenario refuses it at
 *     its `env` key;
 *   - the railopt network of 2 x 8 H100 under ib-ndr reads as 2 nodes of 8
 *     GPUs, 8 NICs of 50 GB/s each, 18 NVLinks, InfiniBand, GDR;
 *   - NCCL's variables that change nothing modelled are taken and ignored;
 *   - `cclab sim -A auto` notes each row's choice; `cclab check -A auto`
 *     is refused (exit 2) as it has no fabric to choose on. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tests/files.h"
#include "tests/nccl_systems.h"
#include "tests/run_cclab.h"

#include "core/nccl_auto.h"
#include "sim/nccl_system.h"
#include "sim/scenario.h"

#define GIB (1ull << 30)

static int setup(void **state)
{
	(void)state;
	return run_cclab_begin("auto");
}

static int teardown(void **state)
{
	(void)state;
	return run_cclab_end();
}

/* a auto in everything, for sys and env. */
static void auto_all(struct cc_nccl_auto *a, const struct cc_nccl_system *sys)
{
	char err[256];

	a->algo = a->proto = a->channels = true;
	if (cc_nccl_comm_init(&a->comm, &a->version, sys, &a->env, err, sizeof(err)))
		fail_msg("comm_init: %s", err);
}

static struct cc_coll_params allreduce_params(uint32_t nranks, uint32_t rpn)
{
	struct cc_coll_params p;

	cc_coll_params_default(&p);
	p.coll = CC_ALLREDUCE;
	p.nranks = nranks;
	p.ranks_per_node = rpn;
	p.ring_order = CC_RING_ORDER_RAIL;
	return p;
}

static void small_size_runs_nccls_tree_ll(void **state)
{
	struct cc_nccl_system sys = dgx_h100(2);
	struct cc_nccl_auto a;
	struct cc_coll_params p = allreduce_params(16, 8);
	struct cc_nccl_pick pick;
	char err[256], t[CC_NCCL_PICK_TEXT_LEN];

	(void)state;
	cc_nccl_auto_init(&a);
	auto_all(&a, &sys);
	assert_int_equal(cc_nccl_auto_apply(&a, 8, &p, &pick, err, sizeof(err)), 0);
	assert_int_equal(pick.nccl.algo, CC_NCCL_TREE);
	assert_int_equal(pick.nccl.proto, CC_PROTO_LL);
	/* 8 B plus a negligible 8 / (1000 x bw) */
	assert_true(fabs(pick.nccl.time_us - 25.2) < 1e-3);
	assert_false(pick.stand_in);
	assert_int_equal(p.algo, CC_ALGO_TREE);
	assert_int_equal(p.proto, CC_PROTO_LL);
	assert_int_equal(p.nchannels, pick.nccl.nchannels);
	assert_int_equal(p.ring_order, CC_RING_ORDER_RANK);
	snprintf(err, sizeof(err), "Tree/LL %uch", pick.nccl.nchannels);
	assert_string_equal(cc_nccl_pick_text(&pick, t, sizeof(t)), err);
	/* the ring's latency, the runner-up, by hand */
	assert_true(fabs(cc_nccl_time_us(&a.comm, CC_ALLREDUCE, CC_NCCL_RING, CC_PROTO_LL, 0) -
			 40.0) < 1e-9);
}

/* NCCL runs one tree per channel, the first half of the communicator's
 * channels on tree 0 and their duplicates on tree 1 (src/graph/connect.cc);
 * cclab's tree allreduce takes channel pairs: NCCL's 4 channels at 16 KiB
 * on 2 x 8 H100 are 2 pairs, 4 trees as NCCL's, whose chunk rule counts
 * them.  An odd count rounds up; the ring, a rooted tree and
 * point-to-point keep NCCL's count.  What counts is the algorithm that
 * runs: a ring given with auto channels keeps NCCL's 4 where NCCL picks
 * the tree (below, command_line_auto). */
static void tree_channels_are_pairs(void **state)
{
	struct cc_nccl_system sys = dgx_h100(2);
	struct cc_nccl_auto a;
	struct cc_coll_params p = allreduce_params(16, 8);
	struct cc_nccl_pick pick;
	char err[256], t[CC_NCCL_PICK_TEXT_LEN];

	(void)state;
	cc_nccl_auto_init(&a);
	auto_all(&a, &sys);
	assert_int_equal(cc_nccl_auto_apply(&a, 16384, &p, &pick, err, sizeof(err)), 0);
	assert_int_equal(pick.nccl.algo, CC_NCCL_TREE);
	assert_int_equal(pick.nchannels, 4);
	assert_int_equal(p.nchannels, 2);
	assert_string_equal(cc_nccl_pick_text(&pick, t, sizeof(t)), "Tree/LL 4ch");
	for (uint32_t n = 1; n <= 5; n++) {
		assert_int_equal(cc_nccl_channels_as(CC_ALGO_TREE, CC_ALLREDUCE, n), (n + 1) / 2);
		assert_int_equal(cc_nccl_channels_as(CC_ALGO_TREE, CC_BROADCAST, n), n);
		assert_int_equal(cc_nccl_channels_as(CC_ALGO_RING, CC_ALLREDUCE, n), n);
		assert_int_equal(cc_nccl_channels_as(CC_ALGO_DIRECT, CC_ALLTOALL, n), n);
	}
}

static void nvlstree_runs_as_nvlstree(void **state)
{
	struct cc_nccl_system sys = dgx_h100(2);
	struct cc_nccl_auto a;
	struct cc_coll_params p = allreduce_params(16, 8);
	struct cc_nccl_pick pick;
	char err[256], t[CC_NCCL_PICK_TEXT_LEN];

	(void)state;
	cc_nccl_auto_init(&a);
	auto_all(&a, &sys);
	assert_int_equal(cc_nccl_auto_apply(&a, GIB, &p, &pick, err, sizeof(err)), 0);
	assert_int_equal(pick.nccl.algo, CC_NCCL_NVLS_TREE);
	assert_false(pick.stand_in);
	assert_int_equal(p.algo, CC_ALGO_NVLS_TREE);
	assert_int_equal(p.proto, CC_PROTO_SIMPLE);
	assert_int_equal(p.nchannels, 16); /* NVLS_NCHANNELS_SM90 */
	assert_int_equal(p.ring_order, CC_RING_ORDER_RANK);
	assert_string_equal(cc_nccl_pick_text(&pick, t, sizeof(t)), "NVLSTree/Simple 16ch");
}

/* PAT, which cclab does not build, on eight one-GPU nodes: the size runs
 * the ring (the only algorithm cclab has for all-gather) with the protocol
 * NCCL's own estimate finds fastest, recomputed here from
 * cc_nccl_time_us(), and says so. */
static void pat_runs_the_best_cclab_builds(void **state)
{
	struct cc_nccl_system sys = {
		.arch = CC_GPU_HOPPER, .cpu = CC_CPU_INTEL, .nranks = 8, .nnodes = 8,
		.pci_gbs = 48, .nics_per_node = 1, .nic_gbs = 50, .gdr = true, .ib = true,
	};
	struct cc_nccl_auto a;
	struct cc_coll_params p = allreduce_params(8, 1);
	struct cc_nccl_pick pick;
	char err[256], t[CC_NCCL_PICK_TEXT_LEN], want[CC_NCCL_PICK_TEXT_LEN];
	double best = INFINITY;
	enum cc_proto bp = CC_PROTO_SIMPLE;
	const uint64_t bytes = 1u << 20;

	(void)state;
	p.coll = CC_ALLGATHER;
	cc_nccl_auto_init(&a);
	auto_all(&a, &sys);
	assert_int_equal(cc_nccl_auto_apply(&a, bytes, &p, &pick, err, sizeof(err)), 0);
	assert_int_equal(pick.nccl.algo, CC_NCCL_PAT);
	assert_true(pick.stand_in);
	for (int q = 0; q < CC_PROTO_COUNT; q++) {
		double x = cc_nccl_time_us(&a.comm, CC_ALLGATHER, CC_NCCL_RING, (enum cc_proto)q,
					   bytes);

		if (x >= 0 && x < best) {
			best = x;
			bp = (enum cc_proto)q;
		}
	}
	assert_int_equal(pick.algo, CC_NCCL_RING);
	assert_int_equal(pick.proto, bp);
	assert_int_equal(p.algo, CC_ALGO_RING);
	snprintf(want, sizeof(want), "PAT/Simple %uch; ran Ring/%s %uch (PAT not modelled)",
		 pick.nccl.nchannels,
		 bp == CC_PROTO_SIMPLE ? "Simple" : bp == CC_PROTO_LL ? "LL" : "LL128",
		 pick.nchannels);
	assert_string_equal(cc_nccl_pick_text(&pick, t, sizeof(t)), want);
}

static void env_narrows_the_choice(void **state)
{
	struct cc_nccl_system sys = dgx_h100(2);
	struct cc_nccl_system star = {
		.arch = CC_GPU_HOPPER, .cpu = CC_CPU_INTEL, .nranks = 4, .nnodes = 4,
		.pci_gbs = 48, .nics_per_node = 1, .nic_gbs = 50, .gdr = true, .ib = true,
	};
	struct cc_nccl_auto a;
	struct cc_coll_params p = allreduce_params(16, 8);
	struct cc_nccl_pick pick;
	char err[256];

	(void)state;
	cc_nccl_auto_init(&a);
	assert_int_equal(cc_nccl_env_set(&a.env, "NCCL_ALGO", "Ring", err, sizeof(err)), 0);
	auto_all(&a, &sys);
	for (uint64_t size = 8; size <= GIB; size *= 16) {
		assert_int_equal(cc_nccl_auto_apply(&a, size, &p, &pick, err, sizeof(err)), 0);
		assert_int_equal(pick.nccl.algo, CC_NCCL_RING);
		assert_int_equal(p.algo, CC_ALGO_RING);
	}
	/* NVLS alone on one-GPU nodes (no NVSwitch): nothing left */
	cc_nccl_auto_init(&a);
	assert_int_equal(cc_nccl_env_set(&a.env, "NCCL_ALGO", "NVLS", err, sizeof(err)), 0);
	auto_all(&a, &star);
	p = allreduce_params(4, 1);
	assert_int_equal(cc_nccl_auto_apply(&a, 8, &p, &pick, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "NCCL_ALGO"));
	/* variables NCCL reads that move nothing modelled */
	assert_true(cc_nccl_env_inert("NCCL_DEBUG"));
	assert_true(cc_nccl_env_inert("NCCL_IB_HCA"));
	assert_false(cc_nccl_env_inert("NCCL_ALGO"));
	assert_false(cc_nccl_env_inert("NCCL_ALOG"));
}

/* A NIC on the other CPU socket from its GPU (PATH_SYS): every channel of
 * the node crosses the link between the sockets, as NCCL's search counts
 * it.  The MOC run's (2 x 1 H100, AMD, 400G RoCE, NCCL 2.26.2): the ring's
 * speed is the first of sm90's inter-node speeds under AMD_BW's 16 GB/s,
 * 15, one channel of it fits, no duplication under 25 GB/s, and
 * ncclTopoPostset doubles it: the log's "2 coll channels".  On the NIC's
 * socket, 48 GB/s channels of the 50 GB/s port, duplicated: 4. */
static void nic_on_the_other_socket(void **state)
{
	struct cc_nccl_system sys = {
		.arch = CC_GPU_HOPPER, .cpu = CC_CPU_AMD, .nranks = 2, .nnodes = 2,
		.pci_gbs = 63, .nics_per_node = 1, .nic_gbs = 50, .ib = false,
	};
	struct cc_nccl_auto a;
	char err[256];

	(void)state;
	cc_nccl_auto_init(&a);
	assert_int_equal(cc_nccl_version_parse("2.26.2", &a.version, err, sizeof(err)), 0);
	auto_all(&a, &sys);
	assert_int_equal(a.comm.graph[CC_NCCL_RING].nchannels, 2);
	assert_true(a.comm.graph[CC_NCCL_RING].bw_inter == 24.0);
	assert_int_equal(a.comm.nchannels, 4);

	sys.sys_gbs = 16;
	cc_nccl_auto_init(&a);
	assert_int_equal(cc_nccl_version_parse("2.26.2", &a.version, err, sizeof(err)), 0);
	auto_all(&a, &sys);
	assert_int_equal(a.comm.graph[CC_NCCL_RING].nchannels, 1);
	assert_true(a.comm.graph[CC_NCCL_RING].bw_inter == 15.0);
	assert_int_equal(a.comm.nchannels, 2);
}

/* The fabric's host.nic_socket and link reach the system NCCL sees. */
static void nic_socket_from_the_fabric(void **state)
{
	struct sim_net net;
	struct sim_params f;
	struct cc_nccl_system sys;
	char err[SIM_NET_ERR_LEN];

	(void)state;
	assert_int_equal(sim_params_preset("roce-400g", &f), 0);
	sim_net_init(&net, "star");
	assert_int_equal(sim_net_star(&net, 2, err, sizeof(err)), 0);
	assert_int_equal(sim_nccl_system(&net, &f, &sys, err, sizeof(err)), 0);
	assert_true(sys.sys_gbs == 0);
	f.host.nic_socket = SIM_NIC_SOCKET_REMOTE;
	assert_int_equal(sim_nccl_system(&net, &f, &sys, err, sizeof(err)), 0);
	assert_true(sys.sys_gbs == 22.0); /* the H100 preset's Sapphire Rapids */
	sim_net_free(&net);
}

static void railopt_reads_as_dgx_nodes(void **state)
{
	struct sim_net net;
	struct sim_params f;
	struct cc_nccl_system sys;
	char err[SIM_NET_ERR_LEN];

	(void)state;
	assert_int_equal(sim_params_preset("ib-ndr", &f), 0);
	sim_net_init(&net, "railopt");
	assert_int_equal(sim_net_railopt(&net, 2, 8, 1, err, sizeof(err)), 0);
	assert_int_equal(sim_nccl_system(&net, &f, &sys, err, sizeof(err)), 0);
	assert_int_equal(sys.arch, CC_GPU_HOPPER);
	assert_int_equal(sys.cpu, CC_CPU_INTEL);
	assert_int_equal(sys.nranks, 16);
	assert_int_equal(sys.nnodes, 2);
	assert_true(sys.nvswitch);
	assert_int_equal(sys.nvlink_links, 18);
	assert_true(sys.nvlink_gbs == 450.0);        /* 3600 Gb/s */
	assert_int_equal(sys.nics_per_node, 8);
	assert_true(sys.nic_gbs == 50.0);            /* 400 Gb/s */
	assert_true(sys.ib);
	assert_true(sys.gdr);
	assert_false(sys.collnet);
	sim_net_free(&net);
}

/* A scenario with algorithm: auto: the protocol and channels follow, the
 * env's names NCCL reads but cclab does not model pass, the resolved
 * scenario records it all. */
static void scenario_auto(void **state)
{
	char path[128];
	struct cc_scenario sc;
	struct cy_error err;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/auto.yaml", tmpdir);
	assert_non_null(f = fopen(path, "w"));
	fputs("topology: {generator: railopt, nodes: 2, gpus_per_node: 8, spines: 1}\n"
	      "fabric: {preset: ib-ndr}\n"
	      "algorithm: auto\n"
	      "nccl_version: 2.23.4\n"
	      "env: {NCCL_DEBUG: INFO, NCCL_IB_HCA: mlx5, NCCL_ALGO: Ring}\n"
	      "sizes: 8\n", f);
	fclose(f);
	if (cc_scenario_load(path, NULL, 0, &sc, &err))
		fail_msg("%s", err.msg);
	assert_true(sc.nccl.algo && sc.nccl.proto && sc.nccl.channels);
	assert_int_equal(sc.nccl.version.minor, 23);
	assert_int_equal(sc.nccl.version.patch, 4);
	assert_int_equal(sc.p.ring_order, CC_RING_ORDER_RAIL);
	assert_int_equal(sc.p.nchannels, sc.nccl.comm.nchannels);
	cc_scenario_free(&sc);
}

static void command_line_auto(void **state)
{
	struct run r;

	(void)state;
	need_cclab();
	r = run_cclab("sim -n 4 -b 8 -e 8M -f 1024 -A auto --check 0");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "# auto: algorithm protocol channels NCCL 2.30.7"));
	/* every row notes NCCL's choice */
	assert_int_equal(count_substr(r.out, "ch\n"), 3);
	run_free(&r);
	r = run_cclab("sim -n 4 -b 8 -A auto --env NCCL_ALGO=Ring --env NCCL_DEBUG=INFO --check 0");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "# Ring/"));
	run_free(&r);
	r = run_cclab("sim -n 4 -b 8 -A auto --env NCCL_ALOG=Ring");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "NCCL_ALOG is not a variable cclab models"));
	run_free(&r);
	/* the CSV names what ran: the channels given, not NCCL's, where
	 * only the protocol is auto; the tree's pairs where channels are */
	r = run_cclab("sim -n 4 -A ring -P auto --channels 3 -b 1M --check 0 --csv '%s/c.csv'",
		      tmpdir);
	assert_int_equal(r.status, 0);
	run_free(&r);
	char *csv = text_of_in_tmpdir("c.csv");
	assert_non_null(strstr(csv, ",ring,ll128,3,rank\n"));
	free(csv);
	r = run_cclab("sim -n 16 --ranks-per-node 8 --topology railopt --fabric ib-ndr -A auto "
		      "-b 16K --check 0 --csv '%s/t.csv'", tmpdir);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "# Tree/LL 4ch"));
	run_free(&r);
	csv = text_of_in_tmpdir("t.csv");
	assert_non_null(strstr(csv, ",tree,ll,2,rank\n"));
	free(csv);
	r = run_cclab("sim -n 16 --ranks-per-node 8 --topology railopt --fabric ib-ndr -A ring "
		      "-P auto --channels auto -b 16K --check 0 --csv '%s/r.csv'", tmpdir);
	assert_int_equal(r.status, 0);
	/* NCCL's choice under the ring, as NCCL_ALGO=Ring gives it: 1 channel
	 * at 16 KiB (the thread threshold), not the Tree/LL 4ch it picks
	 * free, which ran on the ring's 4 */
	assert_non_null(strstr(r.out, "# Ring/LL 1ch\n"));
	run_free(&r);
	csv = text_of_in_tmpdir("r.csv");
	assert_non_null(strstr(csv, ",ring,ll,1,"));
	free(csv);
	r = run_cclab("check -n 4 -b 8 -A auto");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "auto (NCCL's choice) needs the fabric and topology"));
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(small_size_runs_nccls_tree_ll),
		cmocka_unit_test(tree_channels_are_pairs),
		cmocka_unit_test(nvlstree_runs_as_nvlstree),
		cmocka_unit_test(pat_runs_the_best_cclab_builds),
		cmocka_unit_test(env_narrows_the_choice),
		cmocka_unit_test(nic_on_the_other_socket),
		cmocka_unit_test(nic_socket_from_the_fabric),
		cmocka_unit_test(railopt_reads_as_dgx_nodes),
		cmocka_unit_test(scenario_auto),
		cmocka_unit_test(command_line_auto),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
