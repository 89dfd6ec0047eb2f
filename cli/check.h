/* cli/check.h — pieces of `cclab check` shared between its files: building
 * one size's schedule, and the JSON report. */
#ifndef CCLAB_CLI_CHECK_H
#define CCLAB_CLI_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/cli.h"
#include "core/exec_data.h"
#include "core/results.h"
#include "core/schedule.h"

/* Builds the schedule of o's collective for a -b/-e size of `bytes`
 * (nccl-tests' count convention, cc_result_counts()).  Returns 0 with *out,
 * *count and *size set, or an exit code after a message on stderr:
 * CLI_EXIT_USAGE when cc_build() rejects the parameters, CLI_EXIT_FAIL when
 * memory ran out. */
int cli_build(const struct cli_opts *o, uint64_t bytes, struct cc_schedule **out,
	      uint64_t *count, uint64_t *size);

/* "ok", "completion_error", "post_error", "deadlock". */
const char *cli_run_status_name(enum cc_run_status st);

/* The --json report: begin with the run's parameters, one entry per size,
 * then end, which writes the document to af (opened with cc_atomic_open()
 * before the run, so an unwritable path fails at once, not after the run)
 * and commits it; or aborts af on error.  Returns 0 or -errno. */
void check_json_begin(struct cc_json *j, const struct cli_opts *o);
void check_json_size(struct cc_json *j, const struct cc_result_row *row,
		     const struct cc_schedule *s, const struct cc_data_result *res);
int check_json_end(struct cc_json *j, struct cc_atomic_file *af, bool ok);

#endif
