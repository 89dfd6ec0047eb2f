/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/cmd_tune.c — `cclab tune SCENARIO.yaml`: the scenario's collective
 * with every algorithm x protocol x transport on the simulator, size by
 * size, and one row per size: the winner, the runner-up, the margin
 * between them, the candidates' times (docs/tune.md; cli/tune_table.c
 * prints them).
 *
 * Each protocol runs with its own slot and chunk: NCCL's defaults for it
 * unless the scenario gives them (cc_coll_params_fill()).
 *
 * A candidate the algorithm does not build (cc_params_check(); LL flags
 * that would repeat, cc_build() EOVERFLOW) or the topology cannot carry
 * (cc_sim_run() -EINVAL: a queue pair between ranks it does not connect)
 * is "n/a" at that size: a fact about the scenario, not an error.  A run
 * that does not complete, or whose time breaks physics as `cclab run` checks
 * it (sim_physical(): a model bug), is an error: named on stderr,
 * "failed" in its cell, exit status 1, and never a winner.
 *
 * Runs carry no data (check off): what is compared is time, and the
 * schedules are the ones `cclab run` checks.  The first size runs before
 * anything is printed, so the preamble can say which candidates apply;
 * each later row is printed as soon as its size has run.  The output
 * files are opened before the first run and written after the last:
 * complete or absent.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/check.h"
#include "cli/sim.h"
#include "cli/tune.h"
#include "core/algo.h"
#include "core/nccl_auto.h"
#include "core/dtype.h"
#include "sim/bound.h"
#include "sim/physics.h"
#include "sim/exec.h"
#include "sim/nccl_system.h"
#include "sim/scenario.h"
#include "util/units.h"

int tune_fastest(const struct tune_size *z, int first, int n)
{
	int best = -1;

	for (int c = first; c < first + n; c++)
		if (z->cell[c].state == TUNE_OK &&
		    (best < 0 || z->cell[c].time_ps < z->cell[best].time_ps))
			best = c;
	return best;
}

bool tune_margin(const struct tune_size *z, double *pct)
{
	if (z->best < 0 || z->second < 0 || !z->cell[z->best].time_ps)
		return false;
	*pct = ((double)z->cell[z->second].time_ps / (double)z->cell[z->best].time_ps - 1) * 100;
	return true;
}

bool tune_busbw(const struct tune *t, const struct tune_size *z, int c, double *busbw)
{
	double algbw;

	if (c < 0 || z->cell[c].state != TUNE_OK)
		return false;
	return cc_result_bw(z->bytes, tune_us(z->cell[c].time_ps), t->busbw_factor, &algbw, busbw);
}

/* ---- running ---- */

static void refuse(struct tune_cand *k, struct tune_cell *cell, const char *why)
{
	cell->state = TUNE_NA;
	cell->status = "n/a";
	if (!k->refused)
		snprintf(k->reason, sizeof(k->reason), "%s", why);
	k->refused = true;
}

/* A run that did not give a time: "failed" in its cell, and a note. */
static void fail(struct tune_note *n, struct tune_cell *cell, const char *status, const char *why)
{
	cell->state = TUNE_FAILED;
	cell->status = status;
	n->status = status;
	snprintf(n->why, sizeof(n->why), "%s", why);
}

/* Out of memory: alone, the candidate is refused (it cannot be timed on
 * this machine, which is no verdict on it); beside other runs, it runs
 * again alone once they are done. */
static void out_of_memory(struct tune_note *n, struct tune_cell *cell, bool alone,
			  const char *where)
{
	char why[TUNE_REASON_LEN];

	if (!alone) {
		n->retry = true;
		return;
	}
	snprintf(why, sizeof(why), "out of memory %s, running alone", where);
	fail(n, cell, "refused", why);
}

/* Simulates s (built for candidate c at size z) and fills its cell. */
static void simulate(struct tune *t, int c, struct tune_size *z, const struct cc_schedule *s,
		     const struct cc_sim_opts *o, struct tune_note *n, bool alone)
{
	const struct cc_scenario *sc = t->sc;
	struct tune_cell *cell = &z->cell[c];
	char err[TUNE_REASON_LEN] = "";
	struct cc_sim_result res;
	int rc;

	memset(&res, 0, sizeof(res));
	rc = cc_sim_run(s, o, &res);
	if (rc == -EINVAL) {
		/* The simulator's reason when it gave one; else the fabric was
		 * validated with the scenario: it is the topology. */
		if (res.err.msg[0])
			snprintf(err, sizeof(err), "%.*s", (int)sizeof(res.err.msg), res.err.msg);
		else
			snprintf(err, sizeof(err), "the %s topology cannot carry this schedule (a "
				 "queue pair joins ranks it does not connect)", sc->net.name);
		refuse(&t->cand[c], cell, err);
	} else if (rc == -ENOMEM || rc == -E2BIG) {
		out_of_memory(n, cell, alone, "while simulating");
	} else if (rc < 0) {
		fail(n, cell, "refused", strerror(-rc));
	} else if (res.err.status != CC_RUN_OK) {
		/* msg is a fixed array; do not trust it to be terminated. */
		snprintf(err, sizeof(err), "%.*s", (int)sizeof(res.err.msg), res.err.msg);
		fail(n, cell, cli_run_status_name(res.err.status), err);
	} else if (!sim_physical(&sc->net, &sc->fabric, &s->params, z->bytes, res.time_ps,
				 sim_bound_ps(s, &sc->fabric, &sc->net), err, sizeof(err))) {
		/* As `cclab run` of it would say: a model bug, not a time. */
		fail(n, cell, "model_bug", err);
	} else {
		cell->state = TUNE_OK;
		cell->status = cli_run_status_name(CC_RUN_OK);
		cell->time_ps = res.time_ps;
	}
	cc_sim_result_free(&res);
}

/* Runs candidate c at size z and fills its cell, and *n with what is to
 * be said.  Touches nothing another candidate's run does, so runs of one
 * size may go in parallel, each within its reservation of t->mem: the
 * estimate before building (cc_build_estimate(): the ops, and the LL
 * protocols' staging, which a run without data still carries), then what
 * the schedule built and its simulation take (cc_sim_mem_estimate()).
 * alone: no other run holds memory (the retry of one that ran out). */
static void run_cand(struct tune *t, int c, struct tune_size *z, struct tune_note *n, bool alone)
{
	const struct cc_scenario *sc = t->sc;
	struct tune_cand *k = &t->cand[c]; /* its refusal: only this run writes it */
	struct tune_cell *cell = &z->cell[c];
	struct cc_coll_params p = sc->p;
	struct cc_sim_opts o = {
		.fabric = &sc->fabric,
		.model = (enum cc_sim_model)sc->model,
		.net = &sc->net,
		.seed = sc->seed,
		.check = false,
		/* As `cclab sim`: a run still going then is stuck.  No launch
		 * floor (sim/launch.h): the same for every candidate, it would
		 * tie those below it and hide which is fastest. */
		.time_limit_ps = CLI_SIM_TIME_LIMIT_S * SIM_PS_PER_S,
	};
	char err[TUNE_REASON_LEN] = "", lim[160];
	struct cc_schedule *s;
	double ops, staging, held, need;

	p.algo = k->algo;
	p.nchannels = t->variants[k->variant].channels;
	p.ring_order = t->variants[k->variant].order;
	p.proto = k->proto;
	p.transport = k->transport;
	p.count = z->count;
	cc_coll_params_fill(&p, sc->slot_given, sc->chunk_given);
	if (p.algo == CC_ALGO_HIER && (p.ranks_per_node == 1 || p.ranks_per_node == p.nranks)) {
		/* Its inter-node ring (G = 1) or its intra-node ring (one
		 * node) is all of it: the flat ring again, a 0 % runner-up
		 * that would hide the real one. */
		refuse(k, cell, p.ranks_per_node == 1 ? "one GPU per host: hierarchical is the ring"
						       : "one host: hierarchical is the ring");
		return;
	}
	if (p.algo == CC_ALGO_NVLS && p.transport != CC_WRITE_IMM) {
		/* No connections: every transport is the same run. */
		refuse(k, cell, "nvls makes no connections: the transport does not apply "
		       "(write_imm runs it)");
		return;
	}
	if (cc_params_check(&p, NULL, err, sizeof(err))) {
		refuse(k, cell, err);
		return;
	}
	cc_build_estimate(&p, &ops, &staging);
	held = cli_mem_budget_acquire(&t->mem, ops + (p.proto == CC_PROTO_SIMPLE ? 0 : staging));
	errno = 0;
	s = cc_build_with(&p, &(const struct cc_build_opts){ .timing_only = true, .generated = true,
							     .mem_limit = &t->mem.limit },
			  err, sizeof(err));
	if (!s && errno == EOVERFLOW) {
		/* More slices on a connection than LL's 32-bit flags count. */
		refuse(k, cell, err);
	} else if (!s && errno == E2BIG) {
		/* Too large for this machine: this candidate has no time here,
		 * which is no verdict on it. */
		fail(n, cell, "refused", err);
	} else if (!s) {
		out_of_memory(n, cell, alone, "building the schedule");
	} else if ((need = (double)cc_schedule_bytes(s) + cc_sim_mem_estimate(s, &o)) >
		   t->mem.budget) {
		snprintf(err, sizeof(err), "its schedule and simulation need about %.2f GiB, more "
			 "than the %s", need / (1 << 30), cli_mem_budget_text(&t->mem, lim, sizeof(lim)));
		fail(n, cell, "refused", err);
	} else if (!cli_mem_budget_resize(&t->mem, &held, need)) {
		n->retry = true; /* more than estimated, and others hold the rest */
	} else {
		simulate(t, c, z, s, &o, n, alone);
	}
	cc_schedule_free(s);
	cli_mem_budget_release(&t->mem, held);
}

void tune_run_one(struct tune *t, int c, struct tune_size *z, struct tune_note *n)
{
	run_cand(t, c, z, n, true);
}

/* The notes of size z's runs on stderr, in candidate order; failed runs
 * count for the exit status. */
static void report(struct tune *t, const struct tune_size *z, const struct tune_note *notes)
{
	for (int c = 0; c < t->ncand; c++) {
		const struct tune_note *n = &notes[c];

		if (!n->status)
			continue;
		fflush(stdout); /* after the rows before it */
		if (t->tty)
			fputs("\r\033[K", stderr); /* not on the progress line */
		t->failures++;
		fprintf(stderr, "cclab tune: %" PRIu64 " bytes: %s: %s: %s\n", z->bytes,
			t->cand[c].name, n->status, n->why);
	}
}

/* The fastest completed run, and the runner-up: the fastest of another
 * algorithm or protocol (NCCL's tuner picks those two; the same pair on
 * another transport is usually within a hundredth of a percent, a margin
 * that says nothing).  A tie goes to the candidate first in enum order,
 * so the table never depends on luck. */
static void rank_cells(const struct tune *t, struct tune_size *z)
{
	z->best = tune_fastest(z, 0, t->ncand);
	z->second = -1;
	for (int c = 0; z->best >= 0 && c < t->ncand; c++) {
		const struct tune_cand *k = &t->cand[c], *b = &t->cand[z->best];

		if (z->cell[c].state == TUNE_OK && (k->variant != b->variant || k->proto != b->proto) &&
		    (z->second < 0 || z->cell[c].time_ps < z->cell[z->second].time_ps))
			z->second = c;
	}
}

/* A progress line on stderr, only when stderr is a terminal (as the size
 * loop's, cli/loop.c): the size and the candidate running; k NULL clears
 * it. */
static void progress(bool on, uint32_t i, uint32_t n, const struct tune_size *z,
		     const struct tune_cand *k)
{
	char b[CC_FMT_BYTES_LEN];

	if (!on)
		return;
	if (!k) {
		fputs("\r\033[K", stderr);
		return;
	}
	fprintf(stderr, "\r\033[K[%u/%u] %s %s ...", i + 1, n,
		cc_format_bytes(b, sizeof(b), z->bytes), k->name);
	fflush(stderr);
}

/* ---- the command ---- */

/* Appends a variant, labelled "ring", "ring-rail", "ring-4ch",
 * "ring-rail-4ch", "tree". */
static void add_variant(struct tune *t, enum cc_algo al, enum cc_ring_order o, uint32_t ch)
{
	struct tune_variant *v = &t->variants[t->nvariants++];

	*v = (struct tune_variant){ .algo = al, .order = o, .channels = ch };
	snprintf(v->label, sizeof(v->label), "%s%s", cc_algo_name[al],
		 o == CC_RING_ORDER_RAIL ? "-rail" : "");
	if (ch > 1)
		snprintf(v->label + strlen(v->label), sizeof(v->label) - strlen(v->label), "-%uch",
			 (unsigned)ch);
}

/* The variants: every algorithm in enum order, the ring once per ring
 * order x channel count asked for, the tree once per channel count (NCCL
 * tunes the tree's channels too).  With neither option the ring and the
 * tree keep the scenario's channels, the ring its order, and tries rail
 * order too when the topology has nodes of more than one GPU (as NCCL's
 * rings are rail-aligned there); other algorithms run on one channel. */
static void variants_init(struct tune *t, const struct tune_args *a)
{
	const struct cc_coll_params *sp = &t->sc->p;
	uint32_t g = sp->ranks_per_node;
	bool order[CC_RING_ORDER_COUNT] = {false};
	uint32_t one = sp->nchannels ? sp->nchannels : 1;
	const uint32_t *ch = a->nchannels ? a->channels : &one;
	uint32_t nch = a->nchannels ? a->nchannels : 1;

	if (a->orders_given) {
		memcpy(order, a->order_given, sizeof(order));
	} else {
		order[sp->ring_order] = true;
		order[CC_RING_ORDER_RAIL] |= g > 1 && g < sp->nranks;
	}
	t->nvariants = 0;
	for (int al = 0; al < CC_ALGO_COUNT; al++) {
		if (al == CC_ALGO_TREE) {
			/* the scenario's auto channels are NCCL's, one tree
			 * each: the tree's pairs are half of them */
			for (uint32_t i = 0; i < nch; i++)
				add_variant(t, CC_ALGO_TREE, CC_RING_ORDER_RANK,
					    a->nchannels || !t->sc->nccl.channels
						    ? ch[i]
						    : cc_nccl_channels_as(CC_ALGO_TREE, sp->coll, ch[i]));
			continue;
		}
		/* NVLS only where it can run: every rank on one host's
		 * NVSwitch; NVLSTree on nodes each on its own (sim/topo.h);
		 * CollNetChain on such nodes and SHARP switches; elsewhere they
		 * are no candidates. */
		struct cc_coll_params mp = *sp;

		mp.algo = (enum cc_algo)al;
		if (cc_algo_multicast(mp.algo) && !sim_topo_mcast_ok(&t->sc->net, &mp, NULL, 0))
			continue;
		if (al == CC_ALGO_COLLNET_CHAIN && !t->sc->fabric.sw.sharp &&
		    !sim_net_has_sharp(&t->sc->net))
			continue;
		if (al != CC_ALGO_RING) {
			add_variant(t, (enum cc_algo)al, CC_RING_ORDER_RANK, 1);
			continue;
		}
		for (int o = 0; o < CC_RING_ORDER_COUNT; o++)
			for (uint32_t i = 0; order[o] && i < nch; i++)
				add_variant(t, CC_ALGO_RING, (enum cc_ring_order)o, ch[i]);
	}
	t->ncand = t->nvariants * TUNE_NPT;
}

/* The candidates, and each protocol's slot and chunk as run_cand() sets
 * them (for the preamble and --json). */
static void cands_init(struct tune *t, const struct tune_args *a)
{
	variants_init(t, a);
	for (int c = 0; c < t->ncand; c++) {
		struct tune_cand *k = &t->cand[c];

		k->variant = c / TUNE_NPT;
		k->algo = t->variants[k->variant].algo;
		k->proto = (enum cc_proto)(c / CC_TRANSPORT_COUNT % CC_PROTO_COUNT);
		k->transport = (enum cc_transport)(c % CC_TRANSPORT_COUNT);
		snprintf(k->name, sizeof(k->name), "%s/%s/%s", t->variants[k->variant].label,
			 cc_proto_name[k->proto], cc_transport_name[k->transport]);
	}
	for (int pr = 0; pr < CC_PROTO_COUNT; pr++) {
		struct cc_coll_params p = t->sc->p;

		p.proto = (enum cc_proto)pr;
		cc_coll_params_fill(&p, t->sc->slot_given, t->sc->chunk_given);
		t->slot_bytes[pr] = p.slot_bytes;
		t->chunk_bytes[pr] = p.chunk_bytes;
	}
}

/* The sweep's sizes with nccl-tests' count and size columns. */
static int sizes_init(struct tune *t)
{
	const struct cc_scenario *sc = t->sc;
	size_t es = cc_dtype_size(sc->p.dtype);
	uint64_t bytes = sc->minbytes;
	uint32_t n = 1, i = 0;

	while (cc_result_next_size(&bytes, sc->stepfactor, sc->maxbytes))
		n++;
	t->sizes = calloc(n, sizeof(*t->sizes));
	if (!t->sizes)
		return -ENOMEM;
	t->nsizes = n;
	bytes = sc->minbytes;
	do {
		struct tune_size *z = &t->sizes[i++];

		cc_result_counts(sc->p.coll, sc->p.nranks, es, bytes, &z->count, &z->bytes);
	} while (cc_result_next_size(&bytes, sc->stepfactor, sc->maxbytes));
	return 0;
}

/* Opens --json and --csv before any run, so a bad path fails at once. */
static int open_outputs(const struct tune_args *a, struct cc_atomic_file *jf,
			struct cc_atomic_file *cf)
{
	int rc;

	if (a->json && (rc = cli_output_open("tune", a->json, jf)))
		return rc;
	if (a->csv && (rc = cli_output_open("tune", a->csv, cf))) {
		if (a->json)
			cc_atomic_abort(jf);
		return rc;
	}
	return 0;
}

/* One size's runs, shared by the threads that take candidates from it. */
struct tune_job {
	struct tune *t;
	struct tune_size *z;
	struct tune_note *notes;
	uint32_t index;         /* the size's, for the progress line */
	int next;               /* the next candidate to run (atomic) */
	pthread_mutex_t lock;   /* the progress line */
};

static void *work(void *arg)
{
	struct tune_job *j = arg;
	int c;

	while ((c = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED)) < j->t->ncand) {
		if (j->t->tty) {
			pthread_mutex_lock(&j->lock);
			progress(true, j->index, j->t->nsizes, j->z, &j->t->cand[c]);
			pthread_mutex_unlock(&j->lock);
		}
		run_cand(j->t, c, j->z, &j->notes[c], false);
	}
	return NULL;
}

/* Every candidate of size i, on t->jobs threads (this one included; fewer
 * if the system has no more to give). */
static void run_size(struct tune *t, uint32_t i, struct tune_note *notes)
{
	struct tune_job j = { .t = t, .z = &t->sizes[i], .notes = notes, .index = i };
	pthread_t th[TUNE_MAX_JOBS];
	uint32_t n = 0;

	pthread_mutex_init(&j.lock, NULL);
	memset(notes, 0, (size_t)t->ncand * sizeof(*notes));
	while (n + 1 < t->jobs && (int)n + 1 < t->ncand && !pthread_create(&th[n], NULL, work, &j))
		n++;
	work(&j);
	while (n)
		pthread_join(th[--n], NULL);
	pthread_mutex_destroy(&j.lock);
	/* Runs that ran out of memory beside others: again, one at a time,
	 * with the whole budget; in candidate order, so the same runs give
	 * the same table whatever --jobs did. */
	for (int c = 0; c < t->ncand; c++)
		if (notes[c].retry) {
			notes[c].retry = false;
			progress(t->tty, i, t->nsizes, j.z, &t->cand[c]);
			run_cand(t, c, j.z, &notes[c], true);
		}
	progress(t->tty, i, t->nsizes, j.z, NULL);
}

/* Size i's notes, ranking and row (the table's head before the first). */
static void show_size(struct tune *t, uint32_t i, const struct tune_note *notes)
{
	struct tune_size *z = &t->sizes[i];
	uint32_t fails = t->failures;

	report(t, z, notes);
	rank_cells(t, z);
	if (i == 0)
		tune_print_head(t);
	tune_print_row(t, z);
	if (z->best < 0 && fails == t->failures) {
		/* Nothing failed and nothing ran: no candidate applies. */
		fflush(stdout);
		fprintf(stderr, "cclab tune: %" PRIu64 " bytes: no candidate applies to this "
			"scenario\n", z->bytes);
		t->failures++;
	}
}

/* Every size, every candidate; the table as it goes.  0, or CLI_EXIT_FAIL
 * when the sweep cannot start (no memory for its notes).  A run that runs
 * out of memory does not stop it: it is refused (run_cand()). */
static int sweep(struct tune *t)
{
	struct tune_note *notes = calloc((size_t)t->ncand, sizeof(*notes));

	if (!notes) {
		fprintf(stderr, "cclab tune: %s\n", strerror(ENOMEM));
		return CLI_EXIT_FAIL;
	}
	for (uint32_t i = 0; i < t->nsizes; i++) {
		run_size(t, i, notes);
		show_size(t, i, notes);
	}
	free(notes);
	return 0;
}

/* Under srun or mpirun (--out): this task's runs; rank 0 then shows
 * every size from the cells all tasks wrote.  0, CLI_EXIT_FAIL, or for a
 * task other than rank 0 TUNE_SHARE_DONE. */
#define TUNE_SHARE_DONE (-100)
static int sweep_shared(struct tune *t, const struct cli_share *sh, const char *out)
{
	struct tune_note *notes;
	int rc = tune_share_run(t, sh, out);

	if (sh->rank != 0)
		return rc ? CLI_EXIT_FAIL : TUNE_SHARE_DONE;
	notes = calloc((size_t)t->nsizes * (size_t)t->ncand, sizeof(*notes));
	if (!notes || tune_share_collect(t, sh, out, notes)) {
		if (!notes)
			fprintf(stderr, "cclab tune: %s\n", strerror(ENOMEM));
		free(notes);
		return CLI_EXIT_FAIL;
	}
	for (uint32_t i = 0; i < t->nsizes; i++)
		show_size(t, i, notes + (size_t)i * (size_t)t->ncand);
	free(notes);
	return rc ? CLI_EXIT_FAIL : 0;
}

/* NCCL's model of the scenario's machine, for its choice beside each
 * row; a machine it cannot describe (hosts that differ) leaves the
 * reason instead. */
static void nccl_init(struct tune *t)
{
	const struct cc_scenario *sc = t->sc;
	struct cc_nccl_system sys;

	t->nccl_why[0] = '\0';
	if (sim_nccl_system(&sc->net, &sc->fabric, &sys, t->nccl_why, sizeof(t->nccl_why)) ||
	    cc_nccl_comm_init(&t->nccl, &sc->nccl.version, &sys, &sc->nccl.env, t->nccl_why,
			      sizeof(t->nccl_why))) {
		if (!t->nccl_why[0])
			snprintf(t->nccl_why, sizeof(t->nccl_why), "no model");
	}
}

/* One thread per processor this process may use, at most TUNE_MAX_JOBS. */
static uint32_t default_jobs(void)
{
	uint32_t n = cli_default_jobs();

	return n > TUNE_MAX_JOBS ? TUNE_MAX_JOBS : n;
}

static int tune_run(const struct tune_args *a, const struct cc_scenario *sc)
{
	struct cc_atomic_file jf = {0}, cf = {0};
	struct tune t = {
		.sc = sc,
		.busbw_factor = cc_busbw_factor(sc->p.coll, sc->p.nranks),
		.tty = isatty(STDERR_FILENO),
		.all = a->all,
		.jobs = a->jobs ? a->jobs : default_jobs(),
	};
	struct cli_share share;
	char why[256];
	int rc, err;

	if (cli_share_find(&share, why, sizeof(why)))
		return cli_usage_error(CLI_TUNE, "%s", why);
	if (share.count > 1 && (share.array || !a->out))
		return cli_usage_error(CLI_TUNE, "%s: %u tasks: tune spreads its runs over the "
				       "tasks of one srun step or mpirun through a folder every "
				       "task sees (--out DIR)%s", share.from, share.count,
				       share.array ? ", not over a job array" : "");
	cands_init(&t, a);
	nccl_init(&t);
	if ((share.count == 1 || share.rank == 0) && (rc = open_outputs(a, &jf, &cf)))
		return rc;
	/* Threads beyond the candidates would have nothing to run. */
	if (t.jobs > (uint32_t)t.ncand)
		t.jobs = (uint32_t)t.ncand;
	cli_mem_budget_init(&t.mem, &t.jobs);
	if (!sizes_init(&t) && share.count > 1 && (rc = sweep_shared(&t, &share, a->out)) ==
						       TUNE_SHARE_DONE) {
		/* a task other than rank 0: its runs are in the folder */
		cli_mem_budget_destroy(&t.mem);
		free(t.sizes);
		return CLI_EXIT_OK;
	}
	if (!t.sizes || (share.count == 1 && (rc = sweep(&t))) || (share.count > 1 && rc)) {
		if (!t.sizes)
			fprintf(stderr, "cclab tune: %s\n", strerror(ENOMEM));
		/* The files are complete or absent, never partial (a task
		 * other than rank 0 opened none). */
		if (a->json && (share.count == 1 || share.rank == 0))
			cc_atomic_abort(&jf);
		if (a->csv && (share.count == 1 || share.rank == 0))
			cc_atomic_abort(&cf);
		free(t.sizes);
		cli_mem_budget_destroy(&t.mem);
		return CLI_EXIT_FAIL;
	}
	cli_mem_budget_destroy(&t.mem);
	cc_results_print_errors(stdout, t.failures);
	tune_print_summary(&t);
	if (a->csv) {
		tune_csv_write(&t, cf.f);
		rc = cli_output_commit("tune", a->csv, &cf);
	}
	if (a->json && (err = tune_json_write(&t, &jf, !t.failures && !rc)))
		rc = cli_output_error("tune", a->json, err);
	free(t.sizes);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "cclab tune: cannot write the output: %s\n", strerror(errno));
		return CLI_EXIT_FAIL;
	}
	return rc ? rc : t.failures ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

int cmd_tune(int argc, char **argv)
{
	struct tune_args a;
	struct cc_scenario sc;
	struct cy_error err;
	bool help = false;
	int rc = tune_parse_args(argc, argv, &a, &help);

	if (rc || help) {
		if (help)
			tune_usage(stdout);
		return rc;
	}
	if (!a.scenario) {
		rc = tune_scenario(&a, &sc);
		if (!rc)
			rc = tune_run(&a, &sc);
		cc_scenario_free(&sc);
		return rc;
	}
	rc = cc_scenario_load(a.scenario, a.sets, a.nsets, &sc, &err);
	if (rc) {
		fprintf(stderr, "cclab tune: %s\n", err.msg);
		/* As `cclab run`: bad input, a missing file included, is a
		 * usage error; only running out of memory is a failure. */
		return rc == -ENOMEM ? CLI_EXIT_FAIL : CLI_EXIT_USAGE;
	}
	if (a.o.model_given)
		sc.model = a.o.model;
	if (sc.is_p2p) {
		fprintf(stderr, "cclab tune: %s: tune compares collective algorithms; this scenario "
			"is a p2p test ('cclab run %s' runs it)\n", sc.file, sc.file);
		rc = CLI_EXIT_USAGE;
	} else {
		rc = tune_run(&a, &sc);
	}
	cc_scenario_free(&sc);
	return rc;
}
