/* SPDX-License-Identifier: BSD-3-Clause */
/* util/atomic_file.c — result files that are complete or absent
 * (util/atomic_file.h), never written over a device, a FIFO's
 * path, a link or one of the run's inputs; and the temporary files of those still
 * being written removed when SIGINT, SIGTERM or SIGHUP ends the program:
 * an interrupted sweep leaves neither a half-written result nor a
 * ".NAME.tmpXXXXXX" beside it. */
#include "util/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "util/files.h"

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
	af->borrowed = false;
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

/* Linux's MAXSYMLINKS: as many links as the kernel follows in one path. */
#define MAX_LINKS 40

/* Where path ends once its symbolic links are followed (*out, malloc'd):
 * the file a shell's '>' would write, which need not exist yet.  A link
 * kept by procfs (/proc/self/fd/1, reached from /dev/stdout or /dev/fd/1)
 * names a file this process has open, which may have no path at all (a
 * pipe, a deleted file): the walk stops there with *magic set. */
static int resolve(const char *path, char **out, bool *magic)
{
	char *p = strdup(path);

	*magic = false;
	for (int hops = 0; p; hops++) {
		char target[PATH_MAX], *dir, *next;
		struct statfs fs;
		struct stat st;
		ssize_t n;

		if (lstat(p, &st) < 0 || !S_ISLNK(st.st_mode))
			break; /* not there (yet), or no link: the path itself */
		if (hops == MAX_LINKS) {
			free(p);
			return -ELOOP;
		}
		if (!(dir = dir_of(p)))
			break;
		if (statfs(dir, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC) {
			free(dir);
			*magic = true;
			break;
		}
		n = readlink(p, target, sizeof(target) - 1);
		if (n < 0) {
			int err = -errno;

			free(dir);
			free(p);
			return err;
		}
		target[n] = '\0';
		if (target[0] == '/')
			next = strdup(target);
		else if (asprintf(&next, "%s/%s", dir, target) < 0)
			next = NULL;
		free(dir);
		free(p);
		p = next;
	}
	if (!p)
		return -ENOMEM;
	*out = p;
	return 0;
}

/* The descriptor N of this process that a procfs link /proc/self/fd/N
 * (or /dev/fd/N) names, or -1 when path is not such a link. */
static int own_fd(const char *path)
{
	struct stat a, b;
	char *dir = dir_of(path), *end;
	const char *base = strrchr(path, '/');
	long n;

	if (!dir || !base) {
		free(dir);
		return -1;
	}
	n = strtol(base + 1, &end, 10);
	bool mine = base[1] && !*end && n >= 0 && n <= INT32_MAX && stat(dir, &a) == 0 &&
		    stat("/proc/self/fd", &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;

	free(dir);
	return mine ? (int)n : -1;
}

/* What is at target (links already followed) decides how it is written:
 * 1 directly, 0 by a temporary file and rename(), or a negative error for
 * what is refused. */
static int classify(const char *target)
{
	struct stat st;

	if (stat(target, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (cc_input_is(&st))
		return -CC_EISINPUT;
	if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))
		return 1;
	if (!S_ISREG(st.st_mode))
		return -CC_EUNSAFE;
	return 0;
}

/* Opens a procfs link, a FIFO or a character device for writing where it
 * stands.  A descriptor of this process is dup()ed, so the output shares
 * its offset (`--csv /dev/stdout > f` appends to what stdout wrote); any
 * other is opened without O_CREAT or O_TRUNC, and without blocking, so a
 * FIFO that nobody reads is an error (ENXIO) instead of a hang. */
static int open_direct(struct cc_atomic_file *af, bool magic)
{
	int own = magic ? own_fd(af->path) : -1;
	int fd, flags;
	struct stat st;

	if (own >= 0)
		fd = fcntl(own, F_DUPFD_CLOEXEC, 0);
	else
		fd = open(af->path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC |
					    (magic ? O_APPEND : 0));
	if (fd < 0)
		return errno == ENXIO ? -CC_ENOREADER : -errno;
	/* O_NONBLOCK was only for the open: writes wait for a slow reader.
	 * (A duplicate shares its flags with the original: left alone.) */
	if (fstat(fd, &st) < 0 ||
	    (own < 0 && ((flags = fcntl(fd, F_GETFL)) < 0 ||
			 fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0))) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (S_ISBLK(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISDIR(st.st_mode) ||
	    cc_input_is(&st)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : cc_input_is(&st) ? -CC_EISINPUT : -CC_EUNSAFE;
	}
	if (!(af->f = fdopen(fd, "w"))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return 0;
}

/* ".NAME.tmpXXXXXX" beside the target: same file system, so rename() is
 * atomic; hidden, so a glob for results does not pick it up. */
static int open_temp(struct cc_atomic_file *af)
{
	const char *base = strrchr(af->path, '/');
	char *dir = dir_of(af->path);
	struct stat st;
	mode_t mode = 0644;
	int fd, err;

	base = base ? base + 1 : af->path;
	if (!dir || asprintf(&af->tmp, "%s/.%s.tmpXXXXXX", dir, base) < 0)
		af->tmp = NULL;
	free(dir);
	if (!af->tmp)
		return -ENOMEM;
	fd = mkostemp(af->tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		free(af->tmp);
		af->tmp = NULL;
		return err;
	}
	/* mkstemp makes the file 0600; a result file is for reading, so give
	 * it an existing target's mode, or 0644. */
	if (stat(af->path, &st) == 0 && S_ISREG(st.st_mode))
		mode = st.st_mode & 07777;
	if (fchmod(fd, mode) < 0 || !(af->f = fdopen(fd, "w"))) {
		err = -errno;
		close(fd);
		unlink(af->tmp);
		free(af->tmp);
		af->tmp = NULL;
		return err;
	}
	remember(af);
	return 0;
}

int cc_atomic_open(struct cc_atomic_file *af, const char *path)
{
	bool magic;
	int how, err;

	memset(af, 0, sizeof(*af));
	af->slot = -1;
	if (!path || !*path)
		return -EINVAL;
	if (!strcmp(path, "-")) {
		af->f = stdout;
		af->borrowed = true;
		return 0;
	}
	if ((err = resolve(path, &af->path, &magic)))
		return err;
	how = magic ? 1 : classify(af->path);
	err = how < 0 ? how : how ? open_direct(af, magic) : open_temp(af);
	if (err)
		atomic_release(af);
	return err;
}

int cc_atomic_check(const char *path)
{
	char *target, *dir;
	bool magic;
	int how, err;

	if (!path || !*path)
		return -EINVAL;
	if (!strcmp(path, "-"))
		return 0;
	if ((err = resolve(path, &target, &magic)))
		return err;
	how = magic ? 1 : classify(target);
	/* A file that will be replaced needs a folder it can write into. */
	if (how == 0 && (dir = dir_of(target))) {
		if (access(dir, W_OK | X_OK) < 0)
			how = -errno;
		free(dir);
	}
	free(target);
	return how < 0 ? how : 0;
}

bool cc_output_same(const char *a, const char *b)
{
	char *ta = NULL, *tb = NULL;
	struct stat sa, sb;
	bool ma, mb, same = false;

	if (!strcmp(a, "-") || !strcmp(b, "-"))
		return false; /* stdout, like a terminal or a FIFO, takes two writers */
	if (resolve(a, &ta, &ma) == 0 && resolve(b, &tb, &mb) == 0) {
		if (stat(ta, &sa) == 0 && stat(tb, &sb) == 0) {
			same = sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino &&
			       S_ISREG(sa.st_mode); /* two writers to one tty or FIFO are fine */
		} else {
			/* Not there yet: the same name in the same folder. */
			char *da = dir_of(ta), *db = dir_of(tb);
			const char *ba = strrchr(ta, '/'), *bb = strrchr(tb, '/');

			ba = ba ? ba + 1 : ta;
			bb = bb ? bb + 1 : tb;
			same = da && db && stat(da, &sa) == 0 && stat(db, &sb) == 0 &&
			       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && !strcmp(ba, bb);
			free(da);
			free(db);
		}
	}
	free(ta);
	free(tb);
	return same;
}

void cc_atomic_abort(struct cc_atomic_file *af)
{
	if (af->f && !af->borrowed)
		fclose(af->f);
	if (af->tmp)
		unlink(af->tmp);
	atomic_release(af);
}

/* Stdout, or a file written where it stands: flush and close; there is
 * nothing to rename, and fsync() means nothing to a pipe or a terminal. */
static int commit_direct(struct cc_atomic_file *af)
{
	int err = 0;

	if (fflush(af->f) != 0)
		err = -errno;
	else if (ferror(af->f))
		err = -EIO;
	if (!af->borrowed && fclose(af->f) != 0 && !err)
		err = -errno;
	atomic_release(af);
	return err;
}

int cc_atomic_commit(struct cc_atomic_file *af)
{
	struct stat st;
	int err = 0;

	if (!af->f)
		return -EINVAL;
	if (!af->tmp)
		return commit_direct(af);
	if (fflush(af->f) != 0)
		err = -errno;
	else if (ferror(af->f))
		err = -EIO; /* an earlier buffered write failed; errno is gone */
	else if (fsync(fileno(af->f)) < 0)
		err = -errno;
	if (fclose(af->f) != 0 && !err)
		err = -errno;
	af->f = NULL;
	/* Read as an input since it was opened (a command that loads a file
	 * late): still not to be replaced. */
	if (!err && stat(af->path, &st) == 0 && cc_input_is(&st))
		err = -CC_EISINPUT;
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
