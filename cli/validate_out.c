/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/validate_out.c — the report of `cclab validate` (cli/validate.h):
 * per case its sizes, measured beside predicted, and its figures; over
 * the corpus each class's median and worst; the same as --json (one
 * document, docs/schemas/validate.schema.json) and --csv (one line per size). */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "cli/check.h"
#include "cli/validate.h"
#include "core/results.h"
#include "util/json.h"
#include "util/units.h"


/* What a case's kind compares, and in which unit. */
static const char *const what_bw[VAL_KIND_COUNT] = { "busbw", "BW average", NULL };
static const char *const what_time[VAL_KIND_COUNT] = { "time", NULL, "t_typical" };

static void describe(FILE *f, const struct val_case *c)
{
	const struct cc_scenario *sc = &c->sc;

	fprintf(f, "# case %s: ", c->name);
	if (c->kind == VAL_COLL)
		fprintf(f, "%s, %" PRIu32 " ranks", cc_coll_name[sc->p.coll], sc->p.nranks);
	else
		fprintf(f, "%s %s", cc_p2p_op_name[sc->p2p.op], cc_p2p_mode_name[sc->p2p.mode]);
	fprintf(f, ", fabric %s, topology %s", sc->fabric.name, sc->net.name);
	/* the release whose choices the sizes run: the case's, or the newest */
	if (c->kind == VAL_COLL && cc_nccl_auto_any(&sc->nccl))
		fprintf(f, ", NCCL %u.%u.%u's choices", sc->nccl.version.major,
			sc->nccl.version.minor, sc->nccl.version.patch);
	fprintf(f, "\n");
	if (c->url[0])
		fprintf(f, "#   source: %s\n", c->url);
}

static void figure(FILE *f, const struct val_case *c, enum val_class k)
{
	char a[CC_FMT_BYTES_LEN], b[CC_FMT_BYTES_LEN];

	if (!c->have[k])
		return;
	cc_format_bytes(a, sizeof(a), c->at_lo[k]);
	cc_format_bytes(b, sizeof(b), c->at_hi[k]);
	if (k == VAL_HALF) {
		cc_format_bytes(a, sizeof(a), (uint64_t)c->half_meas);
		cc_format_bytes(b, sizeof(b), (uint64_t)c->half_pred);
		fprintf(f, "#   half: %s reaches half its peak at %s measured, %s predicted "
			"(%+.1f %%)\n", what_bw[c->kind], a, b, c->err_pct[k]);
		return;
	}
	fprintf(f, "#   %s: %s at %s%s%s: %+.1f %%\n", val_class_name[k],
		k == VAL_LARGE ? what_bw[c->kind] : what_time[c->kind], a,
		c->at_lo[k] != c->at_hi[k] ? " to " : "", c->at_lo[k] != c->at_hi[k] ? b : "",
		c->err_pct[k]);
	if (k == VAL_LARGE && c->have_line)
		fprintf(f, "#   line: time = fixed + size / rate over %" PRIu32 " of them (with "
			"times): measured %.1f us + %.1f %s, predicted %.1f us + %.1f %s "
			"(predicted - measured: fixed %+.1f us, rate %+.1f %%)\n", c->line_sizes,
			c->line_fixed_us[0], c->line_busbw[0], c->bw_unit, c->line_fixed_us[1],
			c->line_busbw[1], c->bw_unit, c->line_fixed_us[1] - c->line_fixed_us[0],
			(c->line_busbw[1] / c->line_busbw[0] - 1) * 100);
	if (k == VAL_LARGE && c->have_step)
		fprintf(f, "#   step: the ring's primitive = fixed + chunk / rate over %" PRIu32
			" sizes that ran it: measured %.1f us + %.1f GB/s, predicted %.1f us + "
			"%.1f GB/s (predicted - measured: fixed %+.1f us, rate %+.1f %%)\n",
			c->step_sizes, c->step_fixed_us[0], c->step_rate[0], c->step_fixed_us[1],
			c->step_rate[1], c->step_fixed_us[1] - c->step_fixed_us[0],
			(c->step_rate[1] / c->step_rate[0] - 1) * 100);
}

void val_print_case(FILE *f, const struct val_case *c, bool points)
{
	bool bw = c->kind != VAL_LAT, time = c->kind != VAL_BW;

	describe(f, c);
	if (points) {
		fprintf(f, "#%13s", "size");
		if (time)
			fprintf(f, " %12s %12s %7s", "time meas", "time pred", "ratio");
		if (bw)
			fprintf(f, " %12s %12s %7s", "bw meas", "bw pred", "ratio");
		fprintf(f, "  status\n#%13s", "(B)");
		if (time)
			fprintf(f, " %12s %12s %7s", "(us)", "(us)", "");
		if (bw)
			fprintf(f, " %12s %12s %7s", c->bw_unit, c->bw_unit, "");
		fputc('\n', f);
		for (uint32_t i = 0; i < c->npts; i++) {
			const struct val_point *pt = &c->pts[i];

			fprintf(f, " %13" PRIu64, pt->size);
			if (time) {
				if (pt->has_time)
					fprintf(f, " %12.2f", pt->meas_time_us);
				else
					fprintf(f, " %12s", "N/A");
				if (pt->predicted)
					fprintf(f, " %12.2f", pt->pred_time_us);
				else
					fprintf(f, " %12s", "N/A");
				if (pt->has_time && pt->predicted)
					fprintf(f, " %7.3f", pt->pred_time_us / pt->meas_time_us);
				else
					fprintf(f, " %7s", "N/A");
			}
			if (bw) {
				if (pt->has_bw)
					fprintf(f, " %12.2f", pt->meas_bw);
				else
					fprintf(f, " %12s", "N/A");
				if (pt->predicted)
					fprintf(f, " %12.2f", pt->pred_bw);
				else
					fprintf(f, " %12s", "N/A");
				if (pt->has_bw && pt->predicted)
					fprintf(f, " %7.3f", pt->pred_bw / pt->meas_bw);
				else
					fprintf(f, " %7s", "N/A");
			}
			fprintf(f, "  %s%s%s%s\n", pt->status[0] ? pt->status : "-",
				pt->nccl[0] || pt->launch_bound ? "  # " : "", pt->nccl,
				!pt->launch_bound ? "" : pt->nccl[0] ? "; launch-bound" : "launch-bound");
		}
	}
	for (int k = 0; k < VAL_CLASS_COUNT; k++)
		figure(f, c, (enum val_class)k);
	if (!c->have[VAL_LARGE] && !c->have[VAL_SMALL] && !c->have[VAL_HALF])
		fprintf(f, "#   no size compared\n");
}

void val_print_summary(FILE *f, const struct val_case *c, uint32_t n,
		       const struct val_class_sum sum[VAL_CLASS_COUNT])
{
	static const char *const meaning[VAL_CLASS_COUNT] = {
		"busbw / bandwidth at the largest sizes",
		"time / latency at the smallest sizes",
		"size at half of the peak busbw",
	};

	fprintf(f, "#\n# %u cases.  |error| per class (predicted / measured - 1; half: the "
		"factor between the sizes, - 1):\n", n);
	fprintf(f, "# %-6s %5s %13s %12s  %-40s %s\n", "class", "cases", "median |err|",
		"worst |err|", "worst case", "what");
	for (int k = 0; k < VAL_CLASS_COUNT; k++) {
		const struct val_class_sum *s = &sum[k];

		if (!s->n) {
			fprintf(f, "# %-6s %5u %13s %12s  %-40s %s\n", val_class_name[k], 0u, "N/A",
				"N/A", "-", meaning[k]);
			continue;
		}
		fprintf(f, "# %-6s %5u %11.1f %% %10.1f %%  %-40s %s\n", val_class_name[k], s->n,
			s->median_abs_pct, s->worst_abs_pct, s->worst->name, meaning[k]);
	}
	(void)c;
}

static void point_json(struct cc_json *j, const struct val_case *c, const struct val_point *pt)
{
	bool bw = c->kind != VAL_LAT, time = c->kind != VAL_BW;

	cc_json_object_begin(j);
	cc_json_kv_uint(j, "bytes", pt->size);
	cc_json_kv_uint(j, "count", pt->count);
	if (time) {
		cli_json_double_or_null(j, "measured_time_us", pt->has_time, pt->meas_time_us);
		cli_json_double_or_null(j, "predicted_time_us", pt->predicted, pt->pred_time_us);
	}
	if (bw) {
		cli_json_double_or_null(j, "measured_bw", pt->has_bw, pt->meas_bw);
		cli_json_double_or_null(j, "predicted_bw", pt->predicted, pt->pred_bw);
	}
	cc_json_kv_string(j, "status", pt->status);
	if (pt->nccl[0])
		cc_json_kv_string(j, "nccl", pt->nccl);
	if (pt->launch_bound) /* only where it is: other reports stay as they were */
		cc_json_kv_bool(j, "launch_bound", true);
	cc_json_object_end(j);
}

/* A fit of the case as `key`: over `sizes` sizes, [0] measured and [1]
 * predicted, each a fixed part and a rate named rate_key; null where
 * there is none. */
static void fit_json(struct cc_json *j, const char *key, bool have, uint32_t sizes,
		     const double fixed_us[2], const char *rate_key, const double rate[2])
{
	cc_json_key(j, key);
	if (!have) {
		cc_json_null(j);
		return;
	}
	cc_json_object_begin(j);
	cc_json_kv_uint(j, "sizes", sizes);
	for (int m = 0; m < 2; m++) {
		cc_json_key(j, m ? "predicted" : "measured");
		cc_json_object_begin(j);
		cc_json_kv_double(j, "fixed_us", fixed_us[m]);
		cc_json_kv_double(j, rate_key, rate[m]);
		cc_json_object_end(j);
	}
	cc_json_object_end(j);
}

static void case_json(struct cc_json *j, const struct val_case *c)
{
	cc_json_object_begin(j);
	cc_json_kv_string(j, "name", c->name);
	cc_json_kv_string(j, "dir", c->dir);
	cc_json_kv_string(j, "url", c->url[0] ? c->url : NULL);
	cc_json_kv_string(j, "title", c->title[0] ? c->title : NULL);
	cc_json_kv_string(j, "kind", val_kind_name[c->kind]);
	if (c->kind == VAL_COLL) {
		cc_json_kv_string(j, "collective", cc_coll_name[c->sc.p.coll]);
		cc_json_kv_uint(j, "nranks", c->sc.p.nranks);
	} else {
		cc_json_kv_string(j, "op", cc_p2p_op_name[c->sc.p2p.op]);
	}
	cc_json_kv_string(j, "bw_unit", c->bw_unit);
	cc_json_kv_string(j, "fabric", c->sc.fabric.name);
	cc_json_kv_string(j, "topology", c->sc.net.name);
	cc_json_key(j, "errors_pct");
	cc_json_object_begin(j);
	for (int k = 0; k < VAL_CLASS_COUNT; k++) {
		cc_json_key(j, val_class_name[k]);
		if (c->have[k])
			cc_json_double(j, c->err_pct[k]);
		else
			cc_json_null(j);
	}
	cc_json_object_end(j);
	cc_json_key(j, "half_peak_bytes");
	cc_json_object_begin(j);
	cli_json_double_or_null(j, "measured", c->have[VAL_HALF], c->half_meas);
	cli_json_double_or_null(j, "predicted", c->have[VAL_HALF], c->half_pred);
	cc_json_object_end(j);
	fit_json(j, "large_line", c->have_line, c->line_sizes, c->line_fixed_us, "busbw",
		 c->line_busbw);
	fit_json(j, "ring_step", c->have_step, c->step_sizes, c->step_fixed_us, "rate_gbps",
		 c->step_rate);
	cc_json_key(j, "sizes");
	cc_json_array_begin(j);
	for (uint32_t i = 0; i < c->npts; i++)
		point_json(j, c, &c->pts[i]);
	cc_json_array_end(j);
	cc_json_object_end(j);
}

void val_json(struct cc_json *j, const struct val_args *a, const struct val_case *c, uint32_t n,
	      const struct val_class_sum sum[VAL_CLASS_COUNT])
{
	cli_json_head(j, "validate");
	cc_json_key(j, "max_bytes");
	if (a->max_bytes)
		cc_json_uint(j, a->max_bytes);
	else
		cc_json_null(j);
	cc_json_key(j, "classes");
	cc_json_object_begin(j);
	for (int k = 0; k < VAL_CLASS_COUNT; k++) {
		cc_json_key(j, val_class_name[k]);
		cc_json_object_begin(j);
		cc_json_kv_uint(j, "cases", sum[k].n);
		cli_json_double_or_null(j, "median_abs_pct", sum[k].n, sum[k].median_abs_pct);
		cli_json_double_or_null(j, "worst_abs_pct", sum[k].n, sum[k].worst_abs_pct);
		cc_json_kv_string(j, "worst_case", sum[k].n ? sum[k].worst->name : NULL);
		cc_json_object_end(j);
	}
	cc_json_object_end(j);
	cc_json_key(j, "cases");
	cc_json_array_begin(j);
	for (uint32_t i = 0; i < n; i++)
		case_json(j, &c[i]);
	/* "cases" stays open: cli_json_end() closes it and the document */
}

/* One line per size: the plot scripts read it (scripts/plot-validate*.gp). */
void val_csv(FILE *f, const struct val_case *c, uint32_t n)
{
	fputs("case,kind,size_bytes,measured_time_us,predicted_time_us,measured_bw,predicted_bw,"
	      "bw_unit,status\n", f);
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t p = 0; p < c[i].npts; p++) {
			const struct val_point *pt = &c[i].pts[p];
			bool bw = c[i].kind != VAL_LAT, time = c[i].kind != VAL_BW;

			cc_csv_str(f, c[i].name);
			fprintf(f, ",%s,%" PRIu64 ",", val_kind_name[c[i].kind], pt->size);
			if (time && pt->has_time)
				fprintf(f, "%.9g", pt->meas_time_us);
			fputc(',', f);
			if (time && pt->predicted)
				fprintf(f, "%.9g", pt->pred_time_us);
			fputc(',', f);
			if (bw && pt->has_bw)
				fprintf(f, "%.9g", pt->meas_bw);
			fputc(',', f);
			if (bw && pt->predicted)
				fprintf(f, "%.9g", pt->pred_bw);
			fprintf(f, ",%s,", c[i].bw_unit ? c[i].bw_unit : "");
			cc_csv_str(f, pt->status);
			fputc('\n', f);
		}
}
