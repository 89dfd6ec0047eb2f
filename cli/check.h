/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/check.h — pieces shared between the commands with nccl-tests' size
 * loop (`cclab check`, `cclab sim`, `cclab run`'s verbs ranks; `schedule`
 * uses cli_build): building one size's schedule, the loop on an executor
 * and its table rows, and the JSON report. */
#ifndef CCLAB_CLI_CHECK_H
#define CCLAB_CLI_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/cli.h"
#include "core/exec.h"
#include "core/exec_data.h"
#include "core/results.h"
#include "core/schedule.h"
#include "sim/net.h"
#include "sim/params.h"
#include "util/atomic_file.h"
#include "util/json.h"

/* Builds the schedule of o's collective for a -b/-e size of `bytes`
 * (nccl-tests' count convention, cc_result_counts()).  Returns 0 with *out,
 * *count and *size set, or an exit code after a message on stderr:
 * CLI_EXIT_USAGE when cc_build() rejects the parameters, CLI_EXIT_FAIL when
 * memory ran out. */
int cli_build(const struct cli_opts *o, uint64_t bytes, struct cc_schedule **out,
	      uint64_t *count, uint64_t *size);
/* cli_build with cc_build_with()'s options (core/algo.h): a build past its
 * deadline returns CLI_BUILD_TIME_LIMIT, with *out NULL, *count and *size
 * set and nothing said (the caller reports the size as a time limit). */
#define CLI_BUILD_TIME_LIMIT (-1)
struct cc_build_opts;
int cli_build_with(const struct cli_opts *o, uint64_t bytes, const struct cc_build_opts *bo,
		   struct cc_schedule **out, uint64_t *count, uint64_t *size);
/* cli_build_with() saying what it says on errs rather than stderr (a size
 * built beside others keeps its messages for their turn, cli/loop.c). */
int cli_build_to(const struct cli_opts *o, uint64_t bytes, const struct cc_build_opts *bo,
		 struct cc_schedule **out, uint64_t *count, uint64_t *size, FILE *errs);
/* o's collective as it runs at the size column `size`: o->p with, under
 * `auto` (o->nccl), NCCL's choice of algorithm, protocol and channels and
 * the slot and chunk sizes that go with the protocol, *pick set (NULL: not
 * wanted).  0, or -ENOENT with a message in err when NCCL_ALGO and
 * NCCL_PROTO leave nothing cclab builds. */
int cli_size_params(const struct cli_opts *o, uint64_t size, struct cc_coll_params *p,
		    struct cc_nccl_pick *pick, char *err, size_t len);
/* What a finished row ran with: cli_size_params() at its size, o->p
 * where that fails (what the CSV names, what the physics check judges). */
struct cc_result_row;
void cli_row_params(const struct cli_opts *o, const struct cc_result_row *row,
		    struct cc_coll_params *p);
/* The deadline of a size whose wall-clock limit (--wall-limit, o's
 * wall_limit_ms; 0 none) starts at start_ns: 0 for none. */
uint64_t cli_wall_deadline(uint64_t wall_limit_ms, uint64_t start_ns);

/* ---- cli/loop.c: nccl-tests' size loop ---- */

/* The size after `size` in o's sweep (cc_result_next_size()), or false
 * when the loop ends. */
bool cli_next_size(const struct cli_opts *o, uint64_t *size);

/* The preamble's executor-independent lines on stdout: the collective and
 * its parameters, the size range ("validation: 0|1" as nccl-tests' -c);
 * then, after the command's own lines, the chunk and slot sizes, with
 * auto_line the line that says NCCL's choice is noted after each row. */
void cli_preamble_begin(const struct cli_opts *o, bool validation);
void cli_preamble_buffers(const struct cli_opts *o, bool auto_line);
/* "# PCIe: ..." where network net has PCIe switches (sim_net_pcie_text()),
 * nothing otherwise; net may be NULL. */
void cli_print_pcie(const struct sim_net *net, const struct sim_params *fabric);

/* Where a size's results go besides stdout: the --json report (NULL
 * without) and the --csv file (NULL without). */
struct cli_sink {
	struct cc_json *j;
	FILE *csv;
};

/* One size as the loop ran it, for the command's hooks. */
struct cli_size {
	const struct cc_schedule *s; /* NULL: the build passed its wall-clock deadline */
	void *res;                   /* the executor's result; NULL with s NULL */
	const struct cc_run_error *err; /* how the run (or the build) ended */
	struct cc_result_row row;    /* from the executor's error, wrong and time */
	double bound_us;             /* --csv's bound_us column; < 0: none */
};

/* A table other than cclab's, for a front end with its own text
 * (nccl-tests' mode, cli/nccl_tests_out.c): the loop calls header() where
 * it would print the command's preamble, the "#" line and the column
 * header, row() for each row, and prints no summary (the front end closes
 * its table itself, after every sweep of it). */
struct cli_table {
	void (*header)(const struct cli_opts *o, void *ctx);
	void (*row)(const struct cli_opts *o, void *ctx, const struct cc_result_row *row);
	void *ctx;
};

/* nccl-tests' size loop on one executor, driven through its descriptor
 * (core/exec.h): for each size the loop builds the schedule, runs it with
 * x->run(), makes the row from x->error(), x->wrong() and x->time_us()
 * (NaN: no time), prints it with its --csv line, and decides whether the
 * size passed (it ran to completion with #wrong 0 where checked).  The
 * hooks are what is the command's own; ctx is its state.  A new executor
 * is its descriptor and one of these. */
struct cli_loop {
	const struct cc_executor_ops *x;
	/* The executor runs one rank in this process, `rank` (verbs: a
	 * process per rank): each size is built with that rank's ops alone
	 * (cc_build_opts.one_rank), memory growing with k, not k^2. */
	bool one_rank;
	uint32_t rank;
	/* The executor runs schedules generated as they run (the simulator):
	 * a size without --fault (which names ops the build must check) is
	 * generated where its algorithm allows (cc_build_opts.generated),
	 * memory following what is in flight. */
	bool generates;
	/* The size's build stops at --wall-limit (o->wall_limit_ms, from the
	 * size's start), and a size that carries no data is built timing
	 * only (Simple's staging never allocated): for an executor that
	 * honours that limit and touches no staging it does not check (the
	 * simulator). */
	bool wall_limited;
	/* cli_json_begin(), the command's parameters, and the "sizes" array
	 * opened (only with --json). */
	void (*json_begin)(struct cc_json *j, const struct cli_opts *o);
	/* The preamble; the loop adds the "#" line and the table header. */
	void (*preamble)(const struct cli_opts *o, void *ctx); /* ctx: cli_loop.ctx */
	/* NULL (o->check for every size), or whether a size carries data:
	 * the loop then builds its largest size, and weighs the largest that
	 * carries data, before the first row (cli_loop_run()). */
	bool (*carries)(const struct cli_opts *o, uint64_t bytes);
	/* NULL (none), or the executor's own setting for one size (x->run()'s
	 * ctx), called before its build with c filled from o (seeds, faults,
	 * whether it carries data) and the size's start on cc_clock_ns();
	 * `last`: the sweep's last size; `own`: setting_size bytes that are
	 * this size's alone (NULL when setting_size is 0).  With `jobs` it
	 * runs beside other sizes' builds and runs: it may write `own` but
	 * not ctx. */
	const void *(*setting)(const struct cli_opts *o, void *ctx, struct cc_exec_common *c,
			       uint64_t start_ns, bool last, void *own);
	size_t setting_size;
	/* NULL: one size at a time.  Else sizes may be built and run at once
	 * (o->jobs, cli/loop_jobs.c), their rows still printed in order by
	 * the hooks below: the bytes a size's run will hold, from its
	 * parameters before the build (s NULL) or from its schedule, which
	 * the sizes running at once share a budget of (cli/mem_budget.h). */
	double (*mem_need)(const struct cli_opts *o, void *ctx, const struct cc_schedule *s,
			   uint64_t bytes, bool check);
	/* NULL, or for a run x->run() refused (rc a negative errno, err its
	 * message): says why on stderr and returns the exit code that ends
	 * the loop.  NULL: -E2BIG is cli_refuse_memory(), anything else
	 * "cclab CMD: EXECUTOR executor, SIZE bytes: err". */
	int (*refused)(const struct cli_opts *o, void *ctx, uint64_t size, int rc,
		       const char *err);
	/* NULL, or completes z->row and z->bound_us of a run before the row
	 * is printed (the verbs ranks' time, averaged as nccl-tests does; the
	 * simulator's bound).  0, or an exit code after a message. */
	int (*before_row)(const struct cli_opts *o, void *ctx, struct cli_size *z);
	/* NULL, or after the row is printed (z->s NULL: the build passed its
	 * deadline, nothing ran): the command's own checks and notes on
	 * stderr, and its entry in out->j when not NULL.  false fails the
	 * size.  What it keeps of z->res (the simulator's link counters) it
	 * takes out of it; the loop frees the rest (x->result_free()). */
	bool (*after_row)(const struct cli_opts *o, void *ctx, const struct cli_size *z,
			  const struct cli_sink *out);
	/* NULL, or called once after the summary when every size ran: its
	 * other outputs.  0 or an exit code; the report is written anyway and
	 * says "ok": false. */
	int (*finish)(const struct cli_opts *o, void *ctx);
	void *ctx;
	const struct cli_table *table; /* NULL: cclab's table */
};

/* Runs the loop from -b to -e: opens the --json file before the first size
 * (an unwritable path: exit 1 before any row), refuses a sweep whose
 * largest size cannot be built or whose largest data-carrying size would
 * not fit in memory (before any row, not after the smaller sizes ran),
 * prints the preamble, the table and its summary, writes the report.
 * Returns the exit code: 0 only if every size passed, finish succeeded
 * and the report was written. */
int cli_loop_run(const struct cli_opts *o, const struct cli_loop *l);

/* ---- cli/loop_size.c: one size of the loop ---- */

/* One size, built and run, until its row is reported. */
struct cli_size_run {
	uint64_t bytes;      /* the size column's -b value it was asked for */
	bool last;           /* the sweep's last size */
	bool check;          /* it carries data */
	int rc;              /* cli_build_to()'s: 0, CLI_BUILD_TIME_LIMIT or an exit code */
	int run_rc;          /* x->run()'s, with err */
	struct cc_schedule *s; /* NULL: not built */
	void *res;           /* the executor's result (x->result_size bytes) */
	void *setting;       /* setting_size bytes for l->setting() */
	const void *ctx;     /* what l->setting() returned: x->run()'s ctx */
	struct cc_exec_common c; /* the run's common options (c.cancel: the caller's) */
	uint64_t count, size;
	char err[512];
};
/* Builds r->bytes's schedule (r->s; r->rc) with the size's setting; what
 * the build says goes to errs.  Then cli_size_run() runs it.  Neither
 * touches anything of the loop but r (and, through setting(), its own
 * storage): sizes may do them at once. */
void cli_size_build(const struct cli_opts *o, const struct cli_loop *l, struct cli_size_run *r,
		    FILE *errs);
/* Whether size `bytes` carries data: l->carries(), else o->check. */
bool cli_size_carried(const struct cli_opts *o, const struct cli_loop *l, uint64_t bytes);
void cli_size_run(const struct cli_loop *l, struct cli_size_run *r);
/* Prints r's row and adds it to sum, writes its --csv line and, through
 * the hooks, its report entry; frees its schedule and result.  Returns 0
 * (*ok: the size passed) or an exit code that ends the loop, after a
 * message. */
int cli_size_report(const struct cli_opts *o, const struct cli_loop *l, struct cli_size_run *r,
		    struct cc_results_summary *sum, const struct cli_sink *out, bool *ok);
/* Frees r's schedule and result, if it has them. */
void cli_size_run_clear(const struct cli_loop *l, struct cli_size_run *r);

/* ---- cli/loop_jobs.c: sizes at once ---- */

/* The sizes of `runs` (n, in the loop's order, each with bytes, last, res
 * and setting set) built and run on up to `jobs` threads, and reported in
 * order as each is done, through cli_size_report().  Returns as the loop
 * would: 0 with *all_ok, or the first exit code (the sizes after it are
 * not reported). */
int cli_loop_jobs(const struct cli_opts *o, const struct cli_loop *l, struct cli_size_run *runs,
		  uint32_t n, uint32_t jobs, struct cc_results_summary *sum,
		  const struct cli_sink *out, bool *all_ok, void (*progress)(uint32_t done, uint32_t n));

/* The --csv file's first line. */
void cli_csv_header(FILE *f);

/* "the buffers of all ranks would not fit" for a size, on stderr, with
 * what to do instead under `sim` and `run`. */
void cli_refuse_memory(const struct cli_opts *o, uint64_t size);

/* ---- the --json report ----
 *
 * cli/report_json.c writes what every command shares; each command begins
 * with cli_json_begin() plus its own parameters and opens the "sizes"
 * array, writes one entry per size (cli_json_size_begin(), its members,
 * cc_json_object_end()), then cli_json_end(), which closes the document
 * with "ok", writes it to af (opened with cc_atomic_open() before the run,
 * so an unwritable path fails at once, not after the run) and commits it;
 * or aborts af on error.  Returns 0 or -errno. */

/* "ok", "completion_error", "post_error", "deadlock". */
const char *cli_run_status_name(enum cc_run_status st);

/* Opens the top-level object of any command's --json file with what every
 * one starts with: "cclab_version", "command" and "schema_version", the
 * version of its layout (docs/schemas/, report_json.c's table). */
void cli_json_head(struct cc_json *j, const char *command);
/* Opens the top-level object: version, command, executor, and every
 * parameter of o's collective and size loop, up to "seed". */
void cli_json_begin(struct cc_json *j, const struct cli_opts *o, const char *executor);
/* Opens a size's object: bytes, count, dtype, redop. */
void cli_json_size_begin(struct cc_json *j, const struct cc_result_row *row);
/* key: v, or null when !have (a run without a time has no bandwidth). */
void cli_json_double_or_null(struct cc_json *j, const char *key, bool have, double v);
/* "status", and for a failed run an "error" object. */
void cli_json_status(struct cc_json *j, const struct cc_run_error *e);
/* af NULL: the document is only closed, its text left in j->buf, j->len
 * (`cclab run`'s comparison without --json). */
int cli_json_end(struct cc_json *j, struct cc_atomic_file *af, bool ok);
/* Finishes a whole document (cc_json_finish()), writes it to af and
 * commits it; aborts af on error.  0 or -errno. */
int cli_json_write(struct cc_json *j, struct cc_atomic_file *af);

/* cli/check_json.c: `cclab check`'s own parts. */
void check_json_begin(struct cc_json *j, const struct cli_opts *o);
void check_json_size(struct cc_json *j, const struct cc_result_row *row,
		     const struct cc_schedule *s, const struct cc_data_result *res);

#endif
