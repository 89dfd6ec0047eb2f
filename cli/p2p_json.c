/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/p2p_json.c — `cclab p2p --json`: what ran (every parameter, every
 * fabric field as resolved — or the device, for a run on one — and under
 * `cclab run` the resolved scenario),
 * then one entry per size with perftest's figures, exact picoseconds
 * beside them, and the per-rank counters.
 * Key order is fixed and integers exact, so equal runs give equal files;
 * the file is written atomically (util/atomic_file.h). */
#include <string.h>

#include "cli/check.h"
#include "cli/p2p.h"
#include "cli/sim.h"
#include "sim/scenario.h"

void p2p_json_begin(struct cc_json *j, const struct p2p_opts *o)
{
	const struct cc_p2p_params *p = &o->p;

	cli_json_head(j, "p2p");
	cc_json_kv_string(j, "executor", o->device ? "verbs" : "sim");
	cc_json_kv_string(j, "op", cc_p2p_op_name[p->op]);
	cc_json_kv_string(j, "mode", cc_p2p_mode_name[p->mode]);
	cc_json_kv_string(j, "perftest", cc_p2p_tool(p->op, p->mode));
	cc_json_kv_string(j, "opcode", cc_opcode_name[cc_p2p_opcode(p->op, p->mode)]);
	cc_json_kv_uint(j, "iterations", p->iters);
	cc_json_kv_uint(j, "tx_depth", p->tx_depth);
	cc_json_kv_uint(j, "cq_mod", cc_p2p_cq_mod(p));
	cc_json_kv_uint(j, "post_list", p->post_list);
	cc_json_kv_uint(j, "rx_depth", p->rx_depth);
	cc_json_kv_bool(j, "bidirectional", p->bidir);
	cc_json_kv_string(j, "memory", cc_mem_kind_name[p->mem]);
	cc_json_kv_uint(j, "mb_bytes", 1u << 20); /* perftest's MB */
	if (o->device) { /* measured: the device is the fabric */
		cc_json_kv_string(j, "device", o->device);
		cc_json_kv_string(j, "link_layer", o->device_roce ? "Ethernet" : "InfiniBand");
		cc_json_kv_uint(j, "active_mtu", o->device_mtu);
	} else {
		cc_json_kv_string(j, "topology", p2p_topology_name(o));
		cc_json_key(j, "fabric");
		sim_fabric_json(j, &o->fabric);
	}
	if (o->scenario) {
		cc_json_kv_uint(j, "seed", o->seed);
		cc_json_key(j, "scenario");
		cc_scenario_json(j, o->scenario);
	}
	cc_json_key(j, "sizes");
	cc_json_array_begin(j);
}

static void ranks_json(struct cc_json *j, const struct cc_sim_result *res)
{
	cc_json_key(j, "ranks");
	cc_json_array_begin(j);
	for (uint32_t r = 0; r < res->nranks; r++) {
		const struct cc_sim_rank_stats *st = &res->rank[r];

		cc_json_object_begin(j);
		cc_json_kv_uint(j, "data_bytes_sent", st->data_bytes);
		cc_json_kv_uint(j, "wire_bytes_sent", st->wire_bytes);
		cc_json_kv_uint(j, "wire_pkts", st->wire_pkts);
		cc_json_kv_uint(j, "acks", st->acks);
		cc_json_kv_uint(j, "wqes", st->wqes);
		cc_json_kv_uint(j, "ops_done", st->ops_done);
		cc_json_kv_uint(j, "done_ps", st->done_ps);
		cc_json_object_end(j);
	}
	cc_json_array_end(j);
}

void p2p_json_size(struct cc_json *j, const struct p2p_opts *o, const struct p2p_row *row)
{
	cc_json_object_begin(j);
	cc_json_kv_uint(j, "bytes", row->size);
	cc_json_kv_uint(j, "iterations", o->p.iters);
	cli_json_status(j, row->err);
	if (row->res) {
		cc_json_kv_uint(j, "run_ps", row->res->time_ps); /* every op of both ranks done */
		cc_json_kv_uint(j, "bound_ps", row->bound_ps);
		cc_json_kv_bool(j, "model_bug", row->model_bug);
	}
	if (!row->failed && o->p.mode == CC_P2P_BW) {
		cc_json_kv_uint(j, "time_ps", row->bw.time_ps); /* tcompleted[last] - tposted[0] */
		cc_json_kv_double(j, "bw_peak_mb_s", row->bw.peak_mib_s);
		cc_json_kv_double(j, "bw_average_mb_s", row->bw.avg_mib_s);
		cc_json_kv_double(j, "msg_rate_mpps", row->bw.msg_rate_mpps);
	} else if (!row->failed) {
		cc_json_kv_uint(j, "samples", row->lat.samples);
		cc_json_kv_uint(j, "rtt_factor", row->lat.rtt_factor);
		cc_json_kv_double(j, "t_min_us", row->lat.min_us);
		cc_json_kv_double(j, "t_max_us", row->lat.max_us);
		cc_json_kv_double(j, "t_typical_us", row->lat.typical_us);
		cc_json_kv_double(j, "t_avg_us", row->lat.avg_us);
		cc_json_kv_double(j, "t_stdev_us", row->lat.stdev_us);
		cc_json_kv_double(j, "t_p99_us", row->lat.p99_us);
		cc_json_kv_double(j, "t_p999_us", row->lat.p999_us);
		cc_json_kv_uint(j, "tail", row->lat.tail); /* largest deltas left out */
		cc_json_kv_uint(j, "delta_min_ps", row->lat.min_ps); /* raw, before rtt_factor */
		cc_json_kv_uint(j, "delta_max_ps", row->lat.max_ps);
	}
	if (row->res) {
		cc_json_kv_uint(j, "events", row->res->events);
		ranks_json(j, row->res);
	}
	cc_json_object_end(j);
}
