/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/pcie.h — how far a GPU and an RNIC are apart on PCIe, in NCCL's
 * distance classes (src/graph/topo.h PATH_*, core/nccl_tune.h's
 * enum cc_nccl_path): what ncclTopoCheckGdr compares with
 * NCCL_NET_GDR_LEVEL (backend/gpu_path.h).
 *
 * Each device is known by its sysfs path, the resolved link
 * /sys/bus/pci/devices/ADDR or /sys/class/infiniband/DEV/device points to:
 *
 *   /sys/devices/pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:00.0/0000:1a:00.0
 *                ^ host bridge (root complex)  ^ PCIe ports and switches  ^ device
 *
 * cc_pcie_classify is pure (string work, tested with made-up paths);
 * cc_pcie_sysfs reads the file system. */
#ifndef CCLAB_BACKEND_PCIE_H
#define CCLAB_BACKEND_PCIE_H

#include <stddef.h>

#include "core/nccl_tune.h"

/* The class of the path between devices a and b, from their sysfs paths
 * and NUMA nodes (-1: unknown), as NCCL's topology ranks it
 * (src/graph/topo.h):
 *   PIX  under the same PCIe switch: each device one port below the
 *        deepest bridge they share ("at most a single PCIe bridge");
 *   PXB  they share a bridge, but one of them sits deeper behind more
 *        switches ("multiple PCIe bridges, without the host bridge");
 *   PHB  the same root complex, or two root complexes of one NUMA node
 *        ("through a PCIe host bridge, typically the CPU");
 *   SYS  root complexes on different NUMA nodes ("across the SMP
 *        interconnect").
 * Two unknown NUMA nodes count as one (a single-node host reports -1).
 * -EINVAL and why when a path is not a PCI device path (no "pciDDDD:BB"
 * component followed by at least one DDDD:BB:DD.F), or a and b are the
 * same device. */
int cc_pcie_classify(const char *a, int a_numa, const char *b, int b_numa,
		     enum cc_nccl_path *out, char *why, size_t len);

/* The PCI address a device path ends in ("0000:1a:00.0"), into buf. */
int cc_pcie_address(const char *path, char *buf, size_t len);

/* The resolved sysfs path and NUMA node of a device: `link` is
 * /sys/bus/pci/devices/ADDR or /sys/class/infiniband/DEV/device.  -errno
 * and why when it does not resolve (a container without /sys, a name
 * that is not there). */
int cc_pcie_sysfs(const char *link, char *path, size_t len, int *numa, char *why,
		  size_t whylen);

#endif /* CCLAB_BACKEND_PCIE_H */
