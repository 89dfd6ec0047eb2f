/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/cmd_sweep.c — `cclab sweep`: the grid checked before anything runs,
 * the results folder made (or, on a rerun, found to be this sweep's), this
 * process's share of the points run, and the merged files written by the
 * one process that sees them all (cli/sweep.h).
 *
 * Checked up front: every value of every --grid key, set alone on the
 * scenario (with the --set keys), must load as `cclab run` would load it;
 * an unknown key or a refused value is exit 2 with the file:line:col the
 * loader names, and nothing runs.  Values that load but fail together are
 * failed points, each reported in the merged files. */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/sweep.h"
#include "sim/scenario.h"
#include "util/atomic_file.h"
#include "util/files.h"
#include "util/yaml.h"

#define MANIFEST_MAX ((size_t)4 << 20)

/* Every value of every key loads on the scenario, beside the --set keys. */
static int check_values(const struct sweep_args *a)
{
	const char *sets[CLI_MAX_SETS + 1];
	char set[SWEEP_VALUE_MAX + 512];

	memcpy(sets, a->sets, a->nsets * sizeof(*sets));
	for (uint32_t i = 0; i < a->nkeys; i++)
		for (uint32_t v = 0; v < a->keys[i].nvals; v++) {
			struct cc_scenario sc;
			struct cy_error err;
			int rc;

			snprintf(set, sizeof(set), "%s=%s", a->keys[i].key, a->keys[i].vals[v]);
			sets[a->nsets] = set;
			rc = cc_scenario_load(a->scenario, sets, a->nsets + 1, &sc, &err);
			if (rc) {
				fprintf(stderr, "cclab sweep: --grid %s, value '%s': %s\n",
					a->keys[i].key, a->keys[i].vals[v], err.msg);
				return rc == -ENOMEM ? CLI_EXIT_FAIL : CLI_EXIT_USAGE;
			}
			cc_scenario_free(&sc);
		}
	return CLI_EXIT_OK;
}

/* The folder's name when --out is not given: the scenario's file name
 * without .yaml (or .yml), with .sweep, here. */
static char *default_dir(const char *scenario)
{
	char *copy = strdup(scenario), *base, *dot, *dir = NULL;

	if (!copy)
		return NULL;
	base = basename(copy);
	dot = strrchr(base, '.');
	if (dot && (!strcmp(dot, ".yaml") || !strcmp(dot, ".yml")))
		*dot = '\0';
	if (asprintf(&dir, "%s.sweep", base) < 0)
		dir = NULL;
	free(copy);
	return dir;
}

/* The whole of a file, or NULL with *err. */
static char *read_text(const char *path, size_t *len, int *err)
{
	char *buf = NULL;
	int fd;

	*err = cc_input_open(path, &fd);
	if (*err)
		return NULL;
	*err = cc_read_all(fd, MANIFEST_MAX, &buf, len);
	close(fd);
	if (*err)
		return NULL;
	buf[*len] = '\0';
	return buf;
}

static char *join(const char *dir, const char *name)
{
	char *p = NULL;

	return asprintf(&p, "%s/%s", dir, name) < 0 ? NULL : p;
}

/* sweep.txt: what makes a folder this sweep's. */
static char *manifest(const struct sweep_args *a, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		return NULL;
	fprintf(f, "cclab sweep 1\nscenario: %s\n", a->scenario);
	for (uint32_t i = 0; i < a->nsets; i++)
		fprintf(f, "set: %s\n", a->sets[i]);
	for (uint32_t i = 0; i < a->nkeys; i++)
		sweep_grid_line(a, i, f);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

static int line_len(const char *s)
{
	const char *e = strchr(s, '\n');

	return e ? (int)(e - s) : (int)strlen(s);
}

/* The first line where a and b differ, or false.  The scenario's and the
 * grid file's paths are no part of the comparison: their bytes are
 * (scenario.yaml, grid.yaml). */
static bool differ(const char *a, const char *b, const char **la, const char **lb)
{
	for (;;) {
		while (!strncmp(a, "scenario: ", 10) || !strncmp(a, "grid-file: ", 11))
			a += line_len(a) + (a[line_len(a)] == '\n');
		while (!strncmp(b, "scenario: ", 10) || !strncmp(b, "grid-file: ", 11))
			b += line_len(b) + (b[line_len(b)] == '\n');
		if (!*a && !*b)
			return false;
		if (line_len(a) != line_len(b) || strncmp(a, b, (size_t)line_len(a))) {
			*la = a;
			*lb = b;
			return true;
		}
		a += line_len(a) + (a[line_len(a)] == '\n');
		b += line_len(b) + (b[line_len(b)] == '\n');
	}
}

/* The first line where a and b differ (1-based), 0 if none. */
static unsigned first_difference(const char *a, const char *b, const char **la, const char **lb)
{
	unsigned line = 1;

	*la = a;
	*lb = b;
	for (; *a && *a == *b; a++, b++)
		if (*a == '\n') {
			line++;
			*la = a + 1;
			*lb = b + 1;
		}
	return *a == *b ? 0 : line;
}

/* Whether dir holds nothing but what a sweep starting beside this one
 * (another task of the launch) may have written so far: its scenario's
 * copy, the atomic writes' temporaries, points/ and shares/. */
static bool sweep_dir_fresh(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool fresh = d != NULL;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    strcmp(e->d_name, "scenario.yaml") && strcmp(e->d_name, "points") &&
		    strcmp(e->d_name, "shares") && strcmp(e->d_name, "grid.yaml") &&
		    strncmp(e->d_name, ".grid.yaml.tmp", 14) &&
		    strncmp(e->d_name, ".scenario.yaml.tmp", 18) &&
		    strncmp(e->d_name, ".sweep.txt.tmp", 14))
			fresh = false;
	if (d)
		closedir(d);
	return fresh;
}

/* A folder another sweep wrote (or anything else) is refused, naming the
 * first difference; an empty or new one gets this sweep's definition. */
/* A file the folder keeps a copy of (the scenario, the grid file): on a
 * rerun its bytes must be the copy's, else the first line that differs is
 * named; new, it is copied (atomically: every task may).  0, or an exit
 * code after a message. */
static int kept_copy(const char *dir, const char *name, const char *from, bool fresh)
{
	size_t len, olen;
	char *copy = join(dir, name), *text = read_text(from, &len, &(int){0}), *have;
	const char *la, *lb;
	unsigned line;
	int err, rc = CLI_EXIT_USAGE;

	if (!copy || !text) {
		fprintf(stderr, "cclab sweep: %s: cannot read it\n", from);
		goto out;
	}
	if (fresh) {
		if ((err = cc_write_file_atomic(copy, text, len))) {
			fprintf(stderr, "cclab sweep: cannot write in '%s': %s\n", dir,
				cc_file_strerror(err));
			rc = cc_file_refused(err) ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
			goto out;
		}
		rc = CLI_EXIT_OK;
		goto out;
	}
	have = read_text(copy, &olen, &err);
	if (!have || (line = first_difference(have, text, &la, &lb))) {
		if (have)
			fprintf(stderr, "cclab sweep: '%s' holds the results of another version of "
				"%s: its %s differs at line %u ('%.*s' there, '%.*s' now); another "
				"--out, or remove the folder\n", dir, from, name, line, line_len(la), la,
				line_len(lb), lb);
		else
			fprintf(stderr, "cclab sweep: '%s': %s: %s\n", dir, name,
				cc_file_strerror(err));
		free(have);
		goto out;
	}
	free(have);
	rc = CLI_EXIT_OK;
out:
	free(copy);
	free(text);
	return rc;
}

static int prepare_dir(const struct sweep_args *a, const char *dir)
{
	size_t mlen, olen;
	char *want = manifest(a, &mlen), *have, *path = join(dir, "sweep.txt");
	const char *la, *lb;
	int err, rc = CLI_EXIT_USAGE;

	if (!want || !path || (mkdir(dir, 0777) && errno != EEXIST)) {
		fprintf(stderr, "cclab sweep: cannot make the results folder '%s': %s\n", dir,
			want && path ? strerror(errno) : "out of memory");
		rc = CLI_EXIT_FAIL;
		goto out;
	}
	have = read_text(path, &olen, &err);
	bool fresh = !have && err == -ENOENT && sweep_dir_fresh(dir);
	/* Every task of a launch starts here at once, and the definition is
	 * what a new folder gets last: one written between the read and the
	 * look makes the folder a sweep's, read now (it used to be refused as
	 * "not empty", exit 2, as test_sweep's two tasks found under load). */
	if (!have && err == -ENOENT && !fresh)
		have = read_text(path, &olen, &err);
	if (have) {
		/* A rerun: the same definition, and the scenario's and grid
		 * file's same bytes (their paths may differ: content decides). */
		if (differ(have, want, &la, &lb)) {
			fprintf(stderr, "cclab sweep: '%s' holds another sweep's results: its "
				"sweep.txt has '%.*s' where this sweep has '%.*s' (another --out, or "
				"remove the folder)\n", dir, *la ? line_len(la) : 7, *la ? la : "nothing",
				*lb ? line_len(lb) : 7, *lb ? lb : "nothing");
			free(have);
			goto out;
		}
		free(have);
		if (!(rc = kept_copy(dir, "scenario.yaml", a->scenario, false)) && a->grid_file)
			rc = kept_copy(dir, "grid.yaml", a->grid_file, false);
		goto out;
	}
	if (err != -ENOENT) {
		fprintf(stderr, "cclab sweep: '%s': %s\n", path, cc_file_strerror(err));
		goto out;
	}
	if (!fresh) {
		fprintf(stderr, "cclab sweep: '%s' is not empty and holds no sweep (no sweep.txt): "
			"give --out a new or empty folder\n", dir);
		goto out;
	}
	/* New: the copies first, the definition last, each whole (every
	 * task of a launcher may write them: the same bytes). */
	if ((rc = kept_copy(dir, "scenario.yaml", a->scenario, true)) ||
	    (a->grid_file && (rc = kept_copy(dir, "grid.yaml", a->grid_file, true))))
		goto out;
	if ((err = cc_write_file_atomic(path, want, mlen))) {
		fprintf(stderr, "cclab sweep: cannot write in '%s': %s\n", dir,
			cc_file_strerror(err));
		rc = cc_file_refused(err) ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
		goto out;
	}
	rc = CLI_EXIT_OK;
out:
	free(want);
	free(path);
	return rc;
}

/* --merge DIR: the folder's definition read back, then merged. */
static int merge_only(struct sweep_args *a)
{
	size_t len;
	char *path = join(a->merge, "sweep.txt"), *text, why[160];
	int err, rc;

	text = path ? read_text(path, &len, &err) : NULL;
	if (!text) {
		fprintf(stderr, "cclab sweep: --merge %s: %s: %s\n", a->merge, "sweep.txt",
			path ? cc_file_strerror(err) : "out of memory");
		free(path);
		return CLI_EXIT_USAGE;
	}
	if (sweep_args_from_manifest(text, a, why, sizeof(why))) {
		fprintf(stderr, "cclab sweep: --merge %s: sweep.txt: %s\n", a->merge, why);
		rc = CLI_EXIT_USAGE;
	} else if (a->grid_file && !a->nkeys) {
		/* the points of the grid file, from the folder's copy */
		char *grid = join(a->merge, "grid.yaml");
		struct cy_error yerr;

		if (grid && !sweep_grid_file(a, grid, &yerr)) {
			rc = sweep_merge(a, a->merge);
		} else {
			fprintf(stderr, "cclab sweep: --merge %s: %s\n", a->merge,
				grid ? yerr.msg : "out of memory");
			rc = CLI_EXIT_USAGE;
		}
		free(grid);
	} else {
		rc = sweep_merge(a, a->merge);
	}
	free(text);
	free(path);
	return rc;
}

static int sweep(struct sweep_args *a)
{
	struct cli_share share;
	char *own = NULL, why[256];
	const char *dir = a->out;
	uint32_t jobs;
	int rc, ran;

	if (cli_share_find(&share, why, sizeof(why))) {
		fprintf(stderr, "cclab sweep: %s\n", why);
		return CLI_EXIT_USAGE;
	}
	if ((rc = check_values(a)))
		return rc;
	if (!dir && !(dir = own = default_dir(a->scenario))) {
		fprintf(stderr, "cclab sweep: out of memory\n");
		return CLI_EXIT_FAIL;
	}
	if ((rc = prepare_dir(a, dir)))
		goto out;
	/* A launcher's tasks are the parallelism: one point at a time each,
	 * unless -j says otherwise. */
	jobs = a->jobs ? a->jobs : share.size > 1 ? 1 : cli_default_jobs();
	ran = sweep_run_points(a, dir, &share, jobs);
	if (share.count > 1)
		cli_share_mark_done(&share, dir);
	if (share.array || share.rank != 0) {
		/* Its own points' verdict (sacct's exit code); the merge gives
		 * the sweep's. */
		if (share.array && share.rank == 0)
			fprintf(stderr, "cclab sweep: share %u of %u (%s) done; when every task is, "
				"'cclab sweep --merge %s' writes the merged files\n",
				share.index / share.size + 1, share.count / share.size, share.from,
				dir);
		rc = ran ? CLI_EXIT_FAIL : CLI_EXIT_OK;
		goto out;
	}
	if (ran < 0) {
		rc = CLI_EXIT_FAIL;
		goto out;
	}
	if (share.count > 1)
		cli_share_wait_all(&share, dir);
	rc = sweep_merge(a, dir);
out:
	free(own);
	return rc;
}

int cmd_sweep(int argc, char **argv)
{
	struct sweep_args a;
	bool help;
	int rc = sweep_parse_args(argc, argv, &a, &help);

	if (!rc && help)
		sweep_usage(stdout);
	else if (!rc)
		rc = a.merge ? merge_only(&a) : sweep(&a);
	sweep_args_free(&a);
	return rc;
}
