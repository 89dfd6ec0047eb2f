/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_sweep.c — `cclab sweep` (cli/sweep.h) as a user runs it: a
 * grid's points merged in grid order and byte-identical whatever ran them
 * (-j 1, -j 2, the tasks of mpirun, and of a Slurm job array joined by
 * --merge or of an srun step: a real Open MPI and a real Slurm, started
 * here by scripts/slurm-local.sh, when installed); a rerun that
 * runs only the points without a result; a failed point reported and the
 * sweep going on; bad grids, and folders of another sweep, refused.
 *
 * The binary's path comes from $CCLAB (tests/run.sh sets it). */
#include <setjmp.h>
#include <stdbool.h>
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

#define SCENARIO "scenarios/demo.yaml"
#define GRID "--set sizes.max=64K --grid algorithm=ring,tree --grid transport=write_imm,send_recv"

static int setup(void **state)
{
	(void)state;
	return run_cclab_begin("sweep");
}

static bool slurm_started; /* scripts/slurm-local.sh, stopped at teardown */

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	if (slurm_started) {
		snprintf(cmd, sizeof(cmd), "bash scripts/slurm-local.sh stop '%s/slurm'", tmpdir);
		if (system(cmd))
			print_message("scripts/slurm-local.sh stop failed\n");
	}
	return run_cclab_end();
}

/* tmpdir/name/file's text ("" if none); the caller frees. */
static char *file_in(const char *name, const char *file)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s/%s", tmpdir, name, file);
	return text_of(path);
}

/* `cclab sweep SCENARIO GRID --out tmpdir/name extra`, asserting its exit. */
static void sweep_into(const char *name, const char *extra, int want)
{
	struct run r = run_cclab("sweep " SCENARIO " " GRID " --out '%s/%s' %s", tmpdir, name,
				 extra);

	if (r.status != want)
		fail_msg("sweep %s %s: exit %d, want %d\n%s%s", name, extra, r.status, want, r.out,
			 r.err);
	run_free(&r);
}

/* The merged files of folder name are those of folder ref. */
static void same_merged(const char *name, const char *ref)
{
	char *a = file_in(name, "sweep.csv"), *b = file_in(ref, "sweep.csv");

	assert_true(strlen(a) > 0);
	assert_string_equal(a, b);
	free(a);
	free(b);
	a = file_in(name, "sweep.json");
	b = file_in(ref, "sweep.json");
	assert_true(strlen(a) > 0);
	assert_string_equal(a, b);
	free(a);
	free(b);
}

/* Four points, one size row each of 1 KiB to 64 KiB (four sizes), in grid
 * order (the last key fastest); -j 2 writes the same bytes. */
static void test_grid_merged(void **state)
{
	(void)state;
	need_cclab_binary();
	sweep_into("j1", "-j 1", 0);
	sweep_into("j2", "-j 2", 0);
	same_merged("j2", "j1");
	char *csv = file_in("j1", "sweep.csv"), *json = file_in("j1", "sweep.json");

	assert_true(!strncmp(csv, "point,grid.algorithm,grid.transport,exit,error,scenario,"
			      "executor,", 65));
	assert_int_equal(count_substr(csv, "\n"), 1 + 4 * 4);
	assert_non_null(strstr(csv, "\n0,ring,write_imm,0,,demo,sim,"));
	assert_non_null(strstr(csv, "\n1,ring,send_recv,0,,demo,sim,"));
	assert_non_null(strstr(csv, "\n3,tree,send_recv,0,,demo,sim,"));
	assert_true(strstr(csv, "\n1,ring,send_recv") < strstr(csv, "\n2,tree,write_imm"));
	assert_true(!strncmp(json, "{\n  \"cclab_version\": \"0.1.0\",\n  \"command\": \"sweep\",\n"
			      "  \"schema_version\": 2,\n", 73));
	assert_non_null(strstr(json, "\"values\": [\"ring\", \"tree\"]"));
	assert_int_equal(count_substr(json, "\"exit\": 0,"), 4);
	/* each point's own report, whole, re-indented in place */
	assert_int_equal(count_substr(json, "      \"report\": {\n        \"cclab_version\""), 4);
	assert_non_null(strstr(json, "\"ok\": true\n}\n"));
	free(csv);
	free(json);
}

/* A rerun runs the points without a status only, and merges the same. */
static void test_resume(void **state)
{
	char path[256];

	(void)state;
	need_cclab_binary();
	sweep_into("re", "-j 2", 0);
	snprintf(path, sizeof(path), "%s/re/points/000000.out", tmpdir);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs("kept\n", f); /* not run again: this stays */
	fclose(f);
	snprintf(path, sizeof(path), "%s/re/points/000002.status", tmpdir);
	assert_int_equal(unlink(path), 0);
	sweep_into("re", "", 0);
	char *kept = file_in("re", "points/000000.out"), *again = file_in("re", "points/000002.out");

	assert_string_equal(kept, "kept\n");
	assert_non_null(strstr(again, "# cclab"));
	free(kept);
	free(again);
	same_merged("re", "j1");
}

/* A point that fails is a row with its error; the others run; exit 1. */
static void test_failed_point(void **state)
{
	(void)state;
	need_cclab_binary();
	struct run r = run_cclab("sweep " SCENARIO " --set sizes.max=4K --grid "
				 "fabric.link.loss_ppb=0,1000000000 --out '%s/fail'", tmpdir);

	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "cclab sweep: point 1 (fabric.link.loss_ppb=1000000000) "
				      "failed: cclab run: 1024 bytes: completion_error:"));
	run_free(&r);
	char *csv = file_in("fail", "sweep.csv"), *json = file_in("fail", "sweep.json");

	assert_non_null(strstr(csv, "\n0,0,0,,demo,"));
	assert_non_null(strstr(csv, "\n1,1000000000,1,cclab run: 1024 bytes: completion_error"));
	assert_non_null(strstr(json, "\"exit\": 1,"));
	assert_non_null(strstr(json, "\"ok\": false\n}\n"));
	free(csv);
	free(json);
}

/* The tasks of a launcher share the points: mpirun's ranks (from their
 * variables: two processes at once, rank 0 merging) and a Slurm array's
 * tasks joined by --merge give -j 1's bytes; a missing share is named. */
static void test_shares(void **state)
{
	(void)state;
	need_cclab_binary();
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 '%s' sweep "
		 SCENARIO " " GRID " --out '%s/mpi' >/dev/null 2>&1 & "
		 "OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 '%s' sweep " SCENARIO " " GRID
		 " --out '%s/mpi' >/dev/null 2>&1; rc=$?; wait; exit $rc", cclab, tmpdir, cclab,
		 tmpdir);
	assert_int_equal(system(cmd), 0);
	same_merged("mpi", "j1");
	for (int t = 1; t <= 2; t++) {
		char env[128];

		snprintf(env, sizeof(env), "SLURM_ARRAY_TASK_ID=%d SLURM_ARRAY_TASK_MIN=1 "
			 "SLURM_ARRAY_TASK_COUNT=2", t);
		struct run r = run_cclab_env(env, "sweep " SCENARIO " " GRID " --out '%s/array'",
					     tmpdir);

		assert_int_equal(r.status, 0);
		assert_non_null(strstr(r.err, "'cclab sweep --merge "));
		if (t == 1) { /* one share: --merge names what is missing */
			run_free(&r);
			r = run_cclab("sweep --merge '%s/array'", tmpdir);
			assert_int_equal(r.status, 1);
			assert_non_null(strstr(r.err, "2 of 4 points have no result yet (the "
						      "first: point 1, algorithm=ring, "
						      "transport=send_recv)"));
		}
		run_free(&r);
	}
	struct run r = run_cclab("sweep --merge '%s/array'", tmpdir);

	assert_int_equal(r.status, 0);
	run_free(&r);
	same_merged("array", "j1");
	/* a batch script's SLURM_PROCID (no step) is no task: all points here */
	r = run_cclab_env("SLURM_PROCID=0 SLURM_NTASKS=2", "sweep " SCENARIO " " GRID " --out "
			  "'%s/batch'", tmpdir);
	assert_int_equal(r.status, 0);
	run_free(&r);
	same_merged("batch", "j1");
	/* an index no MIN-MAX:STEP range gives */
	r = run_cclab_env("SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_STEP=2 "
			  "SLURM_ARRAY_TASK_COUNT=3", "sweep " SCENARIO " " GRID " --out "
			  "'%s/stepped'", tmpdir);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "SLURM_ARRAY_TASK_ID 1 is not one of 3 tasks from 0 by 2"));
	run_free(&r);
}

/* A real mpirun (Open MPI, oversubscribed on this machine's cores). */
static void test_real_mpirun(void **state)
{
	char cmd[1024];

	(void)state;
	need_cclab_binary();
	if (system("command -v mpirun >/dev/null 2>&1")) {
		print_message("SKIP: no mpirun on this machine (scripts/install-deps.sh installs "
			      "Open MPI)\n");
		skip();
	}
	snprintf(cmd, sizeof(cmd), "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
		 "mpirun --oversubscribe -np 2 '%s' sweep " SCENARIO " " GRID
		 " --out '%s/real-mpi' >'%s/mpirun.log' 2>&1", cclab, tmpdir, tmpdir);
	if (system(cmd)) {
		char log[256];
		char *text;

		snprintf(log, sizeof(log), "%s/mpirun.log", tmpdir);
		text = text_of(log);
		fail_msg("mpirun -np 2 cclab sweep failed:\n%s", text);
	}
	same_merged("real-mpi", "j1");
}

/* A real single-node Slurm (scripts/slurm-local.sh): the sweep as a job
 * array of three tasks joined by --merge, and as one srun step of two
 * tasks whose rank 0 merges; both give -j 1's bytes. */
static void test_real_slurm(void **state)
{
	char cmd[2048], log[256];
	int rc;

	(void)state;
	need_cclab_binary();
	snprintf(log, sizeof(log), "%s/slurm.log", tmpdir);
	snprintf(cmd, sizeof(cmd), "bash scripts/slurm-local.sh start '%s/slurm' >'%s' 2>&1",
		 tmpdir, log);
	if (system(cmd)) {
		char *why = text_of(log);

		print_message("SKIP: no Slurm here: %s", why);
		free(why);
		skip();
	}
	slurm_started = true;
	/* sbatch --array, waited for with squeue; then --merge */
	snprintf(cmd, sizeof(cmd),
		 "export SLURM_CONF='%s/slurm/slurm.conf'; "
		 "j=$(sbatch --parsable --array=0-2 -o '%s/array-%%a.log' --wrap \"'%s' sweep "
		 SCENARIO " " GRID " --out '%s/sbatch'\") || exit 1; "
		 "for i in $(seq 1 1500); do [ -z \"$(squeue -h -j $j 2>/dev/null)\" ] && "
		 "exit 0; sleep 0.2; done; exit 1", tmpdir, tmpdir, cclab, tmpdir);
	rc = system(cmd);
	assert_int_equal(rc, 0);
	struct run r = run_cclab("sweep --merge '%s/sbatch'", tmpdir);

	if (r.status)
		fail_msg("--merge after sbatch --array: exit %d\n%s", r.status, r.err);
	run_free(&r);
	same_merged("sbatch", "j1");
	/* one srun step of two tasks */
	snprintf(cmd, sizeof(cmd), "SLURM_CONF='%s/slurm/slurm.conf' timeout 300 srun -t 5 -n 2 "
		 "'%s' sweep "
		 SCENARIO " " GRID " --out '%s/srun' >'%s' 2>&1", tmpdir, cclab, tmpdir, log);
	if (system(cmd)) {
		char *text = text_of(log);

		fail_msg("srun -n 2 cclab sweep failed:\n%s", text);
	}
	same_merged("srun", "j1");
}

/* Bad grids are usage errors before anything runs; so is a folder that
 * holds another sweep, or another version of the scenario. */
static void test_bad_input(void **state)
{
	static const struct {
		const char *args, *msg;
	} bad[] = {
		{ "--grid nosuch=1,2", "--grid nosuch, value '1': --set nosuch=1:1:1: unknown key "
				       "'nosuch' in the scenario" },
		{ "--grid algorithm=ring,bogus", "--grid algorithm, value 'bogus':" },
		{ "--grid algorithm=ring,,tree", "an empty value" },
		{ "--grid algorithm=", "no values after '='" },
		{ "--grid algorithm=ring,ring", "value 'ring' is listed twice" },
		{ "--grid =ring", "expected KEY=V1,V2" },
		{ "--grid algorithm=ring --grid algorithm=tree", "key 'algorithm' has a --grid" },
		{ "", "expected at least one --grid" },
		{ "--grid algorithm=ring -j 0", "invalid value '0' for --jobs" },
	};

	(void)state;
	need_cclab_binary();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct run r = run_cclab("sweep " SCENARIO " %s --out '%s/bad'", bad[i].args, tmpdir);

		if (r.status != 2 || !strstr(r.err, bad[i].msg))
			fail_msg("%s: exit %d, stderr '%s'; want 2 and '%s'", bad[i].args, r.status,
				 r.err, bad[i].msg);
		run_free(&r);
	}
	struct run r = run_cclab("sweep --merge '%s/j1' " SCENARIO, tmpdir);

	assert_int_equal(r.status, 2);
	run_free(&r);
	/* the merged files on one path */
	r = run_cclab("sweep --merge '%s/j1' --csv '%s/j1/sweep.json'", tmpdir, tmpdir);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "would be the same file"));
	run_free(&r);
	/* more --set than a point's run takes */
	char many[64 * 20] = "";

	for (int i = 0; i < 64; i++)
		strcat(many, "--set seed=1 ");
	r = run_cclab("sweep " SCENARIO " %s --grid algorithm=ring --out '%s/bad'", many, tmpdir);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "a point takes at most 64 --set in all"));
	run_free(&r);
	/* a folder that is not a sweep's */
	char other[256];

	snprintf(other, sizeof(other), "%s/other", tmpdir);
	assert_int_equal(mkdir(other, 0777), 0);
	snprintf(other, sizeof(other), "%s/other/notes.txt", tmpdir);
	FILE *nf = fopen(other, "w");

	assert_non_null(nf);
	fclose(nf);
	r = run_cclab("sweep " SCENARIO " --grid algorithm=ring --out '%s/other'", tmpdir);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "is not empty and holds no sweep"));
	run_free(&r);
	/* nothing was made for the refused ones */
	char bad_dir[256];

	snprintf(bad_dir, sizeof(bad_dir), "%s/bad", tmpdir);
	assert_int_not_equal(access(bad_dir, F_OK), 0);
	/* j1 is the 2 x 2 sweep's: another grid is refused, naming the line */
	r = run_cclab("sweep " SCENARIO " --set sizes.max=64K --grid algorithm=ring,tree --out "
		      "'%s/j1'", tmpdir);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "holds another sweep's results: its sweep.txt has 'grid: "
				      "transport=write_imm,send_recv' where this sweep has "
				      "'nothing'"));
	run_free(&r);
	/* another version of the scenario: its first changed line named */
	char here[200], yaml[256];

	assert_non_null(getcwd(here, sizeof(here)));
	snprintf(yaml, sizeof(yaml), "%s/s.yaml", tmpdir);
	for (int seed = 1; seed <= 2; seed++) {
		FILE *f = fopen(yaml, "w");

		assert_non_null(f);
		fprintf(f, "name: s\ntopology: %s/topologies/star-8.yaml\nfabric: {preset: "
			"roce-100g}\ncollective: allreduce\nsizes: {min: 1KiB, max: 4KiB}\n"
			"seed: %d\n", here, seed);
		fclose(f);
		r = run_cclab("sweep '%s' --grid algorithm=ring,tree --out '%s/seeded'", yaml,
			      tmpdir);
		assert_int_equal(r.status, seed == 1 ? 0 : 2);
		if (seed == 2)
			assert_non_null(strstr(r.err, "holds the results of another version of "));
		if (seed == 2)
			assert_non_null(strstr(r.err, "its scenario.yaml differs at line 6 ('seed: "
						      "1' there, 'seed: 2' now)"));
		run_free(&r);
	}
}

/* --grid-file: points listed one by one, run and merged in the file's
 * order, each the same keys; a changed file refused on a rerun. */
static void test_grid_file(void **state)
{
	char path[256];
	FILE *f;

	(void)state;
	need_cclab_binary();
	snprintf(path, sizeof(path), "%s/g.yaml", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("- {algorithm: tree, transport: send_recv}\n"
	      "- {transport: write_imm, algorithm: ring}\n", f);
	fclose(f);
	struct run r = run_cclab("sweep " SCENARIO " --set sizes.max=64K --grid-file '%s' --out "
				 "'%s/gf' -j 2", path, tmpdir);

	assert_int_equal(r.status, 0);
	run_free(&r);
	char *csv = file_in("gf", "sweep.csv"), *ref = file_in("j1", "sweep.csv");

	/* point 0 is the grid's point 3, point 1 its point 0: the same rows */
	assert_int_equal(count_substr(csv, "\n"), 1 + 2 * 4);
	assert_non_null(strstr(csv, "\n0,tree,send_recv,0,,demo,sim,"));
	assert_non_null(strstr(csv, "\n1,ring,write_imm,0,,demo,sim,"));
	const char *a = strstr(csv, "\n1,ring,write_imm,") + 3, *b = strstr(ref, "\n0,ring,write_imm,") + 3;

	assert_int_equal(strncmp(a, b, (size_t)(strchr(a, '\n') - a)), 0);
	free(csv);
	free(ref);
	r = run_cclab("sweep --merge '%s/gf' --csv '%s/gf.csv'", tmpdir, tmpdir);
	assert_int_equal(r.status, 0);
	run_free(&r);
	f = fopen(path, "a");
	assert_non_null(f);
	fputs("- {algorithm: ring, transport: send_recv}\n", f);
	fclose(f);
	r = run_cclab("sweep " SCENARIO " --set sizes.max=64K --grid-file '%s' --out '%s/gf'", path,
		      tmpdir);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "its grid.yaml differs at line 3"));
	run_free(&r);
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "- {algorithm: tree}\n- {algorithm: tree}\n", ":2:3: point 1 repeats point 0" },
		{ "- {algorithm: tree}\n- {channels: 2}\n", ":2:3: point 1 has no 'algorithm'" },
		{ "algorithm: tree\n", ":1:1: a grid file is a list of points" },
		{ "[]\n", "this is an empty list" },
		{ "- {algorithm: [ring]}\n", "'algorithm': expected a value of one line" },
		{ "- {nosuch: 1}\n", "unknown key 'nosuch'" },
	};

	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(bad[k].text, f);
		fclose(f);
		r = run_cclab("sweep " SCENARIO " --grid-file '%s' --out '%s/gbad'", path, tmpdir);
		if (r.status != 2 || !strstr(r.err, bad[k].msg))
			fail_msg("%s: exit %d, %s; want 2 and '%s'", bad[k].text, r.status, r.err,
				 bad[k].msg);
		run_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grid_merged),
		cmocka_unit_test(test_resume),
		cmocka_unit_test(test_failed_point),
		cmocka_unit_test(test_shares),
		cmocka_unit_test(test_grid_file),
		cmocka_unit_test(test_real_mpirun),
		cmocka_unit_test(test_real_slurm),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
