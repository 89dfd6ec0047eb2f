/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/nccl_systems.h — machines as NCCL's topology sees them, shared by
 * the tests of NCCL's tuning model (test_nccl_tune.c) and of `auto`
 * (test_nccl_auto.c). */
#ifndef CCLAB_TESTS_NCCL_SYSTEMS_H
#define CCLAB_TESTS_NCCL_SYSTEMS_H

#include <stdint.h>

#include "core/nccl_tune.h"

/* DGX H100: 8 GPUs a node, NVSwitch (18 NVLinks, 450 GB/s), PCIe Gen5
 * x16 (48 GB/s as NCCL counts it), 8 x 400 Gb/s InfiniBand, Intel CPUs. */
static inline struct cc_nccl_system dgx_h100(uint32_t nnodes)
{
	return (struct cc_nccl_system){
		.arch = CC_GPU_HOPPER, .cpu = CC_CPU_INTEL, .nranks = 8 * nnodes, .nnodes = nnodes,
		.nvswitch = true, .nvlink_links = 18, .nvlink_gbs = 450, .pci_gbs = 48,
		.nics_per_node = 8, .nic_gbs = 50, .gdr = true, .ib = true,
	};
}

#endif /* CCLAB_TESTS_NCCL_SYSTEMS_H */
