/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_cli.c — the cclab program, run as a user would: exit codes,
 * messages, nccl-tests' table, the JSON report, the primitive listing.
 *
 * The binary's path comes from $CCLAB (tests/run.sh sets it); without it
 * every test here is skipped.  Commands run through system() with stdout
 * and stderr in files of a private temporary directory. */
#include <dirent.h>
#include <fcntl.h>
#include <regex.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cmocka.h>

#include "tests/files.h"
#include "tests/run_cclab.h"
#include "tests/clock.h"

#include "backend/bootstrap.h"
#include "core/schedule.h"
#include "sim/params.h"
#include "util/mem_limit.h"

static int setup(void **state)
{
	(void)state;
	return run_cclab_begin("cli");
}

static int teardown(void **state)
{
	(void)state;
	return run_cclab_end();
}

static void need_binary(void)
{
	if (!cclab || !*cclab) {
		print_message("CCLAB is not set (tests/run.sh sets it); skipping\n");
		skip();
	}
	assert_int_equal(access(cclab, X_OK), 0);
}

static void test_version(void **state)
{
	(void)state;
	need_binary();
	struct run r = run_cclab("--version");

	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "cclab 0.1.0\n");
	run_free(&r);
}

static void assert_has_all(const char *text, const char *const *needles)
{
	for (; *needles; needles++) {
		if (!strstr(text, *needles))
			fail_msg("help text lacks '%s'", *needles);
	}
}

static void test_help(void **state)
{
	static const char *const common[] = {
		"--nranks", "-n", "--collective", "-c", "--transport", "-t", "--datatype", "-d",
		"--op", "-o", "--chunk-bytes", "--slot-bytes", "--slots", "--help", "-h",
		"allreduce", "reducescatter", "allgather", "write_imm", "send_recv", "write_flag",
		NULL,
	};
	static const char *const check_only[] = {
		"--minbytes", "-b", "--maxbytes", "-e", "--stepfactor", "-f", "--seed",
		"--order-seed", "--json", NULL,
	};
	static const char *const schedule_only[] = {"--rank", "--primitives", "-b", NULL};
	static const char *const sim_only[] = {
		"--minbytes", "-b", "--maxbytes", "-e", "--stepfactor", "-f", "--seed", "--json",
		"--fabric", "--topology", "ring", "star", "--trace", "--check", "LAST size",
		"Example", NULL,
	};
	struct run r;

	(void)state;
	need_binary();
	r = run_cclab("help");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "schedule"));
	assert_non_null(strstr(r.out, "check"));
	assert_non_null(strstr(r.out, "\n  sim "));
	run_free(&r);

	r = run_cclab("--help");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "check"));
	run_free(&r);

	r = run_cclab("check --help");
	assert_int_equal(r.status, 0);
	assert_has_all(r.out, common);
	assert_has_all(r.out, check_only);
	assert_string_equal(r.err, "");
	run_free(&r);

	r = run_cclab("check -h");
	assert_int_equal(r.status, 0);
	assert_has_all(r.out, check_only);
	run_free(&r);

	r = run_cclab("sim --help");
	assert_int_equal(r.status, 0);
	assert_has_all(r.out, common);
	assert_has_all(r.out, sim_only);
	/* Every preset is listed, and --order-seed is check's alone. */
	for (const char *const *p = sim_params_preset_names(); *p; p++)
		if (!strstr(r.out, *p))
			fail_msg("sim help lacks the preset '%s'", *p);
	assert_null(strstr(r.out, "--order-seed"));
	assert_string_equal(r.err, "");
	run_free(&r);

	r = run_cclab("check --help");
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.out, "--fabric"));
	run_free(&r);

	r = run_cclab("schedule --help");
	assert_int_equal(r.status, 0);
	assert_has_all(r.out, common);
	assert_has_all(r.out, schedule_only);
	char *sched_help = strdup(r.out);

	run_free(&r);
	r = run_cclab("help schedule");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, sched_help);
	free(sched_help);
	run_free(&r);
}

static void test_no_command(void **state)
{
	struct run r;

	(void)state;
	need_binary();
	r = run_cclab("%s", "");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "Usage"));
	run_free(&r);

	r = run_cclab("frobnicate -n 4");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "frobnicate"));
	run_free(&r);

	r = run_cclab("help frobnicate");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "frobnicate"));
	run_free(&r);
}

/* Every bad command line: exit 2, nothing on stdout, a message on stderr
 * that names the option (and the value, when there is one), and a hint. */
static void test_bad_options(void **state)
{
	static const struct {
		const char *args;
		const char *names[3];
	} cases[] = {
		{"check -n 4 --bogus", {"--bogus"}},
		{"check -n 4 --bogus=1", {"--bogus"}},
		{"check -n 4 -Z", {"-Z"}},
		{"check", {"-n", "--nranks"}},
		{"check -n 0", {"-n", "'0'"}},
		{"check -n 200000", {"-n", "200000"}},
		{"check -n 4x", {"-n", "4x"}},
		{"check -n -3", {"-n", "-3"}},
		{"check --nranks= ", {"--nranks"}},
		{"check -n 4 -c allsum", {"-c", "allsum"}},
		{"check -n 4 --collective allsum", {"--collective", "allsum"}},
		{"check -n 4 -t rdma", {"-t", "rdma"}},
		{"check -n 4 -d float7", {"-d", "float7"}},
		{"check -n 4 -o xor", {"-o", "xor"}},
		{"check -n 4 -b 1X", {"-b", "1X"}},
		{"check -n 4 -b -5", {"-b", "-5"}},
		{"check -n 4 -b 1K5", {"-b", "1K5"}},
		{"check -n 4 -b 1.7K", {"-b", "1.7K", "not a whole number of bytes"}},
		{"check -n 4 -e 0.1K", {"-e", "0.1K", "not a whole number of bytes"}},
		{"check -n 4 -b 99999999999999999999999", {"-b", "99999999999999999999999"}},
		{"check -n 4 -e 1Q", {"-e", "1Q"}},
		{"check -n 4 -b 1M -e 1K", {"-b", "-e", "1048576"}},
		{"check -n 4 -f 1", {"-f", "'1'"}},
		{"check -n 4 -f two", {"-f", "two"}},
		{"check -n 4 -b", {"-b"}},
		{"check -n 4 --json", {"--json"}},
		{"check -n 4 --slots 0", {"--slots", "'0'"}},
		{"check -n 4 --chunk-bytes 0", {"--chunk-bytes", "'0'"}},
		{"check -n 4 --slot-bytes lots", {"--slot-bytes", "lots"}},
		{"check -n 4 --seed x", {"--seed", "x"}},
		{"check -n 4 stray", {"stray"}},
		{"check -n 4 --rank 1", {"--rank"}},
		{"check -n 4 --primitives", {"--primitives"}},
		{"schedule -n 4 --rank 4", {"--rank", "'4'"}},
		{"schedule -n 4 --rank x", {"--rank", "x"}},
		{"schedule -n 4 -e 1M", {"-e"}},
		{"schedule -n 4 --json out.json", {"--json"}},
		{"schedule -n 4 --primitives=yes", {"--primitives"}},
		{"schedule -n 4 --fabric ib-hdr", {"--fabric"}},
		{"check -n 4 --fabric ib-hdr", {"--fabric", "does not apply"}},
		{"check -n 4 --topology ring", {"--topology", "does not apply"}},
		{"check -n 4 --trace t.json", {"--trace", "does not apply"}},
		{"check -n 4 --check 1", {"--check", "does not apply"}},
		{"sim", {"-n", "--nranks"}},
		{"sim -n 4 --fabric foo", {"--fabric", "'foo'", "ib-hdr"}},
		{"sim -n 4 --fabric=", {"--fabric"}},
		{"sim -n 4 --fabric", {"--fabric"}},
		{"sim -n 4 --topology mesh", {"--topology", "'mesh'", "star"}},
		{"sim -n 4 --check 2", {"--check", "'2'"}},
		{"sim -n 4 --check yes", {"--check", "yes"}},
		{"sim -n 4 --order-seed 3", {"--order-seed", "does not apply"}},
		{"sim -n 4 --rank 1", {"--rank", "does not apply"}},
		{"sim -n 4 --trace", {"--trace"}},
		{"sim -n 4 --json same.json --trace same.json", {"--json", "--trace", "same.json"}},
		{"sim -n 4 -b 1M -e 1K", {"-b", "-e"}},
		{"sim -n 4 --json r.json --trace ./r.json", {"--json", "--trace", "same file"}},
		{"sim -n 4 --fault rkey:7:1", {"--fault", "rank 7 does not exist (-n 4)"}},
		{"sim -n 4 --fault rkey:-1:1", {"--fault", "rkey:-1:1"}},
		{"sim -n 4 -d float7", {"-d", "float7"}},
		{"sim -n 4 --gdr-flush", {"--gdr-flush", "does not apply"}},
		{"schedule -n 4 --gdr-flush=1", {"--gdr-flush"}},
		{"check -n 12 -A tree --ranks-per-node 5 -b 1K",
		 {"--ranks-per-node: ", "chains the ranks of each node", "(5) must divide 12 ranks"}},
	};

	(void)state;
	need_binary();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run r = run_cclab("%s", cases[i].args);

		if (r.status != 2)
			fail_msg("'cclab %s': exit %d, want 2", cases[i].args, r.status);
		if (*r.out)
			fail_msg("'cclab %s': printed on stdout: %s", cases[i].args, r.out);
		for (int k = 0; k < 3 && cases[i].names[k]; k++)
			if (!strstr(r.err, cases[i].names[k]))
				fail_msg("'cclab %s': message lacks '%s': %s", cases[i].args,
					 cases[i].names[k], r.err);
		if (!strstr(r.err, "Try 'cclab"))
			fail_msg("'cclab %s': no usage hint: %s", cases[i].args, r.err);
		run_free(&r);
	}
}

static void test_check_small(void **state)
{
	struct run r;

	(void)state;
	need_binary();
	r = run_cclab("check -n 4 -c allreduce -t write_imm -b 1K -e 4K -d float -o sum");
	if (r.status != 0)
		fail_msg("exit %d\n%s%s", r.status, r.out, r.err);
	/* Comment lines first, then nccl-tests' header and one row per size. */
	assert_non_null(strstr(r.out, "data (functional, no time)"));
	assert_non_null(strstr(r.out, "out-of-place only"));
	assert_non_null(strstr(r.out,
		"#       size         count      type   redop    root     time   algbw   busbw #wrong\n"));
	assert_non_null(strstr(r.out,
		"\n        1024           256     float     sum      -1      N/A     N/A     N/A      0\n"
		"        2048           512     float     sum      -1      N/A     N/A     N/A      0\n"
		"        4096          1024     float     sum      -1      N/A     N/A     N/A      0\n"
		"# Out of bounds values : 0 OK\n"));
	assert_int_equal(count_lines_starting(r.out, "        "), 3);
	for (const char *p = r.out; *p; p = strchr(p, '\n') + 1) {
		/* Every line is a comment or a row. */
		assert_true(*p == '#' || *p == ' ');
		if (!strchr(p, '\n'))
			break;
	}
	assert_string_equal(r.err, "");
	run_free(&r);

	/* Long option names, nccl-tests' spelling. */
	r = run_cclab("check --nranks 2 --collective allreduce --transport send_recv "
		      "--minbytes 64 --maxbytes 256 --stepfactor 4 --datatype int32 --op max");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out,
		"\n          64            16     int32     max      -1      N/A     N/A     N/A      0\n"
		"         256            64     int32     max      -1      N/A     N/A     N/A      0\n"));
	run_free(&r);
}

/* nccl-tests' size convention for reduce-scatter and all-gather: size is
 * the whole array, count is per rank, whole 16-byte units (1000 B on 3
 * ranks: 83 floats each, rounded down to 80); all-gather's redop is
 * "none". */
static void test_check_collectives(void **state)
{
	static const char *const colls[] = {"allreduce", "reducescatter", "allgather"};
	static const char *const transports[] = {"write_imm", "send_recv", "write_flag"};
	struct run r;

	(void)state;
	need_binary();
	r = run_cclab("check -n 4 -c reducescatter -t write_imm -b 1K");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out,
		"\n        1024            64     float     sum      -1      N/A     N/A     N/A      0\n"));
	run_free(&r);
	r = run_cclab("check -n 3 -c allgather -t write_imm -b 1000");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out,
		"\n         960            80     float    none      -1      N/A     N/A     N/A      0\n"));
	run_free(&r);

	for (size_t c = 0; c < 3; c++) {
		for (size_t t = 0; t < 3; t++) {
			r = run_cclab("check -n 3 -c %s -t %s -b 192 -e 3K -d half -o sum", colls[c],
				      transports[t]);
			if (r.status != 0 || !strstr(r.out, "# Out of bounds values : 0 OK\n"))
				fail_msg("%s %s: exit %d\n%s%s", colls[c], transports[t], r.status,
					 r.out, r.err);
			/* 192, 384, 768, 1536, 3072 */
			assert_int_equal(count_lines_starting(r.out, "   "), 5);
			run_free(&r);
		}
	}
	/* One rank: a copy. */
	r = run_cclab("check -n 1 -b 4K");
	assert_int_equal(r.status, 0);
	run_free(&r);
}

static void test_check_json(void **state)
{
	char path[128], cmdpath[160];
	struct run r;
	char *json;

	(void)state;
	need_binary();
	snprintf(path, sizeof(path), "%s/out.json", tmpdir);
	r = run_cclab("check -n 4 -c allgather -t send_recv -b 256 -e 1K --json '%s'", path);
	assert_int_equal(r.status, 0);
	run_free(&r);
	json = text_of(path);
	assert_non_null(strstr(json, "\"collective\": \"allgather\""));
	assert_non_null(strstr(json, "\"transport\": \"send_recv\""));
	assert_non_null(strstr(json, "\"nranks\": 4"));
	assert_int_equal(count_substr(json, "\"bytes\": "), 3);
	assert_int_equal(count_substr(json, "\"data_bytes_sent\": ["), 3);
	assert_int_equal(count_substr(json, "\"wire_msgs\": ["), 3);
	assert_int_equal(count_substr(json, "\"ops\": ["), 3);
	assert_int_equal(count_substr(json, "\"status\": \"ok\""), 3);
	assert_non_null(strstr(json, "\"ok\": true\n}\n"));
	/* Deterministic: the same run writes the same bytes. */
	r = run_cclab("check -n 4 -c allgather -t send_recv -b 256 -e 1K --json '%s'", path);
	assert_int_equal(r.status, 0);
	run_free(&r);
	char *again = text_of(path);

	assert_string_equal(json, again);
	free(again);
	free(json);
	/* Only our files in the directory: no temporary left behind. */
	assert_int_equal(dir_entries(tmpdir), 3); /* stdout, stderr, out.json */
	unlink(path);

	/* An unwritable report path fails at once, before any row. */
	snprintf(cmdpath, sizeof(cmdpath), "%s/no/such/dir/r.json", tmpdir);
	r = run_cclab("check -n 2 -b 64 --json '%s'", cmdpath);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, cmdpath));
	assert_int_equal(count_lines_starting(r.out, "   "), 0);
	run_free(&r);
}

/* The tree's chunk, per size, in the JSON and the preamble: NCCL's rule
 * when --chunk-bytes is not given (k = 16: 64 KiB at 1 and 2 MiB,
 * 128 KiB at 4 MiB, core/tree.c), the option's value when it is. */
static void test_tree_chunk_json(void **state)
{
	char path[128];
	struct run r;
	char *json;

	(void)state;
	need_binary();
	snprintf(path, sizeof(path), "%s/tree.json", tmpdir);
	r = run_cclab("check -n 16 -A tree -b 1M -e 4M --json '%s'", path);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "# chunk: per size, NCCL's tree rule"));
	run_free(&r);
	json = text_of(path);
	assert_non_null(strstr(json, "\"chunk_bytes\": 2097152,\n  \"chunk_per_size\": true,"));
	assert_int_equal(count_substr(json, "\"chunk_bytes\": 65536,"), 2);
	assert_int_equal(count_substr(json, "\"chunk_bytes\": 131072,"), 1);
	free(json);
	r = run_cclab("check -n 16 -A tree -b 1M -e 4M --chunk-bytes 256K --json '%s'", path);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "# chunk: 256KiB (262144 B)"));
	run_free(&r);
	json = text_of(path);
	assert_non_null(strstr(json, "\"chunk_per_size\": false,"));
	assert_int_equal(count_substr(json, "\"chunk_bytes\": 262144,"), 4);
	free(json);
	unlink(path);
}

/* ---- cclab sim ----
 *
 * The simulated numbers are the executor's business (tests/test_sim_*);
 * these tests check the command around them: the message for a bad fabric,
 * the table's shape, N/A for --check 0, the report and the trace. */

/* A bad --fabric names the option, the value and every preset. */
static void test_sim_bad_fabric(void **state)
{
	struct run r;

	(void)state;
	need_binary();
	r = run_cclab("sim -n 4 -b 64K --fabric ib-qdr");
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "--fabric"));
	assert_non_null(strstr(r.err, "ib-qdr"));
	for (const char *const *p = sim_params_preset_names(); *p; p++)
		if (!strstr(r.err, *p))
			fail_msg("message lacks the preset '%s': %s", *p, r.err);
	run_free(&r);
}

/* The rows of nccl-tests' table in out (float sum allreduce): each with a
 * time and bandwidths that are numbers and #wrong equal to want_wrong. */
static int sim_rows(const char *out, const char *want_wrong)
{
	regex_t re;
	regmatch_t m[7];
	int n = 0;
	char *copy = strdup(out), *save = NULL;

	assert_int_equal(regcomp(&re, "^ +([0-9]+) +([0-9]+) +float +sum +-1 +([0-9]+(\\.[0-9]+)?)"
				 " +[0-9]+\\.[0-9]{2} +[0-9]+\\.[0-9]{2} +([^ ]+)$", REG_EXTENDED), 0);
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		if (regexec(&re, line, 7, m, 0))
			fail_msg("not a timed table row: '%s'", line);
		if (strncmp(line + m[5].rm_so, want_wrong, (size_t)(m[5].rm_eo - m[5].rm_so)) ||
		    strlen(want_wrong) != (size_t)(m[5].rm_eo - m[5].rm_so))
			fail_msg("#wrong is not %s: '%s'", want_wrong, line);
		if (!(strtod(line + m[3].rm_so, NULL) > 0))
			fail_msg("no time: '%s'", line);
		n++;
	}
	regfree(&re);
	free(copy);
	return n;
}

static void test_sim_presets(void **state)
{
	static const char *const topos[] = {"ring", "star"};
	struct run r;

	(void)state;
	need_binary();
	for (const char *const *p = sim_params_preset_names(); *p; p++) {
		for (size_t t = 0; t < 2; t++) {
			r = run_cclab("sim -n 4 -b 64K -e 256K --fabric %s --topology %s", *p,
				      topos[t]);
			if (r.status != 0)
				fail_msg("%s %s: exit %d\n%s%s", *p, topos[t], r.status, r.out, r.err);
			assert_int_equal(sim_rows(r.out, "0"), 3); /* 64K, 128K, 256K */
			assert_non_null(strstr(r.out, "       65536         16384     float     sum"));
			assert_non_null(strstr(r.out, "      262144         65536     float     sum"));
			assert_non_null(strstr(r.out, "# Out of bounds values : 0 OK\n"));
			assert_non_null(strstr(r.out, *p));
			assert_string_equal(r.err, "");
			run_free(&r);
		}
	}
}

/* --check 0: nccl-tests' -c 0, "N/A" in #wrong; the times remain. */
static void test_sim_unchecked(void **state)
{
	struct run r;

	(void)state;
	need_binary();
	r = run_cclab("sim -n 4 -b 64K -e 256K --check 0");
	if (r.status != 0)
		fail_msg("exit %d\n%s%s", r.status, r.out, r.err);
	assert_int_equal(sim_rows(r.out, "N/A"), 3);
	assert_non_null(strstr(r.out, "validation: 0"));
	assert_non_null(strstr(r.out, "# Out of bounds values : 0 OK\n"));
	run_free(&r);
}

/* Flat per-rank arrays of four integers (or decimals) after key. */
static int count_rank_arrays(const char *json, const char *key)
{
	char pat[128];
	regex_t re;
	regmatch_t m[1];
	int n = 0;

	snprintf(pat, sizeof(pat), "\"%s\": \\[[-0-9.e+]+, [-0-9.e+]+, [-0-9.e+]+, [-0-9.e+]+\\]",
		 key);
	assert_int_equal(regcomp(&re, pat, REG_EXTENDED), 0);
	for (const char *p = json; !regexec(&re, p, 1, m, 0); p += m[0].rm_eo)
		n++;
	regfree(&re);
	return n;
}

static void test_sim_json_trace(void **state)
{
	static const char *const arrays[] = {
		"data_bytes_sent", "wire_bytes_sent", "wire_pkts", "payload_bytes", "acks",
		"rnr_naks", "retx_pkts", "retx_bytes", "wqes", "ops_done", "done_us", NULL,
	};
	char json_path[128], trace_path[128];
	char *json, *trace, *again;
	struct run r;

	(void)state;
	need_binary();
	snprintf(json_path, sizeof(json_path), "%s/sim.json", tmpdir);
	snprintf(trace_path, sizeof(trace_path), "%s/trace.json", tmpdir);
	r = run_cclab("sim -n 4 -b 64K -e 256K --topology star --json '%s' --trace '%s'",
		      json_path, trace_path);
	if (r.status != 0)
		fail_msg("exit %d\n%s%s", r.status, r.out, r.err);
	run_free(&r);
	json = text_of(json_path);
	trace = text_of(trace_path);
	assert_non_null(strstr(json, "\"command\": \"sim\""));
	assert_non_null(strstr(json, "\"executor\": \"sim\""));
	assert_non_null(strstr(json, "\"nranks\": 4"));
	assert_non_null(strstr(json, "\"fabric\": {"));
	assert_non_null(strstr(json, "\"name\": \"ib-hdr\""));
	assert_non_null(strstr(json, "\"link.rate_bps\": "));
	assert_non_null(strstr(json, "\"topology\": \"star\""));
	assert_non_null(strstr(json, "\"check\": true"));
	assert_int_equal(count_substr(json, "\"bytes\": "), 3);
	assert_int_equal(count_substr(json, "\"time_ps\": "), 3);
	assert_int_equal(count_substr(json, "\"bound_ps\": "), 3);
	assert_int_equal(count_substr(json, "\"wrong\": 0,"), 3);
	assert_int_equal(count_substr(json, "\"status\": \"ok\""), 3);
	for (const char *const *a = arrays; *a; a++)
		if (count_rank_arrays(json, *a) != 3)
			fail_msg("not 3 per-rank arrays of 4 for '%s':\n%s", *a, json);
	assert_int_equal(count_substr(json, "\"phases\": {"), 3);
	assert_non_null(strstr(json, "\"ok\": true\n}\n"));
	assert_non_null(strstr(trace, "{\"traceEvents\":["));
	/* Deterministic: the same run writes the same bytes, both files. */
	r = run_cclab("sim -n 4 -b 64K -e 256K --topology star --json '%s' --trace '%s'",
		      json_path, trace_path);
	assert_int_equal(r.status, 0);
	run_free(&r);
	again = text_of(json_path);
	assert_string_equal(json, again);
	free(again);
	again = text_of(trace_path);
	assert_string_equal(trace, again);
	free(again);
	free(json);
	free(trace);
	/* No temporary left behind: stdout, stderr and the two files. */
	assert_int_equal(dir_entries(tmpdir), 4);
	unlink(json_path);
	unlink(trace_path);

	/* --check 0: "wrong" is null, not 0. */
	r = run_cclab("sim -n 4 -b 64K --check 0 --json '%s'", json_path);
	assert_int_equal(r.status, 0);
	run_free(&r);
	json = text_of(json_path);
	assert_non_null(strstr(json, "\"check\": false"));
	assert_int_equal(count_substr(json, "\"wrong\": null,"), 1);
	free(json);
	unlink(json_path);
}

/* An unwritable report or trace path fails at once, before any row, and
 * leaves no file. */
static void test_sim_unwritable(void **state)
{
	static const char *const opts[] = {"--json", "--trace"};
	char bad[160];
	struct run r;

	(void)state;
	need_binary();
	snprintf(bad, sizeof(bad), "%s/no/such/dir/r.json", tmpdir);
	for (size_t i = 0; i < 2; i++) {
		int before = dir_entries(tmpdir);

		r = run_cclab("sim -n 4 -b 64K %s '%s'", opts[i], bad);
		assert_int_equal(r.status, 1);
		assert_non_null(strstr(r.err, bad));
		assert_int_equal(count_lines_starting(r.out, "   "), 0);
		assert_int_equal(access(bad, F_OK), -1);
		/* Nothing new beside stdout and stderr, which run_cclab makes. */
		assert_true(dir_entries(tmpdir) <= (before > 2 ? before : 2));
		run_free(&r);
	}
}

/* A sweep whose largest size would not fit in memory with data carried
 * (8 ranks x 64 GiB with their reference: 1.5 TiB) is refused before the
 * first row, with no report, and not after the smaller sizes ran;
 * --check 0 carries no data, so the same sweep is not refused (cut at
 * 4 MiB here), but one whose largest schedule would not fit (512 ranks:
 * about 495 GiB) is.  Both refusals are against 3/4 of this machine's
 * memory, so a machine of 512 GiB or more skips.  64 MiB slots keep the
 * 64 GiB schedule itself small (25 MB, not 2.7 GB). */
static void test_sim_memory_up_front(void **state)
{
	static const char *const cmds[] = {"sim", "check"};
	double gib = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGE_SIZE) / (1 << 30);
	char json[160];

	(void)state;
	need_binary();
	if (gib >= 512) {
		print_message("SKIP: this machine has %.0f GiB; the refusals need under 512\n", gib);
		skip();
	}
	snprintf(json, sizeof(json), "%s/big.json", tmpdir);
	for (size_t i = 0; i < 2; i++) {
		struct run r = run_cclab("%s -n 8 -b 1M -e 64G -f 4 --chunk-bytes 64M "
					 "--slot-bytes 64M --json '%s'", cmds[i], json);

		assert_int_equal(r.status, 1);
		assert_string_equal(r.out, "");
		assert_non_null(strstr(r.err, "68719476736 bytes: the buffers of all ranks would "
					      "not fit in this machine's memory (refused up front)"));
		assert_true((strstr(r.err, "--check 0 times the run") != NULL) == (i == 0));
		assert_int_equal(access(json, F_OK), -1);
		run_free(&r);
	}
	struct run r = run_cclab("sim -n 8 -b 1M -e 4M -f 4 --check 0 --json '%s'", json);

	assert_int_equal(r.status, 0);
	assert_int_equal(count_lines_starting(r.out, "     "), 2);
	run_free(&r);
	/* A largest size whose schedule cannot be held: refused before the
	 * first row too, data or not.  The hierarchical allreduce's schedule
	 * is built whole. */
	r = run_cclab("sim -n 512 -b 1M -e 64G -f 4 --check 0 -A hierarchical --ranks-per-node 8");
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "allreduce of 68719476736 bytes on 512 ranks: the schedule "
				      "would take about"));
	run_free(&r);
	/* The ring's and the tree's are generated as they run (core/gen.h):
	 * they hold what is in flight, so the same size is not refused; the
	 * wall-clock limit stops it, in the build (counting the ops). */
	for (int tree = 0; tree < 2; tree++) {
		r = run_cclab("sim -n 512 -b 64G --check 0 --wall-limit 500ms%s",
			      tree ? " -A tree" : "");
		assert_int_equal(r.status, 1);
		assert_null(strstr(r.err, "would take about"));
		assert_non_null(strstr(r.err, "time limit reached: the wall-clock limit (500 ms) "
					      "stopped"));
		run_free(&r);
	}
}

/* --rank R builds rank R's ops alone: the lines of the whole schedule
 * that are R's, and a rank of 4096 under a 1 GB address-space limit,
 * where the whole schedule (about 60 GB) is refused up front. */
static void test_schedule_one_rank(void **state)
{
	(void)state;
	need_binary();
	struct run whole = run_cclab("schedule -n 8 -b 1M --channels 2");
	struct run one = run_cclab("schedule -n 8 -b 1M --channels 2 --rank 3");
	char *want = calloc(1, strlen(whole.out) + 1), *w = want;

	assert_int_equal(whole.status, 0);
	assert_int_equal(one.status, 0);
	for (const char *l = whole.out; *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) + 1 : strlen(l);

		if (!strncmp(l, "schedule ", 9) || !strncmp(l, "r3 ", 3)) {
			memcpy(w, l, n);
			w += n;
		}
		l += n;
	}
	assert_true(count_lines_starting(one.out, "r3 op") > 100);
	assert_string_equal(one.out, want);
	free(want);
	run_free(&whole);
	run_free(&one);

	need_no_asan();
	struct run big = run_cclab_env("ulimit -v 1000000;", "schedule -n 4096 -b 1M --rank 4095");

	assert_int_equal(big.status, 0);
	assert_int_equal(count_lines_starting(big.out, "r4095 rank "), 1);
	assert_true(count_lines_starting(big.out, "r4095 op ") > 8 * 4095);
	assert_int_equal(count_lines_starting(big.out, "r0 "), 0);
	run_free(&big);
	big = run_cclab_env("ulimit -v 1000000;", "schedule -n 4096 -b 1M");
	assert_int_equal(big.status, 1);
	assert_non_null(strstr(big.err, "the schedule would take about"));
	run_free(&big);
}

/* The memory the up-front checks weigh against is the smallest of
 * physical memory, ulimit -v / -d and the cgroup's limit: under ulimit -v
 * 1 GB a sweep that carries 17 GB of buffers, a schedule of about
 * 3 GiB, and under 300 MB a run whose simulator would hold 490 MiB, are
 * refused before the first row, naming that limit, exit 1 — not built or
 * run until allocation fails. */
static void test_memory_limit_used(void **state)
{
	(void)state;
	need_binary();
	need_no_asan();
	struct run r = run_cclab_env("ulimit -v 1000000;", "check -n 8 -b 1G");

	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "1073741824 bytes: the buffers of all ranks would not fit "
				      "in this machine's memory (refused up front); the limit is "
				      "1.0 GiB: the address-space limit (ulimit -v)"));
	run_free(&r);
	r = run_cclab_env("ulimit -v 1000000;",
			  "sim -n 64 -b 4G --check 0 -A hierarchical --ranks-per-node 8");
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "allreduce of 4294967296 bytes on 64 ranks: the schedule "
				      "would take about"));
	assert_non_null(strstr(r.err, "this process may use 1.0 GiB: the address-space limit "
				      "(ulimit -v)"));
	run_free(&r);
	/* A generated schedule passes cc_build()'s check (it holds what is in
	 * flight), but the simulator's state for 2048 ranks of a tree (about
	 * 490 MiB, cc_sim_mem_estimate()) is weighed before the first row as
	 * well; 256 ranks fit and run. */
	const char *tree = "sim -b 1M --check 0 -A tree --ranks-per-node 8 --topology railopt "
			   "--model flow --fabric ideal";
	r = run_cclab_env("ulimit -v 300000;", "%s -n 2048", tree);
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "1048576 bytes on 2048 ranks: the run would hold about "));
	assert_non_null(strstr(r.err, " is left (refused up front); the limit is 0.3 GiB: the "
				      "address-space limit (ulimit -v); use fewer ranks or a smaller "
				      "size\n"));
	run_free(&r);
	r = run_cclab_env("ulimit -v 300000;", "%s -n 256", tree);
	assert_int_equal(r.status, 0);
	assert_int_equal(count_lines_starting(r.out, "     1048576"), 1);
	run_free(&r);
	/* A built schedule is in the run's weight once: what is left is read
	 * before it is built.  Halving-doubling on 512 ranks at 32 MiB (about
	 * 230 MB of schedule) runs under 350 MB, where taking the schedule
	 * from what is left as well refused it. */
	r = run_cclab_env("ulimit -v 350000;", "sim -n 512 -b 32M --check 0 -A halving-doubling "
			  "--model flow --fabric ideal");
	assert_int_equal(r.status, 0);
	assert_int_equal(count_lines_starting(r.out, "    33554432"), 1);
	run_free(&r);
}

/* A file of `text` at tmpdir/name (folders made as needed). */
static void put(const char *name, const char *text)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* cc_mem_cgroup_limit() on made-up /proc/self/cgroup and mountinfo files
 * and cgroup trees: v2's memory.max of the process's cgroup and its
 * parents up to the mount, the smallest ("max" is none); v1's memory
 * controller with its "unlimited" 2^63 - 4096; a mount whose root is a
 * cgroup below the hierarchy's (a container's view), a mount point with a
 * space (\040); min of v1 and v2; none at all. */
static void test_cgroup_limit(void **state)
{
	char cg[256], mi[256], text[1024];

	(void)state;
	snprintf(cg, sizeof(cg), "%s/cgroup", tmpdir);
	snprintf(mi, sizeof(mi), "%s/mountinfo", tmpdir);
	put("cg2/a/b/memory.max", "max\n");
	put("cg2/a/memory.max", "536870912\n");
	put("cg2/memory.max", "1073741824\n");
	put("cgroup", "0::/a/b\n");
	snprintf(text, sizeof(text), "30 22 0:27 / /proc rw - proc proc rw\n"
		 "35 30 0:31 / %s/cg2 rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n", tmpdir);
	put("mountinfo", text);
	assert_int_equal(cc_mem_cgroup_limit(cg, mi), 536870912);

	/* v1, beside v2: the smaller holds */
	put("cg1 dir/x/memory.limit_in_bytes", "9223372036854771712\n");
	put("cg1 dir/memory.limit_in_bytes", "268435456\n");
	put("cgroup", "9:name=systemd:/\n4:cpu,memory:/x\n0::/a/b\n");
	snprintf(text, sizeof(text), "35 30 0:31 / %s/cg2 rw - cgroup2 cgroup2 rw\n"
		 "40 30 0:40 / %s/cg1\\040dir rw - cgroup cgroup rw,cpu,memory\n", tmpdir, tmpdir);
	put("mountinfo", text);
	assert_int_equal(cc_mem_cgroup_limit(cg, mi), 268435456);

	/* a container's mount: its root is the cgroup /docker/c1 */
	put("cg2/sub/memory.max", "33554432\n");
	put("cgroup", "0::/docker/c1/sub\n");
	snprintf(text, sizeof(text), "35 30 0:31 /docker/c1 %s/cg2 rw - cgroup2 cgroup2 rw\n",
		 tmpdir);
	put("mountinfo", text);
	assert_int_equal(cc_mem_cgroup_limit(cg, mi), 33554432);

	/* no limit anywhere, or no cgroup file at all */
	put("cg2/sub/memory.max", "max\n");
	put("cg2/memory.max", "max\n");
	assert_int_equal(cc_mem_cgroup_limit(cg, mi), 0);
	assert_int_equal(cc_mem_cgroup_limit("/nonexistent/cgroup", mi), 0);
}

/* A run with more ops than a simulation gets through in --wall-limit is
 * said so before anything is built: under the default hour, the ring's
 * 2(k - 1) steps on 100,000 ranks (about 2.9e11 ops) are refused at once,
 * exit 1, nothing on stdout; with a limit given, a note, and the limit
 * stops it. */
static void test_wall_limit_weighed(void **state)
{
	(void)state;
	need_binary();
	double t0 = monotonic_s();
	struct run r = run_cclab("sim -n 100000 -b 1G --check 0 --model flow --topology star "
				 "--fabric ideal");
	double took = monotonic_s() - t0;

	print_message("sim -n 100000 -b 1G: refused in %.2f s\n", took);
	assert_int_equal(r.status, 1);
	assert_true(took < 30);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "cclab sim: 1073741824 bytes on 100000 ranks: about 2.9e+11 "
				      "ops to simulate, more than the default --wall-limit of 3.6e+03 s "
				      "allows even at 1e+07 a second"));
	assert_non_null(strstr(r.err, "(refused up front)"));
	run_free(&r);
	t0 = monotonic_s();
	r = run_cclab("sim -n 100000 -b 1G --check 0 --model flow --topology star --fabric ideal "
		      "--wall-limit 1");
	took = monotonic_s() - t0;
	/* the pass that counts the ring's 2 x 10^10 steps looks at the
	 * clock between ranks: 2.3 s, where it ran past two minutes */
	print_message("sim -n 100000 -b 1G --wall-limit 1: %.2f s\n", took);
	assert_true(took < 30);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "cclab sim: note: 1073741824 bytes on 100000 ranks: about "
				      "2.9e+11 ops to simulate, 2.87e+05 s at the 1e+06 a second"));
	assert_null(strstr(r.err, "refused"));
	assert_non_null(strstr(r.err, "time limit reached: the wall-clock limit (1000 ms) stopped"));
	run_free(&r);
}

/* --wall-limit covers building the schedule: 1 ms on a sweep whose
 * schedule takes seconds to build (64 ranks x 4 GiB: 2.6 million ops, its
 * preflight build included) stops in well under 5 s, and the size says
 * "time limit reached", status time_limit (not "deadlock") on stderr, in
 * the JSON and in the CSV; exit 1. */
static void test_wall_limit_covers_build(void **state)
{
	char json[160], csv[160];

	(void)state;
	need_binary();
	snprintf(json, sizeof(json), "%s/wl.json", tmpdir);
	snprintf(csv, sizeof(csv), "%s/wl.csv", tmpdir);
	double t0 = monotonic_s();
	struct run r = run_cclab("sim -n 64 -b 4G --check 0 --wall-limit 1ms --json '%s' "
				 "--csv '%s'", json, csv);
	double took = monotonic_s() - t0;

	print_message("sim -n 64 -b 4G --wall-limit 1ms: %.2f s\n", took);
	assert_int_equal(r.status, 1);
	assert_true(took < 5);
	assert_non_null(strstr(r.err, "cclab sim: 4294967296 bytes: time_limit: time limit "
				      "reached: the wall-clock limit (1 ms) stopped the build of "
				      "the schedule, before the run"));
	assert_null(strstr(r.err, "deadlock"));
	assert_non_null(strstr(r.out, "  4294967296    1073741824     float     sum      -1      "
				      "N/A"));
	run_free(&r);
	char *j = text_of(json), *c = text_of(csv);

	assert_non_null(strstr(j, "\"status\": \"time_limit\""));
	assert_non_null(strstr(j, "\"ok\": false"));
	assert_non_null(strstr(c, ",N/A,time_limit,ring,"));
	free(j);
	free(c);
}

/* --json naming a folder: refused before the first row (EISDIR), not by
 * rename() once the sweep is over. */
static void test_sim_json_is_dir(void **state)
{
	(void)state;
	need_binary();
	struct run r = run_cclab("sim -n 4 -b 64K -e 1M --json '%s'", tmpdir);

	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "Is a directory"));
	assert_string_equal(r.out, "");
	run_free(&r);
}

/* A key or receive fault that names no op it can act on: exit 2 with the
 * reason, before the size runs (else the run is clean and the test of an
 * error path passes having tested nothing).  Ops of rank 1 of a 2-rank
 * 4 KiB allreduce ('cclab schedule -n 2 -b 4K --rank 1'): 1 an inline
 * CTS write, 2 a doorbell, 9 a data WRITE WITH IMM. */
static void test_sim_fault_targets(void **state)
{
	static const struct { const char *fault, *msg; } cases[] = {
		{"rkey:1:2", "--fault rkey:1:2 at 4096 bytes: op 2 of rank 1 is a doorbell, not a "
			     "post_send"},
		{"norecv:1:9", "--fault norecv:1:9 at 4096 bytes: op 9 of rank 1 is a post_send, "
			       "not a post_recv"},
		{"lkey:1:1", "--fault lkey:1:1 at 4096 bytes: op 1 of rank 1 has no local buffer"},
		{"rkey:1:99999", "--fault rkey:1:99999 at 4096 bytes: rank 1 has no op 99999 (it "
				 "has "},
	};

	(void)state;
	need_binary();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run r = run_cclab("sim -n 2 -b 4K --fault %s", cases[i].fault);

		if (r.status != 2 || !strstr(r.err, cases[i].msg))
			fail_msg("--fault %s: exit %d, stderr '%s'; want 2 and '%s'", cases[i].fault,
				 r.status, r.err, cases[i].msg);
		assert_int_equal(count_lines_starting(r.out, "     4096"), 0);
		run_free(&r);
	}
	/* the op it names: the WRITE WITH IMM fails as a real RNIC's would */
	struct run r = run_cclab("sim -n 2 -b 4K --fault rkey:1:9");

	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "IBV_WC_REM_ACCESS_ERR"));
	run_free(&r);
	/* ops depend on the size: op 9 is that WRITE at 1 MiB and a doorbell
	 * at 4 MiB, which runs without the fault, and a note says so */
	r = run_cclab("sim -n 2 -b 1M -e 4M -f 4 --fault rkey:1:9");
	assert_int_equal(r.status, 1);
	assert_int_equal(count_substr(r.err, "IBV_WC_REM_ACCESS_ERR"), 1);
	assert_non_null(strstr(r.err, "cclab sim: note: --fault rkey:1:9 at 4194304 bytes: op 9 "
				      "of rank 1 is a doorbell, not a post_send; this size runs "
				      "without it\n"));
	assert_non_null(strstr(r.out, "\n     4194304       1048576     float     sum      -1"));
	run_free(&r);
}

/* Without --topology: a ring for the ring in rank order, a star for what
 * joins other pairs (the tree, all-to-all), which a ring cannot carry. */
static void test_sim_default_topology(void **state)
{
	static const struct { const char *args, *topo; } cases[] = {
		{"-n 8 -b 64K", "topology: ring"},
		{"-n 8 -b 64K -A tree", "topology: star"},
		{"-n 8 -b 64K -c alltoall", "topology: star"},
		{"-n 8 -b 64K -A tree --topology ring", NULL},
	};

	(void)state;
	need_binary();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run r = run_cclab("sim %s", cases[i].args);

		if (cases[i].topo) {
			assert_int_equal(r.status, 0);
			assert_non_null(strstr(r.out, cases[i].topo));
		} else {
			/* asked for: the ring topology, which cannot carry it:
			 * a usage error, before the table */
			assert_int_equal(r.status, 2);
			assert_string_equal(r.out, "");
			assert_non_null(strstr(r.err, "--topology ring: tree allreduce joins ranks 0 "
						   "and 4, which it does not connect"));
		}
		run_free(&r);
	}
}

/* `cclab sim BASE ...` that must succeed: its stderr in the failure. */
__attribute__((format(printf, 1, 2)))
static struct run sim_ok(const char *fmt, ...)
{
	va_list ap;
	struct run r;

	va_start(ap, fmt);
	r = run_cclab_va("", fmt, ap);
	va_end(ap);
	if (r.status != 0)
		fail_msg("exit %d\n%s", r.status, r.err);
	return r;
}

/* NCCL's rings follow the rails: under -A auto, on nodes of 8, a ring runs
 * in rail order unless --ring-order says otherwise (the same table as
 * --ring-order rail, byte for byte; rank order is another); -A ring in
 * rank order on rail-optimised nodes gets a note, rail order none. */
static void test_sim_auto_rail_rings(void **state)
{
	static const char *base = "sim -n 16 --ranks-per-node 8 --topology railopt -b 16M "
				  "--fabric ib-ndr --check 0";
	static const char *note = "cclab sim: note: the ring in rank order leaves every node "
				  "from GPU 7's rail and enters the next at GPU 0's, through the "
				  "spine, on every channel; NCCL's rings stay on one rail "
				  "(--ring-order rail, which -A auto takes)\n";

	(void)state;
	need_binary();
	struct run a = sim_ok("%s -A auto --env NCCL_ALGO=Ring", base);
	struct run rail = sim_ok("%s -A auto --env NCCL_ALGO=Ring --ring-order rail", base);
	struct run rank = sim_ok("%s -A auto --env NCCL_ALGO=Ring --ring-order rank", base);

	assert_non_null(strstr(a.out, "ring order: rail"));
	assert_string_equal(a.out, rail.out);
	assert_string_not_equal(a.out, rank.out);
	assert_null(strstr(rank.out, "ring order: rail"));
	assert_string_equal(a.err, "");
	assert_string_equal(rank.err, ""); /* auto: NCCL's choice, no note */
	run_free(&a);
	run_free(&rail);
	run_free(&rank);

	struct run ring = sim_ok("%s -A ring", base);
	struct run ring_rail = sim_ok("%s -A ring --ring-order rail", base);
	struct run ring_rank = sim_ok("%s -A ring --ring-order rank", base);

	assert_string_equal(ring.err, note);
	assert_string_equal(ring_rail.err, "");
	assert_string_equal(ring_rank.err, ""); /* asked for */
	run_free(&ring);
	run_free(&ring_rail);
	run_free(&ring_rank);

	/* all-to-all and sendrecv run no ring: auto leaves their order alone */
	static const char *const p2p[] = { "alltoall", "sendrecv" };
	for (size_t i = 0; i < 2; i++) {
		struct run r = sim_ok("%s -A auto -c %s", base, p2p[i]);

		assert_null(strstr(r.out, "ring order: rail"));
		run_free(&r);
	}
}

/* Under auto the preamble and the JSON's top name what NCCL's choice
 * leaves per size as "auto" or "per size" (each row says what ran), and
 * what the user gave as given; the channels at the top are the
 * communicator's (16 on 2 x 8 ib-ndr, NCCL's graph doubled). */
static void test_sim_auto_top_says_auto(void **state)
{
	static const char *base = "sim -n 16 --ranks-per-node 8 --topology railopt -b 1M -e 1G "
				  "-f 1024 --fabric ib-ndr --model flow --check 0";
	char path[128];
	char *json;

	(void)state;
	need_binary();
	snprintf(path, sizeof(path), "%s/auto.json", tmpdir);
	struct run a = sim_ok("%s -A auto --json '%s'", base, path);

	assert_non_null(strstr(a.out, ": allreduce, algorithm auto, transport write_imm,"));
	assert_non_null(strstr(a.out, "# chunk: per size, NCCL's rule for what the size runs  "
				      "slot: per size, the protocol's  slots: 8  channels: per "
				      "size  ring order: rail (where a size runs the ring)\n"));
	assert_non_null(strstr(a.out, "# NVLSTree/Simple 16ch\n"));
	run_free(&a);
	json = text_of(path);
	assert_non_null(strstr(json, "\"algorithm\": \"auto\","));
	assert_non_null(strstr(json, "\"chunk_per_size\": true,"));
	assert_non_null(strstr(json, "\"slot_per_size\": true,"));
	assert_non_null(strstr(json, "\"protocol\": \"auto\",\n  \"nchannels\": 16,"));
	/* 1 MiB: Tree/LL128, its slot; 1 GiB: NVLSTree/Simple, 512 KiB */
	assert_non_null(strstr(json, "\"chunk_bytes\": 131072,\n      \"slot_bytes\": 524288,"));
	free(json);

	/* a fixed protocol narrows NCCL's choice, as NCCL_PROTO would; fixed
	 * channels it cannot, so the row says what ran beside it */
	struct run given = sim_ok("%s -A auto -P simple --channels 4 --json '%s'", base, path);

	assert_non_null(strstr(given.out, "slot: 512KiB (524288 B)  slots: 8  channels: 4  "
					  "ring order: rail (where a size runs the ring)\n"));
	assert_non_null(strstr(given.out, "# NVLSTree/Simple 16ch; ran NVLSTree/Simple 4ch "
					  "(as set)\n"));
	assert_null(strstr(given.out, "LL128"));
	run_free(&given);
	json = text_of(path);
	assert_non_null(strstr(json, "\"protocol\": \"simple\",\n  \"nchannels\": 4,"));
	assert_non_null(strstr(json, "\"slot_per_size\": false,"));
	assert_non_null(strstr(json, "\"ran_channels\": 4,\n        \"stand_in\": false,\n"
				     "        \"given\": true"));
	free(json);

	/* only the channels NCCL's: the ring's chunk is the ring's */
	struct run ch = sim_ok("%s -A ring --ring-order rail --channels auto", base);

	assert_non_null(strstr(ch.out, "# chunk: 2MiB (2097152 B)  slot: 512KiB (524288 B)  "
				       "slots: 8  channels: per size  ring order: rail\n"));
	run_free(&ch);

	struct run ring = sim_ok("%s -A ring --ring-order rail --json '%s'", base, path);

	assert_non_null(strstr(ring.out, ": allreduce, algorithm ring, transport write_imm,"));
	assert_non_null(strstr(ring.out, "# chunk: 2MiB (2097152 B)  slot: 512KiB (524288 B)  "
					 "slots: 8  ring order: rail\n"));
	run_free(&ring);
	json = text_of(path);
	assert_non_null(strstr(json, "\"algorithm\": \"ring\","));
	assert_non_null(strstr(json, "\"chunk_per_size\": false,"));
	free(json);
}

/* A k = 2 ring joins the two NICs by two cables, and channels hash over
 * both: more than one link's busbw, which is no model bug (what a rank's
 * ports carry is the cap: sim_topo_rank_rate()).  Both ports then receive
 * faster than PCIe Gen4 writes; the NIC's read requests for what it sends
 * must not queue behind that backlog (sim/pcie.h), or 4 channels (3 flows
 * on one cable) ran slower than 1 (829 against 685 us). */
static double two_cables_us(unsigned channels)
{
	double time_us, algbw, busbw, link_gbps = 200e9 / 8 / 1e9; /* ib-hdr */
	struct run r = run_cclab("sim -n 2 --channels %u --fabric ib-hdr -b 16M -e 16M --check 0",
				 channels);
	const char *row;

	if (r.status != 0)
		fail_msg("exit %d\n%s%s", r.status, r.out, r.err);
	assert_string_equal(r.err, "");
	row = strstr(r.out, "\n    16777216 ");
	assert_non_null(row);
	assert_int_equal(sscanf(row, " %*s %*s %*s %*s %*s %lf %lf %lf", &time_us, &algbw, &busbw),
			 3);
	print_message("    k = 2, %u channel(s), 16 MiB: %.1f us, busbw %.2f GB/s\n", channels,
		      time_us, busbw);
	assert_true(busbw <= 2 * link_gbps);
	run_free(&r);
	return time_us;
}

static void test_sim_two_cables(void **state)
{
	/* At k = 2 busbw = algbw: one link's busbw takes 16 MiB / 25 GB/s. */
	double one_link_us = 16777216 / (200e9 / 8) * 1e6, one, three, four;

	(void)state;
	need_binary();
	one = two_cables_us(1);
	three = two_cables_us(3);
	four = two_cables_us(4);
	assert_true(one > one_link_us);
	assert_true(three < one_link_us);
	assert_true(four < one);
}

/* SIGINT in the middle of a sweep: the program ends by the signal and
 * leaves neither the --json/--csv targets nor their temporary files. */
static void test_sim_interrupted(void **state)
{
	char json[200], csv[200], sub[160];

	(void)state;
	need_binary();
	snprintf(sub, sizeof(sub), "%s/int", tmpdir);
	assert_int_equal(mkdir(sub, 0700), 0);
	snprintf(json, sizeof(json), "%s/r.json", sub);
	snprintf(csv, sizeof(csv), "%s/r.csv", sub);
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		/* as from a terminal: a shell's background job starts with
		 * SIGINT ignored, and cclab keeps an ignored signal ignored */
		signal(SIGINT, SIG_DFL);
		execl(cclab, cclab, "sim", "-n", "4", "-b", "1G", "-e", "16G", "--check", "0", "--json",
		      json, "--csv", csv, (char *)NULL);
		_exit(127);
	}
	/* wait for both temporary files, then for the check of the largest
	 * size (~0.3 s) to be over and the first size to run, then interrupt */
	for (int i = 0; i < 500 && dir_entries(sub) < 2; i++)
		usleep(10000);
	assert_int_equal(dir_entries(sub), 2);
	sleep(1);
	assert_int_equal(dir_entries(sub), 2);
	assert_int_equal(kill(pid, SIGINT), 0);
	int st;

	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGINT);
	assert_int_equal(dir_entries(sub), 0);
	assert_int_equal(rmdir(sub), 0);
}

/* `schedule --primitives`: "rank R channel C chunk I step S PRIMITIVE",
 * one line per primitive; a ring allreduce has 2k-1 steps per loop
 * (core/algo.h cc_ring_steps), reduce-scatter and all-gather k. */
struct prim_line {
	unsigned rank, channel, chunk, step;
	char prim[32];
};

static int parse_prims(const char *text, struct prim_line *lines, int max)
{
	regex_t re;
	regmatch_t m[6];
	int n = 0;
	char *copy = strdup(text), *save = NULL;

	assert_int_equal(regcomp(&re, "^rank ([0-9]+) channel ([0-9]+) chunk ([0-9]+) step "
				 "([0-9]+) ([A-Za-z_]+)$", REG_EXTENDED), 0);
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (regexec(&re, line, 6, m, 0))
			fail_msg("not a primitive line: '%s'", line);
		assert_true(n < max);
		lines[n].rank = (unsigned)strtoul(line + m[1].rm_so, NULL, 10);
		lines[n].channel = (unsigned)strtoul(line + m[2].rm_so, NULL, 10);
		lines[n].chunk = (unsigned)strtoul(line + m[3].rm_so, NULL, 10);
		lines[n].step = (unsigned)strtoul(line + m[4].rm_so, NULL, 10);
		size_t len = (size_t)(m[5].rm_eo - m[5].rm_so);

		assert_true(len < sizeof(lines[n].prim));
		memcpy(lines[n].prim, line + m[5].rm_so, len);
		lines[n].prim[len] = '\0';
		n++;
	}
	regfree(&re);
	free(copy);
	return n;
}

/* Checks k ranks x loops x steps lines, each (rank, step) `loops` times. */
static void check_prims(const char *args, unsigned k, unsigned loops, unsigned steps,
			int only_rank)
{
	static struct prim_line lines[4096];
	unsigned seen[8][16] = {{0}};
	struct run r = run_cclab("%s", args);
	int n;

	if (r.status != 0)
		fail_msg("'cclab %s': exit %d: %s", args, r.status, r.err);
	n = parse_prims(r.out, lines, 4096);
	unsigned nranks_shown = only_rank >= 0 ? 1 : k;

	if ((unsigned)n != nranks_shown * loops * steps)
		fail_msg("'cclab %s': %d lines, want %u", args, n, nranks_shown * loops * steps);
	for (int i = 0; i < n; i++) {
		assert_true(lines[i].rank < k && lines[i].rank < 8);
		assert_true(lines[i].step < steps && lines[i].step < 16);
		if (only_rank >= 0)
			assert_int_equal(lines[i].rank, (unsigned)only_rank);
		seen[lines[i].rank][lines[i].step]++;
	}
	for (unsigned rk = 0; rk < k; rk++) {
		if (only_rank >= 0 && rk != (unsigned)only_rank)
			continue;
		for (unsigned s = 0; s < steps; s++)
			assert_int_equal(seen[rk][s], loops);
	}
	run_free(&r);
}

static void test_schedule_primitives(void **state)
{
	static struct prim_line lines[64];
	struct run r;
	int n;

	(void)state;
	need_binary();
	/* All defaults: 32 MiB (nccl-tests' -b) in loops of 4 ranks x 2 MiB
	 * chunks, 7 steps each. */
	check_prims("schedule --primitives -n 4", 4,
		    (unsigned)((UINT64_C(32) << 20) / (4 * (uint64_t)CC_DEFAULT_CHUNK_BYTES)), 7, -1);
	/* 1024 floats, default 2 MiB chunks: one loop, 7 steps per rank. */
	check_prims("schedule --primitives -n 4 -c allreduce -t write_imm -b 4096", 4, 1, 7, -1);
	/* 64-element chunks: 256 elements per loop, four loops. */
	check_prims("schedule --primitives -n 4 -b 4096 --chunk-bytes 256", 4, 4, 7, -1);
	check_prims("schedule --primitives -n 4 -b 4096 --chunk-bytes 256 --rank 2", 4, 4, 7, 2);
	check_prims("schedule --primitives -n 4 -c reducescatter -b 4096", 4, 1, 4, -1);
	check_prims("schedule --primitives -n 4 -c allgather -t send_recv -b 4096", 4, 1, 4, -1);

	/* A ring allreduce loop, in NCCL's primitives (all_reduce.h runRing):
	 * send, k-2 x recvReduceSend, recvReduceCopySend, k-2 x recvCopySend,
	 * recv. */
	r = run_cclab("schedule --primitives -n 4 -b 4096 --rank 0");
	assert_int_equal(r.status, 0);
	n = parse_prims(r.out, lines, 64);
	assert_int_equal(n, 7);
	static const enum cc_prim want[7] = {
		CC_PRIM_SEND, CC_PRIM_RECV_REDUCE_SEND, CC_PRIM_RECV_REDUCE_SEND,
		CC_PRIM_RECV_REDUCE_COPY_SEND, CC_PRIM_RECV_COPY_SEND, CC_PRIM_RECV_COPY_SEND,
		CC_PRIM_RECV,
	};

	for (int i = 0; i < 7; i++) {
		assert_int_equal(lines[i].step, (unsigned)i);
		assert_string_equal(lines[i].prim, cc_prim_name[want[i]]);
	}
	run_free(&r);
}

static void test_schedule_plain(void **state)
{
	struct run r;

	(void)state;
	need_binary();
	r = run_cclab("schedule -n 2 -c allreduce -t write_flag -b 64");
	assert_int_equal(r.status, 0);
	assert_true(strlen(r.out) > 0);
	assert_string_equal(r.err, "");
	run_free(&r);
	r = run_cclab("schedule -n 3 -c allgather -t send_recv -b 96 --rank 2");
	assert_int_equal(r.status, 0);
	assert_true(strlen(r.out) > 0);
	run_free(&r);
}

/* `cclab devices`: a table where libibverbs finds devices; here, without
 * kernel RDMA support, exit 1 and a message that says why and what to do. */
static void devices(void **state)
{
	struct run r;

	(void)state;
	need_cclab();
	r = run_cclab("devices");
	if (r.status == 0) {
		assert_non_null(strstr(r.out, "device"));
		assert_non_null(strstr(r.out, "port"));
	} else {
		assert_int_equal(r.status, 1);
		assert_non_null(strstr(r.err, "cclab devices: no RDMA device"));
		assert_non_null(strstr(r.err, "rdma"));
		assert_string_equal(r.out, "");
	}
	run_free(&r);
	r = run_cclab("devices --bogus");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "unexpected argument '--bogus'"));
	run_free(&r);
}

/* `cclab run` without a scenario, the verbs executor: its options are
 * checked first (exit 2 naming them); then, without an RDMA device, one
 * "no RDMA device" line and exit 1, nothing on stdout, no file left. */
static void run_verbs(void **state)
{
	struct run r;

	(void)state;
	need_cclab();
	r = run_cclab("run -n 2 -b 1M --mtu 1000");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "invalid value '1000' for --mtu"));
	run_free(&r);
	r = run_cclab("run -n 2 --iters 0");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "invalid value '0' for --iters"));
	run_free(&r);
	r = run_cclab("run -n 2 --set ranks=4");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--set applies to 'cclab run SCENARIO.yaml' only"));
	run_free(&r);
	r = run_cclab("run scenarios/demo.yaml -n 3");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "option -n/--nranks applies to 'cclab run' without a "
				      "scenario"));
	run_free(&r);
	/* executor verbs wants host buffers, said before anything runs */
	r = run_cclab("run scenarios/verbs-local-4.yaml --set memory=gpu");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "the verbs executor needs 'memory: host'"));
	assert_string_equal(r.out, "");
	run_free(&r);
	/* A launcher's world and -n disagree; a launcher without rank 0's
	 * address. */
	/* (run_cclab runs "$CCLAB ARGS" through sh: --version, then ours.) */
	r = run_cclab("--version >/dev/null; CCLAB_RANK=1 CCLAB_WORLD_SIZE=2 %s run -n 4", cclab);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "-n 4, but the launcher (local) started 2 ranks"));
	run_free(&r);
	r = run_cclab("--version >/dev/null; CCLAB_RANK=1 CCLAB_WORLD_SIZE=2 %s run -b 1M", cclab);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "2 ranks from local need rank 0's address"));
	run_free(&r);

	/* cclab p2p on a device: its options need --device, the simulator's
	 * refuse it. */
	r = run_cclab("p2p --op write --timeout 5");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "need --device"));
	run_free(&r);
	r = run_cclab("p2p --op write --device mlx5_0 --fabric ib-hdr");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--fabric/--topology applies to the simulator"));
	run_free(&r);

	char json[300];
	snprintf(json, sizeof(json), "%s/verbs.json", tmpdir);
	r = run_cclab("run -n 2 -b 1M --json %s", json);
	if (r.status == 1 && strstr(r.err, "no RDMA device")) {
		assert_string_equal(r.out, "");
		assert_int_equal(access(json, F_OK), -1);
		/* said once, not once per rank */
		assert_null(strstr(strstr(r.err, "no RDMA device") + 1, "no RDMA device"));
		run_free(&r);
		r = run_cclab("p2p --op read --device rxe0");
		assert_int_equal(r.status, 1);
		assert_non_null(strstr(r.err, "cclab p2p: no RDMA device"));
	} else {
		print_message("SKIP: an RDMA device is present; the soft-RoCE VM tests "
			      "(scripts/softroce/) cover real runs\n");
	}
	run_free(&r);
}

/* ------------------------------------------------------------------ */
/* `cclab run` under a launcher: its bootstrap, with a rank played here */

/* A loopback port that was free a moment ago. */
static uint16_t boot_free_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
	close(fd);
	return ntohs(sa.sin_port);
}

static struct cc_rendezvous boot_loopback(uint16_t port)
{
	struct cc_rendezvous r = { .host = "127.0.0.1", .kind = CC_HOST_IPV4, .port = port };

	return r;
}

/* Starts rank RANK of 2 of `cclab run` (launcher "local" by its CCLAB_*
 * variables, as srun would give SLURM_*), rank 0 at 127.0.0.1:PORT, its
 * stderr in tmpdir/rankRANK.err. */
static pid_t boot_start_rank(uint32_t rank, uint16_t port)
{
	char cmd[1024];
	pid_t pid;

	snprintf(cmd, sizeof(cmd), "CCLAB_RANK=%u CCLAB_WORLD_SIZE=2 exec '%s' run -b 1K "
		 "--timeout 1 --bootstrap 127.0.0.1:%u >/dev/null 2>'%s/rank%u.err' </dev/null",
		 rank, cclab, port, tmpdir, rank);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* Its exit status, or -1 (killed) when it runs past limit_ms. */
static int boot_wait(pid_t pid, int64_t limit_ms)
{
	int64_t end = monotonic_ms() + limit_ms;
	int st;

	while (waitpid(pid, &st, WNOHANG) == 0) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		if (monotonic_ms() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return -1;
		}
		nanosleep(&ts, NULL);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *boot_rank_err(uint32_t rank)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/rank%u.err", tmpdir, rank);
	return text_of(path);
}

/* Plays a rank that joins and reports `why` as its device failure: the
 * exchange verbs_session_open makes after opening the device (cli/
 * cmd_verbs.c), a "!" and the reason.  lfd: rank 0's listening socket, or
 * -1 for rank 1.  *peer gets the other rank's text (NUL-ended).  On a
 * failure the cclab rank `other` is killed first, so none outlives it. */
static void boot_fake_rank(uint32_t rank, uint16_t port, int lfd, const char *why, char **peer,
			   pid_t other)
{
	struct cc_rendezvous r = boot_loopback(port);
	struct cc_boot_opts o = { .timeout_ms = 5000 };
	struct cc_boot_blobs all;
	struct cc_boot b;
	char err[512];

	if (cc_boot_open(&b, &r, lfd, rank, 2, &o, err, sizeof(err)) ||
	    cc_boot_allgather(&b, why, strlen(why), &all, err, sizeof(err))) {
		cc_boot_close(&b); /* nothing to close when the join failed */
		kill(other, SIGKILL);
		waitpid(other, NULL, 0);
		fail_msg("rank %u: %s", rank, err);
	}
	*peer = calloc(1, all.len[1 - rank] + 1);
	memcpy(*peer, all.data[1 - rank], all.len[1 - rank]);
	cc_boot_blobs_free(&all);
	cc_boot_close(&b);
}

/* A device failure's reason far longer than 127 characters. */
static void boot_long_reason(char *buf, size_t n, const char *tag)
{
	size_t off = (size_t)snprintf(buf, n, "!%s: the device did not open;", tag);

	while (off + 12 < n - 8)
		off += (size_t)snprintf(buf + off, n - off, " and so on %u", (unsigned)(off % 10));
	snprintf(buf + off, n - off, " <end>");
}

/* Issue 23 #15: rank 0 prints another rank's device failure whole (it
 * was cut to 126 characters), its own too, and refuses a description
 * over the bound, saying so. */
static void run_rank_failure_whole(void **state)
{
	char why[400], *peer = NULL, *err;
	static char huge[2002];
	uint16_t port;
	pid_t pid;

	(void)state;
	need_cclab();
	boot_long_reason(why, sizeof(why), "rank 1");
	assert_true(strlen(why) > 300);
	port = boot_free_port();
	pid = boot_start_rank(0, port);
	boot_fake_rank(1, port, -1, why, &peer, pid);
	assert_int_equal(boot_wait(pid, 10000), 1);
	err = boot_rank_err(0);
	char line[512];
	snprintf(line, sizeof(line), "cclab run: rank 1: %s\n", why + 1);
	if (!strstr(err, line))
		fail_msg("rank 0 said:\n%s", err);
	/* Where rank 0 could not open a device either (no RDMA here), its
	 * own reason went out whole as well. */
	if (peer[0] == '!') {
		snprintf(line, sizeof(line), "cclab run: rank 0: %s\n", peer + 1);
		assert_non_null(strstr(err, line));
		if (strstr(peer, "no RDMA device: this kernel has no RDMA support"))
			assert_non_null(strstr(peer, "rdma link add rxe0 type rxe netdev eth0"));
	}
	free(peer);
	free(err);

	/* Over 1024 bytes: a protocol fault, named, not a truncated text. */
	memset(huge, 'x', sizeof(huge) - 1);
	huge[0] = '!';
	port = boot_free_port();
	pid = boot_start_rank(0, port);
	boot_fake_rank(1, port, -1, huge, &peer, pid);
	assert_int_equal(boot_wait(pid, 10000), 1);
	err = boot_rank_err(0);
	if (!strstr(err, "cclab run: rank 0: bootstrap: rank 1 sent a 2001-byte description of "
			 "its device, expected 1..1024\n"))
		fail_msg("rank 0 said:\n%s", err);
	free(peer);
	free(err);
}

/* Issue 23 #15: a rank other than 0 that fails says why (it exited 1 in
 * silence): its own device failure, or the rank it stops for. */
static void run_rank_failure_said(void **state)
{
	struct cc_rendezvous r = boot_loopback(0);
	char why[400], *peer = NULL, *err, line[512], e[256];
	uint16_t port;
	int lfd;
	pid_t pid;

	(void)state;
	need_cclab();
	boot_long_reason(why, sizeof(why), "rank 0");
	assert_int_equal(cc_boot_listen(&r, &lfd, &port, e, sizeof(e)), 0);
	pid = boot_start_rank(1, port);
	boot_fake_rank(0, port, lfd, why, &peer, pid);
	assert_int_equal(boot_wait(pid, 10000), 1);
	err = boot_rank_err(1);
	if (peer[0] == '!') /* its own device did not open */
		snprintf(line, sizeof(line), "cclab run: rank 1: %s\n", peer + 1);
	else
		snprintf(line, sizeof(line), "cclab run: rank 1: stopped: rank 0 failed: %s\n",
			 why + 1);
	if (strcmp(err, line))
		fail_msg("rank 1 said:\n%s\nexpected:\n%s", err, line);
	free(peer);
	free(err);
}

/* Issue 23 #14, end to end: 100 idle connections to rank 0's port, then
 * the real rank 1.  It used to fail at once ("rank 0 closed the
 * connection") and rank 0 to give up 22 s later; now the ranks meet, and
 * rank 0 reports rank 1's (played) device failure at once. */
static void run_bootstrap_idle_flood(void **state)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char why[400], *peer = NULL, *err, line[512];
	int idle[100], n = 0;
	int64_t t0, took;
	uint16_t port;
	pid_t pid;

	(void)state;
	need_cclab();
	boot_long_reason(why, sizeof(why), "rank 1");
	port = boot_free_port();
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons(port);
	pid = boot_start_rank(0, port);
	t0 = monotonic_ms();
	while (n < 100 && monotonic_ms() - t0 < 5000) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		assert_true(fd >= 0);
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
			idle[n++] = fd;
			continue;
		}
		close(fd); /* rank 0 is not listening yet */
		nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
	}
	assert_int_equal(n, 100);
	t0 = monotonic_ms();
	boot_fake_rank(1, port, -1, why, &peer, pid);
	assert_int_equal(boot_wait(pid, 10000), 1);
	took = monotonic_ms() - t0;
	print_message("rank 1 joined rank 0 among 100 idle connections; both done in %lld ms\n",
		      (long long)took);
	assert_true(took < 3000);
	err = boot_rank_err(0);
	snprintf(line, sizeof(line), "cclab run: rank 1: %s\n", why + 1);
	if (!strstr(err, line))
		fail_msg("rank 0 said:\n%s", err);
	while (n > 0)
		close(idle[--n]);
	free(peer);
	free(err);
}

/* Issue 23 #16: without a launcher --bootstrap was not read, and a bad
 * one surfaced as "no RDMA device"; it is checked first, as under a
 * launcher, exit 2 naming the option. */
static void run_bootstrap_invalid(void **state)
{
	static const struct {
		const char *arg, *want;
	} cases[] = {
		{ "127.0.0.1:99999",
		  "cclab run: --bootstrap: \"127.0.0.1:99999\": port 99999 is not in 1..65535\n" },
		{ "nohost",
		  "cclab run: --bootstrap: \"nohost\": missing :PORT (want HOST:PORT)\n" },
		{ ":29500", "cclab run: --bootstrap: \":29500\": missing host\n" },
		{ "node01:0", "cclab run: --bootstrap: \"node01:0\": port 0 is not in 1..65535\n" },
		{ "@#!:7", "cclab run: --bootstrap: \"@#!:7\": bad host name \"@#!\"\n" },
		{ "10.0.0.1:29x", "cclab run: --bootstrap: \"10.0.0.1:29x\": port \"29x\" is not "
				  "a number in 1..65535\n" },
	};
	struct run r;

	(void)state;
	need_cclab();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int k = 1; k <= 2; k++) {
			r = run_cclab("run -n %d -b 1K --bootstrap '%s'", k, cases[i].arg);
			assert_int_equal(r.status, 2);
			assert_string_equal(r.err, cases[i].want);
			assert_string_equal(r.out, "");
			run_free(&r);
		}
	}
	r = run_cclab("p2p --op write --device rxe0 --bootstrap nohost");
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err, "cclab p2p: --bootstrap: \"nohost\": missing :PORT (want "
				   "HOST:PORT)\n");
	run_free(&r);
	/* Under a launcher, the same words. */
	r = run_cclab_env("CCLAB_RANK=1 CCLAB_WORLD_SIZE=2", "run -b 1K --bootstrap nohost");
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err, cases[1].want);
	run_free(&r);
	/* A good one passes the check; here the run then needs a device. */
	r = run_cclab("run -n 2 -b 1K --bootstrap 127.0.0.1:29500");
	if (r.status == 1)
		assert_non_null(strstr(r.err, "no RDMA device"));
	assert_null(strstr(r.err, "--bootstrap"));
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(devices),
		cmocka_unit_test(run_verbs),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_no_command),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_check_small),
		cmocka_unit_test(test_check_collectives),
		cmocka_unit_test(test_check_json),
		cmocka_unit_test(test_schedule_primitives),
		cmocka_unit_test(test_schedule_plain),
		cmocka_unit_test(test_sim_bad_fabric),
		cmocka_unit_test(test_sim_presets),
		cmocka_unit_test(test_sim_unchecked),
		cmocka_unit_test(test_sim_json_trace),
		cmocka_unit_test(test_sim_unwritable),
		cmocka_unit_test(test_sim_memory_up_front),
		cmocka_unit_test(test_memory_limit_used),
		cmocka_unit_test(test_cgroup_limit),
		cmocka_unit_test(test_wall_limit_covers_build),
		cmocka_unit_test(test_wall_limit_weighed),
		cmocka_unit_test(test_sim_json_is_dir),
		cmocka_unit_test(test_sim_fault_targets),
		cmocka_unit_test(test_sim_default_topology),
		cmocka_unit_test(test_sim_two_cables),
		cmocka_unit_test(test_sim_interrupted),
		cmocka_unit_test(test_tree_chunk_json),
		cmocka_unit_test(test_schedule_one_rank),
		cmocka_unit_test(test_sim_auto_rail_rings),
		cmocka_unit_test(test_sim_auto_top_says_auto),
		cmocka_unit_test(run_rank_failure_whole),
		cmocka_unit_test(run_rank_failure_said),
		cmocka_unit_test(run_bootstrap_idle_flood),
		cmocka_unit_test(run_bootstrap_invalid),
	};

	return cmocka_run_group_tests_name("cli", tests, setup, teardown);
}
