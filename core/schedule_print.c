/* SPDX-License-Identifier: BSD-3-Clause */
/* core/schedule_print.c — a schedule as text, for people, tests and diff.
 *
 * The format is specified in docs/schedule.md ("Text format").  In short: one
 * record per line, a record name then key=value tokens in a fixed order,
 * every number in decimal, "-" for "none".  Tests compare whole lines and
 * people diff two dumps, so nothing here may depend on anything but the
 * schedule (no pointers, no locale, no floating point), and a change to a
 * line's shape is a format change: bump CC_PRINT_FORMAT and the docs.
 */
#include "algo.h"
#include "schedule.h"

#include <inttypes.h>
#include <stdlib.h>

/* The "format=" of the header line. */
#define CC_PRINT_FORMAT 5 /* 2: the header's stage_mem; 3: multicast QPs; 4: strided
			    * groups and in-network reduction; 5: the plugin calls */

struct flag_name {
	uint32_t bit;
	const char *name;
};

/* IBV_ACCESS_* without the prefix, in libibverbs' bit order. */
static const struct flag_name access_names[] = {
	{ .bit = CC_ACCESS_LOCAL_WRITE, .name = "LOCAL_WRITE" },
	{ .bit = CC_ACCESS_REMOTE_WRITE, .name = "REMOTE_WRITE" },
	{ .bit = CC_ACCESS_REMOTE_READ, .name = "REMOTE_READ" },
	{ .bit = CC_ACCESS_REMOTE_ATOMIC, .name = "REMOTE_ATOMIC" },
};

/* IBV_SEND_* without the prefix. */
static const struct flag_name send_flag_names[] = {
	{ .bit = CC_SEND_SIGNALED, .name = "SIGNALED" },
	{ .bit = CC_SEND_INLINE, .name = "INLINE" },
	{ .bit = CC_SEND_FENCE, .name = "FENCE" },
};

static const char *const payload_name[] = {
	[CC_PAYLOAD_DATA] = "data",
	[CC_PAYLOAD_CTRL] = "ctrl",
};

static const char *const where_name[] = {
	[CC_ON_GPU] = "gpu",
	[CC_ON_CPU] = "cpu",
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A name from a table, or "?" for a value outside it: a corrupt schedule
 * must still print (that is when people need the dump most). */
static const char *name_of(const char *const *names, size_t n, unsigned int v)
{
	return v < n && names[v] ? names[v] : "?";
}

#define NAME(table, v) name_of((table), ARRAY_SIZE(table), (unsigned int)(v))

/* "A|B", "-" for no bit, unknown bits as one trailing hex number. */
static void print_flags(FILE *f, const struct flag_name *names, size_t n, uint32_t v)
{
	const char *sep = "";

	if (!v) {
		fputc('-', f);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (v & names[i].bit) {
			fprintf(f, "%s%s", sep, names[i].name);
			sep = "|";
			v &= ~names[i].bit;
		}
	}
	if (v)
		fprintf(f, "%s0x%" PRIx32, sep, v);
}

static void print_header(FILE *f, const struct cc_schedule *s)
{
	const struct cc_coll_params *p = &s->params;

	fprintf(f,
		"schedule format=%d coll=%s transport=%s ranks=%" PRIu32
		" dtype=%s redop=%s count=%" PRIu64 " chunk_bytes=%" PRIu64
		" slot_bytes=%" PRIu64 " slots=%" PRIu32 " mem=%s stage_mem=%s\n",
		CC_PRINT_FORMAT, NAME(cc_coll_name, p->coll), NAME(cc_transport_name, p->transport),
		s->nranks, NAME(cc_dtype_name, p->dtype), NAME(cc_redop_name, p->redop), p->count,
		p->chunk_bytes, p->slot_bytes, p->nslots, NAME(cc_mem_kind_name, p->mem),
		NAME(cc_mem_kind_name, cc_coll_stage_mem(p)));
}

static void print_sge(FILE *f, const struct cc_sge *sge)
{
	fprintf(f, "mr%" PRIu32 "+%" PRIu64 ":%" PRIu32, sge->mr, sge->offset, sge->length);
}

static void print_mrefs(FILE *f, const char *key, const struct cc_mref *m, unsigned int n)
{
	fprintf(f, " %s=", key);
	if (!n)
		fputc('-', f);
	for (unsigned int i = 0; i < n; i++)
		fprintf(f, "%sb%" PRIu32 "+%" PRIu64, i ? "," : "", m[i].buf, m[i].offset);
}

static int opcode_has_imm(enum cc_opcode op)
{
	return op == CC_WR_SEND_WITH_IMM || op == CC_WR_RDMA_WRITE_WITH_IMM;
}

/* A multicast QP's members: "P-L", or "P-L/S" with a stride S. */
static void print_members(FILE *f, const struct cc_qp *q)
{
	fprintf(f, "%" PRIu32 "-%" PRIu64, q->peer,
		(uint64_t)cc_qp_member(q, q->group - 1));
	if (q->stride > 1)
		fprintf(f, "/%" PRIu32, q->stride);
}

static void print_send(FILE *f, const struct cc_schedule *s, const struct cc_rank_sched *rs,
		       const struct cc_op_send *p)
{
	fprintf(f, " qp=%" PRIu32 " wr_id=%" PRIu64 " opcode=%s flags=", p->qp, p->wr_id,
		NAME(cc_opcode_name, p->opcode));
	print_flags(f, send_flag_names, ARRAY_SIZE(send_flag_names), p->flags);

	/* An inline send's bytes are in the WQE; its SGE names no memory. */
	fputs(" sge=", f);
	if (!p->num_sge)
		fputc('-', f);
	else if (p->flags & CC_SEND_INLINE)
		fprintf(f, "inline:%" PRIu32, p->sge.length);
	else
		print_sge(f, &p->sge);

	/* The remote end is named as the executor will resolve it: the peer
	 * of the QP (every member of a multicast QP's group), that peer's MR,
	 * an offset in it. */
	const struct cc_qp *qp = p->qp < rs->nqps ? &rs->qps[p->qp] : NULL;

	if (p->opcode == CC_WR_SEND && qp && cc_qp_mcast(qp)) {
		fputs(" to=mc", f);
		print_members(f, qp);
		fprintf(f, " reduce=%s:%s", NAME(cc_redop_name, p->redop),
			NAME(cc_dtype_name, p->dtype));
	} else if (cc_opcode_remote(p->opcode) && qp && cc_qp_mcast(qp)) {
		fputs(" remote=mc", f);
		print_members(f, qp);
		fprintf(f, ".mr%" PRIu32 "+%" PRIu64, p->remote_mr, p->remote_offset);
		if (p->opcode == CC_WR_RDMA_READ)
			fprintf(f, " reduce=%s:%s", NAME(cc_redop_name, p->redop),
				NAME(cc_dtype_name, p->dtype));
	} else if (cc_opcode_remote(p->opcode)) {
		fputs(" remote=r", f);
		if (p->qp < rs->nqps && rs->qps[p->qp].peer < s->nranks)
			fprintf(f, "%" PRIu32, rs->qps[p->qp].peer);
		else
			fputc('?', f);
		fprintf(f, ".mr%" PRIu32 "+%" PRIu64, p->remote_mr, p->remote_offset);
	}
	if (opcode_has_imm(p->opcode))
		fprintf(f, " imm=%" PRIu32, p->imm);
	if (p->flags & CC_SEND_INLINE)
		fprintf(f, " inline=%" PRIu64, p->inline_value);
	if (p->opcode == CC_WR_ATOMIC_FETCH_ADD)
		fprintf(f, " add=%" PRIu64, p->compare_add);
	if (p->opcode == CC_WR_ATOMIC_CMP_SWP)
		fprintf(f, " compare=%" PRIu64 " swap=%" PRIu64, p->compare_add, p->swap);
	fprintf(f, " payload=%s", NAME(payload_name, p->payload));
}

static void print_calc(FILE *f, const struct cc_op_calc *c)
{
	/* nsrc/ndst are bounded by the arrays, whatever the schedule says. */
	print_mrefs(f, "src", c->src, c->nsrc < 2 ? c->nsrc : 2);
	print_mrefs(f, "dst", c->dst, c->ndst < 2 ? c->ndst : 2);
	fprintf(f, " count=%" PRIu64 " dtype=%s redop=%s postdiv=%" PRIu32 " on=%s", c->count,
		NAME(cc_dtype_name, c->dtype), NAME(cc_redop_name, c->redop), c->postdiv,
		NAME(where_name, c->where));
	if (c->warps)
		fprintf(f, " warps=%u", (unsigned)c->warps);
	/* Operands in lines: which, in what format, with what flag. */
	if (c->src_lines)
		fprintf(f, " src_lines=%s:%u flag=%" PRIu64, NAME(cc_proto_name, c->proto),
			(unsigned)c->src_lines, c->src_flag);
	if (c->dst_lines)
		fprintf(f, " dst_lines=%s:%u flag=%" PRIu64, NAME(cc_proto_name, c->proto),
			(unsigned)c->dst_lines, c->dst_flag);
}

void cc_op_print(FILE *f, const struct cc_schedule *s, uint32_t r, uint32_t i)
{
	const struct cc_rank_sched *rs = &s->ranks[r];
	const struct cc_op *o = cc_rank_op(rs, i);

	fprintf(f, "r%" PRIu32 " op %" PRIu32 " %s", r, i, NAME(cc_op_kind_name, o->kind));
	switch (o->kind) {
	case CC_OP_POST_RECV:
		fprintf(f, " qp=%" PRIu32 " wr_id=%" PRIu64 " sge=", o->u.recv.qp, o->u.recv.wr_id);
		if (o->u.recv.num_sge)
			print_sge(f, &o->u.recv.sge);
		else
			fputc('-', f);
		break;
	case CC_OP_POST_SEND:
		print_send(f, s, rs, &o->u.send);
		break;
	case CC_OP_DOORBELL:
		fprintf(f, " qp=%" PRIu32 " nwqe=%" PRIu32, o->u.doorbell.qp, o->u.doorbell.nwqe);
		break;
	case CC_OP_POLL_CQ:
		fprintf(f, " cq=%" PRIu32 " wr_id=%" PRIu64, o->u.poll.cq, o->u.poll.wr_id);
		break;
	case CC_OP_WAIT_MEM:
		fprintf(f, " word=b%" PRIu32 "+%" PRIu64 " ge=%" PRIu64, o->u.wait.buf,
			o->u.wait.offset, o->u.wait.value);
		break;
	case CC_OP_REDUCE:
	case CC_OP_COPY:
		print_calc(f, &o->u.calc);
		break;
	default:
		break;
	}

	fputs(" deps=", f);
	if (!o->ndeps || o->dep_first > rs->ndeps || o->ndeps > rs->ndeps - o->dep_first) {
		fputc('-', f);
	} else {
		const uint32_t *d = cc_op_deps(rs, o);
		for (uint32_t j = 0; j < o->ndeps; j++)
			fprintf(f, "%s%" PRIu32, j ? "," : "", d[j]);
	}

	if (o->tag.prim != CC_PRIM_NONE)
		fprintf(f, " prim=%s chunk=%" PRIu32 " step=%" PRIu32 " slice=%" PRIu32 " ch=%u",
			NAME(cc_prim_name, o->tag.prim), o->tag.chunk, o->tag.step, o->tag.slice,
			(unsigned int)o->tag.channel);
	if (o->tag.group)
		fprintf(f, " group=%u", (unsigned int)o->tag.group);
	if (o->tag.call)
		fprintf(f, " call=%s", NAME(cc_net_call_name, o->tag.call));
	fputc('\n', f);
}

static void print_rank(FILE *f, const struct cc_schedule *s, uint32_t r)
{
	const struct cc_rank_sched *rs = &s->ranks[r];

	fprintf(f,
		"r%" PRIu32 " rank bufs=%" PRIu32 " mrs=%" PRIu32 " cqs=%" PRIu32 " qps=%" PRIu32
		" ops=%" PRIu32 "\n",
		r, rs->nbufs, rs->nmrs, rs->ncqs, rs->nqps, rs->nops);
	for (uint32_t i = 0; i < rs->nbufs; i++) {
		const struct cc_buffer *b = &rs->bufs[i];
		fprintf(f, "r%" PRIu32 " buf %" PRIu32 " role=%s mem=%s size=%" PRIu64 " peer=", r, i,
			NAME(cc_buf_role_name, b->role), NAME(cc_mem_kind_name, b->mem), b->size);
		if (b->peer < 0)
			fputc('-', f);
		else
			fprintf(f, "%" PRId32, b->peer);
		fprintf(f, " ch=%u\n", (unsigned int)b->channel);
	}
	for (uint32_t i = 0; i < rs->nmrs; i++) {
		fprintf(f, "r%" PRIu32 " mr %" PRIu32 " buf=%" PRIu32 " access=", r, i,
			rs->mrs[i].buf);
		print_flags(f, access_names, ARRAY_SIZE(access_names), rs->mrs[i].access);
		fputc('\n', f);
	}
	for (uint32_t i = 0; i < rs->ncqs; i++)
		fprintf(f, "r%" PRIu32 " cq %" PRIu32 " depth=%" PRIu32 "\n", r, i, rs->cqs[i].depth);
	for (uint32_t i = 0; i < rs->nqps; i++) {
		const struct cc_qp *q = &rs->qps[i];

		/* A multicast QP's other end is a switch — the node's
		 * NVSwitch, or the network's for a group strided over nodes —
		 * and its members the group's ranks. */
		fprintf(f, "r%" PRIu32 " qp %" PRIu32, r, i);
		if (cc_qp_mcast(q))
			fprintf(f, " peer=%s peer_qp=-", q->stride > 1 ? "switch" : "nvswitch");
		else
			fprintf(f, " peer=%" PRIu32 " peer_qp=%" PRIu32, q->peer, q->peer_qp);
		fprintf(f,
			" send_cq=%" PRIu32 " recv_cq=%" PRIu32 " max_send_wr=%" PRIu32
			" max_recv_wr=%" PRIu32 " max_inline=%" PRIu32 " retry_cnt=%u rnr_retry=%u"
			" ch=%u",
			q->send_cq, q->recv_cq, q->max_send_wr, q->max_recv_wr, q->max_inline,
			(unsigned int)q->retry_cnt, (unsigned int)q->rnr_retry,
			(unsigned int)q->channel);
		if (cc_qp_mcast(q)) {
			fputs(" members=", f);
			print_members(f, q);
		}
		fputc('\n', f);
	}
	for (uint32_t i = 0; i < rs->nops; i++)
		cc_op_print(f, s, r, i);
}

void cc_schedule_print(FILE *f, const struct cc_schedule *s, int rank)
{
	print_header(f, s);
	for (uint32_t r = 0; r < s->nranks; r++)
		if (rank < 0 || (uint32_t)rank == r)
			print_rank(f, s, r);
}

/* ---- primitive steps ---- */

/* The primitive steps come from the algorithm's own walk, not from the ops:
 * a step over a chunk with no elements has no ops, yet NCCL runs it. */
static void print_step(void *f, uint32_t r, const struct cc_prim_step *st)
{
	fprintf(f, "rank %" PRIu32 " channel %u chunk %" PRIu32 " step %" PRIu32 " %s\n", r,
		(unsigned int)st->channel, st->chunk, st->step, NAME(cc_prim_name, st->prim));
}

void cc_print_primitives(FILE *f, const struct cc_coll_params *p, int rank)
{
	for (uint32_t r = 0; r < p->nranks; r++)
		if (rank < 0 || (uint32_t)rank == r)
			cc_algo_primitives(p, r, print_step, f);
}

void cc_schedule_print_primitives(FILE *f, const struct cc_schedule *s, int rank)
{
	cc_print_primitives(f, &s->params, rank);
}
