/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/gpu_path.h — how a rank's GPU buffers meet the RNIC: dma-buf,
 * peer memory, or host staging, chosen from facts as NCCL chooses
 * (src/graph/topo.cc gdrSupport, src/graph/paths.cc ncclTopoCheckGdr,
 * src/transport/net.cc's registration), with a one-line reason.  Pure:
 * the facts are gathered elsewhere (cli/verbs_gpu.c), so every
 * combination is tested without a GPU (tests/test_gpu_path.c). */
#ifndef CCLAB_BACKEND_GPU_PATH_H
#define CCLAB_BACKEND_GPU_PATH_H

#include <stdbool.h>
#include <stddef.h>

#include "core/nccl_tune.h"

enum cc_gpu_path {
	CC_GPU_PATH_DMABUF,       /* ibv_reg_dmabuf_mr on cc_gpu_dmabuf_fd's fd */
	CC_GPU_PATH_PEERMEM,      /* ibv_reg_mr on device pointers (nvidia_peermem) */
	CC_GPU_PATH_HOST_STAGING, /* staging in pinned, GPU-mapped host memory */
	CC_GPU_PATH_COUNT
};
extern const char *const cc_gpu_path_name[CC_GPU_PATH_COUNT]; /* "dma-buf", ... */

/* What the user asked for: --gpu-dma. */
enum cc_gpu_dma { CC_GPU_DMA_AUTO, CC_GPU_DMA_GDR, CC_GPU_DMA_HOST_STAGING, CC_GPU_DMA_COUNT };
extern const char *const cc_gpu_dma_name[CC_GPU_DMA_COUNT]; /* "auto", "gdr", "host-staging" */

struct cc_gpu_facts {
	bool cuda;           /* a CUDA build and a usable device (cc_gpu_available) */
	int gpu_dmabuf;      /* CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED: 1, 0, -1 unknown */
	int nic_dmabuf;      /* the provider's ibv_reg_dmabuf_mr probe: 1, 0, -1 not run */
	bool dmabuf_disable; /* NCCL_DMABUF_ENABLE=0 */
	bool peermem;        /* cc_gpu_peermem_loaded() */
	int distance;        /* GPU-NIC, an enum cc_nccl_path (backend/pcie.h); -1 unknown */
	int gdr_level;       /* NCCL_NET_GDR_LEVEL, an enum cc_nccl_path; -1 unset */
	enum cc_gpu_dma want;
};

/* The path for these facts, and why in one line.  0; -ENODEV without a
 * usable GPU (cuda false); -EOPNOTSUPP when want is CC_GPU_DMA_GDR and
 * neither dma-buf nor peer memory works (why says what is missing). */
int cc_gpu_path_choose(const struct cc_gpu_facts *f, enum cc_gpu_path *out, char *why,
		       size_t len);

/* --gpu-dma's word; -EINVAL when it is none of cc_gpu_dma_name. */
int cc_gpu_dma_parse(const char *s, enum cc_gpu_dma *out);

#endif /* CCLAB_BACKEND_GPU_PATH_H */
