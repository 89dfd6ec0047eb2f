/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_determinism.c — the simulator is a pure function of its inputs:
 * every scenario of tests/scenarios/ and scenarios/ (on the simulator:
 * the data and verbs executors have no clock) run twice gives
 * byte-identical JSON and trace files.  Then once more with the event
 * queue's ties reversed (CCLAB_SIM_TIES=lifo, sim/event.h
 * SIM_ENGINE_LIFO_TIES): what the model claims is independent of the order
 * of events at one picosecond must not change — every #wrong, every rank's
 * data bytes — and scenarios without contention for a queue (the ring on
 * its own links, the demo) must not change at all.  Where packets from
 * different flows reach one queue at the same picosecond the order picks
 * which waits, and the time may move (docs/reliability.md gives the
 * figures); the test prints it.
 * Sizes are capped at 16 MiB, at 4 MiB with CCLAB_MATRIX=quick (`make
 * test`: the sanitizer pass took three minutes at 16). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/files.h"
#include "tests/quick.h"
#include "tests/run_cclab.h"

static int setup(void **state)
{
	(void)state;
	return run_cclab_begin("determ");
}

static int teardown(void **state)
{
	(void)state;
	return run_cclab_end();
}

/* The lines of text that contain `key`, concatenated: what a JSON file
 * says about one quantity, in order. */
static char *lines_with(const char *text, const char *key)
{
	size_t cap = strlen(text) + 1, n = 0;
	char *out = malloc(cap);

	assert_non_null(out);
	for (const char *p = text; *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) + 1 : strlen(p);

		if (memmem(p, len, key, strlen(key))) {
			memcpy(out + n, p, len);
			n += len;
		}
		p += len;
	}
	out[n] = '\0';
	return out;
}

/* A value after "key": in the JSON, as text, for the report. */
static void times_of(const char *json, char *buf, size_t len)
{
	char *t = lines_with(json, "\"time_us\"");

	snprintf(buf, len, "%s", t);
	for (char *p = buf; *p; p++)
		if (*p == '\n')
			*p = ' ';
	free(t);
}

/* Runs scenario `path` on the simulator, with the environment `env`, its
 * sizes capped and its expectations dropped (they name sizes the cap may
 * remove), into tag.json and tag.trace: it must succeed. */
static void run_one(const char *env, const char *path, const char *tag)
{
	char json[160], trace[160];
	struct run r;

	char *text = text_of(path);
	/* a p2p test runs on the simulator alone and takes no executors */
	bool p2p = !strncmp(text, "p2p:", 4) || strstr(text, "\np2p:");

	free(text);
	snprintf(json, sizeof(json), "%s/%s.json", tmpdir, tag);
	snprintf(trace, sizeof(trace), "%s/%s.trace", tmpdir, tag);
	remove(json);
	remove(trace);
	r = run_cclab_env(env, "run %s --set sizes.max=%s --set 'expect=[]' %s --json %s "
			  "--trace %s", path, matrix_quick() ? "4MiB" : "16MiB",
			  p2p ? "" : "--set 'executors=[sim]'", json, trace);
	if (r.status != 0)
		fail_msg("%s %s: exit %d\n%s", env, path, r.status, r.err);
	run_free(&r);
}

static int file_equal(const char *a, const char *b)
{
	size_t na = 0, nb = 0;
	char *x = slurp(a, &na), *y = slurp(b, &nb);
	int eq = x && y && na == nb && !memcmp(x, y, na);

	free(x);
	free(y);
	return eq;
}

static void check_scenario(const char *path, int order_free)
{
	char a[160], b[160], c[160], ta[160], tb[160], t1[512], t3[512];

	snprintf(a, sizeof(a), "%s/a.json", tmpdir);
	snprintf(b, sizeof(b), "%s/b.json", tmpdir);
	snprintf(c, sizeof(c), "%s/c.json", tmpdir);
	snprintf(ta, sizeof(ta), "%s/a.trace", tmpdir);
	snprintf(tb, sizeof(tb), "%s/b.trace", tmpdir);
	run_one("", path, "a");
	run_one("", path, "b");
	assert_true(file_equal(a, b));
	assert_true(file_equal(ta, tb));

	run_one("CCLAB_SIM_TIES=lifo", path, "c");
	char *j1 = text_of(a), *j3 = text_of(c);
	char *w1 = lines_with(j1, "\"wrong\""), *w3 = lines_with(j3, "\"wrong\"");
	char *d1 = lines_with(j1, "\"data_bytes_sent\""), *d3 = lines_with(j3, "\"data_bytes_sent\"");

	assert_string_equal(w1, w3);
	assert_string_equal(d1, d3);
	times_of(j1, t1, sizeof(t1));
	times_of(j3, t3, sizeof(t3));
	print_message("%s: %s\n    fifo ties: %s\n    lifo ties: %s\n", path,
		      file_equal(a, c) ? "identical" : "differs", t1, t3);
	if (order_free)
		assert_string_equal(t1, t3);
	free(w1);
	free(w3);
	free(d1);
	free(d3);
	free(j1);
	free(j3);
}

static int order_free(const char *name)
{
	/* No two flows share a queue: neighbours on a ring, the demo's star
	 * with one flow per port. */
	return strstr(name, "ring-hdr") || strstr(name, "demo");
}

static void every_scenario(void **state)
{
	static const char *const dirs[] = { "tests/scenarios", "scenarios" };

	(void)state;
	need_cclab();
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *e;
		char path[300];

		assert_non_null(d);
		while ((e = readdir(d))) {
			size_t n = strlen(e->d_name);

			if (n < 6 || strcmp(e->d_name + n - 5, ".yaml"))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dirs[i], e->d_name);
			check_scenario(path, order_free(e->d_name));
		}
		closedir(d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_scenario),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
