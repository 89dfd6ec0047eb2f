/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/perftest.h — perftest's mode: cclab run as ib_write_bw, ib_read_lat,
 * ... (argv[0]'s basename, a symlink, or `cclab ib_write_bw ...`) takes
 * perftest's flags (linux-rdma/perftest src/perftest_parameters.c,
 * parser_long()) and runs `cclab p2p` with the test the name implies.
 *
 * Where it runs, as perftest's own two sides: `ib_write_bw -d DEV` is the
 * server, waiting on TCP port 18515 (-p); `ib_write_bw [-d DEV] HOST` the
 * client, connecting to it (without -d on the first device, as perftest).
 * With neither -d nor HOST there is no device to run on, and cclab
 * simulates the test (`cclab p2p`'s default fabric and topology, or
 * --fabric / --topology), saying so in the header.  cclab p2p's --device
 * runs both sides here, in loopback.
 *
 * The flags become a `cclab p2p` command line (printed in the header), so
 * every check of `cclab p2p` holds; the parser is cli/perftest_args.c, the
 * run cli/cmd_perftest.c, --out_json cli/perftest_json.c. */
#ifndef CCLAB_CLI_PERFTEST_H
#define CCLAB_CLI_PERFTEST_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/p2p.h"

#define PT_DEFAULT_PORT 18515u           /* DEF_PORT */
#define PT_MIN_ITERS 5u                  /* MIN_ITER */
#define PT_DEF_ITERS 1000u               /* DEF_ITERS */
#define PT_DEF_ITERS_WB 5000u            /* DEF_ITERS_WB: ib_write_bw */
#define PT_JSON_FILE "perftest_out.json" /* DEFAULT_JSON_FILE_NAME */
#define PT_CQ_MOD_LIMIT 8192u            /* MSG_SIZE_CQ_MOD_LIMIT */
#define PT_ARGV_MAX 64
#define PT_NOTES_LEN 1024

struct pt_opts {
	const char *prog;        /* "ib_write_bw" */
	enum cc_p2p_op op;
	enum cc_p2p_mode mode;
	/* the `cclab p2p` command line the flags make */
	const char *argv[PT_ARGV_MAX + 1];
	int argc;
	char text[512];          /* its numbers */
	size_t off;
	const char *dev;         /* -d */
	const char *server;      /* the HOST argument */
	uint16_t tcp_port;       /* -p */
	bool gbits;              /* --report_gbits */
	bool out_json;           /* --out_json */
	const char *json_file;   /* --out_json_file */
	bool cclab_device;       /* cclab p2p's --device (loopback) */
	bool sim_only;           /* --fabric, --topology or --wall-limit */
	char notes[PT_NOTES_LEN]; /* "# cclab: ..." lines for the header */
	bool help;
};

/* The test of a program name ("ib_read_lat"): 0, or -1 for no such name. */
int pt_program(const char *name, enum cc_p2p_op *op, enum cc_p2p_mode *mode);

/* cli/perftest_args.c: argv[0] is the program.  0, or CLI_EXIT_USAGE
 * after "PROG: ..." naming the flag (and the value) on stderr. */
int pt_parse(int argc, char **argv, struct pt_opts *t);
void pt_usage(const struct pt_opts *t);

/* `ib_write_bw ARGS`: the exit status, as `cclab p2p`'s. */
int cmd_perftest(int argc, char **argv);

#endif /* CCLAB_CLI_PERFTEST_H */
