/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_sim_read_order.c — an RDMA READ returns what the WRITEs before
 * it on its QP left (IBA's RC ordering), even where the responder's PCIe
 * has a backlog of DMA writes: the responder's read for the READ response
 * queues behind them (sim_pcie_dma_read_ordered(), sim/pcie.h), while the
 * transmit path's own reads pass them.
 *
 * k = 3 on the ring topology, ib-hdr: ranks 0 and 2 each WRITE 4 MiB into
 * rank 1 at once, its two ports (2 x 200 Gb/s) into one PCIe Gen4 upstream,
 * so writes queue there.  Then rank 0, on the same QP, WRITEs 0x77 inline
 * into rank 1's flag word and READs that word back into its own flag
 * buffer, and waits for 0x77 there.  Had the READ's read passed the queued
 * writes it would return 0 and the wait would never end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/schedule.h"
#include "sim/exec.h"
#include "sim/params.h"
#include "tests/sim_sched.h"

enum { BUF_DATA, BUF_FLAG };
enum { MR_DATA, MR_FLAG };

#define BIG (UINT64_C(4) << 20)

static void qp(struct cc_schedule *s, uint32_t r, uint32_t peer, uint32_t peer_qp)
{
	cc_add_qp(&s->ranks[r], &(struct cc_qp){.peer = peer, .peer_qp = peer_qp,
						.max_send_wr = 8, .max_recv_wr = 4,
						.max_inline = 64, .retry_cnt = 7, .rnr_retry = 7});
}

static struct cc_schedule *read_after_writes(void)
{
	const uint32_t access = CC_ACCESS_LOCAL_WRITE | CC_ACCESS_REMOTE_WRITE |
				CC_ACCESS_REMOTE_READ;
	struct cc_coll_params p;
	struct cc_schedule *s;

	cc_coll_params_default(&p);
	p.nranks = 3;
	p.count = 0;
	s = cc_schedule_new(&p);
	assert_non_null(s);
	for (uint32_t r = 0; r < 3; r++) {
		struct cc_rank_sched *rs = &s->ranks[r];

		cc_add_buffer(rs, &(struct cc_buffer){CC_MEM_GPU, CC_BUF_INPUT, BIG, -1, 0});
		cc_add_buffer(rs, &(struct cc_buffer){CC_MEM_HOST, CC_BUF_FLAG, 64, -1, 0});
		cc_add_mr(rs, BUF_DATA, access);
		cc_add_mr(rs, BUF_FLAG, access);
		cc_add_cq(rs, 16);
	}
	qp(s, 0, 1, 0); /* rank 0 qp 0 <-> rank 1 qp 0 */
	qp(s, 1, 0, 0);
	qp(s, 1, 2, 0); /* rank 1 qp 1 <-> rank 2 qp 0 */
	qp(s, 2, 1, 1);

	struct cc_op_send big = {.wr_id = 10, .opcode = CC_WR_RDMA_WRITE, .num_sge = 1,
				 .sge = {MR_DATA, 0, BIG}, .remote_mr = MR_DATA};
	struct cc_op_send flag = {.wr_id = 3, .opcode = CC_WR_RDMA_WRITE, .flags = CC_SEND_INLINE,
				  .num_sge = 1, .sge = {MR_FLAG, 0, 8}, .remote_mr = MR_FLAG,
				  .inline_value = 0x77};
	struct cc_op_send read = {.wr_id = 4, .opcode = CC_WR_RDMA_READ, .flags = CC_SEND_SIGNALED,
				  .num_sge = 1, .sge = {MR_FLAG, 8, 8}, .remote_mr = MR_FLAG};
	uint32_t last;

	send_op(s, 0, 0, big, UINT32_MAX);
	send_op(s, 2, 0, big, UINT32_MAX);
	last = send_op(s, 0, 0, flag, UINT32_MAX);
	last = send_op(s, 0, 0, read, last);
	last = poll_op(s, 0, 4, last);
	op_add(s, 0, (struct cc_op){.kind = CC_OP_WAIT_MEM, .u.wait = {BUF_FLAG, 8, 0x77}}, last);
	return s;
}

static void test_read_sees_earlier_write(void **state)
{
	struct cc_schedule *s = read_after_writes();
	struct sim_params f;
	struct cc_sim_result res;
	struct cc_sim_opts o = {.fabric = &f, .topo = SIM_TOPO_RING, .seed = 1, .check = true,
				.time_limit_ps = UINT64_C(100000000000)}; /* 100 ms */
	char err[256];

	(void)state;
	assert_int_equal(cc_schedule_validate(s, err, sizeof(err)), 0);
	assert_int_equal(sim_params_preset("ib-hdr", &f), 0);
	assert_int_equal(cc_sim_run(s, &o, &res), 0);
	if (res.err.status != CC_RUN_OK)
		fail_msg("status %d: %.*s", (int)res.err.status, (int)sizeof(res.err.msg),
			 res.err.msg);
	/* The READ's data was read after both writes had crossed rank 1's
	 * PCIe upstream, MPS-sized MWr TLPs with their headers. */
	double mwr_bytes_per_s = (double)f.pcie.rate_bps / 8 * f.pcie.mps_bytes /
				 (f.pcie.mps_bytes + f.pcie.tlp_overhead_bytes);
	double writes_us = 2.0 * BIG / mwr_bytes_per_s * 1e6;

	print_message("    READ after 2 x 4 MiB WRITEs into one PCIe: %.1f us (the writes: "
		      "%.1f us)\n", (double)res.time_ps / 1e6, writes_us);
	assert_true((double)res.time_ps / 1e6 > writes_us);
	cc_sim_result_free(&res);
	cc_schedule_free(s);
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_read_sees_earlier_write),
	};

	return cmocka_run_group_tests_name("sim_read_order", t, NULL, NULL);
}
