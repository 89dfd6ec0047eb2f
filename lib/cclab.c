/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/cclab.c — libcclab's public interface (include/cclab.h) over the
 * scenario loader (sim/scenario.c), the builder (core/algo.c) and the
 * executors' descriptors (core/exec.h).  Each step is the one `cclab run`
 * takes for a scenario (cli/cmd_run.c from_scenario, cli/build.c,
 * cli/loop_size.c), so a row here is the row the command prints; what the
 * command adds — tables, files, -j, refusals printed for the user — stays
 * in cli/. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/algo.h"
#include "core/exec_data.h"
#include "core/results.h"
#include "include/cclab.h"
#include "sim/exec.h"
#include "sim/scenario.h"
#include "util/files.h"
#include "util/mem_limit.h"

struct cclab_scenario {
	struct cc_scenario sc;
};

struct cclab_schedule {
	struct cc_schedule *s;
	struct cc_coll_params p; /* what was built, NCCL's pick applied */
	uint64_t bytes, count;
};

static void say(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

const char *cclab_version(void)
{
	return CCLAB_VERSION_STRING;
}

int cclab_scenario_load(const char *path, const char *const *sets, unsigned nsets,
			cclab_scenario **out, char *err, size_t errlen)
{
	struct cy_error e = { "" };
	struct cclab_scenario *h;
	int rc;

	if (!out || !path || (nsets && !sets)) {
		say(err, errlen, "cclab_scenario_load: a path and a place for the scenario are "
		    "needed");
		return -EINVAL;
	}
	for (unsigned i = 0; i < nsets; i++)
		if (!sets[i]) {
			say(err, errlen, "cclab_scenario_load: sets[%u] is NULL", i);
			return -EINVAL;
		}
	*out = NULL;
	if (!(h = calloc(1, sizeof(*h)))) {
		say(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	rc = cc_scenario_load(path, sets, nsets, &h->sc, &e);
	/* The loader remembers what it read, for the command line's outputs
	 * (util/files.h); a library writes none and keeps nothing. */
	cc_inputs_forget();
	if (rc) {
		say(err, errlen, "%s", e.msg);
		free(h);
		return rc;
	}
	if (h->sc.is_p2p) {
		/* perftest's tests have their own table (cclab p2p): not rows
		 * of a collective's loop. */
		say(err, errlen, "%s: a p2p scenario; libcclab runs collectives ('cclab run' runs "
		    "this one)", path);
		cc_scenario_free(&h->sc);
		free(h);
		return -EINVAL;
	}
	*out = h;
	return 0;
}

void cclab_scenario_free(cclab_scenario *h)
{
	if (!h)
		return;
	cc_scenario_free(&h->sc);
	free(h);
}

const char *cclab_scenario_name(const cclab_scenario *h)
{
	return h ? h->sc.name : NULL;
}

const char *cclab_scenario_collective(const cclab_scenario *h)
{
	return h ? cc_coll_name[h->sc.p.coll] : NULL;
}

unsigned cclab_scenario_nranks(const cclab_scenario *h)
{
	return h ? h->sc.p.nranks : 0;
}

size_t cclab_scenario_sizes(const cclab_scenario *h, uint64_t *sizes, size_t cap)
{
	uint64_t size;
	size_t n = 0;

	if (!h || h->sc.minbytes > h->sc.maxbytes)
		return 0;
	size = h->sc.minbytes;
	do {
		if (sizes && n < cap)
			sizes[n] = size;
		n++;
	} while (cc_result_next_size(&size, h->sc.stepfactor, h->sc.maxbytes));
	return n;
}

int cclab_schedule_build(const cclab_scenario *h, uint64_t bytes, cclab_schedule **out,
			 char *err, size_t errlen)
{
	const struct cc_scenario *sc;
	struct cclab_schedule *b;
	char msg[256] = "";

	if (!h || !out) {
		say(err, errlen, "cclab_schedule_build: a scenario and a place for the schedule "
		    "are needed");
		return -EINVAL;
	}
	sc = &h->sc;
	*out = NULL;
	if (!(b = calloc(1, sizeof(*b)))) {
		say(err, errlen, "out of memory");
		return -ENOMEM;
	}
	cc_result_counts(sc->p.coll, sc->p.nranks, cc_dtype_size(sc->p.dtype), bytes, &b->count,
			 &b->bytes);
	b->p = sc->p;
	/* `auto`: NCCL's choice for this size, as the command line builds it */
	int rc = cc_nccl_auto_params(&sc->nccl, b->bytes, sc->slot_given, sc->chunk_given, &b->p,
				     NULL, msg, sizeof(msg));

	if (rc) {
		say(err, errlen, "%llu bytes: %s", (unsigned long long)b->bytes, msg);
		free(b);
		return rc;
	}
	b->p.count = b->count;
	/* The command line's policy, which the header promises: no schedule
	 * larger than this host, its ulimit and its cgroup allow (-E2BIG),
	 * rather than the OOM killer half way (util/mem_limit.h). */
	struct cc_mem_limit host;
	struct cc_build_opts bo = { .mem_limit = &host };

	cc_mem_limit(&host);
	errno = 0;
	if (!(b->s = cc_build_with(&b->p, &bo, msg, sizeof(msg)))) {
		rc = errno ? -errno : -EINVAL;

		say(err, errlen, "%llu bytes: %s", (unsigned long long)b->bytes,
		    msg[0] ? msg : strerror(-rc));
		free(b);
		return rc;
	}
	*out = b;
	return 0;
}

void cclab_schedule_free(cclab_schedule *b)
{
	if (!b)
		return;
	cc_schedule_free(b->s);
	free(b);
}

/* Sized structs (include/cclab.h): the caller's size says which version of
 * the struct it was built with.  A struct only grows, so a caller's is at
 * least the first version's (V1) and the library fills what both know:
 * the fields into a whole struct of its own, then the caller's size of it. */
#define INFO_V1 sizeof(struct cclab_schedule_info)
#define ROW_V1 sizeof(struct cclab_row)
#define SIZED(ptr, v1) ((ptr) && (ptr)->size >= (v1))

static void give(void *dst, const void *src, size_t caller, size_t ours)
{
	size_t n = caller < ours ? caller : ours;

	/* the size field stays the caller's */
	memcpy((char *)dst + sizeof(size_t), (const char *)src + sizeof(size_t),
	       n - sizeof(size_t));
}

int cclab_schedule_info(const cclab_schedule *b, struct cclab_schedule_info *out)
{
	struct cclab_schedule_info whole = { .size = sizeof(whole) }, *info = &whole;

	if (!b || !SIZED(out, INFO_V1))
		return -EINVAL;
	info->bytes = b->bytes;
	info->count = b->count;
	info->nranks = b->s->nranks;
	for (uint32_t r = 0; r < b->s->nranks; r++) {
		const struct cc_rank_sched *rk = &b->s->ranks[r];

		info->ops += rk->nops;
		info->qps += rk->nqps;
		if (rk->nops > info->max_rank_ops)
			info->max_rank_ops = rk->nops;
	}
	snprintf(info->algorithm, sizeof(info->algorithm), "%s", cc_algo_name[b->p.algo]);
	snprintf(info->protocol, sizeof(info->protocol), "%s", cc_proto_name[b->p.proto]);
	info->channels = b->p.nchannels ? b->p.nchannels : 1;
	info->chunk_bytes = cc_coll_chunk_bytes(&b->p);
	give(out, info, out->size, sizeof(*info));
	return 0;
}

/* Fills row from a finished run of executor x. */
static void fill_row(const cclab_scenario *h, const cclab_schedule *b,
		     const struct cc_executor_ops *x, const void *res, bool check,
		     struct cclab_row *row)
{
	const struct cc_run_error *e = x->error(res);
	double t = x->time_us(res);

	row->bytes = b->bytes;
	row->count = b->count;
	row->time_us = t;
	row->algbw_gbs = row->busbw_gbs = NAN;
	row->ok = e->status == CC_RUN_OK;
	row->checked = check;
	row->wrong = check ? x->wrong(res) : 0;
	snprintf(row->error, sizeof(row->error), "%s", row->ok ? "" : e->msg);
	if (!isnan(t) && row->ok)
		cc_result_bw(b->bytes, t, cc_busbw_factor(h->sc.p.coll, h->sc.p.nranks),
			     &row->algbw_gbs, &row->busbw_gbs);
	if (x->id == CC_EXEC_SIM) {
		const struct cc_sim_result *sr = res;

		row->events = sr->events;
		for (uint32_t r = 0; r < sr->nranks && sr->rank; r++)
			if (sr->rank[r].data_bytes > row->max_rank_data_bytes)
				row->max_rank_data_bytes = sr->rank[r].data_bytes;
	} else {
		const struct cc_data_result *dr = res;

		for (uint32_t r = 0; r < dr->nranks && dr->data_bytes; r++)
			if (dr->data_bytes[r] > row->max_rank_data_bytes)
				row->max_rank_data_bytes = dr->data_bytes[r];
	}
}

static int run(const cclab_scenario *h, const cclab_schedule *b, enum cclab_executor which,
	       int check, uint64_t wall_limit_ms, const bool *cancel, struct cclab_row *row,
	       char *err, size_t errlen)
{
	const struct cc_scenario *sc = &h->sc;
	const struct cc_executor_ops *x;
	/* The scenario's seed and key faults (cli/cmd_run.c from_scenario). */
	struct cc_exec_common c = {
		.seed = sc->seed, .order_seed = sc->seed,
		.faults = sc->key_faults, .nfaults = sc->nkey_faults,
		.cancel = cancel, /* the simulator takes it from here (sim/exec_ops.c) */
	};
	struct cc_sim_opts so = {
		.fabric = &sc->fabric,
		.net = &sc->net,
		/* time_limit_ps 0: CC_SIM_TIME_LIMIT_DEFAULT_PS, the command
		 * line's hour, after which a run still going is stuck */
		.sim_faults = sc->faults,
		.nsim_faults = sc->nfaults,
		.wall_limit_ms = wall_limit_ms,
		.launch = sc->launch, /* as `cclab run` (cli/cmd_run.c) */
	};
	const void *setting;
	void *res;
	int rc;

	switch (which) {
	case CCLAB_EXEC_SIM: x = &cc_sim_executor; setting = &so; break;
	case CCLAB_EXEC_DATA: x = &cc_data_executor; setting = NULL; check = 1; break;
	default:
		say(err, errlen, "cclab_run: no executor %d (CCLAB_EXEC_SIM, CCLAB_EXEC_DATA)",
		    (int)which);
		return -EINVAL;
	}
	c.check = check != 0;
	if (!(res = calloc(1, x->result_size))) {
		say(err, errlen, "out of memory");
		return -ENOMEM;
	}
	char msg[256] = "";

	rc = x->run(b->s, &c, setting, res, msg, sizeof(msg));
	if (rc)
		say(err, errlen, "%llu bytes: %s", (unsigned long long)b->bytes,
		    msg[0] ? msg : strerror(-rc));
	else
		fill_row(h, b, x, res, c.check, row);
	x->result_free(res);
	free(res);
	return rc;
}

int cclab_run(const cclab_scenario *h, const cclab_schedule *b, enum cclab_executor which,
	      int check, struct cclab_row *out, char *err, size_t errlen)
{
	struct cclab_row row = { .size = sizeof(row) };
	int rc;

	if (!h || !b || !SIZED(out, ROW_V1)) {
		say(err, errlen, "cclab_run: a scenario, a schedule and a sized row are needed");
		return -EINVAL;
	}
	if (!(rc = run(h, b, which, check, 0, NULL, &row, err, errlen)))
		give(out, &row, out->size, sizeof(row));
	return rc;
}

#define OPTS_V1 sizeof(struct cclab_run_opts)

int cclab_run_with(const cclab_scenario *h, const cclab_schedule *b, enum cclab_executor which,
		   const struct cclab_run_opts *opts, struct cclab_row *out, char *err,
		   size_t errlen)
{
	struct cclab_row row = { .size = sizeof(row) };
	int check = opts ? opts->check : -1;
	int rc;

	if (!h || !b || !SIZED(out, ROW_V1) || (opts && opts->size < OPTS_V1) ||
	    check < -1 || check > 1) {
		say(err, errlen, "cclab_run_with: a scenario, a schedule, a sized row, and sized "
		    "options with check -1, 0 or 1 are needed");
		return -EINVAL;
	}
	if (check < 0)
		check = b->bytes <= h->sc.check_max;
	rc = run(h, b, which, check, opts ? opts->wall_limit_ms : 0, opts ? opts->cancel : NULL,
		 &row, err, errlen);
	if (!rc)
		give(out, &row, out->size, sizeof(row));
	return rc;
}

int cclab_run_size(const cclab_scenario *h, uint64_t bytes, enum cclab_executor which,
		   struct cclab_row *row, char *err, size_t errlen)
{
	cclab_schedule *b;
	int rc;

	if (!h || !SIZED(row, ROW_V1)) {
		say(err, errlen, "cclab_run_size: a scenario and a sized row are needed");
		return -EINVAL;
	}
	if ((rc = cclab_schedule_build(h, bytes, &b, err, errlen)))
		return rc;
	/* The sizes the scenario checks carry data (check_max, docs/yaml.md). */
	rc = cclab_run(h, b, which, b->bytes <= h->sc.check_max, row, err, errlen);
	cclab_schedule_free(b);
	return rc;
}
