/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/validate.h — `cclab validate [DIR...]`: every case of the corpus of
 * published measurements (validation/, docs/validation.md) simulated at
 * the sizes it measured, predicted beside measured, and how far off the
 * model is, case by case and over the corpus.  In five files:
 *   cli/validate_load.c   the cases: scenario.yaml, measured.csv, source.md;
 *   cli/validate_run.c    each measured size on the simulator;
 *   cli/validate_score.c  the figures: errors per case and per class;
 *   cli/validate_out.c    the report on stdout, --json, --csv;
 *   cli/cmd_validate.c    the command line, the baseline gate.
 *
 * A case is a folder with
 *   scenario.yaml  the hardware and the run as the source describes them
 *                  (a cclab scenario: a collective, or a `p2p:` test);
 *   measured.csv   the source's table, unedited, in one of four headers:
 *                  nccl-tests' columns, perftest's bandwidth columns (in
 *                  MB/sec, or Gb/sec as --report_gbits prints) or its
 *                  latency columns (docs/validation.md); cells the source
 *                  did not print are empty;
 *   source.md      where it comes from; its ```yaml facts block gives the
 *                  report the source's url and title.
 *
 * The figures (docs/validation.md, "What is measured"):
 *   large  busbw (a collective) or average bandwidth (perftest bw) at the
 *          largest sizes compared: the sizes within a factor of 4 of the
 *          largest, their mean signed error predicted / measured - 1; only
 *          where the largest is above VAL_SMALL_MAX;
 *   small  time (a collective) or typical latency (perftest lat) at the
 *          smallest sizes: within a factor of 4 of the smallest and at
 *          most VAL_SMALL_MAX bytes;
 *   half   the size at which busbw (or bandwidth) first reaches half of
 *          its peak, interpolated between sizes on log-log axes; the error
 *          is the factor between predicted and measured, as a percentage
 *          (x2 either way: 100 %); where "large" has a figure.
 * Beside them, not a class: the sizes of "large" as a line, time = fixed +
 * size / rate (cc_result_line), measured and predicted over the same
 * sizes, where a collective has times at two of them or more: whether a
 * miss there is of the rate or of a fixed part.
 * A collective's measured busbw is recomputed from its printed time by
 * nccl-tests' formula (two decimals of GB/s are no figure on a slow
 * fabric); a busbw printed without a time is taken as it is.
 * Over the corpus each class has the median and the worst absolute error,
 * and the case that has the worst.
 */
#ifndef CCLAB_CLI_VALIDATE_H
#define CCLAB_CLI_VALIDATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/cli.h"
#include "core/results.h"
#include "sim/scenario.h"

#define VAL_SMALL_MAX (UINT64_C(64) << 10) /* 64 KiB: what counts as a small message */
#define VAL_SPAN CC_RESULT_SPAN /* sizes within this factor of the largest / smallest */
#define VAL_MAX_DIRS 64
#define VAL_MAX_JOBS 64
#define VAL_TEXT_LEN 256
#define VAL_ABOVE_CAP "above --max-bytes: not simulated" /* a point's status */

enum val_kind { VAL_COLL, VAL_BW, VAL_LAT, VAL_KIND_COUNT };
extern const char *const val_kind_name[VAL_KIND_COUNT]; /* "nccl-tests", ... */

enum val_class { VAL_LARGE, VAL_SMALL, VAL_HALF, VAL_CLASS_COUNT };
extern const char *const val_class_name[VAL_CLASS_COUNT]; /* "large", "small", "half" */

/* One size of a case.  Bandwidths in the units of the source's table:
 * GB/s (10^9 B/s) busbw for nccl-tests, MB/sec (2^20 B/s) for perftest. */
struct val_point {
	uint64_t size, count;
	uint32_t line;          /* in measured.csv */
	bool measured;          /* the table has a figure of this size (not N/A) */
	bool has_time, has_bw;  /* ... and which: a published summary may give one */
	double meas_time_us;    /* time (nccl-tests), t_typical (perftest lat) */
	double meas_bw;         /* busbw (nccl-tests), BW average (perftest bw) */
	bool predicted;         /* the simulator ran this size */
	double pred_time_us, pred_bw;
	char status[VAL_TEXT_LEN + 64]; /* "ok", or why there is no prediction */
	/* `auto`: what NCCL chose at this size and what ran ("" otherwise) */
	char nccl[CC_NCCL_PICK_TEXT_LEN];
	bool launch_bound;      /* the launching thread set the time (sim/launch.h) */
	/* A ring on Simple: the primitives one rank runs in series on a
	 * channel (cc_ring_primitives(), NCCL's runRing) and their chunks'
	 * bytes; 0 for any other run. */
	double ring_steps, ring_bytes;
};

struct val_case {
	char *dir;              /* the folder, as found */
	char *name;             /* its last component: the case's name */
	char url[VAL_TEXT_LEN], title[VAL_TEXT_LEN];
	enum val_kind kind;
	struct cc_scenario sc;
	bool loaded;            /* sc holds a scenario to free */
	struct val_point *pts;
	uint32_t npts;
	double busbw_factor;    /* nccl-tests' for the collective, 1 for perftest */
	const char *bw_unit;    /* "GB/s" (busbw), "MB/sec" or "Gb/sec" (perftest) */
	double bw_per_mib_s;    /* perftest: the table's unit per MB/sec (2^20 B/s) */
	/* The figures (cli/validate_score.c); have[c] false where the case has
	 * no size for the class. */
	bool have[VAL_CLASS_COUNT];
	double err_pct[VAL_CLASS_COUNT]; /* signed: predicted / measured - 1 (half: the factor) */
	uint64_t at_lo[VAL_CLASS_COUNT], at_hi[VAL_CLASS_COUNT]; /* sizes it covers */
	double half_meas, half_pred; /* the half-peak sizes, bytes */
	/* The large sizes as a line: [0] measured, [1] predicted, over
	 * line_sizes sizes from at_lo[VAL_LARGE] to at_hi[VAL_LARGE]. */
	bool have_line;
	uint32_t line_sizes;
	double line_fixed_us[2], line_busbw[2];
	/* The ring's step as a line over the sizes that ran it, time =
	 * steps x fixed + chunk bytes / rate (docs/validation.md, "What a
	 * ring step costs"): [0] measured, [1] predicted, the rate a
	 * channel's, GB/s. */
	bool have_step;
	uint32_t step_sizes;
	double step_fixed_us[2], step_rate[2];
};

/* The corpus-wide figures of one class. */
struct val_class_sum {
	uint32_t n;
	double median_abs_pct, worst_abs_pct;
	const struct val_case *worst;
};

struct val_args {
	const char *dirs[VAL_MAX_DIRS];
	uint32_t ndirs;
	const char *sets[CLI_MAX_SETS]; /* --set KEY=VALUE for every case */
	uint32_t nsets;
	const char *json, *csv;
	const char *baseline;       /* --baseline FILE: fail if a class is worse */
	const char *write_baseline; /* --write-baseline FILE */
	uint64_t max_bytes;         /* --max-bytes: larger sizes are not simulated */
	uint32_t max_iters;         /* --max-iters: perftest iterations simulated, at most */
	uint64_t wall_limit_ms;     /* per size, as `cclab sim --wall-limit` */
	double tolerance_pp;        /* --tolerance: percentage points (1) */
	bool quiet;                 /* --quiet: the summary only */
	uint32_t jobs;              /* --jobs: cases at once; 0: the processors */
	enum cc_sim_model model;    /* --model, for the collective cases */
	bool model_given;
};

/* cli/validate_load.c.  The cases under the folders named (a folder with
 * a scenario.yaml is a case; else each of its subfolders with one, in
 * name order).  0, or an exit status after a message naming the file,
 * line and column of what is wrong. */
int val_cases_load(const struct val_args *a, struct val_case **out, uint32_t *n);
void val_cases_free(struct val_case *c, uint32_t n);

/* cli/validate_run.c.  Simulates every measured size of c up to
 * a->max_bytes (and its smallest, when all are above it); a size that
 * cannot be simulated gets its reason in status.  0, or CLI_EXIT_FAIL
 * when the simulator itself failed. */
int val_case_run(const struct val_args *a, struct val_case *c);

/* cli/validate_score.c */
void val_case_score(struct val_case *c);
void val_classes(const struct val_case *c, uint32_t n, struct val_class_sum sum[VAL_CLASS_COUNT]);
/* |err| of class k of case c, as the class sums and the baseline count it. */
double val_abs_pct(const struct val_case *c, enum val_class k);

/* cli/validate_out.c */
void val_print_case(FILE *f, const struct val_case *c, bool points);
void val_print_summary(FILE *f, const struct val_case *c, uint32_t n,
		       const struct val_class_sum sum[VAL_CLASS_COUNT]);
/* The report up to its open "cases" array, which cli_json_end() closes. */
void val_json(struct cc_json *j, const struct val_args *a, const struct val_case *c, uint32_t n,
	      const struct val_class_sum sum[VAL_CLASS_COUNT]);
void val_csv(FILE *f, const struct val_case *c, uint32_t n);

#endif /* CCLAB_CLI_VALIDATE_H */
