/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_calibrate.c — `cclab calibrate` and fabric files, run as a
 * user would.
 *
 * The fit is checked against a fabric known exactly: p2p results from
 * the simulator on a hand-written fabric (a slow "VM-like" RoCE link with
 * microsecond costs) are fitted from the roce-100g preset; the fit must
 * reproduce every measured figure, find the link rate and the atomic's
 * cost (the keys these tests pin down alone), and predict a collective on
 * the fitted fabric close to the one on the true fabric.  Then the
 * command's outputs (fabric file read back by `cclab sim --fabric`, JSON,
 * CSV, --max-error) and each way its input can be wrong.
 *
 * The binary's path comes from $CCLAB (tests/run.sh sets it); without it
 * every test here is skipped. */
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

/* The truth: what a slow software RoCE device might look like. */
static const char truth[] =
	"preset: roce-100g\n"
	"name: truth\n"
	"link: {rate_bps: 240Mbps, prop_delay_ps: 3us, mtu_bytes: 1024}\n"
	"rnic: {req_proc_ps: 5us, resp_proc_ps: 7us, atomic_ps: 2us}\n"
	"software: {post_send_ps: 4us, poll_cq_ps: 1us}\n";

/* The measured tests: perftest's four latencies and write bandwidth at
 * three sizes. */
static const char *const tests[] = {
	"--op write --mode lat -n 50", "--op send --mode lat -n 50",
	"--op read --mode lat -s 8 -n 50", "--op fetch_add --mode lat -n 50",
	"--op write -s 4096 -n 200", "--op write -s 65536 -n 200", "--op write -s 1M -n 40",
};
#define NTESTS (sizeof(tests) / sizeof(tests[0]))

static char files[1024]; /* the p2p result files, space-separated */

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
	char path[160];
	size_t len = 0;

	(void)state;
	if (run_cclab_begin("calibrate"))
		return -1;
	if (!cclab)
		return 0;
	snprintf(path, sizeof(path), "%s/truth.yaml", tmpdir);
	write_text(path, truth);
	for (size_t i = 0; i < NTESTS; i++) {
		char cmd[512];

		snprintf(cmd, sizeof(cmd), "'%s' p2p --fabric %s/truth.yaml %s --json %s/p%zu.json "
			 ">/dev/null", cclab, tmpdir, tests[i], tmpdir, i);
		if (system(cmd) != 0)
			return -1;
		len += (size_t)snprintf(files + len, sizeof(files) - len, "%s/p%zu.json ", tmpdir, i);
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return run_cclab_end();
}

/* The number after `key` in text (a line "  key: 123..."), or -1. */
static double value_after(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? strtod(p + strlen(key), NULL) : -1;
}

static void test_fit_recovers_truth(void **state)
{
	char yaml[160];
	struct run r;
	char *fab;

	(void)state;
	need_cclab();
	r = run_cclab("calibrate %s -o %s/fit.yaml --csv %s/fit.csv --json %s/fit.json", files,
		      tmpdir, tmpdir, tmpdir);
	assert_int_equal(r.status, 0);
	/* the points are the simulator's own (a fabric to recover), which it
	 * says: a fit of a model to itself is no calibration */
	assert_non_null(strstr(r.err, "was simulated (fabric "));
	/* Every point reproduced: the truth is reachable from roce-100g. */
	assert_non_null(strstr(r.out, "# fit: rms error 0.0"));
	run_free(&r);
	snprintf(yaml, sizeof(yaml), "%s/fit.yaml", tmpdir);
	fab = text_of(yaml);
	assert_non_null(strstr(fab, "preset: roce-100g\nname: \"calibrated\"\n"));
	/* The device's MTU carried over, the rate within 0.1 %, and the
	 * atomic's own cost (only fetch_add lat sees it) within 1 %. */
	assert_non_null(strstr(fab, "  mtu_bytes: 1024"));
	assert_true(value_after(fab, "rate_bps: ") > 239.76e6);
	assert_true(value_after(fab, "rate_bps: ") < 240.24e6);
	assert_true(value_after(fab, "atomic_ps: ") > 1.98e6);
	assert_true(value_after(fab, "atomic_ps: ") < 2.02e6);
	free(fab);
}

/* The collective on the fitted fabric against the one on the truth: the
 * point-to-point tests cannot tell apart the per-message costs that a
 * collective's pipelining weighs differently, so this bounds what the
 * method gives on a fabric the model describes exactly. */
static void test_fit_predicts_collective(void **state)
{
	const char *const fab[2] = {"truth.yaml", "fit.yaml"};
	double t[2][4];
	struct run r;

	(void)state;
	need_cclab();
	for (int f = 0; f < 2; f++) {
		r = run_cclab("sim -n 4 --topology star --memory host --fabric %s/%s -b 64K -e 4M -f 4",
			      tmpdir, fab[f]);
		assert_int_equal(r.status, 0);
		int n = 0;

		for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
			unsigned long long size, count;
			char type[16], op[16];
			int root;
			double time;

			if (line[0] != '#' && sscanf(line, "%llu %llu %15s %15s %d %lf", &size, &count,
						     type, op, &root, &time) == 6 && n < 4)
				t[f][n++] = time;
		}
		assert_int_equal(n, 4);
		run_free(&r);
	}
	for (int i = 0; i < 4; i++) {
		double err = t[1][i] / t[0][i] - 1;

		assert_true(err > -0.15 && err < 0.15);
	}
}

static void test_outputs(void **state)
{
	char path[160];
	char *csv, *json;

	(void)state;
	need_cclab();
	snprintf(path, sizeof(path), "%s/fit.csv", tmpdir);
	csv = text_of(path);
	assert_int_equal(strncmp(csv, "op,mode,size_bytes,iterations,measured,predicted,unit,"
				 "error_pct\n", 63), 0);
	assert_int_equal(count_lines_starting(csv, ""), 1 + (int)NTESTS);
	assert_non_null(strstr(csv, "\nfetch_add,lat,8,50,"));
	assert_non_null(strstr(csv, "\nwrite,bw,1048576,40,"));
	free(csv);
	snprintf(path, sizeof(path), "%s/fit.json", tmpdir);
	json = text_of(path);
	assert_non_null(strstr(json, "\"command\": \"calibrate\""));
	assert_non_null(strstr(json, "\"key\": \"link.rate_bps\""));
	assert_non_null(strstr(json, "\"host\": null"));
	assert_int_equal(count_substr(json, "\"op\": "), (int)NTESTS);
	free(json);
}

/* Deterministic: the same files give the same fabric file, byte for byte. */
static void test_deterministic(void **state)
{
	char a[160], b[160];
	struct run r;
	char *x, *y;

	(void)state;
	need_cclab();
	r = run_cclab("calibrate %s -o %s/again.yaml", files, tmpdir);
	assert_int_equal(r.status, 0);
	run_free(&r);
	snprintf(a, sizeof(a), "%s/fit.yaml", tmpdir);
	snprintf(b, sizeof(b), "%s/again.yaml", tmpdir);
	x = text_of(a);
	y = text_of(b);
	assert_string_equal(x, y);
	free(x);
	free(y);
}

/* A fabric file is read back by --fabric and by a scenario's fabric:
 * key, and a broken one is refused with its line and column. */
static void test_fabric_file(void **state)
{
	char path[160];
	struct run r;

	(void)state;
	need_cclab();
	r = run_cclab("sim -n 2 --fabric %s/fit.yaml -b 1M -e 1M", tmpdir);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "fabric: calibrated"));
	run_free(&r);
	snprintf(path, sizeof(path), "%s/s.yaml", tmpdir);
	write_text(path, "topology: {generator: star, ranks: 2}\nfabric: fit.yaml\nsizes: 64KiB\n");
	r = run_cclab("run %s/s.yaml", tmpdir);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "calibrated"));
	run_free(&r);
	snprintf(path, sizeof(path), "%s/bad.yaml", tmpdir);
	write_text(path, "preset: roce-100g\nlink: {rate_bps: fast}\n");
	r = run_cclab("sim -n 2 --fabric %s/bad.yaml", tmpdir);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "bad.yaml:2:"));
	assert_non_null(strstr(r.err, "rate_bps"));
	run_free(&r);
	r = run_cclab("sim -n 2 --fabric %s/none.yaml", tmpdir);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "none.yaml"));
	run_free(&r);
	write_text(path, "topology: {generator: star, ranks: 2}\nfabric: missing.yaml\nsizes: 1K\n");
	r = run_cclab("run %s/bad.yaml", tmpdir);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "bad.yaml:2:9: 'fabric': "));
	run_free(&r);
}

static void test_max_error(void **state)
{
	struct run r;
	char path[160];

	(void)state;
	need_cclab();
	/* One measured figure moved 30 %: no fabric fits it with the others. */
	snprintf(path, sizeof(path), "%s/p0.json", tmpdir);
	char *j = text_of(path), *at = strstr(j, "\"t_typical_us\": ");

	assert_non_null(at);
	double v = strtod(at + 16, NULL);
	char *end = strchr(at, ',');
	char moved[8192];

	snprintf(moved, sizeof(moved), "%.*s\"t_typical_us\": %.3f%s", (int)(at - j), j, v * 1.3,
		 end);
	snprintf(path, sizeof(path), "%s/moved.json", tmpdir);
	write_text(path, moved);
	free(j);
	r = run_cclab("calibrate %s %s/moved.json -o %s/m.yaml --max-error 2", files, tmpdir, tmpdir);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.out, "beyond --max-error 2 %"));
	run_free(&r);
}

/* 8-byte message rates say only that the link is faster than a few
 * Gb/s: the search stopped the rate at 4.02 Gb/s, and any value above
 * fits as well.  The base's 200 Gb/s is kept, and said to be. */
static void test_weak_keys_kept(void **state)
{
	char json[160];
	struct run r;

	(void)state;
	need_cclab();
	r = run_cclab("p2p --fabric ib-hdr --op write -s 8 -n 2000 --json %s/rate8.json", tmpdir);
	assert_int_equal(r.status, 0);
	run_free(&r);
	snprintf(json, sizeof(json), "%s/weak.json", tmpdir);
	r = run_cclab("calibrate %s/rate8.json -o %s/weak.yaml --json %s", tmpdir, tmpdir, json);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "   link.rate_bps               200.0000 Gb/s    200.0000 Gb/s"
				      "  kept at the base, which fits as well"));
	run_free(&r);
	char *j = text_of(json);

	assert_non_null(strstr(j, "\"key\": \"link.rate_bps\""));
	assert_non_null(strstr(strstr(j, "\"key\": \"link.rate_bps\""), "\"kept\": true"));
	free(j);
}

/* A file run with a post list (-l 32): calibrate shortens it to whole
 * lists (its two bw runs 32 and 64 iterations, not 8 and 16, which a list
 * of 32 cannot make) and fits it; the list is read from the file. */
static void test_post_list(void **state)
{
	struct run r;

	(void)state;
	need_cclab();
	r = run_cclab("p2p --fabric ib-hdr --op write -s 4096 -n 128 -l 32 --json %s/pl.json",
		      tmpdir);
	assert_int_equal(r.status, 0);
	run_free(&r);
	char *j = text_of_in_tmpdir("pl.json");

	assert_non_null(strstr(j, "\"post_list\": 32"));
	free(j);
	r = run_cclab("calibrate %s/pl.json -o %s/pl.yaml", tmpdir, tmpdir);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "# fit: rms error 0.00 %"));
	run_free(&r);
}

static void test_bad_input(void **state)
{
	char path[160];
	struct run r;

	(void)state;
	need_cclab();
	r = run_cclab("calibrate -o %s/x.yaml", tmpdir);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "expected one or more"));
	run_free(&r);
	r = run_cclab("calibrate %s/p0.json", tmpdir);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "expected -o FABRIC.yaml"));
	run_free(&r);
	r = run_cclab("calibrate %s/p0.json -o %s/x.yaml --max-error lots", tmpdir, tmpdir);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--max-error: 'lots'"));
	run_free(&r);
	r = run_cclab("calibrate %s/p0.json -o %s/x.yaml --base nosuch", tmpdir, tmpdir);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "nosuch"));
	run_free(&r);
	/* A collective's result is not a p2p result. */
	r = run_cclab("sim -n 2 -b 1K -e 1K --json %s/coll.json", tmpdir);
	assert_int_equal(r.status, 0);
	run_free(&r);
	r = run_cclab("calibrate %s/coll.json -o %s/x.yaml", tmpdir, tmpdir);
	assert_int_equal(r.status, 2);
	/* ... and is named for what it is, at its 'command' (line 3). */
	assert_non_null(strstr(r.err, "coll.json:3:14: this is a `cclab sim --json` result "
				      "(allreduce, 2 ranks), not a point-to-point one: calibrate fits "
				      "`cclab p2p --json` results"));
	run_free(&r);
	/* Truncated JSON: the file, line and column. */
	snprintf(path, sizeof(path), "%s/cut.json", tmpdir);
	write_text(path, "{\"command\": \"p2p\", \"op\": \"write\",\n \"mode\": ");
	r = run_cclab("calibrate %s -o %s/x.yaml", path, tmpdir);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "cut.json:"));
	run_free(&r);
	/* Files from two fabrics cannot be fitted as one. */
	r = run_cclab("p2p --fabric ib-hdr --op write --mode lat -n 20 --json %s/ib.json", tmpdir);
	assert_int_equal(r.status, 0);
	run_free(&r);
	r = run_cclab("calibrate %s/p0.json %s/ib.json -o %s/x.yaml", tmpdir, tmpdir, tmpdir);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "one fabric cannot fit both"));
	run_free(&r);
	/* An output that cannot be written fails before the fit's runs (the
	 * warning that the input is simulated comes first, nothing on stdout). */
	r = run_cclab("calibrate %s/ib.json -o %s/no/such/dir/x.yaml", tmpdir, tmpdir);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "cannot write '"));
	assert_non_null(strstr(r.err, "no/such/dir/x.yaml': No such file or directory"));
	assert_string_equal(r.out, "");
	run_free(&r);
	/* Nothing half-written: no x.yaml from any of the above. */
	snprintf(path, sizeof(path), "%s/x.yaml", tmpdir);
	assert_int_equal(access(path, F_OK), -1);
}

/* src's text with the number after `"key": ` replaced by `value`, written
 * to tmpdir/name. */
/* Writes src as tmpdir/name with key's value replaced; returns the line
 * (1-based) the value is on. */
static int set_figure(const char *src, const char *name, const char *key, const char *value)
{
	char path[160], pat[64], *text = text_of(src), *at, *end;
	FILE *f;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	at = strstr(text, pat);
	assert_non_null(at);
	at += strlen(pat);
	end = at + strcspn(at, ",}\n");
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%.*s%s%s", (int)(at - text), text, value, end);
	assert_int_equal(fclose(f), 0);
	int line = 1;
	for (const char *c = text; c < at; c++)
		line += *c == '\n';
	free(text);
	return line;
}

/* s single-quoted for sh (run_cclab passes its arguments through it). */
static const char *sh_quoted(char *buf, size_t len, const char *s)
{
	size_t n = 0;

	buf[n++] = '\'';
	for (; *s && n + 6 < len; s++) {
		if (*s == '\'') {
			memcpy(buf + n, "'\\''", 4);
			n += 4;
		} else {
			buf[n++] = *s;
		}
	}
	buf[n++] = '\'';
	buf[n] = '\0';
	return buf;
}

/* issue 23: --name went into the YAML as it was: 'a: b # c' wrote a file
 * `sim --fabric` refused, and a line break injected a key.  Any printable
 * name now reads back as itself through `cclab sim --fabric`; a control
 * character, a byte that is not UTF-8 and a name too long for a fabric
 * are refused, exit 2, naming --name, and nothing is written. */
static void test_name(void **state)
{
	static const char *const good[] = {
		"a: b # c", "\"q\" \\ z", "null", "true", "- x", "&a *b !t %y @z `w",
		"  spaced  ", "caf\xc3\xa9 {x: [1]}", "'single' ? |>", "1e3",
		"u+2028 \xe2\x80\xa8 bom \xef\xbb\xbf",
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", /* 31 bytes: the longest */
	};
	static const struct {
		const char *name, *err;
	} bad[] = {
		{"x\nswitch: {radix: 3}", "--name: 'x?switch: {radix: 3}' has a control character at "
		 "byte 2; a fabric's name is printable text (UTF-8)"},
		{"a\tb", "--name: 'a?b' has a control character at byte 2"},
		{"del\x7f", "has a control character at byte 4"},
		{"c1 \xc2\x85", "has a control character at byte 4"},
		{"latin1 \xe9t\xe9", "has a byte that is not UTF-8 at byte 8"},
		{"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "--name: 'xxxxxxxxxxxxxxxxxxxxxxxx...' is 32 "
		 "bytes; a fabric's name is 1 to 31"},
	};
	char q[256], out[160], want[160];
	struct run r;

	(void)state;
	need_cclab();
	snprintf(out, sizeof(out), "%s/named.yaml", tmpdir);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		r = run_cclab("calibrate %s/p0.json -o %s --name %s", tmpdir, out,
			      sh_quoted(q, sizeof(q), good[i]));
		if (r.status != 0)
			fail_msg("--name '%s': status %d, %s", good[i], r.status, r.err);
		run_free(&r);
		r = run_cclab("sim -n 2 -b 1K --fabric %s", out);
		snprintf(want, sizeof(want), "# fabric: %s  topology: ", good[i]);
		if (r.status != 0 || !strstr(r.out, want))
			fail_msg("--name '%s': sim --fabric status %d, %s%s", good[i], r.status, r.out,
				 r.err);
		run_free(&r);
	}
	assert_int_equal(unlink(out), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r = run_cclab("calibrate %s/p0.json -o %s --name %s", tmpdir, out,
			      sh_quoted(q, sizeof(q), bad[i].name));
		if (r.status != 2 || !strstr(r.err, bad[i].err) || *r.out)
			fail_msg("--name #%zu: status %d, stderr '%s'", i, r.status, r.err);
		run_free(&r);
		assert_int_equal(access(out, F_OK), -1);
	}
	/* A name of 900 characters is not echoed whole. */
	char huge[901];
	memset(huge, 'n', 900);
	huge[900] = '\0';
	r = run_cclab("calibrate %s/p0.json -o %s --name %s", tmpdir, out, huge);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "is 900 bytes; a fabric's name is 1 to 31"));
	assert_true(strlen(r.err) < 200);
	run_free(&r);
}

/* Text from the inputs that lands in the fabric file's comments — the
 * device's name, the link layer, the file names — cannot end a comment
 * and start a key, and the file stays UTF-8. */
static void test_comment_text(void **state)
{
	char in[160], out[160], q[256];
	struct run r;

	(void)state;
	need_cclab();
	snprintf(in, sizeof(in), "%s/lat\nswitch: {radix: 3}.json", tmpdir);
	write_text(in, "{\"cclab_version\": \"0.1.0\", \"command\": \"p2p\", \"executor\": \"verbs\",\n"
		       " \"op\": \"write\", \"mode\": \"lat\", \"iterations\": 1000, \"tx_depth\": 1,\n"
		       " \"cq_mod\": 1, \"rx_depth\": 512, \"memory\": \"host\",\n"
		       " \"device\": \"dev\\nrnic: {atomic_ps: 1s} \\u0085\", \"link_layer\": \"Ethernet\",\n"
		       " \"active_mtu\": 1024, \"sizes\": [{\"bytes\": 2, \"iterations\": 1000,\n"
		       " \"status\": \"ok\", \"t_typical_us\": 2.5}]}\n");
	snprintf(out, sizeof(out), "%s/comments.yaml", tmpdir);
	r = run_cclab("calibrate %s -o %s", sh_quoted(q, sizeof(q), in), out);
	assert_int_equal(r.status, 0);
	run_free(&r);
	char *fab = text_of(out);

	assert_non_null(strstr(fab, "# measured on dev\\x0arnic: {atomic_ps: 1s} \\xc2\\x85 "
				    "(Ethernet, MTU 1024); files:\n"));
	assert_non_null(strstr(fab, "/lat\\x0aswitch: {radix: 3}.json\n"));
	assert_null(strstr(fab, "\nswitch:"));
	assert_null(strstr(fab, "\nrnic: {"));
	free(fab);
	r = run_cclab("sim -n 2 -b 1K --fabric %s", out);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "# fabric: calibrated  topology: "));
	run_free(&r);
}

/* issue 23: t_typical_us 1e-300 and 1e30 MB/s were fitted, "rms error inf
 * %" printed, and a fabric with every time at 1 ps written, exit 0.  A
 * figure outside what an RDMA fabric can measure is refused at its line
 * and column, exit 2, before any fit. */
static void test_absurd_figures(void **state)
{
	static const struct {
		const char *src, *key, *value, *err;
	} cases[] = {
		{"p0.json", "t_typical_us", "1e-300", "'t_typical_us' is 1e-300: expected 0.001 to "
		 "1e+06 us (1 ns to 1 s), what an RDMA fabric can measure\n"},
		{"p0.json", "t_typical_us", "2e6", "'t_typical_us' is 2e6: expected 0.001 to 1e+06 us"},
		{"p0.json", "t_typical_us", "0", "'t_typical_us' is 0: expected"},
		{"p0.json", "t_typical_us", "-3", "'t_typical_us' is -3: expected"},
		{"p0.json", "t_typical_us", "null", "'t_typical_us' is null: expected"},
		{"p5.json", "bw_average_mb_s", "1e30", "'bw_average_mb_s' is 1e30: expected 0.001 to "
		 "1e+06 MB/s (1 KiB/s to 1 TiB/s), what an RDMA fabric can measure\n"},
		{"p5.json", "bw_average_mb_s", "0.0001", "'bw_average_mb_s' is 0.0001: expected"},
	};
	char src[160], out[160], where[64];
	struct run r;

	(void)state;
	need_cclab();
	snprintf(out, sizeof(out), "%s/absurd.yaml", tmpdir);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(src, sizeof(src), "%s/%s", tmpdir, cases[i].src);
		int line = set_figure(src, "absurd.json", cases[i].key, cases[i].value);

		r = run_cclab("calibrate %s/absurd.json -o %s --json %s.json", tmpdir, out, out);
		/* the value's own line, column 7 + the key and its quotes */
		snprintf(where, sizeof(where), "absurd.json:%d:%zu: ", line, 11 + strlen(cases[i].key));
		if (r.status != 2 || !strstr(r.err, cases[i].err) || !strstr(r.err, where) || *r.out)
			fail_msg("%s %s: status %d, stderr '%s' (wanted %s)", cases[i].key,
				 cases[i].value, r.status, r.err, where);
		run_free(&r);
		assert_int_equal(access(out, F_OK), -1);
	}
}

/* A fit the model cannot make, from figures within those bounds: never
 * written as if it were the fabric.  Latencies below what the base's
 * costs that are not fitted allow hold every fitted time at 0; a 1 MiB
 * write at 0.002 MB/s asks for a link slower than 100 kb/s.  Exit 1, the
 * reason on stderr, no file. */
static void test_fit_refused(void **state)
{
	char src[160], out[160];
	struct run r;

	(void)state;
	need_cclab();
	snprintf(out, sizeof(out), "%s/refused.yaml", tmpdir);
	snprintf(src, sizeof(src), "%s/p0.json", tmpdir);
	set_figure(src, "fast.json", "t_typical_us", "0.002");
	r = run_cclab("calibrate %s/fast.json -o %s --json %s.json --csv %s.csv", tmpdir, out, out,
		      out);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "cclab calibrate: every fitted time is held at 0 and the "
				      "fabric is still slower than the measurements"));
	assert_non_null(strstr(r.out, "held at 0: the measurements want -"));
	assert_non_null(strstr(r.out, "\n# FAILED: no fabric written (the reason is on stderr)\n"));
	assert_null(strstr(r.out, "inf"));
	assert_null(strstr(r.out, "# wrote"));
	run_free(&r);
	assert_int_equal(access(out, F_OK), -1);
	snprintf(src, sizeof(src), "%s/refused.yaml.json", tmpdir);
	assert_int_equal(access(src, F_OK), -1);

	snprintf(src, sizeof(src), "%s/p6.json", tmpdir);
	set_figure(src, "slow.json", "bw_average_mb_s", "0.002");
	r = run_cclab("calibrate %s/slow.json -o %s", tmpdir, out);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "cclab calibrate: link.rate_bps ends at the search's lower "
				      "bound: the measurements ask for a link slower than 100 kb/s, "
				      "beyond what the model allows"));
	assert_non_null(strstr(r.out, "\n# FAILED: no fabric written"));
	run_free(&r);
	assert_int_equal(access(out, F_OK), -1);
}

/* Other commands' files, named for what they are. */
static void test_other_kinds(void **state)
{
	char path[160];
	struct run r;

	(void)state;
	need_cclab();
	static const struct {
		const char *text, *err;
	} other[] = {
		{"{\"cclab_version\": \"0.1.0\", \"command\": \"check\", \"executor\": \"data\", "
		 "\"collective\": \"allgather\", \"nranks\": 8}\n",
		 "k.json:1:39: this is a `cclab check --json` result of the data executor (allgather, "
		 "8 ranks), which models no time, not a point-to-point one"},
		{"{\"cclab_version\": \"0.1.0\", \"command\": \"calibrate\", \"points\": []}\n",
		 "k.json:1:39: this is a `cclab calibrate --json` fit, not a run's result: calibrate "
		 "fits `cclab p2p --json` results"},
		{"{\"cclab_version\": \"0.1.0\", \"command\": \"tune\"}\n",
		 "k.json:1:39: this is a `cclab tune --json` table"},
		{"op,mode,size_bytes,iterations,measured,predicted,unit,error_pct\nwrite,lat,2,50,1,1,us,0\n",
		 "k.json:1:1: this is a `cclab calibrate --csv` table, not a --json result"},
		{"{\"op\": \"write\", \"sizes\": []}\n",
		 "k.json:1:1: this is not a result file of cclab (no 'command' key"},
	};
	snprintf(path, sizeof(path), "%s/k.json", tmpdir);
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		write_text(path, other[i].text);
		r = run_cclab("calibrate %s -o %s/k.yaml", path, tmpdir);
		if (r.status != 2 || !strstr(r.err, other[i].err))
			fail_msg("#%zu: status %d, stderr '%s'", i, r.status, r.err);
		run_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_fit_recovers_truth),
		cmocka_unit_test(test_fit_predicts_collective),
		cmocka_unit_test(test_outputs),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_fabric_file),
		cmocka_unit_test(test_max_error),
		cmocka_unit_test(test_weak_keys_kept),
		cmocka_unit_test(test_post_list),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_name),
		cmocka_unit_test(test_comment_text),
		cmocka_unit_test(test_absurd_figures),
		cmocka_unit_test(test_fit_refused),
		cmocka_unit_test(test_other_kinds),
	};

	return cmocka_run_group_tests_name("calibrate", t, setup, teardown);
}
