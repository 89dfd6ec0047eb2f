/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/exec_int.h — the simulator executor's state, shared by its host side
 * (sim/exec.c: ops, CPU, GPU, memory, completion queues) and its RNIC
 * (sim/rnic.c: requester, responder, completer).  Internal to sim/.
 *
 * PSNs are kept as 32-bit counters that never wrap within a run (a QP would
 * need 2^32 packets, 16 TiB at 4 KiB MTU); the packet carries the low 24
 * bits, as the BTH does (IBA 9.2).
 */
#ifndef CCLAB_SIM_EXEC_INT_H
#define CCLAB_SIM_EXEC_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/check_io.h"
#include "core/exec_common.h"
#include "core/resp_check.h"
#include "sim/compute.h"
#include "sim/dcqcn.h"
#include "sim/event.h"
#include "sim/exec.h"
#include "sim/gpu_host.h"
#include "sim/link.h"
#include "sim/packet.h"
#include "sim/park.h"
#include "sim/pcie.h"
#include "sim/topo.h"

#define SX_NONE UINT32_MAX

/* Packets a port keeps between its arbiter and the wire, their payload
 * DMA reads in flight (sx_port_prefetch): at least this many, and more
 * where a PCIe read round trip at the port's line rate needs it. */
#define SX_TX_PREFETCH_MIN 8u
#define SX_TX_PREFETCH_MAX 4096u

/* What an sx_pkt is at the moment. */
enum sx_pkt_kind {
	SX_PKT_REQ,     /* request: SEND / WRITE / READ request / atomic */
	SX_PKT_RESP,    /* response: ACK / NAK / READ response / atomic ACK */
	SX_PKT_DOORBELL, /* token: a doorbell on its way to the NIC */
	SX_PKT_FETCH,   /* token: WQEs being fetched */
	SX_PKT_CQE,     /* token: a CQE on its way to host memory */
	SX_PKT_ATOMIC,  /* token: the responder's read-modify-write */
	SX_PKT_CNP,     /* congestion notification, NP to RP */
	/* NVLink SHARP (sim/nvls.c): an NVSwitch's read of a member's share
	 * of a multicast READ, the member's answer to the switch, and a
	 * multicast WRITE's copy on its way to a member */
	SX_PKT_MC_READ,
	SX_PKT_MC_RESP,
	SX_PKT_MC_WRITE,
};

/* AETH syndromes (IBA 9.7.5.2.1), the ones the model sends: the NAKs of
 * the responder's request checks (core/resp_check.h), by the same values,
 * and the sequence error, which only the simulator (it has PSNs) sends. */
enum sx_aeth {
	SX_AETH_ACK = CC_NAK_NONE,
	SX_AETH_RNR_NAK = CC_NAK_RNR,
	SX_AETH_NAK_INV_REQ = CC_NAK_INV_REQ,
	SX_AETH_NAK_REM_ACCESS = CC_NAK_REM_ACCESS,
	SX_AETH_NAK_REM_OP = CC_NAK_REM_OP,
	SX_AETH_NAK_SEQ,
};

/* A packet on the wire, or a token in one of the NIC's pipelines.  The
 * sim_packet comes first so the models' pointers convert back. */
struct sx_pkt {
	struct sim_packet p;
	enum sx_pkt_kind kind;
	uint32_t rank, qp;  /* owner: the NIC that created it, and its QP */
	uint32_t wqe;       /* REQ/READ resp: requester's SQ index; tokens: op or count */
	uint32_t idx;       /* packet index in its message */
	uint32_t epoch;     /* REQ: the QP's send epoch when made (stale after a rewind) */
	uint32_t aeth;      /* RESP ACK/NAK: enum sx_aeth */
	uint32_t ack_psn;   /* RESP: the PSN acknowledged or NAKed (full 32 bits) */
	uint32_t psn;       /* full 32-bit PSN */
	uint32_t port;      /* NIC port it leaves by */
	uint32_t rx_port;   /* NIC port it came in by (set on arrival) */
	bool rx_nvlink;     /* it arrived on an NVLink port: no PCIe write at the receiver */
	bool ready;         /* payload read in (or none to read) */
	bool last_of_msg;
	bool ackreq;        /* BTH AckReq: the requester wants an ACK for it */
	bool retx;          /* a retransmission */
	bool by_switch;     /* an NVSwitch made it (sim/nvls.c): no NIC sent it */
	uint32_t red;       /* MC_READ, MC_RESP: the switch's reduction */
	/* Payload: REQ at the responder, where it lands (set when accepted);
	 * READ response, where it comes from at the responder. */
	uint32_t buf;
	uint64_t off;
	/* CQE token */
	uint32_t cq, op, byte_len, imm, status;
	bool is_recv;
	uint64_t old;       /* atomic: the remote word before the operation */
	/* Payload bytes as the NIC read them (sx_pkt_snapshot), when the run
	 * carries the source: what lands at the receiver; NULL otherwise. */
	uint8_t *data;
	/* An inline request's payload, taken from its WQE as the NIC takes it
	 * (sx_pkt_snapshot): the op may be reused before the packet lands. */
	bool inl;
	uint64_t inl_value;
	sim_time_ps t0;     /* when the NIC issued it (CQE timing, switch time) */
	struct sx_pkt *free_next;
};

/* An entry of a send queue: one posted send WQE. */
struct sx_wqe {
	uint32_t op;        /* the post_send op */
	uint32_t first_psn; /* set when the requester starts it */
	uint32_t npsn;      /* PSNs it takes: request packets, or READ response packets */
	uint32_t resp_next; /* READ / atomic: the response PSN expected next */
	uint32_t lkey, rkey; /* as resolved at post time (faults flip them) */
	bool started, done, failed;
	sim_time_ps t_first; /* first payload read issued (trace) */
};

/* A pending READ response at the responder. */
struct sx_rdresp {
	uint32_t req_rank, req_qp, wqe; /* the requester's WQE */
	uint32_t psn;       /* first response PSN */
	uint32_t npkts, next;
	uint32_t buf;       /* responder memory */
	uint64_t off;
};

struct sx_qp {
	uint32_t rank, q, peer, peer_q, port;
	uint32_t peer_port; /* the peer QP's port where the peer has several NICs (its
			     * packets go to that NIC), SX_NONE otherwise */
	uint32_t mtu;       /* path MTU, both directions (IBA: a QP attribute both ends share) */
	bool nvlink;        /* its port is NVLink: payloads need no PCIe read */
	bool mcast;         /* a multicast QP: its requests are for the NVSwitch (sim/nvls.c) */
	bool fl_busy;       /* --model flow: a message of its own is leaving (sim/rnic_flow.c), */
	uint32_t fl_seen;   /*   the WQEs whose payload reads have started, */
	sim_time_ps fl_hold; /*  (responder) when a request it refused for RNR comes again, */
	uint32_t fl_last_mc; /*  (multicast) its last store not landed yet, or UINT32_MAX, */
	uint32_t fl_seq;     /*  (SHARP) the SENDs it has begun, */
	sim_time_ps fl_in, fl_wr; /* and what comes in for it: the last arrival, and when
				   * the last write is done (they stay in order, IBA 9.5) */
	/* send queue: every WQE ever posted (append-only; a generated
	 * schedule's gives back the pages below sq_given, sim/exec_gen.c) */
	struct sx_wqe *sq;
	uint32_t sq_n, sq_cap, sq_given;
	uint32_t rung;      /* handed to the NIC by doorbells the CPU rang */
	uint32_t fetched;   /* WQEs the NIC holds */
	uint32_t retired;   /* freed by reaped completions (queue-full check) */
	/* requester */
	uint32_t cur, cur_pkt; /* next packet to make: WQE cur, its packet cur_pkt */
	uint32_t next_psn;  /* PSN of that packet */
	uint32_t max_psn;   /* highest PSN + 1 ever sent (retransmission accounting) */
	uint32_t una;       /* oldest WQE not completed */
	uint32_t una_psn;   /* oldest unacknowledged PSN */
	uint32_t epoch;
	uint32_t rd_out;    /* READ / atomic WQEs started, not completed */
	uint32_t fetching;  /* doorbells whose WQEs are being fetched by DMA */
	uint32_t rnr_left, retry_left;
	uint8_t rnr_max, retry_max; /* the QP's rnr_retry / retry_cnt (rnic.c resets to them) */
	uint32_t rnr_psn;   /* where to resume when the RNR timer fires */
	bool rnr_wait;      /* stopped until the RNR timer fires */
	bool error;
	sim_time_ps ack_deadline; /* local ACK timeout (lazy timer) */
	bool ack_timer_armed;
	uint32_t *sr_psn;   /* selective repeat: PSNs a NAK asked for, to resend first */
	uint32_t sr_n, sr_cap;
	/* DCQCN: this QP's rate as a reaction point, the pacing it sets,
	 * and when it last sent a CNP as a notification point */
	struct sim_dcqcn cc;
	sim_time_ps pace_last;  /* the previous paced packet was made then, */
	uint32_t pace_bytes;    /* of this many wire bytes */
	sim_time_ps cnp_last;
	bool cnp_sent;
	/* responder */
	uint32_t epsn;
	uint32_t since_ack;
	bool nak_out;       /* a NAK for epsn is out: send no other until it is met */
	struct sim_pktq ooo; /* selective repeat: packets past epsn, by PSN */
	uint32_t resp_recv; /* receive WQE a multi-packet SEND is filling */
	sim_time_ps t_rx_first;
	struct sx_rdresp *rd;  /* READ responses to send, FIFO */
	uint32_t rd_n, rd_head, rd_cap;
	/* receive queue: post_recv ops, append-only (as the send queue) */
	uint32_t *rq;
	uint32_t rq_n, rq_head, rq_cap, rq_given;
	uint32_t rq_retired;
};

struct sx_cqe {
	uint64_t wr_id;
	uint32_t op, qp, status, byte_len, imm;
	bool is_recv;
};

struct sx_cq {
	struct sx_cqe *e;
	uint32_t n, cap;
};

/* A multicast READ's share a member owes its NVSwitch (sim/nvls.c). */
struct sx_mcowe {
	uint32_t red;       /* the switch's reduction */
	uint32_t buf;       /* where in this rank's memory */
	uint64_t off;
	uint32_t len, mtu, npkts, next;
};

struct sx_port {
	struct sim_link_dir *tx;
	struct sx_mcowe *mc;    /* multicast READ shares owed, FIFO (NVLink port) */
	uint32_t mc_n, mc_head, mc_cap;
	struct sim_pktq ctrl;   /* ACKs and NAKs waiting: they go first */
	struct sim_pktq stage;  /* packets being read in, then sent, in order */
	uint32_t reading;       /* of those, payload not yet read in */
	uint32_t prefetch;      /* how many it may hold (sx_port_prefetch) */
	uint32_t rr;            /* round robin: the QP to look at first */
	/* The arbiter's index (sx_port_fill): a bit per QP of the rank, and
	 * one more for the NVLS share (always set), for the QPs of this port
	 * that may have something to send; set by sx_qp_wake where a QP gains
	 * work, cleared by the arbiter when it finds the QP has none.  A
	 * superset of the QPs that can send, so it picks what a scan of every
	 * QP would, in the same order, looking only at these. */
	uint64_t *ready;
	sim_time_ps wake_at;    /* a paced QP's wake-up is scheduled then; 0: none */
	bool nvlink;            /* its link is NVLink (sim_topo_nic_port_nvlink), per packet */
	struct sim_pcie *pcie;  /* the PCIe link of the NIC it belongs to (a network port) */
};

/* Whose a buffer is: the rank's own, or a connection's whose peer is
 * reached over NVLink (NCCL's P2P transport: sim/exec.c op_p2p) or across
 * the network; in that order of the step's cost. */
enum sx_path { SX_PATH_OWN, SX_PATH_P2P, SX_PATH_NET };

/* A generated op's state in the simulator, op i's at
 * opst[i >> CC_OPBLK_SHIFT][i & (CC_OPBLK - 1)]: blocks of CC_OPBLK taken
 * as the first op of the op block is registered and given back with the
 * op block (sim/exec_gen.c), so
 * that an op's state stays in memory already touched and near its
 * neighbours', as the op itself does (core/gen.h). */
struct sx_opst {
	uint32_t deps_left;     /* dependencies not done */
	uint32_t sq_pos;        /* a post_send: its index in its SQ */
	struct sx_ulist { uint32_t head, tail; } users; /* first and last edge + 1, or 0 */
	bool done;
};

struct sx_rank {
	struct sx *x;
	uint32_t r;
	uint8_t **mem;          /* per buffer; NULL where not carried */
	uint8_t *buf_path;      /* per buffer: enum sx_path */
	uint32_t *key;          /* per MR: lkey == rkey */
	/* A built schedule's: per op, its dependencies not done and its
	 * place in its SQ (a post_send); its users, each op's from
	 * users_first[i].  A generated schedule's are in opst. */
	uint32_t *deps_left, *users_first, *users, *sq_pos;
	uint32_t ndone;
	/* A generated schedule (sim/exec_gen.c): each op's state in blocks
	 * beside its op's (struct sx_opst), the users' lists' edges per
	 * dependency position (the list's next edge + 1 and the op it
	 * belongs to: one cache line for both; reserved address space,
	 * cc_span_new()); per stream, its oldest op not done and the ops
	 * given back below `given`. */
	struct sx_opst **opst;
	struct sx_uedge { uint32_t next, op; } *uedge;
	uint32_t *front, *given;
	/* host CPU: ready ops in FIFO order, the head running (a ring that
	 * doubles when full) */
	uint32_t *cpu_q, cpu_head, cpu_tail, cpu_cap;
	bool cpu_busy;
	/* P2P ops (exec.c op_p2p): no CPU, taken at once, in order */
	uint32_t *p2p_q, p2p_head, p2p_tail, p2p_cap;
	bool p2p_armed;
	sim_time_ps cpu_busy_ps;
	sim_time_ps cpu_start;
	struct sx_park park;    /* poll_cq / wait_mem ops waiting */
	struct sim_compute gpu, cpu_calc;
	struct sim_gpu_host gpu_host; /* the GPU's PCIe link to staging in host memory */
	struct sx_qp *qp;
	struct sx_cq *cq;
	/* RNIC */
	struct sim_pcie pcie;
	/* The uplink of the PCIe switch its GPU and NIC sit behind (host
	 * memory's way, sim/pcie.h), or NULL: none in the topology. */
	struct sim_pcie_uplink *uplink;
	/* The link between the CPU sockets where its NIC is on the other
	 * socket (host.nic_socket remote): all the NIC's DMA crosses it,
	 * shared by its host's NICs; else NULL. */
	struct sim_pcie_uplink *xsocket;
	/* Several NICs (the host's `nics`): NIC i is the i-th network port,
	 * NIC 0's PCIe link is `pcie`, the others' nic_pcie[i - 1]; what they
	 * move to and from GPU memory shares the GPU's own link, gpu_link. */
	uint32_t nnics;
	struct sim_pcie *nic_pcie;
	struct sim_pcie_uplink gpu_link;
	struct sx_port *port;
	struct sim_pipe db_pipe, fetch_pipe, bf_pipe, cqe_pipe, atomic_pipe;
	sim_time_ps atomic_free;  /* the responder's atomic unit is free from then */
	sim_time_ps cqe_last_due;
	struct cc_sim_rank_stats *st;
	sim_time_ps sw_covered;  /* switch time accounting: union covered up to */
};

struct sx_nvs;
struct sx_sharp;
struct sx_flow;

struct sx {
	const struct cc_schedule *s;
	const struct cc_sim_opts *o;
	const struct sim_params *f;
	struct cc_sim_result *res;
	struct sim_engine eng;
	struct sim_topo topo;
	struct sx_rank *rk;
	struct sx_pkt *free_pkts;
	void **slabs;
	uint32_t nslabs, slab_cap;
	struct cc_check_io io;
	bool io_ready;
	uint32_t ranks_done;
	bool have_err;           /* first error CQE generated */
	struct sx_cqe first_err;
	uint32_t first_err_rank;
	/* Faults (sim/fault.h, sim/exec_fault.c): the links' outages, and
	 * from when each rank's NIC stops acknowledging (NULL: none does). */
	struct sim_link_outage *outages;
	sim_time_ps *no_ack_from;
	/* The NVSwitches' multicast and reduction engines (sim/nvls.c), one
	 * per host with an NVSwitch. */
	struct sx_nvs *nvs;
	uint32_t nnvs;
	/* The network switches' SHARP aggregation engines (sim/sharp.c), one
	 * per switch that in-network reductions use. */
	struct sx_sharp *sharp;
	uint32_t nsharp;
	/* --model flow: messages as flows (sim/rnic_flow.c); NULL: packets. */
	struct sx_flow *fl;
	/* The hosts' PCIe switch uplinks (sim_net_pcie), in switch order. */
	struct sim_pcie_uplink *uplinks;
	uint32_t nuplinks;
	struct sim_pcie_bulk (*uplink_rings)[SIM_PCIE_BULK_RING]; /* NDIR per uplink */
	/* The hosts' links between their sockets, one a host, where the
	 * NICs are on the other socket (host.nic_socket remote); else NULL. */
	struct sim_pcie_uplink *socket_links;
	/* The wall-clock limit (wall_limit_ms): started then, and hit. */
	uint64_t wall_start_ns;
	bool wall_hit;
	/* A generated schedule (s->gen): ops each stream keeps made ahead of
	 * its oldest not done, and whether one was made too late (the run
	 * starts again with a larger window; sim/exec_gen.c). */
	uint32_t gen_window;
	bool gen_late;
	struct sx_opst_free { struct sx_opst_free *next; } *opst_free; /* blocks to take again */
	bool gen_whole; /* and the next attempt makes every stream whole */
};

/* exec.c: the host side as the NIC sees it. */
struct sx_pkt *sx_pkt_get(struct sx *x);
void sx_pkt_put(struct sx *x, struct sx_pkt *k);
void sx_cqe_visible(struct sx *x, struct sx_pkt *k);
void sx_mem_written(struct sx *x, uint32_t r, uint32_t buf, uint64_t off, uint64_t len);
void sx_trace(struct sx *x, enum cc_trace_kind kind, uint32_t r, enum cc_trace_track track,
	      uint32_t qp, uint32_t op, sim_time_ps t, sim_time_ps dur, uint64_t bytes);
_Noreturn void sx_die_nomem(void);

/* Doubles array `arr` of `cap` elements when `n` has reached it (git's
 * ALLOC_GROW); out of memory ends the run. */
#define SX_GROW(arr, n, cap)                                                     \
	do {                                                                     \
		if ((n) >= (cap)) {                                              \
			uint32_t ncap_ = (cap) ? 2 * (cap) : 16;                 \
			void *p_ = realloc((arr), (size_t)ncap_ * sizeof(*(arr))); \
			if (!p_)                                                 \
				sx_die_nomem();                                  \
			(arr) = p_;                                              \
			(cap) = ncap_;                                           \
		}                                                                \
	} while (0)

/* exec.c: op i of rank r has no dependency left. */
void sx_op_ready(struct sx *x, uint32_t r, uint32_t i);
/* Whether op i, without dependencies, would start now rather than wait
 * (a wait_mem whose word is there, a poll whose CQE is, any other op). */
bool sx_gen_would_start(struct sx *x, uint32_t r, uint32_t i);

/* exec_gen.c: a generated schedule's ops (core/gen.h) as the run asks for
 * them.  sx_gen_rank_init(): rank r's tables of per-op state (its
 * blocks taken as ops are registered); 0 or -ENOMEM.  sx_gen_start(): each stream's first window made, and
 * registered (nothing readied).  sx_gen_done(): op i is done; its stream
 * moves on (called at the end of op_done; its state's done is set at its
 * start).  sx_gen_waiting(): the first op of rank r that waits for a
 * dependency, for a stuck run's message, or nops: none. */
int sx_gen_rank_init(struct sx *x, uint32_t r);
void sx_gen_rank_free(struct sx *x, uint32_t r);
/* The QPs' send and receive queues, reserved (after the QPs are set up). */
int sx_gen_queues_init(struct sx *x, uint32_t r);
/* What rank r's generated ops and their state hold with `live` of its ops
 * in use at once, its QPs' sends and receives as counted (per QP);
 * cc_sim_mem_estimate()'s model of the allocations above. */
double sx_gen_rank_bytes(const struct cc_schedule *s, uint32_t r, double live,
			 const double *qp_sends, const double *qp_recvs);
void sx_gen_queues_free(struct sx *x, uint32_t r);
void sx_gen_start(struct sx *x, uint32_t r);
void sx_gen_done(struct sx *x, uint32_t r, uint32_t i);
uint32_t sx_gen_waiting(const struct sx *x, uint32_t r);
/* The blocks of struct sx_opst still to take again, freed (run's end). */
void sx_gen_opst_pool_free(struct sx *x);

/* Op i's state in a generated schedule (struct sx_opst). */
static inline struct sx_opst *sx_opst(const struct sx_rank *rk, uint32_t i)
{
	return &rk->opst[i >> CC_OPBLK_SHIFT][i & (CC_OPBLK - 1)];
}

/* Op i's count of dependencies not done, either form. */
static inline uint32_t *sx_deps_left(const struct sx_rank *rk, uint32_t i)
{
	return rk->opst ? &sx_opst(rk, i)->deps_left : &rk->deps_left[i];
}

/* Post_send op i's index in its SQ, either form. */
static inline uint32_t *sx_sq_pos(const struct sx_rank *rk, uint32_t i)
{
	return rk->opst ? &sx_opst(rk, i)->sq_pos : &rk->sq_pos[i];
}
/* Whether some stream has ops not made yet. */
bool sx_gen_unmade(const struct sx *x);

/* exec_fault.c: the simulator's faults on this run's models, after every
 * rank is set up; 0, -EINVAL (faults the network rejects) or -ENOMEM. */
int sx_faults_apply(struct sx *x);
void sx_faults_free(struct sx *x);

/* no-ack: rank r's NIC sends no ACK, NAK or atomic ACK now. */
static inline bool sx_no_ack(const struct sx *x, uint32_t r)
{
	return x->no_ack_from && sim_now(&x->eng) >= x->no_ack_from[r];
}

/* rnic.c: setup, doorbells, transmit, requester, completer. */
/* Packets a port of rate_bps keeps in flight to its wire for packets of
 * mtu_bytes: enough to cover a PCIe read round trip of one packet at that
 * rate, doubled (200 Gb/s x 0.55 us = 14 KB: 4 packets of 4 KiB, so 8), at
 * least SX_TX_PREFETCH_MIN.  Assumed, as no vendor publishes its transmit
 * prefetch depth; a NIC with less would fall short of line rate at high
 * PCIe latency or small MTU. */
uint32_t sx_port_prefetch(const struct sim_params *f, uint64_t rate_bps, uint32_t mtu_bytes);
int sx_nic_init(struct sx *x, uint32_t r);
void sx_nic_destroy(struct sx *x, uint32_t r);
void sx_nic_doorbell(struct sx *x, uint32_t r, uint32_t q, uint32_t nwqe);
void sx_qp_flush(struct sx *x, uint32_t r, uint32_t q);
void sx_wqe_fail(struct sx *x, uint32_t r, uint32_t q, uint32_t i, enum cc_wc_status st);
void sx_cqe_push(struct sx *x, uint32_t r, struct sx_pkt *k, sim_time_ps want);
void sx_cqe_new(struct sx *x, uint32_t r, uint32_t q, uint32_t op, bool is_recv,
		enum cc_wc_status st, uint32_t len, uint32_t imm, sim_time_ps want);
void sx_ack_upto(struct sx *x, uint32_t r, struct sx_qp *qp, uint32_t upto);
/* Completes qp's WQEs from the oldest on, in order, while they are done. */
void sx_complete_in_order(struct sx *x, uint32_t r, struct sx_qp *qp);
void sx_wqe_response_done(struct sx *x, uint32_t r, struct sx_qp *qp, uint32_t i);
void sx_completer(struct sx *x, uint32_t r, struct sx_pkt *k);
/* Sizes k for the link layer it crosses: NVLink's framing on an NVLink
 * path (host.nvlink_pkt_*), else the fabric's. */
void sx_pkt_size(const struct sx *x, struct sx_pkt *k, bool nvlink, enum sim_bth_op op,
		 uint32_t payload);
/* A READ request k for len bytes: on NVLink, the request flits of every
 * NVLink packet it asks for (sim_wire_nvlink_read_bytes). */
void sx_pkt_read_request(const struct sx *x, struct sx_pkt *k, bool nvlink, uint64_t len);
/* From a completion's cause to its CQE in host memory, for QP qp. */
sim_time_ps sx_cqe_write_ps(const struct sx *x, const struct sx_qp *qp);
void sx_pkt_address(const struct sx *x, struct sx_pkt *k, uint32_t r, const struct sx_qp *qp,
		    enum sim_bth_op op, uint32_t payload);
/* Copies k's payload as its NIC reads it (sim/rnic_resp.c). */
void sx_pkt_snapshot(struct sx *x, struct sx_pkt *k);
/* The shared link a DMA of rank r's buffer buf crosses besides its NIC's:
 * the link between the CPU sockets where the NIC is on the other socket
 * (host.nic_socket remote), whatever the memory; else the uplink of its
 * PCIe switch where buf is in host memory (NULL without a switch); where
 * it is in GPU memory, the GPU's own link when the GPU has several NICs,
 * else NULL (GPUDirect RDMA turns at the switch).  sx_pkt_source_uplink(): the
 * same for the memory a packet's payload is read from. */
struct sim_pcie_uplink *sx_buf_uplink(const struct sx *x, uint32_t r, uint32_t buf);
struct sim_pcie_uplink *sx_pkt_source_uplink(const struct sx *x, const struct sx_pkt *k);
void sx_port_stage(struct sx *x, uint32_t r, struct sx_pkt *k, bool needs_read);
void sx_port_fill(struct sx *x, uint32_t r, uint32_t port);
/* QP qp may have gained something to send (WQEs fetched, a READ response
 * or a resend owed, a rewind): its port's arbiter looks at it again. */
static inline void sx_qp_wake(struct sx *x, uint32_t r, const struct sx_qp *qp)
{
	x->rk[r].port[qp->port].ready[qp->q / 64] |= UINT64_C(1) << (qp->q % 64);
}
void sx_port_kick(struct sx *x, uint32_t r, uint32_t port);
const struct cc_op_send *sx_wqe_send(const struct sx *x, uint32_t r, const struct sx_wqe *w);
void sx_segment(enum sim_msg msg, uint32_t len, uint32_t mtu, struct sim_wire_seg *seg);
const struct cc_mr *sx_find_mr(const struct sx *x, uint32_t r, uint32_t key, uint64_t off,
			       uint64_t len, uint32_t access);

/* rnic_resp.c: the responder, and READ / atomic responses at the requester. */
void sx_responder(struct sx *x, uint32_t r, struct sx_pkt *k);
void sx_resp_read_make(struct sx *x, uint32_t r, struct sx_qp *qp);
void sx_response_data(struct sx *x, uint32_t r, struct sx_qp *qp, struct sx_pkt *k);
void sx_atomic_done(struct sim_engine *eng, void *ctx, uint32_t port, struct sim_packet *pkt);
void sx_responder_drain(struct sx *x, uint32_t r, struct sx_qp *qp);

/* nvls.c: NVLink SHARP's switch side, and a member's share of it. */
int sx_nvls_init(struct sx *x);
void sx_nvls_free(struct sx *x);
/* An MC_READ or MC_WRITE arrived at rank r's NIC port `port`. */
void sx_nvls_rx(struct sx *x, uint32_t r, uint32_t port, struct sx_pkt *k);
/* Whether port `port` of rank r owes its switch a READ's share, and the
 * next packet of it, made and staged. */
bool sx_nvls_owes(const struct sx *x, uint32_t r, uint32_t port);
void sx_nvls_resp_make(struct sx *x, uint32_t r, uint32_t port);
/* Addresses switch-made packet k towards dst (a rank, its QP dst_qpn, or
 * SIM_TOPO_MCAST) on the flow of (rank `from`, QP from_qp), as opcode op
 * with `payload` bytes, framed for NVLink or the network. */
void sx_switch_address(const struct sx *x, struct sx_pkt *k, uint32_t dst, uint32_t dst_qpn,
		       uint32_t from, uint32_t from_qp, enum sim_bth_op op, uint32_t payload,
		       bool nvlink);
/* A copy of `len` bytes at src, for a packet's payload. */
uint8_t *sx_bytes_of(const uint8_t *src, uint32_t len);
/* A switch's reduction takes `len` bytes at src (a member's share; NULL:
 * not carried, which sets *nodata) at offset `at` of its accumulator *acc
 * of `total` bytes, allocated on first use: copied when it is the first
 * share there, else reduced in.  sx_fold_share(): packet k's payload. */
void sx_fold_bytes(uint8_t **acc, bool *nodata, uint32_t total, uint64_t at, bool first,
		   const uint8_t *src, uint32_t len, enum cc_dtype dtype, enum cc_redop redop);
void sx_fold_share(uint8_t **acc, bool *nodata, uint32_t total, uint64_t at, bool first,
		   const struct sx_pkt *k, enum cc_dtype dtype, enum cc_redop redop);

/* rnic_flow.c: the flow-level model's NIC (--model flow).  Set up after
 * the ranks (0, or -EINVAL with why in err: what it does not model), and
 * freed with the run. */
int sx_flow_init(struct sx *x, char *err, size_t errlen);
void sx_flow_free(struct sx *x);
/* QP qp has fetched WQEs: it sends the next message when it has none
 * leaving. */
void sx_flow_kick(struct sx *x, uint32_t r, struct sx_qp *qp);

/* sharp.c: SHARP in the network's switches. */
/* Whether multicast QP cq's group is the network's (SHARP), not one
 * NVSwitch node's (NVLS: consecutive members on one NVSwitch host). */
bool sx_sharp_group(const struct sx *x, const struct cc_qp *cq);
/* The engines for every such group: 0, or an error with a message. */
int sx_sharp_init(struct sx *x, char *err, size_t errlen);
void sx_sharp_free(struct sx *x);

#endif /* CCLAB_SIM_EXEC_INT_H */
