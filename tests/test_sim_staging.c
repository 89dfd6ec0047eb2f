/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_sim_staging.c — host staging, GPU memory reached without
 * GPUDirect RDMA (host.gpu_dma host-staging): the ring's staging buffers in
 * pinned host memory (core/ring.c, stage_mem), the data still right on both
 * executors, and what the simulator charges for the GPU's PCIe link
 * (sim/gpu_host.h), against closed forms.
 *
 * Notation (ps): pser(B) = ceil(B * 8e12 / rate), one TLP of B wire bytes on
 * the PCIe link; L = pcie.latency_ps; hbm(B) = ceil(B * 1e12 / HBM rate);
 * STEP = host.gpu_step_ps, LAUNCH = host.gpu_launch_ps.  A GPU job that
 * reads rd and writes wr bytes of host memory costs (sim/gpu_host.h)
 *   T = [rd] (pser(24) + 2L) + max(S_up - [rd] pser(24), S_down) + [wr] L,
 *   S_up = MWr TLPs of wr (256 B + 24 each) + MRd TLPs (4096 B each, 24),
 *   S_down = CplD TLPs of rd (256 B + 20 each),
 * and the job takes STEP + max(hbm(its GPU-memory bytes), T).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/conn.h"
#include "core/algo.h"
#include "core/exec_data.h"
#include "sim/compute.h"
#include "sim/exec.h"
#include "sim/gpu_host.h"
#include "sim/pcie.h"
#include "tests/files.h"
#include "tests/run_cclab.h"
#include "tests/run_status.h"
#include "tests/sim_sched.h"

#define US 1000000ull

static uint64_t div_up(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

static uint64_t pser(const struct sim_pcie_params *pp, uint64_t b)
{
	unsigned __int128 num = (unsigned __int128)b * 8u * 1000000000000ull;

	return pp->rate_bps ? (uint64_t)((num + pp->rate_bps - 1) / pp->rate_bps) : 0;
}

static uint64_t hbm(const struct sim_host_params *h, uint64_t b)
{
	unsigned __int128 num = (unsigned __int128)b * 1000000000000ull;

	return h->gpu_mem_bytes_per_s ? (uint64_t)((num + h->gpu_mem_bytes_per_s - 1) /
						  h->gpu_mem_bytes_per_s) : 0;
}

/* B bytes as TLPs of at most `max` payload, `oh` more each. */
static uint64_t tlps(const struct sim_pcie_params *pp, uint64_t b, uint64_t max, uint64_t oh)
{
	uint64_t t = 0;

	for (uint64_t off = 0; off < b; off += max)
		t += pser(pp, (b - off < max ? b - off : max) + oh);
	return t;
}

/* The formula of the header, written out independently of sim/gpu_host.c. */
static uint64_t host_ps(const struct sim_pcie_params *pp, uint64_t rd, uint64_t wr)
{
	uint64_t down = 0, up = tlps(pp, wr, 256, 24) + div_up(rd, 4096) * pser(pp, 24), t = 0;

	for (uint64_t off = 0; off < rd; off += 4096) /* completions per request */
		down += tlps(pp, rd - off < 4096 ? rd - off : 4096, 256, 20);
	if (rd) { /* the first request's round trip; it is out of the stream */
		t += pser(pp, 24) + 2 * pp->latency_ps;
		up -= pser(pp, 24);
	}
	t += up > down ? up : down;
	if (wr)
		t += pp->latency_ps;
	return t;
}

static struct sim_params fabric(const char *name, bool staging)
{
	struct sim_params f;

	assert_int_equal(sim_params_preset(name, &f), 0);
	f.host.gpu_dma = staging ? SIM_GPU_DMA_HOST_STAGING : SIM_GPU_DMA_GPUDIRECT;
	return f;
}

static struct cc_sim_result sim(const struct cc_schedule *s, const struct sim_params *f, bool check)
{
	struct cc_sim_result res;
	struct cc_sim_opts o = { .fabric = f, .topo = SIM_TOPO_RING, .seed = 5, .check = check,
				 .time_limit_ps = 60ull * 1000000 * US };

	assert_int_equal(cc_sim_run(s, &o, &res), 0);
	if (res.err.status != CC_RUN_OK)
		print_message("    -> %s\n", res.err.msg);
	assert_run_status(res.err, CC_RUN_OK);
	return res;
}

/* ---- the schedule ---- */

/* Staging in host memory, user buffers in GPU memory, control words in
 * host memory as always, the kernels still on the GPU; the default and the
 * fabric rule (cc_sim_stage_for) put staging where they should. */
static void staging_buffers_in_host_memory(void **state)
{
	(void)state;
	struct cc_coll_params p;
	struct sim_params f = fabric("ib-hdr", false);

	cc_coll_params_default(&p);
	assert_int_equal(p.stage_mem, p.mem);
	assert_int_equal(cc_coll_stage_mem(&p), CC_MEM_GPU);
	cc_sim_stage_for(&p, &f);
	assert_int_equal(cc_coll_stage_mem(&p), CC_MEM_GPU);
	f.host.gpu_dma = SIM_GPU_DMA_HOST_STAGING;
	cc_sim_stage_for(&p, &f);
	assert_int_equal(cc_coll_stage_mem(&p), CC_MEM_HOST);
	p.mem = CC_MEM_HOST; /* host user buffers: everything in host memory */
	p.stage_mem = CC_MEM_GPU;
	assert_int_equal(cc_coll_stage_mem(&p), CC_MEM_HOST);

	struct cc_schedule *s = ring_sched_staged(CC_ALLREDUCE, CC_WRITE_FLAG, 3, 4096, CC_MEM_HOST);
	for (uint32_t r = 0; r < 3; r++) {
		const struct cc_rank_sched *rs = &s->ranks[r];

		for (uint32_t b = 0; b < rs->nbufs; b++) {
			enum cc_buf_role role = rs->bufs[b].role;
			bool user = role == CC_BUF_INPUT || role == CC_BUF_OUTPUT;

			assert_int_equal(rs->bufs[b].mem, user ? CC_MEM_GPU : CC_MEM_HOST);
		}
		for (uint32_t i = 0; i < rs->nops; i++)
			if (rs->ops[i].kind == CC_OP_REDUCE || rs->ops[i].kind == CC_OP_COPY)
				assert_int_equal(rs->ops[i].u.calc.where, CC_ON_GPU);
	}
	cc_schedule_free(s);
}

/* ---- the data executor: every collective and transport stays right ---- */

static void data_executor_right(void **state)
{
	(void)state;
	static const uint64_t sizes[] = { 4, 4096, 1000004, 3u << 20 };

	for (int c = 0; c < CC_ALLTOALL; c++) /* the ring builds all but all-to-all */
		for (int t = 0; t < CC_TRANSPORT_COUNT; t++)
			for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
				struct cc_schedule *s = ring_sched_staged((enum cc_coll)c, (enum cc_transport)t,
							     4, sizes[z], CC_MEM_HOST);
				struct cc_data_opts o = { .seed = 7, .order_seed = 11 + z };
				struct cc_data_result res;

				assert_int_equal(cc_data_run(s, &o, &res), 0);
				if (res.err.status != CC_RUN_OK)
					print_message("    %s %s %" PRIu64 " B: %s\n", cc_coll_name[c],
						      cc_transport_name[t], sizes[z], res.err.msg);
				assert_run_status(res.err, CC_RUN_OK);
				assert_int_equal(res.wrong, 0);
				cc_data_result_free(&res);
				cc_schedule_free(s);
			}
}

/* The simulator carries the same bytes: #wrong 0 too. */
static void simulator_right(void **state)
{
	(void)state;
	struct sim_params f = fabric("roce-400g", true);

	for (int c = 0; c < CC_ALLTOALL; c++) /* the ring builds all but all-to-all */
		for (int t = 0; t < CC_TRANSPORT_COUNT; t++) {
			struct cc_schedule *s = ring_sched_staged((enum cc_coll)c, (enum cc_transport)t, 4,
						     3u << 20, CC_MEM_HOST);
			struct cc_sim_result res = sim(s, &f, true);

			assert_int_equal(res.wrong, 0);
			cc_sim_result_free(&res);
			cc_schedule_free(s);
		}
}

/* ---- the cost model ---- */

static sim_time_ps g_done;

static void note_done(struct sim_engine *eng, void *ctx, uint64_t arg, sim_time_ps done)
{
	(void)eng;
	(void)ctx;
	(void)arg;
	g_done = done;
}

/* sim_gpu_host_cost() against the formula written out here, and a read
 * alone or a write alone against sim/pcie.c's own DMA on an idle link:
 * the same picosecond. */
static void host_cost_closed_form(void **state)
{
	(void)state;
	static const char *const presets[] = { "ib-hdr", "ib-ndr", "ideal" };
	static const uint64_t sizes[] = { 1, 8, 256, 257, 4096, 4097, 65536, 512 * 1024, 1000003 };

	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++) {
		struct sim_params f = fabric(presets[i], true);

		for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
			uint64_t b = sizes[z];
			struct sim_gpu_host_cost c;

			sim_gpu_host_cost(&f.pcie, b, 0, &c);
			assert_int_equal(c.ps, host_ps(&f.pcie, b, 0));
			sim_gpu_host_cost(&f.pcie, 0, b, &c);
			assert_int_equal(c.ps, host_ps(&f.pcie, 0, b));
			sim_gpu_host_cost(&f.pcie, b, b, &c);
			assert_int_equal(c.ps, host_ps(&f.pcie, b, b));
			sim_gpu_host_cost(&f.pcie, b, 3 * b, &c);
			assert_int_equal(c.ps, host_ps(&f.pcie, b, 3 * b));

			for (int w = 0; w < 2; w++) {
				struct sim_engine eng;
				struct sim_pcie link;

				assert_int_equal(sim_engine_init(&eng, 0), 0);
				assert_int_equal(sim_pcie_init(&link, &eng, &f.pcie), 0);
				g_done = SIM_TIME_NEVER;
				assert_int_equal(w ? sim_pcie_dma_write(&link, b, note_done, NULL, 0)
						   : sim_pcie_dma_read(&link, b, note_done, NULL, 0), 0);
				sim_run(&eng, SIM_TIME_NEVER);
				sim_gpu_host_cost(&f.pcie, w ? 0 : b, w ? b : 0, &c);
				if (g_done != c.ps)
					print_message("    %s %s %" PRIu64 " B: pcie %" PRIu64 " ps, "
						      "formula %" PRIu64 " ps\n", presets[i],
						      w ? "write" : "read", b, g_done, c.ps);
				assert_int_equal(g_done, c.ps);
				sim_pcie_destroy(&link);
				sim_engine_destroy(&eng);
			}
		}
	}
	struct sim_params f = fabric("ib-hdr", true);
	struct sim_gpu_host_cost c;

	sim_gpu_host_cost(&f.pcie, 0, 0, &c);
	assert_int_equal(c.ps, 0);
}

/* One rank, two copies by hand: GPU input -> host slot, host slot -> GPU
 * output.  Each is STEP + max(hbm(n), T): the time is exact to the ps. */
static struct cc_schedule *two_copies(uint64_t n)
{
	struct cc_coll_params p;

	cc_coll_params_default(&p);
	p.nranks = 1;
	struct cc_schedule *s = cc_schedule_new(&p);
	struct cc_rank_sched *rs = &s->ranks[0];
	cc_add_buffer(rs, &(struct cc_buffer){ CC_MEM_GPU, CC_BUF_INPUT, n, -1, 0 });
	cc_add_buffer(rs, &(struct cc_buffer){ CC_MEM_GPU, CC_BUF_OUTPUT, n, -1, 0 });
	cc_add_buffer(rs, &(struct cc_buffer){ CC_MEM_HOST, CC_BUF_SEND_STAGE, n, -1, 0 });
	struct cc_op op = { .kind = CC_OP_COPY, .tag = { .prim = CC_PRIM_COPY } };
	op.u.calc = (struct cc_op_calc){ .nsrc = 1, .ndst = 1, .src = { { 0, 0 } },
					 .dst = { { 2, 0 } }, .count = n, .dtype = CC_INT8,
					 .redop = CC_SUM, .postdiv = 1, .where = CC_ON_GPU };
	uint32_t first = cc_add_op(rs, &op, NULL, 0);
	op.u.calc.src[0].buf = 2;
	op.u.calc.dst[0].buf = 1;
	cc_add_op(rs, &op, &first, 1);
	return s;
}

static void copies_exact(void **state)
{
	(void)state;
	static const uint64_t sizes[] = { 64, 4096, 512 * 1024, 8u << 20 };

	for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		uint64_t n = sizes[z];
		struct cc_schedule *s = two_copies(n);
		struct sim_params f = fabric("ib-hdr", true);
		const struct sim_host_params *h = &f.host;
		struct cc_sim_result res = sim(s, &f, true);
		uint64_t out = host_ps(&f.pcie, 0, n), in = host_ps(&f.pcie, n, 0);
		uint64_t want = h->gpu_launch_ps + 2 * h->gpu_step_ps +
				(hbm(h, n) > out ? hbm(h, n) : out) + (hbm(h, n) > in ? hbm(h, n) : in);

		assert_int_equal(res.time_ps, want);
		assert_int_equal(res.rank[0].gpu_host_write_bytes, n);
		assert_int_equal(res.rank[0].gpu_host_read_bytes, n);
		assert_int_equal(res.rank[0].busy_ps[CC_SIM_GPU_PCIE],
				 tlps(&f.pcie, n, 256, 20) > tlps(&f.pcie, n, 256, 24) +
				 div_up(n, 4096) * pser(&f.pcie, 24) ? tlps(&f.pcie, n, 256, 20)
				 : tlps(&f.pcie, n, 256, 24) + div_up(n, 4096) * pser(&f.pcie, 24));
		cc_sim_result_free(&res);

		/* With an unlimited, latency-free PCIe link only HBM counts: the
		 * GPU-memory operand, n bytes, not the 2n of a GPU-to-GPU copy. */
		f.pcie.rate_bps = 0;
		f.pcie.latency_ps = 0;
		res = sim(s, &f, false);
		assert_int_equal(res.time_ps, h->gpu_launch_ps + 2 * (h->gpu_step_ps + hbm(h, n)));
		cc_sim_result_free(&res);
		cc_schedule_free(s);
	}
}

/* ---- ring allreduce, GPUDirect RDMA against host staging ---- */

static uint64_t max3(uint64_t a, uint64_t b, uint64_t c)
{
	return a > b ? (a > c ? a : c) : (b > c ? b : c);
}

/* What host staging adds to a GPU op, GDR -> staged: HBM bytes of all
 * operands vs HBM of the GPU-memory ones alongside T(rd, wr), each at
 * least the ring block's pace (16 warps, n bytes out), which staging
 * does not change. */
static int64_t delta(const struct sim_params *f, uint64_t n, unsigned gpu_ops, unsigned rd,
		     unsigned wr)
{
	uint64_t h = hbm(&f->host, gpu_ops * n), t = host_ps(&f->pcie, rd * n, wr * n);
	uint64_t pace = sim_compute_pace_ps(&f->host, CC_PROTO_SIMPLE, CC_NCCL_SIMPLE_WARPS, n);

	return (int64_t)max3(h, t, pace) -
	       (int64_t)max3(hbm(&f->host, (gpu_ops + rd + wr) * n), 0, pace);
}

/* k = 2, one slice per step: each rank runs send (input -> slot),
 * recvReduceCopySend (slot + input -> output + slot) and recv (slot ->
 * output) one after the other on the critical path, with the network in
 * between unchanged; so staging adds exactly the three ops' extra cost:
 *   send  max(hbm(n), T(0, n)) - hbm(2n)
 *   rrcs  max(hbm(2n), T(n, n)) - hbm(4n)
 *   recv  max(hbm(n), T(n, 0)) - hbm(2n)     n = N / 2. */
static void k2_allreduce_exact(void **state)
{
	(void)state;
	static const char *const presets[] = { "ib-hdr", "ib-ndr", "roce-100g", "roce-400g" };
	static const uint64_t sizes[] = { 1024, 64 * 1024, 1u << 20 };

	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
			struct sim_params gdr = fabric(presets[i], false), stg = fabric(presets[i], true);
			struct cc_schedule *a = ring_sched_staged(CC_ALLREDUCE, CC_WRITE_IMM, 2, sizes[z], CC_MEM_GPU);
			struct cc_schedule *b = ring_sched_staged(CC_ALLREDUCE, CC_WRITE_IMM, 2, sizes[z], CC_MEM_HOST);
			struct cc_sim_result ra = sim(a, &gdr, true), rb = sim(b, &stg, true);
			uint64_t n = sizes[z] / 2;
			int64_t want = delta(&stg, n, 1, 0, 1) + delta(&stg, n, 2, 1, 1) +
				       delta(&stg, n, 1, 1, 0);

			print_message("    %s %" PRIu64 " B: %.3f -> %.3f us (+%.3f us)\n", presets[i],
				      sizes[z], ra.time_ps / 1e6, rb.time_ps / 1e6,
				      ((double)rb.time_ps - (double)ra.time_ps) / 1e6);
			assert_int_equal(ra.wrong, 0);
			assert_int_equal(rb.wrong, 0);
			assert_int_equal((int64_t)(rb.time_ps - ra.time_ps), want);
			cc_sim_result_free(&ra);
			cc_sim_result_free(&rb);
			cc_schedule_free(a);
			cc_schedule_free(b);
		}
}

/* A large ring allreduce on the 400 Gb/s fabrics, k = 8, N = 64 MiB:
 * the same wire traffic either way, 2N(k-1)/k more bytes each way on every
 * GPU's PCIe link, and a GPU that becomes the bottleneck.  Each rank's GPU
 * runs its ops one at a time from LAUNCH, so with staging
 *   time >= LAUNCH + G,  G = loops * 4 * [ (STEP + max(hbm(S), T(0, S)))
 *        + (k-2) (STEP + max(hbm(S), T(S, S)))      recvReduceSend
 *        +       (STEP + max(hbm(2S), T(S, S)))     recvReduceCopySend
 *        + (k-2) (STEP + max(hbm(S), T(S, S)))      recvCopySend
 *        +       (STEP + max(hbm(S), T(S, 0))) ]    recv
 * (S = 512 KiB slots, 4 per 2 MiB chunk, loops = N / (k * 2 MiB)), and G
 * is exactly each rank's GPU busy time; LAUNCH + G already exceeds the
 * GPUDirect run, so the slowdown follows from the closed form alone. */
static void large_allreduce_slower(void **state)
{
	(void)state;
	static const char *const presets[] = { "ib-ndr", "roce-400g" };
	const uint32_t k = 8;
	const uint64_t N = 64u << 20, S = 512 * 1024, loops = N / (k * 4 * S);

	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++) {
		struct sim_params gdr = fabric(presets[i], false), stg = fabric(presets[i], true);
		const struct sim_host_params *h = &stg.host;
		struct cc_schedule *a = ring_sched_staged(CC_ALLREDUCE, CC_WRITE_IMM, k, N, CC_MEM_GPU);
		struct cc_schedule *b = ring_sched_staged(CC_ALLREDUCE, CC_WRITE_IMM, k, N, CC_MEM_HOST);
		struct cc_sim_result ra = sim(a, &gdr, false), rb = sim(b, &stg, false);
		uint64_t tw = host_ps(&stg.pcie, 0, S), trw = host_ps(&stg.pcie, S, S);
		uint64_t tr = host_ps(&stg.pcie, S, 0), h1 = hbm(h, S), h2 = hbm(h, 2 * S);
		uint64_t per = (h->gpu_step_ps + (h1 > tw ? h1 : tw)) +
			       2 * (k - 2) * (h->gpu_step_ps + (h1 > trw ? h1 : trw)) +
			       (h->gpu_step_ps + (h2 > trw ? h2 : trw)) +
			       (h->gpu_step_ps + (h1 > tr ? h1 : tr));
		uint64_t g = loops * 4 * per;

		print_message("    %s: GPUDirect %.1f us, staging %.1f us, GPU bound %.1f us\n",
			      presets[i], ra.time_ps / 1e6, rb.time_ps / 1e6,
			      (h->gpu_launch_ps + g) / 1e6);
		assert_true(h->gpu_launch_ps + g > ra.time_ps);
		assert_true(rb.time_ps >= h->gpu_launch_ps + g);
		/* ... and the GPU is the bottleneck: within 1 % of it. */
		assert_true(rb.time_ps <= (h->gpu_launch_ps + g) + (h->gpu_launch_ps + g) / 100);
		for (uint32_t r = 0; r < k; r++) {
			const struct cc_sim_rank_stats *x = &ra.rank[r], *y = &rb.rank[r];

			assert_int_equal(y->busy_ps[CC_SIM_REDUCE], g);
			assert_int_equal(x->data_bytes, y->data_bytes);
			assert_int_equal(x->wire_bytes, y->wire_bytes);
			assert_int_equal(x->wire_pkts, y->wire_pkts);
			assert_int_equal(x->payload_bytes, y->payload_bytes);
			assert_int_equal(x->busy_ps[CC_SIM_PCIE], y->busy_ps[CC_SIM_PCIE]);
			assert_int_equal(x->gpu_host_read_bytes, 0);
			assert_int_equal(x->gpu_host_write_bytes, 0);
			assert_int_equal(x->busy_ps[CC_SIM_GPU_PCIE], 0);
			assert_int_equal(y->gpu_host_read_bytes, 2 * N / k * (k - 1));
			assert_int_equal(y->gpu_host_write_bytes, 2 * N / k * (k - 1));
		}
		cc_sim_result_free(&ra);
		cc_sim_result_free(&rb);
		cc_schedule_free(a);
		cc_schedule_free(b);
	}
}

/* The fabric decides what the NIC may register: GPU memory without
 * GPUDirect RDMA is refused (ibv_reg_mr: EFAULT); staging in host memory
 * runs on either fabric (the GPU's cost belongs to where the buffers are). */
static void fabric_and_schedule_must_agree(void **state)
{
	(void)state;
	struct sim_params gdr = fabric("ib-hdr", false), stg = fabric("ib-hdr", true);
	struct cc_schedule *a = ring_sched_staged(CC_ALLREDUCE, CC_WRITE_IMM, 2, 4096, CC_MEM_GPU);
	struct cc_schedule *b = ring_sched_staged(CC_ALLREDUCE, CC_WRITE_IMM, 2, 4096, CC_MEM_HOST);
	struct cc_sim_opts o = { .fabric = &stg, .topo = SIM_TOPO_RING, .check = true };
	struct cc_sim_result res;

	assert_int_equal(cc_sim_run(a, &o, &res), -EFAULT);
	res = sim(b, &gdr, true);
	assert_int_equal(res.wrong, 0);
	assert_true(res.rank[0].gpu_host_read_bytes > 0);
	cc_sim_result_free(&res);
	cc_schedule_free(a);
	cc_schedule_free(b);
}

/* ---- the command line ---- */

static int setup(void **state)
{
	(void)state;
	return run_cclab_begin("stg");
}

static int teardown(void **state)
{
	(void)state;
	return run_cclab_end();
}

/* --gpu-dma on schedule, check and sim; --set on a scenario. */
static void command_line(void **state)
{
	(void)state;
	struct run r;
	char *json, path[128];

	if (!cclab || !*cclab) {
		print_message("CCLAB is not set (tests/run.sh sets it); skipping\n");
		skip();
	}
	r = run_cclab("schedule -n 2 -b 64 --gpu-dma host-staging");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, " mem=gpu stage_mem=host\n"));
	assert_non_null(strstr(r.out, "r1 buf 3 role=recv_stage mem=host "));
	run_free(&r);
	r = run_cclab("check -n 3 -c reducescatter -b 1K -e 64K -f 8 --gpu-dma host-staging");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "# staging: host memory"));
	run_free(&r);
	snprintf(path, sizeof(path), "%s/r.json", tmpdir);
	/* --gpu-dma before --fabric still wins over the preset. */
	r = run_cclab("sim -n 2 -b 64K --gpu-dma host-staging --fabric ib-ndr --json %s", path);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	assert_non_null(strstr(r.out, "# staging: host memory"));
	json = text_of(path);
	assert_non_null(strstr(json, "\"stage_memory\": \"host\""));
	assert_non_null(strstr(json, "\"host.gpu_dma\": \"host-staging\""));
	assert_non_null(strstr(json, "\"gpu_pcie\": ["));
	free(json);
	run_free(&r);
	/* gdr is gpudirect-rdma's short name (the verbs executor's word too):
	 * no staging line; anything else is refused with the names */
	r = run_cclab("sim -n 2 -b 64K --gpu-dma gdr");
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.out, "# staging: host memory"));
	run_free(&r);
	r = run_cclab("sim -n 2 -b 64K --gpu-dma nope");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "auto, gdr (or gpudirect-rdma) or host-staging"));
	run_free(&r);
	r = run_cclab("run scenarios/demo.yaml --set sizes.max=4KiB --set fabric.host.gpu_dma=host-staging");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "# staging: host memory"));
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(staging_buffers_in_host_memory),
		cmocka_unit_test(data_executor_right),
		cmocka_unit_test(simulator_right),
		cmocka_unit_test(host_cost_closed_form),
		cmocka_unit_test(copies_exact),
		cmocka_unit_test(k2_allreduce_exact),
		cmocka_unit_test(large_allreduce_slower),
		cmocka_unit_test(fabric_and_schedule_must_agree),
		cmocka_unit_test(command_line),
	};

	return cmocka_run_group_tests_name("sim_staging", tests, setup, teardown);
}
