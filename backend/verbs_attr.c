/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/verbs_attr.c — RC QP transition attributes; see verbs_attr.h. */
#include "backend/verbs_attr.h"

#include <errno.h>
#include <string.h>

/* The schedule's access flags are libibverbs' own, bit for bit. */
_Static_assert((int)CC_ACCESS_LOCAL_WRITE == (int)IBV_ACCESS_LOCAL_WRITE, "access flags");
_Static_assert((int)CC_ACCESS_REMOTE_WRITE == (int)IBV_ACCESS_REMOTE_WRITE, "access flags");
_Static_assert((int)CC_ACCESS_REMOTE_READ == (int)IBV_ACCESS_REMOTE_READ, "access flags");
_Static_assert((int)CC_ACCESS_REMOTE_ATOMIC == (int)IBV_ACCESS_REMOTE_ATOMIC, "access flags");

void cc_verbs_qp_cfg_default(struct cc_verbs_qp_cfg *c)
{
	*c = (struct cc_verbs_qp_cfg){
		.port_num = 1,
		.active_mtu = IBV_MTU_4096,
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
		.timeout = 18,       /* NCCL_IB_TIMEOUT: 4.096 us * 2^18 = 1.07 s */
		.retry_cnt = 7,      /* NCCL_IB_RETRY_CNT */
		.rnr_retry = 7,      /* ncclIbRtsQp: retry forever */
		.min_rnr_timer = 12, /* ncclIbRtrQp: 0.64 ms */
		.max_rd_atomic = 1,  /* ncclIbRtsQp / ncclIbRtrQp: 1 each way */
		.max_dest_rd_atomic = 1,
	};
}

void cc_verbs_qp_cfg_for(const struct cc_rank_sched *rs, uint32_t q, struct cc_verbs_qp_cfg *c)
{
	unsigned access = 0;

	cc_verbs_qp_cfg_default(c);
	c->retry_cnt = rs->qps[q].retry_cnt;
	c->rnr_retry = rs->qps[q].rnr_retry;
	/* CC_ACCESS_* has libibverbs' values (core/schedule.h). */
	for (uint32_t m = 0; m < rs->nmrs; m++)
		access |= rs->mrs[m].access & (CC_ACCESS_REMOTE_WRITE | CC_ACCESS_REMOTE_READ |
					       CC_ACCESS_REMOTE_ATOMIC);
	c->access = access;
	/* READs and atomics (cclab p2p) get many in flight, as perftest sets
	 * (--outs: the device's max_qp_rd_atom, which verbs_setup.c caps this
	 * to) and the simulator's rnic.max_rd_atomic models: the responder's
	 * depth where its MRs take them, the initiator's where this QP posts
	 * them.  NCCL's 1 stays for collectives, which do neither. */
	if (access & (CC_ACCESS_REMOTE_READ | CC_ACCESS_REMOTE_ATOMIC))
		c->max_dest_rd_atomic = 16;
	for (uint32_t i = 0; i < rs->nops; i++) {
		const struct cc_op *o = &rs->ops[i];

		if (o->kind == CC_OP_POST_SEND && o->u.send.qp == q &&
		    (o->u.send.opcode == CC_WR_RDMA_READ || o->u.send.opcode == CC_WR_ATOMIC_FETCH_ADD ||
		     o->u.send.opcode == CC_WR_ATOMIC_CMP_SWP)) {
			c->max_rd_atomic = 16;
			break;
		}
	}
}

enum ibv_mtu cc_verbs_mtu_from_bytes(uint32_t bytes)
{
	switch (bytes) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 1024: return IBV_MTU_1024;
	case 2048: return IBV_MTU_2048;
	case 4096: return IBV_MTU_4096;
	default: return (enum ibv_mtu)0;
	}
}

uint32_t cc_verbs_mtu_bytes(enum ibv_mtu mtu)
{
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128u << mtu : 0;
}

enum ibv_mtu cc_verbs_path_mtu(const struct cc_verbs_qp_cfg *c)
{
	enum ibv_mtu want = c->want_mtu_bytes ? cc_verbs_mtu_from_bytes(c->want_mtu_bytes)
					      : c->active_mtu;

	return want < c->active_mtu ? want : c->active_mtu;
}

const char *cc_verbs_cfg_invalid(const struct cc_verbs_qp_cfg *c, const struct cc_verbs_peer *p,
				 const char **field)
{
	const unsigned remote = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				IBV_ACCESS_REMOTE_ATOMIC;
	const struct {
		const char *field;
		bool bad;
		const char *why;
	} rules[] = {
		{"port_num", c->port_num == 0, "ports are numbered from 1"},
		{"active_mtu", !cc_verbs_mtu_bytes(c->active_mtu), "is not an IB MTU enum (1 to 5)"},
		{"want_mtu_bytes", c->want_mtu_bytes && !cc_verbs_mtu_from_bytes(c->want_mtu_bytes),
		 "must be 256, 512, 1024, 2048 or 4096"},
		{"sq_psn", c->sq_psn > 0xffffff, "is a 24-bit PSN"},
		{"access", (c->access & ~remote) != 0, "may hold only IBV_ACCESS_REMOTE_* flags"},
		{"timeout", c->timeout > 31, "is an IBA code, 0 to 31"},
		{"retry_cnt", c->retry_cnt > 7, "is 0 to 7"},
		{"rnr_retry", c->rnr_retry > 7, "is 0 to 7 (7: forever)"},
		{"min_rnr_timer", c->min_rnr_timer > 31, "is an IBA code, 0 to 31"},
		{"sl", c->sl > 15, "is an IB service level, 0 to 15"},
		{"peer.qpn", p && p->qpn > 0xffffff, "is a 24-bit QP number"},
		{"peer.psn", p && p->psn > 0xffffff, "is a 24-bit PSN"},
		{"peer.lid", p && !c->roce && p->lid == 0, "is 0: no route on InfiniBand"},
	};

	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (rules[i].bad) {
			*field = rules[i].field;
			return rules[i].why;
		}
	*field = "";
	return NULL;
}

static int check(const struct cc_verbs_qp_cfg *c, const struct cc_verbs_peer *p,
		 struct ibv_qp_attr *a, int *mask)
{
	const char *field;

	memset(a, 0, sizeof(*a));
	*mask = 0;
	return cc_verbs_cfg_invalid(c, p, &field) ? -EINVAL : 0;
}

int cc_verbs_attr_init(const struct cc_verbs_qp_cfg *c, struct ibv_qp_attr *a, int *mask)
{
	if (check(c, NULL, a, mask))
		return -EINVAL;
	a->qp_state = IBV_QPS_INIT;
	a->pkey_index = 0;
	a->port_num = c->port_num;
	a->qp_access_flags = c->access;
	*mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	return 0;
}

int cc_verbs_attr_rtr(const struct cc_verbs_qp_cfg *c, const struct cc_verbs_peer *p,
		      struct ibv_qp_attr *a, int *mask)
{
	if (!p || check(c, p, a, mask))
		return -EINVAL;
	a->qp_state = IBV_QPS_RTR;
	a->path_mtu = cc_verbs_path_mtu(c);
	a->dest_qp_num = p->qpn;
	a->rq_psn = p->psn;
	a->max_dest_rd_atomic = c->max_dest_rd_atomic;
	a->min_rnr_timer = c->min_rnr_timer;
	a->ah_attr.port_num = c->port_num;
	a->ah_attr.sl = c->sl;
	if (c->roce) {
		/* RoCE has no LIDs: every packet carries a GRH (IBA A16/A17). */
		a->ah_attr.is_global = 1;
		a->ah_attr.grh.dgid = p->gid;
		a->ah_attr.grh.sgid_index = c->sgid_index;
		a->ah_attr.grh.hop_limit = 255;
		a->ah_attr.grh.traffic_class = c->traffic_class;
	} else {
		a->ah_attr.dlid = p->lid;
	}
	*mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	return 0;
}

int cc_verbs_attr_rts(const struct cc_verbs_qp_cfg *c, struct ibv_qp_attr *a, int *mask)
{
	if (check(c, NULL, a, mask))
		return -EINVAL;
	a->qp_state = IBV_QPS_RTS;
	a->sq_psn = c->sq_psn;
	a->timeout = c->timeout;
	a->retry_cnt = c->retry_cnt;
	a->rnr_retry = c->rnr_retry;
	a->max_rd_atomic = c->max_rd_atomic;
	*mask = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		IBV_QP_MAX_QP_RD_ATOMIC;
	return 0;
}
