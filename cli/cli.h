/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/cli.h — the cclab program: subcommands, their options, exit codes.
 *
 * Exit codes: 0 success; 1 the work ran and failed (wrong elements, a run
 * error, an output file that could not be written, out of memory); 2 the
 * command line was wrong (unknown option, bad value) — the message names the
 * option and the value.  Only this directory prints and exits; the library
 * returns negative errno.
 */
#ifndef CCLAB_CLI_CLI_H
#define CCLAB_CLI_CLI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/algo.h"
#include "core/exec.h"
#include "core/nccl_auto.h"
#include "core/schedule.h"
#include "include/cclab.h"
#include "sim/exec.h"
#include "sim/fault.h"
#include "sim/params.h"
#include "sim/topo.h"
#include "util/atomic_file.h"
#include "util/files.h"

struct cc_scenario; /* sim/scenario.h */

#define CCLAB_VERSION CCLAB_VERSION_STRING /* include/cclab.h: one version */

enum { CLI_EXIT_OK = 0, CLI_EXIT_FAIL = 1, CLI_EXIT_USAGE = 2 };

/* CLI_P2P has its own options (cli/p2p_options.c), CLI_DEVICES none,
 * CLI_COMPARE, CLI_CALIBRATE and CLI_VALIDATE a few long ones each, read
 * with cli/argv.h: cli_parse() is not for them.  CLI_TUNE takes sim's
 * through cli_parse(), with its own beside them (cli/tune_args.c). */
enum cli_cmd { CLI_SCHEDULE, CLI_CHECK, CLI_SIM, CLI_RUN, CLI_P2P, CLI_DEVICES, CLI_COMPARE, CLI_CALIBRATE,
	       CLI_TUNE, CLI_VALIDATE, CLI_SWEEP, CLI_CMD_COUNT };

/* nccl-tests' defaults (src/common.cu): -b 32M, -e = -b, -f 2 here (1 there,
 * with -i stepping, which cclab does not offer), float, sum. */
#define CLI_DEFAULT_BYTES (UINT64_C(32) << 20)
#define CLI_DEFAULT_FACTOR 2u
#define CLI_MAX_RANKS CC_MAX_RANKS
#define CLI_MAX_SLOTS 1024u /* as core/algo.c accepts */
#define CLI_DEFAULT_SEED 1u
#define CLI_MAX_SETS 64u
#define CLI_SIM_TIME_LIMIT_S 3600u /* simulated seconds before a run is called stuck */
#define CLI_MAX_JOBS 64u /* -j/--jobs: at most (cli/loop_jobs.c) */
#define CLI_DEFAULT_WALL_LIMIT_S 3600u /* --wall-limit: real seconds one simulation may take */
#define CLI_DEFAULT_FABRIC "ib-hdr"
/* The verbs executor (cclab run without a scenario): nccl-tests' -w 5 -n 20,
 * and how long no progress may last before a rank gives up. */
#define CLI_DEFAULT_WARMUP 5u
#define CLI_DEFAULT_ITERS 20u
#define CLI_MAX_ITERS 1000000u
#define CLI_DEFAULT_TIMEOUT_S 10u
#define CLI_DEVICE_NAME_MAX 64
#define CLI_MAX_FAULTS 8u

struct cli_opts {
	enum cli_cmd cmd;
	struct cc_coll_params p; /* coll, transport, dtype, redop, nranks, chunk/slot */
	bool algo_given;         /* -A: else the collective's default (cc_algo_default) */
	bool proto_given, channels_given; /* -P, --channels */
	uint64_t minbytes, maxbytes, stepfactor;
	int64_t rank;            /* --rank; -1: every rank */
	bool primitives;
	bool chunk_given;        /* --chunk-bytes on the command line */
	bool slot_given;         /* --slot-bytes on the command line */
	uint64_t seed, order_seed;
	const char *json;        /* --json FILE, or NULL */
	const char *csv;         /* --csv FILE, or NULL */
	/* sim only */
	struct sim_params fabric; /* --fabric NAME, resolved (sim_params_preset) */
	enum sim_topo_kind topo;  /* --topology */
	struct sim_topo_hosts hosts; /* --nics, --pcie-switches (0: not given) */
	const char *trace;        /* --trace FILE, or NULL */
	const char *links;        /* --links FILE: per-link CSV of the last size, or NULL */
	bool check;               /* --check: carry data and count #wrong */
	/* --gpu-dma (schedule, check, sim): how the NIC reaches GPU memory;
	 * host-staging puts the staging buffers in host memory (and, for
	 * sim, sets the fabric's host.gpu_dma whatever --fabric says). */
	bool gpu_dma_given;
	enum sim_gpu_dma gpu_dma;
	/* --memory host|gpu: where the user buffers live */
	bool memory_given;
	/* --topology given; else the schedule's (cli_parse) */
	bool topo_given;
	/* --ring-order given; else rank order, or NCCL's rails under auto */
	bool ring_order_given;
	/* run without a scenario: the verbs executor (cli/cmd_verbs.c) */
	bool verbs;
	const char *device;       /* --device, or NULL: the first active one */
	uint8_t port;             /* --port, 0: the device's first active port */
	int gid_index;            /* --gid-index, -1: RoCE v2 IPv4 GID (RoCE), LID (IB) */
	uint32_t mtu;             /* --mtu, 0: the port's active MTU */
	const char *bootstrap;    /* --bootstrap HOST:PORT, or NULL: CCLAB_BOOTSTRAP */
	uint32_t warmup, iters;   /* -w/--warmup, --iters */
	uint32_t timeout_s;       /* --timeout: no progress this long is an error */
	bool quiet;               /* a rank other than 0: no progress line, no row's error
				   * on stderr (rank 0 reports for all) */
	/* --fault rkey|lkey:RANK:OP: a corrupted key on that WQE, to see the
	 * error path a real RNIC takes (tests of the verbs executor) */
	struct cc_fault faults[CLI_MAX_FAULTS];
	uint32_t nfaults;
	/* --fault link-down|no-ack|slow-gpu:...: the simulator's own
	 * (sim/fault.h); CLI_MAX_FAULTS of both kinds together */
	struct cc_sim_fault sim_faults[CLI_MAX_FAULTS];
	uint32_t nsim_faults;
	/* --model: packets (default) or flows (sim/rnic_flow.c); given: over a
	 * scenario's `model:` */
	enum cc_sim_model model;
	bool model_given;
	/* --gpus-per-thread, --agg-iters, --cuda-graph: how a benchmark's
	 * thread launches each collective (sim/launch.h); a scenario's
	 * `launch:` for `cclab run` */
	struct cc_sim_launch launch;
	/* --wall-limit: the simulator stops a run after this much real time */
	uint64_t wall_limit_ms;
	bool wall_limit_given;
	/* -j/--jobs: the simulator's sizes built and run at once (the rows
	 * in order, the outputs as with 1); default the processors */
	uint32_t jobs;
	bool jobs_given;
	int rnr_retry;            /* --rnr-retry 0..7, -1: the schedule's (7, forever) */
	const char *device_map;   /* --device-map 0,1,..: GPU per local rank, or NULL
				   * (checked; cli/verbs_gpu.c applies it) */
	/* tune only: its own options as given, read by cli/tune_args.c
	 * (--channels is a list there, --jobs counts candidates at once) */
	const char *tune_channels, *tune_orders, *tune_jobs, *tune_out;
	bool tune_all;
	/* run and tune */
	const char *scenario_path;
	const char *sets[CLI_MAX_SETS]; /* --set KEY=VALUE, in order */
	uint32_t nsets;
	/* Set by `cclab run` for the command it runs: the network, check_max
	 * and expectations come from it. */
	const struct cc_scenario *scenario;
	/* NULL, or `auto`'s model: each size takes NCCL's algorithm, protocol
	 * and channels where it says auto (cli_size_params()) */
	const struct cc_nccl_auto *nccl;
	struct cc_nccl_auto nccl_own; /* -A/-P/--channels auto, --nccl-version, --env */
	/* Set by `cclab run` to compare its runs, else -1: the finished JSON
	 * report is written to this descriptor too, --json or not (a memfd,
	 * since rank 0 of a local verbs run is a forked child). */
	int report_fd;
	/* Set by `cclab run` when the simulation predicts its own verbs
	 * executor's run: no NCCL network plugin, so no software.net_step_ps
	 * (the fabric's is set to 0, and the header says so). */
	bool predicts_verbs;
	bool help;
};

/* cli/nccl_opts.c: `auto` on the command line. */
bool cli_is_auto(const char *arg);
/* --env NCCL_X=VALUE into o->nccl_own.env: 0, or -EINVAL / -ENOENT and why. */
int cli_nccl_env_option(struct cli_opts *o, const char *arg, char *err, size_t len);
/* After every option: with anything auto, NCCL's communicator for the
 * topology and fabric (o->nccl set); 0 or -errno and why. */
int cli_nccl_finish(enum cli_cmd cmd, struct cli_opts *o, char *err, size_t len);

/* Parses argv[1..argc) of a subcommand (argv[0] is its name).  Returns 0
 * (o->help set for --help) or CLI_EXIT_USAGE after one message on stderr
 * that names the option and its value, and a hint. */
int cli_parse(enum cli_cmd cmd, int argc, char **argv, struct cli_opts *o);
/* The option that sets parameter f (cc_params_check()): "--channels". */
const char *cli_param_option(enum cc_param f);

/* Values checked as every command checks them, for a command with its own
 * parser (cli/p2p_options.c): 0, or CLI_EXIT_USAGE after the message of
 * cli_parse() naming the option as written (opt, "--fabric") and value. */
int cli_opt_bad_value(enum cli_cmd cmd, const char *opt, const char *value, const char *why);
/* Options given at most once: a second -n would otherwise silently win.
 * Indexed by the parser's option code (a letter, or 256 + n); the first
 * spelling and value of each are kept for the message. */
#define CLI_OPT_CODES 320
struct cli_once {
	bool given[CLI_OPT_CODES];
	char label[CLI_OPT_CODES][24];
	const char *value[CLI_OPT_CODES];
};
/* 0 the first time code c is seen; else "cclab CMD: -n given twice (-n 8,
 * then --nranks 20): give it once" and CLI_EXIT_USAGE. */
int cli_opt_once(enum cli_cmd cmd, struct cli_once *s, int c, const char *label,
		 const char *value);
/* The message of a second (label, value) after (first, first_value), for
 * a parser that keeps the first itself (cli/argv.c); CLI_EXIT_USAGE. */
int cli_opt_twice(enum cli_cmd cmd, const char *first, const char *first_value,
		  const char *label, const char *value);
/* "cclab CMD: MESSAGE" and the help hint on stderr; returns CLI_EXIT_USAGE. */
__attribute__((format(printf, 2, 3)))
int cli_usage_error(enum cli_cmd cmd, const char *fmt, ...);
/* The same for cclab run under another program's name (all_reduce_perf,
 * ib_write_bw): "PROG: message", then "Try 'PROG HELP'." with that
 * program's own help flag; returns CLI_EXIT_USAGE. */
int cli_prog_usage_verror(const char *prog, const char *help, const char *fmt, va_list ap);
int cli_opt_uint(enum cli_cmd cmd, const char *opt, const char *arg, uint64_t min, uint64_t max,
		 uint64_t *out);
/* --wall-limit: whole seconds (1 to 18446744) or a time with its unit of at
 * least 1ms ("500ms"), into milliseconds; 0 or CLI_EXIT_USAGE after the
 * message.  `cclab sim`, `cclab run` and `cclab p2p` share it. */
int cli_opt_wall_limit(enum cli_cmd cmd, const char *opt, const char *arg, uint64_t *ms);
/* The simulation predicts cclab's own verbs executor, which posts its
 * verbs itself: predicts_verbs set and the fabric's NCCL plugin cost
 * (software.net_step_ps) 0 (`cclab sim --verbs-run`, `cclab run` with
 * verbs and sim). */
void cli_opts_predict_verbs(struct cli_opts *o);
/* -j/--jobs's default: $CCLAB_JOBS when it is 1 to CLI_MAX_JOBS, else the
 * processors this process may run on (its affinity), at most
 * CLI_MAX_JOBS. */
uint32_t cli_default_jobs(void);
int cli_opt_size(enum cli_cmd cmd, const char *opt, const char *arg, uint64_t min, uint64_t *out);
int cli_opt_fabric(enum cli_cmd cmd, const char *opt, const char *arg, struct sim_params *out);
/* ---- output files (cli/outputs.c) ----
 * Each says on stderr "cclab CMD: cannot write 'PATH': WHY" when it fails
 * and returns the exit status: CLI_EXIT_USAGE for a path refused for what
 * it is (one of the run's inputs, a block device: cc_file_refused()),
 * CLI_EXIT_FAIL for one that cannot be written; 0 when all is well. */
int cli_output_open(const char *cmd, const char *path, struct cc_atomic_file *af);
int cli_output_commit(const char *cmd, const char *path, struct cc_atomic_file *af);
/* Before a long run, for a file written after it: nothing is created. */
int cli_output_check(const char *cmd, const char *path);
int cli_output_error(const char *cmd, const char *path, int err);
/* The command a user typed: "run" for a scenario run through sim or check. */
const char *cli_opts_cmd(const struct cli_opts *o);

int cli_opt_topology(enum cli_cmd cmd, const char *opt, const char *arg,
		     enum sim_topo_kind *out);

/* cli/usage.c */
void cli_usage_main(FILE *f);
void cli_usage(FILE *f, enum cli_cmd cmd);
/* "Try 'cclab CMD --help'." on stderr. */
void cli_usage_hint(enum cli_cmd cmd);

/* The subcommands; each returns an exit code. */
int cmd_schedule(const struct cli_opts *o);
int cmd_check(const struct cli_opts *o);
int cmd_sim(const struct cli_opts *o);
int cmd_run(const struct cli_opts *o);
void run_usage(FILE *f); /* cli/usage.c */
/* `cclab run` without a scenario: the verbs executor (cli/cmd_verbs.c). */
int cmd_verbs(const struct cli_opts *o);
/* `cclab p2p`, with its own arguments: argv[0] is "p2p" (cli/cmd_p2p.c). */
int cmd_p2p(int argc, char **argv);
/* `cclab devices`: the RDMA devices, ports and GIDs (cli/cmd_devices.c). */
int cmd_devices(int argc, char **argv);
void devices_usage(FILE *f);
/* `cclab compare`: a measured result file beside a predicted one (cli/cmd_compare.c). */
int cmd_compare(int argc, char **argv);
void compare_usage(FILE *f);
/* `cclab calibrate`: a fabric fitted to measured p2p results (cli/cmd_calibrate.c). */
int cmd_calibrate(int argc, char **argv);
void calibrate_usage(FILE *f);
/* `cclab tune`: every algorithm x protocol x transport of a scenario, the winner per
 * size (cli/cmd_tune.c). */
int cmd_tune(int argc, char **argv);
void tune_usage(FILE *f);
int cmd_sweep(int argc, char **argv);
void sweep_usage(FILE *f);
/* `cclab validate`: the corpus of published measurements, predicted beside
 * measured (cli/cmd_validate.c, cli/validate.h). */
int cmd_validate(int argc, char **argv);
void validate_usage(FILE *f);

/* ---- the commands (cli/commands.c) ---- */

/* `cclab NAME ARGS...`: main(argc - 1, argv + 1) for a command with its own
 * parser (argv[0] is NAME), else cli_parse() and run(); --help prints
 * usage, or for NULL cli/usage.c's text of the collective options. */
struct cli_command {
	const char *name;
	int (*main)(int argc, char **argv);
	int (*run)(const struct cli_opts *o);
	void (*usage)(FILE *f);
	/* Its lines in `cclab help`: arguments after the name ("" for none)
	 * and a summary, '\n' between its lines; a second form, if any. */
	struct {
		const char *args, *summary;
	} forms[2];
};
extern const struct cli_command cli_commands[CLI_CMD_COUNT];

const char *cli_cmd_name(enum cli_cmd cmd);
/* "schedule" -> CLI_SCHEDULE; CLI_CMD_COUNT when unknown. */
enum cli_cmd cli_cmd_lookup(const char *name);

/* nccl-tests' redop column: the op's name, "none" for all-gather. */
const char *cli_redop_label(const struct cc_coll_params *p);
/* The run's algorithm as its preamble and JSON name it: "auto" where
 * NCCL's choice picks it per size (each row says what ran). */
const char *cli_algo_label(const struct cli_opts *o);
/* The same for the protocol. */
const char *cli_proto_label(const struct cli_opts *o);
/* Whether NCCL's choice sets each size's chunk (its algorithm or
 * protocol is auto and no chunk was given), and its slot (the protocol
 * is auto and no slot was given). */
bool cli_chunk_auto(const struct cli_opts *o);
bool cli_slot_auto(const struct cli_opts *o);

#endif
