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

/* An environment variable as a whole number, or -1. */
static long env_num(const char *name)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (!v || !*v)
		return -1;
	errno = 0;
	n = strtol(v, &end, 10);
	return errno || *end || n < 0 ? -1 : n;
}

void sweep_share_find(struct sweep_share *s)
{
	/* Slurm job array (sbatch --array=A-B): tasks are numbered from the
	 * array's first index; each is a share, merged afterwards. */
	long id = env_num("SLURM_ARRAY_TASK_ID"), count = env_num("SLURM_ARRAY_TASK_COUNT"),
	     min = env_num("SLURM_ARRAY_TASK_MIN");
	static const char *const ranks[][2] = {
		{ "SLURM_PROCID", "SLURM_NTASKS" },
		{ "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE" },
		{ "PMI_RANK", "PMI_SIZE" },
	};

	memset(s, 0, sizeof(*s));
	s->count = 1;
	if (id >= 0 && count > 0 && id - (min > 0 ? min : 0) < count) {
		s->index = (uint32_t)(id - (min > 0 ? min : 0));
		s->count = (uint32_t)count;
		s->from = "SLURM_ARRAY_TASK_ID";
		s->array = true;
		return;
	}
	for (size_t i = 0; i < sizeof(ranks) / sizeof(ranks[0]); i++) {
		long r = env_num(ranks[i][0]), n = env_num(ranks[i][1]);

		if (r >= 0 && n > 0 && r < n) {
			s->index = (uint32_t)r;
			s->count = (uint32_t)n;
			s->from = ranks[i][0];
			return;
		}
	}
}

struct child {
	pid_t pid;
	uint64_t point;
};

/* Starts point p: its stale files gone, `cclab run` with its values.
 * The child's pid, or -1 after a message. */
static pid_t start_point(const struct sweep_args *a, const char *dir, uint64_t p)
{
	enum { FIXED = 12 };
	const char *argv[FIXED + 2 * (CLI_MAX_SETS + SWEEP_MAX_KEYS)];
	char *sets[SWEEP_MAX_KEYS] = {0}, *csv = sweep_point_path(dir, p, "csv"),
	     *json = sweep_point_path(dir, p, "json"), *out = sweep_point_path(dir, p, "out"),
	     *err = sweep_point_path(dir, p, "err");
	uint32_t idx[SWEEP_MAX_KEYS], n = 0;
	pid_t pid = -1;
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

		if (o < 0 || e < 0 || in < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0 || dup2(in, 0) < 0)
			_exit(127);
		execv("/proc/self/exe", (char *const *)argv);
		dprintf(2, "cclab sweep: cannot run /proc/self/exe: %s\n", strerror(errno));
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

/* The point's status file: "exit N" (or "signal N"), and its first line
 * on stderr that says what went wrong, if any. */
static void finish(const char *dir, uint64_t p, int status)
{
	char *path = sweep_point_path(dir, p, "status"), *errp = sweep_point_path(dir, p, "err");
	char line[512] = "", text[600];
	FILE *f = errp ? fopen(errp, "re") : NULL;
	int n, werr;

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
		n = snprintf(text, sizeof(text), "signal %d\n%s%s",
			     WIFSIGNALED(status) ? WTERMSIG(status) : 0, line, *line ? "\n" : "");
	if (!path || (werr = cc_write_file_atomic(path, text, (size_t)n)))
		fprintf(stderr, "cclab sweep: point %llu: cannot write its status\n",
			(unsigned long long)p);
	free(path);
	free(errp);
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

bool sweep_run_points(const struct sweep_args *a, const char *dir,
		      const struct sweep_share *share, uint32_t jobs)
{
	uint64_t n = sweep_npoints(a), next = share->index, todo = 0, done = 0;
	struct child kids[CLI_MAX_JOBS];
	uint32_t running = 0;
	bool tty = isatty(STDERR_FILENO), ok = true;
	double start = now_s();
	char *points = NULL;

	if (asprintf(&points, "%s/points", dir) < 0 || (mkdir(points, 0777) && errno != EEXIST)) {
		fprintf(stderr, "cclab sweep: cannot make '%s/points': %s\n", dir, strerror(errno));
		free(points);
		return false;
	}
	free(points);
	if (jobs > CLI_MAX_JOBS)
		jobs = CLI_MAX_JOBS;
	/* The share's points that have no status yet. */
	bool *run = calloc(n, sizeof(*run));

	if (!run) {
		fprintf(stderr, "cclab sweep: out of memory\n");
		return false;
	}
	for (uint64_t p = share->index; p < n; p += share->count) {
		char *st = sweep_point_path(dir, p, "status");

		run[p] = !st || access(st, F_OK) != 0;
		todo += run[p];
		free(st);
	}
	progress(tty, 0, todo, start);
	for (;;) {
		while (ok && running < jobs && next < n) {
			uint64_t p = next;

			next += share->count;
			if (!run[p])
				continue;
			pid_t pid = start_point(a, dir, p);

			if (pid < 0) {
				ok = false;
				break;
			}
			kids[running++] = (struct child){ .pid = pid, .point = p };
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
				finish(dir, kids[i].point, status);
				kids[i] = kids[--running];
				progress(tty, ++done, todo, start);
				break;
			}
	}
	free(run);
	return ok;
}
