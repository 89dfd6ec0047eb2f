/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/params.c — the preset fabrics, the field table, printing and checks.
 *
 * Every preset number carries its source in a comment; "assumed" marks a
 * value no public figure pins down, with the reasoning.  docs/fabric.md has
 * the same tables for users.  Short names used below:
 *   IBA      InfiniBand Architecture Specification Vol. 1 (9.7.6.1.3 RNR NAK
 *            timer table, 9.7.6.1.2 local ACK timeout, 7.9 credits)
 *   AN846    Intel AN 846 "Stratix 10 Forward Error Correction", 100GBASE-KP4
 *            mapping: 50G payload * 66/64 * 34/33 = 53.125 Gb/s lane
 *   NCCL     NVIDIA/nccl src/transport/net_ib.cc (v2.19): ncclIbRtrQp()
 *            min_rnr_timer 12; ncclIbRtsQp() rnr_retry 7, IB_TIMEOUT 18,
 *            IB_RETRY_CNT 7; ibvSpeeds[] HDR 50000, NDR 100000 Mb/s per lane
 *   rxe      Linux drivers/infiniband/sw/rxe/rxe_param.h
 *   mlx5     rdma-core providers/mlx5 (MLX5_SEND_WQE_BB, BlueFlame copy)
 *   perftest linux-rdma/perftest perftest_parameters.h
 *   pcie-bench  Neugebauer et al., "Understanding PCIe performance for end
 *            host networking", SIGCOMM 2018: pcie-bench/pcie-model
 *            model/pcie.py (TLP sizes) and pcie-bench/data (NFP-6000 on
 *            Xeon E5-2630v4, Gen3 x8, no IOMMU, lat_dma_sizes.txt: DMA
 *            read of 8..64 B, median 546 ns)
 */
#include "sim/params.h"

#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <string.h>

/* Enums are printed and set through a 4-byte slot. */
_Static_assert(sizeof(enum sim_link) == 4, "enum size");
_Static_assert(sizeof(enum sim_flow_ctrl) == 4, "enum size");
_Static_assert(sizeof(enum sim_switch_mode) == 4, "enum size");
_Static_assert(sizeof(enum sim_switch_sched) == 4, "enum size");
_Static_assert(sizeof(enum sim_pcie_gen) == 4, "enum size");
_Static_assert(sizeof(enum sim_gpu_dma) == 4, "enum size");

const char *const sim_flow_ctrl_name[SIM_FC_COUNT] = {
	[SIM_FC_CREDIT] = "credit",
	[SIM_FC_PFC] = "pfc",
	[SIM_FC_NONE] = "none",
};

const char *const sim_switch_mode_name[SIM_SWITCH_MODE_COUNT] = {
	[SIM_SWITCH_CUT_THROUGH] = "cut-through",
	[SIM_SWITCH_STORE_FORWARD] = "store-and-forward",
};

const char *const sim_switch_sched_name[SIM_SWITCH_SCHED_COUNT] = {
	[SIM_SWITCH_FIFO] = "fifo",
	[SIM_SWITCH_FAIR] = "fair",
};

const char *const sim_pcie_gen_name[SIM_PCIE_GEN_COUNT] = {
	[SIM_PCIE_GEN1] = "gen1",
	[SIM_PCIE_GEN2] = "gen2",
	[SIM_PCIE_GEN3] = "gen3",
	[SIM_PCIE_GEN4] = "gen4",
	[SIM_PCIE_GEN5] = "gen5",
};

const char *const sim_gpu_dma_name[SIM_GPU_DMA_COUNT] = {
	[SIM_GPU_DMA_GPUDIRECT] = "gpudirect-rdma",
	[SIM_GPU_DMA_HOST_STAGING] = "host-staging",
};

const char *const sim_nic_socket_name[SIM_NIC_SOCKET_COUNT] = {
	[SIM_NIC_SOCKET_LOCAL] = "local",
	[SIM_NIC_SOCKET_REMOTE] = "remote",
};

/* PCIe base specification: transfer rate per lane and line code. */
static const struct {
	uint64_t mts; /* mega-transfers per second per lane */
	uint32_t num, den;
} pcie_gen[SIM_PCIE_GEN_COUNT] = {
	[SIM_PCIE_GEN1] = {2500, 8, 10},
	[SIM_PCIE_GEN2] = {5000, 8, 10},
	[SIM_PCIE_GEN3] = {8000, 128, 130},
	[SIM_PCIE_GEN4] = {16000, 128, 130},
	[SIM_PCIE_GEN5] = {32000, 128, 130},
};

#define NS(x) ((sim_time_ps)(x) * SIM_PS_PER_NS)
#define US(x) ((sim_time_ps)(x) * SIM_PS_PER_US)
#define GBIT(x) ((uint64_t)(x) * UINT64_C(1000000000))
#define GBYTE_S(x) ((uint64_t)(x) * UINT64_C(1000000000))
#define MIB(x) ((uint64_t)(x) << 20)

/* Propagation: 5 m of cable, fibre or twinax, at 5 ns/m (light in glass of
 * index ~1.47 travels 4.9 ns/m).  Assumed: an in-row hop to the leaf. */
#define PROP_5M NS(25)

/* The ConnectX RNIC (CX-5/6/6 Dx/7 alike: no per-generation latency
 * breakdown is published, so the same values serve every preset).
 *
 * PCIe one-way latency 250 ns: pcie-bench measured a 64 B DMA read round
 * trip at 546 ns median (warm host cache, no IOMMU); that is two TLP
 * flights plus an LLC hit, so about 250 ns each way.  Measured on a Gen3
 * host; carried over to Gen4/Gen5 (assumed: a newer generation shortens
 * serialization, not the flight through the root complex much).  The
 * doorbell (a posted MMIO write) and the CQE (a posted DMA write) each take
 * one flight; the WQE fetch is the measured round trip itself.
 *
 * req_proc/resp_proc 100 ns each: assumed, chosen so that a small inline
 * RDMA WRITE back to back costs doorbell 250 + 100 + wire + 100 + DMA write
 * 250 = ~0.73 us one way, between UCX's 600 ns per-message estimate for
 * EDR/HDR (uct_ib_iface_query latency) and a measured ib_send_lat of
 * 0.82 us for 32 B over RC (a published thesis table, back to back). */
#define RNIC_CONNECTX { \
	.doorbell_ps = NS(250),     /* one posted PCIe flight, see above */ \
	.wqe_fetch_ps = NS(546),    /* pcie-bench 64 B DMA read, median */ \
	.req_proc_ps = NS(100),     /* assumed, see above */ \
	.resp_proc_ps = NS(100),    /* assumed, see above */ \
	.atomic_ps = NS(546),       /* one more DMA read round trip (RMW) */ \
	.cqe_write_ps = NS(250),    /* one posted PCIe flight */ \
	.wqe_bytes = 64,            /* mlx5 MLX5_SEND_WQE_BB */ \
	.bf_max_bytes = 256,        /* mlx5: bf_reg_size 512 / 2; one WQE, inline */ \
	.inline_max_bytes = 220,    /* perftest DEF_INLINE_WRITE for mlx5 */ \
	.max_outstanding_pkts = 128, /* assumed: rxe RXE_MAX_UNACKED_PSNS */ \
	.max_rd_atomic = 16,        /* ibv_devinfo max_qp_rd_atom on ConnectX */ \
	.ack_coalesce_pkts = 64,    /* assumed: rxe RXE_MAX_PKT_PER_ACK */ \
	.cqe_bytes = 64,            /* mlx5 default CQE size */ \
	.min_rnr_timer = 12,        /* NCCL ncclIbRtrQp: 0.64 ms */ \
	.rnr_retry = 7,             /* NCCL ncclIbRtsQp: retry forever */ \
	.retry_cnt = 7,             /* NCCL_IB_RETRY_CNT default */ \
	.timeout_exp = 18,          /* NCCL_IB_TIMEOUT default (v2.19): 1.07 s */ \
	.selective_repeat = 0,      /* IBA RC: go-back-N */ \
}

/* DCQCN as ConnectX-4 and later run it, with the firmware's defaults
 * (mlxconfig -q ROCE_CC_* on a ConnectX-6 Dx, the same values as NVIDIA's
 * "DCQCN CC Parameters" page).  `on` is 1 for RoCE (the firmware enables
 * it on RoCE priorities), 0 for InfiniBand, whose congestion control
 * (IBA Annex A10) is off unless the subnet manager turns it on. */
#define DCQCN_CONNECTX(on) { \
	.dcqcn = (on), \
	.cnp_interval_ps = US(4),   /* MIN_TIME_BETWEEN_CNPS 4 us */ \
	.alpha_period_ps = US(1),   /* DCE_TCP_RTT 1 us */ \
	.alpha_g = 1019,            /* DCE_TCP_G */ \
	.initial_alpha = 1023,      /* INITIAL_ALPHA_VALUE */ \
	.rate_gd = 11,              /* RPG_GD: alpha/2^11 of a 10-bit alpha = alpha/2 */ \
	.rate_reduce_period_ps = US(4), /* RATE_REDUCE_MONITOR_PERIOD */ \
	.min_dec_pct = 50,          /* RPG_MIN_DEC_FAC */ \
	.threshold = 1,             /* RPG_THRESHOLD */ \
	.min_rate_bps = UINT64_C(1000000),  /* RPG_MIN_RATE 1 Mb/s */ \
	.time_reset_ps = US(300),   /* RPG_TIME_RESET */ \
	.byte_reset_bytes = 32767,  /* RPG_BYTE_RESET */ \
	.ai_rate_bps = UINT64_C(5000000),   /* RPG_AI_RATE 5 Mb/s */ \
	.hai_rate_bps = UINT64_C(50000000), /* RPG_HAI_RATE 50 Mb/s */ \
	.clamp_tgt_rate = 0,        /* CLAMP_TGT_RATE False(0) */ \
	.clamp_tgt_rate_ati = 1,    /* CLAMP_TGT_RATE_AFTER_TIME_INC True(1) */ \
}

/* ECN marking of a Spectrum switch in Cumulus Linux's RoCE mode (its
 * traffic.conf defaults for the RoCE traffic class): 150 KB to 1.5 MB,
 * probability rising to 100 %. */
#define ECN_SPECTRUM .ecn_kmin_bytes = 150000, .ecn_kmax_bytes = 1500000, .ecn_pmax_pct = 100

/* PFC pause time: 0xFFFF quanta, the largest a PAUSE frame holds and what
 * switches and mlx5 send (refreshed while congested, cancelled by a
 * zero-quanta frame at XON).  Used when link.flow_ctrl is pfc. */
#define PFC_QUANTA_MAX 65535

/* PCIe x16 of the given generation; MPS 256 / MRRS 4096 as lspci shows on
 * a ConnectX-6 Dx in a Gen4 x16 slot (NVIDIA/l2fwd-nv issue 6); TLP
 * overheads from pcie-model: 4 B header DW0 + 12 B (MWr/MRd, 64-bit
 * address) or 8 B (CplD) + 8 B of DLL framing, sequence number and LCRC. */
#define PCIE_X16(g, rate) { \
	.rate_bps = (rate), \
	.latency_ps = NS(250), \
	.gen = (g), \
	.lanes = 16, \
	.mps_bytes = 256, \
	.mrrs_bytes = 4096, \
	.tlp_overhead_bytes = 24, \
	.cpl_overhead_bytes = 20, \
}

/* Host software costs: assumed (no public per-call figures for mlx5).
 * ibv_post_send writes a 64 B WQE and a doorbell record, ~100 ns of stores
 * and barriers; a receive WQE is 16 B per SGE, half that; an empty or
 * one-entry ibv_poll_cq reads one 64 B CQE line. */
#define SOFT_VERBS(cpu) { \
	.post_send_ps = NS(100), \
	.post_recv_ps = NS(50), \
	.poll_cq_ps = NS(50), \
	.net_step_ps = NET_STEP_##cpu, /* see NET_STEP below */ \
	.launch_cpu_ps = NS(3960), /* see LAUNCH_CPU below */ \
	.group_cpu_ps = NS(1600), \
}

/* NET_STEP.  NCCL's proxy thread does not call the verbs itself: its
 * network plugin does (src/transport/net_ib/p2p.cc ncclIbIsend,
 * ncclIbIrecv), with bookkeeping of its own around each post (requests,
 * the FIFO of clear-to-send entries, the split over QPs).  NCCL's tuner
 * puts the cost of a network step at its "network post overhead"
 * (src/graph/tuning.cc getNetOverhead): 1 us on Intel CPUs, 2 us on AMD,
 * which every inter-node ring step takes at least ("Inter-node rings
 * still have to launch nsteps * net overhead").  A step is posted twice,
 * once on each side: cclab charges half at the sender's isend and half at
 * the receiver's irecv, on the proxy thread, which serialises them over
 * every channel and peer.  The tuner triples it for the Simple protocol;
 * cclab does not, because that latency term also stands for what cclab
 * models as ops of their own (the GDR flush's READ and its test, and a
 * Simple step's larger slots), and as CPU time a 1.5 us post on each side
 * would cap the proxy of an NVLSTree head at 4+ nodes (64 KiB chunks, up
 * to three children and a parent a channel) at about half of the
 * 320-325 GB/s busbw nccl-tests #309 measured there. */
#define NET_STEP_INTEL US(1)
#define NET_STEP_AMD US(2)

/* LAUNCH_CPU.  nccl-tests times `iters` collectives launched back to back
 * (common.cu BenchTime()), and one thread launches its -g GPUs' kernels
 * one after another (startColl(): ncclGroupStart, a call per GPU,
 * ncclGroupEnd, which plans and launches each GPU's kernel in turn), so an
 * iteration takes at least that thread's CPU time.  nccl-tests issue 123
 * (DGX A100, Ring, one channel, 8-128 B, -g 2 to 8 in one process)
 * measured 10, 13.76, 16.88, 20.8, 25.2, 29.5 and 33.7 us: a straight
 * line of 3.96 us a GPU plus 1.60 us (least squares), which device
 * latencies cannot explain (8 one-GPU processes of a DGX H100 run the
 * same ring in 13 us).  Taken for every preset. */

/* GPU_STEP: NCCL launches one kernel per collective (src/enqueue.cc) and
 * its primitives run inside it; between two steps on the network path the
 * kernel and the proxy thread hand slots over through flags in host-mapped
 * memory (src/transport/net.cc: the connFifo / tail words), so a step costs
 * the GPU a read of a host flag over PCIe (a round trip, ~0.55 us for a
 * NIC in pcie-bench) and a posted write back.  Assumed 1 us; no public
 * per-step figure. */

/* P2P_HOP.  Between GPUs of one node NCCL's P2P transport has no
 * proxy: the kernel's threads store into the peer's buffer over NVLink
 * and poll flags in GPU memory (src/transport/p2p.cc).  What a hop costs
 * depends on the protocol: LL's flags ride in each 8 B store; LL128 waits
 * for whole 128 B lines; Simple writes its data, fences
 * (__threadfence_system) and then a separate tail flag the peer polls.
 * NCCL's tuner charges a ring hop over NVLink 0.6, 1.9 and 3.4 us for
 * LL, LL128 and Simple (hwLat[NCCL_HW_NVLINK], src/graph/tuning.cc; the
 * tree's are 0.6, 1.25 and 4.0): cclab takes the ring's as the latency
 * from a P2P post to its stores leaving (sim/exec.c p2p_post), which the
 * kernel does not wait for, and models the NVLink and NVSwitch flight on
 * top (~0.2 us more). */

/* NVLINK_FRAMING.  An NVLink packet is 1 to 18 flits of 16 B: a header
 * flit, address-extension and byte-enable flits where needed, then up to
 * 16 data flits (NVLink 1.0, Foley and Danskin, "Ultra-Performance Pascal
 * GPU and NVLink Interconnect", IEEE Micro 37(2), 2017; WikiChip's NVLink
 * page).  A GPU's stores reach the link as requests of at most one 128 B
 * cache line, so a line costs its 8 data flits plus a header and an
 * address-extension flit: 128 / 160 = 80 % of the raw rate.  NCCL's own
 * achievable per-link figures agree: 20 GB/s of NVLink 3's 25 (SM80),
 * 20.6 of NVLink 4's 25 (SM90) (src/graph/topo.h, SM80_NVLINK_BW /
 * SM90_NVLINK_BW). */

/* WARP_PACE.  NCCL's kernel moves Simple-protocol data in reduceCopy
 * (src/device/common_kernel.h reduceCopyPacks): each warp loads a hunk of
 * COLL_UNROLL packs of 16 B per thread from every source, all in flight
 * at once, then reduces and stores it, and loads the next hunk; stores are
 * posted.  COLL_UNROLL is 8 from sm_80 on (ncclCollUnroll,
 * src/include/device.h): 32 x 8 x 16 = 4096 B a warp per round.  A
 * group of w warps thus moves at most w x 4096 B per load latency,
 * whatever the memory's rate: a handful of warps (NVLS's scatter and
 * gather: 5 to 8) copy tens of GB/s, not the HBM's TB/s.  The latency is
 * of a load from HBM as a warp sees it: published microbenchmarks give
 * ~600 core cycles idle on Hopper (~330 ns at 1.83 GHz) and ~400 ns;
 * under a collective's load more.  Assumed: GPU_MEM_LATENCY_NS. */
#define GPU_MEM_LATENCY_NS 500

/* A100-class node (DGX A100): A100 SXM4 80 GB, HBM2e 2039 GB/s (NVIDIA
 * A100 datasheet); NVLink 3: 12 links, 600 GB/s both directions, so 300 GB/s
 * = 2.4 Tb/s each way; host CPU AMD EPYC 7742: 8 channels DDR4-3200 x 8 B
 * = 204.8 GB/s per socket. */
#define HOST_A100 { \
	.gpu_mem_bytes_per_s = GBYTE_S(2039), \
	.gpu_launch_ps = US(5),     /* assumed: "a few us" per launch */ \
	.gpu_step_ps = US(1),       /* assumed: see GPU_STEP above */ \
	.gpu_mem_latency_ps = NS(GPU_MEM_LATENCY_NS), /* see WARP_PACE above */ \
	.gpu_warp_load_bytes = 4096, \
	.p2p_hop_ll_ps = NS(600), /* see P2P_HOP above */ \
	.p2p_hop_ll128_ps = NS(1900), \
	.p2p_hop_simple_ps = NS(3400), \
	.nvlink_bps = GBIT(2400), \
	.cpu_mem_bytes_per_s = UINT64_C(204800000000), \
	.cpu_thread_bytes_per_s = GBYTE_S(20), /* assumed: one core's share */ \
	.cpu_call_ps = NS(100),     /* assumed */ \
	.nvlink_links = 12, \
	.nvlink_pkt_bytes = 128,    /* see NVLINK_FRAMING above */ \
	.nvlink_pkt_overhead_bytes = 32, \
	.gpu_dma = SIM_GPU_DMA_GPUDIRECT, \
	.gpu_arch = CC_GPU_AMPERE, \
	.cpu_vendor = CC_CPU_AMD,   /* DGX A100: 2 x EPYC 7742 */ \
	.socket_link_bytes_per_s = GBYTE_S(16), /* NCCL topo.h AMD_BW */ \
}

/* H100-class node (DGX H100): H100 SXM5 HBM3 3.35 TB/s; NVLink 4: 18 links,
 * 900 GB/s both directions, 450 GB/s = 3.6 Tb/s each way; host CPU Xeon
 * Platinum 8480C: 8 channels DDR5-4800 x 8 B = 307.2 GB/s per socket. */
#define HOST_H100 { \
	.gpu_mem_bytes_per_s = GBYTE_S(3350), \
	.gpu_launch_ps = US(5),     /* assumed, as A100 */ \
	.gpu_step_ps = US(1),       /* assumed, as A100 */ \
	.gpu_mem_latency_ps = NS(GPU_MEM_LATENCY_NS), /* see WARP_PACE above */ \
	.gpu_warp_load_bytes = 4096, \
	.p2p_hop_ll_ps = NS(600), /* see P2P_HOP above */ \
	.p2p_hop_ll128_ps = NS(1900), \
	.p2p_hop_simple_ps = NS(3400), \
	.nvlink_bps = GBIT(3600), \
	.cpu_mem_bytes_per_s = UINT64_C(307200000000), \
	.cpu_thread_bytes_per_s = GBYTE_S(20), /* assumed, as A100 */ \
	.cpu_call_ps = NS(100),     /* assumed */ \
	.nvlink_links = 18, \
	.nvlink_pkt_bytes = 128,    /* see NVLINK_FRAMING above */ \
	.nvlink_pkt_overhead_bytes = 32, \
	.gpu_dma = SIM_GPU_DMA_GPUDIRECT, \
	.gpu_arch = CC_GPU_HOPPER, \
	.cpu_vendor = CC_CPU_INTEL, /* DGX H100: 2 x Xeon Platinum 8480C */ \
	.socket_link_bytes_per_s = GBYTE_S(22), /* Sapphire Rapids: NCCL topo.h SRP_QPI_BW */ \
}

struct preset {
	const char *name;
	struct sim_params p;
};

static const struct preset presets[] = {
	/* HDR InfiniBand: ConnectX-6, PCIe Gen4 x16, A100, Quantum switch. */
	{"ib-hdr", {
		.name = "ib-hdr",
		.link = {
			/* 4 lanes of 53.125 Gb/s PAM4 (26.5625 GBd); 64b/66b,
			 * then RS(544,514) FEC with 256b/257b transcoding =
			 * 33/34 (AN846): 50 Gb/s per lane exactly, NCCL's
			 * ibvSpeeds[] HDR 50000 Mb/s; 4X = 200 Gb/s. */
			.rate_bps = GBIT(200),
			.lane_signal_bps = UINT64_C(53125000000),
			.prop_delay_ps = PROP_5M,
			.type = SIM_LINK_IB,
			.flow_ctrl = SIM_FC_CREDIT, /* IBA 7.9 */
			.lanes = 4,
			.enc_data_bits = 64, .enc_code_bits = 66,
			.fec_num = 33, .fec_den = 34,
			.mtu_bytes = 4096, /* IB active_mtu 4096 */
		},
		.sw = {
			.fwd_latency_ps = NS(130), /* Quantum QM8700 brief, as quoted */
			.buffer_bytes = MIB(16),   /* assumed: not published */
			.mode = SIM_SWITCH_CUT_THROUGH,
			.sched = SIM_SWITCH_FIFO,  /* ASICs serve a priority in order */
			.pfc_quanta = PFC_QUANTA_MAX,
			.radix = 40,               /* QM8700: 40 x HDR QSFP56 */
		},
		.rnic = RNIC_CONNECTX,
		.cc = DCQCN_CONNECTX(0),
		.pcie = PCIE_X16(SIM_PCIE_GEN4, UINT64_C(252061538461)),
		.host = HOST_A100,
		.soft = SOFT_VERBS(AMD),
	}},
	/* NDR InfiniBand: ConnectX-7, PCIe Gen5 x16, H100, Quantum-2. */
	{"ib-ndr", {
		.name = "ib-ndr",
		.link = {
			/* 4 lanes of 106.25 Gb/s PAM4 (53.125 GBd), same code
			 * chain: 100 Gb/s per lane (NCCL NDR 100000); 400 Gb/s. */
			.rate_bps = GBIT(400),
			.lane_signal_bps = UINT64_C(106250000000),
			.prop_delay_ps = PROP_5M,
			.type = SIM_LINK_IB,
			.flow_ctrl = SIM_FC_CREDIT,
			.lanes = 4,
			.enc_data_bits = 64, .enc_code_bits = 66,
			.fec_num = 33, .fec_den = 34,
			.mtu_bytes = 4096,
		},
		.sw = {
			/* Assumed: no NVIDIA figure in the material searched; a
			 * reseller comparison quotes "under 150 ns". */
			.fwd_latency_ps = NS(150),
			.buffer_bytes = MIB(32),   /* assumed: not published */
			.mode = SIM_SWITCH_CUT_THROUGH,
			.sched = SIM_SWITCH_FIFO,  /* ASICs serve a priority in order */
			.pfc_quanta = PFC_QUANTA_MAX,
			.radix = 64,               /* QM9700: 32 OSFP = 64 x NDR */
		},
		.rnic = RNIC_CONNECTX,
		.cc = DCQCN_CONNECTX(0),
		.pcie = PCIE_X16(SIM_PCIE_GEN5, UINT64_C(504123076923)),
		.host = HOST_H100,
		.soft = SOFT_VERBS(INTEL),
	}},
	/* 100 GbE RoCEv2: ConnectX-6 Dx, PCIe Gen4 x16, A100, Spectrum. */
	{"roce-100g", {
		.name = "roce-100g",
		.link = {
			/* 100GBASE-R (IEEE 802.3 cl. 82): 4 x 25.78125 Gb/s
			 * NRZ, 64b/66b = 100 Gb/s.  RS(528,514) FEC (cl. 91)
			 * with 256b/257b transcoding keeps the lane rate:
			 * 264/257 * 514/528 = 1. */
			.rate_bps = GBIT(100),
			.lane_signal_bps = UINT64_C(25781250000),
			.prop_delay_ps = PROP_5M,
			.type = SIM_LINK_ROCEV2_IPV4,
			.flow_ctrl = SIM_FC_PFC, /* lossless RoCE: 802.1Qbb */
			.lanes = 4,
			.enc_data_bits = 64, .enc_code_bits = 66,
			.fec_num = 1, .fec_den = 1,
			.mtu_bytes = 4096, /* assumed jumbo (>= 4200 B) Ethernet MTU */
		},
		.sw = {
			/* Spectrum-class: 300 ns is the figure published for
			 * Spectrum-2 (Linley Newsletter, July 2017), taken
			 * for the SN2700 too (assumed). */
			.fwd_latency_ps = NS(300),
			.buffer_bytes = MIB(16),   /* Spectrum: 16 MB packet memory */
			.mode = SIM_SWITCH_CUT_THROUGH,
			.sched = SIM_SWITCH_FIFO,  /* ASICs serve a priority in order */
			.pfc_quanta = PFC_QUANTA_MAX,
			ECN_SPECTRUM,
			.radix = 32,               /* SN2700: 32 x 100GbE */
		},
		.rnic = RNIC_CONNECTX,
		.cc = DCQCN_CONNECTX(1),
		.pcie = PCIE_X16(SIM_PCIE_GEN4, UINT64_C(252061538461)),
		.host = HOST_A100,
		.soft = SOFT_VERBS(AMD),
	}},
	/* 400 GbE RoCEv2: ConnectX-7, PCIe Gen5 x16, H100, Spectrum-4. */
	{"roce-400g", {
		.name = "roce-400g",
		.link = {
			/* 400GBASE-R (802.3bs), 4 x 106.25 Gb/s PAM4 lanes:
			 * 64b/66b, RS(544,514) + 256b/257b = 33/34. */
			.rate_bps = GBIT(400),
			.lane_signal_bps = UINT64_C(106250000000),
			.prop_delay_ps = PROP_5M,
			.type = SIM_LINK_ROCEV2_IPV4,
			.flow_ctrl = SIM_FC_PFC,
			.lanes = 4,
			.enc_data_bits = 64, .enc_code_bits = 66,
			.fec_num = 33, .fec_den = 34,
			.mtu_bytes = 4096, /* assumed jumbo MTU */
		},
		.sw = {
			.fwd_latency_ps = NS(300), /* assumed: Spectrum-2 figure */
			/* Assumed: a third-party spec page quotes 128 MB of
			 * shared buffer for the SN5600; not confirmed. */
			.buffer_bytes = MIB(128),
			.mode = SIM_SWITCH_CUT_THROUGH,
			.sched = SIM_SWITCH_FIFO,  /* ASICs serve a priority in order */
			.pfc_quanta = PFC_QUANTA_MAX,
			ECN_SPECTRUM,
			.radix = 128,              /* SN5600: 64 x 800G = 128 x 400G */
		},
		.rnic = RNIC_CONNECTX,
		.cc = DCQCN_CONNECTX(1),
		.pcie = PCIE_X16(SIM_PCIE_GEN5, UINT64_C(504123076923)),
		.host = HOST_H100,
		.soft = SOFT_VERBS(INTEL),
	}},
	/* Closed-form reference: only the wire costs time.  100 Gb/s with no
	 * coding loss (4096 B = 327680 ps, sim/time.h), no propagation, no
	 * switch, NIC, PCIe, memory or software latency, unlimited buffers and
	 * bandwidths (0), a window as wide as IBA allows (2^23 PSNs), one
	 * ACK per packet, and switch outputs that share the line fairly among
	 * the flows waiting.  Protocol timers stay at the NCCL values. */
	{"ideal", {
		.name = "ideal",
		.link = {
			.rate_bps = GBIT(100),
			.lane_signal_bps = GBIT(25),
			.prop_delay_ps = 0,
			.type = SIM_LINK_IB,
			.flow_ctrl = SIM_FC_CREDIT,
			.lanes = 4,
			.enc_data_bits = 1, .enc_code_bits = 1,
			.fec_num = 1, .fec_den = 1,
			.mtu_bytes = 4096,
		},
		.sw = {
			.fwd_latency_ps = 0,
			.buffer_bytes = 0,
			.mode = SIM_SWITCH_CUT_THROUGH,
			.sched = SIM_SWITCH_FAIR, /* each flow its share, as alpha-beta */
			.radix = 64,
		},
		.rnic = {
			.wqe_bytes = 64,
			.bf_max_bytes = 256,
			.inline_max_bytes = 220,
			.max_outstanding_pkts = UINT32_C(1) << 23,
			.max_rd_atomic = 16,
			.ack_coalesce_pkts = 1,
			.cqe_bytes = 64,
			.min_rnr_timer = 12,
			.rnr_retry = 7,
			.retry_cnt = 7,
			.timeout_exp = 18,
		},
		.pcie = {
			.rate_bps = 0,
			.latency_ps = 0,
			.gen = SIM_PCIE_GEN5,
			.lanes = 16,
			.mps_bytes = 4096,
			.mrrs_bytes = 4096,
		},
		.host = {
			.nvlink_links = 18,
			.gpu_dma = SIM_GPU_DMA_GPUDIRECT,
			/* NCCL's choices as on an H100 host */
			.gpu_arch = CC_GPU_HOPPER,
			.cpu_vendor = CC_CPU_INTEL,
		},
		.soft = {0},
	}},
};

#define NPRESETS (sizeof(presets) / sizeof(presets[0]))

static const char *const preset_names[NPRESETS + 1] = {
	"ib-hdr", "ib-ndr", "roce-100g", "roce-400g", "ideal", NULL,
};

int sim_params_preset(const char *name, struct sim_params *out)
{
	if (!name || !out)
		return -EINVAL;
	for (size_t i = 0; i < NPRESETS; i++) {
		if (strcmp(presets[i].name, name) == 0) {
			*out = presets[i].p;
			return 0;
		}
	}
	return -EINVAL;
}

const char *const *sim_params_preset_names(void)
{
	return preset_names;
}

/* The field table.  Keys are "<section>.<field>"; the sections are the
 * members of struct sim_params (the switch one is `sw`, the software one
 * `soft`, as `switch` is a C keyword). */
#define FIELD(key_, member, kind_, unit_) { \
	.key = (key_), .unit = (unit_), \
	.offset = offsetof(struct sim_params, member), \
	.size = sizeof(((struct sim_params *)0)->member), \
	.kind = (kind_), \
}
#define ENUMF(key_, member, table, n) { \
	.key = (key_), .unit = "", \
	.offset = offsetof(struct sim_params, member), \
	.size = sizeof(((struct sim_params *)0)->member), \
	.kind = SIM_PARAM_ENUM, .names = (table), .nnames = (n), \
}
#define PS(k, m) FIELD(k, m, SIM_PARAM_U64, "ps")
#define BPS(k, m) FIELD(k, m, SIM_PARAM_U64, "bit/s")
#define BYTES_S(k, m) FIELD(k, m, SIM_PARAM_U64, "B/s")
#define BYTES64(k, m) FIELD(k, m, SIM_PARAM_U64, "B")
#define BYTES32(k, m) FIELD(k, m, SIM_PARAM_U32, "B")
#define COUNT32(k, m) FIELD(k, m, SIM_PARAM_U32, "")
#define CODE8(k, m) FIELD(k, m, SIM_PARAM_U8, "")

const struct sim_param_field sim_param_fields[] = {
	FIELD("name", name, SIM_PARAM_STR, ""),

	ENUMF("link.type", link.type, NULL, SIM_LINK_COUNT), /* names: sim_link_info */
	BPS("link.rate_bps", link.rate_bps),
	COUNT32("link.lanes", link.lanes),
	BPS("link.lane_signal_bps", link.lane_signal_bps),
	COUNT32("link.enc_data_bits", link.enc_data_bits),
	COUNT32("link.enc_code_bits", link.enc_code_bits),
	COUNT32("link.fec_num", link.fec_num),
	COUNT32("link.fec_den", link.fec_den),
	PS("link.prop_delay_ps", link.prop_delay_ps),
	BYTES32("link.mtu_bytes", link.mtu_bytes),
	ENUMF("link.flow_ctrl", link.flow_ctrl, sim_flow_ctrl_name, SIM_FC_COUNT),
	FIELD("link.loss_ppb", link.loss_ppb, SIM_PARAM_U64, ""),

	ENUMF("switch.mode", sw.mode, sim_switch_mode_name, SIM_SWITCH_MODE_COUNT),
	ENUMF("switch.sched", sw.sched, sim_switch_sched_name, SIM_SWITCH_SCHED_COUNT),
	PS("switch.fwd_latency_ps", sw.fwd_latency_ps),
	BYTES64("switch.buffer_bytes", sw.buffer_bytes),
	COUNT32("switch.radix", sw.radix),
	BYTES64("switch.ecn_kmin_bytes", sw.ecn_kmin_bytes),
	BYTES64("switch.ecn_kmax_bytes", sw.ecn_kmax_bytes),
	COUNT32("switch.ecn_pmax_pct", sw.ecn_pmax_pct),
	COUNT32("switch.pfc_quanta", sw.pfc_quanta),
	COUNT32("switch.sharp", sw.sharp),

	PS("rnic.doorbell_ps", rnic.doorbell_ps),
	PS("rnic.wqe_fetch_ps", rnic.wqe_fetch_ps),
	BYTES32("rnic.wqe_bytes", rnic.wqe_bytes),
	BYTES32("rnic.bf_max_bytes", rnic.bf_max_bytes),
	BYTES32("rnic.inline_max_bytes", rnic.inline_max_bytes),
	PS("rnic.req_proc_ps", rnic.req_proc_ps),
	COUNT32("rnic.max_outstanding_pkts", rnic.max_outstanding_pkts),
	COUNT32("rnic.max_rd_atomic", rnic.max_rd_atomic),
	COUNT32("rnic.ack_coalesce_pkts", rnic.ack_coalesce_pkts),
	PS("rnic.resp_proc_ps", rnic.resp_proc_ps),
	PS("rnic.atomic_ps", rnic.atomic_ps),
	PS("rnic.cqe_write_ps", rnic.cqe_write_ps),
	BYTES32("rnic.cqe_bytes", rnic.cqe_bytes),
	CODE8("rnic.min_rnr_timer", rnic.min_rnr_timer),
	CODE8("rnic.rnr_retry", rnic.rnr_retry),
	CODE8("rnic.retry_cnt", rnic.retry_cnt),
	CODE8("rnic.timeout_exp", rnic.timeout_exp),
	CODE8("rnic.selective_repeat", rnic.selective_repeat),

	COUNT32("cc.dcqcn", cc.dcqcn),
	PS("cc.cnp_interval_ps", cc.cnp_interval_ps),
	PS("cc.alpha_period_ps", cc.alpha_period_ps),
	COUNT32("cc.alpha_g", cc.alpha_g),
	COUNT32("cc.initial_alpha", cc.initial_alpha),
	COUNT32("cc.rate_gd", cc.rate_gd),
	PS("cc.rate_reduce_period_ps", cc.rate_reduce_period_ps),
	COUNT32("cc.min_dec_pct", cc.min_dec_pct),
	COUNT32("cc.threshold", cc.threshold),
	BPS("cc.min_rate_bps", cc.min_rate_bps),
	PS("cc.time_reset_ps", cc.time_reset_ps),
	BYTES64("cc.byte_reset_bytes", cc.byte_reset_bytes),
	BPS("cc.ai_rate_bps", cc.ai_rate_bps),
	BPS("cc.hai_rate_bps", cc.hai_rate_bps),
	COUNT32("cc.clamp_tgt_rate", cc.clamp_tgt_rate),
	COUNT32("cc.clamp_tgt_rate_ati", cc.clamp_tgt_rate_ati),

	ENUMF("pcie.gen", pcie.gen, sim_pcie_gen_name, SIM_PCIE_GEN_COUNT),
	COUNT32("pcie.lanes", pcie.lanes),
	BPS("pcie.rate_bps", pcie.rate_bps),
	PS("pcie.latency_ps", pcie.latency_ps),
	BYTES32("pcie.mps_bytes", pcie.mps_bytes),
	BYTES32("pcie.mrrs_bytes", pcie.mrrs_bytes),
	BYTES32("pcie.tlp_overhead_bytes", pcie.tlp_overhead_bytes),
	BYTES32("pcie.cpl_overhead_bytes", pcie.cpl_overhead_bytes),

	BYTES_S("host.gpu_mem_bytes_per_s", host.gpu_mem_bytes_per_s),
	PS("host.gpu_launch_ps", host.gpu_launch_ps),
	PS("host.gpu_step_ps", host.gpu_step_ps),
	PS("host.gpu_mem_latency_ps", host.gpu_mem_latency_ps),
	BYTES64("host.gpu_warp_load_bytes", host.gpu_warp_load_bytes),
	PS("host.p2p_hop_ll_ps", host.p2p_hop_ll_ps),
	PS("host.p2p_hop_ll128_ps", host.p2p_hop_ll128_ps),
	PS("host.p2p_hop_simple_ps", host.p2p_hop_simple_ps),
	COUNT32("host.nvlink_links", host.nvlink_links),
	BYTES32("host.nvlink_pkt_bytes", host.nvlink_pkt_bytes),
	BYTES32("host.nvlink_pkt_overhead_bytes", host.nvlink_pkt_overhead_bytes),
	BPS("host.nvlink_bps", host.nvlink_bps),
	BYTES_S("host.cpu_mem_bytes_per_s", host.cpu_mem_bytes_per_s),
	BYTES_S("host.cpu_thread_bytes_per_s", host.cpu_thread_bytes_per_s),
	PS("host.cpu_call_ps", host.cpu_call_ps),
	ENUMF("host.gpu_dma", host.gpu_dma, sim_gpu_dma_name, SIM_GPU_DMA_COUNT),
	ENUMF("host.gpu_arch", host.gpu_arch, cc_gpu_arch_name, CC_GPU_ARCH_COUNT),
	ENUMF("host.cpu_vendor", host.cpu_vendor, cc_cpu_vendor_name, CC_CPU_VENDOR_COUNT),
	BYTES_S("host.socket_link_bytes_per_s", host.socket_link_bytes_per_s),
	ENUMF("host.nic_socket", host.nic_socket, sim_nic_socket_name, SIM_NIC_SOCKET_COUNT),

	PS("software.post_send_ps", soft.post_send_ps),
	PS("software.post_recv_ps", soft.post_recv_ps),
	PS("software.poll_cq_ps", soft.poll_cq_ps),
	PS("software.net_step_ps", soft.net_step_ps),
	PS("software.launch_cpu_ps", soft.launch_cpu_ps),
	PS("software.group_cpu_ps", soft.group_cpu_ps),
};

const size_t sim_param_field_count = sizeof(sim_param_fields) / sizeof(sim_param_fields[0]);

const struct sim_param_field *sim_param_field_find(const char *key)
{
	if (!key)
		return NULL;
	for (size_t i = 0; i < sim_param_field_count; i++)
		if (strcmp(sim_param_fields[i].key, key) == 0)
			return &sim_param_fields[i];
	return NULL;
}

uint64_t sim_param_field_get(const struct sim_params *p, const struct sim_param_field *f)
{
	const unsigned char *at = (const unsigned char *)p + f->offset;
	uint64_t v64;
	uint32_t v32;
	uint8_t v8;

	switch (f->size) {
	case 8:
		memcpy(&v64, at, 8);
		return v64;
	case 4:
		memcpy(&v32, at, 4);
		return v32;
	default:
		memcpy(&v8, at, 1);
		return v8;
	}
}

void sim_param_field_set(struct sim_params *p, const struct sim_param_field *f, uint64_t v)
{
	unsigned char *at = (unsigned char *)p + f->offset;
	uint32_t v32 = (uint32_t)v;
	uint8_t v8 = (uint8_t)v;

	switch (f->size) {
	case 8:
		memcpy(at, &v, 8);
		break;
	case 4:
		memcpy(at, &v32, 4);
		break;
	default:
		memcpy(at, &v8, 1);
		break;
	}
}

/* The text of an enum value: the field's own table, link types from
 * sim_link_info[] (sim/wire.h). */
static const char *enum_text(const struct sim_param_field *f, uint64_t v)
{
	if (v >= f->nnames)
		return NULL;
	if (f->names)
		return f->names[v];
	return sim_link_info[v].name;
}

void sim_params_print(FILE *out, const struct sim_params *p)
{
	for (size_t i = 0; i < sim_param_field_count; i++) {
		const struct sim_param_field *f = &sim_param_fields[i];
		const char *sep = f->unit[0] ? " " : "";

		if (f->kind == SIM_PARAM_STR) {
			const char *s = (const char *)p + f->offset;
			fprintf(out, "%s=%.*s\n", f->key, (int)strnlen(s, f->size), s);
			continue;
		}
		uint64_t v = sim_param_field_get(p, f);
		if (f->kind == SIM_PARAM_ENUM) {
			const char *t = enum_text(f, v);
			if (t)
				fprintf(out, "%s=%s\n", f->key, t);
			else
				fprintf(out, "%s=%" PRIu64 "\n", f->key, v);
			continue;
		}
		fprintf(out, "%s=%" PRIu64 "%s%s\n", f->key, v, sep, f->unit);
	}
}

/* One rule per line: the key it is about, whether it is broken, why. */
const char *sim_params_invalid(const struct sim_params *p, const char **key)
{
	static const char *const none = "";
	const struct sim_link_params *l = &p->link;
	const struct sim_rnic_params *r = &p->rnic;
	const struct sim_pcie_params *e = &p->pcie;
	const struct {
		const char *key;
		bool bad;
		const char *why;
	} rules[] = {
		{"name", !memchr(p->name, '\0', sizeof(p->name)), "is not terminated"},
		{"link.rate_bps", l->rate_bps == 0, "must be above 0"},
		{"link.type", (unsigned)l->type >= SIM_LINK_COUNT, "is out of range"},
		{"link.flow_ctrl", (unsigned)l->flow_ctrl >= SIM_FC_COUNT, "is out of range"},
		{"link.loss_ppb", l->loss_ppb > 1000000000, "is per 10^9: 0 to 1000000000"},
		{"link.mtu_bytes", l->mtu_bytes < 256 || l->mtu_bytes > 4096 ||
				   (l->mtu_bytes & (l->mtu_bytes - 1)),
		 "must be an IB path MTU: 256, 512, 1024, 2048 or 4096"},
		{"switch.mode", (unsigned)p->sw.mode >= SIM_SWITCH_MODE_COUNT, "is out of range"},
		{"switch.sched", (unsigned)p->sw.sched >= SIM_SWITCH_SCHED_COUNT, "is out of range"},
		{"rnic.wqe_bytes", r->wqe_bytes == 0, "must be above 0"},
		{"rnic.cqe_bytes", r->cqe_bytes == 0, "must be above 0"},
		{"rnic.ack_coalesce_pkts", r->ack_coalesce_pkts == 0, "must be above 0"},
		{"rnic.max_outstanding_pkts", r->max_outstanding_pkts == 0 ||
					      r->max_outstanding_pkts > (UINT32_C(1) << 23),
		 "must be 1 to 8388608 (half the 24-bit PSN space, IBA 9.7.2)"},
		{"rnic.max_rd_atomic", r->max_rd_atomic == 0, "must be above 0"},
		{"rnic.min_rnr_timer", r->min_rnr_timer > 31, "is an IBA code, 0 to 31"},
		{"rnic.rnr_retry", r->rnr_retry > 7, "is 0 to 7 (7: forever)"},
		{"rnic.retry_cnt", r->retry_cnt > 7, "is 0 to 7"},
		{"rnic.timeout_exp", r->timeout_exp > 31, "is an IBA code, 0 to 31"},
		{"rnic.selective_repeat", r->selective_repeat > 1, "is 0 (go-back-N) or 1"},
		{"switch.ecn_kmax_bytes", p->sw.ecn_kmin_bytes && p->sw.ecn_kmax_bytes <= p->sw.ecn_kmin_bytes,
		 "must be above switch.ecn_kmin_bytes"},
		{"switch.ecn_pmax_pct", p->sw.ecn_pmax_pct > 100, "is a percentage, 0 to 100"},
		{"switch.pfc_quanta", p->sw.pfc_quanta > 65535, "is 0 to 65535 (a PAUSE frame's 16 bits)"},
		{"switch.sharp", p->sw.sharp > 1, "is 0 (no aggregation) or 1 (SHARP)"},
		{"cc.dcqcn", p->cc.dcqcn > 1, "is 0 (off) or 1"},
		{"cc.clamp_tgt_rate", p->cc.clamp_tgt_rate > 1, "is 0 or 1"},
		{"cc.clamp_tgt_rate_ati", p->cc.clamp_tgt_rate_ati > 1, "is 0 or 1"},
		{"cc.alpha_g", p->cc.dcqcn && p->cc.alpha_g > 1023, "is /1024: 0 to 1023"},
		{"cc.initial_alpha", p->cc.dcqcn && p->cc.initial_alpha > 1023, "is /1024: 0 to 1023"},
		{"cc.rate_gd", p->cc.dcqcn && (p->cc.rate_gd < 10 || p->cc.rate_gd > 20),
		 "is 10 to 20 (11: a cut of alpha/2)"},
		{"cc.min_dec_pct", p->cc.min_dec_pct > 100, "is a percentage, 0 to 100"},
		{"cc.alpha_period_ps", p->cc.dcqcn && p->cc.alpha_period_ps == 0, "must be above 0"},
		{"cc.time_reset_ps", p->cc.dcqcn && p->cc.time_reset_ps == 0, "must be above 0"},
		{"cc.byte_reset_bytes", p->cc.dcqcn && p->cc.byte_reset_bytes == 0, "must be above 0"},
		{"cc.min_rate_bps", p->cc.dcqcn && p->cc.min_rate_bps == 0, "must be above 0"},
		{"pcie.gen", (unsigned)e->gen >= SIM_PCIE_GEN_COUNT, "is out of range"},
		{"pcie.lanes", e->lanes == 0, "must be above 0"},
		{"pcie.mps_bytes", e->mps_bytes == 0, "must be above 0"},
		{"pcie.mrrs_bytes", e->mrrs_bytes == 0, "must be above 0"},
		{"host.gpu_dma", (unsigned)p->host.gpu_dma >= SIM_GPU_DMA_COUNT, "is out of range"},
		{"host.nic_socket", (unsigned)p->host.nic_socket >= SIM_NIC_SOCKET_COUNT,
		 "is out of range"},
		/* counted in bits per second on the link (sim/pcie.h) */
		{"host.socket_link_bytes_per_s", p->host.socket_link_bytes_per_s > UINT64_C(1000000000000000),
		 "is at most 1 PB/s"},
		{"host.nvlink_pkt_overhead_bytes",
		 p->host.nvlink_pkt_bytes && p->host.nvlink_pkt_overhead_bytes > 4096,
		 "is at most 4096 (a few 16 B flits in practice)"},
		{"host.nvlink_pkt_bytes", p->host.nvlink_pkt_bytes > 4096,
		 "is at most 4096 (0: NVLink framed as the fabric's link)"},
		/* a launching thread's costs (sim/launch.h) times up to
		 * CC_SIM_LAUNCH_MAX_GPUS GPUs stay far from overflowing */
		{"software.launch_cpu_ps", p->soft.launch_cpu_ps > SIM_PS_PER_S, "is at most 1 s"},
		{"software.group_cpu_ps", p->soft.group_cpu_ps > SIM_PS_PER_S, "is at most 1 s"},
		{"software.net_step_ps", p->soft.net_step_ps > SIM_PS_PER_S, "is at most 1 s"},
	};

	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (rules[i].bad) {
			*key = rules[i].key;
			return rules[i].why;
		}
	*key = none;
	return NULL;
}

int sim_params_validate(const struct sim_params *p)
{
	const char *key;

	return !p || sim_params_invalid(p, &key) ? -EINVAL : 0;
}

uint64_t sim_link_signal_rate_bps(const struct sim_link_params *l)
{
	unsigned __int128 den = (unsigned __int128)l->enc_code_bits * l->fec_den;

	if (den == 0)
		return 0;
	unsigned __int128 num = (unsigned __int128)l->lanes * l->lane_signal_bps *
				l->enc_data_bits * l->fec_num;
	unsigned __int128 q = num / den;

	return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

uint64_t sim_pcie_rate_bps(enum sim_pcie_gen gen, uint32_t lanes)
{
	if ((unsigned)gen >= SIM_PCIE_GEN_COUNT)
		return 0;
	unsigned __int128 num = (unsigned __int128)pcie_gen[gen].mts * 1000000u * lanes *
				pcie_gen[gen].num;

	return (uint64_t)(num / pcie_gen[gen].den);
}

sim_time_ps sim_p2p_hop_ps(const struct sim_host_params *h, enum cc_proto p)
{
	switch (p) {
	case CC_PROTO_LL: return h->p2p_hop_ll_ps;
	case CC_PROTO_LL128: return h->p2p_hop_ll128_ps;
	default: return h->p2p_hop_simple_ps;
	}
}

sim_time_ps sim_ack_timeout_ps(unsigned exp)
{
	if (exp == 0 || exp > 31)
		return SIM_TIME_NEVER;
	return (sim_time_ps)4096 * SIM_PS_PER_NS << exp; /* 4.096 us * 2^exp */
}

sim_time_ps sim_rnr_timer_ps(unsigned code)
{
	/* IBA RNR NAK timer field in units of 10 us; code 0 is the longest,
	 * 655.36 ms. */
	static const uint32_t t10us[32] = {
		65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48,
		64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072,
		4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152,
	};

	if (code > 31)
		return SIM_TIME_NEVER;
	return (sim_time_ps)t10us[code] * 10 * SIM_PS_PER_US;
}
