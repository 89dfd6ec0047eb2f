/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/params.h — the fabric's parameters: every number the simulator's
 * models read, in one plain struct, with named presets.
 *
 * One struct, filled three ways: sim_params_preset() copies a built-in
 * fabric (`cclab sim --fabric ib-hdr`), a scenario file will overwrite single
 * fields by key later (the field table below names every one of them), and
 * sim_params_print() writes the resolved result back, one `key=value unit`
 * line per field, so a results file records exactly what was simulated.
 *
 * Units are in the field names and are integers throughout: times in
 * picoseconds (sim_time_ps, sim/time.h), rates in bits per second (_bps) or
 * bytes per second (_bytes_per_s), sizes in bytes.  No floating point is
 * stored, so two runs of one scenario read bit-identical parameters.
 *
 * A rate or buffer of 0 means "unlimited" (no serialization cost, nothing
 * ever full) everywhere except link.rate_bps, which must be > 0: the wire is
 * the one resource every model charges.  The `ideal` preset uses this.
 *
 * Where each preset value comes from — standard, datasheet, measurement, or
 * an assumption with its reasoning — is in params.c next to the value and in
 * docs/fabric.md.  Nothing here simulates anything.
 */
#ifndef CCLAB_SIM_PARAMS_H
#define CCLAB_SIM_PARAMS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/nccl_tune.h"

#include "sim/time.h"
#include "sim/wire.h"

/* Link-level flow control: IB's credits (IBA Vol. 1 7.9), Ethernet priority
 * flow control for lossless RoCE (IEEE 802.1Qbb), or none (lossy). */
enum sim_flow_ctrl {
	SIM_FC_CREDIT,
	SIM_FC_PFC,
	SIM_FC_NONE,
	SIM_FC_COUNT
};
extern const char *const sim_flow_ctrl_name[SIM_FC_COUNT];

/* Cut-through: a packet may leave once its header is in and the output is
 * free; store-and-forward: only after its last byte arrived. */
enum sim_switch_mode {
	SIM_SWITCH_CUT_THROUGH,
	SIM_SWITCH_STORE_FORWARD,
	SIM_SWITCH_MODE_COUNT
};
extern const char *const sim_switch_mode_name[SIM_SWITCH_MODE_COUNT];

/* How an output port picks its next packet: in arrival order (one FIFO,
 * as switch ASICs serve a priority), or fairly among the flows waiting
 * (deficit round robin, sim/fairq.h: the processor-sharing link of
 * alpha-beta models). */
enum sim_switch_sched {
	SIM_SWITCH_FIFO,
	SIM_SWITCH_FAIR,
	SIM_SWITCH_SCHED_COUNT
};
extern const char *const sim_switch_sched_name[SIM_SWITCH_SCHED_COUNT];

/* PCIe generations with the rate (MT/s per lane) and line code of the base
 * specification: 8b/10b up to Gen2, 128b/130b from Gen3. */
enum sim_pcie_gen {
	SIM_PCIE_GEN1,
	SIM_PCIE_GEN2,
	SIM_PCIE_GEN3,
	SIM_PCIE_GEN4,
	SIM_PCIE_GEN5,
	SIM_PCIE_GEN_COUNT
};
extern const char *const sim_pcie_gen_name[SIM_PCIE_GEN_COUNT];

/* How the RNIC reaches GPU memory: directly over PCIe peer-to-peer
 * (GPUDirect RDMA), or through a host bounce buffer plus a GPU copy. */
enum sim_gpu_dma {
	SIM_GPU_DMA_GPUDIRECT,
	SIM_GPU_DMA_HOST_STAGING,
	SIM_GPU_DMA_COUNT
};
extern const char *const sim_gpu_dma_name[SIM_GPU_DMA_COUNT];

/* Where each GPU's NIC sits: on the GPU's CPU socket, or on the other one,
 * where what the NIC moves to and from the GPU's socket (host staging
 * buffers, GPU memory) crosses the link between the sockets
 * (nvidia-smi topo -m: SYS; NCCL's PATH_SYS). */
enum sim_nic_socket {
	SIM_NIC_SOCKET_LOCAL,
	SIM_NIC_SOCKET_REMOTE,
	SIM_NIC_SOCKET_COUNT
};
extern const char *const sim_nic_socket_name[SIM_NIC_SOCKET_COUNT];

/* One network link (both directions alike).  rate_bps is what the models
 * serialize at; the lane fields record where it comes from:
 *   rate_bps = lanes * lane_signal_bps * enc_data_bits / enc_code_bits
 *              * fec_num / fec_den
 * (sim_link_signal_rate_bps()), e.g. HDR 4 * 53.125 Gb/s * 64/66 * 33/34. */
struct sim_link_params {
	uint64_t rate_bps;        /* data rate: bits of packet per second */
	uint64_t lane_signal_bps; /* line rate of one lane (baud * bits/symbol) */
	sim_time_ps prop_delay_ps; /* propagation, one way */
	enum sim_link type;       /* framing (sim/wire.h) */
	enum sim_flow_ctrl flow_ctrl;
	uint32_t lanes;
	uint32_t enc_data_bits, enc_code_bits; /* PCS block code: 64/66 */
	uint32_t fec_num, fec_den;             /* FEC + transcoding: 33/34, or 1/1 */
	uint32_t mtu_bytes;       /* path MTU: 256, 512, 1024, 2048 or 4096 */
	uint64_t loss_ppb;        /* packets lost on every link, per 10^9 (seeded): 1e-3 = 1000000 */
};

struct sim_switch_params {
	sim_time_ps fwd_latency_ps; /* port to port, unloaded */
	uint64_t buffer_bytes;      /* packet memory of the whole switch; 0: unlimited */
	enum sim_switch_mode mode;
	enum sim_switch_sched sched;
	uint32_t radix;             /* ports at the link rate */
	/* 1: every network switch (not an NVSwitch) has a SHARP aggregation
	 * engine: it reduces what a group's members send it (an in-network
	 * reduction, core/schedule.h) and sends the result down to each
	 * (sim/sharp.c). */
	uint32_t sharp;
	/* ECN marking on an egress queue, RED-style (RFC 3168 CE bit; the
	 * switch side of DCQCN): none below kmin bytes queued, every packet
	 * from kmax on, a probability rising linearly to pmax in between.
	 * kmin 0: no marking. */
	uint64_t ecn_kmin_bytes, ecn_kmax_bytes;
	uint32_t ecn_pmax_pct;
	/* PFC: the pause time a PAUSE frame asks for, in quanta of 512 bit
	 * times (IEEE 802.1Qbb); the switch sends it again at half that while
	 * still above XOFF, and a zero-quanta frame at XON.  0: pause until
	 * the resume, with no expiry. */
	uint32_t pfc_quanta;
};

/* The RDMA NIC.  Latencies are from the event to its effect (see
 * docs/fabric.md for the chain they form); the IBA encodings at the end are
 * the QP attributes, as ibv_modify_qp() takes them. */
struct sim_rnic_params {
	sim_time_ps doorbell_ps;   /* CPU's MMIO doorbell write reaches the NIC */
	sim_time_ps wqe_fetch_ps;  /* DMA read of one WQE, round trip */
	sim_time_ps req_proc_ps;   /* requester: WQE in hand to first packet out */
	sim_time_ps resp_proc_ps;  /* responder: packet in to DMA write / ACK issued */
	sim_time_ps atomic_ps;     /* responder's extra read-modify-write for an atomic */
	sim_time_ps cqe_write_ps;  /* CQE DMA write until visible in host memory */
	uint32_t wqe_bytes;        /* one send WQE (basic block) */
	uint32_t bf_max_bytes;     /* largest WQE the doorbell itself carries (BlueFlame) */
	uint32_t inline_max_bytes; /* largest payload posted inline in the WQE */
	uint32_t max_outstanding_pkts; /* unacknowledged PSNs per QP (window) */
	uint32_t max_rd_atomic;    /* outstanding RDMA READ / atomic per QP (device cap) */
	uint32_t ack_coalesce_pkts; /* responder ACKs at least every N packets */
	uint32_t cqe_bytes;
	uint8_t min_rnr_timer;     /* IBA RNR NAK timer code 0..31 (12 = 0.64 ms) */
	uint8_t rnr_retry;         /* 0..7; 7 = retry forever */
	uint8_t retry_cnt;         /* 0..7 transport retries after a timeout */
	uint8_t timeout_exp;       /* local ACK timeout 4.096 us * 2^exp; 0 = none */
	uint8_t selective_repeat;  /* 1: the responder keeps packets past a gap and the
				    * requester resends only what a NAK names; 0: go-back-N.
				    * The struct's only padding follows it (7 bytes). */
};

/* RoCE congestion control: DCQCN (Zhu et al., "Congestion Control for
 * Large-Scale RDMA Deployments", SIGCOMM 2015) as ConnectX firmware runs
 * it, per QP.  Names follow the firmware's (mlxconfig ROCE_CC_*, sysfs
 * ecn/roce_np and roce_rp); sim/dcqcn.h has the state machine. */
struct sim_cc_params {
	sim_time_ps cnp_interval_ps; /* NP min_time_between_cnps, per QP */
	sim_time_ps alpha_period_ps; /* dce_tcp_rtt: alpha is updated once per period */
	sim_time_ps rate_reduce_period_ps; /* rate_reduce_monitor_period: one cut per period */
	sim_time_ps time_reset_ps;   /* rpg_time_reset: rate increase timer */
	uint64_t byte_reset_bytes;   /* rpg_byte_reset: rate increase byte counter */
	uint64_t min_rate_bps;       /* rpg_min_rate */
	uint64_t ai_rate_bps;        /* rpg_ai_rate: additive increase step */
	uint64_t hai_rate_bps;       /* rpg_hai_rate: hyper increase step */
	uint32_t dcqcn;              /* 1: receivers send CNPs for CE-marked packets, senders
				      * follow DCQCN's rate; 0: ECN marks are ignored */
	uint32_t alpha_g;            /* dce_tcp_g, /1024: alpha = g*alpha (+ 1 - g with a CNP) */
	uint32_t initial_alpha;      /* initial_alpha_value, /1024 */
	uint32_t rate_gd;            /* rpg_gd: a cut takes rate * alpha / 2^gd (alpha /1024) */
	uint32_t min_dec_pct;        /* rpg_min_dec_fac: a cut keeps at least this % */
	uint32_t threshold;          /* rpg_threshold: F, stages of fast recovery */
	uint32_t clamp_tgt_rate;     /* clamp_tgt_rate: 1: every cut sets target = rate
				      * (the DCQCN paper's rule) */
	uint32_t clamp_tgt_rate_ati; /* clamp_tgt_rate_after_time_inc: 1: a cut sets it
				      * when a timer step came since the last cut */
};

/* The RNIC's PCIe link, and the TLP costs a DMA pays on it. */
struct sim_pcie_params {
	uint64_t rate_bps;         /* per direction, after line coding; 0: unlimited */
	sim_time_ps latency_ps;    /* one TLP, one direction, incl. root complex */
	enum sim_pcie_gen gen;
	uint32_t lanes;
	uint32_t mps_bytes;        /* max payload size of a write / completion TLP */
	uint32_t mrrs_bytes;       /* max read request size */
	uint32_t tlp_overhead_bytes; /* per MWr/MRd TLP, 64-bit address: 24 */
	uint32_t cpl_overhead_bytes; /* per CplD TLP: 20 */
};

/* Memory and compute on either side of the NIC. */
struct sim_host_params {
	uint64_t gpu_mem_bytes_per_s;  /* HBM peak; a reduce moves 3 bytes per output byte */
	sim_time_ps gpu_launch_ps;     /* kernel launch to kernel start: once per collective */
	sim_time_ps gpu_step_ps;       /* per reduce/copy inside the running kernel: its
					* handshake with the proxy thread */
	/* A thread group's pace (sim/compute.h): each of its warps has
	 * gpu_warp_load_bytes of loads in flight per round and waits
	 * gpu_mem_latency_ps for them before the next; 0 for either: no
	 * pace, the memory's rate alone */
	sim_time_ps gpu_mem_latency_ps;
	uint64_t gpu_warp_load_bytes;
	/* a hop over NVLink (NCCL's P2P transport: no proxy, flags in GPU
	 * memory), from the kernel's store to the peer seeing its flag, per
	 * protocol: a latency, the kernel does not wait for it */
	sim_time_ps p2p_hop_ll_ps, p2p_hop_ll128_ps, p2p_hop_simple_ps;
	uint64_t nvlink_bps;           /* per GPU, per direction, all links */
	uint64_t cpu_mem_bytes_per_s;  /* DRAM peak, one socket */
	uint64_t cpu_thread_bytes_per_s; /* what one reducing/copying thread reaches */
	sim_time_ps cpu_call_ps;       /* fixed cost of one CPU reduce/copy call */
	/* The link between the CPU sockets, per direction: what NCCL's
	 * topology counts for it (src/graph/topo.h AMD_BW 16 GB/s,
	 * SRP_QPI_BW 22 GB/s for Sapphire Rapids), charged the TLPs that
	 * cross it as a PCIe switch's uplink is (sim/pcie.h); 0: unlimited.
	 * Only NICs on the other socket (nic_socket) cross it. */
	uint64_t socket_link_bytes_per_s;
	uint32_t nvlink_links;         /* links per GPU (nvlink_bps is their sum) */
	/* NVLink framing: data goes in NVLink packets of at most
	 * nvlink_pkt_bytes, each with nvlink_pkt_overhead_bytes of header
	 * flits (sim_wire_nvlink_bytes); 0: NVLink hops framed as the
	 * fabric's link layer, an idealised NVLink. */
	uint32_t nvlink_pkt_bytes;
	uint32_t nvlink_pkt_overhead_bytes;
	enum sim_gpu_dma gpu_dma;
	/* The GPU generation and the host CPU's maker: what NCCL's tuning
	 * model keys its tables on (core/nccl_tune.h), so `auto` picks the
	 * algorithm, protocol and channels NCCL would on this host. */
	enum cc_gpu_arch gpu_arch;
	enum cc_cpu_vendor cpu_vendor;
	enum sim_nic_socket nic_socket; /* where each GPU's NIC sits (above) */
};

/* Host software: the cost of the verbs calls in a schedule. */
struct sim_sw_params {
	sim_time_ps post_send_ps; /* ibv_post_send, per WQE, doorbell excluded */
	sim_time_ps post_recv_ps; /* ibv_post_recv, per WQE */
	sim_time_ps poll_cq_ps;   /* ibv_poll_cq, per call */
	/* NCCL's network plugin on a collective's network steps, beyond the
	 * verbs above: the proxy's CPU time per step, half at the sender's
	 * ncclIbIsend, half at the receiver's ncclIbIrecv (cc_tag.call). */
	sim_time_ps net_step_ps;
	/* The thread that launches the collective (sim/launch.h): its CPU
	 * time per GPU it drives (NCCL's enqueue and kernel launch), and per
	 * group of collectives (ncclGroupStart/End and the benchmark's own
	 * loop). */
	sim_time_ps launch_cpu_ps;
	sim_time_ps group_cpu_ps;
};

#define SIM_PARAMS_NAME_LEN 32

struct sim_params {
	char name[SIM_PARAMS_NAME_LEN]; /* preset name, or what a scenario calls it */
	struct sim_link_params link;
	struct sim_switch_params sw;
	struct sim_rnic_params rnic;
	struct sim_cc_params cc;
	struct sim_pcie_params pcie;
	struct sim_host_params host;
	struct sim_sw_params soft;
};

/* Copies the preset `name` into *out: 0, or -EINVAL for an unknown name (or
 * NULL), leaving *out untouched. */
int sim_params_preset(const char *name, struct sim_params *out);

/* The preset names, NULL-terminated, in a fixed order. */
const char *const *sim_params_preset_names(void);

/* Writes every field, one `key=value unit` line each ("link.rate_bps=
 * 200000000000 bit/s"; no unit for names and counts), in the order of
 * sim_param_fields[].  The output is a function of *p alone. */
void sim_params_print(FILE *f, const struct sim_params *p);

/* 0 if the models can run on *p, else -EINVAL: a zero link rate, an MTU that
 * is not an IBA path MTU, an enum out of range, an IBA encoding out of its
 * range, a zero window or WQE size, or a name without its NUL. */
int sim_params_validate(const struct sim_params *p);

/* The first rule of sim_params_validate() that p breaks: the reason ("must
 * be above 0"), with *key the field ("rnic.wqe_bytes"); NULL when p is
 * valid. */
const char *sim_params_invalid(const struct sim_params *p, const char **key);

/* The field table: key, unit as printed, where the value lives.  Keys are
 * "name" and "<section>.<member>" with the sections link, switch (member
 * `sw`), rnic, cc, pcie, host and software (member `soft`).  The scenario loader
 * will set fields through it; the tests check that it covers every byte of
 * struct sim_params, so a new member cannot be left out of the output. */
enum sim_param_kind {
	SIM_PARAM_STR,  /* char[size], NUL-terminated */
	SIM_PARAM_U64,
	SIM_PARAM_U32,
	SIM_PARAM_U8,
	SIM_PARAM_ENUM, /* stored as a 4-byte enum; names[] gives the text */
};

struct sim_param_field {
	const char *key;  /* "link.rate_bps" */
	const char *unit; /* "bit/s", "ps", "B", "B/s", or "" */
	size_t offset, size;
	enum sim_param_kind kind;
	const char *const *names; /* SIM_PARAM_ENUM: value -> text */
	unsigned nnames;
};
extern const struct sim_param_field sim_param_fields[];
extern const size_t sim_param_field_count;

/* The field whose key is `key`, or NULL. */
const struct sim_param_field *sim_param_field_find(const char *key);

/* Reads / writes one field as an unsigned integer (enums as their index),
 * whatever its width: what a scenario loader sets by key.  No range check:
 * sim_params_validate() afterwards. */
uint64_t sim_param_field_get(const struct sim_params *p, const struct sim_param_field *f);
void sim_param_field_set(struct sim_params *p, const struct sim_param_field *f, uint64_t v);

/* Derived quantities, exact in integers. */

/* lanes * lane_signal_bps * enc * fec, rounded down: the data rate the lane
 * fields imply (equal to rate_bps in every preset).  0 if a denominator is
 * 0. */
uint64_t sim_link_signal_rate_bps(const struct sim_link_params *l);

/* Data rate of a PCIe link per direction after line coding, rounded down:
 * Gen4 x16 = 16 GT/s * 16 * 128/130 = 252061538461 bit/s.  0 for a bad gen. */
uint64_t sim_pcie_rate_bps(enum sim_pcie_gen gen, uint32_t lanes);

/* NCCL's P2P hop for protocol p (host.p2p_hop_ll_ps, _ll128_ps,
 * _simple_ps): from a store of the kernel's to the peer seeing its flag
 * (fence, flight and poll included, as NCCL's tuner counts a hop). */
sim_time_ps sim_p2p_hop_ps(const struct sim_host_params *h, enum cc_proto p);

/* IBA local ACK timeout: 4.096 us * 2^exp; exp 0 means "never" and so does
 * anything above 31 (not encodable) — SIM_TIME_NEVER. */
sim_time_ps sim_ack_timeout_ps(unsigned exp);

/* IBA RNR NAK timer code (0..31) to its delay: 12 -> 0.64 ms, 0 -> 655.36 ms
 * (ibv_modify_qp(3) lists the table).  SIM_TIME_NEVER above 31. */
sim_time_ps sim_rnr_timer_ps(unsigned code);

#endif /* CCLAB_SIM_PARAMS_H */
