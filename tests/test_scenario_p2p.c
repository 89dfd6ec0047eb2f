/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_scenario_p2p.c — scenario files with a `p2p:` section
 * (sim/scenario_p2p.c, cli/p2p_run.c, docs/yaml.md):
 *
 *   - a p2p scenario loads with perftest's defaults filled in, `sizes`
 *     optional, on a topology with more than two GPUs too;
 *   - a collective's keys beside `p2p:` are refused, naming both places;
 *   - `cclab run` prints perftest's table and the closing "Out of bounds"
 *     line, exits 0 within its expectations and 1 naming a missed one
 *     (lat in us, bw as SI GB/s against perftest's 2^20-byte MB, msg_rate);
 *   - --set p2p.op=... changes the test; --json and --csv describe it.
 * The broken corpus (tests/scenarios/broken/4x-5x) has the load errors'
 * exact messages; test_scenarios.c runs the seeds' p2p scenarios.
 * Runs from the repository root; the cclab binary is $CCLAB. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
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

#include "sim/scenario.h"

static int setup(void **state)
{
	(void)state;
	return run_cclab_begin("sp2p");
}

static int teardown(void **state)
{
	(void)state;
	return run_cclab_end();
}


/* A scenario file in the temporary directory; its path in buf. */
static void write_file(char *buf, size_t len, const char *name, const char *text)
{
	FILE *f;

	snprintf(buf, len, "%s/%s", tmpdir, name);
	f = fopen(buf, "w");
	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

static void loads_with_defaults(void **state)
{
	const char *const star8[] = {"topology={generator: star, ranks: 8}"};
	struct cc_scenario sc;
	struct cy_error err;
	char path[160];

	(void)state;
	if (cc_scenario_load("scenarios/seeds/06-fetch-add-bw.yaml", NULL, 0, &sc, &err))
		fail_msg("%s", err.msg);
	assert_true(sc.is_p2p);
	assert_int_equal(sc.p2p.op, CC_P2P_FETCH_ADD);
	assert_int_equal(sc.p2p.mode, CC_P2P_BW);
	/* perftest's ib_atomic_bw defaults, as `cclab p2p` has them */
	assert_int_equal(sc.p2p.iters, CC_P2P_ITERS_BW);
	assert_int_equal(sc.p2p.tx_depth, CC_P2P_TX_DEPTH_BW);
	assert_int_equal(sc.p2p.cq_mod, CC_P2P_CQ_MOD);
	assert_int_equal(sc.p2p.rx_depth, CC_P2P_RX_DEPTH);
	assert_int_equal(sc.p2p.mem, CC_MEM_HOST);
	assert_int_equal(sc.p2p.size, 8);
	assert_int_equal(sc.p2p.nranks, 2);
	assert_int_equal(sc.nexpect, 1);
	assert_true(sc.expect[0].rate_min_pps > 1800000 && sc.expect[0].rate_max_pps < 1900000);
	assert_true(sc.expect[0].bw_max_bps == UINT64_MAX);
	cc_scenario_free(&sc);

	/* No sizes: perftest's default for the test (-s 2 for lat); every
	 * key given overrides its default; any topology of 2 GPUs or more. */
	write_file(path, sizeof(path), "lat.yaml",
		   "topology: {generator: ring, ranks: 2}\n"
		   "p2p: {op: send, mode: lat, iters: 50, rx_depth: 16, mem: gpu}\n");
	if (cc_scenario_load(path, NULL, 0, &sc, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(sc.minbytes, CC_P2P_SIZE_LAT);
	assert_int_equal(sc.maxbytes, CC_P2P_SIZE_LAT);
	assert_int_equal(sc.p2p.tx_depth, CC_P2P_TX_DEPTH_LAT);
	assert_int_equal(sc.p2p.iters, 50);
	assert_int_equal(sc.p2p.rx_depth, 16);
	assert_int_equal(sc.p2p.mem, CC_MEM_GPU);
	assert_string_equal(sc.fabric.name, "ib-hdr");
	cc_scenario_free(&sc);
	if (cc_scenario_load(path, star8, 1, &sc, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(sc.p2p.nranks, 8); /* ranks 2..7 idle */
	assert_false(sc.p2p.bidir);
	cc_scenario_free(&sc);

	/* perftest -l: the CQ moderation follows the list unless given; a
	 * list perftest refuses is refused at its key */
	write_file(path, sizeof(path), "list.yaml",
		   "topology: {generator: star, ranks: 2}\n"
		   "p2p: {op: write, iters: 64, post_list: 8}\n");
	if (cc_scenario_load(path, NULL, 0, &sc, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(sc.p2p.post_list, 8);
	assert_int_equal(sc.p2p.cq_mod, 8);
	cc_scenario_free(&sc);
	write_file(path, sizeof(path), "list4.yaml",
		   "topology: {generator: star, ranks: 2}\n"
		   "p2p: {op: write, iters: 64, post_list: 8, cq_mod: 4}\n");
	if (cc_scenario_load(path, NULL, 0, &sc, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(sc.p2p.cq_mod, 4);
	cc_scenario_free(&sc);
	write_file(path, sizeof(path), "list60.yaml",
		   "topology: {generator: star, ranks: 2}\n"
		   "p2p: {op: write, iters: 60, post_list: 8}\n");
	assert_int_not_equal(cc_scenario_load(path, NULL, 0, &sc, &err), 0);
	/* the file, line 2 (the p2p section's post_list) */
	assert_non_null(strstr(err.msg, "list60.yaml:2:"));
	assert_non_null(strstr(err.msg, "'post_list': iterations 60: not a multiple of the post "
				      "list, 8"));

	/* perftest -b: bw only, said at the key */
	write_file(path, sizeof(path), "bidir.yaml",
		   "topology: {generator: star, ranks: 2}\n"
		   "p2p: {op: write, bidirectional: true}\n");
	if (cc_scenario_load(path, NULL, 0, &sc, &err))
		fail_msg("%s", err.msg);
	assert_true(sc.p2p.bidir);
	cc_scenario_free(&sc);
	write_file(path, sizeof(path), "bidir-lat.yaml",
		   "topology: {generator: star, ranks: 2}\n"
		   "p2p: {op: write, mode: lat, bidirectional: true}\n");
	assert_int_equal(cc_scenario_load(path, NULL, 0, &sc, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "bidir-lat.yaml:2:44: 'bidirectional': only bw tests"));
}

static void conflicts_refused(void **state)
{
	const char *const transport[] = {"transport=send_recv"};
	const char *const op[] = {"p2p.op=read"};
	struct cc_scenario sc;
	struct cy_error err;

	(void)state;
	assert_int_equal(cc_scenario_load("scenarios/seeds/05-write-lat.yaml", transport, 1, &sc,
					  &err), -EINVAL);
	assert_non_null(strstr(err.msg, "--set transport=send_recv:1:1: 'transport' is a "
				       "collective's key, but this scenario runs a p2p test ('p2p' on "
				       "scenarios/seeds/05-write-lat.yaml:"));
	/* a collective's file turned p2p by --set: its collective key is named */
	assert_int_equal(cc_scenario_load("scenarios/demo.yaml", op, 1, &sc, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "scenarios/demo.yaml:9:1: 'collective' and 'p2p' (--set "
				       "p2p.op=read:1) exclude each other"));
}

static void run_prints_table(void **state)
{
	struct run r;

	(void)state;
	need_cclab();
	r = run_cclab("run scenarios/seeds/05-write-lat.yaml");
	if (r.status != 0)
		fail_msg("exit %d\n%s%s", r.status, r.out, r.err);
	assert_non_null(strstr(r.out, "as ib_write_lat: RDMA_WRITE_WITH_IMM"));
	assert_non_null(strstr(r.out, "# scenario: seed-05-write-lat "
				      "(scenarios/seeds/05-write-lat.yaml)\n"));
	assert_non_null(strstr(r.out, "# fabric: roce-100g  topology: star  link: rocev2-ipv4"));
	assert_non_null(strstr(r.out, " #bytes #iterations    t_min[usec]"));
	assert_int_equal(count_substr(r.out, "\n 65536 "), 1);
	assert_int_equal(count_lines_starting(r.out, " "), 1 + 14); /* 8 B .. 64 KiB */
	/* the last line, as the collective path ends */
	size_t n = strlen(r.out);

	assert_true(n > 30 && !strcmp(r.out + n - 30, "# Out of bounds values : 0 OK\n"));
	assert_string_equal(r.err, "");
	run_free(&r);
}

static void missed_expectations(void **state)
{
	struct run r;

	(void)state;
	need_cclab();
	r = run_cclab("run scenarios/seeds/05-write-lat.yaml --set 'expect=[{size: 8, lat: "
		      "{max: 1us}}]'");
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "cclab run: --set expect=[{size: 8, lat: {max: 1us}}]:1: "
				      "8 bytes: t_avg 1.21"));
	assert_non_null(strstr(r.err, " us is above the expected max 1 us\n"));
	/* the rows are fine: nccl-tests' count is of failed rows, as a collective's */
	assert_non_null(strstr(r.out, "# Out of bounds values : 0 OK\n"));
	run_free(&r);

	/* 11672 MB/sec is 2^20-byte MB: 12.24 GB/s (SI), inside 12.2 .. 12.3 */
	r = run_cclab("run scenarios/seeds/05-write-bw.yaml --set sizes=64KiB --set p2p.iters=500 "
		      "--set 'expect=[{size: 64KiB, bw: {min: 12.2GB/s, max: 12.3GB/s}}]'");
	if (r.status != 0)
		fail_msg("exit %d\n%s%s", r.status, r.out, r.err);
	run_free(&r);
	r = run_cclab("run scenarios/seeds/05-write-bw.yaml --set sizes=64KiB --set p2p.iters=500 "
		      "--set 'expect=[{size: 64KiB, bw: {min: 12.3GB/s}, msg_rate: {max: "
		      "100kpps}}]'");
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, ":1: 65536 bytes: BW average 12.2"));
	assert_non_null(strstr(r.err, " GB/s is below the expected min 12.3 GB/s\n"));
	assert_non_null(strstr(r.err, "in perftest's MB/sec (2^20 B/s): 116"));
	assert_non_null(strstr(r.err, "expected at least 11730.19\n"));
	assert_non_null(strstr(r.err, "65536 bytes: MsgRate 0.18"));
	assert_non_null(strstr(r.err, " Mpps is above the expected max 0.1 Mpps\n"));
	run_free(&r);
}

static void set_op_and_files(void **state)
{
	char json[160], csv[160];
	struct run r;

	(void)state;
	need_cclab();
	r = run_cclab("run scenarios/seeds/05-write-lat.yaml --set p2p.op=read --set sizes=8 "
		      "--set expect=[]");
	if (r.status != 0)
		fail_msg("exit %d\n%s%s", r.status, r.out, r.err);
	assert_non_null(strstr(r.out, "p2p: read lat, as ib_read_lat: RDMA_READ"));
	run_free(&r);

	snprintf(json, sizeof(json), "%s/r.json", tmpdir);
	snprintf(csv, sizeof(csv), "%s/r.csv", tmpdir);
	char *first = NULL;

	for (int i = 0; i < 2; i++) {
		r = run_cclab("run scenarios/seeds/06-fetch-add-bw.yaml --set p2p.iters=200 "
			      "--set expect=[] --json '%s' --csv '%s'", json, csv);
		assert_int_equal(r.status, 0);
		run_free(&r);
		char *j = slurp(json, NULL);

		assert_non_null(j);
		if (!first) {
			first = j;
			continue;
		}
		assert_string_equal(first, j); /* deterministic, byte for byte */
		free(j);
	}
	assert_non_null(strstr(first, "\"command\": \"p2p\""));
	assert_non_null(strstr(first, "\"perftest\": \"ib_atomic_bw -A FETCH_AND_ADD\""));
	assert_non_null(strstr(first, "\"scenario\": {"));
	assert_non_null(strstr(first, "\"name\": \"seed-06-fetch-add-bw\""));
	assert_non_null(strstr(first, "\"p2p\": {"));
	assert_non_null(strstr(first, "\"iters\": 200"));
	assert_non_null(strstr(first, "\"msg_rate_mpps\""));
	assert_non_null(strstr(first, "\"ok\": true"));
	free(first);
	char *c = slurp(csv, NULL);

	assert_non_null(c);
	assert_non_null(strstr(c, "scenario,executor,fabric,topology,op,mode,size_bytes,iterations,"
				  "bw_peak_mib_s,bw_avg_mib_s,msg_rate_mpps,t_min_us,t_max_us,"
				  "t_typical_us,t_avg_us,bound_us,status\n"
				  "seed-06-fetch-add-bw,sim,roce-100g,star,fetch_add,bw,8,200,"));
	assert_non_null(strstr(c, ",,,,,"));
	assert_int_equal(count_substr(c, "\n"), 2);
	free(c);

	/* a failed expectation still writes the report, which says so */
	r = run_cclab("run scenarios/seeds/06-write-8B-lat.yaml --set 'expect=[{size: 8, lat: "
		      "{min: 5us}}]' --json '%s'", json);
	assert_int_equal(r.status, 1);
	run_free(&r);
	c = slurp(json, NULL);
	assert_non_null(c);
	assert_non_null(strstr(c, "\"ok\": false"));
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(loads_with_defaults),
		cmocka_unit_test(conflicts_refused),
		cmocka_unit_test(run_prints_table),
		cmocka_unit_test(missed_expectations),
		cmocka_unit_test(set_op_and_files),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
