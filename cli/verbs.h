/* cli/verbs.h — `cclab run` without a scenario: the verbs executor under a
 * launcher (srun, mpirun) or the local one (cli/launch_local.c). */
#ifndef CCLAB_CLI_VERBS_H
#define CCLAB_CLI_VERBS_H

#include <stdint.h>

#include "backend/launch.h"
#include "cli/cli.h"

/* One rank's whole run: bootstrap, device, the size loop, the report
 * (rank 0 only).  listen_fd: rank 0's bootstrap listener when the caller
 * opened it, else -1.  Returns the exit code. */
int verbs_rank_main(const struct cli_opts *o, uint32_t rank, uint32_t world,
		    enum cc_launcher launcher, const struct cc_rendezvous *addr, int listen_fd);

/* K local ranks, forked; returns the worst exit code of theirs. */
int verbs_launch_local(const struct cli_opts *o, uint32_t k, int grace_ms);

#endif /* CCLAB_CLI_VERBS_H */
