/* SPDX-License-Identifier: BSD-3-Clause */
/* core/results.c — nccl-tests' table and a CSV field (see core/results.h;
 * the JSON writer is util/json.c, atomic result files util/atomic_file.c).
 *
 * The printf formats below are nccl-tests' (src/common.cu: run() prints the
 * header, TimeTest() the row prefix, BenchTime() the time/algbw/busbw/#wrong
 * body, run() the closing lines); only the out-of-place half is kept.
 */
#include "core/results.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- sizes and counts ---- */

void cc_result_counts(enum cc_coll coll, uint32_t nranks, size_t eltsize, uint64_t bytes,
		      uint64_t *count, uint64_t *size)
{
	uint64_t n = nranks ? nranks : 1, e = eltsize ? eltsize : 1;

	switch (coll) {
	case CC_REDUCESCATTER:
	case CC_ALLGATHER:
	case CC_ALLTOALL:
		/* ReduceScatterGetCollByteCount / AllGatherGetCollByteCount /
		 * AlltoAllGetCollByteCount (nccl-tests since eltSize joined
		 * them): base = (count/nranks) & -(16/eltSize), whole 16-byte
		 * units per rank (per peer for all-to-all); the row prints
		 * max(sendBytes, expectedBytes) = base * nranks * eltsize and
		 * paramcount = base. */
		*count = bytes / e / n;
		if (e <= 16)
			*count &= ~(16 / e - 1);
		*size = *count * n * e;
		break;
	default:
		/* AllReduceGetCollByteCount: send = recv = param = count. */
		*count = bytes / e;
		*size = *count * e;
		break;
	}
}

bool cc_result_next_size(uint64_t *size, uint64_t stepfactor, uint64_t maxbytes)
{
	uint64_t next;

	if (*size == 0)
		next = 1;
	else if (__builtin_mul_overflow(*size, stepfactor, &next))
		return false;
	if (next > maxbytes)
		return false;
	*size = next;
	return true;
}

bool cc_result_bw(uint64_t size, double time_us, double busbw_factor, double *algbw,
		  double *busbw)
{
	if (!(time_us > 0) || isinf(time_us))
		return false;
	/* *GetBw(): baseBw = bytes / 1.0E9 / sec. */
	double a = (double)size / 1.0e9 / (time_us * 1.0e-6);

	*algbw = a;
	*busbw = a * busbw_factor;
	return true;
}

bool cc_result_line(const uint64_t *size, const double *time_us, uint32_t n,
		    double busbw_factor, double *fixed_us, double *busbw)
{
	double mx = 0, my = 0, sxx = 0, sxy = 0, slope;

	if (n < 2 || !(busbw_factor > 0) || isinf(busbw_factor))
		return false;
	for (uint32_t i = 0; i < n; i++) {
		if (!(time_us[i] > 0) || isinf(time_us[i]))
			return false;
		mx += (double)size[i] / n;
		my += time_us[i] / n;
	}
	/* about the means: sizes of gigabytes squared stay exact enough */
	for (uint32_t i = 0; i < n; i++) {
		double dx = (double)size[i] - mx;

		sxx += dx * dx;
		sxy += dx * (time_us[i] - my);
	}
	if (!(sxx > 0) || !((slope = sxy / sxx) > 0))
		return false;
	*fixed_us = my - slope * mx;
	/* us per byte to GB/s: 1 byte / us = 1e6 B/s = 1e-3 GB/s */
	*busbw = 1.0e-3 / slope * busbw_factor;
	return true;
}

bool cc_result_lines(const uint64_t *size, const double *meas_us, const double *pred_us,
		     uint32_t n, double busbw_factor, double fixed_us[2], double busbw[2])
{
	double f[2], b[2];

	if (!cc_result_line(size, meas_us, n, busbw_factor, &f[0], &b[0]) ||
	    !cc_result_line(size, pred_us, n, busbw_factor, &f[1], &b[1]))
		return false;
	for (int i = 0; i < 2; i++)
		fixed_us[i] = f[i], busbw[i] = b[i];
	return true;
}

/* ---- the table ---- */

/* nccl-tests prints "%6i" of root into a string and then "%6s" of it. */
#define ROW_PREFIX_FMT "%12" PRIu64 "  %12" PRIu64 "  %8s  %6s  %6i"

void cc_results_print_header(FILE *f)
{
	/* run(): the caption line, cut after "out-of-place" (the in-place
	 * caption and its padding are not ours to print). */
	fprintf(f, "# %10s  %12s  %8s  %6s  %6s           out-of-place\n", "", "", "", "", "");
	fprintf(f, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s\n", "size", "count", "type",
		"redop", "root", "time", "algbw", "busbw", "#wrong");
	fprintf(f, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s\n", "(B)", "(elements)", "", "",
		"", "(us)", "(GB/s)", "(GB/s)", "");
}

int cc_results_format_row(char *buf, size_t len, const struct cc_result_row *row)
{
	const char *type = row->type ? row->type : "";
	const char *redop = row->redop ? row->redop : "";
	double algbw, busbw;
	char time_str[32], wrong_str[32];

	/* #wrong as "%5g" of a double, exactly as nccl-tests (so counts of a
	 * million or more print as 1e+06; the JSON output has the integer);
	 * BenchTime() prints "%5s" of "N/A" when it did not check. */
	if (row->unchecked)
		snprintf(wrong_str, sizeof(wrong_str), "%5s", "N/A");
	else
		snprintf(wrong_str, sizeof(wrong_str), "%5g", (double)row->wrong);
	if (!cc_result_bw(row->size, row->time_us, row->busbw_factor, &algbw, &busbw))
		return snprintf(buf, len, ROW_PREFIX_FMT "  %7s  %6s  %6s  %s", row->size,
				row->count, type, redop, row->root, "N/A", "N/A", "N/A", wrong_str);
	/* BenchTime(): three precisions so the time stays 7 wide. */
	if (row->time_us >= 10000.0)
		snprintf(time_str, sizeof(time_str), "%7.0f", row->time_us);
	else if (row->time_us >= 100.0)
		snprintf(time_str, sizeof(time_str), "%7.1f", row->time_us);
	else
		snprintf(time_str, sizeof(time_str), "%7.2f", row->time_us);
	return snprintf(buf, len, ROW_PREFIX_FMT "  %7s  %6.2f  %6.2f  %s", row->size, row->count,
			type, redop, row->root, time_str, algbw, busbw, wrong_str);
}

void cc_results_print_row(FILE *f, const struct cc_result_row *row)
{
	char buf[256], note[CC_NCCL_PICK_TEXT_LEN + 32] = "";
	int n = cc_results_format_row(buf, sizeof(buf), row);

	if (n < 0)
		return;
	if (row->nccl) {
		char t[CC_NCCL_PICK_TEXT_LEN];

		snprintf(note, sizeof(note), "  # %s", cc_nccl_pick_text(&row->pick, t, sizeof(t)));
	}
	if (row->launch_bound) {
		size_t at = strlen(note);

		snprintf(note + at, sizeof(note) - at, "%s", at ? "; launch-bound" : "  # launch-bound");
	}
	if ((size_t)n < sizeof(buf)) {
		fprintf(f, "%s%s\n", buf, note);
		return;
	}
	/* Only a very long type or redop name gets here. */
	char *big = malloc((size_t)n + 1);

	if (!big)
		return;
	cc_results_format_row(big, (size_t)n + 1, row);
	fprintf(f, "%s%s\n", big, note);
	free(big);
}

void cc_results_summary_add(struct cc_results_summary *sum, const struct cc_result_row *row)
{
	double algbw, busbw;

	/* BenchTime()/CheckData(): errors[0]++ once per test with wrongElts;
	 * an unchecked row has none to count. */
	if ((row->wrong && !row->unchecked) || row->failed)
		sum->errors++;
	if (cc_result_bw(row->size, row->time_us, row->busbw_factor, &algbw, &busbw)) {
		sum->bw_sum += busbw;
		sum->bw_count++;
	}
}

void cc_results_print_errors(FILE *f, uint32_t errors)
{
	fprintf(f, "# Out of bounds values : %" PRIu32 " %s\n", errors, errors ? "FAILED" : "OK");
}

void cc_results_print_summary(FILE *f, const struct cc_results_summary *sum)
{
	cc_results_print_errors(f, sum->errors);
	/* nccl-tests: "%g %s" with an empty verdict unless NCCL_TESTS_MIN_BW is
	 * set, hence the trailing space. */
	if (sum->bw_count)
		fprintf(f, "# Avg bus bandwidth    : %g %s\n", sum->bw_sum / sum->bw_count, "");
	else
		fprintf(f, "# Avg bus bandwidth    : %s %s\n", "N/A", "");
	fprintf(f, "#\n");
}

/* ---- CSV ---- */

void cc_csv_str(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!s[strcspn(s, ",\"\r\n")]) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}
