/* core/algo.c — parameter checks shared by every algorithm, and dispatch. */
#include "algo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* Largest single WQE payload: ibv_sge.length is 32 bits and IBA limits a
 * message to 2^31 bytes (IBA 9.4.x, "maximum message size"). */
#define CC_MAX_MSG_BYTES (1ull << 31)
#define CC_MAX_RANKS 4096u

uint32_t cc_ring_steps(enum cc_coll coll, uint32_t nranks)
{
	if (nranks <= 1)
		return 1;
	return coll == CC_ALLREDUCE ? 2 * nranks - 1 : nranks;
}

double cc_busbw_factor(enum cc_coll coll, uint32_t nranks)
{
	/* nccl-tests doc/PERFORMANCE.md: allreduce 2(n-1)/n, reduce-scatter and
	 * all-gather (n-1)/n. */
	if (nranks == 0)
		return 0;
	double f = (double)(nranks - 1) / nranks;
	return coll == CC_ALLREDUCE ? 2 * f : f;
}

struct cc_schedule *cc_build(const struct cc_coll_params *p, char *err, size_t errlen)
{
	size_t es = cc_dtype_size(p->dtype);
	errno = EINVAL;
	if (p->coll >= CC_COLL_COUNT || p->transport >= CC_TRANSPORT_COUNT ||
	    p->dtype >= CC_DTYPE_COUNT || p->redop >= CC_REDOP_COUNT) {
		snprintf(err, errlen, "unknown collective, transport, dtype or redop");
		return NULL;
	}
	if (p->nranks < 1 || p->nranks > CC_MAX_RANKS) {
		snprintf(err, errlen, "nranks %u out of range 1..%u", p->nranks, CC_MAX_RANKS);
		return NULL;
	}
	if (p->nslots < 1 || p->nslots > 1024) {
		snprintf(err, errlen, "slots %u out of range 1..1024", p->nslots);
		return NULL;
	}
	if (p->slot_bytes < es || p->slot_bytes > CC_MAX_MSG_BYTES) {
		snprintf(err, errlen, "slot size %llu B out of range %zu..%llu (one %s element .. 2 GiB)",
			 (unsigned long long)p->slot_bytes, es, CC_MAX_MSG_BYTES,
			 cc_dtype_name[p->dtype]);
		return NULL;
	}
	if (p->chunk_bytes < es) {
		snprintf(err, errlen, "chunk size %llu B is less than one %s element",
			 (unsigned long long)p->chunk_bytes, cc_dtype_name[p->dtype]);
		return NULL;
	}
	/* The whole array (count * nranks elements for reduce-scatter and
	 * all-gather) must have a byte size that fits in 63 bits. */
	if (p->count > (UINT64_MAX >> 1) / es / p->nranks) {
		snprintf(err, errlen, "count %llu too large", (unsigned long long)p->count);
		return NULL;
	}
	struct cc_schedule *s = cc_build_ring(p);
	if (!s) {
		errno = ENOMEM;
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (cc_schedule_validate(s, err, errlen)) {
		/* A builder that emits a broken schedule is a bug, not bad input. */
		fprintf(stderr, "cclab: internal error: %s\n", err);
		abort();
	}
	return s;
}
