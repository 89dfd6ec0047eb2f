/* SPDX-License-Identifier: BSD-3-Clause */
/* util/files.c — inputs opened safely and remembered (util/files.h). */
#include "util/files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct file_id {
	dev_t dev;
	ino_t ino;
	int fd; /* kept open, or -1 */
};

/* Every input of this process.  A run reads a handful of files; `cclab
 * tune` reads them from several threads, hence the lock.  Each stays open
 * (up to KEPT_OPEN of them) for as long as the program runs: an input
 * deleted meanwhile keeps its inode, which a new file could otherwise
 * take, and be refused as an output for an input it never was. */
#define KEPT_OPEN 256
static struct file_id *inputs;
static size_t ninputs, cap_inputs;
static pthread_mutex_t inputs_lock = PTHREAD_MUTEX_INITIALIZER;

static bool known(const struct stat *st)
{
	for (size_t i = 0; i < ninputs; i++)
		if (inputs[i].dev == st->st_dev && inputs[i].ino == st->st_ino)
			return true;
	return false;
}

static int remember(const struct stat *st, int fd)
{
	int rc = 0;

	pthread_mutex_lock(&inputs_lock);
	if (!known(st)) {
		if (ninputs == cap_inputs) {
			size_t cap = cap_inputs ? 2 * cap_inputs : 8;
			struct file_id *p = realloc(inputs, cap * sizeof(*p));

			if (!p) {
				rc = -ENOMEM;
				goto out;
			}
			inputs = p;
			cap_inputs = cap;
		}
		inputs[ninputs] = (struct file_id){
			st->st_dev, st->st_ino,
			ninputs < KEPT_OPEN ? fcntl(fd, F_DUPFD_CLOEXEC, 3) : -1,
		};
		ninputs++;
	}
out:
	pthread_mutex_unlock(&inputs_lock);
	return rc;
}

void cc_inputs_forget(void)
{
	pthread_mutex_lock(&inputs_lock);
	for (size_t i = 0; i < ninputs; i++)
		if (inputs[i].fd >= 0)
			close(inputs[i].fd);
	free(inputs);
	inputs = NULL;
	ninputs = cap_inputs = 0;
	pthread_mutex_unlock(&inputs_lock);
}

bool cc_input_is(const struct stat *st)
{
	bool yes;

	pthread_mutex_lock(&inputs_lock);
	yes = known(st);
	pthread_mutex_unlock(&inputs_lock);
	return yes;
}

int cc_input_open(const char *path, int *fd)
{
	struct stat st;
	int f, flags, err;

	if (!path || !*path)
		return -ENOENT;
	/* O_NONBLOCK: opening a FIFO for reading waits for a writer, forever
	 * if none comes; non-blocking, it returns and fstat says what it is. */
	f = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (f < 0)
		return -errno;
	if (fstat(f, &st) < 0) {
		err = -errno;
		close(f);
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		close(f);
		return S_ISDIR(st.st_mode) ? -EISDIR : -CC_ENOTREG;
	}
	flags = fcntl(f, F_GETFL);
	if (flags < 0 || fcntl(f, F_SETFL, flags & ~O_NONBLOCK) < 0)
		err = -errno;
	else
		err = remember(&st, f);
	if (err) {
		close(f);
		return err;
	}
	*fd = f;
	return 0;
}

const char *cc_file_kind(const struct stat *st)
{
	switch (st->st_mode & S_IFMT) {
	case S_IFREG:
		return "a regular file";
	case S_IFDIR:
		return "a directory";
	case S_IFIFO:
		return "a FIFO";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFSOCK:
		return "a socket";
	case S_IFLNK:
		return "a symbolic link";
	default:
		return "a special file";
	}
}

const char *cc_file_strerror(int err)
{
	switch (-err) {
	case CC_ENOTREG:
		return "not a regular file";
	case CC_EISINPUT:
		return "it is one of this run's input files; refusing to overwrite it";
	case CC_EUNSAFE:
		return "a block device or socket, not a file to write results to";
	case CC_ENOREADER:
		return "a FIFO that no process is reading";
	case CC_ESAMEOUT:
		return "another output of this run names the same file";
	default:
		return strerror(-err);
	}
}

const char *cc_shown(char *buf, const char *path)
{
	size_t n = strlen(path);

	if (n <= CC_SHOWN_MAX)
		return path;
	snprintf(buf, CC_SHOWN_BUF, "%.60s...%s (%zu characters)", path, path + n - 60, n);
	return buf;
}

bool cc_file_refused(int err)
{
	return err == -CC_EISINPUT || err == -CC_EUNSAFE || err == -CC_ESAMEOUT ||
	       err == -CC_ENOTREG;
}

/* The whole of fd into *buf (caller frees): 0, -errno, or -EFBIG past
 * max.  Reads to the end rather than trusting st_size, so a file
 * still being written reads correctly. */
int cc_read_all(int fd, size_t max, char **buf, size_t *len)
{
	struct stat st;
	size_t cap = 4096, n = 0;
	char *p;

	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		if ((uint64_t)st.st_size > max)
			return -EFBIG;
		cap = (size_t)st.st_size + 1; /* +1: see the end without a second buffer */
	}
	p = malloc(cap);
	if (!p)
		return -ENOMEM;
	for (;;) {
		ssize_t r;

		if (n == cap) {
			char *q = cap > max ? NULL : realloc(p, cap * 2);

			if (!q) {
				free(p);
				return cap > max ? -EFBIG : -ENOMEM;
			}
			p = q;
			cap *= 2;
		}
		r = read(fd, p + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(p);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > max) {
		free(p);
		return -EFBIG;
	}
	*buf = p;
	*len = n;
	return 0;
}
