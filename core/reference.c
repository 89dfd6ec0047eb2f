/* SPDX-License-Identifier: BSD-3-Clause */
/* core/reference.c — the expected output of a collective, from its definition:
 *
 *   allreduce:      out[i]           = op over ranks q of in_q[i]
 *   reduce-scatter: out_r[i]         = op over ranks q of in_q[r*count + i]
 *   all-gather:     out_r[q*count+i] = in_q[i]
 *
 * followed by a division by k for avg.  Ranks are folded in rank order with
 * the same element arithmetic the executors use (core/dtype.c); the inputs
 * make the result independent of the order (docs/correctness.md). */
#include "reference.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void cc_reference_input(const struct cc_coll_params *p, uint32_t rank, uint64_t seed, void *in)
{
	cc_fill_input(in, 0, cc_coll_in_count(p), p->dtype, p->redop, rank, p->nranks, seed);
}

/* Reduces, over all ranks, input elements [first, first + n) into out. */
static int fold(const struct cc_coll_params *p, uint64_t seed, uint64_t first, uint64_t n,
		void *out)
{
	size_t es = cc_dtype_size(p->dtype);
	enum { BLOCK = 4096 };
	uint8_t *tmp = malloc(BLOCK * es);
	if (!tmp)
		return -ENOMEM;
	for (uint64_t b = 0; b < n; b += BLOCK) {
		uint64_t m = n - b < BLOCK ? n - b : BLOCK;
		uint8_t *acc = (uint8_t *)out + b * es;
		cc_fill_input(acc, first + b, m, p->dtype, p->redop, 0, p->nranks, seed);
		for (uint32_t q = 1; q < p->nranks; q++) {
			cc_fill_input(tmp, first + b, m, p->dtype, p->redop, q, p->nranks, seed);
			cc_reduce(acc, acc, tmp, m, p->dtype, p->redop);
		}
		if (p->redop == CC_AVG)
			cc_postdiv(acc, m, p->dtype, p->nranks);
	}
	free(tmp);
	return 0;
}

int cc_reference_output(const struct cc_coll_params *p, uint32_t rank, uint64_t seed, void *out)
{
	size_t es = cc_dtype_size(p->dtype);
	switch (p->coll) {
	case CC_ALLREDUCE:
		return fold(p, seed, 0, p->count, out);
	case CC_REDUCESCATTER:
		return fold(p, seed, (uint64_t)rank * p->count, p->count, out);
	case CC_ALLGATHER:
		for (uint32_t q = 0; q < p->nranks; q++)
			cc_fill_input((uint8_t *)out + (uint64_t)q * p->count * es, 0, p->count,
				      p->dtype, p->redop, q, p->nranks, seed);
		return 0;
	case CC_BROADCAST:
		cc_fill_input(out, 0, p->count, p->dtype, p->redop, p->root, p->nranks, seed);
		return 0;
	case CC_REDUCE: /* the root's; the others' outputs are not defined */
		return fold(p, seed, 0, p->count, out);
	case CC_ALLTOALL: /* block q: rank q's block `rank` */
		for (uint32_t q = 0; q < p->nranks; q++)
			cc_fill_input((uint8_t *)out + (uint64_t)q * p->count * es,
				      (uint64_t)rank * p->count, p->count, p->dtype, p->redop, q,
				      p->nranks, seed);
		return 0;
	case CC_SENDRECV: /* the input of the rank before (sendrecv.cu's peer) */
		cc_fill_input(out, 0, p->count, p->dtype, p->redop,
			      (rank + p->nranks - 1) % p->nranks, p->nranks, seed);
		return 0;
	default:
		return -EINVAL;
	}
}

void cc_reference_from_inputs(const struct cc_coll_params *p, const void *const *inputs,
			      void *out)
{
	size_t es = cc_dtype_size(p->dtype);
	uint64_t n = cc_coll_in_count(p);

	if (p->coll == CC_ALLGATHER) {
		for (uint32_t q = 0; q < p->nranks; q++)
			memcpy((uint8_t *)out + (uint64_t)q * n * es, inputs[q], n * es);
		return;
	}
	if (p->coll == CC_BROADCAST) {
		memcpy(out, inputs[p->root], n * es);
		return;
	}
	if (p->coll == CC_SENDRECV) { /* rank r's expected output at r * n */
		for (uint32_t r = 0; r < p->nranks; r++)
			memcpy((uint8_t *)out + (uint64_t)r * n * es,
			       inputs[(r + p->nranks - 1) % p->nranks], n * es);
		return;
	}
	if (p->coll == CC_ALLTOALL) { /* rank r's expected output at r * n */
		uint64_t b = p->count * es;

		for (uint32_t r = 0; r < p->nranks; r++)
			for (uint32_t q = 0; q < p->nranks; q++)
				memcpy((uint8_t *)out + (uint64_t)r * n * es + q * b,
				       (const uint8_t *)inputs[q] + r * b, b);
		return;
	}
	memcpy(out, inputs[0], n * es);
	for (uint32_t q = 1; q < p->nranks; q++)
		cc_reduce(out, out, inputs[q], n, p->dtype, p->redop);
	if (p->redop == CC_AVG)
		cc_postdiv(out, n, p->dtype, p->nranks);
}
