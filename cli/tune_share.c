/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/tune_share.c — `cclab tune --out DIR` under srun or mpirun: the
 * tune's runs (every size x candidate) spread over the launcher's tasks,
 * as `cclab sweep` spreads its points (cli/launch_share.h).
 *
 * Run r = size x ncand + candidate belongs to task r mod N.  A task runs
 * its runs one at a time (with the whole memory budget: alone) and writes
 * each run's cell and note to DIR/LAUNCH/I.C, then its done marker; rank 0
 * waits for every marker, reads every cell back and prints the table,
 * --csv and --json as one process would have: the same bytes, since a run
 * is a pure function of the scenario, its candidate and its size.  A run
 * that ran out of memory in one process beside others is run again alone
 * there; here every run is alone, so the cells are those of the retry. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/check.h"
#include "cli/tune.h"
#include "util/atomic_file.h"

/* The folder of this launch's cells. */
static char *cells_dir(const char *out, const struct cli_share *sh)
{
	char *p = NULL;

	return asprintf(&p, "%s/%s", out, sh->launch) < 0 ? NULL : p;
}

static char *cell_path(const char *dir, uint32_t i, int c)
{
	char *p = NULL;

	return asprintf(&p, "%s/%u.%d", dir, i, c) < 0 ? NULL : p;
}

/* The static string a status name read back stands for. */
static const char *status_of(const char *name)
{
	static const char *const own[] = { "n/a", "refused", "model_bug" };

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (!strcmp(name, own[i]))
			return own[i];
	for (int s = CC_RUN_OK; s <= CC_RUN_TIME_LIMIT; s++)
		if (!strcmp(name, cli_run_status_name((enum cc_run_status)s)))
			return cli_run_status_name((enum cc_run_status)s);
	return NULL;
}

/* Writes run (i, c)'s cell, its note and, for a refusal, the reason. */
static int write_cell(const char *dir, uint32_t i, int c, const struct tune_cell *cell,
		      const struct tune_note *n, const char *reason)
{
	char *path = cell_path(dir, i, c), *text = NULL;
	int len, err;

	len = asprintf(&text, "%d %" PRIu64 " %s\n%s\n%s\n%s\n", (int)cell->state, cell->time_ps,
		       cell->status ? cell->status : "-", n->status ? n->status : "-", n->why,
		       reason ? reason : "");
	err = !path || len < 0 ? -ENOMEM : cc_write_file_atomic(path, text, (size_t)len);
	free(path);
	free(text);
	return err;
}

/* The next line of *p (its newline dropped), or "" at the end. */
static char *next_line(char **p)
{
	char *line = *p, *nl = strchr(line, '\n');

	if (nl) {
		*nl = '\0';
		*p = nl + 1;
	} else {
		*p = line + strlen(line);
	}
	return line;
}

/* Reads run (i, c)'s cell back: 0, or -errno / -EINVAL. */
static int read_cell(const char *dir, uint32_t i, int c, struct tune_cell *cell,
		     struct tune_note *n, char *reason, size_t rlen)
{
	char *path = cell_path(dir, i, c), *text = NULL, *p, *line, status[32];
	FILE *f = path ? fopen(path, "re") : NULL;
	size_t cap = 0;
	ssize_t got = f ? getdelim(&text, &cap, '\0', f) : -1;
	int state, rc = -EINVAL;
	uint64_t t;

	if (f)
		fclose(f);
	free(path);
	if (got <= 0) {
		free(text);
		return f ? -EINVAL : -ENOENT;
	}
	p = text;
	line = next_line(&p);
	if (sscanf(line, "%d %" SCNu64 " %31s", &state, &t, status) == 3 && state >= TUNE_OK &&
	    state <= TUNE_FAILED && (cell->status = status_of(status))) {
		cell->state = (enum tune_state)state;
		cell->time_ps = t;
		line = next_line(&p);
		n->status = strcmp(line, "-") ? status_of(line) : NULL;
		snprintf(n->why, sizeof(n->why), "%s", next_line(&p));
		snprintf(reason, rlen, "%s", next_line(&p));
		rc = 0;
	}
	free(text);
	return rc;
}

int tune_share_run(struct tune *t, const struct cli_share *sh, const char *out)
{
	char *dir = cells_dir(out, sh);
	uint64_t nruns = (uint64_t)t->nsizes * (uint64_t)t->ncand;
	int rc = 0;

	if (!dir || ((mkdir(out, 0777) && errno != EEXIST) || (mkdir(dir, 0777) && errno != EEXIST))) {
		fprintf(stderr, "cclab tune: cannot make '%s': %s\n", dir ? dir : out,
			strerror(dir ? errno : ENOMEM));
		free(dir);
		return -1;
	}
	for (uint64_t r = sh->index; r < nruns && !rc; r += sh->count) {
		uint32_t i = (uint32_t)(r / (uint64_t)t->ncand);
		int c = (int)(r % (uint64_t)t->ncand);
		struct tune_size *z = &t->sizes[i];
		struct tune_note n = {0};
		struct tune_cand *k = &t->cand[c];
		bool was_refused = k->refused;
		int err;

		k->refused = false; /* this run's own refusal, if any */
		tune_run_one(t, c, z, &n);
		err = write_cell(dir, i, c, &z->cell[c], &n, k->refused ? k->reason : NULL);
		k->refused = k->refused || was_refused;
		if (err) {
			fprintf(stderr, "cclab tune: cannot write in '%s': %s\n", dir,
				cc_file_strerror(err));
			rc = -1;
		}
	}
	cli_share_mark_done(sh, out);
	free(dir);
	return rc;
}

int tune_share_collect(struct tune *t, const struct cli_share *sh, const char *out,
		       struct tune_note *notes)
{
	char *dir = cells_dir(out, sh), reason[TUNE_REASON_LEN];
	int rc = 0;

	cli_share_wait_all(sh, out);
	for (int c = 0; c < t->ncand; c++)
		t->cand[c].refused = false;
	/* Sizes in order, candidates in order: the first refusal's reason is
	 * the one a single process keeps. */
	for (uint32_t i = 0; dir && i < t->nsizes && !rc; i++)
		for (int c = 0; c < t->ncand && !rc; c++) {
			struct tune_note *n = &notes[(size_t)i * (size_t)t->ncand + (size_t)c];
			struct tune_cand *k = &t->cand[c];

			memset(n, 0, sizeof(*n));
			if (read_cell(dir, i, c, &t->sizes[i].cell[c], n, reason, sizeof(reason))) {
				fprintf(stderr, "cclab tune: '%s': no readable result of %s at %" PRIu64
					" bytes (run %u.%d)\n", dir, k->name, t->sizes[i].bytes, i, c);
				rc = -1;
			} else if (t->sizes[i].cell[c].state == TUNE_NA && !k->refused) {
				k->refused = true;
				snprintf(k->reason, sizeof(k->reason), "%s", reason);
			}
		}
	if (!dir)
		rc = -1;
	free(dir);
	return rc;
}
