/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/perftest_json.c — perftest's --out_json file: its layout
 * (src/perftest_parameters.c: write_test_info_to_file(),
 * write_bw_report_to_file(), write_report_lat_to_file(); the formats
 * REPORT_FMT_JSON and REPORT_FMT_LAT_JSON of src/perftest_parameters.h),
 * with cclab's values for what its run did.
 *
 * perftest rewrites the file after each size (open_file_write(): O_TRUNC),
 * so after -a it holds the last size; so does this one, written
 * atomically.  Keys perftest prints for features cclab has not (dual
 * port, SRQ, post lists, relaxed ordering) say OFF or Unsupported, as
 * perftest's do when they are off; "cclab_executor" says whether the
 * figures were simulated ("sim") or measured ("verbs"). */
#include <stdio.h>

#include "cli/p2p.h"
#include "sim/wire.h"

/* perftest's testsStr[] and atomicTypesStr[] */
static const char *test_name(enum cc_p2p_op op)
{
	static const char *const names[CC_P2P_OP_COUNT] = {
		[CC_P2P_WRITE] = "RDMA_Write", [CC_P2P_WRITE_IMM] = "RDMA_Write_imm",
		[CC_P2P_SEND] = "Send", [CC_P2P_READ] = "RDMA_Read",
		[CC_P2P_FETCH_ADD] = "Atomic_FETCH_AND_ADD", [CC_P2P_CMP_SWAP] = "Atomic_CMP_AND_SWAP",
	};
	return names[op];
}

static void test_info(FILE *f, const struct p2p_opts *o)
{
	const struct cc_p2p_params *p = &o->p;
	bool sim = !o->device, ib = sim ? o->fabric.link.type <= SIM_LINK_IB_GRH : !o->device_roce;
	bool reads = p->op == CC_P2P_READ || cc_p2p_is_atomic(p->op);
	bool recv = p->op == CC_P2P_SEND || p->op == CC_P2P_WRITE_IMM ||
		    (p->op == CC_P2P_WRITE && p->mode == CC_P2P_LAT);

	fprintf(f, "\"test_info\": {\n");
	fprintf(f, "\"test\": \"%s_%s%sTest\",\n", test_name(p->op),
		p->bidir ? "Bidirectional_" : "", p->mode == CC_P2P_BW ? "BW_" : "Latency_");
	fprintf(f, "\"Dual_port\": \"OFF\",\n\"Device\": \"%s\",\n",
		sim ? o->fabric.name : o->device);
	fprintf(f, "\"Number_of_qps\": 1,\n\"Transport_type\": \"IB\",\n");
	fprintf(f, "\"Connection_type\": \"RC\",\n\"Using_SRQ\": \"OFF\",\n");
	fprintf(f, " \"PCIe_relax_order\": \"Unsupported\",\n");
	fprintf(f, "\"ibv_wr_API\": \"OFF\",\n"); /* ibv_post_send */
	/* perftest: TX on the client, RX on the server, both with -b */
	if (o->role != P2P_SERVER || p->bidir)
		fprintf(f, "\"TX_depth\": %u,\n", p->tx_depth);
	if (recv && (o->role != P2P_CLIENT || p->bidir))
		fprintf(f, "\"RX_depth\": %u,\n", p->rx_depth);
	if (p->mode == CC_P2P_BW)
		fprintf(f, "\"CQ_Moderation\": %u,\n", cc_p2p_cq_mod(p));
	if (p->post_list > 1) /* perftest_parameters.c: only above 1 */
		fprintf(f, "\"Post_List\": %u,\n", p->post_list);
	fprintf(f, "\"Mtu\": %u,\n", sim ? o->fabric.link.mtu_bytes : o->device_mtu);
	fprintf(f, "\"Link_type\": \"%s\",\n", ib ? "IB" : "Ethernet");
	if (!sim && o->gid_index >= 0)
		fprintf(f, "\"GID_index\": %d,\n", o->gid_index);
	if (!reads) /* the IR inlines one 8-byte word, lat ping-pongs only */
		fprintf(f, "\"Max_inline_data\": %u,\n",
			cc_p2p_is_pingpong(p->op, p->mode) ? 8u : 0u);
	else
		fprintf(f, "\"Outstand_reads\": %u,\n",
			sim ? o->fabric.rnic.max_rd_atomic : o->device_rd_atom);
	fprintf(f, "\"rdma_cm_QPs\": \"OFF\",\n");
	if (p->mem == CC_MEM_GPU)
		fprintf(f, "\"cuda_device\": 0,\n");
	fprintf(f, "\"Use_ROCm_memory\": \"OFF\",\n\"Use_MUSA_memory\": \"OFF\",\n");
	fprintf(f, "\"Data_ex_method\": \"Ethernet\",\n");
	fprintf(f, "\"cclab_executor\": \"%s\"\n},\n", sim ? "sim" : "verbs");
}

int perftest_json_write(const struct p2p_opts *o, const struct p2p_row *row)
{
	const char *cmd = p2p_cmd(o);
	struct cc_atomic_file af;
	int rc = cli_output_open(cmd, o->out_json, &af);

	if (rc)
		return rc;
	fprintf(af.f, "{\n");
	test_info(af.f, o);
	fprintf(af.f, "\"results\": {\n");
	if (o->p.mode == CC_P2P_BW) {
		double peak = o->gbits ? cc_p2p_gbits(row->bw.peak_mib_s) : row->bw.peak_mib_s;
		double avg = o->gbits ? cc_p2p_gbits(row->bw.avg_mib_s) : row->bw.avg_mib_s;

		fprintf(af.f, "\"MsgSize\": %llu,\n\"n_iterations\": %u,\n\"BW_peak\": %.2f,\n"
			"\"BW_average\": %.2f,\n\"MsgRate\": %.6f\n", (unsigned long long)row->size,
			o->p.iters, peak, avg, row->bw.msg_rate_mpps);
	} else {
		const struct cc_p2p_lat *l = &row->lat;

		fprintf(af.f, "\"MsgSize\": %llu,\n\"n_iterations\": %u,\n\"t_min\": %.2f,\n"
			"\"t_max\": %.2f,\n\"t_typical\": %.2f,\n\"t_avg\": %.2f,\n"
			"\"t_stdev\": %.2f,\n\"percentile_99\": %.2f,\n\"percentile_99.9\": %.2f\n",
			(unsigned long long)row->size, o->p.iters, l->min_us, l->max_us,
			l->typical_us, l->avg_us, l->stdev_us, l->p99_us, l->p999_us);
	}
	fprintf(af.f, "}\n}\n");
	return cli_output_commit(cmd, o->out_json, &af);
}
