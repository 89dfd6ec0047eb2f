/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/tune.h — `cclab tune SCENARIO.yaml`: every algorithm x protocol x
 * transport of a scenario's collective on the simulator, size by size,
 * and the winner of each size with its margin over the runner-up
 * (docs/tune.md).  The simulator's answer to NCCL's tuning table, in four
 * files:
 *   cli/tune_args.c   the command line and the help;
 *   cli/cmd_tune.c    the runs and the ranking;
 *   cli/tune_table.c  the preamble, the table, the summary on stdout;
 *   cli/tune_out.c    --json and --csv, from the finished table.
 */
#ifndef CCLAB_CLI_TUNE_H
#define CCLAB_CLI_TUNE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/launch_share.h"
#include "cli/mem_budget.h"
#include "core/nccl_tune.h"
#include "core/schedule.h"
#include "sim/time.h"
#include "util/atomic_file.h"
#include "util/mem_limit.h"

struct cc_scenario; /* sim/scenario.h */

#define TUNE_MAX_CHANNELS 4 /* channel counts --channels may list */
#define TUNE_MAX_JOBS 256   /* threads --jobs may ask for */

/* The command line (cli/tune_args.c). */
struct tune_args {
	/* sim's options, when there is no scenario: the setting they make */
	struct cli_opts o;
	const char *scenario;
	const char *sets[CLI_MAX_SETS]; /* --set KEY=VALUE, in order */
	uint32_t nsets;
	const char *json, *csv;
	bool all; /* --all: a table column per candidate */
	/* --channels and --ring-orders: the ring's layouts to try (0: the
	 * scenario's channels; the scenario's order, and rail too when the
	 * topology has nodes). */
	uint32_t channels[TUNE_MAX_CHANNELS], nchannels;
	bool order_given[CC_RING_ORDER_COUNT], orders_given;
	uint32_t jobs; /* --jobs: runs at once; 0: one per online processor */
	const char *out; /* --out DIR: the folder of a launcher's tasks' runs */
};

/* Parses argv[1..argc) (argv[0] is "tune").  CLI_EXIT_OK, with *help set
 * for -h/--help; or CLI_EXIT_USAGE after one message and a hint. */
int tune_parse_args(int argc, char **argv, struct tune_args *a, bool *help);
/* Without a scenario: the one a's options stand for, as `cclab sim` runs
 * them (its topology built).  CLI_EXIT_OK, or an exit status after the
 * message; cc_scenario_free() it after. */
int tune_scenario(const struct tune_args *a, struct cc_scenario *sc);

/* Candidate c is variant c / TUNE_NPT, protocol c / CC_TRANSPORT_COUNT
 * % CC_PROTO_COUNT, transport c % CC_TRANSPORT_COUNT.  The variants are
 * the algorithms in enum order, the ring once per layout (ring order x
 * channel count, in the order given) and the tree once per channel count,
 * so ties and columns are the same on every run. */
#define TUNE_NPT (CC_PROTO_COUNT * CC_TRANSPORT_COUNT) /* a variant's */
#define TUNE_MAX_VARIANTS \
	(CC_ALGO_COUNT - 2 + (CC_RING_ORDER_COUNT + 1) * TUNE_MAX_CHANNELS)
#define TUNE_MAX_CAND (TUNE_MAX_VARIANTS * TUNE_NPT)
#define TUNE_REASON_LEN 256

enum tune_state {
	TUNE_OK,     /* ran to completion: time_ps is its time */
	TUNE_NA,     /* refused by the algorithm, protocol or topology: not applicable */
	TUNE_FAILED, /* ran and failed (a run error, no memory for the schedule) */
};

struct tune_cell {
	enum tune_state state;
	sim_time_ps time_ps;
	const char *status; /* cli_run_status_name() of the run, or "n/a" */
};

/* An algorithm as tune runs it: the ring with a ring order and a channel
 * count ("ring-rail-4ch"; plain "ring" is rank order on one channel), any
 * other algorithm on one channel. */
struct tune_variant {
	enum cc_algo algo;
	enum cc_ring_order order;
	uint32_t channels;
	char label[32];
};

struct tune_cand {
	int variant;                   /* index in tune.variants */
	enum cc_algo algo;
	enum cc_proto proto;
	enum cc_transport transport;
	char name[80];                 /* "ring-rail-4ch/ll128/write_imm" */
	bool refused;                  /* n/a at some size */
	char reason[TUNE_REASON_LEN];  /* the first refusal's */
};

struct tune_size {
	uint64_t bytes, count;  /* nccl-tests' size and count columns */
	struct tune_cell cell[TUNE_MAX_CAND];
	int best, second;       /* candidate indices; -1: none */
};

struct tune {
	const struct cc_scenario *sc;
	double busbw_factor;    /* cc_busbw_factor() of the collective */
	struct tune_variant variants[TUNE_MAX_VARIANTS];
	int nvariants, ncand;   /* ncand = nvariants * TUNE_NPT */
	struct tune_cand cand[TUNE_MAX_CAND];
	/* Each protocol's slot and chunk (cc_coll_params_fill()). */
	uint64_t slot_bytes[CC_PROTO_COUNT], chunk_bytes[CC_PROTO_COUNT];
	struct tune_size *sizes;
	uint32_t nsizes;
	uint32_t failures;      /* failed runs, and sizes where nothing ran */
	bool tty;               /* stderr is a terminal: a progress line */
	bool all;               /* --all */
	uint32_t jobs;          /* runs of one size at once (threads) */
	struct cli_mem_budget mem;    /* what they share */
	/* NCCL's own choice at each size, beside the simulated best: its
	 * model for the scenario's topology, fabric, nccl_version and env
	 * (nccl_why: why there is none, "" when there is) */
	struct cc_nccl_comm nccl;
	char nccl_why[256];
};
/* What a run leaves to be said on stderr, in candidate order once every
 * run of its size has finished (runs go in parallel, the messages do not). */
struct tune_note {
	const char *status;          /* a failed run: its status; NULL: none */
	char why[TUNE_REASON_LEN];
	/* Ran out of memory beside other runs: run it again once they are
	 * done, alone (its cell is not filled yet). */
	bool retry;
};

/* Runs candidate c at size z alone (no other run holds memory) and fills
 * its cell and *n (cli/cmd_tune.c). */
void tune_run_one(struct tune *t, int c, struct tune_size *z, struct tune_note *n);

/* ---- cli/tune_share.c: the runs spread over a launcher's tasks ---- */
/* This task's runs (run r = size x candidates + candidate, r mod count ==
 * its index), each cell written to OUT/LAUNCH/, then its done marker.
 * 0, or -1 after a message. */
int tune_share_run(struct tune *t, const struct cli_share *sh, const char *out);
/* Rank 0: waits for every task's marker, then reads every cell into
 * t->sizes and the notes (nsizes x ncand, size-major) and the candidates'
 * first refusals.  0, or -1 after a message. */
int tune_share_collect(struct tune *t, const struct cli_share *sh, const char *out,
		       struct tune_note *notes);

/* NCCL's choice for size z as "Tree/LL 1ch", or "n/a" (cli/tune_table.c). */
const char *tune_nccl_text(const struct tune *t, const struct tune_size *z, char *buf,
			   size_t len);

/* A cell's time in microseconds. */
static inline double tune_us(sim_time_ps ps)
{
	return (double)ps / 1e6;
}

/* The fastest completed run of candidates first .. first + n - 1 of size
 * z (the first on a tie); -1 when none completed. */
int tune_fastest(const struct tune_size *z, int first, int n);
/* (runner-up / best - 1) * 100 for size z; false when it has no runner-up. */
bool tune_margin(const struct tune_size *z, double *pct);
/* nccl-tests' busbw (GB/s) of candidate c at size z; false when it has no
 * time. */
bool tune_busbw(const struct tune *t, const struct tune_size *z, int c, double *busbw);

/* stdout (cli/tune_table.c): the preamble and the table's header, once
 * the first size has run (it says which candidates apply); a row; after
 * the last row, per algorithm the sizes it wins and the protocol that is
 * its fastest at each size. */
void tune_print_head(const struct tune *t);
void tune_print_row(const struct tune *t, const struct tune_size *z);
void tune_print_summary(const struct tune *t);

/* The whole --json document, closed with "ok" and written to af
 * (cli_json_end()): 0 or -errno. */
int tune_json_write(const struct tune *t, struct cc_atomic_file *af, bool ok);
/* The --csv lines, header first, one per size x candidate. */
void tune_csv_write(const struct tune *t, FILE *f);

#endif
