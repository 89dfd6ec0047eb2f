/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/outputs.c — the result files a command writes, opened or refused
 * with one message and one exit status for every command (util/atomic_file.h
 * says what each kind of path gets: stdout, a device, a link, an input). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "util/atomic_file.h"
#include "util/files.h"

int cli_output_error(const char *cmd, const char *path, int err)
{
	char shown[CC_SHOWN_BUF];

	fprintf(stderr, "cclab %s: cannot write '%s': %s\n", cmd, cc_shown(shown, path),
		cc_file_strerror(err));
	return cc_file_refused(err) ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
}

int cli_output_open(const char *cmd, const char *path, struct cc_atomic_file *af)
{
	int err = cc_atomic_open(af, path);

	return err ? cli_output_error(cmd, path, err) : 0;
}

int cli_output_check(const char *cmd, const char *path)
{
	int err = path ? cc_atomic_check(path) : 0;

	return err ? cli_output_error(cmd, path, err) : 0;
}

int cli_output_commit(const char *cmd, const char *path, struct cc_atomic_file *af)
{
	int err = cc_atomic_commit(af);

	return err ? cli_output_error(cmd, path, err) : 0;
}
