/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/sweep_merge.c — a sweep's merged CSV and JSON: every point in grid
 * order, whatever order (or which process) ran them, so -j 1, -j N, a
 * Slurm array and mpirun give the same bytes.
 *
 * CSV: point, the grid's keys, exit, error, then `cclab run --csv`'s own
 * columns: one row per size of a point that wrote its table, one row with
 * the error and the rest empty for a point that did not.
 * JSON (docs/schemas/sweep.schema.json): the scenario, --set, the grid, and per point its
 * values, exit status, first error line and its own --json report whole
 * (docs/cluster.md, "Sweeps"). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/check.h"
#include "cli/sweep.h"
#include "core/results.h"
#include "util/atomic_file.h"
#include "util/files.h"

#define POINT_FILE_MAX ((size_t)256 << 20)

struct point {
	struct sweep_status st;
	char *csv, *json;  /* its files, NULL if none */
	size_t csv_len, json_len;
};

/* A point's file, or NULL.  Plain open(), not cc_input_open(): these are
 * the sweep's own files, not inputs to guard, and a million of them must
 * not be remembered one by one. */
static char *read_file(const char *path, size_t *len)
{
	char *buf = NULL;
	struct stat st;
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK) : -1;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || cc_read_all(fd, POINT_FILE_MAX, &buf, len))
		buf = NULL;
	else
		buf[*len] = '\0';
	close(fd);
	return buf;
}

/* Point p's status and, when `files`, its CSV and JSON; false when it has
 * no status (not done). */
static bool point_load(const char *dir, uint64_t p, struct point *pt, bool files)
{
	char *path;

	memset(pt, 0, sizeof(*pt));
	if (!sweep_point_status(dir, p, &pt->st))
		return false;
	if (!files)
		return true;
	path = sweep_point_path(dir, p, "csv");
	pt->csv = read_file(path, &pt->csv_len);
	free(path);
	path = sweep_point_path(dir, p, "json");
	pt->json = read_file(path, &pt->json_len);
	free(path);
	return true;
}

static void point_free(struct point *pt)
{
	free(pt->csv);
	free(pt->json);
}

/* "k=v, k=v" of point p, for messages. */
static void values_text(const struct sweep_args *a, uint64_t p, char *buf, size_t len)
{
	uint32_t idx[SWEEP_MAX_KEYS];
	size_t off = 0;

	sweep_point_values(a, p, idx);
	buf[0] = '\0';
	for (uint32_t i = 0; i < a->nkeys && off < len; i++) {
		int w = snprintf(buf + off, len - off, "%s%s=%s", i ? ", " : "", a->keys[i].key,
				 a->keys[i].vals[idx[i]]);

		if (w < 0)
			break;
		off += (size_t)w;
	}
}

/* The leading columns of point p's rows: point, values, exit, error. */
static void lead(FILE *f, const struct sweep_args *a, uint64_t p, const struct point *pt)
{
	uint32_t idx[SWEEP_MAX_KEYS];

	sweep_point_values(a, p, idx);
	fprintf(f, "%llu", (unsigned long long)p);
	for (uint32_t i = 0; i < a->nkeys; i++) {
		fputc(',', f);
		cc_csv_str(f, a->keys[i].vals[idx[i]]);
	}
	if (pt->st.exit >= 0)
		fprintf(f, ",%d,", pt->st.exit);
	else
		fprintf(f, ",signal %d,", pt->st.signal);
	cc_csv_str(f, pt->st.error);
}

static void csv_point(FILE *f, const struct sweep_args *a, uint64_t p, const struct point *pt,
		      unsigned ncols)
{
	const char *row = pt->csv ? strchr(pt->csv, '\n') : NULL; /* past its header */
	bool any = false;

	while (row && row[1]) {
		const char *end = strchr(++row, '\n');
		size_t n = end ? (size_t)(end - row) : strlen(row);

		lead(f, a, p, pt);
		fprintf(f, ",%.*s\n", (int)n, row);
		any = true;
		row = end;
	}
	if (!any) { /* no table: the error, and nothing else */
		lead(f, a, p, pt);
		for (unsigned c = 0; c < ncols; c++)
			fputc(',', f);
		fputc('\n', f);
	}
}

static int write_csv(const struct sweep_args *a, const char *dir, const char *path, uint64_t n)
{
	struct cc_atomic_file af;
	char *hdr = NULL;
	size_t hlen = 0;
	unsigned ncols = 1;
	FILE *m = open_memstream(&hdr, &hlen);
	int rc;

	if (!m)
		return CLI_EXIT_FAIL;
	cli_csv_header(m);
	fclose(m);
	for (const char *c = hdr; hdr && *c; c++)
		ncols += *c == ',';
	if ((rc = cli_output_open("sweep", path, &af))) {
		free(hdr);
		return rc;
	}
	/* grid.KEY: a key such as algorithm is one of cclab's columns too */
	fputs("point", af.f);
	for (uint32_t i = 0; i < a->nkeys; i++) {
		char *name = NULL;

		fputc(',', af.f);
		cc_csv_str(af.f, asprintf(&name, "grid.%s", a->keys[i].key) < 0 ? "?" : name);
		free(name);
	}
	fprintf(af.f, ",exit,error,%s", hdr ? hdr : "\n");
	free(hdr);
	for (uint64_t p = 0; p < n; p++) {
		struct point pt;

		point_load(dir, p, &pt, true);
		csv_point(af.f, a, p, &pt, ncols);
		point_free(&pt);
	}
	return cli_output_commit("sweep", path, &af);
}

static int write_json(const struct sweep_args *a, const char *dir, const char *path, uint64_t n,
		      bool all_ok)
{
	struct cc_atomic_file af;
	struct cc_json j;
	uint32_t idx[SWEEP_MAX_KEYS];
	int rc, err;

	if ((rc = cli_output_open("sweep", path, &af)))
		return rc;
	cc_json_init(&j);
	cli_json_head(&j, "sweep");
	cc_json_kv_string(&j, "scenario", a->scenario);
	cc_json_key(&j, "sets");
	cc_json_array_begin(&j);
	for (uint32_t i = 0; i < a->nsets; i++)
		cc_json_string(&j, a->sets[i]);
	cc_json_array_end(&j);
	cc_json_key(&j, "grid");
	cc_json_array_begin(&j);
	for (uint32_t i = 0; i < a->nkeys; i++) {
		cc_json_object_begin(&j);
		cc_json_kv_string(&j, "key", a->keys[i].key);
		cc_json_key(&j, "values");
		cc_json_array_begin_flat(&j);
		for (uint32_t v = 0; v < a->keys[i].nvals; v++)
			cc_json_string(&j, a->keys[i].vals[v]);
		cc_json_array_end(&j);
		cc_json_object_end(&j);
	}
	cc_json_array_end(&j);
	cc_json_key(&j, "points");
	cc_json_array_begin(&j);
	for (uint64_t p = 0; p < n; p++) {
		struct point one, *pt = &one;

		point_load(dir, p, &one, true);
		sweep_point_values(a, p, idx);
		cc_json_object_begin(&j);
		cc_json_kv_uint(&j, "point", p);
		cc_json_key(&j, "values");
		cc_json_object_begin(&j);
		for (uint32_t i = 0; i < a->nkeys; i++)
			cc_json_kv_string(&j, a->keys[i].key, a->keys[i].vals[idx[i]]);
		cc_json_object_end(&j);
		if (pt->st.exit >= 0)
			cc_json_kv_int(&j, "exit", pt->st.exit);
		else
			cc_json_kv_null(&j, "exit");
		if (pt->st.exit < 0)
			cc_json_kv_int(&j, "signal", pt->st.signal);
		cc_json_kv_string(&j, "error", pt->st.error[0] ? pt->st.error : NULL);
		cc_json_key(&j, "report");
		/* its own report, or null (a point refused before it wrote one) */
		if (pt->json && strspn(pt->json, " \n") < pt->json_len)
			cc_json_raw(&j, pt->json, pt->json_len);
		else
			cc_json_null(&j);
		cc_json_object_end(&j);
		point_free(&one);
	}
	err = cli_json_end(&j, &af, all_ok);
	cc_json_free(&j);
	return err ? cli_output_error("sweep", path, err) : CLI_EXIT_OK;
}

int sweep_merge(const struct sweep_args *a, const char *dir)
{
	uint64_t n = sweep_npoints(a), missing = 0, first = 0;
	char *csv = NULL, *json = NULL, vals[512];
	const char *csv_path, *json_path;
	bool all_ok = true;
	int rc;

	for (uint64_t p = 0; p < n; p++) {
		struct point pt;

		if (!point_load(dir, p, &pt, false)) {
			if (!missing++)
				first = p;
			continue;
		}
		all_ok = all_ok && pt.st.exit == 0;
	}
	if (missing) {
		values_text(a, first, vals, sizeof(vals));
		fprintf(stderr, "cclab sweep: '%s': %llu of %llu points have no result yet (the "
			"first: point %llu, %s); run the sweep, or its shares, again: it runs only "
			"those\n", dir, (unsigned long long)missing, (unsigned long long)n,
			(unsigned long long)first, vals);
		return CLI_EXIT_FAIL;
	}
	if ((!a->csv && asprintf(&csv, "%s/sweep.csv", dir) < 0) ||
	    (!a->json && asprintf(&json, "%s/sweep.json", dir) < 0)) {
		rc = CLI_EXIT_FAIL;
		goto out;
	}
	csv_path = a->csv ? a->csv : csv;
	json_path = a->json ? a->json : json;
	if (cc_output_same(csv_path, json_path)) {
		fprintf(stderr, "cclab sweep: the merged CSV and JSON would be the same file '%s'\n",
			csv_path);
		rc = CLI_EXIT_USAGE;
		goto out;
	}
	rc = write_csv(a, dir, csv_path, n);
	if (!rc)
		rc = write_json(a, dir, json_path, n, all_ok);
	if (rc)
		goto out;
	printf("cclab sweep: %llu points, %s; merged: %s, %s\n", (unsigned long long)n,
	       all_ok ? "all passed" : "some failed", csv_path, json_path);
	if (!all_ok) {
		for (uint64_t p = 0; p < n; p++) {
			struct point pt;

			if (!point_load(dir, p, &pt, false) || pt.st.exit == 0)
				continue;
			values_text(a, p, vals, sizeof(vals));
			fprintf(stderr, "cclab sweep: point %llu (%s) failed: %s\n",
				(unsigned long long)p, vals,
				pt.st.error[0] ? pt.st.error : "see its .err file");
		}
		rc = CLI_EXIT_FAIL;
	}
out:
	free(csv);
	free(json);
	return rc;
}
