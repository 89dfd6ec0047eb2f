/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/cmd_run.c — `cclab run SCENARIO.yaml`: everything a scenario file
 * says (sim/scenario.h, docs/yaml.md), run with the executors it lists.
 *
 * The scenario fills the same options `cclab sim` and `cclab check` take
 * on the command line, so a scenario and its command line give the same
 * table; what only a scenario has — a topology file, fabric overrides,
 * `check: SIZE`, expectations — reaches cmd_sim through o->scenario.
 * Output files (--json, --csv, --trace) describe the simulator's run; with
 * `executors: [data]` alone, the data executor's (it has no trace); with
 * `verbs` listed, the measured run's (cli/cmd_verbs.c: this host's RDMA
 * devices, or the launcher's ranks), and when `sim` is listed too a
 * predicted-vs-measured table (cclab compare's, from the two runs' reports
 * in memory) closes the output.
 * A scenario with `p2p:` runs `cclab p2p`'s sweep (cli/p2p_run.c) on its
 * network and fabric instead, and holds perftest's figures to its
 * expectations (cli/p2p_expect.c).
 * A bad scenario is a usage error: exit 2, its file:line:col on stderr,
 * nothing run, nothing written.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/launch.h"
#include "backend/verbs_exec.h"
#include "core/exec_data.h"

#include "cli/cli.h"
#include "cli/compare.h"
#include "cli/p2p.h"
#include "sim/exec.h"
#include "sim/scenario.h"

/* Each executor as `cclab run` drives it: the command whose options it
 * takes and whose function (cli/commands.c) runs the size loop on it
 * (struct cli_loop, cli/check.h).  For verbs that is `cclab run` itself,
 * which o->verbs sends to cmd_verbs().  In the order they run: verbs
 * first, so the other ranks of a launcher do not wait on rank 0's
 * simulation, then sim, then data.
 *
 * A new executor adds: its struct cc_executor_ops (core/exec.h) and a
 * value of enum cc_executor with its name; a command (cli/cmd_<name>.c:
 * its preamble, --json head and struct cli_loop with whatever hooks it
 * needs; one entry in cli/commands.c and enum cli_cmd); and one row
 * here.  Which outputs it writes follows from its caps. */
struct run_executor {
	const struct cc_executor_ops *x;      /* its name and what it models */
	enum cli_cmd cmd;                     /* whose options and loop it runs */
};

static const struct run_executor executors[] = {
	{ &cc_verbs_executor, CLI_RUN },
	{ &cc_sim_executor, CLI_SIM },
	{ &cc_data_executor, CLI_CHECK },
};

/* The command-line options a scenario stands for. */
static void from_scenario(const struct cli_opts *in, const struct cc_scenario *sc,
			  const struct run_executor *x, bool outputs, struct cli_opts *o)
{
	enum cc_executor e = x->x->id;

	*o = *in;
	o->cmd = x->cmd;
	o->verbs = e == CC_EXEC_VERBS;
	o->p = sc->p;
	o->chunk_given = sc->chunk_given;
	o->slot_given = sc->slot_given;
	o->minbytes = sc->minbytes;
	o->maxbytes = sc->maxbytes;
	o->stepfactor = sc->stepfactor;
	o->seed = sc->seed;
	o->order_seed = sc->seed;
	o->fabric = sc->fabric;
	if (!in->model_given)
		o->model = (enum cc_sim_model)sc->model;
	o->launch = sc->launch;
	o->check = sc->check_max > 0;
	o->scenario = sc;
	o->nccl = cc_nccl_auto_any(&sc->nccl) ? &sc->nccl : NULL;
	/* The file's key and receive faults, then --fault's (cmd_run checked
	 * that both fit). */
	memmove(o->faults + sc->nkey_faults, in->faults, in->nfaults * sizeof(in->faults[0]));
	memcpy(o->faults, sc->key_faults, sc->nkey_faults * sizeof(sc->key_faults[0]));
	o->nfaults = sc->nkey_faults + in->nfaults;
	/* The data executor always carries data: it runs the sizes the
	 * scenario checks, no larger (cmd_run skips it when that is none). */
	if (e == CC_EXEC_DATA && sc->check_max < o->maxbytes)
		o->maxbytes = sc->check_max;
	if (!outputs || !(x->x->caps & CC_EXEC_CAP_TIME))
		o->trace = NULL;
	if (!outputs || !(x->x->caps & CC_EXEC_CAP_LINKS))
		o->links = NULL;
	if (!outputs)
		o->json = o->csv = NULL;
}

/* A p2p scenario: what `cclab p2p` would take from its options. */
static int run_p2p(const struct cli_opts *in, const struct cc_scenario *sc)
{
	struct p2p_opts o = {
		.p = sc->p2p,
		.fabric = sc->fabric,
		.topo = P2P_DEFAULT_TOPOLOGY, /* unused: the scenario's network runs */
		.seed = sc->seed,
		.json = in->json,
		.trace = in->trace,
		.csv = in->csv,
		.scenario = sc,
		/* --wall-limit, as for a collective scenario's simulation */
		.wall_limit_ms = in->wall_limit_ms,
	};

	/* Link counters are the collective path's (cli/cmd_sim.c). */
	if (in->links)
		fprintf(stderr, "cclab run: --links ignored: a p2p scenario writes no link "
			"counters\n");
	return p2p_run(&o, &sc->net);
}

/* A run's JSON report, for the comparison: the run writes it to fd, an
 * anonymous file in memory (memfd_create(2)) that a forked rank 0 of a
 * local verbs run shares (cli.h, report_fd). */
struct run_report {
	const char *name; /* in the comparison's messages and head */
	int fd;
};

/* r's text, malloc'd, in *text and *len; 0 or -errno. */
static int read_report(const struct run_report *r, char **text, size_t *len)
{
	struct stat st;
	size_t done = 0;

	if (fstat(r->fd, &st))
		return -errno;
	*len = (size_t)st.st_size;
	if (!(*text = malloc(*len ? *len : 1)))
		return -ENOMEM;
	while (done < *len) {
		ssize_t n = pread(r->fd, *text + done, *len - done, (off_t)done);

		if (n > 0) {
			done += (size_t)n;
		} else if (n == 0 || errno != EINTR) {
			int err = n ? -errno : -EIO;

			free(*text);
			*text = NULL;
			return err;
		}
	}
	return 0;
}

/* Measured beside predicted, as `cclab compare` prints two files. */
static void compare_runs(const struct run_report r[2])
{
	const struct cmp_args a = {0};
	struct cmp_file file[2];
	const struct cmp_file *f[2] = {&file[0], &file[1]};
	struct cy_error err;
	char *text[2] = {NULL, NULL};
	size_t len = 0;
	int loaded = 0, rc = 0;

	printf("#\n# predicted (sim) beside measured (verbs), as cclab compare prints them\n");
	fflush(stdout);
	for (; loaded < 2; loaded++) {
		if ((rc = read_report(&r[loaded], &text[loaded], &len))) {
			fprintf(stderr, "cclab run: %s: %s\n", r[loaded].name, strerror(-rc));
			break;
		}
		/* A run that stopped short wrote none (cli/loop.c) */
		if (!len) {
			fprintf(stderr, "cclab run: %s wrote no report: nothing to compare\n",
				r[loaded].name);
			rc = -ENODATA;
			break;
		}
		if ((rc = cmp_file_parse(r[loaded].name, text[loaded], len, &file[loaded], &err))) {
			fprintf(stderr, "cclab run: %s\n", err.msg);
			break;
		}
	}
	if (!rc)
		cmp_report(&a, f);
	while (loaded-- > 0)
		cmp_file_free(&file[loaded]);
	free(text[0]);
	free(text[1]);
}

/* The scenario's executors in the table's order.  Under a launcher only
 * rank 0 runs sim and data. */
static int run_executors(const struct cli_opts *in, const struct cc_scenario *sc)
{
	bool verbs = sc->executor[CC_EXEC_VERBS], sim = sc->executor[CC_EXEC_SIM];
	struct run_report report[2] = {{in->json ? in->json : "the verbs run", -1},
				       {"the sim run", -1}};
	bool compare = verbs && sim, other_rank = false;
	struct cc_launch l;
	char err[256];
	int worst = CLI_EXIT_OK, rc;

	if (verbs && !cc_launch_detect(NULL, &l, err, sizeof(err)))
		other_rank = l.size > 1 && l.rank != 0;
	compare = compare && !other_rank;
	for (int s = 0; compare && s < 2; s++)
		if ((report[s].fd = memfd_create(s ? "cclab-predicted" : "cclab-measured",
						 MFD_CLOEXEC)) < 0) {
			fprintf(stderr, "cclab run: memfd_create: %s (for the comparison)\n",
				strerror(errno));
			if (s)
				close(report[0].fd);
			return CLI_EXIT_FAIL;
		}
	for (size_t i = 0; i < sizeof(executors) / sizeof(executors[0]); i++) {
		const struct run_executor *x = &executors[i];
		enum cc_executor e = x->x->id;
		struct cli_opts o;

		if (!sc->executor[e] || (other_rank && e != CC_EXEC_VERBS))
			continue;
		if (e == CC_EXEC_DATA && sc->check_max < sc->minbytes) {
			fprintf(stderr, "cclab run: the data executor is listed but no size is "
				"checked (check: %s): skipped\n", sc->check_max ? "a size below "
				"sizes.min" : "false");
			continue;
		}
		/* Files are the measured run's when verbs runs, else the
		 * simulator's, else the data executor's. */
		from_scenario(in, sc, x, verbs ? e == CC_EXEC_VERBS : e == CC_EXEC_SIM || !sim, &o);
		if (!(x->x->caps & CC_EXEC_CAP_TIME) && in->trace && !sim && !verbs)
			fprintf(stderr, "cclab run: --trace ignored: the %s executor models no "
				"time\n", cc_executor_ops_name(x->x));
		/* Said, not silently dropped: a slow GPU or a link down has no
		 * meaning where nothing is timed and there are no links. */
		if (e != CC_EXEC_SIM && sc->nfaults + in->nsim_faults)
			fprintf(stderr, "cclab run: the %s executor runs without the simulator's "
				"faults (link-down, no-ack, slow-gpu): %s\n", cc_executor_ops_name(x->x),
				e == CC_EXEC_DATA ? "it models no time and no links"
						  : "a real fabric has its own");
		if (e == CC_EXEC_SIM && verbs) {
			o.links = in->links;
			cli_opts_predict_verbs(&o);
		}
		if (compare && e != CC_EXEC_DATA)
			o.report_fd = report[e == CC_EXEC_SIM].fd;
		rc = cli_commands[x->cmd].run(&o);
		if (rc > worst)
			worst = rc;
		if (rc == CLI_EXIT_USAGE || (e == CC_EXEC_VERBS && rc))
			compare = false;
		if (rc == CLI_EXIT_USAGE)
			break;
	}
	if (compare)
		compare_runs(report);
	for (int s = 0; s < 2; s++)
		if (report[s].fd >= 0)
			close(report[s].fd);
	return worst;
}

int cmd_run(const struct cli_opts *in)
{
	struct cc_scenario sc;
	struct cy_error err;
	int rc;

	if (in->verbs)
		return cmd_verbs(in);
	rc = cc_scenario_load(in->scenario_path, in->sets, in->nsets, &sc, &err);
	if (rc) {
		fprintf(stderr, "cclab run: %s\n", err.msg);
		/* Bad input, a file that is not there included, is a usage
		 * error; only running out of memory is a failure. */
		return rc == -ENOMEM ? CLI_EXIT_FAIL : CLI_EXIT_USAGE;
	}
	if (sc.nkey_faults + in->nfaults > CLI_MAX_FAULTS) {
		fprintf(stderr, "cclab run: %s: %" PRIu32 " key and receive faults in the file and %"
			PRIu32 " --fault: at most %u together\n", sc.file, sc.nkey_faults,
			in->nfaults, CLI_MAX_FAULTS);
		rc = CLI_EXIT_USAGE;
	} else if (sc.is_p2p) {
		rc = run_p2p(in, &sc);
	} else if (sc.executor[CC_EXEC_VERBS] && sc.p.mem != CC_MEM_HOST) {
		fprintf(stderr, "cclab run: %s: the verbs executor needs 'memory: host' (it does not "
			"register GPU buffers yet); add it to the file or --set memory=host\n",
			sc.file);
		rc = CLI_EXIT_USAGE;
	} else {
		rc = run_executors(in, &sc);
	}
	cc_scenario_free(&sc);
	return rc;
}
