/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/nccl_system.h — the machine as NCCL's topology detection would see
 * it (core/nccl_tune.h struct cc_nccl_system), read off a network and a
 * fabric: nodes and GPUs per node, NVSwitch and NVLink rate, the NICs each
 * node has and their rate, InfiniBand or RoCE, GPUDirect RDMA, the GPU
 * generation and the CPU's maker. */
#ifndef CCLAB_SIM_NCCL_SYSTEM_H
#define CCLAB_SIM_NCCL_SYSTEM_H

#include <stddef.h>

#include "core/nccl_tune.h"
#include "sim/net.h"
#include "sim/params.h"

/* Fills *out from the finished network *net under fabric *f.  0, or
 * -EINVAL with a message in err when NCCL's model cannot describe the
 * network: hosts with different GPU counts (NCCL's tuning assumes one
 * ranks-per-node), or hosts that differ in NICs. */
int sim_nccl_system(const struct sim_net *net, const struct sim_params *f,
		    struct cc_nccl_system *out, char *err, size_t len);

/* What NCCL's IB transport does on the fabric's link layer under env *e:
 * p's adaptive-routing split (cc_nccl_env_ar; InfiniBand: link.type ib or
 * ib-grh), its QPs per connection and whether a message is cut over them
 * (NCCL_IB_QPS_PER_CONNECTION, NCCL_IB_SPLIT_DATA_ON_QPS; IB and RoCE
 * alike), the Simple protocol's buffer (NCCL_BUFFSIZE) and host
 * staging under NCCL_NET_GDR_LEVEL=LOC.  Like
 * cc_sim_stage_for, once the fabric is final and before
 * cc_coll_params_fill. */
void sim_nccl_transport_for(struct cc_coll_params *p, const struct sim_params *f,
			    const struct cc_nccl_env *e);

/* NCCL's GDR rule for NICs on the other CPU socket (host.nic_socket
 * remote, a SYS path): the staging in host memory unless
 * NCCL_NET_GDR_LEVEL is SYS, where the run's ranks span nodes (p's
 * nranks and ranks_per_node set).  A cclab run stages every connection
 * alike, so a node's NVLink connections then stage in host memory too,
 * which NCCL's P2P transport does not (docs/fabric.md). */
void sim_nccl_stage_for(struct cc_coll_params *p, const struct sim_params *f,
			const struct cc_nccl_env *e);

#endif /* CCLAB_SIM_NCCL_SYSTEM_H */
