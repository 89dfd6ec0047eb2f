/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_perftest.c — cclab as ib_write_bw & co. (cli/cmd_perftest.c):
 * each of perftest's flags as the `cclab p2p` option it becomes (the
 * header prints that command line), the refused ones naming the flag with
 * exit status 2, --report_gbits and --out_json; perftest's latency
 * columns (core/p2p_report.c) against closed forms of known samples; and
 * the server/client relabelling (cc_p2p_swap_ranks) on the simulator and
 * the data executor, which is what runs on two hosts without an RDMA
 * device here (the two-host run itself is in scripts/softroce/).
 *
 * The programs are symlinks to $CCLAB in the test's private directory, as
 * an install would make them. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
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

#include "core/exec_data.h"
#include "core/p2p.h"
#include "core/p2p_report.h"
#include "sim/exec.h"

static const char *const programs[] = {"ib_write_bw", "ib_write_lat", "ib_read_bw",
				       "ib_read_lat", "ib_send_bw", "ib_send_lat",
				       "ib_atomic_bw", "ib_atomic_lat"};

/* A device no host has: a run on it fails at once, whether or not this
 * host has RDMA devices, and never waits for a peer. */
#define NODEV "cclab_test_nodev0"

static int setup(void **state)
{
	(void)state;
	if (run_cclab_begin("perftest"))
		return -1;
	return run_cclab_links(programs, sizeof(programs) / sizeof(programs[0]));
}

static int teardown(void **state)
{
	(void)state;
	return run_cclab_end();
}

__attribute__((format(printf, 2, 3)))
static struct run run_prog(const char *prog, const char *fmt, ...)
{
	struct run r;
	va_list ap;

	va_start(ap, fmt);
	r = run_link_va("", prog, fmt, ap);
	va_end(ap);
	return r;
}

/* PROG ARGS exits with status and its stdout (on_stdout) or stderr holds
 * every one of the NULL-terminated strings. */
static void expect(const char *prog, const char *args, int status, int on_stdout, ...)
{
	struct run r = run_prog(prog, "%s", args);
	const char *text = on_stdout ? r.out : r.err;
	const char *says;
	va_list ap;

	if (r.status != status)
		fail_msg("%s %s: exit %d, not %d:\n%s%s", prog, args, r.status, status, r.out,
			 r.err);
	va_start(ap, on_stdout);
	while ((says = va_arg(ap, const char *)))
		if (!strstr(text, says))
			fail_msg("%s %s: no '%s' in:\n%s", prog, args, says, text);
	va_end(ap);
	run_free(&r);
}

/* ---- the flags ---- */

/* Each flag as the `cclab p2p` option it becomes, in the header's line
 * "# cclab V as perftest's PROG: cclab p2p ...". */
static void test_flag_mapping(void **state)
{
	(void)state;
	need_cclab_binary();
	/* the program's test, perftest's default iterations (DEF_ITERS_WB for
	 * the write bw tests, DEF_ITERS for the others) */
	expect("ib_write_bw", "-n 5 -s 64", 0, true, "as perftest's ib_write_bw: cclab p2p",
	       "-n 5", "-s 64", "--op write --mode bw", "# cclab: no -d and no server HOST",
	       "BW peak[MB/sec]", NULL);
	expect("ib_read_bw", "-s 64", 0, true, "cclab p2p -s 64 -n 1000 --op read --mode bw",
	       " 64         1000 ", NULL);
	expect("ib_send_bw", "--size 128 --iters 6 --tx-depth 4 --rx-depth 8 --cq-mod 2", 0,
	       true, "-s 128 -n 6 -r 8 -Q 2 -t 4 --op send --mode bw",
	       "tx depth: 4  cq moderation: 2  rx depth: 8", NULL);
	expect("ib_write_lat", "-n 10 -t 1 -Q 1 -r 4", 0, true,
	       "-n 10 -Q 1 -r 4 -t 1 --op write --mode lat", NULL);
	/* perftest's force_dependecies(): tx depth at most -n; no CQ
	 * moderation above 8192 B unless -Q, or with -a */
	expect("ib_write_bw", "-n 50 -s 8192", 0, true, "cclab p2p -n 50 -s 8192 -t 50 --op",
	       "tx depth: 50  cq moderation: 50", NULL);
	expect("ib_write_bw", "-n 50 -s 8193", 0, true, "-n 50 -s 8193 -t 50 -Q 1 --op",
	       "tx depth: 50  cq moderation: 1", NULL);
	expect("ib_write_bw", "-n 50 -s 65536 -Q 20", 0, true, "-Q 20 -t 50 --op",
	       "cq moderation: 20", NULL);
	/* -l: a post list; perftest then moderates by the list, not by the
	 * 8192 B rule, and wants -n a multiple of it */
	expect("ib_write_bw", "-n 64 -s 8193 -l 8", 0, true, "-l 8 -t 64 --op write",
	       "cq moderation: 8", "# post list: 8 WQEs an ibv_post_send, one doorbell", NULL);
	expect("ib_write_bw", "-n 60 -s 64 -l 8", 2, false,
	       "-l/--post_list: iterations 60: not a multiple of the post list, 8", NULL);
	expect("ib_read_lat", "-n 8 -l 2", 2, false, "Post list is supported in BW tests only",
	       NULL);
	/* -l 1 is no list: the CQ moderation stays perftest's */
	expect("ib_write_bw", "-n 200 -s 64 -l 1", 0, true, "cq moderation: 100", NULL);
	expect("ib_write_bw", "-n 64 -s 8193 -l 1", 0, true, "-Q 1", "cq moderation: 1", NULL);
	expect("ib_read_bw", "-n 5 -a --wall-limit 60", 0, true, "-t 5 --op read", NULL);
	expect("ib_read_lat", "-a -n 5 --wall-limit 60", 0, true, "-a -n 5", " 8388608 ",
	       "--op read --mode lat", NULL);
	/* -m: the path MTU, in a simulation the links' */
	expect("ib_send_lat", "-m 1024 -n 5", 0, true, "--mtu 1024", "MTU: 1024 B", NULL);
	expect("ib_send_lat", "--mtu=512 -n 5", 0, true, "--mtu 512", "MTU: 512 B", NULL);
	/* -A and --write_with_imm choose the op */
	expect("ib_atomic_bw", "-n 5", 0, true, "--op fetch_add --mode bw", NULL);
	expect("ib_atomic_bw", "-A CMP_AND_SWAP -n 5", 0, true, "--op cmp_swap --mode bw", NULL);
	expect("ib_atomic_lat", "--atomic_type FETCH_AND_ADD -n 5", 0, true,
	       "--op fetch_add --mode lat", NULL);
	expect("ib_write_bw", "--write_with_imm -n 5", 0, true, "--op write_imm --mode bw", NULL);
	/* --use_cuda N: GPU buffers */
	expect("ib_write_bw", "--use_cuda=0 -n 5", 0, true, "--mem gpu", "memory: gpu",
	       "--use_cuda 0: GPU buffers", NULL);
	/* -b: both sides send, the figures summed */
	expect("ib_send_bw", "-b -n 5", 0, true, "--bidirectional", "as ib_send_bw -b: SEND, "
	       "ranks 0 and 1 both sending", NULL);
	/* -q 1 is what cclab runs; -F has no effect, said so */
	expect("ib_write_bw", "-q 1 -F -n 5", 0, true, "-F/--CPU-freq: no effect", NULL);
	/* device-only flags in a simulation: said, no effect */
	expect("ib_write_bw", "-i 1 -x 3 -p 9999 -n 5", 0, true,
	       "-i/--ib-port: no effect in a simulation", "-p/--port 9999: no effect", NULL);
	/* cclab p2p's own long options reach it */
	expect("ib_write_lat", "-n 5 --fabric roce-100g --topology ring", 0, true,
	       "--fabric roce-100g --topology ring", "fabric: roce-100g  topology: ring", NULL);
	/* `cclab ib_write_bw ...` is the same */
	struct run r = run_cclab("ib_write_bw -n 5");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "as perftest's ib_write_bw: cclab p2p -n 5 -t 5 -Q 1 --op write"));
	run_free(&r);
}

/* -d, -i, -x: a real run's options; -d alone is the server, -d with a
 * HOST the client.  With a device no host has, both stop at once. */
static void test_device_flags(void **state)
{
	(void)state;
	need_cclab_binary();
	expect("ib_write_bw", "-d " NODEV " -i 2 -x 3 -n 5", 1, true,
	       "--port 2 --gid-index 3", "--op write --mode bw --device " NODEV, NULL);
	expect("ib_write_bw", "--ib-dev=" NODEV " --ib-port 1 --gid-index 0 -n 5", 1, true,
	       "--port 1 --gid-index 0", "--device " NODEV, NULL);
	expect("ib_read_lat", "-d " NODEV " -p 20000 127.0.0.1", 1, false, "ib_read_lat: ", NULL);
	/* -b on a device: each side times its own sends and the rows are
	 * summed (scripts/softroce/verbs-tests.sh runs it); here it reaches
	 * the device, which no host has */
	expect("ib_write_bw", "-b -d " NODEV " -n 5", 1, true,
	       "--bidirectional", "--op write --mode bw --device " NODEV, NULL);
}

/* What perftest does and cclab does not: refused, the flag named, exit 2. */
static void test_refused(void **state)
{
	static const struct {
		const char *prog, *args, *says;
	} cases[] = {
		{"ib_write_bw", "-q 2", "-q/--qp 2: not modelled"},
		{"ib_write_bw", "--qp=4", "-q/--qp 4: not modelled"},
		{"ib_write_bw", "-D 5", "-D/--duration: not modelled"},
		{"ib_send_lat", "-b", "-b/--bidirectional: Bidirectional is only available in BW"},
		{"ib_read_lat", "-R", "-R/--rdma_cm: not supported"},
		{"ib_write_bw", "--rdma_cm", "-R/--rdma_cm: not supported"},
		{"ib_write_bw", "-A CMP_AND_SWAP", "-A/--atomic_type: only the atomic tests"},
		{"ib_atomic_bw", "-A SWAP", "'SWAP': expected FETCH_AND_ADD or CMP_AND_SWAP"},
		{"ib_read_bw", "--write_with_imm", "--write_with_imm: only the write tests"},
		{"ib_write_bw", "--foo", "unknown flag '--foo'"},
		{"ib_write_bw", "-z", "unknown flag '-z'"},
		{"ib_write_bw", "-n 4", "-n/--iters: '4' is not a whole number from 5"},
		{"ib_write_bw", "-n x", "-n/--iters: 'x'"},
		{"ib_write_bw", "-m 1000", "-m/--mtu: '1000': an IB MTU is"},
		{"ib_write_bw", "-m 8192", "-m/--mtu: '8192'"},
		{"ib_write_bw", "-i 0", "-i/--ib-port: '0'"},
		{"ib_write_bw", "-x 256", "-x/--gid-index: '256'"},
		{"ib_write_bw", "-p 0", "-p/--port: '0'"},
		{"ib_write_bw", "-p 65536", "-p/--port: '65536'"},
		{"ib_write_bw", "--use_cuda x", "--use_cuda: 'x'"},
		{"ib_write_bw", "-s 8 -s 16", "-s/--size: given twice"},
		{"ib_write_bw", "-s", "flag '-s' needs a value"},
		{"ib_write_bw", "--all=1", "flag '--all=1' takes no value"},
		{"ib_write_bw", "h1 h2", "unexpected argument 'h2'"},
		{"ib_write_bw", "--op read", "--op: the program's name sets the test"},
		{"ib_write_bw", "--mode lat", "--mode: the program's name sets the test"},
		{"ib_write_bw", "--device " NODEV " -d " NODEV, "--device runs both sides"},
		{"ib_write_bw", "-d " NODEV " --bootstrap h:1", "--bootstrap belongs to --device"},
		/* refused by cclab p2p: the command line it was given is shown */
		{"ib_write_bw", "-s 0", "-s/--size: '0' is not a whole number from 1"},
		{"ib_write_bw", "-s 1K", "-s/--size: '1K'"},
		{"ib_write_bw", "-t 0", "-t/--tx-depth: '0'"},
		{"ib_write_lat", "-s 3G", "-s/--size: '3G'"},
		{"ib_atomic_bw", "-s 64", "perftest's flags as cclab's: cclab p2p -s 64"},
		{"ib_write_bw", "-s 8 -a", "-s/--size and -a/--all exclude each other"},
		{"ib_write_bw", "-d " NODEV " --fabric ib-hdr", "applies to the simulator"},
		{"ib_write_bw", "--fabric nosuch", "--fabric"},
	};

	(void)state;
	need_cclab_binary();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect(cases[i].prog, cases[i].args, 2, false, cases[i].says, NULL);
}

static void test_help(void **state)
{
	(void)state;
	need_cclab_binary();
	expect("ib_atomic_lat", "--help", 0, true, "Usage: ib_atomic_lat [FLAGS] [HOST]",
	       "-A, --atomic_type", "--report_gbits", "(fetch_add lat", NULL);
	expect("ib_write_bw", "-h", 0, true, "-d, --ib-dev DEV", NULL);
}

/* --report_gbits: 10^9 bit per second, from the same run as MB/sec. */
static void test_gbits(void **state)
{
	struct run mb, gb;
	double mbv, gbv;

	(void)state;
	need_cclab_binary();
	mb = run_prog("ib_write_bw", "-n 50 -s 4096");
	gb = run_prog("ib_write_bw", "-n 50 -s 4096 --report_gbits");
	assert_int_equal(mb.status, 0);
	assert_int_equal(gb.status, 0);
	assert_non_null(strstr(gb.out, "BW peak[Gb/sec]    BW average[Gb/sec]"));
	const char *a = strstr(mb.out, "\n 4096 "), *b = strstr(gb.out, "\n 4096 ");
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(sscanf(a, " %*u %*u %*f %lf", &mbv), 1);
	assert_int_equal(sscanf(b, " %*u %*u %*f %lf", &gbv), 1);
	/* two decimals each: within their rounding */
	assert_true(fabs(gbv - mbv * 1048576.0 * 8 / 1e9) < 0.01 + mbv * 1e-4);
	run_free(&mb);
	run_free(&gb);
}

/* --out_json: perftest's layout, the last size; --out_json_file alone
 * writes nothing, as perftest. */
static void test_out_json(void **state)
{
	char path[200], args[300];
	char *j;

	(void)state;
	need_cclab_binary();
	snprintf(path, sizeof(path), "%s/lat.json", tmpdir);
	snprintf(args, sizeof(args), "-n 20 -a --out_json --out_json_file %s", path);
	expect("ib_atomic_lat", args, 0, true, "t_stdev[usec]", NULL);
	j = text_of(path);
	assert_non_null(strstr(j, "\"test\": \"Atomic_FETCH_AND_ADD_Latency_Test\""));
	assert_non_null(strstr(j, "\"results\": {\n\"MsgSize\": 8,\n\"n_iterations\": 20,\n"));
	assert_non_null(strstr(j, "\"t_stdev\": "));
	assert_non_null(strstr(j, "\"percentile_99.9\": "));
	assert_non_null(strstr(j, "\"cclab_executor\": \"sim\""));
	free(j);

	snprintf(path, sizeof(path), "%s/bw.json", tmpdir);
	snprintf(args, sizeof(args), "-n 5 -a --report_gbits --out_json --out_json_file=%s",
		 path);
	expect("ib_write_bw", args, 0, true, NULL);
	j = text_of(path);
	assert_non_null(strstr(j, "\"test\": \"RDMA_Write_BW_Test\""));
	assert_non_null(strstr(j, "\"CQ_Moderation\": 5,")); /* -t 5: at most -n */
	/* perftest rewrites the file after each size: the last is left */
	assert_non_null(strstr(j, "\"MsgSize\": 8388608,\n\"n_iterations\": 5,\n\"BW_peak\": "));
	free(j);

	snprintf(path, sizeof(path), "%s/none.json", tmpdir);
	snprintf(args, sizeof(args), "-n 5 --out_json_file %s", path);
	expect("ib_write_bw", args, 0, true, "--out_json_file without --out_json", NULL);
	assert_int_equal(access(path, F_OK), -1);
}

/* ---- perftest's latency columns, from known samples ---- */

/* Stamps whose deltas are d[0..m), posted[0] = 0. */
static void stamps(struct cc_p2p_times *t, const uint64_t *d, uint32_t m)
{
	assert_int_equal(cc_p2p_times_init(t, m + 1), 0);
	t->posted[0] = 0;
	for (uint32_t i = 0; i < m; i++)
		t->posted[i + 1] = t->posted[i] + d[i];
}

/* Deltas 1..m us in a scrambled order (37 is prime to m): sorted, the k-th
 * is k + 1, so every figure has a closed form in n, the deltas kept. */
static void test_lat_columns_closed_form(void **state)
{
	enum { M = 1000 };
	static uint64_t d[M];
	struct cc_p2p_params p;
	struct cc_p2p_times t;
	struct cc_p2p_lat l;

	(void)state;
	for (uint32_t i = 0; i < M; i++)
		d[i] = ((uint64_t)(i * 37u % M) + 1) * 1000000u; /* 1..1000 us */
	stamps(&t, d, M);
	cc_p2p_params_default(&p, CC_P2P_READ, CC_P2P_LAT); /* rtt_factor 1 */

	/* perftest's: the 2 largest left out, n = 998 */
	assert_int_equal(cc_p2p_lat_compute_tail(&p, &t, CC_P2P_PERFTEST_TAIL, &l), 0);
	double n = M - 2;
	assert_int_equal(l.samples, 998);
	assert_true(l.min_us == 1);
	assert_true(l.max_us == 999);             /* delta[measure_cnt] */
	assert_true(l.typical_us == (499 + 500) / 2.0); /* even n: the two middle ones */
	assert_true(fabs(l.avg_us - (n + 1) / 2) < 1e-9);
	/* population stdev of 1..n: sqrt((n^2 - 1) / 12) */
	assert_true(fabs(l.stdev_us - sqrt((n * n - 1) / 12)) < 1e-9);
	/* 99 %: index ceil(998 * 0.99) = 989, the value 990; 99.9 %: index
	 * ceil(997.002) = 998, the value 999 */
	assert_true(l.p99_us == 990);
	assert_true(l.p999_us == 999);

	/* cclab p2p's: every delta, n = 999 */
	assert_int_equal(cc_p2p_lat_compute(&p, &t, &l), 0);
	n = M;
	assert_int_equal(l.samples, M);
	assert_true(l.max_us == 1000);
	assert_true(l.typical_us == 500.5);
	assert_true(fabs(l.stdev_us - sqrt((n * n - 1) / 12)) < 1e-9);
	assert_true(l.p99_us == 991);   /* index ceil(990) = 990 */
	assert_true(l.p999_us == 1000); /* index ceil(999) = 999, the last */
	cc_p2p_times_free(&t);

	/* A ping-pong halves every figure (rtt_factor 2), stdev too. */
	stamps(&t, d, M);
	cc_p2p_params_default(&p, CC_P2P_SEND, CC_P2P_LAT);
	assert_int_equal(cc_p2p_lat_compute_tail(&p, &t, 2, &l), 0);
	assert_true(l.max_us == 999 / 2.0);
	assert_true(fabs(l.stdev_us - sqrt((998.0 * 998 - 1) / 12) / 2) < 1e-9);
	assert_true(l.p99_us == 990 / 2.0);
	cc_p2p_times_free(&t);
}

/* Uneven samples, against a two-pass computation written here. */
static void test_lat_columns_uneven(void **state)
{
	/* one outlier, ties, an odd count after the tail */
	static const uint64_t d[] = {3000000, 1000000, 1000000, 2000000, 50000000, 1500000,
				     1000000, 4000000, 1200000, 9000000};
	uint32_t m = sizeof(d) / sizeof(d[0]);
	struct cc_p2p_params p;
	struct cc_p2p_times t;
	struct cc_p2p_lat l;

	(void)state;
	cc_p2p_params_default(&p, CC_P2P_FETCH_ADD, CC_P2P_LAT);
	stamps(&t, d, m);
	/* sorted (us): 1 1 1 1.2 1.5 2 3 4 9 50: 10 deltas of 11 stamps
	 * (iters 11); perftest keeps the n = 8 smallest */
	assert_int_equal(cc_p2p_lat_compute_tail(&p, &t, 2, &l), 0);
	const double kept[] = {1, 1, 1, 1.2, 1.5, 2, 3, 4};
	double mean = 0, var = 0;
	for (int i = 0; i < 8; i++)
		mean += kept[i] / 8;
	for (int i = 0; i < 8; i++)
		var += (kept[i] - mean) * (kept[i] - mean) / 8;
	assert_int_equal(l.samples, 8);
	assert_true(l.min_us == 1);
	assert_true(l.max_us == 9);               /* delta[8] */
	assert_true(l.typical_us == (1.2 + 1.5) / 2);
	assert_true(fabs(l.avg_us - mean) < 1e-12);
	assert_true(fabs(l.stdev_us - sqrt(var)) < 1e-12);
	assert_true(l.p99_us == 9);               /* index ceil(7.92) = 8 */
	assert_true(l.p999_us == 9);              /* index ceil(7.992) = 8 */
	/* too few deltas for the tail */
	cc_p2p_times_free(&t);
	stamps(&t, d, 2);
	assert_int_equal(cc_p2p_lat_compute_tail(&p, &t, 2, &l), -EINVAL);
	assert_int_equal(cc_p2p_lat_compute(&p, &t, &l), 0);
	/* {1, 3}: index ceil(1.98) = 2 is past the end, so the last one */
	assert_true(l.min_us == 1 && l.max_us == 3 && l.p99_us == 3 && l.p999_us == 3);
	cc_p2p_times_free(&t);
}

/* The table prints the nine columns, as ib_*_lat's. */
static void test_lat_table(void **state)
{
	(void)state;
	need_cclab_binary();
	expect("ib_write_lat", "-n 100", 0, true,
	       " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
	       "t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]\n",
	       "t over the 97 deltas tposted[i+1] - tposted[i] but the 2 largest", NULL);
	struct run r = run_cclab("p2p --op send --mode lat -n 100");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "t_stdev[usec]   99% percentile[usec]"));
	assert_non_null(strstr(r.out, "t over the 99 deltas tposted[i+1] - tposted[i], halved"));
	run_free(&r);
}

/* ---- two hosts: the server is rank 0 of the swapped schedule ---- */

/* The same test with the client as rank 1 gives the same figures: on the
 * simulator (the star is symmetric) from rank 1's stamps. */
static void test_swap_sim(void **state)
{
	static const enum cc_p2p_op ops[] = {CC_P2P_WRITE, CC_P2P_SEND, CC_P2P_READ,
					     CC_P2P_FETCH_ADD};
	struct sim_params f;
	struct sim_net net;
	char msg[SIM_NET_ERR_LEN], err[256];

	(void)state;
	assert_int_equal(sim_params_preset("ib-hdr", &f), 0);
	sim_net_init(&net, "");
	assert_int_equal(sim_topo_net_make(&net, SIM_TOPO_STAR, 2, msg, sizeof(msg)), 0);
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		for (int mode = 0; mode < CC_P2P_MODE_COUNT; mode++) {
			struct cc_p2p_params p;
			double fig[2];

			cc_p2p_params_default(&p, ops[k], (enum cc_p2p_mode)mode);
			p.iters = 20;
			for (uint32_t client = 0; client < 2; client++) {
				struct cc_schedule *s = cc_build_p2p(&p, err, sizeof(err));
				struct cc_sim_result res;
				struct cc_trace tr;
				struct cc_p2p_times t;
				struct cc_p2p_bw bw;
				struct cc_p2p_lat lat;

				assert_non_null(s);
				if (client)
					cc_p2p_swap_ranks(s);
				assert_int_equal(cc_schedule_validate(s, err, sizeof(err)), 0);
				cc_trace_init(&tr);
				struct cc_sim_opts o = { .fabric = &f, .net = &net, .seed = 1,
							 .trace = &tr,
							 .time_limit_ps = 10 * SIM_PS_PER_S };
				assert_int_equal(cc_sim_run(s, &o, &res), 0);
				assert_int_equal(res.err.status, CC_RUN_OK);
				assert_int_equal(cc_p2p_times_init(&t, p.iters), 0);
				t.client = client;
				assert_int_equal(cc_p2p_times_from_trace(&t, s, &tr), 0);
				if (mode == CC_P2P_BW) {
					assert_int_equal(cc_p2p_bw_compute(&p, &t, &bw), 0);
					fig[client] = bw.avg_mib_s;
				} else {
					assert_int_equal(cc_p2p_lat_compute(&p, &t, &lat), 0);
					fig[client] = lat.avg_us;
				}
				cc_p2p_times_free(&t);
				cc_trace_free(&tr);
				cc_sim_result_free(&res);
				cc_schedule_free(s);
			}
			if (fig[0] != fig[1])
				fail_msg("%s %s: client rank 0 %.6f, rank 1 %.6f",
					 cc_p2p_op_name[ops[k]], cc_p2p_mode_name[mode], fig[0],
					 fig[1]);
		}
	sim_net_free(&net);
}

/* The data executor runs the swapped schedule to the end, every op
 * checked: the relabelling leaves no QP or MR pointing at the wrong
 * rank.  The client's stamps on the wrong rank are missing: -EINVAL. */
static void test_swap_data(void **state)
{
	char err[256];

	(void)state;
	for (int op = 0; op < CC_P2P_OP_COUNT; op++)
		for (int mode = 0; mode < CC_P2P_MODE_COUNT; mode++) {
			struct cc_p2p_params p;
			struct cc_data_result res;

			cc_p2p_params_default(&p, (enum cc_p2p_op)op, (enum cc_p2p_mode)mode);
			p.iters = 10;
			struct cc_schedule *s = cc_build_p2p(&p, err, sizeof(err));
			assert_non_null(s);
			cc_p2p_swap_ranks(s);
			assert_int_equal(s->ranks[1].qps[0].peer, 0);
			assert_int_equal(s->ranks[0].qps[0].peer, 1);
			struct cc_data_opts o = { .seed = 1 };
			assert_int_equal(cc_data_run(s, &o, &res), 0);
			if (res.err.status != CC_RUN_OK)
				fail_msg("%s %s swapped: %s", cc_p2p_op_name[op],
					 cc_p2p_mode_name[mode], res.err.msg);
			cc_data_result_free(&res);
			cc_schedule_free(s);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flag_mapping),
		cmocka_unit_test(test_device_flags),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_gbits),
		cmocka_unit_test(test_out_json),
		cmocka_unit_test(test_lat_columns_closed_form),
		cmocka_unit_test(test_lat_columns_uneven),
		cmocka_unit_test(test_lat_table),
		cmocka_unit_test(test_swap_sim),
		cmocka_unit_test(test_swap_data),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
