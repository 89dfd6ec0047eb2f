/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/sweep_run.c — a sweep's points run, each as its own `cclab run
 * SCENARIO --set ...` process (this program again, /proc/self/exe), up to
 * -j at once, and the share of them that is this process's under a
 * launcher.
 *
 * A process per point: a point is exactly what `cclab run` with those
 * --set values gives (its table, files and exit status), whatever else
 * runs, and one that crashes or runs out of memory fails alone.  Its CSV
 * and JSON are written atomically by the run itself; its status file,
 * written atomically after it exits, is what marks it done: a sweep
 * stopped anywhere (Ctrl-C, a job's time limit) resumes with the points
 * that have none. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/sweep.h"
#include "util/atomic_file.h"

char *sweep_point_path(const char *dir, uint64_t point, const char *ext)
{
	char *p = NULL;

	if (asprintf(&p, "%s/points/%06llu.%s", dir, (unsigned long long)point, ext) < 0)
		return NULL;
	return p;
}

struct child {
	pid_t pid;
	uint64_t point;
	int lock;        /* its lock file, held while it runs */
};

/* This program's path, so a point's process is named cclab (ps, pkill),
 * not exe; /proc/self/exe if it cannot be read. */
static const char *self_path(void)
{
	static char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

	if (n <= 0 || (size_t)n >= sizeof(path) - 1)
		return "/proc/self/exe";
	path[n] = '\0';
	return path;
}

/* Point p's lock, taken without waiting: its fd, -1 when another process
 * (a second sweep on the folder, a task of another launch) runs it now,
 * -2 when it cannot be made. */
static int lock_point(const char *dir, uint64_t p)
{
	char *path = sweep_point_path(dir, p, "lock");
	int fd = path ? open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666) : -1;

	free(path);
	if (fd < 0)
		return -2;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Starts point p: its stale files gone, `cclab run` with its values.
 * The child's pid, or -1 after a message. */
static pid_t start_point(const struct sweep_args *a, const char *dir, uint64_t p)
{
	enum { FIXED = 12 };
	const char *argv[FIXED + 2 * (CLI_MAX_SETS + SWEEP_MAX_KEYS)];
	char *sets[SWEEP_MAX_KEYS] = {0}, *csv = sweep_point_path(dir, p, "csv"),
	     *json = sweep_point_path(dir, p, "json"), *out = sweep_point_path(dir, p, "out"),
	     *err = sweep_point_path(dir, p, "err");
	const char *exe = self_path();
	uint32_t idx[SWEEP_MAX_KEYS], n = 0;
	pid_t parent = getpid(), pid = -1;
	bool ok = csv && json && out && err;

	sweep_point_values(a, p, idx);
	argv[n++] = "cclab";
	argv[n++] = "run";
	argv[n++] = a->scenario;
	for (uint32_t i = 0; i < a->nsets; i++) {
		argv[n++] = "--set";
		argv[n++] = a->sets[i];
	}
	for (uint32_t i = 0; ok && i < a->nkeys; i++) {
		ok = asprintf(&sets[i], "%s=%s", a->keys[i].key, a->keys[i].vals[idx[i]]) > 0;
		argv[n++] = "--set";
		argv[n++] = ok ? sets[i] : "";
	}
	argv[n++] = "-j";
	argv[n++] = "1"; /* the points are what runs at once */
	argv[n++] = "--csv";
	argv[n++] = csv;
	argv[n++] = "--json";
	argv[n++] = json;
	argv[n] = NULL;
	if (!ok) {
		fprintf(stderr, "cclab sweep: out of memory\n");
		goto out;
	}
	unlink(csv); /* a result of an earlier try that got no status */
	unlink(json);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666),
		    e = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666),
		    in = open("/dev/null", O_RDONLY | O_CLOEXEC);

		/* The sweep gone (killed, its job cancelled), its points go
		 * too: none is left writing into the folder of a rerun. */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
			_exit(127);
		if (o < 0 || e < 0 || in < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0 || dup2(in, 0) < 0)
			_exit(127);
		execv(exe, (char *const *)argv);
		dprintf(2, "cclab sweep: cannot run %s: %s\n", exe, strerror(errno));
		_exit(127);
	}
	if (pid < 0)
		fprintf(stderr, "cclab sweep: cannot start point %llu: %s\n", (unsigned long long)p,
			strerror(errno));
out:
	for (uint32_t i = 0; i < a->nkeys; i++)
		free(sets[i]);
	free(csv);
	free(json);
	free(out);
	free(err);
	return pid;
}

/* Point p's status file: "exit N" (or "signal N"), and for a point that
 * failed its first line on stderr that says why.  A point stopped by
 * SIGINT, SIGTERM or SIGHUP (Ctrl-C, a job cancelled or out of time) was
 * interrupted, not failed: no status, so a rerun runs it.  Returns whether
 * it passed. */
static bool finish(const char *dir, uint64_t p, int status)
{
	char *path, *errp;
	char line[512] = "", text[600];
	FILE *f;
	int n, sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	bool passed = WIFEXITED(status) && WEXITSTATUS(status) == 0;

	if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP)
		return false;
	path = sweep_point_path(dir, p, "status");
	errp = sweep_point_path(dir, p, "err");
	f = !passed && errp ? fopen(errp, "re") : NULL;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "cclab ", 6) && !strstr(line, ": note: "))
			break; /* the first error, not a note */
		else
			line[0] = '\0';
	if (f)
		fclose(f);
	line[strcspn(line, "\n")] = '\0';
	if (WIFEXITED(status))
		n = snprintf(text, sizeof(text), "exit %d\n%s%s", WEXITSTATUS(status), line,
			     *line ? "\n" : "");
	else
		n = snprintf(text, sizeof(text), "signal %d\n%s%s", sig, line, *line ? "\n" : "");
	if (!path || cc_write_file_atomic(path, text, (size_t)n))
		fprintf(stderr, "cclab sweep: point %llu: cannot write its status\n",
			(unsigned long long)p);
	free(path);
	free(errp);
	return passed;
}

bool sweep_point_status(const char *dir, uint64_t p, struct sweep_status *st)
{
	char *path = sweep_point_path(dir, p, "status"), line[600] = "";
	FILE *f = path ? fopen(path, "re") : NULL;
	bool ok;

	free(path);
	memset(st, 0, sizeof(*st));
	if (!f)
		return false;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	ok = sscanf(line, "exit %d", &st->exit) == 1 || sscanf(line, "signal %d", &st->signal) == 1;
	if (ok && st->signal)
		st->exit = -1;
	if (ok && fgets(line, sizeof(line), f))
		snprintf(st->error, sizeof(st->error), "%.*s", (int)strcspn(line, "\n"), line);
	fclose(f);
	return ok;
}

bool sweep_point_done(const char *dir, uint64_t p)
{
	struct sweep_status st;

	return sweep_point_status(dir, p, &st);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* On a terminal: points done of those to run, and the time left at the
 * pace so far. */
static void progress(bool on, uint64_t done, uint64_t todo, double start)
{
	double took = now_s() - start;

	if (!on)
		return;
	if (done == todo) {
		fputs("\r\033[K", stderr);
		return;
	}
	fprintf(stderr, "\r\033[K[%llu/%llu points] %.0f s", (unsigned long long)done,
		(unsigned long long)todo, took);
	if (done)
		fprintf(stderr, ", about %.0f s left", took / (double)done * (double)(todo - done));
	fflush(stderr);
}

int sweep_run_points(const struct sweep_args *a, const char *dir,
		     const struct cli_share *share, uint32_t jobs)
{
	uint64_t n = sweep_npoints(a), next = share->index, todo = 0, done = 0;
	struct child kids[CLI_MAX_JOBS];
	uint32_t running = 0;
	bool tty = isatty(STDERR_FILENO), all_passed = true;
	double start = now_s();
	char *points = NULL;
	int rc = 0;

	if (asprintf(&points, "%s/points", dir) < 0 || (mkdir(points, 0777) && errno != EEXIST)) {
		fprintf(stderr, "cclab sweep: cannot make '%s/points': %s\n", dir, strerror(errno));
		free(points);
		return -1;
	}
	free(points);
	if (jobs > CLI_MAX_JOBS)
		jobs = CLI_MAX_JOBS;
	for (uint64_t p = share->index; p < n; p += share->count)
		todo += !sweep_point_done(dir, p);
	progress(tty, 0, todo, start);
	for (;;) {
		while (!rc && running < jobs && next < n) {
			uint64_t p = next;
			int lock;

			next += share->count;
			if (sweep_point_done(dir, p))
				continue;
			if ((lock = lock_point(dir, p)) == -1) {
				todo--; /* another process runs it */
				continue;
			}
			/* done while we looked, or no lock to be had */
			if (lock < 0 || sweep_point_done(dir, p)) {
				if (lock >= 0)
					close(lock);
				todo -= lock >= 0;
				if (lock < 0) {
					fprintf(stderr, "cclab sweep: cannot lock point %llu in '%s'\n",
						(unsigned long long)p, dir);
					rc = -1;
				}
				continue;
			}
			pid_t pid = start_point(a, dir, p);

			if (pid < 0) {
				close(lock);
				rc = -1;
				break;
			}
			kids[running++] = (struct child){ .pid = pid, .point = p, .lock = lock };
		}
		if (!running)
			break;
		int status;
		pid_t pid = waitpid(-1, &status, 0);

		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (uint32_t i = 0; i < running; i++)
			if (kids[i].pid == pid) {
				all_passed = finish(dir, kids[i].point, status) && all_passed;
				close(kids[i].lock);
				kids[i] = kids[--running];
				progress(tty, ++done, todo, start);
				break;
			}
	}
	return rc ? rc : all_passed ? 0 : 1;
}
