/* SPDX-License-Identifier: MIT */
/* sim/launch.c — the launching thread's floor under a collective's time
 * (sim/launch.h). */
#include "sim/launch.h"

#include "util/json.h"

sim_time_ps sim_launch_floor_ps(const struct cc_sim_launch *l, const struct sim_sw_params *sw,
				bool gpu_memory)
{
	uint32_t agg = l->agg_iters ? l->agg_iters : 1;

	if (!l->gpus_per_thread || l->cuda_graph || !gpu_memory)
		return 0;
	/* both bounded (CC_SIM_LAUNCH_MAX_GPUS, a time the fabric's
	 * validation caps): the sum cannot overflow; round up, so a
	 * collective is never shorter than its launches */
	sim_time_ps thread = sw->group_cpu_ps + (sim_time_ps)l->gpus_per_thread * sw->launch_cpu_ps;

	return (thread + agg - 1) / agg;
}

void sim_launch_json(struct cc_json *j, const struct cc_sim_launch *l)
{
	if (sim_launch_is_default(l))
		return;
	cc_json_key(j, "launch");
	cc_json_object_begin(j);
	cc_json_kv_uint(j, "gpus_per_thread", l->gpus_per_thread);
	cc_json_kv_uint(j, "agg_iters", l->agg_iters ? l->agg_iters : 1);
	cc_json_kv_bool(j, "cuda_graph", l->cuda_graph);
	cc_json_object_end(j);
}
