/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/verbs_setup.c — a rank's verbs resources for one schedule: buffers,
 * MRs, CQs and RC QPs, the bootstrap exchange of QPNs, PSNs, addresses and
 * rkeys, and the QPs' moves to RTS (verbs_exec.h says the order and why). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "backend/bootstrap_msg.h"
#include "backend/verbs_attr.h"
#include "backend/verbs_int.h"
#include "util/splitmix.h"

uint64_t vx_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int fail(char *err, size_t errlen, int rc, const char *what, const char *detail)
{
	snprintf(err, errlen, "%s: %s", what, detail ? detail : strerror(-rc));
	return rc;
}

/* ibv_reg_mr's ENOMEM / EPERM / EFAULT usually mean the pinned-memory limit:
 * say what it is and how to raise it. */
static int reg_failed(struct vx *x, uint32_t m, int e, char *err, size_t errlen)
{
	struct rlimit rl;
	uint64_t want = 0;

	for (uint32_t i = 0; i < x->rs->nmrs; i++)
		want += x->rs->bufs[x->rs->mrs[i].buf].size;
	if ((e == ENOMEM || e == EPERM || e == EFAULT) && !getrlimit(RLIMIT_MEMLOCK, &rl) &&
	    rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want + (64u << 20)) {
		snprintf(err, errlen, "ibv_reg_mr of MR %u on %s: %s: RLIMIT_MEMLOCK is %llu KiB and "
			 "this rank registers %llu KiB; raise it (ulimit -l unlimited; memlock in "
			 "/etc/security/limits.conf; docker --ulimit memlock=-1)", m, x->v->device,
			 strerror(e), (unsigned long long)(rl.rlim_cur >> 10),
			 (unsigned long long)(want >> 10));
		return -e;
	}
	snprintf(err, errlen, "ibv_reg_mr of MR %u (%llu bytes) on %s: %s", m,
		 (unsigned long long)x->rs->bufs[x->rs->mrs[m].buf].size, x->v->device, strerror(e));
	return -e;
}

static int alloc_resources(struct vx *x, char *err, size_t errlen)
{
	const struct cc_rank_sched *rs = x->rs;
	int rc;

	x->mem = calloc(rs->nbufs + 1, sizeof(*x->mem));
	x->dmem = calloc(rs->nbufs + 1, sizeof(*x->dmem));
	x->kind = calloc(rs->nbufs + 1, sizeof(*x->kind));
	x->mr = calloc(rs->nmrs + 1, sizeof(*x->mr));
	x->cq = calloc(rs->ncqs + 1, sizeof(*x->cq));
	x->qp = calloc(rs->nqps + 1, sizeof(*x->qp));
	x->swr = calloc(rs->nops + 1, sizeof(*x->swr));
	x->rwr = calloc(rs->nops + 1, sizeof(*x->rwr));
	x->sge = calloc(rs->nops + 1, sizeof(*x->sge));
	x->inline_val = calloc(rs->nops + 1, sizeof(*x->inline_val));
	if (!x->mem || !x->dmem || !x->kind || !x->mr || !x->cq || !x->qp || !x->swr || !x->rwr ||
	    !x->sge || !x->inline_val)
		return fail(err, errlen, -ENOMEM, "verbs executor", NULL);
	/* GPU buffers only where this run has a GPU (verbs_gpu.c). */
	if ((rc = vx_gpu_check(x, err, errlen)))
		return rc;
	for (uint32_t b = 0; b < rs->nbufs; b++)
		if ((rc = vx_buf_alloc(x, b, err, errlen)))
			return rc;
	for (uint32_t m = 0; m < rs->nmrs; m++) {
		int e;

		x->mr[m] = vx_reg_mr(x, m, &e, err, errlen);
		if (!x->mr[m])
			return x->kind[rs->mrs[m].buf] == VX_BUF_GPU ? -e : reg_failed(x, m, e, err, errlen);
	}
	return 0;
}

/* A CQ with completion timestamps where the device has them; else a plain
 * one, polled with ibv_poll_cq. */
static int create_cq(struct vx *x, uint32_t c, char *err, size_t errlen)
{
	struct ibv_cq_init_attr_ex ca = { .cqe = x->rs->cqs[c].depth ? x->rs->cqs[c].depth : 1 };
	static const uint64_t flags[] = {
		IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK,
		IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
	};
	static const enum cc_verbs_clock clocks[] = { CC_VERBS_CLOCK_WALLCLOCK, CC_VERBS_CLOCK_HCA };

	for (int i = 0; x->v->hca_core_clock_khz && i < 2; i++) {
		/* Every CQ of the rank on the same clock: the first one's. */
		if (c > 0 && x->clock != clocks[i])
			continue;
		ca.wc_flags = flags[i];
		x->cq[c].cqx = ibv_create_cq_ex(x->v->ctx, &ca);
		if (x->cq[c].cqx) {
			x->cq[c].cq = ibv_cq_ex_to_cq(x->cq[c].cqx);
			x->clock = clocks[i];
			return 0;
		}
	}
	if (c > 0 && x->clock != CC_VERBS_CLOCK_SOFTWARE)
		return fail(err, errlen, -EIO, "ibv_create_cq_ex", "a second CQ with timestamps failed");
	x->cq[c].cq = ibv_create_cq(x->v->ctx, (int)ca.cqe, NULL, NULL, 0);
	if (!x->cq[c].cq) {
		int e = errno ? errno : ENOMEM;
		snprintf(err, errlen, "ibv_create_cq of %u entries on %s: %s", ca.cqe, x->v->device,
			 strerror(e));
		return -e;
	}
	return 0;
}

static void qp_cfg(const struct vx *x, uint32_t q, struct cc_verbs_qp_cfg *c)
{
	cc_verbs_qp_cfg_for(x->rs, q, c);
	c->port_num = x->v->port;
	c->roce = x->v->roce;
	c->sgid_index = x->v->gid_index < 0 ? 0 : (uint8_t)x->v->gid_index;
	c->traffic_class = x->v->traffic_class;
	c->active_mtu = x->v->active_mtu;
	c->want_mtu_bytes = x->v->mtu_bytes;
	c->sq_psn = x->qp[q].psn;
	/* Each depth within the device's own cap (ibv_query_device(3): the
	 * responder's by max_qp_rd_atom, the initiator's by
	 * max_qp_init_rd_atom), or ibv_modify_qp() fails with EINVAL. */
	if (x->v->max_qp_rd_atom && c->max_dest_rd_atomic > x->v->max_qp_rd_atom)
		c->max_dest_rd_atomic = (uint8_t)x->v->max_qp_rd_atom;
	if (x->v->max_qp_init_rd_atom && c->max_rd_atomic > x->v->max_qp_init_rd_atom)
		c->max_rd_atomic = (uint8_t)x->v->max_qp_init_rd_atom;
	if (x->o->rnr_retry >= 0)
		c->rnr_retry = (uint8_t)x->o->rnr_retry;
}

static int create_qps(struct vx *x, char *err, size_t errlen)
{
	for (uint32_t q = 0; q < x->rs->nqps; q++) {
		const struct cc_qp *sq = &x->rs->qps[q];
		struct ibv_qp_init_attr ia = {
			.send_cq = x->cq[sq->send_cq].cq,
			.recv_cq = x->cq[sq->recv_cq].cq,
			/* One more than the schedule's: the drain WRITE. */
			.cap = { .max_send_wr = sq->max_send_wr + 1, .max_recv_wr = sq->max_recv_wr,
				 .max_send_sge = 1, .max_recv_sge = 1,
				 .max_inline_data = sq->max_inline },
			.qp_type = IBV_QPT_RC,
		};
		struct cc_verbs_qp_cfg cfg;
		struct ibv_qp_attr a;
		int mask, rc;

		x->qp[q].qp = ibv_create_qp(x->v->pd, &ia);
		if (!x->qp[q].qp) {
			int e = errno ? errno : ENOMEM;
			snprintf(err, errlen, "ibv_create_qp %u (to rank %u: %u send WRs, %u receive "
				 "WRs, %u bytes inline) on %s: %s", q, sq->peer, sq->max_send_wr + 1,
				 sq->max_recv_wr, sq->max_inline, x->v->device, strerror(e));
			return -e;
		}
		/* A first PSN that differs per rank, QP and run, as perftest's
		 * lrand48() & 0xffffff. */
		x->qp[q].psn = (uint32_t)cc_splitmix64(x->o->seed ^ ((uint64_t)x->rank << 32) ^ q) &
			       0xffffff;
		qp_cfg(x, q, &cfg);
		if ((rc = cc_verbs_attr_init(&cfg, &a, &mask)))
			return fail(err, errlen, rc, "QP attributes", "out of range");
		if ((rc = ibv_modify_qp(x->qp[q].qp, &a, mask)))
			return fail(err, errlen, -rc, "ibv_modify_qp to INIT", NULL);
	}
	return 0;
}

/* What every rank builds its schedule from: ranks started with different
 * options would connect QPs that disagree on everything. */
static uint64_t fingerprint(const struct cc_schedule *s)
{
	const struct cc_coll_params *p = &s->params;
	uint64_t v[] = { p->coll, p->algo, p->proto, p->transport, p->dtype, p->redop,
			 p->nranks, p->count, p->root, p->nchannels, p->ranks_per_node,
			 p->ring_order, p->chunk_bytes, p->slot_bytes, p->nslots, p->mem,
			 p->stage_mem, p->slice_steps };
	uint64_t h = 0;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		h = cc_splitmix64(h ^ v[i]);
	return h;
}

/* Blob: u32 status (0, or an errno), u64 fingerprint, then either the
 * reason (status != 0) or u32 n, an ENDPOINTS message of n bytes and an
 * MRS message. */
#define BLOB_HEAD 16

static int encode_blob(struct vx *x, uint8_t **out, size_t *len, char *err, size_t errlen)
{
	const struct cc_rank_sched *rs = x->rs;
	struct cc_bmsg_ep *eps = calloc(rs->nqps + 1, sizeof(*eps));
	struct cc_bmsg_mr *mrs = calloc(rs->nmrs + 1, sizeof(*mrs));
	size_t neps, nmrs;
	int rc = -ENOMEM;

	*out = NULL;
	if (!eps || !mrs)
		goto out;
	for (uint32_t q = 0; q < rs->nqps; q++) {
		struct cc_verbs_qp_cfg cfg;

		qp_cfg(x, q, &cfg);
		eps[q] = (struct cc_bmsg_ep){ .qp_index = q, .peer = rs->qps[q].peer,
					      .qpn = x->qp[q].qp->qp_num, .psn = x->qp[q].psn,
					      .lid = x->v->lid, .gid_index = cfg.sgid_index,
					      .mtu = (uint8_t)cc_verbs_path_mtu(&cfg) };
		memcpy(eps[q].gid, x->v->gid.raw, 16);
	}
	for (uint32_t m = 0; m < rs->nmrs; m++)
		mrs[m] = (struct cc_bmsg_mr){ .index = m, .rkey = x->mr[m]->rkey,
					      .addr = (uintptr_t)x->mem[rs->mrs[m].buf],
					      .length = x->mr[m]->length };
	cc_bmsg_encode_eps(NULL, 0, &neps, x->rank, x->s->nranks, eps, rs->nqps, err, errlen);
	cc_bmsg_encode_mrs(NULL, 0, &nmrs, x->rank, x->s->nranks, mrs, rs->nmrs, err, errlen);
	*len = BLOB_HEAD + neps + nmrs;
	if (*len > CC_BMSG_MAX_BLOB) {
		rc = fail(err, errlen, -E2BIG, "bootstrap exchange", "too many QPs and MRs per rank");
		goto out;
	}
	if (!(*out = calloc(1, *len)))
		goto out;
	cc_bmsg_put32(*out, 0);
	cc_bmsg_put64(*out + 4, fingerprint(x->s));
	cc_bmsg_put32(*out + 12, (uint32_t)neps);
	if ((rc = cc_bmsg_encode_eps(*out + BLOB_HEAD, neps, &neps, x->rank, x->s->nranks, eps,
				     rs->nqps, err, errlen)) ||
	    (rc = cc_bmsg_encode_mrs(*out + BLOB_HEAD + neps, nmrs, &nmrs, x->rank, x->s->nranks,
				     mrs, rs->nmrs, err, errlen))) {
		free(*out);
		*out = NULL;
	}
out:
	if (rc == -ENOMEM)
		fail(err, errlen, rc, "bootstrap exchange", NULL);
	free(eps);
	free(mrs);
	return rc;
}

/* QP q's peer endpoint out of rank p's blob, checked against the schedule. */
static int find_peer_ep(const struct vx *x, uint32_t q, const struct cc_bmsg_ep *eps, uint32_t n,
			struct cc_verbs_peer *out, char *err, size_t errlen)
{
	const struct cc_qp *sq = &x->rs->qps[q];

	for (uint32_t i = 0; i < n; i++) {
		if (eps[i].qp_index != sq->peer_qp)
			continue;
		if (eps[i].peer != x->rank) {
			snprintf(err, errlen, "rank %u's QP %u connects to rank %u, not to rank %u: the "
				 "ranks built different schedules", sq->peer, sq->peer_qp, eps[i].peer,
				 x->rank);
			return -EPROTO;
		}
		*out = (struct cc_verbs_peer){ .qpn = eps[i].qpn, .psn = eps[i].psn,
					       .lid = eps[i].lid };
		memcpy(out->gid.raw, eps[i].gid, 16);
		return 0;
	}
	snprintf(err, errlen, "rank %u sent no QP %u for QP %u of rank %u", sq->peer, sq->peer_qp, q,
		 x->rank);
	return -EPROTO;
}

static int decode_rank(struct vx *x, uint32_t r, const uint8_t *blob, size_t len,
		       struct cc_bmsg_ep **eps, uint32_t *neps, char *err, size_t errlen)
{
	char why[256];
	struct cc_bmsg_hdr h;
	struct cc_bmsg_mr *mrs;
	uint32_t nmrs;

	if (len < BLOB_HEAD) {
		snprintf(err, errlen, "rank %u sent a %zu-byte exchange blob", r, len);
		return -EPROTO;
	}
	uint32_t status = cc_bmsg_get32(blob);
	if (status) {
		snprintf(err, errlen, "rank %u failed its setup: %.*s", r, (int)(len - BLOB_HEAD),
			 (const char *)blob + BLOB_HEAD);
		return -ECANCELED;
	}
	if (cc_bmsg_get64(blob + 4) != fingerprint(x->s)) {
		snprintf(err, errlen, "rank %u built another schedule (other collective, size, "
			 "transport or buffer options): start every rank with the same options", r);
		return -EPROTO;
	}
	size_t n = cc_bmsg_get32(blob + 12);
	if (n > len - BLOB_HEAD ||
	    cc_bmsg_decode_eps(blob + BLOB_HEAD, n, &h, eps, neps, why, sizeof(why)) ||
	    cc_bmsg_decode_mrs(blob + BLOB_HEAD + n, len - BLOB_HEAD - n, &h, &mrs, &nmrs, why,
			       sizeof(why))) {
		if (n > len - BLOB_HEAD)
			snprintf(why, sizeof(why), "endpoint length past the blob");
		snprintf(err, errlen, "rank %u's exchange: %s", r, why);
		return -EPROTO;
	}
	x->rmr[r] = calloc(nmrs + 1, sizeof(**x->rmr));
	if (!x->rmr[r]) {
		free(mrs);
		return fail(err, errlen, -ENOMEM, "bootstrap exchange", NULL);
	}
	for (uint32_t i = 0; i < nmrs; i++) {
		/* Indices are strictly increasing from the decoder; dense
		 * from 0 in a schedule. */
		if (mrs[i].index != i) {
			free(mrs);
			snprintf(err, errlen, "rank %u's exchange: MR %u missing", r, i);
			return -EPROTO;
		}
		x->rmr[r][i] = (struct vx_rmr){ mrs[i].addr, mrs[i].length, mrs[i].rkey };
	}
	x->nrmr[r] = nmrs;
	free(mrs);
	return 0;
}

/* Every rank's blob in, our QPs to RTR and RTS with their peers'. */
static int connect_qps(struct vx *x, const struct cc_boot_blobs *all, char *err, size_t errlen)
{
	struct cc_bmsg_ep **eps = calloc(all->n, sizeof(*eps));
	uint32_t *neps = calloc(all->n, sizeof(*neps));
	int rc = -ENOMEM;

	x->rmr = calloc(all->n, sizeof(*x->rmr));
	x->nrmr = calloc(all->n, sizeof(*x->nrmr));
	if (!eps || !neps || !x->rmr || !x->nrmr) {
		fail(err, errlen, rc, "bootstrap exchange", NULL);
		goto out;
	}
	/* Every blob, so a failed rank is reported whichever rank we are. */
	for (uint32_t r = 0; r < all->n; r++)
		if ((rc = decode_rank(x, r, all->data[r], all->len[r], &eps[r], &neps[r], err,
				      errlen)))
			goto out;
	for (uint32_t q = 0; q < x->rs->nqps; q++) {
		uint32_t p = x->rs->qps[q].peer;
		struct cc_verbs_peer peer;
		struct cc_verbs_qp_cfg cfg;
		struct ibv_qp_attr a;
		int mask;

		if ((rc = find_peer_ep(x, q, eps[p], neps[p], &peer, err, errlen)))
			goto out;
		qp_cfg(x, q, &cfg);
		if ((rc = cc_verbs_attr_rtr(&cfg, &peer, &a, &mask))) {
			const char *field;
			snprintf(err, errlen, "QP %u to rank %u: %s (%s)", q, p,
				 cc_verbs_cfg_invalid(&cfg, &peer, &field), field);
			goto out;
		}
		if ((rc = -ibv_modify_qp(x->qp[q].qp, &a, mask))) {
			snprintf(err, errlen, "ibv_modify_qp QP %u (QPN 0x%x) to RTR with rank %u's QPN "
				 "0x%x: %s", q, x->qp[q].qp->qp_num, p, peer.qpn, strerror(-rc));
			goto out;
		}
		cc_verbs_attr_rts(&cfg, &a, &mask);
		if ((rc = -ibv_modify_qp(x->qp[q].qp, &a, mask))) {
			snprintf(err, errlen, "ibv_modify_qp QP %u to RTS: %s", q, strerror(-rc));
			goto out;
		}
	}
	rc = 0;
out:
	for (uint32_t r = 0; eps && r < all->n; r++)
		free(eps[r]);
	free(eps);
	free(neps);
	return rc;
}

/* The key the test's faults leave on op i (core/exec.h: a stale or
 * mistyped key, flipped as the data executor flips it). */
static uint32_t faulted(const struct vx *x, uint32_t i, enum cc_fault_kind k, uint32_t key)
{
	return key ^ cc_fault_key_flip(x->o->faults, x->o->nfaults, k, x->rank, i);
}

/* The WR of every post op, built once: a doorbell only links and posts. */
static void prepare_wrs(struct vx *x)
{
	const struct cc_rank_sched *rs = x->rs;

	for (uint32_t i = 0; i < rs->nops; i++) {
		const struct cc_op *o = &rs->ops[i];
		struct ibv_sge *sg = &x->sge[i];

		if (o->kind == CC_OP_POST_RECV) {
			const struct cc_op_recv *p = &o->u.recv;

			if (p->num_sge)
				*sg = (struct ibv_sge){
					.addr = (uintptr_t)(x->mem[rs->mrs[p->sge.mr].buf] + p->sge.offset),
					.length = p->sge.length,
					.lkey = faulted(x, i, CC_FAULT_LKEY, x->mr[p->sge.mr]->lkey) };
			x->rwr[i] = (struct ibv_recv_wr){ .wr_id = i, .sg_list = sg,
							  .num_sge = (int)p->num_sge };
			continue;
		}
		if (o->kind != CC_OP_POST_SEND)
			continue;
		const struct cc_op_send *p = &o->u.send;
		struct ibv_send_wr *w = &x->swr[i];
		static const enum ibv_wr_opcode opc[CC_OPCODE_COUNT] = {
			[CC_WR_SEND] = IBV_WR_SEND,
			[CC_WR_SEND_WITH_IMM] = IBV_WR_SEND_WITH_IMM,
			[CC_WR_RDMA_WRITE] = IBV_WR_RDMA_WRITE,
			[CC_WR_RDMA_WRITE_WITH_IMM] = IBV_WR_RDMA_WRITE_WITH_IMM,
			[CC_WR_RDMA_READ] = IBV_WR_RDMA_READ,
			[CC_WR_ATOMIC_FETCH_ADD] = IBV_WR_ATOMIC_FETCH_AND_ADD,
			[CC_WR_ATOMIC_CMP_SWP] = IBV_WR_ATOMIC_CMP_AND_SWP,
		};

		*w = (struct ibv_send_wr){ .wr_id = i, .sg_list = sg, .num_sge = (int)p->num_sge,
					   .opcode = opc[p->opcode] };
		if (p->flags & CC_SEND_SIGNALED)
			w->send_flags |= IBV_SEND_SIGNALED;
		if (p->flags & CC_SEND_FENCE)
			w->send_flags |= IBV_SEND_FENCE;
		if (p->flags & CC_SEND_INLINE) {
			/* The 8-byte word goes into the WQE at post time, as the
			 * schedule stores it: little-endian (core/word.h). */
			uint8_t *le = (uint8_t *)&x->inline_val[i];
			for (int b = 0; b < 8; b++)
				le[b] = (uint8_t)(p->inline_value >> (8 * b));
			w->send_flags |= IBV_SEND_INLINE;
			*sg = (struct ibv_sge){ .addr = (uintptr_t)le,
						.length = p->sge.length < 8 ? p->sge.length : 8 };
			w->num_sge = 1;
		} else if (p->num_sge) {
			*sg = (struct ibv_sge){
				.addr = (uintptr_t)(x->mem[rs->mrs[p->sge.mr].buf] + p->sge.offset),
				.length = p->sge.length,
				.lkey = faulted(x, i, CC_FAULT_LKEY, x->mr[p->sge.mr]->lkey) };
		}
		if (p->opcode == CC_WR_SEND_WITH_IMM || p->opcode == CC_WR_RDMA_WRITE_WITH_IMM)
			w->imm_data = htobe32(p->imm);
		uint32_t peer = rs->qps[p->qp].peer;
		const struct vx_rmr *rm = p->remote_mr < x->nrmr[peer] ? &x->rmr[peer][p->remote_mr]
								       : NULL;
		uint64_t raddr = rm ? rm->addr + p->remote_offset : 0;
		uint32_t rkey = faulted(x, i, CC_FAULT_RKEY, rm ? rm->rkey : 0);
		if (p->opcode == CC_WR_ATOMIC_FETCH_ADD || p->opcode == CC_WR_ATOMIC_CMP_SWP) {
			w->wr.atomic.remote_addr = raddr;
			w->wr.atomic.rkey = rkey;
			w->wr.atomic.compare_add = p->compare_add;
			w->wr.atomic.swap = p->swap;
		} else if (cc_opcode_remote(p->opcode)) {
			w->wr.rdma.remote_addr = raddr;
			w->wr.rdma.rkey = rkey;
		}
	}
}

int vx_setup(struct vx *x, char *err, size_t errlen)
{
	uint8_t *blob = NULL;
	size_t len = 0;
	struct cc_boot_blobs all = {0};
	int rc = alloc_resources(x, err, errlen);

	for (uint32_t c = 0; !rc && c < x->rs->ncqs; c++)
		rc = create_cq(x, c, err, errlen);
	if (!rc)
		rc = create_qps(x, err, errlen);
	if (!rc)
		rc = encode_blob(x, &blob, &len, err, errlen);
	if (rc) {
		/* Tell the others why, so no rank waits for us in vain. */
		size_t n = strnlen(err, errlen);
		free(blob);
		if (!(blob = calloc(1, BLOB_HEAD + n)))
			return rc;
		cc_bmsg_put32(blob, (uint32_t)-rc);
		memcpy(blob + BLOB_HEAD, err, n);
		len = BLOB_HEAD + n;
	}
	char berr[512];
	int brc = cc_boot_allgather(x->b, blob, len, &all, berr, sizeof(berr));
	free(blob);
	if (rc)
		goto out;
	if (brc) {
		rc = brc;
		snprintf(err, errlen, "bootstrap: %s", berr);
		goto out;
	}
	if ((rc = connect_qps(x, &all, err, errlen)))
		goto out;
	prepare_wrs(x);
	/* No WQE may reach a QP that is not yet in RTR. */
	if ((brc = cc_boot_barrier(x->b, berr, sizeof(berr)))) {
		rc = brc;
		snprintf(err, errlen, "bootstrap: %s", berr);
	}
out:
	cc_boot_blobs_free(&all);
	return rc;
}

void vx_teardown(struct vx *x)
{
	const struct cc_rank_sched *rs = x->rs;

	for (uint32_t q = 0; x->qp && q < rs->nqps; q++)
		if (x->qp[q].qp)
			ibv_destroy_qp(x->qp[q].qp);
	for (uint32_t c = 0; x->cq && c < rs->ncqs; c++)
		if (x->cq[c].cq)
			ibv_destroy_cq(x->cq[c].cq);
	for (uint32_t m = 0; x->mr && m < rs->nmrs; m++)
		if (x->mr[m])
			ibv_dereg_mr(x->mr[m]);
	for (uint32_t b = 0; x->mem && x->kind && b < rs->nbufs; b++)
		vx_buf_free(x, b);
	for (uint32_t r = 0; x->rmr && r < x->s->nranks; r++)
		free(x->rmr[r]);
	free(x->rmr);
	free(x->nrmr);
	free(x->mem);
	free(x->dmem);
	free(x->kind);
	free(x->mr);
	free(x->cq);
	free(x->qp);
	free(x->swr);
	free(x->rwr);
	free(x->sge);
	free(x->inline_val);
}
