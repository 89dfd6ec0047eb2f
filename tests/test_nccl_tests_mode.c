/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_nccl_tests_mode.c — cclab run as all_reduce_perf & co.
 * (cli/cmd_nccl_tests.c): nccl-tests' header lines and column positions as
 * its parsers read them, the rows' figures equal to `cclab sim`'s for the
 * same setting, -J's JSON layout, NCCL_ALGO from the environment, refused
 * flags, -d all, -a, the launcher's process count, -i stepping.
 *
 * The programs are symlinks to $CCLAB in the test's private directory, as
 * an install would make them. */
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

static const char *const programs[] = {"all_reduce_perf", "broadcast_perf", "reduce_perf",
				       "sendrecv_perf"};

static int setup(void **state)
{
	(void)state;
	if (run_cclab_begin("ncclt"))
		return -1;
	return run_cclab_links(programs, sizeof(programs) / sizeof(programs[0]));
}

static int teardown(void **state)
{
	(void)state;
	return run_cclab_end();
}

/* Runs "ENV TMPDIR/PROG ARGS" (the symlink) as run_cclab_env() runs $CCLAB. */
__attribute__((format(printf, 3, 4)))
static struct run run_prog(const char *env, const char *prog, const char *fmt, ...)
{
	struct run r;
	va_list ap;

	va_start(ap, fmt);
	r = run_link_va(env, prog, fmt, ap);
	va_end(ap);
	return r;
}

/* Runs ENV PROG ARGS and checks its exit status and that stdout (on
 * stdout) or stderr holds `says`. */
static void expect(const char *env, const char *prog, const char *args, int status,
		   bool on_stdout, const char *says)
{
	struct run r = run_prog(env, prog, "%s", args);
	const char *text = on_stdout ? r.out : r.err;

	if (r.status != status || !strstr(text, says))
		fail_msg("%s %s %s: exit %d (not %d), or no '%s' in:\n%s", env, prog, args,
			 r.status, status, says, text);
	run_free(&r);
}

/* The lines of a text, in place: line[i] points into text (newlines cut). */
static int lines_of(char *text, char **line, int max)
{
	int n = 0;

	for (char *p = text; *p && n < max;) {
		char *nl = strchr(p, '\n');

		line[n++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	return n;
}

/* A row's whitespace-separated fields, as awk numbers them from 1. */
#define MAX_FIELDS 16
struct row {
	int n;
	char f[MAX_FIELDS + 1][32];
};

static struct row fields(const char *line)
{
	struct row r = {0};
	const char *p = line;

	while (*p && r.n < MAX_FIELDS) {
		int w = 0;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		r.n++;
		while (*p && *p != ' ' && w < 31)
			r.f[r.n][w++] = *p++;
		while (*p && *p != ' ')
			p++;
	}
	return r;
}

/* The table's rows (not '#', not empty) of an output. */
static int rows_of(const char *out, struct row *rows, int max)
{
	char *text = strdup(out), *line[4096];
	int n, k = 0;

	assert_non_null(text);
	n = lines_of(text, line, 4096);
	for (int i = 0; i < n && k < max; i++)
		if (line[i][0] && line[i][0] != '#')
			rows[k++] = fields(line[i]);
	free(text);
	return k;
}

static void need(void)
{
	need_cclab_binary();
}

/* all_reduce_perf -b 8 -e 128M -f 2 -g 8: nccl-tests' lines, columns at
 * nccl-tests' positions, and the busbw `cclab sim` gives the same run. */
static void header_columns_and_figures(void **state)
{
	static struct row nt[64], sim[64];
	char *line[256];
	(void)state;
	need();
	struct run r = run_prog("CCLAB_JOBS=1", "all_reduce_perf", "-b 8 -e 128M -f 2 -g 8 -c 0");
	/* one thread launches the 8 GPUs' kernels (sim/launch.h) */
	struct run s = run_cclab("sim -n 8 -A auto --ranks-per-node 8 --topology node -b 8 -e 128M -f 2 "
				  "--check 0 --gpus-per-thread 8");
	char *text = strdup(r.out);

	assert_int_equal(r.status, 0);
	assert_int_equal(s.status, 0);
	int n = lines_of(text, line, 256);

	assert_true(n > 40);
	assert_true(!strncmp(line[0], "# nccl-tests version 2.19.6 (cclab ", 35));
	assert_non_null(strstr(line[0], " simulation) nccl-headers="));
	assert_non_null(strstr(line[0], " nccl-library="));
	assert_string_equal(line[1], "# Collective test starting: all_reduce_perf");
	assert_string_equal(line[2], "# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: "
			    "2(factor) warmup iters: 1 iters: 20 agg iters: 1 validation: 0 "
			    "graph: 0 unalign: 0");
	int dev = -1;

	for (int i = 0; i < n; i++)
		if (!strcmp(line[i], "# Using devices"))
			dev = i;
	assert_true(dev > 3);
	assert_string_equal(line[dev - 1], "#");
	for (int k = 0; k < 8; k++) {
		char want[32];

		snprintf(want, sizeof(want), "#  Rank %2d Group  0 Pid ", k);
		assert_true(!strncmp(line[dev + 1 + k], want, strlen(want)));
	}
	assert_string_equal(line[dev + 9], "#");
	assert_string_equal(line[dev + 10], "#                                                     "
			    "         out-of-place                       in-place          ");
	assert_string_equal(line[dev + 11], "#       size         count      type   redop    root  "
			    "   time   algbw   busbw  #wrong     time   algbw   busbw  #wrong ");
	assert_string_equal(line[dev + 12], "#        (B)    (elements)                            "
			    "   (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         ");
	/* the rows: 8 B to 128 MiB, 13 fields, in-place repeating
	 * out-of-place, the busbw of cclab sim's rows */
	int k = rows_of(r.out, nt, 64), ks = rows_of(s.out, sim, 64);
	double sum = 0;

	assert_int_equal(k, 25);
	assert_int_equal(ks, 25);
	/* the smallest sizes take the thread's launches: 1.6 + 8 x 3.96 us */
	assert_non_null(strstr(r.out, "# cclab: -g 8 -m 1: a thread launches its GPUs' kernels "
				      "one after another, so an iteration takes at least "
				      "(software.group_cpu_ps + 8 x software.launch_cpu_ps) / 1"));
	assert_string_equal(nt[0].f[6], "33.28");
	for (int i = 0; i < k; i++) {
		char size[32];

		assert_int_equal(nt[i].n, 13);
		snprintf(size, sizeof(size), "%llu", 8ULL << i);
		assert_string_equal(nt[i].f[1], size);
		assert_string_equal(nt[i].f[3], "float");
		assert_string_equal(nt[i].f[4], "sum");
		assert_string_equal(nt[i].f[5], "-1");
		for (int c = 6; c <= 9; c++) /* $10 in-place time, $12 its busbw */
			assert_string_equal(nt[i].f[c], nt[i].f[c + 4]);
		assert_string_equal(nt[i].f[9], "N/A");
		assert_string_equal(nt[i].f[8], sim[i].f[8]);
		assert_true(fabs(atof(nt[i].f[6]) - atof(sim[i].f[6])) < 0.051);
		sum += atof(nt[i].f[8]);
	}
	/* the closing lines, the average over rows within their rounding */
	int o = dev + 13 + k;

	assert_string_equal(line[o], "# Out of bounds values : 0 OK");
	assert_true(!strncmp(line[o + 1], "# Avg bus bandwidth    : ", 25));
	assert_true(fabs(atof(line[o + 1] + 25) - sum / k) < 0.01);
	assert_int_equal(line[o + 1][strlen(line[o + 1]) - 1], ' ');
	assert_string_equal(line[o + 2], "#");
	assert_string_equal(line[o + 3], "# Collective test concluded: all_reduce_perf");
	assert_string_equal(line[o + 4], "#");
	assert_string_equal(line[o + 5], "");
	assert_int_equal(n, o + 6);
	free(text);
	run_free(&r);
	run_free(&s);
}

/* -J: nccl-tests' JSON layout, and the line that names the file. */
static void json_layout(void **state)
{
	char path[128], first[192];
	(void)state;
	need();
	snprintf(path, sizeof(path), "%s/r.json", tmpdir);
	struct run r = run_prog("CCLAB_JOBS=1 NCCL_ALGO=Ring", "all_reduce_perf",
				"-b 1K -e 4K -f 4 -g 2 -J '%s'", path);
	char *j = text_of(path);
	static const char *const keys[] = {
		"\"version\": 3", "\"start_time\": \"", "\"args\": [", "\"env\": [",
		"\"NCCL_ALGO=Ring\"", "\"nccl_version\": ", "\"config\": {", "\"nthreads\": 1",
		"\"ngpus\": 2", "\"minimum_bytes\": 1024", "\"maximum_bytes\": 4096",
		"\"step_factor\": 4", "\"warmup_iters\": 1", "\"iterations\": 20",
		"\"aggregated_iterations\": 1", "\"validation\": 1", "\"graph\": 0",
		"\"blocking_collectives\": \"false\"", "\"parallel_init\": \"false\"",
		"\"devices\": [", "\"hostname\": \"sim-node0\"", "\"device\": 1", "\"device_hex\": \"0000:00:00\"",
		"\"results\": [", "\"size\": 1024", "\"count\": 256", "\"type\": \"float\"",
		"\"redop\": \"sum\"", "\"root\": \"    -1\"", "\"out_of_place\": {",
		"\"in_place\": {", "\"alg_bw\": ", "\"bus_bw\": ", "\"nwrong\": 0",
		"\"actual_iterations\": 20", "\"experiment_name\": \"\"", "\"out_of_bounds\": {",
		"\"okay\": \"true\"", "\"average_bus_bandwidth\": {", "\"okay\": \"unchecked\"",
		"\"errors\": []", "\"end_time\": \"",
	};

	assert_int_equal(r.status, 0);
	snprintf(first, sizeof(first), "# Writing JSON output to %s\n", path);
	assert_true(!strncmp(r.out, first, strlen(first)));
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strstr(j, keys[i]))
			fail_msg("-J file lacks %s:\n%s", keys[i], j);
	assert_int_equal(count_substr(j, "\"size\": "), 2);
	assert_int_equal(count_substr(j, "\"rank\": "), 2);
	assert_int_equal(count_substr(j, "\"time\": "), 4);
	free(j);
	run_free(&r);
	/* a name nccl-tests would ignore is refused */
	r = run_prog("", "all_reduce_perf", "-J '%s/r.txt'", tmpdir);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "-J (--output_file)"));
	run_free(&r);
}

/* NCCL_ALGO in the environment: taken as `cclab sim --env` takes it, and
 * said in the header. */
static void env_nccl_algo(void **state)
{
	struct row ring[4], tree[4], sim[4];
	(void)state;
	need();
	/* -G 1: from a CUDA graph, so the launches set no floor and the
	 * algorithms' own times show */
	struct run a = run_prog("CCLAB_JOBS=1 NCCL_ALGO=Ring NCCL_DEBUG=INFO", "all_reduce_perf",
				"-b 64K -e 64K -g 8 -c 0 -G 1");
	struct run b = run_prog("CCLAB_JOBS=1 NCCL_ALGO=Tree", "all_reduce_perf",
				"-b 64K -e 64K -g 8 -c 0 -G 1");
	struct run s = run_cclab("sim -n 8 -A auto --ranks-per-node 8 --topology node "
				  "--env NCCL_ALGO=Ring -b 64K --check 0 --gpus-per-thread 8 "
				  "--cuda-graph");

	assert_int_equal(a.status, 0);
	assert_int_equal(b.status, 0);
	assert_non_null(strstr(a.out, "# cclab: from the environment, as NCCL reads them: "
				      "NCCL_ALGO=Ring\n"));
	assert_non_null(strstr(a.out, "changing nothing cclab models: NCCL_DEBUG=INFO\n"));
	/* what auto picks per size is per size here too, but nccl-tests' rows
	 * carry no note, so no line promises one */
	assert_non_null(strstr(a.out, "# chunk: per size, NCCL's rule for what the size runs  "
				      "slot: per size, the protocol's  slots: 8  channels: per "
				      "size\n"));
	assert_null(strstr(a.out, "noted after each row"));
	assert_int_equal(rows_of(a.out, ring, 4), 1);
	assert_int_equal(rows_of(b.out, tree, 4), 1);
	assert_int_equal(rows_of(s.out, sim, 4), 1);
	assert_non_null(strstr(s.out, "# Ring/"));
	assert_string_equal(ring[0].f[8], sim[0].f[8]);
	assert_string_not_equal(ring[0].f[6], tree[0].f[6]);
	run_free(&a);
	run_free(&b);
	run_free(&s);
	/* a value NCCL's syntax refuses: exit 2, the variable named */
	expect("NCCL_ALGO=rnig", "all_reduce_perf", "-g 2 -b 1K -e 1K", 2, false,
	       "all_reduce_perf: NCCL_ALGO in the environment: ");
}

/* Flags a simulation cannot honour, and bad values: exit 2 naming them. */
static void refused_flags(void **state)
{
	static const struct {
		const char *args, *says;
	} cases[] = {
		{"-C 1", "-C (--report_cputime): a simulation has no host CPU time"},
		{"-M 1", "-M (--memory)"},
		{"-I 1", "-I (--per_iter_timing)"},
		{"-D 1", "-D (--device_implementation)"},
		{"-d f8e4m3", "-d (--datatype): cclab has no fp8 type"},
		{"-o mulsum", "-o (--op)"},
		{"-d bogus", "invalid value 'bogus' for -d (--datatype)"},
		{"-g 0", "invalid value '0' for -g (--ngpus)"},
		{"-n 4x", "invalid value '4x' for -n (--iters)"},
		{"-N 0", "-N (--run_cycles)"},
		{"-b 1M -e 1K", "'minbytes' and 'maxbytes'"},
		{"-q", "invalid option '-q'"},
		{"--nranks 4", "--nranks"},
		{"-T 5 --wall-limit 5", "-T (--timeout) and --wall-limit"},
		{"-d all --json x.json", "--json"},
	};
	(void)state;
	need();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		expect("", "all_reduce_perf", cases[i].args, 2, false, cases[i].says);
		expect("", "all_reduce_perf", cases[i].args, 2, false, "all_reduce_perf: ");
	}
	/* a check of `cclab sim` after the translation: what it was asked */
	expect("", "all_reduce_perf", "-g 2 -b 1K -e 1K --fabric nope", 2, false,
	       "invalid value 'nope' for --fabric");
	expect("", "all_reduce_perf", "-g 2 -b 1K -e 1K --fabric nope", 2, false,
	       "all_reduce_perf: nccl-tests' flags as cclab's: cclab sim -n 2 -c allreduce");
}

/* -d all: every type nccl-tests runs that cclab has, in nccl-tests'
 * order; -o all every op; -r -1 every root. */
static void every_type_op_root(void **state)
{
	static const char *const types[] = {"int8", "uint8", "int32", "uint32", "int64",
					    "uint64", "half", "float", "double", "bfloat16"};
	static struct row rows[64];
	(void)state;
	need();
	struct run r = run_prog("CCLAB_JOBS=1", "all_reduce_perf", "-d all -b 1K -e 1K -g 2");

	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "# cclab: -d all: f8e4m3 and f8e5m2 left out"));
	assert_int_equal(rows_of(r.out, rows, 64), 10);
	for (int i = 0; i < 10; i++) {
		assert_string_equal(rows[i].f[3], types[i]);
		assert_string_equal(rows[i].f[9], "0"); /* checked, none wrong */
	}
	assert_int_equal(count_lines_starting(r.out, "# Out of bounds values : 0 OK"), 1);
	run_free(&r);
	r = run_prog("CCLAB_JOBS=1", "all_reduce_perf", "-o all -b 1K -e 1K -g 2 -c 0");
	assert_int_equal(r.status, 0);
	assert_int_equal(rows_of(r.out, rows, 64), 5);
	assert_string_equal(rows[2].f[4], "max"); /* test_opnames[]: sum prod max min avg */
	assert_string_equal(rows[4].f[4], "avg");
	run_free(&r);
	/* sendrecv.cu loops the ops too; its in-place half is never checked
	 * ("We don't support in-place sendrecv"): N/A, and busbw = algbw */
	r = run_prog("CCLAB_JOBS=1", "sendrecv_perf", "-o all -b 1M -e 1M -g 4");
	assert_int_equal(r.status, 0);
	assert_int_equal(rows_of(r.out, rows, 64), 5);
	for (int i = 0; i < 5; i++) {
		assert_string_equal(rows[i].f[1], "1048576");
		assert_string_equal(rows[i].f[2], "262144");
		assert_string_equal(rows[i].f[5], "-1");
		assert_string_equal(rows[i].f[7], rows[i].f[8]);
		assert_string_equal(rows[i].f[9], "0");
		assert_string_equal(rows[i].f[13], "N/A");
	}
	assert_string_equal(rows[1].f[4], "prod");
	run_free(&r);
	r = run_prog("CCLAB_JOBS=1", "broadcast_perf", "-r -1 -b 1K -e 1K -g 3 -c 0");
	assert_int_equal(r.status, 0);
	assert_int_equal(rows_of(r.out, rows, 64), 3);
	for (int i = 0; i < 3; i++) {
		char root[8];

		snprintf(root, sizeof(root), "%d", i);
		assert_string_equal(rows[i].f[5], root);
		assert_string_equal(rows[i].f[4], "none");
	}
	run_free(&r);
}

/* -a over -t threads of one GPU each: the least <= the mean <= the
 * largest, the largest cclab sim's time (every rank done); -g puts every
 * GPU under one thread's timer, so then any -a is cclab sim's. */
static void average_modes(void **state)
{
	struct row rows[4], sim[4];
	double t[4];
	(void)state;
	need();
	for (int a = 0; a < 4; a++) {
		struct run r = run_prog("CCLAB_JOBS=1", "reduce_perf", "-t 4 -b 1M -e 1M -c 0 -a %d", a);

		assert_int_equal(r.status, 0);
		assert_int_equal(rows_of(r.out, rows, 4), 1);
		t[a] = atof(rows[0].f[6]);
		run_free(&r);
	}
	struct run s = run_cclab("sim -n 4 -c reduce -A auto --ranks-per-node 4 --topology node -b 1M "
				  "--check 0");

	assert_int_equal(rows_of(s.out, sim, 4), 1);
	assert_true(t[2] < t[1] && t[1] < t[3]); /* the root of a reduce ends last */
	assert_true(t[0] <= t[3]);
	assert_true(fabs(t[3] - atof(sim[0].f[6])) < 0.051);
	run_free(&s);
	struct run r = run_prog("CCLAB_JOBS=1", "reduce_perf", "-g 4 -b 1M -e 1M -c 0 -a 2");

	assert_int_equal(rows_of(r.out, rows, 4), 1);
	assert_true(fabs(atof(rows[0].f[6]) - t[3]) < 0.0051);
	run_free(&r);
}

/* The launcher's processes multiply the ranks; its other ranks print
 * nothing; a repeated flag's last value counts and the header says so;
 * nccl-tests' default stepping is -i bytes. */
static void launcher_repeats_and_steps(void **state)
{
	struct row rows[8];
	(void)state;
	need();
	struct run r = run_prog("CCLAB_JOBS=1 OMPI_COMM_WORLD_SIZE=2", "all_reduce_perf",
				"-g 2 -b 8 -b 1K -e 1K -c 0");

	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "; 4 ranks = 2 processes (OMPI_COMM_WORLD_SIZE) x -t 1 x "
				      "-g 2\n"));
	assert_int_equal(count_lines_starting(r.out, "#  Rank "), 4);
	assert_non_null(strstr(r.out, "# cclab: -b (--minbytes) given 2 times: the last, 1K, "
				      "counts (getopt, as nccl-tests)\n"));
	assert_int_equal(rows_of(r.out, rows, 8), 1);
	assert_string_equal(rows[0].f[1], "1024");
	run_free(&r);
	r = run_prog("OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=1", "all_reduce_perf", "-g 2 -b 1K -e 1K");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "");
	run_free(&r);
	expect("SLURM_NTASKS=0", "all_reduce_perf", "-g 2 -b 1K -e 1K", 2, false,
	       "SLURM_NTASKS='0' in the environment");
	expect("SLURM_NTASKS=2 SLURM_PROCID=2", "all_reduce_perf", "-g 2 -b 1K -e 1K", 2, false,
	       "SLURM_PROCID='2' in the environment: expected a whole number from 0 to 1");
	r = run_prog("CCLAB_JOBS=1", "all_reduce_perf", "-b 1K -e 3M -g 2 -c 0");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, " step: 1048576(bytes) "));
	assert_int_equal(rows_of(r.out, rows, 8), 3);
	assert_string_equal(rows[1].f[1], "1049600");
	assert_string_equal(rows[2].f[1], "2098176");
	run_free(&r);
	/* `cclab all_reduce_perf` is the same program */
	r = run_cclab("all_reduce_perf -b 1K -e 1K -g 2 -c 0");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "# Collective test starting: all_reduce_perf\n"));
	run_free(&r);
}

/* Where the GPUs sit: one process's -g GPUs share its host, and so do the
 * processes the launcher puts on one node; cclab's own --ranks-per-node
 * or --topology win. */
static void node_layout(void **state)
{
	(void)state;
	need();
	expect("", "all_reduce_perf", "-b 1K -e 1K -g 8", 0, true,
	       "# cclab: 1 node of 8 GPUs joined by NVLink (a process's -t x -g GPUs share its "
	       "host; 1 process per node, the launcher saying none), topology node;");
	expect("OMPI_COMM_WORLD_SIZE=4 OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_LOCAL_SIZE=2",
	       "all_reduce_perf", "-b 1K -e 1K -g 4", 0, true,
	       "# cclab: 2 nodes of 8 GPUs joined by NVLink (a process's -t x -g GPUs share its "
	       "host; 2 processes per node from OMPI_COMM_WORLD_LOCAL_SIZE), topology railopt;");
	expect("OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0", "all_reduce_perf",
	       "-b 1K -e 1K", 0, true, "# cclab: each rank a host of its own on the fabric;");
	expect("", "all_reduce_perf", "-b 1K -e 1K -g 4 --topology star", 0, true,
	       "# cclab: each rank a host of its own on the fabric;");
	expect("OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_LOCAL_SIZE=3",
	       "all_reduce_perf", "-b 1K -e 1K", 2, false,
	       "OMPI_COMM_WORLD_LOCAL_SIZE='3' in the environment: expected a whole number from 1 "
	       "to 2");
}

/* Many NCCL_ variables: each header list keeps whole words, then counts
 * the rest ("and N more"), and no line is cut. */
static void env_lists_bounded(void **state)
{
	/* 24 words of 50 bytes: past the list's 512, within run_cclab's
	 * command line */
	char env[1400] = "CCLAB_JOBS=1";
	(void)state;
	need();
	for (int i = 0; i < 24; i++) {
		size_t off = strlen(env);

		snprintf(env + off, sizeof(env) - off, " NCCL_CCLAB_UNKNOWN_%02d=%s", i,
			 "abcdefghijklmnopqrstuvwxyz");
	}
	struct run r = run_prog(env, "all_reduce_perf", "-b 1K -e 1K -g 2");
	const char *l = strstr(r.out, "# cclab: from the environment, not modelled (ignored): ");
	const char *nl = l ? strchr(l, '\n') : NULL;

	assert_int_equal(r.status, 0);
	assert_non_null(l);
	assert_non_null(nl);
	assert_true(nl - l < 600);
	assert_non_null(strstr(l, " more\n"));
	assert_non_null(strstr(l, "NCCL_CCLAB_UNKNOWN_00=abcdefghijklmnopqrstuvwxyz NCCL_CCLAB_"));
	assert_non_null(strstr(r.out, "\n# Using devices\n"));
	run_free(&r);
}

/* `cclab help NAME` for the programs cclab answers to: their own --help. */
static void help_by_name(void **state)
{
	(void)state;
	need();
	struct run a = run_cclab("help all_reduce_perf");
	struct run b = run_cclab("help ib_write_bw");

	assert_int_equal(a.status, 0);
	assert_true(!strncmp(a.out, "USAGE: all_reduce_perf", 22));
	assert_int_equal(b.status, 0);
	assert_true(!strncmp(b.out, "Usage: ib_write_bw [FLAGS] [HOST]", 33));
	run_free(&a);
	run_free(&b);
}

/* NCCL_TESTS_MIN_BW, nccl-tests' pass mark: the verdict after the average
 * and exit 1 below 90 % of it. */
static void min_bw_pass_mark(void **state)
{
	(void)state;
	need();
	/* 1 KiB in the launch floor of -g 2, 1.6 + 2 x 3.96 = 9.52 us */
	expect("NCCL_TESTS_MIN_BW=1000", "all_reduce_perf", "-b 1K -e 1K -g 2", 1, true,
	       "\n# Avg bus bandwidth    : 0.107563 FAILED\n");
	expect("NCCL_TESTS_MIN_BW=0.107", "all_reduce_perf", "-b 1K -e 1K -g 2", 0, true,
	       "\n# Avg bus bandwidth    : 0.107563 OK\n");
	expect("NCCL_TESTS_MIN_BW=fast", "all_reduce_perf", "-b 1K -e 1K -g 2", 2, false,
	       "NCCL_TESTS_MIN_BW='fast'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(header_columns_and_figures),
		cmocka_unit_test(json_layout),
		cmocka_unit_test(env_nccl_algo),
		cmocka_unit_test(refused_flags),
		cmocka_unit_test(every_type_op_root),
		cmocka_unit_test(average_modes),
		cmocka_unit_test(launcher_repeats_and_steps),
		cmocka_unit_test(node_layout),
		cmocka_unit_test(help_by_name),
		cmocka_unit_test(env_lists_bounded),
		cmocka_unit_test(min_bw_pass_mark),
	};

	return cmocka_run_group_tests_name("nccl_tests_mode", tests, setup, teardown);
}
