/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/compare_phases.c — the tables of `cclab compare` that are not the
 * size table: the per-phase tables of two traces (cli/compare_trace.c
 * reduces them), and the cell printers every table shares. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "cli/compare.h"
#include "core/schedule.h"

/* Every cell starts with two spaces, so a value wider than its column
 * (an error of +300000000 %) shifts the row but never runs into the
 * previous cell: the rows stay split by whitespace. */
void cmp_print_num(int width, int prec, bool known, double v)
{
	if (known && isfinite(v))
		printf("  %*.*f", width - 2, prec, v);
	else
		printf("  %*s", width - 2, "N/A");
}

void cmp_print_pct(int width, bool known, double pct)
{
	/* Below half the last digit a -0.00 would only say which side rounded. */
	if (known && fabs(pct) < 0.005)
		pct = 0.0;
	if (known && isfinite(pct))
		printf("  %+*.*f", width - 2, 2, pct);
	else
		printf("  %*s", width - 2, "N/A");
}

static const char *const mech_name[CMP_MECH_COUNT] = {
	[CMP_POST_CQE] = "post->cqe", [CMP_CQE_POLL] = "cqe->poll", [CMP_DOORBELL] = "doorbell",
	[CMP_REDUCE] = "reduce", [CMP_COPY] = "copy",
};

static void row_tail(bool has_m, double m, bool has_p, double p)
{
	double pct = 0;
	bool has_pct = has_m && has_p && cmp_error_pct(m, p, &pct);

	/* Three decimals: ns, the resolution of the verbs executor's clock. */
	cmp_print_num(12, 3, has_m, m);
	cmp_print_num(12, 3, has_p, p);
	cmp_print_pct(10, has_pct, pct);
	putchar('\n');
}

static void print_steps(const struct cmp_phases *m, const struct cmp_phases *p)
{
	size_t i = 0, j = 0;

	printf("#\n# per primitive step: the span of a step's events (first start to last\n"
	       "# end) on one rank in one loop, mean over ranks and loops\n");
	printf("# %6s  %-20s  %10s  %10s  %8s\n", "step", "primitive", "meas", "pred", "error");
	printf("# %6s  %-20s  %10s  %10s  %8s\n", "", "(most events)", "(us)", "(us)", "(%)");
	while (i < m->nsteps || j < p->nsteps) {
		const struct cmp_step *a = i < m->nsteps ? &m->steps[i] : NULL;
		const struct cmp_step *b = j < p->nsteps ? &p->steps[j] : NULL;

		/* Merge by step: one side may lack a step the other has. */
		if (a && b && a->step != b->step) {
			if (a->step < b->step)
				b = NULL;
			else
				a = NULL;
		}
		i += a != NULL;
		j += b != NULL;
		printf("  %6" PRIu32 "  %-20s", (a ? a : b)->step, cc_prim_name[(a ? a : b)->prim]);
		row_tail(a != NULL, a ? a->span_us : 0, b != NULL, b ? b->span_us : 0);
	}
	if (!m->nsteps && !p->nsteps)
		printf("# (neither trace has an event of a primitive)\n");
}

static void print_mechs(const struct cmp_phases *m, const struct cmp_phases *p)
{
	printf("#\n# per mechanism: mean over all occurrences (docs/compare.md)\n");
	printf("# %-10s  %10s  %10s  %10s  %10s  %8s\n", "mechanism", "count", "count", "meas",
	       "pred", "error");
	printf("# %-10s  %10s  %10s  %10s  %10s  %8s\n", "", "(meas)", "(pred)", "(us)", "(us)",
	       "(%)");
	for (int k = 0; k < CMP_MECH_COUNT; k++) {
		uint64_t cm = m->mech[k].count, cp = p->mech[k].count;

		printf("  %-10s  %10" PRIu64 "  %10" PRIu64, mech_name[k], cm, cp);
		row_tail(cm > 0, cm ? m->mech[k].sum_ps / (double)cm / 1e6 : 0, cp > 0,
			 cp ? p->mech[k].sum_ps / (double)cp / 1e6 : 0);
	}
}

void cmp_phases_print(const struct cmp_phases *meas, const struct cmp_phases *pred)
{
	print_steps(meas, pred);
	print_mechs(meas, pred);
}
