/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/launch.h — who am I in the job: rank, world size and local rank
 * from the launcher's environment, and where the bootstrap rendezvous is.
 *
 * Launchers, in the order they win when several are present (the reasons
 * are in launch.c, at the table):
 *
 *   local    CCLAB_RANK, CCLAB_WORLD_SIZE (CCLAB_LOCAL_RANK, _LOCAL_SIZE):
 *            set by `cclab run -n K` for the K ranks it starts itself
 *   openmpi  OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE (mpirun)
 *   pmi      PMI_RANK, PMI_SIZE (MPICH / Intel MPI hydra, srun --mpi=pmi2),
 *            MPI_LOCALRANKID, MPI_LOCALNRANKS (hydra)
 *   slurm    SLURM_PROCID, SLURM_NTASKS (or the older SLURM_NPROCS),
 *            SLURM_LOCALID (srun)
 *   none     nothing set: one rank, rank 0 of 1
 *
 * Numbers are plain decimal (no sign, no spaces, no hex), size >= 1,
 * rank < size, local rank < local size <= size.  A launcher with a rank
 * but no size (or the reverse), a variable given twice with two values, or
 * SLURM_NTASKS and SLURM_NPROCS disagreeing is an error naming the
 * variable.
 *
 * The rendezvous is HOST:PORT — 10.0.0.1:5000, node01.cluster:5000 or
 * [fe80::1]:5000 (IPv6 in brackets) — from an option, or else from
 * CCLAB_BOOTSTRAP.  Host names are checked for form (RFC 1123 labels) but
 * not resolved here; the bootstrap resolves them when it connects.
 *
 * Functions return 0 or a negative errno, with a message in err.
 */
#ifndef CCLAB_BACKEND_LAUNCH_H
#define CCLAB_BACKEND_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

enum cc_launcher {
	CC_LAUNCH_NONE,
	CC_LAUNCH_LOCAL,
	CC_LAUNCH_OPENMPI,
	CC_LAUNCH_PMI,
	CC_LAUNCH_SLURM,
	CC_LAUNCHER_COUNT
};

extern const char *const cc_launcher_name[CC_LAUNCHER_COUNT];

/* Ranks above this are refused (a typo, not a job). */
#define CC_LAUNCH_MAX_RANKS 65536

struct cc_launch {
	enum cc_launcher launcher;
	uint32_t rank, size;
	int32_t local_rank, local_size; /* -1 where the launcher gives none */
};

/* envp: a NULL-terminated array of "NAME=VALUE" strings; NULL reads the
 * process's environment.  On error *out is untouched. */
int cc_launch_detect(const char *const *envp, struct cc_launch *out, char *err, size_t errlen);

/* The value of name in envp (NULL: the process's environment), or NULL.
 * -EINVAL when the name is present twice with different values. */
int cc_env_get(const char *const *envp, const char *name, const char **value, char *err,
	       size_t errlen);

enum cc_host_kind { CC_HOST_IPV4, CC_HOST_IPV6, CC_HOST_NAME };

struct cc_rendezvous {
	char host[256]; /* without the brackets of an IPv6 address */
	enum cc_host_kind kind;
	uint16_t port;
};

#define CC_BOOTSTRAP_ENV "CCLAB_BOOTSTRAP"

/* "HOST:PORT", port 1..65535.  On error *out is untouched. */
int cc_rendezvous_parse(const char *s, struct cc_rendezvous *out, char *err, size_t errlen);

/* option when it is non-NULL and non-empty, else CCLAB_BOOTSTRAP from envp;
 * -ENOENT when neither is there.  Errors name where the text came from. */
int cc_rendezvous_get(const char *option, const char *const *envp, struct cc_rendezvous *out,
		      char *err, size_t errlen);

#endif
