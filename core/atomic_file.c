/* core/atomic_file.c — result files that are complete or absent
 * (core/results.h, "atomic files"), and the temporary files of those still
 * being written removed when SIGINT, SIGTERM or SIGHUP ends the program:
 * an interrupted sweep leaves neither a half-written result nor a
 * ".NAME.tmpXXXXXX" beside it. */
#include "core/results.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The temporary files open now, for the signal handler: a slot holds a
 * path until its file is committed or aborted.  Only the process that
 * opened them removes them — a rank forked by `cclab run -n K` and ended
 * by its parent must not take the parent's files. */
#define PENDING_MAX 32
static char *volatile pending[PENDING_MAX];
static volatile pid_t pending_owner[PENDING_MAX];
static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP };

static void on_signal(int sig)
{
	pid_t self = getpid();

	for (int i = 0; i < PENDING_MAX; i++)
		if (pending[i] && pending_owner[i] == self)
			unlink(pending[i]); /* async-signal-safe */
	signal(sig, SIG_DFL);
	raise(sig); /* the default action: the exit status says which signal */
}

/* Installs the handler once, for the signals still at their default: a
 * program (or shell) that ignores or handles one keeps it so. */
static void install_handler(void)
{
	static int done;

	if (done)
		return;
	done = 1;
	for (size_t i = 0; i < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]); i++) {
		struct sigaction old, sa;

		if (sigaction(cleanup_signals[i], NULL, &old) || old.sa_handler != SIG_DFL)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(cleanup_signals[i], &sa, NULL);
	}
}

static void remember(struct cc_atomic_file *af)
{
	install_handler();
	for (int i = 0; i < PENDING_MAX; i++)
		if (!pending[i]) {
			pending_owner[i] = getpid();
			pending[i] = af->tmp; /* last: the handler reads the path first */
			af->slot = i;
			return;
		}
	/* more files open than slots: this one is not cleaned up on a signal */
}

/* (An af never opened is all zeros: its slot 0 is not its own.) */
static void forget(struct cc_atomic_file *af)
{
	if (af->slot >= 0 && af->slot < PENDING_MAX && af->tmp && pending[af->slot] == af->tmp)
		pending[af->slot] = NULL;
	af->slot = -1;
}

static void atomic_release(struct cc_atomic_file *af)
{
	forget(af);
	free(af->tmp);
	free(af->path);
	af->f = NULL;
	af->tmp = af->path = NULL;
}

/* The directory part of path: "a/b/c" -> "a/b", "c" -> ".", "/c" -> "/". */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

int cc_atomic_open(struct cc_atomic_file *af, const char *path)
{
	const char *base;
	char *dir;
	struct stat st;
	mode_t mode = 0644;
	int fd, err;

	memset(af, 0, sizeof(*af));
	af->slot = -1;
	if (!path || !*path)
		return -EINVAL;
	/* Said now, not when the run is over and rename() fails. */
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return -EISDIR;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	dir = dir_of(path);
	af->path = strdup(path);
	/* ".NAME.tmpXXXXXX" beside the target: same file system, so rename()
	 * is atomic; hidden, so a glob for results does not pick it up. */
	if (dir && af->path && asprintf(&af->tmp, "%s/.%s.tmpXXXXXX", dir, base) < 0)
		af->tmp = NULL;
	free(dir);
	if (!af->path || !af->tmp) {
		atomic_release(af);
		return -ENOMEM;
	}
	fd = mkostemp(af->tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		atomic_release(af);
		return err;
	}
	/* mkstemp makes the file 0600; a result file is for reading, so give
	 * it an existing target's mode, or 0644. */
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		mode = st.st_mode & 07777;
	if (fchmod(fd, mode) < 0 || !(af->f = fdopen(fd, "w"))) {
		err = -errno;
		close(fd);
		unlink(af->tmp);
		atomic_release(af);
		return err;
	}
	remember(af);
	return 0;
}

void cc_atomic_abort(struct cc_atomic_file *af)
{
	if (af->f)
		fclose(af->f);
	if (af->tmp)
		unlink(af->tmp);
	atomic_release(af);
}

int cc_atomic_commit(struct cc_atomic_file *af)
{
	int err = 0;

	if (!af->f)
		return -EINVAL;
	if (fflush(af->f) != 0)
		err = -errno;
	else if (ferror(af->f))
		err = -EIO; /* an earlier buffered write failed; errno is gone */
	else if (fsync(fileno(af->f)) < 0)
		err = -errno;
	if (fclose(af->f) != 0 && !err)
		err = -errno;
	af->f = NULL;
	if (!err && rename(af->tmp, af->path) < 0)
		err = -errno;
	if (err) {
		unlink(af->tmp);
		atomic_release(af);
		return err;
	}
	/* Make the rename durable.  Best effort: the file is in place now,
	 * and reporting an error here would claim it is not. */
	char *dir = dir_of(af->path);

	if (dir) {
		int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (dfd >= 0) {
			(void)fsync(dfd);
			close(dfd);
		}
		free(dir);
	}
	atomic_release(af);
	return 0;
}

int cc_write_file_atomic(const char *path, const void *data, size_t len)
{
	struct cc_atomic_file af;
	int err = cc_atomic_open(&af, path);

	if (err)
		return err;
	errno = 0;
	if (len && fwrite(data, 1, len, af.f) != len) {
		err = errno ? -errno : -EIO;
		cc_atomic_abort(&af);
		return err;
	}
	return cc_atomic_commit(&af);
}
