/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/p2p.h — perftest's point-to-point tests (core/p2p.h) on the
 * simulator, for `cclab p2p` and for `cclab run` on a scenario with a
 * `p2p:` section.  Options (cli/p2p_options.c), the run and its table
 * (cli/p2p_run.c), the command (cli/cmd_p2p.c), the --json report
 * (cli/p2p_json.c), --csv (cli/p2p_csv.c), a scenario's expectations
 * (cli/p2p_expect.c). */
#ifndef CCLAB_CLI_P2P_H
#define CCLAB_CLI_P2P_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/cli.h"
#include "core/p2p.h"
#include "core/p2p_report.h"
#include "core/results.h"
#include "sim/exec.h"
#include "util/atomic_file.h"
#include "util/json.h"

/* Two hosts through one switch, as perftest is mostly run (and as the
 * claims it checks are stated): star. */
#define P2P_DEFAULT_TOPOLOGY SIM_TOPO_STAR

struct cc_scenario; /* sim/scenario.h */

/* Which ranks this process runs with --device (cli/p2p_verbs.c). */
enum p2p_role {
	P2P_BOTH,   /* both: two local ranks in loopback, or a launcher's two */
	P2P_SERVER, /* perftest's server: waits on the TCP port for the client */
	P2P_CLIENT, /* perftest's client: connects to the server's host */
};

struct p2p_opts {
	struct cc_p2p_params p; /* size: the -s size, or the first of -a */
	bool all;               /* -a: CC_P2P_ALL_MIN .. CC_P2P_ALL_MAX, doubling */
	struct sim_params fabric;
	enum sim_topo_kind topo; /* without a scenario */
	uint64_t seed;          /* the simulator's (loss, ECMP, ECN draws); 1 */
	const char *json, *trace, *csv;
	/* --wall-limit (ms; `cclab run`'s for a p2p scenario): each size's
	 * build and run stop after this much real time, as `cclab sim`'s */
	uint64_t wall_limit_ms;
	bool wall_limit_given;
	bool help;
	/* --device: on a real RNIC (cli/p2p_verbs.c), with cclab run's
	 * --port, --gid-index, --bootstrap and --timeout (verbs_opt: one of
	 * those was given) */
	const char *device;
	uint8_t port;
	int gid_index;
	const char *bootstrap;
	uint32_t timeout_s;
	bool verbs_opt;
	uint32_t mtu;           /* --mtu: the path MTU (the fabric's link MTU); 0: default */
	uint32_t device_mtu;    /* the QPs' path MTU in bytes, once connected */
	bool device_roce;       /* the port's link layer is Ethernet */
	uint32_t device_rd_atom; /* the QPs' max_rd_atomic, once connected */
	/* perftest's mode (cli/perftest.h): run as ib_write_bw & co. */
	const char *prog;       /* "ib_write_bw"; NULL for cclab p2p */
	bool gbits;             /* --report_gbits: BW in Gb/sec */
	const char *out_json;   /* --out_json's file, or NULL */
	enum p2p_role role;
	const char *server;     /* P2P_CLIENT: the server's host */
	uint16_t tcp_port;      /* P2P_SERVER, P2P_CLIENT: perftest's -p */
	/* Set by `cclab run`: the scenario's sizes (min, max, factor), its
	 * network's name and its expectations; NULL for `cclab p2p`. */
	const struct cc_scenario *scenario;
};

/* Parses argv[1..argc) (argv[0] is "p2p"): 0 (o->help set for --help), or
 * CLI_EXIT_USAGE after a message on stderr naming the option and value.
 * Every size is checked (cc_p2p_check) here, so a run never starts with
 * parameters the builder refuses. */
int p2p_parse(int argc, char **argv, struct p2p_opts *o);
void p2p_usage(FILE *f);
/* The parsed test: on the device (p2p_verbs) or simulated (p2p_run, on
 * o->topo); the exit status (cli/cmd_p2p.c). */
int p2p_exec(const struct p2p_opts *o);

/* The sizes of the sweep: the first, then each next one; false at the end.
 * -a doubles; a scenario steps as nccl-tests (cc_result_next_size()). */
bool p2p_next_size(const struct p2p_opts *o, uint64_t *size);

/* "p2p", or "run" under `cclab run`: the prefix of every message. */
const char *p2p_cmd(const struct p2p_opts *o);
/* The network's name: the scenario's topology, or --topology. */
const char *p2p_topology_name(const struct p2p_opts *o);

/* Runs every size of o on net (the test between ranks 0 and 1; net has
 * o->p.nranks ranks): the preamble, perftest's table, the closing
 * "# Out of bounds values : N OK|FAILED" line (N: sizes whose run failed,
 * as nccl-tests counts), the --json, --csv and --trace files, all or
 * nothing.  Returns the exit status: 0 only if every size ran within the
 * model's bounds and met its expectation. */
int p2p_run(const struct p2p_opts *o, const struct sim_net *net);

/* One size's outcome, for the report. */
struct p2p_row {
	uint64_t size;
	const struct cc_sim_result *res; /* the simulator's run; NULL on a device */
	const struct cc_run_error *err;  /* how the run ended */
	bool failed;        /* the run did not complete, or its stamps are missing */
	bool model_bug;     /* below the bound, or faster than the link */
	sim_time_ps bound_ps;
	struct cc_p2p_bw bw;
	struct cc_p2p_lat lat;
};

/* One size of o's test on net, timing only, for a command that collects
 * perftest's figures rather than printing its table (`cclab validate`):
 * 0 with row->bw (bw mode) or row->lat (lat mode) filled; else a
 * negative errno, -EIO for a run that failed, with why. */
int p2p_point(const struct p2p_opts *o, const struct sim_net *net, uint64_t size,
	      struct p2p_row *row, char *why, size_t len);

/* The report: parameters (every fabric field) and the "sizes" array
 * opened, then one entry per size; cli_json_end() (cli/check.h) closes it
 * with "ok" and commits the file atomically. */
void p2p_json_begin(struct cc_json *j, const struct p2p_opts *o);
void p2p_json_size(struct cc_json *j, const struct p2p_opts *o, const struct p2p_row *row);

/* The sweep's files (cli/p2p_files.c): --json and --csv opened before the
 * first size, one row each per size, committed (rc 0) or dropped at the
 * end; 0 or an exit code after a message. */
struct p2p_files {
	struct cc_atomic_file jf, cf;
	struct cc_json j;
	FILE *csv; /* --csv's temporary file, or NULL */
	struct p2p_row last; /* perftest's --out_json: the last completed size */
	bool have_last;
};
int p2p_files_open(const struct p2p_opts *o, struct p2p_files *f);
void p2p_files_row(struct p2p_files *f, const struct p2p_opts *o, const struct p2p_row *row);
int p2p_files_close(const struct p2p_opts *o, struct p2p_files *f, int rc, bool all_ok);
/* --trace: the last size's events, Chrome JSON or (FILE.csv) CSV. */
int p2p_write_trace(const struct p2p_opts *o, const struct cc_trace *tr);

/* --csv: the header, and one line per size (cli/p2p_csv.c). */
void p2p_csv_header(FILE *f);
void p2p_csv_row(FILE *f, const struct p2p_opts *o, const struct p2p_row *row);

/* A scenario's `expect:` entry for the row's size, if any: every bound it
 * sets, each miss named on stderr with the entry's file:line.  True
 * without a scenario, an entry or a completed run (cli/p2p_expect.c). */
bool p2p_meets_expectation(const struct p2p_opts *o, const struct p2p_row *row);

/* perftest's rule line around the table, for both sweeps. */
extern const char p2p_dashes[];

/* The row's perftest figures from the run's stamps: bw, or lat over every
 * delta (cclab p2p) or without perftest's two largest (its mode). */
int p2p_figures(const struct p2p_opts *o, const struct cc_p2p_params *p,
		const struct cc_p2p_times *t, struct p2p_row *row);
/* The table's header and a completed row, as o asks (Gb/sec). */
void p2p_print_header(const struct p2p_opts *o);
/* The header's iterations, depths, memory and inline lines (inl NULL: no
 * inline figure, as the verbs executor's) and its post list's. */
void p2p_print_depths(const struct cc_p2p_params *p, const char *inl);
void p2p_print_row(const struct p2p_opts *o, const struct p2p_row *row);

/* perftest's --out_json file (cli/perftest_json.c): its layout, the last
 * completed size (perftest rewrites it after each); 0 or an exit code. */
int perftest_json_write(const struct p2p_opts *o, const struct p2p_row *row);

/* Two hosts (P2P_SERVER, P2P_CLIENT; cli/p2p_peer.c): the client's row as
 * text for the server, which prints it as perftest's server prints the
 * client's report; 0, or -EINVAL for text that is not such a row. */
#define P2P_ROW_TEXT 512
void p2p_row_encode(const struct p2p_row *row, enum cc_p2p_mode mode, char *buf, size_t len);
int p2p_row_decode(const char *text, size_t n, struct p2p_row *row);

/* `cclab p2p --device`: the test on a real RNIC (cli/p2p_verbs.c); with
 * o->role P2P_SERVER or P2P_CLIENT one side of it, perftest's way. */
int p2p_verbs(const struct p2p_opts *o);

#endif /* CCLAB_CLI_P2P_H */
