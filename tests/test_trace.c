/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_trace.c — the event trace: names, the exact ps -> us text,
 * the Chrome JSON and CSV writers (whole expected text), 200,000 events,
 * determinism, failed writes that leave no file behind, and a simulated
 * 8-rank run's JSON: every thread's slices disjoint or nested, op names,
 * wire spans of exactly the serialization time. */
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
#include "tests/sim_sched.h"

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
		"copy_begin", "copy_end", "wire",
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
 * earliest in time on a port track with no qp or op.  The NIC's interval
 * has a thread of its own, "nic qp1 dma_read" (core/trace.h: the NIC's
 * slices overlap across QPs), with the first tid past the tracks'. */
static void three_events(struct cc_trace *t)
{
	const struct cc_tag tag = {
		.prim = CC_PRIM_SEND, .channel = 0, .chunk = 2, .step = 0, .slice = 1,
	};
	const struct cc_trace_event ev[] = {
		{.t_ps = 1234567, .kind = CC_TRACE_POST, .rank = 0, .track = CC_TRACE_CPU,
		 .qp = 1, .wr_id = 7, .bytes = 524288, .tag = tag, .op = 3,
		 .op_kind = CC_OP_POST_SEND, .opcode = CC_WR_RDMA_WRITE_WITH_IMM},
		{.t_ps = 2000000, .dur_ps = 250000, .kind = CC_TRACE_DMA_READ, .rank = 0,
		 .track = CC_TRACE_NIC, .qp = 1, .wr_id = 7, .bytes = 524288, .tag = tag,
		 .op = 4, .op_kind = CC_OP_REDUCE},
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
	"{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1073741824,\"args\":{\"name\":\"nic qp1 dma_read\"}},\n"
	"{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":2,\"tid\":1,\"args\":{\"name\":\"rank 1\"}},\n"
	"{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":2,\"tid\":19,\"args\":{\"name\":\"port2\"}},\n"
	"{\"name\":\"post\",\"ph\":\"i\",\"s\":\"t\",\"ts\":1.234567,\"pid\":1,\"tid\":1,"
	"\"args\":{\"qp\":1,\"wr_id\":7,\"bytes\":524288,\"op\":3,"
	"\"op_name\":\"post_send RDMA_WRITE_WITH_IMM\",\"prim\":\"send\","
	"\"channel\":0,\"chunk\":2,\"step\":0,\"slice\":1}},\n"
	"{\"name\":\"dma_read\",\"ph\":\"X\",\"ts\":2,\"dur\":0.25,\"pid\":1,\"tid\":1073741824,"
	"\"args\":{\"qp\":1,\"wr_id\":7,\"bytes\":524288,\"op\":4,\"op_name\":\"reduce\","
	"\"prim\":\"send\","
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
	size_t len = 0, objs, nsub = 0;
	bool sub[8][5][CC_TRACE_KIND_COUNT] = {{{0}}};
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
		/* A NIC slice: a thread per (rank, QP, kind); none overlap
		 * (dur < 977 ps < 1237 ps apart), so no further lanes. */
		if (e.track == CC_TRACE_NIC && e.dur_ps && !sub[e.rank][e.qp][e.kind]) {
			sub[e.rank][e.qp][e.kind] = true;
			nsub++;
		}
	}
	assert_true(nsub > 0);
	assert_int_equal(cc_trace_count(&t), MANY);
	assert_int_equal(t.dropped, 0);
	assert_int_equal(t.ev[MANY - 1].wr_id, MANY - 1);
	assert_int_equal(cc_trace_write_chrome(&t, path), 0);

	text = slurp(path, &len);
	assert_non_null(text);
	json_balanced(text, len, &objs);
	/* 8 process_name + 8 * 3 thread_name + the NIC's sub-threads, then
	 * every event. */
	assert_int_equal(objs, 8 + 8 * 3 + nsub + MANY);
	/* One line per element, plus the opening, the closing "]," and two
	 * more lines of the trailer. */
	assert_int_equal(count_lines(text, len), 8 + 8 * 3 + nsub + MANY + 4);
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

/* ---- a simulated run's JSON, as Perfetto reads it ---- */

/* A JSON decimal of microseconds, as the writer prints it, back to exact
 * picoseconds. */
static uint64_t us_to_ps(const char *p)
{
	uint64_t whole = 0, frac = 0;
	int digits = 0;

	for (; *p >= '0' && *p <= '9'; p++)
		whole = whole * 10 + (uint64_t)(*p - '0');
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++, digits++)
			frac = frac * 10 + (uint64_t)(*p - '0');
	assert_true(digits <= 6);
	while (digits++ < 6)
		frac *= 10;
	return whole * 1000000 + frac;
}

struct span {
	uint64_t pid, tid, t, end;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->end < y->end) - (x->end > y->end); /* longer first */
}

/* Slices of one thread that overlap without nesting, the ones Perfetto
 * cannot draw: with slices sorted by start (longer first), each must end
 * by the time every open slice it starts inside ends. */
static size_t partial_overlaps(struct span *s, size_t n)
{
	uint64_t *open = malloc((n + 1) * sizeof(*open));
	size_t depth = 0, bad = 0;

	assert_non_null(open);
	qsort(s, n, sizeof(*s), cmp_span);
	for (size_t i = 0; i < n; i++) {
		if (i && (s[i].pid != s[i - 1].pid || s[i].tid != s[i - 1].tid))
			depth = 0;
		while (depth && open[depth - 1] <= s[i].t)
			depth--;
		if (depth && s[i].end > open[depth - 1]) {
			if (bad < 5)
				print_message("    pid %" PRIu64 " tid %" PRIu64 ": [%" PRIu64 ", %" PRIu64
					      ") crosses the end %" PRIu64 "\n",
					      s[i].pid, s[i].tid, s[i].t, s[i].end, open[depth - 1]);
			bad++;
			continue;
		}
		open[depth++] = s[i].end;
	}
	free(open);
	return bad;
}

/* The checker itself, on a crossing pair and on nested and adjacent ones. */
static void test_overlap_checker(void **state)
{
	struct span s[] = {
		{ 1, 3, 0, 10 }, { 1, 3, 2, 5 }, { 1, 3, 5, 10 }, { 1, 3, 10, 20 },
		{ 1, 4, 0, 10 }, { 1, 4, 5, 15 },
	};

	(void)state;
	assert_int_equal(partial_overlaps(s, 4), 0);
	assert_int_equal(partial_overlaps(s, 6), 1);
}

/* An 8-rank ring allreduce on RoCEv2 100G, 1 MiB, write_imm: each NIC
 * reads payload on one QP while it writes another's and fetches WQEs,
 * which overlapped on the one "nic" thread before (issue 29: 48 of 16,256
 * slices).  Its JSON must have no partial overlap on any thread; every
 * event with an op names it; every packet's wire span lasts its wire
 * bytes x 8 / 100 Gb/s = 80 ps a byte, exactly. */
static void test_sim_trace_nests(void **state)
{
	struct cc_schedule *s = ring_sched(CC_ALLREDUCE, CC_WRITE_IMM, 8, 1u << 20);
	struct sim_params f;
	struct cc_sim_result res;
	struct cc_trace t;
	struct tmpdir d;
	char path[128], *json, *line, *next;
	struct span *sp;
	size_t nsp = 0, nwire = 0, nfull = 0, nnamed = 0, nop = 0;
	bool seen_write_imm = false, seen_sub = false;

	(void)state;
	cc_trace_init(&t);
	assert_int_equal(sim_params_preset("roce-100g", &f), 0);
	struct cc_sim_opts o = { .fabric = &f, .topo = SIM_TOPO_STAR, .seed = 3, .trace = &t };
	assert_int_equal(cc_sim_run(s, &o, &res), 0);
	assert_run_status(res.err, CC_RUN_OK);
	assert_int_equal(f.link.rate_bps, UINT64_C(100000000000));
	for (size_t i = 0; i < t.n; i++) {
		const struct cc_trace_event *e = &t.ev[i];

		if (e->kind != CC_TRACE_WIRE)
			continue;
		char name[CC_TRACE_TRACK_NAME_LEN];
		assert_string_equal(cc_trace_track_name(e->track, name, sizeof(name)), "port0");
		assert_true(e->dur_ps > 0);
		assert_int_equal(e->dur_ps, e->bytes * 80); /* 8 bits x 10 ps a bit */
		nwire++;
		nfull += e->bytes > 4096; /* a full-MTU data packet with its headers */
	}
	/* 2 x 7 steps of 128 KiB each way per rank: 32 packets of 4 KiB a
	 * step, and ACKs and flags besides. */
	assert_true(nfull >= 8 * 14 * 32);
	assert_true(nwire > nfull);

	tmpdir_make(&d, "trace-sim");
	path_in(path, sizeof(path), &d, "t.json");
	assert_int_equal(cc_trace_write_chrome(&t, path), 0);
	json = slurp(path, NULL);
	assert_non_null(json);
	sp = malloc(t.n * sizeof(*sp));
	assert_non_null(sp);
	for (line = json; line; line = next) {
		const char *ts, *dur, *pid, *tid;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strstr(line, "\"thread_name\"") && strstr(line, "\"nic qp"))
			seen_sub = true;
		if (!strstr(line, "\"ts\":"))
			continue;
		if (strstr(line, "\"op\":-1") == NULL) {
			nop++;
			nnamed += strstr(line, "\"op_name\":\"") != NULL;
		}
		seen_write_imm |= strstr(line, "\"op_name\":\"post_send RDMA_WRITE_WITH_IMM\"") != NULL;
		if (!strstr(line, "\"ph\":\"X\""))
			continue;
		ts = strstr(line, "\"ts\":");
		dur = strstr(line, "\"dur\":");
		pid = strstr(line, "\"pid\":");
		tid = strstr(line, "\"tid\":");
		assert_true(ts && dur && pid && tid);
		sp[nsp].pid = strtoull(pid + 6, NULL, 10);
		sp[nsp].tid = strtoull(tid + 6, NULL, 10);
		sp[nsp].t = us_to_ps(ts + 5);
		sp[nsp].end = sp[nsp].t + us_to_ps(dur + 6);
		assert_true(sp[nsp].end > sp[nsp].t);
		nsp++;
	}
	print_message("    %zu events, %zu slices, %zu wire spans\n", t.n, nsp, nwire);
	assert_true(nsp > nwire);
	assert_int_equal(partial_overlaps(sp, nsp), 0);
	assert_true(seen_sub);
	assert_true(seen_write_imm);
	assert_true(nop > 0);
	assert_int_equal(nnamed, nop);
	free(sp);
	free(json);
	unlink(path);
	rmdir(d.path);
	cc_trace_free(&t);
	cc_sim_result_free(&res);
	cc_schedule_free(s);
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
		cmocka_unit_test(test_overlap_checker),
		cmocka_unit_test(test_sim_trace_nests),
	};

	return cmocka_run_group_tests_name("trace", tests, NULL, NULL);
}
