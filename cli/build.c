/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/build.c — from a command line size to a schedule, with the messages
 * a person needs when that fails. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "cli/check.h"
#include "core/algo.h"
#include "core/dtype.h"
#include "core/exec.h"
#include "sim/scenario.h"

/* cli_usage_hint() on errs. */
static void usage_hint(FILE *errs, enum cli_cmd cmd)
{
	fprintf(errs, "Try 'cclab %s --help'.\n", cli_cmd_name(cmd));
}

/* cc_fault_check() of f on s; on a schedule built for one rank, a fault
 * of another rank is checked on that rank's own build (as its process
 * does), so that every process of a job accepts or refuses the same
 * faults. */
static int fault_checked(const struct cc_fault *f, const struct cc_schedule *s, char *err,
			 size_t len)
{
	if (!s->one_rank || f->rank == s->rank || f->rank >= s->nranks)
		return cc_fault_check(f, s, err, len);

	const struct cc_build_opts bo = { .one_rank = true, .rank = f->rank };
	struct cc_schedule *t = cc_build_with(&s->params, &bo, err, len);
	int rc = t ? cc_fault_check(f, t, err, len) : -ENOMEM;

	cc_schedule_free(t);
	return rc;
}

/* --fault KIND:RANK:OP names an op of the first size's schedule that it
 * can act on, else exit 2: a fault that hits nothing would leave the run
 * clean and its test passing.  Ops depend on the size, so at a later size
 * the fault may name none (or a doorbell): that size runs without it,
 * which the executors do anyway (a key is flipped only on a post that has
 * one), and a note says so. */
static int check_faults(const struct cli_opts *o, const struct cc_schedule *s, uint64_t bytes,
			enum cli_cmd cmd, FILE *errs)
{
	bool first = bytes == o->minbytes;
	char err[160];

	for (uint32_t i = 0; i < o->nfaults; i++) {
		const struct cc_fault *f = &o->faults[i];

		if (!fault_checked(f, s, err, sizeof(err)))
			continue;
		/* The scenario's own come first (cli/cmd_run.c from_scenario). */
		bool from_file = o->scenario && i < o->scenario->nkey_faults;

		fprintf(errs, "cclab %s: %s%s %s:%" PRIu32 ":%" PRIu32 " at %" PRIu64
			" bytes: %s%s\n", cli_opts_cmd(o), first ? "" : "note: ",
			from_file ? "'faults:'" : "--fault", cc_fault_kind_label[f->kind], f->rank,
			f->op, bytes, err,
			first ? " ('cclab schedule -b SIZE' lists a size's ops)"
			      : "; this size runs without it");
		if (first) {
			usage_hint(errs, cmd);
			return CLI_EXIT_USAGE;
		}
	}
	return 0;
}

void cli_row_params(const struct cli_opts *o, const struct cc_result_row *row,
		    struct cc_coll_params *p)
{
	char err[256];

	/* the size's choice made again (it is a function of the size), so
	 * that only what `auto` covers follows NCCL's pick */
	if (!row->nccl || cli_size_params(o, row->size, p, NULL, err, sizeof(err)))
		*p = o->p;
}

int cli_size_params(const struct cli_opts *o, uint64_t size, struct cc_coll_params *p,
		    struct cc_nccl_pick *pick, char *err, size_t len)
{
	*p = o->p;
	return cc_nccl_auto_params(o->nccl, size, o->slot_given, o->chunk_given, p, pick, err, len);
}

int cli_build(const struct cli_opts *o, uint64_t bytes, struct cc_schedule **out,
	      uint64_t *count, uint64_t *size)
{
	const struct cc_build_opts bo = {0};

	return cli_build_with(o, bytes, &bo, out, count, size);
}

int cli_build_with(const struct cli_opts *o, uint64_t bytes, const struct cc_build_opts *bo,
		   struct cc_schedule **out, uint64_t *count, uint64_t *size)
{
	return cli_build_to(o, bytes, bo, out, count, size, stderr);
}

int cli_build_to(const struct cli_opts *o, uint64_t bytes, const struct cc_build_opts *bo,
		 struct cc_schedule **out, uint64_t *count, uint64_t *size, FILE *errs)
{
	struct cc_coll_params p;
	enum cli_cmd cmd = o->scenario ? CLI_RUN : o->cmd; /* what was typed */
	char err[256] = "";
	/* The command line's policy: no schedule larger than this host, its
	 * ulimit -v and -d and its cgroup allow (util/mem_limit.h). */
	struct cc_mem_limit host;
	struct cc_build_opts with_limit = *bo;

	if (!with_limit.mem_limit) {
		cc_mem_limit(&host);
		with_limit.mem_limit = &host;
	}

	cc_result_counts(o->p.coll, o->p.nranks, cc_dtype_size(o->p.dtype), bytes, count, size);
	if (cli_size_params(o, *size, &p, NULL, err, sizeof(err))) {
		fprintf(errs, "cclab %s: %" PRIu64 " bytes: %s\n", cli_cmd_name(cmd), *size, err);
		return CLI_EXIT_USAGE;
	}
	p.count = *count;
	errno = 0;
	*out = cc_build_with(&p, &with_limit, err, sizeof(err));
	if (!*out && errno == ETIME)
		return CLI_BUILD_TIME_LIMIT; /* the caller reports the size */
	if (*out) {
		int rc = check_faults(o, *out, bytes, cmd, errs);

		if (rc) {
			cc_schedule_free(*out);
			*out = NULL;
		}
		return rc;
	}
	/* cc_build(): a message for bad parameters (errno EINVAL), for a
	 * schedule too large for this machine (E2BIG: not a usage error), or
	 * errno = ENOMEM. */
	if (errno == ENOMEM) {
		/* Not bad input, and no reason to abort: exit 1 and say so. */
		fprintf(errs, "cclab %s: %s of %" PRIu64 " bytes on %" PRIu32 " ranks: out of "
			"memory building the schedule\n", cli_cmd_name(cmd), cc_coll_name[p.coll],
			bytes, p.nranks);
		return CLI_EXIT_FAIL;
	}
	if (err[0] && errno == E2BIG) {
		fprintf(errs, "cclab %s: %s of %" PRIu64 " bytes on %" PRIu32 " ranks: %s\n",
			cli_cmd_name(cmd), cc_coll_name[p.coll], bytes, p.nranks, err);
		return CLI_EXIT_FAIL;
	}
	if (err[0]) {
		fprintf(errs, "cclab %s: cannot build %s of %" PRIu64 " bytes (count %" PRIu64
			") on %" PRIu32 " ranks: %s\n", cli_cmd_name(cmd),
			cc_coll_name[p.coll], bytes, *count, p.nranks, err);
		usage_hint(errs, cmd);
		return CLI_EXIT_USAGE;
	}
	fprintf(errs, "cclab %s: cannot build the schedule for %" PRIu64 " bytes: %s\n",
		cli_cmd_name(cmd), bytes, strerror(errno ? errno : ENOMEM));
	return CLI_EXIT_FAIL;
}

uint64_t cli_wall_deadline(uint64_t wall_limit_ms, uint64_t start_ns)
{
	/* A limit past 2^64 ns is none, as the simulator's watchdog takes it. */
	if (!wall_limit_ms || wall_limit_ms > (UINT64_MAX - start_ns) / 1000000u)
		return 0;
	return start_ns + wall_limit_ms * 1000000u;
}
