/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/nccl_tests.h — nccl-tests' mode: cclab run as all_reduce_perf,
 * all_gather_perf, ... (argv[0], or `cclab all_reduce_perf ...`), with
 * nccl-tests' flags and nccl-tests' whole text, on the simulator.
 *
 * The flags and their defaults are nccl-tests 2.19.6's (src/common.cu
 * main()); the text is its src/util.cu (writeDeviceReport(),
 * writeResultHeader(), writeBenchmarkLine*(), writeResultFooter()); the -J
 * file its JSON layout (util.cu jsonOutputInit() ... jsonOutputFinalize()).
 * The parser is cli/nccl_tests_args.c, the text cli/nccl_tests_out.c, the
 * JSON cli/nccl_tests_json.c, the runs cli/cmd_nccl_tests.c; each size is
 * `cclab sim`'s (cli/cmd_sim.c, cli_sim_run()). */
#ifndef CCLAB_CLI_NCCL_TESTS_H
#define CCLAB_CLI_NCCL_TESTS_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/check.h"
#include "core/dtype.h"
#include "core/schedule.h"
#include "util/json.h"

#define NT_VERSION "2.19.6"   /* the nccl-tests whose flags and text these are */
#define NT_JSON_VERSION 3     /* util.cu JSON_FILE_VERSION */
#define NT_MAX_PASS 48        /* cclab's own long options, words */
#define NT_MAX_ENV 64         /* NCCL_* variables taken from the environment */
#define NT_MAX_SIZES 65536u   /* rows of one sweep (-i stepping can ask for billions) */
#define NT_MAX_CYCLES 1000u   /* -N */
#define NT_NOTES_LEN 4096

/* nccl-tests' test_typenames[] order, and the fp8 names cclab has no type for. */
#define NT_NTYPES 10
extern const char *const nt_type_names[NT_NTYPES];
/* test_opnames[] order: sum prod max min avg (mulsum is not modelled). */
#define NT_NOPS 5
extern const char *const nt_op_names[NT_NOPS];

/* How a row's time comes from the ranks' (-a, common.cu Allreduce()). */
enum nt_average { NT_AVG_RANK0, NT_AVG_MEAN, NT_AVG_MIN, NT_AVG_MAX };

struct nt_opts {
	const char *prog;       /* the name run: "all_reduce_perf" */
	enum cc_coll coll;
	int argc;
	char **argv;            /* as given, for -J's "args" */
	/* nccl-tests' flags: getopt, the last of each wins (as there) */
	uint32_t nthreads, ngpus, nprocs, nranks;
	const char *nprocs_from; /* the launcher's variable, or NULL */
	uint32_t proc;          /* this process's rank under the launcher */
	/* Processes per node (the launcher's local size, else 1) and the
	 * variable that said so; the GPUs of one node are procs_per_node x
	 * -t x -g, as nccl-tests' GPUs of one process share its host. */
	uint32_t procs_per_node;
	const char *procs_per_node_from;
	bool layout_given;      /* --ranks-per-node or --topology given */
	uint32_t ranks_per_node; /* what the run takes when not given; 0: one per host */
	uint64_t minbytes, maxbytes, stepbytes, stepfactor;
	uint64_t iters, agg_iters, warmup, cycles, check, graph, timeout_s, unalign;
	uint64_t per_iter_skip, device_cta;
	int parallel_init, blocking, stream_null, timestamps, average, local_register;
	int cta_policy;         /* -1: not given */
	bool all_types, all_ops, all_roots;
	enum cc_dtype dtype;
	enum cc_redop redop;
	uint32_t root;
	const char *json;       /* -J FILE, or NULL */
	double min_bw;          /* NCCL_TESTS_MIN_BW, or < 0 */
	/* cclab's own long options, passed on to `cclab sim` as written */
	const char *pass[NT_MAX_PASS];
	uint32_t npass;
	bool nccl_chooses;      /* none of --algorithm, --protocol, --channels: -A auto */
	bool whole_files;       /* --json, --csv, --trace or --links given */
	bool wall_limit;        /* --wall-limit given */
	/* NCCL_* of the environment, as --env NAME=VALUE */
	const char *env[NT_MAX_ENV];
	uint32_t nenv;
	char notes[NT_NOTES_LEN]; /* "# cclab: ..." lines for the header */
	bool help;
};

/* `all_reduce_perf ARGS`: argv[0] is the program (its basename names the
 * collective).  The exit status: 0, 1 (wrong elements, a failed run, a
 * file not written, NCCL_TESTS_MIN_BW missed), 2 (the command line). */
int cmd_nccl_tests(int argc, char **argv);

/* The collective of a program name ("all_reduce_perf"): 0, or -1 for no
 * perf program. */
int nt_program(const char *name, enum cc_coll *coll);

/* cli/nccl_tests_args.c: argv[0] is the program.  0, or CLI_EXIT_USAGE
 * after "PROG: ..." naming the option (and the value) on stderr. */
int nt_parse(int argc, char **argv, struct nt_opts *n);
void nt_usage(const struct nt_opts *n);
/* Appends a printf'd "# cclab: ..." line to n->notes. */
__attribute__((format(printf, 2, 3)))
void nt_note(struct nt_opts *n, const char *fmt, ...);

/* ---- cli/nccl_tests_out.c: the text, and the row totals ---- */
struct nt_run {
	const struct nt_opts *n;
	bool header_done;
	uint32_t errors;        /* rows with #wrong > 0 or a failed run */
	double bw_sum;          /* busbw of both halves, as BenchTime() */
	uint32_t bw_count;
	struct cc_json *j;      /* -J's document, or NULL */
	const char *json_path;  /* the path it goes to, for the header line */
};
/* The table hooks (struct cli_table's) and the closing lines. */
void nt_header(const struct cli_opts *o, void *ctx);
void nt_row(const struct cli_opts *o, void *ctx, const struct cc_result_row *row);
void nt_footer(const struct nt_run *r);
/* Whether the average busbw passes NCCL_TESTS_MIN_BW (always without it). */
bool nt_bw_ok(const struct nt_run *r);
/* The modelled device of rank r: its host and local index. */
void nt_device(const struct cli_opts *o, uint32_t r, char *host, size_t len, uint32_t *dev);
/* "NVIDIA-like" text for a rank's device: arch and fabric. */
void nt_device_info(const struct cli_opts *o, char *buf, size_t len);
/* NCCL_VERSION_CODE of the modelled release (nccl.h: 2.9 and later
 * X*10000 + Y*100 + Z, else X*1000 + Y*100 + Z). */
int nt_nccl_code(const struct cli_opts *o);

/* ---- cli/nccl_tests_json.c: -J ---- */
void nt_json_begin(struct cc_json *j, const struct nt_opts *n, const struct cli_opts *o);
/* checked, checked_ip: whether each half's #wrong counts (else null) */
void nt_json_row(struct cc_json *j, const struct cc_result_row *row, bool checked,
		 bool checked_ip, uint64_t iters);
/* Closes "results", adds the totals, errors and end time. */
void nt_json_end(struct cc_json *j, const struct nt_run *r);

#endif
