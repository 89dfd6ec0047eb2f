/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_compare.c — `cclab compare`, run as a user would: hand-written
 * result files with known times (so every error percentage is known
 * exactly), each way a file or an argument can be wrong, --max-error,
 * --csv, and a real pair of `cclab sim` runs with their traces.
 *
 * The binary's path comes from $CCLAB (tests/run.sh sets it); without it
 * every test here is skipped. */
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/files.h"
#include "tests/run_cclab.h"

static int setup(void **state)
{
	(void)state;
	return run_cclab_begin("compare");
}

static int teardown(void **state)
{
	(void)state;
	return run_cclab_end();
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* One size entry; strings are JSON values as written ("null" allowed). */
struct sz {
	unsigned long bytes;
	const char *time, *busbw, *wrong, *status;
};

/* A result file of allreduce/float/sum unless the caller changes
 * collective, nranks or transport; it has keys compare does not know, at
 * the top and in each size, which it must ignore.  Returns its path in
 * tmpdir (a static buffer per slot). */
static const char *result_file(const char *name, const char *collective, unsigned nranks,
			       const char *transport, const struct sz *s, int n)
{
	static char paths[4][128];
	static int slot;
	char *path = paths[slot++ % 4];
	FILE *f;

	snprintf(path, sizeof(paths[0]), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "{\n  \"cclab_version\": \"0.1.0\",\n  \"command\": \"sim\",\n"
		   "  \"executor\": \"sim\",\n  \"collective\": \"%s\",\n  \"transport\": \"%s\",\n"
		   "  \"nranks\": %u,\n  \"dtype\": \"float\",\n  \"redop\": \"sum\",\n"
		   "  \"chunk_bytes\": 2097152,\n  \"slot_bytes\": 524288,\n  \"nslots\": 8,\n"
		   "  \"memory\": \"gpu\",\n  \"fabric\": {\"name\": \"fab-%s\", \"link.mtu_bytes\": 4096},\n"
		   "  \"future_key\": {\"nested\": [1, 2.5e3, {\"x\": null}]},\n  \"sizes\": [\n",
		collective, transport, nranks, name);
	for (int i = 0; i < n; i++)
		fprintf(f, "    {\"bytes\": %lu, \"count\": %lu, \"dtype\": \"float\", \"redop\": \"sum\", "
			   "\"time_us\": %s, \"algbw_gbps\": null, \"busbw_gbps\": %s, \"wrong\": %s, "
			   "\"status\": \"%s\", \"per_rank_future\": [1, 2]}%s\n",
			s[i].bytes, s[i].bytes / 4, s[i].time, s[i].busbw, s[i].wrong,
			s[i].status ? s[i].status : "ok", i + 1 < n ? "," : "");
	fprintf(f, "  ],\n  \"ok\": true\n}\n");
	assert_int_equal(fclose(f), 0);
	return path;
}

static const struct sz meas3[] = {
	{1024, "100", "1.5", "0", NULL},
	{2048, "200", "2.25", "0", NULL},
	{4096, "12.5", "3", "null", NULL},
};
static const struct sz pred3[] = {
	{1024, "110", "1.25", "0", NULL},
	{2048, "1.8e2", "2.5", "0", NULL},
	{4096, "13.75", "2.75", "0", NULL},
};

static const char *meas_file(void)
{
	return result_file("m.json", "allreduce", 4, "write_imm", meas3, 3);
}

static const char *pred_file(void)
{
	return result_file("p.json", "allreduce", 4, "write_imm", pred3, 3);
}

static void test_help(void **state)
{
	(void)state;
	need_cclab();
	struct run r = run_cclab("compare --help");

	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "Usage: cclab compare MEASURED.json PREDICTED.json"));
	assert_non_null(strstr(r.out, "--max-error"));
	assert_non_null(strstr(r.out, "--trace-measured"));
	run_free(&r);
	r = run_cclab("help");
	assert_non_null(strstr(r.out, "\n  compare "));
	run_free(&r);
	r = run_cclab("help compare");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "--csv FILE"));
	run_free(&r);
}

/* 100 -> 110 us is +10 %, 200 -> 180 is -10 %, 12.5 -> 13.75 is +10 %. */
static void test_known_errors(void **state)
{
	(void)state;
	need_cclab();
	const char *m = meas_file(), *p = pred_file();
	struct run r = run_cclab("compare %s %s", m, p);

	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	assert_non_null(strstr(r.out, "# cclab compare: measured sim (fab-m.json) vs predicted "
				      "sim (fab-p.json)\n"));
	assert_non_null(strstr(r.out, "# collective allreduce  nranks 4  dtype float  redop sum\n"));
	assert_non_null(strstr(r.out, "\n        1024           256     float     sum      100.00"
				      "      110.00    +10.00        1.50        1.25       0\n"));
	assert_non_null(strstr(r.out, "\n        2048           512     float     sum      200.00"
				      "      180.00    -10.00        2.25        2.50       0\n"));
	/* #wrong is the measured one: null there is N/A. */
	assert_non_null(strstr(r.out, "\n        4096          1024     float     sum       12.50"
				      "       13.75    +10.00        3.00        2.75     N/A\n"));
	assert_non_null(strstr(r.out, "# mean |error|: 10.00 % over 3 sizes\n"));
	assert_non_null(strstr(r.out, "# largest |error|: 10.00 % at 1024 bytes\n"));
	assert_null(strstr(r.out, "beyond"));
	assert_int_equal(count_rows(r.out), 3);
	run_free(&r);
}

/* The largest sizes as lines: times of exactly 50 us + 40 GB/s of algbw
 * measured and 20 us + 80 GB/s predicted (busbw x 1.5 on 4 ranks) at 1 to
 * 4 MiB; 64 KiB, beyond 4x of the largest, is left out of the line (its
 * times would bend it).  Times that fall with size draw no line. */
static void test_line(void **state)
{
	static const struct sz m[] = {
		{65536, "1000", "0.1", "0", NULL}, {1048576, "76.2144", "1", "0", NULL},
		{2097152, "102.4288", "1", "0", NULL}, {4194304, "154.8576", "1", "0", NULL},
	};
	static const struct sz p[] = {
		{65536, "900", "0.1", "0", NULL}, {1048576, "33.1072", "1", "0", NULL},
		{2097152, "46.2144", "1", "0", NULL}, {4194304, "72.4288", "1", "0", NULL},
	};
	struct run r;

	(void)state;
	need_cclab();
	r = run_cclab("compare %s %s", result_file("lm.json", "allreduce", 4, "write_imm", m, 4),
		      result_file("lp.json", "allreduce", 4, "write_imm", p, 4));
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "# largest sizes as a line, time = fixed + size / rate (3 sizes "
				      "within 4x of 4194304 bytes): measured 50.0 us + 60.0 GB/s "
				      "busbw, predicted 20.0 us + 120.0 GB/s (predicted - measured: "
				      "fixed -30.0 us, rate +100.0 %)\n"));
	run_free(&r);
	r = run_cclab("compare %s %s", meas_file(), pred_file());
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.out, "as a line"));
	run_free(&r);
}

/* A time that is null, and a run that did not complete: N/A, not counted. */
static void test_na(void **state)
{
	(void)state;
	need_cclab();
	const struct sz ms[] = {{64, "null", "null", "null", "deadlock"}, {128, "50", "1", "0", NULL},
				{256, "40", "1", "0", "completion_error"}};
	const struct sz ps[] = {{64, "10", "1", "0", NULL}, {128, "45", "1", "0", NULL},
				{256, "40", "1", "0", NULL}};
	const char *m = result_file("m.json", "allreduce", 4, "write_imm", ms, 3);
	const char *p = result_file("p.json", "allreduce", 4, "write_imm", ps, 3);
	struct run r = run_cclab("compare %s %s --max-error 1", m, p);

	/* Only 128 has an error, -10 %, beyond 1 %. */
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.out, "\n          64            16     float     sum         N/A"
				      "       10.00       N/A         N/A        1.00     N/A\n"));
	assert_non_null(strstr(r.out, "\n         128            32     float     sum       50.00"
				      "       45.00    -10.00        1.00        1.00       0\n"));
	assert_non_null(strstr(r.out, "\n         256            64     float     sum       40.00"
				      "       40.00       N/A"));
	assert_non_null(strstr(r.out, "# mean |error|: 10.00 % over 1 sizes\n"));
	assert_non_null(strstr(r.out, "# sizes without an error (a time unknown, or a run not ok): 2\n"));
	assert_non_null(strstr(r.out, "# sizes beyond \xc2\xb1" "1 %: 1\n"));
	assert_non_null(strstr(r.err, "64 bytes: the measured run's status is deadlock"));
	assert_non_null(strstr(r.err, "256 bytes: the measured run's status is completion_error"));
	run_free(&r);
}

/* A verbs file's min..max over iterations and a sim file's lower bound,
 * used when present; the verbs file names its device. */
static void test_verbs_extras(void **state)
{
	char mv[160], ps[160];

	(void)state;
	need_cclab();
	snprintf(mv, sizeof(mv), "%s/verbs.json", tmpdir);
	snprintf(ps, sizeof(ps), "%s/bound.json", tmpdir);
	write_text(mv, "{\"command\": \"run\", \"executor\": \"verbs\", \"collective\": \"allreduce\",\n"
		       " \"transport\": \"write_imm\", \"nranks\": 2, \"dtype\": \"float\", \"redop\": \"sum\",\n"
		       " \"chunk_bytes\": 2097152, \"slot_bytes\": 524288, \"nslots\": 8,\n"
		       " \"memory\": \"host\", \"device\": \"mlx5_0\", \"sizes\": [\n"
		       "  {\"bytes\": 1024, \"count\": 256, \"dtype\": \"float\", \"redop\": \"sum\",\n"
		       "   \"time_us\": 100, \"busbw_gbps\": 1, \"time_min_us\": 90, \"time_max_us\": 120,\n"
		       "   \"wrong\": 0, \"status\": \"ok\"},\n"
		       "  {\"bytes\": 2048, \"count\": 512, \"dtype\": \"float\", \"redop\": \"sum\",\n"
		       "   \"time_us\": 200, \"busbw_gbps\": 1, \"time_min_us\": 190, \"time_max_us\": 195,\n"
		       "   \"wrong\": 0, \"status\": \"ok\"}]}\n");
	write_text(ps, "{\"command\": \"sim\", \"executor\": \"sim\", \"collective\": \"allreduce\",\n"
		       " \"transport\": \"write_imm\", \"nranks\": 2, \"dtype\": \"float\", \"redop\": \"sum\",\n"
		       " \"chunk_bytes\": 2097152, \"slot_bytes\": 524288, \"nslots\": 8,\n"
		       " \"memory\": \"gpu\", \"fabric\": {\"name\": \"roce-100g\"}, \"sizes\": [\n"
		       "  {\"bytes\": 1024, \"count\": 256, \"dtype\": \"float\", \"redop\": \"sum\",\n"
		       "   \"time_us\": 110, \"busbw_gbps\": 1, \"bound_us\": 95, \"wrong\": 0, \"status\": \"ok\"},\n"
		       "  {\"bytes\": 2048, \"count\": 512, \"dtype\": \"float\", \"redop\": \"sum\",\n"
		       "   \"time_us\": 180, \"busbw_gbps\": 1, \"bound_us\": 210, \"wrong\": 0, \"status\": \"ok\"}]}\n");
	struct run r = run_cclab("compare %s %s", mv, ps);

	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "# cclab compare: measured verbs (mlx5_0) vs predicted sim "
				      "(roce-100g)\n"));
	assert_non_null(strstr(r.out, "# collective allreduce  nranks 2  dtype float  redop sum\n"));
	assert_non_null(strstr(r.out, "# predicted within the measured min..max: 1 of 2 sizes\n"));
	assert_non_null(strstr(r.out, "# measured below the predicted lower bound: 1 of 2 sizes (the "
				      "fabric's latencies or rate are off for this machine: cclab "
				      "calibrate)\n"));
	assert_string_equal(r.err, "cclab compare: memory differs: measured host, predicted gpu\n");
	run_free(&r);
}

static void test_mismatch(void **state)
{
	char m[160]; /* result_file() reuses its four paths */

	(void)state;
	need_cclab();
	snprintf(m, sizeof(m), "%s", meas_file());
	const char *p = result_file("ag.json", "allgather", 4, "write_imm", pred3, 3);
	struct run r = run_cclab("compare %s %s", m, p);

	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "collective differs: measured allreduce ("));
	assert_non_null(strstr(r.err, "m.json), predicted allgather ("));
	assert_non_null(strstr(r.err, "ag.json)"));
	run_free(&r);

	p = result_file("n8.json", "allreduce", 8, "write_imm", pred3, 3);
	r = run_cclab("compare %s %s", m, p);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "nranks differs: measured 4 ("));
	run_free(&r);

	/* issue 23: an 8-rank allgather beside a 4-rank allreduce.  Every key
	 * that differs is named, with both sides, and nothing is printed. */
	p = result_file("ag8.json", "allgather", 8, "write_imm", pred3, 3);
	r = run_cclab("compare %s %s", p, m);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "cclab compare: collective differs: measured allgather ("));
	assert_non_null(strstr(r.err, "ag8.json), predicted allreduce ("));
	assert_non_null(strstr(r.err, "cclab compare: nranks differs: measured 8 ("));
	assert_non_null(strstr(r.err, "ag8.json), predicted 4 ("));
	assert_non_null(strstr(r.err, "\ncclab compare: only runs of the same collective, nranks, "
				      "dtype and redop compare\n"));
	run_free(&r);

	/* A transport that differs is worth a warning, not a refusal. */
	p = result_file("sr.json", "allreduce", 4, "send_recv", pred3, 3);
	r = run_cclab("compare %s %s", m, p);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "compare: transport differs: measured write_imm, "
				      "predicted send_recv\n"));
	assert_int_equal(count_rows(r.out), 3);
	run_free(&r);
}

/* Exit 2 and a message that matches `pattern` (extended regex). */
static void expect_refused(const char *args_fmt, const char *a, const char *b, const char *pattern)
{
	regex_t re;
	struct run r = run_cclab(args_fmt, a, b);

	assert_int_equal(regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB), 0);
	if (r.status != 2 || regexec(&re, r.err, 0, NULL, 0))
		fail_msg("compare %s %s: status %d, stderr '%s', wanted /%s/", a, b, r.status,
			 r.err, pattern);
	assert_string_equal(r.out, "");
	regfree(&re);
	run_free(&r);
}

static void test_bad_files(void **state)
{
	char bad[160], notres[160], arr[160], badnum[160], badtype[160], dup[160];

	(void)state;
	need_cclab();
	const char *m = meas_file();

	snprintf(bad, sizeof(bad), "%s/bad.json", tmpdir);
	write_text(bad, "{\"command\": \"sim\",\n  \"sizes\": [1, 2\n}\n");
	expect_refused("compare %s %s", bad, m, "bad\\.json:3:1: JSON syntax error: '\\]' expected "
		       "near '\\}'\n$");
	expect_refused("compare %s %s", m, bad, "bad\\.json:3:1: ");

	snprintf(notres, sizeof(notres), "%s/other.json", tmpdir);
	write_text(notres, "{\"name\": \"not a result\", \"list\": [1, 2]}\n");
	expect_refused("compare %s %s", m, notres, "other\\.json:1:1: this is not a result file of "
		       "cclab \\(no 'command' key");

	snprintf(arr, sizeof(arr), "%s/arr.json", tmpdir);
	write_text(arr, "[1, 2, 3]\n");
	expect_refused("compare %s %s", arr, m, "arr\\.json:1:1: this is not a result file of cclab "
		       "\\(a list, where a --json file holds an object\\)");

	/* A time that is not a number, at its line and column. */
	snprintf(badnum, sizeof(badnum), "%s/badnum.json", tmpdir);
	write_text(badnum, "{\"command\": \"sim\", \"executor\": \"sim\", \"collective\": \"allreduce\",\n"
			   " \"sizes\": [{\"bytes\": 8, \"count\": 2, \"dtype\": \"float\",\n"
			   "   \"redop\": \"sum\", \"time_us\": \"fast\", \"busbw_gbps\": 1,\n"
			   "   \"wrong\": 0, \"status\": \"ok\"}]}\n");
	expect_refused("compare %s %s", m, badnum, "badnum\\.json:3:31: 'time_us': expected a number");

	/* nan is not JSON, and nranks must be a whole number. */
	snprintf(badtype, sizeof(badtype), "%s/badtype.json", tmpdir);
	write_text(badtype, "{\"sizes\": [{\"bytes\": 8, \"count\": 2, \"dtype\": \"float\", "
			    "\"redop\": \"sum\", \"time_us\": nan, \"busbw_gbps\": 1, \"wrong\": 0, "
			    "\"status\": \"ok\"}]}\n");
	expect_refused("compare %s %s", badtype, m, "badtype\\.json:1:[0-9]+: 'time_us'");
	write_text(badtype, "{\"command\": \"sim\", \"executor\": \"sim\", \"collective\": \"allreduce\","
			    " \"transport\": \"write_imm\", \"nranks\": \"four\", \"dtype\": \"float\","
			    " \"redop\": \"sum\", \"memory\": \"gpu\", \"sizes\": [{\"bytes\": 8, "
			    "\"count\": 2, \"dtype\": \"float\", \"redop\": \"sum\", \"time_us\": 1, "
			    "\"busbw_gbps\": 1, \"wrong\": 0, \"status\": \"ok\"}]}\n");
	expect_refused("compare %s %s", badtype, m, "badtype\\.json:1:[0-9]+: .*nranks");

	snprintf(dup, sizeof(dup), "%s/dup.json", tmpdir);
	const struct sz twice[] = {{64, "1", "1", "0", NULL}, {64, "2", "1", "0", NULL}};
	result_file("dup.json", "allreduce", 4, "write_imm", twice, 2);
	expect_refused("compare %s %s", m, dup, "dup\\.json:[0-9]+:[0-9]+: size 64 bytes appears twice");

	expect_refused("compare %s %s", m, "/nonexistent/x.json", "x\\.json: cannot read: No such file");
}

/* path's text with the first `from` replaced by `to`, written to
 * tmpdir/name; returns that path (a static buffer per slot). */
static const char *edited(const char *path, const char *name, const char *from, const char *to)
{
	static char paths[4][160];
	static int slot;
	char *out = paths[slot++ % 4], *text = text_of(path), *at = strstr(text, from);
	FILE *f;

	assert_non_null(at);
	snprintf(out, sizeof(paths[0]), "%s/%s", tmpdir, name);
	f = fopen(out, "w");
	assert_non_null(f);
	fprintf(f, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	assert_int_equal(fclose(f), 0);
	free(text);
	return out;
}

/* The files are read as JSON, not as YAML 1.1, which calls the surrogate
 * pair Python's json.dump writes for U+1F600 a syntax error; a key given
 * twice is refused, as no one can say which value was meant. */
static void test_json_not_yaml(void **state)
{
	(void)state;
	need_cclab();
	const char *m = meas_file(), *p = pred_file(), *bad;
	struct run r;

	bad = edited(p, "emoji.json", "\"name\": \"fab-p.json\"",
		     "\"name\": \"fab-\\ud83d\\ude00\"");
	r = run_cclab("compare %s %s", m, bad);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "# cclab compare: measured sim (fab-m.json) vs predicted "
				      "sim (fab-\xF0\x9F\x98\x80)\n"));
	run_free(&r);
	bad = edited(p, "dupkey.json", "\"nslots\": 8", "\"nslots\": 8, \"nslots\": 9");
	expect_refused("compare %s %s", m, bad, "dupkey\\.json:12:16: duplicate key \"nslots\" in "
		       "an object; expected each key once\n$");
}

/* issue 23: a time of -5 us passed --max-error as a 100 %+ speed-up, and 0
 * made every error N/A.  Times and rates no run produces are an input
 * error at their line and column, exit 2, nothing printed. */
static void test_bad_times(void **state)
{
	(void)state;
	need_cclab();
	const char *m = meas_file(), *p = pred_file(), *bad;

	/* The first size entry is line 17; its time_us value at column 80. */
	bad = edited(p, "neg.json", "\"time_us\": 110", "\"time_us\": -5");
	expect_refused("compare %s %s --max-error 10", m, bad,
		       "^cclab compare: [^ ]*/neg\\.json:17:80: 'time_us' is -5: a size whose status "
		       "is ok took more than 0 us\n$");
	bad = edited(m, "zero.json", "\"time_us\": 100", "\"time_us\": 0");
	expect_refused("compare %s %s", bad, p, "zero\\.json:17:80: 'time_us' is 0: a size whose "
		       "status is ok took more than 0 us");
	bad = edited(m, "huge.json", "\"time_us\": 100", "\"time_us\": 1e999");
	expect_refused("compare %s %s", bad, p, "huge\\.json:17:80: 'time_us': the number '1e999' "
		       "is out of range");
	bad = edited(m, "bw.json", "\"busbw_gbps\": 1.5", "\"busbw_gbps\": -1.5");
	expect_refused("compare %s %s", bad, p, "bw\\.json:17:[0-9]+: 'busbw_gbps' is -1.5: a "
		       "bandwidth cannot be negative");

	/* A size that did not complete: `cclab sim` writes 0 (where it
	 * stopped), which is not compared; a negative time is still refused. */
	const struct sz ms[] = {{64, "0", "null", "null", "completion_error"},
				{128, "50", "1", "0", NULL}};
	const struct sz ps[] = {{64, "10", "1", "0", NULL}, {128, "45", "1", "0", NULL}};
	const char *mf = result_file("mf.json", "allreduce", 4, "write_imm", ms, 2);
	const char *pf = result_file("pf.json", "allreduce", 4, "write_imm", ps, 2);
	struct run r = run_cclab("compare %s %s", mf, pf);

	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\n          64            16     float     sum        0.00"
				      "       10.00       N/A"));
	assert_non_null(strstr(r.out, "# mean |error|: 10.00 % over 1 sizes\n"));
	run_free(&r);
	bad = edited(mf, "negfail.json", "\"time_us\": 0", "\"time_us\": -1");
	expect_refused("compare %s %s", bad, pf, "negfail\\.json:17:77: 'time_us' is -1: a time "
		       "cannot be negative");

	/* A verbs file's spread: positive, and min <= max. */
	char mv[160];
	snprintf(mv, sizeof(mv), "%s/spread.json", tmpdir);
	write_text(mv, "{\"command\": \"run\", \"executor\": \"verbs\", \"collective\": \"allreduce\",\n"
		       " \"transport\": \"write_imm\", \"nranks\": 4, \"dtype\": \"float\", \"redop\": \"sum\",\n"
		       " \"chunk_bytes\": 2097152, \"slot_bytes\": 524288, \"nslots\": 8,\n"
		       " \"memory\": \"host\", \"device\": \"mlx5_0\", \"sizes\": [\n"
		       "  {\"bytes\": 1024, \"count\": 256, \"dtype\": \"float\", \"redop\": \"sum\",\n"
		       "   \"time_us\": 100, \"busbw_gbps\": 1, \"time_min_us\": 130, \"time_max_us\": 120,\n"
		       "   \"wrong\": 0, \"status\": \"ok\"}]}\n");
	expect_refused("compare %s %s", mv, p, "spread\\.json:6:52: 'time_min_us' \\(130\\) is above "
		       "'time_max_us' \\(120\\)");
	bad = edited(mv, "spread0.json", "\"time_min_us\": 130", "\"time_min_us\": 0");
	expect_refused("compare %s %s", bad, p, "spread0\\.json:6:52: 'time_min_us' is 0: an "
		       "iteration takes more than 0 us");

	/* A size whose type or operator is not the file's would be mislabelled. */
	bad = edited(m, "mixed.json", "\"dtype\": \"float\", \"redop\": \"sum\", \"time_us\": 200",
		     "\"dtype\": \"half\", \"redop\": \"sum\", \"time_us\": 200");
	expect_refused("compare %s %s", bad, p, "mixed\\.json:18:5: size 2048 bytes is half/sum, "
		       "but the file's dtype/redop are float/sum");
}

/* issue 23: --max-error passed (exit 0) when every size was N/A: it had
 * compared nothing. */
static void test_nothing_compared(void **state)
{
	(void)state;
	need_cclab();
	const struct sz ms[] = {{64, "null", "null", "null", "deadlock"},
				{128, "null", "null", "null", "deadlock"}};
	const struct sz ps[] = {{64, "10", "1", "0", NULL}, {128, "20", "1", "0", NULL}};
	const char *m = result_file("m.json", "allreduce", 4, "write_imm", ms, 2);
	const char *p = result_file("p.json", "allreduce", 4, "write_imm", ps, 2);
	struct run r = run_cclab("compare %s %s --max-error 10", m, p);

	assert_int_equal(r.status, 1);
	assert_int_equal(count_rows(r.out), 2);
	assert_non_null(strstr(r.out, "# mean |error|: N/A over 0 sizes\n"));
	assert_non_null(strstr(r.out, "# sizes beyond \xc2\xb1" "10 %: 0\n"));
	assert_non_null(strstr(r.err, "cclab compare: nothing was compared: no size has an error "
				      "(each is N/A: a time unknown, or a run whose status is not "
				      "ok); --max-error checked nothing\n"));
	run_free(&r);
	r = run_cclab("compare %s %s", m, p);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "cclab compare: nothing was compared: "));
	assert_null(strstr(r.err, "--max-error"));
	run_free(&r);
}

/* A trace event of a rank the run does not have (issue 23: rank 99999 in
 * a 4-rank run was averaged in). */
static void test_trace_rank(void **state)
{
	char tr[160], bad[160];

	(void)state;
	need_cclab();
	const char *m = meas_file(), *p = pred_file();
	snprintf(tr, sizeof(tr), "%s/t.csv", tmpdir);
	snprintf(bad, sizeof(bad), "%s/rank.csv", tmpdir);
	write_text(tr, "t_ps,dur_ps,kind,rank,track,qp,wr_id,bytes,op,prim,channel,chunk,step,slice\n"
		       "0,50000,post,3,cpu,1,0,0,0,-,0,0,0,0\n"
		       "60000,0,cqe,3,nic,1,0,0,0,-,0,0,0,0\n");
	write_text(bad, "t_ps,dur_ps,kind,rank,track,qp,wr_id,bytes,op,prim,channel,chunk,step,slice\n"
			"0,50000,post,0,cpu,1,0,0,0,-,0,0,0,0\n"
			"60000,0,cqe,99999,nic,1,0,0,0,-,0,0,0,0\n");
	struct run r = run_cclab("compare %s %s --trace-measured %s --trace-predicted %s", m, p, tr,
				 bad);

	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "rank.csv:3: column 'rank': 99999 is not a rank of this run "
				      "(the result files say 4 ranks: 0..3)\n"));
	run_free(&r);
	/* Rank 3 of 4 is one. */
	r = run_cclab("compare %s %s --trace-measured %s --trace-predicted %s", m, p, tr, tr);
	assert_int_equal(r.status, 0);
	run_free(&r);
}

/* Another command's file is named for what it is, at its 'command'. */
static void test_other_kinds(void **state)
{
	char path[160];
	struct run r;

	(void)state;
	need_cclab();
	const char *m = meas_file();

	snprintf(path, sizeof(path), "%s/p2p.json", tmpdir);
	r = run_cclab("p2p --op write --mode lat -n 20 --json %s", path);
	assert_int_equal(r.status, 0);
	run_free(&r);
	expect_refused("compare %s %s", m, path, "p2p\\.json:3:14: this is a `cclab p2p --json` "
		       "result \\(write lat, point-to-point\\), not a collective's: compare reads the "
		       "--json of `cclab sim` or `cclab run` \\(`cclab calibrate` fits p2p results\\)");

	snprintf(path, sizeof(path), "%s/chk.json", tmpdir);
	r = run_cclab("check -n 4 -b 1K -e 1K --json %s", path);
	assert_int_equal(r.status, 0);
	run_free(&r);
	expect_refused("compare %s %s", path, m, "chk\\.json:3:14: this is a `cclab check --json` "
		       "result of the data executor \\(allreduce, 4 ranks\\), which models no time: "
		       "there is nothing to compare");

	static const struct {
		const char *text, *pattern;
	} other[] = {
		{"{\"cclab_version\": \"0.1.0\", \"command\": \"tune\", \"sizes\": []}\n",
		 "x\\.json:1:39: this is a `cclab tune --json` table \\(the fastest algorithm, "
		 "protocol and transport per size\\), not one run's result"},
		{"{\"cclab_version\": \"0.1.0\", \"command\": \"calibrate\", \"points\": []}\n",
		 "x\\.json:1:39: this is a `cclab calibrate --json` fit, not a run's result"},
		{"{\"command\": \"frob\\u0007\", \"sizes\": []}\n",
		 "x\\.json:1:13: this is a file whose 'command' is 'frob\\?', which no command of "
		 "cclab writes"},
		{"t_ps,dur_ps,kind,rank,track,qp,wr_id,bytes,op,prim,channel,chunk,step,slice\n"
		 "0,50000,post,0,cpu,1,0,0,0,-,0,0,0,0\n",
		 "x\\.json:1:1: this is a trace CSV \\(--trace FILE.csv\\), not a --json result"},
		{"size_bytes,count,measured_us,predicted_us,error_pct,measured_busbw_gbps,"
		 "predicted_busbw_gbps,wrong\n1024,256,1,1,0,1,1,0\n",
		 "x\\.json:1:1: this is a `cclab compare --csv` table, not a --json result"},
		{"topology: {generator: star, ranks: 2}\nsizes: 64KiB\n",
		 "x\\.json:1:1: this is a scenario file, not a --json result"},
		{"preset: roce-100g\nname: mine\n", "x\\.json:1:1: this is a fabric file"},
	};
	snprintf(path, sizeof(path), "%s/x.json", tmpdir);
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		write_text(path, other[i].text);
		expect_refused("compare %s %s", m, path, other[i].pattern);
	}
}

/* The set-up keys that may differ are warned about, each on its line; the
 * ones that may not (dtype here) refuse, naming both sides. */
static void test_setup_differs(void **state)
{
	char a[160], b[160], c[160];
	struct run r;

	(void)state;
	need_cclab();
	snprintf(a, sizeof(a), "%s/ring.json", tmpdir);
	snprintf(b, sizeof(b), "%s/hd.json", tmpdir);
	snprintf(c, sizeof(c), "%s/half.json", tmpdir);
	r = run_cclab("sim -n 4 -b 64K --check 0 --json %s", a);
	assert_int_equal(r.status, 0);
	run_free(&r);
	r = run_cclab("sim -n 4 -b 64K --check 0 -A halving-doubling -P ll --json %s", b);
	assert_int_equal(r.status, 0);
	run_free(&r);
	r = run_cclab("compare %s %s", a, b);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "cclab compare: algorithm differs: measured ring, predicted "
				      "halving-doubling\n"));
	assert_non_null(strstr(r.err, "cclab compare: protocol differs: measured simple, predicted "
				      "ll\n"));
	assert_int_equal(count_rows(r.out), 1);
	run_free(&r);
	r = run_cclab("sim -n 4 -b 64K --check 0 -d half --json %s", c);
	assert_int_equal(r.status, 0);
	run_free(&r);
	expect_refused("compare %s %s", a, c, "dtype differs: measured float \\([^)]*ring\\.json\\), "
		       "predicted half \\([^)]*half\\.json\\)\n");
}

static void test_usage(void **state)
{
	(void)state;
	need_cclab();
	const char *m = meas_file(), *p = pred_file();

	expect_refused("compare %s%s", m, "", "expected two result files");
	expect_refused("compare %s %s --trace-measured x.csv", m, p,
		       "--trace-measured needs its partner");
	expect_refused("compare %s %s --trace-predicted x.csv", m, p,
		       "--trace-predicted needs its partner");
	expect_refused("compare %s %s --max-error ten", m, p, "--max-error: 'ten' is not a percentage");
	expect_refused("compare %s %s --frobnicate", m, p, "unknown option '--frobnicate'");
	expect_refused("compare %s %s extra.json", m, p, "unexpected argument 'extra.json'");
}

static void test_one_side_sizes(void **state)
{
	(void)state;
	need_cclab();
	const struct sz ms[] = {{512, "5", "1", "0", NULL}, {1024, "100", "1", "0", NULL},
				{2048, "200", "1", "0", NULL}};
	const struct sz ps[] = {{1024, "110", "1", "0", NULL}, {2048, "210", "1", "0", NULL},
				{8192, "1", "1", "0", NULL}};
	const char *m = result_file("m.json", "allreduce", 4, "write_imm", ms, 3);
	const char *p = result_file("p.json", "allreduce", 4, "write_imm", ps, 3);
	struct run r = run_cclab("compare %s %s", m, p);

	assert_int_equal(r.status, 0);
	assert_int_equal(count_rows(r.out), 2);
	assert_string_equal(r.err, "cclab compare: sizes in one file only, skipped: 512 "
				   "(measured only), 8192 (predicted only)\n");
	assert_non_null(strstr(r.out, "# mean |error|: 7.50 % over 2 sizes\n"));
	run_free(&r);

	/* Nothing in common: nothing to compare. */
	const struct sz other[] = {{16, "1", "1", "0", NULL}};
	p = result_file("p.json", "allreduce", 4, "write_imm", other, 1);
	expect_refused("compare %s %s", m, p, "no size in common between");
}

static void test_max_error(void **state)
{
	(void)state;
	need_cclab();
	const char *m = meas_file(), *p = pred_file();
	/* The +10 % errors are 10.000000000000002 in binary: a bound of
	 * exactly 10 would be a coin toss, so the passing one is 10.001. */
	struct run r = run_cclab("compare %s %s --max-error 10.001", m, p);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "# sizes beyond \xc2\xb1" "10.001 %: 0\n"));
	run_free(&r);

	r = run_cclab("compare %s %s --max-error=9.5", m, p);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.out, "# sizes beyond \xc2\xb1" "9.5 %: 3\n"));
	run_free(&r);
}

static void test_csv(void **state)
{
	char csv[160];

	(void)state;
	need_cclab();
	const char *m = meas_file(), *p = pred_file();
	snprintf(csv, sizeof(csv), "%s/out.csv", tmpdir);
	struct run r = run_cclab("compare %s %s --csv %s", m, p, csv);

	assert_int_equal(r.status, 0);
	run_free(&r);
	char *text = text_of(csv);
	assert_string_equal(text,
		"size_bytes,count,measured_us,predicted_us,error_pct,measured_busbw_gbps,"
		"predicted_busbw_gbps,wrong\n"
		"1024,256,100.000000,110.000000,10.0000,1.500000,1.250000,0\n"
		"2048,512,200.000000,180.000000,-10.0000,2.250000,2.500000,0\n"
		"4096,1024,12.500000,13.750000,10.0000,3.000000,2.750000,N/A\n");
	free(text);

	/* A path that cannot be written fails before any table. */
	r = run_cclab("compare %s %s --csv /nonexistent/dir/out.csv", m, p);
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "cannot write '/nonexistent/dir/out.csv'"));
	run_free(&r);
}

/* The rows of the table that starts after the comment line `caption`. */
static int rows_after(const char *text, const char *caption)
{
	const char *p = strstr(text, caption);
	int n = 0;

	assert_non_null(p);
	p = strchr(p, '\n');
	while (p && (p = strchr(p, '\n')) && *++p) {
		if (*p == '#') {
			if (n)
				break; /* the comment after the rows */
			continue;  /* the column heads */
		}
		n++;
	}
	return n;
}

static void test_bad_trace(void **state)
{
	char tr[160], bad[160];

	(void)state;
	need_cclab();
	const char *m = meas_file(), *p = pred_file();
	snprintf(tr, sizeof(tr), "%s/t.csv", tmpdir);
	write_text(tr, "t_ps,dur_ps,kind,rank,track,qp,wr_id,bytes,op,prim,channel,chunk,step,slice\n"
		       "0,50000,post,0,cpu,1,0,0,0,-,0,0,0,0\n"
		       "60000,0,cqe,0,nic,1,0,0,0,-,0,0,0,0\n");
	snprintf(bad, sizeof(bad), "%s/bad.csv", tmpdir);
	write_text(bad, "t_ps,dur_ps,kind,rank,track,qp,wr_id,bytes,op,prim,channel,chunk,step,slice\n"
			"0,50000,post,0,cpu,1,0,0,0,-,0,0,0,0\n"
			"60000,zero,cqe,0,nic,1,0,0,0,-,0,0,0,0\n");
	struct run r = run_cclab("compare %s %s --trace-measured %s --trace-predicted %s", m, p, tr,
				 bad);

	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "bad.csv:3: column 'dur_ps': 'zero'"));
	run_free(&r);

	write_text(bad, "t_ps,dur_ps,kind,rank,track,qp,wr_id,bytes,op,prim,channel,chunk,step,slice\n");
	r = run_cclab("compare %s %s --trace-measured %s --trace-predicted %s", m, p, bad, tr);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "bad.csv: the trace holds no events"));
	run_free(&r);

	/* A JSON file given as a trace. */
	r = run_cclab("compare %s %s --trace-measured %s --trace-predicted %s", m, p, m, tr);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "m.json:1: not a trace CSV of cclab"));
	run_free(&r);
}

#define TRACE_HEAD "t_ps,dur_ps,kind,rank,track,qp,wr_id,bytes,op,prim,channel,chunk,step,slice\n"

/* Hand-made traces with known phases.  Step 0, measured: rank 0 loop 0
 * spans 0..2 us (a copy, then a reduce), rank 1 loop 0 spans 0..4 us,
 * rank 0 loop 1 (chunk 4 of 4 ranks) 20..23 us: mean 3 us; predicted
 * 3.3 us each.  post->cqe 5 vs 5.5 us, cqe->poll 0.5 vs 0.55 us, matched
 * by (rank, qp, wr_id) although the poll carries its own op index. */
static void test_trace_phases(void **state)
{
	char mt[160], pt[160];

	(void)state;
	need_cclab();
	const char *m = meas_file(), *p = pred_file();
	snprintf(mt, sizeof(mt), "%s/mt.csv", tmpdir);
	snprintf(pt, sizeof(pt), "%s/pt.csv", tmpdir);
	write_text(mt, TRACE_HEAD
		       "0,1000000,copy_begin,0,gpu,-1,0,8,1,send,0,0,0,0\n"
		       "1000000,1000000,reduce_begin,0,gpu,-1,0,8,2,send,0,0,0,0\n"
		       "0,4000000,copy_begin,1,gpu,-1,0,8,1,send,0,1,0,0\n"
		       "20000000,3000000,copy_begin,0,gpu,-1,0,8,1,send,0,4,0,0\n"
		       "10000000,0,post,0,cpu,1,5,8,3,-,0,0,0,0\n"
		       "15000000,0,cqe,0,nic,1,5,8,3,-,0,0,0,0\n"
		       "15500000,0,poll,0,cpu,1,5,8,7,-,0,0,0,0\n");
	write_text(pt, TRACE_HEAD
		       "0,3300000,copy_begin,0,gpu,-1,0,8,1,send,0,0,0,0\n"
		       "0,3300000,copy_begin,1,gpu,-1,0,8,1,send,0,1,0,0\n"
		       "20000000,3300000,copy_begin,0,gpu,-1,0,8,1,send,0,4,0,0\n"
		       "10000000,0,post,0,cpu,1,5,8,3,-,0,0,0,0\n"
		       "15500000,0,cqe,0,nic,1,5,8,3,-,0,0,0,0\n"
		       "16050000,0,poll,0,cpu,1,5,8,7,-,0,0,0,0\n");
	struct run r = run_cclab("compare %s %s --trace-measured %s --trace-predicted %s", m, p, mt,
				 pt);

	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	assert_non_null(strstr(r.out, "(each run's last: 4096 bytes)"));
	assert_int_equal(rows_after(r.out, "# per primitive step"), 1);
	assert_non_null(strstr(r.out, "\n       0  send                       3.000       3.300"
				      "    +10.00\n"));
	assert_non_null(strstr(r.out, "\n  post->cqe            1           1       5.000"
				      "       5.500    +10.00\n"));
	assert_non_null(strstr(r.out, "\n  cqe->poll            1           1       0.500"
				      "       0.550    +10.00\n"));
	assert_non_null(strstr(r.out, "\n  doorbell             0           0         N/A"
				      "         N/A       N/A\n"));
	assert_non_null(strstr(r.out, "\n  reduce               1           0       1.000"
				      "         N/A       N/A\n"));
	assert_non_null(strstr(r.out, "\n  copy                 3           3       2.667"
				      "       3.300    +23.75\n"));
	run_free(&r);
}

/* Two fabrics, as a measured and a predicted run would be, with traces. */
/* The tree's chunk is NCCL's per size when none is given: the header's
 * chunk_bytes (the unused default) agrees, each size's does not, and
 * that is what the warning names. */
static void test_tree_chunks(void **state)
{
	char a[160], b[160];

	(void)state;
	need_cclab();
	snprintf(a, sizeof(a), "%s/tree-auto.json", tmpdir);
	snprintf(b, sizeof(b), "%s/tree-2m.json", tmpdir);
	struct run r = run_cclab("sim -n 16 -A tree -b 1M --check 0 --json %s", a);

	assert_int_equal(r.status, 0);
	run_free(&r);
	r = run_cclab("sim -n 16 -A tree -b 1M --check 0 --chunk-bytes 2M --json %s", b);
	assert_int_equal(r.status, 0);
	run_free(&r);
	r = run_cclab("compare %s %s", a, b);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "cclab compare: chunk_bytes differs at 1048576 bytes: "
				   "measured 65536, predicted 2097152\n");
	run_free(&r);
	r = run_cclab("compare %s %s", a, a);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	run_free(&r);
}

static void test_real_pair(void **state)
{
	char mj[160], pj[160], mt[160], pt[160];

	(void)state;
	need_cclab();
	snprintf(mj, sizeof(mj), "%s/hdr.json", tmpdir);
	snprintf(pj, sizeof(pj), "%s/roce.json", tmpdir);
	snprintf(mt, sizeof(mt), "%s/hdr.csv", tmpdir);
	snprintf(pt, sizeof(pt), "%s/roce.csv", tmpdir);
	struct run r = run_cclab("sim -n 4 -b 64K -e 256K --fabric ib-hdr --json %s --trace %s", mj,
				 mt);
	assert_int_equal(r.status, 0);
	run_free(&r);
	r = run_cclab("sim -n 4 -b 64K -e 256K --fabric roce-100g --json %s --trace %s", pj, pt);
	assert_int_equal(r.status, 0);
	run_free(&r);

	r = run_cclab("compare %s %s --trace-measured %s --trace-predicted %s", mj, pj, mt, pt);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "measured sim (ib-hdr) vs predicted sim (roce-100g)"));
	assert_non_null(strstr(r.out, "# mean |error|: "));
	assert_non_null(strstr(r.out, "(each run's last: 262144 bytes)"));
	/* Ring allreduce over k = 4 ranks: 2k - 1 = 7 primitive steps. */
	assert_int_equal(rows_after(r.out, "# per primitive step"), 7);
	assert_non_null(strstr(r.out, "\n       0  send  "));
	assert_non_null(strstr(r.out, "\n       6  recv  "));
	assert_int_equal(rows_after(r.out, "# per mechanism"), 5);

	const char *pc = strstr(r.out, "\n  post->cqe ");
	unsigned long cm = 0, cp = 0;
	assert_non_null(pc);
	assert_int_equal(sscanf(pc, " post->cqe %lu %lu", &cm, &cp), 2);
	assert_true(cm > 0 && cp > 0);
	assert_non_null(strstr(r.out, "\n  cqe->poll "));
	run_free(&r);

	/* Each run traces its last size: traces of 256 and 128 KiB would give
	 * per-phase "errors" that are the sizes' ratio.  Refused, nothing
	 * printed. */
	r = run_cclab("sim -n 4 -b 64K -e 128K --fabric roce-100g --json %s --trace %s", pj, pt);
	assert_int_equal(r.status, 0);
	run_free(&r);
	r = run_cclab("compare %s %s --trace-measured %s --trace-predicted %s", mj, pj, mt, pt);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "the traces are of different sizes (each run traces its "
				      "last: measured 262144 bytes, predicted 131072)"));
	assert_string_equal(r.out, "");
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_known_errors),
		cmocka_unit_test(test_line),
		cmocka_unit_test(test_na),
		cmocka_unit_test(test_verbs_extras),
		cmocka_unit_test(test_mismatch),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_one_side_sizes),
		cmocka_unit_test(test_max_error),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_bad_trace),
		cmocka_unit_test(test_trace_phases),
		cmocka_unit_test(test_real_pair),
		cmocka_unit_test(test_tree_chunks),
		cmocka_unit_test(test_bad_times),
		cmocka_unit_test(test_json_not_yaml),
		cmocka_unit_test(test_nothing_compared),
		cmocka_unit_test(test_trace_rank),
		cmocka_unit_test(test_other_kinds),
		cmocka_unit_test(test_setup_differs),
	};

	return cmocka_run_group_tests_name("compare", tests, setup, teardown);
}
