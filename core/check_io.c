/* SPDX-License-Identifier: BSD-3-Clause */
/* core/check_io.c — inputs, reference and #wrong for executors that move
 * real bytes (core/check_io.h). */
#include "check_io.h"

#include <errno.h>
#include <stdlib.h>

#include "reference.h"
#include "util/mem_limit.h"

int cc_check_io_init(struct cc_check_io *io, const struct cc_schedule *s)
{
	const struct cc_coll_params *p = &s->params;
	uint64_t in = cc_coll_in_count(p), out = cc_coll_out_count(p);

	io->s = s;
	/* All-to-all and sendrecv: every rank expects a different output. */
	if (cc_coll_p2p(p->coll))
		out *= p->nranks;
	io->want = malloc((in > out ? in : out) * cc_dtype_size(p->dtype) + 1);
	return io->want ? 0 : -ENOMEM;
}

void cc_check_io_free(struct cc_check_io *io)
{
	free(io->want);
	io->want = NULL;
}

/* Allreduce, all-gather, broadcast and reduce (its root) expect the same
 * of every rank; reduce-scatter's rank r expects block r of the fold of the
 * whole arrays, all-to-all's and sendrecv's their own outputs. */
static const uint8_t *want(const struct cc_check_io *io, uint32_t r)
{
	const struct cc_coll_params *p = &io->s->params;
	size_t es = cc_dtype_size(p->dtype);

	if (p->coll == CC_REDUCESCATTER)
		return io->want + (uint64_t)r * p->count * es;
	if (cc_coll_p2p(p->coll))
		return io->want + (uint64_t)r * cc_coll_out_count(p) * es;
	return io->want;
}

void cc_check_io_fill(struct cc_check_io *io, uint64_t seed, uint8_t *const *in,
		      uint8_t *const *out)
{
	const struct cc_coll_params *p = &io->s->params;
	uint64_t bytes = cc_coll_out_count(p) * cc_dtype_size(p->dtype);

	for (uint32_t r = 0; r < io->s->nranks; r++)
		cc_reference_input(p, r, seed, in[r]);
	cc_reference_from_inputs(p, (const void *const *)in, io->want);
	for (uint32_t r = 0; r < io->s->nranks; r++) {
		const uint8_t *w = want(io, r);
		uint8_t *o = out[r]; /* not reloaded per byte: bytes may alias it */

		for (uint64_t b = 0; b < bytes; b++)
			o[b] = (uint8_t)~w[b];
	}
}

uint64_t cc_check_io_wrong(const struct cc_check_io *io, uint8_t *const *out)
{
	const struct cc_coll_params *p = &io->s->params;
	uint64_t wrong = 0;

	for (uint32_t r = 0; r < io->s->nranks; r++)
		if (cc_coll_checks_rank(p, r))
			wrong += cc_count_wrong(out[r], want(io, r), cc_coll_out_count(p), p->dtype);
	return wrong;
}

bool cc_check_io_too_big(const struct cc_schedule *s, bool buffers, double extra_bytes)
{
	double bytes = extra_bytes;
	struct cc_mem_limit lim;

	if (buffers) {
		for (uint32_t r = 0; r < s->nranks; r++)
			for (uint32_t b = 0; b < s->ranks[r].nbufs && (!s->one_rank || r == s->rank);
			     b++)
				bytes += (double)s->ranks[r].bufs[b].size;
		bytes += (double)cc_coll_in_count(&s->params) * s->nranks *
			 cc_dtype_size(s->params.dtype); /* the reference */
	}
	cc_mem_limit(&lim);
	return lim.bytes && bytes > 0.75 * (double)lim.bytes;
}
