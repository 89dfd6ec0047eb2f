/* core/exec_common.c — see exec_common.h. */
#include "exec_common.h"

#include <string.h>

#include "dtype.h"

void cc_exec_users(const struct cc_rank_sched *rs, uint32_t *deps_left, uint32_t *users_first,
		   uint32_t *users)
{
	uint32_t n = rs->nops;

	/* Counting sort into CSR: count users of op i at [i + 2], prefix-sum,
	 * then fill, advancing [i + 1] as op i's write cursor. */
	for (uint32_t i = 0; i < n; i++) {
		const uint32_t *d = cc_op_deps(rs, &rs->ops[i]);

		deps_left[i] = rs->ops[i].ndeps;
		for (uint32_t j = 0; j < rs->ops[i].ndeps; j++)
			users_first[d[j] + 2]++;
	}
	for (uint32_t i = 0; i < n; i++)
		users_first[i + 2] += users_first[i + 1];
	for (uint32_t i = 0; i < n; i++) {
		const uint32_t *d = cc_op_deps(rs, &rs->ops[i]);

		for (uint32_t j = 0; j < rs->ops[i].ndeps; j++)
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

uint64_t cc_exec_calc_host(const struct cc_op *o, uint8_t *const *mem)
{
	const struct cc_op_calc *c = &o->u.calc;
	size_t bytes = c->count * cc_dtype_size(c->dtype);
	uint8_t *d0 = mem[c->dst[0].buf] + c->dst[0].offset;
	const uint8_t *s0 = mem[c->src[0].buf] + c->src[0].offset;

	if (o->kind == CC_OP_REDUCE) {
		cc_reduce(d0, s0, mem[c->src[1].buf] + c->src[1].offset, c->count, c->dtype, c->redop);
		if (c->postdiv > 1)
			cc_postdiv(d0, c->count, c->dtype, c->postdiv);
	} else {
		memmove(d0, s0, bytes);
	}
	if (c->ndst == 2)
		memmove(mem[c->dst[1].buf] + c->dst[1].offset, d0, bytes);
	return bytes;
}
