/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/nccl_system.c — a network and a fabric, as NCCL's topology sees
 * them (sim/nccl_system.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sim/nccl_system.h"
#include "sim/topo.h"

static bool link_ib(const struct sim_params *f)
{
	return f->link.type == SIM_LINK_IB || f->link.type == SIM_LINK_IB_GRH;
}

/* The network ports of rank r's NIC, and the rate of its first one. */
static uint32_t nic_net_ports(const struct sim_net *net, const struct sim_params *f, uint32_t r,
			      uint64_t *rate_bps)
{
	const struct sim_net_node *u = &net->nodes[net->rank_node[r]];
	uint32_t n = 0;

	for (uint32_t p = 0; p < u->nports; p++) {
		const struct sim_net_link *l = &net->links[u->port_link[p]];

		if (l->kind != SIM_NET_LINK_NET)
			continue;
		if (!n++)
			*rate_bps = sim_topo_link_rate(l, f);
	}
	return n;
}

int sim_nccl_system(const struct sim_net *net, const struct sim_params *f,
		    struct cc_nccl_system *out, char *err, size_t len)
{
	uint32_t ppn = sim_net_ranks_per_node(net);
	uint64_t rate = 0;

	memset(out, 0, sizeof(*out));
	if (!net->nranks || !net->nhosts) {
		snprintf(err, len, "the topology has no GPUs");
		return -EINVAL;
	}
	if (!ppn) {
		snprintf(err, len, "its hosts have different numbers of GPUs; NCCL's tuning model "
			 "(core/nccl_tune.h) takes one GPU count per node");
		return -EINVAL;
	}
	out->arch = f->host.gpu_arch;
	out->cpu = f->host.cpu_vendor;
	out->nranks = net->nranks;
	out->nnodes = net->nhosts;
	/* One NVSwitch per host, or none: every host alike */
	out->nvswitch = true;
	for (uint32_t h = 0; h < net->nhosts; h++)
		out->nvswitch = out->nvswitch && net->hosts[h].nvswitch != SIM_NET_NONE;
	out->nvswitch = out->nvswitch && ppn > 1;
	out->nvlink_links = out->nvswitch ? f->host.nvlink_links : 0;
	out->nvlink_gbs = out->nvswitch ? (double)f->host.nvlink_bps / 8e9 : 0;
	out->pci_gbs = (double)f->pcie.rate_bps / 8e9;
	if (f->host.nic_socket == SIM_NIC_SOCKET_REMOTE)
		out->sys_gbs = (double)f->host.socket_link_bytes_per_s / 1e9; /* 0: unlimited */
	/* NICs per node: the network ports of the first host's GPUs; every
	 * other host must have as many (NCCL's search assumes alike nodes). */
	for (uint32_t h = 0; h < net->nhosts; h++) {
		const struct sim_net_host *ho = &net->hosts[h];
		uint32_t ports = 0;

		for (uint32_t g = 0; g < ho->ngpus; g++)
			ports += nic_net_ports(net, f, ho->first_rank + g, &rate);
		if (h == 0) {
			out->nics_per_node = ports;
			out->nic_gbs = (double)rate / 8e9;
		} else if (ports != out->nics_per_node) {
			snprintf(err, len, "host %s has %u network ports and host %s %u; NCCL's "
				 "tuning model takes alike nodes", net->hosts[0].name,
				 out->nics_per_node, ho->name, ports);
			return -EINVAL;
		}
	}
	out->net_latency_us = 0; /* net_ib reports latency 0 (ncclIbGetProperties) */
	out->gdr = f->host.gpu_dma == SIM_GPU_DMA_GPUDIRECT;
	out->ib = link_ib(f);
	/* CollNet's SHARP plugin: InfiniBand switches with SHARP (sim/sharp.c);
	 * the GPU's buffers handed to the NIC: GPUDirect RDMA (core/collnet.c
	 * builds no host-staged path) */
	out->collnet = out->ib && (f->sw.sharp || sim_net_has_sharp(net)) && out->gdr;
	return 0;
}

void sim_nccl_transport_for(struct cc_coll_params *p, const struct sim_params *f,
			    const struct cc_nccl_env *e)
{
	cc_nccl_env_ar(e, link_ib(f), &p->ar_split, &p->ar_threshold);
	p->qps_per_conn = e->ib_qps_per_connection ? e->ib_qps_per_connection : 1;
	p->split_on_qps = e->ib_split_data_on_qps == 1;
	p->gdr_flush = cc_nccl_env_gdr_flush(e, f->host.gpu_arch);
	p->buff_bytes = e->buffsize;
	p->nvls_chunk_bytes = e->nvls_chunksize;
	p->nvlstree_max_chunk_bytes = e->nvlstree_max_chunksize;
	/* NCCL_NET_GDR_LEVEL: GDR where the GPU-NIC PCIe path is no longer
	 * than the level (ncclTopoCheckGdr); unset, PXB (P2C from 2.29), both
	 * below SYS.  A host here puts each GPU's NIC behind the GPU's PCIe
	 * switch (PIX), so only LOC turns it off, or on the other socket
	 * (SYS), which only SYS allows; a fabric without GPUDirect RDMA stays
	 * without whatever the level (the SYS case: sim_nccl_stage_for()). */
	if (e->net_gdr_level == CC_NCCL_PATH_LOC)
		p->stage_mem = CC_MEM_HOST;
}

void sim_nccl_stage_for(struct cc_coll_params *p, const struct sim_params *f,
			const struct cc_nccl_env *e)
{
	if (f->host.nic_socket == SIM_NIC_SOCKET_REMOTE && e->net_gdr_level < (int)CC_NCCL_PATH_SYS &&
	    (!p->ranks_per_node || p->nranks > p->ranks_per_node))
		p->stage_mem = CC_MEM_HOST;
}
