/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/sweep.h — `cclab sweep SCENARIO.yaml --grid KEY=V1,V2,...`: the
 * cartesian product of --set values, each point run as `cclab run` runs
 * the scenario, and one merged CSV and JSON (docs/cluster.md, "Sweeps").
 * In four files:
 *   cli/sweep_args.c   the command line, the grid and the help;
 *   cli/cmd_sweep.c    the points checked, the results folder, the share;
 *   cli/sweep_run.c    the points run, each a `cclab run` of its own;
 *   cli/sweep_merge.c  the merged CSV and JSON, in grid order.
 *
 * The results folder holds what a rerun needs to resume and what --merge
 * needs to join the shares of a Slurm array: sweep.txt (the sweep's
 * definition, compared on a rerun), scenario.yaml (the file's bytes, the
 * same), and per point P points/P.csv, P.json, P.out, P.err and, last,
 * P.status (its exit status and first error line): a point is done when it
 * has a status. */
#ifndef CCLAB_CLI_SWEEP_H
#define CCLAB_CLI_SWEEP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/launch_share.h"

#define SWEEP_MAX_KEYS 16u
#define SWEEP_MAX_VALUES 4096u
#define SWEEP_MAX_POINTS 1000000u
#define SWEEP_VALUE_MAX 256u /* bytes of one value */

struct sweep_key {
	const char *key;    /* "algorithm", "fabric.link.loss_ppb" */
	char **vals;        /* in the order given */
	uint32_t nvals;
};

struct sweep_args {
	const char *scenario;
	const char *sets[CLI_MAX_SETS]; /* --set: every point's */
	uint32_t nsets;
	struct sweep_key keys[SWEEP_MAX_KEYS]; /* --grid, the first outermost */
	uint32_t nkeys;
	const char *out;    /* --out DIR; NULL: SCENARIO's name + ".sweep" */
	const char *merge;  /* --merge DIR: join a folder's points, run nothing */
	const char *json, *csv; /* the merged files; NULL: in the folder */
	uint32_t jobs;      /* -j; 0: the default */
	/* --grid-file: the points listed (nlist of them, each nkeys value
	 * indices) rather than the product of the keys' values */
	const char *grid_file;
	uint32_t *list;
	uint64_t nlist;
};

/* A point's values: key i's value index idx[i]; the last key fastest. */
uint64_t sweep_npoints(const struct sweep_args *a);
void sweep_point_values(const struct sweep_args *a, uint64_t point, uint32_t *idx);

/* ---- cli/sweep_args.c ---- */
/* 0, or CLI_EXIT_USAGE after a message; *help for -h. */
int sweep_parse_args(int argc, char **argv, struct sweep_args *a, bool *help);
void sweep_args_free(struct sweep_args *a);
/* The definition line of key i ("grid: KEY=V1,V2"), for sweep.txt. */
void sweep_grid_line(const struct sweep_args *a, uint32_t i, FILE *f);
/* Reads back sweep.txt's scenario, set and grid lines (--merge), pointing
 * into text, whose newlines it ends the lines at; 0, or -EINVAL with why. */
int sweep_args_from_manifest(char *text, struct sweep_args *a, char *why, size_t len);

/* ---- cli/sweep_grid_file.c ---- */
struct cy_error;
/* Reads --grid-file's points (a YAML list of mappings) into a->keys and
 * a->list; 0, or an error with err's file:line:col message. */
int sweep_grid_file(struct sweep_args *a, const char *path, struct cy_error *err);

/* ---- cli/sweep_run.c ---- */
/* Runs the share's points that have no status in dir (and that no other
 * process is running: each is locked while it runs), `jobs` at once.
 * Returns 0 when every one exited 0, 1 when one did not, -1 when one could
 * not be started (after a message). */
int sweep_run_points(const struct sweep_args *a, const char *dir,
		     const struct cli_share *share, uint32_t jobs);
/* How point P ended, from its status file: exit (-1 for a signal),
 * signal, and a failed point's first error line. */
struct sweep_status {
	int exit, signal;
	char error[512];
};
/* Point P's status into *st; false when it has none that parses (not
 * done). */
bool sweep_point_status(const char *dir, uint64_t p, struct sweep_status *st);
/* Whether point P has a status that says how it ended. */
bool sweep_point_done(const char *dir, uint64_t p);
/* The file of point P in dir: "DIR/points/P.EXT". */
char *sweep_point_path(const char *dir, uint64_t point, const char *ext);

/* ---- cli/sweep_merge.c ---- */
/* Writes the merged CSV and JSON of every point in grid order.  Returns
 * CLI_EXIT_OK when every point exited 0, CLI_EXIT_FAIL when one did not
 * or a point has no status yet (named), or an output error's code. */
int sweep_merge(const struct sweep_args *a, const char *dir);

#endif
