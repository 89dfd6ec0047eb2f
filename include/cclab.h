/* SPDX-License-Identifier: BSD-3-Clause */
/* include/cclab.h — libcclab's public interface: load a scenario, build one
 * size's schedule, run it on the simulator or the data executor, read the
 * row `cclab run` prints for it.
 *
 * The figures are the command line's own: the same scenario loader, the
 * same build (NCCL's choice per size where the scenario says `auto`) and
 * the same executors, so a row here equals the row `cclab run FILE` prints
 * for that size (tests/test_install.sh checks it on an installed copy).
 *
 * Every handle is opaque.  A struct the caller passes starts with its own
 * size (set it to sizeof): structs only grow at their end, a program built
 * against an older header passes the older size and gets the fields it
 * knows, and the soname's major number (libcclab.so.0) changes only when a
 * function is removed or changes meaning.  Functions return 0 or a
 * negative errno, with a one-line message in err (the same words the
 * command line prints) when err is not NULL; a NULL handle is -EINVAL.
 * Nothing here prints, exits or keeps state between calls, except on a
 * broken internal invariant — a cclab bug — which prints it and aborts, as
 * the command line does.  Handles may be used from several threads as long
 * as one handle is not used by two at once.  A simulation stops at
 * cclab_run_with's wall-clock limit or cancel flag, else after a simulated
 * hour when it cannot finish.
 */
#ifndef CCLAB_H
#define CCLAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CCLAB_VERSION_MAJOR 0
#define CCLAB_VERSION_MINOR 1
#define CCLAB_VERSION_PATCH 0
#define CCLAB_VERSION_STRING "0.1.0"

/* The library's version, "0.1.0": compare with the header's macros to see
 * that the program runs against the library it was built for. */
const char *cclab_version(void);

/* ---- scenarios (docs/yaml.md) ---- */

typedef struct cclab_scenario cclab_scenario;

/* Loads the scenario file at path, with nsets KEY=VALUE overrides applied
 * as `cclab run --set` applies them (sets may be NULL when nsets is 0).
 * A bad file or value: -EINVAL, and err names file:line:column. */
int cclab_scenario_load(const char *path, const char *const *sets, unsigned nsets,
			cclab_scenario **out, char *err, size_t errlen);
void cclab_scenario_free(cclab_scenario *sc);

/* The scenario's name, collective ("allreduce", ...) and rank count. */
const char *cclab_scenario_name(const cclab_scenario *sc);
const char *cclab_scenario_collective(const cclab_scenario *sc);
unsigned cclab_scenario_nranks(const cclab_scenario *sc);

/* The sizes the scenario's loop runs (bytes, in order, nccl-tests' -b -e
 * -f): the count of them, and the first min(count, cap) in sizes.  sizes
 * may be NULL to ask for the count. */
size_t cclab_scenario_sizes(const cclab_scenario *sc, uint64_t *sizes, size_t cap);

/* ---- schedules (docs/schedule.md) ---- */

typedef struct cclab_schedule cclab_schedule;

/* One size of the scenario's collective, built as the command line builds
 * it: bytes is nccl-tests' size column.  -EINVAL for parameters the
 * algorithm refuses, -ENOMEM, -E2BIG for a schedule past this machine's
 * memory. */
int cclab_schedule_build(const cclab_scenario *sc, uint64_t bytes, cclab_schedule **out,
			 char *err, size_t errlen);
void cclab_schedule_free(cclab_schedule *s);

struct cclab_schedule_info {
	size_t size;          /* the caller sets sizeof(struct cclab_schedule_info) */
	uint64_t bytes;       /* the size column */
	uint64_t count;       /* elements, nccl-tests' count column */
	unsigned nranks;
	uint64_t ops;         /* every rank's ops */
	uint64_t max_rank_ops;
	uint64_t qps;         /* every rank's queue pairs */
	char algorithm[32];   /* what was built: "ring", ... (NCCL's pick under auto) */
	char protocol[16];    /* "simple", "ll", "ll128" */
	unsigned channels;
	uint64_t chunk_bytes;
};
int cclab_schedule_info(const cclab_schedule *s, struct cclab_schedule_info *info);

/* ---- runs ---- */

enum cclab_executor {
	CCLAB_EXEC_SIM,  /* the discrete-event simulator of the scenario's fabric */
	CCLAB_EXEC_DATA, /* the data executor: carries every byte, no time */
};

/* One row of the table `cclab run` prints. */
struct cclab_row {
	size_t size;          /* the caller sets sizeof(struct cclab_row) */
	uint64_t bytes;       /* size column */
	uint64_t count;
	double time_us;       /* simulated time; NaN for the data executor */
	double algbw_gbs;     /* nccl-tests' algbw and busbw, GB/s (1e9 B/s); NaN without time */
	double busbw_gbs;
	uint64_t wrong;       /* output elements off the reference; 0 when not checked */
	int checked;          /* the run carried data and counted wrong */
	int ok;               /* the run ended well (every op done, no error completion) */
	char error[256];      /* how it ended otherwise, one line; "" when ok */
	uint64_t max_rank_data_bytes; /* the most collective data one rank's WQEs carried */
	uint64_t events;      /* simulator events (0 for the data executor) */
};

/* Runs schedule s (built from sc) on executor x with the scenario's seed,
 * faults and fabric; check carries data and counts wrong outputs (the
 * data executor always does).  0 when the run was carried out — row->ok
 * says how it ended — or a negative errno when it could not be. */
int cclab_run(const cclab_scenario *sc, const cclab_schedule *s, enum cclab_executor x,
	      int check, struct cclab_row *row, char *err, size_t errlen);

/* How a run may be stopped before its end (cclab_run_with). */
struct cclab_run_opts {
	size_t size;            /* the caller sets sizeof(struct cclab_run_opts) */
	int check;              /* 1: carry data and count wrong; 0: timing only;
				 * -1: as the scenario's check: says for the size */
	uint64_t wall_limit_ms; /* stop the simulation after this much real time; 0: none */
	/* NULL, or a flag another thread sets (an atomic store of true) to
	 * stop the simulation at its next check, within a few ms.  A run
	 * stopped either way ends with ok 0 and "time limit reached: ..." in
	 * error; the data executor runs to its end regardless. */
	const bool *cancel;
};

/* cclab_run with opts (NULL: check -1, no limit, no cancel). */
int cclab_run_with(const cclab_scenario *sc, const cclab_schedule *s, enum cclab_executor x,
		   const struct cclab_run_opts *opts, struct cclab_row *row, char *err,
		   size_t errlen);

/* cclab_schedule_build then cclab_run for one size, checking data where
 * the scenario's check_max says so, as `cclab run` does. */
int cclab_run_size(const cclab_scenario *sc, uint64_t bytes, enum cclab_executor x,
		   struct cclab_row *row, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* CCLAB_H */
