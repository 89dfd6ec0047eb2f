/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/launch_share.h — the share of a command's work that is this
 * process's under a launcher, and the markers of the shares done, for the
 * commands that spread work over a launcher's tasks (`cclab sweep`,
 * `cclab tune --out`). */
#ifndef CCLAB_CLI_LAUNCH_SHARE_H
#define CCLAB_CLI_LAUNCH_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cli_share {
	uint32_t index, count; /* this process does the items I with I % count == index */
	uint32_t rank, size;   /* its launcher's task among the launch's (0 of 1: none) */
	const char *from;      /* what said so: "SLURM_ARRAY_TASK_ID", ...; NULL: alone */
	bool array;            /* a job array's task: the shares are joined later */
	char launch[96];       /* the launch's name, for the tasks' done markers */
};
/* Which share is this process's, from the launcher's variables: a Slurm
 * job array's task (and, within it, an srun step's or mpirun's task), an
 * srun step's task, an mpirun (or PMI) rank.  0, or -EINVAL with why (an
 * array of listed indices, which no range maps to shares). */
int cli_share_find(struct cli_share *s, char *why, size_t len);
/* DIR/shares/LAUNCH.INDEX: this task has done its share (whatever came
 * of it).  A message on stderr when it cannot be written. */
void cli_share_mark_done(const struct cli_share *sh, const char *dir);
/* Until every task of this launch has marked its share done in dir.  A
 * task that dies without its marker leaves this waiting until the
 * launcher ends the step (mpirun does when a rank dies; srun with
 * --kill-on-bad-exit). */
void cli_share_wait_all(const struct cli_share *sh, const char *dir);

#endif
