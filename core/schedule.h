/* SPDX-License-Identifier: BSD-3-Clause */
/* core/schedule.h — the schedule: the verbs-level work of every rank.
 *
 * An algorithm (core/ring.c, ...) turns a collective into a schedule; the
 * executors (data, sim, verbs) consume the same schedule.  Per rank:
 *
 *   setup:  buffers (host or GPU), memory regions over them with access
 *           flags, completion queues, RC queue pairs to peers;
 *   ops:    post_recv, post_send, doorbell, poll_cq, wait_mem, reduce, copy —
 *           in program order, each with explicit dependencies on earlier ops
 *           of the same rank.
 *
 * Semantics (docs/schedule.md says the same for users):
 *   - An op may start once every op it depends on has completed.  Program
 *     order is only a tie-break; a rank is done when all its ops are.
 *   - post_send / post_recv write a WQE into the queue's ring in host memory
 *     and complete at once.  The RNIC sees a send WQE only after a doorbell on
 *     that QP (the MMIO write of ibv_post_send); one doorbell covers every WQE
 *     posted on the QP since the previous one, as a post list does.  Receive
 *     WQEs need no doorbell (mlx5 updates a doorbell record in host memory).
 *   - poll_cq completes when the completion of wr_id has been reaped from the
 *     CQ.  wait_mem completes when the 64-bit little-endian word at buffer +
 *     offset is >= value (a flag or credit written by a peer's RDMA WRITE).
 *   - reduce / copy run on the rank's GPU (or CPU for host buffers).
 *   - Remote addresses are (peer rank, peer MR, offset); an executor resolves
 *     them to remote_addr + rkey at setup, as the bootstrap exchange does.
 *
 * All indices (buffer, mr, cq, qp, op) are per rank and dense from 0.
 */
#ifndef CCLAB_CORE_SCHEDULE_H
#define CCLAB_CORE_SCHEDULE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dtype.h"
#include "proto.h"

enum cc_mem_kind { CC_MEM_HOST, CC_MEM_GPU, CC_MEM_KIND_COUNT };

/* What a buffer is for; reported in traces and used by the checker. */
enum cc_buf_role {
	CC_BUF_INPUT,      /* user send buffer */
	CC_BUF_OUTPUT,     /* user receive buffer */
	CC_BUF_RECV_STAGE, /* slots a peer writes data into */
	CC_BUF_SEND_STAGE, /* slots this rank fills and sends from */
	CC_BUF_CTS,        /* clear-to-send words a receiver writes (NCCL's fifo) */
	CC_BUF_FLAG,       /* data-ready flags a sender writes (write_flag) */
	CC_BUF_MCAST,      /* bound to the node's multicast object (NVLS): a
			    * multicast QP reaches it at every member */
	CC_BUF_FLUSH,      /* host word a GDR flush's 1-byte READ lands in */
	CC_BUF_ROLE_COUNT
};

/* Access flags, with libibverbs' values (enum ibv_access_flags). */
enum {
	CC_ACCESS_LOCAL_WRITE = 1,
	CC_ACCESS_REMOTE_WRITE = 2,
	CC_ACCESS_REMOTE_READ = 4,
	CC_ACCESS_REMOTE_ATOMIC = 8,
};

/* Work request opcodes (enum ibv_wr_opcode, in a stable order of our own). */
enum cc_opcode {
	CC_WR_SEND,
	CC_WR_SEND_WITH_IMM,
	CC_WR_RDMA_WRITE,
	CC_WR_RDMA_WRITE_WITH_IMM,
	CC_WR_RDMA_READ,
	CC_WR_ATOMIC_FETCH_ADD,
	CC_WR_ATOMIC_CMP_SWP,
	CC_OPCODE_COUNT
};

/* Send flags (IBV_SEND_*). */
enum {
	CC_SEND_SIGNALED = 1 << 0, /* a CQE on success; errors always give one */
	CC_SEND_INLINE = 1 << 1,   /* payload copied into the WQE at post time */
	CC_SEND_FENCE = 1 << 2,    /* wait for earlier READs/atomics on the QP */
};

/* What a send carries, for byte accounting: collective data, or the
 * protocol's own control words (clear-to-send credits, flags). */
enum cc_payload { CC_PAYLOAD_DATA, CC_PAYLOAD_CTRL };

enum cc_op_kind {
	CC_OP_POST_RECV,
	CC_OP_POST_SEND,
	CC_OP_DOORBELL,
	CC_OP_POLL_CQ,
	CC_OP_WAIT_MEM,
	CC_OP_REDUCE,
	CC_OP_COPY,
	CC_OP_KIND_COUNT
};

/* NCCL's primitives (src/device/prims_*.h), plus copy for k = 1 and none
 * for protocol ops that belong to no primitive (credits, setup). */
enum cc_prim {
	CC_PRIM_NONE,
	CC_PRIM_SEND,
	CC_PRIM_COPY_SEND,
	CC_PRIM_RECV_REDUCE_SEND,
	CC_PRIM_RECV_REDUCE_COPY_SEND,
	CC_PRIM_RECV_REDUCE_COPY,
	CC_PRIM_RECV_COPY_SEND,
	CC_PRIM_RECV,
	CC_PRIM_COPY,
	/* NVLS (core/nvls.c): the user's data into the multicast buffer,
	 * back out of it, and a head's multimem.ld_reduce then multimem.st */
	CC_PRIM_SCATTER,
	CC_PRIM_GATHER,
	CC_PRIM_DIRECT_RECV_DIRECT_SEND,
	CC_PRIM_COUNT
};

enum cc_where { CC_ON_GPU, CC_ON_CPU };

extern const char *const cc_mem_kind_name[CC_MEM_KIND_COUNT];
extern const char *const cc_buf_role_name[CC_BUF_ROLE_COUNT];
extern const char *const cc_opcode_name[CC_OPCODE_COUNT];
extern const char *const cc_op_kind_name[CC_OP_KIND_COUNT];
extern const char *const cc_prim_name[CC_PRIM_COUNT];

struct cc_buffer {
	enum cc_mem_kind mem;
	enum cc_buf_role role;
	uint64_t size;
	int32_t peer;     /* the connection's peer for staging/ctrl buffers, else -1 */
	uint16_t channel;
};

/* A memory region covers one whole buffer, as NCCL registers its buffers. */
struct cc_mr {
	uint32_t buf;
	uint32_t access; /* CC_ACCESS_* */
};

struct cc_cq {
	uint32_t depth;
};

/* An RC queue pair, connected to qp `peer_qp` of rank `peer`; or a
 * multicast QP (group > 0), connected to no rank but to a switch: its
 * members are ranks peer + i * stride for i < group (stride 0 is 1; the
 * QP's own rank among them), each with a multicast QP of the same index
 * and members, and peer_qp is unused (0).
 *
 * NVLink SHARP: the members' node's NVSwitch and its multicast object.
 * An RDMA WRITE is multimem.st — the switch writes the payload at
 * remote_offset of MR remote_mr of every member, the sender's own
 * included — and an RDMA READ is multimem.ld_reduce — the switch reads
 * that range at every member and returns it reduced element by element
 * (cc_op_send.dtype, .redop).  Every member's MR remote_mr covers a
 * CC_BUF_MCAST buffer of one size, as one multicast object binds the same
 * size on every GPU.
 *
 * In-network reduction (SHARP in the network's switches, which NCCL's
 * CollNet reaches through its SHARP plugin): a SEND gives the switches
 * its payload; they reduce the j-th SEND of every member element by
 * element (dtype, redop: sum, min or max; every member's j-th SEND of one
 * length, dtype and redop) and deliver the result to each member's next
 * receive WQE on the group's QP, as a SEND lands, with its completion.
 * The receive queue is only for those results. */
struct cc_qp {
	uint32_t peer;
	uint32_t peer_qp;
	uint32_t send_cq, recv_cq;
	uint32_t max_send_wr, max_recv_wr, max_inline;
	uint8_t retry_cnt; /* 0..7 */
	uint8_t rnr_retry; /* 0..7; 7 = retry forever (IBA 9.7.5.2.8) */
	uint16_t channel;
	uint32_t group;    /* multicast: the members' count; 0: an RC QP */
	uint32_t stride;   /* multicast: between members' ranks; 0 is 1 */
};

static inline bool cc_qp_mcast(const struct cc_qp *q)
{
	return q->group != 0;
}

/* Member i (< group) of multicast QP q. */
static inline uint32_t cc_qp_member(const struct cc_qp *q, uint32_t i)
{
	return q->peer + i * (q->stride ? q->stride : 1);
}

/* Whether rank r is a member of multicast QP q. */
static inline bool cc_qp_has_member(const struct cc_qp *q, uint32_t r)
{
	uint32_t st = q->stride ? q->stride : 1;

	return r >= q->peer && (r - q->peer) % st == 0 && (r - q->peer) / st < q->group;
}

/* Local memory as a scatter/gather element: MR (gives the lkey) + offset. */
struct cc_sge {
	uint32_t mr;
	uint64_t offset;
	uint32_t length;
};

/* Local memory seen by a reduce or copy kernel. */
struct cc_mref {
	uint32_t buf;
	uint64_t offset;
};

/* Thread groups a channel's block may run at once (cc_tag.group). */
#define CC_TAG_GROUPS 4u

/* The call of NCCL's network plugin (src/transport/net_ib/p2p.cc) whose
 * post an op is, where the proxy thread makes one: ncclIbIsend posts a
 * slice's data (its first QP's WRITE), ncclIbIrecv invites the next slice
 * (the clear-to-send WRITE into the sender's FIFO).  The simulator charges
 * the plugin's own CPU time there (software.net_step_ps). */
enum cc_net_call { CC_CALL_NONE, CC_CALL_ISEND, CC_CALL_IRECV, CC_CALL_COUNT };
extern const char *const cc_net_call_name[CC_CALL_COUNT];

/* Who this op is for, in NCCL's terms. */
struct cc_tag {
	enum cc_prim prim;
	uint16_t channel;
	uint32_t chunk; /* global chunk number: loop * nranks + chunk in loop */
	uint32_t step;  /* primitive step in the loop, 0 .. 2k-2 for allreduce */
	uint32_t slice; /* slice within the chunk */
	/* The thread group of the channel's block that runs it, alongside
	 * the block's other groups (0 .. CC_TAG_GROUPS - 1): 1 is the
	 * broadcast half of a non-root rank's tree allreduce block (NCCL's
	 * runTreeSplit, src/device/all_reduce.h); NVLS runs scatter 0,
	 * gather 1, and NVLSTree's reduce 2 and broadcast 3 (core/nvls.c). */
	uint8_t group;
	uint8_t call; /* enum cc_net_call */
};

struct cc_op_recv {
	uint32_t qp;
	uint64_t wr_id;
	uint32_t num_sge; /* 0 or 1 */
	struct cc_sge sge;
};

struct cc_op_send {
	uint32_t qp;
	uint64_t wr_id;
	enum cc_opcode opcode;
	uint32_t flags;     /* CC_SEND_* */
	enum cc_payload payload;
	uint32_t num_sge;   /* 0 or 1; an inline send carries inline_value */
	struct cc_sge sge;
	uint32_t remote_mr; /* the peer's MR index (RDMA and atomics) */
	uint64_t remote_offset;
	uint32_t imm;
	uint64_t inline_value; /* the 8-byte payload of an inline send */
	uint64_t compare_add;  /* FETCH_ADD: add; CMP_SWP: compare */
	uint64_t swap;
	/* A READ on a multicast QP (multimem.ld_reduce): how the switch
	 * combines the members' elements — sum, min or max, the reductions
	 * an NVSwitch has. */
	enum cc_dtype dtype;
	enum cc_redop redop;
};

struct cc_op_doorbell {
	uint32_t qp;
	uint32_t nwqe; /* WQEs this doorbell hands to the NIC */
};

struct cc_op_poll {
	uint32_t cq;
	uint64_t wr_id;
};

struct cc_op_wait {
	uint32_t buf;
	uint64_t offset;
	uint64_t value;
};

/* reduce: dst[j] = src[0] (op) src[1], then / postdiv when postdiv > 1.
 * copy:   dst[j] = src[0].  One or two destinations, as NCCL's reduceCopy. */
struct cc_op_calc {
	uint8_t nsrc, ndst;
	struct cc_mref src[2];
	struct cc_mref dst[2];
	uint64_t count;
	enum cc_dtype dtype;
	enum cc_redop redop;
	uint32_t postdiv;
	enum cc_where where;
	/* Operands in the protocol's lines (core/proto.h): bit j of
	 * src_lines (dst_lines) marks src[j] (dst[j]), read (written) with
	 * flag src_flag (dst_flag); their offsets are the lines'.  None for
	 * the Simple protocol. */
	enum cc_proto proto;
	uint8_t src_lines, dst_lines;
	/* The warps of the thread group that runs it, each with a round of
	 * loads in flight at a time (NCCL's reduceCopy, or its LL and LL128
	 * loops): what paces the op on a GPU beside the memory's rate
	 * (docs/simulator.md, "A thread group's pace").  0: not paced. */
	uint8_t warps;
	uint64_t src_flag, dst_flag;
};

struct cc_op {
	enum cc_op_kind kind;
	struct cc_tag tag;
	uint32_t dep_first; /* deps are rank->deps[dep_first .. dep_first+ndeps) */
	uint32_t ndeps;
	union {
		struct cc_op_recv recv;
		struct cc_op_send send;
		struct cc_op_doorbell doorbell;
		struct cc_op_poll poll;
		struct cc_op_wait wait;
		struct cc_op_calc calc;
	} u;
};

struct cc_op_pool;

struct cc_rank_sched {
	struct cc_buffer *bufs;
	struct cc_mr *mrs;
	struct cc_cq *cqs;
	struct cc_qp *qps;
	struct cc_op *ops; /* NULL in a generated schedule: see opblk */
	uint32_t *deps;
	/* A generated schedule's ops (core/gen.h): op i is
	 * opblk[i >> CC_OPBLK_SHIFT][i & (CC_OPBLK - 1)], in blocks that a
	 * pool recycles as the run gives ops back.  Read ops through
	 * cc_rank_op(), which takes either form. */
	struct cc_op **opblk;
	struct cc_op_pool *op_pool; /* where cc_add_op() takes blocks */
	uint32_t nbufs, nmrs, ncqs, nqps, nops, ndeps;
	uint32_t cap_bufs, cap_mrs, cap_cqs, cap_qps, cap_ops, cap_deps;
	/* An append found no memory (cc_add_*): the schedule is incomplete
	 * and only good for cc_schedule_free (cc_schedule_oom). */
	bool oom;
	/* cc_add_op only counts: ops and deps as they would be appended,
	 * with no arrays (a generator's dry run, core/gen.c). */
	bool count_only;
	/* The index of ops[0] and of deps[0]: 0 in a schedule; a generator's
	 * scratch holds one step's ops, numbered as in the schedule. */
	uint32_t op_base, dep_base;
};

enum cc_coll {
	CC_ALLREDUCE,
	CC_REDUCESCATTER,
	CC_ALLGATHER,
	CC_BROADCAST, /* root's input to every rank's output */
	CC_REDUCE,    /* every rank's input folded into root's output */
	CC_ALLTOALL,  /* block j of rank i's input to block i of rank j's output */
	CC_SENDRECV,  /* rank i's input to rank i+1's output (nccl-tests sendrecv_perf) */
	CC_COLL_COUNT
};

/* How a slice's data reaches the peer. */
enum cc_transport {
	CC_WRITE_IMM,  /* RDMA WRITE WITH IMM into the peer's slot (NCCL net IB) */
	CC_SEND_RECV,  /* SEND into a posted receive WQE (two-sided) */
	CC_WRITE_FLAG, /* RDMA WRITE, then an 8-byte WRITE of a flag the peer polls */
	CC_TRANSPORT_COUNT
};

/* How the collective is built from point-to-point steps: NCCL's ring,
 * recursive halving-doubling (Rabenseifner; allreduce only), direct
 * (every rank exchanges with every other itself; for small k), or NCCL's
 * double binary tree (allreduce only). */
enum cc_algo {
	CC_ALGO_RING,
	CC_ALGO_HALVING_DOUBLING,
	CC_ALGO_DIRECT,
	CC_ALGO_TREE,
	CC_ALGO_HIER, /* intra-node reduce-scatter, per-rail rings, all-gather */
	CC_ALGO_NVLS, /* NVLink SHARP: the NVSwitch reduces and multicasts (one node) */
	CC_ALGO_NVLS_TREE, /* NVLS in each node, trees between the nodes (allreduce) */
	CC_ALGO_COLLNET_CHAIN, /* a chain in each node, SHARP between the nodes (allreduce) */
	CC_ALGO_COUNT
};

/* The ring's order of ranks, per channel (core/ring.c): rank order 0, 1,
 * ..., k-1 on every channel, or rail order, which on nodes of
 * ranks_per_node ranks leaves and enters every node on one rail and
 * rotates that rail with the channel, as NCCL's rings on rail-optimised
 * nodes do. */
enum cc_ring_order { CC_RING_ORDER_RANK, CC_RING_ORDER_RAIL, CC_RING_ORDER_COUNT };
extern const char *const cc_ring_order_name[CC_RING_ORDER_COUNT];
int cc_ring_order_parse(const char *s, enum cc_ring_order *out);

extern const char *const cc_coll_name[CC_COLL_COUNT];
extern const char *const cc_algo_name[CC_ALGO_COUNT];
int cc_algo_parse(const char *s, enum cc_algo *out);
extern const char *const cc_transport_name[CC_TRANSPORT_COUNT];
int cc_coll_parse(const char *s, enum cc_coll *out);
int cc_transport_parse(const char *s, enum cc_transport *out);

/* The most ranks a schedule has: 2^17, past the 100,000 GPUs of the
 * largest clusters.  Memory is what bounds a run, and one that would not
 * fit is refused before it starts (cc_build()'s estimate, and
 * cc_sim_mem_estimate() weighed by cli/loop.c): a tree allreduce on 16384
 * ranks in 8-GPU nodes on rails holds about 3.3 GB (docs/performance.md).
 * The verbs executor's bootstrap joins fewer (CC_LAUNCH_MAX_RANKS). */
#define CC_MAX_RANKS 131072u

/* What to build.  count is nccl-tests' count: elements per rank for
 * allreduce, per-rank output elements for reduce-scatter, per-rank input
 * elements for all-gather. */
struct cc_coll_params {
	enum cc_coll coll;
	enum cc_algo algo;
	uint32_t root;        /* broadcast and reduce: the root rank */
	uint32_t nchannels;   /* the ring's channels (NCCL's nChannels); 0 or 1: one */
	/* Ranks per node (GPUs of one host, joined by NVLink): ranks
	 * node*G .. node*G+G-1 share node `node`; 0: not known.  What the
	 * hierarchical algorithm splits on. */
	uint32_t ranks_per_node;
	enum cc_ring_order ring_order;
	enum cc_transport transport;
	enum cc_proto proto;  /* how slices sit in slots: core/proto.h */
	enum cc_dtype dtype;
	enum cc_redop redop;
	uint32_t nranks;
	uint64_t count;
	uint64_t chunk_bytes; /* elements per chunk = chunk_bytes / dtype size */
	/* Nobody gave chunk_bytes: the tree sizes its chunks per message as
	 * NCCL does (cc_coll_chunk_bytes(), core/algo.h). */
	bool chunk_auto;
	uint64_t slot_bytes;  /* data a staging slot holds = largest message */
	uint32_t nslots;      /* slots per connection (NCCL_STEPS) */
	enum cc_mem_kind mem; /* where the user buffers live (and the staging
			       * buffers, unless stage_mem moves them) */
	/* Where the send and receive staging buffers live: cc_coll_stage_mem()
	 * (LL's on the network aside: in host memory, core/conn.c).
	 * CC_MEM_HOST with GPU user buffers is NCCL without GPUDirect RDMA
	 * (src/transport/net.cc sendProxyConnect / recvProxyConnect: a
	 * connection's Simple-protocol buffers go to pinned, GPU-mapped host
	 * memory, cudaHostAlloc, when ncclTopoCheckGdr says no), so the
	 * kernel's primitives read and write them across the GPU's PCIe link
	 * and the NIC DMAs host memory.  The default is `mem`. */
	enum cc_mem_kind stage_mem;
	/* write_imm with ar_split: a slice of more than ar_threshold wire
	 * bytes goes as a plain RDMA WRITE of the data and a 0-byte WRITE
	 * WITH IMM behind it on the same QP, as NCCL sends on InfiniBand with
	 * adaptive routing (src/transport/net_ib/p2p.cc, ncclIbMultiSend:
	 * NCCL_IB_ADAPTIVE_ROUTING, on by default on an IB port;
	 * NCCL_IB_AR_THRESHOLD, default 8192).  Without: every slice one
	 * WRITE WITH IMM. */
	bool ar_split;
	uint64_t ar_threshold;
	/* QPs per network connection (NCCL_IB_QPS_PER_CONNECTION; 0 or 1:
	 * one): NCCL's IB transport sends each message whole on one of them,
	 * round robin (net_ib/common.h ncclIbCommBaseGetQpForRequest, with
	 * NCCL_IB_SPLIT_DATA_ON_QPS=0, the default), and its clear-to-send on
	 * the first (p2p.h ncclIbRecvCommGetQpForCts).  Each QP is a flow of
	 * its own to ECMP. */
	uint32_t qps_per_conn;
	/* NCCL_IB_SPLIT_DATA_ON_QPS=1, write_imm: each slice cut over all the
	 * connection's QPs instead, in 128-byte-aligned parts, each part on
	 * its QP with its own WRITE WITH IMM (net_ib/p2p.cc ncclIbMultiSend),
	 * the receiver posting a receive on every QP and waiting for all. */
	bool split_on_qps;
	/* NCCL's GDR flush: on a network connection whose Simple-protocol
	 * receive buffer is GPU memory the NIC writes (GPUDirect RDMA), the
	 * proxy makes each received slice visible to the GPU before telling
	 * the kernel, with a 1-byte RDMA READ of the slot on a loopback QP
	 * into a host word; the READ's PCIe read of GPU memory cannot pass
	 * the NIC's earlier posted writes of the data (src/transport/net.cc
	 * recvProxyProgress, net_ib/p2p.cc ncclIbIflush).  NCCL does it on
	 * GPUs before Hopper or with NCCL_NET_FORCE_FLUSH=1
	 * (graph/paths.cc ncclTopoNeedFlush), never with
	 * NCCL_GDR_FLUSH_DISABLE=1; sim_nccl_transport_for() decides. */
	bool gdr_flush;
	/* NCCL_BUFFSIZE: the Simple protocol's buffer per connection (NCCL's
	 * buffSizes[NCCL_PROTO_SIMPLE], src/init.cc computeBuffSizes); 0:
	 * NCCL's 4 MiB.  A slot is an eighth of it (NCCL_STEPS), a chunk four
	 * slots, unless slot_bytes / chunk_bytes are given. */
	uint64_t buff_bytes;
	/* NCCL's StepPerSlice (SLICESTEPS, src/include/collectives.h): a slice,
	 * one network message, spans this many slots (it must divide them),
	 * and the Simple protocol cuts every step, however short, into up to
	 * chunk / slice slices as NCCL's primitives do (core/conn.c
	 * cc_conns_cut).  0 or 1: a message a slot, a step cut in slots.
	 * `auto` sets 2 (NCCL_STEPS / 4) for the ring's all-reduce,
	 * reduce-scatter and all-gather on Simple. */
	uint32_t slice_steps;
	/* NCCL_NVLS_CHUNKSIZE: NVLS's and NVLSTree's chunk before NCCL's size
	 * rules (core/nvls.c); 0: NCCL's 128 KiB. */
	uint64_t nvls_chunk_bytes;
	/* NCCL_NVLSTREE_MAX_CHUNKSIZE: NVLSTree's chunk at most; 0: NCCL's
	 * default, 64 KiB on 4 nodes or more, else the NVLS chunk. */
	uint64_t nvlstree_max_chunk_bytes;
};

/* Defaults: NCCL's Simple protocol with a 4 MiB buffer and NCCL_STEPS = 8
 * (512 KiB steps), ALLREDUCE_CHUNKSTEPS = 4 steps per chunk. */
#define CC_DEFAULT_SLOT_BYTES (512u * 1024u)
#define CC_DEFAULT_NSLOTS 8u
#define CC_DEFAULT_CHUNK_BYTES (4u * CC_DEFAULT_SLOT_BYTES)
void cc_coll_params_default(struct cc_coll_params *p);
/* The sizes nobody gave: a slot of the protocol's step (core/proto.h),
 * a chunk of 4 slots as NCCL's Simple (ALLREDUCE_CHUNKSTEPS) or of one
 * (LL, LL128) — fewer when there are too few slots for a chunk that large
 * to make progress (core/algo.c); the tree's, per size (chunk_auto). */
void cc_coll_params_fill(struct cc_coll_params *p, int slot_given, int chunk_given);

struct cc_schedule {
	struct cc_coll_params params;
	uint32_t nranks;
	struct cc_rank_sched *ranks;
	/* Built for one rank (cc_build_opts.one_rank): every rank's buffers,
	 * MRs, CQs and QPs, but only rank `rank`'s ops; the others have none.
	 * What an executor that runs one rank per process needs (the verbs
	 * executor); one that runs them all refuses it (cc_schedule_whole). */
	bool one_rank;
	uint32_t rank;
	/* Generated as it runs (core/gen.h, cc_build_opts.generated): every
	 * rank's resources, its op counts, and ops made as the executor asks
	 * (only the simulator does); NULL: built whole. */
	struct cc_gen *gen;
};

/* Calls fn(ctx, op) for each op of rank r, in index order: a built
 * schedule's, or a generated one's made for the purpose (core/gen.h,
 * cc_gen_scan()).  0 or -ENOMEM. */
int cc_sched_each_op(const struct cc_schedule *s, uint32_t r,
		     void (*fn)(void *ctx, const struct cc_op *o), void *ctx);

/* Whether s has every rank's ops: 0, or -EINVAL with a message for an
 * executor that runs every rank (named `executor`). */
int cc_schedule_whole(const struct cc_schedule *s, const char *executor, char *err,
		      size_t errlen);

/* Where the staging buffers of p live: host memory when stage_mem or mem
 * says host (a CPU that reduces host user buffers has no use for GPU
 * staging), else GPU memory. */
static inline enum cc_mem_kind cc_coll_stage_mem(const struct cc_coll_params *p)
{
	return p->stage_mem == CC_MEM_HOST ? CC_MEM_HOST : p->mem;
}

/* Input and output element counts of one rank's user buffers. */
uint64_t cc_coll_in_count(const struct cc_coll_params *p);
uint64_t cc_coll_out_count(const struct cc_coll_params *p);
/* Broadcast and reduce have a root (cc_coll_params.root). */
int cc_coll_rooted(enum cc_coll c);
/* All-to-all and sendrecv: what NCCL runs as grouped ncclSend/ncclRecv
 * (enqueue.cc's p2p path), with no algorithm of its tuning model. */
bool cc_coll_p2p(enum cc_coll c);
/* All-reduce, reduce-scatter, all-gather: what NCCL's ring runs in loops
 * of a chunk through every rank, each chunk CHUNKSTEPS / SLICESTEPS slices
 * (src/include/collectives.h). */
bool cc_coll_ring_looped(enum cc_coll c);
/* Whether rank's output is defined, so checked: all but reduce's
 * non-roots (NCCL leaves their receive buffer alone). */
int cc_coll_checks_rank(const struct cc_coll_params *p, uint32_t rank);

/* ---- building (core/schedule.c) ---- */
struct cc_schedule *cc_schedule_new(const struct cc_coll_params *p);
void cc_schedule_free(struct cc_schedule *s);
/* The appends return the new entry's index.  Out of memory they append
 * nothing, set r->oom and return CC_SCHED_NONE, which as a dependency
 * means none: a builder may carry on (its schedule is then thrown away,
 * cc_schedule_oom()) and need not check every call. */
#define CC_SCHED_NONE UINT32_MAX
uint32_t cc_add_buffer(struct cc_rank_sched *r, const struct cc_buffer *b);
uint32_t cc_add_mr(struct cc_rank_sched *r, uint32_t buf, uint32_t access);
uint32_t cc_add_cq(struct cc_rank_sched *r, uint32_t depth);
uint32_t cc_add_qp(struct cc_rank_sched *r, const struct cc_qp *qp);
/* Appends op with its dependencies (indices of earlier ops; duplicates and
 * UINT32_MAX entries are dropped). */
uint32_t cc_add_op(struct cc_rank_sched *r, const struct cc_op *op, const uint32_t *deps,
		   uint32_t ndeps);
/* Whether an append to any rank of s ran out of memory. */
bool cc_schedule_oom(const struct cc_schedule *s);
/* The bytes s's arrays hold (their capacities), the schedule's own. */
size_t cc_schedule_bytes(const struct cc_schedule *s);
/* Ops a block of a generated schedule holds (cc_rank_sched.opblk). */
#define CC_OPBLK_SHIFT 6
#define CC_OPBLK (1u << CC_OPBLK_SHIFT)

/* Blocks of CC_OPBLK that nops ops take (at least one, for a table). */
static inline uint32_t cc_opblk_count(uint32_t nops)
{
	return nops ? (nops - 1) / CC_OPBLK + 1 : 1;
}

/* Op i of rank r, built or generated. */
static inline const struct cc_op *cc_rank_op(const struct cc_rank_sched *r, uint32_t i)
{
	return r->opblk ? &r->opblk[i >> CC_OPBLK_SHIFT][i & (CC_OPBLK - 1)] : &r->ops[i];
}

static inline const uint32_t *cc_op_deps(const struct cc_rank_sched *r, const struct cc_op *op)
{
	/* A schedule without dependencies has no deps array at all. */
	return op->ndeps ? r->deps + op->dep_first : NULL;
}

/* Whether a send opcode names a remote buffer (remote_mr, its R_Key):
 * every one but SEND and SEND_WITH_IMM. */
static inline int cc_opcode_remote(enum cc_opcode op)
{
	return op != CC_WR_SEND && op != CC_WR_SEND_WITH_IMM;
}

/* READ and the atomics: the responder returns data, which the requester
 * writes to its SGE (needing LOCAL_WRITE on it, IBA 10.6.3.1), each one of
 * the QP's max_rd_atomic outstanding reads (IBA 9.4.4). */
static inline int cc_opcode_rd_atomic(enum cc_opcode op)
{
	return op == CC_WR_RDMA_READ || op == CC_WR_ATOMIC_FETCH_ADD || op == CC_WR_ATOMIC_CMP_SWP;
}

/* The bytes a WQE moves: its SGE's length, or an inline send's payload
 * (at most the 8 bytes of inline_value). */
static inline uint32_t cc_wqe_len(const struct cc_op_send *o)
{
	if (o->flags & CC_SEND_INLINE)
		return o->sge.length < 8 ? o->sge.length : 8;
	return o->num_sge ? o->sge.length : 0;
}

/* Whether a post_send reads a local buffer through its SGE (and L_Key):
 * it has one, and its payload is not inline in the WQE. */
static inline int cc_send_local_sge(const struct cc_op_send *p)
{
	return p->num_sge && !(p->flags & CC_SEND_INLINE);
}

/* The wr_id an op carries: its WQE's (post_send, post_recv) or the one it
 * polls for (poll_cq); 0 for the other kinds. */
static inline uint64_t cc_op_wr_id(const struct cc_op *o)
{
	switch (o->kind) {
	case CC_OP_POST_SEND: return o->u.send.wr_id;
	case CC_OP_POST_RECV: return o->u.recv.wr_id;
	case CC_OP_POLL_CQ: return o->u.poll.wr_id;
	default: return 0;
	}
}

/* Structural check: indices in range, dependencies on earlier ops only,
 * peers connected both ways.  Returns 0 or -EINVAL with a message in err. */
int cc_schedule_validate(const struct cc_schedule *s, char *err, size_t errlen);

/* Whether some rank of s has a multicast QP (cc_qp_mcast()): what only an
 * executor that models NVLink SHARP can run. */
bool cc_schedule_has_mcast(const struct cc_schedule *s);

/* Bytes operand j of calc c takes in memory (a destination when dst): its
 * data's, or its lines' (core/proto.h). */
uint64_t cc_calc_operand_bytes(const struct cc_op_calc *c, int dst, int j);

/* Data bytes (CC_PAYLOAD_DATA) that rank r's sends carry: the lines'
 * bytes under the LL protocols, as the wire carries them. */
uint64_t cc_rank_data_bytes(const struct cc_rank_sched *r);

/* ---- printing (core/schedule_print.c, format in docs/schedule.md) ---- */
void cc_schedule_print(FILE *f, const struct cc_schedule *s, int rank /* -1: all */);
/* One line: op i of rank r, as cc_schedule_print() lists it. */
void cc_op_print(FILE *f, const struct cc_schedule *s, uint32_t r, uint32_t i);
void cc_schedule_print_primitives(FILE *f, const struct cc_schedule *s, int rank);

#endif
