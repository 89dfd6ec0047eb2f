/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_results.c — the nccl-tests table (exact text), bandwidth
 * arithmetic, the JSON writer (escaping, layout, misuse), and the atomic
 * file writer (complete or absent, never a temp file left behind). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/files.h"

#include "core/results.h"
#include "util/atomic_file.h"
#include "util/json.h"

/* ---- table ---- */

static void row_is(const struct cc_result_row *row, const char *want)
{
	char buf[256];
	int n = cc_results_format_row(buf, sizeof(buf), row);

	assert_int_equal(n, (int)strlen(want));
	assert_string_equal(buf, want);
}

static void test_row_with_time(void **state)
{
	/* 1 MiB allreduce of floats on 4 ranks in 100 us: algbw 10.48576,
	 * busbw * 2(4-1)/4 = 15.72864 (nccl-tests' AllReduceGetBw). */
	struct cc_result_row row = {
		.size = 1048576, .count = 262144, .type = "float", .redop = "sum",
		.root = -1, .time_us = 100.0, .busbw_factor = 1.5, .wrong = 0,
	};

	(void)state;
	row_is(&row, "     1048576        262144     float     sum      -1    100.0   10.49   15.73      0");
	/* Below 100 us: two decimals. */
	row.size = 8;
	row.count = 2;
	row.time_us = 12.5;
	row.wrong = 3;
	row_is(&row, "           8             2     float     sum      -1    12.50    0.00    0.00      3");
	/* From 10000 us: no decimals; #wrong is "%5g" as in nccl-tests. */
	struct cc_result_row big = {
		.size = 4294967296, .count = 1073741824, .type = "bfloat16", .redop = "none",
		.root = -1, .time_us = 12345.6, .busbw_factor = 0.75, .wrong = 1234567,
	};

	row_is(&big, "  4294967296    1073741824  bfloat16    none      -1    12346  347.89  260.92  1.23457e+06");
}

static void test_row_without_time(void **state)
{
	struct cc_result_row row = {
		.size = 1024, .count = 256, .type = "float", .redop = "sum", .root = -1,
		.time_us = CC_RESULT_NO_TIME, .busbw_factor = 1.5, .wrong = 0,
	};

	(void)state;
	row_is(&row, "        1024           256     float     sum      -1      N/A     N/A     N/A      0");
	row.time_us = 0.0; /* zero is no time either: no division by it */
	row_is(&row, "        1024           256     float     sum      -1      N/A     N/A     N/A      0");
	row.time_us = NAN;
	row.wrong = 17;
	row_is(&row, "        1024           256     float     sum      -1      N/A     N/A     N/A     17");
}

/* nccl-tests -c 0: BenchTime() prints "%5s" of "N/A" for #wrong, with or
 * without a time, and such a row counts no error. */
static void test_row_unchecked(void **state)
{
	struct cc_result_row row = {
		.size = 1048576, .count = 262144, .type = "float", .redop = "sum",
		.root = -1, .time_us = 100.0, .busbw_factor = 1.5, .unchecked = true,
	};
	struct cc_results_summary sum = {0};

	(void)state;
	row_is(&row, "     1048576        262144     float     sum      -1    100.0   10.49   15.73    N/A");
	row.time_us = CC_RESULT_NO_TIME;
	row_is(&row, "     1048576        262144     float     sum      -1      N/A     N/A     N/A    N/A");
	row.wrong = 7; /* meaningless when unchecked: neither printed nor counted */
	row_is(&row, "     1048576        262144     float     sum      -1      N/A     N/A     N/A    N/A");
	cc_results_summary_add(&sum, &row);
	assert_int_equal(sum.errors, 0);
	row.failed = true;
	cc_results_summary_add(&sum, &row);
	assert_int_equal(sum.errors, 1);
}

/* Runs fn(f) into a memory stream and returns the text (caller frees). */
static char *capture(void (*fn)(FILE *f, const void *arg), const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fn(f, arg);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void print_header(FILE *f, const void *arg)
{
	(void)arg;
	cc_results_print_header(f);
}

static void print_row(FILE *f, const void *arg)
{
	cc_results_print_row(f, arg);
}

static void print_summary(FILE *f, const void *arg)
{
	cc_results_print_summary(f, arg);
}

static void test_header(void **state)
{
	char *s = capture(print_header, NULL);

	(void)state;
	assert_string_equal(s,
		"#                                                              out-of-place\n"
		"#       size         count      type   redop    root     time   algbw   busbw #wrong\n"
		"#        (B)    (elements)                               (us)  (GB/s)  (GB/s)       \n");
	free(s);
}

static void test_print_row_long_names(void **state)
{
	char name[400];
	struct cc_result_row row = {
		.size = 1, .count = 1, .type = name, .redop = "sum", .root = -1,
		.time_us = CC_RESULT_NO_TIME,
	};

	(void)state;
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	char *s = capture(print_row, &row);

	assert_non_null(strstr(s, name));
	assert_int_equal(s[strlen(s) - 1], '\n');
	free(s);
}

static void test_summary(void **state)
{
	struct cc_results_summary sum = {0};
	struct cc_result_row ok = {
		.size = 1000000000, .count = 250000000, .type = "float", .redop = "sum",
		.root = -1, .time_us = 1e6, .busbw_factor = 1.75,
	};
	struct cc_result_row untimed = ok;
	char *s;

	(void)state;
	untimed.time_us = CC_RESULT_NO_TIME;
	cc_results_summary_add(&sum, &untimed);
	s = capture(print_summary, &sum);
	assert_string_equal(s, "# Out of bounds values : 0 OK\n"
			       "# Avg bus bandwidth    : N/A \n"
			       "#\n");
	free(s);

	/* 1e9 B in 1 s = 1 GB/s algbw; busbw 1.75 (8-rank allreduce). */
	cc_results_summary_add(&sum, &ok);
	ok.time_us = 2e6; /* busbw 0.875; average (1.75 + 0.875) / 2 */
	ok.wrong = 5;
	cc_results_summary_add(&sum, &ok);
	untimed.failed = true;
	cc_results_summary_add(&sum, &untimed);
	assert_int_equal(sum.errors, 2);
	assert_int_equal(sum.bw_count, 2);
	s = capture(print_summary, &sum);
	assert_string_equal(s, "# Out of bounds values : 2 FAILED\n"
			       "# Avg bus bandwidth    : 1.3125 \n"
			       "#\n");
	free(s);
}

static void test_bw(void **state)
{
	double alg = -1, bus = -1;

	(void)state;
	assert_true(cc_result_bw(1000000000, 1e6, 1.75, &alg, &bus));
	assert_true(fabs(alg - 1.0) < 1e-12);
	assert_true(fabs(bus - 1.75) < 1e-12);
	/* reduce-scatter on 4 ranks: factor (n-1)/n. */
	assert_true(cc_result_bw(4096, 1.0, 0.75, &alg, &bus));
	assert_true(fabs(alg - 4.096) < 1e-12);
	assert_true(fabs(bus - 3.072) < 1e-12);
	alg = bus = -1;
	assert_false(cc_result_bw(4096, CC_RESULT_NO_TIME, 0.75, &alg, &bus));
	assert_false(cc_result_bw(4096, 0.0, 0.75, &alg, &bus));
	assert_false(cc_result_bw(4096, NAN, 0.75, &alg, &bus));
	assert_false(cc_result_bw(4096, INFINITY, 0.75, &alg, &bus));
	assert_true(alg == -1 && bus == -1);
}

/* The line through exact points is the line: 150 us + 400 GB/s of algbw
 * (4e5 B/us), busbw 1.875 x that; noise around it averages out; and the
 * refusals leave the outputs as they were. */
static void test_line(void **state)
{
	const uint64_t mib = 1u << 20, s[4] = { 128 * mib, 256 * mib, 512 * mib, 1024 * mib };
	double t[4], fixed = -1, bus = -1;

	(void)state;
	for (int i = 0; i < 4; i++)
		t[i] = 150.0 + (double)s[i] / 4.0e5;
	assert_true(cc_result_line(s, t, 4, 1.875, &fixed, &bus));
	assert_true(fabs(fixed - 150.0) < 1e-6);
	assert_true(fabs(bus - 750.0) < 1e-9);
	/* noise orthogonal to both the constant and the size (+20 - 30 + 10 = 0,
	 * 20 x 1 - 30 x 2 + 10 x 4 = 0, in units of 128 MiB): the slope and
	 * the intercept stay */
	t[0] += 20;
	t[1] -= 30;
	t[2] += 10;
	assert_true(cc_result_line(s, t, 4, 1.0, &fixed, &bus));
	assert_true(fabs(fixed - 150.0) < 1e-6);
	assert_true(fabs(bus - 400.0) < 1e-9);
	/* no busbw factor, no rate */
	assert_false(cc_result_line(s, t, 4, 0.0, &fixed, &bus));
	assert_false(cc_result_line(s, t, 4, NAN, &fixed, &bus));
	/* two points are the line through them */
	assert_true(cc_result_line(s, (const double[]){ 100, 200 }, 2, 1.0, &fixed, &bus));
	assert_true(fabs(fixed - 0.0) < 1e-9);
	assert_true(fabs(bus - 1.0e-3 * (double)s[0] / 100.0) < 1e-9);
	fixed = bus = -1;
	assert_false(cc_result_line(s, t, 1, 1.0, &fixed, &bus));
	assert_false(cc_result_line((const uint64_t[]){ mib, mib }, t, 2, 1.0, &fixed, &bus));
	assert_false(cc_result_line(s, (const double[]){ 200, 100 }, 2, 1.0, &fixed, &bus));
	assert_false(cc_result_line(s, (const double[]){ 200, 200 }, 2, 1.0, &fixed, &bus));
	assert_false(cc_result_line(s, (const double[]){ 0, 100 }, 2, 1.0, &fixed, &bus));
	assert_false(cc_result_line(s, (const double[]){ NAN, 100 }, 2, 1.0, &fixed, &bus));
	assert_false(cc_result_line(s, (const double[]){ 100, INFINITY }, 2, 1.0, &fixed, &bus));
	assert_true(fixed == -1 && bus == -1);
}

static void test_counts(void **state)
{
	uint64_t count, size;

	(void)state;
	/* allreduce: count = bytes / eltsize. */
	cc_result_counts(CC_ALLREDUCE, 4, 4, 1024, &count, &size);
	assert_true(count == 256 && size == 1024);
	cc_result_counts(CC_ALLREDUCE, 4, 4, 1023, &count, &size);
	assert_true(count == 255 && size == 1020);
	/* reduce-scatter / all-gather: per-rank count, whole-array size,
	 * rounded as all-to-all's below. */
	cc_result_counts(CC_REDUCESCATTER, 4, 4, 1024, &count, &size);
	assert_true(count == 64 && size == 1024);
	cc_result_counts(CC_ALLGATHER, 3, 4, 1000, &count, &size);
	assert_true(count == 80 && size == 960); /* 83 -> 80 floats */
	cc_result_counts(CC_REDUCESCATTER, 8, 4, 1000, &count, &size);
	assert_true(count == 28 && size == 896); /* 31 -> 28 */
	cc_result_counts(CC_ALLGATHER, 2, 8, 40, &count, &size);
	assert_true(count == 2 && size == 32); /* 2 doubles = 16 B */
	cc_result_counts(CC_ALLGATHER, 8, 2, 8, &count, &size);
	assert_true(count == 0 && size == 0);
	/* all-to-all: nccl-tests' (count/nranks) & -(16/eltSize) per peer. */
	cc_result_counts(CC_ALLTOALL, 3, 4, 1000, &count, &size);
	assert_true(count == 80 && size == 960); /* 250/3 = 83 -> 80 floats */
	cc_result_counts(CC_ALLTOALL, 3, 1, 1000, &count, &size);
	assert_true(count == 320 && size == 960); /* 333 -> 320 bytes */
	cc_result_counts(CC_ALLTOALL, 3, 8, 64, &count, &size);
	assert_true(count == 2 && size == 48);
	cc_result_counts(CC_ALLTOALL, 2, 2, 30, &count, &size);
	assert_true(count == 0 && size == 0); /* 7 halves -> 0 */
	cc_result_counts(CC_ALLTOALL, 4, 4, 1024, &count, &size);
	assert_true(count == 64 && size == 1024);
}

/* ---- JSON ---- */

static char *json_text(struct cc_json *j)
{
	const char *text = NULL;
	size_t len = 0;

	assert_int_equal(cc_json_finish(j, &text, &len), 0);
	assert_non_null(text);
	assert_int_equal(len, strlen(text));
	return strdup(text);
}

static void test_json_document(void **state)
{
	struct cc_json j;
	char *s;

	(void)state;
	cc_json_init(&j);
	cc_json_object_begin(&j);
	cc_json_kv_string(&j, "name", "allreduce");
	cc_json_kv_uint(&j, "nranks", 4);
	cc_json_kv_uint(&j, "max", UINT64_MAX);
	cc_json_kv_int(&j, "min", INT64_MIN);
	cc_json_kv_bool(&j, "ok", true);
	cc_json_kv_bool(&j, "bad", false);
	cc_json_kv_null(&j, "none");
	cc_json_kv_string(&j, "nullstr", NULL);
	cc_json_key(&j, "doubles");
	cc_json_array_begin_flat(&j);
	cc_json_double(&j, 0.1);
	cc_json_double(&j, 1.5);
	cc_json_double(&j, 3.0);
	cc_json_double(&j, -0.0);
	cc_json_double(&j, 1e300);
	cc_json_double(&j, NAN);
	cc_json_double(&j, INFINITY);
	cc_json_double(&j, 2.0 / 3.0);
	cc_json_array_end(&j);
	cc_json_key(&j, "empty_a");
	cc_json_array_begin(&j);
	cc_json_array_end(&j);
	cc_json_key(&j, "empty_o");
	cc_json_object_begin(&j);
	cc_json_object_end(&j);
	cc_json_key(&j, "rows");
	cc_json_array_begin(&j);
	cc_json_object_begin(&j);
	cc_json_kv_uint(&j, "bytes", 1024);
	cc_json_key(&j, "per_rank");
	cc_json_array_begin_flat(&j);
	for (unsigned i = 0; i < 4; i++)
		cc_json_uint(&j, 100 * i);
	cc_json_object_begin(&j); /* nested in a flat array: flat too */
	cc_json_kv_int(&j, "a", -1);
	cc_json_key(&j, "b");
	cc_json_array_begin(&j);
	cc_json_array_end(&j);
	cc_json_object_end(&j);
	cc_json_array_end(&j);
	cc_json_object_end(&j);
	cc_json_array_end(&j);
	cc_json_object_end(&j);
	s = json_text(&j);
	assert_string_equal(s,
		"{\n"
		"  \"name\": \"allreduce\",\n"
		"  \"nranks\": 4,\n"
		"  \"max\": 18446744073709551615,\n"
		"  \"min\": -9223372036854775808,\n"
		"  \"ok\": true,\n"
		"  \"bad\": false,\n"
		"  \"none\": null,\n"
		"  \"nullstr\": null,\n"
		"  \"doubles\": [0.1, 1.5, 3, -0, 1e+300, null, null, 0.6666666666666666],\n"
		"  \"empty_a\": [],\n"
		"  \"empty_o\": {},\n"
		"  \"rows\": [\n"
		"    {\n"
		"      \"bytes\": 1024,\n"
		"      \"per_rank\": [0, 100, 200, 300, {\"a\": -1, \"b\": []}]\n"
		"    }\n"
		"  ]\n"
		"}\n");
	free(s);
	cc_json_free(&j);
}

static char *json_one_string(const char *in)
{
	struct cc_json j;
	char *s;

	cc_json_init(&j);
	cc_json_string(&j, in);
	s = json_text(&j);
	cc_json_free(&j);
	return s;
}

static void string_is(const char *in, const char *want)
{
	char *s = json_one_string(in);

	assert_string_equal(s, want);
	free(s);
}

static void test_json_escaping(void **state)
{
	(void)state;
	string_is("plain", "\"plain\"\n");
	string_is("", "\"\"\n");
	string_is("a\"b\\c/d", "\"a\\\"b\\\\c/d\"\n");
	string_is("\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"\n");
	string_is("\x01\x1f\x7f", "\"\\u0001\\u001f\x7f\"\n");
	/* Valid UTF-8 passes through: U+00B5, U+20AC, U+1F600. */
	string_is("\xc2\xb5s \xe2\x82\xac \xf0\x9f\x98\x80", "\"\xc2\xb5s \xe2\x82\xac \xf0\x9f\x98\x80\"\n");
	/* Invalid bytes become U+FFFD, one per byte: a lone continuation,
	 * an overlong '/', a surrogate, a truncated sequence, 0xff, a code
	 * point above U+10FFFF. */
	string_is("\x80", "\"\\ufffd\"\n");
	string_is("\xc0\xaf", "\"\\ufffd\\ufffd\"\n");
	string_is("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"\n");
	string_is("a\xe2\x82", "\"a\\ufffd\\ufffd\"\n");
	string_is("\xff", "\"\\ufffd\"\n");
	string_is("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"\n");

	/* Keys are escaped the same way. */
	struct cc_json j;
	char *s;

	cc_json_init(&j);
	cc_json_object_begin(&j);
	cc_json_kv_uint(&j, "k\"\n", 1);
	cc_json_object_end(&j);
	s = json_text(&j);
	assert_string_equal(s, "{\n  \"k\\\"\\n\": 1\n}\n");
	free(s);
	cc_json_free(&j);
}

static void test_json_misuse(void **state)
{
	struct cc_json j;
	const char *text = NULL;

	(void)state;
	/* Empty document. */
	cc_json_init(&j);
	assert_int_equal(cc_json_finish(&j, &text, NULL), -EINVAL);
	cc_json_free(&j);
	/* A value where a key is due. */
	cc_json_init(&j);
	cc_json_object_begin(&j);
	cc_json_uint(&j, 1);
	cc_json_object_end(&j);
	assert_int_equal(cc_json_finish(&j, NULL, NULL), -EINVAL);
	cc_json_free(&j);
	/* A key in an array, and at top level. */
	cc_json_init(&j);
	cc_json_array_begin(&j);
	cc_json_key(&j, "x");
	cc_json_array_end(&j);
	assert_int_equal(cc_json_finish(&j, NULL, NULL), -EINVAL);
	cc_json_free(&j);
	cc_json_init(&j);
	cc_json_key(&j, "x");
	assert_int_equal(cc_json_finish(&j, NULL, NULL), -EINVAL);
	cc_json_free(&j);
	/* A key without its value. */
	cc_json_init(&j);
	cc_json_object_begin(&j);
	cc_json_key(&j, "x");
	cc_json_object_end(&j);
	assert_int_equal(cc_json_finish(&j, NULL, NULL), -EINVAL);
	cc_json_free(&j);
	/* Mismatched and unbalanced ends. */
	cc_json_init(&j);
	cc_json_object_begin(&j);
	cc_json_array_end(&j);
	assert_int_equal(cc_json_finish(&j, NULL, NULL), -EINVAL);
	cc_json_free(&j);
	cc_json_init(&j);
	cc_json_array_begin(&j);
	assert_int_equal(cc_json_finish(&j, NULL, NULL), -EINVAL);
	cc_json_free(&j);
	cc_json_init(&j);
	cc_json_array_end(&j);
	assert_int_equal(cc_json_finish(&j, NULL, NULL), -EINVAL);
	cc_json_free(&j);
	/* Two top-level values. */
	cc_json_init(&j);
	cc_json_uint(&j, 1);
	cc_json_uint(&j, 2);
	assert_int_equal(cc_json_finish(&j, NULL, NULL), -EINVAL);
	cc_json_free(&j);
	/* Too deep. */
	cc_json_init(&j);
	for (int i = 0; i <= CC_JSON_MAX_DEPTH; i++)
		cc_json_array_begin(&j);
	assert_int_equal(cc_json_finish(&j, NULL, NULL), -EINVAL);
	cc_json_free(&j);
	/* Exactly CC_JSON_MAX_DEPTH levels are fine. */
	cc_json_init(&j);
	for (int i = 0; i < CC_JSON_MAX_DEPTH; i++)
		cc_json_array_begin(&j);
	for (int i = 0; i < CC_JSON_MAX_DEPTH; i++)
		cc_json_array_end(&j);
	assert_int_equal(cc_json_finish(&j, &text, NULL), 0);
	cc_json_free(&j);
}

static void test_json_large(void **state)
{
	struct cc_json j;
	const char *text;
	size_t len;

	(void)state;
	/* Many reallocations: 4096 ranks' worth of numbers. */
	cc_json_init(&j);
	cc_json_array_begin_flat(&j);
	for (uint64_t i = 0; i < 4096; i++)
		cc_json_uint(&j, i * 1000003);
	cc_json_array_end(&j);
	assert_int_equal(cc_json_finish(&j, &text, &len), 0);
	assert_int_equal(text[0], '[');
	assert_int_equal(text[len - 2], ']');
	assert_non_null(strstr(text, ", 4095012285]"));
	cc_json_free(&j);
}

/* ---- atomic files ---- */

static void test_atomic_write_and_replace(void **state)
{
	struct tmpdir t;
	char path[128];
	struct stat st;

	(void)state;
	tmpdir_make(&t, "results");
	path_in(path, sizeof(path), &t, "out.json");
	assert_int_equal(cc_write_file_atomic(path, "first\n", 6), 0);
	file_is(path, "first\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_int_equal(dir_entries(t.path), 1);
	/* Replace, keeping the target's mode. */
	assert_int_equal(chmod(path, 0640), 0);
	assert_int_equal(cc_write_file_atomic(path, "second\n", 7), 0);
	file_is(path, "second\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	assert_int_equal(dir_entries(t.path), 1);
	/* Empty data is a valid (empty) file. */
	assert_int_equal(cc_write_file_atomic(path, "", 0), 0);
	file_is(path, "");
	/* A relative path (no slash): the temp file goes in ".". */
	char cwd[512];

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(t.path), 0);
	assert_int_equal(cc_write_file_atomic("rel.json", "rel\n", 4), 0);
	assert_int_equal(chdir(cwd), 0);
	path_in(path, sizeof(path), &t, "rel.json");
	file_is(path, "rel\n");
	assert_int_equal(dir_entries(t.path), 2);
	unlink(path);
	path_in(path, sizeof(path), &t, "out.json");
	unlink(path);
	assert_int_equal(rmdir(t.path), 0);
}

static void test_atomic_stream_and_abort(void **state)
{
	struct tmpdir t;
	struct cc_atomic_file af;
	char path[128];

	(void)state;
	tmpdir_make(&t, "results");
	path_in(path, sizeof(path), &t, "table.txt");
	assert_int_equal(cc_atomic_open(&af, path), 0);
	fprintf(af.f, "partial");
	/* Nothing at the target until commit. */
	assert_int_equal(access(path, F_OK), -1);
	cc_atomic_abort(&af);
	assert_int_equal(dir_entries(t.path), 0);

	assert_int_equal(cc_atomic_open(&af, path), 0);
	fprintf(af.f, "row %d\n", 1);
	assert_int_equal(cc_atomic_commit(&af), 0);
	assert_null(af.f);
	file_is(path, "row 1\n");
	assert_int_equal(dir_entries(t.path), 1);
	unlink(path);
	assert_int_equal(rmdir(t.path), 0);
}

static void test_atomic_missing_dir(void **state)
{
	(void)state;
	assert_int_equal(cc_write_file_atomic("/nonexistent-cclab-dir/x.json", "x", 1), -ENOENT);
	assert_int_equal(cc_write_file_atomic("", "x", 1), -EINVAL);
	assert_int_equal(cc_write_file_atomic(NULL, "x", 1), -EINVAL);
}

static void test_atomic_unwritable_dir(void **state)
{
	struct tmpdir t;
	char path[128];
	int err = 0;

	(void)state;
	tmpdir_make(&t, "results");
	path_in(path, sizeof(path), &t, "out.json");
	assert_int_equal(chmod(t.path, 0555), 0);
	if (geteuid() == 0) {
		/* root ignores directory permissions: try as nobody, in a
		 * child, so this process keeps its privileges. */
		int status;
		pid_t pid = fork();

		assert_true(pid >= 0);
		if (pid == 0) {
			if (setgid(65534) || setuid(65534))
				_exit(77);
			_exit(cc_write_file_atomic(path, "data\n", 5) == -EACCES ? 0 : 1);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		if (WEXITSTATUS(status) == 77) {
			chmod(t.path, 0700);
			rmdir(t.path);
			skip();
		}
		assert_int_equal(WEXITSTATUS(status), 0);
	} else {
		err = cc_write_file_atomic(path, "data\n", 5);
		assert_int_equal(err, -EACCES);
	}
	assert_int_equal(chmod(t.path, 0700), 0);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(dir_entries(t.path), 0);
	assert_int_equal(rmdir(t.path), 0);
}

static void test_atomic_write_error(void **state)
{
	struct tmpdir t;
	char path[128];
	struct rlimit old, lim;
	static char big[1 << 16];
	void (*old_handler)(int);

	(void)state;
	tmpdir_make(&t, "results");
	path_in(path, sizeof(path), &t, "out.json");
	assert_int_equal(cc_write_file_atomic(path, "old\n", 4), 0);

	/* A file size limit makes write(2) fail with EFBIG part-way through,
	 * as a full disk would, for any user. */
	memset(big, 'x', sizeof(big));
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 4096;
	old_handler = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	int err = cc_write_file_atomic(path, big, sizeof(big));

	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, old_handler);
	assert_int_equal(err, -EFBIG);
	/* The old file is intact and no temporary file is left. */
	file_is(path, "old\n");
	assert_int_equal(dir_entries(t.path), 1);
	unlink(path);
	assert_int_equal(rmdir(t.path), 0);
}

static void test_atomic_rename_error(void **state)
{
	struct tmpdir t;
	char path[128], inner[160];

	(void)state;
	tmpdir_make(&t, "results");
	/* The target is a non-empty directory: rename(2) fails after the
	 * data was written and synced; the temp file must go. */
	path_in(path, sizeof(path), &t, "out.json");
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(inner, sizeof(inner), "%s/keep", path);
	assert_int_equal(cc_write_file_atomic(inner, "k", 1), 0);
	int err = cc_write_file_atomic(path, "data\n", 5);

	assert_true(err == -EISDIR || err == -ENOTEMPTY || err == -EEXIST);
	assert_int_equal(dir_entries(t.path), 1);
	assert_int_equal(dir_entries(path), 1);
	unlink(inner);
	rmdir(path);
	assert_int_equal(rmdir(t.path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_row_with_time),
		cmocka_unit_test(test_row_without_time),
		cmocka_unit_test(test_row_unchecked),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_print_row_long_names),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_bw),
		cmocka_unit_test(test_line),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_json_document),
		cmocka_unit_test(test_json_escaping),
		cmocka_unit_test(test_json_misuse),
		cmocka_unit_test(test_json_large),
		cmocka_unit_test(test_atomic_write_and_replace),
		cmocka_unit_test(test_atomic_stream_and_abort),
		cmocka_unit_test(test_atomic_missing_dir),
		cmocka_unit_test(test_atomic_unwritable_dir),
		cmocka_unit_test(test_atomic_write_error),
		cmocka_unit_test(test_atomic_rename_error),
	};

	return cmocka_run_group_tests_name("results", tests, NULL, NULL);
}
