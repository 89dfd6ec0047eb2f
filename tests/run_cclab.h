/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/run_cclab.h — runs the cclab binary as a user would, for the
 * tests that check its exit codes, messages and files (test_cli.c,
 * test_scenarios.c).  The binary's path comes from $CCLAB (tests/run.sh
 * sets it); stdout and stderr go to files of the test's private temporary
 * directory, `tmpdir`, which run_cclab_begin() creates and run_cclab_end()
 * removes with all in it.  Include after <cmocka.h>
 * and tests/files.h. */
#ifndef CCLAB_TESTS_RUN_CCLAB_H
#define CCLAB_TESTS_RUN_CCLAB_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *cclab;
static char tmpdir[64];

/* Built with AddressSanitizer (`make asan` builds the tests and the binary
 * alike): its shadow memory is terabytes of address space, so nothing of
 * it runs under `ulimit -v`, and its allocator aborts where malloc would
 * return NULL.  The tests of memory limits skip there. */
#if defined(__SANITIZE_ADDRESS__)
#define RUN_CCLAB_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RUN_CCLAB_ASAN 1
#endif
#endif
#ifndef RUN_CCLAB_ASAN
#define RUN_CCLAB_ASAN 0
#endif

/* Skips a test that runs cclab under `ulimit -v` when built with ASan. */
static inline void need_no_asan(void)
{
	if (RUN_CCLAB_ASAN) {
		print_message("SKIP: built with AddressSanitizer, which cannot run under "
			      "ulimit -v\n");
		skip();
	}
}

struct run {
	int status; /* exit status, or -1 if it did not exit normally */
	char *out, *err;
};

/* A cmocka group's setup: $CCLAB, and a fresh private tmpdir
 * /tmp/cclab-test-NAME.XXXXXX.  0, or -1 if it cannot be made. */
static inline int run_cclab_begin(const char *name)
{
	cclab = getenv("CCLAB");
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/cclab-test-%s.XXXXXX", name);
	return mkdtemp(tmpdir) ? 0 : -1;
}

/* The group's teardown: tmpdir and everything the tests left in it. */
static inline int run_cclab_end(void)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Skips the test (cmocka prints SKIPPED) when $CCLAB does not name the binary. */
static inline void need_cclab(void)
{
	if (!cclab)
		skip();
}

/* Skips the test, saying why, when $CCLAB is not set; fails when it does
 * not name a program that runs. */
static inline void need_cclab_binary(void)
{
	if (!cclab || !*cclab) {
		print_message("CCLAB is not set (tests/run.sh sets it); skipping\n");
		skip();
	}
	assert_int_equal(access(cclab, X_OK), 0);
}

/* A file's whole text; "" when it cannot be read. */
static inline char *text_of(const char *path)
{
	char *s = slurp(path, NULL);

	return s ? s : strdup("");
}

/* File `name` of tmpdir: open for writing, or its whole text. */
static inline FILE *create_in_tmpdir(const char *name)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	return f;
}

static inline char *text_of_in_tmpdir(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return text_of(path);
}

/* Runs "ENV $CCLAB args" (args are passed through sh; env: assignments
 * such as "CCLAB_SIM_TIES=lifo", or ""). */
static inline struct run run_cclab_va(const char *env, const char *fmt, va_list ap)
{
	char args[1024], cmd[2048], out[128], err[128];
	struct run r;
	int st;

	vsnprintf(args, sizeof(args), fmt, ap);
	snprintf(out, sizeof(out), "%s/stdout", tmpdir);
	snprintf(err, sizeof(err), "%s/stderr", tmpdir);
	snprintf(cmd, sizeof(cmd), "%s '%s' %s >'%s' 2>'%s' </dev/null", env, cclab, args, out,
		 err);
	st = system(cmd);
	assert_true(st != -1);
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	r.out = text_of(out);
	r.err = text_of(err);
	return r;
}

__attribute__((format(printf, 1, 2)))
static inline struct run run_cclab(const char *fmt, ...)
{
	va_list ap;
	struct run r;

	va_start(ap, fmt);
	r = run_cclab_va("", fmt, ap);
	va_end(ap);
	return r;
}

__attribute__((format(printf, 2, 3)))
static inline struct run run_cclab_env(const char *env, const char *fmt, ...)
{
	va_list ap;
	struct run r;

	va_start(ap, fmt);
	r = run_cclab_va(env, fmt, ap);
	va_end(ap);
	return r;
}

/* cclab under other programs' names (all_reduce_perf, ib_write_bw, ...),
 * as an install links them: a symlink to $CCLAB in tmpdir for each of the
 * n names; 0, or -1 when one cannot be made.  Nothing without $CCLAB. */
static inline int run_cclab_links(const char *const *names, size_t n)
{
	char link[160];
	/* the link's target is read from tmpdir: $CCLAB as an absolute path
	 * (make test-run gives a relative one) */
	char *target;

	if (!cclab || !*cclab)
		return 0;
	if (!(target = realpath(cclab, NULL)))
		return -1;
	for (size_t i = 0; i < n; i++) {
		snprintf(link, sizeof(link), "%s/%s", tmpdir, names[i]);
		if (symlink(target, link)) {
			free(target);
			return -1;
		}
	}
	free(target);
	return 0;
}

/* Runs "ENV TMPDIR/PROG ARGS", a link of run_cclab_links(), as
 * run_cclab_va() runs $CCLAB. */
static inline struct run run_link_va(const char *env, const char *prog, const char *fmt,
				     va_list ap)
{
	const char *saved = cclab;
	char path[160];
	struct run r;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, prog);
	cclab = path;
	r = run_cclab_va(env, fmt, ap);
	cclab = saved;
	return r;
}

static inline void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

static inline int count_lines_starting(const char *text, const char *prefix)
{
	int n = 0;
	size_t plen = strlen(prefix);

	for (const char *p = text; *p;) {
		if (!strncmp(p, prefix, plen))
			n++;
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	return n;
}

static inline int count_substr(const char *text, const char *s)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, s)); p += strlen(s))
		n++;
	return n;
}

/* Rows of nccl-tests' table in a command's output: the lines that are
 * neither comments ('#') nor empty. */
static inline int count_rows(const char *text)
{
	return count_lines_starting(text, "") - count_lines_starting(text, "#") -
	       count_lines_starting(text, "\n");
}

/* The `# Avg bus bandwidth` of a table in a command's output. */
static inline double avg_busbw(const char *table)
{
	const char *p = strstr(table, "# Avg bus bandwidth    : ");

	assert_non_null(p);
	return strtod(p + strlen("# Avg bus bandwidth    : "), NULL);
}

/* A table's rows: from its units line on (the header names files, which
 * differ between runs). */
static inline const char *table_rows(const char *table)
{
	const char *p = strstr(table, "(B)");

	assert_non_null(p);
	return p;
}

/* `cclab run` of tmpdir's scenario `name`, which must pass: its stdout. */
static inline char *run_table(const char *name)
{
	struct run r = run_cclab("run '%s/%s'", tmpdir, name);
	char *out;

	if (r.status != 0)
		print_message("%s\n", r.err);
	assert_int_equal(r.status, 0);
	out = r.out;
	free(r.err);
	return out;
}

#endif /* CCLAB_TESTS_RUN_CCLAB_H */
