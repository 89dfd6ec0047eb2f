/* tests/test_tune.c — `cclab tune`, run as a user would, on small
 * scenarios written into the test's temporary directory: who wins where on
 * ib-hdr (halving-doubling's fewer steps beat the ring at 4 B on a star of
 * 8, the ring's bandwidth wins at 64 MiB), candidates that are n/a (the
 * topology or the collective), the margin against the CSV's times, the
 * JSON's keys, runs that fail, byte-identical reruns, and every way the
 * command line or the scenario can be wrong — with no output file left
 * behind.
 *
 * The binary's path comes from $CCLAB (tests/run.sh sets it); without it
 * every test here is skipped. */
#include <math.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/files.h"
#include "tests/run_cclab.h"

static int setup(void **state)
{
	(void)state;
	return run_cclab_begin("tune");
}

static int teardown(void **state)
{
	(void)state;
	return run_cclab_end();
}

/* A scenario file in tmpdir: 8 ranks on `generator`, ib-hdr, allreduce,
 * 4 B to 64 MiB by 64 unless --set says otherwise.  Returns its path (a
 * static buffer per slot). */
static const char *scenario(const char *name, const char *generator)
{
	static char paths[4][128];
	static int slot;
	char *path = paths[slot++ % 4];
	FILE *f;

	snprintf(path, sizeof(paths[0]), "%s/%s.yaml", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "name: %s\n"
		   "topology: {generator: %s, ranks: 8}\n"
		   "fabric: {preset: ib-hdr}\n"
		   "collective: allreduce\n"
		   "algorithm: ring\n"
		   "transport: write_imm\n"
		   "sizes: {min: 4, max: 64MiB, factor: 64}\n"
		   "check: 1MiB\n",
		name, generator);
	assert_int_equal(fclose(f), 0);
	return path;
}

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
}

/* The table row of `bytes` split at blanks: size, count, best, time,
 * busbw, runner-up, time, margin, then one cell per candidate.  Returns
 * the number of fields; fails the test when there is no such row. */
#define MAX_FIELDS 64
struct row {
	char buf[1024];
	char *f[MAX_FIELDS];
	int n;
};

static void row_of(const char *out, unsigned long long bytes, struct row *r)
{
	char head[32];
	const char *p = out, *end;

	snprintf(head, sizeof(head), "%12llu ", bytes);
	while (p && strncmp(p, head, strlen(head)))
		if ((p = strchr(p, '\n')))
			p++;
	if (!p || !*p)
		fail_msg("no row for %llu bytes in:\n%s", bytes, out);
	end = strchr(p, '\n');
	snprintf(r->buf, sizeof(r->buf), "%.*s", end ? (int)(end - p) : (int)strlen(p), p);
	r->n = 0;
	for (char *s = strtok(r->buf, " "); s && r->n < MAX_FIELDS; s = strtok(NULL, " "))
		r->f[r->n++] = s;
	assert_true(r->n > 8);
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* A candidate's time at `bytes` from the --csv file: NAN when it has none
 * (n/a); *best gets its best column.  Fails the test when the line is
 * missing. */
static double csv_time(const char *csv, unsigned long long bytes, const char *algo,
		       const char *transport, int *best)
{
	char key[128];
	const char *p;
	char *q;
	double t = NAN;

	snprintf(key, sizeof(key), "\n%llu,%s,%s,", bytes, algo, transport);
	p = strstr(csv, key);
	if (!p)
		fail_msg("no CSV line %s in:\n%s", key + 1, csv);
	p += strlen(key);
	if (*p != ',')
		t = strtod(p, &q);
	else
		q = (char *)p;
	q = strchr(q + 1, ','); /* past busbw */
	assert_non_null(q);
	if (best)
		*best = atoi(q + 1);
	return t;
}

/* The two fastest times of size `bytes` in the --csv file, every
 * candidate's line read, and the time of the one marked best (with how
 * many are). */
/* The fastest time t1 of a size, and t2 the fastest of another
 * algorithm than t1's (the runner-up, cli/cmd_tune.c). */
static void csv_fastest(const char *csv, unsigned long long bytes, double *t1, double *t2,
			double *best_t, int *nbest)
{
	char key[32], algo[64][32], best_algo[32] = "";
	double time[64];
	int n = 0;
	const char *p = csv;

	*t1 = *t2 = *best_t = INFINITY;
	*nbest = 0;
	snprintf(key, sizeof(key), "\n%llu,", bytes);
	while ((p = strstr(p, key)) && n < 64) {
		const char *a = p + strlen(key), *f = strchr(a, ',') + 1;
		char *end;

		p += strlen(key);
		f = strchr(f, ',') + 1; /* past algorithm, transport */
		if (*f == ',')
			continue; /* n/a */
		snprintf(algo[n], sizeof(algo[n]), "%.*s", (int)(strchr(a, ',') - a), a);
		time[n] = strtod(f, &end);
		end = strchr(end + 1, ','); /* past busbw */
		if (atoi(end + 1)) {
			*best_t = time[n];
			++*nbest;
		}
		if (time[n] < *t1) {
			*t1 = time[n];
			snprintf(best_algo, sizeof(best_algo), "%s", algo[n]);
		}
		n++;
	}
	for (int i = 0; i < n; i++)
		if (strcmp(algo[i], best_algo) && time[i] < *t2)
			*t2 = time[i];
}

static void test_help(void **state)
{
	(void)state;
	need_cclab();
	struct run r = run_cclab("tune --help");

	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "Usage: cclab tune SCENARIO.yaml [--set KEY=VALUE]..."));
	assert_non_null(strstr(r.out, "--json FILE"));
	assert_non_null(strstr(r.out, "--csv FILE"));
	run_free(&r);
	r = run_cclab("help");
	assert_non_null(strstr(r.out, "\n  tune SCENARIO "));
	run_free(&r);
	r = run_cclab("help tune");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "Usage: cclab tune"));
	run_free(&r);
}

/* ib-hdr, star of 8: at 4 B the 2 log2(8) = 6 swaps of halving-doubling
 * (about 26 us) beat the ring's 2k-1 = 15 steps (about 41 us); at 64 MiB
 * the ring (about 4.7 ms) beats halving-doubling (about 5.9 ms). */
static void test_star(void **state)
{
	char json[160], csv[160];

	(void)state;
	need_cclab();
	const char *sc = scenario("tune-star", "star");
	path_of(json, sizeof(json), "star.json");
	path_of(csv, sizeof(csv), "star.csv");
	struct run r = run_cclab("tune %s --json %s --csv %s", sc, json, csv);
	char *j = text_of(json), *c = text_of(csv);
	struct row row;
	int best;

	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	assert_non_null(strstr(r.out, "# cclab 0.1.0 tune: allreduce, every algorithm x transport, "
				      "8 ranks, type float, redop sum\n"));
	assert_non_null(strstr(r.out, "# minBytes 4 maxBytes 67108864 step: 64(factor) "
				      "validation: 0\n"));
	assert_non_null(strstr(r.out, "# fabric: ib-hdr  topology: star  link: ib 200 Gb/s"));
	assert_non_null(strstr(r.out, "# timing only: no data carried"));
	assert_non_null(strstr(r.out, "# candidates: ring/write_imm ring/send_recv ring/write_flag "
				      "halving-doubling/write_imm halving-doubling/send_recv "
				      "halving-doubling/write_flag"));
	assert_null(strstr(r.out, "# n/a:"));
	assert_non_null(strstr(r.out, "# Out of bounds values : 0 OK\n"));
	/* 4, 256, 16 KiB, 1 MiB, 64 MiB */
	assert_int_equal(count_rows(r.out), 5);

	double hd4 = csv_time(c, 4, "halving-doubling", "write_imm", NULL);
	double ring4 = csv_time(c, 4, "ring", "write_imm", NULL);
	double hd64 = csv_time(c, 64ull << 20, "halving-doubling", "write_imm", NULL);
	double ring64 = csv_time(c, 64ull << 20, "ring", "write_imm", NULL);

	assert_true(hd4 > 20 && hd4 < 32);
	assert_true(ring4 > 35 && ring4 < 48);
	assert_true(ring64 > 4500 && ring64 < 5000);
	assert_true(hd64 > 5600 && hd64 < 6300);

	row_of(r.out, 4, &row);
	assert_string_equal(row.f[1], "1");
	/* No ring wins at 4 B; what does is at least as fast as halving-doubling,
	 * and is halving-doubling when these two are all the algorithms. */
	assert_false(starts(row.f[2], "ring/"));
	if (strstr(r.out, " halving-doubling/write_flag\n"))
		assert_true(starts(row.f[2], "halving-doubling/"));
	assert_true(strtod(row.f[3], NULL) <= csv_time(c, 4, "halving-doubling", "send_recv", NULL)
		    + 0.005);
	row_of(r.out, 64ull << 20, &row);
	assert_string_equal(row.f[1], "16777216");
	assert_true(starts(row.f[2], "ring/"));
	assert_false(starts(row.f[5], "ring/")); /* the runner-up: another algorithm */
	csv_time(c, 64ull << 20, "halving-doubling", "write_imm", &best);
	assert_int_equal(best, 0);
	assert_non_null(strstr(r.out, "\n# ring wins:"));
	assert_non_null(strstr(r.out, "67108864 bytes ("));
	assert_non_null(strstr(r.out, "\n# halving-doubling wins: "));

	/* Each row: its time is the fastest of the CSV's, exactly one CSV
	 * line of the size says best (that one), and the margin is its ratio
	 * to the fastest of another algorithm. */
	static const unsigned long long sizes[] = {4, 256, 16384, 1 << 20, 64ull << 20};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		double t1, t2, best_t;
		int nbest;

		row_of(r.out, sizes[i], &row);
		csv_fastest(c, sizes[i], &t1, &t2, &best_t, &nbest);
		assert_int_equal(nbest, 1);
		assert_true(best_t == t1);
		assert_true(fabs(strtod(row.f[3], NULL) - t1) <= t1 * 0.0005 + 0.005);
		assert_true(fabs(strtod(row.f[6], NULL) - t2) <= t2 * 0.0005 + 0.005);
		assert_true(fabs(strtod(row.f[7], NULL) - (t2 / t1 - 1) * 100) < 0.0051);
	}

	/* The JSON's keys. */
	assert_non_null(strstr(j, "\"cclab_version\": \"0.1.0\""));
	assert_non_null(strstr(j, "\"command\": \"tune\""));
	assert_non_null(strstr(j, "\"scenario\": \"tune-star\""));
	assert_non_null(strstr(j, "\"fabric\": \"ib-hdr\""));
	assert_non_null(strstr(j, "\"topology\": \"star\""));
	assert_non_null(strstr(j, "\"collective\": \"allreduce\""));
	assert_non_null(strstr(j, "\"nranks\": 8"));
	assert_non_null(strstr(j, "\"candidates\": [\n    {\n      \"algorithm\": \"ring\",\n"
				  "      \"transport\": \"write_imm\",\n      \"applicable\": true,\n"
				  "      \"reason\": null\n    },"));
	assert_non_null(strstr(j, "\"sizes\": [\n    {\n      \"bytes\": 4,\n      \"count\": 1,\n"
				  "      \"best\": {\n        \"algorithm\": "));
	assert_non_null(strstr(j, "\"runner_up\": {"));
	assert_non_null(strstr(j, "\"margin_pct\": "));
	assert_non_null(strstr(j, "\"times\": [\n"));
	assert_non_null(strstr(j, "\"time_us\": "));
	assert_non_null(strstr(j, "\"busbw_gbps\": "));
	assert_non_null(strstr(j, "\"bytes\": 67108864,\n      \"count\": 16777216,\n"
				  "      \"best\": {\n        \"algorithm\": \"ring\",\n"));
	assert_non_null(strstr(j, "\"ok\": true\n}\n"));
	assert_true(starts(c, "size_bytes,algorithm,transport,time_us,busbw_gbps,best\n"));
	free(j);
	free(c);
	run_free(&r);
}

/* On a ring topology only neighbours are cabled: halving-doubling's
 * partners at distance 2 and 4 are not, so it is n/a — and the ring wins
 * every size. */
static void test_ring_topology(void **state)
{
	char json[160], csv[160];

	(void)state;
	need_cclab();
	const char *sc = scenario("tune-ring", "ring");
	path_of(json, sizeof(json), "ring.json");
	path_of(csv, sizeof(csv), "ring.csv");
	struct run r = run_cclab("tune %s --json %s --csv %s", sc, json, csv);
	char *j = text_of(json), *c = text_of(csv);
	struct row row;

	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	assert_non_null(strstr(r.out, "# n/a: halving-doubling/*"));
	assert_non_null(strstr(r.out, ": the ring topology cannot carry this schedule (a queue "
				      "pair joins ranks it does not connect)\n"));
	assert_int_equal(count_rows(r.out), 5);
	static const unsigned long long sizes[] = {4, 256, 16384, 1 << 20, 64ull << 20};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		row_of(r.out, sizes[i], &row);
		assert_true(starts(row.f[2], "ring/"));
		/* No other algorithm runs on a ring: no runner-up, no margin. */
		assert_string_equal(row.f[5], "n/a");
		assert_string_equal(row.f[7], "n/a");
		/* ring's three cells, then halving-doubling's n/a */
		assert_string_equal(row.f[11], "n/a");
		assert_string_equal(row.f[12], "n/a");
		assert_string_equal(row.f[13], "n/a");
		assert_true(isnan(csv_time(c, sizes[i], "halving-doubling", "send_recv", NULL)));
		assert_false(isnan(csv_time(c, sizes[i], "ring", "write_flag", NULL)));
	}
	assert_non_null(strstr(r.out, "\n# ring wins: 4..67108864 bytes ("));
	assert_non_null(strstr(r.out, "\n# halving-doubling wins: no size\n"));
	assert_non_null(strstr(j, "\"algorithm\": \"halving-doubling\",\n"
				  "      \"transport\": \"write_imm\",\n"
				  "      \"applicable\": false,\n"
				  "      \"reason\": \"the ring topology cannot carry this schedule"));
	assert_non_null(strstr(j, "\"algorithm\": \"halving-doubling\",\n"
				  "          \"transport\": \"write_flag\",\n"
				  "          \"time_us\": null,\n          \"status\": \"n/a\""));
	free(j);
	free(c);
	run_free(&r);
}

/* halving-doubling builds allreduce only: for reduce-scatter it is n/a at
 * every size, with the algorithm's own reason, and ring runs everywhere. */
static void test_reducescatter(void **state)
{
	char json[160], csv[160];

	(void)state;
	need_cclab();
	const char *sc = scenario("tune-rs", "star");
	path_of(json, sizeof(json), "rs.json");
	path_of(csv, sizeof(csv), "rs.csv");
	struct run r = run_cclab("tune %s --set collective=reducescatter --set sizes.min=1KiB "
				 "--set sizes.max=1MiB --set sizes.factor=32 --json %s --csv %s",
				 sc, json, csv);
	char *j = text_of(json), *c = text_of(csv);

	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	assert_non_null(strstr(r.out, "tune: reducescatter, every algorithm x transport, 8 ranks"));
	assert_non_null(strstr(r.out, "# n/a: halving-doubling/*: algorithm halving-doubling "
				      "does not build reducescatter (ring or direct)"));
	assert_int_equal(count_rows(r.out), 3); /* 1 KiB, 32 KiB, 1 MiB */
	static const unsigned long long sizes[] = {1024, 32768, 1 << 20};
	static const char *const trs[] = {"write_imm", "send_recv", "write_flag"};
	for (size_t i = 0; i < 3; i++)
		for (size_t t = 0; t < 3; t++) {
			assert_false(isnan(csv_time(c, sizes[i], "ring", trs[t], NULL)));
			assert_true(isnan(csv_time(c, sizes[i], "halving-doubling", trs[t], NULL)));
		}
	/* halving-doubling's three are not applicable, the ring's are. */
	assert_int_equal(count_substr(j, "\"algorithm\": \"halving-doubling\",\n      "
					 "\"transport\": "), 3);
	assert_int_equal(count_substr(j, "\"applicable\": false,\n      \"reason\": \"algorithm "
					 "halving-doubling does not build reducescatter"), 3);
	for (size_t t = 0; t < 3; t++) {
		char want[160];

		snprintf(want, sizeof(want), "\"algorithm\": \"ring\",\n      \"transport\": \"%s\","
			 "\n      \"applicable\": true,\n      \"reason\": null\n", trs[t]);
		assert_non_null(strstr(j, want));
	}
	assert_non_null(strstr(j, "\"collective\": \"reducescatter\""));
	free(j);
	free(c);
	run_free(&r);
}

/* Every packet lost: each run ends in IBV_WC_RETRY_EXC_ERR.  Each is
 * named on stderr, its cell says failed, no size has a winner, the files
 * are still written (saying so), and the exit status is 1. */
static void test_failed_runs(void **state)
{
	char json[160], csv[160];

	(void)state;
	need_cclab();
	const char *sc = scenario("tune-lossy", "star");
	path_of(json, sizeof(json), "lossy.json");
	path_of(csv, sizeof(csv), "lossy.csv");
	struct run r = run_cclab("tune %s --set sizes.max=4 --set fabric.link.loss_ppb=1000000000 "
				 "--json %s --csv %s", sc, json, csv);
	char *j = text_of(json), *c = text_of(csv);
	struct row row;

	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "cclab tune: 4 bytes: ring/write_imm: completion_error: "));
	assert_non_null(strstr(r.err, "IBV_WC_RETRY_EXC_ERR"));
	assert_int_equal(count_lines_starting(r.err, "cclab tune: 4 bytes: "),
			 count_substr(c, "\n4,"));
	row_of(r.out, 4, &row);
	assert_string_equal(row.f[2], "n/a");
	assert_string_equal(row.f[5], "n/a");
	for (int i = 8; i < row.n; i++)
		assert_string_equal(row.f[i], "failed");
	assert_non_null(strstr(r.out, "\n# ring wins: no size\n"));
	assert_null(strstr(r.out, "# Out of bounds values : 0 OK"));
	assert_non_null(strstr(j, "\"best\": null,\n      \"runner_up\": null,\n"
				  "      \"margin_pct\": null,"));
	assert_non_null(strstr(j, "\"status\": \"completion_error\""));
	assert_non_null(strstr(j, "\"ok\": false\n}\n"));
	assert_non_null(strstr(c, "\n4,ring,write_imm,,,0\n"));
	free(j);
	free(c);
	run_free(&r);
}

/* The same scenario twice: the same bytes on stdout and in both files. */
static void test_deterministic(void **state)
{
	char j1[160], j2[160], c1[160], c2[160];

	(void)state;
	need_cclab();
	const char *sc = scenario("tune-det", "star");
	path_of(j1, sizeof(j1), "d1.json");
	path_of(j2, sizeof(j2), "d2.json");
	path_of(c1, sizeof(c1), "d1.csv");
	path_of(c2, sizeof(c2), "d2.csv");
	struct run a = run_cclab("tune %s --set sizes.max=1MiB --set sizes.factor=16 --json %s "
				 "--csv %s", sc, j1, c1);
	struct run b = run_cclab("tune %s --set sizes.max=1MiB --set sizes.factor=16 --json=%s "
				 "--csv=%s", sc, j2, c2);
	char *ja = text_of(j1), *jb = text_of(j2), *ca = text_of(c1), *cb = text_of(c2);

	assert_int_equal(a.status, 0);
	assert_int_equal(b.status, 0);
	assert_string_equal(a.out, b.out);
	assert_true(strlen(ja) > 100);
	assert_string_equal(ja, jb);
	assert_true(strlen(ca) > 100);
	assert_string_equal(ca, cb);
	free(ja);
	free(jb);
	free(ca);
	free(cb);
	run_free(&a);
	run_free(&b);
}

/* Exit `status` with nothing on stdout and stderr matching `pattern`. */
static void expect_refused(int status, const char *pattern, const char *args)
{
	regex_t re;
	struct run r = run_cclab("%s", args);

	assert_int_equal(regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB), 0);
	if (r.status != status || regexec(&re, r.err, 0, NULL, 0))
		fail_msg("%s: status %d, stderr '%s', wanted %d and /%s/", args, r.status, r.err,
			 status, pattern);
	assert_string_equal(r.out, "");
	regfree(&re);
	run_free(&r);
}

static void test_errors(void **state)
{
	char args[512], p2p[160], bad[160];
	FILE *f;

	(void)state;
	need_cclab();
	const char *sc = scenario("tune-err", "star");

	expect_refused(2, "cannot read: No such file", "tune /nonexistent/tune.yaml");

	path_of(bad, sizeof(bad), "bad.yaml");
	f = fopen(bad, "w");
	assert_non_null(f);
	fputs("name: bad\ntopology: {generator: star, ranks: 8}\ncollective: allreduce\n"
	      "sizes: {min: 4, max: 64, factr: 4}\n", f);
	assert_int_equal(fclose(f), 0);
	snprintf(args, sizeof(args), "tune %s", bad);
	expect_refused(2, "^cclab tune: .*bad\\.yaml:4:[0-9]+: unknown key 'factr'", args);

	path_of(p2p, sizeof(p2p), "p2p.yaml");
	f = fopen(p2p, "w");
	assert_non_null(f);
	fputs("name: p2p\ntopology: {generator: star, ranks: 2}\nfabric: {preset: roce-100g}\n"
	      "p2p: {op: write, mode: lat}\nsizes: {min: 8, max: 64, factor: 2}\n", f);
	assert_int_equal(fclose(f), 0);
	snprintf(args, sizeof(args), "tune %s", p2p);
	expect_refused(2, "p2p\\.yaml: tune compares collective algorithms; this scenario is a "
		       "p2p test", args);

	snprintf(args, sizeof(args), "tune %s --frobnicate", sc);
	expect_refused(2, "unknown option '--frobnicate'\nTry 'cclab tune --help'\\.", args);
	expect_refused(2, "expected a scenario file", "tune");
	snprintf(args, sizeof(args), "tune %s %s", sc, sc);
	expect_refused(2, "unexpected argument", args);
	snprintf(args, sizeof(args), "tune %s --json", sc);
	expect_refused(2, "option '--json' needs a value", args);
	snprintf(args, sizeof(args), "tune %s --json x.out --csv x.out", sc);
	expect_refused(2, "--json and --csv name the same file", args);
	snprintf(args, sizeof(args), "tune %s --set sizes.max=lots", sc);
	expect_refused(2, "--set sizes\\.max=lots.*not a size", args);
}

/* An output path that cannot be written: exit 1 before any run, and no
 * file at all, the other output's included. */
static void test_unwritable(void **state)
{
	char args[512], dir[160], csv[192], json[192];

	(void)state;
	need_cclab();
	const char *sc = scenario("tune-out", "star");
	path_of(dir, sizeof(dir), "out");
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(csv, sizeof(csv), "%s/t.csv", dir);
	snprintf(json, sizeof(json), "%s/t.json", dir);

	snprintf(args, sizeof(args), "tune %s --json %s/missing/t.json --csv %s", sc, tmpdir, csv);
	expect_refused(1, "cannot write '.*/missing/t\\.json': No such file", args);
	snprintf(args, sizeof(args), "tune %s --json %s --csv %s/missing/t.csv", sc, json, tmpdir);
	expect_refused(1, "cannot write '.*/missing/t\\.csv': No such file", args);
	assert_int_equal(dir_entries(dir), 0);
	assert_int_equal(access(csv, F_OK), -1);
	assert_int_equal(access(json, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_star),
		cmocka_unit_test(test_ring_topology),
		cmocka_unit_test(test_reducescatter),
		cmocka_unit_test(test_failed_runs),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_unwritable),
	};

	return cmocka_run_group_tests_name("tune", t, setup, teardown);
}
