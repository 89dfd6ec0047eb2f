/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_validate.c — `cclab validate` (cli/validate.h,
 * docs/validation.md) on cases made here, whose measured tables are the
 * simulator's own figures scaled by known factors, so every error the
 * command reports is known in closed form:
 *   - times doubled and busbw halved: the small-message error is -50 %,
 *     the large-message one +100 %, and the half-peak size (the shape of
 *     the curve is unchanged) 0 %; with sizes a factor 8 apart, "the
 *     largest" and "the smallest" are one size each (within 4x);
 *   - a perftest bandwidth case with its BW average scaled by 4/5: +25 %;
 *   - the large sizes as lines: measured times of the simulator's x2 + 100 us
 *     give twice the predicted fixed part + 100 us at half the rate;
 *   - the corpus' median and worst per class, the --json and --csv files,
 *     the baseline gate (passes within the tolerance, fails past it);
 *   - broken cases: each error at its file, line and column, exit 2;
 *   - `cclab calibrate` of a perftest case, and a scenario whose fabric
 *     names the fitted file as its base (`file:`). */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "tests/files.h"
#include "tests/run_cclab.h"
#include "util/yaml.h"

static const char *at(const char *name)
{
	static char buf[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", tmpdir, name);
	return buf[i];
}

static void put(const char *name, const char *text)
{
	char cmd[1200];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", at(name));
	assert_int_equal(system(cmd), 0);
	f = fopen(at(name), "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static const char coll_scenario[] = "name: ideal-star-4\n"
				    "topology: {generator: star, ranks: 4}\n"
				    "fabric: {preset: ideal}\n"
				    "collective: allreduce\n"
				    "dtype: float\nredop: sum\n"
				    "sizes: {min: 1KiB, max: 64MiB, factor: 8}\n"
				    "check: false\n";
static const char bw_scenario[] = "name: ideal-write-bw\n"
				  "topology: {generator: star, ranks: 2}\n"
				  "fabric: {preset: ideal}\n"
				  "p2p: {op: write, mode: bw, iters: 200}\n"
				  "sizes: {min: 4KiB, max: 1MiB, factor: 16}\n";

#define NCCL_HEADER "size_bytes,count,type,redop,root,time_us,algbw_gbps,busbw_gbps,wrong," \
		    "time_ip_us,algbw_ip_gbps,busbw_ip_gbps,wrong_ip\n"

/* The simulator's table of `cmd` (a --csv of cclab sim or run), its
 * columns at the named positions, one line per size. */
struct fig {
	uint64_t size, count;
	double time_us, busbw, bw;
	uint32_t n;
};

static uint32_t figures(const char *csv_path, bool p2p, struct fig *f, uint32_t max)
{
	char *text = slurp(csv_path, NULL), *line, *save = NULL;
	uint32_t n = 0;

	assert_non_null(text);
	line = strtok_r(text, "\n", &save); /* the header */
	while ((line = strtok_r(NULL, "\n", &save)) && n < max) {
		char *cell[24], *s2 = NULL, *c;
		int k = 0;

		for (c = strtok_r(line, ",", &s2); c && k < 24; c = strtok_r(NULL, ",", &s2))
			cell[k++] = c;
		/* run --csv of a collective: size_bytes is column 10; of p2p: 7 */
		if (!p2p) {
			assert_true(k >= 14);
			f[n].size = strtoull(cell[9], NULL, 10);
			f[n].count = strtoull(cell[10], NULL, 10);
			f[n].time_us = strtod(cell[11], NULL);
			f[n].busbw = strtod(cell[13], NULL);
		} else {
			assert_true(k >= 10);
			f[n].size = strtoull(cell[6], NULL, 10);
			f[n].bw = strtod(cell[9], NULL);
		}
		n++;
	}
	free(text);
	return n;
}

/* Two cases in tmpdir/corpus: the collective with times x2 and busbw /2,
 * the perftest bandwidth with its average x 4/5. */
static void make_corpus(void)
{
	struct fig f[16];
	char *t = NULL, line[256];
	size_t len = 0;
	FILE *m;
	uint32_t n;
	struct run r;

	put("corpus/a-coll/scenario.yaml", coll_scenario);
	put("corpus/b-bw/scenario.yaml", bw_scenario);
	r = run_cclab("run '%s' --csv '%s'", at("corpus/a-coll/scenario.yaml"), at("a.csv"));
	assert_int_equal(r.status, 0);
	run_free(&r);
	r = run_cclab("run '%s' --csv '%s'", at("corpus/b-bw/scenario.yaml"), at("b.csv"));
	assert_int_equal(r.status, 0);
	run_free(&r);

	n = figures(at("a.csv"), false, f, 16);
	assert_int_equal(n, 6); /* 1K, 8K, ..., 32M */
	m = open_memstream(&t, &len);
	fputs(NCCL_HEADER, m);
	for (uint32_t i = 0; i < n; i++) {
		snprintf(line, sizeof(line), "%llu,%llu,float,sum,-1,%.9g,0,%.9g,0,,,,\n",
			 (unsigned long long)f[i].size, (unsigned long long)f[i].count,
			 f[i].time_us * 2, f[i].busbw / 2);
		fputs(line, m);
	}
	fclose(m);
	put("corpus/a-coll/measured.csv", t);
	free(t);
	put("corpus/a-coll/source.md", "# made by the test\n\n```yaml\nurl: https://example.org/a\n"
				       "title: \"doubled\"\n```\n");

	n = figures(at("b.csv"), true, f, 16);
	assert_int_equal(n, 3); /* 4K, 64K, 1M */
	t = NULL;
	m = open_memstream(&t, &len);
	fputs("bytes,iterations,bw_peak_mb_s,bw_avg_mb_s,msg_rate_mpps\n", m);
	for (uint32_t i = 0; i < n; i++) {
		snprintf(line, sizeof(line), "%llu,200,0,%.9g,0\n", (unsigned long long)f[i].size,
			 f[i].bw * 0.8);
		fputs(line, m);
	}
	fclose(m);
	put("corpus/b-bw/measured.csv", t);
	free(t);
}

/* A number in the JSON at a path of keys and indices ("cases.0.errors_pct.large"). */
static double json_num(const char *path, const char *what)
{
	struct cy_doc doc;
	struct cy_error err;
	const struct cy_node *n;
	char key[256], *save = NULL, *k;

	assert_int_equal(cy_load_file(path, &doc, &err), 0);
	n = doc.root;
	snprintf(key, sizeof(key), "%s", what);
	for (k = strtok_r(key, ".", &save); k && n; k = strtok_r(NULL, ".", &save))
		n = n->kind == CY_SEQ ? (size_t)atoi(k) < n->n ? n->vals[atoi(k)] : NULL
				      : cy_get(n, k);
	assert_non_null(n);
	double v = strcmp(n->str, "null") ? strtod(n->str, NULL) : NAN;

	cy_free(&doc);
	return v;
}

static void known_errors(void **state)
{
	struct run r;
	char *out;

	(void)state;
	need_cclab();
	make_corpus();
	r = run_cclab("validate '%s' --json '%s' --csv '%s'", at("corpus"), at("v.json"),
		      at("v.csv"));
	assert_int_equal(r.status, 0);
	out = r.out;
	assert_non_null(strstr(out, "# case a-coll: allreduce, 4 ranks, fabric ideal"));
	assert_non_null(strstr(out, "#   source: https://example.org/a"));
	assert_non_null(strstr(out, "#   large: busbw at 32MiB: +100.0 %"));
	assert_non_null(strstr(out, "#   small: time at 1KiB: -50.0 %"));
	assert_non_null(strstr(out, "#   large: BW average at 1MiB: +25.0 %"));
	run_free(&r);

	/* the same in the JSON; the measured tables were made from run's CSV,
	 * which keeps 6 significant digits: within 0.001 percentage points */
	assert_true(fabs(json_num(at("v.json"), "cases.0.errors_pct.large") - 100) < 1e-3);
	assert_true(fabs(json_num(at("v.json"), "cases.0.errors_pct.small") + 50) < 1e-3);
	assert_true(fabs(json_num(at("v.json"), "cases.0.errors_pct.half")) < 1e-3);
	assert_true(fabs(json_num(at("v.json"), "cases.1.errors_pct.large") - 25) < 1e-3);
	assert_true(isnan(json_num(at("v.json"), "cases.1.errors_pct.small")));
	/* large: |+100| and |+25|: median 62.5, worst 100 (a-coll) */
	assert_true(fabs(json_num(at("v.json"), "classes.large.median_abs_pct") - 62.5) < 1e-3);
	assert_true(fabs(json_num(at("v.json"), "classes.large.worst_abs_pct") - 100) < 1e-3);
	assert_true(fabs(json_num(at("v.json"), "classes.small.cases") - 1) < 1e-9);
	assert_true(fabs(json_num(at("v.json"), "schema_version") - 1) < 1e-9);

	/* CSV: a line per case and size, measured twice the predicted time */
	char *csv = slurp(at("v.csv"), NULL);

	assert_non_null(strstr(csv, "case,kind,size_bytes,measured_time_us,predicted_time_us,"
				    "measured_bw,predicted_bw,bw_unit,status\n"));
	assert_int_equal(count_substr(csv, "\na-coll,nccl-tests,"), 6);
	assert_int_equal(count_substr(csv, "\nb-bw,perftest bw,"), 3);
	free(csv);
}

/* A case in dir of an allreduce on 4 ranks of `ideal` (the ring, Simple,
 * one channel) at `sizes`, whose measured times are the simulator's x2 +
 * 100 us: the sizes it has. */
static uint32_t doubled_case(const char *dir, const char *sizes)
{
	struct fig f[4];
	char *t = NULL, line[256], path[256], yaml[512];
	size_t len = 0;
	FILE *m;
	struct run r;
	uint32_t n;

	snprintf(yaml, sizeof(yaml), "name: ideal-star-4-doubled\n"
				     "topology: {generator: star, ranks: 4}\n"
				     "fabric: {preset: ideal}\n"
				     "collective: allreduce\n"
				     "dtype: float\nredop: sum\n"
				     "sizes: %s\n"
				     "check: false\n", sizes);
	snprintf(path, sizeof(path), "%s/scenario.yaml", dir);
	put(path, yaml);
	r = run_cclab("run '%s' --csv '%s'", at(path), at("c.csv"));
	assert_int_equal(r.status, 0);
	run_free(&r);
	n = figures(at("c.csv"), false, f, 4);
	m = open_memstream(&t, &len);
	fputs(NCCL_HEADER, m);
	for (uint32_t i = 0; i < n; i++) {
		snprintf(line, sizeof(line), "%llu,%llu,float,sum,-1,%.9g,0,0,0,,,,\n",
			 (unsigned long long)f[i].size, (unsigned long long)f[i].count,
			 f[i].time_us * 2 + 100);
		fputs(line, m);
	}
	fclose(m);
	snprintf(path, sizeof(path), "%s/measured.csv", dir);
	put(path, t);
	free(t);
	return n;
}

/* cclab validate of case dir and the corpus, the report as JSON at json:
 * its text has `line`, and a fitted rate +100 % (the measured half). */
static void validate_doubled(const char *dir, const char *json, const char *line)
{
	struct run r = run_cclab("validate '%s' '%s' --json '%s'", at(dir), at("corpus"), at(json));

	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, line));
	assert_non_null(strstr(r.out, "rate +100.0 %)"));
	run_free(&r);
}

/* Case 0's fit `key` in the JSON report at path, over its 3 sizes, of a
 * case doubled_case() made: the measured fixed part twice the
 * predicted plus `plus` us (within tol), the rate half. */
static void doubled_fit(const char *path, const char *key, const char *rate, double plus,
			double tol)
{
	char k[128];
	double f[2], b[2];

	for (int m = 0; m < 2; m++) {
		snprintf(k, sizeof(k), "cases.0.%s.%s.fixed_us", key, m ? "predicted" : "measured");
		f[m] = json_num(path, k);
		snprintf(k, sizeof(k), "cases.0.%s.%s.%s", key, m ? "predicted" : "measured", rate);
		b[m] = json_num(path, k);
	}
	snprintf(k, sizeof(k), "cases.0.%s.sizes", key);
	assert_true(fabs(json_num(path, k) - 3) < 1e-9);
	assert_true(fabs(f[0] - (2 * f[1] + plus)) < tol);
	assert_true(fabs(b[0] / b[1] - 0.5) < 1e-4);
	assert_true(b[1] > 0);
}

/* The large sizes as a line: a case whose measured times are the
 * simulator's x2 + 100 us, at three sizes a factor 2 apart (all within 4x
 * of the largest), has a measured line of twice the predicted fixed part
 * plus 100 us, at half the predicted rate; the corpus' two cases (one size
 * of "large", a perftest) have none. */
static void known_line(void **state)
{
	(void)state;
	need_cclab();
	make_corpus();
	assert_int_equal(doubled_case("lines/c-line", "{min: 8MiB, max: 32MiB, factor: 2}"), 3);
	validate_doubled("lines/c-line", "l.json",
			 "#   line: time = fixed + size / rate over 3 of them (with times): measured ");

	/* run's CSV keeps 6 significant digits of the times */
	doubled_fit(at("l.json"), "large_line", "busbw", 100, 0.05);
	assert_true(isnan(json_num(at("l.json"), "cases.1.large_line")));
	assert_true(isnan(json_num(at("l.json"), "cases.2.large_line")));
}

/* The ring's step as a line: at 1, 2 and 4 MiB on 4 ranks each size is
 * one loop of 2k - 1 = 7 steps of a quarter of the array (256 KiB to
 * 1 MiB chunks), so measured times of the simulator's x2 + 100 us fit a
 * step of twice the predicted fixed part plus 100 / 7 us, at half the
 * predicted rate; cases that never ran the ring on Simple have none. */
static void known_step(void **state)
{
	(void)state;
	need_cclab();
	make_corpus();
	assert_int_equal(doubled_case("steps/c-step", "{min: 1MiB, max: 4MiB, factor: 2}"), 3);
	validate_doubled("steps/c-step", "s.json", "#   step: the ring's primitive = fixed + "
						   "chunk / rate over 3 sizes that ran it: measured ");

	doubled_fit(at("s.json"), "ring_step", "rate_gbps", 100.0 / 7, 0.01);
	assert_true(isnan(json_num(at("s.json"), "cases.2.ring_step")));
}

/* The gate: a baseline written from this run passes; one whose median is
 * lower than now by more than the tolerance fails, naming the class. */
static void baseline_gate(void **state)
{
	struct run r;

	(void)state;
	need_cclab();
	make_corpus();
	r = run_cclab("validate '%s' --quiet --write-baseline '%s'", at("corpus"), at("base.csv"));
	assert_int_equal(r.status, 0);
	run_free(&r);
	file_is(at("base.csv"), "class,cases,median_abs_pct\nlarge,2,62.5\nsmall,1,50.0\n"
				"half,1,0.0\n");
	r = run_cclab("validate '%s' --quiet --baseline '%s'", at("corpus"), at("base.csv"));
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "# large  median |err| 62.5 %, baseline 62.5 %: as before"));
	run_free(&r);
	put("base.csv", "class,cases,median_abs_pct\nlarge,2,61.0\nsmall,1,50.0\n");
	r = run_cclab("validate '%s' --quiet --baseline '%s'", at("corpus"), at("base.csv"));
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.out, "# large  median |err| 62.5 %, baseline 61.0 %: FAILED, worse"));
	run_free(&r);
	r = run_cclab("validate '%s' --quiet --baseline '%s' --tolerance 2", at("corpus"),
		      at("base.csv"));
	assert_int_equal(r.status, 0);
	run_free(&r);
}

/* Broken cases: where, and exit 2. */
static void broken_cases(void **state)
{
	static const struct {
		const char *csv, *want;
	} cases[] = {
		{"size,count\n1,1\n", "measured.csv:1: not a table of ours"},
		{"bytes,iterations,bw_peak_mb_s,bw_avg_mb_s,msg_rate_mpps\n4096,1,1,1,1\n",
		 "measured.csv:1: a perftest bw table, but scenario.yaml runs nccl-tests"},
		{NCCL_HEADER "1024,256,float,sum,-1,x,0,1,0,,,,\n",
		 "measured.csv:2:23: time_us: 'x' is not a number >= 0 (or N/A)"},
		{NCCL_HEADER "1024,255,float,sum,-1,1,0,1,0,,,,\n",
		 "measured.csv:2:6: count 255 of float on 4 ranks is 1020 bytes, not the size 1024"},
		{NCCL_HEADER "1024,256,half,sum,-1,1,0,1,0,,,,\n",
		 "measured.csv:2:10: type 'half', but the scenario's dtype is float"},
		{NCCL_HEADER "2048,512,float,sum,-1,1,0,1,0,,,,\n1024,256,float,sum,-1,1,0,1,0,,,,\n",
		 "measured.csv:3: size 1024 after 2048; sizes go up"},
		{NCCL_HEADER "1024,256,float,sum,-1,1,0,1,0\n", "measured.csv:2: 9 columns, the header has 13"},
		{NCCL_HEADER, "measured.csv: a header and no rows"},
	};
	struct run r;

	(void)state;
	need_cclab();
	put("broken/x/scenario.yaml", coll_scenario);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		put("broken/x/measured.csv", cases[i].csv);
		r = run_cclab("validate '%s'", at("broken"));
		if (r.status != 2 || !strstr(r.err, cases[i].want))
			fail_msg("case %zu: exit %d, stderr %s; wanted %s", i, r.status, r.err,
				 cases[i].want);
		run_free(&r);
	}
	r = run_cclab("validate '%s'", at("nothing-here"));
	assert_int_equal(r.status, 2);
	run_free(&r);
	mkdir(at("empty"), 0755);
	r = run_cclab("validate '%s'", at("empty"));
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "no case in it"));
	run_free(&r);
	r = run_cclab("validate --max-iters 1");
	assert_int_equal(r.status, 2);
	run_free(&r);
}

/* The method docs/validation.md shows for a platform whose perftest figures
 * are published: `cclab calibrate` fits a fabric to a validation case of
 * perftest, and a scenario names the fitted file as its fabric's base.
 * The case's bandwidths are the ideal preset's x 0.8: its 100 Gb/s link
 * fits as 80 Gb/s (within 0.01 %), and the scenario on the fitted file
 * measures what the case says. */
static void calibrate_from_case(void **state)
{
	struct run r;
	char *fit;

	(void)state;
	need_cclab();
	make_corpus();
	r = run_cclab("calibrate '%s' --base ideal -o '%s'", at("corpus/b-bw"), at("fit.yaml"));
	assert_int_equal(r.status, 0);
	run_free(&r);
	fit = slurp(at("fit.yaml"), NULL);
	assert_non_null(fit);
	assert_non_null(strstr(fit, "  rate_bps: 8000"));
	free(fit);
	/* the fitted file as the base, one key overridden beside it */
	put("over/scenario.yaml", "topology: {generator: star, ranks: 2}\n"
				  "fabric: {file: ../fit.yaml, link: {prop_delay_ps: 0}}\n"
				  "p2p: {op: write, mode: bw, iters: 200}\nsizes: 1MiB\n");
	r = run_cclab("run '%s' --csv '%s'", at("over/scenario.yaml"), at("over.csv"));
	assert_int_equal(r.status, 0);
	run_free(&r);
	struct fig f[2];

	assert_int_equal(figures(at("over.csv"), true, f, 2), 1);
	/* the case's 1 MiB figure is the ideal run's x 0.8 */
	struct fig g[4];

	assert_int_equal(figures(at("b.csv"), true, g, 4), 3);
	assert_true(fabs(f[0].bw / (g[2].bw * 0.8) - 1) < 1e-3);
	/* a file naming itself: a loop, refused at its key */
	put("loop.yaml", "file: loop.yaml\n");
	r = run_cclab("sim -n 2 -b 1K --fabric '%s'", at("loop.yaml"));
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "fabric files name each other more than 4 deep"));
	run_free(&r);
}

static int setup(void **state)
{
	(void)state;
	return run_cclab_begin("validate");
}

static int teardown(void **state)
{
	(void)state;
	return run_cclab_end();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(known_errors),
		cmocka_unit_test(known_line),
		cmocka_unit_test(known_step),
		cmocka_unit_test(baseline_gate),
		cmocka_unit_test(broken_cases),
		cmocka_unit_test(calibrate_from_case),
	};

	return cmocka_run_group_tests_name("validate", tests, setup, teardown);
}
