/* SPDX-License-Identifier: BSD-3-Clause */
/* core/nccl_tune_int.h — what the files of NCCL's tuning model share:
 * nccl_version.c (releases, names), nccl_env.c (NCCL_* variables),
 * nccl_graph.c (the topology search and channel counts), nccl_consts.c
 * (tuning.cc's tables per release) and nccl_tune.c (the model and the
 * choice).  Callers see core/nccl_tune.h only. */
#ifndef CCLAB_CORE_NCCL_TUNE_INT_H
#define CCLAB_CORE_NCCL_TUNE_INT_H

#include "nccl_tune.h"

/* Whether v is major.minor.patch or newer. */
static inline bool cc_nccl_ge(const struct cc_nccl_version *v, uint32_t major, uint32_t minor,
			      uint32_t patch)
{
	return cc_nccl_version_cmp(v, major, minor, patch) >= 0;
}

/* NCCL's compute capability of an architecture (70, 80, 90, 100): the
 * rules compare it (ccMin > 80, minCompCap >= 90, ...). */
int cc_nccl_compcap(enum cc_gpu_arch a);

/* MAXCHANNELS (src/include/device.h): 32 up to 2.24, 64 from 2.25. */
uint32_t cc_nccl_maxchannels(const struct cc_nccl_version *v);

/* GPUs per node. */
static inline uint32_t cc_nccl_ppn(const struct cc_nccl_system *s)
{
	return s->nranks / s->nnodes;
}

/* One NVLink's rate as NCCL's topology counts it (topo.h
 * ncclTopoNVLinkBw: SM70/SM80 20; SM90 20.0, 20.6 from 2.20.3; SM100 40.0
 * from 2.25, 40.1 from 2.27.5), GB/s. */
double cc_nccl_nvlink_bw(const struct cc_nccl_comm *c);

/* Fills the graphs, c->nchannels and c->nvls_nchannels (nccl_graph.c)
 * from c->version, c->sys and c->env, which are checked already. */
void cc_nccl_graphs(struct cc_nccl_comm *c);

/* NCCL's hardware classes of tuning.cc's hwLat: NVLink, PCI, network. */
enum cc_nccl_hw { CC_NCCL_HW_NVLINK, CC_NCCL_HW_PCI, CC_NCCL_HW_NET, CC_NCCL_HW_COUNT };

/* Columns of the per-architecture tables: 1 node, 2 nodes, more. */
#define CC_NCCL_NODE_CLASSES 3

/* tuning.cc's constants as one release has them (nccl_consts.c). */
struct cc_nccl_consts {
	double base_lat[CC_NCCL_ALGO_COUNT][CC_PROTO_COUNT];
	double hw_lat[CC_NCCL_HW_COUNT][CC_NCCL_ALGO_COUNT][CC_PROTO_COUNT];
	/* llMaxBws: rows Volta..Blackwell on one node; on several nodes row
	 * 0 for Intel (and other) CPUs, row 1 for AMD (tuning.cc index1). */
	double ll_max_bw[CC_GPU_ARCH_COUNT][CC_NCCL_NODE_CLASSES];
	double ring_ll128_bw[CC_GPU_ARCH_COUNT][CC_NCCL_NODE_CLASSES];
	double tree_ll128_bw[CC_GPU_ARCH_COUNT][CC_NCCL_NODE_CLASSES];
	double tree_bw[CC_GPU_ARCH_COUNT][CC_NCCL_NODE_CLASSES];
	double nvls_tree_bw[CC_GPU_ARCH_COUNT][CC_NCCL_NODE_CLASSES]; /* 2.28 on */
	double nvls_efficiency[CC_GPU_ARCH_COUNT];                    /* 2.28 on */
};
void cc_nccl_consts_get(const struct cc_nccl_version *v, struct cc_nccl_consts *k);

#endif /* CCLAB_CORE_NCCL_TUNE_INT_H */
