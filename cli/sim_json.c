/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/sim_json.c — the --json report of `cclab sim`: the shared parameters
 * and size head (cli/report_json.c), the fabric exactly as simulated, and
 * per size the simulated time, its lower bound and the executor's per-rank
 * counters.
 *
 * Times appear twice: "*_ps" are the simulator's integers, exact; "*_us"
 * are the same divided by 1e6 as doubles, for people and plots.  Per-rank
 * arrays are flat, indexed by rank, as `cclab check`'s. */
#include <stddef.h>
#include <string.h>

#include "cli/sim.h"
#include "sim/scenario.h"

/* The text of an enum field's value, or NULL when out of range.  link.type
 * has no names table in sim_param_fields[]: its names are sim_link_info[]
 * (sim/wire.h), the rule sim_params_print() follows too. */
static const char *enum_name(const struct sim_param_field *f, uint64_t v)
{
	if (v >= f->nnames)
		return NULL;
	return f->names ? f->names[v] : sim_link_info[v].name;
}

/* Every field of the fabric, by its key ("link.rate_bps"), in the field
 * table's order: numbers as integers, enums and strings as text, so the
 * object reads back into exactly the struct that was simulated. */
void sim_fabric_json(struct cc_json *j, const struct sim_params *p)
{
	cc_json_object_begin(j);
	for (size_t i = 0; i < sim_param_field_count; i++) {
		const struct sim_param_field *f = &sim_param_fields[i];
		const char *text;
		uint64_t v;

		cc_json_key(j, f->key);
		if (f->kind == SIM_PARAM_STR) {
			const char *at = (const char *)p + f->offset;
			char s[SIM_PARAMS_NAME_LEN + 1];
			size_t n = strnlen(at, f->size < sizeof(s) - 1 ? f->size : sizeof(s) - 1);

			memcpy(s, at, n);
			s[n] = '\0';
			cc_json_string(j, s);
			continue;
		}
		v = sim_param_field_get(p, f);
		text = f->kind == SIM_PARAM_ENUM ? enum_name(f, v) : NULL;
		if (text)
			cc_json_string(j, text);
		else
			cc_json_uint(j, v);
	}
	cc_json_object_end(j);
}

void sim_json_begin(struct cc_json *j, const struct cli_opts *o)
{
	cli_json_begin(j, o, "sim");
	cc_json_kv_bool(j, "in_place", false);
	cc_json_key(j, "fabric");
	sim_fabric_json(j, &o->fabric);
	cc_json_kv_string(j, "topology",
			  o->scenario ? o->scenario->net.name : sim_topo_kind_name[o->topo]);
	cc_json_kv_bool(j, "check", o->check);
	if (o->model != CC_SIM_MODEL_PACKET) /* only where set: other reports stay as they were */
		cc_json_kv_string(j, "model", cc_sim_model_name[o->model]);
	sim_launch_json(j, &o->launch);
	if (o->scenario) {
		/* Every default filled in: the file says how it was produced. */
		cc_json_key(j, "scenario");
		cc_scenario_json(j, o->scenario);
	}
	cc_json_key(j, "sizes");
	cc_json_array_begin(j);
}

/* Per-rank counters: each a uint64_t member of struct cc_sim_rank_stats. */
static const struct {
	const char *key;
	size_t offset;
} rank_counters[] = {
	{"data_bytes_sent", offsetof(struct cc_sim_rank_stats, data_bytes)},
	{"wire_bytes_sent", offsetof(struct cc_sim_rank_stats, wire_bytes)},
	{"wire_pkts", offsetof(struct cc_sim_rank_stats, wire_pkts)},
	{"payload_bytes", offsetof(struct cc_sim_rank_stats, payload_bytes)},
	{"acks", offsetof(struct cc_sim_rank_stats, acks)},
	{"lost_pkts", offsetof(struct cc_sim_rank_stats, lost_pkts)},
	{"rnr_naks", offsetof(struct cc_sim_rank_stats, rnr_naks)},
	{"retx_pkts", offsetof(struct cc_sim_rank_stats, retx_pkts)},
	{"retx_bytes", offsetof(struct cc_sim_rank_stats, retx_bytes)},
	{"timeouts", offsetof(struct cc_sim_rank_stats, timeouts)},
	{"ecn_rx", offsetof(struct cc_sim_rank_stats, ecn_rx)},
	{"cnps_sent", offsetof(struct cc_sim_rank_stats, cnps_sent)},
	{"cnps_rx", offsetof(struct cc_sim_rank_stats, cnps_rx)},
	{"rate_cuts", offsetof(struct cc_sim_rank_stats, rate_cuts)},
	{"wqes", offsetof(struct cc_sim_rank_stats, wqes)},
	{"ops_done", offsetof(struct cc_sim_rank_stats, ops_done)},
	/* Host staging: what the GPU's kernel moved across its PCIe link. */
	{"gpu_host_read_bytes", offsetof(struct cc_sim_rank_stats, gpu_host_read_bytes)},
	{"gpu_host_write_bytes", offsetof(struct cc_sim_rank_stats, gpu_host_write_bytes)},
};

static uint64_t rank_u64(const struct cc_sim_result *res, uint32_t r, size_t offset)
{
	uint64_t v;

	memcpy(&v, (const char *)&res->rank[r] + offset, sizeof(v));
	return v;
}

/* One flat array of the uint64_t at `offset` in every rank's stats, as is
 * or (us) as picoseconds turned into microseconds. */
static void per_rank(struct cc_json *j, const char *key, const struct cc_sim_result *res,
		     size_t offset, bool us)
{
	if (key)
		cc_json_key(j, key);
	cc_json_array_begin_flat(j);
	for (uint32_t r = 0; res->rank && r < res->nranks; r++) {
		uint64_t v = rank_u64(res, r, offset);

		if (us)
			cc_json_double(j, (double)v / 1e6);
		else
			cc_json_uint(j, v);
	}
	cc_json_array_end(j);
}

static void time_pair(struct cc_json *j, const char *us_key, const char *ps_key, sim_time_ps t)
{
	cc_json_kv_double(j, us_key, (double)t / 1e6);
	cc_json_kv_uint(j, ps_key, t);
}


/* Every link direction's counters, as --links writes them (docs/plots.md):
 * per-link bytes, queue peak, losses, pauses, ECN marks, ECMP flows. */
static void links_json(struct cc_json *j, const struct cc_sim_result *res)
{
	cc_json_key(j, "links");
	cc_json_array_begin(j);
	for (uint32_t i = 0; i < res->nlinks; i++) {
		const struct cc_sim_link_stats *l = &res->links[i];

		cc_json_object_begin(j);
		cc_json_kv_string(j, "from", l->from);
		cc_json_kv_string(j, "to", l->to);
		cc_json_kv_string(j, "kind", cc_sim_link_kind(l));
		cc_json_kv_uint(j, "rate_bps", l->rate_bps);
		cc_json_kv_uint(j, "tx_pkts", l->tx_pkts);
		cc_json_kv_uint(j, "tx_bytes", l->tx_bytes);
		cc_json_kv_uint(j, "tx_payload_bytes", l->tx_payload_bytes);
		time_pair(j, "busy_us", "busy_ps", l->busy_ps);
		cc_json_kv_uint(j, "peak_queue_bytes", l->peak_queue_bytes);
		cc_json_kv_uint(j, "lost", l->lost);
		cc_json_kv_uint(j, "pauses", l->pauses);
		time_pair(j, "paused_us", "paused_ps", l->paused_ps);
		cc_json_kv_uint(j, "credit_stalls", l->credit_stalls);
		cc_json_kv_uint(j, "ecn_marks", l->ecn_marks);
		cc_json_kv_uint(j, "flows", l->flows);
		cc_json_object_end(j);
	}
	cc_json_array_end(j);
}

void sim_json_size(struct cc_json *j, const struct cc_result_row *row,
		   const struct cc_sim_result *res, sim_time_ps bound_ps, bool bound_checked,
		   bool bound_ok)
{
	double algbw = 0, busbw = 0; /* read only when the time is known */
	bool have_bw = cc_result_bw(row->size, row->time_us, row->busbw_factor, &algbw, &busbw);

	cli_json_size_begin(j, row);
	time_pair(j, "time_us", "time_ps", res->time_ps);
	cli_json_double_or_null(j, "algbw_gbps", have_bw, algbw);
	cli_json_double_or_null(j, "busbw_gbps", have_bw, busbw);
	time_pair(j, "bound_us", "bound_ps", bound_ps);
	if (res->launch_floor_ps) { /* a launch floor applies: GPU memory, no graph */
		time_pair(j, "launch_floor_us", "launch_floor_ps", res->launch_floor_ps);
		cc_json_kv_bool(j, "launch_bound", res->launch_bound);
	}
	cc_json_key(j, "bound_ok");
	if (bound_checked)
		cc_json_bool(j, bound_ok);
	else
		cc_json_null(j);
	cc_json_key(j, "wrong");
	if (row->unchecked)
		cc_json_null(j);
	else
		cc_json_uint(j, res->wrong);
	cli_json_status(j, &res->err);
	cc_json_kv_uint(j, "events", res->events);
	cc_json_kv_uint(j, "peak_pending", res->peak_pending);
	cc_json_kv_uint(j, "switch_drops", res->switch_drops);
	cc_json_kv_uint(j, "pause_frames", res->pause_frames);
	cc_json_kv_uint(j, "ecn_marks", res->ecn_marks);
	cc_json_kv_uint(j, "mem_bytes", res->mem_bytes);
	for (size_t i = 0; i < sizeof(rank_counters) / sizeof(rank_counters[0]); i++)
		per_rank(j, rank_counters[i].key, res, rank_counters[i].offset, false);
	per_rank(j, "done_us", res, offsetof(struct cc_sim_rank_stats, done_ps), true);
	/* Busy time per resource and rank; they overlap, so they need not add
	 * up to the run's time (sim/exec.h). */
	cc_json_key(j, "phases");
	cc_json_object_begin(j);
	for (int p = 0; p < CC_SIM_PHASE_COUNT; p++) {
		cc_json_key(j, cc_sim_phase_name[p]);
		per_rank(j, NULL, res, offsetof(struct cc_sim_rank_stats, busy_ps) +
			 (size_t)p * sizeof(sim_time_ps), true);
	}
	cc_json_object_end(j);
	links_json(j, res);
	cc_json_object_end(j);
}
