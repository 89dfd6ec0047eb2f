/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_nvls_tree.c — NVLSTree (core/nvls.c with core/nvls_tree.c):
 *   - #wrong 0 from the data executor on 2 to 5 nodes of 2, 3, 4 and 8
 *     ranks, the dtypes and redops the NVSwitch reduces, awkward sizes,
 *     one to three channels (both trees), slots smaller than a chunk
 *     (several slices a chunk), several interleavings;
 *   - NCCL's chunk rule, size by size (calcCollChunking, NVLS_TREE);
 *   - what it refuses: one node, nodes that do not tile the ranks, a rank
 *     per node, LL, host buffers, a reduction the switch has not; a
 *     topology without a host per node;
 *   - the simulator on a rail-optimised network of NVSwitch hosts: #wrong
 *     0 (with GPUDirect RDMA and without: the trees staged in host memory),
 *     and each rank's NIC sending exactly its chunks up and down the trees
 *     (and a clear-to-send per slice it receives), nothing over the spine;
 *     the same run twice;
 *   - `cclab sim -A nvlstree`: railopt by default, and what it refuses. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/files.h"
#include "tests/run_cclab.h"

#include "core/algo.h"
#include "core/algo_int.h"
#include "core/conn.h"
#include "core/exec_data.h"
#include "sim/bound.h"
#include "sim/exec.h"
#include "sim/net.h"
#include "sim/params.h"
#include "sim/physics.h"
#include "sim/topo.h"

static struct cc_coll_params params(uint32_t nodes, uint32_t g, uint64_t count, enum cc_dtype d,
				    enum cc_redop op)
{
	struct cc_coll_params p;

	cc_coll_params_default(&p);
	p.algo = CC_ALGO_NVLS_TREE;
	p.coll = CC_ALLREDUCE;
	p.nranks = nodes * g;
	p.ranks_per_node = g;
	p.count = count;
	p.dtype = d;
	p.redop = op;
	cc_coll_params_fill(&p, 0, 0);
	p.chunk_bytes = cc_coll_chunk_bytes(&p);
	return p;
}

/* NCCL's chunk again, for p's channels and count as they are now. */
static void rechunk(struct cc_coll_params *p)
{
	p->chunk_bytes = cc_coll_chunk_bytes(p);
}

static void data_checked(const struct cc_coll_params *p, uint64_t order)
{
	char err[256];
	struct cc_schedule *s = cc_build(p, err, sizeof(err));
	struct cc_data_opts o = { .seed = p->count * 5 + p->nranks, .order_seed = order };
	struct cc_data_result res;

	if (!s)
		fail_msg("build: %s", err);
	assert_int_equal(cc_data_run(s, &o, &res), 0);
	if (res.err.status != CC_RUN_OK || res.wrong)
		fail_msg("%u x %u count=%llu %s %s chunk %llu slot %llu x %u, %u channels, order "
			 "%llu: %llu wrong, %s", p->nranks / p->ranks_per_node, p->ranks_per_node,
			 (unsigned long long)p->count, cc_dtype_name[p->dtype],
			 cc_redop_name[p->redop], (unsigned long long)p->chunk_bytes,
			 (unsigned long long)p->slot_bytes, p->nslots, p->nchannels,
			 (unsigned long long)order, (unsigned long long)res.wrong, res.err.msg);
	cc_data_result_free(&res);
	cc_schedule_free(s);
}

static void test_correct(void **state)
{
	static const struct {
		uint32_t nodes, g;
	} shapes[] = { { 2, 2 }, { 3, 2 }, { 2, 3 }, { 4, 4 }, { 5, 2 }, { 2, 8 } };
	static const struct {
		enum cc_dtype d;
		enum cc_redop op;
	} ops[] = { { CC_FLOAT32, CC_SUM }, { CC_INT32, CC_MAX }, { CC_BFLOAT16, CC_MIN },
		    { CC_FLOAT64, CC_SUM } };

	(void)state;
	for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++)
		for (uint64_t n = 1; n < 300000; n = n * 29 + 3) {
			struct cc_coll_params p = params(shapes[si].nodes, shapes[si].g, n,
							 ops[n % 4].d, ops[n % 4].op);

			p.nchannels = (uint32_t)(n % 3) + 1;
			rechunk(&p);
			data_checked(&p, 0);
			data_checked(&p, 7 + n);
			/* slots of 4 KiB, 3 of them: chunks of several slices,
			 * every slot reused */
			p.slot_bytes = 4096;
			p.nslots = 3;
			p.chunk_bytes = 16384;
			p.chunk_auto = false;
			data_checked(&p, 0);
		}
}

/* NCCL's rule: 128 KiB (64 KiB from 4 nodes on), 64 KiB below 4 x and
 * 32 KiB below 1 x (channels x heads x chunk) bytes. */
/* Each reduce and copy names its thread group's warps, NCCL's
 * (src/device/all_reduce.h, RunWorkColl<..., NCCL_ALGO_NVLS_TREE>): below
 * a tree's root, scatter 6, gather 5, reduce (group 2) 5, broadcast
 * (group 3) 4; at the root (no broadcast group: its sends down run on
 * its reduce warps) scatter 8, gather 7, reduce 5.  On 2 nodes each
 * channel's tree has one root node and one below it. */
static void test_warps(void **state)
{
	struct cc_coll_params p = params(2, 8, 1u << 20, CC_FLOAT32, CC_SUM);
	char err[256];
	struct cc_schedule *s;
	uint32_t roots = 0, below = 0;

	(void)state;
	p.nchannels = 2;
	rechunk(&p);
	s = cc_build(&p, err, sizeof(err));
	assert_non_null(s);
	for (uint32_t r = 0; r < p.nranks; r++)
		for (uint32_t ch = 0; ch < p.nchannels; ch++) {
			const struct cc_rank_sched *rs = &s->ranks[r];
			bool has_up = false;

			for (uint32_t i = 0; i < rs->nops; i++)
				has_up |= rs->ops[i].tag.channel == ch && rs->ops[i].tag.group == 3;
			for (uint32_t i = 0; i < rs->nops; i++) {
				const struct cc_op *o = &rs->ops[i];
				uint8_t want;

				if ((o->kind != CC_OP_REDUCE && o->kind != CC_OP_COPY) ||
				    o->tag.channel != ch)
					continue;
				switch (o->tag.group) {
				case 0: want = has_up ? 6 : 8; break;
				case 1: want = has_up ? 5 : 7; break;
				case 2: want = 5; break;
				default: want = 4; break;
				}
				assert_int_equal(o->u.calc.warps, want);
			}
			roots += !has_up;
			below += has_up;
		}
	assert_int_equal(roots, 16);
	assert_int_equal(below, 16);
	cc_schedule_free(s);
}

static void test_chunk(void **state)
{
	static const struct {
		uint32_t nodes;
		uint64_t bytes, want;
	} cases[] = {
		{ 2, 1u << 20, 32768 },  { 2, 8u << 20, 65536 },   { 2, 63u << 20, 65536 },
		{ 2, 64u << 20, 131072 }, { 2, 1u << 30, 131072 }, { 4, 1u << 30, 65536 },
		{ 4, 8u << 20, 65536 },  { 4, 4u << 20, 32768 },   { 8, 64u << 20, 65536 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cc_coll_params p = params(cases[i].nodes, 8, cases[i].bytes / 4, CC_FLOAT32,
						 CC_SUM);

		p.nchannels = 16;
		assert_true(cc_coll_chunk_per_size(&p));
		assert_int_equal(cc_nvls_chunk_bytes(&p), cases[i].want);
	}
}

/* NCCL_NVLS_CHUNKSIZE and NCCL_NVLSTREE_MAX_CHUNKSIZE (cc_coll_params'
 * nvls_chunk_bytes, nvlstree_max_chunk_bytes): the chunk before the size
 * rules, which then take a larger one down to 256 KiB below 32 x and
 * 128 KiB below 16 x (channels x heads x chunk) bytes. */
static void test_chunk_env(void **state)
{
	static const struct {
		uint32_t nodes;
		uint64_t nvls, most, bytes, want;
	} cases[] = {
		{ 2, 512u << 10, 0, 8ull << 30, 512u << 10 },   /* 16 ch x 8 x 512 KiB x 32 = 2 GiB */
		{ 2, 512u << 10, 0, 1u << 30, 262144 },
		{ 2, 512u << 10, 0, 256u << 20, 131072 },
		{ 4, 512u << 10, 0, 8ull << 30, 65536 },        /* the 4-node default cap */
		{ 4, 512u << 10, 1u << 20, 8ull << 30, 512u << 10 },
		{ 2, 0, 49152, 1u << 30, 49152 },                /* the cap alone */
		{ 2, 65536, 0, 1u << 30, 65536 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cc_coll_params p = params(cases[i].nodes, 8, cases[i].bytes / 4, CC_FLOAT32,
						 CC_SUM);

		p.nchannels = 16;
		p.nvls_chunk_bytes = cases[i].nvls;
		p.nvlstree_max_chunk_bytes = cases[i].most;
		if (cc_nvls_chunk_bytes(&p) != cases[i].want)
			fail_msg("case %zu: chunk %llu, want %llu", i,
				 (unsigned long long)cc_nvls_chunk_bytes(&p),
				 (unsigned long long)cases[i].want);
	}
}

static void expect_refused(struct cc_coll_params p, enum cc_param want, const char *what)
{
	char err[400];
	enum cc_param field;

	assert_int_equal(cc_params_check(&p, &field, err, sizeof(err)), -EINVAL);
	if (!strstr(err, what))
		fail_msg("refusal \"%s\" does not say \"%s\"", err, what);
	assert_int_equal(field, want);
}

static void test_refusals(void **state)
{
	struct cc_coll_params p = params(2, 4, 1024, CC_FLOAT32, CC_SUM);
	struct sim_net node;
	char err[400];

	(void)state;
	p.ranks_per_node = 8;
	expect_refused(p, CC_PARAM_RANKS_PER_NODE, "at least two nodes");
	p.ranks_per_node = 3;
	expect_refused(p, CC_PARAM_RANKS_PER_NODE, "at least two nodes");
	p.ranks_per_node = 1;
	expect_refused(p, CC_PARAM_RANKS_PER_NODE, "at least two nodes");
	p = params(2, 4, 1024, CC_FLOAT32, CC_SUM);
	p.proto = CC_PROTO_LL;
	expect_refused(p, CC_PARAM_ALGO, "Simple protocol only");
	p = params(2, 4, 1024, CC_FLOAT32, CC_SUM);
	p.mem = CC_MEM_HOST;
	expect_refused(p, CC_PARAM_ALGO, "GPU memory");
	p = params(2, 4, 1024, CC_FLOAT32, CC_PROD);
	expect_refused(p, CC_PARAM_ALGO, "nvlstree: the NVSwitch does not reduce float with prod");
	/* one host holding every node: the trees would not cross a network */
	p = params(2, 4, 1024, CC_FLOAT32, CC_SUM);
	sim_net_init(&node, NULL);
	assert_int_equal(sim_topo_net_make(&node, SIM_TOPO_NODE, 8, err, sizeof(err)), 0);
	assert_false(sim_topo_mcast_ok(&node, &p, err, sizeof(err)));
	assert_non_null(strstr(err, "ranks 4..7 of the topology 'node' share a host"));
	sim_net_free(&node);
}

/* ---- the simulator ---- */

static void railopt(struct sim_net *net, uint32_t nodes, uint32_t g)
{
	char err[200];

	sim_net_init(net, NULL);
	assert_int_equal(sim_net_railopt(net, nodes, g, 1, err, sizeof(err)), 0);
}

static void run_sim(const struct cc_coll_params *p, const char *fab, bool check,
		    struct cc_sim_result *res, struct sim_net *net, struct cc_schedule **keep)
{
	char err[256];
	struct sim_params f;
	struct cc_schedule *s = cc_build(p, err, sizeof(err));
	struct cc_sim_opts o = { .fabric = &f, .net = net, .seed = 3, .check = check };

	if (!s)
		fail_msg("build: %s", err);
	assert_int_equal(sim_params_preset(fab, &f), 0);
	assert_true(sim_topo_mcast_ok(net, p, err, sizeof(err)));
	assert_int_equal(cc_sim_run(s, &o, res), 0);
	if (res->err.status != CC_RUN_OK || (check && res->wrong))
		fail_msg("%u ranks count=%llu on %s: %llu wrong, %s", p->nranks,
			 (unsigned long long)p->count, fab, (unsigned long long)res->wrong,
			 res->err.msg);
	if (!sim_physical(net, &f, p, p->count * cc_dtype_size(p->dtype), res->time_ps,
			  sim_bound_ps(s, &f, net), err, sizeof(err)))
		fail_msg("%u ranks count=%llu on %s: %s", p->nranks, (unsigned long long)p->count,
			 fab, err);
	if (keep)
		*keep = s;
	else
		cc_schedule_free(s);
}

static void test_sim_correct(void **state)
{
	static const char *const fabs[] = { "ideal", "ib-ndr", "roce-400g" };

	(void)state;
	for (size_t fi = 0; fi < 3; fi++)
		for (uint32_t nodes = 2; nodes <= 4; nodes++) {
			struct sim_net net;
			uint32_t g = nodes == 3 ? 2 : 4;

			railopt(&net, nodes, g);
			for (uint64_t n = 1; n < 200000; n = n * 41 + 7) {
				struct cc_coll_params p = params(nodes, g, n,
								 fi ? CC_BFLOAT16 : CC_INT32,
								 fi == 1 ? CC_MAX : CC_SUM);
				struct cc_sim_result res;

				p.nchannels = (uint32_t)(n % 3) + 1;
				rechunk(&p);
				run_sim(&p, fabs[fi], true, &res, &net, NULL);
				cc_sim_result_free(&res);
			}
			sim_net_free(&net);
		}
}

/* Without GPUDirect RDMA the trees' connections stage in host memory
 * (NCCL's net transport) while NVLS keeps its multicast buffers and the
 * user buffers in GPU memory, which the NIC never touches: the run is not
 * refused (EFAULT) and is right, on every transport.  (send_recv was
 * refused: a SEND's unused remote_mr, 0, was taken for the peer's input
 * MR, over GPU memory.) */
static void test_sim_host_staging(void **state)
{
	struct sim_params f;
	struct sim_net net;

	(void)state;
	assert_int_equal(sim_params_preset("ib-ndr", &f), 0);
	f.host.gpu_dma = SIM_GPU_DMA_HOST_STAGING;
	railopt(&net, 3, 4);
	for (int t = 0; t < CC_TRANSPORT_COUNT; t++) {
		struct cc_coll_params p = params(3, 4, 100003, CC_FLOAT32, CC_SUM);
		struct cc_sim_result res;
		char err[256];
		struct cc_schedule *s;

		p.transport = (enum cc_transport)t;
		p.nchannels = 2;
		rechunk(&p);
		cc_sim_stage_for(&p, &f);
		assert_int_equal(p.stage_mem, CC_MEM_HOST);
		s = cc_build(&p, err, sizeof(err));
		assert_non_null(s);
		if (cc_sim_run(s, &(struct cc_sim_opts){ .fabric = &f, .net = &net, .seed = 5,
							  .check = true }, &res))
			fail_msg("%s: refused: %s", cc_transport_name[t], res.err.msg);
		assert_int_equal(res.err.status, CC_RUN_OK);
		assert_true(res.checked);
		assert_int_equal(res.wrong, 0);
		cc_sim_result_free(&res);
		cc_schedule_free(s);
	}
	sim_net_free(&net);
}

/* The link from `from` to `to`, by name. */
static const struct cc_sim_link_stats *link_of(const struct cc_sim_result *res, const char *from,
					       const char *to)
{
	for (uint32_t i = 0; i < res->nlinks; i++)
		if (!strcmp(res->links[i].from, from) && !strcmp(res->links[i].to, to))
			return &res->links[i];
	fail_msg("no link %s -> %s", from, to);
	return NULL;
}

/* Rank r's NIC sends its head's chunks once up (to its parent) and once
 * down (to each child) on every channel, and an 8-byte clear-to-send for
 * every slice it receives: with an array that every channel, loop and
 * head divide evenly, (has a parent + children) x count / (channels x g)
 * elements, summed over the channels' trees; the spine carries nothing
 * (the trees join the heads of one rail). */
static void test_sim_nic_bytes(void **state)
{
	const uint32_t nodes = 4, g = 4, nch = 2;
	struct cc_coll_params p = params(nodes, g, 0, CC_FLOAT32, CC_SUM);
	struct cc_sim_result res;
	struct sim_net net;
	struct cc_schedule *s;
	char from[48], to[48];

	(void)state;
	p.nchannels = nch;
	p.count = (uint64_t)nch * g * 8 * 16384; /* 8 loops of 64 KiB chunks a channel */
	rechunk(&p);
	assert_int_equal(p.chunk_bytes, 65536);
	railopt(&net, nodes, g);
	run_sim(&p, "ideal", false, &res, &net, &s);
	for (uint32_t r = 0; r < p.nranks; r++) {
		uint64_t share = p.count / (nch * g) * 4, data = 0, slices = 0;

		for (uint32_t c = 0; c < nch; c++) {
			uint32_t u, d0, d1, node = r / g;
			uint64_t edges;

			cc_dtree(c % 2, nodes, node, &u, &d0, &d1);
			edges = (u != CC_CONN_NONE) + (d0 != CC_CONN_NONE) + (d1 != CC_CONN_NONE);
			data += edges * share;
			/* it receives as many chunks as it sends, a slice each */
			slices += edges * (share / p.chunk_bytes);
		}
		snprintf(from, sizeof(from), "node%u.gpu%u", r / g, r % g);
		snprintf(to, sizeof(to), "rail%u", r % g);
		assert_int_equal(link_of(&res, from, to)->tx_payload_bytes, data + 8 * slices);
	}
	for (uint32_t i = 0; i < res.nlinks; i++)
		if (!strncmp(res.links[i].from, "spine", 5) || !strncmp(res.links[i].to, "spine", 5))
			assert_int_equal(res.links[i].tx_bytes, 0);
	cc_schedule_free(s);
	cc_sim_result_free(&res);
	sim_net_free(&net);
}

/* Same schedule, same options: the same run. */
static void test_sim_deterministic(void **state)
{
	struct cc_coll_params p = params(3, 4, 400003, CC_FLOAT16, CC_SUM);
	struct cc_sim_result a, b;
	struct sim_net net;

	(void)state;
	p.nchannels = 3;
	rechunk(&p);
	railopt(&net, 3, 4);
	run_sim(&p, "ib-ndr", true, &a, &net, NULL);
	run_sim(&p, "ib-ndr", true, &b, &net, NULL);
	assert_int_equal(a.time_ps, b.time_ps);
	assert_int_equal(a.events, b.events);
	for (uint32_t i = 0; i < a.nlinks; i++)
		assert_int_equal(a.links[i].tx_bytes, b.links[i].tx_bytes);
	cc_sim_result_free(&a);
	cc_sim_result_free(&b);
	sim_net_free(&net);
}

/* `cclab sim -A nvlstree` on its own topology (railopt: a host per node),
 * checked and within physics; without nodes, or on a topology without a
 * host per node, a usage error that says which (exit 2). */
static void test_cli(void **state)
{
	struct run r;

	(void)state;
	need_cclab();
	r = run_cclab("sim -A nvlstree -n 8 --ranks-per-node 4 -b 1M -e 4M --channels 2 "
		      "--fabric ib-ndr");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "# chunk: per size, NCCL's NVLSTree rule"));
	assert_non_null(strstr(r.out, "topology: railopt"));
	assert_non_null(strstr(r.out, "# Out of bounds values : 0 OK"));
	run_free(&r);
	r = run_cclab("sim -A nvlstree -n 8 -b 1M");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--ranks-per-node: nvlstree joins nodes"));
	run_free(&r);
	r = run_cclab("sim -A nvlstree -n 8 --ranks-per-node 4 --topology node -b 1M");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "ranks 4..7 of the topology 'node' share a host"));
	assert_non_null(strstr(r.err, "--topology railopt is one"));
	run_free(&r);
	/* the variables reach the run: 48 KiB chunks, 32 a channel of 1 MiB x 2 */
	r = run_cclab("sim -A nvlstree -n 8 --ranks-per-node 4 -b 3M --channels 2 --env "
		      "NCCL_NVLSTREE_MAX_CHUNKSIZE=49152 --json %s/c.json", tmpdir);
	assert_int_equal(r.status, 0);
	run_free(&r);
	{
		char path[128];
		char *j;

		snprintf(path, sizeof(path), "%s/c.json", tmpdir);
		j = text_of(path);
		assert_non_null(strstr(j, "\"chunk_bytes\": 49152"));
		free(j);
	}
	r = run_cclab("sim -A nvlstree -n 8 --ranks-per-node 4 -b 1M --env "
		      "NCCL_NVLS_CHUNKSIZE=100");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "NCCL_NVLS_CHUNKSIZE"));
	run_free(&r);
	r = run_cclab("sim -n 8 --topology railopt -b 1M");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "railopt needs nodes of G ranks (--ranks-per-node)"));
	run_free(&r);
}

static int setup(void **state)
{
	(void)state;
	return run_cclab_begin("nvlstree");
}

static int teardown(void **state)
{
	(void)state;
	return run_cclab_end();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_correct),
		cmocka_unit_test(test_warps),
		cmocka_unit_test(test_chunk),
		cmocka_unit_test(test_chunk_env),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_sim_correct),
		cmocka_unit_test(test_sim_host_staging),
		cmocka_unit_test(test_sim_nic_bytes),
		cmocka_unit_test(test_sim_deterministic),
		cmocka_unit_test(test_cli),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
