/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/validate_load.c — the cases of `cclab validate` (cli/validate.h):
 * found in the folders named, each one's scenario.yaml loaded as `cclab
 * run` loads it, its measured.csv read strictly (every cell checked, an
 * error at its line and column), its source.md's facts for the report. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/validate.h"
#include "core/algo.h"
#include "core/dtype.h"
#include "core/results.h"
#include "util/files.h"
#include "util/yaml.h"

const char *const val_kind_name[VAL_KIND_COUNT] = { "nccl-tests", "perftest bw", "perftest lat" };

/* The tables a case may hold (docs/validation.md): nccl-tests', perftest's
 * bandwidth in MB/sec or (--report_gbits) Gb/sec, perftest's latency. */
static const struct {
	const char *header;
	enum val_kind kind;
	unsigned ncols;
	const char *bw_unit;
	double per_mib_s; /* the unit's value of 1 MB/sec (2^20 B/s) */
} tables[] = {
	{ "size_bytes,count,type,redop,root,time_us,algbw_gbps,busbw_gbps,wrong,time_ip_us,"
	  "algbw_ip_gbps,busbw_ip_gbps,wrong_ip", VAL_COLL, 13, "GB/s", 0 },
	{ "bytes,iterations,bw_peak_mb_s,bw_avg_mb_s,msg_rate_mpps", VAL_BW, 5, "MB/sec", 1 },
	{ "bytes,iterations,bw_peak_gbps,bw_avg_gbps,msg_rate_mpps", VAL_BW, 5, "Gb/sec",
	  1048576.0 * 8 / 1e9 },
	{ "bytes,iterations,t_min_us,t_max_us,t_typical_us,t_avg_us,t_stdev_us,t_p99_us,t_p99_9_us",
	  VAL_LAT, 9, NULL, 0 },
};
#define NTABLES (sizeof(tables) / sizeof(tables[0]))

#define MAX_ROWS 256
#define LINE_MAX_LEN 4096

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *join(const char *dir, const char *name)
{
	char *p;

	return asprintf(&p, "%s/%s", dir, name) < 0 ? NULL : p;
}

/* ---- measured.csv ---- */

struct row_reader {
	const char *path;
	uint32_t line;
	char *cell[16];
	unsigned col[16]; /* 1-based column of each cell */
	unsigned n;
};

static int bad(const struct row_reader *r, unsigned i, const char *what)
{
	fprintf(stderr, "cclab validate: %s:%u:%u: %s\n", r->path, r->line, r->col[i], what);
	return CLI_EXIT_USAGE;
}

/* Splits line (modified) at its commas.  A published table is numbers and
 * names: a quote is not expected, and said so. */
static int split(struct row_reader *r, char *line)
{
	char *p = line;

	r->n = 0;
	if (strchr(line, '"')) {
		fprintf(stderr, "cclab validate: %s:%u: a quoted field; measured.csv holds the "
			"table's numbers and names, unquoted\n", r->path, r->line);
		return CLI_EXIT_USAGE;
	}
	for (;;) {
		char *comma = strchr(p, ',');

		if (r->n == sizeof(r->cell) / sizeof(r->cell[0])) {
			fprintf(stderr, "cclab validate: %s:%u: too many columns\n", r->path,
				r->line);
			return CLI_EXIT_USAGE;
		}
		r->col[r->n] = (unsigned)(p - line) + 1;
		r->cell[r->n++] = p;
		if (!comma)
			return 0;
		*comma = '\0';
		p = comma + 1;
	}
}

/* A whole number of at most 2^64 - 1. */
static int cell_u64(const struct row_reader *r, unsigned i, const char *name, uint64_t *out)
{
	const char *s = r->cell[i];
	char *end, why[128];

	errno = 0;
	if (s[0] < '0' || s[0] > '9' || (*out = strtoull(s, &end, 10), *end) || errno) {
		snprintf(why, sizeof(why), "%s: '%.40s' is not a whole number", name, s);
		return bad(r, i, why);
	}
	return 0;
}

/* A finite number >= 0, or N/A / empty (then *have false). */
static int cell_num(const struct row_reader *r, unsigned i, const char *name, double *out,
		    bool *have)
{
	const char *s = r->cell[i];
	char *end, why[128];

	*have = false;
	if (!*s || !strcmp(s, "N/A"))
		return 0;
	errno = 0;
	*out = strtod(s, &end);
	if (*end || errno || !isfinite(*out) || *out < 0) {
		snprintf(why, sizeof(why), "%s: '%.40s' is not a number >= 0 (or N/A)", name, s);
		return bad(r, i, why);
	}
	*have = true;
	return 0;
}

/* nccl-tests' row: the out-of-place figures are compared (cclab runs out
 * of place); the type and redop must be the scenario's, and the count
 * must make the size, which checks the scenario's rank count too. */
static int coll_row(struct row_reader *r, const struct val_case *c, struct val_point *pt)
{
	const struct cc_coll_params *p = &c->sc.p;
	uint64_t es = cc_dtype_size(p->dtype), want;
	bool have_t, have_b;
	char why[256];
	int rc;

	bool per_rank = p->coll == CC_REDUCESCATTER || p->coll == CC_ALLGATHER ||
			p->coll == CC_ALLTOALL;

	if ((rc = cell_u64(r, 0, "size_bytes", &pt->size)))
		return rc;
	/* A summary the source gave without the table's other columns (a
	 * size and its busbw): empty cells, nothing to check them against. */
	if (r->cell[2][0] && strcmp(r->cell[2], cc_dtype_name[p->dtype])) {
		snprintf(why, sizeof(why), "type '%.24s', but the scenario's dtype is %s", r->cell[2],
			 cc_dtype_name[p->dtype]);
		return bad(r, 2, why);
	}
	if (r->cell[3][0] && strcmp(r->cell[3], cli_redop_label(p))) {
		snprintf(why, sizeof(why), "redop '%.24s', but the scenario's is %s", r->cell[3],
			 cli_redop_label(p));
		return bad(r, 3, why);
	}
	if (!r->cell[1][0]) {
		pt->count = pt->size / es / (per_rank ? p->nranks : 1);
	} else if ((rc = cell_u64(r, 1, "count", &pt->count))) {
		return rc;
	}
	want = per_rank ? pt->count * p->nranks * es : pt->count * es;
	if (want != pt->size) {
		snprintf(why, sizeof(why), "count %" PRIu64 " of %s on %" PRIu32 " ranks is %" PRIu64
			 " bytes, not the size %" PRIu64 ": is the scenario's rank count the source's?",
			 pt->count, cc_dtype_name[p->dtype], p->nranks, want, pt->size);
		return bad(r, 1, why);
	}
	if ((rc = cell_num(r, 5, "time_us", &pt->meas_time_us, &have_t)) ||
	    (rc = cell_num(r, 7, "busbw_gbps", &pt->meas_bw, &have_b)))
		return rc;
	/* cclab runs out of place; a source that published only the in-place
	 * half (a cloud provider's busbw column) is compared on it: the same
	 * collective on the same buffers' sizes. */
	if (!have_t && !have_b && ((rc = cell_num(r, 9, "time_ip_us", &pt->meas_time_us, &have_t)) ||
				   (rc = cell_num(r, 11, "busbw_ip_gbps", &pt->meas_bw, &have_b))))
		return rc;
	/* busbw from the printed time, by nccl-tests' own formula (its
	 * *GetBw(): size / time x the collective's factor): the column keeps
	 * two decimals, 0.01 GB/s at small sizes or on a slow fabric, the time
	 * four significant digits.  A busbw printed alone (a summary) is taken
	 * as printed; 0.00 is a busbw below 0.005 GB/s, no figure at all. */
	pt->has_time = have_t && pt->meas_time_us > 0;
	if (pt->has_time) {
		double algbw;

		have_b = cc_result_bw(pt->size, pt->meas_time_us, c->busbw_factor, &algbw,
				      &pt->meas_bw);
	}
	pt->has_bw = have_b && pt->meas_bw > 0;
	pt->measured = pt->has_time || pt->has_bw;
	return 0;
}

static int p2p_row(struct row_reader *r, const struct val_case *c, struct val_point *pt)
{
	bool have;
	int rc;

	if ((rc = cell_u64(r, 0, "bytes", &pt->size)))
		return rc;
	pt->count = pt->size;
	if (c->kind == VAL_BW)
		rc = cell_num(r, 3, "the average bandwidth", &pt->meas_bw, &have);
	else
		rc = cell_num(r, 4, "t_typical_us", &pt->meas_time_us, &have);
	pt->has_bw = c->kind == VAL_BW && have && pt->meas_bw > 0;
	pt->has_time = c->kind == VAL_LAT && have && pt->meas_time_us > 0;
	pt->measured = pt->has_bw || pt->has_time;
	return rc;
}

static int read_measured(struct val_case *c)
{
	struct row_reader r = {0};
	char *path = join(c->dir, "measured.csv"), *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f = NULL;
	int fd, rc = 0, table = -1;

	if (!path)
		return CLI_EXIT_FAIL;
	r.path = path;
	if ((rc = cc_input_open(path, &fd)) || !(f = fdopen(fd, "r"))) {
		fprintf(stderr, "cclab validate: cannot read '%s': %s\n", path,
			cc_file_strerror(rc ? rc : -errno));
		free(path);
		return CLI_EXIT_USAGE;
	}
	c->pts = calloc(MAX_ROWS, sizeof(*c->pts));
	rc = c->pts ? 0 : CLI_EXIT_FAIL;
	while (!rc && (len = getline(&line, &cap, f)) >= 0) {
		r.line++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (len > LINE_MAX_LEN) {
			fprintf(stderr, "cclab validate: %s:%u: a line of %zd characters\n", path,
				r.line, len);
			rc = CLI_EXIT_USAGE;
			break;
		}
		if (r.line == 1) {
			for (size_t k = 0; k < NTABLES; k++)
				if (!strcmp(line, tables[k].header))
					table = (int)k;
			if (table < 0) {
				fprintf(stderr, "cclab validate: %s:1: not a table of ours; the header "
					"is one of\n", path);
				for (size_t k = 0; k < NTABLES; k++)
					fprintf(stderr, "  %s\n", tables[k].header);
				rc = CLI_EXIT_USAGE;
			} else if (tables[table].kind != c->kind) {
				fprintf(stderr, "cclab validate: %s:1: a %s table, but scenario.yaml "
					"runs %s\n", path, val_kind_name[tables[table].kind],
					val_kind_name[c->kind]);
				rc = CLI_EXIT_USAGE;
			} else {
				c->bw_unit = tables[table].bw_unit;
				c->bw_per_mib_s = tables[table].per_mib_s;
			}
			continue;
		}
		if (!len)
			continue;
		if (c->npts == MAX_ROWS) {
			fprintf(stderr, "cclab validate: %s:%u: more than %u sizes\n", path, r.line,
				MAX_ROWS);
			rc = CLI_EXIT_USAGE;
			break;
		}
		if ((rc = split(&r, line)))
			break;
		if (r.n != tables[table].ncols) {
			fprintf(stderr, "cclab validate: %s:%u: %u columns, the header has %u\n", path,
				r.line, r.n, tables[table].ncols);
			rc = CLI_EXIT_USAGE;
			break;
		}
		struct val_point *pt = &c->pts[c->npts];

		pt->line = r.line;
		/* nccl-tests prints size 0 where a size is too small for one
		 * element per rank (all_gather of 8 B on 32 ranks): nothing ran. */
		if (!strcmp(r.cell[0], "0"))
			continue;
		rc = c->kind == VAL_COLL ? coll_row(&r, c, pt) : p2p_row(&r, c, pt);
		if (!rc && c->npts && pt->size <= c->pts[c->npts - 1].size) {
			fprintf(stderr, "cclab validate: %s:%u: size %" PRIu64 " after %" PRIu64
				"; sizes go up\n", path, r.line, pt->size, c->pts[c->npts - 1].size);
			rc = CLI_EXIT_USAGE;
		}
		if (!rc)
			c->npts++;
	}
	if (!rc && table >= 0 && !c->npts) {
		fprintf(stderr, "cclab validate: %s: a header and no rows\n", path);
		rc = CLI_EXIT_USAGE;
	}
	free(line);
	fclose(f);
	free(path);
	return rc;
}

/* ---- source.md ---- */

/* The url and title of the ```yaml facts block, where there is one (a
 * source.md is a page of prose: its first 64 KiB hold the block). */
#define FACTS_MAX (64u << 10)

static void read_facts(struct val_case *c)
{
	char *path = join(c->dir, "source.md"), *text = malloc(FACTS_MAX), *start, *end;
	size_t len;
	FILE *f = NULL;
	int fd;

	if (!path || !text || cc_input_open(path, &fd) || !(f = fdopen(fd, "r"))) {
		free(text);
		free(path);
		return;
	}
	len = fread(text, 1, FACTS_MAX - 1, f);
	fclose(f);
	text[len] = '\0';
	start = strstr(text, "```yaml\n");
	end = start ? strstr(start + 8, "\n```") : NULL;
	if (end) {
		struct cy_doc doc;
		struct cy_error err;
		const struct cy_node *v;

		start += 8;
		if (!cy_load_string(path, start, (size_t)(end - start) + 1, &doc, &err)) {
			if (doc.root->kind == CY_MAP) {
				if ((v = cy_get(doc.root, "url")) && v->kind == CY_SCALAR)
					snprintf(c->url, sizeof(c->url), "%s", v->str);
				if ((v = cy_get(doc.root, "title")) && v->kind == CY_SCALAR)
					snprintf(c->title, sizeof(c->title), "%s", v->str);
			}
			cy_free(&doc);
		}
	}
	free(text);
	free(path);
}

/* ---- the cases ---- */

static int load_case(const struct val_args *a, const char *dir, struct val_case *c)
{
	struct cy_error err;
	char *path = join(dir, "scenario.yaml");
	const char *base;
	int rc;

	size_t len = strlen(dir);

	memset(c, 0, sizeof(*c));
	c->dir = strdup(dir);
	while (len > 1 && dir[len - 1] == '/') /* "validation/x/" */
		len--;
	base = dir + len;
	while (base > dir && base[-1] != '/')
		base--;
	c->name = strndup(base, (size_t)(dir + len - base));
	if (!path || !c->dir || !c->name) {
		free(path);
		return CLI_EXIT_FAIL;
	}
	rc = cc_scenario_load(path, a->sets, a->nsets, &c->sc, &err);
	free(path);
	if (rc) {
		fprintf(stderr, "cclab validate: %s\n", err.msg);
		return rc == -ENOMEM ? CLI_EXIT_FAIL : CLI_EXIT_USAGE;
	}
	c->loaded = true;
	c->kind = !c->sc.is_p2p ? VAL_COLL : c->sc.p2p.mode == CC_P2P_BW ? VAL_BW : VAL_LAT;
	c->busbw_factor = c->kind == VAL_COLL ? cc_busbw_factor(c->sc.p.coll, c->sc.p.nranks) : 1;
	if ((rc = read_measured(c)))
		return rc;
	read_facts(c);
	return 0;
}

static int add_case(const struct val_args *a, const char *dir, struct val_case **cs, uint32_t *n)
{
	struct val_case *p = realloc(*cs, (*n + 1) * sizeof(*p));

	if (!p)
		return CLI_EXIT_FAIL;
	*cs = p;
	(*n)++;
	return load_case(a, dir, &p[*n - 1]);
}

static bool has_table(const char *dir)
{
	char *p = join(dir, "measured.csv");
	bool yes = p && is_file(p);

	free(p);
	return yes;
}

static int only_dirs(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

int val_cases_load(const struct val_args *a, struct val_case **out, uint32_t *n)
{
	static const char *const dflt[] = { "validation" };
	const char *const *dirs = a->ndirs ? a->dirs : dflt;
	uint32_t ndirs = a->ndirs ? a->ndirs : 1;
	int rc = 0;

	*out = NULL;
	*n = 0;
	for (uint32_t d = 0; !rc && d < ndirs; d++) {
		char *scen = join(dirs[d], "scenario.yaml");
		struct dirent **ents = NULL;
		uint32_t before = *n;
		int ne;

		if (!scen)
			return CLI_EXIT_FAIL;
		if (is_file(scen)) {
			free(scen);
			rc = add_case(a, dirs[d], out, n);
			continue;
		}
		free(scen);
		ne = scandir(dirs[d], &ents, only_dirs, alphasort);
		if (ne < 0) {
			fprintf(stderr, "cclab validate: %s: %s\n", dirs[d], strerror(errno));
			return CLI_EXIT_USAGE;
		}
		for (int i = 0; i < ne; i++) {
			char *sub = join(dirs[d], ents[i]->d_name);
			char *s = sub ? join(sub, "scenario.yaml") : NULL;

			if (!rc && s && is_file(s))
				rc = add_case(a, sub, out, n);
			else if (!sub || (!s && !rc))
				rc = CLI_EXIT_FAIL;
			else if (!rc && is_dir(sub) && has_table(sub))
				/* A source kept for the record that cclab cannot model
				 * yet (its source.md says why): said, not silently lost.
				 * A folder without a table (fabrics/) is no case. */
				fprintf(stderr, "cclab validate: note: %s has no scenario.yaml: not "
					"simulated\n", sub);
			free(s);
			free(sub);
			free(ents[i]);
		}
		free(ents);
		if (!rc && *n == before) {
			fprintf(stderr, "cclab validate: %s: no case in it (a case is a folder with a "
				"scenario.yaml and a measured.csv)\n", dirs[d]);
			rc = CLI_EXIT_USAGE;
		}
	}
	return rc;
}

void val_cases_free(struct val_case *c, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (c[i].loaded)
			cc_scenario_free(&c[i].sc);
		free(c[i].pts);
		free(c[i].dir);
		free(c[i].name);
	}
	free(c);
}
