/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/tune_args.c — the command line of `cclab tune` and its help: a
 * scenario file with its --set overrides, or without one `cclab sim`'s
 * options (cli_parse(), cli/options.c) and the setting they make as sim
 * makes it; two output files, --all and the layouts to try. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/tune.h"
#include "sim/scenario.h"
#include "sim/topo.h"

/* Every message of this command: "cclab tune: ...", the hint, exit 2. */
#define usage_error(...) cli_usage_error(CLI_TUNE, __VA_ARGS__)

void tune_usage(FILE *f)
{
	fprintf(f, "Usage: cclab tune SCENARIO.yaml [--set KEY=VALUE]... [OPTIONS]\n"
		   "       cclab tune -n K [-c COLL] [-b MIN] [-e MAX] [-f F] [--fabric F]\n"
		   "                  [--topology T] [sim's other options] [OPTIONS]\n\n"
		   "The simulator's tuning table: for each size of the scenario's sweep\n"
		   "(sizes: min, max, factor) runs its collective on its topology and fabric\n"
		   "with every algorithm x protocol x transport, and prints one row per\n"
		   "size: the winner, its time and busbw, the runner-up (the fastest of\n"
		   "another algorithm or protocol), the margin (runner-up time / best\n"
		   "time - 1) * 100, and per algorithm and protocol the fastest time over\n"
		   "the transports; the ring once per ring order and channel count\n"
		   "(ring-rail-4ch).  Each protocol runs with NCCL's slot and chunk for it\n"
		   "unless the scenario sets slot_bytes or chunk_bytes.  A combination the\n"
		   "algorithm does not build (halving-doubling is allreduce only) or the\n"
		   "topology cannot carry (halving-doubling on a ring, which joins\n"
		   "neighbours only) is n/a, not an error.  The scenario's algorithm\n"
		   "must build its collective (the file is checked as 'cclab run' checks\n"
		   "it) but, like its protocol, transport, executors, check and\n"
		   "expectations, is not used:\n"
		   "every run is timed only, without carrying data.  The summary names\n"
		   "the sizes each algorithm wins and the protocol fastest with it at each\n"
		   "size.  docs/tune.md has the details.\n\n"
		   "Without a scenario, the setting is what `cclab sim` makes of the same\n"
		   "options (cclab sim --help): -n (required), -c, -r, -b, -e, -f, -d, -o,\n"
		   "--chunk-bytes, --slot-bytes, --slots, --ranks-per-node, --seed,\n"
		   "--fabric, --topology (default star: a switch carries every algorithm\n"
		   "but the multicast ones), --gpu-dma, --memory, --nccl-version, --env,\n"
		   "--model (packet or flow, docs/simulator.md; with a scenario too).\n"
		   "What tune tries every value of is refused: -A, -P, -t, --ring-order\n"
		   "(--ring-orders and --channels below choose the layouts), and so are\n"
		   "--check, --trace, --links, --fault and --wall-limit.  With a scenario,\n"
		   "as for 'cclab run', the file says the setting and --set changes it.\n\n"
		   "Options:\n"
		   "      --set KEY=VALUE     set a key before the file is read, as if written\n"
		   "                          in it (repeatable): sizes.max=1GiB,\n"
		   "                          fabric.preset=roce-400g\n"
		   "      --json FILE         also write the table to FILE as JSON, atomically\n"
		   "      --csv FILE          also write one CSV line per size x candidate,\n"
		   "                          atomically\n"
		   "      --all               a table column per candidate, not per algorithm\n"
		   "                          and protocol (--json and --csv have them all)\n"
		   "      --channels LIST     run the ring and the tree on each of these\n"
		   "                          channel counts, e.g. 1,2,4 (at most 4; default:\n"
		   "                          the scenario's channels); the other algorithms\n"
		   "                          use one\n"
		   "      --ring-orders LIST  rank, rail or rank,rail: the ring orders to try\n"
		   "                          (default: the scenario's, and rail too on a\n"
		   "                          topology of multi-GPU nodes)\n"
		   "  -j, --jobs N            run up to N candidates of a size at once, each\n"
		   "                          on its own thread (default: one per processor);\n"
		   "                          the output is the same for any N\n"
		   "      --out DIR           under srun or mpirun: spread the runs over the\n"
		   "                          tasks through DIR (a folder every task sees);\n"
		   "                          rank 0 prints the table, the same as one\n"
		   "                          process's (docs/tune.md)\n"
		   "  -h, --help              this text\n\n"
		   "Exit status: 0 every run completed, 1 a run failed (named on stderr) or a\n"
		   "file could not be written, 2 bad usage (an option tune sweeps included), a\n"
		   "bad scenario (file:line:col) or a p2p scenario.\n\n"
		   "Examples:\n"
		   "  cclab tune scenarios/demo.yaml --set sizes.max=64MiB --csv tune.csv\n"
		   "  cclab tune -n 16 --ranks-per-node 8 --topology railopt -b 1K -e 64M -f 8\n");
}

/* The next item of a comma-separated list at *p: its start in *item, its
 * length returned (0 for an empty one); *p moves past it and its comma. */
static size_t next_item(const char **p, const char **item)
{
	const char *s = *p, *e = strchr(s, ',');
	size_t n = e ? (size_t)(e - s) : strlen(s);

	*item = s;
	*p = e ? e + 1 : s + n;
	return n;
}

/* --channels 1,2,4: distinct counts of 1 to 64 (as `cclab sim --channels`), at
 * most TUNE_MAX_CHANNELS.  0, or CLI_EXIT_USAGE after the message. */
static int parse_channels(const char *val, struct tune_args *a)
{
	const char *p = val, *item;
	size_t n;

	a->nchannels = 0;
	while (*p || p == val) {
		unsigned long v = 0;
		size_t i;

		n = next_item(&p, &item);
		for (i = 0; i < n && item[i] >= '0' && item[i] <= '9' && v <= 64; i++)
			v = v * 10 + (unsigned long)(item[i] - '0');
		if (n == 0 || i < n || v < 1 || v > 64)
			return usage_error("invalid value '%s' for --channels: expected channel "
					   "counts of 1 to 64 separated by commas, such as 1,2,4", val);
		for (uint32_t j = 0; j < a->nchannels; j++)
			if (a->channels[j] == v)
				return usage_error("--channels %s: %lu is listed twice", val, v);
		if (a->nchannels == TUNE_MAX_CHANNELS)
			return usage_error("--channels %s: at most %d counts", val, TUNE_MAX_CHANNELS);
		a->channels[a->nchannels++] = (uint32_t)v;
		if (!*p && item[n] == ',')
			return usage_error("invalid value '%s' for --channels: nothing after "
					   "the last comma", val);
	}
	return 0;
}

/* --ring-orders rank,rail: each ring order once.  0, or CLI_EXIT_USAGE. */
static int parse_orders(const char *val, struct tune_args *a)
{
	const char *p = val, *item;
	char name[16];
	size_t n;

	memset(a->order_given, 0, sizeof(a->order_given));
	a->orders_given = true;
	while (*p || p == val) {
		enum cc_ring_order o;

		n = next_item(&p, &item);
		snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) ? n : sizeof(name) - 1),
			 item);
		if (n == 0 || n >= sizeof(name) || cc_ring_order_parse(name, &o))
			return usage_error("invalid value '%s' for --ring-orders: expected rank, "
					   "rail or both, separated by a comma", val);
		if (a->order_given[o])
			return usage_error("--ring-orders %s: %s is listed twice", val, name);
		a->order_given[o] = true;
		if (!*p && item[n] == ',')
			return usage_error("invalid value '%s' for --ring-orders: nothing after "
					   "the last comma", val);
	}
	return 0;
}

/* --jobs N: 1 to TUNE_MAX_JOBS.  0, or CLI_EXIT_USAGE. */
static int parse_jobs(const char *val, struct tune_args *a)
{
	unsigned long v = 0;
	const char *d;

	for (d = val; *d >= '0' && *d <= '9' && v <= TUNE_MAX_JOBS; d++)
		v = v * 10 + (unsigned long)(*d - '0');
	if (*d || v < 1 || v > TUNE_MAX_JOBS)
		return usage_error("invalid value '%s' for --jobs: expected 1 to %d runs at once",
				   val, TUNE_MAX_JOBS);
	a->jobs = (uint32_t)v;
	return 0;
}

int tune_parse_args(int argc, char **argv, struct tune_args *a, bool *help)
{
	struct cli_opts *o = &a->o;
	int rc;

	memset(a, 0, sizeof(*a));
	rc = cli_parse(CLI_TUNE, argc, argv, o);
	*help = o->help;
	if (rc || o->help)
		return rc;
	a->scenario = o->scenario_path;
	memcpy(a->sets, o->sets, o->nsets * sizeof(o->sets[0]));
	a->nsets = o->nsets;
	a->json = o->json;
	a->csv = o->csv;
	a->all = o->tune_all;
	a->out = o->tune_out;
	if ((o->tune_channels && parse_channels(o->tune_channels, a)) ||
	    (o->tune_orders && parse_orders(o->tune_orders, a)) ||
	    (o->tune_jobs && parse_jobs(o->tune_jobs, a)))
		return CLI_EXIT_USAGE;
	return CLI_EXIT_OK;
}

int tune_scenario(const struct tune_args *a, struct cc_scenario *sc)
{
	const struct cli_opts *o = &a->o;
	char msg[SIM_NET_ERR_LEN];
	int rc;

	/* What cc_scenario_load() fills from a file, from sim's options:
	 * the same defaults (cli/options.c's are the scenario's: ib-hdr,
	 * seed 1, factor 2), no expectations, no data carried. */
	memset(sc, 0, sizeof(*sc));
	sc->p = o->p;
	sc->chunk_given = o->chunk_given;
	sc->slot_given = o->slot_given;
	sc->minbytes = o->minbytes;
	sc->maxbytes = o->maxbytes;
	sc->stepfactor = o->stepfactor;
	sc->seed = o->seed;
	sc->model = o->model;
	sc->executor[CC_EXEC_SIM] = true;
	sc->fabric = o->fabric;
	sc->nccl = o->nccl_own;
	sim_net_init(&sc->net, "");
	rc = sim_topo_net_make_hosts(&sc->net, o->topo, o->p.nranks, o->p.ranks_per_node,
				     &o->hosts, msg, sizeof(msg));
	if (rc) {
		/* as `cclab sim`: a shape the options cannot make is theirs */
		fprintf(stderr, "cclab tune: --topology %s: %s\n", sim_topo_kind_name[o->topo],
			msg[0] ? msg : strerror(-rc));
		cc_scenario_free(sc);
		return rc == -EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
	}
	/* as the loader: the hosts' GPUs, which the hierarchical algorithm
	 * and NCCL's model read (0 when the hosts differ) */
	sc->p.ranks_per_node = sim_net_ranks_per_node(&sc->net);
	return CLI_EXIT_OK;
}
