/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/verbs_attr.h — the attributes that move an RC QP through
 * RESET -> INIT -> RTR -> RTS (IBA 10.3.1; ibv_modify_qp(3)), built as
 * pure functions so they are tested without a device.
 *
 * The values follow what real libraries set (NCCL src/transport/net_ib.cc:
 * ncclIbInitQp, ncclIbRtrQp, ncclIbRtsQp; perftest's ctx_modify_qp_to_*):
 *   INIT  pkey index 0, the port, access = what the schedule's MRs let a
 *         peer do (REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC);
 *   RTR   path MTU = the smaller of the port's active MTU and the one asked
 *         for; the peer's QPN and first PSN; the address: LID and SL on
 *         InfiniBand, a GRH (GID, source GID index, hop limit 255, traffic
 *         class) on RoCE, where the LID is unused; max_dest_rd_atomic,
 *         min_rnr_timer;
 *   RTS   our first PSN, the local ACK timeout (4.096 us * 2^timeout),
 *         retry_cnt, rnr_retry (7 = forever), max_rd_atomic.
 * Every field is checked against its IBA range first; a bad one gives an
 * error naming it, and nothing is built.
 */
#ifndef CCLAB_BACKEND_VERBS_ATTR_H
#define CCLAB_BACKEND_VERBS_ATTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "core/schedule.h"

/* One end of an RC connection, as the bootstrap exchange delivers it. */
struct cc_verbs_peer {
	uint32_t qpn;          /* 24 bits */
	uint32_t psn;          /* its first PSN, 24 bits */
	uint16_t lid;          /* InfiniBand */
	union ibv_gid gid;     /* RoCE (and IB across subnets) */
};

/* Everything the three transitions need beside the peer. */
struct cc_verbs_qp_cfg {
	uint8_t port_num;
	bool roce;                 /* the port's link layer is Ethernet: address by GID */
	uint8_t sgid_index;        /* our GID index (RoCEv2: an IPv4/IPv6 GID) */
	uint8_t sl;                /* IB service level; RoCE: the priority comes from the tc */
	uint8_t traffic_class;     /* RoCE GRH traffic class (DSCP << 2) */
	enum ibv_mtu active_mtu;   /* the port's (ibv_query_port) */
	uint32_t want_mtu_bytes;   /* the path MTU asked for; 0: the port's */
	uint32_t sq_psn;           /* our first PSN, 24 bits */
	unsigned access;           /* IBV_ACCESS_REMOTE_* a peer may use */
	uint8_t timeout;           /* 0..31; 0: no ACK timeout */
	uint8_t retry_cnt;         /* 0..7 */
	uint8_t rnr_retry;         /* 0..7, 7: forever */
	uint8_t min_rnr_timer;     /* 0..31 (IBA code: 12 = 0.64 ms) */
	uint8_t max_rd_atomic;     /* READs/atomics we keep outstanding */
	uint8_t max_dest_rd_atomic; /* the peer's we accept */
};

/* NCCL's choices (net_ib.cc, v2.19): timeout 18, retry_cnt 7, rnr_retry 7,
 * min_rnr_timer 12, one outstanding READ each way, traffic class 0, SL 0. */
void cc_verbs_qp_cfg_default(struct cc_verbs_qp_cfg *c);

/* The defaults with what the schedule says of QP q of rank rs: its
 * retry_cnt and rnr_retry, and the remote rights its rank's MRs grant
 * (the union: a QP's access flags gate every MR reached through it). */
void cc_verbs_qp_cfg_for(const struct cc_rank_sched *rs, uint32_t q, struct cc_verbs_qp_cfg *c);

/* IBV_MTU_256 .. IBV_MTU_4096 from bytes, 0 for anything else; and back. */
enum ibv_mtu cc_verbs_mtu_from_bytes(uint32_t bytes);
uint32_t cc_verbs_mtu_bytes(enum ibv_mtu mtu);

/* The path MTU a QP of cfg uses: min(active, wanted). */
enum ibv_mtu cc_verbs_path_mtu(const struct cc_verbs_qp_cfg *c);

/* NULL when cfg and peer are within their ranges, else the reason, and
 * *field names what is wrong ("timeout", "peer.qpn", ...). */
const char *cc_verbs_cfg_invalid(const struct cc_verbs_qp_cfg *c, const struct cc_verbs_peer *p,
				 const char **field);

/* The attributes and mask of each transition; 0, or -EINVAL (nothing
 * built) when cc_verbs_cfg_invalid() finds a fault.  RESET -> INIT needs
 * no peer. */
int cc_verbs_attr_init(const struct cc_verbs_qp_cfg *c, struct ibv_qp_attr *a, int *mask);
int cc_verbs_attr_rtr(const struct cc_verbs_qp_cfg *c, const struct cc_verbs_peer *p,
		      struct ibv_qp_attr *a, int *mask);
int cc_verbs_attr_rts(const struct cc_verbs_qp_cfg *c, struct ibv_qp_attr *a, int *mask);

#endif /* CCLAB_BACKEND_VERBS_ATTR_H */
