/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/verbs.h — `cclab run` without a scenario: the verbs executor under a
 * launcher (srun, mpirun) or the local one (cli/launch_local.c). */
#ifndef CCLAB_CLI_VERBS_H
#define CCLAB_CLI_VERBS_H

#include <stdint.h>

#include "backend/bootstrap.h"
#include "backend/launch.h"
#include "backend/verbs_exec.h"
#include "cli/cli.h"

/* What every rank of a verbs command holds: its place in the job, the
 * bootstrap, the open device, and every rank's "Pid N on HOST device D
 * port P" for the preamble (nccl-tests' "Using devices" lines). */
struct verbs_session {
	uint32_t rank, world;
	enum cc_launcher launcher;
	struct cc_boot b;
	struct cc_verbs_ctx v;
	char (*where)[128];
};

/* Joins the job and opens the device; a rank that cannot open its device
 * tells the others, and every rank stops with that reason (printed by
 * rank 0).  Returns 0 or an exit code, with the session closed. */
int verbs_session_open(struct verbs_session *s, const char *cmd, const struct cc_verbs_opts *vo,
		       int boot_timeout_ms, uint32_t rank, uint32_t world,
		       enum cc_launcher launcher, const struct cc_rendezvous *addr, int listen_fd);
void verbs_session_close(struct verbs_session *s);

/* cli/verbs_gpu.c: --memory gpu.  Before the ranks are launched: a CUDA
 * build and a device, asked in a child process (this one forks the ranks
 * and must not initialise CUDA); 0, or CLI_EXIT_FAIL with why on stderr. */
int verbs_gpu_precheck(const char *cmd, const struct cli_opts *o);

/* A rank's GPU and path, and every rank's line for the preamble. */
struct verbs_gpu {
	struct cc_verbs_gpu g;
	bool flush;          /* the schedule flushes with a loopback READ */
	uint32_t n;          /* ranks in lines; 0: a host-memory run */
	char (*lines)[416];  /* "Pc GPU 0 (...)": path digit, flush flag, text */
};
/* After the session opened: the rank's GPU made current, the facts, the
 * path, then every rank's choice exchanged so that all build one
 * schedule (o->p.stage_mem, o->p.gdr_flush).  0 (nothing to do for host
 * memory), or an exit code with the reason printed. */
int verbs_gpu_setup(struct verbs_session *s, struct cli_opts *o, struct verbs_gpu *g);
void verbs_gpu_preamble(const struct verbs_gpu *g);
void verbs_gpu_free(struct verbs_gpu *g);

/* Whether this rank says itself why it fails: rank 0 always; another
 * unless `-n K` forked it here, where it shares rank 0's stderr and rank 0
 * speaks for it (the same line twice otherwise).  Under srun or mpirun
 * each rank's stderr may go its own way (a file per task, a log per node). */
bool verbs_rank_speaks(const struct verbs_session *s);

/* A command's rank: called in each forked child by verbs_launch_local(),
 * or once under a launcher.  Returns the rank's exit code. */
typedef int (*verbs_rank_fn)(void *ctx, uint32_t rank, uint32_t world,
			     enum cc_launcher launcher, const struct cc_rendezvous *addr,
			     int listen_fd);

/* Where the ranks come from: the launcher's world (then rank 0's address
 * from `bootstrap` or CCLAB_BOOTSTRAP; `nranks`, when not 0, must agree),
 * else `nranks` (0: `dflt`) local ranks forked here.  Without an RDMA
 * device it says so once and returns CLI_EXIT_FAIL. */
int verbs_launch(const char *cmd, uint32_t nranks, uint32_t dflt, const char *bootstrap,
		 uint32_t timeout_s, verbs_rank_fn fn, void *ctx);

/* K local ranks, forked; returns the worst exit code of theirs. */
int verbs_launch_local(const char *cmd, uint32_t k, int grace_ms, verbs_rank_fn fn, void *ctx);

#endif /* CCLAB_CLI_VERBS_H */
