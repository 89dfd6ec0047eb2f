/* SPDX-License-Identifier: BSD-3-Clause */
/* core/schedule.c — building and checking schedules. */
#include "schedule.h"
#include "gen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/grow.h"

const char *const cc_mem_kind_name[CC_MEM_KIND_COUNT] = {
	[CC_MEM_HOST] = "host",
	[CC_MEM_GPU] = "gpu",
};

const char *const cc_buf_role_name[CC_BUF_ROLE_COUNT] = {
	[CC_BUF_INPUT] = "input",
	[CC_BUF_OUTPUT] = "output",
	[CC_BUF_RECV_STAGE] = "recv_stage",
	[CC_BUF_SEND_STAGE] = "send_stage",
	[CC_BUF_CTS] = "cts",
	[CC_BUF_FLAG] = "flag",
	[CC_BUF_MCAST] = "mcast",
	[CC_BUF_FLUSH] = "flush",
};

const char *const cc_opcode_name[CC_OPCODE_COUNT] = {
	[CC_WR_SEND] = "SEND",
	[CC_WR_SEND_WITH_IMM] = "SEND_WITH_IMM",
	[CC_WR_RDMA_WRITE] = "RDMA_WRITE",
	[CC_WR_RDMA_WRITE_WITH_IMM] = "RDMA_WRITE_WITH_IMM",
	[CC_WR_RDMA_READ] = "RDMA_READ",
	[CC_WR_ATOMIC_FETCH_ADD] = "ATOMIC_FETCH_ADD",
	[CC_WR_ATOMIC_CMP_SWP] = "ATOMIC_CMP_SWP",
};

const char *const cc_op_kind_name[CC_OP_KIND_COUNT] = {
	[CC_OP_POST_RECV] = "post_recv",
	[CC_OP_POST_SEND] = "post_send",
	[CC_OP_DOORBELL] = "doorbell",
	[CC_OP_POLL_CQ] = "poll_cq",
	[CC_OP_WAIT_MEM] = "wait_mem",
	[CC_OP_REDUCE] = "reduce",
	[CC_OP_COPY] = "copy",
};

const char *const cc_prim_name[CC_PRIM_COUNT] = {
	[CC_PRIM_NONE] = "-",
	[CC_PRIM_SEND] = "send",
	[CC_PRIM_COPY_SEND] = "copySend",
	[CC_PRIM_RECV_REDUCE_SEND] = "recvReduceSend",
	[CC_PRIM_RECV_REDUCE_COPY_SEND] = "recvReduceCopySend",
	[CC_PRIM_RECV_REDUCE_COPY] = "recvReduceCopy",
	[CC_PRIM_RECV_COPY_SEND] = "recvCopySend",
	[CC_PRIM_RECV] = "recv",
	[CC_PRIM_COPY] = "copy",
	[CC_PRIM_SCATTER] = "scatter",
	[CC_PRIM_GATHER] = "gather",
	[CC_PRIM_DIRECT_RECV_DIRECT_SEND] = "directRecvDirectSend",
};

const char *const cc_net_call_name[CC_CALL_COUNT] = {
	[CC_CALL_NONE] = "-",
	[CC_CALL_ISEND] = "isend",
	[CC_CALL_IRECV] = "irecv",
};

const char *const cc_coll_name[CC_COLL_COUNT] = {
	[CC_ALLREDUCE] = "allreduce",
	[CC_REDUCESCATTER] = "reducescatter",
	[CC_ALLGATHER] = "allgather",
	[CC_BROADCAST] = "broadcast",
	[CC_REDUCE] = "reduce",
	[CC_ALLTOALL] = "alltoall",
	[CC_SENDRECV] = "sendrecv",
};

const char *const cc_algo_name[CC_ALGO_COUNT] = {
	[CC_ALGO_RING] = "ring",
	[CC_ALGO_HALVING_DOUBLING] = "halving-doubling",
	[CC_ALGO_DIRECT] = "direct",
	[CC_ALGO_TREE] = "tree",
	[CC_ALGO_HIER] = "hierarchical",
	[CC_ALGO_NVLS] = "nvls",
	[CC_ALGO_NVLS_TREE] = "nvlstree",
	[CC_ALGO_COLLNET_CHAIN] = "collnetchain",
};

const char *const cc_transport_name[CC_TRANSPORT_COUNT] = {
	[CC_WRITE_IMM] = "write_imm",
	[CC_SEND_RECV] = "send_recv",
	[CC_WRITE_FLAG] = "write_flag",
};

static int parse_name(const char *s, const char *const *names, int n, int *out)
{
	for (int i = 0; i < n; i++) {
		if (strcmp(s, names[i]) == 0) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *const cc_ring_order_name[CC_RING_ORDER_COUNT] = {
	[CC_RING_ORDER_RANK] = "rank",
	[CC_RING_ORDER_RAIL] = "rail",
};

int cc_ring_order_parse(const char *s, enum cc_ring_order *out)
{
	int v;

	if (parse_name(s, cc_ring_order_name, CC_RING_ORDER_COUNT, &v))
		return -EINVAL;
	*out = (enum cc_ring_order)v;
	return 0;
}

int cc_algo_parse(const char *s, enum cc_algo *out)
{
	int v;

	if (parse_name(s, cc_algo_name, CC_ALGO_COUNT, &v))
		return -EINVAL;
	*out = (enum cc_algo)v;
	return 0;
}

int cc_coll_parse(const char *s, enum cc_coll *out)
{
	int v;
	/* nccl-tests' binary names, for people who type those. */
	if (!strcmp(s, "all_reduce"))
		s = "allreduce";
	else if (!strcmp(s, "reduce_scatter"))
		s = "reducescatter";
	else if (!strcmp(s, "all_gather"))
		s = "allgather";
	if (parse_name(s, cc_coll_name, CC_COLL_COUNT, &v))
		return -EINVAL;
	*out = (enum cc_coll)v;
	return 0;
}

int cc_transport_parse(const char *s, enum cc_transport *out)
{
	int v;
	if (parse_name(s, cc_transport_name, CC_TRANSPORT_COUNT, &v))
		return -EINVAL;
	*out = (enum cc_transport)v;
	return 0;
}

void cc_coll_params_default(struct cc_coll_params *p)
{
	memset(p, 0, sizeof(*p));
	p->coll = CC_ALLREDUCE;
	p->transport = CC_WRITE_IMM;
	p->dtype = CC_FLOAT32;
	p->redop = CC_SUM;
	p->nranks = 2;
	p->chunk_bytes = CC_DEFAULT_CHUNK_BYTES;
	p->slot_bytes = CC_DEFAULT_SLOT_BYTES;
	p->nslots = CC_DEFAULT_NSLOTS;
	p->mem = CC_MEM_GPU;
	p->stage_mem = p->mem; /* GPUDirect RDMA: staging where the user buffers are */
}

void cc_coll_params_fill(struct cc_coll_params *p, int slot_given, int chunk_given)
{
	uint64_t steps = cc_proto_chunk_bytes(p->proto) / cc_proto_slot_bytes(p->proto);

	if (!slot_given)
		p->slot_bytes = p->proto == CC_PROTO_SIMPLE && p->buff_bytes
					? p->buff_bytes / CC_DEFAULT_NSLOTS /* NCCL_STEPS */
					: cc_proto_slot_bytes(p->proto);
	if (!chunk_given) {
		/* No more slices than the slots let progress (cc_params_check):
		 * 2*slots-1 for the ring, slots for hierarchical's serial rings. */
		uint64_t most = p->algo == CC_ALGO_HIER ? p->nslots : 2ull * p->nslots - 1;

		if (steps > most)
			steps = most;
		p->chunk_bytes = p->slot_bytes * steps;
	}
	p->chunk_auto = !chunk_given;
}

uint64_t cc_coll_in_count(const struct cc_coll_params *p)
{
	return p->coll == CC_REDUCESCATTER || p->coll == CC_ALLTOALL ? p->count * p->nranks
								      : p->count;
}

uint64_t cc_coll_out_count(const struct cc_coll_params *p)
{
	return p->coll == CC_ALLGATHER || p->coll == CC_ALLTOALL ? p->count * p->nranks
								  : p->count;
}

int cc_coll_rooted(enum cc_coll c)
{
	return c == CC_BROADCAST || c == CC_REDUCE;
}

bool cc_coll_p2p(enum cc_coll c)
{
	return c == CC_ALLTOALL || c == CC_SENDRECV;
}

bool cc_coll_ring_looped(enum cc_coll c)
{
	return c == CC_ALLREDUCE || c == CC_REDUCESCATTER || c == CC_ALLGATHER;
}

int cc_coll_checks_rank(const struct cc_coll_params *p, uint32_t rank)
{
	return p->coll != CC_REDUCE || rank == p->root;
}

struct cc_schedule *cc_schedule_new(const struct cc_coll_params *p)
{
	struct cc_schedule *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->params = *p;
	s->nranks = p->nranks;
	s->ranks = calloc(p->nranks ? p->nranks : 1, sizeof(*s->ranks));
	if (!s->ranks) {
		free(s);
		return NULL;
	}
	return s;
}

int cc_sched_each_op(const struct cc_schedule *s, uint32_t r,
		     void (*fn)(void *ctx, const struct cc_op *o), void *ctx)
{
	const struct cc_rank_sched *rs = &s->ranks[r];

	if (s->gen)
		return cc_gen_scan(s->gen, r, fn, ctx);
	for (uint32_t i = 0; i < rs->nops; i++)
		fn(ctx, cc_rank_op(rs, i));
	return 0;
}

int cc_schedule_whole(const struct cc_schedule *s, const char *executor, char *err,
		      size_t errlen)
{
	if (!s->one_rank)
		return 0;
	snprintf(err, errlen, "the %s executor runs every rank, and this schedule was built with "
		 "rank %u's ops only", executor, s->rank);
	return -EINVAL;
}

void cc_schedule_free(struct cc_schedule *s)
{
	if (!s)
		return;
	cc_gen_free(s);
	for (uint32_t r = 0; r < s->nranks; r++) {
		struct cc_rank_sched *rs = &s->ranks[r];
		free(rs->bufs);
		free(rs->mrs);
		free(rs->cqs);
		free(rs->qps);
		free(rs->ops);
		free(rs->deps);
	}
	free(s->ranks);
	free(s);
}

/* r->FIELD (of r->CAP elements) grown to hold `want` (util/grow.h), or
 * r->oom set and return CC_SCHED_NONE.  Running out of memory here is bad
 * input (a schedule too large), not a bug: the build fails with ENOMEM. */
#define GROW_OR_FAIL(r, field, cap, want)                                          \
	do {                                                                       \
		if (cc_grow(&(r)->field, &(r)->cap, (want), sizeof(*(r)->field))) { \
			(r)->oom = true;                                           \
			return CC_SCHED_NONE;                                      \
		}                                                                  \
	} while (0)

bool cc_schedule_oom(const struct cc_schedule *s)
{
	for (uint32_t r = 0; r < s->nranks; r++)
		if (s->ranks[r].oom)
			return true;
	return false;
}

size_t cc_schedule_bytes(const struct cc_schedule *s)
{
	size_t n = sizeof(*s) + (size_t)s->nranks * sizeof(*s->ranks);

	for (uint32_t r = 0; r < s->nranks; r++) {
		const struct cc_rank_sched *rs = &s->ranks[r];

		n += (size_t)rs->cap_bufs * sizeof(*rs->bufs) + (size_t)rs->cap_mrs * sizeof(*rs->mrs) +
		     (size_t)rs->cap_cqs * sizeof(*rs->cqs) + (size_t)rs->cap_qps * sizeof(*rs->qps) +
		     (size_t)rs->cap_ops * sizeof(*rs->ops) + (size_t)rs->cap_deps * sizeof(*rs->deps);
	}
	return n;
}

uint32_t cc_add_buffer(struct cc_rank_sched *r, const struct cc_buffer *b)
{
	GROW_OR_FAIL(r, bufs, cap_bufs, (uint64_t)r->nbufs + 1);
	r->bufs[r->nbufs] = *b;
	return r->nbufs++;
}

uint32_t cc_add_mr(struct cc_rank_sched *r, uint32_t buf, uint32_t access)
{
	GROW_OR_FAIL(r, mrs, cap_mrs, (uint64_t)r->nmrs + 1);
	r->mrs[r->nmrs] = (struct cc_mr){ .buf = buf, .access = access };
	return r->nmrs++;
}

uint32_t cc_add_cq(struct cc_rank_sched *r, uint32_t depth)
{
	GROW_OR_FAIL(r, cqs, cap_cqs, (uint64_t)r->ncqs + 1);
	r->cqs[r->ncqs] = (struct cc_cq){ .depth = depth };
	return r->ncqs++;
}

uint32_t cc_add_qp(struct cc_rank_sched *r, const struct cc_qp *qp)
{
	GROW_OR_FAIL(r, qps, cap_qps, (uint64_t)r->nqps + 1);
	r->qps[r->nqps] = *qp;
	return r->nqps++;
}

uint32_t cc_add_op(struct cc_rank_sched *r, const struct cc_op *op, const uint32_t *deps,
		   uint32_t ndeps)
{
	if (r->count_only) {
		for (uint32_t i = 0; i < ndeps; i++) {
			int dup = deps[i] == UINT32_MAX;

			for (uint32_t j = 0; j < i && !dup; j++)
				dup = deps[j] == deps[i];
			r->ndeps += !dup;
		}
		return r->nops++;
	}
	/* Room for all its dependencies and the op first: nothing half added. */
	struct cc_op *o;

	GROW_OR_FAIL(r, deps, cap_deps, (uint64_t)(r->ndeps - r->dep_base) + ndeps);
	if (!r->opblk) {
		GROW_OR_FAIL(r, ops, cap_ops, (uint64_t)(r->nops - r->op_base) + 1);
		o = &r->ops[r->nops - r->op_base];
	} else if (!(o = cc_gen_op_slot(r, r->nops))) {
		r->oom = true;
		return CC_SCHED_NONE;
	}
	uint32_t at = r->ndeps - r->dep_base; /* where its dependencies go */
	*o = *op;
	o->dep_first = r->ndeps;
	o->ndeps = 0;
	for (uint32_t i = 0; i < ndeps; i++) {
		uint32_t d = deps[i];
		int dup = d == UINT32_MAX;
		for (uint32_t j = 0; j < o->ndeps && !dup; j++)
			dup = r->deps[at + j] == d;
		if (dup)
			continue;
		r->deps[at + o->ndeps++] = d;
		r->ndeps++;
	}
	return r->nops++;
}

uint64_t cc_rank_data_bytes(const struct cc_rank_sched *r)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < r->nops; i++) {
		const struct cc_op *o = cc_rank_op(r, i);
		if (o->kind == CC_OP_POST_SEND && o->u.send.payload == CC_PAYLOAD_DATA)
			n += o->u.send.sge.length;
	}
	return n;
}

/* ---- validation ---- */

/* [off, off+len) inside a buffer of `size` bytes, without overflow. */
static int fits(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static int check_sge(const struct cc_rank_sched *rs, const struct cc_sge *sge)
{
	return sge->mr < rs->nmrs;
}

static int check_mref(const struct cc_rank_sched *rs, const struct cc_mref *m)
{
	return m->buf < rs->nbufs;
}

/* Multicast QP q of rank r: its members within the ranks, r among them,
 * and each member's QP q multicast with the same members. */
static int validate_group(const struct cc_schedule *s, uint32_t r, uint32_t q, char *err,
			  size_t len)
{
	const struct cc_qp *qp = &s->ranks[r].qps[q];
	uint64_t st = qp->stride ? qp->stride : 1;
	uint64_t last = qp->peer + (qp->group - 1) * st;

	if (last >= s->nranks || !cc_qp_has_member(qp, r))
		return cc_errf(err, len, -EINVAL, "rank %u qp %u: multicast group of ranks %u.."
			       "%llu by %llu, which has not this rank or past %u ranks", r, q,
			       qp->peer, (unsigned long long)last, (unsigned long long)st,
			       s->nranks);
	for (uint32_t j = 0; j < qp->group; j++) {
		const struct cc_rank_sched *ms = &s->ranks[cc_qp_member(qp, j)];
		const struct cc_qp *mq = q < ms->nqps ? &ms->qps[q] : NULL;

		if (!mq || mq->peer != qp->peer || mq->group != qp->group ||
		    (mq->stride ? mq->stride : 1) != st)
			return cc_errf(err, len, -EINVAL, "rank %u qp %u: member rank %u has no "
				       "qp %u of the same multicast group", r, q,
				       cc_qp_member(qp, j), q);
	}
	return 0;
}

/* Whether the SEND, or multicast READ, reduces whole elements with an
 * operation a switch has (sum, min, max) into or from its SGE. */
static bool switch_reduces(const struct cc_op_send *p)
{
	return p->dtype < CC_DTYPE_COUNT && p->num_sge &&
	       (p->redop == CC_SUM || p->redop == CC_MIN || p->redop == CC_MAX) &&
	       p->sge.length % cc_dtype_size(p->dtype) == 0;
}

/* A post_send on multicast QP qp: multimem.st (RDMA_WRITE) or
 * multimem.ld_reduce (RDMA_READ, sum, min or max) on an MR of one size at
 * every member, or a SEND to an in-network reduction (sum, min or max of
 * whole elements, from the SGE). */
static int validate_mcast(const struct cc_schedule *s, uint32_t r, uint32_t i,
			  const struct cc_op_send *p, const struct cc_qp *qp, char *err, size_t len)
{
	uint64_t size = 0;

	if (p->opcode == CC_WR_SEND) {
		if ((p->flags & CC_SEND_INLINE) || !switch_reduces(p))
			return cc_errf(err, len, -EINVAL, "rank %u op %u: a SEND on multicast qp "
				       "%u gives an in-network reduction whole elements from its "
				       "SGE (not inline), with sum, min or max", r, i, p->qp);
		return 0;
	}
	if (p->opcode != CC_WR_RDMA_WRITE && p->opcode != CC_WR_RDMA_READ)
		return cc_errf(err, len, -EINVAL, "rank %u op %u: %s on multicast qp %u: only "
			       "RDMA_WRITE (multimem.st), RDMA_READ (multimem.ld_reduce) and SEND "
			       "(in-network reduction)", r, i, cc_opcode_name[p->opcode], p->qp);
	for (uint32_t j = 0; j < qp->group; j++) {
		uint32_t m = cc_qp_member(qp, j);
		const struct cc_rank_sched *ms = &s->ranks[m];
		uint64_t b;

		if (p->remote_mr >= ms->nmrs || ms->mrs[p->remote_mr].buf >= ms->nbufs)
			return cc_errf(err, len, -EINVAL, "rank %u op %u: remote mr %u of member "
				       "rank %u, which has %u", r, i, p->remote_mr, m, ms->nmrs);
		b = ms->bufs[ms->mrs[p->remote_mr].buf].size;
		if (j && b != size)
			return cc_errf(err, len, -EINVAL, "rank %u op %u: remote mr %u covers %llu "
				       "bytes at rank %u but %llu at rank %u: one multicast object "
				       "has one size", r, i, p->remote_mr, (unsigned long long)b, m,
				       (unsigned long long)size, qp->peer);
		size = b;
	}
	if (p->opcode == CC_WR_RDMA_READ && !switch_reduces(p))
		return cc_errf(err, len, -EINVAL, "rank %u op %u: a multicast READ reduces whole "
			       "elements into its SGE with sum, min or max", r, i);
	return 0;
}

static int validate_op(const struct cc_schedule *s, uint32_t r, uint32_t i, char *err,
		       size_t len)
{
	const struct cc_rank_sched *rs = &s->ranks[r];
	const struct cc_op *o = cc_rank_op(rs, i);
	const uint32_t *d = cc_op_deps(rs, o);

	/* a network plugin call is made by a unicast post */
	if (o->tag.call >= CC_CALL_COUNT ||
	    (o->tag.call && (o->kind != CC_OP_POST_SEND || o->u.send.qp >= rs->nqps ||
			     cc_qp_mcast(&rs->qps[o->u.send.qp]))))
		return cc_errf(err, len, -EINVAL,
			       "rank %u op %u: call mark %u on an op that makes no plugin call", r,
			       i, (unsigned)o->tag.call);
	for (uint32_t j = 0; j < o->ndeps; j++)
		if (d[j] >= i)
			return cc_errf(err, len, -EINVAL,
				       "rank %u op %u: dependency on op %u, not an earlier op",
				       r, i, d[j]);
	switch (o->kind) {
	case CC_OP_POST_RECV:
		if (o->u.recv.qp >= rs->nqps)
			return cc_errf(err, len, -EINVAL,
				       "rank %u op %u: post_recv on qp %u of %u", r, i,
				       o->u.recv.qp, rs->nqps);
		if (o->u.recv.num_sge && !check_sge(rs, &o->u.recv.sge))
			return cc_errf(err, len, -EINVAL, "rank %u op %u: sge mr %u of %u", r, i,
				       o->u.recv.sge.mr, rs->nmrs);
		break;
	case CC_OP_POST_SEND: {
		const struct cc_op_send *p = &o->u.send;
		if (p->qp >= rs->nqps)
			return cc_errf(err, len, -EINVAL,
				       "rank %u op %u: post_send on qp %u of %u", r, i,
				       p->qp, rs->nqps);
		if (p->opcode >= CC_OPCODE_COUNT)
			return cc_errf(err, len, -EINVAL,
				       "rank %u op %u: bad opcode %d", r, i, (int)p->opcode);
		/* IBV_SEND_INLINE copies an outgoing payload into the WQE: a READ
		 * or an atomic brings data in, to its SGE, and has none to copy
		 * (the executors would look for a local buffer that is not there). */
		if ((p->flags & CC_SEND_INLINE) && cc_opcode_rd_atomic(p->opcode))
			return cc_errf(err, len, -EINVAL,
				       "rank %u op %u: INLINE on %s, which returns data "
				       "to its SGE", r, i, cc_opcode_name[p->opcode]);
		if (cc_send_local_sge(p) && !check_sge(rs, &p->sge))
			return cc_errf(err, len, -EINVAL,
				       "rank %u op %u: sge mr %u of %u", r, i, p->sge.mr,
				       rs->nmrs);
		const struct cc_qp *qp = &rs->qps[p->qp];
		int remote = cc_opcode_remote(p->opcode);
		if (cc_qp_mcast(qp))
			return validate_mcast(s, r, i, p, qp, err, len);
		if (remote && p->remote_mr >= s->ranks[qp->peer].nmrs)
			return cc_errf(err, len, -EINVAL,
				       "rank %u op %u: remote mr %u of rank %u has %u", r, i,
				       p->remote_mr, qp->peer, s->ranks[qp->peer].nmrs);
		break;
	}
	case CC_OP_DOORBELL:
		if (o->u.doorbell.qp >= rs->nqps)
			return cc_errf(err, len, -EINVAL,
				       "rank %u op %u: doorbell on qp %u of %u", r, i,
				       o->u.doorbell.qp, rs->nqps);
		break;
	case CC_OP_POLL_CQ:
		if (o->u.poll.cq >= rs->ncqs)
			return cc_errf(err, len, -EINVAL,
				       "rank %u op %u: poll_cq on cq %u of %u", r, i,
				       o->u.poll.cq, rs->ncqs);
		break;
	case CC_OP_WAIT_MEM:
		if (o->u.wait.buf >= rs->nbufs || !fits(o->u.wait.offset, 8, rs->bufs[o->u.wait.buf].size))
			return cc_errf(err, len, -EINVAL,
				       "rank %u op %u: wait_mem outside buffer %u", r, i,
				       o->u.wait.buf);
		break;
	case CC_OP_REDUCE:
	case CC_OP_COPY: {
		const struct cc_op_calc *c = &o->u.calc;
		if (c->dtype >= CC_DTYPE_COUNT || c->redop >= CC_REDOP_COUNT ||
		    c->count > UINT64_MAX / 8)
			return cc_errf(err, len, -EINVAL,
				       "rank %u op %u: bad dtype, redop or count", r, i);
		if (c->nsrc < 1 || c->nsrc > 2 || c->ndst < 1 || c->ndst > 2 ||
		    (o->kind == CC_OP_REDUCE && c->nsrc != 2))
			return cc_errf(err, len, -EINVAL,
				       "rank %u op %u: %u sources, %u destinations", r, i,
				       c->nsrc, c->ndst);
		if (c->proto >= CC_PROTO_COUNT || c->src_lines >> c->nsrc || c->dst_lines >> c->ndst ||
		    ((c->src_lines || c->dst_lines) && c->proto == CC_PROTO_SIMPLE))
			return cc_errf(err, len, -EINVAL, "rank %u op %u: bad line operands", r, i);
		for (int j = 0; j < c->nsrc + c->ndst; j++) {
			int dst = j >= c->nsrc;
			const struct cc_mref *m = dst ? &c->dst[j - c->nsrc] : &c->src[j];
			uint64_t bytes = cc_calc_operand_bytes(c, dst, dst ? j - c->nsrc : j);
			if (!check_mref(rs, m) || !fits(m->offset, bytes, rs->bufs[m->buf].size))
				return cc_errf(err, len, -EINVAL,
					       "rank %u op %u: %s outside buffer %u", r, i,
					       cc_op_kind_name[o->kind], m->buf);
		}
		break;
	}
	default:
		return cc_errf(err, len, -EINVAL, "rank %u op %u: bad kind %d", r, i, (int)o->kind);
	}
	return 0;
}

bool cc_schedule_has_mcast(const struct cc_schedule *s)
{
	for (uint32_t r = 0; r < s->nranks; r++)
		for (uint32_t q = 0; q < s->ranks[r].nqps; q++)
			if (cc_qp_mcast(&s->ranks[r].qps[q]))
				return true;
	return false;
}

uint64_t cc_calc_operand_bytes(const struct cc_op_calc *c, int dst, int j)
{
	uint64_t bytes = c->count * cc_dtype_size(c->dtype);
	uint8_t lines = dst ? c->dst_lines : c->src_lines;

	return lines >> j & 1 ? cc_proto_wire_bytes(c->proto, bytes) : bytes;
}

int cc_schedule_validate(const struct cc_schedule *s, char *err, size_t len)
{
	for (uint32_t r = 0; r < s->nranks; r++) {
		const struct cc_rank_sched *rs = &s->ranks[r];
		for (uint32_t m = 0; m < rs->nmrs; m++)
			if (rs->mrs[m].buf >= rs->nbufs)
				return cc_errf(err, len, -EINVAL,
					       "rank %u mr %u: buffer %u of %u", r, m,
					       rs->mrs[m].buf, rs->nbufs);
		for (uint32_t q = 0; q < rs->nqps; q++) {
			const struct cc_qp *qp = &rs->qps[q];
			if (cc_qp_mcast(qp)) {
				int rc = validate_group(s, r, q, err, len);

				if (rc)
					return rc;
				if (qp->send_cq >= rs->ncqs || qp->recv_cq >= rs->ncqs)
					return cc_errf(err, len, -EINVAL,
						       "rank %u qp %u: cq out of range", r, q);
				continue;
			}
			if (qp->peer >= s->nranks || qp->peer_qp >= s->ranks[qp->peer].nqps)
				return cc_errf(err, len, -EINVAL,
					       "rank %u qp %u: peer %u qp %u does not exist", r,
					       q, qp->peer, qp->peer_qp);
			const struct cc_qp *back = &s->ranks[qp->peer].qps[qp->peer_qp];
			if (back->peer != r || back->peer_qp != q)
				return cc_errf(err, len, -EINVAL,
					       "rank %u qp %u: peer's qp is connected elsewhere",
					       r, q);
			if (qp->send_cq >= rs->ncqs || qp->recv_cq >= rs->ncqs)
				return cc_errf(err, len, -EINVAL,
					       "rank %u qp %u: cq out of range", r, q);
		}
		for (uint32_t i = 0; i < rs->nops; i++) {
			int rc = validate_op(s, r, i, err, len);
			if (rc)
				return rc;
		}
	}
	return 0;
}
