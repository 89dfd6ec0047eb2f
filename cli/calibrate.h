/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/calibrate.h — `cclab calibrate`: a fabric file fitted to measured
 * point-to-point results (sim/calibrate.h), for `cclab sim --fabric FILE`
 * and a scenario's `fabric: FILE` (docs/calibrate.md).
 *
 *   cli/cmd_calibrate.c    the command line, the run, the printed table
 *   cli/calibrate_load.c   the `cclab p2p --json` files it reads
 *   cli/calibrate_host.c   --host-bench: this CPU's reduce and copy rate
 *   cli/calibrate_out.c    the fabric file, --json and --csv
 */
#ifndef CCLAB_CLI_CALIBRATE_H
#define CCLAB_CLI_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/calibrate.h"

#define CAL_MAX_FILES 256u
#define CAL_MAX_POINTS 1024u

struct cal_args {
	const char *files[CAL_MAX_FILES];
	unsigned nfiles;
	const char *out;        /* -o FABRIC.yaml */
	const char *json, *csv; /* the fit, point by point */
	const char *base;       /* --base PRESET|FILE; NULL: by the files' link layer */
	const char *name;       /* --name: the fabric's name; "calibrated" */
	bool host_bench;        /* --host-bench: measure this CPU's reduce and copy */
	double max_error;       /* --max-error PCT: exit 1 beyond; NAN: none */
};

/* 0 (*help set for --help) or CLI_EXIT_USAGE after a message. */
int cal_parse_args(int argc, char **argv, struct cal_args *a, bool *help);

/* What the files say about the device they were measured on. */
struct cal_device {
	char name[64];       /* "rxe0", or a simulated file's fabric name */
	char link_layer[16]; /* "Ethernet", "InfiniBand", or "" (not recorded) */
	uint32_t mtu;        /* active MTU; 0: not recorded */
	bool simulated;      /* a `cclab p2p` run on the simulator, not a device */
};

/* A measured point and the file (index into cal_args.files) it came from. */
struct cal_point {
	struct sim_cal_point pt;
	unsigned file;
};

/* Appends every "ok" size of a `cclab p2p --json` file to pts[*n..] (at
 * most CAL_MAX_POINTS in all).  0, or CLI_EXIT_USAGE after a message
 * naming the file, line and column.  dev is filled by the first file; a
 * later file on another device, link layer or MTU is refused (one fabric
 * cannot fit two). */
int cal_load(const char *path, unsigned file, struct cal_point *pts, size_t *n,
	     struct cal_device *dev);
/* The same from a validation case of perftest (a folder with scenario.yaml
 * and measured.csv, docs/validation.md): what a source published for its
 * own platform, so that a corpus case is predicted from a fabric fitted
 * to that platform's perftest figures. */
int cal_load_case(const char *dir, unsigned file, struct cal_point *pts, size_t *n,
		  struct cal_device *dev);

/* --host-bench: host.cpu_thread_bytes_per_s and host.cpu_call_ps fitted to
 * timed reduces (float sum) and copies on this CPU, by least squares of
 * time over bytes moved (sim/compute.h's cost model).  The samples are
 * kept for the report. */
#define CAL_HOST_SIZES 8u
struct cal_host {
	uint64_t bytes_per_s;
	uint64_t call_ps;
	unsigned n;
	uint64_t moved[2 * CAL_HOST_SIZES]; /* bytes read + written */
	double ns[2 * CAL_HOST_SIZES];      /* median time of one call */
};
int cal_host_bench(struct cal_host *h);

/* The outputs, each written atomically: 0, or CLI_EXIT_FAIL after a
 * message. */
struct cal_run {
	const struct cal_args *a;
	const struct cal_point *pts;
	size_t n;
	const struct sim_cal_fit *fit;
	const struct sim_params *base;   /* where the fit started */
	const struct sim_params *preset; /* the preset the fabric file names: only
					  * values that differ from it are written */
	const struct cal_device *dev;
	const struct cal_host *host; /* NULL without --host-bench */
};
int cal_write_fabric(const struct cal_run *r);
int cal_write_json(const struct cal_run *r);
int cal_write_csv(const struct cal_run *r);

/* NULL when name may be a fabric's name (printable UTF-8), else what is
 * wrong ("a control character", "a byte that is not UTF-8") with *at its
 * byte offset. */
const char *cal_name_invalid(const char *name, size_t *at);

/* The point's unit as printed: "MB/s" (bw) or "us" (lat). */
const char *cal_unit(const struct sim_cal_point *pt);

#endif /* CCLAB_CLI_CALIBRATE_H */
