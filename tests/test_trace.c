/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_trace.c — the event trace: names, the exact ps -> us text,
 * the Chrome JSON and CSV writers (whole expected text), 200,000 events,
 * determinism, and failed writes that leave no file behind. */
#include <dirent.h>
#include <errno.h>
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
#include <unistd.h>

#include <cmocka.h>

#include "core/trace.h"
#include "tests/files.h"

/* ---- helpers ---- */

static void append_ok(struct cc_trace *t, const struct cc_trace_event *e)
{
	assert_int_equal(cc_trace_append(t, e), 0);
}

/* ---- names and numbers ---- */

static void test_kind_names(void **state)
{
	static const char *const want[] = {
		"post", "doorbell", "wqe_fetch", "dma_read", "tx_first", "tx_last",
		"rx_last", "dma_write", "ack", "cqe", "poll", "reduce_begin", "reduce_end",
		"copy_begin", "copy_end",
	};

	(void)state;
	/* ARCHITECTURE.md's list, in its order, one name per kind. */
	assert_int_equal(sizeof(want) / sizeof(want[0]), CC_TRACE_KIND_COUNT);
	for (int k = 0; k < CC_TRACE_KIND_COUNT; k++) {
		assert_non_null(cc_trace_kind_name[k]);
		assert_string_equal(cc_trace_kind_name[k], want[k]);
		for (int j = 0; j < k; j++)
			assert_string_not_equal(cc_trace_kind_name[k], cc_trace_kind_name[j]);
	}
}

static void test_track_names(void **state)
{
	char buf[CC_TRACE_TRACK_NAME_LEN];

	(void)state;
	assert_string_equal(cc_trace_track_name(CC_TRACE_CPU, buf, sizeof(buf)), "cpu");
	assert_string_equal(cc_trace_track_name(CC_TRACE_GPU, buf, sizeof(buf)), "gpu");
	assert_string_equal(cc_trace_track_name(CC_TRACE_NIC, buf, sizeof(buf)), "nic");
	assert_string_equal(cc_trace_track_name(cc_trace_port(0), buf, sizeof(buf)), "port0");
	assert_string_equal(cc_trace_track_name(cc_trace_port(CC_TRACE_GPU_LANE0 - 1 -
								  CC_TRACE_PORT0),
						buf, sizeof(buf)),
			    "port16777199");
	assert_true(cc_trace_gpu(0) == CC_TRACE_GPU);
	assert_string_equal(cc_trace_track_name(cc_trace_gpu(1), buf, sizeof(buf)), "gpu-ch0-down");
	assert_string_equal(cc_trace_track_name(cc_trace_gpu(12), buf, sizeof(buf)), "gpu-ch3");
	assert_string_equal(cc_trace_track_name(cc_trace_gpu(7), buf, sizeof(buf)), "gpu-ch1-g3");
	/* Between the fixed tracks and the ports: invalid. */
	for (uint32_t v = CC_TRACE_TRACK_COUNT; v < CC_TRACE_PORT0; v++) {
		assert_null(cc_trace_track_name((enum cc_trace_track)v, buf, sizeof(buf)));
		assert_string_equal(buf, "");
	}
}

static void us_is(uint64_t ps, const char *want)
{
	char buf[CC_TRACE_US_LEN];
	size_t n = cc_trace_ps_to_us(ps, buf);

	assert_string_equal(buf, want);
	assert_int_equal(n, strlen(want));
}

static void test_ps_to_us(void **state)
{
	(void)state;
	us_is(0, "0");
	us_is(1, "0.000001");
	us_is(10, "0.00001");
	us_is(999999, "0.999999");
	us_is(1000000, "1");
	us_is(1000001, "1.000001");
	us_is(1234567, "1.234567");
	us_is(1500000, "1.5");
	us_is(UINT64_C(1000000000000), "1000000");
	us_is(UINT64_C(1000000000001), "1000000.000001");
	/* The longest: 14 integer digits, 6 fractional. */
	us_is(UINT64_MAX, "18446744073709.551615");
	us_is(UINT64_MAX - 551615, "18446744073709");
}

/* ---- the buffer ---- */

static void test_buffer(void **state)
{
	struct cc_trace t;
	struct cc_trace_event e = {.kind = CC_TRACE_POST};

	(void)state;
	cc_trace_init(&t);
	assert_int_equal(cc_trace_count(&t), 0);
	for (uint64_t i = 0; i < 5000; i++) {
		e.t_ps = i;
		append_ok(&t, &e);
	}
	assert_int_equal(cc_trace_count(&t), 5000);
	/* Geometric growth: never more than twice what is used. */
	assert_true(t.cap >= 5000 && t.cap < 2 * 5000);
	for (size_t i = 0; i < t.n; i++)
		assert_int_equal(t.ev[i].t_ps, i);
	size_t cap = t.cap;
	struct cc_trace_event *ev = t.ev;

	/* clear forgets the events but keeps the memory for the next run. */
	cc_trace_clear(&t);
	assert_int_equal(cc_trace_count(&t), 0);
	assert_int_equal(t.cap, cap);
	append_ok(&t, &e);
	assert_ptr_equal(t.ev, ev);
	assert_int_equal(cc_trace_count(&t), 1);
	cc_trace_free(&t);
	assert_null(t.ev);
	assert_int_equal(t.cap, 0);
	assert_int_equal(cc_trace_count(&t), 0);
	cc_trace_free(&t); /* twice is harmless */
}

/* ---- the writers, exact text ---- */

/* Two ranks; an instant, an interval, and an interval recorded last but
 * earliest in time on a port track with no qp or op. */
static void three_events(struct cc_trace *t)
{
	const struct cc_tag tag = {
		.prim = CC_PRIM_SEND, .channel = 0, .chunk = 2, .step = 0, .slice = 1,
	};
	const struct cc_trace_event ev[] = {
		{.t_ps = 1234567, .kind = CC_TRACE_POST, .rank = 0, .track = CC_TRACE_CPU,
		 .qp = 1, .wr_id = 7, .bytes = 524288, .tag = tag, .op = 3},
		{.t_ps = 2000000, .dur_ps = 250000, .kind = CC_TRACE_DMA_READ, .rank = 0,
		 .track = CC_TRACE_NIC, .qp = 1, .wr_id = 7, .bytes = 524288, .tag = tag,
		 .op = 4},
		{.t_ps = 500, .dur_ps = 1, .kind = CC_TRACE_CQE, .rank = 1,
		 .track = cc_trace_port(2), .qp = CC_TRACE_NONE, .wr_id = UINT64_MAX,
		 .tag = {.prim = CC_PRIM_NONE, .channel = 3}, .op = CC_TRACE_NONE},
	};

	cc_trace_init(t);
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		append_ok(t, &ev[i]);
}

static const char three_json[] =
	"{\"traceEvents\":[\n"
	"{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"rank 0\"}},\n"
	"{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"cpu\"}},\n"
	"{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":3,\"args\":{\"name\":\"nic\"}},\n"
	"{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":2,\"tid\":1,\"args\":{\"name\":\"rank 1\"}},\n"
	"{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":2,\"tid\":19,\"args\":{\"name\":\"port2\"}},\n"
	"{\"name\":\"post\",\"ph\":\"i\",\"s\":\"t\",\"ts\":1.234567,\"pid\":1,\"tid\":1,"
	"\"args\":{\"qp\":1,\"wr_id\":7,\"bytes\":524288,\"op\":3,\"prim\":\"send\","
	"\"channel\":0,\"chunk\":2,\"step\":0,\"slice\":1}},\n"
	"{\"name\":\"dma_read\",\"ph\":\"X\",\"ts\":2,\"dur\":0.25,\"pid\":1,\"tid\":3,"
	"\"args\":{\"qp\":1,\"wr_id\":7,\"bytes\":524288,\"op\":4,\"prim\":\"send\","
	"\"channel\":0,\"chunk\":2,\"step\":0,\"slice\":1}},\n"
	"{\"name\":\"cqe\",\"ph\":\"X\",\"ts\":0.0005,\"dur\":0.000001,\"pid\":2,\"tid\":19,"
	"\"args\":{\"qp\":-1,\"wr_id\":18446744073709551615,\"bytes\":0,\"op\":-1,\"prim\":\"-\","
	"\"channel\":3,\"chunk\":0,\"step\":0,\"slice\":0}}\n"
	"],\n"
	"\"displayTimeUnit\":\"ns\",\n"
	"\"otherData\":{\"generator\":\"cclab\",\"clock\":\"ps\",\"events\":3,\"dropped\":0}}\n";

static const char three_csv[] =
	"t_ps,dur_ps,kind,rank,track,qp,wr_id,bytes,op,prim,channel,chunk,step,slice\n"
	"1234567,0,post,0,cpu,1,7,524288,3,send,0,2,0,1\n"
	"2000000,250000,dma_read,0,nic,1,7,524288,4,send,0,2,0,1\n"
	"500,1,cqe,1,port2,-1,18446744073709551615,0,-1,-,3,0,0,0\n";

static void test_chrome_exact(void **state)
{
	struct tmpdir d;
	struct cc_trace t;
	char path[128];

	(void)state;
	tmpdir_make(&d, "trace");
	path_in(path, sizeof(path), &d, "trace.json");
	three_events(&t);
	assert_int_equal(cc_trace_write_chrome(&t, path), 0);
	file_is(path, three_json);
	/* Written for reading, like every result file. */
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	cc_trace_free(&t);
	unlink(path);
	assert_int_equal(rmdir(d.path), 0);
}

static void test_csv_exact(void **state)
{
	struct tmpdir d;
	struct cc_trace t;
	char path[128];

	(void)state;
	tmpdir_make(&d, "trace");
	path_in(path, sizeof(path), &d, "trace.csv");
	three_events(&t);
	assert_int_equal(cc_trace_write_csv(&t, path), 0);
	file_is(path, three_csv);
	cc_trace_free(&t);
	unlink(path);
	assert_int_equal(rmdir(d.path), 0);
}

static void test_empty(void **state)
{
	struct tmpdir d;
	struct cc_trace t;
	char path[128];

	(void)state;
	tmpdir_make(&d, "trace");
	path_in(path, sizeof(path), &d, "trace.json");
	cc_trace_init(&t);
	/* An empty trace is still a document a viewer opens. */
	assert_int_equal(cc_trace_write_chrome(&t, path), 0);
	file_is(path, "{\"traceEvents\":[\n],\n\"displayTimeUnit\":\"ns\",\n"
		      "\"otherData\":{\"generator\":\"cclab\",\"clock\":\"ps\",\"events\":0,"
		      "\"dropped\":0}}\n");
	assert_int_equal(cc_trace_write_csv(&t, path), 0);
	file_is(path, "t_ps,dur_ps,kind,rank,track,qp,wr_id,bytes,op,prim,channel,chunk,step,slice\n");
	unlink(path);
	assert_int_equal(rmdir(d.path), 0);
}

/* ---- many events (200,000: the append path and the writers at volume) ---- */

/* Walks a JSON text: brackets and braces balance outside strings, never
 * close what is not open, and nothing follows the top-level value but the
 * final newline.  Counts top-level array elements of "traceEvents" by
 * counting objects that open at depth 2. */
static void json_balanced(const char *s, size_t len, size_t *objects_at_2)
{
	char stack[16];
	size_t depth = 0, n2 = 0, i;
	int in_str = 0, esc = 0;

	for (i = 0; i < len; i++) {
		char c = s[i];

		if (in_str) {
			if (esc)
				esc = 0;
			else if (c == '\\')
				esc = 1;
			else if (c == '"')
				in_str = 0;
			continue;
		}
		if (c == '"') {
			in_str = 1;
		} else if (c == '{' || c == '[') {
			assert_true(depth < sizeof(stack));
			if (c == '{' && depth == 2)
				n2++;
			stack[depth++] = c;
		} else if (c == '}' || c == ']') {
			assert_true(depth > 0);
			assert_int_equal(stack[--depth], c == '}' ? '{' : '[');
			if (depth == 0)
				break;
		}
	}
	assert_false(in_str);
	assert_int_equal(depth, 0);
	assert_int_equal(i + 2, len); /* the closing brace, then "\n" */
	assert_int_equal(s[len - 1], '\n');
	*objects_at_2 = n2;
}

static size_t count_lines(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += s[i] == '\n';
	return n;
}

#define MANY 200000u

static void test_many(void **state)
{
	struct tmpdir d;
	struct cc_trace t;
	char path[128];
	size_t len = 0, objs;
	char *text;

	(void)state;
	tmpdir_make(&d, "trace");
	path_in(path, sizeof(path), &d, "big.json");
	cc_trace_init(&t);
	for (uint32_t i = 0; i < MANY; i++) {
		struct cc_trace_event e = {
			.t_ps = (uint64_t)i * 1237,
			.dur_ps = i % 3 ? (uint64_t)i % 977 : 0,
			.kind = (enum cc_trace_kind)(i % CC_TRACE_KIND_COUNT),
			.rank = i % 8,
			.track = (enum cc_trace_track)(i / 8 % CC_TRACE_TRACK_COUNT),
			.qp = i % 5,
			.wr_id = i,
			.bytes = (uint64_t)i * 64,
			.tag = {.prim = (enum cc_prim)(i % CC_PRIM_COUNT), .chunk = i / 100},
			.op = i / 8,
		};

		append_ok(&t, &e);
	}
	assert_int_equal(cc_trace_count(&t), MANY);
	assert_int_equal(t.dropped, 0);
	assert_int_equal(t.ev[MANY - 1].wr_id, MANY - 1);
	assert_int_equal(cc_trace_write_chrome(&t, path), 0);

	text = slurp(path, &len);
	assert_non_null(text);
	json_balanced(text, len, &objs);
	/* 8 process_name + 8 * 3 thread_name, then every event. */
	assert_int_equal(objs, 8 + 8 * 3 + MANY);
	/* One line per element, plus the opening, the closing "]," and two
	 * more lines of the trailer. */
	assert_int_equal(count_lines(text, len), 8 + 8 * 3 + MANY + 4);
	assert_non_null(strstr(text, "\"events\":200000,"));
	free(text);

	assert_int_equal(cc_trace_write_csv(&t, path), 0);
	text = slurp(path, &len);
	assert_non_null(text);
	assert_int_equal(count_lines(text, len), MANY + 1);
	free(text);

	cc_trace_free(&t);
	unlink(path);
	assert_int_equal(dir_entries(d.path), 0);
	assert_int_equal(rmdir(d.path), 0);
}

/* ---- determinism ---- */

static void test_deterministic(void **state)
{
	struct tmpdir d;
	struct cc_trace t;
	char a[128], b[128];
	size_t la, lb;

	(void)state;
	tmpdir_make(&d, "trace");
	three_events(&t);
	/* A few thousand more, so buffering boundaries are crossed. */
	for (uint32_t i = 0; i < 5000; i++) {
		struct cc_trace_event e = t.ev[i % 3];

		e.t_ps += (uint64_t)i * 999983;
		e.wr_id = i;
		append_ok(&t, &e);
	}
	for (int fmt = 0; fmt < 2; fmt++) {
		path_in(a, sizeof(a), &d, "a");
		path_in(b, sizeof(b), &d, "b");
		if (fmt == 0) {
			assert_int_equal(cc_trace_write_chrome(&t, a), 0);
			assert_int_equal(cc_trace_write_chrome(&t, b), 0);
		} else {
			assert_int_equal(cc_trace_write_csv(&t, a), 0);
			assert_int_equal(cc_trace_write_csv(&t, b), 0);
		}
		char *x = slurp(a, &la), *y = slurp(b, &lb);

		assert_non_null(x);
		assert_non_null(y);
		assert_int_equal(la, lb);
		assert_memory_equal(x, y, la);
		free(x);
		free(y);
		unlink(a);
		unlink(b);
	}
	cc_trace_free(&t);
	assert_int_equal(rmdir(d.path), 0);
}

/* ---- failures leave no file ---- */

static void test_missing_dir(void **state)
{
	const char *path = "/nonexistent-cclab-dir/trace.json";
	struct cc_trace t;

	(void)state;
	three_events(&t);
	assert_int_equal(cc_trace_write_chrome(&t, path), -ENOENT);
	assert_int_equal(cc_trace_write_csv(&t, path), -ENOENT);
	assert_int_equal(access(path, F_OK), -1);
	cc_trace_free(&t);
}

static void test_target_is_dir(void **state)
{
	struct tmpdir d;
	struct cc_trace t;
	char path[128], inner[160];
	int err;

	(void)state;
	tmpdir_make(&d, "trace");
	three_events(&t);
	/* The target is a non-empty directory: the data is written, then
	 * rename(2) fails; the temporary file must go with it. */
	path_in(path, sizeof(path), &d, "trace.json");
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(inner, sizeof(inner), "%s/keep", path);
	assert_int_equal(cc_trace_write_csv(&t, inner), 0);
	err = cc_trace_write_chrome(&t, path);
	assert_true(err == -EISDIR || err == -ENOTEMPTY || err == -EEXIST);
	err = cc_trace_write_csv(&t, path);
	assert_true(err == -EISDIR || err == -ENOTEMPTY || err == -EEXIST);
	assert_int_equal(dir_entries(d.path), 1);
	assert_int_equal(dir_entries(path), 1);
	unlink(inner);
	rmdir(path);
	cc_trace_free(&t);
	assert_int_equal(rmdir(d.path), 0);
}

static void test_write_error(void **state)
{
	struct tmpdir d;
	struct cc_trace t;
	struct rlimit old, lim;
	void (*old_handler)(int);
	char path[128];
	int err_json, err_csv;

	(void)state;
	tmpdir_make(&d, "trace");
	three_events(&t);
	for (uint32_t i = 0; i < 2000; i++)
		append_ok(&t, &t.ev[i % 3]);
	path_in(path, sizeof(path), &d, "trace.json");
	/* A file size limit makes the writes fail part way (EFBIG, as on a
	 * full disk): the old file stays, no temporary file is left. */
	assert_int_equal(cc_trace_write_csv(&t, path), 0);
	char *before = slurp(path, NULL);

	assert_non_null(before);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 4096;
	old_handler = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	err_json = cc_trace_write_chrome(&t, path);
	err_csv = cc_trace_write_csv(&t, path);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, old_handler);
	assert_int_equal(err_json, -EFBIG);
	assert_int_equal(err_csv, -EFBIG);
	file_is(path, before);
	assert_int_equal(dir_entries(d.path), 1);
	free(before);
	unlink(path);
	cc_trace_free(&t);
	assert_int_equal(rmdir(d.path), 0);
}

static void test_invalid_event(void **state)
{
	struct tmpdir d;
	struct cc_trace t;
	char path[128];

	(void)state;
	tmpdir_make(&d, "trace");
	path_in(path, sizeof(path), &d, "trace.json");
	for (int which = 0; which < 3; which++) {
		three_events(&t);
		if (which == 0)
			t.ev[1].kind = CC_TRACE_KIND_COUNT;
		else if (which == 1)
			t.ev[1].track = (enum cc_trace_track)CC_TRACE_TRACK_COUNT;
		else
			t.ev[1].tag.prim = CC_PRIM_COUNT;
		assert_int_equal(cc_trace_write_chrome(&t, path), -EINVAL);
		assert_int_equal(cc_trace_write_csv(&t, path), -EINVAL);
		assert_int_equal(dir_entries(d.path), 0);
		cc_trace_free(&t);
	}
	assert_int_equal(rmdir(d.path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kind_names),
		cmocka_unit_test(test_track_names),
		cmocka_unit_test(test_ps_to_us),
		cmocka_unit_test(test_buffer),
		cmocka_unit_test(test_chrome_exact),
		cmocka_unit_test(test_csv_exact),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_missing_dir),
		cmocka_unit_test(test_target_is_dir),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_invalid_event),
	};

	return cmocka_run_group_tests_name("trace", tests, NULL, NULL);
}
