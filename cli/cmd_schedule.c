/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/cmd_schedule.c — `cclab schedule`: build one collective and print its
 * schedule (core/schedule_print.c, format in docs/schedule.md). */
#include <errno.h>
#include <string.h>

#include "cli/check.h"
#include "core/algo.h"
#include "core/dtype.h"

/* --primitives walks the algorithm only: no schedule is built, so sizes
 * too large to build can still be listed. */
static int print_primitives(const struct cli_opts *o)
{
	struct cc_coll_params p = o->p;
	uint64_t size;
	char err[256] = "";
	enum cc_param f;

	cc_result_counts(p.coll, p.nranks, cc_dtype_size(p.dtype), o->minbytes, &p.count, &size);
	if (cc_params_check(&p, &f, err, sizeof(err))) {
		fprintf(stderr, "cclab schedule: %s: %s\n", cli_param_option(f), err);
		cli_usage_hint(o->cmd);
		return CLI_EXIT_USAGE;
	}
	cc_print_primitives(stdout, &p, (int)o->rank);
	return CLI_EXIT_OK;
}

int cmd_schedule(const struct cli_opts *o)
{
	struct cc_schedule *s;
	uint64_t count, size;
	int rc;

	if (o->primitives) {
		rc = print_primitives(o);
	} else {
		/* --rank R: that rank's ops alone are built (memory growing
		 * with k, not k^2), the same ops as in the whole schedule. */
		const struct cc_build_opts bo = { .one_rank = o->rank >= 0,
						  .rank = o->rank >= 0 ? (uint32_t)o->rank : 0 };

		rc = cli_build_with(o, o->minbytes, &bo, &s, &count, &size);
		if (rc)
			return rc;
		cc_schedule_print(stdout, s, (int)o->rank);
		cc_schedule_free(s);
	}
	if (rc)
		return rc;
	/* A full disk or closed pipe must not look like success. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "cclab schedule: cannot write the output: %s\n", strerror(errno));
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}
