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
	[CC_TRACE_WIRE] = "wire",
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

/* A thread of the JSON: the recorder's (rank, track), and for the NIC's
 * slices a sub-track per (QP, kind) and a lane within it (core/trace.h says
 * why).  sub 0 and lane 0 are the track itself. */
struct thread_key {
	uint32_t rank, track;
	uint64_t sub;
	uint32_t lane;
	uint64_t tid;
};

/* -1, 0 or 1 as a < b, a == b, a > b. */
static int cmp_num(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/* The order of threads: rank, track, sub-track. */
static int cmp_where(uint32_t ra, uint32_t ta, uint64_t sa, uint32_t rb, uint32_t tb, uint64_t sb)
{
	int c = cmp_num(ra, rb);

	if (!c)
		c = cmp_num(ta, tb);
	return c ? c : cmp_num(sa, sb);
}

/* qsort() and bsearch() order of struct thread_key. */
static int cmp_thread(const void *a, const void *b)
{
	const struct thread_key *x = a, *y = b;
	int c = cmp_where(x->rank, x->track, x->sub, y->rank, y->track, y->sub);

	return c ? c : cmp_num(x->lane, y->lane);
}

/* Sub-track of an event: the NIC's slices by (QP, kind), all else 0. */
static uint64_t event_sub(const struct cc_trace_event *e)
{
	uint64_t q = e->qp == CC_TRACE_NONE ? 0 : (uint64_t)e->qp + 1;

	if (e->track != CC_TRACE_NIC || !e->dur_ps)
		return 0;
	return 1 + q * CC_TRACE_KIND_COUNT + (uint64_t)e->kind;
}

struct layout {
	uint64_t *sub;           /* per event */
	uint32_t *lane;          /* per event */
	struct thread_key *keys; /* sorted, unique */
	size_t nkeys;
};

static void layout_free(struct layout *l)
{
	free(l->sub);
	free(l->lane);
	free(l->keys);
}

/* A slice as lanes are given: by thread, start, longer first (an
 * enclosing slice before what it encloses), then recorded order.  The keys
 * are copied in, so that qsort needs no context (cclab tune writes from
 * threads). */
struct slice {
	uint64_t sub, t, end;
	uint32_t rank, track;
	size_t i;
};

static int cmp_slice(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;
	int c = cmp_where(x->rank, x->track, x->sub, y->rank, y->track, y->sub);

	if (!c)
		c = cmp_num(x->t, y->t);
	if (!c)
		c = cmp_num(y->end, x->end); /* longer first */
	return c ? c : cmp_num(x->i, y->i);
}

/* One stack of open slices' ends per lane. */
struct lane_stack {
	uint64_t *end;
	size_t n, cap;
};

/* The lane of the slice [t, end): the first whose open slices it nests in
 * or follows.  Returns the lane, or -ENOMEM. */
static int64_t place(struct lane_stack **lanes, size_t *nlanes, size_t *cap, uint64_t t,
		     uint64_t end)
{
	size_t l;

	for (l = 0; l < *nlanes; l++) {
		struct lane_stack *s = &(*lanes)[l];

		while (s->n && s->end[s->n - 1] <= t)
			s->n--;
		if (!s->n || s->end[s->n - 1] >= end)
			break;
	}
	if (l == *nlanes) {
		if (*nlanes == *cap) {
			size_t c = *cap ? *cap * 2 : 4;
			struct lane_stack *p = realloc(*lanes, c * sizeof(*p));

			if (!p)
				return -ENOMEM;
			memset(p + *cap, 0, (c - *cap) * sizeof(*p));
			*lanes = p;
			*cap = c;
		}
		(*lanes)[(*nlanes)++].n = 0;
	}
	struct lane_stack *s = &(*lanes)[l];
	if (s->n == s->cap) {
		size_t c = s->cap ? s->cap * 2 : 8;
		uint64_t *p = realloc(s->end, c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->end = p;
		s->cap = c;
	}
	s->end[s->n++] = end;
	return (int64_t)l;
}

/* Gives every slice its lane (every event a sub-track first). */
static int assign_lanes(const struct cc_trace *t, struct layout *lo)
{
	struct lane_stack *lanes = NULL;
	size_t nlanes = 0, cap = 0, ns = 0;
	struct slice *sl;
	int err = 0;

	for (size_t i = 0; i < t->n; i++) {
		lo->sub[i] = event_sub(&t->ev[i]);
		lo->lane[i] = 0;
		ns += t->ev[i].dur_ps != 0;
	}
	if (!ns)
		return 0;
	sl = malloc(ns * sizeof(*sl));
	if (!sl)
		return -ENOMEM;
	ns = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct cc_trace_event *e = &t->ev[i];

		if (e->dur_ps)
			sl[ns++] = (struct slice){ lo->sub[i], e->t_ps, e->t_ps + e->dur_ps, e->rank,
						   (uint32_t)e->track, i };
	}
	qsort(sl, ns, sizeof(*sl), cmp_slice);
	for (size_t k = 0; k < ns && !err; k++) {
		int64_t l;

		if (k && cmp_where(sl[k].rank, sl[k].track, sl[k].sub, sl[k - 1].rank,
				   sl[k - 1].track, sl[k - 1].sub))
			nlanes = 0; /* a new thread */
		l = place(&lanes, &nlanes, &cap, sl[k].t, sl[k].end);
		if (l < 0)
			err = (int)l;
		else
			lo->lane[sl[k].i] = (uint32_t)l;
	}
	for (size_t l = 0; l < cap; l++)
		free(lanes[l].end);
	free(lanes);
	free(sl);
	return err;
}

/* The threads in use, sorted and unique, with their tids. */
static int layout_build(const struct cc_trace *t, struct layout *lo)
{
	size_t n = 0, u = 0;
	uint64_t extra = 0;
	uint32_t rank = 0;
	int err;

	memset(lo, 0, sizeof(*lo));
	if (!t->n)
		return 0;
	lo->sub = malloc(t->n * sizeof(*lo->sub));
	lo->lane = malloc(t->n * sizeof(*lo->lane));
	lo->keys = malloc(t->n * sizeof(*lo->keys));
	if (!lo->sub || !lo->lane || !lo->keys) {
		layout_free(lo);
		return -ENOMEM;
	}
	err = assign_lanes(t, lo);
	if (err) {
		layout_free(lo);
		return err;
	}
	/* Consecutive repeats are skipped while collecting, since a recorder
	 * tends to emit runs of events on one track. */
	for (size_t i = 0; i < t->n; i++) {
		struct thread_key k = { t->ev[i].rank, (uint32_t)t->ev[i].track, lo->sub[i],
					lo->lane[i], 0 };

		if (!n || cmp_thread(&lo->keys[n - 1], &k))
			lo->keys[n++] = k;
	}
	qsort(lo->keys, n, sizeof(*lo->keys), cmp_thread);
	for (size_t i = 0; i < n; i++) {
		struct thread_key *k = &lo->keys[i];

		if (u && !cmp_thread(&lo->keys[u - 1], k))
			continue;
		if (!u || k->rank != rank) {
			rank = k->rank;
			extra = 0;
		}
		k->tid = !k->sub && !k->lane ? (uint64_t)k->track + 1 : (UINT64_C(1) << 30) + extra++;
		lo->keys[u++] = *k;
	}
	lo->nkeys = u;
	return 0;
}

static uint64_t event_tid(const struct layout *lo, const struct cc_trace_event *e, size_t i)
{
	struct thread_key k = { e->rank, (uint32_t)e->track, lo->sub[i], lo->lane[i], 0 };
	const struct thread_key *f;

	if (!k.sub && !k.lane)
		return (uint64_t)(uint32_t)e->track + 1;
	f = bsearch(&k, lo->keys, lo->nkeys, sizeof(k), cmp_thread);
	return f->tid; /* every event's key was collected */
}

/* "nic", "nic qp1 dma_read", "nic qp1 dma_read #2". */
static void thread_name(const struct thread_key *k, char *buf, size_t len)
{
	char track[CC_TRACE_TRACK_NAME_LEN];
	int n;

	cc_trace_track_name((enum cc_trace_track)k->track, track, sizeof(track));
	n = snprintf(buf, len, "%s", track);
	if (k->sub) {
		uint64_t q = (k->sub - 1) / CC_TRACE_KIND_COUNT;
		const char *kind = cc_trace_kind_name[(k->sub - 1) % CC_TRACE_KIND_COUNT];

		if (q)
			n += snprintf(buf + n, len - (size_t)n, " qp%" PRIu64 " %s", q - 1, kind);
		else
			n += snprintf(buf + n, len - (size_t)n, " %s", kind);
	}
	if (k->lane)
		snprintf(buf + n, len - (size_t)n, " #%" PRIu32, k->lane + 1);
}

static int chrome_metadata(FILE *f, const struct layout *lo, bool *first)
{
	char name[80];

	for (size_t i = 0; i < lo->nkeys; i++) {
		const struct thread_key *k = &lo->keys[i];
		uint64_t pid = (uint64_t)k->rank + 1;

		if ((i == 0 || lo->keys[i - 1].rank != k->rank) &&
		    fprintf(f, "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%" PRIu64
			    ",\"tid\":1,\"args\":{\"name\":\"rank %" PRIu32 "\"}}",
			    *first ? "\n" : ",\n", pid, k->rank) < 0)
			return write_err();
		*first = false;
		thread_name(k, name, sizeof(name));
		if (fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%" PRIu64
			    ",\"tid\":%" PRIu64 ",\"args\":{\"name\":\"%s\"}}",
			    pid, k->tid, name) < 0)
			return write_err();
	}
	return 0;
}

/* The op's name for a viewer: "post_send RDMA_WRITE_WITH_IMM", "reduce". */
static const char *op_name(const struct cc_trace_event *e, char *buf, size_t len)
{
	if (e->op_kind >= CC_OP_KIND_COUNT)
		return "?";
	if (e->op_kind != CC_OP_POST_SEND || e->opcode >= CC_OPCODE_COUNT)
		return cc_op_kind_name[e->op_kind];
	snprintf(buf, len, "%s %s", cc_op_kind_name[e->op_kind], cc_opcode_name[e->opcode]);
	return buf;
}

static int chrome_event(FILE *f, const struct cc_trace_event *e, uint64_t tid, bool first)
{
	char ts[CC_TRACE_US_LEN], dur[CC_TRACE_US_LEN], name[48];
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
		    ",\"wr_id\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"op\":%" PRId64,
		    (uint64_t)e->rank + 1, tid, id_or_none(e->qp), e->wr_id, e->bytes,
		    id_or_none(e->op));
	if (n >= 0 && e->op != CC_TRACE_NONE)
		n = fprintf(f, ",\"op_name\":\"%s\"", op_name(e, name, sizeof(name)));
	if (n >= 0)
		n = fprintf(f, ",\"prim\":\"%s\",\"channel\":%u,\"chunk\":%" PRIu32
			    ",\"step\":%" PRIu32 ",\"slice\":%" PRIu32 "}}",
			    cc_prim_name[e->tag.prim], (unsigned)e->tag.channel, e->tag.chunk,
			    e->tag.step, e->tag.slice);
	return n < 0 ? write_err() : 0;
}

static int chrome_body(FILE *f, const struct cc_trace *t, const struct layout *lo)
{
	bool first = true;
	int err;

	if (fputs("{\"traceEvents\":[", f) < 0)
		return write_err();
	err = chrome_metadata(f, lo, &first);
	if (err)
		return err;
	for (size_t i = 0; i < t->n; i++) {
		err = chrome_event(f, &t->ev[i], event_tid(lo, &t->ev[i], i), first);
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
	struct layout lo;
	int err;

	err = check_events(t);
	if (err)
		return err;
	err = layout_build(t, &lo);
	if (err)
		return err;
	err = cc_atomic_open(&af, path);
	if (err) {
		layout_free(&lo);
		return err;
	}
	errno = 0;
	err = chrome_body(af.f, t, &lo);
	layout_free(&lo);
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
