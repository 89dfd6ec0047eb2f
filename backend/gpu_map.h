/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/gpu_map.h — which GPU a rank uses: --device-map's list, indexed
 * by the rank's local rank, or else the local rank modulo the GPUs this
 * process sees (what nccl-tests does with one GPU per process:
 * cudaSetDevice(localRank % nGpus)).  The local rank comes from the
 * launcher (backend/launch.h: CCLAB_LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK,
 * MPI_LOCALRANKID, SLURM_LOCALID), else torchrun's LOCAL_RANK. */
#ifndef CCLAB_BACKEND_GPU_MAP_H
#define CCLAB_BACKEND_GPU_MAP_H

#include <stddef.h>
#include <stdint.h>

#define CC_GPU_MAP_MAX 1024   /* entries */
#define CC_GPU_DEVICE_MAX 1023 /* a device number above is a typo */

struct cc_gpu_map {
	uint32_t n; /* 0: no map given */
	uint16_t dev[CC_GPU_MAP_MAX];
};

/* "0,1,2,3": plain decimal numbers 0..CC_GPU_DEVICE_MAX, comma-separated,
 * at least one, at most CC_GPU_MAP_MAX.  -EINVAL and why otherwise (an
 * empty entry, a sign, a space, a number too large). */
int cc_gpu_map_parse(const char *s, struct cc_gpu_map *m, char *why, size_t len);

/* The rank's local rank: the launcher's, else LOCAL_RANK (plain decimal),
 * else -1; *from names the variable ("" for none).  envp as
 * cc_launch_detect's (NULL: the process's).  -EINVAL and why for a
 * malformed value. */
int cc_gpu_local_rank(const char *const *envp, int *local, const char **from, char *why,
		      size_t len);

/* The device: m->dev[local] when a map is given (local must be known and
 * below m->n), else local (the rank when local is unknown) modulo ngpus.
 * The device must be below ngpus.  -EINVAL and why otherwise; why then
 * names --device-map or the count. */
int cc_gpu_pick(const struct cc_gpu_map *m, int local, uint32_t rank, int ngpus, int *dev,
		char *why, size_t len);

#endif /* CCLAB_BACKEND_GPU_MAP_H */
