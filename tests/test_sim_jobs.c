/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_sim_jobs.c — `cclab sim -j N` (cli/loop_jobs.c): sizes of one
 * sweep simulated at once give what one at a time gives, byte for byte:
 * stdout, stderr (notes, errors, a failed row's message, in the same
 * order), --csv, --json, --trace and --links; an error at one size ends
 * the sweep there and leaves no report, as with -j 1.
 *
 * The binary's path comes from $CCLAB (tests/run.sh sets it). */
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
	return run_cclab_begin("sim-jobs");
}

static int teardown(void **state)
{
	(void)state;
	return run_cclab_end();
}

/* Everything one run leaves: its exit status, streams and files. */
struct outcome {
	int status;
	char *out, *err, *csv, *json, *trace, *links;
};

static char *path_of(const char *name, unsigned jobs)
{
	char *p = NULL;

	assert_true(asprintf(&p, "%s/%s-%u", tmpdir, name, jobs) > 0);
	return p;
}

/* `cclab ARGS -j jobs` with every output file; the files that were not
 * written read as "". */
static struct outcome run_with(const char *args, unsigned jobs)
{
	char *csv = path_of("csv", jobs), *json = path_of("json", jobs),
	     *trace = path_of("trace", jobs), *links = path_of("links", jobs);
	struct run r = run_cclab("%s -j %u --csv '%s' --json '%s' --trace '%s' --links '%s'", args,
				 jobs, csv, json, trace, links);
	struct outcome o = {
		.status = r.status, .out = r.out, .err = r.err, .csv = text_of(csv),
		.json = text_of(json), .trace = text_of(trace), .links = text_of(links),
	};

	unlink(csv);
	unlink(json);
	unlink(trace);
	unlink(links);
	free(csv);
	free(json);
	free(trace);
	free(links);
	return o;
}

static void outcome_free(struct outcome *o)
{
	free(o->out);
	free(o->err);
	free(o->csv);
	free(o->json);
	free(o->trace);
	free(o->links);
}

/* Runs args with -j 1, 2 and 3 and checks the three are the same; returns
 * the -j 1 outcome. */
static struct outcome same_for_any_jobs(const char *args)
{
	struct outcome one = run_with(args, 1);

	for (unsigned j = 2; j <= 3; j++) {
		struct outcome o = run_with(args, j);

		if (o.status != one.status)
			fail_msg("%s: exit %d with -j %u, %d with -j 1\n%s", args, o.status, j,
				 one.status, o.err);
		assert_string_equal(o.out, one.out);
		assert_string_equal(o.err, one.err);
		assert_string_equal(o.csv, one.csv);
		assert_string_equal(o.json, one.json);
		/* strcmp, not assert_string_equal: a trace is megabytes */
		if (strcmp(o.trace, one.trace))
			fail_msg("%s: the trace differs with -j %u", args, j);
		assert_string_equal(o.links, one.links);
		outcome_free(&o);
	}
	return one;
}

/* A sweep of seven sizes on a star: every output the same. */
static void test_sweep_same(void **state)
{
	(void)state;
	need_cclab_binary();
	struct outcome o = same_for_any_jobs("sim -n 8 -b 4K -e 16M -f 4 --topology star");

	if (o.status)
		fail_msg("exit %d\n%s%s", o.status, o.out, o.err);

	assert_int_equal(o.status, 0);
	assert_int_equal(count_substr(o.out, "     float     sum      -1 "), 7);
	assert_int_equal(count_substr(o.csv, "\n"), 8); /* the header and 7 rows */
	/* the trace and the links are the last size's */
	assert_non_null(strstr(o.trace, "{\"traceEvents\":["));
	assert_non_null(strstr(o.links, "link,from,to,kind,"));
	assert_string_equal(o.err, "");
	outcome_free(&o);
}

/* A fault that hits the first size and, at the last, names an op it
 * cannot act on: the failed row's message and the later size's note come
 * in the order -j 1 says them. */
static void test_messages_in_order(void **state)
{
	(void)state;
	need_cclab_binary();
	struct outcome o = same_for_any_jobs("sim -n 2 -b 1M -e 4M -f 2 --fault rkey:1:9");

	assert_int_equal(o.status, 1);
	const char *failed = strstr(o.err, "IBV_WC_REM_ACCESS_ERR");
	const char *note = strstr(o.err, "cclab sim: note: --fault rkey:1:9 at 4194304 bytes");

	assert_non_null(failed);
	assert_non_null(note);
	assert_true(failed < note);
	outcome_free(&o);
}

/* A size its build refuses (the wall-clock limit passed in the build) is a
 * failed row in its place; the other sizes still run. */
static void test_time_limit_row(void **state)
{
	(void)state;
	need_cclab_binary();
	struct outcome o = same_for_any_jobs("sim -n 64 -b 1K -e 4G -f 4194304 --check 0 "
					     "--wall-limit 1ms");

	assert_int_equal(o.status, 1);
	assert_non_null(strstr(o.err, "cclab sim: 4294967296 bytes: time_limit"));
	assert_non_null(strstr(o.json, "\"status\": \"time_limit\""));
	assert_non_null(strstr(o.json, "\"ok\": false"));
	outcome_free(&o);
}

/* A scenario file under `cclab run`, which takes -j as `cclab sim` does. */
static void test_scenario_same(void **state)
{
	(void)state;
	need_cclab_binary();
	struct outcome o = same_for_any_jobs("run scenarios/demo.yaml --set sizes.max=1M");

	assert_int_equal(o.status, 0);
	outcome_free(&o);
}

/* -j's values, and where it does not apply. */
static void test_bad_jobs(void **state)
{
	static const char *const bad[] = { "0", "65", "-1", "two", "" };

	(void)state;
	need_cclab_binary();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct run r = run_cclab("sim -n 2 -j '%s'", bad[i]);

		if (r.status != 2 || !strstr(r.err, "-j"))
			fail_msg("-j '%s': exit %d, %s", bad[i], r.status, r.err);
		run_free(&r);
	}
	struct run r = run_cclab("run -n 2 --jobs 2");

	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "-j/--jobs applies to the simulator"));
	run_free(&r);
	r = run_cclab("check -n 2 -j 2");
	assert_int_equal(r.status, 2);
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sweep_same),
		cmocka_unit_test(test_messages_in_order),
		cmocka_unit_test(test_time_limit_row),
		cmocka_unit_test(test_scenario_same),
		cmocka_unit_test(test_bad_jobs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
