/* SPDX-License-Identifier: BSD-3-Clause */
/* core/exec_common.c — see exec_common.h. */
#include "exec_common.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "core/exec.h"

void cc_exec_users(const struct cc_rank_sched *rs, uint32_t *deps_left, uint32_t *users_first,
		   uint32_t *users)
{
	uint32_t n = rs->nops;

	/* Counting sort into CSR: count users of op i at [i + 2], prefix-sum,
	 * then fill, advancing [i + 1] as op i's write cursor. */
	for (uint32_t i = 0; i < n; i++) {
		const struct cc_op *o = cc_rank_op(rs, i);
		const uint32_t *d = cc_op_deps(rs, o);

		deps_left[i] = o->ndeps;
		for (uint32_t j = 0; j < o->ndeps; j++)
			users_first[d[j] + 2]++;
	}
	for (uint32_t i = 0; i < n; i++)
		users_first[i + 2] += users_first[i + 1];
	for (uint32_t i = 0; i < n; i++) {
		const struct cc_op *o = cc_rank_op(rs, i);
		const uint32_t *d = cc_op_deps(rs, o);

		for (uint32_t j = 0; j < o->ndeps; j++)
			users[users_first[d[j] + 1]++] = i;
	}
}

void cc_exec_keys(const struct cc_rank_sched *rs, uint32_t r, uint64_t seed, uint32_t *key)
{
	for (uint32_t m = 0; m < rs->nmrs; m++)
		key[m] = ((r * 1024u + m + 1) << 8) | (uint32_t)((seed + r) & 0x7f);
}

const struct cc_mr *cc_exec_find_mr(const struct cc_rank_sched *rs, const uint32_t *keys,
				    uint32_t key, uint64_t off, uint64_t len, uint32_t access)
{
	for (uint32_t m = 0; m < rs->nmrs; m++) {
		if (keys[m] != key)
			continue;
		const struct cc_mr *mr = &rs->mrs[m];
		if ((mr->access & access) != access)
			return NULL;
		if (off > rs->bufs[mr->buf].size || len > rs->bufs[mr->buf].size - off)
			return NULL;
		return mr;
	}
	return NULL;
}

/* Data bytes a piece of a line-format calc covers: whole LL halves (4 B)
 * and LL128 lines (120 B), whole elements of every dtype (8 B at most). */
#define PIECE 3840u

static int is_reduce(const struct cc_op *o)
{
	return o->kind == CC_OP_REDUCE;
}

/* d = s0 (op) s1, or s0, for n bytes; then avg's division. */
static void apply(const struct cc_op *o, uint8_t *d, const uint8_t *s0, const uint8_t *s1,
		  uint64_t n)
{
	const struct cc_op_calc *c = &o->u.calc;
	uint64_t count = n / cc_dtype_size(c->dtype);

	if (is_reduce(o)) {
		cc_reduce(d, s0, s1, count, c->dtype, c->redop);
		if (c->postdiv > 1)
			cc_postdiv(d, count, c->dtype, c->postdiv);
	} else {
		memmove(d, s0, n);
	}
}

/* A calc with operands in lines, piece by piece through local buffers. */
static void calc_lines(const struct cc_op *o, uint8_t *const *mem, uint64_t bytes)
{
	const struct cc_op_calc *c = &o->u.calc;
	uint8_t src[2][PIECE], out[PIECE];

	for (uint64_t off = 0; off < bytes; off += PIECE) {
		uint64_t n = bytes - off < PIECE ? bytes - off : PIECE;
		uint64_t line_off = cc_proto_wire_bytes(c->proto, off);
		const uint8_t *s[2] = { NULL, NULL };
		uint8_t *d;

		for (int j = 0; j < c->nsrc; j++) {
			const uint8_t *base = mem[c->src[j].buf] + c->src[j].offset;

			if (c->src_lines >> j & 1) {
				cc_proto_unpack(c->proto, src[j], base + line_off, n);
				s[j] = src[j];
			} else {
				s[j] = base + off;
			}
		}
		d = c->dst_lines & 1 ? out : mem[c->dst[0].buf] + c->dst[0].offset + off;
		apply(o, d, s[0], s[1], n);
		for (int j = 0; j < c->ndst; j++) {
			uint8_t *base = mem[c->dst[j].buf] + c->dst[j].offset;

			if (c->dst_lines >> j & 1)
				cc_proto_pack(c->proto, base + line_off, d, n, c->dst_flag);
			else if (j > 0)
				memmove(base + off, d, n);
		}
	}
}

int cc_exec_calc_host(const struct cc_op *o, uint8_t *const *mem)
{
	const struct cc_op_calc *c = &o->u.calc;
	uint64_t bytes = c->count * cc_dtype_size(c->dtype);
	uint8_t *d0 = mem[c->dst[0].buf] + c->dst[0].offset;

	if (c->src_lines || c->dst_lines) {
		for (int j = 0; j < c->nsrc; j++)
			if (c->src_lines >> j & 1 &&
			    !cc_proto_lines_ready(c->proto, mem[c->src[j].buf] + c->src[j].offset,
						  bytes, c->src_flag))
				return -EAGAIN;
		calc_lines(o, mem, bytes);
		return 0;
	}
	apply(o, d0, mem[c->src[0].buf] + c->src[0].offset,
	      is_reduce(o) ? mem[c->src[1].buf] + c->src[1].offset : NULL, bytes);
	if (c->ndst == 2)
		memmove(mem[c->dst[1].buf] + c->dst[1].offset, d0, bytes);
	return 0;
}

const char *const cc_fault_kind_label[CC_FAULT_KIND_COUNT] = { "rkey", "lkey", "norecv" };

const char *const cc_executor_name[CC_EXECUTOR_COUNT] = {
	[CC_EXEC_SIM] = "sim",
	[CC_EXEC_DATA] = "data",
	[CC_EXEC_VERBS] = "verbs",
};


/* Decimal digits up to UINT32_MAX from s, to the first ':' or the end. */
static int fault_number(const char **s, uint32_t *out)
{
	uint64_t v = 0;
	const char *p = *s;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > UINT32_MAX)
			return -ERANGE;
	}
	*out = (uint32_t)v;
	*s = p;
	return 0;
}

int cc_fault_parse(const char *s, struct cc_fault *out, char *err, size_t len)
{
	const char *p = s, *which = "RANK";
	uint32_t rank, op;
	int k, rc;

	for (k = 0; k < CC_FAULT_KIND_COUNT; k++) {
		size_t n = strlen(cc_fault_kind_label[k]);

		if (!strncmp(s, cc_fault_kind_label[k], n) && s[n] == ':') {
			p = s + n + 1;
			break;
		}
	}
	if (k == CC_FAULT_KIND_COUNT)
		return -ENOENT;
	rc = fault_number(&p, &rank);
	if (!rc && *p++ == ':') {
		which = "OP";
		rc = fault_number(&p, &op);
		if (!rc && *p)
			rc = -EINVAL;
	} else if (!rc) {
		rc = -EINVAL;
	}
	if (rc == -ERANGE) {
		snprintf(err, len, "%s is larger than %" PRIu32, which, UINT32_MAX);
		return -EINVAL;
	}
	if (rc) {
		snprintf(err, len, "expected %s:RANK:OP with RANK and OP in decimal digits",
			 cc_fault_kind_label[k]);
		return -EINVAL;
	}
	*out = (struct cc_fault){ .kind = (enum cc_fault_kind)k, .rank = rank, .op = op };
	return 0;
}

int cc_fault_check(const struct cc_fault *f, const struct cc_schedule *s, char *err, size_t len)
{
	const char *want = f->kind == CC_FAULT_NO_RECV ? "a post_recv"
			   : f->kind == CC_FAULT_RKEY ? "a post_send" : "a post_send or post_recv";

	if (f->rank >= s->nranks) {
		snprintf(err, len, "rank %" PRIu32 " does not exist (%" PRIu32 " ranks)", f->rank,
			 s->nranks);
		return -EINVAL;
	}
	const struct cc_rank_sched *rs = &s->ranks[f->rank];

	if (f->op >= rs->nops) {
		snprintf(err, len, "rank %" PRIu32 " has no op %" PRIu32 " (it has %" PRIu32 ")",
			 f->rank, f->op, rs->nops);
		return -EINVAL;
	}
	const struct cc_op *o = cc_rank_op(rs, f->op);
	bool send = o->kind == CC_OP_POST_SEND, recv = o->kind == CC_OP_POST_RECV;
	bool fits = f->kind == CC_FAULT_NO_RECV ? recv : f->kind == CC_FAULT_RKEY ? send : send || recv;

	if (!fits) {
		snprintf(err, len, "op %" PRIu32 " of rank %" PRIu32 " is a %s, not %s", f->op,
			 f->rank, cc_op_kind_name[o->kind], want);
		return -EINVAL;
	}
	if (f->kind == CC_FAULT_RKEY && !cc_opcode_remote(o->u.send.opcode)) {
		snprintf(err, len, "op %" PRIu32 " of rank %" PRIu32 " is a %s, which carries no "
			 "R_Key", f->op, f->rank, cc_opcode_name[o->u.send.opcode]);
		return -EINVAL;
	}
	if (f->kind == CC_FAULT_LKEY &&
	    (send ? !cc_send_local_sge(&o->u.send) : !o->u.recv.num_sge)) {
		snprintf(err, len, "op %" PRIu32 " of rank %" PRIu32 " has no local buffer "
			 "(no SGE, or inline) whose L_Key could be wrong", f->op, f->rank);
		return -EINVAL;
	}
	return 0;
}

_Noreturn void cc_exec_bad_kind(const char *executor, uint32_t rank, uint32_t op, int kind)
{
	fprintf(stderr, "cclab: internal error: %s executor: rank %" PRIu32 " op %" PRIu32
		" has kind %d, which no executor knows (the schedule was not passed through "
		"cc_schedule_validate)\n", executor, rank, op, kind);
	abort();
}
