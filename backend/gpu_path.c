/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/gpu_path.c — dma-buf, peer memory or host staging for a rank's
 * GPU buffers (gpu_path.h), by NCCL's rules:
 *
 *   1. The NIC side of GPUDirect RDMA (src/graph/topo.cc):
 *        gdrSupport = (ptrSupport & NCCL_PTR_CUDA)
 *                     || (comm->dmaBufSupport && (ptrSupport & NCCL_PTR_DMABUF))
 *      NCCL_PTR_CUDA: a peer-memory client is loaded (net_ib ncclIbGdrSupport);
 *      NCCL_PTR_DMABUF: the provider takes dma-buf MRs (ncclIbDmaBufSupport's
 *      probe); dmaBufSupport: NCCL_DMABUF_ENABLE (default 1) and the GPU's
 *      CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED (src/init.cc dmaBufSupported).
 *   2. The distance (src/graph/paths.cc ncclTopoCheckGdr): GDR only when
 *      the GPU-NIC path is no longer than netGdrLevel, PATH_PXB unless
 *      NCCL_NET_GDR_LEVEL says otherwise (P2C on C2C platforms, which a
 *      PCIe-only path never reaches: the same answer for PIX..SYS).
 *   3. The registration (src/transport/net.cc sendProxyConnect /
 *      recvProxyConnect): dma-buf when both sides support it, else
 *      "FALL-THROUGH to nv_peermem GDR path"; without GDR the Simple
 *      buffers go to cudaHostAlloc'd host memory.
 *
 * --gpu-dma gdr skips rule 2 (the distance is advice; the mechanism in
 * rule 1 is not) and is refused without a mechanism; host-staging skips
 * all three.  Not modelled: NCCL_NET_GDR_READ (GDR for sends only from
 * Ampere on, or with NVLink), which would split one connection's ends. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backend/gpu_path.h"

const char *const cc_gpu_path_name[CC_GPU_PATH_COUNT] = {
	[CC_GPU_PATH_DMABUF] = "dma-buf",
	[CC_GPU_PATH_PEERMEM] = "peermem",
	[CC_GPU_PATH_HOST_STAGING] = "host-staging",
};

const char *const cc_gpu_dma_name[CC_GPU_DMA_COUNT] = {
	[CC_GPU_DMA_AUTO] = "auto",
	[CC_GPU_DMA_GDR] = "gdr",
	[CC_GPU_DMA_HOST_STAGING] = "host-staging",
};

int cc_gpu_dma_parse(const char *s, enum cc_gpu_dma *out)
{
	for (int i = 0; i < CC_GPU_DMA_COUNT; i++)
		if (!strcmp(s, cc_gpu_dma_name[i])) {
			*out = (enum cc_gpu_dma)i;
			return 0;
		}
	return -EINVAL;
}

/* Why dma-buf is out, or NULL when it is in. */
static const char *no_dmabuf(const struct cc_gpu_facts *f)
{
	if (f->dmabuf_disable)
		return "NCCL_DMABUF_ENABLE=0";
	if (f->gpu_dmabuf != 1)
		return f->gpu_dmabuf == 0 ? "the GPU has no dma-buf support"
					  : "the GPU's dma-buf support is unknown";
	if (f->nic_dmabuf != 1)
		return f->nic_dmabuf == 0 ? "the RDMA provider or kernel has no dma-buf MRs"
					  : "the RDMA provider was not probed for dma-buf MRs";
	return NULL;
}

static const char *path_name(int p)
{
	return p >= 0 && p < CC_NCCL_PATH_COUNT ? cc_nccl_path_name[p] : "?";
}

int cc_gpu_path_choose(const struct cc_gpu_facts *f, enum cc_gpu_path *out, char *why,
		       size_t len)
{
	const char *nodma = no_dmabuf(f);
	enum cc_gpu_path gdr = nodma ? CC_GPU_PATH_PEERMEM : CC_GPU_PATH_DMABUF;
	int level = f->gdr_level >= 0 ? f->gdr_level : CC_NCCL_PATH_PXB;
	char dist[64], mech[160];

	if (!f->cuda) {
		snprintf(why, len, "no usable GPU");
		return -ENODEV;
	}
	if (f->want == CC_GPU_DMA_HOST_STAGING) {
		*out = CC_GPU_PATH_HOST_STAGING;
		snprintf(why, len, "--gpu-dma host-staging");
		return 0;
	}
	if (nodma && !f->peermem) {
		snprintf(why, len, "no GPUDirect RDMA: no peer-memory client (nvidia_peermem) and no "
			 "dma-buf (%s)", nodma);
		if (f->want == CC_GPU_DMA_GDR)
			return -EOPNOTSUPP;
		*out = CC_GPU_PATH_HOST_STAGING;
		return 0;
	}
	if (f->distance >= 0)
		snprintf(dist, sizeof(dist), "GPU-NIC distance %s", path_name(f->distance));
	else
		snprintf(dist, sizeof(dist), "GPU-NIC distance unknown");
	if (nodma)
		snprintf(mech, sizeof(mech), "peer memory (nvidia_peermem; no dma-buf: %s)", nodma);
	else
		snprintf(mech, sizeof(mech), "dma-buf (GPU and RDMA provider support it)");
	if (f->want == CC_GPU_DMA_GDR) {
		*out = gdr;
		snprintf(why, len, "--gpu-dma gdr: %s; %s", mech, dist);
		return 0;
	}
	/* ncclTopoCheckGdr: distance > netGdrLevel turns GDR off.  LOC, the
	 * level below every path, turns it off everywhere. */
	if (level == CC_NCCL_PATH_LOC || (f->distance >= 0 && f->distance > level)) {
		*out = CC_GPU_PATH_HOST_STAGING;
		if (level == CC_NCCL_PATH_LOC)
			snprintf(why, len, "NCCL_NET_GDR_LEVEL=LOC turns GPUDirect RDMA off");
		else
			snprintf(why, len, "%s > %s (NCCL_NET_GDR_LEVEL%s): GPUDirect RDMA off", dist,
				 path_name(level), f->gdr_level >= 0 ? "" : "'s default");
		return 0;
	}
	*out = gdr;
	if (f->distance >= 0)
		snprintf(why, len, "%s; %s <= %s", mech, dist, path_name(level));
	else
		snprintf(why, len, "%s; %s, not checked", mech, dist);
	return 0;
}
