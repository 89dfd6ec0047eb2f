/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/cmd_compare.c — `cclab compare MEASURED.json PREDICTED.json`: a
 * measured result file (`cclab run` on real devices) beside a predicted
 * one (`cclab sim`), size by size, and with two traces phase by phase
 * (docs/compare.md).
 *
 * Everything that can be wrong with the input — arguments, files, traces,
 * the --csv path — is found before the first line of the table, so a
 * failed compare prints one message and no half table (only a disk that
 * fills while the CSV is written can fail later). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/compare.h"
#include "core/algo.h"
#include "core/results.h"
#include "util/atomic_file.h"

static const char *const side[2] = {"measured", "predicted"};

static int by_bytes(const void *a, const void *b)
{
	uint64_t x = (*(const struct cmp_size *const *)a)->bytes;
	uint64_t y = (*(const struct cmp_size *const *)b)->bytes;

	return x < y ? -1 : x > y;
}

/* The sizes of m that p also has, ascending; the others on one stderr line.
 * Returns how many are common, or SIZE_MAX when out of memory. */
static size_t common_sizes(const struct cmp_file *f[2], const struct cmp_size ***out)
{
	const struct cmp_size **c = malloc(f[0]->nsizes * sizeof(*c));
	size_t n = 0, skipped = 0;

	*out = c;
	if (!c)
		return SIZE_MAX;
	for (size_t i = 0; i < f[0]->nsizes; i++)
		if (cmp_file_find(f[1], f[0]->sizes[i].bytes))
			c[n++] = &f[0]->sizes[i];
	qsort(c, n, sizeof(*c), by_bytes);
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < f[s]->nsizes; i++) {
			if (cmp_file_find(f[!s], f[s]->sizes[i].bytes))
				continue;
			fprintf(stderr, "%s%" PRIu64 " (%s only)", skipped++ ? ", " :
				"cclab compare: sizes in one file only, skipped: ",
				f[s]->sizes[i].bytes, side[s]);
		}
	if (skipped)
		fputc('\n', stderr);
	return n;
}

static bool size_error(const struct cmp_size *m, const struct cmp_size *p, double *pct)
{
	if (strcmp(m->status, "ok") || strcmp(p->status, "ok"))
		return false;
	return m->time_us > 0 && p->time_us > 0 && cmp_error_pct(m->time_us, p->time_us, pct);
}

static void csv_num(FILE *f, int prec, double v, const char *sep)
{
	if (isfinite(v))
		fprintf(f, "%.*f", prec, v);
	fputs(sep, f);
}

/* What the summary lines need, gathered row by row. */
struct totals {
	double sum, worst;
	size_t nerr, beyond, worst_at;
	size_t in_range, n_range; /* predicted within the measured min..max */
	size_t below, n_bound;    /* measured below the predicted file's bound */
};

static void add(struct totals *t, const struct cmp_args *a, size_t i, const struct cmp_size *m,
		const struct cmp_size *p, bool has, double pct)
{
	if (has) {
		t->sum += fabs(pct);
		t->nerr++;
		if (fabs(pct) > t->worst) {
			t->worst = fabs(pct);
			t->worst_at = i;
		}
		t->beyond += a->have_max && fabs(pct) > a->max_err;
	}
	/* A verbs file's spread over iterations: is the prediction inside? */
	if (isfinite(m->time_min_us) && isfinite(m->time_max_us) && isfinite(p->time_us)) {
		t->n_range++;
		t->in_range += p->time_us >= m->time_min_us && p->time_us <= m->time_max_us;
	}
	/* A sim file's alpha-beta lower bound: nothing runs faster on the
	 * fabric as described, so a measurement below it says the fabric
	 * file's latencies or rate are wrong for this machine. */
	if (isfinite(p->bound_us) && isfinite(m->time_us)) {
		t->n_bound++;
		t->below += m->time_us < p->bound_us;
	}
}

static void print_summary(const struct totals *t, const struct cmp_args *a,
			  const struct cmp_size **c, size_t n)
{
	if (t->nerr) {
		printf("# mean |error|: %.2f %% over %zu sizes\n", t->sum / (double)t->nerr, t->nerr);
		printf("# largest |error|: %.2f %% at %" PRIu64 " bytes\n", t->worst,
		       c[t->worst_at]->bytes);
	} else {
		printf("# mean |error|: N/A over 0 sizes\n# largest |error|: N/A\n");
	}
	if (t->nerr < n)
		printf("# sizes without an error (a time unknown, or a run not ok): %zu\n",
		       n - t->nerr);
	if (t->n_range)
		printf("# predicted within the measured min..max: %zu of %zu sizes\n", t->in_range,
		       t->n_range);
	if (t->n_bound)
		printf("# measured below the predicted lower bound: %zu of %zu sizes%s\n", t->below,
		       t->n_bound, t->below ? " (the fabric's latencies or rate are off for this "
					      "machine: cclab calibrate)" : "");
	if (a->have_max)
		printf("# sizes beyond \u00b1%g %%: %zu\n", a->max_err, t->beyond);
}

/* The largest sizes as lines (cc_result_line): those within a factor 4 of
 * the largest size with both times, as `cclab validate` draws its "large"
 * sizes (docs/validation.md); whether a miss there is of the rate or of a
 * fixed part. */
static void print_line(const struct cmp_file *f[2], const struct cmp_size **c, size_t n)
{
	uint64_t *size = calloc(n ? n : 1, sizeof(*size)), top = 0;
	double *t[2] = { calloc(n ? n : 1, sizeof(double)), calloc(n ? n : 1, sizeof(double)) };
	double fixed[2], bus[2], pct;
	enum cc_coll coll;
	size_t k = 0;

	if (!size || !t[0] || !t[1] || cc_coll_parse(f[0]->collective, &coll) ||
	    f[0]->nranks > UINT32_MAX)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (size_error(c[i], cmp_file_find(f[1], c[i]->bytes), &pct) && c[i]->bytes > top)
			top = c[i]->bytes;
	for (size_t i = 0; i < n; i++) {
		const struct cmp_size *m = c[i], *p = cmp_file_find(f[1], m->bytes);

		if (size_error(m, p, &pct) &&
		    (double)m->bytes >= (double)top / CC_RESULT_SPAN) {
			size[k] = m->bytes;
			t[0][k] = m->time_us;
			t[1][k++] = p->time_us;
		}
	}
	if (cc_result_lines(size, t[0], t[1], (uint32_t)k,
			    cc_busbw_factor(coll, (uint32_t)f[0]->nranks), fixed, bus))
		printf("# largest sizes as a line, time = fixed + size / rate (%zu sizes within %gx "
		       "of %" PRIu64 " bytes): measured %.1f us + %.1f GB/s busbw, predicted %.1f us "
		       "+ %.1f GB/s (predicted - measured: fixed %+.1f us, rate %+.1f %%)\n", k,
		       CC_RESULT_SPAN, top, fixed[0], bus[0], fixed[1], bus[1],
		       fixed[1] - fixed[0], (bus[1] / bus[0] - 1) * 100);
out:
	free(size);
	free(t[0]);
	free(t[1]);
}

static void csv_row(FILE *f, const struct cmp_size *m, const struct cmp_size *p, double pct,
		    const char *wrong)
{
	fprintf(f, "%" PRIu64 ",%" PRIu64 ",", m->bytes, m->count);
	csv_num(f, 6, m->time_us, ",");
	csv_num(f, 6, p->time_us, ",");
	csv_num(f, 4, pct, ",");
	csv_num(f, 6, m->busbw, ",");
	csv_num(f, 6, p->busbw, ",");
	fprintf(f, "%s\n", wrong);
}

/* The table, the summary, the CSV lines; returns how many sizes are
 * beyond --max-error, and in *compared how many have an error. */
static size_t print_sizes(const struct cmp_args *a, const struct cmp_file *f[2],
			  const struct cmp_size **c, size_t n, FILE *csv, size_t *compared)
{
	struct totals t = { .worst = -1 };

	printf("# %10s  %12s  %8s  %6s  %10s  %10s  %8s  %10s  %10s  %6s\n", "size", "count",
	       "type", "redop", "meas time", "pred time", "error", "meas busbw", "pred busbw",
	       "#wrong");
	printf("# %10s  %12s  %8s  %6s  %10s  %10s  %8s  %10s  %10s  %6s\n", "(B)", "(elements)",
	       "", "", "(us)", "(us)", "(%)", "(GB/s)", "(GB/s)", "(meas)");
	for (size_t i = 0; i < n; i++) {
		const struct cmp_size *m = c[i], *p = cmp_file_find(f[1], m->bytes);
		double pct = NAN;
		bool has = size_error(m, p, &pct);
		char wrong[24] = "N/A";

		if (!has)
			pct = NAN; /* no error in the CSV either */
		if (m->wrong_known)
			snprintf(wrong, sizeof(wrong), "%" PRIu64, m->wrong);
		printf("%12" PRIu64 "  %12" PRIu64 "  %8s  %6s", m->bytes, m->count, m->dtype,
		       m->redop);
		cmp_print_num(12, 2, true, m->time_us);
		cmp_print_num(12, 2, true, p->time_us);
		cmp_print_pct(10, has, pct);
		cmp_print_num(12, 2, true, m->busbw);
		cmp_print_num(12, 2, true, p->busbw);
		printf("  %6s\n", wrong);
		for (int s = 0; s < 2; s++)
			if (strcmp((s ? p : m)->status, "ok"))
				fprintf(stderr, "cclab compare: %" PRIu64 " bytes: the %s run's status "
					"is %s; no error computed\n", m->bytes, side[s],
					(s ? p : m)->status);
		add(&t, a, i, m, p, has, pct);
		if (csv)
			csv_row(csv, m, p, pct, wrong);
	}
	print_summary(&t, a, c, n);
	print_line(f, c, n);
	*compared = t.nerr;
	return t.beyond;
}

static void print_head(const struct cmp_file *f[2])
{
	printf("# cclab compare: measured %s (%s) vs predicted %s (%s)\n", f[0]->executor,
	       f[0]->where, f[1]->executor, f[1]->where);
	printf("# collective %s  nranks %" PRIu64 "  dtype %s  redop %s\n", f[0]->collective,
	       f[0]->nranks, f[0]->dtype, f[0]->redop);
	printf("# measured: %s  predicted: %s\n#\n", f[0]->path, f[1]->path);
}

/* The per-phase tables; each trace is of its run's last size. */
static void print_phases(const struct cmp_file *f[2], const struct cmp_phases ph[2])
{
	uint64_t last = f[0]->sizes[f[0]->nsizes - 1].bytes;

	printf("#\n# per phase, the traced size (each run's last: %" PRIu64 " bytes)\n"
	       "# traces: %s (%" PRIu64 " events)  %s (%" PRIu64 " events)\n",
	       last, ph[0].path, ph[0].nevents, ph[1].path, ph[1].nevents);
	cmp_phases_print(&ph[0], &ph[1]);
}

static int run(const struct cmp_args *a, const struct cmp_file *f[2], struct cmp_phases ph[2])
{
	const struct cmp_size **c;
	struct cc_atomic_file af;
	size_t n = common_sizes(f, &c), beyond, compared;
	int err;

	if (n == SIZE_MAX) {
		fprintf(stderr, "cclab compare: out of memory\n");
		return CLI_EXIT_FAIL;
	}
	if (!n) {
		fprintf(stderr, "cclab compare: no size in common between %s and %s\n", f[0]->path,
			f[1]->path);
		free(c);
		return CLI_EXIT_USAGE;
	}
	uint64_t lm = f[0]->sizes[f[0]->nsizes - 1].bytes, lp = f[1]->sizes[f[1]->nsizes - 1].bytes;

	if (a->trace[0] && lm != lp) {
		/* A run traces its last size only: phases of two sizes would
		 * give errors that are the sizes' ratio, not the model's. */
		fprintf(stderr, "cclab compare: the traces are of different sizes (each run traces "
			"its last: measured %" PRIu64 " bytes, predicted %" PRIu64 "); rerun one "
			"with the other's -e\n", lm, lp);
		free(c);
		return CLI_EXIT_USAGE;
	}
	if (a->csv && (err = cli_output_open("compare", a->csv, &af))) {
		free(c);
		return err;
	}
	if (a->csv)
		fputs("size_bytes,count,measured_us,predicted_us,error_pct,measured_busbw_gbps,"
		      "predicted_busbw_gbps,wrong\n", af.f);
	print_head(f);
	beyond = print_sizes(a, f, c, n, a->csv ? af.f : NULL, &compared);
	free(c);
	if (a->trace[0])
		print_phases(f, ph);
	if (a->csv && (err = cli_output_commit("compare", a->csv, &af)))
		return err;
	/* Rows of N/A are no comparison: a gate that saw none of them must not
	 * pass (the runs failed, or their times are unknown). */
	if (!compared) {
		fprintf(stderr, "cclab compare: nothing was compared: no size has an error (each is "
			"N/A: a time unknown, or a run whose status is not ok)%s\n",
			a->have_max ? "; --max-error checked nothing" : "");
		return CLI_EXIT_FAIL;
	}
	return beyond ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

int cmp_report(const struct cmp_args *a, const struct cmp_file *f[2])
{
	struct cmp_phases ph[2] = {{0}};
	int rc;

	if ((rc = cmp_check_comparable(f[0], f[1])))
		return rc;
	for (int s = 0; a->trace[0] && s < 2; s++)
		if ((rc = cmp_phases_load(a->trace[s], f[0]->nranks, &ph[s])))
			goto out;
	rc = run(a, f, ph);
out:
	cmp_phases_free(&ph[0]);
	cmp_phases_free(&ph[1]);
	return rc;
}

int cmd_compare(int argc, char **argv)
{
	struct cmp_args a;
	struct cmp_file file[2];
	const struct cmp_file *f[2] = {&file[0], &file[1]};
	struct cy_error err;
	bool help = false;
	int rc = cmp_parse_args(argc, argv, &a, &help), loaded = 0;

	if (rc || help) {
		if (help)
			compare_usage(stdout);
		return rc;
	}
	for (; loaded < 2; loaded++)
		if (cmp_file_load(a.file[loaded], &file[loaded], &err)) {
			fprintf(stderr, "cclab compare: %s\n", err.msg);
			rc = CLI_EXIT_USAGE;
			break;
		}
	if (loaded == 2)
		rc = cmp_report(&a, f);
	while (loaded-- > 0)
		cmp_file_free(&file[loaded]);
	return rc;
}
