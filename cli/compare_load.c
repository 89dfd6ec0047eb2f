/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/compare_load.c — reads the --json result files of `cclab sim` and
 * `cclab run` for `cclab compare` (cli/compare.h), and says whether two
 * of them compare.
 *
 * Read as JSON (cli/json_read.h), every complaint with file:line:col.
 * Only the keys compare
 * uses are checked; any other key is ignored, because the files grow with
 * every executor and a newer file must still compare. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/compare.h"
#include "cli/json_read.h"

#define WHAT "the result file"
/* What compare reads, after "this is <another kind of file>: ". */
#define READS "compare reads the --json of `cclab sim` or `cclab run`"

/* A number a run can have written at e's key: above 0 (`positive`) or at
 * least 0; null (NaN) passes, it is "unknown". */
static int in_range(const struct cy_node *e, const char *key, double v, bool positive,
		    const char *why, struct cy_error *err)
{
	if (isnan(v) || v > 0 || (!positive && v == 0))
		return 0;
	return cy_fail(err, cy_get(e, key), "'%s' is %s: %s", key, cy_get(e, key)->str, why);
}

/* Times and rates no run can produce are a broken file, not a result to
 * put in a table: -5 us would pass --max-error as a huge speed-up, and 0
 * would make every error N/A.  A size that did not complete may say 0
 * (`cclab sim` writes the time at which it stopped); its time is not
 * compared. */
static int check_times(const struct cy_node *e, const struct cmp_size *s, struct cy_error *err)
{
	bool ok = !strcmp(s->status, "ok");
	int rc;

	if ((rc = in_range(e, "time_us", s->time_us, ok, ok ? "a size whose status is ok took "
			   "more than 0 us" : "a time cannot be negative", err)) ||
	    (rc = in_range(e, "busbw_gbps", s->busbw, false, "a bandwidth cannot be negative",
			   err)) ||
	    (rc = in_range(e, "time_min_us", s->time_min_us, true, "an iteration takes more "
			   "than 0 us", err)) ||
	    (rc = in_range(e, "time_max_us", s->time_max_us, true, "an iteration takes more "
			   "than 0 us", err)) ||
	    (rc = in_range(e, "bound_us", s->bound_us, false, "a lower bound cannot be negative",
			   err)))
		return rc;
	if (s->time_min_us > s->time_max_us)
		return cy_fail(err, cy_get(e, "time_min_us"), "'time_min_us' (%s) is above "
			       "'time_max_us' (%s)", cy_get(e, "time_min_us")->str,
			       cy_get(e, "time_max_us")->str);
	return 0;
}

static int load_size(const struct cy_node *e, struct cmp_size *s, struct cy_error *err)
{
	const struct cy_node *w;
	int rc;

	if (e->kind != CY_MAP)
		return cy_fail(err, e, "expected a size entry (a mapping with 'bytes', "
				       "'time_us', ...), found %s", cy_kind_name(e));
	if ((rc = cli_json_uint(e, "a size entry", "bytes", 0, &s->bytes, err)) ||
	    (rc = cli_json_uint(e, "a size entry", "count", 0, &s->count, err)) ||
	    (rc = cli_json_string(e, "a size entry", "dtype", &s->dtype, err)) ||
	    (rc = cli_json_string(e, "a size entry", "redop", &s->redop, err)) ||
	    (rc = cli_json_string(e, "a size entry", "status", &s->status, err)) ||
	    (rc = cli_json_number(e, "time_us", true, &s->time_us, err)) ||
	    (rc = cli_json_number(e, "busbw_gbps", true, &s->busbw, err)) ||
	    (rc = cli_json_number(e, "time_min_us", false, &s->time_min_us, err)) ||
	    (rc = cli_json_number(e, "time_max_us", false, &s->time_max_us, err)) ||
	    (rc = cli_json_number(e, "bound_us", false, &s->bound_us, err)) ||
	    (rc = cy_require(e, "a size entry", "wrong", &w, err)))
		return rc;
	s->wrong_known = !cli_json_is_null(w);
	if (s->wrong_known && (rc = cy_uint(w, "wrong", 0, UINT64_MAX, &s->wrong, err)))
		return rc;
	if ((rc = check_times(e, s, err)))
		return rc;
	/* Each size's chunk (files before it had only the header's). */
	if ((w = cy_get(e, "chunk_bytes")) &&
	    (rc = cy_uint(w, "chunk_bytes", 1, UINT64_MAX, &s->chunk_bytes, err)))
		return rc;
	return 0;
}

/* The first size both files ran with a different chunk (the tree's is
 * NCCL's per size: the header's chunk_bytes does not show it), or NULL
 * when they agree or a file does not say. */
static const struct cmp_size *chunk_differs(const struct cmp_file *m, const struct cmp_file *p,
					    const struct cmp_size **ps)
{
	for (size_t i = 0; i < m->nsizes; i++) {
		const struct cmp_size *q = cmp_file_find(p, m->sizes[i].bytes);

		if (q && m->sizes[i].chunk_bytes && q->chunk_bytes &&
		    m->sizes[i].chunk_bytes != q->chunk_bytes) {
			*ps = q;
			return &m->sizes[i];
		}
	}
	return NULL;
}

/* Where the run ran: the simulator's fabric by name, the verbs executor's
 * device; a file with neither (or null) still compares, shown as "?". */
static int load_where(struct cmp_file *f, const struct cy_node *root, struct cy_error *err)
{
	const struct cy_node *fab = cy_get(root, "fabric"), *dev = cy_get(root, "device");

	f->where = "?";
	if (fab && !cli_json_is_null(fab)) {
		if (fab->kind != CY_MAP)
			return cy_fail(err, fab, "'fabric': expected a mapping with 'name', found %s",
				       cy_kind_name(fab));
		return cli_json_string(fab, "'fabric'", "name", &f->where, err);
	}
	if (dev && !cli_json_is_null(dev))
		return cy_string(dev, "device", &f->where, err);
	return 0;
}

static int load_sizes(struct cmp_file *f, const struct cy_node *root, struct cy_error *err)
{
	const struct cy_node *seq;
	int rc = cy_require(root, WHAT, "sizes", &seq, err);

	if (rc)
		return rc;
	if (seq->kind != CY_SEQ)
		return cy_fail(err, seq, "'sizes': expected a list of size entries, found %s",
			       cy_kind_name(seq));
	if (!seq->n)
		return cy_fail(err, seq, "'sizes' is empty: the run measured no size");
	f->sizes = calloc(seq->n, sizeof(*f->sizes));
	if (!f->sizes) {
		snprintf(err->msg, sizeof(err->msg), "%s: out of memory", f->path);
		return -ENOMEM;
	}
	for (size_t i = 0; i < seq->n; i++) {
		if ((rc = load_size(seq->vals[i], &f->sizes[i], err)))
			return rc;
		/* Matching is by size: a second entry for one would be ambiguous. */
		for (size_t j = 0; j < i; j++)
			if (f->sizes[j].bytes == f->sizes[i].bytes)
				return cy_fail(err, seq->vals[i], "size %llu bytes appears twice "
					       "in 'sizes'", (unsigned long long)f->sizes[i].bytes);
		f->nsizes = i + 1;
	}
	return 0;
}

/* Another command's file is named for what it is ("this is a `cclab p2p
 * --json` result"), not for the first key it lacks.  A mapping with
 * 'sizes' but no 'command' goes on to the key checks, which name what is
 * missing or wrong. */
static int kind_of(const struct cy_node *root, struct cy_error *err)
{
	const struct cy_node *at;
	char what[256];
	const char *reads = READS;

	switch (cli_json_kind(root, what, sizeof(what), &at)) {
	case CLI_JSON_COLLECTIVE:
		return 0;
	case CLI_JSON_NOT_CCLAB:
		if (root && root->kind == CY_MAP && cy_get(root, "sizes") &&
		    !cy_get(root, "topology") && !cy_get(root, "preset") && !cy_get(root, "command"))
			return 0;
		break;
	case CLI_JSON_CHECK:
		return cy_fail(err, at, "this is %s: there is nothing to compare; %s (the sim or verbs "
			       "executor)", what, reads);
	case CLI_JSON_P2P:
		return cy_fail(err, at, "this is %s, not a collective's: %s (`cclab calibrate` fits "
			       "p2p results)", what, reads);
	default:
		break;
	}
	return cy_fail(err, at, "this is %s: %s", what, reads);
}

static int load(struct cmp_file *f, struct cy_error *err)
{
	const struct cy_node *root = f->doc.root;
	const char *const str_keys[] = {"command", "executor", "collective", "transport",
					"dtype", "redop", "memory"};
	const char **const str_out[] = {&f->command, &f->executor, &f->collective, &f->transport,
					&f->dtype, &f->redop, &f->memory};
	int rc;

	if ((rc = kind_of(root, err)))
		return rc;
	/* 'sizes' first: a file without it is not a result file at all, and
	 * that is the most useful thing to say about it. */
	if ((rc = load_sizes(f, root, err)))
		return rc;
	for (size_t i = 0; i < sizeof(str_keys) / sizeof(str_keys[0]); i++)
		if ((rc = cli_json_string(root, WHAT, str_keys[i], str_out[i], err)))
			return rc;
	/* Every size of a run has its type and operator: one that differs
	 * is a file put together by hand, and its row would be mislabelled. */
	for (size_t i = 0; i < f->nsizes; i++) {
		const struct cy_node *e = cy_get(root, "sizes")->vals[i];

		if (strcmp(f->sizes[i].dtype, f->dtype) || strcmp(f->sizes[i].redop, f->redop))
			return cy_fail(err, e, "size %" PRIu64 " bytes is %s/%s, but the file's "
				       "dtype/redop are %s/%s", f->sizes[i].bytes, f->sizes[i].dtype,
				       f->sizes[i].redop, f->dtype, f->redop);
	}
	if ((rc = cli_json_uint(root, WHAT, "nranks", 1, &f->nranks, err)) ||
	    (rc = cli_json_uint(root, WHAT, "chunk_bytes", 0, &f->chunk_bytes, err)) ||
	    (rc = cli_json_uint(root, WHAT, "slot_bytes", 0, &f->slot_bytes, err)) ||
	    (rc = cli_json_uint(root, WHAT, "nslots", 0, &f->nslots, err)))
		return rc;
	return load_where(f, root, err);
}

/* After the document is read (rc its loader's): its keys, or nothing kept. */
static int load_doc(struct cmp_file *f, int rc, struct cy_error *err)
{
	if (!rc && (rc = load(f, err)))
		cmp_file_free(f);
	return rc;
}

int cmp_file_load(const char *path, struct cmp_file *f, struct cy_error *err)
{
	memset(f, 0, sizeof(*f));
	f->path = path;
	return load_doc(f, cli_json_load_file(path, READS, &f->doc, err), err);
}

int cmp_file_parse(const char *name, const char *text, size_t len, struct cmp_file *f,
		   struct cy_error *err)
{
	memset(f, 0, sizeof(*f));
	f->path = name;
	return load_doc(f, cli_json_load_string(name, text, len, READS, &f->doc, err), err);
}

void cmp_file_free(struct cmp_file *f)
{
	free(f->sizes);
	f->sizes = NULL;
	f->nsizes = 0;
	cy_free(&f->doc);
}

/* Keys of the run's set-up that only some writers have (older files lack
 * them): compared when both files say, each difference a warning. */
static void warn_optional(const struct cmp_file *m, const struct cmp_file *p)
{
	static const char *const keys[] = {"algorithm", "protocol", "nchannels", "ranks_per_node",
					   "ring_order", "stage_memory", "root", "in_place"};
	char a[48], b[48];

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const struct cy_node *x = cy_get(m->doc.root, keys[i]), *y = cy_get(p->doc.root, keys[i]);

		if (x && y && x->kind == CY_SCALAR && y->kind == CY_SCALAR && strcmp(x->str, y->str))
			fprintf(stderr, "cclab compare: %s differs: measured %s, predicted %s\n", keys[i],
				cli_json_shown(x->str, 32, a, sizeof(a)),
				cli_json_shown(y->str, 32, b, sizeof(b)));
	}
}

int cmp_check_comparable(const struct cmp_file *m, const struct cmp_file *p)
{
	const char *const must[] = {"collective", "dtype", "redop"};
	const char *const mv[] = {m->collective, m->dtype, m->redop};
	const char *const pv[] = {p->collective, p->dtype, p->redop};
	const char *const may[] = {"transport", "memory"};
	const char *const mw[] = {m->transport, m->memory}, *const pw[] = {p->transport, p->memory};
	const char *const nums[] = {"chunk_bytes", "slot_bytes", "nslots"};
	const uint64_t mn[] = {m->chunk_bytes, m->slot_bytes, m->nslots};
	const uint64_t pn[] = {p->chunk_bytes, p->slot_bytes, p->nslots};
	char a[48], b[48];
	int differ = 0;

	/* Every key that differs, not only the first: an 8-rank allgather
	 * beside a 4-rank allreduce is two mistakes, and the user should see
	 * both before running anything again. */
	for (int i = 0; i < 3; i++) {
		if (!strcmp(mv[i], pv[i]))
			continue;
		differ++;
		fprintf(stderr, "cclab compare: %s differs: measured %s (%s), predicted %s (%s)\n",
			must[i], cli_json_shown(mv[i], 32, a, sizeof(a)), m->path,
			cli_json_shown(pv[i], 32, b, sizeof(b)), p->path);
	}
	if (m->nranks != p->nranks) {
		differ++;
		fprintf(stderr, "cclab compare: nranks differs: measured %" PRIu64 " (%s), predicted %"
			PRIu64 " (%s)\n", m->nranks, m->path, p->nranks, p->path);
	}
	if (differ) {
		fprintf(stderr, "cclab compare: only runs of the same collective, nranks, dtype and "
			"redop compare\n");
		return CLI_EXIT_USAGE;
	}
	for (int i = 0; i < 2; i++)
		if (strcmp(mw[i], pw[i]))
			fprintf(stderr, "cclab compare: %s differs: measured %s, predicted %s\n", may[i],
				cli_json_shown(mw[i], 32, a, sizeof(a)),
				cli_json_shown(pw[i], 32, b, sizeof(b)));
	const struct cmp_size *ms, *ps = NULL;

	for (int i = 0; i < 3; i++)
		if (mn[i] != pn[i])
			fprintf(stderr, "cclab compare: %s differs: measured %" PRIu64 ", predicted %"
				PRIu64 "\n", nums[i], mn[i], pn[i]);
	if ((ms = chunk_differs(m, p, &ps)))
		fprintf(stderr, "cclab compare: chunk_bytes differs at %" PRIu64 " bytes: measured %"
			PRIu64 ", predicted %" PRIu64 "\n", ms->bytes, ms->chunk_bytes, ps->chunk_bytes);
	warn_optional(m, p);
	return CLI_EXIT_OK;
}

const struct cmp_size *cmp_file_find(const struct cmp_file *f, uint64_t bytes)
{
	for (size_t i = 0; i < f->nsizes; i++)
		if (f->sizes[i].bytes == bytes)
			return &f->sizes[i];
	return NULL;
}

bool cmp_error_pct(double measured, double predicted, double *pct)
{
	if (!(measured > 0) || !isfinite(measured) || !isfinite(predicted))
		return false;
	*pct = (predicted - measured) / measured * 100.0;
	return isfinite(*pct);
}
