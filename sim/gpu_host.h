/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/gpu_host.h — a GPU kernel that reads and writes pinned host memory,
 * across the GPU's own PCIe link: what host staging costs the GPU.
 *
 * Without GPUDirect RDMA the NIC cannot reach GPU memory, so NCCL puts a
 * connection's Simple-protocol buffers in host memory allocated with
 * cudaHostAlloc and mapped into the GPU (src/transport/net.cc,
 * sendProxyConnect / recvProxyConnect: the buffers are NCCL_NET_MAP_DEVMEM
 * only when useGdr).  The kernel's primitives (src/device/prims_simple.h)
 * then load the receive FIFO and store the send FIFO through that mapping:
 * every byte of a staging slot crosses the GPU's PCIe link once — loads as
 * read requests up and completions down, stores as posted writes up — and
 * the NIC DMAs host memory instead of GPU memory (its own link, unchanged).
 * No cudaMemcpy is involved: the copy out of (or into) the staging slot is
 * the primitive's own reduce/copy.
 *
 * The GPU's link has the NIC's PCIe parameters (pcie.*): both sit in x16
 * slots of one generation on the nodes the presets describe, and MPS is a
 * property of the hierarchy, not of one device.  The GPU's own read
 * request size is not published; completions are split at MPS as for the
 * NIC (sim/pcie.h), which is at worst slightly optimistic for staging.
 *
 * Cost of one job that reads `rd` bytes from and writes `wr` bytes to host
 * memory, on an idle link (the GPU's lanes move their bytes one job at a
 * time, sim/compute.h, and nothing else uses this link), with ser() =
 * sim/pcie.h's per-TLP
 * serialization and L = pcie.latency_ps:
 *   S_up   = MWr TLPs of wr (at most MPS payload, + tlp_overhead_bytes each)
 *          + ceil(rd / MRRS) MRd TLPs of tlp_overhead_bytes
 *   S_down = CplD TLPs of rd: each request's bytes at most MPS per TLP,
 *            + cpl_overhead_bytes each
 *   T      = [rd > 0] (ser(MRd) + 2 L)
 *          + max(S_up - [rd > 0] ser(MRd), S_down) + [wr > 0] L
 * The SMs keep many loads and stores in flight, so after the first read's
 * round trip (its request out, a flight each way) both directions stream
 * at once and the job lasts as long as the busier one; the last store
 * lands a flight later.  A read alone is sim/pcie.h's DMA read, a write
 * alone its DMA write, to the picosecond (tests/test_sim_staging.c runs
 * both models side by side).
 *
 * The job's HBM traffic (the operands in GPU memory) runs alongside, on
 * the memory controllers, not on this link: sim/compute.h charges a job
 * max(HBM time, T) — the two overlap, and the slower bounds the job
 * (a roofline with two memory paths).  Integer math, rate 0 = unlimited.
 */
#ifndef CCLAB_SIM_GPU_HOST_H
#define CCLAB_SIM_GPU_HOST_H

#include <stdint.h>

#include "sim/params.h"
#include "sim/pcie.h"
#include "sim/time.h"

/* One job's cost.  dir_ps[SIM_PCIE_UP] is S_up (GPU to host), dir_ps
 * [SIM_PCIE_DOWN] S_down; ps is T.  All 0 for rd = wr = 0. */
struct sim_gpu_host_cost {
	sim_time_ps ps;
	sim_time_ps dir_ps[SIM_PCIE_NDIR];
	uint64_t wire[SIM_PCIE_NDIR]; /* TLP bytes each way, headers included */
};

void sim_gpu_host_cost(const struct sim_pcie_params *pp, uint64_t rd, uint64_t wr,
		       struct sim_gpu_host_cost *out);

/* One GPU's link, as the run's counters see it. */
struct sim_gpu_host {
	const struct sim_pcie_params *pp;
	uint64_t bytes[SIM_PCIE_NDIR];       /* UP: written to host; DOWN: read from it */
	sim_time_ps busy_ps[SIM_PCIE_NDIR];  /* serialization of the jobs charged */
};

void sim_gpu_host_init(struct sim_gpu_host *g, const struct sim_pcie_params *pp);

/* T of a job (0 when it touches no host memory), counted. */
sim_time_ps sim_gpu_host_charge(struct sim_gpu_host *g, uint64_t rd, uint64_t wr);

#endif /* CCLAB_SIM_GPU_HOST_H */
