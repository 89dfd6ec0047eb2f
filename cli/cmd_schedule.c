/* cli/cmd_schedule.c — `cclab schedule`: build one collective and print its
 * schedule (core/schedule_print.c, format in docs/schedule.md). */
#include <errno.h>
#include <string.h>

#include "cli/check.h"

int cmd_schedule(const struct cli_opts *o)
{
	struct cc_schedule *s;
	uint64_t count, size;
	int rc = cli_build(o, o->minbytes, &s, &count, &size);

	if (rc)
		return rc;
	if (o->primitives)
		cc_schedule_print_primitives(stdout, s, (int)o->rank);
	else
		cc_schedule_print(stdout, s, (int)o->rank);
	cc_schedule_free(s);
	/* A full disk or closed pipe must not look like success. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "cclab schedule: cannot write the output: %s\n", strerror(errno));
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}
