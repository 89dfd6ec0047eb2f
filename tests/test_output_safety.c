/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_output_safety.c — what a result file may and may not replace
 * (util/atomic_file.h, util/files.h), and the inputs a run
 * refuses to read (issue 23, docs/reliability.md "Outputs and inputs"):
 *   - a character device and a FIFO are written where they stand, never
 *     replaced by a regular file; a FIFO nobody reads is refused at once;
 *   - a block device and a socket are refused;
 *   - a symbolic link is followed: its target replaced, the link kept;
 *   - /proc/self/fd/N (what /dev/stdout leads to) writes into the open
 *     file, sharing its offset;
 *   - an output that is one of the run's inputs (through hard and symbolic
 *     links) is refused, exit 2, the input untouched;
 *   - an input that is a FIFO, a device or a folder is refused without
 *     blocking;
 *   - CSV text fields are quoted as RFC 4180 says.
 * The device cases need root (mknod); without it they print SKIP and why.
 * The command-line cases run the cclab binary ($CCLAB). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/results.h"
#include "tests/files.h"
#include "tests/run_cclab.h"
#include "tests/clock.h"
#include "util/atomic_file.h"
#include "util/files.h"

/* A path in the group's tmpdir (run_cclab.h), in one of four buffers so a
 * call can hold several. */
static const char *at(const char *name)
{
	static char buf[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", tmpdir, name);
	return buf[i];
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static mode_t type_of(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	return st.st_mode & S_IFMT;
}

/* Device nodes need CAP_MKNOD: CI runs as root; elsewhere, SKIP. */
static bool need_root(const char *what)
{
	if (geteuid() == 0)
		return true;
	printf("SKIP %s: mknod of a device node needs root (CI runs as root)\n", what);
	return false;
}

static void write_all(const char *path, const char *text, int want)
{
	assert_int_equal(cc_write_file_atomic(path, text, strlen(text)), want);
}

/* ---- the library: what each kind of target gets ---- */

static void test_regular_and_new(void **state)
{
	(void)state;
	write_all(at("new.json"), "one\n", 0);
	file_is(at("new.json"), "one\n");
	write_all(at("new.json"), "two\n", 0);
	file_is(at("new.json"), "two\n");
	assert_int_equal(type_of(at("new.json")), S_IFREG);
	unlink(at("new.json"));
}

/* A link is followed: the file it names is replaced; the link stays a
 * link, and a dangling one gets its target created. */
static void test_symlink_followed(void **state)
{
	(void)state;
	put(at("target.json"), "old\n");
	assert_int_equal(symlink("target.json", at("link.json")), 0);
	write_all(at("link.json"), "new\n", 0);
	assert_int_equal(type_of(at("link.json")), S_IFLNK);
	file_is(at("target.json"), "new\n");
	/* two hops, the second absolute */
	assert_int_equal(symlink(at("link.json"), at("link2.json")), 0);
	write_all(at("link2.json"), "newer\n", 0);
	assert_int_equal(type_of(at("link2.json")), S_IFLNK);
	file_is(at("target.json"), "newer\n");
	/* dangling */
	assert_int_equal(symlink("later.json", at("dangling.json")), 0);
	write_all(at("dangling.json"), "made\n", 0);
	assert_int_equal(type_of(at("dangling.json")), S_IFLNK);
	file_is(at("later.json"), "made\n");
	/* a loop is an error, not a hang */
	assert_int_equal(symlink("loop-b", at("loop-a")), 0);
	assert_int_equal(symlink("loop-a", at("loop-b")), 0);
	write_all(at("loop-a"), "x", -ELOOP);
	assert_int_equal(type_of(at("loop-a")), S_IFLNK);
	const char *const rm[] = {"link.json", "link2.json", "target.json", "dangling.json",
				  "later.json", "loop-a", "loop-b"};

	for (size_t i = 0; i < sizeof(rm) / sizeof(rm[0]); i++)
		unlink(at(rm[i]));
}

/* A FIFO with a reader gets the bytes and stays a FIFO; without one, the
 * open fails at once (never waits for a reader to come). */
static void test_fifo(void **state)
{
	char got[64] = "";
	int fd, n;

	(void)state;
	assert_int_equal(mkfifo(at("f.json"), 0600), 0);
	fd = open(at("f.json"), O_RDONLY | O_NONBLOCK);
	assert_true(fd >= 0);
	write_all(at("f.json"), "through\n", 0);
	n = (int)read(fd, got, sizeof(got) - 1);
	assert_int_equal(n, 8);
	assert_string_equal(got, "through\n");
	close(fd);
	assert_int_equal(type_of(at("f.json")), S_IFIFO);

	double t0 = monotonic_s();
	write_all(at("f.json"), "nobody\n", -CC_ENOREADER);
	assert_true(monotonic_s() - t0 < 2);
	assert_int_equal(type_of(at("f.json")), S_IFIFO);
	assert_int_equal(dir_entries(tmpdir), 1); /* no temporary left beside it */
	unlink(at("f.json"));
}

/* A character device (a copy of /dev/null, 1:3) is written directly and
 * stays a device; one that fails every write (/dev/full, 1:7) is an
 * error, the node untouched. */
static void test_char_device(void **state)
{
	struct stat st;

	(void)state;
	if (!need_root("test_char_device"))
		skip();
	assert_int_equal(mknod(at("null"), S_IFCHR | 0666, makedev(1, 3)), 0);
	assert_int_equal(mknod(at("full"), S_IFCHR | 0666, makedev(1, 7)), 0);
	write_all(at("null"), "gone\n", 0);
	write_all(at("full"), "nowhere\n", -ENOSPC);
	assert_int_equal(stat(at("null"), &st), 0);
	assert_true(S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == 3);
	assert_int_equal(stat(at("full"), &st), 0);
	assert_true(S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == 7);
	assert_int_equal(dir_entries(tmpdir), 2);
	unlink(at("null"));
	unlink(at("full"));
}

/* A block device is refused before it is opened: a result written over a
 * disk would destroy it.  (7:200, a loop device: never opened here.) */
static void test_block_device_refused(void **state)
{
	(void)state;
	if (!need_root("test_block_device_refused"))
		skip();
	assert_int_equal(mknod(at("disk"), S_IFBLK | 0600, makedev(7, 200)), 0);
	write_all(at("disk"), "x", -CC_EUNSAFE);
	assert_int_equal(cc_atomic_check(at("disk")), -CC_EUNSAFE);
	assert_int_equal(type_of(at("disk")), S_IFBLK);
	assert_true(cc_file_refused(-CC_EUNSAFE));
	unlink(at("disk"));
}

static void test_socket_refused(void **state)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM, 0);

	(void)state;
	assert_true(s >= 0);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", at("sock"));
	assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	write_all(at("sock"), "x", -CC_EUNSAFE);
	assert_int_equal(type_of(at("sock")), S_IFSOCK);
	close(s);
	unlink(at("sock"));
}

/* /proc/self/fd/N — where /dev/stdout and /dev/fd/N lead — is the open
 * file itself: written through a duplicate of N, at its offset, so what
 * N wrote before stays (`--csv /dev/stdout > f`), and nothing is created
 * or renamed. */
static void test_own_descriptor(void **state)
{
	char path[64];
	int fd;

	(void)state;
	fd = open(at("stdout.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "table\n", 6), 6);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	write_all(path, "csv\n", 0);
	assert_int_equal(write(fd, "more\n", 5), 5);
	close(fd);
	file_is(at("stdout.txt"), "table\ncsv\nmore\n");
	assert_int_equal(dir_entries(tmpdir), 1);
	unlink(at("stdout.txt"));
}

/* An input opened by cc_input_open() is never an output: by its name,
 * through a hard link and through a symbolic link. */
static void test_input_refused(void **state)
{
	int fd;

	(void)state;
	put(at("in.yaml"), "name: x\n");
	assert_int_equal(link(at("in.yaml"), at("hard.yaml")), 0);
	assert_int_equal(symlink("in.yaml", at("soft.yaml")), 0);
	assert_int_equal(cc_input_open(at("in.yaml"), &fd), 0);
	close(fd);
	write_all(at("in.yaml"), "lost", -CC_EISINPUT);
	write_all(at("hard.yaml"), "lost", -CC_EISINPUT);
	write_all(at("soft.yaml"), "lost", -CC_EISINPUT);
	assert_int_equal(cc_atomic_check(at("soft.yaml")), -CC_EISINPUT);
	assert_true(cc_file_refused(-CC_EISINPUT));
	file_is(at("in.yaml"), "name: x\n");
	assert_int_equal(dir_entries(tmpdir), 3);
	assert_non_null(strstr(cc_file_strerror(-CC_EISINPUT), "input"));
	unlink(at("in.yaml"));
	unlink(at("hard.yaml"));
	unlink(at("soft.yaml"));
}

/* Inputs: a FIFO with no writer (it would block open() and read()
 * forever), a device and a folder are refused at once. */
static void test_input_kinds(void **state)
{
	int fd = -1;

	(void)state;
	assert_int_equal(mkfifo(at("f.yaml"), 0600), 0);
	alarm(5); /* a blocking open would hang the test: fail it instead */
	assert_int_equal(cc_input_open(at("f.yaml"), &fd), -CC_ENOTREG);
	alarm(0);
	assert_int_equal(cc_input_open("/dev/null", &fd), -CC_ENOTREG);
	assert_int_equal(cc_input_open(tmpdir, &fd), -EISDIR);
	assert_int_equal(cc_input_open(at("absent.yaml"), &fd), -ENOENT);
	assert_int_equal(fd, -1);
	unlink(at("f.yaml"));
}

/* The check before a long run creates, opens and changes nothing. */
static void test_check_touches_nothing(void **state)
{
	(void)state;
	assert_int_equal(cc_atomic_check(at("later.json")), 0);
	assert_int_equal(cc_atomic_check("-"), 0);
	assert_int_equal(cc_atomic_check(at("no/such/dir.json")), -ENOENT);
	assert_int_equal(cc_atomic_check(tmpdir), -EISDIR);
	assert_int_equal(mkfifo(at("f"), 0600), 0);
	assert_int_equal(cc_atomic_check(at("f")), 0); /* its reader may come later */
	assert_int_equal(dir_entries(tmpdir), 1);
	unlink(at("f"));
}

static void test_output_same(void **state)
{
	char cwd[512];

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	put(at("a.json"), "");
	assert_int_equal(symlink("a.json", at("l.json")), 0);
	assert_true(cc_output_same(at("a.json"), at("l.json")));
	assert_int_equal(chdir(tmpdir), 0);
	assert_true(cc_output_same("b.json", "./b.json")); /* neither exists */
	assert_true(cc_output_same("a.json", at("a.json")));
	assert_false(cc_output_same("a.json", "b.json"));
	assert_false(cc_output_same("-", "-"));                    /* stdout takes two */
	assert_false(cc_output_same("/dev/null", "/dev/null"));    /* as a device does */
	assert_int_equal(chdir(cwd), 0);
	unlink(at("a.json"));
	unlink(at("l.json"));
}

/* ---- CSV text (RFC 4180 section 2) ---- */

static char *csv_of(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	cc_csv_str(f, s);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_csv_quoting(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"plain", "plain"},
		{"", ""},
		{"a,b", "\"a,b\""},
		{"say \"hi\"", "\"say \"\"hi\"\"\""},
		{"two\nlines", "\"two\nlines\""},
		{"cr\r", "\"cr\r\""},
		{"semi;colon", "semi;colon"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = csv_of(cases[i].in);

		assert_string_equal(got, cases[i].out);
		free(got);
	}
	char *null = csv_of(NULL);

	assert_string_equal(null, "");
	free(null);
}

/* ---- the command line ---- */

static const char scenario[] = "name: s\n"
			       "topology: topo.yaml\n"
			       "fabric: fabric.yaml\n"
			       "collective: allreduce\n"
			       "sizes: 1KiB\n";
static const char topology[] = "name: t\nhosts: [{prefix: h, count: 2, gpus: 1}]\n"
			       "switches: [sw]\n"
			       "links: [{a: h0.gpu0, b: sw}, {a: h1.gpu0, b: sw}]\n";
static const char fabric[] = "preset: ideal\n";

static void make_scenario(void)
{
	put(at("s.yaml"), scenario);
	put(at("topo.yaml"), topology);
	put(at("fabric.yaml"), fabric);
}

/* Each of the run's inputs named as an output: exit 2, the file as it
 * was, no temporary left. */
static void test_cli_output_is_input(void **state)
{
	static const struct {
		const char *opt, *file, *text;
	} cases[] = {
		{"--json", "s.yaml", scenario},
		{"--csv", "s.yaml", scenario},
		{"--links", "topo.yaml", topology},
		{"--trace", "fabric.yaml", fabric},
		{"--json", "hard.yaml", scenario},
		{"--csv", "soft.yaml", scenario},
	};

	(void)state;
	need_cclab();
	make_scenario();
	assert_int_equal(link(at("s.yaml"), at("hard.yaml")), 0);
	assert_int_equal(symlink("s.yaml", at("soft.yaml")), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run r = run_cclab("run '%s' %s '%s'", at("s.yaml"), cases[i].opt,
					 at(cases[i].file));

		assert_int_equal(r.status, 2);
		assert_non_null(strstr(r.err, "one of this run's input files"));
		file_is(at(cases[i].file), cases[i].text);
		run_free(&r);
	}
	/* sim's own --fabric file as its --trace */
	struct run r = run_cclab("sim -n 2 -b 1K --fabric '%s' --trace '%s'", at("fabric.yaml"),
				 at("fabric.yaml"));

	assert_int_equal(r.status, 2);
	file_is(at("fabric.yaml"), fabric);
	run_free(&r);
	assert_int_equal(dir_entries(tmpdir), 7); /* the five files, stdout, stderr */
	const char *const rm[] = {"s.yaml", "topo.yaml", "fabric.yaml", "hard.yaml", "soft.yaml"};

	for (size_t i = 0; i < sizeof(rm) / sizeof(rm[0]); i++)
		unlink(at(rm[i]));
}

/* compare and calibrate: their inputs are outputs of earlier runs. */
static void test_cli_output_is_input_results(void **state)
{
	struct run r;
	char *before;

	(void)state;
	need_cclab();
	r = run_cclab("sim -n 2 -b 1K -e 4K --fabric ideal --json '%s'", at("a.json"));
	assert_int_equal(r.status, 0);
	run_free(&r);
	r = run_cclab("sim -n 2 -b 1K -e 4K --fabric ib-hdr --json '%s'", at("b.json"));
	assert_int_equal(r.status, 0);
	run_free(&r);
	before = slurp(at("b.json"), NULL);
	r = run_cclab("compare '%s' '%s' --csv '%s'", at("a.json"), at("b.json"), at("b.json"));
	assert_int_equal(r.status, 2);
	file_is(at("b.json"), before);
	run_free(&r);
	free(before);

	r = run_cclab("p2p --op write -s 64K --fabric ib-hdr --json '%s'", at("p.json"));
	assert_int_equal(r.status, 0);
	run_free(&r);
	before = slurp(at("p.json"), NULL);
	r = run_cclab("calibrate '%s' -o '%s'", at("p.json"), at("p.json"));
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "one of this run's input files"));
	file_is(at("p.json"), before);
	run_free(&r);
	free(before);
	unlink(at("a.json"));
	unlink(at("b.json"));
	unlink(at("p.json"));
}

/* The cases as a user runs them: a copy of /dev/full (the device
 * stays, exit 1 for the write that failed), a FIFO read by another
 * process (it gets the JSON and stays a FIFO), "-" (stdout). */
static void test_cli_devices_and_fifo(void **state)
{
	struct run r;
	struct stat st;

	(void)state;
	need_cclab();
	if (geteuid() == 0) {
		assert_int_equal(mknod(at("full"), S_IFCHR | 0666, makedev(1, 7)), 0);
		r = run_cclab("sim -n 2 -b 1K --json '%s'", at("full"));
		assert_int_equal(r.status, 1);
		assert_non_null(strstr(r.err, "No space left on device"));
		assert_int_equal(stat(at("full"), &st), 0);
		assert_true(S_ISCHR(st.st_mode));
		run_free(&r);
		unlink(at("full"));
	} else {
		printf("SKIP the /dev/full copy in test_cli_devices_and_fifo: mknod needs root\n");
	}
	/* The reader opens first (without blocking); the report, a few KiB,
	 * fits in the pipe's buffer until it is read. */
	char got[32768];
	ssize_t n, len = 0;
	int fd;

	assert_int_equal(mkfifo(at("fifo"), 0600), 0);
	fd = open(at("fifo"), O_RDONLY | O_NONBLOCK);
	assert_true(fd >= 0);
	r = run_cclab("sim -n 2 -b 1K --json '%s'", at("fifo"));
	assert_int_equal(r.status, 0);
	while ((n = read(fd, got + len, sizeof(got) - 1 - (size_t)len)) > 0)
		len += n;
	got[len] = '\0';
	close(fd);
	assert_non_null(strstr(got, "\"command\": \"sim\""));
	assert_int_equal(got[len - 2], '}');
	assert_int_equal(type_of(at("fifo")), S_IFIFO);
	run_free(&r);
	/* no reader: refused at once, exit 1 */
	r = run_cclab("sim -n 2 -b 1K --json '%s'", at("fifo"));
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "a FIFO that no process is reading"));
	run_free(&r);
	r = run_cclab("sim -n 2 -b 1K --csv -");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "scenario,executor,fabric"));
	run_free(&r);
	unlink(at("fifo"));
}

/* `--csv /dev/stdout > file`: the CSV joins the table in the file;
 * /dev/stdout stays a link (it would be replaced by a regular file). */
static void test_cli_dev_stdout(void **state)
{
	struct run r;
	struct stat st;

	(void)state;
	need_cclab();
	r = run_cclab("sim -n 2 -b 1K --csv /dev/stdout");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "# Avg bus bandwidth"));
	assert_non_null(strstr(r.out, "scenario,executor,fabric"));
	assert_int_equal(lstat("/dev/stdout", &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	run_free(&r);
}

/* Inputs that are not regular files: refused with what they are, exit 2,
 * never a hang (the FIFO has no writer). */
static void test_cli_fifo_inputs(void **state)
{
	struct run r;

	(void)state;
	need_cclab();
	make_scenario();
	assert_int_equal(mkfifo(at("f.yaml"), 0600), 0);
	r = run_cclab("run '%s'", at("f.yaml"));
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "cannot read: a FIFO, not a regular file"));
	run_free(&r);
	r = run_cclab("sim -n 2 -b 1K --fabric '%s'", at("f.yaml"));
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "a FIFO, not a regular file"));
	run_free(&r);
	/* as the scenario's topology */
	put(at("sf.yaml"), "topology: f.yaml\ncollective: allreduce\nsizes: 1KiB\n");
	r = run_cclab("run '%s'", at("sf.yaml"));
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "a FIFO, not a regular file"));
	run_free(&r);
	r = run_cclab("sim -n 2 -b 1K --fabric /dev/null");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "a character device, not a regular file"));
	run_free(&r);
	/* plain text that is not YAML of ours says what it holds */
	put(at("passwd"), "root:x:0:0:root:/root:/bin/bash\n");
	put(at("sp.yaml"), "topology: passwd\ncollective: allreduce\nsizes: 1KiB\n");
	r = run_cclab("run '%s'", at("sp.yaml"));
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "a topology file must hold a YAML mapping of keys; this one "
				      "is plain text ('root:x:0:0:root:/root:/bin/bash'): not a "
				      "topology file?"));
	run_free(&r);
	const char *const rm[] = {"f.yaml", "sf.yaml", "passwd", "sp.yaml", "s.yaml", "topo.yaml",
				  "fabric.yaml"};

	for (size_t i = 0; i < sizeof(rm) / sizeof(rm[0]); i++)
		unlink(at(rm[i]));
}

/* Two outputs naming one file, however spelled, are refused. */
static void test_cli_same_output_twice(void **state)
{
	struct run r;

	(void)state;
	need_cclab();
	r = run_cclab("sim -n 2 -b 1K --json '%s' --csv '%s/./r.json'", at("r.json"), tmpdir);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--json and --csv name the same file"));
	run_free(&r);
	r = run_cclab("sim -n 2 -b 1K --json /dev/null --csv /dev/null"); /* a device takes both */
	assert_int_equal(r.status, 0);
	run_free(&r);
	assert_int_equal(access(at("r.json"), F_OK), -1);
}

/* A scenario name with a comma, a quote and a line break stays one CSV
 * field: every row has the header's column count once read as RFC 4180,
 * and the busbw plot reads it (tests/test_plots.sh draws one). */
static void test_cli_csv_quoted(void **state)
{
	struct run r;
	char *csv;

	(void)state;
	need_cclab();
	make_scenario();
	put(at("q.yaml"), "name: \"a,b \\\"q\\\"\\nz\"\ntopology: topo.yaml\nfabric: fabric.yaml\n"
			  "collective: allreduce\nsizes: {min: 1KiB, max: 4KiB}\n");
	r = run_cclab("run '%s' --csv '%s'", at("q.yaml"), at("q.csv"));
	assert_int_equal(r.status, 0);
	run_free(&r);
	csv = slurp(at("q.csv"), NULL);
	assert_non_null(csv);
	/* three rows (1, 2 and 4 KiB), each starting with the quoted name */
	assert_int_equal(count_substr(csv, "\n\"a,b \"\"q\"\"\nz\",sim,ideal,t,allreduce,"), 3);
	free(csv);
	const char *const rm[] = {"q.yaml", "q.csv", "s.yaml", "topo.yaml", "fabric.yaml"};

	for (size_t i = 0; i < sizeof(rm) / sizeof(rm[0]); i++)
		unlink(at(rm[i]));
}

static int setup(void **state)
{
	(void)state;
	return run_cclab_begin("outputs");
}

static int teardown(void **state)
{
	(void)state;
	return run_cclab_end();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regular_and_new),
		cmocka_unit_test(test_symlink_followed),
		cmocka_unit_test(test_fifo),
		cmocka_unit_test(test_char_device),
		cmocka_unit_test(test_block_device_refused),
		cmocka_unit_test(test_socket_refused),
		cmocka_unit_test(test_own_descriptor),
		cmocka_unit_test(test_input_refused),
		cmocka_unit_test(test_input_kinds),
		cmocka_unit_test(test_check_touches_nothing),
		cmocka_unit_test(test_output_same),
		cmocka_unit_test(test_csv_quoting),
		cmocka_unit_test(test_cli_output_is_input),
		cmocka_unit_test(test_cli_output_is_input_results),
		cmocka_unit_test(test_cli_devices_and_fifo),
		cmocka_unit_test(test_cli_dev_stdout),
		cmocka_unit_test(test_cli_fifo_inputs),
		cmocka_unit_test(test_cli_same_output_twice),
		cmocka_unit_test(test_cli_csv_quoted),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests_name("output safety", tests, setup, teardown);
}
