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
	cc_json_key(j, "executor");
	cc_json_string(j, o->device ? "verbs" : "sim");
	cc_json_key(j, "op");
	cc_json_string(j, cc_p2p_op_name[p->op]);
	cc_json_key(j, "mode");
	cc_json_string(j, cc_p2p_mode_name[p->mode]);
	cc_json_key(j, "perftest");
	cc_json_string(j, cc_p2p_tool(p->op, p->mode));
	cc_json_key(j, "opcode");
	cc_json_string(j, cc_opcode_name[cc_p2p_opcode(p->op, p->mode)]);
	cc_json_key(j, "iterations");
	cc_json_uint(j, p->iters);
	cc_json_key(j, "tx_depth");
	cc_json_uint(j, p->tx_depth);
	cc_json_key(j, "cq_mod");
	cc_json_uint(j, cc_p2p_cq_mod(p));
	cc_json_key(j, "rx_depth");
	cc_json_uint(j, p->rx_depth);
	cc_json_key(j, "memory");
	cc_json_string(j, cc_mem_kind_name[p->mem]);
	cc_json_key(j, "mb_bytes"); /* perftest's MB */
	cc_json_uint(j, 1u << 20);
	if (o->device) { /* measured: the device is the fabric */
		cc_json_key(j, "device");
		cc_json_string(j, o->device);
		cc_json_key(j, "link_layer");
		cc_json_string(j, o->device_roce ? "Ethernet" : "InfiniBand");
		cc_json_key(j, "active_mtu");
		cc_json_uint(j, o->device_mtu);
	} else {
		cc_json_key(j, "topology");
		cc_json_string(j, p2p_topology_name(o));
		cc_json_key(j, "fabric");
		sim_fabric_json(j, &o->fabric);
	}
	if (o->scenario) {
		cc_json_key(j, "seed");
		cc_json_uint(j, o->seed);
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
		cc_json_key(j, "data_bytes_sent");
		cc_json_uint(j, st->data_bytes);
		cc_json_key(j, "wire_bytes_sent");
		cc_json_uint(j, st->wire_bytes);
		cc_json_key(j, "wire_pkts");
		cc_json_uint(j, st->wire_pkts);
		cc_json_key(j, "acks");
		cc_json_uint(j, st->acks);
		cc_json_key(j, "wqes");
		cc_json_uint(j, st->wqes);
		cc_json_key(j, "ops_done");
		cc_json_uint(j, st->ops_done);
		cc_json_key(j, "done_ps");
		cc_json_uint(j, st->done_ps);
		cc_json_object_end(j);
	}
	cc_json_array_end(j);
}

void p2p_json_size(struct cc_json *j, const struct p2p_opts *o, const struct p2p_row *row)
{
	cc_json_object_begin(j);
	cc_json_key(j, "bytes");
	cc_json_uint(j, row->size);
	cc_json_key(j, "iterations");
	cc_json_uint(j, o->p.iters);
	cli_json_status(j, row->err);
	if (row->res) {
		cc_json_key(j, "run_ps"); /* every op of both ranks done */
		cc_json_uint(j, row->res->time_ps);
		cc_json_key(j, "bound_ps");
		cc_json_uint(j, row->bound_ps);
		cc_json_key(j, "model_bug");
		cc_json_bool(j, row->model_bug);
	}
	if (!row->failed && o->p.mode == CC_P2P_BW) {
		cc_json_key(j, "time_ps"); /* tcompleted[last] - tposted[0] */
		cc_json_uint(j, row->bw.time_ps);
		cc_json_key(j, "bw_peak_mb_s");
		cc_json_double(j, row->bw.peak_mib_s);
		cc_json_key(j, "bw_average_mb_s");
		cc_json_double(j, row->bw.avg_mib_s);
		cc_json_key(j, "msg_rate_mpps");
		cc_json_double(j, row->bw.msg_rate_mpps);
	} else if (!row->failed) {
		cc_json_key(j, "samples");
		cc_json_uint(j, row->lat.samples);
		cc_json_key(j, "rtt_factor");
		cc_json_uint(j, row->lat.rtt_factor);
		cc_json_key(j, "t_min_us");
		cc_json_double(j, row->lat.min_us);
		cc_json_key(j, "t_max_us");
		cc_json_double(j, row->lat.max_us);
		cc_json_key(j, "t_typical_us");
		cc_json_double(j, row->lat.typical_us);
		cc_json_key(j, "t_avg_us");
		cc_json_double(j, row->lat.avg_us);
		cc_json_key(j, "delta_min_ps"); /* raw, before rtt_factor */
		cc_json_uint(j, row->lat.min_ps);
		cc_json_key(j, "delta_max_ps");
		cc_json_uint(j, row->lat.max_ps);
	}
	if (row->res) {
		cc_json_key(j, "events");
		cc_json_uint(j, row->res->events);
		ranks_json(j, row->res);
	}
	cc_json_object_end(j);
}
