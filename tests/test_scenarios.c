/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_scenarios.c — scenario and topology files, end to end.
 *
 *   - every shipped scenario (scenarios/) and topology (topologies/) loads,
 *     with the rank counts their comments promise;
 *   - the broken corpus (tests/scenarios/broken/, one file per case): `cclab run` on each
 *     exits 2 with exactly the message in broken/EXPECTED (file:line:col,
 *     what is wrong, what was expected), and writes no result file;
 *   - the regression scenarios (tests/scenarios/, YAML files) meet their
 *     `expect:` blocks; a missed expectation exits 1 and names it;
 *   - --set overrides, --csv rows, and two runs giving identical files;
 *   - the seeds' claims (scenarios/seeds/, docs/seed-claims.md) hold their
 *     stored expectations, and NCCL's ring loop is 2k-1 primitive steps;
 *     p2p scenarios have their own tests (test_scenario_p2p.c).
 * Runs from the repository root (tests/run.sh does); the cclab binary is
 * $CCLAB, so the sanitizer pass checks the loader under ASan too. */
#include <dirent.h>
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

#include "sim/net_yaml.h"
#include "sim/scenario.h"

#define BROKEN "tests/scenarios/broken"

static int setup(void **state)
{
	(void)state;
	return run_cclab_begin("scen");
}

static int teardown(void **state)
{
	(void)state;
	return run_cclab_end();
}


/* Every shipped file loads, through the library itself. */
static void shipped_files_load(void **state)
{
	static const struct {
		const char *path;
		uint32_t ranks;
	} topo[] = {
		{"topologies/star-8.yaml", 8},
		{"topologies/railopt-2x8.yaml", 16},
		{"topologies/leafspine-64-2to1.yaml", 64},
		{"topologies/two-nodes-nvlink.yaml", 8},
		{"topologies/dgx-a100-2x8-pcie.yaml", 16},
	};
	static const char *const scen[] = {
		"scenarios/demo.yaml", "scenarios/ndr-leafspine-64.yaml",
		"scenarios/roce400-railopt-2x8.yaml", "scenarios/seeds/04-write.yaml",
		"tests/scenarios/ring-hdr-allreduce.yaml",
		"tests/scenarios/leafspine-ndr-reducescatter.yaml",
		"tests/scenarios/railopt-roce400-allgather.yaml", "tests/scenarios/two-nodes-file.yaml",
		"tests/scenarios/railopt-tree-allreduce.yaml",
	};
	struct cy_error err;

	(void)state;
	for (size_t i = 0; i < sizeof(topo) / sizeof(topo[0]); i++) {
		struct sim_net n;

		sim_net_init(&n, "");
		if (sim_net_load(&n, topo[i].path, &err))
			fail_msg("%s: %s", topo[i].path, err.msg);
		assert_int_equal(n.nranks, topo[i].ranks);
		sim_net_free(&n);
	}
	for (size_t i = 0; i < sizeof(scen) / sizeof(scen[0]); i++) {
		struct cc_scenario sc;

		if (cc_scenario_load(scen[i], NULL, 0, &sc, &err))
			fail_msg("%s: %s", scen[i], err.msg);
		assert_true(sc.p.nranks >= 8);
		cc_scenario_free(&sc);
	}
}

/* Each broken file: exit 2, its exact message, no file written. */
static void broken_corpus(void **state)
{
	char *table = slurp(BROKEN "/EXPECTED", NULL);
	int cases = 0;

	(void)state;
	need_cclab();
	assert_non_null(table);
	for (char *line = strtok(table, "\n"); line; line = strtok(NULL, "\n")) {
		char *tab = strchr(line, '\t'), want[1200], json[160];
		struct run r;

		assert_non_null(tab);
		*tab = '\0';
		snprintf(json, sizeof(json), "%s/out.json", tmpdir);
		r = run_cclab("run %s/%s --json '%s'", BROKEN, line, json);
		snprintf(want, sizeof(want), "cclab run: %s\n", tab + 1);
		if (r.status != 2 || strcmp(r.err, want))
			fail_msg("%s: exit %d, stderr:\n%s\nwanted:\n%s", line, r.status, r.err, want);
		assert_int_equal(access(json, F_OK), -1); /* nothing written */
		assert_string_equal(r.out, "");
		run_free(&r);
		cases++;
	}
	free(table);
	assert_true(cases >= 30);
	/* every file of the corpus is in the table */
	DIR *d = opendir(BROKEN);
	struct dirent *e;
	int files = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		files += strstr(e->d_name, ".yaml") != NULL;
	closedir(d);
	assert_int_equal(files, cases);
}

/* The regression scenarios hold; a wrong expectation is caught. */
static void regressions_hold(void **state)
{
	static const char *const scen[] = {
		"ring-hdr-allreduce", "leafspine-ndr-reducescatter", "railopt-roce400-allgather",
		"two-nodes-file", "p2p-roce400-link-mtu", "railopt-tree-allreduce",
	};
	struct run r;

	(void)state;
	need_cclab();
	for (size_t i = 0; i < sizeof(scen) / sizeof(scen[0]); i++) {
		r = run_cclab("run tests/scenarios/%s.yaml", scen[i]);
		if (r.status != 0)
			fail_msg("%s: exit %d\n%s%s", scen[i], r.status, r.out, r.err);
		assert_non_null(strstr(r.out, "# Out of bounds values : 0 OK"));
		run_free(&r);
	}
	/* The same run held to bounds it cannot meet: exit 1, each named. */
	r = run_cclab("run tests/scenarios/ring-hdr-allreduce.yaml --set "
		      "'expect=[{size: 64MiB, time: {max: 1ms}, data_bytes_per_rank: 5}]'");
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "--set expect=[{size: 64MiB, time: {max: 1ms}, "
				      "data_bytes_per_rank: 5}]:1: 67108864 bytes: time "));
	assert_non_null(strstr(r.err, "is above the expected max 1 ms"));
	assert_non_null(strstr(r.err, "rank 0 sent 117440512 data bytes, expected 5"));
	run_free(&r);
}

/* --set changes what runs; --csv has a row per size; two runs, same bytes. */
static void overrides_and_files(void **state)
{
	char a[160], b[160], ca[160], cb[160];
	struct run r;

	(void)state;
	need_cclab();
	snprintf(a, sizeof(a), "%s/a.json", tmpdir);
	snprintf(b, sizeof(b), "%s/b.json", tmpdir);
	snprintf(ca, sizeof(ca), "%s/a.csv", tmpdir);
	snprintf(cb, sizeof(cb), "%s/b.csv", tmpdir);
	for (int i = 0; i < 2; i++) {
		r = run_cclab("run scenarios/demo.yaml --set 'sizes={min: 1MiB, max: 4MiB}' "
			      "--set transport=send_recv --set fabric.link.prop_delay_ps=1us "
			      "--json '%s' --csv '%s'", i ? b : a, i ? cb : ca);
		assert_int_equal(r.status, 0);
		/* the whole `sizes` is replaced: factor back to 2, 1 to 4 MiB */
		assert_int_equal(count_rows(r.out), 3);
		run_free(&r);
	}
	char *ja = slurp(a, NULL), *jb = slurp(b, NULL), *csv = slurp(ca, NULL), *csvb = slurp(cb, NULL);

	assert_non_null(ja);
	assert_non_null(jb);
	assert_string_equal(ja, jb);
	assert_string_equal(csv, csvb);
	/* the resolved scenario and the override are in the report */
	assert_non_null(strstr(ja, "\"scenario\": {"));
	assert_non_null(strstr(ja, "\"link.prop_delay_ps\": 1000000"));
	assert_non_null(strstr(ja, "\"transport\": \"send_recv\""));
	/* per size, every link direction's counters: the first is h0's uplink,
	 * which carries rank 0's two QPs (to its ring neighbours) */
	assert_non_null(strstr(ja, "\"links\": [\n"));
	assert_non_null(strstr(ja, "\"from\": \"h0.gpu0\",\n"));
	assert_non_null(strstr(ja, "\"flows\": 2\n"));
	assert_non_null(strstr(csv, "scenario,executor,fabric,topology,collective,transport,"
				    "nranks,dtype,redop,size_bytes,count,time_us,algbw_gbps,"
				    "busbw_gbps,bound_us,wrong,status,algorithm,protocol,"
				    "channels,ring_order\n"
				    "demo,sim,roce-100g,star-8,allreduce,send_recv,8,float,sum,"
				    "1048576,262144,"));
	assert_non_null(strstr(csv, ",0,ok,ring,simple,1,rank\n"));
	assert_int_equal(count_substr(csv, "\n"), 4);
	free(ja);
	free(jb);
	free(csv);
	free(csvb);
	/* --links: every direction of star-8's 8 cables, with its utilisation */
	snprintf(a, sizeof(a), "%s/links.csv", tmpdir);
	r = run_cclab("run scenarios/demo.yaml --set sizes=64MiB --set check=false --links '%s'", a);
	assert_int_equal(r.status, 0);
	run_free(&r);
	csv = slurp(a, NULL);
	assert_non_null(csv);
	assert_non_null(strstr(csv, "link,from,to,kind,rate_bps,tx_bytes,busy_us,utilisation,"
				    "peak_queue_bytes,lost,pauses,paused_us,credit_stalls,ecn_marks,flows\n"
				    "h0.gpu0->sw0,h0.gpu0,sw0,net,100000000000,"));
	assert_int_equal(count_substr(csv, "\n"), 1 + 16);
	free(csv);
	/* two cables from spine0 to rail0 (railopt-2x8): told apart */
	r = run_cclab("run scenarios/roce400-railopt-2x8.yaml --set sizes=64KiB --set check=false "
		      "--links '%s'", a);
	assert_int_equal(r.status, 0);
	run_free(&r);
	csv = slurp(a, NULL);
	assert_non_null(csv);
	assert_non_null(strstr(csv, "\nspine0->rail0(1),spine0,rail0,net,"));
	assert_non_null(strstr(csv, "\nspine0->rail0(2),spine0,rail0,net,"));
	assert_null(strstr(csv, "\nspine0->rail0,"));
	assert_null(strstr(csv, "\nnode0.gpu0->node0.nvswitch("));
	free(csv);
	/* --trace FILE.csv: one line per event, in core/trace.h's columns */
	snprintf(a, sizeof(a), "%s/trace.csv", tmpdir);
	r = run_cclab("run scenarios/demo.yaml --set sizes=64KiB --trace '%s'", a);
	assert_int_equal(r.status, 0);
	run_free(&r);
	csv = slurp(a, NULL);
	assert_non_null(csv);
	assert_non_null(strstr(csv, "t_ps,dur_ps,kind,rank,track,qp,wr_id,bytes,op,prim,channel,"
				    "chunk,step,slice\n"));
	assert_true(count_substr(csv, ",reduce_begin,") > 0);
	free(csv);
	/* a --set that is not KEY=VALUE, and one the scenario refuses */
	r = run_cclab("run scenarios/demo.yaml --set sizes");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "expected KEY=VALUE"));
	run_free(&r);
	r = run_cclab("run scenarios/demo.yaml --set sizes.factr=2");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "unknown key 'factr' in 'sizes' (did you mean 'factor'?)"));
	run_free(&r);
	/* no scenario (and no option for the verbs executor), a missing one */
	r = run_cclab("run");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "missing the scenario file"));
	run_free(&r);
	r = run_cclab("run no-such.yaml");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "no-such.yaml: cannot read: No such file or directory"));
	run_free(&r);
}

/* Every seed-claim scenario meets its stored expectation, so a model
 * change that moves a claim's figure is noticed (docs/seed-claims.md).
 * Collectives and p2p tests (claims 5, 6, 8) end with the same line. */
static void seed_claims_hold(void **state)
{
	DIR *d = opendir("scenarios/seeds");
	struct dirent *e;
	int n = 0;

	(void)state;
	need_cclab();
	assert_non_null(d);
	while ((e = readdir(d))) {
		struct run r;

		if (!strstr(e->d_name, ".yaml"))
			continue;
		r = run_cclab("run scenarios/seeds/%s", e->d_name);
		if (r.status != 0)
			fail_msg("%s: exit %d\n%s%s", e->d_name, r.status, r.out, r.err);
		assert_non_null(strstr(r.out, "# Out of bounds values : 0 OK"));
		run_free(&r);
		n++;
	}
	closedir(d);
	assert_true(n >= 23); /* claims 1-4, 7, 9 (11 collectives); 5, 6, 8 (12 p2p tests) */
}

/* Claim 2: rank 0's loop of an 8-rank ring allreduce is 2k-1 = 15
 * primitives, in NCCL's order (src/device/all_reduce.h runRing). */
static void seed_ring_steps(void **state)
{
	static const char *const want[] = {
		"send", "recvReduceSend", "recvReduceSend", "recvReduceSend", "recvReduceSend",
		"recvReduceSend", "recvReduceSend", "recvReduceCopySend", "recvCopySend",
		"recvCopySend", "recvCopySend", "recvCopySend", "recvCopySend", "recvCopySend", "recv",
	};
	struct run r;
	const char *p;

	(void)state;
	need_cclab();
	r = run_cclab("schedule -n 8 -b 1MiB --primitives --rank 0");
	assert_int_equal(r.status, 0);
	assert_int_equal(count_substr(r.out, "\n"), 15);
	p = r.out;
	for (size_t i = 0; i < 15; i++) {
		const char *eol = strchr(p, '\n');
		char tail[64];

		assert_non_null(eol);
		snprintf(tail, sizeof(tail), "step %zu %s\n", i, want[i]);
		assert_true((size_t)(eol + 1 - p) >= strlen(tail));
		assert_memory_equal(eol + 1 - strlen(tail), tail, strlen(tail));
		p = eol + 1;
	}
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shipped_files_load),
		cmocka_unit_test(broken_corpus),
		cmocka_unit_test(regressions_hold),
		cmocka_unit_test(overrides_and_files),
		cmocka_unit_test(seed_claims_hold),
		cmocka_unit_test(seed_ring_steps),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
