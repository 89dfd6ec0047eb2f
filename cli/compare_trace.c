/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/compare_trace.c — the per-phase part of `cclab compare`: reads a
 * trace CSV file (core/trace.h cc_trace_write_csv) and reduces it to where
 * the time of its size went, step by step and mechanism by mechanism
 * (docs/compare.md gives the definitions; cli/compare_phases.c prints).
 *
 * Each line is parsed strictly — the writer is ours, so anything else is a
 * wrong file, reported as file:line — and reduced at once to small keys:
 * a verbs trace of a large size holds millions of events. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/compare.h"
#include "core/schedule.h"
#include "core/trace.h"
#include "util/files.h"

#define HEADER "t_ps,dur_ps,kind,rank,track,qp,wr_id,bytes,op,prim,channel,chunk,step,slice"
enum { F_T, F_DUR, F_KIND, F_RANK, F_TRACK, F_QP, F_WR, F_BYTES, F_OP, F_PRIM, F_CHAN,
       F_CHUNK, F_STEP, F_SLICE, NFIELDS };
static const char *const field_name[NFIELDS] = {
	"t_ps", "dur_ps", "kind", "rank", "track", "qp", "wr_id", "bytes", "op", "prim",
	"channel", "chunk", "step", "slice",
};

/* An event reduced to what a join or a group needs: k, then t, order it.
 * post, cqe, poll: k = (rank, op or qp, 0 or wr_id) at t;
 * a primitive's event: k = (step, rank, channel << 32 | loop), t .. end. */
struct key {
	uint64_t k[3], t, end;
	unsigned prim;
};

struct keys {
	struct key *v;
	size_t n, cap;
};

/* Event pairs to join: post and cqe by (rank, op); cqe and poll by
 * (rank, qp, wr_id), since a poll event carries the poll op's index but
 * the reaped WQE's QP and wr_id (sim/exec.c, backend/verbs_exec.c). */
enum { K_POST, K_CQE_OP, K_CQE_WR, K_POLL, K_STEP, NKEYS };

struct reader {
	const char *path;
	unsigned long line;
	struct keys k[NKEYS];
	struct cmp_phases *ph;
	uint64_t nranks;
};

static int push(struct keys *k, struct key e)
{
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 1024;
		struct key *v = realloc(k->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		k->v = v;
		k->cap = cap;
	}
	k->v[k->n++] = e;
	return 0;
}

static int bad(const struct reader *r, int f, const char *val, const char *what)
{
	fprintf(stderr, "cclab compare: %s:%lu: column '%s': '%.40s' is not %s\n", r->path, r->line,
		field_name[f], val, what);
	return CLI_EXIT_USAGE;
}

/* Decimal digits only, no sign or space: what the writer prints. */
static bool parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return true;
}

static bool parse_name(const char *s, const char *const *tab, unsigned n, unsigned *out)
{
	for (unsigned i = 0; i < n; i++)
		if (tab[i] && !strcmp(s, tab[i])) {
			*out = i;
			return true;
		}
	return false;
}

/* One event line, split in place. */
static int parse_line(struct reader *r, char *line)
{
	char *f[NFIELDS];
	uint64_t u[NFIELDS] = {0};
	unsigned n = 0, kind, prim;

	for (char *p = line;; p++) {
		if (n < NFIELDS)
			f[n] = p;
		n++;
		p = strchr(p, ',');
		if (!p)
			break;
		*p = '\0';
	}
	if (n != NFIELDS) {
		fprintf(stderr, "cclab compare: %s:%lu: expected %d comma-separated fields, found %u\n",
			r->path, r->line, NFIELDS, n);
		return CLI_EXIT_USAGE;
	}
	for (int i = 0; i < NFIELDS; i++) {
		if (i == F_KIND || i == F_TRACK || i == F_PRIM)
			continue;
		if ((i == F_QP || i == F_OP) && !strcmp(f[i], "-1"))
			u[i] = CC_TRACE_NONE; /* "no QP", "no op" */
		else if (!parse_u64(f[i], &u[i]) ||
			 (i != F_T && i != F_DUR && i != F_WR && i != F_BYTES && u[i] > UINT32_MAX))
			return bad(r, i, f[i], "a whole number in range");
	}
	if (!parse_name(f[F_KIND], cc_trace_kind_name, CC_TRACE_KIND_COUNT, &kind))
		return bad(r, F_KIND, f[F_KIND], "an event kind (post, cqe, ...)");
	if (!parse_name(f[F_PRIM], cc_prim_name, CC_PRIM_COUNT, &prim))
		return bad(r, F_PRIM, f[F_PRIM], "a primitive (-, send, recvReduceSend, ...)");
	if (!*f[F_TRACK])
		return bad(r, F_TRACK, f[F_TRACK], "a track (cpu, gpu, nic, portN)");
	if (u[F_T] > UINT64_MAX - u[F_DUR])
		return bad(r, F_DUR, f[F_DUR], "a duration that ends in range");
	/* A rank the run does not have: a trace of another run, or an edited
	 * one; its events would be averaged in as if they were this run's. */
	if (u[F_RANK] >= r->nranks) {
		fprintf(stderr, "cclab compare: %s:%lu: column 'rank': %" PRIu64 " is not a rank of "
			"this run (the result files say %" PRIu64 " ranks: 0..%" PRIu64 ")\n", r->path,
			r->line, u[F_RANK], r->nranks, r->nranks - 1);
		return CLI_EXIT_USAGE;
	}

	uint64_t rank = u[F_RANK], t = u[F_T], op = u[F_OP], qp = u[F_QP], wr = u[F_WR];
	int mech = kind == CC_TRACE_DOORBELL ? CMP_DOORBELL : kind == CC_TRACE_REDUCE_BEGIN
		   ? CMP_REDUCE : kind == CC_TRACE_COPY_BEGIN ? CMP_COPY : -1;
	int rc = 0;

	/* The _begin event of a reduce or copy carries its whole duration. */
	if (mech >= 0) {
		r->ph->mech[mech].count++;
		r->ph->mech[mech].sum_ps += (double)u[F_DUR];
	}

	/* The chunk is global, loop * nranks + chunk in the loop
	 * (core/schedule.h): a step's span is one loop's, not from the first
	 * loop's start to the last loop's end. */
	if (prim != CC_PRIM_NONE)
		rc = push(&r->k[K_STEP], (struct key){ { u[F_STEP], rank, u[F_CHAN] << 32 |
							 u[F_CHUNK] / r->nranks }, t,
							t + u[F_DUR], prim });
	if (!rc && kind == CC_TRACE_POST && op != CC_TRACE_NONE)
		rc = push(&r->k[K_POST], (struct key){ { rank, op, 0 }, t, t, 0 });
	if (!rc && kind == CC_TRACE_CQE && op != CC_TRACE_NONE)
		rc = push(&r->k[K_CQE_OP], (struct key){ { rank, op, 0 }, t, t, 0 });
	if (!rc && kind == CC_TRACE_CQE)
		rc = push(&r->k[K_CQE_WR], (struct key){ { rank, qp, wr }, t, t, 0 });
	if (!rc && kind == CC_TRACE_POLL)
		rc = push(&r->k[K_POLL], (struct key){ { rank, qp, wr }, t, t, 0 });
	if (rc) {
		fprintf(stderr, "cclab compare: %s: out of memory\n", r->path);
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}

static int key_cmp(const void *pa, const void *pb)
{
	const struct key *a = pa, *b = pb;

	for (int i = 0; i < 3; i++)
		if (a->k[i] != b->k[i])
			return a->k[i] < b->k[i] ? -1 : 1;
	return a->t < b->t ? -1 : a->t > b->t;
}

/* qsort() with no elements may still not be given NULL (C11 7.22.5). */
static void sort_keys(struct keys *k)
{
	if (k->n)
		qsort(k->v, k->n, sizeof(*k->v), key_cmp);
}

static int same(const struct key *a, const struct key *b)
{
	return a->k[0] == b->k[0] && a->k[1] == b->k[1] && a->k[2] == b->k[2];
}

/* Pairs equal keys of two sorted lists in order, adding to.t - from.t. */
static void join(struct keys *from, struct keys *to, uint64_t *count, double *sum)
{
	size_t i = 0, j = 0;

	sort_keys(from);
	sort_keys(to);
	while (i < from->n && j < to->n) {
		struct key a = from->v[i], b = to->v[j];

		if (same(&a, &b)) {
			/* Signed: the verbs executor's CQE time may come from the
			 * NIC's clock, which need not agree to the ns with ours. */
			*sum += (double)b.t - (double)a.t;
			++*count;
			i++, j++;
		} else if (key_cmp(&a, &b) < 0) {
			i++;
		} else {
			j++;
		}
	}
}

/* Per (rank, channel, loop) of a step, the span is max end - min start;
 * the step's figure is their mean. */
static int steps(struct keys *k, struct cmp_phases *ph)
{
	sort_keys(k);
	for (size_t i = 0; i < k->n;) {
		uint64_t step = k->v[i].k[0], nprim[CC_PRIM_COUNT] = {0}, ngroups = 0;
		double sum = 0;

		while (i < k->n && k->v[i].k[0] == step) {
			const struct key *g = &k->v[i];
			uint64_t lo = UINT64_MAX, hi = 0;

			for (; i < k->n && same(&k->v[i], g); i++) {
				lo = k->v[i].t < lo ? k->v[i].t : lo;
				hi = k->v[i].end > hi ? k->v[i].end : hi;
				nprim[k->v[i].prim]++;
			}
			sum += (double)(hi - lo);
			ngroups++;
		}
		struct cmp_step *s = realloc(ph->steps, (ph->nsteps + 1) * sizeof(*s));

		if (!s)
			return -ENOMEM;
		ph->steps = s;
		s = &s[ph->nsteps++];
		s->step = (uint32_t)step;
		s->prim = 1;
		for (unsigned p = 2; p < CC_PRIM_COUNT; p++) /* ties: the first in enum order */
			if (nprim[p] > nprim[s->prim])
				s->prim = p;
		s->span_us = sum / (double)ngroups / 1e6;
	}
	return 0;
}

static int read_all(FILE *f, struct reader *r, struct cmp_phases *ph)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = CLI_EXIT_OK;

	while (rc == CLI_EXIT_OK && (len = getline(&line, &cap, f)) >= 0) {
		r->line++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (r->line == 1) {
			if (strcmp(line, HEADER)) {
				fprintf(stderr, "cclab compare: %s:1: not a trace CSV of cclab (expected "
					"the header %s; write one with --trace FILE.csv)\n", r->path,
					HEADER);
				rc = CLI_EXIT_USAGE;
			}
			continue;
		}
		rc = parse_line(r, line);
		ph->nevents++;
	}
	if (rc == CLI_EXIT_OK && ferror(f)) {
		fprintf(stderr, "cclab compare: cannot read '%s': %s\n", r->path, strerror(errno));
		rc = CLI_EXIT_USAGE;
	}
	free(line);
	if (rc == CLI_EXIT_OK && !ph->nevents) {
		fprintf(stderr, "cclab compare: %s: the trace holds no events\n", r->path);
		rc = CLI_EXIT_USAGE;
	}
	return rc;
}

int cmp_phases_load(const char *path, uint64_t nranks, struct cmp_phases *ph)
{
	struct reader r = { .path = path, .ph = ph, .nranks = nranks ? nranks : 1 };
	FILE *f = NULL;
	int rc, fd;

	memset(ph, 0, sizeof(*ph));
	ph->path = path;
	if ((rc = cc_input_open(path, &fd)) || !(f = fdopen(fd, "r"))) {
		if (!rc) {
			rc = -errno;
			close(fd);
		}
		fprintf(stderr, "cclab compare: cannot read '%s': %s\n", path, cc_file_strerror(rc));
		return CLI_EXIT_USAGE;
	}
	rc = read_all(f, &r, ph);
	fclose(f);
	if (rc == CLI_EXIT_OK) {
		join(&r.k[K_POST], &r.k[K_CQE_OP], &ph->mech[CMP_POST_CQE].count,
		     &ph->mech[CMP_POST_CQE].sum_ps);
		join(&r.k[K_CQE_WR], &r.k[K_POLL], &ph->mech[CMP_CQE_POLL].count,
		     &ph->mech[CMP_CQE_POLL].sum_ps);
		if (steps(&r.k[K_STEP], ph)) {
			fprintf(stderr, "cclab compare: %s: out of memory\n", path);
			rc = CLI_EXIT_FAIL;
		}
	}
	for (int i = 0; i < NKEYS; i++)
		free(r.k[i].v);
	if (rc)
		cmp_phases_free(ph);
	return rc;
}

void cmp_phases_free(struct cmp_phases *ph)
{
	free(ph->steps);
	ph->steps = NULL;
	ph->nsteps = 0;
}
