/* cli/build.c — from a command line size to a schedule, with the messages
 * a person needs when that fails. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "cli/check.h"
#include "core/algo.h"
#include "core/dtype.h"

int cli_build(const struct cli_opts *o, uint64_t bytes, struct cc_schedule **out,
	      uint64_t *count, uint64_t *size)
{
	struct cc_coll_params p = o->p;
	char err[256] = "";

	cc_result_counts(p.coll, p.nranks, cc_dtype_size(p.dtype), bytes, count, size);
	p.count = *count;
	errno = 0;
	*out = cc_build(&p, err, sizeof(err));
	if (*out)
		return 0;
	/* cc_build(): a message for bad parameters (errno EINVAL), for a
	 * schedule too large for this machine (E2BIG: not a usage error), or
	 * errno = ENOMEM. */
	if (err[0] && errno == E2BIG) {
		fprintf(stderr, "cclab %s: %s of %" PRIu64 " bytes on %" PRIu32 " ranks: %s\n",
			cli_cmd_name(o->cmd), cc_coll_name[p.coll], bytes, p.nranks, err);
		return CLI_EXIT_FAIL;
	}
	if (err[0]) {
		fprintf(stderr, "cclab %s: cannot build %s of %" PRIu64 " bytes (count %" PRIu64
			") on %" PRIu32 " ranks: %s\n", cli_cmd_name(o->cmd),
			cc_coll_name[p.coll], bytes, *count, p.nranks, err);
		cli_usage_hint(o->cmd);
		return CLI_EXIT_USAGE;
	}
	fprintf(stderr, "cclab %s: cannot build the schedule for %" PRIu64 " bytes: %s\n",
		cli_cmd_name(o->cmd), bytes, strerror(errno ? errno : ENOMEM));
	return CLI_EXIT_FAIL;
}
