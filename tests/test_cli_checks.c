/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_cli_checks.c — command lines and scenario values that used to
 * be taken silently or wrongly (issue 23, docs/reliability.md
 * "Adversarial inputs and outputs"), run through the cclab binary: a
 * repeated option, fault numbers past 2^32, values too large, paths of
 * thousands of characters, rail order on one-GPU nodes, a scenario's key
 * faults, NVLink across hosts, what `cclab run` calls itself. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/files.h"
#include "tests/run_cclab.h"

static const char *at(const char *name)
{
	static char buf[2][256];
	static int i;

	i = (i + 1) % 2;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", tmpdir, name);
	return buf[i];
}

static void put(const char *name, const char *text)
{
	FILE *f = fopen(at(name), "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* Runs cclab, expects exit `status` and `want` in its stderr. */
static void expect(int status, const char *want, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void expect(int status, const char *want, const char *fmt, ...)
{
	va_list ap;
	struct run r;

	va_start(ap, fmt);
	r = run_cclab_va("", fmt, ap);
	va_end(ap);
	if (r.status != status || !strstr(r.err, want))
		fail_msg("exit %d (want %d), stderr:\n%s\nwanted in it: %s", r.status, status, r.err,
			 want);
	run_free(&r);
}

/* A second -n would silently win; every spelling of one option counts. */
static void repeated_options(void **state)
{
	(void)state;
	need_cclab();
	expect(2, "-n given twice (-n 8, then -n 20): give it once", "sim -n 8 -b 1K -n 20");
	expect(2, "-n given twice (-n 8, then --nranks 4)", "sim -n 8 -b 1K --nranks 4");
	expect(2, "-b given twice (-b 1K, then --bytes 2K)", "sim -n 2 -b 1K --bytes 2K");
	expect(2, "--json given twice", "check -n 2 -b 1K --json a.json --json b.json");
	expect(2, "--op given twice", "p2p --op write --op read -s 8");
	expect(2, "--csv given twice (--csv x.csv, then --csv y.csv)",
	       "compare a.json b.json --csv x.csv --csv=y.csv");
	expect(2, "--jobs given twice", "tune s.yaml --jobs 1 --jobs 2");
	expect(2, "-o given twice", "calibrate p.json -o a.yaml --output b.yaml");
	/* repeatable: each adds one */
	struct run r = run_cclab("sim -n 4 -b 1K --fault rkey:0:1 --fault rkey:1:1");

	assert_int_equal(r.status, 1); /* the faults hit: completion errors, not a usage error */
	assert_null(strstr(r.err, "given twice"));
	run_free(&r);
}

/* Fault numbers are digits up to 2^32 - 1: 4294967297 used to become op 1. */
static void fault_numbers(void **state)
{
	(void)state;
	need_cclab();
	expect(2, "OP is larger than 4294967295", "sim -n 4 -b 1K --fault rkey:0:4294967297");
	expect(2, "RANK is larger than 4294967295", "sim -n 4 -b 1K --fault rkey:99999999999:1");
	expect(2, "expected rkey:RANK:OP with RANK and OP in decimal digits",
	       "sim -n 4 -b 1K --fault rkey:0:-1");
	expect(2, "expected lkey:RANK:OP", "sim -n 4 -b 1K --fault lkey:0:1x");
	/* the same in a scenario, at its line and column */
	put("f.yaml", "topology: {generator: star, ranks: 4}\ncollective: allreduce\n"
		      "sizes: 1KiB\nfaults: [\"rkey:0:4294967297\"]\n");
	expect(2, "f.yaml:4:10: 'faults': 'rkey:0:4294967297': OP is larger than 4294967295",
	       "run '%s'", at("f.yaml"));
}

/* `faults:` takes what --fault takes: a key fault that hits op 1 (rank 0's
 * first WRITE) ends the run with the error a real RNIC gives, named as the
 * file's; one that names a poll is refused at the file's key. */
static void scenario_key_faults(void **state)
{
	struct run r;

	(void)state;
	need_cclab();
	put("k.yaml", "topology: {generator: star, ranks: 4}\ncollective: allreduce\n"
		      "sizes: 1KiB\nfaults: [\"rkey:0:1\"]\n");
	r = run_cclab("run '%s'", at("k.yaml"));
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "cclab run: 1024 bytes: completion_error: rank 0 qp 1 op 1 "
				      "(post_send) wr_id 1"));
	assert_non_null(strstr(r.err, "IBV_WC_REM_ACCESS_ERR"));
	run_free(&r);
	put("k3.yaml", "topology: {generator: star, ranks: 4}\ncollective: allreduce\n"
		       "sizes: 1KiB\nfaults: [\"rkey:0:3\"]\n");
	expect(2, "cclab run: 'faults:' rkey:0:3 at 1024 bytes: op 3 of rank 0 is a poll_cq, not a "
	       "post_send", "run '%s'", at("k3.yaml"));
	put("k9.yaml", "topology: {generator: star, ranks: 4}\ncollective: allreduce\n"
		       "sizes: 1KiB\nfaults: [\"norecv:9:1\"]\n");
	expect(2, "'faults': 'norecv:9:1': rank 9 does not exist (4 ranks)", "run '%s'",
	       at("k9.yaml"));
	/* a simulator fault on an executor that cannot apply it is said */
	put("d.yaml", "topology: {generator: star, ranks: 4}\ncollective: allreduce\n"
		      "sizes: 1KiB\nexecutors: [sim, data]\nfaults: [\"slow-gpu:rank=1x2\"]\n");
	r = run_cclab("run '%s'", at("d.yaml"));
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "cclab run: the data executor runs without the simulator's "
				      "faults (link-down, no-ack, slow-gpu): it models no time and no "
				      "links"));
	run_free(&r);
}

/* Too large is said as too large, with the bound. */
static void too_large(void **state)
{
	(void)state;
	need_cclab();
	expect(2, "invalid value '1e21' for -f: too large: at most 18446744073709551615",
	       "sim -n 2 -b 1K -e 1M -f 1e21");
	expect(2, "invalid value '99999999999999999999999' for -f: too large",
	       "sim -n 2 -b 1K -e 1M -f 99999999999999999999999");
	expect(2, "invalid value '131073' for -n: too large: at most 131072", "sim -n 131073 -b 1K");
	/* the simulator's range, not the bootstrap's: refused before a fork */
	expect(2, "-n 70000: the verbs executor joins at most 65536 ranks", "run -n 70000 -b 1K");
	expect(2, "invalid value '1.5' for -f: expected a whole number >= 2",
	       "sim -n 2 -b 1K -e 1M -f 1.5");
}

/* A path of thousands of characters: its two ends, its length, and then
 * the reason, which used to be lost. */
static void long_paths(void **state)
{
	char *y = malloc(901); /* run_cclab's command line holds about 1000 */

	(void)state;
	need_cclab();
	assert_non_null(y);
	memset(y, 'y', 900);
	y[900] = '\0';
	expect(1, "(900 characters)': File name too long", "sim -n 2 -b 1K --json %s", y);
	expect(2, ": cannot read: File name too long", "run %s", y);
	expect(2, "yyy (902 characters): cannot read: No such file or directory",
	       "sim -n 2 -b 1K --fabric a/%s", y);
	expect(2, "(900 characters)' for --fabric:", "sim -n 2 -b 1K --fabric %s", y);
	free(y);
}

/* Rail order needs nodes of two or more GPUs, in run and sim alike. */
static void rail_order_one_gpu(void **state)
{
	(void)state;
	need_cclab();
	put("r.yaml", "topology: {generator: star, ranks: 4}\ncollective: allreduce\n"
		      "sizes: 1KiB\nring_order: rail\n");
	expect(2, "r.yaml:4:13: 'ring_order': rail orders the ring on nodes: it needs the ring "
	       "algorithm and two or more ranks per node dividing 4 ranks (algorithm ring, 1 per "
	       "node)",
	       "run '%s'", at("r.yaml"));
	expect(2, "--ring-order: rail orders the ring on nodes: it needs the ring algorithm and "
	       "two or more ranks per node dividing 4 ranks",
	       "sim -n 4 -b 1K --topology star --ring-order rail");
	expect(2, "two or more ranks per node dividing 4 ranks (algorithm ring, 1 per node)", "sim -n 4 -b 1K --ranks-per-node 1 --ring-order rail");
}

/* NVLink joins GPUs and the NVSwitch of one host: to a network switch or
 * across hosts it is refused at the link's kind. */
static void nvlink_across_hosts(void **state)
{
	static const char head[] = "name: t\nhosts:\n  - {name: a, gpus: 2, nvlink: true}\n"
				   "  - {name: b, gpus: 2, nvlink: true}\nswitches: [tor]\nlinks:\n"
				   "  - {a: a.gpu0, b: tor}\n  - {a: a.gpu1, b: tor}\n"
				   "  - {a: b.gpu0, b: tor}\n  - {a: b.gpu1, b: tor}\n";
	static const char run[] = "topology: t.yaml\ncollective: allreduce\nsizes: 1KiB\n";
	char text[1024];

	(void)state;
	need_cclab();
	put("s.yaml", run);
	snprintf(text, sizeof(text), "%s  - {a: a.gpu0, b: tor, kind: nvlink}\n", head);
	put("t.yaml", text);
	expect(2, "t.yaml:11:31: 'kind: nvlink' joins GPUs and the NVSwitch of one host; a.gpu0 and "
	       "tor are not both in a host: make it a net link", "run '%s'", at("s.yaml"));
	snprintf(text, sizeof(text), "%s  - {a: a.gpu0, b: b.nvswitch, kind: nvlink}\n", head);
	put("t.yaml", text);
	expect(2, "a.gpu0 and b.nvswitch are in different hosts", "run '%s'", at("s.yaml"));
	snprintf(text, sizeof(text), "%s  - {a: a.gpu0, b: b.gpu1, kind: nvlink}\n", head);
	put("t.yaml", text);
	expect(2, "in different hosts", "run '%s'", at("s.yaml"));
	/* within a host it is fine */
	snprintf(text, sizeof(text), "%s  - {a: a.gpu0, b: a.gpu1, kind: nvlink}\n", head);
	put("t.yaml", text);
	struct run r = run_cclab("run '%s'", at("s.yaml"));

	assert_int_equal(r.status, 0);
	run_free(&r);
}

/* `cclab run` names itself in its messages, not the executor it runs. */
static void run_says_run(void **state)
{
	struct run r;

	(void)state;
	need_cclab();
	put("m.yaml", "topology: {generator: star, ranks: 2}\ncollective: allreduce\n"
		      "sizes: 1KiB\n");
	r = run_cclab("run '%s' --trace '%s/no/such/dir/t.json'", at("m.yaml"), tmpdir);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "cclab run: cannot write"));
	assert_null(strstr(r.err, "cclab sim:"));
	run_free(&r);
}

static int setup(void **state)
{
	(void)state;
	return run_cclab_begin("cli-checks");
}

static int teardown(void **state)
{
	(void)state;
	return run_cclab_end();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(repeated_options),
		cmocka_unit_test(fault_numbers),
		cmocka_unit_test(scenario_key_faults),
		cmocka_unit_test(too_large),
		cmocka_unit_test(long_paths),
		cmocka_unit_test(rail_order_one_gpu),
		cmocka_unit_test(nvlink_across_hosts),
		cmocka_unit_test(run_says_run),
	};

	return cmocka_run_group_tests_name("cli checks", tests, setup, teardown);
}
