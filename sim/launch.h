/* SPDX-License-Identifier: MIT */
/* The thread that launches the collective, as a benchmark drives it.
 *
 * nccl-tests times `iters` collectives launched back to back and divides
 * (common.cu BenchTime()).  Kernel launches are asynchronous, so the GPUs
 * run one collective while the thread launches the next, and an iteration
 * takes the longer of the two: the collective on the GPUs (what the
 * simulator runs) or the launching thread's CPU time.  That thread calls
 * NCCL once per GPU it drives (nccl-tests' -g) inside one group, and
 * ncclGroupEnd plans and launches each GPU's kernel in turn (NCCL
 * src/group.cc doLaunches), so its time is software.group_cpu_ps +
 * gpus_per_thread x software.launch_cpu_ps.  -m puts agg_iters collectives
 * in one group, one launch per GPU for all of them: the floor per
 * collective is divided by agg_iters.  -G replays a captured CUDA graph,
 * which skips NCCL's host path: no floor.  A collective on host memory
 * (the CPU reduces) launches no kernel: no floor either. */
#ifndef CCLAB_SIM_LAUNCH_H
#define CCLAB_SIM_LAUNCH_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/params.h"

struct cc_sim_launch {
	uint32_t gpus_per_thread; /* nccl-tests' -g; 0: no floor (the simulator alone) */
	uint32_t agg_iters;       /* nccl-tests' -m: collectives per group; 0 taken as 1 */
	bool cuda_graph;          /* nccl-tests' -G 1 or more: launched from a CUDA graph */
};

#define CC_SIM_LAUNCH_MAX_GPUS 16384u  /* -g a thread drives, at most */
#define CC_SIM_LAUNCH_MAX_AGG 1000000u /* -m, at most (nccl-tests mode's iteration cap) */

/* The least time one collective takes in a benchmark's loop launched as
 * *l on a host whose software costs are *sw: 0 when nothing bounds it
 * (gpus_per_thread 0, a CUDA graph, or host memory: gpu_memory false). */
sim_time_ps sim_launch_floor_ps(const struct cc_sim_launch *l, const struct sim_sw_params *sw,
				bool gpu_memory);

struct cc_json;

/* `"launch": {"gpus_per_thread", "agg_iters", "cuda_graph"}` into an
 * object being written, where *l is not nccl-tests' default (-g 1 -m 1,
 * no graph): a report of a run launched the default way stays as it was. */
void sim_launch_json(struct cc_json *j, const struct cc_sim_launch *l);

/* nccl-tests' default: one GPU a thread, one collective a group. */
#define CC_SIM_LAUNCH_DEFAULT ((struct cc_sim_launch){.gpus_per_thread = 1, .agg_iters = 1})

/* Whether *l launches as that default does (or as the API's zeroed one). */
static inline bool sim_launch_is_default(const struct cc_sim_launch *l)
{
	return l->gpus_per_thread <= 1 && l->agg_iters <= 1 && !l->cuda_graph;
}

#endif
