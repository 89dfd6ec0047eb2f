/* SPDX-License-Identifier: BSD-3-Clause */
/* core/trace.c — the event trace and its Chrome JSON and CSV writers (see
 * core/trace.h).
 *
 * The writers stream into the atomic file (util/atomic_file.h) with stdio
 * rather than going through cc_json: cc_json builds the whole document in
 * memory with a line per member, too much for millions of events, and it
 * prints non-integers only as doubles, while ts and dur must be exact
 * decimals of integer picoseconds.  Every string the writers print comes
 * from a fixed table of identifiers, so there is nothing to escape.
 */
#include "core/trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomic_file.h"

const char *const cc_trace_kind_name[CC_TRACE_KIND_COUNT] = {
	[CC_TRACE_POST] = "post",
	[CC_TRACE_DOORBELL] = "doorbell",
	[CC_TRACE_WQE_FETCH] = "wqe_fetch",
	[CC_TRACE_DMA_READ] = "dma_read",
	[CC_TRACE_TX_FIRST] = "tx_first",
	[CC_TRACE_TX_LAST] = "tx_last",
	[CC_TRACE_RX_LAST] = "rx_last",
	[CC_TRACE_DMA_WRITE] = "dma_write",
	[CC_TRACE_ACK] = "ack",
	[CC_TRACE_CQE] = "cqe",
	[CC_TRACE_POLL] = "poll",
	[CC_TRACE_REDUCE_BEGIN] = "reduce_begin",
	[CC_TRACE_REDUCE_END] = "reduce_end",
	[CC_TRACE_COPY_BEGIN] = "copy_begin",
	[CC_TRACE_COPY_END] = "copy_end",
};

static const char *const fixed_track_name[CC_TRACE_TRACK_COUNT] = {
	[CC_TRACE_CPU] = "cpu",
	[CC_TRACE_GPU] = "gpu",
	[CC_TRACE_NIC] = "nic",
};

static bool track_valid(enum cc_trace_track track)
{
	return (uint32_t)track < CC_TRACE_TRACK_COUNT || (uint32_t)track >= CC_TRACE_PORT0;
}

const char *cc_trace_track_name(enum cc_trace_track track, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	if (!track_valid(track))
		return NULL;
	if ((uint32_t)track < CC_TRACE_TRACK_COUNT) {
		snprintf(buf, len, "%s", fixed_track_name[track]);
	} else if ((uint32_t)track < CC_TRACE_GPU_LANE0) {
		snprintf(buf, len, "port%" PRIu32, (uint32_t)track - CC_TRACE_PORT0);
	} else {
		static const char *const group[CC_TAG_GROUPS] = { "", "-down", "-g2", "-g3" };
		uint32_t lane = (uint32_t)track - CC_TRACE_GPU_LANE0;

		snprintf(buf, len, "gpu-ch%" PRIu32 "%s", lane / CC_TAG_GROUPS,
			 group[lane % CC_TAG_GROUPS]);
	}
	return buf;
}

/* ---- the buffer ---- */

void cc_trace_init(struct cc_trace *t)
{
	memset(t, 0, sizeof(*t));
}

void cc_trace_clear(struct cc_trace *t)
{
	t->n = 0;
	t->dropped = 0;
}

void cc_trace_free(struct cc_trace *t)
{
	free(t->ev);
	cc_trace_init(t);
}

/* The buffer is full: double it.  Doubling keeps appends amortised O(1)
 * and the number of reallocs logarithmic in the trace length. */
int cc__trace_append_slow(struct cc_trace *t, const struct cc_trace_event *e)
{
	/* A copy first: e may point into the buffer that realloc moves. */
	const struct cc_trace_event copy = *e;
	size_t cap = t->cap ? t->cap : 1024;
	struct cc_trace_event *ev;

	if (t->n >= t->cap) {
		if (t->cap) {
			if (t->cap > SIZE_MAX / 2 / sizeof(*ev))
				goto nomem;
			cap = t->cap * 2;
		}
		ev = realloc(t->ev, cap * sizeof(*ev));
		if (!ev)
			goto nomem;
		t->ev = ev;
		t->cap = cap;
	}
	t->ev[t->n++] = copy;
	return 0;
nomem:
	t->dropped++;
	return -ENOMEM;
}

/* ---- formatting ---- */

#define PS_PER_US UINT64_C(1000000)

size_t cc_trace_ps_to_us(uint64_t ps, char buf[CC_TRACE_US_LEN])
{
	/* Digits right to left into tmp: no snprintf in the per-event path,
	 * and a length that is plain to see (at most 14 + 1 + 6 + NUL). */
	char tmp[CC_TRACE_US_LEN], *p = tmp + sizeof(tmp);
	uint64_t whole = ps / PS_PER_US, frac = ps % PS_PER_US;
	int digits = 6;
	size_t n;

	*--p = '\0';
	if (frac) {
		while (frac % 10 == 0) {
			frac /= 10;
			digits--;
		}
		while (digits--) {
			*--p = (char)('0' + frac % 10);
			frac /= 10;
		}
		*--p = '.';
	}
	do {
		*--p = (char)('0' + whole % 10);
		whole /= 10;
	} while (whole);
	n = (size_t)(tmp + sizeof(tmp) - 1 - p);
	memcpy(buf, p, n + 1);
	return n;
}

/* qp and op: CC_TRACE_NONE prints as -1, which reads better in a viewer's
 * args panel than 4294967295. */
static int64_t id_or_none(uint32_t v)
{
	return v == CC_TRACE_NONE ? -1 : (int64_t)v;
}

/* Check every event before opening the file, so a bad event leaves no
 * half-written output and the writers need no fallback names. */
static int check_events(const struct cc_trace *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct cc_trace_event *e = &t->ev[i];

		if ((uint32_t)e->kind >= CC_TRACE_KIND_COUNT || !track_valid(e->track) ||
		    (uint32_t)e->tag.prim >= CC_PRIM_COUNT)
			return -EINVAL;
	}
	return 0;
}

/* The error of a failed stdio write: errno where it was set, else EIO. */
static int write_err(void)
{
	return errno ? -errno : -EIO;
}

/* ---- Chrome trace JSON ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The (rank, track) pairs in use, as rank << 32 | track, sorted and
 * unique.  Consecutive repeats are skipped while collecting, since a
 * recorder tends to emit runs of events on one track. */
static int track_keys(const struct cc_trace *t, uint64_t **keys, size_t *nkeys)
{
	uint64_t *k = NULL;
	size_t n = 0, u = 0;

	*keys = NULL;
	*nkeys = 0;
	if (!t->n)
		return 0;
	k = malloc(t->n * sizeof(*k));
	if (!k)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		uint64_t key = (uint64_t)t->ev[i].rank << 32 | (uint32_t)t->ev[i].track;

		if (!n || k[n - 1] != key)
			k[n++] = key;
	}
	qsort(k, n, sizeof(*k), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (!u || k[u - 1] != k[i])
			k[u++] = k[i];
	*keys = k;
	*nkeys = u;
	return 0;
}

static int chrome_metadata(FILE *f, const uint64_t *keys, size_t nkeys, bool *first)
{
	char name[CC_TRACE_TRACK_NAME_LEN];

	for (size_t i = 0; i < nkeys; i++) {
		uint32_t rank = (uint32_t)(keys[i] >> 32);
		enum cc_trace_track track = (enum cc_trace_track)(uint32_t)keys[i];
		uint64_t pid = (uint64_t)rank + 1;

		if ((i == 0 || (uint32_t)(keys[i - 1] >> 32) != rank) &&
		    fprintf(f, "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%" PRIu64
			    ",\"tid\":1,\"args\":{\"name\":\"rank %" PRIu32 "\"}}",
			    *first ? "\n" : ",\n", pid, rank) < 0)
			return write_err();
		*first = false;
		if (fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%" PRIu64
			    ",\"tid\":%" PRIu64 ",\"args\":{\"name\":\"%s\"}}",
			    pid, (uint64_t)(uint32_t)track + 1,
			    cc_trace_track_name(track, name, sizeof(name))) < 0)
			return write_err();
	}
	return 0;
}

static int chrome_event(FILE *f, const struct cc_trace_event *e, bool first)
{
	char ts[CC_TRACE_US_LEN], dur[CC_TRACE_US_LEN];
	int n;

	cc_trace_ps_to_us(e->t_ps, ts);
	if (e->dur_ps) {
		cc_trace_ps_to_us(e->dur_ps, dur);
		n = fprintf(f, "%s{\"name\":\"%s\",\"ph\":\"X\",\"ts\":%s,\"dur\":%s",
			    first ? "\n" : ",\n", cc_trace_kind_name[e->kind], ts, dur);
	} else {
		n = fprintf(f, "%s{\"name\":\"%s\",\"ph\":\"i\",\"s\":\"t\",\"ts\":%s",
			    first ? "\n" : ",\n", cc_trace_kind_name[e->kind], ts);
	}
	if (n < 0)
		return write_err();
	n = fprintf(f, ",\"pid\":%" PRIu64 ",\"tid\":%" PRIu64 ",\"args\":{\"qp\":%" PRId64
		    ",\"wr_id\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"op\":%" PRId64
		    ",\"prim\":\"%s\",\"channel\":%u,\"chunk\":%" PRIu32 ",\"step\":%" PRIu32
		    ",\"slice\":%" PRIu32 "}}",
		    (uint64_t)e->rank + 1, (uint64_t)(uint32_t)e->track + 1, id_or_none(e->qp),
		    e->wr_id, e->bytes, id_or_none(e->op), cc_prim_name[e->tag.prim],
		    (unsigned)e->tag.channel, e->tag.chunk, e->tag.step, e->tag.slice);
	return n < 0 ? write_err() : 0;
}

static int chrome_body(FILE *f, const struct cc_trace *t, const uint64_t *keys, size_t nkeys)
{
	bool first = true;
	int err;

	if (fputs("{\"traceEvents\":[", f) < 0)
		return write_err();
	err = chrome_metadata(f, keys, nkeys, &first);
	if (err)
		return err;
	for (size_t i = 0; i < t->n; i++) {
		err = chrome_event(f, &t->ev[i], first);
		if (err)
			return err;
		first = false;
	}
	if (fprintf(f, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"generator\":\"cclab\","
		    "\"clock\":\"ps\",\"events\":%zu,\"dropped\":%" PRIu64 "}}\n",
		    t->n, t->dropped) < 0)
		return write_err();
	return 0;
}

int cc_trace_write_chrome(const struct cc_trace *t, const char *path)
{
	struct cc_atomic_file af;
	uint64_t *keys;
	size_t nkeys;
	int err;

	err = check_events(t);
	if (err)
		return err;
	err = track_keys(t, &keys, &nkeys);
	if (err)
		return err;
	err = cc_atomic_open(&af, path);
	if (err) {
		free(keys);
		return err;
	}
	errno = 0;
	err = chrome_body(af.f, t, keys, nkeys);
	free(keys);
	if (err) {
		cc_atomic_abort(&af);
		return err;
	}
	return cc_atomic_commit(&af);
}

/* ---- CSV ---- */

static int csv_body(FILE *f, const struct cc_trace *t)
{
	char track[CC_TRACE_TRACK_NAME_LEN];

	if (fputs("t_ps,dur_ps,kind,rank,track,qp,wr_id,bytes,op,prim,channel,chunk,step,slice\n",
		  f) < 0)
		return write_err();
	for (size_t i = 0; i < t->n; i++) {
		const struct cc_trace_event *e = &t->ev[i];

		if (fprintf(f, "%" PRIu64 ",%" PRIu64 ",%s,%" PRIu32 ",%s,%" PRId64 ",%" PRIu64
			    ",%" PRIu64 ",%" PRId64 ",%s,%u,%" PRIu32 ",%" PRIu32 ",%" PRIu32 "\n",
			    e->t_ps, e->dur_ps, cc_trace_kind_name[e->kind], e->rank,
			    cc_trace_track_name(e->track, track, sizeof(track)), id_or_none(e->qp),
			    e->wr_id, e->bytes, id_or_none(e->op), cc_prim_name[e->tag.prim],
			    (unsigned)e->tag.channel, e->tag.chunk, e->tag.step, e->tag.slice) < 0)
			return write_err();
	}
	return 0;
}

int cc_trace_write_csv(const struct cc_trace *t, const char *path)
{
	struct cc_atomic_file af;
	int err;

	err = check_events(t);
	if (err)
		return err;
	err = cc_atomic_open(&af, path);
	if (err)
		return err;
	errno = 0;
	err = csv_body(af.f, t);
	if (err) {
		cc_atomic_abort(&af);
		return err;
	}
	return cc_atomic_commit(&af);
}

int cc_trace_write(const struct cc_trace *t, const char *path)
{
	size_t n = strlen(path);

	if (n >= 4 && !strcmp(path + n - 4, ".csv"))
		return cc_trace_write_csv(t, path);
	return cc_trace_write_chrome(t, path);
}
