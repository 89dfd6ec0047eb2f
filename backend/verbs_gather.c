/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/verbs_gather.c — see verbs_gather.h. */
#include "backend/verbs_gather.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/bootstrap_msg.h"

#define STATS_BYTES (4 + 8 * 8)

static uint64_t to_ns(double us)
{
	return us > 0 ? (uint64_t)llround(us * 1e3) : 0;
}

int cc_verbs_gather_stats(struct cc_boot *b, const struct cc_verbs_result *mine,
			  struct cc_verbs_rank_stats *all, char *err, size_t errlen)
{
	uint8_t blob[STATS_BYTES];
	struct cc_boot_blobs got = {0};
	double sum = 0, lo = 0, hi = 0;
	int rc;

	for (uint32_t i = 0; i < mine->iters; i++) {
		double t = mine->iter_us[i];
		sum += t;
		lo = i == 0 || t < lo ? t : lo;
		hi = t > hi ? t : hi;
	}
	cc_bmsg_put32(blob, mine->iters);
	cc_bmsg_put64(blob + 4, to_ns(mine->iters ? sum / mine->iters : 0));
	cc_bmsg_put64(blob + 12, to_ns(lo));
	cc_bmsg_put64(blob + 20, to_ns(hi));
	cc_bmsg_put64(blob + 28, mine->wrong);
	cc_bmsg_put64(blob + 36, mine->data_bytes);
	cc_bmsg_put64(blob + 44, mine->wqes);
	cc_bmsg_put64(blob + 52, mine->doorbells);
	cc_bmsg_put64(blob + 60, to_ns(mine->setup_us));
	if ((rc = cc_boot_allgather(b, blob, sizeof(blob), &got, err, errlen)))
		return rc;
	for (uint32_t r = 0; r < got.n; r++) {
		const uint8_t *p = got.data[r];
		if (got.len[r] != STATS_BYTES) {
			snprintf(err, errlen, "rank %u sent %zu bytes of results, not %d", r, got.len[r],
				 STATS_BYTES);
			cc_boot_blobs_free(&got);
			return -EPROTO;
		}
		all[r] = (struct cc_verbs_rank_stats){
			.iters = cc_bmsg_get32(p), .mean_ns = cc_bmsg_get64(p + 4), .min_ns = cc_bmsg_get64(p + 12),
			.max_ns = cc_bmsg_get64(p + 20), .wrong = cc_bmsg_get64(p + 28), .data_bytes = cc_bmsg_get64(p + 36),
			.wqes = cc_bmsg_get64(p + 44), .doorbells = cc_bmsg_get64(p + 52), .setup_ns = cc_bmsg_get64(p + 60),
		};
	}
	cc_boot_blobs_free(&got);
	return 0;
}

/* An event: t, dur, wr_id, bytes (u64); kind, track, qp, op, prim,
 * channel, chunk, step, slice, op_kind << 8 | opcode (u32).  The rank is
 * the blob's. */
#define EV_WORDS 10
#define EV_BYTES (4 * 8 + EV_WORDS * 4)
#define EV_PER_ROUND ((CC_BMSG_MAX_BLOB - 8) / EV_BYTES)

static void put_event(uint8_t *p, const struct cc_trace_event *e)
{
	const uint32_t w[EV_WORDS] = { e->kind, e->track, e->qp, e->op, e->tag.prim,
				       e->tag.channel, e->tag.chunk, e->tag.step, e->tag.slice,
				       (uint32_t)e->op_kind << 8 | e->opcode };

	cc_bmsg_put64(p, e->t_ps);
	cc_bmsg_put64(p + 8, e->dur_ps);
	cc_bmsg_put64(p + 16, e->wr_id);
	cc_bmsg_put64(p + 24, e->bytes);
	for (int i = 0; i < EV_WORDS; i++)
		cc_bmsg_put32(p + 32 + 4 * i, w[i]);
}

static int get_event(const uint8_t *p, uint32_t rank, struct cc_trace_event *e)
{
	uint32_t w[EV_WORDS];

	for (int i = 0; i < EV_WORDS; i++)
		w[i] = cc_bmsg_get32(p + 32 + 4 * i);
	if (w[0] >= CC_TRACE_KIND_COUNT || w[4] >= CC_PRIM_COUNT || w[5] > UINT16_MAX ||
	    (w[1] >= CC_TRACE_TRACK_COUNT && w[1] < CC_TRACE_PORT0) || w[9] > UINT16_MAX)
		return -EPROTO;
	*e = (struct cc_trace_event){
		.t_ps = cc_bmsg_get64(p), .dur_ps = cc_bmsg_get64(p + 8), .wr_id = cc_bmsg_get64(p + 16),
		.bytes = cc_bmsg_get64(p + 24), .kind = (enum cc_trace_kind)w[0], .rank = rank,
		.track = (enum cc_trace_track)w[1], .qp = w[2], .op = w[3],
		.tag = { .prim = (enum cc_prim)w[4], .channel = (uint16_t)w[5], .chunk = w[6],
			 .step = w[7], .slice = w[8] },
		.op_kind = (uint8_t)(w[9] >> 8), .opcode = (uint8_t)w[9],
	};
	return 0;
}

int cc_verbs_gather_trace(struct cc_boot *b, const struct cc_trace *mine, struct cc_trace *all,
			  char *err, size_t errlen)
{
	size_t sent = 0;
	uint8_t *blob = malloc(8 + EV_PER_ROUND * EV_BYTES);
	int rc = 0;

	if (!blob) {
		snprintf(err, errlen, "out of memory for the trace");
		return -ENOMEM;
	}
	/* Each round carries up to EV_PER_ROUND events of every rank and
	 * says how many are still to come, so all ranks stop together. */
	for (;;) {
		size_t n = mine->n - sent < EV_PER_ROUND ? mine->n - sent : EV_PER_ROUND;
		struct cc_boot_blobs got = {0};
		bool more = false;

		cc_bmsg_put64(blob, mine->n - sent - n);
		for (size_t i = 0; i < n; i++)
			put_event(blob + 8 + i * EV_BYTES, &mine->ev[sent + i]);
		sent += n;
		if ((rc = cc_boot_allgather(b, blob, 8 + n * EV_BYTES, &got, err, errlen)))
			break;
		for (uint32_t r = 0; r < got.n && !rc; r++) {
			size_t len = got.len[r];
			if (len < 8 || (len - 8) % EV_BYTES) {
				snprintf(err, errlen, "rank %u sent a trace round of %zu bytes", r, len);
				rc = -EPROTO;
				break;
			}
			more = more || cc_bmsg_get64(got.data[r]) > 0;
			for (size_t i = 0; b->rank == 0 && i < (len - 8) / EV_BYTES; i++) {
				struct cc_trace_event e;
				if (get_event(got.data[r] + 8 + i * EV_BYTES, r, &e)) {
					snprintf(err, errlen, "rank %u sent a trace event out of range", r);
					rc = -EPROTO;
					break;
				}
				cc_trace_append(all, &e);
			}
		}
		cc_boot_blobs_free(&got);
		if (rc || !more)
			break;
	}
	free(blob);
	return rc;
}
