/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/launch_share.c — which share of the work is this process's under a
 * launcher (a Slurm job array's task, an srun step's task, an mpirun
 * rank), and the done markers by which rank 0 knows every task of its
 * launch has run its share (cli/launch_share.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/launch_share.h"
#include "util/atomic_file.h"

/* An environment variable as a whole number, or -1. */
static long env_num(const char *name)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (!v || !*v)
		return -1;
	errno = 0;
	n = strtol(v, &end, 10);
	return errno || *end || n < 0 ? -1 : n;
}

/* A Slurm job array's task: its place among the array's tasks, from its
 * index in MIN-MAX[:STEP]; 0 with none, -EINVAL (why) for an index that
 * is not such a range's (a list of indices). */
static int array_share(uint32_t *index, uint32_t *count, char *why, size_t len)
{
	long id = env_num("SLURM_ARRAY_TASK_ID"), n = env_num("SLURM_ARRAY_TASK_COUNT"),
	     min = env_num("SLURM_ARRAY_TASK_MIN"), step = env_num("SLURM_ARRAY_TASK_STEP");

	*index = 0;
	*count = 1;
	if (id < 0 || n <= 0)
		return 0;
	if (min < 0)
		min = 0;
	if (step <= 0)
		step = 1;
	if (id < min || (id - min) % step || (id - min) / step >= n) {
		snprintf(why, len, "SLURM_ARRAY_TASK_ID %ld is not one of %ld tasks from %ld by %ld: "
			 "give sbatch --array as a range, MIN-MAX[:STEP]", id, n, min, step);
		return -EINVAL;
	}
	*index = (uint32_t)((id - min) / step);
	*count = (uint32_t)n;
	return 0;
}

int cli_share_find(struct cli_share *s, char *why, size_t len)
{
	/* A launcher's tasks: mpirun's (Open MPI, or any PMI), else srun's.
	 * SLURM_PROCID alone is no task of a step: a batch script has it
	 * too (0 of -n), and mpirun run inside one sees it on every rank. */
	static const char *const ranks[][2] = {
		{ "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE" },
		{ "PMI_RANK", "PMI_SIZE" },
		{ "SLURM_PROCID", "SLURM_NTASKS" },
	};
	uint32_t a_index, a_count, rank = 0, size = 1;
	const char *id;

	memset(s, 0, sizeof(s[0]));
	if (array_share(&a_index, &a_count, why, len))
		return -EINVAL;
	for (size_t i = 0; i < sizeof(ranks) / sizeof(ranks[0]); i++) {
		long r = env_num(ranks[i][0]), n = env_num(ranks[i][1]);

		if (i == 2 && env_num("SLURM_STEP_ID") < 0)
			continue;
		if (r >= 0 && n > 0 && r < n) {
			rank = (uint32_t)r;
			size = (uint32_t)n;
			s->from = ranks[i][0];
			break;
		}
	}
	s->array = env_num("SLURM_ARRAY_TASK_ID") >= 0;
	if (s->array)
		s->from = "SLURM_ARRAY_TASK_ID";
	s->index = a_index * size + rank;
	s->count = a_count * size;
	s->rank = rank;
	s->size = size;
	/* What tells this launch's tasks from an earlier one's in the
	 * folder (their done markers): the launcher's job and step. */
	if ((id = getenv("PMIX_NAMESPACE")) || (id = getenv("OMPI_MCA_ess_base_jobid")))
		snprintf(s->launch, sizeof(s->launch), "%s", id);
	else if (getenv("SLURM_JOB_ID"))
		snprintf(s->launch, sizeof(s->launch), "%s.%s", getenv("SLURM_JOB_ID"),
			 getenv("SLURM_STEP_ID") ? getenv("SLURM_STEP_ID") : "batch");
	else
		snprintf(s->launch, sizeof(s->launch), "launch");
	for (char *c = s->launch; *c; c++)
		if (*c == '/' || *c == '\n')
			*c = '_';
	return 0;
}

/* DIR/shares/LAUNCH.INDEX: this task has run its share (whatever came
 * of its points), for rank 0 to know when to merge. */
static char *marker_path(const char *dir, const struct cli_share *sh, uint32_t index)
{
	char *p = NULL;

	if (asprintf(&p, "%s/shares/%s.%u", dir, sh->launch, index) < 0)
		return NULL;
	return p;
}

void cli_share_mark_done(const struct cli_share *sh, const char *dir)
{
	char *shares = NULL, *path = marker_path(dir, sh, sh->index);
	int err = -ENOMEM;

	if (asprintf(&shares, "%s/shares", dir) < 0)
		shares = NULL;
	if (shares && path && (!mkdir(shares, 0777) || errno == EEXIST))
		err = cc_write_file_atomic(path, "done\n", 5);
	if (err)
		fprintf(stderr, "cclab: cannot mark share %u done in '%s': rank 0 will wait for "
			"it\n", sh->index, dir);
	free(shares);
	free(path);
}

/* Rank 0 of srun or mpirun: until every task of this launch has run its
 * share.  A task that dies without its marker leaves rank 0 waiting until
 * the launcher ends the step (mpirun does when a rank dies; srun with
 * --kill-on-bad-exit). */
void cli_share_wait_all(const struct cli_share *sh, const char *dir)
{
	for (uint32_t i = 0; i < sh->count; i++) {
		char *path = marker_path(dir, sh, i);

		while (path && access(path, F_OK))
			usleep(200 * 1000);
		free(path);
	}
}
