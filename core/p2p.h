/* SPDX-License-Identifier: BSD-3-Clause */
/* core/p2p.h — point-to-point verbs workloads, as perftest runs them, on the
 * schedule IR: one operation checked on its own before a collective is
 * blamed (docs/p2p.md).
 *
 * Two ranks joined by one RC QP pair (QP 0 on each side): rank 0 is the
 * requester (perftest's client), rank 1 the responder (its server).  The
 * same schedule serves every executor: the data executor checks it, the
 * simulator times it (cclab p2p), the verbs backend posts it (cclab p2p
 * --device).
 *
 * Which perftest tool and loop each (op, mode) follows
 * (linux-rdma/perftest, src/perftest_resources.c):
 *
 *   bw   ib_write_bw, ib_write_bw --write_with_imm, ib_send_bw, ib_read_bw,
 *        ib_atomic_bw -A FETCH_AND_ADD | CMP_AND_SWAP — run_iter_bw():
 *        rank 0 posts `iters` WQEs, one WR per ibv_post_send (post_list 1,
 *        so one doorbell each), at most tx_depth outstanding (posted, not yet
 *        retired by a polled completion), signalling every cq_mod-th and the
 *        last, and polls the signalled completions.  For send and write_imm,
 *        rank 1 pre-posts min(rx_depth, iters) receives and reposts one for
 *        each it reaps until `iters` were posted (run_iter_bw_server()).
 *        READ and atomics are also held to the QP's max_rd_atomic, the
 *        device's max_qp_rd_atom: that limit is the RNIC's (the simulator's
 *        rnic.max_rd_atomic), not the schedule's.
 *   bw -b (bidirectional, perftest's duplex): both ranks run the bw loop
 *        at once on the one QP pair, each a requester (write_bw.c,
 *        read_bw.c, atomic_bw.c: run_iter_bw() on both sides) and, for
 *        send and write_imm, each also the receiver of the other's
 *        messages (send_bw.c, write_bw.c: run_iter_bi(), its sends and
 *        its receives in one thread; here two chains of the rank that its
 *        CPU serves).  perftest reports the sum of the two sides' figures
 *        (print_full_bw_report(): bw_peak, bw_avg and msgRate added).
 *   lat  write, write_imm, send: ping-pong (run_iter_lat_write(),
 *        run_iter_lat_send()): rank 0 sends, rank 1 answers each message
 *        once it has it, rank 0 sends the next once it has the answer.
 *        ib_write_lat sees the peer's message by polling the last byte of
 *        its buffer; a schedule cannot express that, because the CPU would
 *        have to store a new value into the source before every post (the
 *        IR has no CPU store).  So write lat is a WRITE_WITH_IMM ping-pong
 *        polling the receive CQ, as write_imm: in the simulator the
 *        difference is the receive CQE, visible rnic.cqe_write_ps after the
 *        payload is accepted and never before the payload's DMA write
 *        (sim/rnic_resp.c), so at most max(0, cqe_write - DMA write) later
 *        than the last byte.  read, fetch_add, cmp_swap: rank 0 posts one,
 *        waits for its completion, then posts the next (run_iter_lat()).
 *        perftest reports half the round trip for the ping-pongs and the
 *        full time for READ and atomics; so does core/p2p_report.h.
 *
 * Defaults are perftest's (src/perftest_parameters.h): tx_depth 128 for
 * bw (DEF_TX_BW) and 1 for lat (DEF_TX_LAT), cq_mod 100 (DEF_CQ_MOD),
 * rx_depth 512 (DEF_RX_SEND), 5000 iterations for bw and 1000 for lat,
 * 65536 B for bw (DEF_SIZE_BW) and 2 B for lat (DEF_SIZE_LAT), 8 B for
 * atomics, host memory (GPU memory is --use_cuda there).  As in perftest,
 * cq_mod above tx_depth is taken as tx_depth (else the window would never
 * open), and lat READ and atomics signal every WQE (each is waited for).
 *
 * Inline: perftest's latency tests post up to 220 B (WRITE, DEF_INLINE_WRITE)
 * or 236 B (SEND, DEF_INLINE_SEND_RC_UC) inline and its bandwidth tests
 * nothing.  The IR's inline payload is one 8-byte word, so lat WRITE and
 * SEND messages of at most 8 B are posted inline and 9..236 B ones are read
 * by DMA (one PCIe read round trip more than perftest pays).
 *
 * Buffers, per rank: buffer 0 "input" (what this rank sends, or what the
 * peer READs), buffer 1 "output" (what the peer's messages land in, the
 * READ destination, the atomic's target on rank 1 and its fetched value on
 * rank 0), `size` bytes each; MR i covers buffer i, LOCAL_WRITE plus only
 * the remote right the peer uses (REMOTE_WRITE, REMOTE_READ or
 * REMOTE_ATOMIC).  CQ 0 takes send completions (depth tx_depth), CQ 1
 * receive completions (depth rx_depth), as perftest's send_cq and recv_cq.
 *
 * The schedule's params (struct cc_coll_params) carry no collective:
 * nranks 2, count 0.  With count 0 the reference check (core/check_io.h)
 * fills and counts nothing, so both executors run a p2p schedule as they
 * run any other and report #wrong 0.  Atomics carry checkable values:
 * FETCH_ADD adds 1 and CMP_SWP i swaps i for i + 1 (perftest: add 1, swap
 * 0 for 0), so after `iters` of either rank 1's target word is `iters`.
 */
#ifndef CCLAB_CORE_P2P_H
#define CCLAB_CORE_P2P_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "schedule.h"

enum cc_p2p_op {
	CC_P2P_WRITE,
	CC_P2P_WRITE_IMM,
	CC_P2P_SEND,
	CC_P2P_READ,
	CC_P2P_FETCH_ADD,
	CC_P2P_CMP_SWAP,
	CC_P2P_OP_COUNT
};

enum cc_p2p_mode { CC_P2P_BW, CC_P2P_LAT, CC_P2P_MODE_COUNT };

extern const char *const cc_p2p_op_name[CC_P2P_OP_COUNT];     /* "write", ... */
extern const char *const cc_p2p_mode_name[CC_P2P_MODE_COUNT]; /* "bw", "lat" */
int cc_p2p_op_parse(const char *s, enum cc_p2p_op *out);     /* 0 or -EINVAL */
int cc_p2p_mode_parse(const char *s, enum cc_p2p_mode *out);

/* perftest's program for (op, mode): "ib_write_bw", "ib_atomic_lat", ... */
const char *cc_p2p_tool(enum cc_p2p_op op, enum cc_p2p_mode mode);
/* The verbs opcode rank 0 posts (lat write: WRITE_WITH_IMM, see above). */
enum cc_opcode cc_p2p_opcode(enum cc_p2p_op op, enum cc_p2p_mode mode);
/* True for the atomics, whose size is always 8 bytes. */
int cc_p2p_is_atomic(enum cc_p2p_op op);
/* Ping-pong (both ranks send, rtt_factor 2 in perftest) or one-sided. */
int cc_p2p_is_pingpong(enum cc_p2p_op op, enum cc_p2p_mode mode);

#define CC_P2P_TX_DEPTH_BW 128u  /* DEF_TX_BW */
#define CC_P2P_TX_DEPTH_LAT 1u   /* DEF_TX_LAT */
#define CC_P2P_CQ_MOD 100u       /* DEF_CQ_MOD */
#define CC_P2P_RX_DEPTH 512u     /* DEF_RX_SEND */
#define CC_P2P_ITERS_BW 5000u
#define CC_P2P_ITERS_LAT 1000u
#define CC_P2P_SIZE_BW 65536u    /* DEF_SIZE_BW */
#define CC_P2P_SIZE_LAT 2u       /* DEF_SIZE_LAT */
#define CC_P2P_ATOMIC_BYTES 8u
#define CC_P2P_INLINE_WRITE 220u /* DEF_INLINE_WRITE (lat) */
#define CC_P2P_INLINE_SEND 236u  /* DEF_INLINE_SEND_RC_UC (lat) */
/* Limits: one message is at most 2^31 bytes (IBA's maximum message size,
 * ibv_sge.length is 32 bits); a queue at most 32768 WRs (max_qp_wr of a
 * ConnectX); iterations 10^5 (perftest has no limit): every iteration is
 * up to ten ops here and, in `cclab p2p`, two dozen trace events, about
 * 3.5 KiB for a lat ping-pong, so 10^5 keep a run near 350 MiB; and a
 * deterministic model gives every iteration after the first alike. */
#define CC_P2P_MAX_BYTES (UINT64_C(1) << 31)
#define CC_P2P_MAX_DEPTH 32768u
#define CC_P2P_MAX_ITERS 100000u
/* Ranks of the schedule: ranks 0 and 1 run the test, any others idle, so
 * it runs on a network with more GPUs (a scenario's topology; sim/exec.h
 * wants the network's rank count).  As many as a scenario may have. */
#define CC_P2P_MAX_RANKS CC_MAX_RANKS
/* perftest -a: 2 B to 8 MiB, doubling (MAX_SIZE 8388608). */
#define CC_P2P_ALL_MIN 2u
#define CC_P2P_ALL_MAX (UINT64_C(8) << 20)

struct cc_p2p_params {
	enum cc_p2p_op op;
	enum cc_p2p_mode mode;
	uint64_t size;     /* bytes per message */
	uint32_t iters;
	uint32_t tx_depth; /* most WQEs outstanding on rank 0 (max_send_wr) */
	uint32_t cq_mod;   /* signal every cq_mod-th WQE (and the last) */
	uint32_t rx_depth; /* receives kept posted (max_recv_wr) */
	/* bw: WQEs posted by one ibv_post_send, a linked list with one
	 * doorbell (perftest -l/--post_list; 1: a call per WQE).  Posted
	 * when the whole list fits in tx_depth; iters a multiple of it, and
	 * it a multiple of cq_mod, as perftest requires (perftest takes
	 * cq_mod = post_list unless -Q is given: cc_p2p_set_post_list()). */
	uint32_t post_list;
	enum cc_mem_kind mem;
	uint32_t nranks;   /* ranks of the schedule: 0 or 2, or more idle ones beyond rank 1 */
	bool bidir;        /* bw only: both ranks send (perftest -b) */
};

/* perftest's defaults for op and mode. */
void cc_p2p_params_default(struct cc_p2p_params *p, enum cc_p2p_op op, enum cc_p2p_mode mode);

/* 0, or -EINVAL with a message naming the field in err. */
int cc_p2p_check(const struct cc_p2p_params *p, char *err, size_t errlen);
/* Its post list's part: a list above 1 is for bw, divides iters, is a
 * multiple of cq_mod (perftest's rules) and fits in tx_depth (cclab's:
 * perftest would never post it). */
int cc_p2p_check_post_list(const struct cc_p2p_params *p, char *err, size_t errlen);

/* A post list of n WQEs (0 or 1: none), with perftest's rule that a
 * list above 1 also sets the CQ moderation to n (perftest_parameters.c
 * force_dependecies: "Post List requested - CQ moderation will be the size
 * of the post list"); an explicit cq_mod, set after, overrides it. */
void cc_p2p_set_post_list(struct cc_p2p_params *p, uint32_t n);

/* iters at most `max` where a run is shortened (validate, calibrate), in
 * whole post lists: p->iters if not above max, else max rounded down to a
 * multiple of the list, one list at least. */
uint32_t cc_p2p_iters_at_most(const struct cc_p2p_params *p, uint32_t max);

/* cc_p2p_check, then the schedule (valid by cc_schedule_validate; a
 * builder bug aborts).  NULL with a message in err: errno EINVAL for bad
 * parameters, ENOMEM. */
struct cc_schedule *cc_build_p2p(const struct cc_p2p_params *p, char *err, size_t errlen);

/* Swaps ranks 0 and 1 of a p2p schedule (the client becomes rank 1), for
 * a perftest server that must be the bootstrap's listening rank 0. */
void cc_p2p_swap_ranks(struct cc_schedule *s);

/* The signalling the builder uses: cq_mod bounded by tx_depth, every WQE
 * for lat READ and atomics. */
uint32_t cc_p2p_cq_mod(const struct cc_p2p_params *p);
int cc_p2p_signaled(const struct cc_p2p_params *p, uint32_t i);

#endif /* CCLAB_CORE_P2P_H */
