/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/gpu_map.c — a rank's GPU (gpu_map.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backend/gpu_map.h"
#include "backend/launch.h"

int cc_gpu_map_parse(const char *s, struct cc_gpu_map *m, char *why, size_t len)
{
	const char *p = s;

	m->n = 0;
	for (;;) {
		unsigned v = 0, digits = 0;

		while (*p >= '0' && *p <= '9') {
			v = v * 10 + (unsigned)(*p++ - '0');
			if (++digits > 4 || v > CC_GPU_DEVICE_MAX) {
				snprintf(why, len, "entry %u: a device number is at most %d",
					 m->n + 1, CC_GPU_DEVICE_MAX);
				return -EINVAL;
			}
		}
		if (!digits || (*p && *p != ',')) {
			snprintf(why, len, "entry %u: expected device numbers separated by commas, "
				 "such as 0,1,2,3", m->n + 1);
			return -EINVAL;
		}
		if (m->n == CC_GPU_MAP_MAX) {
			snprintf(why, len, "more than %d entries", CC_GPU_MAP_MAX);
			return -EINVAL;
		}
		m->dev[m->n++] = (uint16_t)v;
		if (!*p)
			return 0;
		p++;
	}
}

int cc_gpu_local_rank(const char *const *envp, int *local, const char **from, char *why,
		      size_t len)
{
	static const char *const var[] = {
		[CC_LAUNCH_LOCAL] = "CCLAB_LOCAL_RANK",
		[CC_LAUNCH_OPENMPI] = "OMPI_COMM_WORLD_LOCAL_RANK",
		[CC_LAUNCH_PMI] = "MPI_LOCALRANKID",
		[CC_LAUNCH_SLURM] = "SLURM_LOCALID",
	};
	struct cc_launch l;
	const char *v;
	int rc;

	*local = -1;
	*from = "";
	if ((rc = cc_launch_detect(envp, &l, why, len)))
		return rc;
	if (l.local_rank >= 0 && l.launcher != CC_LAUNCH_NONE) {
		*local = l.local_rank;
		*from = var[l.launcher];
		return 0;
	}
	/* torchrun and other launchers that give only LOCAL_RANK */
	if ((rc = cc_env_get(envp, "LOCAL_RANK", &v, why, len)))
		return rc;
	if (!v)
		return 0;
	long n = 0;
	const char *p = v;
	while (*p >= '0' && *p <= '9' && n <= CC_LAUNCH_MAX_RANKS)
		n = n * 10 + (*p++ - '0');
	if (p == v || *p || n > CC_LAUNCH_MAX_RANKS) {
		snprintf(why, len, "LOCAL_RANK='%s': expected a number 0..%d", v,
			 CC_LAUNCH_MAX_RANKS);
		return -EINVAL;
	}
	*local = (int)n;
	*from = "LOCAL_RANK";
	return 0;
}

int cc_gpu_pick(const struct cc_gpu_map *m, int local, uint32_t rank, int ngpus, int *dev,
		char *why, size_t len)
{
	if (ngpus < 1) {
		snprintf(why, len, "no GPU visible");
		return -EINVAL;
	}
	if (m && m->n) {
		if (local < 0) {
			snprintf(why, len, "--device-map: the launcher gives no local rank "
				 "(CCLAB_LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, "
				 "SLURM_LOCALID or LOCAL_RANK) to index it with");
			return -EINVAL;
		}
		if ((uint32_t)local >= m->n) {
			snprintf(why, len, "--device-map has %u entries, local rank %d needs one more "
				 "at least", m->n, local);
			return -EINVAL;
		}
		if (m->dev[local] >= ngpus) {
			snprintf(why, len, "--device-map: local rank %d's GPU %u, but %d GPU%s visible "
				 "(0..%d; CUDA_VISIBLE_DEVICES renumbers them)", local,
				 m->dev[local], ngpus, ngpus == 1 ? " is" : "s are", ngpus - 1);
			return -EINVAL;
		}
		*dev = m->dev[local];
		return 0;
	}
	*dev = (int)((local >= 0 ? (uint32_t)local : rank) % (uint32_t)ngpus);
	return 0;
}
