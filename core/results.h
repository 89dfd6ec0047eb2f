/* SPDX-License-Identifier: BSD-3-Clause */
/* core/results.h — reporting results: nccl-tests' table and CSV fields (the
 * JSON writer is util/json.h, atomic result files util/atomic_file.h).
 *
 * The table is nccl-tests' stdout table (src/common.cu: the header printed
 * in run(), the row prefix in TimeTest(), the row body in BenchTime(), the
 * closing "# Out of bounds values" / "# Avg bus bandwidth" lines), with the
 * same columns, widths and number formats, cut to the out-of-place half:
 * cclab runs each collective once, out of place.  An executor that models
 * no time prints N/A in the time, algbw and busbw columns; a run that checks
 * no data prints N/A in #wrong, as nccl-tests does with -c 0.
 *
 * Bandwidths follow nccl-tests' *GetBw(): algbw = size / time in GB/s
 * (1e9 B/s), where size is the table's size column; busbw = algbw * factor
 * with factor = cc_busbw_factor() (core/algo.h).
 */
#ifndef CCLAB_CORE_RESULTS_H
#define CCLAB_CORE_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/nccl_auto.h"

#include "schedule.h"

/* ---- sizes and counts, nccl-tests' convention ---- */

/* From the size the user asked for (-b/-e) to the collective's count and the
 * size column, as nccl-tests' setupArgs() + *GetCollByteCount() do:
 *   allreduce:              count = bytes / eltsize,          size = count * eltsize
 *   reducescatter, allgather: count = bytes / eltsize / nranks, size = count * nranks * eltsize
 * (the table's size is the whole array, the count is per rank).  Recent
 * nccl-tests also round reduce-scatter and all-gather counts down to a
 * multiple of 16 bytes; we do not, so every count the user can ask for is
 * reachable.  nranks and eltsize must be >= 1. */
void cc_result_counts(enum cc_coll coll, uint32_t nranks, size_t eltsize, uint64_t bytes,
		      uint64_t *count, uint64_t *size);

/* The size after `size` in nccl-tests' loop (src/common.cu TimeTest():
 * size *= stepfactor while size <= maxbytes), or false when the loop ends.
 * nccl-tests never ends a loop that starts at 0 (0 * f = 0); we go on
 * with 1.  Overflow ends the loop. */
bool cc_result_next_size(uint64_t *size, uint64_t stepfactor, uint64_t maxbytes);

/* algbw and busbw in GB/s for `size` bytes in time_us microseconds.
 * Returns false (and stores nothing) when the time is unknown or not
 * positive. */
bool cc_result_bw(uint64_t size, double time_us, double busbw_factor, double *algbw,
		  double *busbw);

/* Sizes as a straight line, time = fixed + size / rate: the least-squares
 * line through n points (size bytes, time us).  Past its ramp a collective
 * takes a fixed part (pipeline fill and drain, per-collective costs) plus
 * its bytes at a rate; where a prediction misses, the two parts say which
 * of the two it misses.  *fixed_us is the intercept (it may come out
 * negative where the times bend), *busbw the rate in GB/s as nccl-tests
 * states it: bytes / 1e9 / s, times busbw_factor.  False (nothing stored)
 * with fewer than two distinct sizes, a time or busbw_factor not positive
 * and finite (one rank has no bus), or a slope not positive. */
bool cc_result_line(const uint64_t *size, const double *time_us, uint32_t n,
		    double busbw_factor, double *fixed_us, double *busbw);

/* What counts as a table's largest (smallest) sizes: those within this
 * factor of the largest (smallest): validate's `large` and `small`, and
 * the sizes the line is drawn through (validate, compare). */
#define CC_RESULT_SPAN 4.0

/* The measured and predicted times of the same n sizes as two lines
 * (cc_result_line): true, and fixed_us[0], busbw[0] (measured) and [1]
 * (predicted) stored, when both fit. */
bool cc_result_lines(const uint64_t *size, const double *meas_us, const double *pred_us,
		     uint32_t n, double busbw_factor, double fixed_us[2], double busbw[2]);

/* ---- the table ---- */

/* One row.  time_us < 0 (or NaN) means "no time": N/A columns. */
struct cc_result_row {
	uint64_t size;       /* bytes, the size column (see cc_result_counts) */
	uint64_t count;      /* elements, the count column */
	const char *type;    /* nccl-tests' type name: "float", "half", ... */
	const char *redop;   /* "sum", ...; "none" for all-gather, as nccl-tests */
	int root;            /* -1 for collectives without a root */
	uint64_t chunk_bytes; /* the chunk this size ran with (cc_coll_chunk_bytes) */
	uint64_t slot_bytes;  /* the slot it ran with; 0: not said */
	double time_us;
	double busbw_factor; /* cc_busbw_factor(coll, nranks) */
	uint64_t wrong;      /* #wrong */
	bool unchecked;      /* no data was checked: #wrong is N/A (nccl-tests -c 0) */
	bool failed;         /* run failed for another reason (deadlock, ...) */
	/* `auto`: NCCL's choice for this size and what ran (core/nccl_auto.h),
	 * noted after the row as NCCL_DEBUG=INFO would say it */
	bool nccl;
	struct cc_nccl_pick pick;
	/* the launching thread, not the collective, set the time (the
	 * simulator's launch floor, sim/launch.h): noted after the row */
	bool launch_bound;
};

#define CC_RESULT_NO_TIME (-1.0)

/* Three header lines: the out-of-place caption, the column names, the
 * units.  nccl-tests prints "#" on a line of its own just before. */
void cc_results_print_header(FILE *f);

/* One row, with its newline.  Also formats into buf (snprintf semantics:
 * returns the length the full row needs, without the newline). */
void cc_results_print_row(FILE *f, const struct cc_result_row *row);
int cc_results_format_row(char *buf, size_t len, const struct cc_result_row *row);

/* The closing lines, accumulated row by row as nccl-tests does: a row with
 * #wrong != 0 (or failed) counts one "out of bounds" error; busbw is
 * averaged over rows that have a time. */
struct cc_results_summary {
	uint32_t errors;
	uint32_t bw_count;
	double bw_sum;
};

void cc_results_summary_add(struct cc_results_summary *sum, const struct cc_result_row *row);
/* "# Out of bounds values : N OK|FAILED", "# Avg bus bandwidth    : X ",
 * "#".  X is N/A when no row had a time. */
void cc_results_print_summary(FILE *f, const struct cc_results_summary *sum);
/* Its first line alone, for tables that have no bus bandwidth (cclab p2p):
 * scripts look for it after every run. */
void cc_results_print_errors(FILE *f, uint32_t errors);

/* ---- CSV ----
 * One text field as RFC 4180 (section 2, rules 5-7) writes it: as it is,
 * or in double quotes, its own quotes doubled, when it holds a comma, a
 * double quote or a line break, so that a scenario named "a,b" stays one
 * column.  NULL writes an empty field. */
void cc_csv_str(FILE *f, const char *s);

#endif
