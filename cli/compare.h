/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/compare.h — `cclab compare`: a measured result file beside a
 * predicted one (docs/compare.md), in five files:
 *   cli/compare_load.c    reads and checks the --json files of `cclab sim`
 *                         and `cclab run`, and whether two of them compare;
 *   cli/compare_trace.c   reads the --trace CSV files, reduced to phases;
 *   cli/compare_phases.c  prints the per-phase tables and the table cells;
 *   cli/compare_args.c    the command line and the help;
 *   cli/cmd_compare.c     the command: the size table, --csv; cmp_report()
 *                         for `cclab run`, which has its results in memory.
 * Each error is one line on stderr with the file and, where there is one,
 * the line (and column) at fault; cmp_file_load() leaves the printing to
 * its caller. */
#ifndef CCLAB_CLI_COMPARE_H
#define CCLAB_CLI_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/yaml.h"

/* The command line (cli/compare_args.c). */
struct cmp_args {
	const char *file[2]; /* measured, predicted */
	const char *trace[2];
	const char *csv;
	bool have_max;
	double max_err;
};

/* Parses argv[1..argc) (argv[0] is "compare").  CLI_EXIT_OK, with *help
 * set for -h/--help; or CLI_EXIT_USAGE after one message and a hint. */
int cmp_parse_args(int argc, char **argv, struct cmp_args *a, bool *help);

/* One entry of "sizes".  A JSON null reads as NaN (times, bandwidth) or
 * wrong_known false, so "unknown" cannot be mistaken for a value. */
struct cmp_size {
	uint64_t bytes, count;
	uint64_t chunk_bytes;               /* the chunk it ran with; 0: not said */
	const char *dtype, *redop, *status; /* point into the document */
	double time_us, busbw;              /* NaN: null */
	bool wrong_known;
	uint64_t wrong;
	double time_min_us, time_max_us;    /* verbs files; NaN when absent or null */
	double bound_us;                    /* sim files; NaN when absent or null */
};

/* A result file: the keys compare needs, every string pointing into doc. */
struct cmp_file {
	const char *path;
	struct cy_doc doc;
	const char *command, *executor, *collective, *transport, *dtype, *redop, *memory;
	const char *where; /* fabric.name (sim) or device (verbs); "?" when neither says */
	uint64_t nranks, chunk_bytes, slot_bytes, nslots;
	struct cmp_size *sizes;
	size_t nsizes;
};

/* Loads and checks path.  0, or an error with err filled: -errno and
 * "path: reason" for a file that cannot be read, -EINVAL and
 * "path:line:col: what" for one that is not a collective's result file
 * (another command's, named for what it is; a key missing or of the
 * wrong type; a time or rate no run has), -ENOMEM.
 * On error f holds nothing to free; on success cmp_file_free() it. */
int cmp_file_load(const char *path, struct cmp_file *f, struct cy_error *err);
/* The same for a report in memory (`cclab run`'s runs), called name in
 * messages and in the table's head. */
int cmp_file_parse(const char *name, const char *text, size_t len, struct cmp_file *f,
		   struct cy_error *err);
void cmp_file_free(struct cmp_file *f);

/* The comparison of two loaded results (cli/cmd_compare.c), as `cclab
 * compare` prints it: their keys checked (cmp_check_comparable), a's traces
 * read, the size table and summary, a's --csv and --max-error.  Returns
 * the command's exit status; `cclab run` calls it with its two runs. */
int cmp_report(const struct cmp_args *a, const struct cmp_file *f[2]);

/* collective, nranks, dtype and redop must agree: else CLI_EXIT_USAGE after
 * a line per key that differs, naming both values and both files.
 * transport, memory, chunk_bytes (each size's, where both files give it),
 * slot_bytes, nslots, and where both files have them algorithm, protocol,
 * nchannels, ranks_per_node, ring_order, stage_memory, root and in_place
 * may differ, each difference a warning line on stderr.  CLI_EXIT_OK
 * otherwise. */
int cmp_check_comparable(const struct cmp_file *m, const struct cmp_file *p);

/* The entry of f for bytes, or NULL. */
const struct cmp_size *cmp_file_find(const struct cmp_file *f, uint64_t bytes);

/* (predicted - measured) / measured * 100; false when it is not defined (a
 * value unknown, the measured one not positive). */
bool cmp_error_pct(double measured, double predicted, double *pct);

/* ---- traces (cli/compare_trace.c) ---- */

/* The mechanisms of the second per-phase table, in its row order. */
enum cmp_mech { CMP_POST_CQE, CMP_CQE_POLL, CMP_DOORBELL, CMP_REDUCE, CMP_COPY, CMP_MECH_COUNT };

/* One primitive step: its span (one rank, one channel, one loop) averaged
 * over every rank, channel and loop that has it, and the primitive most of
 * its events belong to. */
struct cmp_step {
	uint32_t step;
	unsigned prim;   /* enum cc_prim */
	double span_us;
};

/* What a trace CSV file says, reduced to its phases as it is read, so a
 * trace of millions of events costs a few arrays of keys, not its text. */
struct cmp_phases {
	const char *path;
	uint64_t nevents;
	struct cmp_step *steps; /* ascending step */
	size_t nsteps;
	struct {
		uint64_t count;
		double sum_ps;
	} mech[CMP_MECH_COUNT];
};

/* Reads a trace written by --trace FILE.csv (core/trace.h) of a run of
 * nranks ranks (which numbers its loops, chunk / nranks).  Returns
 * CLI_EXIT_OK, or after one message on stderr CLI_EXIT_USAGE (unreadable,
 * not a trace, a line that does not parse or has a rank >= nranks, with
 * file:line; no events) or
 * CLI_EXIT_FAIL (out of memory).  ph holds nothing to free on error. */
int cmp_phases_load(const char *path, uint64_t nranks, struct cmp_phases *ph);
void cmp_phases_free(struct cmp_phases *ph);
/* The two tables, on stdout: steps, then mechanisms. */
void cmp_phases_print(const struct cmp_phases *meas, const struct cmp_phases *pred);

/* A table cell of `width` characters: two spaces, then the number
 * ("%.*f") or "N/A" when `known` is false, right-aligned; errors always
 * with their sign. */
void cmp_print_num(int width, int prec, bool known, double v);
void cmp_print_pct(int width, bool known, double pct);

#endif
